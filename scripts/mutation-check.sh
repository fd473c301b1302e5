#!/usr/bin/env bash
# mutation-check.sh — evidence that check-nvfp4's CPU-target suites catch generator bugs:
# applies, one at a time, deliberate bugs to the kernel generator (lib/Conversion: the
# sm_100a, sm_90a and sm_120a kernels and the shared generator; lib/Target), rebuilds
# nvfp4-compile, and makes the runs of the CPU-target lit tests of the mutated target
# (test/CpuSim/run-*.test for sm_100a, run-sm90a.test and stream-k-sm90a.test for sm_90a,
# run-sm120a.test for sm_120a, run-fused*.test for the fused epilogue: the same kernel families,
# variants, cases and seeds, from the run matrix) until one catches the bug — a failed
# reference or outside-C check (exit 1), a hazard or fault report (exit 4) or a deadlock
# report (exit 3) — and prints one table row per mutation: what was changed, which test and
# run caught it and how. A run that ends any other way (a crash of the simulator or of
# nvfp4-run, a hang past 300 s, an error) is a failure of the check: the row says so and the
# mutation does not count as caught. The sources are restored (and the build brought back)
# on exit, also on failure or interrupt.
#   usage: scripts/mutation-check.sh [--all] [--only ID[,ID...]] [BUILD_DIR]
#   --all: make every run for every mutation (default: stop at the first catch)
# Exit status: 0 when every mutation was caught. Takes ~1-3 minutes per mutation on 2 cores.
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
FILES="lib/Conversion/Sm100/Kernel.c lib/Conversion/Sm100/Epilogue.c lib/Conversion/Sm100/Mainloop.c lib/Conversion/Generator/Generator.c
       lib/Conversion/Generator/Producer.c lib/Target/KernelConfig.c
       lib/Conversion/Sm90/Epilogue.c lib/Conversion/Sm90/Mainloop.c lib/Conversion/Sm90/Kernel.c
       lib/Conversion/Sm90/TokenDecoder.c lib/Conversion/Sm120/Mainloop.c lib/Target/DescriptorsSm120.c
       lib/Conversion/Nvvm.c"
for f in $FILES; do mkdir -p "$WORK/orig/$(dirname "$f")"; cp "$ROOT/$f" "$WORK/orig/$f"; done
# The binaries the mutated sources go into (the fused epilogue's block below adds its own).
REBUILD="nvfp4-compile"
restore() {
  for f in $FILES; do cmp -s "$WORK/orig/$f" "$ROOT/$f" || cp "$WORK/orig/$f" "$ROOT/$f"; done
  ninja -C "$BUILD" -j"${JOBS:-2}" $REBUILD > /dev/null 2>&1
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
m8() { mutate lib/Conversion/Sm100/Epilogue.c "if (c + 1 == g->cfg->tileN / 32) sm100EpiRelease(g, st);" "if (c == 0) sm100EpiRelease(g, st);" &&
       mutate lib/Conversion/Sm100/Epilogue.c "if (s + 1 == subTiles) sm100EpiRelease(g, st);" "if (s == 0) sm100EpiRelease(g, st);" &&
       mutate lib/Conversion/Sm100/Epilogue.c "kbIf(b, kbCmp(b, KB_EQ, kbAddI(b, sv, 1), subTiles));
    sm100EpiRelease(g, st);" "kbIf(b, kbCmpI(b, KB_EQ, sv, 0));
    sm100EpiRelease(g, st);"; }
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
# m15-m17: the CTA pairs' 2-SM loads (the leader's full[s] counts both CTAs' bytes; the N
# role's scale factors multicast to both CTAs; the odd CTA's loads name the leader's barrier
# by clearing the peer bit, bit 24, of its own barrier's address).
m15() { mutate lib/Conversion/Generator/Producer.c "nvMbarArriveExpectTx(b, full, kbMulI(b, tx, 2));" "nvMbarArriveExpectTx(b, full, tx);"; }
m16() { mutate lib/Conversion/Generator/Producer.c "p.mask = kbConst(b, b->i16, 0x3);" "p.mask = kbConst(b, b->i16, 0x1);"; }
m17() { mutate lib/Conversion/Nvvm.c "KbValue a = kbAnd(b, kbPtrToInt(b, bar, b->i32), kbI32(b, (int32_t)MLIR_NVFP4_PEER_BIT_MASK));" "KbValue a = kbPtrToInt(b, bar, b->i32);"; }
# r1-r3: the three planted bugs that issue 33's independent round describes (two no test
# caught, one that crashed the simulator); r4-r6: the sm_90a kernel's broken orders that
# test/CpuSim/cpu-reports-sm90a.test makes by editing lowered IR, planted in the generator;
# s1-s4: more mutations of the sm_90a kernel; w1-w6: the sm_120a kernel's selector and layout
# arithmetic (lib/Target/DescriptorsSm120.c) and its use (lib/Conversion/Sm120/Mainloop.c).
r1() { mutate lib/Conversion/Sm90/Epilogue.c "      nvNamedBarrierAt(b, wgBarrier, 128); /* every thread's sums, then the count */
" ""; }
r2() { mutate lib/Conversion/Generator/Generator.c "for (uint32_t i = 0; i < p->pos.size; ++i) {" "for (uint32_t i = 0; i + 1 < p->pos.size; ++i) {"; }
r3() { mutate lib/Conversion/Sm100/Epilogue.c "kbMul(b, kbZExt(b, row, b->i64), kbZExt(b, t->ldc, b->i64))" "kbMul(b, kbZExt(b, row, b->i64), kbZExt(b, kbSelect(b, kbCmp(b, KB_UGT, kbAddI(b, t->cRow0, 128), t->m), t->n, t->ldc), b->i64))"; }
r4() { mutate lib/Conversion/Sm90/Mainloop.c "nvWgmmaWaitGroup(b, cfg->sm90.mmaDepth);" "nvWgmmaWaitGroup(b, cfg->sm90.mmaDepth + 1);"; }
r5() { mutate lib/Conversion/Sm90/TokenDecoder.c "  nvFenceProxyAsyncShared(b); /* generic-proxy stores -> the wgmmas' async-proxy reads */
" ""; }
r6() { mutate lib/Conversion/Sm90/Epilogue.c "  nvFenceProxyAsyncShared(b);
  nvWarpSync(b);
  nvNamedBarrierAt(b, wgBarrier, 128);" "  nvFenceProxyAsyncShared(b);
  nvWarpSync(b);"; }
s1() { mutate lib/Conversion/Generator/Producer.c "if (rn->dynamicRows) tx = kbAdd(b, tx, kbMulI(b, nRows, cfg->tileK / 2));" "if (rn->dynamicRows) tx = kbAdd(b, tx, kbMulI(b, kbAddI(b, nRows, -1), cfg->tileK / 2));"; }
s2() { mutate lib/Conversion/Sm90/Epilogue.c "    nvGlobalReleaseStoreU32(b, counter, kbI32(b, 0));
" ""; }
s3() { mutate lib/Conversion/Sm90/Epilogue.c "for (uint32_t pass = 0; pass * 128u < n; ++pass) {" "for (uint32_t pass = 0; pass < 1u; ++pass) {"; }
s4() { mutate lib/Conversion/Sm90/Kernel.c "kbIf(b, kbOr(b, kbCmpI(b, KB_EQ, q, 3), last));" "kbIf(b, kbOr(b, kbCmpI(b, KB_EQ, q, 2), last));"; }
w1() { mutate lib/Target/DescriptorsSm120.c "MlirNvfp4Sm120ScaleSlot s = {2u * mBlock + step / 2u, step % 2u};" "MlirNvfp4Sm120ScaleSlot s = {2u * mBlock + step / 2u, 0u};"; }
w2() { mutate lib/Target/DescriptorsSm120.c "MlirNvfp4Sm120ScaleSlot s = {nBlock, step};" "MlirNvfp4Sm120ScaleSlot s = {nBlock, (step + 1u) % 4u};"; }
w3() { mutate lib/Conversion/Sm120/Mainloop.c "    s->sfb[nb] = kbLoad(b, b->i32, genSharedPtr(g, kbAdd(b, sfn, s->sfbWord[nb])), 4);" "    { KbValue w = kbLoad(b, b->i32, genSharedPtr(g, kbAdd(b, sfn, s->sfbWord[nb])), 4);
      s->sfb[nb] = kbOr(b, kbShl(b, w, kbI32(b, 8)), kbLShr(b, w, kbI32(b, 24))); }"; }
w4() { mutate lib/Conversion/Sm120/Mainloop.c "KbValue rowA = kbAnd(b, lane, kbI32(b, 15));" "KbValue rowA = kbAnd(b, kbAddI(b, lane, 8), kbI32(b, 15));"; }
w5() { mutate lib/Conversion/Sm120/Mainloop.c "KbValue rowS = kbAdd(b, c->g, kbMulI(b, kbAnd(b, lane, kbI32(b, 1)), 8));" "KbValue rowS = kbAdd(b, c->g, kbMulI(b, kbXor(b, kbAnd(b, lane, kbI32(b, 1)), kbI32(b, 1)), 8));"; }
w6() { mutate lib/Conversion/Sm120/Mainloop.c "  loadScales(s);
  mmaStep(s, 0);" "  loadScales(s);
  kbIf(b, kbCmpI(b, KB_EQ, g->lane, 0));
  nvMbarArrive(b, genPipeEmptyBar(g, &s->stages));
  kbEndIf(b);
  mmaStep(s, 0);"; }
# p1-p2: programmatic dependent launch, griddepcontrol.wait moved after the reads it must
# precede (every thread but the producer never waits; the producer after its loads).
p1() { mutate lib/Conversion/Sm100/Kernel.c "  nvGridDepWait(b);
" "" && mutate lib/Conversion/Sm100/Kernel.c "    sm100ProducerLoop(&k);
" "    sm100ProducerLoop(&k);
    nvGridDepWait(b);
"; }
p2() { mutate lib/Conversion/Sm90/Kernel.c "  nvGridDepWait(b);
" "" && mutate lib/Conversion/Sm90/Kernel.c "    sm90ProducerLoop(&k);
" "    sm90ProducerLoop(&k);
    nvGridDepWait(b);
"; }

# "ID|TARGET|description": the family compiled and the cases run are TARGET's.
MUTATIONS=(
  "m1|sm100|the row check of C stores one row past M (row < M became row <= M in every epilogue)"
  "m2|sm100|the SFB column shift (n0 mod 128) / 32 dropped from the MMA's scale-factor address"
  "m3|sm100|ring phases never flip (genRingAdvance keeps the phase bit at the wrap)"
  "m4|sm100|expect_tx of every stage 16 bytes short"
  "m5|sm100|accumulator-empty barrier initialised with one arrival too few (127, 255 for a pair)"
  "m6|sm100|the stage's tcgen05.commit issued before its MMAs (the stage is released, and its next TMA issued, while they read it)"
  "m7|sm100|tcgen05.wait::ld removed after the epilogue's tcgen05.ld"
  "m8|sm100|the accumulator released (accEmpty arrive) after its first tcgen05.ld instead of its last"
  "m9|sm100|the TMA-store bulk commit_group moved after the next TMA store issue (wait_group.read no longer covers the staging buffer refilled next)"
  "m10|sm100|the scale-factor slot's free-wait removed (tcgen05.cp into a slot while MMAs of its previous stage may read it)"
  "m11|sm100|a CTA pair's mbarrier waits acquire at the default .cta scope instead of .cluster"
  "m12|sm100|tcgen05.fence::after_thread_sync removed between the epilogue's accumulator-full wait and its tcgen05.ld"
  "m13|sm100|tcgen05.fence::before_thread_sync removed before the epilogue's accumulator-empty arrive"
  "m14|sm100|fence.proxy.async removed before the epilogue's staging barrier (the TMA store reads generic stores no proxy fence made visible)"
  "m15|sm100|a CTA pair's leader arms full[s] with one CTA's bytes instead of both CTAs' (expect-tx of the 2-SM loads)"
  "m16|sm100|a CTA pair's multicast of the N role's scale factors with mask 0b01 instead of 0b11 (the peer's copy never lands)"
  "m17|sm100|a CTA pair's .cta_group::2 loads keep the peer bit of their barrier address (nvLeaderBarrier's 0xFEFFFFFF mask removed: the odd CTA's bytes complete on its own full[s], not the leader's)"
  "r1|sm90|issue 33 (missed): stream-K, the barrier between the partial-sum stores and the atomic add that publishes them deleted"
  "r2|sm100|issue 33 (missed): the pipeline drain at kernel exit waits one stage too few (the producer's last stage, the MMA's last scale-factor slot)"
  "r3|sm100|issue 33 (crashed the simulator): direct C stores with row stride N instead of ldc on the last partial tile"
  "r4|sm90|the consumers' wgmma.wait_group one group deeper than the decoded ring allows (the kernel's first form)"
  "r5|sm90|the token decoders' fence.proxy.async removed (wgmma reads generic stores no proxy fence made visible)"
  "r6|sm90|the epilogue's named barrier between stmatrix and the TMA store removed"
  "s1|sm90|expect_tx of every stage one token row short (the producer's dynamic token rows, sm_90a)"
  "s2|sm90|stream-K: a completed tile's counter not returned to zero (the next launch's tiles never complete)"
  "s3|sm90|the epilogue's tail columns (N mod 8) stored only for the first 128 token rows"
  "s4|sm90|the consumers release a stage after its third chunk instead of its fourth"
  "w1|sm120|thread-id-a always 0: the odd 64-K steps of a stage multiply with the even steps' A scales"
  "w2|sm120|thread-id-b one step ahead: every MMA multiplies with another step's B scales"
  "w3|sm120|the B scale word's bytes rotated by one (K block j takes block j - 1's scale)"
  "w4|sm120|the A fragment's rows off by 8 (ldmatrix lanes 0-7 address rows 8-15 of the block and lanes 8-15 rows 0-7)"
  "w5|sm120|the A scale rows of a thread pair exchanged (row g from the lane of row g + 8)"
  "w6|sm120|the stage released before its reads (an extra empty arrive at the start of each stage)"
  "p1|sm100|griddepcontrol.wait moved from the prologue to after the producer's loads (no other thread waits)"
  "p2|sm90|griddepcontrol.wait moved from the prologue to after the sm_90a producer's loads (no other thread waits)"
)

# The runs of check-nvfp4's CPU-target suites, in the order they are tried, one part per
# lit test (the run matrix, scripts/run-matrix.txt, holds their variants and cases):
# "TEST|FAMILY|VARIANTS|CASES|ARGUMENTS": the test of test/CpuSim/ that makes these runs;
# the CPU object is the family of the run matrix's list FAMILY (or, for -, the target's
# default family) built from examples/any16.mlir as the test builds it; each variant of the
# list VARIANTS runs each case of the list CASES, with ARGUMENTS added. A mutation caught
# here makes check-nvfp4 fail.
PARTS_sm100=(
  "run-ab-st|cpu-ab-st|cpu-ab-st|cpu-cases|"
  "run-ab|cpu-ab|cpu-ab|cpu-cases|"
  "run-swap|cpu-swap|cpu-swap|cpu-cases|"
  "run-ab2|cpu-ab2|cpu-ab2|cpu-cases|"
  "run-swap2|cpu-swap2|cpu-swap2|cpu-cases|"
)
PARTS_sm90=(
  "stream-k-sm90a|cpu-sm90-sk|cpu-sm90-sk|cpu-cases|"
  "run-sm90a|-|cpu-sm90|cpu-cases|"
  "stream-k-sm90a|cpu-sm90-sk|cpu-sm90-sk-reverse|cpu-cases|--cluster-order reverse"
  "stream-k-sm90a|cpu-sm90-sk|cpu-sm90-sk-shuffled|cpu-cases|--cluster-order shuffled"
  "stream-k-sm90a|cpu-sm90-sk|cpu-sm90-sk-wide|cpu-sk-wide|"
  "stream-k-sm90a|cpu-sm90-sk|cpu-sm90-sk-again|cpu-sk-again|"
)
PARTS_sm120=(
  "run-sm120a|sm120-family|sm120-family|cpu-cases|"
)
source "$ROOT/scripts/run-matrix.sh"

# object TARGET FAMILY: the CPU object of FAMILY for TARGET (built once per mutation).
object() {
  local chip=sm_100a so=$WORK/$1-$2.so
  [[ $1 == sm90 ]] && chip=sm_90a
  [[ $1 == sm120 ]] && chip=sm_120a
  if [[ ! -f $so ]]; then
    if [[ $2 == - ]]; then sed "s/target = \"sm_100a\"/target = \"$chip\"/" "$ROOT/examples/any16.mlir"
    else matrix_family "$2" "$chip" "$ROOT/examples/any16.mlir"; fi > "$WORK/$1-$2.mlir" || return 2
    "$COMPILE" "$WORK/$1-$2.mlir" --cpu "$so" > "$WORK/compile.log" 2>&1 ||
      { echo "mutation-check: the family $2 does not compile:" >&2; tail -3 "$WORK/compile.log" >&2; return 2; }
  fi
  echo "$so"
}

# cases TARGET: one line per run, "TEST|FAMILY|VARIANT|ARGUMENTS".
cases() {
  local parts=PARTS_$1[@] part test fam vset cset extra v name args
  for part in "${!parts}"; do
    IFS='|' read -r test fam vset cset extra <<< "$part"
    for v in $(matrix_variants "$vset"); do
      while IFS='|' read -r _ name args; do
        echo "$test|$fam|$v|$args${extra:+ $extra}"
      done < <(matrix_runs "$cset")
    done
  done
}

how() {
  case $1 in
    1) if grep -q 'FAIL: kernel wrote outside' "$2"; then
         echo "outside-C check: $(grep -m1 'outside write group' "$2" | sed 's/^ *//; s/  */ /g')"
       else
         echo "reference check: $(grep -m1 -E '^check' "$2" | sed 's/^check *//; s/  */ /g')"
       fi ;;
    3) echo "deadlock report: $(grep -E '^  CTA' "$2" | grep -v ': exited$' | head -1 | sed -E 's/  */ /g; s/ \(site [0-9]+\)//' | cut -c1-200)" ;;
    4) grep -m1 -E '^nvfp4-sim: (HAZARD|FAULT)' "$2" |
         sed -E 's/^nvfp4-sim: ([A-Z]+) ([a-z-]+): CTA [0-9]+ \(cluster [0-9]+ rank [0-9]+\) (warp [0-9]+) lane [0-9]+ \(([^)]*)\): /\1 report `\2`, \3 (\4): /;
                 s/^nvfp4-sim: ([A-Z]+) ([a-z-]+): asynchronous completion: [^:]*: /\1 report `\2`: /;
                 s/ \(site [0-9]+\)//g' | cut -c1-260 ;;
    *) echo "exit $1" ;;
  esac
}

# ---- sm_90a: the epilogue options and the contiguous form ----------------------------------
# Each mutation of this block must fail a test of check-nvfp4: it is applied, nvfp4-compile
# rebuilt, and the lit test(s) named in its entry run; the first failing test and its
# first reported mismatch, outside write or hazard are the row's "how".
H_FILES="lib/Conversion/Sm90/Epilogue.c lib/Conversion/Sm90/Producer.c" # besides FILES
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
h_run() { # id, description, lit filter[, ninja targets to rebuild]
  local id=$1 desc=$2 filter=$3 targets=${4:-nvfp4-compile}
  for f in $FILES; do cp "$WORK/orig/$f" "$ROOT/$f"; done
  if ! $id; then echo "mutation-check: $id could not be applied (the generator changed?)" >&2; exit 2; fi
  local t0=$(date +%s)
  if ! ninja -C "$BUILD" -j"${JOBS:-2}" $targets > "$WORK/build.log" 2>&1; then
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

# ---- the fused SwiGLU + NVFP4 epilogue: its shared quantizer emission and C reference -------
# The bugs its tests must catch in the emission every target's kernel uses (lib/Conversion/Quantize.c, checked bit for bit by
# CAPI/quant_emit.c) and in the reference the kernels are judged against (runtime/src/quant.c).
Q_FILES="lib/Conversion/Quantize.c runtime/src/quant.c"
for f in $Q_FILES; do mkdir -p "$WORK/orig/$(dirname "$f")"; cp "$ROOT/$f" "$WORK/orig/$f"; done
FILES="$FILES $Q_FILES"
Q_TARGETS="nvfp4-capi-quant-emit runtime-host-test moe-ffn"
REBUILD="$REBUILD $Q_TARGETS"
q1() { mutate lib/Conversion/Quantize.c "kbAnd(b, kbAdd(b, kbAddI(b, bits, 0x7FFFF), lsb), kbI32(b, (int32_t)0xFFF00000u))" "kbAnd(b, kbAddI(b, bits, 0xFFFFF), kbI32(b, (int32_t)0xFFF00000u))"; }
q2() { mutate runtime/src/quant.c "float g = nvfp4h_c_load(gu, (size_t)r * ldgu + j, t);
      float u = nvfp4h_c_load(gu, (size_t)r * ldgu + inter + j, t);" "float u = nvfp4h_c_load(gu, (size_t)r * ldgu + j, t);
      float g = nvfp4h_c_load(gu, (size_t)r * ldgu + inter + j, t);"; }
q3() { mutate runtime/src/quant.c "fp4 + (size_t)start * (cols / 2), sf + atom * atom_row_bytes, 0);" "fp4 + (size_t)start * (cols / 2), sf + (size_t)(start / 128) * atom_row_bytes, 0);"; }
q4() { mutate lib/Conversion/Quantize.c "{0.75, true}" "{0.75, false}"; }
q5() { mutate runtime/src/quant.c "uint8_t code = nvfp4h_e4m3_encode(s);" "uint8_t code = nvfp4h_e4m3_encode(s);
  if (nvfp4h_e4m3_decode(code) < s && (code & 0x7F) < 0x7E) code++; /* round up */"; }
Q_MUTATIONS=(
  "q1|quantizer emission: the E4M3 block scale rounded up (ceil) instead of to nearest even|CAPI/quant_emit"
  "q2|reference: gate and up swapped (gate read from columns I..2I-1)|Runtime/(quant|moe-ffn)"
  "q3|reference: SFC atom offset from the token row (start / 128) instead of the expert's segment|Runtime/(quant|moe-ffn)"
  "q4|quantizer emission: the E2M1 tie at 0.75 rounded down (to the odd code 0.5)|CAPI/quant_emit"
  "q5|reference: the E4M3 block scale rounded up instead of to nearest even|Runtime/(quant|moe-ffn)"
)

# ---- the fused SwiGLU + NVFP4 epilogue's sm_100a kernel --------------------------------------
# Bugs of the fused kernel (lib/Conversion/Sm100/EpilogueFused.c, its MMAs in Mainloop.c,
# and the shared quantizer emission as the kernel runs it) that CpuSim/run-fused must catch: its bit-exact check of
# the codes and scales against the reference quantizer of the kernel's own activations, its
# activation check against swiglu of the reference GEMM, or its outside-C/SFC check.
F_FILES="lib/Conversion/Sm100/EpilogueFused.c lib/Conversion/Generator/FusedOutput.c" # besides FILES and Q_FILES
for f in $F_FILES; do mkdir -p "$WORK/orig/$(dirname "$f")"; cp "$ROOT/$f" "$WORK/orig/$f"; done
FILES="$FILES $F_FILES"
f1() { q1; }
f2() { mutate lib/Conversion/Sm100/EpilogueFused.c "nvfp4EmitSwiglu(b, scaled(b, st, gu[0], e), scaled(b, st, gu[1], e))" "nvfp4EmitSwiglu(b, scaled(b, st, gu[1], e), scaled(b, st, gu[0], e))"; }
f3() { mutate lib/Conversion/Generator/FusedOutput.c "KbValue atomRow = genAddBase(b, sfaBase, kbLShr(b, row, kbI32(b, 7)));" "KbValue atomRow = kbLShr(b, genAddBase(b, t->cRowBase, row), kbI32(b, 7));"; }
f4() { mutate lib/Conversion/Sm100/Mainloop.c "kbAddI(b, sfnCol, h ? 4 + 2 : 0)" "kbAddI(b, sfnCol, h ? 4 : 0)"; }
F_MUTATIONS=(
  "f1|fused kernel: the E4M3 block scale rounded up (ceil) instead of to nearest even|CpuSim/run-fused"
  "f2|fused kernel: gate and up swapped (silu of the up columns times the gate columns)|CpuSim/run-fused"
  "f3|fused kernel (contiguous form): an expert's SFC atom row from its first token row / 128 instead of its segment's first atom|CpuSim/run-fused"
  "f4|fused kernel, I % 128 == 64: the up half's scale factors read from its first atom's row 0 instead of row 64|CpuSim/run-fused"
)
# Bugs of the sm_90a fused kernel (lib/Conversion/Sm90/EpilogueFused.c) that
# CpuSim/run-fused-sm90a must catch, by the same checks as CpuSim/run-fused.
G_FILES="lib/Conversion/Sm90/EpilogueFused.c" # besides FILES, Q_FILES and F_FILES
for f in $G_FILES; do mkdir -p "$WORK/orig/$(dirname "$f")"; cp "$ROOT/$f" "$WORK/orig/$f"; done
FILES="$FILES $G_FILES"
g1() { mutate lib/Conversion/Sm90/EpilogueFused.c "nvfp4EmitSwiglu(b, scaled(b, acc[i], alpha), kbLoad(b, b->f32, slot, 4))" "nvfp4EmitSwiglu(b, kbLoad(b, b->f32, slot, 4), scaled(b, acc[i], alpha))"; }
G_MUTATIONS=(
  "g1|sm_90a fused kernel: gate and up swapped (silu of the up warpgroup's values times the gate's)|CpuSim/run-fused-sm90a"
)

# ---- the fused SwiGLU + NVFP4 epilogue's sm_120a kernel --------------------------------------
# Bugs of the sm_12x fused kernel (lib/Conversion/Sm120/EpilogueFused.c, its B scale words in
# Mainloop.c) that CpuSim/run-fused-sm120a must catch, with the same checks as f1-f4.
WF_FILES="lib/Conversion/Sm120/EpilogueFused.c" # besides FILES
for f in $WF_FILES; do mkdir -p "$WORK/orig/$(dirname "$f")"; cp "$ROOT/$f" "$WORK/orig/$f"; done
FILES="$FILES $WF_FILES"
w7() { mutate lib/Conversion/Sm120/EpilogueFused.c "nvfp4EmitSwiglu(b, scaled(b, x, acc[nb][e]), scaled(b, x, acc[nb + half][e]))" "nvfp4EmitSwiglu(b, scaled(b, x, acc[nb + half][e]), scaled(b, x, acc[nb][e]))"; }
w8() { mutate lib/Conversion/Sm120/Mainloop.c "kbAddI(b, kbAdd(b, inAtom, step), (nb / half) * cfg->sfmBytes)" "kbAddI(b, kbAdd(b, inAtom, step), 0)"; }
w9() { mutate lib/Conversion/Sm120/EpilogueFused.c "for (uint32_t m = 1; m <= 2; m *= 2)
    x = kbFMaximum" "for (uint32_t m = 1; m <= 1; m *= 2)
    x = kbFMaximum"; }
WF_MUTATIONS=(
  "w7|sm_120a fused kernel: gate and up swapped (silu of the up blocks times the gate blocks)|CpuSim/run-fused-sm120a"
  "w8|sm_120a fused kernel: the up half's B scale factors read from the gate half's SFB atom row|CpuSim/run-fused-sm120a"
  "w9|sm_120a fused kernel: a block's amax reduced over lane pairs (xor 1) instead of the quad|CpuSim/run-fused-sm120a"
)

caught_all=1
printf '| # | mutation | caught by | how |\n|---|---|---|---|\n' > "$WORK/table.md"
for entry in "${MUTATIONS[@]}"; do
  id=${entry%%|*}; rest=${entry#*|}; target=${rest%%|*}; desc=${rest#*|}
  [[ -n $ONLY && ",$ONLY," != *",$id,"* ]] && continue
  for f in $FILES; do cp "$WORK/orig/$f" "$ROOT/$f"; done
  if ! $id; then echo "mutation-check: $id could not be applied (the generator changed?)" >&2; exit 2; fi
  t0=$(date +%s)
  if ! ninja -C "$BUILD" -j"${JOBS:-2}" nvfp4-compile > "$WORK/build.log" 2>&1; then
    echo "| $id | $desc | (does not build) | $(tail -1 "$WORK/build.log") |" >> "$WORK/table.md"; caught_all=0; continue
  fi
  first="" mode="" caught=0 ran=0 broke=""
  rm -f "$WORK"/*.so
  mapfile -t runs < <(cases "$target")
  for c in "${runs[@]}"; do
    IFS='|' read -r test fam v args <<< "$c"
    if ! so=$(object "$target" "$fam"); then broke="the family $fam does not compile"; break; fi
    read -r -a argv <<< "$args"
    timeout 300 "$RUN" --cpu "$so" --variant "$v" "${argv[@]}" > "$WORK/run.log" 2>&1; rc=$?
    ran=$((ran + 1))
    if [[ $rc -ne 0 && $rc -ne 1 && $rc -ne 3 && $rc -ne 4 ]]; then
      why="exit $rc"; [[ $rc -eq 124 ]] && why="timed out after 300 s"; [[ $rc -gt 128 && $rc -ne 124 ]] && why="killed by signal $((rc - 128))"
      echo "mutation-check: $id: $v $args did not run to an outcome ($why):" >&2
      tail -3 "$WORK/run.log" >&2
      broke="\`$v $args\`: $why"
      break
    fi
    if [[ $rc -ne 0 ]]; then
      caught=$((caught + 1))
      [[ $ALL -eq 1 ]] && echo "  caught by $v $args (exit $rc)" >&2
      if [[ -z $first ]]; then first="$test.test: \`$v $args\`"; mode=$(how $rc "$WORK/run.log"); fi
      [[ $ALL -eq 0 ]] && break
    fi
  done
  secs=$(( $(date +%s) - t0 ))
  if [[ -n $broke ]]; then
    caught_all=0
    echo "| $id | $desc | CHECK FAILED: $broke | |" >> "$WORK/table.md"
  elif [[ -z $first ]]; then
    caught_all=0
    echo "| $id | $desc | NOT CAUGHT ($ran runs) | |" >> "$WORK/table.md"
  else
    extra=""; [[ $ALL -eq 1 ]] && extra=" ($caught of $ran runs)"
    echo "| $id | $desc | $first$extra | ${mode//|/\\|} |" >> "$WORK/table.md"
  fi
  tail -1 "$WORK/table.md"
  echo "  ($secs s)" >&2
done
for entry in "${H_MUTATIONS[@]}"; do
  IFS='|' read -r id desc filter <<< "$entry"
  [[ -n $ONLY && ",$ONLY," != *",$id,"* ]] && continue
  h_run "$id" "$desc" "$filter"
done
for entry in "${Q_MUTATIONS[@]}"; do
  id=${entry%%|*}; rest=${entry#*|}; desc=${rest%%|*}; filter=${rest#*|}
  [[ -n $ONLY && ",$ONLY," != *",$id,"* ]] && continue
  h_run "$id" "$desc" "$filter" "$Q_TARGETS"
done
for entry in "${F_MUTATIONS[@]}" "${G_MUTATIONS[@]}" "${WF_MUTATIONS[@]}"; do
  IFS='|' read -r id desc filter <<< "$entry"
  [[ -n $ONLY && ",$ONLY," != *",$id,"* ]] && continue
  h_run "$id" "$desc" "$filter"
done
echo
cat "$WORK/table.md"
[[ $caught_all -eq 1 ]]
