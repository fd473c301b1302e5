/* main.c — a plain C program that calls the host code generated from host_launch.mlir
 * (--nvfp4-to-host or --nvfp4-emulation-to-host, mlir-translate, clang-22) and links with
 * libnvfp4rt. It checks what the lowering promises:
 *   1. a first call loads the embedded cubin (once), plans and launches on a stream;
 *   2. a second call with the same operands, on the default stream, reuses the plan;
 *   3. new buffers and shapes re-plan;
 *   4. a bad descriptor (an FP4 offset that is not on a byte) returns MISALIGNED and
 *      launches nothing; the next good call still uses the cached plan;
 * every launch checked against the C reference GEMM (tolerances, nothing written outside
 * C's M x N region), then the runtime's counters.
 * Without a CUDA driver or device, the generated function is called anyway (descriptors
 * without device memory) and must return the runtime's DRIVER_NOT_FOUND / NO_DEVICE status.
 * --no-check skips the comparison of C (for a driver that runs no kernels: the tests' fake
 * libcuda); statuses and counters are still checked.
 * Exit codes: 0 pass, 1 check failed, 2 error, 77 no CUDA driver/device. */
#include <stdio.h>
#include <string.h>

#include "host_case.h"

enum { EXIT_PASS = 0, EXIT_FAILED = 1, EXIT_ERROR = 2, EXIT_NO_GPU = 77 };

/* The function generated from host_launch.mlir (llvm.emit_c_interface). */
int32_t _mlir_ciface_host_launch(nvfp4rt_memref_2d *a0, nvfp4rt_memref_2d *a1,
                                 nvfp4rt_memref_2d *b0, nvfp4rt_memref_2d *b1,
                                 nvfp4rt_memref_5d *sfa0, nvfp4rt_memref_5d *sfa1,
                                 nvfp4rt_memref_5d *sfb0, nvfp4rt_memref_5d *sfb1,
                                 nvfp4rt_memref_2d *c0, nvfp4rt_memref_2d *c1, void *stream);

static int32_t call(host_case *hc, void *stream) {
  return _mlir_ciface_host_launch(&hc->a[0], &hc->a[1], &hc->b[0], &hc->b[1], &hc->sfa[0],
                                  &hc->sfa[1], &hc->sfb[0], &hc->sfb[1], &hc->c[0], &hc->c[1],
                                  stream);
}

static int failures;
static int check_c = 1;

static void expect(int ok, const char *what) {
  printf("%-58s %s\n", what, ok ? "ok" : "FAILED");
  if (!ok) failures++;
}

static void report(const char *what, int32_t st) {
  printf("%s: %s%s%s\n", what, nvfp4rt_status_string((nvfp4rt_status)st),
         st ? ": " : "", st ? nvfp4rt_last_error_message() : "");
}

/* One launch through the generated function, synchronised and checked. */
static int run_checked(host_case *hc, nvfp4rt_context *ctx, void *stream, const char *what) {
  if (host_case_reset_c(hc) != NVFP4RT_STATUS_OK) return 0;
  int32_t st = call(hc, stream);
  report(what, st);
  if (st != NVFP4RT_STATUS_OK || nvfp4rt_stream_synchronize(ctx, stream) != NVFP4RT_STATUS_OK)
    return 0;
  if (!check_c) {
    printf("  check skipped (--no-check)\n");
    return 1;
  }
  nvfp4h_check_result r;
  int ok = host_case_check(hc, &r);
  printf("  check %s (%llu/%llu mismatches, max abs %g, %llu outside writes)\n",
         ok ? "PASS" : "FAIL", (unsigned long long)r.mismatches,
         (unsigned long long)r.checked, r.max_abs, (unsigned long long)r.outside_writes);
  return ok;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--no-check")) {
      check_c = 0;
    } else {
      fprintf(stderr, "usage: host-launch [--no-check]\n");
      return EXIT_ERROR;
    }
  }
  /* test case test:0 (docs/format.md), then other M for the same compiled N and K */
  const nvfp4h_shape first[2] = {{96, 128, 256}, {128, 256, 512}};
  const nvfp4h_shape second[2] = {{200, 128, 256}, {33, 256, 512}};
  nvfp4rt_context *ctx = NULL;
  nvfp4rt_status st = nvfp4rt_context_create(0, &ctx);
  if (st == NVFP4RT_STATUS_DRIVER_NOT_FOUND || st == NVFP4RT_STATUS_NO_DEVICE) {
    host_case hc;
    if (host_case_create(&hc, NULL, first, 2, 1, 8) != NVFP4RT_STATUS_OK) return EXIT_ERROR;
    int32_t got = call(&hc, NULL);
    report("no GPU: the generated function returned", got);
    host_case_destroy(&hc);
    if (got != (int32_t)st) {
      printf("FAILED: expected %s from the generated function\n", nvfp4rt_status_string(st));
      return EXIT_FAILED;
    }
    printf("host-launch: no CUDA driver/device (%s): skipped\n", nvfp4rt_status_string(st));
    return EXIT_NO_GPU;
  }
  if (st != NVFP4RT_STATUS_OK) {
    report("context_create", (int32_t)st);
    return EXIT_ERROR;
  }
  printf("device: %s (sm_%d%d)\n", nvfp4rt_context_device_info(ctx)->name,
         nvfp4rt_context_device_info(ctx)->cc_major, nvfp4rt_context_device_info(ctx)->cc_minor);
  void *stream = NULL;
  host_case p1, p2;
  if (nvfp4rt_stream_create(ctx, &stream) != NVFP4RT_STATUS_OK ||
      host_case_create(&p1, ctx, first, 2, 1, 8) != NVFP4RT_STATUS_OK ||
      host_case_create(&p2, ctx, second, 2, 2, 24) != NVFP4RT_STATUS_OK) {
    report("setup", (int32_t)nvfp4rt_last_error()->status);
    return EXIT_ERROR;
  }
  nvfp4rt_gen_stats s;
  expect(run_checked(&p1, ctx, stream, "call 1 (stream)"), "1. first call: load, plan, launch, correct C");
  nvfp4rt_gen_stats_get(&s);
  expect(s.module_loads == 1 && s.plans_created == 1 && s.launches == 1,
         "   one module load, one plan");
  expect(run_checked(&p1, ctx, NULL, "call 2 (default stream)"), "2. same operands, default stream: correct C");
  nvfp4rt_gen_stats_get(&s);
  expect(s.module_loads == 1 && s.cached == 1 && s.replans == 0, "   cached plan, no reload");
  expect(run_checked(&p2, ctx, stream, "call 3 (new buffers and M)"), "3. new buffers and shapes: correct C");
  nvfp4rt_gen_stats_get(&s);
  expect(s.replans == 1 && s.plans_created == 1, "   re-planned once");

  nvfp4rt_memref_2d saved = p2.a[0];
  p2.a[0].offset = 1; /* half a byte into the buffer */
  int32_t bad = call(&p2, stream);
  report("call 4 (A offset 1)", bad);
  p2.a[0] = saved;
  expect(bad == NVFP4RT_STATUS_MISALIGNED, "4. FP4 offset not on a byte: MISALIGNED");
  expect(run_checked(&p2, ctx, stream, "call 5 (valid again)"), "   then the valid call: correct C");
  nvfp4rt_gen_stats_get(&s);
  printf("runtime counters: module_loads %llu, plans_created %llu, replans %llu, cached %llu, "
         "launches %llu, failures %llu\n",
         (unsigned long long)s.module_loads, (unsigned long long)s.plans_created,
         (unsigned long long)s.replans, (unsigned long long)s.cached,
         (unsigned long long)s.launches, (unsigned long long)s.failures);
  expect(s.module_loads == 1 && s.plans_created == 1 && s.replans == 1 && s.cached == 2 &&
             s.launches == 4 && s.failures == 1,
         "   counters: 1 load, 1 plan, 1 re-plan, 2 cached, 4 launches, 1 failure");

  host_case_destroy(&p1);
  host_case_destroy(&p2);
  nvfp4rt_stream_destroy(ctx, stream);
  nvfp4rt_gen_release_all();
  nvfp4rt_context_destroy(ctx);
  printf("host-launch: %s\n", failures ? "FAIL" : "PASS");
  return failures ? EXIT_FAILED : EXIT_PASS;
}
