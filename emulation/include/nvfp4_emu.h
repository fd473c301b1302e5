/* nvfp4_emu.h — the call interface between the emulation passes (nvfp4-emulate-tcgen05,
 * nvfp4-emulate-sm120) and the emulation device library (emulation/device/).
 *
 * The pass rewrites each nvvm.tcgen05.* op of the generated sm_100a kernel into a call to
 * one of these functions; the library implements the PTX ISA semantics of the instruction
 * on sm_90a: Tensor Memory is a per-CTA region of a global workspace (128 lanes x 512
 * columns x 32 bit = NVFP4_EMU_TMEM_BYTES_PER_CTA), the MMA runs in software, descriptors
 * are decoded exactly as the ISA defines them. Anything it does not implement traps with a
 * recorded reason.
 *
 * The _cg2 functions are the .cta_group::2 forms: they act on the Tensor Memory (and, for
 * cp / mma, the shared memory) of both CTAs of the CTA pair, the two CTAs of a cluster whose
 * %cluster_ctarank differ in the last bit; the peer's Tensor Memory is its own region of the
 * same workspace, its shared memory is reached through distributed shared memory.
 *
 * Conventions: a TMEM address is the 32-bit value (lane << 16) | column; shared-memory
 * pointers are addrspace(3); the workspace is the device address the runtime stores in the
 * parameter header (NVFP4_ABI_HDR_WORKSPACE), CTA c owning bytes
 * [c * NVFP4_EMU_TMEM_BYTES_PER_CTA, (c + 1) * NVFP4_EMU_TMEM_BYTES_PER_CTA).
 */
#ifndef NVFP4_EMU_H
#define NVFP4_EMU_H

#include <stdint.h>

#define NVFP4_EMU_TMEM_LANES 128u
#define NVFP4_EMU_TMEM_COLUMNS 512u
#define NVFP4_EMU_TMEM_BYTES_PER_CTA (NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS * 4u)

#if defined(__NVPTX__)
#define NVFP4_EMU_SHARED __attribute__((address_space(3)))
#else
#define NVFP4_EMU_SHARED
#endif

/* Called by every thread at each emulated kernel's entry (the emulation pass inserts it):
 * clears this CTA's allocation state and pair mailbox left in shared memory by an earlier
 * CTA, then a CTA barrier (a cluster barrier in a cluster of several CTAs), so that the
 * state of a launch never depends on what an earlier launch left behind. %gridid alone
 * cannot tell launches apart: CUDA graph replays of one kernel node repeat it. */
void nvfp4_emu_cta_begin(void);
/* tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dst], ncols — warp-collective. */
void nvfp4_emu_tcgen05_alloc(NVFP4_EMU_SHARED uint32_t *dst, uint32_t ncols, uint64_t workspace);
/* tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols — warp-collective. */
void nvfp4_emu_tcgen05_dealloc(uint32_t taddr, uint32_t ncols);
/* tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned — warp-collective. */
void nvfp4_emu_tcgen05_relinquish_alloc_permit(void);
/* tcgen05.cp.cta_group::1.32x128b.warpx4 [taddr], sdesc — one thread. */
void nvfp4_emu_tcgen05_cp_32x128b_warpx4(uint32_t taddr, uint64_t sdesc);
/* tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [d], adesc, bdesc, idesc,
 *   [sfa], [sfb], enable_input_d — one thread; completes before returning. */
void nvfp4_emu_tcgen05_mma_mxf4nvf4_block16(uint32_t d, uint64_t adesc, uint64_t bdesc,
                                            uint32_t idesc, uint32_t enable_input_d,
                                            uint32_t sfa, uint32_t sfb);
/* tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar]. */
void nvfp4_emu_tcgen05_commit(NVFP4_EMU_SHARED uint64_t *mbar);
/* tcgen05.ld.sync.aligned.32x32b.x<num>.b32 — warp-collective; lane i of the warp gets
 * TMEM lane (taddr.lane + i), columns taddr.col .. taddr.col + num - 1, into dst[0..num). */
void nvfp4_emu_tcgen05_ld_32x32b(uint32_t taddr, uint32_t *dst, uint32_t num);
void nvfp4_emu_tcgen05_wait_ld(void);
void nvfp4_emu_tcgen05_wait_st(void);
void nvfp4_emu_tcgen05_fence_before_thread_sync(void);
void nvfp4_emu_tcgen05_fence_after_thread_sync(void);

/* ---- .cta_group::2 (a CTA pair) ---------------------------------------------------- */
/* tcgen05.alloc.cta_group::2 — one warp in each CTA of the pair, collectively: both get the
 * same columns, booked in both CTAs. */
void nvfp4_emu_tcgen05_alloc_cg2(NVFP4_EMU_SHARED uint32_t *dst, uint32_t ncols,
                                 uint64_t workspace);
/* tcgen05.dealloc.cta_group::2 — collectively by one warp in each CTA of the pair. */
void nvfp4_emu_tcgen05_dealloc_cg2(uint32_t taddr, uint32_t ncols);
/* tcgen05.relinquish_alloc_permit.cta_group::2 — collectively, both CTAs relinquish. */
void nvfp4_emu_tcgen05_relinquish_alloc_permit_cg2(void);
/* tcgen05.cp.cta_group::2.32x128b.warpx4 [taddr], sdesc — one thread of the pair; each CTA's
 * shared memory at the descriptor is copied into that CTA's Tensor Memory at taddr. */
void nvfp4_emu_tcgen05_cp_32x128b_warpx4_cg2(uint32_t taddr, uint64_t sdesc);
/* tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block16, M = 256 — one thread of the
 * pair: rows 0..127 of A and D in the even CTA, 128..255 in the odd CTA; B's first N/2
 * columns from the even CTA's shared memory, the rest from the odd CTA's; each CTA's scale
 * factors from its own Tensor Memory. Completes before returning. */
void nvfp4_emu_tcgen05_mma_mxf4nvf4_block16_cg2(uint32_t d, uint64_t adesc, uint64_t bdesc,
                                                uint32_t idesc, uint32_t enable_input_d,
                                                uint32_t sfa, uint32_t sfb);
/* tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster{.multicast::cluster}
 * [mbar]{, ctaMask}: cta_mask 0 arrives on mbar of the issuing CTA; otherwise on the
 * mbarrier at mbar's offset in every CTA whose %cluster_ctarank bit is set. */
void nvfp4_emu_tcgen05_commit_cg2(NVFP4_EMU_SHARED uint64_t *mbar, uint32_t cta_mask);

/* ---- sm_120a: the warp-level block-scaled MMA (nvfp4-emulate-sm120) ----------------- */
/* mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1
 * .f32.ue4m3 {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3}, sfa, {bida, tida}, sfb, {bidb, tidb}
 * — warp-collective (all 32 lanes, converged): this lane's D registers into d[0..3]. The
 * lanes exchange the A rows, B columns and scale words the ISA's fragment layouts give
 * them with shuffles; traps on selectors outside the .scale_vec::4X ranges. */
void nvfp4_emu_mma_sync_mxf4nvf4_4x(float *d, uint32_t a0, uint32_t a1, uint32_t a2,
                                    uint32_t a3, uint32_t b0, uint32_t b1, float c0, float c1,
                                    float c2, float c3, uint32_t sfa, uint32_t bida,
                                    uint32_t tida, uint32_t sfb, uint32_t bidb, uint32_t tidb);

#endif /* NVFP4_EMU_H */
