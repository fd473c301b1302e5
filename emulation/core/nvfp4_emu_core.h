/* nvfp4_emu_core.h — portable core of the tcgen05 emulation library.
 *
 * Decoders (shared memory matrix descriptor, instruction descriptor for
 * kind::mxf4nvf4, TMEM addresses), element formats (FP4 E2M1, FP8 E4M3), the K-major
 * shared-memory address mapping with every swizzle mode, the per-CTA TMEM allocation table,
 * and the data paths of tcgen05.cp .32x128b.warpx4, tcgen05.mma kind::mxf4nvf4 block16 and
 * tcgen05.ld .32x32b, in their .cta_group::1 forms and the .cta_group::2 forms that act on
 * both CTAs of a CTA pair (a "view" per CTA: its TMEM, shared memory and allocation table). Everything is `static` C11 so that the same text is compiled for the
 * device (by emulation/device/nvfp4_emu.c, for nvptx64) and for the host (unit tests).
 *
 * Platform hooks: shared memory is read through nvfp4_emu_smem_ld16(); on the host it
 * indexes a caller-provided buffer that stands for the shared::cta window, on the device
 * it is an ld.shared at the descriptor address, or, for the sentinel NVFP4_EMU_SMEM_PEER, an
 * ld.shared::cluster of the same address in the peer CTA. TMEM cells are 32-bit words of the global
 * workspace, column-major: cell (lane, column) is word column * 128 + lane.
 *
 * Every check returns an nvfp4_emu_error code and a message; the device layer turns a
 * non-zero code into a trap, the host tests compare codes.
 */
#ifndef NVFP4_EMU_CORE_H
#define NVFP4_EMU_CORE_H

#include <stdint.h>

#include "nvfp4_emu.h"
#include "nvfp4_emu_errors.h"

#if defined(__NVPTX__)
#define NVFP4_EMU_GLOBAL __attribute__((address_space(1)))
#else
#include <string.h>
#define NVFP4_EMU_GLOBAL
#endif

/* Full unrolling of small constant loops (keeps the MMA's per-column arrays in registers). */
#if defined(__clang__)
#define NVFP4_EMU_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define NVFP4_EMU_UNROLL _Pragma("GCC unroll 16")
#else
#define NVFP4_EMU_UNROLL
#endif

/* One TMEM cell as stored in the workspace. */
typedef NVFP4_EMU_GLOBAL uint32_t nvfp4_emu_tmem_word;

/* ------------------------------------------------------------------------------------ */
/* Error messages                                                                        */
/* ------------------------------------------------------------------------------------ */

typedef struct {
  uint32_t code;
  uint32_t len;
  char text[200];
} nvfp4_emu_err;

static inline void emu_err_str(nvfp4_emu_err *e, const char *s) {
  while (*s && e->len + 1 < sizeof e->text)
    e->text[e->len++] = *s++;
  e->text[e->len] = 0;
}

static inline void emu_err_u32(nvfp4_emu_err *e, uint32_t v) {
  char tmp[12];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n && e->len + 1 < sizeof e->text)
    e->text[e->len++] = tmp[--n];
  e->text[e->len] = 0;
}

static inline void emu_err_hex(nvfp4_emu_err *e, uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  int shift = 60;
  emu_err_str(e, "0x");
  while (shift > 0 && ((v >> shift) & 0xF) == 0)
    shift -= 4;
  for (; shift >= 0; shift -= 4) {
    if (e->len + 1 >= sizeof e->text)
      break;
    e->text[e->len++] = digits[(v >> shift) & 0xF];
  }
  e->text[e->len] = 0;
}

/* Starts a message "nvfp4-emu: <op>: <what>" and records the code. */
static inline uint32_t emu_fail(nvfp4_emu_err *e, uint32_t code, const char *op,
                                const char *what) {
  e->code = code;
  e->len = 0;
  e->text[0] = 0;
  emu_err_str(e, "nvfp4-emu: ");
  emu_err_str(e, op);
  emu_err_str(e, ": ");
  emu_err_str(e, what);
  return code;
}

/* ------------------------------------------------------------------------------------ */
/* Element formats                                                                       */
/* ------------------------------------------------------------------------------------ */

static inline float emu_bits_to_float(uint32_t b) {
  float f;
#if defined(__NVPTX__)
  __builtin_memcpy(&f, &b, 4);
#else
  memcpy(&f, &b, 4);
#endif
  return f;
}

static inline uint32_t emu_float_to_bits(float f) {
  uint32_t b;
#if defined(__NVPTX__)
  __builtin_memcpy(&b, &f, 4);
#else
  memcpy(&b, &f, 4);
#endif
  return b;
}

/* FP4 E2M1 code (bit 3 sign, bits 2..1 exponent with bias 1, bit 0 mantissa) as twice its
 * value, an integer in {0, ±1, ±2, ±3, ±4, ±6, ±8, ±12}. */
static inline int32_t nvfp4_emu_e2m1_x2(uint32_t code) {
  uint32_t mag = code & 7u, e = mag >> 1, m = mag & 1u;
  int32_t v = e == 0 ? (int32_t)m : (int32_t)((2u + m) << (e - 1u));
  return (code & 8u) ? -v : v;
}

static inline float nvfp4_emu_e2m1_to_float(uint32_t code) {
  return (float)nvfp4_emu_e2m1_x2(code) * 0.5f;
}

/* FP8 E4M3 (bias 7, no infinities, S.1111.111 = NaN): the scale-factor format UE4M3.
 * The sign bit is decoded as a sign (E4M3FN), see README "ambiguities". */
static inline float nvfp4_emu_e4m3_to_float(uint32_t byte) {
  uint32_t s = (byte >> 7) & 1u, e = (byte >> 3) & 15u, m = byte & 7u;
  float v;
  if (e == 15u && m == 7u)
    return emu_bits_to_float(0x7FC00000u | (s << 31));
  if (e == 0u)
    v = (float)m * (1.0f / 512.0f); /* m/8 * 2^-6 */
  else
    v = (float)(8u + m) * emu_bits_to_float((e - 10u + 127u) << 23); /* (8+m) * 2^(e-10) */
  return s ? -v : v;
}

/* Packs two E2M1 codes of one byte (element 2i in the low nibble) as two signed int8
 * lanes of a 16-bit value: low byte = element 2i (x2), high byte = element 2i+1 (x2). */
static inline uint32_t emu_fp4_byte_to_i8x2(uint32_t byte) {
  uint32_t lo = (uint32_t)nvfp4_emu_e2m1_x2(byte & 0xFu) & 0xFFu;
  uint32_t hi = (uint32_t)nvfp4_emu_e2m1_x2(byte >> 4) & 0xFFu;
  return lo | (hi << 8);
}

/* ------------------------------------------------------------------------------------ */
/* TMEM addresses                                                                        */
/* ------------------------------------------------------------------------------------ */

static inline uint32_t nvfp4_emu_taddr_lane(uint32_t taddr) { return taddr >> 16; }
static inline uint32_t nvfp4_emu_taddr_col(uint32_t taddr) { return taddr & 0xFFFFu; }
static inline uint32_t nvfp4_emu_tmem_index(uint32_t lane, uint32_t col) {
  return col * NVFP4_EMU_TMEM_LANES + lane;
}

/* ------------------------------------------------------------------------------------ */
/* Shared memory matrix descriptor (PTX ISA "Shared memory descriptor", Table 40)         */
/* ------------------------------------------------------------------------------------ */

enum {
  NVFP4_EMU_SWIZZLE_NONE = 0,
  NVFP4_EMU_SWIZZLE_128B_32B_ATOM = 1,
  NVFP4_EMU_SWIZZLE_128B = 2,
  NVFP4_EMU_SWIZZLE_64B = 4,
  NVFP4_EMU_SWIZZLE_32B = 6,
};

typedef struct {
  uint32_t start;       /* bits 0-13, matrix start address (bytes) */
  uint32_t lbo;         /* bits 16-29, leading dimension byte offset (bytes) */
  uint32_t sbo;         /* bits 32-45, stride dimension byte offset (bytes) */
  uint32_t fixed_001;   /* bits 46-48, must be 0b001 */
  uint32_t base_offset; /* bits 49-51 */
  uint32_t lbo_mode;    /* bit 52: 0 relative offset, 1 absolute address */
  uint32_t fixed_0;     /* bits 53-60, must be 0 */
  uint32_t reserved;    /* bits 14-15 (low two bits) and 30-31 (next two bits) */
  uint32_t swizzle;     /* bits 61-63 */
} nvfp4_emu_sdesc;

static inline nvfp4_emu_sdesc nvfp4_emu_sdesc_decode(uint64_t d) {
  nvfp4_emu_sdesc s;
  s.start = (uint32_t)(d & 0x3FFFu) << 4;
  s.reserved = (uint32_t)((d >> 14) & 3u) | ((uint32_t)((d >> 30) & 3u) << 2);
  s.lbo = (uint32_t)((d >> 16) & 0x3FFFu) << 4;
  s.sbo = (uint32_t)((d >> 32) & 0x3FFFu) << 4;
  s.fixed_001 = (uint32_t)((d >> 46) & 7u);
  s.base_offset = (uint32_t)((d >> 49) & 7u);
  s.lbo_mode = (uint32_t)((d >> 52) & 1u);
  s.fixed_0 = (uint32_t)((d >> 53) & 0xFFu);
  s.swizzle = (uint32_t)((d >> 61) & 7u);
  return s;
}

/* Width in bytes of one swizzled row (the swizzle span), 16 for no swizzle. */
static inline uint32_t nvfp4_emu_swizzle_width(uint32_t mode) {
  switch (mode) {
  case NVFP4_EMU_SWIZZLE_128B:
  case NVFP4_EMU_SWIZZLE_128B_32B_ATOM:
    return 128;
  case NVFP4_EMU_SWIZZLE_64B:
    return 64;
  case NVFP4_EMU_SWIZZLE_32B:
    return 32;
  default:
    return 16;
  }
}

/* The swizzle of the ISA's canonical layouts (Swizzle<B,4,3> on byte addresses): address
 * bits [4, 4+B) ^= bits [7, 7+B), B = 3 / 2 / 1 for 128 / 64 / 32-byte swizzling. Applied
 * to the full shared::cta address, so the pattern repeats on 1024 / 512 / 256-byte
 * boundaries (Table 41). */
static inline uint32_t nvfp4_emu_swizzle_addr(uint32_t mode, uint32_t addr) {
  uint32_t mask = nvfp4_emu_swizzle_width(mode) / 16u - 1u;
  return addr ^ (((addr >> 7) & mask) << 4);
}

/* Validates a descriptor for use by `op`. cp_source: tcgen05.cp source (only the
 * non-swizzled layout is emulated there). */
static inline uint32_t nvfp4_emu_sdesc_check(const nvfp4_emu_sdesc *s, const char *op,
                                             const char *which, int cp_source,
                                             nvfp4_emu_err *e) {
  if (s->fixed_001 != 1u) {
    emu_fail(e, NVFP4_EMU_ERR_SDESC_INVALID, op, which);
    emu_err_str(e, " descriptor bits 46-48 must be the fixed value 0b001, got ");
    emu_err_u32(e, s->fixed_001);
    return e->code;
  }
  if (s->fixed_0 != 0u || s->reserved != 0u) {
    emu_fail(e, NVFP4_EMU_ERR_SDESC_INVALID, op, which);
    emu_err_str(e, " descriptor has reserved/fixed-zero bits (14-15, 30-31, 53-60) set");
    return e->code;
  }
  if (s->swizzle == 3u || s->swizzle == 5u || s->swizzle == 7u) {
    emu_fail(e, NVFP4_EMU_ERR_SDESC_INVALID, op, which);
    emu_err_str(e, " descriptor swizzle mode ");
    emu_err_u32(e, s->swizzle);
    emu_err_str(e, " is invalid (3, 5, 7)");
    return e->code;
  }
  if (s->lbo_mode != 0u) {
    emu_fail(e, NVFP4_EMU_ERR_SDESC_INVALID, op, which);
    emu_err_str(e, " descriptor uses the absolute leading-dimension address mode (bit 52), "
                   "sm_103a only");
    return e->code;
  }
  if (s->base_offset != 0u) {
    emu_fail(e, NVFP4_EMU_ERR_SDESC_UNSUPPORTED, op, which);
    emu_err_str(e, " descriptor base offset ");
    emu_err_u32(e, s->base_offset);
    emu_err_str(e, " != 0 is not emulated (keep swizzled buffers pattern-aligned)");
    return e->code;
  }
  if (s->swizzle == NVFP4_EMU_SWIZZLE_128B_32B_ATOM) {
    emu_fail(e, NVFP4_EMU_ERR_SDESC_UNSUPPORTED, op, which);
    emu_err_str(e, " descriptor uses 128B swizzling with 32B atomicity (MN-major only)");
    return e->code;
  }
  if (cp_source && s->swizzle != NVFP4_EMU_SWIZZLE_NONE) {
    emu_fail(e, NVFP4_EMU_ERR_SDESC_UNSUPPORTED, op, which);
    emu_err_str(e, " descriptor: only the non-swizzled source layout is emulated, swizzle=");
    emu_err_u32(e, s->swizzle);
    return e->code;
  }
  return 0;
}

/* Byte address of the 16-byte chunk `chunk` (along K) of row `row` of a K-major operand
 * (canonical K-major layouts, "Canonical Layouts" table, element type normalised to
 * 128 bits):
 *   no swizzle:  ((8,m),(T,2k)):((1T,SBO),(1,LBO))  rows 16 B apart inside an 8-row core
 *                matrix, 8-row groups SBO apart, 16-byte K chunks LBO apart;
 *   swizzled:    ((8,m),(T,2k)):((wT,SBO),(1,T))    rows w*16 B apart inside an 8-row
 *                atom, atoms SBO apart, K contiguous inside the row, then the swizzle of
 *                the full address. The start address may point inside the swizzle row
 *                (advancing K); the XOR is applied after adding it. */
static inline uint32_t nvfp4_emu_kmajor_chunk_addr(const nvfp4_emu_sdesc *s, uint32_t row,
                                                   uint32_t chunk) {
  if (s->swizzle == NVFP4_EMU_SWIZZLE_NONE)
    return s->start + (row & 7u) * 16u + (row >> 3) * s->sbo + chunk * s->lbo;
  uint32_t w = nvfp4_emu_swizzle_width(s->swizzle);
  uint32_t a = s->start + (row & 7u) * w + (row >> 3) * s->sbo + chunk * 16u;
  return nvfp4_emu_swizzle_addr(s->swizzle, a);
}

/* ------------------------------------------------------------------------------------ */
/* Instruction descriptor, kind::mxf4 / kind::mxf4nvf4 (Table "Instruction descriptor     */
/* format for .kind::mxf4 and .kind::mxf4nvf4")                                          */
/* ------------------------------------------------------------------------------------ */

typedef struct {
  uint32_t reserved;   /* bits 0-1, 3, 6, 12, 24-26 (as a mask of the raw bits) */
  uint32_t sparse;     /* bit 2 */
  uint32_t sfb_id;     /* bits 4-5 */
  uint32_t atype;      /* bits 7-9: E2M1 = 1 */
  uint32_t btype;      /* bits 10-11: E2M1 = 1 */
  uint32_t negate_a;   /* bit 13 */
  uint32_t negate_b;   /* bit 14 */
  uint32_t transpose_a; /* bit 15 */
  uint32_t transpose_b; /* bit 16 */
  uint32_t n;          /* bits 17-22: N >> 3 (decoded to N) */
  uint32_t scale_type; /* bit 23: UE4M3 = 0, UE8M0 = 1 */
  uint32_t m;          /* bits 27-28: M >> 7 (decoded to M) */
  uint32_t sfa_id;     /* bits 29-30 */
  uint32_t k96;        /* bit 31: dense K = 64 (0) or K = 96 (1) */
} nvfp4_emu_idesc;

#define NVFP4_EMU_IDESC_RESERVED_MASK 0x0700104Bu

static inline nvfp4_emu_idesc nvfp4_emu_idesc_decode(uint32_t i) {
  nvfp4_emu_idesc d;
  d.reserved = i & NVFP4_EMU_IDESC_RESERVED_MASK;
  d.sparse = (i >> 2) & 1u;
  d.sfb_id = (i >> 4) & 3u;
  d.atype = (i >> 7) & 7u;
  d.btype = (i >> 10) & 3u;
  d.negate_a = (i >> 13) & 1u;
  d.negate_b = (i >> 14) & 1u;
  d.transpose_a = (i >> 15) & 1u;
  d.transpose_b = (i >> 16) & 1u;
  d.n = ((i >> 17) & 0x3Fu) << 3;
  d.scale_type = (i >> 23) & 1u;
  d.m = ((i >> 27) & 3u) << 7;
  d.sfa_id = (i >> 29) & 3u;
  d.k96 = (i >> 31) & 1u;
  return d;
}

/* Checks an idesc for tcgen05.mma.cta_group::<cta_group>.kind::mxf4nvf4.block_scale.block16
 * (Table 39: cta_group::1 M = 128, N = 8..256 step 8; cta_group::2 M = 128 or 256,
 * N = 16..256 step 16 — of which M = 256, the 4x1 datapath of Layout A, is emulated). */
static inline uint32_t nvfp4_emu_idesc_check_mxf4nvf4(const nvfp4_emu_idesc *d,
                                                      uint32_t cta_group, nvfp4_emu_err *e) {
  const char *op = cta_group == 2u ? "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block16"
                                   : "tcgen05.mma.kind::mxf4nvf4.block16";
  if (d->reserved) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_INVALID, op, "idesc reserved bits set: ");
    emu_err_hex(e, d->reserved);
    return e->code;
  }
  if (d->k96) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_INVALID, op,
             "idesc bit 31 selects dense K=96, supported on sm_103a only");
    return e->code;
  }
  if (d->sparse) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_INVALID, op,
             "idesc sparsity bit set on a dense tcgen05.mma (use tcgen05.mma.sp)");
    return e->code;
  }
  if (d->atype != 1u || d->btype != 1u) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_INVALID, op, "idesc atype/btype must be E2M1 (1), got ");
    emu_err_u32(e, d->atype);
    emu_err_str(e, "/");
    emu_err_u32(e, d->btype);
    return e->code;
  }
  if (d->transpose_a || d->transpose_b) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_INVALID, op,
             "idesc transpose bits set: kind::mxf4nvf4 supports K-major A and B only");
    return e->code;
  }
  if (cta_group == 2u && d->m == 128u) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_UNSUPPORTED, op,
             "idesc M=128 with cta_group::2 (Layout B, 2x2 datapath) is not emulated; M=256 is");
    return e->code;
  }
  if (d->m != 128u * cta_group) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_INVALID, op, "idesc M=");
    emu_err_u32(e, d->m);
    emu_err_str(e, cta_group == 2u ? ": cta_group::2 kind::mxf4nvf4 supports M=128 or 256"
                                   : ": cta_group::1 kind::mxf4nvf4 supports M=128 only");
    return e->code;
  }
  if (cta_group == 2u && (d->n < 16u || d->n % 16u != 0u)) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_INVALID, op, "idesc N=");
    emu_err_u32(e, d->n);
    emu_err_str(e, ": cta_group::2 needs N = 16..256 in steps of 16");
    return e->code;
  }
  if (d->n < 8u || d->n > 256u) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_INVALID, op, "idesc N=");
    emu_err_u32(e, d->n);
    emu_err_str(e, " outside 8..256 (N>>3 in bits 17-22)");
    return e->code;
  }
  if (d->sfa_id != 0u || d->sfb_id != 0u) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_INVALID, op, "idesc scale factor ids must be 0 for "
                                                 "scale_vec::4X/block16, got SFA_ID=");
    emu_err_u32(e, d->sfa_id);
    emu_err_str(e, " SFB_ID=");
    emu_err_u32(e, d->sfb_id);
    return e->code;
  }
  if (d->scale_type != 0u) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_UNSUPPORTED, op,
             "idesc scale type UE8M0 (bit 23) with block16 is not emulated (UE4M3 only)");
    return e->code;
  }
  if (d->negate_a || d->negate_b) {
    emu_fail(e, NVFP4_EMU_ERR_IDESC_UNSUPPORTED, op,
             "idesc negate A/B (bits 13/14) is not emulated");
    return e->code;
  }
  return 0;
}

/* Checks an idesc for tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16. */
static inline uint32_t nvfp4_emu_idesc_check_mxf4nvf4_block16(const nvfp4_emu_idesc *d,
                                                              nvfp4_emu_err *e) {
  return nvfp4_emu_idesc_check_mxf4nvf4(d, 1u, e);
}

/* ------------------------------------------------------------------------------------ */
/* Per-CTA TMEM allocation table                                                         */
/* ------------------------------------------------------------------------------------ */

typedef struct {
  uint64_t grid_id;     /* device: %gridid of the launch that owns this state */
  uint32_t cta_id;      /* device: linear CTA id that owns this state */
  uint32_t magic;       /* device: NVFP4_EMU_STATE_MAGIC once initialised */
  uint64_t tmem_base;   /* device address of this CTA's TMEM (0 before the first alloc) */
  uint32_t used[NVFP4_EMU_TMEM_COLUMNS / 32];   /* bit c%32 of word c/32: column c live */
  uint32_t size_at[NVFP4_EMU_TMEM_COLUMNS / 32]; /* nCols of the allocation at col 32*i */
  uint32_t relinquished;
  uint32_t last_ncols;  /* nCols of the previous allocation (0 = none yet) */
  uint32_t cta_group;   /* .cta_group of this CTA's tcgen05 ops so far (0 = none yet) */
  uint32_t pair_seq;    /* device: collective .cta_group::2 operations entered so far */
} nvfp4_emu_alloc_state;

#define NVFP4_EMU_STATE_MAGIC 0x54E4D3A5u

static inline void nvfp4_emu_state_reset(nvfp4_emu_alloc_state *st) {
  uint32_t i;
  for (i = 0; i < NVFP4_EMU_TMEM_COLUMNS / 32; ++i) {
    st->used[i] = 0;
    st->size_at[i] = 0;
  }
  st->tmem_base = 0;
  st->relinquished = 0;
  st->last_ncols = 0;
  st->cta_group = 0;
  st->pair_seq = 0;
}

/* "All tcgen05 instructions within a kernel must specify the same value for the .cta_group
 * qualifier": the first TMEM operation of a CTA fixes it, a later one with the other value
 * fails. */
static inline uint32_t nvfp4_emu_state_group(nvfp4_emu_alloc_state *st, uint32_t cta_group,
                                             const char *op, nvfp4_emu_err *e) {
  if (st->cta_group == 0u)
    st->cta_group = cta_group;
  if (st->cta_group != cta_group) {
    emu_fail(e, NVFP4_EMU_ERR_CTA_GROUP, op, ".cta_group::");
    emu_err_u32(e, cta_group);
    emu_err_str(e, " in a CTA whose earlier tcgen05 operations used .cta_group::");
    emu_err_u32(e, st->cta_group);
    emu_err_str(e, " (all tcgen05 instructions of a kernel must use the same one)");
    return e->code;
  }
  return 0;
}

/* Mask of the bits of word w covered by columns [first, first + count). */
static inline uint32_t emu_col_mask(uint32_t w, uint32_t first, uint32_t count) {
  uint32_t lo = w * 32u, hi = lo + 32u, a = first > lo ? first : lo,
           b = first + count < hi ? first + count : hi;
  if (a >= b)
    return 0;
  uint32_t n = b - a;
  return (n == 32u ? 0xFFFFFFFFu : ((1u << n) - 1u)) << (a - lo);
}

static inline int nvfp4_emu_cols_allocated(const nvfp4_emu_alloc_state *st, uint32_t first,
                                           uint32_t count) {
  uint32_t w;
  if (first + count > NVFP4_EMU_TMEM_COLUMNS || count == 0)
    return 0;
  for (w = first / 32u; w <= (first + count - 1u) / 32u; ++w) {
    uint32_t m = emu_col_mask(w, first, count);
    if ((st->used[w] & m) != m)
      return 0;
  }
  return 1;
}

static inline uint32_t nvfp4_emu_check_cols(const nvfp4_emu_alloc_state *st, const char *op,
                                            const char *what, uint32_t first, uint32_t count,
                                            nvfp4_emu_err *e) {
  if (!nvfp4_emu_cols_allocated(st, first, count)) {
    emu_fail(e, NVFP4_EMU_ERR_TMEM_RANGE, op, what);
    emu_err_str(e, " columns ");
    emu_err_u32(e, first);
    emu_err_str(e, "..");
    emu_err_u32(e, first + count - 1u);
    emu_err_str(e, " are not inside a live tcgen05.alloc allocation");
    return e->code;
  }
  return 0;
}

static inline int emu_is_pow2(uint32_t v) { return v && !(v & (v - 1u)); }

/* nCols of an alloc / dealloc: a power of 2 in [32, 512]. */
static inline uint32_t emu_ncols_rule(uint32_t ncols, const char *op, nvfp4_emu_err *e) {
  if (!emu_is_pow2(ncols) || ncols < 32u || ncols > NVFP4_EMU_TMEM_COLUMNS) {
    emu_fail(e, NVFP4_EMU_ERR_ALLOC_NCOLS, op, "nCols=");
    emu_err_u32(e, ncols);
    emu_err_str(e, " must be a power of 2 in [32, 512]");
    return e->code;
  }
  return 0;
}

/* The rules of one tcgen05.alloc of nCols in a CTA (op names the instruction form). */
static inline uint32_t emu_alloc_rules(const nvfp4_emu_alloc_state *st, uint32_t ncols,
                                       const char *op, nvfp4_emu_err *e) {
  if (emu_ncols_rule(ncols, op, e))
    return e->code;
  if (st->relinquished) {
    emu_fail(e, NVFP4_EMU_ERR_ALLOC_RELINQUISHED, op,
             "allocation after tcgen05.relinquish_alloc_permit in this CTA");
    return e->code;
  }
  if (st->last_ncols && ncols > st->last_ncols) {
    emu_fail(e, NVFP4_EMU_ERR_ALLOC_INCREASE, op, "nCols=");
    emu_err_u32(e, ncols);
    emu_err_str(e, " exceeds the previous allocation's ");
    emu_err_u32(e, st->last_ncols);
    emu_err_str(e, " (allocated columns must not increase between allocations)");
    return e->code;
  }
  return 0;
}

static inline int emu_range_free(const nvfp4_emu_alloc_state *st, uint32_t start,
                                 uint32_t ncols) {
  uint32_t w;
  for (w = start / 32u; w < (start + ncols) / 32u; ++w)
    if (st->used[w])
      return 0;
  return 1;
}

static inline void emu_book(nvfp4_emu_alloc_state *st, uint32_t start, uint32_t ncols) {
  uint32_t w;
  for (w = start / 32u; w < (start + ncols) / 32u; ++w)
    st->used[w] = 0xFFFFFFFFu;
  st->size_at[start / 32u] = ncols;
  st->last_ncols = ncols;
}

/* tcgen05.alloc bookkeeping for the CTAs whose tables are st0 and st1 (the same table for
 * .cta_group::1; the two CTAs of a pair for .cta_group::2, whose one allocation is "held
 * jointly by both peer CTAs" and addressed by one TMEM address in both): on success *col
 * gets the first column (size-aligned) of a range free in both, booked in both. */
static inline uint32_t nvfp4_emu_state_alloc_pair(nvfp4_emu_alloc_state *st0,
                                                  nvfp4_emu_alloc_state *st1, uint32_t ncols,
                                                  uint32_t *col, nvfp4_emu_err *e) {
  const int pair = st0 != st1;
  const char *op = pair ? "tcgen05.alloc.cta_group::2" : "tcgen05.alloc";
  uint32_t start;
  if (emu_alloc_rules(st0, ncols, op, e) || (pair && emu_alloc_rules(st1, ncols, op, e)))
    return e->code;
  for (start = 0; start < NVFP4_EMU_TMEM_COLUMNS; start += ncols) {
    if (!emu_range_free(st0, start, ncols) || !emu_range_free(st1, start, ncols))
      continue;
    emu_book(st0, start, ncols);
    if (pair)
      emu_book(st1, start, ncols);
    *col = start;
    return 0;
  }
  emu_fail(e, NVFP4_EMU_ERR_ALLOC_NO_ROOM, op, "no free range of nCols=");
  emu_err_u32(e, ncols);
  emu_err_str(e, pair ? " columns left in both CTAs of the pair (the emulator traps where "
                        "hardware would block)"
                      : " columns left in this CTA's 512 (the emulator traps where hardware "
                        "would block)");
  return e->code;
}

/* tcgen05.alloc bookkeeping: on success *col gets the first column (size-aligned). */
static inline uint32_t nvfp4_emu_state_alloc(nvfp4_emu_alloc_state *st, uint32_t ncols,
                                             uint32_t *col, nvfp4_emu_err *e) {
  return nvfp4_emu_state_alloc_pair(st, st, ncols, col, e);
}

/* The rules of one tcgen05.dealloc of (taddr, nCols) in a CTA. */
static inline uint32_t emu_dealloc_rules(const nvfp4_emu_alloc_state *st, uint32_t taddr,
                                         uint32_t ncols, const char *op, nvfp4_emu_err *e) {
  uint32_t col = nvfp4_emu_taddr_col(taddr);
  if (emu_ncols_rule(ncols, op, e))
    return e->code;
  if (nvfp4_emu_taddr_lane(taddr) != 0u || col % 32u != 0u || col >= NVFP4_EMU_TMEM_COLUMNS ||
      st->size_at[col / 32u] == 0u) {
    emu_fail(e, NVFP4_EMU_ERR_DEALLOC, op, "taddr ");
    emu_err_hex(e, taddr);
    emu_err_str(e, " is not the address of a live allocation (double free or bad address)");
    return e->code;
  }
  if (st->size_at[col / 32u] != ncols) {
    emu_fail(e, NVFP4_EMU_ERR_DEALLOC, op, "nCols=");
    emu_err_u32(e, ncols);
    emu_err_str(e, " does not match the allocation at column ");
    emu_err_u32(e, col);
    emu_err_str(e, " of ");
    emu_err_u32(e, st->size_at[col / 32u]);
    emu_err_str(e, " columns");
    return e->code;
  }
  return 0;
}

static inline void emu_unbook(nvfp4_emu_alloc_state *st, uint32_t col, uint32_t ncols) {
  uint32_t w;
  for (w = col / 32u; w < (col + ncols) / 32u; ++w)
    st->used[w] = 0;
  st->size_at[col / 32u] = 0;
}

/* tcgen05.dealloc bookkeeping for the tables st0 and st1 (one table, or the two CTAs of a
 * pair: the allocation must be live with the same nCols in both, and is freed in both). */
static inline uint32_t nvfp4_emu_state_dealloc_pair(nvfp4_emu_alloc_state *st0,
                                                    nvfp4_emu_alloc_state *st1, uint32_t taddr,
                                                    uint32_t ncols, nvfp4_emu_err *e) {
  const int pair = st0 != st1;
  const char *op = pair ? "tcgen05.dealloc.cta_group::2" : "tcgen05.dealloc";
  if (emu_dealloc_rules(st0, taddr, ncols, op, e) ||
      (pair && emu_dealloc_rules(st1, taddr, ncols, op, e)))
    return e->code;
  emu_unbook(st0, nvfp4_emu_taddr_col(taddr), ncols);
  if (pair)
    emu_unbook(st1, nvfp4_emu_taddr_col(taddr), ncols);
  return 0;
}

static inline uint32_t nvfp4_emu_state_dealloc(nvfp4_emu_alloc_state *st, uint32_t taddr,
                                               uint32_t ncols, nvfp4_emu_err *e) {
  return nvfp4_emu_state_dealloc_pair(st, st, taddr, ncols, e);
}

/* ------------------------------------------------------------------------------------ */
/* Shared memory and TMEM access hooks                                                   */
/* ------------------------------------------------------------------------------------ */

/* The shared memory a data path reads: on the host a buffer standing for the shared::cta
 * window; on the device NULL (this CTA's) or NVFP4_EMU_SMEM_PEER (the peer CTA's, the CTA
 * of the pair whose %cluster_ctarank differs in the last bit). */
#define NVFP4_EMU_SMEM_PEER ((const uint8_t *)(uintptr_t)1)

#if defined(__NVPTX__)
typedef uint32_t emu_v4u32 __attribute__((ext_vector_type(4)));
/* 16 bytes at shared::cta address addr (16-byte aligned by construction), of this CTA or,
 * through distributed shared memory, of the peer CTA. */
static inline void nvfp4_emu_smem_ld16(const uint8_t *smem, uint32_t addr, uint32_t out[4]) {
  if (smem == NVFP4_EMU_SMEM_PEER) {
    uint32_t rank = (uint32_t)__nvvm_read_ptx_sreg_cluster_ctarank() ^ 1u, remote;
    __asm__("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
    __asm__ volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
                     : "r"(remote)
                     : "memory");
    return;
  }
  emu_v4u32 v = *(const NVFP4_EMU_SHARED emu_v4u32 *)(uintptr_t)addr;
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
  out[3] = v.w;
}
/* Sum of the four signed 8-bit products of a and b, plus c. */
static inline int32_t nvfp4_emu_dp4a(uint32_t a, uint32_t b, int32_t c) {
  int32_t r;
  __asm__("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
#else
/* Host: `smem` is a buffer standing for the shared::cta window (256 KiB). */
static inline void nvfp4_emu_smem_ld16(const uint8_t *smem, uint32_t addr, uint32_t out[4]) {
  memcpy(out, smem + (addr & 0x3FFFFu), 16);
}
static inline int32_t nvfp4_emu_dp4a(uint32_t a, uint32_t b, int32_t c) {
  int i;
  for (i = 0; i < 4; ++i)
    c += (int32_t)(int8_t)(a >> (8 * i)) * (int32_t)(int8_t)(b >> (8 * i));
  return c;
}
#endif

/* ------------------------------------------------------------------------------------ */
/* tcgen05.cp.cta_group::1.32x128b.warpx4                                                */
/* ------------------------------------------------------------------------------------ */

/* Source: 32 rows x 128 bits through a non-swizzled K-major descriptor (row r at
 * start + (r%8)*16 + (r/8)*SBO; one 16-byte column, so LBO is not used). Destination:
 * lanes 32q + r (q = 0..3, multicast to all four warps' lane quarters), columns
 * taddr.col .. +3; byte b of row r goes to column b/4, bits 8*(b%4).. of the cell. */
/* The copy of a checked tcgen05.cp .32x128b.warpx4 into one CTA's Tensor Memory. */
static inline void emu_cp_copy(nvfp4_emu_tmem_word *tmem, const uint8_t *smem,
                               const nvfp4_emu_sdesc *s, uint32_t col) {
  uint32_t r, q, c;
  for (r = 0; r < 32u; ++r) {
    uint32_t w[4];
    nvfp4_emu_smem_ld16(smem, s->start + (r & 7u) * 16u + (r >> 3) * s->sbo, w);
    for (q = 0; q < 4u; ++q)
      for (c = 0; c < 4u; ++c)
        tmem[nvfp4_emu_tmem_index(q * 32u + r, col + c)] = w[c];
  }
}

static inline uint32_t nvfp4_emu_core_cp_32x128b_warpx4(nvfp4_emu_tmem_word *tmem,
                                                        const uint8_t *smem,
                                                        const nvfp4_emu_alloc_state *st,
                                                        uint32_t taddr, uint64_t sdesc,
                                                        nvfp4_emu_err *e) {
  static const char op[] = "tcgen05.cp.32x128b.warpx4";
  nvfp4_emu_sdesc s = nvfp4_emu_sdesc_decode(sdesc);
  uint32_t col = nvfp4_emu_taddr_col(taddr);
  if (nvfp4_emu_sdesc_check(&s, op, "source", 1, e))
    return e->code;
  if (nvfp4_emu_taddr_lane(taddr) != 0u) {
    emu_fail(e, NVFP4_EMU_ERR_TMEM_LANE, op, "taddr lane ");
    emu_err_u32(e, nvfp4_emu_taddr_lane(taddr));
    emu_err_str(e, " must be 0 for .32x128b.warpx4 (all four lane quarters are written)");
    return e->code;
  }
  if (nvfp4_emu_check_cols(st, op, "destination", col, 4, e))
    return e->code;
  emu_cp_copy(tmem, smem, &s, col);
  return 0;
}

/* One CTA of a data path: its Tensor Memory, shared memory (see NVFP4_EMU_SMEM_PEER) and
 * allocation table. A .cta_group::2 operation takes the views of the even CTA (index 0)
 * and of the odd CTA (index 1) of the pair. */
typedef struct {
  nvfp4_emu_tmem_word *tmem;
  const uint8_t *smem;
  const nvfp4_emu_alloc_state *st;
} nvfp4_emu_cta_view;

/* tcgen05.cp.cta_group::2.32x128b.warpx4: "the data is copied into the Tensor Memory of both
 * the current and the peer CTAs" — each CTA's shared memory at the descriptor's address
 * into that CTA's columns (the descriptor names a shared::cta address, the same in both;
 * see README "Ambiguities"). Both destinations are checked before anything is written. */
static inline uint32_t nvfp4_emu_core_cp_32x128b_warpx4_cg2(const nvfp4_emu_cta_view pair[2],
                                                            uint32_t taddr, uint64_t sdesc,
                                                            nvfp4_emu_err *e) {
  static const char op[] = "tcgen05.cp.cta_group::2.32x128b.warpx4";
  nvfp4_emu_sdesc s = nvfp4_emu_sdesc_decode(sdesc);
  uint32_t col = nvfp4_emu_taddr_col(taddr), i;
  if (nvfp4_emu_sdesc_check(&s, op, "source", 1, e))
    return e->code;
  if (nvfp4_emu_taddr_lane(taddr) != 0u) {
    emu_fail(e, NVFP4_EMU_ERR_TMEM_LANE, op, "taddr lane ");
    emu_err_u32(e, nvfp4_emu_taddr_lane(taddr));
    emu_err_str(e, " must be 0 for .32x128b.warpx4 (all four lane quarters are written)");
    return e->code;
  }
  for (i = 0; i < 2u; ++i)
    if (nvfp4_emu_check_cols(pair[i].st, op, i ? "destination (odd CTA)" : "destination (even CTA)",
                             col, 4, e))
      return e->code;
  for (i = 0; i < 2u; ++i)
    emu_cp_copy(pair[i].tmem, pair[i].smem, &s, col);
  return 0;
}

/* ------------------------------------------------------------------------------------ */
/* tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16                           */
/* ------------------------------------------------------------------------------------ */

/* Reads the 32 bytes (K = 64 FP4) of row `row` of a K-major operand as 16 words of
 * packed signed int8 (each = twice the E2M1 value); word i holds elements 4i..4i+3. */
static inline void emu_load_fp4_row(const uint8_t *smem, const nvfp4_emu_sdesc *s,
                                    uint32_t row, uint32_t out[16]) {
  uint32_t chunk, i;
  for (chunk = 0; chunk < 2u; ++chunk) {
    uint32_t raw[4];
    nvfp4_emu_smem_ld16(smem, nvfp4_emu_kmajor_chunk_addr(s, row, chunk), raw);
    for (i = 0; i < 4u; ++i) {
      uint32_t v = raw[i]; /* bytes = elements 8i'..8i'+7 of this chunk, 2 per byte */
      out[chunk * 8u + 2u * i] =
          emu_fp4_byte_to_i8x2(v & 0xFFu) | (emu_fp4_byte_to_i8x2((v >> 8) & 0xFFu) << 16);
      out[chunk * 8u + 2u * i + 1u] = emu_fp4_byte_to_i8x2((v >> 16) & 0xFFu) |
                                      (emu_fp4_byte_to_i8x2(v >> 24) << 16);
    }
  }
}

static inline void emu_decode_sf_word(uint32_t w, float out[4]) {
  out[0] = nvfp4_emu_e4m3_to_float(w & 0xFFu);
  out[1] = nvfp4_emu_e4m3_to_float((w >> 8) & 0xFFu);
  out[2] = nvfp4_emu_e4m3_to_float((w >> 16) & 0xFFu);
  out[3] = nvfp4_emu_e4m3_to_float(w >> 24);
}

/* Scratch of one MMA: A of 128 x 64 FP4 as packed int8 (8 KiB) and its scales. */
typedef struct {
  _Alignas(16) uint32_t a[128][16];
  _Alignas(16) float sfa[128][4];
} nvfp4_emu_mma_scratch;

/* The checks of one CTA's part of a tcgen05.mma: TMEM lane fields 0, D / SFA / SFB columns
 * inside live allocations of its table, D disjoint from the scale factors. `side` names
 * the CTA in messages: -1 for cta_group::1, 0 / 1 for the even / odd CTA of a pair. */
static inline uint32_t emu_mma_check_cols(const nvfp4_emu_alloc_state *st, const char *op,
                                          int side, uint32_t d, uint32_t sfa, uint32_t sfb,
                                          uint32_t n_cols, nvfp4_emu_err *e) {
  static const char *const names[3][3] = {
      {"D", "scale-A", "scale-B"},
      {"D (even CTA)", "scale-A (even CTA)", "scale-B (even CTA)"},
      {"D (odd CTA)", "scale-A (odd CTA)", "scale-B (odd CTA)"}};
  const char *const *what = names[side + 1];
  uint32_t dcol = nvfp4_emu_taddr_col(d), acol = nvfp4_emu_taddr_col(sfa),
           bcol = nvfp4_emu_taddr_col(sfb), sfb_cols = (n_cols + 31u) / 32u;
  if (nvfp4_emu_taddr_lane(d) != 0u || nvfp4_emu_taddr_lane(sfa) != 0u ||
      nvfp4_emu_taddr_lane(sfb) != 0u) {
    emu_fail(e, NVFP4_EMU_ERR_TMEM_LANE, op, "lane field of [d]/[sfa]/[sfb] must be 0 for "
                                             "M=128 per CTA, got ");
    emu_err_u32(e, nvfp4_emu_taddr_lane(d));
    emu_err_str(e, "/");
    emu_err_u32(e, nvfp4_emu_taddr_lane(sfa));
    emu_err_str(e, "/");
    emu_err_u32(e, nvfp4_emu_taddr_lane(sfb));
    return e->code;
  }
  if (nvfp4_emu_check_cols(st, op, what[0], dcol, n_cols, e) ||
      nvfp4_emu_check_cols(st, op, what[1], acol, 4, e) ||
      nvfp4_emu_check_cols(st, op, what[2], bcol, sfb_cols, e))
    return e->code;
  if ((acol < dcol + n_cols && dcol < acol + 4u) ||
      (bcol < dcol + n_cols && dcol < bcol + sfb_cols)) {
    emu_fail(e, NVFP4_EMU_ERR_MMA_OVERLAP, op, "D columns ");
    emu_err_u32(e, dcol);
    emu_err_str(e, "..");
    emu_err_u32(e, dcol + n_cols - 1u);
    emu_err_str(e, " overlap the scale-factor columns (sfa ");
    emu_err_u32(e, acol);
    emu_err_str(e, ", sfb ");
    emu_err_u32(e, bcol);
    emu_err_str(e, ")");
    return e->code;
  }
  return 0;
}

/* The 128 D rows one CTA holds (TMEM lane m, column dcol + n, fp32):
 *   D[m][n] = (enable_input_d ? D : 0) + sum_k (A[m][k] * SFA[m][k/16]) * (B[n][k] * SFB[n][k/16]),
 * k = 0..63, with A read through `as` in smem_a, B row n through `bs` in smem_b0 for
 * n < b_split and as row n - b_split in smem_b1 otherwise (cta_group::2: each CTA of the
 * pair holds N/2 rows of B), and the scale factors from this CTA's TMEM:
 * scale_vec::4X with SF ids 0, row m of A uses the 32-bit cell at lane m, column
 * acol + m/32 (byte j = scale of K block j); column n of B as seen by the rows of lane
 * quarter q uses lane 32q + n%32, column bcol + n/32 (the copies that the warpx4 multicast
 * places in every quarter).
 * Arithmetic: each 16-element block product sum is exact (integer dp4a on doubled E2M1
 * values), scaled exactly by the fp32 product of the two scales; the four block terms and
 * D are summed in double (exact for the block terms) and rounded once to fp32. */
static inline void emu_mma_rows(nvfp4_emu_tmem_word *tmem, const uint8_t *smem_a,
                                const nvfp4_emu_sdesc *as, const uint8_t *smem_b0,
                                const uint8_t *smem_b1, uint32_t b_split,
                                const nvfp4_emu_sdesc *bs, nvfp4_emu_mma_scratch *scr,
                                uint32_t n_cols, uint32_t dcol, uint32_t acol, uint32_t bcol,
                                uint32_t enable_input_d) {
  uint32_t m, n0, q;
  for (m = 0; m < 128u; ++m) {
    emu_load_fp4_row(smem_a, as, m, scr->a[m]);
    emu_decode_sf_word(tmem[nvfp4_emu_tmem_index(m, acol + m / 32u)], scr->sfa[m]);
  }

  for (n0 = 0; n0 < n_cols; n0 += 4u) {
    uint32_t b[4][16];
    uint32_t j;
    NVFP4_EMU_UNROLL
    for (j = 0; j < 4u; ++j) {
      uint32_t n = n0 + j;
      if (n < b_split)
        emu_load_fp4_row(smem_b0, bs, n, b[j]);
      else
        emu_load_fp4_row(smem_b1, bs, n - b_split, b[j]);
    }
    for (q = 0; q < 4u; ++q) {
      float sb[4][4];
      uint32_t mm;
      NVFP4_EMU_UNROLL
      for (j = 0; j < 4u; ++j) {
        uint32_t n = n0 + j;
        emu_decode_sf_word(tmem[nvfp4_emu_tmem_index(q * 32u + n % 32u, bcol + n / 32u)],
                           sb[j]);
      }
      /* Rows in blocks of 8: the 32 D cells of a block are loaded (independently, so the
       * loads overlap) before they are computed and stored. */
      for (mm = 0; mm < 32u; mm += 8u) {
        float dv[4][8];
        uint32_t r;
        NVFP4_EMU_UNROLL
        for (j = 0; j < 4u; ++j)
          NVFP4_EMU_UNROLL
          for (r = 0; r < 8u; ++r)
            dv[j][r] = enable_input_d ? emu_bits_to_float(tmem[nvfp4_emu_tmem_index(
                                            q * 32u + mm + r, dcol + n0 + j)])
                                      : 0.0f;
        NVFP4_EMU_UNROLL
        for (r = 0; r < 8u; ++r) {
          uint32_t row = q * 32u + mm + r, a[16], i;
          float sa[4];
          NVFP4_EMU_UNROLL
          for (i = 0; i < 16u; ++i)
            a[i] = scr->a[row][i];
          NVFP4_EMU_UNROLL
          for (i = 0; i < 4u; ++i)
            sa[i] = scr->sfa[row][i];
          NVFP4_EMU_UNROLL
          for (j = 0; j < 4u; ++j) {
            int32_t dot[4];
            float t[4];
            double sum;
            NVFP4_EMU_UNROLL
            for (i = 0; i < 4u; ++i) {
              int32_t acc = nvfp4_emu_dp4a(a[4u * i], b[j][4u * i], 0);
              acc = nvfp4_emu_dp4a(a[4u * i + 1u], b[j][4u * i + 1u], acc);
              acc = nvfp4_emu_dp4a(a[4u * i + 2u], b[j][4u * i + 2u], acc);
              dot[i] = nvfp4_emu_dp4a(a[4u * i + 3u], b[j][4u * i + 3u], acc);
              /* (2a)(2b) = 4ab: the 0.25 folds into the (exact) scale product. */
              t[i] = (float)dot[i] * (sa[i] * sb[j][i] * 0.25f);
            }
            sum = ((double)t[0] + (double)t[1]) + ((double)t[2] + (double)t[3]);
            dv[j][r] = (float)(sum + (double)dv[j][r]);
          }
        }
        NVFP4_EMU_UNROLL
        for (j = 0; j < 4u; ++j)
          NVFP4_EMU_UNROLL
          for (r = 0; r < 8u; ++r)
            tmem[nvfp4_emu_tmem_index(q * 32u + mm + r, dcol + n0 + j)] =
                emu_float_to_bits(dv[j][r]);
      }
    }
  }
}

/* tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16: M = 128, D rows in this CTA
 * (Layout D: row m in lane m), see emu_mma_rows. */
static inline uint32_t nvfp4_emu_core_mma_mxf4nvf4_block16(
    nvfp4_emu_tmem_word *tmem, const uint8_t *smem, const nvfp4_emu_alloc_state *st,
    nvfp4_emu_mma_scratch *scr, uint32_t d, uint64_t adesc, uint64_t bdesc, uint32_t idesc,
    uint32_t enable_input_d, uint32_t sfa, uint32_t sfb, nvfp4_emu_err *e) {
  static const char op[] = "tcgen05.mma.kind::mxf4nvf4.block16";
  nvfp4_emu_idesc id = nvfp4_emu_idesc_decode(idesc);
  nvfp4_emu_sdesc as = nvfp4_emu_sdesc_decode(adesc), bs = nvfp4_emu_sdesc_decode(bdesc);
  if (nvfp4_emu_idesc_check_mxf4nvf4(&id, 1u, e))
    return e->code;
  if (nvfp4_emu_sdesc_check(&as, op, "A", 0, e) || nvfp4_emu_sdesc_check(&bs, op, "B", 0, e))
    return e->code;
  if (emu_mma_check_cols(st, op, -1, d, sfa, sfb, id.n, e))
    return e->code;
  emu_mma_rows(tmem, smem, &as, smem, smem, id.n, &bs, scr, id.n, nvfp4_emu_taddr_col(d),
               nvfp4_emu_taddr_col(sfa), nvfp4_emu_taddr_col(sfb), enable_input_d);
  return 0;
}

/* tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block16 with M = 256 (Layout A, 4x1
 * datapath): the operation "is performed on the Tensor Memory of the executing thread's CTA
 * and its peer CTA". Reading of the ISA (README "Ambiguities"): D rows 0..127 are lanes
 * 0..127 of the even CTA (pair[0]), rows 128..255 lanes 0..127 of the odd CTA (pair[1]),
 * both at the one address d; each CTA's shared memory holds its 128 rows of A at adesc and
 * N/2 rows of B at bdesc (B's columns 0..N/2-1 in the even CTA: "B ... in Shared Memory of
 * the current CTA and optionally in peer CTA"); each CTA's rows use the scale factors in
 * its own TMEM at sfa / sfb, SFB covering all N columns. Every check of both CTAs passes
 * before anything is written. */
static inline uint32_t nvfp4_emu_core_mma_mxf4nvf4_block16_cg2(
    const nvfp4_emu_cta_view pair[2], nvfp4_emu_mma_scratch *scr, uint32_t d, uint64_t adesc,
    uint64_t bdesc, uint32_t idesc, uint32_t enable_input_d, uint32_t sfa, uint32_t sfb,
    nvfp4_emu_err *e) {
  static const char op[] = "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block16";
  nvfp4_emu_idesc id = nvfp4_emu_idesc_decode(idesc);
  nvfp4_emu_sdesc as = nvfp4_emu_sdesc_decode(adesc), bs = nvfp4_emu_sdesc_decode(bdesc);
  uint32_t i;
  if (nvfp4_emu_idesc_check_mxf4nvf4(&id, 2u, e))
    return e->code;
  if (nvfp4_emu_sdesc_check(&as, op, "A", 0, e) || nvfp4_emu_sdesc_check(&bs, op, "B", 0, e))
    return e->code;
  if (emu_mma_check_cols(pair[0].st, op, 0, d, sfa, sfb, id.n, e) ||
      emu_mma_check_cols(pair[1].st, op, 1, d, sfa, sfb, id.n, e))
    return e->code;
  for (i = 0; i < 2u; ++i)
    emu_mma_rows(pair[i].tmem, pair[i].smem, &as, pair[0].smem, pair[1].smem, id.n / 2u, &bs,
                 scr, id.n, nvfp4_emu_taddr_col(d), nvfp4_emu_taddr_col(sfa),
                 nvfp4_emu_taddr_col(sfb), enable_input_d);
  return 0;
}

/* ------------------------------------------------------------------------------------ */
/* tcgen05.ld.sync.aligned.32x32b.x<num>.b32                                             */
/* ------------------------------------------------------------------------------------ */

/* Checks of one tcgen05.ld issued by a warp whose id within its warpgroup is `quarter`. */
static inline uint32_t nvfp4_emu_core_ld_check(const nvfp4_emu_alloc_state *st, uint32_t taddr,
                                               uint32_t num, uint32_t quarter,
                                               nvfp4_emu_err *e) {
  static const char op[] = "tcgen05.ld.32x32b";
  uint32_t lane = nvfp4_emu_taddr_lane(taddr);
  if (!emu_is_pow2(num) || num > 128u) {
    emu_fail(e, NVFP4_EMU_ERR_LD_NUM, op, ".num=");
    emu_err_u32(e, num);
    emu_err_str(e, " must be one of x1, x2, ..., x128");
    return e->code;
  }
  if (lane != quarter * 32u) {
    emu_fail(e, NVFP4_EMU_ERR_LD_QUARTER, op, "warp with (warp id % 4)=");
    emu_err_u32(e, quarter);
    emu_err_str(e, " may access lanes ");
    emu_err_u32(e, quarter * 32u);
    emu_err_str(e, "..");
    emu_err_u32(e, quarter * 32u + 31u);
    emu_err_str(e, " only; taddr lane is ");
    emu_err_u32(e, lane);
    return e->code;
  }
  return nvfp4_emu_check_cols(st, op, "source", nvfp4_emu_taddr_col(taddr), num, e);
}

/* The part of a checked tcgen05.ld that lane `laneid` of the warp receives. */
static inline void nvfp4_emu_core_ld_lane(const nvfp4_emu_tmem_word *tmem, uint32_t taddr,
                                          uint32_t laneid, uint32_t *dst, uint32_t num) {
  uint32_t lane = nvfp4_emu_taddr_lane(taddr) + laneid, col = nvfp4_emu_taddr_col(taddr), j;
  for (j = 0; j < num; ++j)
    dst[j] = tmem[nvfp4_emu_tmem_index(lane, col + j)];
}

/* ------------------------------------------------------------------------------------ */
/* The warp-level block-scaled MMA of sm_120a                                             */
/* ------------------------------------------------------------------------------------ */

/* mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1
 * .f32.ue4m3 (PTX ISA 9.7.14.5.14): the checks of its selectors (9.7.14.3, Table 37: byte-id
 * 0, thread-id-a 0..1, thread-id-b 0..3 for .scale_vec::4X; anything else is undefined). */
static inline uint32_t nvfp4_emu_core_mma_sync_check(uint32_t bida, uint32_t tida, uint32_t bidb,
                                                     uint32_t tidb, nvfp4_emu_err *e) {
  if (bida == 0u && bidb == 0u && tida <= 1u && tidb <= 3u) return 0;
  emu_fail(e, NVFP4_EMU_ERR_MMA_SELECTOR, "mma.sync.kind::mxf4nvf4.block_scale.scale_vec::4X",
           "byte-id-a/thread-id-a/byte-id-b/thread-id-b ");
  emu_err_u32(e, bida);
  emu_err_str(e, "/");
  emu_err_u32(e, tida);
  emu_err_str(e, "/");
  emu_err_u32(e, bidb);
  emu_err_str(e, "/");
  emu_err_u32(e, tidb);
  emu_err_str(e, " (scale_vec::4X needs byte-ids 0, thread-id-a 0..1, thread-id-b 0..3)");
  return e->code;
}

/* One lane's D of that MMA from what the lane gathered of the warp's registers (the device
 * gathers it with shuffles; the layouts are in nvfp4_emu.c): a_rows[h] the 64 FP4 of A row
 * g + 8 h (g = lane / 4) as eight words, element k in nibble k % 8 of word k / 8; b_cols[e]
 * the 64 FP4 of B column 2 t + e (t = lane % 4) alike; sa[h] / sb[e] their scale words (byte
 * j: K block j); c[i] / d[i] the lane's registers: row g + 8 (i / 2), column 2 t + i % 2.
 * The 16 products of a K block sum exactly as integers (twice the e2m1 values), each times
 * its two scales is exact, the four and C are summed in double and rounded once. */
static inline void nvfp4_emu_core_mma_sync_lane(const uint32_t a_rows[2][8],
                                                const uint32_t b_cols[2][8], const uint32_t sa[2],
                                                const uint32_t sb[2], const float c[4],
                                                float d[4]) {
  uint32_t i, j, k;
  for (i = 0; i < 4u; ++i) {
    const uint32_t h = i / 2u, e = i % 2u;
    double sum = (double)c[i];
    float scale_a[4], scale_b[4];
    emu_decode_sf_word(sa[h], scale_a);
    emu_decode_sf_word(sb[e], scale_b);
    for (j = 0; j < 4u; ++j) {
      int32_t dot = 0;
      for (k = 16u * j; k < 16u * j + 16u; ++k)
        dot += nvfp4_emu_e2m1_x2((a_rows[h][k / 8u] >> (4u * (k % 8u))) & 0xFu) *
               nvfp4_emu_e2m1_x2((b_cols[e][k / 8u] >> (4u * (k % 8u))) & 0xFu);
      sum += (double)dot * ((double)scale_a[j] * (double)scale_b[j] * 0.25);
    }
    d[i] = (float)sum;
  }
}

#endif /* NVFP4_EMU_CORE_H */
