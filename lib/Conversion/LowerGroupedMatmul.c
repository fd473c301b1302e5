/* LowerGroupedMatmul.c — the --nvfp4-lower-grouped-matmul pass, in C.
 *
 * Each nvfp4.grouped_matmul (and nvfp4.moe_matmul, the contiguous MoE form) becomes a
 * gpu.module for its target (Targets.h: sm_100a, sm_100f, sm_103a: the tcgen05 kernels of
 * Sm100/; sm_90a: the BF16-decode + wgmma kernels of Sm90/; sm_120a, sm_121a, sm_120f: the
 * block-scaled mma.sync kernels of Sm120/; the module chip is the target, its PTX version
 * the table's) holding its kernel family (KernelConfig.h: one
 * kernel per variant, all sharing the parameter-block ABI of KernelABI.h):
 *   - one kernel llvm.func per variant, `<kernel_name>_<variant>` (a by-value
 *     nvvm.grid_constant parameter block; nvvm.reqntid; nvvm.cluster_dim for CTA pairs),
 *   - the metadata table `nvfp4_kernel_metadata`, one 256-byte record per variant,
 *   - the external dynamic shared-memory array.
 * The op itself is erased: the host side of the computation is libnvfp4rt, which picks a
 * variant, packs the parameter block and launches the cubin. With the unit attribute
 * `nvfp4.patch_tmaps` on the op the kernels can also patch their own tensor maps from raw
 * pointers (KernelABI.h, NVFP4_ABI_FLAG_PATCH_TMAPS; metadata NVFP4_META_FLAG_PATCH_TMAPS). The enclosing function is
 * tagged with `nvfp4.kernel = @<module>` so the provenance stays visible.
 *
 *   func.func @f(...) { nvfp4.grouped_matmul a(...) b(...) ... {target = "sm_100a"} }
 * becomes
 *   func.func @f(...) attributes {nvfp4.kernel = @k_module} { }
 *   gpu.module @k_module [#nvvm.target<chip = "sm_100a", features = "+ptx88", O = 3>] {
 *     llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<...>) ...
 *     llvm.func @k_ab_n128(%params: !llvm.ptr {llvm.byval = ..., nvvm.grid_constant}) ...
 *     llvm.func @k_swap_n128(...) ...  }
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "LoweringCommon.h"
#include "Sm100/Sm100Kernel.h"
#include "Sm120/Sm120Kernel.h"
#include "Sm90/Sm90Kernel.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVVM.h"
#include "mlir-c/Pass.h"
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Passes.h"
#include "nvfp4-c/Targets.h"

#define MAX_OPS 256

typedef struct OpList { MlirOperation ops[MAX_OPS]; int n; bool overflow; } OpList;

static MlirWalkResult collect(MlirOperation op, void *user) {
  OpList *l = user;
  if (mlirNvfp4IsGroupedMatmul(op) || mlirNvfp4IsMoeMatmul(op)) {
    if (l->n < MAX_OPS) l->ops[l->n++] = op;
    else l->overflow = true;
  }
  return MlirWalkResultAdvance;
}

static bool strAttr(MlirOperation op, const char *name, char *out, size_t size) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a)) return false;
  MlirStringRef s = mlirStringAttrGetValue(a);
  snprintf(out, size, "%.*s", (int)s.length, s.data);
  return true;
}

/* Appends `text` to a growing buffer; false when out of memory. */
typedef struct Text { char *data; size_t len, cap; } Text;
static bool textf(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool textf(Text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->data ? t->data + t->len : NULL, t->data ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) return false;
    if (t->data && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return true;
    }
    size_t cap = (t->cap ? t->cap * 2 : 16384) + (size_t)n;
    char *d = realloc(t->data, cap);
    if (!d) return false;
    t->data = d;
    t->cap = cap;
  }
}

/* The module skeleton: the metadata table, the dynamic shared-memory symbol and one kernel
 * signature per variant (bodies are built afterwards). */
static char *skeleton(const char *base, const MlirNvfp4KernelFamily *family,
                      char names[][NVFP4_META_KERNEL_NAME_BYTES], const nvfp4_target_info *target,
                      bool patchTmaps) {
  Text t = {0};
  uint32_t v = family->count;
  bool ok = textf(&t,
                  "gpu.module @%s_module [#nvvm.target<chip = \"%s\", features = \"%s\", "
                  "O = 3%s>] {\n  llvm.mlir.global external constant @%s(dense<[",
                  base, target->name, target->ptx,
                  target->mlir_sm_check ? "" : ", verifyTarget = false", NVFP4_METADATA_SYMBOL);
  for (uint32_t i = 0; ok && i < v; ++i) {
    unsigned char meta[NVFP4_METADATA_BYTES];
    /* The sm_12x kernels have no griddepcontrol (yet): no PDL flag for them. */
    const uint32_t pdl = target->generator == NVFP4_TARGET_GEN_MMA_SYNC ? 0u : NVFP4_META_FLAG_PDL;
    mlirNvfp4KernelConfigEncodeMetadata(&family->variants[i], names[i], target->name,
                                        target->target_sm,
                                        pdl | (patchTmaps ? NVFP4_META_FLAG_PATCH_TMAPS : 0u),
                                        family->variants[i].workspacePerCta, i, v,
                                        meta);
    for (unsigned j = 0; ok && j < NVFP4_METADATA_BYTES; ++j)
      ok = textf(&t, "%s%d", i || j ? ", " : "", (int)(signed char)meta[j]);
  }
  ok = ok && textf(&t,
                   "]> : tensor<%ux i8>) {addr_space = 1 : i32, alignment = 8 : i64} : "
                   "!llvm.array<%u x i8>\n  llvm.mlir.global external @nvfp4_dyn_smem() "
                   "{addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>\n",
                   v * NVFP4_METADATA_BYTES, v * NVFP4_METADATA_BYTES);
  /* nvvm.minctasm 1: one CTA per SM is what the shared memory allows anyway; it lets
   * ptxas use the registers it needs instead of budgeting for several CTAs (spills). */
  for (uint32_t i = 0; ok && i < v; ++i) {
    const MlirNvfp4KernelConfig *cfg = &family->variants[i];
    char cluster[64] = "";
    if (cfg->spec.ctaGroup > 1)
      snprintf(cluster, sizeof cluster, ", nvvm.cluster_dim = array<i32: %u, 1, 1>",
               cfg->spec.ctaGroup);
    ok = textf(&t,
               "  llvm.func @%s(%%params: !llvm.ptr {llvm.byval = !llvm.array<%u x i8>, "
               "llvm.align = 64 : i64, nvvm.grid_constant}) attributes {nvvm.kernel, "
               "nvvm.reqntid = array<i32: %u, 1, 1>, nvvm.minctasm = 1 : i32%s} {\n    llvm.return\n  }\n",
               names[i], cfg->paramBytes, cfg->numThreads, cluster);
  }
  ok = ok && textf(&t, "}\n");
  if (!ok) {
    free(t.data);
    return NULL;
  }
  /* tensor<256x i8> is not valid syntax: squeeze the space written for readability. */
  char *fix = strstr(t.data, "x i8>) {addr_space");
  if (fix) memmove(fix + 1, fix + 2, strlen(fix + 2) + 1);
  return t.data;
}

/* The variant's plan on its kernel, for the passes after this one (the CPU target's plan
 * text): `nvfp4.plan`, an array of the lines of mlirNvfp4KernelConfigPlanText. False when out
 * of memory. */
static bool attachPlan(MlirOperation func, const MlirNvfp4KernelConfig *cfg) {
  MlirContext ctx = mlirOperationGetContext(func);
  size_t len = mlirNvfp4KernelConfigPlanText(cfg, NULL, 0);
  char *text = malloc(len + 1);
  MlirAttribute *lines = malloc(sizeof *lines * (len + 1));
  if (!text || !lines) {
    free(text);
    free(lines);
    return false;
  }
  mlirNvfp4KernelConfigPlanText(cfg, text, len + 1);
  intptr_t n = 0;
  for (char *line = text, *end; *line; line = end + 1) {
    end = strchr(line, '\n');
    lines[n++] = mlirStringAttrGet(ctx, (MlirStringRef){line, (size_t)(end - line)});
  }
  mlirOperationSetAttributeByName(func, mlirStringRefCreateFromCString("nvfp4.plan"),
                                  mlirArrayAttrGet(ctx, n, lines));
  free(lines);
  free(text);
  return true;
}

/* Lowers one op; returns false after emitting a diagnostic. */
static bool lowerOne(MlirOperation module, MlirOperation op, int index) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirLocation loc = mlirOperationGetLocation(op);
  char msg[320];
  const bool moe = mlirNvfp4IsMoeMatmul(op);
  uint32_t groups = mlirNvfp4MatmulGroupCount(op);
  if (groups == 0) {
    nvfp4EmitError(loc, moe ? "nvfp4-lower-grouped-matmul: the expert count must be static"
                            : "nvfp4-lower-grouped-matmul: operand lists of unequal length");
    return false;
  }
  char target[32] = "sm_100a";
  strAttr(op, "target", target, sizeof target);
  const nvfp4_target_info *info = nvfp4_target_find(target);
  if (!info) {
    snprintf(msg, sizeof msg, "nvfp4-lower-grouped-matmul: target \"%s\" has no lowering (%s)",
             target, nvfp4_target_names());
    nvfp4EmitError(loc, msg);
    return false;
  }
  /* The plan the verifier asked for (memoised: the planner does not run again). */
  char why[256];
  MlirNvfp4KernelFamily *family = malloc(sizeof *family);
  if (!family || !mlirNvfp4MatmulPlanFamily(op, family, why, sizeof why)) {
    snprintf(msg, sizeof msg, "nvfp4-lower-grouped-matmul: %s",
             family ? why : "out of memory");
    nvfp4EmitError(loc, msg);
    free(family);
    return false;
  }

  char base[NVFP4_META_KERNEL_NAME_BYTES];
  if (!strAttr(op, "kernel_name", base, sizeof base)) {
    const char *stem = moe ? "nvfp4_moe_matmul_e" : "nvfp4_grouped_matmul_g";
    if (index == 0) snprintf(base, sizeof base, "%s%u", stem, groups);
    else snprintf(base, sizeof base, "%s%u_%d", stem, groups, index);
  }
  /* The module symbol must be new: a second op with the same kernel_name, or a function
   * named like the module, would make the whole module invalid after the pass. */
  char modName[96];
  snprintf(modName, sizeof modName, "%s_module", base);
  if (!mlirOperationIsNull(nvfp4FindSymbol(module, modName))) {
    snprintf(msg, sizeof msg,
             "nvfp4-lower-grouped-matmul: the module already has a symbol @%s (give each op a "
             "distinct kernel_name)", modName);
    nvfp4EmitError(loc, msg);
    free(family);
    return false;
  }
  char names[MLIR_NVFP4_MAX_VARIANTS][NVFP4_META_KERNEL_NAME_BYTES];
  for (uint32_t i = 0; i < family->count; ++i) {
    char vname[32];
    mlirNvfp4VariantName(family->variants[i].spec, vname, sizeof vname);
    snprintf(names[i], sizeof names[i], "%.47s_%s", base, vname);
  }

  /* `nvfp4.patch_tmaps` (a unit attribute on the op): the kernels can patch their own
   * tensor maps from raw pointers (KernelABI.h, NVFP4_ABI_FLAG_PATCH_TMAPS); the contiguous
   * form's handful of shared maps are never patched. */
  const bool patchTmaps = !moe && !mlirAttributeIsNull(mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("nvfp4.patch_tmaps")));
  char *text = skeleton(base, family, names, info, patchTmaps);
  MlirOperation gpuModule = {NULL};
  if (text)
    gpuModule = mlirOperationCreateParse(ctx, mlirStringRefCreateFromCString(text),
                                         mlirStringRefCreateFromCString("nvfp4-lowering"));
  free(text);
  if (mlirOperationIsNull(gpuModule)) {
    nvfp4EmitError(loc, "nvfp4-lower-grouped-matmul: internal error: kernel skeleton rejected");
    free(family);
    return false;
  }
  MlirBlock moduleBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  mlirBlockAppendOwnedOperation(moduleBody, gpuModule);

  for (uint32_t i = 0; i < family->count; ++i) {
    MlirOperation func = nvfp4FindSymbol(gpuModule, names[i]);
    if (!attachPlan(func, &family->variants[i])) {
      nvfp4EmitError(loc, "nvfp4-lower-grouped-matmul: out of memory");
      free(family);
      return false;
    }
    MlirRegion body = mlirOperationGetRegion(func, 0);
    MlirBlock entry = mlirRegionGetFirstBlock(body);
    mlirOperationDestroy(mlirBlockGetFirstOperation(entry)); /* the placeholder return */
    KbBuilder b;
    kbInit(&b, ctx, loc, body, entry);
    if (family->variants[i].spec.target == MLIR_NVFP4_TARGET_SM90A)
      nvfp4BuildSm90Kernel(&b, &family->variants[i], mlirBlockGetArgument(entry, 0),
                           "nvfp4_dyn_smem", patchTmaps);
    else if (family->variants[i].spec.target == MLIR_NVFP4_TARGET_SM120A)
      nvfp4BuildSm120Kernel(&b, &family->variants[i], mlirBlockGetArgument(entry, 0),
                            "nvfp4_dyn_smem", patchTmaps);
    else
      nvfp4BuildSm100Kernel(&b, &family->variants[i], mlirBlockGetArgument(entry, 0),
                            "nvfp4_dyn_smem", patchTmaps);
    if (b.failed) {
      nvfp4EmitError(loc, "nvfp4-lower-grouped-matmul: internal error: an op could not be built");
      free(family);
      return false;
    }
  }
  free(family);

  MlirAttribute ref = mlirFlatSymbolRefAttrGet(ctx, mlirStringRefCreateFromCString(modName));
  MlirOperation parent = mlirOperationGetParentOperation(op);
  if (!mlirOperationIsNull(parent) && !mlirOperationEqual(parent, module))
    mlirOperationSetAttributeByName(parent, mlirStringRefCreateFromCString("nvfp4.kernel"), ref);
  mlirOperationDestroy(op);
  return true;
}

/* Whether op sits in a func.func of `module` itself: the kernels' gpu.module goes into
 * `module` and the function gets a reference to it, which resolves nowhere else (the
 * verifier has refused every place but a func.func). */
static bool inFunctionOf(MlirOperation module, MlirOperation op) {
  MlirOperation p = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(p) && !nvfp4OpIs(p, "func.func")) p = mlirOperationGetParentOperation(p);
  if (!mlirOperationIsNull(p) && mlirOperationEqual(mlirOperationGetParentOperation(p), module))
    return true;
  nvfp4EmitError(mlirOperationGetLocation(op),
                 "nvfp4-lower-grouped-matmul: the op must be in a func.func of the module the "
                 "pass runs on (the top-level module), not of a nested module: the kernels' "
                 "gpu.module goes to the top-level module, where the function's reference to "
                 "it resolves");
  return false;
}

static void runLower(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  OpList *list = calloc(1, sizeof *list);
  mlirOperationWalk(module, collect, list, MlirWalkPreOrder);
  if (list->overflow) {
    nvfp4EmitError(mlirOperationGetLocation(module),
                   "nvfp4-lower-grouped-matmul: more than 256 nvfp4 matmul ops");
    mlirExternalPassSignalFailure(pass);
  } else {
    if (list->n)
      mlirOperationSetAttributeByName(module, mlirStringRefCreateFromCString("gpu.container_module"),
                                      mlirUnitAttrGet(mlirOperationGetContext(module)));
    for (int i = 0; i < list->n; ++i)
      if (!inFunctionOf(module, list->ops[i]) || !lowerOne(module, list->ops[i], i)) {
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
      "Lower nvfp4.grouped_matmul and nvfp4.moe_matmul to a persistent kernel family for "
      "its target (sm_100a/sm_100f/sm_103a: tcgen05/TMA; sm_90a: BF16 decode + wgmma/TMA; "
      "sm_120a/sm_121a/sm_120f: block-scaled mma.sync/TMA)", 3, deps,
      runLower);
}
