/* module.c — CPU objects (dlopen, metadata table, per-variant host functions and plan
 * texts), CPU tensor maps (the cuTensorMapEncodeTiled arguments, validated and stored in
 * the 128-byte slot) and the host-side parameter block of a launch. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h> /* CUtensorMap* enum numbering only */

#include "internal.h"

struct nvfp4sim_module {
  void *handle;
  nvfp4rt_metadata_table table;
  void (*kernels[NVFP4_METADATA_MAX_VARIANTS])(void *);
  sim_plan plans[NVFP4_METADATA_MAX_VARIANTS];
};

/* the accessors the simulator's launch uses */
void (*sim_module_kernel(const nvfp4sim_module *m, uint32_t v))(void *) { return m->kernels[v]; }
const sim_plan *sim_module_plan(const nvfp4sim_module *m, uint32_t v) { return &m->plans[v]; }

static int failf(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *why, size_t size, const char *fmt, ...) {
  if (why && size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* ---- plan texts --------------------------------------------------------------------- */

static void copy_name(char *dst, size_t size, const char *src) {
  size_t n = strcspn(src, "\n");
  if (n >= size) n = size - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
}

int sim_plan_parse(const char *text, sim_plan *p, char *why, size_t size) {
  memset(p, 0, sizeof *p);
  for (int r = 0; r < 5; ++r) { /* roles the plan does not name match no warp */
    p->role_first[r] = 1;
    p->role_last[r] = 0;
  }
  uint32_t cap = 0;
  for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
    unsigned a, b, c, d;
    int used = 0;
    if (sscanf(l, "kernel %63s", p->kernel) == 1) continue;
    if (sscanf(l, "variant %31s", p->variant) == 1) continue;
    if (sscanf(l, "threads %u", &p->threads) == 1) continue;
    if (sscanf(l, "cluster %u", &p->cluster) == 1) continue;
    if (sscanf(l, "dyn_smem %u", &p->dyn_smem) == 1) continue;
    char role[16];
    if (sscanf(l, "role %u %u %15s", &a, &b, role) == 3) {
      int r = !strcmp(role, "epilogue")   ? 0
              : !strcmp(role, "producer") ? 1
              : !strcmp(role, "consumer") ? 3
              : !strcmp(role, "decoder")  ? 4
                                          : 2;
      p->role_first[r] = a;
      p->role_last[r] = b;
      continue;
    }
    sim_named_range *dst = NULL;
    if (sscanf(l, "smem %u %u %u %u %n", &a, &b, &c, &d, &used) == 4 && p->nsmem < 16)
      dst = &p->smem[p->nsmem++];
    else if (sscanf(l, "barrier %u %u %u %n", &a, &b, &c, &used) == 3 && p->nbars < 8) {
      dst = &p->bars[p->nbars++];
      d = 8; /* 8 bytes per mbarrier: offset a, count b, arrivals c */
    } else if (sscanf(l, "tmem %u %u %u %u %n", &a, &b, &c, &d, &used) == 4 && p->ntmem < 8)
      dst = &p->tmem[p->ntmem++];
    else if (sscanf(l, "stagepart %u %u %n", &a, &b, &used) == 2 && p->nparts < 4) {
      dst = &p->parts[p->nparts++];
      c = 1;
      d = 0;
    }
    if (dst) {
      dst->offset = a;
      dst->bytes = b;
      dst->copies = c;
      dst->stride = d;
      copy_name(dst->name, sizeof dst->name, l + used);
      continue;
    }
    unsigned id;
    if (sscanf(l, "site %u %n", &id, &used) == 1) {
      if (id >= cap) {
        uint32_t ncap = cap ? cap * 2 : 1024;
        while (ncap <= id) ncap *= 2;
        char **g = realloc(p->sites, sizeof *g * ncap);
        if (!g) return failf(why, size, "out of memory");
        memset(g + cap, 0, sizeof *g * (ncap - cap));
        p->sites = g;
        cap = ncap;
      }
      size_t n = strcspn(l + used, "\n");
      p->sites[id] = malloc(n + 1);
      if (!p->sites[id]) return failf(why, size, "out of memory");
      memcpy(p->sites[id], l + used, n);
      p->sites[id][n] = 0;
      if (id + 1 > p->nsites) p->nsites = id + 1;
      continue;
    }
  }
  if (!p->kernel[0] || !p->threads || !p->cluster)
    return failf(why, size, "plan text without kernel, threads or cluster lines");
  return 0;
}

void sim_plan_free(sim_plan *p) {
  for (uint32_t i = 0; i < p->nsites; ++i) free(p->sites[i]);
  free(p->sites);
  memset(p, 0, sizeof *p);
}

/* ---- CPU objects ------------------------------------------------------------------------ */

/* What the file is, before dlopen sees it: dlopen reports a file it cannot map (a cubin, a
 * text file) or a name without a slash that is not on the library path all alike, as
 * "cannot open shared object file", which names a file that exists. */
static int check_object_file(const char *path, char *why, size_t size) {
  FILE *f = fopen(path, "rb");
  if (!f) return failf(why, size, "cannot open CPU object %s: %s", path, strerror(errno));
  unsigned char h[20];
  size_t n = fread(h, 1, sizeof h, f);
  int err = ferror(f) ? errno : 0;
  fclose(f);
  if (err) return failf(why, size, "cannot read CPU object %s: %s", path, strerror(err));
  if (n < sizeof h || memcmp(h, "\177ELF", 4) != 0)
    return failf(why, size, "%s is not a CPU object (not an ELF shared object): nvfp4-compile "
                 "--cpu writes one", path);
  const unsigned type = h[16] | h[17] << 8, machine = h[18] | h[19] << 8;
  if (h[5] == 1 && machine == 190) /* little-endian EM_CUDA */
    return failf(why, size, "%s is a cubin (a CUDA ELF image), not a CPU object: run it on a "
                 "GPU without --cpu, or write a CPU object with nvfp4-compile --cpu", path);
  if (h[5] == 1 && type != 3) /* ET_DYN */
    return failf(why, size, "%s is an ELF file of type %u, not a shared object: nvfp4-compile "
                 "--cpu writes one", path, type);
  return 0;
}

int nvfp4sim_module_load(const char *path, nvfp4sim_module **out, char *why, size_t size) {
  if (!out || !path) return failf(why, size, "module_load: NULL argument");
  *out = NULL;
  if (check_object_file(path, why, size) != 0) return -1;
  /* a name without a slash would send dlopen to the library path: this file is meant */
  char local[4096];
  const char *file = path;
  if (!strchr(path, '/') && snprintf(local, sizeof local, "./%s", path) < (int)sizeof local)
    file = local;
  nvfp4sim_module *m = calloc(1, sizeof *m);
  if (!m) return failf(why, size, "out of memory");
  m->handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!m->handle) {
    failf(why, size, "cannot load CPU object %s: %s", path, dlerror());
    free(m);
    return -1;
  }
  const unsigned char *rec = dlsym(m->handle, NVFP4_METADATA_SYMBOL);
  if (!rec) {
    failf(why, size, "%s has no %s symbol (not an nvfp4-compile --cpu object)", path,
          NVFP4_METADATA_SYMBOL);
    nvfp4sim_module_destroy(m);
    return -1;
  }
  uint32_t count = nvfp4_meta_read_u32(rec, NVFP4_META_VARIANT_COUNT);
  if (count == 0 || count > NVFP4_METADATA_MAX_VARIANTS ||
      nvfp4rt_metadata_decode_table(rec, (size_t)count * NVFP4_METADATA_BYTES, &m->table) !=
          NVFP4RT_STATUS_OK) {
    failf(why, size, "%s: metadata table: %s", path,
          count ? nvfp4rt_last_error_message() : "no variants");
    nvfp4sim_module_destroy(m);
    return -1;
  }
  for (uint32_t v = 0; v < m->table.count; ++v) {
    const char *name = m->table.variants[v].kernel_name;
    char plan[128];
    snprintf(plan, sizeof plan, "%s%s", name, NVFP4_SIM_PLAN_SUFFIX);
    void *fn = dlsym(m->handle, name);
    const char *text = dlsym(m->handle, plan);
    if (!fn || !text) {
      failf(why, size, "%s: kernel %s or its plan text is missing", path, name);
      nvfp4sim_module_destroy(m);
      return -1;
    }
    memcpy(&m->kernels[v], &fn, sizeof fn);
    char perr[160];
    if (sim_plan_parse(text, &m->plans[v], perr, sizeof perr) != 0 ||
        strcmp(m->plans[v].kernel, name) != 0) {
      failf(why, size, "%s: plan text of %s: %s", path, name, perr);
      nvfp4sim_module_destroy(m);
      return -1;
    }
  }
  *out = m;
  return 0;
}

void nvfp4sim_module_destroy(nvfp4sim_module *m) {
  if (!m) return;
  for (uint32_t v = 0; v < NVFP4_METADATA_MAX_VARIANTS; ++v) sim_plan_free(&m->plans[v]);
  if (m->handle) dlclose(m->handle);
  free(m);
}

const nvfp4rt_metadata_table *nvfp4sim_module_table(const nvfp4sim_module *m) {
  return m ? &m->table : NULL;
}

int nvfp4sim_module_find_variant(const nvfp4sim_module *m, const char *name) {
  if (!m || !name || !*name) return -1;
  size_t n = strlen(name);
  for (uint32_t v = 0; v < m->table.count; v++) {
    const char *k = m->table.variants[v].kernel_name;
    size_t kn = strlen(k);
    if (!strcmp(k, name) || (kn > n && k[kn - n - 1] == '_' && !strcmp(k + kn - n, name)))
      return (int)v;
  }
  return -1;
}

/* ---- CPU tensor maps ---------------------------------------------------------------------- */

static void put32(unsigned char *p, uint32_t off, uint32_t v) { nvfp4_meta_write_u32(p, off, v); }
static void put64(unsigned char *p, uint32_t off, uint64_t v) {
  put32(p, off, (uint32_t)v);
  put32(p, off + 4, (uint32_t)(v >> 32));
}

/* Bits per element of the data types the simulator implements (0: not implemented). */
uint32_t sim_tmap_elem_bits(uint32_t data_type) {
  switch (data_type) {
  case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 8;
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16: return 16;
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 16;
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32: return 32;
  case CU_TENSOR_MAP_DATA_TYPE_INT64: return 64;
  case CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B: return 4;
  default: return 0;
  }
}

/* Width of the swizzle span in bytes (0: no swizzle, UINT32_MAX: not implemented). */
uint32_t sim_swizzle_bytes(uint32_t swizzle) {
  switch (swizzle) {
  case CU_TENSOR_MAP_SWIZZLE_NONE: return 0;
  case CU_TENSOR_MAP_SWIZZLE_32B: return 32;
  case CU_TENSOR_MAP_SWIZZLE_64B: return 64;
  case CU_TENSOR_MAP_SWIZZLE_128B: return 128;
  default: return UINT32_MAX;
  }
}

int nvfp4sim_tmap_encode(const nvfp4rt_tmap_args *a, void *slot, char *why, size_t size) {
  if (!a || !slot) return failf(why, size, "tmap_encode: NULL argument");
  const uint32_t bits = sim_tmap_elem_bits(a->data_type);
  const uint32_t sw = sim_swizzle_bytes(a->swizzle);
  if (a->rank != 2) return failf(why, size, "tensor map rank %u (the simulator implements 2)", a->rank);
  if (!bits) return failf(why, size, "tensor map data type %u is not implemented", a->data_type);
  if (sw == UINT32_MAX) return failf(why, size, "tensor map swizzle %u is not implemented", a->swizzle);
  if (a->interleave != CU_TENSOR_MAP_INTERLEAVE_NONE)
    return failf(why, size, "interleaved tensor maps are not implemented");
  if (!a->global_address || a->global_address % 16)
    return failf(why, size, "tensor map address 0x%llx is null or not 16-byte aligned",
                 (unsigned long long)a->global_address);
  if (!a->dims[0] || !a->dims[1] || a->dims[0] > (1ull << 32) || a->dims[1] > (1ull << 32))
    return failf(why, size, "tensor map dims {%llu, %llu} outside 1..2^32",
                 (unsigned long long)a->dims[0], (unsigned long long)a->dims[1]);
  if (a->stride_bytes[0] % 16 || a->stride_bytes[0] * 8 < a->dims[0] * bits)
    return failf(why, size, "tensor map row stride %llu is not a multiple of 16 or below a row",
                 (unsigned long long)a->stride_bytes[0]);
  if (a->box[0] < 1 || a->box[0] > 256 || a->box[1] < 1 || a->box[1] > 256)
    return failf(why, size, "tensor map box {%u, %u} outside 1..256", a->box[0], a->box[1]);
  const uint32_t rowBytes = a->box[0] * bits / 8;
  if ((a->box[0] * bits) % 128)
    return failf(why, size, "tensor map box row of %u elements is not a multiple of 16 bytes",
                 a->box[0]);
  if (sw && rowBytes > sw)
    return failf(why, size, "tensor map box row of %u bytes exceeds the %u-byte swizzle span",
                 rowBytes, sw);
  if (a->element_strides[0] != 1 || a->element_strides[1] != 1)
    return failf(why, size, "tensor map element strides other than 1 are not implemented");
  if (bits == 4 && a->dims[0] % 2)
    return failf(why, size, "16U4 tensor map with an odd inner dimension");
  unsigned char *p = slot;
  memset(p, 0, NVFP4_ABI_TMAP_BYTES);
  put32(p, NVFP4SIM_TMAP_OFF_MAGIC, NVFP4SIM_TMAP_MAGIC);
  put32(p, NVFP4SIM_TMAP_OFF_VERSION, NVFP4SIM_TMAP_VERSION);
  put32(p, NVFP4SIM_TMAP_OFF_DATA_TYPE, a->data_type);
  put32(p, NVFP4SIM_TMAP_OFF_RANK, a->rank);
  put64(p, NVFP4SIM_TMAP_OFF_ADDRESS, a->global_address);
  put64(p, NVFP4SIM_TMAP_OFF_DIMS, a->dims[0]);
  put64(p, NVFP4SIM_TMAP_OFF_DIMS + 8, a->dims[1]);
  put64(p, NVFP4SIM_TMAP_OFF_STRIDE, a->stride_bytes[0]);
  put32(p, NVFP4SIM_TMAP_OFF_BOX, a->box[0]);
  put32(p, NVFP4SIM_TMAP_OFF_BOX + 4, a->box[1]);
  put32(p, NVFP4SIM_TMAP_OFF_ESTRIDE, a->element_strides[0]);
  put32(p, NVFP4SIM_TMAP_OFF_ESTRIDE + 4, a->element_strides[1]);
  put32(p, NVFP4SIM_TMAP_OFF_INTERLEAVE, a->interleave);
  put32(p, NVFP4SIM_TMAP_OFF_SWIZZLE, a->swizzle);
  put32(p, NVFP4SIM_TMAP_OFF_L2, a->l2_promotion);
  put32(p, NVFP4SIM_TMAP_OFF_OOB, a->oob_fill);
  return 0;
}

static uint64_t get64(const unsigned char *p, uint32_t off) {
  return nvfp4_meta_read_u32(p, off) | ((uint64_t)nvfp4_meta_read_u32(p, off + 4) << 32);
}

bool sim_tmap_decode(const void *slot, sim_tmap *t, char *why, size_t size) {
  const unsigned char *p = slot;
  if (nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_MAGIC) != NVFP4SIM_TMAP_MAGIC ||
      nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_VERSION) != NVFP4SIM_TMAP_VERSION) {
    failf(why, size, "the tensor-map slot holds no CPU tensor map (zero or device-encoded)");
    return false;
  }
  t->data_type = nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_DATA_TYPE);
  t->swizzle = sim_swizzle_bytes(nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_SWIZZLE));
  t->oob_fill = nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_OOB);
  t->elem_bits = sim_tmap_elem_bits(t->data_type);
  t->base = get64(p, NVFP4SIM_TMAP_OFF_ADDRESS);
  t->dims[0] = get64(p, NVFP4SIM_TMAP_OFF_DIMS);
  t->dims[1] = get64(p, NVFP4SIM_TMAP_OFF_DIMS + 8);
  t->stride = get64(p, NVFP4SIM_TMAP_OFF_STRIDE);
  t->box[0] = nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_BOX);
  t->box[1] = nvfp4_meta_read_u32(p, NVFP4SIM_TMAP_OFF_BOX + 4);
  if (!t->elem_bits || t->swizzle == UINT32_MAX) {
    failf(why, size, "corrupt CPU tensor map");
    return false;
  }
  return true;
}

/* ---- the parameter block ---------------------------------------------------------------- */

int nvfp4sim_params_build(const nvfp4_kernel_metadata *meta, const nvfp4rt_group *groups,
                          uint32_t n, void *block, size_t bytes, nvfp4rt_plan_layout *L,
                          char *why, size_t size) {
  if (!meta || !block || !L) return failf(why, size, "params_build: NULL argument");
  if (nvfp4rt_plan_validate(meta, groups, n, L) != NVFP4RT_STATUS_OK)
    return failf(why, size, "%s", nvfp4rt_last_error_message());
  const size_t image = NVFP4_ABI_HEADER_BYTES + (size_t)nvfp4_abi_table_bytes(meta->max_groups);
  if (bytes < image || (uintptr_t)block % NVFP4_ABI_PARAM_ALIGN)
    return failf(why, size, "params_build: block of %zu bytes (need %zu, 64-byte aligned)", bytes,
                 image);
  unsigned char *b = block;
  memset(b, 0, image);
  for (uint32_t s = 0; s < n; ++s) {
    if (!L->tiles[s]) continue; /* empty group: its slots stay zero */
    const nvfp4rt_group *G = &groups[L->order[s]];
    for (uint32_t t = 0; t < NVFP4_ABI_GROUP_TMAPS; ++t) {
      if (t == NVFP4RT_TMAP_C && meta->epilogue != NVFP4_META_EPILOGUE_TMA_STORE) continue;
      nvfp4rt_tmap_args a;
      if (nvfp4rt_tmap_args_for(meta, G, (nvfp4rt_tmap_kind)t, &a) != NVFP4RT_STATUS_OK)
        return failf(why, size, "%s", nvfp4rt_last_error_message());
      if (a.dims[0] == 0) continue; /* C narrower than one 16-byte chunk: no map */
      char e[200];
      if (nvfp4sim_tmap_encode(&a, b + NVFP4_ABI_HEADER_BYTES + nvfp4_abi_tmaps_offset(s) +
                                       NVFP4_ABI_TMAP_BYTES * t,
                               e, sizeof e) != 0)
        return failf(why, size, "group %u tensor map %u: %s", L->order[s], t, e);
    }
  }
  /* a table outside the parameter block is read through its host address */
  uint64_t table = nvfp4_abi_table_inline(meta->max_groups)
                       ? 0
                       : (uint64_t)(uintptr_t)(b + NVFP4_ABI_HEADER_BYTES);
  if (nvfp4rt_param_pack(meta, groups, n, L, 0, 0, table, block, bytes) != NVFP4RT_STATUS_OK)
    return failf(why, size, "%s", nvfp4rt_last_error_message());
  return 0;
}
