/* nvfp4_emu.c — the tcgen05 emulation device library (sm_90a), entry points of
 * emulation/include/nvfp4_emu.h.
 *
 * Built by clang-22 --target=nvptx64-nvidia-cuda -march=sm_90a -O2 -emit-llvm into
 * nvfp4_emu.bc and linked into the kernel's gpu.module. Only the interface functions and
 * the error global have external linkage. TMEM of CTA c is the workspace slice
 * [c * NVFP4_EMU_TMEM_BYTES_PER_CTA, (c + 1) * ...), column-major 32-bit cells
 * (cell (lane, col) = word col * 128 + lane). Per-CTA allocation bookkeeping lives in a
 * static shared-memory variable. Every emulated operation completes before returning.
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

void nvfp4_emu_tcgen05_alloc(NVFP4_EMU_SHARED uint32_t *dst, uint32_t ncols,
                             uint64_t workspace) {
  static const char op[] = "tcgen05.alloc";
  emu_require_full_warp(op, __func__);
  emu_require_uniform(ncols, op, "nCols", __func__);
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
      emu_trap(&e, __func__);
    }
    emu_check(nvfp4_emu_state_alloc(emu_state_ptr(), ncols, &col, &e), &e, __func__);
    emu_state.tmem_base = base;
    *dst = col; /* lane 0, column col */
  }
  emu_syncwarp();
}

void nvfp4_emu_tcgen05_dealloc(uint32_t taddr, uint32_t ncols) {
  static const char op[] = "tcgen05.dealloc";
  emu_require_full_warp(op, __func__);
  emu_require_uniform(taddr, op, "taddr", __func__);
  emu_require_uniform(ncols, op, "nCols", __func__);
  if (emu_laneid() == 0) {
    nvfp4_emu_err e;
    (void)emu_tmem_for(op, __func__);
    emu_check(nvfp4_emu_state_dealloc(emu_state_ptr(), taddr, ncols, &e), &e, __func__);
  }
  emu_syncwarp();
}

void nvfp4_emu_tcgen05_relinquish_alloc_permit(void) {
  emu_require_full_warp("tcgen05.relinquish_alloc_permit", __func__);
  if (emu_laneid() == 0) {
    emu_state_claim();
    emu_state.relinquished = 1;
  }
  emu_syncwarp();
}

void nvfp4_emu_tcgen05_cp_32x128b_warpx4(uint32_t taddr, uint64_t sdesc) {
  nvfp4_emu_err e;
  nvfp4_emu_tmem_word *tmem = emu_tmem_for("tcgen05.cp.32x128b.warpx4", __func__);
  emu_check(nvfp4_emu_core_cp_32x128b_warpx4(tmem, 0, emu_state_ptr(), taddr, sdesc, &e), &e,
            __func__);
}

void nvfp4_emu_tcgen05_mma_mxf4nvf4_block16(uint32_t d, uint64_t adesc, uint64_t bdesc,
                                            uint32_t idesc, uint32_t enable_input_d,
                                            uint32_t sfa, uint32_t sfb) {
  nvfp4_emu_err e;
  nvfp4_emu_mma_scratch scratch;
  nvfp4_emu_tmem_word *tmem = emu_tmem_for("tcgen05.mma.kind::mxf4nvf4.block16", __func__);
  emu_check(nvfp4_emu_core_mma_mxf4nvf4_block16(tmem, 0, emu_state_ptr(), &scratch, d, adesc,
                                                bdesc, idesc, enable_input_d, sfa, sfb, &e),
            &e, __func__);
}

void nvfp4_emu_tcgen05_commit(NVFP4_EMU_SHARED uint64_t *mbar) {
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

void nvfp4_emu_tcgen05_wait_ld(void) { emu_compiler_barrier(); }

void nvfp4_emu_tcgen05_wait_st(void) { emu_compiler_barrier(); }

void nvfp4_emu_tcgen05_fence_before_thread_sync(void) { emu_fence_cta(); }

void nvfp4_emu_tcgen05_fence_after_thread_sync(void) { emu_fence_cta(); }
