/* internal.h — private declarations of libnvfp4rt: the libcuda symbol table (X-macro, each
 * driver entry point listed once), the error-recording macros, and the object structs. */
#ifndef NVFP4RT_INTERNAL_H
#define NVFP4RT_INTERNAL_H

#include <cuda.h> /* types and enums only; nothing is linked from libcuda */
#include <string.h>

#include "nvfp4-c/Targets.h"
#include "nvfp4rt.h"

/* Does the kernel read its FP4 bytes through UINT8 tensor maps (x in bytes, KernelABI.h)?
 * Every sm_90 cubin (native, emulation, proxy) and the sm_12x mma.sync kernels: sm_90 has
 * no 16U4 maps, and sm_120a restricts them (docs/kernel-sm120a.md). */
static inline int nvfp4rt_uint8_maps_(const nvfp4_kernel_metadata *m) {
  const char *end = memchr(m->target, 0, sizeof m->target); /* strnlen is POSIX, not C11 */
  const size_t len = end ? (size_t)(end - m->target) : sizeof m->target;
  const nvfp4_target_info *t = nvfp4_target_find_n(m->target, len);
  return m->target_sm == 90 || (t && t->generator == NVFP4_TARGET_GEN_MMA_SYNC);
}

/* Every driver entry point the runtime uses, resolved by base name through
 * cuGetProcAddress(name, &fn, 12000, ...). X(name, parameter list). */
#define NVFP4RT_CU_SYMBOLS(X)                                                              \
  X(cuGetErrorName, (CUresult, const char **))                                             \
  X(cuDriverGetVersion, (int *))                                                           \
  X(cuDeviceGetCount, (int *))                                                             \
  X(cuDeviceGet, (CUdevice *, int))                                                        \
  X(cuDeviceGetName, (char *, int, CUdevice))                                              \
  X(cuDeviceGetAttribute, (int *, CUdevice_attribute, CUdevice))                          \
  X(cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                                     \
  X(cuDevicePrimaryCtxRelease, (CUdevice))                                                 \
  X(cuCtxSetCurrent, (CUcontext))                                                          \
  X(cuCtxGetCurrent, (CUcontext *))                                                        \
  X(cuCtxSynchronize, (void))                                                              \
  X(cuModuleLoadData, (CUmodule *, const void *))                                          \
  X(cuModuleUnload, (CUmodule))                                                            \
  X(cuModuleGetFunction, (CUfunction *, CUmodule, const char *))                           \
  X(cuModuleGetGlobal, (CUdeviceptr *, size_t *, CUmodule, const char *))                  \
  X(cuFuncSetAttribute, (CUfunction, CUfunction_attribute, int))                           \
  X(cuLaunchKernelEx, (const CUlaunchConfig *, CUfunction, void **, void **))              \
  X(cuTensorMapEncodeTiled,                                                                \
    (CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,           \
     const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,    \
     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill))                 \
  X(cuMemAlloc, (CUdeviceptr *, size_t))                                                   \
  X(cuMemFree, (CUdeviceptr))                                                              \
  X(cuMemcpyHtoD, (CUdeviceptr, const void *, size_t))                                     \
  X(cuMemcpyDtoH, (void *, CUdeviceptr, size_t))                                           \
  X(cuMemsetD8Async, (CUdeviceptr, unsigned char, size_t, CUstream))                      \
  X(cuStreamCreate, (CUstream *, unsigned int))                                            \
  X(cuStreamDestroy, (CUstream))                                                           \
  X(cuStreamSynchronize, (CUstream))                                                       \
  X(cuEventCreate, (CUevent *, unsigned int))                                              \
  X(cuEventDestroy, (CUevent))                                                             \
  X(cuEventRecord, (CUevent, CUstream))                                                    \
  X(cuEventElapsedTime, (float *, CUevent, CUevent))                                       \
  X(cuTensorMapReplaceAddress, (CUtensorMap *, void *))                                    \
  X(cuStreamBeginCapture, (CUstream, CUstreamCaptureMode))                                 \
  X(cuStreamEndCapture, (CUstream, CUgraph *))                                             \
  X(cuGraphInstantiateWithFlags, (CUgraphExec *, CUgraph, unsigned long long))             \
  X(cuGraphLaunch, (CUgraphExec, CUstream))                                                \
  X(cuGraphExecDestroy, (CUgraphExec))                                                     \
  X(cuGraphDestroy, (CUgraph))                                                             \
  X(cuMemcpyHtoDAsync, (CUdeviceptr, const void *, size_t, CUstream))                      \
  X(cuMemHostAlloc, (void **, size_t, unsigned int))                                       \
  X(cuMemFreeHost, (void *))                                                               \
  X(cuEventQuery, (CUevent))                                                               \
  X(cuEventSynchronize, (CUevent))                                                         \
  X(cuStreamIsCapturing, (CUstream, CUstreamCaptureStatus *))                              \
  X(cuThreadExchangeStreamCaptureMode, (CUstreamCaptureMode *))

#define NVFP4RT_DECLARE_PFN(name, params) typedef CUresult(CUDAAPI *nvfp4rt_pfn_##name) params;
NVFP4RT_CU_SYMBOLS(NVFP4RT_DECLARE_PFN)
#undef NVFP4RT_DECLARE_PFN

typedef struct nvfp4rt_driver {
#define NVFP4RT_FIELD(name, params) nvfp4rt_pfn_##name name##_;
  NVFP4RT_CU_SYMBOLS(NVFP4RT_FIELD)
#undef NVFP4RT_FIELD
} nvfp4rt_driver;

/* Loaded driver table (valid after nvfp4rt_driver_load() returned OK). */
extern nvfp4rt_driver nvfp4rt_cu;
#define NVFP4RT_CU(name) (nvfp4rt_cu.name##_)

/* ---- error recording ---- */
nvfp4rt_status nvfp4rt_set_error_(nvfp4rt_status st, const char *file, int line,
                                  const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
nvfp4rt_status nvfp4rt_set_cu_error_(CUresult r, const char *call, const char *file, int line,
                                     const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

void nvfp4rt_set_error_detail_(int cu_result, const char *call);

/* Records status + message with this file/line and returns the status. */
#define NVFP4RT_FAIL(st, ...) nvfp4rt_set_error_((st), __FILE__, __LINE__, __VA_ARGS__)
/* Calls a driver entry point; on failure records name + CUresult and returns from the
 * enclosing function with NVFP4RT_STATUS_CUDA_ERROR (OUT_OF_MEMORY for allocation). */
#define NVFP4RT_CU_CALL(name, args)                                                        \
  do {                                                                                     \
    CUresult r_ = nvfp4rt_cu.name##_ args;                                                   \
    if (r_ != CUDA_SUCCESS)                                                                \
      return nvfp4rt_set_cu_error_(r_, #name, __FILE__, __LINE__, "%s", "");             \
  } while (0)

/* ---- objects ---- */
struct nvfp4rt_context {
  CUdevice device;
  CUcontext ctx;
  nvfp4rt_device_info info;
};

struct nvfp4rt_module {
  nvfp4rt_context *ctx;
  CUmodule module;
  nvfp4rt_metadata_table table;                     /* one record per variant */
  CUfunction functions[NVFP4_METADATA_MAX_VARIANTS]; /* variant i's kernel */
};

/* Makes `ctx` current on the calling thread unless it is already (cuCtxGetCurrent first, so
 * that the common case is one cheap query): what plans do before a driver call that needs
 * their context (driver.c). CUDA_ERROR naming cuCtxSetCurrent on failure. */
nvfp4rt_status nvfp4rt_ensure_current_(const nvfp4rt_context *ctx);

/* A page-locked source is about to be rewritten: when `*queued`, waits until `copied` (the
 * event recorded after its last asynchronous upload) has run, then clears `*queued`.
 * CUDA_ERROR naming cuEventSynchronize, with `what`, on failure (driver.c). */
nvfp4rt_status nvfp4rt_wait_upload_(CUevent copied, int *queued, const char *what);

nvfp4rt_status nvfp4rt_read_whole_file(const char *path, void **data, size_t *size);

/* The options both forms' plans keep beyond the variant and the tensor-map mode. */
typedef struct nvfp4rt_plan_extras_ {
  nvfp4rt_pdl pdl;                   /* NVFP4RT_PDL_DEFAULT where the layout has none */
  uint32_t table_cache;              /* device copies of the table (never 0) */
  uint64_t debug_act, debug_act_stride; /* the activation dump (0: none) */
} nvfp4rt_plan_extras_;
/* Shared by both forms' plan_create (plan.c): checks options->struct_size (0, or at least
 * the 2.0 layout, which ends before `pdl`; `who` prefixes the message), the fields the
 * layout holds, and the activation dump against `meta` (required by a kernel built with
 * nvfp4.debug_activations, refused by every other); fills `extras`. */
nvfp4rt_status nvfp4rt_plan_options_check_(const nvfp4rt_plan_options *options, const char *who,
                                           const nvfp4_kernel_metadata *meta,
                                           nvfp4rt_plan_extras_ *extras);
/* Writes the activation dump of `extras` into a packed parameter block's header (nothing
 * when it has none). */
void nvfp4rt_plan_extras_write_(const nvfp4rt_plan_extras_ *extras, unsigned char *block);
/* Shared by both forms' launch configuration (plan.c): fills cfg->numAttrs attributes of
 * `attrs` (room for 2) for a launch of variant `meta` of `mod` — its cluster dimension, and
 * programmatic stream serialization when `pdl` (the plan's option) turns out on — and
 * returns whether it did. */
int nvfp4rt_launch_attrs_(CUlaunchConfig *cfg, CUlaunchAttribute *attrs, const nvfp4rt_module *mod,
                          const nvfp4_kernel_metadata *meta, nvfp4rt_pdl pdl);

/* Shared by both forms' tensor-map contracts (plan.c): the C map data type, columns (N rounded down to whole 16-byte chunks) and box width. */
void nvfp4rt_c_map_type_(uint32_t c_type, uint32_t n, nvfp4rt_tmap_args *o);
/* C's shape checks shared by both forms (`who`: "group 3", "moe"): C has n columns (the
 * fused SwiGLU epilogue: n / 2 FP4 columns of B's n = 2I rows, I a multiple of 128, or of 64
 * for a kernel with NVFP4_META_VFLAG_SWIGLU_MID_ATOM), ldc at
 * least that with 16-byte row pitches, and the epilogue's SFC and gs pointers present (16-
 * and 4-byte aligned) exactly when the kernel has the fused epilogue. */
nvfp4rt_status nvfp4rt_check_c_(const nvfp4_kernel_metadata *meta, const char *who, uint32_t n,
                                uint32_t ldc, uint64_t sfc, uint64_t gs);

typedef struct nvfp4rt_table_cache_ nvfp4rt_table_cache_;
/* Shared by both forms' get_info (plan.c): checks caller->struct_size (0 is the 2.0 layout,
 * anything else must be at least it; `who` prefixes the message), then fills the whole of
 * *info (the library's layout) with what the variant's metadata record says. The caller
 * adds the plan's own fields, then nvfp4rt_plan_info_end_ adds the table cache's and
 * copies caller->struct_size bytes (0: the 2.0 layout) of it to the caller. */
nvfp4rt_status nvfp4rt_plan_info_begin_(const nvfp4rt_plan_info *caller, nvfp4rt_plan_info *info,
                                        const char *who, const nvfp4_kernel_metadata *m,
                                        uint32_t variant);
void nvfp4rt_plan_info_end_(nvfp4rt_plan_info *caller, const nvfp4rt_plan_info *info,
                            const nvfp4rt_table_cache_ *tables);

/* ---- the device tables of the plans (tablecache.c) ---- */

/* The most device copies a plan's table cache may hold (nvfp4rt_plan_options.table_cache). */
#define NVFP4RT_TABLE_CACHE_MAX 256u
/* The default (options without table_cache, or 0). */
#define NVFP4RT_TABLE_CACHE_DEFAULT 16u
/* `count` device copies of a `bytes`-byte table, each with its page-locked source image
 * and event (the context current). Status with the failing call's message on failure. */
nvfp4rt_status nvfp4rt_table_cache_create_(uint32_t count, size_t bytes,
                                           nvfp4rt_table_cache_ **out);
void nvfp4rt_table_cache_destroy_(nvfp4rt_table_cache_ *cache);
/* The part of a table image a launch's kernel reads: one or two ordered byte ranges of the
 * image (bytes[1] 0: one), and the group count they belong to (0: the whole table). The
 * cache hashes, compares and copies these bytes only. */
typedef struct nvfp4rt_table_extent_ {
  uint32_t off[2], bytes[2];
  uint32_t groups;
} nvfp4rt_table_extent_;
/* The pointer-array form's (a table of max_groups slots, KernelABI.h): the tensor maps of
 * slots 0..n-1, [0, 640 n), and their records, [record_offset(max_groups, 0), + 64 n). The
 * kernel reads no slot at or beyond the header's group count (lib/Conversion/Generator). */
nvfp4rt_table_extent_ nvfp4rt_table_extent_groups_(uint32_t max_groups, uint32_t n);
/* The whole of a `bytes`-byte table (the contiguous form's shared maps). */
nvfp4rt_table_extent_ nvfp4rt_table_extent_whole_(size_t bytes);
/* The largest gap between an extent's two ranges that one copy spans, rather than one
 * copy per range. A cuMemcpyHtoDAsync costs a few microseconds of driver time on the host
 * and a DMA's fixed latency on the device, while 16 KB more over PCIe (about 25 GB/s) take
 * under a microsecond: up to this gap one copy is cheaper than two. A 16-group table's gap
 * is at most 9.6 KB (one copy), a 256-group table's exceeds it up to 230 groups. */
#define NVFP4RT_TABLE_GAP_MAX 16384u
/* The device address of a copy of part `used` of `image` (the cache's `bytes`) that a kernel
 * launched next on `stream` reads: a copy holding that part already (no copy; `changed` 0
 * says the image is the one of the previous call, which needs no lookup), else the least
 * recently used copy overwritten with cuMemcpyHtoDAsync on `stream` (its bytes outside
 * `used` left as they were). Under stream capture a kept copy, uploaded outside the graph at
 * capture time and never rewritten (the graph holds no copy). */
nvfp4rt_status nvfp4rt_table_cache_use_(nvfp4rt_table_cache_ *cache, const unsigned char *image,
                                        const nvfp4rt_table_extent_ *used, int changed,
                                        CUstream stream, uint64_t *dev);
/* Its copies, their bytes, the uploads made, the lookups served without one and the bytes
 * copied to the device so far (all 0 for a NULL cache). */
void nvfp4rt_table_cache_info_(const nvfp4rt_table_cache_ *cache, uint32_t *count,
                               uint32_t *bytes, uint64_t *uploads, uint64_t *hits,
                               uint64_t *bytes_uploaded);

#endif /* NVFP4RT_INTERNAL_H */
