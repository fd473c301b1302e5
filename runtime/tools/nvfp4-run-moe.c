/* nvfp4-run-moe.c — the contiguous (MoE) mode of nvfp4-run: nvfp4-run CUBIN --moe
 * E,M,N,K runs a kernel of nvfp4.moe_matmul on generated inputs (M token rows, T of them
 * routed over E experts by a named routing, adversarial ones included), checks C against
 * the C reference of every expert (nothing outside C's M x N region, nor in rows no expert
 * owns, may change), and optionally
 *   --graph-replays R  captures the launch in a CUDA graph once, then R times changes the
 *                      routing in device memory (offsets and the scale-factor layout that
 *                      goes with it, C reset to its garbage), replays the same graph and
 *                      checks again: one graph serves every routing;
 *   --launch-iters N   measures the host cost of a launch: nvfp4rt_moe_plan_launch on the
 *                      cached plan, and nvfp4rt_moe_plan_update with fresh pointers (a
 *                      second set of buffers, every map re-encoded) plus the launch;
 *   --iters N          times N launches with CUDA events (median; --flush-l2 clears L2
 *                      before each, as the competition did);
 *   --no-check         skips the checks (the host path alone, e.g. on a test driver).
 * Exit codes as nvfp4-run: 0 pass, 1 check failed, 2 error (a bad --device included), 77
 * no GPU. As in the grouped mode, CUBIN may be "-" (standard input), numbers on the
 * command line are checked whole and in range, and strings in --json output are escaped. */
#include "run_common.h"

#include <string.h>

#include "nvfp4rt_host.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: nvfp4-run CUBIN --moe E,M,N,K [--tokens T] [--routing NAME] [--seed S]\n"
          "                 [--full-range] [--ldc-pad P] [--alpha-values V,...] [--variant NAME|INDEX]\n"
          "                 [--groups-out FILE]\n"
          "                 [--graph-replays R] [--iters N] [--flush-l2] [--launch-iters N]\n"
          "                 [--threads T] [--json] [--no-check] [--device D]\n"
          "  E experts, M token rows of A and C (T <= M routed, default M), N, K per expert;\n"
          "  routings: random empty one balanced decreasing beyond (default random)\n"
          "exit: 0 ok, 1 check failed, 2 error, 77 no CUDA driver/device\n");
}

typedef struct moe_opts {
  const char *cubin, *variant, *groups_out;
  uint32_t e, m, n, k, tokens, ldc_pad;
  int routing, full_range, replays, launch_iters, threads, json, device, tokens_set, no_check;
  int iters, flush_l2, nalphas;
  float alphas[RUN_MAX_ALPHAS];
  uint64_t seed;
} moe_opts;

/* Device copies of one problem's buffers. */
typedef struct moe_bufs { uint64_t a, b, sfa, sfb, c, offsets, alpha; } moe_bufs;

static nvfp4rt_status alloc_bufs(nvfp4rt_context *ctx, const nvfp4h_moe_problem *p, int alpha,
                                 moe_bufs *d) {
  const size_t bytes[7] = {p->a_bytes, p->b_bytes, p->sfa_bytes, p->sfb_bytes, p->c_alloc_bytes,
                           sizeof(int32_t) * (p->num_experts + 1u),
                           alpha ? sizeof(float) * p->num_experts : 0};
  uint64_t *dst[7] = {&d->a, &d->b, &d->sfa, &d->sfb, &d->c, &d->offsets, &d->alpha};
  for (int i = 0; i < 7; i++) {
    *dst[i] = 0;
    if (!bytes[i]) continue;
    nvfp4rt_status st = nvfp4rt_mem_alloc(ctx, bytes[i], dst[i]);
    if (st != NVFP4RT_STATUS_OK) return st;
  }
  return NVFP4RT_STATUS_OK;
}

static void free_bufs(nvfp4rt_context *ctx, moe_bufs *d) {
  const uint64_t p[7] = {d->a, d->b, d->sfa, d->sfb, d->c, d->offsets, d->alpha};
  for (int i = 0; i < 7; i++) nvfp4rt_mem_free(ctx, p[i]);
  memset(d, 0, sizeof *d);
}

/* Uploads what a routing changes (offsets, SFA) and resets C to its garbage; with `all`,
 * also A, B, SFB and alpha. */
static nvfp4rt_status upload(nvfp4rt_context *ctx, const nvfp4h_moe_problem *p,
                             const moe_bufs *d, int all) {
  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  if (all && ((st = nvfp4rt_memcpy_htod(ctx, d->a, p->a, p->a_bytes)) ||
              (st = nvfp4rt_memcpy_htod(ctx, d->b, p->b, p->b_bytes)) ||
              (st = nvfp4rt_memcpy_htod(ctx, d->sfb, p->sfb, p->sfb_bytes)) ||
              (d->alpha && (st = nvfp4rt_memcpy_htod(ctx, d->alpha, p->alpha,
                                                     sizeof(float) * p->num_experts)))))
    return st;
  if ((st = nvfp4rt_memcpy_htod(ctx, d->offsets, p->offsets,
                                sizeof(int32_t) * (p->num_experts + 1u))) ||
      (st = nvfp4rt_memcpy_htod(ctx, d->sfa, p->sfa, p->sfa_bytes)) ||
      (st = nvfp4rt_memcpy_htod(ctx, d->c, p->c, p->c_alloc_bytes)))
    return st;
  return NVFP4RT_STATUS_OK;
}

static nvfp4rt_moe_problem launch_args(const nvfp4h_moe_problem *p, const moe_bufs *d) {
  nvfp4rt_moe_problem a = {.a = d->a, .b = d->b, .sfa = d->sfa, .sfb = d->sfb, .c = d->c,
                           .offsets = d->offsets, .alpha = d->alpha, .m = p->m, .n = p->n,
                           .k = p->k, .ldc = p->ldc, .num_experts = p->num_experts,
                           .sfa_atoms = p->sfa_atoms};
  return a;
}

/* Reads C back and checks it; prints one "check" line (and the first problems). */
static int check_c(nvfp4rt_context *ctx, const nvfp4h_moe_problem *p, const moe_bufs *d,
                   int threads, const char *label, int json, int skip, nvfp4h_check_result *chk) {
  nvfp4h_check_init(chk);
  if (skip) {
    if (!json) printf("check    %s skipped (--no-check)\n", label);
    return 1;
  }
  void *got = malloc(p->c_alloc_bytes);
  if (!got) return -1;
  nvfp4rt_status st = nvfp4rt_memcpy_dtoh(ctx, got, d->c, p->c_alloc_bytes);
  int rc = st == NVFP4RT_STATUS_OK ? nvfp4h_moe_check(p, got, threads, chk) : -1;
  free(got);
  if (rc) return -1;
  const int pass = nvfp4h_check_passed(chk);
  if (json) return pass;
  double atol, rtol;
  nvfp4h_check_tolerance(p->c_type, &atol, &rtol);
  printf("check    %s %s  (%llu/%llu mismatches, max abs %.4g, max rel %.4g, atol %g rtol %g; "
         "%llu elements outside the experts' M x N unchanged: %s)\n",
         label, pass ? "PASS" : "FAIL", (unsigned long long)chk->mismatches,
         (unsigned long long)chk->checked, chk->max_abs, chk->max_rel, atol, rtol,
         (unsigned long long)chk->outside_checked, chk->outside_writes ? "NO" : "yes");
  for (uint32_t i = 0; i < chk->reported; i++)
    printf("  mismatch expert %u [row %u, col %u]: got %.6g ref %.6g\n", chk->first[i].group,
           chk->first[i].row, chk->first[i].col, chk->first[i].got, chk->first[i].ref);
  for (uint32_t i = 0; i < chk->outside_reported; i++) {
    const nvfp4h_outside_write *w = &chk->first_outside[i];
    printf("  outside write [row %u, col %u] (%s): 0x%x, was 0x%x\n", w->row, w->col,
           w->row >= p->m ? "guard row past M" : w->col >= p->n ? "padding column"
                                                                : "row no expert owns",
           w->got, w->want);
  }
  return pass;
}

static int parse(int argc, char **argv, moe_opts *o) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { usage(stdout); exit(0); }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : NULL)
#define VALUE(v) const char *v = NEXT();                                                        \
    if (!v) { fprintf(stderr, "nvfp4-run: %s needs a value\n", a); return -1; }
#define NUM(dst, lo, hi) do { VALUE(v_) (dst) = run_parse_int(a, v_, lo, hi); } while (0)
    if (!strcmp(a, "--moe")) {
      const char *v = NEXT();
      uint32_t x[4];
      if (run_parse_moe(v, x) != 0) {
        fprintf(stderr, "nvfp4-run: bad --moe '%s' (E,M,N,K: 1 <= E <= %u, K a positive "
                        "multiple of 64)\n", v ? v : "", NVFP4_ABI_MAX_GROUPS);
        return -1;
      }
      o->e = x[0]; o->m = x[1]; o->n = x[2]; o->k = x[3];
    } else if (!strcmp(a, "--tokens")) { NUM(o->tokens, 0, 0x7FFFFFFF); o->tokens_set = 1; }
    else if (!strcmp(a, "--ldc-pad")) { NUM(o->ldc_pad, 0, 1 << 20); }
    else if (!strcmp(a, "--routing")) {
      const char *v = NEXT();
      if ((o->routing = nvfp4h_moe_routing_parse(v)) < 0) {
        fprintf(stderr, "nvfp4-run: unknown routing '%s'\n", v ? v : "");
        return -1;
      }
    } else if (!strcmp(a, "--seed")) { VALUE(v) o->seed = run_parse_u64(a, v); }
    else if (!strcmp(a, "--variant")) o->variant = NEXT();
    else if (!strcmp(a, "--groups-out")) { VALUE(v) o->groups_out = v; }
    else if (!strcmp(a, "--full-range")) o->full_range = 1;
    else if (!strcmp(a, "--alpha-values")) { VALUE(v) o->nalphas = run_parse_alphas(v, o->alphas); }
    else if (!strcmp(a, "--graph-replays")) NUM(o->replays, 0, 1000000);
    else if (!strcmp(a, "--launch-iters")) NUM(o->launch_iters, 0, 10000000);
    else if (!strcmp(a, "--threads")) NUM(o->threads, 0, 4096);
    else if (!strcmp(a, "--device")) NUM(o->device, 0, 1023);
    else if (!strcmp(a, "--json")) o->json = 1;
    else if (!strcmp(a, "--no-check")) o->no_check = 1;
    else if (!strcmp(a, "--iters")) NUM(o->iters, 0, 1000000);
    else if (!strcmp(a, "--flush-l2")) o->flush_l2 = 1;
    else if (a[0] == '-' && a[1]) { fprintf(stderr, "nvfp4-run: unknown option %s in --moe mode\n", a); return -1; }
    else if (!o->cubin) o->cubin = a;
    else { fprintf(stderr, "nvfp4-run: unexpected argument %s\n", a); return -1; }
#undef NUM
#undef VALUE
#undef NEXT
  }
  if (!o->cubin) { usage(stderr); return -1; }
  if (!o->tokens_set) o->tokens = o->m;
  if (o->tokens > o->m) {
    fprintf(stderr, "nvfp4-run: --tokens %u exceeds M = %u\n", o->tokens, o->m);
    return -1;
  }
  return 0;
}

/* --groups-out: the routing's experts as an nvfp4-run / nvfp4-hopper-bench --groups list
 * ("m,n,k;..." with each expert's clamped rows), so that the pointer-array form and cuBLAS
 * can be run on the same shapes. */
static int write_groups(const char *path, const nvfp4h_moe_problem *p) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "nvfp4-run: cannot write --groups-out %s\n", path);
    return -1;
  }
  for (uint32_t e = 0; e < p->num_experts; e++) {
    uint32_t start, rows;
    nvfp4h_moe_expert_rows(p->offsets, p->m, e, &start, &rows);
    fprintf(f, "%s%u,%u,%u", e ? ";" : "", rows, p->n, p->k);
  }
  fputc('\n', f);
  return fclose(f) == 0 ? 0 : -1;
}

static nvfp4rt_status moe_launch(void *plan, void *stream) {
  return nvfp4rt_moe_plan_launch((nvfp4rt_moe_plan *)plan, stream);
}

int nvfp4_run_moe(int argc, char **argv) {
  moe_opts o = {.seed = 1111, .routing = NVFP4H_ROUTE_RANDOM};
  if (parse(argc, argv, &o)) return EXIT_ERROR;

  int rc = EXIT_ERROR;
  nvfp4rt_context *ctx = NULL;
  nvfp4rt_module *mod = NULL;
  nvfp4rt_moe_plan *plan = NULL;
  void *stream = NULL, *graph = NULL;
  moe_bufs d = {0}, d2 = {0};
  nvfp4h_moe_problem prob;
  memset(&prob, 0, sizeof prob);
  double *host = NULL, *fresh = NULL, *times = NULL;
  nvfp4rt_status st = NVFP4RT_STATUS_OK;

  if ((rc = run_open(o.device, o.cubin, &ctx, &mod)) == EXIT_NO_GPU) return rc;
  if (rc != 0) goto done;
  rc = EXIT_ERROR;
  const nvfp4rt_device_info *dev = nvfp4rt_context_device_info(ctx);
  const nvfp4_kernel_metadata *m0 = nvfp4rt_module_metadata(mod);
  if (run_refuse_fused(m0, "nvfp4-run")) goto done;
  if (m0->form != NVFP4_META_FORM_CONTIGUOUS) {
    fprintf(stderr, "nvfp4-run: %s holds pointer-array kernels (nvfp4.grouped_matmul); "
                    "--moe needs an nvfp4.moe_matmul cubin\n", o.cubin);
    goto done;
  }
  if (m0->max_groups != o.e) {
    fprintf(stderr, "nvfp4-run: the kernel was compiled for %u experts, --moe asks for %u\n",
            m0->max_groups, o.e);
    goto done;
  }
  nvfp4rt_plan_options popts = NVFP4RT_PLAN_OPTIONS_INIT;
  if (o.variant && (popts.variant = run_variant(mod, o.variant)) < 0) goto done;
  const int with_alpha = (m0->epilogue_flags & NVFP4_META_EFLAG_ALPHA) != 0;
  nvfp4h_gen_options gopts = {.ldc_pad = o.ldc_pad, .c_type = (nvfp4h_c_type)m0->c_type,
                              .alpha = with_alpha};
  const int gen = nvfp4h_moe_generate(o.e, o.m, o.n, o.k, o.tokens,
                                      (nvfp4h_moe_routing)o.routing, o.seed,
                                      o.full_range ? NVFP4H_DIST_FULL_RANGE
                                                   : NVFP4H_DIST_COMPETITION,
                                      &gopts, &prob);
  if (gen != 0) {
    fprintf(stderr, "nvfp4-run: cannot generate inputs: %s\n",
            gen == NVFP4H_GENERATE_NO_MEMORY ? "out of host memory" : "bad sizes");
    goto done;
  }
  if (run_apply_alphas(o.alphas, o.nalphas, with_alpha, prob.alpha, sizeof *prob.alpha, prob.num_experts) != 0)
    goto done;
  if (o.groups_out && write_groups(o.groups_out, &prob) != 0) goto done;
  if ((st = alloc_bufs(ctx, &prob, with_alpha, &d)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  if ((st = upload(ctx, &prob, &d, 1)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  nvfp4rt_moe_problem args = launch_args(&prob, &d);
  if ((st = nvfp4rt_moe_plan_create(mod, &args, &popts, &plan)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  if ((st = nvfp4rt_moe_plan_get_info(plan, &info)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  if ((st = nvfp4rt_stream_create(ctx, &stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  if (!o.json) {
    printf("device   %s (sm_%d%d, %d SMs)\n", dev->name, dev->cc_major, dev->cc_minor,
           dev->sm_count);
    printf("kernel   %s [%s]  grid %u  smem %u  params %u bytes  C %s%s\n", info.kernel_name,
           m0->target, info.grid, info.dyn_smem_bytes, info.param_bytes,
           nvfp4h_c_type_name(prob.c_type), with_alpha ? " x alpha" : "");
    printf("moe      E %u  M %u  N %u  K %u  tokens %u  routing %s  seed %llu  %s\n", o.e, o.m,
           o.n, o.k, o.tokens, nvfp4h_moe_routing_name((nvfp4h_moe_routing)o.routing),
           (unsigned long long)o.seed, o.full_range ? "full-range" : "competition");
  }

  /* the direct launch */
  double t0 = now_us();
  if ((st = nvfp4rt_moe_plan_launch(plan, stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  if ((st = nvfp4rt_stream_synchronize(ctx, stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  double run_ms = (now_us() - t0) / 1e3;
  nvfp4h_check_result chk;
  int pass = check_c(ctx, &prob, &d, o.threads, "launch", o.json, o.no_check, &chk);
  if (pass < 0) { fprintf(stderr, "nvfp4-run: check out of memory\n"); goto done; }
  int all_pass = pass, replays_passed = 0;

  /* one graph, every routing */
  if (o.replays > 0) {
    if ((st = nvfp4rt_graph_capture_begin(ctx, stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
    st = nvfp4rt_moe_plan_launch(plan, stream);
    nvfp4rt_status st2 = nvfp4rt_graph_capture_end(ctx, stream, &graph);
    if (st != NVFP4RT_STATUS_OK) FAIL_RT(st);
    if (st2 != NVFP4RT_STATUS_OK) FAIL_RT(st2);
    for (int r = 0; r < o.replays; r++) {
      const nvfp4h_moe_routing route = (nvfp4h_moe_routing)((o.routing + 1 + r) % NVFP4H_ROUTE_COUNT_);
      nvfp4h_moe_route(route, o.seed + 1 + (uint64_t)r, o.e, o.m, o.tokens, prob.offsets);
      nvfp4h_moe_layout_sfa(&prob);
      if ((st = upload(ctx, &prob, &d, 0)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
      if ((st = nvfp4rt_graph_launch(ctx, graph, stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
      if ((st = nvfp4rt_stream_synchronize(ctx, stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
      char label[64];
      snprintf(label, sizeof label, "replay %d (%s)", r + 1, nvfp4h_moe_routing_name(route));
      nvfp4h_check_result rchk;
      int ok = check_c(ctx, &prob, &d, o.threads, label, o.json, o.no_check, &rchk);
      if (ok < 0) { fprintf(stderr, "nvfp4-run: check out of memory\n"); goto done; }
      replays_passed += ok;
      all_pass &= ok;
    }
  }

  /* device time of the launch (the routing of the last run) */
  double dev_us = 0;
  if (o.iters > 0) {
    times = calloc((size_t)o.iters, sizeof *times);
    if (!times) { fprintf(stderr, "nvfp4-run: out of host memory (--iters %d)\n", o.iters); goto done; }
    if ((st = run_event_times(ctx, stream, o.flush_l2, moe_launch, plan, 0, o.iters, times)) !=
        NVFP4RT_STATUS_OK)
      FAIL_RT(st);
    dev_us = median(times, o.iters);
  }

  /* host cost: cached plan, and fresh pointers (update + launch) */
  double host_us = 0, fresh_us = 0;
  uint64_t per_update = 0;
  if (o.launch_iters > 0) {
    host = calloc((size_t)o.launch_iters, sizeof *host);
    fresh = calloc((size_t)o.launch_iters, sizeof *fresh);
    if (!host || !fresh) {
      fprintf(stderr, "nvfp4-run: out of host memory (--launch-iters %d)\n", o.launch_iters);
      goto done;
    }
    if ((st = run_host_times(ctx, stream, moe_launch, plan, o.launch_iters, host)) !=
        NVFP4RT_STATUS_OK)
      FAIL_RT(st);
    /* a second set of buffers with the same routing, alternating with the first */
    if ((st = alloc_bufs(ctx, &prob, with_alpha, &d2)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
    if ((st = upload(ctx, &prob, &d2, 1)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
    nvfp4rt_moe_problem sets[2] = {launch_args(&prob, &d2), launch_args(&prob, &d)};
    if ((st = nvfp4rt_moe_plan_get_info(plan, &info)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
    const uint64_t enc0 = info.tmaps_encoded;
    for (int i = 0; i < o.launch_iters; i++) {
      if (i % 32 == 0 && (st = nvfp4rt_stream_synchronize(ctx, stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
      double s0 = now_us();
      st = nvfp4rt_moe_plan_update(plan, &sets[i % 2]);
      if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_moe_plan_launch(plan, stream);
      fresh[i] = now_us() - s0;
      if (st != NVFP4RT_STATUS_OK) FAIL_RT(st);
    }
    if ((st = nvfp4rt_stream_synchronize(ctx, stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
    if ((st = nvfp4rt_moe_plan_get_info(plan, &info)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
    per_update = (info.tmaps_encoded - enc0) / (uint64_t)o.launch_iters;
    host_us = median(host, o.launch_iters);
    fresh_us = median(fresh, o.launch_iters);
  }

  if ((st = nvfp4rt_moe_plan_get_info(plan, &info)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  if (o.json) {
    char jn[2][40];
    printf("{\"cubin\": ");
    json_str(o.cubin);
    printf(", \"kernel\": ");
    json_str(info.kernel_name);
    printf(", \"device\": ");
    json_str(dev->name);
    printf(", \"experts\": %u, \"m\": %u, "
           "\"n\": %u, \"k\": %u, \"tokens\": %u, \"routing\": \"%s\", \"seed\": %llu, "
           "\"c_type\": \"%s\", \"alpha\": %s, \"grid\": %u, \"param_bytes\": %u, \"pass\": %s, "
           "\"mismatches\": %llu, \"max_abs_err\": %s, \"max_rel_err\": %s, "
           "\"outside_checked\": %llu, \"outside_writes\": %llu, \"graph_replays\": %d, "
           "\"graph_replays_passed\": %d, \"run_ms\": %.1f, \"launch_iters\": %d, "
           "\"host_launch_us_median\": %.3f, \"host_fresh_update_launch_us_median\": %.3f, "
           "\"maps_reencoded_per_update\": %llu, \"iters\": %d, \"flush_l2\": %s, "
           "\"time_us_median\": %.3f, \"table_bytes\": %u, \"table_cache\": %u, "
           "\"tables_uploaded\": %llu, \"table_cache_hits\": %llu}\n",
           o.e, o.m, o.n, o.k, o.tokens,
           nvfp4h_moe_routing_name((nvfp4h_moe_routing)o.routing), (unsigned long long)o.seed,
           nvfp4h_c_type_name(prob.c_type), with_alpha ? "true" : "false", info.grid,
           info.param_bytes, all_pass ? "true" : "false", (unsigned long long)chk.mismatches,
           json_num(jn[0], chk.max_abs, 6), json_num(jn[1], chk.max_rel, 6),
           (unsigned long long)chk.outside_checked,
           (unsigned long long)chk.outside_writes, o.replays, replays_passed, run_ms,
           o.launch_iters, host_us, fresh_us, (unsigned long long)per_update, o.iters,
           o.flush_l2 ? "true" : "false", dev_us, info.table_bytes, info.table_cache,
           (unsigned long long)info.tables_uploaded, (unsigned long long)info.table_cache_hits);
  } else {
    if (o.replays > 0)
      printf("graph    captured once, %d of %d replays with a new routing passed\n",
             replays_passed, o.replays);
    if (o.iters > 0)
      printf("time     median %.2f us  (%d launches%s)\n", dev_us, o.iters,
             o.flush_l2 ? ", L2 flushed" : "");
    if (o.launch_iters > 0)
      printf("host     nvfp4rt_moe_plan_launch median %.3f us (cached plan, %d calls); "
             "nvfp4rt_moe_plan_update + launch with fresh pointers median %.3f us "
             "(%llu maps re-encoded per update)\n",
             host_us, o.launch_iters, fresh_us, (unsigned long long)per_update);
    printf("tables   the %u-byte table of tensor maps: %llu copied, %llu found in a cache of %u\n",
           info.table_bytes, (unsigned long long)info.tables_uploaded,
           (unsigned long long)info.table_cache_hits, info.table_cache);
    printf("result   %s\n", all_pass ? "PASS" : "FAIL");
  }
  rc = all_pass ? EXIT_PASS : EXIT_CHECK_FAILED;

done:
  free(host);
  free(fresh);
  free(times);
  nvfp4rt_graph_destroy(ctx, graph);
  free_bufs(ctx, &d);
  free_bufs(ctx, &d2);
  nvfp4rt_stream_destroy(ctx, stream);
  nvfp4rt_moe_plan_destroy(plan);
  nvfp4rt_module_destroy(mod);
  nvfp4rt_context_destroy(ctx);
  nvfp4h_moe_problem_free(&prob);
  return rc;
}
