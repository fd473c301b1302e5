/* fused_case.h — the cases and checks of nvfp4-run's fused mode (the SwiGLU + NVFP4
 * epilogue), shared by the CPU target (nvfp4-run-cpu-fused.c) and the GPU
 * (nvfp4-run-fused.c): the inputs of either op form with their edge cases (an all-zero
 * feature block per token, global scales that saturate or underflow the block scales), the
 * reference (GEMM with alpha, then SwiGLU), host arenas for C, SFC and the activation dump,
 * the buffers a launch reads and writes, and the checks:
 *   - every FP4 code of C and every SFC byte equals nvfp4h_quant_block of the kernel's own
 *     activations (bit for bit; kernels built with nvfp4.debug_activations);
 *   - every activation equals nvfp4h_swiglu of the reference GEMM within the first-order
 *     propagation of the GEMM check's tolerance (fused_case.c says how);
 *   - a timing proxy (tcgen05 free, accumulators +0) writes codes 0 and scales 0;
 *   - no byte of C or SFC outside the rows and columns the kernel owns changed.
 * Pointers handed to the kernel go through a translation (fused_addr_fn): the identity on
 * the CPU target, the device copy of each buffer on the GPU. */
#ifndef NVFP4_RUN_FUSED_CASE_H
#define NVFP4_RUN_FUSED_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "nvfp4rt.h"
#include "nvfp4rt_host.h"

#define FUSED_MAX_SEGS NVFP4_ABI_MAX_GROUPS

/* One group or expert: its inputs (for the reference), its scales, and where its rows of
 * C, SFC and the activation dump start in the host arenas. */
typedef struct FusedSeg {
  nvfp4h_group_data d; /* m, n = 2I, k, a, b, sfa, sfb (ldc = n for the reference) */
  float alpha, gs;
  uint8_t *c;          /* FP4 C, row 0 of the segment (ldc / 2 bytes per row) */
  uint8_t *sfc;        /* SFC, atom row 0 of the segment */
  float *act;          /* activations, row 0 of the segment (ldc floats per row) */
  float *gu, *href;    /* the reference GEMM (rows x 2I, alpha applied) and h of it */
} FusedSeg;

/* The problem of one run (either form): inputs, segments, host arenas and check counts. */
typedef struct FusedCase {
  nvfp4h_problem grouped; /* --groups / --random */
  nvfp4h_moe_problem moe; /* --moe */
  int is_moe, with_alpha;
  uint32_t nseg, ldc; /* ldc: FP4 elements per row of C and floats per row of act */
  FusedSeg seg[FUSED_MAX_SEGS];
  float alpha[FUSED_MAX_SEGS], gs[FUSED_MAX_SEGS];
  uint8_t *c, *sfc, *c_copy, *sfc_copy; /* arenas of every segment's C (a guard row each) and
                                           SFC, and their contents before the launch */
  float *act;
  size_t c_bytes, sfc_bytes, act_bytes, act_stride;
  uint8_t *owned_c, *owned_sfc; /* per byte of the C / SFC arenas: written by the kernel */
  uint64_t sat_scales, zero_scales; /* edge cases met: scales 0x7E (saturated) and 0x00 */
  uint64_t codes, scales, code_bad, scale_bad, act_checked, act_bad, outside, outside_bad;
  double act_max_rel;
} FusedCase;

/* What the run asks for (the options both modes share). */
typedef struct FusedSpec {
  const char *groups;      /* --groups "m,n,k;..." (n = 2I) */
  uint32_t random_groups;  /* --random G */
  const char *moe;         /* --moe E,M,N,K */
  int routing;             /* --routing (nvfp4h_moe_routing) */
  uint32_t tokens;         /* --tokens (UINT32_MAX: M) */
  uint64_t seed;
  uint32_t ldc_pad;
  int full, threads;
  int no_reference;        /* no reference GEMM (runs that check nothing): gs = 1 */
} FusedSpec;

/* One buffer a launch reads or writes: host copy, size, name, and whether the kernel
 * writes it. */
typedef struct FusedBuffer {
  void *host;
  size_t bytes;
  const char *name;
  int written;
} FusedBuffer;
#define FUSED_MAX_BUFFERS (4 * FUSED_MAX_SEGS + 8)

/* The address the kernel sees for a host pointer into one of the buffers. */
typedef uint64_t (*fused_addr_fn)(void *arg, const void *host);

/* Builds the case of `spec` for kernels like `meta` (their form and alpha): inputs,
 * references, arenas (C and SFC full of garbage, the dump NaN). `who` prefixes messages.
 * 0, or -1 after printing why. */
int fused_case_setup(FusedCase *fc, const FusedSpec *spec, const nvfp4_kernel_metadata *meta,
                     const char *who);
/* The pointer-array form's group descriptors, addresses translated by `addr`. */
void fused_case_groups(const FusedCase *fc, fused_addr_fn addr, void *arg, nvfp4rt_group *out);
/* Places the pointer-array form's activations: table slot t (layout->order[t] is the
 * group) at act + t * act_stride. */
void fused_case_place_act(FusedCase *fc, const nvfp4rt_plan_layout *layout);
/* The contiguous form's launch description, addresses translated by `addr`. */
nvfp4rt_moe_problem fused_case_moe_args(const FusedCase *fc, fused_addr_fn addr, void *arg);
/* The buffers of a launch (inputs, alpha and gs read; C, SFC and the dump written).
 * Returns their count (at most FUSED_MAX_BUFFERS). */
uint32_t fused_case_buffers(FusedCase *fc, FusedBuffer *out);
/* Copies C and SFC before the launch (for the outside check). -1 when out of memory. */
int fused_case_snapshot(FusedCase *fc);
/* Prints the segments ("group" / "expert" lines). */
void fused_case_print(const FusedCase *fc);
/* Checks a finished launch: `activations` 1 (debug kernels: codes and scales bit for bit
 * against the quantizer of the dumped activations, the activations against the reference)
 * or 0 (timing proxies: every code and scale 0). Prints the "check" and "edges" lines and
 * returns 1 on pass. */
int fused_case_check(FusedCase *fc, int activations);
void fused_case_free(FusedCase *fc);

#endif /* NVFP4_RUN_FUSED_CASE_H */
