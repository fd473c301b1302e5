/* Mainloop.c — the sm_120a consumer warps (0..7; docs/kernel-sm120a.md, "Mainloop").
 *
 * Warp w owns the M-role rows 16 mBlocks (w % warpsM) .. and the N-role rows
 * 8 nBlocks (w / warpsM) .. of the tile: mBlocks x nBlocks accumulator fragments of
 * m16n8 (4 f32 registers each). Per 256-K stage s of the tile:
 *   1. wait full[s];
 *   2. the stage's scale registers: A 2 per m16 block, B 1 per n8 block, each lane the
 *      32-bit word of one row and one 64-K step (mlirNvfp4Sm120ScaleSourceA / B);
 *   3. per 64-K step q (4, fewer in a partial last stage): ldmatrix.x4 of the A fragment of
 *      each m16 block, then per n16 pair one ldmatrix.x4 of two B fragments and the
 *      mma.sync of each (m16, n8) block, scale registers chosen with thread-id-a q % 2 and
 *      thread-id-b q (mlirNvfp4Sm120ScaleSlotA / B), byte-id 0;
 *   4. the warp arrives on empty[s] (lane 0, after a warp barrier: every lane's ldmatrix of
 *      the stage is done).
 * A swap-AB tile's token count (tileN of the tile, a multiple of 16) skips the n16 pairs
 * past it: neither loaded nor multiplied nor stored. After the last stage, the epilogue.
 */
#include "Sm120Kernel.h"

#include "../Nvvm.h"
#include "nvfp4-c/DescriptorsSm120.h"

static void consumerSetup(Sm120Kernel *k) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4Sm120Plan *p = &g->cfg->sm120;
  Sm120Consumer *c = &k->c;
  KbValue lane = g->lane;
  c->wm = kbURem(b, g->warp, kbI32(b, p->warpsM));
  c->wn = kbUDiv(b, g->warp, kbI32(b, p->warpsM));
  c->mRow0 = kbMulI(b, c->wm, 16 * p->mBlocks);
  /* (the fused epilogue's warp: tileN / 4 gate rows and the matching up rows) */
  c->nRow0 = kbMulI(b, c->wn, g->cfg->spec.swiglu ? g->cfg->tileN / 4 : 8 * p->nBlocks);
  /* A (mlirNvfp4Sm120LdmatrixRowA): row lane % 16, half (lane / 16) % 2. The 16-byte chunk
   * 2 q + half of row r lies at chunk (2 q + half) ^ (r % 8) = (2 q ^ (r % 8 & 6)) +
   * (half ^ r % 2): the rows of a block start at a multiple of 8, so r % 8 = row % 8. */
  KbValue rowA = kbAnd(b, lane, kbI32(b, 15));
  KbValue halfA = kbAnd(b, kbLShr(b, lane, kbI32(b, 4)), kbI32(b, 1));
  c->aLane = kbAdd(b, kbMulI(b, kbAdd(b, c->mRow0, rowA), 128),
                   kbMulI(b, kbXor(b, halfA, kbAnd(b, rowA, kbI32(b, 1))), 16));
  c->aXor = kbMulI(b, kbAnd(b, rowA, kbI32(b, 6)), 16);
  /* B (mlirNvfp4Sm120LdmatrixRowB): row lane % 8 + 8 ((lane / 16) % 2), half (lane / 8) % 2 */
  KbValue rowB = kbAdd(b, kbAnd(b, lane, kbI32(b, 7)),
                       kbMulI(b, kbAnd(b, kbLShr(b, lane, kbI32(b, 4)), kbI32(b, 1)), 8));
  KbValue halfB = kbAnd(b, kbLShr(b, lane, kbI32(b, 3)), kbI32(b, 1));
  c->bLane = kbAdd(b, kbMulI(b, kbAdd(b, c->nRow0, rowB), 128),
                   kbMulI(b, kbXor(b, halfB, kbAnd(b, rowB, kbI32(b, 1))), 16));
  c->bXor = kbMulI(b, kbAnd(b, rowB, kbI32(b, 6)), 16);
  /* A scale register 2 mb + u (mlirNvfp4Sm120ScaleSourceA): row lane / 4 + 8 (lane % 2) of
   * block mb, step 2 u + (lane / 2) % 2; its word (mlirNvfp4Sm120ScaleWord) in the M-role
   * atom row (the tile starts on an atom: the row in the atom is the row in the tile) */
  c->g = kbLShr(b, lane, kbI32(b, 2));
  c->t = kbAnd(b, lane, kbI32(b, 3));
  KbValue rowS = kbAdd(b, c->g, kbMulI(b, kbAnd(b, lane, kbI32(b, 1)), 8));
  KbValue pair = kbAnd(b, kbLShr(b, lane, kbI32(b, 1)), kbI32(b, 1));
  for (uint32_t mb = 0; mb < p->mBlocks; ++mb) {
    KbValue row = kbAdd(b, kbAddI(b, c->mRow0, 16 * mb), rowS);
    KbValue inAtom = kbAdd(b, kbMulI(b, kbAnd(b, row, kbI32(b, 31)), 16),
                           kbMulI(b, kbAnd(b, kbLShr(b, row, kbI32(b, 5)), kbI32(b, 3)), 4));
    for (uint32_t u = 0; u < 2; ++u)
      c->sfaWord[2 * mb + u] = kbAdd(b, inAtom, kbMulI(b, kbAddI(b, pair, 2 * u), 512));
  }
  /* B scale register nb (mlirNvfp4Sm120ScaleSourceB): column lane / 4, step lane % 4 */
  c->sfbCol = c->g;
  c->sfbStep = c->t;
}

uint32_t sm120BlockRow(const MlirNvfp4KernelConfig *cfg, uint32_t nb) {
  if (!cfg->spec.swiglu) return 8 * nb;
  const uint32_t half = cfg->sm120.nBlocks / 2;
  return 8 * (nb % half) + (nb / half) * (cfg->tileN / 2);
}

KbValue sm120PairValid(Sm120Kernel *k, GenTile *t, uint32_t p) {
  KbBuilder *b = k->g.b;
  if (!k->g.cfg->roleN.dynamicRows) return kbBool(b, true);
  return kbCmp(b, KB_ULT, kbAddI(b, k->c.nRow0, 16 * p), t->tileN);
}

typedef struct TileState {
  Sm120Kernel *k;
  GenTile *t;
  GenPipe stages;
  KbVar acc[SM120_MAX_MB][SM120_MAX_NB][4];
  KbValue sfbWord[SM120_MAX_NB]; /* this lane's B scale word of block nb in the atom row */
  KbValue pairValid[SM120_MAX_NB / 2];
  KbValue sfa[2 * SM120_MAX_MB], sfb[SM120_MAX_NB]; /* the stage's scale registers */
  KbValue base;                                     /* the stage's shared address */
} TileState;

/* The byte of row n (n < 128) in its 512-byte atom (mlirNvfp4Sm120ScaleWord). */
static KbValue rowInAtom(KbBuilder *b, KbValue n) {
  return kbAdd(b, kbMulI(b, kbAnd(b, n, kbI32(b, 31)), 16),
               kbMulI(b, kbAnd(b, kbLShr(b, n, kbI32(b, 5)), kbI32(b, 3)), 4));
}

/* The fused epilogue's B scale words: the stage's first SFN atom row holds the gate half's
 * rows, which start n0 % 128 rows into it (n0 = nRow0 / 2, the tile's first feature), the
 * second atom row the up half's, from (I + n0) % 128 (I = N / 2); a half (tile_n / 2 rows
 * at a multiple of tile_n / 2, I a multiple of 64) never crosses an atom row. */
static void fusedScaleWords(TileState *s, KbValue step) {
  Sm120Kernel *k = s->k;
  KbBuilder *b = k->g.b;
  const MlirNvfp4KernelConfig *cfg = k->g.cfg;
  KbValue n0 = kbLShr(b, s->t->nRow0, kbI32(b, 1));
  KbValue start[2] = {n0, kbAdd(b, kbLShr(b, s->t->n, kbI32(b, 1)), n0)};
  KbValue first[2];
  for (uint32_t h = 0; h < 2; ++h)
    first[h] = kbAdd(b, kbAdd(b, kbAnd(b, start[h], kbI32(b, MLIR_NVFP4_SF_ATOM_ROWS - 1)),
                              k->c.nRow0),
                     k->c.sfbCol);
  const uint32_t half = cfg->sm120.nBlocks / 2;
  for (uint32_t nb = 0; nb < cfg->sm120.nBlocks; ++nb) {
    KbValue inAtom = rowInAtom(b, kbAddI(b, first[nb / half], 8 * (nb % half)));
    s->sfbWord[nb] = kbAddI(b, kbAdd(b, inAtom, step), (nb / half) * cfg->sfmBytes);
  }
}

/* The B scale words of tile t (mlirNvfp4Sm120ScaleWord): the N role's rows start
 * nRow0 % 128 rows into their atom row (tiles of tile_n rows never cross one). */
static void tileScaleWords(TileState *s) {
  Sm120Kernel *k = s->k;
  KbBuilder *b = k->g.b;
  if (k->g.cfg->spec.swiglu) {
    fusedScaleWords(s, kbMulI(b, k->c.sfbStep, MLIR_NVFP4_SF_ATOM_BYTES));
    return;
  }
  KbValue first = kbAdd(b, kbAdd(b, kbAnd(b, s->t->nRow0, kbI32(b, MLIR_NVFP4_SF_ATOM_ROWS - 1)),
                                 k->c.nRow0),
                        k->c.sfbCol);
  KbValue step = kbMulI(b, k->c.sfbStep, MLIR_NVFP4_SF_ATOM_BYTES);
  for (uint32_t nb = 0; nb < k->g.cfg->sm120.nBlocks; ++nb)
    s->sfbWord[nb] = kbAdd(b, rowInAtom(b, kbAddI(b, first, 8 * nb)), step);
}

/* Step 2: the stage's scale registers. */
static void loadScales(TileState *s) {
  GenKernel *g = &s->k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  KbValue sfm = kbAddI(b, s->base, cfg->sfmOffset), sfn = kbAddI(b, s->base, cfg->sfnOffset);
  for (uint32_t r = 0; r < 2 * cfg->sm120.mBlocks; ++r)
    s->sfa[r] = kbLoad(b, b->i32, genSharedPtr(g, kbAdd(b, sfm, s->k->c.sfaWord[r])), 4);
  for (uint32_t nb = 0; nb < cfg->sm120.nBlocks; ++nb)
    s->sfb[nb] = kbLoad(b, b->i32, genSharedPtr(g, kbAdd(b, sfn, s->sfbWord[nb])), 4);
}

/* Step 3 for 64-K step q of the stage. */
static void mmaStep(TileState *s, uint32_t q) {
  Sm120Kernel *k = s->k;
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  const MlirNvfp4Sm120Plan *p = &cfg->sm120;
  KbValue a[SM120_MAX_MB][4];
  KbValue aBase = kbAdd(b, kbAddI(b, s->base, cfg->mOffset), k->c.aLane);
  KbValue aChunk = kbXor(b, k->c.aXor, kbI32(b, 32 * q));
  for (uint32_t mb = 0; mb < p->mBlocks; ++mb)
    nvLdMatrixX4(b, genSharedPtr(g, kbAdd(b, kbAddI(b, aBase, 16 * 128 * mb), aChunk)), a[mb]);
  KbValue bBase = kbAdd(b, kbAddI(b, s->base, cfg->nOffset), k->c.bLane);
  KbValue bChunk = kbXor(b, k->c.bXor, kbI32(b, 32 * q));
  for (uint32_t pr = 0; pr < p->nBlocks / 2; ++pr) {
    const bool dynamic = cfg->roleN.dynamicRows;
    if (dynamic) kbIf(b, s->pairValid[pr]);
    KbValue bb[4];
    nvLdMatrixX4(b, genSharedPtr(g, kbAdd(b, kbAddI(b, bBase, 128 * sm120BlockRow(cfg, 2 * pr)), bChunk)),
                 bb);
    for (uint32_t h = 0; h < 2; ++h) {
      const uint32_t nb = 2 * pr + h;
      const MlirNvfp4Sm120ScaleSlot sb = mlirNvfp4Sm120ScaleSlotB(nb, q);
      for (uint32_t mb = 0; mb < p->mBlocks; ++mb) {
        const MlirNvfp4Sm120ScaleSlot sa = mlirNvfp4Sm120ScaleSlotA(mb, q);
        KbValue acc[4];
        for (int i = 0; i < 4; ++i) acc[i] = kbGet(b, s->acc[mb][nb][i]);
        nvMmaMxf4Nvf4(b, acc, a[mb], &bb[2 * h], s->sfa[sa.reg], sa.tid, s->sfb[sb.reg], sb.tid);
        for (int i = 0; i < 4; ++i) kbSet(b, s->acc[mb][nb][i], acc[i]);
      }
    }
    if (dynamic) kbEndIf(b);
  }
}

/* One 256-K stage: steps 1-4. */
static void consumerStage(TileState *s, KbValue kt) {
  GenKernel *g = &s->k->g;
  KbBuilder *b = g->b;
  genPipeConsumerWait(g, &s->stages);
  nvWarpSync(b); /* ldmatrix and mma.sync are .aligned: reconverge after the spin */
  s->base = genSmemAddr(g, 0, g->cfg->stageBytes, genPipeIndex(b, &s->stages));
  loadScales(s);
  mmaStep(s, 0); /* a stage holds at least one 64-K step */
  KbValue step0 = kbMulI(b, kt, MLIR_NVFP4_TILE_K / MLIR_NVFP4_MMA_K);
  for (uint32_t q = 1; q < 4; ++q) { /* a partial last stage stops early */
    kbIf(b, kbCmp(b, KB_ULT, kbAddI(b, step0, q), s->t->kStepEnd));
    mmaStep(s, q);
  }
  for (uint32_t q = 1; q < 4; ++q) kbEndIf(b);
  nvWarpSync(b);
  kbIf(b, kbCmpI(b, KB_EQ, g->lane, 0));
  nvMbarArrive(b, genPipeEmptyBar(g, &s->stages));
  kbEndIf(b);
  genRingAdvance(b, &s->stages.pos);
}

static void consumerTile(GenKernel *g, GenTile *t, void *state) {
  TileState *s = state;
  KbBuilder *b = g->b;
  const MlirNvfp4Sm120Plan *p = &g->cfg->sm120;
  s->t = t;
  for (uint32_t mb = 0; mb < p->mBlocks; ++mb)
    for (uint32_t nb = 0; nb < p->nBlocks; ++nb)
      for (int i = 0; i < 4; ++i) s->acc[mb][nb][i] = kbVar(b, b->f32, kbF32(b, 0.0));
  tileScaleWords(s);
  for (uint32_t pr = 0; pr < p->nBlocks / 2; ++pr) s->pairValid[pr] = sm120PairValid(s->k, t, pr);
  KbVar kt = kbVar(b, b->i32, t->kBegin);
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, kt), t->kEnd));
  {
    KbValue ktv = kbGet(b, kt);
    consumerStage(s, ktv);
    kbSet(b, kt, kbAddI(b, ktv, 1));
  }
  kbEndWhile(b);
  KbValue acc[SM120_MAX_MB][SM120_MAX_NB][4];
  for (uint32_t mb = 0; mb < p->mBlocks; ++mb)
    for (uint32_t nb = 0; nb < p->nBlocks; ++nb)
      for (int i = 0; i < 4; ++i) acc[mb][nb][i] = kbGet(b, s->acc[mb][nb][i]);
  sm120Epilogue(s->k, t, acc);
}

void sm120ConsumerLoop(Sm120Kernel *k) {
  GenKernel *g = &k->g;
  consumerSetup(k);
  TileState s = {.k = k, .stages = genPipeNew(g->b, g->cfg->stages, &g->cfg->full, &g->cfg->empty)};
  genForEachTile(g, consumerTile, &s);
}
