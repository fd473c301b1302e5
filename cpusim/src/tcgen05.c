/* tcgen05.c — Tensor Memory and the tcgen05 instructions of the simulator, on top of the
 * portable emulation core (emulation/core/nvfp4_emu_core.h: descriptor decoding, the
 * allocation table, the cp / mma / ld data paths):
 *   alloc / dealloc / relinquish   warp-collective (cta_group::2: one warp of each CTA of
 *                                  the pair, the same columns in both);
 *   cp .32x128b.warpx4, mma        one thread; checked at issue, executed by the core at a
 *                                  completion point of the seeded schedule (an MMA after the
 *                                  thread's earlier copies and its earlier MMAs on the same
 *                                  accumulator; no other order is implied);
 *   commit                         arrives (multicast: on every CTA of the mask) once every
 *                                  earlier cp / mma of the thread completed;
 *   ld .32x32b / wait::ld          the lane's registers hold a NaN pattern until wait::ld,
 *                                  which reads Tensor Memory; a use before it is reported.
 * cta_group::2 (a CTA pair, M = 256): each CTA's 128 rows of A and of D, the N columns of B
 * split in halves between the CTAs' shared memory (the leader's first), every CTA's
 * scale factors in its own Tensor Memory; tcgen05.cp copies each CTA's shared memory into
 * its own Tensor Memory — the core's cta_group::2 data paths (a view per CTA), the ones the
 * H200 emulation runs. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define G nvfp4sim_g
#define POISON 0x7FBADBADu

static sim_cta *ctas_of(sim_fiber *f, uint32_t cg, uint32_t *n) {
  *n = cg == 2 ? 2u : 1u;
  return cg == 2 ? &G->cta[0] : f->cta;
}

static void check_cg(sim_fiber *f, uint32_t cg, uint32_t site) {
  if (cg == 2 && (G->cluster != 2 || f->cta->rank != 0 || f->index >= G->threads))
    sim_fault(f, site, "cta_group::2 operation issued outside the leader CTA of a CTA pair");
  if (cg != 1 && cg != 2) sim_fault(f, site, "cta_group::%u", cg);
}

static void core_fault(sim_fiber *f, uint32_t site, const nvfp4_emu_err *e) {
  sim_fault(f, site, "%s (%s)", e->text, nvfp4_emu_error_name(e->code));
}

static uint16_t tc_comp(sim_fiber *f) {
  if (f->comp_tc == 0xFFFF) f->comp_tc = sim_comp_new(SIM_ACC_MMA, f, 0);
  return f->comp_tc;
}

static void open_op(sim_fiber *f, sim_op *op) {
  if (f->ntc_open >= SIM_MAX_DEPS)
    sim_fault(f, op->site, "more than %u tcgen05 operations of one thread in flight", SIM_MAX_DEPS);
  f->tc_open[f->ntc_open++] = op->id;
}

static void close_op(sim_op *op) {
  sim_fiber *f = &G->fibers[op->fiber];
  for (uint32_t i = 0; i < f->ntc_open; ++i)
    if (f->tc_open[i] == op->id) {
      f->tc_open[i] = f->tc_open[--f->ntc_open];
      break;
    }
  op->done = true;
}

/* ---- allocation ---------------------------------------------------------------------- */

typedef struct alloc_ctx { sim_fiber *f; uint32_t site; } alloc_ctx;

static void check_pair_warps(sim_rendezvous *rv, sim_fiber *f, uint32_t site) {
  if (rv->expected != 64) return;
  uint32_t per[2] = {0, 0}, warp[2] = {UINT32_MAX, UINT32_MAX};
  for (uint32_t i = 0; i < rv->arrived; ++i) {
    const sim_fiber *p = &G->fibers[rv->who[i]];
    per[p->cta->rank]++;
    if (warp[p->cta->rank] == UINT32_MAX) warp[p->cta->rank] = p->warp;
    if (warp[p->cta->rank] != p->warp)
      sim_fault(f, site, "cta_group::2 allocation by more than one warp of CTA rank %u", p->cta->rank);
  }
  if (per[0] != 32 || per[1] != 32)
    sim_fault(f, site, "cta_group::2 allocation needs one full warp of each CTA of the pair");
}

static void alloc_last(sim_rendezvous *rv, void *ctxp) {
  alloc_ctx *ctx = ctxp;
  sim_fiber *f = ctx->f;
  const uint32_t ncols = rv->args[0], dst = rv->args[1], cg = rv->args[2];
  check_pair_warps(rv, f, ctx->site);
  uint32_t n;
  sim_cta *c = ctas_of(f, cg, &n);
  nvfp4_emu_err e;
  uint32_t col = 0;
  if (nvfp4_emu_state_alloc_pair(&c[0].alloc, &c[n - 1].alloc, ncols, &col, &e))
    core_fault(f, ctx->site, &e);
  for (uint32_t i = 0; i < n; ++i) {
    c[i].allocated = true;
    c[i].deallocated = false;
    for (uint32_t x = col; x < col + ncols; ++x)
      for (uint32_t l = 0; l < NVFP4_EMU_TMEM_LANES; ++l)
        c[i].tmem[nvfp4_emu_tmem_index(l, x)] = POISON; /* undefined after alloc */
    sim_epoch w = sim_epoch_thread(f, SIM_ACC_GENERIC, ctx->site);
    sim_smem_write(&c[i], dst, 4, &w, f->vc, f);
    memcpy(c[i].smem + dst, &col, 4); /* TMEM address: lane 0, column col */
  }
}

void nvfp4_sim_tc_alloc(uint32_t dst, uint32_t ncols, uint32_t cg, uint32_t site) {
  sim_fiber *f = sim_at(site);
  /* each CTA's lanes name the result's offset in their own CTA (the operands must agree) */
  uint32_t args[3] = {ncols, sim_smem_own(dst, f, site, "tcgen05.alloc destination"), cg};
  alloc_ctx ctx = {f, site};
  if (cg == 2)
    sim_rendezvous_arrive(&G->cta[0].pair, 64, SIM_RV_ALLOC, args, 3, f, site, alloc_last, &ctx);
  else
    sim_rendezvous_arrive(&f->cta->warp[f->warp], 32, SIM_RV_ALLOC, args, 3, f, site, alloc_last, &ctx);
}

static bool op_uses_tmem(const sim_op *op, const sim_cta *c) {
  if (op->kind != SIM_OP_MMA && op->kind != SIM_OP_CP) return false;
  return op->cta == c->rank || op->cta_group == 2;
}

static void dealloc_last(sim_rendezvous *rv, void *ctxp) {
  alloc_ctx *ctx = ctxp;
  sim_fiber *f = ctx->f;
  const uint32_t taddr = rv->args[0], ncols = rv->args[1], cg = rv->args[2];
  check_pair_warps(rv, f, ctx->site);
  uint32_t n;
  sim_cta *c = ctas_of(f, cg, &n);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t p = 0; p < G->npending; ++p) {
      const sim_op *op = &G->ops[G->pending[p] - 1];
      if (!op_uses_tmem(op, &c[i])) continue;
      sim_report("dealloc-with-outstanding-access", f, ctx->site,
                 "tcgen05.dealloc of CTA %u's Tensor Memory while %s (site %u) has not completed",
                 c[i].ctaid, sim_site_text(op->site), op->site);
    }
    for (uint32_t t = 0; t < G->nfibers; ++t)
      if (G->fibers[t].cta == &c[i] && G->fibers[t].nld)
        sim_report("dealloc-with-outstanding-access", f, ctx->site,
                   "tcgen05.dealloc while warp %u lane %u has a tcgen05.ld not waited for",
                   G->fibers[t].warp, G->fibers[t].lane);
    sim_tmem_check_quiet(&c[i], taddr & 0xFFFFu, ncols, sim_tc_view(f), f, ctx->site);
    c[i].deallocated = true;
  }
  nvfp4_emu_err e;
  if (nvfp4_emu_state_dealloc_pair(&c[0].alloc, &c[n - 1].alloc, taddr, ncols, &e))
    core_fault(f, ctx->site, &e);
}

void nvfp4_sim_tc_dealloc(uint32_t taddr, uint32_t ncols, uint32_t cg, uint32_t site) {
  sim_fiber *f = sim_at(site);
  uint32_t args[3] = {taddr, ncols, cg};
  alloc_ctx ctx = {f, site};
  if (cg == 2)
    sim_rendezvous_arrive(&G->cta[0].pair, 64, SIM_RV_DEALLOC, args, 3, f, site, dealloc_last, &ctx);
  else
    sim_rendezvous_arrive(&f->cta->warp[f->warp], 32, SIM_RV_DEALLOC, args, 3, f, site, dealloc_last, &ctx);
}

static void relinquish_last(sim_rendezvous *rv, void *ctxp) {
  alloc_ctx *ctx = ctxp;
  uint32_t n;
  sim_cta *c = ctas_of(ctx->f, rv->args[0], &n);
  for (uint32_t i = 0; i < n; ++i) c[i].alloc.relinquished = 1;
}

void nvfp4_sim_tc_relinquish(uint32_t cg, uint32_t site) {
  sim_fiber *f = sim_at(site);
  uint32_t args[1] = {cg};
  alloc_ctx ctx = {f, site};
  if (cg == 2)
    sim_rendezvous_arrive(&G->cta[0].pair, 64, SIM_RV_RELINQUISH, args, 1, f, site, relinquish_last, &ctx);
  else
    sim_rendezvous_arrive(&f->cta->warp[f->warp], 32, SIM_RV_RELINQUISH, args, 1, f, site,
                   relinquish_last, &ctx);
}

/* ---- cp / mma / commit ----------------------------------------------------------------- */

static nvfp4_emu_sdesc sdesc_checked(uint64_t d, const char *op, const char *which, int cp,
                                     sim_fiber *f, uint32_t site) {
  nvfp4_emu_sdesc s = nvfp4_emu_sdesc_decode(d);
  nvfp4_emu_err e;
  if (nvfp4_emu_sdesc_check(&s, op, which, cp, &e)) core_fault(f, site, &e);
  return s;
}

static void cols_checked(sim_cta *c, const char *op, const char *what, uint32_t col, uint32_t n,
                         sim_fiber *f, uint32_t site) {
  nvfp4_emu_err e;
  if (nvfp4_emu_check_cols(&c->alloc, op, what, col, n, &e)) core_fault(f, site, &e);
}

void nvfp4_sim_tc_cp(uint32_t taddr, uint64_t sdesc, uint32_t cg, uint32_t site) {
  static const char opn[] = "tcgen05.cp.32x128b.warpx4";
  sim_fiber *f = sim_at(site);
  check_cg(f, cg, site);
  nvfp4_emu_sdesc s = sdesc_checked(sdesc, opn, "source", 1, f, site);
  if (taddr >> 16)
    sim_fault(f, site, "tcgen05.cp.32x128b.warpx4 taddr lane %u must be 0", taddr >> 16);
  uint32_t n;
  sim_cta *c = ctas_of(f, cg, &n);
  sim_op *op = sim_op_new(SIM_OP_CP, f, site);
  op->d = taddr;
  op->adesc = sdesc;
  op->cta_group = (uint8_t)cg;
  op->comp = tc_comp(f);
  op->seq = ++G->comps[op->comp].seq;
  sim_epoch e = {op->comp, (uint16_t)f->index, op->seq, site, op->id, SIM_ACC_CP,
                 (uint8_t)f->cta->rank, 0};
  for (uint32_t i = 0; i < n; ++i) {
    cols_checked(&c[i], opn, "destination", taddr & 0xFFFFu, 4, f, site);
    for (uint32_t r = 0; r < 32; ++r)
      sim_smem_read(&c[i], s.start + (r & 7u) * 16u + (r >> 3) * s.sbo, 16, &e, sim_tc_view(f),
                    f, true);
    sim_tmem_write(&c[i], taddr & 0xFFFFu, 4, 0xF, &e, sim_tc_view(f), f);
  }
  open_op(f, op);
  sim_op_schedule(op);
  sim_maybe_yield();
}

/* The pipelining key of an MMA: accumulator column, N and cta_group. */
static uint16_t mma_key(uint32_t d, uint32_t n, uint32_t cg) {
  return (uint16_t)((d & 0x1FFu) | ((n / 8u) & 0x3Fu) << 9 | (cg - 1u) << 15);
}

/* The 16-byte chunks of rows [first, first + count) of a K-major operand, K = 64 FP4. */
static void read_rows(sim_cta *c, const nvfp4_emu_sdesc *s, uint32_t first, uint32_t count,
                      const sim_epoch *e, sim_fiber *f) {
  for (uint32_t r = first; r < first + count; ++r)
    for (uint32_t k = 0; k < 2; ++k)
      sim_smem_read(c, nvfp4_emu_kmajor_chunk_addr(s, r, k), 16, e, sim_tc_view(f), f, true);
}

void nvfp4_sim_tc_mma(uint32_t d, uint64_t adesc, uint64_t bdesc, uint32_t idesc,
                      uint32_t enable_input_d, uint32_t sfa, uint32_t sfb, uint32_t cg,
                      uint32_t site) {
  static const char opn[] = "tcgen05.mma.kind::mxf4nvf4.block16";
  sim_fiber *f = sim_at(site);
  check_cg(f, cg, site);
  nvfp4_emu_idesc id = nvfp4_emu_idesc_decode(idesc);
  nvfp4_emu_err err;
  if (nvfp4_emu_idesc_check_mxf4nvf4(&id, cg, &err)) core_fault(f, site, &err);
  nvfp4_emu_sdesc as = sdesc_checked(adesc, opn, "A", 0, f, site);
  nvfp4_emu_sdesc bs = sdesc_checked(bdesc, opn, "B", 0, f, site);
  if ((d | sfa | sfb) >> 16)
    sim_fault(f, site, "tcgen05.mma [d]/[sfa]/[sfb] lane fields must be 0");
  const uint32_t N = id.n, dcol = d & 0xFFFFu, sfbCols = (N + 31u) / 32u;
  uint32_t n;
  sim_cta *c = ctas_of(f, cg, &n);
  sim_op *op = sim_op_new(SIM_OP_MMA, f, site);
  op->d = d;
  op->adesc = adesc;
  op->bdesc = bdesc;
  op->idesc = idesc;
  op->enable = enable_input_d;
  op->sfa = sfa;
  op->sfb = sfb;
  op->cta_group = (uint8_t)cg;
  op->comp = tc_comp(f);
  op->seq = ++G->comps[op->comp].seq;
  sim_epoch e = {op->comp, (uint16_t)f->index, op->seq, site, op->id, SIM_ACC_MMA,
                 (uint8_t)f->cta->rank, mma_key(dcol, N, cg)};
  for (uint32_t i = 0; i < n; ++i) {
    cols_checked(&c[i], opn, "D", dcol, N, f, site);
    cols_checked(&c[i], opn, "scale-A", sfa, 4, f, site);
    cols_checked(&c[i], opn, "scale-B", sfb, sfbCols, f, site);
    read_rows(&c[i], &as, 0, 128, &e, f);
    read_rows(&c[i], &bs, 0, N / n, &e, f);
    const sim_clock *by = sim_tc_view(f);
    sim_tmem_read(&c[i], sfa, 4, 0xF, &e, by, f);
    sim_tmem_read(&c[i], sfb, sfbCols, 0xF, &e, by, f);
    if (enable_input_d) sim_tmem_read(&c[i], dcol, N, 0xF, &e, by, f);
    sim_tmem_write(&c[i], dcol, N, 0xF, &e, by, f);
  }
  open_op(f, op);
  G->stats.mma++;
  sim_op_schedule(op);
  sim_maybe_yield();
}

/* The barrier operand is a shared::cluster address: without a mask the arrive lands on the
 * barrier of the CTA it names, with one at its offset in every CTA of the mask. */
void nvfp4_sim_tc_commit(uint32_t baddr, uint32_t mask, uint32_t cg, uint32_t site) {
  sim_fiber *f = sim_at(site);
  check_cg(f, cg, site);
  if (mask >> G->cluster)
    sim_fault(f, site, "tcgen05.commit multicast mask 0x%x names CTAs outside the %u-CTA cluster",
              mask, G->cluster);
  uint32_t bar;
  const uint32_t named = sim_smem_cluster(baddr, &bar, f, site, "tcgen05.commit mbarrier")->rank;
  for (uint32_t r = 0; r < G->cluster; ++r)
    if (mask ? (mask >> r) & 1u : r == named) (void)sim_mbar_at(&G->cta[r], bar, f, site);
  sim_op *op = sim_op_new(SIM_OP_COMMIT, f, site);
  op->bar = bar;
  op->dst_cta = (uint8_t)named;
  op->mask = mask;
  op->cta_group = (uint8_t)cg;
  op->comp = tc_comp(f);
  op->covers = G->comps[op->comp].seq;
  /* what the thread knew when it committed happens before the arrive (a release) */
  op->release = sim_vc_new();
  if (!op->release) sim_fault(f, site, "out of host memory");
  sim_vc_release(f, op->release);
  sim_op_schedule(op);
  sim_maybe_yield();
}

/* The pair's views for the core's cta_group::2 data paths (the even CTA first). */
static void pair_views(nvfp4_emu_cta_view v[2]) {
  for (uint32_t i = 0; i < 2; ++i)
    v[i] = (nvfp4_emu_cta_view){G->cta[i].tmem, G->cta[i].smem, &G->cta[i].alloc};
}

void sim_tc_complete(sim_op *op) {
  sim_fiber *f = &G->fibers[op->fiber];
  nvfp4_emu_err e;
  uint32_t n;
  sim_cta *c = ctas_of(f, op->cta_group, &n);
  (void)n;
  nvfp4_emu_cta_view pair[2];
  if (op->cta_group == 2) pair_views(pair);
  if (op->kind == SIM_OP_CP) {
    uint32_t rc = op->cta_group == 2
                      ? nvfp4_emu_core_cp_32x128b_warpx4_cg2(pair, op->d, op->adesc, &e)
                      : nvfp4_emu_core_cp_32x128b_warpx4(c->tmem, c->smem, &c->alloc, op->d,
                                                         op->adesc, &e);
    if (rc) core_fault(f, op->site, &e);
    close_op(op);
    return;
  }
  if (op->kind == SIM_OP_MMA) {
    uint32_t rc = op->cta_group == 2
                      ? nvfp4_emu_core_mma_mxf4nvf4_block16_cg2(pair, G->mma_scratch, op->d,
                                                                op->adesc, op->bdesc, op->idesc,
                                                                op->enable, op->sfa, op->sfb, &e)
                      : nvfp4_emu_core_mma_mxf4nvf4_block16(c->tmem, c->smem, &c->alloc,
                                                            G->mma_scratch, op->d, op->adesc,
                                                            op->bdesc, op->idesc, op->enable,
                                                            op->sfa, op->sfb, &e);
    if (rc) core_fault(f, op->site, &e);
    close_op(op);
    return;
  }
  /* commit: every earlier cp / mma of the thread has completed (eligibility) */
  sim_clock *release = op->release;
  op->release = NULL;
  if (release[op->comp] < op->covers) release[op->comp] = op->covers;
  for (uint32_t r = 0; r < G->cluster; ++r)
    if (op->mask ? (op->mask >> r) & 1u : r == op->dst_cta)
      sim_mbar_arrive_on(&G->cta[r], op->bar, release, op->cta, f, op->site, 0);
  free(release);
  op->done = true;
}

/* ---- ld / wait --------------------------------------------------------------------------- */

typedef struct ld_ctx { sim_fiber *f; uint32_t site; } ld_ctx;

static void ld_last(sim_rendezvous *rv, void *ctxp) {
  ld_ctx *ctx = ctxp;
  sim_fiber *f = ctx->f;
  nvfp4_emu_err e;
  const uint32_t taddr = rv->args[0], num = rv->args[1];
  if (nvfp4_emu_core_ld_check(&f->cta->alloc, taddr, num, f->warp % 4u, &e))
    core_fault(f, ctx->site, &e);
  /* the read is this thread's, released by a sync after its next fence::before_thread_sync */
  if (f->comp_ld == 0xFFFF) {
    f->comp_ld = sim_comp_new(SIM_ACC_LD, f, 0);
    f->ld_clock = 1;
  }
  sim_epoch ep = {f->comp_ld, (uint16_t)f->index, f->ld_clock, ctx->site, 0, SIM_ACC_LD,
                  (uint8_t)f->cta->rank, 0};
  sim_tmem_read(f->cta, taddr & 0xFFFFu, num, 1u << (f->warp % 4u), &ep, sim_tc_view(f), f);
}

void nvfp4_sim_tc_ld(uint32_t taddr, uint32_t num, uint32_t *dst, uint32_t site) {
  sim_fiber *f = sim_at(site);
  uint32_t args[2] = {taddr, num};
  ld_ctx ctx = {f, site};
  sim_rendezvous_arrive(&f->cta->warp[f->warp], 32, SIM_RV_LD, args, 2, f, site, ld_last, &ctx);
  if (f->nld >= SIM_MAX_LDS)
    sim_fault(f, site, "more than %u tcgen05.ld outstanding without tcgen05.wait::ld", SIM_MAX_LDS);
  f->ld[f->nld++] = (sim_ld){dst, taddr + (f->lane << 16), num, site};
  for (uint32_t j = 0; j < num; ++j) dst[j] = POISON;
}

void nvfp4_sim_tc_ld_use(const uint32_t *dst, uint32_t site) {
  sim_fiber *f = sim_at(site);
  for (uint32_t i = 0; i < f->nld; ++i)
    if (f->ld[i].dst == dst)
      sim_report("ld-register-before-wait", f, site,
                 "a register of this tcgen05.ld is used before tcgen05.wait::ld (its value is "
                 "undefined until then)");
}

void nvfp4_sim_tc_wait(uint32_t ld, uint32_t site) {
  (void)site;
  sim_fiber *f = sim_at(site);
  if (!ld) return; /* no tcgen05.st in the kernels */
  for (uint32_t i = 0; i < f->nld; ++i) {
    const sim_ld *l = &f->ld[i];
    nvfp4_emu_core_ld_lane(f->cta->tmem, l->taddr, 0, l->dst, l->num);
  }
  f->nld = 0;
}

void sim_tc_exit_check(sim_cta *c) {
  if (c->allocated && !c->deallocated)
    sim_report("exit-with-async-work", NULL, 0,
               "CTA %u exits with Tensor Memory allocated (no tcgen05.dealloc)", c->ctaid);
}
