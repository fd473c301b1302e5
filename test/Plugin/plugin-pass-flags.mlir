// plugin-pass-flags.mlir — how the plugin's passes are named in the stock mlir-opt 22. A
// pass plugin is loaded while mlir-opt parses its command line (the --load-pass-plugin
// option's callback), after mlir-opt built its table of one flag per registered pass, so
// the flag form (--nvfp4-lower-grouped-matmul) is refused as an unknown argument although
// --help lists the pass. A textual pipeline (--pass-pipeline=..., or its short form -p)
// looks its passes up when it is parsed, after the plugin is loaded, and finds them. The
// README ("Using it") and docs/passes.md give this form. The lowered function carries
// `nvfp4.kernel = @<module>`: the gpu.module of the kernel family, not one kernel.
// RUN: %mlir_opt %s --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(nvfp4-lower-grouped-matmul)" | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   -p "builtin.module(nvfp4-lower-grouped-matmul)" | FileCheck %s
// RUN: not %mlir_opt %s --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --nvfp4-lower-grouped-matmul 2>&1 | FileCheck %s --check-prefix=FLAG
// The flags of nvfp4-opt, which registers the passes before parsing its command line:
// RUN: nvfp4-opt %s --nvfp4-lower-grouped-matmul | FileCheck %s

// FLAG: Unknown command line argument '--nvfp4-lower-grouped-matmul'

// CHECK-LABEL: func.func @flags(
// CHECK-SAME: attributes {nvfp4.kernel = @flags_k_module} {
// CHECK: gpu.module @flags_k_module
// CHECK: llvm.func @flags_k_ab_n128(
func.func @flags(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                 %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                 %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", kernel_name = "flags_k"}
  return
}
