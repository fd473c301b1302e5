// The error branches of --nvfp4-emulate-tcgen05 on hand-written gpu.modules: a metadata
// symbol it cannot patch, operand tags on the wrong ops or of the wrong type, and tcgen05
// forms the emulation library does not implement are diagnostics at the op (or module),
// never a crash or a silently unpatched kernel.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-emulate-tcgen05 --verify-diagnostics

// The metadata symbol holding a string instead of dense i8 records.
// expected-error @+1 {{nvfp4-emulate-tcgen05: the nvfp4_kernel_metadata symbol must be an llvm.mlir.global holding dense i8 records}}
gpu.module @string_metadata {
  llvm.mlir.global external constant @nvfp4_kernel_metadata("nvfp4 kernel metadata") {addr_space = 1 : i32} : !llvm.array<21 x i8>
}

// -----

// i32 elements (read as bytes they were garbage).
// expected-error @+1 {{must be an llvm.mlir.global holding dense i8 records}}
gpu.module @i32_metadata {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<1> : tensor<256xi32>) {addr_space = 1 : i32} : !llvm.array<256 x i32>
}

// -----

// A splat holds one element, not 256 (reading 256 of them ran past it).
// expected-error @+1 {{must be an llvm.mlir.global holding dense i8 records}}
gpu.module @splat_metadata {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<0> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
}

// -----

// A symbol of that name that is not a global.
// expected-error @+1 {{must be an llvm.mlir.global holding dense i8 records}}
gpu.module @func_metadata {
  llvm.func @nvfp4_kernel_metadata()
}

// -----

// Not a whole number of 256-byte records.
// expected-error @+1 {{nvfp4-emulate-tcgen05: the metadata table is not 1 to 16 records of 256 bytes}}
gpu.module @short_metadata {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<[78, 86, 70, 52]> : tensor<4xi8>) {addr_space = 1 : i32} : !llvm.array<4 x i8>
}

// -----

// 256 bytes without the magic: not a record this pass may rewrite.
// expected-error @+1 {{nvfp4-emulate-tcgen05: a metadata record does not start with the nvfp4 magic}}
gpu.module @no_magic {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
}

// -----

// An A-operand tag on a TMA prefetch, which has two operands (the x coordinate was read
// from operand 2 and the op crashed).
gpu.module @tagged_prefetch {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
  llvm.func @k(%p: !llvm.ptr) {
    %x = llvm.mlir.constant(0 : i32) : i32
    // expected-error @+1 {{nvfp4-emulate-tcgen05: an A/B operand tag on an op that is not a tensor-map load into shared memory}}
    nvvm.cp.async.bulk.tensor.prefetch %p, box[%x] {nvfp4.operand = "a"} : !llvm.ptr
    llvm.return
  }
}

// -----

// A tag that is not a string (it was cast to one unchecked).
gpu.module @integer_tag {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
  llvm.func @k(%p: !llvm.ptr) {
    %x = llvm.mlir.constant(0 : i32) : i32
    // expected-error @+1 {{nvfp4-emulate-tcgen05: the nvfp4.operand tag must be a string}}
    nvvm.cp.async.bulk.tensor.prefetch %p, box[%x] {nvfp4.operand = 7 : i32} : !llvm.ptr
    llvm.return
  }
}

// -----

// A tag on an op that is neither a TMA copy nor tcgen05.
gpu.module @tagged_add {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
  llvm.func @k(%p: !llvm.ptr) {
    %x = llvm.mlir.constant(0 : i32) : i32
    // expected-error @+1 {{nvfp4-emulate-tcgen05: the nvfp4.operand tag marks tensor-map copies only}}
    %y = llvm.add %x, %x {nvfp4.operand = "a"} : i32
    llvm.return
  }
}

// -----

// The emulator's own refusals: a tcgen05.cp shape it does not implement.
gpu.module @cp_shape {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
  llvm.func @k(%p: !llvm.ptr) {
    %t = llvm.mlir.zero : !llvm.ptr<6>
    %d = llvm.mlir.constant(0 : i64) : i64
    // expected-error @+1 {{nvfp4-emulate-tcgen05: only tcgen05.cp .32x128b.warpx4 without decompression is emulated}}
    nvvm.tcgen05.cp %t, %d {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>}
    llvm.return
  }
}

// -----

// A tcgen05 op without an emulation.
gpu.module @no_emulation {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
  llvm.func @k(%p: !llvm.ptr) {
    %t = llvm.mlir.zero : !llvm.ptr<6>
    %d = llvm.mlir.constant(0 : i64) : i64
    // expected-error @+1 {{nvfp4-emulate-tcgen05: this tcgen05 operation has no emulation}}
    nvvm.tcgen05.shift %t {group = #nvvm.cta_group<cta_1>} : !llvm.ptr<6>
    llvm.return
  }
}

// -----

// A kernel without a parameter block (the workspace address comes from it).
gpu.module @no_params {
  llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
  llvm.func @k() {
    // expected-error @+1 {{nvfp4-emulate-tcgen05: kernel has no parameter block}}
    nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_1>}
    llvm.return
  }
}
