// NVFP4Dialect.cpp — thin C++ adapter for the ODS-generated nvfp4 dialect: dialect
// initialisation and the ops' verify(), which forward to the C verifiers
// mlirNvfp4GroupedMatmulVerify and mlirNvfp4MoeMatmulVerify (Verifier.c).
#include "nvfp4/NVFP4Dialect.h"
#include "nvfp4-c/Dialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;
using namespace mlir::nvfp4;

#include "nvfp4/NVFP4Dialect.cpp.inc"

void NVFP4Dialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "nvfp4/NVFP4Ops.cpp.inc"
      >();
}

LogicalResult GroupedMatmulOp::verify() {
  return unwrap(mlirNvfp4GroupedMatmulVerify(wrap(getOperation())));
}

LogicalResult MoeMatmulOp::verify() {
  return unwrap(mlirNvfp4MoeMatmulVerify(wrap(getOperation())));
}

#define GET_OP_CLASSES
#include "nvfp4/NVFP4Ops.cpp.inc"
