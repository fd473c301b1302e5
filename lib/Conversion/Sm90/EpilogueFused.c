/* EpilogueFused.c — the sm_90a fused SwiGLU + NVFP4 epilogue (epilogue = "swiglu_nvfp4";
 * swap_n64, swap_n128, swap_n192; docs/kernel-sm90a.md). A tile's 128 weight rows are the
 * gate rows n0 .. n0 + 63 (consumer warpgroup 0's accumulator) and the up rows I + n0 ..
 * (warpgroup 1's), n0 = mRow0 / 2: the same fragment element of the same thread in both
 * warpgroups is the same (feature, token). Through the two warpgroups' staging buffers
 * (T x 256 bytes), a table with one fp32 slot per accumulator element and thread:
 *
 *   1. warpgroup 1 writes its up values (accumulator x 2^14 [x alpha], fp32);
 *   2. warpgroup 0 replaces each by h = silu(g) . u (nvfp4EmitSwiglu) of its gate value,
 *      element by element (holding all of h until a barrier, to write a token-major
 *      table, spilled 88 bytes at T = 128);
 *   3. every consumer thread (256) takes (token, block of 16 features) items: the 16
 *      values of one token from the 8 lanes x 2 registers that held them,
 *      nvfp4EmitQuantBlock (the sm_100a kernel's and nvfp4h_quant_block's operations), 8
 *      bytes of codes at C[row][col / 2] and one E4M3 scale at its blocked SFC address
 *      (docs/format.md), predicated on the row (M tails, the expert's rows) and the
 *      feature (col < I). A kernel built with the activation dump also stores h.
 *
 * A barrier of both warpgroups separates the steps, and one at the start keeps a tile's
 * writes behind the previous tile's reads.
 */
#include "Sm90Kernel.h"

#include "../Nvvm.h"
#include "../Quantize.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/DescriptorsSm90.h"
#include "nvfp4-c/KernelABI.h"

#define FUSED_THREADS 256u /* both consumer warpgroups */

static MlirType globalPtr(KbBuilder *b) { return mlirLLVMPointerTypeGet(b->ctx, 1); }

static KbValue wide(KbBuilder *b, KbValue x) { return kbZExt(b, x, b->i64); }

static void fusedBarrier(KbBuilder *b) {
  nvWarpSync(b);
  nvNamedBarrier(b, SM90_BAR_FUSED, FUSED_THREADS);
}

/* Accumulator element v as the true sum (x 2^14, exact) times alpha (null: none). */
static KbValue scaled(KbBuilder *b, KbValue v, KbValue alpha) {
  v = kbFMul(b, v, kbF32(b, (double)(1u << MLIR_NVFP4_SM90_ACC_EXPONENT)));
  return mlirValueIsNull(alpha) ? v : kbFMul(b, v, alpha);
}

/* The staging's element table: element i (of the n / 2 accumulator registers) of consumer
 * thread wt (of either warpgroup) is word i 128 + (wt ^ 4 (i % 8)): a warp's 32 lanes hit
 * the 32 banks, and the swizzle spreads a quantizing warp's reads (below) over 4 times more
 * banks than without. */
static KbValue slotOf(KbBuilder *b, KbValue staging, KbValue wt, uint32_t i) {
  KbValue word = kbAddI(b, kbXor(b, wt, kbI32(b, 4 * (i % 8))), 128 * i);
  return kbAdd(b, staging, kbMulI(b, word, 4));
}

/* Steps 1 and 2: warpgroup 1's up values into the table, then warpgroup 0 replaces each
 * element by h = silu(gate) . up (one element at a time: the thread reads and writes only
 * its own slots). */
static void activations(Sm90Kernel *k, KbValue staging, uint32_t n, KbValue *acc, KbValue alpha) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const Sm90Consumer *c = &k->c;
  kbIf(b, kbCmpI(b, KB_EQ, c->wg, 1));
  for (uint32_t i = 0; i < n / 2; ++i)
    kbStore(b, scaled(b, acc[i], alpha), genSharedPtr(g, slotOf(b, staging, c->wt, i)), 4);
  kbEndIf(b);
  fusedBarrier(b);
  kbIf(b, kbCmpI(b, KB_EQ, c->wg, 0));
  for (uint32_t i = 0; i < n / 2; ++i) {
    KbValue slot = genSharedPtr(g, slotOf(b, staging, c->wt, i));
    KbValue h = nvfp4EmitSwiglu(b, scaled(b, acc[i], alpha), kbLoad(b, b->f32, slot, 4));
    /* the register fence (side effects) keeps each element's load, SwiGLU and store in
     * step: no up values loaded ahead beside the live gate values */
    nvRegisterFenceValues(b, &h, 1);
    kbStore(b, h, slot, 4);
  }
  kbEndIf(b);
}

/* The 16 activations of token `token`, features 16 blk .. 16 blk + 15 of the tile, from
 * the table. In the m64nT fragment, element i = 4 (token / 8) + 2 hh + token % 2 of lane
 * 4 fl + (token % 8) / 2 of warp blk of warpgroup 0 holds feature 16 blk + 8 hh + fl. */
static void blockValues(GenKernel *g, KbValue staging, KbValue token, KbValue blk,
                        KbValue x[NVFP4_QUANT_BLOCK]) {
  KbBuilder *b = g->b;
  KbValue iBase = kbAdd(b, kbMulI(b, kbLShr(b, token, kbI32(b, 3)), 4),
                        kbAnd(b, token, kbI32(b, 1)));
  KbValue swz = kbAnd(b, iBase, kbI32(b, 7));
  KbValue lane = kbAnd(b, kbLShr(b, token, kbI32(b, 1)), kbI32(b, 3)); /* (token % 8) / 2 */
  KbValue row = kbAdd(b, kbAdd(b, kbMulI(b, iBase, 128), kbMulI(b, blk, 32)), lane);
  for (uint32_t f = 0; f < NVFP4_QUANT_BLOCK; ++f) {
    const uint32_t hh = f / 8, fl = f % 8;
    KbValue col = kbMulI(b, kbXor(b, swz, kbI32(b, (int32_t)(fl ^ 2 * hh))), 4);
    KbValue word = kbAdd(b, kbAddI(b, row, 256 * hh), col);
    x[f] = kbLoad(b, b->f32, genSharedPtr(g, kbAdd(b, staging, kbMulI(b, word, 4))), 4);
  }
}

typedef struct FusedTile {
  KbValue staging, gs, inter, n0;
} FusedTile;

/* Step 3, one item: token `token` of the tile, features 16 blk .. 16 blk + 15 of its 64. */
static void quantizeItem(Sm90Kernel *k, GenTile *t, const FusedTile *ft, KbValue token,
                         KbValue blk) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  KbValue row = kbAdd(b, t->cRow0, token);
  KbValue col = kbAdd(b, ft->n0, kbMulI(b, blk, 16));
  kbIf(b, kbAnd(b, kbCmp(b, KB_ULT, row, t->m), kbCmp(b, KB_ULT, col, ft->inter)));
  {
    KbValue x[NVFP4_QUANT_BLOCK];
    blockValues(g, ft->staging, token, blk, x);
    Nvfp4QuantBlock qb = nvfp4EmitQuantBlock(b, x, ft->gs);
    KbValue pitch = wide(b, kbLShr(b, t->ldc, kbI32(b, 1))); /* FP4 C: ldc / 2 bytes a row */
    KbValue cAddr = kbAdd(b, kbAdd(b, t->cPtr, kbMul(b, wide(b, row), pitch)),
                          wide(b, kbLShr(b, col, kbI32(b, 1))));
    kbStore(b, qb.packed, kbIntToPtr(b, cAddr, globalPtr(b)), 8);
    KbValue sfOff = kbAdd(b, kbMulI(b, kbLShr(b, col, kbI32(b, 6)), MLIR_NVFP4_SF_ATOM_BYTES),
                          kbAnd(b, kbLShr(b, col, kbI32(b, 4)), kbI32(b, 3)));
    KbValue sfaBase = g->cfg->roleN.data == MLIR_NVFP4_TENSOR_A ? t->sfnBase : t->sfmBase;
    KbValue sfAddr = kbAdd(b, genSfcRowAddress(g, t, sfaBase, row, ft->inter), wide(b, sfOff));
    kbStore(b, qb.scale, kbIntToPtr(b, sfAddr, globalPtr(b)), 1);
    if (g->cfg->spec.debugActivations) {
      KbValue act = genDebugActAddress(g, t, row, col);
      int64_t four = 4;
      MlirType v4 = mlirVectorTypeGet(1, &four, b->f32);
      for (uint32_t q = 0; q < 4; ++q) {
        KbValue v = kbUndef(b, v4);
        for (uint32_t e = 0; e < 4; ++e) v = kbInsert(b, v, x[4 * q + e], kbI32(b, e));
        kbStore(b, v, kbIntToPtr(b, kbAddI(b, act, 16 * q), globalPtr(b)), 16);
      }
    }
  }
  kbEndIf(b);
}

void sm90FusedEpilogue(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue *acc) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  KbValue alpha = mlirValueIsNull(t->alphaPtr)
                      ? (MlirValue){NULL}
                      : kbLoad(b, b->f32, kbIntToPtr(b, t->alphaPtr, globalPtr(b)), 4);
  FusedTile ft;
  ft.staging = kbAddI(b, g->smem, cfg->stagingOffset); /* both buffers, adjacent */
  ft.gs = kbLoad(b, b->f32, kbIntToPtr(b, t->gsPtr, globalPtr(b)), 4);
  ft.inter = kbLShr(b, t->n, kbI32(b, 1)); /* I: B holds 2I gate/up rows */
  ft.n0 = kbLShr(b, t->mRow0, kbI32(b, 1));
  fusedBarrier(b); /* the previous tile's items have read the staging */
  activations(k, ft.staging, n, acc, alpha);
  fusedBarrier(b);
  /* tokens x 4 blocks of 16 features, a loop (unrolled, two items' loads and codes were
   * live at once: 204 bytes spilled at T = 128) */
  KbVar item = kbVar(b, b->i32, k->c.ct);
  kbWhile(b);
  kbWhileDo(b, kbCmpI(b, KB_ULT, kbGet(b, item), 4 * n));
  {
    KbValue it = kbGet(b, item);
    quantizeItem(k, t, &ft, kbLShr(b, it, kbI32(b, 2)), kbAnd(b, it, kbI32(b, 3)));
    kbSet(b, item, kbAddI(b, it, FUSED_THREADS));
  }
  kbEndWhile(b);
}
