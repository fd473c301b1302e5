// The named pipelines registered in nvfp4-opt run end to end and leave the kernel in a
// gpu.binary (PTX for nvfp4-to-ptx; cubins with ptxas).
// RUN: nvfp4-opt %s --nvfp4-to-ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ nvfp4-opt %s --nvfp4-to-cubin | FileCheck %s --check-prefix=BIN %}
// RUN: %if ptxas %{ nvfp4-opt %s --nvfp4-emulation-to-cubin | FileCheck %s --check-prefix=EMU %}
// RUN: %if ptxas %{ nvfp4-opt %s --nvfp4-proxy-to-cubin | FileCheck %s --check-prefix=PROXY %}

// PTX-LABEL: gpu.binary @pipe_module
// PTX-SAME: #gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">
// PTX-SAME: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16
// BIN: gpu.binary @pipe_module  [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, properties = {{.*}}, bin = "\7FELF
// EMU: gpu.binary @pipe_module  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx88", link = [{{.*}}nvfp4_emu.bc"]>, properties = {{.*}}, bin = "\7FELF
// PROXY: gpu.binary @pipe_module  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx88">, properties = {{.*}}, bin = "\7FELF
func.func @one(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
               %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
               %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", kernel_name = "pipe"}
  return
}
