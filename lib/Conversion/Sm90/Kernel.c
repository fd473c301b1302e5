/* Kernel.c — assembles the sm_90a kernel of one variant: the prologue (one thread
 * initialises every mbarrier of the plan; the consumer threads copy the E4M3 scale table
 * into shared memory), then one role per warpgroup with its register budget (setmaxnreg):
 * warpgroup 0 gives registers back and its first thread runs the TMA producer, warpgroups
 * 1 and 2 take them and run the decode + wgmma mainloop and the epilogue
 * (docs/kernel-sm90a.md). No Tensor Memory, no teardown beyond the consumers' wait for
 * their TMA stores: every mbarrier arrive is a plain (synchronous) one.
 */
#include <stdio.h>

#include "Sm90Kernel.h"

#include "../Nvvm.h"
#include "mlir-c/Dialect/LLVM.h"
#include "nvfp4-c/DescriptorsSm90.h"

bool nvfp4Sm90ScaleTableGlobal(const char *name, char *out, size_t size) {
  int n = snprintf(out, size, "  llvm.mlir.global internal constant @%s(dense<[", name);
  for (unsigned c = 0; c < 256 && n > 0 && (size_t)n < size; ++c)
    n += snprintf(out + n, size - (size_t)n, "%s%d", c ? ", " : "",
                  (int)(int32_t)mlirNvfp4Sm90ScaleTableEntry((uint8_t)c));
  if (n > 0 && (size_t)n < size)
    n += snprintf(out + n, size - (size_t)n,
                  "]> : tensor<256xi32>) {addr_space = 1 : i32, alignment = 16 : i64} : "
                  "!llvm.array<256 x i32>\n");
  return n > 0 && (size_t)n < size;
}

void nvfp4BuildSm90Kernel(KbBuilder *b, const MlirNvfp4KernelConfig *cfg, KbValue params,
                          const char *dynSmemGlobal, const char *scaleTableGlobal) {
  Sm90Kernel k = {0};
  GenKernel *g = &k.g;
  genKernelInit(g, b, cfg, params, dynSmemGlobal);

  kbIf(b, kbCmpI(b, KB_EQ, g->tid, 0));
  genInitBarriers(g);
  kbEndIf(b);
  /* The scale table: 256 words from global memory into shared memory (read with random
   * indices by the decode, which global or constant memory would serialise). */
  kbIf(b, kbCmpI(b, KB_ULT, g->tid, 256));
  {
    KbValue table = kbAddressOf(b, scaleTableGlobal, mlirLLVMPointerTypeGet(b->ctx, 1));
    KbValue off = kbMulI(b, g->tid, 4);
    KbValue v = kbLoad(b, b->i32, kbGepDyn(b, table, off), 4);
    kbStore(b, v, genSharedPtr(g, kbAdd(b, kbAddI(b, g->smem, cfg->sm90.lutOffset), off)), 4);
  }
  kbEndIf(b);
  nvBarrier0(b);

  /* One role per warpgroup, each one branch of a single if/else (setmaxnreg needs it). */
  kbIf(b, kbCmpI(b, KB_ULT, g->warp, 4));
  {
    nvSetMaxRegisters(b, cfg->sm90.producerRegs, false);
    kbIf(b, kbCmpI(b, KB_EQ, g->tid, 0));
    sm90ProducerLoop(&k);
    kbEndIf(b);
  }
  kbElse(b);
  {
    nvSetMaxRegisters(b, cfg->sm90.consumerRegs, true);
    sm90ConsumerLoop(&k);
  }
  kbEndIf(b);
  kbReturn(b);
}
