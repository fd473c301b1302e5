// Verifier rules added after reproduced defects: ceil(M/128) computed without signed
// overflow for M near 2^63, an offset on C's memref rejected (the kernel addresses C from
// the pointer it is given and ignored it), kernel names that are reserved; and from the
// adversarial round of issue 33: a NUL inside a variant name, static sizes past the kernel's
// signed 32-bit coordinates (K = 2^32, M = N = ldc = 2^40), one C for two groups, offsets of
// ui32 / si32.
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

// -----

// A NUL byte inside a variant name (it was read as its prefix, "ab_n128").
func.func @variant_nul(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{'variants' entry 0 holds a NUL byte after 'ab_n128'}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a", variants = ["ab_n128\00junk"]}
  return
}

// -----

// K = 2^32: past the signed 32-bit coordinates the kernel builds.
func.func @k_2_32(%a0: memref<?x4294967296xf4E2M1FN>, %b0: memref<128x4294967296xf4E2M1FN>, %sfa0: memref<?x67108864x32x4x4xf8E4M3FN>, %sfb0: memref<1x67108864x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{group 0: K = 4294967296 exceeds 2147483135: the kernel's tensor coordinates are signed 32-bit}}
  nvfp4.grouped_matmul a(%a0 : memref<?x4294967296xf4E2M1FN>) b(%b0 : memref<128x4294967296xf4E2M1FN>) sfa(%sfa0 : memref<?x67108864x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x67108864x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a"}
  return
}

// -----

// M = N = ldc = 2^40.
func.func @mn_2_40(%a0: memref<1099511627776x256xf4E2M1FN>, %b0: memref<1099511627776x256xf4E2M1FN>, %sfa0: memref<8589934592x4x32x4x4xf8E4M3FN>, %sfb0: memref<8589934592x4x32x4x4xf8E4M3FN>, %c0: memref<1099511627776x1099511627776xf16>) {
  // expected-error @+1 {{group 0: M = 1099511627776 exceeds 2147483135: the kernel's tensor coordinates are signed 32-bit}}
  nvfp4.grouped_matmul a(%a0 : memref<1099511627776x256xf4E2M1FN>) b(%b0 : memref<1099511627776x256xf4E2M1FN>) sfa(%sfa0 : memref<8589934592x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<8589934592x4x32x4x4xf8E4M3FN>) c(%c0 : memref<1099511627776x1099511627776xf16>) {target = "sm_100a"}
  return
}

// -----

// N = 2^31 (M fits).
func.func @n_2_31(%a0: memref<?x256xf4E2M1FN>, %b0: memref<2147483648x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<16777216x4x32x4x4xf8E4M3FN>, %c0: memref<?x2147483648xf16>) {
  // expected-error @+1 {{group 0: N = 2147483648 exceeds 2147483135}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<2147483648x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<16777216x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x2147483648xf16>) {target = "sm_100a"}
  return
}

// -----

// A row stride the group table's 32-bit field cannot hold.
func.func @ldc_2_40(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16, strided<[1099511627776, 1]>>) {
  // expected-error @+1 {{group 0: operand 'c' row stride 1099511627776 exceeds 2^32 - 1 (the group table holds it in 32 bits)}}
  nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16, strided<[1099511627776, 1]>>) {target = "sm_100a"}
  return
}

// -----

// The same C for two groups: both would store into it at once.
func.func @c_twice(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
  // expected-error @+1 {{group 1: operand 'c' is the same value as group 0's: both groups would store into it at once (their tiles race)}}
  nvfp4.grouped_matmul a(%a0, %a0 : memref<?x256xf4E2M1FN>, memref<?x256xf4E2M1FN>) b(%b0, %b0 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>) sfa(%sfa0, %sfa0 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0, %sfb0 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>) c(%c0, %c0 : memref<?x128xf16>, memref<?x128xf16>) {target = "sm_100a"}
  return
}

// -----

// Unsigned offsets (ui32) are not the signless i32 the kernel reads.
func.func @offsets_ui32(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xui32>) {
  // expected-error @+1 {{operand 'offsets' must have element type i32 (signless), got ui32}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xui32>) {target = "sm_100a"}
  return
}

// -----

// Nor are signed ones (si32).
func.func @offsets_si32(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xsi32>) {
  // expected-error @+1 {{operand 'offsets' must have element type i32 (signless), got si32}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xsi32>) {target = "sm_100a"}
  return
}

// -----

// The contiguous form: K = 2^32 - 64, and E x N past 2^31.
func.func @moe_k(%a: memref<?x4294967232xf4E2M1FN>, %b: memref<8x256x4294967232xf4E2M1FN>, %sfa: memref<?x67108863x32x4x4xf8E4M3FN>, %sfb: memref<8x2x67108863x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>) {
  // expected-error @+1 {{K = 4294967232 exceeds 2147483135: the kernel's tensor coordinates are signed 32-bit}}
  nvfp4.moe_matmul a(%a : memref<?x4294967232xf4E2M1FN>) b(%b : memref<8x256x4294967232xf4E2M1FN>) sfa(%sfa : memref<?x67108863x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x67108863x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) {target = "sm_100a"}
  return
}

// -----

func.func @moe_en(%a: memref<?x512xf4E2M1FN>, %b: memref<8x268435456x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2097152x8x32x4x4xf8E4M3FN>, %c: memref<?x268435456xbf16>, %off: memref<9xi32>) {
  // expected-error @+1 {{E x N = 8 x 268435456 exceeds 2147483135: the kernel's tensor coordinates are signed 32-bit}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x268435456x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2097152x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x268435456xbf16>) offsets(%off : memref<9xi32>) {target = "sm_100a"}
  return
}
