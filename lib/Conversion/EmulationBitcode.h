/* EmulationBitcode.h — locating the emulation library bitcode at run time
 * (EmulationBitcode.c), for the tcgen05 and mma.sync emulation passes. */
#ifndef NVFP4_CONVERSION_EMULATIONBITCODE_H
#define NVFP4_CONVERSION_EMULATIONBITCODE_H

#include <stdbool.h>
#include <stddef.h>

#include "mlir-c/IR.h"

/* Writes the path of nvfp4_emu.bc into buf; false when none is found, with the places
 * looked at in `tried`. */
bool nvfp4FindEmulationBitcode(char *buf, size_t size, char *tried, size_t triedSize);

/* The `targets` attribute text of `module`'s emulated kernel modules: sm_90a, PTX 8.8, the
 * library linked — the bitcode named by the module attribute `nvfp4.emulation_bitcode` (a
 * string) if present, else nvfp4FindEmulationBitcode's. Returns 1 with it in `targets`, 0
 * when there is no bitcode and no kernel module to emulate (nothing to do), -1 after a
 * diagnostic naming `passName` and where the bitcode was looked for. */
int nvfp4EmulationTargets(MlirOperation module, const char *passName, char *targets,
                          size_t size);

#endif /* NVFP4_CONVERSION_EMULATIONBITCODE_H */
