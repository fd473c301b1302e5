/* Verifier.c — the verifiers of nvfp4.grouped_matmul and nvfp4.moe_matmul, written in C
 * against the MLIR C API. The ODS-generated ops' verify() forward here (NVFP4Dialect.cpp).
 * On the first violated rule they emit one error at the op's location naming the group
 * and operand, and return failure.
 *
 * Rules of nvfp4.grouped_matmul (docs/ops.md):
 *   - five operand lists a, b, sfa, sfb, c of equal length G, 1 <= G <= NVFP4_ABI_MAX_GROUPS,
 *     and an optional alpha: rank-1 f32 of G elements;
 *   - a, b: rank-2 f4E2M1FN (M x K, N x K); sfa, sfb: rank-5 f8E4M3FN
 *     (ceil(MN/128), ceil(K/64), 32, 4, 4); c: rank-2 f16, bf16 or f32 (M x N), the same
 *     element type in every group;
 *   - identity layout and default memory space everywhere (contiguous row-major), except
 *     that C may have a row stride: strided<[ldc, 1]> with 16-byte rows (ldc a multiple
 *     of 8 elements, 4 for f32), ldc >= N;
 *   - static sizes agree (M: a/c/sfa, N: b/c/sfb, K: a/b/sfa/sfb); a static K is a
 *     positive multiple of 64; A's and B's K are both static or both dynamic;
 *   - target one of Targets.h's table (sm_100a, sm_100f, sm_103a, sm_90a, sm_120a, sm_121a,
 *     sm_120f); tile_n in {64,128,192,256}; stages in 1..8;
 *     kernel_name a C identifier of at most NVFP4_MAX_KERNEL_NAME_LEN characters that
 *     does not start with '_' (reserved in C and PTX) and is none of the names the
 *     generated module or the emulation library use (is_reserved_kernel_name); and every
 *     variant of the kernel family must be one the target's planner can build (sm_90a:
 *     swap_n64 / swap_n128);
 *   - C's strided layout has offset 0 or ? (the kernel addresses C from the pointer it
 *     is given; a static offset would be ignored);
 *   - static M, N and K at most NVFP4_ABI_MAX_DIM (every coordinate the kernel builds is
 *     a signed 32-bit number) and a static ldc at most 2^32 - 1 (the group table's field);
 *   - no two groups store to the same C value (their tiles would race);
 *   - no NUL byte inside a `variants` entry;
 *   - epilogue = "swiglu_nvfp4" (the only epilogue) exactly when the operands sfc (one per
 *     group) and gs (rank-1 f32 of G) are present; then B's N is 2I with I a positive
 *     multiple of 64, C is f4E2M1FN M x I (identity layout), SFC is (ceil(M/128), ceil(I/64),
 *     32, 4, 4) f8E4M3FN, and no two groups share an SFC value;
 *   - the op sits in a func.func (possibly inside its regions), not in a gpu.func, an
 *     llvm.func or directly in a module: the lowering tags that function with a reference
 *     to the kernels' gpu.module (and refuses a function of a nested module, where the
 *     reference would not resolve).
 * Rules of nvfp4.moe_matmul: see mlirNvfp4MoeMatmulVerify below.
 */
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/KernelConfig.h"
#include "nvfp4-c/Targets.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The per-group operand lists; OPND_SFC (the fused epilogue's block scales, one per group
 * when present) follows the five that every op has. */
enum { OPND_A, OPND_B, OPND_SFA, OPND_SFB, OPND_C, OPND_KINDS, OPND_SFC = OPND_KINDS };

static const char *const kOperandNames[OPND_KINDS + 1] = {"a", "b", "sfa", "sfb", "c", "sfc"};
static const intptr_t kOperandRanks[OPND_KINDS + 1] = {2, 2, 5, 5, 2, 5};
static const char *const kElementNames[OPND_KINDS + 1] = {
    "f4E2M1FN", "f4E2M1FN", "f8E4M3FN", "f8E4M3FN",
    "f16, bf16 or f32", "f8E4M3FN"};

#define FUSED_EPILOGUE "swiglu_nvfp4"

/* `fused`: the op has epilogue = "swiglu_nvfp4", whose C is FP4. */
static bool element_ok(int kind, MlirType elt, bool fused) {
  switch (kind) {
  case OPND_A:
  case OPND_B:
    return mlirTypeIsAFloat4E2M1FN(elt);
  case OPND_SFA:
  case OPND_SFB:
  case OPND_SFC:
    return mlirTypeIsAFloat8E4M3FN(elt);
  default:
    if (fused) return mlirTypeIsAFloat4E2M1FN(elt);
    return mlirTypeIsAF16(elt) || mlirTypeIsABF16(elt) || mlirTypeIsAF32(elt);
  }
}

/* ---- diagnostics ------------------------------------------------------------------ */

typedef struct {
  char *buf;
  size_t cap, len;
} nvfp4_strbuf;

static void strbuf_append(MlirStringRef s, void *user) {
  nvfp4_strbuf *sb = (nvfp4_strbuf *)user;
  size_t n = s.length;
  if (sb->len + 1 >= sb->cap)
    return;
  if (n > sb->cap - 1 - sb->len)
    n = sb->cap - 1 - sb->len;
  memcpy(sb->buf + sb->len, s.data, n);
  sb->len += n;
  sb->buf[sb->len] = '\0';
}

/* Prints `t` into `out` (truncated to `cap` bytes). */
static const char *type_str(MlirType t, char *out, size_t cap) {
  nvfp4_strbuf sb = {out, cap, 0};
  out[0] = '\0';
  mlirTypePrint(t, strbuf_append, &sb);
  return out;
}

static MlirLogicalResult fail(MlirOperation op, const char *fmt, ...) {
  char msg[1024];
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  int n = snprintf(msg, sizeof msg, "'%.*s' op ", (int)name.length, name.data);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
  va_end(ap);
  mlirEmitError(mlirOperationGetLocation(op), msg);
  return mlirLogicalResultFailure();
}

/* ---- helpers ---------------------------------------------------------------------- */

#define DYN (-1)

/* Size of dimension `i`, or DYN. */
static int64_t dim(MlirType t, intptr_t i) {
  return mlirShapedTypeIsDynamicDim(t, i) ? DYN : mlirShapedTypeGetDimSize(t, i);
}

/* ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) near INT64_MAX. */
static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

static bool is_c_identifier(MlirStringRef s) {
  if (s.length == 0)
    return false;
  for (size_t i = 0; i < s.length; ++i) {
    char ch = s.data[i];
    bool alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
    bool digit = ch >= '0' && ch <= '9';
    if (!alpha && !(digit && i > 0))
      return false;
  }
  return true;
}

/* Names a kernel_name may not take: the symbols of the generated gpu.module and the
 * emulation library's namespace (a kernel and its metadata would share a prefix that
 * tools such as cuobjdump and the runtime's variant lookup treat as theirs), and PTX's
 * predefined identifier. Leading underscores are rejected separately. */
static bool is_reserved_kernel_name(MlirStringRef s) {
  static const char *const kExact[] = {NVFP4_METADATA_SYMBOL, "nvfp4_dyn_smem", "WARP_SZ"};
  for (size_t i = 0; i < sizeof kExact / sizeof kExact[0]; ++i)
    if (s.length == strlen(kExact[i]) && memcmp(s.data, kExact[i], s.length) == 0)
      return true;
  static const char kEmuPrefix[] = "nvfp4_emu_";
  return s.length >= sizeof kEmuPrefix - 1 && memcmp(s.data, kEmuPrefix, sizeof kEmuPrefix - 1) == 0;
}

static MlirAttribute get_attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

static bool str_eq(MlirStringRef s, const char *lit) {
  return s.length == strlen(lit) && memcmp(s.data, lit, s.length) == 0;
}

bool mlirNvfp4IsGroupedMatmul(MlirOperation op) {
  return str_eq(mlirIdentifierStr(mlirOperationGetName(op)), NVFP4_OP_NAME);
}

/* ---- placement -------------------------------------------------------------------------- */

static bool op_named(MlirOperation op, const char *name) {
  return str_eq(mlirIdentifierStr(mlirOperationGetName(op)), name);
}

/* The op is host code that the lowering erases, putting the kernels in a gpu.module of the
 * top-level module and tagging the enclosing function with `nvfp4.kernel = @module`: it
 * must sit in a func.func (any depth of its regions). */
static MlirLogicalResult verify_placement(MlirOperation op) {
  MlirOperation p = mlirOperationGetParentOperation(op);
  while (!mlirOperationIsNull(p) && !op_named(p, "func.func") && !op_named(p, "gpu.func") &&
         !op_named(p, "llvm.func") && !op_named(p, "builtin.module") && !op_named(p, "gpu.module"))
    p = mlirOperationGetParentOperation(p);
  if (mlirOperationIsNull(p)) /* not placed yet (an op the C API built, detached) */
    return mlirLogicalResultSuccess();
  if (op_named(p, "gpu.func") || op_named(p, "gpu.module"))
    return fail(op, "is host code (it launches a kernel): it cannot be in device code (%s); "
                    "put it in a func.func of the top-level module", op_named(p, "gpu.func")
                                                                         ? "a gpu.func"
                                                                         : "a gpu.module");
  if (op_named(p, "llvm.func"))
    return fail(op, "must be inside a func.func, not an llvm.func (lower it before converting "
                    "the function to the LLVM dialect)");
  if (op_named(p, "builtin.module"))
    return fail(op, "must be inside a func.func, not directly in a module");
  /* A function of a nested module is refused by the lowering, which alone knows which
   * module is the top-level one (the parser verifies a file inside a module of its own). */
  return mlirLogicalResultSuccess();
}

/* ---- attribute checks --------------------------------------------------------------- */

/* A `variants` entry with a NUL byte would be read as its prefix. */
static MlirLogicalResult verify_variant_strings(MlirOperation op) {
  MlirAttribute a = get_attr(op, "variants");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAArray(a)) return mlirLogicalResultSuccess();
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(a); ++i) {
    MlirAttribute e = mlirArrayAttrGetElement(a, i);
    if (!mlirAttributeIsAString(e)) continue;
    MlirStringRef s = mlirStringAttrGetValue(e);
    if (memchr(s.data, 0, s.length))
      return fail(op, "'variants' entry %zd holds a NUL byte after '%s' (variant names are "
                      "plain identifiers)", i, s.data);
  }
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult verify_attributes(MlirOperation op) {
  MlirAttribute target = get_attr(op, "target");
  if (mlirAttributeIsNull(target) || !mlirAttributeIsAString(target))
    return fail(op, "requires a string attribute 'target'");
  MlirStringRef t = mlirStringAttrGetValue(target);
  if (!nvfp4_target_find_n(t.data, t.length))
    return fail(op, "unknown target '%.*s' (supported: %s)", (int)t.length, t.data,
                nvfp4_target_names());

  int64_t tileN = MLIR_NVFP4_DEFAULT_TILE_N, numStages = 0;
  MlirAttribute tile_n = get_attr(op, "tile_n");
  if (!mlirAttributeIsNull(tile_n)) {
    if (!mlirAttributeIsAInteger(tile_n))
      return fail(op, "'tile_n' must be an integer");
    int64_t v = mlirIntegerAttrGetValueInt(tile_n);
    if (v != 64 && v != 128 && v != 192 && v != 256)
      return fail(op, "'tile_n' must be one of 64, 128, 192, 256, got %lld", (long long)v);
    tileN = v;
  }

  MlirAttribute stages = get_attr(op, "stages");
  if (!mlirAttributeIsNull(stages)) {
    if (!mlirAttributeIsAInteger(stages))
      return fail(op, "'stages' must be an integer");
    int64_t v = mlirIntegerAttrGetValueInt(stages);
    if (v < 1 || v > (int64_t)MLIR_NVFP4_MAX_STAGES)
      return fail(op, "'stages' must be in [1, %d], got %lld", (int)MLIR_NVFP4_MAX_STAGES,
                  (long long)v);
    numStages = v;
  }
  if (mlirLogicalResultIsFailure(verify_variant_strings(op))) return mlirLogicalResultFailure();
  /* The planner decides what fits (shared memory, Tensor Memory): the op is valid only if
   * the lowering can build every variant of its kernel family. The plan is memoised, so the
   * lowering builds from this very plan without running the planner again
   * (mlirNvfp4MatmulPlanFamily). */
  char why[256];
  if (!mlirNvfp4MatmulPlanFamily(op, NULL, why, sizeof why)) return fail(op, "%s", why);

  MlirAttribute name = get_attr(op, "kernel_name");
  if (!mlirAttributeIsNull(name)) {
    if (!mlirAttributeIsAString(name))
      return fail(op, "'kernel_name' must be a string");
    MlirStringRef s = mlirStringAttrGetValue(name);
    if (!is_c_identifier(s))
      return fail(op, "'kernel_name' must be a valid C identifier, got '%.*s'",
                  (int)s.length, s.data);
    if (s.length > NVFP4_MAX_KERNEL_NAME_LEN)
      return fail(op, "'kernel_name' must be at most %d characters, got %zu",
                  NVFP4_MAX_KERNEL_NAME_LEN, s.length);
    if (s.data[0] == '_')
      return fail(op, "'kernel_name' must not start with '_' (reserved in C and PTX), got "
                      "'%.*s'", (int)s.length, s.data);
    if (is_reserved_kernel_name(s))
      return fail(op, "'kernel_name' '%.*s' is reserved (the metadata and shared-memory "
                      "symbols, 'nvfp4_emu_*' and WARP_SZ)", (int)s.length, s.data);
  }
  return mlirLogicalResultSuccess();
}

/* ---- per-operand and per-group checks ------------------------------------------------ */

/* Identity layout (C: or strided<[ldc, 1]> with 16-byte rows, ldc >= N) and the default
 * memory space. `g` < 0: the operand belongs to no group (messages say so). */
static MlirLogicalResult verify_layout(MlirOperation op, int g, const char *name, MlirType t,
                                       bool isC) {
  char ts[256], where[32] = "";
  if (g >= 0) snprintf(where, sizeof where, "group %d: ", g);
  MlirAttribute layout = mlirMemRefTypeGetLayout(t);
  bool identity = mlirAttributeIsNull(layout) ||
                  (mlirAttributeIsAAffineMap(layout) &&
                   mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(layout)));
  if (!identity && isC && mlirAttributeIsAStridedLayout(layout)) {
    /* C may have a row stride (the kernel reads it at run time): strided<[ldc, 1]>, with
     * 16-byte rows for the vectorised stores and ldc >= N when both are static. */
    int64_t dyn = mlirShapedTypeGetDynamicStrideOrOffset();
    int64_t ldc = mlirStridedLayoutAttrGetStride(layout, 0);
    int64_t n = mlirShapedTypeGetDimSize(t, 1);
    int64_t granule = mlirTypeIsAF32(mlirShapedTypeGetElementType(t)) ? 4 : 8;
    if (mlirStridedLayoutAttrGetStride(layout, 1) != 1)
      return fail(op, "%soperand 'c' must be contiguous along N (strided<[ldc, 1]>), "
                      "got %s", where, type_str(t, ts, sizeof ts));
    if (ldc != dyn && (ldc <= 0 || ldc % granule != 0))
      return fail(op, "%soperand 'c' row stride must be a positive multiple of %lld "
                      "elements (16-byte rows), got %lld", where, (long long)granule,
                  (long long)ldc);
    if (ldc != dyn && !mlirShapedTypeIsDynamicDim(t, 1) && ldc < n)
      return fail(op, "%soperand 'c' row stride %lld is smaller than N = %lld", where,
                  (long long)ldc, (long long)n);
    if (ldc != dyn && ldc > (int64_t)UINT32_MAX)
      return fail(op, "%soperand 'c' row stride %lld exceeds 2^32 - 1 (the group table holds "
                      "it in 32 bits)", where, (long long)ldc);
    /* The kernel stores C from the pointer the runtime is given: a static offset would be
     * silently ignored. A dynamic one (views made by subview) is the caller's to fold
     * into that pointer. */
    int64_t offset = mlirStridedLayoutAttrGetOffset(layout);
    if (offset != 0 && offset != dyn)
      return fail(op, "%soperand 'c' must have offset 0 or ? (the kernel stores from the C "
                      "pointer it is given), got offset %lld", where, (long long)offset);
    identity = true;
  }
  if (!identity)
    return fail(op, "%soperand '%s' must have the identity (contiguous row-major) "
                    "layout%s, got %s", where, name,
                isC ? " or strided<[ldc, 1]>" : "", type_str(t, ts, sizeof ts));
  if (!mlirAttributeIsNull(mlirMemRefTypeGetMemorySpace(t)))
    return fail(op, "%soperand '%s' must be in the default memory space, got %s", where,
                name, type_str(t, ts, sizeof ts));
  return mlirLogicalResultSuccess();
}


static MlirLogicalResult verify_operand(MlirOperation op, int g, int kind, MlirType t,
                                        bool fused) {
  char ts[256];
  const char *name = kOperandNames[kind];
  if (!mlirTypeIsAMemRef(t))
    return fail(op, "group %d: operand '%s' must be a ranked memref, got %s", g, name,
                type_str(t, ts, sizeof ts));
  MlirType elt = mlirShapedTypeGetElementType(t);
  if (!element_ok(kind, elt, fused))
    return fail(op, "group %d: operand '%s' must have element type %s, got %s", g, name,
                fused && kind == OPND_C ? "f4E2M1FN (epilogue = \"" FUSED_EPILOGUE "\")"
                                        : kElementNames[kind],
                type_str(elt, ts, sizeof ts));
  intptr_t rank = mlirShapedTypeGetRank(t);
  if (rank != kOperandRanks[kind])
    return fail(op, "group %d: operand '%s' must have rank %zd, got rank %zd", g, name,
                kOperandRanks[kind], rank);
  return verify_layout(op, g, name, t, kind == OPND_C && !fused);
}

/* Checks a scale-factor operand against its row count and K (either may be DYN). */
static MlirLogicalResult verify_scales(MlirOperation op, int g, int kind, MlirType t,
                                       int64_t rows, const char *rows_name, int64_t k) {
  const char *name = kOperandNames[kind];
  static const int64_t kAtom[3] = {32, 4, 4};
  for (int i = 0; i < 3; ++i)
    if (dim(t, 2 + i) != kAtom[i])
      return fail(op, "group %d: operand '%s' dims 2..4 must be 32x4x4 (one 512-byte "
                      "atom), got dim %d = %s%lld", g, name, 2 + i,
                  dim(t, 2 + i) == DYN ? "?" : "", (long long)dim(t, 2 + i));
  int64_t d0 = dim(t, 0), d1 = dim(t, 1);
  if (rows != DYN && d0 != DYN && d0 != ceil_div(rows, MLIR_NVFP4_TILE_M))
    return fail(op, "group %d: operand '%s' dim 0 must be ceil(%s/128) = %lld, got %lld", g,
                name, rows_name, (long long)ceil_div(rows, MLIR_NVFP4_TILE_M),
                (long long)d0);
  if (k != DYN && d1 != DYN && d1 != ceil_div(k, MLIR_NVFP4_K_GRANULE))
    return fail(op, "group %d: operand '%s' dim 1 must be ceil(%s/64) = %lld, got %lld", g,
                name, kind == OPND_SFC ? "I" : "K", (long long)ceil_div(k, MLIR_NVFP4_K_GRANULE), (long long)d1);
  return mlirLogicalResultSuccess();
}

/* A static size the kernel's signed 32-bit coordinates reach (g < 0: no group). */
static MlirLogicalResult verify_dim_bound(MlirOperation op, int g, const char *name, int64_t v) {
  if (v == DYN || v <= (int64_t)NVFP4_ABI_MAX_DIM) return mlirLogicalResultSuccess();
  char where[32] = "";
  if (g >= 0) snprintf(where, sizeof where, "group %d: ", g);
  return fail(op, "%s%s = %lld exceeds %u: the kernel's tensor coordinates are signed 32-bit",
              where, name, (long long)v, NVFP4_ABI_MAX_DIM);
}

/* The fused epilogue's N: B's 2I gate/up rows with I a multiple of 64 (the down-
 * projection's K granule); I = N/2 is C's N. `where` prefixes the message. */
static MlirLogicalResult verify_gate_up_rows(MlirOperation op, const char *where, int64_t n) {
  if (n == DYN || (n > 0 && n % (2 * MLIR_NVFP4_K_GRANULE) == 0)) return mlirLogicalResultSuccess();
  return fail(op, "%sN of 'b' (%lld) must be 2I with I a positive multiple of %d: gate rows "
                  "0..I-1, up rows I..2I-1 (epilogue = \"" FUSED_EPILOGUE "\"; I is the "
                  "down-projection's K)", where, (long long)n, (int)MLIR_NVFP4_K_GRANULE);
}

/* C's N: N of B, or I = N/2 with the fused epilogue (either may be DYN). */
static int64_t c_cols(int64_t n_b, bool fused) { return n_b == DYN || !fused ? n_b : n_b / 2; }

static MlirLogicalResult verify_group(MlirOperation op, int g, const MlirType t[OPND_KINDS + 1],
                                      bool fused) {
  for (int kind = 0; kind < OPND_KINDS + (int)fused; ++kind)
    if (mlirLogicalResultIsFailure(verify_operand(op, g, kind, t[kind], fused)))
      return mlirLogicalResultFailure();

  int64_t m_a = dim(t[OPND_A], 0), k_a = dim(t[OPND_A], 1);
  int64_t n_b = dim(t[OPND_B], 0), k_b = dim(t[OPND_B], 1);
  int64_t m_c = dim(t[OPND_C], 0), n_c = dim(t[OPND_C], 1);

  if ((k_a == DYN) != (k_b == DYN))
    return fail(op, "group %d: K of 'a' and 'b' must both be static or both dynamic", g);
  if (k_a != DYN && k_a != k_b)
    return fail(op, "group %d: K of 'a' (%lld) does not match K of 'b' (%lld)", g,
                (long long)k_a, (long long)k_b);
  if (k_a != DYN && (k_a <= 0 || k_a % MLIR_NVFP4_K_GRANULE != 0))
    return fail(op, "group %d: K must be a multiple of %d, got %lld", g, (int)MLIR_NVFP4_K_GRANULE,
                (long long)k_a);
  if (m_a != DYN && m_c != DYN && m_a != m_c)
    return fail(op, "group %d: M of 'a' (%lld) does not match M of 'c' (%lld)", g,
                (long long)m_a, (long long)m_c);
  char where[32];
  snprintf(where, sizeof where, "group %d: ", g);
  if (fused && mlirLogicalResultIsFailure(verify_gate_up_rows(op, where, n_b)))
    return mlirLogicalResultFailure();
  if (n_b != DYN && n_c != DYN && fused && n_b / 2 != n_c)
    return fail(op, "group %d: N of 'c' (%lld) must be I = N/2 = %lld (N of 'b' is %lld)", g,
                (long long)n_c, (long long)(n_b / 2), (long long)n_b);
  if (n_b != DYN && n_c != DYN && !fused && n_b != n_c)
    return fail(op, "group %d: N of 'b' (%lld) does not match N of 'c' (%lld)", g,
                (long long)n_b, (long long)n_c);

  int64_t m = m_a != DYN ? m_a : m_c;
  int64_t n = n_b != DYN ? n_b : n_c == DYN || !fused ? n_c : 2 * n_c;
  if (mlirLogicalResultIsFailure(verify_scales(op, g, OPND_SFA, t[OPND_SFA], m, "M", k_a)) ||
      mlirLogicalResultIsFailure(verify_scales(op, g, OPND_SFB, t[OPND_SFB], n, "N", k_a)) ||
      (fused && mlirLogicalResultIsFailure(
                    verify_scales(op, g, OPND_SFC, t[OPND_SFC], m, "M", c_cols(n, true)))))
    return mlirLogicalResultFailure();
  int64_t ka1 = dim(t[OPND_SFA], 1), kb1 = dim(t[OPND_SFB], 1);
  if (ka1 != DYN && kb1 != DYN && ka1 != kb1)
    return fail(op, "group %d: dim 1 (K/64) of 'sfa' (%lld) does not match 'sfb' (%lld)", g,
                (long long)ka1, (long long)kb1);
  const int64_t sizes[3] = {m, n, k_a};
  static const char *const names[3] = {"M", "N", "K"};
  for (int i = 0; i < 3; ++i)
    if (mlirLogicalResultIsFailure(verify_dim_bound(op, g, names[i], sizes[i])))
      return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

/* ---- entry point ---------------------------------------------------------------------- */

/* alpha: rank-1 f32 of `count` elements (static) in the default layout and memory space.
 * g < 0 as in verify_layout. */
static MlirLogicalResult verify_f32_per(MlirOperation op, const char *name, MlirType t,
                                        int64_t count, const char *what) {
  char ts[256];
  if (!mlirTypeIsAMemRef(t) || !mlirTypeIsAF32(mlirShapedTypeGetElementType(t)) ||
      mlirShapedTypeGetRank(t) != 1)
    return fail(op, "operand '%s' must be a rank-1 memref of f32 (one per %s), got %s", name,
                what, type_str(t, ts, sizeof ts));
  if (dim(t, 0) != DYN && dim(t, 0) != count)
    return fail(op, "operand '%s' must have %lld elements (one per %s), got %lld", name,
                (long long)count, what, (long long)dim(t, 0));
  return verify_layout(op, -1, name, t, false);
}
static MlirLogicalResult verify_alpha(MlirOperation op, MlirType t, int64_t count,
                                      const char *what) {
  return verify_f32_per(op, "alpha", t, count, what);
}

/* The `epilogue` attribute and the operands it needs agree: sets *fused; fails on an unknown
 * epilogue, on sfc/gs without it and on it without sfc and gs. */
static MlirLogicalResult verify_epilogue(MlirOperation op, bool has_sfc, bool has_gs,
                                         bool *fused) {
  MlirAttribute a = get_attr(op, "epilogue");
  *fused = !mlirAttributeIsNull(a);
  if (*fused) {
    if (!mlirAttributeIsAString(a))
      return fail(op, "'epilogue' must be a string");
    MlirStringRef v = mlirStringAttrGetValue(a);
    if (!str_eq(v, FUSED_EPILOGUE))
      return fail(op, "unknown epilogue '%.*s' (supported: \"" FUSED_EPILOGUE "\")",
                  (int)v.length, v.data);
    if (!has_sfc || !has_gs)
      return fail(op, "epilogue \"" FUSED_EPILOGUE "\" requires the operands 'sfc' (the block "
                      "scales it writes) and 'gs' (the global scale)");
  } else if (has_sfc || has_gs) {
    return fail(op, "operands 'sfc' and 'gs' are only valid with epilogue = \"" FUSED_EPILOGUE
                    "\"");
  }
  return mlirLogicalResultSuccess();
}

MlirLogicalResult mlirNvfp4GroupedMatmulVerify(MlirOperation op) {
  MlirAttribute seg = get_attr(op, "operandSegmentSizes");
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) ||
      mlirDenseArrayGetNumElements(seg) != OPND_KINDS + 3)
    return fail(op, "requires 'operandSegmentSizes' with 8 entries (a, b, sfa, sfb, c, alpha, "
                    "sfc, gs)");

  int32_t count[OPND_KINDS];
  intptr_t start[OPND_KINDS], total = 0;
  for (int kind = 0; kind < OPND_KINDS; ++kind) {
    count[kind] = mlirDenseI32ArrayGetElement(seg, kind);
    start[kind] = total;
    total += count[kind];
  }
  const int32_t alphas = mlirDenseI32ArrayGetElement(seg, OPND_KINDS);
  const int32_t sfcs = mlirDenseI32ArrayGetElement(seg, OPND_KINDS + 1);
  const int32_t gss = mlirDenseI32ArrayGetElement(seg, OPND_KINDS + 2);
  if (alphas < 0 || alphas > 1 || gss < 0 || gss > 1 || sfcs < 0 ||
      total + alphas + sfcs + gss != mlirOperationGetNumOperands(op))
    return fail(op, "'operandSegmentSizes' does not add up to the operand count");
  bool fused;
  if (mlirLogicalResultIsFailure(verify_epilogue(op, sfcs > 0, gss > 0, &fused)))
    return mlirLogicalResultFailure();

  int32_t groups = count[OPND_A];
  for (int kind = 1; kind < OPND_KINDS; ++kind)
    if (count[kind] != groups)
      return fail(op, "operand count mismatch: 'a' has %d groups but '%s' has %d", groups,
                  kOperandNames[kind], count[kind]);
  if (groups == 0)
    return fail(op, "requires at least one group");
  if ((uint32_t)groups > NVFP4_ABI_MAX_GROUPS)
    return fail(op, "supports at most %u groups, got %d",
                NVFP4_ABI_MAX_GROUPS, groups);
  if (fused && sfcs != groups)
    return fail(op, "operand count mismatch: 'a' has %d groups but 'sfc' has %d", groups, sfcs);

  if (mlirLogicalResultIsFailure(verify_placement(op)) ||
      mlirLogicalResultIsFailure(verify_attributes(op)))
    return mlirLogicalResultFailure();

  MlirType cElt = {NULL};
  for (int g = 0; g < groups; ++g) {
    MlirType t[OPND_KINDS + 1] = {{NULL}};
    for (int kind = 0; kind < OPND_KINDS; ++kind)
      t[kind] = mlirValueGetType(mlirOperationGetOperand(op, start[kind] + g));
    if (fused) t[OPND_SFC] = mlirValueGetType(mlirOperationGetOperand(op, total + alphas + g));
    if (mlirLogicalResultIsFailure(verify_group(op, g, t, fused)))
      return mlirLogicalResultFailure();
    /* one kernel writes every group: one C element type */
    MlirType elt = mlirShapedTypeGetElementType(t[OPND_C]);
    char a[64], b[64];
    if (g == 0) cElt = elt;
    else if (!mlirTypeEqual(elt, cElt))
      return fail(op, "group %d: operand 'c' has element type %s but group 0 has %s (every "
                      "group's C must have the same element type)", g,
                  type_str(elt, a, sizeof a), type_str(cElt, b, sizeof b));
    const intptr_t outs[2] = {start[OPND_C], total + alphas};
    for (int o = 0; o < 1 + (int)fused; ++o) {
      MlirValue c = mlirOperationGetOperand(op, outs[o] + g);
      for (int h = 0; h < g; ++h)
        if (mlirValueEqual(c, mlirOperationGetOperand(op, outs[o] + h)))
          return fail(op, "group %d: operand '%s' is the same value as group %d's: both groups "
                          "would store into it at once (their tiles race)", g,
                      o ? "sfc" : "c", h);
    }
  }
  if (alphas && mlirLogicalResultIsFailure(verify_alpha(
                    op, mlirValueGetType(mlirOperationGetOperand(op, total)), groups, "group")))
    return mlirLogicalResultFailure();
  if (fused)
    return verify_f32_per(op, "gs", mlirValueGetType(mlirOperationGetOperand(
                                        op, total + alphas + sfcs)), groups, "group");
  return mlirLogicalResultSuccess();
}

/* ---- nvfp4.moe_matmul ------------------------------------------------------------------
 *
 * Rules: a rank-2 f4E2M1FN (M x K); b rank-3 f4E2M1FN (E x N x K) with E static,
 * 1 <= E <= NVFP4_ABI_MAX_GROUPS; sfa rank-5 f8E4M3FN (R x ceil(K/64) x 32 x 4 x 4) with
 * R >= nvfp4_abi_moe_sfa_atoms(M, E) when both are static; sfb rank-6 f8E4M3FN
 * (E x ceil(N/128) x ceil(K/64) x 32 x 4 x 4); c rank-2 f16, bf16 or f32 (M x N, may be
 * strided<[ldc, 1]>); offsets rank-1 i32 (E + 1); alpha (optional) rank-1 f32 (E); static
 * sizes agree, K as for nvfp4.grouped_matmul; identity layouts, default memory space; the
 * attributes of nvfp4.grouped_matmul. With epilogue = "swiglu_nvfp4": N = 2I, I a positive
 * multiple of 64; c rank-2 f4E2M1FN (M x I, identity layout); sfc rank-5 f8E4M3FN
 * (R' x ceil(I/64) x 32 x 4 x 4, R' bounded as sfa's R); gs rank-1 f32 (E). */

enum { MOE_A, MOE_B, MOE_SFA, MOE_SFB, MOE_C, MOE_OFFSETS, MOE_ALPHA, MOE_SFC, MOE_GS, MOE_OPNDS };

bool mlirNvfp4IsMoeMatmul(MlirOperation op) {
  return str_eq(mlirIdentifierStr(mlirOperationGetName(op)), NVFP4_MOE_OP_NAME);
}

/* A memref operand of the op: element type, rank, layout. */
static MlirLogicalResult verify_moe_operand_as(MlirOperation op, const char *name, MlirType t,
                                               bool (*elt_ok)(MlirType), const char *elt_name,
                                               intptr_t rank, const char *shape, bool fused_c) {
  char ts[256];
  if (!mlirTypeIsAMemRef(t))
    return fail(op, "operand '%s' must be a ranked memref, got %s", name,
                type_str(t, ts, sizeof ts));
  MlirType elt = mlirShapedTypeGetElementType(t);
  if (!elt_ok(elt))
    return fail(op, "operand '%s' must have element type %s, got %s", name, elt_name,
                type_str(elt, ts, sizeof ts));
  if (mlirShapedTypeGetRank(t) != rank)
    return fail(op, "operand '%s' must have rank %zd (%s), got rank %zd", name, rank, shape,
                mlirShapedTypeGetRank(t));
  return verify_layout(op, -1, name, t, !strcmp(name, "c") && !fused_c);
}

static MlirLogicalResult verify_moe_operand(MlirOperation op, const char *name, MlirType t,
                                            bool (*elt_ok)(MlirType), const char *elt_name,
                                            intptr_t rank, const char *shape) {
  return verify_moe_operand_as(op, name, t, elt_ok, elt_name, rank, shape, false);
}

static bool is_fp4(MlirType t) { return mlirTypeIsAFloat4E2M1FN(t); }
static bool is_fp8(MlirType t) { return mlirTypeIsAFloat8E4M3FN(t); }
static bool is_c_elt(MlirType t) { return element_ok(OPND_C, t, false); }
static bool is_i32(MlirType t) {
  return mlirTypeIsAInteger(t) && mlirIntegerTypeIsSignless(t) && mlirIntegerTypeGetWidth(t) == 32;
}

/* Static dims that must agree: fails when both are static and differ. */
static MlirLogicalResult agree(MlirOperation op, int64_t x, const char *xs, int64_t y,
                               const char *ys) {
  if (x != DYN && y != DYN && x != y)
    return fail(op, "%s (%lld) does not match %s (%lld)", xs, (long long)x, ys, (long long)y);
  return mlirLogicalResultSuccess();
}

/* The operand types by role (MOE_*; absent optional operands null); sets *opt to the
 * presence of alpha, sfc and gs. */
static MlirLogicalResult moe_operand_types(MlirOperation op, MlirType t[MOE_OPNDS], bool opt[3]) {
  MlirAttribute seg = get_attr(op, "operandSegmentSizes");
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) ||
      mlirDenseArrayGetNumElements(seg) != MOE_OPNDS)
    return fail(op, "requires 'operandSegmentSizes' with 9 entries (a, b, sfa, sfb, c, offsets, "
                    "alpha, sfc, gs)");
  intptr_t n = 0;
  for (int i = 0; i < MOE_OPNDS; ++i) {
    int32_t v = mlirDenseI32ArrayGetElement(seg, i);
    if (v != 1 && (i < MOE_ALPHA || v != 0))
      return fail(op, "requires operands a, b, sfa, sfb, c, offsets and optional alpha, sfc, gs");
    if (i >= MOE_ALPHA) opt[i - MOE_ALPHA] = v == 1;
    t[i] = (MlirType){NULL};
    if (v == 1 && n < mlirOperationGetNumOperands(op))
      t[i] = mlirValueGetType(mlirOperationGetOperand(op, n++));
  }
  if (n != mlirOperationGetNumOperands(op))
    return fail(op, "'operandSegmentSizes' does not add up to the operand count");
  return mlirLogicalResultSuccess();
}

/* A token-scale tensor in expert segments (sfa, sfc) has room for any routing of m tokens
 * over e experts: r atom rows (any of them may be DYN). */
static MlirLogicalResult verify_segment_rows(MlirOperation op, const char *name, int64_t r,
                                             int64_t m, int64_t e) {
  if (r == DYN || m == DYN || (uint64_t)r >= nvfp4_abi_moe_sfa_atoms((uint64_t)m, (uint64_t)e))
    return mlirLogicalResultSuccess();
  return fail(op, "operand '%s' holds %lld atom rows; %lld tokens over %lld experts may need "
                  "%llu (each expert's scales start on a 128-row atom)", name, (long long)r,
              (long long)m, (long long)e,
              (unsigned long long)nvfp4_abi_moe_sfa_atoms((uint64_t)m, (uint64_t)e));
}

/* The fused epilogue's operands of the contiguous form: N = 2I, C's N = I, SFC in the
 * expert-segment layout of SFA (at least as many atom rows), gs one per expert. m, n, e:
 * M, N and E (M, N may be DYN). */
static MlirLogicalResult verify_moe_fused(MlirOperation op, const MlirType t[MOE_OPNDS],
                                          int64_t m, int64_t n, int64_t e) {
  if (mlirLogicalResultIsFailure(verify_gate_up_rows(op, "", n)) ||
      mlirLogicalResultIsFailure(verify_moe_operand(op, "sfc", t[MOE_SFC], is_fp8, "f8E4M3FN", 5,
                                                    "atom rows x ceil(I/64) x 32 x 4 x 4")) ||
      mlirLogicalResultIsFailure(verify_f32_per(op, "gs", t[MOE_GS], e, "expert")))
    return mlirLogicalResultFailure();
  int64_t i = n == DYN ? DYN : n / 2;
  if (mlirLogicalResultIsFailure(agree(op, dim(t[MOE_C], 1), "N of 'c'", i, "I = N/2 of 'b'")) ||
      mlirLogicalResultIsFailure(agree(op, dim(t[MOE_SFC], 1), "dim 1 of 'sfc'",
                                       i == DYN ? DYN : ceil_div(i, MLIR_NVFP4_K_GRANULE),
                                       "ceil(I/64)")))
    return mlirLogicalResultFailure();
  static const int64_t kAtom[3] = {32, 4, 4};
  for (int d = 0; d < 3; ++d)
    if (dim(t[MOE_SFC], 2 + d) != kAtom[d])
      return fail(op, "operand 'sfc' must end in 32x4x4 (one 512-byte atom)");
  return verify_segment_rows(op, "sfc", dim(t[MOE_SFC], 0), m, e);
}

MlirLogicalResult mlirNvfp4MoeMatmulVerify(MlirOperation op) {
  MlirType t[MOE_OPNDS];
  bool opt[3], fused;
  if (mlirLogicalResultIsFailure(moe_operand_types(op, t, opt)) ||
      mlirLogicalResultIsFailure(verify_epilogue(op, opt[1], opt[2], &fused)))
    return mlirLogicalResultFailure();
  static const char *const ab_shape[2] = {"M x K", "E x N x K"};
  if (mlirLogicalResultIsFailure(verify_moe_operand(op, "a", t[MOE_A], is_fp4, "f4E2M1FN", 2, ab_shape[0])) ||
      mlirLogicalResultIsFailure(verify_moe_operand(op, "b", t[MOE_B], is_fp4, "f4E2M1FN", 3, ab_shape[1])) ||
      mlirLogicalResultIsFailure(verify_moe_operand(op, "sfa", t[MOE_SFA], is_fp8, "f8E4M3FN", 5,
                                                    "atom rows x ceil(K/64) x 32 x 4 x 4")) ||
      mlirLogicalResultIsFailure(verify_moe_operand(op, "sfb", t[MOE_SFB], is_fp8, "f8E4M3FN", 6,
                                                    "E x ceil(N/128) x ceil(K/64) x 32 x 4 x 4")) ||
      mlirLogicalResultIsFailure(verify_moe_operand_as(op, "c", t[MOE_C], fused ? is_fp4 : is_c_elt,
                                                       fused ? "f4E2M1FN (epilogue = \"" FUSED_EPILOGUE "\")"
                                                             : kElementNames[OPND_C],
                                                       2, fused ? "M x I" : "M x N", fused)) ||
      mlirLogicalResultIsFailure(verify_moe_operand(op, "offsets", t[MOE_OFFSETS], is_i32, "i32 (signless)", 1, "E + 1")))
    return mlirLogicalResultFailure();
  if (mlirLogicalResultIsFailure(verify_placement(op))) return mlirLogicalResultFailure();

  int64_t e = dim(t[MOE_B], 0);
  if (e == DYN)
    return fail(op, "the expert count (dim 0 of 'b') must be static");
  if (e < 1 || e > (int64_t)NVFP4_ABI_MAX_GROUPS)
    return fail(op, "supports 1 to %u experts, got %lld", NVFP4_ABI_MAX_GROUPS, (long long)e);
  if (mlirLogicalResultIsFailure(agree(op, dim(t[MOE_SFB], 0), "dim 0 of 'sfb'", e, "the expert count")) ||
      mlirLogicalResultIsFailure(agree(op, dim(t[MOE_OFFSETS], 0), "the length of 'offsets'", e + 1,
                                       "the expert count + 1")))
    return mlirLogicalResultFailure();
  if (opt[0] && mlirLogicalResultIsFailure(verify_alpha(op, t[MOE_ALPHA], e, "expert")))
    return mlirLogicalResultFailure();

  int64_t m = dim(t[MOE_A], 0), k = dim(t[MOE_A], 1), n = dim(t[MOE_B], 1);
  if ((k == DYN) != (dim(t[MOE_B], 2) == DYN))
    return fail(op, "K of 'a' and 'b' must both be static or both dynamic");
  if (mlirLogicalResultIsFailure(agree(op, k, "K of 'a'", dim(t[MOE_B], 2), "K of 'b'")))
    return mlirLogicalResultFailure();
  if (k != DYN && (k <= 0 || k % MLIR_NVFP4_K_GRANULE != 0))
    return fail(op, "K must be a multiple of %d, got %lld", (int)MLIR_NVFP4_K_GRANULE, (long long)k);
  if (mlirLogicalResultIsFailure(agree(op, m, "M of 'a'", dim(t[MOE_C], 0), "M of 'c'")) ||
      (!fused && mlirLogicalResultIsFailure(agree(op, n, "N of 'b'", dim(t[MOE_C], 1), "N of 'c'"))))
    return mlirLogicalResultFailure();
  if (m == DYN) m = dim(t[MOE_C], 0);
  if (n == DYN && dim(t[MOE_C], 1) != DYN) n = dim(t[MOE_C], 1) * (fused ? 2 : 1);
  if (fused && mlirLogicalResultIsFailure(verify_moe_fused(op, t, m, n, e)))
    return mlirLogicalResultFailure();
  static const int64_t kAtom[3] = {32, 4, 4};
  for (int i = 0; i < 3; ++i)
    if (dim(t[MOE_SFA], 2 + i) != kAtom[i] || dim(t[MOE_SFB], 3 + i) != kAtom[i])
      return fail(op, "operands 'sfa' and 'sfb' must end in 32x4x4 (one 512-byte atom)");
  int64_t kb = k == DYN ? DYN : ceil_div(k, MLIR_NVFP4_K_GRANULE);
  if (mlirLogicalResultIsFailure(agree(op, dim(t[MOE_SFA], 1), "dim 1 of 'sfa'", kb, "ceil(K/64)")) ||
      mlirLogicalResultIsFailure(agree(op, dim(t[MOE_SFB], 2), "dim 2 of 'sfb'", kb, "ceil(K/64)")) ||
      mlirLogicalResultIsFailure(agree(op, dim(t[MOE_SFA], 1), "dim 1 of 'sfa'", dim(t[MOE_SFB], 2),
                                       "dim 2 of 'sfb'")) ||
      mlirLogicalResultIsFailure(agree(op, dim(t[MOE_SFB], 1), "dim 1 of 'sfb'",
                                       n == DYN ? DYN : ceil_div(n, MLIR_NVFP4_SF_ATOM_ROWS),
                                       "ceil(N/128)")))
    return mlirLogicalResultFailure();
  if (mlirLogicalResultIsFailure(verify_segment_rows(op, "sfa", dim(t[MOE_SFA], 0), m, e)) ||
      mlirLogicalResultIsFailure(verify_dim_bound(op, -1, "M", m)) ||
      mlirLogicalResultIsFailure(verify_dim_bound(op, -1, "K", k)))
    return mlirLogicalResultFailure();
  if (n != DYN && n > (int64_t)NVFP4_ABI_MAX_DIM / e) /* the weight rows of all experts */
    return fail(op, "E x N = %lld x %lld exceeds %u: the kernel's tensor coordinates are "
                    "signed 32-bit", (long long)e, (long long)n, NVFP4_ABI_MAX_DIM);
  return verify_attributes(op);
}
