/* KernelABI.h — the kernel ABI shared by the lowering (field offsets it loads from) and
 * the runtime (which packs the struct): the by-value parameter block of the generated
 * grouped-matmul kernel and the self-describing metadata record carried in the cubin.
 *
 * Plain C11, no MLIR/LLVM/CUDA dependency. Defined once here (DESIGN.md §5); the
 * lowering uses the NVFP4_ABI_* offsets, the runtime uses the same offsets to pack.
 *
 * Parameter block for a kernel compiled for G groups (G = the op's group count):
 *
 *   offset                size        what
 *   0                     64          nvfp4_abi_header
 *   64                    512 * G     per-group tensor maps: A, B, SFA, SFB (128 B each)
 *   64 + 512 G            32 * G      per-group records (nvfp4_abi_group)
 *   total                 64 + 544 G  (<= 32764 bytes: G <= NVFP4_ABI_MAX_GROUPS)
 *
 * Tensor maps sit at 64-byte aligned offsets, as TMA requires; the kernel parameter is
 * declared `.param .align 64` (nvvm.grid_constant, llvm.byval).
 */
#ifndef NVFP4_C_KERNELABI_H
#define NVFP4_C_KERNELABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the parameter block and metadata layout below. Bump on any change. */
#define NVFP4_ABI_VERSION 1u

/* ---- parameter block ------------------------------------------------------------ */

#define NVFP4_ABI_HEADER_BYTES 64u
#define NVFP4_ABI_TMAP_BYTES 128u          /* one CUtensorMap */
#define NVFP4_ABI_GROUP_TMAPS_BYTES 512u   /* A, B, SFA, SFB */
#define NVFP4_ABI_GROUP_RECORD_BYTES 32u
#define NVFP4_ABI_PARAM_ALIGN 64u
#define NVFP4_ABI_MAX_PARAM_BYTES 32764u   /* CUDA >= 12.1 kernel parameter limit */
#define NVFP4_ABI_MAX_GROUPS 60u           /* 64 + 544 * 60 = 32704 <= 32764 */

/* Header fields (byte offsets from the start of the parameter block). */
#define NVFP4_ABI_HDR_ABI_VERSION 0u       /* u32: NVFP4_ABI_VERSION */
#define NVFP4_ABI_HDR_NUM_GROUPS 4u        /* u32: groups in this launch (<= compiled G) */
#define NVFP4_ABI_HDR_TOTAL_TILES 8u       /* u32: sum over groups of tiles_m * tiles_n */
#define NVFP4_ABI_HDR_FLAGS 12u            /* u32: reserved, 0 */
#define NVFP4_ABI_HDR_WORKSPACE 16u        /* u64: device workspace (emulation: TMEM) */
#define NVFP4_ABI_HDR_WORKSPACE_BYTES 24u  /* u64: its size in bytes */

/* Per-group record fields (byte offsets from the start of the record). */
#define NVFP4_ABI_GRP_M 0u           /* u32: rows of A and C */
#define NVFP4_ABI_GRP_N 4u           /* u32: rows of B, columns of C */
#define NVFP4_ABI_GRP_K 8u           /* u32: reduction length, multiple of 64 */
#define NVFP4_ABI_GRP_TILE_START 12u /* u32: exclusive prefix sum of tiles before this group */
#define NVFP4_ABI_GRP_TILES_M 16u    /* u32: ceil(M / tile_m) */
#define NVFP4_ABI_GRP_LDC 20u        /* u32: row stride of C in elements */
#define NVFP4_ABI_GRP_C_PTR 24u      /* u64: device address of C (fp16) */

/* Tensor maps of one group (byte offsets within the group's 512-byte slot). */
#define NVFP4_ABI_TMAP_A 0u
#define NVFP4_ABI_TMAP_B 128u
#define NVFP4_ABI_TMAP_SFA 256u
#define NVFP4_ABI_TMAP_SFB 384u

static inline uint32_t nvfp4_abi_tmaps_offset(uint32_t group) {
  return NVFP4_ABI_HEADER_BYTES + NVFP4_ABI_GROUP_TMAPS_BYTES * group;
}
static inline uint32_t nvfp4_abi_record_offset(uint32_t num_groups, uint32_t group) {
  return NVFP4_ABI_HEADER_BYTES + NVFP4_ABI_GROUP_TMAPS_BYTES * num_groups +
         NVFP4_ABI_GROUP_RECORD_BYTES * group;
}
static inline uint32_t nvfp4_abi_param_bytes(uint32_t num_groups) {
  return NVFP4_ABI_HEADER_BYTES +
         (NVFP4_ABI_GROUP_TMAPS_BYTES + NVFP4_ABI_GROUP_RECORD_BYTES) * num_groups;
}

/* Tensor-map contract (what the runtime encodes, what the kernel's TMA boxes assume):
 *   A, B   native:    CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B, dims {K, rows}, stride K/2 B,
 *                     box {256, tile rows}, SWIZZLE_128B, OOB fill zero; x coord in elements.
 *          emulation: CU_TENSOR_MAP_DATA_TYPE_UINT8 over the same bytes, dims {K/2, rows},
 *                     box {128, tile rows}, SWIZZLE_128B; x coord in bytes (= K / 2).
 *   SFA, SFB:         CU_TENSOR_MAP_DATA_TYPE_INT64 over the blocked scale tensor,
 *                     dims {ceil(K/64) * 64, ceil(rows/128)} (64 int64 = one 512-B atom),
 *                     box {256, sf_box_rows} (4 atoms = one 256-K stage), no swizzle.
 *                     sf_box_rows is 1 for SFA and NVFP4_META sfb_atoms for SFB.
 */

/* ---- metadata record -------------------------------------------------------------- */

/* Name of the global symbol (in the cubin) holding one nvfp4_kernel_metadata record. */
#define NVFP4_METADATA_SYMBOL "nvfp4_kernel_metadata"
#define NVFP4_METADATA_MAGIC 0x3446564Eu   /* "NVF4" little-endian */
#define NVFP4_METADATA_BYTES 256u

/* Flags */
#define NVFP4_META_FLAG_EMULATION 0x1u     /* tcgen05 emulated (sm_90a); needs workspace */

/* Record layout: little-endian u32 fields at these byte offsets, then two strings. */
#define NVFP4_META_MAGIC 0u
#define NVFP4_META_ABI_VERSION 4u
#define NVFP4_META_RECORD_BYTES 8u
#define NVFP4_META_TARGET_SM 12u           /* 100 for sm_100a, 90 for sm_90a */
#define NVFP4_META_FLAGS 16u
#define NVFP4_META_BLOCK_X 20u
#define NVFP4_META_BLOCK_Y 24u
#define NVFP4_META_BLOCK_Z 28u
#define NVFP4_META_CLUSTER_X 32u
#define NVFP4_META_CLUSTER_Y 36u
#define NVFP4_META_CLUSTER_Z 40u
#define NVFP4_META_DYN_SMEM_BYTES 44u
#define NVFP4_META_TILE_M 48u
#define NVFP4_META_TILE_N 52u
#define NVFP4_META_TILE_K 56u
#define NVFP4_META_STAGES 60u
#define NVFP4_META_MAX_GROUPS 64u          /* compiled group count G */
#define NVFP4_META_PARAM_BYTES 68u         /* nvfp4_abi_param_bytes(G) */
#define NVFP4_META_TMEM_COLS 72u
#define NVFP4_META_ACC_BUFFERS 76u
#define NVFP4_META_WORKSPACE_PER_CTA 80u   /* bytes of workspace per CTA (0 if none) */
#define NVFP4_META_K_GRANULE 84u           /* K must be a multiple of this (64) */
#define NVFP4_META_SFB_ATOMS 88u           /* 128-row SFB atoms per stage row (1 or 2) */
#define NVFP4_META_KERNEL_NAME 96u         /* char[64], NUL-terminated */
#define NVFP4_META_KERNEL_NAME_BYTES 64u
#define NVFP4_META_TARGET 160u             /* char[16], e.g. "sm_100a" */
#define NVFP4_META_TARGET_BYTES 16u

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
  X(workspace_per_cta, WORKSPACE_PER_CTA) X(k_granule, K_GRANULE) X(sfb_atoms, SFB_ATOMS)

/* A decoded metadata record (host side convenience; the bytes above are the contract). */
typedef struct nvfp4_kernel_metadata {
  uint32_t magic, abi_version, record_bytes, target_sm, flags;
  uint32_t block[3], cluster[3];
  uint32_t dyn_smem_bytes;
  uint32_t tile_m, tile_n, tile_k, stages;
  uint32_t max_groups, param_bytes, tmem_cols, acc_buffers;
  uint32_t workspace_per_cta, k_granule, sfb_atoms;
  char kernel_name[NVFP4_META_KERNEL_NAME_BYTES];
  char target[NVFP4_META_TARGET_BYTES];
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

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_KERNELABI_H */
