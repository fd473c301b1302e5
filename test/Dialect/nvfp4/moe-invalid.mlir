// moe-invalid.mlir — every diagnostic of the nvfp4.moe_matmul verifier and of the epilogue
// options of nvfp4.grouped_matmul (lib/Dialect/Verifier.c).
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics

// The tokens are FP4.
func.func @a_element(%a: memref<?x512xf8E4M3FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{operand 'a' must have element type f4E2M1FN, got f8E4M3FN}}
  nvfp4.moe_matmul a(%a : memref<?x512xf8E4M3FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// B holds one N x K matrix per expert.
func.func @b_rank(%a: memref<?x512xf4E2M1FN>, %b: memref<256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{operand 'b' must have rank 3 (E x N x K), got rank 2}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// The expert count is static.
func.func @experts_dynamic(%a: memref<?x512xf4E2M1FN>, %b: memref<?x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<?x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{the expert count (dim 0 of 'b') must be static}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<?x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<?x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// At most 1024 experts.
func.func @too_many_experts(%a: memref<?x512xf4E2M1FN>, %b: memref<1025x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<1025x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<1026xi32>, %alpha: memref<1025xf32>) {
  // expected-error @+1 {{supports 1 to 1024 experts, got 1025}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<1025x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1025x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<1026xi32>) alpha(%alpha : memref<1025xf32>) {target = "sm_100a"}
  return
}

// -----

// E + 1 offsets.
func.func @offsets_length(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<8xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{the length of 'offsets' (8) does not match the expert count + 1 (9)}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<8xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// Offsets are i32.
func.func @offsets_type(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi64>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{operand 'offsets' must have element type i32 (signless), got i64}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi64>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// One alpha per expert.
func.func @alpha_length(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<7xf32>) {
  // expected-error @+1 {{operand 'alpha' must have 8 elements (one per expert), got 7}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<7xf32>) {target = "sm_100a"}
  return
}

// -----

// Alpha is f32.
func.func @alpha_type(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf16>) {
  // expected-error @+1 {{operand 'alpha' must be a rank-1 memref of f32 (one per expert), got memref<8xf16>}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf16>) {target = "sm_100a"}
  return
}

// -----

// C is f16, bf16 or f32.
func.func @c_element(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xi16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{operand 'c' must have element type f16, bf16 or f32, got i16}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xi16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// N of B and C agree.
func.func @n_mismatch(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x128xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{N of 'b' (256) does not match N of 'c' (128)}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// M of A and C agree.
func.func @m_mismatch(%a: memref<300x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<200x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{M of 'a' (300) does not match M of 'c' (200)}}
  nvfp4.moe_matmul a(%a : memref<300x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<200x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// K of A and B agree.
func.func @k_mismatch(%a: memref<?x256xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{K of 'a' (256) does not match K of 'b' (512)}}
  nvfp4.moe_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// K is a multiple of 64.
func.func @k_granule(%a: memref<?x96xf4E2M1FN>, %b: memref<8x256x96xf4E2M1FN>, %sfa: memref<?x2x32x4x4xf8E4M3FN>, %sfb: memref<8x2x2x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{K must be a multiple of 64, got 96}}
  nvfp4.moe_matmul a(%a : memref<?x96xf4E2M1FN>) b(%b : memref<8x256x96xf4E2M1FN>) sfa(%sfa : memref<?x2x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x2x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// SFB has one blocked tensor per expert.
func.func @sfb_experts(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<4x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{dim 0 of 'sfb' (4) does not match the expert count (8)}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<4x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// SFB has ceil(N/128) atom rows per expert.
func.func @sfb_atoms(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x3x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{dim 1 of 'sfb' (3) does not match ceil(N/128) (2)}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x3x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// SFA covers ceil(K/64) K blocks.
func.func @sfa_k(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{dim 1 of 'sfa' (4) does not match ceil(K/64) (8)}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// SFA holds the worst case of any routing: E + (M - E) / 128 atoms.
func.func @sfa_too_small(%a: memref<1000x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<14x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<1000x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{operand 'sfa' holds 14 atom rows; 1000 tokens over 8 experts may need 15 (each expert's scales start on a 128-row atom)}}
  nvfp4.moe_matmul a(%a : memref<1000x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<14x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<1000x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// Scale factors end in one 512-byte atom.
func.func @sfa_atom(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x2xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{operands 'sfa' and 'sfb' must end in 32x4x4 (one 512-byte atom)}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x2xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// C's rows are 16 bytes: a multiple of 8 bf16 elements.
func.func @c_stride(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16, strided<[260, 1]>>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{operand 'c' row stride must be a positive multiple of 8 elements (16-byte rows), got 260}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16, strided<[260, 1]>>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// A is contiguous.
func.func @a_layout(%a: memref<?x512xf4E2M1FN, strided<[1024, 1]>>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{operand 'a' must have the identity (contiguous row-major) layout, got memref<?x512xf4E2M1FN, strided<[1024, 1]>>}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN, strided<[1024, 1]>>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// Offsets live in the default memory space.
func.func @offsets_space(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32, 3>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{operand 'offsets' must be in the default memory space, got memref<9xi32, 3>}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32, 3>) alpha(%alpha : memref<8xf32>) {target = "sm_100a"}
  return
}

// -----

// The attributes follow nvfp4.grouped_matmul's rules.
func.func @tile_n(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>) {
  // expected-error @+1 {{'tile_n' must be one of 64, 128, 192, 256, got 96}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) {target = "sm_100a", tile_n = 96}
  return
}

// -----

// One kernel writes every group: one C element type.
func.func @grouped_c_types(%a0: memref<128x256xf4E2M1FN>, %a1: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %b1: memref<128x256xf4E2M1FN>, %s0: memref<1x4x32x4x4xf8E4M3FN>, %s1: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xbf16>, %c1: memref<128x128xf32>) {
  // expected-error @+1 {{group 1: operand 'c' has element type f32 but group 0 has bf16 (every group's C must have the same element type)}}
  nvfp4.grouped_matmul a(%a0, %a1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      sfa(%s0, %s1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%s0, %s1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<128x128xbf16>, memref<128x128xf32>) {target = "sm_100a"}
  return
}

// -----

// One alpha per group.
func.func @grouped_alpha_length(%a0: memref<128x256xf4E2M1FN>, %a1: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %b1: memref<128x256xf4E2M1FN>, %s0: memref<1x4x32x4x4xf8E4M3FN>, %s1: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xf16>, %c1: memref<128x128xf16>, %al: memref<3xf32>) {
  // expected-error @+1 {{operand 'alpha' must have 2 elements (one per group), got 3}}
  nvfp4.grouped_matmul a(%a0, %a1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      sfa(%s0, %s1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%s0, %s1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<128x128xf16>, memref<128x128xf16>) alpha(%al : memref<3xf32>) {target = "sm_100a"}
  return
}

// -----

// Alpha is a rank-1 memref.
func.func @grouped_alpha_rank(%a0: memref<128x256xf4E2M1FN>, %a1: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %b1: memref<128x256xf4E2M1FN>, %s0: memref<1x4x32x4x4xf8E4M3FN>, %s1: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xf16>, %c1: memref<128x128xf16>, %al: memref<2x1xf32>) {
  // expected-error @+1 {{operand 'alpha' must be a rank-1 memref of f32 (one per group), got memref<2x1xf32>}}
  nvfp4.grouped_matmul a(%a0, %a1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      sfa(%s0, %s1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%s0, %s1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<128x128xf16>, memref<128x128xf16>) alpha(%al : memref<2x1xf32>) {target = "sm_100a"}
  return
}

// -----

// f32 rows are 16 bytes at a multiple of 4 elements.
func.func @grouped_f32_stride(%a0: memref<128x256xf4E2M1FN>, %a1: memref<128x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %b1: memref<128x256xf4E2M1FN>, %s0: memref<1x4x32x4x4xf8E4M3FN>, %s1: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<128x128xf32, strided<[130, 1]>>, %c1: memref<128x128xf32>) {
  // expected-error @+1 {{group 0: operand 'c' row stride must be a positive multiple of 4 elements (16-byte rows), got 130}}
  nvfp4.grouped_matmul a(%a0, %a1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      sfa(%s0, %s1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      sfb(%s0, %s1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<128x128xf32, strided<[130, 1]>>, memref<128x128xf32>) {target = "sm_100a"}
  return
}

// -----

// sm_100a: the same refusal.
func.func @sm100_moe_stream_k(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xf16>, %off: memref<9xi32>) {
  // expected-error @+1 {{variant swap_n128_sk: the stream-K schedule (_sk) is built for the pointer-array form (nvfp4.grouped_matmul): its shares are cut from the group table, which nvfp4.moe_matmul does not have}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xf16>) offsets(%off : memref<9xi32>) {target = "sm_100a", variants = ["swap_n128", "swap_n128_sk"]}
  return
}

// -----

// sm_90a: the stream-K schedule cuts its shares from the group table, which the contiguous
// form does not have (its default family leaves it out; named, it is refused).
func.func @sm90_moe_stream_k(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xf16>, %off: memref<9xi32>) {
  // expected-error @+1 {{variant swap_n128_m192_sk: the stream-K schedule (_sk) is built for the pointer-array form (nvfp4.grouped_matmul): its shares are cut from the group table, which nvfp4.moe_matmul does not have}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xf16>) offsets(%off : memref<9xi32>) {target = "sm_90a", variants = ["swap_n128", "swap_n128_m192_sk"]}
  return
}
