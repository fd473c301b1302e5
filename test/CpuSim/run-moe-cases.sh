#!/usr/bin/env bash
# run-moe-cases.sh CPU_OBJECT E VARIANT... — the CPU-target suite of one nvfp4.moe_matmul
# family of E experts: for every variant, the runs of the run matrix's case list cpu-moe-e<E>
# (scripts/run-matrix.txt: per routing of random, empty, one, balanced, decreasing, beyond, a
# launch with M = 8 E + 300 token rows of which 37 are routed to no expert — ragged N = 200,
# K = 320, full range, C row stride 8 past N — then two more launches of the same parameter
# block after the routing in memory changed, --reroutes 2), each checked: every row holds
# its expert's result, nothing outside the experts' M x N changes. Few simulated SMs so that
# each CTA walks several tiles; run i of the call (variants outer, routings inner) takes the
# schedule seed i + 1 and the data seed E + i + 1. A VARIANT written @SET stands for the
# matrix's variant list SET. One line per run, then "N runs, N failed". NVFP4_MOE_CASES names
# another case list of the matrix (e.g. cpu-moe-sm90-e256: other routings and shapes);
# NVFP4_RUN_ARGS adds arguments to every run (e.g. "--alpha-values 0,-1.5").
set -uo pipefail
SO=$1 E=$2; shift 2
RUN=${NVFP4_RUN:-nvfp4-run}
source "$(dirname "$0")/../../scripts/run-matrix.sh"
variants=()
read -r -a EXTRA <<< "${NVFP4_RUN_ARGS:-}"
for v in "$@"; do
  if [[ $v == @* ]]; then list=$(matrix_variants "${v#@}") || exit 2; variants+=($list)
  else variants+=("$v"); fi
done
cases=$(matrix_runs "${NVFP4_MOE_CASES:-cpu-moe-e$E}") || exit 2
runs=0 failed=0 sched=1
for v in "${variants[@]}"; do
  while IFS='|' read -r _ name args; do
    read -r -a a <<< "$args"
    sched=$((sched + 1))
    t0=$(date +%s%N)
    out=$("$RUN" --cpu "$SO" "${a[@]}" --variant "$v" --schedule-seed "$sched" \
          --seed $((E + sched)) "${EXTRA[@]}" 2>&1 < /dev/null); rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    runs=$((runs + 1))
    if [[ $rc -eq 0 ]]; then
      printf 'PASS %-40s %6d ms\n' "e$E $v $name" "$ms"
    else
      failed=$((failed + 1))
      printf 'FAIL %-40s rc=%d %6d ms\n' "e$E $v $name" "$rc" "$ms"
      echo "$out" | grep -E 'HAZARD|FAULT|DEADLOCK|^  CTA|^check|mismatch|outside|nvfp4' | head -12 | sed 's/^/    /'
    fi
  done <<< "$cases"
done
echo "$runs runs, $failed failed"
[[ $failed -eq 0 ]]
