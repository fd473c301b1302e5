/* EmulateTcgen05.c — the --nvfp4-emulate-tcgen05 pass, in C.
 *
 * Runs after --nvfp4-lower-grouped-matmul. It retargets each nvfp4 gpu.module to sm_90a and
 * rewrites every nvvm.tcgen05.* op into a call to the tcgen05 emulation library
 * (emulation/, interface emulation/include/nvfp4_emu.h), linked as LLVM bitcode through
 * the target's `link` list. The retargeting it shares with the timing proxy (the A/B TMA
 * x coordinate in bytes, the metadata records, the walk over the tcgen05 ops) lives in
 * RetargetSm90.c; this file holds the emulation's own part: the library declarations, the
 * bitcode path and the handler of each tcgen05 op (its table, OpTable.h), a library call. The metadata
 * records get the EMULATION flag and the per-CTA workspace size.
 * Every kernel first calls nvfp4_emu_cta_begin (fresh emulator state per CTA, whatever an
 * earlier launch left in shared memory: CUDA graph replays repeat %gridid).
 * The emulated Tensor Memory lives in the workspace whose address the runtime stores in
 * the parameter header (NVFP4_ABI_HDR_WORKSPACE); the rewritten tcgen05.alloc loads it.
 *
 * Location of the bitcode: the module attribute `nvfp4.emulation_bitcode` (a string) if
 * present, else nvfp4FindEmulationBitcode (EmulationBitcode.c: the environment variable
 * NVFP4_EMU_BITCODE, next to the binary, the build tree, the install prefix).
 *
 * Every op the pass creates carries the unit attribute `nvfp4.emulation`, so a test can
 * check that the rewritten kernel differs from the sm_100a one only in those ops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "EmulationBitcode.h"
#include "KernelBuilder.h"
#include "LoweringCommon.h"
#include "RetargetSm90.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVVM.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Passes.h"
#include "nvfp4_emu.h"


static const char *const kDecls[] = {
    "llvm.func @nvfp4_emu_cta_begin()",
    "llvm.func @nvfp4_emu_tcgen05_alloc(!llvm.ptr<3>, i32, i64)",
    "llvm.func @nvfp4_emu_tcgen05_dealloc(i32, i32)",
    "llvm.func @nvfp4_emu_tcgen05_relinquish_alloc_permit()",
    "llvm.func @nvfp4_emu_tcgen05_cp_32x128b_warpx4(i32, i64)",
    "llvm.func @nvfp4_emu_tcgen05_mma_mxf4nvf4_block16(i32, i64, i64, i32, i32, i32, i32)",
    "llvm.func @nvfp4_emu_tcgen05_commit(!llvm.ptr<3>)",
    "llvm.func @nvfp4_emu_tcgen05_ld_32x32b(i32, !llvm.ptr, i32)",
    "llvm.func @nvfp4_emu_tcgen05_wait_ld()",
    "llvm.func @nvfp4_emu_tcgen05_wait_st()",
    "llvm.func @nvfp4_emu_tcgen05_fence_before_thread_sync()",
    "llvm.func @nvfp4_emu_tcgen05_fence_after_thread_sync()",
    "llvm.func @nvfp4_emu_tcgen05_alloc_cg2(!llvm.ptr<3>, i32, i64)",
    "llvm.func @nvfp4_emu_tcgen05_dealloc_cg2(i32, i32)",
    "llvm.func @nvfp4_emu_tcgen05_relinquish_alloc_permit_cg2()",
    "llvm.func @nvfp4_emu_tcgen05_cp_32x128b_warpx4_cg2(i32, i64)",
    "llvm.func @nvfp4_emu_tcgen05_mma_mxf4nvf4_block16_cg2(i32, i64, i64, i32, i32, i32, i32)",
    "llvm.func @nvfp4_emu_tcgen05_commit_cg2(!llvm.ptr<3>, i32)",
};

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static bool attrIs(KbBuilder *b, MlirOperation op, const char *name, const char *text) {
  return nvfp4OpAttrIs(b, op, name, text);
}

static KbValue tmemAddr(KbBuilder *b, MlirValue ptr) { return kbPtrToInt(b, ptr, b->i32); }

/* cta_group::2 forms (a CTA pair) call the _cg2 entry points. */
static bool isPair(KbBuilder *b, MlirOperation op) {
  return attrIs(b, op, "group", "#nvvm.cta_group<cta_2>") ||
         attrIs(b, op, "ctaGroup", "#nvvm.cta_group<cta_2>");
}

static KbValue operand(MlirOperation op, intptr_t i) { return mlirOperationGetOperand(op, i); }

/* A barrier (or TMEM slot) pointer as the library takes it: shared::cta. */
static KbValue sharedPtr(KbBuilder *b, KbValue p) {
  return mlirTypeEqual(mlirValueGetType(p), b->ptrShared) ? p : kbAddrSpaceCast(b, p, b->ptrShared);
}

/* ---- one handler per tcgen05 op: a call into the library, then the op is erased ---- */

static Nvfp4OpAction emuAlloc(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  KbBuilder *b = &r->b;
  const bool cg2 = isPair(b, op);
  KbValue dst = sharedPtr(b, operand(op, 0));
  KbValue ws = kbLoad(b, b->i64, kbGep(b, r->params, NVFP4_ABI_HDR_WORKSPACE), 8);
  KbValue args[3] = {dst, operand(op, 1), ws};
  kbCall(b, cg2 ? "nvfp4_emu_tcgen05_alloc_cg2" : "nvfp4_emu_tcgen05_alloc", (MlirType){NULL}, 3,
         args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction emuDealloc(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  KbBuilder *b = &r->b;
  const bool cg2 = isPair(b, op);
  KbValue args[2] = {tmemAddr(b, operand(op, 0)), operand(op, 1)};
  kbCall(b, cg2 ? "nvfp4_emu_tcgen05_dealloc_cg2" : "nvfp4_emu_tcgen05_dealloc", (MlirType){NULL},
         2, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction emuRelinquish(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  KbBuilder *b = &r->b;
  kbCall(b, isPair(b, op) ? "nvfp4_emu_tcgen05_relinquish_alloc_permit_cg2"
                          : "nvfp4_emu_tcgen05_relinquish_alloc_permit",
         (MlirType){NULL}, 0, NULL);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction emuCp(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  KbBuilder *b = &r->b;
  const bool cg2 = isPair(b, op);
  if (!attrIs(b, op, "shape", "#nvvm.tcgen05_cp_shape<shape_32x128b>") ||
      !attrIs(b, op, "multicast", "#nvvm.tcgen05_cp_multicast<warpx4>") ||
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("srcFormat"))))
    return nvfp4RetargetRefuse(r, "only tcgen05.cp .32x128b.warpx4 without decompression is emulated");
  KbValue args[2] = {tmemAddr(b, operand(op, 0)), operand(op, 1)};
  kbCall(b, cg2 ? "nvfp4_emu_tcgen05_cp_32x128b_warpx4_cg2" : "nvfp4_emu_tcgen05_cp_32x128b_warpx4",
         (MlirType){NULL}, 2, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction emuMma(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  KbBuilder *b = &r->b;
  const bool cg2 = isPair(b, op);
  if (!attrIs(b, op, "kind", "#nvvm.block_scale_kind<mxf4nvf4>") ||
      !(cg2 || attrIs(b, op, "ctaGroup", "#nvvm.cta_group<cta_1>")) ||
      !attrIs(b, op, "blockScale", "#nvvm.tcgen05_mma_block_scale<block16>"))
    return nvfp4RetargetRefuse(
        r, "only tcgen05.mma.cta_group::{1,2}.kind::mxf4nvf4.block_scale.block16 is emulated");
  if (!mlirTypeEqual(mlirValueGetType(operand(op, 1)), b->i64))
    return nvfp4RetargetRefuse(r, "tcgen05.mma with A in Tensor Memory is not emulated");
  KbValue args[7] = {tmemAddr(b, operand(op, 0)), operand(op, 1), operand(op, 2), operand(op, 3),
                     kbZExt(b, operand(op, 4), b->i32), tmemAddr(b, operand(op, 5)),
                     tmemAddr(b, operand(op, 6))};
  kbCall(b, cg2 ? "nvfp4_emu_tcgen05_mma_mxf4nvf4_block16_cg2"
                : "nvfp4_emu_tcgen05_mma_mxf4nvf4_block16", (MlirType){NULL}, 7, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction emuCommit(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  KbBuilder *b = &r->b;
  const bool cg2 = isPair(b, op);
  const intptr_t nOps = mlirOperationGetNumOperands(op);
  if (nOps != 1 && !cg2)
    return nvfp4RetargetRefuse(r, "tcgen05.commit.cta_group::1 with a multicast mask is not emulated");
  KbValue bar = sharedPtr(b, operand(op, 0));
  if (cg2) {
    /* .multicast::cluster mask (0: the issuing CTA's own barrier) */
    KbValue args[2] = {bar, nOps > 1 ? kbZExt(b, operand(op, 1), b->i32) : kbI32(b, 0)};
    kbCall(b, "nvfp4_emu_tcgen05_commit_cg2", (MlirType){NULL}, 2, args);
  } else {
    kbCall(b, "nvfp4_emu_tcgen05_commit", (MlirType){NULL}, 1, &bar);
  }
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction emuLd(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  KbBuilder *b = &r->b;
  if (!attrIs(b, op, "shape", "#nvvm.tcgen05_ldst_shape<shape_32x32b>") ||
      mlirOperationGetNumOperands(op) != 1 ||
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("pack"))))
    return nvfp4RetargetRefuse(r, "only tcgen05.ld .32x32b without pack is emulated");
  MlirValue res = mlirOperationGetResult(op, 0);
  MlirType ty = mlirValueGetType(res);
  int64_t num = mlirTypeIsAVector(ty) ? mlirShapedTypeGetDimSize(ty, 0) : 1;
  KbVar buf = kbVar(b, ty, (MlirValue){NULL});
  KbValue args[3] = {tmemAddr(b, operand(op, 0)), buf.slot, kbI32(b, num)};
  kbCall(b, "nvfp4_emu_tcgen05_ld_32x32b", (MlirType){NULL}, 3, args);
  mlirValueReplaceAllUsesOfWith(res, kbLoad(b, ty, buf.slot, 4));
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction emuWait(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  bool ld = attrIs(&r->b, op, "kind", "#nvvm.tcgen05_wait<load>");
  kbCall(&r->b, ld ? "nvfp4_emu_tcgen05_wait_ld" : "nvfp4_emu_tcgen05_wait_st", (MlirType){NULL},
         0, NULL);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction emuFence(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  bool before = attrIs(&r->b, op, "kind", "#nvvm.tcgen05_fence<before>");
  kbCall(&r->b, before ? "nvfp4_emu_tcgen05_fence_before_thread_sync"
                       : "nvfp4_emu_tcgen05_fence_after_thread_sync", (MlirType){NULL}, 0, NULL);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction noEmulation(void *pass, MlirOperation op) {
  (void)op;
  return nvfp4RetargetRefuse(pass, "this tcgen05 operation has no emulation");
}

static const Nvfp4OpEntry kOps[] = {
    {"nvvm.tcgen05.alloc", NULL, emuAlloc},
    {"nvvm.tcgen05.dealloc", NULL, emuDealloc},
    {"nvvm.tcgen05.relinquish_alloc_permit", NULL, emuRelinquish},
    {"nvvm.tcgen05.cp", NULL, emuCp},
    {"nvvm.tcgen05.mma.block_scale", NULL, emuMma},
    {"nvvm.tcgen05.commit", NULL, emuCommit},
    {"nvvm.tcgen05.ld", NULL, emuLd},
    {"nvvm.tcgen05.wait", NULL, emuWait},
    {"nvvm.tcgen05.fence", NULL, emuFence},
    {"nvvm.tcgen05.*", NULL, noEmulation},
};
static const Nvfp4OpTable kOpTable = NVFP4_OP_TABLE(kOps);

static void runEmulate(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  char targets[1400];
  const int found = nvfp4EmulationTargets(module, "nvfp4-emulate-tcgen05", targets, sizeof targets);
  if (found <= 0) {
    if (found < 0) mlirExternalPassSignalFailure(pass);
    return;
  }
  /* No programmatic dependent launch: the emulated Tensor Memory is the launch's global
   * workspace, which the emulated prologue (nvfp4_emu_cta_begin, tcgen05.alloc) uses before
   * griddepcontrol.wait while the previous grid's CTAs may still use it. */
  const Nvfp4Sm90Target t = {"nvfp4-emulate-tcgen05", "nvfp4.emulation", targets, kDecls,
                             sizeof kDecls / sizeof kDecls[0], NVFP4_META_FLAG_EMULATION,
                             NVFP4_META_FLAG_PDL, NVFP4_EMU_TMEM_BYTES_PER_CTA, &kOpTable,
                             "nvfp4_emu_cta_begin"};
  if (!nvfp4RetargetToSm90(module, &t)) mlirExternalPassSignalFailure(pass);
}

MlirPass mlirNvfp4CreateEmulateTcgen05Pass(void) {
  static MlirTypeID id;
  MlirDialectHandle deps[3] = {mlirGetDialectHandle__llvm__(), mlirGetDialectHandle__nvvm__(),
                               mlirGetDialectHandle__gpu__()};
  return nvfp4CreateModulePass(
      &id, "NVFP4EmulateTcgen05", "nvfp4-emulate-tcgen05",
      "Rewrite tcgen05 ops of nvfp4 kernels into calls to the sm_90a emulation library", 3,
      deps, runEmulate);
}
