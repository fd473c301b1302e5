// The CPU execution target's rewrite (--nvfp4-cpu-target) of the sm_120a kernel family: no
// NVVM operation is left; ldmatrix.x4 becomes a call that fills a 4-word buffer whose words
// replace its results; the block-scaled mma.sync a call with its 16 operands (the i16
// selectors widened) that fills a 4-float buffer; the TMA load into the CTA's own shared
// memory takes its cluster address from nvfp4_sim_cluster_addr; the plan names warps 0-7
// the consumers and warp 8 the producer.
// RUN: nvfp4-opt %s --nvfp4-lower-grouped-matmul --nvfp4-cpu-target | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-cpu | FileCheck %s --check-prefix=NONVVM

// CHECK-LABEL: gpu.module @cpu_rtx_module attributes {nvfp4.cpu}
// CHECK-DAG: llvm.func @nvfp4_sim_ldmatrix_x4(i32, !llvm.ptr, i32)
// CHECK-DAG: llvm.func @nvfp4_sim_mma_block_scale(!llvm.ptr, i32, i32, i32, i32, i32, i32, f32, f32, f32, f32, i32, i32, i32, i32, i32, i32, i32)
// CHECK: llvm.func @cpu_rtx_swap_n32(
// CHECK: llvm.call @nvfp4_sim_ldmatrix_x4(%{{.*}}, %[[LB:.*]], %{{.*}}) : (i32, !llvm.ptr, i32) -> ()
// CHECK-NEXT: %[[P3:.*]] = llvm.getelementptr %[[LB]][12]
// CHECK-NEXT: %[[A3:.*]] = llvm.load %[[P3]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[LB]][0]
// CHECK-NEXT: %[[A0:.*]] = llvm.load %[[P0]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: llvm.call @nvfp4_sim_mma_block_scale(%[[DB:.*]], %[[A0]], %{{.*}}, %{{.*}}, %[[A3]], {{.*}}) : (!llvm.ptr, i32, i32, i32, i32, i32, i32, f32, f32, f32, f32, i32, i32, i32, i32, i32, i32, i32) -> ()
// CHECK-NEXT: llvm.getelementptr %[[DB]][12]
// CHECK-NEXT: llvm.load {{.*}} -> f32
// CHECK: %[[CA:.*]] = llvm.call @nvfp4_sim_cluster_addr(%{{.*}}) : (i32) -> i64
// CHECK: llvm.call @nvfp4_sim_tma_load(%[[CA]],
// CHECK: llvm.mlir.global external constant @cpu_rtx_swap_n32__nvfp4_cpu_plan("kernel cpu_rtx_swap_n32\0Avariant swap_n32\0Athreads 288\0Acluster 1\0Adyn_smem 99392\0Arole 8 8 producer\0Arole 0 7 mmasync\0Asmem 0 98304 4 24576 stage
// CHECK-SAME: site {{[0-9]+}} ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: site {{[0-9]+}} mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
// NONVVM-NOT: nvvm.
// NONVVM-NOT: !llvm.ptr<3>
func.func @cpu_rtx(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                   %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                   %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_120a", kernel_name = "cpu_rtx", variants = ["swap_n32"]}
  return
}
