#!/usr/bin/env bash
# sanitize.sh — builds the project with AddressSanitizer + UndefinedBehaviorSanitizer
# (gcc, -DNVFP4_SANITIZE=ON, into build-san/ or $SAN_BUILD_DIR) and runs the whole lit
# suite under them. Any sanitizer report (a leak included) aborts the process and so fails the test
# that produced it; the script also counts reports in the log and prints one summary line.
# Exits non-zero on any failure or report.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/scripts/san-build.sh"
SAN_BUILD_DIR=${SAN_BUILD_DIR:-$ROOT/build-san}
checked_build "$SAN_BUILD_DIR" "${SAN_CC:-gcc}" "${SAN_CXX:-g++}"
export LIT_OPTS=${LIT_OPTS:---time-tests}   # the slowest tests, for CI's time budget
set +e
ninja -C "$SAN_BUILD_DIR" check-nvfp4 2>&1 | tee "$SAN_BUILD_DIR/check-nvfp4.log"
rc=${PIPESTATUS[0]}
set -e
reports=$(grep -cE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" \
          "$SAN_BUILD_DIR/check-nvfp4.log" || true)
count() { grep -E "^ *$1 *: " "$SAN_BUILD_DIR/check-nvfp4.log" | tail -1 | sed -E 's/^[^:]*: *([0-9]+).*/\1/' || true; }
passed=$(count Passed); failed=$(count Failed); unsupported=$(count Unsupported)
echo "check-nvfp4 (ASan+UBSan): ${passed:-0} passed, ${failed:-0} failed, ${unsupported:-0}" \
     "skipped, ${reports:-0} sanitizer reports"
[[ $rc -eq 0 && ${reports:-0} -eq 0 ]]
