/* runtime-gpu-test — device tests of libnvfp4rt (need a CUDA GPU; written for the H200,
 * sm_90): module load with the cuModuleGetGlobal metadata cross-check and the target
 * refusal, tensor-map encoding on the real driver (UINT8/INT64 accepted, 16U4 refused on
 * sm_90), plan + launch of the probe kernel (Inputs/probe_sm90a.ptx) that reports the
 * parameter block it received, re-plan caching, workspace growth on re-plan, the
 * tensor-map update techniques of a pointers-only re-plan, and the host cost of
 * nvfp4rt_plan_launch.
 * Usage: runtime-gpu-test load SM90_CUBIN SM100_CUBIN NOMETA_CUBIN | encode |
 *        launch SM90_CUBIN | tmap-update SM90_CUBIN | bench-launch SM90_CUBIN [N] */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h> /* enum values only */

#include "nvfp4rt.h"
#include "test_util.h"

static nvfp4rt_context *open_ctx(void) {
  nvfp4rt_context *ctx = NULL;
  nvfp4rt_status st = nvfp4rt_context_create(0, &ctx);
  if (st != NVFP4RT_STATUS_OK) {
    printf("no device: %s: %s\n", nvfp4rt_status_string(st), nvfp4rt_last_error_message());
    exit(77);
  }
  const nvfp4rt_device_info *d = nvfp4rt_context_device_info(ctx);
  printf("device: %s sm_%d%d %d SMs L2 %d driver %d\n", d->name, d->cc_major, d->cc_minor,
         d->sm_count, d->l2_bytes, d->driver_version);
  return ctx;
}

static int test_load(const char *sm90, const char *sm100, const char *nometa) {
  nvfp4rt_context *ctx = open_ctx();
  const nvfp4rt_device_info *d = nvfp4rt_context_device_info(ctx);
  nvfp4rt_module *m = NULL;
  nvfp4rt_status want90 = d->cc_major == 9 ? NVFP4RT_STATUS_OK : NVFP4RT_STATUS_TARGET_MISMATCH;
  nvfp4rt_status want100 = d->cc_major == 10 && d->cc_minor == 0 ? NVFP4RT_STATUS_OK : NVFP4RT_STATUS_TARGET_MISMATCH;
  EXPECT_STATUS(nvfp4rt_module_load_file(ctx, sm90, &m), want90);
  if (m) {
    const nvfp4_kernel_metadata *md = nvfp4rt_module_metadata(m);
    printf("load: %s kernel %s target %s groups %u (device copy matches ELF)\n", sm90,
           md->kernel_name, md->target, md->max_groups);
    nvfp4rt_module_destroy(m);
    m = NULL;
  }
  EXPECT_STATUS(nvfp4rt_module_load_file(ctx, sm100, &m), want100);
  nvfp4rt_module_destroy(m);
  m = NULL;
  EXPECT_STATUS(nvfp4rt_module_load_file(ctx, nometa, &m), NVFP4RT_STATUS_BAD_CUBIN);
  EXPECT_STATUS(nvfp4rt_module_load_file(ctx, "/nonexistent.cubin", &m), NVFP4RT_STATUS_IO_ERROR);
  nvfp4rt_context_destroy(ctx);
  return t_summary("load");
}

static int test_encode(void) {
  nvfp4rt_context *ctx = open_ctx();
  const nvfp4rt_device_info *d = nvfp4rt_context_device_info(ctx);
  uint64_t buf = 0;
  EXPECT_STATUS(nvfp4rt_mem_alloc(ctx, 8 << 20, &buf), NVFP4RT_STATUS_OK);
  nvfp4rt_group g = {buf, buf + (1 << 20), buf + (2 << 20), buf + (3 << 20), buf + (4 << 20),
                     200, 300, 1024, 304, 0, 0, 0};
  nvfp4_kernel_metadata meta;
  memset(&meta, 0, sizeof meta);
  meta.tile_m = 128; meta.tile_n = 128; meta.sfn_atoms = 1; meta.sfm_atoms = 1; meta.k_granule = 64;
  meta.cta_group = 1; meta.m_box_rows = 128; meta.n_box_rows = 128; meta.store_box_rows = 128;
  meta.epilogue = NVFP4_META_EPILOGUE_TMA_STORE;
  _Alignas(64) unsigned char tm[128];
  nvfp4rt_tmap_args a;
  for (int emu = 1; emu >= 0; emu--) {
    meta.flags = emu ? NVFP4_META_FLAG_EMULATION : 0;
    meta.target_sm = emu ? 90 : 100;
    for (int k = 0; k < 5; k++) {
      nvfp4rt_tmap_args_for(&meta, &g, (nvfp4rt_tmap_kind)k, &a);
      nvfp4rt_status st = nvfp4rt_tmap_encode(&a, tm);
      int native_fp4 = !emu && k < 2;
      /* Hopper rejects 16U4_ALIGN8B (docs/design.md, "Measured toolchain facts"); Blackwell
       * accepts it */
      nvfp4rt_status want = native_fp4 && d->cc_major < 10 ? NVFP4RT_STATUS_CUDA_ERROR : NVFP4RT_STATUS_OK;
      printf("encode emu=%d kind=%d type=%u: %s%s%s\n", emu, k, a.data_type, nvfp4rt_status_string(st),
             st ? " " : "", st ? nvfp4rt_last_error_message() : "");
      T_CHECK(st == want, "encode emu=%d kind=%d", emu, k);
      if (st == NVFP4RT_STATUS_CUDA_ERROR)
        T_CHECK(!strcmp(nvfp4rt_last_error()->cu_call, "cuTensorMapEncodeTiled") &&
                nvfp4rt_last_error()->cu_result == CUDA_ERROR_INVALID_VALUE, "error detail");
    }
  }
  nvfp4rt_mem_free(ctx, buf);
  nvfp4rt_context_destroy(ctx);
  return t_summary("encode");
}

typedef struct bufs {
  uint64_t p[8][5];
} bufs;

static void alloc_groups(nvfp4rt_context *ctx, nvfp4rt_group *g, uint32_t n, bufs *b) {
  for (uint32_t i = 0; i < n; i++) {
    size_t sz[5] = {(size_t)g[i].m * g[i].k / 2 + 64, (size_t)g[i].n * g[i].k / 2 + 64,
                    ((g[i].m + 127) / 128) * ((g[i].k + 63) / 64) * 512 + 64,
                    ((g[i].n + 127) / 128) * ((g[i].k + 63) / 64) * 512 + 64,
                    (size_t)g[i].m * g[i].ldc * 2 + 4096};
    for (int t = 0; t < 5; t++) {
      EXPECT_STATUS(nvfp4rt_mem_alloc(ctx, sz[t], &b->p[i][t]), NVFP4RT_STATUS_OK);
      if (t == 4) nvfp4rt_memset_async(ctx, b->p[i][t], 0, sz[t], NULL);
    }
    g[i].a = b->p[i][0]; g[i].b = b->p[i][1]; g[i].sfa = b->p[i][2]; g[i].sfb = b->p[i][3]; g[i].c = b->p[i][4];
  }
}

static int check_probe(nvfp4rt_context *ctx, nvfp4rt_plan *plan, const nvfp4rt_group *g,
                       uint32_t n, uint32_t total, const char *tag) {
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  EXPECT_STATUS(nvfp4rt_plan_get_info(plan, &info), NVFP4RT_STATUS_OK);
  /* The probe kernel writes into the C of table slot 0, which holds the group with the
   * largest M (the runtime's scheduling order; ties keep the caller's order). */
  uint32_t s0 = 0;
  for (uint32_t i = 1; i < n; i++)
    if (g[i].m > g[s0].m) s0 = i;
  EXPECT_STATUS(nvfp4rt_memset_async(ctx, g[s0].c, 0, 4096, NULL), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, NULL), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_stream_synchronize(ctx, NULL), NVFP4RT_STATUS_OK);
  uint32_t w[16 + 256];
  EXPECT_STATUS(nvfp4rt_memcpy_dtoh(ctx, w, g[s0].c, sizeof w), NVFP4RT_STATUS_OK);
  uint64_t ws = w[4] | ((uint64_t)w[5] << 32), wsb = w[6] | ((uint64_t)w[7] << 32);
  printf("%s: abi %u groups %u tiles %u grid %u ws %s bytes %llu rec0 {%u %u %u %u %u %u} g1.start %u ntid %u\n",
         tag, w[0], w[1], w[2], w[3], ws ? "set" : "null", (unsigned long long)wsb, w[8], w[9],
         w[10], w[11], w[12], w[13], w[14], w[15]);
  T_CHECK(w[0] == NVFP4_ABI_VERSION && w[1] == n && w[2] == total && w[3] == info.grid, "%s header", tag);
  T_CHECK(ws == info.workspace && ws != 0 && wsb == info.workspace_bytes && wsb >= 256ull * info.grid, "%s workspace", tag);
  T_CHECK(w[8] == g[s0].m && w[9] == g[s0].n && w[10] == g[s0].k && w[11] == 0 &&
          w[12] == (g[s0].m + 127) / 128 && w[13] == g[s0].ldc, "%s record 0 (group %u)", tag, s0);
  T_CHECK(w[15] == 128, "block dim");
  int ctas = 0;
  for (uint32_t i = 0; i < info.grid && i < 256; i++) ctas += w[16 + i] == i + 1;
  T_CHECK(ctas == (int)(info.grid < 256 ? info.grid : 256), "%s every CTA ran (%d)", tag, ctas);
  return 0;
}

/* The probe cubin and the three groups of the plan tests, in device memory. */
static nvfp4rt_module *load_probe_groups(nvfp4rt_context *ctx, const char *sm90,
                                         nvfp4rt_group g[3], bufs *b) {
  nvfp4rt_module *m = NULL;
  nvfp4rt_status st = nvfp4rt_module_load_file(ctx, sm90, &m);
  EXPECT_STATUS(st, NVFP4RT_STATUS_OK);
  if (st) return NULL;
  const nvfp4rt_group shapes[3] = {{0, 0, 0, 0, 0, 200, 300, 256, 304, 0, 0, 0},
                                   {0, 0, 0, 0, 0, 128, 128, 512, 128, 0, 0, 0},
                                   {0, 0, 0, 0, 0, 64, 520, 1024, 520, 0, 0, 0}};
  memcpy(g, shapes, sizeof shapes);
  alloc_groups(ctx, g, 3, b);
  return m;
}

static int test_launch(const char *sm90) {
  nvfp4rt_context *ctx = open_ctx();
  nvfp4rt_group g[3];
  bufs b;
  nvfp4rt_module *m = load_probe_groups(ctx, sm90, g, &b);
  if (!m) return t_summary("launch");
  nvfp4rt_plan *plan = NULL;
  EXPECT_STATUS(nvfp4rt_plan_create(m, g, 3, &plan), NVFP4RT_STATUS_OK);
  if (!plan) return t_summary("launch");
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  EXPECT_STATUS(nvfp4rt_plan_get_info(plan, &info), NVFP4RT_STATUS_OK);
  T_CHECK(info.total_tiles == 6 + 1 + 5 && info.tmaps_encoded == 12, "plan tiles %u maps %llu",
          info.total_tiles, (unsigned long long)info.tmaps_encoded);
  T_CHECK(((uintptr_t)info.param_block % 64) == 0 && info.param_bytes == 64 &&
              info.table_bytes == 5632 && info.table_cache == 16,
          "param block: the 64-byte header; the 8-group table in 16 device copies");
  check_probe(ctx, plan, g, 3, 12, "launch");
  /* identical re-plan: nothing re-encoded */
  uint64_t before = info.tmaps_encoded, replaced = info.tmaps_replaced;
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, g, 3), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(info.tmaps_encoded == before, "cached re-plan encodes nothing");
  /* only C moved: no tensor map involved */
  g[1].c += 256;
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, g, 3), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(info.tmaps_encoded == before, "C pointer change encodes nothing");
  /* A of group 0 moved: exactly one map */
  g[0].a += 1024;
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, g, 3), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_get_info(plan, &info);
  /* The default update technique is replace-address: a moved pointer is a
   * cuTensorMapReplaceAddress on the cached map, not a fresh encode. */
  T_CHECK(info.tmaps_encoded == before && info.tmaps_replaced == replaced + 1,
          "one pointer -> one map replaced (encoded %llu, replaced %llu)",
          (unsigned long long)(info.tmaps_encoded - before),
          (unsigned long long)(info.tmaps_replaced - replaced));
  /* same pointers, new shape: the key includes the shape -> A, B, SFA, SFB of group 0,
   * encoded anew (an address replacement cannot change a shape) */
  before = info.tmaps_encoded;
  g[0].k = 128;
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, g, 3), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(info.tmaps_encoded == before + 4, "shape change re-encodes (%llu)", (unsigned long long)(info.tmaps_encoded - before));
  check_probe(ctx, plan, g, 3, 12, "relaunch");
  /* a failing re-plan keeps the old plan */
  nvfp4rt_group bad = g[0];
  bad.k = 100;
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, &bad, 1), NVFP4RT_STATUS_BAD_SHAPE);
  check_probe(ctx, plan, g, 3, 12, "after-failed-update");
  /* a re-plan whose grid outgrows the workspace, with a launch still queued: a new
   * workspace, the old one freed only after cuCtxSynchronize */
  nvfp4rt_plan_get_info(plan, &info);
  const uint64_t ws_old = info.workspace, wsb_old = info.workspace_bytes;
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, NULL), NVFP4RT_STATUS_OK);
  nvfp4rt_group big[3] = {g[0], g[1], g[2]};
  big[2].m = 1024; /* 8 x 5 tiles: 6 + 1 + 40 = 47 */
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, big, 3), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(info.workspace_bytes > wsb_old && info.workspace != ws_old && info.grid == 47,
          "grown workspace %llu -> %llu bytes, grid %u", (unsigned long long)wsb_old,
          (unsigned long long)info.workspace_bytes, info.grid);
  check_probe(ctx, plan, big, 3, 47, "grown");
  printf("launch: workspace grew %llu -> %llu bytes\n", (unsigned long long)wsb_old,
         (unsigned long long)info.workspace_bytes);
  /* shrinking back keeps the larger workspace */
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, g, 3), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(info.workspace_bytes == 256ull * 47 && info.grid == 12, "shrunk plan keeps workspace");
  check_probe(ctx, plan, g, 3, 12, "shrunk");
  /* fewer groups, larger grid growth path */
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, g, 1), NVFP4RT_STATUS_OK);
  check_probe(ctx, plan, g, 1, 6, "one-group");
  /* all groups empty: launch is a successful no-op */
  nvfp4rt_group e[2] = {g[0], g[1]};
  e[0].m = 0; e[1].n = 0;
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, e, 2), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(info.grid == 0 && info.total_tiles == 0, "empty plan");
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, NULL), NVFP4RT_STATUS_OK);
  /* too many groups / misaligned on create */
  nvfp4rt_group nine[9];
  for (int i = 0; i < 9; i++) nine[i] = g[0];
  nvfp4rt_plan *p2 = NULL;
  EXPECT_STATUS(nvfp4rt_plan_create(m, nine, 9, &p2), NVFP4RT_STATUS_TOO_MANY_GROUPS);
  EXPECT_STATUS(nvfp4rt_stream_synchronize(ctx, NULL), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_destroy(plan);
  for (int i = 0; i < 3; i++)
    for (int t = 0; t < 5; t++) nvfp4rt_mem_free(ctx, b.p[i][t]);
  nvfp4rt_module_destroy(m);
  nvfp4rt_context_destroy(ctx);
  return t_summary("launch");
}

/* Byte image of tensor map `t` of table slot `s` in the plan's parameter block. */
static const unsigned char *slot_map(const nvfp4rt_plan_info *info, uint32_t s, uint32_t t) {
  return (const unsigned char *)info->param_block + NVFP4_ABI_HEADER_BYTES +
         nvfp4_abi_tmaps_offset(s) + NVFP4_ABI_TMAP_BYTES * t;
}

/* The tensor-map update techniques on a pointers-only re-plan (the probe kernel cannot
 * patch its maps: KERNEL_PATCH is refused; it is exercised with real kernels by
 * nvfp4-run --fresh-sets). */
static int test_tmap_update(const char *sm90) {
  nvfp4rt_context *ctx = open_ctx();
  nvfp4rt_group g[3];
  bufs b;
  nvfp4rt_module *m = load_probe_groups(ctx, sm90, g, &b);
  if (!m) return t_summary("tmap-update");
  const nvfp4_kernel_metadata *meta = nvfp4rt_module_variant(m, 0);
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  nvfp4rt_plan *plan = NULL;
  /* the default is the fastest technique the kernel supports */
  EXPECT_STATUS(nvfp4rt_plan_create(m, g, 3, &plan), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(info.tmap_update == NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS, "default %s",
          nvfp4rt_tmap_update_name(info.tmap_update));
  nvfp4rt_plan_destroy(plan);
  /* KERNEL_PATCH needs a kernel that patches its maps */
  nvfp4rt_plan_options po = {.variant = -1, .tmap_update = NVFP4RT_TMAP_UPDATE_KERNEL_PATCH};
  plan = NULL;
  EXPECT_STATUS(nvfp4rt_plan_create_ex(m, g, 3, &po, &plan), NVFP4RT_STATUS_UNSUPPORTED);
  po.tmap_update = (nvfp4rt_tmap_update)9;
  EXPECT_STATUS(nvfp4rt_plan_create_ex(m, g, 3, &po, &plan), NVFP4RT_STATUS_INVALID_ARGUMENT);
  for (int mode = NVFP4RT_TMAP_UPDATE_ENCODE; mode <= NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS; mode++) {
    const int replace = mode == NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS;
    nvfp4rt_group h[3] = {g[0], g[1], g[2]};
    po.tmap_update = (nvfp4rt_tmap_update)mode;
    plan = NULL;
    EXPECT_STATUS(nvfp4rt_plan_create_ex(m, h, 3, &po, &plan), NVFP4RT_STATUS_OK);
    if (!plan) break;
    nvfp4rt_plan_get_info(plan, &info);
    const uint64_t enc0 = info.tmaps_encoded;
    /* every pointer of every group moves (a fresh input set) */
    for (int i = 0; i < 3; i++) {
      h[i].a += 256; h[i].b += 512; h[i].sfa += 1024; h[i].sfb += 2048; h[i].c += 4096 - 2048;
    }
    EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, h, 3), NVFP4RT_STATUS_OK);
    nvfp4rt_plan_get_info(plan, &info);
    T_CHECK(info.tmaps_encoded - enc0 == (replace ? 0u : 12u) && info.tmaps_replaced == (replace ? 12u : 0u),
            "%s: %llu encoded, %llu replaced", nvfp4rt_tmap_update_name(info.tmap_update),
            (unsigned long long)(info.tmaps_encoded - enc0), (unsigned long long)info.tmaps_replaced);
    /* the map in the block is exactly what an encode with the new address gives */
    for (uint32_t t = 0; t < 4; t++) {
      nvfp4rt_tmap_args a;
      _Alignas(64) unsigned char fresh[128];
      nvfp4rt_tmap_args_for(meta, &h[0], (nvfp4rt_tmap_kind)t, &a); /* slot 0: the largest M */
      EXPECT_STATUS(nvfp4rt_tmap_encode(&a, fresh), NVFP4RT_STATUS_OK);
      T_CHECK(!memcmp(fresh, slot_map(&info, 0, t), 128), "%s: map %u = fresh encode",
              nvfp4rt_tmap_update_name(info.tmap_update), t);
    }
    check_probe(ctx, plan, h, 3, 12, replace ? "replace" : "encode");
    /* a misaligned pointer fails and leaves the block as it was */
    unsigned char before[5696]; /* the image: the block, then the table */
    memcpy(before, info.param_block, sizeof before);
    nvfp4rt_group bad[3] = {h[0], h[1], h[2]};
    bad[2].sfb += 8;
    bad[0].a += 128;
    EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, bad, 3), NVFP4RT_STATUS_MISALIGNED);
    T_CHECK(!memcmp(before, info.param_block, sizeof before), "failed update changed the block");
    check_probe(ctx, plan, h, 3, 12, "after-failed-update");
    /* pointers and a shape together: the shape's maps are encoded, the rest replaced */
    const uint64_t enc1 = info.tmaps_encoded, rep1 = info.tmaps_replaced;
    h[1].k = 256;
    h[2].a += 128;
    EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, h, 3), NVFP4RT_STATUS_OK);
    nvfp4rt_plan_get_info(plan, &info);
    T_CHECK(info.tmaps_encoded - enc1 == (replace ? 4u : 5u) && info.tmaps_replaced - rep1 == (replace ? 1u : 0u),
            "%s: shape + pointer: %llu encoded, %llu replaced", nvfp4rt_tmap_update_name(info.tmap_update),
            (unsigned long long)(info.tmaps_encoded - enc1), (unsigned long long)(info.tmaps_replaced - rep1));
    check_probe(ctx, plan, h, 3, 12, "shape-and-pointer");
    printf("tmap-update: %s: 12 new pointers -> %llu encodes, %llu replacements\n",
           nvfp4rt_tmap_update_name(info.tmap_update), replace ? 0ull : 12ull, replace ? 12ull : 0ull);
    nvfp4rt_plan_destroy(plan);
  }
  EXPECT_STATUS(nvfp4rt_stream_synchronize(ctx, NULL), NVFP4RT_STATUS_OK);
  for (int i = 0; i < 3; i++)
    for (int t = 0; t < 5; t++) nvfp4rt_mem_free(ctx, b.p[i][t]);
  nvfp4rt_module_destroy(m);
  nvfp4rt_context_destroy(ctx);
  return t_summary("tmap-update");
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int bench_launch(const char *sm90, int iters) {
  nvfp4rt_context *ctx = open_ctx();
  nvfp4rt_module *m = NULL;
  if (nvfp4rt_module_load_file(ctx, sm90, &m)) { printf("load: %s\n", nvfp4rt_last_error_message()); return 1; }
  nvfp4rt_group g[8];
  for (int i = 0; i < 8; i++) g[i] = (nvfp4rt_group){0, 0, 0, 0, 0, 64 + 24 * (uint32_t)i, 4096, 7168, 4096, 0, 0, 0};
  bufs b;
  alloc_groups(ctx, g, 8, &b);
  nvfp4rt_plan *plan = NULL;
  EXPECT_STATUS(nvfp4rt_plan_create(m, g, 8, &plan), NVFP4RT_STATUS_OK);
  if (!plan) return t_summary("bench-launch");
  void *stream = NULL;
  nvfp4rt_stream_create(ctx, &stream);
  double *t = malloc(sizeof(double) * (size_t)iters);
  for (int i = 0; i < iters; i++) {
    if (i % 32 == 0) nvfp4rt_stream_synchronize(ctx, stream);
    struct timespec a, z;
    clock_gettime(CLOCK_MONOTONIC, &a);
    nvfp4rt_status st = nvfp4rt_plan_launch(plan, stream);
    clock_gettime(CLOCK_MONOTONIC, &z);
    if (st) { printf("launch: %s\n", nvfp4rt_last_error_message()); return 1; }
    t[i] = (double)(z.tv_sec - a.tv_sec) * 1e6 + (double)(z.tv_nsec - a.tv_nsec) * 1e-3;
  }
  nvfp4rt_stream_synchronize(ctx, stream);
  qsort(t, (size_t)iters, sizeof *t, cmpd);
  double med = t[iters / 2];
  /* cached re-plan (pointer swap of one group: one map) */
  struct timespec a, z;
  g[3].a += 128;
  clock_gettime(CLOCK_MONOTONIC, &a);
  nvfp4rt_plan_update_pointers(plan, g, 8);
  clock_gettime(CLOCK_MONOTONIC, &z);
  double upd = (double)(z.tv_sec - a.tv_sec) * 1e6 + (double)(z.tv_nsec - a.tv_nsec) * 1e-3;
  printf("bench-launch: 8 groups, param %u B (table of 5632 B in device memory): nvfp4rt_plan_launch median %.3f us, p10 %.3f, p90 %.3f (%d calls); "
         "update_pointers (1 map) %.2f us\n", 64u, med, t[iters / 10], t[iters * 9 / 10], iters, upd);
  printf("bench-launch: 5 us target %s\n", med <= 5.0 ? "met" : "MISSED");
  /* hard limit with margin for noisy machines; the 5 us target is reported above */
  T_CHECK(med <= 10.0, "host launch cost %.3f us", med);
  free(t);
  nvfp4rt_stream_destroy(ctx, stream);
  nvfp4rt_plan_destroy(plan);
  nvfp4rt_module_destroy(m);
  nvfp4rt_context_destroy(ctx);
  return t_summary("bench-launch");
}

int main(int argc, char **argv) {
  if (argc >= 5 && !strcmp(argv[1], "load")) return test_load(argv[2], argv[3], argv[4]);
  if (argc >= 2 && !strcmp(argv[1], "encode")) return test_encode();
  if (argc >= 3 && !strcmp(argv[1], "launch")) return test_launch(argv[2]);
  if (argc >= 3 && !strcmp(argv[1], "tmap-update")) return test_tmap_update(argv[2]);
  if (argc >= 3 && !strcmp(argv[1], "bench-launch")) return bench_launch(argv[2], argc > 3 ? atoi(argv[3]) : 2000);
  printf("usage: runtime-gpu-test load SM90 SM100 NOMETA | encode | launch SM90 | tmap-update SM90 | "
         "bench-launch SM90 [N]\n");
  return 2;
}
