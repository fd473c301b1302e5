/* Nvvm.h — builders for the nvvm-dialect operations the grouped-matmul kernel uses
 * (special registers, barriers, mbarriers, TMA, tcgen05), on top of KernelBuilder. */
#ifndef NVFP4_CONVERSION_NVVM_H
#define NVFP4_CONVERSION_NVVM_H

#include "KernelBuilder.h"

KbValue nvSreg(KbBuilder *b, const char *name); /* e.g. "tid.x", "ctaid.x", "nctaid.x" */
void nvBarrier0(KbBuilder *b);
void nvWarpSync(KbBuilder *b);

/* mbarriers (shared-memory pointers). */
void nvMbarInit(KbBuilder *b, KbValue bar, uint32_t count);
void nvMbarFenceInit(KbBuilder *b);
void nvMbarArriveExpectTx(KbBuilder *b, KbValue bar, KbValue bytes);
void nvMbarArrive(KbBuilder *b, KbValue bar);
/* Spins on mbarrier.try_wait.parity until the phase with `parity` has completed. */
void nvMbarWait(KbBuilder *b, KbValue bar, KbValue parity);
void nvFenceProxyAsyncShared(KbBuilder *b);

/* TMA: 2-D tiled load of one box into shared memory, completing on `bar`. `tag` names the
 * operand ("a", "b", "sfa", "sfb") as the discardable attribute nvfp4.operand. */
MlirOperation nvTmaLoad2d(KbBuilder *b, KbValue dstShared, KbValue tensorMap, KbValue bar,
                          KbValue x, KbValue y, const char *tag);

/* tcgen05 (cta_group::1). TMEM addresses are i32 values (lane << 16 | column). */
void nvTcAlloc(KbBuilder *b, KbValue dstShared, uint32_t cols);
void nvTcDealloc(KbBuilder *b, KbValue taddr, uint32_t cols);
void nvTcRelinquish(KbBuilder *b);
void nvTcFenceBefore(KbBuilder *b);
void nvTcFenceAfter(KbBuilder *b);
void nvTcWaitLd(KbBuilder *b);
void nvTcCommit(KbBuilder *b, KbValue bar);
void nvTcCp32x128bWarpx4(KbBuilder *b, KbValue taddr, KbValue sdesc);
void nvTcMmaMxf4Nvf4(KbBuilder *b, KbValue d, KbValue adesc, KbValue bdesc, KbValue idesc,
                     KbValue enableD, KbValue sfa, KbValue sfb);
/* tcgen05.ld.32x32b.x<num> -> vector<num x i32>. */
KbValue nvTcLd32x32b(KbBuilder *b, KbValue taddr, uint32_t num);

#endif /* NVFP4_CONVERSION_NVVM_H */
