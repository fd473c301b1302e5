/* EmulateSm120.c — the --nvfp4-emulate-sm120 pass, in C: makes the sm_120a kernel family
 * (sm_120a, sm_121a, sm_120f) run on an sm_90a GPU (H200).
 *
 * Runs after --nvfp4-lower-grouped-matmul. Every nvvm.mma.block_scale (the block-scaled
 * mma.sync m16n8k64 kind::mxf4nvf4 scale_vec::4X, which Hopper does not have) becomes a call
 * to nvfp4_emu_mma_sync_mxf4nvf4_4x of the emulation library (emulation/, written from the
 * PTX ISA apart from the generator: the lanes exchange their fragments with shuffles), with
 * its four results read back from a per-call buffer; the module is retargeted to sm_90a
 * with the library's bitcode linked (RetargetSm90.c, through this pass's op table,
 * OpTable.h: target attribute, metadata records with target sm_90a, target_sm 90,
 * NVFP4_META_FLAG_EMULATION_MMA_SYNC and no workspace).
 * Everything else runs natively on Hopper as generated: TMA into the CTA's shared memory
 * through UINT8 maps, mbarriers, ldmatrix, the scheduler, the epilogue. tcgen05 modules and
 * native sm_90a modules are left alone (--nvfp4-emulate-tcgen05 takes the former).
 *
 * Every op the pass creates carries the unit attribute `nvfp4.emulation`, so a test can
 * check that the rewritten kernel differs from the sm_120a one only in those ops.
 */
#include <stdio.h>
#include <string.h>

#include "EmulationBitcode.h"
#include "KernelBuilder.h"
#include "LoweringCommon.h"
#include "RetargetSm90.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVVM.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Passes.h"

static const char *const kDecls[] = {
    "llvm.func @nvfp4_emu_mma_sync_mxf4nvf4_4x(!llvm.ptr, i32, i32, i32, i32, i32, i32, f32, f32, "
    "f32, f32, i32, i32, i32, i32, i32, i32)",
};

/* The MMA's results (llvm.extractvalue of its struct) become loads of the buffer. */
static const char *replaceResults(KbBuilder *b, MlirOperation op, KbVar buf) {
  MlirValue res = mlirOperationGetResult(op, 0);
  MlirOpOperand use = mlirValueGetFirstUse(res);
  while (!mlirOpOperandIsNull(use)) {
    MlirOpOperand next = mlirOpOperandGetNextUse(use);
    MlirOperation user = mlirOpOperandGetOwner(use);
    MlirAttribute pos = mlirOperationGetAttributeByName(user, mlirStringRefCreateFromCString("position"));
    if (!nvfp4OpIs(user, "llvm.extractvalue") || mlirAttributeIsNull(pos) ||
        mlirDenseArrayGetNumElements(pos) != 1 || mlirDenseI64ArrayGetElement(pos, 0) < 0 ||
        mlirDenseI64ArrayGetElement(pos, 0) > 3)
      return "mma.sync results used other than through llvm.extractvalue of fields 0..3";
    const int32_t field = (int32_t)mlirDenseI64ArrayGetElement(pos, 0);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(user, 0),
                                  kbLoad(b, b->f32, kbGep(b, buf.slot, 4 * field), 4));
    mlirOperationDestroy(user);
    use = next;
  }
  return NULL;
}

/* The handler of nvvm.mma.block_scale (OpTable.h): operands a0..a3, b0, b1, c0..c3,
 * scale-a, byte-id-a, thread-id-a, scale-b, byte-id-b, thread-id-b become the library call's
 * arguments after the result buffer; the op is erased. */
static Nvfp4OpAction emuMmaSync(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  KbBuilder *b = &r->b;
  if (mlirOperationGetNumOperands(op) != 16 ||
      !nvfp4OpAttrIs(b, op, "kind", "#nvvm.block_scale_kind<mxf4nvf4>") ||
      !nvfp4OpAttrIs(b, op, "scaleVecSize", "#nvvm.scale_vec_size<x4>") ||
      !nvfp4OpAttrIs(b, op, "blockScaleFormat", "#nvvm.block_scale_format<ue4m3>") ||
      !nvfp4OpAttrIs(b, op, "shape", "#nvvm.shape<m = 16, n = 8, k = 64>") ||
      !nvfp4OpAttrIs(b, op, "multiplicandAPtxType", "#nvvm.mma_type<e2m1>") ||
      !nvfp4OpAttrIs(b, op, "multiplicandBPtxType", "#nvvm.mma_type<e2m1>"))
    return nvfp4RetargetRefuse(
        r, "only mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X"
           ".f32.e2m1.e2m1.f32.ue4m3 is emulated");
  KbVar buf = kbVar(b, mlirLLVMArrayTypeGet(b->f32, 4), (MlirValue){NULL});
  KbValue args[17];
  args[0] = buf.slot;
  for (intptr_t i = 0; i < 16; ++i) { /* the selectors are i16: the library takes u32 */
    MlirValue v = mlirOperationGetOperand(op, i);
    args[1 + i] = mlirTypeEqual(mlirValueGetType(v), b->i16) ? kbZExt(b, v, b->i32) : v;
  }
  kbCall(b, "nvfp4_emu_mma_sync_mxf4nvf4_4x", (MlirType){NULL}, 17, args);
  const char *why = replaceResults(b, op, buf);
  return why ? nvfp4RetargetRefuse(r, why) : NVFP4_OP_ERASE;
}

static const Nvfp4OpEntry kOps[] = {
    {"nvvm.mma.block_scale", NULL, emuMmaSync},
};
static const Nvfp4OpTable kOpTable = NVFP4_OP_TABLE(kOps);

static void runEmulate(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  char targets[1400];
  const int found = nvfp4EmulationTargets(module, "nvfp4-emulate-sm120", targets, sizeof targets);
  if (found <= 0) {
    if (found < 0) mlirExternalPassSignalFailure(pass);
    return;
  }
  const Nvfp4Sm90Target t = {"nvfp4-emulate-sm120", "nvfp4.emulation", targets, kDecls,
                             sizeof kDecls / sizeof kDecls[0],
                             NVFP4_META_FLAG_EMULATION_MMA_SYNC, 0, 0, &kOpTable, NULL,
                             true};
  if (!nvfp4RetargetToSm90(module, &t)) mlirExternalPassSignalFailure(pass);
}

MlirPass mlirNvfp4CreateEmulateSm120Pass(void) {
  static MlirTypeID id;
  MlirDialectHandle deps[3] = {mlirGetDialectHandle__llvm__(), mlirGetDialectHandle__nvvm__(),
                               mlirGetDialectHandle__gpu__()};
  return nvfp4CreateModulePass(
      &id, "NVFP4EmulateSm120", "nvfp4-emulate-sm120",
      "Rewrite the block-scaled mma.sync of sm_120a kernels into calls to the sm_90a "
      "emulation library and retarget them to sm_90a", 3, deps, runEmulate);
}
