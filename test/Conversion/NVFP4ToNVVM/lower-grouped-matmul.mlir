// Lowering of nvfp4.grouped_matmul to the sm_100a tcgen05/TMA kernel family: the module
// skeleton (metadata table, one kernel per variant), and per variant the expected nvvm ops,
// their counts and attributes, and golden descriptor constants. Each case but the first
// compiles a single variant so that the op counts belong to one kernel.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s

// The default family of one group: ab_n128, swap_n128, swap_n256 in one module, a
// 3 x 256-byte metadata table (ABI 6), a 64-byte parameter block (the header; the group
// table lives in device memory at its HDR_TABLE, byte 32, which the kernel loads and
// reads through a generic pointer). Each kernel carries its plan (nvfp4.plan: the role map, shared-memory regions, mbarriers, TMEM) for
// the passes after the lowering.
// CHECK-LABEL: func.func @default_family
// CHECK-SAME: nvfp4.kernel = @k1_module
// CHECK-NOT: nvfp4.grouped_matmul
// CHECK-LABEL: gpu.module @k1_module [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">]
// Record 0: magic "NVF4", ABI 6, 256-byte record, sm 100, flags 0x10 (NVFP4_META_FLAG_PDL),
// block 192 x 1 x 1.
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E56463406000000000100006400000010000000C0000000
// CHECK-SAME: : tensor<768xi8>) {addr_space = 1 : i32, alignment = 8 : i64} : !llvm.array<768 x i8>
// CHECK: llvm.mlir.global external @nvfp4_dyn_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.func @k1_ab_n128(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<64 x i8>, nvvm.grid_constant})
// CHECK-SAME: attributes {nvfp4.plan = ["variant ab_n128", "threads 192", "cluster 1", "dyn_smem {{[0-9]+}}",
// CHECK-SAME: "role 0 3 epilogue", "role 4 4 producer", "role 5 5 mma", "smem 0 {{[0-9]+}} 5 {{[0-9]+}} stage",
// CHECK-SAME: "stagepart 0 16384 M-role tile", "stagepart 16384 16384 N-role tile",
// CHECK-SAME: "barrier {{[0-9]+}} 5 1 full", "barrier {{[0-9]+}} 5 1 empty",
// CHECK-SAME: "barrier {{[0-9]+}} 2 128 accEmpty", "tmem 0 256 2 128 accumulator", "tmem 256 {{[0-9]+}} {{[0-9]+}} {{[0-9]+}} scale factors"],
// CHECK-SAME: nvvm.kernel, nvvm.minctasm = 1 : i32, nvvm.reqntid = array<i32: 192, 1, 1>}
// CHECK: llvm.func @k1_swap_n128(
// CHECK: llvm.func @k1_swap_n256(
func.func @default_family(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                          %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                          %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_100a", kernel_name = "k1"}
  return
}

// -----

// ab_n128, TMA-store epilogue: 5 stages, 2 accumulators: 5 + 5 + 2 + 2 = 14 mbarriers.
// CHECK-LABEL: llvm.func @k2_ab_n128(
// CHECK-COUNT-14: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: %[[COLS:.*]] = llvm.mlir.constant(512 : i32) : i32
// CHECK-NEXT: nvvm.tcgen05.alloc %{{.*}}, %[[COLS]] : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// Producer: tensor maps prefetched; expect_tx 16384 + 16384 + 2048 + 2048 bytes; four TMA
// boxes with L2 policies: tokens (A, SFA) evict-last, weights (B, SFB) evict-first.
// CHECK: nvvm.prefetch tensormap, %{{.*}} : !llvm.ptr
// CHECK: %[[TX:.*]] = llvm.mlir.constant(36864 : i32) : i32
// CHECK-NEXT: llvm.mlir.constant(1508705875169116160 : i64) : i64
// CHECK-NEXT: llvm.mlir.constant(1364590687093260288 : i64) : i64
// CHECK: nvvm.mbarrier.try_wait
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[TX]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} l2_cache_hint = %{{.*}} {nvfp4.operand = "a"} : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} l2_cache_hint = %{{.*}} {nvfp4.operand = "b"} : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} l2_cache_hint = %{{.*}} {nvfp4.operand = "sfa"} : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} l2_cache_hint = %{{.*}} {nvfp4.operand = "sfb"} : !llvm.ptr<7>, !llvm.ptr
// The ring advance: index + 1 wraps to 0 at the ring size, and the phase flips then.
// CHECK: %[[S:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT: %[[WRAP:.*]] = llvm.icmp "eq" %{{.*}}, %[[S]] : i32
// CHECK: llvm.select %[[WRAP]]
// CHECK: llvm.xor
// CHECK: llvm.select %[[WRAP]]
// MMA warp: instruction descriptor 0x08200480 (M = N = 128), SF copy descriptor constant
// 0x0000400800000000, operand descriptor constant 0x4000404000000000 (the hardware-verified
// values, from the encoders).
// CHECK: llvm.mlir.constant(136316032 : i32) : i32
// CHECK: llvm.mlir.constant(70403103916032 : i64) : i64
// CHECK: nvvm.tcgen05.cp %{{.*}}, %{{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK: llvm.mlir.constant(4611756662049472512 : i64) : i64
// CHECK: nvvm.tcgen05.mma.block_scale {{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
// Epilogue: two tcgen05.ld before one wait::ld; the loaded registers pass through a
// side-effecting inline-asm register fence; the accumulator is released (before the
// stores) once its last load completed; a TMA store per 64-column box.
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <load>
// CHECK: llvm.inline_asm has_side_effects "", "=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31"
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] {nvfp4.operand = "c"} : !llvm.ptr, <3>
// CHECK: nvvm.cp.async.bulk.commit.group
// Teardown: the epilogue's stores have completed, then the TMEM is freed.
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %{{.*}} : !llvm.ptr<6>, i32
//
// Op counts of the kernel (blocks print out of source order, so count them): 4 TMA loads,
// 2 TMA stores (128 columns = 2 boxes), 4 x (cp SFA + cp SFB), 4 MMAs, 2 commits (stage,
// accumulator), 4 loads / 2 waits / 4 register fences, 16 staging stores of 16 bytes.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @k2_ab_n128/,/^\/\/ -----/p' > %t.ab
// RUN: grep -c "nvvm.cp.async.bulk.tensor.shared.cluster.global" %t.ab | FileCheck %s --check-prefix=FOUR
// RUN: grep -c "nvvm.cp.async.bulk.tensor.global.shared.cta" %t.ab | FileCheck %s --check-prefix=TWO
// RUN: grep -c "nvvm.tcgen05.cp " %t.ab | FileCheck %s --check-prefix=EIGHT
// RUN: grep -c "nvvm.tcgen05.mma.block_scale" %t.ab | FileCheck %s --check-prefix=FOUR
// RUN: grep -c "nvvm.tcgen05.commit" %t.ab | FileCheck %s --check-prefix=TWO
// RUN: grep -c "nvvm.tcgen05.ld " %t.ab | FileCheck %s --check-prefix=FOUR
// RUN: grep -c "nvvm.tcgen05.wait" %t.ab | FileCheck %s --check-prefix=TWO
// RUN: grep -c "llvm.inline_asm" %t.ab | FileCheck %s --check-prefix=FOUR
// RUN: grep -c "vector<8xf16>, !llvm.ptr<3>" %t.ab | FileCheck %s --check-prefix=SIXTEEN
// RUN: grep -c "nvvm.tcgen05.alloc\|nvvm.tcgen05.dealloc\|nvvm.tcgen05.relinquish" %t.ab | FileCheck %s --check-prefix=THREE
// RUN: grep -A1 "nvvm.bar.warp.sync" %t.ab | grep -c "nvvm.barrier0" | FileCheck %s --check-prefix=ONE
// ONE: {{^}}1{{$}}
// TWO: {{^}}2{{$}}
// THREE: {{^}}3{{$}}
// FOUR: {{^}}4{{$}}
// EIGHT: {{^}}8{{$}}
// SIXTEEN: {{^}}16{{$}}
func.func @ab_tma_store(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                        %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                        %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_100a", kernel_name = "k2", variants = ["ab_n128"]}
  return
}

// -----

// ab_n64_st (direct stores), 2 groups: no staging buffers, so 8 stages (8 + 8 + 2 + 2 = 20
// mbarriers); instruction descriptor 0x08100480; parameter block 64 bytes whatever the
// group count (ABI 6); expect_tx 16384 + 8192 + 2048 + 2048; 16-byte global stores, no TMA store.
// CHECK-LABEL: llvm.func @k64_ab_n64_st(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<64 x i8>, nvvm.grid_constant})
// CHECK-COUNT-20: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: llvm.mlir.constant(28672 : i32) : i32
// CHECK: llvm.mlir.constant(135267456 : i32) : i32
// CHECK-COUNT-4: nvvm.tcgen05.mma.block_scale
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<1>
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
      {target = "sm_100a", kernel_name = "k64", variants = ["ab_n64_st"]}
  return
}

// -----

// ab_n192: two SFB atoms per K block (2 x 4 cp per stage for SFB) and two accumulator
// buffers (384 columns), which leaves room for 2 scale-factor slots of 48 columns for the
// 4 stages: a scale-factor ring with sfFree barriers. 4 + 4 + 2 + 2 + 2 = 14 mbarriers;
// per stage the MMA warp waits sfFree, then commits empty[s] and sfFree[p].
// Instruction descriptor 0x08300480; 3 boxes of 64 columns per accumulator.
// CHECK-LABEL: llvm.func @k192_ab_n192(
// CHECK-COUNT-14: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: llvm.mlir.constant(137364608 : i32) : i32
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @k192_ab_n192/,/^\/\/ -----/p' > %t.n192
// RUN: grep -c "nvvm.tcgen05.commit" %t.n192 | FileCheck %s --check-prefix=THREE
// RUN: grep -c "nvvm.tcgen05.cp " %t.n192 | FileCheck %s --check-prefix=TWELVE
// RUN: grep -c "nvvm.cp.async.bulk.tensor.global.shared.cta" %t.n192 | FileCheck %s --check-prefix=THREE
// TWELVE: {{^}}12{{$}}
func.func @n192(%a: memref<?x512xf4E2M1FN>, %b: memref<384x512xf4E2M1FN>,
                %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<3x8x32x4x4xf8E4M3FN>,
                %c: memref<?x384xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<384x512xf4E2M1FN>)
      sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<3x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x384xf16>) {target = "sm_100a", kernel_name = "k192", variants = ["ab_n192"]}
  return
}

// -----

// ab_n256 with an explicit stage count: one accumulator buffer (two would fill all 512
// TMEM columns), one scale-factor slot per stage; instruction descriptor 0x08400480.
// CHECK-LABEL: llvm.func @k256_ab_n256(
// CHECK-COUNT-8: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: llvm.mlir.constant(138413184 : i32) : i32
func.func @n256(%a: memref<?x512xf4E2M1FN>, %b: memref<512x512xf4E2M1FN>,
                %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<4x8x32x4x4xf8E4M3FN>,
                %c: memref<?x512xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<512x512xf4E2M1FN>)
      sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<4x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x512xf16>) {target = "sm_100a", tile_n = 256, stages = 3, kernel_name = "k256", variants = ["ab_n256"]}
  return
}

// -----

// swap_n256: B feeds the MMA's M side, A its N side. The group's N (tile_n, record offset
// 32) is read at run time: the instruction descriptor is the encoder's M = 128 constant
// 0x08000480 with ((tile_n >> 3) & 0x3F) << 17 ORed in; expect_tx adds 128 bytes per N
// row to the fixed 16384 + 2048 + 4096. The token tile of a group (A) is loaded with the
// A map, the weights (B) with the B map, SFA spans two atom rows.
// CHECK-LABEL: llvm.func @ksw_swap_n256(
// CHECK: %[[TN:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: llvm.mlir.constant(22528 : i32) : i32
// CHECK: %[[SHIFT:.*]] = llvm.mlir.constant(17 : i32) : i32
// CHECK-NEXT: %[[NF:.*]] = llvm.shl %{{.*}}, %[[SHIFT]] : i32
// CHECK-NEXT: %[[BASE:.*]] = llvm.mlir.constant(134218880 : i32) : i32
// CHECK-NEXT: llvm.or %[[BASE]], %[[NF]] : i32
// CHECK: nvvm.tcgen05.mma.block_scale
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @ksw_swap_n256/,/^\/\/ -----/p' > %t.swap
// RUN: grep -c "nvvm.tcgen05.cp " %t.swap | FileCheck %s --check-prefix=TWELVE
// RUN: grep -c "nvvm.tcgen05.ld " %t.swap | FileCheck %s --check-prefix=TWO
// RUN: grep -c "nvvm.cp.async.bulk.tensor.global.shared.cta" %t.swap | FileCheck %s --check-prefix=TWO
func.func @swap(%a: memref<?x512xf4E2M1FN>, %b: memref<512x512xf4E2M1FN>,
                %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<4x8x32x4x4xf8E4M3FN>,
                %c: memref<?x512xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<512x512xf4E2M1FN>)
      sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<4x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x512xf16>) {target = "sm_100a", kernel_name = "ksw", variants = ["swap_n256"]}
  return
}

// -----

// swap2_n256: a CTA pair (cluster 2 x 1 x 1). Every tcgen05 op carries cta_group::2; the
// MMA is M = 256 (descriptor base 0x10000480); the leader's commits are multicast to both
// CTAs (mask 3); no peerFull barriers (5 + 5 + 1 + 1 = 12); the stages come in as CUTLASS's
// 2-SM collective loads them: the leader alone arms full[s], with twice this CTA's bytes,
// every load is .cta_group::2 on the leader's barrier (the address's peer bit, bit 24,
// cleared: 0xFEFFFFFF = -16777217), and the N role's scale factors (swap-AB: SFA) are loaded
// by the leader alone, multicast to both CTAs (mask 3); the peer's epilogue releases the
// leader's accumulator through mapa + a cluster-scope arrive; cluster barriers after the
// barrier init and before the TMEM is freed.
// CHECK-LABEL: llvm.func @kp_swap2_n256(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank
// CHECK-COUNT-12: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq" %[[RANK]], %{{.*}} : i32
// CHECK-NEXT: %[[MC:.*]] = llvm.mlir.constant(3 : i16) : i16
// CHECK: llvm.cond_br %[[LEADER]], ^[[ARM:bb[0-9]+]], ^bb
// CHECK: ^[[ARM]]:
// CHECK-NEXT: %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[BOTH:.*]] = llvm.mul %{{.*}}, %[[C2]] : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %[[BOTH]] : !llvm.ptr<3>, i32
// CHECK: %[[PEERBIT:.*]] = llvm.mlir.constant(-16777217 : i32) : i32
// CHECK-NEXT: %[[F:.*]] = llvm.ptrtoint %[[FULL]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[L:.*]] = llvm.and %[[F]], %[[PEERBIT]] : i32
// CHECK-NEXT: %[[BAR:.*]] = llvm.inttoptr %[[L]] : i32 to !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], box[%{{.*}}, %{{.*}}] l2_cache_hint = %{{.*}} {group = #nvvm.cta_group<cta_2>, nvfp4.operand = "b"} : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], box[%{{.*}}, %{{.*}}] l2_cache_hint = %{{.*}} {group = #nvvm.cta_group<cta_2>, nvfp4.operand = "a"} : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], box[%{{.*}}, %{{.*}}] l2_cache_hint = %{{.*}} {group = #nvvm.cta_group<cta_2>, nvfp4.operand = "sfb"} : !llvm.ptr<7>, !llvm.ptr
// CHECK: llvm.cond_br %[[LEADER]], ^[[MCAST:bb[0-9]+]], ^bb
// CHECK: ^[[MCAST]]:
// CHECK-NEXT: llvm.addrspacecast
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], box[%{{.*}}, %{{.*}}] multicast_mask = %[[MC]] l2_cache_hint = %{{.*}} {group = #nvvm.cta_group<cta_2>, nvfp4.operand = "sfa"} : !llvm.ptr<7>, !llvm.ptr
// CHECK: llvm.mlir.constant(268436608 : i32) : i32
// CHECK: nvvm.tcgen05.cp %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK: nvvm.tcgen05.mma.block_scale {{.*}} ctaGroup = #nvvm.cta_group<cta_2>
// CHECK: %[[MASK:.*]] = llvm.mlir.constant(3 : i16) : i16
// CHECK-NEXT: nvvm.tcgen05.commit %{{.*}}, multicast_mask = %[[MASK]] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
// The peer's MMA warp has no mainloop: the kernel's one remote arrive is the epilogue's.
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// CHECK-NOT: nvvm.mapa
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
func.func @pair(%a: memref<?x512xf4E2M1FN>, %b: memref<512x512xf4E2M1FN>,
                %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<4x8x32x4x4xf8E4M3FN>,
                %c: memref<?x512xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<512x512xf4E2M1FN>)
      sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<4x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x512xf16>) {target = "sm_100a", kernel_name = "kp", variants = ["swap2_n256"]}
  return
}
