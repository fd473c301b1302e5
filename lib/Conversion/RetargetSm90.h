/* RetargetSm90.h — what the two sm_90a targets of the generated sm_100a kernel share: the
 * tcgen05 emulation (--nvfp4-emulate-tcgen05, EmulateTcgen05.c) and the timing proxy
 * (--nvfp4-proxy-tcgen05, ProxyTcgen05.c). Both keep the kernel as generated and change
 * only what sm_90a lacks:
 *   - the gpu.module's target becomes sm_90a (the caller's #nvvm.target list);
 *   - the A/B TMA loads (tagged nvfp4.operand = "a"/"b") take their x coordinate in bytes
 *     (K / 2) instead of FP4 elements: sm_90 has no 16U4 tensor maps, the runtime encodes
 *     UINT8 maps over the same bytes (KernelABI.h);
 *   - every metadata record says target sm_90a, carries the target's flag and its
 *     workspace per CTA;
 *   - every nvvm.tcgen05.* op goes to the target's handler of it (the target's op table,
 *     OpTable.h), which replaces it. Ops the handlers add carry the target's unit-attribute
 *     tag, so a test can check that nothing else in the kernel changed.
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
  /* The target's handler of each nvvm.tcgen05 op (their `pass`: an Nvfp4Retarget), which
   * replaces the op (NVFP4_OP_ERASE) or refuses it; the table ends with "nvvm.tcgen05.*". */
  const Nvfp4OpTable *ops;
  const char *entryCall;       /* a function () -> () every kernel calls first (NULL: none) */
} Nvfp4Sm90Target;

/* Retargets every nvfp4 gpu.module (one holding the metadata symbol) directly inside
 * `module`, except native sm_90a modules (target_sm 90 without the emulation or proxy flag),
 * which have no tcgen05 op. False after a diagnostic. */
bool nvfp4RetargetToSm90(MlirOperation module, const Nvfp4Sm90Target *target);

/* True when attribute `name` of `op` equals the attribute parsed from `text`. */
bool nvfp4OpAttrIs(KbBuilder *b, MlirOperation op, const char *name, const char *text);

#endif /* NVFP4_CONVERSION_RETARGETSM90_H */
