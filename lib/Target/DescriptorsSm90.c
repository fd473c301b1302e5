/* DescriptorsSm90.c — the wgmma matrix descriptor, the exact FP4 x E4M3 -> BF16 decode and
 * the operand-layout model of the sm_90a kernel (include/nvfp4-c/DescriptorsSm90.h). */
#include "nvfp4-c/DescriptorsSm90.h"

#include <stdio.h>
#include <string.h>

/* Fields of the wgmma matrix descriptor. */
#define START_SHIFT 0
#define LBO_SHIFT 16
#define SBO_SHIFT 32
#define BASE_SHIFT 49
#define SWIZZLE_SHIFT 62
#define FIELD14 0x3FFFull
#define BASE_MASK 0x7ull
#define SWIZZLE_MASK 0x3ull
/* Bits that must be zero: 14-15, 30-31, 46-48, 52-61. */
#define RESERVED_BITS                                                                      \
  ((0x3ull << 14) | (0x3ull << 30) | (0x7ull << 46) | (0x3FFull << 52))

static uint64_t field14(uint32_t bytes) { return ((uint64_t)bytes & 0x3FFFFull) >> 4; }

uint64_t mlirNvfp4EncodeWgmmaDescriptor(MlirNvfp4WgmmaDescriptor d) {
  return (field14(d.startAddress) << START_SHIFT) | (field14(d.leadingByteOffset) << LBO_SHIFT) |
         (field14(d.strideByteOffset) << SBO_SHIFT) |
         (((uint64_t)d.baseOffset & BASE_MASK) << BASE_SHIFT) |
         (((uint64_t)d.swizzle & SWIZZLE_MASK) << SWIZZLE_SHIFT);
}

MlirNvfp4WgmmaDescriptor mlirNvfp4DecodeWgmmaDescriptor(uint64_t bits) {
  MlirNvfp4WgmmaDescriptor d;
  d.startAddress = (uint32_t)(((bits >> START_SHIFT) & FIELD14) << 4);
  d.leadingByteOffset = (uint32_t)(((bits >> LBO_SHIFT) & FIELD14) << 4);
  d.strideByteOffset = (uint32_t)(((bits >> SBO_SHIFT) & FIELD14) << 4);
  d.baseOffset = (uint32_t)((bits >> BASE_SHIFT) & BASE_MASK);
  d.swizzle = (MlirNvfp4WgmmaSwizzle)((bits >> SWIZZLE_SHIFT) & SWIZZLE_MASK);
  return d;
}

static bool bad(char *msg, size_t size, const char *what) {
  if (msg && size) snprintf(msg, size, "%s", what);
  return false;
}

bool mlirNvfp4WgmmaDescriptorIsValid(MlirNvfp4WgmmaDescriptor d, char *msg, size_t msgSize) {
  if (d.startAddress % 16 || d.leadingByteOffset % 16 || d.strideByteOffset % 16)
    return bad(msg, msgSize, "start address, LBO and SBO must be 16-byte aligned");
  if (d.startAddress >= (1u << 18) || d.leadingByteOffset >= (1u << 18) ||
      d.strideByteOffset >= (1u << 18))
    return bad(msg, msgSize, "start address, LBO and SBO must be below 256 KiB (14-bit field)");
  if (d.baseOffset > 7) return bad(msg, msgSize, "base offset must be 0..7");
  if ((unsigned)d.swizzle > 3) return bad(msg, msgSize, "swizzle must be 0..3");
  if (mlirNvfp4EncodeWgmmaDescriptor(d) & RESERVED_BITS)
    return bad(msg, msgSize, "reserved bits set");
  return true;
}

uint64_t mlirNvfp4WgmmaOperandDescriptor(uint32_t smemAddress) {
  MlirNvfp4WgmmaDescriptor d = {smemAddress, 0, 1024, 0, MLIR_NVFP4_WGMMA_SWIZZLE_128B};
  return mlirNvfp4EncodeWgmmaDescriptor(d);
}

/* ---- the decode ------------------------------------------------------------------------ */

uint32_t mlirNvfp4Sm90PairSourceShift(unsigned p) { return 8u * ((p / 2u) & 1u); }
uint32_t mlirNvfp4Sm90PairExtractMask(unsigned p) { return 0x000F000Fu << (4u * (p % 2u)); }
uint32_t mlirNvfp4Sm90PairMultiplier(unsigned p) { return 0x1040u >> (4u * (p % 2u)); }

uint32_t mlirNvfp4Sm90Fp4Pair(uint32_t x, unsigned p) {
  uint32_t u = (x >> mlirNvfp4Sm90PairSourceShift(p)) & mlirNvfp4Sm90PairExtractMask(p);
  return (u * mlirNvfp4Sm90PairMultiplier(p)) & MLIR_NVFP4_SM90_PAIR_MASK;
}

uint32_t mlirNvfp4Sm90ScaleTableEntry(uint8_t code) {
  /* the kernel's steps (lib/Conversion/Sm90/Kernel.c): normal codes re-bias the exponent in
   * the float bits, subnormal ones convert the 3-bit mantissa and scale by 2^-9 */
  const uint32_t mag = code & 0x7Fu;
  uint32_t nb = (mag << 20) + (120u << 23);
  float normal, v;
  memcpy(&normal, &nb, sizeof normal);
  v = mag < 8 ? (float)(code & 7u) * (1.0f / 512.0f) : normal;
  v *= 0x1p119f;
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  if (mag == 0x7F) bits = 0x7FC00000u; /* NaN */
  bits |= (uint32_t)(code & 0x80u) << 24;
  const uint32_t hi = bits >> 16; /* at most 4 significant bits: the low half is zero */
  return hi | (hi << 16);
}

/* ---- the operand layouts ------------------------------------------------------------- */

uint32_t mlirNvfp4Sm90LogicalK(uint32_t t, uint32_t j) {
  const uint32_t w = j / 8u, p = j % 4u, e = (j / 4u) % 2u;
  return 8u * (4u * w + p) + 2u * t + e;
}

uint32_t mlirNvfp4Sm90FragmentPhysical(uint32_t lane, uint32_t s, uint32_t reg, uint32_t e,
                                       bool *row8) {
  const uint32_t c = 2u * s + reg / 2u; /* output chunk of the pair */
  const uint32_t w = c / 4u, p = c % 4u;
  if (row8) *row8 = (reg % 2u) != 0;
  return 16u * (lane % 4u) + 8u * w + p + 4u * e;
}
