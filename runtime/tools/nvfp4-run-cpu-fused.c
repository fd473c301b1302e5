/* nvfp4-run-cpu-fused.c — `nvfp4-run --cpu KERNEL.so --fused ...`: runs the CPU execution
 * target of a kernel family with the fused SwiGLU + NVFP4 epilogue (epilogue =
 * "swiglu_nvfp4", built with the op's unit attribute nvfp4.debug_activations so that the
 * kernel also stores its fp32 activations h) on the CTA simulator, in either form:
 *
 *   nvfp4-run --cpu KERNEL.so --fused (--groups "m,n,k;..." | --random G | --moe E,M,N,K)
 *             [--routing random|empty|one|balanced] [--tokens T] [--seed S] [--full-range]
 *             [--ldc-pad P] [--variant V] [--sms N] [--schedule-seed S] [--threads T]
 *
 * n / N is B's 2I gate/up rows (I a multiple of 64; of 128 for a kernel built for static
 * multiples of 128); --random G draws G groups of M in 0..300, I in {64, 128, ..., 384},
 * K in {64, ..., 512}. Inputs come from the runtime's
 * generators; then in every group or expert the gate rows 16..31 of B are zeroed (feature
 * block 1 of every token is all zero: scale 0, codes +0), and the global scales cycle over
 * three kinds by group / expert: gs = 2688 / amax(h) (the usual choice), 64 times that
 * (the largest blocks saturate: scale 0x7E, codes ±6) and 10^-6 times that (subnormal and
 * zero scales). The check:
 *   - every FP4 code of C and every SFC byte equals nvfp4h_quant_block of the kernel's own
 *     activations (bit for bit);
 *   - every activation equals nvfp4h_swiglu of the reference GEMM (alpha applied) within
 *     the first-order propagation of the GEMM check's tolerance (atol 1e-3 scaled by
 *     alpha as nvfp4h_alpha_atol, rtol 1e-3 per operand) through silu(g)·u, plus 2^-20
 *     relative for exp2: |h - h_ref| <= 1.1 |u| e_g + (|g| + e_g) e_u + 2^-20 |h_ref|,
 *     e_x = atol + rtol |x|;
 *   - no byte of C or SFC outside the rows and columns the kernel owns changed (padding
 *     columns, the guard row, SFC's padding rows and columns, rows no expert owns).
 * Exit codes as nvfp4-run --cpu: 0 pass, 1 check failed, 2 error, 3 deadlock, 4 hazard. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4rt.h"
#include "nvfp4rt_host.h"
#include "nvfp4sim.h"
#include "run_common.h"
#include "run_cpu_exit.h"

int nvfp4_run_cpu_fused(int argc, char **argv);

#define FUSED_MAX_SEGS NVFP4_ABI_MAX_GROUPS

static void usage(FILE *f) {
  fprintf(f, "usage: nvfp4-run --cpu KERNEL.so --fused (--groups \"m,n,k;...\" | --random G |\n"
             "                 --moe E,M,N,K [--routing random|empty|one|balanced] [--tokens T])\n"
             "                 [--seed S] [--full-range] [--ldc-pad P] [--variant NAME|INDEX]\n"
             "                 [--sms N] [--schedule-seed S] [--threads T]\n"
             "  n, N: B's 2I gate/up rows (I a multiple of 64); the kernel must be built with\n"
             "  nvfp4.debug_activations\n"
             "exit: 0 ok, 1 check failed, 2 error, 3 deadlock, 4 hazard or illegal operation\n");
}

/* One group or expert: its inputs (for the reference), its scales, and where its rows of
 * C, SFC and the activation dump start. */
typedef struct Seg {
  nvfp4h_group_data d; /* m, n = 2I, k, a, b, sfa, sfb (ldc = n for the reference) */
  float alpha, gs;
  uint8_t *c;          /* FP4 C, row 0 of the segment (ldc / 2 bytes per row) */
  uint8_t *sfc;        /* SFC, atom row 0 of the segment */
  float *act;          /* activations, row 0 of the segment (ldc floats per row) */
  float *gu, *href;    /* the reference GEMM (rows x 2I, alpha applied) and h of it */
} Seg;

typedef struct Run {
  uint32_t nseg, ldc; /* ldc: FP4 elements per row of C and floats per row of act */
  Seg seg[FUSED_MAX_SEGS];
  uint8_t *owned_c, *owned_sfc; /* per byte of the C / SFC buffers: written by the kernel */
  uint64_t sat_scales, zero_scales; /* edge cases met: scales 0x7E (saturated) and 0x00 */
  uint64_t codes, scales, code_bad, scale_bad, act_checked, act_bad, outside, outside_bad;
  double act_max_rel;
} Run;

/* Zeroes the gate rows 16..31 of a segment's B (its feature block 1: an all-zero block). */
static void zero_gate_block(Seg *s) {
  if (s->d.n / 2 >= 32) memset(s->d.b + (size_t)16 * (s->d.k / 2), 0, (size_t)16 * (s->d.k / 2));
}

/* The segment's reference: the GEMM with alpha (rows x 2I), h = swiglu of it (rows x I)
 * and the global scale (kind = segment index mod 3, as the file header says). -1 when out
 * of memory. */
static int reference(Seg *s, uint32_t kind, int threads) {
  const uint32_t n = s->d.n, inter = n / 2, rows = s->d.m;
  s->gu = malloc(sizeof(float) * ((size_t)rows * n + 1));
  s->href = malloc(sizeof(float) * ((size_t)rows * inter + 1));
  if (!s->gu || !s->href ||
      (rows && nvfp4h_reference_gemm_ex(&s->d, s->gu, n, NVFP4H_C_F32, s->alpha, threads)))
    return -1;
  float amax = 0.0f;
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t j = 0; j < inter; j++) {
      const float v = nvfp4h_swiglu(s->gu[(size_t)r * n + j], s->gu[(size_t)r * n + inter + j]);
      s->href[(size_t)r * inter + j] = v;
      if (isfinite(v) && fabsf(v) > amax) amax = fabsf(v);
    }
  static const float factor[3] = {1.0f, 64.0f, 1e-6f};
  s->gs = (amax > 0.0f ? 2688.0f / amax : 1.0f) * factor[kind % 3];
  return 0;
}

/* Marks and checks one row of a segment: codes and scales against the reference quantizer
 * of the kernel's activations, the activations against h_ref. */
static void check_row(Run *R, Seg *s, uint32_t r, const uint8_t *c_base,
                      const uint8_t *sfc_base) {
  const uint32_t inter = s->d.n / 2, S = inter / NVFP4H_QUANT_BLOCK;
  const float *act = s->act + (size_t)r * R->ldc, *gu = s->gu, *href = s->href;
  const uint8_t *crow = s->c + (size_t)r * (R->ldc / 2);
  memset(R->owned_c + (crow - c_base), 1, inter / 2);
  double atol, rtol;
  nvfp4h_check_tolerance(NVFP4H_C_F32, &atol, &rtol);
  atol = nvfp4h_alpha_atol(atol, s->alpha);
  for (uint32_t j = 0; j < S; j++) {
    uint8_t codes[NVFP4H_QUANT_BLOCK];
    const uint8_t sf = nvfp4h_quant_block(act + (size_t)j * NVFP4H_QUANT_BLOCK, s->gs, codes);
    const size_t off = nvfp4h_sf_blocked_offset(r, j, S);
    R->owned_sfc[s->sfc + off - sfc_base] = 1;
    R->scales++;
    R->sat_scales += sf == 0x7E;
    R->zero_scales += sf == 0x00;
    if (s->sfc[off] != sf && R->scale_bad++ < 5)
      printf("  scale mismatch row %u block %u: got 0x%02x, quantizer of the activations 0x%02x\n",
             r, j, s->sfc[off], sf);
    for (uint32_t i = 0; i < NVFP4H_QUANT_BLOCK; i++) {
      const uint32_t col = j * NVFP4H_QUANT_BLOCK + i;
      const uint8_t got = (uint8_t)((crow[col / 2] >> (4 * (col % 2))) & 0xF);
      R->codes++;
      if (got != codes[i] && R->code_bad++ < 5)
        printf("  code mismatch row %u col %u: got %u, quantizer of the activations %u\n", r,
               col, got, codes[i]);
    }
  }
  for (uint32_t j = 0; j < inter; j++) {
    const double g = gu[(size_t)r * s->d.n + j], u = gu[(size_t)r * s->d.n + inter + j];
    const double eg = atol + rtol * fabs(g), eu = atol + rtol * fabs(u);
    const double want = href[(size_t)r * inter + j], got = act[j];
    const double tol = 1.1 * fabs(u) * eg + (fabs(g) + eg) * eu + ldexp(fabs(want), -20);
    const double err = fabs(got - want);
    R->act_checked++;
    if (want != 0.0 && err / fabs(want) > R->act_max_rel) R->act_max_rel = err / fabs(want);
    if (!(err <= tol) && !(isnan(got) && isnan(want)) && R->act_bad++ < 5)
      printf("  activation mismatch row %u col %u: got %.9g, swiglu of the reference %.9g "
             "(tolerance %.3g)\n", r, j, got, want, tol);
  }
}

/* Every byte of buf not owned must equal the copy taken before the launch. */
static void check_outside(Run *R, const uint8_t *buf, const uint8_t *copy, const uint8_t *owned,
                          size_t bytes, const char *what) {
  for (size_t i = 0; i < bytes; i++) {
    if (owned[i]) continue;
    R->outside++;
    if (buf[i] != copy[i] && R->outside_bad++ < 5)
      printf("  %s byte %zu outside the written region changed: 0x%02x, was 0x%02x\n", what, i,
             buf[i], copy[i]);
  }
}

static uint8_t *garbage(size_t bytes, uint64_t seed) {
  uint8_t *p = aligned_alloc(64, (bytes + 64) / 64 * 64);
  if (!p) return NULL;
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < bytes; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    p[i] = (uint8_t)x;
  }
  return p;
}

/* The problem of one run (either form) and its buffers. */
typedef struct Problem {
  nvfp4h_problem grouped;  /* --groups / --random */
  nvfp4h_moe_problem moe;  /* --moe */
  int is_moe;
  float alpha[FUSED_MAX_SEGS], gs[FUSED_MAX_SEGS];
  uint8_t *c, *sfc, *c_copy, *sfc_copy; /* arenas of every segment's C (a guard row each) and
                                           SFC, and their contents before the launch */
  float *act;
  size_t c_bytes, sfc_bytes, act_bytes, act_stride;
  void *block;
  size_t block_bytes;
  uint32_t tiles;
} Problem;

static uint32_t round_up(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

/* Arenas for C, SFC (atom rows of each segment) and the activations; `atoms` SFC atom rows
 * of `atoms_cols` atoms, C rows c_rows (guard rows included). -1 when out of memory. */
static int alloc_arenas(Problem *P, Run *R, uint64_t c_rows, uint64_t atoms, uint32_t atom_cols,
                        size_t act_bytes, uint64_t seed) {
  P->c_bytes = (size_t)c_rows * (R->ldc / 2);
  P->sfc_bytes = (size_t)atoms * atom_cols * 512 + 512; /* + a guard atom */
  P->act_bytes = act_bytes;
  P->c = garbage(P->c_bytes, seed);
  P->sfc = garbage(P->sfc_bytes, seed + 1);
  P->act = aligned_alloc(64, (act_bytes + 64) / 64 * 64);
  R->owned_c = calloc(1, P->c_bytes + 1);
  R->owned_sfc = calloc(1, P->sfc_bytes);
  if (!P->c || !P->sfc || !P->act || !R->owned_c || !R->owned_sfc) return -1;
  memset(P->act, 0xFF, act_bytes); /* NaN: an activation never written fails its check */
  return 0;
}

/* --groups / --random: the groups, their arenas and the parameter block (pointer-array
 * form). Returns 0, or -1 after printing why. */
static int setup_groups(Problem *P, Run *R, const nvfp4_kernel_metadata *meta,
                        const nvfp4h_shape *shapes, uint32_t ng, uint64_t seed, int full,
                        uint32_t ldc_pad, int threads) {
  const int with_alpha = (meta->epilogue_flags & NVFP4_META_EFLAG_ALPHA) != 0;
  nvfp4h_gen_options gopts = {0, NVFP4H_C_F32, with_alpha};
  if (nvfp4h_problem_generate_opts(shapes, ng, seed, full ? NVFP4H_DIST_FULL_RANGE : NVFP4H_DIST_COMPETITION,
                                   &gopts, &P->grouped) != 0) {
    fprintf(stderr, "nvfp4-run --cpu --fused: cannot generate inputs (K a positive multiple of 64?)\n");
    return -1;
  }
  uint32_t imax = 0, mmax = 0;
  uint64_t c_rows = 0, atoms = 0;
  for (uint32_t g = 0; g < ng; g++) {
    if (shapes[g].n / 2 > imax) imax = shapes[g].n / 2;
    if (shapes[g].m > mmax) mmax = shapes[g].m;
  }
  R->ldc = round_up(imax + ldc_pad, 32);
  const uint32_t atom_cols = (imax + 63) / 64;
  for (uint32_t g = 0; g < ng; g++) c_rows += shapes[g].m + 1u, atoms += (shapes[g].m + 127u) / 128u;
  P->act_stride = (size_t)mmax * R->ldc * sizeof(float);
  if (alloc_arenas(P, R, c_rows, atoms, atom_cols, P->act_stride * ng + 4, seed + 7) != 0) return -1;
  nvfp4rt_group groups[FUSED_MAX_SEGS];
  size_t c_off = 0, sfc_off = 0;
  R->nseg = ng;
  for (uint32_t g = 0; g < ng; g++) {
    Seg *s = &R->seg[g];
    s->d = P->grouped.groups[g];
    s->alpha = P->alpha[g] = s->d.alpha;
    s->c = P->c + c_off;
    s->sfc = P->sfc + sfc_off;
    c_off += (size_t)(s->d.m + 1u) * (R->ldc / 2);
    sfc_off += nvfp4h_sf_blocked_bytes(s->d.m, s->d.n / 32);
    zero_gate_block(s);
    if (reference(s, g, threads) != 0) return -1;
    P->gs[g] = s->gs;
    groups[g] = (nvfp4rt_group){(uint64_t)(uintptr_t)s->d.a, (uint64_t)(uintptr_t)s->d.b,
                                (uint64_t)(uintptr_t)s->d.sfa, (uint64_t)(uintptr_t)s->d.sfb,
                                (uint64_t)(uintptr_t)s->c, s->d.m, s->d.n, s->d.k, R->ldc,
                                with_alpha ? (uint64_t)(uintptr_t)&P->alpha[g] : 0,
                                (uint64_t)(uintptr_t)s->sfc, (uint64_t)(uintptr_t)&P->gs[g]};
  }
  P->block_bytes = (NVFP4_ABI_HEADER_BYTES + (size_t)nvfp4_abi_table_bytes(meta->max_groups) + 63) / 64 * 64;
  P->block = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, P->block_bytes);
  nvfp4rt_plan_layout *layout = malloc(sizeof *layout);
  char why[512];
  if (!P->block || !layout ||
      nvfp4sim_params_build(meta, groups, ng, P->block, P->block_bytes, layout, why, sizeof why)) {
    fprintf(stderr, "nvfp4-run --cpu --fused: %s\n", P->block && layout ? why : "out of host memory");
    free(layout);
    return -1;
  }
  /* the activations of table slot t at act + t * stride (KernelABI.h) */
  for (uint32_t t = 0; t < ng; t++)
    R->seg[layout->order[t]].act = (float *)(void *)((uint8_t *)P->act + P->act_stride * t);
  P->tiles = layout->total_tiles;
  free(layout);
  return 0;
}

/* --moe: the experts, the arenas and the parameter block (contiguous form). */
static int setup_moe(Problem *P, Run *R, const nvfp4_kernel_metadata *meta, const uint32_t x[4],
                     uint32_t tokens, int routing, uint64_t seed, int full, uint32_t ldc_pad,
                     int threads) {
  const int with_alpha = (meta->epilogue_flags & NVFP4_META_EFLAG_ALPHA) != 0;
  nvfp4h_gen_options gopts = {0, NVFP4H_C_F32, with_alpha};
  nvfp4h_moe_problem *p = &P->moe;
  P->is_moe = 1;
  if (x[0] != meta->max_groups || x[0] > FUSED_MAX_SEGS ||
      nvfp4h_moe_generate(x[0], x[1], x[2], x[3], tokens == UINT32_MAX ? x[1] : tokens,
                          (nvfp4h_moe_routing)routing, seed,
                          full ? NVFP4H_DIST_FULL_RANGE : NVFP4H_DIST_COMPETITION, &gopts, p) != 0) {
    fprintf(stderr, "nvfp4-run --cpu --fused: cannot generate inputs (E must be the kernel's %u, "
                    "K a positive multiple of 64, tokens at most M)\n", meta->max_groups);
    return -1;
  }
  const uint32_t inter = p->n / 2, atom_cols = (inter + 63) / 64;
  R->ldc = round_up(inter + ldc_pad, 32);
  if (alloc_arenas(P, R, (uint64_t)p->m + 1u, p->sfa_atoms, atom_cols,
                   (size_t)p->m * R->ldc * sizeof(float) + 4, seed + 7) != 0)
    return -1;
  const size_t atom_row_bytes = (size_t)(p->k / 64) * 512, sfc_row_bytes = (size_t)atom_cols * 512;
  uint64_t atom = 0;
  R->nseg = p->num_experts;
  for (uint32_t e = 0; e < p->num_experts; e++) {
    Seg *s = &R->seg[e];
    uint32_t start, rows;
    nvfp4h_moe_expert_rows(p->offsets, p->m, e, &start, &rows);
    memset(&s->d, 0, sizeof s->d);
    s->d.m = rows, s->d.n = p->n, s->d.k = p->k, s->d.ldc = p->n;
    s->d.a = p->a + (size_t)start * (p->k / 2);
    s->d.b = p->b + (size_t)e * p->n * (p->k / 2);
    s->d.sfa = p->sfa + atom * atom_row_bytes;
    s->d.sfb = p->sfb + (size_t)e * p->sfb_expert_bytes;
    s->alpha = P->alpha[e] = p->alpha[e];
    s->c = P->c + (size_t)start * (R->ldc / 2);
    s->sfc = P->sfc + atom * sfc_row_bytes;
    s->act = P->act + (size_t)start * R->ldc;
    atom += (rows + 127u) / 128u;
    zero_gate_block(s);
    if (reference(s, e, threads) != 0) return -1;
    P->gs[e] = s->gs;
  }
  nvfp4rt_moe_problem args = {
      .a = (uint64_t)(uintptr_t)p->a, .b = (uint64_t)(uintptr_t)p->b,
      .sfa = (uint64_t)(uintptr_t)p->sfa, .sfb = (uint64_t)(uintptr_t)p->sfb,
      .c = (uint64_t)(uintptr_t)P->c, .offsets = (uint64_t)(uintptr_t)p->offsets,
      .alpha = with_alpha ? (uint64_t)(uintptr_t)P->alpha : 0, .m = p->m, .n = p->n, .k = p->k,
      .ldc = R->ldc, .num_experts = p->num_experts, .sfa_atoms = p->sfa_atoms,
      .sfc = (uint64_t)(uintptr_t)P->sfc, .gs = (uint64_t)(uintptr_t)P->gs};
  char why[512];
  P->block_bytes = (meta->param_bytes + 63) / 64 * 64;
  P->block = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, P->block_bytes);
  if (!P->block || nvfp4rt_moe_validate(meta, &args) != NVFP4RT_STATUS_OK) {
    fprintf(stderr, "nvfp4-run --cpu --fused: %s\n", P->block ? nvfp4rt_last_error_message() : "out of host memory");
    return -1;
  }
  memset(P->block, 0, P->block_bytes);
  for (uint32_t t = 0; t < nvfp4rt_moe_tmap_count(meta); t++) {
    nvfp4rt_tmap_args a;
    if (nvfp4rt_moe_tmap_args(meta, &args, t, &a) != NVFP4RT_STATUS_OK ||
        (a.rank && nvfp4sim_tmap_encode(&a, (unsigned char *)P->block + NVFP4_ABI_MOE_TMAPS +
                                                NVFP4_ABI_TMAP_BYTES * t, why, sizeof why))) {
      fprintf(stderr, "nvfp4-run --cpu --fused: tensor map %u: %s\n", t, why);
      return -1;
    }
  }
  if (nvfp4rt_moe_param_pack(meta, &args, 0, 0, P->block, P->block_bytes) != NVFP4RT_STATUS_OK) {
    fprintf(stderr, "nvfp4-run --cpu --fused: %s\n", nvfp4rt_last_error_message());
    return -1;
  }
  P->tiles = (uint32_t)nvfp4rt_moe_max_tiles(meta, &args);
  P->act_stride = 0;
  return 0;
}

/* The shapes of --groups or --random G (M 0..300, I 64..384 by 64, K 64..512). */
static uint32_t fused_shapes(const char *spec, uint32_t random_groups, uint64_t seed,
                             nvfp4h_shape *shapes) {
  if (spec) return nvfp4h_parse_groups(spec, shapes, NVFP4H_MAX_GROUPS);
  uint64_t x = seed * 0x2545F4914F6CDD1Dull + 3;
  for (uint32_t g = 0; g < random_groups; g++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    shapes[g] = (nvfp4h_shape){(uint32_t)(x % 301), 128u * (1u + (uint32_t)(x >> 20) % 6u),
                               64u * (1u + (uint32_t)(x >> 40) % 8u)};
  }
  return random_groups;
}

static void free_problem(Problem *P, Run *R) {
  for (uint32_t s = 0; s < R->nseg; s++) free(R->seg[s].gu), free(R->seg[s].href);
  free(P->c), free(P->sfc), free(P->c_copy), free(P->sfc_copy), free(P->act), free(P->block);
  free(R->owned_c), free(R->owned_sfc);
  if (P->is_moe) nvfp4h_moe_problem_free(&P->moe);
  else nvfp4h_problem_free(&P->grouped);
}

static int nvfp4_run_cpu_fused_go(const char *path, const char *groups_spec,
                                  uint32_t random_groups, const char *moe, int routing,
                                  uint32_t tokens, const char *variant, uint64_t seed,
                                  uint64_t sched, uint32_t ldc_pad, uint32_t sms, int full,
                                  int threads) {
  char why[512];
  nvfp4sim_module *mod = NULL;
  if (nvfp4sim_module_load(path, &mod, why, sizeof why) != 0) {
    fprintf(stderr, "nvfp4-run --cpu --fused: %s\n", why);
    return CPU_ERROR;
  }
  const nvfp4rt_metadata_table *table = nvfp4sim_module_table(mod);
  int v = variant ? nvfp4sim_module_find_variant(mod, variant) : 0;
  if (variant && v < 0) {
    char *end;
    long vi = strtol(variant, &end, 10);
    v = *variant && !*end ? (int)vi : -1;
  }
  static Problem P;
  static Run R;
  memset(&P, 0, sizeof P);
  memset(&R, 0, sizeof R);
  int rc = CPU_ERROR;
  void *workspace = NULL; /* a native sm_90a contiguous-form kernel's expert schedules */
  if (v < 0 || v >= (int)table->count) {
    fprintf(stderr, "nvfp4-run --cpu --fused: no variant '%s'\n", variant);
    goto done;
  }
  const nvfp4_kernel_metadata *meta = &table->variants[v];
  if (!(meta->epilogue_flags & NVFP4_META_EFLAG_SWIGLU_NVFP4) ||
      !(meta->flags & NVFP4_META_FLAG_DEBUG_ACTIVATIONS) ||
      (meta->form == NVFP4_META_FORM_CONTIGUOUS) != (moe != NULL)) {
    fprintf(stderr, "nvfp4-run --cpu --fused: %s is not a %s kernel with the fused SwiGLU "
                    "epilogue built with nvfp4.debug_activations\n", meta->kernel_name,
            moe ? "nvfp4.moe_matmul (--moe)" : "nvfp4.grouped_matmul (--groups, --random)");
    goto done;
  }
  nvfp4h_shape shapes[NVFP4H_MAX_GROUPS];
  uint32_t x[4] = {0, 0, 0, 0}, ng = 0;
  if (moe ? run_parse_moe(moe, x) != 0
          : (ng = fused_shapes(groups_spec, random_groups, seed, shapes)) == 0) {
    fprintf(stderr, "nvfp4-run --cpu --fused: bad %s '%s'\n", moe ? "--moe" : "--groups",
            moe ? moe : groups_spec ? groups_spec : "");
    goto done;
  }
  if (moe ? setup_moe(&P, &R, meta, x, tokens, routing, seed, full, ldc_pad, threads)
          : setup_groups(&P, &R, meta, shapes, ng, seed, full, ldc_pad, threads))
    goto done;
  nvfp4_meta_write_u64(P.block, NVFP4_ABI_HDR_DEBUG_ACT, (uint64_t)(uintptr_t)P.act);
  nvfp4_meta_write_u64(P.block, NVFP4_ABI_HDR_DEBUG_ACT_STRIDE, P.act_stride);
  P.c_copy = malloc(P.c_bytes + 1);
  P.sfc_copy = malloc(P.sfc_bytes);
  if (!P.c_copy || !P.sfc_copy) goto done;
  memcpy(P.c_copy, P.c, P.c_bytes);
  memcpy(P.sfc_copy, P.sfc, P.sfc_bytes);

  const uint32_t grid = nvfp4rt_grid_size(meta, P.tiles, sms);
  printf("device   cpu (libnvfp4sim; %u simulated SMs, schedule seed %llu)\n", sms,
         (unsigned long long)sched);
  printf("kernel   %s [%s]  grid %u  smem %u  tiles %u  fused swiglu_nvfp4%s\n", meta->kernel_name,
         meta->target, grid, meta->dyn_smem_bytes, P.tiles,
         meta->epilogue_flags & NVFP4_META_EFLAG_ALPHA ? " x alpha" : "");
  for (uint32_t s = 0; s < R.nseg; s++)
    printf("  %s %3u  M %5u  I %5u  K %5u  gs %.6g\n", moe ? "expert" : "group ", s, R.seg[s].d.m,
           R.seg[s].d.n / 2, R.seg[s].d.k, R.seg[s].gs);
  /* what the kernel may only read */
  static nvfp4sim_range readable[4 * FUSED_MAX_SEGS + 4];
  uint32_t nr = 0;
  if (P.is_moe) {
    nvfp4h_moe_problem *p = &P.moe;
    readable[nr++] = (nvfp4sim_range){p->a, p->a_bytes, "A"};
    readable[nr++] = (nvfp4sim_range){p->b, p->b_bytes, "B"};
    readable[nr++] = (nvfp4sim_range){p->sfa, p->sfa_bytes, "SFA"};
    readable[nr++] = (nvfp4sim_range){p->sfb, p->sfb_bytes, "SFB"};
    readable[nr++] = (nvfp4sim_range){p->offsets, sizeof *p->offsets * (p->num_experts + 1u), "offsets"};
  } else {
    for (uint32_t g = 0; g < R.nseg; g++) {
      const nvfp4h_group_data *d = &P.grouped.groups[g];
      readable[nr++] = (nvfp4sim_range){d->a, d->a_bytes, "A"};
      readable[nr++] = (nvfp4sim_range){d->b, d->b_bytes, "B"};
      readable[nr++] = (nvfp4sim_range){d->sfa, d->sfa_bytes, "SFA"};
      readable[nr++] = (nvfp4sim_range){d->sfb, d->sfb_bytes, "SFB"};
    }
  }
  readable[nr++] = (nvfp4sim_range){P.alpha, sizeof P.alpha, "alpha"};
  readable[nr++] = (nvfp4sim_range){P.gs, sizeof P.gs, "gs"};
  readable[nr++] = (nvfp4sim_range){P.block, P.block_bytes, "the parameter block"};
  nvfp4sim_range writable[4] = {{P.c, P.c_bytes, "C"}, {P.sfc, P.sfc_bytes, "SFC"},
                                {P.act, P.act_bytes, "the activation dump"},
                                {NULL, (size_t)meta->workspace_per_cta * grid, "the workspace"}};
  /* the workspace a native sm_90a kernel keeps its expert schedules in (per CTA), handed
   * over full of garbage: the kernel writes it before it reads it */
  if (writable[3].bytes) {
    if (!(workspace = malloc(writable[3].bytes))) goto done;
    memset(workspace, 0xA5, writable[3].bytes);
    writable[3].base = workspace;
    nvfp4_meta_write_u64(P.block, NVFP4_ABI_HDR_WORKSPACE, (uint64_t)(uintptr_t)workspace);
    nvfp4_meta_write_u64(P.block, NVFP4_ABI_HDR_WORKSPACE_BYTES, writable[3].bytes);
  }
  nvfp4sim_options opts = {sched, 10, stderr, 0, NVFP4SIM_CLUSTERS_FORWARD, 0, readable, nr, 0};
  nvfp4sim_result res;
  memset(&res, 0, sizeof res);
  if (grid)
    nvfp4sim_launch(mod, (uint32_t)v, P.block, grid, writable, workspace ? 4 : 3, &opts, &res);
  if (res.outcome == NVFP4SIM_ERROR) {
    fprintf(stderr, "nvfp4-run --cpu --fused: %s\n", res.message);
    goto done;
  }
  printf("sim      %s  (%llu hazard reports, %.1f ms, %llu mma, %llu tma)\n",
         nvfp4sim_outcome_name(res.outcome), (unsigned long long)res.hazards, res.wall_ms,
         (unsigned long long)res.mma_ops, (unsigned long long)res.tma_ops);
  const int ran = cpu_run_finished(res.outcome);
  if (ran) {
    for (uint32_t s = 0; s < R.nseg; s++)
      for (uint32_t r = 0; r < R.seg[s].d.m; r++) check_row(&R, &R.seg[s], r, P.c, P.sfc);
    check_outside(&R, P.c, P.c_copy, R.owned_c, P.c_bytes, "C");
    check_outside(&R, P.sfc, P.sfc_copy, R.owned_sfc, P.sfc_bytes, "SFC");
  }
  const int pass = ran && !R.code_bad && !R.scale_bad && !R.act_bad && !R.outside_bad;
  if (ran)
    printf("check    %s  codes %llu/%llu and scales %llu/%llu equal to nvfp4h_quant_block of "
           "the kernel's activations; activations %llu/%llu within tolerance of swiglu of the "
           "reference (max rel err %.3g); %llu/%llu bytes outside the written C and SFC "
           "unchanged\n",
           pass ? "PASS" : "FAIL", (unsigned long long)(R.codes - R.code_bad),
           (unsigned long long)R.codes, (unsigned long long)(R.scales - R.scale_bad),
           (unsigned long long)R.scales, (unsigned long long)(R.act_checked - R.act_bad),
           (unsigned long long)R.act_checked, R.act_max_rel,
           (unsigned long long)(R.outside - R.outside_bad), (unsigned long long)R.outside);
  if (ran)
    printf("edges    %llu saturated scales (0x7E), %llu zero scales\n",
           (unsigned long long)R.sat_scales, (unsigned long long)R.zero_scales);
  rc = cpu_exit_code(res.outcome, pass);
done:
  free(workspace);
  free_problem(&P, &R);
  nvfp4sim_module_destroy(mod);
  return rc;
}

int nvfp4_run_cpu_fused(int argc, char **argv) {
  const char *path = NULL, *groups_spec = NULL, *moe = NULL, *variant = NULL;
  uint64_t seed = 1111, sched = 1;
  uint32_t ldc_pad = 0, sms = 4, random_groups = 0, tokens = UINT32_MAX;
  int full = 0, threads = 0, routing = NVFP4H_ROUTE_RANDOM;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (usage(stderr), exit(CPU_ERROR), (char *)0))
    if (!strcmp(a, "--cpu")) path = NEXT();
    else if (!strcmp(a, "--fused")) continue;
    else if (!strcmp(a, "--groups")) groups_spec = NEXT();
    else if (!strcmp(a, "--random")) random_groups = (uint32_t)run_parse_int(a, NEXT(), 1, 64);
    else if (!strcmp(a, "--moe")) moe = NEXT();
    else if (!strcmp(a, "--tokens")) tokens = (uint32_t)run_parse_int(a, NEXT(), 0, 0x7FFFFFFF);
    else if (!strcmp(a, "--routing")) {
      const char *r = NEXT();
      routing = nvfp4h_moe_routing_parse(r);
      if (routing != NVFP4H_ROUTE_RANDOM && routing != NVFP4H_ROUTE_EMPTY &&
          routing != NVFP4H_ROUTE_ONE && routing != NVFP4H_ROUTE_BALANCED) {
        fprintf(stderr, "nvfp4-run --cpu --fused: routing '%s': expected random, empty, one or "
                        "balanced\n", r);
        return CPU_ERROR;
      }
    } else if (!strcmp(a, "--variant")) variant = NEXT();
    else if (!strcmp(a, "--seed")) seed = run_parse_u64(a, NEXT());
    else if (!strcmp(a, "--schedule-seed")) sched = run_parse_u64(a, NEXT());
    else if (!strcmp(a, "--sms")) sms = (uint32_t)run_parse_int(a, NEXT(), 1, 4096);
    else if (!strcmp(a, "--ldc-pad")) ldc_pad = (uint32_t)run_parse_int(a, NEXT(), 0, 1 << 16);
    else if (!strcmp(a, "--threads")) threads = (int)run_parse_int(a, NEXT(), 0, 4096);
    else if (!strcmp(a, "--full-range")) full = 1;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
    else { fprintf(stderr, "nvfp4-run --cpu: unknown argument %s in --fused mode\n", a); usage(stderr); return CPU_ERROR; }
#undef NEXT
  }
  if (!path || (!!groups_spec + !!random_groups + !!moe) != 1) {
    usage(stderr);
    return CPU_ERROR;
  }
  return nvfp4_run_cpu_fused_go(path, groups_spec, random_groups, moe, routing, tokens, variant,
                                seed, sched, ldc_pad, sms, full, threads);
}
