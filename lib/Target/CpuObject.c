/* CpuObject.c — compilation for the CPU execution target (include/nvfp4-c/CpuTarget.h):
 * nvfp4-lower-grouped-matmul and nvfp4-cpu-target on the module, the rewritten
 * gpu.module's operations copied into a host module, MLIR's LLVM IR translation, and
 * clang compiling that IR into a position-independent shared object.
 *
 * Ahead-of-time, not JIT: the object is loaded by nvfp4-run --cpu (plain C, no MLIR or LLVM:
 * docs/design.md, "Layers") next to the simulator library, exactly as a cubin is loaded by
 * the driver; a family is compiled once and run for many cases and schedules; and the object
 * is an ordinary host binary (debuggers, profilers and sanitizers work on it). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nvfp4-c/CpuTarget.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "llvm-c/Core.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Target/LLVMIR.h"
#include "nvfp4-c/Passes.h"

#ifndef NVFP4_CLANG
#define NVFP4_CLANG "clang-22"
#endif

extern char **environ;

static double nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void logf_(char **log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(char **log, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n <= 0 || !log) return;
  size_t old = *log ? strlen(*log) : 0, add = strlen(buf);
  char *g = realloc(*log, old + add + 1);
  if (!g) return;
  memcpy(g + old, buf, add + 1);
  *log = g;
}

static bool opIs(MlirOperation op, const char *name) {
  return mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)),
                            mlirStringRefCreateFromCString(name));
}

/* The rewritten kernel modules' operations, in a fresh host module. */
static MlirModule hostModule(MlirOperation module, int *count) {
  MlirContext ctx = mlirOperationGetContext(module);
  MlirModule host = mlirModuleCreateEmpty(mlirOperationGetLocation(module));
  MlirBlock dst = mlirModuleGetBody(host);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  *count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!opIs(op, "gpu.module") ||
        mlirAttributeIsNull(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("nvfp4.cpu"))))
      continue;
    ++*count;
    MlirBlock src = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    for (MlirOperation o = mlirBlockGetFirstOperation(src); !mlirOperationIsNull(o);
         o = mlirOperationGetNextInBlock(o))
      mlirBlockAppendOwnedOperation(dst, mlirOperationClone(o));
  }
  (void)ctx;
  return host;
}

static bool runClang(const char *clang, const char *opt, const char *ll, const char *out,
                     char **log) {
  char logPath[] = "/tmp/nvfp4-clang-XXXXXX";
  int fd = mkstemp(logPath);
  if (fd < 0) {
    logf_(log, "nvfp4: cannot create a temporary file\n");
    return false;
  }
  char *args[] = {(char *)clang, (char *)opt, "-fPIC", "-shared", "-Wno-override-module",
                  "-o", (char *)out, (char *)ll, NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd, 1);
  posix_spawn_file_actions_adddup2(&fa, fd, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, clang, &fa, NULL, args, environ);
  posix_spawn_file_actions_destroy(&fa);
  bool ok = false;
  if (rc != 0) {
    logf_(log, "nvfp4: cannot run %s: %s (install clang-22 or set NVFP4_CLANG)\n", clang,
          strerror(rc));
  } else {
    int status = 0;
    waitpid(pid, &status, 0);
    ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    char text[4096];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n > 0) {
      text[n] = 0;
      logf_(log, "%s", text);
    }
    if (!ok) logf_(log, "nvfp4: %s failed on the host LLVM IR\n", clang);
  }
  close(fd);
  unlink(logPath);
  return ok;
}

MlirLogicalResult mlirNvfp4CompileModuleToCpuObject(MlirOperation module, const char *outputPath,
                                                    const MlirNvfp4CpuCompileOptions *options,
                                                    char **log, double *lowerMs,
                                                    double *compileMs) {
  if (log) *log = NULL;
  MlirNvfp4CpuCompileOptions o = {0};
  if (options) o = *options;
  const char *env = getenv("NVFP4_CLANG");
  const char *clang = o.clangPath ? o.clangPath : env && *env ? env : NVFP4_CLANG;
  double t0 = nowMs();
  MlirContext ctx = mlirOperationGetContext(module);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateLowerGroupedMatmulPass());
  mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateCpuTargetPass());
  MlirLogicalResult lowered = mlirPassManagerRunOnOp(pm, module);
  mlirPassManagerDestroy(pm);
  if (mlirLogicalResultIsFailure(lowered)) {
    logf_(log, "nvfp4: lowering for the CPU target failed\n");
    return mlirLogicalResultFailure();
  }
  int count = 0;
  MlirModule host = hostModule(module, &count);
  if (count != 1) {
    mlirModuleDestroy(host);
    logf_(log, "nvfp4: expected exactly one kernel module (one nvfp4.grouped_matmul), found %d\n",
          count);
    return mlirLogicalResultFailure();
  }
  double t1 = nowMs();
  if (lowerMs) *lowerMs = t1 - t0;

  LLVMContextRef llctx = LLVMContextCreate();
  LLVMModuleRef ir = mlirTranslateModuleToLLVMIR(mlirModuleGetOperation(host), llctx);
  mlirModuleDestroy(host);
  bool ok = ir != NULL;
  if (!ok) logf_(log, "nvfp4: translation of the host module to LLVM IR failed\n");
  char dir[] = "/tmp/nvfp4-cpu-XXXXXX", llPath[64] = "";
  if (ok && !mkdtemp(dir)) {
    logf_(log, "nvfp4: cannot create a temporary directory\n");
    ok = false;
  }
  if (ok) {
    snprintf(llPath, sizeof llPath, "%s/kernel.ll", dir);
    char *err = NULL;
    const char *paths[2] = {llPath, o.llvmIrPath};
    for (int i = 0; ok && i < 2; ++i) {
      if (!paths[i]) continue;
      if (LLVMPrintModuleToFile(ir, paths[i], &err)) {
        logf_(log, "nvfp4: cannot write %s: %s\n", paths[i], err ? err : "");
        ok = false;
      }
      if (err) LLVMDisposeMessage(err);
      err = NULL;
    }
  }
  if (ir) LLVMDisposeModule(ir);
  LLVMContextDispose(llctx);
  if (ok) ok = runClang(clang, o.optLevel ? o.optLevel : "-O2", llPath, outputPath, log);
  if (llPath[0]) unlink(llPath);
  rmdir(dir);
  if (compileMs) *compileMs = nowMs() - t1;
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}
