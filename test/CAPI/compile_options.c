/* compile_options.c — C API test of the options appended to Pipeline.h after the 2.0
 * layout, compiled as C (PTX only, no ptxas needed):
 *   - a caller built against the 2.0 structs (structSize of the 2.0 layout) still
 *     compiles, and the library writes nothing past its 2.0 result;
 *   - `jobs` changes nothing in the PTX;
 *   - `cacheDir`: a miss compiles and stores, a hit (on a freshly parsed module) returns
 *     the same PTX, says so, and leaves the module unlowered; a corrupt entry is deleted,
 *     noted in the log and compiled anew;
 *   - `emulate` and `proxy` on an op whose target that build does not rewrite (emulate: not
 *     a Blackwell target; proxy: not sm_100a, sm_100f or sm_103a) fail with a diagnostic at
 *     the op and the reason in the log, and leave the module unlowered (the sm_90a kernel
 *     has no tcgen05 op: the build would have been the native kernel, unannounced);
 *     mlirNvfp4FindUnrewritableOp names that op, nothing in an sm_100a or sm_103a module,
 *     an sm_120a op for the proxy only; mlirNvfp4TargetIsRewritable on every target.
 * RUN: rm -rf %t.cache
 * RUN: nvfp4-capi-compile-options %t.cache 2>&1 | FileCheck %s
 */
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/Pipeline.h"

#include "mlir-c/IR.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "print_diagnostic.h"

static const char *kModule =
    "func.func @g(%a: memref<?x512xf4E2M1FN>, %b: memref<256x512xf4E2M1FN>,\n"
    "    %sfa: memref<?x8x32x4x4xf8E4M3FN>, %sfb: memref<2x8x32x4x4xf8E4M3FN>,\n"
    "    %c: memref<?x256xf16>) {\n"
    "  nvfp4.grouped_matmul a(%a : memref<?x512xf4E2M1FN>) b(%b : memref<256x512xf4E2M1FN>)\n"
    "    sfa(%sfa : memref<?x8x32x4x4xf8E4M3FN>) sfb(%sfb : memref<2x8x32x4x4xf8E4M3FN>)\n"
    "    c(%c : memref<?x256xf16>) {target = \"sm_100a\", kernel_name = \"opt_kernel\"}\n"
    "  return\n"
    "}\n";

/* The 2.0 layouts, as a caller compiled against them has them. */
typedef struct Options20 {
  size_t structSize;
  const char *toolkitPath;
  bool emulate, emitCubin, ptxasVerbose, stopAfterLowering, proxy;
} Options20;
typedef struct Result20 {
  size_t structSize;
  char *ptx;
  size_t ptxSize;
  void *cubin;
  size_t cubinSize;
  char *log;
  double lowerMs, llvmMs, ptxasMs;
} Result20;

static MlirContext ctx;

/* The module, with its op's target replaced by `target` when given. */
static MlirModule parseFor(const char *target) {
  char text[2048];
  snprintf(text, sizeof text, "%s", kModule);
  char *t = strstr(text, "sm_100a");
  if (target && t) {
    memmove(t + strlen(target), t + 7, strlen(t + 7) + 1);
    memcpy(t, target, strlen(target));
  }
  return mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
}
static MlirModule parse(void) { return parseFor(NULL); }

typedef struct Found { bool op; } Found;
static MlirWalkResult findOp(MlirOperation op, void *user) {
  if (mlirNvfp4IsGroupedMatmul(op)) ((Found *)user)->op = true;
  return MlirWalkResultAdvance;
}

/* emulate or proxy on the sm_90a form of the module: refused, the module left as it was. */
static void sm90aRefused(bool emulate) {
  MlirModule m = parseFor("sm_90a");
  MlirNvfp4CompileOptions o = mlirNvfp4CompileOptionsGetDefault();
  o.emitCubin = false;
  o.emulate = emulate;
  o.proxy = !emulate;
  MlirNvfp4CompileResult r;
  mlirNvfp4CompileResultInit(&r);
  MlirDiagnosticHandlerID h = mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  MlirLogicalResult ok = mlirNvfp4CompileModule(mlirModuleGetOperation(m), &o, &r);
  mlirContextDetachDiagnosticHandler(ctx, h);
  Found f = {false};
  mlirOperationWalk(mlirModuleGetOperation(m), findOp, &f, MlirWalkPreOrder);
  printf("sm_90a %s: %s, ptx %d, unlowered %d, log: %s", emulate ? "emulate" : "proxy",
         mlirLogicalResultIsSuccess(ok) ? "ok" : "refused", r.ptx != NULL, f.op,
         r.log ? r.log : "(none)\n");
  mlirNvfp4CompileResultDestroy(&r);
  mlirModuleDestroy(m);
}

/* Which ops each build cannot rewrite: tcgen05 targets both, sm_12x the emulation only,
 * sm_90a neither; the predicate on every target name and an unknown one. */
static void findUnrewritable(void) {
  static const char *const targets[] = {"sm_100a", "sm_103a", "sm_120a", "sm_90a"};
  for (int i = 0; i < 4; ++i) {
    MlirModule m = parseFor(targets[i]);
    MlirOperation e = mlirNvfp4FindUnrewritableOp(mlirModuleGetOperation(m), false);
    MlirOperation p = mlirNvfp4FindUnrewritableOp(mlirModuleGetOperation(m), true);
    printf("unrewritable op in a %s module: emulate %d, proxy %d\n", targets[i],
           !mlirOperationIsNull(e) && mlirNvfp4IsGroupedMatmul(e),
           !mlirOperationIsNull(p) && mlirNvfp4IsGroupedMatmul(p));
    mlirModuleDestroy(m);
  }
  static const char *const names[] = {"sm_100a", "sm_100f", "sm_103a", "sm_120a", "sm_121a",
                                      "sm_120f", "sm_90a",  "sm_80",   ""};
  printf("rewritable:");
  for (int i = 0; i < 9; ++i)
    printf(" %s=%d%d", *names[i] ? names[i] : "(empty)", mlirNvfp4TargetIsRewritable(names[i], false),
           mlirNvfp4TargetIsRewritable(names[i], true));
  printf("\n");
}


/* PTX of the module with these options; NULL on failure (the log printed). */
static char *compilePtx(const MlirNvfp4CompileOptions *o, bool *hit, bool *unlowered,
                        char **log) {
  MlirModule m = parse();
  MlirNvfp4CompileResult r;
  mlirNvfp4CompileResultInit(&r);
  MlirLogicalResult ok = mlirNvfp4CompileModule(mlirModuleGetOperation(m), o, &r);
  char *ptx = mlirLogicalResultIsSuccess(ok) && r.ptx ? strdup(r.ptx) : NULL;
  if (!ptx) printf("failed: %s", r.log ? r.log : "(no log)\n");
  if (hit) *hit = r.cacheHit;
  if (log) *log = r.log ? strdup(r.log) : NULL;
  Found f = {false};
  mlirOperationWalk(mlirModuleGetOperation(m), findOp, &f, MlirWalkPreOrder);
  if (unlowered) *unlowered = f.op;
  mlirNvfp4CompileResultDestroy(&r);
  mlirModuleDestroy(m);
  return ptx;
}

static void old20Caller(const char *reference) {
  Options20 o = {sizeof o, NULL, false, false, false, false, false};
  struct { Result20 r; unsigned char guard[64]; } out;
  memset(&out, 0, sizeof out);
  memset(out.guard, 0xA5, sizeof out.guard);
  out.r.structSize = sizeof out.r;
  MlirModule m = parse();
  MlirLogicalResult ok = mlirNvfp4CompileModule(
      mlirModuleGetOperation(m), (const MlirNvfp4CompileOptions *)&o,
      (MlirNvfp4CompileResult *)&out.r);
  bool guard = true;
  for (size_t i = 0; i < sizeof out.guard; ++i) guard = guard && out.guard[i] == 0xA5;
  printf("2.0 caller: %s, same ptx %d, result size %zu, past it untouched %d\n",
         mlirLogicalResultIsSuccess(ok) ? "ok" : "failed",
         out.r.ptx && !strcmp(out.r.ptx, reference), out.r.structSize, guard);
  free(out.r.ptx);
  free(out.r.log);
  mlirModuleDestroy(m);
}

/* Cuts every entry of the cache directory to 100 bytes. */
static int tearEntries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!strstr(e->d_name, ".nvfp4c")) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (truncate(path, 100) == 0) ++n;
  }
  if (d) closedir(d);
  return n;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  ctx = mlirContextCreate();
  mlirNvfp4RegisterAllUpstream(ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__nvfp4__(), ctx);
  MlirNvfp4CompileOptions o = mlirNvfp4CompileOptionsGetDefault();
  o.emitCubin = false;
  o.jobs = 1;
  char *ref = compilePtx(&o, NULL, NULL, NULL);
  o.jobs = 4;
  char *four = compilePtx(&o, NULL, NULL, NULL);
  printf("jobs 1 vs 4: same ptx %d\n", ref && four && !strcmp(ref, four));
  old20Caller(ref);

  o.jobs = 0;
  o.cacheDir = argv[1];
  bool hit = true, unlowered = false;
  char *log = NULL;
  char *miss = compilePtx(&o, &hit, &unlowered, NULL);
  printf("first: hit %d, lowered %d, same ptx %d\n", hit, !unlowered, miss && !strcmp(ref, miss));
  char *cached = compilePtx(&o, &hit, &unlowered, NULL);
  printf("second: hit %d, lowered %d, same ptx %d\n", hit, !unlowered,
         cached && !strcmp(ref, cached));
  printf("torn entries: %d\n", tearEntries(argv[1]));
  char *again = compilePtx(&o, &hit, &unlowered, &log);
  printf("after tearing: hit %d, same ptx %d, log: %s", hit, again && !strcmp(ref, again),
         log ? log : "(none)\n");
  char *last = compilePtx(&o, &hit, NULL, NULL);
  printf("then: hit %d, same ptx %d\n", hit, last && !strcmp(ref, last));
  free(ref), free(four), free(miss), free(cached), free(again), free(last), free(log);
  sm90aRefused(true);
  sm90aRefused(false);
  findUnrewritable();
  mlirContextDestroy(ctx);
  return 0;
}

// CHECK: jobs 1 vs 4: same ptx 1
// CHECK-NEXT: 2.0 caller: ok, same ptx 1, result size 72, past it untouched 1
// CHECK-NEXT: first: hit 0, lowered 1, same ptx 1
// CHECK-NEXT: second: hit 1, lowered 0, same ptx 1
// CHECK-NEXT: torn entries: 1
// CHECK-NEXT: after tearing: hit 0, same ptx 1, log: nvfp4: discarded the unusable compile cache entry {{.*}}.nvfp4c
// CHECK-NEXT: then: hit 1, same ptx 1
// CHECK-NEXT: diagnostic: the emulation build rewrites the tcgen05 ops or the block-scaled mma.sync of a Blackwell kernel for sm_90a, but this op's target is "sm_90a", whose kernel has neither
// CHECK-NEXT: sm_90a emulate: refused, ptx 0, unlowered 1, log: nvfp4: the emulation build rewrites {{.*}} "sm_90a", whose kernel has neither
// CHECK-NEXT: diagnostic: the proxy build rewrites the tcgen05 ops of an sm_100a, sm_100f or sm_103a kernel for sm_90a, but this op's target is "sm_90a", whose kernel has none
// CHECK-NEXT: sm_90a proxy: refused, ptx 0, unlowered 1, log: nvfp4: the proxy build rewrites
// CHECK-NEXT: unrewritable op in a sm_100a module: emulate 0, proxy 0
// CHECK-NEXT: unrewritable op in a sm_103a module: emulate 0, proxy 0
// CHECK-NEXT: unrewritable op in a sm_120a module: emulate 0, proxy 1
// CHECK-NEXT: unrewritable op in a sm_90a module: emulate 1, proxy 1
// CHECK-NEXT: rewritable: sm_100a=11 sm_100f=11 sm_103a=11 sm_120a=10 sm_121a=10 sm_120f=10 sm_90a=00 sm_80=00 (empty)=00
