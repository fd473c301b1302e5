// ffn_up_small.mlir — ffn_up.mlir at the example's scaled-down shape (--small): 16
// experts, 2I = 512 gate/up rows, hidden = 512, I = 256.
func.func @ffn_up_small(%x: memref<?x512xf4E2M1FN>,
                        %w13: memref<16x512x512xf4E2M1FN>,
                        %sx: memref<?x8x32x4x4xf8E4M3FN>,
                        %sw13: memref<16x4x8x32x4x4xf8E4M3FN>,
                        %h: memref<?x256xf4E2M1FN>,
                        %offsets: memref<17xi32>,
                        %alpha: memref<16xf32>,
                        %sh: memref<?x4x32x4x4xf8E4M3FN>,
                        %gs: memref<16xf32>) {
  nvfp4.moe_matmul
      a(%x : memref<?x512xf4E2M1FN>)
      b(%w13 : memref<16x512x512xf4E2M1FN>)
      sfa(%sx : memref<?x8x32x4x4xf8E4M3FN>)
      sfb(%sw13 : memref<16x4x8x32x4x4xf8E4M3FN>)
      c(%h : memref<?x256xf4E2M1FN>)
      offsets(%offsets : memref<17xi32>)
      alpha(%alpha : memref<16xf32>)
      sfc(%sh : memref<?x4x32x4x4xf8E4M3FN>)
      gs(%gs : memref<16xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_90a", kernel_name = "ffn_up_small"}
  return
}
