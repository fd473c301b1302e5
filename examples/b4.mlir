// b4.mlir — Benchmark B4 (docs/format.md): 2 groups, M per group 128,384 (dynamic), N = 4096, K = 1536.
// One nvfp4.grouped_matmul over per-group memrefs: A (M x K f4E2M1FN), B (N x K f4E2M1FN),
// SFA/SFB (blocked f8E4M3FN scale factors), C (M x N f16). M is dynamic; N and K static.
func.func @b4(
    %a0: memref<?x1536xf4E2M1FN>,
    %a1: memref<?x1536xf4E2M1FN>,
    %b0: memref<4096x1536xf4E2M1FN>,
    %b1: memref<4096x1536xf4E2M1FN>,
    %sfa0: memref<?x24x32x4x4xf8E4M3FN>,
    %sfa1: memref<?x24x32x4x4xf8E4M3FN>,
    %sfb0: memref<32x24x32x4x4xf8E4M3FN>,
    %sfb1: memref<32x24x32x4x4xf8E4M3FN>,
    %c0: memref<?x4096xf16>,
    %c1: memref<?x4096xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 :
        memref<?x1536xf4E2M1FN>, memref<?x1536xf4E2M1FN>)
      b(%b0, %b1 :
        memref<4096x1536xf4E2M1FN>, memref<4096x1536xf4E2M1FN>)
      sfa(%sfa0, %sfa1 :
        memref<?x24x32x4x4xf8E4M3FN>, memref<?x24x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 :
        memref<32x24x32x4x4xf8E4M3FN>, memref<32x24x32x4x4xf8E4M3FN>)
      c(%c0, %c1 :
        memref<?x4096xf16>, memref<?x4096xf16>)
      {target = "sm_100a", kernel_name = "nvfp4_b4"}
  return
}
