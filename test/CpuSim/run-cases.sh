#!/usr/bin/env bash
# run-cases.sh CPU_OBJECT VARIANT... — the CPU-target suite of one kernel family: for every
# variant, the ten PROBLEM.md test cases (competition distribution, schedule seeds 1..10,
# i.e. every completion profile), random cases (8 groups, ragged M/N, K up to 1024, full
# range) and edge cases (empty groups, tiny and ragged M/N, K = 64 and 192, C row stride
# 24 past N) with 3 seeds each, every run checked against the C reference and for writes
# outside C; few simulated SMs so that each CTA walks several tiles. One line per run
# (result, nvfp4-run --cpu's exit code, wall ms), then "N runs, N failed". NVFP4_RUN_ARGS
# adds arguments to every run (e.g. "--cluster-order reverse"); NVFP4_RUN_CASES=options
# runs one random and one edge case per variant instead (the epilogue options' suites).
set -uo pipefail
SO=$1; shift
RUN=${NVFP4_RUN:-nvfp4-run}
read -r -a EXTRA <<< "${NVFP4_RUN_ARGS:-}"
SEEDS="1 2 3" TESTS="0 1 2 3 4 5 6 7 8 9"
[[ ${NVFP4_RUN_CASES:-all} == options ]] && SEEDS="1" TESTS=""
runs=0 failed=0
one() { # label, then nvfp4-run arguments
  local label=$1; shift
  local t0=$(date +%s%N)
  local out rc
  out=$("$RUN" --cpu "$SO" "$@" "${EXTRA[@]}" 2>&1); rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  runs=$((runs + 1))
  if [[ $rc -eq 0 ]]; then
    printf 'PASS %-44s %6d ms\n' "$label" "$ms"
  else
    failed=$((failed + 1))
    printf 'FAIL %-44s rc=%d %6d ms\n' "$label" "$rc" "$ms"
    echo "$out" | grep -E 'HAZARD|FAULT|DEADLOCK|^  CTA|^check|mismatch|outside' | head -12 | sed 's/^/    /'
  fi
}
for v in "$@"; do
  for i in $TESTS; do
    one "$v test:$i sched $((i + 1))" --variant "$v" --case "test:$i" --schedule-seed $((i + 1)) --sms 4
  done
  for s in $SEEDS; do
    one "$v random:8 seed $s full-range" --variant "$v" --case random:8 --seed $((100 + s)) --full-range --schedule-seed "$s" --sms 3
    one "$v edge:12 seed $s ldc-pad 24" --variant "$v" --case edge:12 --seed $((200 + s)) --ldc-pad 24 --schedule-seed "$s" --sms 2
  done
done
echo "$runs runs, $failed failed"
[[ $failed -eq 0 ]]
