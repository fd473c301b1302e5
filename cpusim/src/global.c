/* global.c — global memory on the CPU target: the host ranges a launch may touch
 * (writable: the C buffers and the workspace; readable: the inputs), the checks of every
 * generic global access (alignment, range), the shadow of the writable ranges (per 4-byte
 * cell its last writer: cluster, thread, vector-clock component and clock, site), and
 * happens-before across CTAs.
 *
 * Within a cluster a thread's vector clock says what is ordered before it. Across clusters
 * the only synchronisation is through global memory: a release (the release store, the
 * atomic add) records its thread's clock as a snapshot in the location's release sequence
 * (a store starts the sequence anew, an atomic add extends it); an acquire (the acquire
 * load, the atomic add) records a token in its cluster — the acquiring thread, its clock
 * just after the acquire, and the snapshots it synchronized with. A store by cluster X is
 * ordered before an access by thread R of cluster Y (X != Y) when some token of Y that R's
 * clock covers leads to a snapshot of X whose clock covers the store — directly, or through
 * snapshots of clusters in between and their own tokens (transitivity). So a store that is
 * not ordered before the release publishing it (a missing barrier between the partial sums
 * and the atomic add), or a read not ordered after the acquire, is reported whatever the
 * interleaving of the clusters was. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define G nvfp4sim_g
#define CELLS_PER_PAGE 4096u /* 16 KiB of memory per shadow page */

/* ---- ranges ------------------------------------------------------------------------------- */

static int by_lo(const void *a, const void *b) {
  const sim_grange *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

static bool add_ranges(sim_launch *L, const nvfp4sim_range *r, uint32_t n, bool writable) {
  for (uint32_t i = 0; i < n; ++i) {
    const uintptr_t lo = (uintptr_t)r[i].base;
    if (!r[i].bytes) continue;
    if (!lo || r[i].bytes > UINTPTR_MAX - lo) {
      snprintf(L->result->message, sizeof L->result->message,
               "launch: %s range %u (base %p, %zu bytes) is null or wraps around",
               writable ? "writable" : "readable", i, r[i].base, r[i].bytes);
      return false;
    }
    sim_grange *g = &L->ranges[L->nranges++];
    g->lo = lo;
    g->hi = lo + r[i].bytes;
    g->name = r[i].name;
    g->index = i;
    g->writable = writable;
    g->npages = writable ? (r[i].bytes / 4 + CELLS_PER_PAGE) / CELLS_PER_PAGE : 0;
    g->pages = g->npages ? calloc(g->npages, sizeof *g->pages) : NULL;
    if (g->npages && !g->pages) {
      snprintf(L->result->message, sizeof L->result->message, "launch: out of host memory");
      return false;
    }
  }
  return true;
}

bool sim_global_setup(sim_launch *L, const nvfp4sim_range *writable, uint32_t nwritable,
                      const nvfp4sim_range *readable, uint32_t nreadable) {
  if ((nwritable && !writable) || (nreadable && !readable)) {
    snprintf(L->result->message, sizeof L->result->message,
             "launch: a range count without its array");
    return false;
  }
  L->ranges = calloc((size_t)nwritable + nreadable + 1, sizeof *L->ranges);
  L->token_head = calloc(L->clusters + 1u, sizeof *L->token_head);
  L->capsyncs = 64;
  L->syncs = calloc(L->capsyncs, sizeof *L->syncs);
  if (!L->ranges || !L->token_head || !L->syncs) {
    snprintf(L->result->message, sizeof L->result->message, "launch: out of host memory");
    return false;
  }
  if (!add_ranges(L, writable, nwritable, true) || !add_ranges(L, readable, nreadable, false))
    return false;
  qsort(L->ranges, L->nranges, sizeof *L->ranges, by_lo);
  L->check_loads = nreadable > 0;
  return true;
}

void sim_global_free(sim_launch *L) {
  for (uint32_t i = 0; L->ranges && i < L->nranges; ++i) {
    for (size_t p = 0; p < L->ranges[i].npages; ++p) free(L->ranges[i].pages[p]);
    free(L->ranges[i].pages);
  }
  free(L->ranges);
  for (uint32_t i = 0; L->syncs && i < L->capsyncs; ++i) free(L->syncs[i].snaps);
  free(L->syncs);
  for (uint32_t i = 0; i < L->nsnaps; ++i) free(L->snaps[i].vc);
  free(L->snaps);
  free(L->tokens);
  free(L->token_head);
  free(L->refs);
  memset(L, 0, sizeof *L);
}

/* The range holding [p, p + n), or NULL (the innermost when ranges nest). */
const sim_grange *sim_global_range(uintptr_t p, uint32_t n) {
  const sim_launch *L = G->launch;
  uint32_t lo = 0, hi = L->nranges; /* first range with lo > p */
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (L->ranges[mid].lo <= p) lo = mid + 1;
    else hi = mid;
  }
  for (uint32_t i = lo; i-- > 0;) {
    const sim_grange *r = &L->ranges[i];
    if (p < r->hi && n <= r->hi - p) return r;
  }
  return NULL;
}

static void describe_global(const sim_grange *r, uintptr_t p, char *out, size_t size) {
  if (!r) {
    snprintf(out, size, "global %p", (void *)p);
    return;
  }
  if (r->name)
    snprintf(out, size, "%s + 0x%llx (global %p)", r->name, (unsigned long long)(p - r->lo),
             (void *)p);
  else
    snprintf(out, size, "%s range %u + 0x%llx (global %p)", r->writable ? "writable" : "readable",
             r->index, (unsigned long long)(p - r->lo), (void *)p);
}

/* ---- happens-before across clusters -------------------------------------------------------- */

static bool snap_covers(sim_launch *L, uint32_t s, const sim_gcell *w);

/* Whether a token of `cluster` that the clock `vc` (ncomp components) covers leads to a
 * snapshot covering the store w. */
static bool tokens_cover(sim_launch *L, uint32_t cluster, const sim_clock *vc, uint32_t ncomp,
                         const sim_gcell *w) {
  for (uint32_t t = L->token_head[cluster]; t; t = L->tokens[t - 1].next) {
    const sim_token *k = &L->tokens[t - 1];
    if (k->comp >= ncomp || vc[k->comp] < k->clk) continue;
    for (uint32_t i = 0; i < k->count; ++i)
      if (snap_covers(L, L->refs[k->first + i], w)) return true;
  }
  return false;
}

static bool snap_covers(sim_launch *L, uint32_t s, const sim_gcell *w) {
  sim_snap *S = &L->snaps[s];
  if (S->stamp == L->stamp) return false; /* already searched from here */
  S->stamp = L->stamp;
  if (S->cluster + 1u == w->cluster1) return w->comp < S->ncomp && S->vc[w->comp] >= w->clk;
  return tokens_cover(L, S->cluster, S->vc, S->ncomp, w);
}

/* Whether the store w is ordered before an access of the cluster in G with clock `by`. */
static bool ordered(const sim_gcell *w, const sim_clock *by) {
  if (w->cluster1 == G->clusterid + 1u) return w->comp < G->ncomp && by[w->comp] >= w->clk;
  sim_launch *L = G->launch;
  L->stamp++;
  return tokens_cover(L, G->clusterid, by, G->ncomp, w);
}

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint32_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *g = realloc(*p, elem * c);
  if (!g) return false;
  *p = g;
  *cap = c;
  return true;
}

/* The release sequence of `addr` (created when `make`). */
static sim_sync *sync_at(sim_launch *L, uintptr_t addr, bool make) {
  if (make && 2u * (L->nsyncs + 1u) > L->capsyncs) {
    sim_sync *old = L->syncs;
    uint32_t oldcap = L->capsyncs;
    sim_sync *g = calloc(2u * oldcap, sizeof *g);
    if (!g) sim_fault(G->current, 0, "out of host memory");
    L->syncs = g;
    L->capsyncs = 2u * oldcap;
    for (uint32_t i = 0; i < oldcap; ++i)
      if (old[i].addr) {
        uint32_t h = (uint32_t)((old[i].addr >> 2) * 0x9E3779B1u) & (L->capsyncs - 1u);
        while (L->syncs[h].addr) h = (h + 1u) & (L->capsyncs - 1u);
        L->syncs[h] = old[i];
      }
    free(old);
  }
  uint32_t h = (uint32_t)((addr >> 2) * 0x9E3779B1u) & (L->capsyncs - 1u);
  for (; L->syncs[h].addr; h = (h + 1u) & (L->capsyncs - 1u))
    if (L->syncs[h].addr == addr) return &L->syncs[h];
  if (!make) return NULL;
  L->nsyncs++;
  L->syncs[h].addr = addr;
  return &L->syncs[h];
}

/* A release by f at `addr`: a snapshot of f's clock joins (rmw) or starts (store) the
 * location's release sequence; f's later events are not in it. */
static void global_release(sim_fiber *f, uintptr_t addr, bool rmw, uint32_t site) {
  sim_launch *L = G->launch;
  sim_sync *y = sync_at(L, addr, true);
  if (!grow((void **)&L->snaps, &L->capsnaps, L->nsnaps + 1u, sizeof *L->snaps) ||
      !grow((void **)&y->snaps, &y->cap, y->n + 1u, sizeof *y->snaps))
    sim_fault(f, site, "out of host memory");
  sim_snap *s = &L->snaps[L->nsnaps];
  s->vc = malloc(sizeof(sim_clock) * G->ncomp);
  if (!s->vc) sim_fault(f, site, "out of host memory");
  memcpy(s->vc, f->vc, sizeof(sim_clock) * G->ncomp);
  s->cluster = G->clusterid;
  s->ncomp = G->ncomp;
  s->stamp = 0;
  f->vc[f->index]++;
  if (!rmw) y->n = 0;
  y->snaps[y->n++] = L->nsnaps++;
}

/* An acquire by f at `addr`: a token of f's cluster with f's clock after it. */
static void global_acquire(sim_fiber *f, uintptr_t addr, uint32_t site) {
  sim_launch *L = G->launch;
  const sim_sync *y = sync_at(L, addr, false);
  if (!y || !y->n) return; /* the value of no release: nothing to synchronize with */
  if (!grow((void **)&L->tokens, &L->captokens, L->ntokens + 1u, sizeof *L->tokens) ||
      !grow((void **)&L->refs, &L->caprefs, L->nrefs + y->n, sizeof *L->refs))
    sim_fault(f, site, "out of host memory");
  f->vc[f->index]++;
  sim_token *k = &L->tokens[L->ntokens++];
  k->cluster = G->clusterid;
  k->comp = (uint16_t)f->index;
  k->clk = f->vc[f->index];
  k->first = L->nrefs;
  k->count = y->n;
  memcpy(L->refs + L->nrefs, y->snaps, sizeof *y->snaps * y->n);
  L->nrefs += y->n;
  k->next = L->token_head[G->clusterid];
  L->token_head[G->clusterid] = L->ntokens;
}

/* ---- the shadow ----------------------------------------------------------------------------- */

static void describe_writer(const sim_gcell *w, char *out, size_t size) {
  const uint32_t cl = w->cluster1 - 1u, rank = w->fiber / G->threads, tid = w->fiber % G->threads;
  snprintf(out, size, "%s (site %u) issued by CTA %u (cluster %u rank %u) warp %u lane %u (%s)",
           sim_site_text(w->site), w->site, cl * G->cluster + rank, cl, rank, tid / 32u,
           tid % 32u, sim_role(tid / 32u));
}

static void report_unordered(const sim_grange *r, uintptr_t p, const sim_gcell *w,
                             sim_fiber *f, uint32_t site) {
  char where[200], other[360];
  describe_global(r, p, where, sizeof where);
  describe_writer(w, other, sizeof other);
  const bool remote = w->cluster1 != G->clusterid + 1u;
  sim_report_key(((uint64_t)8 << 56) ^ ((uint64_t)site << 28) ^ w->site,
                 "global-read-before-write-visible", f, site,
                 "this load reads %s, last written by %s, and nothing orders that store "
                 "before it (%s)",
                 where, other,
                 remote ? "no release of the writing CTA that this thread acquired covers the "
                          "store: the synchronisation between the store and the release, or "
                          "between the acquire and this load, is missing"
                        : "no barrier or mbarrier phase of the CTA orders them");
}

void sim_global_record(uintptr_t p, uint32_t n, bool write, sim_fiber *f, uint16_t comp,
                       uint32_t clk, uint32_t site, const sim_clock *by) {
  const sim_grange *r = sim_global_range(p, n);
  if (!r || !r->writable || !n) return; /* inputs are never written */
  const uint64_t first = (p - r->lo) / 4u, last = (p - r->lo + n - 1u) / 4u;
  bool reported = false;
  for (uint64_t c = first; c <= last; ++c) {
    sim_gcell **page = &r->pages[c / CELLS_PER_PAGE];
    if (!*page) {
      if (!write) { /* nothing written in this page yet */
        c = (c / CELLS_PER_PAGE + 1u) * CELLS_PER_PAGE - 1u;
        continue;
      }
      *page = calloc(CELLS_PER_PAGE, sizeof **page);
      if (!*page) sim_fault(f, site, "out of host memory");
    }
    sim_gcell *cell = &(*page)[c % CELLS_PER_PAGE];
    if (!write && by && !reported && cell->cluster1 && !ordered(cell, by)) {
      report_unordered(r, r->lo + c * 4u, cell, f, site);
      reported = true;
    }
    if (write) *cell = (sim_gcell){G->clusterid + 1u, (uint16_t)f->index, comp, clk, site};
  }
}

/* ---- programmatic dependent launch --------------------------------------------------------------- */

/* griddepcontrol.wait returns once the previous grid has completed and its memory is
 * visible to this grid, so an access is safe when the thread waited itself or some thread
 * of the cluster that waited released to it afterwards (a barrier): the waiter's own clock
 * ticks at the wait, and a clock covering that value was acquired from it after the wait.
 * Once ordered, a thread stays ordered. */
void nvfp4_sim_griddep(uint32_t kind, uint32_t site) {
  sim_fiber *f = sim_at(site);
  if (kind == NVFP4_SIM_GRIDDEP_LAUNCH_DEPENDENTS) {
    /* the first execution in a CTA lets the dependent grid be scheduled; later ones do
     * nothing, and a CTA that exits without one counts as having executed it */
    if (!f->cta->gd_launched) G->stats.gd_launch_ctas++;
    f->cta->gd_launched = true;
    return;
  }
  if (kind != NVFP4_SIM_GRIDDEP_WAIT) sim_fault(f, site, "griddepcontrol action %u", kind);
  if (!f->cta->gd_waited) G->stats.gd_wait_ctas++;
  f->cta->gd_waited = true;
  f->vc[f->index]++;
  f->gd_wait_clk = f->vc[f->index];
  f->gd_ordered = true;
}

void sim_griddep_check(sim_fiber *f, uintptr_t p, const char *what, uint32_t site) {
  if (f->gd_ordered || !(G->meta->flags & NVFP4_META_FLAG_PDL)) return;
  for (uint32_t i = 0; i < G->nfibers; ++i) {
    const sim_fiber *w = &G->fibers[i];
    if (w->gd_wait_clk && f->vc[w->index] >= w->gd_wait_clk) {
      f->gd_ordered = true;
      return;
    }
  }
  char where[200];
  describe_global(sim_global_range(p, 1), p, where, sizeof where);
  sim_report("global-access-before-griddep-wait", f, site,
             "%s %s, and no griddepcontrol.wait of the cluster is ordered before it: the "
             "kernel is launched with programmatic stream serialization "
             "(NVFP4_META_FLAG_PDL), so the previous grid may still be running and writing "
             "(or reading) that memory",
             what, where);
}

/* ---- the entry points -------------------------------------------------------------------------- */

static uint32_t natural_alignment(uint32_t bytes) {
  uint32_t a = 1;
  while (a < 16u && bytes % (2u * a) == 0) a *= 2u;
  return a;
}

/* Faults on a misaligned access, a store outside the writable ranges and (with readable
 * ranges) a load outside every range; returns the range. */
static const sim_grange *check_access(sim_fiber *f, uintptr_t p, uint32_t bytes, uint32_t align,
                                      bool write, uint32_t site) {
  const char *what = write ? "store" : "load";
  if (!align) align = natural_alignment(bytes);
  if (align & (align - 1u))
    sim_fault(f, site, "generic global %s with an alignment of %u bytes (not a power of two)",
              what, align);
  if (p % align)
    sim_fault(f, site, "misaligned %u-byte global %s at %p: the instruction needs %u-byte "
                       "alignment (the address is %u past it)",
              bytes, what, (void *)p, align, (unsigned)(p % align));
  const sim_grange *r = sim_global_range(p, bytes);
  if (write && (!r || !r->writable)) {
    char where[200];
    describe_global(r, p, where, sizeof where);
    sim_fault(f, site, "generic %u-byte global store at %p outside every output buffer%s%s",
              bytes, (void *)p, r ? ": into the read-only " : "", r ? where : "");
  }
  if (!write && !r && G->launch->check_loads)
    sim_fault(f, site, "generic %u-byte global load at %p outside every buffer of the launch",
              bytes, (void *)p);
  return r;
}

void nvfp4_sim_global_access(void *ptr, uint32_t bytes, uint32_t align, uint32_t write,
                             uint32_t site) {
  sim_fiber *f = sim_at(site);
  const uintptr_t p = (uintptr_t)ptr;
  if (!bytes) return;
  sim_griddep_check(f, p, write ? "this store writes" : "this load reads", site);
  if (check_access(f, p, bytes, align, write != 0, site))
    sim_global_record(p, bytes, write != 0, f, (uint16_t)f->index, f->vc[f->index], site, f->vc);
}

void nvfp4_sim_global_store(void *ptr, uint32_t bytes, uint32_t site) {
  nvfp4_sim_global_access(ptr, bytes, 1, 1, site);
}

void nvfp4_sim_global_release_u32(uint64_t addr, uint32_t value, uint32_t site) {
  sim_fiber *f = sim_at(site);
  sim_griddep_check(f, (uintptr_t)addr, "this release store writes", site);
  check_access(f, (uintptr_t)addr, 4, 4, true, site);
  sim_maybe_yield();
  __atomic_store_n((uint32_t *)(uintptr_t)addr, value, __ATOMIC_RELEASE);
  global_release(f, (uintptr_t)addr, false, site);
}

uint32_t nvfp4_sim_global_acquire_u32(uint64_t addr, uint32_t site) {
  sim_fiber *f = sim_at(site);
  sim_griddep_check(f, (uintptr_t)addr, "this acquire load reads", site);
  check_access(f, (uintptr_t)addr, 4, 4, false, site);
  sim_maybe_yield();
  const uint32_t v = __atomic_load_n((const uint32_t *)(uintptr_t)addr, __ATOMIC_ACQUIRE);
  global_acquire(f, (uintptr_t)addr, site);
  return v;
}

uint32_t nvfp4_sim_global_atomic_add_u32(uint64_t addr, uint32_t value, uint32_t site) {
  sim_fiber *f = sim_at(site);
  sim_griddep_check(f, (uintptr_t)addr, "this atomic add updates", site);
  check_access(f, (uintptr_t)addr, 4, 4, true, site);
  sim_maybe_yield();
  const uint32_t old = __atomic_fetch_add((uint32_t *)(uintptr_t)addr, value, __ATOMIC_ACQ_REL);
  global_acquire(f, (uintptr_t)addr, site);
  global_release(f, (uintptr_t)addr, true, site);
  return old;
}
