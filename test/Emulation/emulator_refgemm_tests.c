/* emulator_refgemm_tests.c — host cross-check of the tcgen05 emulation core against the
 * runtime's C reference GEMM.
 *
 * For a few small single-group problems made by libnvfp4rt's generator in full-range mode
 * (A/B packed FP4 K-major rows, SFA/SFB in the blocked layout of docs/format.md, exactly the
 * buffers a kernel receives), every 128 x tile_n output tile is computed the way the
 * sm_100a kernel does it (docs/kernel-sm100a.md):
 *   - per 256-K stage, the shared-memory images its four TMA boxes would produce: A as
 *     128 rows x 128 B and B as tile_n rows x 128 B with SWIZZLE_128B (tma_image.h),
 *     out-of-bounds rows and K zero-filled; SFA as 4 blocked 512-B atoms and SFB as
 *     sfb_atoms x 4 atoms copied as they are;
 *   - tcgen05.cp .32x128b.warpx4 of each atom into the stage's TMEM columns (SFA K block j
 *     at +4j, SFB K block j at +4 * sfb_atoms * j, atom a at +4a);
 *   - up to four tcgen05.mma kind::mxf4nvf4 block16 (K = 64) per stage, operand
 *     descriptors advancing by 32 B per K step, the MMA's SFB address shifted by
 *     (n0 mod 128) / 32 columns, enable_input_d = 0 only on the tile's first MMA.
 * Descriptors are encoded here by hand from the PTX ISA field layout (independently of
 * lib/Target). D (fp32) is read back from the emulated Tensor Memory, converted to fp16
 * with the runtime's converter and compared with nvfp4h_reference_gemm through
 * nvfp4h_check_group (docs/format.md's tolerances, nothing written outside M x N). A negative
 * control runs one case with the SFB column shift left out and expects mismatches.
 * The CTA-pair cases (pair = 1) drive the .cta_group::2 data path the way the 2-CTA (ab2)
 * kernel does: 256-row tiles, each of the two emulated CTAs holding its 128 rows of A (and
 * their SFA atom), half of the tile's B rows and all of its SFB atoms in its own shared
 * memory; tcgen05.cp.cta_group::2 and the M = 256 tcgen05.mma.cta_group::2; each CTA's
 * TMEM holding its 128 rows of D. A second negative control gives both CTAs the same B
 * half and expects mismatches.
 * Prints one line per case and "ALL PASSED" / exits non-zero on failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4_emu_core.h"
#include "nvfp4rt_host.h"
#include "tma_image.h"

static int g_failures;

/* ---------------------------------------------------------------------------------- */
/* Emulated machine state                                                             */
/* ---------------------------------------------------------------------------------- */

#define SMEM_BYTES (64u * 1024u)
/* CTA 0 (and the even CTA of a pair), and the odd CTA of a pair. */
static uint8_t g_smem[2][SMEM_BYTES];
static uint32_t g_tmem[2][NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS];
static nvfp4_emu_alloc_state g_st[2];
static nvfp4_emu_mma_scratch g_scratch;

/* One stage of shared memory, laid out like the kernel's (A, B, SFA, SFB); b_rows is the
 * number of B rows a CTA holds (tile_n, or tile_n / 2 in a CTA pair). */
#define A_OFF 0u
#define B_OFF 16384u
static uint32_t sfa_off(uint32_t b_rows) { return B_OFF + b_rows * 128u; }
static uint32_t sfb_off(uint32_t b_rows) { return sfa_off(b_rows) + 2048u; }

/* ---------------------------------------------------------------------------------- */
/* Descriptors, encoded from the PTX ISA tables                                       */
/* ---------------------------------------------------------------------------------- */

/* Shared memory descriptor (9.7.16.4.1): start address bits 0-13, leading byte offset
 * 16-29, stride byte offset 32-45 (each (x & 0x3FFFF) >> 4), fixed 0b001 in 46-48, base
 * offset 49-51 (0), LBO mode 52 (0), swizzle mode 61-63 (0 none, 2 128-byte). */
static uint64_t sdesc(uint32_t start, uint32_t lbo, uint32_t sbo, uint32_t swizzle) {
  return (uint64_t)((start & 0x3FFFFu) >> 4) | ((uint64_t)((lbo & 0x3FFFFu) >> 4) << 16) |
         ((uint64_t)((sbo & 0x3FFFFu) >> 4) << 32) | (1ull << 46) |
         ((uint64_t)(swizzle & 7u) << 61);
}

/* Instruction descriptor for .kind::mxf4nvf4 (9.7.16.4.2): atype E2M1 = 1 in bits 7-9,
 * btype E2M1 = 1 in bits 10-11, K-major (transpose bits 15/16 = 0), N >> 3 in bits 17-22,
 * scale type UE4M3 = 0 (bit 23), M >> 7 in bits 27-28, SFA/SFB ids 0, dense K = 64. */
static uint32_t idesc(uint32_t m, uint32_t n) {
  return (1u << 7) | (1u << 10) | ((n >> 3) << 17) | ((m >> 7) << 27);
}

static uint32_t taddr(uint32_t lane, uint32_t col) { return (lane << 16) | col; }

/* ---------------------------------------------------------------------------------- */
/* The kernel's data path for one output tile                                         */
/* ---------------------------------------------------------------------------------- */

typedef struct {
  uint32_t m, n, k, tile_n;
  uint64_t seed;
  int drop_sfb_shift; /* negative control: omit the (n0 mod 128)/32 SFB column shift */
  int expect_fail;
  int pair;           /* 1: a CTA pair (cta_group::2, 256-row tiles); 2: the same with
                         both CTAs given the first B half (negative control) */
} xcase;

static float bits_to_float(uint32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

/* The TMA boxes of stage st into CTA `cta`'s shared memory: 128 A rows from row a_row0,
 * b_rows B rows from row b_row0, the SFA atoms of A's rows, the SFB atoms of the tile's
 * sfb_atoms atom rows from row n0. */
static void load_stage(const nvfp4h_group_data *g, uint32_t cta, uint32_t a_row0,
                       uint32_t b_row0, uint32_t b_rows, uint32_t n0, uint32_t sfb_atoms,
                       uint32_t st) {
  static uint8_t rows[256 * 128];
  const uint32_t row_bytes = g->k / 2, rk = (g->k + 63) / 64;
  const uint32_t m_atoms = (g->m + 127) / 128, n_atoms = (g->n + 127) / 128;
  const uint32_t m_atom = a_row0 / 128;
  uint8_t *smem = g_smem[cta];
  uint32_t r, b, j, a;

  memset(smem, 0xA5, SMEM_BYTES); /* whatever an earlier stage left */
  /* A: box {256 K, 128 rows} at (K = 256 st, row a_row0); zero fill outside. */
  for (r = 0; r < 128; ++r)
    for (b = 0; b < 128; ++b) {
      uint32_t gm = a_row0 + r, kb = st * 128 + b;
      rows[r * 128 + b] = (gm < g->m && kb < row_bytes) ? g->a[(size_t)gm * row_bytes + kb] : 0;
    }
  tma_sw128_image(smem, A_OFF, rows, 128);
  /* B: box {256 K, b_rows rows} at (K = 256 st, row b_row0). */
  for (r = 0; r < b_rows; ++r)
    for (b = 0; b < 128; ++b) {
      uint32_t gn = b_row0 + r, kb = st * 128 + b;
      rows[r * 128 + b] = (gn < g->n && kb < row_bytes) ? g->b[(size_t)gn * row_bytes + kb] : 0;
    }
  tma_sw128_image(smem, B_OFF, rows, b_rows);
  /* SFA: 2048 B = atoms 4 st .. 4 st + 3 of A's atom row (atom row = 128 rows, rk atoms of
   * 64 K each); SFB: the same for atom rows n0/128 .. + sfb_atoms - 1, 2048 B each. */
  for (j = 0; j < 4; ++j) {
    uint32_t col = 4 * st + j;
    uint8_t *dst = &smem[sfa_off(b_rows) + 512 * j];
    if (col < rk && m_atom < m_atoms)
      memcpy(dst, g->sfa + ((size_t)m_atom * rk + col) * 512, 512);
    else
      memset(dst, 0, 512);
    for (a = 0; a < sfb_atoms; ++a) {
      uint32_t nr = n0 / 128 + a;
      dst = &smem[sfb_off(b_rows) + 2048 * a + 512 * j];
      if (col < rk && nr < n_atoms)
        memcpy(dst, g->sfb + ((size_t)nr * rk + col) * 512, 512);
      else
        memset(dst, 0, 512);
    }
  }
}

/* Computes the tile and stores its in-bounds part into got (fp16, row stride ldc).
 * Returns the number of emulator errors. */
static int run_tile(const xcase *xc, const nvfp4h_group_data *g, uint32_t m_blk, uint32_t n0,
                    uint16_t *got) {
  const uint32_t tile_n = xc->tile_n, sfb_atoms = tile_n <= 128 ? 1 : 2;
  const uint32_t dcol = 0, sfa0 = tile_n, sfb0 = tile_n + 16;
  const uint32_t stages = (g->k + 255) / 256;
  const uint32_t shift = xc->drop_sfb_shift ? 0 : (n0 % 128) / 32;
  uint32_t col, st, j, i, r, c, first = 1;
  int errors = 0;
  nvfp4_emu_err e;

  for (i = 0; i < NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS; ++i)
    g_tmem[0][i] = 0x7FC05A5Au ^ i; /* NaN garbage: TMEM is undefined after alloc */
  nvfp4_emu_state_reset(&g_st[0]);
  if (nvfp4_emu_state_alloc(&g_st[0], 512, &col, &e) != 0 || col != 0) {
    fprintf(stderr, "FAIL: tcgen05.alloc: %s\n", e.text);
    return 1;
  }
  for (st = 0; st < stages; ++st) {
    uint32_t ksteps = (g->k - 256 * st) / 64;
    if (ksteps > 4)
      ksteps = 4;
    load_stage(g, 0, m_blk * 128, n0, tile_n, n0, sfb_atoms, st);
    /* Scale factors into TMEM: source descriptors without swizzle, SBO 128 B. */
    for (j = 0; j < 4; ++j) {
      uint32_t a;
      if (nvfp4_emu_core_cp_32x128b_warpx4(g_tmem[0], g_smem[0], &g_st[0], taddr(0, sfa0 + 4 * j),
                                           sdesc(sfa_off(tile_n) + 512 * j, 0, 128, 0), &e)) {
        fprintf(stderr, "FAIL: cp SFA stage %u atom %u: %s\n", st, j, e.text);
        ++errors;
      }
      for (a = 0; a < sfb_atoms; ++a)
        if (nvfp4_emu_core_cp_32x128b_warpx4(
                g_tmem[0], g_smem[0], &g_st[0], taddr(0, sfb0 + 4 * sfb_atoms * j + 4 * a),
                sdesc(sfb_off(tile_n) + 2048 * a + 512 * j, 0, 128, 0), &e)) {
          fprintf(stderr, "FAIL: cp SFB stage %u atom %u/%u: %s\n", st, j, a, e.text);
          ++errors;
        }
    }
    /* MMAs: K-major SWIZZLE_128B operands, SBO 1024 B, start + 32 B per K = 64 step. */
    for (j = 0; j < ksteps; ++j) {
      uint32_t code = nvfp4_emu_core_mma_mxf4nvf4_block16(
          g_tmem[0], g_smem[0], &g_st[0], &g_scratch, taddr(0, dcol),
          sdesc(A_OFF + 32 * j, 0, 1024, 2), sdesc(B_OFF + 32 * j, 0, 1024, 2),
          idesc(128, tile_n), first ? 0u : 1u, taddr(0, sfa0 + 4 * j),
          taddr(0, sfb0 + 4 * sfb_atoms * j + shift), &e);
      if (code) {
        fprintf(stderr, "FAIL: mma stage %u step %u: %s\n", st, j, e.text);
        ++errors;
      }
      first = 0;
    }
  }
  /* Epilogue: row m of the tile in lane m, column n at dcol + n; predicated stores. */
  for (r = 0; r < 128 && m_blk * 128 + r < g->m; ++r)
    for (c = 0; c < tile_n && n0 + c < g->n; ++c)
      got[(size_t)(m_blk * 128 + r) * g->ldc + n0 + c] =
          nvfp4h_float_to_half(bits_to_float(g_tmem[0][(dcol + c) * NVFP4_EMU_TMEM_LANES + r]));
  return errors;
}

/* The 256 x tile_n tile of a CTA pair at (256-row block m_blk2, n0), as the ab2 kernel
 * computes it: CTA c (0 even, 1 odd) loads A rows 256 m_blk2 + 128 c and their SFA atoms,
 * B rows n0 + c tile_n / 2 (tile_n / 2 of them) and every SFB atom of the tile; the leader
 * issues tcgen05.cp.cta_group::2 and the M = 256 tcgen05.mma.cta_group::2 once per atom / K
 * step at the same TMEM addresses for both CTAs. */
static int run_tile_pair(const xcase *xc, const nvfp4h_group_data *g, uint32_t m_blk2,
                         uint32_t n0, uint16_t *got) {
  const uint32_t tile_n = xc->tile_n, half = tile_n / 2, sfb_atoms = tile_n <= 128 ? 1 : 2;
  const uint32_t dcol = 0, sfa0 = tile_n, sfb0 = tile_n + 16;
  const uint32_t stages = (g->k + 255) / 256, shift = (n0 % 128) / 32;
  uint32_t col, st, j, i, r, c, cta, first = 1;
  int errors = 0;
  nvfp4_emu_err e;
  nvfp4_emu_cta_view pair[2];

  for (cta = 0; cta < 2; ++cta) {
    for (i = 0; i < NVFP4_EMU_TMEM_LANES * NVFP4_EMU_TMEM_COLUMNS; ++i)
      g_tmem[cta][i] = 0x7FC05A5Au ^ i ^ cta;
    nvfp4_emu_state_reset(&g_st[cta]);
    pair[cta].tmem = g_tmem[cta];
    pair[cta].smem = g_smem[cta];
    pair[cta].st = &g_st[cta];
  }
  if (nvfp4_emu_state_alloc_pair(&g_st[0], &g_st[1], 512, &col, &e) != 0 || col != 0) {
    fprintf(stderr, "FAIL: tcgen05.alloc.cta_group::2: %s\n", e.text);
    return 1;
  }
  for (st = 0; st < stages; ++st) {
    uint32_t ksteps = (g->k - 256 * st) / 64;
    if (ksteps > 4)
      ksteps = 4;
    for (cta = 0; cta < 2; ++cta) /* negative control: the odd CTA loads the even's half */
      load_stage(g, cta, m_blk2 * 256 + 128 * cta, n0 + (xc->pair == 2 ? 0 : half * cta), half,
                 n0, sfb_atoms, st);
    for (j = 0; j < 4; ++j) {
      uint32_t a;
      if (nvfp4_emu_core_cp_32x128b_warpx4_cg2(pair, taddr(0, sfa0 + 4 * j),
                                               sdesc(sfa_off(half) + 512 * j, 0, 128, 0), &e)) {
        fprintf(stderr, "FAIL: cp cg2 SFA stage %u atom %u: %s\n", st, j, e.text);
        ++errors;
      }
      for (a = 0; a < sfb_atoms; ++a)
        if (nvfp4_emu_core_cp_32x128b_warpx4_cg2(
                pair, taddr(0, sfb0 + 4 * sfb_atoms * j + 4 * a),
                sdesc(sfb_off(half) + 2048 * a + 512 * j, 0, 128, 0), &e)) {
          fprintf(stderr, "FAIL: cp cg2 SFB stage %u atom %u/%u: %s\n", st, j, a, e.text);
          ++errors;
        }
    }
    for (j = 0; j < ksteps; ++j) {
      uint32_t code = nvfp4_emu_core_mma_mxf4nvf4_block16_cg2(
          pair, &g_scratch, taddr(0, dcol), sdesc(A_OFF + 32 * j, 0, 1024, 2),
          sdesc(B_OFF + 32 * j, 0, 1024, 2), idesc(256, tile_n), first ? 0u : 1u,
          taddr(0, sfa0 + 4 * j), taddr(0, sfb0 + 4 * sfb_atoms * j + shift), &e);
      if (code) {
        fprintf(stderr, "FAIL: mma cg2 stage %u step %u: %s\n", st, j, e.text);
        ++errors;
      }
      first = 0;
    }
  }
  /* Epilogue of each CTA: its row r of D in lane r, C row 256 m_blk2 + 128 cta + r. */
  for (cta = 0; cta < 2; ++cta)
    for (r = 0; r < 128 && m_blk2 * 256 + 128 * cta + r < g->m; ++r)
      for (c = 0; c < tile_n && n0 + c < g->n; ++c)
        got[(size_t)(m_blk2 * 256 + 128 * cta + r) * g->ldc + n0 + c] = nvfp4h_float_to_half(
            bits_to_float(g_tmem[cta][(dcol + c) * NVFP4_EMU_TMEM_LANES + r]));
  return errors;
}

static void run_case(const xcase *xc) {
  nvfp4h_shape shape = {xc->m, xc->n, xc->k};
  static nvfp4h_problem p;
  const nvfp4h_group_data *g;
  uint16_t *got, *ref;
  uint32_t m_blk, n0, tiles = 0;
  uint64_t exact = 0, i;
  int errors = 0, passed;
  nvfp4h_check_result res;

  if (nvfp4h_problem_generate(&shape, 1, xc->seed, NVFP4H_DIST_FULL_RANGE, &p) != 0) {
    printf("refgemm M=%u N=%u K=%u tile_n=%u: generator failed, 1 failures\n", xc->m, xc->n,
           xc->k, xc->tile_n);
    ++g_failures;
    return;
  }
  g = &p.groups[0];
  got = malloc(g->c_alloc_bytes);
  ref = malloc((size_t)g->m * g->ldc * 2 + 2);
  if (!got || !ref) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  memcpy(got, g->c, g->c_alloc_bytes); /* C as uploaded: pre-filled garbage + guard row */
  for (m_blk = 0; m_blk * (xc->pair ? 256 : 128) < g->m; ++m_blk)
    for (n0 = 0; n0 < g->n; n0 += xc->tile_n, ++tiles)
      errors += xc->pair ? run_tile_pair(xc, g, m_blk, n0, got) : run_tile(xc, g, m_blk, n0, got);
  if (nvfp4h_reference_gemm(g, ref, g->ldc, 1) != 0) {
    fprintf(stderr, "reference GEMM out of memory\n");
    exit(2);
  }
  nvfp4h_check_init(&res);
  nvfp4h_check_group(g, got, ref, 0, &res);
  for (i = 0; i < (uint64_t)g->m * g->n; ++i) {
    size_t at = (size_t)(i / g->n) * g->ldc + i % g->n;
    exact += got[at] == ref[at];
  }
  passed = nvfp4h_check_passed(&res) && errors == 0;
  if (!xc->expect_fail && !passed) {
    uint32_t q;
    for (q = 0; q < res.reported; ++q)
      fprintf(stderr, "FAIL: C[%u][%u] = %.9g, reference %.9g\n", res.first[q].row,
              res.first[q].col, res.first[q].got, res.first[q].ref);
    for (q = 0; q < res.outside_reported; ++q)
      fprintf(stderr, "FAIL: wrote outside M x N at [%u][%u]\n", res.first_outside[q].row,
              res.first_outside[q].col);
  }
  {
    int fail = xc->expect_fail ? (passed || res.mismatches == 0) : !passed;
    g_failures += fail;
    printf("refgemm M=%u N=%u K=%u tile_n=%u%s%s: %u tiles, %llu checked, %llu mismatches, "
           "%llu outside writes, %llu bit-exact, max abs %.3g, max rel %.3g, %s%d failures\n",
           xc->m, xc->n, xc->k, xc->tile_n, xc->pair ? " cta_group::2" : "",
           xc->drop_sfb_shift ? " (no SFB shift)" : xc->pair == 2 ? " (one B half twice)" : "",
           tiles,
           (unsigned long long)res.checked, (unsigned long long)res.mismatches,
           (unsigned long long)res.outside_writes, (unsigned long long)exact, res.max_abs,
           res.max_rel, xc->expect_fail ? "mismatches expected, " : "", fail);
  }
  free(got);
  free(ref);
  nvfp4h_problem_free(&p);
}

int main(void) {
  static const xcase cases[] = {
      {128, 128, 256, 128, 1111, 0, 0, 0}, /* one full stage, one SFB atom */
      {128, 256, 128, 256, 1112, 0, 0, 0}, /* two SFB atoms, 8 columns per step, half stage */
      {100, 192, 64, 192, 1113, 0, 0, 0},  /* ragged M, 6 SFB columns, a single K step */
      {100, 64, 256, 64, 1114, 0, 0, 0},   /* ragged M, 2 SFB columns */
      {128, 128, 256, 64, 1115, 0, 0, 0},  /* 2nd tile starts at row 64 of the atom: +2 */
      {200, 200, 320, 64, 1116, 0, 0, 0},  /* two M tiles, ragged N, 1 full + 1 partial stage */
      {100, 384, 128, 192, 1117, 0, 0, 0}, /* 192-wide tile at row 64 of atom 1: +2 */
      {128, 128, 256, 64, 1115, 1, 1, 0},  /* negative control: the +2 shift left out */
      {256, 256, 256, 256, 1121, 0, 0, 1}, /* CTA pair: one 256 x 256 tile, 2 SFB atoms */
      {300, 200, 320, 128, 1122, 0, 0, 1}, /* ragged M over two pair tiles, ragged N */
      {130, 384, 64, 256, 1123, 0, 0, 1},  /* odd CTA's rows mostly past M, one K step */
      {256, 128, 256, 128, 1124, 0, 1, 2}, /* negative control: both CTAs hold one B half */
  };
  unsigned i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    run_case(&cases[i]);
  if (g_failures) {
    printf("FAILED\n");
    return 1;
  }
  printf("ALL PASSED\n");
  return 0;
}
