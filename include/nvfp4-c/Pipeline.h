/* Pipeline.h — C API of the whole compilation: a module holding one nvfp4.grouped_matmul
 * -> the lowered kernel -> PTX (LLVM NVPTX through gpu-module-to-binary) -> cubin (ptxas).
 * Used by nvfp4-compile and by programs that compile kernels ahead of time. Needs no GPU.
 */
#ifndef NVFP4_C_PIPELINE_H
#define NVFP4_C_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MlirNvfp4CompileOptions {
  const char *toolkitPath; /* CUDA toolkit root holding bin/ptxas; NULL: build-time default */
  bool emulate;            /* build the sm_90a tcgen05-emulation kernel */
  bool emitCubin;          /* run ptxas (otherwise stop at PTX) */
  bool ptxasVerbose;       /* pass -v to ptxas; its report goes to the log */
  bool stopAfterLowering;  /* only lower (and emulate): leave the kernel IR in the module */
  bool proxy;              /* build the sm_90a timing proxy (exclusive with emulate) */
} MlirNvfp4CompileOptions;

typedef struct MlirNvfp4CompileResult {
  char *ptx;          /* NUL-terminated PTX */
  size_t ptxSize;
  void *cubin;        /* the cubin image (when emitCubin) */
  size_t cubinSize;
  char *log;          /* NUL-terminated: what went wrong, and ptxas' output */
  double lowerMs, llvmMs, ptxasMs; /* time per phase */
} MlirNvfp4CompileResult;

/* Default options: toolkit from the build, sm_100a, cubin, quiet. */
MLIR_CAPI_EXPORTED MlirNvfp4CompileOptions mlirNvfp4CompileOptionsGetDefault(void);

/* Runs the lowering (and the emulation or proxy rewrite) on `module` in place, then serialises the
 * single kernel it produces. The module's context must have been set up with
 * mlirNvfp4RegisterAllUpstream and mlirNvfp4RegisterPasses. On failure the result's log
 * says why (diagnostics also go through the context's handlers). */
MLIR_CAPI_EXPORTED MlirLogicalResult mlirNvfp4CompileModule(MlirOperation module,
                                                            const MlirNvfp4CompileOptions *options,
                                                            MlirNvfp4CompileResult *result);

/* Frees what mlirNvfp4CompileModule allocated in `result`. */
MLIR_CAPI_EXPORTED void mlirNvfp4CompileResultDestroy(MlirNvfp4CompileResult *result);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_PIPELINE_H */
