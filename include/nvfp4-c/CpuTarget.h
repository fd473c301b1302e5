/* CpuTarget.h — C API of the CPU execution target's compilation: a module holding one
 * nvfp4.grouped_matmul (or its already-lowered gpu.module) -> the lowered kernel family
 * -> --nvfp4-cpu-target (every NVVM op a call into the CTA simulator) -> LLVM IR for the
 * host -> clang -O2 -shared -> a shared object.
 *
 * The object exports the kernel family's metadata table (NVFP4_METADATA_SYMBOL, the same
 * records as the cubin's), one `void <kernel>(void *params)` per variant and each
 * variant's plan text (<kernel>__nvfp4_cpu_plan); it leaves the simulator's entry points
 * (cpusim/include/nvfp4_sim.h) undefined: `nvfp4-run --cpu`, linked with libnvfp4sim,
 * loads it with dlopen. Neither the object nor its loader links MLIR or LLVM. No GPU and
 * no CUDA driver are needed.
 */
#ifndef NVFP4_C_CPUTARGET_H
#define NVFP4_C_CPUTARGET_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MlirNvfp4CpuCompileOptions {
  const char *clangPath;   /* host compiler for LLVM IR; NULL: $NVFP4_CLANG, else the build's */
  const char *optLevel;    /* "-O2" when NULL */
  const char *llvmIrPath;  /* when set, the host LLVM IR is also written there */
} MlirNvfp4CpuCompileOptions;

/* Lowers `module` in place (lowering + CPU rewrite), then writes the shared object to
 * `outputPath`. On failure *log (malloc'ed, may be NULL) says why. */
MLIR_CAPI_EXPORTED MlirLogicalResult mlirNvfp4CompileModuleToCpuObject(
    MlirOperation module, const char *outputPath, const MlirNvfp4CpuCompileOptions *options,
    char **log, double *lowerMs, double *compileMs);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_CPUTARGET_H */
