/* DescriptorTests.c — golden-value unit tests of the tcgen05 descriptor encoders
 * (include/nvfp4-c/Descriptors.h). Prints one line per check ("PASS: ..." or
 * "FAIL: ..."), then a summary line; exits non-zero when any check fails.
 *
 * Golden values are either hardware-verified constants of the reference kernels or derived
 * by hand, field by field, from the PTX ISA tables (derivations next to each constant).
 */
#include "nvfp4-c/Descriptors.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int gPassed = 0;
static int gFailed = 0;

static void check(bool ok, const char *name, const char *detail) {
  if (ok) {
    ++gPassed;
    printf("PASS: %s\n", name);
  } else {
    ++gFailed;
    printf("FAIL: %s%s%s\n", name, detail[0] ? ": " : "", detail);
  }
}

static void checkU32(const char *name, uint32_t got, uint32_t expected) {
  char detail[128];
  snprintf(detail, sizeof detail, "got 0x%08" PRIX32 ", expected 0x%08" PRIX32, got,
           expected);
  char label[256];
  snprintf(label, sizeof label, "%s = 0x%08" PRIX32, name, expected);
  check(got == expected, label, detail);
}

static void checkU64(const char *name, uint64_t got, uint64_t expected) {
  char detail[128];
  snprintf(detail, sizeof detail, "got 0x%016" PRIX64 ", expected 0x%016" PRIX64, got,
           expected);
  char label[256];
  snprintf(label, sizeof label, "%s = 0x%016" PRIX64, name, expected);
  check(got == expected, label, detail);
}

/* ---- helpers building descriptors ------------------------------------------------------ */

static MlirNvfp4BlockScaledInstrDescriptor nvf4(uint32_t m, uint32_t n) {
  MlirNvfp4BlockScaledInstrDescriptor d = {
      .kind = MLIR_NVFP4_KIND_MXF4NVF4, .m = m, .n = n,
      .aFormat = MLIR_NVFP4_MXF4_FORMAT_E2M1, .bFormat = MLIR_NVFP4_MXF4_FORMAT_E2M1,
      .scaleType = MLIR_NVFP4_SCALE_UE4M3, .scaleVecSize = 16,
      .aMajor = MLIR_NVFP4_MAJOR_K, .bMajor = MLIR_NVFP4_MAJOR_K,
      .negateA = false, .negateB = false, .sfaId = 0, .sfbId = 0, .sparse = false};
  return d;
}

static MlirNvfp4SmemDescriptor smem(uint32_t start, uint32_t lbo, uint32_t sbo,
                                    uint32_t base, bool abs, MlirNvfp4Swizzle sw) {
  MlirNvfp4SmemDescriptor d = {.startAddress = start, .leadingByteOffset = lbo,
                               .strideByteOffset = sbo, .baseOffset = base,
                               .lboAbsolute = abs, .swizzle = sw};
  return d;
}

static MlirNvfp4DenseInstrDescriptor dense(MlirNvfp4DenseKind kind, uint32_t m, uint32_t n,
                                           uint32_t dFmt, uint32_t aFmt, uint32_t bFmt) {
  MlirNvfp4DenseInstrDescriptor d = {
      .kind = kind, .m = m, .n = n, .dFormat = dFmt, .aFormat = aFmt, .bFormat = bFmt,
      .aMajor = MLIR_NVFP4_MAJOR_K, .bMajor = MLIR_NVFP4_MAJOR_K, .negateA = false,
      .negateB = false, .saturate = false, .sparse = false, .sparsitySelector = 0};
  return d;
}

static bool smemEqual(MlirNvfp4SmemDescriptor a, MlirNvfp4SmemDescriptor b) {
  return a.startAddress == b.startAddress && a.leadingByteOffset == b.leadingByteOffset &&
         a.strideByteOffset == b.strideByteOffset && a.baseOffset == b.baseOffset &&
         a.lboAbsolute == b.lboAbsolute && a.swizzle == b.swizzle;
}

static bool bsEqual(MlirNvfp4BlockScaledInstrDescriptor a,
                    MlirNvfp4BlockScaledInstrDescriptor b) {
  return a.kind == b.kind && a.m == b.m && a.n == b.n && a.aFormat == b.aFormat &&
         a.bFormat == b.bFormat && a.scaleType == b.scaleType &&
         a.scaleVecSize == b.scaleVecSize && a.aMajor == b.aMajor && a.bMajor == b.bMajor &&
         a.negateA == b.negateA && a.negateB == b.negateB && a.sfaId == b.sfaId &&
         a.sfbId == b.sfbId && a.sparse == b.sparse;
}

/* A valid descriptor must validate with an empty message. */
static void expectValidSmem(const char *name, MlirNvfp4SmemDescriptor d) {
  char msg[256] = "x";
  bool ok = mlirNvfp4SmemDescriptorIsValid(d, msg, sizeof msg);
  char label[256];
  snprintf(label, sizeof label, "valid smem desc: %s", name);
  check(ok && msg[0] == '\0', label, msg);
}

/* An invalid one must be rejected with a non-empty message (printed). */
static void expectInvalidSmem(const char *name, MlirNvfp4SmemDescriptor d) {
  char msg[256] = "";
  bool ok = mlirNvfp4SmemDescriptorIsValid(d, msg, sizeof msg);
  char label[512];
  snprintf(label, sizeof label, "rejects smem desc: %s (%s)", name, msg);
  check(!ok && msg[0] != '\0', label, ok ? "accepted" : "no message");
}

static void expectValidBs(const char *name, MlirNvfp4BlockScaledInstrDescriptor d,
                          uint32_t ctaGroup) {
  char msg[256] = "x";
  bool ok = mlirNvfp4BlockScaledInstrDescriptorIsValidForCtaGroup(d, ctaGroup, msg,
                                                                  sizeof msg);
  char label[256];
  snprintf(label, sizeof label, "valid idesc: %s", name);
  check(ok && msg[0] == '\0', label, msg);
}

static void expectInvalidBs(const char *name, MlirNvfp4BlockScaledInstrDescriptor d,
                            uint32_t ctaGroup) {
  char msg[256] = "";
  bool ok = mlirNvfp4BlockScaledInstrDescriptorIsValidForCtaGroup(d, ctaGroup, msg,
                                                                  sizeof msg);
  char label[512];
  snprintf(label, sizeof label, "rejects idesc: %s (%s)", name, msg);
  check(!ok && msg[0] != '\0', label, ok ? "accepted" : "no message");
}

static void expectValidDense(const char *name, MlirNvfp4DenseInstrDescriptor d) {
  char msg[256] = "x";
  bool ok = mlirNvfp4DenseInstrDescriptorIsValid(d, msg, sizeof msg);
  char label[256];
  snprintf(label, sizeof label, "valid dense idesc: %s", name);
  check(ok && msg[0] == '\0', label, msg);
}

static void expectInvalidDense(const char *name, MlirNvfp4DenseInstrDescriptor d) {
  char msg[256] = "";
  bool ok = mlirNvfp4DenseInstrDescriptorIsValid(d, msg, sizeof msg);
  char label[512];
  snprintf(label, sizeof label, "rejects dense idesc: %s (%s)", name, msg);
  check(!ok && msg[0] != '\0', label, ok ? "accepted" : "no message");
}

/* ======================================================================================
 * Block-scaled instruction descriptors
 * ====================================================================================== */
static void testBlockScaledGoldens(void) {
  /* mxf4nvf4, E2M1 x E2M1, UE4M3, block16, K-major, M=N=128 (hardware-verified):
   *   atype E2M1=1 << 7  = 0x00000080
   *   btype E2M1=1 << 10 = 0x00000400
   *   N>>3 = 16    << 17 = 0x00200000
   *   scale UE4M3 = 0 << 23
   *   M>>7 = 1     << 27 = 0x08000000
   *   total               0x08200480 */
  checkU32("idesc mxf4nvf4 M=128 N=128", mlirNvfp4Mxf4Nvf4InstrDescriptor(128, 128),
           0x08200480u);
  checkU32("idesc mxf4nvf4 M=128 N=128 (struct)",
           mlirNvfp4EncodeBlockScaledInstrDescriptor(nvf4(128, 128)), 0x08200480u);
  /* N=64: N>>3 = 8 << 17 = 0x00100000; 0x80 | 0x400 | 0x00100000 | 0x08000000 */
  checkU32("idesc mxf4nvf4 M=128 N=64", mlirNvfp4Mxf4Nvf4InstrDescriptor(128, 64),
           0x08100480u);
  /* N=192: N>>3 = 24 (0b011000) << 17 = 0x00300000; total 0x08300480 */
  checkU32("idesc mxf4nvf4 M=128 N=192", mlirNvfp4Mxf4Nvf4InstrDescriptor(128, 192),
           0x08300480u);
  /* N=256: N>>3 = 32 (0b100000, top bit of the 6-bit field) << 17 = 0x00400000;
   * total 0x08400480 */
  checkU32("idesc mxf4nvf4 M=128 N=256", mlirNvfp4Mxf4Nvf4InstrDescriptor(128, 256),
           0x08400480u);
  /* N=8 (smallest): N>>3 = 1 << 17 = 0x00020000; total 0x08020480 */
  checkU32("idesc mxf4nvf4 M=128 N=8", mlirNvfp4Mxf4Nvf4InstrDescriptor(128, 8),
           0x08020480u);
  /* M=64 is not representable for block-scaled kinds: M>>7 = 0, so the M field (bits
   * 27-28) is 0: 0x80 | 0x400 | 0x00200000 = 0x00200480 (rejected by the validator). */
  checkU32("idesc mxf4nvf4 M=64 N=128 encodes M field 0",
           mlirNvfp4Mxf4Nvf4InstrDescriptor(64, 128), 0x00200480u);

  /* mxf4nvf4 with UE8M0 scales, block32 (scale_vec::2X), SFA id 2, SFB id 2, N=128:
   *   SFB id 2 << 4  = 0x00000020
   *   atype 1  << 7  = 0x00000080
   *   btype 1  << 10 = 0x00000400
   *   N>>3 16  << 17 = 0x00200000
   *   UE8M0 1  << 23 = 0x00800000
   *   M>>7 1   << 27 = 0x08000000
   *   SFA id 2 << 29 = 0x40000000
   *   total            0x48A004A0 */
  MlirNvfp4BlockScaledInstrDescriptor d = nvf4(128, 128);
  d.scaleType = MLIR_NVFP4_SCALE_UE8M0;
  d.scaleVecSize = 32;
  d.sfaId = 2;
  d.sfbId = 2;
  checkU32("idesc mxf4nvf4 UE8M0 block32 ids 2/2 N=128",
           mlirNvfp4EncodeBlockScaledInstrDescriptor(d), 0x48A004A0u);
  expectValidBs("mxf4nvf4 UE8M0 block32 ids 2/2", d, 1);

  /* mxf4, UE8M0, block32, N=256:
   *   0x80 | 0x400 | (32 << 17 = 0x00400000) | (1 << 23 = 0x00800000) | 0x08000000
   *   = 0x08C00480 */
  d = nvf4(128, 256);
  d.kind = MLIR_NVFP4_KIND_MXF4;
  d.scaleType = MLIR_NVFP4_SCALE_UE8M0;
  d.scaleVecSize = 32;
  checkU32("idesc mxf4 UE8M0 N=256", mlirNvfp4EncodeBlockScaledInstrDescriptor(d),
           0x08C00480u);
  expectValidBs("mxf4 UE8M0 N=256", d, 1);

  /* mxf8f6f4, E4M3 x E4M3, UE8M0, A MN-major, N=256:
   *   atype E4M3=0, btype E4M3=0
   *   transpose A 1 << 15 = 0x00008000
   *   N>>3 32 << 17       = 0x00400000
   *   UE8M0 1 << 23       = 0x00800000
   *   M>>7 1 << 27        = 0x08000000
   *   total                 0x08C08000 */
  MlirNvfp4BlockScaledInstrDescriptor f8 = {
      .kind = MLIR_NVFP4_KIND_MXF8F6F4, .m = 128, .n = 256,
      .aFormat = MLIR_NVFP4_MXF8F6F4_FORMAT_E4M3, .bFormat = MLIR_NVFP4_MXF8F6F4_FORMAT_E4M3,
      .scaleType = MLIR_NVFP4_SCALE_UE8M0, .scaleVecSize = 32,
      .aMajor = MLIR_NVFP4_MAJOR_MN, .bMajor = MLIR_NVFP4_MAJOR_K,
      .negateA = false, .negateB = false, .sfaId = 0, .sfbId = 0, .sparse = false};
  checkU32("idesc mxf8f6f4 E4M3 A MN-major N=256",
           mlirNvfp4EncodeBlockScaledInstrDescriptor(f8), 0x08C08000u);
  expectValidBs("mxf8f6f4 E4M3 A MN-major", f8, 1);

  /* mxf8f6f4, E2M1 x E2M1 (code 5), UE8M0, K-major, N=128, SFA id 3, SFB id 1:
   *   SFB id 1 << 4  = 0x00000010
   *   atype 5  << 7  = 0x00000280
   *   btype 5  << 10 = 0x00001400
   *   N>>3 16  << 17 = 0x00200000
   *   UE8M0    << 23 = 0x00800000
   *   M>>7 1   << 27 = 0x08000000
   *   SFA id 3 << 29 = 0x60000000
   *   total            0x68A01690 */
  f8.aFormat = MLIR_NVFP4_MXF8F6F4_FORMAT_E2M1;
  f8.bFormat = MLIR_NVFP4_MXF8F6F4_FORMAT_E2M1;
  f8.aMajor = MLIR_NVFP4_MAJOR_K;
  f8.n = 128;
  f8.sfaId = 3;
  f8.sfbId = 1;
  checkU32("idesc mxf8f6f4 E2M1 ids 3/1 N=128",
           mlirNvfp4EncodeBlockScaledInstrDescriptor(f8), 0x68A01690u);
  expectValidBs("mxf8f6f4 E2M1 ids 3/1", f8, 1);

  /* mxf4nvf4 N=128 with negate A and sparse: 0x08200480 | (1 << 13 = 0x2000) |
   * (1 << 2 = 0x4) = 0x08202484 */
  d = nvf4(128, 128);
  d.negateA = true;
  d.sparse = true;
  checkU32("idesc mxf4nvf4 negA sparse N=128", mlirNvfp4EncodeBlockScaledInstrDescriptor(d),
           0x08202484u);
  expectValidBs("mxf4nvf4 negA sparse", d, 1);

  /* cta_group::2, M=256, N=256: M>>7 = 2 << 27 = 0x10000000; N 0x00400000;
   * 0x80 | 0x400 -> 0x10400480 */
  d = nvf4(256, 256);
  checkU32("idesc mxf4nvf4 M=256 N=256 (cta_group::2)",
           mlirNvfp4EncodeBlockScaledInstrDescriptor(d), 0x10400480u);
  expectValidBs("mxf4nvf4 M=256 N=256 cta_group::2", d, 2);
  expectInvalidBs("M=256 with cta_group::1", d, 1);

  /* Every N of the kernel's tile menu and every legal cta_group::1 N validates. */
  bool allN = true;
  for (uint32_t n = 8; n <= 256; n += 8)
    allN = allN && mlirNvfp4BlockScaledInstrDescriptorIsValid(nvf4(128, n), NULL, 0);
  check(allN, "valid idesc: mxf4nvf4 M=128, every N in 8..256 step 8", "");
  expectValidBs("mxf4nvf4 M=128 N=128", nvf4(128, 128), 1);
  expectValidBs("mxf4nvf4 M=128 N=64", nvf4(128, 64), 1);
  expectValidBs("mxf4nvf4 M=128 N=192", nvf4(128, 192), 1);
  expectValidBs("mxf4nvf4 M=128 N=256", nvf4(128, 256), 1);
}

static void testBlockScaledRoundTrip(void) {
  bool ok = true;
  MlirNvfp4BlockScaledInstrDescriptor cases[6];
  cases[0] = nvf4(128, 128);
  cases[1] = nvf4(128, 8);
  cases[2] = nvf4(256, 256);
  cases[3] = nvf4(128, 200);
  cases[3].negateB = true;
  cases[3].sparse = true;
  cases[4] = nvf4(128, 64);
  cases[4].scaleType = MLIR_NVFP4_SCALE_UE8M0;
  cases[4].scaleVecSize = 32;
  cases[4].sfaId = 2;
  cases[4].sfbId = 0;
  cases[5] = nvf4(128, 96);
  cases[5].kind = MLIR_NVFP4_KIND_MXF8F6F4;
  cases[5].aFormat = MLIR_NVFP4_MXF8F6F4_FORMAT_E5M2;
  cases[5].bFormat = MLIR_NVFP4_MXF8F6F4_FORMAT_E3M2;
  cases[5].scaleType = MLIR_NVFP4_SCALE_UE8M0;
  cases[5].scaleVecSize = 32;
  cases[5].aMajor = MLIR_NVFP4_MAJOR_MN;
  cases[5].sfaId = 1;
  cases[5].sfbId = 3;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    uint32_t bits = mlirNvfp4EncodeBlockScaledInstrDescriptor(cases[i]);
    MlirNvfp4BlockScaledInstrDescriptor back =
        mlirNvfp4DecodeBlockScaledInstrDescriptor(cases[i].kind, cases[i].scaleVecSize, bits);
    ok = ok && bsEqual(back, cases[i]) &&
         mlirNvfp4EncodeBlockScaledInstrDescriptor(back) == bits;
  }
  check(ok, "idesc decode(encode(x)) == x (6 descriptors)", "");
}

static void testBlockScaledInvalid(void) {
  MlirNvfp4BlockScaledInstrDescriptor d;
  expectInvalidBs("illegal M=64 (block-scaled needs M=128 with cta_group::1)",
                  nvf4(64, 128), 1);
  expectInvalidBs("illegal M=64 with cta_group::2", nvf4(64, 128), 2);
  expectInvalidBs("illegal M=192", nvf4(192, 128), 1);
  expectInvalidBs("illegal N=0", nvf4(128, 0), 1);
  expectInvalidBs("illegal N=4", nvf4(128, 4), 1);
  expectInvalidBs("illegal N=12 (not a multiple of 8)", nvf4(128, 12), 1);
  expectInvalidBs("illegal N=264", nvf4(128, 264), 1);
  expectInvalidBs("illegal N=24 with cta_group::2 (steps of 16)", nvf4(128, 24), 2);
  d = nvf4(128, 128);
  d.sparse = true;
  expectInvalidBs("sparse M=128 with cta_group::2", d, 2);
  expectInvalidBs("cta_group::3", nvf4(128, 128), 3);

  d = nvf4(128, 128);
  d.aFormat = MLIR_NVFP4_MXF8F6F4_FORMAT_E2M1; /* 5: the mxf8f6f4 code, wrong here */
  expectInvalidBs("wrong A format for mxf4nvf4 (5)", d, 1);
  d = nvf4(128, 128);
  d.bFormat = 0;
  expectInvalidBs("wrong B format for mxf4nvf4 (0)", d, 1);
  d = nvf4(128, 128);
  d.kind = MLIR_NVFP4_KIND_MXF4;
  d.scaleType = MLIR_NVFP4_SCALE_UE8M0;
  d.scaleVecSize = 32;
  d.aFormat = 2;
  expectInvalidBs("wrong A format for mxf4 (2)", d, 1);
  d = nvf4(128, 128);
  d.kind = MLIR_NVFP4_KIND_MXF8F6F4;
  d.scaleType = MLIR_NVFP4_SCALE_UE8M0;
  d.scaleVecSize = 32;
  d.aFormat = 2;
  d.bFormat = 0;
  expectInvalidBs("wrong A format for mxf8f6f4 (2)", d, 1);
  d.aFormat = 0;
  d.bFormat = 7;
  expectInvalidBs("wrong B format for mxf8f6f4 (7)", d, 1);

  d = nvf4(128, 128);
  d.scaleVecSize = 32;
  expectInvalidBs("mxf4nvf4 UE4M3 with block32", d, 1);
  d = nvf4(128, 128);
  d.scaleVecSize = 8;
  expectInvalidBs("scale vector size 8", d, 1);
  d = nvf4(128, 128);
  d.kind = MLIR_NVFP4_KIND_MXF4;
  expectInvalidBs("mxf4 with UE4M3 scales", d, 1);
  d.scaleType = MLIR_NVFP4_SCALE_UE8M0;
  d.scaleVecSize = 16;
  expectInvalidBs("mxf4 with block16", d, 1);
  d = nvf4(128, 128);
  d.kind = MLIR_NVFP4_KIND_MXF8F6F4;
  d.aFormat = d.bFormat = MLIR_NVFP4_MXF8F6F4_FORMAT_E4M3;
  d.scaleType = MLIR_NVFP4_SCALE_UE8M0;
  d.scaleVecSize = 16;
  expectInvalidBs("mxf8f6f4 with block16", d, 1);

  d = nvf4(128, 128);
  d.aMajor = MLIR_NVFP4_MAJOR_MN;
  expectInvalidBs("MN-major A for mxf4nvf4", d, 1);
  d = nvf4(128, 128);
  d.bMajor = MLIR_NVFP4_MAJOR_MN;
  expectInvalidBs("MN-major B for mxf4nvf4", d, 1);
  d = nvf4(128, 128);
  d.kind = MLIR_NVFP4_KIND_MXF8F6F4;
  d.aFormat = d.bFormat = MLIR_NVFP4_MXF8F6F4_FORMAT_E2M1;
  d.scaleType = MLIR_NVFP4_SCALE_UE8M0;
  d.scaleVecSize = 32;
  d.bMajor = MLIR_NVFP4_MAJOR_MN;
  expectInvalidBs("MN-major 4-bit B for mxf8f6f4", d, 1);

  d = nvf4(128, 128);
  d.sfbId = 2;
  expectInvalidBs("SFB id 2 with block16", d, 1);
  d = nvf4(128, 128);
  d.sfaId = 1;
  expectInvalidBs("SFA id 1 with block16", d, 1);
  d = nvf4(128, 128);
  d.scaleType = MLIR_NVFP4_SCALE_UE8M0;
  d.scaleVecSize = 32;
  d.sfaId = 1;
  expectInvalidBs("SFA id 1 with block32 (2X: 0 or 2)", d, 1);
  d = nvf4(128, 128);
  d.kind = MLIR_NVFP4_KIND_MXF8F6F4;
  d.aFormat = d.bFormat = MLIR_NVFP4_MXF8F6F4_FORMAT_E4M3;
  d.scaleType = MLIR_NVFP4_SCALE_UE8M0;
  d.scaleVecSize = 32;
  d.sfbId = 4;
  expectInvalidBs("SFB id 4 (does not fit 2 bits)", d, 1);
}

/* ======================================================================================
 * Dense instruction descriptors (M=64 shapes)
 * ====================================================================================== */
static void testDense(void) {
  /* kind::f8f6f4, E4M3 x E4M3 -> F32, M=64, N=128, K-major:
   *   dtype F32 1 << 4  = 0x00000010
   *   atype E4M3 0, btype E4M3 0
   *   N>>3 16     << 17 = 0x00200000
   *   M>>4 4      << 24 = 0x04000000
   *   total               0x04200010 */
  MlirNvfp4DenseInstrDescriptor d =
      dense(MLIR_NVFP4_DENSE_KIND_F8F6F4, 64, 128, MLIR_NVFP4_DTYPE_F32,
            MLIR_NVFP4_MXF8F6F4_FORMAT_E4M3, MLIR_NVFP4_MXF8F6F4_FORMAT_E4M3);
  checkU32("dense idesc f8f6f4 E4M3 M=64 N=128", mlirNvfp4EncodeDenseInstrDescriptor(d),
           0x04200010u);
  expectValidDense("f8f6f4 E4M3 M=64 N=128", d);

  /* kind::f16, BF16 x BF16 -> F32, M=64, N=64:
   *   dtype F32 1 << 4  = 0x00000010
   *   atype BF16 1 << 7 = 0x00000080
   *   btype BF16 1 << 10= 0x00000400
   *   N>>3 8     << 17  = 0x00100000
   *   M>>4 4     << 24  = 0x04000000
   *   total               0x04100490 */
  d = dense(MLIR_NVFP4_DENSE_KIND_F16, 64, 64, MLIR_NVFP4_DTYPE_F32,
            MLIR_NVFP4_F16_FORMAT_BF16, MLIR_NVFP4_F16_FORMAT_BF16);
  checkU32("dense idesc f16 BF16 M=64 N=64", mlirNvfp4EncodeDenseInstrDescriptor(d),
           0x04100490u);
  expectValidDense("f16 BF16 M=64 N=64", d);

  /* kind::f16, F16 x F16 -> F16, M=128, N=256, both MN-major:
   *   dtype F16 0, atype F16 0, btype F16 0
   *   transpose A 1 << 15 = 0x00008000
   *   transpose B 1 << 16 = 0x00010000
   *   N>>3 32      << 17  = 0x00400000
   *   M>>4 8       << 24  = 0x08000000
   *   total                 0x08418000 */
  d = dense(MLIR_NVFP4_DENSE_KIND_F16, 128, 256, MLIR_NVFP4_DTYPE_F16,
            MLIR_NVFP4_F16_FORMAT_F16, MLIR_NVFP4_F16_FORMAT_F16);
  d.aMajor = MLIR_NVFP4_MAJOR_MN;
  d.bMajor = MLIR_NVFP4_MAJOR_MN;
  checkU32("dense idesc f16 F16 MN/MN M=128 N=256", mlirNvfp4EncodeDenseInstrDescriptor(d),
           0x08418000u);
  expectValidDense("f16 F16 MN/MN M=128 N=256", d);

  /* kind::i8, S8 x S8 -> S32, saturate, M=64, N=48:
   *   saturate 1 << 3   = 0x00000008
   *   dtype S32 2 << 4  = 0x00000020
   *   atype S8 1 << 7   = 0x00000080
   *   btype S8 1 << 10  = 0x00000400
   *   N>>3 6     << 17  = 0x000C0000
   *   M>>4 4     << 24  = 0x04000000
   *   total               0x040C04A8 */
  d = dense(MLIR_NVFP4_DENSE_KIND_I8, 64, 48, MLIR_NVFP4_DTYPE_S32, MLIR_NVFP4_I8_FORMAT_S8,
            MLIR_NVFP4_I8_FORMAT_S8);
  d.saturate = true;
  checkU32("dense idesc i8 S8 sat M=64 N=48", mlirNvfp4EncodeDenseInstrDescriptor(d),
           0x040C04A8u);
  expectValidDense("i8 S8 sat M=64 N=48", d);

  /* kind::tf32 -> F32, M=64, N=8, sparse with selector 2:
   *   selector 2 << 0 = 0x2; sparse 1 << 2 = 0x4; dtype F32 << 4 = 0x10;
   *   atype/btype TF32 2: 0x100 | 0x800; N>>3 1 << 17 = 0x20000; M>>4 4 << 24
   *   total 0x04020916 */
  d = dense(MLIR_NVFP4_DENSE_KIND_TF32, 64, 8, MLIR_NVFP4_DTYPE_F32,
            MLIR_NVFP4_TF32_FORMAT_TF32, MLIR_NVFP4_TF32_FORMAT_TF32);
  d.sparse = true;
  d.sparsitySelector = 2;
  checkU32("dense idesc tf32 sparse sel 2 M=64 N=8", mlirNvfp4EncodeDenseInstrDescriptor(d),
           0x04020916u);
  expectValidDense("tf32 sparse M=64 N=8", d);

  expectInvalidDense("illegal M=32",
                     dense(MLIR_NVFP4_DENSE_KIND_F16, 32, 64, MLIR_NVFP4_DTYPE_F32, 1, 1));
  expectInvalidDense("illegal M=256 (cta_group::1)",
                     dense(MLIR_NVFP4_DENSE_KIND_F16, 256, 64, MLIR_NVFP4_DTYPE_F32, 1, 1));
  expectInvalidDense("illegal N=40 for i8",
                     dense(MLIR_NVFP4_DENSE_KIND_I8, 64, 40, MLIR_NVFP4_DTYPE_S32, 1, 1));
  expectInvalidDense("illegal N=260",
                     dense(MLIR_NVFP4_DENSE_KIND_F16, 64, 260, MLIR_NVFP4_DTYPE_F32, 1, 1));
  d = dense(MLIR_NVFP4_DENSE_KIND_I8, 64, 64, MLIR_NVFP4_DTYPE_S32, 1, 1);
  d.negateA = true;
  expectInvalidDense("i8 negate", d);
  d = dense(MLIR_NVFP4_DENSE_KIND_F16, 64, 64, MLIR_NVFP4_DTYPE_F32, 0, 0);
  d.saturate = true;
  expectInvalidDense("f16 saturate", d);
  expectInvalidDense("f16 mixed F16 x BF16",
                     dense(MLIR_NVFP4_DENSE_KIND_F16, 64, 64, MLIR_NVFP4_DTYPE_F32, 0, 1));
  expectInvalidDense("f16 BF16 with F16 accumulator",
                     dense(MLIR_NVFP4_DENSE_KIND_F16, 64, 64, MLIR_NVFP4_DTYPE_F16, 1, 1));
  expectInvalidDense("tf32 with F16 accumulator",
                     dense(MLIR_NVFP4_DENSE_KIND_TF32, 64, 64, MLIR_NVFP4_DTYPE_F16, 2, 2));
  expectInvalidDense("wrong format for f8f6f4 (2)",
                     dense(MLIR_NVFP4_DENSE_KIND_F8F6F4, 64, 64, MLIR_NVFP4_DTYPE_F32, 2, 0));
  d = dense(MLIR_NVFP4_DENSE_KIND_F8F6F4, 64, 64, MLIR_NVFP4_DTYPE_F32,
            MLIR_NVFP4_MXF8F6F4_FORMAT_E2M1, MLIR_NVFP4_MXF8F6F4_FORMAT_E2M1);
  d.aMajor = MLIR_NVFP4_MAJOR_MN;
  expectInvalidDense("MN-major 4-bit A for f8f6f4", d);
}

/* ======================================================================================
 * Shared memory descriptors
 * ====================================================================================== */
static void testSmemGoldens(void) {
  /* K-major SWIZZLE_128B operand, address 0 (hardware-verified constant part):
   *   start 0
   *   LBO 0 (unused for swizzled K-major)
   *   SBO 1024 >> 4 = 64 << 32 = 0x0000004000000000
   *   fixed 0b001 at 46        = 0x0000400000000000
   *   base offset 0, LBO mode 0
   *   swizzle 2 << 61          = 0x4000000000000000
   *   total                      0x4000404000000000 */
  checkU64("operand smem desc @0", mlirNvfp4OperandSmemDescriptor(0), 0x4000404000000000ull);
  /* +32 B (one K=64 FP4 step) adds 32 >> 4 = 2 to bits 0-13. */
  checkU64("operand smem desc @32 - @0",
           mlirNvfp4OperandSmemDescriptor(32) - mlirNvfp4OperandSmemDescriptor(0), 2ull);
  /* 0x400 >> 4 = 0x40 -> 0x4000404000000040 */
  checkU64("operand smem desc @0x400", mlirNvfp4OperandSmemDescriptor(0x400),
           0x4000404000000040ull);
  /* 0x1A400 >> 4 = 0x1A40 -> 0x4000404000001A40 */
  checkU64("operand smem desc @0x1A400", mlirNvfp4OperandSmemDescriptor(0x1A400),
           0x4000404000001A40ull);
  bool steps = true;
  for (uint32_t k = 0; k < 4; ++k)
    steps = steps && mlirNvfp4OperandSmemDescriptor(0x8000 + 32u * k) ==
                         mlirNvfp4OperandSmemDescriptor(0x8000) + 2ull * k;
  check(steps, "operand smem desc: K step k of a stage adds 2k (k = 0..3)", "");

  /* tcgen05.cp .32x128b source, one 512-B SF atom, address 0 (hardware-verified):
   *   LBO 0; SBO 128 >> 4 = 8 << 32 = 0x0000000800000000
   *   fixed 0b001 at 46            = 0x0000400000000000
   *   swizzle none 0
   *   total                          0x0000400800000000 */
  checkU64("SF copy desc @0", mlirNvfp4ScaleFactorCopyDescriptor(0), 0x0000400800000000ull);
  /* +512 B adds 512 >> 4 = 32 (0x20). */
  checkU64("SF copy desc @512 - @0",
           mlirNvfp4ScaleFactorCopyDescriptor(512) - mlirNvfp4ScaleFactorCopyDescriptor(0),
           32ull);
  /* 0x8200 >> 4 = 0x820 -> 0x0000400800000820 */
  checkU64("SF copy desc @0x8200", mlirNvfp4ScaleFactorCopyDescriptor(0x8200),
           0x0000400800000820ull);

  /* PTX ISA canonical-layout example "K-major, no-swizzling, tf32": LBO encoding 16
   * (256 B), SBO encoding 8 (128 B), at address 0:
   *   LBO 16 << 16 = 0x0000000000100000; SBO 8 << 32 = 0x0000000800000000;
   *   fixed bit 46 = 0x0000400000000000; total 0x0000400800100000 */
  MlirNvfp4SmemDescriptor kNoSw = smem(0, 256, 128, 0, false, MLIR_NVFP4_SWIZZLE_NONE);
  checkU64("smem desc ISA example K-major none tf32", mlirNvfp4EncodeSmemDescriptor(kNoSw),
           0x0000400800100000ull);
  expectValidSmem("ISA example K-major none", kNoSw);

  /* PTX ISA example "MN-major, 64B swizzling, bf16": LBO encoding 32 (512 B), SBO
   * encoding 64 (1024 B), at address 0x2000:
   *   start 0x2000 >> 4 = 0x200; LBO 32 << 16 = 0x200000; SBO 64 << 32 = 0x4000000000;
   *   fixed bit 46 = 0x400000000000; swizzle 4 << 61 = 0x8000000000000000;
   *   total 0x8000404000200200 */
  MlirNvfp4SmemDescriptor mn64 = smem(0x2000, 512, 1024, 0, false, MLIR_NVFP4_SWIZZLE_64B);
  checkU64("smem desc ISA example MN-major 64B bf16 @0x2000",
           mlirNvfp4EncodeSmemDescriptor(mn64), 0x8000404000200200ull);
  expectValidSmem("ISA example MN-major 64B", mn64);

  /* SWIZZLE_128B, base offset 5, start 0x1080, SBO 1024:
   *   start 0x108; SBO 64 << 32 = 0x0000004000000000; bit 46 = 0x0000400000000000;
   *   base 5 << 49 = 0x000A000000000000; swizzle 2 << 61 = 0x4000000000000000;
   *   total 0x400A404000000108 */
  MlirNvfp4SmemDescriptor based = smem(0x1080, 0, 1024, 5, false, MLIR_NVFP4_SWIZZLE_128B);
  checkU64("smem desc 128B base offset 5 @0x1080", mlirNvfp4EncodeSmemDescriptor(based),
           0x400A404000000108ull);
  expectValidSmem("128B base offset 5", based);

  /* SWIZZLE_32B (6 << 61 = 0xC000000000000000), SBO 256 (16 << 32), LBO 16 (1 << 16):
   *   total 0xC000401000010000 */
  MlirNvfp4SmemDescriptor sw32 = smem(0, 16, 256, 0, false, MLIR_NVFP4_SWIZZLE_32B);
  checkU64("smem desc 32B SBO 256 LBO 16", mlirNvfp4EncodeSmemDescriptor(sw32),
           0xC000401000010000ull);
  expectValidSmem("32B SBO 256 LBO 16", sw32);

  /* SWIZZLE_128B_BASE32B (1 << 61 = 0x2000000000000000), SBO 1024, start 0x400:
   *   total 0x2000404000000040 */
  MlirNvfp4SmemDescriptor sw128b32 =
      smem(0x400, 0, 1024, 0, false, MLIR_NVFP4_SWIZZLE_128B_BASE32B);
  checkU64("smem desc 128B/32B-atom @0x400", mlirNvfp4EncodeSmemDescriptor(sw128b32),
           0x2000404000000040ull);
  expectValidSmem("128B/32B-atom", sw128b32);

  /* Absolute LBO mode, 128B swizzle, start 0x2000, LBO address 0x3000, SBO 1024:
   *   start 0x200; LBO 0x300 << 16 = 0x03000000; SBO 0x0000004000000000;
   *   bit 46 0x0000400000000000; bit 52 0x0010000000000000; swizzle 0x4000000000000000;
   *   total 0x4010404003000200 */
  MlirNvfp4SmemDescriptor abs = smem(0x2000, 0x3000, 1024, 0, true, MLIR_NVFP4_SWIZZLE_128B);
  checkU64("smem desc absolute LBO 0x3000", mlirNvfp4EncodeSmemDescriptor(abs),
           0x4010404003000200ull);
  expectValidSmem("absolute LBO", abs);

  /* Largest encodable values: 0x3FFF0 -> 0x3FFF in each 14-bit field. */
  MlirNvfp4SmemDescriptor maxd = smem(0x3FFF0, 0x3FFF0, 0x3FFF0, 7, false,
                                      MLIR_NVFP4_SWIZZLE_128B);
  checkU64("smem desc max fields", mlirNvfp4EncodeSmemDescriptor(maxd),
           0x400E7FFF3FFF3FFFull);
  expectValidSmem("max fields", maxd);

  expectValidSmem("operand @0x1A400 (decoded)",
                  mlirNvfp4DecodeSmemDescriptor(mlirNvfp4OperandSmemDescriptor(0x1A400)));
  expectValidSmem("SF copy @0x8200 (decoded)",
                  mlirNvfp4DecodeSmemDescriptor(mlirNvfp4ScaleFactorCopyDescriptor(0x8200)));

  /* Round trips. */
  MlirNvfp4SmemDescriptor cases[] = {kNoSw, mn64, based, sw32, sw128b32, abs, maxd,
                                     smem(0x10, 0x20, 0x30, 0, false,
                                          MLIR_NVFP4_SWIZZLE_NONE)};
  bool rt = true;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    rt = rt && smemEqual(mlirNvfp4DecodeSmemDescriptor(mlirNvfp4EncodeSmemDescriptor(cases[i])),
                         cases[i]);
  check(rt, "smem decode(encode(x)) == x (8 descriptors)", "");
  /* Sweep: every 16-B aligned address with every legal swizzle. */
  static const MlirNvfp4Swizzle swz[] = {MLIR_NVFP4_SWIZZLE_NONE,
                                         MLIR_NVFP4_SWIZZLE_128B_BASE32B,
                                         MLIR_NVFP4_SWIZZLE_128B, MLIR_NVFP4_SWIZZLE_64B,
                                         MLIR_NVFP4_SWIZZLE_32B};
  bool sweep = true;
  for (uint32_t a = 0; a < MLIR_NVFP4_SMEM_DESC_BYTE_LIMIT; a += 16)
    for (size_t s = 0; s < 5; ++s) {
      MlirNvfp4SmemDescriptor x =
          smem(a, (a * 7u) & 0x3FFF0u, (a * 13u) & 0x3FFF0u,
               swz[s] == MLIR_NVFP4_SWIZZLE_NONE ? 0u : (a >> 4) & 7u, false, swz[s]);
      uint64_t bits = mlirNvfp4EncodeSmemDescriptor(x);
      sweep = sweep && smemEqual(mlirNvfp4DecodeSmemDescriptor(bits), x) &&
              mlirNvfp4SmemDescriptorBitsAreWellFormed(bits, NULL, 0) &&
              mlirNvfp4SmemDescriptorIsValid(x, NULL, 0);
    }
  check(sweep, "smem decode(encode(x)) == x, every 16-B address x 5 swizzles", "");
  uint64_t raw = 0x400A404000000108ull;
  check(mlirNvfp4EncodeSmemDescriptor(mlirNvfp4DecodeSmemDescriptor(raw)) == raw,
        "smem encode(decode(bits)) == bits", "");

  /* Raw-bit well-formedness. */
  char msg[256];
  check(mlirNvfp4SmemDescriptorBitsAreWellFormed(mlirNvfp4OperandSmemDescriptor(0), msg,
                                                 sizeof msg),
        "well-formed bits: operand desc", msg);
  check(!mlirNvfp4SmemDescriptorBitsAreWellFormed(0x4000004000000000ull, msg, sizeof msg),
        "rejects bits: fixed bit 46 clear", "accepted");
  check(!mlirNvfp4SmemDescriptorBitsAreWellFormed(0x6000404000000000ull, msg, sizeof msg),
        "rejects bits: swizzle code 3", "accepted");
  check(!mlirNvfp4SmemDescriptorBitsAreWellFormed(0x4020404000000000ull, msg, sizeof msg),
        "rejects bits: bit 53 set", "accepted");
  check(!mlirNvfp4SmemDescriptorBitsAreWellFormed(0x4000404000004000ull, msg, sizeof msg),
        "rejects bits: reserved bit 14 set", "accepted");
}

static void testSmemInvalid(void) {
  expectInvalidSmem("misaligned start address 0x1008",
                    smem(0x1008, 0, 1024, 0, false, MLIR_NVFP4_SWIZZLE_128B));
  expectInvalidSmem("misaligned LBO 24", smem(0, 24, 1024, 0, false, MLIR_NVFP4_SWIZZLE_NONE));
  expectInvalidSmem("misaligned SBO 1000",
                    smem(0, 0, 1000, 0, false, MLIR_NVFP4_SWIZZLE_128B));
  expectInvalidSmem("start address too large 0x40000",
                    smem(0x40000, 0, 1024, 0, false, MLIR_NVFP4_SWIZZLE_128B));
  expectInvalidSmem("LBO too large 0x40000",
                    smem(0, 0x40000, 1024, 0, false, MLIR_NVFP4_SWIZZLE_NONE));
  expectInvalidSmem("SBO too large 0x80000",
                    smem(0, 0, 0x80000, 0, false, MLIR_NVFP4_SWIZZLE_128B));
  expectInvalidSmem("base offset 8", smem(0, 0, 1024, 8, false, MLIR_NVFP4_SWIZZLE_128B));
  expectInvalidSmem("base offset without swizzle",
                    smem(0, 0, 128, 1, false, MLIR_NVFP4_SWIZZLE_NONE));
  expectInvalidSmem("illegal swizzle 3", smem(0, 0, 1024, 0, false, (MlirNvfp4Swizzle)3));
  expectInvalidSmem("illegal swizzle 5", smem(0, 0, 1024, 0, false, (MlirNvfp4Swizzle)5));
  expectInvalidSmem("illegal swizzle 7", smem(0, 0, 1024, 0, false, (MlirNvfp4Swizzle)7));
  expectInvalidSmem("illegal swizzle 8", smem(0, 0, 1024, 0, false, (MlirNvfp4Swizzle)8));
  expectInvalidSmem("absolute LBO with 64B swizzle",
                    smem(0, 0x2000, 1024, 0, true, MLIR_NVFP4_SWIZZLE_64B));
  expectInvalidSmem("absolute LBO with base offset",
                    smem(0, 0x2000, 1024, 1, true, MLIR_NVFP4_SWIZZLE_128B));
}

/* ======================================================================================
 * Tensor Memory addresses and the scale-factor layout
 * ====================================================================================== */
static void testTmem(void) {
  checkU32("tmem addr lane 0 col 0", mlirNvfp4TmemAddress(0, 0), 0u);
  /* lane 64 << 16 = 0x00400000, column 130 = 0x82 -> 0x00400082 */
  checkU32("tmem addr lane 64 col 130", mlirNvfp4TmemAddress(64, 130), 0x00400082u);
  /* lane 127 << 16 = 0x007F0000, column 511 = 0x1FF -> 0x007F01FF */
  checkU32("tmem addr lane 127 col 511", mlirNvfp4TmemAddress(127, 511), 0x007F01FFu);
  /* lane 32 (second sub-partition) col 256 -> 0x00200100 */
  checkU32("tmem addr lane 32 col 256", mlirNvfp4TmemAddress(32, 256), 0x00200100u);
  checkU32("tmem lane of 0x00600010", mlirNvfp4TmemLane(0x00600010u), 96u);
  checkU32("tmem column of 0x00600010", mlirNvfp4TmemColumn(0x00600010u), 16u);
  bool rt = true;
  for (uint32_t lane = 0; lane < MLIR_NVFP4_TMEM_LANES; ++lane)
    for (uint32_t col = 0; col < MLIR_NVFP4_TMEM_COLUMNS; ++col) {
      uint32_t a = mlirNvfp4TmemAddress(lane, col);
      rt = rt && mlirNvfp4TmemLane(a) == lane && mlirNvfp4TmemColumn(a) == col &&
           mlirNvfp4TmemAddressIsValid(lane, col, NULL, 0);
    }
  check(rt, "tmem lane/column round trip, all 128 x 512", "");
  char msg[256] = "";
  bool ok = mlirNvfp4TmemAddressIsValid(128, 0, msg, sizeof msg);
  char label[512];
  snprintf(label, sizeof label, "rejects tmem lane 128 (%s)", msg);
  check(!ok && msg[0], label, "accepted");
  msg[0] = '\0';
  ok = mlirNvfp4TmemAddressIsValid(0, 512, msg, sizeof msg);
  snprintf(label, sizeof label, "rejects tmem column 512 (%s)", msg);
  check(!ok && msg[0], label, "accepted");

  /* Scale-factor layout (block16): one column per 32 rows. */
  checkU32("SF columns per MMA, SFA M=128", mlirNvfp4ScaleFactorTmemColumnsPerMma(128), 4u);
  checkU32("SF columns per MMA, SFB N=64", mlirNvfp4ScaleFactorTmemColumnsPerMma(64), 2u);
  checkU32("SF columns per MMA, SFB N=128", mlirNvfp4ScaleFactorTmemColumnsPerMma(128), 4u);
  checkU32("SF columns per MMA, SFB N=192", mlirNvfp4ScaleFactorTmemColumnsPerMma(192), 6u);
  checkU32("SF columns per MMA, SFB N=256", mlirNvfp4ScaleFactorTmemColumnsPerMma(256), 8u);
  checkU32("SF columns per MMA, SFB N=8", mlirNvfp4ScaleFactorTmemColumnsPerMma(8), 1u);
  /* An N=64 tile starting at row 64 of its 128-row atom: rows 64..95 are column 2. */
  checkU32("SFB column offset, N=64 tile at atom row 64",
           mlirNvfp4ScaleFactorTmemColumnOffset(64), 2u);
  checkU32("SFB column offset, tile at atom row 0", mlirNvfp4ScaleFactorTmemColumnOffset(0),
           0u);
  /* Rows 128.. of a two-atom group start at column 4 (the second atom's copy). */
  checkU32("SFB column offset, row 128 (second atom)",
           mlirNvfp4ScaleFactorTmemColumnOffset(128), 4u);
}

/* The run-time fields a kernel ORs into a descriptor's constant part give exactly what the
 * encoders give, for every legal N (both CTA groups) and every encodable smem address. */
static void testRuntimeFields(void) {
  MlirNvfp4RuntimeField nf = mlirNvfp4BlockScaledInstrDescriptorNField();
  int bad = 0;
  for (uint32_t m = 128; m <= 256; m += 128)
    for (uint32_t n = 8; n <= 256; n += 8)
      bad += mlirNvfp4Mxf4Nvf4InstrDescriptor(m, n) !=
             (mlirNvfp4Mxf4Nvf4InstrDescriptor(m, 0) | (uint32_t)mlirNvfp4RuntimeFieldApply(nf, n));
  check(bad == 0, "idesc(m, n) == idesc(m, 0) | N field(n) for M 128/256, N 8..256", "");
  checkU32("idesc mxf4nvf4 M=256 N=256 (cta_group::2)", mlirNvfp4Mxf4Nvf4InstrDescriptor(256, 256),
           0x10400480u);
  checkU32("idesc mxf4nvf4 M=128 N=0 (run-time N base)", mlirNvfp4Mxf4Nvf4InstrDescriptor(128, 0),
           0x08000480u);
  MlirNvfp4RuntimeField sf = mlirNvfp4SmemDescriptorStartField();
  bad = 0;
  for (uint32_t a = 0; a < MLIR_NVFP4_SMEM_DESC_BYTE_LIMIT; a += 16) {
    bad += mlirNvfp4OperandSmemDescriptor(a) !=
           (mlirNvfp4OperandSmemDescriptor(0) | mlirNvfp4RuntimeFieldApply(sf, a));
    bad += mlirNvfp4ScaleFactorCopyDescriptor(a) !=
           (mlirNvfp4ScaleFactorCopyDescriptor(0) | mlirNvfp4RuntimeFieldApply(sf, a));
  }
  check(bad == 0, "smem desc(addr) == desc(0) | start field(addr) for every 16-B address", "");
}

int main(void) {
  testRuntimeFields();
  testBlockScaledGoldens();
  testBlockScaledRoundTrip();
  testBlockScaledInvalid();
  testDense();
  testSmemGoldens();
  testSmemInvalid();
  testTmem();
  printf("SUMMARY: %d passed, %d failed\n", gPassed, gFailed);
  return gFailed == 0 ? 0 : 1;
}
