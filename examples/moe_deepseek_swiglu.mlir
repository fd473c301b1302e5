// moe_deepseek_swiglu.mlir — DeepSeek-V3's MoE up-projection with the fused SwiGLU + NVFP4
// epilogue, contiguous form: 256 experts, B = w13 with 2I = 4096 gate/up rows per expert
// (gate rows 0..2047, up rows 2048..4095), K = 7168; C is the FP4 intermediate (M x 2048,
// I = 2048) and sfc its block scales in the expert-segment layout the down-projection reads
// as its SFA (K = 2048: 32 atoms of 64 per atom row), gs the per-expert global scales. The
// sm_100a family is ab_n256_st alone (docs/kernel-sm100a.md).
func.func @deepseek_v3_up_swiglu(%tokens: memref<?x7168xf4E2M1FN>,
                                 %w13: memref<256x4096x7168xf4E2M1FN>,
                                 %token_scales: memref<?x112x32x4x4xf8E4M3FN>,
                                 %w13_scales: memref<256x32x112x32x4x4xf8E4M3FN>,
                                 %h: memref<?x2048xf4E2M1FN>,
                                 %offsets: memref<257xi32>,
                                 %alpha: memref<256xf32>,
                                 %h_scales: memref<?x32x32x4x4xf8E4M3FN>,
                                 %gs: memref<256xf32>) {
  nvfp4.moe_matmul
      a(%tokens : memref<?x7168xf4E2M1FN>)
      b(%w13 : memref<256x4096x7168xf4E2M1FN>)
      sfa(%token_scales : memref<?x112x32x4x4xf8E4M3FN>)
      sfb(%w13_scales : memref<256x32x112x32x4x4xf8E4M3FN>)
      c(%h : memref<?x2048xf4E2M1FN>)
      offsets(%offsets : memref<257xi32>)
      alpha(%alpha : memref<256xf32>)
      sfc(%h_scales : memref<?x32x32x4x4xf8E4M3FN>)
      gs(%gs : memref<256xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a", kernel_name = "deepseek_v3_up_swiglu"}
  return
}
