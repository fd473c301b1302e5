/* Serialize.c — serialisation of the lowered kernel to PTX and cubin (include/nvfp4-c/
 * Pipeline.h): nvfp4-lower-grouped-matmul [+ nvfp4-emulate-tcgen05 | nvfp4-proxy-tcgen05], then MLIR's
 * gpu-module-to-binary{format=isa} (LLVM O3 + NVPTX, one LLVM compile for both outputs),
 * then ptxas from the CUDA toolkit, whose image is read back into memory and checked to
 * be a CUDA ELF64 before it is returned. Every pass is created directly, so callers need
 * not register passes, and no path is ever spliced into a textual pipeline. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nvfp4-c/Pipeline.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Pass.h"
#include "nvfp4-c/Passes.h"

#include "GpuModuleToBinary.h"

#ifndef NVFP4_CUDA_ROOT
#define NVFP4_CUDA_ROOT "/usr/local/cuda"
#endif

extern char **environ;

static double nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Appends `size` bytes of text to the result's log (whole: ptxas -v of a kernel family
 * runs to many kilobytes). */
static void logAppend(MlirNvfp4CompileResult *r, const char *text, size_t size) {
  size_t old = r->log ? strlen(r->log) : 0;
  char *grown = realloc(r->log, old + size + 1);
  if (!grown) return;
  memcpy(grown + old, text, size);
  grown[old + size] = 0;
  r->log = grown;
}

/* Appends printf-style text (a message line, at most 1023 bytes) to the result's log. */
static void logf_(MlirNvfp4CompileResult *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n <= 0) return;
  logAppend(r, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void *readAll(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) {
    ((char *)buf)[n] = 0;
    *size = (size_t)n;
  }
  return buf;
}

typedef struct Binaries { MlirAttribute object; int count; } Binaries;

static MlirWalkResult findBinary(MlirOperation op, void *user) {
  Binaries *f = user;
  if (mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)),
                         mlirStringRefCreateFromCString("gpu.binary"))) {
    MlirAttribute objs =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("objects"));
    if (!mlirAttributeIsNull(objs) && mlirArrayAttrGetNumElements(objs) > 0 && f->count++ == 0)
      f->object = mlirArrayAttrGetElement(objs, 0);
  }
  return MlirWalkResultAdvance;
}

/* The architecture ptxas assembles for: the PTX's own `.target sm_XXa` line (the gpu.module
 * target decides it: sm_100a, or sm_90a for native Hopper kernels and the emulation). */
static void ptxArch(const char *ptx, bool emulate, char *out, size_t size) {
  const char *t = ptx ? strstr(ptx, "\n.target ") : NULL;
  if (t) {
    t += 9;
    size_t n = 0;
    while (t[n] && t[n] != '\n' && t[n] != ',' && t[n] != ' ' && n + 1 < size) ++n;
    if (n > 0 && n < 16) {
      snprintf(out, size, "%.*s", (int)n, t);
      return;
    }
  }
  snprintf(out, size, "%s", emulate ? "sm_90a" : "sm_100a");
}

/* ptxas PTX -> cubin in a private temporary directory; its output goes to the log. */
static bool runPtxas(const MlirNvfp4CompileOptions *o, MlirNvfp4CompileResult *r) {
  char dir[] = "/tmp/nvfp4-XXXXXX";
  if (!mkdtemp(dir)) {
    logf_(r, "nvfp4: cannot create a temporary directory\n");
    return false;
  }
  char ptxPath[64], cubinPath[64], logPath[64], ptxas[1024], arch[32];
  snprintf(ptxPath, sizeof ptxPath, "%s/k.ptx", dir);
  snprintf(cubinPath, sizeof cubinPath, "%s/k.cubin", dir);
  snprintf(logPath, sizeof logPath, "%s/ptxas.log", dir);
  snprintf(ptxas, sizeof ptxas, "%s/bin/ptxas", o->toolkitPath ? o->toolkitPath : NVFP4_CUDA_ROOT);
  char target[24];
  ptxArch(r->ptx, o->emulate || o->proxy, target, sizeof target);
  snprintf(arch, sizeof arch, "-arch=%s", target);
  bool ok = false;
  FILE *f = fopen(ptxPath, "wb");
  if (!f || fwrite(r->ptx, 1, r->ptxSize, f) != r->ptxSize) {
    logf_(r, "nvfp4: cannot write %s\n", ptxPath);
    if (f) fclose(f);
    goto cleanup;
  }
  fclose(f);
  {
    char *args[10];
    int n = 0;
    args[n++] = ptxas;
    args[n++] = arch;
    args[n++] = "-O3";
    if (o->ptxasVerbose) args[n++] = "-v";
    args[n++] = ptxPath;
    args[n++] = "-o";
    args[n++] = cubinPath;
    args[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, ptxas, &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
      logf_(r, "nvfp4: cannot run %s: %s (install the CUDA toolkit or pass its path)\n", ptxas,
            strerror(rc));
      goto cleanup;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    size_t logSize = 0;
    char *text = readAll(logPath, &logSize);
    if (text) {
      logAppend(r, text, logSize);
      free(text);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      logf_(r, "nvfp4: ptxas failed\n");
      goto cleanup;
    }
    r->cubin = readAll(cubinPath, &r->cubinSize);
    ok = r->cubin != NULL;
    if (!ok) logf_(r, "nvfp4: ptxas wrote no cubin\n");
    /* a cubin is a little-endian ELF64 for EM_CUDA (190): anything else is not one */
    const unsigned char *e = r->cubin;
    if (ok && (r->cubinSize < 64 || memcmp(e, "\177ELF", 4) != 0 || e[4] != 2 || e[5] != 1 ||
               (e[18] | e[19] << 8) != 190)) {
      logf_(r, "nvfp4: %s exited 0 but its output (%zu bytes) is not a CUDA ELF64 cubin\n",
            ptxas, r->cubinSize);
      free(r->cubin);
      r->cubin = NULL;
      r->cubinSize = 0;
      ok = false;
    }
  }
cleanup:
  unlink(ptxPath);
  unlink(cubinPath);
  unlink(logPath);
  rmdir(dir);
  return ok;
}

MlirLogicalResult mlirNvfp4CompileModule(MlirOperation module,
                                         const MlirNvfp4CompileOptions *options,
                                         MlirNvfp4CompileResult *r) {
  /* structSize 0 is the 2.0 layout (this one); anything else must be at least that */
  if (!r || (r->structSize != 0 && r->structSize < sizeof(MlirNvfp4CompileResult)))
    return mlirLogicalResultFailure();
  memset(r, 0, sizeof *r);
  r->structSize = sizeof *r;
  if (options && options->structSize != 0 && options->structSize < sizeof(MlirNvfp4CompileOptions)) {
    logf_(r, "nvfp4: options->structSize is %zu, expected 0 or at least %zu (start from "
             "mlirNvfp4CompileOptionsGetDefault)\n", options->structSize,
          sizeof(MlirNvfp4CompileOptions));
    return mlirLogicalResultFailure();
  }
  MlirNvfp4CompileOptions o = options ? *options : mlirNvfp4CompileOptionsGetDefault();
  if (!o.toolkitPath) o.toolkitPath = NVFP4_CUDA_ROOT;
  MlirContext ctx = mlirOperationGetContext(module);

  double t0 = nowMs();
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateLowerGroupedMatmulPass());
  if (o.emulate && o.proxy) {
    mlirPassManagerDestroy(pm);
    logf_(r, "nvfp4: the emulation and proxy targets are exclusive\n");
    return mlirLogicalResultFailure();
  }
  if (o.emulate) mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateEmulateTcgen05Pass());
  if (o.proxy) mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateProxyTcgen05Pass());
  MlirLogicalResult lowered = mlirPassManagerRunOnOp(pm, module);
  mlirPassManagerDestroy(pm);
  if (mlirLogicalResultIsFailure(lowered)) {
    logf_(r, "nvfp4: lowering failed\n");
    return mlirLogicalResultFailure();
  }
  double t1 = nowMs();
  r->lowerMs = t1 - t0;
  if (o.stopAfterLowering) return mlirLogicalResultSuccess();

  /* The toolkit serves ptxas (run below) and, when it has one, libdevice, which the NVVM
   * serialiser links if it is given a toolkit (our kernels call none of it); a directory
   * holding only bin/ptxas must not make serialisation fail. */
  char libdevice[1200];
  snprintf(libdevice, sizeof libdevice, "%s/nvvm/libdevice/libdevice.10.bc", o.toolkitPath);
  const bool hasLibdevice = access(libdevice, R_OK) == 0;
  pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(
      pm, nvfp4CreateGpuModuleToBinaryPass(hasLibdevice ? o.toolkitPath : NULL, "isa"));
  MlirLogicalResult serialised = mlirPassManagerRunOnOp(pm, module);
  mlirPassManagerDestroy(pm);
  if (mlirLogicalResultIsFailure(serialised)) {
    logf_(r, "nvfp4: gpu-module-to-binary failed\n");
    return mlirLogicalResultFailure();
  }
  Binaries found = {{NULL}, 0};
  mlirOperationWalk(module, findBinary, &found, MlirWalkPreOrder);
  if (found.count != 1) {
    logf_(r, "nvfp4: expected exactly one kernel (one nvfp4.grouped_matmul), found %d\n",
          found.count);
    return mlirLogicalResultFailure();
  }
  MlirStringRef ptx = mlirGPUObjectAttrGetObject(found.object);
  r->ptx = malloc(ptx.length + 1);
  if (!r->ptx) return mlirLogicalResultFailure();
  memcpy(r->ptx, ptx.data, ptx.length);
  r->ptx[ptx.length] = 0;
  r->ptxSize = ptx.length;
  double t2 = nowMs();
  r->llvmMs = t2 - t1;

  if (o.emitCubin) {
    bool ok = runPtxas(&o, r);
    r->ptxasMs = nowMs() - t2;
    if (!ok) return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}

void mlirNvfp4CompileResultDestroy(MlirNvfp4CompileResult *r) {
  free(r->ptx);
  free(r->cubin);
  free(r->log);
  memset(r, 0, sizeof *r);
}
