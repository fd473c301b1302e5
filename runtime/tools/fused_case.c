/* fused_case.c — the cases and checks of nvfp4-run's fused mode on either target
 * (fused_case.h). Inputs come from the runtime's generators; then in every group or expert
 * the gate rows 16..31 of B are zeroed (feature block 1 of every token is all zero: scale
 * 0, codes +0), and the global scales cycle over three kinds by group / expert: gs = 2688 /
 * amax(h) (the usual choice), 64 times that (the largest blocks saturate: scale 0x7E, codes
 * ±6) and 10^-6 times that (subnormal and zero scales). The activation tolerance is the
 * first-order propagation of the GEMM check's (atol 1e-3 scaled by alpha as
 * nvfp4h_alpha_atol, rtol 1e-3 per operand) through silu(g)·u, plus 2^-20 relative for
 * exp2: |h - h_ref| <= 1.1 |u| e_g + (|g| + e_g) e_u + 2^-20 |h_ref|, e_x = atol + rtol |x|. */
#define _POSIX_C_SOURCE 200809L
#include "fused_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_common.h"

/* Zeroes the gate rows 16..31 of a segment's B (its feature block 1: an all-zero block). */
static void zero_gate_block(FusedSeg *s) {
  if (s->d.n / 2 >= 32) memset(s->d.b + (size_t)16 * (s->d.k / 2), 0, (size_t)16 * (s->d.k / 2));
}

/* The segment's reference: the GEMM with alpha (rows x 2I), h = swiglu of it (rows x I)
 * and the global scale (kind = segment index mod 3, as the file header says). -1 when out
 * of memory. */
static int reference(FusedSeg *s, uint32_t kind, const FusedSpec *spec) {
  const uint32_t n = s->d.n, inter = n / 2, rows = s->d.m;
  const int threads = spec->threads;
  if (spec->no_reference) {
    s->gs = 1.0f;
    return 0;
  }
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

/* Marks one row of a segment as the kernel's and checks it: with `activations`, codes and
 * scales against the reference quantizer of the kernel's activations and the activations
 * against h_ref; without (a timing proxy), every code and scale 0. */
static void check_row(FusedCase *fc, FusedSeg *s, uint32_t r, int activations) {
  const uint32_t inter = s->d.n / 2, S = inter / NVFP4H_QUANT_BLOCK;
  const float *act = s->act + (size_t)r * fc->ldc, *gu = s->gu, *href = s->href;
  const uint8_t *crow = s->c + (size_t)r * (fc->ldc / 2);
  memset(fc->owned_c + (crow - fc->c), 1, inter / 2);
  double atol, rtol;
  nvfp4h_check_tolerance(NVFP4H_C_F32, &atol, &rtol);
  atol = nvfp4h_alpha_atol(atol, s->alpha);
  for (uint32_t j = 0; j < S; j++) {
    uint8_t codes[NVFP4H_QUANT_BLOCK] = {0};
    const uint8_t sf =
        activations ? nvfp4h_quant_block(act + (size_t)j * NVFP4H_QUANT_BLOCK, s->gs, codes) : 0;
    const size_t off = nvfp4h_sf_blocked_offset(r, j, S);
    fc->owned_sfc[s->sfc + off - fc->sfc] = 1;
    fc->scales++;
    fc->sat_scales += sf == 0x7E;
    fc->zero_scales += sf == 0x00;
    if (s->sfc[off] != sf && fc->scale_bad++ < 5)
      printf("  scale mismatch row %u block %u: got 0x%02x, %s 0x%02x\n", r, j, s->sfc[off],
             activations ? "quantizer of the activations" : "a proxy writes", sf);
    for (uint32_t i = 0; i < NVFP4H_QUANT_BLOCK; i++) {
      const uint32_t col = j * NVFP4H_QUANT_BLOCK + i;
      const uint8_t got = (uint8_t)((crow[col / 2] >> (4 * (col % 2))) & 0xF);
      fc->codes++;
      if (got != codes[i] && fc->code_bad++ < 5)
        printf("  code mismatch row %u col %u: got %u, %s %u\n", r, col, got,
               activations ? "quantizer of the activations" : "a proxy writes", codes[i]);
    }
  }
  for (uint32_t j = 0; activations && j < inter; j++) {
    const double g = gu[(size_t)r * s->d.n + j], u = gu[(size_t)r * s->d.n + inter + j];
    const double eg = atol + rtol * fabs(g), eu = atol + rtol * fabs(u);
    const double want = href[(size_t)r * inter + j], got = act[j];
    const double tol = 1.1 * fabs(u) * eg + (fabs(g) + eg) * eu + ldexp(fabs(want), -20);
    const double err = fabs(got - want);
    fc->act_checked++;
    if (want != 0.0 && err / fabs(want) > fc->act_max_rel) fc->act_max_rel = err / fabs(want);
    if (!(err <= tol) && !(isnan(got) && isnan(want)) && fc->act_bad++ < 5)
      printf("  activation mismatch row %u col %u: got %.9g, swiglu of the reference %.9g "
             "(tolerance %.3g)\n", r, j, got, want, tol);
  }
}

/* Every byte of buf not owned must equal the copy taken before the launch. */
static void check_outside(FusedCase *fc, const uint8_t *buf, const uint8_t *copy,
                          const uint8_t *owned, size_t bytes, const char *what) {
  for (size_t i = 0; i < bytes; i++) {
    if (owned[i]) continue;
    fc->outside++;
    if (buf[i] != copy[i] && fc->outside_bad++ < 5)
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

static int out_of_memory(const char *who) {
  fprintf(stderr, "%s: out of host memory\n", who);
  return -1;
}

static uint32_t round_up(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

/* Arenas for C, SFC (atom rows of each segment) and the activations; `atoms` SFC atom rows
 * of `atoms_cols` atoms, C rows c_rows (guard rows included). -1 when out of memory. */
static int alloc_arenas(FusedCase *fc, uint64_t c_rows, uint64_t atoms, uint32_t atom_cols,
                        size_t act_bytes, uint64_t seed) {
  fc->c_bytes = (size_t)c_rows * (fc->ldc / 2);
  fc->sfc_bytes = (size_t)atoms * atom_cols * 512 + 512; /* + a guard atom */
  fc->act_bytes = act_bytes;
  fc->c = garbage(fc->c_bytes, seed);
  fc->sfc = garbage(fc->sfc_bytes, seed + 1);
  fc->act = aligned_alloc(64, (act_bytes + 64) / 64 * 64);
  fc->owned_c = calloc(1, fc->c_bytes + 1);
  fc->owned_sfc = calloc(1, fc->sfc_bytes);
  if (!fc->c || !fc->sfc || !fc->act || !fc->owned_c || !fc->owned_sfc) return -1;
  memset(fc->act, 0xFF, act_bytes); /* NaN: an activation never written fails its check */
  return 0;
}

/* The shapes of --groups or --random G (M 0..300, I 64..384 by 64, K 64..512). */
static uint32_t fused_shapes(const FusedSpec *spec, nvfp4h_shape *shapes) {
  if (spec->groups) return nvfp4h_parse_groups(spec->groups, shapes, NVFP4H_MAX_GROUPS);
  uint64_t x = spec->seed * 0x2545F4914F6CDD1Dull + 3;
  for (uint32_t g = 0; g < spec->random_groups; g++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    shapes[g] = (nvfp4h_shape){(uint32_t)(x % 301), 128u * (1u + (uint32_t)(x >> 20) % 6u),
                               64u * (1u + (uint32_t)(x >> 40) % 8u)};
  }
  return spec->random_groups;
}

/* --groups / --random: the groups and their arenas (pointer-array form). */
static int setup_groups(FusedCase *fc, const FusedSpec *spec, const char *who) {
  nvfp4h_shape shapes[NVFP4H_MAX_GROUPS];
  const uint32_t ng = fused_shapes(spec, shapes);
  if (ng == 0) {
    fprintf(stderr, "%s: bad --groups '%s'\n", who, spec->groups ? spec->groups : "");
    return -1;
  }
  nvfp4h_gen_options gopts = {0, NVFP4H_C_F32, fc->with_alpha};
  if (nvfp4h_problem_generate_opts(shapes, ng, spec->seed,
                                   spec->full ? NVFP4H_DIST_FULL_RANGE : NVFP4H_DIST_COMPETITION,
                                   &gopts, &fc->grouped) != 0) {
    fprintf(stderr, "%s: cannot generate inputs (K a positive multiple of 64?)\n", who);
    return -1;
  }
  uint32_t imax = 0, mmax = 0;
  uint64_t c_rows = 0, atoms = 0;
  for (uint32_t g = 0; g < ng; g++) {
    if (shapes[g].n / 2 > imax) imax = shapes[g].n / 2;
    if (shapes[g].m > mmax) mmax = shapes[g].m;
  }
  fc->ldc = round_up(imax + spec->ldc_pad, 32);
  const uint32_t atom_cols = (imax + 63) / 64;
  for (uint32_t g = 0; g < ng; g++) c_rows += shapes[g].m + 1u, atoms += (shapes[g].m + 127u) / 128u;
  fc->act_stride = (size_t)mmax * fc->ldc * sizeof(float);
  if (alloc_arenas(fc, c_rows, atoms, atom_cols, fc->act_stride * ng + 4, spec->seed + 7) != 0)
    return out_of_memory(who);
  size_t c_off = 0, sfc_off = 0;
  fc->nseg = ng;
  for (uint32_t g = 0; g < ng; g++) {
    FusedSeg *s = &fc->seg[g];
    s->d = fc->grouped.groups[g];
    s->alpha = fc->alpha[g] = s->d.alpha;
    s->c = fc->c + c_off;
    s->sfc = fc->sfc + sfc_off;
    c_off += (size_t)(s->d.m + 1u) * (fc->ldc / 2);
    sfc_off += nvfp4h_sf_blocked_bytes(s->d.m, s->d.n / 32);
    zero_gate_block(s);
    if (reference(s, g, spec) != 0) return out_of_memory(who);
    fc->gs[g] = s->gs;
  }
  return 0;
}

/* --moe: the experts and the arenas (contiguous form). */
static int setup_moe(FusedCase *fc, const FusedSpec *spec, const nvfp4_kernel_metadata *meta,
                     const char *who) {
  uint32_t x[4] = {0, 0, 0, 0};
  if (run_parse_moe(spec->moe, x) != 0) {
    fprintf(stderr, "%s: bad --moe '%s'\n", who, spec->moe);
    return -1;
  }
  nvfp4h_gen_options gopts = {0, NVFP4H_C_F32, fc->with_alpha};
  nvfp4h_moe_problem *p = &fc->moe;
  fc->is_moe = 1;
  if (x[0] != meta->max_groups || x[0] > FUSED_MAX_SEGS ||
      nvfp4h_moe_generate(x[0], x[1], x[2], x[3], spec->tokens == UINT32_MAX ? x[1] : spec->tokens,
                          (nvfp4h_moe_routing)spec->routing, spec->seed,
                          spec->full ? NVFP4H_DIST_FULL_RANGE : NVFP4H_DIST_COMPETITION, &gopts,
                          p) != 0) {
    fprintf(stderr, "%s: cannot generate inputs (E must be the kernel's %u, K a positive "
                    "multiple of 64, tokens at most M)\n", who, meta->max_groups);
    return -1;
  }
  const uint32_t inter = p->n / 2, atom_cols = (inter + 63) / 64;
  fc->ldc = round_up(inter + spec->ldc_pad, 32);
  if (alloc_arenas(fc, (uint64_t)p->m + 1u, p->sfa_atoms, atom_cols,
                   (size_t)p->m * fc->ldc * sizeof(float) + 4, spec->seed + 7) != 0)
    return out_of_memory(who);
  const size_t atom_row_bytes = (size_t)(p->k / 64) * 512, sfc_row_bytes = (size_t)atom_cols * 512;
  uint64_t atom = 0;
  fc->nseg = p->num_experts;
  for (uint32_t e = 0; e < p->num_experts; e++) {
    FusedSeg *s = &fc->seg[e];
    uint32_t start, rows;
    nvfp4h_moe_expert_rows(p->offsets, p->m, e, &start, &rows);
    memset(&s->d, 0, sizeof s->d);
    s->d.m = rows, s->d.n = p->n, s->d.k = p->k, s->d.ldc = p->n;
    s->d.a = p->a + (size_t)start * (p->k / 2);
    s->d.b = p->b + (size_t)e * p->n * (p->k / 2);
    s->d.sfa = p->sfa + atom * atom_row_bytes;
    s->d.sfb = p->sfb + (size_t)e * p->sfb_expert_bytes;
    s->alpha = fc->alpha[e] = p->alpha[e];
    s->c = fc->c + (size_t)start * (fc->ldc / 2);
    s->sfc = fc->sfc + atom * sfc_row_bytes;
    s->act = fc->act + (size_t)start * fc->ldc;
    atom += (rows + 127u) / 128u;
    zero_gate_block(s);
    if (reference(s, e, spec) != 0) return out_of_memory(who);
    fc->gs[e] = s->gs;
  }
  fc->act_stride = 0;
  return 0;
}

int fused_case_setup(FusedCase *fc, const FusedSpec *spec, const nvfp4_kernel_metadata *meta,
                     const char *who) {
  memset(fc, 0, sizeof *fc);
  fc->with_alpha = (meta->epilogue_flags & NVFP4_META_EFLAG_ALPHA) != 0;
  return spec->moe ? setup_moe(fc, spec, meta, who) : setup_groups(fc, spec, who);
}

void fused_case_groups(const FusedCase *fc, fused_addr_fn addr, void *arg, nvfp4rt_group *out) {
  for (uint32_t g = 0; g < fc->nseg; g++) {
    const FusedSeg *s = &fc->seg[g];
    out[g] = (nvfp4rt_group){addr(arg, s->d.a), addr(arg, s->d.b), addr(arg, s->d.sfa),
                             addr(arg, s->d.sfb), addr(arg, s->c), s->d.m, s->d.n, s->d.k,
                             fc->ldc, fc->with_alpha ? addr(arg, &fc->alpha[g]) : 0,
                             addr(arg, s->sfc), addr(arg, &fc->gs[g])};
  }
}

void fused_case_place_act(FusedCase *fc, const nvfp4rt_plan_layout *layout) {
  for (uint32_t t = 0; t < fc->nseg; t++)
    fc->seg[layout->order[t]].act = (float *)(void *)((uint8_t *)fc->act + fc->act_stride * t);
}

nvfp4rt_moe_problem fused_case_moe_args(const FusedCase *fc, fused_addr_fn addr, void *arg) {
  const nvfp4h_moe_problem *p = &fc->moe;
  return (nvfp4rt_moe_problem){
      .a = addr(arg, p->a), .b = addr(arg, p->b), .sfa = addr(arg, p->sfa),
      .sfb = addr(arg, p->sfb), .c = addr(arg, fc->c), .offsets = addr(arg, p->offsets),
      .alpha = fc->with_alpha ? addr(arg, fc->alpha) : 0, .m = p->m, .n = p->n, .k = p->k,
      .ldc = fc->ldc, .num_experts = p->num_experts, .sfa_atoms = p->sfa_atoms,
      .sfc = addr(arg, fc->sfc), .gs = addr(arg, fc->gs)};
}

uint32_t fused_case_buffers(FusedCase *fc, FusedBuffer *out) {
  uint32_t n = 0;
  if (fc->is_moe) {
    nvfp4h_moe_problem *p = &fc->moe;
    out[n++] = (FusedBuffer){p->a, p->a_bytes, "A", 0};
    out[n++] = (FusedBuffer){p->b, p->b_bytes, "B", 0};
    out[n++] = (FusedBuffer){p->sfa, p->sfa_bytes, "SFA", 0};
    out[n++] = (FusedBuffer){p->sfb, p->sfb_bytes, "SFB", 0};
    out[n++] = (FusedBuffer){p->offsets, sizeof *p->offsets * (p->num_experts + 1u), "offsets", 0};
  } else {
    for (uint32_t g = 0; g < fc->nseg; g++) {
      nvfp4h_group_data *d = &fc->grouped.groups[g];
      out[n++] = (FusedBuffer){d->a, d->a_bytes, "A", 0};
      out[n++] = (FusedBuffer){d->b, d->b_bytes, "B", 0};
      out[n++] = (FusedBuffer){d->sfa, d->sfa_bytes, "SFA", 0};
      out[n++] = (FusedBuffer){d->sfb, d->sfb_bytes, "SFB", 0};
    }
  }
  out[n++] = (FusedBuffer){fc->alpha, sizeof fc->alpha, "alpha", 0};
  out[n++] = (FusedBuffer){fc->gs, sizeof fc->gs, "gs", 0};
  out[n++] = (FusedBuffer){fc->c, fc->c_bytes, "C", 1};
  out[n++] = (FusedBuffer){fc->sfc, fc->sfc_bytes, "SFC", 1};
  out[n++] = (FusedBuffer){fc->act, fc->act_bytes, "the activation dump", 1};
  return n;
}

int fused_case_snapshot(FusedCase *fc) {
  free(fc->c_copy), free(fc->sfc_copy);
  fc->c_copy = malloc(fc->c_bytes + 1);
  fc->sfc_copy = malloc(fc->sfc_bytes);
  if (!fc->c_copy || !fc->sfc_copy) return -1;
  memcpy(fc->c_copy, fc->c, fc->c_bytes);
  memcpy(fc->sfc_copy, fc->sfc, fc->sfc_bytes);
  return 0;
}

void fused_case_print(const FusedCase *fc) {
  for (uint32_t s = 0; s < fc->nseg; s++)
    printf("  %s %3u  M %5u  I %5u  K %5u  gs %.6g\n", fc->is_moe ? "expert" : "group ", s,
           fc->seg[s].d.m, fc->seg[s].d.n / 2, fc->seg[s].d.k, fc->seg[s].gs);
}

int fused_case_check(FusedCase *fc, int activations) {
  for (uint32_t s = 0; s < fc->nseg; s++)
    for (uint32_t r = 0; r < fc->seg[s].d.m; r++) check_row(fc, &fc->seg[s], r, activations);
  check_outside(fc, fc->c, fc->c_copy, fc->owned_c, fc->c_bytes, "C");
  check_outside(fc, fc->sfc, fc->sfc_copy, fc->owned_sfc, fc->sfc_bytes, "SFC");
  const int pass = !fc->code_bad && !fc->scale_bad && !fc->act_bad && !fc->outside_bad;
  if (activations)
    printf("check    %s  codes %llu/%llu and scales %llu/%llu equal to nvfp4h_quant_block of "
           "the kernel's activations; activations %llu/%llu within tolerance of swiglu of the "
           "reference (max rel err %.3g); %llu/%llu bytes outside the written C and SFC "
           "unchanged\n",
           pass ? "PASS" : "FAIL", (unsigned long long)(fc->codes - fc->code_bad),
           (unsigned long long)fc->codes, (unsigned long long)(fc->scales - fc->scale_bad),
           (unsigned long long)fc->scales, (unsigned long long)(fc->act_checked - fc->act_bad),
           (unsigned long long)fc->act_checked, fc->act_max_rel,
           (unsigned long long)(fc->outside - fc->outside_bad), (unsigned long long)fc->outside);
  else
    printf("check    %s  (timing proxy) codes %llu/%llu and scales %llu/%llu are 0; %llu/%llu "
           "bytes outside the written C and SFC unchanged\n",
           pass ? "PASS" : "FAIL", (unsigned long long)(fc->codes - fc->code_bad),
           (unsigned long long)fc->codes, (unsigned long long)(fc->scales - fc->scale_bad),
           (unsigned long long)fc->scales, (unsigned long long)(fc->outside - fc->outside_bad),
           (unsigned long long)fc->outside);
  if (activations)
    printf("edges    %llu saturated scales (0x7E), %llu zero scales\n",
           (unsigned long long)fc->sat_scales, (unsigned long long)fc->zero_scales);
  return pass;
}

void fused_case_free(FusedCase *fc) {
  for (uint32_t s = 0; s < fc->nseg; s++) free(fc->seg[s].gu), free(fc->seg[s].href);
  free(fc->c), free(fc->sfc), free(fc->c_copy), free(fc->sfc_copy), free(fc->act);
  free(fc->owned_c), free(fc->owned_sfc);
  if (fc->is_moe) nvfp4h_moe_problem_free(&fc->moe);
  else nvfp4h_problem_free(&fc->grouped);
  memset(fc, 0, sizeof *fc);
}
