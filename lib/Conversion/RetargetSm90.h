/* RetargetSm90.h — what the sm_90a targets of the generated Blackwell kernels share: the
 * tcgen05 emulation (--nvfp4-emulate-tcgen05, EmulateTcgen05.c) and the timing proxy
 * (--nvfp4-proxy-tcgen05, ProxyTcgen05.c) of the sm_100a kernel, the mma.sync emulation of
 * the sm_120a kernel (--nvfp4-emulate-sm120, EmulateSm120.c). They keep the kernel as
 * generated and change only what sm_90a lacks:
 *   - the gpu.module's target becomes sm_90a (the caller's #nvvm.target list);
 *   - the A/B TMA loads (tagged nvfp4.operand = "a"/"b") of the tcgen05 kernels take their
 *     x coordinate in bytes (K / 2) instead of FP4 elements: sm_90 has no 16U4 tensor maps,
 *     the runtime encodes UINT8 maps over the same bytes (KernelABI.h); the sm_120a kernel's
 *     are in bytes already;
 *   - every metadata record says target sm_90a, carries the target's flag and its
 *     workspace per CTA;
 *   - every op the target's op table names (OpTable.h; nvvm.tcgen05.*, or for the sm_120a
 *     kernels the block-scaled nvvm.mma.block_scale) goes to the target's handler of it,
 *     which replaces it. Ops the handlers add carry the target's unit-attribute tag, so a
 *     test can check that nothing else in the kernel changed.
 */
#ifndef NVFP4_CONVERSION_RETARGETSM90_H
#define NVFP4_CONVERSION_RETARGETSM90_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "KernelBuilder.h"
#include "OpTable.h"

/* What a target's handlers get as their `pass` argument. */
typedef struct Nvfp4Retarget {
  KbBuilder b;           /* inserts just before the op; tags every op it creates */
  MlirValue params;      /* the kernel's parameter-block argument */
  const char *why;       /* a handler's reason for NVFP4_OP_FAILED (reported at the op) */
  const struct Nvfp4Sm90Target *target;
  MlirOperation func;    /* the kernel the builder is set up for */
} Nvfp4Retarget;

/* Records why the op cannot be rewritten; returns NVFP4_OP_FAILED. */
Nvfp4OpAction nvfp4RetargetRefuse(Nvfp4Retarget *r, const char *why);

typedef struct Nvfp4Sm90Target {
  const char *passName;        /* prefixes diagnostics, e.g. "nvfp4-emulate-tcgen05" */
  const char *tag;             /* unit attribute on every op the rewrite adds */
  const char *targets;         /* the gpu.module's new `targets` attribute (array text) */
  const char *const *decls;    /* functions the rewrite calls, declared in each module */
  size_t numDecls;
  uint32_t metadataFlags;      /* OR-ed into every metadata record's flags */
  uint32_t metadataClearFlags; /* then cleared from them */
  uint32_t workspacePerCta;    /* every record's workspace_per_cta */
  /* The target's handler of each op it rewrites (their `pass`: an Nvfp4Retarget), which
   * replaces the op (NVFP4_OP_ERASE) or refuses it; a tcgen05 target's table ends with
   * "nvvm.tcgen05.*". */
  const Nvfp4OpTable *ops;
  const char *entryCall;       /* a function () -> () every kernel calls first (NULL: none) */
  /* The modules it takes: those of the tcgen05 kernels (false), or those of the sm_120a
   * kernels (metadata target_sm 120 / 121), whose A/B loads already take bytes (UINT8
   * maps): their coordinates stay. */
  bool mmaSyncModules;
} Nvfp4Sm90Target;

/* Retargets every nvfp4 gpu.module (one holding the metadata symbol) directly inside
 * `module` that the target takes (mmaSyncModules): never native sm_90a modules (target_sm
 * 90 without the emulation or proxy flag). False after a diagnostic. */
bool nvfp4RetargetToSm90(MlirOperation module, const Nvfp4Sm90Target *target);

/* True when attribute `name` of `op` equals the attribute parsed from `text`. */
bool nvfp4OpAttrIs(KbBuilder *b, MlirOperation op, const char *name, const char *text);

#endif /* NVFP4_CONVERSION_RETARGETSM90_H */
