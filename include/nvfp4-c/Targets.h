/* Targets.h — the table of GPU targets an nvfp4 op may name (`target = "..."`): which kernel
 * generator builds it, the metadata's target_sm, the PTX ISA version its module needs, and
 * the compute capabilities a cubin of that target runs on. Shared by the verifier, the
 * lowering (module chip and PTX feature) and the runtime (which refuses a cubin on a device
 * it cannot run on, naming both, before the driver is asked to load it).
 *
 * Plain C11, no MLIR/LLVM/CUDA dependency; everything is static inline.
 *
 * Compatibility (PTX ISA 9.0, 11.1.2 and 13.2-13.3): an arch-specific target ("a" suffix)
 * runs only on its exact compute capability; a family target ("f" suffix) runs on every
 * member of its family. Hence:
 *   sm_100a  CC 10.0 (B200, GB200)         sm_100f  CC 10.0 and 10.3 (B200 .. GB300)
 *   sm_103a  CC 10.3 (B300, GB300)         sm_90a   CC 9.0 (H100, H200)
 *   sm_120a  CC 12.0 (RTX 50-series, RTX PRO 6000 Blackwell)
 *   sm_121a  CC 12.1 (DGX Spark, GB10)     sm_120f  CC 12.0 and 12.1
 * PTX versions: tcgen05 ... .block16 needs PTX 8.8 (sm_100a/sm_100f/sm_103a); the
 * block-scaled mma.sync needs PTX 8.7 on sm_120a and PTX 8.8 on sm_120f and sm_121a (the
 * family and sm_121 targets exist from PTX 8.8). docs/kernel-sm120a.md says which to pick.
 */
#ifndef NVFP4_C_TARGETS_H
#define NVFP4_C_TARGETS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel generator of a target (the numbering of KernelConfig.h's MlirNvfp4Target). */
#define NVFP4_TARGET_GEN_TCGEN05 0u   /* tcgen05 + TMEM + TMA (lib/Conversion/Sm100) */
#define NVFP4_TARGET_GEN_WGMMA 1u     /* BF16 decode + wgmma (lib/Conversion/Sm90) */
#define NVFP4_TARGET_GEN_MMA_SYNC 2u  /* block-scaled mma.sync m16n8k64 (lib/Conversion/Sm120) */

typedef struct nvfp4_target_info {
  const char *name;       /* the op's target string, the module chip, the metadata target */
  uint32_t generator;     /* NVFP4_TARGET_GEN_* */
  uint32_t target_sm;     /* metadata target_sm: the architecture (100, 103, 90, 120, 121) */
  const char *ptx;        /* LLVM NVPTX feature of the PTX ISA version ("+ptx88") */
  uint32_t cc_major;      /* compute capability major of every device it runs on */
  uint32_t cc_minors;     /* bit m: runs on compute capability cc_major.m */
  const char *gpus;       /* for messages and docs */
  uint32_t mlir_sm_check; /* MLIR 22's per-op SM check (NVVMRequiresSM) knows the target's
                             instructions; 0: its tcgen05 ops are listed for sm_100a / sm_101a
                             only, so the module says verifyTarget = false and LLVM NVPTX and
                             ptxas check them (both accept sm_100f and sm_103a) */
} nvfp4_target_info;

#define NVFP4_TARGET_COUNT 7u

static inline const nvfp4_target_info *nvfp4_target_table(void) {
  static const nvfp4_target_info kTargets[NVFP4_TARGET_COUNT] = {
      {"sm_100a", NVFP4_TARGET_GEN_TCGEN05, 100, "+ptx88", 10, 1u << 0, "B200, GB200", 1},
      {"sm_100f", NVFP4_TARGET_GEN_TCGEN05, 100, "+ptx88", 10, 1u << 0 | 1u << 3,
       "B200, GB200, B300, GB300", 0},
      {"sm_103a", NVFP4_TARGET_GEN_TCGEN05, 103, "+ptx88", 10, 1u << 3, "B300, GB300", 0},
      {"sm_90a", NVFP4_TARGET_GEN_WGMMA, 90, "+ptx88", 9, 1u << 0, "H100, H200", 1},
      {"sm_120a", NVFP4_TARGET_GEN_MMA_SYNC, 120, "+ptx87", 12, 1u << 0,
       "RTX 50-series, RTX PRO 6000 Blackwell", 1},
      {"sm_121a", NVFP4_TARGET_GEN_MMA_SYNC, 121, "+ptx88", 12, 1u << 1, "DGX Spark (GB10)", 1},
      {"sm_120f", NVFP4_TARGET_GEN_MMA_SYNC, 120, "+ptx88", 12, 1u << 0 | 1u << 1,
       "RTX 50-series, RTX PRO 6000 Blackwell, DGX Spark", 1},
  };
  return kTargets;
}

/* The target named by the first `length` bytes of `name` (not NUL-terminated), or NULL. */
static inline const nvfp4_target_info *nvfp4_target_find_n(const char *name, size_t length) {
  if (!name) return NULL;
  const nvfp4_target_info *t = nvfp4_target_table();
  for (uint32_t i = 0; i < NVFP4_TARGET_COUNT; ++i)
    if (strlen(t[i].name) == length && memcmp(t[i].name, name, length) == 0) return &t[i];
  return NULL;
}

static inline const nvfp4_target_info *nvfp4_target_find(const char *name) {
  return name ? nvfp4_target_find_n(name, strlen(name)) : NULL;
}

/* Does a cubin of target `t` run on a device of compute capability major.minor? */
static inline int nvfp4_target_runs_on(const nvfp4_target_info *t, int major, int minor) {
  return t && major == (int)t->cc_major && minor >= 0 && minor < 32 &&
         ((t->cc_minors >> minor) & 1u) != 0;
}

/* "sm_100a, sm_100f, ..." for diagnostics. */
static inline const char *nvfp4_target_names(void) {
  return "sm_100a, sm_100f, sm_103a, sm_90a, sm_120a, sm_121a, sm_120f";
}

#ifdef __cplusplus
}
#endif
#endif /* NVFP4_C_TARGETS_H */
