/* fresh_sets.h — nvfp4-run's --fresh-sets mode: the whole-call cost with new pointers
 * every call, the way the GPU MODE competition timed it (15 input sets in a row, L2
 * flushed), for each tensor-map update technique of the runtime side by side, and the
 * CUDA-graph path (the same pointers every replay). */
#ifndef NVFP4_RUN_FRESH_SETS_H
#define NVFP4_RUN_FRESH_SETS_H

#include "nvfp4rt.h"
#include "nvfp4rt_host.h"

typedef struct fresh_opts {
  int sets;          /* distinct input sets cycled through (>= 2) */
  int calls;         /* host-cost calls per technique (>= 1000 for the report) */
  int e2e_calls;     /* end-to-end calls (L2 flushed before each) per technique */
  int variant;       /* forced variant index or -1 */
  int check;         /* check every set's C after each technique */
  int json;
  int threads;       /* reference GEMM threads */
  const char *only;  /* one technique by name, or NULL for all */
  const char *label; /* the case, for the report */
  int table_cache;   /* the plans' table_cache option (0: the runtime's default) */
} fresh_opts;

/* Runs the mode; set s holds the inputs of probs[s % nprobs] (one problem for a timing
 * proxy, whose check needs no values; distinct problems let a check see a set whose A/B
 * pointers the kernel missed). Returns nvfp4-run's exit code. */
int fresh_sets_run(nvfp4rt_context *ctx, nvfp4rt_module *mod, const nvfp4h_problem *probs,
                   int nprobs, const fresh_opts *o);

#endif /* NVFP4_RUN_FRESH_SETS_H */
