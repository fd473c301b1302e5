/* KernelConfig.h — the static plan of one generated grouped-matmul kernel variant: which
 * tensor feeds which side of the MMA (the operand-role table), tile shape, pipeline depth,
 * and the resources a planner hands out — shared-memory regions, mbarrier arrays, Tensor
 * Memory columns — plus the metadata record the runtime reads. Pure C (no MLIR): the
 * lowering builds the kernel from it, the verifier asks it whether a configuration can be
 * built, the emulation/proxy passes and the tests read it back. docs/kernel-sm100a.md
 * describes the same maps.
 *
 * Vocabulary. The MMA computes D[i, j] = sum_k X[i, k] * Y[j, k] with i on the MMA's M side
 * (TMEM lanes) and j on its N side (TMEM columns). The operand-role table says which of the
 * op's tensors plays X (the "M role") and which plays Y (the "N role"):
 *   AB       X = A (tokens, M x K), Y = B (weights, N x K): D = C tile, lane = row of C;
 *   SWAP_AB  X = B, Y = A: D = C tile transposed, lane = column of C. The N role (tokens)
 *            is sized per group at run time (a multiple of 8 up to tileN).
 *
 * Targets. A variant belongs to one generator (MlirNvfp4VariantSpec.target; Targets.h maps
 * the op's target strings onto them): sm_100a kernels (tcgen05, Tensor Memory;
 * lib/Conversion/Sm100), sm_90a kernels (FP4 x scale decoded to BF16 in the consumer
 * warpgroups, wgmma; lib/Conversion/Sm90, docs/kernel-sm90a.md) or sm_120a kernels
 * (block-scaled mma.sync with register accumulators; lib/Conversion/Sm120,
 * docs/kernel-sm120a.md). They share the operand-role table, the shared-memory stage layout
 * of the raw operands, the mbarrier rings and the metadata record; the sm_90a and sm_120a
 * plans have their own parts (MlirNvfp4Sm90Plan, MlirNvfp4Sm120Plan).
 */
#ifndef NVFP4_C_KERNELCONFIG_H
#define NVFP4_C_KERNELCONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MLIR_NVFP4_TILE_M 128u          /* MMA M rows held by one CTA */
#define MLIR_NVFP4_TILE_K 256u          /* K per pipeline stage */
#define MLIR_NVFP4_MMA_K 64u            /* K per tcgen05.mma (FP4, block16) */
#define MLIR_NVFP4_K_GRANULE 64u        /* K must be a multiple of this */
#define MLIR_NVFP4_SF_ATOM_ROWS 128u    /* rows of one scale-factor atom */
#define MLIR_NVFP4_SF_ATOM_BYTES 512u   /* 128 rows x 4 scale columns (64 K) */
#define MLIR_NVFP4_MAX_DYN_SMEM 232448u /* per-block opt-in limit on sm_90 / sm_100 */
#define MLIR_NVFP4_TMEM_COLUMNS 512u
#define MLIR_NVFP4_MAX_STAGES 8u
#define MLIR_NVFP4_DEFAULT_TILE_N 128u
#define MLIR_NVFP4_N_STEP 8u            /* MMA N granule (cta_group::1, block-scaled) */
#define MLIR_NVFP4_STORE_COLS 64u       /* C columns of one AB epilogue sub-tile (and of a
                                           TMA-store box of 2-byte elements: 128 B) */
#define MLIR_NVFP4_MOE_RECORD_BYTES 16u /* per expert in the schedule: tile start, first
                                           row, rows, first sfa atom row (u32 each) */

/* The sm_100a kernel's warps (6 warps, 192 threads): the planner's role map
 * (MlirNvfp4KernelConfig.roles) is built from these; everything else reads the map. */
#define MLIR_NVFP4_NUM_EPILOGUE_WARPS 4u
#define MLIR_NVFP4_PRODUCER_WARP 4u
#define MLIR_NVFP4_MMA_WARP 5u
#define MLIR_NVFP4_NUM_THREADS 192u
/* A CTA pair's .cta_group::2 TMA loads complete on the leader's (even CTA's) barrier: the
 * issuing CTA's shared address of its own barrier with the peer bit (bit 24) cleared, as
 * CUTLASS's SM100_TMA_2SM_LOAD does (cute::Sm100MmaPeerBitMask). */
#define MLIR_NVFP4_PEER_BIT_MASK 0xFEFFFFFFu

/* What a range of warps does (the role map; the numbering is the CPU simulator's too). */
typedef enum MlirNvfp4WarpRole {
  MLIR_NVFP4_ROLE_EPILOGUE = 0, /* sm_100a: accumulator (TMEM) -> C */
  MLIR_NVFP4_ROLE_PRODUCER = 1, /* TMA loads (issued by one thread) */
  MLIR_NVFP4_ROLE_MMA = 2,      /* sm_100a: tcgen05.cp / mma issuer (one thread) */
  MLIR_NVFP4_ROLE_CONSUMER = 3, /* sm_90a: weight decode, wgmma, C */
  MLIR_NVFP4_ROLE_DECODER = 4,  /* sm_90a: token decode */
  MLIR_NVFP4_ROLE_MMA_SYNC = 5, /* sm_120a: ldmatrix, block-scaled mma.sync, C */
  MLIR_NVFP4_ROLE_COUNT = 6
} MlirNvfp4WarpRole;

/* Warps first .. first + count - 1 of a CTA (count 0: the kernel has no such role). */
typedef struct MlirNvfp4WarpRange {
  uint32_t first, count;
} MlirNvfp4WarpRange;

/* "epilogue", "producer", "mma", "consumer", "decoder", "mmasync" (the plan text's role
 * names). */
const char *mlirNvfp4WarpRoleName(MlirNvfp4WarpRole role);

/* The generator that builds a variant (zero: sm_100a, so existing specs keep their meaning). */
typedef enum MlirNvfp4Target {
  MLIR_NVFP4_TARGET_SM100A = 0, /* tcgen05 + TMA (targets sm_100a, sm_100f, sm_103a) */
  MLIR_NVFP4_TARGET_SM90A = 1,  /* BF16 decode + wgmma + TMA (sm_90a) */
  MLIR_NVFP4_TARGET_SM120A = 2  /* block-scaled mma.sync + TMA (sm_120a, sm_121a, sm_120f) */
} MlirNvfp4Target;

/* Which tensor feeds the MMA's M side (see the vocabulary above). */
typedef enum MlirNvfp4Orientation {
  MLIR_NVFP4_ORIENTATION_AB = 0,
  MLIR_NVFP4_ORIENTATION_SWAP_AB = 1
} MlirNvfp4Orientation;

/* How the accumulator reaches C. */
typedef enum MlirNvfp4EpilogueKind {
  MLIR_NVFP4_EPILOGUE_DIRECT_STORE = 0, /* registers -> predicated global stores (AB only) */
  MLIR_NVFP4_EPILOGUE_TMA_STORE = 1     /* registers -> swizzled smem -> TMA tensor store */
} MlirNvfp4EpilogueKind;

/* The op's tensors (index into the per-group tensor-map slots, KernelABI.h). */
typedef enum MlirNvfp4Tensor {
  MLIR_NVFP4_TENSOR_A = 0,
  MLIR_NVFP4_TENSOR_B = 1,
  MLIR_NVFP4_TENSOR_SFA = 2,
  MLIR_NVFP4_TENSOR_SFB = 3,
  MLIR_NVFP4_TENSOR_C = 4
} MlirNvfp4Tensor;

/* C's element type (the numbering of KernelABI.h's NVFP4_META_C_*). */
typedef enum MlirNvfp4OutputType {
  MLIR_NVFP4_OUTPUT_F16 = 0,
  MLIR_NVFP4_OUTPUT_BF16 = 1,
  MLIR_NVFP4_OUTPUT_F32 = 2,
  MLIR_NVFP4_OUTPUT_FP4 = 3  /* E2M1 codes of the fused SwiGLU + NVFP4 epilogue (swiglu) */
} MlirNvfp4OutputType;

/* How the groups reach the kernel (KernelABI.h's NVFP4_META_FORM_*). */
typedef enum MlirNvfp4Form {
  MLIR_NVFP4_FORM_POINTER_ARRAY = 0, /* nvfp4.grouped_matmul: a group table */
  MLIR_NVFP4_FORM_CONTIGUOUS = 1     /* nvfp4.moe_matmul: shared maps, device offsets */
} MlirNvfp4Form;

/* What a caller asks for. The last three fields are properties of the op (every variant
 * of a family has the same); zero is the v1 behaviour: f16, no alpha, pointer array. */
typedef struct MlirNvfp4VariantSpec {
  MlirNvfp4Orientation orientation;
  uint32_t ctaGroup;               /* 1, or 2: a CTA pair (1x2 cluster) shares one MMA */
  uint32_t tileN;                  /* AB: N of every tile; SWAP_AB: the largest per-group N */
  MlirNvfp4EpilogueKind epilogue;
  uint32_t stages;                 /* 0: as many as shared memory allows */
  MlirNvfp4Target target;          /* the generator (default sm_100a) */
  MlirNvfp4OutputType output;      /* C's element type */
  bool alpha;                      /* C = alpha_g * (A B^T), alpha_g fp32 read from memory */
  MlirNvfp4Form form;
  uint32_t tileM;                  /* M-role rows of a CTA's tile; 0: 128 (sm_90a also 192:
                                      one consumer warpgroup per 64 rows) */
  bool streamK;                    /* the stream-K schedule ("_sk"; sm_90a, and sm_100a
                                      1-CTA pointer-array variants of tile_n <= 128 without
                                      the fused epilogue): each CTA an equal share of all
                                      tiles' stages, split tiles reduced through the
                                      workspace (NVFP4_META_VFLAG_STREAM_K) */
  bool swiglu;                     /* the fused SwiGLU + NVFP4 epilogue (epilogue =
                                      "swiglu_nvfp4"; output FP4): B holds 2I gate/up rows,
                                      one N = 256 MMA per 128 features (sm_100a ab_n256_st) */
  bool debugActivations;           /* with swiglu: the kernel also stores its fp32
                                      activations (NVFP4_META_FLAG_DEBUG_ACTIVATIONS) */
  bool swigluMidAtom;              /* with swiglu: I may be any multiple of 64, not only of
                                      128 (NVFP4_META_VFLAG_SWIGLU_MID_ATOM): a third SFB
                                      atom row per stage; chosen when I is not a static
                                      multiple of 128 */
  bool pairForward;                /* a CTA pair (ctaGroup 2) for a build retargeted to
                                      sm_90a (the tcgen05 emulation, the timing proxy),
                                      which has no .cta_group::2 TMA: each CTA's loads
                                      complete on its own full[s] and the odd CTA forwards
                                      each landed stage to the leader's peerFull[s]; the op's
                                      unit attribute nvfp4.pair_forward */
} MlirNvfp4VariantSpec;

/* One operand role: the tensor that plays it and its scale factors. */
typedef struct MlirNvfp4OperandRole {
  MlirNvfp4Tensor data, scales;
  uint32_t rowsPerCta;   /* rows of this role one CTA loads per stage (N role: the maximum) */
  uint32_t sfAtoms;      /* 128-row scale-factor atoms per K block this CTA copies */
  bool dynamicRows;      /* rows chosen per group at run time (SWAP_AB N role) */
} MlirNvfp4OperandRole;

/* ---- the planner's resources ---------------------------------------------------------- */

#define MLIR_NVFP4_PLAN_MAX_REGIONS 16
#define MLIR_NVFP4_PLAN_MAX_BARRIERS 8

typedef struct MlirNvfp4SmemRegion {
  const char *name;      /* static string */
  uint32_t offset;       /* from the 1024-B aligned dynamic shared-memory base */
  uint32_t bytes;        /* total (all copies) */
  uint32_t copies;       /* ring depth (stages), or 1 */
  uint32_t stride;       /* bytes between copies */
} MlirNvfp4SmemRegion;

typedef struct MlirNvfp4BarrierArray {
  const char *name;
  uint32_t first;        /* index of the first mbarrier (8 B each from barrierOffset) */
  uint32_t count;
  uint32_t arrivals;     /* expected arrivals per phase (mbarrier.init count) */
} MlirNvfp4BarrierArray;

typedef struct MlirNvfp4TmemRegion {
  const char *name;
  uint32_t column, columns; /* total (all copies) */
  uint32_t copies, stride;
} MlirNvfp4TmemRegion;

/* The sm_90a plan's own parts (docs/kernel-sm90a.md). The decoder warpgroup decodes each
 * 64-K chunk of the N role (tokens) into a BF16 buffer in the wgmma B layout (K-major,
 * 128-B swizzle); the consumer warpgroups decode the M role (weights) into wgmma A register
 * fragments and run the wgmmas. */
typedef struct MlirNvfp4Sm90Plan {
  uint32_t consumerGroups;   /* consumer warpgroups (each owns 64 M-role rows) */
  uint32_t decoderGroups;    /* token-decoder warpgroups (2; 1 for swap_n192, swap_n128_m192) */
  uint32_t mmaDepth;         /* wgmma groups left in flight while the next chunk decodes */
  bool stageUnroll;          /* the chunk loop unrolled by a 256-K stage (4 chunks) */
  uint32_t chunkK;           /* K per decoded chunk (64: one 128-B swizzle row of BF16) */
  uint32_t decodedOffset, decodedBytes, decodedBuffers; /* ring of decoded N-role chunks */
  /* decodedFull[i]: decoded buffer i is complete (one arrival per decoder warp);
   * decodedEmpty[i]: its wgmmas have retired (one arrival per consumer warp) */
  MlirNvfp4BarrierArray decodedFull, decodedEmpty;
  uint32_t lutOffset;        /* 256 x u32: E4M3 scale code -> BF16x2 {S, S} */
  uint32_t producerRegs, consumerRegs, decoderRegs; /* setmaxnreg per warpgroup role */
} MlirNvfp4Sm90Plan;

/* The sm_120a plan's own parts (docs/kernel-sm120a.md): consumer warps 0..consumerWarps-1
 * issue the block-scaled mma.sync (m16n8k64) on register accumulators, laid out warpsM x
 * warpsN over the tile (warp w: M-role rows (w % warpsM) * 16 mBlocks .., N-role rows
 * (w / warpsM) * 8 nBlocks ..), the warp after them issues the TMA loads (its lane 0). */
typedef struct MlirNvfp4Sm120Plan {
  uint32_t consumerWarps;    /* 8 */
  uint32_t warpsM, warpsN;   /* warp grid over the tile (AB 4 x 2, swap-AB 8 x 1) */
  uint32_t mBlocks;          /* m16 blocks of one warp */
  uint32_t nBlocks;          /* n8 blocks of one warp (even: ldmatrix.x4 loads two) */
  uint32_t producerWarp;     /* = consumerWarps */
} MlirNvfp4Sm120Plan;

/* The cost model of a native sm_90a tile, shared by the planner (the stream-K split) and the
 * runtime's variant choice (runtime/src/plan.c), which reads both constants from the
 * metadata record (cost_decode_rows, cost_token_share): a tile of W weight rows and T token
 * rows costs W (T + D) - S (W - 128) T token-row-weights, D = decode rows (the weights of a
 * tile are decoded once whatever T, which costs about what D more token rows would), S = the
 * share of a token row's cost a wider weight tile does not repeat (a token row is decoded
 * once per tile). Fitted with the runtime's device model on the 24 times of the default
 * family on B1..B4 measured on an H200 (docs/performance.md, runtime/src/plan.c). */
#define MLIR_NVFP4_SM90_DECODE_ROWS 48u
#define MLIR_NVFP4_SM90_TOKEN_SHARE_PERMILLE 870u

typedef struct MlirNvfp4KernelConfig {
  MlirNvfp4VariantSpec spec;
  uint32_t numGroups;     /* compiled group count G */
  uint32_t tileM;         /* MMA M rows per CTA (128) */
  uint32_t mmaM;          /* M of the instruction: 128, or 256 for a CTA pair */
  uint32_t tileN;         /* N of the instruction (SWAP_AB: the largest) */
  uint32_t tileK;
  MlirNvfp4OperandRole roleM, roleN;

  uint32_t stages;        /* shared-memory pipeline depth */
  uint32_t accBuffers;    /* TMEM accumulator buffers */
  uint32_t sfSlots;       /* scale-factor TMEM slots */
  bool sfRing;            /* sfSlots < stages: slot reuse waits on sfFree barriers */

  /* Shared memory (offsets from the 1024-B aligned base). A stage holds the M-role tile,
   * the N-role tile, then their scale-factor atoms; stageBytes is a multiple of 1024. */
  uint32_t mBytes, nBytes, sfmBytes, sfnBytes;   /* per stage (N role: at the maximum) */
  uint32_t mOffset, nOffset, sfmOffset, sfnOffset; /* within a stage */
  uint32_t stageBytes;
  uint32_t stagingOffset, stagingBytes, stagingBuffers; /* TMA-store staging (or 0) */
  uint32_t stagingRows, stagingBoxes;           /* rows per buffer, 64-column boxes per row */
  uint32_t barrierOffset, numBarriers;
  uint32_t tmemSlotOffset; /* u32 written by tcgen05.alloc */
  uint32_t dynSmemBytes;   /* including 1024 B of alignment slack */
  uint32_t txBytesFixed;   /* expect_tx bytes per stage that do not depend on the group */

  /* mbarrier arrays (indices into the barrier area). A CTA pair keeps the same layout in
   * both CTAs: the leader's full[s] counts both CTAs' bytes (the peer's full barriers are
   * not used); peerFull (the leader's: the peer's stage s has landed) only exists for a
   * pair with spec.pairForward, and the leader's accEmpty counts both CTAs' epilogue
   * threads. */
  MlirNvfp4BarrierArray full, peerFull, empty, accFull, accEmpty, sfFree;

  /* Tensor Memory columns (lane 0 based). */
  uint32_t tmemCols;       /* allocated: power of two >= 32 */
  uint32_t accCol0;        /* accumulator b at accCol0 + b * tileN */
  uint32_t sfCol0;         /* first scale-factor slot */
  uint32_t sfColsPerSlot;  /* M-role SF then N-role SF */
  uint32_t sfmColsPerSlot;

  uint32_t paramBytes;     /* NVFP4_ABI_PARAM_BYTES, or NVFP4_ABI_MOE_PARAM_BYTES (contiguous) */

  /* C: element bytes (2 or 4) and columns of one TMA-store box (128 B of a row). */
  uint32_t cElemBytes, storeBoxCols;

  /* The contiguous form: numGroups experts; the expert schedule the CTA builds in shared
   * memory at its start (MLIR_NVFP4_MOE_RECORD_BYTES per expert, then the tile total) and
   * the scan scratch (one pair of u32 per thread); the tensor maps of its parameter block
   * (5, plus nLadder A maps of smaller N-role boxes for a DYNAMIC_N variant). */
  uint32_t scheduleOffset, scheduleBytes, scanOffset;
  /* sm_90a: the records live in the CTA's slice of the workspace (workspacePerCta bytes at
   * workspace + CTA index x workspacePerCta; its shared memory is the pipeline's) and the
   * scan scratch at scanOffset aliases the decoded token ring, unused until the roles
   * start */
  bool scheduleInWorkspace;
  uint32_t numTmaps, nLadder;

  /* The planner's tables (for printing, tests and the docs). */
  MlirNvfp4SmemRegion smem[MLIR_NVFP4_PLAN_MAX_REGIONS];
  uint32_t numSmemRegions;
  MlirNvfp4BarrierArray barriers[MLIR_NVFP4_PLAN_MAX_BARRIERS]; /* copies of the arrays */
  uint32_t numBarrierArrays;
  MlirNvfp4TmemRegion tmem[MLIR_NVFP4_PLAN_MAX_REGIONS];
  uint32_t numTmemRegions;

  /* Per-target launch facts (set by every planner). */
  uint32_t numThreads;     /* threads per CTA */
  uint32_t nAlign;         /* granule of a per-group N (metadata n_align) */
  uint32_t variantFlags;   /* NVFP4_META_VFLAG_* beyond DYNAMIC_N */
  bool snakeOrder;         /* tile schedule: every other pass over the CTAs runs backwards */
  bool streamK;            /* stream-K schedule (spec.streamK): GenTile.kBegin / kEnd */
  /* Stream-K, every target: the cost of one 256-K stage of a tile of group g is tile_n_g +
   * streamKCost (the scheduler's unit; sm_90a: token rows, the weight decode of the stage
   * being worth streamKCost of them at this tile's weight rows; sm_100a: 128-byte rows
   * loaded, the M role's 128 of them). A CTA's workspace has two slots (its first tile's
   * share when that starts past stage 0, its last tile's when that is split), each
   * skFlagBytes of counters and stage ends, then skSlotBytes of partial sums per group of
   * epilogue threads (sm_90a: per consumer warpgroup; sm_100a: one, the 4 epilogue warps) */
  uint32_t streamKCost, skSlotBytes, skFlagBytes;
  uint32_t workspacePerCta;/* bytes of device workspace per CTA (metadata), or 0 */
  MlirNvfp4Sm90Plan sm90;  /* sm_90a only (zero otherwise) */
  MlirNvfp4Sm120Plan sm120;/* sm_120a only (zero otherwise) */

  /* The role map: which warps run which role (the kernel builders dispatch on it, the CPU
   * target's plan text names it). */
  MlirNvfp4WarpRange roles[MLIR_NVFP4_ROLE_COUNT];
  /* The cost-model constants of the metadata record (sm_90a: the model above; 0 for a
   * kernel without a decode). */
  uint32_t costDecodeRows, costTokenSharePermille;
} MlirNvfp4KernelConfig;

/* The default spec of an op with tile_n = N and stages = S (the v1 shape): AB, 1 CTA,
 * TMA-store epilogue. */
MlirNvfp4VariantSpec mlirNvfp4VariantSpecDefault(uint32_t tileN, uint32_t stages);

/* sm_90a: threads (5 warpgroups: producer, 2 consumers, 2 token decoders), token-tile
 * granule, tile widths. */
#define MLIR_NVFP4_SM90_NUM_THREADS 640u
#define MLIR_NVFP4_SM90_N_ALIGN 16u
#define MLIR_NVFP4_SM90_STORE_ROWS 16u   /* C rows per TMA-store box */

/* sm_120a: the per-block dynamic shared-memory limit of compute capability 12.x (99 KiB,
 * CUDA programming guide, "Technical specifications per compute capability"), the token
 * granule of the swap-AB N role (two n8 blocks: one ldmatrix.x4), threads (8 consumer
 * warps and the producer warp). */
#define MLIR_NVFP4_SM120_MAX_DYN_SMEM 101376u
#define MLIR_NVFP4_SM120_N_ALIGN 16u
#define MLIR_NVFP4_SM120_NUM_THREADS 288u

/* Plans a variant for G groups (for spec.target). Returns false with a message when it
 * cannot be built. */
bool mlirNvfp4KernelConfigInitVariant(MlirNvfp4KernelConfig *cfg, uint32_t numGroups,
                                      MlirNvfp4VariantSpec spec, char *msg, size_t msgSize);

/* Short name of a variant ("ab_n128", "swap_n256", "ab2_n256", "swap_n128_m192_sk", ...), for kernel names and
 * tools. Writes at most size bytes (NUL-terminated). */
void mlirNvfp4VariantName(MlirNvfp4VariantSpec spec, char *out, size_t size);

/* Parses a variant name as written by mlirNvfp4VariantName: "ab" | "swap", an optional
 * "2" (CTA pair), "_n" tileN, an optional "_m" tileM (written when it is not 128), an
 * optional "_st" (direct-store epilogue) or "_sk" (stream-K schedule). Stages are not
 * part of the name (spec.stages is set to `stages`). False on anything else. */
bool mlirNvfp4VariantSpecParse(const char *name, size_t length, uint32_t stages,
                               MlirNvfp4VariantSpec *out);

/* ---- a kernel family: the variants one op compiles to (one cubin) ------------------- */

#define MLIR_NVFP4_MAX_VARIANTS 16u

typedef struct MlirNvfp4KernelFamily {
  uint32_t count;
  MlirNvfp4KernelConfig variants[MLIR_NVFP4_MAX_VARIANTS];
} MlirNvfp4KernelFamily;

/* The family an op gets without a `variants` attribute: AB with the op's tile_n, and
 * swap-AB with N up to 128 and up to 256 (docs/kernel-sm100a.md says why). Returns the
 * number of specs written to out (at most max). */
uint32_t mlirNvfp4DefaultFamilySpecs(uint32_t tileN, uint32_t stages, MlirNvfp4VariantSpec *out,
                                     uint32_t max);
/* The default family for a target: sm_100a as above; sm_120a ab_n<tileN> (tile_n 64 or
 * 128; 128 otherwise), swap_n64, swap_n128; sm_90a swap_n<tileN>, the other two of
 * swap_n64 / swap_n128 / swap_n192, then swap_n128_m192, swap_n64_m192 and
 * swap_n128_m192_sk (the runtime picks per launch). */
uint32_t mlirNvfp4DefaultFamilySpecsForTarget(MlirNvfp4Target target, uint32_t tileN,
                                              uint32_t stages, MlirNvfp4VariantSpec *out,
                                              uint32_t max);

/* Plans every variant; false with a message naming the variant that cannot be built or
 * the duplicate. The family may be large (16 plans): allocate it on the heap. */
bool mlirNvfp4KernelFamilyInit(MlirNvfp4KernelFamily *family, uint32_t numGroups,
                               const MlirNvfp4VariantSpec *specs, uint32_t count, char *msg,
                               size_t msgSize);

/* The memoised planner: mlirNvfp4KernelFamilyInit's result for these inputs, planned at most
 * once per distinct (numGroups, specs) among the last MLIR_NVFP4_PLAN_MEMO families asked
 * for in this process (thread-safe). The verifier asks first and the lowering gets the same
 * plan: the planner runs once per op. `family` may be NULL (only the verdict). */
#define MLIR_NVFP4_PLAN_MEMO 64u
bool mlirNvfp4KernelFamilyInitMemoized(MlirNvfp4KernelFamily *family, uint32_t numGroups,
                                       const MlirNvfp4VariantSpec *specs, uint32_t count,
                                       char *msg, size_t msgSize);

/* Testing hook: the variants planned so far in this process (every run of
 * mlirNvfp4KernelConfigInitVariant, successful or not). With the environment variable
 * NVFP4_DEBUG_PLANNER set, each run also writes a line to stderr:
 *   nvfp4-planner: run <n>: <variant> for <G> groups */
uint64_t mlirNvfp4KernelConfigPlanRuns(void);

/* Writes a human-readable table of the plan (regions, barriers, TMEM) to `out`. */
void mlirNvfp4KernelConfigPrint(const MlirNvfp4KernelConfig *cfg, void *file);

/* Writes the plan text of the variant (the lines the lowering attaches to its kernel as
 * `nvfp4.plan` and the CPU target hands to the simulator, cpusim/README.md):
 *   variant <name> / threads <n> / cluster <n> / dyn_smem <bytes>
 *   role <first warp> <last warp> <role name>               (each role the kernel has)
 *   smem <offset> <bytes> <copies> <stride> <name>          (shared-memory regions)
 *   stagepart <offset> <bytes> <name>                       (the 4 parts of a stage)
 *   barrier <shared offset> <count> <arrivals> <name>       (mbarrier arrays)
 *   tmem <column> <columns> <copies> <stride> <name>        (Tensor Memory regions)
 * one per line, '\n'-terminated, into out (at most size bytes, NUL-terminated). Returns the
 * length of the whole text (as snprintf does). */
size_t mlirNvfp4KernelConfigPlanText(const MlirNvfp4KernelConfig *cfg, char *out, size_t size);

/* Writes the 256-byte metadata record (KernelABI.h) of this variant: `variantIndex` of
 * `variantCount` kernels in the cubin. */
void mlirNvfp4KernelConfigEncodeMetadata(const MlirNvfp4KernelConfig *cfg,
                                         const char *kernelName, const char *target,
                                         uint32_t targetSm, uint32_t flags,
                                         uint32_t workspacePerCta, uint32_t variantIndex,
                                         uint32_t variantCount, unsigned char *record);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_KERNELCONFIG_H */
