/* ffn_cpu.c — the expert-FFN example's CPU target: the same two kernels built for the CPU
 * execution target (nvfp4-compile --cpu; sm_120a by default, the target whose simulation
 * is fastest) and run on libnvfp4sim's CTA simulator over the host buffers themselves,
 * as nvfp4-run --cpu does: the variant the runtime would choose for a device of `sms` SMs,
 * CPU tensor maps, the packed parameter block, and a launch that may write only the
 * kernel's outputs (and its workspace) and read only its inputs, so that a stray access
 * stops the run (FAULT) instead of passing unnoticed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moe_ffn.h"
#include "nvfp4sim.h"

#define FFN_CPU_DEFAULT_ARCH "sm_120a"

struct ffn_target {
  nvfp4sim_module *up, *down;
  uint32_t sms;
};

static int load(const ffn_data *d, const ffn_kernel_opts *o, const char *op,
                nvfp4sim_module **mod) {
  const char *arch = o->arch ? o->arch : FFN_CPU_DEFAULT_ARCH;
  char path[4200], why[512];
  if (ffn_kernel_path(d, o, op, arch, "so", path, sizeof path)) {
    fprintf(stderr, "moe-ffn: cannot name the %s kernel's path\n", op);
    return FFN_EXIT_ERROR;
  }
  if (nvfp4sim_module_load(path, mod, why, sizeof why) == 0) return FFN_EXIT_PASS;
  fprintf(stderr, "moe-ffn: loading %s: %s\n(the example's CPU-target kernels are built with "
                  "the tree, for sm_120a, in lib/moe-ffn; --kernels DIR names another folder)\n",
          path, why);
  return FFN_EXIT_ERROR;
}

int ffn_cpu_open(const ffn_data *d, const ffn_kernel_opts *o, ffn_target **out) {
  ffn_target *t = calloc(1, sizeof *t);
  *out = t;
  if (!t) return FFN_EXIT_ERROR;
  t->sms = o->sms;
  printf("kernels: %s CPU-target objects on libnvfp4sim (%u simulated SMs)\n",
         o->arch ? o->arch : FFN_CPU_DEFAULT_ARCH, t->sms);
  int rc = load(d, o, "ffn_up", &t->up);
  return rc ? rc : load(d, o, "ffn_down", &t->down);
}

/* One kernel launch on the simulator: `reads` and `writes` name the buffers it may read
 * and write (FFN_BUF_* lists ending in -1). */
typedef struct cpu_launch {
  const nvfp4sim_module *mod;
  const nvfp4rt_moe_problem *p;
  const int *reads, *writes;
  const char *what;
} cpu_launch;

/* The parameter block and, after it, its device table of CPU tensor maps. */
static int build_block(const nvfp4_kernel_metadata *meta, const nvfp4rt_moe_problem *p,
                       void *ws, size_t ws_bytes, void *block, size_t bytes, const char *what) {
  char why[512];
  if (nvfp4sim_moe_params_build(meta, p, (uint64_t)(uintptr_t)ws, ws_bytes, block, bytes, why,
                                sizeof why) != 0) {
    fprintf(stderr, "moe-ffn: %s: %s\n", what, why);
    return FFN_EXIT_ERROR;
  }
  return FFN_EXIT_PASS;
}

/* The ranges of the listed buffers, then up to two more (block, workspace). */
static uint32_t ranges(const ffn_io *io, const int *list, nvfp4sim_range *r) {
  uint32_t n = 0;
  for (; *list >= 0; list++) r[n++] = (nvfp4sim_range){io->host[*list], io->bytes[*list], io->name[*list]};
  return n;
}

static int simulate(const ffn_io *io, const cpu_launch *L, int v,
                    void *block, size_t block_bytes, void *ws, size_t ws_bytes, uint32_t grid) {
  nvfp4sim_range rd[FFN_BUF_COUNT + 1], wr[FFN_BUF_COUNT + 1];
  uint32_t nr = ranges(io, L->reads, rd), nw = ranges(io, L->writes, wr);
  rd[nr++] = (nvfp4sim_range){block, block_bytes, "the parameter block and its table"};
  if (ws_bytes) wr[nw++] = (nvfp4sim_range){ws, ws_bytes, "the workspace"};
  nvfp4sim_options opts = {1, 10, stderr, 0, NVFP4SIM_CLUSTERS_FORWARD, 0, rd, nr, 0};
  nvfp4sim_result res;
  memset(&res, 0, sizeof res);
  if (grid) nvfp4sim_launch(L->mod, (uint32_t)v, block, grid, wr, nw, &opts, &res);
  printf("cpu %s: %s  (%llu hazard reports, %.1f ms)\n", L->what, nvfp4sim_outcome_name(res.outcome),
         (unsigned long long)res.hazards, res.wall_ms);
  if (res.outcome == NVFP4SIM_OK) return FFN_EXIT_PASS;
  fprintf(stderr, "moe-ffn: %s on the CPU target: %s%s\n", L->what,
          nvfp4sim_outcome_name(res.outcome), res.message[0] ? res.message : "");
  return FFN_EXIT_ERROR;
}

static int launch(const ffn_target *t, const ffn_io *io, const cpu_launch *L) {
  const nvfp4rt_metadata_table *table = nvfp4sim_module_table(L->mod);
  const int v = nvfp4rt_moe_select_variant(table, L->p, t->sms);
  if (v < 0) {
    fprintf(stderr, "moe-ffn: %s: no variant of the kernel fits: %s\n", L->what,
            nvfp4rt_last_error_message());
    return FFN_EXIT_ERROR;
  }
  const nvfp4_kernel_metadata *meta = &table->variants[v];
  const uint64_t tiles = nvfp4rt_moe_max_tiles(meta, L->p);
  const uint32_t grid = nvfp4rt_grid_size(meta, tiles > UINT32_MAX ? UINT32_MAX : (uint32_t)tiles, t->sms);
  const size_t block_bytes = (nvfp4sim_moe_image_bytes(meta) + 63) / 64 * 64;
  const size_t ws_bytes = (size_t)meta->workspace_per_cta * grid;
  void *block = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, block_bytes);
  void *ws = ws_bytes ? aligned_alloc(64, (ws_bytes + 63) / 64 * 64) : NULL;
  int rc = block && (ws || !ws_bytes) ? FFN_EXIT_PASS : FFN_EXIT_ERROR;
  if (rc) fprintf(stderr, "moe-ffn: out of host memory\n");
  if (!rc) rc = build_block(meta, L->p, ws, ws_bytes, block, block_bytes, L->what);
  if (!rc) {
    printf("cpu kernel: %s [%s]  grid %u  smem %u\n", meta->kernel_name, meta->target, grid,
           meta->dyn_smem_bytes);
    rc = simulate(io, L, v, block, block_bytes, ws, ws_bytes, grid);
  }
  free(block);
  free(ws);
  return rc;
}

int ffn_cpu_run(ffn_target *t, const ffn_data *d, ffn_io *io) {
  uint64_t addr[FFN_BUF_COUNT];
  for (int i = 0; i < FFN_BUF_COUNT; i++) addr[i] = (uint64_t)(uintptr_t)io->host[i];
  nvfp4rt_moe_problem up, down;
  ffn_problems(d, addr, &up, &down);
  static const int up_reads[] = {FFN_BUF_X, FFN_BUF_SFX, FFN_BUF_W13, FFN_BUF_SFW13,
                                 FFN_BUF_OFFSETS, FFN_BUF_ALPHA13, FFN_BUF_GS, -1};
  static const int up_writes[] = {FFN_BUF_H, FFN_BUF_SFH, -1};
  static const int down_reads[] = {FFN_BUF_H, FFN_BUF_SFH, FFN_BUF_W2, FFN_BUF_SFW2,
                                   FFN_BUF_OFFSETS, FFN_BUF_ALPHA2, -1};
  static const int down_writes[] = {FFN_BUF_Y, -1};
  const cpu_launch L[2] = {
      {t->up, &up, up_reads, up_writes, "up-projection (fused SwiGLU + NVFP4)"},
      {t->down, &down, down_reads, down_writes, "down-projection (bf16 C)"}};
  int rc = launch(t, io, &L[0]);
  return rc ? rc : launch(t, io, &L[1]);
}

void ffn_cpu_close(ffn_target *t) {
  if (!t) return;
  nvfp4sim_module_destroy(t->up);
  nvfp4sim_module_destroy(t->down);
  free(t);
}
