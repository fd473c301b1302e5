// swiglu-invalid.mlir — the verifier's diagnostics for the fused SwiGLU + NVFP4 epilogue
// (epilogue = "swiglu_nvfp4", operands sfc and gs) on both op forms: unknown epilogue,
// missing or stray operands, C's type, width and layout, I's granule, SFC's shape and type,
// gs's length, and SFC's atom-row bound in the contiguous form.
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics

// Only one epilogue exists.
func.func @grouped_unknown_epilogue(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{unknown epilogue 'gelu_nvfp4' (supported: "swiglu_nvfp4")}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "gelu_nvfp4", target = "sm_100a"}
  return
}

// -----

// The epilogue writes block scales: it needs sfc.
func.func @grouped_no_sfc(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>, %gs: memref<1xf32>) {
  // expected-error @+1 {{epilogue "swiglu_nvfp4" requires the operands 'sfc' (the block scales it writes) and 'gs' (the global scale)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// ... and the global scale.
func.func @grouped_no_gs(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>) {
  // expected-error @+1 {{epilogue "swiglu_nvfp4" requires the operands 'sfc'}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// sfc and gs without the epilogue.
func.func @grouped_sfc_without_epilogue(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{operands 'sfc' and 'gs' are only valid with epilogue = "swiglu_nvfp4"}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {target = "sm_100a"}
  return
}

// -----

// The fused C is FP4.
func.func @grouped_bf16_c(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xbf16>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{group 0: operand 'c' must have element type f4E2M1FN (epilogue = "swiglu_nvfp4"), got bf16}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xbf16>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// An FP4 C needs the epilogue (no plain FP4 store).
func.func @grouped_fp4_c_plain(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>) {
  // expected-error @+1 {{group 0: operand 'c' must have element type f16, bf16 or f32, got f4E2M1FN}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>)
      {target = "sm_100a"}
  return
}

// -----

// C is M x I, half of B's 2I rows.
func.func @grouped_c_full_width(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x256xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{group 0: N of 'c' (256) must be I = N/2 = 128 (N of 'b' is 256)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x256xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// I must be a multiple of 64 (the down-projection's K).
func.func @grouped_odd_i(%a: memref<?x256xf4E2M1FN>, %b: memref<192x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x96xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{group 0: N of 'b' (192) must be 2I with I a positive multiple of 64}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<192x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x96xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// SFC has ceil(I/64) atom columns.
func.func @grouped_sfc_cols(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x4x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{group 0: operand 'sfc' dim 1 must be ceil(I/64) = 2, got 4}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x4x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// SFC holds E4M3 scales.
func.func @grouped_sfc_type(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xi8>, %gs: memref<1xf32>) {
  // expected-error @+1 {{group 0: operand 'sfc' must have element type f8E4M3FN, got i8}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xi8>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// One global scale per group or expert.
func.func @grouped_gs_length(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<2xf32>) {
  // expected-error @+1 {{operand 'gs' must have 1 elements (one per group), got 2}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<2xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// The FP4 C is contiguous.
func.func @grouped_c_strided(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN, strided<[256, 1]>>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{group 0: operand 'c' must have the identity (contiguous row-major) layout, got}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN, strided<[256, 1]>>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// Only one epilogue exists.
func.func @moe_unknown_epilogue(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{unknown epilogue 'gelu_nvfp4' (supported: "swiglu_nvfp4")}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "gelu_nvfp4", target = "sm_100a"}
  return
}

// -----

// The epilogue writes block scales: it needs sfc.
func.func @moe_no_sfc(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %gs: memref<8xf32>) {
  // expected-error @+1 {{epilogue "swiglu_nvfp4" requires the operands 'sfc' (the block scales it writes) and 'gs' (the global scale)}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// ... and the global scale.
func.func @moe_no_gs(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>) {
  // expected-error @+1 {{epilogue "swiglu_nvfp4" requires the operands 'sfc'}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// sfc and gs without the epilogue.
func.func @moe_sfc_without_epilogue(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{operands 'sfc' and 'gs' are only valid with epilogue = "swiglu_nvfp4"}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {target = "sm_100a"}
  return
}

// -----

// The fused C is FP4.
func.func @moe_bf16_c(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xbf16>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{operand 'c' must have element type f4E2M1FN (epilogue = "swiglu_nvfp4"), got bf16}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xbf16>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// An FP4 C needs the epilogue (no plain FP4 store).
func.func @moe_fp4_c_plain(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{operand 'c' must have element type f16, bf16 or f32, got f4E2M1FN}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>)
      {target = "sm_100a"}
  return
}

// -----

// C is M x I, half of B's 2I rows.
func.func @moe_c_full_width(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{N of 'c' (256) does not match I = N/2 of 'b' (128)}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x256xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// I must be a multiple of 64 (the down-projection's K).
func.func @moe_odd_i(%a: memref<?x512xf4E2M1FN>, %b: memref<8x192x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x96xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{N of 'b' (192) must be 2I with I a positive multiple of 64}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x192x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x96xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// SFC has ceil(I/64) atom columns.
func.func @moe_sfc_cols(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x4x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{dim 1 of 'sfc' (4) does not match ceil(I/64) (2)}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x4x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// SFC holds E4M3 scales.
func.func @moe_sfc_type(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xi8>, %gs: memref<8xf32>) {
  // expected-error @+1 {{operand 'sfc' must have element type f8E4M3FN, got i8}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xi8>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// One global scale per group or expert.
func.func @moe_gs_length(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<2xf32>) {
  // expected-error @+1 {{operand 'gs' must have 8 elements (one per expert), got 2}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<2xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// The FP4 C is contiguous.
func.func @moe_c_strided(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN, strided<[256, 1]>>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{operand 'c' must have the identity (contiguous row-major) layout, got}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN, strided<[256, 1]>>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// SFC covers any routing, as SFA does.
func.func @moe_sfc_atoms(%a: memref<300x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<300x128xf4E2M1FN>, %offsets: memref<9xi32>, %alpha: memref<8xf32>, %sfc: memref<2x2x32x4x4xf8E4M3FN>, %gs: memref<8xf32>) {
  // expected-error @+1 {{operand 'sfc' holds 2 atom rows; 300 tokens over 8 experts may need 10}}
  nvfp4.moe_matmul a(%a : memref<300x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>) c(%c : memref<300x128xf4E2M1FN>) offsets(%offsets : memref<9xi32>) alpha(%alpha : memref<8xf32>) sfc(%sfc : memref<2x2x32x4x4xf8E4M3FN>) gs(%gs : memref<8xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// One sfc per group.
func.func @grouped_sfc_count(%a0: memref<?x256xf4E2M1FN>, %a1: memref<?x256xf4E2M1FN>, %b0: memref<256x256xf4E2M1FN>, %b1: memref<256x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfa1: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<2x4x32x4x4xf8E4M3FN>, %sfb1: memref<2x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf4E2M1FN>, %c1: memref<?x128xf4E2M1FN>, %s0: memref<?x2x32x4x4xf8E4M3FN>, %s1: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<2xf32>) {
  // expected-error @+1 {{operand count mismatch: 'a' has 2 groups but 'sfc' has 1}}
  nvfp4.grouped_matmul a(%a0, %a1 : memref<?x256xf4E2M1FN>, memref<?x256xf4E2M1FN>) b(%b0, %b1 : memref<256x256xf4E2M1FN>, memref<256x256xf4E2M1FN>) sfa(%sfa0, %sfa1 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0, %sfb1 : memref<2x4x32x4x4xf8E4M3FN>, memref<2x4x32x4x4xf8E4M3FN>) c(%c0, %c1 : memref<?x128xf4E2M1FN>, memref<?x128xf4E2M1FN>) sfc(%s0 : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<2xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}

// -----

// Two groups cannot write one SFC.
func.func @grouped_sfc_shared(%a0: memref<?x256xf4E2M1FN>, %a1: memref<?x256xf4E2M1FN>, %b0: memref<256x256xf4E2M1FN>, %b1: memref<256x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfa1: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<2x4x32x4x4xf8E4M3FN>, %sfb1: memref<2x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf4E2M1FN>, %c1: memref<?x128xf4E2M1FN>, %s0: memref<?x2x32x4x4xf8E4M3FN>, %s1: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<2xf32>) {
  // expected-error @+1 {{group 1: operand 'sfc' is the same value as group 0's}}
  nvfp4.grouped_matmul a(%a0, %a1 : memref<?x256xf4E2M1FN>, memref<?x256xf4E2M1FN>) b(%b0, %b1 : memref<256x256xf4E2M1FN>, memref<256x256xf4E2M1FN>) sfa(%sfa0, %sfa1 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0, %sfb1 : memref<2x4x32x4x4xf8E4M3FN>, memref<2x4x32x4x4xf8E4M3FN>) c(%c0, %c1 : memref<?x128xf4E2M1FN>, memref<?x128xf4E2M1FN>) sfc(%s0, %s0 : memref<?x2x32x4x4xf8E4M3FN>, memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<2xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}
