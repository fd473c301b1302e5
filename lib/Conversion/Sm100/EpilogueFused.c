/* EpilogueFused.c — the sm_100a fused SwiGLU + NVFP4 epilogue (epilogue = "swiglu_nvfp4",
 * variant ab_n256_st; docs/kernel-sm100a.md). The tile's N = 256 accumulator holds 128 gate
 * columns (TMEM columns 0..127: features n0 .. n0 + 127, n0 = nRow0 / 2) and the 128
 * matching up columns (128..255; the producer loaded B rows I + n0 .. there). Epilogue
 * thread = token row (warp w: TMEM lanes 32w..): per 32 features one tcgen05.ld of the
 * gate and one of the up columns, alpha, h = silu(g) · u (nvfp4EmitSwiglu), two quantized
 * blocks of 16 (nvfp4EmitQuantBlock: the row's 16 values are the thread's, no cross-lane
 * reduction), then a 16-byte store of the 32 FP4 codes and a 2-byte store of the two E4M3
 * scales at their blocked SFC address (docs/format.md). Stores are predicated on the row
 * (M tails, tiles that reach past their expert) and on the feature (col < I). A kernel
 * built with the activation dump also stores h (KernelABI.h, NVFP4_ABI_HDR_DEBUG_ACT).
 */
#include "Sm100Kernel.h"

#include "../Nvvm.h"
#include "../Quantize.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/KernelABI.h"

#define FUSED_COLS 32u /* features per step: one tcgen05.ld.32x32b.x32 of gate and of up */

static MlirType globalPtr(KbBuilder *b) { return mlirLLVMPointerTypeGet(b->ctx, 1); }

static KbValue wide(KbBuilder *b, KbValue x) { return kbZExt(b, x, b->i64); }

/* Gate columns `col` .. + 31 and the up columns 128 further (two tcgen05.ld, one wait). */
static void loadGateUp(KbBuilder *b, KbValue acc, uint32_t col, KbValue out[2]) {
  nvWarpSync(b);
  out[0] = nvTcLd32x32b(b, kbAddI(b, acc, col), FUSED_COLS);
  out[1] = nvTcLd32x32b(b, kbAddI(b, acc, col + MLIR_NVFP4_TILE_M), FUSED_COLS);
  nvTcWaitLd(b);
  for (int i = 0; i < 2; ++i) out[i] = nvRegisterFence(b, out[i], FUSED_COLS);
}

/* Accumulator element e of `vals` as f32, times alpha (alpha variants). */
static KbValue scaled(KbBuilder *b, Sm100EpilogueState *st, KbValue vals, uint32_t e) {
  KbValue f = kbBitcast(b, kbExtract(b, vals, kbI32(b, e)), b->f32);
  return mlirValueIsNull(st->alpha) ? f : kbFMul(b, f, st->alpha);
}

/* 32 activations h of features col .. col + 31 of this thread's row: quantized, stored. */
static void storeFeatures(GenKernel *g, GenTile *t, KbValue gs, const KbValue h[FUSED_COLS],
                          KbValue row, KbValue col, KbValue cRow, KbValue sfcRow) {
  KbBuilder *b = g->b;
  MlirType gptr = globalPtr(b);
  Nvfp4QuantBlock q[2];
  for (int i = 0; i < 2; ++i) q[i] = nvfp4EmitQuantBlock(b, h + NVFP4_QUANT_BLOCK * i, gs);
  /* the 32 codes: 16 bytes at byte col / 2 of the row */
  int64_t two = 2;
  KbValue codes = kbUndef(b, mlirVectorTypeGet(1, &two, b->i64));
  for (int i = 0; i < 2; ++i) codes = kbInsert(b, codes, q[i].packed, kbI32(b, i));
  KbValue cAddr = kbAdd(b, cRow, wide(b, kbUDiv(b, col, kbI32(b, 2))));
  kbStore(b, codes, kbIntToPtr(b, cAddr, gptr), 16);
  /* the two scales: scale columns j = col / 16 and j + 1 (j even: one 2-byte word) of
   * atom col / 64 */
  KbValue pair = kbOr(b, kbZExt(b, q[0].scale, b->i16),
                      kbShl(b, kbZExt(b, q[1].scale, b->i16), kbConst(b, b->i16, 8)));
  KbValue sfOff = kbAdd(b, kbMulI(b, kbUDiv(b, col, kbI32(b, 64)), MLIR_NVFP4_SF_ATOM_BYTES),
                        kbURem(b, kbUDiv(b, col, kbI32(b, 16)), kbI32(b, 4)));
  kbStore(b, pair, kbIntToPtr(b, kbAdd(b, sfcRow, wide(b, sfOff)), gptr), 2);
  if (g->cfg->spec.debugActivations) {
    KbValue act = genDebugActAddress(g, t, row, col);
    int64_t four = 4;
    MlirType v4 = mlirVectorTypeGet(1, &four, b->f32);
    for (uint32_t c = 0; c < FUSED_COLS / 4; ++c) {
      KbValue v = kbUndef(b, v4);
      for (uint32_t e = 0; e < 4; ++e) v = kbInsert(b, v, h[4 * c + e], kbI32(b, e));
      kbStore(b, v, kbIntToPtr(b, kbAddI(b, act, 16 * c), gptr), 16);
    }
  }
}

void sm100FusedTile(GenKernel *g, GenTile *t, void *state) {
  KbBuilder *b = g->b;
  Sm100EpilogueState *st = state;
  sm100EpiLoadAlpha(g, st, t);
  KbValue gs = kbLoad(b, b->f32, kbIntToPtr(b, t->gsPtr, globalPtr(b)), 4);
  KbValue acc = sm100EpiAcquire(g, st);
  KbValue row = kbAdd(b, t->cRow0, kbAdd(b, kbMulI(b, g->warp, 32), g->lane));
  KbValue inter = kbUDiv(b, t->n, kbI32(b, 2));  /* I: B holds 2I gate/up rows */
  KbValue n0 = kbUDiv(b, t->nRow0, kbI32(b, 2)); /* the tile's first feature */
  KbValue rowOk = kbCmp(b, KB_ULT, row, t->m);
  /* C's row (ldc FP4 elements = ldc / 2 bytes; the contiguous form's C starts at the
   * expert's first row) and SFC's */
  KbValue cRow = kbAdd(b, t->cPtr, kbMul(b, wide(b, row), wide(b, kbUDiv(b, t->ldc, kbI32(b, 2)))));
  KbValue sfcRow = genSfcRowAddress(g, t, t->sfmBase, row, inter);
  const uint32_t steps = MLIR_NVFP4_TILE_M / FUSED_COLS;
  for (uint32_t s = 0; s < steps; ++s) {
    KbValue gu[2];
    loadGateUp(b, acc, FUSED_COLS * s, gu);
    if (s + 1 == steps) sm100EpiRelease(g, st);
    KbValue col = kbAddI(b, n0, FUSED_COLS * s);
    kbIf(b, kbAnd(b, rowOk, kbCmp(b, KB_ULT, col, inter)));
    KbValue h[FUSED_COLS];
    for (uint32_t e = 0; e < FUSED_COLS; ++e)
      h[e] = nvfp4EmitSwiglu(b, scaled(b, st, gu[0], e), scaled(b, st, gu[1], e));
    storeFeatures(g, t, gs, h, row, col, cRow, sfcRow);
    kbEndIf(b);
  }
  genRingAdvance(b, &st->acc.pos);
}
