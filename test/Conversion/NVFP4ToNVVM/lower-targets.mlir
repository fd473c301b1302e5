// The tcgen05 kernel family for every target of that generator (include/nvfp4-c/Targets.h):
// sm_100f (B200 and B300 from one cubin) and sm_103a (B300) build the same kernels as
// sm_100a; only the module's chip and the metadata's target differ. MLIR 22's per-op SM
// check lists tcgen05 for sm_100a / sm_101a only, so those modules say verifyTarget = false
// (LLVM NVPTX and ptxas check the instructions for the chip).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul | FileCheck %s

// Record 0: "NVF4", ABI 3, 256 bytes, target_sm 100 (0x64); the target string "sm_100f".
// CHECK-LABEL: gpu.module @family_module [#nvvm.target<O = 3, chip = "sm_100f", features = "+ptx88", verifyTarget = false>]
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E5646340600000000010000640000
// CHECK: llvm.func @family_ab_n128(
// CHECK: nvvm.tcgen05.alloc
// CHECK: nvvm.tcgen05.mma.block_scale
// CHECK: llvm.func @family_swap_n128(
// CHECK: llvm.func @family_swap_n256(
func.func @family(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                  %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                  %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100f", kernel_name = "family"}
  return
}

// -----

// Record 0: target_sm 103 (0x67).
// CHECK-LABEL: gpu.module @b300_module [#nvvm.target<O = 3, chip = "sm_103a", features = "+ptx88", verifyTarget = false>]
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E5646340600000000010000670000
// CHECK: llvm.func @b300_ab_n128(
// CHECK: nvvm.tcgen05.mma.block_scale
func.func @b300(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_103a", kernel_name = "b300"}
  return
}

// -----

// The same for the contiguous form (and the 'nvfp4.patch_tmaps' of the pointer array form,
// which every tcgen05 target implements).
// CHECK-LABEL: gpu.module @moe_family_module [#nvvm.target<O = 3, chip = "sm_100f", features = "+ptx88", verifyTarget = false>]
// CHECK: llvm.func @moe_family_ab_n128(
// CHECK-LABEL: gpu.module @patched_module [#nvvm.target<O = 3, chip = "sm_103a", features = "+ptx88", verifyTarget = false>]
// CHECK: nvvm.tcgen05.mma.block_scale
func.func @moe(%a: memref<?x256xf4E2M1FN>, %b: memref<8x128x256xf4E2M1FN>,
               %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<8x1x4x32x4x4xf8E4M3FN>,
               %c: memref<?x128xbf16>, %off: memref<9xi32>) {
  nvfp4.moe_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<8x128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xbf16>) offsets(%off : memref<9xi32>)
      {target = "sm_100f", kernel_name = "moe_family"}
  return
}
func.func @patched(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                   %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                   %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>)
      {target = "sm_103a", kernel_name = "patched", nvfp4.patch_tmaps}
  return
}
