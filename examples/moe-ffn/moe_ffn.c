/* moe_ffn.c — a whole NVFP4 MoE expert FFN (up-projection, SwiGLU, NVFP4 re-quantization,
 * down-projection) on the generated kernels or libnvfp4rt's C reference (README.md):
 *   kernels (--target gpu: cubins through libnvfp4rt, ffn_gpu.c; --target cpu: the CPU
 *            target through libnvfp4sim, ffn_cpu.c): the nvfp4.moe_matmul kernel with the
 *            fused SwiGLU + NVFP4 epilogue (ffn_up*.mlir), then the down-projection kernel
 *            (ffn_down*.mlir) reading its FP4 output and SFC as A and SFA, bf16 C, alpha 1/gs;
 *   fused (C reference, --target reference): up-projection sums x alpha in fp32 -> SwiGLU
 *            in fp32 -> quantize (FP4 H + SFC) -> the same down-projection;
 *   unfused (C reference, every target): up-projection stored as bf16 -> SwiGLU -> quantize
 *            -> down-projection (docs/format.md, "Re-quantization to NVFP4").
 * Checks: the reference target's intermediate equals nvfp4h_quant_block of its fp32
 * activations bit for bit; the kernels' intermediate equals it of the reference activations
 * within FFN_KERNEL_MISMATCH_BUDGET, and their down-projection the C reference GEMM on their
 * own intermediate; the end result is within the stated tolerance of the unfused one.
 * Shapes: DeepSeek-V3 (hidden 7168, intermediate 2048, 256 experts, top-8) or a scaled-down
 * one (--small: hidden 512, intermediate 256, 16 experts, top-4); tokens from the command
 * line. Routing: each token picks top-k distinct random experts; the M = tokens x k rows are
 * grouped by expert (the contiguous form's A).
 *   usage: moe-ffn TOKENS [--small] [--target auto|gpu|cpu|reference] [--seed S] ...
 * Exit status: 0 pass, 1 check failed, 2 error, 77 no usable GPU (--target gpu). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moe_ffn.h"
#include "nvfp4rt_host.h"

/* End-result tolerance (fused vs unfused): the two intermediates differ only where the
 * bf16 rounding of gate and up (relative 2^-9) moves an activation across an E2M1 or E4M3
 * rounding boundary — one code step in a small fraction of the elements. Their effect on
 * y = H W2^T is a sum of such steps with random signs, so the check is on norms: the
 * relative L2 distance over all of Y, and every element's distance relative to Y's RMS.
 * Measured on the scaled-down shape (seeds 1-11 and 1111, 16 and 300 tokens): about 0.6 %
 * of the intermediate's bytes differ, relative L2 0.021-0.026, worst element 0.35-1.21 x RMS
 * (growing slowly with the element count); the tolerances leave a margin of 1.6x or more. */
#define FFN_REL_L2 0.05
#define FFN_ELEM_RMS 2.0

/* The kernels' intermediate against the reference quantizer of the *reference* activations:
 * the kernel sums the same products in another order, so an activation within a few fp32
 * ulps of an E2M1 or E4M3 rounding boundary may round the other way (one code, or a whole
 * block's scale). The bit-exact check of the kernel against its own activations is
 * test/CpuSim/run-fused*.test's (a build with nvfp4.debug_activations); here at most this
 * fraction of the codes and scales may differ (measured: see the README). */
#define FFN_KERNEL_MISMATCH_BUDGET 0.001

static void fill_random(uint8_t *p, size_t n, nvfp4h_rng *g) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)nvfp4h_rng_next(g);
}

/* Random E4M3 scales in [2^-3, 2^1): exponent field 4..7, any mantissa. */
static void fill_scales(uint8_t *p, size_t n, nvfp4h_rng *g) {
  for (size_t i = 0; i < n; i++) {
    uint32_t r = (uint32_t)nvfp4h_rng_next(g);
    p[i] = (uint8_t)(((4 + (r & 3)) << 3) | ((r >> 2) & 7));
  }
}

/* Blocked scales of `rows` x (k/16) random values per expert, E tensors back to back. */
static uint8_t *expert_scales(uint32_t e, uint32_t rows, uint32_t k, size_t *each,
                              nvfp4h_rng *g) {
  const uint32_t S = k / 16;
  *each = nvfp4h_sf_blocked_bytes(rows, S);
  uint8_t *plain = malloc((size_t)rows * S), *out = calloc(e, *each);
  if (!plain || !out) { free(plain); free(out); return NULL; }
  for (uint32_t i = 0; i < e; i++) {
    fill_scales(plain, (size_t)rows * S, g);
    nvfp4h_sf_to_blocked(plain, rows, S, out + i * *each);
  }
  free(plain);
  return out;
}

/* Each token picks topk distinct experts; rows sorted by expert copy the token's row. */
static int route_tokens(ffn_data *d, const uint8_t *tok, const uint8_t *tok_sf, nvfp4h_rng *g) {
  const ffn_shape *s = &d->s;
  const uint32_t E = s->experts, S = s->hidden / 16, rowb = s->hidden / 2;
  uint32_t *pick = malloc(sizeof *pick * d->m), *perm = malloc(sizeof *perm * E);
  uint32_t *fill = calloc(E, sizeof *fill);
  int ok = pick && perm && fill;
  for (uint32_t t = 0; ok && t < s->tokens; t++) {
    for (uint32_t e = 0; e < E; e++) perm[e] = e;
    for (uint32_t j = 0; j < s->topk; j++) {
      uint32_t r = j + (uint32_t)(nvfp4h_rng_next(g) % (E - j)), tmp = perm[j];
      perm[j] = perm[r]; perm[r] = tmp;
      pick[t * s->topk + j] = perm[j];
      d->offsets[perm[j] + 1]++;
    }
  }
  for (uint32_t e = 0; ok && e < E; e++) d->offsets[e + 1] += d->offsets[e];
  uint64_t atom = 0;
  for (uint32_t e = 0; ok && e < E; e++) {
    for (uint32_t a = 0; a < d->m; a++) {
      if (pick[a] != e) continue;
      uint32_t t = a / s->topk, r = (uint32_t)d->offsets[e] + fill[e]++;
      memcpy(d->x + (size_t)r * rowb, tok + (size_t)t * rowb, rowb);
      uint8_t *seg = d->sfx + atom * ((S + 3) / 4) * 512;
      for (uint32_t j = 0; j < S; j++)
        seg[nvfp4h_sf_blocked_offset(r - (uint32_t)d->offsets[e], j, S)] = tok_sf[(size_t)t * S + j];
    }
    atom += ((uint32_t)(d->offsets[e + 1] - d->offsets[e]) + 127u) / 128u;
  }
  free(pick); free(perm); free(fill);
  return ok ? 0 : -1;
}

static int ffn_generate(ffn_data *d, uint64_t seed) {
  const ffn_shape *s = &d->s;
  const uint32_t E = s->experts, I = s->inter, H = s->hidden;
  nvfp4h_rng g = {seed};
  d->m = s->tokens * s->topk;
  d->atoms = d->m / 128 + E; /* >= nvfp4_abi_moe_sfa_atoms(M, E) */
  d->sfx_bytes = (size_t)d->atoms * ((H / 16 + 3) / 4) * 512;
  d->sfh_bytes = (size_t)d->atoms * ((I / 16 + 3) / 4) * 512;
  d->offsets = calloc(E + 1, sizeof *d->offsets);
  d->x = malloc((size_t)d->m * H / 2 + 1);
  d->sfx = calloc(1, d->sfx_bytes);
  d->w13 = malloc((size_t)E * 2 * I * H / 2);
  d->w2 = malloc((size_t)E * H * I / 2);
  d->alpha13 = malloc(sizeof(float) * E);
  uint8_t *tok = malloc((size_t)s->tokens * H / 2 + 1), *tok_sf = malloc((size_t)s->tokens * H / 16 + 1);
  if (!d->offsets || !d->x || !d->sfx || !d->w13 || !d->w2 || !d->alpha13 || !tok || !tok_sf) {
    free(tok); free(tok_sf);
    return -1;
  }
  fill_random(tok, (size_t)s->tokens * H / 2, &g); /* all 16 codes */
  fill_scales(tok_sf, (size_t)s->tokens * H / 16, &g);
  fill_random(d->w13, (size_t)E * 2 * I * H / 2, &g);
  fill_random(d->w2, (size_t)E * H * I / 2, &g);
  for (uint32_t e = 0; e < E; e++) d->alpha13[e] = 0.5f + (float)(nvfp4h_rng_next(&g) >> 40) / 33554432.0f;
  size_t each13, each2;
  d->sfw13 = expert_scales(E, 2 * I, H, &each13, &g);
  d->sfw2 = expert_scales(E, H, I, &each2, &g);
  d->sfw13_bytes = each13; d->sfw2_bytes = each2;
  int rc = d->sfw13 && d->sfw2 ? route_tokens(d, tok, tok_sf, &g) : -1;
  free(tok); free(tok_sf);
  return rc;
}

static void ffn_free(ffn_data *d) {
  free(d->offsets); free(d->x); free(d->sfx); free(d->w13); free(d->sfw13); free(d->w2);
  free(d->sfw2); free(d->alpha13);
}

/* One expert's GEMM view: rows [start, start + rows) of A (row bytes k/2) with scales at
 * atom row `atom` of sfa; expert e's B and SFB. */
static nvfp4h_group_data expert_view(const uint8_t *a, const uint8_t *sfa, uint64_t atom,
                                     uint32_t start, uint32_t rows, const uint8_t *b,
                                     const uint8_t *sfb, size_t sfb_each, uint32_t e,
                                     uint32_t n, uint32_t k) {
  nvfp4h_group_data g;
  memset(&g, 0, sizeof g);
  g.m = rows; g.n = n; g.k = k; g.ldc = n;
  g.a = (uint8_t *)a + (size_t)start * (k / 2);
  g.sfa = (uint8_t *)sfa + atom * ((k / 16 + 3) / 4) * 512;
  g.b = (uint8_t *)b + (size_t)e * n * (k / 2);
  g.sfb = (uint8_t *)sfb + e * sfb_each;
  return g;
}

/* The up-projection of every expert into gu (M x 2I of type t, alpha13 applied). */
static int up_projection(const ffn_data *d, nvfp4h_c_type t, void *gu, int threads) {
  const uint32_t I = d->s.inter, H = d->s.hidden;
  uint64_t atom = 0;
  for (uint32_t e = 0; e < d->s.experts; e++) {
    uint32_t start, rows;
    nvfp4h_moe_expert_rows(d->offsets, d->m, e, &start, &rows);
    nvfp4h_group_data g = expert_view(d->x, d->sfx, atom, start, rows, d->w13, d->sfw13,
                                      d->sfw13_bytes, e, 2 * I, H);
    char *out = (char *)gu + (size_t)start * 2 * I * nvfp4h_c_bytes(t);
    if (rows && nvfp4h_reference_gemm_ex(&g, out, 2 * I, t, d->alpha13[e], threads)) return -1;
    atom += (rows + 127u) / 128u;
  }
  return 0;
}

/* The down-projection reading h / sfh as its A / SFA: y (M x hidden, bf16), alpha 1/gs. */
static int down_projection(const ffn_data *d, const uint8_t *h, const uint8_t *sfh, float gs,
                           uint16_t *y, int threads) {
  const uint32_t I = d->s.inter, H = d->s.hidden;
  uint64_t atom = 0;
  for (uint32_t e = 0; e < d->s.experts; e++) {
    uint32_t start, rows;
    nvfp4h_moe_expert_rows(d->offsets, d->m, e, &start, &rows);
    nvfp4h_group_data g = expert_view(h, sfh, atom, start, rows, d->w2, d->sfw2, d->sfw2_bytes,
                                      e, H, I);
    if (rows && nvfp4h_reference_gemm_ex(&g, y + (size_t)start * H, H, NVFP4H_C_BF16,
                                         1.0f / gs, threads))
      return -1;
    atom += (rows + 127u) / 128u;
  }
  return 0;
}

/* Check 1: every block of h / sfh is nvfp4h_quant_block of act (M x I fp32). */
static uint64_t check_intermediate(const ffn_data *d, const float *act, const uint8_t *h,
                                   const uint8_t *sfh, float gs) {
  const uint32_t I = d->s.inter, S = I / 16;
  uint64_t bad = 0, atom = 0;
  for (uint32_t e = 0; e < d->s.experts; e++) {
    uint32_t start, rows;
    nvfp4h_moe_expert_rows(d->offsets, d->m, e, &start, &rows);
    const uint8_t *seg = sfh + atom * ((S + 3) / 4) * 512;
    for (uint32_t r = 0; r < rows; r++)
      for (uint32_t j = 0; j < S; j++) {
        uint8_t codes[16];
        uint8_t sf = nvfp4h_quant_block(act + (size_t)(start + r) * I + 16 * j, gs, codes);
        bad += seg[nvfp4h_sf_blocked_offset(r, j, S)] != sf;
        const uint8_t *p = h + (size_t)(start + r) * (I / 2) + 8 * j;
        for (int i = 0; i < 16; i++) bad += ((p[i / 2] >> (4 * (i & 1))) & 15) != codes[i];
      }
    atom += (rows + 127u) / 128u;
  }
  return bad;
}

/* The global scale a calibration would pick: 448 x 6 / amax of the activations. */
static float global_scale(const float *act, size_t n) {
  float amax = 0.0f;
  for (size_t i = 0; i < n; i++) amax = fabsf(act[i]) > amax ? fabsf(act[i]) : amax;
  return amax > 0.0f ? 448.0f * 6.0f / amax : 1.0f;
}

/* Up-projection stored as `t`, SwiGLU, quantization with gs (0: calibrate), then (with
 * `down`) the down-projection. */
static int run_path(const ffn_data *d, nvfp4h_c_type t, float *gs, ffn_path *p, int down,
                    int threads) {
  const uint32_t I = d->s.inter, M = d->m;
  void *gu = malloc((size_t)M * 2 * I * nvfp4h_c_bytes(t) + 1);
  p->act = malloc(sizeof(float) * M * I + 1);
  p->h = calloc((size_t)M * I / 2 + 1, 1);
  p->sfh = calloc(d->sfh_bytes, 1);
  p->y = malloc(sizeof(uint16_t) * M * d->s.hidden + 1);
  int rc = gu && p->act && p->h && p->sfh && p->y ? up_projection(d, t, gu, threads) : -1;
  if (!rc) {
    nvfp4h_swiglu_rows(gu, t, 2 * I, M, I, p->act);
    if (*gs == 0.0f) *gs = global_scale(p->act, (size_t)M * I);
    rc = nvfp4h_moe_quantize(p->act, M, I, d->offsets, d->s.experts, *gs, p->h, p->sfh,
                             d->sfh_bytes);
  }
  if (!rc && down) rc = down_projection(d, p->h, p->sfh, *gs, p->y, threads);
  free(gu);
  return rc;
}

static void path_free(ffn_path *p) { free(p->act); free(p->h); free(p->sfh); free(p->y); }

/* Check 2: relative L2 distance and worst element against Y's RMS. */
static int compare_outputs(const char *what, const uint16_t *yf, const uint16_t *yu, size_t n) {
  double num = 0, den = 0, worst = 0;
  for (size_t i = 0; i < n; i++) {
    double a = nvfp4h_bf16_to_float(yf[i]), b = nvfp4h_bf16_to_float(yu[i]);
    num += (a - b) * (a - b);
    den += b * b;
    worst = fabs(a - b) > worst || isnan(a) ? fabs(a - b) : worst;
  }
  double rel = den > 0 ? sqrt(num / den) : sqrt(num), rms = sqrt(den / (n ? n : 1));
  double erel = rms > 0 ? worst / rms : worst;
  int ok = rel <= FFN_REL_L2 && erel <= FFN_ELEM_RMS && isfinite(rel) && isfinite(erel);
  printf("end result: %s vs unfused: relative L2 %.5f (tolerance %.2f), worst element "
         "%.4f x RMS (tolerance %.2f): %s\n", what, rel, FFN_REL_L2, erel, FFN_ELEM_RMS,
         ok ? "ok" : "FAIL");
  return ok;
}

/* Kernel check 2: the down-projection kernel's Y against the C reference of the same GEMM
 * on the kernel's own intermediate, within the runtime's bf16 GEMM tolerance. */
static int check_down(const ffn_data *d, const ffn_path *k, float gs, int threads) {
  const uint32_t H = d->s.hidden;
  uint16_t *ref = malloc(sizeof(uint16_t) * d->m * H + 1);
  if (!ref || down_projection(d, k->h, k->sfh, gs, ref, threads)) {
    free(ref);
    return -1;
  }
  double atol, rtol;
  nvfp4h_check_tolerance(NVFP4H_C_BF16, &atol, &rtol);
  atol = nvfp4h_alpha_atol(atol, 1.0f / gs);
  nvfp4h_check_result r;
  nvfp4h_check_init(&r);
  nvfp4h_check_typed(k->y, H, ref, H, d->m, H, NVFP4H_C_BF16, 0, atol, rtol, &r);
  free(ref);
  const int ok = nvfp4h_check_passed(&r);
  printf("down-projection: kernel vs C reference on the kernel's intermediate: %llu of %llu "
         "elements outside atol %.3g rtol %g (max rel %.3g): %s\n",
         (unsigned long long)r.mismatches, (unsigned long long)r.checked, atol, rtol, r.max_rel,
         ok ? "ok" : "FAIL");
  for (uint32_t i = 0; i < r.reported; i++)
    printf("  mismatch [row %u, col %u]: got %.6g ref %.6g\n", r.first[i].row, r.first[i].col,
           r.first[i].got, r.first[i].ref);
  return ok;
}

typedef enum ffn_target_kind { FFN_AUTO, FFN_GPU, FFN_CPU, FFN_REFERENCE } ffn_target_kind;

typedef struct ffn_args {
  ffn_target_kind target;
  uint64_t seed;
  int threads;
  ffn_kernel_opts k;
} ffn_args;

static const char *const target_names[] = {"auto", "gpu", "cpu", "reference"};

static int parse_target(const char *v, ffn_target_kind *t) {
  for (int i = 0; i < 4; i++)
    if (!strcmp(v, target_names[i])) { *t = (ffn_target_kind)i; return 0; }
  return -1;
}

static int parse_args(int argc, char **argv, ffn_shape *s, ffn_args *a) {
  const ffn_shape deepseek = {7168, 2048, 256, 8, 0, ""}, small = {512, 256, 16, 4, 0, "_small"};
  *s = deepseek;
  *a = (ffn_args){FFN_AUTO, 1111, 0, {NULL, NULL, 0, 1, 4}};
  int have = 0, bad = 0;
  for (int i = 1; i < argc && !bad; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "--small")) { uint32_t t = s->tokens; *s = small; s->tokens = t; continue; }
    if (o[0] != '-') { bad = have; s->tokens = (uint32_t)strtoul(o, NULL, 10); have = 1; continue; }
    if (!v) return -1;
    i++;
    if (!strcmp(o, "--seed")) a->seed = strtoull(v, NULL, 0);
    else if (!strcmp(o, "--threads")) a->threads = atoi(v);
    else if (!strcmp(o, "--target")) bad = parse_target(v, &a->target);
    else if (!strcmp(o, "--kernels")) a->k.dir = v;
    else if (!strcmp(o, "--kernel-arch")) a->k.arch = v;
    else if (!strcmp(o, "--device")) a->k.device = atoi(v);
    else if (!strcmp(o, "--iters")) bad = (a->k.iters = atoi(v)) < 1 || a->k.iters > 100000;
    else if (!strcmp(o, "--sms")) bad = (a->k.sms = (uint32_t)atoi(v)) < 1 || a->k.sms > 1024;
    else bad = 1;
  }
  return !bad && have && s->tokens > 0 && s->tokens <= (1u << 20) ? 0 : -1;
}

static void usage(void) {
  fprintf(stderr,
          "usage: moe-ffn TOKENS [--small] [--target auto|gpu|cpu|reference] [--seed S]\n"
          "               [--threads N] [--kernels DIR] [--kernel-arch ARCH] [--device D]\n"
          "               [--iters N] [--sms N]\n"
          "  --target  gpu: the kernels on the GPU (cubins for the device: sm_90a on 9.0,\n"
          "            sm_100a on 10.0); cpu: the same kernels on the CPU target (sm_120a\n"
          "            objects, libnvfp4sim); reference: libnvfp4rt's C reference; auto\n"
          "            (default): gpu when a CUDA device is present, else reference\n"
          "exit: 0 pass, 1 check failed, 2 error, 77 no GPU (--target gpu)\n");
}

/* --target auto: gpu when the driver loads and has a device, else reference. */
static ffn_target_kind resolve_auto(void) {
  nvfp4rt_status st = nvfp4rt_driver_load();
  ffn_target_kind t = st == NVFP4RT_STATUS_OK ? FFN_GPU : FFN_REFERENCE;
  printf("target: %s (auto: %s)\n", target_names[t],
         t == FFN_GPU ? "a CUDA device is present" : "no CUDA device; --target cpu runs the "
                                                     "kernels on the CPU target");
  return t;
}

/* The kernel target's run and the checks of its result (intermediate, down, end). */
static int kernel_checks(const ffn_data *d, const ffn_path *ref, const ffn_path *unfused,
                         const ffn_path *k, float gs, int threads) {
  const uint64_t total = (uint64_t)d->m * d->s.inter * 17 / 16; /* codes + scales */
  const uint64_t budget = (uint64_t)(total * FFN_KERNEL_MISMATCH_BUDGET);
  const uint64_t bad = check_intermediate(d, ref->act, k->h, k->sfh, gs);
  printf("kernel intermediate: %llu of %llu FP4 codes and scales differ from the reference "
         "quantizer of the reference activations (gs %g; budget %llu = %g%%): %s\n",
         (unsigned long long)bad, (unsigned long long)total, gs, (unsigned long long)budget,
         FFN_KERNEL_MISMATCH_BUDGET * 100, bad <= budget ? "ok" : "FAIL");
  const int down_ok = check_down(d, k, gs, threads);
  if (down_ok < 0) return -1;
  const int ok = compare_outputs("kernels", k->y, unfused->y, (size_t)d->m * d->s.hidden);
  return bad <= budget && down_ok && ok;
}

static int reference_checks(const ffn_data *d, const ffn_path *fused, const ffn_path *unfused,
                            float gs) {
  uint64_t bad = check_intermediate(d, fused->act, fused->h, fused->sfh, gs);
  printf("fused intermediate: %llu FP4 codes and scales differ from the reference quantizer "
         "(gs %g): %s\n", (unsigned long long)bad, gs, bad ? "FAIL" : "ok");
  uint64_t flips = 0;
  for (size_t i = 0; i < (size_t)d->m * d->s.inter / 2; i++) flips += fused->h[i] != unfused->h[i];
  printf("intermediate bytes that differ between fused and unfused: %llu of %zu\n",
         (unsigned long long)flips, (size_t)d->m * d->s.inter / 2);
  const int ok = compare_outputs("fused", fused->y, unfused->y, (size_t)d->m * d->s.hidden);
  return bad == 0 && ok;
}

static int open_target(ffn_target_kind t, const ffn_data *d, const ffn_kernel_opts *k,
                       ffn_target **out) {
  if (t == FFN_GPU) return ffn_gpu_open(d, k, out);
  if (t == FFN_CPU) return ffn_cpu_open(d, k, out);
  return FFN_EXIT_PASS;
}

static void close_target(ffn_target_kind t, ffn_target *tg) {
  if (t == FFN_GPU) ffn_gpu_close(tg);
  if (t == FFN_CPU) ffn_cpu_close(tg);
}

/* The kernels' run with global scale gs: outputs in k. */
static int run_kernels(ffn_target_kind t, ffn_target *tg, const ffn_data *d, float gs,
                       ffn_path *k) {
  ffn_io io;
  int rc = ffn_io_init(d, gs, k, &io) ? FFN_EXIT_ERROR : FFN_EXIT_PASS;
  if (!rc) rc = t == FFN_GPU ? ffn_gpu_run(tg, d, &io) : ffn_cpu_run(tg, d, &io);
  ffn_io_free(&io);
  return rc;
}

/* Everything after the inputs: the reference paths, the kernels (gpu, cpu), the checks. */
static int run(const ffn_data *d, const ffn_args *a, ffn_target *tg) {
  const int kernels = a->target == FFN_GPU || a->target == FFN_CPU;
  ffn_path fused = {0}, unfused = {0}, k = {0};
  float gs = 0.0f;
  int rc = FFN_EXIT_PASS;
  if (run_path(d, NVFP4H_C_F32, &gs, &fused, !kernels, a->threads) ||
      run_path(d, NVFP4H_C_BF16, &gs, &unfused, 1, a->threads)) {
    fprintf(stderr, "moe-ffn: out of memory\n");
    rc = FFN_EXIT_ERROR;
  }
  if (!rc && kernels) rc = run_kernels(a->target, tg, d, gs, &k);
  if (!rc) {
    const int ok = kernels ? kernel_checks(d, &fused, &unfused, &k, gs, a->threads)
                           : reference_checks(d, &fused, &unfused, gs);
    rc = ok < 0 ? FFN_EXIT_ERROR : ok ? FFN_EXIT_PASS : FFN_EXIT_FAIL;
    if (ok >= 0) printf("moe-ffn: %s\n", ok ? "PASS" : "FAIL");
  }
  path_free(&fused); path_free(&unfused); path_free(&k);
  return rc;
}

int main(int argc, char **argv) {
  ffn_data d;
  memset(&d, 0, sizeof d);
  ffn_args a;
  setvbuf(stdout, NULL, _IOLBF, 0); /* progress in order with the errors on stderr */
  if (parse_args(argc, argv, &d.s, &a)) {
    usage();
    return FFN_EXIT_ERROR;
  }
  printf("moe-ffn: hidden %u, intermediate %u, %u experts, top-%u, %u tokens (%u rows)\n",
         d.s.hidden, d.s.inter, d.s.experts, d.s.topk, d.s.tokens, d.s.tokens * d.s.topk);
  if (a.target == FFN_AUTO) a.target = resolve_auto();
  else printf("target: %s\n", target_names[a.target]);
  ffn_target *tg = NULL;
  int rc = ffn_generate(&d, a.seed) ? FFN_EXIT_ERROR : FFN_EXIT_PASS;
  if (rc) fprintf(stderr, "moe-ffn: out of memory\n");
  if (!rc) rc = open_target(a.target, &d, &a.k, &tg);
  if (!rc) rc = run(&d, &a, tg);
  close_target(a.target, tg);
  ffn_free(&d);
  return rc;
}
