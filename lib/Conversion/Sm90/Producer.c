/* Producer.c — the sm_90a TMA producer (warpgroup 0, thread 0): for every tile of the
 * persistent schedule and every 256-K stage of it (the CTA's share of a tile with the
 * stream-K schedule), waits until the consumers released the stage
 * (empty[s]), arms full[s] with the stage's bytes and issues its four boxes: the weight
 * tile (the M role, B: 128 rows), the token tile (the N role, A: the group's tile_n rows),
 * and both scale-factor boxes (one atom row for the weights, two for the tokens, whose tile
 * may straddle a 128-row atom). FP4 bytes go through UINT8 tensor maps (Hopper has no 16U4
 * maps): x is a byte offset along K, 128 per stage; the scale maps count int64 elements,
 * 256 per stage (KernelABI.h). The contiguous form (nvfp4.moe_matmul) reads the shared
 * maps of the parameter block from the expert's first rows, its token tile through the box
 * ladder.
 */
#include "Sm90Kernel.h"

#include "../Nvvm.h"
#include "nvfp4-c/KernelABI.h"

/* The contiguous form's token box of a stage: the expert's T = 16 j rows from `row` of the
 * shared A map, as the tile_n box when T is tile_n, else as one box per set bit i of j
 * from ladder map i (16 x 2^i rows, KernelABI.h), placed 16 (j mod 2^i) rows into the
 * stage (a multiple of 8 rows: the 128-byte swizzle pattern stays the one-box layout). */
static void loadTokensLadder(GenKernel *g, GenTile *t, KbValue dst, KbValue full, KbValue x,
                             KbValue row, KbValue hint) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  KbValue whole = kbCmpI(b, KB_EQ, t->tileN, cfg->tileN);
  kbIf(b, whole);
  nvTmaLoad2d(b, genSharedPtr(g, dst), genMoeTensorMap(g, kbI32(b, NVFP4_ABI_MOE_TMAP_A)), full,
              x, row, hint, "a");
  kbElse(b);
  KbValue j = kbUDiv(b, t->tileN, kbI32(b, cfg->nAlign));
  for (uint32_t i = 0; i < cfg->nLadder; ++i) {
    kbIf(b, kbCmpI(b, KB_NE, kbAnd(b, j, kbI32(b, 1u << i)), 0));
    KbValue below = kbMulI(b, kbAnd(b, j, kbI32(b, (1u << i) - 1u)), cfg->nAlign); /* rows */
    nvTmaLoad2d(b, genSharedPtr(g, kbAdd(b, dst, kbMulI(b, below, cfg->tileK / 2))),
                genMoeTensorMap(g, kbI32(b, NVFP4_ABI_MOE_TMAP_LADDER + i)), full, x,
                kbAdd(b, row, below), hint, "a");
    kbEndIf(b);
  }
  kbEndIf(b);
}

static void producerTile(GenKernel *g, GenTile *t, void *state) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  GenPipe *stages = state;
  const MlirNvfp4OperandRole *rm = &cfg->roleM, *rn = &cfg->roleN;
  KbValue maps[4];
  genRoleTensorMaps(g, t, maps);
  KbValue mapM = maps[0], mapN = maps[1], mapSfm = maps[2], mapSfn = maps[3];

  /* The contiguous form adds where the tile's expert starts in the shared maps. */
  KbValue atom = kbI32(b, MLIR_NVFP4_SF_ATOM_ROWS);
  KbValue sfmRow = genAddBase(b, t->sfmBase, kbUDiv(b, t->mRow0, atom));
  KbValue sfnRow = genAddBase(b, t->sfnBase, kbUDiv(b, t->nRow0, atom));
  KbValue mRow = genAddBase(b, t->mBase, t->mRow0), nRow = genAddBase(b, t->nBase, t->nRow0);
  const bool ladder = cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
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
    nvTmaLoad2d(b, genSharedPtr(g, kbAddI(b, base, cfg->mOffset)), mapM, full, xBytes, mRow,
                hintM, "b");
    if (ladder)
      loadTokensLadder(g, t, kbAddI(b, base, cfg->nOffset), full, xBytes, nRow, hintN);
    else
      nvTmaLoad2d(b, genSharedPtr(g, kbAddI(b, base, cfg->nOffset)), mapN, full, xBytes, nRow,
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
  /* Every load of this CTA has been issued: the dependent grid may be scheduled (its
   * prologue overlaps this CTA's last stages and epilogue; its griddepcontrol.wait still
   * waits for this grid to complete). The first execution in a CTA is the CTA's; no other
   * thread executes it. */
  nvGridDepLaunchDependents(g->b);
}
