// sm_90a kernels built to patch their own tensor maps (nvfp4.patch_tmaps; KernelABI.h,
// NVFP4_ABI_FLAG_PATCH_TMAPS): the family is the variants whose consumers have room for the
// maps' run-time selection (swap_n128, swap_n64: 160 registers; the 192-weight, 192-token
// and stream-K variants spilled 16-52 bytes and are left out of the default family, and
// refused by name). Each kernel patches its copies in the prologue (one tensormap.replace,
// one release, its 640 threads dealing the maps), the producer thread acquires A, B, SFA
// and SFB and each consumer warpgroup's TMA-store thread C: 5 acquires per kernel.
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics --nvfp4-lower-grouped-matmul -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: grep -c "llvm.inline_asm.*tensormap.replace.tile.global_address.global.b1024.b64" %t.mlir | FileCheck %s --check-prefix=TWO
// RUN: grep -c "llvm.inline_asm.*fence.proxy.tensormap::generic.acquire.gpu" %t.mlir | FileCheck %s --check-prefix=TEN
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E564634060000000001000{{[0-9A-F]}}5A00000014000000
// CHECK-LABEL: llvm.func @patched90_swap_n128(
// CHECK: nvvm.reqntid = array<i32: 640, 1, 1>
// CHECK: llvm.getelementptr %arg0[12]
// CHECK: llvm.getelementptr %arg0[40]
// CHECK-LABEL: llvm.func @patched90_swap_n64(
// CHECK-NOT: llvm.func @patched90_swap_n192
// TWO: {{^}}2{{$}}
// TEN: {{^}}10{{$}}
func.func @patched90(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                     %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                     %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>)
      {target = "sm_90a", kernel_name = "patched90", nvfp4.patch_tmaps}
  return
}

// -----

func.func @patched90_named(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                           %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                           %c: memref<?x4096xf16>) {
  // expected-error @+1 {{variant 'swap_n128_m192' cannot patch its tensor maps (nvfp4.patch_tmaps) on sm_90a: its consumer warpgroups have no registers left for the maps' selection}}
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>)
      {target = "sm_90a", kernel_name = "patched90n", variants = ["swap_n128", "swap_n128_m192"],
       nvfp4.patch_tmaps}
  return
}
