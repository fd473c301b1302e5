# Sanitizers.cmake — build options for the checked builds (scripts/sanitize.sh: gcc,
# scripts/fuzz.sh: clang):
#   NVFP4_SANITIZE=ON  every C/C++ target of the project with AddressSanitizer (leaks
#                      included) and UndefinedBehaviorSanitizer, UB fatal; MLIR/LLVM stay
#                      uninstrumented (shared libraries from the distribution).
#   NVFP4_FUZZ=ON      also coverage instrumentation for libFuzzer on the project's code and
#                      the fuzz/ harnesses (clang only; implies NVFP4_SANITIZE).
# The device bitcode of emulation/ is built by its own command and never instrumented.
option(NVFP4_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
option(NVFP4_FUZZ "Build the libFuzzer harnesses (fuzz/; clang, implies NVFP4_SANITIZE)" OFF)
if(NVFP4_FUZZ)
  set(NVFP4_SANITIZE ON)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang" OR NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "NVFP4_FUZZ needs clang (CC=clang-22 CXX=clang++-22)")
  endif()
endif()
set(NVFP4_SANITIZER_FLAGS "")
if(NVFP4_SANITIZE)
  set(NVFP4_SANITIZER_FLAGS
      "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer")
  separate_arguments(_nvfp4_san UNIX_COMMAND "${NVFP4_SANITIZER_FLAGS}")
  add_compile_options(${_nvfp4_san} -g)
  add_link_options(${_nvfp4_san})
  if(NVFP4_FUZZ)
    # coverage feedback for the fuzzers; plain binaries get the runtime's no-op hooks
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
  # The sanitizer runtime that plugins loaded into the uninstrumented mlir-opt need first
  # (LD_PRELOAD in the lit configuration).
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
                  OUTPUT_VARIABLE NVFP4_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                    OUTPUT_VARIABLE NVFP4_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  endif()
  message(STATUS "nvfp4: sanitizers on (${NVFP4_SANITIZER_FLAGS}); runtime ${NVFP4_ASAN_RUNTIME}")
endif()
