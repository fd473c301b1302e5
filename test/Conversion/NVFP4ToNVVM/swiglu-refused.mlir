// swiglu-refused.mlir — where the fused SwiGLU + NVFP4 epilogue has no kernel, the op is
// refused at the op instead of building a kernel that would store something else: on
// sm_100a for a variant other than ab_n256_st or a tile_n other than 256, on sm_90a for the
// 192-weight and stream-K variants, both forms (the verifier, through the planner); sm_120a:
// swiglu-refused-sm120a.mlir.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul --verify-diagnostics

// sm_90a, pointer-array form: a 192-weight tile has no up warpgroup for its third.
func.func @grouped_sm_90a(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{variant swap_n128_m192: the sm_90a fused epilogue "swiglu_nvfp4" is built for the 128-weight persistent variants only}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_90a", variants = ["swap_n128", "swap_n128_m192"]}
  return
}

// -----

// sm_90a, pointer-array form: the stream-K schedule.
func.func @grouped_sm_90a_sk(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{variant swap_n64_sk: the sm_90a fused epilogue "swiglu_nvfp4" is built for the 128-weight persistent variants only}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_90a", variants = ["swap_n64_sk"]}
  return
}

// -----

// sm_90a, contiguous form: a 192-weight tile.
func.func @moe_sm_90a(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{variant swap_n64_m192: the sm_90a fused epilogue "swiglu_nvfp4" is built for the 128-weight persistent variants only}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_90a", variants = ["swap_n64_m192"]}
  return
}

// -----

// sm_100a, variant ab_n256: only ab_n256_st implements the epilogue.
func.func @tma_store(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{variant ab_n256: the fused epilogue "swiglu_nvfp4" is built for ab_n256_st only (swap-AB, CTA pairs, other widths and TMA stores do not implement it)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a", variants = ["ab_n256_st", "ab_n256"]}
  return
}


// -----

// sm_100a, variant ab_n128_st: only ab_n256_st implements the epilogue.
func.func @narrower(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{variant ab_n128_st: the fused epilogue "swiglu_nvfp4" is built for ab_n256_st only (swap-AB, CTA pairs, other widths and TMA stores do not implement it)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a", variants = ["ab_n256_st", "ab_n128_st"]}
  return
}


// -----

// sm_100a, variant swap_n128: only ab_n256_st implements the epilogue.
func.func @swap_ab(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{variant swap_n128: the fused epilogue "swiglu_nvfp4" is built for ab_n256_st only (swap-AB, CTA pairs, other widths and TMA stores do not implement it)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a", variants = ["ab_n256_st", "swap_n128"]}
  return
}


// -----

// sm_100a, variant ab2_n256: only ab_n256_st implements the epilogue.
func.func @cta_pair(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{variant ab2_n256: the fused epilogue "swiglu_nvfp4" is built for ab_n256_st only (swap-AB, CTA pairs, other widths and TMA stores do not implement it)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a", variants = ["ab_n256_st", "ab2_n256"]}
  return
}

// -----

// sm_100a, tile_n = 128: the fused epilogue's kernel has N = 256.
func.func @tile_n_128(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{tile_n = 128: the fused epilogue "swiglu_nvfp4" is built for ab_n256_st only (one N = 256 MMA per 128 gate and 128 up columns)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a", tile_n = 128 : i64}
  return
}
