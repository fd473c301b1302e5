/* driver.c — loads libcuda with dlopen (no link-time dependency), resolves every entry
 * point of the NVFP4RT_CU_SYMBOLS table through cuGetProcAddress (version 12000), and
 * implements the context and small device-utility entry points. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

nvfp4rt_driver nvfp4rt_cu;

typedef CUresult(CUDAAPI *pfn_cuInit)(unsigned int);
typedef CUresult(CUDAAPI *pfn_cuGetProcAddress_v2)(const char *, void **, int, cuuint64_t,
                                                   CUdriverProcAddressQueryResult *);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static nvfp4rt_status g_load_status;
static char g_load_message[512];
static int g_load_cu;
static char g_load_call[64];

static void load_once(void) {
  const char *path = getenv("NVFP4RT_LIBCUDA_PATH");
  if (!path || !*path) path = "libcuda.so.1";
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    g_load_status = NVFP4RT_STATUS_DRIVER_NOT_FOUND;
    snprintf(g_load_message, sizeof g_load_message,
             "CUDA driver not found: dlopen(\"%s\") failed: %s", path, e ? e : "?");
    return;
  }
  pfn_cuInit init = (pfn_cuInit)dlsym(h, "cuInit");
  pfn_cuGetProcAddress_v2 gpa = (pfn_cuGetProcAddress_v2)dlsym(h, "cuGetProcAddress_v2");
  if (!init || !gpa) {
    g_load_status = NVFP4RT_STATUS_DRIVER_NOT_FOUND;
    snprintf(g_load_message, sizeof g_load_message,
             "CUDA driver %s lacks cuInit/cuGetProcAddress_v2 (driver older than CUDA 12?)",
             path);
    return;
  }
  CUresult r = init(0);
  if (r != CUDA_SUCCESS) {
    g_load_status = (r == CUDA_ERROR_NO_DEVICE) ? NVFP4RT_STATUS_NO_DEVICE
                                                : NVFP4RT_STATUS_DRIVER_NOT_FOUND;
    g_load_cu = (int)r;
    snprintf(g_load_call, sizeof g_load_call, "cuInit");
    snprintf(g_load_message, sizeof g_load_message, "cuInit(0) failed: CUresult %d%s", (int)r,
             r == CUDA_ERROR_NO_DEVICE ? " (CUDA_ERROR_NO_DEVICE: no CUDA device)" : "");
    return;
  }
  nvfp4rt_driver d;
  memset(&d, 0, sizeof d);
#define NVFP4RT_RESOLVE(name, params)                                                      \
  {                                                                                        \
    void *p = NULL;                                                                        \
    CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;               \
    CUresult rr = gpa(#name, &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q);                  \
    if (rr != CUDA_SUCCESS || !p || q != CU_GET_PROC_ADDRESS_SUCCESS) {                    \
      g_load_status = NVFP4RT_STATUS_DRIVER_NOT_FOUND;                                     \
      g_load_cu = (int)rr;                                                                 \
      snprintf(g_load_call, sizeof g_load_call, "cuGetProcAddress");                       \
      snprintf(g_load_message, sizeof g_load_message,                                      \
               "cuGetProcAddress(\"%s\", 12000) failed: CUresult %d, query result %d",     \
               #name, (int)rr, (int)q);                                                    \
      return;                                                                              \
    }                                                                                      \
    d.name##_ = (nvfp4rt_pfn_##name)p;                                                     \
  }
  NVFP4RT_CU_SYMBOLS(NVFP4RT_RESOLVE)
#undef NVFP4RT_RESOLVE
  nvfp4rt_cu = d;
  g_load_status = NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_driver_load(void) {
  pthread_once(&g_once, load_once);
  if (g_load_status != NVFP4RT_STATUS_OK) {
    nvfp4rt_status st = NVFP4RT_FAIL(g_load_status, "%s", g_load_message);
    nvfp4rt_set_error_detail_(g_load_cu, g_load_call);
    return st;
  }
  return NVFP4RT_STATUS_OK;
}

#define NVFP4RT_REQUIRE_DRIVER()                                                           \
  do {                                                                                     \
    nvfp4rt_status s_ = nvfp4rt_driver_load();                                             \
    if (s_ != NVFP4RT_STATUS_OK) return s_;                                                \
  } while (0)

/* ---- context ---- */

nvfp4rt_status nvfp4rt_context_create(int ordinal, nvfp4rt_context **out) {
  if (!out) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "context_create: out is NULL");
  *out = NULL;
  NVFP4RT_REQUIRE_DRIVER();
  int count = 0;
  NVFP4RT_CU_CALL(cuDeviceGetCount, (&count));
  if (count <= 0) return NVFP4RT_FAIL(NVFP4RT_STATUS_NO_DEVICE, "no CUDA device present");
  /* a device exists, so a bad ordinal is the caller's error, not a missing device */
  if (ordinal < 0 || ordinal >= count)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "device ordinal %d out of range (%d device%s: 0..%d)", ordinal, count,
                        count == 1 ? "" : "s", count - 1);
  nvfp4rt_context *c = calloc(1, sizeof *c);
  if (!c) return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "context_create: malloc failed");
  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  CUresult r;
#define TRY(name, args)                                                                    \
  if ((r = nvfp4rt_cu.name##_ args) != CUDA_SUCCESS) {                                       \
    st = nvfp4rt_set_cu_error_(r, #name, __FILE__, __LINE__, "%s", "");                    \
    goto fail;                                                                             \
  }
  TRY(cuDeviceGet, (&c->device, ordinal));
  TRY(cuDeviceGetName, (c->info.name, (int)sizeof c->info.name, c->device));
  TRY(cuDeviceGetAttribute,
      (&c->info.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, c->device));
  TRY(cuDeviceGetAttribute,
      (&c->info.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, c->device));
  TRY(cuDeviceGetAttribute,
      (&c->info.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, c->device));
  TRY(cuDeviceGetAttribute, (&c->info.l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, c->device));
  TRY(cuDeviceGetAttribute, (&c->info.max_smem_optin,
                             CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, c->device));
  TRY(cuDriverGetVersion, (&c->info.driver_version));
  c->info.ordinal = ordinal;
  c->info.struct_size = sizeof c->info;
  TRY(cuDevicePrimaryCtxRetain, (&c->ctx, c->device));
  if ((r = NVFP4RT_CU(cuCtxSetCurrent)(c->ctx)) != CUDA_SUCCESS) {
    st = nvfp4rt_set_cu_error_(r, "cuCtxSetCurrent", __FILE__, __LINE__, "%s", "");
    NVFP4RT_CU(cuDevicePrimaryCtxRelease)(c->device);
    goto fail;
  }
#undef TRY
  *out = c;
  return NVFP4RT_STATUS_OK;
fail:
  free(c);
  return st;
}

void nvfp4rt_context_destroy(nvfp4rt_context *ctx) {
  if (!ctx) return;
  NVFP4RT_CU(cuDevicePrimaryCtxRelease)(ctx->device);
  free(ctx);
}

nvfp4rt_status nvfp4rt_context_make_current(nvfp4rt_context *ctx) {
  if (!ctx) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "context is NULL");
  NVFP4RT_CU_CALL(cuCtxSetCurrent, (ctx->ctx));
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_ensure_current_(const nvfp4rt_context *ctx) {
  CUcontext cur = NULL;
  if (NVFP4RT_CU(cuCtxGetCurrent)(&cur) != CUDA_SUCCESS || cur != ctx->ctx)
    NVFP4RT_CU_CALL(cuCtxSetCurrent, (ctx->ctx));
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_wait_upload_(CUevent copied, int *queued, const char *what) {
  if (!*queued) return NVFP4RT_STATUS_OK;
  CUresult r = NVFP4RT_CU(cuEventQuery)(copied);
  if (r == CUDA_ERROR_NOT_READY) r = NVFP4RT_CU(cuEventSynchronize)(copied);
  if (r != CUDA_SUCCESS)
    return nvfp4rt_set_cu_error_(r, "cuEventSynchronize", __FILE__, __LINE__, "%s", what);
  *queued = 0;
  return NVFP4RT_STATUS_OK;
}

const nvfp4rt_device_info *nvfp4rt_context_device_info(const nvfp4rt_context *ctx) {
  return ctx ? &ctx->info : NULL;
}

/* ---- device utilities ---- */

#define NVFP4RT_REQUIRE_CTX(ctx)                                                           \
  do {                                                                                     \
    if (!(ctx)) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "context is NULL");       \
  } while (0)
#define NVFP4RT_REQUIRE_OUT(p, what)                                                       \
  do {                                                                                     \
    if (!(p)) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "%s is NULL", what);        \
  } while (0)

nvfp4rt_status nvfp4rt_mem_alloc(nvfp4rt_context *ctx, size_t bytes, uint64_t *dptr) {
  NVFP4RT_REQUIRE_CTX(ctx);
  if (!dptr) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "mem_alloc: dptr is NULL");
  CUdeviceptr p = 0;
  NVFP4RT_CU_CALL(cuMemAlloc, (&p, bytes ? bytes : 1));
  *dptr = (uint64_t)p;
  return NVFP4RT_STATUS_OK;
}
void nvfp4rt_mem_free(nvfp4rt_context *ctx, uint64_t dptr) {
  if (ctx && dptr) NVFP4RT_CU(cuMemFree)((CUdeviceptr)dptr);
}
nvfp4rt_status nvfp4rt_memcpy_htod(nvfp4rt_context *ctx, uint64_t dst, const void *src,
                                   size_t bytes) {
  NVFP4RT_REQUIRE_CTX(ctx);
  if (!bytes) return NVFP4RT_STATUS_OK;
  NVFP4RT_REQUIRE_OUT(src, "memcpy_htod: src");
  NVFP4RT_CU_CALL(cuMemcpyHtoD, ((CUdeviceptr)dst, src, bytes));
  return NVFP4RT_STATUS_OK;
}
nvfp4rt_status nvfp4rt_memcpy_dtoh(nvfp4rt_context *ctx, void *dst, uint64_t src, size_t bytes) {
  NVFP4RT_REQUIRE_CTX(ctx);
  if (!bytes) return NVFP4RT_STATUS_OK;
  NVFP4RT_REQUIRE_OUT(dst, "memcpy_dtoh: dst");
  NVFP4RT_CU_CALL(cuMemcpyDtoH, (dst, (CUdeviceptr)src, bytes));
  return NVFP4RT_STATUS_OK;
}
nvfp4rt_status nvfp4rt_memset_async(nvfp4rt_context *ctx, uint64_t dst, unsigned char value,
                                    size_t bytes, void *stream) {
  NVFP4RT_REQUIRE_CTX(ctx);
  NVFP4RT_CU_CALL(cuMemsetD8Async, ((CUdeviceptr)dst, value, bytes, (CUstream)stream));
  return NVFP4RT_STATUS_OK;
}
nvfp4rt_status nvfp4rt_stream_create(nvfp4rt_context *ctx, void **stream) {
  NVFP4RT_REQUIRE_CTX(ctx);
  NVFP4RT_REQUIRE_OUT(stream, "stream_create: stream");
  CUstream s;
  NVFP4RT_CU_CALL(cuStreamCreate, (&s, CU_STREAM_NON_BLOCKING));
  *stream = s;
  return NVFP4RT_STATUS_OK;
}
void nvfp4rt_stream_destroy(nvfp4rt_context *ctx, void *stream) {
  if (ctx && stream) NVFP4RT_CU(cuStreamDestroy)((CUstream)stream);
}
nvfp4rt_status nvfp4rt_stream_synchronize(nvfp4rt_context *ctx, void *stream) {
  NVFP4RT_REQUIRE_CTX(ctx);
  NVFP4RT_CU_CALL(cuStreamSynchronize, ((CUstream)stream));
  return NVFP4RT_STATUS_OK;
}
nvfp4rt_status nvfp4rt_event_create(nvfp4rt_context *ctx, void **event) {
  NVFP4RT_REQUIRE_CTX(ctx);
  NVFP4RT_REQUIRE_OUT(event, "event_create: event");
  CUevent e;
  NVFP4RT_CU_CALL(cuEventCreate, (&e, CU_EVENT_DEFAULT));
  *event = e;
  return NVFP4RT_STATUS_OK;
}
void nvfp4rt_event_destroy(nvfp4rt_context *ctx, void *event) {
  if (ctx && event) NVFP4RT_CU(cuEventDestroy)((CUevent)event);
}
nvfp4rt_status nvfp4rt_event_record(nvfp4rt_context *ctx, void *event, void *stream) {
  NVFP4RT_REQUIRE_CTX(ctx);
  NVFP4RT_CU_CALL(cuEventRecord, ((CUevent)event, (CUstream)stream));
  return NVFP4RT_STATUS_OK;
}
nvfp4rt_status nvfp4rt_event_elapsed_ms(nvfp4rt_context *ctx, void *start, void *end,
                                        float *ms) {
  NVFP4RT_REQUIRE_CTX(ctx);
  NVFP4RT_REQUIRE_OUT(ms, "event_elapsed_ms: ms");
  NVFP4RT_CU_CALL(cuEventElapsedTime, (ms, (CUevent)start, (CUevent)end));
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_graph_capture_begin(nvfp4rt_context *ctx, void *stream) {
  NVFP4RT_REQUIRE_CTX(ctx);
  NVFP4RT_CU_CALL(cuStreamBeginCapture, ((CUstream)stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
  return NVFP4RT_STATUS_OK;
}
nvfp4rt_status nvfp4rt_graph_capture_end(nvfp4rt_context *ctx, void *stream, void **graph_exec) {
  NVFP4RT_REQUIRE_CTX(ctx);
  if (!graph_exec) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "graph_capture_end: out is NULL");
  CUgraph graph = NULL;
  NVFP4RT_CU_CALL(cuStreamEndCapture, ((CUstream)stream, &graph));
  CUgraphExec exec = NULL;
  CUresult r = NVFP4RT_CU(cuGraphInstantiateWithFlags)(&exec, graph, 0);
  NVFP4RT_CU(cuGraphDestroy)(graph);
  if (r != CUDA_SUCCESS)
    return nvfp4rt_set_cu_error_(r, "cuGraphInstantiateWithFlags", __FILE__, __LINE__, "%s", "");
  *graph_exec = exec;
  return NVFP4RT_STATUS_OK;
}
nvfp4rt_status nvfp4rt_graph_launch(nvfp4rt_context *ctx, void *graph_exec, void *stream) {
  NVFP4RT_REQUIRE_CTX(ctx);
  NVFP4RT_CU_CALL(cuGraphLaunch, ((CUgraphExec)graph_exec, (CUstream)stream));
  return NVFP4RT_STATUS_OK;
}
void nvfp4rt_graph_destroy(nvfp4rt_context *ctx, void *graph_exec) {
  if (ctx && graph_exec) NVFP4RT_CU(cuGraphExecDestroy)((CUgraphExec)graph_exec);
}

/* Reads a regular file, a pipe or a character device to the end (sizes from fstat are
 * only a first guess: a file may grow or shrink while it is read), at most
 * NVFP4RT_MAX_FILE_BYTES: more (an endless device such as /dev/zero) is INVALID_ARGUMENT,
 * not a cubin. Directories and other unreadable paths are IO_ERROR with the system's
 * reason; OUT_OF_MEMORY only when an allocation really fails. */
#define NVFP4RT_MAX_FILE_BYTES ((size_t)256 << 20)
nvfp4rt_status nvfp4rt_read_whole_file(const char *path, void **data, size_t *size) {
  if (!path) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "file path is NULL");
  if (!data || !size) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "read_file: NULL output");
  FILE *f = fopen(path, "rb");
  if (!f)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_IO_ERROR, "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  const int stat_failed = fstat(fileno(f), &st) != 0;
  if (stat_failed || S_ISDIR(st.st_mode)) {
    int e = stat_failed ? errno : EISDIR;
    fclose(f);
    return NVFP4RT_FAIL(NVFP4RT_STATUS_IO_ERROR, "cannot read '%s': %s", path, strerror(e));
  }
  if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > NVFP4RT_MAX_FILE_BYTES) {
    fclose(f);
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "'%s' holds %lld bytes, more than the %zu MiB a cubin may have", path,
                        (long long)st.st_size, NVFP4RT_MAX_FILE_BYTES >> 20);
  }
  size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536, n = 0;
  unsigned char *b = malloc(cap);
  for (;;) {
    if (!b) {
      fclose(f);
      return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "cannot allocate %zu bytes for '%s'",
                          cap, path);
    }
    n += fread(b + n, 1, cap - n, f);
    if (n < cap) break;
    if (n >= NVFP4RT_MAX_FILE_BYTES) {
      free(b);
      fclose(f);
      return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                          "'%s' goes on past %zu MiB, more than a cubin may have (a device "
                          "without end?)", path, NVFP4RT_MAX_FILE_BYTES >> 20);
    }
    unsigned char *grown = cap <= SIZE_MAX / 2 ? realloc(b, cap * 2) : NULL;
    if (!grown) free(b);
    b = grown;
    cap *= 2;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    free(b);
    return NVFP4RT_FAIL(NVFP4RT_STATUS_IO_ERROR, "cannot read '%s'", path);
  }
  *data = b;
  *size = n;
  return NVFP4RT_STATUS_OK;
}
