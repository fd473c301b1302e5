/* nvfp4rt.h — public C API of libnvfp4rt, the runtime that loads an nvfp4-mlir cubin,
 * reads its self-describing metadata, builds reusable launch plans for grouped NVFP4
 * matmuls (tensor maps + parameter block, KernelABI.h) and launches them.
 *
 * C11; needs neither cuda.h nor libcuda at build time: libcuda is loaded with dlopen on
 * first use (override the path with the environment variable NVFP4RT_LIBCUDA_PATH).
 * The library never aborts and never prints: every entry point returns an nvfp4rt_status
 * and records a detail message (failing CUDA call, CUresult, file/line) readable with
 * nvfp4rt_last_error() on the calling thread.
 *
 * Thread safety: objects are not internally locked; use one plan from one thread at a time.
 *
 * ABI growth: structs the caller hands to the library or the library fills for the caller
 * (nvfp4rt_plan_options, nvfp4rt_plan_info) start with `struct_size`, which the caller
 * sets to sizeof(the struct) (the *_INIT macros do) or leaves 0, which means the 2.0
 * layout; the library reads and writes only that many bytes, so later versions can append
 * fields without breaking old callers. Initialise the structs (an uninitialised size is
 * garbage the library cannot tell from a size).
 * Structs the library owns (nvfp4rt_device_info) carry the size the library filled in.
 * nvfp4rt_group and nvfp4rt_tmap_args are fixed contracts (arrays of them are passed).
 */
#ifndef NVFP4RT_H
#define NVFP4RT_H

#include <stddef.h>
#include <stdint.h>

#include "nvfp4-c/KernelABI.h"
#include "nvfp4-c/Version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define NVFP4RT_API
#else
#define NVFP4RT_API __attribute__((visibility("default")))
#endif

/* ---- version ---------------------------------------------------------------------- */

/* The version this header belongs to (NVFP4_VERSION_NUMBER: major * 10000 + minor * 100 +
 * patch); nvfp4rt_version() is the version of the library actually loaded. */
#define NVFP4RT_VERSION NVFP4_VERSION_NUMBER
NVFP4RT_API uint32_t nvfp4rt_version(void);
/* "2.0.0" (static, never NULL). */
NVFP4RT_API const char *nvfp4rt_version_string(void);
/* The kernel ABI version (NVFP4_ABI_VERSION) this runtime packs and accepts in metadata. */
NVFP4RT_API uint32_t nvfp4rt_kernel_abi_version(void);

/* ---- status ---------------------------------------------------------------------- */

typedef enum nvfp4rt_status {
  NVFP4RT_STATUS_OK = 0,
  NVFP4RT_STATUS_DRIVER_NOT_FOUND,   /* libcuda could not be loaded / resolved */
  NVFP4RT_STATUS_NO_DEVICE,          /* driver present, no (such) device */
  NVFP4RT_STATUS_INVALID_ARGUMENT,   /* bad argument not covered by a more precise status */
  NVFP4RT_STATUS_NULL_POINTER,       /* a required pointer (host or device) is null */
  NVFP4RT_STATUS_MISALIGNED,         /* base address or row pitch breaks TMA/store alignment */
  NVFP4RT_STATUS_BAD_SHAPE,          /* K not a multiple of the granule, ldc < N, ... */
  NVFP4RT_STATUS_TOO_MANY_GROUPS,    /* group count outside 1..metadata max_groups */
  NVFP4RT_STATUS_BAD_CUBIN,          /* not an ELF64 cubin / metadata symbol missing or malformed */
  NVFP4RT_STATUS_ABI_MISMATCH,       /* metadata magic/version/record size/param bytes */
  NVFP4RT_STATUS_TARGET_MISMATCH,    /* cubin target does not match the device */
  NVFP4RT_STATUS_CUDA_ERROR,         /* a driver call failed (see nvfp4rt_last_error) */
  NVFP4RT_STATUS_OUT_OF_MEMORY,      /* host or device allocation failed */
  NVFP4RT_STATUS_OVERFLOW,           /* a size computation overflows 32/64 bits */
  NVFP4RT_STATUS_IO_ERROR,           /* a file could not be read */
  NVFP4RT_STATUS_UNSUPPORTED,        /* a metadata feature this runtime does not implement */
  NVFP4RT_STATUS_COUNT_
} nvfp4rt_status;

/* Static, never NULL: "NVFP4RT_STATUS_OK", ... */
NVFP4RT_API const char *nvfp4rt_status_string(nvfp4rt_status status);

/* Detail of the last failure on the calling thread (thread-local; overwritten by the next
 * failing call, untouched by successful ones). */
typedef struct nvfp4rt_error {
  nvfp4rt_status status;
  int cu_result;              /* CUresult of the failing driver call, 0 if none */
  const char *cu_call;        /* name of that call ("cuTensorMapEncodeTiled"), "" if none */
  const char *file;           /* source location inside the runtime that raised it */
  int line;
  const char *message;        /* human-readable, NUL-terminated */
} nvfp4rt_error;
NVFP4RT_API const nvfp4rt_error *nvfp4rt_last_error(void);
NVFP4RT_API const char *nvfp4rt_last_error_message(void);
NVFP4RT_API void nvfp4rt_clear_error(void);

/* ---- driver and context ------------------------------------------------------------ */

/* Loads libcuda and calls cuInit(0) (idempotent, thread-safe). DRIVER_NOT_FOUND when the
 * library or an entry point is missing, NO_DEVICE when cuInit reports no device. */
NVFP4RT_API nvfp4rt_status nvfp4rt_driver_load(void);

typedef struct nvfp4rt_device_info {
  size_t struct_size;         /* filled by the library: sizeof its nvfp4rt_device_info */
  char name[256];
  int ordinal;
  int cc_major, cc_minor;
  int sm_count;
  int l2_bytes;
  int max_smem_optin;
  int driver_version;         /* cuDriverGetVersion, e.g. 13000 */
} nvfp4rt_device_info;

typedef struct nvfp4rt_context nvfp4rt_context;

/* Retains the primary context of device `ordinal` and makes it current. */
NVFP4RT_API nvfp4rt_status nvfp4rt_context_create(int ordinal, nvfp4rt_context **out);
NVFP4RT_API void nvfp4rt_context_destroy(nvfp4rt_context *ctx);
NVFP4RT_API nvfp4rt_status nvfp4rt_context_make_current(nvfp4rt_context *ctx);
NVFP4RT_API const nvfp4rt_device_info *nvfp4rt_context_device_info(const nvfp4rt_context *ctx);

/* ---- metadata (host only, no driver) ----------------------------------------------- */

/* Checks that an ELF64 image is self-consistent within `size` bytes: the ELF header, the
 * program-header and section-header tables, every segment's file extent, every section's
 * file extent (except SHT_NOBITS), the section-name string table and every section's
 * link. The driver receives only a pointer, so this is what keeps a truncated or
 * corrupted cubin from being read past its end. BAD_CUBIN with the offending field. */
NVFP4RT_API nvfp4rt_status nvfp4rt_elf_check_image(const void *image, size_t size);
/* Finds the symbol NVFP4_METADATA_SYMBOL in an ELF64 image (cubin) and returns a pointer
 * into `image` at its bytes (SHT_PROGBITS section; st_value relative to the section) and
 * the symbol size (variant_count records of 256 bytes). The image is checked first
 * (nvfp4rt_elf_check_image). BAD_CUBIN for anything malformed or missing. */
NVFP4RT_API nvfp4rt_status nvfp4rt_elf_find_metadata(const void *image, size_t size,
                                                     const unsigned char **record,
                                                     size_t *record_size);
/* Decodes and validates a 256-byte record: magic, ABI version, record size, param bytes
 * consistent with max_groups (contiguous form: with its tensor maps), non-zero block
 * dims/tile sizes, known form / C type / epilogue flags, NUL-terminated strings. */
NVFP4RT_API nvfp4rt_status nvfp4rt_metadata_decode(const unsigned char *record, size_t size,
                                                   nvfp4_kernel_metadata *out);
/* The metadata table of a cubin: one record per kernel variant (KernelABI.h). */
typedef struct nvfp4rt_metadata_table {
  uint32_t count;
  nvfp4_kernel_metadata variants[NVFP4_METADATA_MAX_VARIANTS];
} nvfp4rt_metadata_table;
/* Decodes `size / 256` records and checks that they form one family: variant_count equal
 * to the number of records, variant_index i in record i, the same ABI-level fields
 * (target, flags, max_groups, param_bytes (pointer-array form), k_granule, form, C type,
 * epilogue flags) in every record, distinct kernel names. */
NVFP4RT_API nvfp4rt_status nvfp4rt_metadata_decode_table(const unsigned char *records,
                                                         size_t size,
                                                         nvfp4rt_metadata_table *out);
/* elf_find_metadata + metadata_decode_table. */
NVFP4RT_API nvfp4rt_status nvfp4rt_metadata_read_image(const void *image, size_t size,
                                                       nvfp4rt_metadata_table *out);
NVFP4RT_API nvfp4rt_status nvfp4rt_metadata_read_file(const char *path,
                                                      nvfp4rt_metadata_table *out);
/* TARGET_MISMATCH unless the cubin can run on a device of compute capability major.minor,
 * by its target string (nvfp4-c/Targets.h): sm_100a 10.0, sm_100f 10.0 and 10.3, sm_103a
 * 10.3, sm_90a 9.0, sm_120a 12.0, sm_121a 12.1, sm_120f 12.0 and 12.1 (an unknown string:
 * the exact architecture of target_sm). The message names the cubin's target, the
 * compute capabilities it runs on and the device's. */
NVFP4RT_API nvfp4rt_status nvfp4rt_metadata_check_target(const nvfp4_kernel_metadata *meta,
                                                         int cc_major, int cc_minor);
/* Encodes a record (used by tests and tools to produce metadata). NULL_POINTER when
 * either argument is NULL. */
NVFP4RT_API nvfp4rt_status nvfp4rt_metadata_encode(const nvfp4_kernel_metadata *meta,
                                                   unsigned char record[NVFP4_METADATA_BYTES]);

/* ---- module ------------------------------------------------------------------------- */

typedef struct nvfp4rt_module nvfp4rt_module;

/* Loads a cubin (copied; the caller's buffer can be freed afterwards), reads the metadata
 * table from the ELF, checks the target against the device, cross-checks the table with
 * cuModuleGetGlobal + cuMemcpyDtoH, gets every variant's kernel by its metadata name and
 * sets its MAX_DYNAMIC_SHARED_SIZE_BYTES. */
NVFP4RT_API nvfp4rt_status nvfp4rt_module_load_data(nvfp4rt_context *ctx, const void *image,
                                                    size_t size, nvfp4rt_module **out);
NVFP4RT_API nvfp4rt_status nvfp4rt_module_load_file(nvfp4rt_context *ctx, const char *path,
                                                    nvfp4rt_module **out);
NVFP4RT_API void nvfp4rt_module_destroy(nvfp4rt_module *mod);
/* The first variant's record (every record shares the ABI-level fields). */
NVFP4RT_API const nvfp4_kernel_metadata *nvfp4rt_module_metadata(const nvfp4rt_module *mod);
/* The kernel family: variant count, variant i's record (NULL when out of range), and the
 * index of the variant whose kernel name ends with "_<name>" or equals it (-1 if none). */
NVFP4RT_API uint32_t nvfp4rt_module_variant_count(const nvfp4rt_module *mod);
NVFP4RT_API const nvfp4_kernel_metadata *nvfp4rt_module_variant(const nvfp4rt_module *mod,
                                                                uint32_t index);
NVFP4RT_API int nvfp4rt_module_find_variant(const nvfp4rt_module *mod, const char *name);

/* ---- groups, validation, tensor-map arguments (host only) ------------------------- */

/* One group of the grouped matmul. Pointers are device addresses. A is M x K FP4 (K/2
 * bytes per row), B is N x K FP4, SFA/SFB are blocked E4M3 scale tensors (docs/format.md),
 * C is M x N of the kernel's C type (metadata c_type: fp16, bf16 or fp32) with row stride
 * ldc elements. `alpha` is the device address of the group's fp32 alpha for a kernel
 * compiled with alpha (C = alpha * A B^T) and must be 0 otherwise. */
typedef struct nvfp4rt_group {
  uint64_t a, b, sfa, sfb, c;
  uint32_t m, n, k;
  uint32_t ldc;
  uint64_t alpha;
  /* The fused SwiGLU + NVFP4 epilogue (metadata epilogue flag NVFP4_META_EFLAG_SWIGLU_NVFP4;
   * 0 for every other kernel): n is B's 2I gate/up rows, c the M x I FP4 codes (ldc in FP4
   * elements, ldc / 2 bytes per row), sfc the block scales of c in the blocked layout
   * (ceil(M/128) x ceil(I/64) atoms, 16-byte aligned) and gs the group's fp32 global scale
   * (4-byte aligned); docs/ops.md. */
  uint64_t sfc, gs;
} nvfp4rt_group;

/* Launch geometry of one variant for a set of groups. Groups are scheduled in table
 * order: slot s of the group table holds the caller's group order[s]; the runtime sorts
 * by descending M (ties keep the caller's order) so the largest groups start first. */
typedef struct nvfp4rt_plan_layout {
  uint32_t num_groups;
  uint32_t total_tiles;
  uint32_t order[NVFP4_ABI_MAX_GROUPS];      /* table slot -> caller's group index */
  uint32_t tile_start[NVFP4_ABI_MAX_GROUPS]; /* per slot: exclusive prefix sum */
  uint32_t tiles_m[NVFP4_ABI_MAX_GROUPS];    /* per slot: tiles along the M role */
  uint32_t tiles[NVFP4_ABI_MAX_GROUPS];      /* per slot: tiles of the group */
  uint32_t tile_n[NVFP4_ABI_MAX_GROUPS];     /* per slot: N of the group's MMAs */
} nvfp4rt_plan_layout;

/* Pure validation of a launch of variant `meta` (no driver): group count
 * 1..max_groups, null pointers (groups with M == 0 or N == 0 are skipped: 0 tiles,
 * pointers not inspected), 16-byte base alignment of A, B, SFA, SFB, C, K > 0 and a
 * multiple of k_granule (so the K/2-byte row pitch is a multiple of 16), ldc >= N,
 * ldc*2 % 16 == 0, 32-bit tile counts and byte sizes without overflow. Fills `layout`
 * when non-NULL. The error message names the group and the field. */
NVFP4RT_API nvfp4rt_status nvfp4rt_plan_validate(const nvfp4_kernel_metadata *meta,
                                                 const nvfp4rt_group *groups,
                                                 uint32_t num_groups,
                                                 nvfp4rt_plan_layout *layout);

/* Rows of the N role of `group` in variant `meta` (N for AB, M for SWAP_AB) and the N of
 * the group's MMAs: tile_n for a fixed-N variant; for a DYNAMIC_N variant the rows rounded
 * up to n_align when they fit one tile (at least n_align), else tile_n (KernelABI.h). */
NVFP4RT_API uint32_t nvfp4rt_group_tile_n(const nvfp4_kernel_metadata *meta,
                                          const nvfp4rt_group *group);

/* The variant heuristic (docs/kernel-sm100a.md): a model of each variant's time from the
 * groups' M, N, K, the group count and the SM count — bytes each CTA moves into shared
 * memory per tile, tiles dealt round-robin to the persistent CTAs, DRAM traffic including
 * the M-role re-reads across N tiles — and the index of the cheapest variant that can run
 * the launch. `cost_us` (table->count entries, may be NULL) receives each modelled time
 * (a negative value for a variant that cannot run it). -1 when none can. */
NVFP4RT_API int nvfp4rt_select_variant(const nvfp4rt_metadata_table *table,
                                       const nvfp4rt_group *groups, uint32_t num_groups,
                                       uint32_t sm_count, double *cost_us);

/* Arguments of one cuTensorMapEncodeTiled call (the KernelABI.h tensor-map contract).
 * data_type uses the CUtensorMapDataType numbering of cuda.h. */
typedef enum nvfp4rt_tmap_kind {
  NVFP4RT_TMAP_A = 0, NVFP4RT_TMAP_B = 1, NVFP4RT_TMAP_SFA = 2, NVFP4RT_TMAP_SFB = 3,
  NVFP4RT_TMAP_C = 4
} nvfp4rt_tmap_kind;
typedef struct nvfp4rt_tmap_args {
  uint32_t data_type;       /* CU_TENSOR_MAP_DATA_TYPE_* */
  uint32_t rank;            /* 2 */
  uint64_t global_address;
  uint64_t dims[2];
  uint64_t stride_bytes[1]; /* dim 1 stride */
  uint32_t box[2];
  uint32_t element_strides[2];
  uint32_t interleave, swizzle, l2_promotion, oob_fill; /* CU_TENSOR_MAP_* numbering */
} nvfp4rt_tmap_args;
NVFP4RT_API nvfp4rt_status nvfp4rt_tmap_args_for(const nvfp4_kernel_metadata *meta,
                                                 const nvfp4rt_group *group,
                                                 nvfp4rt_tmap_kind kind,
                                                 nvfp4rt_tmap_args *out);

/* Encodes one tensor map on the driver (cuTensorMapEncodeTiled) into out[128 bytes,
 * 64-B aligned]. Needs the driver and a current context (nvfp4rt_context_create). */
NVFP4RT_API nvfp4rt_status nvfp4rt_tmap_encode(const nvfp4rt_tmap_args *args, void *out);

/* Writes the header and the group records (in the layout's table order) of a parameter
 * image: the 64-byte header (the parameter block) followed by the group table (64 + 704 *
 * max_groups bytes; the header and the records are zeroed first, the tensor-map slots are
 * left untouched). ABI_MISMATCH unless max_groups is 1..NVFP4_ABI_MAX_GROUPS and
 * param_bytes is NVFP4_ABI_PARAM_BYTES; INVALID_ARGUMENT when `block_bytes` is too small.
 * The table part is what goes to device memory (64-byte aligned); `table_address`, its
 * address there, goes into the header (HDR_TABLE; plans write it at each launch, 0 here). */
NVFP4RT_API nvfp4rt_status nvfp4rt_param_pack(const nvfp4_kernel_metadata *meta,
                                              const nvfp4rt_group *groups, uint32_t num_groups,
                                              const nvfp4rt_plan_layout *layout,
                                              uint64_t workspace, uint64_t workspace_bytes,
                                              uint64_t table_address, void *block,
                                              size_t block_bytes);

/* grid = min(sm_count, total_tiles * cluster size) CTAs, a multiple of the cluster size
 * (a tile of a CTA-pair variant occupies the whole pair); 0 for 0 tiles, and 0 when the
 * cluster is empty or larger than sm_count (no grid can run it: plans report that as
 * UNSUPPORTED instead of launching nothing). */
NVFP4RT_API uint32_t nvfp4rt_grid_size(const nvfp4_kernel_metadata *meta,
                                       uint32_t total_tiles, uint32_t sm_count);

/* ---- plan ----------------------------------------------------------------------------- */

typedef struct nvfp4rt_plan nvfp4rt_plan;

/* How a re-plan brings the tensor maps up to date when a group's pointers change but not
 * its shapes (a shape change always encodes the maps it affects):
 *   ENCODE           cuTensorMapEncodeTiled again for every map whose address changed;
 *   REPLACE_ADDRESS  cuTensorMapReplaceAddress on the cached map (host only, no encode);
 *   KERNEL_PATCH     raw pointers in the parameter block, the kernel patches device copies
 *                    of the maps with tensormap.replace (KernelABI.h,
 *                    NVFP4_ABI_FLAG_PATCH_TMAPS): the host touches no map at all. Needs a
 *                    kernel built with nvfp4.patch_tmaps (metadata flag
 *                    NVFP4_META_FLAG_PATCH_TMAPS) (UNSUPPORTED otherwise): the raw
 *                    pointers sit in the device table's map slots. Allocates, once per
 *                    plan, 640 G (1 + SMs)
 *                    bytes of device memory for the templates and each CTA's copies.
 *                    Every launch of the plan rewrites those copies, so its launches
 *                    (and replays of graphs captured from it) must be stream-ordered:
 *                    one stream, or synchronised with each other.
 * A re-plan whose groups keep their count and shapes and change only pointers takes a fast
 * path with REPLACE_ADDRESS and KERNEL_PATCH: no variant choice, no allocation, no
 * re-packing, only the addresses (docs/performance.md has the measured costs). */
typedef enum nvfp4rt_tmap_update {
  NVFP4RT_TMAP_UPDATE_DEFAULT = 0, /* replace-address for now (runtime/README.md) */
  NVFP4RT_TMAP_UPDATE_ENCODE = 1,
  NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS = 2,
  NVFP4RT_TMAP_UPDATE_KERNEL_PATCH = 3
} nvfp4rt_tmap_update;
/* "encode", "replace-address", "kernel-patch" ("default" for DEFAULT); NULL if unknown. */
NVFP4RT_API const char *nvfp4rt_tmap_update_name(nvfp4rt_tmap_update mode);

typedef struct nvfp4rt_plan_info {
  size_t struct_size;        /* set by the caller: sizeof(nvfp4rt_plan_info) */
  uint32_t variant;          /* index of the variant the plan launches */
  const char *kernel_name;   /* its kernel */
  uint32_t num_groups, total_tiles, grid;
  uint32_t block[3], cluster[3];
  uint32_t dyn_smem_bytes, param_bytes;
  uint64_t workspace, workspace_bytes;
  uint64_t tmaps_encoded;   /* cumulative cuTensorMapEncodeTiled calls made by this plan */
  const void *param_block;  /* the packed parameter block (param_bytes, 64-B aligned; its
                               HDR_TABLE is the device copy of the last launch, 0 before
                               one), followed by the host image of the table */
  nvfp4rt_tmap_update tmap_update; /* the mode in effect (never DEFAULT) */
  uint64_t tmaps_replaced;  /* cumulative cuTensorMapReplaceAddress calls */
  uint64_t tmap_area, tmap_area_bytes; /* KERNEL_PATCH: templates and per-CTA copies */
  uint64_t templates_uploaded; /* KERNEL_PATCH: template uploads (shape changes) */
  /* 3.2: the table cache (filled when struct_size covers the field; runtime/README.md,
   * "Device tables"): the table (KernelABI.h HDR_TABLE) the kernel reads in device memory,
   * kept in table_cache copies of table_bytes each. */
  uint32_t table_cache, table_bytes;
  uint64_t tables_uploaded;   /* cumulative cuMemcpyHtoDAsync of a table (launches that
                                 found their table in no copy) */
  uint64_t table_cache_hits;  /* launches whose new table a copy already held (no copy) */
  /* 3.2: the bytes those uploads copied to the device: only the part of the table a
   * launch reads (the pointer-array form: the maps and records of its groups, one copy
   * spanning both when they are at most 16 KB apart; the contiguous form: all of it). */
  uint64_t table_bytes_uploaded;
} nvfp4rt_plan_info;

/* Chooses a variant (nvfp4rt_select_variant), validates, encodes every tensor map, packs
 * the block, computes the grid and allocates, once, what the launch needs in device
 * memory (emulation workspace; the table cache: table_cache device copies of the group
 * table and as many page-locked images, 704 * max_groups bytes each). */
NVFP4RT_API nvfp4rt_status nvfp4rt_plan_create(nvfp4rt_module *mod, const nvfp4rt_group *groups,
                                               uint32_t num_groups, nvfp4rt_plan **out);
/* Programmatic dependent launch (PDL): a launch with the driver's programmatic stream
 * serialization attribute may start while the previous kernel of its stream is finishing
 * (once all of its CTAs issued their last loads); the kernel's prologue (barriers, Tensor
 * Memory) overlaps that kernel's tail, and its griddepcontrol.wait holds every global access
 * until the previous kernel has completed (docs/kernel-sm100a.md). Used only for kernels
 * whose metadata has NVFP4_META_FLAG_PDL, on devices of compute capability 9.0 and later
 * with a driver of CUDA 12.3 or later (graph capture of such launches); otherwise the
 * launch is an ordinary one. */
typedef enum nvfp4rt_pdl {
  NVFP4RT_PDL_DEFAULT = 0, /* on, unless the environment variable NVFP4RT_PDL is "0" */
  NVFP4RT_PDL_ON = 1,      /* on (the environment variable is not read) */
  NVFP4RT_PDL_OFF = 2      /* ordinary launches */
} nvfp4rt_pdl;
/* Plan options. */
typedef struct nvfp4rt_plan_options {
  size_t struct_size; /* set by the caller: sizeof(nvfp4rt_plan_options) */
  int variant;        /* variant index to launch, or -1 to let the heuristic choose */
  nvfp4rt_tmap_update tmap_update; /* 0: NVFP4RT_TMAP_UPDATE_DEFAULT */
  nvfp4rt_pdl pdl;    /* 0: NVFP4RT_PDL_DEFAULT; read when struct_size covers it */
  /* 3.1: the activation dump of a fused-epilogue kernel built with the op's unit attribute
   * nvfp4.debug_activations (metadata flag NVFP4_META_FLAG_DEBUG_ACTIVATIONS; a testing
   * aid, KernelABI.h NVFP4_ABI_HDR_DEBUG_ACT): the device address of an fp32 buffer (4-byte
   * aligned) and, in the pointer-array form, the bytes between two table slots' activations
   * (slot s holds the group order[s] of nvfp4rt_plan_validate's layout; 0 in the contiguous
   * form). Such a kernel needs a buffer (INVALID_ARGUMENT without one), every other kernel
   * refuses one (INVALID_ARGUMENT): a dump is never silently ignored. Read when struct_size
   * covers debug_activations_stride. */
  uint64_t debug_activations;
  uint64_t debug_activations_stride;
  /* 3.2: the table cache (runtime/README.md, "Device tables"): how many device copies of
   * the table (the group table, or the contiguous form's tensor maps) the plan keeps, each
   * with a page-locked source image; a launch whose table one of them holds copies
   * nothing. 0: the default, 16; 1: a single copy, uploaded again whenever the table
   * changes; at most 256 (INVALID_ARGUMENT above). Read when struct_size covers it. */
  uint32_t table_cache;
} nvfp4rt_plan_options;
/* Defaults: the heuristic chooses the variant. */
#define NVFP4RT_PLAN_OPTIONS_INIT {.struct_size = sizeof(nvfp4rt_plan_options), .variant = -1}
/* plan_create with options (NULL: defaults; INVALID_ARGUMENT for a struct_size that is
 * neither 0 nor at least the 2.0 layout, which ends before `pdl`). A forced variant keeps being used by nvfp4rt_plan_update_pointers; an
 * automatic plan re-chooses when the shapes change. */
NVFP4RT_API nvfp4rt_status nvfp4rt_plan_create_ex(nvfp4rt_module *mod,
                                                  const nvfp4rt_group *groups,
                                                  uint32_t num_groups,
                                                  const nvfp4rt_plan_options *options,
                                                  nvfp4rt_plan **out);
/* Re-plans for new groups (pointers and/or shapes, same or different count): each tensor
 * map is re-encoded only if its cache key (address, rows, K, kind) changed. On failure the
 * plan keeps its previous, valid state. Emulation cubins: when the new grid needs a larger
 * workspace, a new one is allocated and the old one freed after cuCtxSynchronize (the
 * re-plan waits for all work queued in the context); CUDA graphs captured before such a
 * re-plan reference the freed workspace and must be re-captured. Do not re-plan while a
 * stream of the context is being captured. */
NVFP4RT_API nvfp4rt_status nvfp4rt_plan_update_pointers(nvfp4rt_plan *plan,
                                                        const nvfp4rt_group *groups,
                                                        uint32_t num_groups);
/* Launches on `stream` (a CUstream; NULL = legacy default stream). No allocation, no
 * synchronisation: CUDA-graph capturable. 0 tiles: nothing launched, OK. Not reentrant for
 * one plan: it writes `stream` into the plan's launch configuration, so one plan must be
 * launched (and re-planned) from one thread at a time; distinct plans are independent.
 * The group table's device copy: when the plan's table changed since its last launch and
 * no copy of the table cache holds it, the launch first copies it (cuMemcpyHtoDAsync on
 * `stream`) over the least recently used copy, which an earlier launch may still read: so
 * the launches of one plan must be stream-ordered (one stream, or streams synchronised
 * with each other), as for KERNEL_PATCH. Replacing a copy whose previous upload has not
 * executed yet waits for it (the page-locked source is rewritten). Under stream capture the
 * launch reads a copy of its own, uploaded at once outside the graph (the thread's capture
 * mode relaxed for the allocation) and kept unchanged for the plan's life: the graph holds
 * the kernel alone. */
NVFP4RT_API nvfp4rt_status nvfp4rt_plan_launch(nvfp4rt_plan *plan, void *stream);
/* Whether the plan's launches carry the programmatic-stream-serialization attribute now
 * (the option, the environment, the variant's metadata, the device and the driver). */
NVFP4RT_API int nvfp4rt_plan_uses_pdl(const nvfp4rt_plan *plan);
/* Fills `info` up to info->struct_size bytes (0: the 2.0 layout; INVALID_ARGUMENT for a
 * size below it). */
#define NVFP4RT_PLAN_INFO_INIT {.struct_size = sizeof(nvfp4rt_plan_info)}
NVFP4RT_API nvfp4rt_status nvfp4rt_plan_get_info(const nvfp4rt_plan *plan,
                                                 nvfp4rt_plan_info *info);
NVFP4RT_API void nvfp4rt_plan_destroy(nvfp4rt_plan *plan);

/* ---- the contiguous (MoE) form: nvfp4.moe_matmul ------------------------------------- */

/* One launch of a contiguous-form kernel (KernelABI.h). Pointers are device addresses.
 * The routing lives in device memory: expert e owns rows offsets[e] .. offsets[e+1] - 1
 * of A and C, read by the kernel at every launch (the host never reads them), so a plan,
 * and a CUDA graph capturing its launch, serve every routing. */
typedef struct nvfp4rt_moe_problem {
  uint64_t a;         /* M x K FP4, the tokens sorted by expert */
  uint64_t b;         /* E x N x K FP4 */
  uint64_t sfa;       /* sfa_atoms x ceil(K/64) 512-B atoms: expert e's scale factors start
                         at atom row sum over j < e of ceil(tokens_j / 128) */
  uint64_t sfb;       /* E x ceil(N/128) x ceil(K/64) 512-B atoms */
  uint64_t c;         /* M x N of the kernel's C type, row stride ldc elements */
  uint64_t offsets;   /* E + 1 int32 */
  uint64_t alpha;     /* E fp32 (kernels compiled with alpha; else 0) */
  uint32_t m;         /* rows of A and C: the token capacity */
  uint32_t n, k, ldc;
  uint32_t num_experts;
  uint32_t sfa_atoms; /* atom rows of the sfa buffer, >= nvfp4_abi_moe_sfa_atoms(m, E) */
  /* The fused SwiGLU + NVFP4 epilogue (0 for every other kernel): n is B's 2I gate/up rows
   * per expert, c the M x I FP4 codes (ldc in FP4 elements), sfc the block scales of c in
   * the expert-segment layout of sfa (sfa_atoms atom rows of ceil(I/64) atoms, 16-byte
   * aligned), gs E fp32 global scales (4-byte aligned). */
  uint64_t sfc, gs;
} nvfp4rt_moe_problem;

/* Tensor maps of a contiguous-form variant: A, B, SFA, SFB, C, then the N-role box
 * ladder of a DYNAMIC_N variant (KernelABI.h). */
NVFP4RT_API uint32_t nvfp4rt_moe_tmap_count(const nvfp4_kernel_metadata *meta);
/* Pure validation (no driver): a contiguous-form variant, E equal to the compiled expert
 * count, null and misaligned pointers (A, B, SFA, SFB, C 16 B; offsets, alpha 4 B),
 * alpha present exactly when the kernel was compiled with it, K a positive multiple of
 * the granule, ldc >= N with 16-byte rows, sfa_atoms >= the worst case of any routing,
 * 32-bit tile counts for any routing. Empty launches (M = 0 or N = 0) are valid. */
NVFP4RT_API nvfp4rt_status nvfp4rt_moe_validate(const nvfp4_kernel_metadata *meta,
                                                const nvfp4rt_moe_problem *p);
/* Arguments of tensor map `slot` (0 .. nvfp4rt_moe_tmap_count - 1); rank 0 (all zero)
 * for a slot without a map: C of a direct-store variant, C narrower than one 16-byte
 * chunk, every map of an empty launch (M = 0 or N = 0). */
NVFP4RT_API nvfp4rt_status nvfp4rt_moe_tmap_args(const nvfp4_kernel_metadata *meta,
                                                 const nvfp4rt_moe_problem *p, uint32_t slot,
                                                 nvfp4rt_tmap_args *out);
/* Writes the header and the problem record (KernelABI.h) of a contiguous-form parameter
 * block (NVFP4_ABI_MOE_PARAM_BYTES; `block_bytes` at least that). The tensor maps live in
 * the device table whose address the caller writes at HDR_TABLE (plans: at each launch). */
NVFP4RT_API nvfp4rt_status nvfp4rt_moe_param_pack(const nvfp4_kernel_metadata *meta,
                                                  const nvfp4rt_moe_problem *p,
                                                  uint64_t workspace, uint64_t workspace_bytes,
                                                  void *block, size_t block_bytes);
/* The most tiles any routing of `p` can have (M rows split over E experts). */
NVFP4RT_API uint64_t nvfp4rt_moe_max_tiles(const nvfp4_kernel_metadata *meta,
                                           const nvfp4rt_moe_problem *p);
/* The variant for `p` when the routing is unknown: the heuristic of
 * nvfp4rt_select_variant applied to E experts of ceil(M / E) tokens each. -1 if none. */
NVFP4RT_API int nvfp4rt_moe_select_variant(const nvfp4rt_metadata_table *table,
                                           const nvfp4rt_moe_problem *p, uint32_t sm_count);

typedef struct nvfp4rt_moe_plan nvfp4rt_moe_plan;
/* Validates, chooses a variant (or options->variant), encodes the tensor maps, packs the
 * parameter block and allocates the emulation workspace of a grid of min(SMs, max tiles)
 * CTAs. options->struct_size as for nvfp4rt_plan_create_ex; UNSUPPORTED when the variant's
 * clusters do not fit on the device (never a launch that does nothing). */
NVFP4RT_API nvfp4rt_status nvfp4rt_moe_plan_create(nvfp4rt_module *mod,
                                                   const nvfp4rt_moe_problem *p,
                                                   const nvfp4rt_plan_options *options,
                                                   nvfp4rt_moe_plan **out);
/* New pointers and/or sizes (same expert count): re-encodes only the tensor maps whose
 * arguments changed (an automatic plan re-chooses its variant only when M, N or K
 * changed); on failure the plan keeps its previous state. Changing the routing
 * needs no update (the kernel reads the offsets at launch). The same workspace rule as
 * nvfp4rt_plan_update_pointers applies when a larger grid needs a larger workspace. */
NVFP4RT_API nvfp4rt_status nvfp4rt_moe_plan_update(nvfp4rt_moe_plan *plan,
                                                   const nvfp4rt_moe_problem *p);
/* Launches on `stream`: no allocation, no synchronisation, CUDA-graph capturable; the
 * tensor maps' device copy and the stream rule as for nvfp4rt_plan_launch. */
NVFP4RT_API nvfp4rt_status nvfp4rt_moe_plan_launch(nvfp4rt_moe_plan *plan, void *stream);
/* The same as nvfp4rt_plan_uses_pdl. */
NVFP4RT_API int nvfp4rt_moe_plan_uses_pdl(const nvfp4rt_moe_plan *plan);
/* total_tiles is 0 (the kernel counts them); num_groups is E. info->struct_size as for
 * nvfp4rt_plan_get_info. */
NVFP4RT_API nvfp4rt_status nvfp4rt_moe_plan_get_info(const nvfp4rt_moe_plan *plan,
                                                     nvfp4rt_plan_info *info);
NVFP4RT_API void nvfp4rt_moe_plan_destroy(nvfp4rt_moe_plan *plan);

/* ---- small device utilities (used by nvfp4-run and tests) -------------------------- */
/* Every out-pointer (dptr, stream, event, ms) must be non-NULL: NULL_POINTER otherwise. */

NVFP4RT_API nvfp4rt_status nvfp4rt_mem_alloc(nvfp4rt_context *ctx, size_t bytes, uint64_t *dptr);
NVFP4RT_API void nvfp4rt_mem_free(nvfp4rt_context *ctx, uint64_t dptr);
NVFP4RT_API nvfp4rt_status nvfp4rt_memcpy_htod(nvfp4rt_context *ctx, uint64_t dst,
                                               const void *src, size_t bytes);
NVFP4RT_API nvfp4rt_status nvfp4rt_memcpy_dtoh(nvfp4rt_context *ctx, void *dst, uint64_t src,
                                               size_t bytes);
NVFP4RT_API nvfp4rt_status nvfp4rt_memset_async(nvfp4rt_context *ctx, uint64_t dst,
                                                unsigned char value, size_t bytes, void *stream);
NVFP4RT_API nvfp4rt_status nvfp4rt_stream_create(nvfp4rt_context *ctx, void **stream);
NVFP4RT_API void nvfp4rt_stream_destroy(nvfp4rt_context *ctx, void *stream);
NVFP4RT_API nvfp4rt_status nvfp4rt_stream_synchronize(nvfp4rt_context *ctx, void *stream);
NVFP4RT_API nvfp4rt_status nvfp4rt_event_create(nvfp4rt_context *ctx, void **event);
NVFP4RT_API void nvfp4rt_event_destroy(nvfp4rt_context *ctx, void *event);
NVFP4RT_API nvfp4rt_status nvfp4rt_event_record(nvfp4rt_context *ctx, void *event, void *stream);
NVFP4RT_API nvfp4rt_status nvfp4rt_event_elapsed_ms(nvfp4rt_context *ctx, void *start,
                                                    void *end, float *ms);
/* CUDA graphs: capture what is launched on `stream` between begin and end (global capture
 * mode) and instantiate it; replay it on a stream; destroy the instance. */
NVFP4RT_API nvfp4rt_status nvfp4rt_graph_capture_begin(nvfp4rt_context *ctx, void *stream);
NVFP4RT_API nvfp4rt_status nvfp4rt_graph_capture_end(nvfp4rt_context *ctx, void *stream,
                                                     void **graph_exec);
NVFP4RT_API nvfp4rt_status nvfp4rt_graph_launch(nvfp4rt_context *ctx, void *graph_exec,
                                                void *stream);
NVFP4RT_API void nvfp4rt_graph_destroy(nvfp4rt_context *ctx, void *graph_exec);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4RT_H */
