/* tma_image.h — test-only model of the shared-memory image that a TMA load with
 * CU_TENSOR_MAP_SWIZZLE_128B writes: rows of 128 bytes in a 1024-byte aligned buffer, 16-byte
 * chunk c of row r stored at chunk c ^ (r % 8) (the pattern repeats every 8 rows, i.e. per
 * 1024-byte atom; measured on an H200: docs/design.md, "Measured toolchain facts"). Written
 * independently of the emulator's swizzle decoder so that the host tests can check one
 * against the other. Shared by the host tests of test/Emulation. C11.
 */
#ifndef NVFP4_TEST_EMULATION_TMA_IMAGE_H
#define NVFP4_TEST_EMULATION_TMA_IMAGE_H

#include <stdint.h>

/* Writes nrows rows of 128 bytes (rows[r * 128 + b]) into smem at byte offset base
 * (base must be a multiple of 1024). */
static inline void tma_sw128_image(uint8_t *smem, uint32_t base, const uint8_t *rows,
                                   uint32_t nrows) {
  uint32_t r, c, b;
  for (r = 0; r < nrows; ++r)
    for (c = 0; c < 8; ++c)
      for (b = 0; b < 16; ++b)
        smem[base + r * 128 + ((c ^ (r % 8)) * 16) + b] = rows[r * 128 + c * 16 + b];
}

#endif /* NVFP4_TEST_EMULATION_TMA_IMAGE_H */
