/* nvfp4_sim.h — the call interface between the CPU execution pass (--nvfp4-cpu-target,
 * lib/Conversion/CpuTarget.c) and the CTA simulator (cpusim/, libnvfp4sim).
 *
 * The pass rewrites every NVVM operation of a generated kernel into a call to one of these
 * functions and every shared / cluster / Tensor Memory pointer into an integer address:
 *   shared::cta address    u32, (the CTA's cluster rank << 24) | offset into its
 *                          shared-memory window, as the hardware forms it (cpusim/README.md,
 *                          "Shared addresses"); an operand naming another CTA is a fault;
 *   shared::cluster address u64, the same 32-bit form (a CTA's shared::cta address is the
 *                          shared::cluster address of that byte; mapa replaces the rank);
 *   Tensor Memory address   u32, (lane << 16) | column (PTX ISA);
 *   tensor map              a generic pointer to the 128-byte slot in the device table
 *                           (host memory whose address is the header's HDR_TABLE), holding
 *                           a CPU tensor map (nvfp4sim.h, nvfp4sim_tmap_encode).
 * Generic loads and stores of shared memory go to the host pointer
 * nvfp4_sim_smem_base() + address after a call to nvfp4_sim_smem_access (the checks of the
 * hazard detector); generic loads and stores of global memory call nvfp4_sim_global_access
 * first.
 *
 * `site` is the index of the rewritten operation in its kernel's site table (the pass
 * writes the table next to the kernel, see NVFP4_SIM_PLAN_SUFFIX); reports name the
 * instruction through it. Every function is called by one simulated thread (a fiber);
 * warp-collective operations (.sync.aligned) are called by every lane of the warp.
 * Plain C11, no dependency.
 */
#ifndef NVFP4_SIM_H
#define NVFP4_SIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plan text of kernel K (its planner tables and the site table) is the NUL-terminated
 * string global K NVFP4_SIM_PLAN_SUFFIX in the CPU object. */
#define NVFP4_SIM_PLAN_SUFFIX "__nvfp4_cpu_plan"

/* The entry points are what a CPU object links against at dlopen time. */
#if defined(__GNUC__)
#define NVFP4_SIM_ENTRY __attribute__((visibility("default")))
#else
#define NVFP4_SIM_ENTRY
#endif

/* Special registers (nvvm.read.ptx.sreg.*). */
enum nvfp4_sim_sreg {
  NVFP4_SIM_SREG_TID_X = 0, NVFP4_SIM_SREG_TID_Y, NVFP4_SIM_SREG_TID_Z,
  NVFP4_SIM_SREG_NTID_X, NVFP4_SIM_SREG_NTID_Y, NVFP4_SIM_SREG_NTID_Z,
  NVFP4_SIM_SREG_CTAID_X, NVFP4_SIM_SREG_CTAID_Y, NVFP4_SIM_SREG_CTAID_Z,
  NVFP4_SIM_SREG_NCTAID_X, NVFP4_SIM_SREG_NCTAID_Y, NVFP4_SIM_SREG_NCTAID_Z,
  NVFP4_SIM_SREG_LANEID, NVFP4_SIM_SREG_WARPID,
  NVFP4_SIM_SREG_CLUSTERID_X, NVFP4_SIM_SREG_NCLUSTERID_X,
  NVFP4_SIM_SREG_CLUSTER_CTARANK, NVFP4_SIM_SREG_CLUSTER_NCTARANK,
  NVFP4_SIM_SREG_COUNT
};

/* Fences (nvvm.fence.*, tcgen05.fence). */
enum nvfp4_sim_fence {
  NVFP4_SIM_FENCE_MBARRIER_INIT = 0,   /* fence.mbarrier_init.release.cluster */
  NVFP4_SIM_FENCE_PROXY_ASYNC_SHARED,  /* fence.proxy.async.shared::cta */
  NVFP4_SIM_FENCE_TC_BEFORE,           /* tcgen05.fence::before_thread_sync */
  NVFP4_SIM_FENCE_TC_AFTER             /* tcgen05.fence::after_thread_sync */
};

/* ---- thread and CTA ------------------------------------------------------------------ */
NVFP4_SIM_ENTRY uint32_t nvfp4_sim_sreg(uint32_t which);
/* Host address of the calling CTA's shared-memory window (shared::cta address 0). */
NVFP4_SIM_ENTRY void *nvfp4_sim_smem_base(void);
/* shared::cta address of the dynamic shared-memory array (extern __shared__). */
NVFP4_SIM_ENTRY uint32_t nvfp4_sim_dyn_smem(void);
/* A generic load (write = 0) or store (write = 1) of `bytes` at shared address `addr`. */
NVFP4_SIM_ENTRY void nvfp4_sim_smem_access(uint32_t addr, uint32_t bytes, uint32_t write, uint32_t site);
/* A generic load (write = 0) or store (write = 1) of `bytes` at host address `ptr` (global
 * memory) whose instruction requires `align`-byte alignment (0: the natural alignment of
 * `bytes`): a misaligned or out-of-range access stops the launch; a load may read what
 * another thread stored only when that store is ordered before it (the thread's own program
 * order, the synchronisation of its cluster, and release / acquire through the global
 * counters below across CTAs), else it is a hazard. */
NVFP4_SIM_ENTRY void nvfp4_sim_global_access(void *ptr, uint32_t bytes, uint32_t align,
                                             uint32_t write, uint32_t site);
/* nvfp4_sim_global_access(ptr, bytes, 1, 1, site) (objects built before the loads were
 * checked). */
NVFP4_SIM_ENTRY void nvfp4_sim_global_store(void *ptr, uint32_t bytes, uint32_t site);
/* A 4-byte counter in global memory (host address `addr`, 4-byte aligned, inside an output
 * buffer or the workspace): stored with release semantics, read with acquire semantics,
 * and atomically added to with acquire-release semantics (returns the old value). A
 * release publishes everything ordered before it to the acquires that read its value (or a
 * later atomic add's); clusters interleave, but a value is never awaited: the stream-K
 * schedule reads and adds, never spins. */
NVFP4_SIM_ENTRY void nvfp4_sim_global_release_u32(uint64_t addr, uint32_t value, uint32_t site);
NVFP4_SIM_ENTRY uint32_t nvfp4_sim_global_acquire_u32(uint64_t addr, uint32_t site);
NVFP4_SIM_ENTRY uint32_t nvfp4_sim_global_atomic_add_u32(uint64_t addr, uint32_t value,
                                                         uint32_t site);

/* ---- barriers -------------------------------------------------------------------------- */
/* bar.sync id, threads (threads == 0: every thread of the CTA, i.e. barrier0). */
NVFP4_SIM_ENTRY void nvfp4_sim_barrier(uint32_t id, uint32_t threads, uint32_t site);
/* bar.red.or.pred id, threads: bar.sync that returns 1 to every thread when any thread's
 * `pred` is non-zero. */
NVFP4_SIM_ENTRY uint32_t nvfp4_sim_barrier_or(uint32_t id, uint32_t threads, uint32_t pred,
                                              uint32_t site);
/* bar.warp.sync mask */
NVFP4_SIM_ENTRY void nvfp4_sim_warp_sync(uint32_t mask, uint32_t site);
/* barrier.cluster.arrive.aligned / barrier.cluster.wait.aligned */
NVFP4_SIM_ENTRY void nvfp4_sim_cluster_arrive(uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_cluster_wait(uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_fence(uint32_t kind, uint32_t site);
/* griddepcontrol (programmatic dependent launch). */
enum nvfp4_sim_griddep {
  NVFP4_SIM_GRIDDEP_WAIT = 0,          /* griddepcontrol.wait */
  NVFP4_SIM_GRIDDEP_LAUNCH_DEPENDENTS  /* griddepcontrol.launch_dependents */
};
NVFP4_SIM_ENTRY void nvfp4_sim_griddep(uint32_t kind, uint32_t site);

/* ---- mbarriers (shared::cta addresses; the _cluster form takes a shared::cluster one) -- */
NVFP4_SIM_ENTRY void nvfp4_sim_mbar_init(uint32_t bar, uint32_t count, uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_mbar_arrive(uint32_t bar, uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_mbar_arrive_expect_tx(uint32_t bar, uint32_t tx_bytes, uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_mbar_arrive_cluster(uint64_t bar, uint32_t site);
/* mbarrier.try_wait.parity{.acquire.cluster when cluster_scope}: 1 when the phase with
 * `parity` has completed. A .cta-scope (default) acquire synchronizes only with releases
 * by threads of the waiting CTA. */
NVFP4_SIM_ENTRY uint32_t nvfp4_sim_mbar_try_wait(uint32_t bar, uint32_t parity,
                                                 uint32_t cluster_scope, uint32_t site);
/* mapa.shared::cluster: the address of `addr` in the CTA of cluster rank `rank` (its rank
 * bits replaced). */
NVFP4_SIM_ENTRY uint64_t nvfp4_sim_mapa(uint32_t addr, uint32_t rank);
/* cvta shared::cta -> shared::cluster: the same value (it names the calling CTA). */
NVFP4_SIM_ENTRY uint64_t nvfp4_sim_cluster_addr(uint32_t addr);

/* ---- TMA and bulk groups --------------------------------------------------------------- */
/* cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
 * [dst], [tmap, {x, y}], [bar] (+ .L2::cache_hint when has_hint). */
NVFP4_SIM_ENTRY void nvfp4_sim_tma_load(uint64_t dst, const void *tmap, int32_t x, int32_t y, uint32_t bar,
                        uint64_t l2_hint, uint32_t has_hint, uint32_t site);
/* cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
 *   [.multicast::cluster][.cta_group::2] [dst], [tmap, {x, y}], [bar][, mask]: cta_group 1
 * or 2, mask 0 without .multicast::cluster (the cache hint is dropped); with .cta_group::2
 * the rank bits of `bar` pick the CTA of the pair whose barrier completes */
NVFP4_SIM_ENTRY void nvfp4_sim_tma_load_cluster(uint64_t dst, const void *tmap, int32_t x,
                                                int32_t y, uint32_t bar, uint32_t cta_group,
                                                uint32_t mask, uint32_t site);
/* cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tmap, {x, y}], [src] */
NVFP4_SIM_ENTRY void nvfp4_sim_tma_store(const void *tmap, uint32_t src, int32_t x, int32_t y, uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_bulk_commit_group(uint32_t site);
/* cp.async.bulk.wait_group{.read} n */
NVFP4_SIM_ENTRY void nvfp4_sim_bulk_wait_group(uint32_t n, uint32_t read, uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_prefetch_tensormap(const void *tmap, uint32_t site);

/* ---- tcgen05 (cta_group 1 or 2) ---------------------------------------------------------- */
NVFP4_SIM_ENTRY void nvfp4_sim_tc_alloc(uint32_t dst, uint32_t ncols, uint32_t cta_group, uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_tc_dealloc(uint32_t taddr, uint32_t ncols, uint32_t cta_group, uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_tc_relinquish(uint32_t cta_group, uint32_t site);
/* tcgen05.cp.cta_group::N.32x128b.warpx4 [taddr], sdesc */
NVFP4_SIM_ENTRY void nvfp4_sim_tc_cp(uint32_t taddr, uint64_t sdesc, uint32_t cta_group, uint32_t site);
/* tcgen05.mma.cta_group::N.kind::mxf4nvf4.block_scale.block16 [d], adesc, bdesc, idesc,
 * [sfa], [sfb], enable_input_d */
NVFP4_SIM_ENTRY void nvfp4_sim_tc_mma(uint32_t d, uint64_t adesc, uint64_t bdesc, uint32_t idesc,
                      uint32_t enable_input_d, uint32_t sfa, uint32_t sfb, uint32_t cta_group,
                      uint32_t site);
/* tcgen05.commit.cta_group::N.mbarrier::arrive::one[.multicast::cluster] [bar], mask
 * (mask 0: the barrier of the CTA `bar` names; else its offset in every CTA of the mask). */
NVFP4_SIM_ENTRY void nvfp4_sim_tc_commit(uint32_t bar, uint32_t cta_mask, uint32_t cta_group, uint32_t site);
/* tcgen05.ld.sync.aligned.32x32b.x<num>.b32: the lane's registers land in dst[0..num) at
 * the next tcgen05.wait::ld; every read of them first calls nvfp4_sim_tc_ld_use(dst). */
NVFP4_SIM_ENTRY void nvfp4_sim_tc_ld(uint32_t taddr, uint32_t num, uint32_t *dst, uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_tc_ld_use(const uint32_t *dst, uint32_t site);
/* tcgen05.wait::ld (ld = 1) / tcgen05.wait::st (ld = 0) */
NVFP4_SIM_ENTRY void nvfp4_sim_tc_wait(uint32_t ld, uint32_t site);

/* ---- sm_90a: warpgroup MMA, matrix store (wgmma.c) ------------------------------------ */
/* wgmma.mma_async.sync.aligned.m64n<n>k16.f32.bf16.bf16 {acc[0..n/2)}, {a0..a3}, desc,
 * scale_d, 1, 1, 0 (A in registers, B K-major by descriptor): called by each of the
 * warpgroup's 128 threads with its accumulator fragment in acc (updated in place). */
NVFP4_SIM_ENTRY void nvfp4_sim_wgmma_bf16(float *acc, uint32_t n, uint32_t a0, uint32_t a1,
                                          uint32_t a2, uint32_t a3, uint64_t desc,
                                          uint32_t scale_d, uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_wgmma_fence(uint32_t site);
NVFP4_SIM_ENTRY void nvfp4_sim_wgmma_commit(uint32_t site);
/* wgmma.wait_group.sync.aligned pending */
NVFP4_SIM_ENTRY void nvfp4_sim_wgmma_wait(uint32_t pending, uint32_t site);
/* stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [addr], {r0, r1, r2, r3} (every lane) */
NVFP4_SIM_ENTRY void nvfp4_sim_stmatrix_x4_trans(uint32_t addr, uint32_t r0, uint32_t r1,
                                                 uint32_t r2, uint32_t r3, uint32_t site);

/* ---- sm_120a: warp-level block-scaled MMA, matrix load (mma_sync.c) -------------------- */
/* ldmatrix.sync.aligned.m8n8.x4.shared.b16 {dst[0..3]}, [addr] (every lane; addr is this
 * lane's row of matrix lane / 8). */
NVFP4_SIM_ENTRY void nvfp4_sim_ldmatrix_x4(uint32_t addr, uint32_t *dst, uint32_t site);
/* mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1
 * .f32.ue4m3 {d[0..3]}, {a0..a3}, {b0, b1}, {c0..c3}, sfa, {bida, tida}, sfb, {bidb, tidb}
 * (every lane). */
NVFP4_SIM_ENTRY void nvfp4_sim_mma_block_scale(float *d, uint32_t a0, uint32_t a1, uint32_t a2,
                                               uint32_t a3, uint32_t b0, uint32_t b1, float c0,
                                               float c1, float c2, float c3, uint32_t sfa,
                                               uint32_t bida, uint32_t tida, uint32_t sfb,
                                               uint32_t bidb, uint32_t tidb, uint32_t site);
/* shfl.sync.bfly.b32 d, value, lane_mask, 0x1f, 0xffffffff (every lane, the same lane_mask):
 * returns value of lane (this lane ^ lane_mask). */
NVFP4_SIM_ENTRY uint32_t nvfp4_sim_shfl_bfly(uint32_t value, uint32_t lane_mask, uint32_t site);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_SIM_H */
