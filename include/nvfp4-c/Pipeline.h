/* Pipeline.h — C API of the whole compilation: a module holding one nvfp4.grouped_matmul
 * -> the lowered kernel -> PTX (LLVM NVPTX through gpu-module-to-binary) -> cubin (ptxas).
 * Used by nvfp4-compile and by programs that compile kernels ahead of time. Needs no GPU.
 *
 * ABI growth: both structs start with `structSize`, set to sizeof(the struct) by the
 * caller (mlirNvfp4CompileOptionsGetDefault and mlirNvfp4CompileResultInit, inline below,
 * do it in the caller's own build) or left 0, which means the 2.0 layout; the library reads
 * and writes only that many bytes, so fields can be appended later without breaking
 * compiled callers. Fields marked 2.1 were appended after the 2.0 layout: a caller built
 * against 2.0 gets their defaults (jobs 0, no cache) and never sees the 2.1 results.
 *
 * Parallel compilation: the kernels of a family (one per variant) are translated to LLVM
 * IR one after another, then optimised and turned into PTX by up to `jobs` threads, each
 * kernel in an LLVM context of its own; ptxas assembles the family in one process using up
 * to `jobs` CPUs. The PTX and the cubin are the same for every `jobs`.
 *
 * Compile cache (opt-in, for programs that compile at run time): with `cacheDir` set, a
 * compilation whose inputs were seen before returns the stored PTX, cubin and ptxas log
 * without lowering, LLVM or ptxas, and leaves the module as it was (not lowered). Entries
 * are keyed by the module's generic text (locations excluded), the compiler build, the
 * LLVM version, the ptxas binary, the emulation library and the options that change the
 * output; they are written to a temporary file and renamed into place, so several
 * processes can share one directory, and an unusable entry is deleted and compiled anew.
 * Nothing ever removes old entries: delete the directory's `*.nvfp4c` files to clear it.
 */
#ifndef NVFP4_C_PIPELINE_H
#define NVFP4_C_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MlirNvfp4CompileOptions {
  size_t structSize;       /* sizeof(MlirNvfp4CompileOptions) */
  const char *toolkitPath; /* CUDA toolkit root holding bin/ptxas; NULL: build-time default */
  bool emulate;            /* build the sm_90a tcgen05-emulation kernel */
  bool emitCubin;          /* run ptxas (otherwise stop at PTX) */
  bool ptxasVerbose;       /* pass -v to ptxas; its report goes to the log */
  bool stopAfterLowering;  /* only lower (and emulate): leave the kernel IR in the module */
  bool proxy;              /* build the sm_90a timing proxy (exclusive with emulate) */
  /* 2.1 */
  int jobs;                /* threads for LLVM and CPUs for ptxas; 0 (or less): as many as
                              this thread may run on */
  const char *cacheDir;    /* compile cache directory (created when needed); NULL: none */
} MlirNvfp4CompileOptions;

typedef struct MlirNvfp4CompileResult {
  size_t structSize;  /* sizeof(MlirNvfp4CompileResult), set before the call */
  char *ptx;          /* NUL-terminated PTX */
  size_t ptxSize;
  void *cubin;        /* the cubin image (when emitCubin) */
  size_t cubinSize;
  char *log;          /* NUL-terminated: what went wrong, and ptxas' output */
  double lowerMs, llvmMs, ptxasMs; /* time per phase */
  /* 2.1 */
  double lowerCpuMs, llvmCpuMs, ptxasCpuMs; /* CPU time per phase: the lowering, LLVM on
                                               every thread, the ptxas process */
  unsigned kernels;   /* kernels (variants) in the PTX */
  bool cacheHit;      /* PTX, cubin and log came from the compile cache */
} MlirNvfp4CompileResult;

/* Default options: toolkit from the build, sm_100a, cubin, quiet. */
static inline MlirNvfp4CompileOptions mlirNvfp4CompileOptionsGetDefault(void) {
  MlirNvfp4CompileOptions o;
  memset(&o, 0, sizeof o);
  o.structSize = sizeof o;
  o.emitCubin = true;
  return o;
}

/* An empty result to pass to mlirNvfp4CompileModule. */
static inline void mlirNvfp4CompileResultInit(MlirNvfp4CompileResult *result) {
  memset(result, 0, sizeof *result);
  result->structSize = sizeof *result;
}

/* Runs the lowering (and the emulation or proxy rewrite, for an sm_100a op only) on `module`
 * in place, then serialises the single kernel it produces. The module's context needs the dialects and LLVM IR
 * translations of mlirNvfp4RegisterAllUpstream; no pass registration is needed (every
 * pass is created directly). `result` must have been initialised (structSize sizeof or 0):
 * for a structSize below the 2.0 layout, of the result or of the options, it fails without
 * touching anything else. On failure the result's log says why (diagnostics also
 * go through the context's handlers). */
MLIR_CAPI_EXPORTED MlirLogicalResult mlirNvfp4CompileModule(MlirOperation module,
                                                            const MlirNvfp4CompileOptions *options,
                                                            MlirNvfp4CompileResult *result);

/* Whether the emulation build (`proxy` false) or the timing-proxy build (`proxy` true) has
 * something to rewrite in a kernel of `target`: the emulation rewrites the tcgen05 ops of
 * the sm_100a, sm_100f and sm_103a kernels and the block-scaled mma.sync of the sm_120a,
 * sm_121a and sm_120f kernels; the proxy only the tcgen05 ops. False for sm_90a (a native
 * kernel) and for unknown targets. */
MLIR_CAPI_EXPORTED bool mlirNvfp4TargetIsRewritable(const char *target, bool proxy);

/* The first nvfp4 op in `module` whose (known) `target` that build cannot rewrite, or a
 * null operation. mlirNvfp4CompileModule refuses `emulate` or `proxy` on such an op (a
 * diagnostic at the op, and the log) rather than hand back its kernel unchanged. */
MLIR_CAPI_EXPORTED MlirOperation mlirNvfp4FindUnrewritableOp(MlirOperation module, bool proxy);

/* Frees what mlirNvfp4CompileModule allocated in `result`. */
MLIR_CAPI_EXPORTED void mlirNvfp4CompileResultDestroy(MlirNvfp4CompileResult *result);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_PIPELINE_H */
