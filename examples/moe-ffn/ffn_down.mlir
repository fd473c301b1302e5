// ffn_down.mlir — the expert-FFN example's down-projection at DeepSeek-V3's shapes: the
// contiguous form over 256 experts, A = the FP4 intermediate h (M x 2048) and SFA = its
// block scales, both as the up-projection (ffn_up.mlir) wrote them (no copy), B = w2 with
// hidden = 7168 rows per expert, K = I = 2048, bf16 C (M x 7168) and alpha = 1/gs per
// expert. Written for sm_90a; the build retargets it (CMakeLists.txt).
func.func @ffn_down(%h: memref<?x2048xf4E2M1FN>,
                    %w2: memref<256x7168x2048xf4E2M1FN>,
                    %sh: memref<?x32x32x4x4xf8E4M3FN>,
                    %sw2: memref<256x56x32x32x4x4xf8E4M3FN>,
                    %y: memref<?x7168xbf16>,
                    %offsets: memref<257xi32>,
                    %alpha: memref<256xf32>) {
  nvfp4.moe_matmul
      a(%h : memref<?x2048xf4E2M1FN>)
      b(%w2 : memref<256x7168x2048xf4E2M1FN>)
      sfa(%sh : memref<?x32x32x4x4xf8E4M3FN>)
      sfb(%sw2 : memref<256x56x32x32x4x4xf8E4M3FN>)
      c(%y : memref<?x7168xbf16>)
      offsets(%offsets : memref<257xi32>)
      alpha(%alpha : memref<256xf32>)
      {target = "sm_90a", kernel_name = "ffn_down"}
  return
}
