/* Nvvm.h — builders for the nvvm-dialect operations the grouped-matmul kernel uses
 * (special registers, barriers, mbarriers, TMA, tcgen05), on top of KernelBuilder. */
#ifndef NVFP4_CONVERSION_NVVM_H
#define NVFP4_CONVERSION_NVVM_H

#include "KernelBuilder.h"

KbValue nvSreg(KbBuilder *b, const char *name); /* e.g. "tid.x", "ctaid.x", "nctaid.x" */
void nvBarrier0(KbBuilder *b);
void nvWarpSync(KbBuilder *b);
/* Programmatic dependent launch (griddepcontrol, sm_90+): `wait` blocks the executing
 * thread until every prerequisite grid has completed and its memory operations are visible;
 * `launch_dependents` lets the dependent grid start once every CTA has executed it (the
 * first execution in a CTA counts) or exited. Outside a programmatic launch both return at
 * once. */
void nvGridDepWait(KbBuilder *b);
void nvGridDepLaunchDependents(KbBuilder *b);

/* mbarriers (shared-memory pointers). */
void nvMbarInit(KbBuilder *b, KbValue bar, uint32_t count);
void nvMbarFenceInit(KbBuilder *b);
void nvMbarArriveExpectTx(KbBuilder *b, KbValue bar, KbValue bytes);
void nvMbarArrive(KbBuilder *b, KbValue bar);
/* Spins on mbarrier.try_wait.parity until the phase with `parity` has completed. */
void nvMbarWait(KbBuilder *b, KbValue bar, KbValue parity);
/* The same with .acquire.cluster semantics (cluster = true): the wait synchronizes with
 * arrives (remote, or tcgen05.commit multicasts) released by threads of other CTAs. */
void nvMbarWaitScoped(KbBuilder *b, KbValue bar, KbValue parity, bool cluster);
/* The same wait, its try_wait tagged {nvfp4.barrier = barrier} (the plan's barrier-array
 * name; NULL: no tag) so that tests can find (and break) the waits on one array. */
void nvMbarWaitTagged(KbBuilder *b, KbValue bar, KbValue parity, bool cluster,
                      const char *barrier);
void nvFenceProxyAsyncShared(KbBuilder *b);

/* TMA: 2-D tiled load of one box into shared memory, completing on `bar`. `tag` names the
 * operand ("a", "b", "sfa", "sfb") as the discardable attribute nvfp4.operand. `l2Hint`
 * (an i64 cache policy, see NV_L2_EVICT_*) may be a null value for none. */
MlirOperation nvTmaLoad2d(KbBuilder *b, KbValue dstShared, KbValue tensorMap, KbValue bar,
                          KbValue x, KbValue y, KbValue l2Hint, const char *tag);
/* The same load with .cta_group::2 (ctaGroup 2: `bar` may be the peer CTA's barrier, see
 * nvLeaderBarrier) and, for a non-null i16 `ctaMask`, .multicast::cluster: the box lands
 * at the same offset in every CTA of the mask, each completing on `bar`'s offset in its
 * own CTA, or with .cta_group::2 in the CTA the address's peer bit names. */
MlirOperation nvTmaLoad2dPair(KbBuilder *b, KbValue dstShared, KbValue tensorMap, KbValue bar,
                              KbValue x, KbValue y, KbValue l2Hint, const char *tag,
                              uint32_t ctaGroup, KbValue ctaMask);
/* The leader's (even CTA's) barrier at the offset of `bar` (this CTA's), as a
 * .cta_group::2 TMA load names it: the address with the peer bit cleared
 * (MLIR_NVFP4_PEER_BIT_MASK; CUTLASS's SM100_TMA_2SM_LOAD). */
KbValue nvLeaderBarrier(KbBuilder *b, KbValue bar);
/* TMA: 2-D tiled store of one box from shared memory (bulk-group completion). */
MlirOperation nvTmaStore2d(KbBuilder *b, KbValue tensorMap, KbValue srcShared, KbValue x,
                           KbValue y, const char *tag);
void nvBulkCommitGroup(KbBuilder *b);
/* cp.async.bulk.wait_group.read n: the bulk groups but the n most recent have finished
 * reading their shared-memory sources. */
void nvBulkWaitGroupRead(KbBuilder *b, uint32_t n);
/* cp.async.bulk.wait_group n: the bulk groups but the n most recent have completed. */
void nvBulkWaitGroup(KbBuilder *b, uint32_t n);
/* prefetch.tensormap [ptr] (generic pointer to a CUtensorMap). */
void nvPrefetchTensormap(KbBuilder *b, KbValue tensorMap);
/* bar.sync id, threads: a named barrier among `threads` threads (multiple of 32). */
void nvNamedBarrier(KbBuilder *b, uint32_t id, uint32_t threads);
/* bar.sync with a barrier id computed at run time (0..15). */
void nvNamedBarrierAt(KbBuilder *b, KbValue id, uint32_t threads);
/* bar.red.or.pred on named barrier `id` among `threads` threads: every thread gets i1
 * (any thread's `pred` (i1) was true); also a bar.sync, with its memory ordering. Inline
 * assembly: the nvvm.barrier op takes a reduction at barrier 0 only. */
#define NV_ASM_BARRIER_OR                                                                    \
  "{\n\t.reg .pred p, q;\n\tsetp.ne.u32 p, $3, 0;\n\tbar.red.or.pred q, $1, $2, p;\n\t"     \
  "selp.u32 $0, 1, 0, q;\n\t}"
KbValue nvNamedBarrierOrAt(KbBuilder *b, KbValue id, uint32_t threads, KbValue pred);

/* L2 cache-eviction policies for TMA loads (the createpolicy encodings CUTLASS uses for
 * its CacheHintSm90 values). */
#define NV_L2_EVICT_FIRST 0x12F0000000000000ll
#define NV_L2_EVICT_LAST 0x14F0000000000000ll

/* Clusters: the shared::cluster address of `bar` in the CTA of cluster rank `rank`; an
 * arrive (release, cluster scope) on such a remote mbarrier; barrier.cluster arrive + wait
 * (aligned: every thread of the warp executes it). */
KbValue nvMapa(KbBuilder *b, KbValue sharedPtr, KbValue rank);
void nvMbarArriveCluster(KbBuilder *b, KbValue clusterPtr);
void nvClusterSync(KbBuilder *b);

/* Tensor maps in global memory (generic i64 addresses): tensormap.replace of the global
 * address; the release of this thread's tensor-map writes to the tensormap proxy; the
 * acquire of one map (128 bytes) before this thread's TMA uses it. */
void nvTensormapReplaceAddress(KbBuilder *b, KbValue map, KbValue address);
void nvFenceProxyTensormapRelease(KbBuilder *b);
void nvFenceProxyTensormapAcquire(KbBuilder *b, KbValue map);

/* Returns `vec` (vector<N x i32>) passed through an empty inline-asm statement with
 * side effects whose outputs are tied to its inputs: every use of the result depends on
 * the statement, which stays after a preceding tcgen05.wait::ld (both have side effects),
 * so no use of tcgen05.ld registers can be scheduled before the wait. */
KbValue nvRegisterFence(KbBuilder *b, KbValue vec, uint32_t num);

/* Global counters between CTAs (generic i64 addresses of 4-byte words in global memory): a
 * release store at GPU scope (fence.acq_rel.gpu, then st.relaxed.gpu: the writes this
 * thread has observed, e.g. its CTA's through a barrier, are visible before the value), an
 * acquire load at GPU scope, and an atomic add with acquire-release semantics at GPU scope
 * returning the old value. The stream-K schedule publishes partial sums with them. */
#define NV_ASM_RELEASE_STORE_U32 "fence.acq_rel.gpu;\n\tst.relaxed.gpu.global.b32 [$0], $1;"
#define NV_ASM_ACQUIRE_LOAD_U32 "ld.acquire.gpu.global.b32 $0, [$1];"
#define NV_ASM_ATOMIC_ADD_U32 "atom.acq_rel.gpu.global.add.u32 $0, [$1], $2;"
void nvGlobalReleaseStoreU32(KbBuilder *b, KbValue address, KbValue value);
KbValue nvGlobalAcquireLoadU32(KbBuilder *b, KbValue address);
KbValue nvGlobalAtomicAddU32(KbBuilder *b, KbValue address, KbValue value);

/* ---- sm_90a: register reallocation, warpgroup MMA, matrix store --------------------- */

/* setmaxnreg.{inc,dec}.sync.aligned.u32 count (every thread of the warpgroup). */
void nvSetMaxRegisters(KbBuilder *b, uint32_t count, bool increase);
void nvWgmmaFence(KbBuilder *b);
void nvWgmmaCommitGroup(KbBuilder *b);
/* wgmma.wait_group.sync.aligned pending: all but the `pending` most recent groups done. */
void nvWgmmaWaitGroup(KbBuilder *b, uint32_t pending);
/* wgmma.mma_async.sync.aligned.m64n<n>k16.f32.bf16.bf16 with A in registers: acc[0..n/2)
 * (f32, updated in place) += a[0..3] (i32: bf16x2 fragments) x B (descriptor, K-major);
 * scaleD (i32) 0 ignores the accumulator's input. */
void nvWgmmaBf16RegA(KbBuilder *b, uint32_t n, KbValue *acc, const KbValue a[4], KbValue descB,
                     KbValue scaleD);
/* stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [ptr], {r0, r1, r2, r3}. */
void nvStMatrixX4Trans(KbBuilder *b, KbValue sharedPtr, const KbValue regs[4]);
/* Replaces each of values[0..n) (i32 or f32) by itself passed through one empty
 * side-effecting inline-asm statement: the definitions stay before, the uses after, every
 * other side-effecting op around it (wgmma fences and waits). */
void nvRegisterFenceValues(KbBuilder *b, KbValue *values, uint32_t n);

/* tcgen05. TMEM addresses are i32 values (lane << 16 | column). `ctaGroup` (1 or 2) is the
 * .cta_group of the instruction; every tcgen05 op of one kernel uses the same one. */
void nvTcAlloc(KbBuilder *b, KbValue dstShared, uint32_t cols, uint32_t ctaGroup);
void nvTcDealloc(KbBuilder *b, KbValue taddr, uint32_t cols, uint32_t ctaGroup);
void nvTcRelinquish(KbBuilder *b, uint32_t ctaGroup);
void nvTcFenceBefore(KbBuilder *b);
void nvTcFenceAfter(KbBuilder *b);
void nvTcWaitLd(KbBuilder *b);
/* tcgen05.commit: arrives on `bar` (in every CTA of `ctaMask` with .multicast::cluster when
 * ctaMask != 0) once the prior tcgen05 operations of this thread complete. */
void nvTcCommit(KbBuilder *b, KbValue bar, uint32_t ctaGroup, uint32_t ctaMask);
void nvTcCp32x128bWarpx4(KbBuilder *b, KbValue taddr, KbValue sdesc, uint32_t ctaGroup);
void nvTcMmaMxf4Nvf4(KbBuilder *b, KbValue d, KbValue adesc, KbValue bdesc, KbValue idesc,
                     KbValue enableD, KbValue sfa, KbValue sfb, uint32_t ctaGroup);
/* tcgen05.ld.32x32b.x<num> -> vector<num x i32>. */
KbValue nvTcLd32x32b(KbBuilder *b, KbValue taddr, uint32_t num);

#endif /* NVFP4_CONVERSION_NVVM_H */
