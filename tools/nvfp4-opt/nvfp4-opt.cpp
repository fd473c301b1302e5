// nvfp4-opt.cpp — the project's mlir-opt: MlirOptMain with every upstream dialect,
// extension, pass and LLVM IR translation registered (gpu-module-to-binary needs the
// latter), plus the nvfp4 dialect and the nvfp4 passes/pipelines.
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlirNvfp4RegisterPasses();

  mlir::DialectRegistry registry;
  mlirNvfp4RegisterRequiredDialects(wrap(&registry));
  mlir::registerAllToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "nvfp4 optimizer driver\n", registry));
}
