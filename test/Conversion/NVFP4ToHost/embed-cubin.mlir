// --nvfp4-embed-cubin: the cubin of a gpu.binary copied into the host code's placeholder
// globals (bytes and size), the markers and the gpu.binary removed; binaries nothing points
// at stay (errors: embed-cubin-errors.mlir).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-embed-cubin | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --nvfp4-embed-cubin --mlir-print-op-generic | FileCheck %s --check-prefix=TYPE

// CHECK-LABEL: {{^}}module attributes {gpu.container_module} {
// CHECK-NOT: gpu.binary @k_module
// CHECK: llvm.mlir.global internal constant @k_cubin("\7FELF\02\01\00\FF") {addr_space = 0 : i32, alignment = 16 : i64}{{$}}
// TYPE: "llvm.mlir.global"() <{addr_space = 0 : i32, alignment = 16 : i64, constant, global_type = !llvm.array<8 x i8>, linkage = #llvm.linkage<internal>, sym_name = "k_cubin"
// TYPE: "llvm.mlir.global"() <{addr_space = 0 : i32, constant, global_type = i64, linkage = #llvm.linkage<internal>, sym_name = "k_cubin_size", {{.*}}value = 8 : i64
// CHECK: llvm.mlir.global internal constant @k_cubin_size(8 : i64) {addr_space = 0 : i32} : i64
// CHECK: gpu.binary @other
// CHECK-NOT: nvfp4.cubin
module attributes {gpu.container_module} {
  gpu.binary @k_module [#gpu.object<#nvvm.target<chip = "sm_90a">, bin = "\7FELF\02\01\00\FF">]
  llvm.mlir.global internal constant @k_cubin("") {alignment = 16 : i64, nvfp4.cubin_of = "k_module"} : !llvm.array<0 x i8>
  llvm.mlir.global internal constant @k_cubin_size(0 : i64) {nvfp4.cubin_size_of = "k_module"} : i64
  gpu.binary @other [#gpu.object<#nvvm.target<chip = "sm_90a">, bin = "\7FELF">]
}
