/* internal.h — private state of the CTA simulator (libnvfp4sim): fibers, CTAs, the
 * clusters resident at once (each a sim_state: its CTAs, mbarriers, rendezvous objects
 * (bar.sync, warp collectives, cluster barrier), asynchronous-operation queue and vector
 * clocks), the launch they belong to (sim_launch: report bookkeeping and the global-memory
 * checker of global.c) and the shadow state of the hazard detector. Everything runs on the
 * calling host thread; the scheduler interleaves the resident clusters. */
#ifndef NVFP4SIM_INTERNAL_H
#define NVFP4SIM_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nvfp4_emu_core.h"
#include "nvfp4_sim.h"
#include "nvfp4sim.h"

#define SIM_SMEM_WINDOW (256u * 1024u)   /* shared::cta window (the core's 18-bit addresses) */
#define SIM_DYN_SMEM_BASE 16u            /* where the dynamic array starts (not 1024-aligned) */
#define SIM_MAX_CTAS 2u                  /* CTAs of one cluster */
#define SIM_MAX_RESIDENT 8u              /* clusters simulated at once */
#define SIM_MAX_THREADS 1024u            /* per CTA */
#define SIM_CHUNK 16u                    /* bytes per shared-memory shadow cell */
#define SIM_CHUNKS (SIM_SMEM_WINDOW / SIM_CHUNK)
#define SIM_TMEM_CELLS (4u * NVFP4_EMU_TMEM_COLUMNS) /* (lane quarter, column) shadow cells */
#define SIM_MAX_READERS 4
#define SIM_MAX_LDS 16                   /* tcgen05.ld outstanding per thread before a wait */
#define SIM_MAX_DEPS 96
#define SIM_STACK_BYTES (128u * 1024u)
#define SIM_ROLES 6                      /* warp roles a plan can name (sim_plan) */
#define SIM_VC_DIRTY 8                   /* foreign clock components tracked per class member */
#define SIM_VC_CLASSES 64                /* (class, released clock) -> class cache entries */

/* ---- plan text (the planner's tables of a variant, the site table) ------------------ */

typedef struct sim_named_range {
  uint32_t offset, bytes, copies, stride; /* stride 0: one copy */
  char name[32];
} sim_named_range;

typedef struct sim_plan {
  char kernel[64], variant[32];
  uint32_t threads, cluster, dyn_smem;
  /* warps of each role: epilogue, producer, mma, consumer (sm_90a), decoder, consumer
   * (sm_120a: ldmatrix, mma.sync, epilogue) */
  uint32_t role_first[SIM_ROLES], role_last[SIM_ROLES];
  sim_named_range smem[16], parts[4], bars[8], tmem[8];
  uint32_t nsmem, nparts, nbars, ntmem;
  char **sites; /* site id -> "what detail" */
  uint32_t nsites;
} sim_plan;

/* ---- vector clocks ------------------------------------------------------------------ */

/* Components: one per simulated thread of the cluster, then asynchronous "agents" handed
 * out on first use (a thread's tcgen05 queue, a thread's TMA loads into one mbarrier, a
 * thread's TMA stores (reads of shared memory)). Values only grow. */
typedef uint32_t sim_clock;

typedef struct sim_epoch {
  uint16_t comp;     /* component; 0xFFFF: none */
  uint16_t fiber;    /* issuing thread (for reports) */
  uint32_t clk;
  uint32_t site;
  uint32_t op;       /* async op id, or 0 */
  uint8_t kind;      /* SIM_ACC_* */
  uint8_t cta;       /* CTA rank of the issuing thread */
  uint16_t extra;    /* pipelining key (tcgen05: d column + cta group) */
} sim_epoch;

enum {
  SIM_ACC_NONE = 0, SIM_ACC_GENERIC, SIM_ACC_TMA_LOAD, SIM_ACC_TMA_STORE, SIM_ACC_MMA,
  SIM_ACC_CP, SIM_ACC_LD, SIM_ACC_ALLOC
};

/* An asynchronous agent's bookkeeping: numbers handed out, and the prefix of them known to
 * be complete (a window of completions beyond it). */
typedef struct sim_comp {
  uint32_t kind;       /* SIM_ACC_* (SIM_ACC_GENERIC: a thread) */
  uint16_t fiber;
  uint32_t bar;        /* TMA loads: the mbarrier address */
  uint8_t cta;
  uint32_t seq;        /* last number handed out */
  uint32_t prefix;     /* 1..prefix complete */
  uint64_t window[4];  /* bit i: prefix + 1 + i complete */
} sim_comp;

typedef struct sim_shadow {
  sim_epoch w;
  sim_epoch r[SIM_MAX_READERS];
  uint32_t wfence;     /* a generic write: its thread's fence.proxy.async count before it */
} sim_shadow;

/* ---- waits, mbarriers, rendezvous ------------------------------------------------------ */

enum { SIM_RUNNABLE = 0, SIM_BLOCKED, SIM_DONE };
enum { SIM_WAIT_NONE = 0, SIM_WAIT_MBAR, SIM_WAIT_RENDEZVOUS, SIM_WAIT_CLUSTER, SIM_WAIT_BULK };

typedef struct sim_mbar {
  bool init;
  uint32_t addr;     /* shared address */
  uint32_t count;    /* arrivals per phase */
  uint32_t pending;  /* arrivals left in the current phase */
  int64_t tx;        /* tx-count of the current phase */
  uint32_t phase;    /* number of completed phases */
  sim_clock *cur;    /* join of this phase's releases by the barrier's own CTA */
  sim_clock *done;   /* the last completed phase's */
  sim_clock *cur_remote, *done_remote; /* the same for releases by the other CTA */
  uint64_t done_stamp, done_remote_stamp; /* identity of done's / done_remote's contents */
  int32_t remote_cur, remote_done;     /* rank of such a releaser, -1: none */
  uint32_t last_site;
} sim_mbar;

typedef struct sim_rendezvous {
  uint32_t arrived, expected;
  uint64_t generation;
  uint32_t kind, site;
  uint32_t args[4];
  uint32_t red[2]; /* bar.red.or: the OR of generation g's predicates in red[g & 1] */
  uint16_t who[64 * 32]; /* fibers arrived (cluster thread index) */
} sim_rendezvous;

/* ---- asynchronous operations ------------------------------------------------------------ */

enum { SIM_OP_TMA_LOAD = 1, SIM_OP_TMA_STORE_READ, SIM_OP_TMA_STORE_WRITE, SIM_OP_CP, SIM_OP_MMA,
       SIM_OP_COMMIT, SIM_OP_ARRIVE /* a remote mbarrier arrive (shared::cluster) */ };

typedef struct sim_tmap {
  uint32_t data_type, swizzle, oob_fill, elem_bits;
  uint64_t base;
  uint64_t dims[2], stride;
  uint32_t box[2];
} sim_tmap;

typedef struct sim_op {
  uint32_t id, kind, site;
  uint16_t fiber;
  uint8_t cta, cta_group;
  uint64_t due;
  bool done;
  bool late;          /* completes only when no thread of its cluster can run (the latest
                         point a schedule may choose) */
  uint32_t deps[SIM_MAX_DEPS];
  uint32_t ndeps;
  uint32_t seq;       /* number within its component (tcgen05 queue / TMA loads / stores) */
  uint16_t comp;      /* the component of that number */
  /* TMA */
  sim_tmap map;
  int32_t x, y;
  uint32_t smem, bar, bytes, rows_done, piece_rows;
  uint8_t dst_cta;
  uint8_t bar_cta;    /* TMA load: the CTA of its mbarrier (.cta_group::2: the pair's even CTA) */
  uint8_t *staging;   /* TMA store: the box read from shared memory */
  uint32_t group;     /* TMA store: bulk group */
  /* tcgen05 */
  uint32_t d, idesc, enable, sfa, sfb, mask;
  uint64_t adesc, bdesc;
  uint32_t covers;    /* commit: the tcgen05 queue number it covers */
  sim_clock *release; /* commit, remote arrive: the issuer's clock at the issue (a release) */
} sim_op;

/* ---- threads, CTAs, the cluster ---------------------------------------------------------- */

typedef struct sim_ld {
  uint32_t *dst;
  uint32_t taddr, num, site;
} sim_ld;

#define SIM_WGMMA_SITES 64 /* wgmma instructions tracked per thread (more: hashed) */

typedef struct sim_fiber {
  void *sp;
  void *stack;
  uint32_t index;     /* thread of the cluster (vector-clock component) */
  uint32_t tid, warp, lane;
  struct sim_cta *cta;
  int state;
  int wait;           /* SIM_WAIT_* */
  const void *wait_obj;
  uint64_t wait_gen;
  uint32_t wait_parity, wait_site;
  sim_clock *vc;
  sim_clock *vc_tc;   /* what tcgen05 ops may rely on: vc at the last fence::after_thread_sync */
  uint16_t comp_ld;   /* this thread's tcgen05.ld reads (0xFFFF: none yet) */
  uint32_t ld_clock;  /* their current generation; fence::before_thread_sync publishes it */
  sim_ld ld[SIM_MAX_LDS];
  uint32_t nld;
  /* bulk groups of TMA stores: committed groups 1..committed, the open one after */
  uint32_t bulk_committed, bulk_open_ops;
  uint32_t bulk_group_last[64];             /* group g: its last store's number (g % 64) */
  uint16_t comp_tc, comp_bulk;              /* async components (0xFFFF: none yet) */
  uint64_t cl_gen;                          /* barrier.cluster generation arrived in */
  uint32_t tc_seq, bulk_seq;
  uint32_t tc_open[SIM_MAX_DEPS];           /* tcgen05 ops of this thread not yet complete */
  uint32_t ntc_open;
  /* sm_90a (wgmma.c): the operands of a warpgroup MMA / stmatrix this thread brings to the
   * collective, and its committed wgmma groups (the agent number of each group's last MMA) */
  float *wg_acc;
  uint32_t wg_a[4], wg_last_seq, wg_groups[16], wg_ncommit;
  /* the last issue of each wgmma instruction (site) by this thread: its agent number, for
   * the check that its A registers are not redefined while it is in flight */
  uint32_t wg_site[SIM_WGMMA_SITES], wg_site_seq[SIM_WGMMA_SITES];
  uint32_t st_addr, st_r[4];
  /* sm_120a (mma_sync.c): the operands this thread brings to the warp collective it waits in
   * (ldmatrix, the block-scaled mma.sync), read by the lane that completes it */
  const void *warp_op;
  /* fence.proxy.async: the thread's clock at each of its fences, in order (an async-proxy
   * read of a generic write needs the writer's first fence after it to be ordered before) */
  sim_clock *px_clk;
  uint32_t px_n, px_cap;
  uint32_t site;      /* the site of its last simulator call (fault reports) */
  /* griddepcontrol.wait (global.c): this thread's own clock just after its wait (0: it has
   * not waited), and whether some thread's wait is known to be ordered before it */
  uint32_t gd_wait_clk;
  bool gd_ordered;
  /* The clock's class (hazard.c): threads of one non-zero class have clocks equal in every
   * component but their own ones and the foreign components listed in vc_dirty (0: no
   * such knowledge). A rendezvous of one class joins only those components. */
  uint64_t vc_class;
  uint16_t vc_dirty[SIM_VC_DIRTY];
  uint32_t vc_ndirty;
} sim_fiber;

typedef struct sim_cta {
  uint32_t rank, ctaid, clusterid;
  uint8_t *smem;
  uint32_t *tmem;
  nvfp4_emu_alloc_state alloc;
  bool allocated, deallocated;
  uint32_t alloc_col, alloc_cols;
  sim_mbar *mbar[SIM_SMEM_WINDOW / 8];
  sim_rendezvous bar[16];      /* bar.sync ids */
  sim_rendezvous warp[32];     /* warp collectives */
  sim_rendezvous pair;         /* cta_group::2 alloc/dealloc/relinquish (leader's object) */
  sim_rendezvous wg[8];        /* warpgroup collectives (wgmma.mma_async) */
  uint16_t comp_wg[8];         /* a warpgroup's wgmma agent component + 1 (0: none yet) */
  sim_shadow *smem_shadow;     /* SIM_CHUNKS cells */
  sim_shadow *tmem_shadow;     /* SIM_TMEM_CELLS cells */
  uint32_t threads, exited;
  uint8_t *params;             /* this CTA's copy of the parameter block */
  bool gd_waited, gd_launched; /* a thread executed griddepcontrol.wait / launch_dependents */
} sim_cta;

typedef struct sim_stats {
  uint64_t switches, async_ops, mma, tma, hazards;
  uint32_t gd_wait_ctas, gd_launch_ctas; /* CTAs with a griddepcontrol.wait / launch_dependents */
} sim_stats;

typedef struct sim_launch sim_launch;

/* One resident cluster (and the launch's read-only facts, copied into every one). */
typedef struct sim_state {
  sim_launch *launch;
  const nvfp4_kernel_metadata *meta;
  const sim_plan *plan;
  void (*kernel)(void *);
  const nvfp4sim_options *opts;
  const uint8_t *params;
  uint32_t param_bytes;
  uint32_t grid, cluster, threads;  /* CTAs in the grid, CTAs per cluster, threads per CTA */
  uint32_t clusterid;
  const nvfp4sim_range *ranges;
  uint32_t nranges;
  /* the cluster being simulated */
  sim_cta cta[SIM_MAX_CTAS];
  sim_fiber *fibers;
  uint32_t nfibers;
  void *stacks;                     /* the fibers' stacks (one mapping) */
  sim_clock *vc_pool;               /* the fibers' vc and vc_tc, capcomp components each */
  uint32_t vc_high;                 /* the most components a cluster of this slot used: the
                                       components from there on are zero in every clock
                                       of the slot (fresh from calloc, never written) */
  sim_fiber *current;
  sim_fiber **runq;                 /* runnable fibers */
  uint32_t nrun;
  bool busy;                        /* a cluster occupies this slot */
  void *sched_sp;
  uint64_t rng;
  uint32_t profile;                 /* schedule profile of the seed (delays) */
  uint64_t now;
  /* barrier.cluster */
  uint32_t cl_arrived;
  uint64_t cl_generation;
  sim_clock *cl_cur, *cl_done;      /* the join of this generation's / the last one's releases */
  uint64_t cl_done_stamp;           /* identity of cl_done's contents */
  /* async ops */
  sim_op *ops;
  uint32_t nops, capops;
  uint32_t *pending;
  uint32_t npending, cappending;
  /* vector-clock components (threads first, then the async agents) */
  uint32_t ncomp, capcomp;
  sim_comp *comps;
  /* clock classes and content stamps (hazard.c): one counter hands out both, never reset
   * while the slot lives, so a number names one class or one content for good */
  uint64_t vc_serial;
  struct sim_vc_class { uint64_t from, stamp, to; } *vc_classes; /* SIM_VC_CLASSES entries */
  sim_clock *vc_tmp;                /* capcomp: a rendezvous's join */
  uint32_t *vc_mark, vc_epoch;      /* capcomp: components already listed in vc_list */
  uint32_t *vc_list;                /* capcomp: the components a rendezvous joins */
  uint64_t *wake_bits;              /* a bit per thread, all clear between uses (sim.c) */
  /* outcome */
  nvfp4sim_result *result;
  bool aborted, deadlocked;
  sim_stats stats;
  nvfp4_emu_mma_scratch *mma_scratch;
} sim_state;

/* ---- the launch -------------------------------------------------------------------------- */

/* A host-memory range the kernel may access with generic global loads (and, writable,
 * stores); a writable range has a shadow (global.c) of 4-byte cells, paged lazily. */
typedef struct sim_gcell {
  uint32_t cluster1;  /* writer's cluster + 1; 0: not written during this launch */
  uint16_t fiber;     /* writer thread (cluster thread index) */
  uint16_t comp;      /* its vector-clock component in that cluster (thread or agent) */
  uint32_t clk;
  uint32_t site;
} sim_gcell;

typedef struct sim_grange {
  uintptr_t lo, hi;   /* [lo, hi) */
  const char *name;   /* the caller's name, or NULL */
  uint32_t index;     /* in the caller's array */
  bool writable;
  sim_gcell **pages;
  size_t npages;
} sim_grange;

/* A release at a global location, as its thread's vector clock in its cluster's space. */
typedef struct sim_snap {
  uint32_t cluster, ncomp;
  sim_clock *vc;
  uint32_t stamp;     /* visit mark of the happens-before search */
} sim_snap;

/* An acquire at a global location by thread `comp` of `cluster` at clock `clk`: what the
 * releases it synchronized with (snapshots refs[first .. first + count)) knew. */
typedef struct sim_token {
  uint32_t cluster, clk, first, count, next; /* next: the cluster's previous token + 1 */
  uint16_t comp;
} sim_token;

/* The release sequence of a global location: the releases an acquire there synchronizes with. */
typedef struct sim_sync {
  uintptr_t addr;     /* 0: free slot */
  uint32_t *snaps;
  uint32_t n, cap;
} sim_sync;

struct sim_launch {
  nvfp4sim_result *result;
  const nvfp4sim_options *opts;
  uint32_t clusters;                /* in the grid */
  uint64_t rng;                     /* the interleaving of the resident clusters */
  uint32_t late_pct;                /* share of asynchronous operations completed late */
  /* reports */
  uint32_t reported;
  uint64_t report_keys[256];
  uint32_t nkeys;
  /* global memory (global.c) */
  sim_grange *ranges;               /* sorted by lo */
  uint32_t nranges;
  bool check_loads;                 /* readable ranges were given: loads outside all fault */
  sim_sync *syncs;                  /* open addressing on addr */
  uint32_t capsyncs, nsyncs;
  sim_snap *snaps;
  uint32_t nsnaps, capsnaps, stamp;
  sim_token *tokens;
  uint32_t ntokens, captokens;
  uint32_t *token_head;             /* per cluster: its last token + 1 */
  uint32_t *refs;
  uint32_t nrefs, caprefs;
};

extern sim_state *nvfp4sim_g; /* the cluster whose thread or completion runs */

/* fiber.c */
void *sim_fiber_stacks_alloc(uint32_t n, size_t bytes);     /* n stacks, one mapping */
void *sim_fiber_stack_at(void *stacks, uint32_t i, size_t bytes); /* the i-th of them */
void sim_fiber_stacks_free(void *stacks, uint32_t n, size_t bytes);
void *sim_fiber_prepare(void *stack, size_t bytes, void (*entry)(void *), void *arg);
void sim_fiber_switch(void **save_sp, void *to_sp);

/* sim.c: scheduling */
sim_fiber *sim_self(void);
sim_fiber *sim_at(uint32_t site); /* sim_self, remembering the site of the call */
void sim_block(sim_fiber *f, int wait, const void *obj, uint64_t gen, uint32_t site);
void sim_wake_all(const void *obj);
void sim_maybe_yield(void);
uint64_t sim_rand(void);
uint32_t sim_rand_below(uint32_t n);
const char *sim_role(uint32_t warp);
_Noreturn void sim_abort_launch(void);

/* rendezvous (bar.sync, bar.warp.sync, warp collectives): the last of `expected` threads
 * runs `last` before everybody leaves with the join of their clocks */
void sim_rendezvous_arrive(sim_rendezvous *rv, uint32_t expected, uint32_t kind, const uint32_t *args,
                    uint32_t nargs, sim_fiber *f, uint32_t site,
                    void (*last)(sim_rendezvous *, void *), void *ctx);
void sim_rendezvous_complete(sim_rendezvous *rv);
enum { SIM_RV_BAR = 1, SIM_RV_WARP_SYNC, SIM_RV_ALLOC, SIM_RV_DEALLOC, SIM_RV_RELINQUISH, SIM_RV_LD };

/* hazard.c: vector clocks, shadow state, reports */
sim_clock *sim_vc_new(void);
void sim_vc_join(sim_clock *dst, const sim_clock *src);
void sim_vc_release(sim_fiber *f, sim_clock *into);   /* join f's clock, then tick f */
/* f acquires `from`, whose contents `stamp` names (from a sim_vc_stamp(); 0: unnamed) */
void sim_vc_acquire(sim_fiber *f, const sim_clock *from, uint64_t stamp);
uint64_t sim_vc_stamp(void);   /* a new content stamp, for a released clock that changed */
/* f's clock at a foreign component: raised to at least v / set to v */
void sim_vc_raise(sim_fiber *f, uint32_t comp, sim_clock v);
void sim_vc_set(sim_fiber *f, uint32_t comp, sim_clock v);
/* the threads who[0 .. n) leave a rendezvous with the join of their clocks, each its own
 * component ticked */
void sim_vc_rendezvous(const uint16_t *who, uint32_t n);
/* The clock a tcgen05 operation of f is ordered by (its own program order, plus the
 * synchronisation before its last tcgen05.fence::after_thread_sync). */
const sim_clock *sim_tc_view(sim_fiber *f);
uint16_t sim_comp_new(uint32_t kind, sim_fiber *f, uint32_t bar);
uint16_t sim_comp_tma(sim_fiber *f, uint32_t bar);     /* f's TMA loads into `bar` */
void sim_comp_complete(uint16_t comp, uint32_t seq);  /* marks one number complete */
bool sim_hb(const sim_epoch *e, const sim_clock *vc);
sim_epoch sim_epoch_thread(sim_fiber *f, uint32_t kind, uint32_t site);
_Noreturn void sim_fault(sim_fiber *f, uint32_t site, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sim_report(const char *kind, sim_fiber *f, uint32_t site, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void sim_report_key(uint64_t key, const char *kind, sim_fiber *f, uint32_t site, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void sim_report_signal(sim_fiber *f, const char *sig, const void *addr);

const char *sim_site_text(uint32_t site);
void sim_describe_smem(const sim_cta *c, uint32_t addr, char *out, size_t size);
void sim_describe_tmem(uint32_t col, char *out, size_t size);
void sim_describe_bar(const sim_cta *c, uint32_t addr, char *out, size_t size);
void sim_describe_access(const sim_epoch *e, char *out, size_t size);
/* shared-memory and Tensor Memory checks; `by` is the vector clock of the issue */
void sim_smem_write(sim_cta *c, uint32_t addr, uint32_t bytes, const sim_epoch *e,
                    const sim_clock *by, sim_fiber *f);
void sim_smem_read(sim_cta *c, uint32_t addr, uint32_t bytes, const sim_epoch *e,
                   const sim_clock *by, sim_fiber *f, bool record);
void sim_tmem_write(sim_cta *c, uint32_t col, uint32_t ncols, uint32_t quarters,
                    const sim_epoch *e, const sim_clock *by, sim_fiber *f);
void sim_tmem_read(sim_cta *c, uint32_t col, uint32_t ncols, uint32_t quarters,
                   const sim_epoch *e, const sim_clock *by, sim_fiber *f);
void sim_tmem_check_quiet(sim_cta *c, uint32_t col, uint32_t ncols, const sim_clock *by,
                          sim_fiber *f, uint32_t site);

/* global.c: generic global accesses, release / acquire across CTAs, the shadow */
bool sim_global_setup(sim_launch *L, const nvfp4sim_range *writable, uint32_t nwritable,
                      const nvfp4sim_range *readable, uint32_t nreadable);
void sim_global_free(sim_launch *L);
/* the bytes [p, p + n) written (write) or read by the thread f, or by f's TMA store op */
void sim_global_record(uintptr_t p, uint32_t n, bool write, sim_fiber *f, uint16_t comp,
                       uint32_t clk, uint32_t site, const sim_clock *by);
const sim_grange *sim_global_range(uintptr_t p, uint32_t n);
/* A kernel with NVFP4_META_FLAG_PDL may run while the previous grid still does: a global
 * access (`what`, at p) by thread f that no griddepcontrol.wait of its cluster is ordered
 * before is reported (global-access-before-griddep-wait). */
void sim_griddep_check(sim_fiber *f, uintptr_t p, const char *what, uint32_t site);

/* addr.c: shared addresses, (cluster rank << SIM_SMEM_RANK_SHIFT) | offset in the CTA's
 * window, as the hardware forms them */
#define SIM_SMEM_RANK_SHIFT 24u
#define SIM_SMEM_OFFSET_MASK ((1u << SIM_SMEM_RANK_SHIFT) - 1u)
uint32_t sim_smem_addr(const sim_cta *c, uint32_t offset);   /* c's address of offset */
/* The CTA a shared::cluster address names, and the offset in its window (*offset); a fault
 * naming `what` when it names no CTA of the cluster. */
sim_cta *sim_smem_cluster(uint64_t addr, uint32_t *offset, sim_fiber *f, uint32_t site,
                          const char *what);
/* The offset of a shared::cta address in f's CTA; a fault when it names another CTA. */
uint32_t sim_smem_own(uint32_t addr, sim_fiber *f, uint32_t site, const char *what);

/* mbarrier.c */
sim_mbar *sim_mbar_at(sim_cta *c, uint32_t addr, sim_fiber *f, uint32_t site);
/* an arrive by fiber f (release == NULL: f's clock) or on behalf of CTA `from` with the
 * clock `release` (tcgen05.commit) */
void sim_mbar_arrive_on(sim_cta *c, uint32_t addr, const sim_clock *release, uint32_t from,
                        sim_fiber *f, uint32_t site, int64_t expect_tx);
void sim_mbar_complete_tx(sim_cta *c, uint32_t addr, uint32_t bytes, uint16_t comp,
                          uint32_t seq, bool op_done);
void sim_mbar_exit_check(sim_cta *c);
void sim_mbar_arrive_complete(sim_op *op);   /* a remote arrive lands */
void sim_flush_arrives(sim_fiber *f);        /* f's remote arrives land now */

/* tma.c / tcgen05.c: asynchronous completion */
sim_op *sim_op_new(uint32_t kind, sim_fiber *f, uint32_t site);
void sim_op_schedule(sim_op *op);
void sim_tma_complete(sim_op *op);
void sim_tc_complete(sim_op *op);
bool sim_tmap_decode(const void *slot, sim_tmap *out, char *why, size_t size);
void sim_tc_exit_check(sim_cta *c);

/* module.c */
#define NVFP4SIM_MAX_SITES (1u << 20) /* site ids of a plan text: 0 .. 2^20 - 1 */
#if defined(__x86_64__)
#define SIM_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define SIM_ELF_MACHINE EM_AARCH64
#else
#define SIM_ELF_MACHINE EM_NONE
#endif
#define SIM_ELF_DATA (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB)

struct nvfp4sim_module {
  void *handle;
  nvfp4rt_metadata_table table;
  void (*kernels[NVFP4_METADATA_MAX_VARIANTS])(void *);
  sim_plan plans[NVFP4_METADATA_MAX_VARIANTS];
};

uint32_t sim_tmap_elem_bits(uint32_t data_type);
uint32_t sim_swizzle_bytes(uint32_t swizzle);
/* A plan text (NUL-terminated, or its first len bytes); 0, or -1 with why. */
int sim_plan_parse(const char *text, sim_plan *plan, char *why, size_t size);
int sim_plan_parse_n(const char *text, size_t len, sim_plan *plan, char *why, size_t size);
void sim_plan_free(sim_plan *plan);
/* 0 when the file behind fd is a complete ELF shared object of this host, else -1 with why */
int sim_elf_check(int fd, const char *path, char *why, size_t size);
/* A CPU object's symbols: its address and size in bytes (0: unknown), or NULL. */
typedef const void *(*sim_symbol_fn)(void *ctx, const char *name, size_t *bytes);
/* The metadata table, kernels and plans of m from its symbols; 0, or -1 with why. */
int sim_module_bind(nvfp4sim_module *m, sim_symbol_fn symbol, void *ctx, const char *path,
                    char *why, size_t size);

#endif /* NVFP4SIM_INTERNAL_H */
