/* EmbedCubin.c — the --nvfp4-embed-cubin pass, in C: copies the cubin of each nvfp4 kernel
 * from its gpu.binary (what gpu-module-to-binary{format=bin} leaves) into the placeholder
 * globals that --nvfp4-host-launch created for the host code, then erases the gpu.binary.
 *
 *   gpu.binary @k_module [#gpu.object<#nvvm.target<...>, bin = "\7FELF...">]
 *   llvm.mlir.global internal constant @k_cubin("") {nvfp4.cubin_of = "k_module"} : !llvm.array<0 x i8>
 *   llvm.mlir.global internal constant @k_cubin_size(0 : i64) {nvfp4.cubin_size_of = "k_module"} : i64
 * becomes
 *   llvm.mlir.global internal constant @k_cubin("\7FELF...") : !llvm.array<N x i8>
 *   llvm.mlir.global internal constant @k_cubin_size(N : i64) : i64
 */
#include <stdio.h>
#include <string.h>

#include "LoweringCommon.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Pass.h"
#include "nvfp4-c/Passes.h"

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* The cubin of gpu.binary @name, or a diagnostic at `loc`. */
static bool cubinOf(MlirOperation module, MlirStringRef name, MlirLocation loc,
                    MlirOperation *binary, MlirStringRef *bytes) {
  char sym[160], msg[400];
  snprintf(sym, sizeof sym, "%.*s", (int)name.length, name.data);
  *binary = nvfp4FindSymbol(module, sym);
  if (mlirOperationIsNull(*binary) || !nvfp4OpIs(*binary, "gpu.binary")) {
    snprintf(msg, sizeof msg,
             "nvfp4-embed-cubin: no gpu.binary @%s for this global (run "
             "nvfp4-lower-grouped-matmul and gpu-module-to-binary{format=bin} first)", sym);
    nvfp4EmitError(loc, msg);
    return false;
  }
  MlirAttribute objects = mlirOperationGetAttributeByName(*binary, str("objects"));
  if (mlirAttributeIsNull(objects) || mlirArrayAttrGetNumElements(objects) != 1) {
    snprintf(msg, sizeof msg, "nvfp4-embed-cubin: gpu.binary @%s must hold exactly one object",
             sym);
    nvfp4EmitError(loc, msg);
    return false;
  }
  MlirAttribute object = mlirArrayAttrGetElement(objects, 0);
  if (!mlirAttributeIsAGPUObjectAttr(object)) {
    snprintf(msg, sizeof msg, "nvfp4-embed-cubin: gpu.binary @%s holds no #gpu.object", sym);
    nvfp4EmitError(loc, msg);
    return false;
  }
  *bytes = mlirGPUObjectAttrGetObject(object);
  if (bytes->length < 4 || memcmp(bytes->data, "\x7f" "ELF", 4) != 0) {
    snprintf(msg, sizeof msg,
             "nvfp4-embed-cubin: the object of gpu.binary @%s is not a cubin (an ELF image); "
             "serialise with gpu-module-to-binary{format=bin}", sym);
    nvfp4EmitError(loc, msg);
    return false;
  }
  return true;
}

#define MAX_BINARIES 512

static void runEmbed(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  MlirContext ctx = mlirOperationGetContext(module);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirOperation used[MAX_BINARIES];
  int nUsed = 0;
  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!nvfp4OpIs(op, "llvm.mlir.global")) continue;
    MlirAttribute of = mlirOperationGetAttributeByName(op, str("nvfp4.cubin_of"));
    MlirAttribute sizeOf = mlirOperationGetAttributeByName(op, str("nvfp4.cubin_size_of"));
    MlirAttribute marker = mlirAttributeIsNull(of) ? sizeOf : of;
    if (mlirAttributeIsNull(marker)) continue;
    MlirOperation binary;
    MlirStringRef bytes;
    if (!mlirAttributeIsAString(marker) ||
        !cubinOf(module, mlirStringAttrGetValue(marker), mlirOperationGetLocation(op), &binary,
                 &bytes)) {
      ok = false;
      break;
    }
    if (!mlirAttributeIsNull(of)) {
      MlirType bytesType = mlirLLVMArrayTypeGet(mlirIntegerTypeGet(ctx, 8), (unsigned)bytes.length);
      mlirOperationSetInherentAttributeByName(op, str("global_type"), mlirTypeAttrGet(bytesType));
      mlirOperationSetInherentAttributeByName(op, str("value"), mlirStringAttrGet(ctx, bytes));
      mlirOperationRemoveDiscardableAttributeByName(op, str("nvfp4.cubin_of"));
    } else {
      mlirOperationSetInherentAttributeByName(
          op, str("value"), mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), (int64_t)bytes.length));
      mlirOperationRemoveDiscardableAttributeByName(op, str("nvfp4.cubin_size_of"));
    }
    bool known = false;
    for (int i = 0; i < nUsed && !known; ++i) known = mlirOperationEqual(used[i], binary);
    if (!known && nUsed < MAX_BINARIES) used[nUsed++] = binary;
  }
  /* the host code holds the cubins now; nothing else uses these gpu.binary ops */
  for (int i = 0; ok && i < nUsed; ++i) mlirOperationDestroy(used[i]);
  if (!ok) mlirExternalPassSignalFailure(pass);
}

MlirPass mlirNvfp4CreateEmbedCubinPass(void) {
  static MlirTypeID id;
  MlirDialectHandle deps[1] = {mlirGetDialectHandle__llvm__()};
  return nvfp4CreateModulePass(
      &id, "NVFP4EmbedCubin", "nvfp4-embed-cubin",
      "Copy the cubins of nvfp4 kernels from their gpu.binary ops into the host code's "
      "placeholder globals (after gpu-module-to-binary{format=bin})",
      1, deps, runEmbed);
}
