// plugin-verify.mlir — the C verifier runs inside NVFP4Plugin.so loaded into the stock
// mlir-opt.
// RUN: %mlir_opt %s --verify-diagnostics \
// RUN:   --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext

func.func @bad_k(%a: memref<128x96xf4E2M1FN>, %b: memref<128x96xf4E2M1FN>,
    %sa: memref<1x2x32x4x4xf8E4M3FN>, %sb: memref<1x2x32x4x4xf8E4M3FN>,
    %c: memref<128x128xf16>) {
  // expected-error @+1 {{'nvfp4.grouped_matmul' op group 0: K must be a multiple of 64, got 96}}
  nvfp4.grouped_matmul a(%a : memref<128x96xf4E2M1FN>) b(%b : memref<128x96xf4E2M1FN>)
      sfa(%sa : memref<1x2x32x4x4xf8E4M3FN>) sfb(%sb : memref<1x2x32x4x4xf8E4M3FN>)
      c(%c : memref<128x128xf16>) {target = "sm_100a"}
  return
}
