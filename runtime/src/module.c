/* module.c — loads a cubin into the primary context, checks its metadata table (ELF
 * records, target vs device, device-side copy via cuModuleGetGlobal) and prepares the
 * kernel of every variant. */
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
  nvfp4rt_metadata_table table;
  if ((st = nvfp4rt_elf_find_metadata(image, size, &rec, &rec_size)) != NVFP4RT_STATUS_OK)
    return st;
  /* a CPU object (nvfp4-compile --cpu) carries the same table in a host ELF image; the
   * driver would only say "invalid image" (e_machine: the ELF64 header's bytes 18..19) */
  const unsigned char *elf = image;
  const unsigned machine = elf[18] | (unsigned)elf[19] << 8;
  if (machine != 190 /* EM_CUDA */)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                        "not a cubin: an ELF image for machine %u, not CUDA (190); a CPU object "
                        "of nvfp4-compile --cpu runs with nvfp4-run --cpu", machine);
  if ((st = nvfp4rt_metadata_decode_table(rec, rec_size, &table)) != NVFP4RT_STATUS_OK)
    return st;
  const nvfp4_kernel_metadata meta = table.variants[0]; /* the ABI-level fields */
  if ((st = nvfp4rt_metadata_check_target(&meta, ctx->info.cc_major, ctx->info.cc_minor)) !=
      NVFP4RT_STATUS_OK)
    return st;
  /* target_sm 90 is the tcgen05 emulation (EMULATION flag, workspace), the timing proxy
   * (PROXY flag) or a native sm_90a kernel (docs/kernel-sm90a.md); all use the same ABI. */
  for (uint32_t v = 0; v < table.count; v++) {
    const nvfp4_kernel_metadata *vm = &table.variants[v];
    if (vm->cluster[1] != 1 || vm->cluster[2] != 1)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                          "variant %s: cluster dims {%u, %u, %u}: only 1-D clusters are supported",
                          vm->kernel_name, vm->cluster[0], vm->cluster[1], vm->cluster[2]);
    if ((int)vm->dyn_smem_bytes > ctx->info.max_smem_optin)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                          "variant %s needs %u bytes of dynamic shared memory, device allows %d",
                          vm->kernel_name, vm->dyn_smem_bytes, ctx->info.max_smem_optin);
  }
  nvfp4rt_module *m = calloc(1, sizeof *m);
  if (!m) return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "module_load: malloc failed");
  m->ctx = ctx;
  m->table = table;
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
  if (gbytes != rec_size || rec_size > NVFP4_METADATA_BYTES * NVFP4_METADATA_MAX_VARIANTS) {
    st = NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "device symbol %s is %zu bytes, expected %zu",
                      NVFP4_METADATA_SYMBOL, gbytes, rec_size);
    goto fail;
  }
  unsigned char dev_rec[NVFP4_METADATA_BYTES * NVFP4_METADATA_MAX_VARIANTS];
  if ((r = NVFP4RT_CU(cuMemcpyDtoH)(dev_rec, gptr, rec_size)) != CUDA_SUCCESS) {
    st = nvfp4rt_set_cu_error_(r, "cuMemcpyDtoH", __FILE__, __LINE__, "metadata table");
    goto fail;
  }
  if (memcmp(dev_rec, rec, rec_size) != 0) {
    st = NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN,
                      "metadata read through cuModuleGetGlobal differs from the ELF table");
    goto fail;
  }
  for (uint32_t v = 0; v < table.count; v++) {
    const nvfp4_kernel_metadata *vm = &table.variants[v];
    if ((r = NVFP4RT_CU(cuModuleGetFunction)(&m->functions[v], m->module, vm->kernel_name)) !=
        CUDA_SUCCESS) {
      st = nvfp4rt_set_cu_error_(r, "cuModuleGetFunction", __FILE__, __LINE__,
                                 "kernel '%s' named by the metadata", vm->kernel_name);
      if (r == CUDA_ERROR_NOT_FOUND) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", nvfp4rt_last_error_message());
        st = NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_CUBIN, "%s", msg);
        nvfp4rt_set_error_detail_((int)r, "cuModuleGetFunction");
      }
      goto fail;
    }
    if ((r = NVFP4RT_CU(cuFuncSetAttribute)(m->functions[v],
                                            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            (int)vm->dyn_smem_bytes)) != CUDA_SUCCESS) {
      st = nvfp4rt_set_cu_error_(r, "cuFuncSetAttribute", __FILE__, __LINE__,
                                 "%s: MAX_DYNAMIC_SHARED_SIZE_BYTES = %u", vm->kernel_name,
                                 vm->dyn_smem_bytes);
      goto fail;
    }
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
  return m ? &m->table.variants[0] : NULL;
}

uint32_t nvfp4rt_module_variant_count(const nvfp4rt_module *m) { return m ? m->table.count : 0; }

const nvfp4_kernel_metadata *nvfp4rt_module_variant(const nvfp4rt_module *m, uint32_t index) {
  return m && index < m->table.count ? &m->table.variants[index] : NULL;
}

int nvfp4rt_module_find_variant(const nvfp4rt_module *m, const char *name) {
  if (!m || !name || !*name) return -1;
  size_t n = strlen(name);
  for (uint32_t v = 0; v < m->table.count; v++) {
    const char *k = m->table.variants[v].kernel_name;
    size_t kn = strlen(k);
    if (strcmp(k, name) == 0 || (kn > n && k[kn - n - 1] == '_' && strcmp(k + kn - n, name) == 0))
      return (int)v;
  }
  return -1;
}
