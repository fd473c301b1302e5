// nvfp4-opt.cpp — the project's mlir-opt: MlirOptMain with every upstream dialect,
// extension, pass and LLVM IR translation registered (gpu-module-to-binary needs the
// latter), plus the nvfp4 dialect and the nvfp4 passes/pipelines.
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Passes.h"
#include "nvfp4-c/Version.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  // --version: the project's version next to LLVM's.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "nvfp4-mlir " << NVFP4_VERSION_STRING << " (kernel ABI " << NVFP4_ABI_VERSION
       << ")\n";
  });
  mlir::registerAllPasses();
  mlirNvfp4RegisterPasses();

  mlir::DialectRegistry registry;
  mlirNvfp4RegisterRequiredDialects(wrap(&registry));
  mlir::registerAllToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "nvfp4 optimizer driver\n", registry));
}
