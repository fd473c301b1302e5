/* fake_libcuda.c — a test double of libcuda for machines without a GPU: the entry points
 * libnvfp4rt resolves (internal.h's table, through cuGetProcAddress_v2), answering like an
 * sm_90 device with host memory as "device" memory, cubins read from their ELF image
 * (metadata symbol found with the runtime's own reader), kernels never run: cuLaunchKernelEx
 * only counts. Loaded with NVFP4RT_LIBCUDA_PATH=.../libnvfp4-fake-cuda.so so that the
 * runtime's load / plan / launch paths, and host code generated for them, run in CI. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "nvfp4rt.h"

#define FAKE_API __attribute__((visibility("default")))

static _Thread_local CUcontext g_current;
static int g_launches;
static uintptr_t g_fake_ctx = 0x1000;

static CUresult fake_cuGetErrorName(CUresult r, const char **s) {
  *s = r == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_INVALID_VALUE (fake driver)";
  return CUDA_SUCCESS;
}
static CUresult fake_cuDriverGetVersion(int *v) { *v = 13000; return CUDA_SUCCESS; }
static CUresult fake_cuDeviceGetCount(int *n) { *n = 1; return CUDA_SUCCESS; }
static CUresult fake_cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}
static CUresult fake_cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d;
  strncpy(name, "fake sm_90 device (test driver)", (size_t)len - 1);
  name[len - 1] = 0;
  return CUDA_SUCCESS;
}
static CUresult fake_cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  (void)d;
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 50 << 20; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
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
static CUresult fake_cuCtxSetCurrent(CUcontext c) { g_current = c; return CUDA_SUCCESS; }
static CUresult fake_cuCtxGetCurrent(CUcontext *c) { *c = g_current; return CUDA_SUCCESS; }
static CUresult fake_cuCtxSynchronize(void) { return CUDA_SUCCESS; }

/* A module is its ELF image; the image's end is where its section headers end. */
typedef struct fake_module { const unsigned char *image; size_t size; } fake_module;

static size_t elf_size(const unsigned char *p) {
  uint64_t shoff;
  uint16_t shentsize, shnum;
  memcpy(&shoff, p + 0x28, 8);
  memcpy(&shentsize, p + 0x3A, 2);
  memcpy(&shnum, p + 0x3C, 2);
  return (size_t)(shoff + (uint64_t)shentsize * shnum);
}

static CUresult fake_cuModuleLoadData(CUmodule *m, const void *image) {
  const unsigned char *p = image;
  if (!p || memcmp(p, "\x7f" "ELF", 4) != 0 || p[4] != 2) return CUDA_ERROR_INVALID_IMAGE;
  fake_module *f = malloc(sizeof *f);
  if (!f) return CUDA_ERROR_OUT_OF_MEMORY;
  f->size = elf_size(p);
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
  (void)m;
  *fn = (CUfunction)(uintptr_t)(0x2000 + strlen(name));
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
static CUresult fake_cuLaunchKernelEx(const CUlaunchConfig *cfg, CUfunction f, void **params,
                                      void **extra) {
  (void)extra;
  if (!cfg || !f || !params || !params[0] || cfg->gridDimX == 0) return CUDA_ERROR_INVALID_VALUE;
  __atomic_fetch_add(&g_launches, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
/* The checks the real encoder makes that matter here: address and strides 16-byte aligned. */
static CUresult fake_cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type,
                                            cuuint32_t rank, void *address,
                                            const cuuint64_t *dims, const cuuint64_t *strides,
                                            const cuuint32_t *box, const cuuint32_t *es,
                                            CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                            CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  (void)type, (void)dims, (void)box, (void)es, (void)il, (void)sw, (void)l2, (void)oob;
  if (!map || rank < 1 || (uintptr_t)address % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
  for (cuuint32_t i = 0; i + 1 < rank; i++)
    if (strides[i] % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
  memset(map, 0, sizeof *map);
  memcpy(map, &address, sizeof address);
  return CUDA_SUCCESS;
}
static CUresult fake_cuMemAlloc(CUdeviceptr *d, size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 256, bytes ? bytes : 1) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
  *d = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}
static CUresult fake_cuMemFree(CUdeviceptr d) { free((void *)(uintptr_t)d); return CUDA_SUCCESS; }
static CUresult fake_cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) {
  memcpy((void *)(uintptr_t)d, s, n);
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
  *s = (CUstream)(uintptr_t)0x3000;
  return CUDA_SUCCESS;
}
static CUresult fake_cuStreamDestroy(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult fake_cuStreamSynchronize(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult fake_cuEventCreate(CUevent *e, unsigned int flags) {
  (void)flags;
  *e = (CUevent)(uintptr_t)0x4000;
  return CUDA_SUCCESS;
}
static CUresult fake_cuEventDestroy(CUevent e) { (void)e; return CUDA_SUCCESS; }
static CUresult fake_cuEventRecord(CUevent e, CUstream s) { (void)e, (void)s; return CUDA_SUCCESS; }
static CUresult fake_cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
  (void)a, (void)b;
  *ms = 0;
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
    FAKE_ENTRY(cuEventElapsedTime),
};

FAKE_API CUresult cuInit(unsigned int flags) {
  (void)flags;
  return CUDA_SUCCESS;
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
