// plugin.mlir — NVFP4Plugin.so loaded into the stock mlir-opt as a dialect plugin and a pass
// plugin: the op parses, verifies (the C verifier runs inside the plugin) and round-trips.
// RUN: %mlir_opt %s --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext --mlir-print-op-generic \
// RUN:   | %mlir_opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext | FileCheck %s
// RUN: %mlir_opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext --help | FileCheck %s --check-prefix=PASSES

// The pass plugin registers the nvfp4 passes (include/nvfp4-c/Passes.h) by name.
// PASSES: --nvfp4-lower-grouped-matmul

// CHECK-LABEL: func.func @two_groups(
// CHECK: nvfp4.grouped_matmul
// CHECK-SAME: a(%{{.*}}, %{{.*}} : memref<?x256xf4E2M1FN>, memref<?x512xf4E2M1FN>)
// CHECK-SAME: c(%{{.*}}, %{{.*}} : memref<?x128xf16>, memref<?x256xf16>)
// CHECK-SAME: {target = "sm_100a"}
func.func @two_groups(
    %a0: memref<?x256xf4E2M1FN>, %a1: memref<?x512xf4E2M1FN>,
    %b0: memref<128x256xf4E2M1FN>, %b1: memref<256x512xf4E2M1FN>,
    %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfa1: memref<?x8x32x4x4xf8E4M3FN>,
    %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %sfb1: memref<2x8x32x4x4xf8E4M3FN>,
    %c0: memref<?x128xf16>, %c1: memref<?x256xf16>) {
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<?x256xf4E2M1FN>, memref<?x512xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<256x512xf4E2M1FN>)
      sfa(%sfa0, %sfa1 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x8x32x4x4xf8E4M3FN>)
      sfb(%sfb0, %sfb1 : memref<1x4x32x4x4xf8E4M3FN>, memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x128xf16>, memref<?x256xf16>)
      {target = "sm_100a"}
  return
}

