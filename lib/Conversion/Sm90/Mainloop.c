/* Mainloop.c — the sm_90a consumer warpgroups (1 and 2; docs/kernel-sm90a.md).
 *
 * A tile is 128 weight rows (warpgroup w: rows 64 w .. 64 w + 63, the wgmma M) by the
 * group's token tile T (a multiple of 16 up to tileN, the wgmma N), K in chunks of 64.
 * Per chunk c (q = c % 4 within its 256-K stage), each warpgroup on its own:
 *   1. (q = 0) wait full[s];
 *   2. decode the chunk's weights into 16 A-fragment registers;
 *   3. (last chunk of the stage) every warp releases it: lane 0 arrives on empty[s];
 *   4. wait decodedFull[c % NB]: both warpgroups' halves of the chunk's tokens, decoded
 *      (BF16, the wgmma B layout) one chunk earlier;
 *   5. wgmma.fence, four m64nTk16 wgmmas (A registers, B descriptor 32 B apart), commit;
 *   6. while they run, decode this thread's part of chunk c + 1's tokens into buffer
 *      (c + 1) % NB, fence.proxy.async, and its warp arrives on decodedFull[(c + 1) % NB];
 *   7. wgmma.wait_group(depth): chunk c - depth has completed. The depth is 0: the next
 *      chunk's decode rewrites the same A registers (one PTX register per loop value), which
 *      PTX forbids while a wgmma reading them is in flight (docs/kernel-sm90a.md, "Hazards").
 * No barrier joins the two warpgroups: one decodes its weights while the other's wgmmas
 * run. A tile's first token chunk is decoded before its loop (not overlapped).
 * wgmma's N is an immediate: the tile body exists once per T in 16, 32, ..., tileN and the
 * tile's T selects one (the token decode is skipped by warps whose 16-row block is >= T).
 * The first wgmma of a tile ignores the accumulator (scale-d 0); after the last chunk,
 * wait_group(0) and the epilogue.
 */
#include "Sm90Kernel.h"

#include "../Nvvm.h"
#include "nvfp4-c/DescriptorsSm90.h"

#define MAX_ACC 128

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
  KbValue r0 = kbAdd(b, kbAdd(b, kbMulI(b, c->wg, 64), kbMulI(b, c->warpInWg, 16)), c->aCol);
  c->aRowByte = kbMulI(b, r0, 128);
  /* byte (r % 32) * 16 + (r / 32) * 4 + t0 of a 512-B atom (PROBLEM.md §3), r < 128 */
  KbValue r1 = kbAddI(b, r0, 8);
  c->aSf0 = kbAdd(b, kbAdd(b, kbMulI(b, kbAnd(b, r0, kbI32(b, 31)), 16),
                           kbMulI(b, kbLShr(b, r0, kbI32(b, 5)), 4)), c->aT0);
  c->aSf1 = kbAdd(b, kbAdd(b, kbMulI(b, kbAnd(b, r1, kbI32(b, 31)), 16),
                           kbMulI(b, kbLShr(b, r1, kbI32(b, 5)), 4)), c->aT0);
  /* Token rows: consumer warp cw takes 16-row block cw ^ ((cw & 1) << 2), so that the
   * first blocks (a small tile) spread over both warpgroups and all four SM sub-partitions. */
  KbValue cw = kbLShr(b, c->ct, kbI32(b, 5));
  c->tBlock = kbXor(b, cw, kbShl(b, kbAnd(b, cw, kbI32(b, 1)), kbI32(b, 2)));
  c->tRow = kbAdd(b, kbMulI(b, c->tBlock, 16), kbLShr(b, g->lane, kbI32(b, 1)));
  c->tCh = kbAnd(b, g->lane, kbI32(b, 1));
}

/* The B descriptor of decoded buffer `buf`, instruction s. */
static KbValue operandDescriptor(KbBuilder *b, KbValue addr) {
  KbValue field = kbAnd(b, kbLShr(b, addr, kbI32(b, MLIR_NVFP4_WGMMA_START_GRANULE_SHIFT)),
                        kbI32(b, MLIR_NVFP4_WGMMA_START_MASK));
  field = kbShl(b, kbZExt(b, field, b->i64), kbI64(b, MLIR_NVFP4_WGMMA_START_SHIFT));
  return kbOr(b, kbI64(b, (int64_t)mlirNvfp4WgmmaOperandDescriptor(0)), field);
}

/* Lane 0 arrives on `bar` for its warp once every lane got here: the warp barrier orders
 * the lanes' shared-memory accesses before the (release) arrive. */
static void warpArrive(GenKernel *g, KbValue bar) {
  KbBuilder *b = g->b;
  nvWarpSync(b);
  kbIf(b, kbCmpI(b, KB_EQ, g->lane, 0));
  nvMbarArrive(b, bar);
  kbEndIf(b);
}

/* This thread's part of token chunk cv (of a width-n tile) into the decoded buffer at the
 * write position, then its warp's arrival on that buffer's decodedFull. The token position
 * of the raw ring waits full[s] at a stage's first chunk and moves on after its last. Warps
 * whose 16-row block is >= n decode nothing but arrive all the same. */
static void decodeTokenChunk(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue cv, KbValue sfRow) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  KbValue q = kbAnd(b, cv, kbI32(b, 3));
  kbIf(b, kbCmpI(b, KB_EQ, q, 0));
  genPipeConsumerWait(g, &k->tokStages);
  nvWarpSync(b);
  kbEndIf(b);
  KbValue stage = genSmemAddr(g, 0, cfg->stageBytes, genPipeIndex(b, &k->tokStages));
  KbValue index = kbGet(b, k->decodedW.index);
  KbValue buf = genSmemAddr(g, cfg->sm90.decodedOffset, cfg->sm90.decodedBytes, index);
  kbIf(b, kbCmpI(b, KB_ULT, k->c.tBlock, n / 16));
  sm90DecodeTokens(k, stage, q, sfRow, buf);
  kbEndIf(b);
  nvFenceProxyAsyncShared(b); /* generic-proxy stores -> the wgmmas' async-proxy reads */
  warpArrive(g, genBarrier(g, &cfg->sm90.decodedFull, index));
  genRingAdvance(b, &k->decodedW);
  KbValue last = kbCmp(b, KB_EQ, kbAddI(b, cv, 1), t->kSteps);
  kbIf(b, kbOr(b, kbCmpI(b, KB_EQ, q, 3), last));
  genRingAdvance(b, &k->tokStages.pos);
  kbEndIf(b);
}

/* One tile with token width n (compile time). */
static void tileBody(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue sfRow) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  const uint32_t nacc = n / 2;
  KbVar acc[MAX_ACC];
  for (uint32_t i = 0; i < nacc; ++i) acc[i] = kbVar(b, b->f32, kbF32(b, 0.0));

  decodeTokenChunk(k, t, n, kbI32(b, 0), sfRow); /* the tile's first chunk, not overlapped */
  KbVar chunkVar = kbVar(b, b->i32, kbI32(b, 0));
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, chunkVar), t->kSteps));
  {
    KbValue cv = kbGet(b, chunkVar);
    KbValue q = kbAnd(b, cv, kbI32(b, 3));
    KbValue last = kbCmp(b, KB_EQ, kbAddI(b, cv, 1), t->kSteps);
    kbIf(b, kbCmpI(b, KB_EQ, q, 0));
    genPipeConsumerWait(g, &k->stages);
    nvWarpSync(b);
    kbEndIf(b);
    KbValue stage = genSmemAddr(g, 0, cfg->stageBytes, genPipeIndex(b, &k->stages));

    KbValue a[16];
    sm90DecodeWeights(k, stage, q, a);
    nvRegisterFenceValues(b, a, 16); /* every A register written before wgmma.fence */
    /* The stage's raw bytes have all been read by this warp (its tokens one chunk earlier):
     * release it after its last chunk. */
    kbIf(b, kbOr(b, kbCmpI(b, KB_EQ, q, 3), last));
    warpArrive(g, genPipeEmptyBar(g, &k->stages));
    genRingAdvance(b, &k->stages.pos);
    kbEndIf(b);

    /* Both warpgroups' halves of this chunk's tokens (decoded one chunk ago). */
    KbValue rIndex = kbGet(b, k->decodedR.index);
    genMbarWaitOn(g, &cfg->sm90.decodedFull, genBarrier(g, &cfg->sm90.decodedFull, rIndex),
                  kbGet(b, k->decodedR.phase));
    nvWarpSync(b);
    KbValue buf = genSmemAddr(g, cfg->sm90.decodedOffset, cfg->sm90.decodedBytes, rIndex);
    KbValue accv[MAX_ACC];
    for (uint32_t i = 0; i < nacc; ++i) accv[i] = kbGet(b, acc[i]);
    KbValue first = kbZExt(b, kbCmpI(b, KB_NE, cv, 0), b->i32); /* scale-d of step 0 */
    nvWgmmaFence(b);
    for (uint32_t s = 0; s < 4; ++s)
      nvWgmmaBf16RegA(b, n, accv, &a[4 * s], operandDescriptor(b, kbAddI(b, buf, 32 * s)),
                      s ? kbI32(b, 1) : first);
    nvWgmmaCommitGroup(b);
    /* The next chunk's tokens (shared memory, not the A registers) while these run. */
    kbIf(b, kbCmp(b, KB_ULT, kbAddI(b, cv, 1), t->kSteps));
    decodeTokenChunk(k, t, n, kbAddI(b, cv, 1), sfRow);
    kbEndIf(b);
    nvWgmmaWaitGroup(b, cfg->sm90.mmaDepth);
    for (uint32_t i = 0; i < nacc; ++i) kbSet(b, acc[i], accv[i]);
    genRingAdvance(b, &k->decodedR);
    kbSet(b, chunkVar, kbAddI(b, cv, 1));
  }
  kbEndWhile(b);
  nvWgmmaWaitGroup(b, 0);
  KbValue accv[MAX_ACC];
  for (uint32_t i = 0; i < nacc; ++i) accv[i] = kbGet(b, acc[i]);
  nvRegisterFenceValues(b, accv, nacc); /* no use of the accumulator before the wait */
  sm90Epilogue(k, t, n, accv);
}

static void consumerTile(GenKernel *g, GenTile *t, void *state) {
  KbBuilder *b = g->b;
  Sm90Kernel *k = state;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  /* This thread's token row in the tile's scale factors: atom row (relative to the tile's
   * first), then (n % 32) * 16 + ((n % 128) / 32) * 4, then its two groups 2 ch, 2 ch + 1. */
  KbValue nAbs = kbAdd(b, t->nRow0, k->c.tRow);
  KbValue atomRow = kbSub(b, kbLShr(b, nAbs, kbI32(b, 7)), kbLShr(b, t->nRow0, kbI32(b, 7)));
  KbValue sfRow = kbAdd(b, kbMulI(b, atomRow, MLIR_NVFP4_SF_ATOM_BYTES * 4),
                        kbAdd(b, kbMulI(b, kbAnd(b, nAbs, kbI32(b, 31)), 16),
                              kbMulI(b, kbAnd(b, kbLShr(b, nAbs, kbI32(b, 5)), kbI32(b, 3)), 4)));
  sfRow = kbAdd(b, sfRow, kbMulI(b, k->c.tCh, 2));
  /* The width: ceil(T / 16) clamped to 1 .. tileN / 16, so that every tile consumes its
   * stages whatever its record says. */
  const uint32_t widths = cfg->tileN / MLIR_NVFP4_SM90_N_ALIGN;
  KbValue w = kbLShr(b, kbAddI(b, t->tileN, MLIR_NVFP4_SM90_N_ALIGN - 1), kbI32(b, 4));
  w = kbSelect(b, kbCmpI(b, KB_UGT, w, widths), kbI32(b, widths), w);
  w = kbSelect(b, kbCmpI(b, KB_EQ, w, 0), kbI32(b, 1), w);
  for (uint32_t i = 1; i <= widths; ++i) {
    kbIf(b, kbCmpI(b, KB_EQ, w, i));
    tileBody(k, t, i * MLIR_NVFP4_SM90_N_ALIGN, sfRow);
    kbEndIf(b);
  }
}

void sm90ConsumerLoop(Sm90Kernel *k) {
  GenKernel *g = &k->g;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  consumerSetup(k);
  k->stages = genPipeNew(g->b, cfg->stages, &cfg->full, &cfg->empty);
  k->tokStages = genPipeNew(g->b, cfg->stages, &cfg->full, &cfg->empty);
  k->decodedW = genRingNew(g->b, cfg->sm90.decodedBuffers);
  k->decodedR = genRingNew(g->b, cfg->sm90.decodedBuffers);
  genForEachTile(g, consumerTile, k);
  sm90EpilogueFinish(k);
}
