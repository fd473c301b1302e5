/* Quantize.c — the fused epilogue's SwiGLU and NVFP4 re-quantization as llvm-dialect
 * arithmetic (Quantize.h), operation for operation the C reference nvfp4h_quant_block /
 * nvfp4h_swiglu (runtime/src/quant.c) and docs/format.md's formula:
 *   amax = maximum |x_i| (NaN-propagating); s = (amax / 6) * gs;
 *   scale = E4M3(s): NaN -> 0x7F; |s| >= 448 -> 0x7E; |s| < 2^-6 -> roundeven(|s| * 512);
 *     else the fp32 bits rounded to 3 mantissa bits (nearest even) and rebiased; the
 *     rounded value itself is the decoded scale sd (no decode table);
 *   sd 0 or NaN -> every code +0; else r = gs / sd and code_i = the number of E2M1
 *   decision thresholds below |x_i * r|, plus 8 for a negative (non-NaN) product.
 * Every float operation is a single correctly rounded IEEE operation (fdiv without
 * fast-math flags is div.rn.f32 on NVPTX), so every target reproduces the reference's bits. */
#include "Quantize.h"

/* E2M1 decision thresholds, in code order, and whether a tie goes up (>=) or down (>). */
static const struct { double at; bool up; } kE2m1Thresholds[7] = {
    {0.25, false}, {0.75, true}, {1.25, false}, {1.75, true}, {2.5, false}, {3.5, true}, {5.0, false}};

KbValue nvfp4EmitSwiglu(KbBuilder *b, KbValue g, KbValue u) {
  KbValue t = kbFMul(b, g, kbF32(b, -NVFP4_LOG2E_F32));
  KbValue e = mlirOperationGetResult(kbOp(b, "llvm.intr.exp2", 1, &b->f32, 1, &t, 0, NULL), 0);
  KbValue d = kbFAdd(b, kbF32(b, 1.0), e);
  return kbFMul(b, kbFDiv(b, g, d), u);
}

/* The E4M3 byte of s (i8) and its value (f32, sign kept), as Quantize.c's header says. */
static void emitE4m3(KbBuilder *b, KbValue s, KbValue *code, KbValue *value) {
  KbValue sign = kbAnd(b, kbBitcast(b, s, b->i32), kbI32(b, (int32_t)0x80000000u));
  KbValue a = kbFAbs(b, s);
  KbValue isNan = kbFCmp(b, KB_FUNO, a, a);
  KbValue ac = kbSelect(b, kbFCmp(b, KB_FOGE, a, kbF32(b, 448.0)), kbF32(b, 448.0), a);
  /* normal: round the fp32 bits to 3 mantissa bits, nearest even */
  KbValue bits = kbBitcast(b, ac, b->i32);
  KbValue lsb = kbAnd(b, kbLShr(b, bits, kbI32(b, 20)), kbI32(b, 1));
  KbValue rounded = kbAnd(b, kbAdd(b, kbAddI(b, bits, 0x7FFFF), lsb), kbI32(b, (int32_t)0xFFF00000u));
  KbValue normCode = kbAddI(b, kbLShr(b, rounded, kbI32(b, 20)), -((127 - 7) << 3));
  KbValue normVal = kbBitcast(b, rounded, b->f32);
  /* subnormal: multiples of 2^-9 (8 * 2^-9 is the smallest normal, code 0x08) */
  KbValue q = kbRoundEven(b, kbFMul(b, ac, kbF32(b, 512.0)));
  KbValue sub = kbFCmp(b, KB_FOLT, ac, kbF32(b, 1.0 / 64.0));
  KbValue c = kbSelect(b, sub, kbFPToUI(b, q, b->i32), normCode);
  KbValue v = kbSelect(b, sub, kbFMul(b, q, kbF32(b, 1.0 / 512.0)), normVal);
  c = kbSelect(b, isNan, kbI32(b, 0x7F), c);
  v = kbSelect(b, isNan, a, v);
  *code = kbTrunc(b, kbOr(b, c, kbLShr(b, sign, kbI32(b, 24))), b->i8);
  *value = kbBitcast(b, kbOr(b, kbBitcast(b, v, b->i32), sign), b->f32);
}

/* The E2M1 code (i32, 0..15) of v: thresholds below |v|, 8 for a negative non-NaN v. */
static KbValue emitE2m1(KbBuilder *b, KbValue v) {
  KbValue av = kbFAbs(b, v), count = kbI32(b, 0);
  for (int t = 0; t < 7; ++t) {
    KbValue above = kbFCmp(b, kE2m1Thresholds[t].up ? KB_FOGE : KB_FOGT, av,
                           kbF32(b, kE2m1Thresholds[t].at));
    count = kbAdd(b, count, kbZExt(b, above, b->i32));
  }
  KbValue neg = kbCmpI(b, KB_SLT, kbBitcast(b, v, b->i32), 0);
  KbValue sign = kbSelect(b, kbFCmp(b, KB_FUNO, v, v), kbI32(b, 0),
                          kbSelect(b, neg, kbI32(b, 8), kbI32(b, 0)));
  return kbOr(b, count, sign);
}

Nvfp4QuantScale nvfp4EmitQuantScale(KbBuilder *b, KbValue amax, KbValue gs) {
  KbValue s = kbFMul(b, kbFDiv(b, amax, kbF32(b, 6.0)), gs);
  Nvfp4QuantScale q;
  KbValue sd;
  emitE4m3(b, s, &q.scale, &sd);
  q.dead = kbOr(b, kbFCmp(b, KB_FOEQ, sd, kbF32(b, 0.0)), kbFCmp(b, KB_FUNO, sd, sd));
  q.r = kbFDiv(b, gs, sd);
  return q;
}

KbValue nvfp4EmitQuantCode(KbBuilder *b, KbValue x, const Nvfp4QuantScale *q) {
  return kbSelect(b, q->dead, kbI32(b, 0), emitE2m1(b, kbFMul(b, x, q->r)));
}

Nvfp4QuantBlock nvfp4EmitQuantBlock(KbBuilder *b, const KbValue *x, KbValue gs) {
  KbValue amax = kbFAbs(b, x[0]);
  for (int i = 1; i < NVFP4_QUANT_BLOCK; ++i) amax = kbFMaximum(b, amax, kbFAbs(b, x[i]));
  Nvfp4QuantScale q = nvfp4EmitQuantScale(b, amax, gs);
  Nvfp4QuantBlock out = {kbI64(b, 0), q.scale};
  for (int i = 0; i < NVFP4_QUANT_BLOCK; ++i) {
    KbValue wide = kbShl(b, kbZExt(b, nvfp4EmitQuantCode(b, x[i], &q), b->i64), kbI64(b, 4 * i));
    out.packed = kbOr(b, out.packed, wide);
  }
  return out;
}
