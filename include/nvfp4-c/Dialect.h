/* Dialect.h — C API of the nvfp4 dialect: dialect handle, registration helpers that set up
 * everything the nvfp4 pipeline needs (upstream dialects, extensions, LLVM IR
 * translations), and the C verifier of nvfp4.grouped_matmul.
 */
#ifndef NVFP4_C_DIALECT_H
#define NVFP4_C_DIALECT_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__nvfp4__(): the nvfp4 dialect handle. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(NVFP4, nvfp4);

/* Inserts the nvfp4 dialect and every upstream dialect and extension (ConvertToLLVM
 * interfaces, the NVVM/ROCDL target attribute models, inliner and bufferization
 * extensions, ...) into `registry`. */
MLIR_CAPI_EXPORTED void mlirNvfp4RegisterRequiredDialects(MlirDialectRegistry registry);

/* Sets up `context` for the whole nvfp4 pipeline: appends a registry filled by
 * mlirNvfp4RegisterRequiredDialects and registers every dialect-to-LLVM-IR translation
 * (needed by gpu-module-to-binary and mlirTranslateModuleToLLVMIR). Dialects are loaded
 * lazily, as usual. */
MLIR_CAPI_EXPORTED void mlirNvfp4RegisterAllUpstream(MlirContext context);

/* Returns true when `op` is an nvfp4.grouped_matmul. */
MLIR_CAPI_EXPORTED bool mlirNvfp4IsGroupedMatmul(MlirOperation op);

/* The verifier of nvfp4.grouped_matmul (its ODS verify() forwards here). Emits an error
 * at the op's location and returns failure on the first violated rule. */
MLIR_CAPI_EXPORTED MlirLogicalResult mlirNvfp4GroupedMatmulVerify(MlirOperation op);

/* Returns true when `op` is an nvfp4.moe_matmul (the contiguous MoE form). */
MLIR_CAPI_EXPORTED bool mlirNvfp4IsMoeMatmul(MlirOperation op);
/* The verifier of nvfp4.moe_matmul. */
MLIR_CAPI_EXPORTED MlirLogicalResult mlirNvfp4MoeMatmulVerify(MlirOperation op);

/* The groups of a verified nvfp4.grouped_matmul (G) or nvfp4.moe_matmul (E); 0 for
 * anything else. */
MLIR_CAPI_EXPORTED uint32_t mlirNvfp4MatmulGroupCount(MlirOperation op);

/* The kernel family of an nvfp4.grouped_matmul or nvfp4.moe_matmul: its `variants`
 * attribute, or the default family of its `tile_n`, each with its `stages`, the op's C
 * element type, alpha and form. Writes at most `max` specs and returns
 * their count, or -1 with a message in `msg` when the attribute is malformed (the
 * verifier reports it). Pure attribute parsing: whether each variant can be built is
 * mlirNvfp4KernelFamilyInit's question (nvfp4-c/KernelConfig.h). */
struct MlirNvfp4VariantSpec;
MLIR_CAPI_EXPORTED intptr_t mlirNvfp4GroupedMatmulGetVariantSpecs(
    MlirOperation op, struct MlirNvfp4VariantSpec *out, intptr_t max, char *msg,
    size_t msgSize);

/* The kernel family of an nvfp4.grouped_matmul or nvfp4.moe_matmul, planned once: its
 * variant specs (above) for its group count, through the planner's memo
 * (mlirNvfp4KernelFamilyInitMemoized, nvfp4-c/KernelConfig.h). The verifier asks first
 * (is every variant buildable?); the lowering then gets the same plan without running the
 * planner again, and attaches it to the kernels it builds (`nvfp4.plan`) for the later
 * passes. `family` may be NULL (the verdict only). Returns false with a message in `msg`
 * when the attributes are malformed or a variant cannot be built. */
struct MlirNvfp4KernelFamily;
MLIR_CAPI_EXPORTED bool mlirNvfp4MatmulPlanFamily(MlirOperation op,
                                                  struct MlirNvfp4KernelFamily *family,
                                                  char *msg, size_t msgSize);

/* Limits enforced by the verifier (tile and pipeline limits: nvfp4-c/KernelConfig.h). */
#define NVFP4_OP_NAME "nvfp4.grouped_matmul"
#define NVFP4_MOE_OP_NAME "nvfp4.moe_matmul"
#define NVFP4_MAX_KERNEL_NAME_LEN 47 /* + "_<variant>" fits the 63 of the metadata */

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_DIALECT_H */
