/* TokenDecoder.c — the sm_90a token decoders (warpgroups 3 and 4; one warpgroup after the
 * consumers for swap_n192 and swap_n128_m192; docs/kernel-sm90a.md).
 *
 * For every tile of the persistent schedule and every 64-K chunk c (q = c % 4 within its
 * 256-K stage), the W decoder warps (8, two per SM sub-partition for latency; 4 for
 * swap_n192 and swap_n128_m192):
 *   1. (q = 0) wait full[s];
 *   2. wait decodedEmpty[c % NB] (the consumers' wgmmas of chunk c - NB have retired);
 *   3. decode the chunk's T token rows (FP4 x E4M3 -> BF16, the wgmma B layout: Decode.c)
 *      into decoded buffer i = c % NB: 16-row block j is decoded by warp (j + i) % W, lane l
 *      taking row 16 j + l / 2, half l % 2. The rotation spreads a tile whose T / 16 is not
 *      a multiple of W over the SM sub-partitions; that it depends on the buffer alone
 *      keeps every byte of a buffer written by one thread (compute-sanitizer's racecheck
 *      does not follow the mbarrier chain that orders two decoders' writes);
 *   4. fence.proxy.async, and every warp arrives on decodedFull[c % NB];
 *   5. (last chunk of the stage) every warp arrives on empty[s]: its token bytes are read.
 * So the decoder runs up to NB chunks ahead of the wgmmas, and the consumer warpgroups
 * (Mainloop.c) only decode the weights. The tile body exists once per token width, like the
 * consumers' (sm90RunTiles), so that both see the same T.
 */
#include "Sm90Kernel.h"

#include "../Nvvm.h"

typedef struct DecoderTile {
  uint32_t n;
  KbValue dw, rowInBlock, ch;
} DecoderTile;

/* One chunk: its T token rows into the next decoded buffer. */
static void decoderChunk(Sm90Kernel *k, GenTile *t, KbValue cv, KbValue q, void *state) {
  const DecoderTile *dt = state;
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  const MlirNvfp4Sm90Plan *p = &cfg->sm90;
  const uint32_t warps = cfg->roles[MLIR_NVFP4_ROLE_DECODER].count;
  const uint32_t blocks = dt->n / 16, passes = (blocks + warps - 1) / warps;
  KbValue stage = sm90StageOfChunk(k, q);

  KbValue index = kbGet(b, k->decoded.index);
  genMbarWaitOn(g, &p->decodedEmpty, genBarrier(g, &p->decodedEmpty, index),
                kbXor(b, kbGet(b, k->decoded.phase), kbI32(b, 1)));
  nvWarpSync(b);
  KbValue buf = genSmemAddr(g, p->decodedOffset, p->decodedBytes, index);
  KbValue slot = kbAnd(b, kbSub(b, dt->dw, index), kbI32(b, warps - 1)); /* (j + i) % warps == dw */
  for (uint32_t pass = 0; pass < passes; ++pass) {
    KbValue block = kbAddI(b, slot, (int64_t)(warps * pass));
    /* a pass every warp makes needs no branch: one basic block lets ptxas interleave the
     * passes' loads and arithmetic */
    const bool every = blocks >= warps * (pass + 1);
    if (!every) kbIf(b, kbCmpI(b, KB_ULT, block, blocks));
    {
      KbValue row = kbAdd(b, kbMulI(b, block, 16), dt->rowInBlock);
      /* The row's byte in the stage's token scale factors: atom row (relative to the
       * tile's first), then (n % 32) * 16 + ((n % 128) / 32) * 4, then its two groups
       * 2 ch, 2 ch + 1. */
      KbValue nAbs = kbAdd(b, t->nRow0, row);
      KbValue atomRow = kbSub(b, kbLShr(b, nAbs, kbI32(b, 7)), kbLShr(b, t->nRow0, kbI32(b, 7)));
      KbValue sfRow = kbAdd(
          b, kbMulI(b, atomRow, MLIR_NVFP4_SF_ATOM_BYTES * 4),
          kbAdd(b, kbMulI(b, kbAnd(b, nAbs, kbI32(b, 31)), 16),
                kbMulI(b, kbAnd(b, kbLShr(b, nAbs, kbI32(b, 5)), kbI32(b, 3)), 4)));
      sfRow = kbAdd(b, sfRow, kbMulI(b, dt->ch, 2));
      sm90DecodeTokens(k, stage, q, row, dt->ch, sfRow, buf);
    }
    if (!every) kbEndIf(b);
  }
  nvFenceProxyAsyncShared(b); /* generic-proxy stores -> the wgmmas' async-proxy reads */
  sm90WarpArrive(g, genBarrier(g, &p->decodedFull, index));
  genRingAdvance(b, &k->decoded);
  sm90ReleaseStage(k, t, cv, q); /* this warp has read the stage's tokens */
}

/* One tile with token width n (compile time). */
static void decoderTileBody(Sm90Kernel *k, GenTile *t, uint32_t n) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  DecoderTile dt = {.n = n};
  /* decoder warp 0 .. warps - 1 (the plan's decoder warps) */
  dt.dw = kbSub(b, g->warp, kbI32(b, g->cfg->roles[MLIR_NVFP4_ROLE_DECODER].first));
  dt.rowInBlock = kbLShr(b, g->lane, kbI32(b, 1));
  dt.ch = kbAnd(b, g->lane, kbI32(b, 1));
  sm90ForEachChunk(k, t, decoderChunk, &dt);
}

void sm90TokenDecoderLoop(Sm90Kernel *k) { sm90RunTiles(k, decoderTileBody); }
