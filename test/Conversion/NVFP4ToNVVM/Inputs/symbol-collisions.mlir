// Inputs of errors.mlir: kernel module symbols that already exist.

// Two ops with the same kernel_name: the second module symbol would be a redefinition.
func.func @twice(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
         %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
         %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", kernel_name = "k"}
  // expected-error @+1 {{nvfp4-lower-grouped-matmul: the module already has a symbol @k_module (give each op a distinct kernel_name)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", kernel_name = "k"}
  return
}

// -----

// A function already named like the kernel's module.
func.func @k_module(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
         %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
         %c: memref<?x128xf16>) {
  // expected-error @+1 {{nvfp4-lower-grouped-matmul: the module already has a symbol @k_module}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", kernel_name = "k"}
  return
}
