// swiglu-ops.mlir — round trips of the fused SwiGLU + NVFP4 epilogue's spelling on both op
// forms: C of f4E2M1FN (M x I), the sfc and gs operand groups, epilogue = "swiglu_nvfp4";
// custom form -> print -> parse -> print, and the generic form's operand segments.
// RUN: nvfp4-opt %s | FileCheck %s
// RUN: nvfp4-opt %s | nvfp4-opt | FileCheck %s
// RUN: nvfp4-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: nvfp4-opt %s --mlir-print-op-generic | nvfp4-opt | FileCheck %s

// CHECK-LABEL: func.func @grouped_up(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: c(%{{[a-z0-9_]+}} : memref<?x128xf4E2M1FN>)
// CHECK-SAME: alpha(%{{[a-z0-9_]+}} : memref<1xf32>)
// CHECK-SAME: sfc(%{{[a-z0-9_]+}} : memref<?x2x32x4x4xf8E4M3FN>)
// CHECK-SAME: gs(%{{[a-z0-9_]+}} : memref<1xf32>)
// CHECK-SAME: {epilogue = "swiglu_nvfp4", target = "sm_100a"}
// GENERIC: "nvfp4.grouped_matmul"
// GENERIC-SAME: <{epilogue = "swiglu_nvfp4", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>, target = "sm_100a"}>
// CHECK-LABEL: func.func @moe_up(
// CHECK: nvfp4.moe_matmul
// CHECK-SAME: c(%{{[a-z0-9_]+}} : memref<?x128xf4E2M1FN>)
// CHECK-SAME: offsets(%{{[a-z0-9_]+}} : memref<9xi32>)
// CHECK-SAME: alpha(%{{[a-z0-9_]+}} : memref<8xf32>)
// CHECK-SAME: sfc(%{{[a-z0-9_]+}} : memref<?x2x32x4x4xf8E4M3FN>)
// CHECK-SAME: gs(%{{[a-z0-9_]+}} : memref<8xf32>)
// CHECK-SAME: {epilogue = "swiglu_nvfp4", target = "sm_100a"}
// GENERIC: "nvfp4.moe_matmul"
// GENERIC-SAME: <{epilogue = "swiglu_nvfp4", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>, target = "sm_100a"}>

// The pointer-array form with alpha.
func.func @grouped_up(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// The contiguous form with alpha.
func.func @moe_up(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}
