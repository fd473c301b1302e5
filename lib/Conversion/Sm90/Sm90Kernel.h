/* Sm90Kernel.h — the sm_90a grouped block-scaled NVFP4 kernel (swap-AB, BF16 decode +
 * wgmma), assembled from the shared generator parts (../Generator/Generator.h) and this
 * folder's emitters:
 *
 *   Kernel.c    prologue (mbarriers, the E4M3 scale table computed into shared memory), roles
 *               with setmaxnreg (warpgroup 0 TMA producer, one consumer warpgroup per
 *               64 weight rows (1-2, or 1-3 for swap_n128_m192), then the token
 *               decoders (3-4; one warpgroup for swap_n192 and swap_n128_m192));
 *   Producer.c  the TMA producer (one thread): weights, tokens and both scale factors per
 *               256-K stage, UINT8 maps for the FP4 bytes;
 *   Decode.c    FP4 x E4M3 -> BF16: the weights into wgmma A fragments, the tokens into the
 *               wgmma B buffer (include/nvfp4-c/DescriptorsSm90.h has the arithmetic);
 *   TokenDecoder.c  the decoder warpgroups: every chunk's tokens into the decoded ring, up to
 *               decodedBuffers chunks ahead of the wgmmas (decodedFull / decodedEmpty);
 *   Mainloop.c  the consumer warpgroups: one copy of the chunk loop per token-tile width,
 *               the weights decoded into A registers while the other warpgroup's wgmmas run;
 *   Epilogue.c  accumulator -> fp16 -> stmatrix into swizzled staging -> TMA store; with the
 *               stream-K schedule, the partial sums of split tiles through the workspace.
 *
 * docs/kernel-sm90a.md describes the result.
 */
#ifndef NVFP4_CONVERSION_SM90_KERNEL_H
#define NVFP4_CONVERSION_SM90_KERNEL_H

#include "../Generator/Generator.h"

/* Builds the body of one sm_90a variant's kernel function: `params` is the by-value
 * parameter block, `dynSmemGlobal` the dynamic shared-memory symbol; `patchTensorMaps`:
 * the kernel honours NVFP4_ABI_FLAG_PATCH_TMAPS (KernelABI.h). */
void nvfp4BuildSm90Kernel(KbBuilder *b, const MlirNvfp4KernelConfig *cfg, KbValue params,
                          const char *dynSmemGlobal, bool patchTensorMaps);

/* ---- internal: shared by the files of this folder ------------------------------------- */

/* Per consumer thread: its place in the A fragments. */
typedef struct Sm90Consumer {
  KbValue ct;        /* consumer thread 0..255 */
  KbValue wg;        /* consumer warpgroup 0/1 (weights 64 wg .. 64 wg + 63 of the tile) */
  KbValue wt;        /* thread within the warpgroup 0..127 */
  KbValue warpInWg;  /* 0..3 */
  /* A side: fragment rows r0 = 64 wg + 16 warpInWg + lane / 4 and r0 + 8; group t0 = lane % 4 */
  KbValue aRow0;     /* r0 */
  KbValue aSf0, aSf1;/* byte of rows r0 / r0 + 8 (group t0) in the stage's weight scale
                        factors (set per tile where a tile may start inside an atom row) */
  KbValue aCol;      /* lane / 4: the row's swizzle phase (r0 % 8) */
  KbValue aT0;       /* lane % 4 */
  /* The lane's 8 weight bytes of chunk q of a stage lie at stage + mOffset + (aLaneByte ^ 32 q):
   * the swizzled 16-byte chunk (2 q + t0 / 2) ^ (r0 % 8) is (t0 / 2 ^ r0 % 8) ^ 2 q, since 2 q
   * is even (Decode.c) */
  KbValue aLaneByte; /* r0 * 128 + 16 ((t0 / 2) ^ (r0 % 8)) + 8 (t0 % 2): chunk 0's bytes */
  KbValue bDescLo;   /* low word of the wgmma B descriptor of decoded buffer 0 */
} Sm90Consumer;

typedef struct Sm90Kernel {
  GenKernel g;
  Sm90Consumer c;
  GenPipe stages;    /* the raw operand ring (full / empty), at this role's position */
  GenRing decoded;   /* the decoded token ring (decodedFull / decodedEmpty) */
} Sm90Kernel;

/* Warpgroup 0, thread 0: streams every tile's stages. */
void sm90ProducerLoop(Sm90Kernel *k);
/* The consumer warpgroups (1-2, 1-3 for 192-weight tiles): every tile's mainloop and
 * epilogue. */
void sm90ConsumerLoop(Sm90Kernel *k);
/* The decoder warpgroups (3 and 4; one for swap_n192, swap_n128_m192): every tile's
 * tokens, chunk by chunk. */
void sm90TokenDecoderLoop(Sm90Kernel *k);

/* Kernel.c, shared by the consumer and decoder roles. */
/* Every tile of the schedule, each through body(k, t, n) with n = 16 w, w = ceil(T / 16)
 * clamped to 1 .. tileN / 16 (so that every tile consumes its stages whatever its record
 * says; n is a compile-time constant in each copy), with k->stages and k->decoded at this
 * role's position. */
typedef void (*Sm90WidthBody)(Sm90Kernel *k, GenTile *t, uint32_t n);
void sm90RunTiles(Sm90Kernel *k, Sm90WidthBody body);
/* One 64-K chunk of a tile: chunk `cv`, q = cv % 4 (a constant where the loop is unrolled). */
typedef void (*Sm90ChunkBody)(Sm90Kernel *k, GenTile *t, KbValue cv, KbValue q, void *state);
/* The tile's chunks. With the plan's stageUnroll, one 256-K stage per loop trip: the four
 * chunks of a stage are four copies of the body with q known, so what depends on q alone
 * (the stage wait and release, the scale-factor offsets) folds, and chunks past K are
 * skipped; otherwise one chunk per trip. */
void sm90ForEachChunk(Sm90Kernel *k, GenTile *t, Sm90ChunkBody body, void *state);
/* The raw stage of chunk q (q = chunk % 4), waiting for it (full[s]) at its first chunk. */
KbValue sm90StageOfChunk(Sm90Kernel *k, KbValue q);
/* After this warp's last read of the stage (q = 3, or chunk cv is the tile's last): it
 * arrives on empty[s] and the role moves on to the next stage. */
void sm90ReleaseStage(Sm90Kernel *k, GenTile *t, KbValue cv, KbValue q);
/* Lane 0 arrives on `bar` for its warp once every lane got here: the warp barrier orders
 * the lanes' shared-memory accesses before the (release) arrive. */
void sm90WarpArrive(GenKernel *g, KbValue bar);

/* Decode.c: the 16 A registers of chunk q (instruction s = i / 4, register i % 4) from the
 * raw stage at `stage`. */
void sm90DecodeWeights(Sm90Kernel *k, KbValue stage, KbValue q, KbValue a[16]);
/* Decode.c: token row `row` (of the tile), half `ch` (16 bytes: groups 2 ch, 2 ch + 1) of
 * chunk q into the decoded buffer at `buf`; `sfRow` is the byte of its row and group pair
 * inside a 512-B atom of the stage's token scale factors (including the atom row). */
void sm90DecodeTokens(Sm90Kernel *k, KbValue stage, KbValue q, KbValue row, KbValue ch,
                      KbValue sfRow, KbValue buf);

/* Epilogue.c: converts the warpgroup's accumulator (n tokens) to fp16 and stores it. */
void sm90Epilogue(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue *acc);
/* Epilogue.c, the stream-K schedule: the warpgroup's share of a split tile is published in
 * its CTA's workspace (fp32 partial sums and its end stage, then an acquire-release add of
 * its stage count to the head CTA's counter) unless it is the head's and every other share
 * is already in; the CTA whose share completes the count adds the others' partial sums,
 * returns the counter to 0 and stores C (sm90Epilogue). No CTA waits for another. */
void sm90StreamKEpilogue(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue *acc);
/* EpilogueFused.c, the fused SwiGLU + NVFP4 epilogue (spec.swiglu): warpgroup 0's
 * accumulator is the gate, warpgroup 1's the up projection of the tile's 64 features;
 * the activations go through the staging buffers, then every consumer thread quantizes
 * blocks of 16 features of one token and stores their codes and scales. */
void sm90FusedEpilogue(Sm90Kernel *k, GenTile *t, uint32_t n, KbValue *acc);
/* Epilogue.c: outstanding TMA stores have completed (at teardown). */
void sm90EpilogueFinish(Sm90Kernel *k);

/* Named barriers (0 is bar.sync 0). */
#define SM90_BAR_EPILOGUE0 2u    /* + wg: one warpgroup's staging buffer (128 threads) */
#define SM90_BAR_FUSED 5u        /* the fused epilogue: both consumer warpgroups (256) */

#endif /* NVFP4_CONVERSION_SM90_KERNEL_H */
