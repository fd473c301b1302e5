/* hopper_bench.c — the sm_90a kernel against cuBLAS BF16 on an H200, in one run: for each of
 * B1..B4 (docs/format.md, "The benchmark shapes"), L2 flushed before every timed launch, CUDA
 * events, median of --iters (>= 50):
 *   - this project's sm_90a kernel through libnvfp4rt (the runtime's own variant choice, and
 *     every variant of the cubin forced in turn);
 *   - cuBLAS BF16 (fp32 accumulation) on the operands pre-decoded to BF16 on the host
 *     (exact: every E2M1 x E4M3 product is a BF16), both as one cublasGemmGroupedBatchedEx
 *     call and as one cublasGemmEx per group;
 *   - the BF16 compute bound and the DRAM bound of the case, from the peaks measured in the
 *     same run (an 8192^3 cuBLAS BF16 GEMM on random data; a 2 GiB device-to-device copy,
 *     bytes read + written).
 * Prints a table and writes a JSON file. Also compares this kernel's C with cuBLAS's (a
 * sanity check; correctness against the C reference is the device suite's job).
 * cuBLAS (libcublas.so.13) and libcuda are loaded with dlopen by this program only;
 * libnvfp4rt never loads cuBLAS.
 *
 * A case's configurations (the runtime's choice, each variant, both cuBLAS forms) are timed
 * in --rounds interleaved rounds (default 5: iters / 5 launches of each in turn, five
 * times), so that none gains or loses by its place in the order. --case NAME and --groups
 * "m,n,k;..." (each repeatable, up to 16 in all) replace B1..B4 with the cases given, in
 * order: a K sweep, say, measured beside cuBLAS in one run.
 *
 *   usage: nvfp4-hopper-bench CUBIN [--iters N] [--rounds R] [--json OUT] [--cublas LIB]
 *                             [--case NAME]... [--groups "m,n,k;..."]...
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4rt.h"
#include "nvfp4rt_host.h"

/* cuBLAS / CUDA types and values (cublas_api.h, library_types.h). */
typedef void *cublasHandle_t;
typedef int cublasStatus_t;
enum { OP_N = 0, OP_T = 1, R_16BF = 14, COMPUTE_32F = 68, GEMM_DEFAULT = -1 };
typedef cublasStatus_t (*CreateFn)(cublasHandle_t *);
typedef cublasStatus_t (*DestroyFn)(cublasHandle_t);
typedef cublasStatus_t (*SetStreamFn)(cublasHandle_t, void *);
typedef cublasStatus_t (*GemmExFn)(cublasHandle_t, int, int, int, int, int, const void *,
                                   const void *, int, int, const void *, int, int, const void *,
                                   void *, int, int, int, int);
typedef cublasStatus_t (*GroupedFn)(cublasHandle_t, const int *, const int *, const int *,
                                    const int *, const int *, const void *, const void *const *,
                                    int, const int *, const void *const *, int, const int *,
                                    const void *, void *const *, int, const int *, int,
                                    const int *, int);
typedef int (*CopyFn)(uint64_t, uint64_t, size_t, void *); /* cuMemcpyDtoDAsync_v2 */

static struct {
  CreateFn create;
  DestroyFn destroy;
  SetStreamFn setStream;
  GemmExFn gemmEx;
  GroupedFn grouped;
  CopyFn copy;
} cb;

#define MAXG NVFP4H_MAX_GROUPS

static nvfp4rt_context *ctx;
static void *stream, *ev0, *ev1;
static uint64_t flushBuf;
static size_t flushBytes;

static void die(const char *what, nvfp4rt_status st) {
  fprintf(stderr, "nvfp4-hopper-bench: %s: %s: %s\n", what, nvfp4rt_status_string(st),
          nvfp4rt_last_error()->message);
  exit(2);
}
#define RT(call, what)                                                                     \
  do {                                                                                     \
    nvfp4rt_status st_ = (call);                                                           \
    if (st_ != NVFP4RT_STATUS_OK) die(what, st_);                                          \
  } while (0)
#define CB(call, what)                                                                     \
  do {                                                                                     \
    cublasStatus_t s_ = (call);                                                            \
    if (s_ != 0) {                                                                         \
      fprintf(stderr, "nvfp4-hopper-bench: %s: cuBLAS status %d\n", what, s_);             \
      exit(2);                                                                             \
    }                                                                                      \
  } while (0)

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmpd);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef void (*LaunchFn)(void *arg);

/* One configuration timed by timeInterleaved: its launch and, after, its median in us. */
typedef struct Timed {
  LaunchFn fn;
  void *arg;
  double us;
} Timed;

/* Times n configurations, `iters` launches each (an L2 flush before each launch, outside the
 * events, when `flush`), in `rounds` interleaved rounds: iters / rounds launches of entry 0,
 * then of entry 1, ..., then again, so that no entry gains or loses by its place in the
 * order (clocks, L2 or TLB state drifting while a case runs). Each entry's median of all
 * its launches. */
static void timeInterleaved(Timed *t, int n, int iters, int rounds, int flush) {
  double *s = calloc((size_t)n * (size_t)iters, sizeof *s);
  if (!s) {
    fprintf(stderr, "nvfp4-hopper-bench: out of host memory\n");
    exit(2);
  }
  for (int e = 0; e < n; ++e)
    for (int i = 0; i < 3; ++i) t[e].fn(t[e].arg);
  if (rounds < 1) rounds = 1;
  if (rounds > iters) rounds = iters;
  for (int r = 0; r < rounds; ++r) {
    const int lo = iters * r / rounds, hi = iters * (r + 1) / rounds;
    for (int e = 0; e < n; ++e)
      for (int i = lo; i < hi; ++i) {
        if (flush)
          RT(nvfp4rt_memset_async(ctx, flushBuf, (unsigned char)i, flushBytes, stream), "flush");
        RT(nvfp4rt_event_record(ctx, ev0, stream), "event");
        t[e].fn(t[e].arg);
        RT(nvfp4rt_event_record(ctx, ev1, stream), "event");
        RT(nvfp4rt_stream_synchronize(ctx, stream), "synchronize");
        float ms = 0;
        RT(nvfp4rt_event_elapsed_ms(ctx, ev0, ev1, &ms), "elapsed");
        s[(size_t)e * (size_t)iters + (size_t)i] = ms * 1e3;
      }
  }
  for (int e = 0; e < n; ++e) t[e].us = median(s + (size_t)e * (size_t)iters, iters);
  free(s);
}

/* Median time (us) of `iters` launches of one configuration. */
static double timeIt(LaunchFn fn, void *arg, int iters, int flush) {
  Timed t = {fn, arg, 0};
  timeInterleaved(&t, 1, iters, 1, flush);
  return t.us;
}

/* ---- launches ------------------------------------------------------------------------ */

static void launchPlan(void *p) { RT(nvfp4rt_plan_launch((nvfp4rt_plan *)p, stream), "launch"); }

typedef struct Gemms {
  cublasHandle_t h;
  uint32_t g;
  int m[MAXG], n[MAXG], k[MAXG];
  uint64_t a[MAXG], b[MAXG], c[MAXG]; /* BF16 A (M x K), B (N x K), C (M x N) */
  uint64_t ptrs;                      /* device arrays of the grouped call: B, A, C pointers */
} Gemms;

static const float kOne = 1.0f, kZero = 0.0f;

/* C (M x N row-major) = A B^T is, column-major, C^T (N x M) = op(B) op(A) with B read as
 * K x N column-major (transposed) and A as K x M (not transposed): the "TN" GEMM. */
static void launchPerGroup(void *p) {
  Gemms *G = p;
  for (uint32_t i = 0; i < G->g; ++i)
    if (G->m[i] && G->n[i])
      CB(cb.gemmEx(G->h, OP_T, OP_N, G->n[i], G->m[i], G->k[i], &kOne, (void *)G->b[i], R_16BF,
                   G->k[i], (void *)G->a[i], R_16BF, G->k[i], &kZero, (void *)G->c[i], R_16BF,
                   G->n[i], COMPUTE_32F, GEMM_DEFAULT),
         "cublasGemmEx");
}

static void launchGrouped(void *p) {
  Gemms *G = p;
  int ta[MAXG], tb[MAXG], one[MAXG];
  float alpha[MAXG], beta[MAXG];
  for (uint32_t i = 0; i < G->g; ++i) {
    ta[i] = OP_T;
    tb[i] = OP_N;
    one[i] = 1;
    alpha[i] = 1.0f;
    beta[i] = 0.0f;
  }
  const uint64_t *d = (const uint64_t *)(uintptr_t)G->ptrs;
  CB(cb.grouped(G->h, ta, tb, G->n, G->m, G->k, alpha, (const void *const *)d, R_16BF, G->k,
                (const void *const *)(d + MAXG), R_16BF, G->k, beta, (void *const *)(d + 2 * MAXG),
                R_16BF, G->n, (int)G->g, one, COMPUTE_32F),
     "cublasGemmGroupedBatchedEx");
}

typedef struct Copy { uint64_t dst, src; size_t bytes; } Copy;
static void launchCopy(void *p) {
  Copy *c = p;
  if (cb.copy(c->dst, c->src, c->bytes, stream) != 0) {
    fprintf(stderr, "nvfp4-hopper-bench: cuMemcpyDtoDAsync failed\n");
    exit(2);
  }
}

/* ---- host helpers ---------------------------------------------------------------------- */

static uint16_t toBf16(float v) { /* exact for the decoded values (<= 6 significant bits) */
  uint32_t u;
  memcpy(&u, &v, 4);
  return (uint16_t)(u >> 16);
}
static float fromBf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float v;
  memcpy(&v, &u, 4);
  return v;
}

/* rows x K FP4 with blocked scales -> BF16 (row-major), on the device. */
static uint64_t decodedBf16(const uint8_t *fp4, const uint8_t *sf, uint32_t rows, uint32_t K) {
  size_t n = (size_t)rows * K;
  uint16_t *h = malloc(n * 2 + 2);
  const uint32_t S = K / 16;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t j = 0; j < S; ++j) {
      float s = nvfp4h_e4m3_decode(sf[nvfp4h_sf_blocked_offset(r, j, S)]);
      for (uint32_t i = 0; i < 16; ++i) {
        size_t k = (size_t)j * 16 + i;
        uint8_t byte = fp4[((size_t)r * K + k) / 2];
        h[(size_t)r * K + k] = toBf16(nvfp4h_fp4_decode((k & 1) ? byte >> 4 : byte & 15) * s);
      }
    }
  uint64_t d = 0;
  RT(nvfp4rt_mem_alloc(ctx, n * 2 + 2, &d), "alloc bf16");
  RT(nvfp4rt_memcpy_htod(ctx, d, h, n * 2), "upload bf16");
  free(h);
  return d;
}

static uint64_t randomBf16(size_t n, uint64_t seed) {
  uint16_t *h = malloc(n * 2);
  nvfp4h_rng g = {seed};
  for (size_t i = 0; i < n; ++i) h[i] = toBf16((float)((nvfp4h_rng_next(&g) >> 40) / 16777216.0 * 2.0 - 1.0));
  uint64_t d = 0;
  RT(nvfp4rt_mem_alloc(ctx, n * 2, &d), "alloc");
  RT(nvfp4rt_memcpy_htod(ctx, d, h, n * 2), "upload");
  free(h);
  return d;
}

/* One benchmarked case: a named case of docs/format.md (--case) or a --groups list, labelled
 * g1, g2, ... */
#define MAXCASES 16
typedef struct BenchCase {
  char label[16];
  const char *spec; /* the --groups text, or NULL */
  nvfp4h_shape shapes[MAXG];
  uint32_t g;
} BenchCase;

static const char kUsage[] =
    "usage: nvfp4-hopper-bench CUBIN [--iters N] [--rounds R] [--json OUT] [--cublas LIB]\n"
    "                          [--case test:N|B1..B4]... [--groups \"m,n,k;...\"]...\n";

/* Adds a case; 0, or 2 with the reason printed. */
static int addCase(BenchCase *cases, int *n, int fromGroups, const char *text) {
  if (*n >= MAXCASES) {
    fprintf(stderr, "nvfp4-hopper-bench: at most %d cases\n", MAXCASES);
    return 2;
  }
  BenchCase *c = &cases[*n];
  c->spec = fromGroups ? text : NULL;
  c->g = fromGroups ? nvfp4h_parse_groups(text, c->shapes, MAXG)
                    : nvfp4h_case_shapes(text, c->shapes, MAXG);
  if (!c->g) {
    fprintf(stderr, fromGroups ? "nvfp4-hopper-bench: cannot parse --groups '%s'\n"
                               : "nvfp4-hopper-bench: unknown --case '%s' (test:0..9, B1..B4)\n",
            text);
    return 2;
  }
  int groupsSoFar = 0;
  for (int i = 0; i < *n; ++i) groupsSoFar += cases[i].spec != NULL;
  if (fromGroups) snprintf(c->label, sizeof c->label, "g%d", groupsSoFar + 1);
  else snprintf(c->label, sizeof c->label, "%s", text);
  ++*n;
  return 0;
}

int main(int argc, char **argv) {
  const char *cubin = NULL, *jsonPath = NULL, *cublasLib = "libcublas.so.13";
  int iters = 100, rounds = 5;
  BenchCase cases[MAXCASES];
  int ncases = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) jsonPath = argv[++i];
    else if (!strcmp(argv[i], "--cublas") && i + 1 < argc) cublasLib = argv[++i];
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if ((!strcmp(argv[i], "--case") || !strcmp(argv[i], "--groups")) && i + 1 < argc) {
      if (addCase(cases, &ncases, !strcmp(argv[i], "--groups"), argv[i + 1]) != 0) return 2;
      ++i;
    } else if (argv[i][0] != '-' && !cubin) cubin = argv[i];
    else {
      fputs(kUsage, stderr);
      return 2;
    }
  }
  if (!cubin) {
    fputs(kUsage, stderr);
    return 2;
  }
  if (iters < 50) iters = 50;
  if (rounds < 1 || rounds > iters) {
    fprintf(stderr, "nvfp4-hopper-bench: --rounds %d: 1 .. --iters (%d)\n", rounds, iters);
    return 2;
  }
  if (ncases == 0) {
    static const char *const defaults[4] = {"B1", "B2", "B3", "B4"};
    for (int c = 0; c < 4; ++c) addCase(cases, &ncases, 0, defaults[c]);
  }

  nvfp4rt_status st = nvfp4rt_context_create(0, &ctx);
  if (st == NVFP4RT_STATUS_DRIVER_NOT_FOUND || st == NVFP4RT_STATUS_NO_DEVICE) {
    fprintf(stderr, "nvfp4-hopper-bench: no CUDA GPU (%s)\n", nvfp4rt_last_error()->message);
    return 77;
  }
  if (st != NVFP4RT_STATUS_OK) die("context", st);
  const nvfp4rt_device_info *dev = nvfp4rt_context_device_info(ctx);
  void *cublas = dlopen(cublasLib, RTLD_NOW | RTLD_LOCAL);
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cublas || !cuda) {
    fprintf(stderr, "nvfp4-hopper-bench: cannot load %s: %s\n", cublas ? "libcuda.so.1" : cublasLib,
            dlerror());
    return 2;
  }
  cb.create = (CreateFn)dlsym(cublas, "cublasCreate_v2");
  cb.destroy = (DestroyFn)dlsym(cublas, "cublasDestroy_v2");
  cb.setStream = (SetStreamFn)dlsym(cublas, "cublasSetStream_v2");
  cb.gemmEx = (GemmExFn)dlsym(cublas, "cublasGemmEx");
  cb.grouped = (GroupedFn)dlsym(cublas, "cublasGemmGroupedBatchedEx");
  cb.copy = (CopyFn)dlsym(cuda, "cuMemcpyDtoDAsync_v2");
  if (!cb.create || !cb.destroy || !cb.setStream || !cb.gemmEx || !cb.grouped || !cb.copy) {
    fprintf(stderr, "nvfp4-hopper-bench: a cuBLAS / CUDA entry point is missing\n");
    return 2;
  }

  nvfp4rt_module *mod = NULL;
  RT(nvfp4rt_module_load_file(ctx, cubin, &mod), "module");
  RT(nvfp4rt_stream_create(ctx, &stream), "stream");
  RT(nvfp4rt_event_create(ctx, &ev0), "event");
  RT(nvfp4rt_event_create(ctx, &ev1), "event");
  flushBytes = (size_t)(dev->l2_bytes > 0 ? dev->l2_bytes : 64 << 20) * 2;
  RT(nvfp4rt_mem_alloc(ctx, flushBytes, &flushBuf), "flush buffer");
  cublasHandle_t h;
  CB(cb.create(&h), "cublasCreate");
  CB(cb.setStream(h, stream), "cublasSetStream");

  /* Peaks. DRAM: a 2 GiB device-to-device copy, bytes read + written. BF16: 8192^3. */
  Copy cp = {0, 0, (size_t)2 << 30};
  RT(nvfp4rt_mem_alloc(ctx, cp.bytes, &cp.src), "alloc");
  RT(nvfp4rt_mem_alloc(ctx, cp.bytes, &cp.dst), "alloc");
  RT(nvfp4rt_memset_async(ctx, cp.src, 1, cp.bytes, stream), "memset");
  double copyUs = timeIt(launchCopy, &cp, 20, 0);
  const double dramBps = 2.0 * cp.bytes / (copyUs * 1e-6);
  nvfp4rt_mem_free(ctx, cp.src);
  nvfp4rt_mem_free(ctx, cp.dst);
  const int P = 8192;
  Gemms peak = {.h = h, .g = 1, .m = {P}, .n = {P}, .k = {P}};
  peak.a[0] = randomBf16((size_t)P * P, 1);
  peak.b[0] = randomBf16((size_t)P * P, 2);
  RT(nvfp4rt_mem_alloc(ctx, (size_t)P * P * 2, &peak.c[0]), "alloc");
  double peakUs = timeIt(launchPerGroup, &peak, 20, 0);
  const double peakFlops = 2.0 * P * P * (double)P / (peakUs * 1e-6);
  nvfp4rt_mem_free(ctx, peak.a[0]);
  nvfp4rt_mem_free(ctx, peak.b[0]);
  nvfp4rt_mem_free(ctx, peak.c[0]);
  printf("device %s, %d SMs; measured peaks: BF16 %.1f TFLOP/s (cuBLAS %dx%dx%d), DRAM %.0f GB/s "
         "(2 GiB copy, read + write)\n", dev->name, dev->sm_count, peakFlops * 1e-12, P, P, P,
         dramBps * 1e-9);

  FILE *js = jsonPath ? fopen(jsonPath, "w") : NULL;
  if (js)
    fprintf(js, "{\"device\": \"%s\", \"sm_count\": %d, \"iters\": %d, \"rounds\": %d, "
                "\"flush_l2\": true, "
                "\"peak_bf16_tflops\": %.2f, \"peak_dram_gbps\": %.1f, \"cubin\": \"%s\", "
                "\"cases\": [", dev->name, dev->sm_count, iters, rounds, peakFlops * 1e-12,
            dramBps * 1e-9, cubin);
  for (int ci = 0; ci < ncases; ++ci)
    if (cases[ci].spec) printf("%s = --groups \"%s\"\n", cases[ci].label, cases[ci].spec);
  printf("%-4s %10s %10s %10s %10s %10s %9s %9s %9s %8s  %s\n", "case", "ours us", "cuBLAS-g",
         "cuBLAS-1", "bound-C", "bound-D", "ours TF", "cuBLAS TF", "x cuBLAS", "x bnd-C",
         "kernel (variants us)");
  const uint32_t nv = nvfp4rt_module_variant_count(mod);
  for (int ci = 0; ci < ncases; ++ci) {
    const nvfp4h_shape *shapes = cases[ci].shapes;
    const uint32_t g = cases[ci].g;
    nvfp4h_problem prob;
    if (nvfp4h_problem_generate(shapes, g, 1111, NVFP4H_DIST_COMPETITION, &prob) != 0) {
      fprintf(stderr, "nvfp4-hopper-bench: cannot generate %s\n", cases[ci].label);
      return 2;
    }
    nvfp4rt_group groups[MAXG];
    uint64_t dptr[MAXG][5];
    Gemms G = {.h = h, .g = g};
    double flops = 0, bytes = 0;
    for (uint32_t i = 0; i < g; ++i) {
      nvfp4h_group_data *d = &prob.groups[i];
      const void *src[5] = {d->a, d->b, d->sfa, d->sfb, d->c};
      size_t nb[5] = {d->a_bytes, d->b_bytes, d->sfa_bytes, d->sfb_bytes, d->c_alloc_bytes};
      for (int t = 0; t < 5; ++t) {
        RT(nvfp4rt_mem_alloc(ctx, nb[t], &dptr[i][t]), "alloc");
        RT(nvfp4rt_memcpy_htod(ctx, dptr[i][t], src[t], nb[t]), "upload");
      }
      groups[i] = (nvfp4rt_group){dptr[i][0], dptr[i][1], dptr[i][2], dptr[i][3], dptr[i][4],
                                  d->m, d->n, d->k, d->ldc, 0, 0, 0};
      G.m[i] = (int)d->m;
      G.n[i] = (int)d->n;
      G.k[i] = (int)d->k;
      G.a[i] = decodedBf16(d->a, d->sfa, d->m, d->k);
      G.b[i] = decodedBf16(d->b, d->sfb, d->n, d->k);
      RT(nvfp4rt_mem_alloc(ctx, (size_t)d->m * d->n * 2 + 2, &G.c[i]), "alloc");
      flops += 2.0 * d->m * d->n * d->k;
      bytes += (double)d->a_bytes + d->b_bytes + d->sfa_bytes + d->sfb_bytes + 2.0 * d->m * d->n;
    }
    uint64_t hp[3 * MAXG] = {0};
    for (uint32_t i = 0; i < g; ++i) {
      hp[i] = G.b[i];
      hp[MAXG + i] = G.a[i];
      hp[2 * MAXG + i] = G.c[i];
    }
    uint64_t dp = 0;
    RT(nvfp4rt_mem_alloc(ctx, sizeof hp, &dp), "alloc");
    RT(nvfp4rt_memcpy_htod(ctx, dp, hp, sizeof hp), "upload");
    /* the grouped call reads its pointer arrays from device memory */
    Gemms Gd = G;
    Gd.ptrs = dp;

    /* this kernel: the runtime's choice, then every variant */
    nvfp4rt_plan *plan = NULL;
    RT(nvfp4rt_plan_create(mod, groups, g, &plan), "plan");
    nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
    nvfp4rt_plan_get_info(plan, &info);
    /* every configuration of the case, timed in interleaved rounds: the runtime's choice,
     * each variant forced, cuBLAS per group, cuBLAS grouped */
    const uint32_t nvt = nv < 16 ? nv : 16;
    nvfp4rt_plan *pv[16] = {NULL};
    Timed timed[16 + 3];
    int nt = 0;
    timed[nt++] = (Timed){launchPlan, plan, 0};
    for (uint32_t v = 0; v < nvt; ++v) {
      nvfp4rt_plan_options o = {.variant = (int)v};
      RT(nvfp4rt_plan_create_ex(mod, groups, g, &o, &pv[v]), "plan");
      timed[nt++] = (Timed){launchPlan, pv[v], 0};
    }
    timed[nt++] = (Timed){launchPerGroup, &G, 0};
    timed[nt++] = (Timed){launchGrouped, &Gd, 0};
    timeInterleaved(timed, nt, iters, rounds, 1);
    const double ours = timed[0].us, perGroup = timed[nt - 2].us, grouped = timed[nt - 1].us;
    char vlist[512] = "";
    size_t vl = 0;
    double varUs[16] = {0};
    for (uint32_t v = 0; v < nvt; ++v) {
      varUs[v] = timed[1 + v].us;
      vl += (size_t)snprintf(vlist + vl, sizeof vlist - vl, "%s%s %.1f", v ? ", " : "",
                             nvfp4rt_module_variant(mod, v)->kernel_name, varUs[v]);
      nvfp4rt_plan_destroy(pv[v]);
    }
    /* correctness of the timed kernel against cuBLAS (same exact products) */
    RT(nvfp4rt_plan_launch(plan, stream), "launch");
    launchPerGroup(&G);
    RT(nvfp4rt_stream_synchronize(ctx, stream), "synchronize");
    double maxRel = 0;
    for (uint32_t i = 0; i < g; ++i) {
      nvfp4h_group_data *d = &prob.groups[i];
      size_t n = (size_t)d->m * d->n;
      uint16_t *ours16 = malloc(d->c_alloc_bytes), *cub = malloc(n * 2 + 2);
      RT(nvfp4rt_memcpy_dtoh(ctx, ours16, dptr[i][4], d->c_alloc_bytes), "download");
      RT(nvfp4rt_memcpy_dtoh(ctx, cub, G.c[i], n * 2), "download");
      for (uint32_t r = 0; r < d->m; ++r)
        for (uint32_t c = 0; c < d->n; ++c) {
          double x = nvfp4h_half_to_float(ours16[(size_t)r * d->ldc + c]);
          double y = fromBf16(cub[(size_t)r * d->n + c]);
          double rel = fabs(x - y) / (fabs(y) > 1e-3 ? fabs(y) : 1e-3);
          if (rel > maxRel || isnan(rel)) maxRel = isnan(rel) ? INFINITY : rel;
        }
      free(ours16);
      free(cub);
    }
    double best = perGroup < grouped ? perGroup : grouped;
    double boundC = flops / peakFlops * 1e6, boundD = bytes / dramBps * 1e6;
    printf("%-4s %10.2f %10.2f %10.2f %10.2f %10.2f %9.1f %9.1f %9.3f %8.3f  %s (%s); grid %u, "
           "tiles %u; vs cuBLAS max rel diff %.2g\n",
           cases[ci].label, ours, grouped, perGroup, boundC, boundD, flops / ours * 1e-6,
           flops / best * 1e-6, ours / best, ours / boundC, info.kernel_name, vlist, info.grid,
           info.total_tiles, maxRel);
    if (js) {
      fprintf(js, "%s{\"case\": \"%s\", \"groups\": [", ci ? ", " : "", cases[ci].label);
      for (uint32_t i = 0; i < g; ++i)
        fprintf(js, "%s[%u, %u, %u]", i ? ", " : "", shapes[i].m, shapes[i].n, shapes[i].k);
      fprintf(js, "], \"flops\": %.0f, \"bytes\": %.0f, \"ours_us\": %.3f, \"ours_kernel\": \"%s\", "
                  "\"grid\": %u, \"tiles\": %u, \"cublas_grouped_us\": %.3f, "
                  "\"cublas_per_group_us\": %.3f, \"cublas_best_us\": %.3f, "
                  "\"bound_compute_us\": %.3f, \"bound_dram_us\": %.3f, \"ours_tflops\": %.2f, "
                  "\"cublas_tflops\": %.2f, \"ratio_to_cublas\": %.4f, \"ratio_to_compute_bound\": %.4f, "
                  "\"max_rel_diff_vs_cublas\": %.3g, \"variants\": [",
              flops, bytes, ours, info.kernel_name, info.grid, info.total_tiles, grouped,
              perGroup, best, boundC, boundD, flops / ours * 1e-6, flops / best * 1e-6,
              ours / best, ours / boundC, maxRel);
      for (uint32_t v = 0; v < nvt; ++v)
        fprintf(js, "%s{\"kernel\": \"%s\", \"us\": %.3f}", v ? ", " : "",
                nvfp4rt_module_variant(mod, v)->kernel_name, varUs[v]);
      fprintf(js, "]}");
    }
    nvfp4rt_plan_destroy(plan);
    for (uint32_t i = 0; i < g; ++i) {
      for (int t = 0; t < 5; ++t) nvfp4rt_mem_free(ctx, dptr[i][t]);
      nvfp4rt_mem_free(ctx, G.a[i]);
      nvfp4rt_mem_free(ctx, G.b[i]);
      nvfp4rt_mem_free(ctx, G.c[i]);
    }
    nvfp4rt_mem_free(ctx, dp);
    nvfp4h_problem_free(&prob);
  }
  printf("(median of %d launches each, L2 flushed before every launch; bound-C = BF16 compute "
         "bound at the measured peak, bound-D = DRAM bound; x cuBLAS = ours / the faster cuBLAS "
         "form; x bnd-C = ours / bound-C)\n", iters);
  if (js) {
    fprintf(js, "]}\n");
    fclose(js);
  }
  cb.destroy(h);
  return 0;
}
