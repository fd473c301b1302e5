// GpuModuleToBinary.cpp — thin C++ shim behind GpuModuleToBinary.h: builds MLIR's
// gpu-module-to-binary pass from its options struct. No logic lives here.
#include "GpuModuleToBinary.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"

extern "C" MlirPass nvfp4CreateGpuModuleToBinaryPass(const char *toolkitPath,
                                                     const char *format) {
  mlir::GpuModuleToBinaryPassOptions options;
  options.toolkitPath = toolkitPath ? toolkitPath : "";
  options.compilationTarget = format;
  return wrap(mlir::createGpuModuleToBinaryPass(options).release());
}
