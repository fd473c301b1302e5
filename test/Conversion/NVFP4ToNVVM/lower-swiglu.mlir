// Lowering of the fused SwiGLU + NVFP4 epilogue (epilogue = "swiglu_nvfp4") on sm_100a: the
// family is ab_n256_st alone; the producer loads the tile's gate rows n0 = nRow0 / 2 and up
// rows I + n0 (I = N / 2) of B as two 128-row boxes into the two 16 KiB halves of the stage's
// N part (stage offsets 16384 and 32768), and their SFB atom rows n0 / 128 and (I + n0) / 128
// into the two 2 KiB halves of its SFN part (51200 and 53248); the epilogue reads SFC and gs
// from the problem record (112, 120), runs exp2 once per feature (4 x 32 per thread and
// tile), and stores 4 x 16 bytes of codes and 4 x 2 bytes of scales per tile and thread; the
// activation dump (nvfp4.debug_activations) adds 32 16-byte stores of f32 and is absent from
// a production build.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s

// The contiguous form, I = 256 (N = 512), alpha, the activation dump.
// CHECK-LABEL: llvm.func @e8_ab_n256_st(
// The epilogue: the expert's gs and the shared SFC from the problem record.
// CHECK: llvm.getelementptr %arg0[112] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.getelementptr %arg0[120] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.intr.exp2
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<2xi64>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr<1>
// CHECK: llvm.getelementptr %arg0[48] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @e8_ab_n256_st/,/^}/p' > %t.moe
// The producer, read backwards (tac: each load before the values it uses): the two SFB
// boxes at SFN-part offsets 51200 and 51200 + 2048, the two B boxes at 16384 and 16384 +
// 16384, and their rows and atom rows: n0 = nRow0 / 2, up = N / 2 + n0, atoms / 128.
// RUN: tac %t.moe | FileCheck %s --check-prefix=REV
// REV: box[%{{[0-9]+}}, %[[UPATOM:[0-9]+]]] {{.*}}{nvfp4.operand = "sfb"}
// REV-NEXT: llvm.addrspacecast
// REV-NEXT: llvm.inttoptr
// REV-NEXT: llvm.add %[[DS:[0-9]+]], %[[K2048:[0-9]+]] : i32
// REV-NEXT: %[[K2048]] = llvm.mlir.constant(2048 : i32) : i32
// REV-NEXT: box[%{{[0-9]+}}, %[[GATEATOM:[0-9]+]]] {{.*}}{nvfp4.operand = "sfb"}
// REV-NEXT: llvm.addrspacecast
// REV-NEXT: llvm.inttoptr
// REV-NEXT: %[[DS]] = llvm.add %[[STAGE:[0-9]+]], %[[K51200:[0-9]+]] : i32
// REV-NEXT: %[[K51200]] = llvm.mlir.constant(51200 : i32) : i32
// REV-NEXT: {nvfp4.operand = "sfa"}
// REV: box[%{{[0-9]+}}, %[[UPROW:[0-9]+]]] {{.*}}{nvfp4.operand = "b"}
// REV-NEXT: llvm.addrspacecast
// REV-NEXT: llvm.inttoptr
// REV-NEXT: llvm.add %[[DB:[0-9]+]], %[[K16K:[0-9]+]] : i32
// REV-NEXT: %[[K16K]] = llvm.mlir.constant(16384 : i32) : i32
// REV-NEXT: box[%{{[0-9]+}}, %[[GATEROW:[0-9]+]]] {{.*}}{nvfp4.operand = "b"}
// REV-NEXT: llvm.addrspacecast
// REV-NEXT: llvm.inttoptr
// REV-NEXT: %[[DB]] = llvm.add %[[STAGE]], %[[K16K2:[0-9]+]] : i32
// REV-NEXT: %[[K16K2]] = llvm.mlir.constant(16384 : i32) : i32
// REV-NEXT: {nvfp4.operand = "a"}
// REV: %[[UPATOM]] = llvm.add %[[WATOM:[0-9]+]], %[[UA:[0-9]+]] : i32
// REV-NEXT: %[[UA]] = llvm.udiv %[[UP:[0-9]+]], %[[ATOM:[0-9]+]] : i32
// REV-NEXT: %[[GATEATOM]] = llvm.add %[[WATOM]], %[[GA:[0-9]+]] : i32
// REV-NEXT: %[[GA]] = llvm.udiv %[[N0:[0-9]+]], %[[ATOM]] : i32
// REV-NEXT: %[[UPROW]] = llvm.add %[[WROW:[0-9]+]], %[[UP]] : i32
// REV-NEXT: %[[GATEROW]] = llvm.add %[[WROW]], %[[N0]] : i32
// REV-NEXT: %[[ATOM]] = llvm.mlir.constant(128 : i32) : i32
// REV-NEXT: %[[UP]] = llvm.add %[[I:[0-9]+]], %[[N0]] : i32
// REV-NEXT: %[[I]] = llvm.udiv %{{[0-9]+}}, %[[K2A:[0-9]+]] : i32
// REV-NEXT: %[[K2A]] = llvm.mlir.constant(2 : i32) : i32
// REV-NEXT: %[[N0]] = llvm.udiv %{{[0-9]+}}, %[[K2B:[0-9]+]] : i32
// REV-NEXT: %[[K2B]] = llvm.mlir.constant(2 : i32) : i32
// RUN: grep -c "llvm.intr.exp2" %t.moe | FileCheck %s --check-prefix=EXP2
// RUN: grep -c "vector<2xi64>, !llvm.ptr<1>" %t.moe | FileCheck %s --check-prefix=FOUR
// RUN: grep -c "i16, !llvm.ptr<1>" %t.moe | FileCheck %s --check-prefix=FOUR
// RUN: grep -c "vector<4xf32>, !llvm.ptr<1>" %t.moe | FileCheck %s --check-prefix=DUMP
// RUN: grep -c 'nvfp4.operand = "b"' %t.moe | FileCheck %s --check-prefix=TWO
// RUN: grep -c 'nvfp4.operand = "sfb"' %t.moe | FileCheck %s --check-prefix=TWO
// EXP2: {{^}}128{{$}}
// FOUR: {{^}}4{{$}}
// DUMP: {{^}}32{{$}}
// TWO: {{^}}2{{$}}
func.func @moe(%a: memref<?x512xf4E2M1FN>, %b: memref<8x512x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x4x8x32x4x4xf8E4M3FN>, %c: memref<?x256xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x4x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x512x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x4x8x32x4x4xf8E4M3FN>) c(%c : memref<?x256xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x4x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a", kernel_name = "e8", nvfp4.debug_activations}
  return
}

// -----

// The pointer-array form, production build: SFC and gs from the group record (48, 56), no
// alpha (no fmul before exp2's argument other than -log2(e)), no activation dump.
// CHECK-LABEL: llvm.func @g1_ab_n256_st(
// CHECK-NOT: vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.return
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @g1_ab_n256_st/,/^}/p' > %t.g1
// RUN: grep -c "llvm.mlir.constant(48 : i32) : i32" %t.g1 | FileCheck %s --check-prefix=NONZERO
// RUN: grep -c "llvm.mlir.constant(56 : i32) : i32" %t.g1 | FileCheck %s --check-prefix=NONZERO
// RUN: grep -c "llvm.intr.exp2" %t.g1 | FileCheck %s --check-prefix=EXP2
// RUN: grep -c "vector<2xi64>, !llvm.ptr<1>" %t.g1 | FileCheck %s --check-prefix=FOUR
// NONZERO: {{^[1-9][0-9]*$}}
func.func @grouped(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a", kernel_name = "g1"}
  return
}

// -----

// I = 64 (N = 128): the up half starts 64 rows into its scale-factor atom, so the kernel
// is the mid-atom one (NVFP4_META_VFLAG_SWIGLU_MID_ATOM): three SFB boxes per stage (the
// gate atom and the two the up half spans, at SFN offsets + 0, + 2048, + 4096), and per K
// block either the one N = 256 MMA or, when (I + n0) % 128 != 0, two N = 128 MMAs: 3 x 4
// MMAs in the issuer (against 4 above). A dynamic I builds the same kernel.
// CHECK-LABEL: llvm.func @i64_ab_n256_st(
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @i64_ab_n256_st/,/^}/p' > %t.i64
// RUN: grep -c 'nvfp4.operand = "sfb"' %t.i64 | FileCheck %s --check-prefix=THREE
// RUN: grep -c 'nvfp4.operand = "b"' %t.i64 | FileCheck %s --check-prefix=TWO
// RUN: grep -c "nvvm.tcgen05.mma.block_scale" %t.i64 | FileCheck %s --check-prefix=TWELVE
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @g1_ab_n256_st/,/^}/p' | grep -c "nvvm.tcgen05.mma.block_scale" | FileCheck %s --check-prefix=FOUR
// THREE: {{^}}3{{$}}
// TWELVE: {{^}}12{{$}}
func.func @inter_64(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>, %c: memref<?x64xf4E2M1FN>, %sfc: memref<?x1x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>) c(%c : memref<?x64xf4E2M1FN>) sfc(%sfc : memref<?x1x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a", kernel_name = "i64"}
  return
}
