#!/usr/bin/env bash
# pdl-device-run.sh — one device call measuring programmatic dependent launch (PDL) on the
# GPU machine (H100 / H200), from a folder packaged by scripts/package-device.sh (DEVICE_DIR,
# default .device) with this script copied next to it: for the native sm_90a family
# (sm90_family.cubin) and the sm_100a kernels' timing proxy (proxy_family.cubin), each case
# of CASES runs `nvfp4-run --pdl-pair`: two launches of one plan back to back (the second
# writes the C the first writes, so it depends on it in stream order), timed with CUDA events
# as the median of ITERS pairs, once with PDL and once without (each its own plan), after a
# checked launch. Prints one table row per cubin and case — the pair's time both ways, the
# difference, and whether PDL was in effect (driver >= CUDA 12.3) — and keeps every run's
# JSON line in $OUT/pdl.json (default OUT=/tmp/nvfp4-pdl).
#   usage: DEVICE_DIR=.device [CASES="test:0 B1 B2 B3 B4"] [ITERS=200] bash .device/pdl-device-run.sh
set -u
cd "$(dirname "$0")/.."
D=${DEVICE_DIR:-.device}
O=${OUT:-/tmp/nvfp4-pdl}
CASES=${CASES:-test:0 B1 B2 B3 B4}
ITERS=${ITERS:-200}
mkdir -p "$O"
export LD_LIBRARY_PATH="$PWD/$D/lib:${LD_LIBRARY_PATH:-}"
: > "$O/pdl.json"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$O/gpu.txt"
printf '%-18s %-7s %12s %12s %10s %s\n' cubin case "pair PDL us" "pair no us" "saved us" "in effect" | tee "$O/pdl.txt"
rc=0
for cubin in sm90_family proxy_family; do
  [[ -f $D/cubin/$cubin.cubin ]] || { echo "missing $D/cubin/$cubin.cubin" | tee -a "$O/pdl.txt"; rc=2; continue; }
  for c in $CASES; do
    line=$(timeout 300 "$D/bin/nvfp4-run" "$D/cubin/$cubin.cubin" --case "$c" --pdl-pair \
             --iters "$ITERS" --warmup 20 --launch-iters 0 --json 2> "$O/$cubin-${c/:/_}.err")
    status=$?
    echo "$line" >> "$O/pdl.json"
    python3 - "$cubin" "$c" "$status" "$line" <<'PY' | tee -a "$O/pdl.txt"
import json, sys
cubin, case, status, line = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
try:
    d = json.loads(line)
    on, off = d["pdl_pair_us_median"], d["no_pdl_pair_us_median"]
    print(f"{cubin:<18} {case:<7} {on:12.2f} {off:12.2f} {off - on:10.2f} "
          f"{'yes' if d['pdl_pair_in_effect'] else 'no'}{'' if d['pass'] else '  CHECK FAILED'}")
except Exception:
    print(f"{cubin:<18} {case:<7} run failed (exit {status}; see the .err file)")
PY
    [[ $status -eq 0 ]] || rc=1
  done
done
exit $rc
