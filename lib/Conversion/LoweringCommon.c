/* LoweringCommon.c — helpers shared by the C passes (see LoweringCommon.h). */
#include "LoweringCommon.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Support.h"

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

void nvfp4EmitError(MlirLocation loc, const char *msg) { mlirEmitError(loc, msg); }

bool nvfp4OpIs(MlirOperation op, const char *name) {
  return mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), str(name));
}

MlirOperation nvfp4FindSymbol(MlirOperation container, const char *name) {
  MlirBlock blk = mlirRegionGetFirstBlock(mlirOperationGetRegion(container, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(blk); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, str("sym_name"));
    if (!mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym) &&
        mlirStringRefEqual(mlirStringAttrGetValue(sym), str(name)))
      return op;
  }
  return (MlirOperation){NULL};
}

static void noop(void *userData) { (void)userData; }
static void *cloneState(void *userData) { return userData; }

MlirPass nvfp4CreateModulePass(MlirTypeID *id, const char *name, const char *argument,
                               const char *description, intptr_t nDeps,
                               MlirDialectHandle *deps,
                               void (*run)(MlirOperation, MlirExternalPass, void *)) {
  /* The address of the pass's own static `id` (8-byte aligned, unique per pass, alive as
   * long as the code) is its TypeID: stable, and nothing is allocated that a plugin's
   * unloading could leak. */
  if (mlirTypeIDIsNull(*id)) *id = mlirTypeIDCreate(id);
  MlirExternalPassCallbacks cb = {noop, noop, NULL, cloneState, run};
  return mlirCreateExternalPass(*id, str(name), str(argument), str(description),
                                str("builtin.module"), nDeps, deps, cb, NULL);
}
