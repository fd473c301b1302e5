/* Kernel.c — assembles the sm_100a kernel of one variant: the prologue (one thread
 * initialises every mbarrier of the plan and prefetches the first tensor maps; warp 5
 * allocates Tensor Memory and reads its base address back; then every thread's
 * griddepcontrol.wait, before any global access), the warp-role dispatch (warp 4 producer,
 * warp 5 MMA issuer, warps 0-3 epilogue; docs/kernel-sm100a.md) and the teardown (every
 * TMEM access and asynchronous arrive complete before warp 5 frees the columns). In a kernel built to patch its tensor
 * maps, a launch with NVFP4_ABI_FLAG_PATCH_TMAPS writes this CTA's copies before the
 * prologue's barrier, and each role acquires the maps it issues TMA on after it.
 */
#include "Sm100Kernel.h"

#include "../Nvvm.h"

void nvfp4BuildSm100Kernel(KbBuilder *b, const MlirNvfp4KernelConfig *cfg, KbValue params,
                           const char *dynSmemGlobal, bool patchTensorMaps) {
  Sm100Kernel k;
  GenKernel *g = &k.g;
  genKernelInit(g, b, cfg, params, dynSmemGlobal);
  /* (the contiguous form's shared maps are never patched) */
  genTensorMapPatchInit(g, patchTensorMaps && cfg->spec.form != MLIR_NVFP4_FORM_CONTIGUOUS);
  KbValue tmemSlot = genSharedPtr(g, kbAddI(b, g->smem, cfg->tmemSlotOffset));

  const uint32_t cg = cfg->spec.ctaGroup;
  /* the plan's role map: one producer warp, one MMA warp, the epilogue warps */
  const uint32_t producerWarp = cfg->roles[MLIR_NVFP4_ROLE_PRODUCER].first;
  const uint32_t mmaWarp = cfg->roles[MLIR_NVFP4_ROLE_MMA].first;
  /* Barrier initialisation (one thread), TMEM allocation (warp 5; for a CTA pair, one warp
   * in each CTA), then a CTA barrier — a cluster barrier for a pair, so that no remote
   * arrive reaches a barrier the peer has not initialised yet. */
  kbIf(b, kbCmpI(b, KB_EQ, g->tid, 0));
  genInitBarriers(g);
  genPrefetchPrologueMaps(g);
  kbEndIf(b);
  kbIf(b, kbCmpI(b, KB_EQ, g->warp, mmaWarp));
  nvTcAlloc(b, tmemSlot, cfg->tmemCols, cg);
  nvTcRelinquish(b, cg);
  kbEndIf(b);
  /* Programmatic dependent launch: everything above touches only this CTA's shared memory,
   * Tensor Memory, the parameter block and the host-written device table (its tensor-map
   * prefetch), so it overlaps the previous grid; every global
   * access below (the offsets, the map copies, the operands, alpha, C) comes after. */
  nvGridDepWait(b);
  /* The contiguous form: every CTA schedules the experts' tiles from the device-resident
   * offsets, which the previous kernel may write (all threads take part; ends with a CTA
   * barrier). */
  if (cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS) genBuildSchedule(g);
  genPatchTensorMaps(g);
  nvTcFenceBefore(b);
  if (cg > 1) nvClusterSync(b);
  else nvBarrier0(b);
  nvTcFenceAfter(b);
  k.tmemBase = kbLoad(b, b->i32, tmemSlot, 4);

  kbIf(b, kbCmpI(b, KB_EQ, g->warp, producerWarp));
  {
    kbIf(b, kbCmpI(b, KB_EQ, g->lane, 0));
    genAcquireTensorMaps(g, 1u << cfg->roleM.data | 1u << cfg->roleN.data |
                                1u << cfg->roleM.scales | 1u << cfg->roleN.scales);
    sm100ProducerLoop(&k);
    kbEndIf(b);
  }
  kbElse(b);
  kbIf(b, kbCmpI(b, KB_EQ, g->warp, mmaWarp));
  {
    kbIf(b, kbCmpI(b, KB_EQ, g->lane, 0));
    sm100MmaLoop(&k);
    kbEndIf(b);
  }
  kbElse(b);
  if (cfg->spec.epilogue == MLIR_NVFP4_EPILOGUE_TMA_STORE)
    genAcquireTensorMaps(g, 1u << MLIR_NVFP4_TENSOR_C);
  sm100EpilogueLoop(&k);
  sm100EpilogueFinish(&k);
  kbEndIf(b);
  kbEndIf(b);

  /* Teardown: every TMEM access is complete before warp 5 frees the columns. The warp
   * sync reconverges the warps whose lane 0 ran a role loop alone. A pair synchronises the
   * cluster: neither CTA frees its Tensor Memory or exits while the other may still use its
   * shared memory, Tensor Memory or barriers. */
  nvTcFenceBefore(b);
  nvWarpSync(b);
  if (cg > 1) nvClusterSync(b);
  else nvBarrier0(b);
  kbIf(b, kbCmpI(b, KB_EQ, g->warp, mmaWarp));
  nvTcFenceAfter(b);
  nvWarpSync(b);
  nvTcDealloc(b, k.tmemBase, cfg->tmemCols, cg);
  kbEndIf(b);
  kbReturn(b);
}
