/* runtime-moe-test — host-only tests of the epilogue options and of the contiguous (MoE)
 * form in libnvfp4rt: the bf16 codec and typed C elements, the generator and reference
 * GEMM for bf16/f32 C and alpha, the typed checks; routings (adversarial ones included),
 * the kernel's reading of offsets, the expert-segment scale-factor layout, the MoE check
 * (owned, shared and unowned rows); the contiguous form's launch validation, tensor-map
 * contract, parameter block, tile bound and variant choice; metadata of the new fields;
 * and 256-group pointer-array launches through the global group table with alpha.
 * Usage: runtime-moe-test types|route|layout|check|validate|tmap|meta|g256 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h> /* enum values only */

#include "nvfp4rt.h"
#include "nvfp4rt_host.h"
#include "test_meta.h"
#include "test_util.h"

static uint32_t rd(const unsigned char *b, uint32_t off) { return nvfp4_meta_read_u32(b, off); }
static uint64_t rd64(const unsigned char *b, uint32_t off) {
  return rd(b, off) | ((uint64_t)rd(b, off + 4) << 32);
}

/* ---- C element types, generator, reference, checks ------------------------------------ */

static int test_types(void) {
  /* bf16: every code round-trips (NaNs stay NaN, quiet), ties go to even */
  int bad = 0;
  for (uint32_t c = 0; c < 65536; c++) {
    float f = nvfp4h_bf16_to_float((uint16_t)c);
    uint16_t back = nvfp4h_float_to_bf16(f);
    if (isnan(f) ? !(isnan(nvfp4h_bf16_to_float(back)) && (back & 0x40)) : back != c) bad++;
  }
  T_CHECK(bad == 0, "%d bf16 codes do not round-trip", bad);
  uint32_t u;
  float f;
  u = 0x3F808000u; memcpy(&f, &u, 4); /* 1.00390625 + half ulp: tie, 0x3F80 even */
  T_CHECK(nvfp4h_float_to_bf16(f) == 0x3F80, "bf16 tie to even (down)");
  u = 0x3F818000u; memcpy(&f, &u, 4);
  T_CHECK(nvfp4h_float_to_bf16(f) == 0x3F82, "bf16 tie to even (up)");
  u = 0x3F808001u; memcpy(&f, &u, 4);
  T_CHECK(nvfp4h_float_to_bf16(f) == 0x3F81, "bf16 above the tie rounds up");
  u = 0x7F7F8000u; memcpy(&f, &u, 4);
  T_CHECK(nvfp4h_float_to_bf16(f) == 0x7F80, "bf16 overflow to inf");
  T_CHECK(nvfp4h_float_to_bf16(-0.0f) == 0x8000, "bf16 -0");
  /* typed elements */
  unsigned char buf[16];
  nvfp4h_c_store(buf, 1, NVFP4H_C_F32, 3.25f);
  nvfp4h_c_store(buf, 2, NVFP4H_C_BF16, -2.5f);
  T_CHECK(nvfp4h_c_load(buf, 1, NVFP4H_C_F32) != 3.25f && nvfp4h_c_load(buf, 2, NVFP4H_C_BF16) == -2.5f,
          "bf16 element 2 at bytes 4..5, inside f32 element 1");
  nvfp4h_c_store(buf, 2, NVFP4H_C_F32, 3.25f);
  T_CHECK(nvfp4h_c_load(buf, 2, NVFP4H_C_F32) == 3.25f, "f32 element 2 at bytes 8..11");
  T_CHECK(nvfp4h_c_bytes(NVFP4H_C_F16) == 2 && nvfp4h_c_bytes(NVFP4H_C_BF16) == 2 &&
          nvfp4h_c_bytes(NVFP4H_C_F32) == 4 && !strcmp(nvfp4h_c_type_name(NVFP4H_C_BF16), "bf16"),
          "element sizes and names");

  /* generator: the C type sets C's size, alpha comes from its own stream; A, B, SF and the
   * garbage words do not change */
  nvfp4h_shape s[3] = {{70, 130, 192}, {0, 40, 64}, {129, 9, 256}};
  nvfp4h_problem p16, p32;
  nvfp4h_gen_options o16 = {0, NVFP4H_C_F16, 0}, o32 = {0, NVFP4H_C_F32, 1};
  T_CHECK(nvfp4h_problem_generate_opts(s, 3, 7, NVFP4H_DIST_FULL_RANGE, &o16, &p16) == 0 &&
              nvfp4h_problem_generate_opts(s, 3, 7, NVFP4H_DIST_FULL_RANGE, &o32, &p32) == 0,
          "generate");
  int same = 1, alpha_ok = 1;
  for (int g = 0; g < 3; g++) {
    const nvfp4h_group_data *a = &p16.groups[g], *b = &p32.groups[g];
    same &= a->a_bytes == b->a_bytes && !memcmp(a->a, b->a, a->a_bytes) &&
            !memcmp(a->sfb, b->sfb, a->sfb_bytes) && a->c_type == NVFP4H_C_F16 &&
            b->c_type == NVFP4H_C_F32 && b->c_bytes == 2 * a->c_bytes &&
            !memcmp(a->c, b->c, a->c_bytes) && a->alpha == 1.0f;
    alpha_ok &= b->alpha >= 0.5f && b->alpha < 1.0f;
  }
  T_CHECK(same, "only C's size and alpha depend on the options");
  T_CHECK(alpha_ok && p32.groups[0].alpha != p32.groups[2].alpha, "alpha in [0.5, 1), per group");

  /* reference: alpha applied in fp32 after the sum; bf16 / f16 are the roundings of it */
  for (int g = 0; g < 3; g++) {
    const nvfp4h_group_data *d = &p32.groups[g];
    size_t n = (size_t)d->m * d->ldc;
    float *r1 = calloc(n + 1, 4), *ra = calloc(n + 1, 4);
    uint16_t *h = calloc(n + 1, 2), *bf = calloc(n + 1, 2);
    T_CHECK(!nvfp4h_reference_gemm_ex(d, r1, d->ldc, NVFP4H_C_F32, 1.0f, 2) &&
                !nvfp4h_reference_gemm_ex(d, ra, d->ldc, NVFP4H_C_F32, d->alpha, 2) &&
                !nvfp4h_reference_gemm_ex(d, h, d->ldc, NVFP4H_C_F16, d->alpha, 2) &&
                !nvfp4h_reference_gemm_ex(d, bf, d->ldc, NVFP4H_C_BF16, d->alpha, 2),
            "reference runs");
    int exact = 1;
    for (uint32_t i = 0; i < d->m; i++)
      for (uint32_t j = 0; j < d->n; j++) {
        size_t e = (size_t)i * d->ldc + j;
        float want = r1[e] * d->alpha;
        exact &= memcmp(&ra[e], &want, 4) == 0 && h[e] == nvfp4h_float_to_half(want) &&
                 bf[e] == nvfp4h_float_to_bf16(want);
      }
    T_CHECK(exact, "group %d: alpha and the f16/bf16 roundings are exact", g);
    if (d->m && d->n) { /* and the fp32 sum agrees with double accumulation */
      double *r64 = malloc(sizeof(double) * d->m * d->n);
      nvfp4h_reference_gemm_f64(d, r64);
      double worst = 0;
      for (uint32_t i = 0; i < d->m; i++)
        for (uint32_t j = 0; j < d->n; j++) {
          double x = fabs(r1[(size_t)i * d->ldc + j] - r64[(size_t)i * d->n + j]);
          double tol = 1e-5 * fabs(r64[(size_t)i * d->n + j]) + 1e-6;
          if (x / tol > worst) worst = x / tol;
        }
      T_CHECK(worst <= 1.0, "group %d: fp32 sum vs double (%.3g of the tolerance)", g, worst);
      free(r64);
    }
    free(r1); free(ra); free(h); free(bf);
  }

  /* typed tolerance check and the 4-byte outside check */
  double atol, rtol;
  nvfp4h_check_tolerance(NVFP4H_C_BF16, &atol, &rtol);
  T_CHECK(atol == 1e-3 && rtol == 8e-3, "bf16 tolerance");
  uint16_t g16[2] = {nvfp4h_float_to_bf16(100.0f), nvfp4h_float_to_bf16(100.0f)};
  uint16_t r16[2] = {nvfp4h_float_to_bf16(100.0f), nvfp4h_float_to_bf16(100.5f)};
  nvfp4h_check_result r;
  nvfp4h_check_init(&r);
  nvfp4h_check_typed(g16, 2, r16, 2, 1, 2, NVFP4H_C_BF16, 0, atol, rtol, &r);
  T_CHECK(r.checked == 2 && r.mismatches == 0, "one bf16 ulp (0.5) at 100 is within tolerance");
  r16[1] = nvfp4h_float_to_bf16(101.0f);
  nvfp4h_check_init(&r);
  nvfp4h_check_typed(g16, 2, r16, 2, 1, 2, NVFP4H_C_BF16, 0, atol, rtol, &r);
  T_CHECK(r.mismatches == 1 && r.first[0].col == 1, "two ulps are not");
  float orig[12], got[12];
  for (int i = 0; i < 12; i++) orig[i] = got[i] = (float)i;
  got[3] = -1.0f; /* row 0, padding column 3 of ld 4 */
  got[10] = 7.5f; /* guard: row 2 */
  nvfp4h_check_init(&r);
  T_CHECK(nvfp4h_check_outside_ex(got, orig, 2, 3, 4, 4, 4, 5, &r) == 2 && r.outside_reported == 2 &&
              r.first_outside[0].col == 3 && r.first_outside[1].row == 2 &&
              r.first_outside[1].got == 0x40F00000u,
          "f32 outside writes caught with their bits");
  nvfp4h_problem_free(&p16);
  nvfp4h_problem_free(&p32);
  printf("types: bf16 codec, typed generator, reference with alpha, typed checks\n");
  return t_summary("types");
}

/* ---- routings and the offsets as the kernel reads them ---------------------------------- */

static int test_route(void) {
  const uint32_t E = 64, m = 1000, tokens = 900;
  int32_t off[65], again[65];
  for (int r = 0; r < NVFP4H_ROUTE_COUNT_; r++) {
    nvfp4h_moe_route((nvfp4h_moe_routing)r, 5, E, m, tokens, off);
    nvfp4h_moe_route((nvfp4h_moe_routing)r, 5, E, m, tokens, again);
    T_CHECK(!memcmp(off, again, sizeof off), "%s deterministic", nvfp4h_moe_routing_name(r));
    T_CHECK(nvfp4h_moe_routing_parse(nvfp4h_moe_routing_name(r)) == r, "name round trip");
    int monotone = 1, nonempty = 0;
    for (uint32_t e = 0; e < E; e++) {
      monotone &= off[e + 1] >= off[e];
      nonempty += off[e + 1] > off[e];
    }
    if (r <= NVFP4H_ROUTE_BALANCED) {
      T_CHECK(off[0] == 0 && off[E] == (int32_t)tokens && monotone, "%s: a valid routing",
              nvfp4h_moe_routing_name(r));
    }
    if (r == NVFP4H_ROUTE_ONE) T_CHECK(nonempty == 1, "one: one expert");
    if (r == NVFP4H_ROUTE_EMPTY) {
      int others = 0;
      for (uint32_t e = 0; e < E; e++) others += e % 3 != 0 && off[e + 1] != off[e];
      T_CHECK(others == 0 && nonempty > 10, "empty: only every third expert has tokens");
    }
    if (r == NVFP4H_ROUTE_BALANCED)
      for (uint32_t e = 0; e < E; e++)
        T_CHECK(off[e + 1] - off[e] == 14 || off[e + 1] - off[e] == 15, "balanced %u", e);
    if (r == NVFP4H_ROUTE_DECREASING) T_CHECK(!monotone, "decreasing: some offsets decrease");
    if (r == NVFP4H_ROUTE_BEYOND)
      T_CHECK(off[0] < 0 && off[E] > (int32_t)m && off[E / 2] > (int32_t)m, "beyond: past M, negative");
  }
  T_CHECK(nvfp4h_moe_routing_parse("nope") == -1, "unknown routing");
  /* the kernel's reading: clamp to [0, m], nothing when the end is below the start */
  const int32_t adv[6] = {-5, 10, 4, 2000, 50, 60};
  uint32_t st, rows;
  nvfp4h_moe_expert_rows(adv, 100, 0, &st, &rows);
  T_CHECK(st == 0 && rows == 10, "negative start clamps to 0");
  nvfp4h_moe_expert_rows(adv, 100, 1, &st, &rows);
  T_CHECK(rows == 0, "decreasing: no rows");
  nvfp4h_moe_expert_rows(adv, 100, 2, &st, &rows);
  T_CHECK(st == 4 && rows == 96, "end past M clamps to M");
  nvfp4h_moe_expert_rows(adv, 100, 3, &st, &rows);
  T_CHECK(st == 100 && rows == 0, "start past M: no rows");
  nvfp4h_moe_expert_rows(adv, 100, 4, &st, &rows);
  T_CHECK(st == 50 && rows == 10, "a normal expert");
  /* the worst case of the expert-segment layout */
  T_CHECK(nvfp4_abi_moe_sfa_atoms(5, 8) == 5 && nvfp4_abi_moe_sfa_atoms(8, 8) == 8 &&
              nvfp4_abi_moe_sfa_atoms(2048, 256) == 256 + 14 && nvfp4_abi_moe_sfa_atoms(0, 4) == 0,
          "sfa atom bound");
  printf("route: %d routings, offsets clamped as the kernel does\n", NVFP4H_ROUTE_COUNT_);
  return t_summary("route");
}

/* ---- the expert-segment scale-factor layout ------------------------------------------------ */

static int test_layout(void) {
  nvfp4h_gen_options o = {0, NVFP4H_C_F16, 0};
  for (int r = 0; r < NVFP4H_ROUTE_COUNT_; r++) {
    nvfp4h_moe_problem p;
    T_CHECK(nvfp4h_moe_generate(6, 300, 64, 192, 280, (nvfp4h_moe_routing)r, 9,
                                NVFP4H_DIST_FULL_RANGE, &o, &p) == 0, "generate");
    const uint32_t S = p.k / 16;
    const size_t row_bytes = (size_t)((S + 3) / 4) * 512;
    unsigned char *used = calloc(p.sfa_bytes, 1);
    uint64_t atom = 0;
    int ok = 1;
    for (uint32_t e = 0; e < p.num_experts; e++) {
      uint32_t st, rows;
      nvfp4h_moe_expert_rows(p.offsets, p.m, e, &st, &rows);
      for (uint32_t i = 0; i < rows; i++)
        for (uint32_t j = 0; j < S; j++) {
          size_t at = atom * row_bytes + nvfp4h_sf_blocked_offset(i, j, S);
          ok &= p.sfa[at] == p.sfa_plain[(size_t)(st + i) * S + j];
          used[at] = 1;
        }
      atom += (rows + 127) / 128;
    }
    int zero = 1;
    for (size_t i = 0; i < p.sfa_bytes; i++) zero &= used[i] || p.sfa[i] == 0;
    T_CHECK(ok && zero && atom <= p.sfa_atoms,
            "%s: segments on 128-row atoms (%llu of %u atoms), padding zero",
            nvfp4h_moe_routing_name(r), (unsigned long long)atom, p.sfa_atoms);
    free(used);
    nvfp4h_moe_problem_free(&p);
  }
  printf("layout: expert segments of SFA\n");
  return t_summary("layout");
}

/* ---- the MoE check ----------------------------------------------------------------------- */

/* C as a correct kernel leaves it: the garbage, each expert's rows replaced by its result;
 * a row an earlier expert already wrote (overlapping offsets) gets only the columns of the
 * parity of e from expert e, so shared rows mix the claimants element by element. */
static void *perfect_c(const nvfp4h_moe_problem *p) {
  const uint32_t eb = nvfp4h_c_bytes(p->c_type), S = p->k / 16;
  const size_t row_bytes = (size_t)((S + 3) / 4) * 512;
  unsigned char *c = malloc(p->c_alloc_bytes), *written = calloc(p->m + 1, 1);
  memcpy(c, p->c, p->c_alloc_bytes);
  uint64_t atom = 0;
  for (uint32_t e = 0; e < p->num_experts; e++) {
    uint32_t st, rows;
    nvfp4h_moe_expert_rows(p->offsets, p->m, e, &st, &rows);
    if (!rows) continue;
    nvfp4h_group_data d;
    memset(&d, 0, sizeof d);
    d.m = rows; d.n = p->n; d.k = p->k;
    d.a = p->a + (size_t)st * (p->k / 2);
    d.b = p->b + (size_t)e * p->n * (p->k / 2);
    d.sfa = p->sfa + atom * row_bytes;
    d.sfb = p->sfb + (size_t)e * p->sfb_expert_bytes;
    atom += (rows + 127) / 128;
    unsigned char *ref = malloc((size_t)rows * p->n * eb);
    nvfp4h_reference_gemm_ex(&d, ref, p->n, p->c_type, p->alpha[e], 2);
    for (uint32_t i = 0; i < rows; i++) {
      for (uint32_t j = 0; j < p->n; j++)
        if (!written[st + i] || j % 2 == e % 2)
          memcpy(c + ((size_t)(st + i) * p->ldc + j) * eb, ref + ((size_t)i * p->n + j) * eb, eb);
      written[st + i] = 1;
    }
    free(ref);
  }
  free(written);
  return c;
}

static int test_check(void) {
  static const nvfp4h_c_type types[3] = {NVFP4H_C_F16, NVFP4H_C_BF16, NVFP4H_C_F32};
  for (int t = 0; t < 3; t++) {
    nvfp4h_gen_options o = {8, types[t], t > 0};
    nvfp4h_moe_problem p;
    /* 250 of 300 rows routed: rows 250.. belong to no expert */
    T_CHECK(nvfp4h_moe_generate(5, 300, 72, 128, 250, NVFP4H_ROUTE_RANDOM, 3,
                                NVFP4H_DIST_FULL_RANGE, &o, &p) == 0, "generate");
    const uint32_t eb = nvfp4h_c_bytes(p.c_type);
    unsigned char *c = perfect_c(&p);
    nvfp4h_check_result r;
    nvfp4h_check_init(&r);
    T_CHECK(nvfp4h_moe_check(&p, c, 2, &r) == 0 && nvfp4h_check_passed(&r) &&
                r.checked == 250u * 72u && r.outside_checked == 300u * (p.ldc - 72u) + p.ldc + 50u * 72u,
            "%s: a correct C passes (%llu checked, %llu outside)", nvfp4h_c_type_name(types[t]),
            (unsigned long long)r.checked, (unsigned long long)r.outside_checked);
    /* one wrong element of an expert's row */
    unsigned char save[4];
    size_t at = ((size_t)17 * p.ldc + 5) * eb;
    memcpy(save, c + at, eb);
    nvfp4h_c_store(c, 17 * (size_t)p.ldc + 5, p.c_type, 1e6f);
    nvfp4h_check_init(&r);
    nvfp4h_moe_check(&p, c, 2, &r);
    T_CHECK(r.mismatches == 1 && r.first[0].row == 17 && r.first[0].col == 5, "wrong element caught");
    memcpy(c + at, save, eb);
    /* a write into a row no expert owns, into the padding, into the guard row */
    c[((size_t)260 * p.ldc + 3) * eb] ^= 1;
    c[((size_t)40 * p.ldc + 75) * eb] ^= 1;
    c[((size_t)300 * p.ldc + 1) * eb] ^= 1;
    nvfp4h_check_init(&r);
    nvfp4h_moe_check(&p, c, 2, &r);
    T_CHECK(r.mismatches == 0 && r.outside_writes == 3, "three outside writes caught (%llu)",
            (unsigned long long)r.outside_writes);
    free(c);
    nvfp4h_moe_problem_free(&p);
  }
  /* overlapping experts (decreasing offsets): a shared row may hold either result, element
   * by element, and nothing else */
  nvfp4h_gen_options o = {0, NVFP4H_C_F32, 1};
  nvfp4h_moe_problem p;
  T_CHECK(nvfp4h_moe_generate(4, 200, 40, 64, 200, NVFP4H_ROUTE_RANDOM, 4, NVFP4H_DIST_FULL_RANGE,
                              &o, &p) == 0, "generate");
  const int32_t off[5] = {0, 80, 30, 150, 200}; /* expert 1: none; expert 2 rows 30..149 */
  memcpy(p.offsets, off, sizeof off);
  nvfp4h_moe_layout_sfa(&p);
  unsigned char *c = perfect_c(&p); /* rows 30..79: expert 0's odd, expert 2's even columns */
  nvfp4h_check_result r;
  nvfp4h_check_init(&r);
  nvfp4h_moe_check(&p, c, 2, &r);
  T_CHECK(nvfp4h_check_passed(&r) && r.checked == 200u * 40u,
          "shared rows mixing the claimants' values pass (%llu checked)", (unsigned long long)r.checked);
  nvfp4h_c_store(c, 50 * (size_t)p.ldc + 7, p.c_type, 12345.0f);
  nvfp4h_check_init(&r);
  nvfp4h_moe_check(&p, c, 2, &r);
  T_CHECK(r.mismatches == 1 && r.first[0].row == 50, "a shared-row value of neither claimant fails");
  free(c);
  nvfp4h_moe_problem_free(&p);
  /* the generator tells bad sizes from a problem the host cannot hold (B of E * N * K / 2
   * bytes beyond 64 bits, or a failed allocation) */
  T_CHECK(nvfp4h_moe_generate(4, 200, 40, 96, 200, NVFP4H_ROUTE_RANDOM, 4,
                              NVFP4H_DIST_COMPETITION, &o, &p) == NVFP4H_GENERATE_BAD_SHAPE,
          "K = 96: bad shape");
  T_CHECK(nvfp4h_moe_generate(1024, 0, 1u << 27, 1u << 28, 0, NVFP4H_ROUTE_RANDOM, 4,
                              NVFP4H_DIST_COMPETITION, &o, &p) == NVFP4H_GENERATE_NO_MEMORY,
          "B of 2^64 bytes: no memory, not a wrapped size");
  T_CHECK(nvfp4h_moe_generate(1, 0x7FFFFFFF, 64, 0x7FFFFFC0, 0, NVFP4H_ROUTE_RANDOM, 4,
                              NVFP4H_DIST_COMPETITION, &o, &p) == NVFP4H_GENERATE_NO_MEMORY,
          "A of 2^61 bytes: no memory");
  printf("check: owned, shared and unowned rows\n");
  return t_summary("check");
}

/* ---- the contiguous form's launch logic ------------------------------------------------------ */

static nvfp4_kernel_metadata moe_meta(int swap, int emulation, uint32_t experts, uint32_t c_type,
                                      int alpha) {
  nvfp4_kernel_metadata m = make_meta(emulation, experts); /* ab_n128, then: */
  m.stages = 4;
  m.acc_buffers = 1;
  if (swap) {
    m.tile_n = m.n_box_rows = 256;
    m.sfn_atoms = 2;
    m.orientation = NVFP4_META_ORIENTATION_SWAP_AB;
    m.variant_flags = NVFP4_META_VFLAG_DYNAMIC_N;
    m.store_box_rows = 64;
  }
  m.c_type = c_type;
  m.epilogue_flags = alpha ? NVFP4_META_EFLAG_ALPHA : 0;
  m.form = NVFP4_META_FORM_CONTIGUOUS;
  m.param_bytes = NVFP4_ABI_MOE_PARAM_BYTES;
  strcpy(m.kernel_name, swap ? "moe_swap_n256" : "moe_ab_n128");
  strcpy(m.target, emulation ? "sm_90a" : "sm_100a");
  return m;
}

static nvfp4rt_moe_problem good_moe(uint32_t experts, int alpha) {
  const uint64_t base = 0x7f0000000000ull;
  nvfp4rt_moe_problem p = {.a = base, .b = base + 0x10000000, .sfa = base + 0x20000000,
                           .sfb = base + 0x30000000, .c = base + 0x40000000,
                           .offsets = base + 0x50000004, .alpha = alpha ? base + 0x50001000 : 0,
                           .m = 2048, .n = 4096, .k = 7168, .ldc = 4096,
                           .num_experts = experts};
  p.sfa_atoms = (uint32_t)nvfp4_abi_moe_sfa_atoms(p.m, experts);
  return p;
}

static int test_validate(void) {
  nvfp4_kernel_metadata m = moe_meta(0, 0, 256, NVFP4_META_C_BF16, 1);
  nvfp4rt_moe_problem p = good_moe(256, 1), q;
  EXPECT_STATUS(nvfp4rt_moe_validate(&m, &p), NVFP4RT_STATUS_OK);
#define BAD(field, value, want) q = p; q.field = value; EXPECT_STATUS(nvfp4rt_moe_validate(&m, &q), want)
  BAD(num_experts, 255, NVFP4RT_STATUS_TOO_MANY_GROUPS);
  BAD(a, 0, NVFP4RT_STATUS_NULL_POINTER);
  BAD(sfb, p.sfb + 8, NVFP4RT_STATUS_MISALIGNED);
  BAD(offsets, 0, NVFP4RT_STATUS_NULL_POINTER);
  BAD(offsets, p.offsets + 2, NVFP4RT_STATUS_MISALIGNED);
  BAD(alpha, 0, NVFP4RT_STATUS_NULL_POINTER);
  BAD(alpha, p.alpha + 1, NVFP4RT_STATUS_MISALIGNED);
  BAD(k, 7200, NVFP4RT_STATUS_BAD_SHAPE);
  BAD(ldc, 4000, NVFP4RT_STATUS_BAD_SHAPE);
  BAD(ldc, 4100, NVFP4RT_STATUS_MISALIGNED); /* 8200 bytes */
  BAD(sfa_atoms, p.sfa_atoms - 1, NVFP4RT_STATUS_BAD_SHAPE);
  BAD(n, 9000000, NVFP4RT_STATUS_BAD_SHAPE); /* ldc < N first */
  q = p; q.n = 9000000; q.ldc = 9000000;
  EXPECT_STATUS(nvfp4rt_moe_validate(&m, &q), NVFP4RT_STATUS_OVERFLOW); /* E * N > 2^31 */
  q = p; q.k = 0xFFFFFFC0u; /* K = 2^32 - 64: past the signed 32-bit coordinates */
  EXPECT_STATUS(nvfp4rt_moe_validate(&m, &q), NVFP4RT_STATUS_OVERFLOW);
  BAD(m, 0, NVFP4RT_STATUS_OK); /* empty: nothing is launched */
  nvfp4_kernel_metadata noalpha = moe_meta(0, 0, 256, NVFP4_META_C_BF16, 0);
  EXPECT_STATUS(nvfp4rt_moe_validate(&noalpha, &p), NVFP4RT_STATUS_INVALID_ARGUMENT);
  nvfp4_kernel_metadata f32 = moe_meta(0, 0, 256, NVFP4_META_C_F32, 1);
  q = p; q.ldc = 4100; /* 16400 bytes: whole 16-byte rows for f32 */
  EXPECT_STATUS(nvfp4rt_moe_validate(&f32, &q), NVFP4RT_STATUS_OK);
  /* each form's planner refuses the other's kernels */
  nvfp4_kernel_metadata pa = m;
  pa.form = NVFP4_META_FORM_POINTER_ARRAY;
  EXPECT_STATUS(nvfp4rt_moe_validate(&pa, &p), NVFP4RT_STATUS_INVALID_ARGUMENT);
  nvfp4rt_group g = {p.a, p.b, p.sfa, p.sfb, p.c, 64, 64, 256, 64, p.alpha, 0, 0};
  EXPECT_STATUS(nvfp4rt_plan_validate(&m, &g, 1, NULL), NVFP4RT_STATUS_INVALID_ARGUMENT);
  /* the tile bound: AB ceil(N/128) * (min(M,E) + M/128); swap ceil(N/128) * (min(M,E) + M/256) */
  T_CHECK(nvfp4rt_moe_max_tiles(&m, &p) == 32u * (256u + 16u), "AB tile bound %llu",
          (unsigned long long)nvfp4rt_moe_max_tiles(&m, &p));
  nvfp4_kernel_metadata sw = moe_meta(1, 0, 256, NVFP4_META_C_BF16, 1);
  T_CHECK(nvfp4rt_moe_max_tiles(&sw, &p) == 32u * (256u + 8u), "swap tile bound");
  q = p; q.m = 0;
  T_CHECK(nvfp4rt_moe_max_tiles(&m, &q) == 0, "no tiles without tokens");
  /* the variant heuristic: the pointer-array model on E experts of ceil(M / E) tokens */
  nvfp4rt_metadata_table t, pt;
  memset(&t, 0, sizeof t);
  t.count = 2;
  t.variants[0] = m;
  t.variants[1] = sw;
  t.variants[1].variant_index = 1;
  t.variants[0].variant_count = t.variants[1].variant_count = 2;
  pt = t;
  for (int v = 0; v < 2; v++) {
    pt.variants[v].form = NVFP4_META_FORM_POINTER_ARRAY;
    pt.variants[v].param_bytes = NVFP4_ABI_PARAM_BYTES;
  }
  static nvfp4rt_group eq[256];
  for (int i = 0; i < 256; i++) eq[i] = (nvfp4rt_group){16, 16, 16, 16, 16, 8, 4096, 7168, 4096, 16, 0, 0};
  double cost[2];
  int want = nvfp4rt_select_variant(&pt, eq, 256, 132, cost);
  int pick = nvfp4rt_moe_select_variant(&t, &p, 132);
  T_CHECK(want >= 0 && pick == want, "decode: the pointer-array model's choice %d (costs %.2f / %.2f us), got %d",
          want, cost[0], cost[1], pick);
  nvfp4rt_moe_problem odd = p;
  odd.num_experts = 7;
  T_CHECK(nvfp4rt_moe_select_variant(&t, &odd, 132) == -1, "no variant for another expert count");
  /* a fused SwiGLU + NVFP4 family (FP4 C of I = N/2 columns): its model groups carry sfc
   * and gs, so the heuristic chooses among its variants as for any other */
  nvfp4rt_metadata_table ft = t, fpt = pt;
  for (int v = 0; v < 2; v++) {
    ft.variants[v].epilogue_flags |= NVFP4_META_EFLAG_SWIGLU_NVFP4;
    ft.variants[v].c_type = fpt.variants[v].c_type = NVFP4_META_C_FP4;
    fpt.variants[v].epilogue_flags |= NVFP4_META_EFLAG_SWIGLU_NVFP4;
  }
  for (int i = 0; i < 256; i++) eq[i].sfc = 16, eq[i].gs = 16;
  want = nvfp4rt_select_variant(&fpt, eq, 256, 132, cost);
  pick = nvfp4rt_moe_select_variant(&ft, &p, 132);
  T_CHECK(want >= 0 && pick == want, "fused: the pointer-array model's choice %d, got %d (%s)",
          want, pick, nvfp4rt_last_error_message());
  printf("validate: contiguous-form launches\n");
  return t_summary("validate");
#undef BAD
}

static int test_tmap(void) {
  nvfp4rt_moe_problem p = good_moe(256, 1);
  nvfp4_kernel_metadata ab = moe_meta(0, 0, 256, NVFP4_META_C_F16, 1);
  nvfp4rt_tmap_args a;
  T_CHECK(nvfp4rt_moe_tmap_count(&ab) == 5, "AB: 5 maps");
  EXPECT_STATUS(nvfp4rt_moe_tmap_args(&ab, &p, NVFP4_ABI_MOE_TMAP_A, &a), NVFP4RT_STATUS_OK);
  T_CHECK(a.data_type == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B && a.dims[0] == 7168 && a.dims[1] == 2048 &&
              a.box[0] == 256 && a.box[1] == 128 && a.global_address == p.a, "A: all tokens, M-role box");
  EXPECT_STATUS(nvfp4rt_moe_tmap_args(&ab, &p, NVFP4_ABI_MOE_TMAP_B, &a), NVFP4RT_STATUS_OK);
  T_CHECK(a.dims[1] == 256u * 4096u && a.box[1] == 128 && a.stride_bytes[0] == 3584, "B: E * N rows");
  EXPECT_STATUS(nvfp4rt_moe_tmap_args(&ab, &p, NVFP4_ABI_MOE_TMAP_SFA, &a), NVFP4RT_STATUS_OK);
  T_CHECK(a.data_type == CU_TENSOR_MAP_DATA_TYPE_INT64 && a.dims[0] == 112 * 64 &&
              a.dims[1] == p.sfa_atoms && a.box[1] == 1 && a.stride_bytes[0] == 112 * 512,
          "SFA: the atom rows of the buffer");
  EXPECT_STATUS(nvfp4rt_moe_tmap_args(&ab, &p, NVFP4_ABI_MOE_TMAP_SFB, &a), NVFP4RT_STATUS_OK);
  T_CHECK(a.dims[1] == 256u * 32u && a.box[1] == 1, "SFB: E * ceil(N/128) atom rows");
  EXPECT_STATUS(nvfp4rt_moe_tmap_args(&ab, &p, NVFP4_ABI_MOE_TMAP_C, &a), NVFP4RT_STATUS_OK);
  T_CHECK(a.data_type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 && a.dims[0] == 4096 && a.dims[1] == 2048 &&
              a.box[0] == 64 && a.box[1] == 128 && a.stride_bytes[0] == 8192, "C f16");
  EXPECT_STATUS(nvfp4rt_moe_tmap_args(&ab, &p, 5, &a), NVFP4RT_STATUS_INVALID_ARGUMENT);
  /* C of the other types: the data type, 16-byte chunks, 128-byte box rows */
  nvfp4_kernel_metadata f32 = moe_meta(0, 0, 256, NVFP4_META_C_F32, 1);
  nvfp4rt_moe_problem q = p;
  q.n = 4095; q.ldc = 4096;
  EXPECT_STATUS(nvfp4rt_moe_tmap_args(&f32, &q, NVFP4_ABI_MOE_TMAP_C, &a), NVFP4RT_STATUS_OK);
  T_CHECK(a.data_type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 && a.dims[0] == 4092 && a.box[0] == 32 &&
              a.stride_bytes[0] == 16384, "C f32: chunks of 4 columns, boxes of 32");
  nvfp4_kernel_metadata bf = moe_meta(0, 0, 256, NVFP4_META_C_BF16, 1);
  EXPECT_STATUS(nvfp4rt_moe_tmap_args(&bf, &q, NVFP4_ABI_MOE_TMAP_C, &a), NVFP4RT_STATUS_OK);
  T_CHECK(a.data_type == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 && a.dims[0] == 4088 && a.box[0] == 64,
          "C bf16");
  nvfp4_kernel_metadata st = ab;
  st.epilogue = NVFP4_META_EPILOGUE_DIRECT_STORE;
  EXPECT_STATUS(nvfp4rt_moe_tmap_args(&st, &p, NVFP4_ABI_MOE_TMAP_C, &a), NVFP4RT_STATUS_OK);
  T_CHECK(a.rank == 0, "direct stores: no C map");
  /* swap-AB, N per expert: A is the N role, with a ladder of smaller boxes */
  nvfp4_kernel_metadata sw = moe_meta(1, 1, 256, NVFP4_META_C_F16, 1);
  T_CHECK(nvfp4rt_moe_tmap_count(&sw) == 10 && sw.param_bytes == 128 &&
              nvfp4_abi_moe_table_bytes(nvfp4rt_moe_tmap_count(&sw)) == 1280,
          "swap_n256: 10 maps in a 1280-byte device table, a 128-byte block");
  const uint32_t rows[10] = {256, 128, 2, 1, 64, 8, 16, 32, 64, 128};
  for (uint32_t s = 0; s < 10; s++) {
    EXPECT_STATUS(nvfp4rt_moe_tmap_args(&sw, &p, s, &a), NVFP4RT_STATUS_OK);
    if (s == NVFP4_ABI_MOE_TMAP_SFA || s == NVFP4_ABI_MOE_TMAP_SFB)
      T_CHECK(a.box[1] == rows[s], "swap SF slot %u box %u", s, a.box[1]);
    else if (s != NVFP4_ABI_MOE_TMAP_C)
      T_CHECK(a.box[1] == rows[s] && a.data_type == CU_TENSOR_MAP_DATA_TYPE_UINT8 &&
                  a.box[0] == 128 && a.dims[0] == 3584 &&
                  a.global_address == (s == NVFP4_ABI_MOE_TMAP_B ? p.b : p.a),
              "swap slot %u: box rows %u (want %u)", s, a.box[1], rows[s]);
    else
      T_CHECK(a.box[1] == 64, "swap C box of 64 rows");
  }
  q = p;
  q.m = 0;
  EXPECT_STATUS(nvfp4rt_moe_tmap_args(&sw, &q, NVFP4_ABI_MOE_TMAP_A, &a), NVFP4RT_STATUS_OK);
  T_CHECK(a.rank == 0, "empty launch: no maps");
  /* the parameter block */
  _Alignas(64) unsigned char block[2048];
  memset(block, 0xCD, sizeof block);
  EXPECT_STATUS(nvfp4rt_moe_param_pack(&sw, &p, 0x1000, 0x2000, block, sizeof block), NVFP4RT_STATUS_OK);
  T_CHECK(rd(block, NVFP4_ABI_HDR_ABI_VERSION) == NVFP4_ABI_VERSION &&
              rd(block, NVFP4_ABI_HDR_NUM_GROUPS) == 256 && rd(block, NVFP4_ABI_HDR_TOTAL_TILES) == 0 &&
              rd64(block, NVFP4_ABI_HDR_WORKSPACE) == 0x1000 &&
              rd64(block, NVFP4_ABI_HDR_WORKSPACE_BYTES) == 0x2000 && rd64(block, NVFP4_ABI_HDR_TABLE) == 0,
          "header");
  T_CHECK(rd64(block, NVFP4_ABI_MOE_OFFSETS) == p.offsets && rd64(block, NVFP4_ABI_MOE_ALPHA) == p.alpha &&
              rd64(block, NVFP4_ABI_MOE_C_PTR) == p.c && rd(block, NVFP4_ABI_MOE_M) == 2048 &&
              rd(block, NVFP4_ABI_MOE_N) == 4096 && rd(block, NVFP4_ABI_MOE_K) == 7168 &&
              rd(block, NVFP4_ABI_MOE_LDC) == 4096 && rd(block, NVFP4_ABI_MOE_SFA_ROWS) == p.sfa_atoms &&
              rd(block, 108) == 0 && rd(block, NVFP4_ABI_HDR_TMAP_AREA) == 0 &&
              block[NVFP4_ABI_MOE_PARAM_BYTES] == 0xCD,
          "problem record; nothing written past the 128-byte block");
  EXPECT_STATUS(nvfp4rt_moe_param_pack(&sw, &p, 0, 0, block, 127), NVFP4RT_STATUS_INVALID_ARGUMENT);
  EXPECT_STATUS(nvfp4rt_moe_param_pack(&sw, &p, 0, 0, block, 128), NVFP4RT_STATUS_OK);
  printf("tmap: %u maps (AB), %u (swap_n256)\n", nvfp4rt_moe_tmap_count(&ab), nvfp4rt_moe_tmap_count(&sw));
  return t_summary("tmap");
}

static int test_meta(void) {
  unsigned char rec[NVFP4_METADATA_BYTES];
  nvfp4_kernel_metadata m = moe_meta(1, 0, 64, NVFP4_META_C_F32, 1), out;
  nvfp4rt_metadata_encode(&m, rec);
  EXPECT_STATUS(nvfp4rt_metadata_decode(rec, sizeof rec, &out), NVFP4RT_STATUS_OK);
  T_CHECK(out.form == NVFP4_META_FORM_CONTIGUOUS && out.c_type == NVFP4_META_C_F32 &&
              out.epilogue_flags == NVFP4_META_EFLAG_ALPHA && out.param_bytes == m.param_bytes,
          "the new fields round-trip");
#define MUTATE(field, value, want)                                                          \
  do {                                                                                      \
    nvfp4_kernel_metadata x_ = m;                                                           \
    x_.field = value;                                                                       \
    nvfp4rt_metadata_encode(&x_, rec);                                                      \
    EXPECT_STATUS(nvfp4rt_metadata_decode(rec, sizeof rec, &out), want);                    \
  } while (0)
  MUTATE(param_bytes, m.param_bytes + 128, NVFP4RT_STATUS_ABI_MISMATCH);
  MUTATE(form, 2, NVFP4RT_STATUS_UNSUPPORTED);
  MUTATE(c_type, 4, NVFP4RT_STATUS_UNSUPPORTED);
  MUTATE(epilogue_flags, 4, NVFP4RT_STATUS_UNSUPPORTED);
  /* an FP4 C without the fused epilogue's flag, the flag without an FP4 C */
  MUTATE(c_type, NVFP4_META_C_FP4, NVFP4RT_STATUS_ABI_MISMATCH);
  MUTATE(epilogue_flags, NVFP4_META_EFLAG_SWIGLU_NVFP4, NVFP4RT_STATUS_ABI_MISMATCH);
  /* a box ladder longer than a plan's map slots */
  {
    nvfp4_kernel_metadata x = m;
    x.n_align = 1;
    T_CHECK(nvfp4rt_moe_tmap_count(&x) > NVFP4_ABI_MOE_MAX_TMAPS, "n_align 1: %u maps",
            nvfp4rt_moe_tmap_count(&x));
    nvfp4rt_metadata_encode(&x, rec);
    EXPECT_STATUS(nvfp4rt_metadata_decode(rec, sizeof rec, &out), NVFP4RT_STATUS_ABI_MISMATCH);
  }
  /* a family must agree on the C type, alpha and form; its map counts may differ */
  unsigned char recs[2 * NVFP4_METADATA_BYTES];
  nvfp4_kernel_metadata v0 = moe_meta(0, 0, 64, NVFP4_META_C_F32, 1), v1 = m;
  v0.variant_count = v1.variant_count = 2;
  v1.variant_index = 1;
  nvfp4rt_metadata_encode(&v0, recs);
  nvfp4rt_metadata_encode(&v1, recs + NVFP4_METADATA_BYTES);
  nvfp4rt_metadata_table t;
  EXPECT_STATUS(nvfp4rt_metadata_decode_table(recs, sizeof recs, &t), NVFP4RT_STATUS_OK);
  T_CHECK(nvfp4rt_moe_tmap_count(&t.variants[0]) != nvfp4rt_moe_tmap_count(&t.variants[1]) &&
              t.variants[0].param_bytes == 128 && t.variants[1].param_bytes == 128,
          "per-variant map counts, one 128-byte block");
  v1.c_type = NVFP4_META_C_BF16;
  nvfp4rt_metadata_encode(&v1, recs + NVFP4_METADATA_BYTES);
  EXPECT_STATUS(nvfp4rt_metadata_decode_table(recs, sizeof recs, &t), NVFP4RT_STATUS_ABI_MISMATCH);
  printf("meta: form, C type and alpha in the record\n");
  return t_summary("meta");
#undef MUTATE
}

/* ---- 256 groups through the device group table, with alpha and bf16 ---------------------- */

static int test_g256(void) {
  nvfp4_kernel_metadata m = moe_meta(0, 1, 256, NVFP4_META_C_BF16, 1);
  m.form = NVFP4_META_FORM_POINTER_ARRAY;
  m.param_bytes = NVFP4_ABI_PARAM_BYTES;
  T_CHECK(m.param_bytes == NVFP4_ABI_HEADER_BYTES, "256 groups: the header alone");
  static nvfp4rt_group g[256];
  const uint64_t base = 0x7f0000000000ull, alpha = 0x7e0000000000ull;
  for (uint32_t i = 0; i < 256; i++)
    g[i] = (nvfp4rt_group){base + 0x1000000ull * i, base + 0x1000000ull * i + 0x100000,
                           base + 0x1000000ull * i + 0x200000, base + 0x1000000ull * i + 0x300000,
                           base + 0x1000000ull * i + 0x400000, (i * 37) % 300, 96 + (i % 5) * 8,
                           256, 136, alpha + 4u * i, 0, 0};
  static nvfp4rt_plan_layout L;
  EXPECT_STATUS(nvfp4rt_plan_validate(&m, g, 256, &L), NVFP4RT_STATUS_OK);
  static _Alignas(64) unsigned char image[64 + 704 * 256];
  EXPECT_STATUS(nvfp4rt_param_pack(&m, g, 256, &L, 0, 0, 0x7700000000ull, image, sizeof image),
                NVFP4RT_STATUS_OK);
  uint32_t tiles = 0;
  int ok = 1, sorted = 1;
  for (uint32_t s = 0; s < 256; s++) {
    const unsigned char *r = image + 64 + nvfp4_abi_record_offset(256, s);
    const nvfp4rt_group *G = &g[L.order[s]];
    ok &= rd(r + NVFP4_ABI_GRP_M, 0) == G->m && rd(r + NVFP4_ABI_GRP_TILE_START, 0) == tiles &&
          rd64(r, NVFP4_ABI_GRP_ALPHA_PTR) == G->alpha && rd64(r, NVFP4_ABI_GRP_C_PTR) == G->c;
    if (s) sorted &= g[L.order[s - 1]].m >= G->m;
    tiles += L.tiles[s];
  }
  T_CHECK(ok && sorted && tiles == L.total_tiles && rd(image, NVFP4_ABI_HDR_TOTAL_TILES) == tiles &&
              rd(image, NVFP4_ABI_HDR_NUM_GROUPS) == 256 && rd64(image, NVFP4_ABI_HDR_TABLE) == 0x7700000000ull,
          "256 records in M order with their tiles and alpha pointers");
  /* the C map of a bf16 group, and the alpha rules */
  nvfp4rt_tmap_args a;
  EXPECT_STATUS(nvfp4rt_tmap_args_for(&m, &g[1], NVFP4RT_TMAP_C, &a), NVFP4RT_STATUS_OK);
  T_CHECK(a.data_type == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 && a.dims[0] == 96 + 8 && a.stride_bytes[0] == 272,
          "bf16 C map");
  nvfp4rt_group x = g[3];
  x.alpha = 0;
  EXPECT_STATUS(nvfp4rt_plan_validate(&m, &x, 1, NULL), NVFP4RT_STATUS_NULL_POINTER);
  x.alpha = alpha + 2;
  EXPECT_STATUS(nvfp4rt_plan_validate(&m, &x, 1, NULL), NVFP4RT_STATUS_MISALIGNED);
  m.epilogue_flags = 0;
  x.alpha = alpha;
  EXPECT_STATUS(nvfp4rt_plan_validate(&m, &x, 1, NULL), NVFP4RT_STATUS_INVALID_ARGUMENT);
  m.c_type = NVFP4_META_C_F32;
  x.alpha = 0;
  x.ldc = 132; /* 528 bytes: whole 16-byte rows for f32 */
  EXPECT_STATUS(nvfp4rt_plan_validate(&m, &x, 1, NULL), NVFP4RT_STATUS_OK);
  x.ldc = 134;
  EXPECT_STATUS(nvfp4rt_plan_validate(&m, &x, 1, NULL), NVFP4RT_STATUS_MISALIGNED);
  printf("g256: %u tiles over 256 groups\n", tiles);
  return t_summary("g256");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: runtime-moe-test types|route|layout|check|validate|tmap|meta|g256\n");
    return 2;
  }
  if (!strcmp(argv[1], "types")) return test_types();
  if (!strcmp(argv[1], "route")) return test_route();
  if (!strcmp(argv[1], "layout")) return test_layout();
  if (!strcmp(argv[1], "check")) return test_check();
  if (!strcmp(argv[1], "validate")) return test_validate();
  if (!strcmp(argv[1], "tmap")) return test_tmap();
  if (!strcmp(argv[1], "meta")) return test_meta();
  if (!strcmp(argv[1], "g256")) return test_g256();
  fprintf(stderr, "unknown test %s\n", argv[1]);
  return 2;
}
