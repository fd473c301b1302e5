/* compile_and_launch.c — the whole chain from C: compile a kernel through the compiler C API
 * (nvfp4-c/Pipeline.h), load the cubin into libnvfp4rt, run it on generated inputs and
 * check C against the reference GEMM. The device decides the target (sm_100a, or the
 * tcgen05 emulation on sm_90); without a GPU it compiles for sm_100a, says so, exits 77.
 * Usage: compile_and_launch KERNEL.mlir [CASE]   (e.g. test1.mlir test:0) */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>

#include "mlir-c/IR.h"
#include "nvfp4-c/Dialect.h"
#include "nvfp4-c/Pipeline.h"
#include "nvfp4rt.h"
#include "nvfp4rt_host.h"

#define TRY(call)                                                                          \
  if ((st = (call)) != NVFP4RT_STATUS_OK)                                                  \
    return fprintf(stderr, "%s\n", nvfp4rt_last_error_message()), 2

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: %s KERNEL.mlir [CASE]\n", argv[0]), 2;
  nvfp4rt_context *ctx = NULL;
  nvfp4rt_status st = nvfp4rt_context_create(0, &ctx), gpu = st;
  MlirNvfp4CompileOptions opts = mlirNvfp4CompileOptionsGetDefault();
  opts.emulate = gpu == NVFP4RT_STATUS_OK && nvfp4rt_context_device_info(ctx)->cc_major == 9;
#ifdef NVFP4_EMU_BITCODE_FILE /* the installed emulation library (find_package(NVFP4)) */
  setenv("NVFP4_EMU_BITCODE", NVFP4_EMU_BITCODE_FILE, 0);
#endif
  MlirContext mlir = mlirContextCreate();
  mlirNvfp4RegisterAllUpstream(mlir);
  MlirModule m = mlirModuleCreateParseFromFile(mlir, mlirStringRefCreateFromCString(argv[1]));
  MlirNvfp4CompileResult res;
  mlirNvfp4CompileResultInit(&res);
  if (mlirModuleIsNull(m) ||
      mlirLogicalResultIsFailure(mlirNvfp4CompileModule(mlirModuleGetOperation(m), &opts, &res)))
    return fprintf(stderr, "compilation failed\n%s", res.log ? res.log : ""), 1;
  mlirModuleDestroy(m);
  mlirContextDestroy(mlir);
  printf("compiled %s: %zu-byte %s cubin\n", argv[1], res.cubinSize,
         opts.emulate ? "sm_90a (emulation)" : "sm_100a");
  nvfp4rt_module *mod = NULL;
  if (gpu == NVFP4RT_STATUS_OK) st = nvfp4rt_module_load_data(ctx, res.cubin, res.cubinSize, &mod);
  mlirNvfp4CompileResultDestroy(&res); /* the runtime keeps its own copy */
  if (gpu != NVFP4RT_STATUS_OK)
    return printf("skipped: no CUDA GPU (%s)\n", nvfp4rt_last_error_message()), 77;
  TRY(st);
  nvfp4h_shape shapes[NVFP4H_MAX_GROUPS];
  uint32_t n = nvfp4h_case_shapes(argc > 2 ? argv[2] : "test:0", shapes, NVFP4H_MAX_GROUPS);
  static nvfp4h_problem p;
  if (!n || nvfp4h_problem_generate(shapes, n, 1111, NVFP4H_DIST_COMPETITION, &p)) return 2;
  nvfp4rt_group g[NVFP4H_MAX_GROUPS];
  for (uint32_t i = 0; i < n; i++) {
    nvfp4h_group_data *d = &p.groups[i];
    const void *src[5] = {d->a, d->b, d->sfa, d->sfb, d->c};
    size_t bytes[5] = {d->a_bytes, d->b_bytes, d->sfa_bytes, d->sfb_bytes, d->c_alloc_bytes};
    uint64_t ptr[5];
    for (int t = 0; t < 5; t++) {
      TRY(nvfp4rt_mem_alloc(ctx, bytes[t], &ptr[t]));
      TRY(nvfp4rt_memcpy_htod(ctx, ptr[t], src[t], bytes[t]));
    }
    g[i] = (nvfp4rt_group){ptr[0], ptr[1], ptr[2], ptr[3], ptr[4], d->m, d->n, d->k, d->ldc, 0, 0, 0};
  }
  nvfp4rt_plan *plan;
  TRY(nvfp4rt_plan_create(mod, g, n, &plan));
  TRY(nvfp4rt_plan_launch(plan, NULL));
  TRY(nvfp4rt_stream_synchronize(ctx, NULL));
  nvfp4h_check_result check;
  nvfp4h_check_init(&check);
  for (uint32_t i = 0; i < n; i++) {
    nvfp4h_group_data *d = &p.groups[i];
    uint16_t *got = malloc(d->c_alloc_bytes), *ref = malloc(d->c_bytes + 2);
    TRY(nvfp4rt_memcpy_dtoh(ctx, got, g[i].c, d->c_alloc_bytes));
    nvfp4h_reference_gemm(d, ref, d->ldc, 0);
    nvfp4h_check_group(d, got, ref, i, &check);
    free(got), free(ref);
  }
  printf("%u groups: %s (%llu mismatches)\n", n, nvfp4h_check_passed(&check) ? "PASS" : "FAIL",
         (unsigned long long)check.mismatches);
  for (uint32_t i = 0; i < n; i++) {
    const uint64_t ptr[5] = {g[i].a, g[i].b, g[i].sfa, g[i].sfb, g[i].c};
    for (int t = 0; t < 5; t++) nvfp4rt_mem_free(ctx, ptr[t]);
  }
  nvfp4h_problem_free(&p);
  nvfp4rt_plan_destroy(plan);
  nvfp4rt_module_destroy(mod);
  nvfp4rt_context_destroy(ctx);
  return nvfp4h_check_passed(&check) ? 0 : 1;
}
