/* nvfp4-compile — one command from an .mlir file holding nvfp4.grouped_matmul ops to a
 * self-describing cubin (and PTX on request), on a machine with no GPU.
 *
 *   nvfp4-compile in.mlir -o out.cubin [--ptx out.ptx] [--emulate] [--mlir out.mlir]
 *                 [--toolkit DIR] [--ptxas-verbose] [--time]
 *
 * Pipeline: parse -> nvfp4-lower-grouped-matmul [-> nvfp4-emulate-tcgen05]
 *           -> gpu-module-to-binary{format=isa} (LLVM O3 + NVPTX) -> ptxas -> cubin.
 * The cubin carries the metadata record `nvfp4_kernel_metadata` (KernelABI.h).
 * Exit codes: 0 ok, 1 usage, 2 input/IR error, 3 pipeline failure, 4 ptxas failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/Passes.h"

#ifndef NVFP4_CUDA_ROOT
#define NVFP4_CUDA_ROOT "/usr/local/cuda"
#endif

extern char **environ;

typedef struct Options {
  const char *input, *cubin, *ptx, *mlirOut, *toolkit;
  int emulate, verbose, time;
} Options;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: nvfp4-compile IN.mlir -o OUT.cubin [--ptx OUT.ptx] [--emulate] [--mlir OUT.mlir]\n"
          "                     [--toolkit DIR] [--ptxas-verbose] [--time]\n"
          "  --emulate        build the sm_90a tcgen05-emulation kernel instead of sm_100a\n"
          "  --mlir FILE      also write the lowered IR (before serialisation)\n"
          "  --toolkit DIR    CUDA toolkit holding bin/ptxas (default " NVFP4_CUDA_ROOT ")\n"
          "  --ptxas-verbose  print ptxas -v (registers, spills, shared memory)\n"
          "  --time           print the time of each phase\n");
}

static int parseArgs(int argc, char **argv, Options *o) {
  memset(o, 0, sizeof *o);
  o->toolkit = NVFP4_CUDA_ROOT;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-o") && next) o->cubin = argv[++i];
    else if (!strcmp(a, "--ptx") && next) o->ptx = argv[++i];
    else if (!strcmp(a, "--mlir") && next) o->mlirOut = argv[++i];
    else if (!strcmp(a, "--toolkit") && next) o->toolkit = argv[++i];
    else if (!strcmp(a, "--emulate")) o->emulate = 1;
    else if (!strcmp(a, "--ptxas-verbose")) o->verbose = 1;
    else if (!strcmp(a, "--time")) o->time = 1;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(0); }
    else if (a[0] != '-' && !o->input) o->input = a;
    else { fprintf(stderr, "nvfp4-compile: unknown or incomplete argument '%s'\n", a); return 0; }
  }
  if (!o->input || (!o->cubin && !o->ptx && !o->mlirOut)) return 0;
  return 1;
}

static char *readFile(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  fclose(f);
  if (buf) { buf[n] = 0; *len = (size_t)n; }
  return buf;
}

static int writeFile(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

static void printToFile(MlirStringRef s, void *user) { fwrite(s.data, 1, s.length, (FILE *)user); }

typedef struct Found { MlirAttribute object; int count; } Found;

static MlirWalkResult findBinary(MlirOperation op, void *user) {
  Found *f = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (mlirStringRefEqual(name, mlirStringRefCreateFromCString("gpu.binary"))) {
    MlirAttribute objs = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("objects"));
    if (!mlirAttributeIsNull(objs) && mlirArrayAttrGetNumElements(objs) > 0) {
      if (f->count++ == 0) f->object = mlirArrayAttrGetElement(objs, 0);
    }
  }
  return MlirWalkResultAdvance;
}

/* Runs ptxas; returns its exit status (or -1 when it cannot be started). */
static int runPtxas(const Options *o, const char *ptxPath, const char *arch) {
  char ptxas[1024], archArg[64];
  snprintf(ptxas, sizeof ptxas, "%s/bin/ptxas", o->toolkit);
  snprintf(archArg, sizeof archArg, "-arch=%s", arch);
  char *args[12];
  int n = 0;
  args[n++] = ptxas;
  args[n++] = archArg;
  args[n++] = "-O3";
  if (o->verbose) args[n++] = "-v";
  args[n++] = (char *)ptxPath;
  args[n++] = "-o";
  args[n++] = (char *)o->cubin;
  args[n] = NULL;
  pid_t pid;
  int rc = posix_spawn(&pid, ptxas, NULL, NULL, args, environ);
  if (rc != 0) {
    fprintf(stderr, "nvfp4-compile: cannot run %s: %s\n", ptxas, strerror(rc));
    return -1;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv) {
  Options o;
  if (!parseArgs(argc, argv, &o)) {
    usage(stderr);
    return 1;
  }
  double t0 = now();
  size_t len = 0;
  char *src = readFile(o.input, &len);
  if (!src) {
    fprintf(stderr, "nvfp4-compile: cannot read %s\n", o.input);
    return 2;
  }
  MlirContext ctx = mlirContextCreateWithThreading(false);
  mlirNvfp4RegisterAllUpstream(ctx);
  mlirRegisterAllPasses();
  mlirNvfp4RegisterPasses();
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__nvfp4__(), ctx);
  MlirModule module = mlirModuleCreateParse(ctx, (MlirStringRef){src, len});
  free(src);
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "nvfp4-compile: %s: parse error\n", o.input);
    return 2;
  }
  MlirOperation mop = mlirModuleGetOperation(module);
  if (!mlirOperationVerify(mop)) {
    fprintf(stderr, "nvfp4-compile: %s: verification failed\n", o.input);
    return 2;
  }
  double tParse = now();

  /* Lowering (+ emulation rewrite). */
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateLowerGroupedMatmulPass());
  if (o.emulate) mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateEmulateTcgen05Pass());
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, mop))) {
    fprintf(stderr, "nvfp4-compile: lowering failed\n");
    return 3;
  }
  mlirPassManagerDestroy(pm);
  double tLower = now();
  if (o.mlirOut) {
    FILE *f = fopen(o.mlirOut, "w");
    if (!f) { fprintf(stderr, "nvfp4-compile: cannot write %s\n", o.mlirOut); return 2; }
    mlirOperationPrint(mop, printToFile, f);
    fputc('\n', f);
    fclose(f);
  }
  if (!o.cubin && !o.ptx) return 0;

  /* NVVM -> LLVM IR -> PTX through MLIR's gpu-module-to-binary (LLVM NVPTX backend). */
  pm = mlirPassManagerCreate(ctx);
  opm = mlirPassManagerGetAsOpPassManager(pm);
  char pipeline[1200];
  snprintf(pipeline, sizeof pipeline, "gpu-module-to-binary{format=isa toolkit=%s}", o.toolkit);
  MlirStringRef pipe = mlirStringRefCreateFromCString(pipeline);
  if (mlirLogicalResultIsFailure(mlirOpPassManagerAddPipeline(opm, pipe, printToFile, stderr)) ||
      mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, mop))) {
    fprintf(stderr, "nvfp4-compile: gpu-module-to-binary failed\n");
    return 3;
  }
  mlirPassManagerDestroy(pm);
  Found found = {{NULL}, 0};
  mlirOperationWalk(mop, findBinary, &found, MlirWalkPreOrder);
  if (found.count != 1) {
    fprintf(stderr, "nvfp4-compile: expected exactly one kernel (nvfp4.grouped_matmul), found %d\n",
            found.count);
    return 3;
  }
  MlirStringRef ptx = mlirGPUObjectAttrGetObject(found.object);
  double tLlvm = now();

  char tmpPtx[] = "/tmp/nvfp4-compile-XXXXXX.ptx";
  const char *ptxPath = o.ptx;
  if (!ptxPath) {
    int fd = mkstemps(tmpPtx, 4);
    if (fd < 0) { fprintf(stderr, "nvfp4-compile: cannot create a temporary file\n"); return 2; }
    close(fd);
    ptxPath = tmpPtx;
  }
  if (!writeFile(ptxPath, ptx.data, ptx.length)) {
    fprintf(stderr, "nvfp4-compile: cannot write %s\n", ptxPath);
    return 2;
  }
  int rc = 0;
  if (o.cubin) {
    rc = runPtxas(&o, ptxPath, o.emulate ? "sm_90a" : "sm_100a");
    if (rc != 0) fprintf(stderr, "nvfp4-compile: ptxas failed (%d)\n", rc);
  }
  if (!o.ptx) unlink(tmpPtx);
  double tEnd = now();
  if (o.time)
    fprintf(stderr, "nvfp4-compile: parse %.1f ms, lower %.1f ms, llvm %.1f ms, ptxas %.1f ms, "
                    "total %.1f ms\n",
            (tParse - t0) * 1e3, (tLower - tParse) * 1e3, (tLlvm - tLower) * 1e3,
            (tEnd - tLlvm) * 1e3, (tEnd - t0) * 1e3);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return rc == 0 ? 0 : 4;
}
