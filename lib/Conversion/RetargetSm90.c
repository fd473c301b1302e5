/* RetargetSm90.c — the retargeting of an nvfp4 kernel module to sm_90a shared by the
 * tcgen05 emulation, the timing proxy and the mma.sync emulation (RetargetSm90.h): target
 * attribute, A/B TMA x coordinate in bytes, metadata records, and the walk (OpTable.h) that
 * hands every op of the target's table (tcgen05, or the block-scaled mma.sync) to its
 * handler with a builder tagging what it creates. */
#include "RetargetSm90.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "LoweringCommon.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "nvfp4-c/KernelABI.h"

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

bool nvfp4OpAttrIs(KbBuilder *b, MlirOperation op, const char *name, const char *text) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, str(name));
  return !mlirAttributeIsNull(a) && mlirAttributeEqual(a, kbAttr(b, text));
}

static MlirOperation enclosingFunc(MlirOperation op) {
  MlirOperation p = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(p) && !nvfp4OpIs(p, "llvm.func"))
    p = mlirOperationGetParentOperation(p);
  return p;
}

Nvfp4OpAction nvfp4RetargetRefuse(Nvfp4Retarget *r, const char *why) {
  r->why = why;
  return NVFP4_OP_FAILED;
}

/* A/B TMA loads (operands: dst, tensor map, x, y, mbar[, hint]): x in FP4 elements ->
 * bytes; the op stays. Other tagged operands (scale factors, C stores) stay as they are;
 * a multicast load is native sm_90a. Refused: a .cta_group::2 load (a CTA pair lowered
 * without nvfp4.pair_forward), a tag that is not a string, an A/B tag on anything but such a load (a
 * two-operand prefetch crashed here), a tag on an op that is no tensor-map copy. */
static Nvfp4OpAction byteCoordinates(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  KbBuilder *b = &r->b;
  MlirAttribute tag = mlirOperationGetAttributeByName(op, str("nvfp4.operand"));
  if (!mlirAttributeIsAString(tag))
    return nvfp4RetargetRefuse(r, "the nvfp4.operand tag must be a string");
  MlirStringRef t = mlirStringAttrGetValue(tag);
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length < 25 || strncmp(name.data, "nvvm.cp.async.bulk.tensor", 25) != 0)
    return nvfp4RetargetRefuse(r, "the nvfp4.operand tag marks tensor-map copies only");
  if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("group"))))
    return nvfp4RetargetRefuse(r, "a .cta_group::2 TMA load has no sm_90a form: lower the CTA "
                                  "pair with the op's unit attribute nvfp4.pair_forward (the "
                                  "emulation and proxy builds of nvfp4-compile set it)");
  if (t.length == 1 && (t.data[0] == 'a' || t.data[0] == 'b')) {
    if (!mlirStringRefEqual(name, str("nvvm.cp.async.bulk.tensor.shared.cluster.global")) ||
        mlirOperationGetNumOperands(op) < 4)
      return nvfp4RetargetRefuse(r, "an A/B operand tag on an op that is not a tensor-map load "
                                    "into shared memory");
    mlirOperationSetOperand(op, 2, kbLShr(b, mlirOperationGetOperand(op, 2), kbI32(b, 1)));
  }
  return NVFP4_OP_KEEP;
}

/* The retargeting's own entries, after the target's tcgen05 handlers. */
static const Nvfp4OpEntry kRetargetOps[] = {
    {NULL, "nvfp4.operand", byteCoordinates},
};
static const Nvfp4OpTable kRetargetTable = NVFP4_OP_TABLE(kRetargetOps);

/* The metadata table's bytes: the value of an llvm.mlir.global holding dense, non-splat i8
 * elements (a splat has one element, not 256), at most 16 records; NULL otherwise. */
static MlirAttribute metadataBytes(MlirOperation gpuModule) {
  MlirOperation g = nvfp4FindSymbol(gpuModule, NVFP4_METADATA_SYMBOL);
  MlirAttribute v = mlirOperationIsNull(g) || !nvfp4OpIs(g, "llvm.mlir.global")
                        ? (MlirAttribute){NULL}
                        : mlirOperationGetAttributeByName(g, str("value"));
  if (mlirAttributeIsNull(v) || !mlirAttributeIsADenseIntElements(v) ||
      mlirDenseElementsAttrIsSplat(v))
    return (MlirAttribute){NULL};
  MlirType elt = mlirShapedTypeGetElementType(mlirAttributeGetType(v));
  if (!mlirTypeIsAInteger(elt) || mlirIntegerTypeGetWidth(elt) != 8)
    return (MlirAttribute){NULL};
  return v;
}

/* Patches every record of the metadata table for the sm_90a target; returns why the symbol
 * is not a table it can patch (nothing is changed then). */
static const char *patchMetadata(MlirOperation gpuModule, const Nvfp4Sm90Target *t) {
  MlirOperation g = nvfp4FindSymbol(gpuModule, NVFP4_METADATA_SYMBOL);
  if (mlirOperationIsNull(g)) return NULL;
  MlirAttribute v = metadataBytes(gpuModule);
  if (mlirAttributeIsNull(v))
    return "the " NVFP4_METADATA_SYMBOL " symbol must be an llvm.mlir.global holding dense i8 "
           "records";
  int64_t n = mlirElementsAttrGetNumElements(v);
  if (n <= 0 || n % NVFP4_METADATA_BYTES || n > NVFP4_METADATA_BYTES * NVFP4_METADATA_MAX_VARIANTS)
    return "the metadata table is not 1 to 16 records of 256 bytes";
  int8_t bytes[NVFP4_METADATA_BYTES * NVFP4_METADATA_MAX_VARIANTS];
  for (int64_t i = 0; i < n; ++i) bytes[i] = mlirDenseElementsAttrGetInt8Value(v, i);
  for (int64_t r = 0; r < n / NVFP4_METADATA_BYTES; ++r)
    if (nvfp4_meta_read_u32((unsigned char *)bytes + r * NVFP4_METADATA_BYTES,
                            NVFP4_META_MAGIC) != NVFP4_METADATA_MAGIC)
      return "a metadata record does not start with the nvfp4 magic";
  /* A stream-K variant's partial sums live in the workspace: a target that takes the
   * workspace for itself (the tcgen05 emulation: Tensor Memory) cannot run it; one that
   * takes none (the timing proxy) keeps the variant's. */
  for (int64_t r = 0; r < n / NVFP4_METADATA_BYTES; ++r)
    if (t->workspacePerCta &&
        (nvfp4_meta_read_u32((unsigned char *)bytes + r * NVFP4_METADATA_BYTES,
                             NVFP4_META_VARIANT_FLAGS) & NVFP4_META_VFLAG_STREAM_K))
      return "a stream-K variant (_sk) keeps its partial sums in the workspace, which this "
             "build takes for the emulated Tensor Memory: build the _sk variants natively or "
             "as the timing proxy (--proxy)";
  for (int64_t r = 0; r < n / NVFP4_METADATA_BYTES; ++r) {
    unsigned char *rec = (unsigned char *)bytes + r * NVFP4_METADATA_BYTES;
    nvfp4_meta_write_u32(rec, NVFP4_META_TARGET_SM, 90);
    nvfp4_meta_write_u32(rec, NVFP4_META_FLAGS,
                         (nvfp4_meta_read_u32(rec, NVFP4_META_FLAGS) | t->metadataFlags) &
                             ~t->metadataClearFlags);
    if (!(nvfp4_meta_read_u32(rec, NVFP4_META_VARIANT_FLAGS) & NVFP4_META_VFLAG_STREAM_K))
      nvfp4_meta_write_u32(rec, NVFP4_META_WORKSPACE_PER_CTA, t->workspacePerCta);
    memset(rec + NVFP4_META_TARGET, 0, NVFP4_META_TARGET_BYTES);
    memcpy(rec + NVFP4_META_TARGET, "sm_90a", 6);
  }
  MlirAttribute nv = mlirDenseElementsAttrInt8Get(mlirAttributeGetType(v), n, bytes);
  mlirOperationSetAttributeByName(g, str("value"), nv);
  return NULL;
}

static bool fail(MlirLocation loc, const Nvfp4Sm90Target *t, const char *why) {
  char msg[320];
  snprintf(msg, sizeof msg, "%s: %s", t->passName, why);
  nvfp4EmitError(loc, msg);
  return false;
}

/* The target's entry call, first in the entry block of every kernel (llvm.func with
 * nvvm.kernel and a body) of the module, tagged like every op the rewrite adds. */
static void insertEntryCalls(MlirOperation gpuModule, const Nvfp4Sm90Target *t) {
  MlirContext ctx = mlirOperationGetContext(gpuModule);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(gpuModule, 0));
  for (MlirOperation f = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f)) {
    if (!nvfp4OpIs(f, "llvm.func") ||
        mlirAttributeIsNull(mlirOperationGetAttributeByName(f, str("nvvm.kernel"))))
      continue;
    MlirRegion region = mlirOperationGetRegion(f, 0);
    MlirBlock entry = mlirRegionGetFirstBlock(region);
    if (mlirBlockIsNull(entry)) continue;
    KbBuilder b;
    kbInit(&b, ctx, mlirOperationGetLocation(f), region, entry);
    b.tag = t->tag;
    mlirOperationSetAttributeByName(b.allocaAnchor, str(t->tag), mlirUnitAttrGet(ctx));
    b.cur = entry;
    b.insertBefore = mlirBlockGetFirstOperation(entry);
    kbCall(&b, t->entryCall, (MlirType){NULL}, 0, NULL);
  }
}

/* The walk's callbacks: a builder per kernel (tagging what it adds, so that tests can
 * check nothing else changed) inserting before each op; ops outside a kernel stay. */
static Nvfp4OpAction beforeOp(void *pass, MlirOperation op) {
  Nvfp4Retarget *r = pass;
  MlirOperation func = enclosingFunc(op);
  if (mlirOperationIsNull(func)) return NVFP4_OP_KEEP;
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(region);
  if (!mlirOperationEqual(func, r->func)) {
    MlirContext ctx = mlirOperationGetContext(op);
    kbInit(&r->b, ctx, mlirOperationGetLocation(op), region, entry);
    r->b.tag = r->target->tag;
    mlirOperationSetAttributeByName(r->b.allocaAnchor, str(r->target->tag), mlirUnitAttrGet(ctx));
    r->func = func;
  }
  r->b.loc = mlirOperationGetLocation(op);
  r->b.cur = mlirOperationGetBlock(op);
  r->b.insertBefore = op;
  if (mlirBlockGetNumArguments(entry) < 1)
    return nvfp4RetargetRefuse(r, "kernel has no parameter block");
  r->params = mlirBlockGetArgument(entry, 0);
  return NVFP4_OP_REWRITE;
}

static Nvfp4OpAction afterOp(void *pass, MlirOperation op, Nvfp4OpAction done) {
  Nvfp4Retarget *r = pass;
  (void)op;
  return done != NVFP4_OP_FAILED && r->b.failed ? nvfp4RetargetRefuse(r, "internal error") : done;
}

static bool retargetModule(MlirOperation gpuModule, const Nvfp4Sm90Target *t) {
  MlirContext ctx = mlirOperationGetContext(gpuModule);
  MlirAttribute targets = mlirAttributeParseGet(ctx, str(t->targets));
  if (mlirAttributeIsNull(targets))
    return fail(mlirOperationGetLocation(gpuModule), t, "invalid target attribute");
  mlirOperationSetAttributeByName(gpuModule, str("targets"), targets);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(gpuModule, 0));
  for (size_t i = 0; i < t->numDecls; ++i) {
    MlirOperation decl = mlirOperationCreateParse(ctx, str(t->decls[i]), str(t->passName));
    mlirBlockInsertOwnedOperation(body, 0, decl);
  }
  const char *bad = patchMetadata(gpuModule, t);
  if (bad) return fail(mlirOperationGetLocation(gpuModule), t, bad);

  /* the target's handlers, then (tcgen05 kernels) the A/B coordinates of tagged TMA loads;
   * the sm_120a kernel's loads take bytes already */
  const Nvfp4OpTable table = {t->ops->entries, t->ops->count,
                              t->mmaSyncModules ? NULL : &kRetargetTable};
  Nvfp4Retarget r = {.target = t};
  const Nvfp4OpWalk walk = {&table, &r, beforeOp, afterOp};
  MlirOperation failed;
  if (!nvfp4OpTableRewrite(gpuModule, &walk, &failed))
    return fail(mlirOperationGetLocation(failed.ptr ? failed : gpuModule), t,
                failed.ptr ? r.why : "out of memory");
  if (t->entryCall) insertEntryCalls(gpuModule, t);
  return true;
}

/* Which kernels a module holds, by its first metadata record: native sm_90a ones (target_sm
 * 90 without an emulation or proxy flag: nothing to rewrite), sm_120a ones (target_sm 120
 * or 121), or tcgen05 ones (anything else, also a table patchMetadata will refuse). */
enum ModuleKind { MODULE_TCGEN05, MODULE_NATIVE_SM90, MODULE_MMA_SYNC };

static enum ModuleKind moduleKind(MlirOperation gpuModule) {
  MlirAttribute v = metadataBytes(gpuModule); /* not a table: patchMetadata says so */
  if (mlirAttributeIsNull(v) || mlirElementsAttrGetNumElements(v) < NVFP4_METADATA_BYTES)
    return MODULE_TCGEN05;
  unsigned char rec[NVFP4_METADATA_BYTES];
  for (unsigned i = 0; i < NVFP4_METADATA_BYTES; ++i)
    rec[i] = (unsigned char)mlirDenseElementsAttrGetInt8Value(v, i);
  const uint32_t sm = nvfp4_meta_read_u32(rec, NVFP4_META_TARGET_SM);
  const uint32_t flags = nvfp4_meta_read_u32(rec, NVFP4_META_FLAGS);
  if (sm == 90 && !(flags & (NVFP4_META_FLAG_EMULATION | NVFP4_META_FLAG_PROXY |
                             NVFP4_META_FLAG_EMULATION_MMA_SYNC)))
    return MODULE_NATIVE_SM90;
  if (sm == 120 || sm == 121 || (flags & NVFP4_META_FLAG_EMULATION_MMA_SYNC))
    return MODULE_MMA_SYNC;
  return MODULE_TCGEN05;
}

bool nvfp4RetargetToSm90(MlirOperation module, const Nvfp4Sm90Target *t) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!nvfp4OpIs(op, "gpu.module")) continue;
    if (mlirOperationIsNull(nvfp4FindSymbol(op, NVFP4_METADATA_SYMBOL))) continue;
    const enum ModuleKind kind = moduleKind(op);
    if (kind != (t->mmaSyncModules ? MODULE_MMA_SYNC : MODULE_TCGEN05)) continue;
    if (!retargetModule(op, t)) return false;
  }
  return true;
}
