#!/usr/bin/env bash
# test.sh — configures, builds and runs the whole lit suite (ninja check-nvfp4). Prints one
# line per test and the summary counts; exits non-zero if any test fails.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
bash "$ROOT/scripts/build.sh"
ninja -C "$BUILD_DIR" check-nvfp4
