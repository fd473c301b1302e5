/* StreamK.c — the split-tile reduction of the stream-K schedule, shared by the sm_90a and
 * sm_100a epilogues: the workspace slots and words, the head's look at its counter, the
 * publication (partial sums, stage end, barrier, acquire-release add), the counter's return
 * to zero and the walk over the other shares in stage order. StreamK.h has the layout and
 * the protocol.
 */
#include "StreamK.h"

#include "../Nvvm.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/KernelABI.h"

KbValue genSkSlot(GenKernel *g, KbValue cta, KbValue which) {
  KbBuilder *b = g->b;
  const uint32_t stride = g->cfg->workspacePerCta / 2;
  KbValue ws = genParamU64(g, NVFP4_ABI_HDR_WORKSPACE);
  KbValue index = kbAdd(b, kbMulI(b, kbZExt(b, cta, b->i64), 2), kbZExt(b, which, b->i64));
  return kbAdd(b, ws, kbMulI(b, index, stride));
}

KbValue genSkWord(GenKernel *g, const GenSkShare *s, KbValue slot, uint32_t offset) {
  KbBuilder *b = g->b;
  return kbAdd(b, slot, kbZExt(b, kbAddI(b, kbMulI(b, s->group, 4), offset), b->i64));
}

KbValue genSkCounter(GenKernel *g, GenTile *t, const GenSkShare *s) {
  return genSkWord(g, s, genSkSlot(g, t->skHead, kbI32(g->b, 1)), 0);
}

KbValue genGlobalPtr(KbBuilder *b, KbValue addr) {
  return kbIntToPtr(b, addr, mlirLLVMPointerTypeGet(b->ctx, 1));
}

KbValue genVolatileLoad(KbBuilder *b, MlirType type, KbValue addr, int64_t align) {
  KbValue v = kbLoad(b, type, genGlobalPtr(b, addr), align);
  mlirOperationSetAttributeByName(mlirOpResultGetOwner(v), mlirStringRefCreateFromCString("volatile_"),
                                  mlirUnitAttrGet(b->ctx));
  return v;
}

void genSkDecide(GenKernel *g, GenTile *t, const GenSkShare *s, KbVar last,
                 GenSkPublishFn publish, void *ctx) {
  KbBuilder *b = g->b;
  kbIf(b, kbXor(b, s->whole, kbBool(b, true)));
  {
    KbVar allIn = kbVar(b, b->i1, kbBool(b, false));
    kbIf(b, kbAnd(b, s->leader, s->isHead));
    kbSet(b, allIn, kbCmp(b, KB_EQ, nvGlobalAcquireLoadU32(b, s->counter), kbSub(b, t->kIters, s->mine)));
    kbEndIf(b);
    nvWarpSync(b);
    kbSet(b, last, nvNamedBarrierOrAt(b, s->barrierId, s->threads, kbGet(b, allIn)));
    kbIf(b, kbXor(b, kbGet(b, last), kbBool(b, true)));
    {
      /* publish this share: its sums and end stage, then the count */
      KbValue slot = genSkSlot(g, s->cta, kbSelect(b, s->isHead, kbI32(b, 1), kbI32(b, 0)));
      publish(ctx, slot);
      KbVar completes = kbVar(b, b->i1, kbBool(b, false));
      nvWarpSync(b);
      nvNamedBarrierAt(b, s->barrierId, s->threads); /* every thread's sums, then the count */
      kbIf(b, s->leader);
      {
        kbStore(b, t->kEnd, genGlobalPtr(b, genSkWord(g, s, slot, 64)), 4);
        KbValue before = nvGlobalAtomicAddU32(b, s->counter, s->mine);
        kbSet(b, completes, kbCmp(b, KB_EQ, kbAdd(b, before, s->mine), t->kIters));
      }
      kbEndIf(b);
      nvWarpSync(b);
      kbSet(b, last, nvNamedBarrierOrAt(b, s->barrierId, s->threads, kbGet(b, completes)));
    }
    kbEndIf(b);
  }
  kbEndIf(b);
}

void genSkReset(GenKernel *g, const GenSkShare *s) {
  KbBuilder *b = g->b;
  /* every share has been counted: the counter is free for the next launch */
  kbIf(b, kbAnd(b, s->leader, kbXor(b, s->whole, kbBool(b, true))));
  nvGlobalReleaseStoreU32(b, s->counter, kbI32(b, 0));
  kbEndIf(b);
}

void genSkWalk(GenKernel *g, GenTile *t, const GenSkShare *s, GenSkAddFn add,
               GenSkAddOwnFn addOwn, void *ctx) {
  KbBuilder *b = g->b;
  /* the shares in stage order from the head's (the leader's acquire, then the barrier, then
   * everyone's loads); without addOwn the head's own (in the registers) is skipped, and a
   * whole tile has none to add */
  KbVar covered, next;
  if (addOwn) {
    covered = kbVar(b, b->i32, kbI32(b, 0));
    next = kbVar(b, b->i32, t->skHead);
  } else {
    covered = kbVar(b, b->i32, kbSelect(b, s->isHead, t->kEnd, kbI32(b, 0)));
    next = kbVar(b, b->i32, kbSelect(b, s->isHead, kbAddI(b, s->cta, 1), t->skHead));
  }
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, covered), t->kIters));
  {
    KbValue x = kbGet(b, next);
    kbIf(b, kbCmp(b, KB_EQ, x, s->cta));
    if (addOwn) addOwn(ctx);
    kbSet(b, covered, t->kEnd);
    kbElse(b);
    {
      KbValue which = kbSelect(b, kbCmp(b, KB_EQ, x, t->skHead), kbI32(b, 1), kbI32(b, 0));
      KbValue slot = genSkSlot(g, x, which);
      add(ctx, slot);
      kbSet(b, covered, genVolatileLoad(b, b->i32, genSkWord(g, s, slot, 64), 4));
    }
    kbEndIf(b);
    kbSet(b, next, kbAddI(b, x, 1));
  }
  kbEndWhile(b);
}
