/* KernelBuilder.c — implementation of the C kernel-builder layer (see KernelBuilder.h):
 * generic llvm/nvvm op creation through the MLIR C API, variables as entry-block allocas,
 * and structured control flow lowered to llvm.br / llvm.cond_br between blocks. */
#include "KernelBuilder.h"

#include <stdio.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

void kbInit(KbBuilder *b, MlirContext ctx, MlirLocation loc, MlirRegion body, MlirBlock entry) {
  memset(b, 0, sizeof *b);
  b->ctx = ctx;
  b->loc = loc;
  b->body = body;
  b->entry = entry;
  b->cur = entry;
  b->i1 = mlirIntegerTypeGet(ctx, 1);
  b->i8 = mlirIntegerTypeGet(ctx, 8);
  b->i16 = mlirIntegerTypeGet(ctx, 16);
  b->i32 = mlirIntegerTypeGet(ctx, 32);
  b->i64 = mlirIntegerTypeGet(ctx, 64);
  b->f16 = mlirF16TypeGet(ctx);
  b->f32 = mlirF32TypeGet(ctx);
  b->bf16 = mlirBF16TypeGet(ctx);
  b->ptr = mlirLLVMPointerTypeGet(ctx, 0);
  b->ptrShared = mlirLLVMPointerTypeGet(ctx, 3);
  b->ptrTmem = mlirLLVMPointerTypeGet(ctx, 6);
  b->ptrCluster = mlirLLVMPointerTypeGet(ctx, 7);
  /* The anchor for allocas: a constant 1 at the top of the entry block. */
  MlirOperationState st = mlirOperationStateGet(str("llvm.mlir.constant"), loc);
  MlirNamedAttribute value =
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("value")), mlirIntegerAttrGet(b->i32, 1));
  mlirOperationStateAddAttributes(&st, 1, &value);
  mlirOperationStateAddResults(&st, 1, &b->i32);
  b->allocaAnchor = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperation(entry, 0, b->allocaAnchor);
}

MlirOperation kbOp(KbBuilder *b, const char *name, intptr_t nResults, const MlirType *results,
                   intptr_t nOperands, const KbValue *operands, intptr_t nAttrs,
                   const MlirNamedAttribute *attrs) {
  MlirOperationState st = mlirOperationStateGet(str(name), b->loc);
  if (nResults) mlirOperationStateAddResults(&st, nResults, results);
  if (nOperands) mlirOperationStateAddOperands(&st, nOperands, operands);
  if (nAttrs) mlirOperationStateAddAttributes(&st, nAttrs, attrs);
  if (b->tag) {
    MlirNamedAttribute t = kbNamed(b, b->tag, mlirUnitAttrGet(b->ctx));
    mlirOperationStateAddAttributes(&st, 1, &t);
  }
  MlirOperation op = mlirOperationCreate(&st);
  if (mlirOperationIsNull(op)) {
    b->failed = true;
    return op;
  }
  if (!mlirOperationIsNull(b->insertBefore))
    mlirBlockInsertOwnedOperationBefore(b->cur, b->insertBefore, op);
  else
    mlirBlockAppendOwnedOperation(b->cur, op);
  return op;
}

MlirNamedAttribute kbNamed(KbBuilder *b, const char *name, MlirAttribute attr) {
  return mlirNamedAttributeGet(mlirIdentifierGet(b->ctx, str(name)), attr);
}

MlirAttribute kbAttr(KbBuilder *b, const char *text) {
  MlirAttribute a = mlirAttributeParseGet(b->ctx, str(text));
  if (mlirAttributeIsNull(a)) b->failed = true;
  return a;
}

MlirAttribute kbSegments(KbBuilder *b, intptr_t n, const int32_t *sizes) {
  return mlirDenseI32ArrayGet(b->ctx, n, sizes);
}

static KbValue result(MlirOperation op) {
  if (mlirOperationIsNull(op) || mlirOperationGetNumResults(op) == 0) return (MlirValue){NULL};
  return mlirOperationGetResult(op, 0);
}

KbValue kbConst(KbBuilder *b, MlirType type, int64_t v) {
  MlirNamedAttribute a = kbNamed(b, "value", mlirIntegerAttrGet(type, v));
  return result(kbOp(b, "llvm.mlir.constant", 1, &type, 0, NULL, 1, &a));
}
KbValue kbI32(KbBuilder *b, int64_t v) { return kbConst(b, b->i32, v); }
KbValue kbI64(KbBuilder *b, int64_t v) { return kbConst(b, b->i64, v); }
KbValue kbBool(KbBuilder *b, bool v) { return kbConst(b, b->i1, v ? 1 : 0); }
KbValue kbF32(KbBuilder *b, double v) {
  MlirNamedAttribute a = kbNamed(b, "value", mlirFloatAttrDoubleGet(b->ctx, b->f32, v));
  return result(kbOp(b, "llvm.mlir.constant", 1, &b->f32, 0, NULL, 1, &a));
}

static KbValue binary(KbBuilder *b, const char *name, KbValue x, KbValue y) {
  MlirType t = mlirValueGetType(x);
  KbValue ops[2] = {x, y};
  return result(kbOp(b, name, 1, &t, 2, ops, 0, NULL));
}
KbValue kbAdd(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.add", x, y); }
KbValue kbSub(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.sub", x, y); }
KbValue kbMul(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.mul", x, y); }
KbValue kbUDiv(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.udiv", x, y); }
KbValue kbURem(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.urem", x, y); }
KbValue kbAnd(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.and", x, y); }
KbValue kbOr(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.or", x, y); }
KbValue kbXor(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.xor", x, y); }
KbValue kbShl(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.shl", x, y); }
KbValue kbLShr(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.lshr", x, y); }
KbValue kbFMul(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.fmul", x, y); }
KbValue kbFAdd(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.fadd", x, y); }
KbValue kbFDiv(KbBuilder *b, KbValue x, KbValue y) { return binary(b, "llvm.fdiv", x, y); }
KbValue kbFMaximum(KbBuilder *b, KbValue x, KbValue y) {
  return binary(b, "llvm.intr.maximum", x, y);
}
static KbValue unary(KbBuilder *b, const char *name, KbValue x) {
  MlirType t = mlirValueGetType(x);
  return result(kbOp(b, name, 1, &t, 1, &x, 0, NULL));
}
KbValue kbFAbs(KbBuilder *b, KbValue x) { return unary(b, "llvm.intr.fabs", x); }
KbValue kbRoundEven(KbBuilder *b, KbValue x) { return unary(b, "llvm.intr.roundeven", x); }
KbValue kbFCmp(KbBuilder *b, KbFPred p, KbValue x, KbValue y) {
  KbValue ops[2] = {x, y};
  MlirNamedAttribute a = kbNamed(b, "predicate", mlirIntegerAttrGet(b->i64, (int64_t)p));
  return result(kbOp(b, "llvm.fcmp", 1, &b->i1, 2, ops, 1, &a));
}

KbValue kbAddI(KbBuilder *b, KbValue x, int64_t c) {
  if (c == 0) return x;
  return kbAdd(b, x, kbConst(b, mlirValueGetType(x), c));
}
KbValue kbMulI(KbBuilder *b, KbValue x, int64_t c) {
  if (c == 1) return x;
  return kbMul(b, x, kbConst(b, mlirValueGetType(x), c));
}

KbValue kbCmp(KbBuilder *b, KbPred p, KbValue x, KbValue y) {
  KbValue ops[2] = {x, y};
  MlirNamedAttribute a = kbNamed(b, "predicate", mlirIntegerAttrGet(b->i64, (int64_t)p));
  return result(kbOp(b, "llvm.icmp", 1, &b->i1, 2, ops, 1, &a));
}
KbValue kbCmpI(KbBuilder *b, KbPred p, KbValue x, int64_t c) {
  return kbCmp(b, p, x, kbConst(b, mlirValueGetType(x), c));
}

KbValue kbSelect(KbBuilder *b, KbValue c, KbValue x, KbValue y) {
  MlirType t = mlirValueGetType(x);
  KbValue ops[3] = {c, x, y};
  return result(kbOp(b, "llvm.select", 1, &t, 3, ops, 0, NULL));
}

static KbValue cast(KbBuilder *b, const char *name, KbValue x, MlirType to) {
  return result(kbOp(b, name, 1, &to, 1, &x, 0, NULL));
}
KbValue kbZExt(KbBuilder *b, KbValue x, MlirType to) { return cast(b, "llvm.zext", x, to); }
KbValue kbTrunc(KbBuilder *b, KbValue x, MlirType to) { return cast(b, "llvm.trunc", x, to); }
KbValue kbFPToUI(KbBuilder *b, KbValue x, MlirType to) { return cast(b, "llvm.fptoui", x, to); }
KbValue kbBitcast(KbBuilder *b, KbValue x, MlirType to) { return cast(b, "llvm.bitcast", x, to); }
KbValue kbFPTrunc(KbBuilder *b, KbValue x, MlirType to) { return cast(b, "llvm.fptrunc", x, to); }
KbValue kbUIToFP(KbBuilder *b, KbValue x, MlirType to) { return cast(b, "llvm.uitofp", x, to); }
KbValue kbIntToPtr(KbBuilder *b, KbValue x, MlirType to) { return cast(b, "llvm.inttoptr", x, to); }
KbValue kbPtrToInt(KbBuilder *b, KbValue x, MlirType to) { return cast(b, "llvm.ptrtoint", x, to); }
KbValue kbAddrSpaceCast(KbBuilder *b, KbValue x, MlirType to) {
  return cast(b, "llvm.addrspacecast", x, to);
}

KbValue kbGep(KbBuilder *b, KbValue base, int32_t byteOffset) {
  MlirType t = mlirValueGetType(base);
  MlirNamedAttribute attrs[2] = {
      kbNamed(b, "elem_type", mlirTypeAttrGet(b->i8)),
      kbNamed(b, "rawConstantIndices", mlirDenseI32ArrayGet(b->ctx, 1, &byteOffset))};
  return result(kbOp(b, "llvm.getelementptr", 1, &t, 1, &base, 2, attrs));
}

KbValue kbGepDyn(KbBuilder *b, KbValue base, KbValue byteOffset) {
  MlirType t = mlirValueGetType(base);
  int32_t dynamic = INT32_MIN; /* GEPOp::kDynamicIndex */
  KbValue ops[2] = {base, byteOffset};
  MlirNamedAttribute attrs[2] = {
      kbNamed(b, "elem_type", mlirTypeAttrGet(b->i8)),
      kbNamed(b, "rawConstantIndices", mlirDenseI32ArrayGet(b->ctx, 1, &dynamic))};
  return result(kbOp(b, "llvm.getelementptr", 1, &t, 2, ops, 2, attrs));
}

KbValue kbLoad(KbBuilder *b, MlirType type, KbValue ptr, int64_t align) {
  MlirNamedAttribute a = kbNamed(b, "alignment", mlirIntegerAttrGet(b->i64, align));
  return result(kbOp(b, "llvm.load", 1, &type, 1, &ptr, align ? 1 : 0, &a));
}

void kbStore(KbBuilder *b, KbValue v, KbValue ptr, int64_t align) {
  KbValue ops[2] = {v, ptr};
  MlirNamedAttribute a = kbNamed(b, "alignment", mlirIntegerAttrGet(b->i64, align));
  kbOp(b, "llvm.store", 0, NULL, 2, ops, align ? 1 : 0, &a);
}

KbValue kbExtract(KbBuilder *b, KbValue vec, KbValue idx) {
  MlirType t = mlirShapedTypeGetElementType(mlirValueGetType(vec));
  KbValue ops[2] = {vec, idx};
  return result(kbOp(b, "llvm.extractelement", 1, &t, 2, ops, 0, NULL));
}

KbValue kbInsert(KbBuilder *b, KbValue vec, KbValue v, KbValue idx) {
  MlirType t = mlirValueGetType(vec);
  KbValue ops[3] = {vec, v, idx};
  return result(kbOp(b, "llvm.insertelement", 1, &t, 3, ops, 0, NULL));
}

MlirType kbVecType(KbBuilder *b, MlirType elt, int64_t n) {
  (void)b;
  return mlirVectorTypeGet(1, &n, elt);
}

KbValue kbUndef(KbBuilder *b, MlirType type) {
  return result(kbOp(b, "llvm.mlir.undef", 1, &type, 0, NULL, 0, NULL));
}

KbValue kbAddressOf(KbBuilder *b, const char *global, MlirType ptrType) {
  MlirNamedAttribute a =
      kbNamed(b, "global_name", mlirFlatSymbolRefAttrGet(b->ctx, str(global)));
  return result(kbOp(b, "llvm.mlir.addressof", 1, &ptrType, 0, NULL, 1, &a));
}

KbVar kbVar(KbBuilder *b, MlirType type, KbValue init) {
  KbValue one = mlirOperationGetResult(b->allocaAnchor, 0);
  MlirOperationState st = mlirOperationStateGet(str("llvm.alloca"), b->loc);
  MlirNamedAttribute attrs[2] = {kbNamed(b, "elem_type", mlirTypeAttrGet(type)),
                                 kbNamed(b, "alignment", mlirIntegerAttrGet(b->i64, 8))};
  mlirOperationStateAddAttributes(&st, 2, attrs);
  if (b->tag) {
    MlirNamedAttribute t = kbNamed(b, b->tag, mlirUnitAttrGet(b->ctx));
    mlirOperationStateAddAttributes(&st, 1, &t);
  }
  mlirOperationStateAddOperands(&st, 1, &one);
  mlirOperationStateAddResults(&st, 1, &b->ptr);
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationAfter(b->entry, b->allocaAnchor, op);
  KbVar v = {mlirOperationGetResult(op, 0), type};
  if (!mlirValueIsNull(init)) kbSet(b, v, init);
  return v;
}

KbValue kbGet(KbBuilder *b, KbVar v) { return kbLoad(b, v.type, v.slot, 0); }
void kbSet(KbBuilder *b, KbVar v, KbValue x) { kbStore(b, x, v.slot, 0); }

static MlirBlock newBlock(KbBuilder *b) {
  MlirBlock blk = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(b->body, blk);
  return blk;
}

static void br(KbBuilder *b, MlirBlock dest) {
  MlirOperationState st = mlirOperationStateGet(str("llvm.br"), b->loc);
  mlirOperationStateAddSuccessors(&st, 1, &dest);
  mlirBlockAppendOwnedOperation(b->cur, mlirOperationCreate(&st));
}

static void condBr(KbBuilder *b, KbValue c, MlirBlock t, MlirBlock f) {
  MlirOperationState st = mlirOperationStateGet(str("llvm.cond_br"), b->loc);
  MlirBlock succ[2] = {t, f};
  int32_t seg[3] = {1, 0, 0};
  MlirNamedAttribute a = kbNamed(b, "operandSegmentSizes", kbSegments(b, 3, seg));
  mlirOperationStateAddOperands(&st, 1, &c);
  mlirOperationStateAddSuccessors(&st, 2, succ);
  mlirOperationStateAddAttributes(&st, 1, &a);
  mlirBlockAppendOwnedOperation(b->cur, mlirOperationCreate(&st));
}

static KbFrame *push(KbBuilder *b, int kind) {
  if (b->depth >= KB_MAX_DEPTH) {
    b->failed = true;
    return &b->stack[KB_MAX_DEPTH - 1];
  }
  KbFrame *f = &b->stack[b->depth++];
  memset(f, 0, sizeof *f);
  f->kind = kind;
  return f;
}

void kbIf(KbBuilder *b, KbValue cond) {
  KbFrame *f = push(b, 1);
  f->a = newBlock(b); /* then */
  f->b = newBlock(b); /* else (falls through to merge when unused) */
  f->c = newBlock(b); /* merge */
  condBr(b, cond, f->a, f->b);
  b->cur = f->a;
}

void kbElse(KbBuilder *b) {
  KbFrame *f = &b->stack[b->depth - 1];
  br(b, f->c);
  f->hasElse = true;
  b->cur = f->b;
}

void kbEndIf(KbBuilder *b) {
  KbFrame *f = &b->stack[--b->depth];
  br(b, f->c);
  if (!f->hasElse) { /* the else block only forwards to the merge block */
    b->cur = f->b;
    br(b, f->c);
  }
  b->cur = f->c;
}

void kbWhile(KbBuilder *b) {
  KbFrame *f = push(b, 2);
  f->a = newBlock(b); /* header: condition */
  f->b = newBlock(b); /* body */
  f->c = newBlock(b); /* exit */
  br(b, f->a);
  b->cur = f->a;
}

void kbWhileDo(KbBuilder *b, KbValue cond) {
  KbFrame *f = &b->stack[b->depth - 1];
  condBr(b, cond, f->b, f->c);
  b->cur = f->b;
}

void kbEndWhile(KbBuilder *b) {
  KbFrame *f = &b->stack[--b->depth];
  br(b, f->a);
  b->cur = f->c;
}

void kbReturn(KbBuilder *b) { kbOp(b, "llvm.return", 0, NULL, 0, NULL, 0, NULL); }

KbValue kbCall(KbBuilder *b, const char *callee, MlirType resultType, intptr_t n,
               const KbValue *args) {
  int32_t seg[2] = {(int32_t)n, 0};
  MlirNamedAttribute attrs[3] = {
      kbNamed(b, "callee", mlirFlatSymbolRefAttrGet(b->ctx, str(callee))),
      kbNamed(b, "op_bundle_sizes", mlirDenseI32ArrayGet(b->ctx, 0, NULL)),
      kbNamed(b, "operandSegmentSizes", kbSegments(b, 2, seg))};
  bool hasResult = !mlirTypeIsNull(resultType);
  return result(kbOp(b, "llvm.call", hasResult ? 1 : 0, &resultType, n, args, 3, attrs));
}
