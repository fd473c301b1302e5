/* KernelPlanTests.c — unit tests of the kernel planner (include/nvfp4-c/KernelConfig.h):
 * for every variant the generator can build and several group counts, the invariants the
 * kernel relies on (regions inside the shared-memory limit and disjoint, 1024-B aligned
 * stages and staging buffers, barriers and TMEM regions in bounds and disjoint, the
 * scale-factor ring exactly when slots < stages, expect_tx = the bytes of a stage's
 * boxes, the parameter block rule of each form, C element types and the contiguous form's
 * schedule, the role map, the cost-model constants), golden configurations, variant names
 * and parsing, the default family, the plan text and the planner's memo; the sm_90a and
 * sm_120a plans; the fused SwiGLU + NVFP4 epilogue's plan and metadata (sm_100a, sm_90a).
 * Prints "PASS:"/"FAIL:" lines and a summary; with arguments VARIANT [STAGES], prints
 * that variant's plan table instead, with "all" every variant's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/KernelConfig.h"

static int gPassed, gFailed;

static void check(int ok, const char *what, const char *name) {
  if (ok) ++gPassed;
  else {
    ++gFailed;
    printf("FAIL: %s: %s\n", name, what);
  }
}

static int overlaps(uint32_t a, uint32_t an, uint32_t b, uint32_t bn) {
  return a < b + bn && b < a + an;
}

/* The parameter block (ABI 6, every target and form): the header alone (pointer-array form)
 * or the header and the problem record (contiguous form), at most 256 bytes whatever the
 * group count; the table and the maps live in device memory. */
static void paramBlockInvariants(const MlirNvfp4KernelConfig *c, const char *name) {
  const int contiguous = c->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS;
  check(c->paramBytes == (contiguous ? 128u : 64u) && c->paramBytes <= NVFP4_ABI_MAX_PARAM_BYTES &&
            NVFP4_ABI_MAX_PARAM_BYTES == 256u,
        "parameter block: 64 (pointer-array) / 128 (contiguous) bytes, <= 256 for any G", name);
}

/* The role map: every warp of the CTA in exactly one role; the target's roles only; and the
 * parameter block. */
static void roleInvariants(const MlirNvfp4KernelConfig *c, const char *name) {
  paramBlockInvariants(c, name);
  uint32_t owner[64] = {0}, warps = c->numThreads / 32u, covered = 0;
  for (uint32_t r = 0; r < MLIR_NVFP4_ROLE_COUNT; ++r)
    for (uint32_t w = c->roles[r].first; w < c->roles[r].first + c->roles[r].count && w < 64; ++w)
      owner[w]++, covered++;
  int once = covered == warps && warps <= 64;
  for (uint32_t w = 0; w < warps && w < 64; ++w) once = once && owner[w] == 1;
  check(once, "role map: every warp in exactly one role", name);
  const int sm90 = c->spec.target == MLIR_NVFP4_TARGET_SM90A;
  const int sm120 = c->spec.target == MLIR_NVFP4_TARGET_SM120A, sm100 = !sm90 && !sm120;
  check(c->roles[MLIR_NVFP4_ROLE_PRODUCER].count > 0 &&
            (c->roles[MLIR_NVFP4_ROLE_MMA].count > 0) == sm100 &&
            (c->roles[MLIR_NVFP4_ROLE_EPILOGUE].count > 0) == sm100 &&
            (c->roles[MLIR_NVFP4_ROLE_CONSUMER].count > 0) == sm90 &&
            (c->roles[MLIR_NVFP4_ROLE_DECODER].count > 0) == sm90 &&
            (c->roles[MLIR_NVFP4_ROLE_MMA_SYNC].count > 0) == sm120,
        "role map: the target's roles", name);
}

static void invariants(const MlirNvfp4KernelConfig *c, const char *name) {
  const uint32_t limit = c->dynSmemBytes - 1024; /* usable after aligning the base */
  roleInvariants(c, name);
  check(c->costDecodeRows == 0 && c->costTokenSharePermille == 0,
        "no decode: cost-model constants 0", name);
  check(c->dynSmemBytes <= MLIR_NVFP4_MAX_DYN_SMEM, "dynamic smem within the opt-in limit", name);
  for (uint32_t i = 0; i < c->numSmemRegions; ++i) {
    const MlirNvfp4SmemRegion *r = &c->smem[i];
    check(r->offset + r->bytes <= limit, "smem region inside the allocation", name);
    for (uint32_t j = 0; j < i; ++j)
      check(!overlaps(r->offset, r->bytes, c->smem[j].offset, c->smem[j].bytes),
            "smem regions disjoint", name);
  }
  check(c->stageBytes % 1024 == 0 && c->mOffset % 1024 == 0 && c->nOffset % 1024 == 0,
        "stage and operand tiles 1024-B aligned (SWIZZLE_128B)", name);
  check(c->sfmOffset % 512 == 0 && c->sfnOffset % 512 == 0, "scale-factor atoms 512-B aligned",
        name);
  if (c->stagingBuffers)
    check(c->stagingOffset % 1024 == 0 &&
              (c->stagingBytes / c->stagingBoxes) % 1024 == 0 &&
              c->stagingBytes == c->stagingRows * 128u * c->stagingBoxes,
          "staging boxes 1024-B aligned, rows of 128 B", name);
  check(c->tmemSlotOffset >= c->barrierOffset + 8 * c->numBarriers, "TMEM slot after barriers",
        name);
  uint32_t counted = 0;
  for (uint32_t i = 0; i < c->numBarrierArrays; ++i) {
    const MlirNvfp4BarrierArray *a = &c->barriers[i];
    check(a->first + a->count <= c->numBarriers && a->arrivals > 0, "barrier array in bounds", name);
    counted += a->count;
  }
  check(counted == c->numBarriers, "every barrier belongs to one array", name);
  check(c->full.count == c->stages && c->empty.count == c->stages &&
            c->accFull.count == c->accBuffers && c->accEmpty.count == c->accBuffers &&
            c->accEmpty.arrivals == 128u * c->spec.ctaGroup &&
            c->peerFull.count == (c->spec.ctaGroup > 1 && c->spec.pairForward ? c->stages : 0u) &&
            c->sfFree.count == (c->sfRing ? c->sfSlots : 0u),
        "barrier arrays match the pipeline", name);
  check((c->tmemCols & (c->tmemCols - 1)) == 0 && c->tmemCols >= 32 &&
            c->tmemCols <= MLIR_NVFP4_TMEM_COLUMNS,
        "TMEM allocation a power of two in [32, 512]", name);
  check(c->accCol0 + c->accBuffers * c->tileN <= c->sfCol0 &&
            c->sfCol0 + c->sfSlots * c->sfColsPerSlot <= c->tmemCols,
        "accumulators and scale-factor slots inside the TMEM allocation, disjoint", name);
  check(c->sfRing == (c->sfSlots < c->stages) && c->sfSlots >= 1, "scale-factor ring rule", name);
  uint32_t tx = c->mBytes + c->sfmBytes + c->sfnBytes + (c->roleN.dynamicRows ? 0 : c->nBytes);
  check(tx == c->txBytesFixed, "expect_tx = the stage's fixed boxes", name);
  check(c->mBytes == 128u * c->roleM.rowsPerCta && c->nBytes == 128u * c->roleN.rowsPerCta &&
            c->roleN.rowsPerCta * c->spec.ctaGroup == c->tileN && c->mmaM == 128u * c->spec.ctaGroup,
        "role tiles split over the CTA group", name);
  if (c->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS) {
    /* the contiguous form: shared maps (a ladder of N-role boxes when N is per expert),
     * the expert schedule and the scan scratch in shared memory */
    uint32_t ladder = c->roleN.dynamicRows ? nvfp4_abi_moe_ladder(c->tileN, c->nAlign) : 0u;
    check(c->nLadder == ladder && c->numTmaps == NVFP4_ABI_MOE_TMAP_LADDER + ladder &&
              c->numTmaps <= NVFP4_ABI_MOE_MAX_TMAPS,
          "contiguous device table: 5 maps + the ladder", name);
    check(c->scheduleBytes == MLIR_NVFP4_MOE_RECORD_BYTES * (c->numGroups + 1) &&
              c->scheduleOffset % 16 == 0 && c->scanOffset >= c->scheduleOffset + c->scheduleBytes &&
              c->scanOffset + 8u * MLIR_NVFP4_NUM_THREADS <= limit,
          "expert schedule and scan scratch inside the allocation", name);
  } else {
    check(c->scheduleBytes == 0 && c->numTmaps == 0, "no schedule without the contiguous form", name);
  }
  /* (an FP4 C, the fused epilogue's: the byte holding two elements, KernelABI.h) */
  check(c->cElemBytes == nvfp4_meta_c_bytes((uint32_t)c->spec.output) &&
            c->storeBoxCols * c->cElemBytes == 128u,
        "C element bytes and 128-byte store boxes", name);
  if (c->stagingBuffers)
    check(c->stagingBoxes * c->storeBoxCols ==
              (c->spec.orientation == MLIR_NVFP4_ORIENTATION_SWAP_AB ? 128u : 64u),
          "staging boxes cover the epilogue's sub-tile", name);
}

static void golden(const char *name, uint32_t stages, uint32_t acc, uint32_t slots,
                   uint32_t smem) {
  MlirNvfp4VariantSpec s;
  MlirNvfp4KernelConfig c;
  int ok = mlirNvfp4VariantSpecParse(name, strlen(name), 0, &s) &&
           mlirNvfp4KernelConfigInitVariant(&c, 8, s, NULL, 0);
  char what[160];
  snprintf(what, sizeof what, "stages %u acc %u slots %u smem %u (got %u %u %u %u)", stages, acc,
           slots, smem, ok ? c.stages : 0, ok ? c.accBuffers : 0, ok ? c.sfSlots : 0,
           ok ? c.dynSmemBytes : 0);
  check(ok && c.stages == stages && c.accBuffers == acc && c.sfSlots == slots &&
            c.dynSmemBytes == smem, what, name);
  if (ok && c.stages == stages) printf("PASS: golden %s: %s\n", name, what);
}

/* The sm_90a plan (docs/kernel-sm90a.md): regions in bounds and disjoint, 1024-B aligned
 * stages, decoded buffers and staging boxes, the scale table 16-B aligned, the raw stage
 * exactly the TMA boxes, the barrier arrays, the register budget, the launch facts. */
static void sm90Invariants(const MlirNvfp4KernelConfig *c, const char *name) {
  const uint32_t limit = c->dynSmemBytes - 1024;
  roleInvariants(c, name);
  const MlirNvfp4WarpRange *cons = &c->roles[MLIR_NVFP4_ROLE_CONSUMER];
  check(c->roles[MLIR_NVFP4_ROLE_PRODUCER].first == 0 && c->roles[MLIR_NVFP4_ROLE_PRODUCER].count == 4 &&
            cons->first == 4 && cons->count == 4u * c->sm90.consumerGroups &&
            c->roles[MLIR_NVFP4_ROLE_DECODER].first == cons->first + cons->count &&
            c->roles[MLIR_NVFP4_ROLE_DECODER].count == 4u * c->sm90.decoderGroups,
        "sm90 role map: producer warpgroup, consumers, then token decoders", name);
  /* the cost model (KernelConfig.h): T + D W / (W - S (W - 128)) per stage */
  check(c->costDecodeRows == MLIR_NVFP4_SM90_DECODE_ROWS &&
            c->costTokenSharePermille == MLIR_NVFP4_SM90_TOKEN_SHARE_PERMILLE &&
            (!c->streamK || c->streamKCost == (c->tileM > 128 ? 67u : 48u)),
        "sm90 cost model: decode rows 70, token share 900, stream-K stage cost 70 / 100", name);
  check(c->dynSmemBytes <= MLIR_NVFP4_MAX_DYN_SMEM, "sm90: smem within the opt-in limit", name);
  for (uint32_t i = 0; i < c->numSmemRegions; ++i) {
    const MlirNvfp4SmemRegion *r = &c->smem[i];
    check(r->offset + r->bytes <= limit, "sm90: smem region inside the allocation", name);
    for (uint32_t j = 0; j < i; ++j)
      check(!overlaps(r->offset, r->bytes, c->smem[j].offset, c->smem[j].bytes),
            "sm90: smem regions disjoint", name);
  }
  const MlirNvfp4Sm90Plan *p = &c->sm90;
  check(c->stageBytes % 1024 == 0 && c->nOffset % 1024 == 0 && c->sfmOffset % 512 == 0 &&
            c->sfnOffset % 512 == 0,
        "sm90: stage, token tile 1024-B aligned, scale atoms 512-B aligned", name);
  /* a token tile starting at any multiple of 16 rows spans ceil((T + 112) / 128) atom rows;
   * a 192-row weight tile (starting at a multiple of 64) spans 2, the fused epilogue's gate
   * and up halves take one each */
  const uint32_t tokenAtoms = c->tileN > 128 ? 3u : 2u;
  const uint32_t weightAtoms = c->tileM > 128 || c->spec.swiglu ? 2u : 1u;
  check(c->mBytes == c->tileM * 128u && c->nBytes == c->tileN * 128u &&
            c->roleM.rowsPerCta == c->tileM && c->mmaM == c->tileM &&
            c->roleM.sfAtoms == weightAtoms && c->sfmBytes == 2048u * weightAtoms &&
            c->roleN.sfAtoms == tokenAtoms && c->sfnBytes == 2048u * tokenAtoms &&
            c->txBytesFixed == c->mBytes + c->sfmBytes + c->sfnBytes,
        "sm90: stage = weight box (tile_m rows) + token box (tile_n rows) + 1 (2 at tile_m 192) "
        "+ 2 (3 at tile_n 192) scale atom rows",
        name);
  check(p->mmaDepth == 0 && (p->decodedBuffers == 3 || p->decodedBuffers == 4) &&
            p->decodedOffset % 1024 == 0 && p->decodedBytes == c->tileN * 128u,
        "sm90: depth 0, 3 or 4 decoded chunks of tile_n rows x 64 BF16, 1024-B aligned", name);
  check(c->stagingBuffers == p->consumerGroups && c->stagingOffset % 1024 == 0 &&
            c->stagingRows == MLIR_NVFP4_SM90_STORE_ROWS &&
            c->stagingBytes == c->stagingRows * 128u * c->stagingBoxes &&
            c->stagingBoxes * c->stagingRows == c->tileN,
        "sm90: one staging column of tile_n rows per consumer warpgroup", name);
  check(p->lutOffset % 16 == 0, "sm90: scale table aligned", name);
  check(p->stageUnroll == (c->tileN == 128 && c->tileM == 128 && !c->spec.swiglu),
        "sm90: the chunk loop unrolled by a stage for swap_n128 only (measured; not with the "
        "fused epilogue)", name);
  check(p->consumerGroups == c->tileM / 64u, "sm90: one consumer warpgroup per 64 weight rows",
        name);
  const uint32_t consumerWarps = 4u * p->consumerGroups, decoderWarps = 4u * p->decoderGroups;
  check(c->full.count == c->stages && c->empty.count == c->stages && c->full.arrivals == 1 &&
            c->empty.arrivals == consumerWarps + decoderWarps &&
            p->decodedFull.count == p->decodedBuffers && p->decodedFull.arrivals == decoderWarps &&
            p->decodedEmpty.count == p->decodedBuffers &&
            p->decodedEmpty.arrivals == consumerWarps &&
            c->numBarriers == 2 * c->stages + 2 * p->decodedBuffers,
        "sm90: full (one arrival), empty (every consumer and decoder warp), decodedFull "
        "(decoder warps), decodedEmpty (consumer warps)",
        name);
  /* two decoder warpgroups (640 threads) up to tile_n 128; one (512) at 192, whose
   * m64n192k16 needs more entry registers than 640 threads can have; one beside three
   * consumer warpgroups (640) at tile_m 192 */
  check(c->numThreads == 128u * (1 + p->consumerGroups + p->decoderGroups) &&
            p->decoderGroups == (c->tileN > 128 || c->tileM > 128 ? 1u : 2u) &&
            c->numThreads == (c->tileN > 128 ? 512u : MLIR_NVFP4_SM90_NUM_THREADS) &&
            65536u / c->numThreads >= (c->tileN > 128 ? 126u : 96u) &&
            128u * (p->producerRegs + p->consumerGroups * p->consumerRegs +
                    p->decoderGroups * p->decoderRegs) <=
                (65536u / c->numThreads / 8u * 8u) * c->numThreads &&
            p->producerRegs % 8 == 0 && p->consumerRegs % 8 == 0 && p->decoderRegs % 8 == 0 &&
            p->producerRegs >= 24 && p->decoderRegs >= 24 && p->consumerRegs <= 256,
        "sm90: four or five warpgroups whose setmaxnreg budgets fit the registers they start with",
        name);
  check(c->tmemCols == 0 && c->accBuffers == 1 && c->roleN.dynamicRows &&
            c->nAlign == MLIR_NVFP4_SM90_N_ALIGN && c->tileN % c->nAlign == 0 &&
            (c->variantFlags & NVFP4_META_VFLAG_BALANCED_N) && c->snakeOrder != c->streamK,
        "sm90: no TMEM, per-group balanced token tiles, snake schedule or stream-K", name);
  check(c->streamK == c->spec.streamK &&
            !!(c->variantFlags & NVFP4_META_VFLAG_STREAM_K) == c->streamK &&
            (c->streamK ? c->workspacePerCta ==
                                  2u * (c->skFlagBytes + p->consumerGroups * c->skSlotBytes) &&
                              c->skSlotBytes == 128u * c->tileN / 2u * 4u &&
                              c->skFlagBytes >= 8u * p->consumerGroups &&
                              c->streamKCost == (c->tileM > 128 ? 67u : 48u)
                        : c->workspacePerCta == (c->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS
                                                     ? (16u * (c->numGroups + 1u) + 127u) / 128u * 128u
                                                     : 0u)),
        "sm90: stream-K: two workspace slots per CTA (counters and stage ends, then tile_n / 2 "
        "fp32 per consumer thread), stage cost tile_n + 70 (+ 100 at 192 weights); the "
        "contiguous form: the expert schedule; none otherwise", name);
  /* C: f16 / bf16 in one 64-column box column, f32 in two of 32 (the same staging bytes);
   * the fused epilogue's FP4 C: the byte holding two elements */
  check(c->cElemBytes == nvfp4_meta_c_bytes((uint32_t)c->spec.output) &&
            c->storeBoxCols * c->cElemBytes == 128u,
        "sm90: C element bytes and 128-byte store boxes", name);
  if (c->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS) {
    /* the schedule in the workspace, the scan's scratch in the decoded token ring, the
     * shared maps with the N-role box ladder, no stream-K */
    const uint32_t ladder = nvfp4_abi_moe_ladder(c->tileN, c->nAlign);
    check(c->scheduleInWorkspace && c->scheduleBytes == 16u * (c->numGroups + 1u) &&
              c->scanOffset == p->decodedOffset &&
              8u * c->numThreads <= p->decodedBytes * p->decodedBuffers &&
              c->nLadder == ladder && c->numTmaps == NVFP4_ABI_MOE_TMAP_LADDER + ladder &&
              c->numTmaps <= NVFP4_ABI_MOE_MAX_TMAPS && !c->streamK,
          "sm90: contiguous: schedule in the workspace, scan in the decoded ring, 5 maps + "
          "the ladder", name);
  } else {
    check(!c->scheduleInWorkspace, "sm90: pointer-array: the schedule is the group table", name);
  }
}

/* The epilogue options and the contiguous form plan like the f16 pointer-array variant:
 * the same stages and shared memory (f32 C keeps the staging bytes), every invariant; the
 * stream-K schedule is refused for the contiguous form; f32 C with the stream-K schedule
 * of swap_n128_m192 gets consumers of 128 registers (the staging's second pass). */
static void sm90OptionTests(void) {
  static const uint32_t widths[] = {64, 128, 192, 128, 64, 128};
  static const uint32_t weights[] = {0, 0, 0, 192, 192, 192}, sk[] = {0, 0, 0, 0, 0, 1};
  static const MlirNvfp4OutputType outs[] = {MLIR_NVFP4_OUTPUT_F16, MLIR_NVFP4_OUTPUT_BF16,
                                             MLIR_NVFP4_OUTPUT_F32};
  for (int w = 0; w < 6; ++w)
    for (int form = 0; form < 2; ++form)
      for (int o = 0; o < 3; ++o)
        for (uint32_t groups = 1; groups <= 1024; groups *= 32) {
          MlirNvfp4VariantSpec s = mlirNvfp4VariantSpecDefault(widths[w], 0);
          s.orientation = MLIR_NVFP4_ORIENTATION_SWAP_AB;
          s.target = MLIR_NVFP4_TARGET_SM90A;
          s.tileM = weights[w];
          s.streamK = sk[w] != 0;
          char name[48];
          mlirNvfp4VariantName(s, name, sizeof name);
          MlirNvfp4KernelConfig base, c;
          char why[200] = "";
          const int planned = mlirNvfp4KernelConfigInitVariant(&base, groups, s, why, sizeof why);
          s.output = outs[o];
          s.alpha = o != 0;
          s.form = form ? MLIR_NVFP4_FORM_CONTIGUOUS : MLIR_NVFP4_FORM_POINTER_ARRAY;
          const int ok = mlirNvfp4KernelConfigInitVariant(&c, groups, s, why, sizeof why);
          if (form && s.streamK) {
            check(!ok && strstr(why, "pointer-array form") != NULL,
                  "sm90: stream-K refused for the contiguous form", name);
            continue;
          }
          check(planned && ok, ok ? "sm90: option planned" : why, name);
          if (!ok || !planned) continue;
          sm90Invariants(&c, name);
          check(c.stages == base.stages && c.dynSmemBytes == base.dynSmemBytes &&
                    c.stagingBytes == base.stagingBytes,
                "sm90: the options plan the f16 pointer-array variant's stages and memory", name);
          const bool wide = s.streamK && s.tileM > 128 && s.output == MLIR_NVFP4_OUTPUT_F32;
          check(c.sm90.consumerRegs == (wide ? 128u : base.sm90.consumerRegs) &&
                    c.sm90.decoderRegs == (wide ? 72u : base.sm90.decoderRegs),
                "sm90: register budgets (swap_n128_m192_sk with f32 C: 128 / 72)", name);
        }
}

/* The planner of `target` refuses `variant` with a message holding `reason`. */
static void refused(MlirNvfp4Target target, const char *variant, const char *reason,
                    const char *what) {
  MlirNvfp4VariantSpec s;
  MlirNvfp4KernelConfig c;
  char why[200] = "";
  mlirNvfp4VariantSpecParse(variant, strlen(variant), 0, &s);
  s.target = target;
  check(!mlirNvfp4KernelConfigInitVariant(&c, 1, s, why, sizeof why) && strstr(why, reason) != NULL,
        what, variant);
}

/* The fused SwiGLU + NVFP4 epilogue: ab_n256_st plans in both forms, with the metadata the
 * runtime encodes its maps from (B boxes of 128 rows, one SFB atom row per box, FP4 C, the
 * epilogue flag, the activation-dump flag); every other variant and an FP4 C or an
 * activation dump without the epilogue are refused. */
static void fusedTests(void) {
  for (uint32_t form = 0; form < 2; ++form)
    for (uint32_t dump = 0; dump < 2; ++dump) {
      MlirNvfp4VariantSpec s;
      MlirNvfp4KernelConfig c;
      char why[200] = "", name[64];
      mlirNvfp4VariantSpecParse("ab_n256_st", 10, 0, &s);
      s.swiglu = true;
      s.output = MLIR_NVFP4_OUTPUT_FP4;
      s.alpha = true;
      s.form = (MlirNvfp4Form)form;
      s.debugActivations = dump != 0;
      snprintf(name, sizeof name, "fused ab_n256_st %s%s", form ? "contiguous" : "pointer-array",
               dump ? " with the activation dump" : "");
      int ok = mlirNvfp4KernelConfigInitVariant(&c, 8, s, why, sizeof why);
      check(ok, ok ? "planned" : why, name);
      if (!ok) continue;
      invariants(&c, name);
      unsigned char rec[NVFP4_METADATA_BYTES];
      mlirNvfp4KernelConfigEncodeMetadata(&c, "k", "sm_100a", 100, 0, 0, 0, 1, rec);
      check(nvfp4_meta_read_u32(rec, NVFP4_META_N_BOX_ROWS) == 128 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_SFN_ATOMS) == 1 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_TILE_N) == 256 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_C_TYPE) == NVFP4_META_C_FP4 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_EPILOGUE_FLAGS) ==
                    (NVFP4_META_EFLAG_SWIGLU_NVFP4 | NVFP4_META_EFLAG_ALPHA) &&
                !(nvfp4_meta_read_u32(rec, NVFP4_META_FLAGS) & NVFP4_META_FLAG_DEBUG_ACTIVATIONS) == !dump,
            "metadata: two 128-row B boxes, one SFB atom row each, FP4 C, the epilogue flag", name);
      if (!form && !dump)
        printf("PASS: golden fused ab_n256_st: stages %u acc %u slots %u smem %u\n", c.stages,
               c.accBuffers, c.sfSlots, c.dynSmemBytes);
    }
  static const char *const others[] = {"ab_n256", "ab_n128_st", "ab_n192_st", "swap_n128",
                                       "swap_n256", "ab2_n256", "swap2_n256"};
  for (uint32_t i = 0; i < sizeof others / sizeof others[0]; ++i) {
    MlirNvfp4VariantSpec s;
    MlirNvfp4KernelConfig c;
    char why[200] = "";
    mlirNvfp4VariantSpecParse(others[i], strlen(others[i]), 0, &s);
    s.swiglu = true;
    s.output = MLIR_NVFP4_OUTPUT_FP4;
    check(!mlirNvfp4KernelConfigInitVariant(&c, 1, s, why, sizeof why) &&
              strstr(why, "is built for ab_n256_st only") != NULL,
          "the fused epilogue refused", others[i]);
  }
  MlirNvfp4VariantSpec s;
  MlirNvfp4KernelConfig c;
  mlirNvfp4VariantSpecParse("ab_n256_st", 10, 0, &s);
  s.swiglu = true; /* with an f16 C */
  check(!mlirNvfp4KernelConfigInitVariant(&c, 1, s, NULL, 0), "the epilogue with an f16 C refused", "spec");
  s.swiglu = false;
  s.debugActivations = true;
  check(!mlirNvfp4KernelConfigInitVariant(&c, 1, s, NULL, 0), "the activation dump alone refused", "spec");
}

/* Plans `variant` of `target` with the fused epilogue (alpha, FP4 C) in form `form` for 8
 * groups, naming the check "<tag> fused <variant> <form>" (into `name`); checks that it
 * planned and returns whether it did. */
static int planFused(const char *variant, MlirNvfp4Target target, uint32_t form,
                     const char *tag, MlirNvfp4KernelConfig *c, char *name, size_t nameBytes) {
  MlirNvfp4VariantSpec s;
  char why[200] = "";
  mlirNvfp4VariantSpecParse(variant, strlen(variant), 0, &s);
  s.target = target;
  s.swiglu = true;
  s.output = MLIR_NVFP4_OUTPUT_FP4;
  s.alpha = true;
  s.form = (MlirNvfp4Form)form;
  snprintf(name, nameBytes, "%s fused %s %s", tag, variant, form ? "contiguous" : "pointer-array");
  int ok = mlirNvfp4KernelConfigInitVariant(c, 8, s, why, sizeof why);
  check(ok, ok ? "planned" : why, name);
  return ok;
}

/* The sm_90a fused epilogue: swap_n64, swap_n128 and swap_n192 plan in both forms, B's
 * tile as two 64-row M-role boxes with one SFB atom row each (two atom-row slots in the
 * stage), direct stores, SWIGLU_MID_ATOM (I any multiple of 64), swap_n128 without the
 * stage-unrolled chunk loop; the 192-weight and stream-K variants are refused. */
static void fusedSm90Tests(void) {
  static const char *const built[] = {"swap_n64", "swap_n128", "swap_n192"};
  for (uint32_t v = 0; v < 3; ++v)
    for (uint32_t form = 0; form < 2; ++form) {
      MlirNvfp4KernelConfig c;
      char name[64];
      if (!planFused(built[v], MLIR_NVFP4_TARGET_SM90A, form, "sm90", &c, name, sizeof name))
        continue;
      sm90Invariants(&c, name);
      check(c.roleM.sfAtoms == 2 && c.sfmBytes == 2u * 4u * MLIR_NVFP4_SF_ATOM_BYTES &&
                !c.sm90.stageUnroll && c.stagingBuffers * c.stagingBytes >= 256u * c.tileN,
            "two SFB atom-row slots, no stage unroll, staging for T x 64 fp32 values", name);
      unsigned char rec[NVFP4_METADATA_BYTES];
      mlirNvfp4KernelConfigEncodeMetadata(&c, "k", "sm_90a", 90, 0, 0, 0, 1, rec);
      check(nvfp4_meta_read_u32(rec, NVFP4_META_M_BOX_ROWS) == 64 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_SFM_ATOMS) == 1 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_TILE_M) == 128 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_EPILOGUE) == NVFP4_META_EPILOGUE_DIRECT_STORE &&
                (nvfp4_meta_read_u32(rec, NVFP4_META_VARIANT_FLAGS) & NVFP4_META_VFLAG_SWIGLU_MID_ATOM) &&
                nvfp4_meta_read_u32(rec, NVFP4_META_C_TYPE) == NVFP4_META_C_FP4 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_EPILOGUE_FLAGS) ==
                    (NVFP4_META_EFLAG_SWIGLU_NVFP4 | NVFP4_META_EFLAG_ALPHA),
            "metadata: two 64-row B boxes on M, one SFB atom row each, direct store, mid-atom", name);
      if (!form)
        printf("PASS: sm90 golden fused %s: stages %u smem %u\n", built[v], c.stages, c.dynSmemBytes);
    }
  static const char *const others[] = {"swap_n128_m192", "swap_n64_m192", "swap_n128_sk",
                                       "swap_n128_m192_sk"};
  for (uint32_t i = 0; i < sizeof others / sizeof others[0]; ++i) {
    MlirNvfp4VariantSpec s;
    MlirNvfp4KernelConfig c;
    char why[300] = "";
    mlirNvfp4VariantSpecParse(others[i], strlen(others[i]), 0, &s);
    s.target = MLIR_NVFP4_TARGET_SM90A;
    s.swiglu = true;
    s.output = MLIR_NVFP4_OUTPUT_FP4;
    check(!mlirNvfp4KernelConfigInitVariant(&c, 1, s, why, sizeof why) &&
              strstr(why, "128-weight persistent variants only") != NULL,
          "sm90: the fused epilogue refused", others[i]);
  }
}

static void sm90Tests(void) {
  static const uint32_t groups[] = {1, 8, 46, 47, 1024};
  static const uint32_t widths[] = {64, 128, 192, 128, 64, 128, 64, 192},
                        weights[] = {0, 0, 0, 192, 192, 192, 0, 0}, sk[] = {0, 0, 0, 0, 0, 1, 1, 1};
  static const uint32_t wantStages[] = {6, 3, 2, 2, 4, 2, 6, 2};
  static const uint32_t wantSmem[] = {227472, 217200, 223312, 215136, 223360, 215136, 227472, 223312};
  for (int w = 0; w < 8; ++w) {
    MlirNvfp4VariantSpec s = mlirNvfp4VariantSpecDefault(widths[w], 0);
    s.orientation = MLIR_NVFP4_ORIENTATION_SWAP_AB;
    s.target = MLIR_NVFP4_TARGET_SM90A;
    s.tileM = weights[w];
    s.streamK = sk[w] != 0;
    char name[32];
    mlirNvfp4VariantName(s, name, sizeof name);
    for (uint32_t g = 0; g < sizeof groups / sizeof groups[0]; ++g) {
      MlirNvfp4KernelConfig c;
      char why[200];
      int ok = mlirNvfp4KernelConfigInitVariant(&c, groups[g], s, why, sizeof why);
      check(ok, ok ? "sm90: planned" : why, name);
      if (ok) sm90Invariants(&c, name);
    }
    MlirNvfp4KernelConfig c;
    char why[200] = "";
    int ok = mlirNvfp4KernelConfigInitVariant(&c, 8, s, why, sizeof why);
    printf("%s: sm90 golden %s: stages %u smem %u (got %u %u)\n",
           ok && c.stages == wantStages[w] && c.dynSmemBytes == wantSmem[w] ? "PASS" : "FAIL",
           name, wantStages[w], wantSmem[w], c.stages, c.dynSmemBytes);
    ok && c.stages == wantStages[w] && c.dynSmemBytes == wantSmem[w] ? ++gPassed : ++gFailed;
  }
  /* what the sm_90a generator cannot build, each with its reason */
  static const struct { const char *variant; const char *reason; } bad[] = {
      {"ab_n128", "swap-AB orientation only"},
      {"swap2_n128", "no CTA-pair variant"},
      {"swap_n256", "128 accumulator registers"},
      {"swap_n192_m192", "token tiles up to 128"},
      {"swap_n128_m256", "128 or 192 weight rows"}};
  for (uint32_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    refused(MLIR_NVFP4_TARGET_SM90A, bad[i].variant, bad[i].reason, "sm90: refused with its reason");
  MlirNvfp4VariantSpec s = mlirNvfp4VariantSpecDefault(128, 4);
  s.orientation = MLIR_NVFP4_ORIENTATION_SWAP_AB;
  s.target = MLIR_NVFP4_TARGET_SM90A;
  MlirNvfp4KernelConfig c;
  char why[200] = "";
  check(!mlirNvfp4KernelConfigInitVariant(&c, 1, s, why, sizeof why) && strstr(why, "at most 3"),
        "sm90: stages = 4 refused for swap_n128", "sm90 stages");
  /* the sm_90a default family: swap_n<tile_n>, then the other widths of 64, 128, 192, then
   * the 192-weight tiles swap_n128_m192, swap_n64_m192 */
  static const struct { uint32_t tileN; const char *names[6]; } famWant[] = {
      {64, {"swap_n64", "swap_n128", "swap_n192", "swap_n128_m192", "swap_n64_m192", "swap_n128_m192_sk"}},
      {128, {"swap_n128", "swap_n64", "swap_n192", "swap_n128_m192", "swap_n64_m192", "swap_n128_m192_sk"}},
      {192, {"swap_n192", "swap_n128", "swap_n64", "swap_n128_m192", "swap_n64_m192", "swap_n128_m192_sk"}}};
  MlirNvfp4VariantSpec fam[6];
  for (uint32_t f = 0; f < 3; ++f) {
    uint32_t k = mlirNvfp4DefaultFamilySpecsForTarget(MLIR_NVFP4_TARGET_SM90A, famWant[f].tileN,
                                                      0, fam, 6);
    int famOk = k == 6;
    for (uint32_t i = 0; famOk && i < 6; ++i) {
      char nm[32];
      mlirNvfp4VariantName(fam[i], nm, sizeof nm);
      famOk = !strcmp(nm, famWant[f].names[i]) && fam[i].target == MLIR_NVFP4_TARGET_SM90A;
    }
    check(famOk, "sm90 default family swap_n<tile_n>, then the other widths, then the 192-weight "
          "tiles, then swap_n128_m192 with the stream-K schedule",
          famWant[f].names[0]);
  }
  /* the 192-weight variant is sm_90a's alone, and its name round-trips */
  {
    MlirNvfp4VariantSpec w;
    char nm[32] = "";
    check(mlirNvfp4VariantSpecParse("swap_n128_m192", 14, 0, &w) && w.tileM == 192 &&
              w.tileN == 128 && (mlirNvfp4VariantName(w, nm, sizeof nm), !strcmp(nm, "swap_n128_m192")),
          "swap_n128_m192 parses (tile_m 192) and round-trips", "sm90 names");
    MlirNvfp4KernelConfig c;
    char why[200] = "";
    check(!mlirNvfp4KernelConfigInitVariant(&c, 1, w, why, sizeof why) &&
              strstr(why, "128 M-role rows") != NULL,
          "sm_100a refuses tile_m 192 with its reason", "swap_n128_m192 sm100");
    /* the stream-K schedule: "_sk", sm_90a's alone, not with "_st" */
    check(mlirNvfp4VariantSpecParse("swap_n128_m192_sk", 17, 0, &w) && w.streamK && w.tileM == 192 &&
              (mlirNvfp4VariantName(w, nm, sizeof nm), !strcmp(nm, "swap_n128_m192_sk")) &&
              !mlirNvfp4VariantSpecParse("ab_n128_st_sk", 13, 0, &w) &&
              !mlirNvfp4VariantSpecParse("swap_n128_sk_m192", 17, 0, &w),
          "swap_n128_m192_sk parses (stream-K) and round-trips; _st_sk and _sk_m192 do not",
          "sm90 names");
    /* sm_100a: 1-CTA pointer-array TMA-store variants of tile_n 64 and 128; a stage costs
     * tile_n + 128 rows; two slots of 128 bytes of words and 128 x tile_n fp32 per CTA */
    static const char *const skOk[] = {"ab_n64_sk", "ab_n128_sk", "swap_n64_sk", "swap_n128_sk"};
    for (uint32_t i = 0; i < 4; ++i) {
      mlirNvfp4VariantSpecParse(skOk[i], strlen(skOk[i]), 0, &w);
      const bool ok = mlirNvfp4KernelConfigInitVariant(&c, 8, w, why, sizeof why);
      check(ok && c.streamK && (c.variantFlags & NVFP4_META_VFLAG_STREAM_K) &&
                !c.snakeOrder && c.streamKCost == 128u && c.skFlagBytes == 128u &&
                c.skSlotBytes == 128u * c.tileN * 4u &&
                c.workspacePerCta == 2u * (128u + 512u * c.tileN) &&
                c.workspacePerCta == (c.tileN == 128 ? 131328u : 65792u),
            "sm_100a stream-K: stage cost tile_n + 128, two slots of 128 + 512 tile_n bytes per "
            "CTA (131328 at tile_n 128, 65792 at 64)",
            skOk[i]);
    }
    static const struct { const char *name; bool contiguous; const char *why; } skBad[] = {
        {"ab_n256_sk", false, "built for tile_n 64 and 128"},
        {"swap_n192_sk", false, "built for tile_n 64 and 128"},
        {"ab2_n128_sk", false, "1-CTA variants only"},
        {"swap2_n128_sk", false, "1-CTA variants only"},
        {"swap_n128_sk", true, "pointer-array form"}};
    for (uint32_t i = 0; i < sizeof skBad / sizeof skBad[0]; ++i) {
      check(mlirNvfp4VariantSpecParse(skBad[i].name, strlen(skBad[i].name), 0, &w), "parses",
            skBad[i].name);
      if (skBad[i].contiguous) w.form = MLIR_NVFP4_FORM_CONTIGUOUS;
      check(!mlirNvfp4KernelConfigInitVariant(&c, 8, w, why, sizeof why) &&
                strstr(why, skBad[i].why) != NULL,
            "sm_100a refuses this stream-K variant with its reason", skBad[i].name);
    }
    /* the fused epilogue (and a direct store, which no name combines with _sk) */
    mlirNvfp4VariantSpecParse("ab_n128_sk", 10, 0, &w);
    w.epilogue = MLIR_NVFP4_EPILOGUE_DIRECT_STORE;
    check(!mlirNvfp4KernelConfigInitVariant(&c, 8, w, why, sizeof why) &&
              strstr(why, "TMA-store epilogue only") != NULL,
          "sm_100a refuses stream-K with the direct-store epilogue", "ab_n128 _st _sk");
    w.tileN = 256;
    w.swiglu = true;
    w.output = MLIR_NVFP4_OUTPUT_FP4;
    check(!mlirNvfp4KernelConfigInitVariant(&c, 8, w, why, sizeof why) &&
              strstr(why, "no stream-K variant") != NULL,
          "sm_100a refuses stream-K with the fused epilogue", "ab_n256_st swiglu _sk");
    /* opt-in: no default sm_100a family has a stream-K variant */
    MlirNvfp4VariantSpec def[8];
    uint32_t nd = mlirNvfp4DefaultFamilySpecsForTarget(MLIR_NVFP4_TARGET_SM100A, 128, 0, def, 8);
    bool anySk = false;
    for (uint32_t i = 0; i < nd; ++i) anySk |= def[i].streamK;
    check(nd > 0 && !anySk, "the default sm_100a family has no stream-K variant (opt-in)",
          "sm100 family");
  }
  mlirNvfp4DefaultFamilySpecsForTarget(MLIR_NVFP4_TARGET_SM90A, 64, 0, fam, 6);
  /* the metadata record of a variant */
  MlirNvfp4KernelConfig m;
  MlirNvfp4VariantSpec sp = fam[0];
  mlirNvfp4KernelConfigInitVariant(&m, 8, sp, why, sizeof why);
  unsigned char rec[NVFP4_METADATA_BYTES];
  mlirNvfp4KernelConfigEncodeMetadata(&m, "k_swap_n64", "sm_90a", 90, 0, 0, 0, 1, rec);
  check(nvfp4_meta_read_u32(rec, NVFP4_META_BLOCK_X) == 640 &&
            nvfp4_meta_read_u32(rec, NVFP4_META_TARGET_SM) == 90 &&
            nvfp4_meta_read_u32(rec, NVFP4_META_N_ALIGN) == 16 &&
            nvfp4_meta_read_u32(rec, NVFP4_META_VARIANT_FLAGS) ==
                (NVFP4_META_VFLAG_DYNAMIC_N | NVFP4_META_VFLAG_BALANCED_N) &&
            nvfp4_meta_read_u32(rec, NVFP4_META_SFN_ATOMS) == 2 &&
            nvfp4_meta_read_u32(rec, NVFP4_META_STORE_BOX_ROWS) == 16 &&
            nvfp4_meta_read_u32(rec, NVFP4_META_TMEM_COLS) == 0,
        "sm90 metadata: 640 threads, sm 90, n_align 16, DYNAMIC_N | BALANCED_N, 2 token SF atom "
        "rows, 16-row store boxes, no TMEM", "sm90 metadata");
}

/* sm_120a: every variant, form, C type and group count plans within 99 KiB with at least two
 * 1024-aligned stages, one full and one empty barrier per stage (8 consumer warps release),
 * the warp grid covering the tile; golden stage counts; the refusals; the default family and
 * the metadata record. */
static void sm120Invariants(const MlirNvfp4KernelConfig *c, const char *name) {
  const MlirNvfp4Sm120Plan *p = &c->sm120;
  roleInvariants(c, name);
  check(c->roles[MLIR_NVFP4_ROLE_MMA_SYNC].first == 0 &&
            c->roles[MLIR_NVFP4_ROLE_MMA_SYNC].count == p->consumerWarps &&
            c->roles[MLIR_NVFP4_ROLE_PRODUCER].first == p->producerWarp &&
            c->roles[MLIR_NVFP4_ROLE_PRODUCER].count == 1 && c->costDecodeRows == 0 &&
            c->costTokenSharePermille == 0,
        "sm120: role map (consumer warps 0.., the producer warp after), no decode cost", name);
  check(c->dynSmemBytes <= MLIR_NVFP4_SM120_MAX_DYN_SMEM, "sm120: within 99 KiB", name);
  check(c->stages >= 2 && c->stageBytes % 1024 == 0 && c->smem[0].offset == 0 &&
            c->smem[0].stride == c->stageBytes,
        "sm120: two or more 1024-B stages from offset 0", name);
  check(c->full.count == c->stages && c->full.arrivals == 1 && c->empty.count == c->stages &&
            c->empty.arrivals == p->consumerWarps,
        "sm120: full (1 arrival) and empty (one per consumer warp) per stage", name);
  check(p->warpsM * p->warpsN == p->consumerWarps && 16 * p->mBlocks * p->warpsM == c->tileM &&
            8 * p->nBlocks * p->warpsN == c->tileN && p->nBlocks % 2 == 0 &&
            c->numThreads == 32 * (p->consumerWarps + 1) && p->producerWarp == p->consumerWarps,
        "sm120: the warp grid covers the tile, n8 blocks in pairs, a producer warp after", name);
  check(c->txBytesFixed + (c->roleN.dynamicRows ? c->nBytes : 0) ==
            c->mBytes + c->nBytes + c->sfmBytes + c->sfnBytes,
        "sm120: expect_tx covers the stage's four boxes", name);
  const uint32_t end = c->smem[c->numSmemRegions - 1].offset + c->smem[c->numSmemRegions - 1].bytes;
  check(end + 1024 == c->dynSmemBytes && c->barrierOffset >= c->stages * c->stageBytes,
        "sm120: the regions end where the plan says, barriers after the ring", name);
}

static void sm120Tests(void) {
  static const char *const variants[] = {"ab_n64", "ab_n128", "swap_n32", "swap_n64", "swap_n128"};
  static const uint32_t wantStages[] = {3, 2, 4, 3, 2};
  static const uint32_t groups[] = {1, 8, 46, 47, 1024};
  for (uint32_t v = 0; v < 5; ++v)
    for (uint32_t form = 0; form < 2; ++form)
      for (uint32_t out = 0; out < 3; ++out)
        for (uint32_t g = 0; g < sizeof groups / sizeof groups[0]; ++g) {
          MlirNvfp4VariantSpec s;
          mlirNvfp4VariantSpecParse(variants[v], strlen(variants[v]), 0, &s);
          s.target = MLIR_NVFP4_TARGET_SM120A;
          s.form = (MlirNvfp4Form)form;
          s.output = (MlirNvfp4OutputType)out;
          s.alpha = out != 0;
          MlirNvfp4KernelConfig c;
          char why[200] = "";
          int ok = mlirNvfp4KernelConfigInitVariant(&c, groups[g], s, why, sizeof why);
          check(ok, ok ? "sm120: planned" : why, variants[v]);
          if (!ok) continue;
          sm120Invariants(&c, variants[v]);
          if (form == 0 && out == 0 && g == 1) {
            const int good = c.stages == wantStages[v];
            printf("%s: sm120 golden %s: stages %u smem %u\n", good ? "PASS" : "FAIL", variants[v],
                   c.stages, c.dynSmemBytes);
            good ? ++gPassed : ++gFailed;
          }
        }
  static const struct { const char *variant; const char *reason; } bad[] = {
      {"ab2_n128", "no CTA-pair variant"},     {"swap_n256", "must be 64 or 128"},
      {"ab_n32", "must be 64 or 128"},         {"swap_n128_sk", "sm_90a only"},
      {"swap_n64_m192", "128 M-role rows"}};
  for (uint32_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    refused(MLIR_NVFP4_TARGET_SM120A, bad[i].variant, bad[i].reason, "sm120: refused with its reason");
  MlirNvfp4VariantSpec s = mlirNvfp4VariantSpecDefault(128, 3);
  s.target = MLIR_NVFP4_TARGET_SM120A;
  MlirNvfp4KernelConfig c;
  char why[200] = "";
  check(!mlirNvfp4KernelConfigInitVariant(&c, 1, s, why, sizeof why) && strstr(why, "at most 2"),
        "sm120: stages = 3 refused for ab_n128", "sm120 stages");
  /* the default family: ab_n<tile_n>, swap_n64, swap_n128; names without "_st" */
  MlirNvfp4VariantSpec fam[3];
  uint32_t k = mlirNvfp4DefaultFamilySpecsForTarget(MLIR_NVFP4_TARGET_SM120A, 64, 0, fam, 3);
  static const char *const famWant[3] = {"ab_n64", "swap_n64", "swap_n128"};
  int famOk = k == 3;
  for (uint32_t i = 0; famOk && i < 3; ++i) {
    char nm[32];
    mlirNvfp4VariantName(fam[i], nm, sizeof nm);
    famOk = !strcmp(nm, famWant[i]) && fam[i].target == MLIR_NVFP4_TARGET_SM120A;
  }
  check(famOk, "sm120 default family ab_n<tile_n>, swap_n64, swap_n128", "sm120 family");
  MlirNvfp4KernelConfig m;
  mlirNvfp4KernelConfigInitVariant(&m, 8, fam[2], why, sizeof why);
  char nm[32];
  mlirNvfp4VariantName(m.spec, nm, sizeof nm);
  unsigned char rec[NVFP4_METADATA_BYTES];
  mlirNvfp4KernelConfigEncodeMetadata(&m, "k_swap_n128", "sm_120a", 120, 0, 0, 0, 1, rec);
  check(!strcmp(nm, "swap_n128") && nvfp4_meta_read_u32(rec, NVFP4_META_BLOCK_X) == 288 &&
            nvfp4_meta_read_u32(rec, NVFP4_META_TARGET_SM) == 120 &&
            nvfp4_meta_read_u32(rec, NVFP4_META_N_ALIGN) == 16 &&
            nvfp4_meta_read_u32(rec, NVFP4_META_VARIANT_FLAGS) == NVFP4_META_VFLAG_DYNAMIC_N &&
            nvfp4_meta_read_u32(rec, NVFP4_META_EPILOGUE) == NVFP4_META_EPILOGUE_DIRECT_STORE &&
            nvfp4_meta_read_u32(rec, NVFP4_META_DYN_SMEM_BYTES) <= MLIR_NVFP4_SM120_MAX_DYN_SMEM &&
            nvfp4_meta_read_u32(rec, NVFP4_META_TMEM_COLS) == 0 &&
            !strcmp((const char *)rec + NVFP4_META_TARGET, "sm_120a") &&
            !strcmp((const char *)rec + NVFP4_META_SOURCE_TARGET, "sm_120a"),
        "sm120 metadata: 288 threads, sm 120, n_align 16, DYNAMIC_N, direct stores, 99 KiB, no "
        "TMEM, target and source target sm_120a; the plan keeps the name swap_n128",
        "sm120 metadata");
}

/* The plan text (the lines the lowering attaches as nvfp4.plan): its length whatever the
 * buffer, the role map and the tables. */
static void planTextTests(void) {
  MlirNvfp4VariantSpec s = mlirNvfp4VariantSpecDefault(128, 0);
  MlirNvfp4KernelConfig c;
  mlirNvfp4KernelConfigInitVariant(&c, 8, s, NULL, 0);
  char text[4096], small[16];
  const size_t len = mlirNvfp4KernelConfigPlanText(&c, text, sizeof text);
  check(len == strlen(text) && mlirNvfp4KernelConfigPlanText(&c, small, sizeof small) == len &&
            strlen(small) == sizeof small - 1 && mlirNvfp4KernelConfigPlanText(&c, NULL, 0) == len,
        "plan text: full length whatever the buffer, truncated NUL-terminated", "plan text");
  check(!strncmp(text, "variant ab_n128\nthreads 192\ncluster 1\ndyn_smem 218232\n", 54) &&
            strstr(text, "\nrole 0 3 epilogue\nrole 4 4 producer\nrole 5 5 mma\nsmem 0 ") &&
            strstr(text, "\nstagepart 16384 16384 N-role tile\n") &&
            strstr(text, "\nbarrier ") && strstr(text, " accEmpty\ntmem 0 256 2 128 accumulator\n") &&
            text[len - 1] == '\n',
        "plan text: variant, launch facts, roles, smem, stage parts, barriers, TMEM", "plan text");
  printf("plan text of ab_n128 (8 groups):\n%s", text);
}

/* The memo: a family planned once, its failures too; the verdict alone; the oldest of
 * MLIR_NVFP4_PLAN_MEMO families evicted. */
static void memoTests(void) {
  MlirNvfp4VariantSpec fam[3];
  uint32_t k = mlirNvfp4DefaultFamilySpecs(128, 0, fam, 3);
  MlirNvfp4KernelFamily *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
  MlirNvfp4KernelFamily *direct = calloc(1, sizeof *direct);
  char why[256] = "";
  uint64_t runs0 = mlirNvfp4KernelConfigPlanRuns();
  int ok = mlirNvfp4KernelFamilyInitMemoized(a, 5, fam, k, why, sizeof why);
  uint64_t runs1 = mlirNvfp4KernelConfigPlanRuns();
  ok = ok && mlirNvfp4KernelFamilyInitMemoized(b, 5, fam, k, why, sizeof why) &&
       mlirNvfp4KernelFamilyInitMemoized(NULL, 5, fam, k, why, sizeof why);
  mlirNvfp4KernelFamilyInit(direct, 5, fam, k, NULL, 0);
  check(ok && runs1 - runs0 == 3 && mlirNvfp4KernelConfigPlanRuns() == runs1 + 3 &&
            a->count == 3 && b->count == 3 && !memcmp(a, b, sizeof *a) &&
            !memcmp(a->variants, direct->variants, sizeof a->variants[0] * 3),
        "memo: 3 variants planned once for two asks, the same plans as unmemoised", "memo");
  /* a failure is remembered with its message */
  fam[0].stages = 7;
  char first[256] = "", again[256] = "";
  uint64_t before = mlirNvfp4KernelConfigPlanRuns();
  int bad1 = mlirNvfp4KernelFamilyInitMemoized(a, 5, fam, k, first, sizeof first);
  uint64_t mid = mlirNvfp4KernelConfigPlanRuns();
  int bad2 = mlirNvfp4KernelFamilyInitMemoized(a, 5, fam, k, again, sizeof again);
  check(!bad1 && !bad2 && a->count == 0 && mid > before && mlirNvfp4KernelConfigPlanRuns() == mid &&
            !strcmp(first, again) && strstr(first, "variant ab_n128: stages = 7") == first,
        "memo: a failure planned once, the same message again", "memo");
  printf("memo: refused once: %s\n", again);
  /* another group count is another family; the least recently used is evicted */
  fam[0].stages = 0;
  for (uint32_t g = 100; g < 100 + MLIR_NVFP4_PLAN_MEMO; ++g)
    mlirNvfp4KernelFamilyInitMemoized(NULL, g, fam, 1, NULL, 0);
  before = mlirNvfp4KernelConfigPlanRuns();
  mlirNvfp4KernelFamilyInitMemoized(NULL, 100 + MLIR_NVFP4_PLAN_MEMO - 1, fam, 1, NULL, 0);
  mid = mlirNvfp4KernelConfigPlanRuns();
  mlirNvfp4KernelFamilyInitMemoized(NULL, 5, fam, k, NULL, 0);
  check(mid == before && mlirNvfp4KernelConfigPlanRuns() == mid + 3,
        "memo: recent families kept, the oldest evicted and planned again", "memo");
  check(!mlirNvfp4KernelFamilyInitMemoized(NULL, 5, fam, 0, why, sizeof why) &&
            strstr(why, "1 to 16 variants"),
        "memo: an empty family refused", "memo");
  free(a);
  free(b);
  free(direct);
}

/* The sm_120a fused SwiGLU + NVFP4 epilogue: ab_n64 and ab_n128 plan in both forms with
 * the sm_120a invariants, two SFB atom rows per stage (gate and up), B boxes of tile_n / 2
 * rows and one SFB atom row each in the metadata, FP4 C, the epilogue and I-any-multiple-
 * of-64 flags; swap-AB is refused. */
static void sm120FusedTests(void) {
  static const char *const variants[] = {"ab_n64", "ab_n128"};
  static const uint32_t wantStages[] = {3, 2};
  for (uint32_t v = 0; v < 2; ++v)
    for (uint32_t form = 0; form < 2; ++form) {
      MlirNvfp4KernelConfig c;
      char name[64];
      if (!planFused(variants[v], MLIR_NVFP4_TARGET_SM120A, form, "sm120", &c, name, sizeof name))
        continue;
      sm120Invariants(&c, name);
      check(c.roleN.sfAtoms == 2 && c.sfnBytes == 2 * c.sfmBytes && c.cElemBytes == 1,
            "two SFB atom rows per stage, one byte per two FP4 of C", name);
      unsigned char rec[NVFP4_METADATA_BYTES];
      mlirNvfp4KernelConfigEncodeMetadata(&c, "k", "sm_120a", 120, 0, 0, 0, 1, rec);
      check(nvfp4_meta_read_u32(rec, NVFP4_META_N_BOX_ROWS) == c.tileN / 2 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_SFN_ATOMS) == 1 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_C_TYPE) == NVFP4_META_C_FP4 &&
                nvfp4_meta_read_u32(rec, NVFP4_META_EPILOGUE_FLAGS) ==
                    (NVFP4_META_EFLAG_SWIGLU_NVFP4 | NVFP4_META_EFLAG_ALPHA) &&
                (nvfp4_meta_read_u32(rec, NVFP4_META_VARIANT_FLAGS) & NVFP4_META_VFLAG_SWIGLU_MID_ATOM),
            "metadata: two B boxes of tile_n / 2 rows, one SFB atom row each, FP4 C, the "
            "epilogue flag, I any multiple of 64", name);
      if (!form) {
        const int good = c.stages == wantStages[v];
        printf("%s: sm120 golden fused %s: stages %u smem %u\n", good ? "PASS" : "FAIL",
               variants[v], c.stages, c.dynSmemBytes);
        good ? ++gPassed : ++gFailed;
      }
    }
  static const char *const swaps[] = {"swap_n32", "swap_n64", "swap_n128"};
  for (uint32_t i = 0; i < 3; ++i) {
    MlirNvfp4VariantSpec s = {0};
    mlirNvfp4VariantSpecParse(swaps[i], strlen(swaps[i]), 0, &s);
    s.target = MLIR_NVFP4_TARGET_SM120A;
    s.swiglu = true;
    s.output = MLIR_NVFP4_OUTPUT_FP4;
    MlirNvfp4KernelConfig c;
    char why[200] = "";
    const int refusedIt = !mlirNvfp4KernelConfigInitVariant(&c, 1, s, why, sizeof why);
    check(refusedIt && strstr(why, "sm_120a AB variants only"), "sm120: the fused epilogue refused",
          swaps[i]);
  }
}

int main(int argc, char **argv) {
  static const char *const all[] = {"ab_n64", "ab_n128", "ab_n192", "ab_n256", "ab_n64_st",
                                    "ab_n128_st", "ab_n192_st", "ab_n256_st", "swap_n64",
                                    "swap_n128", "swap_n192", "swap_n256", "ab2_n64", "ab2_n128",
                                    "ab2_n192", "ab2_n256", "swap2_n64", "swap2_n128",
                                    "swap2_n192", "swap2_n256"};
  const uint32_t n = sizeof all / sizeof all[0];
  if (argc > 1 && !strcmp(argv[1], "all")) { /* every variant's plan, for 8 groups */
    for (uint32_t i = 0; i < n; ++i) {
      MlirNvfp4VariantSpec s;
      MlirNvfp4KernelConfig c;
      if (mlirNvfp4VariantSpecParse(all[i], strlen(all[i]), 0, &s) &&
          mlirNvfp4KernelConfigInitVariant(&c, 8, s, NULL, 0))
        mlirNvfp4KernelConfigPrint(&c, stdout);
      else
        printf("cannot plan %s\n", all[i]);
    }
    return 0;
  }
  if (argc > 1) { /* VARIANT [STAGES] */
    MlirNvfp4VariantSpec s;
    MlirNvfp4KernelConfig c;
    char why[200];
    uint32_t stages = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 0;
    if (!mlirNvfp4VariantSpecParse(argv[1], strlen(argv[1]), stages, &s) ||
        !mlirNvfp4KernelConfigInitVariant(&c, 8, s, why, sizeof why)) {
      printf("cannot plan %s\n", argv[1]);
      return 1;
    }
    mlirNvfp4KernelConfigPrint(&c, stdout);
    return 0;
  }
  static const uint32_t groups[] = {1, 8, 46, 47, 256, 1024};
  for (uint32_t i = 0; i < n; ++i) {
    MlirNvfp4VariantSpec s;
    char back[32];
    int parsed = mlirNvfp4VariantSpecParse(all[i], strlen(all[i]), 0, &s);
    check(parsed, "parses", all[i]);
    if (!parsed) continue;
    mlirNvfp4VariantName(s, back, sizeof back);
    check(!strcmp(back, all[i]), "name round trip", all[i]);
    for (uint32_t g = 0; g < sizeof groups / sizeof groups[0]; ++g) {
      MlirNvfp4KernelConfig c;
      char why[200];
      int ok = mlirNvfp4KernelConfigInitVariant(&c, groups[g], s, why, sizeof why);
      int expect = !(s.epilogue == MLIR_NVFP4_EPILOGUE_DIRECT_STORE &&
                     (s.orientation != MLIR_NVFP4_ORIENTATION_AB || s.ctaGroup != 1));
      check(ok == expect, ok ? "planned" : why, all[i]);
      if (ok) invariants(&c, all[i]);
      if (!ok || s.ctaGroup == 1) continue;
      /* the sm_90a builds' pairs (pairForward): the same plan plus one peerFull per stage */
      MlirNvfp4VariantSpec f = s;
      MlirNvfp4KernelConfig fc;
      f.pairForward = true;
      int fok = mlirNvfp4KernelConfigInitVariant(&fc, groups[g], f, why, sizeof why);
      check(fok && fc.stages == c.stages && fc.dynSmemBytes == c.dynSmemBytes + 8u * c.stages,
            "pairForward: the plan plus a peerFull barrier per stage", all[i]);
      if (fok) invariants(&fc, all[i]);
    }
  }
  /* every variant in every form, C type and with or without alpha */
  static const uint32_t experts[] = {1, 8, 256, 1024};
  for (uint32_t i = 0; i < n; ++i) {
    MlirNvfp4VariantSpec s;
    if (!mlirNvfp4VariantSpecParse(all[i], strlen(all[i]), 0, &s)) continue;
    for (uint32_t form = 0; form < 2; ++form)
      for (uint32_t out = 0; out < 3; ++out)
        for (uint32_t e = 0; e < sizeof experts / sizeof experts[0]; ++e) {
          MlirNvfp4KernelConfig c;
          char why[200], name[64];
          s.form = (MlirNvfp4Form)form;
          s.output = (MlirNvfp4OutputType)out;
          s.alpha = (e & 1) != 0;
          snprintf(name, sizeof name, "%s %s %s%s x%u", all[i], form ? "contiguous" : "pointer-array",
                   out == 0 ? "f16" : out == 1 ? "bf16" : "f32", s.alpha ? " alpha" : "", experts[e]);
          int ok = mlirNvfp4KernelConfigInitVariant(&c, experts[e], s, why, sizeof why);
          int expect = !(s.epilogue == MLIR_NVFP4_EPILOGUE_DIRECT_STORE &&
                         (s.orientation != MLIR_NVFP4_ORIENTATION_AB || s.ctaGroup != 1));
          check(ok == expect, ok ? "planned" : why, name);
          if (ok) invariants(&c, name);
        }
  }
  {
    MlirNvfp4VariantSpec s;
    MlirNvfp4KernelConfig c;
    mlirNvfp4VariantSpecParse("swap_n256", 9, 0, &s);
    s.form = MLIR_NVFP4_FORM_CONTIGUOUS;
    s.output = MLIR_NVFP4_OUTPUT_F32;
    int ok = mlirNvfp4KernelConfigInitVariant(&c, 256, s, NULL, 0);
    check(ok && c.numTmaps == 10 && c.paramBytes == 128 && c.stagingBytes == 32768 &&
              c.stagingBoxes == 4 && c.scheduleBytes == 16 * 257,
          "swap_n256 contiguous f32: 10 maps, 4 staging boxes of 32 columns", "golden");
    if (ok)
      printf("PASS: golden contiguous swap_n256 f32 x256: stages %u smem %u params %u\n", c.stages,
             c.dynSmemBytes, c.paramBytes);
    s.form = MLIR_NVFP4_FORM_POINTER_ARRAY;
    s.output = (MlirNvfp4OutputType)3;
    check(!mlirNvfp4KernelConfigInitVariant(&c, 1, s, NULL, 0), "unknown output type refused", "spec");
    s.output = MLIR_NVFP4_OUTPUT_F16;
    s.form = (MlirNvfp4Form)2;
    check(!mlirNvfp4KernelConfigInitVariant(&c, 1, s, NULL, 0), "unknown form refused", "spec");
  }
  /* names that must not parse */
  static const char *const bad[] = {"", "ab", "ab_n", "ab_n0128", "abc_n128", "ab3_n128",
                                    "ab_n128_xx", "swap_n128_", "AB_n128", "swap_n128_m128",
                                    "swap_n128_m", "swap_n128_m192x", "swap_n128_st_m192"};
  for (uint32_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    MlirNvfp4VariantSpec s;
    check(!mlirNvfp4VariantSpecParse(bad[i], strlen(bad[i]), 0, &s), "rejected", bad[i]);
  }
  /* stage counts the shared memory allows (docs/kernel-sm100a.md, configuration table) */
  golden("ab_n64", 6, 2, 6, 205960);
  golden("ab_n128", 5, 2, 5, 218232);
  golden("ab_n192", 4, 2, 2, 222328);
  golden("ab_n256", 3, 1, 3, 199752);
  golden("ab_n128_st", 6, 2, 6, 222344);
  golden("swap_n128", 5, 2, 5, 218232);
  golden("swap_n256", 3, 1, 3, 199752);
  golden("swap2_n256", 5, 1, 5, 228456);
  /* requested stages: exact, or an error naming the limit */
  MlirNvfp4VariantSpec s = mlirNvfp4VariantSpecDefault(128, 7);
  MlirNvfp4KernelConfig c;
  char why[200] = "";
  check(!mlirNvfp4KernelConfigInitVariant(&c, 1, s, why, sizeof why) &&
            strstr(why, "at most 5") != NULL,
        "stages = 7 refused for ab_n128", "stages");
  s.stages = 2;
  check(mlirNvfp4KernelConfigInitVariant(&c, 1, s, why, sizeof why) && c.stages == 2,
        "stages = 2 honoured", "stages");
  /* the default family */
  MlirNvfp4VariantSpec fam[4];
  uint32_t k = mlirNvfp4DefaultFamilySpecs(192, 0, fam, 4);
  char names[3][32];
  for (uint32_t i = 0; i < k && i < 3; ++i) mlirNvfp4VariantName(fam[i], names[i], 32);
  check(k == 3 && !strcmp(names[0], "ab_n192") && !strcmp(names[1], "swap_n128") &&
            !strcmp(names[2], "swap_n256"),
        "default family ab_n<tile_n>, swap_n128, swap_n256", "family");
  fusedTests();
  fusedSm90Tests();
  sm90Tests();
  sm120Tests();
  sm120FusedTests();
  sm90OptionTests();
  planTextTests();
  memoTests();
  printf("SUMMARY: %d passed, %d failed\n", gPassed, gFailed);
  return gFailed ? 1 : 0;
}
