// What --nvfp4-host-launch refuses, with a diagnostic each (see embed-cubin-errors.mlir
// for --nvfp4-embed-cubin).
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics --nvfp4-host-launch

func.func @nested(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                  %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                  %c: memref<?x128xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{nvfp4-host-launch: the op must sit directly in the body of a func.func of the module (it is inside 'scf.for')}}
    nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
        sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
        c(%c : memref<?x128xf16>) {target = "sm_100a"}
  }
  return
}

// -----

// expected-error @+1 {{nvfp4-host-launch: a function holding nvfp4.grouped_matmul must return nothing (it is given an i32 status result)}}
func.func @result(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                  %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                  %c: memref<?x128xf16>) -> index {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a"}
  %z = arith.constant 0 : index
  return %z : index
}

// -----

// expected-error @+1 {{nvfp4-host-launch: the nvfp4.stream argument must be an !llvm.ptr (a CUstream)}}
func.func @stream_type(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                       %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                       %c: memref<?x128xf16>, %s: i64 {nvfp4.stream}) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a"}
  return
}

// -----

// expected-error @+1 {{nvfp4-host-launch: more than one argument carries nvfp4.stream}}
func.func @two_streams(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                       %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                       %c: memref<?x128xf16>, %s: !llvm.ptr {nvfp4.stream},
                       %t: !llvm.ptr {nvfp4.stream}) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a"}
  return
}

// -----

func.func @same_name(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                     %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                     %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", kernel_name = "k"}
  // expected-error @+1 {{nvfp4-host-launch: symbol @k_rt_module already exists (kernel_name "k" is used twice?)}}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", kernel_name = "k"}
  return
}
