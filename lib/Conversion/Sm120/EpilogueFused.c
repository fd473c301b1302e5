/* EpilogueFused.c — the sm_120a fused SwiGLU + NVFP4 epilogue (epilogue = "swiglu_nvfp4",
 * variants ab_n64 and ab_n128; docs/kernel-sm120a.md, "The fused SwiGLU + NVFP4 epilogue").
 * The tile's tile_n N-role rows are gate rows n0 .. n0 + tile_n / 2 - 1 (n0 = nRow0 / 2, the
 * tile's first feature) in the stage's first half and the matching up rows I + n0 .. in its
 * second (the producer's two boxes); warp (wm, wn) owns features F = n0 + wn tile_n / 4 ..
 * + tile_n / 4 - 1 of its 32 token rows: gate block nb and up block nb + nBlocks / 2 hold
 * the same (row, feature) in the same register of the same lane. Per token row of the
 * thread (lane / 4 + 8 h of each m16 block):
 *   h = silu(alpha g) · (alpha u)                     (nvfp4EmitSwiglu, 4 per 16 features)
 *   amax of each 16-feature block over the quad      (shfl.sync.bfly 1, 2; kbFMaximum)
 *   the E4M3 scale and the four E2M1 codes           (nvfp4EmitQuantScale / QuantCode)
 *   the block's 8 bytes gathered into every lane     (OR over the quad: lane t holds bytes
 *                                                     t and 4 + t of a block)
 * then lane t = 0 of the quad stores the row's tile_n / 8 code bytes at byte F / 2 of C's
 * row and its tile_n / 64 scale bytes at their blocked SFC address (docs/format.md), with a
 * predicate on the row (M tails, tiles that reach past their expert) and the feature
 * (F < I). Every lane executes every shuffle (.sync over the whole warp). A kernel built
 * with the activation dump also stores h (KernelABI.h, NVFP4_ABI_HDR_DEBUG_ACT).
 */
#include "Sm120Kernel.h"

#include "../Quantize.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/KernelABI.h"

#define FUSED_MAX_NB (SM120_MAX_NB / 2) /* gate blocks per warp */

static MlirType globalPtr(KbBuilder *b) { return mlirLLVMPointerTypeGet(b->ctx, 1); }

static KbValue wide(KbBuilder *b, KbValue x) { return kbZExt(b, x, b->i64); }

/* What every row of the thread shares. */
typedef struct FusedTile {
  GenTile *t;
  KbValue alpha, gs;     /* alpha (null without), the group's global scale */
  KbValue feature;       /* F: the warp's first feature */
  KbValue inter;         /* I = N / 2 */
  KbValue featureOk;     /* F < I */
  KbValue storer;        /* lane t == 0 of its quad */
  KbValue rowBytes;      /* C's row pitch in bytes (ldc / 2) */
} FusedTile;

/* The maximum over the four lanes of the quad (NaN-propagating, like nvfp4h_quant_block's). */
static KbValue quadMax(KbBuilder *b, KbValue x) {
  for (uint32_t m = 1; m <= 2; m *= 2)
    x = kbFMaximum(b, x, kbBitcast(b, nvShflBfly(b, kbBitcast(b, x, b->i32), m), b->f32));
  return x;
}

/* The OR over the four lanes of the quad. */
static KbValue quadOr(KbBuilder *b, KbValue x) {
  for (uint32_t m = 1; m <= 2; m *= 2) x = kbOr(b, x, nvShflBfly(b, x, m));
  return x;
}

static KbValue scaled(KbBuilder *b, const FusedTile *x, KbValue f) {
  return mlirValueIsNull(x->alpha) ? f : kbFMul(b, f, x->alpha);
}

/* One 16-feature block qb of a row, from its four activations in this lane (features
 * 16 qb + 2 t + e and 16 qb + 8 + 2 t + e: lo[e], hi[e]): the scale byte, and the block's
 * two 4-byte words (bytes 0..3 and 4..7), the same in every lane of the quad. */
static KbValue quantBlock(KbBuilder *b, const FusedTile *x, KbValue quadT, const KbValue lo[2],
                          const KbValue hi[2], KbValue words[2]) {
  KbValue amax = kbFMaximum(b, kbFMaximum(b, kbFAbs(b, lo[0]), kbFAbs(b, lo[1])),
                            kbFMaximum(b, kbFAbs(b, hi[0]), kbFAbs(b, hi[1])));
  Nvfp4QuantScale q = nvfp4EmitQuantScale(b, quadMax(b, amax), x->gs);
  const KbValue *vals[2] = {lo, hi};
  KbValue shift = kbMulI(b, quadT, 8);
  for (int w = 0; w < 2; ++w) {
    KbValue byte = kbOr(b, nvfp4EmitQuantCode(b, vals[w][0], &q),
                        kbShl(b, nvfp4EmitQuantCode(b, vals[w][1], &q), kbI32(b, 4)));
    words[w] = quadOr(b, kbShl(b, byte, shift));
  }
  return q.scale;
}

/* The activation dump of one row: this lane's two neighbouring features of every gate
 * block (8 bytes each). */
static void dumpRow(GenKernel *g, const FusedTile *x, KbValue quadT, KbValue row,
                    const KbValue (*h)[2], uint32_t blocks) {
  KbBuilder *b = g->b;
  int64_t two = 2;
  MlirType v2 = mlirVectorTypeGet(1, &two, b->f32);
  KbValue col0 = kbAdd(b, x->feature, kbMulI(b, quadT, 2));
  for (uint32_t nb = 0; nb < blocks; ++nb) {
    KbValue v = kbInsert(b, kbInsert(b, kbUndef(b, v2), h[nb][0], kbI32(b, 0)), h[nb][1], kbI32(b, 1));
    KbValue addr = genDebugActAddress(g, x->t, row, kbAddI(b, col0, 8 * nb));
    kbStore(b, v, kbIntToPtr(b, addr, globalPtr(b)), 8);
  }
}

/* The stores of one row: the code words (one 8-byte word pair per block) at byte F / 2 of
 * C's row, the scale bytes (one per block; scale columns F / 16 .., even for two) at their
 * SFC address. */
static void storeRow(GenKernel *g, const FusedTile *x, KbValue row, const KbValue *words,
                     const KbValue *scales, uint32_t blocks) {
  KbBuilder *b = g->b;
  int64_t n = 2 * blocks;
  KbValue codes = kbUndef(b, mlirVectorTypeGet(1, &n, b->i32));
  for (uint32_t w = 0; w < 2 * blocks; ++w) codes = kbInsert(b, codes, words[w], kbI32(b, (int64_t)w));
  KbValue cAddr = kbAdd(b, kbAdd(b, x->t->cPtr, kbMul(b, wide(b, row), x->rowBytes)),
                        wide(b, kbLShr(b, x->feature, kbI32(b, 1))));
  kbStore(b, codes, kbIntToPtr(b, cAddr, globalPtr(b)), 8 * blocks);
  KbValue sf = scales[0];
  if (blocks == 2)
    sf = kbOr(b, kbZExt(b, scales[0], b->i16), kbShl(b, kbZExt(b, scales[1], b->i16), kbConst(b, b->i16, 8)));
  KbValue sfOff = kbAdd(b, kbMulI(b, kbLShr(b, x->feature, kbI32(b, 6)), MLIR_NVFP4_SF_ATOM_BYTES),
                        kbAnd(b, kbLShr(b, x->feature, kbI32(b, 4)), kbI32(b, 3)));
  KbValue sfAddr = kbAdd(b, genSfcRowAddress(g, x->t, x->t->sfmBase, row, x->inter), wide(b, sfOff));
  kbStore(b, sf, kbIntToPtr(b, sfAddr, globalPtr(b)), blocks);
}

/* One token row (group-relative `row`) of the thread: acc[nb][e] its registers of gate
 * block nb (up block nb + nBlocks / 2), features 8 (nb % 2) + 2 t + e of block nb / 2. */
static void fusedRow(Sm120Kernel *k, const FusedTile *x, KbValue row, KbValue (*acc)[2]) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const uint32_t half = g->cfg->sm120.nBlocks / 2, blocks = half / 2;
  KbValue h[FUSED_MAX_NB][2];
  for (uint32_t nb = 0; nb < half; ++nb)
    for (int e = 0; e < 2; ++e)
      h[nb][e] = nvfp4EmitSwiglu(b, scaled(b, x, acc[nb][e]), scaled(b, x, acc[nb + half][e]));
  KbValue words[FUSED_MAX_NB], scales[FUSED_MAX_NB / 2];
  for (uint32_t qb = 0; qb < blocks; ++qb)
    scales[qb] = quantBlock(b, x, k->c.t, h[2 * qb], h[2 * qb + 1], &words[2 * qb]);
  KbValue ok = kbAnd(b, kbCmp(b, KB_ULT, row, x->t->m), x->featureOk);
  kbIf(b, kbAnd(b, ok, x->storer));
  storeRow(g, x, row, words, scales, blocks);
  kbEndIf(b);
  if (g->cfg->spec.debugActivations) {
    kbIf(b, ok);
    dumpRow(g, x, k->c.t, row, (const KbValue(*)[2])h, half);
    kbEndIf(b);
  }
}

void sm120FusedEpilogue(Sm120Kernel *k, GenTile *t, KbValue acc[SM120_MAX_MB][SM120_MAX_NB][4]) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4Sm120Plan *p = &g->cfg->sm120;
  const Sm120Consumer *c = &k->c;
  FusedTile x = {.t = t};
  x.alpha = mlirValueIsNull(t->alphaPtr) ? (MlirValue){NULL}
                                          : kbLoad(b, b->f32, kbIntToPtr(b, t->alphaPtr, b->ptr), 4);
  x.gs = kbLoad(b, b->f32, kbIntToPtr(b, t->gsPtr, globalPtr(b)), 4);
  x.inter = kbLShr(b, t->n, kbI32(b, 1));
  x.feature = kbAdd(b, kbLShr(b, t->nRow0, kbI32(b, 1)), c->nRow0);
  x.featureOk = kbCmp(b, KB_ULT, x.feature, x.inter);
  x.storer = kbCmpI(b, KB_EQ, c->t, 0);
  x.rowBytes = wide(b, kbLShr(b, t->ldc, kbI32(b, 1)));
  for (uint32_t mb = 0; mb < p->mBlocks; ++mb)
    for (uint32_t hh = 0; hh < 2; ++hh) {
      KbValue row = kbAdd(b, t->cRow0, kbAdd(b, kbAddI(b, c->mRow0, 16 * mb + 8 * hh), c->g));
      KbValue regs[SM120_MAX_NB][2];
      for (uint32_t nb = 0; nb < p->nBlocks; ++nb)
        for (int e = 0; e < 2; ++e) regs[nb][e] = acc[mb][nb][2 * hh + e];
      fusedRow(k, &x, row, regs);
    }
}
