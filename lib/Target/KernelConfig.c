/* KernelConfig.c — the planner of a generated kernel variant: validates the variant spec,
 * fills the operand-role table, hands out shared-memory regions, mbarrier arrays and
 * Tensor Memory columns, and encodes the variant's metadata record.
 * See include/nvfp4-c/KernelConfig.h and docs/kernel-sm100a.md. */
#include "nvfp4-c/KernelConfig.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4-c/KernelABI.h"

static uint32_t roundUp(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

static uint32_t nextPow2AtLeast32(uint32_t x) {
  uint32_t p = 32;
  while (p < x) p <<= 1;
  return p;
}

static bool fail(char *msg, size_t msgSize, const char *text) {
  if (msg && msgSize) snprintf(msg, msgSize, "%s", text);
  return false;
}

MlirNvfp4VariantSpec mlirNvfp4VariantSpecDefault(uint32_t tileN, uint32_t stages) {
  MlirNvfp4VariantSpec s = {.orientation = MLIR_NVFP4_ORIENTATION_AB, .ctaGroup = 1,
                            .tileN = tileN ? tileN : MLIR_NVFP4_DEFAULT_TILE_N,
                            .epilogue = MLIR_NVFP4_EPILOGUE_TMA_STORE, .stages = stages};
  return s;
}

void mlirNvfp4VariantName(MlirNvfp4VariantSpec s, char *out, size_t size) {
  char m[16] = "";
  if (s.tileM && s.tileM != MLIR_NVFP4_TILE_M) snprintf(m, sizeof m, "_m%u", s.tileM);
  snprintf(out, size, "%s%s_n%u%s%s%s", s.orientation == MLIR_NVFP4_ORIENTATION_SWAP_AB ? "swap" : "ab",
           s.ctaGroup == 2 ? "2" : "", s.tileN, m,
           /* (every sm_120a variant stores directly: no suffix names it) */
           s.epilogue == MLIR_NVFP4_EPILOGUE_DIRECT_STORE && s.target != MLIR_NVFP4_TARGET_SM120A
               ? "_st" : "",
           s.streamK ? "_sk" : "");
}

/* Decimal digits at *p (at most 4), advancing it; false when there are none. */
static bool parseDigits(const char **p, uint32_t *out) {
  uint32_t n = 0;
  int digits = 0;
  while (**p >= '0' && **p <= '9' && digits < 4) n = n * 10 + (uint32_t)(*(*p)++ - '0'), ++digits;
  *out = n;
  return digits > 0;
}

bool mlirNvfp4VariantSpecParse(const char *name, size_t length, uint32_t stages,
                               MlirNvfp4VariantSpec *out) {
  char buf[32];
  if (!name || length == 0 || length >= sizeof buf) return false;
  memcpy(buf, name, length);
  buf[length] = 0;
  MlirNvfp4VariantSpec s = {.ctaGroup = 1, .epilogue = MLIR_NVFP4_EPILOGUE_TMA_STORE,
                            .stages = stages};
  const char *p = buf;
  if (!strncmp(p, "swap", 4)) {
    s.orientation = MLIR_NVFP4_ORIENTATION_SWAP_AB;
    p += 4;
  } else if (!strncmp(p, "ab", 2)) {
    s.orientation = MLIR_NVFP4_ORIENTATION_AB;
    p += 2;
  } else {
    return false;
  }
  if (*p == '2') {
    s.ctaGroup = 2;
    ++p;
  }
  if (strncmp(p, "_n", 2)) return false;
  p += 2;
  if (!parseDigits(&p, &s.tileN)) return false;
  if (!strncmp(p, "_m", 2)) {
    p += 2;
    if (!parseDigits(&p, &s.tileM)) return false;
  }
  if (!strcmp(p, "_st")) s.epilogue = MLIR_NVFP4_EPILOGUE_DIRECT_STORE;
  else if (!strcmp(p, "_sk")) s.streamK = true;
  else if (*p) return false;
  char canonical[32];
  mlirNvfp4VariantName(s, canonical, sizeof canonical);
  if (strcmp(canonical, buf)) return false; /* e.g. leading zeros */
  *out = s;
  return true;
}

/* ---- the planner: bump allocators over shared memory, barriers and TMEM columns ------ */

static uint32_t planSmem(MlirNvfp4KernelConfig *cfg, uint32_t *top, const char *name,
                         uint32_t bytes, uint32_t copies, uint32_t align) {
  uint32_t off = roundUp(*top, align);
  uint32_t stride = copies > 1 ? roundUp(bytes, align) : bytes;
  MlirNvfp4SmemRegion r = {name, off, stride * (copies - 1) + bytes, copies, stride};
  if (cfg->numSmemRegions < MLIR_NVFP4_PLAN_MAX_REGIONS) cfg->smem[cfg->numSmemRegions++] = r;
  *top = off + r.bytes;
  return off;
}

static void planBarriers(MlirNvfp4KernelConfig *cfg, MlirNvfp4BarrierArray *arr,
                         const char *name, uint32_t count, uint32_t arrivals) {
  arr->name = name;
  arr->first = cfg->numBarriers;
  arr->count = count;
  arr->arrivals = arrivals;
  cfg->numBarriers += count;
  if (count && cfg->numBarrierArrays < MLIR_NVFP4_PLAN_MAX_BARRIERS)
    cfg->barriers[cfg->numBarrierArrays++] = *arr;
}

static uint32_t planTmem(MlirNvfp4KernelConfig *cfg, uint32_t *top, const char *name,
                         uint32_t columns, uint32_t copies) {
  MlirNvfp4TmemRegion r = {name, *top, columns * copies, copies, columns};
  if (cfg->numTmemRegions < MLIR_NVFP4_PLAN_MAX_REGIONS) cfg->tmem[cfg->numTmemRegions++] = r;
  *top += r.columns;
  return r.column;
}

/* The end of a plan whose regions end at `top`: the contiguous form's expert schedule and
 * scan scratch, the dynamic shared memory (with 1024 B of alignment slack) against `limit`,
 * the parameter block of the form. */
static bool planFinish(MlirNvfp4KernelConfig *cfg, uint32_t top, uint32_t scanBytes,
                       uint32_t limit, const char *tooLarge, char *msg, size_t msgSize) {
  const bool contiguous = cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  if (contiguous) {
    cfg->scheduleOffset = planSmem(cfg, &top, "expert schedule", cfg->scheduleBytes, 1, 16);
    cfg->scanOffset = planSmem(cfg, &top, "scan scratch", scanBytes, 1, 16);
  }
  cfg->dynSmemBytes = 1024u + top;
  if (cfg->dynSmemBytes > limit) return fail(msg, msgSize, tooLarge);
  cfg->paramBytes = contiguous ? NVFP4_ABI_MOE_PARAM_BYTES : NVFP4_ABI_PARAM_BYTES;
  return true;
}

/* ---- the variant ------------------------------------------------------------------------ */

/* What every target's spec must satisfy: stages, C's type, the form. */
static bool validateCommon(MlirNvfp4VariantSpec s, char *msg, size_t msgSize) {
  if (s.stages > MLIR_NVFP4_MAX_STAGES) return fail(msg, msgSize, "stages must be at most 8");
  if (s.output != MLIR_NVFP4_OUTPUT_F16 && s.output != MLIR_NVFP4_OUTPUT_BF16 &&
      s.output != MLIR_NVFP4_OUTPUT_F32 && !(s.swiglu && s.output == MLIR_NVFP4_OUTPUT_FP4))
    return fail(msg, msgSize, "unknown output type");
  if (s.swiglu != (s.output == MLIR_NVFP4_OUTPUT_FP4) ||
      ((s.debugActivations || s.swigluMidAtom) && !s.swiglu))
    return fail(msg, msgSize, "an FP4 C and the activation dump go with the fused epilogue "
                              "\"swiglu_nvfp4\" only");
  if (s.form != MLIR_NVFP4_FORM_POINTER_ARRAY && s.form != MLIR_NVFP4_FORM_CONTIGUOUS)
    return fail(msg, msgSize, "unknown form");
  return true;
}

static bool validateSpec(MlirNvfp4VariantSpec s, char *msg, size_t msgSize) {
  if (s.orientation != MLIR_NVFP4_ORIENTATION_AB &&
      s.orientation != MLIR_NVFP4_ORIENTATION_SWAP_AB)
    return fail(msg, msgSize, "unknown orientation");
  if (s.ctaGroup != 1 && s.ctaGroup != 2)
    return fail(msg, msgSize, "cta group must be 1 or 2");
  if (s.tileN != 64 && s.tileN != 128 && s.tileN != 192 && s.tileN != 256)
    return fail(msg, msgSize, "tile_n must be one of 64, 128, 192, 256");
  if (s.tileM && s.tileM != MLIR_NVFP4_TILE_M)
    return fail(msg, msgSize, "an sm_100a tile has 128 M-role rows per CTA (_m192 is an sm_90a "
                              "variant)");
  /* The stream-K schedule (docs/kernel-sm100a.md, "Stream-K"): one CTA per share (the
   * schedule splits by CTA, not by pair), the group table to cut shares from, the plain
   * epilogue that sums fp32 partials (the fused one would have to reduce gate and up
   * first), and tile_n <= 128 (a slot holds 128 x tile_n fp32: 64 KiB at 128). */
  if (s.streamK && s.ctaGroup != 1)
    return fail(msg, msgSize, "the sm_100a stream-K schedule (_sk) is built for 1-CTA variants "
                              "only (ab_n64_sk, ab_n128_sk, swap_n64_sk, swap_n128_sk): a CTA "
                              "pair's shares would be split across two CTAs");
  if (s.streamK && s.swiglu)
    return fail(msg, msgSize, "the fused epilogue \"swiglu_nvfp4\" has no stream-K variant: "
                              "a split tile's gate and up partial sums would have to be reduced "
                              "before the activation");
  if (s.streamK && s.tileN > 128)
    return fail(msg, msgSize, "the sm_100a stream-K schedule (_sk) is built for tile_n 64 and "
                              "128 (a workspace slot holds 128 x tile_n fp32 partial sums)");
  if (s.streamK && s.epilogue != MLIR_NVFP4_EPILOGUE_TMA_STORE)
    return fail(msg, msgSize, "the sm_100a stream-K schedule (_sk) is built with the TMA-store "
                              "epilogue only");
  if (s.streamK && s.form == MLIR_NVFP4_FORM_CONTIGUOUS)
    return fail(msg, msgSize, "the stream-K schedule (_sk) is built for the pointer-array form "
                              "(nvfp4.grouped_matmul): its shares are cut from the group table, "
                              "which nvfp4.moe_matmul does not have");
  if (s.epilogue != MLIR_NVFP4_EPILOGUE_DIRECT_STORE && s.epilogue != MLIR_NVFP4_EPILOGUE_TMA_STORE)
    return fail(msg, msgSize, "unknown epilogue");
  if (s.epilogue == MLIR_NVFP4_EPILOGUE_DIRECT_STORE &&
      (s.orientation != MLIR_NVFP4_ORIENTATION_AB || s.ctaGroup != 1))
    return fail(msg, msgSize, "the direct-store epilogue exists for the 1-CTA AB orientation only");
  /* The fused epilogue pairs 128 gate and 128 up columns in one N = 256 accumulator of one
   * CTA and stores from registers (docs/kernel-sm100a.md). */
  if (s.swiglu && (s.orientation != MLIR_NVFP4_ORIENTATION_AB || s.ctaGroup != 1 ||
                   s.tileN != 256 || s.epilogue != MLIR_NVFP4_EPILOGUE_DIRECT_STORE))
    return fail(msg, msgSize, "the fused epilogue \"swiglu_nvfp4\" is built for ab_n256_st "
                              "only (swap-AB, CTA pairs, other widths and TMA stores do not "
                              "implement it)");
  return validateCommon(s, msg, msgSize);
}

static bool fitStages(const MlirNvfp4KernelConfig *cfg, uint32_t requested, uint32_t fixed,
                      uint32_t *stages, char *msg, size_t msgSize);
static bool planSm90Variant(MlirNvfp4KernelConfig *cfg, uint32_t numGroups,
                            MlirNvfp4VariantSpec spec, char *msg, size_t msgSize);
static bool planSm120Variant(MlirNvfp4KernelConfig *cfg, uint32_t numGroups,
                             MlirNvfp4VariantSpec spec, char *msg, size_t msgSize);

/* The sm_100a plan (the sm_90a one: planSm90Variant; the sm_120a one: planSm120Variant). */
static bool planVariant(MlirNvfp4KernelConfig *cfg, uint32_t numGroups,
                        MlirNvfp4VariantSpec spec, char *msg, size_t msgSize) {
  if (!validateSpec(spec, msg, msgSize)) return false;
  const bool swap = spec.orientation == MLIR_NVFP4_ORIENTATION_SWAP_AB;

  cfg->spec = spec;
  cfg->numGroups = numGroups;
  cfg->tileM = MLIR_NVFP4_TILE_M;
  cfg->mmaM = MLIR_NVFP4_TILE_M * spec.ctaGroup;
  cfg->tileN = spec.tileN;
  cfg->tileK = MLIR_NVFP4_TILE_K;

  /* The operand-role table: swap-AB is a permutation of the tensors, nothing else. Every
   * tile of the N role starts at a multiple of tileN (or at 0 when a group has one tile),
   * so its rows span at most ceil(tileN / 128) scale-factor atoms (64/192-row tiles start
   * 64 rows into an atom at most: 64 + 192 = 256). */
  const uint32_t kBlocks = MLIR_NVFP4_TILE_K / MLIR_NVFP4_MMA_K; /* 4 */
  cfg->roleM = (MlirNvfp4OperandRole){
      .data = swap ? MLIR_NVFP4_TENSOR_B : MLIR_NVFP4_TENSOR_A,
      .scales = swap ? MLIR_NVFP4_TENSOR_SFB : MLIR_NVFP4_TENSOR_SFA,
      .rowsPerCta = MLIR_NVFP4_TILE_M, .sfAtoms = 1, .dynamicRows = false};
  cfg->roleN = (MlirNvfp4OperandRole){
      .data = swap ? MLIR_NVFP4_TENSOR_A : MLIR_NVFP4_TENSOR_B,
      .scales = swap ? MLIR_NVFP4_TENSOR_SFA : MLIR_NVFP4_TENSOR_SFB,
      .rowsPerCta = spec.tileN / spec.ctaGroup,
      .sfAtoms = (spec.tileN + MLIR_NVFP4_SF_ATOM_ROWS - 1) / MLIR_NVFP4_SF_ATOM_ROWS,
      .dynamicRows = swap};
  /* the fused epilogue's up half may start 64 rows into an atom: it spans two */
  if (spec.swigluMidAtom) {
    cfg->roleN.sfAtoms += 1;
    cfg->variantFlags |= NVFP4_META_VFLAG_SWIGLU_MID_ATOM;
  }

  /* One stage: the M-role tile (128 rows x 128 B = 256 FP4 along K), the N-role tile, and
   * 4 scale-factor atoms (one per K block of 64) per 128-row atom row of each role. Every
   * part is a multiple of 1024 B (SWIZZLE_128B rows of 128 B, 8-row groups). */
  const uint32_t rowBytes = MLIR_NVFP4_TILE_K / 2;
  cfg->mBytes = cfg->roleM.rowsPerCta * rowBytes;
  cfg->nBytes = cfg->roleN.rowsPerCta * rowBytes;
  cfg->sfmBytes = kBlocks * MLIR_NVFP4_SF_ATOM_BYTES * cfg->roleM.sfAtoms;
  cfg->sfnBytes = kBlocks * MLIR_NVFP4_SF_ATOM_BYTES * cfg->roleN.sfAtoms;
  cfg->mOffset = 0;
  cfg->nOffset = cfg->mOffset + cfg->mBytes;
  cfg->sfmOffset = cfg->nOffset + cfg->nBytes;
  cfg->sfnOffset = cfg->sfmOffset + cfg->sfmBytes;
  cfg->stageBytes = roundUp(cfg->sfnOffset + cfg->sfnBytes, 1024);
  /* The N-role rows are per group when they are dynamic; the rest of a stage is fixed. */
  cfg->txBytesFixed = cfg->mBytes + cfg->sfmBytes + cfg->sfnBytes +
                      (cfg->roleN.dynamicRows ? 0u : cfg->nBytes);

  /* TMA-store staging: AB stores sub-tiles of 64 C columns x 128 C rows (the accumulator
   * lanes); SWAP_AB stores 64 C rows (64 accumulator columns) x all 128 C columns. A box
   * row is 128 B (SWIZZLE_128B): 64 columns of f16/bf16 or 32 of f32, so a sub-tile is
   * 1, 2 or 4 boxes. Two buffers: the epilogue fills one while the other drains. */
  cfg->cElemBytes = nvfp4_meta_c_bytes((uint32_t)spec.output);
  cfg->storeBoxCols = 128u / cfg->cElemBytes;
  if (spec.epilogue == MLIR_NVFP4_EPILOGUE_TMA_STORE) {
    const uint32_t subCols = swap ? MLIR_NVFP4_TILE_M : MLIR_NVFP4_STORE_COLS;
    cfg->stagingBuffers = 2;
    cfg->stagingRows = swap ? MLIR_NVFP4_STORE_COLS : MLIR_NVFP4_TILE_M;
    cfg->stagingBoxes = subCols * cfg->cElemBytes / 128u;
    cfg->stagingBytes = cfg->stagingRows * subCols * cfg->cElemBytes;
  }

  /* The contiguous form: the expert schedule (one record per expert and the tile total,
   * 16-B aligned) and the scan scratch, built by every CTA at its start. */
  const bool contiguous = spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  cfg->nAlign = MLIR_NVFP4_N_STEP * spec.ctaGroup;
  if (contiguous) {
    cfg->scheduleBytes = MLIR_NVFP4_MOE_RECORD_BYTES * (numGroups + 1u);
    cfg->nLadder = swap ? nvfp4_abi_moe_ladder(spec.tileN, cfg->nAlign) : 0u;
    cfg->numTmaps = NVFP4_ABI_MOE_TMAP_LADDER + cfg->nLadder;
  }
  const uint32_t scanBytes = contiguous ? 8u * MLIR_NVFP4_NUM_THREADS : 0u;

  /* Scale-factor columns per slot: 4 columns (128 rows) per atom and K block. */
  cfg->sfmColsPerSlot = kBlocks * 4u * cfg->roleM.sfAtoms;
  cfg->sfColsPerSlot = cfg->sfmColsPerSlot + kBlocks * 4u * cfg->roleN.sfAtoms;

  /* Pipeline depth: as many stages as shared memory holds next to the staging buffers and
   * the barrier area (sized for the worst case of 8 stages). */
  const uint32_t barrierWorst = 8u * (5u * MLIR_NVFP4_MAX_STAGES + 4u) + 8u;
  uint32_t stages;
  const uint32_t fixed = cfg->stagingBuffers * cfg->stagingBytes + barrierWorst +
                         (contiguous ? 16u + cfg->scheduleBytes + scanBytes : 0u);
  if (!fitStages(cfg, spec.stages, fixed, &stages, msg, msgSize))
    return false;

  /* Tensor Memory: accumulators (tileN fp32 columns each), then scale-factor slots.
   * Two accumulators let the epilogue of tile t overlap the MMAs of tile t+1. Each slot
   * belongs to one stage in flight (tcgen05.cp -> mma is ordered, mma -> cp is not): one
   * slot per stage when they fit, else a ring of >= 2 slots whose reuse waits for the MMAs
   * of the slot's previous stage (sfFree barriers). When two accumulators leave room for
   * fewer than two slots, the variant keeps one accumulator. */
  uint32_t acc = 2, slots = 0;
  if (2u * spec.tileN < MLIR_NVFP4_TMEM_COLUMNS)
    slots = (MLIR_NVFP4_TMEM_COLUMNS - 2u * spec.tileN) / cfg->sfColsPerSlot;
  if (slots < 2) {
    acc = 1;
    slots = (MLIR_NVFP4_TMEM_COLUMNS - spec.tileN) / cfg->sfColsPerSlot;
  }
  if (slots > stages) slots = stages;
  if (slots < 1) return fail(msg, msgSize, "no Tensor Memory left for scale factors");
  cfg->stages = stages;
  cfg->accBuffers = acc;
  cfg->sfSlots = slots;
  cfg->sfRing = slots < stages;

  uint32_t col = 0;
  cfg->accCol0 = planTmem(cfg, &col, "accumulator", spec.tileN, acc);
  cfg->sfCol0 = planTmem(cfg, &col, "scale factors", cfg->sfColsPerSlot, slots);
  cfg->tmemCols = nextPow2AtLeast32(col);

  /* Shared memory: the stage ring, the staging buffers, the mbarriers, the TMEM slot. */
  uint32_t top = 0;
  planSmem(cfg, &top, "stage", cfg->stageBytes, stages, 1024);
  if (cfg->stagingBuffers)
    cfg->stagingOffset =
        planSmem(cfg, &top, "store staging", cfg->stagingBytes, cfg->stagingBuffers, 1024);
  const uint32_t pair = spec.ctaGroup;
  planBarriers(cfg, &cfg->full, "full", stages, 1);
  planBarriers(cfg, &cfg->peerFull, "peerFull", pair > 1 && spec.pairForward ? stages : 0u, 1);
  planBarriers(cfg, &cfg->empty, "empty", stages, 1);
  planBarriers(cfg, &cfg->accFull, "accFull", acc, 1);
  planBarriers(cfg, &cfg->accEmpty, "accEmpty", acc, 32u * MLIR_NVFP4_NUM_EPILOGUE_WARPS * pair);
  planBarriers(cfg, &cfg->sfFree, "sfFree", cfg->sfRing ? slots : 0u, 1);
  cfg->barrierOffset = planSmem(cfg, &top, "mbarriers", 8u * cfg->numBarriers, 1, 8);
  cfg->tmemSlotOffset = planSmem(cfg, &top, "tmem slot", 8, 1, 8);
  cfg->numThreads = MLIR_NVFP4_NUM_THREADS;
  /* warps 0-3 drain the accumulator (a warp reaches TMEM lanes 32 (warp % 4) ..), warp 4
   * loads, warp 5 issues the MMAs */
  cfg->roles[MLIR_NVFP4_ROLE_EPILOGUE] = (MlirNvfp4WarpRange){0, MLIR_NVFP4_NUM_EPILOGUE_WARPS};
  cfg->roles[MLIR_NVFP4_ROLE_PRODUCER] = (MlirNvfp4WarpRange){MLIR_NVFP4_PRODUCER_WARP, 1};
  cfg->roles[MLIR_NVFP4_ROLE_MMA] = (MlirNvfp4WarpRange){MLIR_NVFP4_MMA_WARP, 1};
  if (spec.streamK) {
    /* A stage's cost is the 128-byte rows it loads: the M role's 128 and the group's
     * tile_n of the N role (the scale factors, 3 % more, are left out); the MMA time of a
     * stage grows with tile_n too. Partial sums: the 128 epilogue threads' tile_n fp32 each
     * (float4 j of thread r at 16 (128 j + r): coalesced), after 128 bytes of counter and
     * stage end; two slots per CTA (Generator/StreamK.h). */
    cfg->streamK = true;
    cfg->variantFlags |= NVFP4_META_VFLAG_STREAM_K;
    cfg->streamKCost = MLIR_NVFP4_TILE_M;
    cfg->skFlagBytes = 128u;
    cfg->skSlotBytes = MLIR_NVFP4_TILE_M * spec.tileN * 4u;
    cfg->workspacePerCta = 2u * (cfg->skFlagBytes + cfg->skSlotBytes);
  }
  return planFinish(cfg, top, scanBytes, MLIR_NVFP4_MAX_DYN_SMEM,
                    "the plan exceeds the shared-memory limit", msg, msgSize);
}

static _Atomic uint64_t planRuns;

uint64_t mlirNvfp4KernelConfigPlanRuns(void) { return atomic_load(&planRuns); }

bool mlirNvfp4KernelConfigInitVariant(MlirNvfp4KernelConfig *cfg, uint32_t numGroups,
                                      MlirNvfp4VariantSpec spec, char *msg, size_t msgSize) {
  const uint64_t run = atomic_fetch_add(&planRuns, 1) + 1;
  if (getenv("NVFP4_DEBUG_PLANNER")) {
    char name[32];
    mlirNvfp4VariantName(spec, name, sizeof name);
    fprintf(stderr, "nvfp4-planner: run %llu: %s for %u groups\n", (unsigned long long)run, name,
            numGroups);
  }
  memset(cfg, 0, sizeof *cfg);
  if (numGroups < 1 || numGroups > NVFP4_ABI_MAX_GROUPS) {
    if (msg && msgSize)
      snprintf(msg, msgSize, "group count must be between 1 and %u", NVFP4_ABI_MAX_GROUPS);
    return false;
  }
  if (spec.target == MLIR_NVFP4_TARGET_SM90A)
    return planSm90Variant(cfg, numGroups, spec, msg, msgSize);
  if (spec.target == MLIR_NVFP4_TARGET_SM120A)
    return planSm120Variant(cfg, numGroups, spec, msg, msgSize);
  if (spec.target != MLIR_NVFP4_TARGET_SM100A) return fail(msg, msgSize, "unknown target");
  return planVariant(cfg, numGroups, spec, msg, msgSize);
}

/* ---- the sm_90a variant (docs/kernel-sm90a.md) ------------------------------------------ */

/* The pipeline depth: the spec's, or as many stages of stageBytes as fit next to `fixed`
 * bytes (at most MLIR_NVFP4_MAX_STAGES); false with a message when it does not fit. */
static bool fitStages(const MlirNvfp4KernelConfig *cfg, uint32_t requested, uint32_t fixed,
                      uint32_t *stages, char *msg, size_t msgSize) {
  const uint32_t smemBudget = MLIR_NVFP4_MAX_DYN_SMEM - 1024u /* alignment slack */;
  uint32_t maxBySmem = fixed < smemBudget ? (smemBudget - fixed) / cfg->stageBytes : 0;
  if (maxBySmem > MLIR_NVFP4_MAX_STAGES) maxBySmem = MLIR_NVFP4_MAX_STAGES;
  if (maxBySmem < 2) return fail(msg, msgSize, "two pipeline stages do not fit in shared memory");
  *stages = requested ? requested : maxBySmem;
  if (*stages > maxBySmem) {
    if (msg && msgSize)
      snprintf(msg, msgSize, "stages = %u does not fit in shared memory (at most %u)",
               requested, maxBySmem);
    return false;
  }
  return true;
}

/* The contiguous form on sm_90a (docs/kernel-sm90a.md): the shared maps of the parameter
 * block with the N-role box ladder (a token tile of T = 16 j rows is loaded as one box per
 * set bit of j, or the tile_n box), the expert schedule in the CTA's slice of the workspace
 * (16 bytes per expert and the tile total: up to 16 KB, which the pipeline's shared memory
 * cannot spare) and the scan scratch in the decoded token ring (the roles start after the
 * schedule is built). */
static void planSm90Contiguous(MlirNvfp4KernelConfig *cfg) {
  cfg->scheduleBytes = MLIR_NVFP4_MOE_RECORD_BYTES * (cfg->numGroups + 1u);
  cfg->scheduleInWorkspace = true;
  cfg->scheduleOffset = 0;
  cfg->scanOffset = cfg->sm90.decodedOffset; /* 8 x 640 bytes, below 3 decoded buffers */
  cfg->nLadder = nvfp4_abi_moe_ladder(cfg->tileN, cfg->nAlign);
  cfg->numTmaps = NVFP4_ABI_MOE_TMAP_LADDER + cfg->nLadder;
  cfg->paramBytes = NVFP4_ABI_MOE_PARAM_BYTES;
  cfg->workspacePerCta = roundUp(cfg->scheduleBytes, 128u);
}

/* Swap-AB only: the weights (B) are decoded into wgmma A register fragments, 64 rows per
 * consumer warpgroup; the tokens (A), sized per group (a multiple of 16 up to tileN), are
 * decoded into the wgmma B operand in shared memory. One stage holds the raw operands
 * exactly as the sm_100a stage does (TMA boxes of 256 K); the scale factors of the tokens
 * take two atom rows because a token tile starts at any multiple of 16 rows. */
static bool planSm90Variant(MlirNvfp4KernelConfig *cfg, uint32_t numGroups,
                            MlirNvfp4VariantSpec spec, char *msg, size_t msgSize) {
  if (spec.orientation != MLIR_NVFP4_ORIENTATION_SWAP_AB)
    return fail(msg, msgSize, "the sm_90a kernel has the swap-AB orientation only (variants "
                              "swap_n64, swap_n128, swap_n192, swap_n128_m192, swap_n64_m192, each "
                              "also with _sk): the weights feed the wgmma M side");
  if (spec.ctaGroup != 1) return fail(msg, msgSize, "the sm_90a kernel has no CTA-pair variant");
  if (spec.epilogue != MLIR_NVFP4_EPILOGUE_TMA_STORE)
    return fail(msg, msgSize, "the sm_90a kernel has the TMA-store epilogue only");
  if (spec.tileN == 256)
    return fail(msg, msgSize, "sm_90a token tiles are at most 192: a wgmma m64n256k16's 128 "
                              "accumulator registers must fit the entry budget, 65536 / 512 "
                              "threads = 128 registers");
  if (spec.tileN != 64 && spec.tileN != 128 && spec.tileN != 192)
    return fail(msg, msgSize, "tile_n of an sm_90a variant (its largest token tile, the wgmma N) "
                              "must be 64, 128 or 192");
  const uint32_t tileM = spec.tileM ? spec.tileM : MLIR_NVFP4_TILE_M;
  if (tileM != 128 && tileM != 192)
    return fail(msg, msgSize, "an sm_90a tile has 128 or 192 weight rows (one consumer "
                              "warpgroup per 64)");
  if (tileM > 128 && spec.tileN > 128)
    return fail(msg, msgSize, "a 192-weight sm_90a tile (three consumer warpgroups, 640 "
                              "threads) has token tiles up to 128: a wgmma m64n192k16 needs "
                              "more registers than 640 threads start with");
  if (!validateCommon(spec, msg, msgSize)) return false;
  /* The fused epilogue: a tile's weight rows are 64 gate and the 64 matching up rows, one
   * consumer warpgroup each, the activations exchanged through the staging buffers
   * (Sm90/EpilogueFused.c); the 192-weight tiles have no up warpgroup for their third and
   * the stream-K schedule's shares would need gate and up partial sums reduced first. */
  if (spec.swiglu && (tileM != 128 || spec.streamK))
    return fail(msg, msgSize, "the sm_90a fused epilogue \"swiglu_nvfp4\" is built for the "
                              "128-weight persistent variants only (swap_n64, swap_n128, "
                              "swap_n192): a tile pairs 64 gate and 64 up rows in its two "
                              "consumer warpgroups; the 192-weight and stream-K variants do not "
                              "implement it");
  const bool contiguous = spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  if (contiguous && spec.streamK)
    return fail(msg, msgSize, "the stream-K schedule (_sk) is built for the pointer-array form "
                              "(nvfp4.grouped_matmul): its shares are cut from the group table, "
                              "which nvfp4.moe_matmul does not have");

  const uint32_t rowBytes = MLIR_NVFP4_TILE_K / 2;
  const uint32_t kBlocks = MLIR_NVFP4_TILE_K / MLIR_NVFP4_MMA_K;
  cfg->spec = spec;
  cfg->numGroups = numGroups;
  cfg->tileM = cfg->mmaM = tileM;
  cfg->tileN = spec.tileN;
  cfg->tileK = MLIR_NVFP4_TILE_K;
  /* a 192-row weight tile starts at a multiple of 64 rows: it touches 2 atom rows of 128;
   * the fused epilogue's gate and up halves (64 rows each) take one atom row each */
  cfg->roleM = (MlirNvfp4OperandRole){.data = MLIR_NVFP4_TENSOR_B, .scales = MLIR_NVFP4_TENSOR_SFB,
                                      .rowsPerCta = tileM,
                                      .sfAtoms = tileM > 128 || spec.swiglu ? 2u : 1u};
  cfg->roleN = (MlirNvfp4OperandRole){.data = MLIR_NVFP4_TENSOR_A, .scales = MLIR_NVFP4_TENSOR_SFA,
                                      .rowsPerCta = spec.tileN, .dynamicRows = true};
  /* a token tile starts at any multiple of 16 rows: T rows touch up to
   * ceil((T + 112) / 128) atom rows of 128 (2 for T <= 128, 3 for T = 192) */
  cfg->roleN.sfAtoms = (spec.tileN + 112u + MLIR_NVFP4_SF_ATOM_ROWS - 1u) / MLIR_NVFP4_SF_ATOM_ROWS;
  cfg->mBytes = cfg->roleM.rowsPerCta * rowBytes;
  cfg->nBytes = cfg->roleN.rowsPerCta * rowBytes;
  cfg->sfmBytes = kBlocks * MLIR_NVFP4_SF_ATOM_BYTES * cfg->roleM.sfAtoms;
  cfg->sfnBytes = kBlocks * MLIR_NVFP4_SF_ATOM_BYTES * cfg->roleN.sfAtoms;
  cfg->mOffset = 0;
  cfg->nOffset = cfg->mBytes;
  cfg->sfmOffset = cfg->nOffset + cfg->nBytes;
  cfg->sfnOffset = cfg->sfmOffset + cfg->sfmBytes;
  cfg->stageBytes = roundUp(cfg->sfnOffset + cfg->sfnBytes, 1024);
  cfg->txBytesFixed = cfg->mBytes + cfg->sfmBytes + cfg->sfnBytes;

  MlirNvfp4Sm90Plan *p = &cfg->sm90;
  p->consumerGroups = tileM / 64u;
  /* Two token-decoder warpgroups: one decoder warp per SM sub-partition was latency-bound
   * (measured 2-5 % slower than two, docs/performance.md). At tile_n 192 a wgmma
   * m64n192k16 needs 126 registers in the kernel's entry budget, which 640 threads cannot
   * have (65 536 / 640 = 102): one decoder warpgroup, 512 threads of 128. A 192-weight
   * tile's third consumer warpgroup takes the second decoder's place (640 threads). */
  p->decoderGroups = spec.tileN > 128 || tileM > 128 ? 1 : 2;
  /* 0: every chunk's wgmmas are retired before the next chunk's decode writes its A
   * fragments. The chunk loop defines them with the same (PTX) registers each trip, and
   * PTX forbids rewriting the A registers of an in-flight wgmma; ptxas does not guard it
   * (depth 1 computed wrong sums on an H200, docs/kernel-sm90a.md, "Hazards"). The decode
   * still overlaps the other warpgroup's wgmmas. */
  p->mmaDepth = 0;
  /* The chunk loop unrolled by a stage (the stage wait, release and scale offsets fold):
   * measured on an H200 against the loop of one chunk, in one device call, swap_n128 got
   * 2-3 % faster on B1, B4 (160.7 against 164.3 us on B1), swap_n64 and swap_n192 4-9 %
   * slower (B2 93.2 against 85.7 on swap_n192), swap_n128_m192 2 % slower (B1 146.7
   * against 143.5; docs/performance.md). The fused epilogue's swap_n128 is not unrolled:
   * unrolled, its epilogue spilled 12 bytes. */
  p->stageUnroll = spec.tileN == 128 && tileM == 128 && !spec.swiglu;
  p->chunkK = MLIR_NVFP4_MMA_K;
  /* The token decoder runs up to decodedBuffers chunks ahead of the wgmmas: 4 where that
   * costs no pipeline stage, else 3 (set below). */
  p->decodedBuffers = 3;
  p->decodedBytes = spec.tileN * 128u; /* tileN rows x 64 BF16 */
  /* setmaxnreg budgets (producer, consumers, decoders): what the decreases free, the
   * consumers' increase takes, so that they sum to what the CTA starts with. */
  if (tileM > 128) {
    /* 640 threads of 96 (61 440): 128 x 24 + 384 x 120 + 128 x 96. The decoder keeps its
     * 96 (measured on an H200 against consumers 128 / decoder 72: B1 140.1 against 143.6 us;
     * more cannot be had: setmaxnreg.dec cannot raise a count above the entry budget). */
    p->producerRegs = 24, p->consumerRegs = 120, p->decoderRegs = 96;
    /* f32 C with the stream-K schedule: the staging's second pass keeps half the
     * accumulator live through the first pass's stores, which spilled at 120 (72 bytes):
     * consumers 128, decoder 72, as measured 2 % slower on B1 with f16 C */
    if (spec.streamK && spec.output == MLIR_NVFP4_OUTPUT_F32) p->consumerRegs = 128, p->decoderRegs = 72;
  } else if (spec.tileN > 128) {
    /* 512 threads start with 128 registers (65 536): 128 x 24 + 256 x 208 + 128 x 72 */
    p->producerRegs = 24, p->consumerRegs = 208, p->decoderRegs = 72;
  } else {
    /* 640 threads start with 96 registers (61 440): 128 x 40 + 256 x 160 + 256 x 56 */
    p->producerRegs = 40, p->consumerRegs = 160, p->decoderRegs = 56;
  }
  /* C staging: tileN rows of 128 bytes per consumer warpgroup, one 128-byte box column of
   * its 64 weight columns (f16 / bf16) stored as boxes of 16 rows. f32 C fills the same
   * bytes as two box columns of 32 weight columns and tileN / 2 token rows, in one or two
   * passes (Sm90/Epilogue.c): twice the staging would cost swap_n128 a pipeline stage. */
  /* (the fused epilogue's FP4 C is stored from registers; its staging, tileN x 256 bytes
   * over both buffers, holds the up values and then the activations) */
  cfg->cElemBytes = nvfp4_meta_c_bytes((uint32_t)spec.output);
  cfg->storeBoxCols = 128u / cfg->cElemBytes;
  cfg->stagingBuffers = p->consumerGroups;
  cfg->stagingRows = MLIR_NVFP4_SM90_STORE_ROWS;
  cfg->stagingBoxes = spec.tileN / MLIR_NVFP4_SM90_STORE_ROWS;
  cfg->stagingBytes = cfg->stagingRows * MLIR_NVFP4_STORE_COLS * 2u * cfg->stagingBoxes;

  const uint32_t lutBytes = 256u * 4u;
  const uint32_t maxDecoded = 4u;
  const uint32_t barrierWorst = 8u * (2u * MLIR_NVFP4_MAX_STAGES + 2u * maxDecoded);
  const uint32_t others = cfg->stagingBuffers * cfg->stagingBytes + lutBytes + barrierWorst;
  uint32_t stages, stages4;
  if (!fitStages(cfg, spec.stages, others + p->decodedBuffers * p->decodedBytes, &stages, msg,
                 msgSize))
    return false;
  if (fitStages(cfg, stages, others + maxDecoded * p->decodedBytes, &stages4, NULL, 0))
    p->decodedBuffers = maxDecoded;
  cfg->stages = stages;
  cfg->accBuffers = 1; /* the accumulator lives in the consumers' registers */

  uint32_t top = 0;
  planSmem(cfg, &top, "stage", cfg->stageBytes, stages, 1024);
  p->decodedOffset = planSmem(cfg, &top, "decoded tokens", p->decodedBytes, p->decodedBuffers, 1024);
  cfg->stagingOffset =
      planSmem(cfg, &top, "store staging", cfg->stagingBytes, cfg->stagingBuffers, 1024);
  p->lutOffset = planSmem(cfg, &top, "scale table", lutBytes, 1, 16);
  /* Every consumer warp (the weights) and every decoder warp (the tokens) releases a raw
   * stage, lane 0 after a warp barrier; decoder warps complete a decoded buffer, consumer
   * warps free it: no barrier joins two warpgroups. */
  const uint32_t consumerWarps = 4u * p->consumerGroups, decoderWarps = 4u * p->decoderGroups;
  planBarriers(cfg, &cfg->full, "full", stages, 1);
  planBarriers(cfg, &cfg->empty, "empty", stages, consumerWarps + decoderWarps);
  planBarriers(cfg, &p->decodedFull, "decodedFull", p->decodedBuffers, decoderWarps);
  planBarriers(cfg, &p->decodedEmpty, "decodedEmpty", p->decodedBuffers, consumerWarps);
  cfg->barrierOffset = planSmem(cfg, &top, "mbarriers", 8u * cfg->numBarriers, 1, 8);
  cfg->tmemSlotOffset = top; /* no Tensor Memory */
  cfg->dynSmemBytes = 1024u + top;
  if (cfg->dynSmemBytes > MLIR_NVFP4_MAX_DYN_SMEM)
    return fail(msg, msgSize, "the plan exceeds the shared-memory limit");
  cfg->paramBytes = NVFP4_ABI_PARAM_BYTES;
  cfg->numThreads = 128u * (1u + p->consumerGroups + p->decoderGroups); /* 640 or 512 */
  /* warpgroup 0 produces, the consumer warpgroups follow, the token decoders come last */
  cfg->roles[MLIR_NVFP4_ROLE_PRODUCER] = (MlirNvfp4WarpRange){0, 4};
  cfg->roles[MLIR_NVFP4_ROLE_CONSUMER] = (MlirNvfp4WarpRange){4, 4u * p->consumerGroups};
  cfg->roles[MLIR_NVFP4_ROLE_DECODER] =
      (MlirNvfp4WarpRange){4u * (1u + p->consumerGroups), 4u * p->decoderGroups};
  cfg->costDecodeRows = MLIR_NVFP4_SM90_DECODE_ROWS;
  cfg->costTokenSharePermille = MLIR_NVFP4_SM90_TOKEN_SHARE_PERMILLE;
  cfg->nAlign = MLIR_NVFP4_SM90_N_ALIGN;
  cfg->variantFlags = NVFP4_META_VFLAG_BALANCED_N;
  /* the fused epilogue's halves each load their own atom row: I any multiple of 64 */
  if (spec.swiglu) cfg->variantFlags |= NVFP4_META_VFLAG_SWIGLU_MID_ATOM;
  if (contiguous) planSm90Contiguous(cfg);
  /* tiles come sorted by descending work (BALANCED_N): pairing the largest of one pass with
   * the smallest of the next evens out the CTAs' totals */
  cfg->snakeOrder = !spec.streamK;
  if (spec.streamK) {
    /* The cost model of a tile (KernelConfig.h), W (T + D) - S (W - 128) T token-row-weights,
     * per stage in token rows: T + D W / (W - S (W - 128)), i.e. T + 70 at 128 weights,
     * (134.4 T + 13 440) / 134.4 = T + 100 at 192. Partial sums: per consumer thread
     * tileN / 2 fp32, as float4 columns; two slots per CTA (its first tile's share when that
     * starts past stage 0, its last tile's when that is split), each skFlagBytes of counters
     * and stage ends, then the sums. */
    cfg->streamK = true;
    cfg->variantFlags |= NVFP4_META_VFLAG_STREAM_K;
    const uint32_t weightsPm = 1000u * tileM - cfg->costTokenSharePermille * (tileM - 128u);
    cfg->streamKCost = cfg->costDecodeRows * tileM * 1000u / weightsPm;
    cfg->skFlagBytes = 128u;
    cfg->skSlotBytes = 128u * (spec.tileN / 2u) * 4u;
    cfg->workspacePerCta = 2u * (cfg->skFlagBytes + p->consumerGroups * cfg->skSlotBytes);
  }
  return true;
}

/* ---- the sm_120a variant (docs/kernel-sm120a.md) ------------------------------------------ */

/* The sm_120a spec's limits: 1-CTA tiles of 128 M-role rows, tile_n 64 or 128 (swap-AB also
 * 32: up to 32 tokens per tile), the one-CTA stream-K-free schedule, registers-to-global C. */
static bool validateSm120Spec(MlirNvfp4VariantSpec s, char *msg, size_t msgSize) {
  const bool swap = s.orientation == MLIR_NVFP4_ORIENTATION_SWAP_AB;
  if (s.orientation != MLIR_NVFP4_ORIENTATION_AB && !swap)
    return fail(msg, msgSize, "unknown orientation");
  if (s.ctaGroup != 1)
    return fail(msg, msgSize, "the sm_12x kernel has no CTA-pair variant (sm_120 has no "
                              ".cta_group::2 and the block-scaled GEMM runs in 1-CTA clusters)");
  if (s.tileN != 64 && s.tileN != 128 && !(swap && s.tileN == 32))
    return fail(msg, msgSize, "tile_n of an sm_12x variant must be 64 or 128 (swap-AB also "
                              "32): two 256-row stages exceed 99 KiB; a 192-row tile straddles "
                              "two scale-factor atom rows");
  if (s.tileM && s.tileM != MLIR_NVFP4_TILE_M)
    return fail(msg, msgSize, "an sm_12x tile has 128 M-role rows");
  if (s.streamK)
    return fail(msg, msgSize, "the stream-K schedule (_sk) is implemented for target sm_90a only");
  if (s.swiglu && swap)
    return fail(msg, msgSize, "the fused epilogue \"swiglu_nvfp4\" is built for the sm_120a AB "
                              "variants only (ab_n64, ab_n128; swap-AB does not implement it)");
  return validateCommon(s, msg, msgSize);
}

/* One CTA: 8 consumer warps issue mma.sync m16n8k64 on fp32 register accumulators, one
 * producer warp issues the TMA loads. A stage holds the raw operands as every target's does
 * (256 K; 128-byte rows with the 128-byte swizzle; FP4 bytes through UINT8 tensor maps, as
 * on sm_90a); C goes from the registers to global memory. The stage ring is as deep as
 * 99 KiB allow: 2 stages of 36 KiB at tile_n 128, 3 of 28 KiB at 64, 4 of 24 KiB at 32. */
static bool planSm120Variant(MlirNvfp4KernelConfig *cfg, uint32_t numGroups,
                             MlirNvfp4VariantSpec spec, char *msg, size_t msgSize) {
  if (!validateSm120Spec(spec, msg, msgSize)) return false;
  const bool swap = spec.orientation == MLIR_NVFP4_ORIENTATION_SWAP_AB;
  const bool contiguous = spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  const uint32_t rowBytes = MLIR_NVFP4_TILE_K / 2, kBlocks = MLIR_NVFP4_TILE_K / MLIR_NVFP4_MMA_K;
  spec.epilogue = MLIR_NVFP4_EPILOGUE_DIRECT_STORE; /* the only one */
  /* the fused epilogue's gate and up halves (tile_n / 2 rows at multiples of 32, I a
   * multiple of 64) never straddle an atom row: one each, whatever I */
  spec.swigluMidAtom = false;
  cfg->spec = spec;
  cfg->numGroups = numGroups;
  cfg->tileM = cfg->mmaM = MLIR_NVFP4_TILE_M;
  cfg->tileN = spec.tileN;
  cfg->tileK = MLIR_NVFP4_TILE_K;
  /* The N role's tiles start at multiples of their tile_n (a power of two up to 128, or 0):
   * one scale-factor atom row holds them. */
  cfg->roleM = (MlirNvfp4OperandRole){
      .data = swap ? MLIR_NVFP4_TENSOR_B : MLIR_NVFP4_TENSOR_A,
      .scales = swap ? MLIR_NVFP4_TENSOR_SFB : MLIR_NVFP4_TENSOR_SFA,
      .rowsPerCta = MLIR_NVFP4_TILE_M, .sfAtoms = 1};
  cfg->roleN = (MlirNvfp4OperandRole){
      .data = swap ? MLIR_NVFP4_TENSOR_A : MLIR_NVFP4_TENSOR_B,
      .scales = swap ? MLIR_NVFP4_TENSOR_SFA : MLIR_NVFP4_TENSOR_SFB,
      .rowsPerCta = spec.tileN, .sfAtoms = 1, .dynamicRows = swap};
  if (spec.swiglu) { /* docs/kernel-sm120a.md, "The fused SwiGLU + NVFP4 epilogue" */
    cfg->roleN.sfAtoms = 2; /* the gate half's atom row and the up half's */
    cfg->variantFlags |= NVFP4_META_VFLAG_SWIGLU_MID_ATOM; /* I any multiple of 64 */
  }
  cfg->mBytes = cfg->roleM.rowsPerCta * rowBytes;
  cfg->nBytes = cfg->roleN.rowsPerCta * rowBytes;
  cfg->sfmBytes = kBlocks * MLIR_NVFP4_SF_ATOM_BYTES;
  cfg->sfnBytes = cfg->roleN.sfAtoms * cfg->sfmBytes;
  cfg->mOffset = 0;
  cfg->nOffset = cfg->mBytes;
  cfg->sfmOffset = cfg->nOffset + cfg->nBytes;
  cfg->sfnOffset = cfg->sfmOffset + cfg->sfmBytes;
  cfg->stageBytes = roundUp(cfg->sfnOffset + cfg->sfnBytes, 1024);
  cfg->txBytesFixed = cfg->mBytes + cfg->sfmBytes + cfg->sfnBytes + (swap ? 0u : cfg->nBytes);
  cfg->cElemBytes = nvfp4_meta_c_bytes((uint32_t)spec.output);
  cfg->storeBoxCols = 128u / cfg->cElemBytes;

  /* The warp grid: swap-AB 8 x 1 (each warp 16 weight rows x every token, so that a
   * narrow token tile keeps every warp busy), AB 4 x 2 (32 x tileN / 2: a quarter less
   * shared-memory traffic per MMA). */
  MlirNvfp4Sm120Plan *p = &cfg->sm120;
  p->consumerWarps = 8;
  p->warpsM = swap ? 8u : 4u;
  p->warpsN = p->consumerWarps / p->warpsM;
  p->mBlocks = MLIR_NVFP4_TILE_M / (16u * p->warpsM);
  p->nBlocks = spec.tileN / (8u * p->warpsN);
  p->producerWarp = p->consumerWarps;
  cfg->numThreads = 32u * (p->consumerWarps + 1u);
  cfg->roles[MLIR_NVFP4_ROLE_MMA_SYNC] = (MlirNvfp4WarpRange){0, p->consumerWarps};
  cfg->roles[MLIR_NVFP4_ROLE_PRODUCER] = (MlirNvfp4WarpRange){p->producerWarp, 1};
  cfg->nAlign = MLIR_NVFP4_SM120_N_ALIGN;
  if (contiguous) {
    cfg->scheduleBytes = MLIR_NVFP4_MOE_RECORD_BYTES * (numGroups + 1u);
    cfg->nLadder = swap ? nvfp4_abi_moe_ladder(spec.tileN, cfg->nAlign) : 0u;
    cfg->numTmaps = NVFP4_ABI_MOE_TMAP_LADDER + cfg->nLadder;
  }
  const uint32_t scanBytes = contiguous ? 8u * cfg->numThreads : 0u;

  /* As many stages as 99 KiB hold next to the barriers (worst case of 8 stages) and the
   * contiguous form's schedule. */
  const uint32_t budget = MLIR_NVFP4_SM120_MAX_DYN_SMEM - 1024u /* alignment slack */;
  const uint32_t fixed = 8u * 2u * MLIR_NVFP4_MAX_STAGES +
                         (contiguous ? 32u + cfg->scheduleBytes + scanBytes : 0u);
  uint32_t most = fixed < budget ? (budget - fixed) / cfg->stageBytes : 0;
  if (most > MLIR_NVFP4_MAX_STAGES) most = MLIR_NVFP4_MAX_STAGES;
  if (most < 2)
    return fail(msg, msgSize, "two pipeline stages do not fit in the 99 KiB of shared memory of "
                              "an sm_120 block (too many experts for the schedule?)");
  const uint32_t stages = spec.stages ? spec.stages : most;
  if (stages > most) {
    if (msg && msgSize)
      snprintf(msg, msgSize, "stages = %u does not fit in the 99 KiB of shared memory of an "
                             "sm_120 block (at most %u)", spec.stages, most);
    return false;
  }
  cfg->stages = stages;
  cfg->accBuffers = 1; /* the accumulators live in the consumers' registers */

  uint32_t top = 0;
  planSmem(cfg, &top, "stage", cfg->stageBytes, stages, 1024);
  planBarriers(cfg, &cfg->full, "full", stages, 1);
  planBarriers(cfg, &cfg->empty, "empty", stages, p->consumerWarps);
  cfg->barrierOffset = planSmem(cfg, &top, "mbarriers", 8u * cfg->numBarriers, 1, 8);
  cfg->tmemSlotOffset = top; /* no Tensor Memory */
  return planFinish(cfg, top, scanBytes, MLIR_NVFP4_SM120_MAX_DYN_SMEM,
                    "the plan exceeds the 99 KiB shared-memory limit of sm_120", msg, msgSize);
}

void mlirNvfp4KernelConfigPrint(const MlirNvfp4KernelConfig *cfg, void *file) {
  FILE *f = file;
  char name[32];
  mlirNvfp4VariantName(cfg->spec, name, sizeof name);
  fprintf(f, "variant %s: mma %ux%u%s, stages %u, accumulators %u, sf slots %u%s\n", name,
          cfg->mmaM, cfg->tileN, cfg->roleN.dynamicRows ? " (N per group)" : "", cfg->stages,
          cfg->accBuffers, cfg->sfSlots, cfg->sfRing ? " (ring)" : "");
  for (uint32_t i = 0; i < cfg->numSmemRegions; ++i) {
    const MlirNvfp4SmemRegion *r = &cfg->smem[i];
    fprintf(f, "  smem %-14s offset %6u bytes %6u copies %u\n", r->name, r->offset, r->bytes,
            r->copies);
  }
  for (uint32_t i = 0; i < cfg->numBarrierArrays; ++i) {
    const MlirNvfp4BarrierArray *b = &cfg->barriers[i];
    fprintf(f, "  mbarrier %-10s first %2u count %u arrivals %u\n", b->name, b->first,
            b->count, b->arrivals);
  }
  for (uint32_t i = 0; i < cfg->numTmemRegions; ++i) {
    const MlirNvfp4TmemRegion *r = &cfg->tmem[i];
    fprintf(f, "  tmem %-14s column %3u columns %3u copies %u\n", r->name, r->column,
            r->columns, r->copies);
  }
  if (cfg->spec.target == MLIR_NVFP4_TARGET_SM90A)
    fprintf(f, "  sm_90a: %u consumer warpgroups, %u token decoder, wgmma depth %u, %u decoded "
               "buffers, registers %u/%u/%u%s\n",
            cfg->sm90.consumerGroups, cfg->sm90.decoderGroups, cfg->sm90.mmaDepth,
            cfg->sm90.decodedBuffers, cfg->sm90.producerRegs, cfg->sm90.consumerRegs,
            cfg->sm90.decoderRegs, cfg->sm90.stageUnroll ? ", chunk loop unrolled by a stage" : "");
  if (cfg->spec.target == MLIR_NVFP4_TARGET_SM120A)
    fprintf(f, "  sm_120a: %u consumer warps (%u x %u, %u m16 x %u n8 blocks each), producer "
               "warp %u\n",
            cfg->sm120.consumerWarps, cfg->sm120.warpsM, cfg->sm120.warpsN, cfg->sm120.mBlocks,
            cfg->sm120.nBlocks, cfg->sm120.producerWarp);
  if (cfg->streamK)
    fprintf(f, "  stream-K: stage cost tile_n + %u, workspace %u bytes per CTA\n",
            cfg->streamKCost, cfg->workspacePerCta);
  fprintf(f, "  dynamic smem %u bytes, tmem %u columns allocated\n", cfg->dynSmemBytes,
          cfg->tmemCols);
  static const char *const types[] = {"f16", "bf16", "f32", "fp4 (swiglu_nvfp4)"};
  const bool contiguous = cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  fprintf(f, "  C %s%s, %s form, parameter block %u bytes, device table %u bytes",
          types[cfg->spec.output], cfg->spec.alpha ? " with alpha" : "",
          contiguous ? "contiguous" : "pointer-array", cfg->paramBytes,
          contiguous ? nvfp4_abi_moe_table_bytes(cfg->numTmaps)
                     : nvfp4_abi_table_bytes(cfg->numGroups));
  if (contiguous)
    fprintf(f, ", %u tensor maps (%u N-role box ladder)", cfg->numTmaps, cfg->nLadder);
  if (cfg->scheduleInWorkspace)
    fprintf(f, ", expert schedule in the workspace (%u bytes per CTA)", cfg->workspacePerCta);
  fprintf(f, "\n");
}

const char *mlirNvfp4WarpRoleName(MlirNvfp4WarpRole role) {
  static const char *const names[MLIR_NVFP4_ROLE_COUNT] = {"epilogue", "producer", "mma",
                                                           "consumer", "decoder", "mmasync"};
  return (unsigned)role < MLIR_NVFP4_ROLE_COUNT ? names[role] : "unknown";
}

/* snprintf into out at *len, which grows by what the whole text needs. */
static void planf(char *out, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void planf(char *out, size_t size, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(*len < size ? out + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
  va_end(ap);
  if (n > 0) *len += (size_t)n;
}

size_t mlirNvfp4KernelConfigPlanText(const MlirNvfp4KernelConfig *cfg, char *out, size_t size) {
  size_t len = 0;
  if (out && size) out[0] = 0;
  else out = NULL, size = 0;
  char name[32];
  mlirNvfp4VariantName(cfg->spec, name, sizeof name);
  planf(out, size, &len, "variant %s\nthreads %u\ncluster %u\ndyn_smem %u\n", name,
        cfg->numThreads, cfg->spec.ctaGroup, cfg->dynSmemBytes);
  for (uint32_t r = 0; r < MLIR_NVFP4_ROLE_COUNT; ++r)
    if (cfg->roles[r].count)
      planf(out, size, &len, "role %u %u %s\n", cfg->roles[r].first,
            cfg->roles[r].first + cfg->roles[r].count - 1u,
            mlirNvfp4WarpRoleName((MlirNvfp4WarpRole)r));
  for (uint32_t i = 0; i < cfg->numSmemRegions; ++i) {
    const MlirNvfp4SmemRegion *m = &cfg->smem[i];
    planf(out, size, &len, "smem %u %u %u %u %s\n", m->offset, m->bytes, m->copies, m->stride,
          m->name);
  }
  /* the parts of a stage, so that reports can name the tile a byte belongs to */
  const struct { uint32_t offset, bytes; const char *name; } parts[4] = {
      {cfg->mOffset, cfg->mBytes, "M-role tile"},
      {cfg->nOffset, cfg->nBytes, "N-role tile"},
      {cfg->sfmOffset, cfg->sfmBytes, "M-role scale factors"},
      {cfg->sfnOffset, cfg->sfnBytes, "N-role scale factors"}};
  for (int i = 0; i < 4; ++i)
    planf(out, size, &len, "stagepart %u %u %s\n", parts[i].offset, parts[i].bytes,
          parts[i].name);
  for (uint32_t i = 0; i < cfg->numBarrierArrays; ++i) {
    const MlirNvfp4BarrierArray *a = &cfg->barriers[i];
    planf(out, size, &len, "barrier %u %u %u %s\n", cfg->barrierOffset + 8u * a->first, a->count,
          a->arrivals, a->name);
  }
  for (uint32_t i = 0; i < cfg->numTmemRegions; ++i) {
    const MlirNvfp4TmemRegion *t = &cfg->tmem[i];
    planf(out, size, &len, "tmem %u %u %u %u %s\n", t->column, t->columns, t->copies, t->stride,
          t->name);
  }
  return len;
}

void mlirNvfp4KernelConfigEncodeMetadata(const MlirNvfp4KernelConfig *cfg,
                                         const char *kernelName, const char *target,
                                         uint32_t targetSm, uint32_t flags,
                                         uint32_t workspacePerCta, uint32_t variantIndex,
                                         uint32_t variantCount, unsigned char *rec) {
  const uint32_t cta = cfg->spec.ctaGroup;
  nvfp4_kernel_metadata m = {
      .magic = NVFP4_METADATA_MAGIC, .abi_version = NVFP4_ABI_VERSION,
      .record_bytes = NVFP4_METADATA_BYTES, .target_sm = targetSm, .flags = flags,
      .block = {cfg->numThreads ? cfg->numThreads : MLIR_NVFP4_NUM_THREADS, 1, 1},
      .cluster = {cta, 1, 1},
      .dyn_smem_bytes = cfg->dynSmemBytes, .tile_m = cfg->mmaM, .tile_n = cfg->tileN,
      .tile_k = cfg->tileK, .stages = cfg->stages, .max_groups = cfg->numGroups,
      .param_bytes = cfg->paramBytes, .tmem_cols = cfg->tmemCols,
      .acc_buffers = cfg->accBuffers, .workspace_per_cta = workspacePerCta,
      .k_granule = MLIR_NVFP4_K_GRANULE, .sfn_atoms = cfg->roleN.sfAtoms,
      .variant_index = variantIndex, .variant_count = variantCount,
      .orientation = (uint32_t)cfg->spec.orientation, .cta_group = cta,
      .epilogue = (uint32_t)cfg->spec.epilogue,
      .variant_flags =
          (cfg->roleN.dynamicRows ? NVFP4_META_VFLAG_DYNAMIC_N : 0u) | cfg->variantFlags,
      .m_box_rows = cfg->roleM.rowsPerCta, .n_box_rows = cfg->roleN.rowsPerCta,
      .sfm_atoms = cfg->roleM.sfAtoms, .store_box_rows = cfg->stagingRows,
      .n_align = cfg->nAlign ? cfg->nAlign : MLIR_NVFP4_N_STEP * cta,
      .c_type = (uint32_t)cfg->spec.output,
      .epilogue_flags = (cfg->spec.alpha ? NVFP4_META_EFLAG_ALPHA : 0u) |
                        (cfg->spec.swiglu ? NVFP4_META_EFLAG_SWIGLU_NVFP4 : 0u),
      .form = (uint32_t)cfg->spec.form, .cost_decode_rows = cfg->costDecodeRows,
      .cost_token_share = cfg->costTokenSharePermille};
  if (cfg->spec.swiglu) {
    /* the gate and up halves of a stage's B rows (the N role; the M role of the swap-AB
     * sm_90a kernel, which stores C from registers too: no C map) come as two boxes each
     * (KernelABI.h, NVFP4_META_EFLAG_SWIGLU_NVFP4) */
    if (cfg->roleM.data == MLIR_NVFP4_TENSOR_B) {
      m.m_box_rows = cfg->roleM.rowsPerCta / 2u;
      m.sfm_atoms = 1u;
      m.epilogue = NVFP4_META_EPILOGUE_DIRECT_STORE;
    } else {
      m.n_box_rows = cfg->roleN.rowsPerCta / 2u;
      m.sfn_atoms = 1u;
    }
    if (cfg->spec.debugActivations) m.flags |= NVFP4_META_FLAG_DEBUG_ACTIVATIONS;
  }
  memset(rec, 0, NVFP4_METADATA_BYTES);
#define F(field, off) nvfp4_meta_write_u32(rec, NVFP4_META_##off, m.field);
  NVFP4_META_U32_FIELDS(F)
#undef F
  snprintf((char *)rec + NVFP4_META_KERNEL_NAME, NVFP4_META_KERNEL_NAME_BYTES, "%s", kernelName);
  snprintf((char *)rec + NVFP4_META_TARGET, NVFP4_META_TARGET_BYTES, "%s", target);
  snprintf((char *)rec + NVFP4_META_SOURCE_TARGET, NVFP4_META_SOURCE_TARGET_BYTES, "%s", target);
}

/* ---- families -------------------------------------------------------------------------- */

uint32_t mlirNvfp4DefaultFamilySpecs(uint32_t tileN, uint32_t stages, MlirNvfp4VariantSpec *out,
                                     uint32_t max) {
  MlirNvfp4VariantSpec all[3] = {mlirNvfp4VariantSpecDefault(tileN, stages),
                                 mlirNvfp4VariantSpecDefault(128, stages),
                                 mlirNvfp4VariantSpecDefault(256, stages)};
  all[1].orientation = all[2].orientation = MLIR_NVFP4_ORIENTATION_SWAP_AB;
  uint32_t n = 0;
  for (uint32_t i = 0; i < 3 && n < max; ++i) out[n++] = all[i];
  return n;
}

uint32_t mlirNvfp4DefaultFamilySpecsForTarget(MlirNvfp4Target target, uint32_t tileN,
                                              uint32_t stages, MlirNvfp4VariantSpec *out,
                                              uint32_t max) {
  if (target == MLIR_NVFP4_TARGET_SM120A) {
    /* AB with the op's tile_n, swap-AB with up to 64 and up to 128 tokens per tile
     * (docs/kernel-sm120a.md: the smaller token tile has a stage more) */
    MlirNvfp4VariantSpec all[3] = {mlirNvfp4VariantSpecDefault(tileN, stages),
                                   mlirNvfp4VariantSpecDefault(64, stages),
                                   mlirNvfp4VariantSpecDefault(128, stages)};
    uint32_t n = 0;
    for (uint32_t i = 0; i < 3 && n < max; ++i) {
      all[i].target = MLIR_NVFP4_TARGET_SM120A;
      all[i].orientation = i ? MLIR_NVFP4_ORIENTATION_SWAP_AB : MLIR_NVFP4_ORIENTATION_AB;
      out[n++] = all[i];
    }
    return n;
  }
  if (target != MLIR_NVFP4_TARGET_SM90A)
    return mlirNvfp4DefaultFamilySpecs(tileN, stages, out, max);
  /* swap_n<tile_n> first, then the other widths of 64, 128, 192, then the 192-weight tiles
   * swap_n128_m192 and swap_n64_m192, then swap_n128_m192 with the stream-K schedule: the
   * runtime's cost model picks per launch (on an H200: swap_n128_m192_sk for B1, whose 242
   * tiles are 1.8 waves; swap_n128_m192 for B2, whose token decode is shared by more weights
   * and whose three consumer warpgroups overlap decode and wgmma better; swap_n64_m192 for
   * B3, whose 64-row token tiles fill the SMs; swap_n128 for B4) */
  uint32_t first = tileN ? tileN : MLIR_NVFP4_DEFAULT_TILE_N;
  const bool valid = first == 64 || first == 128 || first == 192; /* else refused by the planner */
  const uint32_t tiles[6][3] = { /* {tile_n, tile_m, stream-K} */
      {first, 0, 0},
      {first == 128 || !valid ? 64u : 128u, 0, 0},
      {first == 192 ? 64u : 192u, 0, 0},
      {128, 192, 0}, /* swap_n128_m192, swap_n64_m192: three consumer warpgroups */
      {64, 192, 0},
      {128, 192, 1}}; /* swap_n128_m192_sk */
  uint32_t n = 0;
  for (uint32_t i = 0; i < 6 && n < max; ++i) {
    MlirNvfp4VariantSpec s = mlirNvfp4VariantSpecDefault(tiles[i][0], stages);
    s.orientation = MLIR_NVFP4_ORIENTATION_SWAP_AB;
    s.target = MLIR_NVFP4_TARGET_SM90A;
    s.tileM = tiles[i][1];
    s.streamK = tiles[i][2] != 0;
    out[n++] = s;
  }
  return n;
}

static bool familySizeOk(uint32_t count, char *msg, size_t msgSize) {
  if (count >= 1 && count <= MLIR_NVFP4_MAX_VARIANTS) return true;
  if (msg && msgSize)
    snprintf(msg, msgSize, "a kernel family has 1 to %u variants, got %u", MLIR_NVFP4_MAX_VARIANTS,
             count);
  return false;
}

bool mlirNvfp4KernelFamilyInit(MlirNvfp4KernelFamily *family, uint32_t numGroups,
                               const MlirNvfp4VariantSpec *specs, uint32_t count, char *msg,
                               size_t msgSize) {
  family->count = 0;
  if (!familySizeOk(count, msg, msgSize)) return false;
  for (uint32_t i = 0; i < count; ++i) {
    char name[32], why[200];
    mlirNvfp4VariantName(specs[i], name, sizeof name);
    for (uint32_t j = 0; j < i; ++j) {
      char other[32];
      mlirNvfp4VariantName(specs[j], other, sizeof other);
      if (!strcmp(name, other)) {
        if (msg && msgSize) snprintf(msg, msgSize, "variant %s is listed twice", name);
        return false;
      }
    }
    if (!mlirNvfp4KernelConfigInitVariant(&family->variants[i], numGroups, specs[i], why,
                                          sizeof why)) {
      if (msg && msgSize) snprintf(msg, msgSize, "variant %s: %s", name, why);
      return false;
    }
  }
  family->count = count;
  return true;
}

/* ---- the memo: each family planned once ------------------------------------------------- */

typedef struct PlanMemo {
  uint32_t numGroups, count;        /* count 0: an empty slot */
  MlirNvfp4VariantSpec specs[MLIR_NVFP4_MAX_VARIANTS];
  bool ok;
  char msg[256];                    /* the planner's message when !ok */
  MlirNvfp4KernelConfig *variants;  /* count plans when ok */
  uint64_t lastUse;
} PlanMemo;

static PlanMemo memo[MLIR_NVFP4_PLAN_MEMO];
static uint64_t memoClock;
static atomic_flag memoLock = ATOMIC_FLAG_INIT;

static bool specEqual(const MlirNvfp4VariantSpec *a, const MlirNvfp4VariantSpec *b) {
  return a->orientation == b->orientation && a->ctaGroup == b->ctaGroup &&
         a->tileN == b->tileN && a->epilogue == b->epilogue && a->stages == b->stages &&
         a->target == b->target && a->output == b->output && a->alpha == b->alpha &&
         a->form == b->form && a->tileM == b->tileM && a->streamK == b->streamK &&
         a->swiglu == b->swiglu && a->debugActivations == b->debugActivations &&
         a->swigluMidAtom == b->swigluMidAtom && a->pairForward == b->pairForward;
}

/* The slot of these inputs, or (found false) the slot to plan them into: an empty one, else
 * the least recently used. */
static PlanMemo *memoSlot(uint32_t numGroups, const MlirNvfp4VariantSpec *specs, uint32_t count,
                          bool *found) {
  PlanMemo *victim = &memo[0];
  for (uint32_t i = 0; i < MLIR_NVFP4_PLAN_MEMO; ++i) {
    PlanMemo *e = &memo[i];
    bool same = e->count == count && e->numGroups == numGroups;
    for (uint32_t v = 0; same && v < count; ++v) same = specEqual(&e->specs[v], &specs[v]);
    if (same) {
      *found = true;
      return e;
    }
    if (victim->count && (!e->count || e->lastUse < victim->lastUse)) victim = e;
  }
  *found = false;
  return victim;
}

/* Plans the family into slot e; false when out of memory (e stays empty). */
static bool memoPlan(PlanMemo *e, uint32_t numGroups, const MlirNvfp4VariantSpec *specs,
                     uint32_t count) {
  free(e->variants);
  memset(e, 0, sizeof *e);
  MlirNvfp4KernelFamily *family = malloc(sizeof *family);
  if (!family) return false;
  e->ok = mlirNvfp4KernelFamilyInit(family, numGroups, specs, count, e->msg, sizeof e->msg);
  if (e->ok) {
    e->variants = malloc(sizeof *e->variants * count);
    if (!e->variants) {
      free(family);
      return false;
    }
    memcpy(e->variants, family->variants, sizeof *e->variants * count);
  }
  free(family);
  memcpy(e->specs, specs, sizeof *specs * count);
  e->numGroups = numGroups;
  e->count = count;
  return true;
}

bool mlirNvfp4KernelFamilyInitMemoized(MlirNvfp4KernelFamily *family, uint32_t numGroups,
                                       const MlirNvfp4VariantSpec *specs, uint32_t count,
                                       char *msg, size_t msgSize) {
  if (family) family->count = 0;
  if (!familySizeOk(count, msg, msgSize)) return false;
  while (atomic_flag_test_and_set_explicit(&memoLock, memory_order_acquire)) {
  }
  bool found, ok;
  PlanMemo *e = memoSlot(numGroups, specs, count, &found);
  if (!found && !memoPlan(e, numGroups, specs, count)) {
    ok = fail(msg, msgSize, "out of memory while planning the kernel family");
  } else {
    e->lastUse = ++memoClock;
    ok = e->ok;
    if (!ok) fail(msg, msgSize, e->msg);
    else if (family) {
      memcpy(family->variants, e->variants, sizeof *e->variants * count);
      family->count = count;
    }
  }
  atomic_flag_clear_explicit(&memoLock, memory_order_release);
  return ok;
}
