# Packaging.cmake — what `cmake --install` gives downstream projects: the compiler C API
# (headers and static libraries) and the runtime as exported targets of find_package(NVFP4)
# (NVFP4::Compiler, NVFP4::nvfp4rt, NVFP4::nvfp4rt_static, and the pieces of the compiler),
# relocatable with the install tree. Included last by the top-level CMakeLists.txt, after
# every install(TARGETS ... EXPORT NVFP4Targets).
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)
set(NVFP4_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/NVFP4)

if(NOT NVFP4_RUNTIME_ONLY)
  # One copy of MLIR for consumers too (LinkMLIR.cmake's rule): the C API archives by
  # path inside a group, then the shared libMLIR/libLLVM, plus MLIR's headers.
  add_library(NVFP4MLIR INTERFACE)
  target_link_libraries(NVFP4MLIR INTERFACE
    -Wl,--start-group ${NVFP4_MLIR_CAPI_ARCHIVES} -Wl,--end-group
    ${NVFP4_MLIR_LIB_DIR}/libMLIR.so ${NVFP4_MLIR_LIB_DIR}/libLLVM.so stdc++ m)
  target_include_directories(NVFP4MLIR INTERFACE ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
  set_target_properties(NVFP4MLIR PROPERTIES EXPORT_NAME MLIR)
  # In the build tree executables link MLIR themselves (nvfp4_link_mlir); installed, each
  # library that calls MLIR carries the link.
  foreach(lib NVFP4Dialect NVFP4CAPI NVFP4Conversion NVFP4Serialize NVFP4CpuObject)
    target_link_libraries(${lib} INTERFACE $<INSTALL_INTERFACE:NVFP4::MLIR>)
  endforeach()
  # Everything a program needs to parse, verify, lower and compile nvfp4 IR.
  add_library(NVFP4Compiler INTERFACE)
  target_link_libraries(NVFP4Compiler INTERFACE NVFP4Serialize NVFP4CpuObject NVFP4Conversion
                                                NVFP4CAPI NVFP4Dialect NVFP4Target NVFP4MLIR)
  set_target_properties(NVFP4Compiler PROPERTIES EXPORT_NAME Compiler)
  foreach(lib CAPI Dialect Conversion Target Serialize CpuObject)
    set_target_properties(NVFP4${lib} PROPERTIES EXPORT_NAME ${lib})
  endforeach()
  install(TARGETS NVFP4Compiler NVFP4MLIR NVFP4CAPI NVFP4Dialect NVFP4Conversion NVFP4Target
                  NVFP4Serialize NVFP4CpuObject
    EXPORT NVFP4Targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES include/nvfp4-c/CpuTarget.h include/nvfp4-c/Descriptors.h
                include/nvfp4-c/Dialect.h
                include/nvfp4-c/KernelConfig.h include/nvfp4-c/Passes.h
                include/nvfp4-c/Pipeline.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nvfp4-c)
endif()

install(EXPORT NVFP4Targets NAMESPACE NVFP4:: DESTINATION ${NVFP4_INSTALL_CMAKE_DIR})
configure_package_config_file(cmake/NVFP4Config.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/NVFP4Config.cmake INSTALL_DESTINATION ${NVFP4_INSTALL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/NVFP4ConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/NVFP4Config.cmake
              ${CMAKE_BINARY_DIR}/cmake/NVFP4ConfigVersion.cmake
  DESTINATION ${NVFP4_INSTALL_CMAKE_DIR})
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/nvfp4-mlir)
