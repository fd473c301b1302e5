#!/usr/bin/env bash
# One device call for the native sm_90a kernel (docs/kernel-sm90a.md), run on the GPU machine
# from a folder packaged by scripts/package-device.sh (DEVICE_DIR, default .device) with
# this script and device-suite.sh copied next to it:
#   1. a smoke run (test case 0; stops here, with diagnostics, if it fails or hangs);
#   2. the `hopper` and `hopper-options` parts of device-suite.sh (correctness, edge cases,
#      B1..B4, sanitizers; bf16 / f32 C with alpha, the contiguous form, patched maps);
#   3. the benchmark (nvfp4-hopper-bench: this kernel vs cuBLAS BF16, one run);
#   4. the options' cost and the contiguous form (options.txt, options/*.json): B1..B4 with
#      f16 C and no alpha (sm90_family) and with bf16 C + alpha (sm90_grouped_16_bf16_alpha,
#      the same op otherwise), alternately, three times each; DeepSeek-V3's up-projection (E 256, top-8, N 4096, K 7168) at 512 and 2048
#      tokens (random routing): the contiguous form (the runtime's choice, then each variant
#      forced), the pointer-array form on the same routing (--groups-out), and
#      nvfp4-hopper-bench on that routing (this kernel's pointer-array form vs cuBLAS BF16
#      grouped on pre-decoded weights);
#   5. SASS and resource usage of the cubin (cuobjdump).
# Everything lands in $OUT (default /tmp/nvfp4-hopper): results.txt, bench.txt, bench.json,
# options.txt, logs.tgz (every run's log), sass.txt.gz.
# STAGES (environment) splits the run over device calls: check (1 and 2), bench (3 to 5);
# default both.
#   usage: DEVICE_DIR=.device-x [STAGES=check|bench] bash .device-x/hopper-device-run.sh
set -u
cd "$(dirname "$0")/.."
D=${DEVICE_DIR:-.device}
O=${OUT:-/tmp/nvfp4-hopper}
mkdir -p "$O/log"
export LD_LIBRARY_PATH="$PWD/$D/lib:${LD_LIBRARY_PATH:-}"
CUBIN="$D/cubin/sm90_family.cubin"
nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.max.sm --format=csv,noheader | tee "$O/log/gpu.txt"
pack() { tar -C "$O" -czf "$O/logs.tgz" log; }
STAGES=${STAGES:-check bench}
stage() { [[ " $STAGES " == *" $1 "* ]]; }
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
if stage check; then
  DEVICE_DIR=$D PARTS="hopper hopper-options" HOPPER_TIMEOUT=${HOPPER_TIMEOUT:-60} bash "$D/device-suite.sh" "$O/log"
  cp "$O/log/results.txt" "$O/results.txt"
fi
stage bench || { pack; exit 0; }
CUBLAS=$(ls /usr/local/cuda/lib64/libcublas.so.13 2>/dev/null ||
         find / -name libcublas.so.13 -not -path '*/proc/*' -print -quit 2>/dev/null)
timeout 300 "$D/bin/nvfp4-hopper-bench" "$CUBIN" --iters 100 --json "$O/bench.json" \
  --cublas "${CUBLAS:-libcublas.so.13}" 2>&1 | tee "$O/bench.txt"
# The options' cost on B1..B4, and the contiguous form against the pointer-array form and cuBLAS
mkdir -p "$O/options"
T="--iters 100 --warmup 5 --flush-l2 --launch-iters 0 --no-check --json"
for r in 1 2 3; do
  for b in B1 B2 B3 B4; do
    for c in sm90_family:f16 sm90_grouped_16_bf16_alpha:bf16_alpha; do
      timeout 120 "$D/bin/nvfp4-run" "$D/cubin/${c%%:*}.cubin" --case $b $T > "$O/options/${b}_${c#*:}_r$r.json" 2>&1
    done
  done
done
DS="$D/cubin/sm90_moe_deepseek_up.cubin" DG="$D/cubin/sm90_grouped_256_f16.cubin"
for t in 512 2048; do
  m=$((8 * t))
  timeout 600 "$D/bin/nvfp4-run" "$DS" --moe "256,$m,4096,7168" --routing random --seed 1 --iters 1 \
    --launch-iters 0 --groups-out "$O/options/ds_t$t.groups" > "$O/options/ds_t${t}_moe_check.txt" 2>&1
  for v in auto swap_n128 swap_n64 swap_n192 swap_n128_m192 swap_n64_m192; do
    va=""; [ $v != auto ] && va="--variant $v"
    timeout 600 "$D/bin/nvfp4-run" "$DS" --moe "256,$m,4096,7168" --routing random --seed 1 $va \
      --iters 20 --flush-l2 --launch-iters 0 --no-check --json > "$O/options/ds_t${t}_moe_$v.json" 2>&1
  done
  timeout 600 "$D/bin/nvfp4-run" "$DG" --groups "$(cat "$O/options/ds_t$t.groups")" --iters 20 --warmup 2 \
    --flush-l2 --launch-iters 0 --no-check --json > "$O/options/ds_t${t}_grouped.json" 2>&1
  timeout 900 "$D/bin/nvfp4-hopper-bench" "$DG" --groups "$(cat "$O/options/ds_t$t.groups")" --iters 50 \
    --json "$O/options/ds_t${t}_bench.json" --cublas "${CUBLAS:-libcublas.so.13}" > "$O/options/ds_t${t}_bench.txt" 2>&1
done
grep -H -o '"kernel": "[^"]*"\|"time_us_median": [0-9.]*' "$O"/options/*.json | tee "$O/options.txt"
cat "$O"/options/ds_t*_bench.txt >> "$O/options.txt"
cuobjdump -res-usage "$CUBIN" > "$O/log/res-usage.txt" 2>&1
cuobjdump -sass "$CUBIN" | gzip > "$O/sass.txt.gz"
pack
