/* nvfp4rt_host.h — host-only helpers of libnvfp4rt (no GPU, no driver): FP4 E2M1 / FP8
 * E4M3FN / FP16 codecs, the blocked scale-factor layout of PROBLEM.md §3, a deterministic
 * input generator for the GPU MODE nvfp4_group_gemm cases, the C reference GEMM and the
 * PROBLEM.md tolerance check. C11. */
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

/* ---- scale-factor layout (PROBLEM.md §3) ------------------------------------------- */

/* Byte offset of SF[r, j] in the blocked layout of a tensor with S scale columns
 * (S = K / 16). */
NVFP4RT_API size_t nvfp4h_sf_blocked_offset(uint32_t r, uint32_t j, uint32_t S);
/* Bytes of the blocked tensor: ceil(R/128) * ceil(S/4) * 512. */
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

#define NVFP4H_MAX_GROUPS 64

/* Shapes of a named case: "test:0" .. "test:9" (PROBLEM.md §5 tests, in table order) and
 * "B1" .. "B4". Returns the group count, 0 for an unknown name. */
NVFP4RT_API uint32_t nvfp4h_case_shapes(const char *name, nvfp4h_shape *shapes,
                                        uint32_t capacity);
/* Parses "m,n,k;m,n,k;..." ; returns the group count, 0 on a syntax error. */
NVFP4RT_API uint32_t nvfp4h_parse_groups(const char *spec, nvfp4h_shape *shapes,
                                         uint32_t capacity);
/* Ragged random shapes: M in [1, max_m], N in [1, max_n] (any value, not tile multiples),
 * K a multiple of 64 in [64, max_k]. */
NVFP4RT_API void nvfp4h_random_shapes(uint64_t seed, uint32_t groups, uint32_t max_m,
                                      uint32_t max_n, uint32_t max_k, nvfp4h_shape *shapes);

typedef enum nvfp4h_distribution {
  /* PROBLEM.md §4: A/B bytes random & 0xBB; SF random integers in {1, 2} as E4M3 (0x38,
   * 0x40); C pre-filled with random 16-bit patterns (NaN/inf included). */
  NVFP4H_DIST_COMPETITION = 0,
  /* All 16 FP4 codes uniformly; each scale is an E4M3 with a uniformly random exponent in
   * [h-6, h] (below 2^-6 as subnormals) and a random mantissa, h chosen per group and
   * tensor so that 36 * K * max(SFA) * max(SFB) <= 65504: every fp16 output is finite
   * whatever the data (h_a + h_b = floor(log2(65504 / (36 K))) - 2, split evenly). */
  NVFP4H_DIST_FULL_RANGE = 1
} nvfp4h_distribution;

typedef struct nvfp4h_group_data {
  uint32_t m, n, k, ldc;   /* ldc = N rounded up to a multiple of 8 */
  uint8_t *a, *b;          /* m*k/2, n*k/2 bytes */
  uint8_t *sfa, *sfb;      /* blocked layout, sfa_bytes / sfb_bytes */
  size_t a_bytes, b_bytes, sfa_bytes, sfb_bytes, c_bytes;
  uint16_t *c;             /* m*ldc fp16, pre-filled with garbage */
} nvfp4h_group_data;

typedef struct nvfp4h_problem {
  uint32_t num_groups;
  nvfp4h_group_data groups[NVFP4H_MAX_GROUPS];
} nvfp4h_problem;

/* Generates a problem; returns 0 on success, -1 on allocation failure / bad shapes
 * (K must be a positive multiple of 32). Deterministic in (shapes, seed, dist). */
NVFP4RT_API int nvfp4h_problem_generate(const nvfp4h_shape *shapes, uint32_t num_groups,
                                        uint64_t seed, nvfp4h_distribution dist,
                                        nvfp4h_problem *out);
NVFP4RT_API void nvfp4h_problem_free(nvfp4h_problem *p);

/* ---- reference GEMM -------------------------------------------------------------------- */

/* C[m*ldc + n] = fp16(sum over k ascending, fp32 accumulate, of
 *   (A[m,k]*SFA[m,k/16]) * (B[n,k]*SFB[n,k/16])) — each product is exact in fp32.
 * threads <= 0: use the number of online CPUs (at least 2). Returns 0, -1 on OOM. */
NVFP4RT_API int nvfp4h_reference_gemm(const nvfp4h_group_data *g, uint16_t *c, uint32_t ldc,
                                      int threads);
/* The same sum accumulated in double, not rounded: out[m*n_cols + n] (ldc = n). Slow,
 * single-threaded; meant for small cases. */
NVFP4RT_API int nvfp4h_reference_gemm_f64(const nvfp4h_group_data *g, double *out);

/* ---- tolerance check (PROBLEM.md §1) ---------------------------------------------------- */

#define NVFP4H_CHECK_ATOL 1e-3
#define NVFP4H_CHECK_RTOL 1e-3
#define NVFP4H_CHECK_MAX_REPORTED 8

typedef struct nvfp4h_mismatch {
  uint32_t group, row, col;
  float got, ref;
} nvfp4h_mismatch;

typedef struct nvfp4h_check_result {
  uint64_t checked, mismatches;
  double max_abs, max_rel;   /* over finite pairs; rel over ref != 0 */
  uint32_t reported;
  nvfp4h_mismatch first[NVFP4H_CHECK_MAX_REPORTED];
} nvfp4h_check_result;

NVFP4RT_API void nvfp4h_check_init(nvfp4h_check_result *r);
/* Accumulates into r: |got - ref| <= atol + rtol*|ref| elementwise; NaN vs non-NaN and
 * inf vs anything but the same inf fail. got/ref are fp16 with row strides ldg/ldr. */
NVFP4RT_API void nvfp4h_check_fp16(const uint16_t *got, uint32_t ldg, const uint16_t *ref,
                                   uint32_t ldr, uint32_t rows, uint32_t cols, uint32_t group,
                                   double atol, double rtol, nvfp4h_check_result *r);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4RT_HOST_H */
