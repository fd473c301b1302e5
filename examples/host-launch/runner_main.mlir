// runner_main.mlir — an entry point for mlir-runner, appended to host_launch.mlir
// (run.sh: cat host_launch.mlir runner_main.mlir | nvfp4-opt --nvfp4-emulation-to-host |
// mlir-runner -e main -entry-point-result=i32 --shared-libs=libnvfp4rt.so,
// libnvfp4-host-runner-harness.so). The harness (runner_harness.c) generates test case 1 on
// the device and hands its buffers over as memrefs; main calls the host-lowered
// @host_launch on the default stream and the harness checks C (or, without a GPU, that the
// call failed with the runtime's DRIVER_NOT_FOUND / NO_DEVICE). Prints 0 on success, 77
// without a GPU, 1 on a failed check.
func.func private @nvfp4_runner_setup(i64) -> i32
func.func private @nvfp4_runner_fp4(i32, i32) -> memref<?x?xf4E2M1FN>
    attributes {llvm.emit_c_interface}
func.func private @nvfp4_runner_sf(i32, i32) -> memref<?x?x32x4x4xf8E4M3FN>
    attributes {llvm.emit_c_interface}
func.func private @nvfp4_runner_c(i32) -> memref<?x?xf16, strided<[?, 1]>>
    attributes {llvm.emit_c_interface}
func.func private @nvfp4_runner_finish() -> i32

func.func @main() -> i32 {
  %seed = arith.constant 1 : i64
  %ready = call @nvfp4_runner_setup(%seed) : (i64) -> i32
  %g0 = arith.constant 0 : i32
  %g1 = arith.constant 1 : i32
  %a0d = call @nvfp4_runner_fp4(%g0, %g0) : (i32, i32) -> memref<?x?xf4E2M1FN>
  %a1d = call @nvfp4_runner_fp4(%g0, %g1) : (i32, i32) -> memref<?x?xf4E2M1FN>
  %b0d = call @nvfp4_runner_fp4(%g1, %g0) : (i32, i32) -> memref<?x?xf4E2M1FN>
  %b1d = call @nvfp4_runner_fp4(%g1, %g1) : (i32, i32) -> memref<?x?xf4E2M1FN>
  %sa0d = call @nvfp4_runner_sf(%g0, %g0) : (i32, i32) -> memref<?x?x32x4x4xf8E4M3FN>
  %sa1d = call @nvfp4_runner_sf(%g0, %g1) : (i32, i32) -> memref<?x?x32x4x4xf8E4M3FN>
  %sb0d = call @nvfp4_runner_sf(%g1, %g0) : (i32, i32) -> memref<?x?x32x4x4xf8E4M3FN>
  %sb1d = call @nvfp4_runner_sf(%g1, %g1) : (i32, i32) -> memref<?x?x32x4x4xf8E4M3FN>
  %c0d = call @nvfp4_runner_c(%g0) : (i32) -> memref<?x?xf16, strided<[?, 1]>>
  %c1d = call @nvfp4_runner_c(%g1) : (i32) -> memref<?x?xf16, strided<[?, 1]>>
  %a0 = memref.cast %a0d : memref<?x?xf4E2M1FN> to memref<?x256xf4E2M1FN>
  %a1 = memref.cast %a1d : memref<?x?xf4E2M1FN> to memref<?x512xf4E2M1FN>
  %b0 = memref.cast %b0d : memref<?x?xf4E2M1FN> to memref<128x256xf4E2M1FN>
  %b1 = memref.cast %b1d : memref<?x?xf4E2M1FN> to memref<256x512xf4E2M1FN>
  %sa0 = memref.cast %sa0d : memref<?x?x32x4x4xf8E4M3FN> to memref<?x4x32x4x4xf8E4M3FN>
  %sa1 = memref.cast %sa1d : memref<?x?x32x4x4xf8E4M3FN> to memref<?x8x32x4x4xf8E4M3FN>
  %sb0 = memref.cast %sb0d : memref<?x?x32x4x4xf8E4M3FN> to memref<1x4x32x4x4xf8E4M3FN>
  %sb1 = memref.cast %sb1d : memref<?x?x32x4x4xf8E4M3FN> to memref<2x8x32x4x4xf8E4M3FN>
  %c0 = memref.cast %c0d : memref<?x?xf16, strided<[?, 1]>> to memref<?x128xf16, strided<[?, 1]>>
  %c1 = memref.cast %c1d : memref<?x?xf16, strided<[?, 1]>> to memref<?x256xf16, strided<[?, 1]>>
  %stream = llvm.mlir.zero : !llvm.ptr
  // host_launch gains an i32 status result in the lowering; the harness reads the status
  // of the call from the runtime (nvfp4rt_last_error) instead.
  call @host_launch(%a0, %a1, %b0, %b1, %sa0, %sa1, %sb0, %sb1, %c0, %c1, %stream)
      : (memref<?x256xf4E2M1FN>, memref<?x512xf4E2M1FN>, memref<128x256xf4E2M1FN>,
         memref<256x512xf4E2M1FN>, memref<?x4x32x4x4xf8E4M3FN>, memref<?x8x32x4x4xf8E4M3FN>,
         memref<1x4x32x4x4xf8E4M3FN>, memref<2x8x32x4x4xf8E4M3FN>,
         memref<?x128xf16, strided<[?, 1]>>, memref<?x256xf16, strided<[?, 1]>>, !llvm.ptr) -> ()
  %rc = call @nvfp4_runner_finish() : () -> i32
  return %rc : i32
}
