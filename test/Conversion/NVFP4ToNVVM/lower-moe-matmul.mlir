// Lowering of nvfp4.moe_matmul (the contiguous MoE form) and of the epilogue options of
// nvfp4.grouped_matmul: the parameter block (header + problem record; the shared tensor maps
// in the device table at HDR_TABLE), the expert schedule
// every CTA builds from the device-resident offsets (a shared-memory scan between CTA
// barriers), alpha, the C element types, and the direct-store path of tiles that reach
// past their expert's rows.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s

// AB, bf16 C, alpha, 8 experts: a 128-byte parameter block (ABI 6), the 5 maps (640 bytes)
// in the device table whose address is the header's HDR_TABLE (byte 32): a generic pointer.
// CHECK-LABEL: llvm.func @m8_ab_n128(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK: %[[TP:.*]] = llvm.getelementptr %arg0[32] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[TA:.*]] = llvm.load %[[TP]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT: llvm.inttoptr %[[TA]] : i64 to !llvm.ptr
// The schedule: M, N and the offsets' address from the problem record,
// each thread's experts (8 <= 192: one each), then the scan.
// CHECK: llvm.getelementptr %arg0[88] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.getelementptr %arg0[92] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: %[[OFF:.*]] = llvm.getelementptr %arg0[64] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: llvm.load %[[OFF]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK: llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT: llvm.icmp "ult"
// The offsets are clamped: signed below 0, unsigned above M.
// CHECK: llvm.icmp "slt"
// CHECK: nvvm.barrier0
// The epilogue: alpha from the expert's slot, the product in f32, bf16 C.
// CHECK: llvm.getelementptr %arg0[72] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
// CHECK-NEXT: llvm.bitcast %{{.*}} : bf16 to i16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xi16>, !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}} {nvfp4.operand = "c"}
// Counts: 2 CTA barriers of the kernel + 1 + 2 x 8 (scan rounds) + 1 of the schedule; the
// TMA stores (2 sub-tiles) and, for tiles past the expert's rows, 2 x 2 x 4 direct 16-byte
// stores of bf16 to global memory.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @m8_ab_n128/,/^\/\/ -----/p' > %t.ab
// RUN: grep -c "nvvm.barrier0" %t.ab | FileCheck %s --check-prefix=TWENTY
// RUN: grep -c "nvvm.cp.async.bulk.tensor.global.shared.cta" %t.ab | FileCheck %s --check-prefix=TWO
// RUN: grep -c "vector<8xi16>, !llvm.ptr<1>" %t.ab | FileCheck %s --check-prefix=SIXTEEN
// RUN: not grep "nvvm.shfl" %t.ab
// TWO: {{^}}2{{$}}
// SIXTEEN: {{^}}16{{$}}
// TWENTY: {{^}}20{{$}}
func.func @ab_bf16_alpha(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>,
    %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>,
    %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>)
      sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>)
      {target = "sm_100a", kernel_name = "m8", variants = ["ab_n128"]}
  return
}

// -----

// swap-AB with N per expert up to 256, f32 C, no alpha, 256 experts: 5 maps plus the
// ladder of A maps with boxes of 8, 16, 32, 64, 128 rows: 10 maps (1280 bytes) in the device
// table, the same 128-byte parameter block.
// The map of a tile is chosen by its N (select chain on 8 << i); two experts per thread.
// CHECK-LABEL: llvm.func @m256_swap_n256(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-NOT: llvm.fmul
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NOT: llvm.fmul
// CHECK: llvm.return
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @m256_swap_n256/,/^\/\/ -----/p' > %t.swap
// RUN: grep -c "llvm.mlir.constant(256 : i32) : i32" %t.swap | FileCheck %s --check-prefix=MANY
// RUN: grep -c "nvvm.cp.async.bulk.tensor.global.shared.cta" %t.swap | FileCheck %s --check-prefix=FOUR
// MANY: {{^[1-9][0-9]*$}}
// FOUR: {{^}}4{{$}}
func.func @swap_f32(%a: memref<?x?xf4E2M1FN>, %b: memref<256x?x?xf4E2M1FN>,
    %sfa: memref<?x?x32x4x4xf8E4M3FN>, %sfb: memref<256x?x?x32x4x4xf8E4M3FN>,
    %c: memref<?x?xf32>, %off: memref<257xi32>) {
  nvfp4.moe_matmul a(%a : memref<?x?xf4E2M1FN>) b(%b : memref<256x?x?xf4E2M1FN>)
      sfa(%sfa : memref<?x?x32x4x4xf8E4M3FN>) sfb(%sfb : memref<256x?x?x32x4x4xf8E4M3FN>)
      c(%c : memref<?x?xf32>) offsets(%off : memref<257xi32>)
      {target = "sm_100a", kernel_name = "m256", variants = ["swap_n256"]}
  return
}

// -----

// 1024 experts (the most): the schedule takes 16 KB of shared memory; the default family.
// CHECK-LABEL: gpu.module @nvfp4_moe_matmul_e1024_module
// Every variant's parameter block is 128 bytes, whatever its map count (5, 10, 11).
// CHECK: llvm.func @nvfp4_moe_matmul_e1024_ab_n128(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>
// CHECK: llvm.func @nvfp4_moe_matmul_e1024_swap_n128(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>
// CHECK: llvm.func @nvfp4_moe_matmul_e1024_swap_n256(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>
func.func @e1024(%a: memref<?x256xf4E2M1FN>, %b: memref<1024x128x256xf4E2M1FN>,
    %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1024x1x4x32x4x4xf8E4M3FN>,
    %c: memref<?x128xf16>, %off: memref<1025xi32>) {
  nvfp4.moe_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<1024x128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1024x1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) offsets(%off : memref<1025xi32>) {target = "sm_100a"}
  return
}

// -----

// The pointer-array form with alpha: the kernel reads each group's alpha pointer from its
// record (offset 40) and scales in f32 before the f16 conversion.
// CHECK-LABEL: llvm.func @ga_ab_n128_st(
// CHECK: llvm.mlir.constant(40 : i32) : i32
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK: llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: llvm.fptrunc %{{.*}} : f32 to f16
func.func @grouped_alpha(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>,
    %sa0: memref<?x4x32x4x4xf8E4M3FN>, %sb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<?x128xf16>, %al: memref<1xf32>) {
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<?x128xf16>) alpha(%al : memref<1xf32>)
      {target = "sm_100a", kernel_name = "ga", variants = ["ab_n128_st"]}
  return
}
