/* Kernel.c — assembles the sm_120a kernel of one variant: the contiguous form's expert
 * schedule (every thread), the mbarriers (thread 0), a CTA barrier, then the roles of the
 * plan's role map: warps 0..7 consume the stage ring with mma.sync and store C, warp 8
 * (lane 0) produces it with TMA (the generator's producer, ../Generator/Producer.h: UINT8
 * FP4 maps, as on sm_90a — TMA of the sub-byte map types is restricted on sm_120a, PTX ISA
 * 9.7.9.25.5.1 — into the CTA's own shared memory; docs/kernel-sm120a.md). No Tensor
 * Memory, no clusters, no setmaxnreg: 288 threads may each use up to 224 registers
 * (65 536 / 288, rounded down to the allocation granule), which the consumers'
 * accumulators, fragments and scale registers fit in; every arrive is a plain (synchronous)
 * one and every TMA load is consumed before the CTA exits. In a kernel built to patch its
 * tensor maps, a launch with NVFP4_ABI_FLAG_PATCH_TMAPS writes this CTA's copies before the
 * barrier and the producer acquires them (C is stored from registers: no map of its own).
 */
#include "Sm120Kernel.h"

#include "../Generator/Producer.h"
#include "../Nvvm.h"

void nvfp4BuildSm120Kernel(KbBuilder *b, const MlirNvfp4KernelConfig *cfg, KbValue params,
                           const char *dynSmemGlobal, bool patchTensorMaps) {
  Sm120Kernel k = {0};
  GenKernel *g = &k.g;
  genKernelInit(g, b, cfg, params, dynSmemGlobal);
  /* (the contiguous form's shared maps are never patched) */
  genTensorMapPatchInit(g, patchTensorMaps && cfg->spec.form != MLIR_NVFP4_FORM_CONTIGUOUS);
  if (cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS) genBuildSchedule(g);
  kbIf(b, kbCmpI(b, KB_EQ, g->tid, 0));
  genInitBarriers(g);
  kbEndIf(b);
  genPatchTensorMaps(g);
  nvBarrier0(b);

  const MlirNvfp4WarpRange *consumers = &cfg->roles[MLIR_NVFP4_ROLE_MMA_SYNC];
  kbIf(b, kbCmpI(b, KB_ULT, g->warp, consumers->first + consumers->count));
  sm120ConsumerLoop(&k);
  kbElse(b);
  kbIf(b, kbCmpI(b, KB_EQ, g->lane, 0));
  genAcquireTensorMaps(g, 1u << cfg->roleM.data | 1u << cfg->roleN.data |
                              1u << cfg->roleM.scales | 1u << cfg->roleN.scales);
  /* UINT8 FP4 maps (x in bytes), loads into the CTA's own shared memory (Ops.c) */
  const GenProducerStyle style = {true, nvTmaLoad2dCta};
  genProducerLoop(g, &style);
  kbEndIf(b);
  kbEndIf(b);
  kbReturn(b);
}
