// placement.mlir — where nvfp4.grouped_matmul and nvfp4.moe_matmul may stand. The op is host
// code: the lowering erases it, puts its kernels in a gpu.module of the top-level module and
// tags the enclosing function with a reference to that gpu.module. It must therefore sit in
// a func.func (at any depth of its regions) of the top-level module; every other place is
// refused at the op (docs/ops.md): here by the verifier, and a function of a nested
// module by the lowering (placement-nested.mlir), which alone knows which module is the
// top-level one.
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics

// Device code: a gpu.func cannot launch the kernel family.
gpu.module @device {
  gpu.func @k(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) kernel {
    // expected-error @+1 {{'nvfp4.grouped_matmul' op is host code (it launches a kernel): it cannot be in device code (a gpu.func); put it in a func.func of the top-level module}}
    nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a"}
    gpu.return
  }
}

// -----

// An llvm.func: the op is lowered before functions become LLVM-dialect ones.
llvm.func @lowered(%p: !llvm.ptr) {
  %a0 = builtin.unrealized_conversion_cast %p : !llvm.ptr to memref<?x256xf4E2M1FN>
  %b0 = builtin.unrealized_conversion_cast %p : !llvm.ptr to memref<128x256xf4E2M1FN>
  %sfa0 = builtin.unrealized_conversion_cast %p : !llvm.ptr to memref<?x4x32x4x4xf8E4M3FN>
  %sfb0 = builtin.unrealized_conversion_cast %p : !llvm.ptr to memref<1x4x32x4x4xf8E4M3FN>
  %c0 = builtin.unrealized_conversion_cast %p : !llvm.ptr to memref<?x128xf16>
  // expected-error @+1 {{'nvfp4.grouped_matmul' op must be inside a func.func, not an llvm.func}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a"}
  llvm.return
}

// -----

// Directly in the module: there is no function to tag.
%a0 = builtin.unrealized_conversion_cast to memref<?x256xf4E2M1FN>
%b0 = builtin.unrealized_conversion_cast to memref<128x256xf4E2M1FN>
%sfa0 = builtin.unrealized_conversion_cast to memref<?x4x32x4x4xf8E4M3FN>
%sfb0 = builtin.unrealized_conversion_cast to memref<1x4x32x4x4xf8E4M3FN>
%c0 = builtin.unrealized_conversion_cast to memref<?x128xf16>
// expected-error @+1 {{'nvfp4.grouped_matmul' op must be inside a func.func, not directly in a module}}
nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a"}

// -----

// Inside the function's regions is fine: the op is still host code of that function.
func.func @in_region(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>, %p: i1) {
  scf.if %p {
    nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a"}
  }
  return
}
