#!/usr/bin/env bash
# The correctness suite of the generated kernel on an H200 (sm_90a), through the tcgen05
# emulation target: every PROBLEM.md test case, random cases (G 1..16, ragged M/N, K
# multiples of 64, competition and full-range values, every tile_n), B1..B4 once, and
# edge cases (empty groups, tiny and ragged M/N, K = 64 and 192, C row stride well above N,
# with a check that nothing outside each C's M x N region is written), and
# compute-sanitizer (memcheck, racecheck, synccheck) on small cases.
# Prerequisite: scripts/package-device.sh run on the build machine (fills .device/).
#   usage: scripts/device-suite.sh [LOG_DIR]
# PARTS (environment) selects parts: runtime tests random edge bench sanitizer (default: all).
# Emulated kernels run ~1000x slower than hardware, so runs pass --launch-iters 0 (no
# host launch-cost loop, which would launch the kernel hundreds of times).
set -uo pipefail
cd "$(dirname "$0")/.."
D=.device
LOG=${1:-/tmp/nvfp4-device}
mkdir -p "$LOG"
export LD_LIBRARY_PATH="$PWD/$D/lib:${LD_LIBRARY_PATH:-}"
RUN="$D/bin/nvfp4-run"
PARTS=${PARTS:-runtime tests random edge bench sanitizer}
has() { [[ " $PARTS " == *" $1 "* ]]; }
pass=0 fail=0
results="$LOG/results.txt"
: > "$results"
one() { # name, then nvfp4-run arguments
  local name=$1; shift
  local t0=$(date +%s%N)
  if timeout 300 "$RUN" "$@" > "$LOG/$name.log" 2>&1; then
    pass=$((pass + 1)); st=PASS
  else
    fail=$((fail + 1)); st="FAIL(rc=$?)"
  fi
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  local err=$(grep -m1 -E "^check" "$LOG/$name.log" | tr -s ' ')
  printf '%-34s %-10s %7d ms  %s\n' "$name" "$st" "$ms" "$err" | tee -a "$results"
}
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$LOG/gpu.txt"
"$RUN" --info "$D/cubin/emu_n128.cubin" | tee "$LOG/info.txt"

# The runtime on the real driver: metadata/ABI round trip, tensor-map encodes, a probe
# kernel launch through a plan, and the host cost of a cached-plan launch.
if has runtime; then
G="$D/bin/runtime-gpu-test"
C="$D/cubin"
for t in "load $C/probe_sm90a.cubin $C/probe_sm100a.cubin $C/nometa.cubin" "encode" \
         "launch $C/probe_sm90a.cubin" "bench-launch $C/probe_sm90a.cubin 5000"; do
  name="runtime_${t%% *}"
  if timeout 120 $G $t > "$LOG/$name.log" 2>&1; then pass=$((pass + 1)); st=PASS
  else fail=$((fail + 1)); st="FAIL(rc=$?)"; fi
  printf '%-34s %-10s %s\n' "$name" "$st" "$(tail -1 "$LOG/$name.log")" | tee -a "$results"
done
fi

has tests && for i in 0 1 2 3 4 5 6 7 8 9; do
  one "test$i" "$D/cubin/emu_n128.cubin" --case "test:$i" --iters 1 --warmup 0 --launch-iters 0
done
seed=100
has random && for tn in 64 128 192 256; do
  for g in 1 3 8 16; do
    seed=$((seed + 1))
    one "random_n${tn}_g${g}_s${seed}" "$D/cubin/emu_n$tn.cubin" --case "random:$g" --seed $seed --iters 1 --warmup 0 --launch-iters 0
    seed=$((seed + 1))
    one "random_n${tn}_g${g}_s${seed}_full" "$D/cubin/emu_n$tn.cubin" --case "random:$g" --seed $seed --full-range --iters 1 --warmup 0 --launch-iters 0
  done
done
has edge && for tn in 64 128 192 256; do
  one "edge_n${tn}_g6" "$D/cubin/emu_n$tn.cubin" --case edge:6 --seed $tn --iters 1 --warmup 0 --launch-iters 0
  one "edge_n${tn}_g16_ldcpad24" "$D/cubin/emu_n$tn.cubin" --case edge:16 --seed $((tn + 1)) --ldc-pad 24 --full-range --iters 1 --warmup 0 --launch-iters 0
done
has bench && for b in B1 B2 B3 B4; do
  one "bench_$b" "$D/cubin/emu_n128.cubin" --case $b --iters 1 --warmup 0 --launch-iters 0
done
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
has sanitizer && for tool in memcheck racecheck synccheck; do
  for c in test:0 test:8 random:3; do
    name="sanitizer_${tool}_${c/:/_}"
    if timeout 300 "$CS" --tool $tool --error-exitcode 9 "$RUN" "$D/cubin/emu_n128.cubin" --case $c --seed 7 --iters 1 --warmup 0 --launch-iters 0 > "$LOG/$name.log" 2>&1; then
      pass=$((pass + 1)); st=PASS
    else
      fail=$((fail + 1)); st="FAIL(rc=$?)"
    fi
    printf '%-34s %-10s %s\n' "$name" "$st" "$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG/$name.log")" | tee -a "$results"
  done
done
echo "$pass passed, $fail failed" | tee -a "$results"
[ "$fail" -eq 0 ]
