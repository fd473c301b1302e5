/* KernelBuilder.h — a small C layer over the MLIR C API for writing GPU kernels in the
 * llvm + nvvm dialects so that the kernel source reads like the algorithm: typed values,
 * arithmetic helpers, mutable variables (allocas that LLVM promotes to registers), and
 * structured if / while built from basic blocks.
 *
 * Every op is appended at the builder's insertion block; control-flow helpers move the
 * insertion block. Nesting is limited to KB_MAX_DEPTH levels.
 */
#ifndef NVFP4_CONVERSION_KERNELBUILDER_H
#define NVFP4_CONVERSION_KERNELBUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"

#define KB_MAX_DEPTH 32

typedef enum KbPred {
  KB_EQ = 0, KB_NE = 1, KB_SLT = 2, KB_SLE = 3, KB_SGT = 4, KB_SGE = 5,
  KB_ULT = 6, KB_ULE = 7, KB_UGT = 8, KB_UGE = 9
} KbPred;

/* llvm.fcmp predicates (LLVM's numbering): ordered ones are false when either side is NaN. */
typedef enum KbFPred {
  KB_FOEQ = 1, KB_FOGT = 2, KB_FOGE = 3, KB_FOLT = 4, KB_FOLE = 5, KB_FUNO = 14
} KbFPred;

typedef struct KbFrame {
  int kind;          /* 1 = if, 2 = while */
  MlirBlock a, b, c; /* if: then, else, merge; while: header, body, exit */
  bool hasElse;
} KbFrame;

typedef struct KbBuilder {
  MlirContext ctx;
  MlirLocation loc;
  MlirRegion body;
  MlirBlock entry;
  MlirBlock cur;
  MlirOperation allocaAnchor; /* allocas are inserted after this op in the entry block */
  MlirOperation insertBefore; /* when set, ops go before it (in `cur`) instead of at the end */
  MlirType i1, i8, i16, i32, i64, f16, f32, bf16;
  MlirType ptr, ptrShared, ptrTmem, ptrCluster;
  KbFrame stack[KB_MAX_DEPTH];
  int depth;
  bool failed; /* set when an op could not be created; checked by the caller */
  const char *tag; /* when set, every created op carries this unit attribute */
} KbBuilder;

typedef MlirValue KbValue;
typedef struct KbVar { KbValue slot; MlirType type; } KbVar;

/* Set up a builder writing into `entry` of `body` (an llvm.func region). */
void kbInit(KbBuilder *b, MlirContext ctx, MlirLocation loc, MlirRegion body, MlirBlock entry);

/* Generic op creation: appends `name` with operands, results and attributes. */
MlirOperation kbOp(KbBuilder *b, const char *name, intptr_t nResults, const MlirType *results,
                   intptr_t nOperands, const KbValue *operands, intptr_t nAttrs,
                   const MlirNamedAttribute *attrs);
MlirNamedAttribute kbNamed(KbBuilder *b, const char *name, MlirAttribute attr);
MlirAttribute kbAttr(KbBuilder *b, const char *text); /* parses an attribute */
MlirAttribute kbSegments(KbBuilder *b, intptr_t n, const int32_t *sizes);

/* Constants and arithmetic (llvm dialect; operands share one integer type). */
KbValue kbConst(KbBuilder *b, MlirType type, int64_t v);
KbValue kbI32(KbBuilder *b, int64_t v);
KbValue kbI64(KbBuilder *b, int64_t v);
KbValue kbBool(KbBuilder *b, bool v);
KbValue kbF32(KbBuilder *b, double v);
KbValue kbAdd(KbBuilder *b, KbValue x, KbValue y);
KbValue kbSub(KbBuilder *b, KbValue x, KbValue y);
KbValue kbMul(KbBuilder *b, KbValue x, KbValue y);
KbValue kbUDiv(KbBuilder *b, KbValue x, KbValue y);
KbValue kbURem(KbBuilder *b, KbValue x, KbValue y);
KbValue kbAnd(KbBuilder *b, KbValue x, KbValue y);
KbValue kbOr(KbBuilder *b, KbValue x, KbValue y);
KbValue kbXor(KbBuilder *b, KbValue x, KbValue y);
KbValue kbShl(KbBuilder *b, KbValue x, KbValue y);
KbValue kbLShr(KbBuilder *b, KbValue x, KbValue y);
KbValue kbFMul(KbBuilder *b, KbValue x, KbValue y); /* floating point (scalar or vector) */
KbValue kbFAdd(KbBuilder *b, KbValue x, KbValue y);
KbValue kbFDiv(KbBuilder *b, KbValue x, KbValue y); /* correctly rounded (no fast-math flags) */
KbValue kbFAbs(KbBuilder *b, KbValue x);
KbValue kbFMaximum(KbBuilder *b, KbValue x, KbValue y); /* NaN-propagating (llvm.maximum) */
KbValue kbRoundEven(KbBuilder *b, KbValue x);           /* to an integral value, ties even */
KbValue kbFCmp(KbBuilder *b, KbFPred p, KbValue x, KbValue y);
KbValue kbAddI(KbBuilder *b, KbValue x, int64_t c); /* x + constant */
KbValue kbMulI(KbBuilder *b, KbValue x, int64_t c);
KbValue kbCmp(KbBuilder *b, KbPred p, KbValue x, KbValue y);
KbValue kbCmpI(KbBuilder *b, KbPred p, KbValue x, int64_t c);
KbValue kbSelect(KbBuilder *b, KbValue c, KbValue x, KbValue y);
KbValue kbZExt(KbBuilder *b, KbValue x, MlirType to);
KbValue kbTrunc(KbBuilder *b, KbValue x, MlirType to);
KbValue kbFPToUI(KbBuilder *b, KbValue x, MlirType to);
KbValue kbBitcast(KbBuilder *b, KbValue x, MlirType to);
KbValue kbFPTrunc(KbBuilder *b, KbValue x, MlirType to);
KbValue kbUIToFP(KbBuilder *b, KbValue x, MlirType to);
KbValue kbIntToPtr(KbBuilder *b, KbValue x, MlirType to);
KbValue kbPtrToInt(KbBuilder *b, KbValue x, MlirType to);
KbValue kbAddrSpaceCast(KbBuilder *b, KbValue x, MlirType to);

/* Memory. */
KbValue kbGep(KbBuilder *b, KbValue base, int32_t byteOffset);       /* constant offset */
KbValue kbGepDyn(KbBuilder *b, KbValue base, KbValue byteOffset);    /* i32/i64 offset */
KbValue kbLoad(KbBuilder *b, MlirType type, KbValue ptr, int64_t align);
void kbStore(KbBuilder *b, KbValue v, KbValue ptr, int64_t align);
KbValue kbExtract(KbBuilder *b, KbValue vec, KbValue idx);
KbValue kbInsert(KbBuilder *b, KbValue vec, KbValue v, KbValue idx);
KbValue kbUndef(KbBuilder *b, MlirType type);
/* vector<n x elt> */
MlirType kbVecType(KbBuilder *b, MlirType elt, int64_t n);
KbValue kbAddressOf(KbBuilder *b, const char *global, MlirType ptrType);

/* Mutable variables. */
KbVar kbVar(KbBuilder *b, MlirType type, KbValue init);
KbValue kbGet(KbBuilder *b, KbVar v);
void kbSet(KbBuilder *b, KbVar v, KbValue x);

/* Structured control flow. */
void kbIf(KbBuilder *b, KbValue cond);
void kbElse(KbBuilder *b);
void kbEndIf(KbBuilder *b);
void kbWhile(KbBuilder *b);                 /* starts the condition block */
void kbWhileDo(KbBuilder *b, KbValue cond); /* ends the condition, starts the body */
void kbEndWhile(KbBuilder *b);
void kbReturn(KbBuilder *b);
/* llvm.call of `callee` (void result when `resultType` is null). */
KbValue kbCall(KbBuilder *b, const char *callee, MlirType resultType, intptr_t n,
               const KbValue *args);

#endif /* NVFP4_CONVERSION_KERNELBUILDER_H */
