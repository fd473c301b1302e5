// Lowering of the fused SwiGLU + NVFP4 epilogue (epilogue = "swiglu_nvfp4") on the sm_12x
// targets: the family is the AB variant of the op's tile_n alone (ab_n128 by default). The
// producer loads the tile's gate rows n0 = nRow0 / 2 and up rows I + n0 (I = N / 2) of B
// as two 64-row boxes into the two 8 KiB halves of the stage's N part (stage offsets 16384
// and 16384 + 8192), and their SFB atom rows n0 / 128 and (I + n0) / 128 into the two
// 2 KiB halves of its 4 KiB SFN part (34816 and 34816 + 2048); warp wn reads gate rows
// 32 wn .. and up rows 64 + 32 wn .. (ldmatrix pairs at 0, 16, 64, 80 rows: 128-byte rows,
// offsets 0, 2048, 8192, 10240). The epilogue runs exp2 once per (row, feature) of the
// thread (4 rows x 8 features), 6 shuffles per row and 16-feature block (amax: 2; the two
// code words: 4), and per row one 16-byte code store and one 2-byte SFC store (ab_n64: 8
// bytes and 1 byte); the activation dump (nvfp4.debug_activations) adds 16 8-byte stores
// of f32 and is absent from a production build.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s

// The contiguous form, I = 256 (N = 512), alpha, the activation dump, sm_120a.
// CHECK-LABEL: llvm.func @e8_ab_n128(
// CHECK-SAME: "stagepart 16384 16384 N-role tile", "stagepart 32768 2048 M-role scale factors", "stagepart 34816 4096 N-role scale factors"
// The epilogue: the expert's gs and the shared SFC from the problem record.
// CHECK: llvm.getelementptr %arg0[112] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.getelementptr %arg0[120] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.intr.exp2
// CHECK: nvvm.shfl.sync  bfly
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr<1>
// CHECK: llvm.getelementptr %arg0[48] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// The producer: n0 = nRow0 / 2, up = N / 2 + n0, their rows from the expert's first B row
// and their atom rows from its first SFB atom row.
// (after the four operands' L2 cache hints)
// CHECK: llvm.mlir.constant(1508705875169116160 : i64) : i64
// CHECK-NEXT: llvm.mlir.constant(1364590687093260288 : i64) : i64
// CHECK-NEXT: llvm.mlir.constant(1508705875169116160 : i64) : i64
// CHECK-NEXT: llvm.mlir.constant(1364590687093260288 : i64) : i64
// CHECK-NEXT: %[[K2A:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[N0:[0-9]+]] = llvm.udiv %{{[0-9]+}}, %[[K2A]] : i32
// CHECK-NEXT: %[[K2B:[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[I:[0-9]+]] = llvm.udiv %{{[0-9]+}}, %[[K2B]] : i32
// CHECK-NEXT: %[[UP:[0-9]+]] = llvm.add %[[I]], %[[N0]] : i32
// CHECK-NEXT: %[[ATOM:[0-9]+]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[GATEROW:[0-9]+]] = llvm.add %[[WROW:[0-9]+]], %[[N0]] : i32
// CHECK-NEXT: %[[UPROW:[0-9]+]] = llvm.add %[[WROW]], %[[UP]] : i32
// CHECK-NEXT: %[[GA:[0-9]+]] = llvm.udiv %[[N0]], %[[ATOM]] : i32
// CHECK-NEXT: %[[GATEATOM:[0-9]+]] = llvm.add %[[WATOM:[0-9]+]], %[[GA]] : i32
// CHECK-NEXT: %[[UA:[0-9]+]] = llvm.udiv %[[UP]], %[[ATOM]] : i32
// CHECK-NEXT: %[[UPATOM:[0-9]+]] = llvm.add %[[WATOM]], %[[UA]] : i32
// CHECK: nvfp4.operand = "a"}
// CHECK-NEXT: llvm.mlir.constant(16384 : i32) : i32
// CHECK-NEXT: %[[DB:[0-9]+]] = llvm.add %{{[0-9]+}}, %{{[0-9]+}} : i32
// CHECK-NEXT: llvm.inttoptr %[[DB]]
// CHECK-NEXT: box[%{{[0-9]+}}, %[[GATEROW]]] {{.*}}{isCTAOnly = true, nvfp4.operand = "b"}
// CHECK-NEXT: %[[K8K:[0-9]+]] = llvm.mlir.constant(8192 : i32) : i32
// CHECK-NEXT: llvm.add %[[DB]], %[[K8K]] : i32
// CHECK-NEXT: llvm.inttoptr
// CHECK-NEXT: box[%{{[0-9]+}}, %[[UPROW]]] {{.*}}{isCTAOnly = true, nvfp4.operand = "b"}
// CHECK: nvfp4.operand = "sfa"}
// CHECK-NEXT: llvm.mlir.constant(34816 : i32) : i32
// CHECK-NEXT: %[[DS:[0-9]+]] = llvm.add %{{[0-9]+}}, %{{[0-9]+}} : i32
// CHECK-NEXT: llvm.inttoptr %[[DS]]
// CHECK-NEXT: box[%{{[0-9]+}}, %[[GATEATOM]]] {{.*}}{isCTAOnly = true, nvfp4.operand = "sfb"}
// CHECK-NEXT: %[[K2K:[0-9]+]] = llvm.mlir.constant(2048 : i32) : i32
// CHECK-NEXT: llvm.add %[[DS]], %[[K2K]] : i32
// CHECK-NEXT: llvm.inttoptr
// CHECK-NEXT: box[%{{[0-9]+}}, %[[UPATOM]]] {{.*}}{isCTAOnly = true, nvfp4.operand = "sfb"}
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @e8_ab_n128/,/^}/p' > %t.moe
// RUN: grep -c "llvm.intr.exp2" %t.moe | FileCheck %s --check-prefix=N32
// RUN: grep -c "nvvm.shfl.sync  bfly" %t.moe | FileCheck %s --check-prefix=N48
// RUN: grep -c "vector<4xi32>, !llvm.ptr<1>" %t.moe | FileCheck %s --check-prefix=N4
// RUN: grep -c "i16, !llvm.ptr<1>" %t.moe | FileCheck %s --check-prefix=N4
// RUN: grep -c "vector<2xf32>, !llvm.ptr<1>" %t.moe | FileCheck %s --check-prefix=N16
// RUN: grep -c 'nvfp4.operand = "b"' %t.moe | FileCheck %s --check-prefix=N2
// RUN: grep -c 'nvfp4.operand = "sfb"' %t.moe | FileCheck %s --check-prefix=N2
// RUN: grep -c "nvvm.mma.block_scale" %t.moe | FileCheck %s --check-prefix=N64
// The ldmatrix pairs of the up half (64 and 80 rows after the warp's first).
// RUN: grep -c "llvm.mlir.constant(10240 : i32) : i32" %t.moe | FileCheck %s --check-prefix=NONZERO
// N2: {{^}}2{{$}}
// N4: {{^}}4{{$}}
// N16: {{^}}16{{$}}
// N24: {{^}}24{{$}}
// N32: {{^}}32{{$}}
// N48: {{^}}48{{$}}
// N64: {{^}}64{{$}}
// NONZERO: {{^[1-9][0-9]*$}}
func.func @moe(%a: memref<?x512xf4E2M1FN>, %b: memref<8x512x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x4x8x32x4x4xf8E4M3FN>, %c: memref<?x256xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x4x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x512x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x4x8x32x4x4xf8E4M3FN>) c(%c : memref<?x256xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x4x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_120a", kernel_name = "e8", nvfp4.debug_activations}
  return
}

// -----

// The pointer-array form, production build, tile_n = 64 (ab_n64), I = 64, sm_121a: SFC and
// gs from the group record (48, 56), 32-row halves (the up box 4096 bytes after the gate
// box), one 16-feature block per row (8-byte code and 1-byte scale stores), no dump.
// CHECK-LABEL: llvm.func @g1_ab_n64(
// CHECK-SAME: "stagepart 16384 8192 N-role tile", "stagepart 24576 2048 M-role scale factors", "stagepart 26624 4096 N-role scale factors"
// CHECK-NOT: vector<2xf32>, !llvm.ptr<1>
// CHECK: llvm.return
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | sed -n '/llvm.func @g1_ab_n64/,/^}/p' > %t.g1
// RUN: grep -c "llvm.mlir.constant(48 : i32) : i32" %t.g1 | FileCheck %s --check-prefix=NONZERO
// RUN: grep -c "llvm.mlir.constant(56 : i32) : i32" %t.g1 | FileCheck %s --check-prefix=NONZERO
// RUN: grep -c "llvm.intr.exp2" %t.g1 | FileCheck %s --check-prefix=N16
// RUN: grep -c "nvvm.shfl.sync  bfly" %t.g1 | FileCheck %s --check-prefix=N24
// RUN: grep -c "{alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<1>" %t.g1 | FileCheck %s --check-prefix=N4
// RUN: grep -c "{alignment = 1 : i64} : i8, !llvm.ptr<1>" %t.g1 | FileCheck %s --check-prefix=N4
// RUN: grep -c "llvm.mlir.constant(4096 : i32) : i32" %t.g1 | FileCheck %s --check-prefix=NONZERO
func.func @grouped(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>, %c: memref<?x64xf4E2M1FN>, %sfc: memref<?x1x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>) c(%c : memref<?x64xf4E2M1FN>) sfc(%sfc : memref<?x1x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_121a", tile_n = 64, kernel_name = "g1"}
  return
}
