// Plugin.cpp — entry points of NVFP4Plugin.so, loadable into any mlir-opt built against
// the same libMLIR.so: `--load-dialect-plugin` registers the nvfp4 dialect,
// `--load-pass-plugin` registers the nvfp4 passes and pipelines (mlirNvfp4RegisterPasses).
// Upstream dialects are not registered here: the host tool already has them.
#include "nvfp4-c/Passes.h"
#include "nvfp4/NVFP4Dialect.h"

#include "llvm/Config/llvm-config.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NVFP4", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<mlir::nvfp4::NVFP4Dialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NVFP4Passes", LLVM_VERSION_STRING,
          []() { mlirNvfp4RegisterPasses(); }};
}
