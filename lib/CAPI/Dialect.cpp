// Dialect.cpp — thin C++ shims behind include/nvfp4-c/Dialect.h: the nvfp4 dialect handle
// and the registration helpers that make a context ready for the whole nvfp4 pipeline
// (all upstream dialects and extensions, LLVM IR translations).
#include "nvfp4-c/Dialect.h"
#include "nvfp4/NVFP4Dialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(NVFP4, nvfp4, mlir::nvfp4::NVFP4Dialect)

extern "C" void mlirNvfp4RegisterRequiredDialects(MlirDialectRegistry registry) {
  mlir::DialectRegistry &r = *unwrap(registry);
  r.insert<mlir::nvfp4::NVFP4Dialect>();
  mlir::registerAllDialects(r);
  // ConvertToLLVM interfaces, NVVM/ROCDL target attribute models, inliner extensions, ...
  mlir::registerAllExtensions(r);
}

extern "C" void mlirNvfp4RegisterAllUpstream(MlirContext context) {
  mlir::DialectRegistry registry;
  mlirNvfp4RegisterRequiredDialects(wrap(&registry));
  mlir::registerAllToLLVMIRTranslations(registry);
  unwrap(context)->appendDialectRegistry(registry);
}
