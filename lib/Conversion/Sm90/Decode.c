/* Decode.c — FP4 (E2M1) x E4M3 scale -> BF16, exactly, as the sm_90a consumer warpgroups
 * do it (include/nvfp4-c/DescriptorsSm90.h has the arithmetic and its exhaustive test):
 *
 *   word x (8 FP4) -> 4 registers, pair p = (n_p, n_{p+4}):
 *       u = (x >> 8 (p / 2)) & mask_p ; R = (u * mult_p) & 0x81C081C0   (e2m1 * 2^-126)
 *       register = R * {S, S}   (bf16x2 multiply, exact; S = e4m3 * 2^119 from the table)
 *
 * Weights (wgmma A fragments): lane l of a warp reads 8 contiguous bytes (16 FP4, one
 * scale) of each of its two fragment rows per 64-K chunk: bytes 8 (l % 4) .. + 7 of the
 * chunk's 32, i.e. 16-byte chunk (2 q + (l % 4) / 2) of the 128-B swizzled row, half
 * (l % 4) % 2. Register i of instruction s is pair 2 s + i / 2 of row r0 (i even) or r0 + 8.
 * Tokens (wgmma B, 64 K x tile rows, 128-B swizzled BF16 rows): thread (row n, half ch)
 * reads one raw 16-byte chunk (groups 2 ch and 2 ch + 1), and writes 8 bytes into each of
 * the decoded row's eight 16-byte chunks: chunk c holds pair c of the four groups.
 */
#include "Sm90Kernel.h"

#include "../Nvvm.h"
#include "mlir-c/BuiltinTypes.h"
#include "nvfp4-c/DescriptorsSm90.h"

/* {S, S} for an E4M3 code (i32 0..255): the shared-memory scale table. */
static KbValue scaleOf(Sm90Kernel *k, KbValue code) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  KbValue addr = kbAdd(b, kbAddI(b, g->smem, g->cfg->sm90.lutOffset), kbMulI(b, code, 4));
  return kbLoad(b, b->i32, genSharedPtr(g, addr), 4);
}

/* The 4 scaled registers of one word (pairs 0..3). */
static void decodeWord(KbBuilder *b, KbValue x, KbValue scale, KbValue out[4]) {
  MlirType v2 = kbVecType(b, mlirBF16TypeGet(b->ctx), 2);
  KbValue s2 = kbBitcast(b, scale, v2);
  KbValue shifted = kbLShr(b, x, kbI32(b, mlirNvfp4Sm90PairSourceShift(2)));
  for (unsigned p = 0; p < 4; ++p) {
    KbValue src = mlirNvfp4Sm90PairSourceShift(p) ? shifted : x;
    KbValue u = kbAnd(b, src, kbI32(b, (int32_t)mlirNvfp4Sm90PairExtractMask(p)));
    KbValue r = kbAnd(b, kbMulI(b, u, mlirNvfp4Sm90PairMultiplier(p)),
                      kbI32(b, (int32_t)MLIR_NVFP4_SM90_PAIR_MASK));
    out[p] = kbBitcast(b, kbFMul(b, kbBitcast(b, r, v2), s2), b->i32);
  }
}

static KbValue loadU8(GenKernel *g, KbValue addr) {
  return kbZExt(g->b, kbLoad(g->b, g->b->i8, genSharedPtr(g, addr), 1), g->b->i32);
}

void sm90DecodeWeights(Sm90Kernel *k, KbValue stage, KbValue q, KbValue a[16]) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  const Sm90Consumer *c = &k->c;
  /* 16-byte chunk (2 q + t0 / 2) ^ (row % 8) of the row, 8-byte half t0 % 2: chunk 0's
   * offset (aLaneByte) with bits 5-6 flipped by q */
  KbValue row0 = kbAdd(b, kbAddI(b, stage, cfg->mOffset), kbXor(b, c->aLaneByte, kbMulI(b, q, 32)));
  MlirType v2i = kbVecType(b, b->i32, 2);
  KbValue w0 = kbLoad(b, v2i, genSharedPtr(g, row0), 8);
  KbValue w1 = kbLoad(b, v2i, genSharedPtr(g, kbAddI(b, row0, 8 * 128)), 8);
  KbValue sf = kbAdd(b, kbAddI(b, stage, cfg->sfmOffset), kbMulI(b, q, MLIR_NVFP4_SF_ATOM_BYTES));
  KbValue word[2][2] = {{kbExtract(b, w0, kbI32(b, 0)), kbExtract(b, w0, kbI32(b, 1))},
                        {kbExtract(b, w1, kbI32(b, 0)), kbExtract(b, w1, kbI32(b, 1))}};
  KbValue scale[2] = {scaleOf(k, loadU8(g, kbAdd(b, sf, c->aSf0))),
                      scaleOf(k, loadU8(g, kbAdd(b, sf, c->aSf1)))};
  KbValue R[2][8]; /* row r0 / r0 + 8, pairs of word 0 then word 1 */
  for (int w = 0; w < 2; ++w)
    for (int r = 0; r < 2; ++r) decodeWord(b, word[r][w], scale[r], &R[r][4 * w]);
  for (int s = 0; s < 4; ++s) {
    a[4 * s + 0] = R[0][2 * s];
    a[4 * s + 1] = R[1][2 * s];
    a[4 * s + 2] = R[0][2 * s + 1];
    a[4 * s + 3] = R[1][2 * s + 1];
  }
}

void sm90DecodeTokens(Sm90Kernel *k, KbValue stage, KbValue q, KbValue row, KbValue ch,
                      KbValue sfRow, KbValue buf) {
  GenKernel *g = &k->g;
  KbBuilder *b = g->b;
  const MlirNvfp4KernelConfig *cfg = g->cfg;
  KbValue phase = kbAnd(b, row, kbI32(b, 7)); /* the row's swizzle phase */
  KbValue rowByte = kbMulI(b, row, 128);
  KbValue chunk = kbAdd(b, kbMulI(b, q, 2), ch);
  KbValue src = kbAdd(b, kbAdd(b, kbAddI(b, stage, cfg->nOffset), rowByte),
                      kbMulI(b, kbXor(b, chunk, phase), 16));
  KbValue raw = kbLoad(b, kbVecType(b, b->i32, 4), genSharedPtr(g, src), 16);
  KbValue sf = kbAdd(b, kbAdd(b, kbAddI(b, stage, cfg->sfnOffset), kbMulI(b, q, MLIR_NVFP4_SF_ATOM_BYTES)),
                     sfRow);
  KbValue codes = kbZExt(b, kbLoad(b, b->i16, genSharedPtr(g, sf), 2), b->i32);
  KbValue scale[2] = {scaleOf(k, kbAnd(b, codes, kbI32(b, 0xFF))),
                      scaleOf(k, kbLShr(b, codes, kbI32(b, 8)))};
  KbValue R[2][8]; /* groups 2 ch, 2 ch + 1 */
  for (int grp = 0; grp < 2; ++grp)
    for (int w = 0; w < 2; ++w)
      decodeWord(b, kbExtract(b, raw, kbI32(b, 2 * grp + w)), scale[grp], &R[grp][4 * w]);
  MlirType v2i = kbVecType(b, b->i32, 2);
  KbValue dstRow = kbAdd(b, kbAdd(b, buf, rowByte), kbMulI(b, ch, 8));
  for (int cc = 0; cc < 8; ++cc) { /* decoded chunk cc: pair cc of the four groups */
    KbValue v = kbInsert(b, kbInsert(b, kbUndef(b, v2i), R[0][cc], kbI32(b, 0)), R[1][cc], kbI32(b, 1));
    KbValue dst = kbAdd(b, dstRow, kbMulI(b, kbXor(b, kbI32(b, cc), phase), 16));
    kbStore(b, v, genSharedPtr(g, dst), 8);
  }
}
