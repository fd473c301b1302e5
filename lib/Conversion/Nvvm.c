/* Nvvm.c — generic-form construction of the nvvm ops used by the kernel (see Nvvm.h). The
 * attribute spellings follow MLIR 22's NVVMOps.td. */
#include "Nvvm.h"

#include "nvfp4-c/KernelConfig.h"

#include <stdio.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

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

static void gridDepControl(KbBuilder *b, const char *kind) {
  MlirNamedAttribute a = kbNamed(b, "kind", kbAttr(b, kind));
  kbOp(b, "nvvm.griddepcontrol", 0, NULL, 0, NULL, 1, &a);
}

void nvGridDepWait(KbBuilder *b) { gridDepControl(b, "#nvvm<grid_dep_action wait>"); }

void nvGridDepLaunchDependents(KbBuilder *b) {
  gridDepControl(b, "#nvvm<grid_dep_action launch_dependents>");
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
  nvMbarWaitScoped(b, bar, parity, false);
}

void nvMbarWaitScoped(KbBuilder *b, KbValue bar, KbValue parity, bool cluster) {
  nvMbarWaitTagged(b, bar, parity, cluster, NULL);
}

void nvMbarWaitTagged(KbBuilder *b, KbValue bar, KbValue parity, bool cluster,
                      const char *barrier) {
  kbWhile(b);
  KbValue ops[2] = {bar, parity};
  MlirNamedAttribute attrs[2];
  intptr_t n = 0;
  if (cluster) attrs[n++] = kbNamed(b, "scope", kbAttr(b, "#nvvm.mem_scope<cluster>"));
  if (barrier)
    attrs[n++] = kbNamed(b, "nvfp4.barrier",
                         mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(barrier)));
  KbValue done = res0(kbOp(b, "nvvm.mbarrier.try_wait", 1, &b->i1, 2, ops, n, attrs));
  kbWhileDo(b, kbXor(b, done, kbBool(b, true)));
  kbEndWhile(b);
}

void nvFenceProxyAsyncShared(KbBuilder *b) {
  MlirNamedAttribute attrs[2] = {
      kbNamed(b, "kind", kbAttr(b, "#nvvm.proxy_kind<async.shared>")),
      kbNamed(b, "space", kbAttr(b, "#nvvm.shared_space<cta>"))};
  kbOp(b, "nvvm.fence.proxy", 0, NULL, 0, NULL, 2, attrs);
}

static MlirNamedAttribute ctaGroupAttr(KbBuilder *b, const char *name, uint32_t ctaGroup);

/* The load of nvTmaLoad2d / nvTmaLoad2dPair: `ctaGroup` 2 adds .cta_group::2, a non-null
 * `ctaMask` (i16) .multicast::cluster. */
static MlirOperation tmaLoad(KbBuilder *b, KbValue dstShared, KbValue tensorMap, KbValue bar,
                             KbValue x, KbValue y, KbValue l2Hint, const char *tag,
                             uint32_t ctaGroup, KbValue ctaMask) {
  KbValue dst = kbAddrSpaceCast(b, dstShared, b->ptrCluster);
  bool hint = !mlirValueIsNull(l2Hint), mask = !mlirValueIsNull(ctaMask);
  KbValue ops[7] = {dst, tensorMap, x, y, bar};
  intptr_t n = 5;
  if (mask) ops[n++] = ctaMask;
  if (hint) ops[n++] = l2Hint;
  /* dstMem, tmaDescriptor, coordinates, mbar, im2colOffsets, multicastMask, l2CacheHint,
   * predicate */
  int32_t seg[8] = {1, 1, 2, 1, 0, mask ? 1 : 0, hint ? 1 : 0, 0};
  MlirNamedAttribute attrs[3] = {
      kbNamed(b, "operandSegmentSizes", kbSegments(b, 8, seg)),
      kbNamed(b, "nvfp4.operand", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(tag))),
      ctaGroupAttr(b, "group", ctaGroup)};
  return kbOp(b, "nvvm.cp.async.bulk.tensor.shared.cluster.global", 0, NULL, n, ops,
              ctaGroup == 2 ? 3 : 2, attrs);
}

MlirOperation nvTmaLoad2d(KbBuilder *b, KbValue dstShared, KbValue tensorMap, KbValue bar,
                          KbValue x, KbValue y, KbValue l2Hint, const char *tag) {
  return tmaLoad(b, dstShared, tensorMap, bar, x, y, l2Hint, tag, 1, (MlirValue){NULL});
}

MlirOperation nvTmaLoad2dPair(KbBuilder *b, KbValue dstShared, KbValue tensorMap, KbValue bar,
                              KbValue x, KbValue y, KbValue l2Hint, const char *tag,
                              uint32_t ctaGroup, KbValue ctaMask) {
  return tmaLoad(b, dstShared, tensorMap, bar, x, y, l2Hint, tag, ctaGroup, ctaMask);
}

KbValue nvLeaderBarrier(KbBuilder *b, KbValue bar) {
  KbValue a = kbAnd(b, kbPtrToInt(b, bar, b->i32), kbI32(b, (int32_t)MLIR_NVFP4_PEER_BIT_MASK));
  return kbIntToPtr(b, a, mlirValueGetType(bar));
}

MlirOperation nvTmaStore2d(KbBuilder *b, KbValue tensorMap, KbValue srcShared, KbValue x,
                           KbValue y, const char *tag) {
  KbValue ops[4] = {tensorMap, srcShared, x, y};
  /* tmaDescriptor, srcMem, coordinates, l2CacheHint, predicate */
  int32_t seg[5] = {1, 1, 2, 0, 0};
  MlirNamedAttribute attrs[2] = {
      kbNamed(b, "operandSegmentSizes", kbSegments(b, 5, seg)),
      kbNamed(b, "nvfp4.operand", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(tag)))};
  return kbOp(b, "nvvm.cp.async.bulk.tensor.global.shared.cta", 0, NULL, 4, ops, 2, attrs);
}

void nvBulkCommitGroup(KbBuilder *b) {
  kbOp(b, "nvvm.cp.async.bulk.commit.group", 0, NULL, 0, NULL, 0, NULL);
}

void nvBulkWaitGroupRead(KbBuilder *b, uint32_t n) {
  MlirNamedAttribute attrs[2] = {
      kbNamed(b, "group", mlirIntegerAttrGet(b->i32, n)),
      kbNamed(b, "read", mlirUnitAttrGet(b->ctx))};
  kbOp(b, "nvvm.cp.async.bulk.wait_group", 0, NULL, 0, NULL, 2, attrs);
}

void nvBulkWaitGroup(KbBuilder *b, uint32_t n) {
  MlirNamedAttribute a = kbNamed(b, "group", mlirIntegerAttrGet(b->i32, n));
  kbOp(b, "nvvm.cp.async.bulk.wait_group", 0, NULL, 0, NULL, 1, &a);
}

void nvPrefetchTensormap(KbBuilder *b, KbValue tensorMap) {
  MlirNamedAttribute a = kbNamed(b, "tensormap", mlirUnitAttrGet(b->ctx));
  kbOp(b, "nvvm.prefetch", 0, NULL, 1, &tensorMap, 1, &a);
}

void nvNamedBarrier(KbBuilder *b, uint32_t id, uint32_t threads) {
  nvNamedBarrierAt(b, kbI32(b, id), threads);
}

void nvNamedBarrierAt(KbBuilder *b, KbValue id, uint32_t threads) {
  KbValue ops[2] = {id, kbI32(b, threads)};
  /* barrierId, numberOfThreads, reductionPredicate */
  int32_t seg[3] = {1, 1, 0};
  MlirNamedAttribute a = kbNamed(b, "operandSegmentSizes", kbSegments(b, 3, seg));
  kbOp(b, "nvvm.barrier", 0, NULL, 2, ops, 1, &a);
}

/* An llvm.inline_asm statement with side effects and a memory clobber, no results. */
static void asmStatement(KbBuilder *b, const char *text, const char *constraints, intptr_t n,
                         const KbValue *operands) {
  MlirNamedAttribute attrs[3] = {
      kbNamed(b, "asm_string", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(text))),
      kbNamed(b, "constraints",
              mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(constraints))),
      kbNamed(b, "has_side_effects", mlirUnitAttrGet(b->ctx))};
  kbOp(b, "llvm.inline_asm", 0, NULL, n, operands, 3, attrs);
}

void nvTensormapReplaceAddress(KbBuilder *b, KbValue map, KbValue address) {
  KbValue ops[2] = {map, address};
  asmStatement(b, "tensormap.replace.tile.global_address.global.b1024.b64 [$0], $1;",
               "l,l,~{memory}", 2, ops);
}

void nvFenceProxyTensormapRelease(KbBuilder *b) {
  asmStatement(b, "fence.proxy.tensormap::generic.release.gpu;", "~{memory}", 0, NULL);
}

void nvFenceProxyTensormapAcquire(KbBuilder *b, KbValue map) {
  asmStatement(b, "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;", "l,~{memory}", 1,
               &map);
}

KbValue nvRegisterFence(KbBuilder *b, KbValue vec, uint32_t num) {
  KbValue elems[128];
  MlirType types[128];
  char constraints[1024];
  int len = 0;
  if (num > 128) num = 128;
  for (uint32_t i = 0; i < num; ++i) {
    elems[i] = kbExtract(b, vec, kbI32(b, i));
    types[i] = b->i32;
    len += snprintf(constraints + len, sizeof constraints - len, "%s=r", i ? "," : "");
  }
  for (uint32_t i = 0; i < num; ++i)
    len += snprintf(constraints + len, sizeof constraints - len, ",%u", i);
  MlirType st = mlirLLVMStructTypeLiteralGet(b->ctx, num, types, false);
  MlirNamedAttribute attrs[3] = {
      kbNamed(b, "asm_string", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(""))),
      kbNamed(b, "constraints",
              mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(constraints))),
      kbNamed(b, "has_side_effects", mlirUnitAttrGet(b->ctx))};
  KbValue s = res0(kbOp(b, "llvm.inline_asm", 1, &st, num, elems, 3, attrs));
  KbValue out = kbUndef(b, mlirValueGetType(vec));
  for (uint32_t i = 0; i < num; ++i) {
    int64_t pos[1] = {i};
    MlirNamedAttribute p = kbNamed(b, "position", mlirDenseI64ArrayGet(b->ctx, 1, pos));
    KbValue e = res0(kbOp(b, "llvm.extractvalue", 1, &b->i32, 1, &s, 1, &p));
    out = kbInsert(b, out, e, kbI32(b, i));
  }
  return out;
}

/* ---- sm_90a ------------------------------------------------------------------------------ */

void nvSetMaxRegisters(KbBuilder *b, uint32_t count, bool increase) {
  MlirNamedAttribute attrs[2] = {
      kbNamed(b, "regCount", mlirIntegerAttrGet(b->i32, count)),
      kbNamed(b, "action", kbAttr(b, increase ? "#nvvm<action increase>" : "#nvvm<action decrease>"))};
  kbOp(b, "nvvm.setmaxregister", 0, NULL, 0, NULL, 2, attrs);
}

void nvWgmmaFence(KbBuilder *b) { kbOp(b, "nvvm.wgmma.fence.aligned", 0, NULL, 0, NULL, 0, NULL); }

void nvWgmmaCommitGroup(KbBuilder *b) {
  kbOp(b, "nvvm.wgmma.commit.group.sync.aligned", 0, NULL, 0, NULL, 0, NULL);
}

void nvWgmmaWaitGroup(KbBuilder *b, uint32_t pending) {
  MlirNamedAttribute a = kbNamed(b, "group", mlirIntegerAttrGet(b->i64, pending));
  kbOp(b, "nvvm.wgmma.wait.group.sync.aligned", 0, NULL, 0, NULL, 1, &a);
}

/* An llvm.inline_asm with side effects returning a struct of `nres` values of `types`. */
static KbValue inlineAsm(KbBuilder *b, const char *text, const char *constraints, uint32_t nres,
                         const MlirType *types, intptr_t n, const KbValue *operands) {
  MlirType st = mlirLLVMStructTypeLiteralGet(b->ctx, nres, types, false);
  MlirNamedAttribute attrs[3] = {
      kbNamed(b, "asm_string", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(text))),
      kbNamed(b, "constraints",
              mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(constraints))),
      kbNamed(b, "has_side_effects", mlirUnitAttrGet(b->ctx))};
  return res0(kbOp(b, "llvm.inline_asm", 1, &st, n, operands, 3, attrs));
}

static KbValue extractField(KbBuilder *b, KbValue s, MlirType t, uint32_t i) {
  int64_t pos[1] = {i};
  MlirNamedAttribute p = kbNamed(b, "position", mlirDenseI64ArrayGet(b->ctx, 1, pos));
  return res0(kbOp(b, "llvm.extractvalue", 1, &t, 1, &s, 1, &p));
}

void nvGlobalReleaseStoreU32(KbBuilder *b, KbValue address, KbValue value) {
  KbValue ops[2] = {address, value};
  asmStatement(b, NV_ASM_RELEASE_STORE_U32, "l,r,~{memory}", 2, ops);
}

KbValue nvGlobalAcquireLoadU32(KbBuilder *b, KbValue address) {
  KbValue s = inlineAsm(b, NV_ASM_ACQUIRE_LOAD_U32, "=r,l,~{memory}", 1, &b->i32, 1, &address);
  return extractField(b, s, b->i32, 0);
}

KbValue nvNamedBarrierOrAt(KbBuilder *b, KbValue id, uint32_t threads, KbValue pred) {
  KbValue ops[3] = {id, kbI32(b, threads), kbZExt(b, pred, b->i32)};
  KbValue s = inlineAsm(b, NV_ASM_BARRIER_OR, "=r,r,r,r,~{memory}", 1, &b->i32, 3, ops);
  return kbCmpI(b, KB_NE, extractField(b, s, b->i32, 0), 0);
}

KbValue nvGlobalAtomicAddU32(KbBuilder *b, KbValue address, KbValue value) {
  KbValue ops[2] = {address, value};
  KbValue s = inlineAsm(b, NV_ASM_ATOMIC_ADD_U32, "=r,l,r,~{memory}", 1, &b->i32, 2, ops);
  return extractField(b, s, b->i32, 0);
}

#define NV_ASM_MAX 160

void nvWgmmaBf16RegA(KbBuilder *b, uint32_t n, KbValue *acc, const KbValue a[4], KbValue descB,
                     KbValue scaleD) {
  const uint32_t nacc = n / 2;
  if (n < 8 || n > 256 || n % 8 || nacc + 6 > NV_ASM_MAX) {
    b->failed = true;
    return;
  }
  static char text[4096], cons[2048];
  int tl = snprintf(text, sizeof text,
                    "{\n.reg .pred p;\nsetp.ne.b32 p, $%u, 0;\n"
                    "wgmma.mma_async.sync.aligned.m64n%uk16.f32.bf16.bf16 {",
                    2 * nacc + 5, n);
  for (uint32_t i = 0; i < nacc; ++i) tl += snprintf(text + tl, sizeof text - tl, "%s$%u", i ? ", " : "", i);
  snprintf(text + tl, sizeof text - tl, "}, {$%u, $%u, $%u, $%u}, $%u, p, 1, 1, 0;\n}\n",
           2 * nacc, 2 * nacc + 1, 2 * nacc + 2, 2 * nacc + 3, 2 * nacc + 4);
  int cl = 0;
  for (uint32_t i = 0; i < nacc; ++i) cl += snprintf(cons + cl, sizeof cons - cl, "%s=f", i ? "," : "");
  for (uint32_t i = 0; i < nacc; ++i) cl += snprintf(cons + cl, sizeof cons - cl, ",%u", i);
  snprintf(cons + cl, sizeof cons - cl, ",r,r,r,r,l,r");
  KbValue ops[NV_ASM_MAX];
  MlirType types[NV_ASM_MAX];
  for (uint32_t i = 0; i < nacc; ++i) {
    ops[i] = acc[i];
    types[i] = b->f32;
  }
  for (uint32_t i = 0; i < 4; ++i) ops[nacc + i] = a[i];
  ops[nacc + 4] = descB;
  ops[nacc + 5] = scaleD;
  KbValue s = inlineAsm(b, text, cons, nacc, types, nacc + 6, ops);
  for (uint32_t i = 0; i < nacc; ++i) acc[i] = extractField(b, s, b->f32, i);
}

void nvStMatrixX4Trans(KbBuilder *b, KbValue sharedPtr, const KbValue regs[4]) {
  KbValue ops[5] = {sharedPtr, regs[0], regs[1], regs[2], regs[3]};
  MlirNamedAttribute attrs[3] = {
      kbNamed(b, "layout", kbAttr(b, "#nvvm.mma_layout<col>")),
      kbNamed(b, "shape", kbAttr(b, "#nvvm.ld_st_matrix_shape<m = 8, n = 8>")),
      kbNamed(b, "eltType", kbAttr(b, "#nvvm.ld_st_matrix_elt_type<b16>"))};
  kbOp(b, "nvvm.stmatrix", 0, NULL, 5, ops, 3, attrs);
}

void nvRegisterFenceValues(KbBuilder *b, KbValue *values, uint32_t n) {
  if (n == 0) return;
  if (n > NV_ASM_MAX) {
    b->failed = true;
    return;
  }
  static char cons[2048];
  MlirType types[NV_ASM_MAX];
  int len = 0;
  for (uint32_t i = 0; i < n; ++i) {
    types[i] = mlirValueGetType(values[i]);
    len += snprintf(cons + len, sizeof cons - len, "%s=%s", i ? "," : "",
                    mlirTypeEqual(types[i], b->f32) ? "f" : "r");
  }
  for (uint32_t i = 0; i < n; ++i) len += snprintf(cons + len, sizeof cons - len, ",%u", i);
  KbValue s = inlineAsm(b, "", cons, n, types, n, values);
  for (uint32_t i = 0; i < n; ++i) values[i] = extractField(b, s, types[i], i);
}

static KbValue tmemPtr(KbBuilder *b, KbValue taddr) { return kbIntToPtr(b, taddr, b->ptrTmem); }

static MlirNamedAttribute ctaGroupAttr(KbBuilder *b, const char *name, uint32_t ctaGroup) {
  return kbNamed(b, name, kbAttr(b, ctaGroup == 2 ? "#nvvm.cta_group<cta_2>"
                                                  : "#nvvm.cta_group<cta_1>"));
}

void nvTcAlloc(KbBuilder *b, KbValue dstShared, uint32_t cols, uint32_t ctaGroup) {
  KbValue ops[2] = {dstShared, kbI32(b, cols)};
  MlirNamedAttribute g = ctaGroupAttr(b, "group", ctaGroup);
  kbOp(b, "nvvm.tcgen05.alloc", 0, NULL, 2, ops, ctaGroup == 2 ? 1 : 0, &g);
}

void nvTcDealloc(KbBuilder *b, KbValue taddr, uint32_t cols, uint32_t ctaGroup) {
  KbValue ops[2] = {tmemPtr(b, taddr), kbI32(b, cols)};
  MlirNamedAttribute g = ctaGroupAttr(b, "group", ctaGroup);
  kbOp(b, "nvvm.tcgen05.dealloc", 0, NULL, 2, ops, ctaGroup == 2 ? 1 : 0, &g);
}

void nvTcRelinquish(KbBuilder *b, uint32_t ctaGroup) {
  MlirNamedAttribute g = ctaGroupAttr(b, "group", ctaGroup);
  kbOp(b, "nvvm.tcgen05.relinquish_alloc_permit", 0, NULL, 0, NULL, ctaGroup == 2 ? 1 : 0, &g);
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

void nvTcCommit(KbBuilder *b, KbValue bar, uint32_t ctaGroup, uint32_t ctaMask) {
  MlirType i16 = mlirIntegerTypeGet(b->ctx, 16);
  KbValue ops[2] = {bar, ctaMask ? kbConst(b, i16, ctaMask) : (MlirValue){NULL}};
  MlirNamedAttribute g = ctaGroupAttr(b, "group", ctaGroup);
  kbOp(b, "nvvm.tcgen05.commit", 0, NULL, ctaMask ? 2 : 1, ops, ctaGroup == 2 ? 1 : 0, &g);
}

void nvTcCp32x128bWarpx4(KbBuilder *b, KbValue taddr, KbValue sdesc, uint32_t ctaGroup) {
  KbValue ops[2] = {tmemPtr(b, taddr), sdesc};
  MlirNamedAttribute attrs[3] = {
      kbNamed(b, "shape", kbAttr(b, "#nvvm.tcgen05_cp_shape<shape_32x128b>")),
      kbNamed(b, "multicast", kbAttr(b, "#nvvm.tcgen05_cp_multicast<warpx4>")),
      ctaGroupAttr(b, "group", ctaGroup)};
  kbOp(b, "nvvm.tcgen05.cp", 0, NULL, 2, ops, ctaGroup == 2 ? 3 : 2, attrs);
}

void nvTcMmaMxf4Nvf4(KbBuilder *b, KbValue d, KbValue adesc, KbValue bdesc, KbValue idesc,
                     KbValue enableD, KbValue sfa, KbValue sfb, uint32_t ctaGroup) {
  KbValue ops[7] = {tmemPtr(b, d), adesc, bdesc, idesc, enableD, tmemPtr(b, sfa),
                    tmemPtr(b, sfb)};
  MlirNamedAttribute attrs[3] = {
      kbNamed(b, "kind", kbAttr(b, "#nvvm.block_scale_kind<mxf4nvf4>")),
      ctaGroupAttr(b, "ctaGroup", ctaGroup),
      kbNamed(b, "blockScale", kbAttr(b, "#nvvm.tcgen05_mma_block_scale<block16>"))};
  kbOp(b, "nvvm.tcgen05.mma.block_scale", 0, NULL, 7, ops, 3, attrs);
}

KbValue nvMapa(KbBuilder *b, KbValue sharedPtr, KbValue rank) {
  KbValue ops[2] = {sharedPtr, rank};
  return res0(kbOp(b, "nvvm.mapa", 1, &b->ptrCluster, 2, ops, 0, NULL));
}

void nvMbarArriveCluster(KbBuilder *b, KbValue clusterPtr) {
  MlirNamedAttribute a = kbNamed(b, "scope", kbAttr(b, "#nvvm.mem_scope<cluster>"));
  kbOp(b, "nvvm.mbarrier.arrive", 0, NULL, 1, &clusterPtr, 1, &a);
}

void nvClusterSync(KbBuilder *b) {
  MlirNamedAttribute a = kbNamed(b, "aligned", mlirUnitAttrGet(b->ctx));
  kbOp(b, "nvvm.cluster.arrive", 0, NULL, 0, NULL, 1, &a);
  kbOp(b, "nvvm.cluster.wait", 0, NULL, 0, NULL, 1, &a);
}

KbValue nvTcLd32x32b(KbBuilder *b, KbValue taddr, uint32_t num) {
  int64_t shape[1] = {num};
  MlirType vec = mlirVectorTypeGet(1, shape, b->i32);
  KbValue p = tmemPtr(b, taddr);
  MlirNamedAttribute a = kbNamed(b, "shape", kbAttr(b, "#nvvm.tcgen05_ldst_shape<shape_32x32b>"));
  return res0(kbOp(b, "nvvm.tcgen05.ld", 1, &vec, 1, &p, 1, &a));
}
