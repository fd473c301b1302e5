/* Codegen.h — a lowered gpu.module's kernels to one PTX text, the kernels in parallel
 * (Codegen.c). Each kernel (llvm.func with nvvm.kernel) is translated, with the module's
 * other symbols, into its own LLVM module and context; up to `jobs` threads run LLVM's
 * optimisation pipeline and the NVPTX back end on them; the kernels' PTX is joined in the
 * module's order. The result is the PTX that gpu-module-to-binary{format=isa} gives for the
 * whole module (same pipeline, same target machine), whatever `jobs` is. */
#ifndef NVFP4_TARGET_CODEGEN_H
#define NVFP4_TARGET_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "mlir-c/IR.h"

typedef struct Nvfp4Codegen {
  char *ptx;           /* NUL-terminated, malloc'd */
  size_t ptxSize;
  unsigned kernels;    /* entry functions in the PTX */
  double cpuMs;        /* CPU time of translation, optimisation and code generation, all
                          threads together */
} Nvfp4Codegen;

typedef enum Nvfp4CodegenStatus {
  NVFP4_CODEGEN_OK,
  NVFP4_CODEGEN_FAILED,      /* an error, in the log */
  NVFP4_CODEGEN_UNSUPPORTED, /* a module this route does not take (bitcode to link, target
                                options beyond chip/features/O, kernels whose PTX does not
                                join): serialise it whole instead */
} Nvfp4CodegenStatus;

/* `gpuModule` is left as it was. */
Nvfp4CodegenStatus nvfp4CodegenPtx(MlirOperation gpuModule, int jobs, Nvfp4Codegen *out,
                                   char **log);

/* The number of CPUs this thread may run on (at least 1): the default for `jobs`. */
int nvfp4AvailableCpus(void);

#endif /* NVFP4_TARGET_CODEGEN_H */
