// The host lowering from the plugin inside the stock mlir-opt: the pass, and (with ptxas)
// the whole nvfp4-emulation-to-host pipeline down to the LLVM dialect.
// RUN: %mlir_opt %nvfp4_src/examples/host-launch/host_launch.mlir \
// RUN:   --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(nvfp4-host-launch)" | FileCheck %s
// RUN: %if ptxas %{ %mlir_opt %nvfp4_src/examples/host-launch/host_launch.mlir \
// RUN:   --load-dialect-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_libs/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(nvfp4-emulation-to-host)" | FileCheck %s --check-prefix=LLVM %}
// CHECK: func.func @host_launch({{.*}}) -> i32 attributes {llvm.emit_c_interface}
// CHECK: llvm.call @nvfp4rt_gen_module_load
// CHECK: llvm.call @nvfp4rt_gen_launch
// LLVM: llvm.mlir.global internal constant @host_launch_k_cubin("\7FELF
// LLVM: llvm.func @_mlir_ciface_host_launch(
