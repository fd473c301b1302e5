#!/usr/bin/env bash
# build.sh — configures (CMake + Ninja) and builds everything into ./build (or $BUILD_DIR).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
if [[ ! -f $BUILD_DIR/build.ninja ]]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
        -DNVFP4_CUDA_ROOT="$CUDA_ROOT"
fi
ninja -C "$BUILD_DIR"
