/* Producer.c — the TMA producer of the stage ring, written once against the operand-role
 * table (Producer.h): per tile of the schedule and 256-K stage of it, wait until the
 * consumers released the stage (empty[s]), arm full[s] with the stage's bytes and issue its
 * four boxes — the M-role tile, the N-role tile (the tile's tile_n rows for a per-group N),
 * one M-role and the N-role scale-factor atom rows. A CTA pair loads each CTA's half of both
 * roles' rows and its own M-role scale factors, and the leader multicasts the N role's
 * scale factors, which both CTAs read, to both (pairLoads); the contiguous form adds where the tile's
 * expert starts in the shared maps, and a BALANCED_N plan's (sm_90a) token tile of
 * T = 16 j rows comes through the box ladder, and the fused SwiGLU epilogue's gate and up
 * halves of B's tile (either role) as two boxes each. The targets choose the x coordinate of the
 * FP4 data (FP4 elements with 16U4 maps, bytes with UINT8 maps) and the load instruction.
 */
#include "Producer.h"

#include "../Nvvm.h"
#include "nvfp4-c/KernelABI.h"

static const char *tensorTag(MlirNvfp4Tensor t) {
  static const char *const tags[] = {"a", "b", "sfa", "sfb", "c"};
  return tags[t];
}

/* The weights (B, SFB) stream through once: evict first; the tokens are re-read by every
 * weight tile of their group: evict last. */
static int64_t cacheHint(MlirNvfp4Tensor t) {
  return t == MLIR_NVFP4_TENSOR_B || t == MLIR_NVFP4_TENSOR_SFB ? NV_L2_EVICT_FIRST
                                                                 : NV_L2_EVICT_LAST;
}

/* The contiguous form's N-role box of a stage in a BALANCED_N plan: the expert's T = 16 j
 * rows from `row` of the shared A map, as the tile_n box when T is tile_n, else as one box
 * per set bit i of j from ladder map i (16 x 2^i rows, KernelABI.h), placed 16 (j mod 2^i)
 * rows into the stage (a multiple of 8 rows: the 128-byte swizzle pattern stays the one-box
 * layout). */
static void loadTokensLadder(GenKernel *g, GenTile *t, const GenProducerStyle *style,
                             KbValue dst, KbValue full, KbValue x, KbValue row, KbValue hint,
                             const char *tag) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  KbValue whole = kbCmpI(b, KB_EQ, t->tileN, cfg->tileN);
  kbIf(b, whole);
  style->load(b, genSharedPtr(g, dst), genMoeTensorMap(g, kbI32(b, NVFP4_ABI_MOE_TMAP_A)), full,
              x, row, hint, tag);
  kbElse(b);
  KbValue j = kbUDiv(b, t->tileN, kbI32(b, cfg->nAlign));
  for (uint32_t i = 0; i < cfg->nLadder; ++i) {
    kbIf(b, kbCmpI(b, KB_NE, kbAnd(b, j, kbI32(b, 1u << i)), 0));
    KbValue below = kbMulI(b, kbAnd(b, j, kbI32(b, (1u << i) - 1u)), cfg->nAlign); /* rows */
    style->load(b, genSharedPtr(g, kbAdd(b, dst, kbMulI(b, below, cfg->tileK / 2))),
                genMoeTensorMap(g, kbI32(b, NVFP4_ABI_MOE_TMAP_LADDER + i)), full, x,
                kbAdd(b, row, below), hint, tag);
    kbEndIf(b);
  }
  kbEndIf(b);
}

/* The fused SwiGLU + NVFP4 epilogue (spec.swiglu): B's role of the tile (sm_100a AB: the
 * N role, 256 rows; sm_90a swap-AB: the M role, 128 rows) from its first row r0 are gate
 * rows n0 .. and up rows I + n0 .. of B (n0 = r0 / 2, I = N / 2), loaded as two boxes of
 * half the rows into the two halves of the stage's B part, and their scale factors as the
 * matching atom rows n0 / 128 and (I + n0) / 128 — and, for an sm_100a kernel that allows
 * I % 128 == 64 (swigluMidAtom: the up half may start 64 rows into its atom), the next one
 * too — one per atom-row slot of its SFB part (the sm_90a consumers find their rows' place
 * in the two slots). rows[h]: half h's first map row; atoms[a]: the a-th atom row. */
static void fusedHalves(GenKernel *g, GenTile *t, KbValue rows[2], KbValue atoms[3]) {
  KbBuilder *b = g->b;
  const bool onM = g->cfg->roleM.data == MLIR_NVFP4_TENSOR_B;
  KbValue n0 = kbUDiv(b, onM ? t->mRow0 : t->nRow0, kbI32(b, 2));
  KbValue up = kbAdd(b, kbUDiv(b, t->n, kbI32(b, 2)), n0);
  KbValue atom = kbI32(b, MLIR_NVFP4_SF_ATOM_ROWS);
  KbValue base = onM ? t->mBase : t->nBase, sfBase = onM ? t->sfmBase : t->sfnBase;
  rows[0] = genAddBase(b, base, n0);
  rows[1] = genAddBase(b, base, up);
  atoms[0] = genAddBase(b, sfBase, kbUDiv(b, n0, atom));
  atoms[1] = genAddBase(b, sfBase, kbUDiv(b, up, atom));
  atoms[2] = g->cfg->spec.swigluMidAtom ? kbAddI(b, atoms[1], 1) : (MlirValue){NULL};
}

/* The CTA pair's handoff of a stage as CUTLASS's 2-SM collective does it
 * (sm100_blockscaled_mma_warpspecialized, SM100_TMA_2SM_LOAD[_MULTICAST]): every load is
 * .cta_group::2 and completes on the leader's full[s] (the peer bit of the barrier address
 * cleared), which only the leader arms, with both CTAs' bytes; the N role's scale factors
 * (both CTAs' Tensor Memory needs all of them) are loaded once, by the leader, and
 * multicast to both CTAs (mask 0b11), so they count twice. With spec.pairForward (sm_90a
 * builds: no .cta_group::2) each CTA arms and fills its own full[s] — the multicast
 * completing on each destination's own barrier — and the odd CTA forwards (Mainloop.c). */
typedef struct PairLoads {
  bool pair;      /* a CTA pair */
  uint32_t group; /* the loads' .cta_group: 2, or 1 with pairForward */
  KbValue leader; /* i1: this CTA is the pair's even CTA */
  KbValue mask;   /* i16 multicast mask of the N role's scale factors */
} PairLoads;

static PairLoads pairLoads(GenKernel *g) {
  KbBuilder *b = g->b;
  PairLoads p = {g->cfg->spec.ctaGroup > 1, 1, {NULL}, {NULL}};
  if (!p.pair) return p;
  p.group = g->cfg->spec.pairForward ? 1u : 2u;
  p.leader = kbCmpI(b, KB_EQ, g->ctaRank, 0);
  p.mask = kbConst(b, b->i16, 0x3);
  return p;
}

/* Arms this CTA's share of full[s] with a stage of `tx` bytes per CTA: a 2-SM pair's leader
 * both CTAs' bytes (its peer none), any other CTA its own. */
static void armStage(KbBuilder *b, const PairLoads *p, KbValue full, KbValue tx) {
  if (!p->pair || p->group == 1) {
    nvMbarArriveExpectTx(b, full, tx);
    return;
  }
  kbIf(b, p->leader);
  nvMbarArriveExpectTx(b, full, kbMulI(b, tx, 2));
  kbEndIf(b);
}

/* The barrier a pair's loads of the stage complete on (full[s], or the leader's). */
static KbValue pairBarrier(KbBuilder *b, const PairLoads *p, KbValue full) {
  return p->pair && p->group == 2 ? nvLeaderBarrier(b, full) : full;
}

/* Load i of a pair's stage (0..3: M role, N role, their scale factors) on `bar`. */
static void pairLoad(GenKernel *g, const PairLoads *p, uint32_t i, KbValue dst, KbValue map,
                     KbValue bar, KbValue x, KbValue y, KbValue hint, const char *tag) {
  KbBuilder *b = g->b;
  if (i != 3) {
    nvTmaLoad2dPair(b, dst, map, bar, x, y, hint, tag, p->group, (MlirValue){NULL});
    return;
  }
  kbIf(b, p->leader);
  nvTmaLoad2dPair(b, dst, map, bar, x, y, hint, tag, p->group, p->mask);
  kbEndIf(b);
}

void genProducerTile(GenKernel *g, GenTile *t, GenPipe *stages, const GenProducerStyle *style) {
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  const MlirNvfp4OperandRole *rm = &cfg->roleM, *rn = &cfg->roleN;
  KbValue maps[4];
  genRoleTensorMaps(g, t, maps);
  /* This CTA's rows of each role and the 128-row scale-factor atom rows holding them (a
   * CTA pair: its half of both roles, all of the N role's scale factors). */
  KbValue nRows = genRoleNRows(g, t);
  KbValue mRowRel = kbAdd(b, t->mRow0, kbMulI(b, g->ctaRank, cfg->tileM));
  KbValue rows[4];
  rows[0] = genAddBase(b, t->mBase, mRowRel);
  rows[1] = genAddBase(b, t->nBase, kbAdd(b, t->nRow0, kbMul(b, g->ctaRank, nRows)));
  KbValue atom = kbI32(b, MLIR_NVFP4_SF_ATOM_ROWS);
  rows[2] = genAddBase(b, t->sfmBase, kbUDiv(b, mRowRel, atom));
  rows[3] = genAddBase(b, t->sfnBase, kbUDiv(b, t->nRow0, atom));
  KbValue tx = kbI32(b, cfg->txBytesFixed);
  if (rn->dynamicRows) tx = kbAdd(b, tx, kbMulI(b, nRows, cfg->tileK / 2));
  const MlirNvfp4Tensor tensors[4] = {rm->data, rn->data, rm->scales, rn->scales};
  const uint32_t offsets[4] = {cfg->mOffset, cfg->nOffset, cfg->sfmOffset, cfg->sfnOffset};
  KbValue hints[4];
  for (int i = 0; i < 4; ++i) hints[i] = kbI64(b, cacheHint(tensors[i]));
  const bool ladder = cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS &&
                      (cfg->variantFlags & NVFP4_META_VFLAG_BALANCED_N);
  KbValue halves[2][3]; /* fused epilogue: [0] B rows of the two halves, [1] SFB atom rows */
  if (cfg->spec.swiglu) fusedHalves(g, t, halves[0], halves[1]);
  /* the fused epilogue's boxes of B and SFB (loads i = bRole, bRole + 2): 2 halves, and
   * the role's sfAtoms atom rows */
  const uint32_t bRole = rm->data == MLIR_NVFP4_TENSOR_B ? 0u : 1u;
  const MlirNvfp4OperandRole *rb = bRole ? rn : rm;
  const uint32_t boxes[2] = {2, rb->sfAtoms};
  const uint32_t boxBytes[2] = {(bRole ? cfg->nBytes : cfg->mBytes) / 2,
                                (bRole ? cfg->sfnBytes : cfg->sfmBytes) / rb->sfAtoms};
  const PairLoads pair = pairLoads(g); /* the planner refuses pairs with a ladder or swiglu */

  KbVar kt = kbVar(b, b->i32, t->kBegin);
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, kt), t->kEnd));
  {
    genPipeProducerAcquire(g, stages);
    KbValue full = genPipeFullBar(g, stages);
    armStage(b, &pair, full, tx);
    KbValue pairBar = pairBarrier(b, &pair, full);
    KbValue base = genSmemAddr(g, 0, cfg->stageBytes, genPipeIndex(b, stages));
    KbValue ktv = kbGet(b, kt);
    /* x of the data: FP4 elements (16U4 maps) or bytes (UINT8 maps); of the scale factors:
     * int64 elements, 64 per 512-B atom = 64 K */
    KbValue x[2];
    x[0] = kbMulI(b, ktv, style->byteCoordinates ? cfg->tileK / 2 : cfg->tileK);
    x[1] = style->byteCoordinates ? kbMulI(b, ktv, cfg->tileK) : x[0];
    for (int i = 0; i < 4; ++i) {
      KbValue dst = kbAddI(b, base, offsets[i]);
      if (pair.pair)
        pairLoad(g, &pair, (uint32_t)i, genSharedPtr(g, dst), maps[i], pairBar, x[i / 2],
                 rows[i], hints[i], tensorTag(tensors[i]));
      else if (i == 1 && ladder)
        loadTokensLadder(g, t, style, dst, full, x[0], rows[i], hints[i], tensorTag(tensors[i]));
      else if (cfg->spec.swiglu && (uint32_t)i % 2 == bRole)
        for (uint32_t h = 0; h < boxes[i / 2]; ++h)
          style->load(b, genSharedPtr(g, kbAddI(b, dst, h * boxBytes[i / 2])), maps[i], full,
                      x[i / 2], halves[i / 2][h], hints[i], tensorTag(tensors[i]));
      else
        style->load(b, genSharedPtr(g, dst), maps[i], full, x[i / 2], rows[i], hints[i],
                    tensorTag(tensors[i]));
    }
    genRingAdvance(b, &stages->pos);
    kbSet(b, kt, kbAddI(b, ktv, 1));
  }
  kbEndWhile(b);
}

typedef struct ProducerLoop {
  GenPipe stages;
  const GenProducerStyle *style;
} ProducerLoop;

static void producerTile(GenKernel *g, GenTile *t, void *state) {
  ProducerLoop *p = state;
  genProducerTile(g, t, &p->stages, p->style);
}

GenPipe genProducerLoop(GenKernel *g, const GenProducerStyle *style) {
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  ProducerLoop p = {genPipeNew(g->b, cfg->stages, &cfg->full, &cfg->empty), style};
  genForEachTile(g, producerTile, &p);
  return p.stages;
}

void genProducerLaunchDependents(GenKernel *g) {
  /* The first execution in a CTA is the CTA's (PTX ISA, griddepcontrol); a CTA that exits
   * without one counts too, so no other warp needs it. */
  nvGridDepLaunchDependents(g->b);
}
