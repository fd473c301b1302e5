// print-ir-after-all.mlir — nvfp4-opt runs upstream passes on nvfp4 IR and honours the
// usual MlirOptMain flags (--mlir-print-ir-after-all, --split-input-file).
// RUN: nvfp4-opt %s --split-input-file --canonicalize --cse --mlir-print-ir-after-all \
// RUN:   -o /dev/null 2>&1 | FileCheck %s

// CHECK: IR Dump After Canonicalizer (canonicalize)
// CHECK: nvfp4.grouped_matmul
// CHECK: IR Dump After CSE (cse)
// CHECK: nvfp4.grouped_matmul
func.func @survives(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
    %sa: memref<?x4x32x4x4xf8E4M3FN>, %sb: memref<1x4x32x4x4xf8E4M3FN>,
    %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a"}
  return
}

// -----

// CHECK: IR Dump After Canonicalizer (canonicalize)
// CHECK: func.func @second_chunk
func.func @second_chunk() {
  return
}
