/* nvfp4rt_gen.h — the C ABI of libnvfp4rt for generated host code: what the host code that
 * --nvfp4-host-launch emits (docs/passes.md) calls to load its embedded cubin lazily, once,
 * to keep a cached launch plan and to launch on a stream, with the operands passed as MLIR
 * memref descriptors. Generated-code ABI version 1 (NVFP4RT_GEN_ABI_VERSION).
 *
 * Every entry point returns an nvfp4rt_status (as int32_t, 0 = OK) and, on failure,
 * records a message readable with nvfp4rt_last_error_message() on the calling thread
 * (nvfp4rt.h). Nothing aborts, nothing prints, a bad descriptor is a status.
 *
 * Per op, the generated code owns two zero-initialised pointer-sized globals: a module slot
 * (an nvfp4rt_module *, filled by nvfp4rt_gen_module_load) and a plan slot (the runtime's
 * plan cache, filled by nvfp4rt_gen_launch). Both entry points are thread-safe: loading is
 * serialised and published with release semantics (the generated fast path reads the slot
 * with an acquire load), and each plan cache is locked during a launch.
 */
#ifndef NVFP4RT_GEN_H
#define NVFP4RT_GEN_H

#include <stdint.h>

#include "nvfp4rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NVFP4RT_GEN_ABI_VERSION 1u

/* MLIR's ranked memref descriptor (StridedMemRefType<T, R> of mlir/ExecutionEngine/
 * CRunnerUtils.h; !llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)> after
 * finalize-memref-to-llvm): the pointer the buffer was allocated at, the aligned pointer
 * the data is addressed from, then offset, sizes and strides counted in elements. The
 * address of element (i, j, ...) is aligned + (offset + i*strides[0] + j*strides[1] + ...)
 * elements. FP4 (f4E2M1FN) elements are packed two per byte (docs/format.md), so an FP4
 * operand's offset must be even; f8E4M3FN elements are 1 byte, f16 2 bytes. This is also
 * what a function carrying llvm.emit_c_interface receives from C (_mlir_ciface_<name>
 * takes one pointer to such a struct per memref argument). */
typedef struct nvfp4rt_memref_2d {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} nvfp4rt_memref_2d;

typedef struct nvfp4rt_memref_5d {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[5];
  int64_t strides[5];
} nvfp4rt_memref_5d;

/* The operand form of a launch: how `operands` is laid out.
 *
 * NVFP4RT_GEN_FORM_GROUPED (the pointer-array form of nvfp4.grouped_matmul): 5 * G
 * descriptor pointers, a[0..G) b[0..G) sfa[0..G) sfb[0..G) c[0..G), in the op's order:
 *   a_g   nvfp4rt_memref_2d, f4E2M1FN, sizes {M, K}, strides {K, 1}
 *   b_g   nvfp4rt_memref_2d, f4E2M1FN, sizes {N, K}, strides {K, 1}
 *   sfa_g nvfp4rt_memref_5d, f8E4M3FN, sizes {ceil(M/128), ceil(K/64), 32, 4, 4}, contiguous
 *   sfb_g nvfp4rt_memref_5d, f8E4M3FN, sizes {ceil(N/128), ceil(K/64), 32, 4, 4}, contiguous
 *   c_g   nvfp4rt_memref_2d, f16,      sizes {M, N}, strides {ldc, 1}
 * (a stride is not checked along a dimension of size 1, where it addresses nothing).
 *
 * Later forms extend the list without changing the entry points: a contiguous MoE form
 * would be a new form value whose operands are a, b, sfa, sfb, c, offsets and an optional
 * alpha (num_groups = E, num_operands 6 or 7), and output types other than f16 or a
 * per-group alpha are bits of `flags`. A runtime that does not know a form or a flag
 * returns NVFP4RT_STATUS_UNSUPPORTED, so generated code never runs with a meaning the
 * runtime does not implement. */
typedef enum nvfp4rt_gen_form {
  NVFP4RT_GEN_FORM_GROUPED = 0
} nvfp4rt_gen_form;

/* `flags` of a launch: bits 0..3 the element type of C (only F16 in ABI 1); the other bits
 * are reserved and must be 0. */
#define NVFP4RT_GEN_FLAG_C_TYPE_MASK 0xFu
#define NVFP4RT_GEN_C_F16 0u

/* Lazily loads the cubin `image` (`size` bytes, an embedded global of the generated code)
 * into *slot, once: when *slot is already set it returns OK at once; otherwise, under a
 * process-wide lock, it creates the runtime's context (the primary context of the device
 * chosen by nvfp4rt_gen_device_set, 0 by default) on first use, loads the module
 * (nvfp4rt_module_load_data: metadata and target checks) and publishes it with release
 * semantics. On failure *slot stays NULL and the next call tries again. */
NVFP4RT_API int32_t nvfp4rt_gen_module_load(nvfp4rt_module **slot, const void *image,
                                            uint64_t size);

/* Launches the kernel of `module` on `stream` (a CUstream; NULL = the legacy default
 * stream) for the operands of one op. `plan_slot` is the op's plan cache: created on the
 * first call (nvfp4rt_plan_create), reused while the groups derived from the descriptors
 * (pointers, M, N, K, ldc) are unchanged, re-planned with nvfp4rt_plan_update_pointers when
 * any of them changes (which re-encodes only the tensor maps whose arguments changed). No
 * allocation and no synchronisation on a cached launch. Checks, in order: abi_version
 * (ABI_MISMATCH), form and flags (UNSUPPORTED), num_operands for the form
 * (INVALID_ARGUMENT), every descriptor (nvfp4rt_gen_memrefs_to_groups), then the plan's own
 * validation (alignment, K granule, group count ...). On failure the cached plan keeps its
 * previous, valid state. */
NVFP4RT_API int32_t nvfp4rt_gen_launch(nvfp4rt_module *module, void **plan_slot,
                                       uint32_t abi_version, uint32_t form, uint32_t flags,
                                       uint32_t num_groups, uint32_t num_operands,
                                       const void *const *operands, void *stream);

/* The descriptor checks of nvfp4rt_gen_launch, host only (no driver): converts the operands
 * of `form` into `num_groups` runtime groups (device addresses from aligned + offset, M, N,
 * K from the sizes, ldc from C's row stride). Statuses, each with a message naming the group
 * and the operand: NULL_POINTER for a NULL operands array or descriptor, or a NULL aligned
 * pointer of a non-empty group (M > 0 and N > 0); BAD_SHAPE for negative sizes, sizes that
 * disagree between operands (A's K vs B's, A's M vs C's, the scale-factor dims), strides
 * other than the layout above or a C row stride below N; INVALID_ARGUMENT for a negative
 * offset; MISALIGNED for an odd FP4 offset; OVERFLOW for a size beyond 32 bits or an
 * address beyond 64. Empty groups (M = 0 or N = 0) keep their (possibly NULL) pointers. */
NVFP4RT_API nvfp4rt_status nvfp4rt_gen_memrefs_to_groups(uint32_t form, uint32_t flags,
                                                         uint32_t num_groups,
                                                         uint32_t num_operands,
                                                         const void *const *operands,
                                                         nvfp4rt_group *groups);

/* Chooses the device whose primary context nvfp4rt_gen_module_load uses. Must be called
 * before the first load: INVALID_ARGUMENT once a context exists for another device. */
NVFP4RT_API int32_t nvfp4rt_gen_device_set(int ordinal);

/* Process-wide counters of the generated-code ABI (for tests and diagnostics). */
typedef struct nvfp4rt_gen_stats {
  uint64_t module_loads;  /* modules loaded by nvfp4rt_gen_module_load */
  uint64_t plans_created; /* plan caches filled for the first time */
  uint64_t replans;       /* nvfp4rt_plan_update_pointers calls (groups changed) */
  uint64_t cached;        /* launches whose groups matched the cached plan */
  uint64_t launches;      /* successful nvfp4rt_plan_launch calls */
  uint64_t failures;      /* nvfp4rt_gen_launch / module_load calls that returned an error */
} nvfp4rt_gen_stats;
NVFP4RT_API void nvfp4rt_gen_stats_get(nvfp4rt_gen_stats *out);

/* Destroys every plan and module created through this ABI and clears their slots (the
 * generated code reloads on its next call), then releases the context. Not concurrent with
 * calls of the generated code. */
NVFP4RT_API void nvfp4rt_gen_release_all(void);

#ifdef __cplusplus
}
#endif
#endif /* NVFP4RT_GEN_H */
