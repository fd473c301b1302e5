/* Generator.h — the parts every generated grouped-matmul kernel is assembled from,
 * independent of the tensor-core generation that computes the tiles:
 *
 *   GenKernel      the values every warp role needs (parameter block, group table,
 *                  shared-memory base, thread coordinates, CTA rank in a cluster);
 *   barriers       addresses of the planner's mbarrier arrays and their one-thread init;
 *   GenPipe        a pipeline ring: position, continuous phase bit, producer acquire /
 *                  consumer wait on a full/empty barrier pair, teardown drain;
 *   GenTile        the group-aware persistent tile scheduler (flattened tile space over
 *                  all groups by prefix sums, M role fastest) and the per-tile values it
 *                  loads from the group record — or, for the contiguous (MoE) form, from
 *                  the expert schedule every CTA builds from the device-resident offsets;
 *   operand roles  tensor maps and tile rows of the M and N roles, from the planner's
 *                  role table, so that swap-AB is a permutation and not a copy;
 *   map patching   the kernel-side half of NVFP4_ABI_FLAG_PATCH_TMAPS (KernelABI.h): each
 *                  CTA's copies of the tensor-map templates with the raw addresses of
 *                  the device table (TensorMapPatch.c);
 *   stream-K       the split-tile reduction of the stream-K schedule (StreamK.h).
 *
 * The sm_100a kernel (lib/Conversion/Sm100/) composes these with its tcgen05 MMA and
 * epilogue emitters.
 */
#ifndef NVFP4_CONVERSION_GENERATOR_H
#define NVFP4_CONVERSION_GENERATOR_H

#include "../KernelBuilder.h"
#include "nvfp4-c/KernelConfig.h"

typedef struct GenKernel {
  KbBuilder *b;
  const MlirNvfp4KernelConfig *cfg;
  KbValue params;   /* !llvm.ptr: the by-value parameter block */
  KbValue table;    /* !llvm.ptr: the device table at HDR_TABLE (group table, or the
                       contiguous form's shared tensor maps) */
  KbValue smem;     /* i32 shared address of the 1024-aligned dynamic smem base */
  KbValue tid, warp, lane;
  KbValue ctaRank;  /* rank of this CTA in its cluster (constant 0 without clusters) */
  bool patchable;   /* built to honour NVFP4_ABI_FLAG_PATCH_TMAPS (genTensorMapPatchInit) */
  KbValue patchMaps;/* i1: the launch's header has the flag (when patchable) */
  KbValue mapCopies;/* i64: this CTA's patched tensor maps (valid when patchMaps) */
  KbValue sched;    /* contiguous form: i32 shared address of the expert schedule */
} GenKernel;

/* Sets up the common values: thread coordinates, the aligned shared-memory base from the
 * module's dynamic shared-memory symbol, and the device table (the header's HDR_TABLE). */
void genKernelInit(GenKernel *k, KbBuilder *b, const MlirNvfp4KernelConfig *cfg,
                   KbValue params, const char *dynSmemGlobal);

/* The contiguous form (all threads, before the warp roles split): reads the E + 1 offsets
 * from device memory and writes the expert schedule into shared memory — per expert its
 * first tile, first row, rows and first scale-factor atom row, then the tile total —
 * with a block-wide scan. An expert's rows are offsets[e] .. offsets[e+1] clamped to
 * [0, M] (an end below the start: no rows), so whatever the offsets hold, no tile reads
 * or writes past the M rows of A and C. */
void genBuildSchedule(GenKernel *k);

/* u32 / u64 loads from the parameter block and from the device table (the latter marked
 * invariant, ld.global.nc: only the host writes the table, before the launch; without it
 * the sm_90a stream-K consumers of bf16 C with alpha spill). */
KbValue genParamU32(GenKernel *k, uint32_t byteOffset);
KbValue genParamU64(GenKernel *k, uint32_t byteOffset);
KbValue genTableU32(GenKernel *k, KbValue byteOffset);
KbValue genTableU64(GenKernel *k, KbValue byteOffset);

/* Shared pointer for an i32 shared-memory address; address of a planned region copy. */
KbValue genSharedPtr(GenKernel *k, KbValue addr);
KbValue genSmemAddr(GenKernel *k, uint32_t regionOffset, uint32_t stride, KbValue copy);

/* ---- mbarriers ------------------------------------------------------------------------ */

/* Shared pointer to mbarrier `index` of an array of the plan. */
KbValue genBarrier(GenKernel *k, const MlirNvfp4BarrierArray *arr, KbValue index);
/* mbarrier.init of every array in the plan with its arrival count (call from one thread),
 * then fence.mbarrier_init and fence.proxy.async. */
void genInitBarriers(GenKernel *k);
/* Waits until the phase with `parity` of `bar` has completed. In a CTA pair the wait is an
 * acquire at cluster scope: the pair's barriers are arrived on from the other CTA (remote
 * arrives, multicast commits), and a CTA-scope acquire does not synchronize with a release
 * by a thread of another CTA. */
void genMbarWait(GenKernel *k, KbValue bar, KbValue parity);
/* The same, the wait tagged with the name of the plan's barrier array it belongs to
 * ({nvfp4.barrier = "full"}; the pipeline waits are tagged this way). */
void genMbarWaitOn(GenKernel *k, const MlirNvfp4BarrierArray *arr, KbValue bar, KbValue parity);

/* ---- pipeline rings --------------------------------------------------------------------- */

typedef struct GenRing { KbVar index, phase; uint32_t size; } GenRing;

GenRing genRingNew(KbBuilder *b, uint32_t size);
void genRingAdvance(KbBuilder *b, GenRing *r);

/* A ring whose slots are published on `full` and released on `empty` (either may be NULL
 * for a one-sided ring such as the scale-factor slots, which only have `empty`). Phases
 * are continuous: the producer's first pass is free (it waits parity phase ^ 1). */
typedef struct GenPipe {
  GenRing pos;
  const MlirNvfp4BarrierArray *full, *empty;
} GenPipe;

GenPipe genPipeNew(KbBuilder *b, uint32_t size, const MlirNvfp4BarrierArray *full,
                   const MlirNvfp4BarrierArray *empty);
KbValue genPipeIndex(KbBuilder *b, GenPipe *p);
KbValue genPipeFullBar(GenKernel *k, GenPipe *p);
KbValue genPipeEmptyBar(GenKernel *k, GenPipe *p);
/* Producer: wait until the current slot has been released (empty, parity phase ^ 1). */
void genPipeProducerAcquire(GenKernel *k, GenPipe *p);
/* Consumer: wait until the current slot has been published (full, parity phase). */
void genPipeConsumerWait(GenKernel *k, GenPipe *p);
/* Teardown: wait until every slot's last release has completed (slots never used complete
 * at once), so that no asynchronous arrive is in flight when the CTA exits. Leaves the
 * ring where it started. */
void genPipeDrainEmpty(GenKernel *k, GenPipe *p);

/* ---- the tile scheduler ------------------------------------------------------------------- */

/* Per-tile values, computed identically by every role from the group record. */
typedef struct GenTile {
  KbValue group;       /* index in table order */
  KbValue record;      /* byte offset of the group's record in the table */
  KbValue m, n, k;     /* the group's sizes */
  KbValue ldc, cPtr;
  KbValue mBlk;        /* tile index along the M role */
  KbValue mRow0;       /* first M-role row of the tile (the CTA pair's first row) */
  KbValue nRow0;       /* first N-role row of the tile */
  KbValue tileN;       /* N of this tile's MMA (constant, or the group's tile_n) */
  KbValue kIters;      /* ceil(K / 256) stages */
  KbValue kSteps;      /* K / 64 MMAs */
  /* The stages [kBegin, kEnd) and 64-K steps [kStepBegin, kStepEnd) of the tile this CTA
   * computes: all of them (0, kIters, 0, kSteps), or with the stream-K schedule its share */
  KbValue kBegin, kEnd, kStepBegin, kStepEnd;
  /* Stream-K: the CTA (i32) whose share holds stage 0 of the tile (this CTA's when kBegin is
   * 0); null otherwise */
  KbValue skHead;
  KbValue cRow0, cCol0;/* the tile's first row and column of C (from the group's C) */
  KbValue alphaPtr;    /* i64 address of the group's fp32 alpha (alpha variants; else null) */
  /* The fused SwiGLU + NVFP4 epilogue (null values otherwise): i64 addresses of the
   * group's SFC (contiguous form: the shared SFC, the expert's atoms from sfmBase) and of
   * its fp32 global scale. */
  KbValue sfcPtr, gsPtr;
  /* Contiguous form (null values otherwise): the tensor-map rows where the group starts —
   * data rows of the M and N roles, their scale-factor atom rows, and C's rows. */
  KbValue mBase, nBase, sfmBase, sfnBase, cRowBase;
} GenTile;

typedef void (*GenTileBody)(GenKernel *k, GenTile *t, void *state);
/* Runs `body` for every tile of this CTA (or CTA pair): tile = first; tile < total;
 * tile += step, with first/step the CTA (cluster) index and count. With the plan's
 * snakeOrder, pass i takes tile i * step + (i odd ? step - 1 - first : first) instead (still
 * increasing per CTA).
 *
 * With the plan's streamK (one CTA per cluster, the pointer-array form), the stages of all
 * tiles in table order form one sequence in which a stage of group g's tiles costs
 * tile_n_g + streamKCost; CTA c takes the stages whose cost position (the cost of
 * the stages before them) lies in [c L, (c + 1) L), L = ceil(total cost / CTAs), and `body`
 * runs once per tile it touches with kBegin / kEnd its stages of that tile. Its first tile
 * may start at kBegin > 0, its last end at kEnd < kIters; the CTAs that share a tile's
 * stages are consecutive: skHead = c, whose share ends in it (its last tile), then c + 1,
 * c + 2, ..., each with that tile first (StreamK.h: the sm_90a and sm_100a epilogues sum them,
 * waiting for none). */
void genForEachTile(GenKernel *k, GenTileBody body, void *state);

/* ---- operand roles -------------------------------------------------------------------------- */

/* Generic pointer to tensor map `tensor` of `group`: in the table, or, in a patchable
 * kernel, this CTA's patched copy when the launch patches its maps. */
KbValue genTensorMap(GenKernel *k, KbValue group, MlirNvfp4Tensor tensor);
/* The tensor map of `tensor` for tile t: its group's (pointer-array form), or the shared
 * map of the contiguous form (for the N role of a DYNAMIC_N variant: the map whose box
 * rows are the tile's tileN / ctaGroup). */
KbValue genTileTensorMap(GenKernel *k, GenTile *t, MlirNvfp4Tensor tensor);
/* The contiguous form: tensor map `slot` (i32; NVFP4_ABI_MOE_TMAP_*, then the ladder) of
 * the device table. */
KbValue genMoeTensorMap(GenKernel *k, KbValue slot);
/* base + v, or v when base is null (no base). */
KbValue genAddBase(KbBuilder *b, KbValue base, KbValue v);
/* The four tensor maps tile t's stages load — M-role data, N-role data, M-role scale
 * factors, N-role scale factors (genTileTensorMap) — each prefetched (prefetch.tensormap). */
void genRoleTensorMaps(GenKernel *k, GenTile *t, KbValue maps[4]);
/* Rows of the N role this CTA loads for tile t (tileN / ctaGroup). */
KbValue genRoleNRows(GenKernel *k, GenTile *t);

/* The prologue's tensor-map prefetch, for the thread that calls it, before
 * griddepcontrol.wait: the four operand maps of the first tile — the contiguous form's
 * shared maps, or group 0's of the group table (a CTA's first tile is most often group 0's:
 * the table lists the groups by descending work) — so that the descriptor fetch overlaps
 * the previous grid. The device table is written by the host in stream order, never by a
 * kernel, so no previous grid can write it. Maps a launch may patch (a patchable kernel)
 * are read after the wait only: nothing is prefetched then. */
void genPrefetchPrologueMaps(GenKernel *k);

/* FusedOutput.c, the fused SwiGLU + NVFP4 epilogue: the i64 address of token row `row`'s
 * scales in tile t's SFC (its 128-row atom row from `sfaBase`, the contiguous form's
 * expert's first atom row in the tokens' scale-factor layout, or null; ceil(I / 64) atoms
 * a row; its place in the atom, (row % 32) 16 + (row % 128) / 32 4: docs/format.md), and
 * of (row, col) in the activation dump (KernelABI.h, NVFP4_ABI_HDR_DEBUG_ACT). */
KbValue genSfcRowAddress(GenKernel *k, GenTile *t, KbValue sfaBase, KbValue row, KbValue inter);
KbValue genDebugActAddress(GenKernel *k, GenTile *t, KbValue row, KbValue col);

/* Global pointer (!llvm.ptr<1>) to element C[row][col] of tile t's group (row stride ldc,
 * the plan's C element bytes; the contiguous form's C pointer starts at the expert). */
KbValue genCAddress(GenKernel *k, GenTile *t, KbValue row, KbValue col);

/* ---- tensor maps patched by the kernel (TensorMapPatch.c) -------------------------------- */

/* Makes the kernel patchable (or not: then the two functions below emit nothing and
 * genTensorMap always returns the device table's maps); a patchable kernel reads the
 * header flag and its copies' address. Called once, after genKernelInit. */
void genTensorMapPatchInit(GenKernel *k, bool patchable);
/* Every thread of the CTA, before the prologue's CTA barrier: when the launch patches its
 * maps, writes this CTA's copy of every group's templates with the raw addresses and
 * releases them to the tensormap proxy. */
void genPatchTensorMaps(GenKernel *k);
/* A thread that will issue TMA on the maps of `tensors` (bit t: MlirNvfp4Tensor t), after
 * the CTA barrier: acquires this CTA's copies of them for every group of the launch. */
void genAcquireTensorMaps(GenKernel *k, uint32_t tensors);

#endif /* NVFP4_CONVERSION_GENERATOR_H */
