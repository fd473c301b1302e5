/* nvfp4-run-cpu-fused.c — `nvfp4-run --cpu KERNEL.so --fused ...`: runs the CPU execution
 * target of a kernel family with the fused SwiGLU + NVFP4 epilogue (epilogue =
 * "swiglu_nvfp4", built with the op's unit attribute nvfp4.debug_activations so that the
 * kernel also stores its fp32 activations h) on the CTA simulator, in either form:
 *
 *   nvfp4-run --cpu KERNEL.so --fused (--groups "m,n,k;..." | --random G | --moe E,M,N,K)
 *             [--routing random|empty|one|balanced] [--tokens T] [--seed S] [--full-range]
 *             [--ldc-pad P] [--variant V] [--sms N] [--schedule-seed S] [--threads T]
 *
 * n / N is B's 2I gate/up rows (I a multiple of 64; of 128 for a kernel built for static
 * multiples of 128); --random G draws G groups of M in 0..300, I in {64, 128, ..., 384},
 * K in {64, ..., 512}. The inputs, their edge cases and the checks are fused_case.h's
 * (shared with the GPU mode, nvfp4-run-fused.c): codes and SFC bit for bit against
 * nvfp4h_quant_block of the kernel's own activations, the activations against swiglu of
 * the reference GEMM, nothing written outside the rows and columns the kernel owns.
 * Exit codes as nvfp4-run --cpu: 0 pass, 1 check failed, 2 error, 3 deadlock, 4 hazard. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fused_case.h"
#include "nvfp4rt.h"
#include "nvfp4rt_host.h"
#include "nvfp4sim.h"
#include "run_common.h"
#include "run_cpu_exit.h"

int nvfp4_run_cpu_fused(int argc, char **argv);


static void usage(FILE *f) {
  fprintf(f, "usage: nvfp4-run --cpu KERNEL.so --fused (--groups \"m,n,k;...\" | --random G |\n"
             "                 --moe E,M,N,K [--routing random|empty|one|balanced] [--tokens T])\n"
             "                 [--seed S] [--full-range] [--ldc-pad P] [--variant NAME|INDEX]\n"
             "                 [--sms N] [--schedule-seed S] [--threads T]\n"
             "  n, N: B's 2I gate/up rows (I a multiple of 64); the kernel must be built with\n"
             "  nvfp4.debug_activations\n"
             "exit: 0 ok, 1 check failed, 2 error, 3 deadlock, 4 hazard or illegal operation\n");
}

/* The identity: the CPU target reads host memory. */
static uint64_t host_addr(void *arg, const void *p) {
  (void)arg;
  return (uint64_t)(uintptr_t)p;
}

/* The parameter block of the case (either form). Returns 0, or -1 after printing why. */
static int build_block(FusedCase *fc, const nvfp4_kernel_metadata *meta, void **block,
                       size_t *block_bytes, uint32_t *tiles) {
  char why[512];
  if (!fc->is_moe) {
    nvfp4rt_group groups[FUSED_MAX_SEGS];
    fused_case_groups(fc, host_addr, NULL, groups);
    *block_bytes = (NVFP4_ABI_HEADER_BYTES + (size_t)nvfp4_abi_table_bytes(meta->max_groups) + 63) / 64 * 64;
    *block = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, *block_bytes);
    nvfp4rt_plan_layout *layout = malloc(sizeof *layout);
    if (!*block || !layout ||
        nvfp4sim_params_build(meta, groups, fc->nseg, *block, *block_bytes, layout, why, sizeof why)) {
      fprintf(stderr, "nvfp4-run --cpu --fused: %s\n", *block && layout ? why : "out of host memory");
      free(layout);
      return -1;
    }
    fused_case_place_act(fc, layout); /* the activations of table slot t (KernelABI.h) */
    *tiles = layout->total_tiles;
    free(layout);
    return 0;
  }
  nvfp4rt_moe_problem args = fused_case_moe_args(fc, host_addr, NULL);
  *block_bytes = (nvfp4sim_moe_image_bytes(meta) + 63) / 64 * 64;
  *block = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, *block_bytes);
  if (!*block ||
      nvfp4sim_moe_params_build(meta, &args, 0, 0, *block, *block_bytes, why, sizeof why) != 0) {
    fprintf(stderr, "nvfp4-run --cpu --fused: %s\n", *block ? why : "out of host memory");
    return -1;
  }
  *tiles = (uint32_t)nvfp4rt_moe_max_tiles(meta, &args);
  return 0;
}

static int nvfp4_run_cpu_fused_go(const char *path, const FusedSpec *spec, const char *variant,
                                  uint64_t sched, uint32_t sms) {
  char why[512];
  nvfp4sim_module *mod = NULL;
  if (nvfp4sim_module_load(path, &mod, why, sizeof why) != 0) {
    fprintf(stderr, "nvfp4-run --cpu --fused: %s\n", why);
    return CPU_ERROR;
  }
  const nvfp4rt_metadata_table *table = nvfp4sim_module_table(mod);
  int v = variant ? nvfp4sim_module_find_variant(mod, variant) : 0;
  if (variant && v < 0) {
    char *end;
    long vi = strtol(variant, &end, 10);
    v = *variant && !*end ? (int)vi : -1;
  }
  static FusedCase fc;
  memset(&fc, 0, sizeof fc);
  int rc = CPU_ERROR;
  void *workspace = NULL, *block = NULL; /* workspace: a native sm_90a contiguous-form
                                            kernel's expert schedules */
  size_t block_bytes = 0;
  uint32_t tiles = 0;
  if (v < 0 || v >= (int)table->count) {
    fprintf(stderr, "nvfp4-run --cpu --fused: no variant '%s'\n", variant);
    goto done;
  }
  const nvfp4_kernel_metadata *meta = &table->variants[v];
  if (!(meta->epilogue_flags & NVFP4_META_EFLAG_SWIGLU_NVFP4) ||
      !(meta->flags & NVFP4_META_FLAG_DEBUG_ACTIVATIONS) ||
      (meta->form == NVFP4_META_FORM_CONTIGUOUS) != (spec->moe != NULL)) {
    fprintf(stderr, "nvfp4-run --cpu --fused: %s is not a %s kernel with the fused SwiGLU "
                    "epilogue built with nvfp4.debug_activations\n", meta->kernel_name,
            spec->moe ? "nvfp4.moe_matmul (--moe)" : "nvfp4.grouped_matmul (--groups, --random)");
    goto done;
  }
  if (fused_case_setup(&fc, spec, meta, "nvfp4-run --cpu --fused") != 0 ||
      build_block(&fc, meta, &block, &block_bytes, &tiles) != 0)
    goto done;
  nvfp4_meta_write_u64(block, NVFP4_ABI_HDR_DEBUG_ACT, (uint64_t)(uintptr_t)fc.act);
  nvfp4_meta_write_u64(block, NVFP4_ABI_HDR_DEBUG_ACT_STRIDE, fc.act_stride);
  if (fused_case_snapshot(&fc) != 0) goto done;

  const uint32_t grid = nvfp4rt_grid_size(meta, tiles, sms);
  printf("device   cpu (libnvfp4sim; %u simulated SMs, schedule seed %llu)\n", sms,
         (unsigned long long)sched);
  printf("kernel   %s [%s]  grid %u  smem %u  tiles %u  fused swiglu_nvfp4%s\n", meta->kernel_name,
         meta->target, grid, meta->dyn_smem_bytes, tiles, fc.with_alpha ? " x alpha" : "");
  fused_case_print(&fc);
  /* what the kernel may only read, and what it writes */
  static FusedBuffer bufs[FUSED_MAX_BUFFERS];
  static nvfp4sim_range readable[FUSED_MAX_BUFFERS + 1];
  nvfp4sim_range writable[4];
  uint32_t nr = 0, nw = 0;
  const uint32_t nb = fused_case_buffers(&fc, bufs);
  for (uint32_t i = 0; i < nb; i++) {
    const nvfp4sim_range r = {bufs[i].host, bufs[i].bytes, bufs[i].name};
    if (bufs[i].written) writable[nw++] = r;
    else readable[nr++] = r;
  }
  readable[nr++] = (nvfp4sim_range){block, block_bytes, "the parameter block"};
  /* the workspace a native sm_90a kernel keeps its expert schedules in (per CTA), handed
   * over full of garbage: the kernel writes it before it reads it */
  const size_t ws_bytes = (size_t)meta->workspace_per_cta * grid;
  if (ws_bytes) {
    if (!(workspace = malloc(ws_bytes))) goto done;
    memset(workspace, 0xA5, ws_bytes);
    writable[nw++] = (nvfp4sim_range){workspace, ws_bytes, "the workspace"};
    nvfp4_meta_write_u64(block, NVFP4_ABI_HDR_WORKSPACE, (uint64_t)(uintptr_t)workspace);
    nvfp4_meta_write_u64(block, NVFP4_ABI_HDR_WORKSPACE_BYTES, ws_bytes);
  }
  nvfp4sim_options opts = {sched, 10, stderr, 0, NVFP4SIM_CLUSTERS_FORWARD, 0, readable, nr, 0};
  nvfp4sim_result res;
  memset(&res, 0, sizeof res);
  if (grid) nvfp4sim_launch(mod, (uint32_t)v, block, grid, writable, nw, &opts, &res);
  if (res.outcome == NVFP4SIM_ERROR) {
    fprintf(stderr, "nvfp4-run --cpu --fused: %s\n", res.message);
    goto done;
  }
  printf("sim      %s  (%llu hazard reports, %.1f ms, %llu mma, %llu tma)\n",
         nvfp4sim_outcome_name(res.outcome), (unsigned long long)res.hazards, res.wall_ms,
         (unsigned long long)res.mma_ops, (unsigned long long)res.tma_ops);
  const int ran = cpu_run_finished(res.outcome);
  const int pass = ran && fused_case_check(&fc, 1);
  rc = cpu_exit_code(res.outcome, pass);
done:
  free(workspace);
  free(block);
  fused_case_free(&fc);
  nvfp4sim_module_destroy(mod);
  return rc;
}

int nvfp4_run_cpu_fused(int argc, char **argv) {
  const char *path = NULL, *variant = NULL;
  uint64_t sched = 1;
  uint32_t sms = 4;
  FusedSpec spec = {.routing = NVFP4H_ROUTE_RANDOM, .tokens = UINT32_MAX, .seed = 1111};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (usage(stderr), exit(CPU_ERROR), (char *)0))
    if (!strcmp(a, "--cpu")) path = NEXT();
    else if (!strcmp(a, "--fused")) continue;
    else if (!strcmp(a, "--groups")) spec.groups = NEXT();
    else if (!strcmp(a, "--random")) spec.random_groups = (uint32_t)run_parse_int(a, NEXT(), 1, 64);
    else if (!strcmp(a, "--moe")) spec.moe = NEXT();
    else if (!strcmp(a, "--tokens")) spec.tokens = (uint32_t)run_parse_int(a, NEXT(), 0, 0x7FFFFFFF);
    else if (!strcmp(a, "--routing")) {
      const char *r = NEXT();
      spec.routing = nvfp4h_moe_routing_parse(r);
      if (spec.routing != NVFP4H_ROUTE_RANDOM && spec.routing != NVFP4H_ROUTE_EMPTY &&
          spec.routing != NVFP4H_ROUTE_ONE && spec.routing != NVFP4H_ROUTE_BALANCED) {
        fprintf(stderr, "nvfp4-run --cpu --fused: routing '%s': expected random, empty, one or "
                        "balanced\n", r);
        return CPU_ERROR;
      }
    } else if (!strcmp(a, "--variant")) variant = NEXT();
    else if (!strcmp(a, "--seed")) spec.seed = run_parse_u64(a, NEXT());
    else if (!strcmp(a, "--schedule-seed")) sched = run_parse_u64(a, NEXT());
    else if (!strcmp(a, "--sms")) sms = (uint32_t)run_parse_int(a, NEXT(), 1, 4096);
    else if (!strcmp(a, "--ldc-pad")) spec.ldc_pad = (uint32_t)run_parse_int(a, NEXT(), 0, 1 << 16);
    else if (!strcmp(a, "--threads")) spec.threads = (int)run_parse_int(a, NEXT(), 0, 4096);
    else if (!strcmp(a, "--full-range")) spec.full = 1;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
    else { fprintf(stderr, "nvfp4-run --cpu: unknown argument %s in --fused mode\n", a); usage(stderr); return CPU_ERROR; }
#undef NEXT
  }
  if (!path || (!!spec.groups + !!spec.random_groups + !!spec.moe) != 1) {
    usage(stderr);
    return CPU_ERROR;
  }
  return nvfp4_run_cpu_fused_go(path, &spec, variant, sched, sms);
}
