// swiglu-refused-sm120a.mlir — the sm_12x kernel builds the fused SwiGLU + NVFP4 epilogue
// in its AB variants (ab_n64, ab_n128) only: a swap-AB variant named in `variants` is
// refused at the op by the verifier, through the planner, in both forms and on every sm_12x
// target (the default family of such an op is the AB variant alone: lower-swiglu-sm120a.mlir).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul --verify-diagnostics

// sm_120a, pointer-array form.
func.func @grouped_swap(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{variant swap_n128: the fused epilogue "swiglu_nvfp4" is built for the sm_120a AB variants only (ab_n64, ab_n128; swap-AB does not implement it)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_120a", variants = ["ab_n128", "swap_n128"]}
  return
}

// -----

// sm_121a, contiguous form.
func.func @moe_swap(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{variant swap_n64: the fused epilogue "swiglu_nvfp4" is built for the sm_120a AB variants only (ab_n64, ab_n128; swap-AB does not implement it)}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_121a", variants = ["swap_n64"]}
  return
}

// -----

// sm_120f, pointer-array form, swap_n32.
func.func @grouped_swap32(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{variant swap_n32: the fused epilogue "swiglu_nvfp4" is built for the sm_120a AB variants only}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_120f", variants = ["swap_n32"]}
  return
}
