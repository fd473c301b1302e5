/* Mainloop.c — the sm_90a consumer warpgroups (1 and 2, or 1..3 for 192-weight tiles;
 * docs/kernel-sm90a.md).
 *
 * A tile is 128 or 192 weight rows (warpgroup w: rows 64 w .. 64 w + 63, the wgmma M) by the
 * group's token tile T (a multiple of 16 up to tileN, the wgmma N), K in chunks of 64.
 * Per chunk c (q = c % 4 within its 256-K stage), each warpgroup on its own:
 *   1. (q = 0) wait full[s];
 *   2. decode the chunk's weights into 16 A-fragment registers;
 *   3. (last chunk of the stage) every warp releases it: lane 0 arrives on empty[s];
 *   4. wait decodedFull[c % NB]: the token decoders (TokenDecoder.c) have written the chunk's
 *      tokens (BF16, the wgmma B layout);
 *   5. wgmma.fence, four m64nTk16 wgmmas (A registers, B descriptor 32 B apart), commit;
 *   6. wgmma.wait_group(depth): chunk c - depth has completed; every warp arrives on
 *      decodedEmpty[c % NB]. The depth is 0: the next chunk's decode rewrites the same A
 *      registers (one PTX register per loop value), which PTX forbids while a wgmma reading
 *      them is in flight (docs/kernel-sm90a.md, "Hazards").
 * No barrier joins two consumer warpgroups: one decodes its weights while another's wgmmas
 * run. wgmma's N is an immediate: the tile body exists once per T in 16, 32, ..., tileN and
 * the tile's T selects one (sm90RunTiles). The first wgmma of a tile ignores the
 * accumulator (scale-d 0); after the last chunk, the epilogue.
 */
#include "Sm90Kernel.h"

#include "../Nvvm.h"
#include "nvfp4-c/DescriptorsSm90.h"

#define MAX_ACC 128

/* The byte of stage row `r` (from the first atom row the stage holds; group t0) in the
 * stage's weight scale factors: atom row r / 128 (4 x 512 B each), then byte (r % 32) * 16 +
 * ((r % 128) / 32) * 4 + t0 of its 512-B atom (docs/format.md, "The blocked scale-factor
 * layout"). */
static KbValue weightScaleByte(Sm90Kernel *k, KbValue r) {
  KbBuilder *b = k->g.b;
  KbValue atom = kbMulI(b, kbLShr(b, r, kbI32(b, 7)), MLIR_NVFP4_SF_ATOM_BYTES * 4);
  KbValue inAtom = kbAdd(b, kbMulI(b, kbAnd(b, r, kbI32(b, 31)), 16),
                         kbMulI(b, kbAnd(b, kbLShr(b, r, kbI32(b, 5)), kbI32(b, 3)), 4));
  return kbAdd(b, kbAdd(b, atom, inAtom), k->c.aT0);
}

static void consumerSetup(Sm90Kernel *k) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  Sm90Consumer *c = &k->c;
  c->ct = kbSub(b, g->tid, kbI32(b, 128));
  c->wg = kbLShr(b, c->ct, kbI32(b, 7));
  c->wt = kbAnd(b, c->ct, kbI32(b, 127));
  c->warpInWg = kbLShr(b, c->wt, kbI32(b, 5));
  c->aT0 = kbAnd(b, g->lane, kbI32(b, 3));
  c->aCol = kbLShr(b, g->lane, kbI32(b, 2));
  c->aRow0 = kbAdd(b, kbAdd(b, kbMulI(b, c->wg, 64), kbMulI(b, c->warpInWg, 16)), c->aCol);
  KbValue chunk0 = kbXor(b, kbLShr(b, c->aT0, kbI32(b, 1)), c->aCol);
  c->aLaneByte = kbAdd(b, kbAdd(b, kbMulI(b, c->aRow0, 128), kbMulI(b, chunk0, 16)),
                       kbMulI(b, kbAnd(b, c->aT0, kbI32(b, 1)), 8));
  KbValue buf0 = kbAddI(b, g->smem, g->cfg->sm90.decodedOffset);
  KbValue field = kbAnd(b, kbLShr(b, buf0, kbI32(b, MLIR_NVFP4_WGMMA_START_GRANULE_SHIFT)),
                        kbI32(b, MLIR_NVFP4_WGMMA_START_MASK));
  c->bDescLo = kbOr(b, kbShl(b, field, kbI32(b, MLIR_NVFP4_WGMMA_START_SHIFT)),
                    kbI32(b, (int32_t)(uint32_t)mlirNvfp4WgmmaOperandDescriptor(0)));
  if (g->cfg->tileM % MLIR_NVFP4_SF_ATOM_ROWS == 0) { /* tiles start at an atom row */
    c->aSf0 = weightScaleByte(k, c->aRow0);
    c->aSf1 = weightScaleByte(k, kbAddI(b, c->aRow0, 8));
  }
}

/* The wgmma B descriptor of instruction s on decoded buffer `index`: buffer 0's low word
 * (set up once) plus the buffers' and instructions' start-address steps. The start field
 * (bits 0-13, address / 16) cannot carry: shared memory ends below 2^18 bytes. */
static KbValue operandDescriptor(Sm90Kernel *k, KbValue index, uint32_t s) {
  KbBuilder *b = k->g.b;
  const uint32_t granule = 1u << MLIR_NVFP4_WGMMA_START_GRANULE_SHIFT;
  KbValue lo = kbAdd(b, k->c.bDescLo, kbMulI(b, index, k->g.cfg->sm90.decodedBytes / granule));
  lo = kbAddI(b, lo, 32 * s / granule);
  const uint64_t fixed = mlirNvfp4WgmmaOperandDescriptor(0);
  return kbOr(b, kbI64(b, (int64_t)(fixed & 0xFFFFFFFF00000000ull)), kbZExt(b, lo, b->i64));
}

typedef struct ConsumerTile {
  uint32_t n;
  KbVar acc[MAX_ACC];
} ConsumerTile;

/* One chunk: weights decoded, stage released, wgmmas on the decoded tokens. */
static void consumerChunk(Sm90Kernel *k, GenTile *t, KbValue cv, KbValue q, void *state) {
  ConsumerTile *ct = state;
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  const uint32_t n = ct->n, nacc = n / 2;
  KbValue a[16];
  sm90DecodeWeights(k, sm90StageOfChunk(k, q), q, a);
  nvRegisterFenceValues(b, a, 16); /* every A register written before wgmma.fence */
  sm90ReleaseStage(k, t, cv, q); /* this warp has read the stage's weights */

  /* The chunk's tokens, from the decoder warpgroups. */
  KbValue index = kbGet(b, k->decoded.index);
  genMbarWaitOn(g, &cfg->sm90.decodedFull, genBarrier(g, &cfg->sm90.decodedFull, index),
                kbGet(b, k->decoded.phase));
  nvWarpSync(b);
  KbValue accv[MAX_ACC];
  for (uint32_t i = 0; i < nacc; ++i) accv[i] = kbGet(b, ct->acc[i]);
  KbValue first = kbZExt(b, kbCmp(b, KB_NE, cv, t->kStepBegin), b->i32); /* scale-d of step 0 */
  nvWgmmaFence(b);
  for (uint32_t s = 0; s < 4; ++s)
    nvWgmmaBf16RegA(b, n, accv, &a[4 * s], operandDescriptor(k, index, s),
                    s ? kbI32(b, 1) : first);
  nvWgmmaCommitGroup(b);
  nvWgmmaWaitGroup(b, cfg->sm90.mmaDepth);
  /* depth 0: this chunk's wgmmas (their reads of the buffer) are complete */
  sm90WarpArrive(g, genBarrier(g, &cfg->sm90.decodedEmpty, index));
  for (uint32_t i = 0; i < nacc; ++i) kbSet(b, ct->acc[i], accv[i]);
  genRingAdvance(b, &k->decoded);
}

/* The fused epilogue's tile (weights mRow0 .. = features n0 = mRow0 / 2 ..): warpgroup 0
 * holds gate rows n0 .., warpgroup 1 up rows I + n0 .. (the producer's two boxes), each
 * half starting at row 0 or 64 of the atom row in its own slot (wg) of the stage's weight
 * scale factors. The stage row whose scale byte row aRow0 reads. */
static KbValue fusedScaleRow(Sm90Kernel *k, GenTile *t) {
  KbBuilder *b = k->g.b;
  KbValue n0 = kbLShr(b, t->mRow0, kbI32(b, 1));
  KbValue up = kbAdd(b, kbLShr(b, t->n, kbI32(b, 1)), n0);
  KbValue start = kbSelect(b, kbCmpI(b, KB_EQ, k->c.wg, 0), n0, up);
  KbValue inAtom = kbAnd(b, start, kbI32(b, MLIR_NVFP4_SF_ATOM_ROWS - 1));
  return kbAdd(b, kbAdd(b, k->c.aRow0, kbMulI(b, k->c.wg, 64)), inAtom);
}

/* One tile with token width n (compile time). */
static void tileBody(Sm90Kernel *k, GenTile *t, uint32_t n) {
  KbBuilder *b = k->g.b;
  ConsumerTile ct = {.n = n};
  const uint32_t nacc = n / 2;
  if (k->g.cfg->tileM % MLIR_NVFP4_SF_ATOM_ROWS || k->g.cfg->spec.swiglu) {
    /* a 192-row tile starts at row 0 or 64 of its first atom row */
    KbValue r = k->g.cfg->spec.swiglu
                    ? fusedScaleRow(k, t)
                    : kbAdd(b, kbAnd(b, t->mRow0, kbI32(b, MLIR_NVFP4_SF_ATOM_ROWS - 1)),
                            k->c.aRow0);
    k->c.aSf0 = weightScaleByte(k, r);
    k->c.aSf1 = weightScaleByte(k, kbAddI(b, r, 8));
  }
  for (uint32_t i = 0; i < nacc; ++i) ct.acc[i] = kbVar(b, b->f32, kbF32(b, 0.0));
  sm90ForEachChunk(k, t, consumerChunk, &ct);
  nvWgmmaWaitGroup(b, 0);
  KbValue accv[MAX_ACC];
  for (uint32_t i = 0; i < nacc; ++i) accv[i] = kbGet(b, ct.acc[i]);
  nvRegisterFenceValues(b, accv, nacc); /* no use of the accumulator before the wait */
  if (k->g.cfg->streamK) sm90StreamKEpilogue(k, t, n, accv);
  else if (k->g.cfg->spec.swiglu) sm90FusedEpilogue(k, t, n, accv);
  else sm90Epilogue(k, t, n, accv);
}

void sm90ConsumerLoop(Sm90Kernel *k) {
  consumerSetup(k);
  kbIf(k->g.b, kbCmpI(k->g.b, KB_EQ, k->c.wt, 0)); /* the warpgroup's TMA-store thread */
  genAcquireTensorMaps(&k->g, 1u << MLIR_NVFP4_TENSOR_C);
  kbEndIf(k->g.b);
  sm90RunTiles(k, tileBody);
  sm90EpilogueFinish(k);
}
