// moe-ops.mlir — round trips of nvfp4.moe_matmul (the contiguous MoE form) and of the
// epilogue options of nvfp4.grouped_matmul (alpha, bf16 and f32 C): custom form -> print ->
// parse -> print, and the generic form -> parse -> custom print.
// RUN: nvfp4-opt %s | FileCheck %s
// RUN: nvfp4-opt %s | nvfp4-opt | FileCheck %s
// RUN: nvfp4-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: nvfp4-opt %s --mlir-print-op-generic | nvfp4-opt | FileCheck %s

// DeepSeek-V3's up-projection: 256 experts, N = 4096, K = 7168, bf16 C, alpha.
// CHECK-LABEL: func.func @deepseek_up(
// CHECK: nvfp4.moe_matmul
// CHECK-SAME: a(%{{[a-z0-9_]+}} : memref<?x7168xf4E2M1FN>)
// CHECK-SAME: b(%{{[a-z0-9_]+}} : memref<256x4096x7168xf4E2M1FN>)
// CHECK-SAME: sfa(%{{[a-z0-9_]+}} : memref<?x112x32x4x4xf8E4M3FN>)
// CHECK-SAME: sfb(%{{[a-z0-9_]+}} : memref<256x32x112x32x4x4xf8E4M3FN>)
// CHECK-SAME: c(%{{[a-z0-9_]+}} : memref<?x4096xbf16>)
// CHECK-SAME: offsets(%{{[a-z0-9_]+}} : memref<257xi32>)
// CHECK-SAME: alpha(%{{[a-z0-9_]+}} : memref<256xf32>)
// CHECK-SAME: {kernel_name = "up", target = "sm_100a"}
// CHECK-NEXT: return
// GENERIC: "nvfp4.moe_matmul"
// GENERIC-SAME: <{kernel_name = "up", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>, target = "sm_100a"}>
// GENERIC-SAME: (memref<?x7168xf4E2M1FN>, memref<256x4096x7168xf4E2M1FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<256x32x112x32x4x4xf8E4M3FN>, memref<?x4096xbf16>, memref<257xi32>, memref<256xf32>) -> ()
func.func @deepseek_up(%a: memref<?x7168xf4E2M1FN>, %b: memref<256x4096x7168xf4E2M1FN>,
    %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<256x32x112x32x4x4xf8E4M3FN>,
    %c: memref<?x4096xbf16>, %off: memref<257xi32>, %alpha: memref<256xf32>) {
  nvfp4.moe_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<256x4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<256x32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xbf16>) offsets(%off : memref<257xi32>) alpha(%alpha : memref<256xf32>)
      {target = "sm_100a", kernel_name = "up"}
  return
}

// Without alpha, every size dynamic but E, f32 C with a row stride, a chosen family.
// CHECK-LABEL: func.func @dynamic_no_alpha(
// CHECK: nvfp4.moe_matmul
// CHECK-SAME: c(%{{[a-z0-9_]+}} : memref<?x?xf32, strided<[?, 1]>>)
// CHECK-SAME: offsets(%{{[a-z0-9_]+}} : memref<9xi32>)
// CHECK-NOT: alpha(
// CHECK-SAME: {target = "sm_100a", variants = ["swap_n128", "ab_n128_st"]}
// GENERIC: "nvfp4.moe_matmul"
// GENERIC-SAME: -> ()
func.func @dynamic_no_alpha(%a: memref<?x?xf4E2M1FN>, %b: memref<8x?x?xf4E2M1FN>,
    %sfa: memref<?x?x32x4x4xf8E4M3FN>, %sfb: memref<8x?x?x32x4x4xf8E4M3FN>,
    %c: memref<?x?xf32, strided<[?, 1]>>, %off: memref<9xi32>) {
  nvfp4.moe_matmul a(%a : memref<?x?xf4E2M1FN>) b(%b : memref<8x?x?xf4E2M1FN>)
      sfa(%sfa : memref<?x?x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x?x?x32x4x4xf8E4M3FN>)
      c(%c : memref<?x?xf32, strided<[?, 1]>>) offsets(%off : memref<9xi32>)
      {target = "sm_100a", variants = ["swap_n128", "ab_n128_st"]}
  return
}

// The pointer-array form with alpha (one f32 per group) and bf16 C.
// CHECK-LABEL: func.func @grouped_alpha_bf16(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: c(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x256xbf16>, memref<?x256xbf16>)
// CHECK-SAME: alpha(%{{[a-z0-9_]+}} : memref<2xf32>)
// CHECK-SAME: {target = "sm_100a"}
// GENERIC: "nvfp4.grouped_matmul"
// GENERIC-SAME: <{operandSegmentSizes = array<i32: 2, 2, 2, 2, 2, 1, 0, 0>, target = "sm_100a"}>
func.func @grouped_alpha_bf16(%a0: memref<?x512xf4E2M1FN>, %a1: memref<?x512xf4E2M1FN>,
    %b0: memref<256x512xf4E2M1FN>, %b1: memref<256x512xf4E2M1FN>,
    %sa0: memref<?x8x32x4x4xf8E4M3FN>, %sa1: memref<?x8x32x4x4xf8E4M3FN>,
    %sb0: memref<2x8x32x4x4xf8E4M3FN>, %sb1: memref<2x8x32x4x4xf8E4M3FN>,
    %c0: memref<?x256xbf16>, %c1: memref<?x256xbf16>, %alpha: memref<2xf32>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<?x512xf4E2M1FN>, memref<?x512xf4E2M1FN>)
      b(%b0, %b1 : memref<256x512xf4E2M1FN>, memref<256x512xf4E2M1FN>)
      sfa(%sa0, %sa1 : memref<?x8x32x4x4xf8E4M3FN>, memref<?x8x32x4x4xf8E4M3FN>)
      sfb(%sb0, %sb1 : memref<2x8x32x4x4xf8E4M3FN>, memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x256xbf16>, memref<?x256xbf16>)
      alpha(%alpha : memref<2xf32>)
      {target = "sm_100a"}
  return
}

// sm_90a takes the same options: the contiguous form with bf16 C and alpha (the default
// family: the persistent variants), and the pointer-array form with strided f32 C and alpha.
// CHECK-LABEL: func.func @sm90_moe_bf16_alpha(
// CHECK: nvfp4.moe_matmul
// CHECK-SAME: alpha(%{{[a-z0-9_]+}} : memref<8xf32>)
// CHECK-SAME: {target = "sm_90a"}
// GENERIC: "nvfp4.moe_matmul"
// GENERIC-SAME: target = "sm_90a"
func.func @sm90_moe_bf16_alpha(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>,
    %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>,
    %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>)
      sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>)
      {target = "sm_90a"}
  return
}

// CHECK-LABEL: func.func @sm90_grouped_f32_strided_alpha(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: c(%{{[a-z0-9_]+}} : memref<?x256xf32, strided<[?, 1]>>)
// CHECK-SAME: alpha(%{{[a-z0-9_]+}} : memref<1xf32>)
// CHECK-SAME: {target = "sm_90a"}
func.func @sm90_grouped_f32_strided_alpha(%a0: memref<?x512xf4E2M1FN>, %b0: memref<256x512xf4E2M1FN>,
    %sa0: memref<?x8x32x4x4xf8E4M3FN>, %sb0: memref<2x8x32x4x4xf8E4M3FN>,
    %c0: memref<?x256xf32, strided<[?, 1]>>, %alpha: memref<1xf32>) {
  nvfp4.grouped_matmul a(%a0 : memref<?x512xf4E2M1FN>) b(%b0 : memref<256x512xf4E2M1FN>)
      sfa(%sa0 : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sb0 : memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0 : memref<?x256xf32, strided<[?, 1]>>) alpha(%alpha : memref<1xf32>)
      {target = "sm_90a"}
  return
}
