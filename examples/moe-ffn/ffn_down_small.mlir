// ffn_down_small.mlir — ffn_down.mlir at the example's scaled-down shape (--small): 16
// experts, K = I = 256, hidden = 512 rows of w2 per expert, bf16 C.
func.func @ffn_down_small(%h: memref<?x256xf4E2M1FN>,
                          %w2: memref<16x512x256xf4E2M1FN>,
                          %sh: memref<?x4x32x4x4xf8E4M3FN>,
                          %sw2: memref<16x4x4x32x4x4xf8E4M3FN>,
                          %y: memref<?x512xbf16>,
                          %offsets: memref<17xi32>,
                          %alpha: memref<16xf32>) {
  nvfp4.moe_matmul
      a(%h : memref<?x256xf4E2M1FN>)
      b(%w2 : memref<16x512x256xf4E2M1FN>)
      sfa(%sh : memref<?x4x32x4x4xf8E4M3FN>)
      sfb(%sw2 : memref<16x4x4x32x4x4xf8E4M3FN>)
      c(%y : memref<?x512xbf16>)
      offsets(%offsets : memref<17xi32>)
      alpha(%alpha : memref<16xf32>)
      {target = "sm_90a", kernel_name = "ffn_down_small"}
  return
}
