/* nvfp4-compile — one command from an .mlir file holding nvfp4.grouped_matmul ops to a
 * self-describing cubin (and PTX on request), on a machine with no GPU.
 *
 *   nvfp4-compile in.mlir -o out.cubin [--ptx out.ptx] [--emulate | --proxy] [--mlir out.mlir]
 *                 [--toolkit DIR] [--ptxas-verbose] [--time] [--cpu out.so [--cpu-ll out.ll]]
 *
 * A thin command line over mlirNvfp4CompileModule (include/nvfp4-c/Pipeline.h):
 * parse -> nvfp4-lower-grouped-matmul [-> nvfp4-emulate-tcgen05 | nvfp4-proxy-tcgen05]
 * -> gpu-module-to-binary{format=isa} (LLVM O3 + NVPTX) -> ptxas -> cubin.
 * The cubin carries the metadata record `nvfp4_kernel_metadata` (KernelABI.h).
 * --cpu writes the same kernel family for the CPU execution target instead (or as well):
 * nvfp4-cpu-target, host LLVM IR, clang -shared (include/nvfp4-c/CpuTarget.h); run it with
 * nvfp4-run --cpu.
 * Exit codes: 0 ok, 1 usage, 2 input/IR or file error, 3 lowering/LLVM failure, 4 ptxas failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"
#include "nvfp4-c/CpuTarget.h"
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/Passes.h"
#include "nvfp4-c/Pipeline.h"

#ifndef NVFP4_CUDA_ROOT
#define NVFP4_CUDA_ROOT "/usr/local/cuda"
#endif

typedef struct Options {
  const char *input, *cubin, *ptx, *mlirOut, *toolkit;
  const char *cpu, *cpuLl;
  int emulate, proxy, verbose, time;
} Options;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: nvfp4-compile IN.mlir -o OUT.cubin [--ptx OUT.ptx] [--emulate | --proxy]\n"
          "                     [--mlir OUT.mlir]\n"
          "                     [--toolkit DIR] [--ptxas-verbose] [--time]\n"
          "  --emulate        build the sm_90a tcgen05-emulation kernel instead of sm_100a\n"
          "  --proxy          build the sm_90a timing proxy (tcgen05 ops free, C = 0)\n"
          "  --mlir FILE      write the IR after the pipeline (alone: the lowered kernel; with\n"
          "                   -o/--ptx: the module with its gpu.binary)\n"
          "  --toolkit DIR    CUDA toolkit holding bin/ptxas (default " NVFP4_CUDA_ROOT ")\n"
          "  --ptxas-verbose  print ptxas -v (registers, spills, shared memory)\n"
          "  --time           print the time of each phase\n"
          "  --cpu FILE       also (or only) write the CPU execution target: a shared object\n"
          "                   for nvfp4-run --cpu (clang-22 compiles the host LLVM IR)\n"
          "  --cpu-ll FILE    with --cpu: also write that host LLVM IR\n");
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
    else if (!strcmp(a, "--cpu") && next) o->cpu = argv[++i];
    else if (!strcmp(a, "--cpu-ll") && next) o->cpuLl = argv[++i];
    else if (!strcmp(a, "--emulate")) o->emulate = 1;
    else if (!strcmp(a, "--proxy")) o->proxy = 1;
    else if (!strcmp(a, "--ptxas-verbose")) o->verbose = 1;
    else if (!strcmp(a, "--time")) o->time = 1;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(0); }
    else if (a[0] != '-' && !o->input) o->input = a;
    else { fprintf(stderr, "nvfp4-compile: unknown or incomplete argument '%s'\n", a); return 0; }
  }
  if (!o->input || (!o->cubin && !o->ptx && !o->mlirOut && !o->cpu)) return 0;
  if (o->emulate && o->proxy) {
    fprintf(stderr, "nvfp4-compile: --emulate and --proxy are exclusive\n");
    return 0;
  }
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
  if (o.cpu) {
    /* the CPU target from a copy of the same module (the lowering is deterministic) */
    MlirOperation copy = mlirOperationClone(mop);
    MlirNvfp4CpuCompileOptions cpuOpts = {NULL, NULL, o.cpuLl};
    char *log = NULL;
    double lowerMs = 0, compileMs = 0;
    MlirLogicalResult cpuRes =
        mlirNvfp4CompileModuleToCpuObject(copy, o.cpu, &cpuOpts, &log, &lowerMs, &compileMs);
    mlirOperationDestroy(copy);
    if (mlirLogicalResultIsFailure(cpuRes)) {
      fprintf(stderr, "%s", log ? log : "nvfp4-compile: CPU target compilation failed\n");
      free(log);
      return 3;
    }
    if (log && o.verbose) fputs(log, stderr);
    free(log);
    if (o.time)
      fprintf(stderr, "nvfp4-compile: cpu target: lower %.1f ms, llvm ir + clang %.1f ms\n",
              lowerMs, compileMs);
    if (!o.cubin && !o.ptx && !o.mlirOut) {
      mlirModuleDestroy(module);
      mlirContextDestroy(ctx);
      return 0;
    }
  }

  MlirNvfp4CompileOptions copts = mlirNvfp4CompileOptionsGetDefault();
  copts.toolkitPath = o.toolkit;
  copts.emulate = o.emulate != 0;
  copts.proxy = o.proxy != 0;
  copts.emitCubin = o.cubin != NULL;
  copts.ptxasVerbose = o.verbose != 0;
  MlirNvfp4CompileResult res;
  int rc = 0;
  /* --mlir alone: lowered kernel IR only, no serialisation. */
  copts.stopAfterLowering = !o.cubin && !o.ptx;
  if (mlirLogicalResultIsFailure(mlirNvfp4CompileModule(mop, &copts, &res))) {
    fprintf(stderr, "%s", res.log ? res.log : "nvfp4-compile: compilation failed\n");
    return res.ptx ? 4 : 3;
  }
  if (res.log && o.verbose) fputs(res.log, stderr);
  if (o.mlirOut) {
    FILE *f = fopen(o.mlirOut, "w");
    if (!f) { fprintf(stderr, "nvfp4-compile: cannot write %s\n", o.mlirOut); return 2; }
    mlirOperationPrint(mop, printToFile, f);
    fputc('\n', f);
    fclose(f);
  }
  if (o.ptx && !writeFile(o.ptx, res.ptx, res.ptxSize)) {
    fprintf(stderr, "nvfp4-compile: cannot write %s\n", o.ptx);
    rc = 2;
  }
  if (o.cubin && !writeFile(o.cubin, res.cubin, res.cubinSize)) {
    fprintf(stderr, "nvfp4-compile: cannot write %s\n", o.cubin);
    rc = 2;
  }
  if (o.time)
    fprintf(stderr, "nvfp4-compile: parse %.1f ms, lower %.1f ms, llvm %.1f ms, ptxas %.1f ms, "
                    "total %.1f ms\n",
            (tParse - t0) * 1e3, res.lowerMs, res.llvmMs, res.ptxasMs, (now() - t0) * 1e3);
  mlirNvfp4CompileResultDestroy(&res);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return rc;
}
