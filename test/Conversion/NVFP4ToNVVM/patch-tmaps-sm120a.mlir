// sm_120a kernels built to patch their own tensor maps (nvfp4.patch_tmaps; KernelABI.h,
// NVFP4_ABI_FLAG_PATCH_TMAPS), as the tcgen05 and sm_90a kernels are: the metadata says so
// (flag 4), each kernel of the default family (ab_n128, swap_n64, swap_n128) patches its
// copies in the prologue (one tensormap.replace, one release, its 288 threads dealing the
// maps) and its producer thread acquires A, B, SFA and SFB (C goes from the registers to
// global memory: no map). ptxas assembles them for sm_120a, sm_121a and sm_120f with no
// spills; the mma.sync emulation keeps the flag (0x4 | 0x8).
// RUN: nvfp4-opt %s --nvfp4-lower-grouped-matmul -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: grep -c "llvm.inline_asm.*tensormap.replace.tile.global_address.global.b1024.b64" %t.mlir | FileCheck %s --check-prefix=THREE
// RUN: grep -c "llvm.inline_asm.*fence.proxy.tensormap::generic.release.gpu" %t.mlir | FileCheck %s --check-prefix=THREE
// RUN: grep -c "llvm.inline_asm.*fence.proxy.tensormap::generic.acquire.gpu" %t.mlir | FileCheck %s --check-prefix=TWELVE
// RUN: %if ptxas %{ nvfp4-compile %s -o %t.cubin --ptxas-verbose > %t.log 2>&1 %}
// RUN: %if ptxas %{ %python %S/../../Pipeline/ptxas_spills.py %t.log patched120_ab_n128 patched120_swap_n64 patched120_swap_n128 | FileCheck %s --check-prefix=SPILLS %}
// RUN: %if ptxas %{ sed 's/"sm_120a"/"sm_121a"/' %s | nvfp4-compile - -o %t.121.cubin --ptxas-verbose > %t.121.log 2>&1 %}
// RUN: %if ptxas %{ %python %S/../../Pipeline/ptxas_spills.py %t.121.log patched120_ab_n128 patched120_swap_n64 patched120_swap_n128 | FileCheck %s --check-prefix=SPILLS %}
// RUN: %if ptxas %{ sed 's/"sm_120a"/"sm_120f"/' %s | nvfp4-compile - -o %t.120f.cubin --ptxas-verbose > %t.120f.log 2>&1 %}
// RUN: %if ptxas %{ %python %S/../../Pipeline/ptxas_spills.py %t.120f.log patched120_ab_n128 patched120_swap_n64 patched120_swap_n128 | FileCheck %s --check-prefix=SPILLS %}
// RUN: %if ptxas %{ nvfp4-compile %s --emulate -o %t.emu.cubin %}
// RUN: %if ptxas %{ nvfp4-run --info %t.emu.cubin | FileCheck %s --check-prefix=EMU %}

// Record 0: "NVF4", target_sm 120, flags NVFP4_META_FLAG_PATCH_TMAPS, 288 threads.
// CHECK: llvm.mlir.global external constant @nvfp4_kernel_metadata(dense<"0x4E5646340{{[0-9A-F]}}000000000100007800000004000000200100
// CHECK-LABEL: llvm.func @patched120_ab_n128(
// CHECK-SAME: nvvm.reqntid = array<i32: 288, 1, 1>
// The header flag and the copies' address, the patch and its release, the acquires, the
// run-time choice between the parameter block's maps and the copies.
// CHECK: llvm.getelementptr %arg0[12]
// CHECK: llvm.getelementptr %arg0[40]
// CHECK-DAG: llvm.inline_asm has_side_effects "tensormap.replace.tile.global_address.global.b1024.b64 [$0], $1;", "l,l,~{memory}"
// CHECK-DAG: llvm.inline_asm has_side_effects "fence.proxy.tensormap::generic.release.gpu;", "~{memory}"
// CHECK-DAG: llvm.inline_asm has_side_effects "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;", "l,~{memory}"
// CHECK: llvm.select
// CHECK-LABEL: llvm.func @patched120_swap_n64(
// CHECK-LABEL: llvm.func @patched120_swap_n128(
// THREE: {{^}}3{{$}}
// TWELVE: {{^}}12{{$}}
// SPILLS: 3 kernels, 0 problems
// EMU: [mma.sync emulation
// EMU: flags: {{ *}}0xc
func.func @patched120(%a: memref<?x7168xf4E2M1FN>, %b: memref<4096x7168xf4E2M1FN>,
                      %sfa: memref<?x112x32x4x4xf8E4M3FN>, %sfb: memref<32x112x32x4x4xf8E4M3FN>,
                      %c: memref<?x4096xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<4096x7168xf4E2M1FN>)
      sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>) sfb(%sfb : memref<32x112x32x4x4xf8E4M3FN>)
      c(%c : memref<?x4096xf16>)
      {target = "sm_120a", kernel_name = "patched120", nvfp4.patch_tmaps}
  return
}
