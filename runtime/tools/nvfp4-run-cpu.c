/* nvfp4-run-cpu.c — `nvfp4-run --cpu`: runs the CPU execution target of a kernel family
 * (the shared object nvfp4-compile --cpu writes from the same source as the cubin) on the
 * CTA simulator (libnvfp4sim), with the same input generator, C reference check and check
 * that nothing outside each group's M x N region of C was written as the GPU path. No
 * driver and no GPU are involved.
 *
 *   nvfp4-run --cpu KERNEL.so (--case ... | --groups ...) [--variant V] [--seed S]
 *             [--full-range] [--ldc-pad P] [--alpha-values V,...] [--sms N]
 *             [--schedule-seed S] [--max-reports N] [--threads T]
 *             [--cluster-order forward|reverse|shuffled] [--resident R] [--launches N]
 *             [--json] [--no-check] [--trace]
 *
 * --sms is the simulated SM count (grid = min(SMs, tiles) CTAs, rounded to whole CTA
 * pairs; few SMs give every CTA many tiles, so ring reuse and its hazards are exercised);
 * the variant is chosen as the runtime would on a B200 (148 SMs) unless --variant names it.
 * --schedule-seed seeds the fiber order and the completion points of the asynchronous
 * operations (its value mod 3 picks eager, mixed or lazy completion). --cluster-order is
 * the order the clusters are admitted in (forward, the GPU's dispatch order, by default;
 * shuffled: a permutation drawn from the schedule seed); --resident R of them (1..8; by
 * default 2 to 4, drawn from the schedule seed) run interleaved at a time, each finished one
 * replaced by the next: a kernel whose CTAs waited for one another would deadlock in some
 * order. --launches N launches the kernel N times
 * with the same workspace, C refilled with its garbage before each, and checks the last: a
 * kernel must leave the workspace as the next launch needs it (the stream-K counters).
 * --alpha-values gives group g the value g mod count of the list (0, negative, 0x1p115, ...)
 * instead of a generated alpha (run_common.h).
 *
 * Exit codes: 0 pass, 1 check failed, 2 usage or runtime error, 3 deadlock, 4 hazard or
 * illegal operation reported by the simulator. Numbers on the command line are checked
 * whole and in range; strings in --json output are escaped. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvfp4rt.h"
#include "nvfp4rt_host.h"
#include "nvfp4sim.h"
#include "run_common.h"
#include "run_cpu_exit.h"

int nvfp4_run_cpu(int argc, char **argv);

static void cpu_usage(FILE *f) {
  fprintf(f, "usage: nvfp4-run --cpu KERNEL.so (--case test:N|B1..B4|random:G|edge:G | --groups "
             "\"m,n,k;...\")\n"
             "                 [--variant NAME|INDEX] [--seed S] [--full-range] [--ldc-pad P]\n"
             "                 [--alpha-values V,...] [--sms N] [--schedule-seed S] [--max-reports N] [--threads T]\n"
             "                 [--cluster-order forward|reverse|shuffled] [--resident R]\n"
             "                 [--launches N] [--json] [--no-check] [--trace]\n"
             "exit: 0 ok, 1 check failed, 2 error, 3 deadlock, 4 hazard or illegal operation\n");
}

/* --cluster-order's values, indexed by nvfp4sim_cluster_order */
static const char *const kOrderNames[3] = {"forward", "reverse", "shuffled"};

static double ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* The shapes of a case name: test:N, B1..B4, random:G, edge:G. 0 when unknown. */
static uint32_t case_shapes(const char *name, uint64_t seed, nvfp4h_shape *shapes) {
  const int random = !strncmp(name, "random:", 7), edge = !strncmp(name, "edge:", 5);
  if (random || edge) {
    const char *num = name + (random ? 7 : 5);
    char *end;
    long g = strtol(num, &end, 10);
    if (*num < '0' || *num > '9' || *end || g < 1 || g > NVFP4H_MAX_GROUPS) return 0;
    if (random) nvfp4h_random_shapes(seed, (uint32_t)g, 300, 600, 1024, shapes);
    else nvfp4h_edge_shapes(seed, (uint32_t)g, shapes);
    return (uint32_t)g;
  }
  return nvfp4h_case_shapes(name, shapes, NVFP4H_MAX_GROUPS);
}

/* --cpu KERNEL.so --moe ...: the contiguous MoE form (nvfp4-run-cpu-moe.c). */
int nvfp4_run_cpu_moe(int argc, char **argv);

/* --cpu KERNEL.so --fused ...: the fused SwiGLU + NVFP4 epilogue (nvfp4-run-cpu-fused.c). */
int nvfp4_run_cpu_fused(int argc, char **argv);

int nvfp4_run_cpu(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--fused")) return nvfp4_run_cpu_fused(argc, argv);
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--moe")) return nvfp4_run_cpu_moe(argc, argv);
  const char *path = NULL, *case_name = NULL, *groups_spec = NULL, *variant = NULL;
  uint64_t seed = 1111, sched = 1;
  uint32_t ldc_pad = 0, sms = 4, max_reports = 10, launches = 1, resident = 0;
  int full = 0, json = 0, check = 1, threads = 0, trace = 0, nalphas = 0;
  float alphas[RUN_MAX_ALPHAS];
  nvfp4sim_cluster_order order = NVFP4SIM_CLUSTERS_FORWARD;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (cpu_usage(stderr), exit(CPU_ERROR), (char *)0))
    if (!strcmp(a, "--cpu")) path = NEXT();
    else if (!strcmp(a, "--case")) case_name = NEXT();
    else if (!strcmp(a, "--groups")) groups_spec = NEXT();
    else if (!strcmp(a, "--variant")) variant = NEXT();
    else if (!strcmp(a, "--seed")) seed = run_parse_u64(a, NEXT());
    else if (!strcmp(a, "--schedule-seed")) sched = run_parse_u64(a, NEXT());
    else if (!strcmp(a, "--launches")) launches = (uint32_t)run_parse_int(a, NEXT(), 1, 100);
    else if (!strcmp(a, "--sms")) sms = (uint32_t)run_parse_int(a, NEXT(), 1, 4096);
    else if (!strcmp(a, "--max-reports")) max_reports = (uint32_t)run_parse_int(a, NEXT(), 0, 1000000);
    else if (!strcmp(a, "--ldc-pad")) ldc_pad = (uint32_t)run_parse_int(a, NEXT(), 0, 1 << 20);
    else if (!strcmp(a, "--threads")) threads = (int)run_parse_int(a, NEXT(), 0, 4096);
    else if (!strcmp(a, "--resident")) resident = (uint32_t)run_parse_int(a, NEXT(), 1, 8);
    else if (!strcmp(a, "--full-range")) full = 1;
    else if (!strcmp(a, "--alpha-values")) nalphas = run_parse_alphas(NEXT(), alphas);
    else if (!strcmp(a, "--json")) json = 1;
    else if (!strcmp(a, "--no-check")) check = 0;
    else if (!strcmp(a, "--trace")) trace = 1;
    else if (!strcmp(a, "--cluster-order")) {
      const char *o = NEXT();
      int found = -1;
      for (int j = 0; j < 3; j++)
        if (!strcmp(o, kOrderNames[j])) found = j;
      if (found >= 0) order = (nvfp4sim_cluster_order)found;
      else {
        fprintf(stderr, "nvfp4-run --cpu: --cluster-order %s: expected forward, reverse or shuffled\n", o);
        return CPU_ERROR;
      }
    }
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { cpu_usage(stdout); return 0; }
    else { fprintf(stderr, "nvfp4-run --cpu: unknown or misplaced argument %s\n", a); cpu_usage(stderr); return CPU_ERROR; }
#undef NEXT
  }
  if (!path || (!case_name == !groups_spec) || sms < 1 || ldc_pad > (1u << 20)) {
    cpu_usage(stderr);
    return CPU_ERROR;
  }
  nvfp4h_shape shapes[NVFP4H_MAX_GROUPS];
  uint32_t ng = case_name ? case_shapes(case_name, seed, shapes)
                          : nvfp4h_parse_groups(groups_spec, shapes, NVFP4H_MAX_GROUPS);
  if (!ng) {
    fprintf(stderr, "nvfp4-run --cpu: bad case or groups '%s'\n", case_name ? case_name : groups_spec);
    return CPU_ERROR;
  }

  char why[512];
  nvfp4sim_module *mod = NULL;
  if (nvfp4sim_module_load(path, &mod, why, sizeof why) != 0) {
    fprintf(stderr, "nvfp4-run --cpu: %s\n", why);
    return CPU_ERROR;
  }
  int rc = CPU_ERROR;
  nvfp4h_problem prob;
  memset(&prob, 0, sizeof prob);
  uint16_t *cbuf[NVFP4H_MAX_GROUPS] = {0}, *ref[NVFP4H_MAX_GROUPS] = {0};
  void *block = NULL, *workspace = NULL;
  const nvfp4rt_metadata_table *table = nvfp4sim_module_table(mod);
  if (run_refuse_fused(&table->variants[0], "nvfp4-run --cpu")) goto done;
  /* C's element type and alpha are the family's (KernelABI.h metadata) */
  const int with_alpha = (table->variants[0].epilogue_flags & NVFP4_META_EFLAG_ALPHA) != 0;
  nvfp4h_gen_options gopts = {ldc_pad, (nvfp4h_c_type)table->variants[0].c_type, with_alpha};
  static float alpha[NVFP4H_MAX_GROUPS];
  const int gen = nvfp4h_problem_generate_opts(shapes, ng, seed,
                                               full ? NVFP4H_DIST_FULL_RANGE
                                                    : NVFP4H_DIST_COMPETITION,
                                               &gopts, &prob);
  if (gen != 0) {
    fprintf(stderr, "nvfp4-run --cpu: cannot generate inputs: %s\n",
            gen == NVFP4H_GENERATE_NO_MEMORY ? "out of host memory"
                                             : "K must be a positive multiple of 32");
    goto done;
  }
  if (run_apply_alphas(alphas, nalphas, with_alpha, &prob.groups[0].alpha, sizeof prob.groups[0],
                       ng) != 0)
    goto done;
  /* C buffers the kernel writes: a copy of the pre-filled garbage, guard row included */
  nvfp4rt_group groups[NVFP4H_MAX_GROUPS];
  nvfp4sim_range writable[NVFP4H_MAX_GROUPS + 1]; /* the C buffers, then the workspace */
  /* what it may only read: each group's A, B, SFA, SFB and alpha, then the parameter block */
  static nvfp4sim_range readable[5 * NVFP4H_MAX_GROUPS + 1];
  static char names[6 * NVFP4H_MAX_GROUPS][24];
  uint32_t nreadable = 0;
  for (uint32_t g = 0; g < ng; g++) {
    nvfp4h_group_data *d = &prob.groups[g];
    size_t bytes = (d->c_alloc_bytes + 63) / 64 * 64;
    cbuf[g] = aligned_alloc(64, bytes);
    if (!cbuf[g]) { fprintf(stderr, "nvfp4-run --cpu: out of host memory\n"); goto done; }
    memcpy(cbuf[g], d->c, d->c_alloc_bytes);
    snprintf(names[6 * g], sizeof names[0], "C of group %u", g);
    writable[g] = (nvfp4sim_range){cbuf[g], d->c_alloc_bytes, names[6 * g]};
    const void *in[5] = {d->a, d->b, d->sfa, d->sfb, &alpha[g]};
    const size_t in_bytes[5] = {d->a_bytes, d->b_bytes, d->sfa_bytes, d->sfb_bytes, sizeof alpha[g]};
    static const char *const in_names[5] = {"A", "B", "SFA", "SFB", "alpha"};
    for (int t = 0; t < 5; t++) {
      snprintf(names[6 * g + 1 + t], sizeof names[0], "%s of group %u", in_names[t], g);
      readable[nreadable++] = (nvfp4sim_range){in[t], in_bytes[t], names[6 * g + 1 + t]};
    }
    groups[g] = (nvfp4rt_group){(uint64_t)(uintptr_t)d->a, (uint64_t)(uintptr_t)d->b,
                                (uint64_t)(uintptr_t)d->sfa, (uint64_t)(uintptr_t)d->sfb,
                                (uint64_t)(uintptr_t)cbuf[g], d->m, d->n, d->k, d->ldc,
                                with_alpha ? (uint64_t)(uintptr_t)&alpha[g] : 0, 0, 0};
    alpha[g] = d->alpha;
  }
  int v = -1;
  if (variant) {
    char *end;
    long vi = strtol(variant, &end, 10);
    v = *variant && !*end ? (int)vi : nvfp4sim_module_find_variant(mod, variant);
    if (v < 0 || v >= (int)table->count) {
      fprintf(stderr, "nvfp4-run --cpu: the object has no variant '%s' (nvfp4-run --info lists "
                      "a cubin's)\n", variant);
      goto done;
    }
  } else {
    v = nvfp4rt_select_variant(table, groups, ng, 148, NULL);
    if (v < 0) v = 0;
  }
  const nvfp4_kernel_metadata *meta = &table->variants[v];
  size_t image = NVFP4_ABI_HEADER_BYTES + (size_t)nvfp4_abi_table_bytes(meta->max_groups);
  block = aligned_alloc(NVFP4_ABI_PARAM_ALIGN, (image + 63) / 64 * 64);
  nvfp4rt_plan_layout *layout = malloc(sizeof *layout);
  if (!block || !layout) { free(layout); fprintf(stderr, "nvfp4-run --cpu: out of host memory\n"); goto done; }
  if (nvfp4sim_params_build(meta, groups, ng, block, (image + 63) / 64 * 64, layout, why, sizeof why) != 0) {
    free(layout);
    fprintf(stderr, "nvfp4-run --cpu: %s\n", why);
    goto done;
  }
  const uint32_t tiles = layout->total_tiles;
  free(layout);
  readable[nreadable++] = (nvfp4sim_range){block, (image + 63) / 64 * 64, "the parameter block"};
  const uint32_t grid = nvfp4rt_grid_size(meta, tiles, sms);
  if (tiles && !grid) { /* grid_size: no grid of whole clusters fits on `sms` SMs */
    fprintf(stderr, "nvfp4-run --cpu: variant %s needs clusters of %u CTAs: --sms %u is too few\n",
            meta->kernel_name, meta->cluster[0], sms);
    goto done;
  }

  /* A stream-K variant's workspace: zeroed, as the runtime hands it over (its flags) */
  uint32_t nwritable = ng;
  if ((meta->variant_flags & NVFP4_META_VFLAG_STREAM_K) && grid) {
    size_t bytes = (size_t)meta->workspace_per_cta * grid;
    workspace = calloc(1, bytes);
    if (!workspace) { fprintf(stderr, "nvfp4-run --cpu: out of host memory\n"); goto done; }
    writable[nwritable++] = (nvfp4sim_range){workspace, bytes, "the stream-K workspace"};
    const uint64_t header[2] = {(uint64_t)(uintptr_t)workspace, (uint64_t)bytes};
    memcpy((unsigned char *)block + NVFP4_ABI_HDR_WORKSPACE, header, sizeof header); /* x86-64, aarch64: LE */
  }
  nvfp4sim_options opts = {sched, max_reports, stderr, trace, order, resident, readable,
                           nreadable, 0};
  nvfp4sim_result res;
  memset(&res, 0, sizeof res);
  for (uint32_t l = 0; grid && l < launches; ++l) {
    if (l > 0) {
      if (res.outcome != NVFP4SIM_OK) break;
      for (uint32_t g = 0; g < ng; g++) memcpy(cbuf[g], prob.groups[g].c, prob.groups[g].c_alloc_bytes);
    }
    memset(&res, 0, sizeof res);
    nvfp4sim_launch(mod, (uint32_t)v, block, grid, writable, nwritable, &opts, &res);
  }
  if (res.outcome == NVFP4SIM_ERROR) {
    fprintf(stderr, "nvfp4-run --cpu: %s\n", res.message);
    goto done;
  }

  nvfp4h_check_result chk;
  nvfp4h_check_init(&chk);
  double ref_ms = 0;
  if (check && cpu_run_finished(res.outcome)) {
    double t0 = ms_now();
    for (uint32_t g = 0; g < ng; g++) {
      nvfp4h_group_data *d = &prob.groups[g];
      ref[g] = malloc(d->c_bytes ? d->c_bytes : 1);
      if (!ref[g] || nvfp4h_reference_gemm_ex(d, ref[g], d->ldc, d->c_type, d->alpha, threads) != 0) {
        fprintf(stderr, "nvfp4-run --cpu: reference GEMM out of memory\n");
        goto done;
      }
      nvfp4h_check_group(d, cbuf[g], ref[g], g, &chk);
    }
    ref_ms = ms_now() - t0;
  }
  const int checked = check && cpu_run_finished(res.outcome);
  const int pass = !checked || nvfp4h_check_passed(&chk);
  const char *label = case_name ? case_name : "custom";
  if (json) {
    char jn[2][40];
    printf("{\"cpu_object\": ");
    json_str(path);
    printf(", \"kernel\": ");
    json_str(meta->kernel_name);
    printf(", \"device\": \"cpu\", \"case\": ");
    json_str(label);
    printf(", \"seed\": %llu, \"schedule_seed\": %llu, \"distribution\": \"%s\", \"groups\": [",
           (unsigned long long)seed, (unsigned long long)sched, full ? "full-range" : "competition");
    for (uint32_t g = 0; g < ng; g++)
      printf("%s[%u, %u, %u]", g ? ", " : "", shapes[g].m, shapes[g].n, shapes[g].k);
    printf("], \"cluster_order\": \"%s\", \"launches\": %u", kOrderNames[order], launches);
    printf(", \"sms\": %u, \"grid\": %u, \"total_tiles\": %u, \"simulation\": \"%s\", "
           "\"hazards\": %llu, \"checked\": %s, \"pass\": %s, \"mismatches\": %llu, "
           "\"max_abs_err\": %s, \"max_rel_err\": %s, \"sim_wall_ms\": %.1f, \"sim_cpu_ms\": %.1f, "
           "\"reference_ms\": %.1f, "
           "\"fiber_switches\": %llu, \"async_ops\": %llu, \"mma_ops\": %llu, \"tma_ops\": %llu, "
           "\"ldc_pad\": %u, \"outside_checked\": %llu, \"outside_writes\": %llu}\n",
           sms, grid, tiles, nvfp4sim_outcome_name(res.outcome), (unsigned long long)res.hazards,
           checked ? "true" : "false", pass ? "true" : "false", (unsigned long long)chk.mismatches,
           json_num(jn[0], chk.max_abs, 6), json_num(jn[1], chk.max_rel, 6), res.wall_ms,
           res.cpu_ms, ref_ms, (unsigned long long)res.switches,
           (unsigned long long)res.async_ops, (unsigned long long)res.mma_ops,
           (unsigned long long)res.tma_ops, ldc_pad, (unsigned long long)chk.outside_checked,
           (unsigned long long)chk.outside_writes);
  } else {
    printf("device   cpu (libnvfp4sim; %u simulated SMs, schedule seed %llu, clusters %s", sms,
           (unsigned long long)sched, kOrderNames[order]);
    if (launches > 1) printf(", launch %u of %u", launches, launches);
    printf(")\n");
    printf("kernel   %s [%s]  grid %u  block %ux%ux%u  cluster %u  smem %u  tiles %u\n",
           meta->kernel_name, meta->target, grid, meta->block[0], meta->block[1], meta->block[2],
           meta->cluster[0], meta->dyn_smem_bytes, tiles);
    printf("case     %s  seed %llu  %s", label, (unsigned long long)seed,
           full ? "full-range" : "competition");
    if (ldc_pad) printf("  ldc pad %u", ldc_pad);
    printf("\n  group        M        N        K\n");
    for (uint32_t g = 0; g < ng; g++)
      printf("  %5u %8u %8u %8u\n", g, shapes[g].m, shapes[g].n, shapes[g].k);
    printf("sim      %s  (%llu hazard reports, %u clusters, %.1f ms cpu, %.1f ms wall, %llu fiber "
           "switches, %llu async ops: %llu mma, %llu tma)\n",
           nvfp4sim_outcome_name(res.outcome), (unsigned long long)res.hazards, res.clusters,
           res.cpu_ms, res.wall_ms, (unsigned long long)res.switches, (unsigned long long)res.async_ops,
           (unsigned long long)res.mma_ops, (unsigned long long)res.tma_ops);
    if (res.message[0]) printf("  %s\n", res.message);
    run_cpu_print_pdl(meta, &res, grid);
    if (checked) {
      double atol, rtol;
      nvfp4h_check_tolerance(gopts.c_type, &atol, &rtol);
      printf("check    %s  (%llu/%llu mismatches, max abs %.4g, max rel %.4g, atol %g rtol %g)\n",
             pass ? "PASS" : "FAIL", (unsigned long long)chk.mismatches,
             (unsigned long long)chk.checked, chk.max_abs, chk.max_rel, atol, rtol);
      for (uint32_t i = 0; i < chk.reported; i++)
        printf("  mismatch group %u [%u, %u]: got %.6g ref %.6g\n", chk.first[i].group,
               chk.first[i].row, chk.first[i].col, chk.first[i].got, chk.first[i].ref);
      if (chk.outside_writes) {
        printf("  FAIL: kernel wrote outside C's M x N region: %llu of %llu padding-column / "
               "guard-row / empty-group elements changed\n",
               (unsigned long long)chk.outside_writes, (unsigned long long)chk.outside_checked);
        for (uint32_t i = 0; i < chk.outside_reported; i++) {
          const nvfp4h_outside_write *w = &chk.first_outside[i];
          const nvfp4h_group_data *d = &prob.groups[w->group];
          const char *where = d->m == 0 || d->n == 0 ? "empty group"
                              : w->row >= d->m      ? "guard row past M"
                                                    : "padding column";
          printf("  outside write group %u [%u, %u] (%s, M %u N %u ldc %u): 0x%04x, was 0x%04x\n",
                 w->group, w->row, w->col, where, d->m, d->n, d->ldc, w->got, w->want);
        }
      }
    } else {
      printf("check    skipped (%s)\n", check ? "the simulation did not finish" : "--no-check");
    }
  }
  rc = cpu_exit_code(res.outcome, pass);

done:
  for (uint32_t g = 0; g < NVFP4H_MAX_GROUPS; g++) {
    free(cbuf[g]);
    free(ref[g]);
  }
  free(block);
  free(workspace);
  nvfp4h_problem_free(&prob);
  nvfp4sim_module_destroy(mod);
  return rc;
}
