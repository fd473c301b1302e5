// Lowering of nvfp4.grouped_matmul with target = "sm_90a": the native Hopper kernel family
// (docs/kernel-sm90a.md). The module skeleton (sm_90a target, metadata records, the E4M3
// scale table), then per variant the warpgroup roles, the TMA producer, the exact FP4 x E4M3
// -> BF16 decode constants, the wgmma chain and the stmatrix / TMA-store epilogue.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s

// The default sm_90a family: swap_n128, swap_n64, swap_n192, then swap_n128_m192,
// swap_n64_m192 and swap_n128_m192_sk, 6 x 256-byte records.
// Record 0: "NVF4", ABI 6, 256 bytes, sm 90, flags 0x10 (NVFP4_META_FLAG_PDL; native: no
// emulation workspace),
// block 640 x 1 x 1 (five warpgroups), cluster 1 x 1 x 1; its cost model: decode rows 70
// (0x46), token share 900 per mille (0x384). The plan: warpgroup 0 produces, 1-2 consume,
// 3-4 decode tokens (swap_n192: one decoder warpgroup; swap_n128_m192: three consumers).
// CHECK-LABEL: func.func @sm90_default
// CHECK-SAME: nvfp4.kernel = @h0_module
// CHECK-NOT: nvfp4.grouped_matmul
// CHECK-LABEL: gpu.module @h0_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx88">]
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E56463406000000000100005A000000100000008002000001000000010000000100000001000000010000
// CHECK-SAME: 00000000000000003000000066030000736D5F3930610000
// CHECK-SAME: tensor<1536xi8>
// CHECK: llvm.func @h0_swap_n128(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<64 x i8>, nvvm.grid_constant})
// CHECK-SAME: attributes {nvfp4.plan = ["variant swap_n128", "threads 640", "cluster 1", "dyn_smem {{[0-9]+}}",
// CHECK-SAME: "role 0 3 producer", "role 4 11 consumer", "role 12 19 decoder", "smem 0
// CHECK-SAME: nvvm.kernel, nvvm.minctasm = 1 : i32, nvvm.reqntid = array<i32: 640, 1, 1>}
// CHECK: llvm.func @h0_swap_n64(
// CHECK: llvm.func @h0_swap_n192(
// CHECK-SAME: "role 0 3 producer", "role 4 11 consumer", "role 12 15 decoder"
// CHECK-SAME: nvvm.reqntid = array<i32: 512, 1, 1>
// CHECK: llvm.func @h0_swap_n128_m192(
// CHECK-SAME: "variant swap_n128_m192", "threads 640"
// CHECK-SAME: "role 0 3 producer", "role 4 15 consumer", "role 16 19 decoder"
// CHECK-SAME: nvvm.reqntid = array<i32: 640, 1, 1>
// CHECK: llvm.func @h0_swap_n64_m192(
// CHECK-SAME: nvvm.reqntid = array<i32: 640, 1, 1>
// CHECK: llvm.func @h0_swap_n128_m192_sk(
// CHECK-SAME: nvvm.reqntid = array<i32: 640, 1, 1>
func.func @sm90_default(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                        %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                        %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_90a", kernel_name = "h0"}
  return
}

// -----

// swap_n64: 6 stages (full + empty: 12 mbarriers) and 3 decoded buffers (decodedFull,
// decodedEmpty: 6 mbarriers); the E4M3 scale table computed into
// shared memory before the CTA barrier (subnormal codes converted, times 2^-9 and 2^119); warpgroup 0 gives registers back (40), warpgroups 1-2
// take them (160), warpgroups 3-4 (the token decoders) give them back (56).
// CHECK-LABEL: llvm.func @h1_swap_n64(
// CHECK-COUNT-18: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK-DAG: llvm.uitofp %{{.*}} : i32 to f32
// CHECK-DAG: llvm.mlir.constant(0.001953125 : f32) : f32
// CHECK-DAG: llvm.mlir.constant(6.64613997E+35 : f32) : f32
// CHECK: nvvm.barrier0
// CHECK: nvvm.setmaxregister  decrease 40
// The producer: four boxes per stage, expect_tx 16384 + 2048 + 4096 + 128 x the group's
// token rows; weights (B, SFB) evict-first, tokens (A, SFA) evict-last.
// CHECK-DAG: llvm.mlir.constant(22528 : i32) : i32
// CHECK-DAG: nvvm.mbarrier.arrive.expect_tx
// CHECK-DAG: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {nvfp4.operand = "b"} : !llvm.ptr<7>, !llvm.ptr
// CHECK-DAG: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {nvfp4.operand = "a"} : !llvm.ptr<7>, !llvm.ptr
// CHECK-DAG: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {nvfp4.operand = "sfb"} : !llvm.ptr<7>, !llvm.ptr
// CHECK-DAG: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {nvfp4.operand = "sfa"} : !llvm.ptr<7>, !llvm.ptr
// CHECK-DAG: llvm.mlir.constant(1508705875169116160 : i64) : i64
// CHECK-DAG: llvm.mlir.constant(1364590687093260288 : i64) : i64
// CHECK: nvvm.setmaxregister  increase 160
// CHECK: nvvm.setmaxregister  decrease 56
// The decode (DescriptorsSm90.h): pair masks 0x000F000F / 0x00F000F0, multipliers 0x1040 /
// 0x104, the sign-exponent-mantissa mask 0x81C081C0, a bf16x2 multiply by the scale.
// CHECK-DAG: llvm.mlir.constant(983055 : i32) : i32
// CHECK-DAG: llvm.mlir.constant(15728880 : i32) : i32
// CHECK-DAG: llvm.mlir.constant(4160 : i32) : i32
// CHECK-DAG: llvm.mlir.constant(260 : i32) : i32
// CHECK-DAG: llvm.mlir.constant(-2118090304 : i32) : i32
// CHECK-DAG: llvm.fmul %{{.*}}, %{{.*}} : vector<2xbf16>
// The wgmma B descriptor constant 0x4000004000000000 (K-major, 128-B swizzle, SBO 1024), one
// copy of the chunk loop per token width 16..64, four register-A wgmmas each, depth 0 (every
// chunk's wgmmas retired before the next chunk's decode rewrites the A registers);
// stmatrix.trans into staging; TMA stores of C.

// CHECK-DAG: llvm.mlir.constant(4611686293305294848 : i64) : i64
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$16, $17, $18, $19}, $20, p, 1, 1, 0;
// CHECK-DAG: nvvm.wgmma.fence.aligned
// CHECK-DAG: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-DAG: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-DAG: nvvm.stmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-DAG: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}} {nvfp4.operand = "c"}
// The token decoder waits on decodedEmpty before it writes a buffer, the consumers on
// decodedFull before their wgmmas.
// CHECK-DAG: nvvm.mbarrier.try_wait {{.*}} {nvfp4.barrier = "decodedEmpty"}
// CHECK-DAG: nvvm.mbarrier.try_wait {{.*}} {nvfp4.barrier = "decodedFull"}
func.func @sm90_n64(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                    %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                    %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_90a", kernel_name = "h1", variants = ["swap_n64"]}
  return
}

// -----

// swap_n128: 3 stages (6 mbarriers) and 4 decoded buffers (8), widths 16..128: the widest chunk loop runs
// m64n128k16 with 64 accumulators, and the epilogue stores 8 stmatrix.x4 per warp. Its chunk
// loop is unrolled by a stage: the widest tile body holds 4 chunks x 4 wgmmas (swap_n64's
// loop, one chunk per trip, 4).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s --check-prefix=UNROLL
// UNROLL-LABEL: llvm.func @h1_swap_n64(
// UNROLL-COUNT-4: m64n64k16.f32
// UNROLL-NOT: m64n64k16.f32
// UNROLL-LABEL: llvm.func @h2_swap_n128(
// UNROLL-COUNT-16: m64n128k16.f32
// UNROLL-NOT: m64n128k16.f32
// UNROLL-LABEL: llvm.func @h3_swap_n192(
// UNROLL-LABEL: llvm.func @h4_swap_n128_m192(
// UNROLL-COUNT-4: m64n128k16.f32
// UNROLL-NOT: m64n128k16.f32
// CHECK-LABEL: llvm.func @h2_swap_n128(
// CHECK-COUNT-14: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n16k16
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, $39, $40, $41, $42, $43, $44, $45, $46, $47, $48, $49, $50, $51, $52, $53, $54, $55, $56, $57, $58, $59, $60, $61, $62, $63}, {$128, $129, $130, $131}, $132, p, 1, 1, 0;
// Nothing wider than the plan's tile_n.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s --check-prefix=WIDTHS
// WIDTHS-LABEL: llvm.func @h2_swap_n128(
// WIDTHS-NOT: m64n{{(14|15|16|17|18|19|2[0-9])[0-9]}}k16
// WIDTHS-LABEL: llvm.func @h3_swap_n192(
// WIDTHS: m64n192k16
// WIDTHS-NOT: m64n{{(19[3-9]|2[0-9][0-9])}}k16
// WIDTHS-LABEL: llvm.func @h4_swap_n128_m192(
// WIDTHS-NOT: m64n{{(14|15|16|17|18|19|2[0-9])[0-9]}}k16
func.func @sm90_n128(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                     %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                     %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_90a", kernel_name = "h2", variants = ["swap_n128"]}
  return
}

// -----

// swap_n192: a wgmma m64n192k16 needs 126 registers in the kernel's entry budget, so one
// token-decoder warpgroup (512 threads of 128 registers): producer 24, consumers 208, decoder
// 72. 2 stages (4 mbarriers) and 3 decoded buffers (6); a 192-row token tile spans up to 3
// scale-factor atom rows: expect_tx 16384 + 2048 + 3 x 2048 + 128 x the token rows.
// CHECK-LABEL: llvm.func @h3_swap_n192(
// CHECK-SAME: nvvm.reqntid = array<i32: 512, 1, 1>
// CHECK-COUNT-10: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK-DAG: llvm.mlir.constant(24576 : i32) : i32
// CHECK-DAG: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.setmaxregister  increase 208
// CHECK: nvvm.setmaxregister  decrease 72
// CHECK: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16
func.func @sm90_n192(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                     %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                     %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_90a", kernel_name = "h3", variants = ["swap_n192"]}
  return
}

// -----

// swap_n128_m192: 192-weight tiles, one consumer warpgroup per 64 weights (three) beside one
// token decoder, 640 threads of 96 registers: producer 24, consumers 120, decoder 96. The
// metadata says tile_m 192 (0xC0) and 215 136 bytes of shared memory (0x034860); 2 stages (4
// mbarriers), 4 decoded buffers (8). A stage holds 192 weight rows and two atom rows of their
// scale factors (a tile starts at row 0 or 64 of an atom row): expect_tx 24576 + 4096 + 4096
// + 128 x the token rows. The chunk loop is not unrolled (measured: 2 % slower unrolled).
// CHECK-LABEL: gpu.module @h4_module
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E56463406000000000100005A0000001000000080020000010000000100000001000000010000000100000060480300C0000000
// CHECK-LABEL: llvm.func @h4_swap_n128_m192(
// CHECK-SAME: nvvm.reqntid = array<i32: 640, 1, 1>
// CHECK-COUNT-12: nvvm.mbarrier.init
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK-DAG: llvm.mlir.constant(32768 : i32) : i32
// CHECK-DAG: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.setmaxregister  increase 120
// CHECK: nvvm.setmaxregister  decrease 96
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
func.func @sm90_n128_m192(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                          %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                          %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_90a", kernel_name = "h4", variants = ["swap_n128_m192"]}
  return
}

// -----

// swap_n128_m192_sk, the stream-K schedule: the plan of swap_n128_m192 (215 136 bytes of
// shared memory, 0x034860) with a workspace of 2 x (128 + 3 x 128 x 64 x 4) = 196 864 bytes
// per CTA (0x030100, record offset 80: two slots) and variant flags DYNAMIC_N | BALANCED_N |
// STREAM_K (7, offset 192). Every role computes its share from the grid and the group records
// (nctaid.x, the total cost, 64-bit divisions). Per token width, the consumers of a split
// tile: the head's counter read (acquire, GPU scope), a bar.red.or that tells the warpgroup
// whether every other share is in; if not, the partial sums stored (float4), the stage count
// added (atom.acq_rel.gpu) and a second bar.red.or (this add completed the tile); the CTA
// that completes it returns the counter to 0 (a release store) and adds the other shares'
// sums (volatile loads); every CTA runs the epilogue (no rows stored where it did not
// complete the tile). Nothing spins: the counter read is compared
// once, no loop around it.
// CHECK-LABEL: gpu.module @h7_module
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E56463406000000000100005A0000001000000080020000010000000100000001000000010000000100000060480300C0000000{{([0-9A-F]{56})}}00010300{{([0-9A-F]{216})}}07000000
// Its chunk loop is swap_n128_m192's (one chunk per trip: 4 wgmmas), nothing wider than 128.
// UNROLL-LABEL: llvm.func @h7_swap_n128_m192_sk(
// UNROLL-COUNT-4: m64n128k16.f32
// UNROLL-NOT: m64n128k16.f32
// WIDTHS-LABEL: llvm.func @h7_swap_n128_m192_sk(
// WIDTHS-NOT: m64n{{(14|15|16|17|18|19|2[0-9])[0-9]}}k16
// CHECK-LABEL: llvm.func @h7_swap_n128_m192_sk(
// CHECK-SAME: nvvm.reqntid = array<i32: 640, 1, 1>
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: llvm.udiv %{{.*}} : i64
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister  increase 120
// CHECK: nvvm.setmaxregister  decrease 96
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: "ld.acquire.gpu.global.b32 $0, [$1];", "=r,l,~{memory}" %[[COUNTER:[0-9]+]] :
// CHECK-NEXT: llvm.extractvalue
// CHECK-NEXT: llvm.icmp "eq"
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} : i1, !llvm.ptr
// CHECK-NEXT: llvm.br
// CHECK: bar.red.or.pred q, $1, $2, p;
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: "atom.acq_rel.gpu.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}" %[[COUNTER]],
// CHECK: bar.red.or.pred q, $1, $2, p;
// CHECK: "fence.acq_rel.gpu;\0A\09st.relaxed.gpu.global.b32 [$0], $1;", "l,r,~{memory}" %[[COUNTER]],
// CHECK: llvm.load volatile %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.fadd
// CHECK: nvvm.stmatrix
func.func @sm90_n128_m192_sk(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                             %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                             %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>) {target = "sm_90a", kernel_name = "h7", variants = ["swap_n128_m192_sk"]}
  return
}
