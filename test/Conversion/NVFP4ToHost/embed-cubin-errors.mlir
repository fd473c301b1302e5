// What --nvfp4-embed-cubin refuses, with a diagnostic at the placeholder global.
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics --nvfp4-embed-cubin

// expected-error @+1 {{nvfp4-embed-cubin: no gpu.binary @k_module for this global (run nvfp4-lower-grouped-matmul and gpu-module-to-binary{format=bin} first)}}
llvm.mlir.global internal constant @k_cubin("") {nvfp4.cubin_of = "k_module"} : !llvm.array<0 x i8>

// -----

module attributes {gpu.container_module} {
  gpu.binary @k_module [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = "// PTX">]
  // expected-error @+1 {{nvfp4-embed-cubin: the object of gpu.binary @k_module is not a cubin (an ELF image); serialise with gpu-module-to-binary{format=bin}}}
  llvm.mlir.global internal constant @k_cubin_size(0 : i64) {nvfp4.cubin_size_of = "k_module"} : i64
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @k_module [#gpu.object<#nvvm.target<chip = "sm_90a">, bin = "\7FELF">,
                        #gpu.object<#nvvm.target<chip = "sm_100a">, bin = "\7FELF">]
  // expected-error @+1 {{nvfp4-embed-cubin: gpu.binary @k_module must hold exactly one object}}
  llvm.mlir.global internal constant @k_cubin("") {nvfp4.cubin_of = "k_module"} : !llvm.array<0 x i8>
}

// -----

func.func @k_module() {
  return
}
// expected-error @+1 {{nvfp4-embed-cubin: no gpu.binary @k_module for this global}}
llvm.mlir.global internal constant @k_cubin("") {nvfp4.cubin_of = "k_module"} : !llvm.array<0 x i8>
