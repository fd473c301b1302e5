// b3.mlir — Benchmark B3 (docs/format.md): 2 groups, M per group 192,320 (dynamic), N = 3072, K = 4096.
// One nvfp4.grouped_matmul over per-group memrefs: A (M x K f4E2M1FN), B (N x K f4E2M1FN),
// SFA/SFB (blocked f8E4M3FN scale factors), C (M x N f16). M is dynamic; N and K static.
func.func @b3(
    %a0: memref<?x4096xf4E2M1FN>,
    %a1: memref<?x4096xf4E2M1FN>,
    %b0: memref<3072x4096xf4E2M1FN>,
    %b1: memref<3072x4096xf4E2M1FN>,
    %sfa0: memref<?x64x32x4x4xf8E4M3FN>,
    %sfa1: memref<?x64x32x4x4xf8E4M3FN>,
    %sfb0: memref<24x64x32x4x4xf8E4M3FN>,
    %sfb1: memref<24x64x32x4x4xf8E4M3FN>,
    %c0: memref<?x3072xf16>,
    %c1: memref<?x3072xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 :
        memref<?x4096xf4E2M1FN>, memref<?x4096xf4E2M1FN>)
      b(%b0, %b1 :
        memref<3072x4096xf4E2M1FN>, memref<3072x4096xf4E2M1FN>)
      sfa(%sfa0, %sfa1 :
        memref<?x64x32x4x4xf8E4M3FN>, memref<?x64x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 :
        memref<24x64x32x4x4xf8E4M3FN>, memref<24x64x32x4x4xf8E4M3FN>)
      c(%c0, %c1 :
        memref<?x3072xf16>, memref<?x3072xf16>)
      {target = "sm_100a", kernel_name = "nvfp4_b3"}
  return
}
