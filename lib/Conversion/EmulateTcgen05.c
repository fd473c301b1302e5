/* EmulateTcgen05.c — the --nvfp4-emulate-tcgen05 pass, in C.
 *
 * Runs after --nvfp4-lower-grouped-matmul. It retargets each nvfp4 gpu.module to sm_90a and
 * rewrites every nvvm.tcgen05.* op into a call to the tcgen05 emulation library
 * (emulation/, interface emulation/include/nvfp4_emu.h), linked as LLVM bitcode through
 * the target's `link` list. Everything else in the kernel stays as generated for sm_100a,
 * except what sm_90a lacks:
 *   - the A/B TMA loads (tagged nvfp4.operand = "a"/"b"): sm_90 has no 16U4 tensor maps,
 *     so the runtime encodes UINT8 maps over the same bytes and the x coordinate becomes
 *     bytes (K / 2) instead of FP4 elements;
 *   - the metadata record: target_sm 90, the EMULATION flag, the per-CTA workspace size.
 * The emulated Tensor Memory lives in the workspace whose address the runtime stores in
 * the parameter header (NVFP4_ABI_HDR_WORKSPACE); the rewritten tcgen05.alloc loads it.
 *
 * Location of the bitcode: the module attribute `nvfp4.emulation_bitcode` (a string) if
 * present, else the environment variable NVFP4_EMU_BITCODE, else the build tree's copy
 * (NVFP4_EMU_BITCODE_PATH) if it exists, else the installed one
 * (NVFP4_EMU_BITCODE_INSTALLED).
 *
 * Every op the pass creates carries the unit attribute `nvfp4.emulation`, so a test can
 * check that the rewritten kernel differs from the sm_100a one only in those ops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "KernelBuilder.h"
#include "LoweringCommon.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVVM.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Passes.h"
#include "nvfp4_emu.h"

#ifndef NVFP4_EMU_BITCODE_PATH
#define NVFP4_EMU_BITCODE_PATH "nvfp4_emu.bc"
#endif
#ifndef NVFP4_EMU_BITCODE_INSTALLED
#define NVFP4_EMU_BITCODE_INSTALLED NVFP4_EMU_BITCODE_PATH
#endif

static const char *const kDecls[] = {
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

#define MAX_REWRITES 4096

typedef struct Work {
  MlirOperation ops[MAX_REWRITES];
  int n;
  bool overflow;
} Work;

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static MlirWalkResult collect(MlirOperation op, void *user) {
  Work *w = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  bool tc = name.length > 13 && strncmp(name.data, "nvvm.tcgen05.", 13) == 0;
  bool tagged = !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("nvfp4.operand")));
  if (tc || tagged) {
    if (w->n < MAX_REWRITES) w->ops[w->n++] = op;
    else w->overflow = true;
  }
  return MlirWalkResultAdvance;
}

static bool attrIs(KbBuilder *b, MlirOperation op, const char *name, const char *text) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, str(name));
  return !mlirAttributeIsNull(a) && mlirAttributeEqual(a, kbAttr(b, text));
}

static MlirOperation enclosingFunc(MlirOperation op) {
  MlirOperation p = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(p) && !nvfp4OpIs(p, "llvm.func"))
    p = mlirOperationGetParentOperation(p);
  return p;
}

static KbValue tmemAddr(KbBuilder *b, MlirValue ptr) { return kbPtrToInt(b, ptr, b->i32); }

/* Rewrites one op; returns a reason on failure. */
static const char *rewrite(KbBuilder *b, MlirOperation op, MlirValue params) {
  MlirStringRef nameRef = mlirIdentifierStr(mlirOperationGetName(op));
  char name[96];
  snprintf(name, sizeof name, "%.*s", (int)nameRef.length, nameRef.data);
  MlirType none = {NULL};
  intptr_t nOps = mlirOperationGetNumOperands(op);
  MlirValue o[8];
  for (intptr_t i = 0; i < nOps && i < 8; ++i) o[i] = mlirOperationGetOperand(op, i);

  if (!strncmp(name, "nvvm.cp.async.bulk.tensor", 25)) {
    MlirAttribute tag = mlirOperationGetAttributeByName(op, str("nvfp4.operand"));
    MlirStringRef t = mlirStringAttrGetValue(tag);
    if (t.length == 1 && (t.data[0] == 'a' || t.data[0] == 'b')) {
      /* operands: dst, tensor map, x, y, mbar — x in FP4 elements -> bytes */
      mlirOperationSetOperand(op, 2, kbLShr(b, o[2], kbI32(b, 1)));
    }
    return NULL; /* the op stays */
  }
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

/* Patches every record of the metadata table for the emulation target. */
static void patchMetadata(MlirOperation gpuModule) {
  MlirOperation g = nvfp4FindSymbol(gpuModule, NVFP4_METADATA_SYMBOL);
  if (mlirOperationIsNull(g)) return;
  MlirAttribute v = mlirOperationGetAttributeByName(g, str("value"));
  if (mlirAttributeIsNull(v) || !mlirAttributeIsADenseElements(v)) return;
  int64_t n = mlirElementsAttrGetNumElements(v);
  if (n <= 0 || n % NVFP4_METADATA_BYTES || n > NVFP4_METADATA_BYTES * NVFP4_METADATA_MAX_VARIANTS)
    return;
  int8_t bytes[NVFP4_METADATA_BYTES * NVFP4_METADATA_MAX_VARIANTS];
  for (int64_t i = 0; i < n; ++i) bytes[i] = mlirDenseElementsAttrGetInt8Value(v, i);
  for (int64_t r = 0; r < n / NVFP4_METADATA_BYTES; ++r) {
    unsigned char *rec = (unsigned char *)bytes + r * NVFP4_METADATA_BYTES;
    nvfp4_meta_write_u32(rec, NVFP4_META_TARGET_SM, 90);
    nvfp4_meta_write_u32(rec, NVFP4_META_FLAGS,
                         nvfp4_meta_read_u32(rec, NVFP4_META_FLAGS) | NVFP4_META_FLAG_EMULATION);
    nvfp4_meta_write_u32(rec, NVFP4_META_WORKSPACE_PER_CTA, NVFP4_EMU_TMEM_BYTES_PER_CTA);
    memset(rec + NVFP4_META_TARGET, 0, NVFP4_META_TARGET_BYTES);
    memcpy(rec + NVFP4_META_TARGET, "sm_90a", 6);
  }
  MlirAttribute nv = mlirDenseElementsAttrInt8Get(mlirAttributeGetType(v), n, bytes);
  mlirOperationSetAttributeByName(g, str("value"), nv);
}

static const char *bitcodePath(MlirOperation module, char *buf, size_t size) {
  MlirAttribute a = mlirOperationGetAttributeByName(module, str("nvfp4.emulation_bitcode"));
  if (!mlirAttributeIsNull(a) && mlirAttributeIsAString(a)) {
    MlirStringRef s = mlirStringAttrGetValue(a);
    snprintf(buf, size, "%.*s", (int)s.length, s.data);
    return buf;
  }
  const char *env = getenv("NVFP4_EMU_BITCODE");
  const char *path = env && *env ? env
                     : access(NVFP4_EMU_BITCODE_PATH, R_OK) == 0 ? NVFP4_EMU_BITCODE_PATH
                                                                 : NVFP4_EMU_BITCODE_INSTALLED;
  snprintf(buf, size, "%s", path);
  return buf;
}

static bool emulateModule(MlirOperation module, MlirOperation gpuModule, const char *bc) {
  MlirContext ctx = mlirOperationGetContext(gpuModule);
  char text[1400];
  snprintf(text, sizeof text,
           "[#nvvm.target<chip = \"sm_90a\", features = \"+ptx88\", O = 3, link = [\"%s\"]>]", bc);
  MlirAttribute targets = mlirAttributeParseGet(ctx, str(text));
  if (mlirAttributeIsNull(targets)) {
    nvfp4EmitError(mlirOperationGetLocation(gpuModule),
                   "nvfp4-emulate-tcgen05: invalid emulation bitcode path");
    return false;
  }
  mlirOperationSetAttributeByName(gpuModule, str("targets"), targets);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(gpuModule, 0));
  for (size_t i = 0; i < sizeof kDecls / sizeof kDecls[0]; ++i) {
    MlirOperation decl = mlirOperationCreateParse(ctx, str(kDecls[i]), str("nvfp4-emulation"));
    mlirBlockInsertOwnedOperation(body, 0, decl);
  }
  patchMetadata(gpuModule);

  Work *w = calloc(1, sizeof *w);
  mlirOperationWalk(gpuModule, collect, w, MlirWalkPreOrder);
  bool ok = !w->overflow;
  if (!ok)
    nvfp4EmitError(mlirOperationGetLocation(gpuModule), "nvfp4-emulate-tcgen05: kernel too large");
  KbBuilder b;
  MlirOperation lastFunc = {NULL};
  for (int i = 0; ok && i < w->n; ++i) {
    MlirOperation op = w->ops[i];
    MlirOperation func = enclosingFunc(op);
    if (mlirOperationIsNull(func)) continue;
    MlirRegion region = mlirOperationGetRegion(func, 0);
    MlirBlock entry = mlirRegionGetFirstBlock(region);
    if (!mlirOperationEqual(func, lastFunc)) {
      kbInit(&b, ctx, mlirOperationGetLocation(op), region, entry);
      /* Every op this pass adds is tagged, so tests can check that nothing else changed. */
      b.tag = "nvfp4.emulation";
      mlirOperationSetAttributeByName(b.allocaAnchor, str("nvfp4.emulation"), mlirUnitAttrGet(ctx));
      lastFunc = func;
    }
    b.loc = mlirOperationGetLocation(op);
    b.cur = mlirOperationGetBlock(op);
    b.insertBefore = op;
    if (mlirBlockGetNumArguments(entry) < 1) {
      nvfp4EmitError(b.loc, "nvfp4-emulate-tcgen05: kernel has no parameter block");
      ok = false;
      break;
    }
    const char *why = rewrite(&b, op, mlirBlockGetArgument(entry, 0));
    if (why || b.failed) {
      char msg[256];
      snprintf(msg, sizeof msg, "nvfp4-emulate-tcgen05: %s", why ? why : "internal error");
      nvfp4EmitError(b.loc, msg);
      ok = false;
    }
  }
  free(w);
  (void)module;
  return ok;
}

/* A native sm_90a module (metadata target_sm 90 without the emulation flag) has no tcgen05
 * op to rewrite: the pass leaves it as it is. */
static bool isNativeSm90(MlirOperation gpuModule) {
  MlirOperation g = nvfp4FindSymbol(gpuModule, NVFP4_METADATA_SYMBOL);
  MlirAttribute v = mlirOperationIsNull(g) ? (MlirAttribute){NULL}
                                           : mlirOperationGetAttributeByName(g, str("value"));
  if (mlirAttributeIsNull(v) || !mlirAttributeIsADenseElements(v) ||
      mlirElementsAttrGetNumElements(v) < NVFP4_METADATA_BYTES)
    return false;
  unsigned char rec[NVFP4_METADATA_BYTES];
  for (unsigned i = 0; i < NVFP4_METADATA_BYTES; ++i)
    rec[i] = (unsigned char)mlirDenseElementsAttrGetInt8Value(v, i);
  return nvfp4_meta_read_u32(rec, NVFP4_META_TARGET_SM) == 90 &&
         !(nvfp4_meta_read_u32(rec, NVFP4_META_FLAGS) & NVFP4_META_FLAG_EMULATION);
}

static void runEmulate(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  char bc[1024];
  bitcodePath(module, bc, sizeof bc);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!nvfp4OpIs(op, "gpu.module")) continue;
    if (mlirOperationIsNull(nvfp4FindSymbol(op, NVFP4_METADATA_SYMBOL))) continue;
    if (isNativeSm90(op)) continue;
    if (!emulateModule(module, op, bc)) {
      mlirExternalPassSignalFailure(pass);
      return;
    }
  }
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
