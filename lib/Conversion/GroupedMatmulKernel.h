/* GroupedMatmulKernel.h — builds the body of the sm_100a grouped-matmul kernel into an
 * llvm.func whose single argument is the by-value parameter block (KernelABI.h). */
#ifndef NVFP4_CONVERSION_GROUPEDMATMULKERNEL_H
#define NVFP4_CONVERSION_GROUPEDMATMULKERNEL_H

#include "KernelBuilder.h"
#include "nvfp4-c/KernelConfig.h"

/* `params` is the kernel's !llvm.ptr argument; `dynSmemGlobal` names the external
 * addrspace(3) array standing for dynamic shared memory. */
void nvfp4BuildGroupedMatmulKernel(KbBuilder *b, const MlirNvfp4KernelConfig *cfg,
                                   KbValue params, const char *dynSmemGlobal);

#endif /* NVFP4_CONVERSION_GROUPEDMATMULKERNEL_H */
