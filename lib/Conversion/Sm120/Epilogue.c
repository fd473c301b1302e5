/* Epilogue.c — the sm_120a epilogue (consumer warps, after a tile's last stage): each
 * accumulator register (mlirNvfp4Sm120FragmentC: row lane / 4 + 8 (i / 2), column
 * 2 (lane % 4) + i % 2 of its m16n8 block) times the group's alpha (alpha variants), rounded
 * to C's element type (f16, bf16 or f32), stored to global memory with a predicate on the
 * group's (expert's) M and N:
 *   AB       the M role is C's rows: registers 0, 1 (and 2, 3) are two neighbouring columns
 *            of one row, stored together (4 or 8 bytes; one element at the last column);
 *   swap-AB  the M role is C's columns: each register is one element of its own row.
 * C's row stride is the group's ldc; the contiguous form's C pointer starts at the expert's
 * first row, and rows past the expert's last are not written. Nothing is staged in shared
 * memory: the 99 KiB of an sm_120 block go to the stage ring (docs/kernel-sm120a.md,
 * "Epilogue").
 */
#include "Sm120Kernel.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

/* The type C's elements are stored as (bf16 as its i16 bits, like the sm_100a epilogue). */
static MlirType outType(GenKernel *g) {
  switch (g->cfg->spec.output) {
  case MLIR_NVFP4_OUTPUT_BF16: return g->b->i16;
  case MLIR_NVFP4_OUTPUT_F32: return g->b->f32;
  default: return g->b->f16;
  }
}

/* An accumulator value times alpha, rounded to C's element type. */
static KbValue outElem(GenKernel *g, KbValue alpha, KbValue f) {
  KbBuilder *b = g->b;
  if (!mlirValueIsNull(alpha)) f = kbFMul(b, f, alpha);
  switch (g->cfg->spec.output) {
  case MLIR_NVFP4_OUTPUT_F32: return f;
  case MLIR_NVFP4_OUTPUT_BF16: return kbBitcast(b, kbFPTrunc(b, f, b->bf16), b->i16);
  default: return kbFPTrunc(b, f, b->f16);
  }
}


/* AB: v0, v1 at C[row][col], C[row][col + 1] (col even), each only inside M x N. */
static void storePairAB(GenKernel *g, GenTile *t, KbValue row, KbValue col, KbValue v0,
                        KbValue v1) {
  KbBuilder *b = g->b;
  const uint32_t eb = g->cfg->cElemBytes;
  kbIf(b, kbCmp(b, KB_ULT, row, t->m));
  kbIf(b, kbCmp(b, KB_ULT, kbAddI(b, col, 1), t->n));
  {
    int64_t two = 2;
    KbValue v = kbUndef(b, mlirVectorTypeGet(1, &two, outType(g)));
    v = kbInsert(b, kbInsert(b, v, v0, kbI32(b, 0)), v1, kbI32(b, 1));
    kbStore(b, v, genCAddress(g, t, row, col), 2 * eb);
  }
  kbElse(b);
  kbIf(b, kbCmp(b, KB_ULT, col, t->n));
  kbStore(b, v0, genCAddress(g, t, row, col), eb);
  kbEndIf(b);
  kbEndIf(b);
  kbEndIf(b);
}

/* One element at C[row][col], only inside M x N. */
static void storeOne(GenKernel *g, GenTile *t, KbValue row, KbValue col, KbValue v) {
  KbBuilder *b = g->b;
  kbIf(b, kbAnd(b, kbCmp(b, KB_ULT, row, t->m), kbCmp(b, KB_ULT, col, t->n)));
  kbStore(b, v, genCAddress(g, t, row, col), g->cfg->cElemBytes);
  kbEndIf(b);
}

/* The four registers of block (mb, nb). */
static void storeBlock(Sm120Kernel *k, GenTile *t, KbValue alpha, uint32_t mb, uint32_t nb,
                       const KbValue acc[4]) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const Sm120Consumer *c = &k->c;
  const bool swap = g->cfg->spec.orientation == MLIR_NVFP4_ORIENTATION_SWAP_AB;
  KbValue m0 = kbAdd(b, kbAddI(b, c->mRow0, 16 * mb), c->g);        /* M-role row, i = 0, 1 */
  KbValue n0 = kbAdd(b, kbAddI(b, c->nRow0, 8 * nb), kbMulI(b, c->t, 2)); /* N-role row, i = 0 */
  for (uint32_t half = 0; half < 2; ++half) {
    KbValue m = kbAddI(b, m0, 8 * half);
    KbValue v0 = outElem(g, alpha, acc[2 * half]), v1 = outElem(g, alpha, acc[2 * half + 1]);
    if (!swap) {
      storePairAB(g, t, kbAdd(b, t->cRow0, m), kbAdd(b, t->cCol0, n0), v0, v1);
    } else {
      KbValue col = kbAdd(b, t->cCol0, m), row = kbAdd(b, t->cRow0, n0);
      storeOne(g, t, row, col, v0);
      storeOne(g, t, kbAddI(b, row, 1), col, v1);
    }
  }
}

void sm120Epilogue(Sm120Kernel *k, GenTile *t, KbValue acc[SM120_MAX_MB][SM120_MAX_NB][4]) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4Sm120Plan *p = &g->cfg->sm120;
  if (g->cfg->spec.swiglu) {
    sm120FusedEpilogue(k, t, acc);
    return;
  }
  KbValue alpha = mlirValueIsNull(t->alphaPtr)
                      ? (MlirValue){NULL}
                      : kbLoad(b, b->f32, kbIntToPtr(b, t->alphaPtr, b->ptr), 4);
  for (uint32_t pr = 0; pr < p->nBlocks / 2; ++pr) {
    const bool dynamic = g->cfg->roleN.dynamicRows;
    if (dynamic) kbIf(b, sm120PairValid(k, t, pr));
    for (uint32_t mb = 0; mb < p->mBlocks; ++mb)
      for (uint32_t h = 0; h < 2; ++h) storeBlock(k, t, alpha, mb, 2 * pr + h, acc[mb][2 * pr + h]);
    if (dynamic) kbEndIf(b);
  }
}
