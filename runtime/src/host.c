/* host.c — host-only helpers: FP4/E4M3/FP16 codecs, blocked scale-factor layout, the
 * SplitMix64 generator, the named cases of docs/format.md, random and edge-case shapes, the
 * input generator (optionally padded C stride), the tolerance check and the check for writes
 * outside C's M x N region. Pure C11, no driver. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4rt_host.h"
#include "host_internal.h"

/* ---- FP4 E2M1 ---- */

static const float kFp4[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

float nvfp4h_fp4_decode(uint8_t code) {
  float v = kFp4[code & 7];
  return (code & 8) ? -v : v;
}

uint8_t nvfp4h_fp4_encode(float x) {
  if (isnan(x)) return 0;
  uint8_t sign = signbit(x) ? 8 : 0;
  float a = fabsf(x);
  if (a >= 6.0f) return sign | 7;
  uint8_t best = 0;
  for (uint8_t c = 1; c < 8; c++) {
    float d = fabsf(kFp4[c] - a), db = fabsf(kFp4[best] - a);
    if (d < db || (d == db && (c & 1) == 0)) best = c;
  }
  return sign | best;
}

/* ---- FP8 E4M3FN ---- */

float nvfp4h_e4m3_decode(uint8_t code) {
  uint32_t e = (code >> 3) & 15, m = code & 7;
  float v;
  if (e == 15 && m == 7) v = NAN;
  else if (e == 0) v = ldexpf((float)m, -9);
  else v = ldexpf((float)(8 + m), (int)e - 10);
  return (code & 0x80) ? -v : v;
}

uint8_t nvfp4h_e4m3_encode(float x) {
  uint8_t sign = signbit(x) ? 0x80 : 0;
  if (isnan(x)) return sign | 0x7F;
  double a = fabs((double)x);
  if (a >= 448.0) return sign | 0x7E;
  if (a < ldexp(1.0, -6)) { /* subnormal range: multiples of 2^-9 */
    double q = nearbyint(a * 512.0);  /* default rounding mode: nearest even */
    return sign | (uint8_t)q;         /* q == 8 is the smallest normal, code 0x08 */
  }
  int e;
  double f = frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  e -= 1;                  /* a = (2f) * 2^e, 2f in [1, 2) */
  double q = nearbyint((2.0 * f - 1.0) * 8.0);
  if (q == 8.0) { q = 0; e += 1; }
  uint32_t code = ((uint32_t)(e + 7) << 3) | (uint32_t)q;
  if (code > 0x7E) code = 0x7E;
  return sign | (uint8_t)code;
}

/* ---- FP16 ---- */

float nvfp4h_half_to_float(uint16_t h) {
  uint32_t s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 0) v = ldexpf((float)m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = ldexpf((float)(1024 + m), (int)e - 25);
  return s ? -v : v;
}

uint16_t nvfp4h_float_to_half(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  uint32_t e = (u >> 23) & 0xFF, m = u & 0x7FFFFF;
  if (e == 0xFF) return sign | (m ? (uint16_t)(0x7E00 | (m >> 13)) : 0x7C00);
  int32_t he = (int32_t)e - 127 + 15;
  if (he >= 31) return sign | 0x7C00;
  if (he <= 0) { /* subnormal half (or zero): value = m24 * 2^(e-150), unit 2^-24 */
    if (he < -10) return sign; /* below half the smallest subnormal: rounds to 0 */
    uint32_t mant = m | 0x800000;
    uint32_t shift = (uint32_t)(14 - he); /* 2^(e-150) / 2^-24 = 2^(e-126) */
    uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    return sign | (uint16_t)q; /* q may carry into the exponent: still correct */
  }
  uint32_t q = ((uint32_t)he << 10) | (m >> 13), rem = m & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (q & 1))) q++; /* carry may produce inf: correct */
  return sign | (uint16_t)q;
}

/* ---- bf16 and the C element types ---- */

float nvfp4h_bf16_to_float(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

uint16_t nvfp4h_float_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
  u += 0x7FFFu + ((u >> 16) & 1u); /* round to nearest even (overflow gives inf) */
  return (uint16_t)(u >> 16);
}

uint32_t nvfp4h_c_bytes(nvfp4h_c_type t) { return t == NVFP4H_C_F32 ? 4u : 2u; }

const char *nvfp4h_c_type_name(nvfp4h_c_type t) {
  return t == NVFP4H_C_BF16 ? "bf16" : t == NVFP4H_C_F32 ? "f32" : "f16";
}

float nvfp4h_c_load(const void *c, size_t i, nvfp4h_c_type t) {
  if (t == NVFP4H_C_F32) {
    float f;
    memcpy(&f, (const unsigned char *)c + 4 * i, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, (const unsigned char *)c + 2 * i, 2);
  return t == NVFP4H_C_BF16 ? nvfp4h_bf16_to_float(h) : nvfp4h_half_to_float(h);
}

void nvfp4h_c_store(void *c, size_t i, nvfp4h_c_type t, float v) {
  if (t == NVFP4H_C_F32) {
    memcpy((unsigned char *)c + 4 * i, &v, 4);
    return;
  }
  uint16_t h = t == NVFP4H_C_BF16 ? nvfp4h_float_to_bf16(v) : nvfp4h_float_to_half(v);
  memcpy((unsigned char *)c + 2 * i, &h, 2);
}

/* ---- scale-factor layout ---- */

size_t nvfp4h_sf_blocked_offset(uint32_t r, uint32_t j, uint32_t S) {
  size_t RK = ((size_t)S + 3) / 4;
  return (((size_t)(r / 128) * RK + j / 4) * 512) + (size_t)(r % 32) * 16 +
         (size_t)((r % 128) / 32) * 4 + (j % 4);
}
size_t nvfp4h_sf_blocked_bytes(uint32_t R, uint32_t S) {
  const uint64_t atoms = (((uint64_t)R + 127) / 128) * (((uint64_t)S + 3) / 4); /* < 2^55 */
  return atoms > SIZE_MAX / 512 ? SIZE_MAX : (size_t)(atoms * 512);
}
void nvfp4h_sf_to_blocked(const uint8_t *plain, uint32_t R, uint32_t S, uint8_t *blocked) {
  memset(blocked, 0, nvfp4h_sf_blocked_bytes(R, S));
  for (uint32_t r = 0; r < R; r++)
    for (uint32_t j = 0; j < S; j++)
      blocked[nvfp4h_sf_blocked_offset(r, j, S)] = plain[(size_t)r * S + j];
}
void nvfp4h_sf_from_blocked(const uint8_t *blocked, uint32_t R, uint32_t S, uint8_t *plain) {
  for (uint32_t r = 0; r < R; r++)
    for (uint32_t j = 0; j < S; j++)
      plain[(size_t)r * S + j] = blocked[nvfp4h_sf_blocked_offset(r, j, S)];
}

/* ---- PRNG ---- */

uint64_t nvfp4h_rng_next(nvfp4h_rng *g) {
  uint64_t z = (g->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
uint64_t nvfp4h_stream_seed(uint64_t seed, uint32_t group, uint32_t tensor) {
  nvfp4h_rng g = {seed ^ ((uint64_t)group << 32) ^ ((uint64_t)tensor << 8) ^ 0x6E76667034ull};
  nvfp4h_rng_next(&g);
  return nvfp4h_rng_next(&g);
}
static uint32_t rng_below(nvfp4h_rng *g, uint32_t n) { /* n >= 1; tiny bias is irrelevant */
  return (uint32_t)((nvfp4h_rng_next(g) >> 32) % n);
}

/* ---- cases ---- */

typedef struct case_def {
  const char *name;
  uint32_t g;
  uint32_t m[8], n[8], k[8];
} case_def;

static const case_def kCases[] = {
    {"test:0", 2, {96, 128}, {128, 256}, {256, 512}},
    {"test:1", 2, {256, 72}, {512, 384}, {256, 256}},
    {"test:2", 2, {128, 128}, {128, 256}, {512, 256}},
    {"test:3", 3, {80, 128, 256}, {384, 256, 128}, {256, 512, 256}},
    {"test:4", 3, {64, 72, 96}, {128, 384, 512}, {512, 512, 256}},
    {"test:5", 3, {64, 256, 128}, {768, 128, 256}, {512, 256, 512}},
    {"test:6", 3, {128, 128, 64}, {256, 512, 512}, {768, 256, 768}},
    {"test:7", 4, {128, 128, 128, 128}, {128, 128, 128, 128}, {512, 256, 512, 256}},
    {"test:8", 4, {40, 56, 384, 512}, {512, 384, 256, 128}, {256, 256, 256, 256}},
    {"test:9", 4, {512, 384, 256, 128}, {256, 256, 256, 256}, {512, 768, 512, 768}},
    {"B1", 8, {80, 176, 128, 72, 64, 248, 96, 160},
     {4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096},
     {7168, 7168, 7168, 7168, 7168, 7168, 7168, 7168}},
    {"B2", 8, {40, 76, 168, 72, 164, 148, 196, 160},
     {7168, 7168, 7168, 7168, 7168, 7168, 7168, 7168},
     {2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048}},
    {"B3", 2, {192, 320}, {3072, 3072}, {4096, 4096}},
    {"B4", 2, {128, 384}, {4096, 4096}, {1536, 1536}},
};

uint32_t nvfp4h_case_shapes(const char *name, nvfp4h_shape *shapes, uint32_t capacity) {
  if (!name) return 0;
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    if (strcmp(kCases[i].name, name) != 0) continue;
    if (kCases[i].g > capacity) return 0;
    for (uint32_t g = 0; g < kCases[i].g; g++)
      shapes[g] = (nvfp4h_shape){kCases[i].m[g], kCases[i].n[g], kCases[i].k[g]};
    return kCases[i].g;
  }
  return 0;
}

uint32_t nvfp4h_parse_groups(const char *spec, nvfp4h_shape *shapes, uint32_t capacity) {
  if (!spec) return 0;
  uint32_t n = 0;
  const char *p = spec;
  while (*p) {
    unsigned long v[3];
    for (int i = 0; i < 3; i++) {
      char *end;
      while (*p == ' ') p++;
      if (*p < '0' || *p > '9') return 0;
      v[i] = strtoul(p, &end, 10);
      if (v[i] > 0xFFFFFFFFul) return 0;
      p = end;
      while (*p == ' ') p++;
      if (i < 2) {
        if (*p != ',') return 0;
        p++;
      }
    }
    if (n >= capacity) return 0;
    shapes[n++] = (nvfp4h_shape){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
    if (*p == ';') p++;
    else if (*p) return 0;
  }
  return n;
}

void nvfp4h_random_shapes(uint64_t seed, uint32_t groups, uint32_t max_m, uint32_t max_n,
                          uint32_t max_k, nvfp4h_shape *shapes) {
  nvfp4h_rng g = {nvfp4h_stream_seed(seed, 0xFFFFu, 99)};
  uint32_t kq = max_k / 64 ? max_k / 64 : 1;
  for (uint32_t i = 0; i < groups; i++) {
    shapes[i].m = 1 + rng_below(&g, max_m ? max_m : 1);
    shapes[i].n = 1 + rng_below(&g, max_n ? max_n : 1);
    shapes[i].k = 64 * (1 + rng_below(&g, kq));
  }
}

/* a value in [1, max] that is not a multiple of 8 (max >= 1) */
static uint32_t ragged_below(nvfp4h_rng *g, uint32_t max) {
  uint32_t v = 1 + rng_below(g, max);
  return v % 8 == 0 ? v - 1 : v;
}

void nvfp4h_edge_shapes(uint64_t seed, uint32_t groups, nvfp4h_shape *shapes) {
  /* its own stream: random:G shapes of the same seed are unaffected */
  nvfp4h_rng g = {nvfp4h_stream_seed(seed, 0xFFFEu, 98)};
  for (uint32_t i = 0; i < groups; i++) {
    /* every category draws M, N, K in this order, whatever it keeps */
    uint32_t m = ragged_below(&g, 300), n = ragged_below(&g, 600);
    uint32_t kq = 1 + rng_below(&g, 16); /* K / 64 in [1, 16] */
    uint32_t k;
    switch (i % 6) {
    case 0: k = 64; break;
    case 1: m = 0; k = 64; break;
    case 2: k = 192; break;
    case 3: n = 0; k = 192; break;
    case 4:
      m = 1 + m % 15; n = 1 + n % 15;
      if (m % 8 == 0) m--;
      if (n % 8 == 0) n--;
      k = 64 * kq;
      break;
    default:
      if (kq % 4 == 0) kq--; /* K % 256 != 0 */
      k = 64 * kq;
      break;
    }
    shapes[i] = (nvfp4h_shape){m, n, k};
  }
}

/* ---- generator ---- */

static uint8_t full_range_scale(nvfp4h_rng *g, int h) {
  int e = h - (int)rng_below(g, 7); /* exponent in [h-6, h] */
  uint32_t mant = rng_below(g, 8);
  if (e < -6) { /* subnormal: value mant' * 2^-9 with mant' in 1..7, roughly 2^e */
    int sh = -6 - e; /* 1..: scale down the 3-bit subnormal mantissa */
    uint32_t sm = (8u + mant) >> (sh > 3 ? 3 : sh);
    if (sm == 0) sm = 1;
    if (sm > 7) sm = 7;
    return (uint8_t)sm;
  }
  if (e > 8) e = 8;
  uint32_t code = ((uint32_t)(e + 7) << 3) | mant;
  if (code > 0x7E) code = 0x7E;
  return (uint8_t)code;
}

uint32_t nvfp4h_rng_below_(nvfp4h_rng *g, uint32_t n) { return rng_below(g, n); }
uint8_t nvfp4h_full_range_scale_(nvfp4h_rng *g, int h) { return full_range_scale(g, h); }
void nvfp4h_full_range_exponents_(uint32_t k, int *ha, int *hb) {
  int T = (int)floor(log2(65504.0 / (36.0 * (double)k))) - 2;
  *ha = (int)floor(T / 2.0);
  *hb = T - *ha;
}

void nvfp4h_problem_free(nvfp4h_problem *p) {
  if (!p) return;
  for (uint32_t g = 0; g < NVFP4H_MAX_GROUPS; g++) {
    nvfp4h_group_data *d = &p->groups[g];
    free(d->a); free(d->b); free(d->sfa); free(d->sfb); free(d->c);
  }
  memset(p, 0, sizeof *p);
}

int nvfp4h_problem_generate(const nvfp4h_shape *shapes, uint32_t num_groups, uint64_t seed,
                            nvfp4h_distribution dist, nvfp4h_problem *out) {
  return nvfp4h_problem_generate_ex(shapes, num_groups, seed, dist, 0, out);
}

int nvfp4h_problem_generate_ex(const nvfp4h_shape *shapes, uint32_t num_groups,
                               uint64_t seed, nvfp4h_distribution dist, uint32_t ldc_pad,
                               nvfp4h_problem *out) {
  nvfp4h_gen_options o = {.ldc_pad = ldc_pad, .c_type = NVFP4H_C_F16, .alpha = 0};
  return nvfp4h_problem_generate_opts(shapes, num_groups, seed, dist, &o, out);
}

int nvfp4h_problem_generate_opts(const nvfp4h_shape *shapes, uint32_t num_groups,
                                 uint64_t seed, nvfp4h_distribution dist,
                                 const nvfp4h_gen_options *opts, nvfp4h_problem *out) {
  if (!out) return NVFP4H_GENERATE_BAD_SHAPE;
  memset(out, 0, sizeof *out);
  if (!opts || opts->c_type > NVFP4H_C_F32) return NVFP4H_GENERATE_BAD_SHAPE;
  const uint32_t ldc_pad = opts->ldc_pad, eb = nvfp4h_c_bytes(opts->c_type);
  if (!shapes || num_groups == 0 || num_groups > NVFP4H_MAX_GROUPS)
    return NVFP4H_GENERATE_BAD_SHAPE;
  if (ldc_pad > (1u << 20)) return NVFP4H_GENERATE_BAD_SHAPE;
  out->num_groups = num_groups;
  for (uint32_t gi = 0; gi < num_groups; gi++) {
    nvfp4h_group_data *d = &out->groups[gi];
    const nvfp4h_shape s = shapes[gi];
    if (s.k == 0 || s.k % 32 != 0) {
      nvfp4h_problem_free(out);
      return NVFP4H_GENERATE_BAD_SHAPE;
    }
    d->m = s.m; d->n = s.n; d->k = s.k;
    const uint64_t ldc = ((uint64_t)s.n + ldc_pad + 7) / 8 * 8;
    if (ldc > 0xFFFFFFF8ull) {
      nvfp4h_problem_free(out);
      return NVFP4H_GENERATE_BAD_SHAPE;
    }
    d->ldc = ldc ? (uint32_t)ldc : 8;
    /* C (M * ldc * 4 bytes at most) can exceed 64 bits: no host holds that, and the size
     * must not wrap around to one an allocation serves */
    if ((uint64_t)s.m * d->ldc > SIZE_MAX / 8) {
      nvfp4h_problem_free(out);
      return NVFP4H_GENERATE_NO_MEMORY;
    }
    d->c_guard = d->ldc;
    const uint32_t S = s.k / 16;
    d->a_bytes = (size_t)s.m * s.k / 2;
    d->b_bytes = (size_t)s.n * s.k / 2;
    d->sfa_bytes = nvfp4h_sf_blocked_bytes(s.m, S);
    d->sfb_bytes = nvfp4h_sf_blocked_bytes(s.n, S);
    d->c_type = opts->c_type;
    d->c_bytes = (size_t)s.m * d->ldc * eb;
    d->a = malloc(d->a_bytes ? d->a_bytes : 1);
    d->b = malloc(d->b_bytes ? d->b_bytes : 1);
    d->sfa = calloc(1, d->sfa_bytes ? d->sfa_bytes : 1);
    d->sfb = calloc(1, d->sfb_bytes ? d->sfb_bytes : 1);
    d->c_alloc_bytes = d->c_bytes + (size_t)d->c_guard * eb;
    d->c = malloc(d->c_alloc_bytes);
    if (!d->a || !d->b || !d->sfa || !d->sfb || !d->c) {
      nvfp4h_problem_free(out);
      return NVFP4H_GENERATE_NO_MEMORY;
    }
    const uint8_t mask = dist == NVFP4H_DIST_COMPETITION ? 0xBB : 0xFF;
    /* tensors 0..4: A, B, SFA, SFB, C; each its own stream */
    uint8_t *ab[2] = {d->a, d->b};
    size_t abn[2] = {d->a_bytes, d->b_bytes};
    for (int t = 0; t < 2; t++) {
      nvfp4h_rng g = {nvfp4h_stream_seed(seed, gi, (uint32_t)t)};
      for (size_t i = 0; i < abn[t]; i += 8) {
        uint64_t r = nvfp4h_rng_next(&g);
        for (size_t j = 0; j < 8 && i + j < abn[t]; j++) ab[t][i + j] = (uint8_t)(r >> (8 * j)) & mask;
      }
    }
    int ha = 0, hb = 0;
    if (dist == NVFP4H_DIST_FULL_RANGE) nvfp4h_full_range_exponents_(s.k, &ha, &hb);
    uint8_t *sf[2] = {d->sfa, d->sfb};
    uint32_t rows[2] = {s.m, s.n};
    int hh[2] = {ha, hb};
    for (int t = 0; t < 2; t++) {
      nvfp4h_rng g = {nvfp4h_stream_seed(seed, gi, 2u + (uint32_t)t)};
      for (uint32_t r = 0; r < rows[t]; r++)
        for (uint32_t j = 0; j < S; j++) {
          uint8_t code = dist == NVFP4H_DIST_COMPETITION
                             ? (uint8_t)((nvfp4h_rng_next(&g) & 1) ? 0x40 : 0x38)
                             : full_range_scale(&g, hh[t]);
          sf[t][nvfp4h_sf_blocked_offset(r, j, S)] = code;
        }
    }
    nvfp4h_rng g = {nvfp4h_stream_seed(seed, gi, 4)};
    /* the matrix first, then the guard row: the matrix garbage is what it always was */
    for (size_t i = 0; i < d->c_alloc_bytes / 2; i++) d->c[i] = (uint16_t)nvfp4h_rng_next(&g);
    d->alpha = 1.0f;
    if (opts->alpha) { /* its own stream: nothing above depends on it */
      nvfp4h_rng ga = {nvfp4h_stream_seed(seed, gi, 5)};
      d->alpha = 0.5f + 0.5f * (float)(nvfp4h_rng_next(&ga) >> 40) / (float)(1u << 24);
    }
  }
  return 0;
}

/* ---- check ---- */

void nvfp4h_check_init(nvfp4h_check_result *r) { memset(r, 0, sizeof *r); }

void nvfp4h_check_fp16(const uint16_t *got, uint32_t ldg, const uint16_t *ref, uint32_t ldr,
                       uint32_t rows, uint32_t cols, uint32_t group, double atol, double rtol,
                       nvfp4h_check_result *r) {
  nvfp4h_check_typed(got, ldg, ref, ldr, rows, cols, NVFP4H_C_F16, group, atol, rtol, r);
}

void nvfp4h_check_tolerance(nvfp4h_c_type t, double *atol, double *rtol) {
  *atol = NVFP4H_CHECK_ATOL;
  *rtol = t == NVFP4H_C_BF16 ? 8e-3 : NVFP4H_CHECK_RTOL;
}

double nvfp4h_alpha_atol(double atol, float alpha) {
  const double a = fabs((double)alpha);
  return a > 1.0 || a < 1.0 / 256.0 ? atol * a : atol;
}

int nvfp4h_check_elem_(nvfp4h_check_result *r, uint32_t group, uint32_t row, uint32_t col,
                       float g, float f, double atol, double rtol) {
  int bad;
  r->checked++;
  if (isnan(f) || isnan(g)) bad = !(isnan(f) && isnan(g));
  else if (isinf(f) || isinf(g)) bad = !(f == g);
  else {
    double ad = fabs((double)g - (double)f);
    if (ad > r->max_abs) r->max_abs = ad;
    if (f != 0.0f) {
      double rd = ad / fabs((double)f);
      if (rd > r->max_rel) r->max_rel = rd;
    }
    bad = !(ad <= atol + rtol * fabs((double)f));
  }
  if (bad) {
    if (r->reported < NVFP4H_CHECK_MAX_REPORTED)
      r->first[r->reported++] = (nvfp4h_mismatch){group, row, col, g, f};
    r->mismatches++;
  }
  return !bad;
}

void nvfp4h_check_typed(const void *got, uint32_t ldg, const void *ref, uint32_t ldr,
                        uint32_t rows, uint32_t cols, nvfp4h_c_type t, uint32_t group,
                        double atol, double rtol, nvfp4h_check_result *r) {
  for (uint32_t i = 0; i < rows; i++)
    for (uint32_t j = 0; j < cols; j++)
      nvfp4h_check_elem_(r, group, i, j, nvfp4h_c_load(got, (size_t)i * ldg + j, t),
                         nvfp4h_c_load(ref, (size_t)i * ldr + j, t), atol, rtol);
}

uint64_t nvfp4h_check_outside(const uint16_t *got, const uint16_t *orig, uint32_t rows,
                              uint32_t cols, uint32_t ld, size_t guard, uint32_t group,
                              nvfp4h_check_result *r) {
  return nvfp4h_check_outside_ex(got, orig, rows, cols, ld, guard, 2, group, r);
}

static uint32_t elem_bits(const void *p, size_t i, uint32_t eb) {
  uint32_t v = 0;
  memcpy(&v, (const unsigned char *)p + i * eb, eb); /* little-endian */
  return v;
}

uint64_t nvfp4h_check_outside_ex(const void *got, const void *orig, uint32_t rows,
                                 uint32_t cols, uint32_t ld, size_t guard, uint32_t eb,
                                 uint32_t group, nvfp4h_check_result *r) {
  uint64_t found = 0;
  if (cols > ld) cols = ld;
  const size_t total = (size_t)rows * ld + guard;
  for (size_t i = 0; i < total; i++) {
    const size_t row = ld ? i / ld : 0, col = ld ? i % ld : 0;
    if (i < (size_t)rows * ld && col < cols) { /* inside M x N: the tolerance check's job */
      i += cols - col - 1;
      continue;
    }
    r->outside_checked++;
    const uint32_t now = elem_bits(got, i, eb), was = elem_bits(orig, i, eb);
    if (now == was) continue;
    found++;
    if (r->outside_reported < NVFP4H_CHECK_MAX_REPORTED)
      r->first_outside[r->outside_reported++] =
          (nvfp4h_outside_write){group, (uint32_t)row, (uint32_t)col, now, was};
  }
  r->outside_writes += found;
  return found;
}

void nvfp4h_check_group(const nvfp4h_group_data *d, const uint16_t *got, const uint16_t *ref,
                        uint32_t group, nvfp4h_check_result *r) {
  double atol, rtol;
  nvfp4h_check_tolerance(d->c_type, &atol, &rtol);
  atol = nvfp4h_alpha_atol(atol, d->alpha);
  nvfp4h_check_typed(got, d->ldc, ref, d->ldc, d->m, d->n, d->c_type, group, atol, rtol, r);
  nvfp4h_check_outside_ex(got, d->c, d->m, d->n, d->ldc, d->c_guard, nvfp4h_c_bytes(d->c_type),
                          group, r);
}

void nvfp4h_check_group_zero(const nvfp4h_group_data *d, const uint16_t *got, uint32_t group,
                             nvfp4h_check_result *r) {
  for (uint32_t i = 0; i < d->m; i++)
    for (uint32_t j = 0; j < d->n; j++) {
      const uint16_t v = got[(size_t)i * d->ldc + j];
      r->checked++;
      if (v == 0) continue;
      if (r->reported < NVFP4H_CHECK_MAX_REPORTED)
        r->first[r->reported++] = (nvfp4h_mismatch){group, i, j, nvfp4h_half_to_float(v), 0.0f};
      r->mismatches++;
    }
  nvfp4h_check_outside(got, d->c, d->m, d->n, d->ldc, d->c_guard, group, r);
}

void nvfp4h_problem_c_without_zeros(nvfp4h_problem *p) {
  for (uint32_t g = 0; g < p->num_groups; g++) {
    nvfp4h_group_data *d = &p->groups[g];
    for (size_t i = 0; i < d->c_alloc_bytes / 2; i++)
      if (d->c[i] == 0) d->c[i] = 0x8000;
  }
}

int nvfp4h_check_passed(const nvfp4h_check_result *r) {
  return r->mismatches == 0 && r->outside_writes == 0;
}
