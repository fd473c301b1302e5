// NVFP4Dialect.td — ODS definition of the `nvfp4` dialect (grouped block-scaled NVFP4
// matmul). The C++ generated from it is glue only; op verification lives in C
// (lib/Dialect/Verifier.c).
#ifndef NVFP4_DIALECT_TD
#define NVFP4_DIALECT_TD

include "mlir/IR/OpBase.td"

def NVFP4_Dialect : Dialect {
  let name = "nvfp4";
  let cppNamespace = "::mlir::nvfp4";
  let summary = "Grouped, block-scaled NVFP4 matrix multiplication";
  let description = [{
    The `nvfp4` dialect holds two ops, which the nvfp4 passes lower to sm_100a
    tcgen05/TMA kernels: `nvfp4.grouped_matmul` (one memref per group in each operand
    list) and `nvfp4.moe_matmul` (the contiguous MoE form: one buffer of tokens sorted
    by expert, device-resident expert offsets).
  }];
}

class NVFP4_Op<string mnemonic, list<Trait> traits = []>
    : Op<NVFP4_Dialect, mnemonic, traits>;

#endif // NVFP4_DIALECT_TD
