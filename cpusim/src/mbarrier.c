/* mbarrier.c — mbarrier objects of the simulated shared memory: init, arrive (local and
 * remote through shared::cluster addresses), expect_tx / complete_tx with the tx-count as
 * one signed counter crossing zero byte by byte (so a phase completes as soon as the
 * bytes expected have landed, and bytes beyond them count against the next phase), the
 * parity wait, and the state checks at CTA exit. Each phase carries the join of the
 * vector clocks released into it; a successful wait acquires the last completed phase's.
 * An arrive on another CTA's barrier (shared::cluster) is an asynchronous operation: it
 * lands at a point of the seeded schedule (at the latest when its thread next arrives at
 * barrier.cluster), carrying the clock its thread released at the issue. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define G nvfp4sim_g

sim_mbar *sim_mbar_at(sim_cta *c, uint32_t addr, sim_fiber *f, uint32_t site) {
  if (addr % 8 || addr >= SIM_SMEM_WINDOW)
    sim_fault(f, site, "mbarrier address 0x%x of CTA %u is not an 8-byte aligned shared address",
              addr, c->ctaid);
  sim_mbar *b = c->mbar[addr / 8];
  if (!b || !b->init) {
    char what[160];
    sim_describe_bar(c, addr, what, sizeof what);
    sim_fault(f, site, "%s used before mbarrier.init", what);
  }
  return b;
}

/* done takes cur's contents and cur starts empty (the same for the remote pair): the
 * buffers swap, and only the first ncomp components need clearing (the others are zero in
 * every clock of the barrier, which the cluster's components never reach). */
static void swap_clear(sim_clock **cur, sim_clock **done) {
  sim_clock *t = *done;
  *done = *cur;
  *cur = t;
  memset(t, 0, sizeof(sim_clock) * G->ncomp);
}

static void complete_phase(sim_mbar *b) {
  swap_clear(&b->cur, &b->done);
  swap_clear(&b->cur_remote, &b->done_remote);
  b->done_stamp = sim_vc_stamp();
  b->done_remote_stamp = sim_vc_stamp();
  b->remote_done = b->remote_cur;
  b->remote_cur = -1;
  b->phase++;
  b->pending = b->count;
  b->tx = 0;
  sim_wake_all(b);
}

void nvfp4_sim_mbar_init(uint32_t bar, uint32_t count, uint32_t site) {
  sim_fiber *f = sim_at(site);
  sim_cta *c = f->cta;
  const uint32_t addr = sim_smem_own(bar, f, site, "mbarrier.init");
  if (addr % 8 || addr + 8 > SIM_SMEM_WINDOW)
    sim_fault(f, site, "mbarrier.init at 0x%x: not an 8-byte aligned shared address", addr);
  if (count < 1 || count > (1u << 20) - 1)
    sim_fault(f, site, "mbarrier.init count %u outside 1..2^20-1", count);
  sim_epoch e = sim_epoch_thread(f, SIM_ACC_GENERIC, site);
  sim_smem_write(c, addr, 8, &e, f->vc, f);
  sim_mbar *b = c->mbar[addr / 8];
  if (!b) {
    b = calloc(1, sizeof *b);
    if (b) {
      b->cur = sim_vc_new();
      b->done = sim_vc_new();
      b->cur_remote = sim_vc_new();
      b->done_remote = sim_vc_new();
    }
    if (!b || !b->cur || !b->done || !b->cur_remote || !b->done_remote)
      sim_fault(f, site, "out of host memory");
    c->mbar[addr / 8] = b;
  } else if (b->init && (b->pending != b->count || b->tx != 0)) {
    char what[160];
    sim_describe_bar(c, addr, what, sizeof what);
    sim_report("mbarrier-misuse", f, site, "%s re-initialised with %u of %u arrivals and tx-count "
               "%lld of its phase in flight", what, b->count - b->pending, b->count,
               (long long)b->tx);
  }
  b->init = true;
  b->addr = addr;
  b->count = count;
  b->pending = count;
  b->tx = 0;
  b->phase = 0;
  b->last_site = site;
  memset(b->cur, 0, sizeof(sim_clock) * G->capcomp);
  memset(b->done, 0, sizeof(sim_clock) * G->capcomp);
  memset(b->cur_remote, 0, sizeof(sim_clock) * G->capcomp);
  memset(b->done_remote, 0, sizeof(sim_clock) * G->capcomp);
  b->done_stamp = sim_vc_stamp();
  b->done_remote_stamp = sim_vc_stamp();
  b->remote_cur = b->remote_done = -1;
}

void sim_mbar_arrive_on(sim_cta *c, uint32_t addr, const sim_clock *release, uint32_t from,
                        sim_fiber *f, uint32_t site, int64_t expect_tx) {
  sim_mbar *b = sim_mbar_at(c, addr, f, site);
  if (b->pending == 0) {
    char what[160];
    sim_describe_bar(c, addr, what, sizeof what);
    sim_report("mbarrier-misuse", f, site, "arrive on %s beyond its %u expected arrivals (its phase "
               "%u waits for tx-count %lld)", what, b->count, b->phase, (long long)b->tx);
    return;
  }
  b->tx += expect_tx;
  if (b->tx > (1 << 20) - 1 || b->tx < -((1 << 20) - 1)) {
    char what[160];
    sim_describe_bar(c, addr, what, sizeof what);
    sim_fault(f, site, "%s tx-count %lld outside the ISA's range", what, (long long)b->tx);
  }
  if (!release) from = f->cta->rank;
  const bool remote = from != c->rank;
  sim_clock *into = remote ? b->cur_remote : b->cur;
  if (remote) b->remote_cur = (int32_t)from;
  if (release) sim_vc_join(into, release);
  else sim_vc_release(f, into);
  b->last_site = site;
  if (--b->pending == 0 && b->tx == 0) complete_phase(b);
}

void sim_mbar_complete_tx(sim_cta *c, uint32_t addr, uint32_t bytes, uint16_t comp,
                          uint32_t seq, bool op_done) {
  sim_mbar *b = sim_mbar_at(c, addr, NULL, 0);
  if (op_done) sim_comp_complete(comp, seq);
  const uint32_t prefix = G->comps[comp].prefix;
  if (b->pending == 0 && b->tx > 0 && (uint64_t)b->tx <= bytes) {
    /* the bytes landing cross zero: the phase completes, the rest counts against the next
     * one, and so does the completion of this operation when bytes of it remain */
    uint64_t rest = bytes - (uint64_t)b->tx;
    uint32_t upto = prefix;
    if (rest && op_done && upto >= seq) upto = seq - 1;
    if (b->cur[comp] < upto) b->cur[comp] = upto;
    complete_phase(b);
    b->tx = -(int64_t)rest;
    if (rest && b->cur[comp] < prefix) b->cur[comp] = prefix;
    return;
  }
  b->tx -= bytes;
  if (b->cur[comp] < prefix) b->cur[comp] = prefix;
  if (b->pending == 0 && b->tx == 0) complete_phase(b);
}

void nvfp4_sim_mbar_arrive(uint32_t bar, uint32_t site) {
  sim_fiber *f = sim_at(site);
  sim_mbar_arrive_on(f->cta, sim_smem_own(bar, f, site, "mbarrier.arrive"), NULL, 0, f, site, 0);
  sim_maybe_yield();
}

void nvfp4_sim_mbar_arrive_expect_tx(uint32_t bar, uint32_t tx, uint32_t site) {
  sim_fiber *f = sim_at(site);
  sim_mbar_arrive_on(f->cta, sim_smem_own(bar, f, site, "mbarrier.arrive.expect_tx"), NULL, 0,
                     f, site, tx);
  sim_maybe_yield();
}

/* The barrier is the one of the CTA the address's rank bits name (addr.c). */
void nvfp4_sim_mbar_arrive_cluster(uint64_t caddr, uint32_t site) {
  sim_fiber *f = sim_at(site);
  uint32_t addr;
  sim_cta *dst = sim_smem_cluster(caddr, &addr, f, site, "mbarrier.arrive.shared::cluster");
  if (dst == f->cta) { /* its own CTA's barrier through a cluster address */
    sim_mbar_arrive_on(dst, addr, NULL, 0, f, site, 0);
    sim_maybe_yield();
    return;
  }
  (void)sim_mbar_at(dst, addr, f, site);
  sim_op *op = sim_op_new(SIM_OP_ARRIVE, f, site);
  op->bar = addr;
  op->dst_cta = (uint8_t)dst->rank;
  op->release = sim_vc_new();
  if (!op->release) sim_fault(f, site, "out of host memory");
  sim_vc_release(f, op->release);
  sim_op_schedule(op);
  sim_maybe_yield();
}

void sim_mbar_arrive_complete(sim_op *op) {
  sim_clock *release = op->release;
  op->release = NULL;
  sim_mbar_arrive_on(&G->cta[op->dst_cta], op->bar, release, op->cta, &G->fibers[op->fiber],
                     op->site, 0);
  free(release);
  op->done = true;
}

/* The acquire of a completed phase: its own CTA's releases, and the other CTA's only at
 * cluster scope (a .cta-scope acquire is not morally strong with them). */
static void acquire_phase(sim_fiber *f, const sim_mbar *b, uint32_t cluster, uint32_t site) {
  sim_vc_acquire(f, b->done, b->done_stamp);
  if (b->remote_done < 0) return;
  if (cluster) {
    sim_vc_acquire(f, b->done_remote, b->done_remote_stamp);
    return;
  }
  char what[160];
  sim_describe_bar(f->cta, b->addr, what, sizeof what);
  sim_report("mbarrier-acquire-scope", f, site,
             "waits with .acquire.cta (the default scope) on %s, whose phase %u was completed "
             "with releases by CTA rank %d (remote arrives or multicast tcgen05.commit): a "
             "CTA-scope acquire does not synchronize with them, so that CTA's accesses are "
             "not ordered before what this thread does next (needs .acquire.cluster)",
             what, b->phase - 1, b->remote_done);
}

uint32_t nvfp4_sim_mbar_try_wait(uint32_t bar, uint32_t parity, uint32_t cluster,
                                 uint32_t site) {
  sim_fiber *f = sim_at(site);
  sim_mbar *b = sim_mbar_at(f->cta, sim_smem_own(bar, f, site, "mbarrier.try_wait"), f, site);
  if ((b->phase & 1u) != (parity & 1u)) {
    acquire_phase(f, b, cluster, site);
    return 1;
  }
  f->wait_parity = parity & 1u;
  sim_block(f, SIM_WAIT_MBAR, b, b->phase, site);
  if ((b->phase & 1u) != (parity & 1u)) {
    acquire_phase(f, b, cluster, site);
    return 1;
  }
  return 0;
}

void sim_mbar_exit_check(sim_cta *c) {
  for (uint32_t i = 0; i < SIM_SMEM_WINDOW / 8; ++i) {
    sim_mbar *b = c->mbar[i];
    if (!b || !b->init || (b->pending == b->count && b->tx == 0)) continue;
    char what[160];
    sim_describe_bar(c, b->addr, what, sizeof what);
    sim_report("exit-with-async-work", NULL, b->last_site,
               "CTA %u exits while %s is in phase %u with %u of %u arrivals and tx-count %lld "
               "in flight (last arrive at site %u)",
               c->ctaid, what, b->phase, b->count - b->pending, b->count, (long long)b->tx,
               b->last_site);
  }
}
