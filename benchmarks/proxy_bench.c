/* proxy_bench.c — nvfp4-proxy-bench: the data-movement report of the generated kernel on an
 * H200, measured in one run with the timing proxy (nvfp4-compile --proxy: the sm_100a kernel
 * with free tcgen05 ops, running natively on sm_90a).
 *
 *   nvfp4-proxy-bench --stream STREAM.cubin [--iters N] [--json FILE] [--peak-mib M]
 *                     [--tmap-update replace-address|kernel-patch]
 *                     [--fixed PROXY.cubin] CASE=PROXY.cubin ...        (CASE: B1..B4)
 *
 * For every CASE=cubin (several cubins per case are allowed, e.g. stage counts; a case's
 * runs follow each other) and every variant of the cubin's family, forced in turn, with
 * the L2 flushed before each launch:
 *   - a check first: C is +0 inside each group's M x N and the guard row after it is
 *     untouched (the proxy's accumulators read as zero);
 *   - the proxy kernel's time (median and minimum of N launches) with the maps in the
 *     parameter block, or with --tmap-update kernel-patch the kernel patching its own maps
 *     (tensormap.replace): the difference of two runs is the in-kernel cost of kernel-patch
 *     (separate runs: a fault in one cannot take the other's results along);
 *   - the runtime's modelled time (nvfp4rt_select_variant) and its choice.
 * Per case: the streaming ceiling (stream_bytes.ptx reading exactly the A, B, SFA, SFB bytes
 * and writing C's M x N fp16 bytes), the same bytes over the H200 datasheet peak (4.8 TB/s)
 * and over the peak measured here (the same kernel over 2 M MiB read, and M MiB read + M MiB
 * written; M = 1024 by default). --fixed: the proxy time of a 1-group 128 x 128 x 256 problem
 * (the fixed cost). The driver is libcuda.so.1, or $NVFP4RT_LIBCUDA_PATH as for the runtime.
 * Prints a table; --json writes everything. Exit 0, 1 when a check failed, 2 on errors, 77
 * without a GPU.
 *
 *   nvfp4-proxy-bench --model [--sms N] CASE=CUBIN ...
 * needs no GPU: the runtime's modelled time of every variant (nvfp4rt_select_variant, the
 * device model of the cubin's target: B200 for sm_100a, H200 with free MMAs for sm_90a) and
 * its choice, for N SMs (default 148 for sm_100a, 132 for sm_90a). */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4rt.h"
#include "nvfp4rt_host.h"

#define DATASHEET_TBPS 4.8
#define MAX_RUNS 32
#define MAX_ROWS (MAX_RUNS * NVFP4_METADATA_MAX_VARIANTS)
#define C_GARBAGE 0xAB /* every byte of C before a launch: fp16 0xABAB, not a zero */

typedef int (*pfn_load)(void **, const void *);
typedef int (*pfn_get)(void **, void *, const char *);
typedef int (*pfn_unload)(void *);
typedef int (*pfn_launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                          unsigned, void *, void **, void **);

typedef struct bench {
  nvfp4rt_context *ctx;
  const nvfp4rt_device_info *dev;
  void *stream, *ev0, *ev1;
  uint64_t flush;
  size_t flush_bytes;
  int iters;
  nvfp4rt_tmap_update mode;
  void *stream_fn;
  pfn_launch launch;
} bench;

typedef struct problem {
  uint32_t ng;
  nvfp4rt_group g[NVFP4H_MAX_GROUPS];
  uint64_t ptr[NVFP4H_MAX_GROUPS][5];
  size_t bytes[NVFP4H_MAX_GROUPS][5]; /* C: M x N fp16 + a guard row of N */
  double read_bytes, write_bytes;
  uint64_t segments;                  /* device segment table of stream_bytes */
  uint32_t nsegments;
} problem;

typedef struct row {
  const char *label, *cubin;
  char variant[32], kernel[NVFP4_META_KERNEL_NAME_BYTES];
  uint32_t stages, index;
  double us, us_min, model_us;
  int pass, chosen;
  uint64_t bad_inside, bad_guard;
} row;

static int fail_rt(nvfp4rt_status st, const char *what) {
  fprintf(stderr, "nvfp4-proxy-bench: %s: %s: %s\n", what, nvfp4rt_status_string(st),
          nvfp4rt_last_error_message());
  return -1;
}
#define TRY(call, what)                                                                    \
  do {                                                                                     \
    nvfp4rt_status st_ = (call);                                                           \
    if (st_ != NVFP4RT_STATUS_OK) return fail_rt(st_, what);                               \
  } while (0)

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ---- the problem's device buffers ------------------------------------------------- */

static int problem_alloc(bench *B, problem *P, const nvfp4h_shape *s, uint32_t n) {
  memset(P, 0, sizeof *P);
  P->ng = n;
  unsigned char seg[NVFP4H_MAX_GROUPS * 5][32];
  memset(seg, 0, sizeof seg);
  for (uint32_t i = 0; i < n; i++) {
    const uint64_t m = s[i].m, nn = s[i].n, k = s[i].k, kb = (k + 63) / 64;
    P->bytes[i][0] = m * k / 2;
    P->bytes[i][1] = nn * k / 2;
    P->bytes[i][2] = (m + 127) / 128 * kb * 512;
    P->bytes[i][3] = (nn + 127) / 128 * kb * 512;
    P->bytes[i][4] = (m + 1) * nn * 2;
    for (int t = 0; t < 5; t++) {
      TRY(nvfp4rt_mem_alloc(B->ctx, P->bytes[i][t] ? P->bytes[i][t] : 16, &P->ptr[i][t]), "alloc");
      TRY(nvfp4rt_memset_async(B->ctx, P->ptr[i][t], t == 4 ? C_GARBAGE : (unsigned char)(0x31 + t),
                               P->bytes[i][t], B->stream), "fill");
    }
    P->g[i] = (nvfp4rt_group){P->ptr[i][0], P->ptr[i][1], P->ptr[i][2], P->ptr[i][3],
                              P->ptr[i][4], s[i].m, s[i].n, s[i].k, s[i].n, 0, 0, 0};
    for (int t = 0; t < 5; t++) {
      /* the bytes the GEMM must move: every input once, C's M x N once */
      const uint64_t bytes = t == 4 ? m * nn * 2 : P->bytes[i][t];
      unsigned char *e = seg[P->nsegments++];
      memcpy(e, &P->ptr[i][t], 8);
      memcpy(e + 8, &bytes, 8);
      const uint32_t w = t == 4;
      memcpy(e + 16, &w, 4);
      if (w) P->write_bytes += (double)bytes;
      else P->read_bytes += (double)bytes;
    }
  }
  TRY(nvfp4rt_mem_alloc(B->ctx, sizeof seg, &P->segments), "alloc segments");
  TRY(nvfp4rt_memcpy_htod(B->ctx, P->segments, seg, 32u * P->nsegments), "segments");
  TRY(nvfp4rt_stream_synchronize(B->ctx, B->stream), "fill");
  return 0;
}

static void problem_free(bench *B, problem *P) {
  for (uint32_t i = 0; i < P->ng; i++)
    for (int t = 0; t < 5; t++) nvfp4rt_mem_free(B->ctx, P->ptr[i][t]);
  nvfp4rt_mem_free(B->ctx, P->segments);
}

/* C after one launch: +0 everywhere in M x N, the guard row untouched. */
static int check_c(bench *B, const problem *P, uint64_t *bad_inside, uint64_t *bad_guard) {
  *bad_inside = *bad_guard = 0;
  for (uint32_t i = 0; i < P->ng; i++) {
    const size_t inside = (size_t)P->g[i].m * P->g[i].n;
    uint16_t *c = malloc(P->bytes[i][4]);
    if (!c) return -1;
    nvfp4rt_status st = nvfp4rt_memcpy_dtoh(B->ctx, c, P->ptr[i][4], P->bytes[i][4]);
    if (st != NVFP4RT_STATUS_OK) {
      free(c);
      return fail_rt(st, "read C");
    }
    for (size_t e = 0; e < inside; e++) *bad_inside += c[e] != 0;
    for (size_t e = inside; e < P->bytes[i][4] / 2; e++)
      *bad_guard += c[e] != (uint16_t)(C_GARBAGE << 8 | C_GARBAGE);
    free(c);
  }
  return 0;
}

static int reset_c(bench *B, const problem *P) {
  for (uint32_t i = 0; i < P->ng; i++)
    TRY(nvfp4rt_memset_async(B->ctx, P->ptr[i][4], C_GARBAGE, P->bytes[i][4], B->stream), "reset C");
  return 0;
}

/* ---- timing ------------------------------------------------------------------------ */

typedef int (*launch_fn)(bench *B, void *what);

static int launch_plan(bench *B, void *plan) {
  TRY(nvfp4rt_plan_launch((nvfp4rt_plan *)plan, B->stream), "launch");
  return 0;
}

typedef struct stream_job { uint64_t segments; uint32_t count; } stream_job;

static int launch_stream(bench *B, void *job) {
  stream_job *j = job;
  void *args[2] = {&j->segments, &j->count};
  const unsigned grid = (unsigned)B->dev->sm_count * 8u;
  int r = B->launch(B->stream_fn, grid, 1, 1, 256, 1, 1, 0, B->stream, args, NULL);
  if (r) {
    fprintf(stderr, "nvfp4-proxy-bench: cuLaunchKernel(stream_bytes) failed: %d\n", r);
    return -1;
  }
  return 0;
}

/* Median and minimum of B->iters launches, each after an L2 flush. */
static int time_it(bench *B, launch_fn fn, void *what, double *median, double *min) {
  double t[1024];
  int n = B->iters < 1024 ? B->iters : 1024;
  for (int i = 0; i < 2; i++)
    if (fn(B, what)) return -1;
  for (int i = 0; i < n; i++) {
    TRY(nvfp4rt_memset_async(B->ctx, B->flush, (unsigned char)i, B->flush_bytes, B->stream), "flush");
    TRY(nvfp4rt_event_record(B->ctx, B->ev0, B->stream), "event");
    if (fn(B, what)) return -1;
    TRY(nvfp4rt_event_record(B->ctx, B->ev1, B->stream), "event");
    TRY(nvfp4rt_stream_synchronize(B->ctx, B->stream), "sync");
    float ms = 0;
    TRY(nvfp4rt_event_elapsed_ms(B->ctx, B->ev0, B->ev1, &ms), "elapsed");
    t[i] = ms * 1e3;
  }
  qsort(t, (size_t)n, sizeof *t, cmpd);
  *median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  *min = t[0];
  return 0;
}

/* ---- one cubin over one problem ------------------------------------------------------ */

static int run_variant(bench *B, nvfp4rt_module *mod, problem *P, uint32_t v, double *us,
                       double *us_min, int *pass, uint64_t *bad_inside, uint64_t *bad_guard) {
  nvfp4rt_plan_options po = {.variant = (int)v, .tmap_update = B->mode};
  nvfp4rt_plan *plan = NULL;
  nvfp4rt_status st = nvfp4rt_plan_create_ex(mod, P->g, P->ng, &po, &plan);
  if (st == NVFP4RT_STATUS_UNSUPPORTED) {
    *us = *us_min = -1;
    *pass = 1;
    return 0;
  }
  TRY(st, "plan");
  int rc = -1;
  if (reset_c(B, P) || launch_plan(B, plan)) goto out;
  if (nvfp4rt_stream_synchronize(B->ctx, B->stream) != NVFP4RT_STATUS_OK) goto out;
  if (check_c(B, P, bad_inside, bad_guard)) goto out;
  *pass = *bad_inside == 0 && *bad_guard == 0;
  rc = time_it(B, launch_plan, plan, us, us_min);
out:
  nvfp4rt_plan_destroy(plan);
  return rc;
}

/* Every variant of `cubin` on P: appends rows; returns the number added or -1. */
static void print_row(const row *w, double stream_us) {
  printf("  %-16s %6u %9.2f %9.2f %8.1f%% %9.2f %7s %s\n", w->variant, w->stages, w->us,
         w->us_min, 100.0 * stream_us / w->us, w->model_us, w->pass ? "PASS" : "FAIL",
         w->chosen ? "<- runtime's choice" : "");
  if (!w->pass)
    printf("    %llu elements of M x N not +0, %llu guard elements changed\n",
           (unsigned long long)w->bad_inside, (unsigned long long)w->bad_guard);
  fflush(stdout); /* a later variant that hangs or faults must not take this row along */
}

static int run_cubin(bench *B, const char *label, const char *cubin, problem *P, double stream_us,
                     row *rows, int room) {
  nvfp4rt_module *mod = NULL;
  TRY(nvfp4rt_module_load_file(B->ctx, cubin, &mod), cubin);
  const uint32_t nv = nvfp4rt_module_variant_count(mod);
  nvfp4rt_metadata_table table;
  memset(&table, 0, sizeof table);
  table.count = nv;
  for (uint32_t v = 0; v < nv; v++) table.variants[v] = *nvfp4rt_module_variant(mod, v);
  double model[NVFP4_METADATA_MAX_VARIANTS];
  const int chosen = nvfp4rt_select_variant(&table, P->g, P->ng, (uint32_t)B->dev->sm_count, model);
  int n = 0;
  for (uint32_t v = 0; v < nv && n < room; v++) {
    row *r = &rows[n];
    memset(r, 0, sizeof *r);
    const nvfp4_kernel_metadata *m = nvfp4rt_module_variant(mod, v);
    r->label = label;
    r->cubin = cubin;
    r->index = v;
    r->stages = m->stages;
    snprintf(r->kernel, sizeof r->kernel, "%s", m->kernel_name);
    /* the variant's name as the compiler spells it (KernelConfig.h) */
    snprintf(r->variant, sizeof r->variant, "%s%s_n%u%s",
             m->orientation == NVFP4_META_ORIENTATION_SWAP_AB ? "swap" : "ab",
             m->cta_group == 2 ? "2" : "", m->tile_n,
             m->epilogue == NVFP4_META_EPILOGUE_DIRECT_STORE ? "_st" : "");
    r->model_us = model[v];
    r->chosen = (int)v == chosen;
    if (run_variant(B, mod, P, v, &r->us, &r->us_min, &r->pass, &r->bad_inside, &r->bad_guard)) {
      nvfp4rt_module_destroy(mod);
      return -1;
    }
    print_row(r, stream_us);
    n++;
  }
  nvfp4rt_module_destroy(mod);
  return n;
}

/* ---- the report ------------------------------------------------------------------------ */

typedef struct case_result {
  const char *name;
  double read_bytes, write_bytes, stream_us, stream_us_min;
  int first_row, rows;
} case_result;

static const nvfp4h_shape kFixedShape = {128, 128, 256};

/* --model: the heuristic's view of each variant, from the cubins' metadata alone. */
static int model_only(int runs, const char **names, const char **cubins, int sms) {
  printf("modelled by nvfp4rt_select_variant (no GPU: nothing here is measured)\n");
  for (int r = 0; r < runs; r++) {
    nvfp4rt_metadata_table t;
    nvfp4rt_status st = nvfp4rt_metadata_read_file(cubins[r], &t);
    if (st != NVFP4RT_STATUS_OK) return fail_rt(st, cubins[r]), 2;
    nvfp4h_shape s[NVFP4H_MAX_GROUPS];
    const uint32_t n = !strcmp(names[r], "fixed") ? (s[0] = kFixedShape, 1u)
                                                  : nvfp4h_case_shapes(names[r], s, NVFP4H_MAX_GROUPS);
    if (!n) {
      fprintf(stderr, "nvfp4-proxy-bench: unknown case %s\n", names[r]);
      return 2;
    }
    nvfp4rt_group g[NVFP4H_MAX_GROUPS];
    for (uint32_t i = 0; i < n; i++) /* any aligned addresses: the model reads shapes only */
      g[i] = (nvfp4rt_group){0x100000, 0x200000, 0x300000, 0x400000, 0x500000, s[i].m, s[i].n,
                             s[i].k, s[i].n, 0, 0, 0};
    const uint32_t sm = sms > 0 ? (uint32_t)sms : t.variants[0].target_sm == 100 ? 148u : 132u;
    double cost[NVFP4_METADATA_MAX_VARIANTS];
    const int chosen = nvfp4rt_select_variant(&t, g, n, sm, cost);
    printf("\n%s (%s, %u SMs): %s\n", names[r], t.variants[0].target, sm, cubins[r]);
    for (uint32_t v = 0; v < t.count; v++)
      printf("  %-36s %9.2f us%s\n", t.variants[v].kernel_name, cost[v],
             (int)v == chosen ? "  <- chosen" : "");
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *stream_cubin = NULL, *json_path = NULL, *fixed_cubin = NULL;
  const char *case_name[MAX_RUNS], *case_cubin[MAX_RUNS];
  int runs = 0, iters = 50, peak_mib = 1024, model = 0, sms = 0;
  nvfp4rt_tmap_update mode = NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--stream") && i + 1 < argc) stream_cubin = argv[++i];
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
    else if (!strcmp(argv[i], "--fixed") && i + 1 < argc) fixed_cubin = argv[++i];
    else if (!strcmp(argv[i], "--model")) model = 1;
    else if (!strcmp(argv[i], "--sms") && i + 1 < argc) sms = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--peak-mib") && i + 1 < argc) peak_mib = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--tmap-update") && i + 1 < argc) {
      const char *m = argv[++i];
      if (!strcmp(m, "kernel-patch")) mode = NVFP4RT_TMAP_UPDATE_KERNEL_PATCH;
      else if (strcmp(m, "replace-address")) {
        fprintf(stderr, "nvfp4-proxy-bench: --tmap-update replace-address|kernel-patch\n");
        return 2;
      }
    }
    else if (strchr(argv[i], '=') && runs < MAX_RUNS) {
      char *eq = strchr(argv[i], '=');
      *eq = 0;
      case_name[runs] = argv[i];
      case_cubin[runs++] = eq + 1;
    } else {
      fprintf(stderr, "usage: nvfp4-proxy-bench --stream STREAM.cubin [--iters N] [--json FILE] "
                      "[--peak-mib M] [--tmap-update replace-address|kernel-patch] "
                      "[--fixed PROXY.cubin] CASE=PROXY.cubin ...\n"
                      "       nvfp4-proxy-bench --model [--sms N] CASE=CUBIN ...\n");
      return 2;
    }
  }
  if (model) return model_only(runs, case_name, case_cubin, sms);
  if (!stream_cubin || (!runs && !fixed_cubin) || iters < 1 || peak_mib < 1) {
    fprintf(stderr, "nvfp4-proxy-bench: need --stream and at least one CASE=cubin or --fixed\n");
    return 2;
  }
  bench B;
  memset(&B, 0, sizeof B);
  B.iters = iters;
  B.mode = mode;
  nvfp4rt_status st = nvfp4rt_context_create(0, &B.ctx);
  if (st == NVFP4RT_STATUS_DRIVER_NOT_FOUND || st == NVFP4RT_STATUS_NO_DEVICE) {
    fprintf(stderr, "nvfp4-proxy-bench: no CUDA GPU (%s); nothing was run\n", nvfp4rt_last_error_message());
    return 77;
  }
  if (st != NVFP4RT_STATUS_OK) return fail_rt(st, "context"), 2;
  B.dev = nvfp4rt_context_device_info(B.ctx);
  /* the stream kernel through the driver the runtime already loaded */
  const char *cu_path = getenv("NVFP4RT_LIBCUDA_PATH");
  void *cu = dlopen(cu_path && *cu_path ? cu_path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  pfn_load load = cu ? (pfn_load)dlsym(cu, "cuModuleLoadData") : NULL;
  pfn_get get = cu ? (pfn_get)dlsym(cu, "cuModuleGetFunction") : NULL;
  B.launch = cu ? (pfn_launch)dlsym(cu, "cuLaunchKernel") : NULL;
  void *image = NULL, *smod = NULL;
  FILE *f = fopen(stream_cubin, "rb");
  if (f) {
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    image = malloc((size_t)sz);
    if (image && fread(image, 1, (size_t)sz, f) != (size_t)sz) image = NULL;
    fclose(f);
  }
  if (!load || !get || !B.launch || !image || load(&smod, image) ||
      get(&B.stream_fn, smod, "nvfp4_stream_bytes")) {
    fprintf(stderr, "nvfp4-proxy-bench: cannot load the stream kernel from %s\n", stream_cubin);
    return 2;
  }
  if (nvfp4rt_stream_create(B.ctx, &B.stream) || nvfp4rt_event_create(B.ctx, &B.ev0) ||
      nvfp4rt_event_create(B.ctx, &B.ev1))
    return fail_rt(NVFP4RT_STATUS_CUDA_ERROR, "stream/events"), 2;
  B.flush_bytes = (size_t)(B.dev->l2_bytes > 0 ? B.dev->l2_bytes : 64 << 20) * 2;
  if (nvfp4rt_mem_alloc(B.ctx, B.flush_bytes, &B.flush)) return fail_rt(NVFP4RT_STATUS_OUT_OF_MEMORY, "flush"), 2;

  /* the DRAM peak, measured: 2 M MiB read; M MiB read + M MiB written */
  double peak_read = 0, peak_copy = 0;
  {
    const uint64_t gib = (uint64_t)peak_mib << 20;
    uint64_t big = 0, segs = 0;
    if (nvfp4rt_mem_alloc(B.ctx, 2 * gib, &big) || nvfp4rt_mem_alloc(B.ctx, 64, &segs))
      return fail_rt(NVFP4RT_STATUS_OUT_OF_MEMORY, "peak buffers"), 2;
    nvfp4rt_memset_async(B.ctx, big, 1, 2 * gib, B.stream);
    unsigned char seg[2][32];
    memset(seg, 0, sizeof seg);
    uint64_t b0 = big, b1 = big + gib, n2 = 2 * gib, n1 = gib;
    uint32_t w = 1;
    memcpy(seg[0], &b0, 8);
    memcpy(seg[0] + 8, &n2, 8);
    nvfp4rt_memcpy_htod(B.ctx, segs, seg, 32);
    stream_job job = {segs, 1};
    double med, mn;
    if (time_it(&B, launch_stream, &job, &med, &mn)) return 2;
    peak_read = (double)n2 / (mn * 1e-6) / 1e12;
    memcpy(seg[0] + 8, &n1, 8);
    memcpy(seg[1], &b1, 8);
    memcpy(seg[1] + 8, &n1, 8);
    memcpy(seg[1] + 16, &w, 4);
    nvfp4rt_memcpy_htod(B.ctx, segs, seg, 64);
    job.count = 2;
    if (time_it(&B, launch_stream, &job, &med, &mn)) return 2;
    peak_copy = (double)(2 * gib) / (mn * 1e-6) / 1e12;
    nvfp4rt_mem_free(B.ctx, big);
    nvfp4rt_mem_free(B.ctx, segs);
  }
  const double peak = peak_read > peak_copy ? peak_read : peak_copy;
  printf("device %s, %d SMs, L2 %d MiB; DRAM peak measured %.2f TB/s (read %.2f, copy %.2f), "
         "datasheet %.1f TB/s; L2 flushed before every launch, median of %d; tensor maps: %s\n",
         B.dev->name, B.dev->sm_count, B.dev->l2_bytes >> 20, peak, peak_read, peak_copy,
         DATASHEET_TBPS, iters, nvfp4rt_tmap_update_name(mode));
  fflush(stdout);

  static row rows[MAX_ROWS + NVFP4_METADATA_MAX_VARIANTS];
  case_result cases[MAX_RUNS + 1];
  int ncases = 0, nrows = 0, failed = 0;
  for (int r = 0; r <= runs; r++) {
    const int fixed = r == runs;
    if (fixed && !fixed_cubin) break;
    const char *name = fixed ? "fixed" : case_name[r];
    nvfp4h_shape shapes[NVFP4H_MAX_GROUPS];
    uint32_t ng = fixed ? 1 : nvfp4h_case_shapes(name, shapes, NVFP4H_MAX_GROUPS);
    if (fixed) shapes[0] = kFixedShape;
    if (!ng) {
      fprintf(stderr, "nvfp4-proxy-bench: unknown case %s\n", name);
      return 2;
    }
    /* one problem and one streaming ceiling per case (runs of a case share them) */
    int c = -1;
    for (int i = 0; i < ncases; i++)
      if (!strcmp(cases[i].name, name)) c = i;
    if (c >= 0 && c != ncases - 1) {
      fprintf(stderr, "nvfp4-proxy-bench: the runs of case %s must follow each other\n", name);
      return 2;
    }
    problem P;
    if (problem_alloc(&B, &P, shapes, ng)) return 2;
    if (c < 0) {
      c = ncases++;
      cases[c] = (case_result){name, P.read_bytes, P.write_bytes, 0, 0, nrows, 0};
      stream_job job = {P.segments, P.nsegments};
      if (time_it(&B, launch_stream, &job, &cases[c].stream_us, &cases[c].stream_us_min)) return 2;
      const case_result *k = &cases[c];
      const double bytes = k->read_bytes + k->write_bytes;
      printf("\n%s: %.2f MB (%.2f read, %.2f written); streaming ceiling %.2f us; bytes / "
             "datasheet peak %.2f us, / measured peak %.2f us\n",
             k->name, bytes / 1e6, k->read_bytes / 1e6, k->write_bytes / 1e6, k->stream_us,
             bytes / (DATASHEET_TBPS * 1e12) * 1e6, bytes / (peak * 1e12) * 1e6);
      printf("  %-16s %6s %9s %9s %9s %9s %7s %s\n", "variant", "stages", "proxy us", "min us",
             "eff.", "model us", "check", "");
    }
    int added = run_cubin(&B, name, fixed ? fixed_cubin : case_cubin[r], &P, cases[c].stream_us,
                          rows + nrows, MAX_ROWS + NVFP4_METADATA_MAX_VARIANTS - nrows);
    problem_free(&B, &P);
    if (added < 0) return 2;
    for (int i = nrows; i < nrows + added; i++) failed |= !rows[i].pass;
    nrows += added;
    cases[c].rows = nrows - cases[c].first_row;
  }

  if (json_path) {
    FILE *j = fopen(json_path, "w");
    if (!j) {
      fprintf(stderr, "nvfp4-proxy-bench: cannot write %s\n", json_path);
      return 2;
    }
    fprintf(j, "{\"tmap_update\": \"%s\", \"device\": \"%s\", \"sm_count\": %d, \"l2_bytes\": %d, \"iters\": %d, "
               "\"dram_peak_datasheet_tbps\": %.1f, \"dram_peak_measured_tbps\": %.4f, "
               "\"dram_read_tbps\": %.4f, \"dram_copy_tbps\": %.4f, \"cases\": [",
            nvfp4rt_tmap_update_name(mode), B.dev->name, B.dev->sm_count, B.dev->l2_bytes, iters,
            DATASHEET_TBPS, peak, peak_read, peak_copy);
    for (int c = 0; c < ncases; c++) {
      const case_result *k = &cases[c];
      fprintf(j, "%s{\"case\": \"%s\", \"read_bytes\": %.0f, \"write_bytes\": %.0f, "
                 "\"stream_us\": %.3f, \"stream_us_min\": %.3f, \"variants\": [",
              c ? ", " : "", k->name, k->read_bytes, k->write_bytes, k->stream_us, k->stream_us_min);
      for (int i = k->first_row; i < k->first_row + k->rows; i++) {
        const row *w = &rows[i];
        fprintf(j, "%s{\"variant\": \"%s\", \"kernel\": \"%s\", \"cubin\": \"%s\", \"stages\": %u, "
                   "\"us\": %.3f, \"us_min\": %.3f, \"model_us\": %.3f, \"chosen\": %s, "
                   "\"pass\": %s, \"bad_inside\": %llu, \"bad_guard\": %llu}",
                i > k->first_row ? ", " : "", w->variant, w->kernel, w->cubin, w->stages, w->us,
                w->us_min, w->model_us, w->chosen ? "true" : "false", w->pass ? "true" : "false",
                (unsigned long long)w->bad_inside, (unsigned long long)w->bad_guard);
      }
      fprintf(j, "]}");
    }
    fprintf(j, "]}\n");
    fclose(j);
  }
  nvfp4rt_mem_free(B.ctx, B.flush);
  nvfp4rt_event_destroy(B.ctx, B.ev0);
  nvfp4rt_event_destroy(B.ctx, B.ev1);
  nvfp4rt_stream_destroy(B.ctx, B.stream);
  pfn_unload unload = (pfn_unload)dlsym(cu, "cuModuleUnload");
  if (unload) unload(smod);
  free(image);
  nvfp4rt_context_destroy(B.ctx);
  dlclose(cu);
  return failed ? 1 : 0;
}
