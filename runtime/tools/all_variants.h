/* all_variants.h — nvfp4-run --all-variants: the case uploaded once, then every variant of
 * the cubin's kernel family forced in turn and checked, C reset to its garbage before each
 * (a timing proxy: C = +0 inside M x N; otherwise the reference GEMM, computed once), and
 * nothing outside M x N written. One process checks a whole family. */
#ifndef NVFP4_RUN_ALL_VARIANTS_H
#define NVFP4_RUN_ALL_VARIANTS_H

#include "nvfp4rt.h"
#include "nvfp4rt_host.h"

/* groups[g] holds the device pointers of prob->groups[g] (C with its guard). Returns
 * nvfp4-run's exit code: 0 when every variant passed, 1 when one failed, 2 on errors. */
int all_variants_run(nvfp4rt_context *ctx, nvfp4rt_module *mod, const nvfp4h_problem *prob,
                     const nvfp4rt_group *groups, nvfp4rt_tmap_update mode, int threads,
                     int json);

#endif /* NVFP4_RUN_ALL_VARIANTS_H */
