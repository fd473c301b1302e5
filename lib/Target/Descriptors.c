/* Descriptors.c — encoders, decoders and validators for the tcgen05 descriptors declared
 * in include/nvfp4-c/Descriptors.h (shared memory descriptor, block-scaled and dense
 * instruction descriptors, Tensor Memory addresses).
 *
 * Every field has a named shift and mask taken from the PTX ISA tables quoted in the
 * header (9.7.16.4.1 "Shared memory descriptor", 9.7.16.4.2 "Instruction descriptor",
 * 9.7.16.1.1 "Tensor Memory Addressing"). Pure functions, no global state.
 */
#include "nvfp4-c/Descriptors.h"

#include <stdarg.h>
#include <stdio.h>

/* ---- shared memory descriptor fields (PTX ISA 9.7.16.4.1, Table "Shared memory
 *      descriptor layout") ------------------------------------------------------------ */
#define SMEM_START_SHIFT 0u    /* bits 0-13 */
#define SMEM_START_MASK 0x3FFFull
#define SMEM_LBO_SHIFT 16u     /* bits 16-29 */
#define SMEM_LBO_MASK 0x3FFFull
#define SMEM_SBO_SHIFT 32u     /* bits 32-45 */
#define SMEM_SBO_MASK 0x3FFFull
#define SMEM_FIXED_SHIFT 46u   /* bits 46-48: fixed 0b001 */
#define SMEM_FIXED_MASK 0x7ull
#define SMEM_FIXED_VALUE 0x1ull
#define SMEM_BASE_SHIFT 49u    /* bits 49-51 */
#define SMEM_BASE_MASK 0x7ull
#define SMEM_LBO_MODE_SHIFT 52u /* bit 52 */
#define SMEM_LBO_MODE_MASK 0x1ull
#define SMEM_ZERO_SHIFT 53u    /* bits 53-60: fixed 0 */
#define SMEM_ZERO_MASK 0xFFull
#define SMEM_SWIZZLE_SHIFT 61u /* bits 61-63 */
#define SMEM_SWIZZLE_MASK 0x7ull
#define SMEM_RESERVED_BITS ((0x3ull << 14) | (0x3ull << 30)) /* bits 14-15, 30-31 */

/* matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4 */
#define SMEM_ENCODE_ADDR_MASK 0x3FFFFull
#define SMEM_ENCODE_SHIFT 4u

/* ---- block-scaled instruction descriptor fields (PTX ISA 9.7.16.4.2, tables for
 *      .kind::mxf8f6f4 and .kind::mxf4 / .kind::mxf4nvf4) -------------------------------- */
#define BS_SPARSE_SHIFT 2u     /* bit 2 */
#define BS_SPARSE_MASK 0x1u
#define BS_SFB_ID_SHIFT 4u     /* bits 4-5 */
#define BS_SFB_ID_MASK 0x3u
#define BS_ATYPE_SHIFT 7u      /* bits 7-9 */
#define BS_ATYPE_MASK 0x7u
#define BS_BTYPE_SHIFT 10u     /* bits 10-12 (mxf4*: 10-11) */
#define BS_BTYPE_MASK 0x7u
#define BS_NEGATE_A_SHIFT 13u  /* bit 13 */
#define BS_NEGATE_B_SHIFT 14u  /* bit 14 */
#define BS_MAJOR_A_SHIFT 15u   /* bit 15: transpose A */
#define BS_MAJOR_B_SHIFT 16u   /* bit 16: transpose B */
#define BS_FLAG_MASK 0x1u
#define BS_N_SHIFT 17u         /* bits 17-22: N >> 3 */
#define BS_N_MASK 0x3Fu
#define BS_N_GRANULE_SHIFT 3u
#define BS_SCALE_TYPE_SHIFT 23u /* bit 23: UE4M3 0, UE8M0 1 */
#define BS_SCALE_TYPE_MASK 0x1u
#define BS_M_SHIFT 27u         /* bits 27-28: M >> 7 */
#define BS_M_MASK 0x3u
#define BS_M_GRANULE_SHIFT 7u
#define BS_SFA_ID_SHIFT 29u    /* bits 29-30 */
#define BS_SFA_ID_MASK 0x3u
/* bit 31 (mxf4*: K dimension select, 0 = K64 dense / K128 sparse) is always 0. */

/* ---- dense instruction descriptor fields (PTX ISA 9.7.16.4.2, table for .kind::tf32,
 *      .kind::f16, .kind::f8f6f4 and .kind::i8) ------------------------------------------ */
#define DN_SPARSE_SEL_SHIFT 0u /* bits 0-1 */
#define DN_SPARSE_SEL_MASK 0x3u
#define DN_SPARSE_SHIFT 2u     /* bit 2 */
#define DN_SATURATE_SHIFT 3u   /* bit 3 */
#define DN_DTYPE_SHIFT 4u      /* bits 4-5 */
#define DN_DTYPE_MASK 0x3u
#define DN_ATYPE_SHIFT 7u      /* bits 7-9 */
#define DN_ATYPE_MASK 0x7u
#define DN_BTYPE_SHIFT 10u     /* bits 10-12 */
#define DN_BTYPE_MASK 0x7u
#define DN_NEGATE_A_SHIFT 13u
#define DN_NEGATE_B_SHIFT 14u
#define DN_MAJOR_A_SHIFT 15u
#define DN_MAJOR_B_SHIFT 16u
#define DN_FLAG_MASK 0x1u
#define DN_N_SHIFT 17u         /* bits 17-22: N >> 3 */
#define DN_N_MASK 0x3Fu
#define DN_N_GRANULE_SHIFT 3u
#define DN_M_SHIFT 24u         /* bits 24-28: M >> 4 */
#define DN_M_MASK 0x1Fu
#define DN_M_GRANULE_SHIFT 4u
/* bits 30-31 (max shift, .ws only) are always 0. */

/* ---- Tensor Memory address (PTX ISA 9.7.16.1.1) ---------------------------------------- */
#define TMEM_LANE_SHIFT 16u    /* bits 16-31 */
#define TMEM_LANE_MASK 0xFFFFu
#define TMEM_COLUMN_SHIFT 0u   /* bits 0-15 */
#define TMEM_COLUMN_MASK 0xFFFFu

/* ---- fixed values of the kernel's descriptors ------------------------------------------ */
#define OPERAND_SBO_BYTES 1024u   /* 8 rows x 128 B (SWIZZLE_128B, K-major) */
#define OPERAND_LBO_BYTES 0u      /* unused for swizzled K-major */
#define SF_COPY_SBO_BYTES 128u    /* 8 rows x 16 B */
#define SF_COPY_LBO_BYTES 0u      /* one 16-B column only */
#define SF_ROWS_PER_TMEM_COLUMN 32u

/* Writes a formatted message when a buffer is given; returns `ok`. */
static bool report(bool ok, char *msg, size_t msgSize, const char *fmt, ...) {
  if (msg && msgSize > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msgSize, fmt, ap);
    va_end(ap);
  }
  return ok;
}

static uint64_t smemEncodeBytes(uint32_t bytes) {
  return ((uint64_t)bytes & SMEM_ENCODE_ADDR_MASK) >> SMEM_ENCODE_SHIFT;
}

static bool isLegalSwizzle(uint32_t code) {
  return code == MLIR_NVFP4_SWIZZLE_NONE || code == MLIR_NVFP4_SWIZZLE_128B_BASE32B ||
         code == MLIR_NVFP4_SWIZZLE_128B || code == MLIR_NVFP4_SWIZZLE_64B ||
         code == MLIR_NVFP4_SWIZZLE_32B;
}

/* ========================================================================================
 * Shared memory descriptor
 * ======================================================================================== */

uint64_t mlirNvfp4EncodeSmemDescriptor(MlirNvfp4SmemDescriptor d) {
  uint64_t bits = 0;
  bits |= (smemEncodeBytes(d.startAddress) & SMEM_START_MASK) << SMEM_START_SHIFT;
  bits |= (smemEncodeBytes(d.leadingByteOffset) & SMEM_LBO_MASK) << SMEM_LBO_SHIFT;
  bits |= (smemEncodeBytes(d.strideByteOffset) & SMEM_SBO_MASK) << SMEM_SBO_SHIFT;
  bits |= (SMEM_FIXED_VALUE & SMEM_FIXED_MASK) << SMEM_FIXED_SHIFT;
  bits |= ((uint64_t)d.baseOffset & SMEM_BASE_MASK) << SMEM_BASE_SHIFT;
  bits |= ((uint64_t)(d.lboAbsolute ? 1u : 0u) & SMEM_LBO_MODE_MASK) << SMEM_LBO_MODE_SHIFT;
  bits |= ((uint64_t)d.swizzle & SMEM_SWIZZLE_MASK) << SMEM_SWIZZLE_SHIFT;
  return bits;
}

MlirNvfp4SmemDescriptor mlirNvfp4DecodeSmemDescriptor(uint64_t bits) {
  MlirNvfp4SmemDescriptor d;
  d.startAddress =
      (uint32_t)(((bits >> SMEM_START_SHIFT) & SMEM_START_MASK) << SMEM_ENCODE_SHIFT);
  d.leadingByteOffset =
      (uint32_t)(((bits >> SMEM_LBO_SHIFT) & SMEM_LBO_MASK) << SMEM_ENCODE_SHIFT);
  d.strideByteOffset =
      (uint32_t)(((bits >> SMEM_SBO_SHIFT) & SMEM_SBO_MASK) << SMEM_ENCODE_SHIFT);
  d.baseOffset = (uint32_t)((bits >> SMEM_BASE_SHIFT) & SMEM_BASE_MASK);
  d.lboAbsolute = ((bits >> SMEM_LBO_MODE_SHIFT) & SMEM_LBO_MODE_MASK) != 0;
  d.swizzle = (MlirNvfp4Swizzle)((bits >> SMEM_SWIZZLE_SHIFT) & SMEM_SWIZZLE_MASK);
  return d;
}

static bool checkByteField(const char *name, uint32_t value, char *msg, size_t msgSize) {
  if (value % MLIR_NVFP4_SMEM_DESC_BYTE_ALIGN != 0)
    return report(false, msg, msgSize, "%s 0x%x is not 16-byte aligned", name, value);
  if (value >= MLIR_NVFP4_SMEM_DESC_BYTE_LIMIT)
    return report(false, msg, msgSize,
                  "%s 0x%x does not fit the 14-bit field (must be < 0x%x bytes)", name,
                  value, MLIR_NVFP4_SMEM_DESC_BYTE_LIMIT);
  return true;
}

bool mlirNvfp4SmemDescriptorIsValid(MlirNvfp4SmemDescriptor d, char *msg, size_t msgSize) {
  if (!checkByteField("start address", d.startAddress, msg, msgSize))
    return false;
  if (!checkByteField(d.lboAbsolute ? "leading byte address" : "leading byte offset",
                      d.leadingByteOffset, msg, msgSize))
    return false;
  if (!checkByteField("stride byte offset", d.strideByteOffset, msg, msgSize))
    return false;
  if (!isLegalSwizzle((uint32_t)d.swizzle))
    return report(false, msg, msgSize, "illegal swizzle mode %u (legal: 0, 1, 2, 4, 6)",
                  (unsigned)d.swizzle);
  if (d.baseOffset > SMEM_BASE_MASK)
    return report(false, msg, msgSize, "base offset %u does not fit 3 bits", d.baseOffset);
  if (d.baseOffset != 0 && d.swizzle == MLIR_NVFP4_SWIZZLE_NONE)
    return report(false, msg, msgSize,
                  "base offset %u is meaningless without swizzling (must be 0)",
                  d.baseOffset);
  if (d.lboAbsolute && d.swizzle != MLIR_NVFP4_SWIZZLE_128B)
    return report(false, msg, msgSize,
                  "absolute leading-dimension address mode requires 128B swizzle");
  if (d.lboAbsolute && d.baseOffset != 0)
    return report(false, msg, msgSize,
                  "absolute leading-dimension address mode requires base offset 0");
  return report(true, msg, msgSize, "%s", "");
}

bool mlirNvfp4SmemDescriptorBitsAreWellFormed(uint64_t bits, char *msg, size_t msgSize) {
  if (((bits >> SMEM_FIXED_SHIFT) & SMEM_FIXED_MASK) != SMEM_FIXED_VALUE)
    return report(false, msg, msgSize, "bits 46-48 must be 0b001");
  if (((bits >> SMEM_ZERO_SHIFT) & SMEM_ZERO_MASK) != 0)
    return report(false, msg, msgSize, "bits 53-60 must be 0");
  if ((bits & SMEM_RESERVED_BITS) != 0)
    return report(false, msg, msgSize, "reserved bits 14-15 / 30-31 must be 0");
  if (!isLegalSwizzle((uint32_t)((bits >> SMEM_SWIZZLE_SHIFT) & SMEM_SWIZZLE_MASK)))
    return report(false, msg, msgSize, "illegal swizzle mode %u",
                  (unsigned)((bits >> SMEM_SWIZZLE_SHIFT) & SMEM_SWIZZLE_MASK));
  return report(true, msg, msgSize, "%s", "");
}

uint64_t mlirNvfp4OperandSmemDescriptor(uint32_t smemAddress) {
  MlirNvfp4SmemDescriptor d = {
      .startAddress = smemAddress,
      .leadingByteOffset = OPERAND_LBO_BYTES,
      .strideByteOffset = OPERAND_SBO_BYTES,
      .baseOffset = 0,
      .lboAbsolute = false,
      .swizzle = MLIR_NVFP4_SWIZZLE_128B,
  };
  return mlirNvfp4EncodeSmemDescriptor(d);
}

uint64_t mlirNvfp4ScaleFactorCopyDescriptor(uint32_t smemAddress) {
  MlirNvfp4SmemDescriptor d = {
      .startAddress = smemAddress,
      .leadingByteOffset = SF_COPY_LBO_BYTES,
      .strideByteOffset = SF_COPY_SBO_BYTES,
      .baseOffset = 0,
      .lboAbsolute = false,
      .swizzle = MLIR_NVFP4_SWIZZLE_NONE,
  };
  return mlirNvfp4EncodeSmemDescriptor(d);
}

/* ========================================================================================
 * Block-scaled instruction descriptor
 * ======================================================================================== */

uint32_t mlirNvfp4EncodeBlockScaledInstrDescriptor(MlirNvfp4BlockScaledInstrDescriptor d) {
  uint32_t bits = 0;
  bits |= ((d.sparse ? 1u : 0u) & BS_SPARSE_MASK) << BS_SPARSE_SHIFT;
  bits |= (d.sfbId & BS_SFB_ID_MASK) << BS_SFB_ID_SHIFT;
  bits |= (d.aFormat & BS_ATYPE_MASK) << BS_ATYPE_SHIFT;
  bits |= (d.bFormat & BS_BTYPE_MASK) << BS_BTYPE_SHIFT;
  bits |= ((d.negateA ? 1u : 0u) & BS_FLAG_MASK) << BS_NEGATE_A_SHIFT;
  bits |= ((d.negateB ? 1u : 0u) & BS_FLAG_MASK) << BS_NEGATE_B_SHIFT;
  bits |= ((uint32_t)d.aMajor & BS_FLAG_MASK) << BS_MAJOR_A_SHIFT;
  bits |= ((uint32_t)d.bMajor & BS_FLAG_MASK) << BS_MAJOR_B_SHIFT;
  bits |= ((d.n >> BS_N_GRANULE_SHIFT) & BS_N_MASK) << BS_N_SHIFT;
  bits |= ((d.scaleType == MLIR_NVFP4_SCALE_UE8M0 ? 1u : 0u) & BS_SCALE_TYPE_MASK)
          << BS_SCALE_TYPE_SHIFT;
  bits |= ((d.m >> BS_M_GRANULE_SHIFT) & BS_M_MASK) << BS_M_SHIFT;
  bits |= (d.sfaId & BS_SFA_ID_MASK) << BS_SFA_ID_SHIFT;
  return bits;
}

MlirNvfp4BlockScaledInstrDescriptor mlirNvfp4DecodeBlockScaledInstrDescriptor(
    MlirNvfp4MmaKind kind, uint32_t scaleVecSize, uint32_t bits) {
  MlirNvfp4BlockScaledInstrDescriptor d;
  d.kind = kind;
  d.scaleVecSize = scaleVecSize;
  d.sparse = ((bits >> BS_SPARSE_SHIFT) & BS_SPARSE_MASK) != 0;
  d.sfbId = (bits >> BS_SFB_ID_SHIFT) & BS_SFB_ID_MASK;
  d.aFormat = (bits >> BS_ATYPE_SHIFT) & BS_ATYPE_MASK;
  d.bFormat = (bits >> BS_BTYPE_SHIFT) & BS_BTYPE_MASK;
  d.negateA = ((bits >> BS_NEGATE_A_SHIFT) & BS_FLAG_MASK) != 0;
  d.negateB = ((bits >> BS_NEGATE_B_SHIFT) & BS_FLAG_MASK) != 0;
  d.aMajor = (MlirNvfp4Major)((bits >> BS_MAJOR_A_SHIFT) & BS_FLAG_MASK);
  d.bMajor = (MlirNvfp4Major)((bits >> BS_MAJOR_B_SHIFT) & BS_FLAG_MASK);
  d.n = ((bits >> BS_N_SHIFT) & BS_N_MASK) << BS_N_GRANULE_SHIFT;
  d.scaleType = ((bits >> BS_SCALE_TYPE_SHIFT) & BS_SCALE_TYPE_MASK)
                    ? MLIR_NVFP4_SCALE_UE8M0
                    : MLIR_NVFP4_SCALE_UE4M3;
  d.m = ((bits >> BS_M_SHIFT) & BS_M_MASK) << BS_M_GRANULE_SHIFT;
  d.sfaId = (bits >> BS_SFA_ID_SHIFT) & BS_SFA_ID_MASK;
  return d;
}

static const char *kindName(MlirNvfp4MmaKind kind) {
  switch (kind) {
  case MLIR_NVFP4_KIND_MXF4NVF4:
    return "kind::mxf4nvf4";
  case MLIR_NVFP4_KIND_MXF4:
    return "kind::mxf4";
  case MLIR_NVFP4_KIND_MXF8F6F4:
    return "kind::mxf8f6f4";
  }
  return "unknown kind";
}

static bool isMxf8f6f4Format(uint32_t f) {
  return f == MLIR_NVFP4_MXF8F6F4_FORMAT_E4M3 || f == MLIR_NVFP4_MXF8F6F4_FORMAT_E5M2 ||
         f == MLIR_NVFP4_MXF8F6F4_FORMAT_E2M3 || f == MLIR_NVFP4_MXF8F6F4_FORMAT_E3M2 ||
         f == MLIR_NVFP4_MXF8F6F4_FORMAT_E2M1;
}

static bool isMxf8f6f4EightBit(uint32_t f) {
  return f == MLIR_NVFP4_MXF8F6F4_FORMAT_E4M3 || f == MLIR_NVFP4_MXF8F6F4_FORMAT_E5M2;
}

bool mlirNvfp4BlockScaledInstrDescriptorIsValidForCtaGroup(
    MlirNvfp4BlockScaledInstrDescriptor d, uint32_t ctaGroup, char *msg, size_t msgSize) {
  const char *kn = kindName(d.kind);
  bool fp4Kind = d.kind == MLIR_NVFP4_KIND_MXF4NVF4 || d.kind == MLIR_NVFP4_KIND_MXF4;
  if (!fp4Kind && d.kind != MLIR_NVFP4_KIND_MXF8F6F4)
    return report(false, msg, msgSize, "unknown MMA kind %d", (int)d.kind);
  if (ctaGroup != 1 && ctaGroup != 2)
    return report(false, msg, msgSize, "cta_group must be 1 or 2, got %u", ctaGroup);

  /* Shapes: PTX ISA 9.7.16.2.1 ("Matrix Shape"), block-scaled kinds without .ws. */
  if (ctaGroup == 1) {
    if (d.m != 128)
      return report(false, msg, msgSize,
                    "illegal M=%u for %s with cta_group::1 (only M=128)", d.m, kn);
    if (d.n < 8 || d.n > 256 || d.n % 8 != 0)
      return report(false, msg, msgSize,
                    "illegal N=%u for %s with cta_group::1 (8..256 in steps of 8)", d.n,
                    kn);
  } else {
    if (d.m != 128 && d.m != 256)
      return report(false, msg, msgSize,
                    "illegal M=%u for %s with cta_group::2 (M=128 or 256)", d.m, kn);
    if (d.sparse && d.m != 256)
      return report(false, msg, msgSize,
                    "illegal M=%u for sparse %s with cta_group::2 (only M=256)", d.m, kn);
    if (d.n < 16 || d.n > 256 || d.n % 16 != 0)
      return report(false, msg, msgSize,
                    "illegal N=%u for %s with cta_group::2 (16..256 in steps of 16)", d.n,
                    kn);
  }

  /* Element formats: Table "Instruction descriptor format" per kind. */
  if (fp4Kind) {
    if (d.aFormat != MLIR_NVFP4_MXF4_FORMAT_E2M1 || d.bFormat != MLIR_NVFP4_MXF4_FORMAT_E2M1)
      return report(false, msg, msgSize,
                    "wrong format for %s: A=%u B=%u (both must be E2M1 = 1)", kn,
                    d.aFormat, d.bFormat);
  } else {
    if (!isMxf8f6f4Format(d.aFormat) || !isMxf8f6f4Format(d.bFormat))
      return report(false, msg, msgSize,
                    "wrong format for %s: A=%u B=%u (E4M3 0, E5M2 1, E2M3 3, E3M2 4, "
                    "E2M1 5)",
                    kn, d.aFormat, d.bFormat);
  }

  /* Scale type and vector size: PTX ISA 9.7.16.10.7.1 ("Valid combinations of
   * scale_vectorsize with types and MMA-Kind"). */
  if (d.scaleVecSize != 16 && d.scaleVecSize != 32)
    return report(false, msg, msgSize, "scale vector size %u must be 16 or 32",
                  d.scaleVecSize);
  if (d.scaleType != MLIR_NVFP4_SCALE_UE4M3 && d.scaleType != MLIR_NVFP4_SCALE_UE8M0)
    return report(false, msg, msgSize, "unknown scale type %d", (int)d.scaleType);
  switch (d.kind) {
  case MLIR_NVFP4_KIND_MXF4NVF4:
    if (d.scaleType == MLIR_NVFP4_SCALE_UE4M3 && d.scaleVecSize != 16)
      return report(false, msg, msgSize,
                    "%s with UE4M3 scales requires block16 (scale_vec::4X)", kn);
    break;
  case MLIR_NVFP4_KIND_MXF4:
  case MLIR_NVFP4_KIND_MXF8F6F4:
    if (d.scaleType != MLIR_NVFP4_SCALE_UE8M0)
      return report(false, msg, msgSize, "%s requires UE8M0 scales", kn);
    if (d.scaleVecSize != 32)
      return report(false, msg, msgSize, "%s requires block32", kn);
    break;
  }

  /* Major-ness: 4-bit and 6-bit operands must be K-major (PTX ISA 9.7.16.10.3); the
   * mxf4 / mxf4nvf4 tables only allow "No Transpose". */
  if ((d.aMajor != MLIR_NVFP4_MAJOR_K && d.aMajor != MLIR_NVFP4_MAJOR_MN) ||
      (d.bMajor != MLIR_NVFP4_MAJOR_K && d.bMajor != MLIR_NVFP4_MAJOR_MN))
    return report(false, msg, msgSize, "unknown major-ness");
  if (fp4Kind && (d.aMajor != MLIR_NVFP4_MAJOR_K || d.bMajor != MLIR_NVFP4_MAJOR_K))
    return report(false, msg, msgSize, "%s requires K-major A and B", kn);
  if (!fp4Kind && d.aMajor == MLIR_NVFP4_MAJOR_MN && !isMxf8f6f4EightBit(d.aFormat))
    return report(false, msg, msgSize,
                  "MN-major A requires an 8-bit format (E4M3/E5M2), got %u", d.aFormat);
  if (!fp4Kind && d.bMajor == MLIR_NVFP4_MAJOR_MN && !isMxf8f6f4EightBit(d.bFormat))
    return report(false, msg, msgSize,
                  "MN-major B requires an 8-bit format (E4M3/E5M2), got %u", d.bFormat);

  /* Scale factor ids: PTX ISA 9.7.16.10.7.2 / 9.7.16.10.7.3. */
  if (d.sfaId > BS_SFA_ID_MASK || d.sfbId > BS_SFB_ID_MASK)
    return report(false, msg, msgSize, "scale factor ids %u/%u do not fit 2 bits", d.sfaId,
                  d.sfbId);
  if (fp4Kind && d.scaleVecSize == 16 && (d.sfaId != 0 || d.sfbId != 0))
    return report(false, msg, msgSize,
                  "block16 (scale_vec::4X) requires scale factor ids 0, got A=%u B=%u",
                  d.sfaId, d.sfbId);
  if (fp4Kind && d.scaleVecSize == 32 && ((d.sfaId & 1u) != 0 || (d.sfbId & 1u) != 0))
    return report(false, msg, msgSize,
                  "block32 (scale_vec::2X) requires scale factor ids 0 or 2, got A=%u B=%u",
                  d.sfaId, d.sfbId);

  return report(true, msg, msgSize, "%s", "");
}

bool mlirNvfp4BlockScaledInstrDescriptorIsValid(MlirNvfp4BlockScaledInstrDescriptor d,
                                                char *msg, size_t msgSize) {
  return mlirNvfp4BlockScaledInstrDescriptorIsValidForCtaGroup(d, 1, msg, msgSize);
}

uint32_t mlirNvfp4Mxf4Nvf4InstrDescriptor(uint32_t m, uint32_t n) {
  MlirNvfp4BlockScaledInstrDescriptor d = {
      .kind = MLIR_NVFP4_KIND_MXF4NVF4,
      .m = m,
      .n = n,
      .aFormat = MLIR_NVFP4_MXF4_FORMAT_E2M1,
      .bFormat = MLIR_NVFP4_MXF4_FORMAT_E2M1,
      .scaleType = MLIR_NVFP4_SCALE_UE4M3,
      .scaleVecSize = 16,
      .aMajor = MLIR_NVFP4_MAJOR_K,
      .bMajor = MLIR_NVFP4_MAJOR_K,
      .negateA = false,
      .negateB = false,
      .sfaId = 0,
      .sfbId = 0,
      .sparse = false,
  };
  return mlirNvfp4EncodeBlockScaledInstrDescriptor(d);
}

/* ========================================================================================
 * Dense instruction descriptor
 * ======================================================================================== */

uint32_t mlirNvfp4EncodeDenseInstrDescriptor(MlirNvfp4DenseInstrDescriptor d) {
  uint32_t bits = 0;
  bits |= (d.sparse ? (d.sparsitySelector & DN_SPARSE_SEL_MASK) : 0u) << DN_SPARSE_SEL_SHIFT;
  bits |= ((d.sparse ? 1u : 0u) & DN_FLAG_MASK) << DN_SPARSE_SHIFT;
  bits |= ((d.saturate ? 1u : 0u) & DN_FLAG_MASK) << DN_SATURATE_SHIFT;
  bits |= (d.dFormat & DN_DTYPE_MASK) << DN_DTYPE_SHIFT;
  bits |= (d.aFormat & DN_ATYPE_MASK) << DN_ATYPE_SHIFT;
  bits |= (d.bFormat & DN_BTYPE_MASK) << DN_BTYPE_SHIFT;
  bits |= ((d.negateA ? 1u : 0u) & DN_FLAG_MASK) << DN_NEGATE_A_SHIFT;
  bits |= ((d.negateB ? 1u : 0u) & DN_FLAG_MASK) << DN_NEGATE_B_SHIFT;
  bits |= ((uint32_t)d.aMajor & DN_FLAG_MASK) << DN_MAJOR_A_SHIFT;
  bits |= ((uint32_t)d.bMajor & DN_FLAG_MASK) << DN_MAJOR_B_SHIFT;
  bits |= ((d.n >> DN_N_GRANULE_SHIFT) & DN_N_MASK) << DN_N_SHIFT;
  bits |= ((d.m >> DN_M_GRANULE_SHIFT) & DN_M_MASK) << DN_M_SHIFT;
  return bits;
}

/* Bits per element of a dense-kind format code (0 when unknown). */
static uint32_t denseFormatBits(MlirNvfp4DenseKind kind, uint32_t f) {
  switch (kind) {
  case MLIR_NVFP4_DENSE_KIND_F16:
    return (f == MLIR_NVFP4_F16_FORMAT_F16 || f == MLIR_NVFP4_F16_FORMAT_BF16) ? 16u : 0u;
  case MLIR_NVFP4_DENSE_KIND_TF32:
    return f == MLIR_NVFP4_TF32_FORMAT_TF32 ? 32u : 0u;
  case MLIR_NVFP4_DENSE_KIND_F8F6F4:
    if (f == MLIR_NVFP4_MXF8F6F4_FORMAT_E4M3 || f == MLIR_NVFP4_MXF8F6F4_FORMAT_E5M2)
      return 8u;
    if (f == MLIR_NVFP4_MXF8F6F4_FORMAT_E2M3 || f == MLIR_NVFP4_MXF8F6F4_FORMAT_E3M2)
      return 6u;
    if (f == MLIR_NVFP4_MXF8F6F4_FORMAT_E2M1)
      return 4u;
    return 0u;
  case MLIR_NVFP4_DENSE_KIND_I8:
    return (f == MLIR_NVFP4_I8_FORMAT_U8 || f == MLIR_NVFP4_I8_FORMAT_S8) ? 8u : 0u;
  }
  return 0u;
}

bool mlirNvfp4DenseInstrDescriptorIsValid(MlirNvfp4DenseInstrDescriptor d, char *msg,
                                          size_t msgSize) {
  if (d.kind != MLIR_NVFP4_DENSE_KIND_F16 && d.kind != MLIR_NVFP4_DENSE_KIND_TF32 &&
      d.kind != MLIR_NVFP4_DENSE_KIND_F8F6F4 && d.kind != MLIR_NVFP4_DENSE_KIND_I8)
    return report(false, msg, msgSize, "unknown dense MMA kind %d", (int)d.kind);
  /* Shapes: PTX ISA 9.7.16.2.1, cta_group::1, no .ws. */
  if (d.m != 64 && d.m != 128)
    return report(false, msg, msgSize, "illegal M=%u for a dense kind (64 or 128)", d.m);
  if (d.kind == MLIR_NVFP4_DENSE_KIND_I8) {
    bool ok = (d.n >= 8 && d.n <= 32 && d.n % 8 == 0) ||
              (d.n > 32 && d.n <= 256 && d.n % 16 == 0);
    if (!ok)
      return report(false, msg, msgSize,
                    "illegal N=%u for kind::i8 (8, 16, 24, 32, then steps of 16 to 256)",
                    d.n);
  } else if (d.n < 8 || d.n > 256 || d.n % 8 != 0) {
    return report(false, msg, msgSize, "illegal N=%u (8..256 in steps of 8)", d.n);
  }
  uint32_t aBits = denseFormatBits(d.kind, d.aFormat);
  uint32_t bBits = denseFormatBits(d.kind, d.bFormat);
  if (aBits == 0 || bBits == 0)
    return report(false, msg, msgSize, "wrong format for the kind: A=%u B=%u", d.aFormat,
                  d.bFormat);
  switch (d.kind) {
  case MLIR_NVFP4_DENSE_KIND_F16:
    if (d.aFormat != d.bFormat)
      return report(false, msg, msgSize, "kind::f16 requires A and B of the same type");
    if (d.dFormat != MLIR_NVFP4_DTYPE_F32 &&
        !(d.dFormat == MLIR_NVFP4_DTYPE_F16 && d.aFormat == MLIR_NVFP4_F16_FORMAT_F16))
      return report(false, msg, msgSize, "kind::f16: D must be F32 (or F16 for F16 inputs)");
    break;
  case MLIR_NVFP4_DENSE_KIND_TF32:
    if (d.dFormat != MLIR_NVFP4_DTYPE_F32)
      return report(false, msg, msgSize, "kind::tf32: D must be F32");
    break;
  case MLIR_NVFP4_DENSE_KIND_F8F6F4:
    if (d.dFormat != MLIR_NVFP4_DTYPE_F32 && d.dFormat != MLIR_NVFP4_DTYPE_F16)
      return report(false, msg, msgSize, "kind::f8f6f4: D must be F32 or F16");
    break;
  case MLIR_NVFP4_DENSE_KIND_I8:
    if (d.dFormat != MLIR_NVFP4_DTYPE_S32)
      return report(false, msg, msgSize, "kind::i8: D must be S32");
    break;
  }
  if (d.kind == MLIR_NVFP4_DENSE_KIND_I8 && (d.negateA || d.negateB))
    return report(false, msg, msgSize, "kind::i8 does not support negation");
  if (d.kind != MLIR_NVFP4_DENSE_KIND_I8 && d.saturate)
    return report(false, msg, msgSize, "saturation is only defined for kind::i8");
  if ((d.aMajor != MLIR_NVFP4_MAJOR_K && d.aMajor != MLIR_NVFP4_MAJOR_MN) ||
      (d.bMajor != MLIR_NVFP4_MAJOR_K && d.bMajor != MLIR_NVFP4_MAJOR_MN))
    return report(false, msg, msgSize, "unknown major-ness");
  /* PTX ISA 9.7.16.10.3: transposed (MN-major) operands must be 8, 16 or 32 bits. */
  if (d.aMajor == MLIR_NVFP4_MAJOR_MN && aBits < 8)
    return report(false, msg, msgSize, "MN-major A requires an 8/16/32-bit type");
  if (d.bMajor == MLIR_NVFP4_MAJOR_MN && bBits < 8)
    return report(false, msg, msgSize, "MN-major B requires an 8/16/32-bit type");
  if (!d.sparse && d.sparsitySelector != 0)
    return report(false, msg, msgSize, "sparsity selector set on a dense MMA");
  if (d.sparsitySelector > DN_SPARSE_SEL_MASK)
    return report(false, msg, msgSize, "sparsity selector %u does not fit 2 bits",
                  d.sparsitySelector);
  return report(true, msg, msgSize, "%s", "");
}

/* ========================================================================================
 * Tensor Memory addresses and the scale-factor layout
 * ======================================================================================== */

uint32_t mlirNvfp4TmemAddress(uint32_t lane, uint32_t column) {
  return ((lane & TMEM_LANE_MASK) << TMEM_LANE_SHIFT) |
         ((column & TMEM_COLUMN_MASK) << TMEM_COLUMN_SHIFT);
}

uint32_t mlirNvfp4TmemLane(uint32_t addr) {
  return (addr >> TMEM_LANE_SHIFT) & TMEM_LANE_MASK;
}

uint32_t mlirNvfp4TmemColumn(uint32_t addr) {
  return (addr >> TMEM_COLUMN_SHIFT) & TMEM_COLUMN_MASK;
}

bool mlirNvfp4TmemAddressIsValid(uint32_t lane, uint32_t column, char *msg,
                                 size_t msgSize) {
  if (lane >= MLIR_NVFP4_TMEM_LANES)
    return report(false, msg, msgSize, "TMEM lane %u out of range (< %u)", lane,
                  MLIR_NVFP4_TMEM_LANES);
  if (column >= MLIR_NVFP4_TMEM_COLUMNS)
    return report(false, msg, msgSize, "TMEM column %u out of range (< %u)", column,
                  MLIR_NVFP4_TMEM_COLUMNS);
  return report(true, msg, msgSize, "%s", "");
}

uint32_t mlirNvfp4ScaleFactorTmemColumnsPerMma(uint32_t rows) {
  return (rows + SF_ROWS_PER_TMEM_COLUMN - 1u) / SF_ROWS_PER_TMEM_COLUMN;
}

uint32_t mlirNvfp4ScaleFactorTmemColumnOffset(uint32_t firstRow) {
  return firstRow / SF_ROWS_PER_TMEM_COLUMN;
}

/* ---- run-time fields ---------------------------------------------------------------------- */

MlirNvfp4RuntimeField mlirNvfp4SmemDescriptorStartField(void) {
  MlirNvfp4RuntimeField f = {SMEM_START_SHIFT, SMEM_ENCODE_SHIFT, SMEM_START_MASK};
  return f;
}

MlirNvfp4RuntimeField mlirNvfp4BlockScaledInstrDescriptorNField(void) {
  MlirNvfp4RuntimeField f = {BS_N_SHIFT, BS_N_GRANULE_SHIFT, BS_N_MASK};
  return f;
}

uint64_t mlirNvfp4RuntimeFieldApply(MlirNvfp4RuntimeField f, uint64_t value) {
  return ((value >> f.granuleShift) & f.mask) << f.shift;
}
