# lit configuration for the nvfp4-mlir test suite (check-nvfp4).
import os
import shutil
import sys
import subprocess

import lit.formats

config.name = "NVFP4"
config.test_format = lit.formats.ShTest(not lit.util.which("bash"))
config.suffixes = [".mlir", ".test"]  # test/CAPI adds ".c" (lit.local.cfg)
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nvfp4_obj_root, "test")

# FileCheck: every variable is scoped to its CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
for var in ("HOME", "TMPDIR", "CUDA_VISIBLE_DEVICES", "NVFP4_DEVICE_TESTS", "ASAN_OPTIONS",
            "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Our binaries first, then LLVM's (FileCheck, not, count), then the system.
path = os.pathsep.join([config.nvfp4_tools_dir, config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PATH"] = path

# In a sanitizer build the plugin needs the sanitizer runtime loaded into the (uninstrumented)
# stock mlir-opt first.
mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")
if getattr(config, "nvfp4_sanitizer_flags", ""):
    config.available_features.add("sanitizers")
    mlir_opt = "env LD_PRELOAD=%s %s" % (config.nvfp4_asan_runtime, mlir_opt)
    # C programs the tests compile themselves link the instrumented libraries
    config.environment["NVFP4_EXTRA_CFLAGS"] = config.nvfp4_sanitizer_flags
    config.environment["NVFP4_CC"] = config.nvfp4_c_compiler
    # mlir-runner loads the instrumented libnvfp4rt.so: the runtime first; the JIT host's
    # own allocations are not this project's to leak-check
    config.substitutions.append(
        (r"\bmlir-runner ", "env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "
                           "mlir-runner " % config.nvfp4_asan_runtime))
config.substitutions.append(("%mlir_opt", mlir_opt))
config.substitutions.append(("%nvfp4_libs", config.nvfp4_lib_dir))
config.substitutions.append(("%nvfp4_src", config.nvfp4_src_root))
config.substitutions.append(("%nvfp4_obj_root", config.nvfp4_obj_root))
config.substitutions.append(("%cuda_root", config.cuda_root))
config.substitutions.append(("%ptxas", os.path.join(config.cuda_root, "bin", "ptxas")))
config.substitutions.append(("%shlibext", ".so"))
config.substitutions.append(("%python", sys.executable))
# libcuda stand-in for driver-path tests without a GPU (test/Runtime/fake_libcuda.c)
config.substitutions.append(("%fake_libcuda",
                             os.path.join(config.nvfp4_lib_dir, "libnvfp4-fake-cuda.so")))

if os.path.exists(os.path.join(config.cuda_root, "bin", "ptxas")):
    config.available_features.add("ptxas")


def _has_cuda_device():
    """True when libcuda loads and reports at least one device."""
    try:
        import ctypes
        cuda = ctypes.CDLL("libcuda.so.1")
        if cuda.cuInit(0) != 0:
            return False
        n = ctypes.c_int(0)
        return cuda.cuDeviceGetCount(ctypes.byref(n)) == 0 and n.value > 0
    except OSError:
        return False


if _has_cuda_device():
    config.available_features.add("cuda-device")
else:
    lit_config.note("no CUDA device/driver: tests marked REQUIRES: cuda-device are "
                    "reported UNSUPPORTED (skipped)")
