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
    The `nvfp4` dialect holds one op, `nvfp4.grouped_matmul`, which the nvfp4 passes
    lower to an sm_100a tcgen05/TMA kernel.
  }];
}

class NVFP4_Op<string mnemonic, list<Trait> traits = []>
    : Op<NVFP4_Dialect, mnemonic, traits>;

#endif // NVFP4_DIALECT_TD
