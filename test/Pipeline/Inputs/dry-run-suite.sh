#!/usr/bin/env bash
# dry-run-suite.sh device|cpu DIR [VAR=VALUE...] — runs scripts/device-suite.sh or
# scripts/cpu-suite.sh with every tool replaced by fake-tool.sh (which logs its arguments to
# DIR/calls.log), for run-matrix.test; the suite's own output goes to stdout.
set -euo pipefail
SUITE=$1 DIR=$2; shift 2
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
FAKE=$(cd "$(dirname "$0")" && pwd)/fake-tool.sh
rm -rf "$DIR" && mkdir -p "$DIR/device/bin" "$DIR/build/bin" "$DIR/path"
for t in nvfp4-run runtime-gpu-test runtime-gen-test host-launch-emu host-launch-native moe-ffn; do
  cp "$FAKE" "$DIR/device/bin/$t"
done
for t in nvfp4-run nvfp4-compile; do cp "$FAKE" "$DIR/build/bin/$t"; done
for t in nvidia-smi compute-sanitizer; do cp "$FAKE" "$DIR/path/$t"; done
export FAKE_LOG=$DIR/calls.log PATH=$DIR/path:$PATH DEVICE_DIR=$DIR/device BUILD=$DIR/build
: > "$FAKE_LOG"
env "$@" bash "$SRC/scripts/$SUITE-suite.sh" "$DIR/logs"
