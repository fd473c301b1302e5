/* Epilogue.c — the sm_90a epilogue (each consumer warpgroup, its 64 weight columns of C):
 *
 *   accumulator (fp32, m64nT fragment: rows = weights, columns = tokens) x 2^14 (exact: the
 *   decoded operands carry 2^-7 each) [x alpha, fp32] -> f16x2 / bf16x2 (one rounding to
 *   nearest even) -> stmatrix.x4.trans into the warpgroup's staging box (T token rows x 64
 *   weight columns = 128 B, 128-B swizzle), i.e. C's orientation -> TMA stores of 16-row
 *   boxes. The product with alpha is the sm_100a kernel's fl(sum x alpha) bit for bit:
 *   x 2^14 is exact for every finite sum (no overflow where the true sum does not
 *   overflow, no subnormal: sums are multiples of 2^-34), so one rounding remains; 2^14
 *   folded into alpha instead would overflow for |alpha| >= 2^114, and alpha first would
 *   round the scaled-down sum in the subnormal range.
 *
 * Each warpgroup has its own staging buffer, store thread and named barrier, so the two
 * run their epilogues independently (one may still be in its mainloop). Staging is
 * rewritten only after the previous tile's stores have read it (the storing thread waits
 * cp.async.bulk.wait_group.read 0 before the warpgroup's barrier). The C map
 * covers the first N8 = N & ~7 columns (a TMA store writes whole 16-byte chunks); the last
 * N - N8 columns and boxes past N8 are stored from the staging buffer with plain 2-byte
 * stores, one thread per token row (two rows per thread at T > 128).
 *
 * The contiguous form (nvfp4.moe_matmul) shares one C map between the experts: a 16-row
 * box that reaches past the expert's last row would write the next expert's rows, so the
 * TMA stores only the boxes inside the expert and the warpgroup copies the rest of the
 * tile's rows from staging in 16-byte chunks (one thread per row and chunk).
 *
 * f32 C has no staging: each thread stores its accumulator elements directly, predicated on
 * the row and column (a warp's store covers 8 consecutive columns of 4 rows: whole 32-byte
 * sectors).
 */
#include "Sm90Kernel.h"

#include "../Generator/StreamK.h"
#include "../Nvvm.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/DescriptorsSm90.h"
#include "nvfp4-c/KernelABI.h"

static KbValue splat2(KbBuilder *b, KbValue f) {
  MlirType v2f = kbVecType(b, b->f32, 2);
  return kbInsert(b, kbInsert(b, kbUndef(b, v2f), f, kbI32(b, 0)), f, kbI32(b, 1));
}

/* The C value (fp32) of accumulator v (scalar or vector): v x 2^14, exact, then x alpha
 * (null: none), rounded once. */
static KbValue cValue(KbBuilder *b, KbValue v, KbValue alpha, bool vec) {
  KbValue f = kbF32(b, (double)(1u << MLIR_NVFP4_SM90_ACC_EXPONENT));
  v = kbFMul(b, v, vec ? splat2(b, f) : f);
  if (!mlirValueIsNull(alpha)) v = kbFMul(b, v, vec ? splat2(b, alpha) : alpha);
  return v;
}

/* f16x2 or bf16x2 of (x, y): cValue, then one round to nearest even. (bf16 as two scalar
 * conversions: the CPU target rounds a scalar f32 -> bf16 itself, and its host has no
 * vector bf16 conversion.) */
static KbValue packPair(Sm90Kernel *k, KbValue x, KbValue y, KbValue alpha) {
  KbBuilder *b = k->g.b;
  MlirType v2f = kbVecType(b, b->f32, 2);
  KbValue v = kbInsert(b, kbInsert(b, kbUndef(b, v2f), x, kbI32(b, 0)), y, kbI32(b, 1));
  v = cValue(b, v, alpha, true);
  if (k->g.cfg->spec.output != MLIR_NVFP4_OUTPUT_BF16)
    return kbBitcast(b, kbFPTrunc(b, v, kbVecType(b, b->f16, 2)), b->i32);
  KbValue h = kbUndef(b, kbVecType(b, b->bf16, 2)); /* NVPTX: one cvt.rn.bf16x2.f32 */
  for (int i = 0; i < 2; ++i)
    h = kbInsert(b, h, kbFPTrunc(b, kbExtract(b, v, kbI32(b, i)), b->bf16), kbI32(b, i));
  return kbBitcast(b, h, b->i32);
}

/* The tile's alpha (alpha variants; null otherwise), read once per tile. */
static KbValue loadAlpha(KbBuilder *b, GenTile *t) {
  if (mlirValueIsNull(t->alphaPtr)) return (MlirValue){NULL};
  return kbLoad(b, b->f32, kbIntToPtr(b, t->alphaPtr, mlirLLVMPointerTypeGet(b->ctx, 1)), 4);
}

static KbValue storeThread(Sm90Kernel *k) { return kbCmpI(k->g.b, KB_EQ, k->c.wt, 0); }

static KbValue minI(KbBuilder *b, KbValue x, KbValue y) {
  return kbSelect(b, kbCmp(b, KB_ULT, x, y), x, y);
}

/* ---- staging ------------------------------------------------------------------------------
 *
 * A warpgroup's staging buffer holds tileN rows of 128 bytes. f16 / bf16 C: one box column
 * of its 64 weight columns, every token row of the tile, in one pass. f32 C: two box
 * columns of 32 weight columns (h = weight / 32), tileN / 2 token rows each, so a tile of
 * more than tileN / 2 tokens is stored in two passes. Element (token row i of the pass,
 * weight column l) lies at h P 128 + i 128 + (chunk ^ (i % 8)) 16 + byte, P the rows of a
 * box column, chunk and byte its place in the 128-byte row: the TMA's 128-byte swizzle. */
typedef struct StagedPass {
  KbValue staging;  /* i32 shared address of the warpgroup's buffer */
  KbValue x;        /* the warpgroup's first C column */
  KbValue nMap;     /* the columns the C map covers (N rounded down to a 16-byte chunk) */
  uint32_t rows;    /* P: token rows per box column */
  uint32_t first;   /* the pass's first token row of the tile */
  uint32_t count;   /* its token rows (a multiple of 16) */
} StagedPass;

static uint32_t boxColumns(const MlirNvfp4KernelConfig *cfg) { return cfg->cElemBytes / 2u; }

/* Shared address of element (tile row `row` of the pass, column l) of the staging. */
static KbValue stagedElement(Sm90Kernel *k, const StagedPass *sp, KbValue row, KbValue l) {
  KbBuilder *b = k->g.b;
  if (k->g.cfg->cElemBytes == 2) { /* one box column; the pass is the tile */
    KbValue chunk = kbXor(b, kbLShr(b, l, kbI32(b, 3)), kbAnd(b, row, kbI32(b, 7)));
    return kbAdd(b, kbAdd(b, sp->staging, kbMulI(b, row, 128)),
                 kbAdd(b, kbMulI(b, chunk, 16), kbMulI(b, kbAnd(b, l, kbI32(b, 7)), 2)));
  }
  KbValue i = kbAddI(b, row, -(int64_t)sp->first);
  KbValue chunk = kbXor(b, kbAnd(b, kbLShr(b, l, kbI32(b, 2)), kbI32(b, 7)), kbAnd(b, i, kbI32(b, 7)));
  KbValue box = kbMulI(b, kbLShr(b, l, kbI32(b, 5)), sp->rows * 128);
  return kbAdd(b, kbAdd(b, kbAdd(b, sp->staging, box), kbMulI(b, i, 128)),
               kbAdd(b, kbMulI(b, chunk, 16), kbMulI(b, kbAnd(b, l, kbI32(b, 3)), 4)));
}

/* Global address of C[cRow][x + l] of the tile's group (or expert); l null: 0. */
static KbValue cElement(Sm90Kernel *k, GenTile *t, KbValue cRow, KbValue x, KbValue l) {
  KbBuilder *b = k->g.b;
  KbValue rowElem = kbMul(b, kbZExt(b, cRow, b->i64), kbZExt(b, t->ldc, b->i64));
  KbValue col = mlirValueIsNull(l) ? x : kbAdd(b, x, l);
  KbValue elem = kbAdd(b, rowElem, kbZExt(b, col, b->i64));
  KbValue addr = kbAdd(b, t->cPtr, kbMulI(b, elem, k->g.cfg->cElemBytes));
  return kbIntToPtr(b, addr, mlirLLVMPointerTypeGet(b->ctx, 1));
}

/* The store thread: the pass's 16-row boxes of every box column through the C map (rows
 * below M; the contiguous form: boxes inside the expert, the map's y from its first row). */
static void issueBoxes(Sm90Kernel *k, GenTile *t, const StagedPass *sp, KbValue map) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  const bool contiguous = cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  kbIf(b, storeThread(k));
  {
    for (uint32_t h = 0; h < boxColumns(cfg); ++h) {
      KbValue xh = h ? kbAddI(b, sp->x, cfg->storeBoxCols * h) : sp->x;
      kbIf(b, kbCmp(b, KB_ULT, xh, sp->nMap));
      for (uint32_t i = 0; i < sp->count / MLIR_NVFP4_SM90_STORE_ROWS; ++i) {
        KbValue y = kbAddI(b, t->cRow0, sp->first + MLIR_NVFP4_SM90_STORE_ROWS * i);
        kbIf(b, contiguous ? kbCmp(b, KB_ULE, kbAddI(b, y, MLIR_NVFP4_SM90_STORE_ROWS), t->m)
                           : kbCmp(b, KB_ULT, y, t->m));
        KbValue box = kbAddI(b, sp->staging, sp->rows * 128 * h + 128 * MLIR_NVFP4_SM90_STORE_ROWS * i);
        nvTmaStore2d(b, map, genSharedPtr(g, box), xh, genAddBase(b, t->cRowBase, y), "c");
        kbEndIf(b);
      }
      kbEndIf(b);
    }
    nvBulkCommitGroup(b);
  }
  kbEndIf(b);
}

/* Columns the C map does not cover, [max(nMap, x), min(N, x + 64)), of the pass's rows
 * below M: element by element, one thread per token row. */
static void storeTail(Sm90Kernel *k, GenTile *t, const StagedPass *sp) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const Sm90Consumer *c = &k->c;
  const uint32_t eb = g->cfg->cElemBytes;
  KbValue x = sp->x, nMap = sp->nMap;
  KbValue lo = kbSelect(b, kbCmp(b, KB_UGT, nMap, x), minI(b, kbSub(b, nMap, x), kbI32(b, 64)),
                        kbI32(b, 0));
  KbValue hi = kbSelect(b, kbCmp(b, KB_UGT, t->n, x), minI(b, kbSub(b, t->n, x), kbI32(b, 64)),
                        kbI32(b, 0));
  for (uint32_t pass = 0; pass * 128u < sp->count; ++pass) { /* rows wt, wt + 128 (T = 192) */
    KbValue row = kbAddI(b, c->wt, sp->first + 128 * pass);
    KbValue cRow = kbAdd(b, t->cRow0, row);
    kbIf(b, kbAnd(b, kbAnd(b, kbCmp(b, KB_ULT, lo, hi), kbCmpI(b, KB_ULT, row, sp->first + sp->count)),
                  kbCmp(b, KB_ULT, cRow, t->m)));
    {
      KbVar lc = kbVar(b, b->i32, lo);
      kbWhile(b);
      kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, lc), hi));
      {
        KbValue l = kbGet(b, lc);
        KbValue src = stagedElement(k, sp, row, l);
        KbValue v = kbLoad(b, eb == 2 ? b->i16 : b->i32, genSharedPtr(g, src), eb);
        kbStore(b, v, cElement(k, t, cRow, x, l), eb);
        kbSet(b, lc, kbAddI(b, l, 1));
      }
      kbEndWhile(b);
    }
    kbEndIf(b);
  }
}

/* The contiguous form: the pass's rows from the last whole 16-row box inside the expert to
 * its last row (under 16; the TMA took the boxes before them), columns x .. min(nMap, x +
 * 64) in 16-byte chunks from staging (storeTail takes nMap .. N), one thread per row and
 * chunk. */
static void storeExpertEdge(Sm90Kernel *k, GenTile *t, const StagedPass *sp) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const Sm90Consumer *c = &k->c;
  const uint32_t eb = g->cfg->cElemBytes, chunks = 64u * eb / 16u, epc = 16u / eb;
  KbValue rel = kbSub(b, t->m, t->cRow0); /* the expert's rows from the tile's first */
  const uint32_t lim = sp->first + sp->count;
  KbValue end = minI(b, rel, kbI32(b, lim));
  KbValue boxed = kbSelect(b, kbCmpI(b, KB_UGE, rel, lim), kbI32(b, lim), kbAnd(b, rel, kbI32(b, ~15)));
  boxed = kbSelect(b, kbCmpI(b, KB_ULT, boxed, sp->first), kbI32(b, sp->first), boxed);
  for (uint32_t s = 0; s * 128u < 15u * chunks; ++s) {
    KbValue item = kbAddI(b, c->wt, 128 * s);
    KbValue row = kbAdd(b, boxed, kbUDiv(b, item, kbI32(b, chunks)));
    KbValue col = kbAdd(b, sp->x, kbMulI(b, kbURem(b, item, kbI32(b, chunks)), epc));
    kbIf(b, kbAnd(b, kbCmp(b, KB_ULT, row, end), kbCmp(b, KB_ULT, col, sp->nMap)));
    KbValue v = kbLoad(b, kbVecType(b, b->i32, 4), genSharedPtr(g, stagedElement(k, sp, row, kbSub(b, col, sp->x))), 16);
    kbStore(b, v, cElement(k, t, kbAdd(b, t->cRow0, row), col, (MlirValue){NULL}), 16);
    kbEndIf(b);
  }
}

/* f16 / bf16: the accumulator through stmatrix.x4.trans: matrix m (lane group 8 m .. 8 m +
 * 7) is token block 2 j2 + m / 2, weight half m % 2 of the warp's 16 rows; lane 8 m + r
 * gives the address of stored row r (a token): chunk (2 warp + m % 2) ^ r of its 128-byte
 * staging row. */
static void writeHalves(Sm90Kernel *k, KbValue staging, uint32_t n, KbValue *acc, KbValue alpha) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const Sm90Consumer *c = &k->c;
  KbValue m = kbLShr(b, g->lane, kbI32(b, 3));
  KbValue r = kbAnd(b, g->lane, kbI32(b, 7));
  KbValue token = kbAdd(b, kbMulI(b, kbLShr(b, m, kbI32(b, 1)), 8), r);
  KbValue col = kbAdd(b, kbMulI(b, c->warpInWg, 2), kbAnd(b, m, kbI32(b, 1)));
  KbValue laneAddr = kbAdd(b, kbAdd(b, staging, kbMulI(b, token, 128)),
                           kbMulI(b, kbXor(b, col, r), 16));
  for (uint32_t j2 = 0; j2 < n / 16; ++j2) {
    KbValue regs[4];
    for (int i = 0; i < 4; ++i) regs[i] = packPair(k, acc[8 * j2 + 2 * i], acc[8 * j2 + 2 * i + 1], alpha);
    nvStMatrixX4Trans(b, genSharedPtr(g, kbAddI(b, laneAddr, 2048 * j2)), regs);
  }
}

/* f32: this thread's elements of the pass's tokens (weight rows r0 = 16 warp + lane / 4
 * and r0 + 8, tokens 8 j + 2 (lane % 4) + {0, 1}), one 4-byte store each: for a given j
 * the four addresses are fixed per thread plus 1024 (j - first / 8) (conflict-free: the
 * warp's lanes hit 8 chunks x 4 words). */
static void writeSingles(Sm90Kernel *k, const StagedPass *sp, KbValue *acc, KbValue alpha) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const Sm90Consumer *c = &k->c;
  KbValue box = kbMulI(b, kbLShr(b, c->warpInWg, kbI32(b, 1)), sp->rows * 128);
  KbValue base[2][2]; /* [h][r]: weight row r0 + 8 h, token 2 (lane % 4) + r of a block */
  for (int h = 0; h < 2; ++h) {
    KbValue w = kbAnd(b, kbAddI(b, kbSub(b, c->aRow0, kbMulI(b, c->wg, 64)), 8 * h), kbI32(b, 31));
    for (int r = 0; r < 2; ++r) {
      KbValue tok = kbAddI(b, kbMulI(b, c->aT0, 2), r);
      KbValue chunk = kbXor(b, kbLShr(b, w, kbI32(b, 2)), tok); /* tok < 8 */
      base[h][r] = kbAdd(b, kbAdd(b, kbAdd(b, sp->staging, box), kbMulI(b, tok, 128)),
                         kbAdd(b, kbMulI(b, chunk, 16), kbMulI(b, kbAnd(b, w, kbI32(b, 3)), 4)));
    }
  }
  for (uint32_t j = sp->first / 8; j < (sp->first + sp->count) / 8; ++j)
    for (int h = 0; h < 2; ++h)
      for (int r = 0; r < 2; ++r)
        kbStore(b, cValue(b, acc[4 * j + 2 * h + r], alpha, false),
                genSharedPtr(g, kbAddI(b, base[h][r], 1024 * (j - sp->first / 8))), 4);
}

/* The warpgroup's barrier, after thread 0 waited until its previous TMA stores have read
 * the staging buffer (prefetching the C map first when `map` is given). */
static void stagingFree(Sm90Kernel *k, KbValue wgBarrier, KbValue map) {
  KbBuilder *b = k->g.b;
  kbIf(b, storeThread(k));
  if (!mlirValueIsNull(map)) nvPrefetchTensormap(b, map);
  nvBulkWaitGroupRead(b, 0);
  kbEndIf(b);
  nvWarpSync(b);
  nvNamedBarrierAt(b, wgBarrier, 128);
}

void sm90Epilogue(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue *acc) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  const Sm90Consumer *c = &k->c;
  const bool contiguous = cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  KbValue alpha = loadAlpha(b, t);
  KbValue wgBarrier = kbAddI(b, c->wg, SM90_BAR_EPILOGUE0); /* this warpgroup's alone */
  KbValue staging = genSmemAddr(g, cfg->stagingOffset, cfg->stagingBytes, c->wg);
  KbValue map = genTileTensorMap(g, t, MLIR_NVFP4_TENSOR_C);
  stagingFree(k, wgBarrier, map);
  const uint32_t rows = cfg->tileN / boxColumns(cfg);
  StagedPass sp = {staging, {NULL}, {NULL}, rows, 0, 0};
  for (uint32_t first = 0; first < n; first += rows) {
    sp.first = first;
    sp.count = n - first < rows ? n - first : rows;
    if (first) stagingFree(k, wgBarrier, (MlirValue){NULL}); /* the previous pass's stores */
    if (cfg->cElemBytes == 2) writeHalves(k, staging, n, acc, alpha);
    else writeSingles(k, &sp, acc, alpha);
    nvFenceProxyAsyncShared(b);
    nvWarpSync(b);
    nvNamedBarrierAt(b, wgBarrier, 128);
    if (!first) {
      sp.x = kbAdd(b, t->cCol0, kbMulI(b, c->wg, MLIR_NVFP4_STORE_COLS)); /* first column */
      sp.nMap = kbAnd(b, t->n, kbI32(b, -(int64_t)(16u / cfg->cElemBytes)));
    }
    issueBoxes(k, t, &sp, map);
    storeTail(k, t, &sp);
    if (contiguous) storeExpertEdge(k, t, &sp);
  }
}

/* ---- stream-K: partial sums of a split tile ---------------------------------------------- */

#define SK_MAX_ACC 96 /* accumulator registers of a consumer thread at T = 192 */

/* A warpgroup's partial sums in a slot (../Generator/StreamK.h): float4 j of thread wt at
 * 16 (128 j + wt) after the words (coalesced), skSlotBytes per warpgroup. */
static KbValue skPartials(Sm90Kernel *k, KbValue slot) {
  KbBuilder *b = k->g.b;
  const MlirNvfp4KernelConfig *cfg = k->g.cfg;
  KbValue off = kbAdd(b, kbMulI(b, k->c.wg, cfg->skSlotBytes), kbMulI(b, k->c.wt, 16));
  return kbAdd(b, slot, kbZExt(b, kbAddI(b, off, cfg->skFlagBytes), b->i64));
}

typedef struct SkSums {
  Sm90Kernel *k;
  uint32_t nacc;
  KbValue *acc;  /* this share's sums (published) */
  KbVar *accVar; /* the running sums of the finishing CTA */
} SkSums;

static void skPublish(void *ctx, KbValue slot) {
  SkSums *s = ctx;
  KbBuilder *b = s->k->g.b;
  MlirType v4 = kbVecType(b, b->f32, 4);
  KbValue part = skPartials(s->k, slot);
  for (uint32_t j = 0; j < s->nacc / 4; ++j) {
    KbValue v = kbUndef(b, v4);
    for (uint32_t e = 0; e < 4; ++e) v = kbInsert(b, v, s->acc[4 * j + e], kbI32(b, e));
    kbStore(b, v, genGlobalPtr(b, kbAdd(b, part, kbI64(b, 2048 * j))), 16);
  }
}

static void skAdd(void *ctx, KbValue slot) {
  SkSums *s = ctx;
  KbBuilder *b = s->k->g.b;
  MlirType v4 = kbVecType(b, b->f32, 4);
  KbValue part = skPartials(s->k, slot);
  for (uint32_t j = 0; j < s->nacc / 4; ++j) {
    /* a float4 at a time: the register fence (side effects, like the volatile loads)
     * keeps the compiler from loading all of them before the adds (the consumers'
     * registers hold the accumulator) */
    KbValue v = genVolatileLoad(b, v4, kbAdd(b, part, kbI64(b, 2048 * j)), 16);
    KbValue sum[4];
    for (uint32_t e = 0; e < 4; ++e)
      sum[e] = kbFAdd(b, kbGet(b, s->accVar[4 * j + e]), kbExtract(b, v, kbI32(b, e)));
    nvRegisterFenceValues(b, sum, 4);
    for (uint32_t e = 0; e < 4; ++e) kbSet(b, s->accVar[4 * j + e], sum[e]);
  }
}

/* A split tile's shares are summed by whichever of its CTAs completes it last, one
 * consumer warpgroup at a time (its own counter, stage end and partial sums), by the
 * protocol of ../Generator/StreamK.h. Every CTA runs the epilogue, one that does not
 * complete the tile with no rows to store: ptxas cannot tell that the bar.red result is
 * the same in every thread, and the epilogue under that branch spilled (swap_n128_m192_sk:
 * 76 bytes of spill stores). */
void sm90StreamKEpilogue(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue *acc) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const uint32_t nacc = n / 2 <= SK_MAX_ACC ? n / 2 : SK_MAX_ACC;
  GenSkShare sh = {.threads = 128, .group = k->c.wg};
  sh.barrierId = kbAddI(b, k->c.wg, SM90_BAR_EPILOGUE0);
  sh.cta = nvSreg(b, "ctaid.x");
  sh.leader = kbCmpI(b, KB_EQ, k->c.wt, 0);
  sh.isHead = kbCmpI(b, KB_EQ, t->kBegin, 0);
  sh.mine = kbSub(b, t->kEnd, t->kBegin);
  KbVar accVar[SK_MAX_ACC];
  for (uint32_t i = 0; i < nacc; ++i) accVar[i] = kbVar(b, b->f32, acc[i]);
  sh.whole = kbCmp(b, KB_EQ, sh.mine, t->kIters);
  sh.counter = genSkCounter(g, t, &sh);
  KbVar last = kbVar(b, b->i1, sh.whole); /* this CTA stores the tile */
  SkSums sums = {k, nacc, acc, accVar};
  genSkDecide(g, t, &sh, last, skPublish, &sums);
  KbValue lastV = kbGet(b, last);
  kbIf(b, lastV);
  genSkReset(g, &sh);
  genSkWalk(g, t, &sh, skAdd, NULL, &sums);
  kbEndIf(b);
  KbValue total[SK_MAX_ACC];
  for (uint32_t i = 0; i < nacc; ++i) total[i] = kbGet(b, accVar[i]);
  GenTile stored = *t;
  stored.m = kbSelect(b, lastV, t->m, kbI32(b, 0));
  sm90Epilogue(k, &stored, n, total);
}

void sm90EpilogueFinish(Sm90Kernel *k) {
  kbIf(k->g.b, storeThread(k));
  nvBulkWaitGroup(k->g.b, 0);
  kbEndIf(k->g.b);
}
