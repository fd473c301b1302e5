/* CpuTarget.c — the --nvfp4-cpu-target pass, in C: turns the generated kernels of each
 * nvfp4 gpu.module into host code that runs on the CTA simulator (cpusim/, libnvfp4sim).
 *
 * It runs after --nvfp4-lower-grouped-matmul on the same kernel IR the sm_100a and the
 * emulation pipelines take, and rewrites, in place:
 *   - every nvvm operation (special registers, bar.sync / bar.warp.sync, barrier.cluster,
 *     mbarriers, fences, griddepcontrol, TMA loads and stores, bulk groups, tensor-map prefetch, mapa,
 *     tcgen05.*) into a call to the simulator's interface (cpusim/include/nvfp4_sim.h);
 *   - shared::cta pointers (!llvm.ptr<3>) into their 32-bit shared addresses, shared::cluster
 *     pointers (!llvm.ptr<7>) into 64-bit cluster addresses, Tensor Memory pointers
 *     (!llvm.ptr<6>) into their 32-bit TMEM addresses; generic loads and stores of shared
 *     memory go to the CTA's host window (nvfp4_sim_smem_base) after a checking call,
 *     global loads and stores (!llvm.ptr<1>) to host addresses after nvfp4_sim_global_access;
 *   - every tcgen05.ld into a call that fills a per-load buffer at tcgen05.wait::ld, and
 *     every use of its registers into a checked load of that buffer;
 *   - the empty inline-asm register fence after tcgen05.wait::ld into its operands (its
 *     job — ordering the register uses after the wait — is done by the checked loads);
 *   - the by-value nvvm.grid_constant parameter into a plain pointer (the simulator passes
 *     each CTA's copy of the parameter block), and drops the NVVM kernel attributes;
 *   - the sm_90a kernels' operations (docs/kernel-sm90a.md): the register-A wgmma inline
 *     asm into nvfp4_sim_wgmma_bf16 with its accumulator in a per-call buffer, wgmma.fence /
 *     commit_group / wait_group, stmatrix.x4.trans; setmaxnreg is dropped (the simulator has
 *     no register file).
 *   - the sm_120a kernels' operations (docs/kernel-sm120a.md): ldmatrix.x4 and the
 *     block-scaled mma.sync into nvfp4_sim_ldmatrix_x4 / nvfp4_sim_mma_block_scale, their
 *     results read back from per-call buffers; the CTA-only TMA load (a shared::cta
 *     destination) like the cluster one; shfl.sync.bfly of an i32 (the fused epilogue's
 *     lane reductions) into nvfp4_sim_shfl_bfly.
 *   - f32 -> bf16 truncations (a bf16 C) into integer round-to-nearest-even (the host's
 *     libcall for them is missing from older runtime libraries).
 * Each kernel gets a plan text (its role map, shared-memory regions, mbarrier arrays and
 * TMEM regions: the plan the lowering computed and attached to the kernel as `nvfp4.plan`,
 * never recomputed here; plus the table of rewritten operations the calls' `site` numbers
 * index) as the string global `<kernel>__nvfp4_cpu_plan`; the simulator names resources and
 * instructions with it.
 * The module's target becomes the host: the gpu.module is marked `nvfp4.cpu` and holds
 * only LLVM-dialect operations, which lib/Target/CpuObject.c translates and compiles.
 * Anything the simulator does not implement is rejected with a diagnostic at the op.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "KernelBuilder.h"
#include "LoweringCommon.h"
#include "Nvvm.h"
#include "OpTable.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/NVVM.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/KernelConfig.h"
#include "nvfp4-c/Passes.h"
#include "nvfp4_sim.h"

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* The simulator's entry points, as declared in the rewritten module. */
static const char *const kDecls[] = {
    "llvm.func @nvfp4_sim_sreg(i32) -> i32",
    "llvm.func @nvfp4_sim_smem_base() -> !llvm.ptr",
    "llvm.func @nvfp4_sim_dyn_smem() -> i32",
    "llvm.func @nvfp4_sim_smem_access(i32, i32, i32, i32)",
    "llvm.func @nvfp4_sim_global_access(!llvm.ptr, i32, i32, i32, i32)",
    "llvm.func @nvfp4_sim_global_release_u32(i64, i32, i32)",
    "llvm.func @nvfp4_sim_global_acquire_u32(i64, i32) -> i32",
    "llvm.func @nvfp4_sim_global_atomic_add_u32(i64, i32, i32) -> i32",
    "llvm.func @nvfp4_sim_barrier(i32, i32, i32)",
    "llvm.func @nvfp4_sim_barrier_or(i32, i32, i32, i32) -> i32",
    "llvm.func @nvfp4_sim_warp_sync(i32, i32)",
    "llvm.func @nvfp4_sim_cluster_arrive(i32)",
    "llvm.func @nvfp4_sim_cluster_wait(i32)",
    "llvm.func @nvfp4_sim_fence(i32, i32)",
    "llvm.func @nvfp4_sim_griddep(i32, i32)",
    "llvm.func @nvfp4_sim_mbar_init(i32, i32, i32)",
    "llvm.func @nvfp4_sim_mbar_arrive(i32, i32)",
    "llvm.func @nvfp4_sim_mbar_arrive_expect_tx(i32, i32, i32)",
    "llvm.func @nvfp4_sim_mbar_arrive_cluster(i64, i32)",
    "llvm.func @nvfp4_sim_mbar_try_wait(i32, i32, i32, i32) -> i32",
    "llvm.func @nvfp4_sim_mapa(i32, i32) -> i64",
    "llvm.func @nvfp4_sim_cluster_addr(i32) -> i64",
    "llvm.func @nvfp4_sim_tma_load(i64, !llvm.ptr, i32, i32, i32, i64, i32, i32)",
    "llvm.func @nvfp4_sim_tma_load_cluster(i64, !llvm.ptr, i32, i32, i32, i32, i32, i32)",
    "llvm.func @nvfp4_sim_tma_store(!llvm.ptr, i32, i32, i32, i32)",
    "llvm.func @nvfp4_sim_bulk_commit_group(i32)",
    "llvm.func @nvfp4_sim_bulk_wait_group(i32, i32, i32)",
    "llvm.func @nvfp4_sim_prefetch_tensormap(!llvm.ptr, i32)",
    "llvm.func @nvfp4_sim_tc_alloc(i32, i32, i32, i32)",
    "llvm.func @nvfp4_sim_tc_dealloc(i32, i32, i32, i32)",
    "llvm.func @nvfp4_sim_tc_relinquish(i32, i32)",
    "llvm.func @nvfp4_sim_tc_cp(i32, i64, i32, i32)",
    "llvm.func @nvfp4_sim_tc_mma(i32, i64, i64, i32, i32, i32, i32, i32, i32)",
    "llvm.func @nvfp4_sim_tc_commit(i32, i32, i32, i32)",
    "llvm.func @nvfp4_sim_tc_ld(i32, i32, !llvm.ptr, i32)",
    "llvm.func @nvfp4_sim_tc_ld_use(!llvm.ptr, i32)",
    "llvm.func @nvfp4_sim_tc_wait(i32, i32)",
    "llvm.func @nvfp4_sim_wgmma_bf16(!llvm.ptr, i32, i32, i32, i32, i32, i64, i32, i32)",
    "llvm.func @nvfp4_sim_wgmma_fence(i32)",
    "llvm.func @nvfp4_sim_wgmma_commit(i32)",
    "llvm.func @nvfp4_sim_wgmma_wait(i32, i32)",
    "llvm.func @nvfp4_sim_stmatrix_x4_trans(i32, i32, i32, i32, i32, i32)",
    "llvm.func @nvfp4_sim_ldmatrix_x4(i32, !llvm.ptr, i32)",
    "llvm.func @nvfp4_sim_mma_block_scale(!llvm.ptr, i32, i32, i32, i32, i32, i32, f32, f32, f32, "
    "f32, i32, i32, i32, i32, i32, i32, i32)",
    "llvm.func @nvfp4_sim_shfl_bfly(i32, i32, i32) -> i32",
};

/* ---- growing text --------------------------------------------------------------------- */

typedef struct Text { char *data; size_t len, cap; bool oom; } Text;

static void textf(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void textf(Text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->data ? t->cap - t->len : 0;
    int n = vsnprintf(t->data ? t->data + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) { t->oom = true; return; }
    if (t->data && (size_t)n < room) { t->len += (size_t)n; return; }
    size_t cap = (t->cap ? t->cap * 2 : 8192) + (size_t)n + 1;
    char *d = realloc(t->data, cap);
    if (!d) { t->oom = true; return; }
    t->data = d;
    t->cap = cap;
  }
}

/* ---- the rewrite of one kernel ---------------------------------------------------------- */

typedef struct Rewriter {
  KbBuilder b;
  MlirValue smemBase;  /* !llvm.ptr: the CTA's shared-memory window */
  Text sites;          /* "site <id> <what>" lines of the plan */
  uint32_t nextSite;
  char error[160];     /* first failure */
  MlirOperation errorOp;
} Rewriter;

static bool isPtr(MlirType t, unsigned space) {
  return mlirTypeIsALLVMPointerType(t) && mlirLLVMPointerTypeGetAddressSpace(t) == space;
}

static const char *opName(MlirOperation op, char *buf, size_t size) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(buf, size, "%.*s", (int)n.length, n.data);
  return buf;
}

static void fail(Rewriter *r, MlirOperation op, const char *why) {
  if (!r->error[0]) {
    snprintf(r->error, sizeof r->error, "%s", why);
    r->errorOp = op;
  }
}

static bool attrIs(Rewriter *r, MlirOperation op, const char *name, const char *text) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, str(name));
  return !mlirAttributeIsNull(a) && mlirAttributeEqual(a, kbAttr(&r->b, text));
}

static uint32_t ctaGroupOf(Rewriter *r, MlirOperation op) {
  return attrIs(r, op, "group", "#nvvm.cta_group<cta_2>") ||
                 attrIs(r, op, "ctaGroup", "#nvvm.cta_group<cta_2>")
             ? 2u
             : 1u;
}

/* A new site: its number, with a line of the site table. */
static KbValue site(Rewriter *r, const char *what, const char *detail) {
  uint32_t id = r->nextSite++;
  textf(&r->sites, "site %u %s%s%s\n", id, what, detail && *detail ? " " : "", detail ? detail : "");
  return kbI32(&r->b, id);
}

/* Operations without operands that become one simulator call taking only their site. */
static const struct { const char *op, *callee, *what; } kSiteOnlyOps[] = {
    {"nvvm.cp.async.bulk.commit.group", "nvfp4_sim_bulk_commit_group", "cp.async.bulk.commit_group"},
    {"nvvm.wgmma.fence.aligned", "nvfp4_sim_wgmma_fence", "wgmma.fence.sync.aligned"},
    {"nvvm.wgmma.commit.group.sync.aligned", "nvfp4_sim_wgmma_commit", "wgmma.commit_group.sync.aligned"},
};

static MlirOperation definingOp(MlirValue v) {
  return mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : (MlirOperation){NULL};
}

/* The i32 shared::cta address of a !llvm.ptr<3> value. */
static KbValue sharedAddr(Rewriter *r, MlirOperation user, MlirValue p) {
  MlirOperation def = definingOp(p);
  if (!mlirOperationIsNull(def) && nvfp4OpIs(def, "llvm.inttoptr")) {
    MlirValue x = mlirOperationGetOperand(def, 0);
    if (mlirTypeEqual(mlirValueGetType(x), r->b.i32)) return x;
  }
  if (!mlirOperationIsNull(def) && nvfp4OpIs(def, "llvm.mlir.addressof"))
    return kbCall(&r->b, "nvfp4_sim_dyn_smem", r->b.i32, 0, NULL);
  fail(r, user, "shared-memory pointer not built from an i32 address (inttoptr)");
  return kbI32(&r->b, 0);
}

/* The i32 address of a !llvm.ptr<6> (Tensor Memory) value. */
static KbValue tmemAddr(Rewriter *r, MlirOperation user, MlirValue p) {
  MlirOperation def = definingOp(p);
  if (!mlirOperationIsNull(def) && nvfp4OpIs(def, "llvm.inttoptr")) {
    MlirValue x = mlirOperationGetOperand(def, 0);
    if (mlirTypeEqual(mlirValueGetType(x), r->b.i32)) return x;
  }
  fail(r, user, "Tensor Memory pointer not built from an i32 address (inttoptr)");
  return kbI32(&r->b, 0);
}

/* The i64 shared::cluster address of a !llvm.ptr<7> value (or of a !llvm.ptr<3> one: the
 * CTA-only form of a TMA load names the issuing CTA's own shared memory). */
static KbValue clusterAddr(Rewriter *r, MlirOperation user, MlirValue p) {
  MlirOperation def = definingOp(p);
  if (isPtr(mlirValueGetType(p), 3)) {
    KbValue a = sharedAddr(r, user, p);
    return kbCall(&r->b, "nvfp4_sim_cluster_addr", r->b.i64, 1, &a);
  }
  if (!mlirOperationIsNull(def) && nvfp4OpIs(def, "llvm.addrspacecast") &&
      isPtr(mlirValueGetType(mlirOperationGetOperand(def, 0)), 3)) {
    KbValue a = sharedAddr(r, user, mlirOperationGetOperand(def, 0));
    return kbCall(&r->b, "nvfp4_sim_cluster_addr", r->b.i64, 1, &a);
  }
  if (!mlirOperationIsNull(def) && nvfp4OpIs(def, "nvvm.mapa")) {
    KbValue args[2] = {sharedAddr(r, user, mlirOperationGetOperand(def, 0)),
                       mlirOperationGetOperand(def, 1)};
    return kbCall(&r->b, "nvfp4_sim_mapa", r->b.i64, 2, args);
  }
  fail(r, user, "shared::cluster pointer is neither a mapa nor a cast of a shared::cta one");
  return kbI64(&r->b, 0);
}

/* An integer argument of the simulator's i32 parameters. */
static KbValue asI32(Rewriter *r, MlirValue v) {
  MlirType t = mlirValueGetType(v);
  if (mlirTypeEqual(t, r->b.i32)) return v;
  return kbZExt(&r->b, v, r->b.i32);
}

static void call(Rewriter *r, const char *callee, intptr_t n, const KbValue *args) {
  kbCall(&r->b, callee, (MlirType){NULL}, n, args);
}

/* Bytes of a loaded or stored value (scalars and vectors of them). */
static uint32_t byteSize(MlirType t) {
  if (mlirTypeIsAVector(t))
    return (uint32_t)mlirShapedTypeGetDimSize(t, 0) * byteSize(mlirShapedTypeGetElementType(t));
  if (mlirTypeIsAInteger(t)) return (mlirIntegerTypeGetWidth(t) + 7) / 8;
  if (mlirTypeIsAF16(t) || mlirTypeIsABF16(t)) return 2;
  if (mlirTypeIsAF32(t)) return 4;
  if (mlirTypeIsAF64(t)) return 8;
  if (mlirTypeIsALLVMPointerType(t)) return 8;
  return 0;
}

static int32_t segment(MlirOperation op, intptr_t i) {
  MlirAttribute seg = mlirOperationGetAttributeByName(op, str("operandSegmentSizes"));
  if (mlirAttributeIsNull(seg) || i >= mlirDenseArrayGetNumElements(seg)) return -1;
  return mlirDenseI32ArrayGetElement(seg, i);
}

static const char *operandTag(MlirOperation op) {
  MlirAttribute tag = mlirOperationGetAttributeByName(op, str("nvfp4.operand"));
  if (mlirAttributeIsNull(tag) || !mlirAttributeIsAString(tag)) return "";
  static char buf[32];
  MlirStringRef s = mlirStringAttrGetValue(tag);
  snprintf(buf, sizeof buf, "operand=%.*s", (int)s.length, s.data);
  return buf;
}

/* Special register name -> simulator id. */
static int sregId(const char *name) {
  static const char *const names[NVFP4_SIM_SREG_COUNT] = {
      "tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", "ctaid.x", "ctaid.y",
      "ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z", "laneid", "warpid", "clusterid.x",
      "nclusterid.x", "cluster.ctarank", "cluster.nctarank"};
  for (int i = 0; i < NVFP4_SIM_SREG_COUNT; ++i)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

/* The uses of a tcgen05.ld result read its buffer through a checked load each. */
static void rewriteLdUses(Rewriter *r, MlirValue res, KbVar buf, KbValue siteId) {
  MlirOpOperand use = mlirValueGetFirstUse(res);
  while (!mlirOpOperandIsNull(use)) {
    MlirOpOperand next = mlirOpOperandGetNextUse(use);
    MlirOperation user = mlirOpOperandGetOwner(use);
    unsigned pos = mlirOpOperandGetOperandNumber(use);
    r->b.cur = mlirOperationGetBlock(user);
    r->b.insertBefore = user;
    KbValue args[2] = {buf.slot, siteId};
    call(r, "nvfp4_sim_tc_ld_use", 2, args);
    mlirOperationSetOperand(user, pos, kbLoad(&r->b, buf.type, buf.slot, 4));
    use = next;
  }
}

/* Replaces each llvm.extractvalue of op's struct result by what `value` gives for its
 * index (a null value: the index is invalid and `value` has reported it); false where a use
 * is not such an extract. */
typedef MlirValue (*ExtractValueFn)(Rewriter *r, MlirOperation op, int64_t index, void *ctx);
static bool replaceExtracts(Rewriter *r, MlirOperation op, const char *what, ExtractValueFn value,
                            void *ctx) {
  MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, 0));
  while (!mlirOpOperandIsNull(use)) {
    MlirOpOperand next = mlirOpOperandGetNextUse(use);
    MlirOperation user = mlirOpOperandGetOwner(use);
    MlirAttribute pos = mlirOperationGetAttributeByName(user, str("position"));
    if (!nvfp4OpIs(user, "llvm.extractvalue") || mlirAttributeIsNull(pos) ||
        mlirDenseArrayGetNumElements(pos) != 1) {
      char msg[128];
      snprintf(msg, sizeof msg, "%s used other than through llvm.extractvalue", what);
      fail(r, op, msg);
      return false;
    }
    MlirValue v = value(r, op, mlirDenseI64ArrayGetElement(pos, 0), ctx);
    if (mlirValueIsNull(v)) return false;
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(user, 0), v);
    mlirOperationDestroy(user);
    use = next;
  }
  return true;
}

static MlirValue fenceOperand(Rewriter *r, MlirOperation op, int64_t i, void *ctx) {
  (void)ctx;
  if (i < 0 || i >= mlirOperationGetNumOperands(op)) {
    fail(r, op, "register-fence result index out of range");
    return (MlirValue){NULL};
  }
  return mlirOperationGetOperand(op, i);
}

/* A one-result inline asm replaced by the value *ctx. */
static MlirValue sameValue(Rewriter *r, MlirOperation op, int64_t i, void *ctx) {
  if (i != 0) {
    fail(r, op, "inline asm result index out of range");
    return (MlirValue){NULL};
  }
  return *(const KbValue *)ctx;
}

/* The empty register fence: each extracted result is its operand. */
static void rewriteRegisterFence(Rewriter *r, MlirOperation op) {
  replaceExtracts(r, op, "register-fence inline asm", fenceOperand, NULL);
}

static MlirValue wgmmaAccumulator(Rewriter *r, MlirOperation op, int64_t i, void *ctx) {
  const KbVar *buf = ctx;
  if (i < 0 || i >= mlirOperationGetNumOperands(op) - 6) {
    fail(r, op, "wgmma result index out of range");
    return (MlirValue){NULL};
  }
  return kbLoad(&r->b, r->b.f32, kbGep(&r->b, buf->slot, (int32_t)(4 * i)), 4);
}

/* The sm_90a register-A wgmma (Nvvm.c's nvWgmmaBf16RegA): operands acc[0..n/2), a0..a3,
 * the B descriptor, scale-d; its results, read through llvm.extractvalue, become loads of
 * the buffer the simulator updates. */
static bool rewriteWgmma(Rewriter *r, MlirOperation op, const char *text) {
  KbBuilder *b = &r->b;
  const char *m = strstr(text, "wgmma.mma_async.sync.aligned.m64n");
  unsigned n = 0;
  if (!m || !strstr(text, "k16.f32.bf16.bf16") || sscanf(m + 33, "%u", &n) != 1 || n < 8 ||
      n > 256 || n % 8) {
    fail(r, op, "inline assembly has no CPU implementation (only the empty register fence and "
                "the register-A bf16 wgmma)");
    return false;
  }
  const intptr_t nacc = n / 2;
  if (mlirOperationGetNumOperands(op) != nacc + 6) {
    fail(r, op, "wgmma inline asm with an unexpected operand list");
    return false;
  }
  KbVar buf = kbVar(b, mlirLLVMArrayTypeGet(b->f32, (unsigned)nacc), (MlirValue){NULL});
  for (intptr_t i = 0; i < nacc; ++i)
    kbStore(b, mlirOperationGetOperand(op, i), kbGep(b, buf.slot, (int32_t)(4 * i)), 4);
  char detail[24];
  snprintf(detail, sizeof detail, "m64n%uk16", n);
  KbValue args[9] = {buf.slot, kbI32(b, n)};
  for (int i = 0; i < 6; ++i) args[2 + i] = mlirOperationGetOperand(op, nacc + i);
  args[8] = site(r, "wgmma.mma_async.sync.aligned.f32.bf16.bf16", detail);
  call(r, "nvfp4_sim_wgmma_bf16", 9, args);
  return replaceExtracts(r, op, "wgmma results", wgmmaAccumulator, &buf);
}

static bool isBf16Vector(MlirType t) {
  return mlirTypeIsAVector(t) && mlirTypeIsABF16(mlirShapedTypeGetElementType(t));
}

/* A bf16 (vector) multiply in integer and fp32 operations: each product in fp32, rounded to
 * nearest even into BF16 (quiet NaN kept), so that the host object needs no bf16 runtime
 * support (the sm_90a decode multiplies bf16x2). */
static bool rewriteBf16Mul(Rewriter *r, MlirOperation op) {
  KbBuilder *b = &r->b;
  MlirType vt = mlirValueGetType(mlirOperationGetResult(op, 0));
  const int64_t lanes = mlirShapedTypeGetDimSize(vt, 0);
  int64_t shape[1] = {lanes};
  MlirType vi16 = mlirVectorTypeGet(1, shape, b->i16);
  KbValue x = kbBitcast(b, mlirOperationGetOperand(op, 0), vi16);
  KbValue y = kbBitcast(b, mlirOperationGetOperand(op, 1), vi16);
  KbValue out = kbUndef(b, vi16);
  for (int64_t i = 0; i < lanes; ++i) {
    KbValue idx = kbI32(b, i);
    KbValue fx = kbBitcast(b, kbShl(b, kbZExt(b, kbExtract(b, x, idx), b->i32), kbI32(b, 16)), b->f32);
    KbValue fy = kbBitcast(b, kbShl(b, kbZExt(b, kbExtract(b, y, idx), b->i32), kbI32(b, 16)), b->f32);
    KbValue bits = kbBitcast(b, kbFMul(b, fx, fy), b->i32);
    KbValue round = kbAdd(b, kbAddI(b, bits, 0x7FFF), kbAnd(b, kbLShr(b, bits, kbI32(b, 16)), kbI32(b, 1)));
    KbValue nan = kbCmpI(b, KB_UGT, kbAnd(b, bits, kbI32(b, 0x7FFFFFFF)), 0x7F800000);
    KbValue h = kbSelect(b, nan, kbOr(b, kbLShr(b, bits, kbI32(b, 16)), kbI32(b, 0x40)),
                         kbLShr(b, round, kbI32(b, 16)));
    MlirType i16 = b->i16;
    KbValue h16 = mlirOperationGetResult(kbOp(b, "llvm.trunc", 1, &i16, 1, &h, 0, NULL), 0);
    out = kbInsert(b, out, h16, idx);
  }
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), kbBitcast(b, out, vt));
  return true;
}

/* ---- the handlers: one per operation of the kernels (kOps below) ------------------------ */

/* The operands of op (at most 8), and their count. */
static intptr_t operands(MlirOperation op, MlirValue o[8]) {
  intptr_t n = mlirOperationGetNumOperands(op);
  for (intptr_t i = 0; i < 8; ++i) o[i] = i < n ? mlirOperationGetOperand(op, i) : (MlirValue){NULL};
  return n;
}

static Nvfp4OpAction refuse(Rewriter *r, MlirOperation op, const char *why) {
  fail(r, op, why);
  return NVFP4_OP_FAILED;
}

/* Operations without operands that become one simulator call taking only their site. */
static Nvfp4OpAction siteOnly(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  for (size_t i = 0; i < sizeof kSiteOnlyOps / sizeof kSiteOnlyOps[0]; i++)
    if (nvfp4OpIs(op, kSiteOnlyOps[i].op)) {
      KbValue s = site(r, kSiteOnlyOps[i].what, NULL);
      kbCall(&r->b, kSiteOnlyOps[i].callee, (MlirType){NULL}, 1, &s);
      return NVFP4_OP_ERASE;
    }
  return refuse(r, op, "internal error: not a site-only operation");
}

static Nvfp4OpAction keep(void *pass, MlirOperation op) {
  (void)pass, (void)op;
  return NVFP4_OP_KEEP;
}

static Nvfp4OpAction erase(void *pass, MlirOperation op) {
  (void)pass, (void)op;
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction unsupported(void *pass, MlirOperation op) {
  return refuse(pass, op, "this NVVM operation has no CPU implementation");
}

/* ---- generic memory and arithmetic ---- */

/* A shared-memory access: checked, then on the CTA's host window. */
static void sharedAccess(Rewriter *r, MlirOperation op, MlirValue p, MlirType vt, bool store,
                         const char *what) {
  KbBuilder *b = &r->b;
  KbValue a = sharedAddr(r, op, p);
  char full[80];
  snprintf(full, sizeof full, "%s.shared", what);
  KbValue args[4] = {a, kbI32(b, byteSize(vt)), kbI32(b, store), site(r, full, NULL)};
  call(r, "nvfp4_sim_smem_access", 4, args);
  KbValue host = kbGepDyn(b, r->smemBase, kbZExt(b, a, b->i64));
  mlirOperationSetOperand(op, store ? 1 : 0, host);
}

/* A global load or store: on the host address, after the simulator's checks (range, the
 * instruction's alignment, ordering against other threads' stores). */
static Nvfp4OpAction globalAccess(Rewriter *r, MlirOperation op, MlirValue p, MlirType vt,
                                  bool store, const char *what) {
  KbBuilder *b = &r->b;
  MlirOperation def = definingOp(p);
  if (mlirOperationIsNull(def) || !nvfp4OpIs(def, "llvm.inttoptr"))
    return refuse(r, op, "global pointer not built from an integer address (inttoptr)");
  KbValue host = kbIntToPtr(b, mlirOperationGetOperand(def, 0), b->ptr);
  MlirAttribute al = mlirOperationGetAttributeByName(op, str("alignment"));
  const int64_t align = mlirAttributeIsNull(al) ? 0 : mlirIntegerAttrGetValueInt(al);
  char full[80];
  snprintf(full, sizeof full, "%s.global", what);
  KbValue args[5] = {host, kbI32(b, byteSize(vt)), kbI32(b, align > 0 && align <= 4096 ? align : 0),
                     kbI32(b, store), site(r, full, NULL)};
  call(r, "nvfp4_sim_global_access", 5, args);
  mlirOperationSetOperand(op, store ? 1 : 0, host);
  return NVFP4_OP_KEEP;
}

static Nvfp4OpAction loadStore(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  MlirValue o[8];
  operands(op, o);
  const bool store = nvfp4OpIs(op, "llvm.store");
  MlirValue p = store ? o[1] : o[0];
  MlirType pt = mlirValueGetType(p);
  MlirType vt = store ? mlirValueGetType(o[0]) : mlirValueGetType(mlirOperationGetResult(op, 0));
  char what[64];
  snprintf(what, sizeof what, "%s %u B", store ? "st" : "ld", byteSize(vt));
  if (isPtr(pt, 3)) sharedAccess(r, op, p, vt, store, what);
  else if (isPtr(pt, 1)) return globalAccess(r, op, p, vt, store, what);
  else if (!isPtr(pt, 0)) fail(r, op, "load/store in an address space the CPU target does not map");
  return NVFP4_OP_KEEP;
}

static Nvfp4OpAction fmul(void *pass, MlirOperation op) {
  if (!isBf16Vector(mlirValueGetType(mlirOperationGetResult(op, 0)))) return NVFP4_OP_KEEP;
  return rewriteBf16Mul(pass, op) ? NVFP4_OP_ERASE : NVFP4_OP_KEEP;
}

static Nvfp4OpAction ptrToInt(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  MlirValue p = mlirOperationGetOperand(op, 0);
  if (!isPtr(mlirValueGetType(p), 3)) return NVFP4_OP_KEEP;
  KbValue a = sharedAddr(r, op, p);
  MlirValue res = mlirOperationGetResult(op, 0);
  if (!mlirTypeEqual(mlirValueGetType(res), b->i32)) a = kbZExt(b, a, mlirValueGetType(res));
  mlirValueReplaceAllUsesOfWith(res, a);
  return NVFP4_OP_ERASE;
}

/* The inline assembly of the generated kernels (Nvvm.h's NV_ASM_* and the register fence). */
static Nvfp4OpAction inlineAsm(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  MlirValue o[8];
  operands(op, o);
  MlirAttribute s = mlirOperationGetAttributeByName(op, str("asm_string"));
  if (mlirAttributeIsNull(s))
    return refuse(r, op, "inline assembly has no CPU implementation (only the empty register fence)");
  if (mlirStringAttrGetValue(s).length == 0) {
    rewriteRegisterFence(r, op);
    return NVFP4_OP_ERASE;
  }
  MlirStringRef t = mlirStringAttrGetValue(s);
  char text[4096];
  snprintf(text, sizeof text, "%.*s", (int)t.length, t.data);
  if (!strcmp(text, NV_ASM_RELEASE_STORE_U32)) { /* a stream-K flag: published */
    KbValue args[3] = {o[0], o[1], site(r, "st.relaxed.gpu.global.b32", "after fence.acq_rel.gpu")};
    call(r, "nvfp4_sim_global_release_u32", 3, args);
    return NVFP4_OP_ERASE;
  }
  KbValue v;
  const char *what;
  if (!strcmp(text, NV_ASM_ACQUIRE_LOAD_U32)) { /* a stream-K counter: read */
    KbValue args[2] = {o[0], site(r, "ld.acquire.gpu.global.b32", NULL)};
    v = kbCall(b, "nvfp4_sim_global_acquire_u32", b->i32, 2, args);
    what = "acquire-load inline asm";
  } else if (!strcmp(text, NV_ASM_BARRIER_OR)) { /* bar.red.or.pred id, threads */
    KbValue args[4] = {o[0], o[1], o[2], site(r, "bar.red.or.pred id, threads", NULL)};
    v = kbCall(b, "nvfp4_sim_barrier_or", b->i32, 4, args);
    what = "bar.red.or inline asm";
  } else if (!strcmp(text, NV_ASM_ATOMIC_ADD_U32)) { /* a stream-K counter: added to */
    KbValue args[3] = {o[0], o[1], site(r, "atom.acq_rel.gpu.global.add.u32", NULL)};
    v = kbCall(b, "nvfp4_sim_global_atomic_add_u32", b->i32, 3, args);
    what = "atomic-add inline asm";
  } else {
    return rewriteWgmma(r, op, text) ? NVFP4_OP_ERASE : NVFP4_OP_FAILED;
  }
  return replaceExtracts(r, op, what, sameValue, &v) ? NVFP4_OP_ERASE : NVFP4_OP_FAILED;
}

/* f32 -> bf16 (a bf16 C): the host backend calls __truncsfbf2, which older runtime libraries
 * (libgcc 12) lack; round to nearest even with integer ops instead, as cvt.rn.bf16.f32 does
 * (NaN stays a quiet NaN). */
static Nvfp4OpAction fpTrunc(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  MlirValue res = mlirOperationGetResult(op, 0);
  if (!mlirTypeIsABF16(mlirValueGetType(res))) return NVFP4_OP_KEEP;
  KbValue x = kbBitcast(b, mlirOperationGetOperand(op, 0), b->i32);
  KbValue hi = kbLShr(b, x, kbI32(b, 16));
  KbValue rne = kbLShr(b, kbAdd(b, x, kbAddI(b, kbAnd(b, hi, kbI32(b, 1)), 0x7FFF)), kbI32(b, 16));
  KbValue nan = kbCmp(b, KB_UGT, kbAnd(b, x, kbI32(b, 0x7FFFFFFF)), kbI32(b, 0x7F800000));
  KbValue bits32 = kbSelect(b, nan, kbOr(b, hi, kbI32(b, 0x40)), rne);
  KbValue bits = mlirOperationGetResult(kbOp(b, "llvm.trunc", 1, &b->i16, 1, &bits32, 0, NULL), 0);
  mlirValueReplaceAllUsesOfWith(res, kbBitcast(b, bits, b->bf16));
  return NVFP4_OP_ERASE;
}

/* ---- special registers, barriers, fences ---- */

static Nvfp4OpAction sreg(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  char name[128];
  opName(op, name, sizeof name);
  int id = sregId(name + strlen("nvvm.read.ptx.sreg."));
  if (id < 0) return refuse(r, op, "special register without a CPU implementation");
  KbValue arg = kbI32(&r->b, id);
  KbValue v = kbCall(&r->b, "nvfp4_sim_sreg", r->b.i32, 1, &arg);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), v);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction barrier0(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  (void)op;
  KbValue args[3] = {kbI32(&r->b, 0), kbI32(&r->b, 0), site(r, "bar.sync 0", NULL)};
  call(r, "nvfp4_sim_barrier", 3, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction barrier(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  if (segment(op, 0) != 1 || segment(op, 1) != 1 || segment(op, 2) != 0)
    return refuse(r, op, "only bar.sync id, threads (no reduction) is implemented");
  KbValue args[3] = {mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1),
                     site(r, "bar.sync id, threads", NULL)};
  call(r, "nvfp4_sim_barrier", 3, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction warpSync(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbValue args[2] = {mlirOperationGetOperand(op, 0), site(r, "bar.warp.sync", NULL)};
  call(r, "nvfp4_sim_warp_sync", 2, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction clusterBarrier(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  const bool arrive = nvfp4OpIs(op, "nvvm.cluster.arrive");
  KbValue s = site(r, arrive ? "barrier.cluster.arrive.aligned" : "barrier.cluster.wait.aligned",
                   NULL);
  call(r, arrive ? "nvfp4_sim_cluster_arrive" : "nvfp4_sim_cluster_wait", 1, &s);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction fenceCall(Rewriter *r, uint32_t kind, const char *what) {
  KbValue args[2] = {kbI32(&r->b, kind), site(r, what, NULL)};
  call(r, "nvfp4_sim_fence", 2, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction fenceMbarInit(void *pass, MlirOperation op) {
  (void)op;
  return fenceCall(pass, NVFP4_SIM_FENCE_MBARRIER_INIT, "fence.mbarrier_init");
}

static Nvfp4OpAction fenceProxy(void *pass, MlirOperation op) {
  if (!attrIs(pass, op, "kind", "#nvvm.proxy_kind<async.shared>"))
    return refuse(pass, op, "only fence.proxy.async.shared::cta is implemented");
  return fenceCall(pass, NVFP4_SIM_FENCE_PROXY_ASYNC_SHARED, "fence.proxy.async.shared::cta");
}

static Nvfp4OpAction tcFence(void *pass, MlirOperation op) {
  const bool before = attrIs(pass, op, "kind", "#nvvm.tcgen05_fence<before>");
  return fenceCall(pass, before ? NVFP4_SIM_FENCE_TC_BEFORE : NVFP4_SIM_FENCE_TC_AFTER,
                   before ? "tcgen05.fence::before_thread_sync" : "tcgen05.fence::after_thread_sync");
}

static Nvfp4OpAction gridDepControl(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  const bool wait = attrIs(r, op, "kind", "#nvvm<grid_dep_action wait>");
  if (!wait && !attrIs(r, op, "kind", "#nvvm<grid_dep_action launch_dependents>"))
    return refuse(r, op, "unknown griddepcontrol action");
  KbValue args[2] = {kbI32(&r->b, wait ? NVFP4_SIM_GRIDDEP_WAIT : NVFP4_SIM_GRIDDEP_LAUNCH_DEPENDENTS),
                     site(r, wait ? "griddepcontrol.wait" : "griddepcontrol.launch_dependents", NULL)};
  call(r, "nvfp4_sim_griddep", 2, args);
  return NVFP4_OP_ERASE;
}

/* ---- mbarriers ---- */

/* An mbarrier operation on a shared::cta barrier and one i32 operand (count, tx bytes). */
static Nvfp4OpAction mbarCall(Rewriter *r, MlirOperation op, const char *callee, const char *what) {
  KbValue args[3] = {sharedAddr(r, op, mlirOperationGetOperand(op, 0)), mlirOperationGetOperand(op, 1),
                     site(r, what, NULL)};
  call(r, callee, 3, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction mbarInit(void *pass, MlirOperation op) {
  return mbarCall(pass, op, "nvfp4_sim_mbar_init", "mbarrier.init");
}

static Nvfp4OpAction mbarArriveExpectTx(void *pass, MlirOperation op) {
  if (mlirOperationGetNumOperands(op) != 2)
    return refuse(pass, op, "mbarrier.arrive.expect_tx with a predicate is not implemented");
  return mbarCall(pass, op, "nvfp4_sim_mbar_arrive_expect_tx", "mbarrier.arrive.expect_tx");
}

static Nvfp4OpAction mbarArrive(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  if (mlirOperationGetNumOperands(op) != 1)
    return refuse(r, op, "mbarrier.arrive with a count is not implemented");
  MlirValue bar = mlirOperationGetOperand(op, 0);
  if (mlirOperationGetNumResults(op) == 1)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), kbI64(&r->b, 0));
  if (isPtr(mlirValueGetType(bar), 7)) {
    KbValue args[2] = {clusterAddr(r, op, bar), site(r, "mbarrier.arrive.release.cluster", NULL)};
    call(r, "nvfp4_sim_mbar_arrive_cluster", 2, args);
  } else {
    KbValue args[2] = {sharedAddr(r, op, bar), site(r, "mbarrier.arrive", NULL)};
    call(r, "nvfp4_sim_mbar_arrive", 2, args);
  }
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction mbarTryWait(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  const bool cluster = attrIs(r, op, "scope", "#nvvm.mem_scope<cluster>");
  KbValue args[4] = {sharedAddr(r, op, mlirOperationGetOperand(op, 0)),
                     asI32(r, mlirOperationGetOperand(op, 1)), kbI32(b, cluster),
                     site(r, cluster ? "mbarrier.try_wait.parity.acquire.cluster"
                                     : "mbarrier.try_wait.parity",
                          NULL)};
  KbValue v = kbCall(b, "nvfp4_sim_mbar_try_wait", b->i32, 4, args);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), kbCmpI(b, KB_NE, v, 0));
  return NVFP4_OP_ERASE;
}

/* ---- TMA and bulk groups ---- */

/* A CTA pair's load (.cta_group::2 and/or .multicast::cluster): dst, tensor map, x, y,
 * mbar, the .cta_group and the multicast mask (0: none). */
static void tmaLoadCluster(Rewriter *r, MlirOperation op, const MlirValue *o, bool multicast,
                           bool cg2) {
  KbBuilder *b = &r->b;
  char what[160];
  snprintf(what, sizeof what,
           "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes%s%s",
           multicast ? ".multicast::cluster" : "", cg2 ? ".cta_group::2" : "");
  KbValue args[8] = {clusterAddr(r, op, o[0]), o[1], o[2], o[3], sharedAddr(r, op, o[4]),
                     kbI32(b, cg2 ? 2 : 1), multicast ? kbZExt(b, o[5], b->i32) : kbI32(b, 0),
                     site(r, what, operandTag(op))};
  call(r, "nvfp4_sim_tma_load_cluster", 8, args);
}

static Nvfp4OpAction tmaLoad(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  MlirValue o[8];
  operands(op, o);
  /* dstMem, tmaDescriptor, coordinates, mbar, im2colOffsets, multicastMask, l2CacheHint,
   * predicate */
  if (segment(op, 2) != 2 || segment(op, 4) != 0 || segment(op, 7) > 0)
    return refuse(r, op, "only 2-D tiled TMA loads without im2col or predicate are implemented");
  const bool hint = segment(op, 6) == 1, multicast = segment(op, 5) == 1;
  const bool cg2 = ctaGroupOf(r, op) == 2;
  if (multicast || cg2) {
    tmaLoadCluster(r, op, o, multicast, cg2);
    return NVFP4_OP_ERASE;
  }
  MlirAttribute ctaOnly = mlirOperationGetAttributeByName(op, str("isCTAOnly"));
  const bool cta = !mlirAttributeIsNull(ctaOnly) && mlirAttributeIsABool(ctaOnly) &&
                   mlirBoolAttrGetValue(ctaOnly); /* the sm_120a kernel's form */
  KbValue args[8] = {clusterAddr(r, op, o[0]), o[1], o[2], o[3], sharedAddr(r, op, o[4]),
                     hint ? o[5] : kbI64(b, 0), kbI32(b, hint),
                     site(r, cta ? "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes"
                                 : "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
                          operandTag(op))};
  call(r, "nvfp4_sim_tma_load", 8, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction tmaStore(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  MlirValue o[8];
  operands(op, o);
  /* tmaDescriptor, srcMem, coordinates, l2CacheHint, predicate */
  if (segment(op, 2) != 2 || segment(op, 3) > 0 || segment(op, 4) > 0)
    return refuse(r, op, "only 2-D tiled TMA stores without cache hint or predicate are implemented");
  KbValue args[5] = {o[0], sharedAddr(r, op, o[1]), o[2], o[3],
                     site(r, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", operandTag(op))};
  call(r, "nvfp4_sim_tma_store", 5, args);
  return NVFP4_OP_ERASE;
}

/* The integer attribute `name` of op, or 0. */
static int64_t intAttr(MlirOperation op, const char *name) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, str(name));
  return mlirAttributeIsNull(a) ? 0 : mlirIntegerAttrGetValueInt(a);
}

static Nvfp4OpAction bulkWaitGroup(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  const bool read = !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("read")));
  KbValue args[3] = {kbI32(&r->b, intAttr(op, "group")), kbI32(&r->b, read),
                     site(r, read ? "cp.async.bulk.wait_group.read" : "cp.async.bulk.wait_group",
                          NULL)};
  call(r, "nvfp4_sim_bulk_wait_group", 3, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction prefetch(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  if (mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("tensormap"))))
    return refuse(r, op, "only prefetch.tensormap is implemented");
  KbValue args[2] = {mlirOperationGetOperand(op, 0), site(r, "prefetch.tensormap", NULL)};
  call(r, "nvfp4_sim_prefetch_tensormap", 2, args);
  return NVFP4_OP_ERASE;
}

/* ---- tcgen05 ---- */

/* A tcgen05 operation's operands and cta_group (the simulator's argument and the site's
 * detail). */
typedef struct TcOp {
  MlirValue o[8];
  intptr_t n;
  uint32_t cg;
  char cgText[24];
} TcOp;

static TcOp tcOp(Rewriter *r, MlirOperation op) {
  TcOp t;
  t.n = operands(op, t.o);
  t.cg = ctaGroupOf(r, op);
  snprintf(t.cgText, sizeof t.cgText, "cta_group::%u", t.cg);
  return t;
}

static Nvfp4OpAction tcAlloc(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  TcOp t = tcOp(r, op);
  if (!isPtr(mlirValueGetType(t.o[0]), 3))
    return refuse(r, op, "tcgen05.alloc destination must be a shared::cta pointer");
  KbValue args[4] = {sharedAddr(r, op, t.o[0]), t.o[1], kbI32(&r->b, t.cg),
                     site(r, "tcgen05.alloc", t.cgText)};
  call(r, "nvfp4_sim_tc_alloc", 4, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction tcDealloc(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  TcOp t = tcOp(r, op);
  KbValue args[4] = {tmemAddr(r, op, t.o[0]), t.o[1], kbI32(&r->b, t.cg),
                     site(r, "tcgen05.dealloc", t.cgText)};
  call(r, "nvfp4_sim_tc_dealloc", 4, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction tcRelinquish(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  TcOp t = tcOp(r, op);
  KbValue args[2] = {kbI32(&r->b, t.cg), site(r, "tcgen05.relinquish_alloc_permit", t.cgText)};
  call(r, "nvfp4_sim_tc_relinquish", 2, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction tcCp(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  TcOp t = tcOp(r, op);
  if (!attrIs(r, op, "shape", "#nvvm.tcgen05_cp_shape<shape_32x128b>") ||
      !attrIs(r, op, "multicast", "#nvvm.tcgen05_cp_multicast<warpx4>") ||
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("srcFormat"))))
    return refuse(r, op, "only tcgen05.cp .32x128b.warpx4 without decompression is implemented");
  KbValue args[4] = {tmemAddr(r, op, t.o[0]), t.o[1], kbI32(&r->b, t.cg),
                     site(r, "tcgen05.cp.32x128b.warpx4", t.cgText)};
  call(r, "nvfp4_sim_tc_cp", 4, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction tcMma(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  TcOp t = tcOp(r, op);
  const MlirValue *o = t.o;
  if (!attrIs(r, op, "kind", "#nvvm.block_scale_kind<mxf4nvf4>") ||
      !attrIs(r, op, "blockScale", "#nvvm.tcgen05_mma_block_scale<block16>") || t.n != 7 ||
      !mlirTypeEqual(mlirValueGetType(o[1]), b->i64))
    return refuse(r, op, "only tcgen05.mma.kind::mxf4nvf4.block_scale.block16 with A in shared "
                         "memory is implemented");
  KbValue args[9] = {tmemAddr(r, op, o[0]), o[1], o[2], o[3], kbZExt(b, o[4], b->i32),
                     tmemAddr(r, op, o[5]), tmemAddr(r, op, o[6]), kbI32(b, t.cg),
                     site(r, "tcgen05.mma.kind::mxf4nvf4.block_scale.block16", t.cgText)};
  call(r, "nvfp4_sim_tc_mma", 9, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction tcCommit(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  TcOp t = tcOp(r, op);
  if (!isPtr(mlirValueGetType(t.o[0]), 3))
    return refuse(r, op, "tcgen05.commit barrier must be a shared::cta pointer");
  const bool multicast = t.n > 1;
  KbValue args[4] = {sharedAddr(r, op, t.o[0]), multicast ? asI32(r, t.o[1]) : kbI32(b, 0),
                     kbI32(b, t.cg),
                     site(r, multicast ? "tcgen05.commit.mbarrier::arrive::one.multicast::cluster"
                                       : "tcgen05.commit.mbarrier::arrive::one",
                          t.cgText)};
  call(r, "nvfp4_sim_tc_commit", 4, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction tcLd(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  MlirValue res = mlirOperationGetResult(op, 0);
  MlirType ty = mlirValueGetType(res);
  if (!attrIs(r, op, "shape", "#nvvm.tcgen05_ldst_shape<shape_32x32b>") ||
      mlirOperationGetNumOperands(op) != 1 ||
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("pack"))) ||
      !(mlirTypeIsAVector(ty) || mlirTypeEqual(ty, b->i32)))
    return refuse(r, op, "only tcgen05.ld .32x32b without pack is implemented");
  int64_t num = mlirTypeIsAVector(ty) ? mlirShapedTypeGetDimSize(ty, 0) : 1;
  char detail[32];
  snprintf(detail, sizeof detail, ".x%lld", (long long)num);
  KbValue s = site(r, "tcgen05.ld.sync.aligned.32x32b", detail);
  KbVar buf = kbVar(b, ty, (MlirValue){NULL});
  KbValue args[4] = {tmemAddr(r, op, mlirOperationGetOperand(op, 0)), kbI32(b, num), buf.slot, s};
  call(r, "nvfp4_sim_tc_ld", 4, args);
  rewriteLdUses(r, res, buf, s);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction tcWait(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  const bool ld = attrIs(r, op, "kind", "#nvvm.tcgen05_wait<load>");
  KbValue args[2] = {kbI32(&r->b, ld), site(r, ld ? "tcgen05.wait::ld" : "tcgen05.wait::st", NULL)};
  call(r, "nvfp4_sim_tc_wait", 2, args);
  return NVFP4_OP_ERASE;
}

/* ---- sm_90a ---- */

static Nvfp4OpAction wgmmaWait(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbValue args[2] = {kbI32(&r->b, intAttr(op, "group")),
                     site(r, "wgmma.wait_group.sync.aligned", NULL)};
  call(r, "nvfp4_sim_wgmma_wait", 2, args);
  return NVFP4_OP_ERASE;
}

static Nvfp4OpAction stmatrix(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  MlirValue o[8];
  if (operands(op, o) != 5 || !attrIs(r, op, "layout", "#nvvm.mma_layout<col>") ||
      !attrIs(r, op, "shape", "#nvvm.ld_st_matrix_shape<m = 8, n = 8>") ||
      !attrIs(r, op, "eltType", "#nvvm.ld_st_matrix_elt_type<b16>"))
    return refuse(r, op, "only stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 is implemented");
  KbValue args[6] = {sharedAddr(r, op, o[0]), o[1], o[2], o[3], o[4],
                     site(r, "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", NULL)};
  call(r, "nvfp4_sim_stmatrix_x4_trans", 6, args);
  return NVFP4_OP_ERASE;
}

/* ---- sm_120a: ldmatrix and the block-scaled mma.sync (cpusim/src/mma_sync.c) ---- */

/* A struct result read back from a per-call buffer of `count` elements of `elt`. */
typedef struct ResultBuffer { KbVar buf; MlirType elt; int64_t count; } ResultBuffer;

static MlirValue bufferElement(Rewriter *r, MlirOperation op, int64_t i, void *ctx) {
  const ResultBuffer *rb = ctx;
  if (i < 0 || i >= rb->count) {
    fail(r, op, "result index out of range");
    return (MlirValue){NULL};
  }
  return kbLoad(&r->b, rb->elt, kbGep(&r->b, rb->buf.slot, (int32_t)(4 * i)), 4);
}

/* ldmatrix.sync.aligned.m8n8.x4.shared.b16 (Sm120/Ops.c's nvLdMatrixX4). */
static Nvfp4OpAction ldmatrix(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  if (mlirOperationGetNumOperands(op) != 1 ||
      !attrIs(r, op, "eltType", "#nvvm.ld_st_matrix_elt_type<b16>") ||
      !attrIs(r, op, "layout", "#nvvm.mma_layout<row>") || !attrIs(r, op, "num", "4 : i32") ||
      !attrIs(r, op, "shape", "#nvvm.ld_st_matrix_shape<m = 8, n = 8>"))
    return refuse(r, op, "only ldmatrix.sync.aligned.m8n8.x4.shared.b16 is implemented");
  ResultBuffer rb = {kbVar(b, mlirLLVMArrayTypeGet(b->i32, 4), (MlirValue){NULL}), b->i32, 4};
  KbValue args[3] = {sharedAddr(r, op, mlirOperationGetOperand(op, 0)), rb.buf.slot,
                     site(r, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", NULL)};
  call(r, "nvfp4_sim_ldmatrix_x4", 3, args);
  return replaceExtracts(r, op, "ldmatrix results", bufferElement, &rb) ? NVFP4_OP_ERASE
                                                                        : NVFP4_OP_FAILED;
}

/* mma.sync m16n8k64 kind::mxf4nvf4 block_scale scale_vec::4X ue4m3 (Sm120/Ops.c's
 * nvMmaMxf4Nvf4): operands a0..a3, b0, b1, c0..c3, sfa, byte-id-a, thread-id-a, sfb,
 * byte-id-b, thread-id-b. */
static Nvfp4OpAction mmaBlockScale(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  if (mlirOperationGetNumOperands(op) != 16 ||
      !attrIs(r, op, "kind", "#nvvm.block_scale_kind<mxf4nvf4>") ||
      !attrIs(r, op, "scaleVecSize", "#nvvm.scale_vec_size<x4>") ||
      !attrIs(r, op, "blockScaleFormat", "#nvvm.block_scale_format<ue4m3>") ||
      !attrIs(r, op, "shape", "#nvvm.shape<m = 16, n = 8, k = 64>") ||
      !attrIs(r, op, "multiplicandAPtxType", "#nvvm.mma_type<e2m1>") ||
      !attrIs(r, op, "multiplicandBPtxType", "#nvvm.mma_type<e2m1>"))
    return refuse(r, op, "only mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale."
                         "scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 is implemented");
  ResultBuffer rb = {kbVar(b, mlirLLVMArrayTypeGet(b->f32, 4), (MlirValue){NULL}), b->f32, 4};
  KbValue args[18];
  args[0] = rb.buf.slot;
  for (intptr_t i = 0; i < 16; ++i) { /* c (6..9) is f32, the selectors i16 */
    MlirValue v = mlirOperationGetOperand(op, i);
    args[1 + i] = i >= 6 && i < 10 ? v : asI32(r, v);
  }
  args[17] = site(r, "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale."
                     "scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3", NULL);
  call(r, "nvfp4_sim_mma_block_scale", 18, args);
  return replaceExtracts(r, op, "mma.sync results", bufferElement, &rb) ? NVFP4_OP_ERASE
                                                                        : NVFP4_OP_FAILED;
}

/* shfl.sync.bfly.b32 of the whole warp (Sm120/Ops.c's nvShflBfly): operands thread mask,
 * value, lane mask, clamp. */
static Nvfp4OpAction shflBfly(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  KbBuilder *b = &r->b;
  if (mlirOperationGetNumOperands(op) != 4 || !attrIs(r, op, "kind", "#nvvm<shfl_kind bfly>") ||
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("return_value_and_is_valid"))) ||
      !mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(op, 0)), b->i32))
    return refuse(r, op, "only shfl.sync.bfly.b32 of an i32 without the validity result is "
                         "implemented");
  KbValue args[3] = {mlirOperationGetOperand(op, 1), mlirOperationGetOperand(op, 2),
                     site(r, "shfl.sync.bfly.b32", NULL)};
  KbValue v = kbCall(b, "nvfp4_sim_shfl_bfly", b->i32, 3, args);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), v);
  return NVFP4_OP_ERASE;
}

/* What the CPU target does with each operation of a kernel: first match wins; every NVVM
 * operation not named before "nvvm.*" is refused. */
static const Nvfp4OpEntry kOps[] = {
    {"llvm.load", NULL, loadStore},
    {"llvm.store", NULL, loadStore},
    {"llvm.ptrtoint", NULL, ptrToInt},
    {"llvm.inline_asm", NULL, inlineAsm},
    {"llvm.fmul", NULL, fmul},
    {"llvm.fptrunc", NULL, fpTrunc},
    {"nvvm.read.ptx.sreg.*", NULL, sreg},
    {"nvvm.barrier0", NULL, barrier0},
    {"nvvm.barrier", NULL, barrier},
    {"nvvm.bar.warp.sync", NULL, warpSync},
    {"nvvm.cluster.arrive", NULL, clusterBarrier},
    {"nvvm.cluster.wait", NULL, clusterBarrier},
    {"nvvm.fence.mbarrier.init", NULL, fenceMbarInit},
    {"nvvm.fence.proxy", NULL, fenceProxy},
    {"nvvm.griddepcontrol", NULL, gridDepControl},
    {"nvvm.mbarrier.init", NULL, mbarInit},
    {"nvvm.mbarrier.arrive.expect_tx", NULL, mbarArriveExpectTx},
    {"nvvm.mbarrier.arrive", NULL, mbarArrive},
    {"nvvm.mbarrier.try_wait", NULL, mbarTryWait},
    {"nvvm.mbarrier.try_wait.parity", NULL, mbarTryWait},
    {"nvvm.mapa", NULL, keep}, /* folded into its users (clusterAddr) */
    {"nvvm.cp.async.bulk.tensor.shared.cluster.global", NULL, tmaLoad},
    {"nvvm.cp.async.bulk.tensor.global.shared.cta", NULL, tmaStore},
    {"nvvm.cp.async.bulk.commit.group", NULL, siteOnly},
    {"nvvm.cp.async.bulk.wait_group", NULL, bulkWaitGroup},
    {"nvvm.prefetch", NULL, prefetch},
    {"nvvm.tcgen05.alloc", NULL, tcAlloc},
    {"nvvm.tcgen05.dealloc", NULL, tcDealloc},
    {"nvvm.tcgen05.relinquish_alloc_permit", NULL, tcRelinquish},
    {"nvvm.tcgen05.cp", NULL, tcCp},
    {"nvvm.tcgen05.mma.block_scale", NULL, tcMma},
    {"nvvm.tcgen05.commit", NULL, tcCommit},
    {"nvvm.tcgen05.ld", NULL, tcLd},
    {"nvvm.tcgen05.wait", NULL, tcWait},
    {"nvvm.tcgen05.fence", NULL, tcFence},
    {"nvvm.setmaxregister", NULL, erase}, /* no register file to rebalance */
    {"nvvm.wgmma.fence.aligned", NULL, siteOnly},
    {"nvvm.wgmma.commit.group.sync.aligned", NULL, siteOnly},
    {"nvvm.wgmma.wait.group.sync.aligned", NULL, wgmmaWait},
    {"nvvm.stmatrix", NULL, stmatrix},
    {"nvvm.ldmatrix", NULL, ldmatrix},
    {"nvvm.mma.block_scale", NULL, mmaBlockScale},
    {"nvvm.shfl.sync", NULL, shflBfly},
    {"nvvm.*", NULL, unsupported},
};
static const Nvfp4OpTable kOpTable = NVFP4_OP_TABLE(kOps);

typedef struct OpList { MlirOperation *ops; int n, cap; bool oom; } OpList;

static void push(OpList *l, MlirOperation op) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 1024;
    MlirOperation *g = realloc(l->ops, sizeof *g * (size_t)cap);
    if (!g) { l->oom = true; return; }
    l->ops = g;
    l->cap = cap;
  }
  l->ops[l->n++] = op;
}

/* Pointer-producing ops left without uses after the rewrite (repeated: chains). */
static bool isDeadPointerOp(MlirOperation op) {
  if (mlirOperationGetNumResults(op) != 1) return false;
  MlirValue res = mlirOperationGetResult(op, 0);
  if (!mlirOpOperandIsNull(mlirValueGetFirstUse(res))) return false;
  MlirType t = mlirValueGetType(res);
  return (nvfp4OpIs(op, "llvm.inttoptr") || nvfp4OpIs(op, "llvm.addrspacecast") ||
          nvfp4OpIs(op, "llvm.mlir.addressof") || nvfp4OpIs(op, "nvvm.mapa")) &&
         mlirTypeIsALLVMPointerType(t) && mlirLLVMPointerTypeGetAddressSpace(t) != 0;
}

static MlirWalkResult collectDead(MlirOperation op, void *user) {
  if (isDeadPointerOp(op)) push(user, op);
  return MlirWalkResultAdvance;
}

/* The walk's callbacks: the builder inserts before each operation; a failure recorded by a
 * handler or the builder stops the walk. */
static Nvfp4OpAction beforeOp(void *pass, MlirOperation op) {
  Rewriter *r = pass;
  r->b.loc = mlirOperationGetLocation(op);
  r->b.cur = mlirOperationGetBlock(op);
  r->b.insertBefore = op;
  return NVFP4_OP_REWRITE;
}

static Nvfp4OpAction afterOp(void *pass, MlirOperation op, Nvfp4OpAction done) {
  Rewriter *r = pass;
  (void)op;
  return r->error[0] || r->b.failed ? NVFP4_OP_FAILED : done;
}

static bool rewriteKernel(MlirOperation func, Text *plan) {
  MlirContext ctx = mlirOperationGetContext(func);
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(region);
  Rewriter r;
  memset(&r, 0, sizeof r);
  kbInit(&r.b, ctx, mlirOperationGetLocation(func), region, entry);
  /* The shared-memory window base, once per thread, after the allocas' anchor. */
  r.b.cur = entry;
  r.b.insertBefore = mlirOperationGetNextInBlock(r.b.allocaAnchor);
  r.smemBase = kbCall(&r.b, "nvfp4_sim_smem_base", r.b.ptr, 0, NULL);

  const Nvfp4OpWalk walk = {&kOpTable, &r, beforeOp, afterOp};
  MlirOperation failed;
  bool ok = nvfp4OpTableRewrite(func, &walk, &failed);
  if (!ok) {
    char msg[320];
    snprintf(msg, sizeof msg, "nvfp4-cpu-target: %s",
             r.error[0] ? r.error : r.b.failed ? "internal error" : "out of memory");
    MlirOperation at = r.errorOp.ptr ? r.errorOp : failed.ptr ? failed : func;
    nvfp4EmitError(mlirOperationGetLocation(at), msg);
  }
  for (bool again = ok; again;) {
    OpList dead = {0};
    mlirOperationWalk(func, collectDead, &dead, MlirWalkPostOrder);
    for (int i = 0; i < dead.n; ++i) mlirOperationDestroy(dead.ops[i]);
    again = dead.n > 0;
    free(dead.ops);
  }
  if (ok) textf(plan, "%s", r.sites.data ? r.sites.data : "");
  free(r.sites.data);
  return ok && !r.sites.oom;
}

/* ---- the plan text: the kernel's name, then the plan the lowering attached -------------- */

/* The plan text of `func` (nvfp4.plan: the lines of mlirNvfp4KernelConfigPlanText, which the
 * lowering computed); false when it has none. */
static bool planOf(MlirOperation func, const char *kernel, Text *t) {
  MlirAttribute lines = mlirOperationGetAttributeByName(func, str("nvfp4.plan"));
  if (mlirAttributeIsNull(lines) || !mlirAttributeIsAArray(lines)) return false;
  textf(t, "kernel %s\n", kernel);
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(lines); ++i) {
    MlirAttribute line = mlirArrayAttrGetElement(lines, i);
    if (!mlirAttributeIsAString(line)) return false;
    MlirStringRef s = mlirStringAttrGetValue(line);
    textf(t, "%.*s\n", (int)s.length, s.data);
  }
  return true;
}

/* The plan text as a NUL-terminated string global (non-printable bytes escaped). */
static bool addPlanGlobal(MlirContext ctx, MlirBlock body, const char *kernel, const Text *plan) {
  Text g = {0};
  textf(&g, "llvm.mlir.global external constant @%s%s(\"", kernel, NVFP4_SIM_PLAN_SUFFIX);
  for (size_t i = 0; i < plan->len; ++i) {
    unsigned char c = (unsigned char)plan->data[i];
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') textf(&g, "%c", c);
    else textf(&g, "\\%02X", c);
  }
  textf(&g, "\\00\") {addr_space = 0 : i32} : !llvm.array<%zu x i8>", plan->len + 1);
  if (g.oom) {
    free(g.data);
    return false;
  }
  MlirOperation op = mlirOperationCreateParse(ctx, str(g.data), str("nvfp4-cpu-plan"));
  free(g.data);
  if (mlirOperationIsNull(op)) return false;
  mlirBlockAppendOwnedOperation(body, op);
  return true;
}

static bool isKernel(MlirOperation op) {
  return nvfp4OpIs(op, "llvm.func") &&
         !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("nvvm.kernel")));
}

static bool kernelName(MlirOperation func, char *out, size_t size) {
  MlirAttribute s = mlirOperationGetAttributeByName(func, str("sym_name"));
  if (mlirAttributeIsNull(s)) return false;
  MlirStringRef n = mlirStringAttrGetValue(s);
  snprintf(out, size, "%.*s", (int)n.length, n.data);
  return true;
}

static bool convertModule(MlirOperation gpuModule) {
  MlirContext ctx = mlirOperationGetContext(gpuModule);
  MlirLocation loc = mlirOperationGetLocation(gpuModule);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(gpuModule, 0));
  MlirOperation meta = nvfp4FindSymbol(gpuModule, NVFP4_METADATA_SYMBOL);
  MlirAttribute v = mlirOperationGetAttributeByName(meta, str("value"));
  if (mlirAttributeIsNull(v) || !mlirAttributeIsADenseElements(v) ||
      mlirElementsAttrGetNumElements(v) % NVFP4_METADATA_BYTES) {
    nvfp4EmitError(loc, "nvfp4-cpu-target: malformed metadata table");
    return false;
  }
  /* Host globals live in the default address space. */
  mlirOperationSetAttributeByName(meta, str("addr_space"), mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), 0));

  for (size_t i = 0; i < sizeof kDecls / sizeof kDecls[0]; ++i)
    mlirBlockInsertOwnedOperation(body, 0, mlirOperationCreateParse(ctx, str(kDecls[i]), str("nvfp4-cpu")));

  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!isKernel(op)) continue;
    char kernel[NVFP4_META_KERNEL_NAME_BYTES + 1];
    if (!kernelName(op, kernel, sizeof kernel)) continue;
    Text plan = {0};
    if (!planOf(op, kernel, &plan)) {
      char msg[400];
      snprintf(msg, sizeof msg, "nvfp4-cpu-target: kernel %s has no plan (the nvfp4.plan "
               "array of strings --nvfp4-lower-grouped-matmul attaches)", kernel);
      nvfp4EmitError(mlirOperationGetLocation(op), msg);
      ok = false;
    }
    ok = ok && rewriteKernel(op, &plan);
    if (ok) {
      /* a plain pointer parameter: the simulator passes the CTA's parameter block */
      mlirOperationSetAttributeByName(op, str("arg_attrs"),
                                      mlirAttributeParseGet(ctx, str("[{llvm.align = 64 : i64, llvm.noalias}]")));
      const char *drop[] = {"nvvm.kernel", "nvvm.reqntid", "nvvm.maxntid", "nvvm.minctasm",
                            "nvvm.cluster_dim"};
      for (size_t d = 0; d < sizeof drop / sizeof drop[0]; ++d)
        mlirOperationRemoveAttributeByName(op, str(drop[d]));
      mlirOperationRemoveAttributeByName(op, str("nvfp4.plan")); /* now the plan global */
      mlirOperationSetAttributeByName(op, str("nvfp4.cpu_kernel"), mlirUnitAttrGet(ctx));
      ok = !plan.oom && addPlanGlobal(ctx, body, kernel, &plan);
      if (!ok) nvfp4EmitError(loc, "nvfp4-cpu-target: cannot build the plan text");
    }
    free(plan.data);
  }
  if (!ok) return false;
  /* The dynamic shared-memory symbol is the simulator's now (nvfp4_sim_dyn_smem). */
  MlirOperation dyn = nvfp4FindSymbol(gpuModule, "nvfp4_dyn_smem");
  if (!mlirOperationIsNull(dyn)) mlirOperationDestroy(dyn);
  mlirOperationRemoveAttributeByName(gpuModule, str("targets"));
  mlirOperationSetAttributeByName(gpuModule, str("nvfp4.cpu"), mlirUnitAttrGet(ctx));
  return true;
}

static void runCpuTarget(MlirOperation module, MlirExternalPass pass, void *userData) {
  (void)userData;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!nvfp4OpIs(op, "gpu.module")) continue;
    if (mlirOperationIsNull(nvfp4FindSymbol(op, NVFP4_METADATA_SYMBOL))) continue;
    if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("nvfp4.cpu")))) continue;
    if (!convertModule(op)) {
      mlirExternalPassSignalFailure(pass);
      return;
    }
  }
}

MlirPass mlirNvfp4CreateCpuTargetPass(void) {
  static MlirTypeID id;
  MlirDialectHandle deps[3] = {mlirGetDialectHandle__llvm__(), mlirGetDialectHandle__nvvm__(),
                               mlirGetDialectHandle__gpu__()};
  return nvfp4CreateModulePass(
      &id, "NVFP4CpuTarget", "nvfp4-cpu-target",
      "Rewrite nvfp4 kernels into host code that runs on the CTA simulator (libnvfp4sim)", 3,
      deps, runCpuTarget);
}
