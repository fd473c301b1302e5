// test1.mlir — Test case 1 (test:0 of docs/format.md): 2 groups, M = 96,128 (dynamic), N = 128,256, K = 256,512.
// One nvfp4.grouped_matmul over per-group memrefs: A (M x K f4E2M1FN), B (N x K f4E2M1FN),
// SFA/SFB (blocked f8E4M3FN scale factors), C (M x N f16). M is dynamic; N and K static.
func.func @test1(
    %a0: memref<?x256xf4E2M1FN>,
    %a1: memref<?x512xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>,
    %b1: memref<256x512xf4E2M1FN>,
    %sfa0: memref<?x4x32x4x4xf8E4M3FN>,
    %sfa1: memref<?x8x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>,
    %sfb1: memref<2x8x32x4x4xf8E4M3FN>,
    %c0: memref<?x128xf16>,
    %c1: memref<?x256xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 :
        memref<?x256xf4E2M1FN>, memref<?x512xf4E2M1FN>)
      b(%b0, %b1 :
        memref<128x256xf4E2M1FN>, memref<256x512xf4E2M1FN>)
      sfa(%sfa0, %sfa1 :
        memref<?x4x32x4x4xf8E4M3FN>, memref<?x8x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 :
        memref<1x4x32x4x4xf8E4M3FN>, memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0, %c1 :
        memref<?x128xf16>, memref<?x256xf16>)
      {target = "sm_100a", kernel_name = "nvfp4_test1"}
  return
}
