/* moehost.c — host-only helpers of the contiguous (MoE) form: routings (including the
 * adversarial offsets the kernel must survive), the kernel's own reading of the offsets,
 * the problem generator (tokens sorted by expert, E weight matrices, per-token scales laid
 * out in expert segments that start on 128-row atoms), and the check of C against the C
 * reference of every expert. Pure C11, no driver. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4rt_host.h"

static const char *const kRoutings[NVFP4H_ROUTE_COUNT_] = {"random",   "empty",      "one",
                                                           "balanced", "decreasing", "beyond"};

const char *nvfp4h_moe_routing_name(nvfp4h_moe_routing r) {
  return (unsigned)r < NVFP4H_ROUTE_COUNT_ ? kRoutings[r] : NULL;
}

int nvfp4h_moe_routing_parse(const char *name) {
  for (int i = 0; name && i < NVFP4H_ROUTE_COUNT_; i++)
    if (!strcmp(name, kRoutings[i])) return i;
  return -1;
}

void nvfp4h_moe_route(nvfp4h_moe_routing r, uint64_t seed, uint32_t E, uint32_t m,
                      uint32_t tokens, int32_t *off) {
  nvfp4h_rng g = {nvfp4h_stream_seed(seed, 0xFFFDu, (uint32_t)r)};
  if (tokens > m) tokens = m;
  memset(off, 0, sizeof *off * ((size_t)E + 1));
  /* counts in off[1..E], then the prefix sum */
  if (r == NVFP4H_ROUTE_BALANCED) {
    for (uint32_t e = 0; e < E; e++) off[e + 1] = (int32_t)(tokens / E + (e < tokens % E));
  } else if (r == NVFP4H_ROUTE_ONE) {
    off[1 + nvfp4h_rng_below_(&g, E)] = (int32_t)tokens;
  } else {
    const uint32_t every = r == NVFP4H_ROUTE_EMPTY ? 3u : 1u;
    const uint32_t used = (E + every - 1) / every;
    for (uint32_t t = 0; t < tokens; t++) off[1 + every * nvfp4h_rng_below_(&g, used)]++;
  }
  for (uint32_t e = 0; e < E; e++) off[e + 1] += off[e];
  if (r == NVFP4H_ROUTE_DECREASING && E > 1) {
    /* a few inner offsets below their predecessor: the experts before and after overlap */
    for (int i = 0; i < 3; i++) {
      uint32_t e = 1 + nvfp4h_rng_below_(&g, E - 1 > 0 ? E - 1 : 1);
      off[e] = off[e - 1] / 2 - 1;
    }
  } else if (r == NVFP4H_ROUTE_BEYOND) {
    /* past the rows of A and C, and negative */
    off[E] = (int32_t)m + 1000;
    if (E > 1) off[E - 1] = (int32_t)m + 5;
    if (E > 3) off[E / 2] = (int32_t)(2u * m + 77u);
    off[0] = -5;
  }
}

void nvfp4h_moe_expert_rows(const int32_t *off, uint32_t m, uint32_t e, uint32_t *start,
                            uint32_t *rows) {
  uint32_t lim[2];
  for (int i = 0; i < 2; i++) {
    int32_t v = off[e + (uint32_t)i];
    lim[i] = v < 0 ? 0u : (uint32_t)v > m ? m : (uint32_t)v;
  }
  *start = lim[0];
  *rows = lim[1] > lim[0] ? lim[1] - lim[0] : 0;
}

void nvfp4h_moe_problem_free(nvfp4h_moe_problem *p) {
  if (!p) return;
  free(p->offsets); free(p->alpha); free(p->a); free(p->b); free(p->sfb);
  free(p->sfa_plain); free(p->sfa); free(p->c);
  memset(p, 0, sizeof *p);
}

static void fill_fp4(uint8_t *dst, size_t bytes, nvfp4h_rng *g, uint8_t mask) {
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t r = nvfp4h_rng_next(g);
    for (size_t j = 0; j < 8 && i + j < bytes; j++) dst[i + j] = (uint8_t)(r >> (8 * j)) & mask;
  }
}

static uint8_t scale(nvfp4h_rng *g, nvfp4h_distribution dist, int h) {
  if (dist == NVFP4H_DIST_COMPETITION) return (nvfp4h_rng_next(g) & 1) ? 0x40 : 0x38;
  return nvfp4h_full_range_scale_(g, h);
}

int nvfp4h_moe_generate(uint32_t E, uint32_t m, uint32_t n, uint32_t k, uint32_t tokens,
                        nvfp4h_moe_routing routing, uint64_t seed, nvfp4h_distribution dist,
                        const nvfp4h_gen_options *opts, nvfp4h_moe_problem *out) {
  if (!out) return NVFP4H_GENERATE_BAD_SHAPE;
  memset(out, 0, sizeof *out);
  if (!opts || opts->c_type > NVFP4H_C_F32 || E == 0 || E > NVFP4_ABI_MAX_GROUPS || k == 0 ||
      k % 64 != 0 || tokens > m || (unsigned)routing >= NVFP4H_ROUTE_COUNT_ ||
      opts->ldc_pad > (1u << 20))
    return NVFP4H_GENERATE_BAD_SHAPE;
  const uint32_t S = k / 16, eb = nvfp4h_c_bytes(opts->c_type);
  const uint64_t ldc = ((uint64_t)n + opts->ldc_pad + 7) / 8 * 8;
  if (ldc > 0xFFFFFFF8ull) return NVFP4H_GENERATE_BAD_SHAPE;
  /* B (E * N * K / 2 bytes) and C (M * ldc * 4 at most) can exceed 64 bits, which no host
   * can hold: report that as what it is rather than allocate a wrapped-around size */
  if ((uint64_t)n * (k / 2) > SIZE_MAX / E || (uint64_t)m * ldc > SIZE_MAX / 8)
    return NVFP4H_GENERATE_NO_MEMORY;
  out->num_experts = E; out->m = m; out->n = n; out->k = k;
  out->ldc = ldc ? (uint32_t)ldc : 8;
  out->c_type = opts->c_type;
  out->sfa_atoms = (uint32_t)nvfp4_abi_moe_sfa_atoms(m, E);
  out->a_bytes = (size_t)m * k / 2;
  out->b_bytes = (size_t)E * n * k / 2;
  out->sfb_expert_bytes = nvfp4h_sf_blocked_bytes(n, S);
  out->sfb_bytes = out->sfb_expert_bytes * E;
  out->sfa_bytes = (size_t)out->sfa_atoms * ((S + 3) / 4) * 512;
  out->c_guard = out->ldc;
  out->c_bytes = (size_t)m * out->ldc * eb;
  out->c_alloc_bytes = out->c_bytes + (size_t)out->c_guard * eb;
  out->offsets = malloc(sizeof(int32_t) * ((size_t)E + 1));
  out->alpha = malloc(sizeof(float) * E);
  out->a = malloc(out->a_bytes ? out->a_bytes : 1);
  out->b = malloc(out->b_bytes ? out->b_bytes : 1);
  out->sfb = calloc(1, out->sfb_bytes ? out->sfb_bytes : 1);
  out->sfa_plain = malloc((size_t)m * S + 1);
  out->sfa = calloc(1, out->sfa_bytes ? out->sfa_bytes : 1);
  out->c = malloc(out->c_alloc_bytes);
  if (!out->offsets || !out->alpha || !out->a || !out->b || !out->sfb || !out->sfa_plain ||
      !out->sfa || !out->c) {
    nvfp4h_moe_problem_free(out);
    return NVFP4H_GENERATE_NO_MEMORY;
  }
  const uint8_t mask = dist == NVFP4H_DIST_COMPETITION ? 0xBB : 0xFF;
  int ha = 0, hb = 0;
  if (dist == NVFP4H_DIST_FULL_RANGE) nvfp4h_full_range_exponents_(k, &ha, &hb);
  /* streams: tokens (group 0) and expert e (group e): 0 A, 1 B, 2 SFA, 3 SFB, 4 C, 5 alpha */
  nvfp4h_rng g = {nvfp4h_stream_seed(seed, 0, 0)};
  fill_fp4(out->a, out->a_bytes, &g, mask);
  g.state = nvfp4h_stream_seed(seed, 0, 2);
  for (size_t i = 0; i < (size_t)m * S; i++) out->sfa_plain[i] = scale(&g, dist, ha);
  for (uint32_t e = 0; e < E; e++) {
    g.state = nvfp4h_stream_seed(seed, e, 1);
    fill_fp4(out->b + (size_t)e * n * (k / 2), (size_t)n * (k / 2), &g, mask);
    g.state = nvfp4h_stream_seed(seed, e, 3);
    uint8_t *sfb = out->sfb + (size_t)e * out->sfb_expert_bytes;
    for (uint32_t r = 0; r < n; r++)
      for (uint32_t j = 0; j < S; j++) sfb[nvfp4h_sf_blocked_offset(r, j, S)] = scale(&g, dist, hb);
    out->alpha[e] = 1.0f;
    if (opts->alpha) {
      g.state = nvfp4h_stream_seed(seed, e, 5);
      out->alpha[e] = 0.5f + 0.5f * (float)(nvfp4h_rng_next(&g) >> 40) / (float)(1u << 24);
    }
  }
  g.state = nvfp4h_stream_seed(seed, 0, 4);
  for (size_t i = 0; i < out->c_alloc_bytes / 2; i++) out->c[i] = (uint16_t)nvfp4h_rng_next(&g);
  nvfp4h_moe_route(routing, seed, E, m, tokens, out->offsets);
  nvfp4h_moe_layout_sfa(out);
  return 0;
}

void nvfp4h_moe_layout_sfa(nvfp4h_moe_problem *p) {
  const uint32_t S = p->k / 16;
  const size_t atom_row_bytes = (size_t)((S + 3) / 4) * 512;
  memset(p->sfa, 0, p->sfa_bytes);
  uint64_t atom = 0;
  for (uint32_t e = 0; e < p->num_experts; e++) {
    uint32_t start, rows;
    nvfp4h_moe_expert_rows(p->offsets, p->m, e, &start, &rows);
    const uint64_t atoms = (rows + 127u) / 128u;
    if (atom + atoms > p->sfa_atoms) break; /* cannot happen: sfa_atoms is the worst case */
    uint8_t *seg = p->sfa + atom * atom_row_bytes;
    for (uint32_t r = 0; r < rows; r++)
      for (uint32_t j = 0; j < S; j++)
        seg[nvfp4h_sf_blocked_offset(r, j, S)] = p->sfa_plain[(size_t)(start + r) * S + j];
    atom += atoms;
  }
}

int nvfp4h_moe_check(const nvfp4h_moe_problem *p, const void *got, int threads,
                     nvfp4h_check_result *r) {
  const uint32_t E = p->num_experts, S = p->k / 16, eb = nvfp4h_c_bytes(p->c_type);
  const size_t atom_row_bytes = (size_t)((S + 3) / 4) * 512;
  double atol, rtol;
  nvfp4h_check_tolerance(p->c_type, &atol, &rtol);
  uint32_t *start = malloc(sizeof(uint32_t) * E), *rows = malloc(sizeof(uint32_t) * E);
  void **ref = calloc(E, sizeof *ref);
  int rc = -1;
  if (!start || !rows || !ref) goto done;
  /* every expert's reference, from its segment of every tensor */
  uint64_t atom = 0;
  for (uint32_t e = 0; e < E; e++) {
    nvfp4h_moe_expert_rows(p->offsets, p->m, e, &start[e], &rows[e]);
    if (!rows[e] || !p->n) continue;
    nvfp4h_group_data d;
    memset(&d, 0, sizeof d);
    d.m = rows[e]; d.n = p->n; d.k = p->k; d.ldc = p->n;
    d.a = p->a + (size_t)start[e] * (p->k / 2);
    d.b = p->b + (size_t)e * p->n * (p->k / 2);
    d.sfa = p->sfa + atom * atom_row_bytes;
    d.sfb = p->sfb + (size_t)e * p->sfb_expert_bytes;
    atom += (rows[e] + 127u) / 128u;
    ref[e] = malloc((size_t)rows[e] * p->n * eb);
    if (!ref[e] || nvfp4h_reference_gemm_ex(&d, ref[e], p->n, p->c_type, p->alpha[e], threads))
      goto done;
  }
  /* padding columns and the guard row */
  nvfp4h_check_outside_ex(got, p->c, p->m, p->n, p->ldc, p->c_guard, eb, E, r);
  uint32_t claim[8];
  for (uint32_t row = 0; row < p->m; row++) {
    uint32_t nc = 0;
    for (uint32_t e = 0; e < E; e++)
      if (row >= start[e] && row - start[e] < rows[e]) {
        if (nc < 8) claim[nc] = e;
        nc++;
      }
    const size_t base = (size_t)row * p->ldc;
    if (nc == 0) { /* no expert owns the row: it keeps its garbage */
      for (uint32_t col = 0; col < p->n; col++) {
        uint32_t now = 0, was = 0;
        memcpy(&now, (const unsigned char *)got + (base + col) * eb, eb);
        memcpy(&was, (const unsigned char *)p->c + (base + col) * eb, eb);
        r->outside_checked++;
        if (now == was) continue;
        r->outside_writes++;
        if (r->outside_reported < NVFP4H_CHECK_MAX_REPORTED)
          r->first_outside[r->outside_reported++] = (nvfp4h_outside_write){E, row, col, now, was};
      }
      continue;
    }
    /* one owner: its result; several (overlapping offsets): each element one of theirs */
    if (nc > 8) nc = 8;
    for (uint32_t col = 0; col < p->n; col++) {
      const float gv = nvfp4h_c_load(got, base + col, p->c_type);
      uint32_t pick = claim[0];
      for (uint32_t i = 1; i < nc; i++) {
        nvfp4h_check_result scratch;
        nvfp4h_check_init(&scratch);
        const uint32_t e = claim[i];
        if (nvfp4h_check_elem_(&scratch, e, row, col, gv,
                               nvfp4h_c_load(ref[e], (size_t)(row - start[e]) * p->n + col,
                                             p->c_type), nvfp4h_alpha_atol(atol, p->alpha[e]),
                               rtol)) {
          pick = e;
          break;
        }
      }
      nvfp4h_check_elem_(r, pick, row, col, gv,
                         nvfp4h_c_load(ref[pick], (size_t)(row - start[pick]) * p->n + col,
                                       p->c_type), nvfp4h_alpha_atol(atol, p->alpha[pick]), rtol);
    }
  }
  rc = 0;
done:
  if (ref)
    for (uint32_t e = 0; e < E; e++) free(ref[e]);
  free(ref);
  free(start);
  free(rows);
  return rc;
}
