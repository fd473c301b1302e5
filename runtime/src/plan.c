/* plan.c — launch plans: pure validation of a grouped launch against a variant's metadata
 * (table order, per-group tile widths), the tensor-map contract (nvfp4rt_tmap_args_for),
 * parameter-block packing, grid size and the variant heuristic (all host-only), then plan
 * creation with cached cuTensorMapEncodeTiled results, cheap re-planning when pointers
 * change (re-encode, cuTensorMapReplaceAddress, or raw pointers the kernel patches its
 * maps with: nvfp4rt_tmap_update), and the allocation-free cuLaunchKernelEx launch, which
 * finds the group table's device copy in the plan's table cache (tablecache.c) or uploads
 * it in stream order. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- pure helpers ---------------------------------------------------------------- */

static uint64_t ceil_div64(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

static int is_swap(const nvfp4_kernel_metadata *meta) {
  return meta->orientation == NVFP4_META_ORIENTATION_SWAP_AB;
}
/* Rows of the tensor on the MMA's M side / N side (KernelConfig.h's operand roles). */
static uint32_t rows_m_role(const nvfp4_kernel_metadata *meta, const nvfp4rt_group *G) {
  return is_swap(meta) ? G->n : G->m;
}
static uint32_t rows_n_role(const nvfp4_kernel_metadata *meta, const nvfp4rt_group *G) {
  return is_swap(meta) ? G->m : G->n;
}

uint32_t nvfp4rt_group_tile_n(const nvfp4_kernel_metadata *meta, const nvfp4rt_group *G) {
  if (!meta || !G) return 0;
  if (!(meta->variant_flags & NVFP4_META_VFLAG_DYNAMIC_N) || meta->n_align == 0)
    return meta->tile_n;
  uint32_t rows = rows_n_role(meta, G);
  if (rows > meta->tile_n && (meta->variant_flags & NVFP4_META_VFLAG_BALANCED_N))
    rows = (uint32_t)ceil_div64(rows, ceil_div64(rows, meta->tile_n)); /* equal tiles */
  if (rows > meta->tile_n) return meta->tile_n;
  uint32_t n = (uint32_t)ceil_div64(rows ? rows : 1, meta->n_align) * meta->n_align;
  return n < meta->tile_n ? n : meta->tile_n;
}

/* Validates one group (no tiles for M == 0 or N == 0: nothing is read or written). */
static nvfp4rt_status validate_group(const nvfp4_kernel_metadata *meta, const nvfp4rt_group *G,
                                     uint32_t g) {
  if (G->m == 0 || G->n == 0) return NVFP4RT_STATUS_OK;
  if (G->k == 0) return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE, "group %u: K is 0", g);
  if (G->m > NVFP4_ABI_MAX_DIM || G->n > NVFP4_ABI_MAX_DIM || G->k > NVFP4_ABI_MAX_DIM)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_OVERFLOW,
                        "group %u: M = %u, N = %u, K = %u: each must be at most %u (the "
                        "kernel's tensor coordinates are signed 32-bit)",
                        g, G->m, G->n, G->k, NVFP4_ABI_MAX_DIM);
  if (G->k % meta->k_granule != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE,
                        "group %u: K = %u is not a multiple of the kernel's K granule %u", g,
                        G->k, meta->k_granule);
  char who[24];
  snprintf(who, sizeof who, "group %u", g);
  nvfp4rt_status cst = nvfp4rt_check_c_(meta, who, G->n, G->ldc, G->sfc, G->gs);
  if (cst != NVFP4RT_STATUS_OK) return cst;
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
  const uint32_t eb = nvfp4_meta_c_bytes(meta->c_type);
  if ((meta->epilogue_flags & NVFP4_META_EFLAG_ALPHA) && !G->alpha)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER,
                        "group %u: alpha pointer is null (kernel '%s' scales C by alpha)", g,
                        meta->kernel_name);
  if (!(meta->epilogue_flags & NVFP4_META_EFLAG_ALPHA) && G->alpha)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "group %u: alpha given but kernel '%s' was compiled without alpha", g,
                        meta->kernel_name);
  if (G->alpha % 4 != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                        "group %u: alpha pointer 0x%llx is not 4-byte aligned", g,
                        (unsigned long long)G->alpha);
  /* byte extents must fit 64-bit addressing from the base pointers */
  uint64_t c_elems = (uint64_t)(G->m - 1) * G->ldc + G->n;
  if ((uint64_t)G->m * G->ldc > (UINT64_MAX / 4) || c_elems > UINT64_MAX / 4 ||
      G->c > UINT64_MAX - c_elems * eb || G->a > UINT64_MAX - (uint64_t)G->m * (G->k / 2) ||
      G->b > UINT64_MAX - (uint64_t)G->n * (G->k / 2))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_OVERFLOW, "group %u: tensor extent overflows 64 bits", g);
  return NVFP4RT_STATUS_OK;
}

/* Table order: descending M — or, for BALANCED_N variants, descending work per tile
 * (tile_n * K) — ties in the caller's order (insertion sort: stable, and the group counts
 * that matter for host cost are small). */
static uint64_t sort_key(const nvfp4_kernel_metadata *meta, const nvfp4rt_group *G) {
  if (meta->variant_flags & NVFP4_META_VFLAG_BALANCED_N)
    return (uint64_t)nvfp4rt_group_tile_n(meta, G) * G->k;
  return G->m;
}
static void sort_by_m(const nvfp4_kernel_metadata *meta, const nvfp4rt_group *groups, uint32_t n,
                      uint32_t *order) {
  for (uint32_t i = 0; i < n; i++) {
    uint32_t g = i, j = i;
    while (j > 0 && sort_key(meta, &groups[order[j - 1]]) < sort_key(meta, &groups[g])) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = g;
  }
}

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
  if (meta->form != NVFP4_META_FORM_POINTER_ARRAY)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "plan: kernel '%s' is of the contiguous (MoE) form: plan it with "
                        "nvfp4rt_moe_plan_create", meta->kernel_name);
  for (uint32_t g = 0; g < num_groups; g++) {
    nvfp4rt_status st = validate_group(meta, &groups[g], g);
    if (st != NVFP4RT_STATUS_OK) return st;
  }
  if (!layout) return NVFP4RT_STATUS_OK;
  nvfp4rt_plan_layout *L = layout;
  L->num_groups = num_groups;
  sort_by_m(meta, groups, num_groups, L->order);
  uint64_t total = 0;
  for (uint32_t s = 0; s < num_groups; s++) {
    const uint32_t g = L->order[s];
    const nvfp4rt_group *G = &groups[g];
    L->tile_start[s] = (uint32_t)total;
    L->tiles_m[s] = L->tiles[s] = 0;
    L->tile_n[s] = nvfp4rt_group_tile_n(meta, G);
    if (G->m == 0 || G->n == 0) continue;
    uint64_t tm = ceil_div64(rows_m_role(meta, G), meta->tile_m);
    uint64_t tn = ceil_div64(rows_n_role(meta, G), L->tile_n[s]);
    uint64_t tiles = tm * tn;
    if (tiles > UINT32_MAX || total + tiles > UINT32_MAX)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_OVERFLOW, "group %u: tile count overflows 32 bits", g);
    L->tiles_m[s] = (uint32_t)tm;
    L->tiles[s] = (uint32_t)tiles;
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
  /* sm_90 has no 16U4 tensor maps, sm_12x kernels read UINT8 ones too (the FP4 bytes). */
  const int u8 = nvfp4rt_uint8_maps_(meta);
  /* Which side of the MMA the tensor feeds decides its box (KernelABI.h). */
  const int a_on_m = !is_swap(meta);
  const uint32_t n_rows = (meta->variant_flags & NVFP4_META_VFLAG_DYNAMIC_N)
                              ? nvfp4rt_group_tile_n(meta, G) / meta->cta_group
                              : meta->n_box_rows;
  switch (kind) {
  case NVFP4RT_TMAP_A:
  case NVFP4RT_TMAP_B: {
    const int is_a = kind == NVFP4RT_TMAP_A;
    o->global_address = is_a ? G->a : G->b;
    o->data_type = u8 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B;
    o->dims[0] = u8 ? G->k / 2 : G->k;
    o->dims[1] = is_a ? G->m : G->n;
    o->stride_bytes[0] = G->k / 2;
    o->box[0] = u8 ? 128 : 256;
    o->box[1] = is_a == a_on_m ? meta->m_box_rows : n_rows;
    o->swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    o->l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    break;
  }
  case NVFP4RT_TMAP_SFA:
  case NVFP4RT_TMAP_SFB: {
    const int is_a = kind == NVFP4RT_TMAP_SFA;
    uint64_t katoms = ceil_div64(G->k, 64);
    o->global_address = is_a ? G->sfa : G->sfb;
    o->data_type = CU_TENSOR_MAP_DATA_TYPE_INT64;
    o->dims[0] = katoms * 64;                            /* 64 int64 = one 512-B atom per 64 K */
    o->dims[1] = ceil_div64(is_a ? G->m : G->n, 128);    /* one row of atoms per 128 rows */
    o->stride_bytes[0] = katoms * 512;
    o->box[0] = 256;
    o->box[1] = is_a == a_on_m ? meta->sfm_atoms : meta->sfn_atoms;
    o->swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
    o->l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    break;
  }
  case NVFP4RT_TMAP_C: {
    if (meta->epilogue != NVFP4_META_EPILOGUE_TMA_STORE)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                          "tmap_args: variant '%s' stores C directly (no C map)",
                          meta->kernel_name);
    o->global_address = G->c;
    nvfp4rt_c_map_type_(meta->c_type, G->n, o);
    o->dims[1] = G->m;
    o->stride_bytes[0] = (uint64_t)G->ldc * nvfp4_meta_c_bytes(meta->c_type);
    o->box[1] = meta->store_box_rows;
    o->swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    o->l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
    break;
  }
  default:
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT, "tmap_args: unknown kind %d", (int)kind);
  }
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_check_c_(const nvfp4_kernel_metadata *meta, const char *who, uint32_t n,
                                uint32_t ldc, uint64_t sfc, uint64_t gs) {
  const int fused = (meta->epilogue_flags & NVFP4_META_EFLAG_SWIGLU_NVFP4) != 0;
  if (!fused) {
    if (ldc < n)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE, "%s: ldc = %u is smaller than N = %u", who,
                          ldc, n);
    const uint32_t eb = nvfp4_meta_c_bytes(meta->c_type);
    if (((uint64_t)ldc * eb) % 16 != 0)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                          "%s: C row pitch ldc*%u = %llu bytes is not a multiple of 16", who, eb,
                          (unsigned long long)ldc * eb);
    if (sfc || gs)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                          "%s: sfc / gs given but kernel '%s' has no fused SwiGLU epilogue", who,
                          meta->kernel_name);
    return NVFP4RT_STATUS_OK;
  }
  /* I = N/2 a multiple of 64; of 128 unless the kernel handles an up half that starts
   * inside a scale-factor atom */
  const uint32_t granule = meta->variant_flags & NVFP4_META_VFLAG_SWIGLU_MID_ATOM ? 128u : 256u;
  if (n % granule != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE,
                        "%s: N = %u gate/up rows: the fused SwiGLU kernel '%s' needs I = N/2 "
                        "to be a multiple of %u", who, n, meta->kernel_name, granule / 2);
  if (ldc < n / 2)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_BAD_SHAPE, "%s: ldc = %u is smaller than I = N/2 = %u",
                        who, ldc, n / 2);
  if (ldc % 32 != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                        "%s: FP4 C row pitch ldc/2 = %u.%u bytes is not a multiple of 16", who,
                        ldc / 2, ldc % 2 ? 5u : 0u);
  if (!sfc || !gs)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER,
                        "%s: %s pointer is null (kernel '%s' has the fused SwiGLU epilogue)", who,
                        sfc ? "gs" : "sfc", meta->kernel_name);
  if (sfc % 16 != 0 || gs % 4 != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                        "%s: sfc 0x%llx / gs 0x%llx pointer is not 16- / 4-byte aligned", who,
                        (unsigned long long)sfc, (unsigned long long)gs);
  return NVFP4RT_STATUS_OK;
}

void nvfp4rt_c_map_type_(uint32_t c_type, uint32_t n, nvfp4rt_tmap_args *o) {
  static const uint32_t types[3] = {CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                    CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                                    CU_TENSOR_MAP_DATA_TYPE_FLOAT32};
  const uint32_t eb = nvfp4_meta_c_bytes(c_type), chunk = 16 / eb;
  o->data_type = types[c_type <= NVFP4_META_C_F32 ? c_type : 0];
  /* whole 16-byte chunks only: a TMA store writes every byte of a chunk it touches, so
   * the kernel stores the last N mod chunk columns itself (0 columns: no map at all) */
  o->dims[0] = n & ~(chunk - 1);
  o->box[0] = 128 / eb; /* 128 bytes: one SWIZZLE_128B row */
}

static void put_u64(unsigned char *p, uint32_t off, uint64_t v) {
  nvfp4_meta_write_u32(p, off, (uint32_t)v);
  nvfp4_meta_write_u32(p, off + 4, (uint32_t)(v >> 32));
}

nvfp4rt_status nvfp4rt_param_pack(const nvfp4_kernel_metadata *meta,
                                  const nvfp4rt_group *groups, uint32_t num_groups,
                                  const nvfp4rt_plan_layout *L, uint64_t workspace,
                                  uint64_t workspace_bytes, uint64_t table_address, void *block,
                                  size_t block_bytes) {
  if (!meta || !groups || !L || !block)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "param_pack: NULL argument");
  /* the image size below comes from max_groups: it must be the ABI's, or the offsets wrap */
  if (meta->max_groups == 0 || meta->max_groups > NVFP4_ABI_MAX_GROUPS ||
      meta->param_bytes != NVFP4_ABI_PARAM_BYTES)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_ABI_MISMATCH,
                        "param_pack: metadata max_groups %u / param_bytes %u (need 1..%u groups "
                        "and param_bytes %u)", meta->max_groups, meta->param_bytes,
                        NVFP4_ABI_MAX_GROUPS, NVFP4_ABI_PARAM_BYTES);
  const size_t image = NVFP4_ABI_HEADER_BYTES + (size_t)nvfp4_abi_table_bytes(meta->max_groups);
  if (block_bytes < image || num_groups > meta->max_groups || num_groups != L->num_groups)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "param_pack: image of %zu bytes / %u groups (layout %u) for a %zu-byte, "
                        "%u-group ABI", block_bytes, num_groups, L->num_groups, image,
                        meta->max_groups);
  unsigned char *b = block;
  unsigned char *table = b + NVFP4_ABI_HEADER_BYTES;
  memset(b, 0, NVFP4_ABI_HEADER_BYTES);
  uint32_t rec0 = nvfp4_abi_record_offset(meta->max_groups, 0);
  memset(table + rec0, 0, (size_t)meta->max_groups * NVFP4_ABI_GROUP_RECORD_BYTES);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_ABI_VERSION, NVFP4_ABI_VERSION);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_NUM_GROUPS, num_groups);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_TOTAL_TILES, L->total_tiles);
  nvfp4_meta_write_u32(b, NVFP4_ABI_HDR_FLAGS, 0);
  put_u64(b, NVFP4_ABI_HDR_WORKSPACE, workspace);
  put_u64(b, NVFP4_ABI_HDR_WORKSPACE_BYTES, workspace_bytes);
  put_u64(b, NVFP4_ABI_HDR_TABLE, table_address);
  for (uint32_t s = 0; s < num_groups; s++) {
    unsigned char *r = table + nvfp4_abi_record_offset(meta->max_groups, s);
    if (L->order[s] >= num_groups)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT, "param_pack: layout order corrupt");
    const nvfp4rt_group *G = &groups[L->order[s]];
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_M, G->m);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_N, G->n);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_K, G->k);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_TILE_START, L->tile_start[s]);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_TILES_M, L->tiles[s] ? L->tiles_m[s] : 0);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_LDC, G->ldc);
    put_u64(r, NVFP4_ABI_GRP_C_PTR, G->c);
    nvfp4_meta_write_u32(r, NVFP4_ABI_GRP_TILE_N, L->tile_n[s]);
    put_u64(r, NVFP4_ABI_GRP_ALPHA_PTR, G->alpha);
    put_u64(r, NVFP4_ABI_GRP_SFC_PTR, G->sfc);
    put_u64(r, NVFP4_ABI_GRP_GS_PTR, G->gs);
  }
  return NVFP4RT_STATUS_OK;
}

uint32_t nvfp4rt_grid_size(const nvfp4_kernel_metadata *meta, uint32_t total_tiles,
                           uint32_t sm_count) {
  if (!meta || total_tiles == 0) return 0;
  uint32_t cx = meta->cluster[0];
  if (cx == 0 || cx > sm_count) return 0; /* no grid of whole clusters fits the device */
  /* stream-K: one CTA per SM, whatever the tile count (every CTA takes an equal share) */
  if (meta->variant_flags & NVFP4_META_VFLAG_STREAM_K) return sm_count / cx * cx;
  uint64_t want = (uint64_t)total_tiles * cx;
  uint64_t cap = (uint64_t)sm_count / cx * cx;
  return (uint32_t)(want < cap ? want : cap);
}

/* ---- the variant heuristic ------------------------------------------------------------ */

/* Device model: DRAM bandwidth, the shared-memory fill rate one SM sustains, and its FP4
 * block-scaled MMA rate (dense). sm_100: B200 (7.68 TB/s, 148 SMs, ~10 PFLOP/s FP4).
 * sm_90 emulation cubins (tcgen05 and mma.sync) are timed as if the MMA were free.
 * sm_120a / sm_121a / sm_120f kernels: an RTX PRO 6000 (a model; no such GPU was reached).
 *
 * Native sm_90a kernels: H200 (4.8 TB/s, 132 SMs), calibrated on the times measured there
 * (docs/performance.md, 2026-12-03: the six variants of the default family on B1..B4, 24
 * times; test/Runtime/sm90-plan.test holds them). A tile of W weights and T tokens costs
 * W (T + D) - S (W - 128) T token-row-weights at 5.0 TFLOP/s per SM, plus 1.2 us: its
 * weights are decoded once per tile whatever T, worth D = 48 token rows, and a token row is
 * decoded once per tile whatever W, so a 192-weight tile pays S = 0.87 of a token row's cost
 * at 128 weights once. D and S are the kernel's own (the planner's cost model, KernelConfig.h,
 * which also splits the stream-K work with them): the metadata record carries them
 * (cost_decode_rows, cost_token_share per mille). Tiles go to the CTAs in the kernel's
 * snake order; a launch costs a fixed 5.5 us (launch, pipeline fill, the last tiles' epilogues), a stream-K one 9 us
 * more (the partial sums, more tile starts per CTA). Fitted by least squares on the
 * logarithms: every modelled time within 4.5 % of the measured one (3 % rms), the fastest
 * variant chosen on each case; on the stream-K variants of the other widths, measured a
 * day earlier and not fitted, within -19 .. +16 %. A stream-K CTA also works 5 % slower
 * than a persistent one (its stage-granular loop, no snake order for the weights' reuse):
 * measured on DeepSeek-V3's MoE up-projection (256 groups, 22 to 43 tiles per CTA,
 * 2026-12-05), where swap_n128_m192_sk took 2497 us and 1834 us against swap_n128_m192's
 * 2314 us and 1676 us at 2048 and 512 tokens, while its balance wins only where each CTA
 * has few tiles (B1: 136.7 against 139.2 us). */
typedef struct device_model {
  double dram_bps, sm_bps, sm_flops, tile_overhead_s;
  uint32_t decode_rows; /* token rows the per-tile weight decode costs (the record's) */
  double token_share;   /* of a token row's cost at 128 weight rows, the part a wider
                           weight tile does not repeat (the record's) */
  double stream_k_fixup_s; /* the fixed cost of a stream-K launch (native sm_90a) */
  double stream_k_work;    /* a stream-K CTA's time per unit of work, relative to the
                              persistent schedule's (native sm_90a) */
  double launch_s;      /* the fixed cost of every launch (native sm_90a) */
  int snake;            /* tiles dealt in the kernel's snake order (native sm_90a) */
  /* sm_100a stream-K (and its timing proxy): the finishing CTA walks the other shares of
   * its split tile once per 32 accumulator columns, each step two dependent global loads
   * (the share's sums, then its stage end): sk_share_s per share and 32 columns; a stage
   * costs tile_n + sk_stage_rows in the split (the planner's streamKCost). 0: not modelled */
  double sk_share_s;
  uint32_t sk_stage_rows;
  double overlap_k; /* the part of the smaller of SM time and DRAM time that shows (proxy) */
} device_model;

/* A kernel generated for the sm_100 family: natively, or as the timing proxy of one. */
static int sm100_kernel(const nvfp4_kernel_metadata *m) {
  if (m->target_sm == 100 || m->target_sm == 103) return 1;
  return (m->flags & NVFP4_META_FLAG_PROXY) && !strncmp(m->source_target, "sm_10", 5);
}

static device_model model_for(const nvfp4_kernel_metadata *m, uint32_t sm_count) {
  device_model d = {0};
  d.tile_overhead_s = 0.5e-6;
  d.stream_k_work = 1.0;
  if (m->target_sm == 100 || m->target_sm == 103) {
    d.dram_bps = 7.68e12 * 0.85;
    d.sm_flops = 10.0e15 / 148.0;
  } else if (m->target_sm == 120 || m->target_sm == 121) {
    /* a model, not a measurement (no sm_12x GPU was reached; docs/kernel-sm120a.md): an RTX
     * PRO 6000 Blackwell, 1.79 TB/s of GDDR7 and 4096 FP4 FLOP per clock per SM (one
     * m16n8k64 block-scaled mma.sync per 4 clocks) at 2.6 GHz */
    d.dram_bps = 1.79e12 * 0.85;
    d.sm_flops = 4096.0 * 2.6e9;
  } else if (!(m->flags & (NVFP4_META_FLAG_EMULATION | NVFP4_META_FLAG_EMULATION_MMA_SYNC |
                           NVFP4_META_FLAG_PROXY))) {
    d.dram_bps = 4.8e12 * 0.85;
    d.sm_flops = 5.0e12;
    d.decode_rows = m->cost_decode_rows;
    d.token_share = m->cost_token_share / 1000.0;
    d.tile_overhead_s = 1.2e-6;
    d.stream_k_fixup_s = 9e-6;
    d.stream_k_work = 1.05;
    d.launch_s = 5.5e-6;
    d.snake = 1;
  } else {
    d.dram_bps = 4.8e12 * 0.85;
    d.sm_flops = 1e30;
  }
  if (m->flags & NVFP4_META_FLAG_PROXY) {
    /* The timing proxy (tcgen05 free) on the H100 that measured it (2026-12-06,
     * docs/performance.md "Small problems"): one 128 x 128 tile costs 5.57 us at K 256 and
     * 0.194 us per further 256-K stage of 36.9 KB, 190 GB/s into one SM, whatever K; the
     * intercept is the launch (launch, prologue, the epilogue's tail, the events). Where the
     * bytes bound the time (B1, B2) the variants' SM time still shows: 0.3 of it, which
     * orders B1's measured times (swap_n256 and ab_n128 60 us, swap_n128 69, ab_n64 79,
     * swap_n64 93) where a plain maximum ties them. */
    d.launch_s = 5.4e-6;
    d.sm_bps = 190e9;
    d.overlap_k = 0.3;
  }
  if ((m->variant_flags & NVFP4_META_VFLAG_STREAM_K) && sm100_kernel(m)) {
    /* Fitted on the timing proxy's figures (H100, 2026-12-06, docs/performance.md "Small
     * problems"): every _sk variant slower than its persistent twin on every case, by 1.7
     * us on one unsplit tile (the fixed cost below), 0.3-0.55 us per share and 32 columns
     * on split single tiles, and 1.45-1.7x on B1/B2, whose concurrent CTAs no longer share
     * the weight tiles in L2 (the work factor). Data movement only: what the split saves in
     * MMA time on a B200 is not in these figures. */
    d.stream_k_fixup_s = 2e-6;
    d.stream_k_work = 1.45;
    d.sk_share_s = 0.4e-6;
    d.sk_stage_rows = 128;
  }
  /* one SM fills its shared memory at about 2.5x its share of DRAM bandwidth */
  if (d.sm_bps == 0) d.sm_bps = 2.5 * d.dram_bps / (sm_count ? sm_count : 1);
  return d;
}

/* The CTA (cluster) that runs tile `i` of the schedule: round robin, or in the snake order
 * of the sm_90a kernels (pass p over the CTAs runs backwards when p is odd). */
static uint32_t tile_cta(uint64_t i, uint32_t clusters, int snake) {
  const uint64_t pass = i / clusters;
  const uint32_t c = (uint32_t)(i % clusters);
  return snake && (pass & 1u) ? clusters - 1u - c : c;
}

/* The stream-K reduction's longest walk: over the groups, (shares of a tile - 1) x its
 * 32-column steps, a tile's shares being the CTAs its stages' cost spans (each CTA takes
 * 1 / clusters of the total cost, a stage costs tile_n + stage_rows). */
static double sk_walk_steps(const nvfp4_kernel_metadata *m, const nvfp4rt_group *groups,
                            const nvfp4rt_plan_layout *L, uint32_t clusters, uint32_t stage_rows) {
  double total = 0;
  for (uint32_t s = 0; s < L->num_groups; s++) {
    const nvfp4rt_group *G = &groups[L->order[s]];
    total += (double)L->tiles[s] * ((G->k + m->tile_k - 1) / m->tile_k) * (L->tile_n[s] + stage_rows);
  }
  const double quota = total / (clusters ? clusters : 1);
  double worst = 0;
  for (uint32_t s = 0; s < L->num_groups && quota > 0; s++) {
    const nvfp4rt_group *G = &groups[L->order[s]];
    if (!L->tiles[s]) continue;
    const uint32_t stages = (G->k + m->tile_k - 1) / m->tile_k;
    double shares = ceil(stages * (double)(L->tile_n[s] + stage_rows) / quota) + 1.0;
    if (shares > stages) shares = stages;
    const double steps = (shares - 1.0) * ((L->tile_n[s] + 31) / 32);
    if (steps > worst) worst = steps;
  }
  return worst;
}

static double variant_cost_s(const nvfp4_kernel_metadata *m, const nvfp4rt_group *groups,
                             uint32_t n, uint32_t sm_count, nvfp4rt_plan_layout *L,
                             double *cta_time, uint32_t ctas) {
  const device_model d = model_for(m, sm_count);
  double dram_bytes = 0;
  for (uint32_t c = 0; c < ctas; c++) cta_time[c] = 0;
  const uint32_t clusters = ctas / m->cta_group;
  for (uint32_t s = 0; s < n; s++) {
    const nvfp4rt_group *G = &groups[L->order[s]];
    if (!L->tiles[s]) continue;
    const double row_bytes = G->k / 2.0 + G->k / 16.0; /* FP4 data + E4M3 scales */
    const uint32_t rows_m = rows_m_role(m, G), rows_n = rows_n_role(m, G);
    const uint32_t tiles_n = L->tiles[s] / L->tiles_m[s];
    /* every byte once, plus the M-role tensor again for each further N tile when it is
     * too large to stay in L2 between them (the N-role tile is shared by neighbours) */
    dram_bytes += ((double)G->m + G->n) * row_bytes +
                  (double)nvfp4_meta_c_bytes(m->c_type) * G->m * G->n;
    double m_bytes = (double)rows_m * row_bytes;
    if (m_bytes > 8e6) dram_bytes += (tiles_n - 1) * m_bytes;
    for (uint32_t t = 0; t < L->tiles[s]; t++) {
      uint32_t tm = t % L->tiles_m[s], tn = t / L->tiles_m[s];
      uint32_t rm = rows_m - tm * m->tile_m, rn = rows_n - tn * L->tile_n[s];
      if (rm > m->tile_m) rm = m->tile_m;
      if (rn > L->tile_n[s]) rn = L->tile_n[s];
      /* per CTA of the cluster: its share of both roles, and of the MMA */
      /* (the timing proxy's pairs hand each stage to the leader through a forwarding
       * arrive, nvfp4.pair_forward: measured 1.1-2.6x slower than the 1-CTA tile, 2026-12-01,
       * so a proxy pair's CTA is charged the whole pair tile's bytes) */
      const double share = (m->flags & NVFP4_META_FLAG_PROXY) ? 1.0 : m->cta_group;
      double bytes = ((double)rm + rn) * row_bytes / share;
      /* native sm_90a: token_share of a token row's cost at 128 weight rows is paid once
       * per tile whatever its weight rows (the token decode) */
      double rows = (double)m->tile_m * (L->tile_n[s] + d.decode_rows) -
                    d.token_share * ((double)m->tile_m - 128.0) * L->tile_n[s];
      double flops = 2.0 * rows * G->k / m->cta_group;
      double time = (bytes / d.sm_bps > flops / d.sm_flops ? bytes / d.sm_bps : flops / d.sm_flops) +
                    d.tile_overhead_s;
      cta_time[tile_cta((uint64_t)L->tile_start[s] + t, clusters, d.snake)] += time;
    }
  }
  double worst = 0;
  if (m->variant_flags & NVFP4_META_VFLAG_STREAM_K) {
    /* every CTA an equal share of all tiles' time, plus the fixed cost of the schedule
     * (split tiles' partial sums through the workspace, more tile starts per CTA) */
    double sum = 0;
    for (uint32_t c = 0; c < clusters; c++) sum += cta_time[c];
    worst = sum / clusters * d.stream_k_work + d.stream_k_fixup_s;
    if (d.sk_share_s > 0) worst += d.sk_share_s * sk_walk_steps(m, groups, L, clusters, d.sk_stage_rows);
  }
  for (uint32_t c = 0; !(m->variant_flags & NVFP4_META_VFLAG_STREAM_K) && c < clusters; c++)
    if (cta_time[c] > worst) worst = cta_time[c];
  worst += d.launch_s;
  double dram = dram_bytes / d.dram_bps;
  /* the busiest SM's time and the DRAM time overlap imperfectly: overlap_k of the smaller
   * shows through (0: they overlap fully) */
  return worst > dram ? worst + d.overlap_k * dram : dram + d.overlap_k * worst;
}

/* select_variant's scratch lives on the stack for devices of up to this many SMs (a re-plan
 * that changes shapes chooses again: it must not allocate). */
#define SELECT_STACK_SMS 1024u

int nvfp4rt_select_variant(const nvfp4rt_metadata_table *table, const nvfp4rt_group *groups,
                           uint32_t num_groups, uint32_t sm_count, double *cost_us) {
  if (!table || !groups) return -1;
  nvfp4rt_plan_layout layout;
  double cta_stack[SELECT_STACK_SMS];
  nvfp4rt_plan_layout *L = &layout;
  double *cta = sm_count <= SELECT_STACK_SMS ? cta_stack : malloc(sizeof(double) * sm_count);
  int best = -1;
  double best_cost = 0;
  for (uint32_t v = 0; v < table->count; v++) {
    const nvfp4_kernel_metadata *m = &table->variants[v];
    double c = -1;
    if (L && cta && nvfp4rt_plan_validate(m, groups, num_groups, L) == NVFP4RT_STATUS_OK) {
      uint32_t ctas = nvfp4rt_grid_size(m, L->total_tiles, sm_count);
      c = ctas ? variant_cost_s(m, groups, num_groups, sm_count, L, cta, ctas) * 1e6 : 0.0;
      if (best < 0 || c < best_cost) {
        best = (int)v;
        best_cost = c;
      }
    }
    if (cost_us) cost_us[v] = c;
  }
  if (cta != cta_stack) free(cta);
  return best;
}

/* ---- plans ----------------------------------------------------------------------- */

struct nvfp4rt_plan {
  nvfp4rt_module *mod;
  int forced_variant;     /* -1: chosen by the heuristic at every re-plan */
  uint32_t variant;
  unsigned char *block;   /* the live image: header (the parameter block) + group table */
  unsigned char *scratch; /* same size: the next image while re-planning */
  size_t block_alloc;
  uint32_t num_groups, grid;
  nvfp4rt_plan_layout *layout, *next_layout;
  /* The arguments each tensor-map slot was last encoded with (data_type UINT32_MAX: slot
   * empty); a slot is re-encoded only when its arguments change. */
  nvfp4rt_tmap_args *keys, *next_keys;
  uint64_t workspace, workspace_bytes;
  /* stream-K: the workspace layout (address, bytes per CTA) whose flags are known to be
   * zero; a launch with another layout zeroes the workspace first */
  uint64_t ws_zeroed, ws_zeroed_stride;
  nvfp4rt_table_cache_ *tables; /* the group table's device copies */
  int table_changed;      /* the image's table changed since the last launch */
  uint64_t tmaps_encoded, tmaps_replaced, templates_uploaded;
  nvfp4rt_tmap_update mode; /* never DEFAULT */
  nvfp4rt_group *last;    /* the groups of the last (re-)plan, caller order */
  /* KERNEL_PATCH: host images of the device templates (640 G bytes: current, next) and the
   * device area (templates, then every CTA's patched copies). */
  unsigned char *tmpl, *tmpl_next;
  uint64_t tmap_area, tmap_area_bytes;
  /* KERNEL_PATCH template uploads, never behind cuCtxSynchronize: `tmpl_src` (page-locked)
   * is the source of every upload, `tmpl_copied` recorded after the last stream-ordered one
   * (`tmpl_queued`: not yet known to have run); `tmpl_side` runs the synchronous ones into an
   * area no launch has read. `tmpl_pending`: the area lacks the current templates, which the
   * next launch copies. `area_launched` / `area_captured`: a launch / a captured launch read
   * the current area. Areas a graph may still read are retired, never rewritten, and freed
   * with the plan. */
  unsigned char *tmpl_src;
  CUevent tmpl_copied;
  CUstream tmpl_side;
  int tmpl_queued, tmpl_pending, area_launched, area_captured;
  uint64_t *retired;
  uint32_t nretired, capretired;
  CUlaunchConfig cfg;
  CUlaunchAttribute attrs[2];
  void *params[1];
  nvfp4rt_plan_extras_ extras; /* the PDL option (NVFP4RT_PDL_*), the activation dump */
  int uses_pdl;             /* the current launch configuration carries the attribute */
};

#define EMPTY_KEY UINT32_MAX

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
  static const char *const kn[5] = {"A", "B", "SFA", "SFB", "C"};
  char what[48];
  if (kind < 0 || kind > 4) snprintf(what, sizeof what, "tensor map");
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


/* cuTensorMapReplaceAddress on a cached map (64-B aligned slot of a plan image). */
static nvfp4rt_status replace_address(unsigned char *slot, uint64_t address, uint32_t g, int kind) {
  CUresult r = NVFP4RT_CU(cuTensorMapReplaceAddress)((CUtensorMap *)(void *)slot,
                                                     (void *)(uintptr_t)address);
  if (r != CUDA_SUCCESS) {
    static const char *const kn[5] = {"A", "B", "SFA", "SFB", "C"};
    return nvfp4rt_set_cu_error_(r, "cuTensorMapReplaceAddress", __FILE__, __LINE__,
                                 "group %u %s map, address 0x%llx", g,
                                 kind >= 0 && kind < 5 ? kn[kind] : "?",
                                 (unsigned long long)address);
  }
  return NVFP4RT_STATUS_OK;
}

const char *nvfp4rt_tmap_update_name(nvfp4rt_tmap_update mode) {
  switch (mode) {
  case NVFP4RT_TMAP_UPDATE_DEFAULT: return "default";
  case NVFP4RT_TMAP_UPDATE_ENCODE: return "encode";
  case NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS: return "replace-address";
  case NVFP4RT_TMAP_UPDATE_KERNEL_PATCH: return "kernel-patch";
  }
  return NULL;
}

/* The mode NVFP4RT_TMAP_UPDATE_DEFAULT stands for: replace-address (any kernel, no kernel
 * change) until the pending H200 measurement of docs/performance.md ("Whole-call host cost
 * with fresh pointers") says whether kernel-patch is faster end to end. */
static nvfp4rt_tmap_update default_tmap_update(int can_patch) {
  (void)can_patch;
  return NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS;
}

static size_t image_bytes(const nvfp4_kernel_metadata *meta) {
  return NVFP4_ABI_HEADER_BYTES + (size_t)nvfp4_abi_table_bytes(meta->max_groups);
}

/* Encodes the tensor maps of table slot s into the scratch image where their arguments
 * changed. */
static nvfp4rt_status encode_slot(nvfp4rt_plan *p, const nvfp4_kernel_metadata *meta,
                                  const nvfp4rt_group *G, uint32_t g, uint32_t s) {
  unsigned char *slots = p->scratch + NVFP4_ABI_HEADER_BYTES + nvfp4_abi_tmaps_offset(s);
  nvfp4rt_tmap_args *keys = p->next_keys + (size_t)s * NVFP4_ABI_GROUP_TMAPS;
  for (uint32_t t = 0; t < NVFP4_ABI_GROUP_TMAPS; t++) {
    unsigned char *slot = slots + NVFP4_ABI_TMAP_BYTES * t;
    if (t == NVFP4RT_TMAP_C && meta->epilogue != NVFP4_META_EPILOGUE_TMA_STORE) {
      if (keys[t].data_type != EMPTY_KEY) memset(slot, 0, NVFP4_ABI_TMAP_BYTES);
      keys[t].data_type = EMPTY_KEY;
      continue;
    }
    nvfp4rt_tmap_args a;
    nvfp4rt_status st = nvfp4rt_tmap_args_for(meta, G, (nvfp4rt_tmap_kind)t, &a);
    if (st != NVFP4RT_STATUS_OK) return st;
    if (a.dims[0] == 0) { /* C narrower than one 16-byte chunk: the kernel stores it all */
      if (keys[t].data_type != EMPTY_KEY) memset(slot, 0, NVFP4_ABI_TMAP_BYTES);
      keys[t].data_type = EMPTY_KEY;
      continue;
    }
    if (p->mode == NVFP4RT_TMAP_UPDATE_KERNEL_PATCH) {
      /* a template: its address does not matter (the kernel replaces it) */
      nvfp4rt_tmap_args k = a;
      k.global_address = 0;
      if (memcmp(&k, &keys[t], sizeof k) == 0) continue;
      st = encode_args(&a, g, (int)t, slot);
      if (st != NVFP4RT_STATUS_OK) return st;
      keys[t] = k;
      p->tmaps_encoded++;
      continue;
    }
    if (memcmp(&a, &keys[t], sizeof a) == 0) continue;
    if (p->mode == NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS && keys[t].data_type != EMPTY_KEY) {
      nvfp4rt_tmap_args k = a;
      k.global_address = keys[t].global_address;
      if (memcmp(&k, &keys[t], sizeof k) == 0) { /* only the address changed */
        st = replace_address(slot, a.global_address, g, (int)t);
        if (st != NVFP4RT_STATUS_OK) return st;
        keys[t] = a;
        p->tmaps_replaced++;
        continue;
      }
    }
    st = encode_args(&a, g, (int)t, slot);
    if (st != NVFP4RT_STATUS_OK) return st;
    keys[t] = a;
    p->tmaps_encoded++;
  }
  return NVFP4RT_STATUS_OK;
}

/* The same count and shapes as the last (re-)plan: only pointers may differ. */
static int same_shapes(const nvfp4rt_plan *p, const nvfp4rt_group *groups, uint32_t n) {
  if (n != p->num_groups) return 0;
  for (uint32_t g = 0; g < n; g++) {
    const nvfp4rt_group *a = &groups[g], *b = &p->last[g];
    if (a->m != b->m || a->n != b->n || a->k != b->k || a->ldc != b->ldc) return 0;
  }
  return 1;
}

/* Device address of tensor `t` (NVFP4RT_TMAP_*) of a group. */
static uint64_t tensor_address(const nvfp4rt_group *G, uint32_t t) {
  const uint64_t a[NVFP4_ABI_GROUP_TMAPS] = {G->a, G->b, G->sfa, G->sfb, G->c};
  return a[t];
}

/* KERNEL_PATCH: the tensor-map slots of the parameter image hold raw addresses (the first
 * 8 bytes of each slot whose map exists; everything else zero). */
static void write_raw_addresses(const nvfp4rt_group *groups, const nvfp4rt_plan_layout *L,
                                const nvfp4rt_tmap_args *keys, unsigned char *maps,
                                size_t maps_bytes) {
  memset(maps, 0, maps_bytes);
  for (uint32_t s = 0; s < L->num_groups; s++) {
    if (!L->tiles[s]) continue;
    for (uint32_t t = 0; t < NVFP4_ABI_GROUP_TMAPS; t++)
      if (keys[(size_t)s * NVFP4_ABI_GROUP_TMAPS + t].data_type != EMPTY_KEY)
        put_u64(maps + nvfp4_abi_tmaps_offset(s), NVFP4_ABI_TMAP_BYTES * t,
                tensor_address(&groups[L->order[s]], t));
  }
}

/* KERNEL_PATCH: room for one more retired area (before anything is changed). */
static nvfp4rt_status reserve_retired(nvfp4rt_plan *p) {
  if (p->nretired < p->capretired) return NVFP4RT_STATUS_OK;
  const uint32_t cap = p->capretired ? 2 * p->capretired : 4;
  uint64_t *grown = realloc(p->retired, sizeof *grown * cap);
  if (!grown) return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "plan: malloc failed");
  p->retired = grown;
  p->capretired = cap;
  return NVFP4RT_STATUS_OK;
}

/* KERNEL_PATCH: waits until the last stream-ordered template upload has run (its source,
 * tmpl_src, is about to be rewritten). */
static nvfp4rt_status wait_templates_source(nvfp4rt_plan *p) {
  return nvfp4rt_wait_upload_(p->tmpl_copied, &p->tmpl_queued,
                              "waiting for an earlier tensor-map template upload");
}

/* KERNEL_PATCH: copies the templates of slots 0..n-1 of `tmpl` into `area` now, on the
 * plan's own stream, and waits for the copy: for an area no launch has read (a new plan's,
 * or a new one), so nothing can be reading what it overwrites. The kernel reads the
 * templates of slots below the header's group count only. */
static nvfp4rt_status upload_templates_now(nvfp4rt_plan *p, uint64_t area,
                                           const unsigned char *tmpl, uint32_t n) {
  nvfp4rt_status st = wait_templates_source(p);
  if (st != NVFP4RT_STATUS_OK) return st;
  const size_t bytes = (size_t)NVFP4_ABI_GROUP_TMAPS_BYTES * n;
  memcpy(p->tmpl_src, tmpl, bytes);
  const char *call = "cuMemcpyHtoDAsync";
  CUresult r = NVFP4RT_CU(cuMemcpyHtoDAsync)((CUdeviceptr)area, p->tmpl_src, bytes, p->tmpl_side);
  if (r == CUDA_SUCCESS) r = NVFP4RT_CU(cuStreamSynchronize)(p->tmpl_side), call = "cuStreamSynchronize";
  if (r != CUDA_SUCCESS)
    return nvfp4rt_set_cu_error_(r, call, __FILE__, __LINE__, "tensor-map templates of %u groups",
                                 n);
  p->templates_uploaded++;
  return NVFP4RT_STATUS_OK;
}

/* KERNEL_PATCH, a launch on `stream`: brings the area's templates up to date before the
 * kernel. Outside capture the pending templates are copied on `stream` (ordered after the
 * plan's earlier launches, which may still read the ones they overwrite, and before this
 * kernel). A captured launch must not leave a copy in the graph (each replay would pay for
 * it) nor overwrite an area earlier launches may still read: with templates pending it
 * moves to a new area, uploaded now (the thread's capture mode relaxed for the
 * allocation, as the table cache's kept copies), and the old one is retired. Either way the
 * area a captured launch read is never rewritten: the next template change moves on. */
static nvfp4rt_status launch_templates(nvfp4rt_plan *p, CUstream stream) {
  CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult r = NVFP4RT_CU(cuStreamIsCapturing)(stream, &cs);
  if (r != CUDA_SUCCESS)
    return nvfp4rt_set_cu_error_(r, "cuStreamIsCapturing", __FILE__, __LINE__, "%s",
                                 "kernel-patch launch");
  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  if (cs != CU_STREAM_CAPTURE_STATUS_NONE) {
    if (p->tmpl_pending) {
      if ((st = reserve_retired(p)) != NVFP4RT_STATUS_OK) return st;
      CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
      r = NVFP4RT_CU(cuThreadExchangeStreamCaptureMode)(&mode);
      if (r != CUDA_SUCCESS)
        return nvfp4rt_set_cu_error_(r, "cuThreadExchangeStreamCaptureMode", __FILE__, __LINE__,
                                     "%s", "kernel-patch templates for a captured launch");
      CUdeviceptr d = 0;
      r = NVFP4RT_CU(cuMemAlloc)(&d, (size_t)p->tmap_area_bytes);
      if (r == CUDA_SUCCESS) st = upload_templates_now(p, d, p->tmpl, p->num_groups);
      NVFP4RT_CU(cuThreadExchangeStreamCaptureMode)(&mode); /* the caller's mode again */
      if (r != CUDA_SUCCESS)
        return nvfp4rt_set_cu_error_(r, "cuMemAlloc", __FILE__, __LINE__,
                                     "tensor-map area of %llu bytes for a captured launch",
                                     (unsigned long long)p->tmap_area_bytes);
      if (st != NVFP4RT_STATUS_OK) {
        NVFP4RT_CU(cuMemFree)(d);
        return st;
      }
      p->retired[p->nretired++] = p->tmap_area;
      p->tmap_area = d;
      put_u64(p->block, NVFP4_ABI_HDR_TMAP_AREA, d);
      p->tmpl_pending = 0;
    }
    p->area_captured = 1;
  } else if (p->tmpl_pending) {
    if ((st = wait_templates_source(p)) != NVFP4RT_STATUS_OK) return st;
    const size_t bytes = (size_t)NVFP4_ABI_GROUP_TMAPS_BYTES * p->num_groups;
    memcpy(p->tmpl_src, p->tmpl, bytes);
    r = NVFP4RT_CU(cuMemcpyHtoDAsync)((CUdeviceptr)p->tmap_area, p->tmpl_src, bytes, stream);
    if (r != CUDA_SUCCESS)
      return nvfp4rt_set_cu_error_(r, "cuMemcpyHtoDAsync", __FILE__, __LINE__,
                                   "tensor-map templates of %u groups", p->num_groups);
    r = NVFP4RT_CU(cuEventRecord)(p->tmpl_copied, stream);
    if (r != CUDA_SUCCESS) {
      NVFP4RT_CU(cuStreamSynchronize)(stream); /* the source may be rewritten at once */
      return nvfp4rt_set_cu_error_(r, "cuEventRecord", __FILE__, __LINE__, "%s",
                                   "after a tensor-map template upload");
    }
    p->tmpl_queued = 1;
    p->tmpl_pending = 0;
    p->templates_uploaded++;
  }
  p->area_launched = 1;
  return NVFP4RT_STATUS_OK;
}

/* Builds the next image in p->scratch (variant, layout, tensor maps, records); commits
 * it on success, else leaves the plan as it was. */
static nvfp4rt_status replan(nvfp4rt_plan *p, const nvfp4rt_group *groups, uint32_t n) {
  const nvfp4rt_metadata_table *table = &p->mod->table;
  const uint32_t sms = (uint32_t)p->mod->ctx->info.sm_count;
  if (!groups) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan: groups array is NULL");
  int v = p->forced_variant;
  /* the choice depends on the shapes alone: unchanged shapes keep it */
  if (v < 0) v = same_shapes(p, groups, n) ? (int)p->variant
                                           : nvfp4rt_select_variant(table, groups, n, sms, NULL);
  const nvfp4_kernel_metadata *meta = &table->variants[v < 0 ? 0 : v];
  nvfp4rt_plan_layout *L = p->next_layout;
  nvfp4rt_status st = nvfp4rt_plan_validate(meta, groups, n, L);
  if (st != NVFP4RT_STATUS_OK) return st; /* no variant can run it: variant 0's reason */
  const uint32_t grid = nvfp4rt_grid_size(meta, L->total_tiles, sms);
  if (grid == 0 && L->total_tiles != 0) /* never a silent no-op launch */
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                        "plan: kernel '%s' needs clusters of %u CTAs, the device has %u SMs",
                        meta->kernel_name, meta->cluster[0], sms);
  /* workspace: once per plan, grown (never per launch) if a re-plan needs a larger grid */
  uint64_t ws = p->workspace, ws_bytes = p->workspace_bytes, new_ws = 0;
  if ((meta->flags & NVFP4_META_FLAG_EMULATION) ||
      (meta->variant_flags & NVFP4_META_VFLAG_STREAM_K)) {
    uint64_t need = (uint64_t)meta->workspace_per_cta * grid;
    if (need > ws_bytes) {
      nvfp4rt_status cst = nvfp4rt_ensure_current_(p->mod->ctx);
      if (cst != NVFP4RT_STATUS_OK) return cst;
      CUdeviceptr d = 0;
      CUresult r = NVFP4RT_CU(cuMemAlloc)(&d, (size_t)need);
      if (r != CUDA_SUCCESS)
        return nvfp4rt_set_cu_error_(r, "cuMemAlloc", __FILE__, __LINE__,
                                     "%s workspace of %llu bytes",
                                     (meta->flags & NVFP4_META_FLAG_EMULATION) ? "emulation"
                                                                               : "stream-K",
                                     (unsigned long long)need);
      new_ws = d;
      ws = d;
      ws_bytes = need;
    }
  }
  const size_t keys_bytes =
      sizeof(nvfp4rt_tmap_args) * NVFP4_ABI_GROUP_TMAPS * meta->max_groups;
  memcpy(p->next_keys, p->keys, keys_bytes);
  memcpy(p->scratch, p->block, p->block_alloc);
  const int patch = p->mode == NVFP4RT_TMAP_UPDATE_KERNEL_PATCH;
  const size_t maps_bytes = (size_t)NVFP4_ABI_GROUP_TMAPS_BYTES * meta->max_groups;
  unsigned char *maps = p->scratch + NVFP4_ABI_HEADER_BYTES;
  if (patch) memcpy(maps, p->tmpl, maps_bytes); /* the cached templates, not raw pointers */
  uint64_t encoded_before = p->tmaps_encoded, replaced_before = p->tmaps_replaced;
  for (uint32_t s = 0; s < meta->max_groups; s++) {
    if (s >= n || L->tiles[s] == 0) { /* unused or empty group: zero slots */
      nvfp4rt_tmap_args *keys = p->next_keys + (size_t)s * NVFP4_ABI_GROUP_TMAPS;
      for (uint32_t t = 0; t < NVFP4_ABI_GROUP_TMAPS; t++) {
        if (keys[t].data_type != EMPTY_KEY)
          memset(p->scratch + NVFP4_ABI_HEADER_BYTES + nvfp4_abi_tmaps_offset(s) +
                     NVFP4_ABI_TMAP_BYTES * t, 0, NVFP4_ABI_TMAP_BYTES);
        keys[t].data_type = EMPTY_KEY;
      }
      continue;
    }
    st = encode_slot(p, meta, &groups[L->order[s]], L->order[s], s);
    if (st != NVFP4RT_STATUS_OK) break;
  }
  int upload = 0;
  if (st == NVFP4RT_STATUS_OK && patch) {
    /* the templates go to the device; the parameter block gets the raw addresses */
    memcpy(p->tmpl_next, maps, maps_bytes);
    upload = p->templates_uploaded == 0 || memcmp(p->tmpl_next, p->tmpl, maps_bytes) != 0;
    write_raw_addresses(groups, L, p->next_keys, maps, maps_bytes);
  }
  if (st == NVFP4RT_STATUS_OK)
    st = nvfp4rt_param_pack(meta, groups, n, L, ws, ws_bytes, 0, p->scratch, p->block_alloc);
  if (st == NVFP4RT_STATUS_OK) nvfp4rt_plan_extras_write_(&p->extras, p->scratch);
  /* New templates (a shape changed), never behind a synchronisation: into the area now if
   * no launch has read it; into a new area now if a captured launch read it (a graph may
   * replay that one: it is retired, never rewritten); else by the next launch, on its
   * stream (launch_templates). */
  uint64_t area = p->tmap_area, new_area = 0;
  int defer = 0;
  if (st == NVFP4RT_STATUS_OK && upload) {
    if (!p->area_launched) {
      st = upload_templates_now(p, area, p->tmpl_next, n);
    } else if (p->area_captured) {
      st = reserve_retired(p);
      CUdeviceptr d = 0;
      CUresult r = st == NVFP4RT_STATUS_OK ? NVFP4RT_CU(cuMemAlloc)(&d, (size_t)p->tmap_area_bytes)
                                           : CUDA_SUCCESS;
      if (r != CUDA_SUCCESS)
        st = nvfp4rt_set_cu_error_(r, "cuMemAlloc", __FILE__, __LINE__,
                                   "tensor-map area of %llu bytes",
                                   (unsigned long long)p->tmap_area_bytes);
      if (st == NVFP4RT_STATUS_OK) {
        new_area = area = d;
        st = upload_templates_now(p, area, p->tmpl_next, n);
      }
    } else {
      defer = 1;
    }
  }
  if (st == NVFP4RT_STATUS_OK && patch) {
    nvfp4_meta_write_u32(p->scratch, NVFP4_ABI_HDR_FLAGS, NVFP4_ABI_FLAG_PATCH_TMAPS);
    put_u64(p->scratch, NVFP4_ABI_HDR_TMAP_AREA, area);
  }
  if (st != NVFP4RT_STATUS_OK) {
    if (new_area) NVFP4RT_CU(cuMemFree)((CUdeviceptr)new_area);
    if (new_ws) NVFP4RT_CU(cuMemFree)((CUdeviceptr)new_ws);
    p->tmaps_encoded = encoded_before;
    p->tmaps_replaced = replaced_before;
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
      if (new_area) NVFP4RT_CU(cuMemFree)((CUdeviceptr)new_area);
      /* templates uploaded into the kept area are not the plan's: the next launch puts the
       * plan's back */
      if (upload && !defer && !new_area) p->tmpl_pending = 1;
      return nvfp4rt_set_cu_error_(r, "cuCtxSynchronize", __FILE__, __LINE__,
                                   "%s", "before freeing the outgrown workspace");
    }
    NVFP4RT_CU(cuMemFree)((CUdeviceptr)p->workspace);
  }
  p->workspace = ws;
  p->workspace_bytes = ws_bytes;
  unsigned char *t = p->block;
  p->block = p->scratch;
  p->scratch = t;
  nvfp4rt_tmap_args *k = p->keys;
  p->keys = p->next_keys;
  p->next_keys = k;
  nvfp4rt_plan_layout *l = p->layout;
  p->layout = p->next_layout;
  p->next_layout = l;
  if (patch) {
    unsigned char *tm = p->tmpl;
    p->tmpl = p->tmpl_next;
    p->tmpl_next = tm;
    if (upload) p->tmpl_pending = defer;
    if (new_area) {
      p->retired[p->nretired++] = p->tmap_area;
      p->tmap_area = new_area;
      p->area_launched = p->area_captured = 0;
    }
  }
  memcpy(p->last, groups, sizeof *groups * n);
  p->table_changed = 1; /* the launch finds or uploads its device copy (HDR_TABLE) */
  p->num_groups = n;
  p->grid = grid;
  p->variant = (uint32_t)(v < 0 ? 0 : v);
  p->cfg.gridDimX = grid;
  p->cfg.blockDimX = meta->block[0];
  p->cfg.blockDimY = meta->block[1];
  p->cfg.blockDimZ = meta->block[2];
  p->cfg.sharedMemBytes = meta->dyn_smem_bytes;
  p->uses_pdl = nvfp4rt_launch_attrs_(&p->cfg, p->attrs, p->mod, meta, p->extras.pdl);
  p->params[0] = p->block;
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_plan_create_ex(nvfp4rt_module *mod, const nvfp4rt_group *groups,
                                      uint32_t num_groups, const nvfp4rt_plan_options *options,
                                      nvfp4rt_plan **out) {
  if (!out) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan_create: out is NULL");
  *out = NULL;
  if (!mod) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan_create: module is NULL");
  const nvfp4rt_metadata_table *table = &mod->table;
  int forced = options ? options->variant : -1;
  if (forced < -1 || forced >= (int)table->count)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "plan_create: variant %d, the cubin has %u (0..%u)", forced, table->count,
                        table->count - 1);
  /* validate before allocating anything (the flags are the same in every variant) */
  const nvfp4_kernel_metadata *meta = &table->variants[forced < 0 ? 0 : forced];
  nvfp4rt_plan_extras_ extras;
  nvfp4rt_status st = nvfp4rt_plan_options_check_(options, "plan_create", meta, &extras);
  if (st != NVFP4RT_STATUS_OK) return st;
  st = nvfp4rt_plan_validate(meta, groups, num_groups, NULL);
  if (st != NVFP4RT_STATUS_OK) return st;
  /* the tensor-map update mode (the kernel flags are the same in every variant) */
  nvfp4rt_tmap_update mode = options ? options->tmap_update : NVFP4RT_TMAP_UPDATE_DEFAULT;
  const int can_patch = (meta->flags & NVFP4_META_FLAG_PATCH_TMAPS) != 0;
  if (!nvfp4rt_tmap_update_name(mode))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT, "plan_create: tensor-map update mode %d",
                        (int)mode);
  if (mode == NVFP4RT_TMAP_UPDATE_KERNEL_PATCH && !can_patch)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_UNSUPPORTED,
                        "plan_create: kernel '%s' cannot patch its tensor maps (no "
                        "NVFP4_META_FLAG_PATCH_TMAPS: built without nvfp4.patch_tmaps)",
                        meta->kernel_name);
  if (mode == NVFP4RT_TMAP_UPDATE_DEFAULT) mode = default_tmap_update(can_patch);
  nvfp4rt_plan *p = calloc(1, sizeof *p);
  if (!p) return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "plan_create: malloc failed");
  p->mod = mod;
  p->forced_variant = forced;
  p->mode = mode;
  p->block_alloc = (image_bytes(meta) + NVFP4_ABI_PARAM_ALIGN - 1) / NVFP4_ABI_PARAM_ALIGN *
                   NVFP4_ABI_PARAM_ALIGN;
  const size_t nkeys = (size_t)NVFP4_ABI_GROUP_TMAPS * meta->max_groups;
  p->block = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, p->block_alloc);
  p->scratch = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, p->block_alloc);
  p->layout = malloc(sizeof *p->layout);
  p->next_layout = malloc(sizeof *p->next_layout);
  p->keys = calloc(nkeys, sizeof *p->keys);
  p->next_keys = calloc(nkeys, sizeof *p->next_keys);
  p->last = calloc(meta->max_groups, sizeof *p->last);
  const size_t maps_bytes = (size_t)NVFP4_ABI_GROUP_TMAPS_BYTES * meta->max_groups;
  if (mode == NVFP4RT_TMAP_UPDATE_KERNEL_PATCH) {
    p->tmpl = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, maps_bytes);
    p->tmpl_next = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, maps_bytes);
    if (p->tmpl) memset(p->tmpl, 0, maps_bytes);
    if (p->tmpl_next) memset(p->tmpl_next, 0, maps_bytes);
  }
  if (!p->block || !p->scratch || !p->layout || !p->next_layout || !p->keys || !p->next_keys ||
      !p->last || (mode == NVFP4RT_TMAP_UPDATE_KERNEL_PATCH && (!p->tmpl || !p->tmpl_next))) {
    nvfp4rt_plan_destroy(p);
    return NVFP4RT_FAIL(NVFP4RT_STATUS_OUT_OF_MEMORY, "plan_create: allocation failed");
  }
  memset(p->block, 0, p->block_alloc);
  memset(p->scratch, 0, p->block_alloc);
  for (size_t i = 0; i < nkeys; i++) p->keys[i].data_type = p->next_keys[i].data_type = EMPTY_KEY;
  st = nvfp4rt_ensure_current_(mod->ctx);
  if (st == NVFP4RT_STATUS_OK)
    st = nvfp4rt_table_cache_create_(extras.table_cache, nvfp4_abi_table_bytes(meta->max_groups),
                                     &p->tables);
  if (st != NVFP4RT_STATUS_OK) {
    nvfp4rt_plan_destroy(p);
    return st;
  }
  if (mode == NVFP4RT_TMAP_UPDATE_KERNEL_PATCH) {
    /* the templates, then one copy per CTA (the grid never exceeds the SM count); the
     * context is current (above) */
    const uint64_t bytes = (uint64_t)maps_bytes * (1u + (uint32_t)mod->ctx->info.sm_count);
    CUdeviceptr d = 0;
    CUresult r = NVFP4RT_CU(cuMemAlloc)(&d, (size_t)bytes);
    if (r != CUDA_SUCCESS) {
      nvfp4rt_plan_destroy(p);
      return nvfp4rt_set_cu_error_(r, "cuMemAlloc", __FILE__, __LINE__,
                                   "tensor-map area of %llu bytes", (unsigned long long)bytes);
    }
    p->tmap_area = d;
    p->tmap_area_bytes = bytes;
    /* the uploads' page-locked source, its event and the plan's own stream */
    void *src = NULL;
    const char *call = "cuMemHostAlloc";
    r = NVFP4RT_CU(cuMemHostAlloc)(&src, maps_bytes, 0);
    p->tmpl_src = src;
    if (r == CUDA_SUCCESS)
      r = NVFP4RT_CU(cuEventCreate)(&p->tmpl_copied, CU_EVENT_DISABLE_TIMING), call = "cuEventCreate";
    if (r == CUDA_SUCCESS)
      r = NVFP4RT_CU(cuStreamCreate)(&p->tmpl_side, CU_STREAM_NON_BLOCKING), call = "cuStreamCreate";
    if (r != CUDA_SUCCESS) {
      nvfp4rt_plan_destroy(p);
      return nvfp4rt_set_cu_error_(r, call, __FILE__, __LINE__, "%s",
                                   "kernel-patch template uploads");
    }
  }
  p->cfg.gridDimY = p->cfg.gridDimZ = 1;
  p->cfg.attrs = p->attrs;
  p->extras = extras;
  st = replan(p, groups, num_groups);
  if (st != NVFP4RT_STATUS_OK) {
    nvfp4rt_plan_destroy(p);
    return st;
  }
  *out = p;
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_plan_create(nvfp4rt_module *mod, const nvfp4rt_group *groups,
                                   uint32_t num_groups, nvfp4rt_plan **out) {
  return nvfp4rt_plan_create_ex(mod, groups, num_groups, NULL, out);
}

/* The fast path of a pointers-only re-plan (REPLACE_ADDRESS, KERNEL_PATCH): the variant,
 * layout, maps' shapes and records stay; each changed address is replaced in the live
 * image, the C pointers in the records. No allocation, no encode. On failure the plan is
 * left as it was. */
static nvfp4rt_status update_addresses(nvfp4rt_plan *p, const nvfp4rt_group *groups,
                                       uint32_t n) {
  const nvfp4_kernel_metadata *meta = &p->mod->table.variants[p->variant];
  const nvfp4rt_plan_layout *L = p->layout;
  for (uint32_t g = 0; g < n; g++) {
    nvfp4rt_status st = validate_group(meta, &groups[g], g);
    if (st != NVFP4RT_STATUS_OK) return st;
  }
  unsigned char *table = p->block + NVFP4_ABI_HEADER_BYTES;
  const int patch = p->mode == NVFP4RT_TMAP_UPDATE_KERNEL_PATCH;
  for (uint32_t s = 0; s < n; s++) {
    if (!L->tiles[s]) continue;
    const nvfp4rt_group *G = &groups[L->order[s]];
    unsigned char *slots = table + nvfp4_abi_tmaps_offset(s);
    nvfp4rt_tmap_args *keys = p->keys + (size_t)s * NVFP4_ABI_GROUP_TMAPS;
    for (uint32_t t = 0; t < NVFP4_ABI_GROUP_TMAPS; t++) {
      if (keys[t].data_type == EMPTY_KEY) continue;
      const uint64_t addr = tensor_address(G, t);
      if (patch) {
        put_u64(slots, NVFP4_ABI_TMAP_BYTES * t, addr);
        continue;
      }
      if (keys[t].global_address == addr) continue;
      nvfp4rt_status st = replace_address(slots + NVFP4_ABI_TMAP_BYTES * t, addr, L->order[s], (int)t);
      if (st != NVFP4RT_STATUS_OK) {
        /* put back the addresses replaced so far (the keys still hold them) */
        for (uint32_t s2 = 0; s2 <= s; s2++) {
          if (!L->tiles[s2]) continue;
          const nvfp4rt_group *G2 = &groups[L->order[s2]];
          const nvfp4rt_tmap_args *k2 = p->keys + (size_t)s2 * NVFP4_ABI_GROUP_TMAPS;
          for (uint32_t t2 = 0; t2 < (s2 == s ? t : NVFP4_ABI_GROUP_TMAPS); t2++)
            if (k2[t2].data_type != EMPTY_KEY && k2[t2].global_address != tensor_address(G2, t2))
              replace_address(table + nvfp4_abi_tmaps_offset(s2) + NVFP4_ABI_TMAP_BYTES * t2,
                              k2[t2].global_address, L->order[s2], (int)t2);
        }
        return st;
      }
      p->tmaps_replaced++;
    }
  }
  /* committed: the keys, the records' C pointers, the groups */
  p->table_changed = 1;
  for (uint32_t s = 0; s < n; s++) {
    const nvfp4rt_group *G = &groups[L->order[s]];
    put_u64(table + nvfp4_abi_record_offset(meta->max_groups, s), NVFP4_ABI_GRP_C_PTR, G->c);
    if (!L->tiles[s] || patch) continue;
    nvfp4rt_tmap_args *keys = p->keys + (size_t)s * NVFP4_ABI_GROUP_TMAPS;
    for (uint32_t t = 0; t < NVFP4_ABI_GROUP_TMAPS; t++)
      if (keys[t].data_type != EMPTY_KEY) keys[t].global_address = tensor_address(G, t);
  }
  memcpy(p->last, groups, sizeof *groups * n);
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status nvfp4rt_plan_update_pointers(nvfp4rt_plan *plan, const nvfp4rt_group *groups,
                                            uint32_t num_groups) {
  if (!plan) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan_update: plan is NULL");
  if (groups && plan->mode != NVFP4RT_TMAP_UPDATE_ENCODE && same_shapes(plan, groups, num_groups))
    return update_addresses(plan, groups, num_groups);
  return replan(plan, groups, num_groups);
}

nvfp4rt_status nvfp4rt_plan_launch(nvfp4rt_plan *p, void *stream) {
  if (!p) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan_launch: plan is NULL");
  if (p->grid == 0) return NVFP4RT_STATUS_OK; /* every group empty: nothing to do */
  nvfp4rt_status cst = nvfp4rt_ensure_current_(p->mod->ctx);
  if (cst != NVFP4RT_STATUS_OK) return cst;
  /* Stream-K: the kernel returns every flag it uses to zero, so the workspace is zeroed
   * (in stream order) only when its layout is new: a new allocation or another variant's
   * slot size. */
  const nvfp4_kernel_metadata *meta = &p->mod->table.variants[p->variant];
  if ((meta->variant_flags & NVFP4_META_VFLAG_STREAM_K) &&
      (p->ws_zeroed != p->workspace || p->ws_zeroed_stride != meta->workspace_per_cta)) {
    NVFP4RT_CU_CALL(cuMemsetD8Async, ((CUdeviceptr)p->workspace, 0, (size_t)p->workspace_bytes,
                                      (CUstream)stream));
    p->ws_zeroed = p->workspace;
    p->ws_zeroed_stride = meta->workspace_per_cta;
  }
  /* kernel-patch: the templates of a shape change, on `stream` */
  if (p->mode == NVFP4RT_TMAP_UPDATE_KERNEL_PATCH) {
    nvfp4rt_status tst = launch_templates(p, (CUstream)stream);
    if (tst != NVFP4RT_STATUS_OK) return tst;
  }
  /* the group table's device copy: in the cache, or uploaded now on `stream` */
  uint64_t table = 0;
  const nvfp4rt_table_extent_ used = nvfp4rt_table_extent_groups_(meta->max_groups, p->num_groups);
  nvfp4rt_status st = nvfp4rt_table_cache_use_(p->tables, p->block + NVFP4_ABI_HEADER_BYTES,
                                               &used, p->table_changed, (CUstream)stream, &table);
  if (st != NVFP4RT_STATUS_OK) return st;
  p->table_changed = 0;
  put_u64(p->block, NVFP4_ABI_HDR_TABLE, table);
  /* (measured on the H200: plain cuLaunchKernel is no cheaper than the Ex form) */
  p->cfg.hStream = (CUstream)stream;
  NVFP4RT_CU_CALL(cuLaunchKernelEx, (&p->cfg, p->mod->functions[p->variant], p->params, NULL));
  return NVFP4RT_STATUS_OK;
}

int nvfp4rt_plan_uses_pdl(const nvfp4rt_plan *p) { return p && p->grid ? p->uses_pdl : 0; }

/* ---- shared by both forms ---------------------------------------------------------------- */

nvfp4rt_status nvfp4rt_plan_options_check_(const nvfp4rt_plan_options *o, const char *who,
                                           const nvfp4_kernel_metadata *meta,
                                           nvfp4rt_plan_extras_ *x) {
  memset(x, 0, sizeof *x);
  x->pdl = NVFP4RT_PDL_DEFAULT;
  x->table_cache = NVFP4RT_TABLE_CACHE_DEFAULT;
  const size_t size = o ? o->struct_size : 0;
  /* 0 is the 2.0 layout; anything else must be at least that (it ends before `pdl`) */
  const size_t v2_0 = offsetof(nvfp4rt_plan_options, pdl);
  if (size != 0 && size < v2_0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "%s: options->struct_size is %zu, expected 0 or at least %zu "
                        "(NVFP4RT_PLAN_OPTIONS_INIT)", who, size, v2_0);
  if (size >= offsetof(nvfp4rt_plan_options, pdl) + sizeof o->pdl) {
    if ((unsigned)o->pdl > NVFP4RT_PDL_OFF)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                          "%s: options->pdl is %d (NVFP4RT_PDL_DEFAULT, _ON or _OFF)", who,
                          (int)o->pdl);
    x->pdl = o->pdl;
  }
  if (size >= offsetof(nvfp4rt_plan_options, debug_activations_stride) +
                  sizeof o->debug_activations_stride) {
    x->debug_act = o->debug_activations;
    x->debug_act_stride = o->debug_activations_stride;
  }
  if (size >= offsetof(nvfp4rt_plan_options, table_cache) + sizeof o->table_cache) {
    if (o->table_cache > NVFP4RT_TABLE_CACHE_MAX)
      return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                          "%s: options->table_cache is %u (0 for the default %u, else 1..%u "
                          "device copies of the table)", who, o->table_cache,
                          NVFP4RT_TABLE_CACHE_DEFAULT, NVFP4RT_TABLE_CACHE_MAX);
    if (o->table_cache) x->table_cache = o->table_cache;
  }
  const int dumps = (meta->flags & NVFP4_META_FLAG_DEBUG_ACTIVATIONS) != 0;
  if (dumps && !x->debug_act)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "%s: kernel '%s' was built with nvfp4.debug_activations and stores its "
                        "activations: options->debug_activations must name a device buffer",
                        who, meta->kernel_name);
  if (!dumps && (x->debug_act || x->debug_act_stride))
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "%s: options->debug_activations is set, but kernel '%s' stores no "
                        "activations (built without nvfp4.debug_activations)", who,
                        meta->kernel_name);
  if (x->debug_act % 4 != 0 || x->debug_act_stride % 4 != 0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_MISALIGNED,
                        "%s: the activation dump 0x%llx and its slot stride %llu must be "
                        "multiples of 4 bytes", who, (unsigned long long)x->debug_act,
                        (unsigned long long)x->debug_act_stride);
  if (meta->form == NVFP4_META_FORM_CONTIGUOUS && x->debug_act_stride)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "%s: options->debug_activations_stride is %llu; the contiguous form "
                        "indexes the dump by token row (stride 0)", who,
                        (unsigned long long)x->debug_act_stride);
  return NVFP4RT_STATUS_OK;
}

void nvfp4rt_plan_extras_write_(const nvfp4rt_plan_extras_ *x, unsigned char *block) {
  if (!x->debug_act) return;
  nvfp4_meta_write_u64(block, NVFP4_ABI_HDR_DEBUG_ACT, x->debug_act);
  nvfp4_meta_write_u64(block, NVFP4_ABI_HDR_DEBUG_ACT_STRIDE, x->debug_act_stride);
}

/* PDL: the option (the environment for DEFAULT), then what the kernel, device and driver
 * support: a kernel without the wait must never start early, graph capture of the attribute
 * needs CUDA 12.3, griddepcontrol sm_90. */
static int pdl_on(const nvfp4rt_module *mod, const nvfp4_kernel_metadata *meta, nvfp4rt_pdl pdl) {
  if (pdl == NVFP4RT_PDL_OFF) return 0;
  if (pdl == NVFP4RT_PDL_DEFAULT) {
    const char *env = getenv("NVFP4RT_PDL");
    if (env && !strcmp(env, "0")) return 0;
  }
  const nvfp4rt_device_info *d = &mod->ctx->info;
  return (meta->flags & NVFP4_META_FLAG_PDL) && d->cc_major >= 9 && d->driver_version >= 12030;
}

int nvfp4rt_launch_attrs_(CUlaunchConfig *cfg, CUlaunchAttribute *attrs, const nvfp4rt_module *mod,
                          const nvfp4_kernel_metadata *meta, nvfp4rt_pdl pdl) {
  unsigned n = 0;
  if (meta->cluster[0] * meta->cluster[1] * meta->cluster[2] > 1) {
    memset(&attrs[n], 0, sizeof attrs[n]);
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[n].value.clusterDim.x = meta->cluster[0];
    attrs[n].value.clusterDim.y = meta->cluster[1];
    attrs[n].value.clusterDim.z = meta->cluster[2];
    n++;
  }
  const int on = pdl_on(mod, meta, pdl);
  if (on) {
    memset(&attrs[n], 0, sizeof attrs[n]);
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[n].value.programmaticStreamSerializationAllowed = 1;
    n++;
  }
  cfg->attrs = attrs;
  cfg->numAttrs = n;
  return on;
}

nvfp4rt_status nvfp4rt_plan_info_begin_(const nvfp4rt_plan_info *caller, nvfp4rt_plan_info *info,
                                        const char *who, const nvfp4_kernel_metadata *m,
                                        uint32_t variant) {
  /* struct_size 0 is the 2.0 layout (up to the 3.2 table fields); anything else must be
   * at least that */
  const size_t v2_0 = offsetof(nvfp4rt_plan_info, table_cache);
  if (caller->struct_size != 0 && caller->struct_size < v2_0)
    return NVFP4RT_FAIL(NVFP4RT_STATUS_INVALID_ARGUMENT,
                        "%s: info->struct_size is %zu, expected 0 or at least %zu "
                        "(NVFP4RT_PLAN_INFO_INIT)", who, caller->struct_size, v2_0);
  memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  info->variant = variant;
  info->kernel_name = m->kernel_name;
  memcpy(info->block, m->block, sizeof info->block);
  memcpy(info->cluster, m->cluster, sizeof info->cluster);
  info->dyn_smem_bytes = m->dyn_smem_bytes;
  info->param_bytes = m->param_bytes;
  return NVFP4RT_STATUS_OK;
}

void nvfp4rt_plan_info_end_(nvfp4rt_plan_info *caller, const nvfp4rt_plan_info *info,
                            const nvfp4rt_table_cache_ *tables) {
  nvfp4rt_plan_info full = *info;
  nvfp4rt_table_cache_info_(tables, &full.table_cache, &full.table_bytes, &full.tables_uploaded,
                            &full.table_cache_hits, &full.table_bytes_uploaded);
  size_t size = caller->struct_size ? caller->struct_size : offsetof(nvfp4rt_plan_info, table_cache);
  if (size > sizeof full) size = sizeof full;
  full.struct_size = size;
  memcpy(caller, &full, size);
}

nvfp4rt_status nvfp4rt_plan_get_info(const nvfp4rt_plan *p, nvfp4rt_plan_info *out) {
  if (!p || !out) return NVFP4RT_FAIL(NVFP4RT_STATUS_NULL_POINTER, "plan_get_info: NULL");
  nvfp4rt_plan_info full, *info = &full;
  nvfp4rt_status st = nvfp4rt_plan_info_begin_(out, info, "plan_get_info",
                                               &p->mod->table.variants[p->variant], p->variant);
  if (st != NVFP4RT_STATUS_OK) return st;
  info->num_groups = p->num_groups;
  info->total_tiles = p->layout->total_tiles;
  info->grid = p->grid;
  info->workspace = p->workspace;
  info->workspace_bytes = p->workspace_bytes;
  info->tmaps_encoded = p->tmaps_encoded;
  info->param_block = p->block;
  info->tmap_update = p->mode;
  info->tmaps_replaced = p->tmaps_replaced;
  info->tmap_area = p->tmap_area;
  info->tmap_area_bytes = p->tmap_area_bytes;
  info->templates_uploaded = p->templates_uploaded;
  nvfp4rt_plan_info_end_(out, info, p->tables);
  return NVFP4RT_STATUS_OK;
}

void nvfp4rt_plan_destroy(nvfp4rt_plan *p) {
  if (!p) return;
  if (p->workspace) NVFP4RT_CU(cuMemFree)((CUdeviceptr)p->workspace);
  nvfp4rt_table_cache_destroy_(p->tables);
  if (p->tmap_area) NVFP4RT_CU(cuMemFree)((CUdeviceptr)p->tmap_area);
  for (uint32_t i = 0; i < p->nretired; i++) NVFP4RT_CU(cuMemFree)((CUdeviceptr)p->retired[i]);
  free(p->retired);
  if (p->tmpl_side) NVFP4RT_CU(cuStreamDestroy)(p->tmpl_side);
  if (p->tmpl_copied) NVFP4RT_CU(cuEventDestroy)(p->tmpl_copied);
  if (p->tmpl_src) NVFP4RT_CU(cuMemFreeHost)(p->tmpl_src);
  free(p->tmpl);
  free(p->tmpl_next);
  free(p->last);
  free(p->block);
  free(p->scratch);
  free(p->layout);
  free(p->next_layout);
  free(p->keys);
  free(p->next_keys);
  free(p);
}
