# san-build.sh — sourced by sanitize.sh and fuzz.sh (ROOT set): checked_build DIR CC CXX
# CMAKE_ARGS... [-- TARGETS...] configures DIR once with those compilers and
# -DNVFP4_SANITIZE=ON plus the arguments, and builds the targets (all by default); it also
# exports the sanitizer options both scripts use.
#   sanitize.sh: build-san/  with gcc/g++ (the compiler of the normal build, so tests that
#                compare emitted IR see the same op order)
#   fuzz.sh:     build-fuzz/ with clang-22 (libFuzzer), -DNVFP4_FUZZ=ON
CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
checked_build() {
  local dir=$1 cc=$2 cxx=$3
  shift 3
  local args=() targets=()
  while (($#)) && [[ $1 != -- ]]; do args+=("$1"); shift; done
  (($#)) && shift
  targets=("$@")
  if [[ ! -f $dir/build.ninja ]]; then
    CC=$cc CXX=$cxx cmake -G Ninja -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DNVFP4_CUDA_ROOT="$CUDA_ROOT" -DNVFP4_SANITIZE=ON "${args[@]}"
  fi
  ninja -C "$dir" -j"${JOBS:-2}" "${targets[@]}"
}
# Every report aborts the process (SIGABRT, so even a test that expects a failure exit
# code, `not ...`, fails on it); UB is fatal too (-fno-sanitize-recover); allocations too
# large to serve return NULL so the out-of-memory paths are tested rather than aborted.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}
