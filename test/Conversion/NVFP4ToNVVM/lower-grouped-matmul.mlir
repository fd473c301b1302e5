// Lowering of nvfp4.grouped_matmul to the sm_100a tcgen05/TMA kernel: the expected nvvm
// ops, their counts and attributes, and golden descriptor constants per tile_n.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s

// One group, default tile_n = 128: 6 stages, 2 accumulator buffers (metadata bytes 60, 76),
// parameter block 64 + 544 = 608 bytes.
// CHECK-LABEL: func.func @one_group
// CHECK-SAME: nvfp4.kernel = @k1_module::@k1
// CHECK-NOT: nvfp4.grouped_matmul
// CHECK-LABEL: gpu.module @k1_module [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">]
// Metadata: magic "NVF4", ABI 1, 256-byte record, sm 100, flags 0, block 192 x 1 x 1.
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E56463401000000000100006400000000000000C0000000
// CHECK-SAME: {addr_space = 1 : i32, alignment = 8 : i64} : !llvm.array<256 x i8>
// CHECK: llvm.mlir.global external @nvfp4_dyn_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.func @k1(%[[P:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<608 x i8>, nvvm.grid_constant})
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 192, 1, 1>}
// CHECK-COUNT-16: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: %[[COLS:.*]] = llvm.mlir.constant(512 : i32) : i32
// CHECK-NEXT: nvvm.tcgen05.alloc %{{.*}}, %[[COLS]] : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// Producer: one expect_tx of 16384 + 16384 + 2048 + 2048 bytes, four TMA boxes.
// CHECK: nvvm.mbarrier.try_wait
// CHECK: %[[TX:.*]] = llvm.mlir.constant(36864 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[TX]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {nvfp4.operand = "a"} : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {nvfp4.operand = "b"} : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {nvfp4.operand = "sfa"} : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {nvfp4.operand = "sfb"} : !llvm.ptr<7>, !llvm.ptr
// MMA warp: SF copy descriptor constant 0x0000400800000000, operand descriptor constant
// 0x4000404000000000, instruction descriptor 0x08200480 (hardware-verified values).
// CHECK: llvm.mlir.constant(70403103916032 : i64) : i64
// CHECK: nvvm.tcgen05.cp %{{.*}}, %{{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK: llvm.mlir.constant(4611756662049472512 : i64) : i64
// CHECK: llvm.mlir.constant(136316032 : i32) : i32
// CHECK: nvvm.tcgen05.mma.block_scale {{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
// Epilogue: ld 32x32b.x32, wait::ld, fp16 vector stores, arrive on accEmpty.
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <load>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
// Teardown (the warp sync before the final CTA barrier is checked by the SYNC count).
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %{{.*}} : !llvm.ptr<6>, i32
//
// Op counts of the one-group kernel (blocks print out of source order, so count them):
// 4 TMA boxes, 4 x (cp SFA + cp SFB), 4 MMAs, 2 commits (stage, accumulator), 1 ld,
// 4 vector stores + 32 predicated scalar stores, one alloc/relinquish/dealloc.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '1,/^\/\/ -----/p' > %t.one
// RUN: grep -c "nvvm.cp.async.bulk.tensor" %t.one | FileCheck %s --check-prefix=TMA
// RUN: grep -c "nvvm.tcgen05.cp " %t.one | FileCheck %s --check-prefix=CP
// RUN: grep -c "nvvm.tcgen05.mma.block_scale" %t.one | FileCheck %s --check-prefix=MMA
// RUN: grep -c "nvvm.tcgen05.commit" %t.one | FileCheck %s --check-prefix=COMMIT
// RUN: grep -c "nvvm.tcgen05.ld " %t.one | FileCheck %s --check-prefix=LD
// RUN: grep -c "vector<8xf16>, !llvm.ptr<1>" %t.one | FileCheck %s --check-prefix=VST
// RUN: grep -c "nvvm.tcgen05.alloc\|nvvm.tcgen05.dealloc\|nvvm.tcgen05.relinquish" %t.one | FileCheck %s --check-prefix=TMEM
// TMA: {{^}}4{{$}}
// CP: {{^}}8{{$}}
// MMA: {{^}}4{{$}}
// COMMIT: {{^}}2{{$}}
// LD: {{^}}1{{$}}
// VST: {{^}}4{{$}}
// RUN: grep -A1 "nvvm.bar.warp.sync" %t.one | grep -c "nvvm.barrier0" | FileCheck %s --check-prefix=SYNC
// TMEM: {{^}}3{{$}}
// SYNC: {{^}}1{{$}}
func.func @one_group(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                     %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                     %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_100a", kernel_name = "k1"}
  return
}

// -----

// tile_n = 64, 2 groups: 8 stages, instruction descriptor 0x08100480, parameter block
// 64 + 2 * 544 = 1152 bytes, expect_tx 16384 + 8192 + 2048 + 2048.
// CHECK-LABEL: gpu.module @k64_module
// CHECK: llvm.func @k64(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<1152 x i8>, nvvm.grid_constant})
// CHECK-COUNT-20: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: llvm.mlir.constant(28672 : i32) : i32
// CHECK: llvm.mlir.constant(135267456 : i32) : i32
// CHECK-COUNT-4: nvvm.tcgen05.mma.block_scale
func.func @two_groups_n64(%a0: memref<?x256xf4E2M1FN>, %a1: memref<?x256xf4E2M1FN>,
                          %b0: memref<?x256xf4E2M1FN>, %b1: memref<?x256xf4E2M1FN>,
                          %sa0: memref<?x4x32x4x4xf8E4M3FN>, %sa1: memref<?x4x32x4x4xf8E4M3FN>,
                          %sb0: memref<?x4x32x4x4xf8E4M3FN>, %sb1: memref<?x4x32x4x4xf8E4M3FN>,
                          %c0: memref<?x?xf16>, %c1: memref<?x?xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<?x256xf4E2M1FN>, memref<?x256xf4E2M1FN>)
      b(%b0, %b1 : memref<?x256xf4E2M1FN>, memref<?x256xf4E2M1FN>)
      sfa(%sa0, %sa1 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x4x32x4x4xf8E4M3FN>)
      sfb(%sb0, %sb1 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x4x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x?xf16>, memref<?x?xf16>)
      {target = "sm_100a", tile_n = 64, kernel_name = "k64"}
  return
}

// -----

// tile_n = 192: two SFB atoms per K block (2 x 4 cp per stage for SFB) and two accumulator
// buffers (384 columns), which leaves room for 2 scale-factor slots of 48 columns for the
// 4 stages: a scale-factor ring with sfFree barriers. 2 * 4 + 2 * 2 + 2 = 14 mbarriers;
// per stage the MMA warp waits sfFree, then commits empty[s] and sfFree[p].
// Instruction descriptor 0x08300480.
// CHECK-LABEL: gpu.module @k192_module
// CHECK-COUNT-14: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: llvm.mlir.constant(137364608 : i32) : i32
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/gpu.module @k192_module/,/gpu.module @k256_module/p' > %t.n192
// RUN: grep -c "nvvm.tcgen05.commit" %t.n192 | FileCheck %s --check-prefix=COMMIT192
// RUN: grep -c "nvvm.tcgen05.cp " %t.n192 | FileCheck %s --check-prefix=CP192
// RUN: grep -c "nvvm.tcgen05.mma.block_scale" %t.n192 | FileCheck %s --check-prefix=MMA
// COMMIT192: {{^}}3{{$}}
// CP192: {{^}}12{{$}}
func.func @n192(%a: memref<?x512xf4E2M1FN>, %b: memref<384x512xf4E2M1FN>,
                %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<3x8x32x4x4xf8E4M3FN>,
                %c: memref<?x384xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<384x512xf4E2M1FN>)
      sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<3x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x384xf16>) {target = "sm_100a", tile_n = 192, kernel_name = "k192"}
  return
}

// -----

// tile_n = 256 with an explicit stage count: one accumulator buffer (two would fill all
// 512 TMEM columns), one scale-factor slot per stage; instruction descriptor 0x08400480.
// CHECK-LABEL: gpu.module @k256_module
// CHECK-COUNT-8: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: llvm.mlir.constant(138413184 : i32) : i32
func.func @n256(%a: memref<?x512xf4E2M1FN>, %b: memref<512x512xf4E2M1FN>,
                %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<4x8x32x4x4xf8E4M3FN>,
                %c: memref<?x512xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<512x512xf4E2M1FN>)
      sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<4x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x512xf16>) {target = "sm_100a", tile_n = 256, stages = 3, kernel_name = "k256"}
  return
}
