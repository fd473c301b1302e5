/* DescriptorSm120Tests.c — host tests of include/nvfp4-c/DescriptorsSm120.h against the PTX
 * ISA's tables, transcribed here on their own:
 *   - the operands: a stage row in shared memory (128-byte swizzle, two FP4 per byte, the low
 *     nibble first), the lanes' ldmatrix.x4 row addresses (mlirNvfp4Sm120LdmatrixRowA / B,
 *     mlirNvfp4Sm120SwizzledChunk) and ldmatrix's delivery rule (9.7.14.5.15) give every
 *     register nibble of every lane an element of memory; it must be the element the
 *     m16n8k64 .e2m1 fragment tables (9.7.14.5.11) put there, for all four 64-K steps;
 *   - the fragment helpers against those tables, and C as a bijection onto 16 x 8;
 *   - the scale factors: for every m16 / n8 block, 64-K step and row / column, the lane the
 *     ISA's thread-id selector rules (9.7.14.3) read the scale from, given the selector the
 *     generator uses (mlirNvfp4Sm120ScaleSlotA / B), must have loaded exactly that row's
 *     scales of that step into that register (mlirNvfp4Sm120ScaleSourceA / B); every
 *     selector value is used;
 *   - the scale word offsets against docs/format.md's byte formula ("The blocked scale-factor layout").
 * Prints FAIL lines and a summary. */
#include <stdio.h>
#include <string.h>

#include "nvfp4-c/DescriptorsSm120.h"

static int gPassed, gFailed;

static void check(int ok, const char *what, unsigned a, unsigned b, unsigned c) {
  if (ok) {
    ++gPassed;
  } else {
    ++gFailed;
    printf("FAIL: %s (%u, %u, %u)\n", what, a, b, c);
  }
}

/* ---- the ISA's tables ------------------------------------------------------------------ */

/* 9.7.14.5.11, m16n8k64 .e2m1 A fragment: element a_i (i = 0..31) of a lane. */
static void isaA(unsigned lane, unsigned i, unsigned *row, unsigned *col) {
  const unsigned groupID = lane >> 2, threadID_in_group = lane % 4;
  *row = (i < 8 || (i >= 16 && i < 24)) ? groupID : groupID + 8;
  *col = i < 16 ? threadID_in_group * 8 + (i & 0x7) : threadID_in_group * 8 + (i & 0x7) + 32;
}
/* B fragment: element b_i (i = 0..15). */
static void isaB(unsigned lane, unsigned i, unsigned *row, unsigned *col) {
  const unsigned groupID = lane >> 2, threadID_in_group = lane % 4;
  *row = i < 8 ? threadID_in_group * 8 + (i & 0x7) : threadID_in_group * 8 + (i & 0x7) + 32;
  *col = groupID;
}
/* C/D fragment: c_i (i = 0..3). */
static void isaC(unsigned lane, unsigned i, unsigned *row, unsigned *col) {
  const unsigned groupID = lane >> 2, threadID_in_group = lane % 4;
  *row = i < 2 ? groupID : groupID + 8;
  *col = threadID_in_group * 2 + (i & 0x1);
}
/* 9.7.14.3, .scale_vec::4X: the lane supplying row m of scale-A under thread-id-a tid (the
 * thread pair 2 tid, 2 tid + 1 of quad m % 8; its second thread for rows 8-15), and column
 * n of scale-B under thread-id-b tid. */
static unsigned isaScaleLaneA(unsigned m, unsigned tid) { return 4 * (m % 8) + 2 * tid + m / 8; }
static unsigned isaScaleLaneB(unsigned n, unsigned tid) { return 4 * n + tid; }

/* ---- shared memory --------------------------------------------------------------------- */

/* The (row, K) of the FP4 element in nibble `nib` (0 low) of byte `byte` of a 16-row
 * block stored with the 128-byte swizzle (16-byte chunk c of row r at chunk c ^ r % 8). */
static void elementAt(unsigned byte, unsigned nib, unsigned *row, unsigned *k) {
  const unsigned r = byte / 128, physical = (byte % 128) / 16;
  const unsigned logical = physical ^ (r % 8);
  *row = r;
  *k = 2 * (16 * logical + byte % 16) + nib;
}

/* ldmatrix.x4 (9.7.14.5.15): lane L's register i is the 32-bit word at byte 4 (L % 4) of
 * the row whose address lane 8 i + L / 4 gave. */
static unsigned ldmatrixByte(const unsigned addr[32], unsigned lane, unsigned i) {
  return addr[8 * i + lane / 4] + 4 * (lane % 4);
}

static void operandTests(void) {
  for (unsigned step = 0; step < 4; ++step) {
    unsigned aAddr[32], bAddr[32];
    for (unsigned l = 0; l < 32; ++l) {
      MlirNvfp4Sm120LdmatrixRow a = mlirNvfp4Sm120LdmatrixRowA(l), b = mlirNvfp4Sm120LdmatrixRowB(l);
      check(a.row < 16 && a.half < 2 && b.row < 16 && b.half < 2, "ldmatrix row in range", l, 0, 0);
      aAddr[l] = mlirNvfp4Sm120SwizzledChunk(a.row, 2 * step + a.half);
      bAddr[l] = mlirNvfp4Sm120SwizzledChunk(b.row, 2 * step + b.half);
      check(aAddr[l] % 16 == 0 && bAddr[l] % 16 == 0, "ldmatrix row address 16-byte aligned", l, 0, 0);
    }
    for (unsigned l = 0; l < 32; ++l) {
      for (unsigned i = 0; i < 32; ++i) { /* A: registers a0..a3 */
        unsigned row, k, wantRow, wantCol;
        const unsigned byte = ldmatrixByte(aAddr, l, i / 8) + (i % 8) / 2;
        elementAt(byte, i % 2, &row, &k);
        isaA(l, i, &wantRow, &wantCol);
        check(row == wantRow && k == 64 * step + wantCol, "A element from ldmatrix", l, i, step);
        MlirNvfp4Sm120Element e = mlirNvfp4Sm120FragmentA(l, i / 8, i % 8);
        check(e.row == wantRow && e.col == wantCol, "FragmentA against the ISA table", l, i, 0);
      }
      for (unsigned i = 0; i < 32; ++i) { /* two n8 blocks: b0, b1 of block 0, then block 1 */
        const unsigned block = i / 16, bi = i % 16;
        unsigned row, k, wantK, wantCol;
        const unsigned byte = ldmatrixByte(bAddr, l, 2 * block + bi / 8) + (bi % 8) / 2;
        elementAt(byte, bi % 2, &row, &k);
        isaB(l, bi, &wantK, &wantCol);
        check(row == 8 * block + wantCol && k == 64 * step + wantK, "B element from ldmatrix", l, i,
              step);
        MlirNvfp4Sm120Element e = mlirNvfp4Sm120FragmentB(l, bi / 8, bi % 8);
        check(e.row == wantK && e.col == wantCol, "FragmentB against the ISA table", l, bi, 0);
      }
    }
  }
  unsigned seen[16][8];
  memset(seen, 0, sizeof seen);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row, col;
      isaC(l, i, &row, &col);
      MlirNvfp4Sm120Element e = mlirNvfp4Sm120FragmentC(l, i);
      check(e.row == row && e.col == col, "FragmentC against the ISA table", l, i, 0);
      if (e.row < 16 && e.col < 8) seen[e.row][e.col]++;
    }
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned c = 0; c < 8; ++c) check(seen[r][c] == 1, "C fragment covers 16 x 8 once", r, c, 0);
}

static void scaleTests(void) {
  unsigned usedA[4][2] = {{0}}, usedB[16][4] = {{0}};
  for (unsigned mb = 0; mb < 2; ++mb)
    for (unsigned step = 0; step < 4; ++step) {
      MlirNvfp4Sm120ScaleSlot s = mlirNvfp4Sm120ScaleSlotA(mb, step);
      check(s.tid <= 1 && s.reg / 2 == mb && s.reg < 4, "A slot: thread-id-a 0..1, the block's registers",
            mb, step, s.reg);
      if (s.tid <= 1 && s.reg < 4) usedA[s.reg][s.tid]++;
      for (unsigned m = 0; m < 16; ++m) {
        MlirNvfp4Sm120ScaleSource src = mlirNvfp4Sm120ScaleSourceA(isaScaleLaneA(m, s.tid), s.reg);
        check(src.row == m && src.step == step, "A scale: the selected lane holds the row's step", mb,
              step, m);
      }
    }
  for (unsigned nb = 0; nb < 16; ++nb)
    for (unsigned step = 0; step < 4; ++step) {
      MlirNvfp4Sm120ScaleSlot s = mlirNvfp4Sm120ScaleSlotB(nb, step);
      check(s.tid <= 3 && s.reg == nb, "B slot: thread-id-b 0..3, the block's register", nb, step, s.reg);
      if (s.tid <= 3 && s.reg < 16) usedB[s.reg][s.tid]++;
      for (unsigned n = 0; n < 8; ++n) {
        MlirNvfp4Sm120ScaleSource src = mlirNvfp4Sm120ScaleSourceB(isaScaleLaneB(n, s.tid), s.reg);
        check(src.row == n && src.step == step, "B scale: the selected lane holds the column's step",
              nb, step, n);
      }
    }
  /* every (register, selector) pair is one MMA's: the selectors carry information */
  for (unsigned r = 0; r < 4; ++r)
    for (unsigned t = 0; t < 2; ++t) check(usedA[r][t] == 1, "A (register, thread-id) used once", r, t, 0);
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned t = 0; t < 4; ++t) check(usedB[r][t] == 1, "B (register, thread-id) used once", r, t, 0);
  /* docs/format.md, "The blocked scale-factor layout": the byte of SF[r, j] in one atom row of 4 atoms (RK = 4) */
  for (unsigned r = 0; r < 128; ++r)
    for (unsigned j = 0; j < 16; ++j) {
      const unsigned want = (j / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + j % 4;
      check(mlirNvfp4Sm120ScaleWord(r, j / 4) + j % 4 == want, "scale word offset", r, j, want);
    }
}

int main(void) {
  operandTests();
  scaleTests();
  printf("SUMMARY: %d passed, %d failed\n", gPassed, gFailed);
  return gFailed ? 1 : 0;
}
