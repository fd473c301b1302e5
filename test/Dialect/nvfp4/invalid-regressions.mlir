// Verifier rules added after reproduced defects: ceil(M/128) computed without signed
// overflow for M near 2^63, an offset on C's memref rejected (the kernel addresses C from
// the pointer it is given and ignored it), and kernel names that are reserved.
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics

// M = 2^63 - 1: ceil(M/128) = 2^56 (it used to print -72057594037927935).
func.func @ceil_div_overflow(%a0: memref<9223372036854775807x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<1x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<9223372036854775807x128xf16>) {
  // expected-error @+1 {{group 0: operand 'sfa' dim 0 must be ceil(M/128) = 72057594037927936, got 1}}
  nvfp4.grouped_matmul a(%a0 : memref<9223372036854775807x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<1x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<9223372036854775807x128xf16>) {target = "sm_100a"}
  return
}

// -----

// A static K of 2^63 - 64 (a multiple of 64): ceil(K/64) without overflow.
func.func @ceil_div_overflow_k(%a0: memref<?x9223372036854775744xf4E2M1FN>, %b0: memref<128x9223372036854775744xf4E2M1FN>, %sfa0: memref<?x1x32x4x4xf8E4M3FN>, %sfb0: memref<1x1x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{group 0: operand 'sfa' dim 1 must be ceil(K/64) = 144115188075855871, got 1}}
  nvfp4.grouped_matmul a(%a0 : memref<?x9223372036854775744xf4E2M1FN>) b(%b0 : memref<128x9223372036854775744xf4E2M1FN>) sfa(%sfa0 : memref<?x1x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x1x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a"}
  return
}

// -----

// A static offset on C's strided layout (a dynamic one, from a subview, is the caller's to
// fold into the C pointer: ops.mlir).
func.func @c_offset(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16, strided<[128, 1], offset: 5>>) {
  // expected-error @+1 {{group 0: operand 'c' must have offset 0 or ? (the kernel stores from the C pointer it is given), got offset 5}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16, strided<[128, 1], offset: 5>>) {target = "sm_100a"}
  return
}

// -----

func.func @leading_underscore(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{'kernel_name' must not start with '_' (reserved in C and PTX), got '_'}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a", kernel_name = "_"}
  return
}

// -----

func.func @leading_underscore(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{'kernel_name' must not start with '_' (reserved in C and PTX), got '_k'}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a", kernel_name = "_k"}
  return
}

// -----

func.func @leading_underscore(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{'kernel_name' must not start with '_' (reserved in C and PTX), got '__kernel'}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a", kernel_name = "__kernel"}
  return
}

// -----

func.func @reserved_name(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{'kernel_name' 'nvfp4_kernel_metadata' is reserved}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a", kernel_name = "nvfp4_kernel_metadata"}
  return
}

// -----

func.func @reserved_name(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{'kernel_name' 'nvfp4_dyn_smem' is reserved}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a", kernel_name = "nvfp4_dyn_smem"}
  return
}

// -----

func.func @reserved_name(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{'kernel_name' 'nvfp4_emu_tcgen05_mma' is reserved}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a", kernel_name = "nvfp4_emu_tcgen05_mma"}
  return
}

// -----

func.func @reserved_name(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{'kernel_name' 'WARP_SZ' is reserved}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a", kernel_name = "WARP_SZ"}
  return
}

// -----

// Names next to the reserved ones stay valid; so does C with an explicit offset 0.
func.func @allowed_names(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16, strided<[128, 1], offset: 0>>, %c1: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16, strided<[128, 1], offset: 0>>) {target = "sm_100a", kernel_name = "nvfp4_kernel_metadata2"}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c1 : memref<?x128xf16>) {target = "sm_100a", kernel_name = "WARP_SZ_x"}
  return
}
