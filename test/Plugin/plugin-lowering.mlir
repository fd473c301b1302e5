// The pass plugin drives the whole lowering inside the stock mlir-opt (passes loaded by a
// plugin are reachable through --pass-pipeline; their flag form is parsed too early), for
// the tcgen05 targets (sm_100a, sm_100f, sm_103a) and the sm_12x ones (sm_120a, sm_120f: the
// family target, its metadata naming it; sm_121a), and both emulations.
// RUN: %mlir_opt %s --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(nvfp4-lower-grouped-matmul)" | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(nvfp4-lower-grouped-matmul,nvfp4-emulate-tcgen05)" \
// RUN:   | FileCheck %s --check-prefix=EMU
// Every target of the table (include/nvfp4-c/Targets.h), here the tcgen05 family's:
// RUN: sed 's/"sm_100a"/"sm_100f"/' %s | %mlir_opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(nvfp4-lower-grouped-matmul)" | FileCheck %s --check-prefix=FAMILY
// RUN: sed 's/"sm_100a"/"sm_120a"/' %s | %mlir_opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(nvfp4-lower-grouped-matmul)" | FileCheck %s --check-prefix=RTX
// RUN: sed 's/"sm_100a"/"sm_103a"/' %s | %mlir_opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(nvfp4-lower-grouped-matmul)" | FileCheck %s --check-prefix=B300
// RUN: sed 's/"sm_100a"/"sm_120f"/' %s | %mlir_opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(nvfp4-lower-grouped-matmul)" | FileCheck %s --check-prefix=RTXFAM
// RUN: sed 's/"sm_100a"/"sm_121a"/' %s | %mlir_opt --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(nvfp4-lower-grouped-matmul,nvfp4-emulate-sm120)" \
// RUN:   | FileCheck %s --check-prefix=RTXEMU

// CHECK-LABEL: gpu.module @plugin_kernel_module [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">]
// CHECK: llvm.func @plugin_kernel_ab_n128(
// CHECK: nvvm.tcgen05.mma.block_scale
// EMU: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx88", link = [
// EMU: llvm.call @nvfp4_emu_tcgen05_mma_mxf4nvf4_block16(
// FAMILY: gpu.module @plugin_kernel_module [#nvvm.target<O = 3, chip = "sm_100f", features = "+ptx88", verifyTarget = false>]
// FAMILY: nvvm.tcgen05.mma.block_scale
// RTX: gpu.module @plugin_kernel_module [#nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">]
// RTX: nvvm.mma.block_scale
// RTXFAM: gpu.module @plugin_kernel_module [#nvvm.target<O = 3, chip = "sm_120f", features = "+ptx88">]
// RTXFAM: nvfp4_kernel_metadata
// RTXFAM-SAME: 736D5F31323066
// RTXFAM: llvm.func @plugin_kernel_ab_n128({{.*}}nvfp4.plan = ["variant ab_n128", "threads 288"
// RTXFAM: nvvm.mma.block_scale
// RTXFAM: llvm.func @plugin_kernel_swap_n64(
// RTXFAM: llvm.func @plugin_kernel_swap_n128(
// B300: gpu.module @plugin_kernel_module [#nvvm.target<O = 3, chip = "sm_103a", features = "+ptx88", verifyTarget = false>]
// RTXEMU: gpu.module @plugin_kernel_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx88", link = [
// RTXEMU-NOT: nvvm.mma.block_scale
// RTXEMU: llvm.call @nvfp4_emu_mma_sync_mxf4nvf4_4x(
func.func @one(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
               %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
               %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", kernel_name = "plugin_kernel"}
  return
}
