/* runtime-host-test — host-only tests of libnvfp4rt's helpers: exhaustive FP4/E4M3/FP16
 * codec tests, blocked scale-factor offsets vs hand-computed values, generator determinism
 * and distributions, edge-case shapes and padded C strides, the reference GEMM vs a
 * hand-computed case and vs double-precision accumulation, the tolerance check and the
 * check for writes outside C's M x N region, the timing proxy's zero check and the fused
 * SwiGLU + NVFP4 quantizer (ties, zero, saturating and NaN blocks, the MoE SFC layout).
 * Usage: runtime-host-test codec|sf|gen|edge|ref|check|outside|zero|quant|bench CASE */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvfp4rt_host.h"
#include "test_util.h"

static int is_even_code(uint32_t c) { return (c & 1) == 0; }

static int test_codec(void) {
  /* FP4: exhaustive decode table and round trip */
  static const float want[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
  for (uint32_t c = 0; c < 16; c++) {
    float v = nvfp4h_fp4_decode((uint8_t)c);
    T_CHECK(v == want[c] && signbit(v) == signbit(want[c]), "fp4 decode %u -> %g", c, v);
    T_CHECK(nvfp4h_fp4_encode(v) == c, "fp4 encode(decode(%u)) = %u", c, nvfp4h_fp4_encode(v));
  }
  /* FP4: every midpoint between neighbours rounds to the even code; nudges go the right way */
  for (uint32_t c = 0; c < 7; c++) {
    float lo = want[c], hi = want[c + 1], mid = 0.5f * (lo + hi);
    uint32_t even = is_even_code(c) ? c : c + 1;
    T_CHECK(nvfp4h_fp4_encode(mid) == even, "fp4 tie %g -> %u (want %u)", mid, nvfp4h_fp4_encode(mid), even);
    T_CHECK(nvfp4h_fp4_encode(-mid) == (even | 8), "fp4 tie -%g", mid);
    T_CHECK(nvfp4h_fp4_encode(nextafterf(mid, 0)) == c, "fp4 below tie %g", mid);
    T_CHECK(nvfp4h_fp4_encode(nextafterf(mid, 100)) == c + 1, "fp4 above tie %g", mid);
  }
  T_CHECK(nvfp4h_fp4_encode(7.0f) == 7 && nvfp4h_fp4_encode(1e30f) == 7 && nvfp4h_fp4_encode(INFINITY) == 7, "fp4 saturation");
  T_CHECK(nvfp4h_fp4_encode(-INFINITY) == 15, "fp4 -inf saturates");
  T_CHECK(nvfp4h_fp4_encode(NAN) == 0, "fp4 NaN -> +0");
  T_CHECK(nvfp4h_fp4_encode(1e-30f) == 0 && nvfp4h_fp4_encode(-1e-30f) == 8, "fp4 tiny keeps sign");
  int fp4_ok = t_failures == 0;
  printf("codec: fp4 16 codes %s\n", fp4_ok ? "ok" : "BAD");

  /* E4M3: exhaustive decode against the formula, round trip, ties, saturation */
  int f0 = t_failures;
  for (uint32_t c = 0; c < 256; c++) {
    float v = nvfp4h_e4m3_decode((uint8_t)c);
    uint32_t e = (c >> 3) & 15, m = c & 7;
    if ((c & 0x7F) == 0x7F) {
      T_CHECK(isnan(v), "e4m3 %02x must be NaN", c);
      T_CHECK((nvfp4h_e4m3_encode(v) & 0x7F) == 0x7F, "e4m3 NaN encode");
      continue;
    }
    double w = e ? ldexp(1.0 + m / 8.0, (int)e - 7) : ldexp(m / 8.0, -6);
    if (c & 0x80) w = -w;
    T_CHECK((double)v == w, "e4m3 decode %02x -> %g want %g", c, v, w);
    T_CHECK(nvfp4h_e4m3_encode(v) == c, "e4m3 round trip %02x -> %02x", c, nvfp4h_e4m3_encode(v));
    if ((c & 0x7F) < 0x7E) { /* tie with the next code */
      float nx = nvfp4h_e4m3_decode((uint8_t)(c + 1));
      float mid = 0.5f * (v + nx);
      uint32_t even = is_even_code(c) ? c : c + 1;
      T_CHECK(nvfp4h_e4m3_encode(mid) == even, "e4m3 tie between %02x and %02x -> %02x", c, c + 1, nvfp4h_e4m3_encode(mid));
    }
  }
  T_CHECK(nvfp4h_e4m3_decode(0x7E) == 448.0f, "e4m3 max 448");
  T_CHECK(nvfp4h_e4m3_encode(464.0f) == 0x7E && nvfp4h_e4m3_encode(1e9f) == 0x7E &&
          nvfp4h_e4m3_encode(INFINITY) == 0x7E && nvfp4h_e4m3_encode(-INFINITY) == 0xFE, "e4m3 saturation");
  T_CHECK(nvfp4h_e4m3_encode(1.0f) == 0x38 && nvfp4h_e4m3_encode(2.0f) == 0x40, "e4m3 1.0/2.0 codes");
  T_CHECK(nvfp4h_e4m3_encode(ldexpf(1, -10)) == 0x00 && nvfp4h_e4m3_encode(ldexpf(3, -11)) == 0x01, "e4m3 underflow ties");
  printf("codec: e4m3 256 codes %s\n", t_failures == f0 ? "ok" : "BAD");

  /* FP16: all 65536 codes round trip; every tie between neighbouring finite halves */
  f0 = t_failures;
  for (uint32_t h = 0; h < 65536; h++) {
    float v = nvfp4h_half_to_float((uint16_t)h);
    uint16_t back = nvfp4h_float_to_half(v);
    if (((h >> 10) & 31) == 31 && (h & 1023)) { T_CHECK(isnan(v) && (back & 0x7C00) == 0x7C00 && (back & 1023), "half NaN %04x", h); continue; }
    T_CHECK(back == h, "half round trip %04x -> %04x", h, back);
    if ((h & 0x7FFF) < 0x7BFF) {
      float nx = nvfp4h_half_to_float((uint16_t)(h + 1));
      float mid = (float)(0.5 * ((double)v + (double)nx));  /* exact in float */
      uint16_t want_h = (uint16_t)(is_even_code(h) ? h : h + 1);
      T_CHECK(nvfp4h_float_to_half(mid) == want_h, "half tie %04x/%04x -> %04x", h, h + 1, nvfp4h_float_to_half(mid));
      T_CHECK(nvfp4h_float_to_half(nextafterf(mid, 0)) == (uint16_t)h || (h & 0x7FFF) == 0, "half below tie %04x", h);
    }
  }
  T_CHECK(nvfp4h_float_to_half(65520.0f) == 0x7C00 && nvfp4h_float_to_half(65519.0f) == 0x7BFF, "half overflow threshold");
  T_CHECK(nvfp4h_float_to_half(ldexpf(1, -25)) == 0 && nvfp4h_float_to_half(nextafterf(ldexpf(1, -25), 1)) == 1, "half underflow tie");
  printf("codec: fp16 65536 codes %s\n", t_failures == f0 ? "ok" : "BAD");
  return t_summary("codec");
}

static int test_sf(void) {
  /* hand-computed from the formula of docs/format.md */
  struct { uint32_t r, j, S; size_t off; } cases[] = {
      {0, 0, 4, 0},    {0, 1, 4, 1},     {0, 3, 4, 3},      {1, 0, 4, 16},    {31, 0, 4, 496},
      {32, 0, 4, 4},   {64, 2, 4, 10},   {127, 3, 4, 511},  {128, 0, 4, 512}, {0, 4, 8, 512},
      {128, 0, 8, 1024}, {200, 13, 28, 5257}, {129, 5, 16, 2560 + 16 + 1},
      {95, 6, 6, 2 * 512 - 512 + 31 * 16 + 2 * 4 + 2}, /* S=6 pads to 8: RK=2 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t o = nvfp4h_sf_blocked_offset(cases[i].r, cases[i].j, cases[i].S);
    T_CHECK(o == cases[i].off, "offset(r=%u, j=%u, S=%u) = %zu, want %zu", cases[i].r, cases[i].j, cases[i].S, o, cases[i].off);
  }
  T_CHECK(nvfp4h_sf_blocked_bytes(1, 1) == 512 && nvfp4h_sf_blocked_bytes(128, 4) == 512 &&
          nvfp4h_sf_blocked_bytes(129, 4) == 1024 && nvfp4h_sf_blocked_bytes(248, 448) == 2 * 112 * 512, "blocked bytes");
  /* 2^25 x 2^30 atoms of 512 bytes: 2^64, which wrapped to 0 */
  T_CHECK(nvfp4h_sf_blocked_bytes(UINT32_MAX, UINT32_MAX) == SIZE_MAX, "blocked bytes of 2^32-1 x "
          "2^32-1 = %zu, want SIZE_MAX", nvfp4h_sf_blocked_bytes(UINT32_MAX, UINT32_MAX));
  printf("sf: blocked bytes of 2^32-1 rows x 2^32-1 columns saturate at SIZE_MAX\n");
  /* ragged round trip; the layout is a bijection on the valid region and padding is zero */
  const uint32_t R = 200, S = 14;
  uint8_t *plain = malloc(R * S), *back = malloc(R * S);
  size_t nb = nvfp4h_sf_blocked_bytes(R, S);
  uint8_t *blk = malloc(nb), *hit = calloc(1, nb);
  for (uint32_t i = 0; i < R * S; i++) plain[i] = (uint8_t)(1 + i % 251);
  nvfp4h_sf_to_blocked(plain, R, S, blk);
  nvfp4h_sf_from_blocked(blk, R, S, back);
  T_CHECK(memcmp(plain, back, R * S) == 0, "blocked round trip");
  int dup = 0, pad_bad = 0;
  for (uint32_t r = 0; r < R; r++)
    for (uint32_t j = 0; j < S; j++) dup += hit[nvfp4h_sf_blocked_offset(r, j, S)]++ != 0;
  for (size_t i = 0; i < nb; i++) pad_bad += !hit[i] && blk[i] != 0;
  T_CHECK(dup == 0, "offsets collide (%d)", dup);
  T_CHECK(pad_bad == 0, "padding not zero (%d)", pad_bad);
  free(plain); free(back); free(blk); free(hit);
  return t_summary("sf");
}

static uint64_t hash_problem(const nvfp4h_problem *p) {
  uint64_t h = 1469598103934665603ull;
#define HB(ptr, n) for (size_t i_ = 0; i_ < (n); i_++) { h ^= ((const uint8_t *)(ptr))[i_]; h *= 1099511628211ull; }
  for (uint32_t g = 0; g < p->num_groups; g++) {
    const nvfp4h_group_data *d = &p->groups[g];
    HB(d->a, d->a_bytes); HB(d->b, d->b_bytes); HB(d->sfa, d->sfa_bytes); HB(d->sfb, d->sfb_bytes); HB(d->c, d->c_bytes);
  }
  return h;
}

static int test_gen(void) {
  nvfp4h_rng r = {0};
  T_CHECK(nvfp4h_rng_next(&r) == 0xE220A8397B1DCDAFull, "splitmix64 first output from state 0");
  nvfp4h_shape s[8];
  uint32_t n = nvfp4h_case_shapes("test:3", s, 8);
  T_CHECK(n == 3 && s[0].m == 80 && s[1].n == 256 && s[2].k == 256, "case test:3 shapes");
  T_CHECK(nvfp4h_case_shapes("B1", s, 8) == 8 && s[5].m == 248 && s[0].n == 4096 && s[0].k == 7168, "case B1");
  T_CHECK(nvfp4h_case_shapes("test:10", s, 8) == 0 && nvfp4h_case_shapes("B5", s, 8) == 0, "unknown case");
  T_CHECK(nvfp4h_parse_groups("96,128,256;128,256,512", s, 8) == 2 && s[1].k == 512, "parse groups");
  T_CHECK(nvfp4h_parse_groups("96,128", s, 8) == 0 && nvfp4h_parse_groups("1,2,x", s, 8) == 0, "parse errors");
  n = nvfp4h_case_shapes("test:3", s, 8);
  nvfp4h_problem p1, p2, p3;
  T_CHECK(nvfp4h_problem_generate(s, n, 1111, NVFP4H_DIST_COMPETITION, NULL) ==
              NVFP4H_GENERATE_BAD_SHAPE, "generate into NULL"); /* it dereferenced NULL */
  printf("gen: a NULL output is refused\n");
  T_CHECK(nvfp4h_problem_generate(s, n, 1111, NVFP4H_DIST_COMPETITION, &p1) == 0, "generate");
  nvfp4h_problem_generate(s, n, 1111, NVFP4H_DIST_COMPETITION, &p2);
  nvfp4h_problem_generate(s, n, 1112, NVFP4H_DIST_COMPETITION, &p3);
  uint64_t h1 = hash_problem(&p1);
  T_CHECK(h1 == hash_problem(&p2), "same seed, same data");
  T_CHECK(h1 != hash_problem(&p3), "different seed, different data");
  printf("gen: test:3 seed 1111 competition hash %016llx\n", (unsigned long long)h1);
  /* competition distribution */
  int bad_ab = 0, bad_sf = 0, bad_pad = 0;
  for (uint32_t g = 0; g < n; g++) {
    const nvfp4h_group_data *d = &p1.groups[g];
    for (size_t i = 0; i < d->a_bytes; i++) bad_ab += (d->a[i] & ~0xBB) != 0;
    for (size_t i = 0; i < d->b_bytes; i++) bad_ab += (d->b[i] & ~0xBB) != 0;
    uint32_t S = d->k / 16;
    for (uint32_t rr = 0; rr < d->m; rr++)
      for (uint32_t j = 0; j < S; j++) {
        uint8_t c = d->sfa[nvfp4h_sf_blocked_offset(rr, j, S)];
        bad_sf += c != 0x38 && c != 0x40;
      }
    size_t nonzero = 0;
    for (size_t i = 0; i < d->sfa_bytes; i++) nonzero += d->sfa[i] != 0;
    bad_pad += nonzero != (size_t)d->m * S;
    T_CHECK(d->ldc == d->n, "ldc == N for aligned N");
  }
  T_CHECK(bad_ab == 0, "A/B bytes masked with 0xBB (%d bad)", bad_ab);
  T_CHECK(bad_sf == 0, "SF in {1,2} (%d bad)", bad_sf);
  T_CHECK(bad_pad == 0, "SF padding zero");
  /* full range */
  nvfp4h_problem f;
  nvfp4h_shape rs[4];
  nvfp4h_random_shapes(5, 4, 300, 600, 1024, rs);
  int ragged = 0;
  for (int i = 0; i < 4; i++) ragged += rs[i].m % 128 != 0 || rs[i].n % 128 != 0;
  T_CHECK(ragged > 0, "random shapes are ragged");
  printf("gen: random:4 seed 5 shapes");
  for (int i = 0; i < 4; i++) printf(" %u,%u,%u", rs[i].m, rs[i].n, rs[i].k);
  printf("\n");
  T_CHECK(nvfp4h_problem_generate(rs, 4, 7, NVFP4H_DIST_FULL_RANGE, &f) == 0, "generate full range");
  int seen[16] = {0};
  float smax_a = 0, smax_b = 0, smin = 1e9f;
  for (uint32_t g = 0; g < 4; g++) {
    const nvfp4h_group_data *d = &f.groups[g];
    for (size_t i = 0; i < d->a_bytes; i++) seen[d->a[i] & 15] = seen[d->a[i] >> 4] = 1;
    uint32_t S = d->k / 16;
    smax_a = smax_b = 0;
    for (uint32_t rr = 0; rr < d->m; rr++)
      for (uint32_t j = 0; j < S; j++) {
        float v = nvfp4h_e4m3_decode(d->sfa[nvfp4h_sf_blocked_offset(rr, j, S)]);
        if (v > smax_a) smax_a = v;
        if (v < smin) smin = v;
      }
    for (uint32_t rr = 0; rr < d->n; rr++)
      for (uint32_t j = 0; j < S; j++) {
        float v = nvfp4h_e4m3_decode(d->sfb[nvfp4h_sf_blocked_offset(rr, j, S)]);
        if (v > smax_b) smax_b = v;
      }
    T_CHECK(36.0 * d->k * smax_a * smax_b <= 65504.0, "full-range bound group %u: %g", g, 36.0 * d->k * smax_a * smax_b);
    T_CHECK(d->ldc % 8 == 0 && d->ldc >= d->n, "ldc padded");
  }
  int all = 1;
  for (int i = 0; i < 16; i++) all &= seen[i];
  T_CHECK(all, "all 16 FP4 codes present");
  T_CHECK(smin > 0 && smin < 0.05f, "scales spread down to %g", smin);
  /* generate_ex with ldc_pad 0 is generate; a pad changes only ldc and C's garbage */
  nvfp4h_problem e0, e1;
  T_CHECK(nvfp4h_problem_generate_ex(s, n, 1111, NVFP4H_DIST_COMPETITION, 0, &e0) == 0, "generate_ex pad 0");
  T_CHECK(hash_problem(&e0) == h1, "generate_ex pad 0 == generate");
  T_CHECK(nvfp4h_problem_generate_ex(s, n, 1111, NVFP4H_DIST_COMPETITION, 13, &e1) == 0, "generate_ex pad 13");
  for (uint32_t g = 0; g < n; g++) {
    const nvfp4h_group_data *a = &e0.groups[g], *b = &e1.groups[g];
    T_CHECK(b->ldc == (b->n + 13 + 7) / 8 * 8 && b->ldc % 8 == 0 && b->ldc >= b->n + 13, "pad 13 ldc %u for N %u", b->ldc, b->n);
    T_CHECK(b->c_bytes == (size_t)b->m * b->ldc * 2 && b->c_guard == b->ldc &&
            b->c_alloc_bytes == b->c_bytes + (size_t)b->ldc * 2, "pad 13 C sizes");
    T_CHECK(a->a_bytes == b->a_bytes && !memcmp(a->a, b->a, a->a_bytes) && !memcmp(a->b, b->b, a->b_bytes) &&
            !memcmp(a->sfa, b->sfa, a->sfa_bytes) && !memcmp(a->sfb, b->sfb, a->sfb_bytes), "pad leaves A/B/SF alone");
    /* the guard row follows the matrix in the same stream: matrix garbage is unchanged */
    T_CHECK(a->c_alloc_bytes == a->c_bytes + (size_t)a->ldc * 2, "pad 0 guard row");
  }
  nvfp4h_problem_free(&e1); /* generate_ex starts by clearing its output */
  T_CHECK(nvfp4h_problem_generate_ex(s, n, 1111, NVFP4H_DIST_COMPETITION, (1u << 20) + 1, &e1) != 0, "huge pad refused");
  nvfp4h_problem_free(&e0); nvfp4h_problem_free(&e1);
  nvfp4h_problem_free(&p1); nvfp4h_problem_free(&p2); nvfp4h_problem_free(&p3); nvfp4h_problem_free(&f);
  return t_summary("gen");
}

/* edge-case shapes: determinism, categories, and that the generator, the reference and
 * the checks accept them */
static int test_edge(void) {
  nvfp4h_shape a[12], b[12], c[12];
  nvfp4h_edge_shapes(1111, 12, a);
  nvfp4h_edge_shapes(1111, 12, b);
  nvfp4h_edge_shapes(1112, 12, c);
  T_CHECK(!memcmp(a, b, sizeof a), "edge shapes deterministic");
  T_CHECK(memcmp(a, c, sizeof a) != 0, "edge shapes depend on the seed");
  nvfp4h_shape p6[6];
  nvfp4h_edge_shapes(1111, 6, p6);
  T_CHECK(!memcmp(p6, a, sizeof p6), "edge:6 is a prefix of edge:12");
  printf("edge: edge:6 seed 1111 shapes");
  for (int i = 0; i < 6; i++) printf(" %u,%u,%u", a[i].m, a[i].n, a[i].k);
  printf("\n");
  /* categories over many seeds */
  int bad = 0, m0 = 0, n0 = 0, k64 = 0, k192 = 0, not256 = 0;
  for (uint64_t seed = 0; seed < 200; seed++) {
    nvfp4h_shape s[12];
    nvfp4h_edge_shapes(seed, 12, s);
    for (uint32_t i = 0; i < 12; i++) {
      const uint32_t cat = i % 6;
      bad += s[i].k == 0 || s[i].k % 64 != 0 || s[i].k > 1024;
      bad += s[i].m > 300 || s[i].n > 600;
      bad += (s[i].m == 0) != (cat == 1) || (s[i].n == 0) != (cat == 3);
      if (s[i].m) bad += s[i].m % 8 == 0;
      if (s[i].n) bad += s[i].n % 8 == 0;
      bad += (cat == 0 || cat == 1) && s[i].k != 64;
      bad += (cat == 2 || cat == 3) && s[i].k != 192;
      bad += cat == 4 && (s[i].m > 15 || s[i].n > 15);
      bad += cat == 5 && s[i].k % 256 == 0;
      m0 += s[i].m == 0; n0 += s[i].n == 0; k64 += s[i].k == 64; k192 += s[i].k == 192;
      not256 += cat != 4 && s[i].k % 256 != 0;
    }
  }
  T_CHECK(bad == 0, "edge categories violated %d times", bad);
  T_CHECK(m0 == 400 && n0 == 400 && k64 >= 800 && k192 >= 800 && not256 == 2000,
          "edge coverage m0 %d n0 %d k64 %d k192 %d not256 %d", m0, n0, k64, k192, not256);
  /* the generator, the reference and the checks on edge:6 with a padded ldc */
  nvfp4h_problem p;
  T_CHECK(nvfp4h_problem_generate_ex(a, 6, 1111, NVFP4H_DIST_FULL_RANGE, 5, &p) == 0, "generate edge:6");
  nvfp4h_check_result r;
  nvfp4h_check_init(&r);
  for (uint32_t g = 0; g < 6; g++) {
    const nvfp4h_group_data *d = &p.groups[g];
    T_CHECK(d->ldc % 8 == 0 && d->ldc >= d->n + 5 && d->c_alloc_bytes >= 16, "edge group %u ldc %u", g, d->ldc);
    T_CHECK((d->m == 0) == (d->a_bytes == 0) && (d->n == 0) == (d->b_bytes == 0), "empty group bytes");
    uint16_t *got = malloc(d->c_alloc_bytes), *ref = malloc(d->c_bytes ? d->c_bytes : 1);
    double *o = malloc(sizeof(double) * ((size_t)d->m * d->n + 1));
    memcpy(got, d->c, d->c_alloc_bytes);
    T_CHECK(nvfp4h_reference_gemm(d, ref, d->ldc, 2) == 0, "reference edge group %u", g);
    nvfp4h_reference_gemm_f64(d, o);
    /* a correct "kernel": writes exactly M x N (rounded double sums) */
    for (uint32_t i = 0; i < d->m; i++)
      for (uint32_t j = 0; j < d->n; j++)
        got[(size_t)i * d->ldc + j] = nvfp4h_float_to_half((float)o[(size_t)i * d->n + j]);
    nvfp4h_check_group(d, got, ref, g, &r);
    free(got); free(ref); free(o);
  }
  T_CHECK(nvfp4h_check_passed(&r) && r.mismatches == 0 && r.outside_writes == 0,
          "edge:6 check: %llu mismatches, %llu outside writes", (unsigned long long)r.mismatches,
          (unsigned long long)r.outside_writes);
  printf("edge: edge:6 ldc pad 5: %llu checked, %llu outside elements checked\n",
         (unsigned long long)r.checked, (unsigned long long)r.outside_checked);
  nvfp4h_problem_free(&p);
  return t_summary("edge");
}

/* a hand-made 2 x 3 x 64 group */
static int test_ref_small(void) {
  nvfp4h_group_data d;
  memset(&d, 0, sizeof d);
  d.m = 2; d.n = 3; d.k = 64; d.ldc = 8;
  uint8_t a[2 * 32], b[3 * 32];
  uint8_t sfa_plain[2 * 4], sfb_plain[3 * 4];
  /* A row 0: all 1.0 (code 2); row 1: element k = +-0.5 alternating (codes 1, 9) */
  memset(a, 0x22, 32);
  memset(a + 32, 0x91, 32);
  /* B row 0: all 6 (7); row 1: all -1.5 (0xB); row 2: element 0 is 4 (6), rest 0 */
  memset(b, 0x77, 32);
  memset(b + 32, 0xBB, 32);
  memset(b + 64, 0, 32);
  b[64] = 0x06;
  /* scales: SFA row 0 = {1, 2, 0.5, 448}; row 1 = 1; SFB row 0 = 1, row 1 = {2,2,2,2}, row 2 = {0.25,..} */
  uint8_t c1 = 0x38, c2 = 0x40, ch = 0x30, cmax = 0x7E, cq = 0x28;
  uint8_t sa[8] = {c1, c2, ch, cmax, c1, c1, c1, c1};
  uint8_t sb[12] = {c1, c1, c1, c1, c2, c2, c2, c2, cq, cq, cq, cq};
  memcpy(sfa_plain, sa, 8);
  memcpy(sfb_plain, sb, 12);
  uint8_t sfa[512], sfb[512];
  nvfp4h_sf_to_blocked(sfa_plain, 2, 4, sfa);
  nvfp4h_sf_to_blocked(sfb_plain, 3, 4, sfb);
  d.a = a; d.b = b; d.sfa = sfa; d.sfb = sfb;
  uint16_t c[2 * 8];
  memset(c, 0xFF, sizeof c);
  T_CHECK(nvfp4h_reference_gemm(&d, c, 8, 2) == 0, "ref gemm runs");
  /* hand values:
   * C[0,0] = 6 * 16 * (1 + 2 + 0.5 + 448) = 96 * 451.5 = 43344 -> fp16 tie (spacing 32)
   *          rounds to even: 43328
   * C[0,1] = -1.5*2 * 16 * 451.5 = -21672 -> fp16 tie (spacing 16) -> -21664
   * C[0,2] = 1 * 4 * 0.25 = 1
   * C[1,0] = sum of +-0.5 * 6 = 0 ; C[1,1] = 0 ; C[1,2] = 0.5 * 4 * 0.25 = 0.5 */
  const float want[2][3] = {{43328.0f, -21664.0f, 1.0f}, {0.0f, 0.0f, 0.5f}};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      T_CHECK(nvfp4h_half_to_float(c[i * 8 + j]) == want[i][j], "C[%d,%d] = %g want %g", i, j, nvfp4h_half_to_float(c[i * 8 + j]), want[i][j]);
  T_CHECK(c[3] == 0xFFFF && c[8 + 7] == 0xFFFF, "padding columns untouched");
  double d64[6];
  nvfp4h_reference_gemm_f64(&d, d64);
  T_CHECK(d64[0] == 43344.0 && d64[4] == 0.0 && d64[5] == 0.5, "f64 path hand values");
  return 0;
}

static int test_ref(void) {
  test_ref_small();
  /* fp32 path vs double accumulation on every test case (docs/format.md), both distributions */
  double worst = 0;
  for (int dist = 0; dist < 2; dist++)
    for (int t = 0; t < 10; t++) {
      char name[16];
      snprintf(name, sizeof name, "test:%d", t);
      nvfp4h_shape s[8];
      uint32_t n = nvfp4h_case_shapes(name, s, 8);
      nvfp4h_problem p;
      nvfp4h_problem_generate(s, n, 1111 + (uint64_t)t, (nvfp4h_distribution)dist, &p);
      nvfp4h_check_result r;
      nvfp4h_check_init(&r);
      for (uint32_t g = 0; g < n; g++) {
        const nvfp4h_group_data *d = &p.groups[g];
        uint16_t *c = malloc(d->c_bytes), *c64 = malloc(d->c_bytes);
        double *o = malloc(sizeof(double) * d->m * d->n);
        nvfp4h_reference_gemm(d, c, d->ldc, 2);
        nvfp4h_reference_gemm_f64(d, o);
        for (uint32_t i = 0; i < d->m; i++)
          for (uint32_t j = 0; j < d->n; j++) c64[(size_t)i * d->ldc + j] = nvfp4h_float_to_half((float)o[(size_t)i * d->n + j]);
        nvfp4h_check_fp16(c, d->ldc, c64, d->ldc, d->m, d->n, g, NVFP4H_CHECK_ATOL, NVFP4H_CHECK_RTOL, &r);
        free(c); free(c64); free(o);
      }
      T_CHECK(r.mismatches == 0, "%s dist %d: %llu mismatches fp32 vs f64 (max abs %g)", name, dist, (unsigned long long)r.mismatches, r.max_abs);
      if (r.max_rel > worst) worst = r.max_rel;
      nvfp4h_problem_free(&p);
    }
  printf("ref: fp32 vs f64 over 20 problems, max rel err %.3g\n", worst);
  return t_summary("ref");
}

static int test_check(void) {
  const uint16_t one = 0x3C00, nan = 0x7E00, inf = 0x7C00, ninf = 0xFC00;
  uint16_t ref[8] = {one, nan, inf, 0x0000, 0x6400 /*1024*/, one, nan, ninf};
  uint16_t got[8] = {0x3C01, nan, inf, 0x1400 /*~0.00098*/, 0x6401 /*1025*/, nan, one, inf};
  nvfp4h_check_result r;
  nvfp4h_check_init(&r);
  nvfp4h_check_fp16(got, 8, ref, 8, 1, 8, 3, NVFP4H_CHECK_ATOL, NVFP4H_CHECK_RTOL, &r);
  /* 1+2^-10 vs 1: |d| = 9.8e-4 <= 2e-3 ok; NaN==NaN ok; inf==inf ok; 9.8e-4 vs 0 ok (atol);
   * 1025 vs 1024: 1 > 1e-3 + 1.024 ? no -> ok; NaN vs 1 fail; 1 vs NaN fail; inf vs -inf fail */
  T_CHECK(r.checked == 8 && r.mismatches == 3, "mismatches %llu", (unsigned long long)r.mismatches);
  T_CHECK(r.reported == 3 && r.first[0].col == 5 && r.first[1].col == 6 && r.first[2].col == 7 && r.first[0].group == 3, "reported positions");
  uint16_t g2 = 0x6402; /* 1026 vs 1024: 2 > 0.001 + 1.024 -> fail */
  nvfp4h_check_init(&r);
  nvfp4h_check_fp16(&g2, 1, &ref[4], 1, 1, 1, 0, NVFP4H_CHECK_ATOL, NVFP4H_CHECK_RTOL, &r);
  T_CHECK(r.mismatches == 1 && r.max_abs == 2.0, "rtol boundary");
  printf("check: max abs %g max rel %g\n", r.max_abs, r.max_rel);
  return t_summary("check");
}

/* the check for writes outside C's M x N region, on hand-made buffers */
static int test_outside(void) {
  const nvfp4h_shape s[3] = {{5, 20, 64}, {3, 0, 64}, {0, 12, 64}};
  nvfp4h_problem p;
  T_CHECK(nvfp4h_problem_generate_ex(s, 3, 42, NVFP4H_DIST_COMPETITION, 13, &p) == 0, "generate");
  const nvfp4h_group_data *d = &p.groups[0];
  T_CHECK(d->ldc == 40 && d->c_guard == 40, "ldc = round8(20 + 13) = %u", d->ldc);
  uint16_t *ref = malloc(d->c_bytes), *got = malloc(d->c_alloc_bytes);
  nvfp4h_reference_gemm(d, ref, d->ldc, 1);
  memcpy(got, d->c, d->c_alloc_bytes);
  for (uint32_t i = 0; i < d->m; i++)
    memcpy(got + (size_t)i * d->ldc, ref + (size_t)i * d->ldc, (size_t)d->n * 2);
  nvfp4h_check_result r;
  /* untouched padding: passes; every padding column and the guard row are compared */
  nvfp4h_check_init(&r);
  nvfp4h_check_group(d, got, ref, 0, &r);
  T_CHECK(nvfp4h_check_passed(&r) && r.checked == 100 && r.outside_checked == 5 * 20 + 40,
          "clean: checked %llu outside %llu", (unsigned long long)r.checked, (unsigned long long)r.outside_checked);
  /* one padding element changed: fails, position and bits reported */
  const size_t pad_at = 2 * 40 + 25;
  const uint16_t was = got[pad_at];
  got[pad_at] = (uint16_t)(was ^ 0x0400);
  nvfp4h_check_init(&r);
  nvfp4h_check_group(d, got, ref, 0, &r);
  T_CHECK(!nvfp4h_check_passed(&r) && r.mismatches == 0 && r.outside_writes == 1, "padding write not caught");
  T_CHECK(r.outside_reported == 1 && r.first_outside[0].row == 2 && r.first_outside[0].col == 25 &&
          r.first_outside[0].got == (uint16_t)(was ^ 0x0400) && r.first_outside[0].want == was, "padding write position");
  printf("outside: padding write at [%u, %u] caught\n", r.first_outside[0].row, r.first_outside[0].col);
  got[pad_at] = was;
  /* the last padding column and the first column past N */
  got[4 * 40 + 39] ^= 1;
  got[0 * 40 + 20] ^= 1;
  nvfp4h_check_init(&r);
  nvfp4h_check_group(d, got, ref, 0, &r);
  T_CHECK(r.outside_writes == 2 && r.first_outside[0].row == 0 && r.first_outside[0].col == 20 &&
          r.first_outside[1].row == 4 && r.first_outside[1].col == 39, "padding edges");
  got[4 * 40 + 39] ^= 1;
  got[0 * 40 + 20] ^= 1;
  /* a write into the guard row (row M, as a ragged-M predication bug would do) */
  got[5 * 40 + 3] ^= 0x8000;
  nvfp4h_check_init(&r);
  nvfp4h_check_group(d, got, ref, 0, &r);
  T_CHECK(r.outside_writes == 1 && r.first_outside[0].row == 5 && r.first_outside[0].col == 3, "guard write");
  printf("outside: guard-row write at [%u, %u] caught\n", r.first_outside[0].row, r.first_outside[0].col);
  got[5 * 40 + 3] ^= 0x8000;
  /* a wrong value inside M x N is the tolerance check's failure, not an outside write */
  got[1 * 40 + 7] ^= 0x4000;
  nvfp4h_check_init(&r);
  nvfp4h_check_group(d, got, ref, 0, &r);
  T_CHECK(r.mismatches == 1 && r.outside_writes == 0 && !nvfp4h_check_passed(&r), "inside write");
  got[1 * 40 + 7] ^= 0x4000;
  free(got); free(ref);
  /* empty groups: N = 0 (every element of its M rows and the guard) and M = 0 (the guard) */
  for (uint32_t g = 1; g < 3; g++) {
    const nvfp4h_group_data *e = &p.groups[g];
    uint16_t *c = malloc(e->c_alloc_bytes);
    memcpy(c, e->c, e->c_alloc_bytes);
    nvfp4h_check_init(&r);
    nvfp4h_check_group(e, c, NULL, g, &r);
    const uint64_t want = (uint64_t)e->m * e->ldc + e->c_guard;
    T_CHECK(nvfp4h_check_passed(&r) && r.checked == 0 && r.outside_checked == want,
            "empty group %u clean: %llu of %llu", g, (unsigned long long)r.outside_checked, (unsigned long long)want);
    c[e->c_alloc_bytes / 2 - 1] ^= 0x0001;
    nvfp4h_check_init(&r);
    nvfp4h_check_group(e, c, NULL, g, &r);
    T_CHECK(!nvfp4h_check_passed(&r) && r.outside_writes == 1 && r.first_outside[0].group == g &&
            r.first_outside[0].row == e->m && r.first_outside[0].col == e->ldc - 1, "empty group %u write", g);
    free(c);
  }
  /* at most NVFP4H_CHECK_MAX_REPORTED positions, all counted */
  uint16_t orig[64], now[64];
  for (int i = 0; i < 64; i++) orig[i] = now[i] = (uint16_t)(0x7C01 + i); /* NaN patterns: bitwise */
  nvfp4h_check_init(&r);
  T_CHECK(nvfp4h_check_outside(now, orig, 4, 8, 16, 0, 0, &r) == 0 && r.outside_checked == 32, "NaN garbage equal");
  for (int i = 0; i < 64; i++) now[i] ^= 0x0100;
  nvfp4h_check_init(&r);
  T_CHECK(nvfp4h_check_outside(now, orig, 4, 8, 16, 0, 0, &r) == 32 && r.outside_reported == NVFP4H_CHECK_MAX_REPORTED &&
          r.first_outside[0].col == 8, "all counted");
  nvfp4h_problem_free(&p);
  return t_summary("outside");
}

/* The timing proxy's check: C must be +0 inside M x N and untouched outside it. */
static int test_zero(void) {
  const nvfp4h_shape s[2] = {{6, 20, 64}, {0, 12, 64}};
  nvfp4h_problem p;
  T_CHECK(nvfp4h_problem_generate_ex(s, 2, 7, NVFP4H_DIST_COMPETITION, 5, &p) == 0, "generate");
  nvfp4h_group_data *d = &p.groups[0];
  d->c[3] = 0; /* garbage that happens to be +0 ... */
  nvfp4h_problem_c_without_zeros(&p);
  T_CHECK(d->c[3] == 0x8000, "+0 garbage becomes -0"); /* ... can no longer hide a skip */
  size_t zeros = 0;
  for (size_t i = 0; i < d->c_alloc_bytes / 2; i++) zeros += d->c[i] == 0;
  T_CHECK(zeros == 0, "%zu +0 left in the garbage", zeros);
  uint16_t *got = malloc(d->c_alloc_bytes);
  memcpy(got, d->c, d->c_alloc_bytes);
  for (uint32_t i = 0; i < d->m; i++) memset(got + (size_t)i * d->ldc, 0, (size_t)d->n * 2);
  nvfp4h_check_result r;
  nvfp4h_check_init(&r);
  nvfp4h_check_group_zero(d, got, 0, &r);
  T_CHECK(nvfp4h_check_passed(&r) && r.checked == 120 && r.outside_checked == 6 * 12 + 32,
          "clean: checked %llu outside %llu", (unsigned long long)r.checked,
          (unsigned long long)r.outside_checked);
  /* an element the kernel skipped (still garbage), and one it wrote as -0 */
  got[2 * d->ldc + 19] = d->c[2 * d->ldc + 19];
  got[5 * d->ldc] = 0x8000;
  nvfp4h_check_init(&r);
  nvfp4h_check_group_zero(d, got, 0, &r);
  T_CHECK(!nvfp4h_check_passed(&r) && r.mismatches == 2 && r.outside_writes == 0 &&
          r.first[0].row == 2 && r.first[0].col == 19 && r.first[1].row == 5 && r.first[1].col == 0,
          "skipped elements: %llu", (unsigned long long)r.mismatches);
  printf("zero: skipped element at [%u, %u] caught\n", r.first[0].row, r.first[0].col);
  got[2 * d->ldc + 19] = got[5 * d->ldc] = 0;
  /* a zero written into the padding (column N) is an outside write */
  got[1 * d->ldc + 20] = 0;
  nvfp4h_check_init(&r);
  nvfp4h_check_group_zero(d, got, 0, &r);
  T_CHECK(!nvfp4h_check_passed(&r) && r.mismatches == 0 && r.outside_writes == 1 &&
          r.first_outside[0].row == 1 && r.first_outside[0].col == 20, "padding zero");
  printf("zero: padding write at [%u, %u] caught\n", r.first_outside[0].row, r.first_outside[0].col);
  free(got);
  /* an empty group: nothing inside, everything outside */
  nvfp4h_check_init(&r);
  nvfp4h_check_group_zero(&p.groups[1], p.groups[1].c, 1, &r);
  T_CHECK(nvfp4h_check_passed(&r) && r.checked == 0 && r.outside_checked == p.groups[1].c_guard,
          "empty group");
  nvfp4h_problem_free(&p);
  return t_summary("zero");
}


/* ---- the fused SwiGLU + NVFP4 quantizer (docs/format.md, "Re-quantization to NVFP4") ---- */

/* Quantizes a block whose first element is `head` (its amax when |head| is the largest)
 * and whose other 15 are `rest`; returns the scale, codes into c. */
static uint8_t quant_with(float head, const float *rest, float gs, uint8_t *c) {
  float x[16];
  x[0] = head;
  for (int i = 1; i < 16; i++) x[i] = rest ? rest[i - 1] : 0.0f;
  return nvfp4h_quant_block(x, gs, c);
}

static int all_codes(const uint8_t *c, uint8_t want) {
  for (int i = 0; i < 16; i++)
    if (c[i] != want) return 0;
  return 1;
}

/* The value thresholds: with amax 6 and gs 1 the scale is 1.0 (0x38) and r = 1, so every
 * code is E2M1(x) itself: each tie, its neighbours and a random sweep against the codec. */
static void quant_values(void) {
  static const float ties[7] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  static const uint8_t even[7] = {0, 2, 2, 4, 4, 6, 6};
  uint8_t c[16];
  for (int t = 0; t < 7; t++) {
    float rest[15] = {ties[t], -ties[t], nextafterf(ties[t], 0), nextafterf(ties[t], 10)};
    T_CHECK(quant_with(6.0f, rest, 1.0f, c) == 0x38, "scale of amax 6, gs 1");
    T_CHECK(c[0] == 7 && c[1] == even[t] && c[2] == (even[t] | 8), "tie %g -> %u/%u", ties[t], c[1], c[2]);
    T_CHECK(c[3] == (uint8_t)t && c[4] == (uint8_t)(t + 1), "around tie %g: %u %u", ties[t], c[3], c[4]);
  }
  nvfp4h_rng g = {77};
  uint64_t bad = 0;
  for (int n = 0; n < 200000; n++) {
    float rest[15];
    for (int i = 0; i < 15; i++) {
      uint32_t r = (uint32_t)nvfp4h_rng_next(&g);
      rest[i] = (float)(r >> 8) / 16777216.0f * 12.0f - 6.0f; /* [-6, 6) */
    }
    quant_with(-6.0f, rest, 1.0f, c);
    for (int i = 0; i < 15; i++) bad += c[i + 1] != nvfp4h_fp4_encode(rest[i]);
  }
  T_CHECK(bad == 0, "%llu random values differ from nvfp4h_fp4_encode", (unsigned long long)bad);
}

/* The scale: RNE ties of amax/6*gs, saturation, zero and underflowing blocks, NaN, inf. */
static void quant_scales(void) {
  uint8_t c[16];
  float ones[15] = {1, -1, 3, 0.5f};
  T_CHECK(quant_with(6.375f, NULL, 1.0f, c) == 0x38, "1.0625 ties to even 1.0 (0x38)");
  T_CHECK(quant_with(7.125f, NULL, 1.0f, c) == 0x3A, "1.1875 ties to even 1.25 (0x3A)");
  T_CHECK(quant_with(nextafterf(6.375f, 10), NULL, 1.0f, c) == 0x39, "above the tie rounds up");
  /* a scale in the E4M3 subnormals: amax/6*gs = 3 * 2^-10, the tie 1.5 * 2^-9 -> 2 * 2^-9 */
  T_CHECK(quant_with(6.0f, NULL, ldexpf(3, -10), c) == 0x02, "subnormal scale tie");
  /* zero block, -0 block, a block whose scale underflows to 0: every code +0 */
  float negz[15];
  for (int i = 0; i < 15; i++) negz[i] = -0.0f;
  T_CHECK(quant_with(0.0f, NULL, 1.0f, c) == 0 && all_codes(c, 0), "zero block");
  T_CHECK(quant_with(-0.0f, negz, 1.0f, c) == 0 && all_codes(c, 0), "-0 block: codes +0");
  T_CHECK(quant_with(1e-30f, ones, 1e-6f, c) == 0 && all_codes(c, 0), "underflowing scale");
  /* saturating scale: amax/6*gs = 1000 -> 448; the values x * gs / 448 above 6 saturate */
  T_CHECK(quant_with(6000.0f, ones, 1.0f, c) == 0x7E, "scale saturates to 448");
  T_CHECK(c[0] == 7, "6000/448 saturates to 6");
  T_CHECK(c[1] == 0 && c[2] == 8 && c[3] == 0, "small values beside a saturated scale: %u %u %u", c[1], c[2], c[3]);
  T_CHECK(quant_with(-6000.0f, ones, 1.0f, c) == 0x7E && c[0] == 15, "negative saturation");
  /* gs scales both sides: the same block with gs = 448 / 6 gets scale 448 * amax / 36 */
  T_CHECK(quant_with(6.0f, ones, 448.0f / 6.0f, c) == nvfp4h_e4m3_encode(1.0f * (448.0f / 6.0f)), "gs in the scale");
  /* NaN: scale 0x7F, all codes +0; inf: scale saturates, inf itself saturates to +-6 */
  float nanrest[15] = {1, NAN, 2};
  T_CHECK(quant_with(6.0f, nanrest, 1.0f, c) == 0x7F && all_codes(c, 0), "NaN block");
  T_CHECK(quant_with(-INFINITY, ones, 1.0f, c) == 0x7E && c[0] == 15 && c[1] == 0, "inf block");
}

/* Packing and the blocked SFC of the MoE form: experts start on 128-row atoms. */
static void quant_layout(void) {
  enum { M = 300, COLS = 128, S = COLS / 16, E = 3 };
  static float x[M * COLS];
  nvfp4h_rng g = {5};
  for (size_t i = 0; i < (size_t)M * COLS; i++)
    x[i] = ldexpf((float)((int32_t)(nvfp4h_rng_next(&g) >> 40) - (1 << 23)), -20);
  int32_t off[E + 1] = {0, 130, 130, 300}; /* 130 rows, none, 170 rows: atoms 0-1, 2-3 */
  const size_t sfb = nvfp4h_sf_blocked_bytes(4 * 128, S);
  static uint8_t fp4[M * COLS / 2], sf[4096]; /* 4 atom rows x 2 atoms */
  memset(sf, 0xEE, sizeof sf);
  T_CHECK(sizeof sf >= sfb, "sf buffer");
  T_CHECK(nvfp4h_moe_quantize(x, M, COLS, off, E, 3.0f, fp4, sf, sfb) == 0, "moe quantize");
  T_CHECK(nvfp4h_moe_quantize(x, M, 120, off, E, 3.0f, fp4, sf, sfb) == -1, "cols not a multiple of 16 refused");
  T_CHECK(nvfp4h_moe_quantize(x, M, COLS, off, E, 3.0f, fp4, sf, 3 * 1024) == -1, "small sf refused");
  uint64_t bad = 0;
  for (uint32_t r = 0; r < M; r++) {
    uint32_t brow = r < 130 ? r : 256 + (r - 130);
    for (uint32_t j = 0; j < S; j++) {
      uint8_t c[16];
      uint8_t want = nvfp4h_quant_block(x + (size_t)r * COLS + 16 * j, 3.0f, c);
      bad += sf[nvfp4h_sf_blocked_offset(brow, j, S)] != want;
      for (int i = 0; i < 16; i++)
        bad += ((fp4[(size_t)r * COLS / 2 + 8 * j + i / 2] >> (4 * (i & 1))) & 15) != c[i];
    }
  }
  T_CHECK(bad == 0, "%llu codes or scales misplaced", (unsigned long long)bad);
  T_CHECK(sf[nvfp4h_sf_blocked_offset(130, 0, S)] == 0xEE && sf[nvfp4h_sf_blocked_offset(255, 7, S)] == 0xEE,
          "padding rows of expert 0's atoms untouched");
}

static void quant_swiglu(void) {
  T_CHECK(nvfp4h_swiglu(0.0f, 5.0f) == 0.0f, "silu(0) = 0");
  T_CHECK(nvfp4h_swiglu(1.0f, 2.0f) == (1.0f / (1.0f + exp2f(-1.44269502162933349609375f))) * 2.0f, "silu(1)*2 (exp2 form)");
  T_CHECK(fabsf(nvfp4h_swiglu(1.0f, 2.0f) - 2.0f / (1.0f + expf(-1.0f))) <= 1e-6f, "silu(1)*2 near expf");
  T_CHECK(nvfp4h_swiglu(-100.0f, 1.0f) == 0.0f && signbit(nvfp4h_swiglu(-100.0f, 1.0f)), "silu(-100) = -0");
  T_CHECK(nvfp4h_swiglu(INFINITY, 1.0f) == INFINITY && isnan(nvfp4h_swiglu(-INFINITY, 1.0f)), "silu(+-inf)");
  uint16_t gu[4] = {nvfp4h_float_to_bf16(1.0f), nvfp4h_float_to_bf16(-2.0f), nvfp4h_float_to_bf16(3.0f),
                    nvfp4h_float_to_bf16(0.5f)};
  float h[2];
  nvfp4h_swiglu_rows(gu, NVFP4H_C_BF16, 4, 1, 2, h);
  T_CHECK(h[0] == nvfp4h_swiglu(1.0f, 3.0f) && h[1] == nvfp4h_swiglu(-2.0f, 0.5f), "gate columns 0..I-1, up I..2I-1");
}

static int test_quant(void) {
  quant_values();
  printf("quant: values %s\n", t_failures ? "BAD" : "ok");
  int f0 = t_failures;
  quant_scales();
  printf("quant: scales %s\n", t_failures == f0 ? "ok" : "BAD");
  f0 = t_failures;
  quant_layout();
  printf("quant: layout %s\n", t_failures == f0 ? "ok" : "BAD");
  f0 = t_failures;
  quant_swiglu();
  printf("quant: swiglu %s\n", t_failures == f0 ? "ok" : "BAD");
  return t_summary("quant");
}

static int bench(const char *name) {
  nvfp4h_shape s[8];
  uint32_t n = nvfp4h_case_shapes(name, s, 8);
  if (!n) { printf("unknown case %s\n", name); return 2; }
  nvfp4h_problem p;
  nvfp4h_problem_generate(s, n, 1111, NVFP4H_DIST_COMPETITION, &p);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (uint32_t g = 0; g < n; g++) {
    uint16_t *c = malloc(p.groups[g].c_bytes);
    nvfp4h_reference_gemm(&p.groups[g], c, p.groups[g].ldc, 0);
    free(c);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s_ = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  printf("bench: reference %s %.2f s\n", name, s_);
  T_CHECK(s_ < 15.0, "reference %s took %.2f s (limit 15 s)", name, s_);
  nvfp4h_problem_free(&p);
  return t_summary("bench");
}

int main(int argc, char **argv) {
  if (argc < 2) { printf("usage: runtime-host-test codec|sf|gen|edge|ref|check|outside|zero|bench CASE\n"); return 2; }
  if (!strcmp(argv[1], "codec")) return test_codec();
  if (!strcmp(argv[1], "sf")) return test_sf();
  if (!strcmp(argv[1], "gen")) return test_gen();
  if (!strcmp(argv[1], "edge")) return test_edge();
  if (!strcmp(argv[1], "outside")) return test_outside();
  if (!strcmp(argv[1], "zero")) return test_zero();
  if (!strcmp(argv[1], "ref")) return test_ref();
  if (!strcmp(argv[1], "check")) return test_check();
  if (!strcmp(argv[1], "quant")) return test_quant();
  if (!strcmp(argv[1], "bench") && argc > 2) return bench(argv[2]);
  printf("unknown test %s\n", argv[1]);
  return 2;
}
