// Inputs of errors.mlir: a function whose body placeholder is expanded to 257 ops.
func.func @many(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
         %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
         %c: memref<?x128xf16>) {
OPS  return
}
