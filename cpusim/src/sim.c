/* sim.c — the CTA simulator's launch and scheduler: several clusters (1 or 2 CTAs each)
 * resident at once, admitted in the launch's cluster order, every thread a fiber; a seeded
 * scheduler that interleaves the resident clusters, picks the next runnable fiber of one
 * at random and completes the asynchronous operations whose (seeded) completion time has
 * come — some only once no thread of their cluster can run, the latest point the ISA
 * allows; the thread-level operations (special registers, bar.sync, bar.warp.sync,
 * barrier.cluster, generic shared accesses, fences); the deadlock report when every fiber
 * of a cluster is blocked with nothing in flight; the CTA-exit checks; and the host-signal
 * guard that turns a crash inside a simulated thread into a fault report. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

sim_state *nvfp4sim_g;
#define G nvfp4sim_g

void (*sim_module_kernel(const nvfp4sim_module *m, uint32_t v))(void *);
const sim_plan *sim_module_plan(const nvfp4sim_module *m, uint32_t v);

static sigjmp_buf g_abort_jmp; /* the scheduler's exit: a fault outside a fiber, a host signal */

/* ---- randomness ------------------------------------------------------------------------ */

uint64_t sim_rand(void) {
  uint64_t z = (G->rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t sim_rand_below(uint32_t n) { return n ? (uint32_t)((sim_rand() >> 32) % n) : 0; }

/* The launch's own stream: which resident cluster runs next, and for how long. */
static uint32_t launch_rand_below(sim_launch *L, uint32_t n) {
  uint64_t z = (L->rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return n ? (uint32_t)((z >> 32) % n) : 0;
}

/* ---- fibers and blocking ---------------------------------------------------------------- */

sim_fiber *sim_self(void) { return G->current; }

sim_fiber *sim_at(uint32_t site) {
  sim_fiber *f = G->current;
  if (f) f->site = site;
  return f;
}

static void make_runnable(sim_fiber *f) {
  f->state = SIM_RUNNABLE;
  f->wait = SIM_WAIT_NONE;
  f->wait_obj = NULL;
  G->runq[G->nrun++] = f;
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
  siglongjmp(g_abort_jmp, 1);
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
  op->late = G->launch->late_pct && sim_rand_below(100) < G->launch->late_pct;
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
  if (op->kind != SIM_OP_MMA && op->kind != SIM_OP_COMMIT) return true; /* TMA, remote arrive */
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
  else if (op->kind == SIM_OP_ARRIVE)
    sim_mbar_arrive_complete(op);
  else
    sim_tc_complete(op);
}

/* Completes one eligible operation chosen at random among those that are due (late ones
 * too, with `late`); false when there is none. */
static bool complete_one(bool late) {
  uint32_t cand[64], n = 0;
  for (uint32_t i = 0; i < G->npending && n < 64; ++i) {
    sim_op *op = op_by_id(G->pending[i]);
    if ((late ? op->late : !op->late && op->due <= G->now) && eligible(op)) cand[n++] = i;
  }
  if (!n) return false;
  uint32_t pick = cand[sim_rand_below(n)];
  sim_op *op = op_by_id(G->pending[pick]);
  G->pending[pick] = G->pending[--G->npending];
  complete(op); /* may re-queue op (TMA pieces, store write) */
  return true;
}

/* Completes every eligible operation that is due, in random order (completions can make
 * further operations eligible). */
static void complete_due(void) {
  while (!G->aborted && complete_one(false)) {
  }
}

/* The remote arrives `f` issued land now (a release of f orders them before what follows). */
void sim_flush_arrives(sim_fiber *f) {
  for (uint32_t i = 0; i < G->npending;) {
    sim_op *op = op_by_id(G->pending[i]);
    if (op->kind != SIM_OP_ARRIVE || op->fiber != f->index) {
      ++i;
      continue;
    }
    G->pending[i] = G->pending[--G->npending];
    complete(op);
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
  if (op->kind == SIM_OP_ARRIVE) return op->dst_cta == c->rank; /* its barrier's CTA */
  if (op->cta == c->rank) return true;
  if (op->kind == SIM_OP_COMMIT) return op->mask ? (op->mask >> c->rank) & 1u : op->dst_cta == c->rank;
  return op->cta_group == 2;
}

static void cta_exit(sim_cta *c) {
  for (uint32_t i = 0; i < G->npending; ++i) {
    const sim_op *op = op_by_id(G->pending[i]);
    if (!op_touches(op, c)) continue;
    static const char *const kinds[] = {"", "TMA load", "TMA store", "TMA store", "tcgen05.cp",
                                        "tcgen05.mma", "tcgen05.commit", "remote mbarrier arrive"};
    sim_report("exit-with-async-work", &G->fibers[op->fiber], op->site,
               "CTA %u exits while this %s is still in flight", c->ctaid, kinds[op->kind]);
  }
  sim_mbar_exit_check(c);
  sim_tc_exit_check(c);
}

static void report_deadlock(void);

enum { SIM_STEP_RAN, SIM_STEP_DONE, SIM_STEP_STOP };

/* One step of the cluster in G: due completions, then one fiber until it blocks or gives
 * way; with no runnable fiber a late completion, else time moves to the next completion
 * (or, with none, the deadlock report). */
static int cluster_step(void) {
  complete_due();
  if (G->aborted) return SIM_STEP_STOP;
  if (!G->nrun) {
    bool live = false;
    for (uint32_t i = 0; i < G->nfibers && !live; ++i) live = G->fibers[i].state != SIM_DONE;
    if (!live) return SIM_STEP_DONE;
    if (complete_one(true)) return G->aborted ? SIM_STEP_STOP : SIM_STEP_RAN;
    uint64_t next = UINT64_MAX;
    for (uint32_t i = 0; i < G->npending; ++i) {
      const sim_op *op = op_by_id(G->pending[i]);
      if (eligible(op) && op->due < next) next = op->due;
    }
    if (next == UINT64_MAX) {
      report_deadlock();
      return SIM_STEP_STOP;
    }
    G->now = next > G->now ? next : G->now + 1;
    return SIM_STEP_RAN;
  }
  uint32_t i = sim_rand_below(G->nrun);
  sim_fiber *f = G->runq[i];
  G->runq[i] = G->runq[--G->nrun];
  G->current = f;
  G->stats.switches++;
  sim_fiber_switch(&G->sched_sp, f->sp);
  G->current = NULL;
  G->now++;
  return G->aborted ? SIM_STEP_STOP : SIM_STEP_RAN;
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

/* sim_wake_all(rv) for a rendezvous whose n arrivals are rv->who[0 .. n): a thread blocks
 * on a rendezvous only after arriving, and every completion wakes them all, so the threads
 * blocked on rv are among who[]. They are made runnable in ascending index order, as
 * sim_wake_all's scan of every thread would (the order of the run queue is part of the
 * seeded schedule), through a bitmap of the indices. */
static void wake_arrived(const sim_rendezvous *rv, uint32_t n) {
  uint64_t *bits = G->wake_bits;
  uint32_t lo = UINT32_MAX, hi = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t x = rv->who[i];
    bits[x / 64u] |= 1ull << (x % 64u);
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
  }
  for (uint32_t w = lo / 64u; n && w <= hi / 64u; ++w)
    for (; bits[w]; bits[w] &= bits[w] - 1u) {
      sim_fiber *f = &G->fibers[64u * w + (uint32_t)__builtin_ctzll(bits[w])];
      if (f->state == SIM_BLOCKED && f->wait_obj == rv) make_runnable(f);
    }
}

/* Everybody who arrived leaves with the join of their clocks (a barrier). */
void sim_rendezvous_complete(sim_rendezvous *rv) {
  sim_vc_rendezvous(rv->who, rv->arrived);
  const uint32_t n = rv->arrived;
  rv->arrived = 0;
  rv->generation++;
  wake_arrived(rv, n);
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
  sim_fiber *f = sim_at(site);
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
  sim_fiber *f = sim_at(site);
  if (!((mask >> f->lane) & 1u))
    sim_fault(f, site, "bar.warp.sync mask 0x%x does not include the executing lane %u", mask,
              f->lane);
  uint32_t args[1] = {mask};
  sim_rendezvous_arrive(&f->cta->warp[f->warp], (uint32_t)__builtin_popcount(mask), SIM_RV_WARP_SYNC, args, 1,
                 f, site, NULL, NULL);
}

/* barrier.cluster: arrive releases (so the thread's remote arrives land first), wait
 * acquires once every thread of the cluster arrived. */
void nvfp4_sim_cluster_arrive(uint32_t site) {
  sim_fiber *f = sim_at(site);
  if (f->cl_gen != UINT64_MAX)
    sim_fault(f, site, "barrier.cluster.arrive twice without barrier.cluster.wait");
  sim_flush_arrives(f);
  sim_vc_release(f, G->cl_cur);
  f->cl_gen = G->cl_generation;
  if (++G->cl_arrived == G->threads * G->cluster) {
    /* cl_done takes cl_cur's contents and cl_cur starts empty (components from ncomp on
     * are zero in both) */
    sim_clock *done = G->cl_cur;
    G->cl_cur = G->cl_done;
    G->cl_done = done;
    memset(G->cl_cur, 0, sizeof(sim_clock) * G->ncomp);
    G->cl_done_stamp = sim_vc_stamp();
    G->cl_arrived = 0;
    G->cl_generation++;
    sim_wake_all(&G->cl_generation);
  }
}

void nvfp4_sim_cluster_wait(uint32_t site) {
  sim_fiber *f = sim_at(site);
  if (f->cl_gen == UINT64_MAX)
    sim_fault(f, site, "barrier.cluster.wait without a preceding barrier.cluster.arrive");
  while (G->cl_generation == f->cl_gen)
    sim_block(f, SIM_WAIT_CLUSTER, &G->cl_generation, f->cl_gen, site);
  sim_vc_acquire(f, G->cl_done, G->cl_done_stamp);
  f->cl_gen = UINT64_MAX;
}

/* tcgen05.fence::after_thread_sync: the thread's later tcgen05 operations are ordered after
 * its earlier synchronisation; ::before_thread_sync: its earlier tcgen05.ld reads are
 * released by its later synchronisation; fence.proxy.async.shared::cta: the thread's
 * earlier generic shared-memory writes become visible to the async proxy once this point is
 * ordered before the reader (its clock is recorded). The mbarrier-init fence is not
 * modelled (cpusim/README.md). */
void nvfp4_sim_fence(uint32_t kind, uint32_t site) {
  sim_fiber *f = sim_at(site);
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
    sim_vc_set(f, f->comp_ld, f->ld_clock++);
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

/* nvfp4_sim_smem_base, nvfp4_sim_dyn_smem: addr.c (the CTA bits of shared addresses) */

void nvfp4_sim_smem_access(uint32_t addr, uint32_t bytes, uint32_t write, uint32_t site) {
  sim_fiber *f = sim_at(site);
  sim_epoch e = sim_epoch_thread(f, SIM_ACC_GENERIC, site);
  if (bytes <= 16 && (bytes & (bytes - 1)) == 0 && addr % (bytes ? bytes : 1))
    sim_fault(f, site, "misaligned %u-byte shared-memory access at 0x%x", bytes, addr);
  const uint32_t off = sim_smem_own(addr, f, site, write ? "shared-memory store" : "shared-memory load");
  if (write) sim_smem_write(f->cta, off, bytes, &e, f->vc, f);
  else sim_smem_read(f->cta, off, bytes, &e, f->vc, f, false);
}

/* ---- a resident cluster ------------------------------------------------------------------- */

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
    for (uint32_t i = 0; c->smem && i < SIM_SMEM_WINDOW / 8; ++i)
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

static void setup_cta(sim_cta *c, uint32_t r, uint32_t clusterid) {
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
  c->gd_waited = c->gd_launched = false;
  memcpy(c->params, G->params, G->param_bytes);
}

static void setup_fiber(sim_fiber *f, uint32_t i) {
  void *stack = f->stack;
  sim_clock *vc = f->vc, *vc_tc = f->vc_tc, *px = f->px_clk;
  uint32_t px_cap = f->px_cap;
  memset(f, 0, sizeof *f);
  f->stack = stack;
  f->vc = vc;
  f->vc_tc = vc_tc;
  f->px_clk = px;
  f->px_cap = px_cap;
  memset(vc, 0, sizeof(sim_clock) * G->vc_high);
  memset(vc_tc, 0, sizeof(sim_clock) * G->vc_high);
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

/* Starts cluster `clusterid` in the slot G. */
static void setup_cluster(uint32_t clusterid) {
  G->clusterid = clusterid;
  G->rng = G->opts->schedule_seed * 0x2545F4914F6CDD1Dull + clusterid * 0x9E3779B97F4A7C15ull + 1;
  G->now = 0;
  if (G->ncomp > G->vc_high) G->vc_high = G->ncomp; /* the last cluster's components */
  free_cluster_state();
  G->nops = 0;
  G->npending = 0;
  G->cl_arrived = 0;
  G->cl_generation = 0;
  const uint32_t T = G->threads * G->cluster;
  G->ncomp = T;
  memset(G->comps, 0, sizeof *G->comps * G->vc_high);
  for (uint32_t i = 0; i < T; ++i) {
    G->comps[i].kind = SIM_ACC_GENERIC;
    G->comps[i].fiber = (uint16_t)i;
  }
  memset(G->cl_cur, 0, sizeof(sim_clock) * G->vc_high);
  memset(G->cl_done, 0, sizeof(sim_clock) * G->vc_high);
  G->cl_done_stamp = sim_vc_stamp();
  for (uint32_t r = 0; r < G->cluster; ++r) setup_cta(&G->cta[r], r, clusterid);
  for (uint32_t i = 0; i < T; ++i) setup_fiber(&G->fibers[i], i);
  G->nfibers = T;
  G->nrun = 0;
  for (uint32_t i = 0; i < T; ++i) make_runnable(&G->fibers[i]);
  G->busy = true;
}

/* A slot for one resident cluster: its CTAs' memories and shadows, fibers and clocks. */
static sim_state *slot_new(const sim_state *proto) {
  sim_state *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  *s = *proto;
  const uint32_t T = s->threads * s->cluster;
  s->comps = calloc(s->capcomp, sizeof *s->comps);
  s->fibers = calloc(T, sizeof *s->fibers);
  s->runq = calloc(T, sizeof *s->runq);
  s->cl_cur = calloc(s->capcomp, sizeof(sim_clock));
  s->cl_done = calloc(s->capcomp, sizeof(sim_clock));
  s->mma_scratch = aligned_alloc(64, sizeof *s->mma_scratch);
  s->vc_tmp = malloc(sizeof(sim_clock) * s->capcomp);
  s->vc_mark = calloc(s->capcomp, sizeof(uint32_t));
  s->vc_list = malloc(sizeof(uint32_t) * s->capcomp);
  s->wake_bits = calloc((T + 63u) / 64u, sizeof(uint64_t));
  s->vc_classes = calloc(SIM_VC_CLASSES, sizeof *s->vc_classes);
  bool ok = s->comps && s->fibers && s->runq && s->cl_cur && s->cl_done && s->mma_scratch &&
            s->vc_tmp && s->vc_mark && s->vc_list && s->wake_bits && s->vc_classes;
  for (uint32_t r = 0; ok && r < SIM_MAX_CTAS; ++r) {
    sim_cta *c = &s->cta[r];
    c->smem = aligned_alloc(1024, SIM_SMEM_WINDOW + 1024);
    c->tmem = malloc(NVFP4_EMU_TMEM_BYTES_PER_CTA);
    c->smem_shadow = malloc(sizeof(sim_shadow) * SIM_CHUNKS);
    c->tmem_shadow = malloc(sizeof(sim_shadow) * SIM_TMEM_CELLS);
    c->params = aligned_alloc(NVFP4_ABI_PARAM_ALIGN,
                              (s->param_bytes + NVFP4_ABI_PARAM_ALIGN - 1) /
                                  NVFP4_ABI_PARAM_ALIGN * NVFP4_ABI_PARAM_ALIGN);
    ok = c->smem && c->tmem && c->smem_shadow && c->tmem_shadow && c->params;
  }
  /* one block each for the stacks and the clocks: fewer system calls and page faults */
  s->stacks = ok ? sim_fiber_stacks_alloc(T, SIM_STACK_BYTES) : NULL;
  s->vc_pool = ok ? calloc((size_t)2 * T * s->capcomp, sizeof(sim_clock)) : NULL;
  ok = ok && s->stacks && s->vc_pool;
  for (uint32_t i = 0; ok && i < T; ++i) {
    s->fibers[i].stack = sim_fiber_stack_at(s->stacks, i, SIM_STACK_BYTES);
    s->fibers[i].vc = s->vc_pool + (size_t)2 * i * s->capcomp;
    s->fibers[i].vc_tc = s->fibers[i].vc + s->capcomp;
  }
  if (!ok) s->aborted = true; /* slot_free releases what was allocated */
  return s;
}

static void slot_free(sim_state *s) {
  if (!s) return;
  nvfp4sim_g = s;
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
      free(s->fibers[i].px_clk);
    }
  sim_fiber_stacks_free(s->stacks, s->threads * s->cluster, SIM_STACK_BYTES);
  free(s->vc_pool);
  free(s->fibers);
  free(s->runq);
  free(s->ops);
  free(s->pending);
  free(s->comps);
  free(s->cl_cur);
  free(s->cl_done);
  free(s->mma_scratch);
  free(s->vc_tmp);
  free(s->vc_mark);
  free(s->vc_list);
  free(s->wake_bits);
  free(s->vc_classes);
  free(s);
  nvfp4sim_g = NULL;
}

/* ---- the host-signal guard ---------------------------------------------------------------- */

/* A SIGSEGV, SIGBUS, SIGFPE or SIGILL raised by a simulated thread (a kernel access the
 * simulator does not check, a fiber stack overflow) ends the launch with a FAULT report naming
 * the thread and its last simulator call, instead of killing the host process. Signals of
 * other threads, or outside a fiber, go to the handlers that were installed before. */
enum { SIM_NSIGNALS = 4 };
static const int kGuardedSignals[SIM_NSIGNALS] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction g_old_actions[SIM_NSIGNALS];
static pthread_t g_launch_thread;
static void *g_alt_stack;
static stack_t g_old_alt;
#define SIM_ALT_STACK_BYTES (64u * 1024u)

static void on_host_signal(int sig, siginfo_t *info, void *uctx) {
  (void)uctx;
  sim_fiber *f = nvfp4sim_g ? nvfp4sim_g->current : NULL;
  if (!f || !pthread_equal(pthread_self(), g_launch_thread)) {
    for (uint32_t i = 0; i < SIM_NSIGNALS; ++i) /* not ours: the previous handler decides */
      if (kGuardedSignals[i] == sig) sigaction(sig, &g_old_actions[i], NULL);
    return;
  }
  G->aborted = true;
  G->result->outcome = NVFP4SIM_FAULT;
  char who[64];
  snprintf(who, sizeof who, "%s", sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS"
                                  : sig == SIGFPE ? "SIGFPE" : "SIGILL");
  sim_report_signal(f, who, info ? info->si_addr : NULL);
  f->state = SIM_BLOCKED; /* never resumed */
  f->wait = SIM_WAIT_NONE;
  siglongjmp(g_abort_jmp, 1);
}

static void guard_install(void) {
  g_launch_thread = pthread_self();
  g_alt_stack = malloc(SIM_ALT_STACK_BYTES);
  if (g_alt_stack) {
    stack_t ss = {.ss_sp = g_alt_stack, .ss_size = SIM_ALT_STACK_BYTES, .ss_flags = 0};
    if (sigaltstack(&ss, &g_old_alt) != 0) {
      free(g_alt_stack);
      g_alt_stack = NULL;
    }
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_host_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (uint32_t i = 0; i < SIM_NSIGNALS; ++i) sigaction(kGuardedSignals[i], &sa, &g_old_actions[i]);
}

static void guard_remove(void) {
  for (uint32_t i = 0; i < SIM_NSIGNALS; ++i) sigaction(kGuardedSignals[i], &g_old_actions[i], NULL);
  if (g_alt_stack) {
    sigaltstack(&g_old_alt, NULL);
    free(g_alt_stack);
    g_alt_stack = NULL;
  }
}

/* ---- the launch ------------------------------------------------------------------------------ */

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

/* The order in which clusters are admitted (nvfp4sim_cluster_order). */
static uint32_t *admission_order(uint32_t clusters, const nvfp4sim_options *o) {
  uint32_t *order = malloc(sizeof(uint32_t) * (clusters ? clusters : 1));
  if (!order) return NULL;
  for (uint32_t i = 0; i < clusters; ++i)
    order[i] = o->cluster_order == NVFP4SIM_CLUSTERS_REVERSE ? clusters - 1 - i : i;
  if (o->cluster_order == NVFP4SIM_CLUSTERS_SHUFFLED) {
    uint64_t x = o->schedule_seed * 0xD1342543DE82EF95ull + 0x632BE59BD9B4E019ull;
    for (uint32_t i = clusters; i > 1; --i) { /* Fisher-Yates */
      x ^= x >> 29;
      x *= 0xBF58476D1CE4E5B9ull;
      x ^= x >> 32;
      const uint32_t j = (uint32_t)(x % i), t = order[i - 1];
      order[i - 1] = order[j];
      order[j] = t;
    }
  }
  return order;
}

/* Runs every cluster: up to `nslots` resident at once, a random one stepping a random
 * number of times in turn; a finished cluster's slot takes the next in `order`. Stops at
 * a fault or deadlock (hazards: every cluster still runs). */
static void schedule(sim_launch *L, sim_state **slots, uint32_t nslots, const uint32_t *order) {
  uint32_t next = 0, live = 0;
  for (uint32_t w = 0; w < nslots && next < L->clusters; ++w, ++live) {
    nvfp4sim_g = slots[w];
    setup_cluster(order[next++]);
  }
  while (live) {
    uint32_t pick = launch_rand_below(L, live), w = 0;
    for (uint32_t seen = 0;; ++w)
      if (slots[w]->busy && seen++ == pick) break;
    nvfp4sim_g = slots[w];
    int st = SIM_STEP_RAN;
    for (uint32_t n = 1 + launch_rand_below(L, 32); n-- && st == SIM_STEP_RAN;) st = cluster_step();
    if (st == SIM_STEP_STOP) return;
    if (st != SIM_STEP_DONE) continue;
    L->result->clusters++;
    if (next < L->clusters) setup_cluster(order[next++]);
    else {
      G->busy = false;
      live--;
    }
  }
}

/* schedule(), left through g_abort_jmp by a fault outside a fiber or a host signal. */
static void run_clusters(sim_launch *L, sim_state **slots, uint32_t nslots, const uint32_t *order) {
  if (sigsetjmp(g_abort_jmp, 1)) {
    if (nvfp4sim_g) nvfp4sim_g->current = NULL;
    return;
  }
  schedule(L, slots, nslots, order);
}

/* Clusters resident at once: the option, or 2..4 drawn from the seed (never more than the
 * grid has). */
static uint32_t resident_clusters(const nvfp4sim_options *o, uint32_t clusters) {
  uint32_t n = o->resident ? o->resident : 2u + (uint32_t)((o->schedule_seed / 3u) % 3u);
  if (n > SIM_MAX_RESIDENT) n = SIM_MAX_RESIDENT;
  return n < clusters ? n : (clusters ? clusters : 1);
}

static void launch_fail(nvfp4sim_result *result, const char *msg) {
  result->outcome = NVFP4SIM_ERROR;
  if (msg != result->message) snprintf(result->message, sizeof result->message, "%s", msg);
}

/* Runs the grid with the slots made; sums their statistics into `result`. */
static void run_grid(sim_launch *L, sim_state **slots, uint32_t nslots, const nvfp4sim_options *o) {
  uint32_t *order = admission_order(L->clusters, o);
  if (!order) {
    launch_fail(L->result, "launch: out of host memory");
    return;
  }
  double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
  if (!o->no_signal_guard) guard_install();
  run_clusters(L, slots, nslots, order);
  if (!o->no_signal_guard) guard_remove();
  free(order);
  nvfp4sim_result *result = L->result;
  result->wall_ms = clock_ms(CLOCK_MONOTONIC) - t0;
  result->cpu_ms = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
  for (uint32_t w = 0; w < nslots; ++w) {
    const sim_stats *st = &slots[w]->stats;
    result->hazards += st->hazards;
    result->switches += st->switches;
    result->async_ops += st->async_ops;
    result->mma_ops += st->mma;
    result->tma_ops += st->tma;
    result->griddep_wait_ctas += st->gd_wait_ctas;
    result->griddep_launch_ctas += st->gd_launch_ctas;
  }
  if (result->outcome == NVFP4SIM_OK && result->hazards) result->outcome = NVFP4SIM_HAZARD;
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
  if (nwritable && !writable) {
    launch_fail(result, "launch: writable ranges count without an array");
    return result->outcome;
  }
  nvfp4sim_options defaults;
  memset(&defaults, 0, sizeof defaults);
  const nvfp4sim_options *o = options ? options : &defaults;
  sim_launch L;
  memset(&L, 0, sizeof L);
  L.result = result;
  L.opts = o;
  L.clusters = grid / cluster;
  L.rng = o->schedule_seed * 0x94D049BB133111EBull + 0x2545F4914F6CDD1Dull;
  static const uint32_t late_pct[3] = {0, 12, 33}; /* eager, mixed, lazy */
  L.late_pct = late_pct[o->schedule_seed % 3];
  sim_state proto;
  memset(&proto, 0, sizeof proto);
  proto.launch = &L;
  proto.meta = meta;
  proto.plan = plan;
  proto.kernel = kernel;
  proto.opts = o;
  proto.params = params;
  proto.param_bytes = meta->param_bytes;
  proto.grid = grid;
  proto.cluster = cluster;
  proto.threads = threads;
  proto.ranges = writable;
  proto.nranges = nwritable;
  proto.result = result;
  proto.profile = (uint32_t)(o->schedule_seed % 3);
  proto.capcomp = 2 * threads * cluster + 128; /* threads, their tcgen05.ld reads, the agents */
  const uint32_t nslots = resident_clusters(o, L.clusters);
  sim_state *slots[SIM_MAX_RESIDENT] = {0};
  bool ok = sim_global_setup(&L, writable, nwritable, o->readable, o->num_readable);
  for (uint32_t w = 0; ok && w < nslots; ++w) ok = (slots[w] = slot_new(&proto)) && !slots[w]->aborted;
  if (!ok) launch_fail(result, result->message[0] ? result->message : "launch: out of host memory");
  else run_grid(&L, slots, nslots, o);
  for (uint32_t w = 0; w < nslots; ++w) slot_free(slots[w]);
  sim_global_free(&L);
  nvfp4sim_g = NULL;
  return result->outcome;
}
