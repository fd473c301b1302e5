/* DescriptorSm90Tests.c — host tests of include/nvfp4-c/DescriptorsSm90.h: the wgmma
 * matrix descriptor against golden values and its field checks; the FP4 x E4M3 -> BF16
 * decode the sm_90a kernel emits, exhaustively (every FP4 code in every nibble position and
 * pair, every E4M3 scale code) against an independent decode of the formats (docs/format.md),
 * including exactness and normality of every product in BF16; and the operand-layout model
 * against the wgmma A-fragment layout of the PTX ISA (a bijection onto k' = 0..63 that
 * agrees with the token buffer). Prints PASS/FAIL lines and a summary. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nvfp4-c/DescriptorsSm90.h"

static int gPassed, gFailed;

static void check(int ok, const char *what) {
  if (ok) {
    ++gPassed;
  } else {
    ++gFailed;
    printf("FAIL: %s\n", what);
  }
}

/* Independent decoders (docs/format.md: FP4 E2M1, FP8 E4M3). */
static double e2m1(unsigned code) {
  static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (code & 8) ? -mag[code & 7] : mag[code & 7];
}
static double e4m3(unsigned code) {
  unsigned e = (code >> 3) & 15, m = code & 7;
  if (e == 15 && m == 7) return NAN;
  double v = e ? ldexp(1.0 + m / 8.0, (int)e - 7) : ldexp(m / 8.0, -6);
  return (code & 0x80) ? -v : v;
}
/* Value of a BF16 bit pattern (exact, subnormals included). */
static double bf16(uint32_t bits) {
  bits &= 0xFFFF;
  unsigned s = bits >> 15, e = (bits >> 7) & 0xFF, m = bits & 0x7F;
  double v;
  if (e == 0xFF) v = m ? NAN : INFINITY;
  else if (e == 0) v = ldexp(m / 128.0, -126);
  else v = ldexp(1.0 + m / 128.0, (int)e - 127);
  return s ? -v : v;
}
/* Is v exactly a normal BF16 (or zero)? */
static int exactNormalBf16(double v) {
  if (v == 0) return 1;
  int ex;
  double f = frexp(fabs(v), &ex); /* v = f 2^ex, f in [0.5, 1) */
  if (ex - 1 < -126 || ex - 1 > 127) return 0;
  double q = ldexp(f, 8); /* 8 significant bits */
  return q == floor(q);
}

static void descriptorTests(void) {
  check(mlirNvfp4WgmmaOperandDescriptor(0) == 0x4000004000000000ull,
        "B operand descriptor constant part 0x4000004000000000 (SBO 1024, 128B swizzle)");
  check(mlirNvfp4WgmmaOperandDescriptor(0x12340) == (0x4000004000000000ull | 0x1234),
        "start address >> 4 in bits 0-13");
  MlirNvfp4WgmmaDescriptor d = {0x3FFF0, 0x100, 0x400, 3, MLIR_NVFP4_WGMMA_SWIZZLE_32B};
  uint64_t bits = mlirNvfp4EncodeWgmmaDescriptor(d);
  check(bits == (0x3FFFull | (0x10ull << 16) | (0x40ull << 32) | (3ull << 49) | (3ull << 62)),
        "every field at its bit position");
  MlirNvfp4WgmmaDescriptor r = mlirNvfp4DecodeWgmmaDescriptor(bits);
  check(r.startAddress == d.startAddress && r.leadingByteOffset == d.leadingByteOffset &&
            r.strideByteOffset == d.strideByteOffset && r.baseOffset == d.baseOffset &&
            r.swizzle == d.swizzle,
        "decode inverts encode");
  char msg[128];
  check(mlirNvfp4WgmmaDescriptorIsValid(d, msg, sizeof msg), "a valid descriptor is accepted");
  MlirNvfp4WgmmaDescriptor m = d;
  m.startAddress = 8;
  check(!mlirNvfp4WgmmaDescriptorIsValid(m, msg, sizeof msg) && strstr(msg, "16-byte"),
        "misaligned start address is rejected");
  m = d;
  m.strideByteOffset = 1u << 18;
  check(!mlirNvfp4WgmmaDescriptorIsValid(m, msg, sizeof msg) && strstr(msg, "256 KiB"),
        "SBO beyond the 14-bit field is rejected");
  m = d;
  m.baseOffset = 8;
  check(!mlirNvfp4WgmmaDescriptorIsValid(m, msg, sizeof msg), "base offset 8 is rejected");
}

static void decodeTests(void) {
  /* Every pair p, every (low, high) code pair, the other six nibbles filled with every
   * code in turn: R must be exactly the two values times 2^-126, whatever the neighbours. */
  int pairsOk = 1;
  for (unsigned p = 0; p < 4 && pairsOk; ++p)
    for (unsigned lo = 0; lo < 16; ++lo)
      for (unsigned hi = 0; hi < 16; ++hi)
        for (unsigned fill = 0; fill < 16; ++fill) {
          uint32_t x = 0;
          for (unsigned i = 0; i < 8; ++i) x |= ((fill + 5u * i) & 15u) << (4 * i);
          x &= ~((0xFu << (4 * p)) | (0xFu << (4 * (p + 4))));
          x |= (lo << (4 * p)) | (hi << (4 * (p + 4)));
          uint32_t R = mlirNvfp4Sm90Fp4Pair(x, p);
          if (bf16(R) != ldexp(e2m1(lo), -126) || bf16(R >> 16) != ldexp(e2m1(hi), -126)) {
            pairsOk = 0;
            printf("  pair %u lo %u hi %u fill %u: R = 0x%08x\n", p, lo, hi, fill, R);
            break;
          }
        }
  check(pairsOk, "pair p of a word is (n_p, n_{p+4}) as BF16 e2m1 * 2^-126, for every neighbour");

  /* Scale table: {S, S}, S = e4m3 * 2^119 exactly, NaN codes NaN, signs kept. */
  int tableOk = 1;
  for (unsigned c = 0; c < 256; ++c) {
    uint32_t t = mlirNvfp4Sm90ScaleTableEntry((uint8_t)c);
    double want = e4m3(c);
    double got = bf16(t), got2 = bf16(t >> 16);
    int ok = isnan(want) ? (isnan(got) && isnan(got2))
                         : (got == ldexp(want, MLIR_NVFP4_SM90_SCALE_EXPONENT) && got2 == got &&
                            signbit(got) == signbit(want));
    if (!ok) {
      tableOk = 0;
      printf("  scale code 0x%02x: entry 0x%08x\n", c, t);
    }
  }
  check(tableOk, "scale table: every E4M3 code -> BF16x2 {e4m3 * 2^119, e4m3 * 2^119}");

  /* The product R * S for every FP4 code and scale code: exactly e2m1 * e4m3 * 2^-7, a
   * normal BF16 (or zero), so the bf16x2 multiply is exact and the wgmma sees no
   * subnormal operand. Also record the extremes. */
  int prodOk = 1;
  double minNz = INFINITY, maxAbs = 0;
  for (unsigned s = 0; s < 256; ++s) {
    if (isnan(e4m3(s))) continue;
    double S = bf16(mlirNvfp4Sm90ScaleTableEntry((uint8_t)s));
    for (unsigned f = 0; f < 16; ++f) {
      double Rv = bf16(mlirNvfp4Sm90Fp4Pair(f, 0));
      double prod = Rv * S; /* exact in double */
      double want = ldexp(e2m1(f) * e4m3(s), -7);
      if (prod != want || !exactNormalBf16(prod)) {
        prodOk = 0;
        printf("  fp4 %u scale 0x%02x: %.17g (want %.17g)\n", f, s, prod, want);
      }
      if (prod != 0 && fabs(prod) < minNz) minNz = fabs(prod);
      if (fabs(prod) > maxAbs) maxAbs = fabs(prod);
    }
  }
  check(prodOk, "every FP4 x E4M3 product is exactly e2m1 * e4m3 * 2^-7, normal in BF16");
  check(minNz == ldexp(1.0, -17) && maxAbs == 2688.0 / 128.0,
        "decoded range [2^-17, 21] (E4M3 subnormal minimum x 0.5, 448 x 6)");
  /* Products of two decoded values are exact in fp32 (<= 12 significant bits) and stay
   * far inside its normal range; 2^14 undoes the two 2^-7. */
  check(ldexp(minNz * minNz, 2 * 7) == ldexp(1.0, -20) && minNz * minNz > ldexp(1.0, -126),
        "decoded products stay normal in fp32; the epilogue factor is 2^14");
}

static void layoutTests(void) {
  /* The inverse of the token-buffer rule is a bijection of the chunk's 64 elements. */
  int seen[64] = {0}, bij = 1;
  for (uint32_t t = 0; t < 4; ++t)
    for (uint32_t j = 0; j < 16; ++j) {
      uint32_t k = mlirNvfp4Sm90LogicalK(t, j);
      if (k >= 64 || seen[k]++) bij = 0;
    }
  check(bij, "physical (group, element) -> logical k' is a permutation of 0..63");
  /* Each A register half holds, for its row, exactly the k' the PTX ISA's wgmma A fragment
   * layout assigns to it (rows l/4, l/4 + 8; k' 2(l%4) + {0,1}, + 8), from the lane's own
   * group: so the weights and the tokens pair the same physical K. */
  int frag = 1;
  int cover[2][8][64];
  memset(cover, 0, sizeof cover);
  for (uint32_t lane = 0; lane < 32; ++lane)
    for (uint32_t s = 0; s < 4; ++s)
      for (uint32_t reg = 0; reg < 4; ++reg)
        for (uint32_t e = 0; e < 2; ++e) {
          bool row8;
          uint32_t ph = mlirNvfp4Sm90FragmentPhysical(lane, s, reg, e, &row8);
          uint32_t t = ph / 16, j = ph % 16;
          uint32_t kIsa = 16 * s + 2 * (lane % 4) + e + 8 * (reg / 2);
          if (t != lane % 4 || row8 != (reg % 2 == 1) || mlirNvfp4Sm90LogicalK(t, j) != kIsa)
            frag = 0;
          cover[row8][lane / 4][kIsa]++;
        }
  for (int r = 0; r < 2; ++r)
    for (int g = 0; g < 8; ++g)
      for (int k = 0; k < 64; ++k)
        if (cover[r][g][k] != 1) frag = 0;
  check(frag, "A fragments: every (row, k') of a warp's 16 x 64 chunk once, from the lane's group");
  /* The decode pairs two nibbles 16 bits apart: pair p of word w is elements 8w + p and
   * 8w + p + 4, chunk 4w + p, halves 0 and 1. */
  int pairs = 1;
  for (uint32_t w = 0; w < 2; ++w)
    for (uint32_t p = 0; p < 4; ++p)
      for (uint32_t e = 0; e < 2; ++e)
        if (mlirNvfp4Sm90LogicalK(0, 8 * w + p + 4 * e) != 8 * (4 * w + p) + e) pairs = 0;
  check(pairs, "pair p of word w lands in 16-byte chunk 4w + p of the token row");
}

int main(void) {
  descriptorTests();
  decodeTests();
  layoutTests();
  printf("SUMMARY: %d passed, %d failed\n", gPassed, gFailed);
  return gFailed ? 1 : 0;
}
