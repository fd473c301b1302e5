/* LoweringCommon.h — small helpers shared by the C passes: diagnostics, symbol lookup and
 * the boilerplate of external passes (callbacks, stable TypeIDs). */
#ifndef NVFP4_CONVERSION_LOWERINGCOMMON_H
#define NVFP4_CONVERSION_LOWERINGCOMMON_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

void nvfp4EmitError(MlirLocation loc, const char *msg);
/* The op with `sym_name` == name directly inside the first block of `container`, or null. */
MlirOperation nvfp4FindSymbol(MlirOperation container, const char *name);
bool nvfp4OpIs(MlirOperation op, const char *name);
/* Creates an external module pass with no state. */
MlirPass nvfp4CreateModulePass(MlirTypeID *id, const char *name, const char *argument,
                               const char *description, intptr_t nDeps,
                               MlirDialectHandle *deps,
                               void (*run)(MlirOperation, MlirExternalPass, void *));

#endif /* NVFP4_CONVERSION_LOWERINGCOMMON_H */
