// The CPU execution target's rewrite (--nvfp4-cpu-target) of the generated kernel family:
// no NVVM operation and no shared / cluster / Tensor Memory pointer is left; shared-memory
// accesses go to the CTA's host window after a checking call; every tcgen05.ld register is
// read through a checked load after the call that fills it; the register fence is gone;
// the parameter is a plain pointer; each kernel has its plan text.
// RUN: nvfp4-opt %s --nvfp4-lower-grouped-matmul --nvfp4-cpu-target | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-cpu | FileCheck %s --check-prefix=NONVVM
// RUN: nvfp4-opt %s --nvfp4-to-cpu --mlir-print-op-generic | FileCheck %s --check-prefix=NOPTR

// CHECK-LABEL: gpu.module @cpu_ir_module attributes {nvfp4.cpu}
// CHECK-DAG: llvm.func @nvfp4_sim_tc_mma(i32, i64, i64, i32, i32, i32, i32, i32, i32)
// CHECK-DAG: llvm.mlir.global external constant @nvfp4_kernel_metadata({{.*}}) {addr_space = 0 : i32
// CHECK: llvm.func @cpu_ir_ab_n128(%[[P:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.noalias}) attributes {nvfp4.cpu_kernel} {
// CHECK: %[[SMEM:.*]] = llvm.call @nvfp4_sim_smem_base() : () -> !llvm.ptr
// CHECK: llvm.call @nvfp4_sim_dyn_smem() : () -> i32
// CHECK: llvm.call @nvfp4_sim_mbar_init(
// CHECK: llvm.call @nvfp4_sim_tc_alloc({{.*}}) : (i32, i32, i32, i32) -> ()
// CHECK: llvm.call @nvfp4_sim_smem_access(%[[A:.*]], %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, i32) -> ()
// CHECK-NEXT: %[[A64:.*]] = llvm.zext %[[A]] : i32 to i64
// CHECK-NEXT: %[[H:.*]] = llvm.getelementptr %[[SMEM]][%[[A64]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT: llvm.load %[[H]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: llvm.call @nvfp4_sim_tma_load(
// CHECK: llvm.call @nvfp4_sim_tc_cp(
// CHECK: llvm.call @nvfp4_sim_tc_mma(
// CHECK: llvm.call @nvfp4_sim_tc_commit(
// CHECK: llvm.call @nvfp4_sim_tc_ld(%{{.*}}, %{{.*}}, %[[BUF:.*]], %[[S:.*]]) : (i32, i32, !llvm.ptr, i32) -> ()
// CHECK: llvm.call @nvfp4_sim_tc_wait(
// CHECK: llvm.call @nvfp4_sim_tc_ld_use(%[[BUF]], %[[S]]) : (!llvm.ptr, i32) -> ()
// CHECK-NEXT: llvm.load %[[BUF]] {alignment = 4 : i64} : !llvm.ptr -> vector<32xi32>
// CHECK: llvm.call @nvfp4_sim_tma_store(
// CHECK: llvm.call @nvfp4_sim_tc_dealloc(
// CHECK: llvm.func @cpu_ir_ab2_n256(
// CHECK-DAG: llvm.call @nvfp4_sim_mapa(
// CHECK-DAG: llvm.call @nvfp4_sim_mbar_arrive_cluster(
// CHECK-DAG: llvm.call @nvfp4_sim_cluster_arrive(
// CHECK: llvm.mlir.global external constant @cpu_ir_ab_n128__nvfp4_cpu_plan("kernel cpu_ir_ab_n128\0Avariant ab_n128\0Athreads 192\0Acluster 1
// CHECK-SAME: barrier {{[0-9]+}} 5 1 full
// CHECK-SAME: site 0 mbarrier.init
// CHECK: @cpu_ir_ab2_n256__nvfp4_cpu_plan("kernel cpu_ir_ab2_n256\0Avariant ab2_n256\0Athreads 192\0Acluster 2

// NONVVM-NOT: nvvm.
// NONVVM-NOT: llvm.inline_asm
// NONVVM-NOT: nvfp4_dyn_smem
// NONVVM: nvfp4.cpu_kernel
// NOPTR-NOT: !llvm.ptr<{{[1-9]}}>
// NOPTR: "llvm.func"

func.func @cpu_ir(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>,
                  %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
                  %c0: memref<?x128xf16>) {
  nvfp4.grouped_matmul
      a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<?x128xf16>)
      {target = "sm_100a", kernel_name = "cpu_ir", variants = ["ab_n128", "ab2_n256"]}
  return
}
