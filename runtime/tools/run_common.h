/* run_common.h — small helpers shared by the nvfp4-run modes (nvfp4-run.c, the grouped
 * form; nvfp4-run-moe.c, the contiguous MoE form; the --cpu modes for option values and
 * JSON): exit codes, the status line of the last runtime error, strict option values, the
 * JSON output helpers (json_out.h), the file a CUBIN argument names ("-": standard input),
 * a monotonic clock, the median of a sample, opening the device and the cubin, --variant,
 * and the event-timed and host-timed launch loops. */
#ifndef NVFP4_RUN_COMMON_H
#define NVFP4_RUN_COMMON_H

#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_out.h"
#include "nvfp4rt.h"

enum { EXIT_PASS = 0, EXIT_CHECK_FAILED = 1, EXIT_ERROR = 2, EXIT_NO_GPU = 77 };

static inline const char *status_detail(nvfp4rt_status st) {
  static char buf[1024];
  const nvfp4rt_error *e = nvfp4rt_last_error();
  snprintf(buf, sizeof buf, "%s: %s", nvfp4rt_status_string(st), e->message);
  return buf;
}

/* Strict option values: the whole string, decimal, inside [lo, hi]; exits EXIT_ERROR with a
 * message otherwise (atoi took "abc" as 0 and "12x" as 12). */
/* A kernel with the fused SwiGLU + NVFP4 epilogue writes FP4 codes and their scales, which
 * the plain modes' generators and checks do not model: they refuse it, naming the mode
 * that runs it. Returns 1 (after the message) for such a kernel. */
static inline int run_refuse_fused(const nvfp4_kernel_metadata *m, const char *tool) {
  if (!(m->epilogue_flags & NVFP4_META_EFLAG_SWIGLU_NVFP4)) return 0;
  fprintf(stderr, "%s: '%s' has the fused SwiGLU + NVFP4 epilogue (FP4 C, SFC, gs): run it "
                  "with nvfp4-run CUBIN --fused, or on the CPU target with nvfp4-run --cpu "
                  "KERNEL.so --fused\n", tool, m->kernel_name);
  return 1;
}

static inline long long run_parse_int(const char *opt, const char *v, long long lo,
                                      long long hi) {
  char *end = NULL;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (!*v || *end || errno == ERANGE || x < lo || x > hi) {
    fprintf(stderr, "nvfp4-run: bad %s '%s' (an integer in %lld .. %lld)\n", opt, v, lo, hi);
    exit(EXIT_ERROR);
  }
  return x;
}
/* The same for an unsigned 64-bit value (decimal, 0x hexadecimal or 0 octal). */
static inline uint64_t run_parse_u64(const char *opt, const char *v) {
  char *end = NULL;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 0);
  if (!*v || *end || errno == ERANGE || *v == '-') {
    fprintf(stderr, "nvfp4-run: bad %s '%s' (an unsigned 64-bit integer)\n", opt, v);
    exit(EXIT_ERROR);
  }
  return (uint64_t)x;
}

/* --moe E,M,N,K: four decimal numbers, digits only, each at most 2^31 - 1, with
 * 1 <= E <= NVFP4_ABI_MAX_GROUPS and K a positive multiple of 64. 0 and x filled, or -1. */
static inline int run_parse_moe(const char *v, uint32_t x[4]) {
  const char *e = v;
  for (int j = 0; v && j < 4; j++) {
    if (*e < '0' || *e > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long y = strtoull(e, &end, 10);
    if (errno == ERANGE || y > 0x7FFFFFFFull || (j < 3 ? *end != ',' : *end != 0)) return -1;
    x[j] = (uint32_t)y;
    e = end + (j < 3);
  }
  return v && x[0] >= 1 && x[0] <= NVFP4_ABI_MAX_GROUPS && x[3] != 0 && x[3] % 64 == 0 ? 0 : -1;
}

/* --alpha-values V[,V...]: 1..RUN_MAX_ALPHAS fp32 values, decimal or C hexadecimal floats
 * (0, -1.5, 0x1p115, 0x1p-120, ...), the whole string; group or expert g gets value
 * g mod count in place of the generated alpha. Returns the count; exits EXIT_ERROR with a
 * message otherwise. */
#define RUN_MAX_ALPHAS 64
static inline int run_parse_alphas(const char *v, float *out) {
  int n = 0;
  for (const char *p = v; n < RUN_MAX_ALPHAS;) {
    char *end = NULL;
    errno = 0;
    const float x = strtof(p, &end);
    if (end == p || errno == ERANGE || x - x != 0.0f || (*end != ',' && *end != 0)) break;
    out[n++] = x;
    if (!*end) return n;
    p = end + 1;
  }
  fprintf(stderr, "nvfp4-run: bad --alpha-values '%s' (1 to %d finite fp32 values, comma "
                  "separated)\n", v, RUN_MAX_ALPHAS);
  exit(EXIT_ERROR);
}
/* Puts --alpha-values into alpha[0..count) (no list: unchanged); -1 (message printed)
 * when the kernel was compiled without alpha. */
static inline int run_apply_alphas(const float *values, int n, int with_alpha, float *alpha,
                                   size_t stride, uint32_t count) {
  if (n == 0) return 0;
  if (!with_alpha) {
    fprintf(stderr, "nvfp4-run: --alpha-values needs a kernel compiled with alpha\n");
    return -1;
  }
  for (uint32_t g = 0; g < count; g++)
    *(float *)((char *)alpha + stride * g) = values[g % (uint32_t)n];
  return 0;
}

/* The file the runtime reads for a CUBIN argument: "-" is standard input. */
static inline const char *run_cubin_file(const char *path) {
  return strcmp(path, "-") != 0 ? path : "/dev/stdin";
}

static inline double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v (n values) and returns its median; 0 for n <= 0. */
static inline double median(double *v, int n) {
  if (n <= 0) return 0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Inside a mode's main function (an int rc and a done: label): print the runtime's last
 * error, exit status EXIT_ERROR, clean up. */
#define FAIL_RT(st)                                                                         \
  do {                                                                                      \
    fprintf(stderr, "nvfp4-run: %s\n", status_detail(st));                                  \
    rc = EXIT_ERROR;                                                                        \
    goto done;                                                                              \
  } while (0)

/* Creates the context of device `ordinal` and loads `cubin`: 0, or EXIT_NO_GPU (the line
 * saying so printed) when there is no driver or device, or EXIT_ERROR (error printed). */
static inline int run_open(int ordinal, const char *cubin, nvfp4rt_context **ctx,
                           nvfp4rt_module **mod) {
  nvfp4rt_status st = nvfp4rt_context_create(ordinal, ctx);
  if (st == NVFP4RT_STATUS_DRIVER_NOT_FOUND || st == NVFP4RT_STATUS_NO_DEVICE) {
    fprintf(stderr, "nvfp4-run: no CUDA GPU available (%s); nothing was run (exit %d)\n",
            status_detail(st), EXIT_NO_GPU);
    return EXIT_NO_GPU;
  }
  if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_module_load_file(*ctx, run_cubin_file(cubin), mod);
  if (st == NVFP4RT_STATUS_OK) return 0;
  fprintf(stderr, "nvfp4-run: %s\n", status_detail(st));
  return EXIT_ERROR;
}

/* --variant: an index or a name (the kernel name, or its "_<variant>" suffix); -1 (message
 * printed) when the cubin has no such variant. */
static inline int run_variant(const nvfp4rt_module *mod, const char *name) {
  char *end;
  long vi = strtol(name, &end, 10);
  int v = *name && !*end ? (int)vi : nvfp4rt_module_find_variant(mod, name);
  if (v >= 0 && v < (int)nvfp4rt_module_variant_count(mod)) return v;
  fprintf(stderr, "nvfp4-run: the cubin has no variant '%s' (nvfp4-run --info lists them)\n", name);
  return -1;
}

/* Device time of a launch: `warmup` untimed launches, then `iters` launches each between
 * two events (the L2 flushed first, by a memset of twice its size, when flush_l2); times[i]
 * in microseconds. The events and the flush buffer live for the call only. */
typedef nvfp4rt_status (*run_launch_fn)(void *arg, void *stream);
static inline nvfp4rt_status run_event_times(nvfp4rt_context *ctx, void *stream, int flush_l2,
                                             run_launch_fn launch, void *arg, int warmup,
                                             int iters, double *times) {
  void *ev0 = NULL, *ev1 = NULL;
  uint64_t flush_buf = 0;
  size_t flush_bytes = 0;
  nvfp4rt_status st = nvfp4rt_event_create(ctx, &ev0);
  if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_event_create(ctx, &ev1);
  if (st == NVFP4RT_STATUS_OK && flush_l2) {
    const nvfp4rt_device_info *dev = nvfp4rt_context_device_info(ctx);
    flush_bytes = (size_t)(dev->l2_bytes > 0 ? dev->l2_bytes : 64 << 20) * 2;
    st = nvfp4rt_mem_alloc(ctx, flush_bytes, &flush_buf);
  }
  for (int i = 0; st == NVFP4RT_STATUS_OK && i < warmup; i++) st = launch(arg, stream);
  for (int i = 0; st == NVFP4RT_STATUS_OK && i < iters; i++) {
    float ms = 0;
    if (flush_l2) st = nvfp4rt_memset_async(ctx, flush_buf, (unsigned char)i, flush_bytes, stream);
    if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_event_record(ctx, ev0, stream);
    if (st == NVFP4RT_STATUS_OK) st = launch(arg, stream);
    if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_event_record(ctx, ev1, stream);
    if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_stream_synchronize(ctx, stream);
    if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_event_elapsed_ms(ctx, ev0, ev1, &ms);
    times[i] = ms * 1e3;
  }
  if (flush_buf) nvfp4rt_mem_free(ctx, flush_buf);
  if (ev1) nvfp4rt_event_destroy(ctx, ev1);
  if (ev0) nvfp4rt_event_destroy(ctx, ev0);
  return st;
}

/* Host cost of a launch: `iters` calls, host[i] the microseconds call i took; the stream
 * is drained every 32 launches (and at the end) so that the launch queue never blocks a
 * timed call. */
static inline nvfp4rt_status run_host_times(nvfp4rt_context *ctx, void *stream,
                                            run_launch_fn launch, void *arg, int iters,
                                            double *host) {
  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  for (int i = 0; st == NVFP4RT_STATUS_OK && i < iters; i++) {
    if (i % 32 == 0 && (st = nvfp4rt_stream_synchronize(ctx, stream)) != NVFP4RT_STATUS_OK) break;
    double t0 = now_us();
    st = launch(arg, stream);
    host[i] = now_us() - t0;
  }
  return st == NVFP4RT_STATUS_OK ? nvfp4rt_stream_synchronize(ctx, stream) : st;
}

/* The MoE mode: nvfp4-run CUBIN --moe E,M,N,K ... (nvfp4-run-moe.c). */
int nvfp4_run_moe(int argc, char **argv);

#endif /* NVFP4_RUN_COMMON_H */
