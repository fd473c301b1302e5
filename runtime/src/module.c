/* module.c — loads a cubin into the primary context, checks its metadata (ELF record,
 * target vs device, device-side copy via cuModuleGetGlobal) and prepares the kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

nvfp4rt_status nvfp4rt_module_load_data(nvfp4rt_context *ctx, const void *image, size_t size,
                                        nvfp4rt_module **out) {
  if (!out) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "module_load: out is NULL");
  *out = NULL;
  if (!ctx) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "module_load: context is NULL");
  if (!image) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "module_load: image is NULL");
  nvfp4rt_status st = nvfp4rt_driver_load();
  if (st != NVFP4RT_STATUS_OK) return st;
  const unsigned char *rec;
  size_t rec_size;
  nvfp4_kernel_metadata meta;
  if ((st = nvfp4rt_elf_find_metadata(image, size, &rec, &rec_size)) != NVFP4RT_STATUS_OK)
    return st;
  if ((st = nvfp4rt_metadata_decode(rec, rec_size, &meta)) != NVFP4RT_STATUS_OK) return st;
  if ((st = nvfp4rt_metadata_check_target(&meta, ctx->info.cc_major, ctx->info.cc_minor)) !=
      NVFP4RT_STATUS_OK)
    return st;
  const int emu = (meta.flags & NVFP4_META_FLAG_EMULATION) != 0;
  if (meta.target_sm == 90 && !emu)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                        "sm_90 cubin without the emulation flag: no native Hopper kernel ABI");
  if (meta.cluster[1] != 1 || meta.cluster[2] != 1)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                        "cluster dims {%u, %u, %u}: only 1-D clusters are supported",
                        meta.cluster[0], meta.cluster[1], meta.cluster[2]);
  if ((int)meta.dyn_smem_bytes > ctx->info.max_smem_optin)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                        "kernel needs %u bytes of dynamic shared memory, device allows %d",
                        meta.dyn_smem_bytes, ctx->info.max_smem_optin);
  nvfp4rt_module *m = calloc(1, sizeof *m);
  if (!m) return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "module_load: malloc failed");
  m->ctx = ctx;
  m->meta = meta;
  CUresult r;
  if ((r = NVFP4RT_CU(cuCtxSetCurrent)(ctx->ctx)) != CUDA_SUCCESS) {
    st = nvfp4rt_set_cu_error_(r, "cuCtxSetCurrent", __FILE__, __LINE__, "%s", "");
    goto fail;
  }
  if ((r = NVFP4RT_CU(cuModuleLoadData)(&m->module, image)) != CUDA_SUCCESS) {
    st = nvfp4rt_set_cu_error_(r, "cuModuleLoadData", __FILE__, __LINE__, "%s", "");
    if (r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
      const nvfp4rt_error *e = nvfp4rt_last_error();
      st = NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "%s", e->message);
      nvfp4rt_set_error_detail_((int)r, "cuModuleLoadData");
    }
    m->module = NULL;
    goto fail;
  }
  /* cross-check the record the device sees with the one parsed from the ELF */
  CUdeviceptr gptr = 0;
  size_t gbytes = 0;
  if ((r = NVFP4RT_CU(cuModuleGetGlobal)(&gptr, &gbytes, m->module, NVFP4_METADATA_SYMBOL)) !=
      CUDA_SUCCESS) {
    st = nvfp4rt_set_cu_error_(r, "cuModuleGetGlobal", __FILE__, __LINE__, "symbol %s",
                               NVFP4_METADATA_SYMBOL);
    goto fail;
  }
  if (gbytes != NVFP4_METADATA_BYTES) {
    st = NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "device symbol %s is %zu bytes, expected %u",
                      NVFP4_METADATA_SYMBOL, gbytes, NVFP4_METADATA_BYTES);
    goto fail;
  }
  unsigned char dev_rec[NVFP4_METADATA_BYTES];
  if ((r = NVFP4RT_CU(cuMemcpyDtoH)(dev_rec, gptr, sizeof dev_rec)) != CUDA_SUCCESS) {
    st = nvfp4rt_set_cu_error_(r, "cuMemcpyDtoH", __FILE__, __LINE__, "metadata record");
    goto fail;
  }
  if (memcmp(dev_rec, rec, NVFP4_METADATA_BYTES) != 0) {
    st = NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                      "metadata read through cuModuleGetGlobal differs from the ELF record");
    goto fail;
  }
  if ((r = NVFP4RT_CU(cuModuleGetFunction)(&m->function, m->module, meta.kernel_name)) !=
      CUDA_SUCCESS) {
    st = nvfp4rt_set_cu_error_(r, "cuModuleGetFunction", __FILE__, __LINE__,
                               "kernel '%s' named by the metadata", meta.kernel_name);
    if (r == CUDA_ERROR_NOT_FOUND) {
      char msg[512];
      snprintf(msg, sizeof msg, "%s", nvfp4rt_last_error_message());
      st = NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "%s", msg);
      nvfp4rt_set_error_detail_((int)r, "cuModuleGetFunction");
    }
    goto fail;
  }
  if ((r = NVFP4RT_CU(cuFuncSetAttribute)(m->function,
                                          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          (int)meta.dyn_smem_bytes)) != CUDA_SUCCESS) {
    st = nvfp4rt_set_cu_error_(r, "cuFuncSetAttribute", __FILE__, __LINE__,
                               "MAX_DYNAMIC_SHARED_SIZE_BYTES = %u", meta.dyn_smem_bytes);
    goto fail;
  }
  *out = m;
  return NVFP4RT_STATUS_OK;
fail:
  nvfp4rt_module_destroy(m);
  return st;
}

nvfp4rt_status nvfp4rt_module_load_file(nvfp4rt_context *ctx, const char *path,
                                        nvfp4rt_module **out) {
  if (!out) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "module_load: out is NULL");
  *out = NULL;
  if (!ctx) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "module_load: context is NULL");
  void *data;
  size_t size;
  nvfp4rt_status st = nvfp4rt_read_whole_file(path, &data, &size);
  if (st != NVFP4RT_STATUS_OK) return st;
  st = nvfp4rt_module_load_data(ctx, data, size, out);
  free(data);
  return st;
}

void nvfp4rt_module_destroy(nvfp4rt_module *m) {
  if (!m) return;
  if (m->module) NVFP4RT_CU(cuModuleUnload)(m->module);
  free(m);
}

const nvfp4_kernel_metadata *nvfp4rt_module_metadata(const nvfp4rt_module *m) {
  return m ? &m->meta : NULL;
}
