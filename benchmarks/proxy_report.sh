#!/usr/bin/env bash
# The performance report of the generated kernels on an H200, through the timing proxy
# (docs/performance.md). Two steps:
#   benchmarks/proxy_report.sh package [BUILD_DIR]   here (LLVM machine): builds DEVICE_DIR
#       (default .device-report) with nvfp4-run, nvfp4-proxy-bench, libnvfp4rt, the
#       streaming-ceiling kernel and the proxy cubins: for B1..B4 every variant of the family
#       (1-CTA and CTA-pair families apart), stage-count sweeps, the default family, and the
#       1-group 128 x 128 x 256 problem of the fixed cost; the 1-CTA families once more built
#       with nvfp4.patch_tmaps (able to patch their own tensor maps);
#   benchmarks/proxy_report.sh run [OUT_DIR]         on the GPU machine, in one run: the
#       variant tables (proxy1.json: 1-CTA families, stage sweeps, fixed cost; proxy2.json:
#       CTA pairs), the patchable families with the maps in the parameter block and with the
#       kernel patching them (proxy_patchable.json, proxy_patch.json), and the whole-call
#       cost with 15 fresh input sets for B1..B4 (fresh.jsonl; default families built with
#       nvfp4.patch_tmaps so that every technique runs). benchmarks/plot_proxy.py turns them into the tables and the plot.
# Every GPU process runs under `timeout`, its output going to OUT_DIR as it is measured.
set -uo pipefail
cd "$(dirname "$0")/.."
D=${DEVICE_DIR:-.device-report}
FAMILY1='"ab_n128_st", "ab_n64_st", "ab_n256_st", "ab_n64", "ab_n128", "ab_n192", "ab_n256", "swap_n64", "swap_n128", "swap_n192", "swap_n256"'
FAMILY2='"ab2_n128", "ab2_n256", "swap2_n128", "swap2_n192", "swap2_n256"'
SWEEP='"ab_n128", "swap_n128", "swap_n256", "ab2_n256", "swap2_n256"'
SWEEP4='"ab_n128", "swap_n128", "ab2_n256", "swap2_n256"'

family() { # in.mlir out.cubin variants [stages] [more attributes]
  local attrs="variants = [$3]"
  [ -n "${4:-}" ] && attrs="$attrs, stages = $4"
  [ -n "${5:-}" ] && attrs="$attrs, $5"
  sed "s/target = \"sm_100a\"/target = \"sm_100a\", $attrs/" "$1" > "$D/tmp.mlir"
  "$BUILD"/bin/nvfp4-compile "$D/tmp.mlir" --proxy -o "$2"
}

if [ "${1:-}" = package ]; then
  set -e
  BUILD=${2:-build}
  mkdir -p "$D/bin" "$D/lib" "$D/cubin"  # beside what scripts/package-device.sh put there
  cp "$BUILD"/bin/nvfp4-run "$BUILD"/bin/nvfp4-proxy-bench "$D/bin/"
  cp -P "$BUILD"/lib/libnvfp4rt.so* "$BUILD"/lib/nvfp4_stream_bytes.cubin "$D/lib/"
  for b in 1 2 3 4; do
    family examples/b$b.mlir "$D/cubin/fam1_B$b.cubin" "$FAMILY1"
    family examples/b$b.mlir "$D/cubin/fam2_B$b.cubin" "$FAMILY2"
    family examples/b$b.mlir "$D/cubin/fam1p_B$b.cubin" "$FAMILY1" "" nvfp4.patch_tmaps
    for s in 2 3; do family examples/b$b.mlir "$D/cubin/stages${s}_B$b.cubin" "$SWEEP" $s; done
    family examples/b$b.mlir "$D/cubin/stages4_B$b.cubin" "$SWEEP4" 4
    sed 's/target = "sm_100a"/target = "sm_100a", nvfp4.patch_tmaps/' examples/b$b.mlir > "$D/tmp.mlir"
    "$BUILD"/bin/nvfp4-compile "$D/tmp.mlir" --proxy -o "$D/cubin/default_B$b.cubin"
  done
  python3 test/Dialect/nvfp4/Inputs/gen_groups.py 1 | sed 's/variants = \["swap_n128"\]/variants = [ '"$FAMILY1"' ]/' > "$D/fixed.mlir"
  "$BUILD"/bin/nvfp4-compile "$D/fixed.mlir" --proxy -o "$D/cubin/fixed.cubin"
  rm -f "$D/tmp.mlir"
  cp benchmarks/proxy_report.sh "$D/"
  echo "packaged into $D: $(du -sh "$D" | cut -f1)"
  exit 0
fi

[ "${1:-}" = run ] || { echo "usage: $0 package [BUILD_DIR] | run [OUT_DIR]" >&2; exit 2; }
OUT=${2:-/tmp/nvfp4-report}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/$D/lib:${LD_LIBRARY_PATH:-}"
C="$D/cubin"
BENCH="$D/bin/nvfp4-proxy-bench --stream $D/lib/nvfp4_stream_bytes.cubin --iters ${ITERS:-50}"
cases1="" cases2=""
for b in 1 2 3 4; do
  cases1="$cases1 B$b=$C/fam1_B$b.cubin B$b=$C/stages2_B$b.cubin B$b=$C/stages3_B$b.cubin B$b=$C/stages4_B$b.cubin"
  cases2="$cases2 B$b=$C/fam2_B$b.cubin"
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader > "$OUT/gpu.txt"
rc=0
timeout ${T1:-120} $BENCH --json "$OUT/proxy1.json" --fixed "$C/fixed.cubin" $cases1 > "$OUT/proxy1.txt" 2>&1 || rc=1
timeout ${T2:-60} $BENCH --json "$OUT/proxy2.json" $cases2 > "$OUT/proxy2.txt" 2>&1 || rc=1
patchable=$(for b in 1 2 3 4; do echo B$b=$C/fam1p_B$b.cubin; done)
timeout ${T3:-120} $BENCH --json "$OUT/proxy_patchable.json" $patchable > "$OUT/proxy_patchable.txt" 2>&1 || rc=1
timeout ${T3:-120} $BENCH --json "$OUT/proxy_patch.json" --tmap-update kernel-patch $patchable \
  > "$OUT/proxy_patch.txt" 2>&1 || rc=1
: > "$OUT/fresh.jsonl"
for b in 1 2 3 4; do
  timeout ${T4:-60} "$D/bin/nvfp4-run" "$C/default_B$b.cubin" --case B$b --fresh-sets 15 \
    --calls ${CALLS:-2000} --e2e-calls ${E2E:-200} --json >> "$OUT/fresh.jsonl" 2> "$OUT/fresh_B$b.err" || rc=1
done
exit $rc
