/* DescriptorsSm90.h — pure C encoders and arithmetic of the sm_90a kernel
 * (lib/Conversion/Sm90, docs/kernel-sm90a.md): the wgmma shared-memory matrix descriptor,
 * the exact FP4 (E2M1) x E4M3 -> BF16 decode the consumer warpgroups emit, and the model of
 * the operand layouts (which FP4 element feeds which wgmma register or shared-memory
 * position), all unit-tested on the host (test/Target/DescriptorSm90Tests.c).
 *
 * Plain C11, no MLIR/LLVM/CUDA dependency, no state.
 *
 * ---- wgmma matrix descriptor (PTX ISA 9.7.15.5.1, "Matrix Descriptor Format") ----------
 *   bits   width  field
 *   0-13   14     matrix start address, (addr & 0x3FFFF) >> 4
 *   14-15   2     reserved
 *   16-29  14     leading dimension byte offset >> 4
 *   30-31   2     reserved
 *   32-45  14     stride dimension byte offset >> 4
 *   46-48   3     reserved (0; tcgen05 descriptors fix these to 0b001, wgmma ones do not)
 *   49-51   3     matrix base offset (0 when the swizzle pattern starts on its boundary)
 *   52-61  10     reserved
 *   62-63   2     swizzle: 0 none, 1 128B, 2 64B, 3 32B
 * The kernel's only operand descriptor is B (the decoded tokens): K-major, 128-byte swizzle,
 * rows of 128 B (64 BF16 of K), 8-row groups 1024 B apart (SBO = 1024), LBO unused for a
 * swizzled K-major layout (written 0), buffers 1024-B aligned (base offset 0). One
 * m64nNk16 step consumes 32 B of each row; the k-th of the four steps of a 64-K chunk starts
 * 32 k bytes into the rows (the hardware applies the swizzle to the computed addresses).
 *
 * ---- the decode (docs/kernel-sm90a.md, "Exact decode") ----------------------------------
 * A 32-bit word x holds 8 FP4 values n0..n7 (n_i in bits 4i..4i+3, element 2i in the low
 * nibble of byte i). Pair p (0..3) takes (n_p, n_{p+4}), the two nibbles 16 bits apart:
 *     u = (x >> 8 (p / 2)) & (0x000F000F << 4 (p % 2))
 *     R = (u * (0x1040 >> 4 (p % 2))) & 0x81C081C0
 * The multiply copies each nibble 6 and 12 bits up (the copies never overlap, so there are
 * no carries); the mask keeps the sign from the upper copy (bit 15 / 31) and the three
 * exponent-mantissa bits from the lower (bits 8..6 / 24..22). Each 16-bit half of R is then
 * the BF16 whose exponent field is E1E0 and whose mantissa MSB is M, i.e. exactly
 * e2m1 * 2^-126 (exponent field 0 gives the BF16 subnormal 0.5 * 2^-126 for code 1, and
 * zero for code 0, as E2M1 does). R is multiplied (bf16x2) by S = e4m3 * 2^119, a BF16 with
 * at most 4 significant bits: the product e2m1 * e4m3 * 2^-7 has at most 6 significant bits
 * and lies in [2^-17, 21] (E4M3 subnormal minimum 2^-9 times 0.5; maximum 448 * 6), so it
 * is exact and normal. Products of two decoded operands are exact in fp32; the epilogue
 * multiplies the fp32 accumulator by 2^14 (exact) before rounding to fp16.
 * S comes from a 256-entry table (mlirNvfp4Sm90ScaleTableEntry) in shared memory; NaN
 * codes (0x7F, 0xFF) give NaN, the sign bit is kept.
 *
 * ---- the operand layouts (docs/kernel-sm90a.md, "Which K goes where") --------------------
 * The wgmma reduction index k' (0..63 within a 64-K chunk, 16 per instruction) is a
 * permutation of the physical K: every thread of a warpgroup reads its A fragment from 8
 * contiguous bytes of a row (16 FP4 values with one scale), and the token side lays out the
 * same permutation in shared memory. Physical element j (0..15) of "group" t (0..3) of the
 * chunk (bytes 8t..8t+7 of the chunk's 32 bytes of a row) is logical k' = 8c + 2t + e with
 *     word w = j / 8, pair p = j % 4, half e = (j / 4) % 2, chunk c = 4 w + p
 * (mlirNvfp4Sm90LogicalK). A fragments (wgmma m64k16, registers a0..a3 of lane l: rows
 * l/4 and l/4 + 8, k' 2(l%4) + {0,1} and 2(l%4) + 8 + {0,1} of instruction s) read group
 * t = l % 4; the B buffer row of a token holds k' in order (16-byte chunk c = k' / 8).
 */
#ifndef NVFP4_C_DESCRIPTORS_SM90_H
#define NVFP4_C_DESCRIPTORS_SM90_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- wgmma matrix descriptor --------------------------------------------------------- */

typedef enum MlirNvfp4WgmmaSwizzle {
  MLIR_NVFP4_WGMMA_SWIZZLE_NONE = 0,
  MLIR_NVFP4_WGMMA_SWIZZLE_128B = 1,
  MLIR_NVFP4_WGMMA_SWIZZLE_64B = 2,
  MLIR_NVFP4_WGMMA_SWIZZLE_32B = 3
} MlirNvfp4WgmmaSwizzle;

typedef struct MlirNvfp4WgmmaDescriptor {
  uint32_t startAddress;       /* bytes, 16-byte aligned, < 2^18 */
  uint32_t leadingByteOffset;  /* bytes, 16-byte aligned */
  uint32_t strideByteOffset;   /* bytes, 16-byte aligned */
  uint32_t baseOffset;         /* 0..7 */
  MlirNvfp4WgmmaSwizzle swizzle;
} MlirNvfp4WgmmaDescriptor;

uint64_t mlirNvfp4EncodeWgmmaDescriptor(MlirNvfp4WgmmaDescriptor d);
MlirNvfp4WgmmaDescriptor mlirNvfp4DecodeWgmmaDescriptor(uint64_t bits);
/* False (with a message) for fields the encoding cannot hold or reserved bits set. */
bool mlirNvfp4WgmmaDescriptorIsValid(MlirNvfp4WgmmaDescriptor d, char *msg, size_t msgSize);
/* The kernel's B operand descriptor for a buffer at `smemAddress`: K-major, 128-B swizzle,
 * SBO 1024, LBO 0 (constant part 0x4000004000000000 at address 0). */
uint64_t mlirNvfp4WgmmaOperandDescriptor(uint32_t smemAddress);
/* Bit position, width and byte granule of the start-address field (OR-ed in at run time). */
#define MLIR_NVFP4_WGMMA_START_SHIFT 0u
#define MLIR_NVFP4_WGMMA_START_MASK 0x3FFFu
#define MLIR_NVFP4_WGMMA_START_GRANULE_SHIFT 4u

/* ---- the decode ------------------------------------------------------------------------- */

#define MLIR_NVFP4_SM90_PAIR_MASK 0x81C081C0u
#define MLIR_NVFP4_SM90_SCALE_EXPONENT 119   /* S = e4m3 * 2^119 */
#define MLIR_NVFP4_SM90_ACC_EXPONENT 14      /* C = fp16(acc * 2^14) */

/* The extraction mask and multiplier of pair p (0..3), and the shift of its source word. */
uint32_t mlirNvfp4Sm90PairSourceShift(unsigned p);
uint32_t mlirNvfp4Sm90PairExtractMask(unsigned p);
uint32_t mlirNvfp4Sm90PairMultiplier(unsigned p);
/* R of pair p of word x: two BF16 bit patterns (low half n_p, high half n_{p+4}), each
 * e2m1 * 2^-126. */
uint32_t mlirNvfp4Sm90Fp4Pair(uint32_t x, unsigned p);
/* The scale table entry of an E4M3 code: BF16x2 {S, S}, S = e4m3(code) * 2^119 (exact;
 * NaN for 0x7F/0xFF). */
uint32_t mlirNvfp4Sm90ScaleTableEntry(uint8_t code);

/* ---- the operand layouts ------------------------------------------------------------- */

/* Logical k' (0..63) of physical element j (0..15) of group t (0..3) of a 64-K chunk. */
uint32_t mlirNvfp4Sm90LogicalK(uint32_t t, uint32_t j);
/* The physical element (group * 16 + j) behind wgmma A register `reg` (0..3), half `e`
 * (0 low, 1 high) of lane `lane` in instruction `s` (0..3) of a chunk; *row8 says whether
 * it is the fragment row l/4 + 8. Follows the decode: register reg of instruction s holds
 * pair (2 s + reg / 2) % 4 of word (2 s + reg / 2) / 4 of group lane % 4. */
uint32_t mlirNvfp4Sm90FragmentPhysical(uint32_t lane, uint32_t s, uint32_t reg, uint32_t e,
                                       bool *row8);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_DESCRIPTORS_SM90_H */
