/* KernelConfig.h — the static configuration of one generated grouped-matmul kernel: tile
 * shape, pipeline depth, shared-memory map, Tensor Memory column map, thread roles and
 * the metadata record. Pure C (no MLIR); the lowering builds the kernel from it and the
 * emulation pass and tests read it back. docs/kernel-sm100a.md describes the same maps.
 */
#ifndef NVFP4_C_KERNELCONFIG_H
#define NVFP4_C_KERNELCONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MLIR_NVFP4_TILE_M 128u
#define MLIR_NVFP4_TILE_K 256u          /* K per pipeline stage */
#define MLIR_NVFP4_MMA_K 64u            /* K per tcgen05.mma (FP4, block16) */
#define MLIR_NVFP4_K_GRANULE 64u        /* K must be a multiple of this */
#define MLIR_NVFP4_SF_ATOM_BYTES 512u   /* 128 rows x 4 scale columns (64 K) */
#define MLIR_NVFP4_MAX_DYN_SMEM 232448u /* per-block opt-in limit on sm_90 / sm_100 */
#define MLIR_NVFP4_TMEM_COLUMNS 512u
#define MLIR_NVFP4_MAX_STAGES 8u
#define MLIR_NVFP4_DEFAULT_TILE_N 128u

/* Warp roles (6 warps, 192 threads). */
#define MLIR_NVFP4_NUM_EPILOGUE_WARPS 4u
#define MLIR_NVFP4_PRODUCER_WARP 4u
#define MLIR_NVFP4_MMA_WARP 5u
#define MLIR_NVFP4_NUM_THREADS 192u

typedef struct MlirNvfp4KernelConfig {
  uint32_t numGroups;     /* compiled group count G */
  uint32_t tileM, tileN, tileK;
  uint32_t stages;        /* shared-memory pipeline depth */
  uint32_t accBuffers;    /* TMEM accumulator buffers (2 unless tileN = 256) */
  uint32_t sfSlots;       /* scale-factor TMEM slots (one per stage when they fit) */
  bool sfRing;            /* sfSlots < stages: slot reuse waits on sfFree barriers */
  uint32_t sfbAtoms;      /* 128-row SFB atoms per K block: 1 (N <= 128) or 2 */

  /* Shared memory: dynamic, base rounded up to 1024 B at run time. Offsets from it. */
  uint32_t aBytes, bBytes, sfaBytes, sfbBytes; /* per stage */
  uint32_t stageBytes;                         /* multiple of 1024 */
  uint32_t aOffset, bOffset, sfaOffset, sfbOffset; /* within a stage */
  uint32_t barrierOffset;  /* full[S], empty[S], accFull[A], accEmpty[A], sfFree[P] (8 B) */
  uint32_t numBarriers;
  uint32_t tmemSlotOffset; /* u32 written by tcgen05.alloc */
  uint32_t dynSmemBytes;   /* including 1024 B of alignment slack */
  uint32_t txBytesPerStage;

  /* Tensor Memory columns (lane 0 based). */
  uint32_t tmemCols;       /* allocated: power of two >= 32 */
  uint32_t sfCol0;         /* first scale-factor column (accumulator b: b * tileN) */
  uint32_t sfColsPerStage; /* per slot: SFA (16) + SFB (16 * sfbAtoms) */
  uint32_t sfaColsPerStage;

  uint32_t paramBytes;     /* nvfp4_abi_param_bytes(G) */
} MlirNvfp4KernelConfig;

/* Fills `cfg` for G groups, N tile (64/128/192/256) and a requested stage count (0: as many
 * as shared memory and Tensor Memory allow). Returns false with a message when the
 * combination cannot be built. */
bool mlirNvfp4KernelConfigInit(MlirNvfp4KernelConfig *cfg, uint32_t numGroups, uint32_t tileN,
                               uint32_t stages, char *msg, size_t msgSize);

/* Writes the 256-byte metadata record (KernelABI.h) for this configuration. */
void mlirNvfp4KernelConfigEncodeMetadata(const MlirNvfp4KernelConfig *cfg,
                                         const char *kernelName, const char *target,
                                         uint32_t targetSm, uint32_t flags,
                                         uint32_t workspacePerCta, unsigned char *record);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_KERNELCONFIG_H */
