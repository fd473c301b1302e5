#!/usr/bin/env bash
# cpu-suite.sh — the H200 device suite's cases (scripts/device-suite.sh: the same run names,
# inputs, seeds and arguments, from the run matrix scripts/run-matrix.txt) on the CPU
# execution target, so that its results.txt can be compared line by line with the device
# suite's: a case that passes on one target and fails on the other is a bug of one of them.
# Needs no GPU. Builds the kernel family's CPU objects from examples/any16.mlir (1-CTA and
# CTA-pair variants in two objects).
#   usage: scripts/cpu-suite.sh [LOG_DIR]        (default /tmp/nvfp4-cpu-suite)
# PARTS (environment): smoke tests random edge bench (default: all but bench, which takes
# about a minute of CPU per variant); VARIANTS as in device-suite.sh (default: the matrix's
# sm100-family); BUILD (default build).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/run-matrix.sh
BUILD=${BUILD:-build}
LOG=${1:-/tmp/nvfp4-cpu-suite}
mkdir -p "$LOG"
RUN="$BUILD/bin/nvfp4-run"
PARTS=${PARTS:-smoke tests random edge}
VARIANTS=${VARIANTS:-$(matrix_variants sm100-family)} || exit 2
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
  if timeout 900 "$RUN" --cpu "$so" "$@" > "$LOG/$name.log" 2>&1 < /dev/null; then
    pass=$((pass + 1)); st=PASS
  else
    local rc=$?; fail=$((fail + 1)); st="FAIL(rc=$rc)"
  fi
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  printf '%-34s %-10s %7d ms  %s\n' "$name" "$st" "$ms" "$(grep -m1 -E '^check' "$LOG/$name.log" | tr -s ' ')" | tee -a "$results"
}
cases=$(matrix_runs family) || exit 2
for v in $VARIANTS; do
  while IFS='|' read -r part name args; do
    has "$part" && one "${v}_$name" --variant $v $args
  done <<< "$cases"
done
echo "$pass passed, $fail failed" | tee -a "$results"
[ "$fail" -eq 0 ]
