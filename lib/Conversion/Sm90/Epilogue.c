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

/* CTA `cta`'s workspace slot: flags (u32 per consumer warpgroup), then per warpgroup its
 * partial sums, float4 j of thread wt at 16 (128 j + wt) (coalesced). */
static KbValue skSlot(Sm90Kernel *k, KbValue cta) {
  KbBuilder *b = k->g.b;
  KbValue ws = genParamU64(&k->g, NVFP4_ABI_HDR_WORKSPACE);
  return kbAdd(b, ws, kbMulI(b, kbZExt(b, cta, b->i64), k->g.cfg->workspacePerCta));
}

static KbValue skFlag(Sm90Kernel *k, KbValue slot) {
  return kbAdd(k->g.b, slot, kbMulI(k->g.b, kbZExt(k->g.b, k->c.wg, k->g.b->i64), 4));
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

void sm90StreamKEpilogue(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue *acc) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const uint32_t nacc = n / 2 <= SK_MAX_ACC ? n / 2 : SK_MAX_ACC;
  MlirType v4 = vecType(b, b->f32, 4);
  KbValue wgBarrier = kbAddI(b, k->c.wg, SM90_BAR_EPILOGUE0);
  KbValue cta = nvSreg(b, "ctaid.x");
  KbValue leader = kbCmpI(b, KB_EQ, k->c.wt, 0);
  KbVar accVar[SK_MAX_ACC];
  for (uint32_t i = 0; i < nacc; ++i) accVar[i] = kbVar(b, b->f32, acc[i]);

  kbIf(b, kbCmpI(b, KB_NE, t->kBegin, 0));
  {
    /* not the tile's first stages: publish the partial sums, then the end stage */
    KbValue slot = skSlot(k, cta), part = skPartials(k, slot);
    for (uint32_t j = 0; j < nacc / 4; ++j) {
      KbValue v = kbUndef(b, v4);
      for (uint32_t e = 0; e < 4; ++e) v = kbInsert(b, v, acc[4 * j + e], kbI32(b, e));
      kbStore(b, v, globalPtr(b, kbAdd(b, part, kbI64(b, 2048 * j))), 16);
    }
    nvWarpSync(b);
    nvNamedBarrierAt(b, wgBarrier, 128); /* every thread's stores, then the flag */
    kbIf(b, leader);
    nvGlobalReleaseStoreU32(b, skFlag(k, slot), t->kEnd);
    kbEndIf(b);
  }
  kbElse(b);
  {
    /* the tile's first stages: add the shares of the CTAs after this one up to its end */
    KbVar covered = kbVar(b, b->i32, t->kEnd);
    KbVar next = kbVar(b, b->i32, kbAddI(b, cta, 1));
    kbWhile(b);
    kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, covered), t->kIters));
    {
      KbValue slot = skSlot(k, kbGet(b, next)), flag = skFlag(k, slot);
      kbIf(b, leader);
      {
        kbWhile(b);
        KbValue v = nvGlobalAcquireLoadU32(b, flag);
        kbWhileDo(b, kbCmpI(b, KB_EQ, v, 0));
        kbEndWhile(b);
      }
      kbEndIf(b);
      nvWarpSync(b);
      nvNamedBarrierAt(b, wgBarrier, 128); /* the leader's acquire, then everyone's loads */
      KbValue end = volatileLoad(b, b->i32, flag, 4);
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
      nvWarpSync(b);
      nvNamedBarrierAt(b, wgBarrier, 128); /* every thread has read the flag and the sums */
      kbIf(b, leader);
      nvGlobalReleaseStoreU32(b, flag, kbI32(b, 0)); /* for the next launch */
      kbEndIf(b);
      kbSet(b, covered, end);
      kbSet(b, next, kbAddI(b, kbGet(b, next), 1));
    }
    kbEndWhile(b);
    KbValue sums[SK_MAX_ACC];
    for (uint32_t i = 0; i < nacc; ++i) sums[i] = kbGet(b, accVar[i]);
    sm90Epilogue(k, t, n, sums);
  }
  kbEndIf(b);
}

void sm90EpilogueFinish(Sm90Kernel *k) {
  kbIf(k->g.b, storeThread(k));
  nvBulkWaitGroup(k->g.b, 0);
  kbEndIf(k->g.b);
}
