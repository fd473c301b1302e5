/* Nvvm.c — generic-form construction of the nvvm ops used by the kernel (see Nvvm.h). The
 * attribute spellings follow MLIR 22's NVVMOps.td. */
#include "Nvvm.h"

#include <stdio.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

static KbValue res0(MlirOperation op) {
  return mlirOperationIsNull(op) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

KbValue nvSreg(KbBuilder *b, const char *name) {
  char full[64];
  snprintf(full, sizeof full, "nvvm.read.ptx.sreg.%s", name);
  return res0(kbOp(b, full, 1, &b->i32, 0, NULL, 0, NULL));
}

void nvBarrier0(KbBuilder *b) { kbOp(b, "nvvm.barrier0", 0, NULL, 0, NULL, 0, NULL); }

void nvWarpSync(KbBuilder *b) {
  KbValue mask = kbI32(b, -1);
  kbOp(b, "nvvm.bar.warp.sync", 0, NULL, 1, &mask, 0, NULL);
}

void nvMbarInit(KbBuilder *b, KbValue bar, uint32_t count) {
  KbValue ops[2] = {bar, kbI32(b, count)};
  kbOp(b, "nvvm.mbarrier.init", 0, NULL, 2, ops, 0, NULL);
}

void nvMbarFenceInit(KbBuilder *b) {
  kbOp(b, "nvvm.fence.mbarrier.init", 0, NULL, 0, NULL, 0, NULL);
}

void nvMbarArriveExpectTx(KbBuilder *b, KbValue bar, KbValue bytes) {
  KbValue ops[2] = {bar, bytes};
  kbOp(b, "nvvm.mbarrier.arrive.expect_tx", 0, NULL, 2, ops, 0, NULL);
}

void nvMbarArrive(KbBuilder *b, KbValue bar) {
  kbOp(b, "nvvm.mbarrier.arrive", 0, NULL, 1, &bar, 0, NULL);
}

void nvMbarWait(KbBuilder *b, KbValue bar, KbValue parity) {
  kbWhile(b);
  KbValue ops[2] = {bar, parity};
  KbValue done = res0(kbOp(b, "nvvm.mbarrier.try_wait", 1, &b->i1, 2, ops, 0, NULL));
  kbWhileDo(b, kbXor(b, done, kbBool(b, true)));
  kbEndWhile(b);
}

void nvFenceProxyAsyncShared(KbBuilder *b) {
  MlirNamedAttribute attrs[2] = {
      kbNamed(b, "kind", kbAttr(b, "#nvvm.proxy_kind<async.shared>")),
      kbNamed(b, "space", kbAttr(b, "#nvvm.shared_space<cta>"))};
  kbOp(b, "nvvm.fence.proxy", 0, NULL, 0, NULL, 2, attrs);
}

MlirOperation nvTmaLoad2d(KbBuilder *b, KbValue dstShared, KbValue tensorMap, KbValue bar,
                          KbValue x, KbValue y, const char *tag) {
  KbValue dst = kbAddrSpaceCast(b, dstShared, b->ptrCluster);
  KbValue ops[5] = {dst, tensorMap, x, y, bar};
  int32_t seg[8] = {1, 1, 2, 1, 0, 0, 0, 0};
  MlirNamedAttribute attrs[2] = {
      kbNamed(b, "operandSegmentSizes", kbSegments(b, 8, seg)),
      kbNamed(b, "nvfp4.operand", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(tag)))};
  return kbOp(b, "nvvm.cp.async.bulk.tensor.shared.cluster.global", 0, NULL, 5, ops, 2, attrs);
}

static KbValue tmemPtr(KbBuilder *b, KbValue taddr) { return kbIntToPtr(b, taddr, b->ptrTmem); }

void nvTcAlloc(KbBuilder *b, KbValue dstShared, uint32_t cols) {
  KbValue ops[2] = {dstShared, kbI32(b, cols)};
  kbOp(b, "nvvm.tcgen05.alloc", 0, NULL, 2, ops, 0, NULL);
}

void nvTcDealloc(KbBuilder *b, KbValue taddr, uint32_t cols) {
  KbValue ops[2] = {tmemPtr(b, taddr), kbI32(b, cols)};
  kbOp(b, "nvvm.tcgen05.dealloc", 0, NULL, 2, ops, 0, NULL);
}

void nvTcRelinquish(KbBuilder *b) {
  kbOp(b, "nvvm.tcgen05.relinquish_alloc_permit", 0, NULL, 0, NULL, 0, NULL);
}

static void tcFence(KbBuilder *b, const char *kind) {
  char text[64];
  snprintf(text, sizeof text, "#nvvm.tcgen05_fence<%s>", kind);
  MlirNamedAttribute a = kbNamed(b, "kind", kbAttr(b, text));
  kbOp(b, "nvvm.tcgen05.fence", 0, NULL, 0, NULL, 1, &a);
}
void nvTcFenceBefore(KbBuilder *b) { tcFence(b, "before"); }
void nvTcFenceAfter(KbBuilder *b) { tcFence(b, "after"); }

void nvTcWaitLd(KbBuilder *b) {
  MlirNamedAttribute a = kbNamed(b, "kind", kbAttr(b, "#nvvm.tcgen05_wait<load>"));
  kbOp(b, "nvvm.tcgen05.wait", 0, NULL, 0, NULL, 1, &a);
}

void nvTcCommit(KbBuilder *b, KbValue bar) {
  kbOp(b, "nvvm.tcgen05.commit", 0, NULL, 1, &bar, 0, NULL);
}

void nvTcCp32x128bWarpx4(KbBuilder *b, KbValue taddr, KbValue sdesc) {
  KbValue ops[2] = {tmemPtr(b, taddr), sdesc};
  MlirNamedAttribute attrs[2] = {
      kbNamed(b, "shape", kbAttr(b, "#nvvm.tcgen05_cp_shape<shape_32x128b>")),
      kbNamed(b, "multicast", kbAttr(b, "#nvvm.tcgen05_cp_multicast<warpx4>"))};
  kbOp(b, "nvvm.tcgen05.cp", 0, NULL, 2, ops, 2, attrs);
}

void nvTcMmaMxf4Nvf4(KbBuilder *b, KbValue d, KbValue adesc, KbValue bdesc, KbValue idesc,
                     KbValue enableD, KbValue sfa, KbValue sfb) {
  KbValue ops[7] = {tmemPtr(b, d), adesc, bdesc, idesc, enableD, tmemPtr(b, sfa),
                    tmemPtr(b, sfb)};
  MlirNamedAttribute attrs[3] = {
      kbNamed(b, "kind", kbAttr(b, "#nvvm.block_scale_kind<mxf4nvf4>")),
      kbNamed(b, "ctaGroup", kbAttr(b, "#nvvm.cta_group<cta_1>")),
      kbNamed(b, "blockScale", kbAttr(b, "#nvvm.tcgen05_mma_block_scale<block16>"))};
  kbOp(b, "nvvm.tcgen05.mma.block_scale", 0, NULL, 7, ops, 3, attrs);
}

KbValue nvTcLd32x32b(KbBuilder *b, KbValue taddr, uint32_t num) {
  int64_t shape[1] = {num};
  MlirType vec = mlirVectorTypeGet(1, shape, b->i32);
  KbValue p = tmemPtr(b, taddr);
  MlirNamedAttribute a = kbNamed(b, "shape", kbAttr(b, "#nvvm.tcgen05_ldst_shape<shape_32x32b>"));
  return res0(kbOp(b, "nvvm.tcgen05.ld", 1, &vec, 1, &p, 1, &a));
}
