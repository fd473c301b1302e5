/* run_common.h — small helpers shared by the nvfp4-run modes (nvfp4-run.c, the grouped
 * form; nvfp4-run-moe.c, the contiguous MoE form): exit codes, the status line of the
 * last runtime error, a monotonic clock and the median of a sample. */
#ifndef NVFP4_RUN_COMMON_H
#define NVFP4_RUN_COMMON_H

#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nvfp4rt.h"

enum { EXIT_PASS = 0, EXIT_CHECK_FAILED = 1, EXIT_ERROR = 2, EXIT_NO_GPU = 77 };

static inline const char *status_detail(nvfp4rt_status st) {
  static char buf[1024];
  const nvfp4rt_error *e = nvfp4rt_last_error();
  snprintf(buf, sizeof buf, "%s: %s", nvfp4rt_status_string(st), e->message);
  return buf;
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

/* The MoE mode: nvfp4-run CUBIN --moe E,M,N,K ... (nvfp4-run-moe.c). */
int nvfp4_run_moe(int argc, char **argv);

#endif /* NVFP4_RUN_COMMON_H */
