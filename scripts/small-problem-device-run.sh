#!/usr/bin/env bash
# small-problem-device-run.sh — one device call timing small problems (docs/performance.md,
# "Small problems") on the GPU machine: kernel times of the same cases and variants from
# several packaged trees side by side, rounds interleaved (tree A, tree B, tree A, ...), so
# that a change and its baseline meet the same GPU state.
#
# Each tree is a folder with bin/nvfp4-run, lib/ (libnvfp4rt, libnvfp4sim) and cubin/ as
# scripts/package-device.sh makes them (DEVICE_DIR=.device-NAME); only the cubins named in
# CUBINS are read (missing ones, and variants a cubin lacks, print as "-"): proxy_family
# (the sm_100a timing proxy of every variant), proxy_sk (the four persistent 1-CTA variants
# and their stream-K twins), sm90_family (the native sm_90a default family).
#
# Cases: `fixed` (one 128 x 128 x 256 group: the fixed cost of a launch; `fixed4` and
# `fixed16`, the same tile with K 1024 and 4096, give the cost of a stage), the benchmarks
# B1-B4 (docs/format.md), and decode-like shapes with few tiles and a long K:
#   D1  2 groups of 16 x 4096 x 7168   (two experts' up-projection, 16 tokens each)
#   D2  1 group  of 64 x 4096 x 7168   (one expert, 64 tokens)
#   D3  1 group  of 8 x 7168 x 2048    (a down-projection: short K, many N tiles)
# Every run checks its result (the proxy: C stays zero inside M x N, untouched outside),
# times ITERS launches with the L2 flushed between them and reports the median.
#   usage: TREES=".device-base .device" [CUBINS="proxy_family sm90_family"]
#          [CASES="fixed B1 B2 B3 B4 D1 D2 D3"] [VARIANTS="- ab_n128 swap_n128 ..."]
#          [ROUNDS=2] [ITERS=200] bash scripts/small-problem-device-run.sh
# VARIANTS "-" is the runtime's own choice. JSON lines go to $OUT (default
# /tmp/nvfp4-small); stdout gets the table of medians (µs), one column per tree.
set -u
cd "$(dirname "$0")/.."
TREES=${TREES:-.device}
CUBINS=${CUBINS:-proxy_family sm90_family}
CASES=${CASES:-fixed B1 B2 B3 B4 D1 D2 D3}
VARIANTS=${VARIANTS:--}
ROUNDS=${ROUNDS:-2}
ITERS=${ITERS:-200}
O=${OUT:-/tmp/nvfp4-small}
mkdir -p "$O"
: > "$O/small.json"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$O/gpu.txt"

case_args() { # CASE -> nvfp4-run problem arguments
  case $1 in
    fixed) echo '--groups 128,128,256' ;;
    fixed4) echo '--groups 128,128,1024' ;;
    fixed16) echo '--groups 128,128,4096' ;;
    D1) echo '--groups 16,4096,7168;16,4096,7168' ;;
    D2) echo '--groups 64,4096,7168' ;;
    D3) echo '--groups 8,7168,2048' ;;
    *) echo "--case $1" ;;
  esac
}

rc=0
for r in $(seq 1 "$ROUNDS"); do
  for tree in $TREES; do
    for cubin in $CUBINS; do
      f=$tree/cubin/$cubin.cubin
      [[ -f $f ]] || continue
      for c in $CASES; do
        for v in $VARIANTS; do
          vopt=()
          [[ $v != - ]] && vopt=(--variant "$v")
          # shellcheck disable=SC2046
          out=$(LD_LIBRARY_PATH="$PWD/$tree/lib" timeout 120 "$tree/bin/nvfp4-run" "$f" \
                  $(case_args "$c") "${vopt[@]}" --iters "$ITERS" --warmup 20 --flush-l2 \
                  --json 2> "$O/err.txt")
          code=$?
          if [[ $code -ne 0 ]]; then
            # a variant the cubin lacks is not an error of the run
            grep -q -i "no variant\|unknown variant\|not found" "$O/err.txt" || {
              echo "FAIL $tree $cubin $c $v (exit $code): $(head -c 300 "$O/err.txt")"
              rc=1
            }
            continue
          fi
          echo "$out" | sed "s|^{|{\"tree\": \"$tree\", \"round\": $r, \"cubin_name\": \"$cubin\", \"case_name\": \"$c\", \"forced\": \"$v\", |" >> "$O/small.json"
        done
      done
    done
  done
done

python3 - "$O/small.json" "$TREES" <<'PY'
import json, statistics, sys
trees = sys.argv[2].split()
runs = {}
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    key = (d["cubin_name"], d["case_name"], d["forced"])
    runs.setdefault(key, {}).setdefault(d["tree"], []).append(d)
w = max([len(t) for t in trees] + [10])
print(f"{'cubin':<13} {'case':<5} {'variant':<16} {'grid':>5} {'tiles':>6} "
      + " ".join(f"{t:>{w}}" for t in trees) + "  chosen (last tree) / check")
for key in sorted(runs):
    by = runs[key]
    cells, last = [], None
    for t in trees:
        ds = by.get(t)
        if not ds:
            cells.append(f"{'-':>{w}}")
            continue
        last = ds[-1]
        med = statistics.median(x["time_us_median"] for x in ds)
        cells.append(f"{med:>{w}.2f}")
    ok = all(x["pass"] for ds in by.values() for x in ds)
    print(f"{key[0]:<13} {key[1]:<5} {key[2]:<16} {last['grid']:>5} {last['total_tiles']:>6} "
          + " ".join(cells) + f"  {last['kernel']} / {'pass' if ok else 'FAIL'}")
PY
exit $rc
