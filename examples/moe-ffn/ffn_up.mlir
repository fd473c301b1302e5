// ffn_up.mlir — the expert-FFN example's up-projection at DeepSeek-V3's shapes: the
// contiguous form over 256 experts, B = w13 with 2I = 4096 gate/up rows per expert (gate
// rows 0..2047, up rows 2048..4095), K = hidden = 7168, alpha per expert, and the fused
// SwiGLU + NVFP4 epilogue: C is the FP4 intermediate (M x 2048) and sfc its block scales
// in the expert-segment layout the down-projection (ffn_down.mlir) reads as its SFA. The
// token count M is dynamic. Written for sm_90a; the build retargets it (CMakeLists.txt).
func.func @ffn_up(%x: memref<?x7168xf4E2M1FN>,
                  %w13: memref<256x4096x7168xf4E2M1FN>,
                  %sx: memref<?x112x32x4x4xf8E4M3FN>,
                  %sw13: memref<256x32x112x32x4x4xf8E4M3FN>,
                  %h: memref<?x2048xf4E2M1FN>,
                  %offsets: memref<257xi32>,
                  %alpha: memref<256xf32>,
                  %sh: memref<?x32x32x4x4xf8E4M3FN>,
                  %gs: memref<256xf32>) {
  nvfp4.moe_matmul
      a(%x : memref<?x7168xf4E2M1FN>)
      b(%w13 : memref<256x4096x7168xf4E2M1FN>)
      sfa(%sx : memref<?x112x32x4x4xf8E4M3FN>)
      sfb(%sw13 : memref<256x32x112x32x4x4xf8E4M3FN>)
      c(%h : memref<?x2048xf4E2M1FN>)
      offsets(%offsets : memref<257xi32>)
      alpha(%alpha : memref<256xf32>)
      sfc(%sh : memref<?x32x32x4x4xf8E4M3FN>)
      gs(%gs : memref<256xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_90a", kernel_name = "ffn_up"}
  return
}
