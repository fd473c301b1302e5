#!/usr/bin/env bash
# fuzz.sh [--only NAME[,NAME...]] [SECONDS] — runs each libFuzzer harness of fuzz/ (or only
# those named) for SECONDS (default 60), built with clang-22, ASan + UBSan and coverage
# (scripts/san-build.sh, build-fuzz/ or $FUZZ_BUILD_DIR):
#   ir      MLIR text -> parse -> verify -> lower -> emulate   (fuzz/ir_fuzzer.c)
#   cubin   the runtime's cubin/metadata reader, plans, module loading through the libcuda
#           stand-in                                            (fuzz/cubin_fuzzer.c)
#   cpuobj  the simulator's CPU-object loader (ELF check, metadata, kernels and plan texts
#           through the object's symbols) and its plan-text parser and reports
#                                                               (fuzz/cpuobj_fuzzer.c)
# Seeds: ir from examples/*.mlir and every .mlir under test/ split at "// -----"; cubin
# from the runtime tests' probe kernels, examples/test1.mlir compiled for sm_100a and for
# the emulation, and an 8-expert nvfp4.moe_matmul family for sm_100a (when ptxas is
# there); cpuobj from examples/test1.mlir compiled --cpu for sm_100a and sm_90a and the plan
# texts inside them; plus fuzz/regressions/. Working corpora, logs, crash artifacts and
# summary.json go to build-fuzz/fuzz-run/. The harnesses run at the same time (one process
# each; FUZZ_PARALLEL=0 runs them one after the other). Prints one line per harness (execs,
# exec/s, coverage, corpus, crashes) and exits non-zero if any harness found anything.
set -euo pipefail
HARNESSES="ir cubin cpuobj"
if [[ ${1:-} == --only ]]; then
  HARNESSES=${2:?fuzz.sh: --only needs a list of harnesses (ir, cubin, cpuobj)}
  HARNESSES=${HARNESSES//,/ }
  shift 2
fi
for name in $HARNESSES; do
  [[ " ir cubin cpuobj " == *" $name "* ]] || { echo "fuzz.sh: no harness '$name' (ir, cubin, cpuobj)" >&2; exit 2; }
done
FUZZ_SECONDS=${1:-60}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/scripts/san-build.sh"
FUZZ_BUILD_DIR=${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}
targets=(nvfp4-compile)
for name in $HARNESSES; do targets+=("nvfp4-$name-fuzzer"); done
[[ " $HARNESSES " == *" ir "* ]] && targets+=(nvfp4_emu_bitcode)
[[ " $HARNESSES " == *" cubin "* ]] && targets+=(nvfp4-fake-cuda)
checked_build "$FUZZ_BUILD_DIR" clang-22 clang++-22 -DNVFP4_FUZZ=ON -- "${targets[@]}"
OUT=$FUZZ_BUILD_DIR/fuzz-run
rm -rf "$OUT"
for name in $HARNESSES; do mkdir -p "$OUT/corpus/$name" "$OUT/artifacts/$name"; done

seeds_ir() { # one file per "// -----" chunk
  python3 - "$ROOT" "$OUT/corpus/ir" <<'PY'
import pathlib, sys
root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
files = sorted(root.glob("examples/*.mlir")) + sorted(root.glob("test/**/*.mlir"))
n = 0
for f in files:
    for chunk in f.read_text().split("\n// -----\n"):
        if chunk.strip() and len(chunk) < 65536:
            (out / f"seed-{n:04d}.mlir").write_text(chunk)
            n += 1
print(f"fuzz: {n} ir seeds")
PY
}
seeds_cubin() {
  local PTXAS=$CUDA_ROOT/bin/ptxas
  if [[ -x $PTXAS ]]; then
    "$PTXAS" -arch=sm_90a "$ROOT/test/Runtime/Inputs/probe_sm90a.ptx" -o "$OUT/corpus/cubin/probe_sm90a.cubin"
    "$PTXAS" -arch=sm_100a "$ROOT/test/Runtime/Inputs/probe_sm100a.ptx" -o "$OUT/corpus/cubin/probe_sm100a.cubin"
    "$PTXAS" -arch=sm_90a "$ROOT/test/Runtime/Inputs/nometa.ptx" -o "$OUT/corpus/cubin/nometa.cubin"
    "$FUZZ_BUILD_DIR/bin/nvfp4-compile" "$ROOT/examples/test1.mlir" -o "$OUT/corpus/cubin/test1_sm100a.cubin"
    "$FUZZ_BUILD_DIR/bin/nvfp4-compile" "$ROOT/examples/test1.mlir" --emulate -o "$OUT/corpus/cubin/test1_emu.cubin"
    # the contiguous (MoE) form: a CTA-pair and a DYNAMIC_N variant, bf16 C with alpha
    python3 "$ROOT/scripts/gen-ops.py" moe 8 --c bf16 --alpha --variants ab2_n128,swap_n256 > "$OUT/moe8.mlir"
    "$FUZZ_BUILD_DIR/bin/nvfp4-compile" "$OUT/moe8.mlir" -o "$OUT/corpus/cubin/moe8_sm100a.cubin"
  else
    echo "fuzz: no ptxas: the cubin harness starts from a minimal ELF header"
    printf '\177ELF\002\001\001' > "$OUT/corpus/cubin/elf-header"
  fi
}
seeds_cpuobj() { # CPU objects of both targets and their plan texts
  "$FUZZ_BUILD_DIR/bin/nvfp4-compile" "$ROOT/examples/test1.mlir" --cpu "$OUT/corpus/cpuobj/test1_sm100a.so"
  sed 's/target = "sm_100a"/target = "sm_90a", variants = ["swap_n64", "swap_n64_sk"]/' \
    "$ROOT/examples/test1.mlir" > "$OUT/test1_sm90a.mlir"
  "$FUZZ_BUILD_DIR/bin/nvfp4-compile" "$OUT/test1_sm90a.mlir" --cpu "$OUT/corpus/cpuobj/test1_sm90a.so"
  python3 - "$OUT/corpus/cpuobj" <<'PY'
import pathlib, re, sys
out = pathlib.Path(sys.argv[1])
n = 0
for so in sorted(out.glob("*.so")):
    for m in re.finditer(rb"kernel [A-Za-z_0-9]+\nvariant [^\0]*?\0", so.read_bytes()):
        (out / f"plan-{n:02d}.txt").write_bytes(m.group(0)[:-1])
        n += 1
print(f"fuzz: {n} plan texts")
PY
}

run() { # name extra-args...
  local name=$1
  shift
  set +e
  (cd "$OUT" && "$FUZZ_BUILD_DIR/bin/nvfp4-$name-fuzzer" -max_total_time="$FUZZ_SECONDS" \
     -print_final_stats=1 -timeout=60 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
     -artifact_prefix="$OUT/artifacts/$name/" "$@" "$OUT/corpus/$name") > "$OUT/$name.log" 2>&1
  echo $? > "$OUT/$name.rc"
  set -e
}
run_ir() { run ir -dict="$ROOT/fuzz/mlir.dict" -max_len=16384; }
run_cubin() { NVFP4RT_LIBCUDA_PATH=$FUZZ_BUILD_DIR/lib/libnvfp4-fake-cuda.so run cubin -max_len=1048576; }
run_cpuobj() { run cpuobj -max_len=1048576; }

for name in $HARNESSES; do
  "seeds_$name"
  # inputs that once found something (fuzz/regressions/<harness>/) stay in the corpus
  [[ -d $ROOT/fuzz/regressions/$name ]] && cp "$ROOT/fuzz/regressions/$name/"* "$OUT/corpus/$name/"
  echo "fuzz: $(ls "$OUT/corpus/$name" | wc -l) $name seeds"
done
# The harnesses run side by side (each is one process), unless FUZZ_PARALLEL=0: SECONDS of
# wall time for all instead of SECONDS each.
for name in $HARNESSES; do
  "run_$name" &
  [[ ${FUZZ_PARALLEL:-1} == 0 ]] && wait
done
wait

python3 - "$OUT" "$FUZZ_SECONDS" $HARNESSES <<'PY'
import json, pathlib, re, sys
out, seconds = pathlib.Path(sys.argv[1]), int(sys.argv[2])
summary, bad = {}, False
for name in sys.argv[3:]:
    log = (out / f"{name}.log").read_text(errors="replace")
    stat = dict(re.findall(r"^stat::(\w+):\s+(\d+)", log, re.M))
    cov = re.findall(r"cov: (\d+) ft: (\d+) corp: (\d+)", log)
    crashes = sorted(p.name for p in (out / "artifacts" / name).iterdir())
    rc = int((out / f"{name}.rc").read_text())
    s = {"seconds": seconds, "execs": int(stat.get("number_of_executed_units", 0)),
         "exec_per_sec": int(stat.get("average_exec_per_sec", 0)),
         "coverage": int(cov[-1][0]) if cov else 0, "features": int(cov[-1][1]) if cov else 0,
         "corpus": int(cov[-1][2]) if cov else 0,
         "peak_rss_mb": int(stat.get("peak_rss_mb", 0)), "crashes": len(crashes),
         "artifacts": crashes, "exit": rc}
    summary[name] = s
    bad |= rc != 0 or bool(crashes)
    print(f"fuzz {name}: {s['execs']} execs ({s['exec_per_sec']}/s) in {seconds} s, "
          f"coverage {s['coverage']} edges / {s['features']} features, corpus {s['corpus']}, "
          f"{s['crashes']} crashes, exit {rc}")
(out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
sys.exit(1 if bad else 0)
PY
