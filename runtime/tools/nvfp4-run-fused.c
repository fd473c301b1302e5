/* nvfp4-run-fused.c — `nvfp4-run CUBIN --fused ...`: runs a kernel family with the fused
 * SwiGLU + NVFP4 epilogue (epilogue = "swiglu_nvfp4") on the GPU through libnvfp4rt's plans,
 * in either op form, and checks it as the CPU target's fused mode does (fused_case.h):
 *
 *   nvfp4-run CUBIN --fused (--groups "m,n,k;..." | --random G | --moe E,M,N,K)
 *             [--routing random|empty|one|balanced] [--tokens T] [--seed S] [--full-range]
 *             [--ldc-pad P] [--variant V] [--no-pdl] [--iters N] [--warmup N] [--flush-l2]
 *             [--no-check] [--threads T] [--device D] [--json]
 *
 * What is checked depends on the build:
 *   - built with nvfp4.debug_activations (the emulation builds of sm_100a / sm_12x kernels,
 *     or a native sm_90a kernel): every FP4 code and SFC byte bit for bit against
 *     nvfp4h_quant_block of the kernel's own fp32 activations (the plan's activation dump,
 *     nvfp4rt_plan_options.debug_activations), the activations against swiglu of the
 *     reference GEMM, and nothing written outside the rows and columns the kernel owns;
 *   - a timing proxy (tcgen05 free, accumulators +0): every code and scale 0, and nothing
 *     written outside;
 *   - a production build stores no activations: it runs with --no-check only (for timing;
 *     its debug build is the one to check).
 * --iters N times N launches with CUDA events after the checked one (median; --flush-l2
 * clears L2 before each). Exit codes as nvfp4-run: 0 pass, 1 check failed, 2 error, 77 no
 * CUDA driver or device. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fused_case.h"
#include "nvfp4rt.h"
#include "nvfp4rt_host.h"
#include "run_common.h"

int nvfp4_run_fused(int argc, char **argv);

static void usage(FILE *f) {
  fprintf(f, "usage: nvfp4-run CUBIN --fused (--groups \"m,n,k;...\" | --random G |\n"
             "                 --moe E,M,N,K [--routing random|empty|one|balanced] [--tokens T])\n"
             "                 [--seed S] [--full-range] [--ldc-pad P] [--variant NAME|INDEX]\n"
             "                 [--no-pdl] [--iters N] [--warmup N] [--flush-l2] [--no-check]\n"
             "                 [--threads T] [--device D] [--json]\n"
             "  n, N: B's 2I gate/up rows (I a multiple of 64). A kernel built with\n"
             "  nvfp4.debug_activations is checked bit for bit against the reference quantizer\n"
             "  of its own activations, a timing proxy for codes and scales 0; a production\n"
             "  build runs with --no-check only\n"
             "exit: 0 ok, 1 check failed, 2 error, 77 no CUDA driver/device\n");
}

typedef struct FusedOpts {
  const char *cubin, *variant;
  FusedSpec spec;
  int iters, warmup, flush_l2, no_check, no_pdl, device, json;
} FusedOpts;

/* Device copies of the case's buffers: host range -> device address. */
typedef struct DeviceBufs {
  nvfp4rt_context *ctx;
  uint32_t n;
  FusedBuffer b[FUSED_MAX_BUFFERS];
  uint64_t dev[FUSED_MAX_BUFFERS];
} DeviceBufs;

/* The device address of a host pointer into one of the buffers (0 if none holds it). A
 * pointer one past a buffer's end may be the next buffer's start (alpha and gs are
 * neighbours in FusedCase): only an empty buffer (an empty group's operand) owns its end. */
static uint64_t device_addr(void *arg, const void *p) {
  const DeviceBufs *D = arg;
  const char *q = p;
  for (uint32_t i = 0; i < D->n; i++) {
    const char *h = D->b[i].host;
    if (q >= h && (q < h + D->b[i].bytes || (D->b[i].bytes == 0 && q == h)))
      return D->dev[i] + (uint64_t)(q - h);
  }
  return 0;
}

static nvfp4rt_status upload_all(DeviceBufs *D) {
  for (uint32_t i = 0; i < D->n; i++) {
    nvfp4rt_status st = nvfp4rt_mem_alloc(D->ctx, D->b[i].bytes + 64, &D->dev[i]);
    if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_memcpy_htod(D->ctx, D->dev[i], D->b[i].host, D->b[i].bytes);
    if (st != NVFP4RT_STATUS_OK) return st;
  }
  return NVFP4RT_STATUS_OK;
}

static nvfp4rt_status download_written(DeviceBufs *D) {
  for (uint32_t i = 0; i < D->n; i++) {
    if (!D->b[i].written) continue;
    nvfp4rt_status st = nvfp4rt_memcpy_dtoh(D->ctx, D->b[i].host, D->dev[i], D->b[i].bytes);
    if (st != NVFP4RT_STATUS_OK) return st;
  }
  return NVFP4RT_STATUS_OK;
}

static void free_all(DeviceBufs *D) {
  for (uint32_t i = 0; i < D->n; i++)
    if (D->dev[i]) nvfp4rt_mem_free(D->ctx, D->dev[i]);
}

/* One plan of either form. */
typedef struct FusedPlan {
  nvfp4rt_plan *grouped;
  nvfp4rt_moe_plan *moe;
} FusedPlan;

static nvfp4rt_status fused_launch(void *arg, void *stream) {
  FusedPlan *p = arg;
  return p->moe ? nvfp4rt_moe_plan_launch(p->moe, stream) : nvfp4rt_plan_launch(p->grouped, stream);
}

static int parse(int argc, char **argv, FusedOpts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (usage(stderr), exit(EXIT_ERROR), (char *)0))
    if (!strcmp(a, "--fused")) continue;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(EXIT_PASS); }
    else if (!strcmp(a, "--groups")) o->spec.groups = NEXT();
    else if (!strcmp(a, "--random")) o->spec.random_groups = (uint32_t)run_parse_int(a, NEXT(), 1, 64);
    else if (!strcmp(a, "--moe")) o->spec.moe = NEXT();
    else if (!strcmp(a, "--tokens")) o->spec.tokens = (uint32_t)run_parse_int(a, NEXT(), 0, 0x7FFFFFFF);
    else if (!strcmp(a, "--routing")) {
      const char *r = NEXT();
      const int k = nvfp4h_moe_routing_parse(r);
      if (k != NVFP4H_ROUTE_RANDOM && k != NVFP4H_ROUTE_EMPTY && k != NVFP4H_ROUTE_ONE &&
          k != NVFP4H_ROUTE_BALANCED) {
        fprintf(stderr, "nvfp4-run --fused: routing '%s': expected random, empty, one or "
                        "balanced\n", r);
        return -1;
      }
      o->spec.routing = k;
    } else if (!strcmp(a, "--seed")) o->spec.seed = run_parse_u64(a, NEXT());
    else if (!strcmp(a, "--ldc-pad")) o->spec.ldc_pad = (uint32_t)run_parse_int(a, NEXT(), 0, 1 << 16);
    else if (!strcmp(a, "--threads")) o->spec.threads = (int)run_parse_int(a, NEXT(), 0, 4096);
    else if (!strcmp(a, "--full-range")) o->spec.full = 1;
    else if (!strcmp(a, "--variant")) o->variant = NEXT();
    else if (!strcmp(a, "--iters")) o->iters = (int)run_parse_int(a, NEXT(), 0, 1000000);
    else if (!strcmp(a, "--warmup")) o->warmup = (int)run_parse_int(a, NEXT(), 0, 1000000);
    else if (!strcmp(a, "--flush-l2")) o->flush_l2 = 1;
    else if (!strcmp(a, "--no-check")) o->no_check = 1;
    else if (!strcmp(a, "--no-pdl")) o->no_pdl = 1;
    else if (!strcmp(a, "--device")) o->device = (int)run_parse_int(a, NEXT(), 0, 1023);
    else if (!strcmp(a, "--json")) o->json = 1;
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "nvfp4-run: unknown option %s in --fused mode\n", a);
      usage(stderr);
      return -1;
    } else if (!o->cubin) o->cubin = a;
    else { fprintf(stderr, "nvfp4-run: unexpected argument %s\n", a); return -1; }
#undef NEXT
  }
  if (!o->cubin || (!!o->spec.groups + !!o->spec.random_groups + !!o->spec.moe) != 1) {
    usage(stderr);
    return -1;
  }
  return 0;
}

/* What the check of this family can be: 1 activations (debug build), 0 zeros (timing
 * proxy), -1 none (a production build: --no-check only; message printed). */
static int check_kind(const nvfp4_kernel_metadata *m, const FusedOpts *o) {
  if (m->flags & NVFP4_META_FLAG_DEBUG_ACTIVATIONS) return 1;
  if (m->flags & NVFP4_META_FLAG_PROXY) return 0;
  if (!o->no_check)
    fprintf(stderr, "nvfp4-run --fused: '%s' is a production build and stores no activations, "
                    "so nothing can be checked bit for bit: check its nvfp4.debug_activations "
                    "build, and time this one with --no-check\n", m->kernel_name);
  return -1;
}

/* Plans the case on `mod` with its activation dump when the family keeps one. */
static nvfp4rt_status make_plan(nvfp4rt_module *mod, FusedCase *fc, DeviceBufs *D,
                                nvfp4rt_plan_options *popts, FusedPlan *plan) {
  const nvfp4_kernel_metadata *m = nvfp4rt_module_variant(mod, popts->variant < 0 ? 0 : (uint32_t)popts->variant);
  if (m->flags & NVFP4_META_FLAG_DEBUG_ACTIVATIONS) popts->debug_activations = device_addr(D, fc->act);
  if (fc->is_moe) {
    nvfp4rt_moe_problem args = fused_case_moe_args(fc, device_addr, D);
    return nvfp4rt_moe_plan_create(mod, &args, popts, &plan->moe);
  }
  nvfp4rt_group groups[FUSED_MAX_SEGS];
  fused_case_groups(fc, device_addr, D, groups);
  /* the table order (descending M) is the same in every variant: it places the dump */
  static nvfp4rt_plan_layout layout;
  nvfp4rt_status st = nvfp4rt_plan_validate(m, groups, fc->nseg, &layout);
  if (st != NVFP4RT_STATUS_OK) return st;
  fused_case_place_act(fc, &layout);
  if (popts->debug_activations) popts->debug_activations_stride = fc->act_stride;
  return nvfp4rt_plan_create_ex(mod, groups, fc->nseg, popts, &plan->grouped);
}

int nvfp4_run_fused(int argc, char **argv) {
  FusedOpts o = {.spec = {.routing = NVFP4H_ROUTE_RANDOM, .tokens = UINT32_MAX, .seed = 1111},
                 .iters = 0, .warmup = 2};
  if (parse(argc, argv, &o) != 0) return EXIT_ERROR;
  static FusedCase fc;
  static DeviceBufs D;
  memset(&D, 0, sizeof D);
  nvfp4rt_context *ctx = NULL;
  nvfp4rt_module *mod = NULL;
  FusedPlan plan = {0};
  void *stream = NULL;
  double *times = NULL;
  int rc = run_open(o.device, o.cubin, &ctx, &mod);
  if (rc == EXIT_NO_GPU) return rc;
  if (rc != 0) goto done;
  rc = EXIT_ERROR;
  D.ctx = ctx;
  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  const nvfp4_kernel_metadata *m0 = nvfp4rt_module_metadata(mod);
  if (!(m0->epilogue_flags & NVFP4_META_EFLAG_SWIGLU_NVFP4) ||
      (m0->form == NVFP4_META_FORM_CONTIGUOUS) != (o.spec.moe != NULL)) {
    fprintf(stderr, "nvfp4-run --fused: %s is not a %s kernel with the fused SwiGLU epilogue\n",
            m0->kernel_name,
            o.spec.moe ? "nvfp4.moe_matmul (--moe)" : "nvfp4.grouped_matmul (--groups, --random)");
    goto done;
  }
  const int kind = check_kind(m0, &o);
  if (kind < 0 && !o.no_check) goto done;
  nvfp4rt_plan_options popts = NVFP4RT_PLAN_OPTIONS_INIT;
  if (o.no_pdl) popts.pdl = NVFP4RT_PDL_OFF;
  if (o.variant && (popts.variant = run_variant(mod, o.variant)) < 0) goto done;
  o.spec.no_reference = o.no_check;
  if (fused_case_setup(&fc, &o.spec, m0, "nvfp4-run --fused") != 0) goto done;
  D.n = fused_case_buffers(&fc, D.b);
  if ((st = upload_all(&D)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  if ((st = make_plan(mod, &fc, &D, &popts, &plan)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  st = plan.moe ? nvfp4rt_moe_plan_get_info(plan.moe, &info) : nvfp4rt_plan_get_info(plan.grouped, &info);
  if (st != NVFP4RT_STATUS_OK) FAIL_RT(st);
  if ((st = nvfp4rt_stream_create(ctx, &stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  const int pdl = plan.moe ? nvfp4rt_moe_plan_uses_pdl(plan.moe) : nvfp4rt_plan_uses_pdl(plan.grouped);
  const nvfp4rt_device_info *dev = nvfp4rt_context_device_info(ctx);
  if (!o.json) {
    printf("device   %s (sm_%d%d, %d SMs)\n", dev->name, dev->cc_major, dev->cc_minor, dev->sm_count);
    printf("kernel   %s [%s]  grid %u  smem %u  params %u bytes  fused swiglu_nvfp4%s%s\n",
           info.kernel_name, m0->target, info.grid, info.dyn_smem_bytes, info.param_bytes,
           fc.with_alpha ? " x alpha" : "", pdl ? "  pdl" : "");
    if (fc.nseg <= 16) fused_case_print(&fc);
    else printf("  %u %s, M %u in all\n", fc.nseg, fc.is_moe ? "experts" : "groups",
                fc.is_moe ? fc.moe.m : 0u);
  }
  /* the checked launch */
  if (fused_case_snapshot(&fc) != 0) { fprintf(stderr, "nvfp4-run --fused: out of host memory\n"); goto done; }
  if ((st = fused_launch(&plan, stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  if ((st = nvfp4rt_stream_synchronize(ctx, stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  if ((st = download_written(&D)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  int pass = 1;
  if (o.no_check) { if (!o.json) printf("check    skipped (--no-check)\n"); }
  else pass = fused_case_check(&fc, kind);
  /* device time */
  double dev_us = 0;
  if (o.iters > 0) {
    if (!(times = calloc((size_t)o.iters, sizeof *times))) { fprintf(stderr, "nvfp4-run --fused: out of host memory\n"); goto done; }
    if ((st = run_event_times(ctx, stream, o.flush_l2, fused_launch, &plan, o.warmup, o.iters,
                              times)) != NVFP4RT_STATUS_OK)
      FAIL_RT(st);
    dev_us = median(times, o.iters);
    if (!o.json)
      printf("time     %.3f us median of %d launches%s\n", dev_us, o.iters,
             o.flush_l2 ? ", L2 flushed" : "");
  }
  if (o.json) {
    printf("{\"mode\": \"fused\", \"kernel\": ");
    json_str(info.kernel_name);
    printf(", \"target\": ");
    json_str(m0->target);
    printf(", \"device\": ");
    json_str(dev->name);
    printf(", \"form\": \"%s\", \"segments\": %u, \"grid\": %u, \"pdl\": %s, \"check\": \"%s\", "
           "\"iters\": %d, \"flush_l2\": %s, \"time_us_median\": %.3f}\n",
           fc.is_moe ? "contiguous" : "pointer-array", fc.nseg, info.grid, pdl ? "true" : "false",
           o.no_check ? "skipped" : pass ? "pass" : "fail", o.iters, o.flush_l2 ? "true" : "false",
           dev_us);
  }
  rc = pass ? EXIT_PASS : EXIT_CHECK_FAILED;
done:
  free(times);
  if (stream) nvfp4rt_stream_destroy(ctx, stream);
  nvfp4rt_plan_destroy(plan.grouped);
  nvfp4rt_moe_plan_destroy(plan.moe);
  free_all(&D);
  fused_case_free(&fc);
  nvfp4rt_module_destroy(mod);
  nvfp4rt_context_destroy(ctx);
  return rc;
}
