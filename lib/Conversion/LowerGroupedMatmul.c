/* LowerGroupedMatmul.c — the --nvfp4-lower-grouped-matmul pass, in C.
 *
 * Each nvfp4.grouped_matmul becomes a gpu.module (target sm_100a, +ptx88) holding
 *   - the kernel llvm.func (one by-value nvvm.grid_constant parameter block, KernelABI.h),
 *   - the metadata record global `nvfp4_kernel_metadata` (read by the runtime),
 *   - the external dynamic shared-memory array.
 * The op itself is erased: the host side of the computation is libnvfp4rt, which packs the
 * parameter block and launches the cubin. The enclosing function is tagged with
 * `nvfp4.kernel = @<module>::@<kernel>` so the provenance stays visible.
 *
 *   func.func @f(...) { nvfp4.grouped_matmul a(...) b(...) ... {target = "sm_100a"} }
 * becomes
 *   func.func @f(...) attributes {nvfp4.kernel = @k_module::@k} { }
 *   gpu.module @k_module [#nvvm.target<chip = "sm_100a", features = "+ptx88", O = 3>] {
 *     llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<...>) ...
 *     llvm.func @k(%params: !llvm.ptr {llvm.byval = ..., nvvm.grid_constant}) ... }
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GroupedMatmulKernel.h"
#include "LoweringCommon.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVVM.h"
#include "mlir-c/Pass.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Passes.h"

#define MAX_OPS 256

typedef struct OpList { MlirOperation ops[MAX_OPS]; int n; bool overflow; } OpList;

static MlirWalkResult collect(MlirOperation op, void *user) {
  OpList *l = user;
  if (mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)),
                         mlirStringRefCreateFromCString("nvfp4.grouped_matmul"))) {
    if (l->n < MAX_OPS) l->ops[l->n++] = op;
    else l->overflow = true;
  }
  return MlirWalkResultAdvance;
}

static int64_t intAttr(MlirOperation op, const char *name, int64_t dflt) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a)) return dflt;
  return mlirIntegerAttrGetValueInt(a);
}

static bool strAttr(MlirOperation op, const char *name, char *out, size_t size) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a)) return false;
  MlirStringRef s = mlirStringAttrGetValue(a);
  snprintf(out, size, "%.*s", (int)s.length, s.data);
  return true;
}

/* Lowers one op; returns false after emitting a diagnostic. */
static bool lowerOne(MlirOperation module, MlirOperation op, int index) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirLocation loc = mlirOperationGetLocation(op);
  char msg[256];
  intptr_t nOperands = mlirOperationGetNumOperands(op);
  if (nOperands == 0 || nOperands % 5) {
    nvfp4EmitError(loc, "nvfp4-lower-grouped-matmul: operand lists of unequal length");
    return false;
  }
  uint32_t groups = (uint32_t)(nOperands / 5);
  char target[32] = "sm_100a";
  strAttr(op, "target", target, sizeof target);
  if (strcmp(target, "sm_100a") != 0) {
    snprintf(msg, sizeof msg,
             "nvfp4-lower-grouped-matmul: target \"%s\" has no lowering (only sm_100a; "
             "use --nvfp4-emulate-tcgen05 after lowering to run on sm_90a)", target);
    nvfp4EmitError(loc, msg);
    return false;
  }
  uint32_t tileN = (uint32_t)intAttr(op, "tile_n", MLIR_NVFP4_DEFAULT_TILE_N);
  uint32_t stages = (uint32_t)intAttr(op, "stages", 0);
  MlirNvfp4KernelConfig cfg;
  char why[200];
  if (!mlirNvfp4KernelConfigInit(&cfg, groups, tileN, stages, why, sizeof why)) {
    snprintf(msg, sizeof msg, "nvfp4-lower-grouped-matmul: %s", why);
    nvfp4EmitError(loc, msg);
    return false;
  }

  char name[80];
  if (!strAttr(op, "kernel_name", name, sizeof name)) {
    if (index == 0) snprintf(name, sizeof name, "nvfp4_grouped_matmul_g%u_n%u", groups, tileN);
    else snprintf(name, sizeof name, "nvfp4_grouped_matmul_g%u_n%u_%d", groups, tileN, index);
  }

  unsigned char meta[NVFP4_METADATA_BYTES];
  mlirNvfp4KernelConfigEncodeMetadata(&cfg, name, "sm_100a", 100, 0, 0, meta);

  /* The module skeleton: globals and the kernel signature; the body is built below. */
  size_t cap = 8192;
  char *text = malloc(cap);
  int len = snprintf(text, cap,
      "gpu.module @%s_module [#nvvm.target<chip = \"sm_100a\", features = \"+ptx88\", O = 3>] {\n"
      "  llvm.mlir.global external constant @%s(dense<[",
      name, NVFP4_METADATA_SYMBOL);
  for (unsigned i = 0; i < NVFP4_METADATA_BYTES; ++i)
    len += snprintf(text + len, cap - len, "%s%d", i ? ", " : "", (int)(signed char)meta[i]);
  snprintf(text + len, cap - len,
      "]> : tensor<%ux i8>) {addr_space = 1 : i32, alignment = 8 : i64} : !llvm.array<%u x i8>\n"
      "  llvm.mlir.global external @nvfp4_dyn_smem() {addr_space = 3 : i32, alignment = 1024 : i64}"
      " : !llvm.array<0 x i8>\n"
      "  llvm.func @%s(%%params: !llvm.ptr {llvm.byval = !llvm.array<%u x i8>, llvm.align = 64 : i64,"
      " nvvm.grid_constant}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: %u, 1, 1>} {\n"
      "    llvm.return\n  }\n}\n",
      NVFP4_METADATA_BYTES, NVFP4_METADATA_BYTES, name, cfg.paramBytes, MLIR_NVFP4_NUM_THREADS);
  /* tensor<256x i8> is not valid syntax: squeeze the space we wrote for readability. */
  char *fix = strstr(text, "x i8>) {addr_space");
  if (fix) memmove(fix + 1, fix + 2, strlen(fix + 2) + 1);
  MlirOperation gpuModule = mlirOperationCreateParse(
      ctx, mlirStringRefCreateFromCString(text), mlirStringRefCreateFromCString("nvfp4-lowering"));
  free(text);
  if (mlirOperationIsNull(gpuModule)) {
    nvfp4EmitError(loc, "nvfp4-lower-grouped-matmul: internal error: kernel skeleton rejected");
    return false;
  }
  MlirBlock moduleBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  mlirBlockAppendOwnedOperation(moduleBody, gpuModule);

  MlirOperation func = nvfp4FindSymbol(gpuModule, name);
  MlirRegion body = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(body);
  mlirOperationDestroy(mlirBlockGetFirstOperation(entry)); /* the placeholder return */

  KbBuilder b;
  kbInit(&b, ctx, loc, body, entry);
  nvfp4BuildGroupedMatmulKernel(&b, &cfg, mlirBlockGetArgument(entry, 0), "nvfp4_dyn_smem");
  if (b.failed) {
    nvfp4EmitError(loc, "nvfp4-lower-grouped-matmul: internal error: an op could not be built");
    return false;
  }

  char modName[96];
  snprintf(modName, sizeof modName, "%s_module", name);
  MlirAttribute leaf = mlirFlatSymbolRefAttrGet(ctx, mlirStringRefCreateFromCString(name));
  MlirAttribute ref = mlirSymbolRefAttrGet(ctx, mlirStringRefCreateFromCString(modName), 1, &leaf);
  MlirOperation parent = mlirOperationGetParentOperation(op);
  if (!mlirOperationIsNull(parent) && !mlirOperationEqual(parent, module))
    mlirOperationSetAttributeByName(parent, mlirStringRefCreateFromCString("nvfp4.kernel"), ref);
  mlirOperationDestroy(op);
  return true;
}

static void runLower(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  OpList *list = calloc(1, sizeof *list);
  mlirOperationWalk(module, collect, list, MlirWalkPreOrder);
  if (list->overflow) {
    nvfp4EmitError(mlirOperationGetLocation(module),
                   "nvfp4-lower-grouped-matmul: more than 256 nvfp4.grouped_matmul ops");
    mlirExternalPassSignalFailure(pass);
  } else {
    if (list->n)
      mlirOperationSetAttributeByName(module, mlirStringRefCreateFromCString("gpu.container_module"),
                                      mlirUnitAttrGet(mlirOperationGetContext(module)));
    for (int i = 0; i < list->n; ++i)
      if (!lowerOne(module, list->ops[i], i)) {
        mlirExternalPassSignalFailure(pass);
        break;
      }
  }
  free(list);
}

MlirPass mlirNvfp4CreateLowerGroupedMatmulPass(void) {
  static MlirTypeID id;
  MlirDialectHandle deps[3] = {mlirGetDialectHandle__llvm__(), mlirGetDialectHandle__nvvm__(),
                               mlirGetDialectHandle__gpu__()};
  return nvfp4CreateModulePass(
      &id, "NVFP4LowerGroupedMatmul", "nvfp4-lower-grouped-matmul",
      "Lower nvfp4.grouped_matmul to a persistent tcgen05/TMA kernel for sm_100a", 3, deps,
      runLower);
}
