// host_launch.mlir — a host function holding one nvfp4.grouped_matmul (test case test:0 of
// docs/format.md: 2 groups, N = 128, 256, K = 256, 512, M dynamic), lowered to host code by
// the nvfp4-to-host / nvfp4-emulation-to-host pipelines (docs/passes.md). C has a row
// stride (strided<[?, 1]>); the last argument is the CUDA stream the kernel runs on.
// After lowering, C calls it as
//   int32_t _mlir_ciface_host_launch(nvfp4rt_memref_2d *a0, ..., nvfp4rt_memref_2d *c1,
//                                    void *stream);
// which returns an nvfp4rt_status (run.sh builds and runs main.c against it).
func.func @host_launch(
    %a0: memref<?x256xf4E2M1FN>, %a1: memref<?x512xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>, %b1: memref<256x512xf4E2M1FN>,
    %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfa1: memref<?x8x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %sfb1: memref<2x8x32x4x4xf8E4M3FN>,
    %c0: memref<?x128xf16, strided<[?, 1]>>, %c1: memref<?x256xf16, strided<[?, 1]>>,
    %stream: !llvm.ptr {nvfp4.stream}) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<?x256xf4E2M1FN>, memref<?x512xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<256x512xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x8x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<1x4x32x4x4xf8E4M3FN>, memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x128xf16, strided<[?, 1]>>, memref<?x256xf16, strided<[?, 1]>>)
      {target = "sm_100a", kernel_name = "host_launch_k"}
  return
}
