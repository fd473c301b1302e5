// placement-nested.mlir — nvfp4.grouped_matmul / nvfp4.moe_matmul in a function of a nested
// module: the verifier accepts a func.func anywhere (it cannot tell the top-level module from
// the one the parser wraps a file in), and the lowering, which puts the kernels' gpu.module
// into the module it runs on and tags the function with a reference to it, refuses the op
// at its location: from a nested module the reference would not resolve (docs/ops.md).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul --verify-diagnostics

// A nested module: its function's reference to the kernels' gpu.module (which goes to the
// top-level module) would not resolve.
module @outer {
  module @inner {
    func.func @f(%a0: memref<?x256xf4E2M1FN>, %b0: memref<128x256xf4E2M1FN>, %sfa0: memref<?x4x32x4x4xf8E4M3FN>, %sfb0: memref<1x4x32x4x4xf8E4M3FN>, %c0: memref<?x128xf16>) {
      // expected-error @+1 {{nvfp4-lower-grouped-matmul: the op must be in a func.func of the module the pass runs on (the top-level module), not of a nested module}}
      nvfp4.grouped_matmul a(%a0 : memref<?x256xf4E2M1FN>) b(%b0 : memref<128x256xf4E2M1FN>) sfa(%sfa0 : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb0 : memref<1x4x32x4x4xf8E4M3FN>) c(%c0 : memref<?x128xf16>) {target = "sm_100a"}
      return
    }
  }
}

// -----

// The contiguous form follows the same rule.
module @outer {
  module @inner {
    func.func @moe(%a: memref<?x512xf4E2M1FN>, %b: memref<8x256x512xf4E2M1FN>, %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<8x2x8x32x4x4xf8E4M3FN>, %c: memref<?x256xbf16>, %off: memref<9xi32>) {
      // expected-error @+1 {{nvfp4-lower-grouped-matmul: the op must be in a func.func of the module the pass runs on (the top-level module), not of a nested module}}
      nvfp4.moe_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<8x256x512xf4E2M1FN>) sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<8x2x8x32x4x4xf8E4M3FN>)
          c(%c : memref<?x256xbf16>) offsets(%off : memref<9xi32>) {target = "sm_100a"}
      return
    }
  }
}
