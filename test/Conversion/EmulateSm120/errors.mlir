// The error branches of --nvfp4-emulate-sm120 on hand-written gpu.modules whose metadata
// says an sm_120a kernel (target_sm 120): block-scaled mma.sync forms the emulation library
// does not implement, and an MMA whose result is used other than through its four fields,
// are diagnostics at the op, never a crash or a silently wrong kernel; the form the
// generator emits becomes a library call whose result is read from its buffer.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-emulate-sm120 --verify-diagnostics | FileCheck %s

// kind::mxf4 (2X, UE8M0 scales: MXFP4), not the NVFP4 form.
gpu.module @mxf4 {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634000000000000000078000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
  llvm.func @k(%p: !llvm.ptr, %a: i32, %s: i32, %c: f32) {
    %z = llvm.mlir.constant(0 : i16) : i16
    // expected-error @+1 {{nvfp4-emulate-sm120: only mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 is emulated}}
    %d = nvvm.mma.block_scale A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scaleA[%s, %z, %z] scaleB[%s, %z, %z] {blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x2>, shape = #nvvm.shape<m = 16, n = 8, k = 64>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %e = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    llvm.store %e, %p : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// kind::mxf4nvf4 with 2X UE8M0 scales (one per 32 K): not implemented either.
gpu.module @nvf4_2x {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634000000000000000078000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
  llvm.func @k(%p: !llvm.ptr, %a: i32, %s: i32, %c: f32) {
    %z = llvm.mlir.constant(0 : i16) : i16
    // expected-error @+1 {{only mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 is emulated}}
    %d = nvvm.mma.block_scale A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scaleA[%s, %z, %z] scaleB[%s, %z, %z] {blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf4nvf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x2>, shape = #nvvm.shape<m = 16, n = 8, k = 64>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %e = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    llvm.store %e, %p : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// The whole result struct stored: the rewrite reads the four fields from its buffer only.
gpu.module @struct_use {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634000000000000000078000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
  llvm.func @k(%p: !llvm.ptr, %a: i32, %s: i32, %c: f32) {
    %z = llvm.mlir.constant(0 : i16) : i16
    // expected-error @+1 {{nvfp4-emulate-sm120: mma.sync results used other than through llvm.extractvalue of fields 0..3}}
    %d = nvvm.mma.block_scale A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scaleA[%s, %z, %z] scaleB[%s, %z, %z] {blockScaleFormat = #nvvm.block_scale_format<ue4m3>, kind = #nvvm.block_scale_kind<mxf4nvf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x4>, shape = #nvvm.shape<m = 16, n = 8, k = 64>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    llvm.store %d, %p : !llvm.struct<(f32, f32, f32, f32)>, !llvm.ptr
    llvm.return
  }
}

// -----

// The generator's form: a call with the buffer and the widened selectors, the field read
// back from the buffer; the module retargeted to sm_90a.
// CHECK-LABEL: gpu.module @generated
// CHECK-SAME: chip = "sm_90a"
// CHECK: %[[BUF:.*]] = llvm.alloca {{.*}} x !llvm.array<4 x f32>
// CHECK: llvm.call @nvfp4_emu_mma_sync_mxf4nvf4_4x(%[[BUF]],
// CHECK-NOT: nvvm.mma.block_scale
// CHECK: llvm.load {{.*}} : !llvm.ptr -> f32
gpu.module @generated {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634000000000000000078000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
  llvm.func @k(%p: !llvm.ptr, %a: i32, %s: i32, %c: f32) {
    %z = llvm.mlir.constant(0 : i16) : i16
    %d = nvvm.mma.block_scale A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scaleA[%s, %z, %z] scaleB[%s, %z, %z] {blockScaleFormat = #nvvm.block_scale_format<ue4m3>, kind = #nvvm.block_scale_kind<mxf4nvf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x4>, shape = #nvvm.shape<m = 16, n = 8, k = 64>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %e = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    llvm.store %e, %p : f32, !llvm.ptr
    llvm.return
  }
}
