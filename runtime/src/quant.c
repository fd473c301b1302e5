/* quant.c — the C reference of the fused SwiGLU + NVFP4 re-quantization epilogue
 * (docs/format.md, "Re-quantization to NVFP4"): the fp32 activation silu(g)·u, the
 * quantizer of one 16-element block (E4M3 block scale and E2M1 values, in the exact fp32
 * operation order the kernels emit), and its application to row ranges and to the
 * per-expert segments of the contiguous MoE form. Pure C11, no driver. */
#include <math.h>
#include <string.h>

#include "nvfp4rt_host.h"

float nvfp4h_swiglu(float g, float u) {
  float t = g * -1.44269502162933349609375f; /* -log2(e) rounded to fp32 */
  float e = exp2f(t);
  float d = 1.0f + e;
  float s = g / d;
  return s * u;
}

/* Round-to-nearest-even E2M1 of a value already divided by its block scale, as the
 * kernels compute it: the code is the number of decision thresholds below |v| (ties at
 * 0.25, 1.25, 2.5, 5 stay on the even code below, those at 0.75, 1.75, 3.5 go up to the
 * even code above); NaN gives +0. Equal to nvfp4h_fp4_encode for every float. */
static uint8_t e2m1_threshold(float v) {
  float a = fabsf(v);
  uint8_t c = (uint8_t)((a > 0.25f) + (a >= 0.75f) + (a > 1.25f) + (a >= 1.75f) + (a > 2.5f) +
                        (a >= 3.5f) + (a > 5.0f));
  return (uint8_t)(c | (signbit(v) && !isnan(v) ? 8 : 0));
}

uint8_t nvfp4h_quant_block(const float *x, float gs, uint8_t *codes) {
  float amax = 0.0f;
  int nan = 0;
  for (int i = 0; i < NVFP4H_QUANT_BLOCK; i++) {
    float a = fabsf(x[i]);
    nan |= isnan(a);
    amax = a > amax ? a : amax;
  }
  if (nan) amax = NAN;
  float s = (amax / 6.0f) * gs;
  uint8_t code = nvfp4h_e4m3_encode(s);
  float sd = nvfp4h_e4m3_decode(code);
  if (sd == 0.0f || isnan(sd)) {
    memset(codes, 0, NVFP4H_QUANT_BLOCK);
    return code;
  }
  float r = gs / sd;
  for (int i = 0; i < NVFP4H_QUANT_BLOCK; i++) codes[i] = e2m1_threshold(x[i] * r);
  return code;
}

int nvfp4h_quantize_rows(const float *x, size_t ldx, uint32_t rows, uint32_t cols, float gs,
                         uint8_t *fp4, uint8_t *sf, uint32_t sf_row0) {
  if (cols % NVFP4H_QUANT_BLOCK) return -1;
  const uint32_t S = cols / NVFP4H_QUANT_BLOCK;
  uint8_t codes[NVFP4H_QUANT_BLOCK];
  for (uint32_t r = 0; r < rows; r++) {
    uint8_t *out = fp4 + (size_t)r * (cols / 2);
    for (uint32_t j = 0; j < S; j++) {
      sf[nvfp4h_sf_blocked_offset(sf_row0 + r, j, S)] =
          nvfp4h_quant_block(x + (size_t)r * ldx + (size_t)j * NVFP4H_QUANT_BLOCK, gs, codes);
      for (int i = 0; i < NVFP4H_QUANT_BLOCK / 2; i++)
        out[j * 8 + (uint32_t)i] = (uint8_t)(codes[2 * i] | (codes[2 * i + 1] << 4));
    }
  }
  return 0;
}

int nvfp4h_moe_quantize(const float *x, uint32_t m, uint32_t cols, const int32_t *offsets,
                        uint32_t experts, float gs, uint8_t *fp4, uint8_t *sf,
                        size_t sf_bytes) {
  if (cols % NVFP4H_QUANT_BLOCK) return -1;
  const uint32_t S = cols / NVFP4H_QUANT_BLOCK;
  const size_t atom_row_bytes = (size_t)((S + 3) / 4) * 512;
  uint64_t atom = 0;
  for (uint32_t e = 0; e < experts; e++) {
    uint32_t start, rows;
    nvfp4h_moe_expert_rows(offsets, m, e, &start, &rows);
    const uint64_t atoms = (rows + 127u) / 128u;
    if ((atom + atoms) * atom_row_bytes > sf_bytes) return -1;
    nvfp4h_quantize_rows(x + (size_t)start * cols, cols, rows, cols, gs,
                         fp4 + (size_t)start * (cols / 2), sf + atom * atom_row_bytes, 0);
    atom += atoms;
  }
  return 0;
}

void nvfp4h_swiglu_rows(const void *gu, nvfp4h_c_type t, size_t ldgu, uint32_t rows,
                        uint32_t inter, float *h) {
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t j = 0; j < inter; j++) {
      float g = nvfp4h_c_load(gu, (size_t)r * ldgu + j, t);
      float u = nvfp4h_c_load(gu, (size_t)r * ldgu + inter + j, t);
      h[(size_t)r * inter + j] = nvfp4h_swiglu(g, u);
    }
}
