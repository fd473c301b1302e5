#!/usr/bin/env bash
# mutation-check.sh — evidence that the CPU execution target catches generator bugs: applies,
# one at a time, deliberate bugs to the kernel generator (lib/Conversion, lib/Target),
# rebuilds nvfp4-compile, compiles the whole kernel family for the CPU target, runs the CPU
# suite's cases until one catches the bug — a failed reference or outside-C check (exit 1),
# a hazard or illegal-operation report (exit 4) or a deadlock report (exit 3); any other
# exit is an error of the check itself and stops it — and prints
# one table row per mutation: what was changed, which run caught it and how (the s IDs:
# the sm_120a kernel, in a block of their own below). The sources
# are restored (and the build brought back) on exit, also on failure or interrupt.
#   usage: scripts/mutation-check.sh [--all] [--only ID[,ID...]] [BUILD_DIR]
#   --all: run every case for every mutation (default: stop at the first catch)
# Exit status: 0 when every mutation was caught. Takes ~1-2 minutes per mutation on 2 cores.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ALL=0 ONLY=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --all) ALL=1; shift ;;
    --only) ONLY=$2; shift 2 ;;
    *) break ;;
  esac
done
BUILD=${1:-$ROOT/build}
RUN="$BUILD/bin/nvfp4-run"
COMPILE="$BUILD/bin/nvfp4-compile"
WORK=$(mktemp -d /tmp/nvfp4-mutation-XXXXXX)
FILES="lib/Conversion/Sm100/Epilogue.c lib/Conversion/Sm100/Mainloop.c lib/Conversion/Generator/Generator.c lib/Conversion/Generator/Producer.c lib/Target/KernelConfig.c"
FILES+=" lib/Conversion/Sm120/Mainloop.c lib/Target/DescriptorsSm120.c" # the sm_120a block below
for f in $FILES; do mkdir -p "$WORK/orig/$(dirname "$f")"; cp "$ROOT/$f" "$WORK/orig/$f"; done
restore() {
  for f in $FILES; do cmp -s "$WORK/orig/$f" "$ROOT/$f" || cp "$WORK/orig/$f" "$ROOT/$f"; done
  ninja -C "$BUILD" nvfp4-compile > /dev/null 2>&1
  rm -rf "$WORK"
}
trap restore EXIT
trap 'exit 130' INT TERM

# mutate FILE OLD NEW: replace exactly one occurrence (every one with a trailing "*all*").
mutate() {
  python3 - "$ROOT/$1" "$2" "$3" "${4:-one}" <<'EOF'
import sys
path, old, new, mode = sys.argv[1:5]
s = open(path).read()
n = s.count(old)
if n == 0 or (mode == "one" and n != 1):
    sys.exit(f"mutation-check: '{old}' occurs {n} times in {path}")
open(path, "w").write(s.replace(old, new) if mode == "all" else s.replace(old, new, 1))
EOF
}

# Each mutation: a shell function making the edits, and an "ID|description" entry below.
m1() { mutate lib/Conversion/Sm100/Epilogue.c "kbCmp(b, KB_ULT, row, t->m)" "kbCmp(b, KB_ULE, row, t->m)" all &&
       mutate lib/Conversion/Sm100/Epilogue.c "kbCmp(b, KB_ULT, cRow, t->m)" "kbCmp(b, KB_ULE, cRow, t->m)"; }
m2() { mutate lib/Conversion/Sm100/Mainloop.c "kbAdd(b, kbAddI(b, sfnCol, 4 * sfnAtoms * j), sfnShift)" "kbAddI(b, sfnCol, 4 * sfnAtoms * j)"; }
m3() { mutate lib/Conversion/Generator/Generator.c "kbSelect(b, wrap, kbXor(b, ph, kbI32(b, 1)), ph)" "ph"; }
m4() { mutate lib/Conversion/Generator/Producer.c "KbValue tx = kbI32(b, cfg->txBytesFixed);" "KbValue tx = kbI32(b, cfg->txBytesFixed - 16);"; }
m5() { mutate lib/Target/KernelConfig.c '"accEmpty", acc, 32u * MLIR_NVFP4_NUM_EPILOGUE_WARPS * pair)' '"accEmpty", acc, 32u * MLIR_NVFP4_NUM_EPILOGUE_WARPS * pair - 1)'; }
m6() { mutate lib/Conversion/Sm100/Mainloop.c "    nvTcCommit(b, genPipeEmptyBar(g, &st->stages), cg, both);
" "" && mutate lib/Conversion/Sm100/Mainloop.c "    for (uint32_t j = 0; j < kBlocks; ++j) {
      kbIf(b, kbCmpI(b, KB_UGT, remaining, j));" "    nvTcCommit(b, genPipeEmptyBar(g, &st->stages), cg, both);
    for (uint32_t j = 0; j < kBlocks; ++j) {
      kbIf(b, kbCmpI(b, KB_UGT, remaining, j));"; }
m7() { mutate lib/Conversion/Sm100/Epilogue.c "  nvTcWaitLd(b);
" ""; }
m8() { mutate lib/Conversion/Sm100/Epilogue.c "if (c + 1 == g->cfg->tileN / 32) releaseAccumulator(g, st);" "if (c == 0) releaseAccumulator(g, st);" &&
       mutate lib/Conversion/Sm100/Epilogue.c "if (s + 1 == subTiles) releaseAccumulator(g, st);" "if (s == 0) releaseAccumulator(g, st);" &&
       mutate lib/Conversion/Sm100/Epilogue.c "kbIf(b, kbCmp(b, KB_EQ, kbAddI(b, sv, 1), subTiles));
    releaseAccumulator(g, st);" "kbIf(b, kbCmpI(b, KB_EQ, sv, 0));
    releaseAccumulator(g, st);"; }
m9() { mutate lib/Conversion/Sm100/Epilogue.c "  nvBulkCommitGroup(b);
  kbEndIf(b);
  genRingAdvance(b, &st->staging);" "  kbEndIf(b);
  genRingAdvance(b, &st->staging);" &&
       mutate lib/Conversion/Sm100/Epilogue.c "  KbValue map = genTileTensorMap(g, t, MLIR_NVFP4_TENSOR_C);
  KbValue n8 = mapColumns(g, t);" "  nvBulkCommitGroup(b);
  KbValue map = genTileTensorMap(g, t, MLIR_NVFP4_TENSOR_C);
  KbValue n8 = mapColumns(g, t);"; }
m11() { mutate lib/Conversion/Generator/Generator.c "nvMbarWaitTagged(k->b, bar, parity, k->cfg->spec.ctaGroup > 1, arr ? arr->name : NULL);" "nvMbarWaitTagged(k->b, bar, parity, false, arr ? arr->name : NULL);"; }
m12() { mutate lib/Conversion/Sm100/Epilogue.c "  genPipeConsumerWait(g, &st->acc);
  nvTcFenceAfter(b);" "  genPipeConsumerWait(g, &st->acc);"; }
m13() { mutate lib/Conversion/Sm100/Epilogue.c "  nvTcFenceBefore(b);
  if (g->cfg->spec.ctaGroup > 1)" "  if (g->cfg->spec.ctaGroup > 1)"; }
m14() { mutate lib/Conversion/Sm100/Epilogue.c "  nvFenceProxyAsyncShared(b);
  nvWarpSync(b);
  nvNamedBarrier(b, EPI_BARRIER_ID, EPI_THREADS);" "  nvWarpSync(b);
  nvNamedBarrier(b, EPI_BARRIER_ID, EPI_THREADS);"; }
m10() { mutate lib/Conversion/Sm100/Mainloop.c "      genPipeProducerAcquire(g, &st->sf);
" ""; }

MUTATIONS=(
  "m1|the row check of C stores one row past M (row < M became row <= M in every epilogue)"
  "m2|the SFB column shift (n0 mod 128) / 32 dropped from the MMA's scale-factor address"
  "m3|ring phases never flip (genRingAdvance keeps the phase bit at the wrap)"
  "m4|expect_tx of every stage 16 bytes short"
  "m5|accumulator-empty barrier initialised with one arrival too few (127, 255 for a pair)"
  "m6|the stage's tcgen05.commit issued before its MMAs (the stage is released, and its next TMA issued, while they read it)"
  "m7|tcgen05.wait::ld removed after the epilogue's tcgen05.ld"
  "m8|the accumulator released (accEmpty arrive) after its first tcgen05.ld instead of its last"
  "m9|the TMA-store bulk commit_group moved after the next TMA store issue (wait_group.read no longer covers the staging buffer refilled next)"
  "m10|the scale-factor slot's free-wait removed (tcgen05.cp into a slot while MMAs of its previous stage may read it)"
  "m11|a CTA pair's mbarrier waits acquire at the default .cta scope instead of .cluster"
  "m12|tcgen05.fence::after_thread_sync removed between the epilogue's accumulator-full wait and its tcgen05.ld"
  "m13|tcgen05.fence::before_thread_sync removed before the epilogue's accumulator-empty arrive"
  "m14|fence.proxy.async removed before the epilogue's staging barrier (the TMA store reads generic stores no proxy fence made visible)"
)

VARIANTS1='"ab_n64", "ab_n128", "ab_n192", "ab_n256", "ab_n64_st", "ab_n128_st", "ab_n192_st", "ab_n256_st", "swap_n64", "swap_n128", "swap_n192", "swap_n256"'
VARIANTS2='"ab2_n64", "ab2_n128", "ab2_n192", "ab2_n256", "swap2_n64", "swap2_n128", "swap2_n192", "swap2_n256"'
# The cases each mutation is run on, in order (variant, then nvfp4-run arguments).
CASES=()
for v in ab_n128_st ab_n64 ab_n192 ab_n128 ab_n256 swap_n64 swap_n128 swap_n256 ab2_n128 swap2_n128 ab_n64_st ab_n192_st ab_n256_st swap_n192 ab2_n64 ab2_n192 ab2_n256 swap2_n64 swap2_n192 swap2_n256; do
  CASES+=("$v|--case test:1 --schedule-seed 1 --sms 4")
  CASES+=("$v|--case edge:12 --seed 201 --ldc-pad 24 --schedule-seed 2 --sms 2")
  CASES+=("$v|--case test:5 --schedule-seed 3 --sms 2")
  CASES+=("$v|--case random:8 --seed 101 --full-range --schedule-seed 1 --sms 3")
done

how() {
  case $1 in
    1) if grep -q 'FAIL: kernel wrote outside' "$2"; then
         echo "outside-C check: $(grep -m1 'outside write group' "$2" | sed 's/^ *//; s/  */ /g')"
       else
         echo "reference check: $(grep -m1 -E '^check' "$2" | sed 's/^check *//; s/  */ /g')"
       fi ;;
    3) echo "deadlock report: $(grep -m1 -E '^  CTA' "$2" | sed -E 's/  */ /g; s/ \(site [0-9]+\)//' | cut -c1-200)" ;;
    4) grep -m1 -E '^nvfp4-sim: (HAZARD|FAULT)' "$2" |
         sed -E 's/^nvfp4-sim: ([A-Z]+) ([a-z-]+): CTA [0-9]+ \(cluster [0-9]+ rank [0-9]+\) (warp [0-9]+) lane [0-9]+ \(([^)]*)\): /\1 report `\2`, \3 (\4): /;
                 s/^nvfp4-sim: ([A-Z]+) ([a-z-]+): asynchronous completion: [^:]*: /\1 report `\2`: /;
                 s/ \(site [0-9]+\)//g' | cut -c1-260 ;;
    *) echo "exit $1" ;;
  esac
}

# ==== sm_120a (block-scaled mma.sync) mutations ======================================
# Their own family (every sm_120a variant, examples/any16.mlir) and cases; an "s" ID runs
# them instead of the sm_100a families. The generator's selector and layout arithmetic
# (lib/Target/DescriptorsSm120.c) and its use (lib/Conversion/Sm120/Mainloop.c).
s1() { mutate lib/Target/DescriptorsSm120.c "MlirNvfp4Sm120ScaleSlot s = {2u * mBlock + step / 2u, step % 2u};" "MlirNvfp4Sm120ScaleSlot s = {2u * mBlock + step / 2u, 0u};"; }
s2() { mutate lib/Target/DescriptorsSm120.c "MlirNvfp4Sm120ScaleSlot s = {nBlock, step};" "MlirNvfp4Sm120ScaleSlot s = {nBlock, (step + 1u) % 4u};"; }
s3() { mutate lib/Conversion/Sm120/Mainloop.c "    s->sfb[nb] = kbLoad(b, b->i32, genSharedPtr(g, kbAdd(b, sfn, s->sfbWord[nb])), 4);" "    { KbValue w = kbLoad(b, b->i32, genSharedPtr(g, kbAdd(b, sfn, s->sfbWord[nb])), 4);
      s->sfb[nb] = kbOr(b, kbShl(b, w, kbI32(b, 8)), kbLShr(b, w, kbI32(b, 24))); }"; }
s4() { mutate lib/Conversion/Sm120/Mainloop.c "KbValue rowA = kbAnd(b, lane, kbI32(b, 15));" "KbValue rowA = kbAnd(b, kbAddI(b, lane, 8), kbI32(b, 15));"; }
s5() { mutate lib/Conversion/Sm120/Mainloop.c "KbValue rowS = kbAdd(b, c->g, kbMulI(b, kbAnd(b, lane, kbI32(b, 1)), 8));" "KbValue rowS = kbAdd(b, c->g, kbMulI(b, kbXor(b, kbAnd(b, lane, kbI32(b, 1)), kbI32(b, 1)), 8));"; }
s6() { mutate lib/Conversion/Sm120/Mainloop.c "  loadScales(s);
  mmaStep(s, 0);" "  loadScales(s);
  kbIf(b, kbCmpI(b, KB_EQ, g->lane, 0));
  nvMbarArrive(b, genPipeEmptyBar(g, &s->stages));
  kbEndIf(b);
  mmaStep(s, 0);"; }
S120_MUTATIONS=(
  "s1|thread-id-a always 0: the odd 64-K steps of a stage multiply with the even steps' A scales"
  "s2|thread-id-b one step ahead: every MMA multiplies with another step's B scales"
  "s3|the B scale word's bytes rotated by one (K block j takes block j - 1's scale)"
  "s4|the A fragment's rows off by 8 (ldmatrix lanes 0-7 address rows 8-15 of the block and lanes 8-15 rows 0-7)"
  "s5|the A scale rows of a thread pair exchanged (row g from the lane of row g + 8)"
  "s6|the stage released before its reads (an extra empty arrive at the start of each stage)"
)
S120_VARIANTS='"ab_n64", "ab_n128", "swap_n32", "swap_n64", "swap_n128"'
S120_CASES=()
for v in ab_n128 swap_n64 ab_n64 swap_n32 swap_n128; do
  S120_CASES+=("$v|--case test:1 --schedule-seed 1 --sms 4")
  S120_CASES+=("$v|--case edge:12 --seed 201 --ldc-pad 24 --schedule-seed 2 --sms 2")
  S120_CASES+=("$v|--case random:8 --seed 101 --full-range --schedule-seed 1 --sms 3")
done
# ==== end of the sm_120a block =========================================================
MUTATIONS+=("${S120_MUTATIONS[@]}")
# ---- sm_90a: the epilogue options and the contiguous form ----------------------------------
# Each mutation of this block must fail a test of check-nvfp4: it is applied, nvfp4-compile
# rebuilt, and the lit test(s) named in its entry run; the first failing test and its
# first reported mismatch, outside write or hazard are the row's "how".
H_FILES="lib/Conversion/Sm90/Epilogue.c" # (Generator/Producer.c is in FILES)
for f in $H_FILES; do mkdir -p "$WORK/orig/$(dirname "$f")"; cp "$ROOT/$f" "$WORK/orig/$f"; done
FILES="$FILES $H_FILES"
LIT=${LIT:-$(command -v lit || echo /usr/lib/llvm-22/bin/lit)}
h1() { mutate lib/Conversion/Sm90/Epilogue.c "kbLoad(b, b->f32, kbIntToPtr(b, t->alphaPtr," "kbLoad(b, b->f32, kbIntToPtr(b, kbAddI(b, t->alphaPtr, 4),"; }
h2() { mutate lib/Conversion/Generator/Producer.c "dst, full, x[0], rows[i], hints[i]," "dst, full, x[0], kbAddI(b, rows[i], 1), hints[i],"; }
h3() { mutate lib/Conversion/Sm90/Epilogue.c "contiguous ? kbCmp(b, KB_ULE, kbAddI(b, y, MLIR_NVFP4_SM90_STORE_ROWS), t->m)" "contiguous ? kbCmp(b, KB_ULT, y, t->m)"; }
h4() { mutate lib/Conversion/Generator/Generator.c "lim[i] = umin(b, v, m);" "lim[i] = v; (void)m;"; }
h5() { mutate lib/Conversion/Sm90/Epilogue.c "  v = kbFMul(b, v, vec ? splat2(b, f) : f);
  if (!mlirValueIsNull(alpha)) v = kbFMul(b, v, vec ? splat2(b, alpha) : alpha);" "  if (!mlirValueIsNull(alpha)) f = kbFMul(b, f, alpha);
  v = kbFMul(b, v, vec ? splat2(b, f) : f);"; }
H_MUTATIONS=(
  "h1|sm_90a epilogue: the tile's alpha read one group (expert) further|CpuSim/run-epilogue-sm90a"
  "h2|sm_90a contiguous form: an expert's token rows loaded from one row past its first offset|CpuSim/run-moe-sm90a"
  "h3|sm_90a contiguous form: the C boxes not clamped to the expert's rows (a box crossing its last row is stored by TMA)|CpuSim/run-moe-sm90a"
  "h4|the contiguous form's offsets not clamped to M (the schedule trusts offsets past the token rows)|CpuSim/run-moe-sm90a"
  "h5|sm_90a epilogue: 2^14 folded into alpha (alpha x 2^14 overflows for alpha >= 2^114)|CpuSim/run-epilogue-sm90a"
)
h_run() { # id, description, lit filter
  local id=$1 desc=$2 filter=$3
  for f in $FILES; do cp "$WORK/orig/$f" "$ROOT/$f"; done
  if ! $id; then echo "mutation-check: $id could not be applied (the generator changed?)" >&2; exit 2; fi
  local t0=$(date +%s)
  if ! ninja -C "$BUILD" nvfp4-compile > "$WORK/build.log" 2>&1; then
    echo "| $id | $desc | (does not build) | $(tail -1 "$WORK/build.log") |" >> "$WORK/table.md"; caught_all=0; return
  fi
  "$LIT" -v "$BUILD/test" --filter "$filter" > "$WORK/lit.log" 2>&1
  local rc=$? failed how
  failed=$(grep -m1 -E '^FAIL: ' "$WORK/lit.log" | sed 's/^FAIL: NVFP4 :: //; s/ (.*//')
  how=$( (grep -m1 -E 'mismatch |outside write|HAZARD|FAULT|DEADLOCK' "$WORK/lit.log" ||
          grep -m1 -E '(^|[^A-Z])FAIL ' "$WORK/lit.log") | sed 's/^# | *//; s/^[0-9]*: *//; s/  */ /g' | cut -c1-200)
  if [[ $rc -eq 0 ]]; then
    caught_all=0
    echo "| $id | $desc | NOT CAUGHT ($filter passed) | |" >> "$WORK/table.md"
  else
    echo "| $id | $desc | \`$failed\` | ${how//|/\\|} |" >> "$WORK/table.md"
  fi
  tail -1 "$WORK/table.md"
  echo "  ($(( $(date +%s) - t0 )) s)" >&2
}

caught_all=1
printf '| # | mutation | caught by | how |\n|---|---|---|---|\n' > "$WORK/table.md"
for entry in "${MUTATIONS[@]}"; do
  id=${entry%%|*}; desc=${entry#*|}
  [[ -n $ONLY && ",$ONLY," != *",$id,"* ]] && continue
  for f in $FILES; do cp "$WORK/orig/$f" "$ROOT/$f"; done
  if ! $id; then echo "mutation-check: $id could not be applied (the generator changed?)" >&2; exit 2; fi
  t0=$(date +%s)
  if ! ninja -C "$BUILD" nvfp4-compile > "$WORK/build.log" 2>&1; then
    echo "| $id | $desc | (does not build) | $(tail -1 "$WORK/build.log") |" >> "$WORK/table.md"; caught_all=0; continue
  fi
  fams="1 2" cases=CASES
  [[ $id == s* ]] && fams=3 cases=S120_CASES # the sm_120a block
  for fam in $fams; do
    list=VARIANTS$fam target=sm_100a
    [[ $fam == 3 ]] && list=S120_VARIANTS target=sm_120a
    sed "s/target = \"sm_100a\"/target = \"$target\", variants = [${!list}]/" "$ROOT/examples/any16.mlir" > "$WORK/f$fam.mlir"
    "$COMPILE" "$WORK/f$fam.mlir" --cpu "$WORK/f$fam.so" > "$WORK/compile$fam.log" 2>&1 || { echo "mutation-check: $id: the family does not compile" >&2; cat "$WORK/compile$fam.log" >&2; }
  done
  declare -n case_list=$cases
  first="" mode="" caught=0 ran=0
  for c in "${case_list[@]}"; do
    v=${c%%|*}; args=${c#*|}
    so=$WORK/f1.so; [[ $v == ab2_* || $v == swap2_* ]] && so=$WORK/f2.so; [[ $id == s* ]] && so=$WORK/f3.so
    timeout 300 "$RUN" --cpu "$so" --variant "$v" $args > "$WORK/run.log" 2>&1; rc=$?
    ran=$((ran + 1))
    if [[ $rc -ne 0 && $rc -ne 1 && $rc -ne 3 && $rc -ne 4 ]]; then
      echo "mutation-check: $id: $v $args did not run (exit $rc):" >&2
      tail -3 "$WORK/run.log" >&2
      exit 2
    fi
    if [[ $rc -ne 0 ]]; then
      caught=$((caught + 1))
      [[ $ALL -eq 1 ]] && echo "  caught by $v $args (exit $rc)" >&2
      if [[ -z $first ]]; then first="$v $args"; mode=$(how $rc "$WORK/run.log"); fi
      [[ $ALL -eq 0 ]] && break
    fi
  done
  secs=$(( $(date +%s) - t0 ))
  if [[ -z $first ]]; then
    caught_all=0
    echo "| $id | $desc | NOT CAUGHT ($ran runs) | |" >> "$WORK/table.md"
  else
    extra=""; [[ $ALL -eq 1 ]] && extra=" ($caught of $ran runs)"
    echo "| $id | $desc | \`$first\`$extra | ${mode//|/\\|} |" >> "$WORK/table.md"
  fi
  tail -1 "$WORK/table.md"
  echo "  ($secs s)" >&2
done
for entry in "${H_MUTATIONS[@]}"; do
  IFS='|' read -r id desc filter <<< "$entry"
  [[ -n $ONLY && ",$ONLY," != *",$id,"* ]] && continue
  h_run "$id" "$desc" "$filter"
done
echo
cat "$WORK/table.md"
[[ $caught_all -eq 1 ]]
