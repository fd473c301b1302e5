/* nvfp4-run-cpu-moe.c — `nvfp4-run --cpu KERNEL.so --moe E,M,N,K`: runs the CPU execution
 * target of an nvfp4.moe_matmul kernel family on the CTA simulator with the contiguous
 * form's generator (tokens routed over E experts, adversarial offsets included) and the
 * MoE check (each row holds the result of the expert(s) owning it; rows no expert owns,
 * padding and the guard row are unchanged).
 *
 *   nvfp4-run --cpu KERNEL.so --moe E,M,N,K [--tokens T] [--routing NAME] [--seed S]
 *             [--full-range] [--ldc-pad P] [--alpha-values V,...] [--variant V] [--sms N]
 *             [--schedule-seed S] [--reroutes R] [--max-reports N] [--threads T] [--json]
 *
 * --reroutes R launches R more times with the same parameter block after writing a new
 * routing (offsets and the scale-factor layout that goes with it) into the same buffers
 * and resetting C: the kernel finds the experts' sizes itself, nothing is re-planned.
 * Exit codes as nvfp4-run --cpu: 0 pass, 1 check failed, 2 error, 3 deadlock, 4 hazard or
 * illegal operation. Numbers on the command line are checked whole and in range. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4rt.h"
#include "nvfp4rt_host.h"
#include "nvfp4sim.h"
#include "run_common.h"
#include "run_cpu_exit.h"

int nvfp4_run_cpu_moe(int argc, char **argv);

static void usage(FILE *f) {
  fprintf(f, "usage: nvfp4-run --cpu KERNEL.so --moe E,M,N,K [--tokens T] [--routing NAME]\n"
             "                 [--seed S] [--full-range] [--ldc-pad P] [--alpha-values V,...]\n"
             "                 [--variant NAME|INDEX]\n"
             "                 [--sms N] [--schedule-seed S] [--reroutes R] [--max-reports N]\n"
             "                 [--threads T] [--json]\n"
             "  routings: random empty one balanced decreasing beyond (default random)\n"
             "exit: 0 ok, 1 check failed, 2 error, 3 deadlock, 4 hazard or illegal operation\n");
}

/* One launch on the current routing: C reset, simulated, checked. Returns the exit code. */
static int launch_and_check(const nvfp4sim_module *mod, uint32_t v, const void *block,
                            uint32_t grid, nvfp4h_moe_problem *p, void *c,
                            const nvfp4sim_range *workspace, const nvfp4sim_options *opts,
                            int threads, int json, const char *label) {
  memcpy(c, p->c, p->c_alloc_bytes);
  /* C, and the workspace (a native sm_90a kernel's expert schedules) refilled with garbage:
   * the kernel must write what it reads there at every launch */
  nvfp4sim_range writable[2] = {{c, p->c_alloc_bytes, "C"}, {NULL, 0, NULL}};
  if (workspace->bytes) {
    memset((void *)(uintptr_t)workspace->base, 0xA5, workspace->bytes);
    writable[1] = *workspace;
  }
  nvfp4sim_result res;
  memset(&res, 0, sizeof res);
  if (grid) nvfp4sim_launch(mod, v, block, grid, writable, workspace->bytes ? 2 : 1, opts, &res);
  if (res.outcome == NVFP4SIM_ERROR) {
    fprintf(stderr, "nvfp4-run --cpu: %s\n", res.message);
    return CPU_ERROR;
  }
  const int ran = cpu_run_finished(res.outcome);
  nvfp4h_check_result chk;
  nvfp4h_check_init(&chk);
  if (ran && nvfp4h_moe_check(p, c, threads, &chk) != 0) {
    fprintf(stderr, "nvfp4-run --cpu: check out of memory\n");
    return CPU_ERROR;
  }
  const int pass = ran && nvfp4h_check_passed(&chk);
  if (json) {
    char jn[40];
    printf("{\"run\": \"%s\", \"simulation\": \"%s\", \"hazards\": %llu, \"pass\": %s, "
           "\"mismatches\": %llu, \"checked\": %llu, \"outside_checked\": %llu, "
           "\"outside_writes\": %llu, \"max_abs_err\": %s, \"cpu_ms\": %.1f, \"mma_ops\": %llu}\n",
           label, nvfp4sim_outcome_name(res.outcome), (unsigned long long)res.hazards,
           pass ? "true" : "false", (unsigned long long)chk.mismatches,
           (unsigned long long)chk.checked, (unsigned long long)chk.outside_checked,
           (unsigned long long)chk.outside_writes, json_num(jn, chk.max_abs, 6), res.wall_ms,
           (unsigned long long)res.mma_ops);
  } else {
    printf("sim      %s %s  (%llu hazard reports, %u clusters, %.1f ms, %llu mma, %llu tma)\n",
           label, nvfp4sim_outcome_name(res.outcome), (unsigned long long)res.hazards,
           res.clusters, res.wall_ms, (unsigned long long)res.mma_ops,
           (unsigned long long)res.tma_ops);
    if (res.message[0]) printf("  %s\n", res.message);
    run_cpu_print_pdl(&nvfp4sim_module_table(mod)->variants[v], &res, grid);
    if (ran) {
      printf("check    %s %s  (%llu/%llu mismatches, max abs %.4g, max rel %.4g; %llu elements "
             "outside the experts' M x N, %llu changed)\n",
             label, pass ? "PASS" : "FAIL", (unsigned long long)chk.mismatches,
             (unsigned long long)chk.checked, chk.max_abs, chk.max_rel,
             (unsigned long long)chk.outside_checked, (unsigned long long)chk.outside_writes);
      for (uint32_t i = 0; i < chk.reported; i++)
        printf("  mismatch expert %u [row %u, col %u]: got %.6g ref %.6g\n", chk.first[i].group,
               chk.first[i].row, chk.first[i].col, chk.first[i].got, chk.first[i].ref);
      for (uint32_t i = 0; i < chk.outside_reported; i++)
        printf("  outside write [row %u, col %u]: 0x%x, was 0x%x\n", chk.first_outside[i].row,
               chk.first_outside[i].col, chk.first_outside[i].got, chk.first_outside[i].want);
    }
  }
  return cpu_exit_code(res.outcome, pass);
}

int nvfp4_run_cpu_moe(int argc, char **argv) {
  const char *path = NULL, *variant = NULL, *moe = NULL;
  uint64_t seed = 1111, sched = 1;
  uint32_t ldc_pad = 0, sms = 4, max_reports = 10, tokens = UINT32_MAX, reroutes = 0;
  int full = 0, json = 0, threads = 0, routing = NVFP4H_ROUTE_RANDOM, nalphas = 0;
  float alphas[RUN_MAX_ALPHAS];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (usage(stderr), exit(CPU_ERROR), (char *)0))
    if (!strcmp(a, "--cpu")) path = NEXT();
    else if (!strcmp(a, "--moe")) moe = NEXT();
    else if (!strcmp(a, "--tokens")) tokens = (uint32_t)run_parse_int(a, NEXT(), 0, 0x7FFFFFFF);
    else if (!strcmp(a, "--routing")) {
      const char *r = NEXT();
      if ((routing = nvfp4h_moe_routing_parse(r)) < 0) {
        fprintf(stderr, "nvfp4-run --cpu: unknown routing '%s'\n", r);
        return CPU_ERROR;
      }
    } else if (!strcmp(a, "--variant")) variant = NEXT();
    else if (!strcmp(a, "--seed")) seed = run_parse_u64(a, NEXT());
    else if (!strcmp(a, "--schedule-seed")) sched = run_parse_u64(a, NEXT());
    else if (!strcmp(a, "--sms")) sms = (uint32_t)run_parse_int(a, NEXT(), 1, 4096);
    else if (!strcmp(a, "--reroutes")) reroutes = (uint32_t)run_parse_int(a, NEXT(), 0, 1000000);
    else if (!strcmp(a, "--max-reports")) max_reports = (uint32_t)run_parse_int(a, NEXT(), 0, 1000000);
    else if (!strcmp(a, "--ldc-pad")) ldc_pad = (uint32_t)run_parse_int(a, NEXT(), 0, 1 << 20);
    else if (!strcmp(a, "--threads")) threads = (int)run_parse_int(a, NEXT(), 0, 4096);
    else if (!strcmp(a, "--full-range")) full = 1;
    else if (!strcmp(a, "--alpha-values")) nalphas = run_parse_alphas(NEXT(), alphas);
    else if (!strcmp(a, "--json")) json = 1;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
    else { fprintf(stderr, "nvfp4-run --cpu: unknown argument %s in --moe mode\n", a); usage(stderr); return CPU_ERROR; }
#undef NEXT
  }
  uint32_t x[4] = {0, 0, 0, 0};
  if (moe && run_parse_moe(moe, x) != 0) {
    fprintf(stderr, "nvfp4-run --cpu: bad --moe '%s' (E,M,N,K: 1 <= E <= %u, K a positive "
                    "multiple of 64)\n", moe, NVFP4_ABI_MAX_GROUPS);
    return CPU_ERROR;
  }
  const unsigned long e = x[0], m = x[1], n = x[2], k = x[3];
  if (!path || !moe || sms < 1 || ldc_pad > (1u << 20)) {
    usage(stderr);
    return CPU_ERROR;
  }
  if (tokens == UINT32_MAX) tokens = (uint32_t)m;
  if (tokens > m) {
    fprintf(stderr, "nvfp4-run --cpu: --tokens %u exceeds M = %lu\n", tokens, m);
    return CPU_ERROR;
  }
  char why[512];
  nvfp4sim_module *mod = NULL;
  if (nvfp4sim_module_load(path, &mod, why, sizeof why) != 0) {
    fprintf(stderr, "nvfp4-run --cpu: %s\n", why);
    return CPU_ERROR;
  }
  int rc = CPU_ERROR;
  nvfp4h_moe_problem p;
  memset(&p, 0, sizeof p);
  void *c = NULL, *block = NULL, *workspace = NULL;
  const nvfp4rt_metadata_table *table = nvfp4sim_module_table(mod);
  const nvfp4_kernel_metadata *m0 = &table->variants[0];
  if (run_refuse_fused(m0, "nvfp4-run --cpu")) goto done;
  if (m0->form != NVFP4_META_FORM_CONTIGUOUS || m0->max_groups != e) {
    fprintf(stderr, "nvfp4-run --cpu: %s is not an nvfp4.moe_matmul family of %lu experts\n", path, e);
    goto done;
  }
  nvfp4h_gen_options gopts = {ldc_pad, (nvfp4h_c_type)m0->c_type,
                              (m0->epilogue_flags & NVFP4_META_EFLAG_ALPHA) != 0};
  const int gen = nvfp4h_moe_generate((uint32_t)e, (uint32_t)m, (uint32_t)n, (uint32_t)k, tokens,
                                      (nvfp4h_moe_routing)routing, seed,
                                      full ? NVFP4H_DIST_FULL_RANGE : NVFP4H_DIST_COMPETITION,
                                      &gopts, &p);
  if (gen != 0) {
    fprintf(stderr, "nvfp4-run --cpu: cannot generate inputs: %s\n",
            gen == NVFP4H_GENERATE_NO_MEMORY ? "out of host memory" : "bad sizes");
    goto done;
  }
  if (run_apply_alphas(alphas, nalphas, gopts.alpha, p.alpha, sizeof *p.alpha, p.num_experts) != 0)
    goto done;
  c = aligned_alloc(64, (p.c_alloc_bytes + 63) / 64 * 64);
  if (!c) { fprintf(stderr, "nvfp4-run --cpu: out of host memory\n"); goto done; }
  nvfp4rt_moe_problem args = {
      .a = (uint64_t)(uintptr_t)p.a, .b = (uint64_t)(uintptr_t)p.b,
      .sfa = (uint64_t)(uintptr_t)p.sfa, .sfb = (uint64_t)(uintptr_t)p.sfb,
      .c = (uint64_t)(uintptr_t)c, .offsets = (uint64_t)(uintptr_t)p.offsets,
      .alpha = gopts.alpha ? (uint64_t)(uintptr_t)p.alpha : 0, .m = p.m, .n = p.n, .k = p.k,
      .ldc = p.ldc, .num_experts = p.num_experts, .sfa_atoms = p.sfa_atoms};
  int v = -1;
  if (variant) {
    char *end;
    long vi = strtol(variant, &end, 10);
    v = *variant && !*end ? (int)vi : nvfp4sim_module_find_variant(mod, variant);
  } else {
    v = nvfp4rt_moe_select_variant(table, &args, 148);
  }
  if (v < 0 || v >= (int)table->count) {
    fprintf(stderr, "nvfp4-run --cpu: no variant '%s'\n", variant ? variant : "(heuristic)");
    goto done;
  }
  const nvfp4_kernel_metadata *meta = &table->variants[v];
  nvfp4rt_status st = nvfp4rt_moe_validate(meta, &args);
  if (st != NVFP4RT_STATUS_OK) {
    fprintf(stderr, "nvfp4-run --cpu: %s\n", nvfp4rt_last_error_message());
    goto done;
  }
  /* the parameter block and its device table of CPU tensor maps (after the block) */
  const size_t image = (nvfp4sim_moe_image_bytes(meta) + 63) / 64 * 64;
  block = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, image);
  if (!block) { fprintf(stderr, "nvfp4-run --cpu: out of host memory\n"); goto done; }
  const uint64_t tiles = nvfp4rt_moe_max_tiles(meta, &args);
  const uint32_t grid = nvfp4rt_grid_size(meta, (uint32_t)tiles, sms);
  if (tiles && !grid) { /* grid_size: no grid of whole clusters fits on `sms` SMs */
    fprintf(stderr, "nvfp4-run --cpu: variant %s needs clusters of %u CTAs: --sms %u is too few\n",
            meta->kernel_name, meta->cluster[0], sms);
    goto done;
  }
  /* the workspace a native sm_90a kernel keeps its expert schedules in (per CTA) */
  nvfp4sim_range ws = {NULL, (size_t)meta->workspace_per_cta * grid, "the expert schedules"};
  if (ws.bytes && !(ws.base = workspace = malloc(ws.bytes))) { /* freed at done */
    fprintf(stderr, "nvfp4-run --cpu: out of host memory\n");
    goto done;
  }
  if (nvfp4sim_moe_params_build(meta, &args, (uint64_t)(uintptr_t)ws.base, ws.bytes, block,
                                image, why, sizeof why) != 0) {
    fprintf(stderr, "nvfp4-run --cpu: %s\n", why);
    goto done;
  }
  if (!json) {
    printf("device   cpu (libnvfp4sim; %u simulated SMs, schedule seed %llu)\n", sms,
           (unsigned long long)sched);
    printf("kernel   %s [%s]  grid %u  smem %u  params %u bytes  C %s%s\n", meta->kernel_name,
           meta->target, grid, meta->dyn_smem_bytes, meta->param_bytes,
           nvfp4h_c_type_name(p.c_type), gopts.alpha ? " x alpha" : "");
    printf("moe      E %lu  M %lu  N %lu  K %lu  tokens %u  routing %s  seed %llu  %s\n", e, m, n,
           k, tokens, nvfp4h_moe_routing_name((nvfp4h_moe_routing)routing),
           (unsigned long long)seed, full ? "full-range" : "competition");
  }
  /* what the kernel may only read: the inputs, the routing, alpha and the parameter block */
  const nvfp4sim_range readable[7] = {
      {p.a, p.a_bytes, "A"}, {p.b, p.b_bytes, "B"}, {p.sfa, p.sfa_bytes, "SFA"},
      {p.sfb, p.sfb_bytes, "SFB"}, {p.offsets, sizeof *p.offsets * (p.num_experts + 1u), "offsets"},
      {p.alpha, sizeof *p.alpha * p.num_experts, "alpha"},
      {block, image, "the parameter block and its table"}};
  nvfp4sim_options opts = {sched, max_reports, stderr, 0, NVFP4SIM_CLUSTERS_FORWARD, 0, readable,
                           7, 0};
  rc = launch_and_check(mod, (uint32_t)v, block, grid, &p, c, &ws, &opts, threads, json, "launch");
  for (uint32_t r = 0; r < reroutes && rc == CPU_PASS; r++) {
    const nvfp4h_moe_routing route = (nvfp4h_moe_routing)((routing + 1 + r) % NVFP4H_ROUTE_COUNT_);
    nvfp4h_moe_route(route, seed + 1 + r, p.num_experts, p.m, tokens, p.offsets);
    nvfp4h_moe_layout_sfa(&p);
    char label[64];
    snprintf(label, sizeof label, "reroute %u (%s)", r + 1, nvfp4h_moe_routing_name(route));
    opts.schedule_seed = sched + 1 + r;
    rc = launch_and_check(mod, (uint32_t)v, block, grid, &p, c, &ws, &opts, threads, json, label);
  }
  if (!json) printf("result   %s\n", rc == CPU_PASS ? "PASS" : "FAIL");

done:
  free(c);
  free(block);
  free(workspace);
  nvfp4h_moe_problem_free(&p);
  nvfp4sim_module_destroy(mod);
  return rc;
}
