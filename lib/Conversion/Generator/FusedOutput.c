/* FusedOutput.c — the addresses the fused SwiGLU + NVFP4 epilogue stores to, shared by the
 * targets' kernels: a token row's scales in the blocked SFC (docs/format.md) and a
 * (row, feature) place in the activation dump of a kernel built with
 * nvfp4.debug_activations (KernelABI.h, NVFP4_ABI_HDR_DEBUG_ACT). */
#include "Generator.h"

#include "nvfp4-c/KernelABI.h"

static KbValue wide(KbBuilder *b, KbValue x) { return kbZExt(b, x, b->i64); }

KbValue genSfcRowAddress(GenKernel *g, GenTile *t, KbValue sfaBase, KbValue row, KbValue inter) {
  KbBuilder *b = g->b;
  KbValue atomRow = genAddBase(b, sfaBase, kbLShr(b, row, kbI32(b, 7)));
  /* ceil(I / 64) atoms of 512 B per atom row (S = I / 16 scales, 4 per atom) */
  KbValue rowBytes = kbMulI(b, wide(b, kbLShr(b, kbAddI(b, inter, 63), kbI32(b, 6))),
                            MLIR_NVFP4_SF_ATOM_BYTES);
  KbValue inAtom = kbAdd(b, kbMulI(b, kbAnd(b, row, kbI32(b, 31)), 16),
                         kbMulI(b, kbAnd(b, kbLShr(b, row, kbI32(b, 5)), kbI32(b, 3)), 4));
  return kbAdd(b, kbAdd(b, t->sfcPtr, kbMul(b, wide(b, atomRow), rowBytes)), wide(b, inAtom));
}

KbValue genDebugActAddress(GenKernel *g, GenTile *t, KbValue row, KbValue col) {
  KbBuilder *b = g->b;
  KbValue base = genParamU64(g, NVFP4_ABI_HDR_DEBUG_ACT);
  if (g->cfg->spec.form != MLIR_NVFP4_FORM_CONTIGUOUS)
    base = kbAdd(b, base, kbMul(b, wide(b, t->group), genParamU64(g, NVFP4_ABI_HDR_DEBUG_ACT_STRIDE)));
  KbValue r = genAddBase(b, t->cRowBase, row);
  KbValue elem = kbAdd(b, kbMul(b, wide(b, r), wide(b, t->ldc)), wide(b, col));
  return kbAdd(b, base, kbMulI(b, elem, 4));
}
