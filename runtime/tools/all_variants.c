/* all_variants.c — nvfp4-run --all-variants (all_variants.h). */
#include "all_variants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"

enum { EXIT_PASS = 0, EXIT_CHECK_FAILED = 1, EXIT_ERROR = 2 };

static int report_error(const char *what) {
  fprintf(stderr, "nvfp4-run: --all-variants: %s: %s\n", what, nvfp4rt_last_error_message());
  return EXIT_ERROR;
}

int all_variants_run(nvfp4rt_context *ctx, nvfp4rt_module *mod, const nvfp4h_problem *prob,
                     const nvfp4rt_group *groups, nvfp4rt_tmap_update mode, int threads,
                     int json) {
  const int proxy = (nvfp4rt_module_metadata(mod)->flags & NVFP4_META_FLAG_PROXY) != 0;
  const uint32_t ng = prob->num_groups, nv = nvfp4rt_module_variant_count(mod);
  uint16_t *ref[NVFP4H_MAX_GROUPS] = {0};
  int rc = EXIT_PASS, failed = 0;
  if (json) printf("{\"all_variants\": [");
  for (uint32_t v = 0; v < nv && rc != EXIT_ERROR; v++) {
    const nvfp4_kernel_metadata *m = nvfp4rt_module_variant(mod, v);
    for (uint32_t g = 0; g < ng; g++) {
      const nvfp4h_group_data *d = &prob->groups[g];
      if (nvfp4rt_memcpy_htod(ctx, groups[g].c, d->c, d->c_alloc_bytes) != NVFP4RT_STATUS_OK)
        return report_error("reset C");
    }
    nvfp4rt_plan_options po = {.variant = (int)v, .tmap_update = mode};
    nvfp4rt_plan *plan = NULL;
    if (nvfp4rt_plan_create_ex(mod, groups, ng, &po, &plan) != NVFP4RT_STATUS_OK ||
        nvfp4rt_plan_launch(plan, NULL) != NVFP4RT_STATUS_OK ||
        nvfp4rt_stream_synchronize(ctx, NULL) != NVFP4RT_STATUS_OK) {
      rc = report_error(m->kernel_name);
      nvfp4rt_plan_destroy(plan);
      break;
    }
    nvfp4rt_plan_destroy(plan);
    nvfp4h_check_result chk;
    nvfp4h_check_init(&chk);
    for (uint32_t g = 0; g < ng && rc != EXIT_ERROR; g++) {
      const nvfp4h_group_data *d = &prob->groups[g];
      uint16_t *got = malloc(d->c_alloc_bytes);
      if (!got || nvfp4rt_memcpy_dtoh(ctx, got, groups[g].c, d->c_alloc_bytes) != NVFP4RT_STATUS_OK) {
        free(got);
        rc = report_error("read C");
        break;
      }
      if (proxy) {
        nvfp4h_check_group_zero(d, got, g, &chk);
      } else {
        if (!ref[g]) {
          ref[g] = malloc(d->c_bytes ? d->c_bytes : 1);
          if (!ref[g] || nvfp4h_reference_gemm_ex(d, ref[g], d->ldc, d->c_type, d->alpha, threads) != 0) {
            free(got);
            rc = report_error("reference GEMM out of memory");
            break;
          }
        }
        nvfp4h_check_group(d, got, ref[g], g, &chk);
      }
      free(got);
    }
    if (rc == EXIT_ERROR) break;
    const int pass = nvfp4h_check_passed(&chk);
    failed += !pass;
    if (json) {
      printf("%s{\"kernel\": ", v ? ", " : "");
      json_str(m->kernel_name);
      printf(", \"pass\": %s, \"mismatches\": %llu, \"checked\": %llu, "
             "\"outside_writes\": %llu, \"outside_checked\": %llu}",
             pass ? "true" : "false",
             (unsigned long long)chk.mismatches, (unsigned long long)chk.checked,
             (unsigned long long)chk.outside_writes, (unsigned long long)chk.outside_checked);
    } else
      printf("variant  %-36s %s  (%llu/%llu %s, %llu/%llu outside changed)\n", m->kernel_name,
             pass ? "PASS" : "FAIL", (unsigned long long)chk.mismatches,
             (unsigned long long)chk.checked, proxy ? "not +0" : "mismatches",
             (unsigned long long)chk.outside_writes, (unsigned long long)chk.outside_checked);
    fflush(stdout); /* a later variant that hangs or faults must not take this line along */
  }
  for (uint32_t g = 0; g < ng; g++) free(ref[g]);
  if (rc == EXIT_ERROR) return rc;
  if (json)
    printf("], \"variants\": %u, \"failed\": %d, \"pass\": %s}\n", nv, failed, failed ? "false" : "true");
  else
    printf("check    %s  (%u variants, %d failed%s)\n", failed ? "FAIL" : "PASS", nv, failed,
           proxy ? "; proxy: C = +0 inside M x N, nothing outside" : "");
  return failed ? EXIT_CHECK_FAILED : EXIT_PASS;
}
