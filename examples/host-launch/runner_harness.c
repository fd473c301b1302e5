/* runner_harness.c — the C side of runner_main.mlir for mlir-runner --shared-libs: test
 * case test:0 (docs/format.md) on the device, its buffers handed to MLIR as memref descriptors
 * (functions with llvm.emit_c_interface: _mlir_ciface_<name> with the result descriptor as
 * first argument), and the check of C after the host-lowered call. Without a GPU the
 * descriptors hold NULL pointers and the check expects the generated function to have
 * failed with the runtime's DRIVER_NOT_FOUND / NO_DEVICE. */
#include <stdio.h>

#include "host_case.h"

#define HARNESS_API __attribute__((visibility("default")))

static host_case g_case;
static nvfp4rt_context *g_ctx;
static nvfp4rt_status g_setup = NVFP4RT_STATUS_INVALID_ARGUMENT;

HARNESS_API int32_t nvfp4_runner_setup(int64_t seed) {
  const nvfp4h_shape shapes[2] = {{96, 128, 256}, {128, 256, 512}};
  g_setup = nvfp4rt_context_create(0, &g_ctx);
  nvfp4rt_status st = host_case_create(&g_case, g_setup == NVFP4RT_STATUS_OK ? g_ctx : NULL,
                                       shapes, 2, (uint64_t)seed, 8);
  if (g_setup == NVFP4RT_STATUS_OK) g_setup = st;
  nvfp4rt_clear_error(); /* what is recorded from now on is the generated call's */
  return (int32_t)g_setup;
}

/* which: 0 = A, 1 = B */
HARNESS_API void _mlir_ciface_nvfp4_runner_fp4(nvfp4rt_memref_2d *out, int32_t which,
                                               int32_t group) {
  *out = which ? g_case.b[group & 1] : g_case.a[group & 1];
}
HARNESS_API void _mlir_ciface_nvfp4_runner_sf(nvfp4rt_memref_5d *out, int32_t which,
                                              int32_t group) {
  *out = which ? g_case.sfb[group & 1] : g_case.sfa[group & 1];
}
HARNESS_API void _mlir_ciface_nvfp4_runner_c(nvfp4rt_memref_2d *out, int32_t group) {
  *out = g_case.c[group & 1];
}

HARNESS_API int32_t nvfp4_runner_finish(void) {
  const nvfp4rt_error *e = nvfp4rt_last_error();
  printf("generated call: %s%s%s\n", nvfp4rt_status_string(e->status),
         e->status ? ": " : "", e->status ? e->message : "");
  int rc;
  if (g_setup == NVFP4RT_STATUS_DRIVER_NOT_FOUND || g_setup == NVFP4RT_STATUS_NO_DEVICE) {
    rc = e->status == g_setup ? 77 : 1;
    printf("runner: no CUDA driver/device (%s): %s\n", nvfp4rt_status_string(g_setup),
           rc == 77 ? "skipped" : "FAIL (the generated call should have failed the same way)");
  } else if (g_setup != NVFP4RT_STATUS_OK || e->status != NVFP4RT_STATUS_OK ||
             nvfp4rt_stream_synchronize(g_ctx, NULL) != NVFP4RT_STATUS_OK) {
    printf("runner: FAIL (setup %s)\n", nvfp4rt_status_string(g_setup));
    rc = 1;
  } else {
    nvfp4h_check_result r;
    int ok = host_case_check(&g_case, &r);
    nvfp4rt_gen_stats s;
    nvfp4rt_gen_stats_get(&s);
    printf("runner: check %s (%llu/%llu mismatches, %llu outside writes), %llu module load, "
           "%llu launch\n", ok ? "PASS" : "FAIL", (unsigned long long)r.mismatches,
           (unsigned long long)r.checked, (unsigned long long)r.outside_writes,
           (unsigned long long)s.module_loads, (unsigned long long)s.launches);
    rc = ok ? 0 : 1;
  }
  host_case_destroy(&g_case);
  nvfp4rt_gen_release_all();
  nvfp4rt_context_destroy(g_ctx);
  g_ctx = NULL;
  fflush(stdout);
  return rc;
}
