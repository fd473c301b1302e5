/* Producer.c — the sm_90a TMA producer (warpgroup 0, thread 0): for every tile of the
 * persistent schedule and every 256-K stage of it (the CTA's share of a tile with the
 * stream-K schedule), waits until the consumers released the stage
 * (empty[s]), arms full[s] with the stage's bytes and issues its four boxes: the weight
 * tile (the M role, B: 128 rows), the token tile (the N role, A: the group's tile_n rows),
 * and both scale-factor boxes (one atom row for the weights, two for the tokens, whose tile
 * may straddle a 128-row atom). FP4 bytes go through UINT8 tensor maps (Hopper has no 16U4
 * maps): x is a byte offset along K, 128 per stage; the scale maps count int64 elements,
 * 256 per stage (KernelABI.h).
 */
#include "Sm90Kernel.h"

#include "../Nvvm.h"

static void producerTile(GenKernel *g, GenTile *t, void *state) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  GenPipe *stages = state;
  const MlirNvfp4OperandRole *rm = &cfg->roleM, *rn = &cfg->roleN;
  KbValue maps[4];
  genRoleTensorMaps(g, t, maps);
  KbValue mapM = maps[0], mapN = maps[1], mapSfm = maps[2], mapSfn = maps[3];

  KbValue atom = kbI32(b, MLIR_NVFP4_SF_ATOM_ROWS);
  KbValue sfmRow = kbUDiv(b, t->mRow0, atom);
  KbValue sfnRow = kbUDiv(b, t->nRow0, atom);
  KbValue tx = kbAdd(b, kbI32(b, cfg->txBytesFixed), kbMulI(b, genRoleNRows(g, t), cfg->tileK / 2));
  /* The weights stream through once (evict first); the tokens are re-read by every weight
   * tile of their group (evict last). */
  KbValue hintM = kbI64(b, NV_L2_EVICT_FIRST), hintN = kbI64(b, NV_L2_EVICT_LAST);

  KbVar kt = kbVar(b, b->i32, t->kBegin);
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, kt), t->kEnd));
  {
    genPipeProducerAcquire(g, stages);
    KbValue full = genPipeFullBar(g, stages);
    nvMbarArriveExpectTx(b, full, tx);
    KbValue base = genSmemAddr(g, 0, cfg->stageBytes, genPipeIndex(b, stages));
    KbValue ktv = kbGet(b, kt);
    KbValue xBytes = kbMulI(b, ktv, cfg->tileK / 2);  /* UINT8 maps: bytes along K */
    KbValue xSf = kbMulI(b, ktv, cfg->tileK);         /* int64 elements: 64 per 64 K */
    nvTmaLoad2d(b, genSharedPtr(g, kbAddI(b, base, cfg->mOffset)), mapM, full, xBytes, t->mRow0,
                hintM, "b");
    nvTmaLoad2d(b, genSharedPtr(g, kbAddI(b, base, cfg->nOffset)), mapN, full, xBytes, t->nRow0,
                hintN, "a");
    nvTmaLoad2d(b, genSharedPtr(g, kbAddI(b, base, cfg->sfmOffset)), mapSfm, full, xSf, sfmRow,
                hintM, "sfb");
    nvTmaLoad2d(b, genSharedPtr(g, kbAddI(b, base, cfg->sfnOffset)), mapSfn, full, xSf, sfnRow,
                hintN, "sfa");
    genRingAdvance(b, &stages->pos);
    kbSet(b, kt, kbAddI(b, ktv, 1));
  }
  kbEndWhile(b);
}

void sm90ProducerLoop(Sm90Kernel *k) {
  GenKernel *g = &k->g;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  GenPipe stages = genPipeNew(g->b, cfg->stages, &cfg->full, &cfg->empty);
  genForEachTile(g, producerTile, &stages);
}
