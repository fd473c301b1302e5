/* nvfp4_emu_errors.h — reason codes of the emulation library (tcgen05, and the block-scaled
 * mma.sync of sm_120a).
 *
 * When an emulated tcgen05 instruction is illegal or not implemented, the library stores
 * one of these codes into the device global `nvfp4_emu_last_error` (u32, first error wins),
 * prints a precise message through the CUDA device-assert entry point and traps.
 * emulation/README.md describes each reason. Plain C, usable on host and device.
 */
#ifndef NVFP4_EMU_ERRORS_H
#define NVFP4_EMU_ERRORS_H

/* Name of the device global holding the first reason code (for cuModuleGetGlobal). */
#define NVFP4_EMU_LAST_ERROR_SYMBOL "nvfp4_emu_last_error"

enum nvfp4_emu_error {
  NVFP4_EMU_OK = 0,
  NVFP4_EMU_ERR_PARTIAL_WARP = 1,       /* .sync.aligned op without all 32 lanes active */
  NVFP4_EMU_ERR_NONUNIFORM = 2,         /* lanes disagree on nCols / taddr */
  NVFP4_EMU_ERR_ALLOC_NCOLS = 3,        /* nCols not a power of 2 in [32, 512] */
  NVFP4_EMU_ERR_ALLOC_NO_ROOM = 4,      /* no free aligned range of nCols columns */
  NVFP4_EMU_ERR_ALLOC_RELINQUISHED = 5, /* alloc after relinquish_alloc_permit */
  NVFP4_EMU_ERR_ALLOC_INCREASE = 6,     /* nCols larger than a previous allocation */
  NVFP4_EMU_ERR_DEALLOC = 7,            /* taddr/nCols is not a live allocation */
  NVFP4_EMU_ERR_NO_ALLOC = 8,           /* TMEM used in a CTA that never allocated */
  NVFP4_EMU_ERR_TMEM_RANGE = 9,         /* columns outside every live allocation */
  NVFP4_EMU_ERR_TMEM_LANE = 10,         /* lane field of a TMEM address not allowed */
  NVFP4_EMU_ERR_LD_NUM = 11,            /* tcgen05.ld .num not a power of 2 in 1..128 */
  NVFP4_EMU_ERR_LD_QUARTER = 12,        /* warp (id % 4) may not access those lanes */
  NVFP4_EMU_ERR_SDESC_INVALID = 13,     /* shared memory descriptor breaks the ISA table */
  NVFP4_EMU_ERR_SDESC_UNSUPPORTED = 14, /* legal descriptor feature not emulated */
  NVFP4_EMU_ERR_IDESC_INVALID = 15,     /* instruction descriptor breaks the ISA table */
  NVFP4_EMU_ERR_IDESC_UNSUPPORTED = 16, /* legal idesc feature not emulated */
  NVFP4_EMU_ERR_MMA_OVERLAP = 17,       /* D columns overlap scale-factor columns */
  NVFP4_EMU_ERR_WORKSPACE = 18,         /* workspace null, misaligned or changed */
  NVFP4_EMU_ERR_NO_PEER = 19,           /* .cta_group::2 without a peer CTA in the cluster */
  NVFP4_EMU_ERR_CTA_GROUP = 20,         /* .cta_group::1 and ::2 mixed in one kernel */
  NVFP4_EMU_ERR_PAIR_TIMEOUT = 21,      /* the peer CTA's warp never joined a collective */
  NVFP4_EMU_ERR_PAIR_MISMATCH = 22,     /* the two CTAs of a pair disagree (op, nCols) */
  NVFP4_EMU_ERR_COMMIT_MASK = 23,       /* commit ctaMask names a CTA outside the cluster */
  NVFP4_EMU_ERR_MMA_SELECTOR = 24,      /* mma.sync scale byte-id / thread-id out of range */
  NVFP4_EMU_ERR_COUNT
};

/* Short stable name of a reason code ("ALLOC_NO_ROOM", ...). */
static inline const char *nvfp4_emu_error_name(unsigned code) {
  static const char *const names[NVFP4_EMU_ERR_COUNT] = {
      "OK",           "PARTIAL_WARP",     "NONUNIFORM",        "ALLOC_NCOLS",
      "ALLOC_NO_ROOM", "ALLOC_RELINQUISHED", "ALLOC_INCREASE", "DEALLOC",
      "NO_ALLOC",     "TMEM_RANGE",       "TMEM_LANE",         "LD_NUM",
      "LD_QUARTER",   "SDESC_INVALID",    "SDESC_UNSUPPORTED", "IDESC_INVALID",
      "IDESC_UNSUPPORTED", "MMA_OVERLAP", "WORKSPACE", "NO_PEER", "CTA_GROUP",
      "PAIR_TIMEOUT", "PAIR_MISMATCH", "COMMIT_MASK", "MMA_SELECTOR"};
  return code < NVFP4_EMU_ERR_COUNT ? names[code] : "UNKNOWN";
}

#endif /* NVFP4_EMU_ERRORS_H */
