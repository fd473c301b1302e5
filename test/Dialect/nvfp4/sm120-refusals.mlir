// What the sm_100a lowering accepts and the sm_12x targets (sm_120a, sm_121a, sm_120f: the
// block-scaled mma.sync kernel) refuse, each with its reason in the diagnostic
// (docs/kernel-sm120a.md, "Why these tiles"). Hardware limits: 256-row tiles (two stages
// exceed the 99 KiB of shared memory of an sm_12x block), more stages than 99 KiB hold, CTA
// pairs (sm_120 has no .cta_group::2). This kernel's own limit: 192-row tiles (they straddle
// two scale-factor atom rows; it loads one per tile). The same ops with target sm_100a
// verify (last RUN); every op form and epilogue option, patched tensor maps included, is
// accepted on all three targets (test/Pipeline/target-parity.test,
// patch-tmaps-sm120a.mlir).
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics
// RUN: sed 's/"sm_120a"/"sm_121a"/' %s | nvfp4-opt --split-input-file --verify-diagnostics
// RUN: sed 's/"sm_120a"/"sm_120f"/' %s | nvfp4-opt --split-input-file --verify-diagnostics
// RUN: sed -e 's/"sm_120a"/"sm_100a"/' -e '/expected-error/d' %s | nvfp4-opt --split-input-file > /dev/null

// tile_n = 256: the default family's AB variant takes the op's tile_n.
func.func @tile_n_256(%a0: memref<?x512xf4E2M1FN>, %b0: memref<256x512xf4E2M1FN>,
    %sa0: memref<?x8x32x4x4xf8E4M3FN>, %sb0: memref<2x8x32x4x4xf8E4M3FN>, %c0: memref<?x256xbf16>) {
  // expected-error @+1 {{variant ab_n256: tile_n of an sm_12x variant must be 64 or 128 (swap-AB also 32): two 256-row stages exceed 99 KiB}}
  nvfp4.grouped_matmul a(%a0 : memref<?x512xf4E2M1FN>) b(%b0 : memref<256x512xf4E2M1FN>)
      sfa(%sa0 : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sb0 : memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0 : memref<?x256xbf16>) {target = "sm_120a", tile_n = 256}
  return
}

// -----

// A 192-token tile of the contiguous form.
func.func @moe_swap_n192(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>,
    %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>,
    %c: memref<?x256xf32>, %off: memref<9xi32>, %alpha: memref<8xf32>) {
  // expected-error @+1 {{variant swap_n192: tile_n of an sm_12x variant must be 64 or 128 (swap-AB also 32): two 256-row stages exceed 99 KiB; a 192-row tile straddles two scale-factor atom rows}}
  nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>)
      sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xf32>) offsets(%off : memref<9xi32>) alpha(%alpha : memref<8xf32>)
      {target = "sm_120a", variants = ["swap_n192"]}
  return
}

// -----

// A CTA pair.
func.func @pair(%a0: memref<?x512xf4E2M1FN>, %b0: memref<256x512xf4E2M1FN>,
    %sa0: memref<?x8x32x4x4xf8E4M3FN>, %sb0: memref<2x8x32x4x4xf8E4M3FN>, %c0: memref<?x256xbf16>) {
  // expected-error @+1 {{variant swap2_n128: the sm_12x kernel has no CTA-pair variant (sm_120 has no .cta_group::2 and the block-scaled GEMM runs in 1-CTA clusters)}}
  nvfp4.grouped_matmul a(%a0 : memref<?x512xf4E2M1FN>) b(%b0 : memref<256x512xf4E2M1FN>)
      sfa(%sa0 : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sb0 : memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0 : memref<?x256xbf16>) {target = "sm_120a", variants = ["swap2_n128"]}
  return
}

// -----

// Three stages of the 128-wide tiles (36 KiB each; sm_100a has room for 5).
func.func @stages(%a0: memref<?x512xf4E2M1FN>, %b0: memref<256x512xf4E2M1FN>,
    %sa0: memref<?x8x32x4x4xf8E4M3FN>, %sb0: memref<2x8x32x4x4xf8E4M3FN>, %c0: memref<?x256xf16>) {
  // expected-error @+1 {{variant ab_n128: stages = 3 does not fit in the 99 KiB of shared memory of an sm_120 block (at most 2)}}
  nvfp4.grouped_matmul a(%a0 : memref<?x512xf4E2M1FN>) b(%b0 : memref<256x512xf4E2M1FN>)
      sfa(%sa0 : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sb0 : memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0 : memref<?x256xf16>) {target = "sm_120a", stages = 3}
  return
}
