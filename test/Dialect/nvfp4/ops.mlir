// ops.mlir — round-trip tests of nvfp4.grouped_matmul: custom form -> print -> parse ->
// print, and the generic form (--mlir-print-op-generic) -> parse -> custom print.
// RUN: nvfp4-opt %s | FileCheck %s
// RUN: nvfp4-opt %s | nvfp4-opt | FileCheck %s
// RUN: nvfp4-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: nvfp4-opt %s --mlir-print-op-generic | nvfp4-opt | FileCheck %s

// One group, every size static.
// CHECK-LABEL: func.func @one_group_static(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: a(%{{[a-z0-9_]+}} : memref<128x256xf4E2M1FN>)
// CHECK-SAME: b(%{{[a-z0-9_]+}} : memref<128x256xf4E2M1FN>)
// CHECK-SAME: sfa(%{{[a-z0-9_]+}} : memref<1x4x32x4x4xf8E4M3FN>)
// CHECK-SAME: sfb(%{{[a-z0-9_]+}} : memref<1x4x32x4x4xf8E4M3FN>)
// CHECK-SAME: c(%{{[a-z0-9_]+}} : memref<128x128xf16>)
// CHECK-SAME: {target = "sm_100a"}
// CHECK-NEXT: return
// GENERIC: "nvfp4.grouped_matmul"
// GENERIC-SAME: <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>, target = "sm_100a"}>
// GENERIC-SAME: : (memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<128x128xf16>) -> ()
func.func @one_group_static(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  nvfp4.grouped_matmul
      a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// One group, M, N and K dynamic (scale-factor outer dims dynamic too).
// CHECK-LABEL: func.func @one_group_dynamic(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: a(%{{[a-z0-9_]+}} : memref<?x?xf4E2M1FN>)
// CHECK-SAME: b(%{{[a-z0-9_]+}} : memref<?x?xf4E2M1FN>)
// CHECK-SAME: sfa(%{{[a-z0-9_]+}} : memref<?x?x32x4x4xf8E4M3FN>)
// CHECK-SAME: sfb(%{{[a-z0-9_]+}} : memref<?x?x32x4x4xf8E4M3FN>)
// CHECK-SAME: c(%{{[a-z0-9_]+}} : memref<?x?xf16>)
// CHECK-SAME: {target = "sm_100a"}
// CHECK-NEXT: return
// GENERIC: "nvfp4.grouped_matmul"
// GENERIC-SAME: <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>, target = "sm_100a"}>
// GENERIC-SAME: : (memref<?x?xf4E2M1FN>, memref<?x?xf4E2M1FN>, memref<?x?x32x4x4xf8E4M3FN>, memref<?x?x32x4x4xf8E4M3FN>, memref<?x?xf16>) -> ()
func.func @one_group_dynamic(%a0: memref<?x?xf4E2M1FN>,
    %b0: memref<?x?xf4E2M1FN>,
    %sfa0: memref<?x?x32x4x4xf8E4M3FN>,
    %sfb0: memref<?x?x32x4x4xf8E4M3FN>,
    %c0: memref<?x?xf16>) {
  nvfp4.grouped_matmul
      a(%a0 : memref<?x?xf4E2M1FN>)
      b(%b0 : memref<?x?xf4E2M1FN>)
      sfa(%sfa0 : memref<?x?x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<?x?x32x4x4xf8E4M3FN>)
      c(%c0 : memref<?x?xf16>)
      {target = "sm_100a"}
  return
}

// Two groups, dynamic M (test case test:0 of docs/format.md).
// CHECK-LABEL: func.func @two_groups_test1(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: a(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x256xf4E2M1FN>, memref<?x512xf4E2M1FN>)
// CHECK-SAME: b(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<128x256xf4E2M1FN>, memref<256x512xf4E2M1FN>)
// CHECK-SAME: sfa(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x4x32x4x4xf8E4M3FN>, memref<?x8x32x4x4xf8E4M3FN>)
// CHECK-SAME: sfb(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<1x4x32x4x4xf8E4M3FN>, memref<2x8x32x4x4xf8E4M3FN>)
// CHECK-SAME: c(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x128xf16>, memref<?x256xf16>)
// CHECK-SAME: {target = "sm_100a"}
// CHECK-NEXT: return
// GENERIC: "nvfp4.grouped_matmul"
// GENERIC-SAME: <{operandSegmentSizes = array<i32: 2, 2, 2, 2, 2, 0, 0, 0>, target = "sm_100a"}>
func.func @two_groups_test1(%a0: memref<?x256xf4E2M1FN>,
    %a1: memref<?x512xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %b1: memref<256x512xf4E2M1FN>,
    %sfa0: memref<?x4x32x4x4xf8E4M3FN>,
    %sfa1: memref<?x8x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb1: memref<2x8x32x4x4xf8E4M3FN>,
    %c0: memref<?x128xf16>,
    %c1: memref<?x256xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<?x256xf4E2M1FN>, memref<?x512xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<256x512xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x8x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<1x4x32x4x4xf8E4M3FN>, memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x128xf16>, memref<?x256xf16>)
      {target = "sm_100a"}
  return
}

// Two groups, ragged static M and N (not multiples of 128).
// CHECK-LABEL: func.func @two_groups_ragged(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: a(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<96x256xf4E2M1FN>, memref<200x64xf4E2M1FN>)
// CHECK-SAME: b(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<72x256xf4E2M1FN>, memref<300x64xf4E2M1FN>)
// CHECK-SAME: sfa(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<1x4x32x4x4xf8E4M3FN>, memref<2x1x32x4x4xf8E4M3FN>)
// CHECK-SAME: sfb(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<1x4x32x4x4xf8E4M3FN>, memref<3x1x32x4x4xf8E4M3FN>)
// CHECK-SAME: c(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<96x72xf16>, memref<200x300xf16>)
// CHECK-SAME: {target = "sm_100a"}
// CHECK-NEXT: return
// GENERIC: "nvfp4.grouped_matmul"
// GENERIC-SAME: <{operandSegmentSizes = array<i32: 2, 2, 2, 2, 2, 0, 0, 0>, target = "sm_100a"}>
func.func @two_groups_ragged(%a0: memref<96x256xf4E2M1FN>,
    %a1: memref<200x64xf4E2M1FN>,
    %b0: memref<72x256xf4E2M1FN>,
    %b1: memref<300x64xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfa1: memref<2x1x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb1: memref<3x1x32x4x4xf8E4M3FN>,
    %c0: memref<96x72xf16>,
    %c1: memref<200x300xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<96x256xf4E2M1FN>, memref<200x64xf4E2M1FN>)
      b(%b0, %b1 : memref<72x256xf4E2M1FN>, memref<300x64xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<1x4x32x4x4xf8E4M3FN>, memref<2x1x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<1x4x32x4x4xf8E4M3FN>, memref<3x1x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<96x72xf16>, memref<200x300xf16>)
      {target = "sm_100a"}
  return
}

// Eight groups (benchmark B1 shapes).
// CHECK-LABEL: func.func @eight_groups_b1(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: a(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>)
// CHECK-SAME: b(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>)
// CHECK-SAME: sfa(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>)
// CHECK-SAME: sfb(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>)
// CHECK-SAME: c(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>)
// CHECK-SAME: {target = "sm_100a"}
// CHECK-NEXT: return
// GENERIC: "nvfp4.grouped_matmul"
// GENERIC-SAME: <{operandSegmentSizes = array<i32: 8, 8, 8, 8, 8, 0, 0, 0>, target = "sm_100a"}>
func.func @eight_groups_b1(%a0: memref<?x7168xf4E2M1FN>,
    %a1: memref<?x7168xf4E2M1FN>,
    %a2: memref<?x7168xf4E2M1FN>,
    %a3: memref<?x7168xf4E2M1FN>,
    %a4: memref<?x7168xf4E2M1FN>,
    %a5: memref<?x7168xf4E2M1FN>,
    %a6: memref<?x7168xf4E2M1FN>,
    %a7: memref<?x7168xf4E2M1FN>,
    %b0: memref<4096x7168xf4E2M1FN>,
    %b1: memref<4096x7168xf4E2M1FN>,
    %b2: memref<4096x7168xf4E2M1FN>,
    %b3: memref<4096x7168xf4E2M1FN>,
    %b4: memref<4096x7168xf4E2M1FN>,
    %b5: memref<4096x7168xf4E2M1FN>,
    %b6: memref<4096x7168xf4E2M1FN>,
    %b7: memref<4096x7168xf4E2M1FN>,
    %sfa0: memref<?x112x32x4x4xf8E4M3FN>,
    %sfa1: memref<?x112x32x4x4xf8E4M3FN>,
    %sfa2: memref<?x112x32x4x4xf8E4M3FN>,
    %sfa3: memref<?x112x32x4x4xf8E4M3FN>,
    %sfa4: memref<?x112x32x4x4xf8E4M3FN>,
    %sfa5: memref<?x112x32x4x4xf8E4M3FN>,
    %sfa6: memref<?x112x32x4x4xf8E4M3FN>,
    %sfa7: memref<?x112x32x4x4xf8E4M3FN>,
    %sfb0: memref<32x112x32x4x4xf8E4M3FN>,
    %sfb1: memref<32x112x32x4x4xf8E4M3FN>,
    %sfb2: memref<32x112x32x4x4xf8E4M3FN>,
    %sfb3: memref<32x112x32x4x4xf8E4M3FN>,
    %sfb4: memref<32x112x32x4x4xf8E4M3FN>,
    %sfb5: memref<32x112x32x4x4xf8E4M3FN>,
    %sfb6: memref<32x112x32x4x4xf8E4M3FN>,
    %sfb7: memref<32x112x32x4x4xf8E4M3FN>,
    %c0: memref<?x4096xf16>,
    %c1: memref<?x4096xf16>,
    %c2: memref<?x4096xf16>,
    %c3: memref<?x4096xf16>,
    %c4: memref<?x4096xf16>,
    %c5: memref<?x4096xf16>,
    %c6: memref<?x4096xf16>,
    %c7: memref<?x4096xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7 : memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>, memref<?x7168xf4E2M1FN>)
      b(%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7 : memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>, memref<4096x7168xf4E2M1FN>)
      sfa(%sfa0, %sfa1, %sfa2, %sfa3, %sfa4, %sfa5, %sfa6, %sfa7 : memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>, memref<?x112x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1, %sfb2, %sfb3, %sfb4, %sfb5, %sfb6, %sfb7 : memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>, memref<32x112x32x4x4xf8E4M3FN>)
      c(%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7 : memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>, memref<?x4096xf16>)
      {target = "sm_100a"}
  return
}

// Optional tuning attributes; mixed static/dynamic N.
// CHECK-LABEL: func.func @tuning_attributes(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: a(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x1536xf4E2M1FN>, memref<?x1536xf4E2M1FN>)
// CHECK-SAME: b(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<4096x1536xf4E2M1FN>, memref<?x1536xf4E2M1FN>)
// CHECK-SAME: sfa(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x24x32x4x4xf8E4M3FN>, memref<?x24x32x4x4xf8E4M3FN>)
// CHECK-SAME: sfb(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<32x24x32x4x4xf8E4M3FN>, memref<?x24x32x4x4xf8E4M3FN>)
// CHECK-SAME: c(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x4096xf16>, memref<?x?xf16>)
// CHECK-SAME: {kernel_name = "moe_up", stages = 3 : i64, target = "sm_100a", tile_n = 256 : i64, variants = ["ab_n256", "swap2_n256"]}
// CHECK-NEXT: return
// GENERIC: "nvfp4.grouped_matmul"
// GENERIC-SAME: <{kernel_name = "moe_up", operandSegmentSizes = array<i32: 2, 2, 2, 2, 2, 0, 0, 0>, stages = 3 : i64, target = "sm_100a", tile_n = 256 : i64, variants = ["ab_n256", "swap2_n256"]}>
func.func @tuning_attributes(%a0: memref<?x1536xf4E2M1FN>,
    %a1: memref<?x1536xf4E2M1FN>,
    %b0: memref<4096x1536xf4E2M1FN>,
    %b1: memref<?x1536xf4E2M1FN>,
    %sfa0: memref<?x24x32x4x4xf8E4M3FN>,
    %sfa1: memref<?x24x32x4x4xf8E4M3FN>,
    %sfb0: memref<32x24x32x4x4xf8E4M3FN>,
    %sfb1: memref<?x24x32x4x4xf8E4M3FN>,
    %c0: memref<?x4096xf16>,
    %c1: memref<?x?xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<?x1536xf4E2M1FN>, memref<?x1536xf4E2M1FN>)
      b(%b0, %b1 : memref<4096x1536xf4E2M1FN>, memref<?x1536xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<?x24x32x4x4xf8E4M3FN>, memref<?x24x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<32x24x32x4x4xf8E4M3FN>, memref<?x24x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x4096xf16>, memref<?x?xf16>)
      {kernel_name = "moe_up", stages = 3 : i64, target = "sm_100a", tile_n = 256 : i64, variants = ["ab_n256", "swap2_n256"]}
  return
}

// K dynamic in both A and B of each group.
// CHECK-LABEL: func.func @dynamic_k(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: a(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<64x?xf4E2M1FN>, memref<?x?xf4E2M1FN>)
// CHECK-SAME: b(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x?xf4E2M1FN>, memref<512x?xf4E2M1FN>)
// CHECK-SAME: sfa(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<1x?x32x4x4xf8E4M3FN>, memref<?x?x32x4x4xf8E4M3FN>)
// CHECK-SAME: sfb(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<?x?x32x4x4xf8E4M3FN>, memref<4x?x32x4x4xf8E4M3FN>)
// CHECK-SAME: c(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<64x?xf16>, memref<?x512xf16>)
// CHECK-SAME: {target = "sm_100a"}
// CHECK-NEXT: return
// GENERIC: "nvfp4.grouped_matmul"
// GENERIC-SAME: <{operandSegmentSizes = array<i32: 2, 2, 2, 2, 2, 0, 0, 0>, target = "sm_100a"}>
func.func @dynamic_k(%a0: memref<64x?xf4E2M1FN>,
    %a1: memref<?x?xf4E2M1FN>,
    %b0: memref<?x?xf4E2M1FN>,
    %b1: memref<512x?xf4E2M1FN>,
    %sfa0: memref<1x?x32x4x4xf8E4M3FN>,
    %sfa1: memref<?x?x32x4x4xf8E4M3FN>,
    %sfb0: memref<?x?x32x4x4xf8E4M3FN>,
    %sfb1: memref<4x?x32x4x4xf8E4M3FN>,
    %c0: memref<64x?xf16>,
    %c1: memref<?x512xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<64x?xf4E2M1FN>, memref<?x?xf4E2M1FN>)
      b(%b0, %b1 : memref<?x?xf4E2M1FN>, memref<512x?xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<1x?x32x4x4xf8E4M3FN>, memref<?x?x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<?x?x32x4x4xf8E4M3FN>, memref<4x?x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<64x?xf16>, memref<?x512xf16>)
      {target = "sm_100a"}
  return
}

// C with a row stride (static and dynamic): the kernel reads ldc at run time.
// CHECK-LABEL: func.func @strided_c(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: c(%{{.*}}, %{{.*}} : memref<?x128xf16, strided<[256, 1]>>, memref<?x?xf16, strided<[?, 1], offset: ?>>)
func.func @strided_c(%a0: memref<?x256xf4E2M1FN>, %a1: memref<?x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>, %b1: memref<?x256xf4E2M1FN>,
    %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfa1: memref<?x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %sfb1: memref<?x4x32x4x4xf8E4M3FN>,
    %c0: memref<?x128xf16, strided<[256, 1]>>, %c1: memref<?x?xf16, strided<[?, 1], offset: ?>>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<?x256xf4E2M1FN>, memref<?x256xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<?x256xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<1x4x32x4x4xf8E4M3FN>, memref<?x4x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x128xf16, strided<[256, 1]>>, memref<?x?xf16, strided<[?, 1], offset: ?>>)
      {target = "sm_100a"}
  return
}

// The native Hopper target with its tuning attributes (tile_n 64, the swap-AB family).
// CHECK-LABEL: func.func @sm90a_target(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: {target = "sm_90a", tile_n = 64 : i64, variants = ["swap_n64", "swap_n128"]}
// GENERIC: target = "sm_90a", tile_n = 64 : i64, variants = ["swap_n64", "swap_n128"]
func.func @sm90a_target(%a0: memref<?x7168xf4E2M1FN>,
    %b0: memref<4096x7168xf4E2M1FN>,
    %sfa0: memref<?x112x32x4x4xf8E4M3FN>,
    %sfb0: memref<32x112x32x4x4xf8E4M3FN>,
    %c0: memref<?x4096xf16>) {
  nvfp4.grouped_matmul
      a(%a0 : memref<?x7168xf4E2M1FN>)
      b(%b0 : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa0 : memref<?x112x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c0 : memref<?x4096xf16>)
      {target = "sm_90a", tile_n = 64, variants = ["swap_n64", "swap_n128"]}
  return
}
