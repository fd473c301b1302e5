#!/usr/bin/env bash
# run-moe-cases.sh CPU_OBJECT E ROUTINGS VARIANT... — the CPU-target suite of one
# nvfp4.moe_matmul family of E experts: for every variant and routing (a comma-separated
# list of random, empty, one, balanced, decreasing, beyond), a launch with M = 8 E + 300
# token rows of which 37 are routed to no expert (ragged N = 200, K = 320, full range, C
# row stride 8 past N), then two more launches of the same parameter block after the
# routing in memory changed (--reroutes 2), each checked: every row holds its expert's
# result, nothing outside the experts' M x N changes. Few simulated SMs so that each CTA
# walks several tiles; the schedule seed varies. One line per run, then "N runs, N failed".
# NVFP4_MOE_SHAPE="M,N,K" replaces the shape; NVFP4_RUN_ARGS adds arguments to every run
# (e.g. "--alpha-values 0,-1.5").
set -uo pipefail
SO=$1 E=$2 ROUTINGS=$3; shift 3
RUN=${NVFP4_RUN:-nvfp4-run}
read -r -a EXTRA <<< "${NVFP4_RUN_ARGS:-}"
M=$((8 * E + 300)) N=200 K=320
[[ -n ${NVFP4_MOE_SHAPE:-} ]] && IFS=, read -r M N K <<< "$NVFP4_MOE_SHAPE"
runs=0 failed=0 sched=1
for v in "$@"; do
  for r in ${ROUTINGS//,/ }; do
    sched=$((sched + 1))
    t0=$(date +%s%N)
    out=$("$RUN" --cpu "$SO" --moe "$E,$M,$N,$K" --tokens $((M - 37)) --routing "$r" \
          --variant "$v" --full-range --ldc-pad 8 --reroutes 2 --schedule-seed "$sched" \
          --sms 3 --seed $((E + sched)) "${EXTRA[@]}" 2>&1); rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    runs=$((runs + 1))
    if [[ $rc -eq 0 ]]; then
      printf 'PASS %-40s %6d ms\n' "e$E $v $r (+2 reroutes)" "$ms"
    else
      failed=$((failed + 1))
      printf 'FAIL %-40s rc=%d %6d ms\n' "e$E $v $r (+2 reroutes)" "$rc" "$ms"
      echo "$out" | grep -E 'HAZARD|FAULT|DEADLOCK|^  CTA|^check|mismatch|outside|nvfp4' | head -12 | sed 's/^/    /'
    fi
  done
done
echo "$runs runs, $failed failed"
[[ $failed -eq 0 ]]
