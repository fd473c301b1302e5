/* nvfp4-compile — one command from an .mlir file holding nvfp4.grouped_matmul ops to a
 * self-describing cubin (and PTX on request), on a machine with no GPU.
 *
 *   nvfp4-compile IN.mlir -o out.cubin [--ptx out.ptx] [--emulate | --proxy] [--mlir out.mlir]
 *                 [--toolkit DIR] [--ptxas-verbose] [--time] [--jobs N] [--cache-dir DIR]
 *                 [--cpu out.so [--cpu-ll out.ll]]
 *
 * A thin command line over mlirNvfp4CompileModule (include/nvfp4-c/Pipeline.h):
 * parse -> nvfp4-lower-grouped-matmul [-> nvfp4-emulate-tcgen05 and nvfp4-emulate-sm120 |
 * nvfp4-proxy-tcgen05]
 * -> gpu-module-to-binary{format=isa} (LLVM O3 + NVPTX) -> ptxas -> cubin.
 * The cubin carries the metadata record `nvfp4_kernel_metadata` (KernelABI.h).
 * --jobs N: threads for LLVM and CPUs for ptxas (default: every CPU this process may use);
 * the output is the same for every N. --cache-dir DIR (or $NVFP4_CACHE_DIR): the compile
 * cache of Pipeline.h; not with --mlir, which needs the lowered module.
 * --cpu writes the same kernel family for the CPU execution target instead (or as well):
 * nvfp4-cpu-target, host LLVM IR, clang -shared (include/nvfp4-c/CpuTarget.h); run it with
 * nvfp4-run --cpu.
 * IN.mlir "-" reads standard input; an output "-" writes standard output. No output may
 * name the input file. Diagnostics are printed as FILE:LINE:COL: error: ...
 * Exit codes: 0 ok, 1 usage (--emulate on an op whose target is not a Blackwell one, or
 * --proxy on one whose target is not sm_100a, sm_100f or sm_103a, included), 2 input/IR or
 * file error, 3 lowering/LLVM or CPU-target failure, 4 ptxas failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "nvfp4-c/CpuTarget.h"
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Pipeline.h"
#include "nvfp4-c/Version.h"

#ifndef NVFP4_CUDA_ROOT
#define NVFP4_CUDA_ROOT "/usr/local/cuda"
#endif

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_INPUT = 2, EXIT_LOWER = 3, EXIT_PTXAS = 4 };

typedef struct Options {
  const char *input, *cubin, *ptx, *mlirOut, *toolkit;
  const char *cpu, *cpuLl;
  const char *cacheDir;
  int emulate, proxy, verbose, time, jobs;
} Options;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of this process (every thread) and of its waited-for children (ptxas, clang). */
static double cpuNow(void) {
  struct rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  const struct timeval *t[4] = {&self.ru_utime, &self.ru_stime, &children.ru_utime,
                                &children.ru_stime};
  double s = 0;
  for (int i = 0; i < 4; ++i) s += t[i]->tv_sec + t[i]->tv_usec * 1e-6;
  return s;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: nvfp4-compile IN.mlir -o OUT.cubin [--ptx OUT.ptx] [--emulate | --proxy]\n"
          "                     [--mlir OUT.mlir]\n"
          "                     [--toolkit DIR] [--ptxas-verbose] [--time] [--jobs N]\n"
          "                     [--cache-dir DIR]\n"
          "       nvfp4-compile --version\n"
          "  IN.mlir \"-\"      read standard input; an output \"-\" writes standard output\n"
          "  --emulate        build the sm_90a emulation kernel (tcgen05 emulated for an sm_100a,\n"
          "                   sm_100f or sm_103a op; mma.sync for sm_120a, sm_121a, sm_120f)\n"
          "  --proxy          build the sm_90a timing proxy (tcgen05 ops free, C = 0)\n"
          "  --mlir FILE      write the IR after the pipeline (alone: the lowered kernel; with\n"
          "                   -o/--ptx: the module with its gpu.binary)\n"
          "  --toolkit DIR    CUDA toolkit holding bin/ptxas (default " NVFP4_CUDA_ROOT ")\n"
          "  --ptxas-verbose  print ptxas -v (registers, spills, shared memory)\n"
          "  --time           print the time of each phase: wall, then CPU (ptxas included)\n"
          "  --jobs N         threads for LLVM and CPUs for ptxas (default: all available);\n"
          "                   the output is the same for every N\n"
          "  --cache-dir DIR  reuse and keep compilations in DIR (default $NVFP4_CACHE_DIR;\n"
          "                   unused with --mlir)\n"
          "  --cpu FILE       also (or only) write the CPU execution target: a shared object\n"
          "                   for nvfp4-run --cpu (clang-22 compiles the host LLVM IR)\n"
          "  --cpu-ll FILE    with --cpu: also write that host LLVM IR\n"
          "exit codes: 0 ok, 1 usage (--emulate or --proxy on an op whose target that build\n"
          "  does not rewrite included), 2 input, IR or output file error, 3 lowering, LLVM or\n"
          "  CPU-target failure, 4 ptxas failure\n");
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
    else if (!strcmp(a, "--cache-dir") && next) o->cacheDir = argv[++i];
    else if (!strcmp(a, "--jobs") && next) {
      char *end;
      long n = strtol(argv[++i], &end, 10);
      if (*end || n < 1 || n > 1024) {
        fprintf(stderr, "nvfp4-compile: --jobs takes a number from 1 to 1024, not '%s'\n", argv[i]);
        return 0;
      }
      o->jobs = (int)n;
    }
    else if (!strcmp(a, "--emulate")) o->emulate = 1;
    else if (!strcmp(a, "--proxy")) o->proxy = 1;
    else if (!strcmp(a, "--ptxas-verbose")) o->verbose = 1;
    else if (!strcmp(a, "--time")) o->time = 1;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(EXIT_OK); }
    else if (!strcmp(a, "--version")) {
      printf("nvfp4-compile %s (kernel ABI %u, MLIR/LLVM 22)\n", NVFP4_VERSION_STRING,
             NVFP4_ABI_VERSION);
      exit(EXIT_OK);
    }
    else if ((a[0] != '-' || !strcmp(a, "-")) && !o->input) o->input = a;
    else { fprintf(stderr, "nvfp4-compile: unknown or incomplete argument '%s'\n", a); return 0; }
  }
  if (!o->input || (!o->cubin && !o->ptx && !o->mlirOut && !o->cpu)) return 0;
  if (!o->cacheDir) {
    const char *env = getenv("NVFP4_CACHE_DIR");
    if (env && *env) o->cacheDir = env;
  }
  if (o->emulate && o->proxy) {
    fprintf(stderr, "nvfp4-compile: --emulate and --proxy are exclusive\n");
    return 0;
  }
  return 1;
}

/* --emulate rewrites the tcgen05 ops or the block-scaled mma.sync of the Blackwell kernels,
 * --proxy the tcgen05 ops only. An op whose kernel has none (the sm_90a kernel is native;
 * the sm_12x kernels have no proxy) would silently build that kernel: such an op is a
 * usage error at its location (the C API refuses it too). */
static int checkRewritable(MlirOperation module, const char *flag) {
  const bool proxy = !strcmp(flag, "--proxy");
  MlirOperation bad = mlirNvfp4FindUnrewritableOp(module, proxy);
  if (mlirOperationIsNull(bad)) return 1;
  MlirStringRef v = mlirStringAttrGetValue(
      mlirOperationGetAttributeByName(bad, mlirStringRefCreateFromCString("target")));
  char msg[400];
  snprintf(msg, sizeof msg,
           "%s rewrites the %s of %s kernel for sm_90a, but this op's target is \"%.*s\", "
           "whose kernel has none: compile it without %s",
           flag, proxy ? "tcgen05 ops" : "tcgen05 ops or block-scaled mma.sync",
           proxy ? "an sm_100a, sm_100f or sm_103a" : "a Blackwell", (int)v.length, v.data,
           flag);
  mlirEmitError(mlirOperationGetLocation(bad), msg);
  return 0;
}

/* True when `out` names the file `in` names (same inode), so writing it would destroy the
 * input. Standard streams never clash. */
static int sameFile(const char *in, const char *out) {
  if (!out || !strcmp(in, "-") || !strcmp(out, "-")) return 0;
  struct stat a, b;
  if (stat(in, &a) != 0 || stat(out, &b) != 0) return 0;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Opens an output ("-": standard output). */
static FILE *openOut(const char *path, const char *mode) {
  return strcmp(path, "-") ? fopen(path, mode) : stdout;
}
/* Closes an output; false if anything written to it was lost (full disk, /dev/full). */
static int closeOut(FILE *f) {
  int ok = fflush(f) == 0 && !ferror(f);
  if (f != stdout) ok = fclose(f) == 0 && ok;
  return ok;
}

static int writeFile(const char *path, const void *data, size_t len) {
  FILE *f = openOut(path, "wb");
  if (!f) return 0;
  int ok = fwrite(data, 1, len, f) == len;
  return closeOut(f) && ok;
}

static void printToFile(MlirStringRef s, void *user) { fwrite(s.data, 1, s.length, (FILE *)user); }
static void printToStderr(MlirStringRef s, void *user) {
  (void)user;
  fwrite(s.data, 1, s.length, stderr);
}

/* A note's text, cut after its first line when it is long: MLIR attaches the whole
 * failing operation (a kernel of thousands of lines) to pass errors. */
typedef struct NoteText { size_t printed; int cut; } NoteText;
static void printNote(MlirStringRef s, void *user) {
  NoteText *t = user;
  for (size_t i = 0; i < s.length && !t->cut; ++i, ++t->printed) {
    if (s.data[i] == '\n' && t->printed > 0) {
      t->cut = 1;
      fputs(" [operation elided]", stderr);
      return;
    }
    fputc(s.data[i], stderr);
  }
}

/* Prints a diagnostic and its notes as FILE:LINE:COL: severity: message. */
static void printDiagnostic(MlirDiagnostic d, int depth) {
  static const char *const kSeverity[] = {"error", "warning", "note", "remark"};
  MlirLocation loc = mlirDiagnosticGetLocation(d);
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirIdentifier file = mlirLocationFileLineColRangeGetFilename(loc);
    MlirStringRef name = mlirIdentifierStr(file);
    fprintf(stderr, "%.*s:%d:%d: ", (int)name.length, name.data,
            mlirLocationFileLineColRangeGetStartLine(loc),
            mlirLocationFileLineColRangeGetStartColumn(loc));
  } else {
    mlirLocationPrint(loc, printToStderr, NULL);
    fputs(": ", stderr);
  }
  unsigned sev = (unsigned)mlirDiagnosticGetSeverity(d);
  fprintf(stderr, "%s: ", depth ? "note" : sev < 4 ? kSeverity[sev] : "error");
  NoteText note = {0, 0};
  if (depth) mlirDiagnosticPrint(d, printNote, &note);
  else mlirDiagnosticPrint(d, printToStderr, NULL);
  fputc('\n', stderr);
  for (intptr_t i = 0; i < mlirDiagnosticGetNumNotes(d); ++i)
    printDiagnostic(mlirDiagnosticGetNote(d, i), depth + 1);
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *user) {
  (void)user;
  printDiagnostic(d, 0);
  return mlirLogicalResultSuccess();
}

int main(int argc, char **argv) {
  Options o;
  if (!parseArgs(argc, argv, &o)) {
    usage(stderr);
    return EXIT_USAGE;
  }
  const char *outs[5] = {o.cubin, o.ptx, o.mlirOut, o.cpu, o.cpuLl};
  for (int i = 0; i < 5; ++i)
    if (sameFile(o.input, outs[i])) {
      fprintf(stderr, "nvfp4-compile: output %s is the input file; refusing to overwrite it\n",
              outs[i]);
      return EXIT_USAGE;
    }
  double t0 = now(), c0 = cpuNow();
  MlirContext ctx = mlirContextCreateWithThreading(false);
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);
  mlirNvfp4RegisterAllUpstream(ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__nvfp4__(), ctx);
  MlirNvfp4CompileResult res;
  mlirNvfp4CompileResultInit(&res);
  int rc = EXIT_OK;
  /* MLIR reads the file itself ("-": standard input), so locations carry its name. */
  MlirModule module =
      mlirModuleCreateParseFromFile(ctx, mlirStringRefCreateFromCString(o.input));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "nvfp4-compile: %s: cannot parse (see the errors above)\n", o.input);
    rc = EXIT_INPUT;
    goto done;
  }
  MlirOperation mop = mlirModuleGetOperation(module);
  if (!mlirOperationVerify(mop)) {
    fprintf(stderr, "nvfp4-compile: %s: verification failed\n", o.input);
    rc = EXIT_INPUT;
    goto done;
  }
  if ((o.emulate || o.proxy) && !checkRewritable(mop, o.emulate ? "--emulate" : "--proxy")) {
    rc = EXIT_USAGE;
    goto done;
  }
  double tParse = now(), cParse = cpuNow();
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
      rc = EXIT_LOWER;
      goto done;
    }
    if (log && o.verbose) fputs(log, stderr);
    free(log);
    if (o.time)
      fprintf(stderr, "nvfp4-compile: cpu target: lower %.1f ms, llvm ir + clang %.1f ms\n",
              lowerMs, compileMs);
    if (!o.cubin && !o.ptx && !o.mlirOut) goto done;
  }

  MlirNvfp4CompileOptions copts = mlirNvfp4CompileOptionsGetDefault();
  copts.toolkitPath = o.toolkit;
  copts.emulate = o.emulate != 0;
  copts.proxy = o.proxy != 0;
  copts.emitCubin = o.cubin != NULL;
  copts.ptxasVerbose = o.verbose != 0;
  copts.jobs = o.jobs;
  /* --mlir prints the lowered module, which a cache hit never makes */
  copts.cacheDir = o.mlirOut ? NULL : o.cacheDir;
  /* --mlir alone: lowered kernel IR only, no serialisation. */
  copts.stopAfterLowering = !o.cubin && !o.ptx;
  if (mlirLogicalResultIsFailure(mlirNvfp4CompileModule(mop, &copts, &res))) {
    fprintf(stderr, "%s", res.log ? res.log : "nvfp4-compile: compilation failed\n");
    rc = res.ptx ? EXIT_PTXAS : EXIT_LOWER;
    goto done;
  }
  if (res.log && o.verbose) fputs(res.log, stderr);
  if (o.mlirOut) {
    FILE *f = openOut(o.mlirOut, "w");
    if (f) {
      mlirOperationPrint(mop, printToFile, f);
      fputc('\n', f);
    }
    if (!f || !closeOut(f)) {
      fprintf(stderr, "nvfp4-compile: cannot write %s: %s\n", o.mlirOut, strerror(errno));
      rc = EXIT_INPUT;
    }
  }
  if (o.ptx && !writeFile(o.ptx, res.ptx, res.ptxSize)) {
    fprintf(stderr, "nvfp4-compile: cannot write %s: %s\n", o.ptx, strerror(errno));
    rc = EXIT_INPUT;
  }
  if (o.cubin && !writeFile(o.cubin, res.cubin, res.cubinSize)) {
    fprintf(stderr, "nvfp4-compile: cannot write %s: %s\n", o.cubin, strerror(errno));
    rc = EXIT_INPUT;
  }
  if (o.time) {
    fprintf(stderr, "nvfp4-compile: parse %.1f ms, lower %.1f ms, llvm %.1f ms, ptxas %.1f ms, "
                    "total %.1f ms\n",
            (tParse - t0) * 1e3, res.lowerMs, res.llvmMs, res.ptxasMs, (now() - t0) * 1e3);
    /* getrusage counts from the process' start: loading MLIR and LLVM is in the total */
    fprintf(stderr, "nvfp4-compile: cpu startup %.1f ms, parse %.1f ms, lower %.1f ms, llvm %.1f ms, "
                    "ptxas %.1f ms, total %.1f ms (%u kernels, %s)\n",
            c0 * 1e3, (cParse - c0) * 1e3, res.lowerCpuMs, res.llvmCpuMs, res.ptxasCpuMs,
            cpuNow() * 1e3, res.kernels, res.cacheHit ? "from the compile cache" : "compiled");
  }
done:
  mlirNvfp4CompileResultDestroy(&res);
  if (!mlirModuleIsNull(module)) mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return rc;
}
