/* Ops.c — the nvvm operations only the sm_120a kernel uses: ldmatrix.x4 of b16 (the packed
 * FP4 fragments), the block-scaled mma.sync m16n8k64 (kind::mxf4nvf4, scale_vec::4X,
 * ue4m3), the TMA load into the CTA's own shared memory and the fused epilogue's butterfly
 * shuffle, in MLIR 22's generic form (NVVMOps.td: nvvm.ldmatrix, nvvm.mma.block_scale,
 * nvvm.cp.async.bulk.tensor.shared.cluster.global with isCTAOnly, nvvm.shfl.sync). */
#include "Sm120Kernel.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/LLVM.h"

static KbValue field(KbBuilder *b, KbValue s, MlirType t, uint32_t i) {
  int64_t pos[1] = {i};
  MlirNamedAttribute p = kbNamed(b, "position", mlirDenseI64ArrayGet(b->ctx, 1, pos));
  return mlirOperationGetResult(kbOp(b, "llvm.extractvalue", 1, &t, 1, &s, 1, &p), 0);
}

void nvLdMatrixX4(KbBuilder *b, KbValue sharedPtr, KbValue out[4]) {
  MlirType i32x4[4] = {b->i32, b->i32, b->i32, b->i32};
  MlirType st = mlirLLVMStructTypeLiteralGet(b->ctx, 4, i32x4, false);
  MlirNamedAttribute attrs[4] = {
      kbNamed(b, "eltType", kbAttr(b, "#nvvm.ld_st_matrix_elt_type<b16>")),
      kbNamed(b, "layout", kbAttr(b, "#nvvm.mma_layout<row>")),
      kbNamed(b, "num", mlirIntegerAttrGet(b->i32, 4)),
      kbNamed(b, "shape", kbAttr(b, "#nvvm.ld_st_matrix_shape<m = 8, n = 8>"))};
  KbValue s = mlirOperationGetResult(kbOp(b, "nvvm.ldmatrix", 1, &st, 1, &sharedPtr, 4, attrs), 0);
  for (uint32_t i = 0; i < 4; ++i) out[i] = field(b, s, b->i32, i);
}

void nvMmaMxf4Nvf4(KbBuilder *b, KbValue acc[4], const KbValue a[4], const KbValue bb[2],
                   KbValue sfa, uint32_t tidA, KbValue sfb, uint32_t tidB) {
  MlirType f32x4[4] = {b->f32, b->f32, b->f32, b->f32};
  MlirType st = mlirLLVMStructTypeLiteralGet(b->ctx, 4, f32x4, false);
  /* byte-id and thread-id are i16 values: constants, so that ptxas checks their ranges */
  KbValue ops[16] = {a[0],   a[1],   a[2], a[3], bb[0], bb[1], acc[0], acc[1],
                     acc[2], acc[3], sfa,  kbConst(b, b->i16, 0), kbConst(b, b->i16, tidA),
                     sfb,    kbConst(b, b->i16, 0), kbConst(b, b->i16, tidB)};
  const int32_t seg[9] = {4, 2, 4, 1, 1, 1, 1, 1, 1};
  MlirNamedAttribute attrs[7] = {
      kbNamed(b, "blockScaleFormat", kbAttr(b, "#nvvm.block_scale_format<ue4m3>")),
      kbNamed(b, "kind", kbAttr(b, "#nvvm.block_scale_kind<mxf4nvf4>")),
      kbNamed(b, "multiplicandAPtxType", kbAttr(b, "#nvvm.mma_type<e2m1>")),
      kbNamed(b, "multiplicandBPtxType", kbAttr(b, "#nvvm.mma_type<e2m1>")),
      kbNamed(b, "operandSegmentSizes", kbSegments(b, 9, seg)),
      kbNamed(b, "scaleVecSize", kbAttr(b, "#nvvm.scale_vec_size<x4>")),
      kbNamed(b, "shape", kbAttr(b, "#nvvm.shape<m = 16, n = 8, k = 64>"))};
  KbValue d = mlirOperationGetResult(kbOp(b, "nvvm.mma.block_scale", 1, &st, 16, ops, 7, attrs), 0);
  for (uint32_t i = 0; i < 4; ++i) acc[i] = field(b, d, b->f32, i);
}

MlirOperation nvTmaLoad2dCta(KbBuilder *b, KbValue dstShared, KbValue tensorMap, KbValue bar,
                             KbValue x, KbValue y, KbValue l2Hint, const char *tag) {
  KbValue ops[6] = {dstShared, tensorMap, x, y, bar, l2Hint};
  /* dstMem, tmaDescriptor, coordinates, mbar, im2colOffsets, multicastMask, l2CacheHint,
   * predicate */
  const int32_t seg[8] = {1, 1, 2, 1, 0, 0, 1, 0};
  MlirNamedAttribute attrs[3] = {
      kbNamed(b, "isCTAOnly", mlirBoolAttrGet(b->ctx, 1)),
      kbNamed(b, "operandSegmentSizes", kbSegments(b, 8, seg)),
      kbNamed(b, "nvfp4.operand", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(tag)))};
  return kbOp(b, "nvvm.cp.async.bulk.tensor.shared.cluster.global", 0, NULL, 6, ops, 3, attrs);
}

KbValue nvShflBfly(KbBuilder *b, KbValue v, uint32_t laneMask) {
  KbValue ops[4] = {kbI32(b, -1), v, kbI32(b, laneMask), kbI32(b, 0x1f)};
  MlirNamedAttribute kind = kbNamed(b, "kind", kbAttr(b, "#nvvm<shfl_kind bfly>"));
  return mlirOperationGetResult(kbOp(b, "nvvm.shfl.sync", 1, &b->i32, 4, ops, 1, &kind), 0);
}
