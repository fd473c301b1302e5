// The host lowering refuses, with an error at the op, what the generated-code ABI's runtime
// side does not implement yet: nvfp4.moe_matmul, an alpha operand, a C other than f16
// or the fused SwiGLU + NVFP4 epilogue (rather than lowering the kernel and dropping its
// launch).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-host-launch --verify-diagnostics

func.func @moe(%a: memref<?x256xf4E2M1FN>, %b: memref<4x128x256xf4E2M1FN>,
    %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<4x1x4x32x4x4xf8E4M3FN>,
    %c: memref<?x128xf16>, %o: memref<5xi32>) {
  // expected-error @+1 {{nvfp4-host-launch: nvfp4.moe_matmul (launch it with nvfp4rt_moe_plan_*) has no host lowering yet}}
  nvfp4.moe_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<4x128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<4x1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) offsets(%o : memref<5xi32>) {target = "sm_100a"}
  return
}

// -----

func.func @alpha(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
    %sa: memref<?x4x32x4x4xf8E4M3FN>, %sb: memref<1x4x32x4x4xf8E4M3FN>,
    %c: memref<?x128xf16>, %al: memref<1xf32>) {
  // expected-error @+1 {{nvfp4-host-launch: an alpha operand has no host lowering yet}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) alpha(%al : memref<1xf32>) {target = "sm_100a"}
  return
}

// -----

func.func @bf16(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
    %sa: memref<?x4x32x4x4xf8E4M3FN>, %sb: memref<1x4x32x4x4xf8E4M3FN>,
    %c: memref<?x128xbf16>) {
  // expected-error @+1 {{nvfp4-host-launch: a C that is not f16 has no host lowering yet}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xbf16>) {target = "sm_100a"}
  return
}

// -----

func.func @swiglu(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>,
    %sa: memref<?x4x32x4x4xf8E4M3FN>, %sb: memref<2x4x32x4x4xf8E4M3FN>,
    %c: memref<?x128xf4E2M1FN>, %sc: memref<?x2x32x4x4xf8E4M3FN>, %gs: memref<1xf32>) {
  // expected-error @+1 {{nvfp4-host-launch: the fused epilogue "swiglu_nvfp4" has no host lowering yet}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>)
      sfa(%sa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sb : memref<2x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf4E2M1FN>) sfc(%sc : memref<?x2x32x4x4xf8E4M3FN>) gs(%gs : memref<1xf32>)
      {epilogue = "swiglu_nvfp4", target = "sm_100a"}
  return
}
