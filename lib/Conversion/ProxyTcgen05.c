/* ProxyTcgen05.c — the --nvfp4-proxy-tcgen05 pass, in C: the timing proxy of the sm_100a
 * kernel.
 *
 * Runs after --nvfp4-lower-grouped-matmul. It keeps the generated kernel as it is — TMA
 * loads and stores, the mbarrier rings, the persistent scheduler, the epilogue's
 * conversions and stores — and makes every tcgen05 operation as cheap as possible while
 * keeping the protocol it takes part in:
 *   tcgen05.alloc          writes the fixed Tensor Memory address 0 into its shared slot;
 *   tcgen05.commit         performs the mbarrier arrive it stands for, at once: on the
 *                          issuing CTA's barrier, or with a multicast mask on the barrier
 *                          of every masked CTA of the cluster (mapa + remote arrive), so
 *                          cta_group::2 variants run as cheaply as 1-CTA ones;
 *   tcgen05.ld             returns zeros (the epilogue converts and stores them);
 *   dealloc, relinquish_alloc_permit, cp, mma, fence, wait    do nothing.
 * The retargeting shared with the emulation target (sm_90a, UINT8 A/B maps with byte x
 * coordinates, metadata records) is RetargetSm90.c; the records carry the PROXY flag and no
 * workspace. The cubin runs natively on an H200 at full speed; C must come out zero inside
 * each group's M x N region and untouched outside it (nvfp4-run checks both).
 *
 * Every op the pass creates carries the unit attribute `nvfp4.proxy`, so a test can check
 * that the proxy kernel differs from the sm_100a one only in those ops.
 */
#include <stdio.h>
#include <string.h>

#include "LoweringCommon.h"
#include "Nvvm.h"
#include "RetargetSm90.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVVM.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Passes.h"

/* The value of an integer constant, or -1 when `v` is not one. */
static int64_t constantValue(MlirValue v) {
  if (!mlirValueIsAOpResult(v)) return -1;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!nvfp4OpIs(def, "llvm.mlir.constant")) return -1;
  MlirAttribute a = mlirOperationGetAttributeByName(def, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a)) return -1;
  return mlirIntegerAttrGetValueInt(a);
}

static KbValue sharedPtr(KbBuilder *b, KbValue p) {
  return mlirTypeEqual(mlirValueGetType(p), b->ptrShared) ? p : kbAddrSpaceCast(b, p, b->ptrShared);
}

/* ---- one handler per tcgen05 op: its cheapest protocol-preserving form ---- */

static Nvfp4OpAction proxyAlloc(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  kbStore(&r->b, kbI32(&r->b, 0), mlirOperationGetOperand(op, 0), 4);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction proxyCommit(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  KbBuilder *b = &r->b;
  KbValue bar = sharedPtr(b, mlirOperationGetOperand(op, 0));
  if (mlirOperationGetNumOperands(op) == 1) {
    nvMbarArrive(b, bar);
    return NVFP4_OP_ERASE;
  }
  int64_t mask = constantValue(mlirOperationGetOperand(op, 1));
  if (mask < 0)
    return nvfp4RetargetRefuse(r, "tcgen05.commit with a multicast mask that is not a constant");
  for (int rank = 0; rank < 16; ++rank)
    if (mask >> rank & 1) nvMbarArriveCluster(b, nvMapa(b, bar, kbI32(b, rank)));
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction proxyLd(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  MlirValue res = mlirOperationGetResult(op, 0);
  MlirType ty = mlirValueGetType(res);
  MlirOperation zero = kbOp(&r->b, "llvm.mlir.zero", 1, &ty, 0, NULL, 0, NULL);
  if (mlirOperationIsNull(zero))
    return nvfp4RetargetRefuse(r, "internal error: no zero of the tcgen05.ld type");
  mlirValueReplaceAllUsesOfWith(res, mlirOperationGetResult(zero, 0));
  return NVFP4_OP_ERASE;
}

/* dealloc, relinquish_alloc_permit, cp, mma, fence, wait: nothing to do */
static Nvfp4OpAction proxyNothing(void *pass, MlirOperation op) {
  (void)pass, (void)op;
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction noProxyForm(void *pass, MlirOperation op) {
  (void)op;
  return nvfp4RetargetRefuse(pass, "this tcgen05 operation has no proxy form");
}

static const Nvfp4OpEntry kOps[] = {
    {"nvvm.tcgen05.alloc", NULL, proxyAlloc},
    {"nvvm.tcgen05.commit", NULL, proxyCommit},
    {"nvvm.tcgen05.ld", NULL, proxyLd},
    {"nvvm.tcgen05.dealloc", NULL, proxyNothing},
    {"nvvm.tcgen05.relinquish_alloc_permit", NULL, proxyNothing},
    {"nvvm.tcgen05.cp", NULL, proxyNothing},
    {"nvvm.tcgen05.mma.block_scale", NULL, proxyNothing},
    {"nvvm.tcgen05.fence", NULL, proxyNothing},
    {"nvvm.tcgen05.wait", NULL, proxyNothing},
    {"nvvm.tcgen05.*", NULL, noProxyForm},
};
static const Nvfp4OpTable kOpTable = NVFP4_OP_TABLE(kOps);

static void runProxy(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  const Nvfp4Sm90Target t = {"nvfp4-proxy-tcgen05",
                             "nvfp4.proxy",
                             "[#nvvm.target<chip = \"sm_90a\", features = \"+ptx88\", O = 3>]",
                             NULL,
                             0,
                             NVFP4_META_FLAG_PROXY,
                             0,
                             0,
                             &kOpTable,
                             NULL};
  if (!nvfp4RetargetToSm90(module, &t)) mlirExternalPassSignalFailure(pass);
}

MlirPass mlirNvfp4CreateProxyTcgen05Pass(void) {
  static MlirTypeID id;
  MlirDialectHandle deps[3] = {mlirGetDialectHandle__llvm__(), mlirGetDialectHandle__nvvm__(),
                               mlirGetDialectHandle__gpu__()};
  return nvfp4CreateModulePass(
      &id, "NVFP4ProxyTcgen05", "nvfp4-proxy-tcgen05",
      "Make the tcgen05 ops of nvfp4 kernels free while keeping their protocol: an sm_90a "
      "timing proxy of the sm_100a kernel",
      3, deps, runProxy);
}
