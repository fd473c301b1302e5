// NVFP4Dialect.h — C++ declarations of the nvfp4 dialect and its op, generated from ODS
// (NVFP4Dialect.td, NVFP4Ops.td). Only the thin C++ adapters include this; everything
// else uses the C API in include/nvfp4-c/Dialect.h.
#ifndef NVFP4_NVFP4DIALECT_H
#define NVFP4_NVFP4DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "nvfp4/NVFP4Dialect.h.inc"

#define GET_OP_CLASSES
#include "nvfp4/NVFP4Ops.h.inc"

#endif // NVFP4_NVFP4DIALECT_H
