// moe_deepseek_up.mlir — DeepSeek-V3's MoE up-projection in the contiguous form: 256
// experts, N = 4096, K = 7168, all routed tokens in one buffer sorted by expert (M rows,
// any number), the expert offsets and the per-expert global scales (alpha) in device
// memory, bf16 output. One cubin and one captured CUDA graph serve every routing.
func.func @deepseek_v3_up(%tokens: memref<?x7168xf4E2M1FN>,
                          %weights: memref<256x4096x7168xf4E2M1FN>,
                          %token_scales: memref<?x112x32x4x4xf8E4M3FN>,
                          %weight_scales: memref<256x32x112x32x4x4xf8E4M3FN>,
                          %out: memref<?x4096xbf16>,
                          %offsets: memref<257xi32>,
                          %alpha: memref<256xf32>) {
  nvfp4.moe_matmul
      a(%tokens : memref<?x7168xf4E2M1FN>)
      b(%weights : memref<256x4096x7168xf4E2M1FN>)
      sfa(%token_scales : memref<?x112x32x4x4xf8E4M3FN>)
      sfb(%weight_scales : memref<256x32x112x32x4x4xf8E4M3FN>)
      c(%out : memref<?x4096xbf16>)
      offsets(%offsets : memref<257xi32>)
      alpha(%alpha : memref<256xf32>)
      {target = "sm_100a", kernel_name = "deepseek_v3_up"}
  return
}
