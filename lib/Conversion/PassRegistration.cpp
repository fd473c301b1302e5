// PassRegistration.cpp — thin C++ shim: registers the C passes (lib/Conversion/*.c) by name
// with MLIR's pass registry, and the named pipelines built from them. No logic lives here.
#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "nvfp4-c/Passes.h"

#include <string>

#ifndef NVFP4_CUDA_ROOT
#define NVFP4_CUDA_ROOT "/usr/local/cuda"
#endif

static std::unique_ptr<mlir::Pass> adopt(MlirPass pass) {
  return std::unique_ptr<mlir::Pass>(unwrap(pass));
}

static void addPipeline(mlir::OpPassManager &pm, const std::string &text) {
  if (mlir::failed(mlir::parsePassPipeline(text, pm, llvm::errs())))
    llvm::errs() << "nvfp4: invalid built-in pipeline: " << text << "\n";
}

extern "C" void mlirNvfp4RegisterPasses(void) {
  static bool registered = false;
  if (registered) return;
  registered = true;
  mlir::registerPass([] { return adopt(mlirNvfp4CreateLowerGroupedMatmulPass()); });
  mlir::registerPass([] { return adopt(mlirNvfp4CreateEmulateTcgen05Pass()); });
  mlir::registerPass([] { return adopt(mlirNvfp4CreateEmulateSm120Pass()); });
  mlir::registerPass([] { return adopt(mlirNvfp4CreateHostLaunchPass()); });
  mlir::registerPass([] { return adopt(mlirNvfp4CreateEmbedCubinPass()); });
  mlir::registerPass([] { return adopt(mlirNvfp4CreateCpuTargetPass()); });
  mlir::registerPass([] { return adopt(mlirNvfp4CreateProxyTcgen05Pass()); });

  const std::string toolkit = std::string("toolkit=") + NVFP4_CUDA_ROOT;
  mlir::PassPipelineRegistration<>(
      "nvfp4-to-cubin",
      "nvfp4.grouped_matmul -> sm_100a kernel -> cubin embedded in a gpu.binary "
      "(LLVM NVPTX + ptxas)",
      [toolkit](mlir::OpPassManager &pm) {
        addPipeline(pm, "nvfp4-lower-grouped-matmul,"
                        "gpu-module-to-binary{format=bin " + toolkit + "}");
      });
  mlir::PassPipelineRegistration<>(
      "nvfp4-to-ptx", "nvfp4.grouped_matmul -> sm_100a kernel -> PTX embedded in a gpu.binary",
      [toolkit](mlir::OpPassManager &pm) {
        addPipeline(pm, "nvfp4-lower-grouped-matmul,"
                        "gpu-module-to-binary{format=isa " + toolkit + "}");
      });
  mlir::PassPipelineRegistration<>(
      "nvfp4-emulation-to-cubin",
      "nvfp4.grouped_matmul -> sm_100a kernel -> tcgen05 emulation on sm_90a -> cubin (an "
      "sm_120a kernel: its mma.sync emulated)",
      [toolkit](mlir::OpPassManager &pm) {
        addPipeline(pm, "nvfp4-lower-grouped-matmul,nvfp4-emulate-tcgen05,nvfp4-emulate-sm120,"
                        "gpu-module-to-binary{format=bin " + toolkit + "}");
      });
  // Host lowering: the function holding the op becomes LLVM host code that loads its
  // embedded cubin through libnvfp4rt's generated-code ABI (docs/passes.md).
  const std::string toLlvm = "convert-scf-to-cf,convert-cf-to-llvm,convert-arith-to-llvm,"
                             "convert-index-to-llvm,finalize-memref-to-llvm,"
                             "convert-func-to-llvm,reconcile-unrealized-casts";
  mlir::PassPipelineRegistration<>(
      "nvfp4-to-host",
      "nvfp4.grouped_matmul in a func.func -> host LLVM code calling libnvfp4rt, with the "
      "sm_100a cubin embedded",
      [toolkit, toLlvm](mlir::OpPassManager &pm) {
        addPipeline(pm, "nvfp4-host-launch,nvfp4-lower-grouped-matmul,"
                        "gpu-module-to-binary{format=bin " + toolkit + "},nvfp4-embed-cubin," +
                        toLlvm);
      });
  mlir::PassPipelineRegistration<>(
      "nvfp4-emulation-to-host",
      "nvfp4.grouped_matmul in a func.func -> host LLVM code calling libnvfp4rt, with the "
      "tcgen05-emulation sm_90a cubin embedded",
      [toolkit, toLlvm](mlir::OpPassManager &pm) {
        addPipeline(pm, "nvfp4-host-launch,nvfp4-lower-grouped-matmul,nvfp4-emulate-tcgen05,"
                        "nvfp4-emulate-sm120,"
                        "gpu-module-to-binary{format=bin " + toolkit + "},nvfp4-embed-cubin," +
                        toLlvm);
      });
  mlir::PassPipelineRegistration<>(
      "nvfp4-to-cpu",
      "nvfp4.grouped_matmul -> sm_100a kernel -> host code calling the CTA simulator "
      "(nvfp4-compile --cpu compiles it to a shared object)",
      [](mlir::OpPassManager &pm) {
        addPipeline(pm, "nvfp4-lower-grouped-matmul,nvfp4-cpu-target");
      });
  mlir::PassPipelineRegistration<>(
      "nvfp4-proxy-to-cubin",
      "nvfp4.grouped_matmul -> sm_100a kernel -> timing proxy on sm_90a (tcgen05 free) -> cubin",
      [toolkit](mlir::OpPassManager &pm) {
        addPipeline(pm, "nvfp4-lower-grouped-matmul,nvfp4-proxy-tcgen05,"
                        "gpu-module-to-binary{format=bin " + toolkit + "}");
      });
}
