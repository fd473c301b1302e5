// Input of compile-cli.test: sfa's dim 0 disagrees with M (line 9, column 3).
func.func @bad(%a: memref<256x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
               %sfa: memref<1x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
               %c: memref<256x128xf16>) {
  // The error points at the op below.
  //
  //
  //
  nvfp4.grouped_matmul a(%a : memref<256x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<1x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<256x128xf16>) {target = "sm_100a"}
  return
}
