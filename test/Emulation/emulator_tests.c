/* emulator_tests.c — host unit tests of the portable core of the tcgen05 emulation library.
 *
 * Compiles emulation/core/nvfp4_emu_core.h for the host and checks: descriptor decoders
 * against field values from the PTX ISA tables and the hardware-verified constants of
 * docs/design.md ("Hardware-verified encodings"), the element formats, the K-major swizzle
 * address mapping against an independently written TMA SWIZZLE_128B image generator, the TMEM
 * allocation table, tcgen05.cp .32x128b.warpx4, tcgen05.ld .32x32b, and the MMA arithmetic
 * against a straightforward reference written from the definitions of docs/format.md (scale
 * factors in the blocked atom layout copied into an emulated TMEM); and the .cta_group::2
 * forms on a CTA pair (two emulated CTAs, each with its own shared memory, TMEM and
 * allocation table): the joint allocation, the per-CTA copies of tcgen05.cp, and the M = 256
 * MMA whose B columns come half from each CTA; the lane arithmetic of sm_120a's block-scaled
 * mma.sync and its selector checks. Prints one line per group and "ALL PASSED" / exits
 * non-zero on failure.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4_emu_core.h"
#include "tma_image.h"

static int g_checks, g_failures;

#define CHECK(cond, ...)                                                                    \
  do {                                                                                      \
    ++g_checks;                                                                             \
    if (!(cond)) {                                                                          \
      ++g_failures;                                                                         \
      if (g_failures <= 40) {                                                               \
        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                    \
        fprintf(stderr, __VA_ARGS__);                                                       \
        fprintf(stderr, "\n");                                                              \
      }                                                                                     \
    }                                                                                       \
  } while (0)

static void group_done(const char *name, int checks_before, int failures_before) {
  printf("%-32s %6d checks, %d failures\n", name, g_checks - checks_before,
         g_failures - failures_before);
}

/* Deterministic generator (xorshift64*). */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return (uint32_t)((g_rng * 0x2545F4914F6CDD1Dull) >> 32);
}

/* ---------------------------------------------------------------------------------- */
/* Emulated machine state                                                             */
/* ---------------------------------------------------------------------------------- */

#define SMEM_BYTES (256u * 1024u)
static uint8_t g_smem[SMEM_BYTES];
static uint32_t g_tmem[NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS];
static nvfp4_emu_alloc_state g_st;
static nvfp4_emu_mma_scratch g_scratch;

static uint32_t tm(uint32_t lane, uint32_t col) {
  return g_tmem[col * NVFP4_EMU_TMEM_LANES + lane];
}

/* The descriptor encodings the tests use, written from the ISA table (bit 46 = fixed 0b001,
 * SBO in bits 32-45, swizzle in bits 61-63) and equal to the hardware-verified constants
 * (docs/design.md). */
static uint64_t enc_sdesc(uint32_t start, uint32_t lbo, uint32_t sbo, uint32_t swizzle) {
  return (uint64_t)((start & 0x3FFFFu) >> 4) | ((uint64_t)((lbo & 0x3FFFFu) >> 4) << 16) |
         ((uint64_t)((sbo & 0x3FFFFu) >> 4) << 32) | (1ull << 46) |
         ((uint64_t)swizzle << 61);
}

/* Instruction descriptor for kind::mxf4nvf4, E2M1 x E2M1, UE4M3, M = 128, K-major. */
static uint32_t enc_idesc(uint32_t n) {
  return (1u << 7) | (1u << 10) | ((n >> 3) << 17) | ((128u >> 7) << 27);
}

/* The same with M = 256 (M >> 7 = 2 in bits 27-28), the cta_group::2 shape. */
static uint32_t enc_idesc_m256(uint32_t n) {
  return (1u << 7) | (1u << 10) | ((n >> 3) << 17) | ((256u >> 7) << 27);
}

/* ---------------------------------------------------------------------------------- */
/* Reference element decoders written from docs/format.md (FP4 E2M1, FP8 E4M3)          */
/* ---------------------------------------------------------------------------------- */

static double ref_fp4(unsigned code) {
  static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (code & 8) ? -mag[code & 7] : mag[code & 7];
}

static double ref_e4m3(unsigned b) {
  unsigned s = b >> 7, e = (b >> 3) & 15, m = b & 7;
  double v;
  if ((b & 0x7F) == 0x7F)
    return NAN;
  v = e ? ldexp(1.0 + m / 8.0, (int)e - 7) : ldexp(m / 8.0, -6);
  return s ? -v : v;
}

/* ---------------------------------------------------------------------------------- */
/* Tests                                                                              */
/* ---------------------------------------------------------------------------------- */

static void test_formats(void) {
  int c0 = g_checks, f0 = g_failures;
  unsigned i;
  for (i = 0; i < 16; ++i)
    CHECK(nvfp4_emu_e2m1_to_float(i) == (float)ref_fp4(i), "fp4 code %u", i);
  CHECK(nvfp4_emu_e2m1_to_float(7) == 6.0f && nvfp4_emu_e2m1_to_float(0xD) == -3.0f, "table");
  for (i = 0; i < 256; ++i) {
    double r = ref_e4m3(i);
    float v = nvfp4_emu_e4m3_to_float(i);
    if (isnan(r))
      CHECK(isnan(v), "e4m3 %#x should be NaN", i);
    else
      CHECK(v == (float)r, "e4m3 %#x: %g vs %g", i, v, r);
  }
  CHECK(nvfp4_emu_e4m3_to_float(0x7E) == 448.0f, "max");
  CHECK(nvfp4_emu_e4m3_to_float(0x01) == 0.001953125f, "min subnormal 2^-9");
  CHECK(nvfp4_emu_e4m3_to_float(0x38) == 1.0f && nvfp4_emu_e4m3_to_float(0x40) == 2.0f, "1,2");
  /* byte -> two int8 lanes, element 2i in the low nibble */
  CHECK(emu_fp4_byte_to_i8x2(0x7A) == ((uint32_t)(uint8_t)(int8_t)-2 | (12u << 8)),
        "0x7A -> lo -1.0 (x2=-2), hi 6.0 (x2=12): got %#x", emu_fp4_byte_to_i8x2(0x7A));
  group_done("formats", c0, f0);
}

static void test_descriptors(void) {
  int c0 = g_checks, f0 = g_failures;
  nvfp4_emu_err e;
  /* Hardware-verified operand descriptor (docs/design.md): K-major 128B swizzle, SBO 1024. */
  uint64_t seed_op = 0x4000404000000000ull | (0x12400u >> 4);
  nvfp4_emu_sdesc s = nvfp4_emu_sdesc_decode(seed_op);
  CHECK(s.start == 0x12400 && s.lbo == 0 && s.sbo == 1024 && s.fixed_001 == 1 &&
            s.base_offset == 0 && s.lbo_mode == 0 && s.fixed_0 == 0 && s.reserved == 0 &&
            s.swizzle == NVFP4_EMU_SWIZZLE_128B,
        "seed operand descriptor fields");
  CHECK(enc_sdesc(0x12400, 0, 1024, 2) == seed_op, "test encoder == SEED constant");
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "A", 0, &e) == 0, "seed operand desc valid: %s", e.text);
  /* Hardware-verified scale-factor cp source descriptor: SBO 128 B, no swizzle. */
  s = nvfp4_emu_sdesc_decode(0x0000400800000000ull | (0x3000u >> 4));
  CHECK(s.start == 0x3000 && s.lbo == 0 && s.sbo == 128 && s.fixed_001 == 1 && s.swizzle == 0,
        "seed SF descriptor fields");
  CHECK(enc_sdesc(0x3000, 0, 128, 0) == (0x0000400800000000ull | (0x3000u >> 4)), "encoder");
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "src", 1, &e) == 0, "seed SF desc valid for cp");
  /* All fields at once. */
  s = nvfp4_emu_sdesc_decode(0xC000000000000000ull | (5ull << 49) | (1ull << 52) |
                             (0x2AAAull << 32) | (0x1555ull << 16) | 0x3FFFull);
  CHECK(s.start == 0x3FFF0 && s.lbo == 0x15550 && s.sbo == 0x2AAA0 && s.base_offset == 5 &&
            s.lbo_mode == 1 && s.swizzle == 6 && s.fixed_001 == 0,
        "all fields");
  /* Invalid / unsupported descriptors. */
  s = nvfp4_emu_sdesc_decode(seed_op & ~(1ull << 46));
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "A", 0, &e) == NVFP4_EMU_ERR_SDESC_INVALID, "fixed");
  s = nvfp4_emu_sdesc_decode(seed_op | (3ull << 61));
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "A", 0, &e) == NVFP4_EMU_ERR_SDESC_INVALID, "mode 7");
  s = nvfp4_emu_sdesc_decode((seed_op & ~(7ull << 61)) | (5ull << 61));
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "A", 0, &e) == NVFP4_EMU_ERR_SDESC_INVALID, "mode 5");
  s = nvfp4_emu_sdesc_decode(seed_op | (1ull << 55));
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "A", 0, &e) == NVFP4_EMU_ERR_SDESC_INVALID, "53-60");
  s = nvfp4_emu_sdesc_decode(seed_op | (1ull << 14));
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "A", 0, &e) == NVFP4_EMU_ERR_SDESC_INVALID, "bit 14");
  s = nvfp4_emu_sdesc_decode(seed_op | (1ull << 52));
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "A", 0, &e) == NVFP4_EMU_ERR_SDESC_INVALID, "lbo mode");
  s = nvfp4_emu_sdesc_decode(seed_op | (2ull << 49));
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "A", 0, &e) == NVFP4_EMU_ERR_SDESC_UNSUPPORTED,
        "base offset");
  CHECK(strstr(e.text, "base offset 2") != NULL, "message: %s", e.text);
  s = nvfp4_emu_sdesc_decode((seed_op & ~(7ull << 61)) | (1ull << 61));
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "A", 0, &e) == NVFP4_EMU_ERR_SDESC_UNSUPPORTED, "32B at");
  s = nvfp4_emu_sdesc_decode(seed_op);
  CHECK(nvfp4_emu_sdesc_check(&s, "t", "src", 1, &e) == NVFP4_EMU_ERR_SDESC_UNSUPPORTED,
        "cp source swizzled");

  /* Instruction descriptor: the hardware-verified value for M = N = 128 (docs/design.md). */
  {
    nvfp4_emu_idesc d = nvfp4_emu_idesc_decode(0x08200480u);
    CHECK(d.reserved == 0 && d.sparse == 0 && d.sfb_id == 0 && d.atype == 1 && d.btype == 1 &&
              d.negate_a == 0 && d.negate_b == 0 && d.transpose_a == 0 &&
              d.transpose_b == 0 && d.n == 128 && d.scale_type == 0 && d.m == 128 &&
              d.sfa_id == 0 && d.k96 == 0,
          "seed idesc fields");
    CHECK(enc_idesc(128) == 0x08200480u, "test encoder == SEED idesc, got %#x", enc_idesc(128));
    CHECK(nvfp4_emu_idesc_check_mxf4nvf4_block16(&d, &e) == 0, "seed idesc valid: %s", e.text);
  }
  {
    static const uint32_t ns[] = {8, 64, 128, 192, 200, 256};
    unsigned i;
    for (i = 0; i < sizeof ns / sizeof ns[0]; ++i) {
      nvfp4_emu_idesc d = nvfp4_emu_idesc_decode(enc_idesc(ns[i]));
      CHECK(d.n == ns[i] && d.m == 128, "N=%u", ns[i]);
      CHECK(nvfp4_emu_idesc_check_mxf4nvf4_block16(&d, &e) == 0, "N=%u valid", ns[i]);
    }
  }
  {
    struct {
      uint32_t idesc;
      uint32_t code;
      const char *what;
    } bad[] = {
        {enc_idesc(128) & ~(0x3Fu << 17), NVFP4_EMU_ERR_IDESC_INVALID, "N=0"},
        {(enc_idesc(128) & ~(0x3Fu << 17)) | (33u << 17), NVFP4_EMU_ERR_IDESC_INVALID, "N=264"},
        {enc_idesc(128) & ~(3u << 27), NVFP4_EMU_ERR_IDESC_INVALID, "M=0"},
        {(enc_idesc(128) & ~(3u << 27)) | (2u << 27), NVFP4_EMU_ERR_IDESC_INVALID, "M=256"},
        {enc_idesc(128) | (1u << 2), NVFP4_EMU_ERR_IDESC_INVALID, "sparse"},
        {enc_idesc(128) | (1u << 31), NVFP4_EMU_ERR_IDESC_INVALID, "K=96"},
        {enc_idesc(128) | (2u << 4), NVFP4_EMU_ERR_IDESC_INVALID, "SFB id 2"},
        {enc_idesc(128) | (2u << 29), NVFP4_EMU_ERR_IDESC_INVALID, "SFA id 2"},
        {(enc_idesc(128) & ~(7u << 7)) | (5u << 7), NVFP4_EMU_ERR_IDESC_INVALID, "atype 5"},
        {enc_idesc(128) & ~(3u << 10), NVFP4_EMU_ERR_IDESC_INVALID, "btype 0"},
        {enc_idesc(128) | (1u << 15), NVFP4_EMU_ERR_IDESC_INVALID, "transpose A"},
        {enc_idesc(128) | (1u << 16), NVFP4_EMU_ERR_IDESC_INVALID, "transpose B"},
        {enc_idesc(128) | (1u << 3), NVFP4_EMU_ERR_IDESC_INVALID, "reserved 3"},
        {enc_idesc(128) | (1u << 12), NVFP4_EMU_ERR_IDESC_INVALID, "reserved 12"},
        {enc_idesc(128) | (1u << 25), NVFP4_EMU_ERR_IDESC_INVALID, "reserved 25"},
        {enc_idesc(128) | (1u << 23), NVFP4_EMU_ERR_IDESC_UNSUPPORTED, "UE8M0"},
        {enc_idesc(128) | (1u << 13), NVFP4_EMU_ERR_IDESC_UNSUPPORTED, "negate A"},
        {enc_idesc(128) | (1u << 14), NVFP4_EMU_ERR_IDESC_UNSUPPORTED, "negate B"},
    };
    unsigned i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
      nvfp4_emu_idesc d = nvfp4_emu_idesc_decode(bad[i].idesc);
      uint32_t code = nvfp4_emu_idesc_check_mxf4nvf4_block16(&d, &e);
      CHECK(code == bad[i].code, "%s: code %u (%s)", bad[i].what, code, e.text);
    }
    {
      nvfp4_emu_idesc d = nvfp4_emu_idesc_decode((enc_idesc(128) & ~(3u << 27)) | (2u << 27));
      nvfp4_emu_idesc_check_mxf4nvf4_block16(&d, &e);
      CHECK(strstr(e.text, "M=256") != NULL, "message names M: %s", e.text);
    }
  }
  group_done("descriptors", c0, f0);
}

static void test_swizzle(void) {
  int c0 = g_checks, f0 = g_failures;
  uint32_t r, step, chunk;
  /* 128B: row r, K step s (32 B), chunk c -> TMA image address of logical chunk 2s + c. */
  for (r = 0; r < 128; ++r)
    for (step = 0; step < 4; ++step)
      for (chunk = 0; chunk < 2; ++chunk) {
        nvfp4_emu_sdesc s = nvfp4_emu_sdesc_decode(enc_sdesc(0x8000 + 32 * step, 0, 1024, 2));
        uint32_t got = nvfp4_emu_kmajor_chunk_addr(&s, r, chunk);
        uint32_t want = 0x8000 + r * 128 + (((2 * step + chunk) ^ (r % 8)) * 16);
        CHECK(got == want, "sw128 r=%u s=%u c=%u: %#x vs %#x", r, step, chunk, got, want);
      }
  /* 64B: 64-byte rows, 8-row atoms of 512 B; chunk c at c ^ ((r % 8) / 2). */
  for (r = 0; r < 64; ++r)
    for (step = 0; step < 2; ++step)
      for (chunk = 0; chunk < 2; ++chunk) {
        nvfp4_emu_sdesc s = nvfp4_emu_sdesc_decode(enc_sdesc(0x4000 + 32 * step, 0, 512, 4));
        uint32_t got = nvfp4_emu_kmajor_chunk_addr(&s, r, chunk);
        uint32_t want = 0x4000 + (r / 8) * 512 + (r % 8) * 64 +
                        (((2 * step + chunk) ^ ((r % 8) / 2)) * 16);
        CHECK(got == want, "sw64 r=%u: %#x vs %#x", r, got, want);
      }
  /* 32B: 32-byte rows, 8-row atoms of 256 B; chunk c at c ^ ((r % 8) / 4). */
  for (r = 0; r < 64; ++r)
    for (chunk = 0; chunk < 2; ++chunk) {
      nvfp4_emu_sdesc s = nvfp4_emu_sdesc_decode(enc_sdesc(0x2000, 0, 256, 6));
      uint32_t got = nvfp4_emu_kmajor_chunk_addr(&s, r, chunk);
      uint32_t want = 0x2000 + (r / 8) * 256 + (r % 8) * 32 + ((chunk ^ ((r % 8) / 4)) * 16);
      CHECK(got == want, "sw32 r=%u: %#x vs %#x", r, got, want);
    }
  /* No swizzle: 8x16-byte core matrices, K chunks LBO apart, 8-row groups SBO apart. */
  for (r = 0; r < 64; ++r)
    for (chunk = 0; chunk < 2; ++chunk) {
      nvfp4_emu_sdesc s = nvfp4_emu_sdesc_decode(enc_sdesc(0x1000, 128, 256, 0));
      uint32_t got = nvfp4_emu_kmajor_chunk_addr(&s, r, chunk);
      uint32_t want = 0x1000 + (r % 8) * 16 + (r / 8) * 256 + chunk * 128;
      CHECK(got == want, "none r=%u: %#x vs %#x", r, got, want);
    }
  /* Reading a TMA image back through the descriptor gives the logical bytes. */
  {
    static uint8_t rows[128 * 128];
    uint32_t i;
    for (i = 0; i < sizeof rows; ++i)
      rows[i] = (uint8_t)rnd();
    tma_sw128_image(g_smem, 0x10000, rows, 128);
    for (r = 0; r < 128; ++r)
      for (step = 0; step < 4; ++step)
        for (chunk = 0; chunk < 2; ++chunk) {
          nvfp4_emu_sdesc s =
              nvfp4_emu_sdesc_decode(enc_sdesc(0x10000 + 32 * step, 0, 1024, 2));
          uint32_t w[4];
          nvfp4_emu_smem_ld16(g_smem, nvfp4_emu_kmajor_chunk_addr(&s, r, chunk), w);
          CHECK(memcmp(w, &rows[r * 128 + step * 32 + chunk * 16], 16) == 0,
                "image row %u step %u chunk %u", r, step, chunk);
        }
  }
  group_done("swizzle", c0, f0);
}

static void test_alloc(void) {
  int c0 = g_checks, f0 = g_failures;
  nvfp4_emu_err e;
  uint32_t col = 99;
  nvfp4_emu_state_reset(&g_st);
  CHECK(nvfp4_emu_state_alloc(&g_st, 128, &col, &e) == 0 && col == 0, "first 128 at 0");
  CHECK(nvfp4_emu_state_alloc(&g_st, 128, &col, &e) == 0 && col == 128, "second at 128");
  CHECK(nvfp4_emu_state_alloc(&g_st, 64, &col, &e) == 0 && col == 256, "64 at 256");
  CHECK(nvfp4_emu_state_alloc(&g_st, 128, &col, &e) == NVFP4_EMU_ERR_ALLOC_INCREASE,
        "increase after 64");
  CHECK(nvfp4_emu_state_alloc(&g_st, 32, &col, &e) == 0 && col == 320, "32 at 320");
  CHECK(nvfp4_emu_state_alloc(&g_st, 32, &col, &e) == 0 && col == 352, "32 at 352");
  CHECK(nvfp4_emu_cols_allocated(&g_st, 0, 384) && !nvfp4_emu_cols_allocated(&g_st, 380, 8),
        "bitmap");
  CHECK(nvfp4_emu_state_dealloc(&g_st, 128, 128, &e) == 0, "dealloc 128@128");
  CHECK(nvfp4_emu_state_dealloc(&g_st, 128, 128, &e) == NVFP4_EMU_ERR_DEALLOC, "double free");
  CHECK(nvfp4_emu_state_dealloc(&g_st, 0, 64, &e) == NVFP4_EMU_ERR_DEALLOC, "ncols mismatch");
  CHECK(strstr(e.text, "of 128 columns") != NULL, "message: %s", e.text);
  CHECK(nvfp4_emu_state_dealloc(&g_st, 32, 32, &e) == NVFP4_EMU_ERR_DEALLOC, "inside alloc");
  CHECK(nvfp4_emu_state_dealloc(&g_st, (1u << 16) | 256, 64, &e) == NVFP4_EMU_ERR_DEALLOC,
        "lane != 0");
  CHECK(nvfp4_emu_state_dealloc(&g_st, 0, 48, &e) == NVFP4_EMU_ERR_ALLOC_NCOLS, "ncols 48");
  CHECK(nvfp4_emu_state_alloc(&g_st, 32, &col, &e) == 0 && col == 128, "reuse hole");
  CHECK(nvfp4_emu_cols_allocated(&g_st, 128, 32) && !nvfp4_emu_cols_allocated(&g_st, 160, 1),
        "hole partly reused");
  CHECK(nvfp4_emu_state_alloc(&g_st, 16, &col, &e) == NVFP4_EMU_ERR_ALLOC_NCOLS, "16");
  CHECK(nvfp4_emu_state_alloc(&g_st, 96, &col, &e) == NVFP4_EMU_ERR_ALLOC_NCOLS, "96");
  CHECK(nvfp4_emu_state_alloc(&g_st, 1024, &col, &e) == NVFP4_EMU_ERR_ALLOC_NCOLS, "1024");
  /* Fill the rest with 32s, then no room. */
  {
    int n = 0;
    while (nvfp4_emu_state_alloc(&g_st, 32, &col, &e) == 0)
      ++n;
    CHECK(n == 7 && e.code == NVFP4_EMU_ERR_ALLOC_NO_ROOM, "filled %d, code %u", n, e.code);
  }
  nvfp4_emu_state_reset(&g_st);
  CHECK(nvfp4_emu_state_alloc(&g_st, 512, &col, &e) == 0 && col == 0, "512");
  CHECK(nvfp4_emu_state_alloc(&g_st, 32, &col, &e) == NVFP4_EMU_ERR_ALLOC_NO_ROOM, "full");
  CHECK(nvfp4_emu_state_dealloc(&g_st, 0, 512, &e) == 0, "free 512");
  g_st.relinquished = 1;
  CHECK(nvfp4_emu_state_alloc(&g_st, 32, &col, &e) == NVFP4_EMU_ERR_ALLOC_RELINQUISHED,
        "after relinquish");
  group_done("alloc", c0, f0);
}

static void test_cp_ld(void) {
  int c0 = g_checks, f0 = g_failures;
  nvfp4_emu_err e;
  uint32_t col, r, q, c, b, i;
  uint8_t atom[512];
  nvfp4_emu_state_reset(&g_st);
  nvfp4_emu_state_alloc(&g_st, 256, &col, &e);
  for (i = 0; i < 512; ++i)
    atom[i] = (uint8_t)rnd();
  memcpy(&g_smem[0x3000], atom, 512);
  for (i = 0; i < NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS; ++i)
    g_tmem[i] = 0xDEADBEEFu;
  /* Atom bytes (r, 16-byte row) -> lanes 32q + r, columns 100..103, little-endian cells. */
  CHECK(nvfp4_emu_core_cp_32x128b_warpx4(g_tmem, g_smem, &g_st, 100,
                                         0x0000400800000000ull | (0x3000u >> 4), &e) == 0,
        "cp: %s", e.text);
  for (q = 0; q < 4; ++q)
    for (r = 0; r < 32; ++r)
      for (c = 0; c < 4; ++c) {
        uint32_t want = 0;
        for (b = 0; b < 4; ++b)
          want |= (uint32_t)atom[r * 16 + c * 4 + b] << (8 * b);
        CHECK(tm(q * 32 + r, 100 + c) == want, "cp lane %u col %u", q * 32 + r, 100 + c);
      }
  CHECK(tm(0, 99) == 0xDEADBEEFu && tm(0, 104) == 0xDEADBEEFu, "cp writes 4 columns only");
  /* SBO other than 128: rows 8..15 come from start + SBO. */
  memset(&g_smem[0x5000], 0x11, 16);
  memset(&g_smem[0x5000 + 1024], 0x22, 16);
  nvfp4_emu_core_cp_32x128b_warpx4(g_tmem, g_smem, &g_st, 200,
                                   enc_sdesc(0x5000, 0, 1024, 0), &e);
  CHECK(tm(0, 200) == 0x11111111u && tm(8, 200) == 0x22222222u && tm(72, 203) == 0x22222222u,
        "cp SBO");
  CHECK(nvfp4_emu_core_cp_32x128b_warpx4(g_tmem, g_smem, &g_st, 254, enc_sdesc(0x3000, 0, 128, 0),
                                         &e) == NVFP4_EMU_ERR_TMEM_RANGE,
        "cp past the allocation");
  CHECK(nvfp4_emu_core_cp_32x128b_warpx4(g_tmem, g_smem, &g_st, (32u << 16) | 8,
                                         enc_sdesc(0x3000, 0, 128, 0),
                                         &e) == NVFP4_EMU_ERR_TMEM_LANE,
        "cp lane 32");
  CHECK(nvfp4_emu_core_cp_32x128b_warpx4(g_tmem, g_smem, &g_st, 8, enc_sdesc(0x3000, 0, 128, 2),
                                         &e) == NVFP4_EMU_ERR_SDESC_UNSUPPORTED,
        "cp swizzled");

  /* tcgen05.ld .32x32b: lane i of warp (id%4 = q) gets TMEM lane 32q + i, num columns. */
  for (i = 0; i < NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS; ++i)
    g_tmem[i] = i * 2654435761u;
  for (q = 0; q < 4; ++q) {
    uint32_t taddr = (q * 32u << 16) | 64u, dst[128];
    CHECK(nvfp4_emu_core_ld_check(&g_st, taddr, 128, q, &e) == 0, "ld q=%u: %s", q, e.text);
    for (i = 0; i < 32; ++i) {
      nvfp4_emu_core_ld_lane(g_tmem, taddr, i, dst, 128);
      for (c = 0; c < 128; ++c)
        if (dst[c] != tm(q * 32 + i, 64 + c)) {
          CHECK(0, "ld q=%u lane %u col %u", q, i, c);
          break;
        }
    }
  }
  CHECK(nvfp4_emu_core_ld_check(&g_st, (32u << 16) | 0, 4, 0, &e) == NVFP4_EMU_ERR_LD_QUARTER,
        "warp 0 reading lanes 32..63");
  CHECK(nvfp4_emu_core_ld_check(&g_st, (16u << 16) | 0, 4, 0, &e) == NVFP4_EMU_ERR_LD_QUARTER,
        "lane 16");
  CHECK(nvfp4_emu_core_ld_check(&g_st, 0, 3, 0, &e) == NVFP4_EMU_ERR_LD_NUM, "x3");
  CHECK(nvfp4_emu_core_ld_check(&g_st, 0, 256, 0, &e) == NVFP4_EMU_ERR_LD_NUM, "x256");
  CHECK(nvfp4_emu_core_ld_check(&g_st, 0, 0, 0, &e) == NVFP4_EMU_ERR_LD_NUM, "x0");
  CHECK(nvfp4_emu_core_ld_check(&g_st, (96u << 16) | 192, 128, 3, &e) == NVFP4_EMU_ERR_TMEM_RANGE,
        "ld past the allocation");
  group_done("cp/ld", c0, f0);
}

/* ---------------------------------------------------------------------------------- */
/* MMA                                                                                */
/* ---------------------------------------------------------------------------------- */

#define KTOT 256 /* one 256-K stage = 4 MMA k-steps */

/* The blocked scale-factor layout (docs/format.md). */
static size_t sf_offset(uint32_t r, uint32_t j, uint32_t rk) {
  return ((size_t)(r / 128) * rk + j / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + (j % 4);
}

typedef struct {
  uint32_t n;
  uint32_t dcol, sfacol, sfbcol; /* TMEM bases; SF of k-step s at +4s (A) and +8s (B) */
  int scale_kind;                /* 0: full-range E4M3, 1: competition {1, 2} */
  int fp4_kind;                  /* 0: all 16 codes, 1: competition mask 0b1011 */
} mma_case;

static uint8_t g_a[128][KTOT / 2], g_b[256][KTOT / 2];
static uint8_t g_sfa[128][KTOT / 16], g_sfb[256][KTOT / 16];
static uint8_t g_sfa_blk[2 * 4 * 512], g_sfb_blk[2 * 4 * 512];

static unsigned fp4_at(const uint8_t *row, uint32_t k) {
  return (row[k / 2] >> (4 * (k % 2))) & 0xF;
}

static uint8_t random_scale(int kind) {
  if (kind == 1)
    return (rnd() & 1) ? 0x38 : 0x40; /* 1.0, 2.0 */
  for (;;) {
    uint8_t v = (uint8_t)(rnd() & 0x7F); /* non-negative, all exponents incl. subnormals */
    if (v != 0x7F && (rnd() % 8 != 0 || v < 0x08))
      return v;
  }
}

/* Runs the 4 k-steps of one stage through the emulated cp + MMA and checks D. */
static void run_mma_case(const mma_case *mc) {
  nvfp4_emu_err e;
  uint32_t col, m, n, k, s, nb;
  const uint32_t N = mc->n, rk = KTOT / 64, nblk = (N + 127) / 128;
  static float ref_d[128][256];
  static double exact[128][256];

  for (m = 0; m < 128; ++m)
    for (k = 0; k < KTOT / 2; ++k)
      g_a[m][k] = (uint8_t)(mc->fp4_kind ? (rnd() & 0xBB) : rnd());
  for (n = 0; n < N; ++n)
    for (k = 0; k < KTOT / 2; ++k)
      g_b[n][k] = (uint8_t)(mc->fp4_kind ? (rnd() & 0xBB) : rnd());
  for (m = 0; m < 128; ++m)
    for (k = 0; k < KTOT / 16; ++k)
      g_sfa[m][k] = random_scale(mc->scale_kind);
  for (n = 0; n < N; ++n)
    for (k = 0; k < KTOT / 16; ++k)
      g_sfb[n][k] = random_scale(mc->scale_kind);
  /* Blocked layouts (rows padded to 128 with zeros). */
  memset(g_sfa_blk, 0, sizeof g_sfa_blk);
  memset(g_sfb_blk, 0, sizeof g_sfb_blk);
  for (m = 0; m < 128; ++m)
    for (k = 0; k < KTOT / 16; ++k)
      g_sfa_blk[sf_offset(m, k, rk)] = g_sfa[m][k];
  for (n = 0; n < N; ++n)
    for (k = 0; k < KTOT / 16; ++k)
      g_sfb_blk[sf_offset(n, k, rk)] = g_sfb[n][k];

  /* Shared memory: A at 0x00000 (16 KiB), B at 0x08000 (N x 128 B), SF atoms at 0x20000. */
  memset(g_smem, 0, SMEM_BYTES);
  tma_sw128_image(g_smem, 0x00000, &g_a[0][0], 128);
  tma_sw128_image(g_smem, 0x08000, &g_b[0][0], N);
  memcpy(&g_smem[0x20000], g_sfa_blk, rk * 512);
  memcpy(&g_smem[0x21000], g_sfb_blk, nblk * rk * 512);

  for (k = 0; k < NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS; ++k)
    g_tmem[k] = 0x7FC01234u ^ k; /* NaN garbage: must be ignored when enable_input_d = 0 */
  nvfp4_emu_state_reset(&g_st);
  nvfp4_emu_state_alloc(&g_st, 512, &col, &e);

  /* Scale factors into TMEM with tcgen05.cp, one 512-B atom per 4 columns. */
  for (s = 0; s < KTOT / 64; ++s) {
    CHECK(nvfp4_emu_core_cp_32x128b_warpx4(g_tmem, g_smem, &g_st, mc->sfacol + 4 * s,
                                           0x0000400800000000ull | ((0x20000u + 512 * s) >> 4),
                                           &e) == 0,
          "cp sfa: %s", e.text);
    for (nb = 0; nb < nblk; ++nb)
      CHECK(nvfp4_emu_core_cp_32x128b_warpx4(
                g_tmem, g_smem, &g_st, mc->sfbcol + 8 * s + 4 * nb,
                0x0000400800000000ull | ((0x21000u + 512 * (nb * rk + s)) >> 4), &e) == 0,
            "cp sfb: %s", e.text);
  }

  /* Reference: per k-step, the exact sum in double of (a*sfa)*(b*sfb), then one fp32
   * rounding of D + sum; and the all-double result for a tolerance check. */
  for (m = 0; m < 128; ++m)
    for (n = 0; n < N; ++n) {
      ref_d[m][n] = 0;
      exact[m][n] = 0;
    }
  for (s = 0; s < KTOT / 64; ++s) {
    uint32_t idesc = enc_idesc(N);
    uint64_t adesc = enc_sdesc(0x00000 + 32 * s, 0, 1024, 2);
    uint64_t bdesc = enc_sdesc(0x08000 + 32 * s, 0, 1024, 2);
    uint32_t code = nvfp4_emu_core_mma_mxf4nvf4_block16(
        g_tmem, g_smem, &g_st, &g_scratch, mc->dcol, adesc, bdesc, idesc, s != 0,
        mc->sfacol + 4 * s, mc->sfbcol + 8 * s, &e);
    CHECK(code == 0, "mma N=%u step %u: %s", N, s, e.text);
    for (m = 0; m < 128; ++m)
      for (n = 0; n < N; ++n) {
        double sum = 0;
        for (k = 64 * s; k < 64 * s + 64; ++k) {
          double p = (ref_fp4(fp4_at(g_a[m], k)) * ref_e4m3(g_sfa[m][k / 16])) *
                     (ref_fp4(fp4_at(g_b[n], k)) * ref_e4m3(g_sfb[n][k / 16]));
          sum += p;
        }
        ref_d[m][n] = (float)((s ? (double)ref_d[m][n] : 0.0) + sum);
        exact[m][n] += sum;
      }
  }
  {
    int mism = 0;
    double max_rel = 0;
    for (m = 0; m < 128; ++m)
      for (n = 0; n < N; ++n) {
        float got = emu_bits_to_float(tm(m, mc->dcol + n));
        if (emu_float_to_bits(got) != emu_float_to_bits(ref_d[m][n])) {
          if (mism++ < 5)
            CHECK(0, "N=%u D[%u][%u] = %.9g, reference %.9g", N, m, n, got, ref_d[m][n]);
        }
        {
          double rel = fabs(got - exact[m][n]) / (fabs(exact[m][n]) + 1e-30);
          if (exact[m][n] != 0 && rel > max_rel)
            max_rel = rel;
        }
      }
    CHECK(mism == 0, "N=%u: %d elements differ from the fused-fp32 reference", N, mism);
    CHECK(max_rel < 1e-5 || mc->scale_kind == 0, "N=%u: max rel err %g vs double", N, max_rel);
  }
  /* enable_input_d = 1 on top of seeded values. */
  {
    uint64_t adesc = enc_sdesc(0x00000, 0, 1024, 2), bdesc = enc_sdesc(0x08000, 0, 1024, 2);
    for (m = 0; m < 128; ++m)
      for (n = 0; n < N; ++n)
        g_tmem[(mc->dcol + n) * 128 + m] = emu_float_to_bits((float)(m * 0.25 - n));
    nvfp4_emu_core_mma_mxf4nvf4_block16(g_tmem, g_smem, &g_st, &g_scratch, mc->dcol, adesc,
                                        bdesc, enc_idesc(N), 1, mc->sfacol, mc->sfbcol, &e);
    for (m = 0; m < 128; m += 7)
      for (n = 0; n < N; n += 3) {
        double sum = 0;
        for (k = 0; k < 64; ++k)
          sum += (ref_fp4(fp4_at(g_a[m], k)) * ref_e4m3(g_sfa[m][k / 16])) *
                 (ref_fp4(fp4_at(g_b[n], k)) * ref_e4m3(g_sfb[n][k / 16]));
        {
          float want = (float)((double)(float)(m * 0.25 - n) + sum);
          float got = emu_bits_to_float(tm(m, mc->dcol + n));
          CHECK(got == want, "accumulate N=%u D[%u][%u] %.9g vs %.9g", N, m, n, got, want);
        }
      }
  }
}

static void test_mma(void) {
  int c0 = g_checks, f0 = g_failures;
  static const mma_case cases[] = {
      {128, 0, 256, 272, 1, 1},   /* the competition distribution */
      {128, 0, 256, 272, 0, 0},   /* full range */
      {64, 64, 0, 16, 0, 0},      /* D after the scale factors */
      {192, 256, 0, 32, 0, 0},    /* 6 SFB columns per step */
      {256, 0, 256, 300, 0, 0},   /* 8 SFB columns per step, unaligned SF bases */
      {256, 256, 4, 20, 0, 0},
      {8, 500, 0, 64, 0, 0},      /* smallest N */
      {200, 0, 480, 400, 0, 0},   /* N not a multiple of 32 */
  };
  unsigned i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    run_mma_case(&cases[i]);
  group_done("mma", c0, f0);
}

static void test_mma_errors(void) {
  int c0 = g_checks, f0 = g_failures;
  nvfp4_emu_err e;
  uint32_t col;
  uint64_t ad = enc_sdesc(0, 0, 1024, 2), bd = enc_sdesc(0x8000, 0, 1024, 2);
  nvfp4_emu_state_reset(&g_st);
  nvfp4_emu_state_alloc(&g_st, 256, &col, &e);
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16(g_tmem, g_smem, &g_st, &g_scratch, 0, ad, bd,
                                            enc_idesc(128), 0, 128, 132, &e) == 0,
        "baseline: %s", e.text);
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16(g_tmem, g_smem, &g_st, &g_scratch, 0, ad, bd,
                                            enc_idesc(128), 0, 124, 132,
                                            &e) == NVFP4_EMU_ERR_MMA_OVERLAP,
        "SFA inside D");
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16(g_tmem, g_smem, &g_st, &g_scratch, 192, ad, bd,
                                            enc_idesc(128), 0, 0, 4,
                                            &e) == NVFP4_EMU_ERR_TMEM_RANGE,
        "D past allocation");
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16(g_tmem, g_smem, &g_st, &g_scratch, 0, ad, bd,
                                            enc_idesc(128), 0, 128, 254,
                                            &e) == NVFP4_EMU_ERR_TMEM_RANGE,
        "SFB past allocation");
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16(g_tmem, g_smem, &g_st, &g_scratch, 32u << 16, ad,
                                            bd, enc_idesc(128), 0, 128, 132,
                                            &e) == NVFP4_EMU_ERR_TMEM_LANE,
        "D lane 32");
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16(g_tmem, g_smem, &g_st, &g_scratch, 0, ad, bd,
                                            enc_idesc(128) | (1u << 23), 0, 128, 132,
                                            &e) == NVFP4_EMU_ERR_IDESC_UNSUPPORTED,
        "UE8M0");
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16(g_tmem, g_smem, &g_st, &g_scratch, 0,
                                            ad & ~(1ull << 46), bd, enc_idesc(128), 0, 128,
                                            132, &e) == NVFP4_EMU_ERR_SDESC_INVALID,
        "A desc fixed bits");
  CHECK(strstr(e.text, "A descriptor") != NULL, "message: %s", e.text);
  group_done("mma errors", c0, f0);
}

/* A NaN scale factor poisons exactly the outputs it feeds. */
static void test_mma_nan(void) {
  int c0 = g_checks, f0 = g_failures;
  nvfp4_emu_err e;
  uint32_t col, i, m, n;
  nvfp4_emu_state_reset(&g_st);
  nvfp4_emu_state_alloc(&g_st, 256, &col, &e);
  memset(g_smem, 0x22, 0x10000); /* every element 1.0 */
  for (i = 0; i < 4; ++i)        /* SFA: all 1.0 (0x38), SFB: all 1.0 */
    for (m = 0; m < 128; ++m) {
      g_tmem[(128 + i) * 128 + m] = 0x38383838u;
      g_tmem[(132 + i) * 128 + m] = 0x38383838u;
    }
  g_tmem[(128 + 1) * 128 + 37] = 0x387F3838u; /* row 37 (lane 37, col +1), K block 2 NaN */
  nvfp4_emu_core_mma_mxf4nvf4_block16(g_tmem, g_smem, &g_st, &g_scratch, 0,
                                      enc_sdesc(0, 0, 1024, 2), enc_sdesc(0x8000, 0, 1024, 2),
                                      enc_idesc(64), 0, 128, 132, &e);
  for (m = 0; m < 128; ++m)
    for (n = 0; n < 64; ++n) {
      float v = emu_bits_to_float(tm(m, n));
      if (m == 37)
        CHECK(isnan(v), "row 37 NaN");
      else
        CHECK(v == 64.0f, "D[%u][%u] = %g", m, n, v);
    }
  group_done("mma NaN scale", c0, f0);
}


/* ---------------------------------------------------------------------------------- */
/* .cta_group::2: a CTA pair                                                           */
/* ---------------------------------------------------------------------------------- */

/* The odd CTA of the pair: its own shared memory, TMEM and allocation table. */
static uint8_t g_smem1[SMEM_BYTES];
static uint32_t g_tmem1[NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS];
static nvfp4_emu_alloc_state g_st1;

static uint32_t tm1(uint32_t lane, uint32_t col) {
  return g_tmem1[col * NVFP4_EMU_TMEM_LANES + lane];
}

static void pair_views(nvfp4_emu_cta_view v[2]) {
  v[0].tmem = g_tmem;
  v[0].smem = g_smem;
  v[0].st = &g_st;
  v[1].tmem = g_tmem1;
  v[1].smem = g_smem1;
  v[1].st = &g_st1;
}

static void test_pair_alloc(void) {
  int c0 = g_checks, f0 = g_failures;
  nvfp4_emu_err e;
  uint32_t col = 99, c;
  nvfp4_emu_state_reset(&g_st);
  nvfp4_emu_state_reset(&g_st1);
  /* One allocation, one address, booked in both CTAs. */
  CHECK(nvfp4_emu_state_alloc_pair(&g_st, &g_st1, 256, &col, &e) == 0 && col == 0,
        "pair 256 at 0: %s", e.text);
  CHECK(nvfp4_emu_cols_allocated(&g_st, 0, 256) && nvfp4_emu_cols_allocated(&g_st1, 0, 256) &&
            !nvfp4_emu_cols_allocated(&g_st, 256, 1) && !nvfp4_emu_cols_allocated(&g_st1, 256, 1),
        "booked in both");
  /* The lowest range free in both tables: the odd CTA already holds 256..383. */
  CHECK(nvfp4_emu_state_alloc(&g_st1, 128, &c, &e) == 0 && c == 256, "odd alone 128 at 256");
  CHECK(nvfp4_emu_state_alloc_pair(&g_st, &g_st1, 128, &col, &e) == 0 && col == 384,
        "pair 128 skips the range the odd CTA holds (got %u)", col);
  CHECK(nvfp4_emu_cols_allocated(&g_st, 384, 128) && !nvfp4_emu_cols_allocated(&g_st, 256, 1),
        "even books 384 only");
  CHECK(nvfp4_emu_state_alloc_pair(&g_st, &g_st1, 64, &col, &e) == NVFP4_EMU_ERR_ALLOC_NO_ROOM &&
            strstr(e.text, "both CTAs of the pair") != NULL,
        "no range free in both: %s", e.text);
  /* Dealloc: must be live with the same nCols in both; a failure frees nothing. */
  CHECK(nvfp4_emu_state_dealloc_pair(&g_st, &g_st1, 256, 128, &e) == NVFP4_EMU_ERR_DEALLOC &&
            strstr(e.text, "cta_group::2") != NULL,
        "odd-only allocation: %s", e.text);
  CHECK(nvfp4_emu_state_dealloc_pair(&g_st, &g_st1, 384, 128, &e) == 0, "pair dealloc");
  CHECK(!nvfp4_emu_cols_allocated(&g_st, 384, 1) && !nvfp4_emu_cols_allocated(&g_st1, 384, 1),
        "freed in both");
  CHECK(nvfp4_emu_state_dealloc_pair(&g_st, &g_st1, 384, 128, &e) == NVFP4_EMU_ERR_DEALLOC,
        "double free");
  CHECK(nvfp4_emu_state_dealloc(&g_st1, 256, 128, &e) == 0, "odd alone frees its 128");
  CHECK(nvfp4_emu_state_dealloc_pair(&g_st, &g_st1, 0, 256, &e) == 0 &&
            !nvfp4_emu_cols_allocated(&g_st1, 0, 1),
        "pair dealloc 256");
  /* The rules hold in each CTA: the increase rule and relinquish of either CTA. */
  CHECK(nvfp4_emu_state_alloc_pair(&g_st, &g_st1, 512, &col, &e) == NVFP4_EMU_ERR_ALLOC_INCREASE,
        "increase after 256");
  g_st1.relinquished = 1;
  CHECK(nvfp4_emu_state_alloc_pair(&g_st, &g_st1, 32, &col, &e) ==
            NVFP4_EMU_ERR_ALLOC_RELINQUISHED && !nvfp4_emu_cols_allocated(&g_st, 0, 32),
        "odd relinquished, nothing booked in the even CTA");
  /* One .cta_group per kernel. */
  nvfp4_emu_state_reset(&g_st);
  CHECK(nvfp4_emu_state_group(&g_st, 2, "tcgen05.alloc.cta_group::2", &e) == 0 &&
            nvfp4_emu_state_group(&g_st, 2, "tcgen05.mma", &e) == 0,
        "cta_group 2 twice");
  CHECK(nvfp4_emu_state_group(&g_st, 1, "tcgen05.cp", &e) == NVFP4_EMU_ERR_CTA_GROUP &&
            strstr(e.text, "used .cta_group::2") != NULL,
        "::1 after ::2: %s", e.text);
  group_done("pair alloc", c0, f0);
}

static void test_pair_cp(void) {
  int c0 = g_checks, f0 = g_failures;
  nvfp4_emu_err e;
  nvfp4_emu_cta_view v[2];
  uint32_t col, r, q, c, b, i;
  uint8_t atom0[512], atom1[512];
  pair_views(v);
  nvfp4_emu_state_reset(&g_st);
  nvfp4_emu_state_reset(&g_st1);
  nvfp4_emu_state_alloc_pair(&g_st, &g_st1, 256, &col, &e);
  for (i = 0; i < 512; ++i) {
    atom0[i] = (uint8_t)rnd();
    atom1[i] = (uint8_t)rnd();
  }
  memcpy(&g_smem[0x3000], atom0, 512);
  memcpy(&g_smem1[0x3000], atom1, 512);
  for (i = 0; i < NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS; ++i)
    g_tmem[i] = g_tmem1[i] = 0xDEADBEEFu;
  /* Each CTA's shared memory at the descriptor into its own TMEM, same columns. */
  CHECK(nvfp4_emu_core_cp_32x128b_warpx4_cg2(v, 100, enc_sdesc(0x3000, 0, 128, 0), &e) == 0,
        "cp cg2: %s", e.text);
  for (q = 0; q < 4; ++q)
    for (r = 0; r < 32; ++r)
      for (c = 0; c < 4; ++c) {
        uint32_t w0 = 0, w1 = 0;
        for (b = 0; b < 4; ++b) {
          w0 |= (uint32_t)atom0[r * 16 + c * 4 + b] << (8 * b);
          w1 |= (uint32_t)atom1[r * 16 + c * 4 + b] << (8 * b);
        }
        CHECK(tm(q * 32 + r, 100 + c) == w0 && tm1(q * 32 + r, 100 + c) == w1,
              "cp cg2 lane %u col %u", q * 32 + r, 100 + c);
      }
  CHECK(tm(0, 104) == 0xDEADBEEFu && tm1(0, 99) == 0xDEADBEEFu, "4 columns only");
  /* A destination outside the odd CTA's allocation: nothing is written in either CTA. */
  nvfp4_emu_state_dealloc(&g_st1, 0, 256, &e);
  nvfp4_emu_state_alloc(&g_st1, 128, &col, &e);
  CHECK(nvfp4_emu_core_cp_32x128b_warpx4_cg2(v, 200, enc_sdesc(0x3000, 0, 128, 0), &e) ==
                NVFP4_EMU_ERR_TMEM_RANGE &&
            strstr(e.text, "odd CTA") != NULL,
        "odd range: %s", e.text);
  CHECK(tm(0, 200) == 0xDEADBEEFu, "even CTA untouched after a failed check");
  CHECK(nvfp4_emu_core_cp_32x128b_warpx4_cg2(v, (32u << 16) | 100,
                                             enc_sdesc(0x3000, 0, 128, 0),
                                             &e) == NVFP4_EMU_ERR_TMEM_LANE,
        "lane 32");
  group_done("pair cp", c0, f0);
}

/* One K = 64 step of an M = 256 MMA over a CTA pair, D checked bit-exactly against the
 * fused-fp32 reference: A rows 0..127 / 128..255 and B columns 0..N/2-1 / N/2..N-1 in the
 * even / odd CTA's shared memory, SFA of each CTA's rows and SFB of all N columns in each
 * CTA's TMEM. */
static void run_pair_mma(uint32_t N, uint32_t dcol, uint32_t sfacol, uint32_t sfbcol) {
  nvfp4_emu_err e;
  nvfp4_emu_cta_view v[2];
  static uint8_t a[256][32], bb[256][32], sa[256][4], sb[256][4];
  uint32_t col, m, n, k, half = N / 2, i;
  pair_views(v);
  for (m = 0; m < 256; ++m)
    for (k = 0; k < 32; ++k)
      a[m][k] = (uint8_t)rnd();
  for (n = 0; n < N; ++n)
    for (k = 0; k < 32; ++k)
      bb[n][k] = (uint8_t)rnd();
  for (m = 0; m < 256; ++m)
    for (k = 0; k < 4; ++k)
      sa[m][k] = random_scale(0);
  for (n = 0; n < N; ++n)
    for (k = 0; k < 4; ++k)
      sb[n][k] = random_scale(0);
  memset(g_smem, 0, SMEM_BYTES);
  memset(g_smem1, 0, SMEM_BYTES);
  {
    static uint8_t rows[256 * 128];
    uint32_t c;
    for (c = 0; c < 2; ++c) {
      uint8_t *smem = c ? g_smem1 : g_smem;
      memset(rows, 0, sizeof rows);
      for (m = 0; m < 128; ++m)
        memcpy(&rows[m * 128], a[128 * c + m], 32);
      tma_sw128_image(smem, 0x00000, rows, 128);
      memset(rows, 0, sizeof rows);
      for (n = 0; n < half; ++n)
        memcpy(&rows[n * 128], bb[half * c + n], 32);
      tma_sw128_image(smem, 0x08000, rows, half);
    }
  }
  nvfp4_emu_state_reset(&g_st);
  nvfp4_emu_state_reset(&g_st1);
  nvfp4_emu_state_alloc_pair(&g_st, &g_st1, 512, &col, &e);
  for (i = 0; i < NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS; ++i) {
    g_tmem[i] = 0x7FC01234u ^ i; /* NaN garbage: ignored with enable_input_d = 0 */
    g_tmem1[i] = 0x7FC04321u ^ i;
  }
  /* Scale factors as the warpx4 copies leave them: row r's four bytes in lane r (and every
   * lane quarter for B), column base + r / 32. */
  for (m = 0; m < 256; ++m) {
    uint32_t *t = m < 128 ? g_tmem : g_tmem1, r = m % 128, w = 0;
    for (k = 0; k < 4; ++k)
      w |= (uint32_t)sa[m][k] << (8 * k);
    t[(sfacol + r / 32) * 128 + r] = w;
  }
  for (n = 0; n < N; ++n) {
    uint32_t w = 0, q;
    for (k = 0; k < 4; ++k)
      w |= (uint32_t)sb[n][k] << (8 * k);
    for (q = 0; q < 4; ++q) {
      g_tmem[(sfbcol + n / 32) * 128 + 32 * q + n % 32] = w;
      g_tmem1[(sfbcol + n / 32) * 128 + 32 * q + n % 32] = w;
    }
  }
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16_cg2(v, &g_scratch, dcol, enc_sdesc(0, 0, 1024, 2),
                                                enc_sdesc(0x8000, 0, 1024, 2),
                                                enc_idesc_m256(N), 0, sfacol, sfbcol, &e) == 0,
        "mma cg2 N=%u: %s", N, e.text);
  {
    int mism = 0;
    for (m = 0; m < 256; ++m)
      for (n = 0; n < N; ++n) {
        double sum = 0;
        float want, got;
        for (k = 0; k < 64; ++k)
          sum += (ref_fp4(fp4_at(a[m], k)) * ref_e4m3(sa[m][k / 16])) *
                 (ref_fp4(fp4_at(bb[n], k)) * ref_e4m3(sb[n][k / 16]));
        want = (float)sum;
        got = emu_bits_to_float(m < 128 ? tm(m, dcol + n) : tm1(m - 128, dcol + n));
        if (emu_float_to_bits(got) != emu_float_to_bits(want) && mism++ < 5)
          CHECK(0, "cg2 N=%u D[%u][%u] = %.9g, reference %.9g", N, m, n, got, want);
      }
    CHECK(mism == 0, "cg2 N=%u: %d elements differ", N, mism);
  }
  {
    const uint32_t after = dcol + N; /* the column after D, when it holds no scale factor */
    const int sf = (after >= sfacol && after < sfacol + 2) ||
                   (after >= sfbcol && after < sfbcol + (N + 31) / 32);
    CHECK(sf || after >= NVFP4_EMU_TMEM_COLUMNS ||
              (g_tmem[after * 128] == (0x7FC01234u ^ (after * 128)) &&
               g_tmem1[after * 128] == (0x7FC04321u ^ (after * 128))),
          "cg2 N=%u writes N columns only", N);
  }
}

static void test_pair_mma(void) {
  int c0 = g_checks, f0 = g_failures;
  nvfp4_emu_err e;
  nvfp4_emu_cta_view v[2];
  uint32_t col;
  uint64_t ad = enc_sdesc(0, 0, 1024, 2), bd = enc_sdesc(0x8000, 0, 1024, 2);
  run_pair_mma(256, 0, 256, 260); /* the ab2_n256 shape: 8 SFB columns */
  run_pair_mma(128, 128, 0, 4);   /* ab2_n128 */
  run_pair_mma(16, 300, 0, 8);    /* the smallest N: one B row pair ... 8 rows per CTA */
  run_pair_mma(48, 64, 0, 4);     /* swap2: N per group, 2 SFB columns, 24 rows per CTA */
  pair_views(v);
  nvfp4_emu_state_reset(&g_st);
  nvfp4_emu_state_reset(&g_st1);
  nvfp4_emu_state_alloc_pair(&g_st, &g_st1, 256, &col, &e);
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16_cg2(v, &g_scratch, 0, ad, bd, enc_idesc_m256(128),
                                                0, 128, 132, &e) == 0,
        "baseline: %s", e.text);
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16_cg2(v, &g_scratch, 0, ad, bd, enc_idesc(128), 0,
                                                128, 132, &e) == NVFP4_EMU_ERR_IDESC_UNSUPPORTED,
        "M=128 cta_group::2 (Layout B) not emulated");
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16_cg2(v, &g_scratch, 0, ad, bd, enc_idesc_m256(24),
                                                0, 128, 132, &e) == NVFP4_EMU_ERR_IDESC_INVALID &&
            strstr(e.text, "steps of 16") != NULL,
        "N=24: %s", e.text);
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16(g_tmem, g_smem, &g_st, &g_scratch, 0, ad, bd,
                                            enc_idesc_m256(128), 0, 128, 132,
                                            &e) == NVFP4_EMU_ERR_IDESC_INVALID,
        "M=256 with cta_group::1");
  /* D inside the even CTA's allocation but not the odd's: nothing is computed. */
  nvfp4_emu_state_dealloc(&g_st1, 0, 256, &e);
  nvfp4_emu_state_alloc(&g_st1, 128, &col, &e);
  g_tmem[0] = 0x12345678u;
  CHECK(nvfp4_emu_core_mma_mxf4nvf4_block16_cg2(v, &g_scratch, 0, ad, bd, enc_idesc_m256(128),
                                                0, 128, 132, &e) == NVFP4_EMU_ERR_TMEM_RANGE &&
            strstr(e.text, "odd CTA") != NULL,
        "odd range: %s", e.text);
  CHECK(g_tmem[0] == 0x12345678u, "even CTA's D untouched after a failed check");
  group_done("pair mma", c0, f0);
}

/* The sm_120a MMA's lane arithmetic (nvfp4_emu_core_mma_sync_lane) against a dense
 * reference of docs/format.md's definition: every lane (g, t) of a warp gets A rows g and g + 8,
 * B columns 2 t and 2 t + 1, their scale words and C, and must return D of those four
 * places exactly (the sums are exact); full-range FP4 codes and ue4m3 scales including
 * subnormal ones. The selector checks: byte-ids 0, thread-id-a 0..1, thread-id-b 0..3. */
static void test_mma_sync(void) {
  const int c0 = g_checks, f0 = g_failures;
  static uint8_t A[16][64], B[64][8], SA[16][4], SB[8][4];
  static float C[16][8];
  for (int rep = 0; rep < 20; ++rep) {
    for (int m = 0; m < 16; ++m) for (int k = 0; k < 64; ++k) A[m][k] = rnd() & 15u;
    for (int k = 0; k < 64; ++k) for (int n = 0; n < 8; ++n) B[k][n] = rnd() & 15u;
    for (int m = 0; m < 16; ++m) for (int j = 0; j < 4; ++j) SA[m][j] = rnd() % 0x7Fu;
    for (int n = 0; n < 8; ++n) for (int j = 0; j < 4; ++j) SB[n][j] = rnd() % 0x7Fu;
    for (int m = 0; m < 16; ++m) for (int n = 0; n < 8; ++n) C[m][n] = (float)((int)(rnd() % 9) - 4);
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint32_t g = lane / 4, t = lane % 4;
      uint32_t a_rows[2][8] = {{0}}, b_cols[2][8] = {{0}}, sa[2], sb[2];
      float c[4], d[4];
      for (uint32_t h = 0; h < 2; ++h) {
        for (uint32_t k = 0; k < 64; ++k) {
          a_rows[h][k / 8] |= (uint32_t)A[g + 8 * h][k] << (4 * (k % 8));
          b_cols[h][k / 8] |= (uint32_t)B[k][2 * t + h] << (4 * (k % 8));
        }
        sa[h] = SA[g + 8 * h][0] | SA[g + 8 * h][1] << 8 | SA[g + 8 * h][2] << 16 |
                (uint32_t)SA[g + 8 * h][3] << 24;
        sb[h] = SB[2 * t + h][0] | SB[2 * t + h][1] << 8 | SB[2 * t + h][2] << 16 |
                (uint32_t)SB[2 * t + h][3] << 24;
      }
      for (uint32_t i = 0; i < 4; ++i) c[i] = C[g + 8 * (i / 2)][2 * t + i % 2];
      nvfp4_emu_core_mma_sync_lane((const uint32_t(*)[8])a_rows, (const uint32_t(*)[8])b_cols,
                                   sa, sb, c, d);
      for (uint32_t i = 0; i < 4; ++i) {
        const uint32_t m = g + 8 * (i / 2), n = 2 * t + i % 2;
        double want = C[m][n];
        for (uint32_t k = 0; k < 64; ++k)
          want += ref_fp4(A[m][k]) * ref_e4m3(SA[m][k / 16]) * ref_fp4(B[k][n]) *
                  ref_e4m3(SB[n][k / 16]);
        CHECK(d[i] == (float)want, "lane %u register %u: %g, want %g", lane, i, d[i], want);
      }
    }
  }
  nvfp4_emu_err e;
  CHECK(nvfp4_emu_core_mma_sync_check(0, 1, 0, 3, &e) == 0, "selectors 0/1/0/3 accepted");
  CHECK(nvfp4_emu_core_mma_sync_check(1, 0, 0, 0, &e) == NVFP4_EMU_ERR_MMA_SELECTOR &&
            strstr(e.text, "byte-ids 0") != NULL,
        "byte-id-a 1 refused: %s", e.text);
  CHECK(nvfp4_emu_core_mma_sync_check(0, 2, 0, 0, &e) == NVFP4_EMU_ERR_MMA_SELECTOR,
        "thread-id-a 2 refused");
  CHECK(nvfp4_emu_core_mma_sync_check(0, 0, 0, 4, &e) == NVFP4_EMU_ERR_MMA_SELECTOR,
        "thread-id-b 4 refused");
  group_done("mma.sync (sm_120a)", c0, f0);
}

int main(void) {
  test_formats();
  test_descriptors();
  test_swizzle();
  test_alloc();
  test_cp_ld();
  test_mma();
  test_mma_errors();
  test_mma_nan();
  test_pair_alloc();
  test_pair_cp();
  test_pair_mma();
  test_mma_sync();
  printf("%d checks, %d failures\n", g_checks, g_failures);
  if (g_failures) {
    printf("FAILED\n");
    return 1;
  }
  printf("ALL PASSED\n");
  return 0;
}
