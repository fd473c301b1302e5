/* hazard.c — the ordering checker: vector clocks over the simulated threads and the
 * asynchronous agents, shadow state of shared memory (16-byte cells) and Tensor Memory
 * ((lane quarter, column) cells), and the reports.
 *
 * Happens-before, not timing: an access conflicts with an earlier one unless the earlier
 * one is ordered before it — for a thread's access, through the synchronisation the
 * accessing thread observed (mbarrier phases, bar.sync, barrier.cluster, warp
 * collectives); for an asynchronous operation, through the observation of its completion
 * (a tcgen05.commit's mbarrier arrive for tcgen05.mma / .cp, the complete_tx of every byte
 * of a TMA load, cp.async.bulk.wait_group for TMA stores, tcgen05.wait::ld for tcgen05.ld)
 * — or by the PTX ISA's implicit pipelining (tcgen05.mma -> tcgen05.mma on the same
 * accumulator and shape, tcgen05.cp -> tcgen05.mma, both issued by one thread). So a
 * hazard is found whatever the schedule happened to complete first. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define G nvfp4sim_g

/* ---- vector clocks ---------------------------------------------------------------------- */

sim_clock *sim_vc_new(void) { return calloc(G->capcomp, sizeof(sim_clock)); }

void sim_vc_join(sim_clock *dst, const sim_clock *src) {
  const uint32_t n = G->ncomp;
  /* branch-free, so that it vectorises (warp collectives join 32 clocks each) */
  for (uint32_t i = 0; i < n; ++i) dst[i] = src[i] > dst[i] ? src[i] : dst[i];
}

/* sim_vc_join, telling whether dst changed */
static bool vc_join_changed(sim_clock *dst, const sim_clock *src) {
  const uint32_t n = G->ncomp;
  uint32_t changed = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const sim_clock d = dst[i], s = src[i];
    changed |= s > d;
    dst[i] = s > d ? s : d;
  }
  return changed != 0;
}

void sim_vc_release(sim_fiber *f, sim_clock *into) {
  sim_vc_join(into, f->vc);
  f->vc[f->index]++;
}

/* Clock classes. Threads leave a rendezvous with one clock (but for their own components),
 * and mostly go on the same way: each ticks its own component, threads of one class
 * acquire the same released clocks, a thread raises a few agent components of its own.
 * A class records that, so that the next rendezvous of the class joins only the
 * components that can differ — the participants' own ones and those in their vc_dirty
 * lists — instead of whole clocks; the clocks that result are the same, component by
 * component. The invariant: threads of one non-zero class have equal clocks outside their
 * own components and their vc_dirty components. It holds because
 *   - a rendezvous gives all its participants one fresh class (their clocks are the join,
 *     each with its own component ticked), and the only writes to a thread's clock are
 *   - ticks of its own component (no change of class),
 *   - sim_vc_raise / sim_vc_set of one foreign component: listed in vc_dirty (or, the list
 *     full, the class dropped to 0),
 *   - sim_vc_acquire of a released clock: unchanged, or joined with contents that `stamp`
 *     names; threads of class C that join the contents S move to the class that the cache
 *     maps (C, S) to, a fresh number on a miss, so two threads share the new class only when
 *     both were of C and joined equal contents (joins keep the equality outside the own and
 *     dirty components). */
uint64_t sim_vc_stamp(void) { return ++G->vc_serial; }

static void vc_touch(sim_fiber *f, uint32_t comp) {
  if (comp == f->index || !f->vc_class) return;
  for (uint32_t i = 0; i < f->vc_ndirty; ++i)
    if (f->vc_dirty[i] == comp) return;
  if (f->vc_ndirty == SIM_VC_DIRTY) f->vc_class = 0;
  else f->vc_dirty[f->vc_ndirty++] = (uint16_t)comp;
}

void sim_vc_raise(sim_fiber *f, uint32_t comp, sim_clock v) {
  if (f->vc[comp] >= v) return;
  f->vc[comp] = v;
  vc_touch(f, comp);
}

void sim_vc_set(sim_fiber *f, uint32_t comp, sim_clock v) {
  if (f->vc[comp] == v) return;
  f->vc[comp] = v;
  vc_touch(f, comp);
}

void sim_vc_acquire(sim_fiber *f, const sim_clock *from, uint64_t stamp) {
  if (!vc_join_changed(f->vc, from) || !f->vc_class) return;
  if (!stamp) {
    f->vc_class = 0;
    return;
  }
  const uint32_t h = (uint32_t)((f->vc_class * 0x9E3779B97F4A7C15ull ^ stamp) % SIM_VC_CLASSES);
  struct sim_vc_class *x = &G->vc_classes[h];
  if (x->from != f->vc_class || x->stamp != stamp) {
    x->from = f->vc_class;
    x->stamp = stamp;
    x->to = ++G->vc_serial;
  }
  f->vc_class = x->to;
}

/* Whether f's clock may differ from its class's common clock at component c. */
static bool vc_special(const sim_fiber *f, uint32_t c) {
  if (c == f->index) return true;
  for (uint32_t d = 0; d < f->vc_ndirty; ++d)
    if (f->vc_dirty[d] == c) return true;
  return false;
}

/* The rendezvous of one class. Outside the participants' own components (the range
 * [lo, hi] of their indices) and their dirty components, every participant holds the
 * class's common value: the join there is that value, already in every clock. So the
 * join is built on [lo, hi] and the dirty components only: a participant's clock (ref,
 * the first) gives the common values where it is not special itself; where it is, the
 * next participants' values are folded in up to one that is not (and so brings the common
 * value); then every participant's own and dirty values. Those components are written
 * into every participant. False (nothing done) when the participants are not of one
 * class. */
static bool rendezvous_of_class(const uint16_t *who, uint32_t n) {
  const uint64_t cls = n ? G->fibers[who[0]].vc_class : 0;
  if (!cls) return false;
  uint32_t lo = UINT32_MAX, hi = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const sim_fiber *f = &G->fibers[who[i]];
    if (f->vc_class != cls) return false;
    lo = f->index < lo ? f->index : lo;
    hi = f->index > hi ? f->index : hi;
  }
  if (++G->vc_epoch == 0) { /* the marks wrapped: clear them */
    memset(G->vc_mark, 0, sizeof(uint32_t) * G->capcomp);
    G->vc_epoch = 1;
  }
  uint32_t nlist = 0; /* the dirty components outside [lo, hi], once each */
  for (uint32_t i = 0; i < n; ++i) {
    const sim_fiber *f = &G->fibers[who[i]];
    for (uint32_t d = 0; d < f->vc_ndirty; ++d) {
      const uint32_t c = f->vc_dirty[d];
      if ((c < lo || c > hi) && G->vc_mark[c] != G->vc_epoch) {
        G->vc_mark[c] = G->vc_epoch;
        G->vc_list[nlist++] = c;
      }
    }
  }
  sim_clock *max = G->vc_tmp;
  const uint32_t *list = G->vc_list;
  const sim_fiber *ref = &G->fibers[who[0]];
  memcpy(max + lo, ref->vc + lo, sizeof *max * (hi - lo + 1u));
  for (uint32_t l = 0; l < nlist; ++l) max[list[l]] = ref->vc[list[l]];
  for (uint32_t d = 0; d <= ref->vc_ndirty; ++d) {
    const uint32_t c = d < ref->vc_ndirty ? ref->vc_dirty[d] : ref->index;
    for (uint32_t i = 1; i < n; ++i) {
      const sim_fiber *f = &G->fibers[who[i]];
      max[c] = f->vc[c] > max[c] ? f->vc[c] : max[c];
      if (!vc_special(f, c)) break;
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    const sim_fiber *f = &G->fibers[who[i]];
    for (uint32_t d = 0; d <= f->vc_ndirty; ++d) {
      const uint32_t c = d < f->vc_ndirty ? f->vc_dirty[d] : f->index;
      max[c] = f->vc[c] > max[c] ? f->vc[c] : max[c];
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    sim_fiber *f = &G->fibers[who[i]];
    memcpy(f->vc + lo, max + lo, sizeof *max * (hi - lo + 1u));
    for (uint32_t l = 0; l < nlist; ++l) f->vc[list[l]] = max[list[l]];
    f->vc[f->index] = max[f->index] + 1;
  }
  return true;
}

void sim_vc_rendezvous(const uint16_t *who, uint32_t n) {
  if (!rendezvous_of_class(who, n)) {
    sim_clock *tmp = G->vc_tmp;
    memset(tmp, 0, sizeof *tmp * G->ncomp);
    for (uint32_t i = 0; i < n; ++i) sim_vc_join(tmp, G->fibers[who[i]].vc);
    for (uint32_t i = 0; i < n; ++i) {
      sim_fiber *f = &G->fibers[who[i]];
      memcpy(f->vc, tmp, sizeof *tmp * G->ncomp);
      f->vc[f->index] = tmp[f->index] + 1;
    }
  }
  const uint64_t cls = ++G->vc_serial;
  for (uint32_t i = 0; i < n; ++i) {
    G->fibers[who[i]].vc_class = cls;
    G->fibers[who[i]].vc_ndirty = 0;
  }
}

const sim_clock *sim_tc_view(sim_fiber *f) {
  f->vc_tc[f->index] = f->vc[f->index];
  return f->vc_tc;
}

uint16_t sim_comp_new(uint32_t kind, sim_fiber *f, uint32_t bar) {
  if (G->ncomp >= G->capcomp) sim_fault(f, 0, "more than %u asynchronous agents", G->capcomp);
  sim_comp *c = &G->comps[G->ncomp];
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->fiber = (uint16_t)f->index;
  c->bar = bar;
  c->cta = (uint8_t)f->cta->rank;
  return (uint16_t)G->ncomp++;
}

uint16_t sim_comp_tma(sim_fiber *f, uint32_t bar) {
  for (uint32_t i = G->threads * G->cluster; i < G->ncomp; ++i) {
    const sim_comp *c = &G->comps[i];
    if (c->kind == SIM_ACC_TMA_LOAD && c->fiber == f->index && c->bar == bar) return (uint16_t)i;
  }
  return sim_comp_new(SIM_ACC_TMA_LOAD, f, bar);
}

void sim_comp_complete(uint16_t comp, uint32_t seq) {
  sim_comp *c = &G->comps[comp];
  if (seq <= c->prefix) return;
  uint32_t bit = seq - c->prefix - 1;
  if (bit >= 256) sim_fault(NULL, 0, "more than 256 asynchronous operations of one agent in flight");
  c->window[bit / 64] |= 1ull << (bit % 64);
  while (c->window[0] & 1u) {
    for (int i = 0; i < 4; ++i)
      c->window[i] = (c->window[i] >> 1) | (i < 3 ? c->window[i + 1] << 63 : 0);
    c->prefix++;
  }
}

bool sim_hb(const sim_epoch *e, const sim_clock *vc) {
  return e->kind == SIM_ACC_NONE || vc[e->comp] >= e->clk;
}

sim_epoch sim_epoch_thread(sim_fiber *f, uint32_t kind, uint32_t site) {
  sim_epoch e = {(uint16_t)f->index, (uint16_t)f->index, f->vc[f->index], site, 0,
                 (uint8_t)kind, (uint8_t)f->cta->rank, 0};
  return e;
}

/* ---- descriptions ------------------------------------------------------------------------- */

const char *sim_site_text(uint32_t site) {
  const sim_plan *p = G->plan;
  return site < p->nsites && p->sites[site] ? p->sites[site] : "?";
}

const char *sim_role(uint32_t warp) {
  const sim_plan *p = G->plan;
  static const char *const names[SIM_ROLES] = {
      "epilogue", "TMA producer", "MMA issuer", "consumer: decode, wgmma, epilogue",
      "token decoder", "consumer: ldmatrix, mma.sync, epilogue"};
  for (int r = 0; r < SIM_ROLES; ++r)
    if (warp >= p->role_first[r] && warp <= p->role_last[r]) return names[r];
  return "?";
}

static void describe_fiber(const sim_fiber *f, char *out, size_t size) {
  if (!f) {
    snprintf(out, size, "asynchronous completion");
    return;
  }
  snprintf(out, size, "CTA %u (cluster %u rank %u) warp %u lane %u (%s)", f->cta->ctaid,
           f->cta->clusterid, f->cta->rank, f->warp, f->lane, sim_role(f->warp));
}

static const sim_named_range *find_range(const sim_named_range *r, uint32_t n, uint32_t x,
                                         uint32_t *copy) {
  for (uint32_t i = 0; i < n; ++i)
    if (x >= r[i].offset && x < r[i].offset + r[i].bytes) {
      *copy = r[i].stride ? (x - r[i].offset) / r[i].stride : 0;
      return &r[i];
    }
  return NULL;
}

/* the 1024-aligned base of the kernel's shared-memory plan */
static uint32_t plan_base(void) { return (SIM_DYN_SMEM_BASE + 1023u) & ~1023u; }

void sim_describe_smem(const sim_cta *c, uint32_t addr, char *out, size_t size) {
  const sim_plan *p = G->plan;
  uint32_t copy = 0, x = addr - plan_base();
  const sim_named_range *r = addr >= plan_base() ? find_range(p->smem, p->nsmem, x, &copy) : NULL;
  if (!r) {
    snprintf(out, size, "CTA %u shared 0x%x", c->ctaid, addr);
    return;
  }
  int n = snprintf(out, size, "CTA %u shared 0x%x = %s", c->ctaid, addr, r->name);
  if (r->copies > 1 && n > 0 && (size_t)n < size) n += snprintf(out + n, size - n, "[%u]", copy);
  if (!strcmp(r->name, "stage") && n > 0 && (size_t)n < size) {
    uint32_t in = (x - r->offset) % r->stride, pc = 0;
    const sim_named_range *part = find_range(p->parts, p->nparts, in, &pc);
    if (part) n += snprintf(out + n, size - n, " %s", part->name);
  }
}

void sim_describe_tmem(uint32_t col, char *out, size_t size) {
  const sim_plan *p = G->plan;
  uint32_t copy = 0;
  const sim_named_range *r = find_range(p->tmem, p->ntmem, col, &copy);
  if (!r) {
    snprintf(out, size, "TMEM column %u", col);
    return;
  }
  if (r->copies > 1) snprintf(out, size, "TMEM column %u = %s[%u]", col, r->name, copy);
  else snprintf(out, size, "TMEM column %u = %s", col, r->name);
}

void sim_describe_bar(const sim_cta *c, uint32_t addr, char *out, size_t size) {
  const sim_plan *p = G->plan;
  uint32_t x = addr - plan_base();
  for (uint32_t i = 0; i < p->nbars; ++i) {
    const sim_named_range *b = &p->bars[i];
    if (addr >= plan_base() && x >= b->offset && x < b->offset + 8u * b->bytes) {
      snprintf(out, size, "mbarrier %s[%u] (CTA %u shared 0x%x)", b->name, (x - b->offset) / 8,
               c->ctaid, addr);
      return;
    }
  }
  snprintf(out, size, "mbarrier at CTA %u shared 0x%x", c->ctaid, addr);
}

void sim_describe_access(const sim_epoch *e, char *out, size_t size) {
  if (e->kind == SIM_ACC_NONE) {
    snprintf(out, size, "nothing");
    return;
  }
  char who[128];
  describe_fiber(e->fiber < G->nfibers ? &G->fibers[e->fiber] : NULL, who, sizeof who);
  snprintf(out, size, "%s (site %u) issued by %s", sim_site_text(e->site), e->site, who);
}

/* ---- reports ------------------------------------------------------------------------------- */

static FILE *log_file(void) { return G->opts && G->opts->log ? G->opts->log : stderr; }

static void vreport(const char *what, const char *kind, sim_fiber *f, uint32_t site, bool print,
                    const char *fmt, va_list ap) {
  char msg[1400], who[160];
  vsnprintf(msg, sizeof msg, fmt, ap);
  describe_fiber(f, who, sizeof who);
  if (!G->result->message[0])
    snprintf(G->result->message, sizeof G->result->message,
             "%s %s: %.120s: %.60s (site %u): %.260s", what, kind, who, sim_site_text(site), site,
             msg);
  if (!print) return;
  fprintf(log_file(), "nvfp4-sim: %s %s: %s: %s (site %u): %s\n", what, kind, who,
          sim_site_text(site), site, msg);
}

void sim_report_key(uint64_t key, const char *kind, sim_fiber *f, uint32_t site, const char *fmt, ...) {
  sim_launch *L = G->launch;
  G->stats.hazards++;
  bool seen = false;
  for (uint32_t i = 0; i < L->nkeys; ++i) seen = seen || L->report_keys[i] == key;
  if (!seen && L->nkeys < sizeof L->report_keys / sizeof L->report_keys[0])
    L->report_keys[L->nkeys++] = key;
  uint32_t limit = G->opts && G->opts->max_reports ? G->opts->max_reports : 10;
  bool print = !seen && L->reported < limit;
  if (print) L->reported++;
  va_list ap;
  va_start(ap, fmt);
  vreport("HAZARD", kind, f, site, print, fmt, ap);
  va_end(ap);
}

void sim_report(const char *kind, sim_fiber *f, uint32_t site, const char *fmt, ...) {
  char msg[1400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  uint64_t key = 1469598103934665603ull;
  for (const char *k = kind; *k; ++k) key = (key ^ (unsigned char)*k) * 1099511628211ull;
  key = (key ^ site) * 1099511628211ull;
  sim_report_key(key, kind, f, site, "%s", msg);
}

/* The fault report of a host signal raised by thread f (its last simulator call named). */
void sim_report_signal(sim_fiber *f, const char *sig, const void *addr) {
  char who[160];
  describe_fiber(f, who, sizeof who);
  FILE *out = log_file();
  fprintf(out, "nvfp4-sim: FAULT host-signal: %s: %s at address %p in kernel code after "
               "%s (site %u): an access the simulator does not check (a wild pointer, or a "
               "simulated thread's stack overflow); the launch stops\n",
          who, sig, addr, sim_site_text(f->site), f->site);
  if (!G->result->message[0])
    snprintf(G->result->message, sizeof G->result->message,
             "FAULT host-signal: %.120s: %s at address %p after site %u", who, sig, addr, f->site);
}

void sim_fault(sim_fiber *f, uint32_t site, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("FAULT", "illegal-operation", f, site, true, fmt, ap);
  va_end(ap);
  G->aborted = true;
  G->result->outcome = NVFP4SIM_FAULT;
  sim_abort_launch();
}

/* ---- shared memory -------------------------------------------------------------------------- */

static const char *access_kind(uint32_t kind) {
  switch (kind) {
  case SIM_ACC_GENERIC: return "generic access";
  case SIM_ACC_TMA_LOAD: return "TMA load";
  case SIM_ACC_TMA_STORE: return "TMA store";
  case SIM_ACC_MMA: return "tcgen05.mma";
  case SIM_ACC_CP: return "tcgen05.cp";
  case SIM_ACC_LD: return "tcgen05.ld";
  default: return "access";
  }
}

static uint64_t pair_key(uint32_t kind, uint32_t a, uint32_t b) {
  return ((uint64_t)kind << 56) ^ ((uint64_t)a << 28) ^ b;
}

static void check_bounds(sim_cta *c, uint32_t addr, uint32_t bytes, sim_fiber *f, uint32_t site) {
  const uint32_t lo = SIM_DYN_SMEM_BASE, hi = SIM_DYN_SMEM_BASE + G->meta->dyn_smem_bytes;
  if (addr < lo || bytes > hi || addr > hi - bytes)
    sim_fault(f, site, "shared memory [0x%x, 0x%x) of CTA %u lies outside its %u bytes of dynamic "
                       "shared memory at [0x%x, 0x%x)",
              addr, addr + bytes, c->ctaid, G->meta->dyn_smem_bytes, lo, hi);
}

void sim_smem_write(sim_cta *c, uint32_t addr, uint32_t bytes, const sim_epoch *e,
                    const sim_clock *by, sim_fiber *f) {
  check_bounds(c, addr, bytes, f, e->site);
  bool reported = false;
  for (uint32_t ch = addr / SIM_CHUNK; ch <= (addr + bytes - 1) / SIM_CHUNK; ++ch) {
    sim_shadow *s = &c->smem_shadow[ch];
    for (int i = 0; i < SIM_MAX_READERS && !reported; ++i) {
      const sim_epoch *r = &s->r[i];
      if (r->kind == SIM_ACC_NONE || sim_hb(r, by) || (r->op && r->op == e->op)) continue;
      char where[160], other[320];
      sim_describe_smem(c, ch * SIM_CHUNK, where, sizeof where);
      sim_describe_access(r, other, sizeof other);
      sim_report_key(pair_key(1, e->site, r->site), "smem-write-during-async-read", f, e->site,
                     "%s writes %s while %s %s still reads it (its completion is not ordered "
                     "before this write: no commit / wait covering it was observed)",
                     access_kind(e->kind), where, access_kind(r->kind), other);
      reported = true;
    }
    if (!reported && s->w.kind == SIM_ACC_TMA_LOAD && !sim_hb(&s->w, by) &&
        !(s->w.op && s->w.op == e->op)) {
      char where[160], other[320];
      sim_describe_smem(c, ch * SIM_CHUNK, where, sizeof where);
      sim_describe_access(&s->w, other, sizeof other);
      sim_report_key(pair_key(2, e->site, s->w.site), "smem-write-during-async-write", f, e->site,
                     "%s writes %s while TMA load %s may still write it", access_kind(e->kind),
                     where, other);
      reported = true;
    }
    s->w = *e;
    s->wfence = e->kind == SIM_ACC_GENERIC && f ? f->px_n : 0;
    memset(s->r, 0, sizeof s->r);
  }
}

/* A generic write seen by an async-proxy reader: the writing thread's first
 * fence.proxy.async after the write must be ordered before the read (PTX ISA, "Proxies"). */
static bool proxy_fenced(const sim_shadow *s, const sim_clock *by) {
  const sim_epoch *w = &s->w;
  if (w->comp >= G->nfibers) return true;
  const sim_fiber *wf = &G->fibers[w->comp];
  return wf->px_n > s->wfence && by[w->comp] >= wf->px_clk[s->wfence];
}

static void add_reader(sim_shadow *s, const sim_epoch *e) {
  int slot = SIM_MAX_READERS - 1;
  for (int i = 0; i < SIM_MAX_READERS; ++i)
    if (s->r[i].kind == SIM_ACC_NONE || (s->r[i].comp == e->comp && s->r[i].kind == e->kind)) {
      slot = i;
      break;
    }
  s->r[slot] = *e;
}

void sim_smem_read(sim_cta *c, uint32_t addr, uint32_t bytes, const sim_epoch *e,
                   const sim_clock *by, sim_fiber *f, bool record) {
  check_bounds(c, addr, bytes, f, e->site);
  bool reported = false;
  const bool async = e->kind != SIM_ACC_GENERIC;
  for (uint32_t ch = addr / SIM_CHUNK; ch <= (addr + bytes - 1) / SIM_CHUNK; ++ch) {
    sim_shadow *s = &c->smem_shadow[ch];
    const sim_epoch *w = &s->w;
    if (!reported && w->kind != SIM_ACC_NONE && !sim_hb(w, by) &&
        (w->kind == SIM_ACC_TMA_LOAD || (async && w->kind == SIM_ACC_GENERIC))) {
      char where[160], other[320];
      sim_describe_smem(c, ch * SIM_CHUNK, where, sizeof where);
      sim_describe_access(w, other, sizeof other);
      sim_report_key(pair_key(3, e->site, w->site), "smem-read-before-write-visible", f, e->site,
                     "%s reads %s written by %s %s, whose completion was not observed before "
                     "(no mbarrier phase / barrier ordering the write before this read)",
                     access_kind(e->kind), where, access_kind(w->kind), other);
      reported = true;
    }
    if (!reported && async && w->kind == SIM_ACC_GENERIC && !proxy_fenced(s, by)) {
      char where[160], other[320];
      sim_describe_smem(c, ch * SIM_CHUNK, where, sizeof where);
      sim_describe_access(w, other, sizeof other);
      sim_report_key(pair_key(4, e->site, w->site), "smem-async-read-without-proxy-fence", f,
                     e->site,
                     "%s (async proxy) reads %s written by generic access %s, and no "
                     "fence.proxy.async of the writing thread after that write is ordered "
                     "before this read",
                     access_kind(e->kind), where, other);
      reported = true;
    }
    if (record) add_reader(s, e);
  }
}

/* ---- Tensor Memory ------------------------------------------------------------------------- */

/* The PTX ISA's pipelined pairs: tcgen05.mma -> tcgen05.mma (same accumulator, shape and
 * cta_group) and tcgen05.cp -> tcgen05.mma (same cta_group), issued by one thread. */
static bool pipelined(const sim_epoch *first, const sim_epoch *then) {
  if (first->comp != then->comp || then->kind != SIM_ACC_MMA) return false;
  if (first->kind == SIM_ACC_CP) return true;
  return first->kind == SIM_ACC_MMA && first->extra == then->extra;
}

static void describe_cols(uint32_t col, uint32_t n, char *out, size_t size) {
  char a[96];
  sim_describe_tmem(col, a, sizeof a);
  snprintf(out, size, "%s (%u column%s)", a, n, n == 1 ? "" : "s");
}

void sim_tmem_write(sim_cta *c, uint32_t col, uint32_t ncols, uint32_t quarters,
                    const sim_epoch *e, const sim_clock *by, sim_fiber *f) {
  bool reported = false;
  for (uint32_t q = 0; q < 4; ++q) {
    if (!(quarters & (1u << q))) continue;
    for (uint32_t x = col; x < col + ncols && x < NVFP4_EMU_TMEM_COLUMNS; ++x) {
      sim_shadow *s = &c->tmem_shadow[q * NVFP4_EMU_TMEM_COLUMNS + x];
      for (int i = 0; i < SIM_MAX_READERS && !reported; ++i) {
        const sim_epoch *r = &s->r[i];
        if (r->kind == SIM_ACC_NONE || sim_hb(r, by) || pipelined(r, e)) continue;
        char where[160], other[320];
        describe_cols(col, ncols, where, sizeof where);
        sim_describe_access(r, other, sizeof other);
        const bool ld = r->kind == SIM_ACC_LD;
        sim_report_key(pair_key(4, e->site, r->site),
                       ld ? "tmem-overwrite-during-ld" : "tmem-overwrite-during-mma-read", f, e->site,
                       "%s overwrites CTA %u %s (lanes %u..%u) while %s %s still reads them (%s)",
                       access_kind(e->kind), c->ctaid, where, 32 * q, 32 * q + 31,
                       access_kind(r->kind), other,
                       ld ? "the accumulator was released before its tcgen05.ld completed"
                          : "no tcgen05.commit covering that MMA was observed; the ISA does not "
                            "order this pair");
        reported = true;
      }
      const sim_epoch *w = &s->w;
      if (!reported && w->kind != SIM_ACC_NONE && w->kind != SIM_ACC_ALLOC && !sim_hb(w, by) &&
          !pipelined(w, e)) {
        char where[160], other[320];
        describe_cols(col, ncols, where, sizeof where);
        sim_describe_access(w, other, sizeof other);
        sim_report_key(pair_key(5, e->site, w->site), "tmem-overwrite-during-async-write", f,
                       e->site, "%s overwrites CTA %u %s while %s %s may still write them",
                       access_kind(e->kind), c->ctaid, where, access_kind(w->kind), other);
        reported = true;
      }
      s->w = *e;
      memset(s->r, 0, sizeof s->r);
    }
  }
}

void sim_tmem_read(sim_cta *c, uint32_t col, uint32_t ncols, uint32_t quarters,
                   const sim_epoch *e, const sim_clock *by, sim_fiber *f) {
  bool reported = false;
  for (uint32_t q = 0; q < 4; ++q) {
    if (!(quarters & (1u << q))) continue;
    for (uint32_t x = col; x < col + ncols && x < NVFP4_EMU_TMEM_COLUMNS; ++x) {
      sim_shadow *s = &c->tmem_shadow[q * NVFP4_EMU_TMEM_COLUMNS + x];
      const sim_epoch *w = &s->w;
      if (!reported && w->kind != SIM_ACC_NONE && w->kind != SIM_ACC_ALLOC && !sim_hb(w, by) &&
          !pipelined(w, e)) {
        char where[160], other[320];
        describe_cols(col, ncols, where, sizeof where);
        sim_describe_access(w, other, sizeof other);
        const bool ld = e->kind == SIM_ACC_LD;
        sim_report_key(pair_key(6, e->site, w->site),
                       ld ? "tmem-read-before-commit" : "tmem-read-before-write-visible", f, e->site,
                       "%s reads CTA %u %s (lanes %u..%u) written by %s %s before %s",
                       access_kind(e->kind), c->ctaid, where, 32 * q, 32 * q + 31,
                       access_kind(w->kind), other,
                       ld ? "the tcgen05.commit covering it was observed through its mbarrier"
                          : "that write is ordered before this read");
        reported = true;
      }
      add_reader(s, e);
    }
  }
}

void sim_tmem_check_quiet(sim_cta *c, uint32_t col, uint32_t ncols, const sim_clock *by,
                          sim_fiber *f, uint32_t site) {
  for (uint32_t q = 0; q < 4; ++q)
    for (uint32_t x = col; x < col + ncols && x < NVFP4_EMU_TMEM_COLUMNS; ++x) {
      sim_shadow *s = &c->tmem_shadow[q * NVFP4_EMU_TMEM_COLUMNS + x];
      const sim_epoch *outstanding = NULL;
      if (s->w.kind != SIM_ACC_NONE && s->w.kind != SIM_ACC_ALLOC && !sim_hb(&s->w, by))
        outstanding = &s->w;
      for (int i = 0; i < SIM_MAX_READERS && !outstanding; ++i)
        if (s->r[i].kind != SIM_ACC_NONE && !sim_hb(&s->r[i], by)) outstanding = &s->r[i];
      if (!outstanding) continue;
      char where[160], other[320];
      describe_cols(x, 1, where, sizeof where);
      sim_describe_access(outstanding, other, sizeof other);
      sim_report_key(pair_key(7, site, outstanding->site), "dealloc-with-outstanding-access", f,
                     site, "tcgen05.dealloc frees CTA %u %s while %s %s is not known complete",
                     c->ctaid, where, access_kind(outstanding->kind), other);
      return;
    }
}
