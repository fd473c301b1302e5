/* Serialize.c — the whole compilation behind include/nvfp4-c/Pipeline.h:
 *   [compile cache lookup] -> nvfp4-lower-grouped-matmul [+ nvfp4-emulate-tcgen05 and
 *   nvfp4-emulate-sm120 |
 *   nvfp4-proxy-tcgen05] -> PTX -> ptxas -> cubin [-> compile cache store].
 * PTX comes from Codegen.c (each kernel of the family in its own LLVM context, optimised
 * in parallel; the same PTX as MLIR's gpu-module-to-binary{format=isa}), and the
 * gpu.module is replaced by a gpu.binary holding it, as that pass does. Modules Codegen.c
 * does not take (the emulation links bitcode) go through gpu-module-to-binary itself.
 * ptxas (Ptxas.c) assembles the family in one process. Every pass is created directly, so
 * callers need not register passes, and no path is ever spliced into a textual pipeline. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nvfp4-c/Pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../Conversion/LoweringCommon.h"
#include "Codegen.h"
#include "CompileCache.h"
#include "GpuModuleToBinary.h"
#include "Ptxas.h"
#include "TargetLog.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Pass.h"
#include "nvfp4-c/Passes.h"
#include "nvfp4-c/Targets.h"

#ifndef NVFP4_CUDA_ROOT
#define NVFP4_CUDA_ROOT "/usr/local/cuda"
#endif

/* The layouts of release 2.0: the smallest structSize accepted (0 stands for them). */
#define OPTIONS_2_0_SIZE offsetof(MlirNvfp4CompileOptions, jobs)
#define RESULT_2_0_SIZE offsetof(MlirNvfp4CompileResult, lowerCpuMs)

/* gpu::CompilationTarget::Assembly: a gpu.object holding PTX text */
#define GPU_OBJECT_FORMAT_ASSEMBLY 2u

static double nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* The results the caller's structSize has room for: the 2.0 layout, or all of them. */
typedef struct Outcome {
  MlirNvfp4CompileResult r; /* filled whole, copied out up to the caller's size */
  char *cacheKey;
  size_t cacheKeySize;
} Outcome;

/* ---- lowering ---------------------------------------------------------------------------- */

static bool lower(MlirOperation module, const MlirNvfp4CompileOptions *o,
                  MlirNvfp4CompileResult *r) {
  double t0 = nowMs(), c0 = nvfp4ThreadCpuMs();
  MlirPassManager pm = mlirPassManagerCreate(mlirOperationGetContext(module));
  mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateLowerGroupedMatmulPass());
  if (o->emulate) { /* each takes the modules of its kernels */
    mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateEmulateTcgen05Pass());
    mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateEmulateSm120Pass());
  }
  if (o->proxy) mlirPassManagerAddOwnedPass(pm, mlirNvfp4CreateProxyTcgen05Pass());
  MlirLogicalResult lowered = mlirPassManagerRunOnOp(pm, module);
  mlirPassManagerDestroy(pm);
  r->lowerMs = nowMs() - t0;
  r->lowerCpuMs = nvfp4ThreadCpuMs() - c0;
  if (mlirLogicalResultIsFailure(lowered)) nvfp4Logf(&r->log, "nvfp4: lowering failed\n");
  return mlirLogicalResultIsSuccess(lowered);
}

/* ---- PTX --------------------------------------------------------------------------------- */

typedef struct Found { MlirOperation op; int count; const char *name; } Found;

static MlirWalkResult findOp(MlirOperation op, void *user) {
  Found *f = user;
  if (nvfp4OpIs(op, f->name) && f->count++ == 0) f->op = op;
  return nvfp4OpIs(op, "gpu.module") ? MlirWalkResultSkip : MlirWalkResultAdvance;
}

static Found findOne(MlirOperation module, const char *name) {
  Found f = {{NULL}, 0, name};
  mlirOperationWalk(module, findOp, &f, MlirWalkPreOrder);
  return f;
}

static bool copyPtx(MlirNvfp4CompileResult *r, MlirStringRef ptx) {
  r->ptx = malloc(ptx.length + 1);
  if (!r->ptx) return false;
  memcpy(r->ptx, ptx.data, ptx.length);
  r->ptx[ptx.length] = 0;
  r->ptxSize = ptx.length;
  return true;
}

static unsigned countEntries(const char *ptx) {
  unsigned n = 0;
  for (const char *p = ptx; (p = strstr(p, "\n.visible .entry ")); ++p) ++n;
  return n;
}

/* MLIR's own route, for the modules Codegen.c does not take: gpu-module-to-binary on the
 * whole module. */
static bool ptxThroughMlir(MlirOperation module, const MlirNvfp4CompileOptions *o,
                           MlirNvfp4CompileResult *r) {
  /* The toolkit serves ptxas and, when it has one, libdevice, which the NVVM serialiser
   * links if it is given a toolkit (our kernels call none of it); a directory holding
   * only bin/ptxas must not make serialisation fail. */
  char libdevice[1200];
  snprintf(libdevice, sizeof libdevice, "%s/nvvm/libdevice/libdevice.10.bc", o->toolkitPath);
  const bool hasLibdevice = access(libdevice, R_OK) == 0;
  MlirPassManager pm = mlirPassManagerCreate(mlirOperationGetContext(module));
  mlirPassManagerAddOwnedPass(
      pm, nvfp4CreateGpuModuleToBinaryPass(hasLibdevice ? o->toolkitPath : NULL, "isa"));
  MlirLogicalResult serialised = mlirPassManagerRunOnOp(pm, module);
  mlirPassManagerDestroy(pm);
  if (mlirLogicalResultIsFailure(serialised)) {
    nvfp4Logf(&r->log, "nvfp4: gpu-module-to-binary failed\n");
    return false;
  }
  Found binary = findOne(module, "gpu.binary");
  MlirAttribute objects =
      mlirOperationGetAttributeByName(binary.op, str("objects"));
  if (binary.count != 1 || mlirAttributeIsNull(objects) ||
      mlirArrayAttrGetNumElements(objects) < 1)
    return false;
  if (!copyPtx(r, mlirGPUObjectAttrGetObject(mlirArrayAttrGetElement(objects, 0)))) return false;
  r->kernels = countEntries(r->ptx);
  return true;
}

/* Replaces the gpu.module by a gpu.binary holding its PTX, as gpu-module-to-binary does.
 * The op comes from parsing (so that its offloading handler is the default one), then gets
 * the module's name and the object. */
static bool replaceWithBinary(MlirOperation gpuModule, const MlirNvfp4CompileResult *r) {
  MlirContext ctx = mlirOperationGetContext(gpuModule);
  MlirOperation binary = mlirOperationCreateParse(
      ctx, str("gpu.binary @nvfp4_binary [#gpu.object<#nvvm.target, \"\">]"), str("nvfp4"));
  if (mlirOperationIsNull(binary)) return false;
  MlirAttribute targets = mlirOperationGetAttributeByName(gpuModule, str("targets"));
  MlirAttribute object = mlirGPUObjectAttrGet(
      ctx, mlirArrayAttrGetElement(targets, 0), GPU_OBJECT_FORMAT_ASSEMBLY,
      mlirStringRefCreate(r->ptx, r->ptxSize), mlirAttributeGetNull());
  mlirOperationSetAttributeByName(binary, str("objects"), mlirArrayAttrGet(ctx, 1, &object));
  mlirOperationSetAttributeByName(binary, str("sym_name"),
                                  mlirOperationGetAttributeByName(gpuModule, str("sym_name")));
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(gpuModule), gpuModule, binary);
  mlirOperationDestroy(gpuModule);
  return true;
}

static bool emitPtx(MlirOperation module, const MlirNvfp4CompileOptions *o,
                    MlirNvfp4CompileResult *r) {
  double t0 = nowMs();
  Found gpu = findOne(module, "gpu.module");
  if (gpu.count != 1) {
    nvfp4Logf(&r->log, "nvfp4: expected exactly one kernel (one nvfp4.grouped_matmul), found %d\n",
              gpu.count);
    return false;
  }
  Nvfp4Codegen cg;
  Nvfp4CodegenStatus status = nvfp4CodegenPtx(gpu.op, o->jobs, &cg, &r->log);
  bool ok = status == NVFP4_CODEGEN_OK;
  if (ok) {
    r->ptx = cg.ptx;
    r->ptxSize = cg.ptxSize;
    r->kernels = cg.kernels;
    r->llvmCpuMs = cg.cpuMs;
    ok = replaceWithBinary(gpu.op, r);
  } else if (status == NVFP4_CODEGEN_UNSUPPORTED) {
    double c0 = nvfp4ThreadCpuMs();
    ok = ptxThroughMlir(module, o, r);
    r->llvmCpuMs = nvfp4ThreadCpuMs() - c0;
  }
  r->llvmMs = nowMs() - t0;
  return ok;
}

static bool assemble(const MlirNvfp4CompileOptions *o, MlirNvfp4CompileResult *r) {
  double t0 = nowMs();
  Nvfp4PtxasJob job = {o->toolkitPath, r->ptx, r->ptxSize, o->emulate || o->proxy ? "sm_90a"
                                                                                   : "sm_100a",
                       r->kernels, o->jobs, o->ptxasVerbose};
  bool ok = nvfp4RunPtxas(&job, &r->cubin, &r->cubinSize, &r->ptxasCpuMs, &r->log);
  r->ptxasMs = nowMs() - t0;
  return ok;
}

/* ---- the compile cache ------------------------------------------------------------------- */

static bool cacheLookup(MlirOperation module, const MlirNvfp4CompileOptions *o, Outcome *out) {
  out->cacheKey = nvfp4CacheKey(module, o, &out->cacheKeySize);
  Nvfp4CacheEntry e;
  if (!out->cacheKey ||
      !nvfp4CacheLookup(o->cacheDir, out->cacheKey, out->cacheKeySize, &e, &out->r.log))
    return false;
  MlirNvfp4CompileResult *r = &out->r;
  free(r->log); /* a hit says what the compilation said */
  r->log = e.log;
  r->ptx = e.ptx;
  r->ptxSize = e.ptxSize;
  r->cubin = e.cubin;
  r->cubinSize = e.cubinSize;
  r->kernels = e.kernels;
  r->cacheHit = true;
  return true;
}

static void cacheStore(const MlirNvfp4CompileOptions *o, Outcome *out) {
  const MlirNvfp4CompileResult *r = &out->r;
  Nvfp4CacheEntry e = {r->ptx, r->ptxSize, r->cubin, r->cubinSize, r->log,
                       r->log ? strlen(r->log) : 0, r->kernels};
  char *note = NULL; /* a cache that cannot be written is not the compilation's failure */
  nvfp4CacheStore(o->cacheDir, out->cacheKey, out->cacheKeySize, &e, &note);
  if (note) nvfp4LogAppend(&out->r.log, note, strlen(note));
  free(note);
}

/* ---- the emulation and proxy rewrite Blackwell kernels only ----------------------------- */

typedef struct UnrewritableWalk {
  bool proxy;
  MlirOperation op;
} UnrewritableWalk;

/* mlirNvfp4TargetIsRewritable of a known target: the emulation rewrites tcgen05 and the
 * block-scaled mma.sync, the proxy tcgen05 alone. */
static bool infoIsRewritable(const nvfp4_target_info *info, bool proxy) {
  return info->generator == NVFP4_TARGET_GEN_TCGEN05 ||
         (!proxy && info->generator == NVFP4_TARGET_GEN_MMA_SYNC);
}

/* Walk callback: stops at the first nvfp4 op whose (known) target the build cannot rewrite. */
static MlirWalkResult findUnrewritable(MlirOperation op, void *user) {
  UnrewritableWalk *w = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length < 6 || strncmp(name.data, "nvfp4.", 6) != 0) return MlirWalkResultAdvance;
  MlirAttribute t = mlirOperationGetAttributeByName(op, str("target"));
  if (mlirAttributeIsNull(t) || !mlirAttributeIsAString(t)) return MlirWalkResultAdvance;
  MlirStringRef v = mlirStringAttrGetValue(t);
  const nvfp4_target_info *info = nvfp4_target_find_n(v.data, v.length);
  if (!info || infoIsRewritable(info, w->proxy)) return MlirWalkResultAdvance;
  w->op = op;
  return MlirWalkResultInterrupt;
}

bool mlirNvfp4TargetIsRewritable(const char *target, bool proxy) {
  const nvfp4_target_info *info = nvfp4_target_find(target);
  return info && infoIsRewritable(info, proxy);
}

MlirOperation mlirNvfp4FindUnrewritableOp(MlirOperation module, bool proxy) {
  UnrewritableWalk w = {proxy, {NULL}};
  mlirOperationWalk(module, findUnrewritable, &w, MlirWalkPreOrder);
  return w.op;
}

/* False (a diagnostic at the op, and the log) when an emulation or proxy build is asked of
 * an op whose kernel has nothing that build rewrites. */
static bool rewritesBlackwellOnly(MlirOperation module, const MlirNvfp4CompileOptions *o,
                                  MlirNvfp4CompileResult *r) {
  if (!(o->emulate || o->proxy)) return true;
  MlirOperation bad = mlirNvfp4FindUnrewritableOp(module, o->proxy);
  if (mlirOperationIsNull(bad)) return true;
  MlirStringRef t =
      mlirStringAttrGetValue(mlirOperationGetAttributeByName(bad, str("target")));
  char msg[400];
  if (o->emulate)
    snprintf(msg, sizeof msg,
             "the emulation build rewrites the tcgen05 ops or the block-scaled mma.sync of a "
             "Blackwell kernel for sm_90a, but this op's target is \"%.*s\", whose kernel has "
             "neither", (int)t.length, t.data);
  else
    snprintf(msg, sizeof msg,
             "the proxy build rewrites the tcgen05 ops of an sm_100a, sm_100f or sm_103a "
             "kernel for sm_90a, but this op's target is \"%.*s\", whose kernel has none",
             (int)t.length, t.data);
  mlirEmitError(mlirOperationGetLocation(bad), msg);
  nvfp4Logf(&r->log, "nvfp4: %s\n", msg);
  return false;
}

/* Walk callback: marks each nvfp4 op with the unit attribute nvfp4.pair_forward, so that
 * its CTA pairs hand stages over in a form sm_90a executes (KernelConfig.h, pairForward). */
static MlirWalkResult markPairForward(MlirOperation op, void *user) {
  (void)user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length >= 6 && strncmp(name.data, "nvfp4.", 6) == 0)
    mlirOperationSetAttributeByName(op, str("nvfp4.pair_forward"),
                                    mlirUnitAttrGet(mlirOperationGetContext(op)));
  return MlirWalkResultAdvance;
}

/* ---- the whole --------------------------------------------------------------------------- */

static bool compile(MlirOperation module, const MlirNvfp4CompileOptions *o, Outcome *out) {
  MlirNvfp4CompileResult *r = &out->r;
  if (o->emulate && o->proxy) {
    nvfp4Logf(&r->log, "nvfp4: the emulation and proxy targets are exclusive\n");
    return false;
  }
  if (!rewritesBlackwellOnly(module, o, r)) return false;
  const bool cached = o->cacheDir && !o->stopAfterLowering;
  if (cached && cacheLookup(module, o, out)) return true;
  /* sm_90a has no .cta_group::2 TMA: the retargeted builds' pairs forward their stages */
  if (o->emulate || o->proxy) mlirOperationWalk(module, markPairForward, NULL, MlirWalkPreOrder);
  if (!lower(module, o, r)) return false;
  if (o->stopAfterLowering) return true;
  if (!emitPtx(module, o, r)) return false;
  if (o->emitCubin && !assemble(o, r)) return false;
  if (cached && out->cacheKey) cacheStore(o, out);
  return true;
}

/* The caller's options, with defaults for what its structSize does not cover. */
static bool readOptions(const MlirNvfp4CompileOptions *options, MlirNvfp4CompileOptions *o,
                        char **log) {
  *o = mlirNvfp4CompileOptionsGetDefault();
  if (options) {
    size_t size = options->structSize ? options->structSize : OPTIONS_2_0_SIZE;
    if (size < OPTIONS_2_0_SIZE) {
      nvfp4Logf(log, "nvfp4: options->structSize is %zu, expected 0 or at least %zu (start from "
                     "mlirNvfp4CompileOptionsGetDefault)\n", options->structSize,
                (size_t)OPTIONS_2_0_SIZE);
      return false;
    }
    memcpy(o, options, size < sizeof *o ? size : sizeof *o);
  }
  if (!o->toolkitPath) o->toolkitPath = NVFP4_CUDA_ROOT;
  if (o->jobs <= 0) o->jobs = nvfp4AvailableCpus();
  return true;
}

MlirLogicalResult mlirNvfp4CompileModule(MlirOperation module,
                                         const MlirNvfp4CompileOptions *options,
                                         MlirNvfp4CompileResult *result) {
  /* structSize 0 is the 2.0 layout; anything else must be at least that */
  if (!result || (result->structSize != 0 && result->structSize < RESULT_2_0_SIZE))
    return mlirLogicalResultFailure();
  size_t room = result->structSize ? result->structSize : RESULT_2_0_SIZE;
  if (room > sizeof *result) room = sizeof *result;
  Outcome out;
  memset(&out, 0, sizeof out);
  MlirNvfp4CompileOptions o;
  bool ok = readOptions(options, &o, &out.r.log) && compile(module, &o, &out);
  out.r.structSize = room;
  memset(result, 0, room);
  memcpy(result, &out.r, room);
  free(out.cacheKey);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

void mlirNvfp4CompileResultDestroy(MlirNvfp4CompileResult *r) {
  free(r->ptx);
  free(r->cubin);
  free(r->log);
  size_t size = r->structSize ? r->structSize : RESULT_2_0_SIZE;
  memset(r, 0, size < sizeof *r ? size : sizeof *r);
}
