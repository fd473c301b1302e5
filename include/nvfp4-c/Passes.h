/* Passes.h — C API of the nvfp4 passes and pipelines.
 *
 * The passes are written in C (lib/Conversion/) with mlirCreateExternalPass; a thin C++
 * shim registers them by name so they can be used in textual pipelines, nvfp4-opt and the
 * mlir-opt plugin.
 */
#ifndef NVFP4_C_PASSES_H
#define NVFP4_C_PASSES_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --nvfp4-lower-grouped-matmul: nvfp4.grouped_matmul -> gpu.module with the sm_100a
 * tcgen05/TMA kernel in the llvm + nvvm dialects. */
MLIR_CAPI_EXPORTED MlirPass mlirNvfp4CreateLowerGroupedMatmulPass(void);

/* --nvfp4-emulate-tcgen05: rewrite nvvm.tcgen05.* into calls to the emulation library and
 * retarget the kernel to sm_90a. */
MLIR_CAPI_EXPORTED MlirPass mlirNvfp4CreateEmulateTcgen05Pass(void);

/* --nvfp4-emulate-sm120: rewrite the block-scaled mma.sync of sm_120a kernels into calls to
 * the emulation library and retarget the kernel to sm_90a (the rest runs natively). */
MLIR_CAPI_EXPORTED MlirPass mlirNvfp4CreateEmulateSm120Pass(void);

/* --nvfp4-host-launch: the host side of nvfp4.grouped_matmul as calls into libnvfp4rt's
 * generated-code ABI (lazy module load, cached plan, launch, i32 status result); runs
 * before --nvfp4-lower-grouped-matmul. */
MLIR_CAPI_EXPORTED MlirPass mlirNvfp4CreateHostLaunchPass(void);

/* --nvfp4-embed-cubin: the cubins of gpu-module-to-binary{format=bin} copied into the
 * globals the host code loads them from. */
MLIR_CAPI_EXPORTED MlirPass mlirNvfp4CreateEmbedCubinPass(void);

/* --nvfp4-cpu-target: rewrite the kernels of nvfp4 gpu.modules into host code that calls
 * the CTA simulator (cpusim/include/nvfp4_sim.h), for the CPU execution target. */
MLIR_CAPI_EXPORTED MlirPass mlirNvfp4CreateCpuTargetPass(void);

/* --nvfp4-proxy-tcgen05: make every nvvm.tcgen05.* op free while keeping its protocol
 * (commit arrives at once, ld returns zeros) and retarget the kernel to sm_90a: a timing
 * proxy of the sm_100a kernel that runs natively on Hopper. */
MLIR_CAPI_EXPORTED MlirPass mlirNvfp4CreateProxyTcgen05Pass(void);

/* Registers every nvfp4 pass and the named pipelines (nvfp4-to-cubin, nvfp4-to-ptx,
 * nvfp4-emulation-to-cubin, nvfp4-proxy-to-cubin, ...) with MLIR's global pass registry.
 * Idempotent. */
MLIR_CAPI_EXPORTED void mlirNvfp4RegisterPasses(void);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_PASSES_H */
