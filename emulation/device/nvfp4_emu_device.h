/* nvfp4_emu_device.h — thin sm_90a layer under the tcgen05 emulation library (internal).
 *
 * Special registers, warp collectives, fences and the mbarrier arrive, and the cluster
 * primitives of the CTA pair (ranks, mapa, cluster-scope acquire/release, remote arrive),
 * as NVVM builtins or inline PTX. Plain C for clang --target=nvptx64-nvidia-cuda; no CUDA headers.
 */
#ifndef NVFP4_EMU_DEVICE_H
#define NVFP4_EMU_DEVICE_H

#if !defined(__NVPTX__)
#error "nvfp4_emu_device.h is device-only (nvptx64)"
#endif

#include <stdint.h>

static inline uint32_t emu_laneid(void) { return (uint32_t)__nvvm_read_ptx_sreg_laneid(); }
/* The thread's linear index in its CTA. */
static inline uint32_t emu_cta_linear_tid(void) {
  return (uint32_t)__nvvm_read_ptx_sreg_tid_x() +
         (uint32_t)__nvvm_read_ptx_sreg_ntid_x() *
             ((uint32_t)__nvvm_read_ptx_sreg_tid_y() +
              (uint32_t)__nvvm_read_ptx_sreg_ntid_y() * (uint32_t)__nvvm_read_ptx_sreg_tid_z());
}

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

/* bar.sync 0 (every thread of the CTA) and, in a cluster, barrier.cluster (every thread of
 * the cluster), each with the memory ordering of a CTA / cluster barrier. */
static inline void emu_cta_barrier(void) { __asm__ volatile("bar.sync 0;" ::: "memory"); }
static inline void emu_cluster_barrier(void) {
  __asm__ volatile("barrier.cluster.arrive.release.aligned;\n\t"
                   "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* ---- clusters and distributed shared memory (the CTA pair of .cta_group::2) ---------- */

static inline uint32_t emu_cluster_rank(void) {
  return (uint32_t)__nvvm_read_ptx_sreg_cluster_ctarank();
}
static inline uint32_t emu_cluster_size(void) {
  return (uint32_t)__nvvm_read_ptx_sreg_cluster_nctarank();
}

/* Linear cluster id in the grid. */
static inline uint32_t emu_cluster_linear(void) {
  uint32_t x = (uint32_t)__nvvm_read_ptx_sreg_clusterid_x(),
           y = (uint32_t)__nvvm_read_ptx_sreg_clusterid_y(),
           z = (uint32_t)__nvvm_read_ptx_sreg_clusterid_z(),
           nx = (uint32_t)__nvvm_read_ptx_sreg_nclusterid_x(),
           ny = (uint32_t)__nvvm_read_ptx_sreg_nclusterid_y();
  return x + nx * (y + ny * z);
}

/* Linear CTA id (as emu_cta_linear) of the CTA of cluster rank `rank` in this cluster. */
static inline uint32_t emu_cta_linear_of_rank(uint32_t rank) {
  uint32_t cnx = (uint32_t)__nvvm_read_ptx_sreg_cluster_nctaid_x(),
           cny = (uint32_t)__nvvm_read_ptx_sreg_cluster_nctaid_y();
  uint32_t px = rank % cnx, py = (rank / cnx) % cny, pz = rank / (cnx * cny);
  uint32_t x = (uint32_t)__nvvm_read_ptx_sreg_ctaid_x() -
               (uint32_t)__nvvm_read_ptx_sreg_cluster_ctaid_x() + px,
           y = (uint32_t)__nvvm_read_ptx_sreg_ctaid_y() -
               (uint32_t)__nvvm_read_ptx_sreg_cluster_ctaid_y() + py,
           z = (uint32_t)__nvvm_read_ptx_sreg_ctaid_z() -
               (uint32_t)__nvvm_read_ptx_sreg_cluster_ctaid_z() + pz,
           nx = (uint32_t)__nvvm_read_ptx_sreg_nctaid_x(),
           ny = (uint32_t)__nvvm_read_ptx_sreg_nctaid_y();
  return x + nx * (y + ny * z);
}

/* Generic address of the variable at generic address p (in this CTA's shared memory) in
 * the shared memory of the CTA of cluster rank `rank` (mapa with generic addressing). */
static inline void *emu_mapa_generic(const void *p, uint32_t rank) {
  uint64_t d;
  __asm__("mapa.u64 %0, %1, %2;" : "=l"(d) : "l"((uint64_t)(uintptr_t)p), "r"(rank));
  return (void *)(uintptr_t)d;
}

/* shared::cluster address of shared::cta address `addr` in the CTA of rank `rank`. */
static inline uint32_t emu_mapa_shared(uint32_t addr, uint32_t rank) {
  uint32_t d;
  __asm__("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(addr), "r"(rank));
  return d;
}

static inline uint64_t emu_ld_acquire_cluster(const volatile uint64_t *p) {
  uint64_t v;
  __asm__ volatile("ld.acquire.cluster.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

static inline void emu_st_release_cluster(volatile uint64_t *p, uint64_t v) {
  __asm__ volatile("st.release.cluster.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

static inline uint64_t emu_globaltimer(void) {
  uint64_t t;
  __asm__ volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

static inline void emu_nanosleep(uint32_t ns) {
  __asm__ volatile("nanosleep.u32 %0;" ::"r"(ns));
}

/* Cluster-scope acquire-release fence (orders accesses to the peer CTA's shared memory and
 * Tensor Memory with the mbarrier handoffs of the pair). */
static inline void emu_fence_cluster(void) {
  __asm__ volatile("fence.acq_rel.cluster;" ::: "memory");
}

/* Orders generic-proxy accesses to shared memory of the cluster (this CTA's and the peer's)
 * before later async-proxy accesses (the TMA writes into released stages). */
static inline void emu_fence_proxy_async_smem_cluster(void) {
  __asm__ volatile("fence.proxy.async.shared::cluster;" ::: "memory");
}

/* mbarrier arrive (count 1, release, cluster scope) on a shared::cluster address. */
static inline void emu_mbarrier_arrive_remote(uint32_t cluster_addr) {
  __asm__ volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"
                   :
                   : "r"(cluster_addr)
                   : "memory");
}

#endif /* NVFP4_EMU_DEVICE_H */
