// gpu-module-to-binary.mlir — nvfp4-opt has the NVVM target model, the ConvertToLLVM
// interfaces and the LLVM IR translations registered: a trivial sm_100a kernel lowers to
// NVVM, PTX (format=isa, no CUDA needed) and a cubin (format=bin, needs ptxas).
// RUN: nvfp4-opt %s --convert-gpu-to-nvvm --reconcile-unrealized-casts \
// RUN:   --gpu-module-to-binary=format=isa | FileCheck %s --check-prefix=ISA
// RUN: %if ptxas %{ nvfp4-opt %s --convert-gpu-to-nvvm --reconcile-unrealized-casts \
// RUN:   --gpu-module-to-binary="format=bin toolkit=%cuda_root" | FileCheck %s --check-prefix=BIN %}

// ISA: gpu.binary @kernels
// ISA-SAME: #nvvm.target<chip = "sm_100a", features = "+ptx88">
// ISA-SAME: .target sm_100a
// BIN: gpu.binary @kernels
// BIN-SAME: #gpu.object<#nvvm.target<chip = "sm_100a", features = "+ptx88">
// BIN-NOT: .target sm_100a
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
    gpu.func @store_one(%p: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = arith.constant 1.0 : f32
      memref.store %v, %p[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
