// The pipeline rings as emitted: a slot index that wraps at the ring size and a phase bit
// that flips exactly when it wraps (continuous phases, barriers never re-initialised);
// the producer waits on empty[s] with parity phase ^ 1 (its first pass is free) and arms
// full[s]; after a stage's MMAs the issuer commits empty[s] and, when the scale-factor
// slots form their own ring (ab_n192 with 3 stages: 2 slots), sfFree[p], then advances the
// slot ring (size 2) and the stage ring (size 3). Barrier addresses come from the plan:
// mbarrier i at 174080 + 8 i, full at 0, empty at 3, sfFree at 10 (KernelPlanTests prints
// the same map).
// RUN: nvfp4-opt %s --nvfp4-lower-grouped-matmul | FileCheck %s
// RUN: nvfp4-kernel-plan-tests ab_n192 3 | FileCheck %s --check-prefix=PLAN

func.func @ring(%a: memref<?x256xf4E2M1FN>, %b: memref<192x256xf4E2M1FN>,
                %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>,
                %c: memref<?x192xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<192x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x192xf16>)
      {target = "sm_100a", stages = 3, variants = ["ab_n192"], kernel_name = "ring"}
  return
}

// PLAN: variant ab_n192: mma 128x192, stages 3, accumulators 2, sf slots 2 (ring)
// PLAN: smem mbarriers      offset 174080
// PLAN: mbarrier full       first  0 count 3 arrivals 1
// PLAN: mbarrier empty      first  3 count 3 arrivals 1
// PLAN: mbarrier accFull    first  6 count 2 arrivals 1
// PLAN: mbarrier accEmpty   first  8 count 2 arrivals 128
// PLAN: mbarrier sfFree     first 10 count 2 arrivals 1

// CHECK-LABEL: llvm.func @ring_ab_n192(
// Producer: acquire empty[s] (first 3) with parity phase ^ 1. The first such acquire in
// the text is the teardown drain's (same ring code, emitted after the loop's blocks) ...
// CHECK:      %[[DPARITY:[0-9]+]] = llvm.xor %{{[0-9]+}}, %{{[0-9]+}} : i32
// CHECK-NEXT: %{{.*}} = llvm.load %[[INDEX:[0-9]+]] : !llvm.ptr -> i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(3 : i32) : i32
// ... then the loop's: parity = phase ^ 1, empty[s] = mbarrier (s + 3) at 174080 + 8 (s + 3),
// CHECK:      %[[PARITY:[0-9]+]] = llvm.xor %[[PPH:[0-9]+]], %{{[0-9]+}} : i32
// CHECK-NEXT: %[[S0:[0-9]+]] = llvm.load %[[INDEX]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[EFIRST:[0-9]+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[E:[0-9]+]] = llvm.add %[[S0]], %[[EFIRST]] : i32
// CHECK-NEXT: %[[EIGHT:[0-9]+]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %{{[0-9]+}} = llvm.mul %[[E]], %[[EIGHT]] : i32
// CHECK-NEXT: %{{[0-9]+}} = llvm.mlir.constant(174080 : i32) : i32
// CHECK:      nvvm.mbarrier.try_wait %{{.*}}, %[[PARITY]] {nvfp4.barrier = "empty"} : !llvm.ptr<3>, i32 -> i1
// ... arm full[s] (mbarrier s: 8 s) and issue the stage's four boxes ...
// CHECK:      %[[S1:[0-9]+]] = llvm.load %[[INDEX]] : !llvm.ptr -> i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: %{{.*}} = llvm.mul %[[S1]], %{{.*}} : i32
// CHECK:      nvvm.mbarrier.arrive.expect_tx
// CHECK:      nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {nvfp4.operand = "sfb"}
// ... and advance: the index wraps at 3 and the phase flips on the wrap.
// CHECK-NEXT: %[[I:.*]] = llvm.load %[[INDEX]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[NEXT:.*]] = llvm.add %[[I]], %[[C1]] : i32
// CHECK-NEXT: %[[SIZE:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[WRAP:.*]] = llvm.icmp "eq" %[[NEXT]], %[[SIZE]] : i32
// CHECK-NEXT: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[NI:.*]] = llvm.select %[[WRAP]], %[[C0]], %[[NEXT]] : i1, i32
// CHECK-NEXT: llvm.store %[[NI]], %[[INDEX]] : i32, !llvm.ptr
// CHECK-NEXT: %[[P:.*]] = llvm.load %[[PHASE:[0-9]+]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[C1B:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[FLIP:.*]] = llvm.xor %[[P]], %[[C1B]] : i32
// CHECK-NEXT: %[[NP:.*]] = llvm.select %[[WRAP]], %[[FLIP]], %[[P]] : i1, i32
// CHECK-NEXT: llvm.store %[[NP]], %[[PHASE]] : i32, !llvm.ptr
// Teardown: the drain waits on every slot's empty barrier in turn, advancing the same ring.
// CHECK:      nvvm.mbarrier.try_wait %{{.*}}, %[[DPARITY]] {nvfp4.barrier = "empty"} : !llvm.ptr<3>, i32 -> i1
// CHECK:      %{{.*}} = llvm.load %[[INDEX]] : !llvm.ptr -> i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %{{.*}} = llvm.add
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(3 : i32) : i32
//
// MMA issuer, after the stage's last MMA: commit empty[s] (first 3) and sfFree[p]
// (first 10), then the slot ring wraps at 2 and the stage ring at 3, each with its flip.
// CHECK:      nvvm.tcgen05.mma.block_scale
// CHECK:      %[[MS:.*]] = llvm.load %[[MINDEX:.*]] : !llvm.ptr -> i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(3 : i32) : i32
// CHECK:      nvvm.tcgen05.commit
// CHECK-NEXT: %[[SL:.*]] = llvm.load %[[SINDEX:.*]] : !llvm.ptr -> i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(10 : i32) : i32
// CHECK:      nvvm.tcgen05.commit
// CHECK-NEXT: %[[SI:.*]] = llvm.load %[[SINDEX]] : !llvm.ptr -> i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[SN:.*]] = llvm.add %[[SI]], %{{.*}} : i32
// CHECK-NEXT: %[[SSIZE:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[SW:.*]] = llvm.icmp "eq" %[[SN]], %[[SSIZE]] : i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %{{.*}} = llvm.select %[[SW]], %{{.*}}, %[[SN]] : i1, i32
// CHECK-NEXT: llvm.store %{{.*}}, %[[SINDEX]] : i32, !llvm.ptr
// CHECK-NEXT: %[[SP:.*]] = llvm.load %[[SPHASE:.*]] : !llvm.ptr -> i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[SF:.*]] = llvm.xor %[[SP]], %{{.*}} : i32
// CHECK-NEXT: %{{.*}} = llvm.select %[[SW]], %[[SF]], %[[SP]] : i1, i32
// CHECK-NEXT: llvm.store %{{.*}}, %[[SPHASE]] : i32, !llvm.ptr
// CHECK-NEXT: %[[MI:.*]] = llvm.load %[[MINDEX]] : !llvm.ptr -> i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[MN:.*]] = llvm.add %[[MI]], %{{.*}} : i32
// CHECK-NEXT: %[[MSIZE:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[MW:.*]] = llvm.icmp "eq" %[[MN]], %[[MSIZE]] : i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %{{.*}} = llvm.select %[[MW]], %{{.*}}, %[[MN]] : i1, i32
// CHECK-NEXT: llvm.store %{{.*}}, %[[MINDEX]] : i32, !llvm.ptr
// CHECK-NEXT: %[[MP:.*]] = llvm.load %[[MPHASE:.*]] : !llvm.ptr -> i32
// CHECK-NEXT: %{{.*}} = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[MF:.*]] = llvm.xor %[[MP]], %{{.*}} : i32
// CHECK-NEXT: %{{.*}} = llvm.select %[[MW]], %[[MF]], %[[MP]] : i1, i32
// CHECK-NEXT: llvm.store %{{.*}}, %[[MPHASE]] : i32, !llvm.ptr
