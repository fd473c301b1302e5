// The sm_100a stream-K variants (opt-in "_sk", docs/kernel-sm100a.md, "Stream-K") lowered:
// the metadata record, the share computed by every role, the MMA issuer's first MMA of a
// share, and the epilogue's split-tile protocol (Generator/StreamK.h).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s

// swap_n128_sk on a decode shape (N = 4096, K = 7168: 28 stages per tile): a workspace of
// 2 x (128 + 128 x 128 x 4) = 131 328 bytes per CTA (0x00020100, record offset 80) and variant
// flags DYNAMIC_N | STREAM_K (5, offset 192). Every role computes its share from the grid
// (nctaid.x) and the group records (64-bit divisions). The MMA issuer's first MMA of a share
// ignores the accumulator (enable-input-d = stage != kBegin; run on the CPU target by
// test/CpuSim/stream-k-sm100a.test). The epilogue, once per tile:
// the head's acquire load of its counter, a bar.red.or (every other share in?); else the
// share's fp32 partial sums stored from the accumulator (16 float4 stores per 64 columns),
// the stage count added (atom.acq_rel.gpu on the same counter), a second bar.red.or (this
// add completed the tile); a CTA that does not store the tile releases the accumulator
// (mbarrier.arrive on accEmpty); the one that does returns the counter to 0 (release store
// on the same counter) and, after each load of accumulator columns, adds the other shares'
// sums (volatile float4 loads) before the staging stores and the TMA store of C. Nothing
// spins on the counter.
// CHECK-LABEL: gpu.module @d1_module
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x{{([0-9A-F]{160})}}00010200{{([0-9A-F]{216})}}05000000
// CHECK-LABEL: llvm.func @d1_swap_n128_sk(
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: llvm.udiv %{{.*}} : i64
// CHECK: nvvm.tcgen05.mma.block_scale
// CHECK: "ld.acquire.gpu.global.b32 $0, [$1];", "=r,l,~{memory}" %[[COUNTER:[0-9]+]] :
// CHECK: bar.red.or.pred q, $1, $2, p;
// CHECK: nvvm.tcgen05.ld
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: nvvm.barrier id
// CHECK: "atom.acq_rel.gpu.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}" %[[COUNTER]],
// CHECK: bar.red.or.pred q, $1, $2, p;
// CHECK: nvvm.mbarrier.arrive
// CHECK: "fence.acq_rel.gpu;\0A\09st.relaxed.gpu.global.b32 [$0], $1;", "l,r,~{memory}" %[[COUNTER]],
// CHECK: nvvm.tcgen05.ld
// CHECK: llvm.load volatile %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.fadd
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT: atom.acq_rel
func.func @sm100_decode_sk(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                           %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                           %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_100a", kernel_name = "d1", variants = ["swap_n128_sk"]}
  return
}

// -----

// ab_n64_sk: 2 x (128 + 128 x 64 x 4) = 65 792 bytes per CTA (0x00010100), variant flags
// STREAM_K alone (4); the same protocol, 16 float4 stores of partial sums per 64 columns.
// CHECK-LABEL: gpu.module @d2_module
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x{{([0-9A-F]{160})}}00010100{{([0-9A-F]{216})}}04000000
// CHECK-LABEL: llvm.func @d2_ab_n64_sk(
// CHECK: "ld.acquire.gpu.global.b32 $0, [$1];", "=r,l,~{memory}" %[[COUNTER2:[0-9]+]] :
// CHECK-COUNT-16: vector<4xi32>, !llvm.ptr<1>
// CHECK: "atom.acq_rel.gpu.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}" %[[COUNTER2]],
// CHECK: "fence.acq_rel.gpu;\0A\09st.relaxed.gpu.global.b32 [$0], $1;", "l,r,~{memory}" %[[COUNTER2]],
// CHECK: llvm.load volatile %{{.*}} : !llvm.ptr<1> -> vector<4xf32>
func.func @sm100_ab_sk(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                       %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                       %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_100a", kernel_name = "d2", variants = ["ab_n64_sk"]}
  return
}
