// Programmatic dependent launch in the lowered kernels (docs/kernel-sm100a.md,
// docs/kernel-sm90a.md): every kernel of every family — sm_100a one CTA and CTA pair, the
// sm_100a contiguous (MoE) form, sm_90a, the sm_90a contiguous form — has exactly one
// griddepcontrol.wait, which every thread executes after the prologue (mbarrier
// initialisation, the prefetch of the four operand maps of group 0 or of the contiguous
// form's shared maps — in the device table, which the host writes in stream order and no
// previous grid writes, whatever the group count (G64 below: 64 groups); Tensor Memory
// allocation; sm_90a: the scale table) and before the CTA
// barrier, with no global access (a !llvm.ptr<1> load or store, a TMA) before it — the MoE
// forms' expert-schedule scan, which reads the offsets, comes after it — and exactly one
// griddepcontrol.launch_dependents, in the TMA producer after its tile loop (its block
// follows the loop's exit test; the loads are in the loop body's blocks, printed later).
// The metadata records carry NVFP4_META_FLAG_PDL (flags 0x10). The CPU target checks the
// order dynamically (test/CpuSim/griddep.test).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s
// RUN: %python %S/../../Dialect/nvfp4/Inputs/gen_groups.py 64 | nvfp4-opt --nvfp4-lower-grouped-matmul | FileCheck %s --check-prefix=G64
// G64-LABEL: llvm.func @g64_swap_n128(
// G64-NOT: !llvm.ptr<1>
// G64-NOT: nvvm.cp.async.bulk.tensor
// G64: nvvm.mbarrier.init
// G64-COUNT-4: nvvm.prefetch tensormap
// G64-NOT: nvvm.prefetch
// G64: nvvm.griddepcontrol wait

// CHECK: @nvfp4_kernel_metadata(dense<"0x4E56463406000000000100006400000010000000
// CHECK-LABEL: llvm.func @pdl100_ab_n128(
// CHECK-NOT: !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.mbarrier.init
// CHECK-COUNT-4: nvvm.prefetch tensormap
// CHECK-NOT: nvvm.prefetch
// CHECK: nvvm.tcgen05.alloc
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK-NOT: !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.griddepcontrol wait
// CHECK: llvm.icmp "ult"
// CHECK-NEXT: llvm.cond_br
// CHECK: ^bb{{[0-9]+}}:
// CHECK-NEXT: llvm.load
// CHECK-NEXT: llvm.br
// CHECK-NEXT: ^bb{{[0-9]+}}:
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.griddepcontrol
// CHECK-LABEL: llvm.func @pdl100_ab2_n128(
// CHECK-NOT: !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK-COUNT-4: nvvm.prefetch tensormap
// CHECK-NOT: nvvm.prefetch
// CHECK: nvvm.tcgen05.alloc
// CHECK-NOT: !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NOT: nvvm.griddepcontrol wait
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.griddepcontrol

func.func @pdl100(%a0: memref<?x?xf4E2M1FN>, %a1: memref<?x?xf4E2M1FN>, %b0: memref<?x?xf4E2M1FN>, %b1: memref<?x?xf4E2M1FN>, %sfa0: memref<?x?x32x4x4xf8E4M3FN>, %sfa1: memref<?x?x32x4x4xf8E4M3FN>, %sfb0: memref<?x?x32x4x4xf8E4M3FN>, %sfb1: memref<?x?x32x4x4xf8E4M3FN>, %c0: memref<?x?xf16>, %c1: memref<?x?xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<?x?xf4E2M1FN>, memref<?x?xf4E2M1FN>)
      b(%b0, %b1 : memref<?x?xf4E2M1FN>, memref<?x?xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<?x?x32x4x4xf8E4M3FN>, memref<?x?x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<?x?x32x4x4xf8E4M3FN>, memref<?x?x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x?xf16>, memref<?x?xf16>)
      {target = "sm_100a", kernel_name = "pdl100", variants = ["ab_n128", "ab2_n128"]}
  return
}

// -----

// The contiguous form: the wait comes before the schedule scan's reads of the offsets.
// CHECK-LABEL: llvm.func @pdlmoe100_ab_n128(
// CHECK-NOT: !llvm.ptr<1>
// CHECK-COUNT-4: nvvm.prefetch tensormap
// CHECK-NOT: nvvm.prefetch
// CHECK: nvvm.tcgen05.relinquish_alloc_permit
// CHECK-NOT: !llvm.ptr<1>
// CHECK: nvvm.griddepcontrol wait
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> i32
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.griddepcontrol wait
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: nvvm.griddepcontrol

func.func @pdlmoe100(%a: memref<?x?xf4E2M1FN>, %b: memref<4x?x?xf4E2M1FN>, %sfa: memref<?x?x32x4x4xf8E4M3FN>, %sfb: memref<4x?x?x32x4x4xf8E4M3FN>, %c: memref<?x?xf16>, %offsets: memref<5xi32>) {
  nvfp4.moe_matmul
      a(%a : memref<?x?xf4E2M1FN>)
      b(%b : memref<4x?x?xf4E2M1FN>)
      sfa(%sfa : memref<?x?x32x4x4xf8E4M3FN>)
      sfb(%sfb : memref<4x?x?x32x4x4xf8E4M3FN>)
      c(%c : memref<?x?xf16>)
      offsets(%offsets : memref<5xi32>)
      {target = "sm_100a", kernel_name = "pdlmoe100", variants = ["ab_n128"]}
  return
}

// -----

// sm_90a: after the barriers and the scale table, before the prologue's CTA barrier; the
// producer warpgroup signals after its loop.
// CHECK: @nvfp4_kernel_metadata(dense<"0x4E56463406000000000100005A00000010000000
// CHECK-LABEL: llvm.func @pdl90_swap_n64(
// CHECK-NOT: !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.mbarrier.init
// CHECK-COUNT-4: nvvm.prefetch tensormap
// CHECK-NOT: nvvm.prefetch
// CHECK-NOT: !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.griddepcontrol wait
// CHECK: nvvm.setmaxregister decrease
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: nvvm.griddepcontrol
// CHECK: nvvm.setmaxregister increase

func.func @pdl90(%a0: memref<?x?xf4E2M1FN>, %a1: memref<?x?xf4E2M1FN>, %b0: memref<?x?xf4E2M1FN>, %b1: memref<?x?xf4E2M1FN>, %sfa0: memref<?x?x32x4x4xf8E4M3FN>, %sfa1: memref<?x?x32x4x4xf8E4M3FN>, %sfb0: memref<?x?x32x4x4xf8E4M3FN>, %sfb1: memref<?x?x32x4x4xf8E4M3FN>, %c0: memref<?x?xf16>, %c1: memref<?x?xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<?x?xf4E2M1FN>, memref<?x?xf4E2M1FN>)
      b(%b0, %b1 : memref<?x?xf4E2M1FN>, memref<?x?xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<?x?x32x4x4xf8E4M3FN>, memref<?x?x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<?x?x32x4x4xf8E4M3FN>, memref<?x?x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x?xf16>, memref<?x?xf16>)
      {target = "sm_90a", kernel_name = "pdl90", variants = ["swap_n64"]}
  return
}

// -----

// CHECK-LABEL: llvm.func @pdlmoe90_swap_n64(
// CHECK-NOT: !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK-COUNT-4: nvvm.prefetch tensormap
// CHECK-NOT: nvvm.prefetch
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.griddepcontrol wait
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> i32
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: nvvm.griddepcontrol

func.func @pdlmoe90(%a: memref<?x?xf4E2M1FN>, %b: memref<4x?x?xf4E2M1FN>, %sfa: memref<?x?x32x4x4xf8E4M3FN>, %sfb: memref<4x?x?x32x4x4xf8E4M3FN>, %c: memref<?x?xf16>, %offsets: memref<5xi32>) {
  nvfp4.moe_matmul
      a(%a : memref<?x?xf4E2M1FN>)
      b(%b : memref<4x?x?xf4E2M1FN>)
      sfa(%sfa : memref<?x?x32x4x4xf8E4M3FN>)
      sfb(%sfb : memref<4x?x?x32x4x4xf8E4M3FN>)
      c(%c : memref<?x?xf16>)
      offsets(%offsets : memref<5xi32>)
      {target = "sm_90a", kernel_name = "pdlmoe90", variants = ["swap_n64"]}
  return
}
