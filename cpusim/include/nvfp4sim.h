/* nvfp4sim.h — public C API of libnvfp4sim, the CTA simulator that executes the CPU
 * execution target of nvfp4-mlir kernels (nvfp4-compile --cpu) on the host, with
 * asynchronous TMA / tcgen05 completion drawn from a seeded schedule and a hazard and
 * deadlock checker. cpusim/README.md describes the model.
 *
 * A CPU object (a shared object built by nvfp4-compile --cpu) holds a kernel family: the
 * same metadata table as the cubin, one host function per variant and its plan text. The
 * caller generates its inputs in host memory, builds a parameter block whose device table
 * (host memory at HDR_TABLE) holds CPU tensor maps (the arguments of cuTensorMapEncodeTiled, which the
 * simulator interprets; nvfp4sim_params_build does all of it) and launches a grid. The
 * simulator keeps a few clusters (1 or 2 CTAs each) resident at once and interleaves them;
 * each CTA's threads are cooperative fibers that switch at barriers and waits.
 *
 * C11. Needs neither a GPU nor the CUDA driver, and links neither MLIR nor LLVM.
 */
#ifndef NVFP4SIM_H
#define NVFP4SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nvfp4rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef NVFP4SIM_API
#define NVFP4SIM_API __attribute__((visibility("default")))
#endif

/* ---- CPU tensor maps ----------------------------------------------------------------- */

/* The 128-byte tensor-map slot of the CPU target (CUtensorMap is opaque; on the CPU the
 * slot carries the encode arguments themselves): little-endian fields at these offsets. */
#define NVFP4SIM_TMAP_MAGIC 0x4D53564Eu /* "NVSM" */
#define NVFP4SIM_TMAP_VERSION 1u
#define NVFP4SIM_TMAP_OFF_MAGIC 0u      /* u32 */
#define NVFP4SIM_TMAP_OFF_VERSION 4u    /* u32 */
#define NVFP4SIM_TMAP_OFF_DATA_TYPE 8u  /* u32, CUtensorMapDataType numbering */
#define NVFP4SIM_TMAP_OFF_RANK 12u      /* u32, 2 */
#define NVFP4SIM_TMAP_OFF_ADDRESS 16u   /* u64 host address */
#define NVFP4SIM_TMAP_OFF_DIMS 24u      /* u64[2], elements */
#define NVFP4SIM_TMAP_OFF_STRIDE 40u    /* u64, bytes between rows */
#define NVFP4SIM_TMAP_OFF_BOX 48u       /* u32[2], elements */
#define NVFP4SIM_TMAP_OFF_ESTRIDE 56u   /* u32[2], 1 */
#define NVFP4SIM_TMAP_OFF_INTERLEAVE 64u
#define NVFP4SIM_TMAP_OFF_SWIZZLE 68u
#define NVFP4SIM_TMAP_OFF_L2 72u
#define NVFP4SIM_TMAP_OFF_OOB 76u

/* Validates `args` as cuTensorMapEncodeTiled would for what the simulator implements
 * (rank 2, UINT8 / FLOAT16 / BFLOAT16 / FLOAT32 / INT64 / 16U4_ALIGN8B, 16-byte aligned
 * address and row stride, boxes of 1..256 elements whose rows are whole 16-byte chunks and, with
 * SWIZZLE_128B/64B/32B, at most 128/64/32 bytes, no interleave, element strides 1) and
 * writes the CPU tensor map into `slot` (128 bytes). 0 on success, -1 with `why`. */
NVFP4SIM_API int nvfp4sim_tmap_encode(const nvfp4rt_tmap_args *args, void *slot, char *why,
                                      size_t why_size);

/* The parameter block of a launch of variant `meta` over `groups` (host pointers):
 * nvfp4rt_plan_validate, every tensor map the kernel reads (nvfp4rt_tmap_args_for,
 * encoded with nvfp4sim_tmap_encode; empty and unused groups' slots zero), then
 * nvfp4rt_param_pack. `block` holds block_bytes >= 64 + 704 * max_groups bytes, 64-byte
 * aligned: the 64-byte parameter block, then the group table, whose host address goes into
 * the header (HDR_TABLE; the "device" table of the CPU target). Fills `layout`. 0 on success, -1 with `why`. */
NVFP4SIM_API int nvfp4sim_params_build(const nvfp4_kernel_metadata *meta,
                                       const nvfp4rt_group *groups, uint32_t num_groups,
                                       void *block, size_t block_bytes,
                                       nvfp4rt_plan_layout *layout, char *why, size_t why_size);

/* The contiguous form: bytes of the image nvfp4sim_moe_params_build writes (the 128-byte
 * parameter block, then the device table of the variant's nvfp4rt_moe_tmap_count maps). */
NVFP4SIM_API size_t nvfp4sim_moe_image_bytes(const nvfp4_kernel_metadata *meta);
/* The contiguous form's image for a launch of `meta` over `p` (host pointers):
 * nvfp4rt_moe_validate, every tensor map (nvfp4rt_moe_tmap_args, encoded with
 * nvfp4sim_tmap_encode) into the table after the block, nvfp4rt_moe_param_pack, and the
 * table's host address in the header (HDR_TABLE). `block` holds `bytes` >=
 * nvfp4sim_moe_image_bytes(meta), 64-byte aligned. 0 on success, -1 with `why`. */
NVFP4SIM_API int nvfp4sim_moe_params_build(const nvfp4_kernel_metadata *meta,
                                           const nvfp4rt_moe_problem *p, uint64_t workspace,
                                           uint64_t workspace_bytes, void *block, size_t bytes,
                                           char *why, size_t why_size);

/* ---- CPU objects --------------------------------------------------------------------- */

typedef struct nvfp4sim_module nvfp4sim_module;

/* Checks that `path` is a complete ELF shared object of this host (every segment and
 * table inside the file: a truncated object is refused, never mapped), dlopen()s it (a
 * path without '/' names a file in the current directory, not a library search),
 * decodes and validates its metadata table (nvfp4rt_metadata_decode_table), finds every
 * variant's host function and parses its plan text. 0 on success, -1 with `why`. */
NVFP4SIM_API int nvfp4sim_module_load(const char *path, nvfp4sim_module **out, char *why,
                                      size_t why_size);
NVFP4SIM_API void nvfp4sim_module_destroy(nvfp4sim_module *mod);
NVFP4SIM_API const nvfp4rt_metadata_table *nvfp4sim_module_table(const nvfp4sim_module *mod);
/* Index of the variant named `name` (a kernel name or its "_<variant>" suffix), or -1. */
NVFP4SIM_API int nvfp4sim_module_find_variant(const nvfp4sim_module *mod, const char *name);

/* ---- launches ------------------------------------------------------------------------ */

/* The order in which the clusters of a launch are admitted. A few are resident at once
 * (nvfp4sim_options.resident) and interleaved by the schedule; a finished one's place goes
 * to the next in this order. A CTA that waited for a CTA admitted after it would be reported
 * as a deadlock in some order. */
typedef enum nvfp4sim_cluster_order {
  NVFP4SIM_CLUSTERS_FORWARD = 0, /* 0, 1, 2, ...: the order a GPU dispatches them in */
  NVFP4SIM_CLUSTERS_REVERSE = 1, /* last to first */
  NVFP4SIM_CLUSTERS_SHUFFLED = 2 /* a permutation drawn from schedule_seed */
} nvfp4sim_cluster_order;

/* Host memory the kernel may access with generic global loads and stores (writable: the C
 * buffers, the workspace) or loads only (readable: the inputs, the group table, offsets,
 * alpha). `name` (optional) names the range in reports. */
typedef struct nvfp4sim_range {
  const void *base;
  size_t bytes;
  const char *name;
} nvfp4sim_range;

typedef struct nvfp4sim_options {
  uint64_t schedule_seed; /* fiber order, cluster interleaving and completion points */
  uint32_t max_reports;   /* hazard reports printed (0: 10); all are counted */
  FILE *log;              /* reports and the deadlock report (NULL: stderr) */
  int trace;              /* 1: print every asynchronous completion (debugging) */
  nvfp4sim_cluster_order cluster_order;
  /* Clusters resident at once (0: 2 to 4, drawn from schedule_seed; 1: each cluster runs to
   * its end before the next starts; at most 8). */
  uint32_t resident;
  /* With readable ranges, a generic global load outside every readable and writable range
   * stops the launch (FAULT); without, loads outside the writable ranges are not checked. */
  const nvfp4sim_range *readable;
  uint32_t num_readable;
  /* 1: leave SIGSEGV / SIGBUS / SIGFPE / SIGILL alone during the launch (by default a
   * signal raised by a simulated thread ends the launch with a FAULT report). */
  int no_signal_guard;
} nvfp4sim_options;

typedef enum nvfp4sim_outcome {
  NVFP4SIM_OK = 0,
  NVFP4SIM_HAZARD = 1,   /* the checker reported ordering hazards (results unreliable) */
  NVFP4SIM_DEADLOCK = 2, /* every simulated thread was blocked with nothing in flight */
  NVFP4SIM_FAULT = 3,    /* the kernel did something illegal (reported; launch stopped) */
  NVFP4SIM_ERROR = 4     /* bad arguments or out of host memory */
} nvfp4sim_outcome;

typedef struct nvfp4sim_result {
  nvfp4sim_outcome outcome;
  uint64_t hazards;       /* hazard reports, printed or not */
  uint64_t switches;      /* fiber switches */
  uint64_t async_ops;     /* asynchronous operations completed (TMA, cp, mma, commit) */
  uint64_t mma_ops, tma_ops;
  uint32_t clusters;      /* clusters simulated */
  /* programmatic dependent launch: CTAs in which a thread executed griddepcontrol.wait /
   * griddepcontrol.launch_dependents */
  uint32_t griddep_wait_ctas, griddep_launch_ctas;
  double wall_ms;
  double cpu_ms;          /* CPU time of the calling thread during the launch */
  char message[512];      /* the first problem, one line ("" when OK) */
} nvfp4sim_result;

/* Runs variant `variant` of `mod` on `grid` CTAs (a multiple of the variant's cluster
 * size) with the parameter block `params` (param_bytes of the metadata). Generic global
 * stores outside `writable`, misaligned generic accesses and (with readable ranges in the
 * options) loads outside every range stop the launch (FAULT); a global load of what another
 * thread stored, when that store is not ordered before it, is a hazard
 * (global-read-before-write-visible). Returns the outcome (also in result->outcome). */
NVFP4SIM_API nvfp4sim_outcome nvfp4sim_launch(const nvfp4sim_module *mod, uint32_t variant,
                                              const void *params, uint32_t grid,
                                              const nvfp4sim_range *writable,
                                              uint32_t num_writable,
                                              const nvfp4sim_options *options,
                                              nvfp4sim_result *result);

/* Runs a host function as a kernel: for tests of the simulator and hand-written kernels
 * calling the nvfp4_sim.h interface directly. `meta` supplies the block and cluster dims,
 * the dynamic shared-memory size and param_bytes; `plan` is a plan text as the CPU pass
 * writes it (at least "kernel NAME", "threads N" and "cluster N" lines; role, smem,
 * barrier, tmem and site lines name things in reports). */
NVFP4SIM_API nvfp4sim_outcome nvfp4sim_launch_kernel(void (*kernel)(void *),
                                                     const nvfp4_kernel_metadata *meta,
                                                     const char *plan, const void *params,
                                                     uint32_t grid,
                                                     const nvfp4sim_range *writable,
                                                     uint32_t num_writable,
                                                     const nvfp4sim_options *options,
                                                     nvfp4sim_result *result);

/* Short name of an outcome ("OK", "HAZARD", "DEADLOCK", "FAULT", "ERROR"). */
NVFP4SIM_API const char *nvfp4sim_outcome_name(nvfp4sim_outcome outcome);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4SIM_H */
