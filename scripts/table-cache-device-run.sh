#!/usr/bin/env bash
# table-cache-device-run.sh — one device call measuring the small parameter block of kernel
# ABI 6 and the runtime's table cache (docs/performance.md, "The small parameter block") on
# the GPU machine, from a folder packaged by scripts/package-device.sh (DEVICE_DIR, default
# .device) with this script copied next to it:
#   1. `nvfp4-run --info` of the proxy and sm_90a families: the parameter bytes;
#   2. `runtime-gpu-test bench-launch`: the host time of a cached 8-group launch;
#   3. for each cubin (sm_100a timing proxy, native sm_90a) and case of CASES,
#      `nvfp4-run --fresh-sets SETS` with `--table-cache 16` and `--table-cache 1`: host,
#      end-to-end and back-to-back (`chain`) times of each technique, with the counters
#      (tables copied / found);
#   4. `--pdl-pair` per cubin and case (two dependent launches, PDL on and off).
# Keeps every JSON line in $OUT (default /tmp/nvfp4-tables) and prints a table of step 3.
#   usage: DEVICE_DIR=.device [CASES="B1 B2 B3 B4"] [SETS=15] [CALLS=2000] [E2E=200]
#          bash .device/table-cache-device-run.sh
set -u
cd "$(dirname "$0")/.."
D=${DEVICE_DIR:-.device}
O=${OUT:-/tmp/nvfp4-tables}
CASES=${CASES:-B1 B2 B3 B4}
SETS=${SETS:-15}
CALLS=${CALLS:-2000}
E2E=${E2E:-200}
mkdir -p "$O"
export LD_LIBRARY_PATH="$PWD/$D/lib:${LD_LIBRARY_PATH:-}"
: > "$O/fresh.json"
: > "$O/pdl.json"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$O/gpu.txt"
rc=0
for cubin in proxy_family sm90_family; do
  [[ -f $D/cubin/$cubin.cubin ]] || { echo "missing $D/cubin/$cubin.cubin"; rc=2; continue; }
  "$D/bin/nvfp4-run" --info "$D/cubin/$cubin.cubin" | grep -E "^(max groups|param bytes)" |
    sed "s/^/$cubin: /" | tee -a "$O/info.txt"
done
timeout 300 "$D/bin/runtime-gpu-test" bench-launch "$D/cubin/probe_sm90a.cubin" 5000 |
  tee "$O/bench-launch.txt" || rc=1
for cubin in proxy_family sm90_family; do
  [[ -f $D/cubin/$cubin.cubin ]] || continue
  for c in $CASES; do
    for n in 16 1; do
      timeout 600 "$D/bin/nvfp4-run" "$D/cubin/$cubin.cubin" --case "$c" --fresh-sets "$SETS" \
        --calls "$CALLS" --e2e-calls "$E2E" --table-cache "$n" --json \
        2> "$O/$cubin-$c-cache$n.err" | sed "s/^{/{\"cubin\": \"$cubin\", /" >> "$O/fresh.json" ||
        rc=1
    done
    timeout 300 "$D/bin/nvfp4-run" "$D/cubin/$cubin.cubin" --case "$c" --pdl-pair --iters 500 \
      --warmup 20 --json 2> "$O/$cubin-$c-pdl.err" >> "$O/pdl.json" || rc=1
  done
done
python3 - "$O/fresh.json" "$O/pdl.json" <<'PY' | tee "$O/tables.txt"
import json, sys
def rows(path):
    for line in open(path):
        try:
            yield json.loads(line)
        except ValueError:
            pass
print(f"{'cubin':<13} {'case':<4} {'technique':<16} {'cache':>5} {'host us':>8} {'e2e us':>8} "
      f"{'chain us':>9} {'copied':>7} {'found':>7} check")
for d in rows(sys.argv[1]):
    if d.get("skipped"):
        continue
    print(f"{d['cubin']:<13} {d['case']:<4} {d['name']:<16} {d['table_cache']:>5} "
          f"{d['host_us_median']:8.2f} {d['e2e_us_median']:8.2f} {d['chain_us_median']:9.2f} "
          f"{d['tables_uploaded']:>7} {d['table_cache_hits']:>7} "
          f"{'PASS' if d['pass'] else 'FAIL' if d['checked'] else '-'}")
for d in rows(sys.argv[2]):
    print(f"pdl pair {d['kernel']:<40} {d['case']:<4} on {d['pdl_pair_us_median']:.2f} us, "
          f"off {d['no_pdl_pair_us_median']:.2f} us, param {d['param_bytes']} B, "
          f"host launch {d['host_launch_us_median']:.3f} us")
PY
exit $rc
