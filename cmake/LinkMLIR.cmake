# Link exactly one copy of MLIR: libMLIR.so + libLLVM.so, plus the MLIR C API archives by
# path. (The MLIRCAPI* CMake targets would drag a second, static MLIR into the binary.)
set(NVFP4_MLIR_LIB_DIR "${LLVM_LIBRARY_DIR}")
# Every C API archive: inside --start-group only the objects actually referenced are pulled.
file(GLOB NVFP4_MLIR_CAPI_ARCHIVES "${NVFP4_MLIR_LIB_DIR}/libMLIRCAPI*.a")
list(FILTER NVFP4_MLIR_CAPI_ARCHIVES EXCLUDE REGEX "ExecutionEngine")

# nvfp4_link_mlir(<target>): the C API archives (grouped), then the shared MLIR and LLVM.
function(nvfp4_link_mlir target)
  target_link_libraries(${target} PRIVATE
    -Wl,--start-group ${NVFP4_MLIR_CAPI_ARCHIVES} -Wl,--end-group
    ${NVFP4_MLIR_LIB_DIR}/libMLIR.so ${NVFP4_MLIR_LIB_DIR}/libLLVM.so stdc++ m)
  set_target_properties(${target} PROPERTIES
    BUILD_RPATH "${NVFP4_MLIR_LIB_DIR}" INSTALL_RPATH "${NVFP4_MLIR_LIB_DIR}")
endfunction()

# nvfp4_add_test_binary(<name> <sources...>): a C test program built into bin/ and made a
# dependency of check-nvfp4.
function(nvfp4_add_test_binary name)
  add_executable(${name} ${ARGN})
  set_property(GLOBAL APPEND PROPERTY NVFP4_TEST_DEPENDS ${name})
endfunction()
