// The lowering's own diagnostics (every one prefixed "nvfp4-lower-grouped-matmul:", so
// none of them can come from the op verifier). The first RUN disables the verifier on
// parsing and between passes, so ops the verifier would reject reach the lowering, which
// must refuse them at the op's location instead of building a kernel; the second RUN keeps
// the verifier and checks what only the lowering can see: symbols of the enclosing module.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-lower-grouped-matmul --verify-diagnostics \
// RUN:   --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false
// RUN: nvfp4-opt %S/Inputs/symbol-collisions.mlir --split-input-file --nvfp4-lower-grouped-matmul \
// RUN:   --verify-diagnostics
// More ops than the pass collects (257) are refused before any is lowered.
// RUN: %python -c "import sys; sys.stdout.write(open(sys.argv[1]).read().replace('OPS', open(sys.argv[2]).read() * 257))" \
// RUN:   %S/Inputs/many-ops.mlir %S/Inputs/one-op.mlir > %t.many.mlir
// RUN: not nvfp4-opt %t.many.mlir --nvfp4-lower-grouped-matmul 2>&1 | FileCheck %s --check-prefix=MANY
// MANY: error: nvfp4-lower-grouped-matmul: more than 256 nvfp4 matmul ops

func.func @too_many_stages_n128(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
         %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
         %c: memref<?x128xf16>) {
  // expected-error @+1 {{nvfp4-lower-grouped-matmul: variant ab_n128: stages = 7 does not fit in shared memory (at most 5)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", stages = 7}
  return
}

// -----

func.func @too_many_stages_n256(%a: memref<?x256xf4E2M1FN>, %b: memref<256x256xf4E2M1FN>,
                                %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<2x4x32x4x4xf8E4M3FN>,
                                %c: memref<?x256xf16>) {
  // expected-error @+1 {{nvfp4-lower-grouped-matmul: variant ab_n256: stages = 5 does not fit in shared memory (at most 3)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<256x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x256xf16>) {target = "sm_100a", tile_n = 256, stages = 5}
  return
}

// -----

// A target without a lowering.
func.func @unknown_target(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
         %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
         %c: memref<?x128xf16>) {
  // expected-error @+1 {{nvfp4-lower-grouped-matmul: target "sm_80" has no lowering (sm_100a, sm_100f, sm_103a, sm_90a, sm_120a, sm_121a, sm_120f)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_80"}
  return
}

// -----

// A malformed variants attribute.
func.func @bad_variants(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
         %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
         %c: memref<?x128xf16>) {
  // expected-error @+1 {{nvfp4-lower-grouped-matmul: unknown variant 'fast'}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", variants = ["fast"]}
  return
}

// -----

// Operand lists of unequal length (generic form: four operands for five lists).
func.func @unequal_lists(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                         %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>) {
  // expected-error @+1 {{nvfp4-lower-grouped-matmul: operand lists of unequal length}}
  "nvfp4.grouped_matmul"(%a, %b, %sfa, %sfb) {target = "sm_100a", operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (memref<?x256xf4E2M1FN>, memref<128x256xf4E2M1FN>, memref<?x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>) -> ()
  return
}
