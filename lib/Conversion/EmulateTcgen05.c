/* EmulateTcgen05.c — the --nvfp4-emulate-tcgen05 pass, in C.
 *
 * Runs after --nvfp4-lower-grouped-matmul. It retargets each nvfp4 gpu.module to sm_90a and
 * rewrites every nvvm.tcgen05.* op into a call to the tcgen05 emulation library
 * (emulation/, interface emulation/include/nvfp4_emu.h), linked as LLVM bitcode through
 * the target's `link` list. The retargeting it shares with the timing proxy (the A/B TMA
 * x coordinate in bytes, the metadata records, the walk over the tcgen05 ops) lives in
 * RetargetSm90.c; this file holds the emulation's own part: the library declarations, the
 * bitcode path and the rewrite of each tcgen05 op into a library call. The metadata
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

/* Rewrites one tcgen05 op into a library call (Nvfp4Tcgen05Rewrite). */
static const char *rewrite(KbBuilder *b, MlirOperation op, MlirValue params, void *user) {
  (void)user;
  MlirStringRef nameRef = mlirIdentifierStr(mlirOperationGetName(op));
  char name[96];
  snprintf(name, sizeof name, "%.*s", (int)nameRef.length, nameRef.data);
  MlirType none = {NULL};
  intptr_t nOps = mlirOperationGetNumOperands(op);
  MlirValue o[8];
  for (intptr_t i = 0; i < nOps && i < 8; ++i) o[i] = mlirOperationGetOperand(op, i);

  /* cta_group::2 forms (a CTA pair) call the _cg2 entry points. */
  const bool cg2 = attrIs(b, op, "group", "#nvvm.cta_group<cta_2>") ||
                   attrIs(b, op, "ctaGroup", "#nvvm.cta_group<cta_2>");
  if (!strcmp(name, "nvvm.tcgen05.alloc")) {
    KbValue dst = o[0];
    if (!mlirTypeEqual(mlirValueGetType(dst), b->ptrShared))
      dst = kbAddrSpaceCast(b, dst, b->ptrShared);
    KbValue ws = kbLoad(b, b->i64, kbGep(b, params, NVFP4_ABI_HDR_WORKSPACE), 8);
    KbValue args[3] = {dst, o[1], ws};
    kbCall(b, cg2 ? "nvfp4_emu_tcgen05_alloc_cg2" : "nvfp4_emu_tcgen05_alloc", none, 3, args);
  } else if (!strcmp(name, "nvvm.tcgen05.dealloc")) {
    KbValue args[2] = {tmemAddr(b, o[0]), o[1]};
    kbCall(b, cg2 ? "nvfp4_emu_tcgen05_dealloc_cg2" : "nvfp4_emu_tcgen05_dealloc", none, 2, args);
  } else if (!strcmp(name, "nvvm.tcgen05.relinquish_alloc_permit")) {
    kbCall(b, cg2 ? "nvfp4_emu_tcgen05_relinquish_alloc_permit_cg2"
                  : "nvfp4_emu_tcgen05_relinquish_alloc_permit", none, 0, NULL);
  } else if (!strcmp(name, "nvvm.tcgen05.cp")) {
    if (!attrIs(b, op, "shape", "#nvvm.tcgen05_cp_shape<shape_32x128b>") ||
        !attrIs(b, op, "multicast", "#nvvm.tcgen05_cp_multicast<warpx4>") ||
        !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("srcFormat"))))
      return "only tcgen05.cp .32x128b.warpx4 without decompression is emulated";
    KbValue args[2] = {tmemAddr(b, o[0]), o[1]};
    kbCall(b, cg2 ? "nvfp4_emu_tcgen05_cp_32x128b_warpx4_cg2" : "nvfp4_emu_tcgen05_cp_32x128b_warpx4",
           none, 2, args);
  } else if (!strcmp(name, "nvvm.tcgen05.mma.block_scale")) {
    if (!attrIs(b, op, "kind", "#nvvm.block_scale_kind<mxf4nvf4>") ||
        !(cg2 || attrIs(b, op, "ctaGroup", "#nvvm.cta_group<cta_1>")) ||
        !attrIs(b, op, "blockScale", "#nvvm.tcgen05_mma_block_scale<block16>"))
      return "only tcgen05.mma.cta_group::{1,2}.kind::mxf4nvf4.block_scale.block16 is emulated";
    if (!mlirTypeEqual(mlirValueGetType(o[1]), b->i64))
      return "tcgen05.mma with A in Tensor Memory is not emulated";
    KbValue args[7] = {tmemAddr(b, o[0]), o[1], o[2], o[3], kbZExt(b, o[4], b->i32),
                       tmemAddr(b, o[5]), tmemAddr(b, o[6])};
    kbCall(b, cg2 ? "nvfp4_emu_tcgen05_mma_mxf4nvf4_block16_cg2"
                  : "nvfp4_emu_tcgen05_mma_mxf4nvf4_block16", none, 7, args);
  } else if (!strcmp(name, "nvvm.tcgen05.commit")) {
    if (nOps != 1 && !cg2) return "tcgen05.commit.cta_group::1 with a multicast mask is not emulated";
    KbValue bar = o[0];
    if (!mlirTypeEqual(mlirValueGetType(bar), b->ptrShared))
      bar = kbAddrSpaceCast(b, bar, b->ptrShared);
    if (cg2) {
      /* .multicast::cluster mask (0: the issuing CTA's own barrier) */
      KbValue args[2] = {bar, nOps > 1 ? kbZExt(b, o[1], b->i32) : kbI32(b, 0)};
      kbCall(b, "nvfp4_emu_tcgen05_commit_cg2", none, 2, args);
    } else {
      kbCall(b, "nvfp4_emu_tcgen05_commit", none, 1, &bar);
    }
  } else if (!strcmp(name, "nvvm.tcgen05.ld")) {
    if (!attrIs(b, op, "shape", "#nvvm.tcgen05_ldst_shape<shape_32x32b>") || nOps != 1 ||
        !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("pack"))))
      return "only tcgen05.ld .32x32b without pack is emulated";
    MlirValue res = mlirOperationGetResult(op, 0);
    MlirType ty = mlirValueGetType(res);
    int64_t num = mlirTypeIsAVector(ty) ? mlirShapedTypeGetDimSize(ty, 0) : 1;
    KbVar buf = kbVar(b, ty, (MlirValue){NULL});
    KbValue args[3] = {tmemAddr(b, o[0]), buf.slot, kbI32(b, num)};
    kbCall(b, "nvfp4_emu_tcgen05_ld_32x32b", none, 3, args);
    mlirValueReplaceAllUsesOfWith(res, kbLoad(b, ty, buf.slot, 4));
  } else if (!strcmp(name, "nvvm.tcgen05.wait")) {
    bool ld = attrIs(b, op, "kind", "#nvvm.tcgen05_wait<load>");
    kbCall(b, ld ? "nvfp4_emu_tcgen05_wait_ld" : "nvfp4_emu_tcgen05_wait_st", none, 0, NULL);
  } else if (!strcmp(name, "nvvm.tcgen05.fence")) {
    bool before = attrIs(b, op, "kind", "#nvvm.tcgen05_fence<before>");
    kbCall(b, before ? "nvfp4_emu_tcgen05_fence_before_thread_sync"
                     : "nvfp4_emu_tcgen05_fence_after_thread_sync", none, 0, NULL);
  } else {
    return "this tcgen05 operation has no emulation";
  }
  mlirOperationDestroy(op);
  return NULL;
}

static void runEmulate(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  char targets[1400];
  const int found = nvfp4EmulationTargets(module, "nvfp4-emulate-tcgen05", targets, sizeof targets);
  if (found <= 0) {
    if (found < 0) mlirExternalPassSignalFailure(pass);
    return;
  }
  const Nvfp4Sm90Target t = {"nvfp4-emulate-tcgen05", "nvfp4.emulation", targets, kDecls,
                             sizeof kDecls / sizeof kDecls[0], NVFP4_META_FLAG_EMULATION,
                             NVFP4_EMU_TMEM_BYTES_PER_CTA, rewrite, NULL,
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
