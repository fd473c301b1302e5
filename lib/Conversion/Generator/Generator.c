/* Generator.c — kernel context, mbarrier arrays, pipeline rings, the group-aware tile
 * scheduler and the operand-role helpers shared by the generated kernels (Generator.h). */
#include "Generator.h"

#include "../Nvvm.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/KernelABI.h"

void genKernelInit(GenKernel *k, KbBuilder *b, const MlirNvfp4KernelConfig *cfg,
                   KbValue params, const char *dynSmemGlobal) {
  k->b = b;
  k->cfg = cfg;
  k->params = params;
  k->tid = nvSreg(b, "tid.x");
  k->warp = kbUDiv(b, k->tid, kbI32(b, 32));
  k->lane = kbURem(b, k->tid, kbI32(b, 32));
  KbValue dyn = kbPtrToInt(b, kbAddressOf(b, dynSmemGlobal, b->ptrShared), b->i32);
  k->smem = kbAnd(b, kbAddI(b, dyn, 1023), kbI32(b, -1024));
  k->sched = (MlirValue){NULL};
  /* the group table (or the contiguous form's shared maps): device memory the host wrote in
   * stream order before the launch, at the header's address (a generic pointer) */
  KbValue addr = kbLoad(b, b->i64, kbGep(b, params, NVFP4_ABI_HDR_TABLE), 8);
  k->table = kbIntToPtr(b, addr, b->ptr);
  if (cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS) {
    k->sched = kbAddI(b, k->smem, cfg->scheduleOffset);
    if (cfg->scheduleInWorkspace) { /* this CTA's slice of the workspace */
      KbValue ws = kbLoad(b, b->i64, kbGep(b, params, NVFP4_ABI_HDR_WORKSPACE), 8);
      KbValue cta = kbZExt(b, nvSreg(b, "ctaid.x"), b->i64);
      k->sched = kbAdd(b, ws, kbMulI(b, cta, cfg->workspacePerCta));
    }
  }
  k->ctaRank = cfg->spec.ctaGroup > 1 ? nvSreg(b, "cluster.ctarank") : kbI32(b, 0);
  k->patchable = false;
}

KbValue genParamU32(GenKernel *k, uint32_t byteOffset) {
  return kbLoad(k->b, k->b->i32, kbGep(k->b, k->params, (int32_t)byteOffset), 4);
}
KbValue genParamU64(GenKernel *k, uint32_t byteOffset) {
  return kbLoad(k->b, k->b->i64, kbGep(k->b, k->params, (int32_t)byteOffset), 8);
}
/* A load from the device table, marked invariant: the host writes the table before the
 * launch and nothing writes it during the kernel (ld.global.nc), so the backend may
 * reload a field instead of keeping it live. */
static KbValue tableLoad(GenKernel *k, MlirType type, KbValue byteOffset, int64_t align) {
  KbBuilder *b = k->b;
  KbValue ptr = kbGepDyn(b, k->table, byteOffset);
  MlirNamedAttribute attrs[2] = {kbNamed(b, "alignment", mlirIntegerAttrGet(b->i64, align)),
                                 kbNamed(b, "invariant", mlirUnitAttrGet(b->ctx))};
  return mlirOperationGetResult(kbOp(b, "llvm.load", 1, &type, 1, &ptr, 2, attrs), 0);
}
KbValue genTableU32(GenKernel *k, KbValue byteOffset) {
  return tableLoad(k, k->b->i32, byteOffset, 4);
}
KbValue genTableU64(GenKernel *k, KbValue byteOffset) {
  return tableLoad(k, k->b->i64, byteOffset, 8);
}

KbValue genSharedPtr(GenKernel *k, KbValue addr) {
  return kbIntToPtr(k->b, addr, k->b->ptrShared);
}

KbValue genSmemAddr(GenKernel *k, uint32_t regionOffset, uint32_t stride, KbValue copy) {
  KbBuilder *b = k->b;
  return kbAdd(b, kbAddI(b, k->smem, regionOffset), kbMulI(b, copy, stride));
}

/* ---- mbarriers ------------------------------------------------------------------------- */

KbValue genBarrier(GenKernel *k, const MlirNvfp4BarrierArray *arr, KbValue index) {
  KbBuilder *b = k->b;
  KbValue slot = kbAddI(b, index, arr->first);
  return genSharedPtr(k, kbAdd(b, kbAddI(b, k->smem, k->cfg->barrierOffset), kbMulI(b, slot, 8)));
}

void genInitBarriers(GenKernel *k) {
  KbBuilder *b = k->b;
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  for (uint32_t a = 0; a < cfg->numBarrierArrays; ++a) {
    const MlirNvfp4BarrierArray *arr = &cfg->barriers[a];
    for (uint32_t i = 0; i < arr->count; ++i)
      nvMbarInit(b, genBarrier(k, arr, kbI32(b, i)), arr->arrivals);
  }
  nvMbarFenceInit(b);
  nvFenceProxyAsyncShared(b);
}

void genMbarWait(GenKernel *k, KbValue bar, KbValue parity) {
  genMbarWaitOn(k, NULL, bar, parity);
}

void genMbarWaitOn(GenKernel *k, const MlirNvfp4BarrierArray *arr, KbValue bar, KbValue parity) {
  nvMbarWaitTagged(k->b, bar, parity, k->cfg->spec.ctaGroup > 1, arr ? arr->name : NULL);
}

/* ---- rings ----------------------------------------------------------------------------- */

GenRing genRingNew(KbBuilder *b, uint32_t size) {
  GenRing r = {kbVar(b, b->i32, kbI32(b, 0)), kbVar(b, b->i32, kbI32(b, 0)), size};
  return r;
}

void genRingAdvance(KbBuilder *b, GenRing *r) {
  KbValue next = kbAddI(b, kbGet(b, r->index), 1);
  KbValue wrap = kbCmpI(b, KB_EQ, next, r->size);
  kbSet(b, r->index, kbSelect(b, wrap, kbI32(b, 0), next));
  KbValue ph = kbGet(b, r->phase);
  kbSet(b, r->phase, kbSelect(b, wrap, kbXor(b, ph, kbI32(b, 1)), ph));
}

GenPipe genPipeNew(KbBuilder *b, uint32_t size, const MlirNvfp4BarrierArray *full,
                   const MlirNvfp4BarrierArray *empty) {
  GenPipe p = {genRingNew(b, size), full, empty};
  return p;
}

KbValue genPipeIndex(KbBuilder *b, GenPipe *p) { return kbGet(b, p->pos.index); }

KbValue genPipeFullBar(GenKernel *k, GenPipe *p) {
  return genBarrier(k, p->full, kbGet(k->b, p->pos.index));
}
KbValue genPipeEmptyBar(GenKernel *k, GenPipe *p) {
  return genBarrier(k, p->empty, kbGet(k->b, p->pos.index));
}

void genPipeProducerAcquire(GenKernel *k, GenPipe *p) {
  KbBuilder *b = k->b;
  genMbarWaitOn(k, p->empty, genPipeEmptyBar(k, p), kbXor(b, kbGet(b, p->pos.phase), kbI32(b, 1)));
}

void genPipeConsumerWait(GenKernel *k, GenPipe *p) {
  KbBuilder *b = k->b;
  genMbarWaitOn(k, p->full, genPipeFullBar(k, p), kbGet(b, p->pos.phase));
}

void genPipeDrainEmpty(GenKernel *k, GenPipe *p) {
  for (uint32_t i = 0; i < p->pos.size; ++i) {
    genPipeProducerAcquire(k, p);
    genRingAdvance(k->b, &p->pos);
  }
}

/* ---- the tile scheduler ------------------------------------------------------------------ */

/* The group of `tile` is the last group whose tile_start <= tile (groups without tiles
 * share the start of the next one and are skipped that way). A CTA's tiles increase, so
 * the search continues from the previous tile's group: amortised O(1) per tile. */
/* Pointer to byte off + field of the contiguous form's schedule (`off` an i32, or null for
 * 0): shared memory, or the CTA's slice of the workspace (global memory). */
static KbValue schedPtr(GenKernel *k, KbValue off, uint32_t field) {
  KbBuilder *b = k->b;
  if (!k->cfg->scheduleInWorkspace)
    return genSharedPtr(k, kbAddI(b, mlirValueIsNull(off) ? k->sched : kbAdd(b, k->sched, off), field));
  KbValue o = mlirValueIsNull(off) ? kbI32(b, field) : kbAddI(b, off, field);
  return kbIntToPtr(b, kbAdd(b, k->sched, kbZExt(b, o, b->i64)), mlirLLVMPointerTypeGet(b->ctx, 1));
}

/* u32 field `field` of expert e's record in the contiguous form's schedule. */
static KbValue schedU32(GenKernel *k, KbValue e, uint32_t field) {
  KbBuilder *b = k->b;
  return kbLoad(b, b->i32, schedPtr(k, kbMulI(b, e, MLIR_NVFP4_MOE_RECORD_BYTES), field), 4);
}

/* A u32 field of group g's record (table order). */
static KbValue recordU32(GenKernel *k, KbValue g, uint32_t field) {
  KbBuilder *b = k->b;
  return genTableU32(k, kbAddI(b, kbMulI(b, g, NVFP4_ABI_GROUP_RECORD_BYTES),
                               nvfp4_abi_record_offset(k->cfg->numGroups, 0) + field));
}

static KbValue findGroup(GenKernel *k, KbVar g, KbValue tile, KbValue numGroups) {
  KbBuilder *b = k->b;
  const bool contiguous = k->cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  kbWhile(b);
  {
    KbValue next = kbAddI(b, kbGet(b, g), 1);
    KbValue inRange = kbCmp(b, KB_ULT, next, numGroups);
    /* the start of the next group, read only when it exists (else an impossible value) */
    KbValue idx = kbSelect(b, inRange, next, kbI32(b, 0));
    KbValue start = contiguous ? schedU32(k, idx, 0) : recordU32(k, idx, NVFP4_ABI_GRP_TILE_START);
    kbWhileDo(b, kbAnd(b, inRange, kbCmp(b, KB_ULE, start, tile)));
    kbSet(b, g, next);
  }
  kbEndWhile(b);
  return kbGet(b, g);
}

/* ---- the contiguous (MoE) form: the expert schedule ----------------------------------- */

static KbValue ceilDiv(KbBuilder *b, KbValue x, uint32_t d) {
  return kbUDiv(b, kbAddI(b, x, d - 1), kbI32(b, d));
}

static KbValue umin(KbBuilder *b, KbValue x, KbValue y) {
  return kbSelect(b, kbCmp(b, KB_ULT, x, y), x, y);
}

/* N of the MMAs of an expert with `rows` tokens on the N role (KernelABI.h's ladder):
 * the smallest nAlign * 2^i >= rows, at most tileN; tileN for more rows than that. A
 * BALANCED_N variant (sm_90a) splits the rows into ceil(rows / tileN) equal tiles, each
 * rounded up to nAlign, as the runtime does for a group of the pointer-array form
 * (nvfp4rt_group_tile_n). */
static KbValue moeTileN(GenKernel *k, KbValue rows) {
  KbBuilder *b = k->b;
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  if (cfg->variantFlags & NVFP4_META_VFLAG_BALANCED_N) {
    KbValue tiles = ceilDiv(b, rows, cfg->tileN);
    tiles = kbSelect(b, kbCmpI(b, KB_EQ, tiles, 0), kbI32(b, 1), tiles);
    KbValue per = kbUDiv(b, kbAdd(b, rows, kbAddI(b, tiles, -1)), tiles);
    KbValue v = kbMulI(b, ceilDiv(b, per, cfg->nAlign), cfg->nAlign);
    v = kbSelect(b, kbCmpI(b, KB_EQ, v, 0), kbI32(b, cfg->nAlign), v);
    return umin(b, v, kbI32(b, cfg->tileN));
  }
  KbValue v = kbI32(b, cfg->nAlign);
  for (uint32_t i = 0; i < cfg->nLadder; ++i)
    v = kbSelect(b, kbCmp(b, KB_ULT, v, rows), kbShl(b, v, kbI32(b, 1)), v);
  return umin(b, v, kbI32(b, cfg->tileN));
}

/* Tiles along the M role of an expert (the other role's rows are N). */
static KbValue moeTilesM(GenKernel *k, KbValue rows, KbValue n) {
  const bool swap = k->cfg->spec.orientation == MLIR_NVFP4_ORIENTATION_SWAP_AB;
  return ceilDiv(k->b, swap ? n : rows, k->cfg->mmaM);
}

typedef struct ExpertInfo { KbValue start, rows, tiles, atoms; } ExpertInfo;

/* Expert e's rows (offsets clamped to [0, M], none when the end is below the start), its
 * tiles and its 128-row scale-factor atoms. */
static ExpertInfo expertInfo(GenKernel *k, KbValue offsets, KbValue e, KbValue m, KbValue n) {
  KbBuilder *b = k->b;
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  /* global loads (ld.global): the offsets are device data a previous kernel may write */
  KbValue at = kbAdd(b, offsets, kbMulI(b, kbZExt(b, e, b->i64), 4));
  KbValue zero = kbI32(b, 0);
  KbValue lim[2];
  for (int i = 0; i < 2; ++i) {
    KbValue gp = kbIntToPtr(b, kbAddI(b, at, 4 * i), mlirLLVMPointerTypeGet(b->ctx, 1));
    KbValue v = kbLoad(b, b->i32, gp, 4);
    v = kbSelect(b, kbCmp(b, KB_SLT, v, zero), zero, v); /* signed: below 0 -> 0 */
    lim[i] = umin(b, v, m);
  }
  ExpertInfo x;
  x.start = lim[0];
  x.rows = kbSelect(b, kbCmp(b, KB_UGT, lim[1], lim[0]), kbSub(b, lim[1], lim[0]), zero);
  KbValue tilesM = moeTilesM(k, x.rows, n);
  KbValue tilesN = cfg->roleN.dynamicRows
                       ? kbUDiv(b, kbAdd(b, x.rows, kbAddI(b, moeTileN(k, x.rows), -1)),
                                moeTileN(k, x.rows))
                       : ceilDiv(b, n, cfg->tileN);
  x.tiles = kbMul(b, tilesM, tilesN);
  x.atoms = ceilDiv(b, x.rows, MLIR_NVFP4_SF_ATOM_ROWS);
  return x;
}

void genBuildSchedule(GenKernel *k) {
  KbBuilder *b = k->b;
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  const uint32_t experts = cfg->numGroups, threads = cfg->numThreads;
  const uint32_t chunk = (experts + threads - 1) / threads; /* consecutive experts per thread */
  KbValue m = genParamU32(k, NVFP4_ABI_MOE_M), n = genParamU32(k, NVFP4_ABI_MOE_N);
  KbValue offsets = genParamU64(k, NVFP4_ABI_MOE_OFFSETS);
  KbValue first = kbMulI(b, k->tid, chunk);
  /* Pass 1: this thread's tiles and atoms. */
  KbVar sumT = kbVar(b, b->i32, kbI32(b, 0)), sumA = kbVar(b, b->i32, kbI32(b, 0));
  for (uint32_t j = 0; j < chunk; ++j) {
    KbValue e = kbAddI(b, first, j);
    kbIf(b, kbCmpI(b, KB_ULT, e, experts));
    ExpertInfo x = expertInfo(k, offsets, e, m, n);
    kbSet(b, sumT, kbAdd(b, kbGet(b, sumT), x.tiles));
    kbSet(b, sumA, kbAdd(b, kbGet(b, sumA), x.atoms));
    kbEndIf(b);
  }
  /* Block-wide exclusive scan of the (tiles, atoms) pairs in shared memory (Hillis-Steele:
   * log2(threads) rounds, each a read, a barrier, a write and a barrier; plain loads,
   * stores and bar.sync, which every execution target implements). */
  KbValue own[2] = {kbGet(b, sumT), kbGet(b, sumA)};
  KbValue mine = kbAdd(b, kbAddI(b, k->smem, cfg->scanOffset), kbMulI(b, k->tid, 8));
  for (int i = 0; i < 2; ++i) kbStore(b, own[i], genSharedPtr(k, kbAddI(b, mine, 4 * i)), 4);
  nvBarrier0(b);
  for (uint32_t d = 1; d < threads; d *= 2) {
    KbValue has = kbCmpI(b, KB_UGE, k->tid, d);
    KbValue src = kbSelect(b, has, kbAddI(b, mine, -8 * (int64_t)d), mine);
    KbValue sum[2];
    for (int i = 0; i < 2; ++i) {
      KbValue x = kbLoad(b, b->i32, genSharedPtr(k, kbAddI(b, mine, 4 * i)), 4);
      KbValue y = kbLoad(b, b->i32, genSharedPtr(k, kbAddI(b, src, 4 * i)), 4);
      sum[i] = kbAdd(b, x, kbSelect(b, has, y, kbI32(b, 0)));
    }
    nvBarrier0(b);
    for (int i = 0; i < 2; ++i) kbStore(b, sum[i], genSharedPtr(k, kbAddI(b, mine, 4 * i)), 4);
    nvBarrier0(b);
  }
  KbValue pre[2];
  for (int i = 0; i < 2; ++i)
    pre[i] = kbSub(b, kbLoad(b, b->i32, genSharedPtr(k, kbAddI(b, mine, 4 * i)), 4), own[i]);
  /* Pass 2: the records, then (last thread) the tile total. */
  KbVar runT = kbVar(b, b->i32, pre[0]), runA = kbVar(b, b->i32, pre[1]);
  for (uint32_t j = 0; j < chunk; ++j) {
    KbValue e = kbAddI(b, first, j);
    kbIf(b, kbCmpI(b, KB_ULT, e, experts));
    ExpertInfo x = expertInfo(k, offsets, e, m, n);
    KbValue rec = kbMulI(b, e, MLIR_NVFP4_MOE_RECORD_BYTES);
    KbValue fields[4] = {kbGet(b, runT), x.start, x.rows, kbGet(b, runA)};
    for (int f = 0; f < 4; ++f) kbStore(b, fields[f], schedPtr(k, rec, 4u * (uint32_t)f), 4);
    kbSet(b, runT, kbAdd(b, kbGet(b, runT), x.tiles));
    kbSet(b, runA, kbAdd(b, kbGet(b, runA), x.atoms));
    kbEndIf(b);
  }
  kbIf(b, kbCmpI(b, KB_EQ, k->tid, threads - 1));
  kbStore(b, kbGet(b, runT), schedPtr(k, (MlirValue){NULL}, MLIR_NVFP4_MOE_RECORD_BYTES * experts), 4);
  kbEndIf(b);
  nvBarrier0(b);
}

/* The contiguous form's per-tile values, from the expert schedule and the problem record. */
static void moeTileInfo(GenKernel *k, GenTile *t, KbValue tile) {
  KbBuilder *b = k->b;
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  const bool swap = cfg->spec.orientation == MLIR_NVFP4_ORIENTATION_SWAP_AB;
  KbValue start = schedU32(k, t->group, 0), row0 = schedU32(k, t->group, 4);
  KbValue atom0 = schedU32(k, t->group, 12);
  t->record = (MlirValue){NULL};
  t->m = schedU32(k, t->group, 8);
  t->n = genParamU32(k, NVFP4_ABI_MOE_N);
  t->k = genParamU32(k, NVFP4_ABI_MOE_K);
  t->ldc = genParamU32(k, NVFP4_ABI_MOE_LDC);
  KbValue cOff = kbMul(b, kbZExt(b, row0, b->i64), kbZExt(b, t->ldc, b->i64));
  /* (an FP4 C, the fused epilogue's, packs two elements per byte: ldc is even) */
  KbValue cBytes = cfg->spec.output == MLIR_NVFP4_OUTPUT_FP4 ? kbLShr(b, cOff, kbI64(b, 1))
                                                             : kbMulI(b, cOff, cfg->cElemBytes);
  t->cPtr = kbAdd(b, genParamU64(k, NVFP4_ABI_MOE_C_PTR), cBytes);
  t->alphaPtr = cfg->spec.alpha ? kbAdd(b, genParamU64(k, NVFP4_ABI_MOE_ALPHA),
                                        kbMulI(b, kbZExt(b, t->group, b->i64), 4))
                                : (MlirValue){NULL};
  t->sfcPtr = t->gsPtr = (MlirValue){NULL};
  if (cfg->spec.swiglu) {
    t->sfcPtr = genParamU64(k, NVFP4_ABI_MOE_SFC_PTR);
    t->gsPtr = kbAdd(b, genParamU64(k, NVFP4_ABI_MOE_GS_PTR),
                     kbMulI(b, kbZExt(b, t->group, b->i64), 4));
  }
  t->tileN = cfg->roleN.dynamicRows ? moeTileN(k, t->m) : kbI32(b, cfg->tileN);
  KbValue tilesM = moeTilesM(k, t->m, t->n);
  KbValue local = kbSub(b, tile, start);
  t->mBlk = kbURem(b, local, tilesM);
  KbValue nBlk = kbUDiv(b, local, tilesM);
  t->mRow0 = kbMulI(b, t->mBlk, cfg->mmaM);
  t->nRow0 = kbMul(b, nBlk, t->tileN);
  /* Map rows: tokens start at the expert's first row (scale factors at its first atom);
   * weights at e * N (scale factors at e * ceil(N / 128)). */
  KbValue wRow = kbMul(b, t->group, t->n);
  KbValue wAtom = kbMul(b, t->group, ceilDiv(b, t->n, MLIR_NVFP4_SF_ATOM_ROWS));
  t->mBase = swap ? wRow : row0;
  t->nBase = swap ? row0 : wRow;
  t->sfmBase = swap ? wAtom : atom0;
  t->sfnBase = swap ? atom0 : wAtom;
  t->cRowBase = row0;
}

KbValue genAddBase(KbBuilder *b, KbValue base, KbValue v) {
  return mlirValueIsNull(base) ? v : kbAdd(b, base, v);
}

/* The pointer-array form's per-tile values, from the group record. */
static void tableTileInfo(GenKernel *k, GenTile *t, KbValue tile) {
  KbBuilder *b = k->b;
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  t->record = kbAddI(b, kbMulI(b, t->group, NVFP4_ABI_GROUP_RECORD_BYTES),
                     nvfp4_abi_record_offset(cfg->numGroups, 0));
  t->m = genTableU32(k, kbAddI(b, t->record, NVFP4_ABI_GRP_M));
  t->n = genTableU32(k, kbAddI(b, t->record, NVFP4_ABI_GRP_N));
  t->k = genTableU32(k, kbAddI(b, t->record, NVFP4_ABI_GRP_K));
  t->ldc = genTableU32(k, kbAddI(b, t->record, NVFP4_ABI_GRP_LDC));
  t->cPtr = genTableU64(k, kbAddI(b, t->record, NVFP4_ABI_GRP_C_PTR));
  KbValue start = genTableU32(k, kbAddI(b, t->record, NVFP4_ABI_GRP_TILE_START));
  KbValue tilesM = genTableU32(k, kbAddI(b, t->record, NVFP4_ABI_GRP_TILES_M));
  t->tileN = cfg->roleN.dynamicRows ? genTableU32(k, kbAddI(b, t->record, NVFP4_ABI_GRP_TILE_N))
                                     : kbI32(b, cfg->tileN);
  /* M-role fastest: consecutive tiles (CTAs) share the N-role tile. */
  KbValue local = kbSub(b, tile, start);
  t->mBlk = kbURem(b, local, tilesM);
  KbValue nBlk = kbUDiv(b, local, tilesM);
  t->mRow0 = kbMulI(b, t->mBlk, cfg->mmaM);
  t->nRow0 = kbMul(b, nBlk, t->tileN);
  t->alphaPtr = cfg->spec.alpha ? genTableU64(k, kbAddI(b, t->record, NVFP4_ABI_GRP_ALPHA_PTR))
                                : (MlirValue){NULL};
  t->sfcPtr = t->gsPtr = (MlirValue){NULL};
  if (cfg->spec.swiglu) {
    t->sfcPtr = genTableU64(k, kbAddI(b, t->record, NVFP4_ABI_GRP_SFC_PTR));
    t->gsPtr = genTableU64(k, kbAddI(b, t->record, NVFP4_ABI_GRP_GS_PTR));
  }
}

static void tileInfo(GenKernel *k, GenTile *t, KbVar g, KbValue tile, KbValue numGroups) {
  KbBuilder *b = k->b;
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  t->group = findGroup(k, g, tile, numGroups);
  t->mBase = t->nBase = t->sfmBase = t->sfnBase = t->cRowBase = (MlirValue){NULL};
  if (cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS) moeTileInfo(k, t, tile);
  else tableTileInfo(k, t, tile);
  t->kIters = kbUDiv(b, kbAddI(b, t->k, cfg->tileK - 1), kbI32(b, cfg->tileK));
  t->kSteps = kbUDiv(b, t->k, kbI32(b, MLIR_NVFP4_MMA_K));
  t->kBegin = kbI32(b, 0);
  t->kEnd = t->kIters;
  t->kStepBegin = kbI32(b, 0);
  t->kStepEnd = t->kSteps;
  t->skHead = (MlirValue){NULL};
  /* This CTA's share of the M role (a CTA pair splits the MMA's 256 rows). */
  KbValue mRowCta = kbAdd(b, t->mRow0, kbMulI(b, k->ctaRank, cfg->tileM));
  if (cfg->spec.orientation == MLIR_NVFP4_ORIENTATION_AB) {
    t->cRow0 = mRowCta;
    t->cCol0 = t->nRow0;
  } else {
    t->cRow0 = t->nRow0;
    t->cCol0 = mRowCta;
  }
}

/* ---- the stream-K schedule ------------------------------------------------------------ */

static KbValue truncI32(KbBuilder *b, KbValue x) {
  return mlirOperationGetResult(kbOp(b, "llvm.trunc", 1, &b->i32, 1, &x, 0, NULL), 0);
}

/* Group g's tiles, stages per tile and cost per tile stage (i64), from its record. */
typedef struct SkGroup { KbValue start, tiles, stages, cost; } SkGroup;

static SkGroup skGroup(GenKernel *k, KbValue g, KbValue numGroups, KbValue total) {
  KbBuilder *b = k->b;
  SkGroup r;
  r.start = recordU32(k, g, NVFP4_ABI_GRP_TILE_START);
  KbValue next = kbAddI(b, g, 1);
  KbValue inRange = kbCmp(b, KB_ULT, next, numGroups);
  KbValue nextStart = recordU32(k, kbSelect(b, inRange, next, kbI32(b, 0)), NVFP4_ABI_GRP_TILE_START);
  r.tiles = kbZExt(b, kbSub(b, kbSelect(b, inRange, nextStart, total), r.start), b->i64);
  KbValue kk = recordU32(k, g, NVFP4_ABI_GRP_K);
  r.stages = kbZExt(b, kbUDiv(b, kbAddI(b, kk, k->cfg->tileK - 1), kbI32(b, k->cfg->tileK)), b->i64);
  r.cost = kbZExt(b, kbAddI(b, recordU32(k, g, NVFP4_ABI_GRP_TILE_N), k->cfg->streamKCost),
                  b->i64);
  return r;
}

static KbValue skGroupCost(KbBuilder *b, SkGroup g) {
  return kbMul(b, kbMul(b, g.tiles, g.stages), g.cost);
}

/* The first stage (tile, stage; i32) whose cost position is at least p (i64, < the total),
 * and the cost position of that tile's stage 0 (i64; null `start`: not wanted). */
static void skLocate(GenKernel *k, KbValue p, KbValue numGroups, KbValue total, KbValue *tile,
                     KbValue *stage, KbValue *start) {
  KbBuilder *b = k->b;
  KbVar g = kbVar(b, b->i32, kbI32(b, 0));
  KbVar base = kbVar(b, b->i64, kbI64(b, 0));
  kbWhile(b);
  {
    KbValue gi = kbGet(b, g);
    SkGroup gr = skGroup(k, kbSelect(b, kbCmp(b, KB_ULT, gi, numGroups), gi, kbI32(b, 0)),
                         numGroups, total);
    KbValue end = kbAdd(b, kbGet(b, base), skGroupCost(b, gr));
    /* p < total: some group ends after it (groups without tiles cost nothing) */
    KbValue before = kbAnd(b, kbCmp(b, KB_ULE, end, p), kbCmp(b, KB_ULT, kbGet(b, g), numGroups));
    kbWhileDo(b, before);
    kbSet(b, base, end);
    kbSet(b, g, kbAddI(b, kbGet(b, g), 1));
  }
  kbEndWhile(b);
  SkGroup gr = skGroup(k, kbGet(b, g), numGroups, total);
  KbValue perTile = kbMul(b, gr.stages, gr.cost);
  KbValue o = kbSub(b, p, kbGet(b, base));
  KbValue i = kbUDiv(b, o, perTile);
  KbValue r = kbSub(b, o, kbMul(b, i, perTile));
  KbValue s = kbUDiv(b, kbAdd(b, r, kbAddI(b, gr.cost, -1)), gr.cost);
  KbValue wrap = kbCmp(b, KB_EQ, s, gr.stages); /* the tile's last stage starts before p */
  KbValue t = kbAdd(b, gr.start, truncI32(b, i));
  *tile = kbSelect(b, wrap, kbAddI(b, t, 1), t);
  *stage = kbSelect(b, wrap, kbI32(b, 0), truncI32(b, s));
  if (start) /* past a group's last tile: the next group's first starts where this ends */
    *start = kbAdd(b, kbGet(b, base), kbMul(b, kbSelect(b, wrap, kbAddI(b, i, 1), i), perTile));
}

static void forEachStreamKTile(GenKernel *k, GenTileBody body, void *state) {
  KbBuilder *b = k->b;
  KbValue total = genParamU32(k, NVFP4_ABI_HDR_TOTAL_TILES);
  KbValue numGroups = genParamU32(k, NVFP4_ABI_HDR_NUM_GROUPS);
  KbValue ctas = kbZExt(b, nvSreg(b, "nctaid.x"), b->i64);
  KbValue cta = kbZExt(b, nvSreg(b, "ctaid.x"), b->i64);
  /* the total cost of every tile's stages */
  KbVar g = kbVar(b, b->i32, kbI32(b, 0));
  KbVar sum = kbVar(b, b->i64, kbI64(b, 0));
  KbVar most = kbVar(b, b->i64, kbI64(b, 0)); /* the largest cost of one stage */
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, g), numGroups));
  {
    SkGroup gr = skGroup(k, kbGet(b, g), numGroups, total);
    kbSet(b, sum, kbAdd(b, kbGet(b, sum), skGroupCost(b, gr)));
    KbValue bigger = kbAnd(b, kbCmp(b, KB_UGT, gr.cost, kbGet(b, most)),
                           kbCmp(b, KB_NE, kbMul(b, gr.tiles, gr.stages), kbI64(b, 0)));
    kbSet(b, most, kbSelect(b, bigger, gr.cost, kbGet(b, most)));
    kbSet(b, g, kbAddI(b, kbGet(b, g), 1));
  }
  kbEndWhile(b);
  KbValue costTotal = kbGet(b, sum);
  /* At least one stage's cost, so that every share that starts before the last stage holds
   * a stage: the CTAs that share a tile are consecutive, and each publishes its sums (the
   * shares past the last stage, if any, are empty and come after every other). */
  KbValue share = kbUDiv(b, kbAdd(b, costTotal, kbAddI(b, ctas, -1)), ctas);
  share = kbSelect(b, kbCmp(b, KB_ULT, share, kbGet(b, most)), kbGet(b, most), share);
  KbValue from = kbMul(b, cta, share), to = kbAdd(b, from, share);
  /* [from, to) clipped to the total: past it, the position of "no more stages" */
  KbVar tile0 = kbVar(b, b->i32, total), stage0 = kbVar(b, b->i32, kbI32(b, 0));
  KbVar tile1 = kbVar(b, b->i32, total), stage1 = kbVar(b, b->i32, kbI32(b, 0));
  KbValue ctaI32 = nvSreg(b, "ctaid.x");
  KbVar head0 = kbVar(b, b->i32, ctaI32); /* the CTA with stage 0 of this CTA's first tile */
  kbIf(b, kbCmp(b, KB_ULT, from, costTotal));
  {
    KbValue t, st, start;
    skLocate(k, from, numGroups, total, &t, &st, &start);
    kbSet(b, tile0, t);
    kbSet(b, stage0, st);
    kbSet(b, head0, truncI32(b, kbUDiv(b, start, share)));
    kbIf(b, kbCmp(b, KB_ULT, to, costTotal));
    skLocate(k, to, numGroups, total, &t, &st, NULL);
    kbSet(b, tile1, t);
    kbSet(b, stage1, st);
    kbEndIf(b);
  }
  kbEndIf(b);
  KbValue endTile = kbGet(b, tile1), endStage = kbGet(b, stage1);
  KbVar tile = kbVar(b, b->i32, kbGet(b, tile0));
  KbVar stage = kbVar(b, b->i32, kbGet(b, stage0));
  KbVar grp = kbVar(b, b->i32, kbI32(b, 0));
  kbWhile(b);
  {
    KbValue tv = kbGet(b, tile);
    KbValue more = kbOr(b, kbCmp(b, KB_ULT, tv, endTile),
                        kbAnd(b, kbCmp(b, KB_EQ, tv, endTile),
                              kbCmp(b, KB_ULT, kbGet(b, stage), endStage)));
    kbWhileDo(b, more);
  }
  {
    KbValue tv = kbGet(b, tile);
    GenTile t;
    tileInfo(k, &t, grp, tv, numGroups);
    t.kBegin = kbGet(b, stage);
    t.kEnd = kbSelect(b, kbCmp(b, KB_EQ, tv, endTile), endStage, t.kIters);
    t.skHead = kbSelect(b, kbCmpI(b, KB_NE, t.kBegin, 0), kbGet(b, head0), ctaI32);
    t.kStepBegin = kbMulI(b, t.kBegin, k->cfg->tileK / MLIR_NVFP4_MMA_K);
    KbValue stepEnd = kbMulI(b, t.kEnd, k->cfg->tileK / MLIR_NVFP4_MMA_K);
    t.kStepEnd = kbSelect(b, kbCmp(b, KB_ULT, stepEnd, t.kSteps), stepEnd, t.kSteps);
    body(k, &t, state);
    kbSet(b, tile, kbAddI(b, tv, 1));
    kbSet(b, stage, kbI32(b, 0));
  }
  kbEndWhile(b);
}

void genForEachTile(GenKernel *k, GenTileBody body, void *state) {
  KbBuilder *b = k->b;
  if (k->cfg->streamK) {
    forEachStreamKTile(k, body, state);
    return;
  }
  bool pair = k->cfg->spec.ctaGroup > 1;
  const bool contiguous = k->cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  KbValue total = contiguous ? schedU32(k, kbI32(b, k->cfg->numGroups), 0)
                             : genParamU32(k, NVFP4_ABI_HDR_TOTAL_TILES);
  KbValue numGroups = contiguous ? kbI32(b, k->cfg->numGroups)
                                 : genParamU32(k, NVFP4_ABI_HDR_NUM_GROUPS);
  KbValue step = nvSreg(b, pair ? "nclusterid.x" : "nctaid.x");
  KbValue first = nvSreg(b, pair ? "clusterid.x" : "ctaid.x");
  KbVar tile = kbVar(b, b->i32, first);
  KbVar pass = {{NULL}, {NULL}};
  if (k->cfg->snakeOrder) pass = kbVar(b, b->i32, kbI32(b, 0));
  KbVar g = kbVar(b, b->i32, kbI32(b, 0));
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, tile), total));
  {
    GenTile t;
    tileInfo(k, &t, g, kbGet(b, tile), numGroups);
    body(k, &t, state);
    if (k->cfg->snakeOrder) {
      KbValue p = kbAddI(b, kbGet(b, pass), 1);
      KbValue back = kbSub(b, kbAddI(b, step, -1), first);
      KbValue odd = kbCmpI(b, KB_NE, kbAnd(b, p, kbI32(b, 1)), 0);
      kbSet(b, tile, kbAdd(b, kbMul(b, p, step), kbSelect(b, odd, back, first)));
      kbSet(b, pass, p);
    } else {
      kbSet(b, tile, kbAdd(b, kbGet(b, tile), step));
    }
  }
  kbEndWhile(b);
}

/* ---- operand roles ------------------------------------------------------------------------- */

KbValue genTensorMap(GenKernel *k, KbValue group, MlirNvfp4Tensor tensor) {
  KbBuilder *b = k->b;
  KbValue off = kbAddI(b, kbMulI(b, group, NVFP4_ABI_GROUP_TMAPS_BYTES),
                       (int64_t)tensor * NVFP4_ABI_TMAP_BYTES);
  if (!k->patchable) return kbGepDyn(b, k->table, off);
  KbValue copy = kbIntToPtr(b, kbAdd(b, k->mapCopies, kbZExt(b, off, b->i64)), b->ptr);
  return kbSelect(b, k->patchMaps, copy, kbGepDyn(b, k->table, off));
}

KbValue genTileTensorMap(GenKernel *k, GenTile *t, MlirNvfp4Tensor tensor) {
  KbBuilder *b = k->b;
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  if (cfg->spec.form != MLIR_NVFP4_FORM_CONTIGUOUS) return genTensorMap(k, t->group, tensor);
  KbValue slot = kbI32(b, (int64_t)tensor);
  if (cfg->nLadder && tensor == cfg->roleN.data)
    for (uint32_t i = 0; i < cfg->nLadder; ++i)
      slot = kbSelect(b, kbCmpI(b, KB_EQ, t->tileN, (int64_t)cfg->nAlign << i),
                      kbI32(b, NVFP4_ABI_MOE_TMAP_LADDER + i), slot);
  return genMoeTensorMap(k, slot);
}

KbValue genMoeTensorMap(GenKernel *k, KbValue slot) {
  KbBuilder *b = k->b;
  return kbGepDyn(b, k->table, kbMulI(b, slot, NVFP4_ABI_TMAP_BYTES));
}

void genRoleTensorMaps(GenKernel *k, GenTile *t, KbValue maps[4]) {
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  const MlirNvfp4Tensor tensors[4] = {cfg->roleM.data, cfg->roleN.data, cfg->roleM.scales,
                                      cfg->roleN.scales};
  for (int i = 0; i < 4; ++i) {
    maps[i] = genTileTensorMap(k, t, tensors[i]);
    nvPrefetchTensormap(k->b, maps[i]);
  }
}

void genPrefetchPrologueMaps(GenKernel *k) {
  KbBuilder *b = k->b;
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  const bool contiguous = cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  if (k->patchable) return; /* group 0's slots may hold raw addresses, not maps */
  const MlirNvfp4Tensor tensors[4] = {cfg->roleM.data, cfg->roleN.data, cfg->roleM.scales,
                                      cfg->roleN.scales};
  for (int i = 0; i < 4; ++i) {
    KbValue slot = kbI32(b, (int64_t)tensors[i]);
    nvPrefetchTensormap(b, contiguous ? genMoeTensorMap(k, slot)
                                      : genTensorMap(k, kbI32(b, 0), tensors[i]));
  }
}

KbValue genCAddress(GenKernel *k, GenTile *t, KbValue row, KbValue col) {
  KbBuilder *b = k->b;
  KbValue elem = kbAdd(b, kbMul(b, kbZExt(b, row, b->i64), kbZExt(b, t->ldc, b->i64)),
                       kbZExt(b, col, b->i64));
  return kbIntToPtr(b, kbAdd(b, t->cPtr, kbMulI(b, elem, k->cfg->cElemBytes)),
                    mlirLLVMPointerTypeGet(b->ctx, 1));
}

KbValue genRoleNRows(GenKernel *k, GenTile *t) {
  if (k->cfg->spec.ctaGroup == 1) return t->tileN;
  return kbUDiv(k->b, t->tileN, kbI32(k->b, k->cfg->spec.ctaGroup));
}
