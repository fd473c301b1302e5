// swiglu-refused.mlir — the fused SwiGLU + NVFP4 epilogue is a valid op (the verifier
// accepts it) whose kernels do not exist yet: the lowering refuses it at the op on every
// target and form instead of building a kernel that would store something else.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul --verify-diagnostics

// sm_100a, pointer-array form.
func.func @grouped_sm_100a(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{nvfp4-lower-grouped-matmul: the fused epilogue "swiglu_nvfp4" has no sm_100a kernel yet}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// sm_90a, pointer-array form.
func.func @grouped_sm_90a(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{nvfp4-lower-grouped-matmul: the fused epilogue "swiglu_nvfp4" has no sm_90a kernel yet}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_90a", variants = ["swap_n128"]}
  return
}

// -----

// sm_100a, contiguous form.
func.func @moe_sm_100a(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{nvfp4-lower-grouped-matmul: the fused epilogue "swiglu_nvfp4" has no sm_100a kernel yet}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}
