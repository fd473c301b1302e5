/* Variants.c — reads the kernel family of an nvfp4.grouped_matmul or nvfp4.moe_matmul
 * from its attributes (`target`, `variants`, `tile_n`, `stages`) and operands (C's element
 * type, alpha, the form), and plans it once (the planner's memo): the verifier asks whether
 * every variant can be built, the lowering gets the same plan to build them from. */
#include <stdio.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/KernelConfig.h"
#include "nvfp4-c/Targets.h"

static MlirAttribute attrOf(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

static intptr_t failWith(char *msg, size_t size, const char *text, MlirStringRef s) {
  if (msg && size) snprintf(msg, size, text, (int)s.length, s.data);
  return -1;
}

/* An sm_90a kernel that patches its tensor maps (`nvfp4.patch_tmaps`) selects every map
 * between the parameter block and its copies at run time; in the 640 / 512-thread kernels
 * whose consumers have 120 or 208 registers (the 192-weight, 192-token and stream-K
 * variants) those values spill (16-52 bytes), so only swap_n128 and swap_n64 (160) have
 * room for them. */
static bool sm90PatchFits(const MlirNvfp4VariantSpec *s) {
  return (s->tileM == 0 || s->tileM == 128) && s->tileN <= 128 && !s->streamK;
}

/* The op asks for the fused SwiGLU + NVFP4 epilogue on a target whose planner builds it
 * (every generator builds it: sm_100a, sm_90a and the sm_12x targets; an unknown target
 * is refused elsewhere). */
static bool fusedOn(MlirOperation op, MlirNvfp4Target target) {
  return (target == MLIR_NVFP4_TARGET_SM100A || target == MLIR_NVFP4_TARGET_SM90A ||
          target == MLIR_NVFP4_TARGET_SM120A) &&
         !mlirAttributeIsNull(attrOf(op, "epilogue"));
}

/* The sm_90a variants that build the fused epilogue: 128-weight tiles (a gate and an up
 * consumer warpgroup), the persistent schedule. */
static bool sm90FusedFits(const MlirNvfp4VariantSpec *s) {
  return (s->tileM == 0 || s->tileM == 128) && !s->streamK;
}

static intptr_t specsFromAttributes(MlirOperation op, struct MlirNvfp4VariantSpec *out,
                                    intptr_t max, char *msg, size_t msgSize) {
  const bool patch = !mlirAttributeIsNull(attrOf(op, "nvfp4.patch_tmaps")) &&
                     !mlirNvfp4IsMoeMatmul(op);
  uint32_t tileN = MLIR_NVFP4_DEFAULT_TILE_N, stages = 0;
  MlirAttribute a = attrOf(op, "tile_n");
  if (!mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a))
    tileN = (uint32_t)mlirIntegerAttrGetValueInt(a);
  a = attrOf(op, "stages");
  if (!mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a))
    stages = (uint32_t)mlirIntegerAttrGetValueInt(a);
  MlirNvfp4Target target = MLIR_NVFP4_TARGET_SM100A;
  a = attrOf(op, "target");
  if (!mlirAttributeIsNull(a) && mlirAttributeIsAString(a)) {
    MlirStringRef s = mlirStringAttrGetValue(a);
    const nvfp4_target_info *info = nvfp4_target_find_n(s.data, s.length);
    if (info) target = (MlirNvfp4Target)info->generator;
  }
  a = attrOf(op, "variants");
  if (mlirAttributeIsNull(a) && fusedOn(op, target) && target != MLIR_NVFP4_TARGET_SM90A) {
    /* the fused epilogue's family: the one variant that implements it — sm_100a: ab_n256_st
     * (N = 256: 128 gate and 128 up columns), which a tile_n of another width would
     * contradict; the sm_12x targets: AB with the op's tile_n. (sm_90a: the variants of its
     * default family that build it, below.) */
    if (target == MLIR_NVFP4_TARGET_SM100A && !mlirAttributeIsNull(attrOf(op, "tile_n")) &&
        tileN != 256) {
      if (msg && msgSize)
        snprintf(msg, msgSize, "tile_n = %u: the fused epilogue \"swiglu_nvfp4\" is built for "
                               "ab_n256_st only (one N = 256 MMA per 128 gate and 128 up "
                               "columns)", tileN);
      return -1;
    }
    if (max < 1) return 0;
    out[0] = mlirNvfp4VariantSpecDefault(target == MLIR_NVFP4_TARGET_SM120A ? tileN : 256, stages);
    out[0].epilogue = MLIR_NVFP4_EPILOGUE_DIRECT_STORE;
    out[0].target = target;
    return 1;
  }
  if (mlirAttributeIsNull(a)) {
    intptr_t n = (intptr_t)mlirNvfp4DefaultFamilySpecsForTarget(target, tileN, stages, out,
                                                                max > 0 ? (uint32_t)max : 0);
    /* the stream-K schedule cuts its shares from the group table: nvfp4.moe_matmul's
     * default family is the persistent variants; with patched tensor maps, the sm_90a
     * family is the variants with room for them; with the fused epilogue, those that
     * build it */
    const bool fused = fusedOn(op, target);
    intptr_t kept = 0;
    for (intptr_t i = 0; i < n; ++i)
      if (!(mlirNvfp4IsMoeMatmul(op) && out[i].streamK) &&
          !(patch && target == MLIR_NVFP4_TARGET_SM90A && !sm90PatchFits(&out[i])) &&
          !(fused && target == MLIR_NVFP4_TARGET_SM90A && !sm90FusedFits(&out[i])))
        out[kept++] = out[i];
    return kept;
  }
  if (!mlirAttributeIsAArray(a)) {
    if (msg && msgSize) snprintf(msg, msgSize, "'variants' must be an array of strings");
    return -1;
  }
  intptr_t n = mlirArrayAttrGetNumElements(a);
  if (n < 1 || n > (intptr_t)MLIR_NVFP4_MAX_VARIANTS) {
    if (msg && msgSize)
      snprintf(msg, msgSize, "'variants' must list 1 to %u variants, got %zd",
               MLIR_NVFP4_MAX_VARIANTS, (ssize_t)n);
    return -1;
  }
  if (n > max) n = max;
  for (intptr_t i = 0; i < n; ++i) {
    MlirAttribute e = mlirArrayAttrGetElement(a, i);
    if (!mlirAttributeIsAString(e)) {
      if (msg && msgSize) snprintf(msg, msgSize, "'variants' must be an array of strings");
      return -1;
    }
    MlirStringRef s = mlirStringAttrGetValue(e);
    if (!mlirNvfp4VariantSpecParse(s.data, s.length, stages, &out[i]))
      return failWith(msg, msgSize,
                      "unknown variant '%.*s' (expected ab_n<N> or swap_n<N>, optionally "
                      "ab2_/swap2_ for a CTA pair and _st for direct stores; N in 64, 128, "
                      "192, 256)", s);
    out[i].target = target;
    if (patch && target == MLIR_NVFP4_TARGET_SM90A && !sm90PatchFits(&out[i]))
      return failWith(msg, msgSize,
                      "variant '%.*s' cannot patch its tensor maps (nvfp4.patch_tmaps) on "
                      "sm_90a: its consumer warpgroups have no registers left for the maps' "
                      "selection (the 64K-register file over 640 or 512 threads); swap_n128 "
                      "and swap_n64 can", s);
  }
  return n;
}

/* Operand index of C and whether alpha is present, per op. */
static void cAndAlpha(MlirOperation op, bool moe, intptr_t *c, bool *alpha) {
  *c = -1;
  *alpha = false;
  MlirAttribute seg = attrOf(op, "operandSegmentSizes");
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) ||
      mlirDenseArrayGetNumElements(seg) != (moe ? 9 : 8))
    return;
  if (moe) {
    *c = 4;
    *alpha = mlirDenseI32ArrayGetElement(seg, 6) == 1;
    return;
  }
  intptr_t before = 0;
  for (intptr_t i = 0; i < 4; ++i) before += mlirDenseI32ArrayGetElement(seg, i);
  if (mlirDenseI32ArrayGetElement(seg, 4) > 0) *c = before;
  *alpha = mlirDenseI32ArrayGetElement(seg, 5) == 1;
}

/* The fused epilogue's kernel needs the up half's second scale-factor atom row (I % 128
 * == 64) unless every C's I = N/2 is a static multiple of 128. C operands start at `c`:
 * one per group (the pointer-array form) or one. */
static bool midAtom(MlirOperation op, bool moe, intptr_t c) {
  const intptr_t count = moe ? 1 : (intptr_t)mlirNvfp4MatmulGroupCount(op);
  for (intptr_t i = c; i >= 0 && i < c + count && i < mlirOperationGetNumOperands(op); ++i) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (!mlirTypeIsAMemRef(t) || mlirShapedTypeGetRank(t) != 2 || mlirShapedTypeIsDynamicDim(t, 1) ||
        mlirShapedTypeGetDimSize(t, 1) % 128 != 0)
      return true;
  }
  return false;
}

intptr_t mlirNvfp4GroupedMatmulGetVariantSpecs(MlirOperation op, struct MlirNvfp4VariantSpec *out,
                                               intptr_t max, char *msg, size_t msgSize) {
  intptr_t n = specsFromAttributes(op, out, max, msg, msgSize);
  const bool moe = mlirNvfp4IsMoeMatmul(op);
  intptr_t c;
  bool alpha;
  cAndAlpha(op, moe, &c, &alpha);
  MlirNvfp4OutputType output = MLIR_NVFP4_OUTPUT_F16;
  if (c >= 0 && c < mlirOperationGetNumOperands(op)) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, c));
    MlirType elt = mlirTypeIsAMemRef(t) ? mlirShapedTypeGetElementType(t) : t;
    if (mlirTypeIsABF16(elt)) output = MLIR_NVFP4_OUTPUT_BF16;
    else if (mlirTypeIsAF32(elt)) output = MLIR_NVFP4_OUTPUT_F32;
  }
  const bool fused = n > 0 && fusedOn(op, out[0].target);
  const bool dump = !mlirAttributeIsNull(attrOf(op, "nvfp4.debug_activations"));
  const bool mid = fused && midAtom(op, moe, c);
  /* `nvfp4.pair_forward` (a unit attribute the sm_90a-retargeted builds put on the op):
   * the CTA pairs hand stages over without .cta_group::2 TMA (KernelConfig.h). */
  const bool forward = !mlirAttributeIsNull(attrOf(op, "nvfp4.pair_forward"));
  for (intptr_t i = 0; i < n; ++i) {
    out[i].pairForward = forward && out[i].ctaGroup > 1;
    out[i].output = fused ? MLIR_NVFP4_OUTPUT_FP4 : output;
    out[i].swiglu = fused;
    out[i].debugActivations = fused && dump;
    out[i].swigluMidAtom = mid;
    out[i].alpha = alpha;
    out[i].form = moe ? MLIR_NVFP4_FORM_CONTIGUOUS : MLIR_NVFP4_FORM_POINTER_ARRAY;
  }
  return n;
}

uint32_t mlirNvfp4MatmulGroupCount(MlirOperation op) {
  if (mlirNvfp4IsMoeMatmul(op)) {
    if (mlirOperationGetNumOperands(op) < 2) return 0;
    MlirType b = mlirValueGetType(mlirOperationGetOperand(op, 1));
    if (!mlirTypeIsAMemRef(b) || mlirShapedTypeGetRank(b) != 3 || mlirShapedTypeIsDynamicDim(b, 0))
      return 0;
    return (uint32_t)mlirShapedTypeGetDimSize(b, 0);
  }
  if (!mlirNvfp4IsGroupedMatmul(op)) return 0;
  MlirAttribute seg = attrOf(op, "operandSegmentSizes");
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) ||
      mlirDenseArrayGetNumElements(seg) < 1)
    return 0;
  return (uint32_t)mlirDenseI32ArrayGetElement(seg, 0);
}

bool mlirNvfp4MatmulPlanFamily(MlirOperation op, struct MlirNvfp4KernelFamily *family, char *msg,
                               size_t msgSize) {
  MlirNvfp4VariantSpec specs[MLIR_NVFP4_MAX_VARIANTS];
  intptr_t n = mlirNvfp4GroupedMatmulGetVariantSpecs(op, specs, MLIR_NVFP4_MAX_VARIANTS, msg,
                                                     msgSize);
  if (n < 0) return false;
  return mlirNvfp4KernelFamilyInitMemoized(family, mlirNvfp4MatmulGroupCount(op), specs,
                                           (uint32_t)n, msg, msgSize);
}
