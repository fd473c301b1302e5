/* plan.c — launch plans: pure validation of a grouped launch against the kernel metadata,
 * the tensor-map contract (nvfp4rt_tmap_args_for), parameter-block packing and grid size
 * (all host-only), then plan creation with cached cuTensorMapEncodeTiled results, cheap
 * re-planning when pointers change, and the allocation-free cuLaunchKernelEx launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- pure helpers ---------------------------------------------------------------- */

static uint64_t ceil_div64(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

nvfp4rt_status nvfp4rt_plan_validate(const nvfp4_kernel_metadata *meta,
                                     const nvfp4rt_group *groups, uint32_t num_groups,
                                     nvfp4rt_plan_layout *layout) {
  if (!meta) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan: metadata is NULL");
  if (!groups) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan: groups array is NULL");
  if (num_groups == 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT, "plan: group count is 0 (need >= 1)");
  if (num_groups > meta->max_groups || num_groups > NVFP4_ABI_MAX_GROUPS)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_TOO_MANY_GROUPS,
                        "plan: %u groups, kernel '%s' was compiled for at most %u", num_groups,
                        meta->kernel_name, meta->max_groups);
  if (meta->tile_m == 0 || meta->tile_n == 0 || meta->k_granule == 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "plan: metadata has zero tile sizes");
  uint64_t total = 0;
  nvfp4rt_plan_layout local;
  nvfp4rt_plan_layout *L = layout ? layout : &local;
  memset(L, 0, sizeof *L);
  L->num_groups = num_groups;
  for (uint32_t g = 0; g < num_groups; g++) {
    const nvfp4rt_group *G = &groups[g];
    L->tile_start[g] = (uint32_t)total;
    if (G->m == 0 || G->n == 0) continue; /* empty group: 0 tiles, nothing read or written */
    if (G->k == 0)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE, "group %u: K is 0", g);
    if (G->k % meta->k_granule != 0)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE,
                          "group %u: K = %u is not a multiple of the kernel's K granule %u", g,
                          G->k, meta->k_granule);
    if (G->ldc < G->n)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE, "group %u: ldc = %u is smaller than N = %u",
                          g, G->ldc, G->n);
    static const char *const names[5] = {"A", "B", "SFA", "SFB", "C"};
    const uint64_t ptrs[5] = {G->a, G->b, G->sfa, G->sfb, G->c};
    for (int i = 0; i < 5; i++)
      if (!ptrs[i])
        return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "group %u: %s pointer is null", g,
                            names[i]);
    for (int i = 0; i < 5; i++)
      if (ptrs[i] % 16 != 0)
        return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                            "group %u: %s pointer 0x%llx is not 16-byte aligned", g, names[i],
                            (unsigned long long)ptrs[i]);
    if ((G->k / 2) % 16 != 0)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                          "group %u: A/B row pitch K/2 = %u bytes is not a multiple of 16", g,
                          G->k / 2);
    if (((uint64_t)G->ldc * 2) % 16 != 0)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                          "group %u: C row pitch ldc*2 = %llu bytes is not a multiple of 16", g,
                          (unsigned long long)G->ldc * 2);
    /* byte extents must fit 64-bit addressing from the base pointers */
    uint64_t c_elems = (uint64_t)(G->m - 1) * G->ldc + G->n;
    if ((uint64_t)G->m * G->ldc > (UINT64_MAX / 4) || c_elems > UINT64_MAX / 2 ||
        G->c > UINT64_MAX - c_elems * 2 || G->a > UINT64_MAX - (uint64_t)G->m * (G->k / 2) ||
        G->b > UINT64_MAX - (uint64_t)G->n * (G->k / 2))
      return NVFP4RT_FAIL(NVFP4RT_STATUS_OVERFLOW, "group %u: tensor extent overflows 64 bits",
                          g);
    uint64_t tm = ceil_div64(G->m, meta->tile_m), tn = ceil_div64(G->n, meta->tile_n);
    uint64_t tiles = tm * tn;
    if (tiles > UINT32_MAX || total + tiles > UINT32_MAX)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_OVERFLOW, "group %u: tile count overflows 32 bits", g);
    L->tiles_m[g] = (uint32_t)tm;
    L->tiles[g] = (uint32_t)tiles;
    total += tiles;
  }
  L->total_tiles = (uint32_t)total;
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_tmap_args_for(const nvfp4_kernel_metadata *meta,
                                     const nvfp4rt_group *G, nvfp4rt_tmap_kind kind,
                                     nvfp4rt_tmap_args *o) {
  if (!meta || !G || !o) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "tmap_args: NULL");
  memset(o, 0, sizeof *o);
  o->rank = 2;
  o->element_strides[0] = o->element_strides[1] = 1;
  o->interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  o->oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE; /* out-of-bounds elements read as zero */
  const int emu = (meta->flags & NVFP4_META_FLAG_EMULATION) != 0;
  switch (kind) {
  case NVFP4RT_TMAP_A:
  case NVFP4RT_TMAP_B: {
    uint32_t rows = kind == NVFP4RT_TMAP_A ? G->m : G->n;
    uint32_t box_rows = kind == NVFP4RT_TMAP_A ? meta->tile_m : meta->tile_n;
    o->global_address = kind == NVFP4RT_TMAP_A ? G->a : G->b;
    o->data_type = emu ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B;
    o->dims[0] = emu ? G->k / 2 : G->k;
    o->dims[1] = rows;
    o->stride_bytes[0] = G->k / 2;
    o->box[0] = emu ? 128 : 256;
    o->box[1] = box_rows;
    o->swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    o->l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    break;
  }
  case NVFP4RT_TMAP_SFA:
  case NVFP4RT_TMAP_SFB: {
    uint32_t rows = kind == NVFP4RT_TMAP_SFA ? G->m : G->n;
    uint64_t katoms = ceil_div64(G->k, 64);
    o->global_address = kind == NVFP4RT_TMAP_SFA ? G->sfa : G->sfb;
    o->data_type = CU_TENSOR_MAP_DATA_TYPE_INT64;
    o->dims[0] = katoms * 64;           /* 64 int64 = one 512-B atom per 64 K */
    o->dims[1] = ceil_div64(rows, 128); /* one row of atoms per 128 M/N rows */
    o->stride_bytes[0] = katoms * 512;
    o->box[0] = 256;
    o->box[1] = kind == NVFP4RT_TMAP_SFA ? 1 : meta->sfb_atoms;
    o->swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
    o->l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    break;
  }
  default:
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT, "tmap_args: unknown kind %d", (int)kind);
  }
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_param_pack(const nvfp4_kernel_metadata *meta,
                                  const nvfp4rt_group *groups, uint32_t num_groups,
                                  const nvfp4rt_plan_layout *L, uint64_t workspace,
                                  uint64_t workspace_bytes, void *block, size_t block_bytes) {
  if (!meta || !groups || !L || !block)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "param_pack: NULL argument");
  if (block_bytes < meta->param_bytes || num_groups > meta->max_groups)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "param_pack: block of %zu bytes / %u groups for a %u-byte, %u-group ABI",
                        block_bytes, num_groups, meta->param_bytes, meta->max_groups);
  unsigned char *b = block;
  memset(b, 0, NVFP4_ABI_HEADER_BYTES);
  uint32_t rec0 = nvfp4_abi_record_offset(meta->max_groups, 0);
  memset(b + rec0, 0, (size_t)meta->max_groups * NVFP4_ABI_GROUP_RECORD_BYTES);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_ABI_VERSION, NVFP4_ABI_VERSION);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_NUM_GROUPS, num_groups);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_TOTAL_TILES, L->total_tiles);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_FLAGS, 0);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_WORKSPACE, (uint32_t)workspace);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_WORKSPACE + 4, (uint32_t)(workspace >> 32));
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_WORKSPACE_BYTES, (uint32_t)workspace_bytes);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_WORKSPACE_BYTES + 4, (uint32_t)(workspace_bytes >> 32));
  for (uint32_t g = 0; g < num_groups; g++) {
    unsigned char *r = b + nvfp4_abi_record_offset(meta->max_groups, g);
    const nvfp4rt_group *G = &groups[g];
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_M, G->m);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_N, G->n);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_K, G->k);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_TILE_START, L->tile_start[g]);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_TILES_M, L->tiles[g] ? L->tiles_m[g] : 0);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_LDC, G->ldc);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_C_PTR, (uint32_t)G->c);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_C_PTR + 4, (uint32_t)(G->c >> 32));
  }
  return NVFP4RT_STATUS_OK;
}

uint32_t nvfp4rt_grid_size(const nvfp4_kernel_metadata *meta, uint32_t total_tiles,
                           uint32_t sm_count) {
  if (!meta || total_tiles == 0) return 0;
  uint32_t cx = meta->cluster[0] ? meta->cluster[0] : 1;
  uint32_t g = total_tiles < sm_count ? total_tiles : sm_count;
  if (g == 0) g = 1;
  g = (g + cx - 1) / cx * cx;
  if (g > sm_count && sm_count >= cx) g = sm_count / cx * cx;
  return g;
}

/* ---- plans ----------------------------------------------------------------------- */

typedef struct tmap_key {
  uint64_t address;
  uint32_t rows, k;
  int valid;
} tmap_key;

struct nvfp4rt_plan {
  nvfp4rt_module *mod;
  unsigned char *block;   /* param_bytes rounded to 64, 64-B aligned: the live block */
  unsigned char *scratch; /* same size: the next block while re-planning */
  size_t block_alloc;
  uint32_t num_groups, grid;
  nvfp4rt_plan_layout layout;
  tmap_key keys[NVFP4_ABI_MAX_GROUPS][4];
  uint64_t workspace, workspace_bytes;
  uint64_t tmaps_encoded;
  CUlaunchConfig cfg;
  CUlaunchAttribute attrs[1];
  void *params[1];
};

static nvfp4rt_status encode_args(const nvfp4rt_tmap_args *ap, uint32_t g, int kind,
                                  unsigned char *slot) {
  const nvfp4rt_tmap_args a = *ap;
  CUtensorMap tm;
  memset(&tm, 0, sizeof tm);
  cuuint64_t dims[2] = {a.dims[0], a.dims[1]};
  cuuint64_t strides[1] = {a.stride_bytes[0]};
  cuuint32_t box[2] = {a.box[0], a.box[1]};
  cuuint32_t es[2] = {a.element_strides[0], a.element_strides[1]};
  CUresult r = NVFP4RT_CU(cuTensorMapEncodeTiled)(
      &tm, (CUtensorMapDataType)a.data_type, a.rank, (void *)(uintptr_t)a.global_address, dims,
      strides, box, es, (CUtensorMapInterleave)a.interleave, (CUtensorMapSwizzle)a.swizzle,
      (CUtensorMapL2promotion)a.l2_promotion, (CUtensorMapFloatOOBfill)a.oob_fill);
  static const char *const kn[5] = {"A", "B", "SFA", "SFB", "tensor"};
  char what[48];
  if (kind < 0 || kind > 3) snprintf(what, sizeof what, "tensor map");
  else snprintf(what, sizeof what, "group %u %s map", g, kn[kind]);
  if (r != CUDA_SUCCESS)
    return nvfp4rt_set_cu_error_(
        r, "cuTensorMapEncodeTiled", __FILE__, __LINE__,
        "%s (type %u, dims {%llu, %llu}, stride %llu, box {%u, %u}, swizzle %u)%s",
        what, a.data_type, (unsigned long long)a.dims[0], (unsigned long long)a.dims[1],
        (unsigned long long)a.stride_bytes[0], a.box[0], a.box[1], a.swizzle,
        a.data_type == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B
            ? "; 16U4_ALIGN8B needs sm_100 (Hopper rejects it)"
            : "");
  memcpy(slot, &tm, NVFP4_ABI_TMAP_BYTES);
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_tmap_encode(const nvfp4rt_tmap_args *args, void *out) {
  if (!args || !out) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "tmap_encode: NULL");
  if ((uintptr_t)out % 64 != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED, "tmap_encode: output not 64-byte aligned");
  nvfp4rt_status st = nvfp4rt_driver_load();
  if (st != NVFP4RT_STATUS_OK) return st;
  return encode_args(args, 0, -1, out);
}

static nvfp4rt_status encode_one(nvfp4rt_plan *p, const nvfp4rt_group *G, uint32_t g,
                                 nvfp4rt_tmap_kind kind, unsigned char *slot) {
  nvfp4rt_tmap_args a;
  nvfp4rt_status st = nvfp4rt_tmap_args_for(&p->mod->meta, G, kind, &a);
  if (st != NVFP4RT_STATUS_OK) return st;
  st = encode_args(&a, g, (int)kind, slot);
  if (st == NVFP4RT_STATUS_OK) p->tmaps_encoded++;
  return st;
}

/* Builds the next block in p->scratch from p->block + keys; commits on success. */
static nvfp4rt_status replan(nvfp4rt_plan *p, const nvfp4rt_group *groups, uint32_t n) {
  const nvfp4_kernel_metadata *meta = &p->mod->meta;
  nvfp4rt_plan_layout L;
  nvfp4rt_status st = nvfp4rt_plan_validate(meta, groups, n, &L);
  if (st != NVFP4RT_STATUS_OK) return st;
  const uint32_t grid = nvfp4rt_grid_size(meta, L.total_tiles,
                                          (uint32_t)p->mod->ctx->info.sm_count);
  /* workspace: once per plan, grown (never per launch) if a re-plan needs a larger grid */
  uint64_t ws = p->workspace, ws_bytes = p->workspace_bytes, new_ws = 0;
  if (meta->flags & NVFP4_META_FLAG_EMULATION) {
    uint64_t need = (uint64_t)meta->workspace_per_cta * grid;
    if (need > ws_bytes) {
      CUcontext cur = NULL;
      if (NVFP4RT_CU(cuCtxGetCurrent)(&cur) != CUDA_SUCCESS || cur != p->mod->ctx->ctx)
        NVFP4RT_CU_CALL(cuCtxSetCurrent, (p->mod->ctx->ctx));
      CUdeviceptr d = 0;
      CUresult r = NVFP4RT_CU(cuMemAlloc)(&d, (size_t)need);
      if (r != CUDA_SUCCESS)
        return nvfp4rt_set_cu_error_(r, "cuMemAlloc", __FILE__, __LINE__,
                                     "emulation workspace of %llu bytes",
                                     (unsigned long long)need);
      new_ws = d;
      ws = d;
      ws_bytes = need;
    }
  }
  tmap_key keys[NVFP4_ABI_MAX_GROUPS][4];
  memcpy(keys, p->keys, sizeof keys);
  memcpy(p->scratch, p->block, p->block_alloc);
  uint64_t encoded_before = p->tmaps_encoded;
  for (uint32_t g = 0; g < meta->max_groups; g++) {
    unsigned char *slots = p->scratch + nvfp4_abi_tmaps_offset(g);
    if (g >= n || L.tiles[g] == 0) { /* unused or empty group: zero slots */
      if (keys[g][0].valid || keys[g][1].valid || keys[g][2].valid || keys[g][3].valid)
        memset(slots, 0, NVFP4_ABI_GROUP_TMAPS_BYTES);
      memset(keys[g], 0, sizeof keys[g]);
      continue;
    }
    const nvfp4rt_group *G = &groups[g];
    const uint64_t addr[4] = {G->a, G->b, G->sfa, G->sfb};
    const uint32_t rows[4] = {G->m, G->n, G->m, G->n};
    for (int t = 0; t < 4; t++) {
      tmap_key *k = &keys[g][t];
      if (k->valid && k->address == addr[t] && k->rows == rows[t] && k->k == G->k) continue;
      st = encode_one(p, G, g, (nvfp4rt_tmap_kind)t, slots + NVFP4_ABI_TMAP_BYTES * t);
      if (st != NVFP4RT_STATUS_OK) {
        if (new_ws) NVFP4RT_CU(cuMemFree)((CUdeviceptr)new_ws);
        p->tmaps_encoded = encoded_before;
        return st;
      }
      k->address = addr[t];
      k->rows = rows[t];
      k->k = G->k;
      k->valid = 1;
    }
  }
  st = nvfp4rt_param_pack(meta, groups, n, &L, ws, ws_bytes, p->scratch, p->block_alloc);
  if (st != NVFP4RT_STATUS_OK) {
    if (new_ws) NVFP4RT_CU(cuMemFree)((CUdeviceptr)new_ws);
    return st;
  }
  /* commit. A grown workspace replaces the old one, which launches already queued (or a
   * CUDA graph captured earlier) may still use: wait for the context's work explicitly
   * before freeing it rather than rely on cuMemFree's implicit synchronisation. Only a
   * re-plan whose grid outgrows every earlier one gets here (at most a few per plan). */
  if (new_ws && p->workspace) {
    CUresult r = NVFP4RT_CU(cuCtxSynchronize)();
    if (r != CUDA_SUCCESS) {
      NVFP4RT_CU(cuMemFree)((CUdeviceptr)new_ws);
      return nvfp4rt_set_cu_error_(r, "cuCtxSynchronize", __FILE__, __LINE__,
                                   "%s", "before freeing the outgrown emulation workspace");
    }
    NVFP4RT_CU(cuMemFree)((CUdeviceptr)p->workspace);
  }
  p->workspace = ws;
  p->workspace_bytes = ws_bytes;
  unsigned char *t = p->block;
  p->block = p->scratch;
  p->scratch = t;
  memcpy(p->keys, keys, sizeof keys);
  p->layout = L;
  p->num_groups = n;
  p->grid = grid;
  p->cfg.gridDimX = grid;
  p->params[0] = p->block;
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_plan_create(nvfp4rt_module *mod, const nvfp4rt_group *groups,
                                   uint32_t num_groups, nvfp4rt_plan **out) {
  if (!out) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan_create: out is NULL");
  *out = NULL;
  if (!mod) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan_create: module is NULL");
  const nvfp4_kernel_metadata *meta = &mod->meta;
  /* validate before allocating anything */
  nvfp4rt_status st = nvfp4rt_plan_validate(meta, groups, num_groups, NULL);
  if (st != NVFP4RT_STATUS_OK) return st;
  nvfp4rt_plan *p = calloc(1, sizeof *p);
  if (!p) return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "plan_create: malloc failed");
  p->mod = mod;
  p->block_alloc = (meta->param_bytes + NVFP4_ABI_PARAM_ALIGN - 1) / NVFP4_ABI_PARAM_ALIGN *
                   NVFP4_ABI_PARAM_ALIGN;
  p->block = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, p->block_alloc);
  p->scratch = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, p->block_alloc);
  if (!p->block || !p->scratch) {
    nvfp4rt_plan_destroy(p);
    return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "plan_create: parameter block allocation");
  }
  memset(p->block, 0, p->block_alloc);
  memset(p->scratch, 0, p->block_alloc);
  p->cfg.gridDimX = 0;
  p->cfg.gridDimY = p->cfg.gridDimZ = 1;
  p->cfg.blockDimX = meta->block[0];
  p->cfg.blockDimY = meta->block[1];
  p->cfg.blockDimZ = meta->block[2];
  p->cfg.sharedMemBytes = meta->dyn_smem_bytes;
  p->cfg.attrs = p->attrs;
  p->cfg.numAttrs = 0;
  if (meta->cluster[0] * meta->cluster[1] * meta->cluster[2] > 1) {
    p->attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    p->attrs[0].value.clusterDim.x = meta->cluster[0];
    p->attrs[0].value.clusterDim.y = meta->cluster[1];
    p->attrs[0].value.clusterDim.z = meta->cluster[2];
    p->cfg.numAttrs = 1;
  }
  st = replan(p, groups, num_groups);
  if (st != NVFP4RT_STATUS_OK) {
    nvfp4rt_plan_destroy(p);
    return st;
  }
  *out = p;
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_plan_update_pointers(nvfp4rt_plan *plan, const nvfp4rt_group *groups,
                                            uint32_t num_groups) {
  if (!plan) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan_update: plan is NULL");
  return replan(plan, groups, num_groups);
}

nvfp4rt_status nvfp4rt_plan_launch(nvfp4rt_plan *p, void *stream) {
  if (!p) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan_launch: plan is NULL");
  if (p->grid == 0) return NVFP4RT_STATUS_OK; /* every group empty: nothing to do */
  CUcontext cur = NULL;
  if (NVFP4RT_CU(cuCtxGetCurrent)(&cur) != CUDA_SUCCESS || cur != p->mod->ctx->ctx)
    NVFP4RT_CU_CALL(cuCtxSetCurrent, (p->mod->ctx->ctx));
  /* (measured on the H200: plain cuLaunchKernel is no cheaper than the Ex form) */
  p->cfg.hStream = (CUstream)stream;
  NVFP4RT_CU_CALL(cuLaunchKernelEx, (&p->cfg, p->mod->function, p->params, NULL));
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_plan_get_info(const nvfp4rt_plan *p, nvfp4rt_plan_info *info) {
  if (!p || !info) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan_get_info: NULL");
  const nvfp4_kernel_metadata *m = &p->mod->meta;
  memset(info, 0, sizeof *info);
  info->num_groups = p->num_groups;
  info->total_tiles = p->layout.total_tiles;
  info->grid = p->grid;
  memcpy(info->block, m->block, sizeof info->block);
  memcpy(info->cluster, m->cluster, sizeof info->cluster);
  info->dyn_smem_bytes = m->dyn_smem_bytes;
  info->param_bytes = m->param_bytes;
  info->workspace = p->workspace;
  info->workspace_bytes = p->workspace_bytes;
  info->tmaps_encoded = p->tmaps_encoded;
  info->param_block = p->block;
  return NVFP4RT_STATUS_OK;
}

void nvfp4rt_plan_destroy(nvfp4rt_plan *p) {
  if (!p) return;
  if (p->workspace) NVFP4RT_CU(cuMemFree)((CUdeviceptr)p->workspace);
  free(p->block);
  free(p->scratch);
  free(p);
}
