/* EmulationBitcode.h — locating the tcgen05 emulation library bitcode at run time
 * (EmulationBitcode.c). */
#ifndef NVFP4_CONVERSION_EMULATIONBITCODE_H
#define NVFP4_CONVERSION_EMULATIONBITCODE_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the path of nvfp4_emu.bc into buf; false when none is found, with the places
 * looked at in `tried`. */
bool nvfp4FindEmulationBitcode(char *buf, size_t size, char *tried, size_t triedSize);

#endif /* NVFP4_CONVERSION_EMULATIONBITCODE_H */
