/* TensorMapPatch.c — the kernel side of NVFP4_ABI_FLAG_PATCH_TMAPS (KernelABI.h), built into
 * kernels whose op carries `nvfp4.patch_tmaps`: when a launch sends raw addresses instead
 * of tensor maps, every CTA writes its own copy of each group's map templates with those
 * addresses (tensormap.replace) before its first TMA, and the threads that issue TMA
 * acquire the copies they use. Without the header flag none of this runs and genTensorMap
 * returns the maps of the device table; kernels built without it have none of it. */
#include "Generator.h"

#include "../Nvvm.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/KernelABI.h"

void genTensorMapPatchInit(GenKernel *k, bool patchable) {
  KbBuilder *b = k->b;
  k->patchable = patchable;
  if (!patchable) return;
  KbValue flags = genParamU32(k, NVFP4_ABI_HDR_FLAGS);
  k->patchMaps = kbCmpI(b, KB_NE, kbAnd(b, flags, kbI32(b, NVFP4_ABI_FLAG_PATCH_TMAPS)), 0);
  KbValue area = kbLoad(b, b->i64, kbGep(b, k->params, NVFP4_ABI_HDR_TMAP_AREA), 8);
  const int64_t perCta = (int64_t)NVFP4_ABI_GROUP_TMAPS_BYTES * k->cfg->numGroups;
  KbValue cta = kbZExt(b, nvSreg(b, "ctaid.x"), b->i64);
  k->mapCopies = kbAdd(b, kbAddI(b, area, perCta), kbMulI(b, cta, perCta));
}

void genPatchTensorMaps(GenKernel *k) {
  if (!k->patchable) return;
  KbBuilder *b = k->b;
  MlirType global = mlirLLVMPointerTypeGet(b->ctx, 1);
  KbValue area = kbLoad(b, b->i64, kbGep(b, k->params, NVFP4_ABI_HDR_TMAP_AREA), 8);
  KbValue maps = kbMulI(b, genParamU32(k, NVFP4_ABI_HDR_NUM_GROUPS), NVFP4_ABI_GROUP_TMAPS);
  kbIf(b, k->patchMaps);
  {
    /* map j = (group j / 5, tensor j % 5), dealt round-robin to the CTA's threads */
    KbVar j = kbVar(b, b->i32, k->tid);
    kbWhile(b);
    kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, j), maps));
    {
      KbValue jv = kbGet(b, j);
      KbValue group = kbUDiv(b, jv, kbI32(b, NVFP4_ABI_GROUP_TMAPS));
      KbValue tensor = kbURem(b, jv, kbI32(b, NVFP4_ABI_GROUP_TMAPS));
      KbValue off = kbAdd(b, kbMulI(b, group, NVFP4_ABI_GROUP_TMAPS_BYTES),
                          kbMulI(b, tensor, NVFP4_ABI_TMAP_BYTES));
      KbValue raw = genTableU64(k, off);
      kbIf(b, kbCmp(b, KB_NE, raw, kbI64(b, 0)));
      {
        KbValue off64 = kbZExt(b, off, b->i64);
        KbValue src = kbAdd(b, area, off64), dst = kbAdd(b, k->mapCopies, off64);
        KbValue words[NVFP4_ABI_TMAP_BYTES / 8];
        for (uint32_t w = 0; w < NVFP4_ABI_TMAP_BYTES / 8; ++w)
          words[w] = kbLoad(b, b->i64, kbIntToPtr(b, kbAddI(b, src, 8 * w), global), 8);
        for (uint32_t w = 0; w < NVFP4_ABI_TMAP_BYTES / 8; ++w)
          kbStore(b, words[w], kbIntToPtr(b, kbAddI(b, dst, 8 * w), global), 8);
        nvTensormapReplaceAddress(b, dst, raw);
      }
      kbEndIf(b);
      kbSet(b, j, kbAddI(b, jv, k->cfg->numThreads));
    }
    kbEndWhile(b);
    nvFenceProxyTensormapRelease(b);
  }
  kbEndIf(b);
  nvWarpSync(b); /* the CTA barrier that follows is .aligned: reconverge after the loop */
}

void genAcquireTensorMaps(GenKernel *k, uint32_t tensors) {
  if (!k->patchable) return;
  KbBuilder *b = k->b;
  KbValue groups = genParamU32(k, NVFP4_ABI_HDR_NUM_GROUPS);
  kbIf(b, k->patchMaps);
  {
    KbVar g = kbVar(b, b->i32, kbI32(b, 0));
    kbWhile(b);
    kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, g), groups));
    {
      KbValue base = kbAdd(b, k->mapCopies,
                           kbZExt(b, kbMulI(b, kbGet(b, g), NVFP4_ABI_GROUP_TMAPS_BYTES), b->i64));
      for (uint32_t t = 0; t < NVFP4_ABI_GROUP_TMAPS; ++t)
        if (tensors >> t & 1u) nvFenceProxyTensormapAcquire(b, kbAddI(b, base, NVFP4_ABI_TMAP_BYTES * t));
      kbSet(b, g, kbAddI(b, kbGet(b, g), 1));
    }
    kbEndWhile(b);
  }
  kbEndIf(b);
}
