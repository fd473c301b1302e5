/* Sm120Kernel.h — the sm_120a grouped block-scaled NVFP4 kernel (block-scaled mma.sync on
 * fp32 register accumulators, TMA, mbarriers; targets sm_120a, sm_121a, sm_120f), assembled
 * from the shared generator parts (../Generator/Generator.h: planner, mbarrier ring, tile
 * scheduler, operand roles, the contiguous form's expert schedule, the TMA producer of
 * ../Generator/Producer.h) and this folder's emitters:
 *
 *   Kernel.c    prologue (mbarriers; the contiguous form's schedule; patched tensor
 *               maps), roles: warps 0..7 consumers, warp 8 the TMA producer (lane 0);
 *   Mainloop.c  the consumer warps: per stage the scale registers, per 64-K step ldmatrix.x4
 *               of the A and B fragments and mma.sync m16n8k64 with the thread-id selectors
 *               (include/nvfp4-c/DescriptorsSm120.h has the layouts);
 *   Epilogue.c  accumulators x alpha -> f16 / bf16 / f32, predicated stores to global C;
 *   EpilogueFused.c  the fused SwiGLU + NVFP4 epilogue (FP4 C and its block scales);
 *   Ops.c       the nvvm builders of ldmatrix, the block-scaled mma.sync and the TMA load
 *               into the CTA's own shared memory.
 *
 * docs/kernel-sm120a.md describes the result.
 */
#ifndef NVFP4_CONVERSION_SM120_KERNEL_H
#define NVFP4_CONVERSION_SM120_KERNEL_H

#include "../Generator/Generator.h"

/* Builds the body of one sm_120a variant's kernel function: `params` is the by-value
 * parameter block, `dynSmemGlobal` the dynamic shared-memory symbol; `patchTensorMaps`:
 * the kernel honours NVFP4_ABI_FLAG_PATCH_TMAPS (KernelABI.h). */
void nvfp4BuildSm120Kernel(KbBuilder *b, const MlirNvfp4KernelConfig *cfg, KbValue params,
                           const char *dynSmemGlobal, bool patchTensorMaps);

/* ---- internal: shared by the files of this folder ------------------------------------- */

#define SM120_MAX_MB 2u   /* m16 blocks per warp */
#define SM120_MAX_NB 16u  /* n8 blocks per warp */

/* A consumer thread's constants: its warp's place in the tile and its lane's addresses. */
typedef struct Sm120Consumer {
  KbValue wm, wn;        /* the warp's place in the warpsM x warpsN grid */
  KbValue mRow0, nRow0;  /* the warp's first M-role / N-role row in the tile */
  /* ldmatrix (mlirNvfp4Sm120LdmatrixRowA / B): byte offset of this lane's row in the warp's
   * first block, plus its 16-byte half after the swizzle's low bit; the swizzle's upper bits
   * (row % 8 & 6) to xor with 2 step */
  KbValue aLane, aXor, bLane, bXor;
  /* scale words (mlirNvfp4Sm120ScaleSourceA / B): A register 2 mb + u of this lane, in the
   * stage's M-role scale factors; B: the lane's column (L / 4) and step (L % 4) */
  KbValue sfaWord[2 * SM120_MAX_MB];
  KbValue sfbCol, sfbStep;
  KbValue g, t;          /* lane / 4, lane % 4: the accumulator fragment (FragmentC) */
} Sm120Consumer;

typedef struct Sm120Kernel {
  GenKernel g;
  Sm120Consumer c;
} Sm120Kernel;

/* Warps 0..7: every tile's mainloop and epilogue. */
void sm120ConsumerLoop(Sm120Kernel *k);

/* Epilogue.c: stores the accumulators acc[mb][nb][i] (f32) of tile t. */
void sm120Epilogue(Sm120Kernel *k, GenTile *t, KbValue acc[SM120_MAX_MB][SM120_MAX_NB][4]);
/* Mainloop.c, for the epilogue: is the warp's n16 pair p inside the tile's N (the swap-AB
 * tile's token count, a multiple of 16)? (constant true for a static N) */
KbValue sm120PairValid(Sm120Kernel *k, GenTile *t, uint32_t p);

/* Mainloop.c: the warp's n8 block nb starts this many N-role rows after its first (nRow0)
 * in the stage: 8 nb; in the fused epilogue's tile (gate rows in the stage's first half, up
 * rows in its second; the warp's tileN / 4 of each) block nb < nBlocks / 2 is a gate block
 * and nb + nBlocks / 2 its up block. */
uint32_t sm120BlockRow(const MlirNvfp4KernelConfig *cfg, uint32_t nb);
/* EpilogueFused.c: the fused SwiGLU + NVFP4 epilogue of tile t (epilogue = "swiglu_nvfp4"). */
void sm120FusedEpilogue(Sm120Kernel *k, GenTile *t, KbValue acc[SM120_MAX_MB][SM120_MAX_NB][4]);

/* Ops.c: ldmatrix.sync.aligned.m8n8.x4.shared.b16 [ptr] -> out[0..3] (i32). */
void nvLdMatrixX4(KbBuilder *b, KbValue sharedPtr, KbValue out[4]);
/* Ops.c: mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1
 * .e2m1.f32.ue4m3 acc, a, bb, acc, sfa, {0, tidA}, sfb, {0, tidB}: acc[0..3] (f32) updated. */
void nvMmaMxf4Nvf4(KbBuilder *b, KbValue acc[4], const KbValue a[4], const KbValue bb[2],
                   KbValue sfa, uint32_t tidA, KbValue sfb, uint32_t tidB);

/* Ops.c: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
 * .L2::cache_hint [dst], [map, {x, y}], [bar], hint, tagged nvfp4.operand = tag. The
 * .shared::cluster destination of the other targets' loads makes ptxas give every sm_120a
 * kernel a stack frame; CUTLASS's sm_120 kernels use this form too. */
MlirOperation nvTmaLoad2dCta(KbBuilder *b, KbValue dstShared, KbValue tensorMap, KbValue bar,
                             KbValue x, KbValue y, KbValue l2Hint, const char *tag);
/* Ops.c: shfl.sync.bfly.b32 v, laneMask, 0x1f, 0xffffffff (every lane of the warp). */
KbValue nvShflBfly(KbBuilder *b, KbValue v, uint32_t laneMask);

#endif /* NVFP4_CONVERSION_SM120_KERNEL_H */
