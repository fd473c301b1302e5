/* host_case.h — one grouped-matmul problem on the device, seen as the MLIR memref descriptors
 * a host-lowered function takes (nvfp4rt_gen.h): inputs from the runtime's generator
 * (docs/format.md, "Inputs"), device buffers, descriptors, and the check of C against the C
 * reference GEMM (tolerances and "nothing written outside C's M x N region"). Shared by the C
 * driver (main.c) and the mlir-runner harness (runner_harness.c). */
#ifndef NVFP4_EXAMPLE_HOST_CASE_H
#define NVFP4_EXAMPLE_HOST_CASE_H

#include "nvfp4rt.h"
#include "nvfp4rt_gen.h"
#include "nvfp4rt_host.h"

#define HOST_CASE_MAX_GROUPS 8

typedef struct host_case {
  nvfp4rt_context *ctx;          /* NULL: descriptors only, no device memory */
  uint32_t num_groups;
  nvfp4h_problem problem;
  uint64_t dev[HOST_CASE_MAX_GROUPS][5]; /* A, B, SFA, SFB, C (C with its guard row) */
  nvfp4rt_memref_2d a[HOST_CASE_MAX_GROUPS], b[HOST_CASE_MAX_GROUPS], c[HOST_CASE_MAX_GROUPS];
  nvfp4rt_memref_5d sfa[HOST_CASE_MAX_GROUPS], sfb[HOST_CASE_MAX_GROUPS];
} host_case;

/* Generates the problem (seed, C row stride N + ldc_pad rounded up to 8) and, when ctx is
 * not NULL, uploads it (C pre-filled with the generator's garbage). Descriptors point at
 * the device buffers, or hold NULL pointers without a context. */
nvfp4rt_status host_case_create(host_case *hc, nvfp4rt_context *ctx, const nvfp4h_shape *shapes,
                                uint32_t num_groups, uint64_t seed, uint32_t ldc_pad);
/* Writes the garbage back into every C (so the next launch is checked on its own). */
nvfp4rt_status host_case_reset_c(host_case *hc);
/* Reads C back and checks every group against the reference; 1 when it passed. */
int host_case_check(host_case *hc, nvfp4h_check_result *result);
void host_case_destroy(host_case *hc);

#endif
