#!/usr/bin/env bash
# build.sh — builds the host-lowering example: host_launch.mlir -> host LLVM code with the
# cubin embedded (nvfp4-opt --nvfp4-emulation-to-host, or --nvfp4-to-host with --native)
# -> LLVM IR (mlir-translate) -> an object (clang-22) -> linked with main.c and libnvfp4rt
# into OUT_DIR/host-launch; and the same function with runner_main.mlir appended, lowered
# for mlir-runner (OUT_DIR/runner.mlir). Needs no GPU.
#   usage: build.sh [--native] BUILD_DIR OUT_DIR
# Then: OUT_DIR/host-launch (exit 0 pass, 1 fail, 77 no GPU), and
#   mlir-runner OUT_DIR/runner.mlir -e main -entry-point-result=i32 \
#     --shared-libs=BUILD_DIR/lib/libnvfp4rt.so,BUILD_DIR/lib/libnvfp4-host-runner-harness.so
set -euo pipefail
pipeline=--nvfp4-emulation-to-host
if [[ ${1:-} == --native ]]; then pipeline=--nvfp4-to-host; shift; fi
BUILD=$(cd "$1" && pwd)
OUT=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
CLANG=${CLANG:-clang-22}
mkdir -p "$OUT"
"$BUILD"/bin/nvfp4-opt "$HERE/host_launch.mlir" $pipeline -o "$OUT/host_launch.llvm.mlir"
"$LLVM_BIN"/mlir-translate --mlir-to-llvmir "$OUT/host_launch.llvm.mlir" -o "$OUT/host_launch.ll"
# The module carries no target triple: clang compiles it for the host.
"$CLANG" -O2 -Wno-override-module -c "$OUT/host_launch.ll" -o "$OUT/host_launch.o"
# BUILD/include holds the generated nvfp4-c/Version.h; a checked build's compiler and
# sanitizer flags come as NVFP4_CC and NVFP4_EXTRA_CFLAGS (its libnvfp4rt is instrumented,
# and links that compiler's sanitizer runtime).
"${NVFP4_CC:-$CLANG}" -O2 -Wall -Wextra -std=c11 -I"$SRC/runtime/include" -I"$SRC/include" \
  -I"$BUILD/include" ${NVFP4_EXTRA_CFLAGS:-} \
  "$HERE/main.c" "$HERE/host_case.c" "$OUT/host_launch.o" \
  -L"$BUILD/lib" -lnvfp4rt -Wl,-rpath,'$ORIGIN/../lib' -Wl,-rpath,"$BUILD/lib" \
  -o "$OUT/host-launch"
cat "$HERE/host_launch.mlir" "$HERE/runner_main.mlir" |
  "$BUILD"/bin/nvfp4-opt $pipeline -o "$OUT/runner.mlir"
echo "built $OUT/host-launch and $OUT/runner.mlir ($pipeline)"
