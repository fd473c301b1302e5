/* sim.c — the CTA simulator's launch and scheduler: one cluster (1 or 2 CTAs) at a time,
 * every thread a fiber; a seeded scheduler that picks the next runnable fiber at random
 * and completes the asynchronous operations whose (seeded) completion time has come; the
 * thread-level operations (special registers, bar.sync, bar.warp.sync, barrier.cluster,
 * generic shared / global accesses, fences); the deadlock report when every fiber is
 * blocked with nothing in flight; and the CTA-exit checks. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

sim_state *nvfp4sim_g;
#define G nvfp4sim_g

void (*sim_module_kernel(const nvfp4sim_module *m, uint32_t v))(void *);
const sim_plan *sim_module_plan(const nvfp4sim_module *m, uint32_t v);

static jmp_buf g_abort_jmp; /* the scheduler's exit when a fault happens outside a fiber */

/* ---- randomness ------------------------------------------------------------------------ */

uint64_t sim_rand(void) {
  uint64_t z = (G->rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t sim_rand_below(uint32_t n) { return n ? (uint32_t)((sim_rand() >> 32) % n) : 0; }

/* ---- fibers and blocking ---------------------------------------------------------------- */

static sim_fiber **g_runq;
static uint32_t g_nrun;

sim_fiber *sim_self(void) { return G->current; }

static void make_runnable(sim_fiber *f) {
  f->state = SIM_RUNNABLE;
  f->wait = SIM_WAIT_NONE;
  f->wait_obj = NULL;
  g_runq[g_nrun++] = f;
}

static void to_scheduler(sim_fiber *f) {
  G->stats.switches++;
  sim_fiber_switch(&f->sp, G->sched_sp);
}

void sim_block(sim_fiber *f, int wait, const void *obj, uint64_t gen, uint32_t site) {
  f->state = SIM_BLOCKED;
  f->wait = wait;
  f->wait_obj = obj;
  f->wait_gen = gen;
  f->wait_site = site;
  to_scheduler(f);
}

void sim_wake_all(const void *obj) {
  for (uint32_t i = 0; i < G->nfibers; ++i) {
    sim_fiber *f = &G->fibers[i];
    if (f->state == SIM_BLOCKED && f->wait_obj == obj) make_runnable(f);
  }
}

/* At synchronisation points a fiber gives way with a probability of its schedule profile. */
void sim_maybe_yield(void) {
  static const uint32_t odds[3] = {8, 3, 2};
  sim_fiber *f = G->current;
  if (!f || sim_rand_below(odds[G->profile]) != 0) return;
  make_runnable(f);
  to_scheduler(f);
}

void sim_abort_launch(void) {
  sim_fiber *f = G->current;
  if (f) {
    f->state = SIM_BLOCKED;
    f->wait = SIM_WAIT_NONE;
    to_scheduler(f); /* never resumed */
  }
  longjmp(g_abort_jmp, 1);
}

/* ---- asynchronous operations ------------------------------------------------------------ */

sim_op *sim_op_new(uint32_t kind, sim_fiber *f, uint32_t site) {
  if (G->nops == G->capops) {
    uint32_t cap = G->capops ? G->capops * 2 : 1024;
    sim_op *g = realloc(G->ops, sizeof *g * cap);
    if (!g) sim_fault(f, site, "out of host memory");
    G->ops = g;
    G->capops = cap;
  }
  sim_op *op = &G->ops[G->nops];
  memset(op, 0, sizeof *op);
  op->id = ++G->nops;
  op->kind = kind;
  op->site = site;
  op->fiber = (uint16_t)f->index;
  op->cta = (uint8_t)f->cta->rank;
  op->comp = 0xFFFF;
  return op;
}

/* Completion delay of a new operation, from the seed's profile (in scheduler steps). */
static uint64_t delay(void) {
  uint32_t r = sim_rand_below(100);
  switch (G->profile) {
  case 0: return sim_rand_below(2);                                   /* eager */
  case 1: return r < 60 ? sim_rand_below(4) : r < 90 ? 4 + sim_rand_below(32)
                                                     : 32 + sim_rand_below(256); /* mixed */
  default: return 16 + sim_rand_below(r < 80 ? 64 : 512);            /* lazy */
  }
}

void sim_op_schedule(sim_op *op) {
  op->due = G->now + delay();
  if (G->npending == G->cappending) {
    uint32_t cap = G->cappending ? G->cappending * 2 : 256;
    uint32_t *g = realloc(G->pending, sizeof *g * cap);
    if (!g) sim_fault(NULL, op->site, "out of host memory");
    G->pending = g;
    G->cappending = cap;
  }
  G->pending[G->npending++] = op->id;
}

static sim_op *op_by_id(uint32_t id) { return &G->ops[id - 1]; }

/* The PTX ISA's ordering between a thread's tcgen05 operations: an MMA starts after the
 * thread's earlier copies and its earlier MMAs on the same accumulator and shape; a
 * commit's arrive waits for every earlier operation. Other pairs may complete in any order. */
static bool eligible(const sim_op *op) {
  if (op->kind != SIM_OP_MMA && op->kind != SIM_OP_COMMIT) return true;
  const sim_fiber *f = &G->fibers[op->fiber];
  for (uint32_t i = 0; i < f->ntc_open; ++i) {
    const sim_op *o = op_by_id(f->tc_open[i]);
    if (o->id == op->id || o->done) continue;
    if (op->kind == SIM_OP_COMMIT && o->seq <= op->covers && o->kind != SIM_OP_COMMIT) return false;
    if (op->kind == SIM_OP_MMA && o->seq < op->seq &&
        (o->kind == SIM_OP_CP ||
         (o->kind == SIM_OP_MMA && o->d == op->d && o->idesc == op->idesc &&
          o->cta_group == op->cta_group)))
      return false;
  }
  return true;
}

static void complete(sim_op *op) {
  G->stats.async_ops++;
  if (G->opts && G->opts->trace)
    fprintf(G->opts->log ? G->opts->log : stderr, "nvfp4-sim: t=%llu complete op %u kind %u site %u\n",
            (unsigned long long)G->now, op->id, op->kind, op->site);
  if (op->kind == SIM_OP_TMA_LOAD || op->kind == SIM_OP_TMA_STORE_READ ||
      op->kind == SIM_OP_TMA_STORE_WRITE)
    sim_tma_complete(op);
  else
    sim_tc_complete(op);
}

/* Completes every eligible operation that is due, in random order (completions can make
 * further operations eligible). */
static void complete_due(void) {
  for (;;) {
    uint32_t cand[64], n = 0;
    for (uint32_t i = 0; i < G->npending && n < 64; ++i) {
      sim_op *op = op_by_id(G->pending[i]);
      if (op->due <= G->now && eligible(op)) cand[n++] = i;
    }
    if (!n) return;
    uint32_t pick = cand[sim_rand_below(n)];
    sim_op *op = op_by_id(G->pending[pick]);
    G->pending[pick] = G->pending[--G->npending];
    complete(op); /* may re-queue op (TMA pieces, store write) */
    if (G->aborted) return;
  }
}

/* ---- the cluster's run ------------------------------------------------------------------ */

static void cta_exit(sim_cta *c);

static void thread_exit(sim_fiber *f) {
  if (f->nld)
    sim_report("exit-with-async-work", f, f->ld[0].site,
               "thread exits with %u tcgen05.ld not waited for (tcgen05.wait::ld)", f->nld);
  f->state = SIM_DONE;
  sim_cta *c = f->cta;
  c->exited++;
  /* bar.sync 0 counts the threads that have not exited */
  sim_rendezvous *b0 = &c->bar[0];
  if (b0->arrived && b0->arrived == c->threads - c->exited) sim_rendezvous_complete(b0);
  if (c->exited == c->threads) cta_exit(c);
}

static void fiber_main(void *arg) {
  sim_fiber *f = arg;
  G->kernel(f->cta->params);
  thread_exit(f);
  to_scheduler(f);
}

static bool op_touches(const sim_op *op, const sim_cta *c) {
  if (op->cta == c->rank) return true;
  if (op->kind == SIM_OP_COMMIT) return op->mask ? (op->mask >> c->rank) & 1u : false;
  return op->cta_group == 2;
}

static void cta_exit(sim_cta *c) {
  for (uint32_t i = 0; i < G->npending; ++i) {
    const sim_op *op = op_by_id(G->pending[i]);
    if (!op_touches(op, c)) continue;
    static const char *const kinds[] = {"", "TMA load", "TMA store", "TMA store", "tcgen05.cp",
                                        "tcgen05.mma", "tcgen05.commit"};
    sim_report("exit-with-async-work", &G->fibers[op->fiber], op->site,
               "CTA %u exits while this %s is still in flight", c->ctaid, kinds[op->kind]);
  }
  sim_mbar_exit_check(c);
  sim_tc_exit_check(c);
}

static void report_deadlock(void);

static void run_cluster(void) {
  g_nrun = 0;
  for (uint32_t i = 0; i < G->nfibers; ++i) make_runnable(&G->fibers[i]);
  if (setjmp(g_abort_jmp)) {
    G->current = NULL;
    return;
  }
  for (;;) {
    if (G->aborted) return;
    complete_due();
    if (G->aborted) return;
    if (!g_nrun) {
      bool live = false;
      for (uint32_t i = 0; i < G->nfibers && !live; ++i) live = G->fibers[i].state != SIM_DONE;
      if (!live) return;
      uint64_t next = UINT64_MAX;
      for (uint32_t i = 0; i < G->npending; ++i) {
        const sim_op *op = op_by_id(G->pending[i]);
        if (eligible(op) && op->due < next) next = op->due;
      }
      if (next == UINT64_MAX) {
        report_deadlock();
        return;
      }
      G->now = next > G->now ? next : G->now + 1;
      continue;
    }
    uint32_t i = sim_rand_below(g_nrun);
    sim_fiber *f = g_runq[i];
    g_runq[i] = g_runq[--g_nrun];
    G->current = f;
    G->stats.switches++;
    sim_fiber_switch(&G->sched_sp, f->sp);
    G->current = NULL;
    G->now++;
  }
}

/* ---- the deadlock report ---------------------------------------------------------------- */

static void describe_wait(const sim_fiber *f, char *out, size_t size) {
  if (f->state == SIM_DONE) {
    snprintf(out, size, "exited");
    return;
  }
  switch (f->wait) {
  case SIM_WAIT_MBAR: {
    const sim_mbar *b = f->wait_obj;
    char what[160];
    sim_describe_bar(f->cta, b->addr, what, sizeof what);
    snprintf(out, size, "%s (site %u) waits on %s for the phase of parity %u; the barrier has "
                        "completed %u phases (current phase parity %u), pending arrivals %u of "
                        "%u, tx-count %lld",
             sim_site_text(f->wait_site), f->wait_site, what, f->wait_parity, b->phase,
             b->phase & 1u, b->pending, b->count, (long long)b->tx);
    break;
  }
  case SIM_WAIT_RENDEZVOUS: {
    const sim_rendezvous *r = f->wait_obj;
    snprintf(out, size, "%s (site %u): %u of %u threads arrived", sim_site_text(f->wait_site),
             f->wait_site, r->arrived, r->expected);
    break;
  }
  case SIM_WAIT_CLUSTER:
    snprintf(out, size, "%s (site %u): %u of %u threads of the cluster arrived",
             sim_site_text(f->wait_site), f->wait_site, G->cl_arrived, G->threads * G->cluster);
    break;
  case SIM_WAIT_BULK:
    snprintf(out, size, "%s (site %u): waits for its TMA stores", sim_site_text(f->wait_site),
             f->wait_site);
    break;
  default:
    snprintf(out, size, "stopped");
  }
}

static void report_deadlock(void) {
  G->deadlocked = true;
  G->result->outcome = NVFP4SIM_DEADLOCK;
  FILE *out = G->opts && G->opts->log ? G->opts->log : stderr;
  snprintf(G->result->message, sizeof G->result->message,
           "deadlock in cluster %u of %s: every thread is blocked and nothing is in flight",
           G->clusterid, G->plan->kernel);
  fprintf(out, "nvfp4-sim: DEADLOCK in cluster %u (CTAs %u..%u) of %s: every thread is blocked "
               "and no asynchronous operation is in flight\n",
          G->clusterid, G->cta[0].ctaid, G->cta[G->cluster - 1].ctaid, G->plan->kernel);
  for (uint32_t i = 0; i < G->nfibers;) {
    const sim_fiber *f = &G->fibers[i];
    char what[600], next[600];
    describe_wait(f, what, sizeof what);
    uint32_t j = i + 1;
    while (j < G->nfibers && G->fibers[j].warp == f->warp && G->fibers[j].cta == f->cta) {
      describe_wait(&G->fibers[j], next, sizeof next);
      if (strcmp(next, what)) break;
      ++j;
    }
    const sim_fiber *last = &G->fibers[j - 1];
    if (last->lane == f->lane)
      fprintf(out, "  CTA %u warp %u (%s) lane %u: %s\n", f->cta->ctaid, f->warp, sim_role(f->warp),
              f->lane, what);
    else
      fprintf(out, "  CTA %u warp %u (%s) lanes %u-%u: %s\n", f->cta->ctaid, f->warp,
              sim_role(f->warp), f->lane, last->lane, what);
    i = j;
  }
}

/* ---- rendezvous: bar.sync, bar.warp.sync and the warp collectives ----------------------- */

/* Everybody who arrived leaves with the join of their clocks (a barrier). */
void sim_rendezvous_complete(sim_rendezvous *rv) {
  static sim_clock *tmp;
  static uint32_t tmpcap;
  if (tmpcap < G->capcomp) {
    free(tmp);
    tmp = malloc(sizeof *tmp * G->capcomp);
    tmpcap = tmp ? G->capcomp : 0;
    if (!tmp) sim_fault(NULL, rv->site, "out of host memory");
  }
  memset(tmp, 0, sizeof *tmp * G->capcomp);
  for (uint32_t i = 0; i < rv->arrived; ++i) sim_vc_join(tmp, G->fibers[rv->who[i]].vc);
  for (uint32_t i = 0; i < rv->arrived; ++i) {
    sim_fiber *f = &G->fibers[rv->who[i]];
    memcpy(f->vc, tmp, sizeof *tmp * G->ncomp);
    f->vc[f->index] = tmp[f->index] + 1;
  }
  rv->arrived = 0;
  rv->generation++;
  sim_wake_all(rv);
}

/* Arrives at `rv`; the last of `expected` threads runs `last` (with every participant's
 * clock joined) before all leave. Operations of one rendezvous must agree on kind and the
 * first `nargs` arguments. */
void sim_rendezvous_arrive(sim_rendezvous *rv, uint32_t expected, uint32_t kind, const uint32_t *args,
                    uint32_t nargs, sim_fiber *f, uint32_t site,
                    void (*last)(sim_rendezvous *, void *), void *ctx) {
  if (rv->arrived == 0) {
    rv->expected = expected;
    rv->kind = kind;
    rv->site = site;
    for (uint32_t i = 0; i < nargs && i < 4; ++i) rv->args[i] = args[i];
  } else {
    /* bar.sync 0 expects the threads that have not exited: the count may drop */
    const bool all = kind == SIM_RV_BAR && args && args[0] == 0;
    if (all && rv->kind == kind) rv->expected = expected;
    if (rv->kind != kind || rv->expected != expected)
      sim_fault(f, site, "threads meet at different collective operations: %s (site %u, %u "
                         "threads) and %s (site %u, %u threads)",
                sim_site_text(rv->site), rv->site, rv->expected, sim_site_text(site), site, expected);
    for (uint32_t i = 0; i < nargs && i < 4; ++i)
      if (rv->args[i] != args[i])
        sim_fault(f, site, "operand %u of this .sync.aligned operation differs between the "
                           "threads (0x%x and 0x%x)", i, rv->args[i], args[i]);
  }
  if (rv->arrived >= sizeof rv->who / sizeof rv->who[0])
    sim_fault(f, site, "too many threads at one rendezvous");
  rv->who[rv->arrived++] = (uint16_t)f->index;
  uint64_t gen = rv->generation;
  if (rv->arrived == rv->expected) {
    if (last) last(rv, ctx);
    sim_rendezvous_complete(rv);
    return;
  }
  while (rv->generation == gen) sim_block(f, SIM_WAIT_RENDEZVOUS, rv, gen, site);
}


/* bar.sync, and with `pred` non-null bar.red.or.pred (its result in *pred). */
static void barrier(uint32_t id, uint32_t threads, uint32_t *pred, uint32_t site) {
  sim_fiber *f = sim_self();
  sim_cta *c = f->cta;
  if (id >= 16) sim_fault(f, site, "bar.sync barrier id %u outside 0..15", id);
  if (threads % 32 || threads > c->threads)
    sim_fault(f, site, "bar.sync thread count %u is not a multiple of 32 up to %u", threads,
              c->threads);
  uint32_t expected = threads ? threads : c->threads - c->exited;
  /* a reduction and a plain bar.sync at the same barrier are different operations */
  uint32_t args[2] = {threads, pred != NULL};
  sim_rendezvous *rv = &c->bar[id];
  const uint64_t gen = rv->generation;
  if (pred) {
    if (rv->arrived == 0) rv->red[gen & 1] = 0;
    rv->red[gen & 1] |= *pred != 0;
  }
  sim_rendezvous_arrive(rv, expected, SIM_RV_BAR, args, 2, f, site, NULL, NULL);
  /* generation gen + 1 needs this thread again, so red[gen & 1] stays until it has read it */
  if (pred) *pred = rv->red[gen & 1];
  sim_maybe_yield();
}

void nvfp4_sim_barrier(uint32_t id, uint32_t threads, uint32_t site) {
  barrier(id, threads, NULL, site);
}

uint32_t nvfp4_sim_barrier_or(uint32_t id, uint32_t threads, uint32_t pred, uint32_t site) {
  barrier(id, threads, &pred, site);
  return pred;
}

void nvfp4_sim_warp_sync(uint32_t mask, uint32_t site) {
  sim_fiber *f = sim_self();
  if (!((mask >> f->lane) & 1u))
    sim_fault(f, site, "bar.warp.sync mask 0x%x does not include the executing lane %u", mask,
              f->lane);
  uint32_t args[1] = {mask};
  sim_rendezvous_arrive(&f->cta->warp[f->warp], (uint32_t)__builtin_popcount(mask), SIM_RV_WARP_SYNC, args, 1,
                 f, site, NULL, NULL);
}

/* barrier.cluster: arrive releases, wait acquires once every thread of the cluster arrived. */
static sim_clock *g_cl_cur, *g_cl_done;

void nvfp4_sim_cluster_arrive(uint32_t site) {
  sim_fiber *f = sim_self();
  if (f->cl_gen != UINT64_MAX)
    sim_fault(f, site, "barrier.cluster.arrive twice without barrier.cluster.wait");
  sim_vc_release(f, g_cl_cur);
  f->cl_gen = G->cl_generation;
  if (++G->cl_arrived == G->threads * G->cluster) {
    memcpy(g_cl_done, g_cl_cur, sizeof(sim_clock) * G->capcomp);
    memset(g_cl_cur, 0, sizeof(sim_clock) * G->capcomp);
    G->cl_arrived = 0;
    G->cl_generation++;
    sim_wake_all(&G->cl_generation);
  }
}

void nvfp4_sim_cluster_wait(uint32_t site) {
  sim_fiber *f = sim_self();
  if (f->cl_gen == UINT64_MAX)
    sim_fault(f, site, "barrier.cluster.wait without a preceding barrier.cluster.arrive");
  while (G->cl_generation == f->cl_gen)
    sim_block(f, SIM_WAIT_CLUSTER, &G->cl_generation, f->cl_gen, site);
  sim_vc_acquire(f, g_cl_done);
  f->cl_gen = UINT64_MAX;
}

/* tcgen05.fence::after_thread_sync: the thread's later tcgen05 operations are ordered after
 * its earlier synchronisation; ::before_thread_sync: its earlier tcgen05.ld reads are
 * released by its later synchronisation; fence.proxy.async.shared::cta: the thread's
 * earlier generic shared-memory writes become visible to the async proxy once this point is
 * ordered before the reader (its clock is recorded). The mbarrier-init fence is not
 * modelled (cpusim/README.md). */
void nvfp4_sim_fence(uint32_t kind, uint32_t site) {
  sim_fiber *f = sim_self();
  if (kind == NVFP4_SIM_FENCE_PROXY_ASYNC_SHARED) {
    if (f->px_n == f->px_cap) {
      uint32_t cap = f->px_cap ? 2 * f->px_cap : 64;
      sim_clock *p = realloc(f->px_clk, sizeof(sim_clock) * cap);
      if (!p) sim_fault(f, site, "out of memory recording fence.proxy.async");
      f->px_clk = p;
      f->px_cap = cap;
    }
    f->px_clk[f->px_n++] = f->vc[f->index];
  } else if (kind == NVFP4_SIM_FENCE_TC_AFTER) {
    memcpy(f->vc_tc, f->vc, sizeof(sim_clock) * G->ncomp);
  } else if (kind == NVFP4_SIM_FENCE_TC_BEFORE && f->comp_ld != 0xFFFF) {
    f->vc[f->comp_ld] = f->ld_clock++;
  }
}

/* ---- special registers, memory ------------------------------------------------------------ */

uint32_t nvfp4_sim_sreg(uint32_t which) {
  sim_fiber *f = sim_self();
  switch (which) {
  case NVFP4_SIM_SREG_TID_X: return f->tid;
  case NVFP4_SIM_SREG_NTID_X: return G->threads;
  case NVFP4_SIM_SREG_NTID_Y: case NVFP4_SIM_SREG_NTID_Z: return 1;
  case NVFP4_SIM_SREG_CTAID_X: return f->cta->ctaid;
  case NVFP4_SIM_SREG_NCTAID_X: return G->grid;
  case NVFP4_SIM_SREG_NCTAID_Y: case NVFP4_SIM_SREG_NCTAID_Z: return 1;
  case NVFP4_SIM_SREG_LANEID: return f->lane;
  case NVFP4_SIM_SREG_WARPID: return f->warp;
  case NVFP4_SIM_SREG_CLUSTERID_X: return f->cta->clusterid;
  case NVFP4_SIM_SREG_NCLUSTERID_X: return G->grid / G->cluster;
  case NVFP4_SIM_SREG_CLUSTER_CTARANK: return f->cta->rank;
  case NVFP4_SIM_SREG_CLUSTER_NCTARANK: return G->cluster;
  default: return 0; /* y and z indices */
  }
}

void *nvfp4_sim_smem_base(void) { return sim_self()->cta->smem; }

uint32_t nvfp4_sim_dyn_smem(void) { return SIM_DYN_SMEM_BASE; }

void nvfp4_sim_smem_access(uint32_t addr, uint32_t bytes, uint32_t write, uint32_t site) {
  sim_fiber *f = sim_self();
  sim_epoch e = sim_epoch_thread(f, SIM_ACC_GENERIC, site);
  if (bytes <= 16 && (bytes & (bytes - 1)) == 0 && addr % (bytes ? bytes : 1))
    sim_fault(f, site, "misaligned %u-byte shared-memory access at 0x%x", bytes, addr);
  if (write) sim_smem_write(f->cta, addr, bytes, &e, f->vc, f);
  else sim_smem_read(f->cta, addr, bytes, &e, f->vc, f, false);
}

void nvfp4_sim_global_store(void *ptr, uint32_t bytes, uint32_t site) {
  const uintptr_t p = (uintptr_t)ptr;
  for (uint32_t i = 0; i < G->nranges; ++i) {
    const uintptr_t lo = (uintptr_t)G->ranges[i].base;
    if (p >= lo && bytes <= G->ranges[i].bytes && p - lo <= G->ranges[i].bytes - bytes) return;
  }
  sim_fault(sim_self(), site, "generic %u-byte global store at %p outside every output buffer",
            bytes, ptr);
}

void nvfp4_sim_global_release_u32(uint64_t addr, uint32_t value, uint32_t site) {
  void *p = (void *)(uintptr_t)addr;
  nvfp4_sim_global_store(p, 4, site);
  if (addr % 4) sim_fault(sim_self(), site, "misaligned 4-byte counter at %p", p);
  __atomic_store_n((uint32_t *)p, value, __ATOMIC_RELEASE);
}

uint32_t nvfp4_sim_global_acquire_u32(uint64_t addr, uint32_t site) {
  const uint32_t *p = (const uint32_t *)(uintptr_t)addr;
  if (addr % 4) sim_fault(sim_self(), site, "misaligned 4-byte counter at %p", (const void *)p);
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

uint32_t nvfp4_sim_global_atomic_add_u32(uint64_t addr, uint32_t value, uint32_t site) {
  void *p = (void *)(uintptr_t)addr;
  nvfp4_sim_global_store(p, 4, site);
  if (addr % 4) sim_fault(sim_self(), site, "misaligned 4-byte counter at %p", p);
  return __atomic_fetch_add((uint32_t *)p, value, __ATOMIC_ACQ_REL);
}

/* ---- the launch ------------------------------------------------------------------------------ */

static void free_cluster_state(void) {
  /* what operations still in flight own (a launch stopped by a fault or deadlock) */
  for (uint32_t i = 0; i < G->nops; ++i) {
    free(G->ops[i].staging);
    free(G->ops[i].release);
    G->ops[i].staging = NULL;
    G->ops[i].release = NULL;
  }
  for (uint32_t r = 0; r < SIM_MAX_CTAS; ++r) {
    sim_cta *c = &G->cta[r];
    for (uint32_t i = 0; i < SIM_SMEM_WINDOW / 8; ++i)
      if (c->mbar[i]) {
        free(c->mbar[i]->cur);
        free(c->mbar[i]->done);
        free(c->mbar[i]->cur_remote);
        free(c->mbar[i]->done_remote);
        free(c->mbar[i]);
        c->mbar[i] = NULL;
      }
  }
}

static bool setup_cluster(uint32_t clusterid) {
  G->clusterid = clusterid;
  G->rng = G->opts->schedule_seed * 0x2545F4914F6CDD1Dull + clusterid * 0x9E3779B97F4A7C15ull + 1;
  G->now = 0;
  free_cluster_state();
  G->nops = 0;
  G->npending = 0;
  G->cl_arrived = 0;
  G->cl_generation = 0;
  const uint32_t T = G->threads * G->cluster;
  G->ncomp = T;
  memset(G->comps, 0, sizeof *G->comps * G->capcomp);
  for (uint32_t i = 0; i < T; ++i) {
    G->comps[i].kind = SIM_ACC_GENERIC;
    G->comps[i].fiber = (uint16_t)i;
  }
  memset(g_cl_cur, 0, sizeof(sim_clock) * G->capcomp);
  memset(g_cl_done, 0, sizeof(sim_clock) * G->capcomp);
  for (uint32_t r = 0; r < G->cluster; ++r) {
    sim_cta *c = &G->cta[r];
    c->rank = r;
    c->clusterid = clusterid;
    c->ctaid = clusterid * G->cluster + r;
    memset(c->smem, 0xA5, SIM_SMEM_WINDOW); /* shared memory is not initialised at launch */
    for (uint32_t i = 0; i < NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS; ++i)
      c->tmem[i] = 0x7FBADBADu;
    nvfp4_emu_state_reset(&c->alloc);
    c->allocated = c->deallocated = false;
    memset(c->bar, 0, sizeof c->bar);
    memset(c->warp, 0, sizeof c->warp);
    memset(&c->pair, 0, sizeof c->pair);
    memset(c->wg, 0, sizeof c->wg);
    memset(c->comp_wg, 0, sizeof c->comp_wg);
    memset(c->smem_shadow, 0, sizeof(sim_shadow) * SIM_CHUNKS);
    memset(c->tmem_shadow, 0, sizeof(sim_shadow) * SIM_TMEM_CELLS);
    c->threads = G->threads;
    c->exited = 0;
    memcpy(c->params, G->params, G->param_bytes);
  }
  for (uint32_t i = 0; i < T; ++i) {
    sim_fiber *f = &G->fibers[i];
    void *stack = f->stack;
    sim_clock *vc = f->vc, *vc_tc = f->vc_tc, *px = f->px_clk;
    uint32_t px_cap = f->px_cap;
    memset(f, 0, sizeof *f);
    f->stack = stack;
    f->vc = vc;
    f->vc_tc = vc_tc;
    f->px_clk = px;
    f->px_cap = px_cap;
    memset(vc, 0, sizeof(sim_clock) * G->capcomp);
    memset(vc_tc, 0, sizeof(sim_clock) * G->capcomp);
    f->index = i;
    f->cta = &G->cta[i / G->threads];
    f->tid = i % G->threads;
    f->warp = f->tid / 32;
    f->lane = f->tid % 32;
    f->vc[i] = 1;
    f->comp_tc = f->comp_bulk = f->comp_ld = 0xFFFF;
    f->cl_gen = UINT64_MAX;
    f->sp = sim_fiber_prepare(stack, SIM_STACK_BYTES, fiber_main, f);
  }
  G->nfibers = T;
  return true;
}

static void free_state(sim_state *s) {
  free_cluster_state();
  for (uint32_t r = 0; r < SIM_MAX_CTAS; ++r) {
    sim_cta *c = &s->cta[r];
    free(c->smem);
    free(c->tmem);
    free(c->smem_shadow);
    free(c->tmem_shadow);
    free(c->params);
  }
  if (s->fibers)
    for (uint32_t i = 0; i < s->threads * s->cluster; ++i) {
      sim_fiber_stack_free(s->fibers[i].stack, SIM_STACK_BYTES);
      free(s->fibers[i].vc);
      free(s->fibers[i].vc_tc);
      free(s->fibers[i].px_clk);
    }
  free(s->fibers);
  free(s->ops);
  free(s->pending);
  free(s->comps);
  free(s->mma_scratch);
  free(g_runq);
  g_runq = NULL;
  free(g_cl_cur);
  free(g_cl_done);
  g_cl_cur = g_cl_done = NULL;
}

static double clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

const char *nvfp4sim_outcome_name(nvfp4sim_outcome o) {
  static const char *const names[] = {"OK", "HAZARD", "DEADLOCK", "FAULT", "ERROR"};
  return (unsigned)o <= NVFP4SIM_ERROR ? names[o] : "?";
}

static nvfp4sim_outcome launch(void (*kernel)(void *), const nvfp4_kernel_metadata *meta,
                               const sim_plan *plan, const void *params, uint32_t grid,
                               const nvfp4sim_range *writable, uint32_t nwritable,
                               const nvfp4sim_options *options, nvfp4sim_result *result);

nvfp4sim_outcome nvfp4sim_launch(const nvfp4sim_module *mod, uint32_t variant, const void *params,
                                 uint32_t grid, const nvfp4sim_range *writable, uint32_t nwritable,
                                 const nvfp4sim_options *options, nvfp4sim_result *result) {
  nvfp4sim_result local;
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  const nvfp4rt_metadata_table *table = nvfp4sim_module_table(mod);
  if (!table || variant >= table->count || !params) {
    result->outcome = NVFP4SIM_ERROR;
    snprintf(result->message, sizeof result->message, "launch: no such variant or no parameters");
    return result->outcome;
  }
  return launch(sim_module_kernel(mod, variant), &table->variants[variant],
                sim_module_plan(mod, variant), params, grid, writable, nwritable, options, result);
}

nvfp4sim_outcome nvfp4sim_launch_kernel(void (*kernel)(void *), const nvfp4_kernel_metadata *meta,
                                        const char *plan_text, const void *params, uint32_t grid,
                                        const nvfp4sim_range *writable, uint32_t nwritable,
                                        const nvfp4sim_options *options, nvfp4sim_result *result) {
  nvfp4sim_result local;
  if (!result) result = &local;
  memset(result, 0, sizeof *result);
  sim_plan plan;
  if (!kernel || !meta || !params || !plan_text ||
      sim_plan_parse(plan_text, &plan, result->message, sizeof result->message) != 0) {
    result->outcome = NVFP4SIM_ERROR;
    if (!result->message[0]) snprintf(result->message, sizeof result->message, "launch: NULL argument");
    return result->outcome;
  }
  launch(kernel, meta, &plan, params, grid, writable, nwritable, options, result);
  sim_plan_free(&plan);
  return result->outcome;
}

static nvfp4sim_outcome launch(void (*kernel)(void *), const nvfp4_kernel_metadata *meta,
                               const sim_plan *plan, const void *params, uint32_t grid,
                               const nvfp4sim_range *writable, uint32_t nwritable,
                               const nvfp4sim_options *options, nvfp4sim_result *result) {
  const uint32_t cluster = meta->cluster[0], threads = meta->block[0];
  if (cluster < 1 || cluster > SIM_MAX_CTAS || grid % cluster || threads > SIM_MAX_THREADS ||
      threads % 32 || meta->block[1] != 1 || meta->block[2] != 1 ||
      meta->dyn_smem_bytes + SIM_DYN_SMEM_BASE > SIM_SMEM_WINDOW) {
    result->outcome = NVFP4SIM_ERROR;
    snprintf(result->message, sizeof result->message,
             "launch: grid %u, cluster %u, block %u x %u x %u, %u bytes of shared memory are "
             "outside what the simulator runs", grid, cluster, meta->block[0], meta->block[1],
             meta->block[2], meta->dyn_smem_bytes);
    return result->outcome;
  }
  nvfp4sim_options defaults = {0};
  sim_state *s = calloc(1, sizeof *s);
  if (!s) {
    result->outcome = NVFP4SIM_ERROR;
    return result->outcome;
  }
  nvfp4sim_g = s;
  s->meta = meta;
  s->plan = plan;
  s->kernel = kernel;
  s->opts = options ? options : &defaults;
  s->params = params;
  s->param_bytes = meta->param_bytes;
  s->grid = grid;
  s->cluster = cluster;
  s->threads = threads;
  s->ranges = writable;
  s->nranges = nwritable;
  s->result = result;
  s->profile = (uint32_t)(s->opts->schedule_seed % 3);
  const uint32_t T = threads * cluster;
  s->capcomp = 2 * T + 128; /* threads, their tcgen05.ld reads, the async agents */
  s->comps = calloc(s->capcomp, sizeof *s->comps);
  s->fibers = calloc(T, sizeof *s->fibers);
  g_runq = calloc(T, sizeof *g_runq);
  g_cl_cur = calloc(s->capcomp, sizeof(sim_clock));
  g_cl_done = calloc(s->capcomp, sizeof(sim_clock));
  s->mma_scratch = aligned_alloc(64, sizeof *s->mma_scratch);
  bool ok = s->comps && s->fibers && g_runq && g_cl_cur && g_cl_done && s->mma_scratch;
  for (uint32_t r = 0; ok && r < SIM_MAX_CTAS; ++r) {
    sim_cta *c = &s->cta[r];
    c->smem = aligned_alloc(1024, SIM_SMEM_WINDOW + 1024);
    c->tmem = malloc(NVFP4_EMU_TMEM_BYTES_PER_CTA);
    c->smem_shadow = malloc(sizeof(sim_shadow) * SIM_CHUNKS);
    c->tmem_shadow = malloc(sizeof(sim_shadow) * SIM_TMEM_CELLS);
    c->params = aligned_alloc(NVFP4_ABI_PARAM_ALIGN,
                              (meta->param_bytes + NVFP4_ABI_PARAM_ALIGN - 1) /
                                  NVFP4_ABI_PARAM_ALIGN * NVFP4_ABI_PARAM_ALIGN);
    ok = c->smem && c->tmem && c->smem_shadow && c->tmem_shadow && c->params;
  }
  for (uint32_t i = 0; ok && i < T; ++i) {
    s->fibers[i].stack = sim_fiber_stack_alloc(SIM_STACK_BYTES);
    s->fibers[i].vc = calloc(s->capcomp, sizeof(sim_clock));
    s->fibers[i].vc_tc = calloc(s->capcomp, sizeof(sim_clock));
    ok = s->fibers[i].stack && s->fibers[i].vc && s->fibers[i].vc_tc;
  }
  if (!ok) {
    result->outcome = NVFP4SIM_ERROR;
    snprintf(result->message, sizeof result->message, "launch: out of host memory");
  } else {
    double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
    const uint32_t clusters = grid / cluster;
    uint32_t *order = malloc(sizeof(uint32_t) * (clusters ? clusters : 1));
    if (!order) {
      result->outcome = NVFP4SIM_ERROR;
      snprintf(result->message, sizeof result->message, "launch: out of host memory");
    }
    for (uint32_t i = 0; order && i < clusters; ++i)
      order[i] = s->opts->cluster_order == NVFP4SIM_CLUSTERS_REVERSE ? clusters - 1 - i : i;
    if (order && s->opts->cluster_order == NVFP4SIM_CLUSTERS_SHUFFLED) {
      uint64_t x = s->opts->schedule_seed * 0xD1342543DE82EF95ull + 0x632BE59BD9B4E019ull;
      for (uint32_t i = clusters; i > 1; --i) { /* Fisher-Yates */
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 32;
        const uint32_t j = (uint32_t)(x % i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
      }
    }
    for (uint32_t i = 0; order && i < clusters; ++i) {
      const uint32_t cl = order[i];
      setup_cluster(cl);
      run_cluster();
      result->clusters++;
      if (s->aborted || s->deadlocked) break; /* hazards: every cluster still runs */
    }
    free(order);
    result->wall_ms = clock_ms(CLOCK_MONOTONIC) - t0;
    result->cpu_ms = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
    result->hazards = s->stats.hazards;
    result->switches = s->stats.switches;
    result->async_ops = s->stats.async_ops;
    result->mma_ops = s->stats.mma;
    result->tma_ops = s->stats.tma;
    if (result->outcome == NVFP4SIM_OK && s->stats.hazards) result->outcome = NVFP4SIM_HAZARD;
  }
  free_state(s);
  free(s);
  nvfp4sim_g = NULL;
  return result->outcome;
}
