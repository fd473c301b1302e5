/* KernelConfig.c — computes the static configuration of a generated kernel (pipeline
 * depth, shared-memory and Tensor Memory maps) and encodes its metadata record.
 * See include/nvfp4-c/KernelConfig.h and docs/kernel-sm100a.md. */
#include "nvfp4-c/KernelConfig.h"

#include <stdio.h>
#include <string.h>

#include "nvfp4-c/KernelABI.h"

static uint32_t roundUp(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

static uint32_t nextPow2AtLeast32(uint32_t x) {
  uint32_t p = 32;
  while (p < x) p <<= 1;
  return p;
}

/* Bytes of the barrier area (full/empty per stage, accFull/accEmpty per accumulator,
 * sfFree per scale-factor slot) plus the TMEM slot. */
static uint32_t barrierBytes(uint32_t stages, uint32_t acc, uint32_t sfSlots) {
  return 8u * (2u * stages + 2u * acc + sfSlots) + 8u;
}

static bool fail(char *msg, size_t msgSize, const char *text) {
  if (msg && msgSize) snprintf(msg, msgSize, "%s", text);
  return false;
}

bool mlirNvfp4KernelConfigInit(MlirNvfp4KernelConfig *cfg, uint32_t numGroups, uint32_t tileN,
                               uint32_t stages, char *msg, size_t msgSize) {
  memset(cfg, 0, sizeof *cfg);
  if (numGroups < 1 || numGroups > NVFP4_ABI_MAX_GROUPS)
    return fail(msg, msgSize, "group count must be between 1 and 60 (parameter-block limit)");
  if (tileN != 64 && tileN != 128 && tileN != 192 && tileN != 256)
    return fail(msg, msgSize, "tile_n must be one of 64, 128, 192, 256");
  if (stages > MLIR_NVFP4_MAX_STAGES)
    return fail(msg, msgSize, "stages must be at most 8");

  cfg->numGroups = numGroups;
  cfg->tileM = MLIR_NVFP4_TILE_M;
  cfg->tileN = tileN;
  cfg->tileK = MLIR_NVFP4_TILE_K;
  cfg->sfbAtoms = tileN <= 128 ? 1u : 2u;

  /* One stage: A 128 x 128 B, B tileN x 128 B (256 FP4 along K each), SFA 4 atoms,
   * SFB 4 atoms per 128-row block. Every part is a multiple of 1024 B. */
  const uint32_t kBlocks = MLIR_NVFP4_TILE_K / MLIR_NVFP4_MMA_K; /* 4 */
  cfg->aBytes = MLIR_NVFP4_TILE_M * (MLIR_NVFP4_TILE_K / 2);
  cfg->bBytes = tileN * (MLIR_NVFP4_TILE_K / 2);
  cfg->sfaBytes = kBlocks * MLIR_NVFP4_SF_ATOM_BYTES;
  cfg->sfbBytes = kBlocks * MLIR_NVFP4_SF_ATOM_BYTES * cfg->sfbAtoms;
  cfg->aOffset = 0;
  cfg->bOffset = cfg->aOffset + cfg->aBytes;
  cfg->sfaOffset = cfg->bOffset + cfg->bBytes;
  cfg->sfbOffset = cfg->sfaOffset + cfg->sfaBytes;
  cfg->stageBytes = roundUp(cfg->sfbOffset + cfg->sfbBytes, 1024);
  cfg->txBytesPerStage = cfg->aBytes + cfg->bBytes + cfg->sfaBytes + cfg->sfbBytes;

  /* Tensor Memory: accumulators (tileN fp32 columns each), then per-stage scale factors
   * (each stage owns its columns: tcgen05.cp -> mma is ordered, mma -> cp is not). */
  cfg->sfaColsPerStage = kBlocks * 4u;
  cfg->sfColsPerStage = cfg->sfaColsPerStage + kBlocks * 4u * cfg->sfbAtoms;

  const uint32_t smemBudget = MLIR_NVFP4_MAX_DYN_SMEM - 1024u /* alignment slack */;
  uint32_t maxBySmem =
      (smemBudget - barrierBytes(MLIR_NVFP4_MAX_STAGES, 2, MLIR_NVFP4_MAX_STAGES)) /
      cfg->stageBytes;
  if (maxBySmem > MLIR_NVFP4_MAX_STAGES) maxBySmem = MLIR_NVFP4_MAX_STAGES;
  if (maxBySmem < 2) return fail(msg, msgSize, "a pipeline stage does not fit in shared memory");

  uint32_t chosen = stages ? stages : maxBySmem;
  if (chosen > maxBySmem) {
    if (msg && msgSize)
      snprintf(msg, msgSize, "stages = %u does not fit in shared memory (at most %u for tile_n = %u)",
               stages, maxBySmem, tileN);
    return false;
  }
  /* Two accumulator buffers let the epilogue of tile t overlap the MMAs of tile t+1; they
   * need 2 * tileN columns. The scale factors of the stages in flight need their own
   * columns (tcgen05.cp -> mma is ordered, mma -> cp is not): one slot per stage when
   * they fit, else a smaller ring of at least 2 slots whose reuse waits for the MMAs of
   * the slot's previous stage (sfFree barriers). With tileN = 256 two accumulators fill
   * all 512 columns, so that configuration keeps one. */
  uint32_t acc = 2, slots = 0;
  if (2u * tileN < MLIR_NVFP4_TMEM_COLUMNS)
    slots = (MLIR_NVFP4_TMEM_COLUMNS - 2u * tileN) / cfg->sfColsPerStage;
  if (slots < 2) {
    acc = 1;
    slots = (MLIR_NVFP4_TMEM_COLUMNS - tileN) / cfg->sfColsPerStage;
  }
  if (slots > chosen) slots = chosen;
  cfg->stages = chosen;
  cfg->accBuffers = acc;
  cfg->sfSlots = slots;
  cfg->sfRing = slots < chosen;
  cfg->sfCol0 = acc * tileN;
  cfg->tmemCols = nextPow2AtLeast32(cfg->sfCol0 + slots * cfg->sfColsPerStage);

  cfg->barrierOffset = chosen * cfg->stageBytes;
  cfg->numBarriers = 2u * chosen + 2u * acc + (cfg->sfRing ? slots : 0u);
  cfg->tmemSlotOffset = cfg->barrierOffset + 8u * cfg->numBarriers;
  cfg->dynSmemBytes = 1024u + cfg->tmemSlotOffset + 8u;
  cfg->paramBytes = nvfp4_abi_param_bytes(numGroups);
  return true;
}

void mlirNvfp4KernelConfigEncodeMetadata(const MlirNvfp4KernelConfig *cfg,
                                         const char *kernelName, const char *target,
                                         uint32_t targetSm, uint32_t flags,
                                         uint32_t workspacePerCta, unsigned char *rec) {
  nvfp4_kernel_metadata m = {
      .magic = NVFP4_METADATA_MAGIC, .abi_version = NVFP4_ABI_VERSION,
      .record_bytes = NVFP4_METADATA_BYTES, .target_sm = targetSm, .flags = flags,
      .block = {MLIR_NVFP4_NUM_THREADS, 1, 1}, .cluster = {1, 1, 1},
      .dyn_smem_bytes = cfg->dynSmemBytes, .tile_m = cfg->tileM, .tile_n = cfg->tileN,
      .tile_k = cfg->tileK, .stages = cfg->stages, .max_groups = cfg->numGroups,
      .param_bytes = cfg->paramBytes, .tmem_cols = cfg->tmemCols,
      .acc_buffers = cfg->accBuffers, .workspace_per_cta = workspacePerCta,
      .k_granule = MLIR_NVFP4_K_GRANULE, .sfb_atoms = cfg->sfbAtoms};
  memset(rec, 0, NVFP4_METADATA_BYTES);
#define F(field, off) nvfp4_meta_write_u32(rec, NVFP4_META_##off, m.field);
  NVFP4_META_U32_FIELDS(F)
#undef F
  snprintf((char *)rec + NVFP4_META_KERNEL_NAME, NVFP4_META_KERNEL_NAME_BYTES, "%s", kernelName);
  snprintf((char *)rec + NVFP4_META_TARGET, NVFP4_META_TARGET_BYTES, "%s", target);
}
