/* fake_libcuda.c — a test double of libcuda for machines without a GPU: the entry points
 * libnvfp4rt resolves (internal.h's table, through cuGetProcAddress_v2), answering like an
 * sm_90 device (or another compute capability, NVFP4_FAKE_CUDA_CC) with host memory as "device" memory, cubins read from their ELF image
 * (metadata symbol found with the runtime's own reader), kernels never run: cuLaunchKernelEx
 * only counts. Loaded with NVFP4RT_LIBCUDA_PATH=.../libnvfp4-fake-cuda.so so that the
 * runtime's load / plan / launch paths, and host code generated for them, run in CI.
 *
 * For the tensor-map update techniques and the benchmark harnesses:
 *   - cuTensorMapEncodeTiled writes its arguments into the 128 bytes (address at byte 0),
 *     cuTensorMapReplaceAddress rewrites byte 0: a replaced map equals a fresh encode;
 *   - streams capture (cuStreamBeginCapture ... cuGraphInstantiateWithFlags): a graph keeps
 *     a copy of each captured launch's parameters and each captured cuMemcpyHtoDAsync
 *     (source and destination), and cuGraphLaunch replays them in order (the copies read
 *     their host source then, as a driver's memcpy node does); cuStreamIsCapturing says
 *     whether a stream captures;
 *   - the device tables (plans' table caches): cuMemcpyHtoDAsync copies at once outside
 *     capture; nvfp4_fake_cuda_last_copy_stream / _last_copy_bytes describe the last call,
 *     nvfp4_fake_cuda_copied_bytes sums the bytes of every call,
 *     cuMemHostAlloc must have given its source (else CUDA_ERROR_INVALID_VALUE: a pageable
 *     source would not be captured, and would make the driver synchronise), and
 *     nvfp4_fake_cuda_fail_next(NAME) makes the next call of cuMemHostAlloc,
 *     cuMemcpyHtoDAsync or cuEventRecord fail (CUDA_ERROR_OUT_OF_MEMORY / _INVALID_VALUE);
 *   - NVFP4_FAKE_CUDA_PROXY=1: a launch of an nvfp4 kernel (a function of the metadata
 *     table) writes +0 over every group's M x N of C, read from the group records of its
 *     parameter block, as the timing proxy does — so that harness checks can pass; other
 *     kernels (nvfp4-proxy-bench's streaming kernel) still do nothing;
 *   - events read the host clock; nvfp4_fake_cuda_count(NAME) counts calls of some entry
 *     points; nvfp4_fake_cuda_fail_replace_after(N) makes the replacement after the next N
 *     fail, once;
 *   - cuModuleLoadData, cuModuleGetFunction, cuModuleUnload, cuFuncSetAttribute and
 *     cuLaunchKernel are also exported by name (nvfp4-proxy-bench and nvfp4-run --busy-sms
 *     resolve them with dlsym); cuModuleLoadData takes PTX text as well as an ELF image;
 *
 * For the runtime's checks before and around the driver (driver-checks.test):
 *   - cuModuleLoadData reads the image as far as its headers say (tables, sections,
 *     segments), as a driver does, so an image the runtime lets through that points past
 *     its end is an out-of-bounds read; nvfp4_fake_cuda_count also counts the loads and
 *     stream/event creations;
 *   - nvfp4_fake_cuda_last_grid/_block/_cluster: the last cuLaunchKernelEx's geometry;
 *     nvfp4_fake_cuda_last_pdl: its programmatic-stream-serialization attribute (-1: none),
 *     nvfp4_fake_cuda_pdl_launches: the launches that had it on;
 *   - NVFP4_FAKE_CUDA_DRIVER_VERSION: what cuDriverGetVersion reports (default 13000);
 *   - NVFP4_FAKE_CUDA_DEVICES (device count, default 1; 0: cuInit reports no device),
 *     NVFP4_FAKE_CUDA_SMS (multiprocessor count, default 132), NVFP4_FAKE_CUDA_CC (the
 *     compute capability "MAJOR.MINOR", default 9.0; 99 KiB of shared memory per block on
 *     12.x, 227 KiB otherwise);
 *   - NVFP4_FAKE_CUDA_MAX_ALLOC_MB: the largest allocation cuMemAlloc serves (default: what
 *     the host gives; the cubin fuzzer sets 1024, below libFuzzer's malloc limit, so that a
 *     fuzzed workspace size is the driver's out-of-memory rather than a fuzzer finding). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>

#include "nvfp4rt.h"

#define FAKE_API __attribute__((visibility("default")))

static _Thread_local CUcontext g_current;
static int g_launches;
static uintptr_t g_fake_ctx = 0x1000;

/* ---- counters and fault injection ------------------------------------------------------ */

static const char *const kCounted[] = {"cuTensorMapEncodeTiled", "cuTensorMapReplaceAddress",
                                       "cuLaunchKernelEx",       "cuMemAlloc",
                                       "cuMemcpyHtoD",           "cuCtxSynchronize",
                                       "cuGraphLaunch",          "cuLaunchKernel",
                                       "cuModuleLoadData",       "cuStreamCreate",
                                       "cuEventCreate",          "cuMemcpyHtoDAsync",
                                       "cuMemHostAlloc",         "cuEventSynchronize",
                                       "cuStreamIsCapturing",
                                       "cuThreadExchangeStreamCaptureMode",
                                       "cuCtxSetCurrent"};
enum { N_COUNTED = sizeof kCounted / sizeof kCounted[0] };
static long g_count[N_COUNTED];
static long g_fail_replace_after = -1;

static void count(const char *name) {
  for (int i = 0; i < N_COUNTED; i++)
    if (!strcmp(kCounted[i], name)) __atomic_fetch_add(&g_count[i], 1, __ATOMIC_RELAXED);
}
/* Calls so far of entry point `name` (one of kCounted), -1 for others. */
FAKE_API long nvfp4_fake_cuda_count(const char *name) {
  for (int i = 0; i < N_COUNTED; i++)
    if (!strcmp(kCounted[i], name)) return __atomic_load_n(&g_count[i], __ATOMIC_RELAXED);
  return -1;
}
/* The cuTensorMapReplaceAddress call after the next `n` fails (once); -1: none. */
FAKE_API void nvfp4_fake_cuda_fail_replace_after(long n) { g_fail_replace_after = n; }
/* The next call of entry point `name` fails, once (cuMemHostAlloc, cuMemcpyHtoDAsync,
 * cuEventRecord); NULL: none. */
static char g_fail_next[64];
FAKE_API void nvfp4_fake_cuda_fail_next(const char *name) {
  snprintf(g_fail_next, sizeof g_fail_next, "%s", name ? name : "");
}
static int fail_now(const char *name) {
  if (strcmp(g_fail_next, name) != 0) return 0;
  g_fail_next[0] = 0;
  return 1;
}
/* The stream and size of the last cuMemcpyHtoDAsync, and the bytes of all of them so far. */
FAKE_API CUstream nvfp4_fake_cuda_last_copy_stream;
FAKE_API size_t nvfp4_fake_cuda_last_copy_bytes;
FAKE_API unsigned long long nvfp4_fake_cuda_copied_bytes;
/* The geometry of the last cuLaunchKernelEx. */
FAKE_API unsigned nvfp4_fake_cuda_last_grid, nvfp4_fake_cuda_last_block,
    nvfp4_fake_cuda_last_cluster;
/* The last cuLaunchKernelEx's programmatic-stream-serialization attribute: -1 absent, else
 * its value; and how many launches carried it with a non-zero value. */
FAKE_API int nvfp4_fake_cuda_last_pdl = -1;
FAKE_API long nvfp4_fake_cuda_pdl_launches;

static int env_int(const char *name, int dflt) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : dflt;
}

static CUresult fake_cuGetErrorName(CUresult r, const char **s) {
  *s = r == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_INVALID_VALUE (fake driver)";
  return CUDA_SUCCESS;
}
static CUresult fake_cuDriverGetVersion(int *v) {
  *v = env_int("NVFP4_FAKE_CUDA_DRIVER_VERSION", 13000);
  return CUDA_SUCCESS;
}
static CUresult fake_cuDeviceGetCount(int *n) {
  *n = env_int("NVFP4_FAKE_CUDA_DEVICES", 1);
  return CUDA_SUCCESS;
}
static CUresult fake_cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal < 0 || ordinal >= env_int("NVFP4_FAKE_CUDA_DEVICES", 1))
    return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
/* NVFP4_FAKE_CUDA_CC="MAJOR.MINOR": the compute capability (default 9.0). */
static void fake_cc(int *major, int *minor) {
  const char *v = getenv("NVFP4_FAKE_CUDA_CC");
  *major = 9;
  *minor = 0;
  if (v && sscanf(v, "%d.%d", major, minor) != 2) *major = 9, *minor = 0;
}
static CUresult fake_cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d;
  int major, minor;
  fake_cc(&major, &minor);
  snprintf(name, (size_t)len, "fake sm_%d%d device (test driver)", major, minor);
  return CUDA_SUCCESS;
}
static CUresult fake_cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  (void)d;
  int major, minor;
  fake_cc(&major, &minor);
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = major; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = minor; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = env_int("NVFP4_FAKE_CUDA_SMS", 132); break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 50 << 20; break;
  /* 227 KiB on 9.x and 10.x, 99 KiB on 12.x */
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = major == 12 ? 101376 : 232448; break;
  default: *v = 0; break;
  }
  return CUDA_SUCCESS;
}
static CUresult fake_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  (void)d;
  *c = (CUcontext)g_fake_ctx;
  return CUDA_SUCCESS;
}
static CUresult fake_cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return CUDA_SUCCESS; }
static CUresult fake_cuCtxSetCurrent(CUcontext c) {
  count("cuCtxSetCurrent");
  g_current = c;
  return CUDA_SUCCESS;
}
static CUresult fake_cuCtxGetCurrent(CUcontext *c) { *c = g_current; return CUDA_SUCCESS; }
static CUresult fake_cuCtxSynchronize(void) { count("cuCtxSynchronize"); return CUDA_SUCCESS; }

/* A function: an nvfp4 kernel of the metadata table (its parameter block's size and group
 * count known), or any other kernel. */
typedef struct fake_function { uint32_t param_bytes, max_groups, form; int nvfp4; } fake_function;
enum { MAX_FUNCTIONS = 32 };
/* A module is its ELF image; the image ends where the last thing its headers describe
 * ends (non-empty header tables, sections with file data, segments). */
typedef struct fake_module {
  const unsigned char *image;
  size_t size;
  fake_function functions[MAX_FUNCTIONS];
  int nfunctions;
} fake_module;

static uint64_t rd(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}
static size_t elf_size(const unsigned char *p) {
  const uint64_t shoff = rd(p + 0x28, 8), phoff = rd(p + 0x20, 8);
  const uint64_t shnum = rd(p + 0x3C, 2), phnum = rd(p + 0x38, 2);
  uint64_t end = 64;
  if (shnum && shoff + 64 * shnum > end) end = shoff + 64 * shnum;
  if (phnum && phoff + 56 * phnum > end) end = phoff + 56 * phnum;
  for (uint64_t i = 0; i < shnum; i++) {
    const unsigned char *sh = p + shoff + 64 * i;
    uint64_t type = rd(sh + 4, 4), last = rd(sh + 0x18, 8) + rd(sh + 0x20, 8);
    if (type != 0 && type != 8 /* NOBITS */ && last > end) end = last;
  }
  for (uint64_t i = 0; i < phnum; i++) {
    const unsigned char *ph = p + phoff + 56 * i;
    uint64_t last = rd(ph + 8, 8) + rd(ph + 32, 8);
    if (last > end) end = last;
  }
  return (size_t)end;
}

static CUresult fake_cuModuleLoadData(CUmodule *m, const void *image) {
  count("cuModuleLoadData");
  const unsigned char *p = image;
  /* a 64-bit ELF, or PTX text starting with its .version line (a driver JIT-compiles it;
   * here: kept, with no metadata); nothing past the first bytes is read before that */
  if (!p) return CUDA_ERROR_INVALID_IMAGE;
  const int elf = memcmp(p, "\x7f" "ELF", 4) == 0 && p[4] == 2;
  const int ptx = !elf && memcmp(p, ".version", 8) == 0;
  if (!elf && !ptx) return CUDA_ERROR_INVALID_IMAGE;
  fake_module *f = calloc(1, sizeof *f);
  if (!f) return CUDA_ERROR_OUT_OF_MEMORY;
  f->size = ptx ? strlen((const char *)p) + 1 : elf_size(p);
  f->image = malloc(f->size);
  if (!f->image) {
    free(f);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  memcpy((void *)f->image, p, f->size);
  *m = (CUmodule)f;
  return CUDA_SUCCESS;
}
static CUresult fake_cuModuleUnload(CUmodule m) {
  fake_module *f = (fake_module *)m;
  free((void *)f->image);
  free(f);
  return CUDA_SUCCESS;
}
static CUresult fake_cuModuleGetFunction(CUfunction *fn, CUmodule m, const char *name) {
  fake_module *f = (fake_module *)m;
  if (f->nfunctions == MAX_FUNCTIONS) return CUDA_ERROR_OUT_OF_MEMORY;
  fake_function *k = &f->functions[f->nfunctions++];
  const unsigned char *rec;
  size_t size;
  if (nvfp4rt_elf_find_metadata(f->image, f->size, &rec, &size) == NVFP4RT_STATUS_OK)
    for (size_t r = 0; r + NVFP4_METADATA_BYTES <= size; r += NVFP4_METADATA_BYTES)
      if (!strcmp((const char *)rec + r + NVFP4_META_KERNEL_NAME, name)) {
        k->nvfp4 = 1;
        k->param_bytes = nvfp4_meta_read_u32(rec + r, NVFP4_META_PARAM_BYTES);
        k->max_groups = nvfp4_meta_read_u32(rec + r, NVFP4_META_MAX_GROUPS);
        k->form = nvfp4_meta_read_u32(rec + r, NVFP4_META_FORM);
      }
  *fn = (CUfunction)k;
  return CUDA_SUCCESS;
}
static CUresult fake_cuModuleGetGlobal(CUdeviceptr *d, size_t *bytes, CUmodule m,
                                       const char *name) {
  fake_module *f = (fake_module *)m;
  const unsigned char *rec;
  size_t size;
  if (strcmp(name, NVFP4_METADATA_SYMBOL) != 0 ||
      nvfp4rt_elf_find_metadata(f->image, f->size, &rec, &size) != NVFP4RT_STATUS_OK)
    return CUDA_ERROR_NOT_FOUND;
  *d = (CUdeviceptr)(uintptr_t)rec;
  *bytes = size;
  return CUDA_SUCCESS;
}
static CUresult fake_cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  (void)f, (void)a, (void)v;
  return CUDA_SUCCESS;
}
/* ---- launches, streams, graphs --------------------------------------------------------- */

static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* NVFP4_FAKE_CUDA_PROXY=1: what the timing proxy does to C — +0 over every group's M x N
 * (pointer-array kernels, from the group table at HDR_TABLE; a contiguous-form kernel has
 * no group records to read it from). */
static int proxy_effect_on(void) {
  static int v = -1;
  if (v < 0) {
    const char *e = getenv("NVFP4_FAKE_CUDA_PROXY");
    v = e && !strcmp(e, "1");
  }
  return v;
}
static void proxy_effect(const fake_function *k, const unsigned char *params) {
  if (!k->nvfp4 || k->form != NVFP4_META_FORM_POINTER_ARRAY || !proxy_effect_on()) return;
  const unsigned char *table = (const unsigned char *)(uintptr_t)rd64(params + NVFP4_ABI_HDR_TABLE);
  if (!table) return;
  const uint32_t groups = nvfp4_meta_read_u32(params, NVFP4_ABI_HDR_NUM_GROUPS);
  for (uint32_t s = 0; s < groups && s < k->max_groups; s++) {
    const unsigned char *r = table + nvfp4_abi_record_offset(k->max_groups, s);
    const uint32_t m = nvfp4_meta_read_u32(r, NVFP4_ABI_GRP_M), n = nvfp4_meta_read_u32(r, NVFP4_ABI_GRP_N);
    const uint32_t ldc = nvfp4_meta_read_u32(r, NVFP4_ABI_GRP_LDC);
    uint16_t *c = (uint16_t *)(uintptr_t)rd64(r + NVFP4_ABI_GRP_C_PTR);
    if (!c || !m || !n) continue;
    for (uint32_t i = 0; i < m; i++) memset(c + (size_t)i * ldc, 0, (size_t)n * 2);
  }
}

/* A captured kernel (k, its parameters) or host-to-device copy (k NULL: dst, src, bytes). */
typedef struct recorded {
  const fake_function *k;
  unsigned char *params;
  CUdeviceptr dst;
  const void *src;
  size_t bytes;
} recorded;
typedef struct fake_stream { int capturing; recorded *rec; int nrec, cap; } fake_stream;
typedef struct fake_graph { recorded *rec; int nrec; } fake_graph;
static fake_stream g_default_stream;

static fake_stream *stream_of(CUstream s) { return s ? (fake_stream *)s : &g_default_stream; }

/* A new record of a capturing stream (NULL: out of memory). */
static recorded *record(fake_stream *st) {
  if (st->nrec == st->cap) {
    recorded *grown = realloc(st->rec, sizeof *grown * (size_t)(st->cap ? 2 * st->cap : 4));
    if (!grown) return NULL;
    st->rec = grown;
    st->cap = st->cap ? 2 * st->cap : 4;
  }
  recorded *r = &st->rec[st->nrec++];
  memset(r, 0, sizeof *r);
  return r;
}

static CUresult launch(const fake_function *k, CUstream s, void **params) {
  fake_stream *st = stream_of(s);
  if (!st->capturing) {
    proxy_effect(k, params[0]);
    return CUDA_SUCCESS;
  }
  recorded *r = record(st);
  if (!r) return CUDA_ERROR_OUT_OF_MEMORY;
  r->k = k;
  r->params = malloc(k->param_bytes ? k->param_bytes : 1);
  if (!r->params) return CUDA_ERROR_OUT_OF_MEMORY;
  if (k->param_bytes) memcpy(r->params, params[0], k->param_bytes);
  return CUDA_SUCCESS;
}

static CUresult fake_cuLaunchKernelEx(const CUlaunchConfig *cfg, CUfunction f, void **params,
                                      void **extra) {
  (void)extra;
  count("cuLaunchKernelEx");
  if (!cfg || !f || !params || !params[0] || cfg->gridDimX == 0) return CUDA_ERROR_INVALID_VALUE;
  __atomic_fetch_add(&g_launches, 1, __ATOMIC_RELAXED);
  nvfp4_fake_cuda_last_grid = cfg->gridDimX;
  nvfp4_fake_cuda_last_block = cfg->blockDimX;
  nvfp4_fake_cuda_last_cluster = 1;
  nvfp4_fake_cuda_last_pdl = -1;
  for (unsigned i = 0; i < cfg->numAttrs; i++) {
    if (cfg->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      nvfp4_fake_cuda_last_cluster = cfg->attrs[i].value.clusterDim.x;
    if (cfg->attrs[i].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
      nvfp4_fake_cuda_last_pdl = cfg->attrs[i].value.programmaticStreamSerializationAllowed;
  }
  if (nvfp4_fake_cuda_last_pdl > 0) nvfp4_fake_cuda_pdl_launches++;
  return launch((const fake_function *)f, cfg->hStream, params);
}
/* The checks the real encoder makes that matter here: address and strides 16-byte aligned. */
static CUresult fake_cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type,
                                            cuuint32_t rank, void *address,
                                            const cuuint64_t *dims, const cuuint64_t *strides,
                                            const cuuint32_t *box, const cuuint32_t *es,
                                            CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                            CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  count("cuTensorMapEncodeTiled");
  if (!map || rank < 1 || rank > 5 || (uintptr_t)address % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
  for (cuuint32_t i = 0; i + 1 < rank; i++)
    if (strides[i] % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
  /* the arguments, so that maps can be compared: address, kinds, then dims/box/strides */
  unsigned char *b = (unsigned char *)map;
  memset(map, 0, sizeof *map);
  memcpy(b, &address, sizeof address);
  const unsigned char kinds[6] = {(unsigned char)type, (unsigned char)rank, (unsigned char)il,
                                  (unsigned char)sw, (unsigned char)l2, (unsigned char)oob};
  memcpy(b + 8, kinds, 6);
  for (cuuint32_t i = 0; i < rank && i < 2; i++) {
    memcpy(b + 16 + 8 * i, &dims[i], 8);
    memcpy(b + 48 + 4 * i, &box[i], 4);
    memcpy(b + 56 + 4 * i, &es[i], 4);
  }
  if (rank > 1) memcpy(b + 32, &strides[0], 8);
  return CUDA_SUCCESS;
}
static CUresult fake_cuTensorMapReplaceAddress(CUtensorMap *map, void *address) {
  count("cuTensorMapReplaceAddress");
  if (g_fail_replace_after == 0) {
    g_fail_replace_after = -1;
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (g_fail_replace_after > 0) g_fail_replace_after--;
  if (!map || (uintptr_t)map % 64 != 0 || (uintptr_t)address % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
  memcpy(map, &address, sizeof address);
  return CUDA_SUCCESS;
}
/* Streams being captured, and the calling thread's capture mode: as the driver, an
 * allocation while a capture is under way needs the thread's mode relaxed. */
static int g_capturing_streams;
static _Thread_local CUstreamCaptureMode g_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
static int capture_forbids_alloc(void) {
  return g_capturing_streams > 0 && g_capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED;
}
static CUresult fake_cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  count("cuThreadExchangeStreamCaptureMode");
  const CUstreamCaptureMode was = g_capture_mode;
  g_capture_mode = *mode;
  *mode = was;
  return CUDA_SUCCESS;
}
static CUresult fake_cuMemAlloc(CUdeviceptr *d, size_t bytes) {
  count("cuMemAlloc");
  if (capture_forbids_alloc()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  void *p = NULL;
  const int max_mb = env_int("NVFP4_FAKE_CUDA_MAX_ALLOC_MB", 0);
  if (max_mb > 0 && bytes > ((size_t)max_mb << 20)) return CUDA_ERROR_OUT_OF_MEMORY;
  if (posix_memalign(&p, 256, bytes ? bytes : 1) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
  *d = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}
static CUresult fake_cuMemFree(CUdeviceptr d) { free((void *)(uintptr_t)d); return CUDA_SUCCESS; }
static CUresult fake_cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) {
  count("cuMemcpyHtoD");
  memcpy((void *)(uintptr_t)d, s, n);
  return CUDA_SUCCESS;
}
/* Page-locked allocations (cuMemHostAlloc), so that a copy can insist on one. */
enum { MAX_PINNED = 4096 };
static struct { const unsigned char *base; size_t bytes; } g_pinned[MAX_PINNED];
static int is_pinned(const void *p, size_t n) {
  for (int i = 0; i < MAX_PINNED; i++)
    if (g_pinned[i].base && (const unsigned char *)p >= g_pinned[i].base &&
        (const unsigned char *)p + n <= g_pinned[i].base + g_pinned[i].bytes)
      return 1;
  return 0;
}
static CUresult fake_cuMemHostAlloc(void **p, size_t bytes, unsigned int flags) {
  (void)flags;
  count("cuMemHostAlloc");
  if (capture_forbids_alloc()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (fail_now("cuMemHostAlloc")) return CUDA_ERROR_OUT_OF_MEMORY;
  for (int i = 0; i < MAX_PINNED; i++)
    if (!g_pinned[i].base) {
      if (posix_memalign(p, 256, bytes ? bytes : 1) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
      g_pinned[i].base = *p;
      g_pinned[i].bytes = bytes;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult fake_cuMemFreeHost(void *p) {
  for (int i = 0; i < MAX_PINNED; i++)
    if (p && g_pinned[i].base == p) {
      g_pinned[i].base = NULL;
      free(p);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE;
}
static CUresult fake_cuMemcpyHtoDAsync(CUdeviceptr d, const void *s, size_t n, CUstream stream) {
  count("cuMemcpyHtoDAsync");
  nvfp4_fake_cuda_last_copy_stream = stream;
  nvfp4_fake_cuda_last_copy_bytes = n;
  __atomic_fetch_add(&nvfp4_fake_cuda_copied_bytes, (unsigned long long)n, __ATOMIC_RELAXED);
  if (fail_now("cuMemcpyHtoDAsync") || !d || !is_pinned(s, n)) return CUDA_ERROR_INVALID_VALUE;
  fake_stream *st = stream_of(stream);
  if (!st->capturing) {
    memcpy((void *)(uintptr_t)d, s, n);
    return CUDA_SUCCESS;
  }
  recorded *r = record(st);
  if (!r) return CUDA_ERROR_OUT_OF_MEMORY;
  r->dst = d, r->src = s, r->bytes = n;
  return CUDA_SUCCESS;
}
static CUresult fake_cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n) {
  memcpy(d, (const void *)(uintptr_t)s, n);
  return CUDA_SUCCESS;
}
static CUresult fake_cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  (void)s;
  memset((void *)(uintptr_t)d, v, n);
  return CUDA_SUCCESS;
}
static CUresult fake_cuStreamCreate(CUstream *s, unsigned int flags) {
  (void)flags;
  count("cuStreamCreate");
  fake_stream *st = calloc(1, sizeof *st);
  if (!st) return CUDA_ERROR_OUT_OF_MEMORY;
  *s = (CUstream)st;
  return CUDA_SUCCESS;
}
static void free_records(recorded *rec, int n) {
  for (int i = 0; i < n; i++) free(rec[i].params);
  free(rec);
}
static CUresult fake_cuStreamDestroy(CUstream s) {
  fake_stream *st = (fake_stream *)s;
  if (st) free_records(st->rec, st->nrec);
  free(st);
  return CUDA_SUCCESS;
}
static CUresult fake_cuStreamSynchronize(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult fake_cuEventCreate(CUevent *e, unsigned int flags) {
  (void)flags;
  count("cuEventCreate");
  double *t = calloc(1, sizeof *t);
  if (!t) return CUDA_ERROR_OUT_OF_MEMORY;
  *e = (CUevent)t;
  return CUDA_SUCCESS;
}
static CUresult fake_cuEventDestroy(CUevent e) { free((void *)e); return CUDA_SUCCESS; }
/* Events hold the host clock (ms) at record time; work completes at once, so every event
 * has completed. */
static CUresult fake_cuEventRecord(CUevent e, CUstream s) {
  (void)s;
  if (fail_now("cuEventRecord")) return CUDA_ERROR_INVALID_VALUE;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  *(double *)e = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
  return CUDA_SUCCESS;
}
static CUresult fake_cuEventQuery(CUevent e) { return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
static CUresult fake_cuEventSynchronize(CUevent e) {
  count("cuEventSynchronize");
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
static CUresult fake_cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *status) {
  count("cuStreamIsCapturing");
  *status = stream_of(s)->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
static CUresult fake_cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
  *ms = (float)(*(const double *)b - *(const double *)a);
  return CUDA_SUCCESS;
}
static CUresult fake_cuStreamBeginCapture(CUstream s, CUstreamCaptureMode mode) {
  (void)mode;
  fake_stream *st = stream_of(s);
  if (st->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  st->capturing = 1;
  g_capturing_streams++;
  return CUDA_SUCCESS;
}
static CUresult fake_cuStreamEndCapture(CUstream s, CUgraph *g) {
  fake_stream *st = stream_of(s);
  if (!st->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  fake_graph *fg = calloc(1, sizeof *fg);
  if (!fg) return CUDA_ERROR_OUT_OF_MEMORY;
  fg->rec = st->rec;
  fg->nrec = st->nrec;
  st->rec = NULL;
  st->nrec = st->cap = st->capturing = 0;
  g_capturing_streams--;
  *g = (CUgraph)fg;
  return CUDA_SUCCESS;
}
static CUresult fake_cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long f) {
  (void)f;
  const fake_graph *src = (const fake_graph *)g;
  fake_graph *x = calloc(1, sizeof *x);
  if (!x) return CUDA_ERROR_OUT_OF_MEMORY;
  x->rec = calloc((size_t)(src->nrec ? src->nrec : 1), sizeof *x->rec);
  if (!x->rec) return CUDA_ERROR_OUT_OF_MEMORY;
  for (x->nrec = 0; x->nrec < src->nrec; x->nrec++) {
    const recorded *r = &src->rec[x->nrec];
    x->rec[x->nrec] = *r;
    if (!r->k) continue; /* a copy */
    const size_t bytes = r->k->param_bytes ? r->k->param_bytes : 1;
    x->rec[x->nrec].params = malloc(bytes);
    if (!x->rec[x->nrec].params) return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(x->rec[x->nrec].params, r->params, bytes);
  }
  *e = (CUgraphExec)x;
  return CUDA_SUCCESS;
}
static CUresult fake_cuGraphDestroy(CUgraph g) {
  fake_graph *fg = (fake_graph *)g;
  if (fg) free_records(fg->rec, fg->nrec);
  free(fg);
  return CUDA_SUCCESS;
}
static CUresult fake_cuGraphExecDestroy(CUgraphExec e) { return fake_cuGraphDestroy((CUgraph)e); }
static CUresult fake_cuGraphLaunch(CUgraphExec e, CUstream s) {
  (void)s;
  count("cuGraphLaunch");
  const fake_graph *g = (const fake_graph *)e;
  for (int i = 0; i < g->nrec; i++) {
    const recorded *r = &g->rec[i];
    if (r->k) proxy_effect(r->k, r->params);
    else memcpy((void *)(uintptr_t)r->dst, r->src, r->bytes);
  }
  return CUDA_SUCCESS;
}

#define FAKE_ENTRY(name) {#name, (void *)fake_##name}
static const struct { const char *name; void *fn; } kTable[] = {
    FAKE_ENTRY(cuGetErrorName), FAKE_ENTRY(cuDriverGetVersion), FAKE_ENTRY(cuDeviceGetCount),
    FAKE_ENTRY(cuDeviceGet), FAKE_ENTRY(cuDeviceGetName), FAKE_ENTRY(cuDeviceGetAttribute),
    FAKE_ENTRY(cuDevicePrimaryCtxRetain), FAKE_ENTRY(cuDevicePrimaryCtxRelease),
    FAKE_ENTRY(cuCtxSetCurrent), FAKE_ENTRY(cuCtxGetCurrent), FAKE_ENTRY(cuCtxSynchronize),
    FAKE_ENTRY(cuModuleLoadData), FAKE_ENTRY(cuModuleUnload), FAKE_ENTRY(cuModuleGetFunction),
    FAKE_ENTRY(cuModuleGetGlobal), FAKE_ENTRY(cuFuncSetAttribute), FAKE_ENTRY(cuLaunchKernelEx),
    FAKE_ENTRY(cuTensorMapEncodeTiled), FAKE_ENTRY(cuMemAlloc), FAKE_ENTRY(cuMemFree),
    FAKE_ENTRY(cuMemcpyHtoD), FAKE_ENTRY(cuMemcpyDtoH), FAKE_ENTRY(cuMemsetD8Async),
    FAKE_ENTRY(cuStreamCreate), FAKE_ENTRY(cuStreamDestroy), FAKE_ENTRY(cuStreamSynchronize),
    FAKE_ENTRY(cuEventCreate), FAKE_ENTRY(cuEventDestroy), FAKE_ENTRY(cuEventRecord),
    FAKE_ENTRY(cuEventElapsedTime), FAKE_ENTRY(cuTensorMapReplaceAddress),
    FAKE_ENTRY(cuStreamBeginCapture), FAKE_ENTRY(cuStreamEndCapture),
    FAKE_ENTRY(cuGraphInstantiateWithFlags), FAKE_ENTRY(cuGraphLaunch),
    FAKE_ENTRY(cuGraphExecDestroy), FAKE_ENTRY(cuGraphDestroy), FAKE_ENTRY(cuMemcpyHtoDAsync),
    FAKE_ENTRY(cuMemHostAlloc), FAKE_ENTRY(cuMemFreeHost), FAKE_ENTRY(cuEventQuery),
    FAKE_ENTRY(cuEventSynchronize), FAKE_ENTRY(cuStreamIsCapturing),
    FAKE_ENTRY(cuThreadExchangeStreamCaptureMode),
};

FAKE_API CUresult cuInit(unsigned int flags) {
  (void)flags;
  return env_int("NVFP4_FAKE_CUDA_DEVICES", 1) > 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

FAKE_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                      cuuint64_t flags, CUdriverProcAddressQueryResult *status) {
  (void)version, (void)flags;
  for (size_t i = 0; i < sizeof kTable / sizeof kTable[0]; i++)
    if (!strcmp(kTable[i].name, symbol)) {
      *pfn = kTable[i].fn;
      if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *pfn = NULL;
  if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}

/* For tests that link it: kernels "launched" so far. */
FAKE_API int nvfp4_fake_cuda_launches(void) { return __atomic_load_n(&g_launches, __ATOMIC_RELAXED); }

/* The entry points nvfp4-proxy-bench (its streaming kernel) and nvfp4-run --busy-sms
 * resolve by name with dlsym. */
FAKE_API CUresult cuModuleLoadData(CUmodule *m, const void *image) {
  return fake_cuModuleLoadData(m, image);
}
FAKE_API CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  return fake_cuModuleGetFunction(f, m, name);
}
FAKE_API CUresult cuModuleUnload(CUmodule m) { return fake_cuModuleUnload(m); }
FAKE_API CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  return fake_cuFuncSetAttribute(f, a, v);
}
FAKE_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                 unsigned by, unsigned bz, unsigned smem, CUstream s,
                                 void **params, void **extra) {
  (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)smem, (void)extra;
  count("cuLaunchKernel");
  if (!f || !gx || !params) return CUDA_ERROR_INVALID_VALUE;
  return launch((const fake_function *)f, s, params);
}
