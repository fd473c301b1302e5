#!/usr/bin/env bash
# Builds everything the GPU suite needs into .device/ (git-ignored): nvfp4-run, libnvfp4rt,
# the test binaries, and the emulation cubins (every tile_n) compiled here, on the LLVM
# machine. The GPU machine needs no LLVM: it only runs scripts/device-suite.sh.
#   usage: scripts/package-device.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=.device
rm -rf "$OUT" && mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/cubin"
cp "$BUILD"/bin/nvfp4-run "$OUT/bin/"
cp -P "$BUILD"/lib/libnvfp4rt.so* "$OUT/lib/"
cp "$BUILD"/bin/runtime-gpu-test "$OUT/bin/"
CUDA=${CUDA_ROOT:-/usr/local/cuda}
for p in probe_sm90a:sm_90a probe_sm100a:sm_100a nometa:sm_90a; do
  "$CUDA"/bin/ptxas -arch="${p#*:}" test/Runtime/Inputs/"${p%%:*}".ptx -o "$OUT/cubin/${p%%:*}.cubin"
done
for tn in 64 128 192 256; do
  sed "s/target = \"sm_100a\"/target = \"sm_100a\", tile_n = $tn/" examples/any16.mlir > "$OUT/any16_n$tn.mlir"
  "$BUILD"/bin/nvfp4-compile "$OUT/any16_n$tn.mlir" --emulate -o "$OUT/cubin/emu_n$tn.cubin"
  "$BUILD"/bin/nvfp4-compile "$OUT/any16_n$tn.mlir" -o "$OUT/cubin/sm100_n$tn.cubin"
done
echo "packaged into $OUT: $(du -sh "$OUT" | cut -f1)"
