/* Epilogue.c — the sm_90a epilogue (each consumer warpgroup, its 64 weight columns of C):
 *
 *   accumulator (fp32, m64nT fragment: rows = weights, columns = tokens) x 2^14 -> fp16x2
 *   -> stmatrix.x4.trans into the warpgroup's staging box (T token rows x 64 weight
 *   columns = 128 B, 128-B swizzle), i.e. C's orientation -> TMA stores of 16-row boxes.
 *
 * Each warpgroup has its own staging buffer, store thread and named barrier, so the two
 * run their epilogues independently (one may still be in its mainloop). Staging is
 * rewritten only after the previous tile's stores have read it (the storing thread waits
 * cp.async.bulk.wait_group.read 0 before the warpgroup's barrier). The C map
 * covers the first N8 = N & ~7 columns (a TMA store writes whole 16-byte chunks); the last
 * N - N8 columns and boxes past N8 are stored from the staging buffer with plain 2-byte
 * stores, one thread per token row (two rows per thread at T > 128).
 */
#include "Sm90Kernel.h"

#include "../Nvvm.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/DescriptorsSm90.h"
#include "nvfp4-c/KernelABI.h"

static MlirType vecType(KbBuilder *b, MlirType elt, int64_t n) {
  return mlirVectorTypeGet(1, &n, elt);
}

/* fp16x2 of (x, y) * 2^14 (exact scaling, then round to nearest even). */
static KbValue packHalf2(KbBuilder *b, KbValue x, KbValue y) {
  MlirType v2f = vecType(b, b->f32, 2);
  KbValue v = kbInsert(b, kbInsert(b, kbUndef(b, v2f), x, kbI32(b, 0)), y, kbI32(b, 1));
  KbValue f = kbF32(b, (double)(1u << MLIR_NVFP4_SM90_ACC_EXPONENT));
  KbValue fs = kbInsert(b, kbInsert(b, kbUndef(b, v2f), f, kbI32(b, 0)), f, kbI32(b, 1));
  KbValue h = kbFPTrunc(b, kbFMul(b, v, fs), vecType(b, b->f16, 2));
  return kbBitcast(b, h, b->i32);
}

static KbValue storeThread(Sm90Kernel *k) { return kbCmpI(k->g.b, KB_EQ, k->c.wt, 0); }

static KbValue minI(KbBuilder *b, KbValue x, KbValue y) {
  return kbSelect(b, kbCmp(b, KB_ULT, x, y), x, y);
}

void sm90Epilogue(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue *acc) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  const Sm90Consumer *c = &k->c;
  KbValue wgBarrier = kbAddI(b, c->wg, SM90_BAR_EPILOGUE0); /* this warpgroup's alone */
  KbValue staging = genSmemAddr(g, cfg->stagingOffset, cfg->stagingBytes, c->wg);
  KbValue map = genTensorMap(g, t->group, MLIR_NVFP4_TENSOR_C);
  kbIf(b, storeThread(k));
  nvPrefetchTensormap(b, map);
  nvBulkWaitGroupRead(b, 0);
  kbEndIf(b);
  nvWarpSync(b);
  nvNamedBarrierAt(b, wgBarrier, 128);

  /* stmatrix.x4.trans: matrix m (lane group 8 m .. 8 m + 7) is token block 2 j2 + m / 2,
   * weight half m % 2 of the warp's 16 rows; lane 8 m + r gives the address of stored row r
   * (a token): chunk (2 warp + m % 2) ^ r of its 128-byte staging row. */
  KbValue m = kbLShr(b, g->lane, kbI32(b, 3));
  KbValue r = kbAnd(b, g->lane, kbI32(b, 7));
  KbValue token = kbAdd(b, kbMulI(b, kbLShr(b, m, kbI32(b, 1)), 8), r);
  KbValue col = kbAdd(b, kbMulI(b, c->warpInWg, 2), kbAnd(b, m, kbI32(b, 1)));
  KbValue laneAddr = kbAdd(b, kbAdd(b, staging, kbMulI(b, token, 128)),
                           kbMulI(b, kbXor(b, col, r), 16));
  for (uint32_t j2 = 0; j2 < n / 16; ++j2) {
    KbValue regs[4];
    for (int i = 0; i < 4; ++i) regs[i] = packHalf2(b, acc[8 * j2 + 2 * i], acc[8 * j2 + 2 * i + 1]);
    nvStMatrixX4Trans(b, genSharedPtr(g, kbAddI(b, laneAddr, 2048 * j2)), regs);
  }
  nvFenceProxyAsyncShared(b);
  nvWarpSync(b);
  nvNamedBarrierAt(b, wgBarrier, 128);

  KbValue x = kbAdd(b, t->cCol0, kbMulI(b, c->wg, MLIR_NVFP4_STORE_COLS)); /* first column */
  KbValue n8 = kbAnd(b, t->n, kbI32(b, ~7));
  kbIf(b, storeThread(k));
  {
    kbIf(b, kbCmp(b, KB_ULT, x, n8));
    for (uint32_t i = 0; i < n / MLIR_NVFP4_SM90_STORE_ROWS; ++i) {
      KbValue y = kbAddI(b, t->cRow0, MLIR_NVFP4_SM90_STORE_ROWS * i);
      kbIf(b, kbCmp(b, KB_ULT, y, t->m));
      nvTmaStore2d(b, map, genSharedPtr(g, kbAddI(b, staging, 128 * MLIR_NVFP4_SM90_STORE_ROWS * i)),
                   x, y, "c");
      kbEndIf(b);
    }
    kbEndIf(b);
    nvBulkCommitGroup(b);
  }
  kbEndIf(b);

  /* Columns the C map does not cover: [max(N8, x), min(N, x + 64)), one thread per row. */
  KbValue lo = kbSelect(b, kbCmp(b, KB_UGT, n8, x), minI(b, kbSub(b, n8, x), kbI32(b, 64)),
                        kbI32(b, 0));
  KbValue hi = kbSelect(b, kbCmp(b, KB_UGT, t->n, x), minI(b, kbSub(b, t->n, x), kbI32(b, 64)),
                        kbI32(b, 0));
  for (uint32_t pass = 0; pass * 128u < n; ++pass) { /* token rows wt, wt + 128 (T = 192) */
    KbValue row = kbAddI(b, c->wt, 128 * pass);
    KbValue cRow = kbAdd(b, t->cRow0, row);
    kbIf(b, kbAnd(b, kbAnd(b, kbCmp(b, KB_ULT, lo, hi), kbCmpI(b, KB_ULT, row, n)),
                  kbCmp(b, KB_ULT, cRow, t->m)));
    {
      KbVar lc = kbVar(b, b->i32, lo);
      kbWhile(b);
      kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, lc), hi));
      {
        KbValue l = kbGet(b, lc);
        KbValue chunk = kbXor(b, kbLShr(b, l, kbI32(b, 3)), kbAnd(b, row, kbI32(b, 7)));
        KbValue src = kbAdd(b, kbAdd(b, staging, kbMulI(b, row, 128)),
                            kbAdd(b, kbMulI(b, chunk, 16), kbMulI(b, kbAnd(b, l, kbI32(b, 7)), 2)));
        KbValue v = kbLoad(b, b->i16, genSharedPtr(g, src), 2);
        KbValue elem = kbAdd(b, kbMul(b, kbZExt(b, cRow, b->i64), kbZExt(b, t->ldc, b->i64)),
                             kbZExt(b, kbAdd(b, x, l), b->i64));
        KbValue addr = kbAdd(b, t->cPtr, kbMulI(b, elem, 2));
        kbStore(b, v, kbIntToPtr(b, addr, mlirLLVMPointerTypeGet(b->ctx, 1)), 2);
        kbSet(b, lc, kbAddI(b, l, 1));
      }
      kbEndWhile(b);
    }
    kbEndIf(b);
  }
}

/* ---- stream-K: partial sums of a split tile ---------------------------------------------- */

#define SK_MAX_ACC 96 /* accumulator registers of a consumer thread at T = 192 */

/* Slot `which` (0: CTA `cta`'s first tile's share, when that starts past stage 0; 1: its
 * last tile's, when that is split and starts at stage 0) of CTA `cta`'s workspace: the
 * counters (u32 at 4 wg, in slot 1: stages published for the tile), the stage ends (u32 at
 * 64 + 4 wg: the end of the share whose sums follow), then per warpgroup its partial sums,
 * float4 j of thread wt at 16 (128 j + wt) (coalesced). */
static KbValue skSlot(Sm90Kernel *k, KbValue cta, KbValue which) {
  KbBuilder *b = k->g.b;
  const uint32_t stride = k->g.cfg->workspacePerCta / 2;
  KbValue ws = genParamU64(&k->g, NVFP4_ABI_HDR_WORKSPACE);
  KbValue index = kbAdd(b, kbMulI(b, kbZExt(b, cta, b->i64), 2), kbZExt(b, which, b->i64));
  return kbAdd(b, ws, kbMulI(b, index, stride));
}

static KbValue skWord(Sm90Kernel *k, KbValue slot, uint32_t offset) {
  KbBuilder *b = k->g.b;
  return kbAdd(b, slot, kbZExt(b, kbAddI(b, kbMulI(b, k->c.wg, 4), offset), b->i64));
}

static KbValue skPartials(Sm90Kernel *k, KbValue slot) {
  KbBuilder *b = k->g.b;
  const MlirNvfp4Sm90Plan *p = &k->g.cfg->sm90;
  KbValue off = kbAdd(b, kbMulI(b, k->c.wg, p->skSlotBytes), kbMulI(b, k->c.wt, 16));
  return kbAdd(b, slot, kbZExt(b, kbAddI(b, off, p->skFlagBytes), b->i64));
}

static KbValue globalPtr(KbBuilder *b, KbValue addr) {
  return kbIntToPtr(b, addr, mlirLLVMPointerTypeGet(b->ctx, 1));
}

/* A volatile (ld.volatile: not cached in L1) load of a partial-sum float4. */
static KbValue volatileLoad(KbBuilder *b, MlirType type, KbValue addr, int64_t align) {
  KbValue v = kbLoad(b, type, globalPtr(b, addr), align);
  mlirOperationSetAttributeByName(mlirOpResultGetOwner(v), mlirStringRefCreateFromCString("volatile_"),
                                  mlirUnitAttrGet(b->ctx));
  return v;
}

/* A split tile's shares are summed by whichever of its CTAs completes it last; no CTA ever
 * waits for another, so the schedule needs no CTA resident beside any other (MPS, green
 * contexts, other kernels on the SMs). The head (the share with stage 0, usually finished
 * last: the tile ends its share, while the others start theirs with it) first looks at its
 * counter: when every other share is in, it adds them at once, publishing nothing.
 * Otherwise every share is published (partial sums and stage end, then a barrier, then one
 * atomic add of its stage count, acquire-release), and the add that brings the count to
 * kIters makes its CTA the one that sums the others' and stores C; it first returns the
 * counter to zero for the next launch. Every CTA runs the epilogue, one that does not
 * complete the tile with no rows to store: ptxas cannot tell that the bar.red result is
 * the same in every thread, and the epilogue under that branch spilled (swap_n128_m192_sk:
 * 76 bytes of spill stores). */
void sm90StreamKEpilogue(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue *acc) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const uint32_t nacc = n / 2 <= SK_MAX_ACC ? n / 2 : SK_MAX_ACC;
  MlirType v4 = vecType(b, b->f32, 4);
  KbValue wgBarrier = kbAddI(b, k->c.wg, SM90_BAR_EPILOGUE0);
  KbValue cta = nvSreg(b, "ctaid.x");
  KbValue leader = kbCmpI(b, KB_EQ, k->c.wt, 0);
  KbValue isHead = kbCmpI(b, KB_EQ, t->kBegin, 0);
  KbValue mine = kbSub(b, t->kEnd, t->kBegin);
  KbVar accVar[SK_MAX_ACC];
  for (uint32_t i = 0; i < nacc; ++i) accVar[i] = kbVar(b, b->f32, acc[i]);
  KbValue whole = kbCmp(b, KB_EQ, mine, t->kIters);
  KbValue counter = skWord(k, skSlot(k, t->skHead, kbI32(b, 1)), 0);
  KbVar last = kbVar(b, b->i1, whole); /* this CTA stores the tile */

  kbIf(b, kbXor(b, whole, kbBool(b, true)));
  {
    KbVar allIn = kbVar(b, b->i1, kbBool(b, false));
    kbIf(b, kbAnd(b, leader, isHead));
    kbSet(b, allIn, kbCmp(b, KB_EQ, nvGlobalAcquireLoadU32(b, counter), kbSub(b, t->kIters, mine)));
    kbEndIf(b);
    nvWarpSync(b);
    kbSet(b, last, nvNamedBarrierOrAt(b, wgBarrier, 128, kbGet(b, allIn)));
    kbIf(b, kbXor(b, kbGet(b, last), kbBool(b, true)));
    {
      /* publish this share: its sums and end stage, then the count */
      KbValue slot = skSlot(k, cta, kbSelect(b, isHead, kbI32(b, 1), kbI32(b, 0)));
      KbValue part = skPartials(k, slot);
      for (uint32_t j = 0; j < nacc / 4; ++j) {
        KbValue v = kbUndef(b, v4);
        for (uint32_t e = 0; e < 4; ++e) v = kbInsert(b, v, acc[4 * j + e], kbI32(b, e));
        kbStore(b, v, globalPtr(b, kbAdd(b, part, kbI64(b, 2048 * j))), 16);
      }
      KbVar completes = kbVar(b, b->i1, kbBool(b, false));
      nvWarpSync(b);
      nvNamedBarrierAt(b, wgBarrier, 128); /* every thread's sums, then the count */
      kbIf(b, leader);
      {
        kbStore(b, t->kEnd, globalPtr(b, skWord(k, slot, 64)), 4);
        KbValue before = nvGlobalAtomicAddU32(b, counter, mine);
        kbSet(b, completes, kbCmp(b, KB_EQ, kbAdd(b, before, mine), t->kIters));
      }
      kbEndIf(b);
      nvWarpSync(b);
      kbSet(b, last, nvNamedBarrierOrAt(b, wgBarrier, 128, kbGet(b, completes)));
    }
    kbEndIf(b);
  }
  kbEndIf(b);
  KbValue lastV = kbGet(b, last);
  kbIf(b, lastV);
  {
    /* every share has been counted: the counter is free for the next launch */
    kbIf(b, kbAnd(b, leader, kbXor(b, whole, kbBool(b, true))));
    nvGlobalReleaseStoreU32(b, counter, kbI32(b, 0));
    kbEndIf(b);
    /* the other shares, in stage order from the head's (the leader's acquire, then the
     * barrier, then everyone's loads); this CTA's own is in the registers. A whole tile
     * has none. */
    KbVar covered = kbVar(b, b->i32, kbSelect(b, isHead, t->kEnd, kbI32(b, 0)));
    KbVar next = kbVar(b, b->i32, kbSelect(b, isHead, kbAddI(b, cta, 1), t->skHead));
    kbWhile(b);
    kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, covered), t->kIters));
    {
      KbValue x = kbGet(b, next);
      kbIf(b, kbCmp(b, KB_EQ, x, cta));
      kbSet(b, covered, t->kEnd);
      kbElse(b);
      {
        KbValue which = kbSelect(b, kbCmp(b, KB_EQ, x, t->skHead), kbI32(b, 1), kbI32(b, 0));
        KbValue slot = skSlot(k, x, which);
        KbValue part = skPartials(k, slot);
        for (uint32_t j = 0; j < nacc / 4; ++j) {
          /* a float4 at a time: the register fence (side effects, like the volatile loads)
           * keeps the compiler from loading all of them before the adds (the consumers'
           * registers hold the accumulator) */
          KbValue v = volatileLoad(b, v4, kbAdd(b, part, kbI64(b, 2048 * j)), 16);
          KbValue sum[4];
          for (uint32_t e = 0; e < 4; ++e)
            sum[e] = kbFAdd(b, kbGet(b, accVar[4 * j + e]), kbExtract(b, v, kbI32(b, e)));
          nvRegisterFenceValues(b, sum, 4);
          for (uint32_t e = 0; e < 4; ++e) kbSet(b, accVar[4 * j + e], sum[e]);
        }
        kbSet(b, covered, volatileLoad(b, b->i32, skWord(k, slot, 64), 4));
      }
      kbEndIf(b);
      kbSet(b, next, kbAddI(b, x, 1));
    }
    kbEndWhile(b);
  }
  kbEndIf(b);
  KbValue sums[SK_MAX_ACC];
  for (uint32_t i = 0; i < nacc; ++i) sums[i] = kbGet(b, accVar[i]);
  GenTile stored = *t;
  stored.m = kbSelect(b, lastV, t->m, kbI32(b, 0));
  sm90Epilogue(k, &stored, n, sums);
}

void sm90EpilogueFinish(Sm90Kernel *k) {
  kbIf(k->g.b, storeThread(k));
  nvBulkWaitGroup(k->g.b, 0);
  kbEndIf(k->g.b);
}
