/* Descriptors.h — pure C encoders for the sm_100a tcgen05 descriptors used by the grouped
 * block-scaled NVFP4 matmul kernel: the shared-memory matrix descriptor (MMA operands and
 * tcgen05.cp sources), the block-scaled instruction descriptor (kind::mxf4nvf4 / mxf4 /
 * mxf8f6f4), the dense instruction descriptor (kind::f16 / tf32 / f8f6f4 / i8), and Tensor
 * Memory addresses.
 *
 * Plain C11, no MLIR/LLVM/CUDA dependency, no hidden state: every function is a pure
 * function of its arguments. Each encoder uses explicit shifts and masks with one named
 * constant per field (lib/Target/Descriptors.c); the bit tables below cite the PTX ISA
 * (section numbers of PTX ISA 8.8/9.0, "Tensorcore 5th Generation Family Instructions",
 * 9.7.16; PTX ISA 9.1+ renumbers the same sections 9.7.17).
 *
 * ---- Shared memory descriptor (PTX ISA 9.7.16.4.1, "Shared memory descriptor") --------
 *   bits   width  field
 *   0-13   14     matrix start address, encoded as (addr & 0x3FFFF) >> 4
 *   14-15   2     reserved (0)
 *   16-29  14     leading dimension byte offset (relative mode) or byte address
 *                 (absolute mode), same (x & 0x3FFFF) >> 4 encoding
 *   30-31   2     reserved (0)
 *   32-45  14     stride dimension byte offset, same encoding
 *   46-48   3     fixed constant 0b001 (bit 46 set)
 *   49-51   3     matrix base offset
 *   52      1     leading dimension stride mode: 0 relative offset, 1 absolute address
 *   53-60   8     fixed constant 0
 *   61-63   3     swizzle: 0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B
 *                 (3, 5, 7 invalid)
 * Start address, LBO and SBO must be 16-byte aligned (PTX ISA 9.7.16.4.1). The base offset
 * is 0 when the swizzle pattern starts on its natural boundary (1024 B for 128B swizzle,
 * 512 B for 64B, 256 B for 32B), otherwise (pattern start addr >> 7) & 7. Absolute LBO mode
 * (bit 52) is restricted to 128B swizzle (16B atoms), K-major, base offset 0 (PTX ISA
 * 9.7.16.3.1.2.1) and is only supported on sm_103a (9.7.16.4.1.1); the kernel never uses it.
 *
 * LBO for swizzled K-major operands: PTX ISA 9.7.16.3.1.1 says the leading dimension
 * stride is "not used, assumed to be 1" for swizzled K-major layouts (its worked example
 * lists "Encoding of LBO in descriptor: 1 (assumed)"). The field is therefore ignored by
 * the hardware in that mode; the hardware-verified reference kernels write 0, and so does
 * mlirNvfp4OperandSmemDescriptor (constant part 0x4000404000000000). Writing 1 (as some
 * CUTLASS-derived code does) is equally valid; the validator accepts any in-range value.
 *
 * ---- Instruction descriptor, block-scaled kinds (PTX ISA 9.7.16.4.2, tables for
 *      .kind::mxf8f6f4 and for .kind::mxf4 / .kind::mxf4nvf4) ----------------------------
 *   bits   field                              mxf8f6f4            mxf4 / mxf4nvf4
 *   0-1    reserved                           0                   0
 *   2      sparsity                           dense 0, sparse 1   dense 0, sparse 1
 *   3      reserved                           0                   0
 *   4-5    matrix B scale factor data id      0-3                 0 or 2 (0 for block16)
 *   6      reserved                           0                   0
 *   7-9    atype                              E4M3 0, E5M2 1,     E2M1 1
 *                                             E2M3 3, E3M2 4,
 *                                             E2M1 5
 *   10-12  btype (mxf4*: bits 10-11, 12 = 0)  as atype            E2M1 1
 *   13     negate A                           0/1                 0/1
 *   14     negate B                           0/1                 0/1
 *   15     transpose A (MN-major)             0/1 (8-bit only)    0 (K-major only)
 *   16     transpose B (MN-major)             0/1 (8-bit only)    0 (K-major only)
 *   17-22  N >> 3                             N >> 3              N >> 3
 *   23     scale type (both SFA and SFB)      UE8M0 1             mxf4: UE8M0 1;
 *                                                                 mxf4nvf4: UE4M3 0/UE8M0 1
 *   24-26  reserved                           0                   0
 *   27-28  M >> 7                             M >> 7              M >> 7
 *   29-30  matrix A scale factor data id      0-3                 0 or 2 (0 for block16)
 *   31     mxf4*: K dimension (0: dense K=64 / sparse K=128; 1: dense K=96, sm_103a only);
 *          mxf8f6f4: reserved. Always encoded 0 here.
 * Shapes (PTX ISA 9.7.16.2.1, "Matrix Shape", block-scaled kinds, no .ws):
 *   cta_group::1: M = 128 only, N = 8..256 in steps of 8;
 *   cta_group::2: M = 128 or 256, N = 16..256 in steps of 16 (sparse: M = 256 only).
 * M = 64 is not a block-scaled shape (and is not even representable: bits 27-28 hold
 * M >> 7). K per MMA: 64 (mxf4*) / 32 (mxf8f6f4) dense, doubled when sparse.
 * Scale vector sizes (PTX ISA 9.7.16.10.7.1): mxf8f6f4: UE8M0, block32 (scale_vec::1X);
 * mxf4: UE8M0, block32 (2X); mxf4nvf4: UE8M0 with block32 (2X) or block16 (4X), UE4M3 with
 * block16 (4X) only. Transpose: 4-bit and 6-bit operands must be K-major (PTX ISA
 * 9.7.16.10.3, "Valid Combinations of Type-Size, Major-ness and Swizzling").
 *
 * ---- Scale factors in Tensor Memory for block16 (scale_vec::4X), K = 64 per MMA --------
 * (PTX ISA 9.7.16.10.7.2.3 / 9.7.16.10.7.3.3, "Layout of the Scale Factor A/B Matrix for
 * scale_vec::4X/block16"; 9.7.16.10.7: scale factors "need to be duplicated to all 32 lane
 * partitions of tensor memory"; 9.7.16.9.2 tcgen05.cp .32x128b with .warpx4.)
 *   * One TMEM column (32 bits) of one lane holds the 4 scale factors (bytes 0..3 = the
 *     four 16-element K blocks of one K=64 MMA) of ONE row of A (for SFA) or ONE column of
 *     B (an N index, for SFB). "4-byte aligned sub-column": the scale factor id must be 0.
 *   * Row r of the operand (r = M index for SFA, N index for SFB) lives in lane r % 32 of
 *     column (sf_addr.column + r / 32), replicated in all four 32-lane sub-partitions
 *     (lanes r%32, 32 + r%32, 64 + r%32, 96 + r%32).
 *   * The MMA reads ceil(rows / 32) consecutive columns starting at the column of the
 *     [sfa]/[sfb] TMEM address operand (lane field 0):
 *         SFA, M = 128 .............. 4 columns
 *         SFB, N = 64 ............... 2 columns
 *         SFB, N = 128 .............. 4 columns
 *         SFB, N = 192 .............. 6 columns   (spans two 128-row atoms)
 *         SFB, N = 256 .............. 8 columns   (spans two 128-row atoms)
 *   * One 512-B scale-factor atom (128 rows x 4 bytes, byte (r%32)*16 + (r/32)*4 + k) is
 *     copied by tcgen05.cp.cta_group::1.32x128b.warpx4: source row i (16 B) goes to lane
 *     i of every sub-partition, bytes 4c..4c+3 to column c, so the atom fills exactly 4
 *     columns in the layout above. For N > 128 the atom holding rows 128..255 must be
 *     copied to the 4 columns right after the first atom's (+4), so per K=64 step SFB
 *     needs 8 columns (N = 192 reads 6 of them) and the per-step column stride of the SFB
 *     buffer is 4 * (number of 128-row atoms) = 8, not 4 (16 -> 32 columns per 256-K
 *     stage). SFA (M = 128) and SFB with N <= 128 stay at 4 columns per step.
 *   * A tile of N = 64 that starts at row 64 of a 128-row atom reads rows 64..127, i.e.
 *     columns 2 and 3 of that atom: its [sfb] address is atom_column + 2
 *     (= mlirNvfp4ScaleFactorTmemColumnOffset(64)). Likewise an N = 192 tile starting at
 *     row 64 of a two-atom (256-row) group uses atom_column + 2 and reads 6 columns.
 *     The offset must be a whole column: the tile must start at a multiple of 32 rows.
 *   * The scale factor id (bits 4-5 / 29-30) only selects bytes/halves inside a column for
 *     block32 (1X: byte 0-3; 2X: halfword 0 or 2); for block16 it is 0.
 */
#ifndef NVFP4_C_DESCRIPTORS_H
#define NVFP4_C_DESCRIPTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- shared memory descriptor --------------------------------------------------------- */

/* Swizzle modes (bits 61-63 of the shared memory descriptor). */
typedef enum MlirNvfp4Swizzle {
  MLIR_NVFP4_SWIZZLE_NONE = 0,
  MLIR_NVFP4_SWIZZLE_128B_BASE32B = 1,
  MLIR_NVFP4_SWIZZLE_128B = 2,
  MLIR_NVFP4_SWIZZLE_64B = 4,
  MLIR_NVFP4_SWIZZLE_32B = 6
} MlirNvfp4Swizzle;

typedef struct MlirNvfp4SmemDescriptor {
  uint32_t startAddress;      /* shared-memory byte address (bits 0-13 hold addr>>4) */
  uint32_t leadingByteOffset; /* bytes (encoded >>4), or absolute address when lboAbsolute */
  uint32_t strideByteOffset;  /* bytes (encoded >>4) */
  uint32_t baseOffset;        /* 3-bit matrix base offset */
  bool lboAbsolute;           /* bit 52 */
  MlirNvfp4Swizzle swizzle;   /* bits 61-63 */
} MlirNvfp4SmemDescriptor;

/* Byte values that the descriptor can hold: 16-byte aligned and below 2^18 (the ISA's
 * matrix-descriptor-encode keeps address bits 4..17). */
#define MLIR_NVFP4_SMEM_DESC_BYTE_ALIGN 16u
#define MLIR_NVFP4_SMEM_DESC_BYTE_LIMIT 0x40000u

/* Encode. Byte fields are encoded as (x & 0x3FFFF) >> 4; validate first. */
uint64_t mlirNvfp4EncodeSmemDescriptor(MlirNvfp4SmemDescriptor d);
/* Decode the fields back (bytes). Fixed and reserved bits are not represented. */
MlirNvfp4SmemDescriptor mlirNvfp4DecodeSmemDescriptor(uint64_t bits);
/* Validation: alignment (16 B), ranges (14-bit fields after >>4), base offset, swizzle
 * legal, absolute-LBO restrictions; writes a message ("" when valid). msg may be NULL. */
bool mlirNvfp4SmemDescriptorIsValid(MlirNvfp4SmemDescriptor d, char *msg, size_t msgSize);
/* Checks a raw 64-bit descriptor: fixed bits 46-48 == 0b001, bits 53-60 == 0, reserved
 * bits 14-15 and 30-31 == 0, legal swizzle code. */
bool mlirNvfp4SmemDescriptorBitsAreWellFormed(uint64_t bits, char *msg, size_t msgSize);

/* The K-major SWIZZLE_128B operand descriptor for a 1024-B aligned stage of rows of 128 B:
 * LBO 0 (ignored by hardware for swizzled K-major), SBO 1024 (8 rows x 128 B), base offset
 * 0. Advancing one K=64 FP4 MMA step (32 B) inside the stage adds 2 to the descriptor;
 * the base offset stays 0 because the swizzle pattern still starts at the stage.
 * Constant part (address 0): 0x4000404000000000. */
uint64_t mlirNvfp4OperandSmemDescriptor(uint32_t smemAddress);
/* tcgen05.cp .32x128b source descriptor for one 512-B scale-factor atom: no swizzle, LBO 0
 * (a single 16-B column), SBO 128 B (8 rows x 16 B), fixed bit 46. Constant part
 * 0x0000400800000000; consecutive atoms (+512 B) add 32. */
uint64_t mlirNvfp4ScaleFactorCopyDescriptor(uint32_t smemAddress);

/* ---- instruction descriptor: block-scaled kinds ------------------------------------- */

typedef enum MlirNvfp4MmaKind {
  MLIR_NVFP4_KIND_MXF4NVF4,
  MLIR_NVFP4_KIND_MXF4,
  MLIR_NVFP4_KIND_MXF8F6F4
} MlirNvfp4MmaKind;
typedef enum MlirNvfp4ScaleType {
  MLIR_NVFP4_SCALE_UE4M3,
  MLIR_NVFP4_SCALE_UE8M0
} MlirNvfp4ScaleType;
typedef enum MlirNvfp4Major { MLIR_NVFP4_MAJOR_K = 0, MLIR_NVFP4_MAJOR_MN = 1 } MlirNvfp4Major;

/* ISA format codes (bits 7-9 / 10-12). */
#define MLIR_NVFP4_MXF4_FORMAT_E2M1 1u     /* kind::mxf4, kind::mxf4nvf4 */
#define MLIR_NVFP4_MXF8F6F4_FORMAT_E4M3 0u /* kind::mxf8f6f4 (and kind::f8f6f4) */
#define MLIR_NVFP4_MXF8F6F4_FORMAT_E5M2 1u
#define MLIR_NVFP4_MXF8F6F4_FORMAT_E2M3 3u
#define MLIR_NVFP4_MXF8F6F4_FORMAT_E3M2 4u
#define MLIR_NVFP4_MXF8F6F4_FORMAT_E2M1 5u

typedef struct MlirNvfp4BlockScaledInstrDescriptor {
  MlirNvfp4MmaKind kind;
  uint32_t m, n;                /* cta_group::1: M = 128, N = 8..256 step 8 */
  uint32_t aFormat, bFormat;    /* ISA codes (E2M1 = 1 for mxf4nvf4 etc.) */
  MlirNvfp4ScaleType scaleType;
  uint32_t scaleVecSize;        /* 16 (block16 / scale_vec::4X) or 32 (block32) */
  MlirNvfp4Major aMajor, bMajor;
  bool negateA, negateB;
  uint32_t sfaId, sfbId;        /* scale-factor data ids (2 bits each) */
  bool sparse;
} MlirNvfp4BlockScaledInstrDescriptor;

/* Encode (no validation; fields are masked to their widths). */
uint32_t mlirNvfp4EncodeBlockScaledInstrDescriptor(MlirNvfp4BlockScaledInstrDescriptor d);
/* Decode; kind and scaleVecSize are not in the bits (they are instruction qualifiers). */
MlirNvfp4BlockScaledInstrDescriptor mlirNvfp4DecodeBlockScaledInstrDescriptor(
    MlirNvfp4MmaKind kind, uint32_t scaleVecSize, uint32_t bits);
/* Legal-combination check for cta_group::1 (the kernel's configuration). */
bool mlirNvfp4BlockScaledInstrDescriptorIsValid(MlirNvfp4BlockScaledInstrDescriptor d,
                                                char *msg, size_t msgSize);
/* Same for an explicit cta_group (1 or 2). */
bool mlirNvfp4BlockScaledInstrDescriptorIsValidForCtaGroup(
    MlirNvfp4BlockScaledInstrDescriptor d, uint32_t ctaGroup, char *msg, size_t msgSize);
/* Convenience: the descriptor the kernel uses: mxf4nvf4, E2M1 x E2M1, UE4M3, block16, both
 * K-major, no negation, ids 0, dense, for the given M and N (not validated: only M = 128
 * is a legal block-scaled cta_group::1 shape). M=N=128 gives 0x08200480. */
uint32_t mlirNvfp4Mxf4Nvf4InstrDescriptor(uint32_t m, uint32_t n);

/* ---- instruction descriptor: dense kinds (PTX ISA 9.7.16.4.2, table for .kind::tf32,
 *      .kind::f16, .kind::f8f6f4 and .kind::i8) -------------------------------------------
 *   bits 0-1 sparsity selector, 2 sparsity, 3 saturate (i8 only), 4-5 dtype (F16 0, F32 1,
 *   S32 2), 6 reserved, 7-9 atype, 10-12 btype, 13/14 negate A/B, 15/16 transpose A/B,
 *   17-22 N >> 3, 23 reserved, 24-28 M >> 4, 29 reserved, 30-31 max shift (.ws only; 0).
 * Shapes, cta_group::1, no .ws: M = 64 or 128; N = 8..256 step 8 (i8: 8, 16, 24, 32, then
 * steps of 16 up to 256). */
typedef enum MlirNvfp4DenseKind {
  MLIR_NVFP4_DENSE_KIND_F16,
  MLIR_NVFP4_DENSE_KIND_TF32,
  MLIR_NVFP4_DENSE_KIND_F8F6F4,
  MLIR_NVFP4_DENSE_KIND_I8
} MlirNvfp4DenseKind;

#define MLIR_NVFP4_DTYPE_F16 0u
#define MLIR_NVFP4_DTYPE_F32 1u
#define MLIR_NVFP4_DTYPE_S32 2u
#define MLIR_NVFP4_F16_FORMAT_F16 0u  /* kind::f16 */
#define MLIR_NVFP4_F16_FORMAT_BF16 1u
#define MLIR_NVFP4_TF32_FORMAT_TF32 2u /* kind::tf32 */
#define MLIR_NVFP4_I8_FORMAT_U8 0u     /* kind::i8 */
#define MLIR_NVFP4_I8_FORMAT_S8 1u

typedef struct MlirNvfp4DenseInstrDescriptor {
  MlirNvfp4DenseKind kind;
  uint32_t m, n;
  uint32_t dFormat;          /* MLIR_NVFP4_DTYPE_* */
  uint32_t aFormat, bFormat; /* ISA codes for the kind */
  MlirNvfp4Major aMajor, bMajor;
  bool negateA, negateB;
  bool saturate;             /* i8 only */
  bool sparse;
  uint32_t sparsitySelector; /* 0-3, only when sparse */
} MlirNvfp4DenseInstrDescriptor;

uint32_t mlirNvfp4EncodeDenseInstrDescriptor(MlirNvfp4DenseInstrDescriptor d);
/* Legal-combination check for cta_group::1 without .ws. */
bool mlirNvfp4DenseInstrDescriptorIsValid(MlirNvfp4DenseInstrDescriptor d, char *msg,
                                          size_t msgSize);

/* ---- fields a kernel fills in at run time ------------------------------------------------
 * A generated kernel knows a descriptor's constant part at compile time (the encoders
 * above, called with the run-time field 0) and ORs in the run-time field as
 * ((value >> granuleShift) & mask) << shift, with the shifts and masks the encoders use:
 *   shared-memory descriptor start address: desc(addr) = desc(0) | ((addr >> 4) & 0x3FFF)
 *   block-scaled instruction descriptor N:   idesc(m, n) = idesc(m, 0) | ((n >> 3) & 0x3F) << 17
 * test/Target checks both identities against the encoders for every legal value. */
typedef struct MlirNvfp4RuntimeField {
  uint32_t shift;        /* bit position of the field */
  uint32_t granuleShift; /* the value is stored >> granuleShift */
  uint64_t mask;         /* field mask after the granule shift */
} MlirNvfp4RuntimeField;
MlirNvfp4RuntimeField mlirNvfp4SmemDescriptorStartField(void);
MlirNvfp4RuntimeField mlirNvfp4BlockScaledInstrDescriptorNField(void);
/* Applies a field to a value on the host (what the kernel computes at run time). */
uint64_t mlirNvfp4RuntimeFieldApply(MlirNvfp4RuntimeField f, uint64_t value);

/* ---- Tensor Memory addresses (PTX ISA 9.7.16.1.1: bits 31-16 lane, 15-0 column) ------ */

#define MLIR_NVFP4_TMEM_LANES 128u
#define MLIR_NVFP4_TMEM_COLUMNS 512u

/* Tensor memory address: (lane << 16) | column, lane < 128, column < 512. */
uint32_t mlirNvfp4TmemAddress(uint32_t lane, uint32_t column);
uint32_t mlirNvfp4TmemLane(uint32_t addr);
uint32_t mlirNvfp4TmemColumn(uint32_t addr);
bool mlirNvfp4TmemAddressIsValid(uint32_t lane, uint32_t column, char *msg,
                                 size_t msgSize);

/* ---- scale-factor TMEM layout helpers (block16, see the table above) ---------------- */

/* Columns one K=64 MMA reads for `rows` rows of SFA (rows = M) or SFB (rows = N):
 * ceil(rows / 32). */
uint32_t mlirNvfp4ScaleFactorTmemColumnsPerMma(uint32_t rows);
/* Column offset, from the first column of the copied atom(s), at which the scale factors
 * of operand row `firstRow` start (firstRow / 32); an N=64 tile at row 64 of its atom
 * gives 2. `firstRow` must be a multiple of 32 to be usable as an MMA [sfb] address. */
uint32_t mlirNvfp4ScaleFactorTmemColumnOffset(uint32_t firstRow);

#ifdef __cplusplus
}
#endif

#endif /* NVFP4_C_DESCRIPTORS_H */
