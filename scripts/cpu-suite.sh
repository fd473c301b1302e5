#!/usr/bin/env bash
# cpu-suite.sh — the H200 device suite's cases (scripts/device-suite.sh: the same run names,
# inputs, seeds and arguments) on the CPU execution target, so that its results.txt can be
# compared line by line with the device suite's: a case that passes on one target and fails
# on the other is a bug of one of them. Needs no GPU. Builds the kernel family's CPU objects
# from examples/any16.mlir (1-CTA and CTA-pair variants in two objects).
#   usage: scripts/cpu-suite.sh [LOG_DIR]        (default /tmp/nvfp4-cpu-suite)
# PARTS (environment): smoke tests random edge bench (default: all but bench, which takes
# about a minute of CPU per variant); VARIANTS as in device-suite.sh; BUILD (default build).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
LOG=${1:-/tmp/nvfp4-cpu-suite}
mkdir -p "$LOG"
RUN="$BUILD/bin/nvfp4-run"
PARTS=${PARTS:-smoke tests random edge}
VARIANTS=${VARIANTS:-ab_n64 ab_n128 ab_n192 ab_n256 ab_n128_st swap_n64 swap_n128 swap_n256 ab2_n64 ab2_n128 ab2_n192 ab2_n256 swap2_n64 swap2_n128 swap2_n192 swap2_n256}
has() { [[ " $PARTS " == *" $1 "* ]]; }
is_pair() { [[ $1 == ab2_* || $1 == swap2_* ]]; }
quoted() { local out="" v; for v in "$@"; do out+="${out:+, }\"$v\""; done; echo "$out"; }
single=() pair=()
for v in $VARIANTS; do if is_pair "$v"; then pair+=("$v"); else single+=("$v"); fi; done
for part in single pair; do
  declare -n list=$part
  [[ ${#list[@]} -eq 0 ]] && continue
  sed "s/target = \"sm_100a\"/target = \"sm_100a\", variants = [$(quoted "${list[@]}")]/" \
      examples/any16.mlir > "$LOG/$part.mlir"
  "$BUILD/bin/nvfp4-compile" "$LOG/$part.mlir" --cpu "$LOG/$part.so" || exit 2
done
pass=0 fail=0
results="$LOG/results.txt"
: > "$results"
one() { # name, then nvfp4-run arguments (after the object)
  local name=$1 v=$3; shift
  local so="$LOG/single.so"; is_pair "$v" && so="$LOG/pair.so"
  local t0=$(date +%s%N) st
  if timeout 900 "$RUN" --cpu "$so" "$@" > "$LOG/$name.log" 2>&1; then
    pass=$((pass + 1)); st=PASS
  else
    fail=$((fail + 1)); st="FAIL(rc=$?)"
  fi
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  printf '%-34s %-10s %7d ms  %s\n' "$name" "$st" "$ms" "$(grep -m1 -E '^check' "$LOG/$name.log" | tr -s ' ')" | tee -a "$results"
}
for v in $VARIANTS; do
  has smoke && one "${v}_smoke_random3" --variant $v --case random:3 --seed 33 --full-range
  has tests && for i in 0 1 2 3 4 5 6 7 8 9; do one "${v}_test$i" --variant $v --case "test:$i"; done
  seed=100
  has random && for g in 1 3 8 16; do
    seed=$((seed + 1))
    one "${v}_random_g${g}_s${seed}" --variant $v --case "random:$g" --seed $seed
    seed=$((seed + 1))
    one "${v}_random_g${g}_s${seed}_full" --variant $v --case "random:$g" --seed $seed --full-range
  done
  has edge && one "${v}_edge_g6" --variant $v --case edge:6 --seed 64
  has edge && one "${v}_edge_g16_ldcpad24" --variant $v --case edge:16 --seed 65 --ldc-pad 24 --full-range
  has bench && for b in B1 B2 B3 B4; do one "${v}_bench_$b" --variant $v --case $b; done
done
echo "$pass passed, $fail failed" | tee -a "$results"
[ "$fail" -eq 0 ]
