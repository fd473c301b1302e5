/* GpuModuleToBinary.h — MLIR's gpu-module-to-binary pass with its options set directly
 * (GpuModuleToBinary.cpp). The C API offers the pass only with default options, or by name
 * through a textual pipeline, which needs the pass registered globally and cannot carry
 * every path (a toolkit path with '}' breaks the pipeline syntax). */
#ifndef NVFP4_TARGET_GPUMODULETOBINARY_H
#define NVFP4_TARGET_GPUMODULETOBINARY_H

#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* format: "isa" (PTX), "bin" (cubin) or "fatbin"; toolkitPath may be NULL (MLIR's
 * default lookup). */
MlirPass nvfp4CreateGpuModuleToBinaryPass(const char *toolkitPath, const char *format);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_TARGET_GPUMODULETOBINARY_H */
