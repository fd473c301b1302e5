/* nvfp4_emu_device.h — thin sm_90a layer under the tcgen05 emulation library (internal).
 *
 * Special registers, warp collectives, fences and the mbarrier arrive, as NVVM builtins
 * or inline PTX. Plain C for clang --target=nvptx64-nvidia-cuda; no CUDA headers.
 */
#ifndef NVFP4_EMU_DEVICE_H
#define NVFP4_EMU_DEVICE_H

#if !defined(__NVPTX__)
#error "nvfp4_emu_device.h is device-only (nvptx64)"
#endif

#include <stdint.h>

static inline uint32_t emu_laneid(void) { return (uint32_t)__nvvm_read_ptx_sreg_laneid(); }

static inline uint32_t emu_activemask(void) {
  uint32_t m;
  __asm__ volatile("activemask.b32 %0;" : "=r"(m));
  return m;
}

static inline void emu_syncwarp(void) { __nvvm_bar_warp_sync(0xFFFFFFFFu); }

/* 1 when every lane of the full warp passes the same value. */
static inline int emu_all_equal(uint32_t v) {
  uint32_t pred, mask;
  __asm__ volatile("{\n\t.reg .pred p;\n\t"
                   "match.all.sync.b32 %0|p, %2, 0xffffffff;\n\t"
                   "selp.u32 %1, 1, 0, p;\n\t}"
                   : "=r"(mask), "=r"(pred)
                   : "r"(v));
  (void)mask;
  return (int)pred;
}

static inline uint64_t emu_gridid(void) {
  uint64_t g;
  __asm__ volatile("mov.u64 %0, %%gridid;" : "=l"(g));
  return g;
}

/* Linear CTA id: ctaid.x + ctaid.y * nctaid.x + ctaid.z * nctaid.x * nctaid.y. */
static inline uint32_t emu_cta_linear(void) {
  uint32_t x = (uint32_t)__nvvm_read_ptx_sreg_ctaid_x(),
           y = (uint32_t)__nvvm_read_ptx_sreg_ctaid_y(),
           z = (uint32_t)__nvvm_read_ptx_sreg_ctaid_z(),
           nx = (uint32_t)__nvvm_read_ptx_sreg_nctaid_x(),
           ny = (uint32_t)__nvvm_read_ptx_sreg_nctaid_y();
  return x + nx * (y + ny * z);
}

/* Warp rank inside the CTA from the linear thread id (not the physical %warpid). */
static inline uint32_t emu_warp_rank(void) {
  uint32_t x = (uint32_t)__nvvm_read_ptx_sreg_tid_x(),
           y = (uint32_t)__nvvm_read_ptx_sreg_tid_y(),
           z = (uint32_t)__nvvm_read_ptx_sreg_tid_z(),
           nx = (uint32_t)__nvvm_read_ptx_sreg_ntid_x(),
           ny = (uint32_t)__nvvm_read_ptx_sreg_ntid_y();
  return (x + nx * (y + ny * z)) / 32u;
}

/* CTA-scope acquire-release fence (orders global/shared accesses around thread syncs). */
static inline void emu_fence_cta(void) { __asm__ volatile("fence.acq_rel.cta;" ::: "memory"); }

/* Orders this thread's generic-proxy shared-memory accesses before later async-proxy
 * accesses (TMA writes into the stage buffers the emulated MMA has read). */
static inline void emu_fence_proxy_async_smem(void) {
  __asm__ volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* mbarrier arrive (count 1) with release semantics at cluster scope. */
static inline void emu_mbarrier_arrive(NVFP4_EMU_SHARED uint64_t *mbar) {
  uint32_t a = (uint32_t)(uintptr_t)mbar;
  __asm__ volatile("mbarrier.arrive.release.cluster.shared::cta.b64 _, [%0];"
                   :
                   : "r"(a)
                   : "memory");
}

static inline void emu_compiler_barrier(void) { __asm__ volatile("" ::: "memory"); }

#endif /* NVFP4_EMU_DEVICE_H */
