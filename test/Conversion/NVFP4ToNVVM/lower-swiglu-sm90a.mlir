// Lowering of the fused SwiGLU + NVFP4 epilogue (epilogue = "swiglu_nvfp4") on sm_90a
// (swap-AB; docs/kernel-sm90a.md): a tile's 128 weight rows are the gate rows n0 = mRow0 / 2
// .. n0 + 63 and the up rows I + n0 .. (I = N / 2), loaded as two 64-row boxes of B at
// stage offsets 0 and 8192, and their SFB atom rows n0 / 128 and (I + n0) / 128 as two
// boxes at the stage's weight-scale part (32768, 4096 bytes: two atom rows) and 2048 above
// it; the staging (2 x 16384 bytes) holds the up values and then the activations; the
// epilogue reads SFC and gs from the problem record (112, 120), runs exp2 per feature and
// stores 8 bytes of codes and one scale byte per item; the activation dump
// (nvfp4.debug_activations) adds 16-byte stores of f32 and is absent from a production build.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s

// The contiguous form, I = 192 (I % 128 == 64: the up half starts inside an atom), alpha.
// CHECK-LABEL: llvm.func @nvfp4_moe_matmul_e8_swap_n128(
// CHECK-SAME: "variant swap_n128", "threads 640"
// CHECK-SAME: "smem 188416 32768 2 16384 store staging"
// CHECK-SAME: "stagepart 0 16384 M-role tile"
// CHECK-SAME: "stagepart 32768 4096 M-role scale factors"
// The problem record's N (read by the expert schedule, then by the producer's tile), then
// the producer's halves.
// CHECK: llvm.getelementptr %arg0[92]
// CHECK: %[[NPTR:[0-9]+]] = llvm.getelementptr %arg0[92]
// CHECK-NEXT: %[[N:[0-9]+]] = llvm.load %[[NPTR]]
// CHECK: %[[I:[0-9]+]] = llvm.udiv %[[N]], %{{[0-9]+}} : i32
// CHECK-NEXT: %[[UP:[0-9]+]] = llvm.add %[[I]], %[[N0:[0-9]+]] : i32
// CHECK-NEXT: %[[ATOM:[0-9]+]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[GATEROW:[0-9]+]] = llvm.add %[[BROW:[0-9]+]], %[[N0]] : i32
// CHECK-NEXT: %[[UPROW:[0-9]+]] = llvm.add %[[BROW]], %[[UP]] : i32
// CHECK-NEXT: %[[GA:[0-9]+]] = llvm.udiv %[[N0]], %[[ATOM]] : i32
// CHECK-NEXT: %[[GATEATOM:[0-9]+]] = llvm.add %[[BATOM:[0-9]+]], %[[GA]] : i32
// CHECK-NEXT: %[[UA:[0-9]+]] = llvm.udiv %[[UP]], %[[ATOM]] : i32
// CHECK-NEXT: %[[UPATOM:[0-9]+]] = llvm.add %[[BATOM]], %[[UA]] : i32
// CHECK: box[%{{[0-9]+}}, %[[GATEROW]]] {{.*}}{nvfp4.operand = "b"}
// CHECK-NEXT: %[[K8K:[0-9]+]] = llvm.mlir.constant(8192 : i32) : i32
// CHECK-NEXT: llvm.add %[[STAGE:[0-9]+]], %[[K8K]] : i32
// CHECK: box[%{{[0-9]+}}, %[[UPROW]]] {{.*}}{nvfp4.operand = "b"}
// CHECK: {nvfp4.operand = "a"}
// CHECK: %[[K32K:[0-9]+]] = llvm.mlir.constant(32768 : i32) : i32
// CHECK-NEXT: %[[DS:[0-9]+]] = llvm.add %[[STAGE]], %[[K32K]] : i32
// CHECK: box[%{{[0-9]+}}, %[[GATEATOM]]] {{.*}}{nvfp4.operand = "sfb"}
// CHECK-NEXT: %[[K2K:[0-9]+]] = llvm.mlir.constant(2048 : i32) : i32
// CHECK-NEXT: llvm.add %[[DS]], %[[K2K]] : i32
// CHECK: box[%{{[0-9]+}}, %[[UPATOM]]] {{.*}}{nvfp4.operand = "sfb"}
// The epilogue: the shared SFC and the expert's gs from the problem record.
// CHECK: llvm.getelementptr %arg0[112] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.getelementptr %arg0[120] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.intr.exp2
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
// CHECK-NOT: vector<4xf32>, !llvm.ptr<1>
// CHECK-LABEL: llvm.func @nvfp4_moe_matmul_e8_swap_n64(
func.func @e8(%a: memref<?x512xf4E2M1FN>, %b: memref<8x384x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x3x8x32x4x4xf8E4M3FN>, %c: memref<?x192xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x3x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x384x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x3x8x32x4x4xf8E4M3FN>) c(%c : memref<?x192xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x3x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_90a", variants = ["swap_n128", "swap_n64"]}
  return
}

// -----

// The pointer-array form with the activation dump: the default family is the three
// 128-weight persistent widths; the group record's SFC and gs (48, 56).
// CHECK-LABEL: llvm.func @nvfp4_grouped_matmul_g1_swap_n128(
// CHECK: llvm.intr.exp2
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-LABEL: llvm.func @nvfp4_grouped_matmul_g1_swap_n64(
// CHECK-LABEL: llvm.func @nvfp4_grouped_matmul_g1_swap_n192(
// CHECK-NOT: llvm.func @nvfp4_grouped_matmul_g1_swap_n128_m192
func.func @g1(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_90a", nvfp4.debug_activations}
  return
}
