// b2.mlir — Benchmark B2 (docs/format.md): 8 groups, M per group 40,76,168,72,164,148,196,160 (dynamic), N = 7168, K = 2048.
// One nvfp4.grouped_matmul over per-group memrefs: A (M x K f4E2M1FN), B (N x K f4E2M1FN),
// SFA/SFB (blocked f8E4M3FN scale factors), C (M x N f16). M is dynamic; N and K static.
func.func @b2(
    %a0: memref<?x2048xf4E2M1FN>,
    %a1: memref<?x2048xf4E2M1FN>,
    %a2: memref<?x2048xf4E2M1FN>,
    %a3: memref<?x2048xf4E2M1FN>,
    %a4: memref<?x2048xf4E2M1FN>,
    %a5: memref<?x2048xf4E2M1FN>,
    %a6: memref<?x2048xf4E2M1FN>,
    %a7: memref<?x2048xf4E2M1FN>,
    %b0: memref<7168x2048xf4E2M1FN>,
    %b1: memref<7168x2048xf4E2M1FN>,
    %b2: memref<7168x2048xf4E2M1FN>,
    %b3: memref<7168x2048xf4E2M1FN>,
    %b4: memref<7168x2048xf4E2M1FN>,
    %b5: memref<7168x2048xf4E2M1FN>,
    %b6: memref<7168x2048xf4E2M1FN>,
    %b7: memref<7168x2048xf4E2M1FN>,
    %sfa0: memref<?x32x32x4x4xf8E4M3FN>,
    %sfa1: memref<?x32x32x4x4xf8E4M3FN>,
    %sfa2: memref<?x32x32x4x4xf8E4M3FN>,
    %sfa3: memref<?x32x32x4x4xf8E4M3FN>,
    %sfa4: memref<?x32x32x4x4xf8E4M3FN>,
    %sfa5: memref<?x32x32x4x4xf8E4M3FN>,
    %sfa6: memref<?x32x32x4x4xf8E4M3FN>,
    %sfa7: memref<?x32x32x4x4xf8E4M3FN>,
    %sfb0: memref<56x32x32x4x4xf8E4M3FN>,
    %sfb1: memref<56x32x32x4x4xf8E4M3FN>,
    %sfb2: memref<56x32x32x4x4xf8E4M3FN>,
    %sfb3: memref<56x32x32x4x4xf8E4M3FN>,
    %sfb4: memref<56x32x32x4x4xf8E4M3FN>,
    %sfb5: memref<56x32x32x4x4xf8E4M3FN>,
    %sfb6: memref<56x32x32x4x4xf8E4M3FN>,
    %sfb7: memref<56x32x32x4x4xf8E4M3FN>,
    %c0: memref<?x7168xf16>,
    %c1: memref<?x7168xf16>,
    %c2: memref<?x7168xf16>,
    %c3: memref<?x7168xf16>,
    %c4: memref<?x7168xf16>,
    %c5: memref<?x7168xf16>,
    %c6: memref<?x7168xf16>,
    %c7: memref<?x7168xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7 :
        memref<?x2048xf4E2M1FN>, memref<?x2048xf4E2M1FN>, memref<?x2048xf4E2M1FN>, memref<?x2048xf4E2M1FN>, memref<?x2048xf4E2M1FN>, memref<?x2048xf4E2M1FN>, memref<?x2048xf4E2M1FN>, memref<?x2048xf4E2M1FN>)
      b(%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7 :
        memref<7168x2048xf4E2M1FN>, memref<7168x2048xf4E2M1FN>, memref<7168x2048xf4E2M1FN>, memref<7168x2048xf4E2M1FN>, memref<7168x2048xf4E2M1FN>, memref<7168x2048xf4E2M1FN>, memref<7168x2048xf4E2M1FN>, memref<7168x2048xf4E2M1FN>)
      sfa(%sfa0, %sfa1, %sfa2, %sfa3, %sfa4, %sfa5, %sfa6, %sfa7 :
        memref<?x32x32x4x4xf8E4M3FN>, memref<?x32x32x4x4xf8E4M3FN>, memref<?x32x32x4x4xf8E4M3FN>, memref<?x32x32x4x4xf8E4M3FN>, memref<?x32x32x4x4xf8E4M3FN>, memref<?x32x32x4x4xf8E4M3FN>, memref<?x32x32x4x4xf8E4M3FN>, memref<?x32x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1, %sfb2, %sfb3, %sfb4, %sfb5, %sfb6, %sfb7 :
        memref<56x32x32x4x4xf8E4M3FN>, memref<56x32x32x4x4xf8E4M3FN>, memref<56x32x32x4x4xf8E4M3FN>, memref<56x32x32x4x4xf8E4M3FN>, memref<56x32x32x4x4xf8E4M3FN>, memref<56x32x32x4x4xf8E4M3FN>, memref<56x32x32x4x4xf8E4M3FN>, memref<56x32x32x4x4xf8E4M3FN>)
      c(%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7 :
        memref<?x7168xf16>, memref<?x7168xf16>, memref<?x7168xf16>, memref<?x7168xf16>, memref<?x7168xf16>, memref<?x7168xf16>, memref<?x7168xf16>, memref<?x7168xf16>)
      {target = "sm_100a", kernel_name = "nvfp4_b2"}
  return
}
