/* generated_abi.c — the C ABI that generated host code calls (nvfp4rt_gen.h): memref
 * descriptors checked and turned into runtime groups, the lazily loaded module of an op's
 * embedded cubin, and the op's plan cache (re-planned only when pointers or shapes change),
 * all behind process-wide and per-plan locks. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "nvfp4rt_gen.h"

/* ---- descriptors -> groups (host only) --------------------------------------------- */

static const char *const kOperandNames[5] = {"A", "B", "SFA", "SFB", "C"};

/* What one checked descriptor yields. */
typedef struct operand_view {
  uint64_t address;       /* aligned + offset, in bytes */
  const int64_t *sizes;
  const int64_t *strides;
  int rank;
} operand_view;

/* Reads descriptor `d` of rank 2 or 5 (the two structs share their prefix), checks the
 * sizes, offset and address; `elem_bits` is 4 for FP4, 8 for E4M3, 16 for f16. */
static nvfp4rt_status read_operand(const void *d, int rank, unsigned elem_bits, uint32_t g,
                                   int which, operand_view *v) {
  const char *name = kOperandNames[which];
  if (!d)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "group %u: %s descriptor is NULL", g,
                        name);
  const void *aligned;
  int64_t offset;
  if (rank == 2) {
    const nvfp4rt_memref_2d *m = d;
    aligned = m->aligned;
    offset = m->offset;
    v->sizes = m->sizes;
    v->strides = m->strides;
  } else {
    const nvfp4rt_memref_5d *m = d;
    aligned = m->aligned;
    offset = m->offset;
    v->sizes = m->sizes;
    v->strides = m->strides;
  }
  v->rank = rank;
  for (int i = 0; i < rank; i++) {
    if (v->sizes[i] < 0)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE, "group %u: %s size[%d] = %lld is negative",
                          g, name, i, (long long)v->sizes[i]);
    if (v->sizes[i] > (int64_t)UINT32_MAX)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_OVERFLOW, "group %u: %s size[%d] = %lld exceeds 32 bits",
                          g, name, i, (long long)v->sizes[i]);
    if (v->strides[i] < 0)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE, "group %u: %s stride[%d] = %lld is negative",
                          g, name, i, (long long)v->strides[i]);
  }
  if (offset < 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT, "group %u: %s offset %lld is negative",
                        g, name, (long long)offset);
  if (elem_bits == 4 && offset % 2 != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                        "group %u: %s offset %lld is odd: FP4 elements are packed two per "
                        "byte, so it does not start on a byte", g, name, (long long)offset);
  const uint64_t bytes = elem_bits == 4 ? (uint64_t)offset / 2 : (uint64_t)offset * (elem_bits / 8);
  const uint64_t base = (uint64_t)(uintptr_t)aligned;
  if ((elem_bits > 8 && (uint64_t)offset > UINT64_MAX / (elem_bits / 8)) ||
      base > UINT64_MAX - bytes)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_OVERFLOW,
                        "group %u: %s aligned pointer + offset %lld overflows 64 bits", g, name,
                        (long long)offset);
  v->address = base + bytes;
  if (!aligned && bytes)
    v->address = 0; /* a NULL buffer stays NULL whatever the offset */
  return NVFP4RT_STATUS_OK;
}

/* Strides of a dimension of size <= 1 address nothing and are not checked. */
static nvfp4rt_status check_strides(const operand_view *v, const int64_t *want, uint32_t g,
                                    int which, const char *layout) {
  for (int i = 0; i < v->rank; i++) {
    if (v->sizes[i] <= 1 || v->strides[i] == want[i]) continue;
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE,
                        "group %u: %s stride[%d] = %lld, expected %lld (%s)", g,
                        kOperandNames[which], i, (long long)v->strides[i], (long long)want[i],
                        layout);
  }
  return NVFP4RT_STATUS_OK;
}

static nvfp4rt_status check_size(const operand_view *v, int dim, int64_t want, uint32_t g,
                                 int which, const char *what) {
  if (v->sizes[dim] == want) return NVFP4RT_STATUS_OK;
  return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE, "group %u: %s size[%d] = %lld, expected %lld (%s)",
                      g, kOperandNames[which], dim, (long long)v->sizes[dim], (long long)want,
                      what);
}

/* A blocked scale-factor tensor of `rows` rows and K: {ceil(rows/128), ceil(K/64), 32, 4, 4},
 * contiguous. */
static nvfp4rt_status check_sf(const operand_view *v, int64_t rows, int64_t k, uint32_t g,
                               int which) {
  const int64_t katoms = (k + 63) / 64;
  const int64_t want[5] = {(rows + 127) / 128, katoms, 32, 4, 4};
  const char *what = which == 2 ? "SFA is {ceil(M/128), ceil(K/64), 32, 4, 4}"
                                : "SFB is {ceil(N/128), ceil(K/64), 32, 4, 4}";
  for (int i = 0; i < 5; i++) {
    nvfp4rt_status st = check_size(v, i, want[i], g, which, what);
    if (st != NVFP4RT_STATUS_OK) return st;
  }
  const int64_t strides[5] = {katoms * 512, 512, 16, 4, 1};
  return check_strides(v, strides, g, which, "the blocked layout is contiguous");
}

static nvfp4rt_status check_call(uint32_t form, uint32_t flags, uint32_t num_groups,
                                 uint32_t num_operands, const void *const *operands) {
  if (form != NVFP4RT_GEN_FORM_GROUPED)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                        "generated code: operand form %u is not implemented by this runtime "
                        "(it knows form 0, the pointer-array form)", form);
  if (flags != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                        "generated code: flags 0x%x are not implemented by this runtime (C "
                        "element type %u; only f16 = 0, no other flag)",
                        flags, flags & NVFP4RT_GEN_FLAG_C_TYPE_MASK);
  if (num_groups == 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT, "generated code: group count is 0");
  if (num_groups > NVFP4_ABI_MAX_GROUPS)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_TOO_MANY_GROUPS,
                        "generated code: %u groups, the runtime supports at most %u", num_groups,
                        NVFP4_ABI_MAX_GROUPS);
  if (num_operands != 5 * num_groups)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "generated code: %u operands for %u groups of the pointer-array form "
                        "(expected 5 per group)", num_operands, num_groups);
  if (!operands)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "generated code: operands array is NULL");
  return NVFP4RT_STATUS_OK;
}

static nvfp4rt_status convert_group(const void *const *operands, uint32_t G, uint32_t g,
                                    nvfp4rt_group *out) {
  operand_view a, b, sfa, sfb, c;
  nvfp4rt_status st;
  if ((st = read_operand(operands[g], 2, 4, g, 0, &a)) != NVFP4RT_STATUS_OK ||
      (st = read_operand(operands[G + g], 2, 4, g, 1, &b)) != NVFP4RT_STATUS_OK ||
      (st = read_operand(operands[2 * G + g], 5, 8, g, 2, &sfa)) != NVFP4RT_STATUS_OK ||
      (st = read_operand(operands[3 * G + g], 5, 8, g, 3, &sfb)) != NVFP4RT_STATUS_OK ||
      (st = read_operand(operands[4 * G + g], 2, 16, g, 4, &c)) != NVFP4RT_STATUS_OK)
    return st;
  const int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[0];
  const int64_t ab_strides[2] = {k, 1};
  if ((st = check_size(&b, 1, k, g, 1, "B is N x K with A's K")) != NVFP4RT_STATUS_OK ||
      (st = check_size(&c, 0, m, g, 4, "C is M x N with A's M")) != NVFP4RT_STATUS_OK ||
      (st = check_size(&c, 1, n, g, 4, "C is M x N with B's N")) != NVFP4RT_STATUS_OK ||
      (st = check_strides(&a, ab_strides, g, 0, "rows of K packed FP4 values")) !=
          NVFP4RT_STATUS_OK ||
      (st = check_strides(&b, ab_strides, g, 1, "rows of K packed FP4 values")) !=
          NVFP4RT_STATUS_OK ||
      (st = check_sf(&sfa, m, k, g, 2)) != NVFP4RT_STATUS_OK ||
      (st = check_sf(&sfb, n, k, g, 3)) != NVFP4RT_STATUS_OK)
    return st;
  /* C's row stride: checked against N when there are rows to step over; a single row is
   * addressed with N rounded up to whole 16-byte chunks (what TMA needs of a pitch). */
  int64_t ldc = c.strides[0];
  if (n > 1 && c.strides[1] != 1)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE,
                        "group %u: C stride[1] = %lld, expected 1 (rows of N contiguous f16)", g,
                        (long long)c.strides[1]);
  if (m <= 1) {
    ldc = (n + 7) / 8 * 8;
  } else if (ldc < n) {
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE,
                        "group %u: C row stride %lld is smaller than N = %lld", g,
                        (long long)ldc, (long long)n);
  }
  if (ldc > (int64_t)UINT32_MAX)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_OVERFLOW, "group %u: C row stride %lld exceeds 32 bits",
                        g, (long long)ldc);
  const int empty = m == 0 || n == 0;
  const operand_view *views[5] = {&a, &b, &sfa, &sfb, &c};
  for (int i = 0; i < 5 && !empty; i++)
    if (!views[i]->address)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER,
                          "group %u: %s descriptor's aligned pointer is NULL", g,
                          kOperandNames[i]);
  memset(out, 0, sizeof *out);
  out->a = a.address;
  out->b = b.address;
  out->sfa = sfa.address;
  out->sfb = sfb.address;
  out->c = c.address;
  out->m = (uint32_t)m;
  out->n = (uint32_t)n;
  out->k = (uint32_t)k;
  out->ldc = (uint32_t)ldc;
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_gen_memrefs_to_groups(uint32_t form, uint32_t flags, uint32_t num_groups,
                                             uint32_t num_operands, const void *const *operands,
                                             nvfp4rt_group *groups) {
  nvfp4rt_status st = check_call(form, flags, num_groups, num_operands, operands);
  if (st != NVFP4RT_STATUS_OK) return st;
  if (!groups) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "generated code: groups is NULL");
  for (uint32_t g = 0; g < num_groups; g++)
    if ((st = convert_group(operands, num_groups, g, &groups[g])) != NVFP4RT_STATUS_OK) return st;
  return NVFP4RT_STATUS_OK;
}

/* ---- process-wide state ------------------------------------------------------------- */

/* One op's plan cache (what the generated code's plan slot points to). */
typedef struct gen_plan {
  pthread_mutex_t lock;
  void **slot;               /* the generated code's slot, cleared by release_all */
  nvfp4rt_module *module;    /* the module the plan belongs to */
  nvfp4rt_plan *plan;        /* NULL until the first valid launch */
  uint32_t num_groups;       /* groups of the cached plan */
  uint32_t capacity;         /* entries of `groups` and `next` */
  nvfp4rt_group *groups;     /* the key: the groups the plan was built for */
  nvfp4rt_group *next;       /* this call's groups */
  struct gen_plan *chain;
} gen_plan;

typedef struct gen_module {
  nvfp4rt_module **slot;
  nvfp4rt_module *module;
  struct gen_module *chain;
} gen_module;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static nvfp4rt_context *g_ctx;
static int g_device;
static gen_plan *g_plans;
static gen_module *g_modules;
static nvfp4rt_gen_stats g_stats;

static void count(uint64_t *counter) { __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED); }

static int32_t failed(nvfp4rt_status st) {
  count(&g_stats.failures);
  return (int32_t)st;
}

int32_t nvfp4rt_gen_device_set(int ordinal) {
  if (ordinal < 0)
    return (int32_t)NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                                 "gen_device_set: ordinal %d is negative", ordinal);
  pthread_mutex_lock(&g_lock);
  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  if (g_ctx && g_ctx->info.ordinal != ordinal)
    st = NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                      "gen_device_set: modules are already loaded on device %d",
                      g_ctx->info.ordinal);
  else
    g_device = ordinal;
  pthread_mutex_unlock(&g_lock);
  return (int32_t)st;
}

int32_t nvfp4rt_gen_module_load(nvfp4rt_module **slot, const void *image, uint64_t size) {
  if (!slot)
    return failed(NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "gen_module_load: slot is NULL"));
  if (__atomic_load_n(slot, __ATOMIC_ACQUIRE)) return NVFP4RT_STATUS_OK;
  if (!image)
    return failed(NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "gen_module_load: image is NULL"));
  if (size == 0)
    return failed(NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                               "gen_module_load: the embedded cubin is empty (run "
                               "nvfp4-embed-cubin after gpu-module-to-binary)"));
  pthread_mutex_lock(&g_lock);
  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  if (*slot) goto done; /* another thread loaded it meanwhile */
  gen_module *reg = malloc(sizeof *reg);
  if (!reg) {
    st = NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "gen_module_load: malloc failed");
    goto done;
  }
  if (!g_ctx && (st = nvfp4rt_context_create(g_device, &g_ctx)) != NVFP4RT_STATUS_OK) {
    free(reg);
    goto done;
  }
  nvfp4rt_module *m = NULL;
  if ((st = nvfp4rt_module_load_data(g_ctx, image, (size_t)size, &m)) != NVFP4RT_STATUS_OK) {
    free(reg);
    goto done;
  }
  reg->slot = slot;
  reg->module = m;
  reg->chain = g_modules;
  g_modules = reg;
  count(&g_stats.module_loads);
  __atomic_store_n(slot, m, __ATOMIC_RELEASE);
done:
  pthread_mutex_unlock(&g_lock);
  return st == NVFP4RT_STATUS_OK ? NVFP4RT_STATUS_OK : failed(st);
}

/* The plan cache behind `slot`, created on first use. */
static nvfp4rt_status plan_cache(void **slot, gen_plan **out) {
  gen_plan *p = __atomic_load_n((gen_plan **)slot, __ATOMIC_ACQUIRE);
  if (p) {
    *out = p;
    return NVFP4RT_STATUS_OK;
  }
  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  pthread_mutex_lock(&g_lock);
  p = *(gen_plan **)slot;
  if (!p) {
    p = calloc(1, sizeof *p);
    if (!p || pthread_mutex_init(&p->lock, NULL) != 0) {
      free(p);
      p = NULL;
      st = NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "gen_launch: plan cache allocation failed");
    } else {
      p->slot = slot;
      p->chain = g_plans;
      g_plans = p;
      __atomic_store_n((gen_plan **)slot, p, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&g_lock);
  *out = p;
  return st;
}

/* Makes room for n groups (the group count of an op is fixed, so this runs once). */
static nvfp4rt_status reserve(gen_plan *p, uint32_t n) {
  if (n <= p->capacity) return NVFP4RT_STATUS_OK;
  nvfp4rt_group *groups = calloc(n, sizeof *groups);
  nvfp4rt_group *next = calloc(n, sizeof *next);
  if (!groups || !next) {
    free(groups);
    free(next);
    return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "gen_launch: %u groups", n);
  }
  if (p->num_groups) memcpy(groups, p->groups, p->num_groups * sizeof *groups);
  free(p->groups);
  free(p->next);
  p->groups = groups;
  p->next = next;
  p->capacity = n;
  return NVFP4RT_STATUS_OK;
}

/* Brings the cached plan up to date with p->next[0..n) and launches it. Called locked. */
static nvfp4rt_status plan_and_launch(gen_plan *p, nvfp4rt_module *module, uint32_t n,
                                      void *stream) {
  nvfp4rt_status st;
  if (p->plan && p->module != module) { /* the op's module was reloaded */
    nvfp4rt_plan_destroy(p->plan);
    p->plan = NULL;
    p->num_groups = 0;
  }
  if (!p->plan) {
    if ((st = nvfp4rt_plan_create(module, p->next, n, &p->plan)) != NVFP4RT_STATUS_OK) return st;
    p->module = module;
    count(&g_stats.plans_created);
  } else if (n == p->num_groups && memcmp(p->next, p->groups, n * sizeof *p->next) == 0) {
    count(&g_stats.cached);
  } else {
    if ((st = nvfp4rt_plan_update_pointers(p->plan, p->next, n)) != NVFP4RT_STATUS_OK) return st;
    count(&g_stats.replans);
  }
  nvfp4rt_group *t = p->groups;
  p->groups = p->next;
  p->next = t;
  p->num_groups = n;
  if ((st = nvfp4rt_plan_launch(p->plan, stream)) != NVFP4RT_STATUS_OK) return st;
  count(&g_stats.launches);
  return NVFP4RT_STATUS_OK;
}

int32_t nvfp4rt_gen_launch(nvfp4rt_module *module, void **plan_slot, uint32_t abi_version,
                           uint32_t form, uint32_t flags, uint32_t num_groups,
                           uint32_t num_operands, const void *const *operands, void *stream) {
  if (abi_version != NVFP4RT_GEN_ABI_VERSION)
    return failed(NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                               "gen_launch: generated code of ABI %u, this runtime implements "
                               "generated-code ABI %u", abi_version, NVFP4RT_GEN_ABI_VERSION));
  if (!module)
    return failed(NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER,
                               "gen_launch: module is NULL (nvfp4rt_gen_module_load first)"));
  if (!plan_slot)
    return failed(NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "gen_launch: plan slot is NULL"));
  nvfp4rt_status st = check_call(form, flags, num_groups, num_operands, operands);
  if (st != NVFP4RT_STATUS_OK) return failed(st);
  gen_plan *p;
  if ((st = plan_cache(plan_slot, &p)) != NVFP4RT_STATUS_OK) return failed(st);
  pthread_mutex_lock(&p->lock);
  if ((st = reserve(p, num_groups)) == NVFP4RT_STATUS_OK) {
    uint32_t g = 0;
    while (g < num_groups && (st = convert_group(operands, num_groups, g, &p->next[g])) ==
                                 NVFP4RT_STATUS_OK)
      g++;
    if (st == NVFP4RT_STATUS_OK) st = plan_and_launch(p, module, num_groups, stream);
  }
  pthread_mutex_unlock(&p->lock);
  return st == NVFP4RT_STATUS_OK ? NVFP4RT_STATUS_OK : failed(st);
}

void nvfp4rt_gen_stats_get(nvfp4rt_gen_stats *out) {
  if (!out) return;
  out->module_loads = __atomic_load_n(&g_stats.module_loads, __ATOMIC_RELAXED);
  out->plans_created = __atomic_load_n(&g_stats.plans_created, __ATOMIC_RELAXED);
  out->replans = __atomic_load_n(&g_stats.replans, __ATOMIC_RELAXED);
  out->cached = __atomic_load_n(&g_stats.cached, __ATOMIC_RELAXED);
  out->launches = __atomic_load_n(&g_stats.launches, __ATOMIC_RELAXED);
  out->failures = __atomic_load_n(&g_stats.failures, __ATOMIC_RELAXED);
}

void nvfp4rt_gen_release_all(void) {
  pthread_mutex_lock(&g_lock);
  for (gen_plan *p = g_plans, *next; p; p = next) {
    next = p->chain;
    __atomic_store_n(p->slot, NULL, __ATOMIC_RELEASE);
    nvfp4rt_plan_destroy(p->plan);
    pthread_mutex_destroy(&p->lock);
    free(p->groups);
    free(p->next);
    free(p);
  }
  g_plans = NULL;
  for (gen_module *m = g_modules, *next; m; m = next) {
    next = m->chain;
    __atomic_store_n(m->slot, NULL, __ATOMIC_RELEASE);
    nvfp4rt_module_destroy(m->module);
    free(m);
  }
  g_modules = NULL;
  nvfp4rt_context_destroy(g_ctx);
  g_ctx = NULL;
  pthread_mutex_unlock(&g_lock);
}
