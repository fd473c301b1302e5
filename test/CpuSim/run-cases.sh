#!/usr/bin/env bash
# run-cases.sh CPU_OBJECT VARIANT... — the CPU-target suite of one kernel family: for every
# variant, the runs of the run matrix's case list cpu-cases (scripts/run-matrix.txt: the ten
# test cases of docs/format.md with schedule seeds 1..10, i.e. every completion profile, random
# cases of 8 groups with ragged M/N, K up to 1024, full range, and edge cases of 12 groups —
# empty groups, tiny and ragged M/N, K = 64 and 192, C row stride 24 past N — with 3 seeds
# each), every run checked against the C reference and for writes outside C; few simulated
# SMs so that each CTA walks several tiles. A VARIANT written @SET stands for the matrix's
# variant list SET. One line per run (result, nvfp4-run --cpu's exit code, wall ms), then
# "N runs, N failed". NVFP4_RUN_ARGS adds arguments to every run (e.g. "--cluster-order
# reverse"); NVFP4_RUN_CASES names another case list of the matrix (e.g. cpu-options: one
# random and one edge case per variant, for the epilogue options' suites; cpu-sk-wide);
# NVFP4_RUN_SHOW, a regular expression, prints the output lines of a passing run that match
# it (indented) under its PASS line.
set -uo pipefail
SO=$1; shift
RUN=${NVFP4_RUN:-nvfp4-run}
source "$(dirname "$0")/../../scripts/run-matrix.sh"
read -r -a EXTRA <<< "${NVFP4_RUN_ARGS:-}"
variants=()
for v in "$@"; do
  if [[ $v == @* ]]; then list=$(matrix_variants "${v#@}") || exit 2; variants+=($list)
  else variants+=("$v"); fi
done
cases=$(matrix_runs "${NVFP4_RUN_CASES:-cpu-cases}") || exit 2
runs=0 failed=0
one() { # label, then nvfp4-run arguments
  local label=$1; shift
  local t0=$(date +%s%N)
  local out rc
  out=$("$RUN" --cpu "$SO" "$@" "${EXTRA[@]}" 2>&1 < /dev/null); rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  runs=$((runs + 1))
  if [[ $rc -eq 0 ]]; then
    printf 'PASS %-44s %6d ms\n' "$label" "$ms"
    [[ -n ${NVFP4_RUN_SHOW:-} ]] && echo "$out" | grep -E "$NVFP4_RUN_SHOW" | sed 's/^/    /'
  else
    failed=$((failed + 1))
    printf 'FAIL %-44s rc=%d %6d ms\n' "$label" "$rc" "$ms"
    echo "$out" | grep -E 'HAZARD|FAULT|DEADLOCK|^  CTA|^check|mismatch|outside' | head -12 | sed 's/^/    /'
  fi
}
for v in "${variants[@]}"; do
  while IFS='|' read -r _ name args; do
    read -r -a a <<< "$args"
    one "$v $name" --variant "$v" "${a[@]}"
  done <<< "$cases"
done
echo "$runs runs, $failed failed"
[[ $failed -eq 0 ]]
