/* EmulationBitcode.c — where the emulation passes (--nvfp4-emulate-tcgen05,
 * --nvfp4-emulate-sm120) find the emulation library bitcode (nvfp4_emu.bc): the module's
 * `nvfp4.emulation_bitcode` attribute, else $NVFP4_EMU_BITCODE, else next to the
 * binary holding this code (found with dladdr, so an install tree can move: bin/../lib/
 * nvfp4/ for the tools, nvfp4/ beside the plugin in lib/, and the build tree's lib/),
 * else the paths fixed at configure time (build tree, install prefix). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "EmulationBitcode.h"

#include "LoweringCommon.h"
#include "mlir-c/BuiltinAttributes.h"
#include "nvfp4-c/KernelABI.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef NVFP4_EMU_BITCODE_PATH
#define NVFP4_EMU_BITCODE_PATH "nvfp4_emu.bc"
#endif
#ifndef NVFP4_EMU_BITCODE_INSTALLED
#define NVFP4_EMU_BITCODE_INSTALLED NVFP4_EMU_BITCODE_PATH
#endif

/* Copies the canonical form of `path` into buf when it names a readable file. */
static bool usable(const char *path, char *buf, size_t size) {
  char real[PATH_MAX];
  if (access(path, R_OK) != 0 || !realpath(path, real) || strlen(real) >= size) return false;
  snprintf(buf, size, "%s", real);
  return true;
}

bool nvfp4FindEmulationBitcode(char *buf, size_t size, char *tried, size_t triedSize) {
  const char *env = getenv("NVFP4_EMU_BITCODE");
  if (env && *env) {
    snprintf(buf, size, "%s", env); /* as given: the caller chose it */
    return true;
  }
  tried[0] = 0;
  Dl_info info;
  if (dladdr((void *)nvfp4FindEmulationBitcode, &info) && info.dli_fname) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    static const char *const kNextToBinary[] = {"../lib/nvfp4/nvfp4_emu.bc", "nvfp4/nvfp4_emu.bc",
                                                "../lib/nvfp4_emu.bc", "nvfp4_emu.bc"};
    for (size_t i = 0; i < sizeof kNextToBinary / sizeof kNextToBinary[0]; ++i) {
      char path[PATH_MAX + 64];
      snprintf(path, sizeof path, "%s/%s", dir, kNextToBinary[i]);
      if (usable(path, buf, size)) return true;
    }
    snprintf(tried, triedSize, "next to %s, ", info.dli_fname);
  }
  if (usable(NVFP4_EMU_BITCODE_PATH, buf, size) || usable(NVFP4_EMU_BITCODE_INSTALLED, buf, size))
    return true;
  size_t n = strlen(tried);
  snprintf(tried + n, triedSize - n, "%s, %s", NVFP4_EMU_BITCODE_PATH, NVFP4_EMU_BITCODE_INSTALLED);
  return false;
}

/* Does `module` directly hold a gpu.module of the lowering (its metadata symbol)? */
static bool hasKernelModule(MlirOperation module) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (nvfp4OpIs(op, "gpu.module") &&
        !mlirOperationIsNull(nvfp4FindSymbol(op, NVFP4_METADATA_SYMBOL)))
      return true;
  return false;
}

int nvfp4EmulationTargets(MlirOperation module, const char *passName, char *targets,
                          size_t size) {
  char bc[1024], tried[1024];
  MlirAttribute a = mlirOperationGetAttributeByName(
      module, mlirStringRefCreateFromCString("nvfp4.emulation_bitcode"));
  if (!mlirAttributeIsNull(a) && mlirAttributeIsAString(a)) {
    MlirStringRef s = mlirStringAttrGetValue(a);
    snprintf(bc, sizeof bc, "%.*s", (int)s.length, s.data);
  } else if (!nvfp4FindEmulationBitcode(bc, sizeof bc, tried, sizeof tried)) {
    if (!hasKernelModule(module)) return 0; /* nothing to emulate, nothing to link */
    char msg[1200];
    snprintf(msg, sizeof msg, "%s: the emulation library nvfp4_emu.bc was not found (looked "
                              "%s); set NVFP4_EMU_BITCODE", passName, tried);
    nvfp4EmitError(mlirOperationGetLocation(module), msg);
    return -1;
  }
  snprintf(targets, size,
           "[#nvvm.target<chip = \"sm_90a\", features = \"+ptx88\", O = 3, link = [\"%s\"]>]", bc);
  return 1;
}
