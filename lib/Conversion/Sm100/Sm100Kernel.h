/* Sm100Kernel.h — the sm_100a (tcgen05 + TMA) grouped block-scaled NVFP4 kernel, assembled
 * from the shared generator parts (../Generator/Generator.h) and this folder's emitters:
 *
 *   Kernel.c    prologue (mbarriers, TMEM allocation), warp-role dispatch, teardown;
 *   Mainloop.c  the TMA producer (warp 4) and the tcgen05 MMA issuer (warp 5);
 *   Epilogue.c  the accumulator -> C emitters (warps 0-3): direct stores, or TMA stores
 *               through swizzled staging buffers, for both operand orientations;
 *   EpilogueFused.c  the fused SwiGLU + NVFP4 epilogue (AB, N = 256: gate and up halves).
 *
 * docs/kernel-sm100a.md describes the result.
 */
#ifndef NVFP4_CONVERSION_SM100_KERNEL_H
#define NVFP4_CONVERSION_SM100_KERNEL_H

#include "../Generator/Generator.h"

/* Builds the body of one variant's kernel function: `params` is the by-value parameter
 * block argument, `dynSmemGlobal` the module's dynamic shared-memory symbol;
 * `patchTensorMaps`: the kernel honours NVFP4_ABI_FLAG_PATCH_TMAPS. */
void nvfp4BuildSm100Kernel(KbBuilder *b, const MlirNvfp4KernelConfig *cfg, KbValue params,
                           const char *dynSmemGlobal, bool patchTensorMaps);

/* ---- internal: shared by the files of this folder ------------------------------------- */

typedef struct Sm100Kernel {
  GenKernel g;
  KbValue tmemBase; /* i32 TMEM address returned by tcgen05.alloc */
} Sm100Kernel;

/* Warp 4, lane 0: streams every tile's stages; returns after draining the stage ring. */
void sm100ProducerLoop(Sm100Kernel *k);
/* Warp 5, lane 0: issues every tile's scale-factor copies and MMAs. */
void sm100MmaLoop(Sm100Kernel *k);
/* Warps 0-3: moves every accumulator to C. */
void sm100EpilogueLoop(Sm100Kernel *k);

/* The epilogue's per-warp state and the steps every epilogue emitter shares (Epilogue.c). */
typedef struct Sm100EpilogueState {
  KbValue tmemBase;
  GenPipe acc;
  GenRing staging; /* TMA store: the staging buffer to fill next */
  KbValue alpha;   /* the tile's f32 alpha (alpha variants; else null) */
} Sm100EpilogueState;
/* The tile's alpha, read once per tile (every epilogue thread reads the same word). */
void sm100EpiLoadAlpha(GenKernel *g, Sm100EpilogueState *st, GenTile *t);
/* Waits for the tile's accumulator; returns its TMEM address for this warp's lanes. */
KbValue sm100EpiAcquire(GenKernel *g, Sm100EpilogueState *st);
/* The accumulator's last tcgen05.ld has completed: hands it back to the MMA. */
void sm100EpiRelease(GenKernel *g, Sm100EpilogueState *st);
/* Loads n x 32 accumulator columns from `addr` (n tcgen05.ld before one wait::ld). */
void sm100EpiLoadColumns(KbBuilder *b, KbValue addr, uint32_t n, KbValue *out);
/* The fused SwiGLU + NVFP4 epilogue of one tile (EpilogueFused.c). */
void sm100FusedTile(GenKernel *g, GenTile *t, void *state);
/* Warps 0-3, at teardown: outstanding TMA stores have completed. */
void sm100EpilogueFinish(Sm100Kernel *k);

#endif /* NVFP4_CONVERSION_SM100_KERNEL_H */
