/* runtime-gen-test — tests of libnvfp4rt's C ABI for generated code (nvfp4rt_gen.h):
 * memref descriptor validation (every rule reaching its status with a message naming the
 * group and operand, and random descriptors never crashing), the entry points without a
 * driver, and, on a GPU, the lazy load (once, from several threads), the plan cache
 * (create / cached / re-plan / failure keeps the plan) and the launch of the probe kernel.
 * bench measures the host cost per call beside nvfp4rt_plan_launch.
 * Usage: runtime-gen-test memrefs | nodriver | gpu PROBE_CUBIN | bench PROBE_CUBIN [N] */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4rt.h"
#include "nvfp4rt_gen.h"
#include "test_util.h"

/* ---- a valid operand set of up to 4 groups at fake device addresses ---------------- */

typedef struct operands {
  uint32_t groups;
  nvfp4rt_memref_2d a[4], b[4], c[4];
  nvfp4rt_memref_5d sfa[4], sfb[4];
  const void *list[20];
} operands;

static void *addr(uint32_t g, int t) {
  return (void *)(uintptr_t)(0x7f0000000000ull + (uint64_t)g * 0x10000000ull +
                             (uint64_t)t * 0x1000000ull);
}

static void fp4(nvfp4rt_memref_2d *d, void *p, int64_t rows, int64_t k) {
  memset(d, 0, sizeof *d);
  d->allocated = d->aligned = p;
  d->sizes[0] = rows;
  d->sizes[1] = k;
  d->strides[0] = k;
  d->strides[1] = 1;
}

static void sf(nvfp4rt_memref_5d *d, void *p, int64_t rows, int64_t k) {
  memset(d, 0, sizeof *d);
  d->allocated = d->aligned = p;
  const int64_t sizes[5] = {(rows + 127) / 128, (k + 63) / 64, 32, 4, 4};
  const int64_t strides[5] = {sizes[1] * 512, 512, 16, 4, 1};
  memcpy(d->sizes, sizes, sizeof sizes);
  memcpy(d->strides, strides, sizeof strides);
}

static void make(operands *o, uint32_t groups, const uint32_t (*mnk)[3]) {
  memset(o, 0, sizeof *o);
  o->groups = groups;
  for (uint32_t g = 0; g < groups; g++) {
    const int64_t m = mnk[g][0], n = mnk[g][1], k = mnk[g][2];
    fp4(&o->a[g], addr(g, 0), m, k);
    fp4(&o->b[g], addr(g, 1), n, k);
    sf(&o->sfa[g], addr(g, 2), m, k);
    sf(&o->sfb[g], addr(g, 3), n, k);
    o->c[g].allocated = o->c[g].aligned = addr(g, 4);
    o->c[g].sizes[0] = m;
    o->c[g].sizes[1] = n;
    o->c[g].strides[0] = (n + 7) / 8 * 8;
    o->c[g].strides[1] = 1;
  }
  for (uint32_t g = 0; g < groups; g++) {
    o->list[g] = &o->a[g];
    o->list[groups + g] = &o->b[g];
    o->list[2 * groups + g] = &o->sfa[g];
    o->list[3 * groups + g] = &o->sfb[g];
    o->list[4 * groups + g] = &o->c[g];
  }
}

static const uint32_t kShapes[2][3] = {{96, 128, 256}, {300, 72, 512}};

static nvfp4rt_status convert(const operands *o, nvfp4rt_group *out) {
  return nvfp4rt_gen_memrefs_to_groups(NVFP4RT_GEN_FORM_GROUPED, 0, o->groups, 5 * o->groups,
                                       o->list, out);
}

/* One mutation of the valid set: the status and a piece of the message it must give. */
#define EXPECT_REJECT(mutation, want, text)                                                \
  do {                                                                                     \
    operands o_;                                                                           \
    make(&o_, 2, kShapes);                                                                 \
    operands *o = &o_;                                                                     \
    (void)o;                                                                               \
    mutation;                                                                              \
    nvfp4rt_group g_[2];                                                                   \
    nvfp4rt_status s_ = convert(o, g_);                                                    \
    T_CHECK(s_ == (want) && strstr(nvfp4rt_last_error_message(), (text)) != NULL,          \
            "%s: got %s '%s', want %s '%s'", #mutation, nvfp4rt_status_string(s_),         \
            nvfp4rt_last_error_message(), nvfp4rt_status_string(want), (text));            \
    printf("  %-30s %s\n", nvfp4rt_status_string(s_), nvfp4rt_last_error_message());     \
  } while (0)

static int test_memrefs(void) {
  operands o;
  nvfp4rt_group g[4];
  make(&o, 2, kShapes);
  EXPECT_STATUS(convert(&o, g), NVFP4RT_STATUS_OK);
  T_CHECK(g[0].a == (uint64_t)(uintptr_t)addr(0, 0) && g[1].c == (uint64_t)(uintptr_t)addr(1, 4),
          "addresses 0x%llx 0x%llx", (unsigned long long)g[0].a, (unsigned long long)g[1].c);
  T_CHECK(g[0].m == 96 && g[0].n == 128 && g[0].k == 256 && g[0].ldc == 128, "group 0 shape");
  T_CHECK(g[1].m == 300 && g[1].n == 72 && g[1].k == 512 && g[1].ldc == 72, "group 1 shape");
  /* offsets count elements: FP4 two per byte, E4M3 one, f16 two bytes */
  o.a[0].offset = 64;
  o.sfa[1].offset = 512;
  o.c[1].offset = 8;
  o.c[1].strides[0] = 200; /* a padded row stride */
  EXPECT_STATUS(convert(&o, g), NVFP4RT_STATUS_OK);
  T_CHECK(g[0].a == (uint64_t)(uintptr_t)addr(0, 0) + 32, "FP4 offset 64 -> 32 bytes");
  T_CHECK(g[1].sfa == (uint64_t)(uintptr_t)addr(1, 2) + 512, "E4M3 offset 512 -> 512 bytes");
  T_CHECK(g[1].c == (uint64_t)(uintptr_t)addr(1, 4) + 16 && g[1].ldc == 200,
          "f16 offset 8 -> 16 bytes, ldc 200: 0x%llx %u", (unsigned long long)g[1].c, g[1].ldc);
  /* a single row: its stride addresses nothing; ldc = N rounded up to 16 bytes */
  make(&o, 1, (const uint32_t[][3]){{1, 100, 64}});
  o.c[0].strides[0] = 3;
  o.a[0].strides[0] = 99;
  EXPECT_STATUS(convert(&o, g), NVFP4RT_STATUS_OK);
  T_CHECK(g[0].ldc == 104, "one row: ldc %u", g[0].ldc);
  /* an empty group keeps its NULL pointers; a NULL aligned pointer of a real one is refused */
  make(&o, 2, (const uint32_t[][3]){{0, 128, 256}, {8, 0, 64}});
  for (uint32_t i = 0; i < 2; i++) {
    o.a[i].aligned = o.b[i].aligned = o.c[i].aligned = NULL;
    o.sfa[i].aligned = o.sfb[i].aligned = NULL;
  }
  EXPECT_STATUS(convert(&o, g), NVFP4RT_STATUS_OK);
  T_CHECK(g[0].a == 0 && g[1].c == 0 && g[0].m == 0 && g[1].n == 0, "empty groups");

  EXPECT_REJECT(o->list[8] = NULL, NVFP4RT_STATUS_NULL_POINTER, "group 0: C descriptor is NULL");
  EXPECT_REJECT(o->sfb[1].aligned = NULL, NVFP4RT_STATUS_NULL_POINTER,
                "group 1: SFB descriptor's aligned pointer is NULL");
  EXPECT_REJECT((o->a[0].aligned = NULL, o->a[0].offset = 64), NVFP4RT_STATUS_NULL_POINTER,
                "group 0: A descriptor's aligned pointer is NULL");
  EXPECT_REJECT(o->a[1].sizes[0] = -1, NVFP4RT_STATUS_BAD_SHAPE, "group 1: A size[0] = -1 is negative");
  EXPECT_REJECT(o->b[0].sizes[0] = 1ll << 33, NVFP4RT_STATUS_OVERFLOW,
                "group 0: B size[0] = 8589934592 exceeds 32 bits");
  EXPECT_REJECT(o->c[0].strides[1] = -1, NVFP4RT_STATUS_BAD_SHAPE, "group 0: C stride[1] = -1 is negative");
  EXPECT_REJECT(o->sfa[0].offset = -16, NVFP4RT_STATUS_INVALID_ARGUMENT,
                "group 0: SFA offset -16 is negative");
  EXPECT_REJECT(o->a[0].offset = 3, NVFP4RT_STATUS_MISALIGNED,
                "group 0: A offset 3 is odd: FP4 elements are packed two per byte");
  EXPECT_REJECT((o->c[1].aligned = (void *)(uintptr_t)(UINT64_MAX - 8), o->c[1].offset = 8),
                NVFP4RT_STATUS_OVERFLOW, "group 1: C aligned pointer + offset 8 overflows 64 bits");
  EXPECT_REJECT(o->b[1].sizes[1] = 256, NVFP4RT_STATUS_BAD_SHAPE,
                "group 1: B size[1] = 256, expected 512 (B is N x K with A's K)");
  EXPECT_REJECT(o->c[0].sizes[0] = 97, NVFP4RT_STATUS_BAD_SHAPE,
                "group 0: C size[0] = 97, expected 96 (C is M x N with A's M)");
  EXPECT_REJECT(o->c[1].sizes[1] = 64, NVFP4RT_STATUS_BAD_SHAPE,
                "group 1: C size[1] = 64, expected 72 (C is M x N with B's N)");
  EXPECT_REJECT(o->a[0].strides[0] = 258, NVFP4RT_STATUS_BAD_SHAPE,
                "group 0: A stride[0] = 258, expected 256 (rows of K packed FP4 values)");
  EXPECT_REJECT(o->b[1].strides[1] = 2, NVFP4RT_STATUS_BAD_SHAPE,
                "group 1: B stride[1] = 2, expected 1");
  EXPECT_REJECT(o->sfa[1].sizes[0] = 2, NVFP4RT_STATUS_BAD_SHAPE,
                "group 1: SFA size[0] = 2, expected 3 (SFA is {ceil(M/128), ceil(K/64), 32, 4, 4})");
  EXPECT_REJECT(o->sfb[0].sizes[3] = 8, NVFP4RT_STATUS_BAD_SHAPE,
                "group 0: SFB size[3] = 8, expected 4");
  EXPECT_REJECT(o->sfb[1].strides[1] = 1024, NVFP4RT_STATUS_BAD_SHAPE,
                "group 1: SFB stride[1] = 1024, expected 512 (the blocked layout is contiguous)");
  EXPECT_REJECT(o->c[0].strides[1] = 2, NVFP4RT_STATUS_BAD_SHAPE,
                "group 0: C stride[1] = 2, expected 1 (rows of N contiguous f16)");
  EXPECT_REJECT(o->c[1].strides[0] = 64, NVFP4RT_STATUS_BAD_SHAPE,
                "group 1: C row stride 64 is smaller than N = 72");
  EXPECT_REJECT(o->c[1].strides[0] = 1ll << 33, NVFP4RT_STATUS_OVERFLOW,
                "group 1: C row stride 8589934592 exceeds 32 bits");

  /* the call itself */
  make(&o, 2, kShapes);
  EXPECT_STATUS(nvfp4rt_gen_memrefs_to_groups(1, 0, 2, 10, o.list, g), NVFP4RT_STATUS_UNSUPPORTED);
  EXPECT_STATUS(nvfp4rt_gen_memrefs_to_groups(0, 1, 2, 10, o.list, g), NVFP4RT_STATUS_UNSUPPORTED);
  EXPECT_STATUS(nvfp4rt_gen_memrefs_to_groups(0, 0, 0, 0, o.list, g),
                NVFP4RT_STATUS_INVALID_ARGUMENT);
  EXPECT_STATUS(nvfp4rt_gen_memrefs_to_groups(0, 0, 2, 9, o.list, g),
                NVFP4RT_STATUS_INVALID_ARGUMENT);
  EXPECT_STATUS(nvfp4rt_gen_memrefs_to_groups(0, 0, 5000, 25000, o.list, g),
                NVFP4RT_STATUS_TOO_MANY_GROUPS);
  EXPECT_STATUS(nvfp4rt_gen_memrefs_to_groups(0, 0, 2, 10, NULL, g), NVFP4RT_STATUS_NULL_POINTER);
  EXPECT_STATUS(nvfp4rt_gen_memrefs_to_groups(0, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_NULL_POINTER);

  /* random descriptors: any field may hold any value; a status, never a crash */
  uint64_t x = 0x9E3779B97F4A7C15ull;
  int ok = 0, rejected = 0;
  for (int it = 0; it < 200000; it++) {
    make(&o, 2, kShapes);
    int64_t *fields[5] = {(int64_t *)&o.a[it & 1], (int64_t *)&o.b[it & 1], (int64_t *)&o.sfa[it & 1],
                          (int64_t *)&o.sfb[it & 1], (int64_t *)&o.c[it & 1]};
    const int nfields[5] = {7, 7, 13, 13, 7};
    for (int k = 0; k < 1 + (it % 3); k++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      int t = (int)(x % 5), f = (int)((x >> 8) % (uint64_t)nfields[t]);
      uint64_t v = x >> 3;
      int64_t choices[6] = {0, -1, (int64_t)(v & 0xFFFF), (int64_t)v, INT64_MIN, INT64_MAX};
      fields[t][f] = choices[(x >> 40) % 6];
    }
    nvfp4rt_status st = convert(&o, g);
    if (st == NVFP4RT_STATUS_OK) ok++;
    else rejected++;
    T_CHECK(st >= NVFP4RT_STATUS_OK && st < NVFP4RT_STATUS_COUNT_, "status %d", (int)st);
  }
  printf("random descriptors: %d accepted, %d rejected with a status\n", ok, rejected);
  T_CHECK(rejected > 100000, "most random descriptors are invalid (%d)", rejected);
  return t_summary("memrefs");
}

/* ---- without a driver ---------------------------------------------------------------- */

static int test_nodriver(void) {
  static const unsigned char image[64] = {0x7f, 'E', 'L', 'F'};
  nvfp4rt_module *slot = NULL;
  EXPECT_STATUS(nvfp4rt_gen_module_load(&slot, image, sizeof image),
                NVFP4RT_STATUS_DRIVER_NOT_FOUND);
  T_CHECK(slot == NULL, "slot stays NULL");
  EXPECT_STATUS(nvfp4rt_gen_module_load(NULL, image, sizeof image), NVFP4RT_STATUS_NULL_POINTER);
  EXPECT_STATUS(nvfp4rt_gen_module_load(&slot, NULL, 4), NVFP4RT_STATUS_NULL_POINTER);
  EXPECT_STATUS(nvfp4rt_gen_module_load(&slot, image, 0), NVFP4RT_STATUS_BAD_CUBIN);
  T_CHECK(strstr(nvfp4rt_last_error_message(), "run nvfp4-embed-cubin") != NULL, "empty cubin hint");

  /* launch checks before anything touches the module: a fake module is never used */
  operands o;
  make(&o, 2, kShapes);
  nvfp4rt_module *fake = (nvfp4rt_module *)(uintptr_t)0x10;
  void *plan = NULL;
  EXPECT_STATUS(nvfp4rt_gen_launch(fake, &plan, 2, 0, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_ABI_MISMATCH);
  EXPECT_STATUS(nvfp4rt_gen_launch(NULL, &plan, 1, 0, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_NULL_POINTER);
  EXPECT_STATUS(nvfp4rt_gen_launch(fake, NULL, 1, 0, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_NULL_POINTER);
  EXPECT_STATUS(nvfp4rt_gen_launch(fake, &plan, 1, 7, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_UNSUPPORTED);
  EXPECT_STATUS(nvfp4rt_gen_launch(fake, &plan, 1, 0, 2, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_UNSUPPORTED);
  EXPECT_STATUS(nvfp4rt_gen_launch(fake, &plan, 1, 0, 0, 2, 12, o.list, NULL),
                NVFP4RT_STATUS_INVALID_ARGUMENT);
  o.a[1].offset = 1;
  EXPECT_STATUS(nvfp4rt_gen_launch(fake, &plan, 1, 0, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_MISALIGNED);
  T_CHECK(plan != NULL, "the plan cache exists, holding no plan");
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_device_set(-1), NVFP4RT_STATUS_INVALID_ARGUMENT);
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_device_set(0), NVFP4RT_STATUS_OK);
  nvfp4rt_gen_stats s;
  nvfp4rt_gen_stats_get(&s);
  T_CHECK(s.failures == 11 && s.module_loads == 0 && s.launches == 0 && s.plans_created == 0,
          "failures %llu", (unsigned long long)s.failures);
  nvfp4rt_gen_release_all();
  T_CHECK(plan == NULL, "release_all clears the plan slot");
  return t_summary("nodriver");
}

/* ---- on a GPU --------------------------------------------------------------------------- */

typedef struct load_arg { nvfp4rt_module **slot; const void *image; size_t size; int32_t st; } load_arg;

static void *load_thread(void *p) {
  load_arg *a = p;
  a->st = nvfp4rt_gen_module_load(a->slot, a->image, a->size);
  return NULL;
}

typedef struct launch_arg { nvfp4rt_module *mod; void **plan; const operands *o; int32_t st; } launch_arg;

static void *launch_thread(void *p) {
  launch_arg *a = p;
  for (int i = 0; i < 50 && a->st == 0; i++)
    a->st = nvfp4rt_gen_launch(a->mod, a->plan, 1, 0, 0, a->o->groups, 5 * a->o->groups,
                               a->o->list, NULL);
  return NULL;
}

static int test_gpu(const char *cubin_path) {
  FILE *f = fopen(cubin_path, "rb");
  if (!f) {
    printf("cannot open %s\n", cubin_path);
    return 2;
  }
  static unsigned char image[1 << 20];
  size_t size = fread(image, 1, sizeof image, f);
  fclose(f);
  nvfp4rt_context *ctx = NULL;
  nvfp4rt_status st = nvfp4rt_context_create(0, &ctx);
  if (st != NVFP4RT_STATUS_OK) {
    printf("no CUDA device (%s): skipped\n", nvfp4rt_status_string(st));
    return 77;
  }
  /* eight threads race for one slot: one load, one module */
  nvfp4rt_module *slot = NULL;
  pthread_t th[8];
  load_arg la[8];
  for (int i = 0; i < 8; i++) {
    la[i] = (load_arg){&slot, image, size, -1};
    pthread_create(&th[i], NULL, load_thread, &la[i]);
  }
  for (int i = 0; i < 8; i++) pthread_join(th[i], NULL);
  nvfp4rt_gen_stats s;
  nvfp4rt_gen_stats_get(&s);
  int all_ok = 1;
  for (int i = 0; i < 8; i++) all_ok &= la[i].st == 0;
  T_CHECK(all_ok && slot && s.module_loads == 1, "8 threads: %llu loads", (unsigned long long)s.module_loads);
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_module_load(&slot, image, size), NVFP4RT_STATUS_OK);
  nvfp4rt_gen_stats_get(&s);
  T_CHECK(s.module_loads == 1, "a loaded slot is not reloaded");
  /* a broken image: BAD_CUBIN, the slot stays empty */
  static unsigned char junk[256] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  nvfp4rt_module *bad = NULL;
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_module_load(&bad, junk, sizeof junk), NVFP4RT_STATUS_BAD_CUBIN);
  T_CHECK(bad == NULL, "bad image: slot NULL");
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_device_set(1), NVFP4RT_STATUS_INVALID_ARGUMENT);

  /* the plan cache with real buffers (the probe kernel reports into group 0's C) */
  operands o;
  make(&o, 2, (const uint32_t[][3]){{96, 128, 256}, {64, 72, 128}});
  uint64_t buf[2][5];
  for (uint32_t g = 0; g < 2; g++)
    for (int t = 0; t < 5; t++) {
      EXPECT_STATUS(nvfp4rt_mem_alloc(ctx, 1 << 20, &buf[g][t]), NVFP4RT_STATUS_OK);
      nvfp4rt_memref_2d *d2[5] = {&o.a[g], &o.b[g], NULL, NULL, &o.c[g]};
      nvfp4rt_memref_5d *d5[5] = {NULL, NULL, &o.sfa[g], &o.sfb[g], NULL};
      void *p = (void *)(uintptr_t)buf[g][t];
      if (d2[t]) d2[t]->allocated = d2[t]->aligned = p;
      else d5[t]->allocated = d5[t]->aligned = p;
    }
  void *plan = NULL;
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_launch(slot, &plan, 1, 0, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_OK);
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_launch(slot, &plan, 1, 0, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_OK);
  nvfp4rt_gen_stats_get(&s);
  T_CHECK(s.plans_created == 1 && s.cached == 1 && s.replans == 0 && s.launches == 2,
          "create + cached: %llu %llu %llu", (unsigned long long)s.plans_created,
          (unsigned long long)s.cached, (unsigned long long)s.replans);
  o.c[1].offset = 64; /* a new C pointer: re-plan */
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_launch(slot, &plan, 1, 0, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_OK);
  o.a[0].aligned = (char *)o.a[0].aligned + 8; /* misaligned for TMA: the plan refuses */
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_launch(slot, &plan, 1, 0, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_MISALIGNED);
  o.a[0].aligned = (char *)o.a[0].aligned - 8;
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_launch(slot, &plan, 1, 0, 0, 2, 10, o.list, NULL),
                NVFP4RT_STATUS_OK);
  nvfp4rt_gen_stats_get(&s);
  T_CHECK(s.replans == 1 && s.cached == 2 && s.launches == 4,
          "re-plan, failure kept the plan: replans %llu cached %llu launches %llu",
          (unsigned long long)s.replans, (unsigned long long)s.cached,
          (unsigned long long)s.launches);
  /* four threads launch the same op: serialised on its plan, all cached */
  launch_arg ta[4];
  for (int i = 0; i < 4; i++) {
    ta[i] = (launch_arg){slot, &plan, &o, 0};
    pthread_create(&th[i], NULL, launch_thread, &ta[i]);
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  all_ok = 1;
  for (int i = 0; i < 4; i++) all_ok &= ta[i].st == 0;
  nvfp4rt_gen_stats_get(&s);
  T_CHECK(all_ok && s.launches == 204 && s.cached == 202, "threads: launches %llu cached %llu",
          (unsigned long long)s.launches, (unsigned long long)s.cached);
  EXPECT_STATUS(nvfp4rt_stream_synchronize(ctx, NULL), NVFP4RT_STATUS_OK);
  /* release: slots cleared, the next load is a new one */
  nvfp4rt_gen_release_all();
  T_CHECK(slot == NULL && plan == NULL, "release_all clears the slots");
  EXPECT_STATUS((nvfp4rt_status)nvfp4rt_gen_module_load(&slot, image, size), NVFP4RT_STATUS_OK);
  nvfp4rt_gen_stats_get(&s);
  T_CHECK(s.module_loads == 2, "reloaded after release");
  nvfp4rt_gen_release_all();
  for (uint32_t g = 0; g < 2; g++)
    for (int t = 0; t < 5; t++) nvfp4rt_mem_free(ctx, buf[g][t]);
  nvfp4rt_context_destroy(ctx);
  return t_summary("gpu");
}

/* ---- host cost per call (a benchmark: a table and JSON, the baseline in the same run) --- */

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct timing { const char *name; double med, p10, p90; } timing;

static timing summarise(const char *name, double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmpd);
  return (timing){name, t[n / 2], t[n / 10], t[n * 9 / 10]};
}

/* 8 groups of the probe kernel: nvfp4rt_plan_launch on a cached plan (the baseline), the
 * generated-code entry point with unchanged descriptors (cached), and with one group's A
 * moving between two buffers on every call (a re-plan re-encoding one tensor map); the
 * first call's module load and plan creation once each. */
static int bench(const char *cubin_path, int iters) {
  FILE *f = fopen(cubin_path, "rb");
  static unsigned char image[1 << 20];
  size_t size = f ? fread(image, 1, sizeof image, f) : 0;
  if (f) fclose(f);
  nvfp4rt_context *ctx = NULL;
  if (!size || nvfp4rt_context_create(0, &ctx) != NVFP4RT_STATUS_OK) {
    printf("bench: no cubin or no CUDA device: skipped\n");
    return 77;
  }
  enum { G = 8 };
  uint32_t shapes[G][3];
  for (int i = 0; i < G; i++) {
    shapes[i][0] = 64 + 24 * (uint32_t)i;
    shapes[i][1] = 512;
    shapes[i][2] = 1024;
  }
  operands o;
  memset(&o, 0, sizeof o);
  o.groups = G;
  static nvfp4rt_memref_2d a[G], b[G], c[G];
  static nvfp4rt_memref_5d sfa[G], sfb[G];
  static const void *list[5 * G];
  uint64_t buf[G][5], spare = 0;
  for (int g = 0; g < G; g++) {
    for (int t = 0; t < 5; t++)
      if (nvfp4rt_mem_alloc(ctx, 1 << 20, &buf[g][t]) != NVFP4RT_STATUS_OK) return 2;
    fp4(&a[g], (void *)(uintptr_t)buf[g][0], shapes[g][0], shapes[g][2]);
    fp4(&b[g], (void *)(uintptr_t)buf[g][1], shapes[g][1], shapes[g][2]);
    sf(&sfa[g], (void *)(uintptr_t)buf[g][2], shapes[g][0], shapes[g][2]);
    sf(&sfb[g], (void *)(uintptr_t)buf[g][3], shapes[g][1], shapes[g][2]);
    c[g] = (nvfp4rt_memref_2d){(void *)(uintptr_t)buf[g][4], (void *)(uintptr_t)buf[g][4], 0,
                               {shapes[g][0], shapes[g][1]}, {shapes[g][1], 1}};
    list[g] = &a[g], list[G + g] = &b[g], list[2 * G + g] = &sfa[g];
    list[3 * G + g] = &sfb[g], list[4 * G + g] = &c[g];
  }
  if (nvfp4rt_mem_alloc(ctx, 1 << 20, &spare) != NVFP4RT_STATUS_OK) return 2;
  nvfp4rt_module *slot = NULL;
  void *plan_slot = NULL;
  double t0 = now_us();
  int32_t st = nvfp4rt_gen_module_load(&slot, image, size);
  double load_us = now_us() - t0;
  t0 = now_us();
  if (!st) st = nvfp4rt_gen_launch(slot, &plan_slot, 1, 0, 0, G, 5 * G, list, NULL);
  double first_us = now_us() - t0;
  nvfp4rt_group groups[G];
  nvfp4rt_plan *direct = NULL;
  if (!st) st = nvfp4rt_gen_memrefs_to_groups(0, 0, G, 5 * G, list, groups);
  if (!st) st = nvfp4rt_plan_create(slot, groups, G, &direct);
  if (st) {
    printf("bench: %s\n", nvfp4rt_last_error_message());
    return 1;
  }
  double *t = malloc(sizeof(double) * (size_t)iters);
  timing rows[3];
  for (int mode = 0; mode < 3; mode++) {
    for (int i = 0; i < iters && !st; i++) {
      if (i % 32 == 0) nvfp4rt_stream_synchronize(ctx, NULL);
      if (mode == 2) a[3].aligned = (void *)(uintptr_t)(i & 1 ? spare : buf[3][0]);
      double s0 = now_us();
      st = mode == 0 ? (int32_t)nvfp4rt_plan_launch(direct, NULL)
                     : nvfp4rt_gen_launch(slot, &plan_slot, 1, 0, 0, G, 5 * G, list, NULL);
      t[i] = now_us() - s0;
    }
    static const char *const names[3] = {"nvfp4rt_plan_launch (cached plan, baseline)",
                                         "nvfp4rt_gen_launch, descriptors unchanged",
                                         "nvfp4rt_gen_launch, one A pointer changed"};
    rows[mode] = summarise(names[mode], t, iters);
  }
  a[3].aligned = (void *)(uintptr_t)buf[3][0];
  nvfp4rt_stream_synchronize(ctx, NULL);
  T_CHECK(st == 0, "launches: %s", nvfp4rt_last_error_message());
  printf("host cost per call, 8 groups, probe kernel, %d calls each (us):\n", iters);
  printf("  %-46s %8s %8s %8s\n", "call", "median", "p10", "p90");
  for (int r = 0; r < 3; r++)
    printf("  %-46s %8.3f %8.3f %8.3f\n", rows[r].name, rows[r].med, rows[r].p10, rows[r].p90);
  printf("  %-46s %8.1f\n", "first call: nvfp4rt_gen_module_load", load_us);
  printf("  %-46s %8.1f\n", "first call: nvfp4rt_gen_launch (plan_create)", first_us);
  printf("{\"bench\": \"gen_launch\", \"groups\": %d, \"calls\": %d, \"plan_launch_us\": %.3f, "
         "\"gen_cached_us\": %.3f, \"gen_replan_us\": %.3f, \"module_load_us\": %.1f, "
         "\"first_launch_us\": %.1f}\n", G, iters, rows[0].med, rows[1].med, rows[2].med,
         load_us, first_us);
  free(t);
  nvfp4rt_plan_destroy(direct);
  nvfp4rt_gen_release_all();
  for (int g = 0; g < G; g++)
    for (int k = 0; k < 5; k++) nvfp4rt_mem_free(ctx, buf[g][k]);
  nvfp4rt_mem_free(ctx, spare);
  nvfp4rt_context_destroy(ctx);
  return t_summary("bench");
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "memrefs")) return test_memrefs();
  if (argc >= 2 && !strcmp(argv[1], "nodriver")) return test_nodriver();
  if (argc >= 3 && !strcmp(argv[1], "gpu")) return test_gpu(argv[2]);
  if (argc >= 3 && !strcmp(argv[1], "bench")) return bench(argv[2], argc > 3 ? atoi(argv[3]) : 2000);
  fprintf(stderr, "usage: runtime-gen-test memrefs | nodriver | gpu PROBE_CUBIN | bench PROBE_CUBIN [N]\n");
  return 2;
}
