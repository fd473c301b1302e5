/* Generator.c — kernel context, mbarrier arrays, pipeline rings, the group-aware tile
 * scheduler and the operand-role helpers shared by the generated kernels (Generator.h). */
#include "Generator.h"

#include "../Nvvm.h"
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
  if (nvfp4_abi_table_inline(cfg->numGroups)) {
    k->table = kbGep(b, params, NVFP4_ABI_HEADER_BYTES);
  } else {
    KbValue addr = kbLoad(b, b->i64, kbGep(b, params, NVFP4_ABI_HDR_TABLE), 8);
    k->table = kbIntToPtr(b, addr, b->ptr);
  }
  k->ctaRank = cfg->spec.ctaGroup > 1 ? nvSreg(b, "cluster.ctarank") : kbI32(b, 0);
  k->patchable = false;
}

KbValue genParamU32(GenKernel *k, uint32_t byteOffset) {
  return kbLoad(k->b, k->b->i32, kbGep(k->b, k->params, (int32_t)byteOffset), 4);
}
KbValue genTableU32(GenKernel *k, KbValue byteOffset) {
  return kbLoad(k->b, k->b->i32, kbGepDyn(k->b, k->table, byteOffset), 4);
}
KbValue genTableU64(GenKernel *k, KbValue byteOffset) {
  return kbLoad(k->b, k->b->i64, kbGepDyn(k->b, k->table, byteOffset), 8);
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
  nvMbarWaitScoped(k->b, bar, parity, k->cfg->spec.ctaGroup > 1);
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
  genMbarWait(k, genPipeEmptyBar(k, p), kbXor(b, kbGet(b, p->pos.phase), kbI32(b, 1)));
}

void genPipeConsumerWait(GenKernel *k, GenPipe *p) {
  KbBuilder *b = k->b;
  genMbarWait(k, genPipeFullBar(k, p), kbGet(b, p->pos.phase));
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
static KbValue findGroup(GenKernel *k, KbVar g, KbValue tile, KbValue numGroups) {
  KbBuilder *b = k->b;
  uint32_t rec0 = nvfp4_abi_record_offset(k->cfg->numGroups, 0);
  kbWhile(b);
  {
    KbValue next = kbAddI(b, kbGet(b, g), 1);
    KbValue inRange = kbCmp(b, KB_ULT, next, numGroups);
    /* the start of the next group, read only when it exists (else an impossible value) */
    KbValue off = kbAddI(b, kbMulI(b, kbSelect(b, inRange, next, kbI32(b, 0)),
                                   NVFP4_ABI_GROUP_RECORD_BYTES),
                         rec0 + NVFP4_ABI_GRP_TILE_START);
    KbValue start = genTableU32(k, off);
    kbWhileDo(b, kbAnd(b, inRange, kbCmp(b, KB_ULE, start, tile)));
    kbSet(b, g, next);
  }
  kbEndWhile(b);
  return kbGet(b, g);
}

static void tileInfo(GenKernel *k, GenTile *t, KbVar g, KbValue tile, KbValue numGroups) {
  KbBuilder *b = k->b;
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  t->group = findGroup(k, g, tile, numGroups);
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
  t->kIters = kbUDiv(b, kbAddI(b, t->k, cfg->tileK - 1), kbI32(b, cfg->tileK));
  t->kSteps = kbUDiv(b, t->k, kbI32(b, MLIR_NVFP4_MMA_K));
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

void genForEachTile(GenKernel *k, GenTileBody body, void *state) {
  KbBuilder *b = k->b;
  bool pair = k->cfg->spec.ctaGroup > 1;
  KbValue total = genParamU32(k, NVFP4_ABI_HDR_TOTAL_TILES);
  KbValue numGroups = genParamU32(k, NVFP4_ABI_HDR_NUM_GROUPS);
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

void genRoleTensorMaps(GenKernel *k, KbValue group, KbValue maps[4]) {
  const MlirNvfp4KernelConfig *cfg = k->cfg;
  const MlirNvfp4Tensor tensors[4] = {cfg->roleM.data, cfg->roleN.data, cfg->roleM.scales,
                                      cfg->roleN.scales};
  for (int i = 0; i < 4; ++i) {
    maps[i] = genTensorMap(k, group, tensors[i]);
    nvPrefetchTensormap(k->b, maps[i]);
  }
}

KbValue genRoleNRows(GenKernel *k, GenTile *t) {
  if (k->cfg->spec.ctaGroup == 1) return t->tileN;
  return kbUDiv(k->b, t->tileN, kbI32(k->b, k->cfg->spec.ctaGroup));
}
