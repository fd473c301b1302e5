#!/usr/bin/env bash
# test.sh — configures, builds and runs the whole lit suite (ninja check-nvfp4). Prints one
# line per test and the summary counts; exits non-zero if any test fails.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
bash "$ROOT/scripts/build.sh"
# lit also lists the slowest tests (--time-tests), which CI's time budget is kept by
export LIT_OPTS=${LIT_OPTS:---time-tests}
# lit prints its own summary; repeat it as one plain "N passed, N failed" line.
set +e
ninja -C "$BUILD_DIR" check-nvfp4 2>&1 | tee "$BUILD_DIR/check-nvfp4.log"
rc=${PIPESTATUS[0]}
set -e
count() { grep -E "^ *$1 *: " "$BUILD_DIR/check-nvfp4.log" | tail -1 | sed -E 's/^[^:]*: *([0-9]+).*/\1/' || true; }
passed=$(count Passed); failed=$(count Failed); unsupported=$(count Unsupported)
echo "check-nvfp4: ${passed:-0} passed, ${failed:-0} failed, ${unsupported:-0} skipped"
exit "$rc"
