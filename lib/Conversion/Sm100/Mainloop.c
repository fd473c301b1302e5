/* Mainloop.c — the sm_100a mainloop roles: the TMA producer (warp 4, one lane) and the
 * tcgen05 MMA issuer (warp 5, one lane), written against the operand-role table so that
 * the AB and SWAP_AB orientations share every line.
 *
 * Per 256-K stage the producer waits empty[s], arms full[s] with the stage's bytes and
 * issues four TMA boxes (M-role rows, N-role rows, their scale-factor atoms). The MMA
 * issuer waits full[s], copies the stage's scale factors into its TMEM slot
 * (tcgen05.cp.32x128b.warpx4; ordered before the MMAs that read them), issues one
 * tcgen05.mma per K block of 64 and commits empty[s] (and sfFree[slot] when the slots form
 * their own ring). A tile waits accEmpty[b] before its first MMA and commits accFull[b]
 * after its last. With the stream-K schedule a tile's stages are this CTA's share of them
 * (GenTile.kBegin / kEnd), the first MMA of the share starting the accumulator.
 *
 * The fused SwiGLU epilogue's mid-atom kernel (I % 128 == 64 allowed) replaces a K block's
 * N = 256 MMA by a gate and an up MMA of N = 128 for a tile whose up half starts inside its
 * scale-factor atom (docs/kernel-sm100a.md).
 *
 * A CTA pair (cta_group::2) runs one MMA of M = 256 over both CTAs' shared memory and
 * Tensor Memory, issued by the leader (cluster rank 0). Both CTAs' .cta_group::2 TMA loads
 * complete on the leader's full[s] (Producer.c), so the leader waits that barrier alone
 * and the peer's MMA warp has no mainloop; the leader's commits are multicast to both
 * CTAs' empty[s] and accFull[b]. With spec.pairForward (the sm_90a builds, which have no
 * .cta_group::2 TMA) each CTA's loads complete on its own full[s], the peer's MMA-warp
 * thread forwards "stage s landed" to the leader's peerFull[s] (a remote arrive) and the
 * leader waits both.
 */
#include "Sm100Kernel.h"

#include "../Generator/Producer.h"
#include "../Nvvm.h"
#include "nvfp4-c/Descriptors.h"
#include "nvfp4-c/KernelABI.h"

/* ---- warp 4: TMA producer ------------------------------------------------------------ */

void sm100ProducerLoop(Sm100Kernel *k) {
  /* the generator's producer (../Generator/Producer.h), 16U4 FP4 maps: x in elements */
  const GenProducerStyle style = {false, nvTmaLoad2d};
  GenPipe stages = genProducerLoop(&k->g, &style);
  genProducerLaunchDependents(&k->g);
  /* Every stage's last tcgen05.commit must have arrived before the CTA exits. */
  genPipeDrainEmpty(&k->g, &stages);
}

/* ---- warp 5: MMA issuer --------------------------------------------------------------- */

typedef struct MmaState {
  KbValue tmemBase;
  GenPipe stages, acc, sf;
} MmaState;

/* descriptor = constant part (the encoder at address 0) | the run-time start address. */
static KbValue smemDescriptor(KbBuilder *b, uint64_t constant, KbValue smemAddr) {
  MlirNvfp4RuntimeField f = mlirNvfp4SmemDescriptorStartField();
  KbValue field = kbAnd(b, kbLShr(b, smemAddr, kbI32(b, f.granuleShift)), kbI32(b, (int64_t)f.mask));
  field = kbShl(b, kbZExt(b, field, b->i64), kbI64(b, f.shift));
  return kbOr(b, kbI64(b, (int64_t)constant), field);
}

static KbValue instrDescriptor(GenKernel *g, GenTile *t) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  if (!cfg->roleN.dynamicRows)
    return kbI32(b, mlirNvfp4Mxf4Nvf4InstrDescriptor(cfg->mmaM, cfg->tileN));
  MlirNvfp4RuntimeField f = mlirNvfp4BlockScaledInstrDescriptorNField();
  KbValue field = kbAnd(b, kbLShr(b, t->tileN, kbI32(b, f.granuleShift)), kbI32(b, (int64_t)f.mask));
  field = kbShl(b, field, kbI32(b, f.shift));
  return kbOr(b, kbI32(b, mlirNvfp4Mxf4Nvf4InstrDescriptor(cfg->mmaM, 0)), field);
}

/* The fused SwiGLU epilogue's tile whose up half starts 64 rows into its scale-factor atom
 * (a swigluMidAtom kernel, I % 128 == 64; i1): its SFN slot holds the gate atom, then the
 * two atoms the up half spans, so gate and up are two N = 128 MMAs, the up one reading its
 * scale factors two columns (64 rows) into the first up atom. */
static KbValue upMidAtom(GenKernel *g, GenTile *t) {
  KbBuilder *b = g->b;
  KbValue up = kbAdd(b, kbUDiv(b, t->n, kbI32(b, 2)), kbUDiv(b, t->nRow0, kbI32(b, 2)));
  return kbCmpI(b, KB_NE, kbURem(b, up, kbI32(b, MLIR_NVFP4_SF_ATOM_ROWS)), 0);
}

/* The mid-atom tile's K block: gate (accumulator columns 0..127, B rows 0..127 of the stage,
 * the gate atom's scale factors) and up (columns 128..255, B rows 128..255, scale factors
 * from column 4 + 2 of the block's N-role columns). */
static void mmaMidAtom(KbBuilder *b, const MlirNvfp4KernelConfig *cfg, KbValue d, KbValue adesc,
                       uint64_t opDesc, KbValue bAddr, KbValue enable, KbValue sfmCol,
                       KbValue sfnCol) {
  const uint32_t half = MLIR_NVFP4_TILE_M;
  KbValue idesc = kbI32(b, mlirNvfp4Mxf4Nvf4InstrDescriptor(cfg->mmaM, half));
  for (uint32_t h = 0; h < 2; ++h) {
    KbValue bdesc = smemDescriptor(b, opDesc, kbAddI(b, bAddr, h * half * (MLIR_NVFP4_TILE_K / 2)));
    nvTcMmaMxf4Nvf4(b, kbAddI(b, d, h * half), adesc, bdesc, idesc, enable, sfmCol,
                    kbAddI(b, sfnCol, h ? 4 + 2 : 0), 1);
  }
}

static void mmaTile(GenKernel *g, GenTile *t, void *state) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  MmaState *st = state;
  const uint64_t opDesc = mlirNvfp4OperandSmemDescriptor(0);
  const uint64_t sfDesc = mlirNvfp4ScaleFactorCopyDescriptor(0);
  const uint32_t kBlocks = cfg->tileK / MLIR_NVFP4_MMA_K;
  const uint32_t opStep = MLIR_NVFP4_MMA_K / 2;            /* bytes of one K block per row */
  const uint32_t atomRowBytes = kBlocks * MLIR_NVFP4_SF_ATOM_BYTES; /* 4 atoms along K */
  const uint32_t sfnAtoms = cfg->roleN.sfAtoms;
  const uint32_t cg = cfg->spec.ctaGroup;
  const bool pair = cg > 1;
  const uint32_t both = pair ? 0x3u : 0u; /* commit multicast to the pair (ranks 0 and 1) */

  /* The accumulator buffer must have been drained by the epilogue(s). */
  genPipeProducerAcquire(g, &st->acc);
  nvTcFenceAfter(b);
  KbValue accIdx = genPipeIndex(b, &st->acc);
  KbValue d = kbAdd(b, st->tmemBase, kbAddI(b, kbMulI(b, accIdx, cfg->tileN), cfg->accCol0));
  KbValue idesc = instrDescriptor(g, t);
  /* Column of the tile's first N-role row inside its first scale-factor atom. */
  KbValue nRowInAtom = kbURem(b, t->nRow0, kbI32(b, MLIR_NVFP4_SF_ATOM_ROWS));
  KbValue sfnShift = kbUDiv(b, nRowInAtom, kbI32(b, 32));
  KbValue midAtom = cfg->spec.swigluMidAtom ? upMidAtom(g, t) : (MlirValue){NULL};

  /* The stages [kBegin, kEnd) of the tile: all of them, or this CTA's share of them with
   * the stream-K schedule; the share's first MMA ignores the accumulator's old value. */
  KbVar kt = kbVar(b, b->i32, t->kBegin);
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, kt), t->kEnd));
  {
    genPipeConsumerWait(g, &st->stages);
    if (cfg->spec.pairForward) /* the peer's half of the stage, forwarded */
      genMbarWait(g, genBarrier(g, &cfg->peerFull, genPipeIndex(b, &st->stages)),
                 kbGet(b, st->stages.pos.phase));
    nvTcFenceAfter(b);
    KbValue s = genPipeIndex(b, &st->stages);
    KbValue base = genSmemAddr(g, 0, cfg->stageBytes, s);
    /* Scale-factor slot: the stage itself, or the next slot of a smaller ring whose
     * previous MMAs must have completed before tcgen05.cp overwrites it. */
    KbValue slot = s;
    if (cfg->sfRing) {
      genPipeProducerAcquire(g, &st->sf);
      nvTcFenceAfter(b);
      slot = genPipeIndex(b, &st->sf);
    }
    KbValue sfmCol = kbAdd(b, st->tmemBase,
                           kbAddI(b, kbMulI(b, slot, cfg->sfColsPerSlot), cfg->sfCol0));
    KbValue sfnCol = kbAddI(b, sfmCol, cfg->sfmColsPerSlot);
    KbValue ktv = kbGet(b, kt);
    /* K blocks left from this stage on (>= 1; the absolute stage: a ragged last K block
     * is the last stage's whoever's share it is in) */
    KbValue remaining = kbSub(b, t->kSteps, kbMulI(b, ktv, kBlocks));
    for (uint32_t j = 0; j < kBlocks; ++j) {
      kbIf(b, kbCmpI(b, KB_UGT, remaining, j));
      /* K block j's scale factors: the M-role atom -> 4 columns; each N-role atom row ->
       * 4 more columns (the N role's rows r live in column r / 32). */
      nvTcCp32x128bWarpx4(
          b, kbAddI(b, sfmCol, 4 * j),
          smemDescriptor(b, sfDesc, kbAddI(b, base, cfg->sfmOffset + MLIR_NVFP4_SF_ATOM_BYTES * j)),
          cg);
      for (uint32_t a = 0; a < sfnAtoms; ++a)
        nvTcCp32x128bWarpx4(
            b, kbAddI(b, sfnCol, 4 * sfnAtoms * j + 4 * a),
            smemDescriptor(b, sfDesc, kbAddI(b, base, cfg->sfnOffset + atomRowBytes * a +
                                                         MLIR_NVFP4_SF_ATOM_BYTES * j)),
            cg);
      KbValue adesc = smemDescriptor(b, opDesc, kbAddI(b, base, cfg->mOffset + opStep * j));
      KbValue bdesc = smemDescriptor(b, opDesc, kbAddI(b, base, cfg->nOffset + opStep * j));
      KbValue enable = j ? kbBool(b, true) : kbCmp(b, KB_NE, ktv, t->kBegin);
      if (!mlirValueIsNull(midAtom)) {
        kbIf(b, midAtom);
        mmaMidAtom(b, cfg, d, adesc, opDesc, kbAddI(b, base, cfg->nOffset + opStep * j), enable,
                   kbAddI(b, sfmCol, 4 * j), kbAddI(b, sfnCol, 4 * sfnAtoms * j));
        kbElse(b);
      }
      nvTcMmaMxf4Nvf4(b, d, adesc, bdesc, idesc, enable, kbAddI(b, sfmCol, 4 * j),
                      kbAdd(b, kbAddI(b, sfnCol, 4 * sfnAtoms * j), sfnShift), cg);
      if (!mlirValueIsNull(midAtom)) kbEndIf(b);
      kbEndIf(b);
    }
    /* The stage (and its scale-factor slot) is free once these MMAs have completed. */
    nvTcCommit(b, genPipeEmptyBar(g, &st->stages), cg, both);
    if (cfg->sfRing) {
      nvTcCommit(b, genPipeEmptyBar(g, &st->sf), cg, 0);
      genRingAdvance(b, &st->sf.pos);
    }
    genRingAdvance(b, &st->stages.pos);
    kbSet(b, kt, kbAddI(b, ktv, 1));
  }
  kbEndWhile(b);
  /* The accumulator is complete once every MMA of the tile has completed. */
  nvTcCommit(b, genPipeFullBar(g, &st->acc), cg, both);
  genRingAdvance(b, &st->acc.pos);
}

/* The peer of a pairForward CTA pair: forwards each of its stages' arrival to the leader. */
static void forwardTile(GenKernel *g, GenTile *t, void *state) {
  KbBuilder *b = g->b;
  GenPipe *stages = state;
  KbVar kt = kbVar(b, b->i32, kbI32(b, 0));
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, kt), t->kIters));
  {
    genPipeConsumerWait(g, stages);
    KbValue peerFull = genBarrier(g, &g->cfg->peerFull, genPipeIndex(b, stages));
    nvMbarArriveCluster(b, nvMapa(b, peerFull, kbI32(b, 0)));
    genRingAdvance(b, &stages->pos);
    kbSet(b, kt, kbAddI(b, kbGet(b, kt), 1));
  }
  kbEndWhile(b);
}

void sm100MmaLoop(Sm100Kernel *k) {
  GenKernel *g = &k->g;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  if (cfg->spec.ctaGroup > 1) {
    /* only the leader issues; a pairForward peer forwards its stages */
    kbIf(g->b, kbCmpI(g->b, KB_NE, g->ctaRank, 0));
    if (cfg->spec.pairForward) {
      GenPipe stages = genPipeNew(g->b, cfg->stages, &cfg->full, &cfg->empty);
      genForEachTile(g, forwardTile, &stages);
    }
    kbElse(g->b);
  }
  MmaState st = {k->tmemBase, genPipeNew(g->b, cfg->stages, &cfg->full, &cfg->empty),
                 genPipeNew(g->b, cfg->accBuffers, &cfg->accFull, &cfg->accEmpty),
                 genPipeNew(g->b, cfg->sfSlots, NULL, &cfg->sfFree)};
  genForEachTile(g, mmaTile, &st);
  if (cfg->sfRing) genPipeDrainEmpty(g, &st.sf);
  if (cfg->spec.ctaGroup > 1) kbEndIf(g->b);
}
