/* runtime-fake-test — host-side tests of libnvfp4rt's driver paths against the tests' fake
 * libcuda (fake_libcuda.c, loaded through NVFP4RT_LIBCUDA_PATH, with
 * NVFP4_FAKE_CUDA_PROXY=1 so that launches write +0 into C): the tensor-map update techniques of
 * a pointers-only re-plan (encode, replace-address, kernel-patch) with the parameter block,
 * the device templates and the driver calls each one makes; the fast path's "no
 * allocation, no encode, no synchronisation" (malloc and friends are wrapped at link
 * time and counted); a failed replacement put back; the CUDA-graph capture keeping its own
 * parameters; the table cache (the group table's device copies: uploaded on the launch's
 * stream only when no copy holds it, hits without a copy, LRU replacement, copies used under
 * capture kept, failing driver calls reported); the target check of module loading on fake
 * devices of several compute capabilities; the part of the table a launch copies (the maps
 * and records of its groups only, of kernels of many groups; re-plans between group counts;
 * the cache's own key, which ignores the slots a launch does not read). Usage:
 * runtime-fake-test tmap PATCH_CUBIN PROBE_CUBIN | graph PATCH_CUBIN | tables PATCH_CUBIN |
 * extent CUBIN... | cache | load CUBIN... */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* the table cache's internal interface (runtime/src) */
#include "nvfp4rt.h"
#include "test_util.h"

/* ---- counted allocations (-Wl,--wrap=...) ---------------------------------------------- */

static long g_allocs;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t s);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
void *__wrap_malloc(size_t n) { g_allocs++; return __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t s) { g_allocs++; return __real_calloc(n, s); }
void *__wrap_realloc(void *p, size_t n) { g_allocs++; return __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t a, size_t n) { g_allocs++; return __real_aligned_alloc(a, n); }

/* ---- the fake driver's counters ----------------------------------------------------------- */

static long (*fake_count)(const char *);
static void (*fake_fail_replace_after)(long);
static void (*fake_fail_next)(const char *);
static void **fake_last_copy_stream;
static size_t *fake_last_copy_bytes;
static unsigned long long *fake_copied_bytes;

static nvfp4rt_context *open_fake(void) {
  nvfp4rt_context *ctx = NULL;
  nvfp4rt_status st = nvfp4rt_context_create(0, &ctx);
  const char *path = getenv("NVFP4RT_LIBCUDA_PATH");
  void *h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
  if (h) {
    fake_count = (long (*)(const char *))dlsym(h, "nvfp4_fake_cuda_count");
    fake_fail_replace_after = (void (*)(long))dlsym(h, "nvfp4_fake_cuda_fail_replace_after");
    fake_fail_next = (void (*)(const char *))dlsym(h, "nvfp4_fake_cuda_fail_next");
    fake_last_copy_stream = (void **)dlsym(h, "nvfp4_fake_cuda_last_copy_stream");
    fake_last_copy_bytes = (size_t *)dlsym(h, "nvfp4_fake_cuda_last_copy_bytes");
    fake_copied_bytes = (unsigned long long *)dlsym(h, "nvfp4_fake_cuda_copied_bytes");
  }
  if (st != NVFP4RT_STATUS_OK || !fake_count || !fake_fail_replace_after || !fake_fail_next ||
      !fake_last_copy_stream || !fake_last_copy_bytes || !fake_copied_bytes) {
    printf("FAIL: the fake libcuda is not loaded (NVFP4RT_LIBCUDA_PATH=%s): %s\n",
           path ? path : "", nvfp4rt_last_error_message());
    exit(1);
  }
  return ctx;
}

typedef struct counts { long enc, rep, alloc, htod, sync, launch, host_allocs; } counts;

static counts snap(void) {
  counts c = {fake_count("cuTensorMapEncodeTiled"), fake_count("cuTensorMapReplaceAddress"),
              fake_count("cuMemAlloc"), fake_count("cuMemcpyHtoD"), fake_count("cuCtxSynchronize"),
              fake_count("cuLaunchKernelEx"), g_allocs};
  return c;
}

/* ---- groups in "device" memory -------------------------------------------------------- */

enum { NG = 3 };
typedef struct set { uint64_t p[NG][5]; nvfp4rt_group g[NG]; } set;

static void make_set(nvfp4rt_context *ctx, set *s, uint32_t k1) {
  const uint32_t m[NG] = {200, 128, 64}, n[NG] = {300, 128, 520}, k[NG] = {256, k1, 1024};
  for (int i = 0; i < NG; i++) {
    const uint32_t ldc = (n[i] + 7) & ~7u;
    const size_t sz[5] = {(size_t)m[i] * k[i] / 2, (size_t)n[i] * k[i] / 2,
                          (m[i] + 127) / 128 * ((k[i] + 63) / 64) * 512,
                          (n[i] + 127) / 128 * ((k[i] + 63) / 64) * 512, (size_t)(m[i] + 1) * ldc * 2};
    for (int t = 0; t < 5; t++) {
      nvfp4rt_mem_alloc(ctx, sz[t], &s->p[i][t]);
      if (t == 4) nvfp4rt_memset_async(ctx, s->p[i][t], 0xAB, sz[t], NULL);
    }
    s->g[i] = (nvfp4rt_group){s->p[i][0], s->p[i][1], s->p[i][2], s->p[i][3], s->p[i][4],
                              m[i], n[i], k[i], ldc, 0, 0, 0};
  }
}

/* C back to garbage (0xABAB) in every group of the set. */
static void reset_c(nvfp4rt_context *ctx, const set *s) {
  for (int i = 0; i < NG; i++)
    nvfp4rt_memset_async(ctx, s->g[i].c, 0xAB, (size_t)(s->g[i].m + 1) * s->g[i].ldc * 2, NULL);
}

static void free_set(nvfp4rt_context *ctx, set *s) {
  for (int i = 0; i < NG; i++)
    for (int t = 0; t < 5; t++) nvfp4rt_mem_free(ctx, s->p[i][t]);
}

static const unsigned char *slot_of(const nvfp4rt_plan_info *info, uint32_t s, uint32_t t) {
  return (const unsigned char *)info->param_block + NVFP4_ABI_HEADER_BYTES +
         nvfp4_abi_tmaps_offset(s) + NVFP4_ABI_TMAP_BYTES * t;
}
static uint64_t u64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint64_t addr_of(const nvfp4rt_group *g, uint32_t t) {
  const uint64_t a[5] = {g->a, g->b, g->sfa, g->sfb, g->c};
  return a[t];
}
/* The table slot of each caller group (descending M: 0, 1, 2 here). */
static const uint32_t kSlot[NG] = {0, 1, 2};

/* C of a group is +0 in M x N after a launch (the fake driver's proxy effect). */
static int c_zeroed(nvfp4rt_context *ctx, const nvfp4rt_group *g) {
  size_t n = (size_t)g->m * g->ldc;
  uint16_t *c = malloc(n * 2);
  nvfp4rt_memcpy_dtoh(ctx, c, g->c, n * 2);
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) bad += c[i] != 0 && i % g->ldc < g->n;
  free(c);
  return bad == 0;
}

/* KERNEL_PATCH: does the device area of `info` hold, for every map of each group of
 * `groups` (table slot kSlot[g]), the template encoded for its shapes (the address aside)? */
static int templates_hold(const nvfp4_kernel_metadata *meta, const nvfp4rt_plan_info *info,
                          const nvfp4rt_group *groups, uint32_t maps_per_group) {
  for (int g = 0; g < NG; g++)
    for (uint32_t t = 0; t < maps_per_group; t++) {
      nvfp4rt_tmap_args args;
      _Alignas(64) unsigned char fresh[128];
      nvfp4rt_tmap_args_for(meta, &groups[g], (nvfp4rt_tmap_kind)t, &args);
      nvfp4rt_tmap_encode(&args, fresh);
      const unsigned char *tmpl = (const unsigned char *)(uintptr_t)info->tmap_area +
                                  nvfp4_abi_tmaps_offset(kSlot[g]) + NVFP4_ABI_TMAP_BYTES * t;
      if (memcmp(tmpl + 8, fresh + 8, 120) != 0) return 0;
    }
  return 1;
}

static int test_tmap(const char *patch_cubin, const char *probe_cubin) {
  nvfp4rt_context *ctx = open_fake();
  nvfp4rt_module *mod = NULL, *probe = NULL;
  EXPECT_STATUS(nvfp4rt_module_load_file(ctx, patch_cubin, &mod), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_module_load_file(ctx, probe_cubin, &probe), NVFP4RT_STATUS_OK);
  if (!mod || !probe) return t_summary("tmap");
  set a, b, c;
  make_set(ctx, &a, 512);
  make_set(ctx, &b, 512);
  make_set(ctx, &c, 512);
  const uint32_t maps_per_group = nvfp4rt_module_variant(mod, 0)->epilogue ? 5u : 4u;
  const long maps = NG * (long)maps_per_group;

  /* a kernel that cannot patch its maps refuses kernel-patch; the default is the fastest
   * the kernel supports */
  nvfp4rt_plan *plan = NULL;
  nvfp4rt_plan_options po = {.variant = 0, .tmap_update = NVFP4RT_TMAP_UPDATE_KERNEL_PATCH};
  EXPECT_STATUS(nvfp4rt_plan_create_ex(probe, a.g, NG, &po, &plan), NVFP4RT_STATUS_UNSUPPORTED);
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  EXPECT_STATUS(nvfp4rt_plan_create(mod, a.g, NG, &plan), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_get_info(plan, &info);
  printf("tmap: default technique %s\n", nvfp4rt_tmap_update_name(info.tmap_update));
  nvfp4rt_plan_destroy(plan);

  for (int mode = NVFP4RT_TMAP_UPDATE_ENCODE; mode <= NVFP4RT_TMAP_UPDATE_KERNEL_PATCH; mode++) {
    const char *name = nvfp4rt_tmap_update_name((nvfp4rt_tmap_update)mode);
    po.tmap_update = (nvfp4rt_tmap_update)mode;
    plan = NULL;
    EXPECT_STATUS(nvfp4rt_plan_create_ex(mod, a.g, NG, &po, &plan), NVFP4RT_STATUS_OK);
    if (!plan) continue;
    const nvfp4_kernel_metadata *meta = nvfp4rt_module_variant(mod, 0);
    nvfp4rt_plan_get_info(plan, &info);
    T_CHECK((int)info.tmap_update == mode, "%s: mode", name);
    /* every pointer new (set b), then back (set a), 10 times: the calls each technique
     * makes, and the allocations of update + launch */
    counts before = snap();
    for (int i = 0; i < 10; i++) {
      EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, (i % 2 ? a : b).g, NG), NVFP4RT_STATUS_OK);
      EXPECT_STATUS(nvfp4rt_plan_launch(plan, NULL), NVFP4RT_STATUS_OK);
    }
    counts after = snap();
    const long enc = after.enc - before.enc, rep = after.rep - before.rep;
    const long allocs = after.host_allocs - before.host_allocs;
    printf("tmap: %s: 10 calls with new pointers: %ld encodes, %ld replacements, %ld host "
           "allocations, %ld device allocations, %ld synchronisations, %ld uploads\n", name, enc,
           rep, allocs, after.alloc - before.alloc, after.sync - before.sync, after.htod - before.htod);
    T_CHECK(after.launch - before.launch == 10, "%s: launches", name);
    if (mode == NVFP4RT_TMAP_UPDATE_ENCODE) {
      T_CHECK(enc == 10 * maps && rep == 0, "%s: %ld encodes", name, enc);
    } else {
      T_CHECK(enc == 0 && rep == (mode == NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS ? 10 * maps : 0),
              "%s: %ld encodes, %ld replacements", name, enc, rep);
      T_CHECK(allocs == 0 && after.alloc == before.alloc && after.sync == before.sync &&
                  after.htod == before.htod,
              "%s: the fast path allocates or synchronises", name);
    }
    /* one more call, to set b, with every C garbage before it: b's C must be written, a's not */
    reset_c(ctx, &a);
    reset_c(ctx, &b);
    EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, b.g, NG), NVFP4RT_STATUS_OK);
    EXPECT_STATUS(nvfp4rt_plan_launch(plan, NULL), NVFP4RT_STATUS_OK);
    T_CHECK(!c_zeroed(ctx, &a.g[0]), "%s: the old set's C was written", name);
    nvfp4rt_plan_get_info(plan, &info);
    const set *cur = &b;
    /* the block: records' C pointers, and the maps or raw addresses of the current set */
    for (int g = 0; g < NG; g++) {
      const unsigned char *rec = (const unsigned char *)info.param_block + NVFP4_ABI_HEADER_BYTES +
                                 nvfp4_abi_record_offset(meta->max_groups, kSlot[g]);
      T_CHECK(u64(rec + NVFP4_ABI_GRP_C_PTR) == cur->g[g].c, "%s: group %d C pointer", name, g);
      for (uint32_t t = 0; t < maps_per_group; t++) {
        const unsigned char *slot = slot_of(&info, kSlot[g], t);
        if (mode == NVFP4RT_TMAP_UPDATE_KERNEL_PATCH) {
          static const unsigned char zero[120];
          T_CHECK(u64(slot) == addr_of(&cur->g[g], t) && !memcmp(slot + 8, zero, 120),
                  "%s: group %d slot %u raw address", name, g, t);
          /* the template in the device area: the map encoded for the group's shapes */
          nvfp4rt_tmap_args args;
          _Alignas(64) unsigned char fresh[128];
          nvfp4rt_tmap_args_for(meta, &cur->g[g], (nvfp4rt_tmap_kind)t, &args);
          nvfp4rt_tmap_encode(&args, fresh);
          const unsigned char *tmpl = (const unsigned char *)(uintptr_t)info.tmap_area +
                                      nvfp4_abi_tmaps_offset(kSlot[g]) + NVFP4_ABI_TMAP_BYTES * t;
          T_CHECK(!memcmp(tmpl + 8, fresh + 8, 120), "%s: group %d template %u", name, g, t);
        } else {
          nvfp4rt_tmap_args args;
          _Alignas(64) unsigned char fresh[128];
          nvfp4rt_tmap_args_for(meta, &cur->g[g], (nvfp4rt_tmap_kind)t, &args);
          nvfp4rt_tmap_encode(&args, fresh);
          T_CHECK(!memcmp(slot, fresh, 128), "%s: group %d map %u = fresh encode", name, g, t);
        }
      }
      T_CHECK(c_zeroed(ctx, &cur->g[g]), "%s: group %d C written through the new pointer", name, g);
    }
    if (mode == NVFP4RT_TMAP_UPDATE_KERNEL_PATCH) {
      const unsigned char *hdr = info.param_block;
      uint32_t flags;
      memcpy(&flags, hdr + NVFP4_ABI_HDR_FLAGS, 4);
      T_CHECK(flags == NVFP4_ABI_FLAG_PATCH_TMAPS && u64(hdr + NVFP4_ABI_HDR_TMAP_AREA) == info.tmap_area &&
                  info.tmap_area_bytes == 640ull * meta->max_groups * (1 + 132) &&
                  info.templates_uploaded == 1,
              "kernel-patch: header flags %u, area %llu bytes, %llu uploads", flags,
              (unsigned long long)info.tmap_area_bytes, (unsigned long long)info.templates_uploaded);
      /* a shape change: the group's templates are encoded again, and uploaded by the next
       * launch on its stream, with no synchronisation */
      void *stream = NULL;
      EXPECT_STATUS(nvfp4rt_stream_create(ctx, &stream), NVFP4RT_STATUS_OK);
      counts s0 = snap();
      const long async0 = fake_count("cuMemcpyHtoDAsync");
      EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, c.g, NG), NVFP4RT_STATUS_OK);
      nvfp4rt_group shaped[NG] = {c.g[0], c.g[1], c.g[2]};
      shaped[1].k = 256;
      EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, shaped, NG), NVFP4RT_STATUS_OK);
      counts s1 = snap();
      nvfp4rt_plan_get_info(plan, &info);
      T_CHECK(s1.enc - s0.enc == 4 && info.templates_uploaded == 1 && s1.htod == s0.htod &&
                  s1.sync == s0.sync && fake_count("cuMemcpyHtoDAsync") == async0,
              "kernel-patch: shape change: %ld encodes, %llu uploads, nothing copied before the "
              "launch", s1.enc - s0.enc, (unsigned long long)info.templates_uploaded);
      const uint64_t area0 = info.tmap_area;
      EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
      counts s2 = snap();
      nvfp4rt_plan_get_info(plan, &info);
      T_CHECK(info.templates_uploaded == 2 && s2.sync == s0.sync && s2.htod == s0.htod &&
                  fake_count("cuMemcpyHtoDAsync") - async0 == 2 && *fake_last_copy_stream == stream &&
                  info.tmap_area == area0 && templates_hold(meta, &info, shaped, maps_per_group),
              "kernel-patch: the launch copies the templates (and the table) on its stream, no "
              "synchronisation (%llu uploads, %ld synchronisations)",
              (unsigned long long)info.templates_uploaded, s2.sync - s0.sync);
      printf("tmap: kernel-patch: a shape change encodes %ld maps; the next launch uploads the "
             "templates on its stream, %ld synchronisations\n", s1.enc - s0.enc, s2.sync - s0.sync);
      /* another shape change, then a captured launch: a new area, uploaded outside the graph;
       * the graph holds no copy; the next shape change moves on to another area, and the
       * graph's keeps its templates */
      shaped[1].k = 512;
      EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, shaped, NG), NVFP4RT_STATUS_OK);
      void *exec = NULL;
      EXPECT_STATUS(nvfp4rt_graph_capture_begin(ctx, stream), NVFP4RT_STATUS_OK);
      EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
      EXPECT_STATUS(nvfp4rt_graph_capture_end(ctx, stream, &exec), NVFP4RT_STATUS_OK);
      nvfp4rt_plan_get_info(plan, &info);
      const uint64_t area1 = info.tmap_area;
      T_CHECK(area1 != area0 && info.templates_uploaded == 3 && templates_hold(meta, &info, shaped, maps_per_group) &&
                  u64((const unsigned char *)info.param_block + NVFP4_ABI_HDR_TMAP_AREA) == area1,
              "kernel-patch: a captured launch after a shape change reads a new area");
      nvfp4rt_plan_info captured = info;
      nvfp4rt_group captured_shapes[NG] = {shaped[0], shaped[1], shaped[2]};
      const long replay0 = fake_count("cuMemcpyHtoDAsync");
      EXPECT_STATUS(nvfp4rt_graph_launch(ctx, exec, stream), NVFP4RT_STATUS_OK);
      T_CHECK(fake_count("cuMemcpyHtoDAsync") == replay0, "kernel-patch: the replay copies nothing");
      shaped[1].k = 1024;
      EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, shaped, NG), NVFP4RT_STATUS_OK);
      nvfp4rt_plan_get_info(plan, &info);
      T_CHECK(info.tmap_area != area1 && info.tmap_area != area0 && info.templates_uploaded == 4 &&
                  templates_hold(meta, &info, shaped, maps_per_group) &&
                  templates_hold(meta, &captured, captured_shapes, maps_per_group),
              "kernel-patch: a shape change after a capture moves to a new area, the graph's "
              "area keeps its templates");
      EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
      counts s3 = snap();
      T_CHECK(s3.sync == s0.sync && s3.htod == s0.htod, "kernel-patch: %ld synchronisations",
              s3.sync - s0.sync);
      printf("tmap: kernel-patch: a captured launch after a shape change reads a new area "
             "uploaded outside the graph; the graph's area is never rewritten\n");
      nvfp4rt_graph_destroy(ctx, exec);
      nvfp4rt_stream_destroy(ctx, stream);
    }
    if (mode == NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS) {
      /* the 4th replacement fails: the block is as it was, the plan still launches */
      nvfp4rt_plan_get_info(plan, &info);
      unsigned char saved[64 + 704 * 16];
      const size_t bytes = 64 + 704 * (size_t)meta->max_groups;
      memcpy(saved, info.param_block, bytes);
      fake_fail_replace_after(3);
      EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, a.g, NG), NVFP4RT_STATUS_CUDA_ERROR);
      fake_fail_replace_after(-1);
      T_CHECK(!strcmp(nvfp4rt_last_error()->cu_call, "cuTensorMapReplaceAddress"), "error names the call");
      T_CHECK(!memcmp(saved, info.param_block, bytes), "replace-address: a failed update changed the block");
      printf("tmap: replace-address: a failed replacement leaves the block as it was\n");
      EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, a.g, NG), NVFP4RT_STATUS_OK);
      nvfp4rt_plan_get_info(plan, &info);
      T_CHECK(u64(slot_of(&info, 0, 0)) == a.g[0].a, "replace-address: retried update");
    }
    nvfp4rt_plan_destroy(plan);
  }
  /* an automatic plan (the variant chosen at every re-plan that changes shapes): no
   * allocation on any path, the shape change included */
  EXPECT_STATUS(nvfp4rt_plan_create(mod, a.g, NG, &plan), NVFP4RT_STATUS_OK);
  counts q0 = snap();
  for (int i = 0; i < 10; i++) {
    nvfp4rt_group shaped[NG] = {(i % 2 ? a : b).g[0], (i % 2 ? a : b).g[1], (i % 2 ? a : b).g[2]};
    shaped[2].k = i % 4 < 2 ? 1024 : 512; /* a shape change every other call */
    EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, shaped, NG), NVFP4RT_STATUS_OK);
    EXPECT_STATUS(nvfp4rt_plan_launch(plan, NULL), NVFP4RT_STATUS_OK);
  }
  counts q1 = snap();
  T_CHECK(q1.host_allocs == q0.host_allocs && q1.alloc == q0.alloc, "automatic plan: %ld host allocations",
          q1.host_allocs - q0.host_allocs);
  printf("tmap: automatic plan: 10 calls with new pointers and shapes: %ld host allocations\n",
         q1.host_allocs - q0.host_allocs);
  nvfp4rt_plan_destroy(plan);
  free_set(ctx, &a);
  free_set(ctx, &b);
  free_set(ctx, &c);
  nvfp4rt_module_destroy(mod);
  nvfp4rt_module_destroy(probe);
  nvfp4rt_context_destroy(ctx);
  return t_summary("tmap");
}

static int test_graph(const char *cubin) {
  nvfp4rt_context *ctx = open_fake();
  nvfp4rt_module *mod = NULL;
  EXPECT_STATUS(nvfp4rt_module_load_file(ctx, cubin, &mod), NVFP4RT_STATUS_OK);
  if (!mod) return t_summary("graph");
  set a, b;
  make_set(ctx, &a, 512);
  make_set(ctx, &b, 512);
  nvfp4rt_plan *plan = NULL;
  EXPECT_STATUS(nvfp4rt_plan_create(mod, a.g, NG, &plan), NVFP4RT_STATUS_OK);
  void *stream = NULL, *exec = NULL;
  EXPECT_STATUS(nvfp4rt_stream_create(ctx, &stream), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_graph_capture_begin(ctx, stream), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_graph_capture_end(ctx, stream, &exec), NVFP4RT_STATUS_OK);
  T_CHECK(!c_zeroed(ctx, &a.g[0]), "a captured launch does not run");
  /* the plan moves on to set b; the graph keeps set a's parameters */
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, b.g, NG), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_graph_launch(ctx, exec, stream), NVFP4RT_STATUS_OK);
  T_CHECK(c_zeroed(ctx, &a.g[0]) && c_zeroed(ctx, &a.g[2]) && !c_zeroed(ctx, &b.g[0]),
          "the replay writes the captured set's C");
  printf("graph: the replay keeps the captured pointers\n");
  EXPECT_STATUS(nvfp4rt_graph_capture_end(ctx, stream, &exec), NVFP4RT_STATUS_CUDA_ERROR);
  nvfp4rt_graph_destroy(ctx, exec);
  nvfp4rt_stream_destroy(ctx, stream);
  nvfp4rt_plan_destroy(plan);
  free_set(ctx, &a);
  free_set(ctx, &b);
  nvfp4rt_module_destroy(mod);
  nvfp4rt_context_destroy(ctx);
  return t_summary("graph");
}

/* ---- the table cache ---------------------------------------------------------------------- */

/* A plan of `copies` table copies over set `s` (variant 0). */
static nvfp4rt_plan *tables_plan(nvfp4rt_module *mod, const set *s, uint32_t copies) {
  nvfp4rt_plan_options po = NVFP4RT_PLAN_OPTIONS_INIT;
  po.variant = 0;
  po.table_cache = copies;
  nvfp4rt_plan *plan = NULL;
  EXPECT_STATUS(nvfp4rt_plan_create_ex(mod, s->g, NG, &po, &plan), NVFP4RT_STATUS_OK);
  return plan;
}

typedef struct tstate { uint64_t uploaded, hits, table; } tstate;

/* The plan's counters and the device table its last launch read (HDR_TABLE). */
static tstate tables_now(const nvfp4rt_plan *plan) {
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  nvfp4rt_plan_get_info(plan, &info);
  tstate t = {info.tables_uploaded, info.table_cache_hits,
              u64((const unsigned char *)info.param_block + NVFP4_ABI_HDR_TABLE)};
  return t;
}

/* Does the device table of the plan's last launch (HDR_TABLE) hold what its kernel reads of
 * the plan's image: the tensor maps and records of table slots 0..num_groups-1? (The rest
 * of a device copy is never copied, never read.) */
static int device_table_current(const nvfp4rt_plan_info *info) {
  const unsigned char *block = info->param_block, *image = block + NVFP4_ABI_HEADER_BYTES;
  const unsigned char *dev = (const unsigned char *)(uintptr_t)u64(block + NVFP4_ABI_HDR_TABLE);
  const uint32_t n = info->num_groups;
  const uint32_t max_groups = info->table_bytes / NVFP4_ABI_GROUP_BYTES;
  const uint32_t rec0 = nvfp4_abi_record_offset(max_groups, 0);
  return dev && nvfp4_meta_read_u32(block, NVFP4_ABI_HDR_NUM_GROUPS) == n &&
         !memcmp(dev, image, (size_t)NVFP4_ABI_GROUP_TMAPS_BYTES * n) &&
         !memcmp(dev + rec0, image + rec0, (size_t)NVFP4_ABI_GROUP_RECORD_BYTES * n);
}

/* Points the plan at set `s` and launches on `stream`: 1 when the launch copied a table,
 * 0 when it found its table in the cache, -1 on failure; the device copy it used must hold
 * the plan's table image, and the launch must have written s's C (the fake kernel reads its
 * group records from that copy). */
static int tables_call(nvfp4rt_context *ctx, nvfp4rt_plan *plan, const set *s, void *stream,
                       const char *what) {
  const tstate t0 = tables_now(plan);
  reset_c(ctx, s);
  if (nvfp4rt_plan_update_pointers(plan, s->g, NG) != NVFP4RT_STATUS_OK ||
      nvfp4rt_plan_launch(plan, stream) != NVFP4RT_STATUS_OK) {
    T_CHECK(0, "%s: %s", what, nvfp4rt_last_error_message());
    return -1;
  }
  const tstate t1 = tables_now(plan);
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(t1.table % 64 == 0 && device_table_current(&info),
          "%s: the device table holds the plan's table", what);
  T_CHECK(c_zeroed(ctx, &s->g[0]) && c_zeroed(ctx, &s->g[2]), "%s: the launch wrote the set's C",
          what);
  T_CHECK(t1.uploaded + t1.hits == t0.uploaded + t0.hits + 1, "%s: one lookup", what);
  return t1.uploaded != t0.uploaded;
}

static int test_tables(const char *cubin) {
  nvfp4rt_context *ctx = open_fake();
  nvfp4rt_module *mod = NULL;
  EXPECT_STATUS(nvfp4rt_module_load_file(ctx, cubin, &mod), NVFP4RT_STATUS_OK);
  if (!mod) return t_summary("tables");
  const nvfp4_kernel_metadata *meta = nvfp4rt_module_variant(mod, 0);
  set a, b, c;
  make_set(ctx, &a, 512);
  make_set(ctx, &b, 512);
  make_set(ctx, &c, 512);
  void *stream = NULL;
  EXPECT_STATUS(nvfp4rt_stream_create(ctx, &stream), NVFP4RT_STATUS_OK);

  /* the default cache: 16 copies of the group table, a 64-byte parameter block */
  nvfp4rt_plan *plan = NULL;
  EXPECT_STATUS(nvfp4rt_plan_create(mod, a.g, NG, &plan), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(info.param_bytes == 64 && info.table_cache == 16 &&
              info.table_bytes == nvfp4_abi_table_bytes(meta->max_groups) &&
              info.tables_uploaded == 0 && tables_now(plan).table == 0,
          "default: 16 copies of %u bytes, nothing uploaded before a launch", info.table_bytes);
  /* uploaded once, on the launch's stream; a launch with the same table copies nothing */
  long copies0 = fake_count("cuMemcpyHtoDAsync"), sync0 = fake_count("cuCtxSynchronize");
  long htod0 = fake_count("cuMemcpyHtoD");
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
  /* of the table, the maps and records of the NG groups: one copy over both (the records
   * of an 8-group table start 3.2 KB after the third group's maps) */
  const size_t used = nvfp4_abi_record_offset(meta->max_groups, NG);
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(fake_count("cuMemcpyHtoDAsync") - copies0 == 1 && *fake_last_copy_stream == stream &&
              *fake_last_copy_bytes == used && info.table_bytes_uploaded == used &&
              used < info.table_bytes,
          "the first launch copies the used part of its table (%zu of %u bytes, %llu counted) "
          "on its own stream", *fake_last_copy_bytes, info.table_bytes,
          (unsigned long long)info.table_bytes_uploaded);
  for (int i = 0; i < 5; i++) EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, a.g, NG), NVFP4RT_STATUS_OK); /* same set */
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
  tstate t = tables_now(plan);
  T_CHECK(fake_count("cuMemcpyHtoDAsync") - copies0 == 1 && t.uploaded == 1 && t.hits == 1 &&
              fake_count("cuCtxSynchronize") == sync0 && fake_count("cuMemcpyHtoD") == htod0,
          "unchanged table: no copy (%llu uploads, %llu hits), no synchronisation",
          (unsigned long long)t.uploaded, (unsigned long long)t.hits);
  printf("tables: 7 launches of one table: 1 copy on the launch's stream, 0 synchronisations\n");
  /* two sets in turn: each copied once, then found */
  int up = 0;
  for (int i = 0; i < 10; i++) up += tables_call(ctx, plan, i % 2 ? &a : &b, stream, "a/b") == 1;
  t = tables_now(plan);
  T_CHECK(up == 1 && t.uploaded == 2, "a/b: %d copies (b's first call only)", up);
  const uint64_t ta = (tables_call(ctx, plan, &a, stream, "a"), tables_now(plan).table);
  const uint64_t tb = (tables_call(ctx, plan, &b, stream, "b"), tables_now(plan).table);
  T_CHECK(ta != tb, "a and b read different device copies");
  printf("tables: sets a and b in turn, 12 calls: %d copy after the first\n", up);
  nvfp4rt_plan_destroy(plan);

  /* one copy: every change uploads again */
  plan = tables_plan(mod, &a, 1);
  up = 0;
  for (int i = 0; plan && i < 6; i++) up += tables_call(ctx, plan, i % 2 ? &a : &b, stream, "cache 1") == 1;
  T_CHECK(up == 6, "cache 1: %d copies in 6 alternating calls", up);
  printf("tables: table_cache 1: %d copies in 6 alternating calls\n", up);
  nvfp4rt_plan_destroy(plan);

  /* two copies, three sets: least recently used replaced */
  plan = tables_plan(mod, &a, 2);
  const set *order[7] = {&a, &b, &a, &c, &a, &b, &c};
  const int want[7] = {1, 1, 0, 1, 0, 1, 1}; /* c evicts b (a was used later), b evicts c,
                                                c evicts a */
  char seq[8] = {0};
  for (int i = 0; plan && i < 7; i++) {
    const int r = tables_call(ctx, plan, order[i], stream, "lru");
    seq[i] = r == 1 ? 'U' : r == 0 ? 'h' : '!';
    T_CHECK(r == want[i], "lru: call %d: %s", i, r == 1 ? "copied" : "found");
  }
  printf("tables: table_cache 2, sets a b a c a b c: %s\n", seq);
  nvfp4rt_plan_destroy(plan);

  /* capture: a captured launch reads a kept copy, uploaded outside the graph at capture time
   * (the thread's capture mode relaxed: the stand-in refuses allocations otherwise) and never
   * rewritten; the graph holds no copy; the replays read the captured sets */
  plan = tables_plan(mod, &a, 3);
  void *exec = NULL;
  tables_call(ctx, plan, &a, stream, "before capture");
  const uint64_t ring_a = tables_now(plan).table;
  const long relaxed0 = fake_count("cuThreadExchangeStreamCaptureMode");
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, b.g, NG), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_graph_capture_begin(ctx, stream), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK); /* b: kept */
  const uint64_t kept_b = tables_now(plan).table;
  T_CHECK(*fake_last_copy_stream != stream, "capture: b's copy ran outside the captured stream");
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, a.g, NG), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK); /* a: kept, not the ring's */
  const uint64_t kept_a = tables_now(plan).table;
  EXPECT_STATUS(nvfp4rt_graph_capture_end(ctx, stream, &exec), NVFP4RT_STATUS_OK);
  /* the same table again outside the capture, no re-plan: its kept copy, not the ring's
   * last copy (which holds the table launched before the capture) */
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, b.g, NG), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_graph_capture_begin(ctx, stream), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
  void *exec_b = NULL;
  EXPECT_STATUS(nvfp4rt_graph_capture_end(ctx, stream, &exec_b), NVFP4RT_STATUS_OK);
  reset_c(ctx, &b);
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
  T_CHECK(tables_now(plan).table == kept_b && c_zeroed(ctx, &b.g[0]),
          "capture, then a launch of the captured table with no re-plan: b's kept copy");
  nvfp4rt_graph_destroy(ctx, exec_b);
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, a.g, NG), NVFP4RT_STATUS_OK);
  T_CHECK(kept_a != ring_a && kept_b != ring_a && kept_a != kept_b &&
              tables_now(plan).uploaded == 3 &&
              fake_count("cuThreadExchangeStreamCaptureMode") == relaxed0 + 4,
          "capture: a and b in kept copies apart from the ring, the mode relaxed and restored "
          "for each");
  /* a kept copy holds what a launch reads: as far as the last record of its NG groups */
  const size_t tbytes = nvfp4_abi_record_offset(meta->max_groups, NG);
  unsigned char *kept = malloc(tbytes);
  memcpy(kept, (const void *)(uintptr_t)kept_a, tbytes);
  /* c, b, c, b ... outside the graph: b is found in its kept copy, c copied once into the
   * ring, and the kept copies never change */
  up = 0;
  for (int i = 0; i < 6; i++) {
    up += tables_call(ctx, plan, i % 2 ? &b : &c, stream, "after capture") == 1;
    const uint64_t t = tables_now(plan).table;
    T_CHECK(i % 2 ? t == kept_b : t != kept_a && t != kept_b,
            "after capture: call %d read %s", i, i % 2 ? "another copy than b's kept one" : "a kept copy");
  }
  T_CHECK(up == 1 && !memcmp(kept, (const void *)(uintptr_t)kept_a, tbytes),
          "after capture: %d copies, a's kept copy unchanged", up);
  for (int r = 0; r < 2; r++) {
    reset_c(ctx, &a);
    reset_c(ctx, &b);
    reset_c(ctx, &c);
    const long copies0 = fake_count("cuMemcpyHtoDAsync");
    EXPECT_STATUS(nvfp4rt_graph_launch(ctx, exec, stream), NVFP4RT_STATUS_OK);
    T_CHECK(c_zeroed(ctx, &b.g[0]) && c_zeroed(ctx, &b.g[2]) && c_zeroed(ctx, &a.g[0]) &&
                !c_zeroed(ctx, &c.g[0]) && fake_count("cuMemcpyHtoDAsync") == copies0,
            "replay %d writes the captured sets' C and copies no table", r);
    tables_call(ctx, plan, r ? &b : &c, stream, "between replays");
  }
  T_CHECK(tables_call(ctx, plan, &a, stream, "a again") == 0, "a is still found");
  printf("tables: captured launches read kept copies uploaded outside the graph: %d copy "
         "after the capture; the replays write the captured sets and copy nothing\n", up);
  free(kept);
  nvfp4rt_graph_destroy(ctx, exec);
  nvfp4rt_plan_destroy(plan);
  /* a capture never holds a copy of the ring: with table_cache 1 a new table after it is
   * copied as usual, and the captured table is found in its kept copy */
  plan = tables_plan(mod, &a, 1);
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK); /* copied outside */
  EXPECT_STATUS(nvfp4rt_graph_capture_begin(ctx, stream), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_graph_capture_end(ctx, stream, &exec), NVFP4RT_STATUS_OK);
  T_CHECK(tables_call(ctx, plan, &b, stream, "table_cache 1, b after a capture") == 1,
          "table_cache 1 after a capture: b copied into the ring");
  T_CHECK(tables_call(ctx, plan, &a, stream, "table_cache 1, a after a capture") == 0,
          "table_cache 1 after a capture: a found in its kept copy");
  printf("tables: table_cache 1 after a capture: a new table copied, the captured one kept\n");
  nvfp4rt_graph_destroy(ctx, exec);
  nvfp4rt_plan_destroy(plan);

  /* failing driver calls: a status with the call's name, never a crash; the plan recovers */
  nvfp4rt_plan_options po = NVFP4RT_PLAN_OPTIONS_INIT;
  po.variant = 0;
  fake_fail_next("cuMemHostAlloc");
  plan = NULL;
  EXPECT_STATUS(nvfp4rt_plan_create_ex(mod, a.g, NG, &po, &plan), NVFP4RT_STATUS_OUT_OF_MEMORY);
  T_CHECK(!plan && !strcmp(nvfp4rt_last_error()->cu_call, "cuMemHostAlloc"),
          "cuMemHostAlloc failure: %s", nvfp4rt_last_error_message());
  printf("tables: a failing cuMemHostAlloc: %s\n", nvfp4rt_status_string(NVFP4RT_STATUS_OUT_OF_MEMORY));
  plan = tables_plan(mod, &a, 2);
  static const char *const calls[2] = {"cuMemcpyHtoDAsync", "cuEventRecord"};
  for (int i = 0; plan && i < 2; i++) {
    fake_fail_next(calls[i]);
    EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, (i ? c : b).g, NG), NVFP4RT_STATUS_OK);
    const long launches = fake_count("cuLaunchKernelEx");
    EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_CUDA_ERROR);
    T_CHECK(!strcmp(nvfp4rt_last_error()->cu_call, calls[i]) &&
                fake_count("cuLaunchKernelEx") == launches,
            "%s failure: named, nothing launched (%s)", calls[i], nvfp4rt_last_error_message());
    T_CHECK(tables_call(ctx, plan, i ? &c : &b, stream, "after a failure") == 1,
            "after a %s failure the table is copied again", calls[i]);
    printf("tables: a failing %s: %s, the next launch copies the table again\n", calls[i],
           nvfp4rt_status_string(NVFP4RT_STATUS_CUDA_ERROR));
  }
  nvfp4rt_plan_destroy(plan);
  /* the option's range and the 3.1 layouts of the option and info structs */
  po.table_cache = 257;
  EXPECT_STATUS(nvfp4rt_plan_create_ex(mod, a.g, NG, &po, &plan), NVFP4RT_STATUS_INVALID_ARGUMENT);
  po.table_cache = 1;
  po.struct_size = offsetof(nvfp4rt_plan_options, table_cache); /* 3.1: the field unread */
  EXPECT_STATUS(nvfp4rt_plan_create_ex(mod, a.g, NG, &po, &plan), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_info old;
  memset(&old, 0x5A, sizeof old);
  old.struct_size = offsetof(nvfp4rt_plan_info, table_cache);
  EXPECT_STATUS(nvfp4rt_plan_get_info(plan, &old), NVFP4RT_STATUS_OK);
  T_CHECK(old.struct_size == offsetof(nvfp4rt_plan_info, table_cache) && old.table_cache == 0x5A5A5A5Au,
          "a 3.1-layout info is filled up to its size only");
  nvfp4rt_plan_get_info(plan, &info);
  T_CHECK(info.table_cache == 16, "a 3.1-layout option gets the default cache (%u)", info.table_cache);
  nvfp4rt_plan_destroy(plan);
  printf("tables: option range and 3.1 layouts checked\n");

  nvfp4rt_stream_destroy(ctx, stream);
  free_set(ctx, &a);
  free_set(ctx, &b);
  free_set(ctx, &c);
  nvfp4rt_module_destroy(mod);
  nvfp4rt_context_destroy(ctx);
  return t_summary("tables");
}

/* ---- the part of the table a launch copies ----------------------------------------------- */

enum { XG = 8 };
/* XG groups of small shapes in "device" memory (group i: M = 64 (i + 1), N = 128, K = 256). */
typedef struct xset { uint64_t p[XG][5]; nvfp4rt_group g[XG]; } xset;

static void make_xset(nvfp4rt_context *ctx, xset *s) {
  for (uint32_t i = 0; i < XG; i++) {
    const uint32_t m = 64 * (i + 1), n = 128, k = 256;
    const size_t sz[5] = {(size_t)m * k / 2, (size_t)n * k / 2, (m + 127) / 128 * (k / 64) * 512,
                          (n + 127) / 128 * (k / 64) * 512, (size_t)(m + 1) * n * 2};
    for (int t = 0; t < 5; t++) nvfp4rt_mem_alloc(ctx, sz[t], &s->p[i][t]);
    s->g[i] = (nvfp4rt_group){s->p[i][0], s->p[i][1], s->p[i][2], s->p[i][3], s->p[i][4],
                              m, n, k, n, 0, 0, 0};
  }
}

static void free_xset(nvfp4rt_context *ctx, xset *s) {
  for (int i = 0; i < XG; i++)
    for (int t = 0; t < 5; t++) nvfp4rt_mem_free(ctx, s->p[i][t]);
}

/* The copies and bytes a changed launch of n groups of a max_groups table makes: the maps
 * and records of the n groups, as one copy when the gap between them is at most 16 KB. */
static void expected_copies(uint32_t max_groups, uint32_t n, long *copies, uint64_t *bytes) {
  const uint64_t maps = (uint64_t)NVFP4_ABI_GROUP_TMAPS_BYTES * n;
  const uint64_t gap = nvfp4_abi_record_offset(max_groups, 0) - maps;
  *copies = gap <= 16384 ? 1 : 2;
  *bytes = maps + (uint64_t)NVFP4_ABI_GROUP_RECORD_BYTES * n + (gap <= 16384 ? gap : 0);
}

/* Re-plans `plan` to the first n groups of `s` and launches it: checks the copies and bytes
 * (want_copy: a miss, else a hit with no copy), the device table the kernel reads, and that
 * the launch wrote every group's C. */
static void extent_call(nvfp4rt_context *ctx, nvfp4rt_plan *plan, const xset *s, uint32_t n,
                        uint32_t max_groups, int want_copy, void *stream, const char *what) {
  for (uint32_t i = 0; i < n; i++)
    nvfp4rt_memset_async(ctx, s->g[i].c, 0xAB, (size_t)(s->g[i].m + 1) * s->g[i].ldc * 2, NULL);
  nvfp4rt_plan_info i0 = NVFP4RT_PLAN_INFO_INIT, i1 = NVFP4RT_PLAN_INFO_INIT;
  nvfp4rt_plan_get_info(plan, &i0);
  const long c0 = fake_count("cuMemcpyHtoDAsync");
  const unsigned long long b0 = *fake_copied_bytes;
  EXPECT_STATUS(nvfp4rt_plan_update_pointers(plan, s->g, n), NVFP4RT_STATUS_OK);
  EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
  nvfp4rt_plan_get_info(plan, &i1);
  long copies = 0;
  uint64_t bytes = 0;
  if (want_copy) expected_copies(max_groups, n, &copies, &bytes);
  T_CHECK(fake_count("cuMemcpyHtoDAsync") - c0 == copies && *fake_copied_bytes - b0 == bytes &&
              i1.table_bytes_uploaded - i0.table_bytes_uploaded == bytes &&
              i1.tables_uploaded - i0.tables_uploaded == (uint64_t)want_copy &&
              i1.table_cache_hits - i0.table_cache_hits == (uint64_t)!want_copy,
          "%s: %ld copies of %llu bytes (want %ld of %llu), %s", what,
          fake_count("cuMemcpyHtoDAsync") - c0, *fake_copied_bytes - b0, copies,
          (unsigned long long)bytes, want_copy ? "an upload" : "a hit");
  T_CHECK(i1.num_groups == n && device_table_current(&i1),
          "%s: the device table holds the maps and records of the %u groups", what, n);
  int written = 1;
  for (uint32_t i = 0; i < n; i++) written &= c_zeroed(ctx, &s->g[i]);
  T_CHECK(written, "%s: the launch wrote the C of all %u groups", what, n);
}

/* A launch from a thread where no context is current (a new thread). */
typedef struct launch_job { nvfp4rt_plan *plan; void *stream; nvfp4rt_status st; } launch_job;
static void *launch_thread(void *arg) {
  launch_job *j = arg;
  j->st = nvfp4rt_plan_launch(j->plan, j->stream);
  return NULL;
}

/* Kernels of many groups (the cubins' variant 0, at least XG groups): a launch copies the
 * maps and records of its groups, not the max_groups table; re-plans between 8 and 2 groups
 * find their tables (16 copies) or overwrite the one copy (table_cache 1) with tables that
 * stay current where the kernel reads. */
static int test_extent(int ncubins, char **cubins) {
  nvfp4rt_context *ctx = open_fake();
  void *stream = NULL;
  EXPECT_STATUS(nvfp4rt_stream_create(ctx, &stream), NVFP4RT_STATUS_OK);
  xset s;
  make_xset(ctx, &s);
  for (int ci = 0; ci < ncubins; ci++) {
    nvfp4rt_module *mod = NULL;
    EXPECT_STATUS(nvfp4rt_module_load_file(ctx, cubins[ci], &mod), NVFP4RT_STATUS_OK);
    if (!mod) continue;
    const uint32_t G = nvfp4rt_module_variant(mod, 0)->max_groups;
    T_CHECK(G >= XG, "%s: %u groups, the test needs %u", cubins[ci], G, XG);
    if (G < XG) {
      nvfp4rt_module_destroy(mod);
      continue;
    }
    for (int copies = 16; copies >= 1; copies -= 15) {
      nvfp4rt_plan_options po = NVFP4RT_PLAN_OPTIONS_INIT;
      po.variant = 0;
      po.table_cache = (uint32_t)copies;
      nvfp4rt_plan *plan = NULL;
      EXPECT_STATUS(nvfp4rt_plan_create_ex(mod, s.g, 2, &po, &plan), NVFP4RT_STATUS_OK);
      if (!plan) break;
      const int ring = copies > 1;
      if (ci == 0 && ring) {
        /* the plan's context is made current only where it is not: never on this thread,
         * once on a new one */
        const long set0 = fake_count("cuCtxSetCurrent");
        for (int i = 0; i < 3; i++) EXPECT_STATUS(nvfp4rt_plan_launch(plan, stream), NVFP4RT_STATUS_OK);
        launch_job job = {plan, stream, NVFP4RT_STATUS_COUNT_};
        pthread_t th;
        T_CHECK(pthread_create(&th, NULL, launch_thread, &job) == 0, "a launching thread");
        pthread_join(th, NULL);
        EXPECT_STATUS(job.st, NVFP4RT_STATUS_OK);
        T_CHECK(fake_count("cuCtxSetCurrent") - set0 == 1,
                "context: %ld cuCtxSetCurrent for 3 launches here and 1 on a new thread (want 1)",
                fake_count("cuCtxSetCurrent") - set0);
        printf("extent: the plan's context set only on a thread where it is not current\n");
        nvfp4rt_plan_destroy(plan);
        plan = NULL;
        EXPECT_STATUS(nvfp4rt_plan_create_ex(mod, s.g, 2, &po, &plan), NVFP4RT_STATUS_OK);
        if (!plan) break;
      }
      extent_call(ctx, plan, &s, 2, G, 1, stream, "2 groups");
      extent_call(ctx, plan, &s, XG, G, 1, stream, "2 -> 8 groups");
      extent_call(ctx, plan, &s, 2, G, !ring, stream, "8 -> 2 groups");
      extent_call(ctx, plan, &s, XG, G, !ring, stream, "2 -> 8 groups again");
      nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
      nvfp4rt_plan_get_info(plan, &info);
      long c2, c8;
      uint64_t b2, b8;
      expected_copies(G, 2, &c2, &b2);
      expected_copies(G, XG, &c8, &b8);
      if (ring)
        printf("extent: %u-group kernel (table %u bytes): 2 groups copy %llu bytes in %ld "
               "call(s), 8 groups %llu in %ld\n", G, info.table_bytes, (unsigned long long)b2,
               c2, (unsigned long long)b8, c8);
      printf("extent: %u-group kernel, table_cache %d, 2 -> 8 -> 2 -> 8 groups: %llu uploads, "
             "%llu hits, %llu bytes copied\n", G, copies,
             (unsigned long long)info.tables_uploaded, (unsigned long long)info.table_cache_hits,
             (unsigned long long)info.table_bytes_uploaded);
      nvfp4rt_plan_destroy(plan);
    }
    nvfp4rt_module_destroy(mod);
  }
  free_xset(ctx, &s);
  nvfp4rt_stream_destroy(ctx, stream);
  nvfp4rt_context_destroy(ctx);
  return t_summary("extent");
}

/* The table cache itself (internal.h) on images of a 16- and a 256-group table: its key is
 * the extent's bytes and group count, so images that differ only outside the extent are one
 * entry; an upload leaves a device copy's bytes outside the extent as they were. */
static int test_cache(void) {
  nvfp4rt_context *ctx = open_fake();
  CUstream stream = NULL;
  EXPECT_STATUS(nvfp4rt_stream_create(ctx, (void **)&stream), NVFP4RT_STATUS_OK);
  const uint32_t G = 16, B = nvfp4_abi_table_bytes(G), rec0 = nvfp4_abi_record_offset(G, 0);
  unsigned char *a = aligned_alloc(64, B), *b = aligned_alloc(64, B);
  for (uint32_t i = 0; i < B; i++) a[i] = (unsigned char)(i * 7 + 1);
  nvfp4rt_table_cache_ *c = NULL;
  EXPECT_STATUS(nvfp4rt_table_cache_create_(2, B, &c), NVFP4RT_STATUS_OK);
  if (!c) return t_summary("cache");
  const nvfp4rt_table_extent_ two = nvfp4rt_table_extent_groups_(G, 2);
  const nvfp4rt_table_extent_ three = nvfp4rt_table_extent_groups_(G, 3);
  uint64_t da = 0, db = 0, dc = 0, up = 0, hits = 0, bytes = 0;
  uint32_t count = 0, tb = 0;
  EXPECT_STATUS(nvfp4rt_table_cache_use_(c, a, &two, 1, stream, &da), NVFP4RT_STATUS_OK);
  /* b: a with other bytes in slot 2 and beyond (maps and records): outside the extent */
  memcpy(b, a, B);
  memset(b + nvfp4_abi_tmaps_offset(2), 0x55, (size_t)NVFP4_ABI_GROUP_TMAPS_BYTES * (G - 2));
  memset(b + nvfp4_abi_record_offset(G, 2), 0x66, (size_t)NVFP4_ABI_GROUP_RECORD_BYTES * (G - 2));
  EXPECT_STATUS(nvfp4rt_table_cache_use_(c, b, &two, 1, stream, &db), NVFP4RT_STATUS_OK);
  nvfp4rt_table_cache_info_(c, &count, &tb, &up, &hits, &bytes);
  T_CHECK(da && db == da && up == 1 && hits == 1 && bytes == rec0 + 2u * 64u,
          "two images differing only in slots >= 2: one entry (%llu uploads, %llu hits, %llu bytes)",
          (unsigned long long)up, (unsigned long long)hits, (unsigned long long)bytes);
  printf("cache: two 2-group images differing only in unused slots: one entry\n");
  /* the same bytes for 3 groups: another key (the count), copied */
  EXPECT_STATUS(nvfp4rt_table_cache_use_(c, a, &three, 1, stream, &dc), NVFP4RT_STATUS_OK);
  nvfp4rt_table_cache_info_(c, &count, &tb, &up, &hits, &bytes);
  T_CHECK(dc && dc != da && up == 2, "a 3-group extent of the same image: another entry");
  /* a byte of group 1's record: another table */
  b[nvfp4_abi_record_offset(G, 1) + 5] ^= 1;
  EXPECT_STATUS(nvfp4rt_table_cache_use_(c, b, &two, 1, stream, &db), NVFP4RT_STATUS_OK);
  nvfp4rt_table_cache_info_(c, &count, &tb, &up, &hits, &bytes);
  T_CHECK(up == 3 && (db == da || db == dc), "a changed record of group 1: copied");
  printf("cache: the group count and the used bytes are the key\n");
  nvfp4rt_table_cache_destroy_(c);
  free(a);
  free(b);

  /* 256 groups, 2 used: two copies (maps, records; 161 KB apart), the rest of the device
   * copy untouched */
  const uint32_t G2 = 256, B2 = nvfp4_abi_table_bytes(G2), r2 = nvfp4_abi_record_offset(G2, 0);
  a = aligned_alloc(64, B2);
  for (uint32_t i = 0; i < B2; i++) a[i] = (unsigned char)(i * 13 + 3);
  EXPECT_STATUS(nvfp4rt_table_cache_create_(1, B2, &c), NVFP4RT_STATUS_OK);
  if (!c) return t_summary("cache");
  const nvfp4rt_table_extent_ used = nvfp4rt_table_extent_groups_(G2, 2);
  EXPECT_STATUS(nvfp4rt_table_cache_use_(c, a, &used, 1, stream, &da), NVFP4RT_STATUS_OK);
  unsigned char *dev = (unsigned char *)(uintptr_t)da;
  memset(dev, 0xEE, B2);
  a[3] ^= 1; /* a new table: the one copy is overwritten */
  const long c0 = fake_count("cuMemcpyHtoDAsync");
  const unsigned long long b0 = *fake_copied_bytes;
  EXPECT_STATUS(nvfp4rt_table_cache_use_(c, a, &used, 1, stream, &db), NVFP4RT_STATUS_OK);
  int outside = 1;
  for (uint32_t i = 0; i < B2; i++)
    if (!(i < 1280 || (i >= r2 && i < r2 + 128))) outside &= dev[i] == 0xEE;
  T_CHECK(db == da && fake_count("cuMemcpyHtoDAsync") - c0 == 2 &&
              *fake_copied_bytes - b0 == 1280 + 128 && !memcmp(dev, a, 1280) &&
              !memcmp(dev + r2, a + r2, 128) && outside,
          "256 groups, 2 used: %ld copies of %llu bytes in all, nothing else written",
          fake_count("cuMemcpyHtoDAsync") - c0, *fake_copied_bytes - b0);
  printf("cache: 2 of 256 groups: 2 copies, %llu of %u bytes, the rest untouched\n",
         *fake_copied_bytes - b0, B2);
  nvfp4rt_table_cache_destroy_(c);
  free(a);
  nvfp4rt_stream_destroy(ctx, stream);
  nvfp4rt_context_destroy(ctx);
  return t_summary("cache");
}

/* Loads each cubin on the fake device (its compute capability from NVFP4_FAKE_CUDA_CC):
 * one line per cubin with its target, the status and message, and how many images the
 * driver was asked to load (a refused target must not reach the driver). */
static int test_load(int n, char **cubins) {
  nvfp4rt_context *ctx = open_fake();
  const nvfp4rt_device_info *dev = nvfp4rt_context_device_info(ctx);
  for (int i = 0; i < n; i++) {
    nvfp4rt_metadata_table t;
    if (nvfp4rt_metadata_read_file(cubins[i], &t) != NVFP4RT_STATUS_OK) {
      printf("FAIL: %s: %s\n", cubins[i], nvfp4rt_last_error_message());
      continue;
    }
    const long before = fake_count("cuModuleLoadData");
    nvfp4rt_module *mod = NULL;
    nvfp4rt_status st = nvfp4rt_module_load_file(ctx, cubins[i], &mod);
    printf("load %s on %d.%d: %s%s%s (driver loads: %ld)\n", t.variants[0].target, dev->cc_major,
           dev->cc_minor, nvfp4rt_status_string(st), st ? " " : "",
           st ? nvfp4rt_last_error_message() : "", fake_count("cuModuleLoadData") - before);
    nvfp4rt_module_destroy(mod);
  }
  nvfp4rt_context_destroy(ctx);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "tmap")) return test_tmap(argv[2], argv[3]);
  if (argc >= 3 && !strcmp(argv[1], "graph")) return test_graph(argv[2]);
  if (argc >= 3 && !strcmp(argv[1], "tables")) return test_tables(argv[2]);
  if (argc >= 3 && !strcmp(argv[1], "extent")) return test_extent(argc - 2, argv + 2);
  if (argc >= 2 && !strcmp(argv[1], "cache")) return test_cache();
  if (argc >= 3 && !strcmp(argv[1], "load")) return test_load(argc - 2, argv + 2);
  printf("usage: runtime-fake-test tmap PATCH_CUBIN PROBE_CUBIN | graph PATCH_CUBIN | "
         "tables PATCH_CUBIN | extent CUBIN... | cache | load CUBIN...\n");
  return 2;
}
