/* StreamK.h — the reduction of the stream-K schedule's split tiles (genForEachTile with the
 * plan's streamK), shared by the sm_90a and sm_100a epilogues (StreamK.c).
 *
 * Workspace. CTA c owns workspacePerCta bytes at workspace + c workspacePerCta: two slots
 * (slot 0: its first tile's share, when that starts past stage 0; slot 1: its last tile's,
 * when that is split and starts at stage 0). A slot holds skFlagBytes of words — per group
 * of epilogue threads g (sm_90a: a consumer warpgroup; sm_100a: the one group of the four
 * epilogue warps) the counter at 4 g (slot 1: the stages published for the tile) and the
 * stage end at 64 + 4 g (the end of the share whose partial sums follow) — then the
 * groups' partial sums, skSlotBytes each, in the target's layout.
 *
 * Protocol (no CTA ever waits for another): the head (the share with stage 0) first looks
 * at its counter; when every other share is in, it sums them at once, publishing nothing.
 * Otherwise a share publishes its partial sums and stage end, then a barrier of the group,
 * then its leader's one acquire-release atomic add of its stage count; the CTA whose add
 * brings the count to kIters sums the shares (genSkWalk: stage order from the head's) and
 * stores C, and first returns the counter to zero (a release store) for the next launch.
 */
#ifndef NVFP4_CONVERSION_GENERATOR_STREAMK_H
#define NVFP4_CONVERSION_GENERATOR_STREAMK_H

#include "Generator.h"

/* One group of epilogue threads' view of its split tile. The caller computes the values
 * (in the order its kernel emits them) and genSkDecide / genSkReset / genSkWalk use them. */
typedef struct GenSkShare {
  KbValue barrierId;  /* i32: the group's named barrier (bar.sync / bar.red over `threads`) */
  uint32_t threads;
  KbValue group;      /* i32: g, the group's words at 4 g and 64 + 4 g of a slot */
  KbValue cta;        /* i32 ctaid.x */
  KbValue leader;     /* i1: the group's thread that reads and writes the words */
  KbValue isHead;     /* i1: kBegin == 0 */
  KbValue mine;       /* i32: kEnd - kBegin, this share's stages */
  KbValue whole;      /* i1: mine == kIters (the tile is not split) */
  KbValue counter;    /* i64: the tile's counter (genSkCounter) */
} GenSkShare;

/* i64 address of slot `which` (i32: 0 or 1) of CTA `cta`'s (i32) workspace. */
KbValue genSkSlot(GenKernel *g, KbValue cta, KbValue which);
/* i64 address of the group's word at byte `offset` (0: counter, 64: stage end) of `slot`. */
KbValue genSkWord(GenKernel *g, const GenSkShare *s, KbValue slot, uint32_t offset);
/* The tile's counter: the group's word 0 of slot 1 of the head's workspace. */
KbValue genSkCounter(GenKernel *g, GenTile *t, const GenSkShare *s);
/* Global pointer (!llvm.ptr<1>) of an i64 address. */
KbValue genGlobalPtr(KbBuilder *b, KbValue addr);
/* A volatile load (ld.volatile: not served from a stale L1 line) of another CTA's share. */
KbValue genVolatileLoad(KbBuilder *b, MlirType type, KbValue addr, int64_t align);

/* Stores this thread's partial sums of the share into `slot` (i64 address). */
typedef void (*GenSkPublishFn)(void *ctx, KbValue slot);
/* For a split tile (!whole): the head's look at the counter, else the publication of the
 * share (`publish`, the group barrier, the stage end and the atomic add). Sets `last` (i1,
 * initialised by the caller to `whole`) to "this CTA sums the shares and stores C", the
 * same in every thread of the group. */
void genSkDecide(GenKernel *g, GenTile *t, const GenSkShare *s, KbVar last,
                 GenSkPublishFn publish, void *ctx);
/* The finishing CTA of a split tile: its leader returns the counter to zero (release). */
void genSkReset(GenKernel *g, const GenSkShare *s);
/* Adds the share published in `slot` (i64) to this thread's sums. */
typedef void (*GenSkAddFn)(void *ctx, KbValue slot);
/* Adds this CTA's own share (null slot) to this thread's sums. */
typedef void (*GenSkAddOwnFn)(void *ctx);
/* The finishing CTA: `add` for each share of the tile in stage order from the head's.
 * Without `addOwn` (sm_90a) the sums start as this CTA's own share, which the walk skips:
 * own + the others in stage order (none for a whole tile). With `addOwn` (sm_100a, whose
 * own share stays in Tensor Memory) the sums start at -0 and the walk adds every share in
 * stage order, its own in its place: the same order whichever CTA finishes the tile, so the
 * sum is the same in every launch (-0 + x = x: a whole tile's sum is its share). */
void genSkWalk(GenKernel *g, GenTile *t, const GenSkShare *s, GenSkAddFn add,
               GenSkAddOwnFn addOwn, void *ctx);

#endif /* NVFP4_CONVERSION_GENERATOR_STREAMK_H */
