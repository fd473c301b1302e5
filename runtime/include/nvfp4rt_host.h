/* nvfp4rt_host.h — host-only helpers of libnvfp4rt (no GPU, no driver): FP4 E2M1 / FP8
 * E4M3FN / FP16 codecs, the blocked scale-factor layout (docs/format.md), a deterministic
 * input generator for the GPU MODE nvfp4_group_gemm cases (plus edge-case shapes and
 * padded C strides), the C reference GEMM, the tolerance check (docs/format.md) and the check
 * that nothing outside C's M x N region was written, and the reference of the fused SwiGLU +
 * NVFP4 re-quantization epilogue. C11. */
#ifndef NVFP4RT_HOST_H
#define NVFP4RT_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef NVFP4RT_API
#define NVFP4RT_API __attribute__((visibility("default")))
#endif

/* ---- element codecs --------------------------------------------------------------- */

/* FP4 E2M1: codes 0..7 = 0, 0.5, 1, 1.5, 2, 3, 4, 6; 8..15 their negatives (8 = -0). */
NVFP4RT_API float nvfp4h_fp4_decode(uint8_t code);
/* Round-to-nearest-even onto the E2M1 grid (ties go to the code with an even mantissa
 * bit, e.g. 0.25 -> 0, 0.75 -> 1.0, 2.5 -> 2, 5 -> 4); magnitudes above 6 (and +-inf)
 * saturate to +-6; the sign of zero is kept; NaN encodes as +0 (E2M1 has no NaN). */
NVFP4RT_API uint8_t nvfp4h_fp4_encode(float x);

/* FP8 E4M3FN: bias 7, subnormals, no inf, 0x7F/0xFF are NaN, max finite 448. */
NVFP4RT_API float nvfp4h_e4m3_decode(uint8_t code);
/* Round-to-nearest-even; finite magnitudes above 448 and +-inf saturate to +-448
 * (0x7E/0xFE); NaN encodes as 0x7F (sign kept: 0xFF for negative NaN). */
NVFP4RT_API uint8_t nvfp4h_e4m3_encode(float x);

/* IEEE binary16. float -> half rounds to nearest even, overflows to inf, keeps NaN
 * (quiet, payload top bits kept). */
NVFP4RT_API float nvfp4h_half_to_float(uint16_t h);
NVFP4RT_API uint16_t nvfp4h_float_to_half(float f);

/* bfloat16: float -> bf16 rounds to nearest even, keeps inf and NaN (quiet). */
NVFP4RT_API float nvfp4h_bf16_to_float(uint16_t h);
NVFP4RT_API uint16_t nvfp4h_float_to_bf16(float f);

/* C element types (the numbering of KernelABI.h's NVFP4_META_C_*). */
typedef enum nvfp4h_c_type {
  NVFP4H_C_F16 = 0,
  NVFP4H_C_BF16 = 1,
  NVFP4H_C_F32 = 2
} nvfp4h_c_type;
NVFP4RT_API uint32_t nvfp4h_c_bytes(nvfp4h_c_type t);   /* 2, 2, 4 */
NVFP4RT_API const char *nvfp4h_c_type_name(nvfp4h_c_type t); /* "f16", "bf16", "f32" */
/* Element i of a C buffer of type t, as float; float v rounded to t into element i. */
NVFP4RT_API float nvfp4h_c_load(const void *c, size_t i, nvfp4h_c_type t);
NVFP4RT_API void nvfp4h_c_store(void *c, size_t i, nvfp4h_c_type t, float v);

/* ---- scale-factor layout (docs/format.md, "The blocked scale-factor layout") ------- */

/* Byte offset of SF[r, j] in the blocked layout of a tensor with S scale columns
 * (S = K / 16). */
NVFP4RT_API size_t nvfp4h_sf_blocked_offset(uint32_t r, uint32_t j, uint32_t S);
/* Bytes of the blocked tensor: ceil(R/128) * ceil(S/4) * 512 (SIZE_MAX when that does not
 * fit a size_t: an allocation of it fails). */
NVFP4RT_API size_t nvfp4h_sf_blocked_bytes(uint32_t R, uint32_t S);
/* plain is [R][S] row-major; blocked is nvfp4h_sf_blocked_bytes(R, S) bytes, padding zero. */
NVFP4RT_API void nvfp4h_sf_to_blocked(const uint8_t *plain, uint32_t R, uint32_t S,
                                      uint8_t *blocked);
NVFP4RT_API void nvfp4h_sf_from_blocked(const uint8_t *blocked, uint32_t R, uint32_t S,
                                        uint8_t *plain);

/* ---- deterministic PRNG -------------------------------------------------------------- */

/* SplitMix64 (Steele, Lea, Flood 2014): state += 0x9E3779B97F4A7C15, then the
 * xor-shift-multiply finaliser. Every tensor of a problem gets its own stream seeded with
 * nvfp4h_stream_seed(seed, group, tensor). */
typedef struct nvfp4h_rng {
  uint64_t state;
} nvfp4h_rng;
NVFP4RT_API uint64_t nvfp4h_rng_next(nvfp4h_rng *rng);
NVFP4RT_API uint64_t nvfp4h_stream_seed(uint64_t seed, uint32_t group, uint32_t tensor);

/* ---- problems ---------------------------------------------------------------------------- */

typedef struct nvfp4h_shape {
  uint32_t m, n, k;
} nvfp4h_shape;

#define NVFP4H_MAX_GROUPS 1024

/* Shapes of a named case: "test:0" .. "test:9" (docs/format.md's test cases, in table order)
 * and "B1" .. "B4". Returns the group count, 0 for an unknown name. */
NVFP4RT_API uint32_t nvfp4h_case_shapes(const char *name, nvfp4h_shape *shapes,
                                        uint32_t capacity);
/* Parses "m,n,k;m,n,k;..." ; returns the group count, 0 on a syntax error. */
NVFP4RT_API uint32_t nvfp4h_parse_groups(const char *spec, nvfp4h_shape *shapes,
                                         uint32_t capacity);
/* Ragged random shapes: M in [1, max_m], N in [1, max_n] (any value, not tile multiples),
 * K a multiple of 64 in [64, max_k]. */
NVFP4RT_API void nvfp4h_random_shapes(uint64_t seed, uint32_t groups, uint32_t max_m,
                                      uint32_t max_n, uint32_t max_k, nvfp4h_shape *shapes);
/* Edge-case shapes (nvfp4-run --case edge:G), deterministic in (seed, groups). Group i
 * takes category i % 6, its free sizes drawn from a SplitMix64 stream of the seed:
 *   0: ragged M in [1, 300] and N in [1, 600], neither a multiple of 8, K = 64
 *   1: empty group M = 0 (N ragged in [1, 600]), K = 64
 *   2: ragged M and N as in 0, K = 192
 *   3: empty group N = 0 (M ragged in [1, 300]), K = 192
 *   4: tiny M and N in [1, 15], neither a multiple of 8, K a multiple of 64 in [64, 1024]
 *   5: ragged M and N as in 0, K a multiple of 64 in [64, 1024] that is not a multiple
 *      of 256 (64 + 256 j, 128 + 256 j or 192 + 256 j)
 * So edge:2 already holds an empty group and edge:4 (or more) holds M = 0, N = 0, ragged
 * M and N, K = 64 and K = 192. Every K is a multiple of 64 (the kernels' K granule). */
NVFP4RT_API void nvfp4h_edge_shapes(uint64_t seed, uint32_t groups, nvfp4h_shape *shapes);

typedef enum nvfp4h_distribution {
  /* docs/format.md, "Inputs": A/B bytes random & 0xBB; SF random integers in {1, 2} as E4M3
   * (0x38, 0x40); C pre-filled with random 16-bit patterns (NaN/inf included). */
  NVFP4H_DIST_COMPETITION = 0,
  /* All 16 FP4 codes uniformly; each scale is an E4M3 with a uniformly random exponent in
   * [h-6, h] (below 2^-6 as subnormals) and a random mantissa, h chosen per group and
   * tensor so that 36 * K * max(SFA) * max(SFB) <= 65504: every fp16 output is finite
   * whatever the data (h_a + h_b = floor(log2(65504 / (36 K))) - 2, split evenly). */
  NVFP4H_DIST_FULL_RANGE = 1
} nvfp4h_distribution;

typedef struct nvfp4h_group_data {
  uint32_t m, n, k, ldc;   /* ldc = N + ldc_pad rounded up to a multiple of 8, at least 8 */
  uint8_t *a, *b;          /* m*k/2, n*k/2 bytes */
  uint8_t *sfa, *sfb;      /* blocked layout, sfa_bytes / sfb_bytes */
  size_t a_bytes, b_bytes, sfa_bytes, sfb_bytes, c_bytes; /* c_bytes = m*ldc*element bytes */
  /* m*ldc + c_guard elements of c_type, all pre-filled with garbage: the M x ldc matrix
   * the kernel gets, then a guard row of c_guard = ldc elements (device C buffers should
   * hold it too, see nvfp4h_check_outside). The garbage of the matrix does not depend on
   * the guard. The buffer is c_alloc_bytes raw bytes (two uint16_t per f32 element). */
  uint16_t *c;
  uint32_t c_guard;        /* trailing guard elements after the M x ldc matrix (= ldc) */
  size_t c_alloc_bytes;    /* (m*ldc + c_guard) * element bytes: never 0 */
  nvfp4h_c_type c_type;    /* C's element type (f16 unless generated with options) */
  float alpha;             /* C = alpha * A B^T (1 unless generated with alpha) */
} nvfp4h_group_data;

typedef struct nvfp4h_problem {
  uint32_t num_groups;
  nvfp4h_group_data groups[NVFP4H_MAX_GROUPS];
} nvfp4h_problem;

/* Generates a problem; returns 0 on success, NVFP4H_GENERATE_BAD_SHAPE (-1) for bad
 * arguments (K must be a positive multiple of 32, 1..NVFP4H_MAX_GROUPS groups, out not
 * NULL) and
 * NVFP4H_GENERATE_NO_MEMORY (-2) when a host allocation fails. Deterministic in (shapes,
 * seed, dist). */
#define NVFP4H_GENERATE_BAD_SHAPE (-1)
#define NVFP4H_GENERATE_NO_MEMORY (-2)
NVFP4RT_API int nvfp4h_problem_generate(const nvfp4h_shape *shapes, uint32_t num_groups,
                                        uint64_t seed, nvfp4h_distribution dist,
                                        nvfp4h_problem *out);
/* The same with ldc = N + ldc_pad rounded up to a multiple of 8 (at least 8): ldc_pad > 0
 * makes C's row stride exceed N so that writes into the padding columns are caught.
 * ldc_pad = 0 is nvfp4h_problem_generate (identical data); A, B, SFA and SFB never depend
 * on ldc_pad. ldc_pad must be <= 1 << 20 (NVFP4H_GENERATE_BAD_SHAPE otherwise). */
NVFP4RT_API int nvfp4h_problem_generate_ex(const nvfp4h_shape *shapes, uint32_t num_groups,
                                           uint64_t seed, nvfp4h_distribution dist,
                                           uint32_t ldc_pad, nvfp4h_problem *out);
/* Generator options: ldc_pad as in nvfp4h_problem_generate_ex, C's element type, and a
 * per-group alpha drawn uniformly from [0.5, 1) (else alpha = 1). A, B, SFA, SFB and the
 * garbage pattern of C (as 16-bit words) do not depend on c_type or alpha. */
typedef struct nvfp4h_gen_options {
  uint32_t ldc_pad;
  nvfp4h_c_type c_type;
  int alpha;
} nvfp4h_gen_options;
NVFP4RT_API int nvfp4h_problem_generate_opts(const nvfp4h_shape *shapes, uint32_t num_groups,
                                             uint64_t seed, nvfp4h_distribution dist,
                                             const nvfp4h_gen_options *options,
                                             nvfp4h_problem *out);
NVFP4RT_API void nvfp4h_problem_free(nvfp4h_problem *p);

/* ---- reference GEMM -------------------------------------------------------------------- */

/* C[m*ldc + n] = fp16(sum over k ascending, fp32 accumulate, of
 *   (A[m,k]*SFA[m,k/16]) * (B[n,k]*SFB[n,k/16])) — each product is exact in fp32.
 * threads <= 0: use the number of online CPUs (at least 2). Returns 0, -1 on OOM. */
NVFP4RT_API int nvfp4h_reference_gemm(const nvfp4h_group_data *g, uint16_t *c, uint32_t ldc,
                                      int threads);
/* The same sum times `alpha` (in fp32, after the accumulation, as the kernel does) rounded
 * to `c_type`, into element m*ldc + n of `c`. nvfp4h_reference_gemm is c_type f16, alpha 1. */
NVFP4RT_API int nvfp4h_reference_gemm_ex(const nvfp4h_group_data *g, void *c, uint32_t ldc,
                                         nvfp4h_c_type c_type, float alpha, int threads);
/* The same sum accumulated in double, not rounded: out[m*n_cols + n] (ldc = n). Slow,
 * single-threaded; meant for small cases. */
NVFP4RT_API int nvfp4h_reference_gemm_f64(const nvfp4h_group_data *g, double *out);

/* ---- tolerance check (docs/format.md, "Checking a result") ------------------------------ */

#define NVFP4H_CHECK_ATOL 1e-3
#define NVFP4H_CHECK_RTOL 1e-3
#define NVFP4H_CHECK_MAX_REPORTED 8

typedef struct nvfp4h_mismatch {
  uint32_t group, row, col;
  float got, ref;
} nvfp4h_mismatch;

/* An element outside a group's M x N region that changed: row >= M is the guard row. */
typedef struct nvfp4h_outside_write {
  uint32_t group, row, col;
  uint32_t got, want;        /* raw element bits: now, and the garbage written before launch */
} nvfp4h_outside_write;

typedef struct nvfp4h_check_result {
  uint64_t checked, mismatches;
  double max_abs, max_rel;   /* over finite pairs; rel over ref != 0 */
  uint32_t reported;
  nvfp4h_mismatch first[NVFP4H_CHECK_MAX_REPORTED];
  /* nvfp4h_check_outside: elements outside M x N compared / changed ("the kernel wrote
   * outside C's M x N region"); a result with outside_writes > 0 is a failure too. */
  uint64_t outside_checked, outside_writes;
  uint32_t outside_reported;
  nvfp4h_outside_write first_outside[NVFP4H_CHECK_MAX_REPORTED];
} nvfp4h_check_result;

NVFP4RT_API void nvfp4h_check_init(nvfp4h_check_result *r);
/* Accumulates into r: |got - ref| <= atol + rtol*|ref| elementwise; NaN vs non-NaN and
 * inf vs anything but the same inf fail. got/ref are fp16 with row strides ldg/ldr. */
NVFP4RT_API void nvfp4h_check_fp16(const uint16_t *got, uint32_t ldg, const uint16_t *ref,
                                   uint32_t ldr, uint32_t rows, uint32_t cols, uint32_t group,
                                   double atol, double rtol, nvfp4h_check_result *r);
/* Accumulates into r the elements outside C's rows x cols region that differ bitwise
 * from `orig` (the garbage C held before the launch): columns cols..ld-1 of every row
 * (padding; all of a row when cols = 0) and the `guard` elements after the last row
 * (reported as row `rows + i / ld`, column `i % ld`). got and orig hold rows*ld + guard
 * elements. Returns the number of changed elements found by this call. */
NVFP4RT_API uint64_t nvfp4h_check_outside(const uint16_t *got, const uint16_t *orig,
                                          uint32_t rows, uint32_t cols, uint32_t ld,
                                          size_t guard, uint32_t group,
                                          nvfp4h_check_result *r);
/* The tolerance of a C type: the competition's atol = rtol = 1e-3 for f16 and f32; for bf16
 * (8 significant bits) rtol = 8e-3, one unit in the last place. */
NVFP4RT_API void nvfp4h_check_tolerance(nvfp4h_c_type t, double *atol, double *rtol);
/* The absolute tolerance of C = alpha x sum: the sum's, times |alpha| when |alpha| > 1 (the
 * summation-order error scales with it) or |alpha| < 2^-8 (a tiny C would pass any fixed
 * atol: alpha 0 must give exact zeros); `atol` itself for |alpha| in [2^-8, 1]. */
NVFP4RT_API double nvfp4h_alpha_atol(double atol, float alpha);
/* nvfp4h_check_fp16 for elements of any C type (compared as floats). */
NVFP4RT_API void nvfp4h_check_typed(const void *got, uint32_t ldg, const void *ref, uint32_t ldr,
                                    uint32_t rows, uint32_t cols, nvfp4h_c_type t,
                                    uint32_t group, double atol, double rtol,
                                    nvfp4h_check_result *r);
/* nvfp4h_check_outside for elements of `elem_bytes` bytes (compared bitwise). */
NVFP4RT_API uint64_t nvfp4h_check_outside_ex(const void *got, const void *orig, uint32_t rows,
                                             uint32_t cols, uint32_t ld, size_t guard,
                                             uint32_t elem_bytes, uint32_t group,
                                             nvfp4h_check_result *r);
/* Whole-group check: `got` is the group's device C read back with its guard
 * (d->c_alloc_bytes), `ref` the reference in ldc layout (d->m x d->ldc, of d->c_type);
 * runs nvfp4h_check_typed on M x N (the tolerance of d->c_type) and the outside check
 * against d->c. */
NVFP4RT_API void nvfp4h_check_group(const nvfp4h_group_data *d, const uint16_t *got,
                                    const uint16_t *ref, uint32_t group,
                                    nvfp4h_check_result *r);
/* The check of a timing-proxy kernel (NVFP4_META_FLAG_PROXY), whose accumulators read as
 * zero: every element of the group's M x N region must be +0 (0x0000, counted in
 * `checked`; any other bits are a mismatch, reported with ref 0), and nothing outside it
 * may differ from d->c (nvfp4h_check_outside). C's garbage must hold no +0 inside M x N
 * (nvfp4h_problem_c_without_zeros), or an element the kernel skipped would pass. */
NVFP4RT_API void nvfp4h_check_group_zero(const nvfp4h_group_data *d, const uint16_t *got,
                                         uint32_t group, nvfp4h_check_result *r);
/* Replaces every +0 (0x0000) in each group's pre-filled C (matrix and guard) by -0
 * (0x8000), so that a zero check can tell written elements from untouched ones. */
NVFP4RT_API void nvfp4h_problem_c_without_zeros(nvfp4h_problem *p);
/* 1 when r has neither tolerance mismatches nor outside writes. */
NVFP4RT_API int nvfp4h_check_passed(const nvfp4h_check_result *r);

/* ---- the contiguous (MoE) form ---------------------------------------------------------- */

/* Routings of M tokens over E experts (nvfp4h_moe_route). The adversarial ones give
 * offsets the kernel must survive (KernelABI.h, docs/kernel-sm100a.md): */
typedef enum nvfp4h_moe_routing {
  NVFP4H_ROUTE_RANDOM = 0,   /* every token to a uniformly random expert */
  NVFP4H_ROUTE_EMPTY = 1,    /* random over every third expert only: most experts empty */
  NVFP4H_ROUTE_ONE = 2,      /* all tokens on one (random) expert */
  NVFP4H_ROUTE_BALANCED = 3, /* M / E tokens each (the first M mod E experts one more) */
  NVFP4H_ROUTE_DECREASING = 4, /* random, then some offsets lowered below their predecessor */
  NVFP4H_ROUTE_BEYOND = 5,   /* random, then the last offsets (and one inner) past M, and
                                one negative */
  NVFP4H_ROUTE_COUNT_
} nvfp4h_moe_routing;
/* "random", "empty", "one", "balanced", "decreasing", "beyond"; NULL for others. */
NVFP4RT_API const char *nvfp4h_moe_routing_name(nvfp4h_moe_routing r);
/* Parses a routing name; -1 when unknown. */
NVFP4RT_API int nvfp4h_moe_routing_parse(const char *name);
/* Writes E + 1 offsets routing `tokens` (<= m) tokens with routing r, deterministic in
 * (r, seed, E, m, tokens). offsets[0] = 0 and offsets[E] = tokens except for the
 * adversarial routings. */
NVFP4RT_API void nvfp4h_moe_route(nvfp4h_moe_routing r, uint64_t seed, uint32_t experts,
                                  uint32_t m, uint32_t tokens, int32_t *offsets);
/* Expert e's rows as the kernel sees them: offsets clamped to [0, m], no rows when the
 * end is below the start. */
NVFP4RT_API void nvfp4h_moe_expert_rows(const int32_t *offsets, uint32_t m, uint32_t e,
                                        uint32_t *start, uint32_t *rows);

/* A generated contiguous-form problem. */
typedef struct nvfp4h_moe_problem {
  uint32_t num_experts, m, n, k, ldc;  /* m: rows of A and C (the token capacity) */
  nvfp4h_c_type c_type;
  uint32_t sfa_atoms;                  /* nvfp4_abi_moe_sfa_atoms(m, E) */
  int32_t *offsets;                    /* E + 1 (the current routing) */
  float *alpha;                        /* E (all 1 without alpha) */
  uint8_t *a, *b, *sfb;                /* m*k/2, E*n*k/2, E blocked n-row tensors */
  uint8_t *sfa_plain;                  /* m x k/16 E4M3, one row per token */
  uint8_t *sfa;                        /* blocked, laid out for the current routing */
  uint16_t *c;                         /* m*ldc + c_guard elements of c_type, garbage */
  size_t a_bytes, b_bytes, sfa_bytes, sfb_bytes, sfb_expert_bytes, c_bytes, c_alloc_bytes;
  uint32_t c_guard;
} nvfp4h_moe_problem;
/* Generates A, B, SFB, the per-token scales, alpha (options->alpha) and C's garbage for E
 * experts, m token rows, N, K, then routes `tokens` tokens (routing, seed) and lays out
 * SFA. Returns 0, NVFP4H_GENERATE_BAD_SHAPE for bad sizes, NVFP4H_GENERATE_NO_MEMORY when
 * the host cannot hold the problem (an allocation failed, or a size beyond 64 bits). */
NVFP4RT_API int nvfp4h_moe_generate(uint32_t experts, uint32_t m, uint32_t n, uint32_t k,
                                    uint32_t tokens, nvfp4h_moe_routing routing, uint64_t seed,
                                    nvfp4h_distribution dist, const nvfp4h_gen_options *options,
                                    nvfp4h_moe_problem *out);
/* Re-lays out SFA after p->offsets changed: expert e's token scales at atom rows from the
 * sum over j < e of ceil(rows_j / 128) (rows as nvfp4h_moe_expert_rows), zero elsewhere. */
NVFP4RT_API void nvfp4h_moe_layout_sfa(nvfp4h_moe_problem *p);
NVFP4RT_API void nvfp4h_moe_problem_free(nvfp4h_moe_problem *p);
/* Checks C read back from the device (`got`, c_alloc_bytes) against the C reference of
 * every expert (as nvfp4h_reference_gemm_ex): a row claimed by one expert must match its
 * result, a row claimed by several (offsets that overlap) must match one of them element
 * by element, rows claimed by none, padding columns and the guard row must be unchanged.
 * Returns 0, -1 on allocation failure. */
NVFP4RT_API int nvfp4h_moe_check(const nvfp4h_moe_problem *p, const void *got, int threads,
                                 nvfp4h_check_result *r);

/* ---- the fused SwiGLU + NVFP4 epilogue (docs/format.md, "Re-quantization to NVFP4") ---- */

/* Elements per block scale of the re-quantized activation. */
#define NVFP4H_QUANT_BLOCK 16

/* silu(g) * u in fp32, in this order: t = g * -log2(e) (log2(e) rounded to fp32,
 * 0x3FB8AA3B); e = exp2f(t); d = 1 + e; s = g / d; s * u (each step rounded to fp32;
 * -ffp-contract=off). g and u already carry alpha. A GPU's exp2 is not libm's (ex2.approx),
 * so targets agree on this value only to a few ulps; the quantizer below is bit-exact given
 * the same fp32 inputs. */
NVFP4RT_API float nvfp4h_swiglu(float g, float u);
/* Quantizes one block of NVFP4H_QUANT_BLOCK fp32 values x with the global scale gs:
 *   amax = max |x_i| (NaN if any x_i is NaN); s = (amax / 6) * gs;
 *   scale = nvfp4h_e4m3_encode(s) (RNE, saturating to 448, NaN -> 0x7F);
 *   sd = decode(scale); when sd is 0 or NaN every code is 0 (+0); else r = gs / sd and
 *   codes[i] = nvfp4h_fp4_encode(x_i * r) (RNE, saturating at +-6, NaN -> +0, -0 kept).
 * Writes one code per byte (0..15) into codes[0..15]; returns the scale byte. */
NVFP4RT_API uint8_t nvfp4h_quant_block(const float *x, float gs, uint8_t *codes);
/* Quantizes a rows x cols fp32 matrix x (row stride ldx, cols a multiple of 16) into packed
 * FP4 (fp4: rows x cols/2 bytes, element 2i in the low nibble, docs/format.md) and its block
 * scales into the blocked layout sf of a cols/16-column scale tensor, x's row r at blocked
 * row sf_row0 + r. Returns 0, -1 when cols is not a multiple of 16. */
NVFP4RT_API int nvfp4h_quantize_rows(const float *x, size_t ldx, uint32_t rows, uint32_t cols,
                                     float gs, uint8_t *fp4, uint8_t *sf, uint32_t sf_row0);
/* The contiguous MoE form: x is m x cols (row stride cols), expert e owns the rows
 * nvfp4h_moe_expert_rows gives; its packed rows go to the same rows of fp4 (m x cols/2) and
 * its scales to the blocked tensor sf (sf_bytes) from atom row sum_{j<e} ceil(rows_j/128),
 * the SFA layout of nvfp4.moe_matmul. Rows no expert owns and padding bytes are not
 * written. Returns 0, -1 when cols is not a multiple of 16 or sf is too small. */
NVFP4RT_API int nvfp4h_moe_quantize(const float *x, uint32_t m, uint32_t cols,
                                    const int32_t *offsets, uint32_t experts, float gs,
                                    uint8_t *fp4, uint8_t *sf, size_t sf_bytes);
/* h[r * inter + j] = nvfp4h_swiglu(gate, up) of row r of gu (row stride ldgu elements of
 * type t): gate = column j, up = column inter + j. With t = f32 holding alpha * the fp32
 * sums this is the fused epilogue's activation; with t = bf16 it is the unfused path's
 * (the up-projection stored as bf16, then SwiGLU). */
NVFP4RT_API void nvfp4h_swiglu_rows(const void *gu, nvfp4h_c_type t, size_t ldgu, uint32_t rows,
                                    uint32_t inter, float *h);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4RT_HOST_H */
