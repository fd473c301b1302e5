// Ops the lowering cannot build are rejected at the op's location.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul --verify-diagnostics

func.func @too_many_stages_n128(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                                %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                                %c: memref<?x128xf16>) {
  // expected-error @+1 {{variant ab_n128: stages = 7 does not fit in shared memory (at most 5)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", stages = 7}
  return
}

// -----

func.func @too_many_stages_n256(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>,
                                %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>,
                                %c: memref<?x256xf16>) {
  // expected-error @+1 {{variant ab_n256: stages = 5 does not fit in shared memory (at most 3)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xf16>) {target = "sm_100a", tile_n = 256, stages = 5}
  return
}
