// Lowering of nvfp4.grouped_matmul with target = "sm_120a" (docs/kernel-sm120a.md): the module
// (chip sm_120a, PTX 8.7; sm_121a and sm_120f need 8.8), 288 threads (8 consumer warps and
// the producer warp), the default family ab_n128, swap_n64, swap_n128, the stage ring's
// barriers (full: 1 arrival, empty: one per consumer warp), the producer's TMA loads into the
// CTA's own shared memory, and per 64-K step q of a stage the ldmatrix.x4 fragments and the
// block-scaled mma.sync with byte-id 0, thread-id-a q % 2 and thread-id-b q.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul --verify-diagnostics | FileCheck %s

// Record 0: "NVF4", ABI 6, 256 bytes, target_sm 120 (0x78), flags 0, block 288 (0x120); no
// cost-model constants (no decode). The plan: warp 8 produces, warps 0-7 issue the mma.sync.
// CHECK-LABEL: gpu.module @rtx_module [#nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">]
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E56463406000000000100007800000000000000200100000100000001000000
// CHECK-SAME: 00000000000000000000000000000000736D5F3132306100000000000000000000000000"> : tensor<768xi8>
// CHECK: llvm.func @rtx_ab_n128(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<64 x i8>, nvvm.grid_constant})
// CHECK-SAME: attributes {nvfp4.plan = ["variant ab_n128", "threads 288", "cluster 1", "dyn_smem 74784",
// CHECK-SAME: "role 8 8 producer", "role 0 7 mmasync", "smem 0 73728 2 36864 stage",
// CHECK-SAME: "barrier 73728 2 1 full", "barrier 73744 2 8 empty"]
// CHECK-SAME: nvvm.kernel, nvvm.minctasm = 1 : i32, nvvm.reqntid = array<i32: 288, 1, 1>}
// Two stages: full[0], full[1], empty[0], empty[1] (arrivals: test/Target/kernel-plan.test).
// CHECK-COUNT-4: nvvm.mbarrier.init
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: nvvm.barrier0
// The consumers: the first MMAs of the tile are step 0's (selectors 0); step 1 uses
// thread-id-a 1 and thread-id-b 1, step 2 thread-id-b 2, step 3 thread-id-a 1 and
// thread-id-b 3 (the selector constants are made just before their MMA).
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[{{.*}}] scaleB[{{.*}}] {blockScaleFormat = #nvvm.block_scale_format<ue4m3>, kind = #nvvm.block_scale_kind<mxf4nvf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x4>, shape = #nvvm.shape<m = 16, n = 8, k = 64>}
// CHECK: %[[TA1:[0-9]+]] = llvm.mlir.constant(1 : i16) : i16
// CHECK-NEXT: %[[BB1:[0-9]+]] = llvm.mlir.constant(0 : i16) : i16
// CHECK-NEXT: %[[TB1:[0-9]+]] = llvm.mlir.constant(1 : i16) : i16
// CHECK-NEXT: nvvm.mma.block_scale {{.*}} scaleA[%{{[0-9]+}}, %{{[0-9]+}}, %[[TA1]]] scaleB[%{{[0-9]+}}, %[[BB1]], %[[TB1]]]
// CHECK: %[[TB2:[0-9]+]] = llvm.mlir.constant(2 : i16) : i16
// CHECK-NEXT: nvvm.mma.block_scale {{.*}} scaleB[%{{[0-9]+}}, %{{[0-9]+}}, %[[TB2]]]
// CHECK: %[[TA3:[0-9]+]] = llvm.mlir.constant(1 : i16) : i16
// CHECK-NEXT: llvm.mlir.constant(0 : i16) : i16
// CHECK-NEXT: %[[TB3:[0-9]+]] = llvm.mlir.constant(3 : i16) : i16
// CHECK-NEXT: nvvm.mma.block_scale {{.*}} scaleA[%{{[0-9]+}}, %{{[0-9]+}}, %[[TA3]]] scaleB[%{{[0-9]+}}, %{{[0-9]+}}, %[[TB3]]]
// The producer: four boxes per stage into the CTA's own shared memory.
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {isCTAOnly = true, nvfp4.operand = "a"}
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {isCTAOnly = true, nvfp4.operand = "b"}
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {isCTAOnly = true, nvfp4.operand = "sfa"}
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {isCTAOnly = true, nvfp4.operand = "sfb"}
// CHECK: llvm.func @rtx_swap_n64(
// CHECK: llvm.func @rtx_swap_n128(
// CHECK-NOT: tcgen05
// CHECK-NOT: wgmma
func.func @rtx(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
               %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
               %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_120a", kernel_name = "rtx"}
  return
}

// -----

// DGX Spark and the family target: PTX 8.8; the contiguous form with bf16 C and alpha, its
// swap-AB variant with the N-role box ladder (16, 32, 64 rows below 128).
// CHECK-LABEL: gpu.module @spark_module [#nvvm.target<O = 3, chip = "sm_121a", features = "+ptx88">]
// CHECK: llvm.func @spark_swap_n128(
// CHECK: nvvm.mma.block_scale
// CHECK-LABEL: gpu.module @both_module [#nvvm.target<O = 3, chip = "sm_120f", features = "+ptx88">]
func.func @spark(%a: memref<?x256xf4E2M1FN>, %b: memref<8x128x256xf4E2M1FN>,
                 %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<8x1x4x32x4x4xf8E4M3FN>,
                 %c: memref<?x128xbf16>, %off: memref<9xi32>, %al: memref<8xf32>) {
  nvfp4.moe_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<8x128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xbf16>) offsets(%off : memref<9xi32>) alpha(%al : memref<8xf32>)
      {target = "sm_121a", kernel_name = "spark", variants = ["swap_n128"]}
  return
}
func.func @both(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                %c: memref<?x128xf32>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf32>) {target = "sm_120f", kernel_name = "both"}
  return
}

// -----

// What the sm_120a kernel cannot build is refused at the op with its reason.
func.func @pair(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                %c: memref<?x128xf16>) {
  // expected-error @+1 {{variant ab2_n128: the sm_12x kernel has no CTA-pair variant}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_120a", variants = ["ab2_n128"]}
  return
}
