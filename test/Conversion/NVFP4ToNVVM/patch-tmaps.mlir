// Kernels built to patch their own tensor maps (the op's unit attribute nvfp4.patch_tmaps;
// KernelABI.h, NVFP4_ABI_FLAG_PATCH_TMAPS): the metadata says so (flag 4), each kernel has
// one tensormap.replace and one release in its prologue, acquires for the maps each role
// issues TMA on (A, B, SFA, SFB in the producer, C in a TMA-store epilogue), and picks its
// maps from the device table (at the header's HDR_TABLE, byte 32) or its patched copies at
// run time. Kernels without the
// attribute have none of it (lower-grouped-matmul.mlir counts their inline asm).
// RUN: nvfp4-opt %s --nvfp4-lower-grouped-matmul | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-lower-grouped-matmul -o %t.mlir
// RUN: grep -c "llvm.inline_asm.*tensormap.replace.tile.global_address.global.b1024.b64" %t.mlir | FileCheck %s --check-prefix=TWO
// RUN: grep -c "llvm.inline_asm.*fence.proxy.tensormap::generic.release.gpu" %t.mlir | FileCheck %s --check-prefix=TWO
// RUN: grep -c "llvm.inline_asm.*fence.proxy.tensormap::generic.acquire.gpu" %t.mlir | FileCheck %s --check-prefix=NINE
// RUN: %if ptxas %{ nvfp4-compile %s -o %t.cubin --ptx %t.ptx %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=PTX < %t.ptx %}
// RUN: %if ptxas %{ nvfp4-run --info %t.cubin | FileCheck %s --check-prefix=INFO %}
// RUN: %if ptxas %{ nvfp4-compile %s --proxy -o %t.proxy.cubin %}
// RUN: %if ptxas %{ nvfp4-run --info %t.proxy.cubin | FileCheck %s --check-prefix=PROXY %}

// Record 0's flags: NVFP4_META_FLAG_PATCH_TMAPS | NVFP4_META_FLAG_PDL.
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E56463406000000000100006400000014000000
// CHECK-LABEL: llvm.func @patched_ab_n128(
// The device table, the header flag and the copies' address.
// CHECK: llvm.getelementptr %arg0[32]
// CHECK: llvm.getelementptr %arg0[12]
// CHECK: llvm.getelementptr %arg0[40]
// CHECK-DAG: llvm.inline_asm has_side_effects "tensormap.replace.tile.global_address.global.b1024.b64 [$0], $1;", "l,l,~{memory}"
// CHECK-DAG: llvm.inline_asm has_side_effects "fence.proxy.tensormap::generic.release.gpu;", "~{memory}"
// CHECK-DAG: llvm.inline_asm has_side_effects "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;", "l,~{memory}"
// CHECK: llvm.select
// CHECK-LABEL: llvm.func @patched_ab_n128_st(
// TWO: {{^}}2{{$}}
// A TMA-store variant acquires 5 maps, a direct-store one 4.
// NINE: {{^}}9{{$}}
// PTX: tensormap.replace.tile.global_address.global.b1024.b64
// PTX: fence.proxy.tensormap::generic.release.gpu
// PTX: fence.proxy.tensormap::generic.acquire.gpu
// INFO: flags: {{ *}}0x14
// PROXY: flags: {{ *}}0x16
func.func @patched(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                   %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                   %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>)
      {target = "sm_100a", kernel_name = "patched", variants = ["ab_n128", "ab_n128_st"],
       nvfp4.patch_tmaps}
  return
}
