/* ir_fuzzer.c — libFuzzer harness for the compiler front half: MLIR text -> parse ->
 * verify (the C verifier of nvfp4.grouped_matmul) -> --nvfp4-lower-grouped-matmul ->
 * --nvfp4-emulate-tcgen05, the same C API a tool uses. Any crash, sanitizer report or
 * timeout in these steps is a finding; diagnostics are the expected outcome and are
 * swallowed. Run by scripts/fuzz.sh (seeds: examples/ and the .mlir tests, split at
 * "// -----"; dictionary fuzz/mlir.dict).
 *
 * The context holds only the dialects the pipeline uses (func, gpu, llvm, nvvm, nvfp4), so
 * mutants exercise this project's code rather than every upstream dialect's parser, and
 * is recreated every 256 inputs so uniqued attributes do not pile up. Inputs nested more
 * than 64 brackets deep are skipped: MLIR's recursive-descent parser (upstream, not this
 * project) can be driven into stack exhaustion by them. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVVM.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/Passes.h"

static MlirContext g_ctx;
static int g_uses;

static MlirLogicalResult swallow(MlirDiagnostic d, void *user) {
  (void)d, (void)user;
  return mlirLogicalResultSuccess();
}

static void newContext(void) {
  if (!mlirContextIsNull(g_ctx)) mlirContextDestroy(g_ctx);
  g_ctx = mlirContextCreateWithThreading(false);
  MlirDialectHandle handles[] = {mlirGetDialectHandle__func__(), mlirGetDialectHandle__gpu__(),
                                 mlirGetDialectHandle__llvm__(), mlirGetDialectHandle__nvvm__(),
                                 mlirGetDialectHandle__nvfp4__()};
  for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i)
    mlirDialectHandleRegisterDialect(handles[i], g_ctx);
  mlirContextAttachDiagnosticHandler(g_ctx, swallow, NULL, NULL);
  g_uses = 0;
}

static int tooDeep(const uint8_t *data, size_t size) {
  int depth = 0;
  for (size_t i = 0; i < size; ++i) {
    uint8_t c = data[i];
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > 64) return 1;
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
      --depth;
    }
  }
  return 0;
}

/* parse -> verify -> lower -> emulate; 1 when every step succeeded. */
static int runPipeline(const char *text, size_t size) {
  MlirModule m = mlirModuleCreateParse(g_ctx, (MlirStringRef){text, size});
  if (mlirModuleIsNull(m)) return 0;
  MlirOperation op = mlirModuleGetOperation(m);
  int ok = mlirOperationVerify(op);
  if (ok) {
    MlirPassManager pm = mlirPassManagerCreate(g_ctx);
    mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateLowerGroupedMatmulPass());
    mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateEmulateTcgen05Pass());
    ok = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, op));
    mlirPassManagerDestroy(pm);
  }
  mlirModuleDestroy(m);
  return ok;
}

/* The harness must reach the passes: a one-group op has to go all the way through. */
static const char kSelfCheck[] =
    "func.func @f(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,\n"
    "  %sa: memref<?x4x32x4x4xf8E4M3FN>, %sb: memref<1x4x32x4x4xf8E4M3FN>, %c: memref<?x128xf16>) {\n"
    "  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)\n"
    "    sfa(%sa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sb : memref<1x4x32x4x4xf8E4M3FN>)\n"
    "    c(%c : memref<?x128xf16>) {target = \"sm_100a\"}\n"
    "  return\n}\n";

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  newContext();
  if (!runPipeline(kSelfCheck, sizeof kSelfCheck - 1)) {
    fprintf(stderr, "ir_fuzzer: the self-check module did not lower and emulate; the "
                    "harness would fuzz nothing (is nvfp4_emu.bc found?)\n");
    abort();
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (tooDeep(data, size)) return 0;
  if (++g_uses > 256) newContext();
  /* MLIR's lexer reads the terminating NUL of its buffer: hand it a C string, as every
   * caller does (files are read into NUL-terminated buffers) */
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  runPipeline(text, size);
  free(text);
  return 0;
}
