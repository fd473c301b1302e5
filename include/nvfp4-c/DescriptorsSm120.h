/* DescriptorsSm120.h — the pure C layout arithmetic of the sm_120a kernel (lib/Conversion/Sm120,
 * docs/kernel-sm120a.md): which shared-memory row each lane's ldmatrix address names, which
 * FP4 element each register of the block-scaled mma.sync fragments holds, and how the scale
 * factors are spread over the lanes and chosen with the thread-id selectors. The generator
 * emits the same arithmetic (its comments name these functions); test/Target/
 * DescriptorSm120Tests.c checks them against the PTX ISA's fragment tables.
 *
 * Plain C11, no MLIR/LLVM/CUDA dependency, no state.
 *
 * ---- the instruction (PTX ISA 9.0, 9.7.14.5.14) ------------------------------------------
 *   mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X
 *       .f32.e2m1.e2m1.f32.ue4m3 {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3},
 *       sfa, {byte-id-a, thread-id-a}, sfb, {byte-id-b, thread-id-b}
 * Notation: lane L, g = L / 4 (groupID), t = L % 4 (threadID_in_group).
 *   A (16 x 64, K-major), element e = 8 r + j of register r (nibble j, bits 4j..4j+3):
 *       row = g + 8 (r % 2), k = 8 t + j + 32 (r / 2)                  (ISA 9.7.14.5.11)
 *   B (64 x 8, each column K-contiguous), element e = 8 r + j of register r:
 *       k = 8 t + j + 32 r, col = g
 *   C/D (16 x 8 f32), register i: row = g + 8 (i / 2), col = 2 t + i % 2
 * Scale factors (9.7.14.3, scale_vec::4X, ue4m3): byte j of a scale register covers K
 * j*16 .. j*16+15; byte-id must be 0; thread-id-a in {0, 1} selects the lane pair t in
 * {2 tid, 2 tid + 1} of every quad, whose lane 4 (m % 8) + 2 tid + m / 8 supplies row m;
 * thread-id-b in {0..3} selects the lane t = tid of every quad, whose lane 4 n + tid
 * supplies column n. (The pair member of a row — m / 8 — is the reading of CUTLASS's
 * SFALayout and of a third-party hardware probe; the ISA states it in a figure.)
 *
 * ---- how the kernel fills them -----------------------------------------------------------
 * Operands: ldmatrix.sync.aligned.m8n8.x4.shared.b16 on the 128-byte-swizzled stage (a row of
 * 128 B = 256 FP4 of K; 16-byte chunk c of row r stored at chunk c ^ (r % 8)): matrix i's
 * row j is addressed by lane 8 i + j, and lane L receives 4 bytes (8 FP4) of row L / 4 of
 * each matrix at byte 4 (L % 4). With two FP4 per byte (element 2i in the low nibble), that
 * word *is* the fragment register: nibble j = element k0 + j.
 *   A (m16 block, 64-K step): lane L names row L % 16, chunk half L / 16 (K bytes 0-15 or
 *       16-31 of the step): matrices 0..3 = a0..a3.
 *   B (two n8 blocks, 64-K step): lane L names row L % 8 + 8 (L / 16), half (L / 8) % 2:
 *       matrices 0, 1 = b0, b1 of the first block, 2, 3 = b0, b1 of the second.
 * Scale factors, per 256-K stage of four 64-K steps q (the stage's scale atoms; the four
 * K-block scales of one row for one step are one 32-bit word of the blocked layout):
 *   A: register 2 mb + u (u = 0, 1) of m16 block mb; lane L loads the word of row
 *      L / 4 + 8 (L % 2) for step 2 u + (L / 2) % 2; the MMA of step q reads register
 *      2 mb + q / 2 with thread-id-a q % 2.
 *   B: register nb of n8 block nb; lane L loads the word of column L / 4 for step L % 4;
 *      the MMA of step q reads it with thread-id-b q.
 * So every selector value is used, and a stage costs 2 loads per m16 block and 1 per n8
 * block per lane instead of 4 and 4.
 */
#ifndef NVFP4_C_DESCRIPTORS_SM120_H
#define NVFP4_C_DESCRIPTORS_SM120_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A shared-memory row of a 16-row operand block and the 16-byte half of a 64-K step. */
typedef struct MlirNvfp4Sm120LdmatrixRow {
  uint32_t row;  /* 0..15 within the block */
  uint32_t half; /* 0: K bytes 0-15 of the step, 1: bytes 16-31 */
} MlirNvfp4Sm120LdmatrixRow;

/* The row lane `lane` addresses in ldmatrix.x4 for the A fragment of an m16 block. */
MlirNvfp4Sm120LdmatrixRow mlirNvfp4Sm120LdmatrixRowA(uint32_t lane);
/* The row lane `lane` addresses in ldmatrix.x4 for the B fragments of two n8 blocks. */
MlirNvfp4Sm120LdmatrixRow mlirNvfp4Sm120LdmatrixRowB(uint32_t lane);

/* Byte offset of 16-byte chunk `chunk` (0..7) of row `row` in a 128-byte-swizzled box
 * of 128-byte rows (1024-byte aligned): row * 128 + 16 (chunk ^ row % 8). */
uint32_t mlirNvfp4Sm120SwizzledChunk(uint32_t row, uint32_t chunk);

/* Where a fragment element lives in the MMA's matrices (the ISA's tables). */
typedef struct MlirNvfp4Sm120Element {
  uint32_t row, col; /* A: (m, k); B: (k, n); C: (m, n) */
} MlirNvfp4Sm120Element;

/* Register `reg` (A 0..3, B 0..1), nibble `nibble` (0..7) of lane `lane`. */
MlirNvfp4Sm120Element mlirNvfp4Sm120FragmentA(uint32_t lane, uint32_t reg, uint32_t nibble);
MlirNvfp4Sm120Element mlirNvfp4Sm120FragmentB(uint32_t lane, uint32_t reg, uint32_t nibble);
/* Accumulator register `reg` (0..3) of lane `lane`. */
MlirNvfp4Sm120Element mlirNvfp4Sm120FragmentC(uint32_t lane, uint32_t reg);

/* The scale register an MMA reads and its thread-id selector (byte-id is always 0). */
typedef struct MlirNvfp4Sm120ScaleSlot {
  uint32_t reg; /* A: 2 mBlock + step / 2; B: nBlock */
  uint32_t tid; /* A: step % 2; B: step */
} MlirNvfp4Sm120ScaleSlot;

MlirNvfp4Sm120ScaleSlot mlirNvfp4Sm120ScaleSlotA(uint32_t mBlock, uint32_t step);
MlirNvfp4Sm120ScaleSlot mlirNvfp4Sm120ScaleSlotB(uint32_t nBlock, uint32_t step);

/* What lane `lane` loads into scale register `reg`: the word of one row (A: of the m16
 * block reg / 2, 0..15; B: a column of n8 block reg, 0..7) for one 64-K step of the stage. */
typedef struct MlirNvfp4Sm120ScaleSource {
  uint32_t row;
  uint32_t step; /* 0..3 */
} MlirNvfp4Sm120ScaleSource;

MlirNvfp4Sm120ScaleSource mlirNvfp4Sm120ScaleSourceA(uint32_t lane, uint32_t reg);
MlirNvfp4Sm120ScaleSource mlirNvfp4Sm120ScaleSourceB(uint32_t lane, uint32_t reg);

/* Byte offset, in a stage's scale factors of one 128-row atom row (4 atoms of 512 B, one
 * per 64-K step), of the 4-byte word holding the four K-block scales of row `row`
 * (0..127) for step `step`: 512 step + (row % 32) 16 + (row / 32) 4 (docs/format.md, "The blocked scale-factor layout"). */
uint32_t mlirNvfp4Sm120ScaleWord(uint32_t row, uint32_t step);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_DESCRIPTORS_SM120_H */
