/* KernelABI.h — the kernel ABI shared by the lowering (field offsets it loads from) and
 * the runtime (which packs the struct): the by-value parameter block of the generated
 * grouped-matmul kernels and the self-describing metadata table carried in the cubin.
 *
 * Plain C11, no MLIR/LLVM/CUDA dependency. Defined once here (docs/design.md, "The kernel
 * ABI"); the lowering uses the NVFP4_ABI_* offsets, the runtime uses the same offsets to
 * pack.
 *
 * A kernel of the pointer-array form compiled for G groups reads a *group table*:
 *
 *   table offset          size        what
 *   0                     640 * G     per-group tensor maps: A, B, SFA, SFB, C (128 B each)
 *   640 G                 64 * G      per-group records (nvfp4_abi_group fields below)
 *
 * Since ABI 6 the table always lives in device memory: the parameter block is the 64-byte
 * header alone (NVFP4_ABI_PARAM_BYTES, whatever G), and the header's `table` field holds
 * the address of the table (64-byte aligned, written by the host in stream order before the
 * launch, never by a kernel: the kernel may read it before griddepcontrol.wait). A
 * contiguous-form kernel's block is the header and its problem record (128 bytes), its
 * shared tensor maps in a device table the same way (below). Every parameter block is at
 * most 256 bytes, so a launch copies little (a cached launch of a 5,696-byte block cost
 * 4.71 us of host time on the H200).
 *
 * Tensor maps sit at 64-byte aligned offsets of the table, as TMA requires; the kernel
 * parameter is declared `.param .align 64` (nvvm.grid_constant, llvm.byval).
 *
 * Groups are scheduled in table order: the runtime writes them sorted by descending M (so
 * the largest groups start first); the kernel never needs a group's original index.
 *
 * Tensor maps patched by the kernel (header flag NVFP4_ABI_FLAG_PATCH_TMAPS). So that a
 * call whose only change is new pointers costs the host no tensor-map work, the runtime
 * may send raw addresses instead of maps: the first 8 bytes of tensor-map slot t of group
 * g hold the u64 device address of that tensor (0: no map), and the maps themselves
 * ("templates", encoded by the runtime for the group's shapes with any address) lie in
 * device memory at tmap_area + 640 g + 128 t (table order). Before its first TMA, CTA c
 * copies each template to tmap_area + 640 G + 640 (G c + g) + 128 t (G = compiled group
 * count), replaces its global address with the raw one (tensormap.replace) and releases it
 * to the tensormap proxy (fence.proxy.tensormap::generic.release.gpu); every thread that
 * issues TMA on a map acquires it first (fence.proxy.tensormap::generic.acquire.gpu). The
 * area holds 640 G (1 + CTAs) bytes, 128-byte aligned.
 */
#ifndef NVFP4_C_KERNELABI_H
#define NVFP4_C_KERNELABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the parameter block and metadata layout below. Bump on any change.
 * 3: C element types and per-group alpha (metadata c_type, epilogue_flags; group record
 *    alpha pointer), and the contiguous (MoE) form (metadata form; its parameter block).
 * 4: the kernel's cost-model constants (metadata cost_decode_rows, cost_token_share), which
 *    the runtime's variant choice reads instead of its own copy.
 * 5: the target the kernel was generated for (metadata source_target), which an emulation
 *    or proxy build keeps when it retargets the record to sm_90a.
 * 6: parameter blocks of at most 256 bytes: the group table (pointer-array form) and the
 *    shared tensor maps (contiguous form) always live in device memory at HDR_TABLE; the
 *    block is the 64-byte header (pointer-array) or header + problem record (128 bytes,
 *    contiguous). No inline table any more (param_bytes 64 / 128 for every kernel). */
#define NVFP4_ABI_VERSION 6u

/* ---- parameter block ------------------------------------------------------------ */

#define NVFP4_ABI_HEADER_BYTES 64u
#define NVFP4_ABI_TMAP_BYTES 128u          /* one CUtensorMap */
#define NVFP4_ABI_GROUP_TMAPS 5u           /* A, B, SFA, SFB, C */
#define NVFP4_ABI_GROUP_TMAPS_BYTES 640u
#define NVFP4_ABI_GROUP_RECORD_BYTES 64u
#define NVFP4_ABI_GROUP_BYTES (NVFP4_ABI_GROUP_TMAPS_BYTES + NVFP4_ABI_GROUP_RECORD_BYTES)
#define NVFP4_ABI_PARAM_ALIGN 64u
#define NVFP4_ABI_PARAM_BYTES 64u          /* pointer-array form: the header alone */
#define NVFP4_ABI_MAX_PARAM_BYTES 256u     /* the largest block of any form (ABI 6) */
#define NVFP4_ABI_TABLE_ALIGN 64u          /* the device table's alignment (TMA maps) */
#define NVFP4_ABI_MAX_GROUPS 1024u         /* groups of one op */
/* The largest M, N or K (and, for the contiguous form, E x N): every tensor-map coordinate
 * and row index the kernels build is a signed 32-bit number, with a box (up to 256 rows,
 * 512 elements of K) past it: 2^31 - 1 - 512. */
#define NVFP4_ABI_MAX_DIM 2147483135u

/* Header fields (byte offsets from the start of the parameter block). */
#define NVFP4_ABI_HDR_ABI_VERSION 0u       /* u32: NVFP4_ABI_VERSION */
#define NVFP4_ABI_HDR_NUM_GROUPS 4u        /* u32: groups in this launch (<= compiled G) */
#define NVFP4_ABI_HDR_TOTAL_TILES 8u       /* u32: sum over groups of tiles_m * tiles_n */
#define NVFP4_ABI_HDR_FLAGS 12u            /* u32: NVFP4_ABI_FLAG_* */
#define NVFP4_ABI_HDR_WORKSPACE 16u        /* u64: device workspace (emulation: TMEM) */
#define NVFP4_ABI_HDR_WORKSPACE_BYTES 24u  /* u64: its size in bytes */
#define NVFP4_ABI_HDR_TABLE 32u            /* u64: device address of the table (group table,
                                              or the contiguous form's tensor maps) */
#define NVFP4_ABI_HDR_TMAP_AREA 40u        /* u64: patched tensor maps (see above), or 0 */
/* The fused epilogue's activation dump (a testing aid, honoured only by kernels whose
 * metadata flags hold NVFP4_META_FLAG_DEBUG_ACTIVATIONS; 0 in every other launch): the
 * fp32 SwiGLU activation h of C element (row, col) of table slot s (the contiguous form:
 * of expert s, row counted from the expert's first row r0) is written to
 *   HDR_DEBUG_ACT + s * HDR_DEBUG_ACT_STRIDE + 4 * ((r0 + row) * ldc + col)
 * (ldc in C elements; r0 = 0 in the pointer-array form, stride 0 in the contiguous form),
 * for every element the kernel writes to C. */
#define NVFP4_ABI_HDR_DEBUG_ACT 48u        /* u64: activation buffer (debug kernels), or 0 */
#define NVFP4_ABI_HDR_DEBUG_ACT_STRIDE 56u /* u64: bytes between table slots' activations */

/* Header flags. */
#define NVFP4_ABI_FLAG_PATCH_TMAPS 0x1u    /* slots hold raw addresses; the kernel patches
                                              the templates at HDR_TMAP_AREA */

/* Per-group record fields (byte offsets from the start of the record). "M role" and "N
 * role" are the MMA sides (KernelConfig.h): rows of A and B in the AB orientation, rows
 * of B and A in SWAP_AB. */
#define NVFP4_ABI_GRP_M 0u           /* u32: rows of A and C */
#define NVFP4_ABI_GRP_N 4u           /* u32: rows of B, columns of C */
#define NVFP4_ABI_GRP_K 8u           /* u32: reduction length, multiple of 64 */
#define NVFP4_ABI_GRP_TILE_START 12u /* u32: exclusive prefix sum of tiles before this group */
#define NVFP4_ABI_GRP_TILES_M 16u    /* u32: tiles along the M role, ceil(rows / mma M) */
#define NVFP4_ABI_GRP_LDC 20u        /* u32: row stride of C in elements */
#define NVFP4_ABI_GRP_C_PTR 24u      /* u64: device address of C (elements of the C type) */
#define NVFP4_ABI_GRP_TILE_N 32u     /* u32: N of this group's MMAs (the N role's tile rows) */
#define NVFP4_ABI_GRP_RESERVED 36u   /* 4 bytes, 0 */
#define NVFP4_ABI_GRP_ALPHA_PTR 40u  /* u64: device address of the group's fp32 alpha (alpha
                                        variants; 0 otherwise) */
/* The fused SwiGLU + NVFP4 epilogue (metadata epilogue flag NVFP4_META_EFLAG_SWIGLU_NVFP4;
 * 0 for every other kernel): the group's N is B's 2I gate/up rows, C is M x I FP4 (ldc in
 * FP4 elements, ldc / 2 bytes per row), and the kernel writes the block scales of C into
 * SFC in the blocked layout (docs/format.md; R = M, S = I / 16). */
#define NVFP4_ABI_GRP_SFC_PTR 48u    /* u64: device address of the group's SFC (16-B aligned) */
#define NVFP4_ABI_GRP_GS_PTR 56u     /* u64: device address of the group's fp32 global scale */

/* Tensor maps of one group (byte offsets within the group's 640-byte slot). */
#define NVFP4_ABI_TMAP_A 0u
#define NVFP4_ABI_TMAP_B 128u
#define NVFP4_ABI_TMAP_SFA 256u
#define NVFP4_ABI_TMAP_SFB 384u
#define NVFP4_ABI_TMAP_C 512u

/* Offsets inside the group table (from the table's start). */
static inline uint32_t nvfp4_abi_tmaps_offset(uint32_t group) {
  return NVFP4_ABI_GROUP_TMAPS_BYTES * group;
}
static inline uint32_t nvfp4_abi_record_offset(uint32_t num_groups, uint32_t group) {
  return NVFP4_ABI_GROUP_TMAPS_BYTES * num_groups + NVFP4_ABI_GROUP_RECORD_BYTES * group;
}
static inline uint32_t nvfp4_abi_table_bytes(uint32_t num_groups) {
  return NVFP4_ABI_GROUP_BYTES * num_groups;
}

/* ---- the contiguous (MoE) form ---------------------------------------------------------
 *
 * A kernel of the contiguous form (metadata form = NVFP4_META_FORM_CONTIGUOUS) serves one
 * op with E experts: A holds every token (M rows, sorted by expert), B is E x N x K, C is
 * M x N, and expert e owns rows offsets[e] .. offsets[e+1] - 1 of A and C, read by the
 * kernel from device memory (E + 1 i32). Its parameter block (128 bytes) has no group
 * table: the 64-byte header (num_groups = E, total_tiles 0: the kernel counts the tiles,
 * tmap_area 0: the shared maps are never patched; table: the device address of the maps
 * below) and one 64-byte problem record. A handful of tensor maps shared by all experts
 * sit in the device table at HDR_TABLE (64-byte aligned, written by the host in stream
 * order like the pointer-array form's group table):
 *
 *   offset   size       what (parameter block)
 *   0        64         the header above (workspace at 16 as for every kernel)
 *   64       8          u64 offsets: device address of E + 1 i32 row offsets (4-B aligned)
 *   72       8          u64 alpha: device address of E fp32 (alpha variants; else 0)
 *   80       8          u64 C: device address of C
 *   88       20         u32 M, N, K, ldc, sfa atom rows; 108..111 reserved, 0
 *   112      8          u64 SFC (fused epilogue; else 0): the block scales of C in the
 *                       expert-segment layout of SFA (expert e from atom row sum over
 *                       j < e of ceil(tokens_j / 128)), ceil(I / 64) atoms per atom row
 *   120      8          u64 gs (fused epilogue; else 0): E fp32 global scales
 *
 *   offset   size       what (device table at HDR_TABLE)
 *   128 i    128        tensor map i: A, B, SFA, SFB, C (zero slot for direct-store
 *                       variants), then for a DYNAMIC_N variant one more A map per
 *                       smaller N-role box (nvfp4_abi_moe_ladder below)
 *
 * B is one 2-D map over E * N rows (expert e's rows start at e * N), SFB one map over
 * E * ceil(N/128) atom rows, SFA one map over the sfa atom rows: expert e's scale factors
 * start at atom row sum over j < e of ceil(tokens_j / 128) (each expert's segment starts
 * on a 128-row atom, the vLLM / CUTLASS MoE padding). See docs/kernel-sm100a.md for what
 * the kernel does with offsets that decrease or point past M.
 */
#define NVFP4_ABI_MOE_OFFSETS 64u
#define NVFP4_ABI_MOE_ALPHA 72u
#define NVFP4_ABI_MOE_C_PTR 80u
#define NVFP4_ABI_MOE_M 88u          /* u32: rows of A and C (the token capacity) */
#define NVFP4_ABI_MOE_N 92u
#define NVFP4_ABI_MOE_K 96u
#define NVFP4_ABI_MOE_LDC 100u       /* u32: row stride of C in elements */
#define NVFP4_ABI_MOE_SFA_ROWS 104u  /* u32: 128-row atoms the sfa buffer holds */
#define NVFP4_ABI_MOE_SFC_PTR 112u   /* u64: SFC of the fused epilogue, or 0 */
#define NVFP4_ABI_MOE_GS_PTR 120u    /* u64: E fp32 global scales of the fused epilogue, or 0 */
#define NVFP4_ABI_MOE_PARAM_BYTES 128u /* the contiguous form's parameter block */
#define NVFP4_ABI_MOE_MAX_TMAPS 12u
/* Map slots of the device table (128 B each). */
#define NVFP4_ABI_MOE_TMAP_A 0u
#define NVFP4_ABI_MOE_TMAP_B 1u
#define NVFP4_ABI_MOE_TMAP_SFA 2u
#define NVFP4_ABI_MOE_TMAP_SFB 3u
#define NVFP4_ABI_MOE_TMAP_C 4u
#define NVFP4_ABI_MOE_TMAP_LADDER 5u /* first extra A map of a DYNAMIC_N variant */

/* The N-role box ladder of a DYNAMIC_N variant of the contiguous form: an expert with
 * `rows` tokens (1 <= rows <= tile_n) runs MMAs of N = the smallest n_align * 2^i >= rows,
 * or tile_n when that is not below tile_n; A map slot 0 has box rows tile_n / cta_group,
 * slot NVFP4_ABI_MOE_TMAP_LADDER + i box rows n_align * 2^i / cta_group. Returns the
 * number of ladder maps (the n_align * 2^i below tile_n). A BALANCED_N variant (sm_90a)
 * splits an expert's rows into equal tiles of T = 16 j rows instead (as the runtime splits
 * a group, nvfp4rt_group_tile_n) and loads a token tile as one box per set bit i of j from
 * ladder map i (or slot 0 when T is tile_n): the same maps. */
static inline uint32_t nvfp4_abi_moe_ladder(uint32_t tile_n, uint32_t n_align) {
  uint32_t n = 0;
  for (uint32_t v = n_align; v && v < tile_n; v *= 2) ++n;
  return n;
}
/* Bytes of a contiguous-form device table with `maps` tensor maps. */
static inline uint32_t nvfp4_abi_moe_table_bytes(uint32_t maps) {
  return NVFP4_ABI_TMAP_BYTES * maps;
}
/* Worst-case 128-row scale-factor atoms of M tokens split over E experts, each expert's
 * segment starting on an atom: M when M < E, else E + (M - E) / 128. */
static inline uint64_t nvfp4_abi_moe_sfa_atoms(uint64_t m, uint64_t experts) {
  return m < experts ? m : experts + (m - experts) / 128u;
}

/* Tensor-map contract (what the runtime encodes, what the kernel's TMA boxes assume). The
 * box rows of A, B, SFA and SFB depend on the role each tensor plays in the variant
 * (metadata: orientation, m_box_rows, n_box_rows, sfm_atoms, sfn_atoms):
 *   A, B   native:    CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B, dims {K, rows}, stride K/2 B,
 *                     box {256, box rows}, SWIZZLE_128B, OOB fill zero; x in elements.
 *          sm_90 (native sm_90a kernels, emulation, proxy): CU_TENSOR_MAP_DATA_TYPE_UINT8
 *                     over the same bytes,
 *                     dims {K/2, rows}, box {128, box rows}, SWIZZLE_128B; x in bytes.
 *          box rows: M role m_box_rows; N role n_box_rows, or for a variant whose N is
 *          sized per group (flag NVFP4_META_VFLAG_DYNAMIC_N) the group's tile_n divided
 *          by the CTA group size.
 *   SFA, SFB:         CU_TENSOR_MAP_DATA_TYPE_INT64 over the blocked scale tensor,
 *                     dims {ceil(K/64) * 64, ceil(rows/128)} (64 int64 = one 512-B atom),
 *                     box {256, atoms} (4 atoms = one 256-K stage), no swizzle; atoms is
 *                     sfm_atoms for the M role's tensor and sfn_atoms for the N role's.
 *   C (TMA-store variants only; zero slot otherwise): CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
 *                     BFLOAT16 or FLOAT32 (metadata c_type), chunk = 16 / element bytes
 *                     columns, dims {N rounded down to a whole chunk, M}, stride ldc *
 *                     element bytes, box {128 / element bytes, store_box_rows},
 *                     SWIZZLE_128B. A TMA store writes whole 16-byte chunks of a row
 *                     (observed on sm_90: N = 223 also wrote column 223 of the padding),
 *                     so the map stops at the last whole chunk and the kernel stores the
 *                     last columns itself; no map (zero slot) when N is below one chunk.
 */

/* ---- metadata table ----------------------------------------------------------------- */

/* Name of the global symbol (in the cubin) holding variant_count consecutive 256-byte
 * nvfp4_kernel_metadata records, one per kernel of the family. */
#define NVFP4_METADATA_SYMBOL "nvfp4_kernel_metadata"
#define NVFP4_METADATA_MAGIC 0x3446564Eu   /* "NVF4" little-endian */
#define NVFP4_METADATA_BYTES 256u
#define NVFP4_METADATA_MAX_VARIANTS 16u

/* Flags */
#define NVFP4_META_FLAG_EMULATION 0x1u     /* tcgen05 emulated (sm_90a); needs workspace */
#define NVFP4_META_FLAG_PROXY 0x2u         /* timing proxy (sm_90a): tcgen05 ops free, C comes
                                              out zero; no workspace */
#define NVFP4_META_FLAG_PATCH_TMAPS 0x4u   /* the kernel honours NVFP4_ABI_FLAG_PATCH_TMAPS */
#define NVFP4_META_FLAG_EMULATION_MMA_SYNC 0x8u /* an sm_120a kernel on sm_90a: its block-scaled
                                              mma.sync emulated (target sm_90a, no workspace) */
#define NVFP4_META_FLAG_PDL 0x10u         /* programmatic dependent launch: every thread runs
                                              griddepcontrol.wait before its first global
                                              access, and the producer launch_dependents after
                                              its last load; the runtime may launch it with
                                              programmatic stream serialization (runtime
                                              README, "Programmatic dependent launch") */
#define NVFP4_META_FLAG_DEBUG_ACTIVATIONS 0x20u /* a fused-epilogue kernel built to also store
                                              its fp32 activations at HDR_DEBUG_ACT (the
                                              op's unit attribute nvfp4.debug_activations;
                                              for tests, never in production builds) */

/* Variant flags (NVFP4_META_VARIANT_FLAGS). */
#define NVFP4_META_VFLAG_DYNAMIC_N 0x1u    /* MMA N sized per group (record tile_n) */
#define NVFP4_META_VFLAG_BALANCED_N 0x2u   /* with DYNAMIC_N: a group with more N-role rows
                                              than tile_n is split into equal tiles (tile_n
                                              of the group = ceil(rows / ceil(rows / tile_n))
                                              rounded up to n_align), and the table is sorted
                                              by descending tile_n * K (work per tile) */
#define NVFP4_META_VFLAG_STREAM_K 0x4u     /* stream-K schedule ("_sk" variants): the
                                              grid is one CTA per SM, each takes an equal
                                              share of the stage iterations of all tiles
                                              (cost T + a constant of the variant per tile
                                              stage, T = the group's tile_n), splits tiles between
                                              CTAs at stage boundaries; a split tile's
                                              partial sums meet in the workspace
                                              (workspace_per_cta bytes per CTA, zero before
                                              the first launch: flags that the kernel
                                              returns to zero). docs/kernel-sm90a.md */
#define NVFP4_META_VFLAG_SWIGLU_MID_ATOM 0x8u /* with the fused SwiGLU epilogue: I may be any
                                              multiple of 64. A tile whose up half starts 64
                                              rows into an SFB atom (I % 128 == 64) loads
                                              the two atom rows it spans (three SFB boxes
                                              per stage) and multiplies gate and up with two
                                              N = 128 MMAs (sm_100a); every sm_90a fused
                                              kernel has it (each 64-row half loads its own
                                              atom row), and every sm_12x one (its gate and
                                              up halves never straddle an atom row); without
                                              the flag I must be a multiple of 128 */

/* Orientation and epilogue codes (NVFP4_META_ORIENTATION, NVFP4_META_EPILOGUE); the same
 * numbering as KernelConfig.h's enums. */
#define NVFP4_META_ORIENTATION_AB 0u
#define NVFP4_META_ORIENTATION_SWAP_AB 1u
#define NVFP4_META_EPILOGUE_DIRECT_STORE 0u
#define NVFP4_META_EPILOGUE_TMA_STORE 1u

/* C element types (NVFP4_META_C_TYPE; KernelConfig.h's MlirNvfp4OutputType numbering). */
#define NVFP4_META_C_F16 0u
#define NVFP4_META_C_BF16 1u
#define NVFP4_META_C_F32 2u
#define NVFP4_META_C_FP4 3u  /* E2M1, two per byte (the fused epilogue's C; ldc in elements) */
/* Bytes of one C element (FP4: 1, the byte that holds two elements; row pitches of an FP4
 * C are ldc / 2 bytes). */
static inline uint32_t nvfp4_meta_c_bytes(uint32_t c_type) {
  return c_type == NVFP4_META_C_F32 ? 4u : c_type == NVFP4_META_C_FP4 ? 1u : 2u;
}

/* Epilogue flags (NVFP4_META_EPILOGUE_FLAGS). */
#define NVFP4_META_EFLAG_ALPHA 0x1u        /* C = alpha_g * (A B^T), alpha_g fp32 from memory */
#define NVFP4_META_EFLAG_SWIGLU_NVFP4 0x2u /* the fused SwiGLU + NVFP4 epilogue (docs/ops.md):
                                              N = 2I gate/up rows of B, C = the M x I FP4
                                              codes, SFC and gs from the group record (or the
                                              contiguous problem record); c_type FP4. The
                                              B and SFB maps have boxes of n_box_rows =
                                              tile_n / 2 rows and sfn_atoms = 1 atom row:
                                              the kernel loads the gate and up halves of a
                                              tile as two boxes each (docs/kernel-sm100a.md,
                                              docs/kernel-sm120a.md); a swap-AB kernel
                                              (sm_90a) has B on the M side: m_box_rows = 64,
                                              sfm_atoms = 1 (docs/kernel-sm90a.md). Direct
                                              stores only */

/* Forms (NVFP4_META_FORM): how the groups reach the kernel. */
#define NVFP4_META_FORM_POINTER_ARRAY 0u   /* a group table of per-group maps and records */
#define NVFP4_META_FORM_CONTIGUOUS 1u      /* MoE: shared maps, device-resident offsets */

/* Record layout: little-endian u32 fields at these byte offsets, then two strings. */
#define NVFP4_META_MAGIC 0u
#define NVFP4_META_ABI_VERSION 4u
#define NVFP4_META_RECORD_BYTES 8u
#define NVFP4_META_TARGET_SM 12u           /* the architecture: 100 (sm_100a, sm_100f),
                                              103 (sm_103a), 90 (sm_90a and the sm_90a
                                              emulations), 120 (sm_120a, sm_120f), 121
                                              (sm_121a); Targets.h */
#define NVFP4_META_FLAGS 16u
#define NVFP4_META_BLOCK_X 20u
#define NVFP4_META_BLOCK_Y 24u
#define NVFP4_META_BLOCK_Z 28u
#define NVFP4_META_CLUSTER_X 32u
#define NVFP4_META_CLUSTER_Y 36u
#define NVFP4_META_CLUSTER_Z 40u
#define NVFP4_META_DYN_SMEM_BYTES 44u
#define NVFP4_META_TILE_M 48u              /* M-role rows of one tile (mma M: 128 or 256) */
#define NVFP4_META_TILE_N 52u              /* N of the MMA (DYNAMIC_N: the largest) */
#define NVFP4_META_TILE_K 56u
#define NVFP4_META_STAGES 60u
#define NVFP4_META_MAX_GROUPS 64u          /* compiled group count G (contiguous: experts E) */
#define NVFP4_META_PARAM_BYTES 68u         /* NVFP4_ABI_PARAM_BYTES (contiguous:
                                              NVFP4_ABI_MOE_PARAM_BYTES) */
#define NVFP4_META_TMEM_COLS 72u
#define NVFP4_META_ACC_BUFFERS 76u
#define NVFP4_META_WORKSPACE_PER_CTA 80u   /* bytes of workspace per CTA (0 if none) */
#define NVFP4_META_K_GRANULE 84u           /* K must be a multiple of this (64) */
#define NVFP4_META_SFN_ATOMS 88u           /* N-role SF atom rows per box (1 or 2) */
#define NVFP4_META_VARIANT_INDEX 92u       /* this record's index in the table */
#define NVFP4_META_KERNEL_NAME 96u         /* char[64], NUL-terminated */
#define NVFP4_META_KERNEL_NAME_BYTES 64u
#define NVFP4_META_TARGET 160u             /* char[16]: the target (Targets.h), e.g.
                                              "sm_100a"; decides the devices it runs on */
#define NVFP4_META_TARGET_BYTES 16u
#define NVFP4_META_VARIANT_COUNT 176u      /* records in the table (same in every record) */
#define NVFP4_META_ORIENTATION 180u
#define NVFP4_META_CTA_GROUP 184u          /* 1 or 2 */
#define NVFP4_META_EPILOGUE 188u
#define NVFP4_META_VARIANT_FLAGS 192u
#define NVFP4_META_M_BOX_ROWS 196u         /* rows of the M-role box (per CTA) */
#define NVFP4_META_N_BOX_ROWS 200u         /* rows of the N-role box (per CTA; the largest) */
#define NVFP4_META_SFM_ATOMS 204u          /* M-role SF atom rows per box (1) */
#define NVFP4_META_STORE_BOX_ROWS 208u     /* rows of the C store box (TMA store) */
#define NVFP4_META_N_ALIGN 212u            /* per-group tile_n granule when a group has
                                              more than one N tile (DYNAMIC_N) */
#define NVFP4_META_C_TYPE 216u             /* C element type (NVFP4_META_C_*) */
#define NVFP4_META_EPILOGUE_FLAGS 220u     /* NVFP4_META_EFLAG_* */
#define NVFP4_META_FORM 224u               /* NVFP4_META_FORM_* */
#define NVFP4_META_COST_DECODE_ROWS 228u   /* cost model (KernelConfig.h): token rows a tile's
                                              weight decode is worth (0: no decode) */
#define NVFP4_META_COST_TOKEN_SHARE 232u   /* cost model: per mille of a token row's cost a
                                              wider weight tile does not repeat (0..1000) */
#define NVFP4_META_SOURCE_TARGET 236u      /* char[16]: the target the kernel was generated
                                              for (the op's, Targets.h): `target`, unless an
                                              emulation or proxy build retargeted the record
                                              to sm_90a (empty: not recorded; the compiler
                                              always records it). 252..255 reserved, 0 */
#define NVFP4_META_SOURCE_TARGET_BYTES 16u

/* Every u32 field of the record as X(struct member, NVFP4_META_ offset suffix), so that
 * encoders and decoders list the fields once. */
#define NVFP4_META_U32_FIELDS(X)                                                         \
  X(magic, MAGIC) X(abi_version, ABI_VERSION) X(record_bytes, RECORD_BYTES)              \
  X(target_sm, TARGET_SM) X(flags, FLAGS)                                                \
  X(block[0], BLOCK_X) X(block[1], BLOCK_Y) X(block[2], BLOCK_Z)                         \
  X(cluster[0], CLUSTER_X) X(cluster[1], CLUSTER_Y) X(cluster[2], CLUSTER_Z)             \
  X(dyn_smem_bytes, DYN_SMEM_BYTES) X(tile_m, TILE_M) X(tile_n, TILE_N)                  \
  X(tile_k, TILE_K) X(stages, STAGES) X(max_groups, MAX_GROUPS)                          \
  X(param_bytes, PARAM_BYTES) X(tmem_cols, TMEM_COLS) X(acc_buffers, ACC_BUFFERS)        \
  X(workspace_per_cta, WORKSPACE_PER_CTA) X(k_granule, K_GRANULE)                        \
  X(sfn_atoms, SFN_ATOMS) X(variant_index, VARIANT_INDEX)                                \
  X(variant_count, VARIANT_COUNT) X(orientation, ORIENTATION) X(cta_group, CTA_GROUP)    \
  X(epilogue, EPILOGUE) X(variant_flags, VARIANT_FLAGS) X(m_box_rows, M_BOX_ROWS)        \
  X(n_box_rows, N_BOX_ROWS) X(sfm_atoms, SFM_ATOMS) X(store_box_rows, STORE_BOX_ROWS)    \
  X(n_align, N_ALIGN) X(c_type, C_TYPE) X(epilogue_flags, EPILOGUE_FLAGS) X(form, FORM)   \
  X(cost_decode_rows, COST_DECODE_ROWS) X(cost_token_share, COST_TOKEN_SHARE)

/* A decoded metadata record (host side convenience; the bytes above are the contract). */
typedef struct nvfp4_kernel_metadata {
  uint32_t magic, abi_version, record_bytes, target_sm, flags;
  uint32_t block[3], cluster[3];
  uint32_t dyn_smem_bytes;
  uint32_t tile_m, tile_n, tile_k, stages;
  uint32_t max_groups, param_bytes, tmem_cols, acc_buffers;
  uint32_t workspace_per_cta, k_granule, sfn_atoms;
  uint32_t variant_index, variant_count, orientation, cta_group, epilogue, variant_flags;
  uint32_t m_box_rows, n_box_rows, sfm_atoms, store_box_rows, n_align;
  uint32_t c_type, epilogue_flags, form;
  uint32_t cost_decode_rows, cost_token_share;
  char kernel_name[NVFP4_META_KERNEL_NAME_BYTES];
  char target[NVFP4_META_TARGET_BYTES];
  char source_target[NVFP4_META_SOURCE_TARGET_BYTES];
} nvfp4_kernel_metadata;

static inline uint32_t nvfp4_meta_read_u32(const unsigned char *rec, uint32_t off) {
  return (uint32_t)rec[off] | ((uint32_t)rec[off + 1] << 8) | ((uint32_t)rec[off + 2] << 16) |
         ((uint32_t)rec[off + 3] << 24);
}
static inline void nvfp4_meta_write_u32(unsigned char *rec, uint32_t off, uint32_t v) {
  rec[off] = (unsigned char)v;
  rec[off + 1] = (unsigned char)(v >> 8);
  rec[off + 2] = (unsigned char)(v >> 16);
  rec[off + 3] = (unsigned char)(v >> 24);
}

static inline void nvfp4_meta_write_u64(unsigned char *rec, uint32_t off, uint64_t v) {
  nvfp4_meta_write_u32(rec, off, (uint32_t)v);
  nvfp4_meta_write_u32(rec, off + 4, (uint32_t)(v >> 32));
}
static inline uint64_t nvfp4_meta_read_u64(const unsigned char *rec, uint32_t off) {
  return (uint64_t)nvfp4_meta_read_u32(rec, off) | (uint64_t)nvfp4_meta_read_u32(rec, off + 4) << 32;
}

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_KERNELABI_H */
