/* moe.c — launches of the contiguous (MoE) form, nvfp4.moe_matmul (KernelABI.h): pure
 * validation of a problem against a variant, its tensor-map contract (a handful of maps
 * shared by all experts), the parameter block, the worst-case tile count and the variant
 * heuristic (host only), then plans: maps encoded once and re-encoded only when their
 * arguments change, and the allocation-free, graph-capturable cuLaunchKernelEx launch.
 * The routing (offsets) stays in device memory: nothing here reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint64_t ceil_div64(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

static int is_swap(const nvfp4_kernel_metadata *m) {
  return m->orientation == NVFP4_META_ORIENTATION_SWAP_AB;
}
static int has_alpha(const nvfp4_kernel_metadata *m) {
  return (m->epilogue_flags & NVFP4_META_EFLAG_ALPHA) != 0;
}

uint32_t nvfp4rt_moe_tmap_count(const nvfp4_kernel_metadata *meta) {
  if (!meta) return 0;
  uint32_t ladder = (meta->variant_flags & NVFP4_META_VFLAG_DYNAMIC_N)
                        ? nvfp4_abi_moe_ladder(meta->tile_n, meta->n_align)
                        : 0u;
  return NVFP4_ABI_MOE_TMAP_LADDER + ladder;
}

/* Sum over experts of ceil(tokens / d) for any split of M tokens over E experts is at most
 * min(M, E) + M / d (ceil(t / d) <= 1 + (t - 1) / d for every non-empty expert). */
static uint64_t max_blocks(uint64_t m, uint64_t experts, uint64_t d) {
  return (m < experts ? m : experts) + m / d;
}

uint64_t nvfp4rt_moe_max_tiles(const nvfp4_kernel_metadata *meta, const nvfp4rt_moe_problem *p) {
  if (!meta || !p || p->m == 0 || p->n == 0 || meta->tile_m == 0 || meta->tile_n == 0) return 0;
  const uint64_t E = p->num_experts;
  if (is_swap(meta)) /* weights on the M role, tokens in N tiles of at most tile_n */
    return ceil_div64(p->n, meta->tile_m) * max_blocks(p->m, E, meta->tile_n);
  return ceil_div64(p->n, meta->tile_n) * max_blocks(p->m, E, meta->tile_m);
}

nvfp4rt_status nvfp4rt_moe_validate(const nvfp4_kernel_metadata *meta,
                                    const nvfp4rt_moe_problem *p) {
  if (!meta || !p) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe: NULL argument");
  if (meta->form != NVFP4_META_FORM_CONTIGUOUS)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "moe: kernel '%s' is of the pointer-array form: plan it with "
                        "nvfp4rt_plan_create", meta->kernel_name);
  if (p->num_experts != meta->max_groups)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_TOO_MANY_GROUPS,
                        "moe: %u experts, kernel '%s' was compiled for %u", p->num_experts,
                        meta->kernel_name, meta->max_groups);
  if (meta->tile_m == 0 || meta->tile_n == 0 || meta->k_granule == 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH, "moe: metadata has zero tile sizes");
  if (p->m == 0 || p->n == 0) return NVFP4RT_STATUS_OK; /* nothing is launched */
  if (p->k == 0 || p->k % meta->k_granule != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE,
                        "moe: K = %u is not a positive multiple of the kernel's K granule %u",
                        p->k, meta->k_granule);
  if ((p->k / 2) % 16 != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                        "moe: A/B row pitch K/2 = %u bytes is not a multiple of 16", p->k / 2);
  nvfp4rt_status cst = nvfp4rt_check_c_(meta, "moe", p->n, p->ldc, p->sfc, p->gs);
  if (cst != NVFP4RT_STATUS_OK) return cst;
  static const char *const names[5] = {"A", "B", "SFA", "SFB", "C"};
  const uint64_t ptrs[5] = {p->a, p->b, p->sfa, p->sfb, p->c};
  for (int i = 0; i < 5; i++) {
    if (!ptrs[i])
      return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe: %s pointer is null", names[i]);
    if (ptrs[i] % 16 != 0)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                          "moe: %s pointer 0x%llx is not 16-byte aligned", names[i],
                          (unsigned long long)ptrs[i]);
  }
  if (!p->offsets)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe: offsets pointer is null");
  if (has_alpha(meta) && !p->alpha)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER,
                        "moe: alpha pointer is null (kernel '%s' scales C by alpha)",
                        meta->kernel_name);
  if (!has_alpha(meta) && p->alpha)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "moe: alpha given but kernel '%s' was compiled without alpha",
                        meta->kernel_name);
  if (p->offsets % 4 != 0 || p->alpha % 4 != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                        "moe: offsets 0x%llx / alpha 0x%llx pointer is not 4-byte aligned",
                        (unsigned long long)p->offsets, (unsigned long long)p->alpha);
  const uint64_t need = nvfp4_abi_moe_sfa_atoms(p->m, p->num_experts);
  if (p->sfa_atoms < need)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE,
                        "moe: sfa holds %u atom rows; %llu tokens over %u experts may need "
                        "%llu (each expert's scale factors start on a 128-row atom)",
                        p->sfa_atoms, (unsigned long long)p->m, p->num_experts,
                        (unsigned long long)need);
  /* map coordinates are signed 32-bit; the kernel computes e * N in 32 bits */
  const uint64_t w_rows = (uint64_t)p->num_experts * p->n;
  if (p->m > NVFP4_ABI_MAX_DIM || w_rows > NVFP4_ABI_MAX_DIM || p->k > NVFP4_ABI_MAX_DIM)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_OVERFLOW,
                        "moe: M = %u, E * N = %llu or K = %u exceeds the 31-bit tensor "
                        "coordinates (at most %u)",
                        p->m, (unsigned long long)w_rows, p->k, NVFP4_ABI_MAX_DIM);
  if (nvfp4rt_moe_max_tiles(meta, p) > UINT32_MAX)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_OVERFLOW, "moe: the tile count may overflow 32 bits");
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_moe_tmap_args(const nvfp4_kernel_metadata *meta,
                                     const nvfp4rt_moe_problem *p, uint32_t slot,
                                     nvfp4rt_tmap_args *o) {
  if (!meta || !p || !o) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe_tmap_args: NULL");
  if (slot >= nvfp4rt_moe_tmap_count(meta))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "moe_tmap_args: slot %u, variant '%s' has %u maps", slot,
                        meta->kernel_name, nvfp4rt_moe_tmap_count(meta));
  memset(o, 0, sizeof *o);
  if (p->m == 0 || p->n == 0) return NVFP4RT_STATUS_OK; /* rank 0: no map */
  o->rank = 2;
  o->element_strides[0] = o->element_strides[1] = 1;
  o->interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  o->oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE; /* out-of-bounds elements read as zero */
  o->l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  const int u8 = nvfp4rt_uint8_maps_(meta); /* FP4 bytes through UINT8 maps (plan.c) */
  const int a_on_m = !is_swap(meta);
  const uint64_t katoms = ceil_div64(p->k, 64);
  const uint32_t cg = meta->cta_group ? meta->cta_group : 1;
  if (slot == NVFP4_ABI_MOE_TMAP_A || slot == NVFP4_ABI_MOE_TMAP_B ||
      slot >= NVFP4_ABI_MOE_TMAP_LADDER) {
    const int is_a = slot != NVFP4_ABI_MOE_TMAP_B;
    o->global_address = is_a ? p->a : p->b;
    o->data_type = u8 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B;
    o->dims[0] = u8 ? p->k / 2 : p->k;
    o->dims[1] = is_a ? p->m : (uint64_t)p->num_experts * p->n;
    o->stride_bytes[0] = p->k / 2;
    o->box[0] = u8 ? 128 : 256;
    if (slot >= NVFP4_ABI_MOE_TMAP_LADDER) /* a smaller N-role box of a DYNAMIC_N variant */
      o->box[1] = (meta->n_align << (slot - NVFP4_ABI_MOE_TMAP_LADDER)) / cg;
    else
      o->box[1] = is_a == a_on_m ? meta->m_box_rows : meta->n_box_rows;
    o->swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  } else if (slot == NVFP4_ABI_MOE_TMAP_SFA || slot == NVFP4_ABI_MOE_TMAP_SFB) {
    const int is_a = slot == NVFP4_ABI_MOE_TMAP_SFA;
    o->global_address = is_a ? p->sfa : p->sfb;
    o->data_type = CU_TENSOR_MAP_DATA_TYPE_INT64;
    o->dims[0] = katoms * 64; /* 64 int64 = one 512-B atom per 64 K */
    o->dims[1] = is_a ? p->sfa_atoms : (uint64_t)p->num_experts * ceil_div64(p->n, 128);
    o->stride_bytes[0] = katoms * 512;
    o->box[0] = 256;
    o->box[1] = is_a == a_on_m ? meta->sfm_atoms : meta->sfn_atoms;
    o->swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  } else { /* C */
    if (meta->epilogue != NVFP4_META_EPILOGUE_TMA_STORE) {
      memset(o, 0, sizeof *o);
      return NVFP4RT_STATUS_OK; /* direct stores: no map */
    }
    o->global_address = p->c;
    nvfp4rt_c_map_type_(meta->c_type, p->n, o);
    o->dims[1] = p->m;
    o->stride_bytes[0] = (uint64_t)p->ldc * nvfp4_meta_c_bytes(meta->c_type);
    o->box[1] = meta->store_box_rows;
    o->swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    o->l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
    if (o->dims[0] == 0) memset(o, 0, sizeof *o); /* narrower than a chunk: no map */
  }
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_moe_param_pack(const nvfp4_kernel_metadata *meta,
                                      const nvfp4rt_moe_problem *p, uint64_t workspace,
                                      uint64_t workspace_bytes, void *block, size_t block_bytes) {
  if (!meta || !p || !block)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe_param_pack: NULL argument");
  if (block_bytes < NVFP4_ABI_MOE_PARAM_BYTES)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "moe_param_pack: a %zu-byte image for a %u-byte parameter block",
                        block_bytes, NVFP4_ABI_MOE_PARAM_BYTES);
  unsigned char *b = block;
  memset(b, 0, NVFP4_ABI_MOE_PARAM_BYTES);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_ABI_VERSION, NVFP4_ABI_VERSION);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_NUM_GROUPS, p->num_experts);
  nvfp4_meta_write_u64(b, NVFP4_ABI_HDR_WORKSPACE, workspace);
  nvfp4_meta_write_u64(b, NVFP4_ABI_HDR_WORKSPACE_BYTES, workspace_bytes);
  nvfp4_meta_write_u64(b, NVFP4_ABI_MOE_OFFSETS, p->offsets);
  nvfp4_meta_write_u64(b, NVFP4_ABI_MOE_ALPHA, p->alpha);
  nvfp4_meta_write_u64(b, NVFP4_ABI_MOE_C_PTR, p->c);
  nvfp4_meta_write_u32(b, NVFP4_ABI_MOE_M, p->m);
  nvfp4_meta_write_u32(b, NVFP4_ABI_MOE_N, p->n);
  nvfp4_meta_write_u32(b, NVFP4_ABI_MOE_K, p->k);
  nvfp4_meta_write_u32(b, NVFP4_ABI_MOE_LDC, p->ldc);
  nvfp4_meta_write_u32(b, NVFP4_ABI_MOE_SFA_ROWS, p->sfa_atoms);
  nvfp4_meta_write_u64(b, NVFP4_ABI_MOE_SFC_PTR, p->sfc);
  nvfp4_meta_write_u64(b, NVFP4_ABI_MOE_GS_PTR, p->gs);
  return NVFP4RT_STATUS_OK;
}

int nvfp4rt_moe_select_variant(const nvfp4rt_metadata_table *table, const nvfp4rt_moe_problem *p,
                               uint32_t sm_count) {
  if (!table || !p || table->count == 0) return -1;
  const uint32_t E = p->num_experts;
  if (E == 0 || E > NVFP4_ABI_MAX_GROUPS || E != table->variants[0].max_groups) return -1;
  /* The cost model of the pointer-array form, on E experts of ceil(M / E) tokens: the same
   * kernel structure, the routing being unknown on the host. */
  nvfp4rt_metadata_table *model = malloc(sizeof *model);
  nvfp4rt_group *groups = malloc(sizeof *groups * E);
  int best = -1;
  if (model && groups) {
    *model = *table;
    for (uint32_t v = 0; v < model->count; v++) {
      model->variants[v].form = NVFP4_META_FORM_POINTER_ARRAY;
      model->variants[v].param_bytes = NVFP4_ABI_PARAM_BYTES;
    }
    const uint32_t tokens = (uint32_t)ceil_div64(p->m, E);
    /* a fused SwiGLU kernel's model groups carry its sfc and gs too (else none fits) */
    const uint64_t fused = (table->variants[0].epilogue_flags & NVFP4_META_EFLAG_SWIGLU_NVFP4) ? 16u : 0u;
    for (uint32_t e = 0; e < E; e++)
      groups[e] = (nvfp4rt_group){16, 16, 16, 16, 16, tokens, p->n, p->k ? p->k : 64,
                                  p->ldc, has_alpha(&table->variants[0]) ? 16u : 0u, fused, fused};
    best = nvfp4rt_select_variant(model, groups, E, sm_count, NULL);
  }
  free(model);
  free(groups);
  return best;
}

/* ---- plans --------------------------------------------------------------------------- */

/* The plan's image: the parameter block, then the host image of the device table (every
 * map slot a variant can have; the unused ones zero). */
#define MOE_TABLE_BYTES (NVFP4_ABI_TMAP_BYTES * NVFP4_ABI_MOE_MAX_TMAPS)
#define MOE_BLOCK_BYTES (NVFP4_ABI_MOE_PARAM_BYTES + MOE_TABLE_BYTES)

struct nvfp4rt_moe_plan {
  nvfp4rt_module *mod;
  int forced_variant; /* -1: chosen by the heuristic at every re-plan */
  uint32_t variant, grid;
  unsigned char *block, *scratch; /* MOE_BLOCK_BYTES each, 64-B aligned */
  /* the arguments each map slot was last encoded with (rank 0: slot empty) */
  nvfp4rt_tmap_args keys[NVFP4_ABI_MOE_MAX_TMAPS], next_keys[NVFP4_ABI_MOE_MAX_TMAPS];
  uint64_t workspace, workspace_bytes, tmaps_encoded;
  uint32_t sized[4];  /* M, N, K, E the automatic variant was chosen for (0: none yet) */
  nvfp4rt_table_cache_ *tables; /* the tensor maps' device copies */
  int table_changed;  /* the image's table changed since the last launch */
  CUlaunchConfig cfg;
  CUlaunchAttribute attrs[2];
  nvfp4rt_plan_extras_ extras; /* the PDL option (NVFP4RT_PDL_*), the activation dump */
  int uses_pdl;             /* the current launch configuration carries the attribute */
  void *params[1];
};

static nvfp4rt_status replan(nvfp4rt_moe_plan *pl, const nvfp4rt_moe_problem *p) {
  const nvfp4rt_metadata_table *table = &pl->mod->table;
  const uint32_t sms = (uint32_t)pl->mod->ctx->info.sm_count;
  if (!p) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe plan: problem is NULL");
  /* the heuristic depends on the sizes only: new pointers keep the variant (and the host
   * cost of an update independent of E) */
  const uint32_t sized[4] = {p->m, p->n, p->k, p->num_experts};
  int v = pl->forced_variant;
  if (v < 0 && pl->sized[3] && !memcmp(sized, pl->sized, sizeof sized)) v = (int)pl->variant;
  if (v < 0) v = nvfp4rt_moe_select_variant(table, p, sms);
  if (v < 0) v = 0; /* no variant fits: variant 0 says why */
  const nvfp4_kernel_metadata *meta = &table->variants[v];
  nvfp4rt_status st = nvfp4rt_moe_validate(meta, p);
  if (st != NVFP4RT_STATUS_OK) return st;
  const uint64_t tiles = nvfp4rt_moe_max_tiles(meta, p);
  const uint32_t grid = nvfp4rt_grid_size(meta, (uint32_t)tiles, sms);
  if (grid == 0 && tiles != 0) /* never a silent no-op launch (as plan.c) */
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                        "moe plan: kernel '%s' needs clusters of %u CTAs, the device has %u SMs",
                        meta->kernel_name, meta->cluster[0], sms);
  /* the workspace (emulation: Tensor Memory; native sm_90a: each CTA's expert schedule,
   * written before it is read): grown (never per launch) when a larger grid needs more */
  uint64_t ws = pl->workspace, ws_bytes = pl->workspace_bytes, new_ws = 0;
  if (meta->workspace_per_cta && (uint64_t)meta->workspace_per_cta * grid > ws_bytes) {
    if ((st = nvfp4rt_ensure_current_(pl->mod->ctx)) != NVFP4RT_STATUS_OK) return st;
    CUdeviceptr d = 0;
    const uint64_t need = (uint64_t)meta->workspace_per_cta * grid;
    CUresult r = NVFP4RT_CU(cuMemAlloc)(&d, (size_t)need);
    if (r != CUDA_SUCCESS)
      return nvfp4rt_set_cu_error_(r, "cuMemAlloc", __FILE__, __LINE__,
                                   "workspace of %llu bytes", (unsigned long long)need);
    ws = new_ws = d;
    ws_bytes = need;
  }
  memcpy(pl->next_keys, pl->keys, sizeof pl->keys);
  memcpy(pl->scratch, pl->block, MOE_BLOCK_BYTES);
  const uint64_t encoded_before = pl->tmaps_encoded;
  const uint32_t count = nvfp4rt_moe_tmap_count(meta);
  for (uint32_t s = 0; st == NVFP4RT_STATUS_OK && s < NVFP4_ABI_MOE_MAX_TMAPS; s++) {
    unsigned char *slot = pl->scratch + NVFP4_ABI_MOE_PARAM_BYTES + NVFP4_ABI_TMAP_BYTES * s;
    nvfp4rt_tmap_args a;
    memset(&a, 0, sizeof a);
    if (s < count && (st = nvfp4rt_moe_tmap_args(meta, p, s, &a)) != NVFP4RT_STATUS_OK) break;
    if (memcmp(&a, &pl->next_keys[s], sizeof a) == 0) continue;
    if (a.rank == 0) {
      memset(slot, 0, NVFP4_ABI_TMAP_BYTES);
    } else if ((st = nvfp4rt_tmap_encode(&a, slot)) != NVFP4RT_STATUS_OK) {
      char msg[512];
      snprintf(msg, sizeof msg, "%s", nvfp4rt_last_error_message());
      const nvfp4rt_error *e = nvfp4rt_last_error();
      int cu = e->cu_result;
      st = NVFP4RT_FAIL(st, "moe plan: tensor map %u of kernel '%s': %s", s, meta->kernel_name,
                        msg);
      nvfp4rt_set_error_detail_(cu, "cuTensorMapEncodeTiled");
      break;
    }
    pl->next_keys[s] = a;
    if (a.rank) pl->tmaps_encoded++;
  }
  if (st == NVFP4RT_STATUS_OK)
    st = nvfp4rt_moe_param_pack(meta, p, ws, ws_bytes, pl->scratch, MOE_BLOCK_BYTES);
  if (st == NVFP4RT_STATUS_OK) nvfp4rt_plan_extras_write_(&pl->extras, pl->scratch);
  if (st != NVFP4RT_STATUS_OK) {
    if (new_ws) NVFP4RT_CU(cuMemFree)((CUdeviceptr)new_ws);
    pl->tmaps_encoded = encoded_before;
    return st;
  }
  /* commit; an outgrown workspace may still be used by queued launches or captured graphs */
  if (new_ws && pl->workspace) {
    CUresult r = NVFP4RT_CU(cuCtxSynchronize)();
    if (r != CUDA_SUCCESS) {
      NVFP4RT_CU(cuMemFree)((CUdeviceptr)new_ws);
      return nvfp4rt_set_cu_error_(r, "cuCtxSynchronize", __FILE__, __LINE__, "%s",
                                   "before freeing the outgrown workspace");
    }
    NVFP4RT_CU(cuMemFree)((CUdeviceptr)pl->workspace);
  }
  pl->workspace = ws;
  pl->workspace_bytes = ws_bytes;
  unsigned char *t = pl->block;
  pl->block = pl->scratch;
  pl->scratch = t;
  memcpy(pl->keys, pl->next_keys, sizeof pl->keys);
  pl->table_changed = 1;
  pl->variant = (uint32_t)v;
  memcpy(pl->sized, sized, sizeof sized);
  pl->grid = grid;
  pl->cfg.gridDimX = grid;
  pl->cfg.gridDimY = pl->cfg.gridDimZ = 1;
  pl->cfg.blockDimX = meta->block[0];
  pl->cfg.blockDimY = meta->block[1];
  pl->cfg.blockDimZ = meta->block[2];
  pl->cfg.sharedMemBytes = meta->dyn_smem_bytes;
  pl->uses_pdl = nvfp4rt_launch_attrs_(&pl->cfg, pl->attrs, pl->mod, meta, pl->extras.pdl);
  pl->params[0] = pl->block;
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_moe_plan_create(nvfp4rt_module *mod, const nvfp4rt_moe_problem *p,
                                       const nvfp4rt_plan_options *options,
                                       nvfp4rt_moe_plan **out) {
  if (!out) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe_plan_create: out is NULL");
  *out = NULL;
  if (!mod) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe_plan_create: module is NULL");
  int forced = options ? options->variant : -1;
  if (forced < -1 || forced >= (int)mod->table.count)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "moe_plan_create: variant %d, the cubin has %u (0..%u)", forced,
                        mod->table.count, mod->table.count - 1);
  const nvfp4_kernel_metadata *meta = &mod->table.variants[forced < 0 ? 0 : forced];
  nvfp4rt_plan_extras_ extras;
  nvfp4rt_status st = nvfp4rt_plan_options_check_(options, "moe_plan_create", meta, &extras);
  if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_moe_validate(meta, p);
  if (st != NVFP4RT_STATUS_OK) return st;
  nvfp4rt_moe_plan *pl = calloc(1, sizeof *pl);
  if (!pl) return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "moe_plan_create: malloc failed");
  pl->mod = mod;
  pl->forced_variant = forced;
  pl->extras = extras;
  pl->block = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, MOE_BLOCK_BYTES);
  pl->scratch = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, MOE_BLOCK_BYTES);
  if (!pl->block || !pl->scratch) {
    nvfp4rt_moe_plan_destroy(pl);
    return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "moe_plan_create: allocation failed");
  }
  memset(pl->block, 0, MOE_BLOCK_BYTES);
  memset(pl->scratch, 0, MOE_BLOCK_BYTES);
  st = nvfp4rt_ensure_current_(mod->ctx);
  if (st == NVFP4RT_STATUS_OK)
    st = nvfp4rt_table_cache_create_(extras.table_cache, MOE_TABLE_BYTES, &pl->tables);
  if (st == NVFP4RT_STATUS_OK) st = replan(pl, p);
  if (st != NVFP4RT_STATUS_OK) {
    nvfp4rt_moe_plan_destroy(pl);
    return st;
  }
  *out = pl;
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_moe_plan_update(nvfp4rt_moe_plan *pl, const nvfp4rt_moe_problem *p) {
  if (!pl) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe_plan_update: plan is NULL");
  return replan(pl, p);
}

nvfp4rt_status nvfp4rt_moe_plan_launch(nvfp4rt_moe_plan *pl, void *stream) {
  if (!pl) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe_plan_launch: plan is NULL");
  if (pl->grid == 0) return NVFP4RT_STATUS_OK; /* M = 0 or N = 0: nothing to do */
  nvfp4rt_status st = nvfp4rt_ensure_current_(pl->mod->ctx);
  if (st != NVFP4RT_STATUS_OK) return st;
  /* the tensor maps' device copy: in the cache, or uploaded now on `stream` */
  uint64_t table = 0;
  const nvfp4rt_table_extent_ used = nvfp4rt_table_extent_whole_(MOE_TABLE_BYTES);
  st = nvfp4rt_table_cache_use_(pl->tables, pl->block + NVFP4_ABI_MOE_PARAM_BYTES, &used,
                                pl->table_changed, (CUstream)stream, &table);
  if (st != NVFP4RT_STATUS_OK) return st;
  pl->table_changed = 0;
  nvfp4_meta_write_u64(pl->block, NVFP4_ABI_HDR_TABLE, table);
  pl->cfg.hStream = (CUstream)stream;
  NVFP4RT_CU_CALL(cuLaunchKernelEx, (&pl->cfg, pl->mod->functions[pl->variant], pl->params, NULL));
  return NVFP4RT_STATUS_OK;
}

int nvfp4rt_moe_plan_uses_pdl(const nvfp4rt_moe_plan *pl) { return pl && pl->grid ? pl->uses_pdl : 0; }

nvfp4rt_status nvfp4rt_moe_plan_get_info(const nvfp4rt_moe_plan *pl, nvfp4rt_plan_info *out) {
  if (!pl || !out) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "moe_plan_get_info: NULL");
  const nvfp4_kernel_metadata *m = &pl->mod->table.variants[pl->variant];
  nvfp4rt_plan_info full, *info = &full;
  nvfp4rt_status st = nvfp4rt_plan_info_begin_(out, info, "moe_plan_get_info", m, pl->variant);
  if (st != NVFP4RT_STATUS_OK) return st;
  info->num_groups = m->max_groups;
  info->grid = pl->grid;
  info->workspace = pl->workspace;
  info->workspace_bytes = pl->workspace_bytes;
  info->tmaps_encoded = pl->tmaps_encoded;
  info->param_block = pl->block;
  nvfp4rt_plan_info_end_(out, info, pl->tables);
  return NVFP4RT_STATUS_OK;
}

void nvfp4rt_moe_plan_destroy(nvfp4rt_moe_plan *pl) {
  if (!pl) return;
  if (pl->workspace) NVFP4RT_CU(cuMemFree)((CUdeviceptr)pl->workspace);
  nvfp4rt_table_cache_destroy_(pl->tables);
  free(pl->block);
  free(pl->scratch);
  free(pl);
}
