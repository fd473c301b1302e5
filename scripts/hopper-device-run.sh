#!/usr/bin/env bash
# One device call for the native sm_90a kernel (docs/kernel-sm90a.md), run on the GPU machine
# from a folder packaged by scripts/package-device.sh (DEVICE_DIR, default .device) with
# this script and device-suite.sh copied next to it:
#   1. a smoke run (test case 0; stops here, with diagnostics, if it fails or hangs);
#   2. the `hopper` part of device-suite.sh (correctness, edge cases, B1..B4, sanitizers);
#   3. the benchmark (nvfp4-hopper-bench: this kernel vs cuBLAS BF16, one run);
#   4. SASS and resource usage of the cubin (cuobjdump).
# Everything lands in $OUT (default /tmp/nvfp4-hopper): results.txt, bench.txt, bench.json,
# logs.tgz (every run's log), sass.txt.gz.
#   usage: DEVICE_DIR=.device-x bash .device-x/hopper-device-run.sh
set -u
cd "$(dirname "$0")/.."
D=${DEVICE_DIR:-.device}
O=${OUT:-/tmp/nvfp4-hopper}
mkdir -p "$O/log"
export LD_LIBRARY_PATH="$PWD/$D/lib:${LD_LIBRARY_PATH:-}"
CUBIN="$D/cubin/sm90_family.cubin"
nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.max.sm --format=csv,noheader | tee "$O/log/gpu.txt"
pack() { tar -C "$O" -czf "$O/logs.tgz" log; }
if ! timeout 30 "$D/bin/nvfp4-run" "$CUBIN" --case test:0 --iters 1 --warmup 0 --launch-iters 0 \
      > "$O/log/smoke.log" 2>&1; then
  echo "smoke run failed (rc $?):"; cat "$O/log/smoke.log"
  timeout 30 "$D/bin/nvfp4-run" "$CUBIN" --variant swap_n64 --case test:0 --iters 1 --warmup 0 \
    --launch-iters 0 > "$O/log/smoke_n64.log" 2>&1; echo "swap_n64 rc $?"
  timeout 60 compute-sanitizer --tool memcheck "$D/bin/nvfp4-run" "$CUBIN" --case test:0 --iters 1 \
    --warmup 0 --launch-iters 0 > "$O/log/smoke_memcheck.log" 2>&1; echo "memcheck rc $?"
  cuobjdump -sass "$CUBIN" | gzip > "$O/sass.txt.gz"
  pack; exit 1
fi
DEVICE_DIR=$D PARTS=hopper HOPPER_TIMEOUT=${HOPPER_TIMEOUT:-60} bash "$D/device-suite.sh" "$O/log"
cp "$O/log/results.txt" "$O/results.txt"
CUBLAS=$(ls /usr/local/cuda/lib64/libcublas.so.13 2>/dev/null ||
         find / -name libcublas.so.13 -not -path '*/proc/*' -print -quit 2>/dev/null)
timeout 300 "$D/bin/nvfp4-hopper-bench" "$CUBIN" --iters 100 --json "$O/bench.json" \
  --cublas "${CUBLAS:-libcublas.so.13}" 2>&1 | tee "$O/bench.txt"
cuobjdump -res-usage "$CUBIN" > "$O/log/res-usage.txt" 2>&1
cuobjdump -sass "$CUBIN" | gzip > "$O/sass.txt.gz"
pack
