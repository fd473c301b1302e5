/* DescriptorsSm120.c — the sm_120a kernel's layout arithmetic (include/nvfp4-c/DescriptorsSm120.h):
 * ldmatrix lane rows, mma.sync fragment elements, scale-factor slots and their sources. */
#include "nvfp4-c/DescriptorsSm120.h"

MlirNvfp4Sm120LdmatrixRow mlirNvfp4Sm120LdmatrixRowA(uint32_t lane) {
  /* matrix i = lane / 8 is a_i: a0 rows 0-7 / K half 0, a1 rows 8-15 / half 0, a2 rows 0-7 /
   * half 1, a3 rows 8-15 / half 1 */
  MlirNvfp4Sm120LdmatrixRow r = {lane % 16u, (lane / 16u) % 2u};
  return r;
}

MlirNvfp4Sm120LdmatrixRow mlirNvfp4Sm120LdmatrixRowB(uint32_t lane) {
  /* matrices 0, 1: b0, b1 of the first n8 block (its rows 0-7, K halves 0 and 1); 2, 3: of
   * the second (rows 8-15) */
  MlirNvfp4Sm120LdmatrixRow r = {lane % 8u + 8u * ((lane / 16u) % 2u), (lane / 8u) % 2u};
  return r;
}

uint32_t mlirNvfp4Sm120SwizzledChunk(uint32_t row, uint32_t chunk) {
  return row * 128u + 16u * ((chunk ^ row) % 8u);
}

MlirNvfp4Sm120Element mlirNvfp4Sm120FragmentA(uint32_t lane, uint32_t reg, uint32_t nibble) {
  MlirNvfp4Sm120Element e = {lane / 4u + 8u * (reg % 2u), 8u * (lane % 4u) + nibble + 32u * (reg / 2u)};
  return e;
}

MlirNvfp4Sm120Element mlirNvfp4Sm120FragmentB(uint32_t lane, uint32_t reg, uint32_t nibble) {
  MlirNvfp4Sm120Element e = {8u * (lane % 4u) + nibble + 32u * reg, lane / 4u};
  return e;
}

MlirNvfp4Sm120Element mlirNvfp4Sm120FragmentC(uint32_t lane, uint32_t reg) {
  MlirNvfp4Sm120Element e = {lane / 4u + 8u * (reg / 2u), 2u * (lane % 4u) + reg % 2u};
  return e;
}

MlirNvfp4Sm120ScaleSlot mlirNvfp4Sm120ScaleSlotA(uint32_t mBlock, uint32_t step) {
  MlirNvfp4Sm120ScaleSlot s = {2u * mBlock + step / 2u, step % 2u};
  return s;
}

MlirNvfp4Sm120ScaleSlot mlirNvfp4Sm120ScaleSlotB(uint32_t nBlock, uint32_t step) {
  MlirNvfp4Sm120ScaleSlot s = {nBlock, step};
  return s;
}

MlirNvfp4Sm120ScaleSource mlirNvfp4Sm120ScaleSourceA(uint32_t lane, uint32_t reg) {
  /* the pair (lane % 4) / 2 of the quad holds step 2 (reg % 2) + pair; its members hold rows
   * g and g + 8 */
  MlirNvfp4Sm120ScaleSource s = {lane / 4u + 8u * (lane % 2u), 2u * (reg % 2u) + (lane / 2u) % 2u};
  return s;
}

MlirNvfp4Sm120ScaleSource mlirNvfp4Sm120ScaleSourceB(uint32_t lane, uint32_t reg) {
  (void)reg; /* every n8 block has its own register, laid out alike */
  MlirNvfp4Sm120ScaleSource s = {lane / 4u, lane % 4u};
  return s;
}

uint32_t mlirNvfp4Sm120ScaleWord(uint32_t row, uint32_t step) {
  return 512u * step + (row % 32u) * 16u + ((row / 32u) % 4u) * 4u;
}
