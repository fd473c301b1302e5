/* Epilogue.c — the sm_100a epilogue emitters (warps 0-3; warp w owns TMEM lanes
 * 32w..32w+31, the tile's M-role rows 32w..): wait accFull[b], tcgen05.ld the accumulator,
 * scale it by the group's alpha (alpha variants), convert it to C's element type (f16,
 * bf16 or f32), write C, and release the accumulator (arrive accEmpty[b]) as soon as its
 * last tcgen05.ld has completed.
 *
 *   direct store (AB)  32 columns at a time: one tcgen05.ld.32x32b.x32, wait::ld, 16-byte
 *                      global stores predicated on the row and ragged N;
 *   TMA store (AB)     64 C columns at a time: two tcgen05.ld.x32 before one wait::ld;
 *                      each thread writes its row (64 elements) into SWIZZLE_128B staging
 *                      boxes of 128 rows x 128 B (1 box of f16/bf16, 2 of f32); one
 *                      thread stores the boxes with cp.async.bulk.tensor (the C map clips
 *                      ragged rows and columns);
 *   TMA store (SWAP_AB) the accumulator is C transposed (lane = column of C): 64 C rows at
 *                      a time; each thread scatters its column into the 64-row boxes that
 *                      span the tile's 128 C columns (2 boxes of f16/bf16, 4 of f32).
 * Staging buffers alternate; before refilling one, the storing thread waits until the
 * store that last read it has finished reading (cp.async.bulk.wait_group.read 1), then a
 * named barrier over the 128 epilogue threads publishes that.
 *
 * Ragged N: a TMA store writes whole 16-byte chunks of a row (seen on the H200: with N =
 * 223 it wrote column 223 too), so the C map covers the columns up to the last whole chunk
 * only (KernelABI.h) and the epilogue stores the remaining (< one chunk) columns itself
 * with predicated element stores; boxes that start past them are not issued.
 *
 * The stream-K schedule (TMA stores): a CTA whose share of a split tile is not the last
 * one in publishes it as fp32 partial sums instead of storing C; the one that completes
 * the tile adds the others' to each chunk of accumulator columns it loads (the section
 * "stream-K" below, ../Generator/StreamK.h).
 *
 * The contiguous form shares one C map between the experts: a box must not cross into the
 * next expert's rows. A (sub-)tile whose C rows all belong to its expert goes through the
 * staging boxes; one that reaches past the expert's last row is stored directly from the
 * registers, every element predicated on its row and column (the decision is the same for
 * the 128 epilogue threads, so the named barriers stay matched).
 */
#include "Sm100Kernel.h"

#include "../Generator/StreamK.h"
#include "../Nvvm.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#define EPI_THREADS (32u * MLIR_NVFP4_NUM_EPILOGUE_WARPS)
#define EPI_BARRIER_ID 1u /* named barrier of the epilogue warps (0 is bar.sync 0) */

typedef Sm100EpilogueState EpilogueState;

static bool contiguous(GenKernel *g) { return g->cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS; }

/* The type C's elements are stored as (bf16 values travel as their i16 bits: hosts
 * without bf16 arithmetic then never see a bf16 vector) and elements per 16-byte chunk. */
static MlirType outType(GenKernel *g) {
  switch (g->cfg->spec.output) {
  case MLIR_NVFP4_OUTPUT_BF16: return g->b->i16;
  case MLIR_NVFP4_OUTPUT_F32: return g->b->f32;
  default: return g->b->f16;
  }
}
static uint32_t chunkElems(GenKernel *g) { return 16u / g->cfg->cElemBytes; }

/* Accumulator element e of `vals`, times alpha, rounded to C's element type. */
static KbValue outElem(GenKernel *g, EpilogueState *st, KbValue vals, uint32_t e) {
  KbBuilder *b = g->b;
  KbValue f = kbBitcast(b, kbExtract(b, vals, kbI32(b, e)), b->f32);
  if (!mlirValueIsNull(st->alpha)) f = kbFMul(b, f, st->alpha);
  switch (g->cfg->spec.output) {
  case MLIR_NVFP4_OUTPUT_F32: return f;
  case MLIR_NVFP4_OUTPUT_BF16: return kbBitcast(b, kbFPTrunc(b, f, b->bf16), b->i16);
  default: return kbFPTrunc(b, f, b->f16);
  }
}

/* One 16-byte chunk: the C elements of accumulator columns col .. col + chunkElems - 1 of
 * the 32-column register vectors `vals` (col a multiple of the chunk). */
static KbValue packChunk(GenKernel *g, EpilogueState *st, const KbValue *vals, uint32_t col) {
  KbBuilder *b = g->b;
  int64_t n = chunkElems(g);
  KbValue v = kbUndef(b, mlirVectorTypeGet(1, &n, outType(g)));
  for (uint32_t e = 0; e < (uint32_t)n; ++e)
    v = kbInsert(b, v, outElem(g, st, vals[(col + e) / 32], (col + e) % 32), kbI32(b, e));
  return v;
}

/* The tile's alpha, read once per tile (every epilogue thread reads the same word). */
void sm100EpiLoadAlpha(GenKernel *g, EpilogueState *st, GenTile *t) {
  KbBuilder *b = g->b;
  MlirType global = mlirLLVMPointerTypeGet(b->ctx, 1); /* ld.global: device data */
  st->alpha = mlirValueIsNull(t->alphaPtr)
                  ? (MlirValue){NULL}
                  : kbLoad(b, b->f32, kbIntToPtr(b, t->alphaPtr, global), 4);
}

/* Waits for the tile's accumulator; returns its TMEM address for this warp's lanes. */
KbValue sm100EpiAcquire(GenKernel *g, EpilogueState *st) {
  KbBuilder *b = g->b;
  genPipeConsumerWait(g, &st->acc);
  nvTcFenceAfter(b);
  nvWarpSync(b); /* tcgen05.ld is .sync.aligned: reconverge after the per-thread spin */
  KbValue lane = kbShl(b, kbMulI(b, g->warp, 32), kbI32(b, 16)); /* warp w: lanes 32w.. */
  KbValue col = kbAddI(b, kbMulI(b, genPipeIndex(b, &st->acc), g->cfg->tileN), g->cfg->accCol0);
  return kbAdd(b, kbAdd(b, st->tmemBase, lane), col);
}

/* The accumulator's last tcgen05.ld has completed (wait::ld): hand it back to the MMA —
 * for a CTA pair, to the leader's accEmpty (the peer arrives remotely). */
void sm100EpiRelease(GenKernel *g, EpilogueState *st) {
  KbBuilder *b = g->b;
  nvTcFenceBefore(b);
  if (g->cfg->spec.ctaGroup > 1)
    nvMbarArriveCluster(b, nvMapa(b, genPipeEmptyBar(g, &st->acc), kbI32(b, 0)));
  else
    nvMbarArrive(b, genPipeEmptyBar(g, &st->acc));
}

/* Loads `n` x 32 accumulator columns starting at `col` (n tcgen05.ld before one
 * wait::ld); the results pass through a register fence tied to the wait. */
void sm100EpiLoadColumns(KbBuilder *b, KbValue addr, uint32_t n, KbValue *out) {
  nvWarpSync(b);
  for (uint32_t i = 0; i < n; ++i) out[i] = nvTcLd32x32b(b, kbAddI(b, addr, 32 * i), 32);
  nvTcWaitLd(b);
  for (uint32_t i = 0; i < n; ++i) out[i] = nvRegisterFence(b, out[i], 32);
}

static KbValue cAddress(GenKernel *g, GenTile *t, KbValue row, KbValue col) {
  return genCAddress(g, t, row, col);
}

/* N rounded down to whole 16-byte chunks: the columns the C map covers. */
static KbValue mapColumns(GenKernel *g, GenTile *t) {
  return kbAnd(g->b, t->n, kbI32(g->b, -(int64_t)chunkElems(g)));
}

/* ---- direct stores (AB) ---------------------------------------------------------------- */

/* Converts 32 fp32 accumulators of one row and stores columns col0..col0+31 of C,
 * predicated on the row and on ragged N (16-byte vector stores when the chunk is whole). */
static void storeChunk(GenKernel *g, EpilogueState *st, GenTile *t, KbValue row, KbValue col0,
                       KbValue vals) {
  KbBuilder *b = g->b;
  const uint32_t epc = chunkElems(g), eb = g->cfg->cElemBytes;
  KbValue h[32];
  for (uint32_t e = 0; e < 32; ++e) h[e] = outElem(g, st, vals, e);
  KbValue inRange = kbAnd(b, kbCmp(b, KB_ULT, row, t->m), kbCmp(b, KB_ULT, col0, t->n));
  kbIf(b, inRange);
  {
    KbValue addr = kbPtrToInt(b, cAddress(g, t, row, col0), b->i64);
    MlirType gptr = mlirLLVMPointerTypeGet(b->ctx, 1);
    int64_t n = epc;
    MlirType vec = mlirVectorTypeGet(1, &n, outType(g));
    kbIf(b, kbCmp(b, KB_ULE, kbAddI(b, col0, 32), t->n));
    for (uint32_t q = 0; q < 32 / epc; ++q) {
      KbValue v = kbUndef(b, vec);
      for (uint32_t e = 0; e < epc; ++e) v = kbInsert(b, v, h[epc * q + e], kbI32(b, e));
      kbStore(b, v, kbIntToPtr(b, kbAddI(b, addr, 16 * q), gptr), 16);
    }
    kbElse(b);
    for (uint32_t e = 0; e < 32; ++e) {
      kbIf(b, kbCmp(b, KB_ULT, kbAddI(b, col0, e), t->n));
      kbStore(b, h[e], kbIntToPtr(b, kbAddI(b, addr, eb * e), gptr), eb);
      kbEndIf(b);
    }
    kbEndIf(b);
  }
  kbEndIf(b);
}

static void directStoreTile(GenKernel *g, GenTile *t, void *state) {
  KbBuilder *b = g->b;
  EpilogueState *st = state;
  sm100EpiLoadAlpha(g, st, t);
  KbValue acc = sm100EpiAcquire(g, st);
  KbValue row = kbAdd(b, t->cRow0, kbAdd(b, kbMulI(b, g->warp, 32), g->lane));
  for (uint32_t c = 0; c < g->cfg->tileN / 32; ++c) {
    KbValue vals;
    sm100EpiLoadColumns(b, kbAddI(b, acc, 32 * c), 1, &vals);
    if (c + 1 == g->cfg->tileN / 32) sm100EpiRelease(g, st);
    storeChunk(g, st, t, row, kbAddI(b, t->cCol0, 32 * c), vals);
  }
  genRingAdvance(b, &st->acc.pos);
}

/* ---- stream-K: the partial sums of a split tile ---------------------------------------------
 *
 * With the stream-K schedule a tile's stages may be split between consecutive CTAs
 * (../Generator/StreamK.h: workspace, protocol). Once per tile, after the accumulator is
 * complete and before the column loop, the epilogue warps decide whether this CTA publishes
 * its share or stores C. Publishing, they load every accumulator column the tile uses (64
 * at a time) and store them as fp32 partial sums — float4 j (accumulator columns 4j ..
 * 4j + 3) of epilogue thread r at 16 (128 j + r) after the slot's words, so that a warp's
 * store covers 512 contiguous bytes. The CTA whose atomic add completes the tile (or the
 * head that finds every other share in) stores it: the normal column loop sums, after each
 * load of accumulator columns (its own share), every share of those columns in stage order
 * from the head's (its own in its place: the same order whichever CTA finishes), then
 * converts and stores. The accumulator goes
 * back to the MMA once the decision is made (a CTA that does not store) or after the
 * column loop's last load (one that does). */

typedef struct SkTile {
  GenKernel *g;
  EpilogueState *st;
  GenTile *t;
  KbValue acc;        /* the accumulator's TMEM address for this warp's lanes */
  GenSkShare share;
  /* the 32 columns being summed: the first (i32), this CTA's own share of them (32 fp32
   * bit patterns, from Tensor Memory) and the running sums */
  KbValue col;
  KbValue own;
  KbVar sum;
} SkTile;

/* i64 address of this thread's float4 of accumulator columns col .. col + 3 (i32, a
 * multiple of 4) in `slot`. */
static KbValue skPartial(GenKernel *g, KbValue slot, KbValue col) {
  KbBuilder *b = g->b;
  KbValue j = kbLShr(b, col, kbI32(b, 2));
  KbValue off = kbMulI(b, kbAdd(b, kbMulI(b, j, EPI_THREADS), g->tid), 16);
  return kbAdd(b, slot, kbZExt(b, kbAddI(b, off, g->cfg->skFlagBytes), b->i64));
}

/* The accumulator columns of the tile: AB all tile_n; swap-AB ceil(tile_n_g / 64) x 64
 * (the columns its MMAs wrote; the epilogue reads the same). */
static KbValue skSubTiles(GenKernel *g, GenTile *t) {
  KbBuilder *b = g->b;
  if (g->cfg->spec.orientation == MLIR_NVFP4_ORIENTATION_AB)
    return kbI32(b, g->cfg->tileN / MLIR_NVFP4_STORE_COLS);
  return kbUDiv(b, kbAddI(b, t->tileN, MLIR_NVFP4_STORE_COLS - 1), kbI32(b, MLIR_NVFP4_STORE_COLS));
}

static void skPublish(void *ctx, KbValue slot) {
  SkTile *sk = ctx;
  GenKernel *g = sk->g;
  KbBuilder *b = g->b;
  KbValue subTiles = skSubTiles(g, sk->t);
  KbVar s = kbVar(b, b->i32, kbI32(b, 0));
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, s), subTiles));
  {
    KbValue sv = kbGet(b, s);
    KbValue col0 = kbMulI(b, sv, MLIR_NVFP4_STORE_COLS);
    KbValue vals[2];
    sm100EpiLoadColumns(b, kbAdd(b, sk->acc, col0), 2, vals);
    for (uint32_t q = 0; q < MLIR_NVFP4_STORE_COLS / 4; ++q) {
      KbValue v = kbUndef(b, kbVecType(b, b->i32, 4));
      for (uint32_t e = 0; e < 4; ++e)
        v = kbInsert(b, v, kbExtract(b, vals[q / 8], kbI32(b, (4 * q + e) % 32)), kbI32(b, e));
      kbStore(b, v, genGlobalPtr(b, skPartial(g, slot, kbAddI(b, col0, 4 * q))), 16);
    }
    kbSet(b, s, kbAddI(b, sv, 1));
  }
  kbEndWhile(b);
}

static void skAdd(void *ctx, KbValue slot) {
  SkTile *sk = ctx;
  GenKernel *g = sk->g;
  KbBuilder *b = g->b;
  KbValue v = kbGet(b, sk->sum);
  for (uint32_t q = 0; q < 8; ++q) {
    KbValue p = genVolatileLoad(b, kbVecType(b, b->f32, 4), skPartial(g, slot, kbAddI(b, sk->col, 4 * q)), 16);
    for (uint32_t e = 0; e < 4; ++e) {
      KbValue at = kbI32(b, 4 * q + e);
      KbValue x = kbBitcast(b, kbExtract(b, v, at), b->f32);
      x = kbFAdd(b, x, kbExtract(b, p, kbI32(b, e)));
      v = kbInsert(b, v, kbBitcast(b, x, b->i32), at);
    }
  }
  kbSet(b, sk->sum, v);
}

static void skAddOwn(void *ctx) {
  SkTile *sk = ctx;
  KbBuilder *b = sk->g->b;
  KbValue v = kbGet(b, sk->sum);
  for (uint32_t e = 0; e < 32; ++e) {
    KbValue at = kbI32(b, e);
    KbValue x = kbFAdd(b, kbBitcast(b, kbExtract(b, v, at), b->f32),
                       kbBitcast(b, kbExtract(b, sk->own, at), b->f32));
    v = kbInsert(b, v, kbBitcast(b, x, b->i32), at);
  }
  kbSet(b, sk->sum, v);
}

/* Once per tile, before the column loop: with the stream-K schedule, publishes a share of a
 * split tile or decides to store it, and opens the region of the CTA that stores (closed
 * by skEnd); a no-op otherwise. */
static void skBegin(GenKernel *g, EpilogueState *st, GenTile *t, KbValue acc, SkTile *sk) {
  KbBuilder *b = g->b;
  *sk = (SkTile){g, st, t, acc};
  if (!g->cfg->streamK) return;
  GenSkShare *sh = &sk->share;
  sh->barrierId = kbI32(b, EPI_BARRIER_ID);
  sh->threads = EPI_THREADS;
  sh->group = kbI32(b, 0);
  sh->cta = nvSreg(b, "ctaid.x");
  sh->leader = kbCmpI(b, KB_EQ, g->tid, 0);
  sh->isHead = kbCmpI(b, KB_EQ, t->kBegin, 0);
  sh->mine = kbSub(b, t->kEnd, t->kBegin);
  sh->whole = kbCmp(b, KB_EQ, sh->mine, t->kIters);
  sh->counter = genSkCounter(g, t, sh);
  KbVar last = kbVar(b, b->i1, sh->whole); /* this CTA stores the tile */
  genSkDecide(g, t, sh, last, skPublish, sk);
  /* A CTA that published its share may still complete the tile (its add was the last):
   * the accumulator is released only by a CTA that does not store the tile, here, or by
   * the column loop of the one that does, which reads its own share from it again. */
  KbValue lastV = kbGet(b, last);
  kbIf(b, kbXor(b, lastV, kbBool(b, true)));
  sm100EpiRelease(g, st);
  kbEndIf(b);
  kbIf(b, lastV);
  genSkReset(g, sh);
}

/* The finishing CTA: replaces vals (n vectors of 32 fp32 bit patterns: its own share of
 * accumulator columns col .. col + 32 n - 1, col i32) by the sums of every share of those
 * columns, added in stage order from the head's (genSkWalk with addOwn: the same order
 * whichever CTA finishes, so the same C in every launch). */
static void skAddShares(SkTile *sk, KbValue col, uint32_t n, KbValue *vals) {
  GenKernel *g = sk->g;
  KbBuilder *b = g->b;
  if (!g->cfg->streamK) return;
  /* one walk per 32 columns: the running sums of one vector live across the walk */
  for (uint32_t i = 0; i < n; ++i) {
    sk->col = i ? kbAddI(b, col, 32 * i) : col;
    sk->own = vals[i];
    KbValue negZero = kbUndef(b, mlirValueGetType(vals[i]));
    for (uint32_t e = 0; e < 32; ++e)
      negZero = kbInsert(b, negZero, kbI32(b, (int32_t)0x80000000u), kbI32(b, e));
    sk->sum = kbVar(b, mlirValueGetType(vals[i]), negZero);
    genSkWalk(g, sk->t, &sk->share, skAdd, skAddOwn, sk);
    vals[i] = kbGet(b, sk->sum);
  }
}

static void skEnd(SkTile *sk) {
  if (sk->g->cfg->streamK) kbEndIf(sk->g->b);
}

/* ---- TMA stores -------------------------------------------------------------------------- */

/* The thread that issues the TMA stores and waits for them (epilogue thread 0). */
static KbValue storeThread(GenKernel *g) { return kbCmpI(g->b, KB_EQ, g->tid, 0); }

/* Makes the next staging buffer writable: its previous store has finished reading it. */
static KbValue beginStaging(GenKernel *g, EpilogueState *st) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  kbIf(b, storeThread(g));
  nvBulkWaitGroupRead(b, cfg->stagingBuffers - 1);
  kbEndIf(b);
  nvWarpSync(b); /* bar.sync is .aligned: reconverge warp 0 after thread 0's wait */
  nvNamedBarrier(b, EPI_BARRIER_ID, EPI_THREADS);
  return genSmemAddr(g, cfg->stagingOffset, cfg->stagingBytes, kbGet(b, st->staging.index));
}

/* Publishes the staging buffer to the async proxy and stores its boxes at (x0 + box
 * columns * i, y) of the C map (y: a row of the group's C; the contiguous form adds the
 * expert's first row). */
static void endStaging(GenKernel *g, EpilogueState *st, GenTile *t, KbValue buf, KbValue x0,
                       KbValue y) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  nvFenceProxyAsyncShared(b);
  nvWarpSync(b);
  nvNamedBarrier(b, EPI_BARRIER_ID, EPI_THREADS);
  kbIf(b, storeThread(g));
  KbValue map = genTileTensorMap(g, t, MLIR_NVFP4_TENSOR_C);
  KbValue n8 = mapColumns(g, t);
  KbValue mapY = genAddBase(b, t->cRowBase, y);
  uint32_t boxBytes = cfg->stagingBytes / cfg->stagingBoxes;
  for (uint32_t i = 0; i < cfg->stagingBoxes; ++i) {
    KbValue x = kbAddI(b, x0, cfg->storeBoxCols * i);
    kbIf(b, kbCmp(b, KB_ULT, x, n8)); /* else wholly in the ragged tail or past N */
    nvTmaStore2d(b, map, genSharedPtr(g, kbAddI(b, buf, boxBytes * i)), x, mapY, "c");
    kbEndIf(b);
  }
  nvBulkCommitGroup(b);
  kbEndIf(b);
  genRingAdvance(b, &st->staging);
}

/* Byte offset of 16-byte chunk `chunk` of row `row` in a SWIZZLE_128B box of 128-B rows:
 * chunk c of row r sits at chunk c ^ (r % 8). */
static KbValue swizzled(KbBuilder *b, KbValue row, KbValue chunk) {
  KbValue sw = kbXor(b, chunk, kbURem(b, row, kbI32(b, 8)));
  return kbAdd(b, kbMulI(b, row, 128), kbMulI(b, sw, 16));
}

/* The contiguous form: are C rows row0 .. row0 + rows - 1 of the group all its own? (The
 * pointer-array form's C maps clip at each group's M: always.) */
static KbValue staged(GenKernel *g, GenTile *t, KbValue row0, uint32_t rows) {
  return kbCmp(g->b, KB_ULE, kbAddI(g->b, row0, rows), t->m);
}

/* AB: the columns N8..N-1 (less than a chunk, inside chunk q of this sub-tile) of this
 * thread's row, stored directly: the chunk's values are selected by q at run time. */
static void storeTailAB(GenKernel *g, EpilogueState *st, GenTile *t, KbValue row, KbValue col0,
                        KbValue vals[2]) {
  KbBuilder *b = g->b;
  const uint32_t epc = chunkElems(g);
  KbValue n8 = mapColumns(g, t);
  KbValue inSubTile = kbAnd(b, kbCmp(b, KB_ULE, col0, n8),
                            kbCmp(b, KB_ULT, n8, kbAddI(b, col0, MLIR_NVFP4_STORE_COLS)));
  KbValue tail = kbAnd(b, kbAnd(b, inSubTile, kbCmp(b, KB_ULT, n8, t->n)),
                       kbCmp(b, KB_ULT, row, t->m));
  kbIf(b, tail);
  KbValue q = kbUDiv(b, kbSub(b, n8, col0), kbI32(b, epc));
  for (uint32_t e = 0; e + 1 < epc; ++e) {
    KbValue v = outElem(g, st, vals[0], e);
    for (uint32_t c = 1; c < MLIR_NVFP4_STORE_COLS / epc; ++c)
      v = kbSelect(b, kbCmpI(b, KB_EQ, q, c), outElem(g, st, vals[(epc * c + e) / 32], (epc * c + e) % 32), v);
    KbValue col = kbAddI(b, n8, e);
    kbIf(b, kbCmp(b, KB_ULT, col, t->n));
    kbStore(b, v, cAddress(g, t, row, col), g->cfg->cElemBytes);
    kbEndIf(b);
  }
  kbEndIf(b);
}

/* AB: lane = C row. Sub-tile s = C columns 64s..64s+63 = one 64-element row per thread. */
static void tmaStoreTileAB(GenKernel *g, GenTile *t, void *state) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  EpilogueState *st = state;
  sm100EpiLoadAlpha(g, st, t);
  KbValue acc = sm100EpiAcquire(g, st);
  SkTile sk;
  skBegin(g, st, t, acc, &sk);
  KbValue row = kbAdd(b, kbMulI(b, g->warp, 32), g->lane); /* row within the tile */
  KbValue map = genTileTensorMap(g, t, MLIR_NVFP4_TENSOR_C);
  nvPrefetchTensormap(b, map);
  const uint32_t subTiles = cfg->tileN / MLIR_NVFP4_STORE_COLS;
  const uint32_t epc = chunkElems(g), boxBytes = cfg->stagingBytes / cfg->stagingBoxes;
  for (uint32_t s = 0; s < subTiles; ++s) {
    KbValue vals[2];
    sm100EpiLoadColumns(b, kbAddI(b, acc, MLIR_NVFP4_STORE_COLS * s), 2, vals);
    if (s + 1 == subTiles) sm100EpiRelease(g, st);
    skAddShares(&sk, kbI32(b, MLIR_NVFP4_STORE_COLS * s), 2, vals);
    KbValue col0 = kbAddI(b, t->cCol0, MLIR_NVFP4_STORE_COLS * s);
    if (contiguous(g)) kbIf(b, staged(g, t, t->cRow0, MLIR_NVFP4_TILE_M));
    KbValue buf = beginStaging(g, st);
    for (uint32_t q = 0; q < MLIR_NVFP4_STORE_COLS / epc; ++q) {
      KbValue off = kbAddI(b, swizzled(b, row, kbI32(b, q % 8)), boxBytes * (q / 8));
      kbStore(b, packChunk(g, st, vals, epc * q), genSharedPtr(g, kbAdd(b, buf, off)), 16);
    }
    storeTailAB(g, st, t, kbAdd(b, t->cRow0, row), col0, vals);
    endStaging(g, st, t, buf, col0, t->cRow0);
    if (contiguous(g)) {
      kbElse(b); /* the tile reaches past its expert's rows: direct stores */
      for (uint32_t h = 0; h < 2; ++h)
        storeChunk(g, st, t, kbAdd(b, t->cRow0, row), kbAddI(b, col0, 32 * h), vals[h]);
      kbEndIf(b);
    }
  }
  skEnd(&sk);
  genRingAdvance(b, &st->acc.pos);
}

/* SWAP_AB, stored directly: this thread's C column cCol of the sub-tile's rows row0 ..
 * row0 + stagingRows - 1 (those below M), from the accumulator columns in vals. */
static void storeColumnSwap(GenKernel *g, EpilogueState *st, GenTile *t, const KbValue vals[2],
                            KbValue row0, KbValue cCol) {
  KbBuilder *b = g->b;
  for (uint32_t r = 0; r < g->cfg->stagingRows; ++r) {
    KbValue cRow = kbAddI(b, row0, r);
    kbIf(b, kbCmp(b, KB_ULT, cRow, t->m));
    kbStore(b, outElem(g, st, vals[r / 32], r % 32), cAddress(g, t, cRow, cCol),
            g->cfg->cElemBytes);
    kbEndIf(b);
  }
}

/* SWAP_AB: lane = C column (32w + lane of the tile's 128), accumulator column = C row.
 * Sub-tile s = C rows 64s..64s+63 (accumulator columns); each thread writes its column of
 * them into box (column / box columns), element (row, column % box columns). */
static void tmaStoreTileSwap(GenKernel *g, GenTile *t, void *state) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  EpilogueState *st = state;
  sm100EpiLoadAlpha(g, st, t);
  KbValue acc = sm100EpiAcquire(g, st);
  SkTile sk;
  skBegin(g, st, t, acc, &sk);
  const uint32_t epc = chunkElems(g), eb = cfg->cElemBytes;
  KbValue col = kbAdd(b, kbMulI(b, g->warp, 32), g->lane); /* column within the tile */
  KbValue box = kbUDiv(b, col, kbI32(b, cfg->storeBoxCols));
  KbValue colInBox = kbURem(b, col, kbI32(b, cfg->storeBoxCols));
  KbValue chunk = kbUDiv(b, colInBox, kbI32(b, epc));
  KbValue inChunk = kbMulI(b, kbURem(b, colInBox, kbI32(b, epc)), eb);
  const uint32_t boxBytes = cfg->stagingBytes / cfg->stagingBoxes;
  KbValue boxBase = kbAdd(b, kbMulI(b, box, boxBytes), inChunk);
  KbValue map = genTileTensorMap(g, t, MLIR_NVFP4_TENSOR_C);
  nvPrefetchTensormap(b, map);
  /* ceil(tileN / 64) sub-tiles: the last one may read accumulator columns past this
   * tile's N; they become C rows past M (the tile is its group's last), which the C map
   * clips (the contiguous form stores such a sub-tile directly). */
  KbValue subTiles = kbUDiv(b, kbAddI(b, t->tileN, cfg->stagingRows - 1),
                            kbI32(b, cfg->stagingRows));
  KbValue cCol = kbAdd(b, t->cCol0, col);
  KbVar s = kbVar(b, b->i32, kbI32(b, 0));
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, s), subTiles));
  {
    KbValue sv = kbGet(b, s);
    KbValue vals[2];
    sm100EpiLoadColumns(b, kbAdd(b, acc, kbMulI(b, sv, cfg->stagingRows)), cfg->stagingRows / 32, vals);
    kbIf(b, kbCmp(b, KB_EQ, kbAddI(b, sv, 1), subTiles));
    sm100EpiRelease(g, st);
    kbEndIf(b);
    skAddShares(&sk, kbMulI(b, sv, cfg->stagingRows), cfg->stagingRows / 32, vals);
    KbValue row0 = kbAdd(b, t->cRow0, kbMulI(b, sv, cfg->stagingRows));
    if (contiguous(g)) kbIf(b, staged(g, t, row0, cfg->stagingRows));
    KbValue staging = beginStaging(g, st);
    KbValue buf = kbAdd(b, staging, boxBase);
    for (uint32_t r = 0; r < cfg->stagingRows; ++r) {
      KbValue off = swizzled(b, kbI32(b, r), chunk);
      kbStore(b, outElem(g, st, vals[r / 32], r % 32), genSharedPtr(g, kbAdd(b, buf, off)), eb);
    }
    /* this thread's column in the ragged tail N8..N-1: stored directly */
    kbIf(b, kbAnd(b, kbCmp(b, KB_UGE, cCol, mapColumns(g, t)), kbCmp(b, KB_ULT, cCol, t->n)));
    storeColumnSwap(g, st, t, vals, row0, cCol);
    kbEndIf(b);
    endStaging(g, st, t, staging, t->cCol0, row0);
    if (contiguous(g)) {
      kbElse(b); /* the sub-tile reaches past its expert's rows: direct stores */
      kbIf(b, kbCmp(b, KB_ULT, cCol, t->n));
      storeColumnSwap(g, st, t, vals, row0, cCol);
      kbEndIf(b);
      kbEndIf(b);
    }
    kbSet(b, s, kbAddI(b, sv, 1));
  }
  kbEndWhile(b);
  skEnd(&sk);
  genRingAdvance(b, &st->acc.pos);
}

void sm100EpilogueLoop(Sm100Kernel *k) {
  GenKernel *g = &k->g;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  EpilogueState st = {k->tmemBase, genPipeNew(g->b, cfg->accBuffers, &cfg->accFull, &cfg->accEmpty),
                      genRingNew(g->b, cfg->stagingBuffers ? cfg->stagingBuffers : 1),
                      (MlirValue){NULL}};
  GenTileBody body = cfg->spec.swiglu ? sm100FusedTile
                     : cfg->spec.epilogue == MLIR_NVFP4_EPILOGUE_DIRECT_STORE ? directStoreTile
                     : cfg->spec.orientation == MLIR_NVFP4_ORIENTATION_AB ? tmaStoreTileAB
                                                                          : tmaStoreTileSwap;
  genForEachTile(g, body, &st);
}

void sm100EpilogueFinish(Sm100Kernel *k) {
  GenKernel *g = &k->g;
  if (g->cfg->spec.epilogue != MLIR_NVFP4_EPILOGUE_TMA_STORE) return;
  kbIf(g->b, storeThread(g));
  nvBulkWaitGroup(g->b, 0);
  kbEndIf(g->b);
}
