/* Kernel.c — assembles the sm_90a kernel of one variant: the prologue (one thread
 * initialises every mbarrier of the plan and prefetches the first tensor maps; 256 threads
 * compute the E4M3 scale table into shared memory; then every thread's griddepcontrol.wait
 * before any global access), then one role per warpgroup with its register budget
 * (setmaxnreg): warpgroup 0 gives registers back and its first thread runs the TMA producer, the consumer
 * warpgroups (1 and 2; 1..3 for 192-weight tiles) take them and run the weight decode +
 * wgmma mainloop and the epilogue, the decoder warpgroups after them (3 and 4; one for
 * swap_n192 and swap_n128_m192) give registers back and decode the tokens
 * (docs/kernel-sm90a.md). No Tensor Memory, no teardown beyond the consumers' wait for their
 * TMA stores: every mbarrier arrive is a plain (synchronous) one. The contiguous form
 * (nvfp4.moe_matmul) first builds the expert schedule from the device-resident offsets; a
 * kernel built to patch its tensor maps (`nvfp4.patch_tmaps`) writes this CTA's copies in
 * the prologue when the launch asks for it, and the threads that issue TMA acquire them.
 */
#include <stdio.h>

#include "Sm90Kernel.h"

#include "../Nvvm.h"

/* Entry `code` (i32 0..255) of the E4M3 scale table, with the steps of
 * mlirNvfp4Sm90ScaleTableEntry: the float of e4m3 (normal codes: the exponent re-biased in
 * the bits; subnormal ones: the 3-bit mantissa converted, times 2^-9), times 2^119 (exact),
 * NaN for the NaN codes, the sign bit; its upper half (the BF16) twice. */
static KbValue scaleTableEntry(KbBuilder *b, KbValue code) {
  KbValue mag = kbAnd(b, code, kbI32(b, 0x7F));
  KbValue normal = kbBitcast(b, kbAddI(b, kbShl(b, mag, kbI32(b, 20)), 120 << 23), b->f32);
  KbValue sub = kbFMul(b, kbUIToFP(b, kbAnd(b, code, kbI32(b, 7)), b->f32), kbF32(b, 1.0 / 512.0));
  KbValue v = kbSelect(b, kbCmpI(b, KB_ULT, mag, 8), sub, normal);
  v = kbFMul(b, v, kbF32(b, 0x1p119));
  KbValue bits = kbBitcast(b, v, b->i32);
  bits = kbSelect(b, kbCmpI(b, KB_EQ, mag, 0x7F), kbI32(b, 0x7FC00000), bits);
  bits = kbOr(b, bits, kbShl(b, kbAnd(b, code, kbI32(b, 0x80)), kbI32(b, 24)));
  KbValue hi = kbLShr(b, bits, kbI32(b, 16));
  return kbOr(b, hi, kbShl(b, hi, kbI32(b, 16)));
}

/* ---- shared by the consumer and decoder roles --------------------------------------------- */

void sm90WarpArrive(GenKernel *g, KbValue bar) {
  KbBuilder *b = g->b;
  nvWarpSync(b);
  kbIf(b, kbCmpI(b, KB_EQ, g->lane, 0));
  nvMbarArrive(b, bar);
  kbEndIf(b);
}

KbValue sm90StageOfChunk(Sm90Kernel *k, KbValue q) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  kbIf(b, kbCmpI(b, KB_EQ, q, 0));
  genPipeConsumerWait(g, &k->stages);
  nvWarpSync(b);
  kbEndIf(b);
  return genSmemAddr(g, 0, g->cfg->stageBytes, genPipeIndex(b, &k->stages));
}

void sm90ReleaseStage(Sm90Kernel *k, GenTile *t, KbValue cv, KbValue q) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  KbValue last = kbCmp(b, KB_EQ, kbAddI(b, cv, 1), t->kStepEnd);
  kbIf(b, kbOr(b, kbCmpI(b, KB_EQ, q, 3), last));
  sm90WarpArrive(g, genPipeEmptyBar(g, &k->stages));
  genRingAdvance(b, &k->stages.pos);
  kbEndIf(b);
}

void sm90ForEachChunk(Sm90Kernel *k, GenTile *t, Sm90ChunkBody body, void *state) {
  KbBuilder *b = k->g.b;
  KbValue first = t->kStepBegin;
  if (!k->g.cfg->sm90.stageUnroll) {
    KbVar cVar = kbVar(b, b->i32, first);
    kbWhile(b);
    kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, cVar), t->kStepEnd));
    {
      KbValue cv = kbGet(b, cVar);
      body(k, t, cv, kbAnd(b, cv, kbI32(b, 3)), state);
      kbSet(b, cVar, kbAddI(b, cv, 1));
    }
    kbEndWhile(b);
    return;
  }
  KbVar c0Var = kbVar(b, b->i32, first);
  kbWhile(b);
  kbWhileDo(b, kbCmp(b, KB_ULT, kbGet(b, c0Var), t->kStepEnd));
  {
    KbValue c0 = kbGet(b, c0Var);
    body(k, t, c0, kbI32(b, 0), state);
    for (uint32_t q = 1; q < 4; ++q) { /* a partial last stage stops early */
      KbValue cv = kbAddI(b, c0, q);
      kbIf(b, kbCmp(b, KB_ULT, cv, t->kStepEnd));
      body(k, t, cv, kbI32(b, q), state);
    }
    for (uint32_t q = 1; q < 4; ++q) kbEndIf(b);
    kbSet(b, c0Var, kbAddI(b, c0, 4));
  }
  kbEndWhile(b);
}

typedef struct RoleTiles { Sm90Kernel *k; Sm90WidthBody body; } RoleTiles;

static void tileOfWidth(GenKernel *g, GenTile *t, void *state) {
  const RoleTiles *r = state;
  KbBuilder *b = g->b;
  const uint32_t widths = g->cfg->tileN / MLIR_NVFP4_SM90_N_ALIGN;
  KbValue w = kbLShr(b, kbAddI(b, t->tileN, MLIR_NVFP4_SM90_N_ALIGN - 1), kbI32(b, 4));
  w = kbSelect(b, kbCmpI(b, KB_UGT, w, widths), kbI32(b, widths), w);
  w = kbSelect(b, kbCmpI(b, KB_EQ, w, 0), kbI32(b, 1), w);
  for (uint32_t i = 1; i <= widths; ++i) {
    kbIf(b, kbCmpI(b, KB_EQ, w, i));
    r->body(r->k, t, i * MLIR_NVFP4_SM90_N_ALIGN);
    kbEndIf(b);
  }
}

void sm90RunTiles(Sm90Kernel *k, Sm90WidthBody body) {
  GenKernel *g = &k->g;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  k->stages = genPipeNew(g->b, cfg->stages, &cfg->full, &cfg->empty);
  k->decoded = genRingNew(g->b, cfg->sm90.decodedBuffers);
  RoleTiles r = {k, body};
  genForEachTile(g, tileOfWidth, &r);
}

void nvfp4BuildSm90Kernel(KbBuilder *b, const MlirNvfp4KernelConfig *cfg, KbValue params,
                          const char *dynSmemGlobal, bool patchTensorMaps) {
  Sm90Kernel k = {0};
  GenKernel *g = &k.g;
  genKernelInit(g, b, cfg, params, dynSmemGlobal);
  /* (the contiguous form's shared maps are never patched) */
  genTensorMapPatchInit(g, patchTensorMaps && cfg->spec.form != MLIR_NVFP4_FORM_CONTIGUOUS);

  kbIf(b, kbCmpI(b, KB_EQ, g->tid, 0));
  genInitBarriers(g);
  genPrefetchPrologueMaps(g);
  kbEndIf(b);
  /* The scale table in shared memory (the decode reads it with data-dependent indices):
   * thread t computes entry t. */
  kbIf(b, kbCmpI(b, KB_ULT, g->tid, 256));
  {
    KbValue off = kbMulI(b, g->tid, 4);
    kbStore(b, scaleTableEntry(b, g->tid),
            genSharedPtr(g, kbAdd(b, kbAddI(b, g->smem, cfg->sm90.lutOffset), off)), 4);
  }
  kbEndIf(b);
  /* Programmatic dependent launch: the barriers and the scale table live in shared memory
   * and overlap the previous grid; every global access below (the map copies, the offsets,
   * the operands, alpha, C, the stream-K workspace) comes after. */
  nvGridDepWait(b);
  /* a launch that patches its tensor maps: this CTA's copies, before the barrier */
  genPatchTensorMaps(g);
  nvBarrier0(b);
  /* The contiguous form: every CTA schedules the experts' tiles from the device-resident
   * offsets, which the previous kernel may write (all threads; the scan's scratch is the
   * decoded token ring, free until the roles start; ends with a CTA barrier). */
  if (cfg->spec.form == MLIR_NVFP4_FORM_CONTIGUOUS) genBuildSchedule(g);

  /* One role per warpgroup (the plan's role map: producer, consumers, token decoders), each
   * one branch of an if/else chain (setmaxnreg needs it). */
  const MlirNvfp4WarpRange *producer = &cfg->roles[MLIR_NVFP4_ROLE_PRODUCER];
  const MlirNvfp4WarpRange *consumer = &cfg->roles[MLIR_NVFP4_ROLE_CONSUMER];
  kbIf(b, kbCmpI(b, KB_ULT, g->warp, producer->first + producer->count));
  {
    nvSetMaxRegisters(b, cfg->sm90.producerRegs, false);
    kbIf(b, kbCmpI(b, KB_EQ, g->tid, 0));
    genAcquireTensorMaps(g, 1u << cfg->roleM.data | 1u << cfg->roleN.data |
                                1u << cfg->roleM.scales | 1u << cfg->roleN.scales);
    sm90ProducerLoop(&k);
    kbEndIf(b);
  }
  kbElse(b);
  {
    kbIf(b, kbCmpI(b, KB_ULT, g->warp, consumer->first + consumer->count));
    {
      nvSetMaxRegisters(b, cfg->sm90.consumerRegs, true);
      sm90ConsumerLoop(&k);
    }
    kbElse(b);
    {
      nvSetMaxRegisters(b, cfg->sm90.decoderRegs, false);
      sm90TokenDecoderLoop(&k);
    }
    kbEndIf(b);
  }
  kbEndIf(b);
  kbReturn(b);
}
