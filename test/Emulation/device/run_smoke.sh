#!/bin/bash
# Builds and runs emu_smoke.cu on an sm_90a GPU: the emulation library is compiled to PTX
# by clang-22 and linked with nvcc -rdc. Usage: run_smoke.sh [trap]
set -e
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/../../../emulation"
out="${OUT_DIR:-/tmp/nvfp4-emu-smoke}"
mkdir -p "$out"
CUDA="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -f "$out/nvfp4_emu.ptx" ] || [ -n "$REBUILD" ]; then
  clang-22 --target=nvptx64-nvidia-cuda -march=sm_90a -O2 -std=gnu11 -ffreestanding \
    -I"$src/include" -I"$src/core" -S "$src/device/nvfp4_emu.c" -o "$out/nvfp4_emu.ptx"
  "$CUDA/bin/nvcc" -gencode arch=compute_90a,code=sm_90a -dc "$out/nvfp4_emu.ptx" -o "$out/nvfp4_emu_dev.o"
  "$CUDA/bin/nvcc" -gencode arch=compute_90a,code=sm_90a -rdc=true -O2 "$here/emu_smoke.cu" "$out/nvfp4_emu_dev.o" \
    -o "$out/emu_smoke"
fi
"$out/emu_smoke" "$@"
