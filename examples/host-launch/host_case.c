/* host_case.c — device problem + memref descriptors for the host-lowering example (see
 * host_case.h). */
#include "host_case.h"

#include <stdlib.h>
#include <string.h>

static void fp4_desc(nvfp4rt_memref_2d *d, uint64_t dev, uint32_t rows, uint32_t k) {
  memset(d, 0, sizeof *d);
  d->allocated = d->aligned = (void *)(uintptr_t)dev;
  d->sizes[0] = rows;
  d->sizes[1] = k;
  d->strides[0] = k;
  d->strides[1] = 1;
}

static void sf_desc(nvfp4rt_memref_5d *d, uint64_t dev, uint32_t rows, uint32_t k) {
  static const int64_t atom[3] = {32, 4, 4};
  memset(d, 0, sizeof *d);
  d->allocated = d->aligned = (void *)(uintptr_t)dev;
  d->sizes[0] = (rows + 127) / 128;
  d->sizes[1] = (k + 63) / 64;
  memcpy(&d->sizes[2], atom, sizeof atom);
  d->strides[0] = d->sizes[1] * 512;
  d->strides[1] = 512;
  d->strides[2] = 16;
  d->strides[3] = 4;
  d->strides[4] = 1;
}

nvfp4rt_status host_case_create(host_case *hc, nvfp4rt_context *ctx, const nvfp4h_shape *shapes,
                                uint32_t num_groups, uint64_t seed, uint32_t ldc_pad) {
  memset(hc, 0, sizeof *hc);
  if (num_groups == 0 || num_groups > HOST_CASE_MAX_GROUPS ||
      nvfp4h_problem_generate_ex(shapes, num_groups, seed, NVFP4H_DIST_FULL_RANGE, ldc_pad,
                                 &hc->problem) != 0)
    return NVFP4RT_STATUS_INVALID_ARGUMENT;
  hc->ctx = ctx;
  hc->num_groups = num_groups;
  for (uint32_t g = 0; g < num_groups; g++) {
    const nvfp4h_group_data *d = &hc->problem.groups[g];
    const void *src[5] = {d->a, d->b, d->sfa, d->sfb, d->c};
    const size_t bytes[5] = {d->a_bytes, d->b_bytes, d->sfa_bytes, d->sfb_bytes,
                             d->c_alloc_bytes};
    for (int t = 0; ctx && t < 5; t++) {
      nvfp4rt_status st = nvfp4rt_mem_alloc(ctx, bytes[t] ? bytes[t] : 16, &hc->dev[g][t]);
      if (st == NVFP4RT_STATUS_OK && bytes[t])
        st = nvfp4rt_memcpy_htod(ctx, hc->dev[g][t], src[t], bytes[t]);
      if (st != NVFP4RT_STATUS_OK) return st;
    }
    fp4_desc(&hc->a[g], hc->dev[g][0], d->m, d->k);
    fp4_desc(&hc->b[g], hc->dev[g][1], d->n, d->k);
    sf_desc(&hc->sfa[g], hc->dev[g][2], d->m, d->k);
    sf_desc(&hc->sfb[g], hc->dev[g][3], d->n, d->k);
    nvfp4rt_memref_2d *c = &hc->c[g];
    memset(c, 0, sizeof *c);
    c->allocated = c->aligned = (void *)(uintptr_t)hc->dev[g][4];
    c->sizes[0] = d->m;
    c->sizes[1] = d->n;
    c->strides[0] = d->ldc;
    c->strides[1] = 1;
  }
  return NVFP4RT_STATUS_OK;
}

nvfp4rt_status host_case_reset_c(host_case *hc) {
  for (uint32_t g = 0; hc->ctx && g < hc->num_groups; g++) {
    const nvfp4h_group_data *d = &hc->problem.groups[g];
    nvfp4rt_status st = nvfp4rt_memcpy_htod(hc->ctx, hc->dev[g][4], d->c, d->c_alloc_bytes);
    if (st != NVFP4RT_STATUS_OK) return st;
  }
  return NVFP4RT_STATUS_OK;
}

int host_case_check(host_case *hc, nvfp4h_check_result *r) {
  nvfp4h_check_init(r);
  if (!hc->ctx) return 0;
  for (uint32_t g = 0; g < hc->num_groups; g++) {
    const nvfp4h_group_data *d = &hc->problem.groups[g];
    uint16_t *got = malloc(d->c_alloc_bytes);
    uint16_t *ref = malloc((size_t)d->m * d->ldc * 2 + 2);
    int ok = got && ref &&
             nvfp4rt_memcpy_dtoh(hc->ctx, got, hc->dev[g][4], d->c_alloc_bytes) ==
                 NVFP4RT_STATUS_OK &&
             nvfp4h_reference_gemm(d, ref, d->ldc, 0) == 0;
    if (ok) nvfp4h_check_group(d, got, ref, g, r);
    free(got);
    free(ref);
    if (!ok) return 0;
  }
  return nvfp4h_check_passed(r);
}

void host_case_destroy(host_case *hc) {
  for (uint32_t g = 0; hc->ctx && g < hc->num_groups; g++)
    for (int t = 0; t < 5; t++)
      if (hc->dev[g][t]) nvfp4rt_mem_free(hc->ctx, hc->dev[g][t]);
  nvfp4h_problem_free(&hc->problem);
  memset(hc, 0, sizeof *hc);
}
