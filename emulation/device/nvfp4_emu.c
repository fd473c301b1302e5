/* nvfp4_emu.c — the tcgen05 emulation device library (sm_90a), entry points of
 * emulation/include/nvfp4_emu.h.
 *
 * Built by clang-22 --target=nvptx64-nvidia-cuda -march=sm_90a -O2 -emit-llvm into
 * nvfp4_emu.bc and linked into the kernel's gpu.module. Only the interface functions and
 * the error global have external linkage. TMEM of CTA c is the workspace slice
 * [c * NVFP4_EMU_TMEM_BYTES_PER_CTA, (c + 1) * ...), column-major 32-bit cells
 * (cell (lane, col) = word col * 128 + lane). Per-CTA allocation bookkeeping lives in a
 * static shared-memory variable. Every emulated operation completes before returning.
 *
 * .cta_group::2 (the _cg2 entry points): the CTA pair is this CTA and the one whose
 * %cluster_ctarank differs in the last bit. The issuing thread reaches the peer's
 * allocation table and shared memory through distributed shared memory (mapa) and its
 * Tensor Memory through the peer's table (its workspace slice). The collective
 * alloc / dealloc / relinquish of the two warps meet in a rendezvous: the odd CTA's warp
 * posts its request into the even CTA's mailbox and waits; the even CTA's warp performs
 * the operation on both tables and posts the result back.
 */
#include <stdint.h>

#include "nvfp4_emu.h"
#include "nvfp4_emu_core.h"
#include "nvfp4_emu_device.h"
#include "nvfp4_emu_errors.h"

/* First reason code of a trap in this launch (0 = none); read by the host after a
 * failure when the context survives, and by debuggers. */
NVFP4_EMU_GLOBAL uint32_t nvfp4_emu_last_error = 0;

/* Message of the first failing thread (global memory, so that the assert handler can
 * read it). */
static NVFP4_EMU_GLOBAL char emu_first_message[sizeof(((nvfp4_emu_err *)0)->text)];
static NVFP4_EMU_GLOBAL uint32_t emu_message_claimed = 0;

/* Per-CTA allocation state (uninitialised shared memory; validated by the tag). */
static NVFP4_EMU_SHARED nvfp4_emu_alloc_state emu_state;

extern void __assertfail(const char *message, const char *file, unsigned line,
                         const char *function, unsigned long char_size);

__attribute__((noinline, noreturn)) static void emu_trap(const nvfp4_emu_err *e,
                                                         const char *function) {
  uint32_t expected = 0, i;
  __atomic_compare_exchange_n((uint32_t *)&nvfp4_emu_last_error, &expected, e->code, 0,
                              __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  expected = 0;
  if (__atomic_compare_exchange_n((uint32_t *)&emu_message_claimed, &expected, 1u, 0,
                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    for (i = 0; i < sizeof emu_first_message; ++i)
      emu_first_message[i] = e->text[i];
    __nvvm_membar_gl();
    __assertfail((const char *)emu_first_message, "emulation/device/nvfp4_emu.c", 0,
                 function, 1);
  } else {
    __nvvm_membar_gl();
    __assertfail("nvfp4-emu: further failure (see the first message / nvfp4_emu_last_error)",
                 "emulation/device/nvfp4_emu.c", e->code, function, 1);
  }
  __builtin_trap();
}

static inline void emu_check(uint32_t code, const nvfp4_emu_err *e, const char *function) {
  if (__builtin_expect(code != 0, 0))
    emu_trap(e, function);
}

static inline nvfp4_emu_alloc_state *emu_state_ptr(void) {
  return (nvfp4_emu_alloc_state *)&emu_state;
}

/* 1 when the shared state belongs to this CTA of this launch. */
static inline int emu_state_owned(void) {
  return emu_state.magic == NVFP4_EMU_STATE_MAGIC && emu_state.grid_id == emu_gridid() &&
         emu_state.cta_id == emu_cta_linear();
}

/* The state of this CTA, initialised on first use (by one lane). */
static void emu_state_claim(void) {
  if (!emu_state_owned()) {
    nvfp4_emu_state_reset(emu_state_ptr());
    emu_state.grid_id = emu_gridid();
    emu_state.cta_id = emu_cta_linear();
    emu_state.magic = NVFP4_EMU_STATE_MAGIC;
  }
}

/* State of this CTA for an access to TMEM; traps when no allocation was ever made. */
static nvfp4_emu_tmem_word *emu_tmem_for(const char *op, const char *function) {
  if (!emu_state_owned() || emu_state.tmem_base == 0) {
    nvfp4_emu_err e;
    emu_fail(&e, NVFP4_EMU_ERR_NO_ALLOC, op, "Tensor Memory accessed in a CTA that has not "
                                             "executed tcgen05.alloc");
    emu_trap(&e, function);
  }
  return (nvfp4_emu_tmem_word *)(uintptr_t)emu_state.tmem_base;
}

static void emu_require_full_warp(const char *op, const char *function) {
  uint32_t mask = emu_activemask();
  if (mask != 0xFFFFFFFFu) {
    nvfp4_emu_err e;
    emu_fail(&e, NVFP4_EMU_ERR_PARTIAL_WARP, op, ".sync.aligned instruction executed with "
                                                 "active mask ");
    emu_err_hex(&e, mask);
    emu_err_str(&e, " (all 32 lanes required)");
    emu_trap(&e, function);
  }
}

static void emu_require_uniform(uint32_t v, const char *op, const char *what,
                                const char *function) {
  if (!emu_all_equal(v)) {
    nvfp4_emu_err e;
    emu_fail(&e, NVFP4_EMU_ERR_NONUNIFORM, op, what);
    emu_err_str(&e, " differs between the lanes of the warp");
    emu_trap(&e, function);
  }
}

/* The allocation management instructions, .cta_group::1 and ::2 (the _cg2 entry points
 * below); the pair forms meet the peer CTA's warp in emu_pair_collective. */
static uint32_t emu_pair_collective(uint32_t op, uint32_t ncols, uint32_t taddr,
                                    const char *name, const char *function);
enum { EMU_PAIR_ALLOC = 1, EMU_PAIR_RELINQUISH = 2, EMU_PAIR_DEALLOC = 3 };

static void emu_alloc_warp(NVFP4_EMU_SHARED uint32_t *dst, uint32_t ncols, uint64_t workspace,
                           uint32_t group, const char *op, const char *function) {
  emu_require_full_warp(op, function);
  emu_require_uniform(ncols, op, "nCols", function);
  if (emu_laneid() == 0) {
    nvfp4_emu_err e;
    uint32_t col = 0;
    uint64_t base = workspace + (uint64_t)emu_cta_linear() * NVFP4_EMU_TMEM_BYTES_PER_CTA;
    emu_state_claim();
    if (workspace == 0 || (workspace & 15u) != 0 ||
        (emu_state.tmem_base != 0 && emu_state.tmem_base != base)) {
      emu_fail(&e, NVFP4_EMU_ERR_WORKSPACE, op, "workspace ");
      emu_err_hex(&e, workspace);
      emu_err_str(&e, " is null, not 16-byte aligned, or differs from this CTA's earlier "
                      "allocation");
      emu_trap(&e, function);
    }
    emu_check(nvfp4_emu_state_group(emu_state_ptr(), group, op, &e), &e, function);
    if (group == 1) {
      emu_check(nvfp4_emu_state_alloc(emu_state_ptr(), ncols, &col, &e), &e, function);
      emu_state.tmem_base = base;
    } else {
      emu_state.tmem_base = base; /* before the rendezvous: the peer reaches it from then on */
      col = emu_pair_collective(EMU_PAIR_ALLOC, ncols, 0, op, function);
    }
    *dst = col; /* lane 0, column col */
  }
  emu_syncwarp();
}

static void emu_dealloc_warp(uint32_t taddr, uint32_t ncols, uint32_t group, const char *op,
                             const char *function) {
  emu_require_full_warp(op, function);
  emu_require_uniform(taddr, op, "taddr", function);
  emu_require_uniform(ncols, op, "nCols", function);
  if (emu_laneid() == 0) {
    nvfp4_emu_err e;
    (void)emu_tmem_for(op, function);
    emu_check(nvfp4_emu_state_group(emu_state_ptr(), group, op, &e), &e, function);
    if (group == 1)
      emu_check(nvfp4_emu_state_dealloc(emu_state_ptr(), taddr, ncols, &e), &e, function);
    else
      (void)emu_pair_collective(EMU_PAIR_DEALLOC, ncols, taddr, op, function);
  }
  emu_syncwarp();
}

static void emu_relinquish_warp(uint32_t group, const char *op, const char *function) {
  emu_require_full_warp(op, function);
  if (emu_laneid() == 0) {
    nvfp4_emu_err e;
    emu_state_claim();
    emu_check(nvfp4_emu_state_group(emu_state_ptr(), group, op, &e), &e, function);
    if (group == 1)
      emu_state.relinquished = 1;
    else
      (void)emu_pair_collective(EMU_PAIR_RELINQUISH, 0, 0, op, function);
  }
  emu_syncwarp();
}

void nvfp4_emu_tcgen05_alloc(NVFP4_EMU_SHARED uint32_t *dst, uint32_t ncols,
                             uint64_t workspace) {
  emu_alloc_warp(dst, ncols, workspace, 1, "tcgen05.alloc", __func__);
}

void nvfp4_emu_tcgen05_dealloc(uint32_t taddr, uint32_t ncols) {
  emu_dealloc_warp(taddr, ncols, 1, "tcgen05.dealloc", __func__);
}

void nvfp4_emu_tcgen05_relinquish_alloc_permit(void) {
  emu_relinquish_warp(1, "tcgen05.relinquish_alloc_permit", __func__);
}

void nvfp4_emu_tcgen05_cp_32x128b_warpx4(uint32_t taddr, uint64_t sdesc) {
  nvfp4_emu_err e;
  nvfp4_emu_tmem_word *tmem = emu_tmem_for("tcgen05.cp.32x128b.warpx4", __func__);
  emu_check(nvfp4_emu_state_group(emu_state_ptr(), 1, "tcgen05.cp.32x128b.warpx4", &e), &e,
            __func__);
  emu_check(nvfp4_emu_core_cp_32x128b_warpx4(tmem, 0, emu_state_ptr(), taddr, sdesc, &e), &e,
            __func__);
}

void nvfp4_emu_tcgen05_mma_mxf4nvf4_block16(uint32_t d, uint64_t adesc, uint64_t bdesc,
                                            uint32_t idesc, uint32_t enable_input_d,
                                            uint32_t sfa, uint32_t sfb) {
  nvfp4_emu_err e;
  nvfp4_emu_mma_scratch scratch;
  nvfp4_emu_tmem_word *tmem = emu_tmem_for("tcgen05.mma.kind::mxf4nvf4.block16", __func__);
  emu_check(nvfp4_emu_state_group(emu_state_ptr(), 1, "tcgen05.mma.kind::mxf4nvf4.block16", &e),
            &e, __func__);
  emu_check(nvfp4_emu_core_mma_mxf4nvf4_block16(tmem, 0, emu_state_ptr(), &scratch, d, adesc,
                                                bdesc, idesc, enable_input_d, sfa, sfb, &e),
            &e, __func__);
}

void nvfp4_emu_tcgen05_commit(NVFP4_EMU_SHARED uint64_t *mbar) {
  if (emu_state_owned()) {
    nvfp4_emu_err e;
    emu_check(nvfp4_emu_state_group(emu_state_ptr(), 1, "tcgen05.commit", &e), &e, __func__);
  }
  /* Every emulated tcgen05 op of this thread has completed already. Order its TMEM
   * (global) writes and generic-proxy shared-memory reads before the arrive: the arrive
   * releases them to the waiters, and the proxy fence orders the reads before the TMA
   * (async proxy) writes the producer issues once the stage is released. */
  emu_fence_cta();
  emu_fence_proxy_async_smem();
  emu_mbarrier_arrive(mbar);
}

void nvfp4_emu_tcgen05_ld_32x32b(uint32_t taddr, uint32_t *dst, uint32_t num) {
  static const char op[] = "tcgen05.ld.32x32b";
  nvfp4_emu_err e;
  nvfp4_emu_tmem_word *tmem;
  emu_require_full_warp(op, __func__);
  emu_require_uniform(taddr, op, "taddr", __func__);
  emu_require_uniform(num, op, ".num", __func__);
  tmem = emu_tmem_for(op, __func__);
  emu_check(nvfp4_emu_core_ld_check(emu_state_ptr(), taddr, num, emu_warp_rank() % 4u, &e), &e,
            __func__);
  nvfp4_emu_core_ld_lane(tmem, taddr, emu_laneid(), dst, num);
}

/* ---- sm_120a: the block-scaled mma.sync ------------------------------------------------ */

static inline uint32_t emu_shfl(uint32_t v, uint32_t lane) {
  return (uint32_t)__nvvm_shfl_sync_idx_i32(0xFFFFFFFFu, (int)v, (int)lane, 0x1F);
}

/* Every lane gathers what its four D registers need, from the PTX ISA's m16n8k64 .e2m1
 * layouts (9.7.14.5.11), g = lane / 4, t = lane % 4:
 *   A row g: lanes 4 g + u (u = 0..3) hold K 8 u .. 8 u + 7 in a0 and K 32 + 8 u .. in a2;
 *     row g + 8 the same in a1 and a3;
 *   B column n: lanes 4 n + u hold K 8 u .. in b0 and K 32 + 8 u .. in b1 (n = 2 t, 2 t + 1);
 *   scales (9.7.14.3): row g of A from lane 4 g + 2 thread-id-a, row g + 8 from the next
 *     lane; column n of B from lane 4 n + thread-id-b.
 * Every lane executes every shuffle (the instruction is .sync.aligned). */
void nvfp4_emu_mma_sync_mxf4nvf4_4x(float *d, uint32_t a0, uint32_t a1, uint32_t a2,
                                    uint32_t a3, uint32_t b0, uint32_t b1, float c0, float c1,
                                    float c2, float c3, uint32_t sfa, uint32_t bida,
                                    uint32_t tida, uint32_t sfb, uint32_t bidb, uint32_t tidb) {
  static const char op[] = "mma.sync.kind::mxf4nvf4.block_scale.scale_vec::4X";
  nvfp4_emu_err e;
  emu_require_full_warp(op, __func__);
  emu_require_uniform(tida | tidb << 8 | bida << 16 | bidb << 24, op, "the byte-id / thread-id "
                      "selectors", __func__);
  emu_check(nvfp4_emu_core_mma_sync_check(bida, tida, bidb, tidb, &e), &e, __func__);
  const uint32_t lane = emu_laneid(), g = lane / 4u, t = lane % 4u;
  const uint32_t a[4] = {a0, a1, a2, a3}, b[2] = {b0, b1};
  uint32_t a_rows[2][8], b_cols[2][8], sa[2], sb[2], u, h;
  for (u = 0; u < 4u; ++u)
    for (h = 0; h < 2u; ++h) {
      a_rows[h][u] = emu_shfl(a[h], 4u * g + u);          /* a0 / a1: K 8 u .. */
      a_rows[h][4u + u] = emu_shfl(a[2u + h], 4u * g + u); /* a2 / a3: K 32 + 8 u .. */
      b_cols[h][u] = emu_shfl(b[0], 4u * (2u * t + h) + u);
      b_cols[h][4u + u] = emu_shfl(b[1], 4u * (2u * t + h) + u);
    }
  for (h = 0; h < 2u; ++h) {
    sa[h] = emu_shfl(sfa, 4u * g + 2u * tida + h);
    sb[h] = emu_shfl(sfb, 4u * (2u * t + h) + tidb);
  }
  const float c[4] = {c0, c1, c2, c3};
  nvfp4_emu_core_mma_sync_lane(a_rows, b_cols, sa, sb, c, d);
}

void nvfp4_emu_tcgen05_wait_ld(void) { emu_compiler_barrier(); }

void nvfp4_emu_tcgen05_wait_st(void) { emu_compiler_barrier(); }

void nvfp4_emu_tcgen05_fence_before_thread_sync(void) { emu_fence_cta(); }

void nvfp4_emu_tcgen05_fence_after_thread_sync(void) { emu_fence_cta(); }

/* ---- .cta_group::2 ------------------------------------------------------------------- */

/* How long a warp waits for the peer CTA's warp at a collective before it traps (hardware
 * would block for ever). Both CTAs of a cluster are co-scheduled, so a healthy kernel meets
 * within microseconds; the bound leaves room for compute-sanitizer's slowdown. */
#define EMU_PAIR_TIMEOUT_NS (60ull * 1000000000ull)

/* The rendezvous mailbox of a CTA (uninitialised shared memory, never reset: every word the
 * partner waits for carries a token of this launch, cluster and collective). */
typedef struct {
  uint64_t arrive; /* even CTA: the odd CTA's request is posted (token) */
  uint64_t done;   /* odd CTA: the even CTA performed the operation (token) */
  uint32_t op, ncols, taddr, result;
} emu_pair_mailbox;

static NVFP4_EMU_SHARED emu_pair_mailbox emu_mailbox;

/* Every thread, at the kernel's entry: nvfp4_emu.h. */
void nvfp4_emu_cta_begin(void) {
  if (emu_cta_linear_tid() == 0) {
    nvfp4_emu_state_reset(emu_state_ptr());
    emu_state.magic = 0;
    emu_mailbox.arrive = 0;
    emu_mailbox.done = 0;
  }
  emu_cta_barrier();
  if (emu_cluster_size() > 1) emu_cluster_barrier();
}

/* Token of collective `seq` of this CTA pair in this launch. */
static inline uint64_t emu_pair_token(uint32_t seq) {
  uint32_t tag = (uint32_t)emu_gridid() * 2654435761u + emu_cluster_linear() * 40503u + 1u;
  return ((uint64_t)tag << 32) | seq;
}

/* The rank of the peer CTA; traps when the cluster has none. */
static uint32_t emu_peer_rank(const char *op, const char *function) {
  uint32_t peer = emu_cluster_rank() ^ 1u;
  if (peer >= emu_cluster_size()) {
    nvfp4_emu_err e;
    emu_fail(&e, NVFP4_EMU_ERR_NO_PEER, op, ".cta_group::2 in a cluster of ");
    emu_err_u32(&e, emu_cluster_size());
    emu_err_str(&e, " CTA(s): cluster rank ");
    emu_err_u32(&e, emu_cluster_rank());
    emu_err_str(&e, " has no peer CTA");
    emu_trap(&e, function);
  }
  return peer;
}

static void emu_wait_token(const volatile uint64_t *word, uint64_t token, const char *op,
                           const char *function) {
  uint64_t t0 = emu_globaltimer();
  while (emu_ld_acquire_cluster(word) != token) {
    if (emu_globaltimer() - t0 > EMU_PAIR_TIMEOUT_NS) {
      nvfp4_emu_err e;
      emu_fail(&e, NVFP4_EMU_ERR_PAIR_TIMEOUT, op,
               "the peer CTA's warp did not join this collective within 60 s (hardware "
               "would block); collective #");
      emu_err_u32(&e, (uint32_t)token);
      emu_err_str(&e, " of this CTA");
      emu_trap(&e, function);
    }
    emu_nanosleep(64);
  }
}

/* The peer CTA's allocation table (a generic pointer into its shared memory); traps when
 * the peer has not allocated Tensor Memory in this launch. */
static nvfp4_emu_alloc_state *emu_peer_state(uint32_t peer, const char *op,
                                             const char *function) {
  nvfp4_emu_alloc_state *ps = (nvfp4_emu_alloc_state *)emu_mapa_generic(emu_state_ptr(), peer);
  if (ps->magic != NVFP4_EMU_STATE_MAGIC || ps->grid_id != emu_gridid() ||
      ps->cta_id != emu_cta_linear_of_rank(peer) || ps->tmem_base == 0) {
    nvfp4_emu_err e;
    emu_fail(&e, NVFP4_EMU_ERR_NO_ALLOC, op, "the peer CTA (cluster rank ");
    emu_err_u32(&e, peer);
    emu_err_str(&e, ") has not executed tcgen05.alloc.cta_group::2");
    emu_trap(&e, function);
  }
  return ps;
}

/* One collective of the pair, executed by lane 0 of the warp of each CTA (this CTA's state
 * claimed). The even CTA performs `op` on both tables; returns the allocated column. */
static uint32_t emu_pair_collective(uint32_t op, uint32_t ncols, uint32_t taddr,
                                    const char *name, const char *function) {
  nvfp4_emu_err e;
  const uint32_t rank = emu_cluster_rank(), peer = emu_peer_rank(name, function);
  const uint64_t token = emu_pair_token(++emu_state.pair_seq);
  emu_pair_mailbox *mine = (emu_pair_mailbox *)&emu_mailbox;
  emu_pair_mailbox *theirs = (emu_pair_mailbox *)emu_mapa_generic(mine, peer);
  uint32_t col = 0;
  if (rank & 1u) { /* odd: post the request, wait for the even CTA */
    theirs->op = op;
    theirs->ncols = ncols;
    theirs->taddr = taddr;
    emu_st_release_cluster(&theirs->arrive, token);
    emu_wait_token(&mine->done, token, name, function);
    return *(volatile uint32_t *)&mine->result;
  }
  emu_wait_token(&mine->arrive, token, name, function);
  {
    uint32_t pop = *(volatile uint32_t *)&mine->op, pn = *(volatile uint32_t *)&mine->ncols,
             pt = *(volatile uint32_t *)&mine->taddr;
    nvfp4_emu_alloc_state *ps = (nvfp4_emu_alloc_state *)emu_mapa_generic(emu_state_ptr(), peer);
    if (pop != op || pn != ncols || pt != taddr) {
      emu_fail(&e, NVFP4_EMU_ERR_PAIR_MISMATCH, name,
               "the two CTAs of the pair disagree: this CTA's collective #");
      emu_err_u32(&e, (uint32_t)token);
      emu_err_str(&e, " has nCols=");
      emu_err_u32(&e, ncols);
      emu_err_str(&e, " taddr=");
      emu_err_hex(&e, taddr);
      emu_err_str(&e, ", the peer's is a different operation or nCols=");
      emu_err_u32(&e, pn);
      emu_err_str(&e, " taddr=");
      emu_err_hex(&e, pt);
      emu_trap(&e, function);
    }
    if (op == EMU_PAIR_ALLOC)
      emu_check(nvfp4_emu_state_alloc_pair(emu_state_ptr(), ps, ncols, &col, &e), &e, function);
    else if (op == EMU_PAIR_DEALLOC)
      emu_check(nvfp4_emu_state_dealloc_pair(emu_state_ptr(), ps, taddr, ncols, &e), &e,
                function);
    else {
      emu_state.relinquished = 1;
      ps->relinquished = 1;
    }
  }
  theirs->result = col;
  emu_st_release_cluster(&theirs->done, token);
  return col;
}

void nvfp4_emu_tcgen05_alloc_cg2(NVFP4_EMU_SHARED uint32_t *dst, uint32_t ncols,
                                 uint64_t workspace) {
  emu_alloc_warp(dst, ncols, workspace, 2, "tcgen05.alloc.cta_group::2", __func__);
}

void nvfp4_emu_tcgen05_dealloc_cg2(uint32_t taddr, uint32_t ncols) {
  emu_dealloc_warp(taddr, ncols, 2, "tcgen05.dealloc.cta_group::2", __func__);
}

void nvfp4_emu_tcgen05_relinquish_alloc_permit_cg2(void) {
  emu_relinquish_warp(2, "tcgen05.relinquish_alloc_permit.cta_group::2", __func__);
}

/* The views of the even (index 0) and odd (index 1) CTA of the pair, for a one-thread
 * .cta_group::2 operation issued in this CTA. */
static void emu_pair_views(nvfp4_emu_cta_view pair[2], const char *op, const char *function) {
  nvfp4_emu_err e;
  nvfp4_emu_tmem_word *tmem = emu_tmem_for(op, function);
  const uint32_t peer = emu_peer_rank(op, function);
  nvfp4_emu_alloc_state *ps;
  emu_check(nvfp4_emu_state_group(emu_state_ptr(), 2, op, &e), &e, function);
  ps = emu_peer_state(peer, op, function);
  /* Acquire what the peer wrote before the mbarrier handoff that led here (its shared
   * memory, its Tensor Memory reads) at cluster scope. */
  emu_fence_cluster();
  {
    const uint32_t self = emu_cluster_rank() & 1u;
    pair[self].tmem = tmem;
    pair[self].smem = 0; /* this CTA's shared memory */
    pair[self].st = emu_state_ptr();
    pair[self ^ 1u].tmem = (nvfp4_emu_tmem_word *)(uintptr_t)ps->tmem_base;
    pair[self ^ 1u].smem = NVFP4_EMU_SMEM_PEER;
    pair[self ^ 1u].st = ps;
  }
}

void nvfp4_emu_tcgen05_cp_32x128b_warpx4_cg2(uint32_t taddr, uint64_t sdesc) {
  static const char op[] = "tcgen05.cp.cta_group::2.32x128b.warpx4";
  nvfp4_emu_err e;
  nvfp4_emu_cta_view pair[2];
  emu_pair_views(pair, op, __func__);
  emu_check(nvfp4_emu_core_cp_32x128b_warpx4_cg2(pair, taddr, sdesc, &e), &e, __func__);
}

void nvfp4_emu_tcgen05_mma_mxf4nvf4_block16_cg2(uint32_t d, uint64_t adesc, uint64_t bdesc,
                                                uint32_t idesc, uint32_t enable_input_d,
                                                uint32_t sfa, uint32_t sfb) {
  static const char op[] = "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block16";
  nvfp4_emu_err e;
  nvfp4_emu_mma_scratch scratch;
  nvfp4_emu_cta_view pair[2];
  emu_pair_views(pair, op, __func__);
  emu_check(nvfp4_emu_core_mma_mxf4nvf4_block16_cg2(pair, &scratch, d, adesc, bdesc, idesc,
                                                    enable_input_d, sfa, sfb, &e),
            &e, __func__);
}

void nvfp4_emu_tcgen05_commit_cg2(NVFP4_EMU_SHARED uint64_t *mbar, uint32_t cta_mask) {
  static const char op[] = "tcgen05.commit.cta_group::2";
  const uint32_t size = emu_cluster_size();
  uint32_t r;
  if (emu_state_owned()) {
    nvfp4_emu_err e;
    emu_check(nvfp4_emu_state_group(emu_state_ptr(), 2, op, &e), &e, __func__);
  }
  if ((cta_mask & 0xFFFFu) != cta_mask || (size < 16u && (cta_mask >> size) != 0u)) {
    nvfp4_emu_err e;
    emu_fail(&e, NVFP4_EMU_ERR_COMMIT_MASK, op, ".multicast::cluster ctaMask ");
    emu_err_hex(&e, cta_mask);
    emu_err_str(&e, " names a CTA outside the cluster of ");
    emu_err_u32(&e, size);
    emu_trap(&e, __func__);
  }
  /* Every emulated tcgen05 op of this thread has completed; its writes to both CTAs'
   * Tensor Memory and its generic-proxy reads of both CTAs' shared memory are ordered
   * before the arrives, which release them at cluster scope to the waiters. */
  emu_fence_cluster();
  emu_fence_proxy_async_smem_cluster();
  if (cta_mask == 0u) {
    emu_mbarrier_arrive(mbar);
    return;
  }
  for (r = 0; r < 16u; ++r)
    if (cta_mask & (1u << r))
      emu_mbarrier_arrive_remote(emu_mapa_shared((uint32_t)(uintptr_t)mbar, r));
}
