/* HostLaunch.c — the --nvfp4-host-launch pass, in C: the host side of every
 * nvfp4.grouped_matmul becomes calls into libnvfp4rt's generated-code ABI (nvfp4rt_gen.h).
 *
 * Runs before --nvfp4-lower-grouped-matmul, which then turns the op (left in place, marked
 * nvfp4.host_launched, its kernel_name fixed) into the kernel; gpu-module-to-binary makes
 * the cubin and --nvfp4-embed-cubin (EmbedCubin.c) copies it into the placeholder global
 * created here. Per op `k` (its kernel_name) the module gains
 *   @k_rt_module  ptr, zero: the loaded nvfp4rt_module, set once
 *   @k_rt_plan    ptr, zero: the runtime's plan cache for this op
 *   @k_cubin      the cubin bytes (placeholder: empty until nvfp4-embed-cubin)
 *   @k_cubin_size i64 (placeholder: 0)
 * and the op's block is split around it:
 *
 *   %m0 = llvm.load @k_rt_module atomic acquire          // lazy-load guard
 *   cf.cond_br (%m0 == null), ^load, ^ready(%m0)
 * ^load:                                                // first call (or after a failure)
 *   %st = llvm.call @nvfp4rt_gen_module_load(@k_rt_module, @k_cubin, size)
 *   cf.cond_br (%st == 0), ^ready(reloaded), ^fail(%st)
 * ^ready(%m):
 *   descriptors stored to entry-block allocas, their addresses to an operand array
 *   %st2 = llvm.call @nvfp4rt_gen_launch(%m, @k_rt_plan, abi, form, flags, G, 5G, ops, stream)
 *   cf.cond_br (%st2 == 0), ^continue, ^fail(%st2)
 * ^fail(%s: i32): return %s
 *
 * The function gains an i32 result, the nvfp4rt_status of the call (0 on success, every
 * original return returns 0), and llvm.emit_c_interface so C calls it as
 * _mlir_ciface_<name>(descriptor pointers..., stream). The stream is the !llvm.ptr
 * argument carrying the unit attribute nvfp4.stream, else the default stream (null).
 * Calls of the function inside the module get the status as an extra trailing result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "KernelBuilder.h"
#include "LoweringCommon.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/ControlFlow.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/KernelConfig.h"
#include "mlir-c/Pass.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Passes.h"

/* The generated-code ABI (runtime/include/nvfp4rt_gen.h): version, form, flags. */
#define GEN_ABI_VERSION 1
#define GEN_FORM_GROUPED 0
#define GEN_FLAGS_F16 0
#define GEN_STATUS_OK 0
#define MAX_OPS 256
#define LLVM_ORDERING_ACQUIRE 4 /* LLVM AtomicOrdering::Acquire */

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

typedef struct OpList { MlirOperation ops[MAX_OPS]; int n; bool overflow; } OpList;

static MlirWalkResult collect(MlirOperation op, void *user) {
  OpList *l = user;
  if ((nvfp4OpIs(op, "nvfp4.grouped_matmul") || nvfp4OpIs(op, "nvfp4.moe_matmul")) &&
      mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("nvfp4.host_launched")))) {
    if (l->n < MAX_OPS) l->ops[l->n++] = op;
    else l->overflow = true;
  }
  return MlirWalkResultAdvance;
}

static MlirOperation parseOp(MlirContext ctx, const char *text) {
  return mlirOperationCreateParse(ctx, str(text), str("nvfp4-host-launch"));
}

/* Parses `text` and inserts it before `before` in the module body (at its end if null). */
static bool insertParsed(MlirOperation module, MlirOperation before, const char *text) {
  MlirOperation op = parseOp(mlirOperationGetContext(module), text);
  if (mlirOperationIsNull(op)) return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  if (mlirOperationIsNull(before)) mlirBlockAppendOwnedOperation(body, op);
  else mlirBlockInsertOwnedOperationBefore(body, before, op);
  return true;
}

/* The external declarations of the two ABI entry points (once per module). */
static bool declareAbi(MlirOperation module) {
  static const char *const decls[2][2] = {
      {"nvfp4rt_gen_module_load", "llvm.func @nvfp4rt_gen_module_load(!llvm.ptr, !llvm.ptr, "
                                  "i64) -> i32"},
      {"nvfp4rt_gen_launch", "llvm.func @nvfp4rt_gen_launch(!llvm.ptr, !llvm.ptr, i32, i32, "
                             "i32, i32, i32, !llvm.ptr, !llvm.ptr) -> i32"}};
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (int i = 0; i < 2; ++i) {
    if (!mlirOperationIsNull(nvfp4FindSymbol(module, decls[i][0]))) continue;
    if (!insertParsed(module, mlirBlockGetFirstOperation(body), decls[i][1])) return false;
  }
  return true;
}

/* The four per-op globals, before the function that holds the op. */
static bool declareGlobals(MlirOperation module, MlirOperation func, const char *k,
                           MlirLocation loc) {
  static const char *const suffixes[4] = {"_rt_module", "_rt_plan", "_cubin", "_cubin_size"};
  char name[128], msg[256], text[512];
  for (int i = 0; i < 4; ++i) {
    snprintf(name, sizeof name, "%s%s", k, suffixes[i]);
    if (!mlirOperationIsNull(nvfp4FindSymbol(module, name))) {
      snprintf(msg, sizeof msg, "nvfp4-host-launch: symbol @%s already exists (kernel_name "
                                "\"%s\" is used twice?)", name, k);
      nvfp4EmitError(loc, msg);
      return false;
    }
  }
  for (int i = 0; i < 2; ++i) {
    snprintf(text, sizeof text,
             "llvm.mlir.global internal @%s%s() {alignment = 8 : i64} : !llvm.ptr {\n"
             "  %%0 = llvm.mlir.zero : !llvm.ptr\n  llvm.return %%0 : !llvm.ptr\n}",
             k, suffixes[i]);
    if (!insertParsed(module, func, text)) return false;
  }
  snprintf(text, sizeof text,
           "llvm.mlir.global internal constant @%s_cubin(\"\") {alignment = 16 : i64, "
           "nvfp4.cubin_of = \"%s_module\"} : !llvm.array<0 x i8>", k, k);
  if (!insertParsed(module, func, text)) return false;
  snprintf(text, sizeof text,
           "llvm.mlir.global internal constant @%s_cubin_size(0 : i64) {nvfp4.cubin_size_of = "
           "\"%s_module\"} : i64", k, k);
  return insertParsed(module, func, text);
}

/* ---- ops the kernel builder does not have: cf branches with arguments, casts ---- */

static void condBr(KbBuilder *b, KbValue cond, MlirBlock t, intptr_t nt, KbValue *targs,
                   MlirBlock f, intptr_t nf, KbValue *fargs) {
  MlirOperationState st = mlirOperationStateGet(str("cf.cond_br"), b->loc);
  KbValue ops[4];
  intptr_t n = 0;
  ops[n++] = cond;
  for (intptr_t i = 0; i < nt; ++i) ops[n++] = targs[i];
  for (intptr_t i = 0; i < nf; ++i) ops[n++] = fargs[i];
  int32_t seg[3] = {1, (int32_t)nt, (int32_t)nf};
  MlirNamedAttribute a = kbNamed(b, "operandSegmentSizes", kbSegments(b, 3, seg));
  MlirBlock succ[2] = {t, f};
  mlirOperationStateAddOperands(&st, n, ops);
  mlirOperationStateAddSuccessors(&st, 2, succ);
  mlirOperationStateAddAttributes(&st, 1, &a);
  mlirBlockAppendOwnedOperation(b->cur, mlirOperationCreate(&st));
}

/* !llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>: what finalize-memref-to-llvm
 * turns a ranked memref into (nvfp4rt_memref_2d / _5d). */
static MlirType descriptorType(KbBuilder *b, intptr_t rank) {
  MlirType arr = mlirLLVMArrayTypeGet(b->i64, (unsigned)rank);
  MlirType fields[5] = {b->ptr, b->ptr, b->i64, arr, arr};
  return mlirLLVMStructTypeLiteralGet(b->ctx, 5, fields, false);
}

static KbValue castToDescriptor(KbBuilder *b, KbValue memref) {
  MlirType t = descriptorType(b, mlirShapedTypeGetRank(mlirValueGetType(memref)));
  MlirOperation op = kbOp(b, "builtin.unrealized_conversion_cast", 1, &t, 1, &memref, 0, NULL);
  return mlirOperationIsNull(op) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

static KbValue loadAcquire(KbBuilder *b, KbValue ptr) {
  MlirNamedAttribute a[2] = {
      kbNamed(b, "alignment", mlirIntegerAttrGet(b->i64, 8)),
      kbNamed(b, "ordering", mlirIntegerAttrGet(b->i64, LLVM_ORDERING_ACQUIRE))};
  MlirOperation op = kbOp(b, "llvm.load", 1, &b->ptr, 1, &ptr, 2, a);
  return mlirOperationIsNull(op) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

static KbValue nullPtr(KbBuilder *b) {
  MlirOperation op = kbOp(b, "llvm.mlir.zero", 1, &b->ptr, 0, NULL, 0, NULL);
  return mlirOperationIsNull(op) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

/* ---- one function ---------------------------------------------------------------- */

typedef struct FuncState {
  MlirOperation module, func;
  KbBuilder b;
  MlirBlock fail;   /* ^fail(%status: i32): return %status */
  KbValue stream;   /* the nvfp4.stream argument, or null (default stream) */
} FuncState;

/* The argument with the unit attribute nvfp4.stream; false after a diagnostic. */
static bool findStream(MlirOperation func, MlirBlock entry, MlirValue *out) {
  *out = (MlirValue){NULL};
  MlirAttribute argAttrs = mlirOperationGetAttributeByName(func, str("arg_attrs"));
  if (mlirAttributeIsNull(argAttrs)) return true;
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(argAttrs); ++i) {
    MlirAttribute d = mlirArrayAttrGetElement(argAttrs, i);
    if (!mlirAttributeIsADictionary(d) ||
        mlirAttributeIsNull(mlirDictionaryAttrGetElementByName(d, str("nvfp4.stream"))))
      continue;
    MlirValue arg = mlirBlockGetArgument(entry, i);
    if (!mlirTypeIsALLVMPointerType(mlirValueGetType(arg))) {
      nvfp4EmitError(mlirOperationGetLocation(func),
                     "nvfp4-host-launch: the nvfp4.stream argument must be an !llvm.ptr (a "
                     "CUstream)");
      return false;
    }
    if (!mlirValueIsNull(*out)) {
      nvfp4EmitError(mlirOperationGetLocation(func),
                     "nvfp4-host-launch: more than one argument carries nvfp4.stream");
      return false;
    }
    *out = arg;
  }
  return true;
}

/* Gives the function its i32 status result: every return returns 0, a failure block
 * returns its argument. */
static bool addStatusResult(FuncState *s) {
  MlirOperation func = s->func;
  MlirContext ctx = mlirOperationGetContext(func);
  MlirLocation loc = mlirOperationGetLocation(func);
  MlirAttribute fnAttr = mlirOperationGetAttributeByName(func, str("function_type"));
  MlirType fnType = mlirTypeAttrGetValue(fnAttr);
  if (mlirFunctionTypeGetNumResults(fnType) != 0) {
    nvfp4EmitError(loc, "nvfp4-host-launch: a function holding nvfp4.grouped_matmul must "
                        "return nothing (it is given an i32 status result)");
    return false;
  }
  intptr_t nIn = mlirFunctionTypeGetNumInputs(fnType);
  MlirType *ins = malloc(sizeof(MlirType) * (size_t)(nIn ? nIn : 1));
  if (!ins) return false;
  for (intptr_t i = 0; i < nIn; ++i) ins[i] = mlirFunctionTypeGetInput(fnType, i);
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  MlirType newType = mlirFunctionTypeGet(ctx, nIn, ins, 1, &i32);
  free(ins);
  mlirOperationSetAttributeByName(func, str("function_type"), mlirTypeAttrGet(newType));
  mlirOperationSetAttributeByName(func, str("llvm.emit_c_interface"), mlirUnitAttrGet(ctx));

  MlirRegion body = mlirOperationGetRegion(func, 0);
  KbBuilder *b = &s->b;
  for (MlirBlock blk = mlirRegionGetFirstBlock(body); !mlirBlockIsNull(blk);
       blk = mlirBlockGetNextInRegion(blk)) {
    MlirOperation term = mlirBlockGetTerminator(blk);
    if (mlirOperationIsNull(term) || !nvfp4OpIs(term, "func.return")) continue;
    b->cur = blk;
    b->insertBefore = term;
    KbValue ok = kbI32(b, GEN_STATUS_OK);
    mlirOperationSetOperands(term, 1, &ok);
  }
  b->insertBefore = (MlirOperation){NULL};
  s->fail = mlirBlockCreate(1, &i32, &loc);
  mlirRegionAppendOwnedBlock(body, s->fail);
  MlirValue status = mlirBlockGetArgument(s->fail, 0);
  MlirOperationState st = mlirOperationStateGet(str("func.return"), loc);
  mlirOperationStateAddOperands(&st, 1, &status);
  mlirBlockAppendOwnedOperation(s->fail, mlirOperationCreate(&st));
  return !b->failed;
}

/* Splits the op's block, emits the guard, the load, the launch and the status checks. */
static bool lowerOp(FuncState *s, MlirOperation op, const char *k) {
  KbBuilder *b = &s->b;
  b->loc = mlirOperationGetLocation(op);
  MlirBlock blk = mlirOperationGetBlock(op);
  MlirRegion body = mlirOperationGetRegion(s->func, 0);
  const intptr_t nOps = mlirOperationGetNumOperands(op);
  const uint32_t groups = (uint32_t)(nOps / 5);

  /* ^continue takes everything after the op; ^load and ^ready go between. */
  MlirBlock cont = mlirBlockCreate(0, NULL, NULL);
  MlirBlock ready = mlirBlockCreate(1, &b->ptr, &b->loc);
  MlirBlock load = mlirBlockCreate(0, NULL, NULL);
  mlirRegionInsertOwnedBlockAfter(body, blk, cont);
  mlirRegionInsertOwnedBlockAfter(body, blk, ready);
  mlirRegionInsertOwnedBlockAfter(body, blk, load);
  for (MlirOperation next = mlirOperationGetNextInBlock(op); !mlirOperationIsNull(next);) {
    MlirOperation after = mlirOperationGetNextInBlock(next);
    mlirOperationRemoveFromParent(next);
    mlirBlockAppendOwnedOperation(cont, next);
    next = after;
  }
  mlirOperationRemoveFromParent(op);

  char sym[128];
  /* the guard: an acquire load of the module slot */
  b->cur = blk;
  snprintf(sym, sizeof sym, "%s_rt_module", k);
  KbValue slot = kbAddressOf(b, sym, b->ptr);
  KbValue m0 = loadAcquire(b, slot);
  KbValue isNull = kbCmp(b, KB_EQ, m0, nullPtr(b));
  condBr(b, isNull, load, 0, NULL, ready, 1, &m0);

  /* ^load: the first call loads the embedded cubin */
  b->cur = load;
  snprintf(sym, sizeof sym, "%s_cubin", k);
  KbValue image = kbAddressOf(b, sym, b->ptr);
  snprintf(sym, sizeof sym, "%s_cubin_size", k);
  KbValue size = kbLoad(b, b->i64, kbAddressOf(b, sym, b->ptr), 8);
  KbValue loadArgs[3] = {slot, image, size};
  KbValue st = kbCall(b, "nvfp4rt_gen_module_load", b->i32, 3, loadArgs);
  KbValue m1 = kbLoad(b, b->ptr, slot, 8);
  condBr(b, kbCmpI(b, KB_EQ, st, GEN_STATUS_OK), ready, 1, &m1, s->fail, 1, &st);

  /* ^ready(%module): descriptors, then the launch through the plan cache */
  b->cur = ready;
  KbValue module = mlirBlockGetArgument(ready, 0);
  KbVar list = kbVar(b, mlirLLVMArrayTypeGet(b->ptr, (unsigned)nOps), (MlirValue){NULL});
  for (intptr_t i = 0; i < nOps; ++i) {
    KbValue memref = mlirOperationGetOperand(op, i);
    KbValue desc = castToDescriptor(b, memref);
    KbVar slotVar = kbVar(b, mlirValueGetType(desc), desc);
    kbStore(b, slotVar.slot, kbGep(b, list.slot, (int32_t)(i * 8)), 8);
  }
  mlirBlockAppendOwnedOperation(ready, op); /* the kernel lowering erases it */
  snprintf(sym, sizeof sym, "%s_rt_plan", k);
  KbValue stream = mlirValueIsNull(s->stream) ? nullPtr(b) : s->stream;
  KbValue launchArgs[9] = {module,
                           kbAddressOf(b, sym, b->ptr),
                           kbI32(b, GEN_ABI_VERSION),
                           kbI32(b, GEN_FORM_GROUPED),
                           kbI32(b, GEN_FLAGS_F16),
                           kbI32(b, groups),
                           kbI32(b, nOps),
                           list.slot,
                           stream};
  KbValue st2 = kbCall(b, "nvfp4rt_gen_launch", b->i32, 9, launchArgs);
  condBr(b, kbCmpI(b, KB_EQ, st2, GEN_STATUS_OK), cont, 0, NULL, s->fail, 1, &st2);
  mlirOperationSetAttributeByName(op, str("nvfp4.host_launched"), mlirUnitAttrGet(b->ctx));
  return !b->failed;
}

/* Calls of `func` in the module receive its new status as a trailing result. */
typedef struct Calls {
  MlirStringRef callee;
  MlirOperation ops[MAX_OPS];
  int n;
  bool overflow;
} Calls;

static MlirWalkResult collectCalls(MlirOperation op, void *user) {
  Calls *c = user;
  if (!nvfp4OpIs(op, "func.call")) return MlirWalkResultAdvance;
  MlirAttribute callee = mlirOperationGetAttributeByName(op, str("callee"));
  if (!mlirAttributeIsNull(callee) &&
      mlirStringRefEqual(mlirFlatSymbolRefAttrGetValue(callee), c->callee)) {
    if (c->n < MAX_OPS) c->ops[c->n++] = op;
    else c->overflow = true;
  }
  return MlirWalkResultAdvance;
}

static bool updateCalls(MlirOperation module, MlirOperation func) {
  Calls *c = calloc(1, sizeof *c);
  if (!c) return false;
  c->callee = mlirStringAttrGetValue(mlirOperationGetAttributeByName(func, str("sym_name")));
  mlirOperationWalk(module, collectCalls, c, MlirWalkPreOrder);
  MlirContext ctx = mlirOperationGetContext(module);
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  bool ok = !c->overflow;
  if (!ok)
    nvfp4EmitError(mlirOperationGetLocation(func),
                   "nvfp4-host-launch: more than 256 calls of this function in the module");
  for (int i = 0; i < c->n && ok; ++i) {
    MlirOperation call = c->ops[i];
    MlirOperationState st = mlirOperationStateGet(str("func.call"), mlirOperationGetLocation(call));
    intptr_t nOperands = mlirOperationGetNumOperands(call);
    for (intptr_t j = 0; j < nOperands; ++j) {
      MlirValue v = mlirOperationGetOperand(call, j);
      mlirOperationStateAddOperands(&st, 1, &v);
    }
    intptr_t nAttrs = mlirOperationGetNumAttributes(call);
    for (intptr_t j = 0; j < nAttrs; ++j) {
      MlirNamedAttribute a = mlirOperationGetAttribute(call, j);
      mlirOperationStateAddAttributes(&st, 1, &a);
    }
    mlirOperationStateAddResults(&st, 1, &i32); /* the callee returned nothing before */
    MlirOperation repl = mlirOperationCreate(&st);
    ok = !mlirOperationIsNull(repl);
    if (!ok) break;
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(call), call, repl);
    mlirOperationDestroy(call);
  }
  free(c);
  return ok;
}

static bool lowerFunction(MlirOperation module, MlirOperation func, OpList *list, int first,
                          char names[][NVFP4_META_KERNEL_NAME_BYTES]) {
  FuncState s;
  memset(&s, 0, sizeof s);
  s.module = module;
  s.func = func;
  MlirRegion body = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(body);
  if (!findStream(func, entry, &s.stream)) return false;
  kbInit(&s.b, mlirOperationGetContext(func), mlirOperationGetLocation(func), body, entry);
  if (!addStatusResult(&s)) return false;
  for (int i = first; i < list->n; ++i) {
    if (!mlirOperationEqual(mlirOperationGetParentOperation(list->ops[i]), func)) continue;
    if (!declareGlobals(module, func, names[i], mlirOperationGetLocation(list->ops[i])) ||
        !lowerOp(&s, list->ops[i], names[i])) {
      if (!s.b.failed) return false;
      nvfp4EmitError(mlirOperationGetLocation(list->ops[i]),
                     "nvfp4-host-launch: internal error: an op could not be built");
      return false;
    }
  }
  return updateCalls(module, func);
}

static bool strAttr(MlirOperation op, const char *name, char *out, size_t size) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, str(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a)) return false;
  MlirStringRef s = mlirStringAttrGetValue(a);
  snprintf(out, size, "%.*s", (int)s.length, s.data);
  return true;
}

static void runHostLaunch(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  OpList *list = calloc(1, sizeof *list);
  char (*names)[NVFP4_META_KERNEL_NAME_BYTES] = calloc(MAX_OPS, sizeof *names);
  bool ok = list && names;
  if (ok) mlirOperationWalk(module, collect, list, MlirWalkPreOrder);
  if (ok && list->overflow) {
    nvfp4EmitError(mlirOperationGetLocation(module),
                   "nvfp4-host-launch: more than 256 nvfp4.grouped_matmul ops");
    ok = false;
  }
  /* Every op sits directly in a func.func; its kernel name is fixed now (the lowering's
   * default otherwise) so that the globals and the kernel agree. */
  for (int i = 0; ok && i < list->n; ++i) {
    MlirOperation op = list->ops[i];
    MlirOperation parent = mlirOperationGetParentOperation(op);
    if (mlirOperationIsNull(parent) || !nvfp4OpIs(parent, "func.func") ||
        !mlirOperationEqual(mlirOperationGetParentOperation(parent), module)) {
      char msg[256];
      MlirStringRef pn = mlirIdentifierStr(mlirOperationGetName(parent));
      snprintf(msg, sizeof msg,
               "nvfp4-host-launch: the op must sit directly in the body of a func.func of the "
               "module (it is inside '%.*s')", (int)pn.length, pn.data);
      nvfp4EmitError(mlirOperationGetLocation(op), msg);
      ok = false;
      break;
    }
    /* The generated-code ABI has room for them (nvfp4rt_gen.h: forms and flags), the
     * runtime's side does not implement them yet: refuse rather than drop the launch. */
    MlirNvfp4VariantSpec spec[MLIR_NVFP4_MAX_VARIANTS];
    char why[256];
    const intptr_t nspecs = mlirNvfp4GroupedMatmulGetVariantSpecs(op, spec, MLIR_NVFP4_MAX_VARIANTS,
                                                                  why, sizeof why);
    const char *unsupported = nvfp4OpIs(op, "nvfp4.moe_matmul")
                                  ? "nvfp4.moe_matmul (launch it with nvfp4rt_moe_plan_*)"
                              : !mlirAttributeIsNull(mlirOperationGetAttributeByName(
                                    op, str("epilogue")))
                                  ? "the fused epilogue \"swiglu_nvfp4\""
                              : nspecs > 0 && spec[0].alpha ? "an alpha operand"
                              : nspecs > 0 && spec[0].output != MLIR_NVFP4_OUTPUT_F16
                                  ? "a C that is not f16"
                                  : NULL;
    if (unsupported) {
      char msg[256];
      snprintf(msg, sizeof msg, "nvfp4-host-launch: %s has no host lowering yet", unsupported);
      nvfp4EmitError(mlirOperationGetLocation(op), msg);
      ok = false;
      break;
    }
    if (mlirOperationGetNumOperands(op) == 0 || mlirOperationGetNumOperands(op) % 5) {
      nvfp4EmitError(mlirOperationGetLocation(op),
                     "nvfp4-host-launch: operand lists of unequal length");
      ok = false;
      break;
    }
    if (!strAttr(op, "kernel_name", names[i], sizeof names[i])) {
      uint32_t g = (uint32_t)(mlirOperationGetNumOperands(op) / 5);
      if (i == 0) snprintf(names[i], sizeof names[i], "nvfp4_grouped_matmul_g%u", g);
      else snprintf(names[i], sizeof names[i], "nvfp4_grouped_matmul_g%u_%d", g, i);
      mlirOperationSetAttributeByName(
          op, str("kernel_name"),
          mlirStringAttrGet(mlirOperationGetContext(op), str(names[i])));
    }
  }
  if (ok && list->n) ok = declareAbi(module);
  /* one function at a time, in the order of its first op */
  for (int i = 0; ok && i < list->n; ++i) {
    MlirOperation func = mlirOperationGetParentOperation(list->ops[i]);
    bool seen = false;
    for (int j = 0; j < i && !seen; ++j)
      seen = mlirOperationEqual(mlirOperationGetParentOperation(list->ops[j]), func);
    if (!seen) ok = lowerFunction(module, func, list, i, names);
  }
  if (!ok) mlirExternalPassSignalFailure(pass);
  free(list);
  free(names);
}

MlirPass mlirNvfp4CreateHostLaunchPass(void) {
  static MlirTypeID id;
  MlirDialectHandle deps[3] = {mlirGetDialectHandle__llvm__(), mlirGetDialectHandle__cf__(),
                               mlirGetDialectHandle__func__()};
  return nvfp4CreateModulePass(
      &id, "NVFP4HostLaunch", "nvfp4-host-launch",
      "Replace the host side of nvfp4.grouped_matmul with calls into libnvfp4rt's "
      "generated-code ABI: embedded cubin, lazy module load, cached plan, launch on a stream, "
      "status result",
      3, deps, runHostLaunch);
}
