/* compile_module.c — C API test of the whole compilation (nvfp4-c/Pipeline.h), compiled as
 * C: parse a module holding one nvfp4.grouped_matmul, compile it to PTX (no ptxas) and,
 * when a CUDA toolkit is given, to a cubin; check the PTX instructions, the cubin's ELF
 * header, the emulation variant, the op for other targets, and that a failure comes back
 * with a log, not a crash.
 * The context gets only the dialects and translations (mlirNvfp4RegisterAllUpstream): the
 * compilation must not depend on the caller registering passes (gpu-module-to-binary was
 * once looked up by name and "did not refer to a registered pass"). Also: structs whose
 * structSize is below the 2.0 layout are refused.
 */
// RUN: nvfp4-capi-compile-module 2>&1 | FileCheck %s
// RUN: %if ptxas %{ nvfp4-capi-compile-module %cuda_root 2>&1 | FileCheck %s --check-prefix=CUBIN %}

#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/Passes.h"
#include "nvfp4-c/Pipeline.h"

#include "mlir-c/IR.h"

#include <stdio.h>
#include <string.h>

static const char *kModule =
    "func.func @f(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,\n"
    "             %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,\n"
    "             %c: memref<?x128xf16>) {\n"
    "  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)\n"
    "      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)\n"
    "      c(%c : memref<?x128xf16>) {target = \"sm_100a\", kernel_name = \"capi_kernel\"}\n"
    "  return\n"
    "}\n";

static MlirModule parse(MlirContext ctx) {
  return mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
}

static int compile(MlirContext ctx, const char *toolkit, bool emulate, bool cubin) {
  MlirModule m = parse(ctx);
  if (mlirModuleIsNull(m)) { printf("parse failed\n"); return 1; }
  MlirNvfp4CompileOptions o = mlirNvfp4CompileOptionsGetDefault();
  o.toolkitPath = toolkit;
  o.emulate = emulate;
  o.emitCubin = cubin;
  MlirNvfp4CompileResult r;
  mlirNvfp4CompileResultInit(&r);
  MlirLogicalResult ok = mlirNvfp4CompileModule(mlirModuleGetOperation(m), &o, &r);
  printf("%s %s: %s\n", emulate ? "sm_90a-emulation" : "sm_100a", cubin ? "cubin" : "ptx",
         mlirLogicalResultIsSuccess(ok) ? "ok" : "failed");
  if (mlirLogicalResultIsFailure(ok)) printf("log: %s", r.log ? r.log : "(none)\n");
  if (r.ptx) {
    printf("ptx target: %s\n", strstr(r.ptx, ".target sm_100a") ? "sm_100a"
                               : strstr(r.ptx, ".target sm_90a") ? "sm_90a" : "?");
    printf("ptx has mma: %d, emu call: %d, metadata: %d\n",
           strstr(r.ptx, "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16") != NULL,
           strstr(r.ptx, "nvfp4_emu_tcgen05_mma_mxf4nvf4_block16") != NULL,
           strstr(r.ptx, "nvfp4_kernel_metadata[768]") != NULL); /* 3 variants */
  }
  if (r.cubin)
    printf("cubin: %zu bytes, ELF %d\n", r.cubinSize,
           r.cubinSize > 4 && memcmp(r.cubin, "\177ELF", 4) == 0);
  mlirNvfp4CompileResultDestroy(&r);
  mlirModuleDestroy(m);
  return 0;
}

/* The op for each target of the table (include/nvfp4-c/Targets.h), to PTX: its .target and
 * the MMA instruction of its generator. */
static int compileTarget(MlirContext ctx, const char *target) {
  char text[2048];
  const char *at = strstr(kModule, "sm_100a");
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at - kModule), kModule, target, at + 7);
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  if (mlirModuleIsNull(m)) { printf("%s: parse failed\n", target); return 1; }
  MlirNvfp4CompileOptions o = mlirNvfp4CompileOptionsGetDefault();
  o.emitCubin = false;
  MlirNvfp4CompileResult r;
  mlirNvfp4CompileResultInit(&r);
  MlirLogicalResult ok = mlirNvfp4CompileModule(mlirModuleGetOperation(m), &o, &r);
  char want[32];
  snprintf(want, sizeof want, ".target %s\n", target);
  printf("%s ptx: %s, target line %d, tcgen05.mma %d, mma.sync block_scale %d\n", target,
         mlirLogicalResultIsSuccess(ok) ? "ok" : "failed", r.ptx && strstr(r.ptx, want) != NULL,
         r.ptx && strstr(r.ptx, "tcgen05.mma.cta_group::1.kind::mxf4nvf4") != NULL,
         r.ptx && strstr(r.ptx, "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4") != NULL);
  if (mlirLogicalResultIsFailure(ok)) printf("log: %s", r.log ? r.log : "(none)\n");
  mlirNvfp4CompileResultDestroy(&r);
  mlirModuleDestroy(m);
  return 0;
}

int main(int argc, char **argv) {
  const char *toolkit = argc > 1 ? argv[1] : NULL;
  MlirContext ctx = mlirContextCreate();
  mlirNvfp4RegisterAllUpstream(ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__nvfp4__(), ctx);
  int rc = 0;
  if (!toolkit) {
    /* a structSize below the 2.0 layout (0 stands for it): refused, the result untouched */
    MlirModule m = parse(ctx);
    MlirNvfp4CompileOptions o = mlirNvfp4CompileOptionsGetDefault();
    MlirNvfp4CompileResult r;
    memset(&r, 0, sizeof r);
    r.structSize = 1;
    bool refused = mlirLogicalResultIsFailure(
        mlirNvfp4CompileModule(mlirModuleGetOperation(m), &o, &r));
    printf("small result size: %s, log %s\n", refused ? "refused" : "accepted",
           r.log ? "written" : "untouched");
    o.structSize = 1;
    mlirNvfp4CompileResultInit(&r);
    refused = mlirLogicalResultIsFailure(mlirNvfp4CompileModule(mlirModuleGetOperation(m), &o, &r));
    printf("small options size: %s, log: %s", refused ? "refused" : "accepted",
           r.log ? r.log : "(none)\n");
    mlirNvfp4CompileResultDestroy(&r);
    mlirModuleDestroy(m);
    rc |= compile(ctx, NULL, false, false);
    rc |= compile(ctx, NULL, true, false);
    /* A toolkit without ptxas: the PTX is produced, the cubin step fails with a log. */
    rc |= compile(ctx, "/nonexistent-cuda", false, true);
    static const char *const kTargets[] = {"sm_100f", "sm_103a", "sm_120a", "sm_121a", "sm_120f"};
    for (size_t i = 0; i < sizeof kTargets / sizeof kTargets[0]; ++i)
      rc |= compileTarget(ctx, kTargets[i]);
  } else {
    rc |= compile(ctx, toolkit, false, true);
    rc |= compile(ctx, toolkit, true, true);
  }
  mlirContextDestroy(ctx);
  return rc;
}

// CHECK: small result size: refused, log untouched
// CHECK: small options size: refused, log: nvfp4: options->structSize is 1, expected 0 or at least
// CHECK: sm_100a ptx: ok
// CHECK-NEXT: ptx target: sm_100a
// CHECK-NEXT: ptx has mma: 1, emu call: 0, metadata: 1
// CHECK: sm_90a-emulation ptx: ok
// CHECK-NEXT: ptx target: sm_90a
// CHECK-NEXT: ptx has mma: 0, emu call: 1, metadata: 1
// CHECK: sm_100a cubin: failed
// CHECK: log: nvfp4: cannot run /nonexistent-cuda/bin/ptxas
// CHECK: sm_100f ptx: ok, target line 1, tcgen05.mma 1, mma.sync block_scale 0
// CHECK: sm_103a ptx: ok, target line 1, tcgen05.mma 1, mma.sync block_scale 0
// CHECK: sm_120a ptx: ok, target line 1, tcgen05.mma 0, mma.sync block_scale 1
// CHECK: sm_121a ptx: ok, target line 1, tcgen05.mma 0, mma.sync block_scale 1
// CHECK: sm_120f ptx: ok, target line 1, tcgen05.mma 0, mma.sync block_scale 1

// CUBIN: sm_100a cubin: ok
// CUBIN: cubin: {{[0-9]+}} bytes, ELF 1
// CUBIN: sm_90a-emulation cubin: ok
// CUBIN: cubin: {{[0-9]+}} bytes, ELF 1
