# san-build.sh — sourced by sanitize.sh and fuzz.sh: configures (once) and builds the
# ASan + UBSan + libFuzzer-coverage build in $SAN_BUILD_DIR (default build-san/) with
# clang-22, and exports the sanitizer options both use. Expects ROOT to be set.
SAN_BUILD_DIR=${SAN_BUILD_DIR:-$ROOT/build-san}
CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
if [[ ! -f $SAN_BUILD_DIR/build.ninja ]]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$ROOT" -B "$SAN_BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNVFP4_CUDA_ROOT="$CUDA_ROOT" \
    -DNVFP4_SANITIZE=ON -DNVFP4_FUZZ=ON
fi
ninja -C "$SAN_BUILD_DIR" -j"${JOBS:-2}"
# Every report aborts the process (SIGABRT, so even a test that expects a failure exit
# code, `not ...`, fails on it); UB is fatal too (-fno-sanitize-recover); allocations too
# large to serve return NULL so the out-of-memory paths are tested rather than aborted.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}
