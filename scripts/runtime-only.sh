#!/usr/bin/env bash
# runtime-only.sh — checks that the runtime builds on its own, as on a serving machine with
# no LLVM/MLIR: configures build-rt/ (or $RT_BUILD_DIR) with gcc and -DNVFP4_RUNTIME_ONLY=ON,
# builds everything that configuration has (libnvfp4rt shared and static, libnvfp4sim,
# nvfp4-run, the benchmark programs), and runs the built nvfp4-run --version: the
# configuration and the link without LLVM on the machine. (The full build compiles the same
# sources with the same flags, LLVM's definitions kept away from them: CMakeLists.txt.)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RT_BUILD_DIR=${RT_BUILD_DIR:-$ROOT/build-rt}
CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
if [[ ! -f $RT_BUILD_DIR/build.ninja ]]; then
  CC=${RT_CC:-gcc} CXX=${RT_CXX:-g++} cmake -G Ninja -S "$ROOT" -B "$RT_BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release -DNVFP4_CUDA_ROOT="$CUDA_ROOT" -DNVFP4_RUNTIME_ONLY=ON >/dev/null
fi
ninja -C "$RT_BUILD_DIR" -j"${JOBS:-2}"
"$RT_BUILD_DIR/bin/nvfp4-run" --version
echo "runtime-only build: ok ($RT_BUILD_DIR)"
