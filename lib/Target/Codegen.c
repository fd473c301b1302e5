/* Codegen.c — a lowered gpu.module's kernels to one PTX text, in parallel (Codegen.h).
 *
 *   1. the module's target (#nvvm.target<O, chip, features>) becomes an NVPTX target
 *      machine, as gpu-module-to-binary makes it (code generation at the O level too);
 *   2. on the calling thread, in the module's order, each kernel moves into a copy of the
 *      module's other symbols (the metadata table, the dynamic shared memory, declarations)
 *      and that copy is translated to LLVM IR in a context of its own; the MLIR context is
 *      only ever used by this thread;
 *   3. up to `jobs` threads (this one included, once it has translated every kernel) run
 *      LLVM's default<On> pipeline and the NVPTX back end on the translated modules;
 *   4. the kernels' PTX is joined: the first kernel's whole text, then each further kernel
 *      from its `// .globl` line, skipping the shared header and global declarations; that
 *      is exactly how the back end prints a module holding all of them.
 * A module with bitcode to link (`link = [...]`, the emulation) or kernels whose PTX does
 * not join that way is reported unsupported, and the caller serialises it whole.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "Codegen.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../Conversion/LoweringCommon.h"
#include "TargetLog.h"
#include "llvm-c/Core.h"
#include "llvm-c/Error.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"
#include "llvm-c/Transforms/PassBuilder.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Target/LLVMIR.h"

#define NVPTX_TRIPLE "nvptx64-nvidia-cuda"

int nvfp4AvailableCpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return 1;
}

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* ---- the target ------------------------------------------------------------------------ */

typedef struct NvptxTarget {
  char chip[32], features[128];
  int opt;
} NvptxTarget;

typedef struct Printed { char text[1024]; size_t n; bool cut; } Printed;
static void printInto(MlirStringRef s, void *user) {
  Printed *p = user;
  if (p->n + s.length >= sizeof p->text) {
    p->cut = true;
    return;
  }
  memcpy(p->text + p->n, s.data, s.length);
  p->n += s.length;
  p->text[p->n] = 0;
}

/* One `key = value` field of the printed #nvvm.target; false on anything but O, chip and
 * features (a link list, flags, another triple: this route does not take them). */
static bool targetField(char *field, NvptxTarget *t) {
  char key[16], value[160];
  while (*field == ' ') ++field;
  if (sscanf(field, "%15[A-Za-z_] = %159[^\n]", key, value) != 2) return false;
  size_t n = strlen(value);
  bool quoted = n >= 2 && value[0] == '"' && value[n - 1] == '"' && !memchr(value + 1, '"', n - 2);
  if (quoted) {
    value[n - 1] = 0;
    memmove(value, value + 1, n - 1);
  }
  if (!strcmp(key, "O") && !quoted) {
    char *end;
    long o = strtol(value, &end, 10);
    t->opt = (int)o;
    return *end == 0 && o >= 0 && o <= 3;
  }
  if (!strcmp(key, "chip") && quoted && strlen(value) < sizeof t->chip) {
    strcpy(t->chip, value);
    return true;
  }
  if (!strcmp(key, "features") && quoted && strlen(value) < sizeof t->features) {
    strcpy(t->features, value);
    return true;
  }
  return false;
}

/* The module's single #nvvm.target (defaults as MLIR's: sm_50, +ptx60, O = 2). */
static bool readTarget(MlirOperation gpuModule, NvptxTarget *t) {
  MlirAttribute targets = mlirOperationGetAttributeByName(gpuModule, str("targets"));
  if (mlirAttributeIsNull(targets) || !mlirAttributeIsAArray(targets) ||
      mlirArrayAttrGetNumElements(targets) != 1)
    return false;
  Printed p = {{0}, 0, false};
  mlirAttributePrint(mlirArrayAttrGetElement(targets, 0), printInto, &p);
  const char *prefix = "#nvvm.target";
  if (p.cut || strncmp(p.text, prefix, strlen(prefix)) != 0) return false;
  *t = (NvptxTarget){"sm_50", "+ptx60", 2};
  char *body = p.text + strlen(prefix);
  if (*body == 0) return true;
  size_t n = strlen(body);
  if (body[0] != '<' || body[n - 1] != '>' || strchr(body, '[') || strchr(body, '{')) return false;
  body[n - 1] = 0;
  for (char *save = NULL, *f = strtok_r(body + 1, ",", &save); f; f = strtok_r(NULL, ",", &save))
    if (!targetField(f, t)) return false;
  return true;
}

static void initNvptxOnce(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}

static LLVMTargetMachineRef createTargetMachine(const NvptxTarget *t, char **error) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, initNvptxOnce);
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(NVPTX_TRIPLE, &target, error)) return NULL;
  static const LLVMCodeGenOptLevel levels[4] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                                LLVMCodeGenLevelDefault,
                                                LLVMCodeGenLevelAggressive};
  return LLVMCreateTargetMachine(target, NVPTX_TRIPLE, t->chip, t->features, levels[t->opt],
                                 LLVMRelocDefault, LLVMCodeModelDefault);
}

/* ---- one kernel: LLVM IR -> optimised -> PTX -------------------------------------------- */

typedef struct Unit {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  char *ptx;
  size_t ptxSize;
  char *error;
} Unit;

static char *takeLLVMError(LLVMErrorRef e) {
  char *m = LLVMGetErrorMessage(e);
  char *copy = strdup(m ? m : "unknown error");
  LLVMDisposeErrorMessage(m);
  return copy;
}

/* The O level's default pipeline with the tuning gpu-module-to-binary uses (every loop
 * and SLP transformation on), then the NVPTX back end to PTX text. */
static void compileUnit(Unit *u, const NvptxTarget *t) {
  char *msg = NULL;
  LLVMTargetMachineRef tm = createTargetMachine(t, &msg);
  if (!tm) {
    u->error = strdup(msg ? msg : "no NVPTX target machine");
    LLVMDisposeMessage(msg);
    return;
  }
  LLVMSetTarget(u->mod, NVPTX_TRIPLE);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(u->mod, dl);
  LLVMDisposeTargetData(dl);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopUnrolling(po, 1);
  LLVMPassBuilderOptionsSetLoopInterleaving(po, 1);
  LLVMPassBuilderOptionsSetLoopVectorization(po, 1);
  LLVMPassBuilderOptionsSetSLPVectorization(po, 1);
  char pipeline[32];
  snprintf(pipeline, sizeof pipeline, "default<O%d>", t->opt);
  LLVMErrorRef e = LLVMRunPasses(u->mod, pipeline, tm, po);
  LLVMDisposePassBuilderOptions(po);
  LLVMMemoryBufferRef buf = NULL;
  if (e) u->error = takeLLVMError(e);
  else if (LLVMTargetMachineEmitToMemoryBuffer(tm, u->mod, LLVMAssemblyFile, &msg, &buf)) {
    u->error = strdup(msg ? msg : "NVPTX code generation failed");
    LLVMDisposeMessage(msg);
  } else {
    size_t n = LLVMGetBufferSize(buf);
    const char *s = LLVMGetBufferStart(buf);
    if (n > 0 && s[n - 1] == 0) --n; /* the buffer may count its terminator */
    u->ptx = malloc(n + 1);
    if (u->ptx) {
      memcpy(u->ptx, s, n);
      u->ptx[n] = 0;
      u->ptxSize = n;
    } else {
      u->error = strdup("out of memory");
    }
    LLVMDisposeMemoryBuffer(buf);
  }
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeModule(u->mod);
  LLVMContextDispose(u->ctx);
  u->mod = NULL;
  u->ctx = NULL;
}

/* ---- the work queue: units translated on the calling thread, compiled by any ---------- */

typedef struct Pool {
  pthread_mutex_t mu;
  pthread_cond_t ready;
  Unit *units;
  unsigned translated, next;
  bool closed;              /* no more units will be translated */
  double workerCpuMs;       /* the worker threads' CPU time */
  const NvptxTarget *target;
} Pool;

static bool takeUnit(Pool *p, unsigned *i) {
  pthread_mutex_lock(&p->mu);
  while (p->next >= p->translated && !p->closed) pthread_cond_wait(&p->ready, &p->mu);
  bool got = p->next < p->translated;
  if (got) *i = p->next++;
  pthread_mutex_unlock(&p->mu);
  return got;
}

static void drain(Pool *p) {
  unsigned i;
  while (takeUnit(p, &i)) compileUnit(&p->units[i], p->target);
}

static void *worker(void *arg) {
  Pool *p = arg;
  double t0 = nvfp4ThreadCpuMs();
  drain(p);
  double spent = nvfp4ThreadCpuMs() - t0;
  pthread_mutex_lock(&p->mu);
  p->workerCpuMs += spent;
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static void publish(Pool *p, unsigned translated, bool closed) {
  pthread_mutex_lock(&p->mu);
  p->translated = translated;
  p->closed = closed;
  pthread_cond_broadcast(&p->ready);
  pthread_mutex_unlock(&p->mu);
}

/* ---- splitting the module ------------------------------------------------------------- */

static MlirBlock bodyOf(MlirOperation op) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
}

static bool isKernel(MlirOperation op) {
  return nvfp4OpIs(op, "llvm.func") &&
         !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("nvvm.kernel")));
}

/* Moves the module's kernels, in order, to the end of `to`; returns how many. */
static unsigned moveKernels(MlirBlock from, MlirBlock to) {
  unsigned n = 0;
  MlirOperation op = mlirBlockGetFirstOperation(from);
  while (!mlirOperationIsNull(op)) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (isKernel(op)) {
      mlirOperationRemoveFromParent(op);
      mlirBlockAppendOwnedOperation(to, op);
      ++n;
    }
    op = next;
  }
  return n;
}

/* Kernel `k` alone with the module's other symbols (a copy of `shell`), translated into a
 * context of its own; `k` goes back to `home` afterwards. */
static bool translateKernel(MlirOperation shell, MlirOperation k, MlirBlock home, Unit *u) {
  MlirOperation copy = mlirOperationClone(shell);
  mlirOperationRemoveFromParent(k);
  mlirBlockAppendOwnedOperation(bodyOf(copy), k);
  u->ctx = LLVMContextCreate();
  u->mod = mlirTranslateModuleToLLVMIR(copy, u->ctx);
  mlirOperationRemoveFromParent(k);
  mlirBlockAppendOwnedOperation(home, k);
  mlirOperationDestroy(copy);
  if (!u->mod) {
    LLVMContextDispose(u->ctx);
    u->ctx = NULL;
    return false;
  }
  return true;
}

/* ---- joining the kernels' PTX ----------------------------------------------------------- */

#define GLOBL_LINE "\n\t// .globl\t"

/* A kernel's PTX: [0, globl) the prelude, [globl, decls) its `// .globl` line,
 * [decls, entry) the global declarations, [entry, end) its entry function. */
typedef struct PtxParts { size_t globl, decls, entry, end; } PtxParts;

static bool ptxParts(const char *ptx, size_t size, PtxParts *p) {
  const char *g = strstr(ptx, GLOBL_LINE);
  if (!g || strstr(g + 1, GLOBL_LINE)) return false; /* one entry, no other function */
  const char *d = strchr(g + 1, '\n');
  const char *e = strstr(g, "\n.visible .entry ");
  if (!d || !e || e < d || strstr(e + 1, "\n.func") || strstr(e + 1, "\n.visible") ||
      strstr(e + 1, "\n.weak"))
    return false;
  *p = (PtxParts){(size_t)(g - ptx) + 1, (size_t)(d - ptx) + 1, (size_t)(e - ptx) + 1, size};
  return true;
}

/* Kernel i's PTX shares kernel 0's prelude and declarations. */
static bool sameShared(const Unit *u0, const PtxParts *p0, const Unit *ui, const PtxParts *pi) {
  return pi->globl == p0->globl && !memcmp(ui->ptx, u0->ptx, p0->globl) &&
         pi->entry - pi->decls == p0->entry - p0->decls &&
         !memcmp(ui->ptx + pi->decls, u0->ptx + p0->decls, p0->entry - p0->decls);
}

/* Kernel text printed as the module's function 0, renumbered as function `fn`: the back
 * end names basic-block labels and the local stack after the function's number. */
static void appendRenumbered(Nvfp4Text *b, const char *s, size_t n, unsigned fn) {
  static const char *const names[2] = {"$L__BB0_", "__local_depot0"};
  const char *end = s + n;
  while (s < end) {
    const char *hit = NULL;
    int which = 0;
    for (int k = 0; k < 2; ++k) {
      const char *h = memmem(s, (size_t)(end - s), names[k], strlen(names[k]));
      if (h && (!hit || h < hit)) {
        hit = h;
        which = k;
      }
    }
    if (!hit) {
      nvfp4TextAppend(b, s, (size_t)(end - s));
      return;
    }
    size_t stem = strlen(names[which]) - (which ? 1 : 2); /* "$L__BB" / "__local_depot" */
    char number[16];
    int len = snprintf(number, sizeof number, "%u", fn);
    nvfp4TextAppend(b, s, (size_t)(hit - s) + stem);
    nvfp4TextAppend(b, number, (size_t)len);
    s = hit + stem + 1;
  }
}

static Nvfp4CodegenStatus joinPtx(const Unit *units, unsigned n, Nvfp4Codegen *out) {
  PtxParts *parts = calloc(n, sizeof *parts);
  if (!parts) return NVFP4_CODEGEN_FAILED;
  bool ok = true;
  for (unsigned i = 0; ok && i < n; ++i)
    ok = ptxParts(units[i].ptx, units[i].ptxSize, &parts[i]) &&
         (i == 0 || sameShared(&units[0], &parts[0], &units[i], &parts[i]));
  Nvfp4Text b = {0};
  if (ok) {
    nvfp4TextAppend(&b, units[0].ptx, units[0].ptxSize);
    for (unsigned i = 1; i < n; ++i) {
      const PtxParts *p = &parts[i];
      nvfp4TextAppend(&b, units[i].ptx + p->globl, p->decls - p->globl);
      appendRenumbered(&b, units[i].ptx + p->entry, p->end - p->entry, i);
    }
  }
  free(parts);
  if (!ok) return NVFP4_CODEGEN_UNSUPPORTED;
  if (b.failed) {
    free(b.data);
    return NVFP4_CODEGEN_FAILED;
  }
  *out = (Nvfp4Codegen){b.data, b.len, n, 0};
  return NVFP4_CODEGEN_OK;
}

/* ---- the whole ------------------------------------------------------------------------- */

/* Translates every kernel on this thread while the pool compiles them; returns how many
 * translated (all of them unless one failed). */
static unsigned translateAll(Pool *pool, MlirOperation shell, MlirBlock holder, MlirBlock home,
                             unsigned n) {
  unsigned done = 0;
  for (MlirOperation k = mlirBlockGetFirstOperation(holder); done < n;
       k = mlirBlockGetFirstOperation(holder)) {
    if (!translateKernel(shell, k, home, &pool->units[done])) break;
    publish(pool, ++done, false);
  }
  publish(pool, done, true);
  return done;
}

static void freeUnits(Unit *units, unsigned n) {
  for (unsigned i = 0; i < n; ++i) {
    if (units[i].mod) LLVMDisposeModule(units[i].mod);
    if (units[i].ctx) LLVMContextDispose(units[i].ctx);
    free(units[i].ptx);
    free(units[i].error);
  }
  free(units);
}

static Nvfp4CodegenStatus collectResults(Unit *units, unsigned n, unsigned translated,
                                         Nvfp4Codegen *out, char **log) {
  if (translated < n) {
    nvfp4Logf(log, "nvfp4: translation of kernel %u of %u to LLVM IR failed\n", translated + 1,
              n);
    return NVFP4_CODEGEN_FAILED;
  }
  for (unsigned i = 0; i < n; ++i)
    if (units[i].error) {
      nvfp4Logf(log, "nvfp4: LLVM NVPTX compilation of kernel %u of %u failed: %s\n", i + 1, n,
                units[i].error);
      return NVFP4_CODEGEN_FAILED;
    }
  return joinPtx(units, n, out);
}

Nvfp4CodegenStatus nvfp4CodegenPtx(MlirOperation gpuModule, int jobs, Nvfp4Codegen *out,
                                   char **log) {
  memset(out, 0, sizeof *out);
  NvptxTarget target;
  if (!nvfp4OpIs(gpuModule, "gpu.module") || !readTarget(gpuModule, &target))
    return NVFP4_CODEGEN_UNSUPPORTED;
  double t0 = nvfp4ThreadCpuMs();
  MlirBlock home = bodyOf(gpuModule);
  MlirBlock holder = mlirBlockCreate(0, NULL, NULL);
  unsigned n = moveKernels(home, holder);
  if (n == 0) {
    mlirBlockDestroy(holder);
    return NVFP4_CODEGEN_UNSUPPORTED;
  }
  MlirOperation shell = mlirOperationClone(gpuModule); /* every symbol but the kernels */
  Pool pool = {.units = calloc(n, sizeof(Unit)), .target = &target};
  pthread_mutex_init(&pool.mu, NULL);
  pthread_cond_init(&pool.ready, NULL);
  unsigned threads = jobs > 1 ? (unsigned)jobs - 1 : 0, started = 0;
  if (threads > n) threads = n;
  pthread_t tids[64];
  if (threads > 64) threads = 64;
  while (pool.units && started < threads &&
         pthread_create(&tids[started], NULL, worker, &pool) == 0)
    ++started;
  unsigned translated = pool.units ? translateAll(&pool, shell, holder, home, n) : 0;
  moveKernels(holder, home); /* those whose translation never ran */
  mlirBlockDestroy(holder);
  mlirOperationDestroy(shell);
  drain(&pool); /* this thread helps, then waits for the rest */
  for (unsigned i = 0; i < started; ++i) pthread_join(tids[i], NULL);
  Nvfp4CodegenStatus status = pool.units ? collectResults(pool.units, n, translated, out, log)
                                         : NVFP4_CODEGEN_FAILED;
  out->cpuMs = nvfp4ThreadCpuMs() - t0 + pool.workerCpuMs;
  pthread_cond_destroy(&pool.ready);
  pthread_mutex_destroy(&pool.mu);
  if (pool.units) freeUnits(pool.units, n);
  return status;
}
