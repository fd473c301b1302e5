/* GroupedMatmulKernel.c — the body of the sm_100a grouped block-scaled NVFP4 kernel,
 * written with the C kernel builder. The algorithm (docs/kernel-sm100a.md):
 *
 *   persistent CTAs walk a flattened tile space over all groups (prefix sums, M fastest);
 *   warp 4 (one lane)  TMA producer: A, B, SFA, SFB of each 256-K stage -> full[s];
 *   warp 5 (one lane)  MMA issuer: tcgen05.cp scale factors to their TMEM slot,
 *                      4 x tcgen05.mma (K = 64), commit -> empty[s]; per tile commit ->
 *                      accFull[b]; warp 5 also allocates / frees Tensor Memory;
 *   warps 0-3          epilogue: wait accFull[b], tcgen05.ld, fp16, predicated stores,
 *                      arrive accEmpty[b].
 *
 * Barrier phases are continuous counters (never re-initialised per tile).
 */
#include "GroupedMatmulKernel.h"

#include "Nvvm.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/Descriptors.h"
#include "nvfp4-c/KernelABI.h"

/* Values every role needs. */
typedef struct Kernel {
  KbBuilder *b;
  const MlirNvfp4KernelConfig *cfg;
  KbValue params;   /* !llvm.ptr to the by-value parameter block */
  KbValue smem;     /* i32 shared address of the 1024-aligned dynamic smem base */
  KbValue tmemBase; /* i32 TMEM address returned by tcgen05.alloc */
  KbValue warp, lane;
} Kernel;

/* Per-tile values, computed identically by every role. */
typedef struct Tile {
  KbValue group, m, n, k, mBlk, m0, n0, kIters, kSteps, ldc, cPtr;
} Tile;

static KbValue sharedPtr(Kernel *kn, KbValue addr) {
  return kbIntToPtr(kn->b, addr, kn->b->ptrShared);
}

/* mbarrier i: full[s] = s, empty[s] = S + s, accFull[a] = 2S + a, accEmpty[a] = 2S + A + a,
 * sfFree[p] = 2S + 2A + p (only with a scale-factor ring smaller than the stage ring) */
static KbValue barrier(Kernel *kn, KbValue index) {
  KbBuilder *b = kn->b;
  KbValue off = kbAdd(b, kbMulI(b, index, 8), kbI32(b, kn->cfg->barrierOffset));
  return sharedPtr(kn, kbAdd(b, kn->smem, off));
}
static KbValue fullBar(Kernel *kn, KbValue s) { return barrier(kn, s); }
static KbValue emptyBar(Kernel *kn, KbValue s) {
  return barrier(kn, kbAddI(kn->b, s, kn->cfg->stages));
}
static KbValue accFullBar(Kernel *kn, KbValue a) {
  return barrier(kn, kbAddI(kn->b, a, 2 * kn->cfg->stages));
}
static KbValue accEmptyBar(Kernel *kn, KbValue a) {
  return barrier(kn, kbAddI(kn->b, a, 2 * kn->cfg->stages + kn->cfg->accBuffers));
}
static KbValue sfFreeBar(Kernel *kn, KbValue p) {
  return barrier(kn, kbAddI(kn->b, p, 2 * kn->cfg->stages + 2 * kn->cfg->accBuffers));
}

static KbValue paramU32(Kernel *kn, KbValue byteOffset) {
  return kbLoad(kn->b, kn->b->i32, kbGepDyn(kn->b, kn->params, byteOffset), 4);
}

/* A ring position (stage or accumulator buffer) with its phase bit. */
typedef struct Ring { KbVar index, phase; uint32_t size; } Ring;

static Ring ringNew(KbBuilder *b, uint32_t size) {
  Ring r = {kbVar(b, b->i32, kbI32(b, 0)), kbVar(b, b->i32, kbI32(b, 0)), size};
  return r;
}
static void ringAdvance(KbBuilder *b, Ring *r) {
  KbValue next = kbAddI(b, kbGet(b, r->index), 1);
  KbValue wrap = kbCmpI(b, KB_EQ, next, r->size);
  kbSet(b, r->index, kbSelect(b, wrap, kbI32(b, 0), next));
  KbValue ph = kbGet(b, r->phase);
  kbSet(b, r->phase, kbSelect(b, wrap, kbXor(b, ph, kbI32(b, 1)), ph));
}

/* Locates the group of `tile` (last group whose tile_start <= tile; empty groups share the
 * start of the next one and are skipped that way) and loads its record. */
static Tile tileInfo(Kernel *kn, KbValue tile, KbValue numGroups) {
  KbBuilder *b = kn->b;
  const MlirNvfp4KernelConfig *cfg = kn->cfg;
  uint32_t rec0 = nvfp4_abi_record_offset(cfg->numGroups, 0);
  KbVar g = kbVar(b, b->i32, kbI32(b, 0));
  KbVar i = kbVar(b, b->i32, kbI32(b, 1));
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, i), numGroups));
  {
    KbValue iv = kbGet(b, i);
    KbValue off = kbAddI(b, kbMulI(b, iv, NVFP4_ABI_GROUP_RECORD_BYTES),
                         rec0 + NVFP4_ABI_GRP_TILE_START);
    KbValue start = paramU32(kn, off);
    kbSet(b, g, kbSelect(b, kbCmp(b, KB_ULE, start, tile), iv, kbGet(b, g)));
    kbSet(b, i, kbAddI(b, iv, 1));
  }
  kbEndWhile(b);

  Tile t;
  t.group = kbGet(b, g);
  KbValue rec = kbAddI(b, kbMulI(b, t.group, NVFP4_ABI_GROUP_RECORD_BYTES), rec0);
  t.m = paramU32(kn, kbAddI(b, rec, NVFP4_ABI_GRP_M));
  t.n = paramU32(kn, kbAddI(b, rec, NVFP4_ABI_GRP_N));
  t.k = paramU32(kn, kbAddI(b, rec, NVFP4_ABI_GRP_K));
  KbValue start = paramU32(kn, kbAddI(b, rec, NVFP4_ABI_GRP_TILE_START));
  KbValue tilesM = paramU32(kn, kbAddI(b, rec, NVFP4_ABI_GRP_TILES_M));
  t.ldc = paramU32(kn, kbAddI(b, rec, NVFP4_ABI_GRP_LDC));
  t.cPtr = kbLoad(b, b->i64, kbGepDyn(b, kn->params, kbAddI(b, rec, NVFP4_ABI_GRP_C_PTR)), 8);
  KbValue local = kbSub(b, tile, start);
  t.mBlk = kbURem(b, local, tilesM);
  KbValue nBlk = kbUDiv(b, local, tilesM);
  t.m0 = kbMulI(b, t.mBlk, cfg->tileM);
  t.n0 = kbMulI(b, nBlk, cfg->tileN);
  t.kIters = kbLShr(b, kbAddI(b, t.k, cfg->tileK - 1), kbI32(b, 8));  /* ceil(K / 256) */
  t.kSteps = kbLShr(b, t.k, kbI32(b, 6));                               /* K / 64 */
  return t;
}

/* Pointer to tensor map `which` (NVFP4_ABI_TMAP_*) of `group` inside the parameter block. */
static KbValue tensorMap(Kernel *kn, KbValue group, uint32_t which) {
  KbBuilder *b = kn->b;
  KbValue off = kbAddI(b, kbMulI(b, group, NVFP4_ABI_GROUP_TMAPS_BYTES),
                       NVFP4_ABI_HEADER_BYTES + which);
  return kbGepDyn(b, kn->params, off);
}

static KbValue stageBase(Kernel *kn, KbValue stage) {
  return kbAdd(kn->b, kn->smem, kbMulI(kn->b, stage, kn->cfg->stageBytes));
}

/* Runs `body` for every tile of this CTA: tile = ctaid.x; tile < total; tile += nctaid.x */
typedef void (*TileBody)(Kernel *kn, Tile *t, void *state);
static void forEachTile(Kernel *kn, TileBody body, void *state) {
  KbBuilder *b = kn->b;
  KbValue total = paramU32(kn, kbI32(b, NVFP4_ABI_HDR_TOTAL_TILES));
  KbValue numGroups = paramU32(kn, kbI32(b, NVFP4_ABI_HDR_NUM_GROUPS));
  KbValue step = nvSreg(b, "nctaid.x");
  KbVar tile = kbVar(b, b->i32, nvSreg(b, "ctaid.x"));
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, tile), total));
  {
    Tile t = tileInfo(kn, kbGet(b, tile), numGroups);
    body(kn, &t, state);
    kbSet(b, tile, kbAdd(b, kbGet(b, tile), step));
  }
  kbEndWhile(b);
}

/* ---- warp 4: TMA producer ------------------------------------------------------------ */

static void producerTile(Kernel *kn, Tile *t, void *state) {
  KbBuilder *b = kn->b;
  const MlirNvfp4KernelConfig *cfg = kn->cfg;
  Ring *ring = state;
  KbValue tmA = tensorMap(kn, t->group, NVFP4_ABI_TMAP_A);
  KbValue tmB = tensorMap(kn, t->group, NVFP4_ABI_TMAP_B);
  KbValue tmSfa = tensorMap(kn, t->group, NVFP4_ABI_TMAP_SFA);
  KbValue tmSfb = tensorMap(kn, t->group, NVFP4_ABI_TMAP_SFB);
  KbValue sfbRow = kbLShr(b, t->n0, kbI32(b, 7)); /* first 128-row SFB atom of the tile */
  KbVar kt = kbVar(b, b->i32, kbI32(b, 0));
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, kt), t->kIters));
  {
    KbValue s = kbGet(b, ring->index);
    KbValue ph = kbGet(b, ring->phase);
    nvMbarWait(b, emptyBar(kn, s), kbXor(b, ph, kbI32(b, 1)));
    KbValue full = fullBar(kn, s);
    nvMbarArriveExpectTx(b, full, kbI32(b, cfg->txBytesPerStage));
    KbValue base = stageBase(kn, s);
    KbValue k0 = kbMulI(b, kbGet(b, kt), cfg->tileK);       /* FP4 elements along K */
    KbValue sfX = k0;                                        /* 64 int64 per 64 K */
    nvTmaLoad2d(b, sharedPtr(kn, kbAddI(b, base, cfg->aOffset)), tmA, full, k0, t->m0, "a");
    nvTmaLoad2d(b, sharedPtr(kn, kbAddI(b, base, cfg->bOffset)), tmB, full, k0, t->n0, "b");
    nvTmaLoad2d(b, sharedPtr(kn, kbAddI(b, base, cfg->sfaOffset)), tmSfa, full, sfX, t->mBlk,
                "sfa");
    nvTmaLoad2d(b, sharedPtr(kn, kbAddI(b, base, cfg->sfbOffset)), tmSfb, full, sfX, sfbRow,
                "sfb");
    ringAdvance(b, ring);
    kbSet(b, kt, kbAddI(b, kbGet(b, kt), 1));
  }
  kbEndWhile(b);
}

/* ---- warp 5: MMA issuer --------------------------------------------------------------- */

typedef struct MmaState { Ring stage, acc, sf; } MmaState;

static KbValue orAddress(KbBuilder *b, uint64_t constant, KbValue smemAddr) {
  /* descriptor = constant part | ((address >> 4) & 0x3FFF) */
  KbValue field = kbAnd(b, kbLShr(b, smemAddr, kbI32(b, 4)), kbI32(b, 0x3FFF));
  return kbOr(b, kbI64(b, (int64_t)constant), kbZExt(b, field, b->i64));
}

static void mmaTile(Kernel *kn, Tile *t, void *state) {
  KbBuilder *b = kn->b;
  const MlirNvfp4KernelConfig *cfg = kn->cfg;
  MmaState *st = state;
  const uint64_t opDesc = mlirNvfp4OperandSmemDescriptor(0);
  const uint64_t sfDesc = mlirNvfp4ScaleFactorCopyDescriptor(0);
  const uint32_t idesc = mlirNvfp4Mxf4Nvf4InstrDescriptor(cfg->tileM, cfg->tileN);
  const uint32_t kBlocks = cfg->tileK / 64;

  KbValue acc = kbGet(b, st->acc.index);
  nvMbarWait(b, accEmptyBar(kn, acc), kbXor(b, kbGet(b, st->acc.phase), kbI32(b, 1)));
  nvTcFenceAfter(b);
  KbValue d = kbAdd(b, kn->tmemBase, kbMulI(b, acc, cfg->tileN));
  /* Column offset of the tile's first row inside its 128-row SFB atom (32 rows/column). */
  KbValue sfbShift = kbLShr(b, kbAnd(b, t->n0, kbI32(b, 127)), kbI32(b, 5));

  KbVar kt = kbVar(b, b->i32, kbI32(b, 0));
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, kt), t->kIters));
  {
    KbValue s = kbGet(b, st->stage.index);
    nvMbarWait(b, fullBar(kn, s), kbGet(b, st->stage.phase));
    nvTcFenceAfter(b);
    KbValue base = stageBase(kn, s);
    /* Scale-factor slot: the stage itself, or the next slot of a smaller ring whose
     * previous MMAs must have completed before tcgen05.cp overwrites it. */
    KbValue slot = cfg->sfRing ? kbGet(b, st->sf.index) : s;
    if (cfg->sfRing) {
      nvMbarWait(b, sfFreeBar(kn, slot), kbXor(b, kbGet(b, st->sf.phase), kbI32(b, 1)));
      nvTcFenceAfter(b);
    }
    KbValue sfCol = kbAdd(b, kn->tmemBase,
                          kbAddI(b, kbMulI(b, slot, cfg->sfColsPerStage), cfg->sfCol0));
    KbValue sfaCol = sfCol;
    KbValue sfbCol = kbAddI(b, sfCol, cfg->sfaColsPerStage);
    KbValue ktv = kbGet(b, kt);
    KbValue remaining = kbSub(b, t->kSteps, kbMulI(b, ktv, kBlocks)); /* >= 1 */
    for (uint32_t j = 0; j < kBlocks; ++j) {
      kbIf(b, kbCmpI(b, KB_UGT, remaining, j));
      /* scale factors of K block j: SFA atom -> 4 columns, SFB atoms -> 4 columns each */
      nvTcCp32x128bWarpx4(b, kbAddI(b, sfaCol, 4 * j),
                          orAddress(b, sfDesc, kbAddI(b, base, cfg->sfaOffset + 512 * j)));
      for (uint32_t a = 0; a < cfg->sfbAtoms; ++a)
        nvTcCp32x128bWarpx4(
            b, kbAddI(b, sfbCol, 4 * cfg->sfbAtoms * j + 4 * a),
            orAddress(b, sfDesc, kbAddI(b, base, cfg->sfbOffset + 2048 * a + 512 * j)));
      KbValue adesc = orAddress(b, opDesc, kbAddI(b, base, cfg->aOffset + 32 * j));
      KbValue bdesc = orAddress(b, opDesc, kbAddI(b, base, cfg->bOffset + 32 * j));
      KbValue enable = j ? kbBool(b, true) : kbCmpI(b, KB_NE, ktv, 0);
      nvTcMmaMxf4Nvf4(b, d, adesc, bdesc, kbI32(b, idesc), enable, kbAddI(b, sfaCol, 4 * j),
                      kbAdd(b, kbAddI(b, sfbCol, 4 * cfg->sfbAtoms * j), sfbShift));
      kbEndIf(b);
    }
    /* The stage (and its scale-factor slot) is free once these MMAs have completed. */
    nvTcCommit(b, emptyBar(kn, s));
    if (cfg->sfRing) {
      nvTcCommit(b, sfFreeBar(kn, slot));
      ringAdvance(b, &st->sf);
    }
    ringAdvance(b, &st->stage);
    kbSet(b, kt, kbAddI(b, ktv, 1));
  }
  kbEndWhile(b);
  /* The accumulator is complete once every MMA of the tile has completed. */
  nvTcCommit(b, accFullBar(kn, acc));
  ringAdvance(b, &st->acc);
}

/* ---- warps 0-3: epilogue -------------------------------------------------------------- */

static void storeChunk(Kernel *kn, Tile *t, KbValue row, KbValue col0, KbValue vals);

static void epilogueTile(Kernel *kn, Tile *t, void *state) {
  KbBuilder *b = kn->b;
  const MlirNvfp4KernelConfig *cfg = kn->cfg;
  Ring *accRing = state;
  KbValue acc = kbGet(b, accRing->index);
  nvMbarWait(b, accFullBar(kn, acc), kbGet(b, accRing->phase));
  nvTcFenceAfter(b);
  nvWarpSync(b); /* tcgen05.ld is .sync.aligned: reconverge after the per-thread spin */
  KbValue laneBase = kbShl(b, kbMulI(b, kn->warp, 32), kbI32(b, 16)); /* warp w: lanes 32w.. */
  KbValue accAddr = kbAdd(b, kbAdd(b, kn->tmemBase, laneBase), kbMulI(b, acc, cfg->tileN));
  KbValue row = kbAdd(b, t->m0, kbAdd(b, kbMulI(b, kn->warp, 32), kn->lane));
  KbVar chunk = kbVar(b, b->i32, kbI32(b, 0));
  kbWhile(b);
  kbWhileDo(b, kbCmpI(b, KB_ULT, kbGet(b, chunk), cfg->tileN / 32));
  {
    KbValue c = kbGet(b, chunk);
    nvWarpSync(b); /* reconverge after the previous chunk's predicated stores */
    KbValue vals = nvTcLd32x32b(b, kbAdd(b, accAddr, kbMulI(b, c, 32)), 32);
    nvTcWaitLd(b);
    storeChunk(kn, t, row, kbAdd(b, t->n0, kbMulI(b, c, 32)), vals);
    kbSet(b, chunk, kbAddI(b, c, 1));
  }
  kbEndWhile(b);
  nvTcFenceBefore(b);
  nvMbarArrive(b, accEmptyBar(kn, acc));
  ringAdvance(b, accRing);
}

/* Converts 32 fp32 accumulators of one row to fp16 and stores columns col0..col0+31 of C,
 * predicated on the row and on ragged N (16-byte vector stores when the chunk is whole). */
static void storeChunk(Kernel *kn, Tile *t, KbValue row, KbValue col0, KbValue vals) {
  KbBuilder *b = kn->b;
  KbValue h[32];
  for (int e = 0; e < 32; ++e)
    h[e] = kbFPTrunc(b, kbBitcast(b, kbExtract(b, vals, kbI32(b, e)), b->f32), b->f16);
  KbValue inRange = kbAnd(b, kbCmp(b, KB_ULT, row, t->m), kbCmp(b, KB_ULT, col0, t->n));
  kbIf(b, inRange);
  {
    KbValue elem = kbAdd(b, kbMul(b, kbZExt(b, row, b->i64), kbZExt(b, t->ldc, b->i64)),
                         kbZExt(b, col0, b->i64));
    KbValue addr = kbAdd(b, t->cPtr, kbMulI(b, elem, 2));
    MlirType gptr = mlirLLVMPointerTypeGet(b->ctx, 1);
    int64_t eight[1] = {8};
    MlirType v8 = mlirVectorTypeGet(1, eight, b->f16);
    kbIf(b, kbCmp(b, KB_ULE, kbAddI(b, col0, 32), t->n));
    for (int q = 0; q < 4; ++q) {
      KbValue v = kbUndef(b, v8);
      for (int e = 0; e < 8; ++e) v = kbInsert(b, v, h[8 * q + e], kbI32(b, e));
      kbStore(b, v, kbIntToPtr(b, kbAddI(b, addr, 16 * q), gptr), 16);
    }
    kbElse(b);
    for (int e = 0; e < 32; ++e) {
      kbIf(b, kbCmp(b, KB_ULT, kbAddI(b, col0, e), t->n));
      kbStore(b, h[e], kbIntToPtr(b, kbAddI(b, addr, 2 * e), gptr), 2);
      kbEndIf(b);
    }
    kbEndIf(b);
  }
  kbEndIf(b);
}

/* ---- the kernel ----------------------------------------------------------------------- */

/* Waits until each barrier of a ring guarded by tcgen05.commit has completed the phase of
 * its last commit (positions never used complete at once), so that no asynchronous
 * arrive is still in flight when the CTA tears down and exits. */
static void drainRing(Kernel *kn, Ring *ring, KbValue (*bar)(Kernel *, KbValue)) {
  KbBuilder *b = kn->b;
  for (uint32_t i = 0; i < ring->size; ++i) {
    nvMbarWait(b, bar(kn, kbGet(b, ring->index)), kbXor(b, kbGet(b, ring->phase), kbI32(b, 1)));
    ringAdvance(b, ring);
  }
}

void nvfp4BuildGroupedMatmulKernel(KbBuilder *b, const MlirNvfp4KernelConfig *cfg,
                                   KbValue params, const char *dynSmemGlobal) {
  Kernel kn = {.b = b, .cfg = cfg, .params = params};
  KbValue tid = nvSreg(b, "tid.x");
  kn.warp = kbLShr(b, tid, kbI32(b, 5));
  kn.lane = kbAnd(b, tid, kbI32(b, 31));
  KbValue dyn = kbPtrToInt(b, kbAddressOf(b, dynSmemGlobal, b->ptrShared), b->i32);
  kn.smem = kbAnd(b, kbAddI(b, dyn, 1023), kbI32(b, -1024));
  KbValue tmemSlot = sharedPtr(&kn, kbAddI(b, kn.smem, cfg->tmemSlotOffset));

  /* Barrier initialisation (one thread), TMEM allocation (warp 5), then a CTA barrier. */
  kbIf(b, kbCmpI(b, KB_EQ, tid, 0));
  for (uint32_t s = 0; s < cfg->stages; ++s) {
    nvMbarInit(b, fullBar(&kn, kbI32(b, s)), 1);  /* producer's arrive.expect_tx */
    nvMbarInit(b, emptyBar(&kn, kbI32(b, s)), 1); /* MMA warp's tcgen05.commit */
  }
  for (uint32_t a = 0; a < cfg->accBuffers; ++a) {
    nvMbarInit(b, accFullBar(&kn, kbI32(b, a)), 1);
    nvMbarInit(b, accEmptyBar(&kn, kbI32(b, a)), 32 * MLIR_NVFP4_NUM_EPILOGUE_WARPS);
  }
  if (cfg->sfRing)
    for (uint32_t p = 0; p < cfg->sfSlots; ++p)
      nvMbarInit(b, sfFreeBar(&kn, kbI32(b, p)), 1); /* MMA warp's tcgen05.commit */
  nvMbarFenceInit(b);
  nvFenceProxyAsyncShared(b);
  kbEndIf(b);
  kbIf(b, kbCmpI(b, KB_EQ, kn.warp, MLIR_NVFP4_MMA_WARP));
  nvTcAlloc(b, tmemSlot, cfg->tmemCols);
  nvTcRelinquish(b);
  kbEndIf(b);
  nvTcFenceBefore(b);
  nvBarrier0(b);
  nvTcFenceAfter(b);
  kn.tmemBase = kbLoad(b, b->i32, tmemSlot, 4);

  kbIf(b, kbCmpI(b, KB_EQ, kn.warp, MLIR_NVFP4_PRODUCER_WARP));
  {
    kbIf(b, kbCmpI(b, KB_EQ, kn.lane, 0));
    Ring ring = ringNew(b, cfg->stages);
    forEachTile(&kn, producerTile, &ring);
    /* Tail: every stage's last tcgen05.commit must have arrived before the CTA exits. */
    drainRing(&kn, &ring, emptyBar);
    kbEndIf(b);
  }
  kbElse(b);
  kbIf(b, kbCmpI(b, KB_EQ, kn.warp, MLIR_NVFP4_MMA_WARP));
  {
    kbIf(b, kbCmpI(b, KB_EQ, kn.lane, 0));
    MmaState st = {ringNew(b, cfg->stages), ringNew(b, cfg->accBuffers),
                   ringNew(b, cfg->sfSlots)};
    forEachTile(&kn, mmaTile, &st);
    if (cfg->sfRing) drainRing(&kn, &st.sf, sfFreeBar);
    kbEndIf(b);
  }
  kbElse(b);
  {
    Ring acc = ringNew(b, cfg->accBuffers);
    forEachTile(&kn, epilogueTile, &acc);
  }
  kbEndIf(b);
  kbEndIf(b);

  /* Teardown: every TMEM access is complete before warp 5 frees the columns. The warp
   * sync reconverges the warps whose lane 0 ran a role loop alone. */
  nvTcFenceBefore(b);
  nvWarpSync(b);
  nvBarrier0(b);
  kbIf(b, kbCmpI(b, KB_EQ, kn.warp, MLIR_NVFP4_MMA_WARP));
  nvTcFenceAfter(b);
  nvWarpSync(b);
  nvTcDealloc(b, kn.tmemBase, cfg->tmemCols);
  kbEndIf(b);
  kbReturn(b);
}
