// invalid.mlir — every diagnostic of the nvfp4.grouped_matmul verifier (lib/Dialect/Verifier.c).
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics

// The five operand lists must have the same length.
func.func @count_mismatch(%a0: memref<128x256xf4E2M1FN>,
    %a1: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfa1: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb1: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>,
    %c1: memref<128x128xf16>) {
  // expected-error @+1 {{operand count mismatch: 'a' has 2 groups but 'b' has 1}}
  nvfp4.grouped_matmul a(%a0, %a1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<128x128xf16>, memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// At least one group.
func.func @zero_groups() {
  // expected-error @+1 {{requires at least one group}}
  "nvfp4.grouped_matmul"() <{operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>, target = "sm_100a"}> : () -> ()
  return
}

// -----

// A must be f4E2M1FN.
func.func @a_element_type(%a0: memref<128x256xf16>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: operand 'a' must have element type f4E2M1FN, got f16}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf16>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// Scale factors must be f8E4M3FN.
func.func @sfa_element_type(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E5M2>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: operand 'sfa' must have element type f8E4M3FN, got f8E5M2}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E5M2>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// C must be f16, bf16 or f32.
func.func @c_element_type(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf64>) {
  // expected-error @+1 {{group 0: operand 'c' must have element type f16, bf16 or f32, got f64}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf64>)
      {target = "sm_100a"}
  return
}

// -----

// B must be rank 2.
func.func @b_rank(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<1x128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: operand 'b' must have rank 2, got rank 3}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<1x128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// Scale factors must be rank 5.
func.func @sfb_rank(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<128x16xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: operand 'sfb' must have rank 5, got rank 2}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<128x16xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// Scale-factor dims 2..4 are one 512-byte atom.
func.func @sf_atom_dims(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x2xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: operand 'sfa' dims 2..4 must be 32x4x4 (one 512-byte atom), got dim 4 = 2}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x2xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// Scale-factor atom dims must be static.
func.func @sf_atom_dims_dynamic(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x?x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: operand 'sfb' dims 2..4 must be 32x4x4 (one 512-byte atom), got dim 2 = ?}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x?x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// SFA dim 0 is ceil(M/128).
func.func @sfa_rows(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<2x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: operand 'sfa' dim 0 must be ceil(M/128) = 1, got 2}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<2x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// SFB dim 0 is ceil(N/128); N comes from C when B's N is dynamic.
func.func @sfb_rows(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<?x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<2x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x300xf16>) {
  // expected-error @+1 {{group 0: operand 'sfb' dim 0 must be ceil(N/128) = 3, got 2}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<?x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<2x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x300xf16>)
      {target = "sm_100a"}
  return
}

// -----

// Scale-factor dim 1 is ceil(K/64).
func.func @sfb_k(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x8x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: operand 'sfb' dim 1 must be ceil(K/64) = 4, got 8}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x8x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// With K dynamic, SFA and SFB must still agree on ceil(K/64).
func.func @sf_k_mismatch(%a0: memref<128x?xf4E2M1FN>,
    %b0: memref<128x?xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x8x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: dim 1 (K/64) of 'sfa' (4) does not match 'sfb' (8)}}
  nvfp4.grouped_matmul a(%a0 : memref<128x?xf4E2M1FN>)
      b(%b0 : memref<128x?xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x8x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// A's and B's K must match.
func.func @k_mismatch(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x512xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: K of 'a' (256) does not match K of 'b' (512)}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x512xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// K must be a multiple of the 64-element K granule.
func.func @k_granule(%a0: memref<128x96xf4E2M1FN>,
    %b0: memref<128x96xf4E2M1FN>,
    %sfa0: memref<1x2x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x2x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: K must be a multiple of 64, got 96}}
  nvfp4.grouped_matmul a(%a0 : memref<128x96xf4E2M1FN>)
      b(%b0 : memref<128x96xf4E2M1FN>)
      sfa(%sfa0 : memref<1x2x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x2x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// A's and B's K are both static or both dynamic.
func.func @k_static_dynamic(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x?xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: K of 'a' and 'b' must both be static or both dynamic}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x?xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// M of A and C must match.
func.func @m_mismatch(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<64x128xf16>) {
  // expected-error @+1 {{group 0: M of 'a' (128) does not match M of 'c' (64)}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<64x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// N of B and C must match; the diagnostic names the group.
func.func @n_mismatch_second_group(%a0: memref<128x256xf4E2M1FN>,
    %a1: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %b1: memref<256x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfa1: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb1: memref<2x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>,
    %c1: memref<128x128xf16>) {
  // expected-error @+1 {{group 1: N of 'b' (256) does not match N of 'c' (128)}}
  nvfp4.grouped_matmul a(%a0, %a1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<256x256xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<1x4x32x4x4xf8E4M3FN>, memref<2x4x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<128x128xf16>, memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// C may have a row stride, but its elements must be contiguous along N.
func.func @strided_c_columns(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16, strided<[256, 2]>>) {
  // expected-error @+1 {{group 0: operand 'c' must be contiguous along N (strided<[ldc, 1]>), got memref<128x128xf16, strided<[256, 2]>>}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16, strided<[256, 2]>>)
      {target = "sm_100a"}
  return
}

// -----

// C's row stride must keep 16-byte rows for the vectorised stores.
func.func @strided_c_misaligned(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16, strided<[132, 1]>>) {
  // expected-error @+1 {{group 0: operand 'c' row stride must be a positive multiple of 8 elements (16-byte rows), got 132}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16, strided<[132, 1]>>)
      {target = "sm_100a"}
  return
}

// -----

// C's row stride cannot be smaller than N.
func.func @strided_c_short(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16, strided<[64, 1]>>) {
  // expected-error @+1 {{group 0: operand 'c' row stride 64 is smaller than N = 128}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16, strided<[64, 1]>>)
      {target = "sm_100a"}
  return
}

// -----

// A must be K-major: a permuted layout map is rejected.
func.func @permuted_a(%a0: memref<128x256xf4E2M1FN, affine_map<(d0, d1) -> (d1, d0)>>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: operand 'a' must have the identity (contiguous row-major) layout, got memref<128x256xf4E2M1FN, affine_map<(d0, d1) -> (d1, d0)>>}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN, affine_map<(d0, d1) -> (d1, d0)>>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// Operands live in global memory (default memory space).
func.func @memory_space(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN, 3>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{group 0: operand 'b' must be in the default memory space, got memref<128x256xf4E2M1FN, 3>}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN, 3>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a"}
  return
}

// -----

// The targets are those of include/nvfp4-c/Targets.h.
func.func @unknown_target(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{unknown target 'sm_80' (supported: sm_100a, sm_100f, sm_103a, sm_90a, sm_120a, sm_121a, sm_120f)}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_80"}
  return
}

// -----

// The sm_100a stream-K schedule (_sk) is built for 1-CTA variants: no CTA pair.
func.func @sm100_stream_k_pair(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant swap2_n128_sk: the sm_100a stream-K schedule (_sk) is built for 1-CTA variants only (ab_n64_sk, ab_n128_sk, swap_n64_sk, swap_n128_sk): a CTA pair's shares would be split across two CTAs}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a", variants = ["swap_n128_sk", "swap2_n128_sk"]}
  return
}

// -----

// ... of tile_n 64 and 128 (a workspace slot holds 128 x tile_n fp32).
func.func @sm100_stream_k_wide(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant ab_n256_sk: the sm_100a stream-K schedule (_sk) is built for tile_n 64 and 128 (a workspace slot holds 128 x tile_n fp32 partial sums)}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a", variants = ["ab_n128_sk", "ab_n256_sk"]}
  return
}

// -----

// ... without the fused SwiGLU epilogue (gate and up would have to be reduced first).
func.func @sm100_stream_k_swiglu(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf4E2M1FN>, %alpha: memref<1xf32>, %sfc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{variant ab_n128_sk: the fused epilogue "swiglu_nvfp4" has no stream-K variant: a split tile's gate and up partial sums would have to be reduced before the activation}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>) c(%c : memref<?x128xf4E2M1FN>) alpha(%alpha : memref<1xf32>) sfc(%sfc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a", variants = ["ab_n128_sk"]}
  return
}

// -----

// ... and the direct-store epilogue has no stream-K form: "_st_sk" is no variant name.
func.func @sm100_stream_k_direct(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error-re @+1 {{unknown variant 'ab_n128_st_sk'{{.*}}}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a", variants = ["ab_n128_st_sk"]}
  return
}

// -----

// sm_90a: the wgmma kernel has the swap-AB orientation only.
func.func @sm90_ab_variant(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant ab_n128: the sm_90a kernel has the swap-AB orientation only (variants swap_n64, swap_n128, swap_n192, swap_n128_m192, swap_n64_m192, each also with _sk): the weights feed the wgmma M side}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_90a", variants = ["swap_n128", "ab_n128"]}
  return
}

// -----

// sm_90a: the largest token tile (the wgmma N) is 64, 128 or 192: a 256-token wgmma's
// accumulators do not fit the entry register budget of the kernel's 512 threads.
func.func @sm90_tile_n(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant swap_n256: sm_90a token tiles are at most 192: a wgmma m64n256k16's 128 accumulator registers must fit the entry budget, 65536 / 512 threads = 128 registers}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_90a", tile_n = 256}
  return
}

// -----

// sm_90a: a 192-weight tile (three consumer warpgroups) has token tiles up to 128.
func.func @sm90_m192_n192(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant swap_n192_m192: a 192-weight sm_90a tile (three consumer warpgroups, 640 threads) has token tiles up to 128}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_90a", variants = ["swap_n192_m192"]}
  return
}

// -----

// sm_100a: 128 M-role rows per CTA; the 192-weight tile is an sm_90a variant.
func.func @sm100_m192(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant swap_n128_m192: an sm_100a tile has 128 M-role rows per CTA (_m192 is an sm_90a variant)}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a", variants = ["swap_n128_m192"]}
  return
}

// -----

// sm_90a: no CTA-pair or direct-store variants.
func.func @sm90_pair(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant swap2_n128: the sm_90a kernel has no CTA-pair variant}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_90a", variants = ["swap2_n128"]}
  return
}

// -----

// sm_90a: stages beyond what shared memory holds (3 for swap_n128).
func.func @sm90_stages(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant swap_n128: stages = 4 does not fit in shared memory (at most 3)}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_90a", stages = 4}
  return
}

// -----

// tile_n is one of 64, 128, 192, 256.
func.func @tile_n(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{'tile_n' must be one of 64, 128, 192, 256, got 96}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a", tile_n = 96}
  return
}

// -----

// stages is in [1, 8].
func.func @stages(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{'stages' must be in [1, 8], got 9}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a", stages = 9}
  return
}

// -----

// kernel_name must be a C identifier.
func.func @kernel_name(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{'kernel_name' must be a valid C identifier, got '1st-kernel'}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a", kernel_name = "1st-kernel"}
  return
}

// -----

// kernel_name plus "_<variant>" fits the 64-byte metadata field (47 + 16 characters + NUL).
func.func @kernel_name_length(%a0: memref<128x256xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %sfa0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %c0: memref<128x128xf16>) {
  // expected-error @+1 {{'kernel_name' must be at most 47 characters, got 48}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>)
      b(%b0 : memref<128x256xf4E2M1FN>)
      sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0 : memref<128x128xf16>)
      {target = "sm_100a", kernel_name = "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"}
  return
}

// -----

// The target attribute is required.
func.func @missing_target(%a0: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<1x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xf16>) {
  // expected-error @+1 {{requires attribute 'target'}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<128x128xf16>)
  return
}

// -----

// variants names variants with a legal tile width.
func.func @unknown_variant(%a0: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<1x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant ab_n96: tile_n must be one of 64, 128, 192, 256}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<128x128xf16>) {target = "sm_100a", variants = ["ab_n128", "ab_n96"]}
  return
}

// -----

// A variant is listed once.
func.func @duplicate_variant(%a0: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<1x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant swap_n128 is listed twice}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<128x128xf16>) {target = "sm_100a", variants = ["swap_n128", "ab_n64", "swap_n128"]}
  return
}

// -----

// The direct-store epilogue exists for the 1-CTA AB orientation only.
func.func @direct_store_swap(%a0: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<1x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant swap_n128_st: the direct-store epilogue exists for the 1-CTA AB orientation only}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<128x128xf16>) {target = "sm_100a", variants = ["swap_n128_st"]}
  return
}

// -----

// stages applies to every variant of the family and must fit each of them.
func.func @stages_for_family(%a0: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<1x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xf16>) {
  // expected-error @+1 {{variant swap_n256: stages = 4 does not fit in shared memory (at most 3)}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<128x128xf16>) {target = "sm_100a", stages = 4}
  return
}

// -----

// variants is an array of strings.
func.func @variants_type(%a0: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<1x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xf16>) {
  // expected-error @+1 {{attribute 'variants' failed to satisfy constraint}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<128x128xf16>) {target = "sm_100a", variants = [1, 2]}
  return
}

// -----

// variants names known kernel variants.
func.func @unknown_variant_name(%a0: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<1x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xf16>) {
  // expected-error @+1 {{unknown variant 'fast'}}
  nvfp4.grouped_matmul a(%a0 : memref<128x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<128x128xf16>) {target = "sm_100a", variants = ["fast"]}
  return
}
