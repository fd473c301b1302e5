#!/usr/bin/env bash
# sanitize.sh — builds the project with AddressSanitizer + UndefinedBehaviorSanitizer
# (gcc, -DNVFP4_SANITIZE=ON, into build-san/ or $SAN_BUILD_DIR) and runs the whole lit
# suite under them. Any sanitizer report (a leak included) aborts the process and so fails the test
# that produced it; the script also counts reports in the log and prints one summary line.
# Exits non-zero on any failure or report.
#
# Left to the plain build (scripts/test.sh) unless SAN_FILTER_OUT says otherwise ('' runs
# every test): tests whose time goes to work no sanitizer sees, or that repeat, at several
# times the plain build's cost, simulator paths that tests kept here already run under the
# sanitizers. docs/testing.md ("CI") lists each with what covers its code here:
#   Pipeline/spills.test, spills-sm90a.test, spills-sm90a-options.test, spills-family.test,
#   spills-sm120a.test, spills-sm90a-fused.test, spills-sm120a-fused.test, swiglu-cubin.test,
#   emulation-cubin.test, moe-cubin.test
#       ptxas and LLVM's NVPTX back end on every kernel (not instrumented); the lowering and
#       Serialize.c they drive run here in the CPU-target, Conversion, CAPI and Tools tests;
#   Pipeline/target-parity.test
#       192 ops verified on seven targets and compiled to PTX on three: the verifier's and
#       planners' paths run here in the Dialect, Conversion and CPU-target tests of each target;
#   CpuSim/run-swap.test, run-swap2.test, run-ab-st.test
#       the swap-AB and direct-store variants on the CPU target; run-epilogue.test and
#       run-moe.test run swap_n128, swap_n256 and ab_n128_st here, run-ab2.test the pair paths;
#   CpuSim/run-sm120a-forms.test
#       the sm_120a kernel's contiguous form and options: its simulator paths (ldmatrix, the
#       block-scaled mma.sync) run here in run-sm120a.test and cpu-reports-sm120a.test;
#   CpuSim/run-epilogue-sm90a.test, run-moe-sm90a.test
#       sm_90a's options and contiguous form on the CPU target: the simulator's sm_90a paths
#       run here in run-sm90a.test, the host's C types, alpha and expert schedules in
#       run-epilogue.test and run-moe.test;
#   CpuSim/stream-k-sm90a.test
#       the sm_90a stream-K variants under three cluster orders and four broken builds (the
#       stage's longest test): what it drives in the simulator beyond run-sm90a.test, the
#       global atomic add and bar.red.or, runs here in sim-unit.test (redor, race); the
#       launcher's --cluster-order runs in the plain stage only;
#   CpuSim/stream-k-sm100a.test
#       the sm_100a stream-K variants the same way: their lowering runs here in
#       Conversion/NVFP4ToNVVM/lower-stream-k-sm100a.mlir, the simulator's tcgen05 paths in
#       run-ab.test, its atomic add and bar.red.or as above.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/scripts/san-build.sh"
SAN_BUILD_DIR=${SAN_BUILD_DIR:-$ROOT/build-san}
checked_build "$SAN_BUILD_DIR" "${SAN_CC:-gcc}" "${SAN_CXX:-g++}"
export LIT_OPTS=${LIT_OPTS:---time-tests}   # the slowest tests, for CI's time budget
SAN_FILTER_OUT_DEFAULT='Pipeline/(spills|spills-sm90a|spills-sm100a-sk|spills-sm90a-options|spills-family|spills-sm120a|spills-sm90a-fused|spills-sm120a-fused|swiglu-cubin|target-parity|emulation-cubin|moe-cubin)\.test$|CpuSim/run-(swap|swap2|ab-st|epilogue-sm90a|moe-sm90a|sm120a-forms)\.test$|CpuSim/stream-k-sm(90|100)a\.test$'
filter_out=${SAN_FILTER_OUT-$SAN_FILTER_OUT_DEFAULT}
if [[ -n $filter_out ]]; then   # (an empty LIT_FILTER_OUT would leave out every test)
  export LIT_FILTER_OUT=$filter_out
  echo "sanitize: left to the plain build: $filter_out"
fi
set +e
ninja -C "$SAN_BUILD_DIR" check-nvfp4 2>&1 | tee "$SAN_BUILD_DIR/check-nvfp4.log"
rc=${PIPESTATUS[0]}
set -e
reports=$(grep -cE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" \
          "$SAN_BUILD_DIR/check-nvfp4.log" || true)
count() { grep -E "^ *$1 *: " "$SAN_BUILD_DIR/check-nvfp4.log" | tail -1 | sed -E 's/^[^:]*: *([0-9]+).*/\1/' || true; }
passed=$(count Passed); failed=$(count Failed); unsupported=$(count Unsupported)
excluded=$(count Excluded)
echo "check-nvfp4 (ASan+UBSan): ${passed:-0} passed, ${failed:-0} failed, ${unsupported:-0}" \
     "skipped, ${excluded:-0} left to the plain build, ${reports:-0} sanitizer reports"
[[ $rc -eq 0 && ${reports:-0} -eq 0 ]]
