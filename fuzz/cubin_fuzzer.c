/* cubin_fuzzer.c — libFuzzer harness for everything libnvfp4rt does with a cubin it is
 * handed: the ELF checks and metadata lookup, record and table decoding, target checks,
 * then for each variant plan validation, tensor-map arguments, parameter packing and the
 * grid (the pointer-array form's or, for an nvfp4.moe_matmul cubin, the contiguous form's),
 * the variant heuristic, and module loading + planning + a launch through the libcuda
 * stand-in (test/Runtime/fake_libcuda.c, NVFP4RT_LIBCUDA_PATH), whose cuModuleLoadData
 * reads the image the way a driver would: an image the runtime lets through that points
 * past its end is an out-of-bounds read ASan reports. Run by scripts/fuzz.sh (seeds: the
 * cubins of the runtime tests and examples). */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4rt.h"

static nvfp4rt_context *g_ctx;
static int g_driver; /* 1: the stand-in is loaded */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  /* the stand-in's allocation limit, below -malloc_limit_mb (fuzz.sh: 2048): a fuzzed
   * workspace size is then the driver's out-of-memory status, not a fuzzer report */
  setenv("NVFP4_FAKE_CUDA_MAX_ALLOC_MB", "1024", 0);
  const char *lib = getenv("NVFP4RT_LIBCUDA_PATH");
  g_driver = lib && strstr(lib, "fake") && nvfp4rt_context_create(0, &g_ctx) == NVFP4RT_STATUS_OK;
  if (!g_driver)
    fprintf(stderr, "cubin_fuzzer: no libcuda stand-in (NVFP4RT_LIBCUDA_PATH): module loading "
                    "is not fuzzed\n");
  return 0;
}

/* A few groups whose shapes come from the input's last bytes (pointers aligned, so the
 * shape rules are what is exercised; a group whose shape byte is odd has an alpha pointer,
 * so kernels with and without alpha both get past validation). */
static uint32_t groups_from(const uint8_t *data, size_t size, nvfp4rt_group *g) {
  static _Alignas(64) uint64_t buf[5][64];
  uint32_t n = size ? 1 + data[size - 1] % 4 : 1;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = size > 8 + i ? (uint32_t)data[size - 2 - i] * 131u : 96;
    g[i] = (nvfp4rt_group){(uint64_t)(uintptr_t)buf[0], (uint64_t)(uintptr_t)buf[1],
                           (uint64_t)(uintptr_t)buf[2], (uint64_t)(uintptr_t)buf[3],
                           (uint64_t)(uintptr_t)buf[4], v % 1024, 8 + v % 512, 64 * (1 + v % 8),
                           0, (v & 1) ? (uint64_t)(uintptr_t)buf[1] : 0, 0, 0};
    g[i].ldc = (g[i].n + 7) / 8 * 8;
  }
  return n;
}

/* A contiguous-form (MoE) problem for `m`'s expert count, its sizes from the groups. */
static nvfp4rt_moe_problem moe_from(const nvfp4_kernel_metadata *m, const nvfp4rt_group *g) {
  nvfp4rt_moe_problem p = {.a = g[0].a, .b = g[0].b, .sfa = g[0].sfa, .sfb = g[0].sfb,
                           .c = g[0].c, .offsets = g[0].a, .m = g[0].m * 3, .n = g[0].n,
                           .k = g[0].k, .ldc = g[0].ldc, .num_experts = m->max_groups};
  if (m->epilogue_flags & NVFP4_META_EFLAG_ALPHA) p.alpha = g[0].b;
  p.sfa_atoms = (uint32_t)nvfp4_abi_moe_sfa_atoms(p.m, p.num_experts);
  return p;
}

static void exercise_moe(const nvfp4_kernel_metadata *m, const nvfp4rt_group *g) {
  const nvfp4rt_moe_problem p = moe_from(m, g);
  nvfp4rt_moe_max_tiles(m, &p);
  if (nvfp4rt_moe_validate(m, &p) != NVFP4RT_STATUS_OK) return;
  nvfp4rt_tmap_args a;
  const uint32_t maps = nvfp4rt_moe_tmap_count(m);
  for (uint32_t s = 0; s <= maps && s < 64; s++) nvfp4rt_moe_tmap_args(m, &p, s, &a);
  static _Alignas(64) unsigned char block[NVFP4_ABI_MOE_PARAM_BYTES];
  nvfp4rt_moe_param_pack(m, &p, 0, 0, block, sizeof block);
  nvfp4rt_grid_size(m, (uint32_t)nvfp4rt_moe_max_tiles(m, &p), 148);
}

static void exercise_variant(const nvfp4_kernel_metadata *m, const nvfp4rt_group *g, uint32_t n) {
  nvfp4rt_metadata_check_target(m, 10, 0);
  nvfp4rt_metadata_check_target(m, 9, 0);
  if (m->form == NVFP4_META_FORM_CONTIGUOUS) {
    exercise_moe(m, g);
    return;
  }
  static nvfp4rt_plan_layout layout;
  if (nvfp4rt_plan_validate(m, g, n, &layout) != NVFP4RT_STATUS_OK) return;
  nvfp4rt_tmap_args a;
  for (int k = 0; k < 5; k++) nvfp4rt_tmap_args_for(m, &g[0], (nvfp4rt_tmap_kind)k, &a);
  static _Alignas(64) unsigned char block[NVFP4_ABI_HEADER_BYTES + 704 * 64];
  size_t need = NVFP4_ABI_HEADER_BYTES + (size_t)nvfp4_abi_table_bytes(m->max_groups);
  if (m->max_groups <= 64) nvfp4rt_param_pack(m, g, n, &layout, 0, 0, 0, block, need);
  nvfp4rt_grid_size(m, layout.total_tiles, 148);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static nvfp4rt_metadata_table t;
  nvfp4rt_group g[4];
  uint32_t n = groups_from(data, size, g);
  nvfp4rt_elf_check_image(data, size);
  if (nvfp4rt_metadata_read_image(data, size, &t) == NVFP4RT_STATUS_OK) {
    for (uint32_t v = 0; v < t.count; v++) exercise_variant(&t.variants[v], g, n);
    double cost[NVFP4_METADATA_MAX_VARIANTS];
    if (t.variants[0].form == NVFP4_META_FORM_CONTIGUOUS) {
      const nvfp4rt_moe_problem p = moe_from(&t.variants[0], g);
      nvfp4rt_moe_select_variant(&t, &p, 148);
    } else {
      nvfp4rt_select_variant(&t, g, n, 148, cost);
    }
  }
  /* the decoders on raw bytes, as a table and as one record */
  if (size >= NVFP4_METADATA_BYTES) {
    nvfp4_kernel_metadata m;
    if (nvfp4rt_metadata_decode(data, size, &m) == NVFP4RT_STATUS_OK) exercise_variant(&m, g, n);
    nvfp4rt_metadata_decode_table(data, size - size % NVFP4_METADATA_BYTES, &t);
  }
  if (g_driver) {
    /* the runtime keeps no pointer to the caller's image past the call */
    nvfp4rt_module *mod = NULL;
    if (nvfp4rt_module_load_data(g_ctx, data, size, &mod) == NVFP4RT_STATUS_OK) {
      const nvfp4_kernel_metadata *m0 = nvfp4rt_module_metadata(mod);
      if (m0->form == NVFP4_META_FORM_CONTIGUOUS) {
        const nvfp4rt_moe_problem p = moe_from(m0, g);
        nvfp4rt_moe_plan *plan = NULL;
        if (nvfp4rt_moe_plan_create(mod, &p, NULL, &plan) == NVFP4RT_STATUS_OK)
          nvfp4rt_moe_plan_launch(plan, NULL);
        nvfp4rt_moe_plan_destroy(plan);
      } else {
        nvfp4rt_plan *plan = NULL;
        if (nvfp4rt_plan_create(mod, g, n, &plan) == NVFP4RT_STATUS_OK)
          nvfp4rt_plan_launch(plan, NULL);
        nvfp4rt_plan_destroy(plan);
      }
      nvfp4rt_module_destroy(mod);
    }
  }
  return 0;
}
