// The op the sm_100a lowering accepts and the sm_90a lowering still refuses
// (docs/kernel-sm90a.md, "What sm_90a refuses"): tile_n = 256, a hardware limit (the
// register file), named in the diagnostic. The same op with target sm_100a verifies (second
// RUN); the options themselves (alpha, bf16 / f32 C, strided C, the contiguous form) are
// accepted on both targets (test/Pipeline/target-parity.test). Variant names and stage
// counts are per target and per family (each planner refuses what its shared memory or
// hardware cannot hold: invalid.mlir, moe-invalid.mlir, patch-tmaps-sm90a.mlir).
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics
// RUN: sed -e 's/sm_90a/sm_100a/' -e '/expected-error/d' %s | nvfp4-opt --split-input-file > /dev/null

// A 256-token tile: the register file (the wgmma's 128 accumulator registers do not fit the
// entry budget of 512 threads).
func.func @tile_n_256(%a0: memref<?x512xf4E2M1FN>, %b0: memref<256x512xf4E2M1FN>,
    %sa0: memref<?x8x32x4x4xf8E4M3FN>, %sb0: memref<2x8x32x4x4xf8E4M3FN>, %c0: memref<?x256xbf16>) {
  // expected-error @+1 {{variant swap_n256: sm_90a token tiles are at most 192: a wgmma m64n256k16's 128 accumulator registers must fit the entry budget, 65536 / 512 threads = 128 registers}}
  nvfp4.grouped_matmul a(%a0 : memref<?x512xf4E2M1FN>) b(%b0 : memref<256x512xf4E2M1FN>)
      sfa(%sa0 : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sb0 : memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0 : memref<?x256xbf16>) {target = "sm_90a", tile_n = 256}
  return
}

