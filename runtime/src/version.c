/* version.c — the version queries of libnvfp4rt: the release version the library was built
 * as (nvfp4-c/Version.h) and the kernel ABI it implements (KernelABI.h). */
#include "internal.h"

uint32_t nvfp4rt_version(void) { return NVFP4_VERSION_NUMBER; }

const char *nvfp4rt_version_string(void) { return NVFP4_VERSION_STRING; }

uint32_t nvfp4rt_kernel_abi_version(void) { return NVFP4_ABI_VERSION; }
