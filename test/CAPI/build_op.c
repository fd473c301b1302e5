/* build_op.c — C API test: builds nvfp4.grouped_matmul (2 groups) through the generic C API
 * (mlirOperationStateGet, operandSegmentSizes via mlirDenseI32ArrayGet), verifies it,
 * checks that broken variants fail verification with the C verifier's diagnostics, and
 * prints the module.
 */
// RUN: nvfp4-capi-build-op 2>&1 | FileCheck %s

#include "nvfp4-c/Dialect.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>

#include "print_diagnostic.h"

static MlirNamedAttribute named(MlirContext ctx, const char *name, MlirAttribute attr) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString(name)),
                               attr);
}

/* Creates (unattached) an nvfp4.grouped_matmul over `n` values with the given segments. */
static MlirOperation make_op(MlirContext ctx, MlirLocation loc, intptr_t n,
                             const MlirValue *vals, const int32_t seg[8]) {
  MlirOperationState st =
      mlirOperationStateGet(mlirStringRefCreateFromCString("nvfp4.grouped_matmul"), loc);
  mlirOperationStateAddOperands(&st, n, vals);
  MlirNamedAttribute attrs[3] = {
      named(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 8, seg)),
      named(ctx, "target", mlirStringAttrGet(ctx, mlirStringRefCreateFromCString("sm_100a"))),
      named(ctx, "tile_n", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 128)),
  };
  mlirOperationStateAddAttributes(&st, 3, attrs);
  return mlirOperationCreate(&st);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirNvfp4RegisterRequiredDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__nvfp4__(), ctx);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);

  /* A function whose arguments are the per-group memrefs (test case 1 shapes). */
  const char *src =
      "func.func @grouped(%a0: memref<?x256xf4E2M1FN>, %a1: memref<?x512xf4E2M1FN>,\n"
      "    %b0: memref<128x256xf4E2M1FN>, %b1: memref<256x512xf4E2M1FN>,\n"
      "    %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfa1: memref<?x8x32x4x4xf8E4M3FN>,\n"
      "    %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %sfb1: memref<2x8x32x4x4xf8E4M3FN>,\n"
      "    %c0: memref<?x128xf16>, %c1: memref<?x256xf16>) {\n"
      "  return\n"
      "}\n";
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(src));
  if (mlirModuleIsNull(module)) {
    puts("FAIL: could not parse the input module");
    return 1;
  }
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirValue args[10];
  for (intptr_t i = 0; i < 10; ++i)
    args[i] = mlirBlockGetArgument(entry, i);
  MlirLocation loc = mlirLocationUnknownGet(ctx);

  /* A valid op: 2 groups, operands a0 a1 b0 b1 sfa0 sfa1 sfb0 sfb1 c0 c1. */
  const int32_t seg_ok[8] = {2, 2, 2, 2, 2, 0, 0, 0};
  MlirOperation op = make_op(ctx, loc, 10, args, seg_ok);
  mlirBlockInsertOwnedOperationBefore(entry, mlirBlockGetTerminator(entry), op);
  // CHECK: is grouped_matmul: 1
  printf("is grouped_matmul: %d\n", mlirNvfp4IsGroupedMatmul(op));
  // CHECK: verify valid op: 1
  printf("verify valid op: %d\n", mlirOperationVerify(op));
  // CHECK: verify module: 1
  printf("verify module: %d\n", mlirOperationVerify(mlirModuleGetOperation(module)));
  fflush(stdout);

  /* Broken 1: c has only one group. */
  const int32_t seg_short[8] = {2, 2, 2, 2, 1, 0, 0, 0};
  MlirOperation bad1 = make_op(ctx, loc, 9, args, seg_short);
  // CHECK: diagnostic: 'nvfp4.grouped_matmul' op operand count mismatch: 'a' has 2 groups but 'c' has 1
  // CHECK-NEXT: verify broken op (count): 0
  printf("verify broken op (count): %d\n", mlirOperationVerify(bad1));
  mlirOperationDestroy(bad1);

  /* Broken 2: a and b swapped in group 1 (K of group 1 disagrees). */
  MlirValue swapped[10];
  for (int i = 0; i < 10; ++i)
    swapped[i] = args[i];
  swapped[1] = args[0];
  // CHECK: diagnostic: 'nvfp4.grouped_matmul' op group 1: K of 'a' (256) does not match K of 'b' (512)
  // CHECK-NEXT: verify broken op (shape): 0
  MlirOperation bad2 = make_op(ctx, loc, 10, swapped, seg_ok);
  printf("verify broken op (shape): %d\n", mlirOperationVerify(bad2));
  mlirOperationDestroy(bad2);

  /* Broken 3: a scale factor where A belongs. */
  swapped[1] = args[5];
  // CHECK: diagnostic: 'nvfp4.grouped_matmul' op group 1: operand 'a' must have element type f4E2M1FN, got f8E4M3FN
  // CHECK-NEXT: verify broken op (type): 0
  MlirOperation bad3 = make_op(ctx, loc, 10, swapped, seg_ok);
  printf("verify broken op (type): %d\n", mlirOperationVerify(bad3));
  mlirOperationDestroy(bad3);

  // CHECK-LABEL: func.func @grouped(
  // CHECK: nvfp4.grouped_matmul
  // CHECK-SAME: a(%arg0, %arg1 : memref<?x256xf4E2M1FN>, memref<?x512xf4E2M1FN>)
  // CHECK-SAME: b(%arg2, %arg3 : memref<128x256xf4E2M1FN>, memref<256x512xf4E2M1FN>)
  // CHECK-SAME: sfa(%arg4, %arg5 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x8x32x4x4xf8E4M3FN>)
  // CHECK-SAME: sfb(%arg6, %arg7 : memref<1x4x32x4x4xf8E4M3FN>, memref<2x8x32x4x4xf8E4M3FN>)
  // CHECK-SAME: c(%arg8, %arg9 : memref<?x128xf16>, memref<?x256xf16>)
  // CHECK-SAME: {target = "sm_100a", tile_n = 128 : i64}
  // CHECK-NEXT: return
  mlirOperationPrint(mlirModuleGetOperation(module), printText, NULL);
  fputc('\n', stdout);

  /* The pipeline set-up helper must also work on a fresh context. */
  MlirContext ctx2 = mlirContextCreate();
  mlirNvfp4RegisterAllUpstream(ctx2);
  MlirDialect nvvm = mlirContextGetOrLoadDialect(ctx2, mlirStringRefCreateFromCString("nvvm"));
  MlirDialect nvfp4 =
      mlirContextGetOrLoadDialect(ctx2, mlirStringRefCreateFromCString("nvfp4"));
  // CHECK: upstream context: nvvm 1 nvfp4 1
  printf("upstream context: nvvm %d nvfp4 %d\n", !mlirDialectIsNull(nvvm),
         !mlirDialectIsNull(nvfp4));
  mlirContextDestroy(ctx2);

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  // CHECK: done
  puts("done");
  return 0;
}
