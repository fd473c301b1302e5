/* nvfp4-run — runs an nvfp4-mlir cubin on generated inputs: builds a libnvfp4rt plan for
 * a case of docs/format.md (or explicit, random or edge-case shapes; optionally a C row stride
 * padded past N), checks the result against the C reference GEMM (a timing-proxy cubin,
 * whose tcgen05 ops are free: that C is +0 inside each group's M x N) and checks that nothing
 * outside each group's M x N region of C (padding columns, a guard row after the last
 * row, all of an empty group's C) was written, times it with CUDA events (optionally flushing L2) and measures the host cost of
 * nvfp4rt_plan_launch. `--info CUBIN` prints the metadata record (no GPU needed).
 * --all-variants checks every variant of the family on one upload (all_variants.c);
 * --fresh-sets S measures whole calls with new pointers every call (fresh_sets.c);
 * --busy-sms N runs the correctness launch while another kernel holds N SMs (busy_sms.c).
 *
 * Exit codes: 0 success (check passed or skipped), 1 check failed, 2 usage or runtime
 * error (a bad --device included), 77 no CUDA driver or device (the run could not happen;
 * --info never returns 77). CUBIN may be "-" (standard input); numbers on the command line
 * are checked whole and in range; strings in --json output are escaped. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "all_variants.h"
#include "busy_sms.h"
#include "fresh_sets.h"
#include "nvfp4rt.h"
#include "nvfp4rt_host.h"
#include "run_common.h"

/* nvfp4-run --cpu KERNEL.so ...: the CPU execution target (nvfp4-run-cpu.c). */
int nvfp4_run_cpu(int argc, char **argv);
/* nvfp4-run CUBIN --fused ...: the fused SwiGLU + NVFP4 epilogue (nvfp4-run-fused.c). */
int nvfp4_run_fused(int argc, char **argv);

/* C's element type as --info prints it (the fused epilogue's FP4 codes included). */
static const char *c_name(const nvfp4_kernel_metadata *m) {
  return m->c_type == NVFP4_META_C_FP4 ? "fp4" : nvfp4h_c_type_name((nvfp4h_c_type)m->c_type);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: nvfp4-run CUBIN (--case test:N|B1..B4|random:G|edge:G | --groups \"m,n,k;...\")\n"
          "                 [--variant NAME|INDEX] [--tmap-update encode|replace-address|kernel-patch]\n"
          "                 [--fresh-sets S [--calls N] [--e2e-calls N]] [--all-variants]\n"
          "                 [--seed S] [--full-range] [--ldc-pad P] [--alpha-values V,...]\n"
          "                 [--iters N] [--warmup N] [--flush-l2]\n"
          "                 [--launch-iters N] [--threads T] [--json] [--no-check] [--device D]\n"
          "                 [--busy-sms N] [--no-pdl] [--pdl-pair] [--table-cache N]\n"
          "       nvfp4-run CUBIN --moe E,M,N,K ... (the contiguous MoE form: nvfp4-run --moe --help)\n"
          "       nvfp4-run CUBIN --fused ... (the fused SwiGLU + NVFP4 epilogue: nvfp4-run --fused --help)\n"
          "       nvfp4-run --info CUBIN [--json]\n"
          "       nvfp4-run --cpu KERNEL.so ... (the CPU target, no GPU: nvfp4-run --cpu --help)\n"
          "       nvfp4-run --version\n"
          "CUBIN \"-\" reads standard input\n"
          "--no-pdl: launch without programmatic dependent launch (as NVFP4RT_PDL=0);\n"
          "--pdl-pair: also time two back-to-back launches of the plan (the second depends on\n"
          "  the first: it writes the same C), with and without programmatic dependent launch;\n"
          "--table-cache N: device copies of the group table the plans keep (1..256; default\n"
          "  the runtime's, 16; 1: one copy, uploaded again whenever the table changes)\n"
          "exit: 0 ok, 1 check failed, 2 error, 77 no CUDA driver/device\n");
}

static const char *orientation_name(uint32_t o) { return o ? "swap-ab" : "ab"; }
static const char *form_name(const nvfp4_kernel_metadata *m) {
  return m->form == NVFP4_META_FORM_CONTIGUOUS ? "contiguous" : "pointer-array";
}

/* The cubin's kernel family: one record per variant. */
static void print_meta(const nvfp4rt_metadata_table *t, const char *path, int json) {
  const nvfp4_kernel_metadata *m0 = &t->variants[0];
  if (json) {
    printf("{\"cubin\": ");
    json_str(path);
    printf(", \"target\": ");
    json_str(m0->target);
    printf(", \"source_target\": ");
    json_str(m0->source_target);
    printf(", \"target_sm\": %u, \"abi_version\": %u, "
           "\"flags\": %u, \"emulation\": %s, \"proxy\": %s, \"pdl\": %s, \"max_groups\": %u, "
           "\"param_bytes\": %u, "
           "\"workspace_per_cta\": %u, \"k_granule\": %u, \"form\": \"%s\", \"c_type\": \"%s\", "
           "\"alpha\": %s, \"variants\": [",
           m0->target_sm, m0->abi_version, m0->flags,
           (m0->flags & (NVFP4_META_FLAG_EMULATION | NVFP4_META_FLAG_EMULATION_MMA_SYNC)) ? "true"
                                                                                     : "false",
           (m0->flags & NVFP4_META_FLAG_PROXY) ? "true" : "false",
           (m0->flags & NVFP4_META_FLAG_PDL) ? "true" : "false", m0->max_groups,
           m0->param_bytes, m0->workspace_per_cta, m0->k_granule, form_name(m0),
           c_name(m0), (m0->epilogue_flags & NVFP4_META_EFLAG_ALPHA) ? "true" : "false");
    for (uint32_t v = 0; v < t->count; v++) {
      const nvfp4_kernel_metadata *m = &t->variants[v];
      printf("%s{\"index\": %u, \"kernel\": ", v ? ", " : "", v);
      json_str(m->kernel_name);
      printf(", \"orientation\": \"%s\", \"cta_group\": %u, "
             "\"epilogue\": \"%s\", \"dynamic_n\": %s, \"block\": [%u, %u, %u], "
             "\"cluster\": [%u, %u, %u], \"dyn_smem_bytes\": %u, \"tile\": [%u, %u, %u], "
             "\"stages\": %u, \"tmem_cols\": %u, \"acc_buffers\": %u, \"boxes\": [%u, %u], "
             "\"sf_atoms\": [%u, %u], \"store_box_rows\": %u, \"n_align\": %u, \"param_bytes\": %u, "
             "\"stream_k\": %s, \"workspace_per_cta\": %u}",
             orientation_name(m->orientation), m->cta_group,
             m->epilogue ? "tma-store" : "direct-store",
             (m->variant_flags & NVFP4_META_VFLAG_DYNAMIC_N) ? "true" : "false", m->block[0],
             m->block[1], m->block[2], m->cluster[0], m->cluster[1], m->cluster[2],
             m->dyn_smem_bytes, m->tile_m, m->tile_n, m->tile_k, m->stages, m->tmem_cols,
             m->acc_buffers, m->m_box_rows, m->n_box_rows, m->sfm_atoms, m->sfn_atoms,
             m->store_box_rows, m->n_align, m->param_bytes,
             (m->variant_flags & NVFP4_META_VFLAG_STREAM_K) ? "true" : "false",
             m->workspace_per_cta);
    }
    printf("]}\n");
    return;
  }
  printf("cubin:             %s\n", path);
  /* an emulation or proxy build names the kernel it was made from (when its record does) */
  const char *of = m0->source_target[0] ? " of " : "";
  printf("target:            %s (sm %u)", m0->target, m0->target_sm);
  if (m0->flags & NVFP4_META_FLAG_EMULATION)
    printf(" [tcgen05 emulation%s%s]", of, m0->source_target);
  else if (m0->flags & NVFP4_META_FLAG_EMULATION_MMA_SYNC)
    printf(" [mma.sync emulation%s%s]", of, m0->source_target);
  else if (m0->flags & NVFP4_META_FLAG_PROXY)
    printf(" [timing proxy%s%s: tcgen05 free, C = 0]", of, m0->source_target);
  printf("\n");
  printf("abi version:       %u (runtime %u)\n", m0->abi_version, NVFP4_ABI_VERSION);
  printf("flags:             0x%x%s\n", m0->flags,
         (m0->flags & NVFP4_META_FLAG_PDL) ? " (programmatic dependent launch: griddepcontrol)" : "");
  printf("form:              %s\n", form_name(m0));
  if (m0->form == NVFP4_META_FORM_CONTIGUOUS)
    printf("experts:           %u (offsets in device memory, shared tensor maps)\n",
           m0->max_groups);
  else
    printf("max groups:        %u (group table of %u bytes in device memory)\n", m0->max_groups,
           nvfp4_abi_table_bytes(m0->max_groups));
  printf("C:                 %s%s%s\n", c_name(m0),
         (m0->epilogue_flags & NVFP4_META_EFLAG_ALPHA) ? ", scaled by alpha" : "",
         (m0->epilogue_flags & NVFP4_META_EFLAG_SWIGLU_NVFP4)
             ? ", fused SwiGLU + NVFP4 epilogue (B = 2I gate/up rows; SFC and gs)"
             : "");
  if (m0->flags & NVFP4_META_FLAG_DEBUG_ACTIVATIONS)
    printf("debug:             stores its fp32 activations (nvfp4.debug_activations)\n");
  printf("param bytes:       %u\n", m0->param_bytes);
  printf("workspace per CTA: %u%s\n", m0->workspace_per_cta,
         t->count > 1 ? " (variant 0; a stream-K variant has its own, below)" : "");
  printf("k granule:         %u\n", m0->k_granule);
  printf("variants:          %u\n", t->count);
  printf("  #  kernel                            orient  cta  epilogue  tile (m x n x k)  "
         "stages  smem    tmem  acc  schedule\n");
  for (uint32_t v = 0; v < t->count; v++) {
    const nvfp4_kernel_metadata *m = &t->variants[v];
    char tile[32];
    snprintf(tile, sizeof tile, "%ux%s%ux%u", m->tile_m,
             (m->variant_flags & NVFP4_META_VFLAG_DYNAMIC_N) ? "<=" : "", m->tile_n, m->tile_k);
    char sched[48] = "persistent";
    if (m->variant_flags & NVFP4_META_VFLAG_STREAM_K)
      snprintf(sched, sizeof sched, "stream-K (workspace %u B/CTA)", m->workspace_per_cta);
    printf("  %-2u %-33s %-7s %-4u %-9s %-17s %-7u %-7u %-5u %-4u %s\n", v, m->kernel_name,
           orientation_name(m->orientation), m->cta_group, m->epilogue ? "tma" : "direct", tile,
           m->stages, m->dyn_smem_bytes, m->tmem_cols, m->acc_buffers, sched);
  }
}

typedef struct opts {
  const char *cubin, *case_name, *groups, *variant, *tmap_update;
  int fresh_sets, calls, e2e_calls, all_variants, busy_sms;
  uint64_t seed;
  uint32_t ldc_pad;
  int full_range, iters, warmup, flush_l2, json, check, launch_iters, threads, device, info;
  int nalphas;
  float alphas[RUN_MAX_ALPHAS];
  int no_pdl, pdl_pair;
  int table_cache; /* 0: the runtime's default */
} opts;

static nvfp4rt_status grouped_launch(void *plan, void *stream) {
  return nvfp4rt_plan_launch((nvfp4rt_plan *)plan, stream);
}

/* Two launches of one plan back to back: the second writes the C the first writes, so it
 * depends on it in stream order — the overlap programmatic dependent launch buys is the
 * second's launch and prologue during the first's tail. */
static nvfp4rt_status pair_launch(void *plan, void *stream) {
  nvfp4rt_status st = nvfp4rt_plan_launch((nvfp4rt_plan *)plan, stream);
  return st == NVFP4RT_STATUS_OK ? nvfp4rt_plan_launch((nvfp4rt_plan *)plan, stream) : st;
}

/* --pdl-pair: the median time of pair_launch with PDL (pdl_us[0]) and without (pdl_us[1]),
 * each with its own plan of the same groups and options; on[i]: whether plan i's launches
 * carry the attribute (the option, NVFP4RT_PDL, the kernel, device and driver decide). */
static nvfp4rt_status pdl_pair_times(nvfp4rt_context *ctx, nvfp4rt_module *mod,
                                     const nvfp4rt_group *groups, uint32_t ng,
                                     nvfp4rt_plan_options popts, void *stream, const opts *o,
                                     double *times, double pdl_us[2], int on[2]) {
  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  for (int i = 0; i < 2 && st == NVFP4RT_STATUS_OK; i++) {
    nvfp4rt_plan *p = NULL;
    popts.pdl = i == 0 ? NVFP4RT_PDL_ON : NVFP4RT_PDL_OFF;
    st = nvfp4rt_plan_create_ex(mod, groups, ng, &popts, &p);
    if (st == NVFP4RT_STATUS_OK)
      st = run_event_times(ctx, stream, o->flush_l2, pair_launch, p, o->warmup, o->iters, times);
    if (st == NVFP4RT_STATUS_OK) {
      pdl_us[i] = median(times, o->iters);
      on[i] = nvfp4rt_plan_uses_pdl(p);
    }
    nvfp4rt_plan_destroy(p);
  }
  return st;
}

int main(int argc, char **argv) {
  opts o = {.seed = 1111, .iters = 20, .warmup = 3, .check = 1, .launch_iters = 200,
            .calls = 2000, .e2e_calls = 200};
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--cpu")) return nvfp4_run_cpu(argc, argv);
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--fused")) return nvfp4_run_fused(argc, argv);
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--moe")) return nvfp4_run_moe(argc, argv);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (usage(stderr), exit(EXIT_ERROR), (char *)0))
    if (!strcmp(a, "--version")) {
      printf("nvfp4-run %s (libnvfp4rt %s, kernel ABI %u)\n", NVFP4_VERSION_STRING,
             nvfp4rt_version_string(), nvfp4rt_kernel_abi_version());
      return 0;
    }
    else if (!strcmp(a, "--info")) o.info = 1, o.cubin = NEXT();
    else if (!strcmp(a, "--case")) o.case_name = NEXT();
    else if (!strcmp(a, "--groups")) o.groups = NEXT();
    else if (!strcmp(a, "--variant")) o.variant = NEXT();
    else if (!strcmp(a, "--tmap-update")) o.tmap_update = NEXT();
    else if (!strcmp(a, "--fresh-sets")) o.fresh_sets = (int)run_parse_int(a, NEXT(), 0, 1000000);
    else if (!strcmp(a, "--calls")) o.calls = (int)run_parse_int(a, NEXT(), 0, 100000000);
    else if (!strcmp(a, "--e2e-calls")) o.e2e_calls = (int)run_parse_int(a, NEXT(), 0, 100000000);
    else if (!strcmp(a, "--all-variants")) o.all_variants = 1;
    else if (!strcmp(a, "--busy-sms")) o.busy_sms = (int)run_parse_int(a, NEXT(), 1, 4096);
    else if (!strcmp(a, "--seed")) o.seed = run_parse_u64(a, NEXT());
    else if (!strcmp(a, "--full-range")) o.full_range = 1;
    else if (!strcmp(a, "--alpha-values")) o.nalphas = run_parse_alphas(NEXT(), o.alphas);
    else if (!strcmp(a, "--ldc-pad")) {
      const char *v = NEXT();
      char *end;
      unsigned long p = strtoul(v, &end, 10);
      if (*v < '0' || *v > '9' || *end || p > (1ul << 20)) {
        fprintf(stderr, "nvfp4-run: bad --ldc-pad '%s' (0 .. 1048576 elements)\n", v);
        return EXIT_ERROR;
      }
      o.ldc_pad = (uint32_t)p;
    }
    else if (!strcmp(a, "--iters")) o.iters = (int)run_parse_int(a, NEXT(), 1, 1000000);
    else if (!strcmp(a, "--warmup")) o.warmup = (int)run_parse_int(a, NEXT(), 0, 1000000);
    else if (!strcmp(a, "--launch-iters")) o.launch_iters = (int)run_parse_int(a, NEXT(), 0, 10000000);
    else if (!strcmp(a, "--threads")) o.threads = (int)run_parse_int(a, NEXT(), 0, 4096);
    else if (!strcmp(a, "--device")) o.device = (int)run_parse_int(a, NEXT(), 0, 1023);
    else if (!strcmp(a, "--flush-l2")) o.flush_l2 = 1;
    else if (!strcmp(a, "--json")) o.json = 1;
    else if (!strcmp(a, "--no-check")) o.check = 0;
    else if (!strcmp(a, "--no-pdl")) o.no_pdl = 1;
    else if (!strcmp(a, "--pdl-pair")) o.pdl_pair = 1;
    else if (!strcmp(a, "--table-cache")) o.table_cache = (int)run_parse_int(a, NEXT(), 1, 256);
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
    else if (a[0] == '-' && a[1]) { fprintf(stderr, "nvfp4-run: unknown option %s\n", a); usage(stderr); return EXIT_ERROR; }
    else if (!o.cubin) o.cubin = a;
    else { fprintf(stderr, "nvfp4-run: unexpected argument %s\n", a); return EXIT_ERROR; }
#undef NEXT
  }
  if (!o.cubin) { usage(stderr); return EXIT_ERROR; }
  nvfp4rt_tmap_update tmap_update = NVFP4RT_TMAP_UPDATE_DEFAULT;
  if (o.tmap_update) {
    int found = 0;
    for (int m = NVFP4RT_TMAP_UPDATE_DEFAULT; m <= NVFP4RT_TMAP_UPDATE_KERNEL_PATCH; m++)
      if (!strcmp(o.tmap_update, nvfp4rt_tmap_update_name((nvfp4rt_tmap_update)m)))
        tmap_update = (nvfp4rt_tmap_update)m, found = 1;
    if (!found && !(o.fresh_sets && !strcmp(o.tmap_update, "cuda-graph"))) {
      fprintf(stderr, "nvfp4-run: unknown --tmap-update '%s' (default, encode, "
                      "replace-address, kernel-patch)\n", o.tmap_update);
      return EXIT_ERROR;
    }
  }
  if (o.fresh_sets && (o.fresh_sets < 2 || o.calls < 1 || o.e2e_calls < 1)) {
    fprintf(stderr, "nvfp4-run: --fresh-sets needs at least 2 sets, --calls and --e2e-calls >= 1\n");
    return EXIT_ERROR;
  }
  if (o.busy_sms && (o.fresh_sets || o.all_variants)) {
    fprintf(stderr, "nvfp4-run: --busy-sms applies to one plan's correctness launch, not to "
                    "--fresh-sets or --all-variants\n");
    return EXIT_ERROR;
  }
  if (o.iters < 1) o.iters = 1;
  if (o.warmup < 0) o.warmup = 0;
  if (o.launch_iters < 0) o.launch_iters = 0; /* 0: skip the host launch-cost measurement */

  if (o.info) {
    nvfp4rt_metadata_table t;
    nvfp4rt_status st = nvfp4rt_metadata_read_file(run_cubin_file(o.cubin), &t);
    if (st != NVFP4RT_STATUS_OK) {
      fprintf(stderr, "nvfp4-run: %s: %s\n", o.cubin, status_detail(st));
      return EXIT_ERROR;
    }
    print_meta(&t, o.cubin, o.json);
    return 0;
  }

  /* shapes */
  nvfp4h_shape shapes[NVFP4H_MAX_GROUPS];
  uint32_t ng = 0;
  if (o.case_name && o.groups) { fprintf(stderr, "nvfp4-run: --case and --groups are exclusive\n"); return EXIT_ERROR; }
  const int is_random = o.case_name && !strncmp(o.case_name, "random:", 7);
  const int is_edge = o.case_name && !strncmp(o.case_name, "edge:", 5);
  if (is_random || is_edge) {
    const char *num = o.case_name + (is_random ? 7 : 5);
    char *end;
    long v = strtol(num, &end, 10);
    if (*num < '0' || *num > '9' || *end || v < 1 || v > NVFP4H_MAX_GROUPS) {
      fprintf(stderr, "nvfp4-run: bad %s (G must be 1..%d)\n", o.case_name, NVFP4H_MAX_GROUPS);
      return EXIT_ERROR;
    }
    ng = (uint32_t)v;
    if (is_random) nvfp4h_random_shapes(o.seed, ng, 300, 600, 1024, shapes);
    else nvfp4h_edge_shapes(o.seed, ng, shapes);
  } else if (o.case_name) {
    ng = nvfp4h_case_shapes(o.case_name, shapes, NVFP4H_MAX_GROUPS);
    if (!ng) { fprintf(stderr, "nvfp4-run: unknown case '%s' (test:0..9, B1..B4, random:G, edge:G)\n", o.case_name); return EXIT_ERROR; }
  } else if (o.groups) {
    ng = nvfp4h_parse_groups(o.groups, shapes, NVFP4H_MAX_GROUPS);
    if (!ng) { fprintf(stderr, "nvfp4-run: cannot parse --groups '%s'\n", o.groups); return EXIT_ERROR; }
  } else { fprintf(stderr, "nvfp4-run: need --case or --groups\n"); usage(stderr); return EXIT_ERROR; }

  int rc = EXIT_ERROR;
  nvfp4rt_context *ctx = NULL;
  nvfp4rt_module *mod = NULL;
  nvfp4rt_plan *plan = NULL;
  void *stream = NULL;
  uint64_t dptr[NVFP4H_MAX_GROUPS][5];
  uint64_t alpha_buf = 0;
  memset(dptr, 0, sizeof dptr);
  nvfp4h_problem prob;
  memset(&prob, 0, sizeof prob);
  uint16_t *got[NVFP4H_MAX_GROUPS] = {0}, *ref[NVFP4H_MAX_GROUPS] = {0};
  double *times = NULL, *host = NULL;

  nvfp4rt_status st = NVFP4RT_STATUS_OK;
  if ((rc = run_open(o.device, o.cubin, &ctx, &mod)) == EXIT_NO_GPU) return rc;
  if (rc != 0) goto done;
  rc = EXIT_ERROR;
  const nvfp4rt_device_info *dev = nvfp4rt_context_device_info(ctx);
  /* --variant: an index or a name (the kernel name, or its "_<variant>" suffix) */
  nvfp4rt_plan_options popts = NVFP4RT_PLAN_OPTIONS_INIT;
  popts.tmap_update = tmap_update;
  if (o.no_pdl) popts.pdl = NVFP4RT_PDL_OFF;
  popts.table_cache = (uint32_t)o.table_cache;
  if (o.variant && (popts.variant = run_variant(mod, o.variant)) < 0) goto done;

  /* C's element type and alpha are the kernel's: every variant shares them */
  const nvfp4_kernel_metadata *m0 = nvfp4rt_module_metadata(mod);
  if (run_refuse_fused(m0, "nvfp4-run")) goto done;
  const int with_alpha = (m0->epilogue_flags & NVFP4_META_EFLAG_ALPHA) != 0;
  nvfp4h_gen_options gopts = {.ldc_pad = o.ldc_pad, .c_type = (nvfp4h_c_type)m0->c_type,
                              .alpha = with_alpha};
  int gen = nvfp4h_problem_generate_opts(shapes, ng, o.seed,
                                         o.full_range ? NVFP4H_DIST_FULL_RANGE
                                                      : NVFP4H_DIST_COMPETITION,
                                         &gopts, &prob);
  if (gen != 0) {
    fprintf(stderr, "nvfp4-run: cannot generate inputs: %s\n",
            gen == NVFP4H_GENERATE_NO_MEMORY ? "out of host memory"
                                             : "K must be a positive multiple of 32");
    goto done;
  }
  if (run_apply_alphas(o.alphas, o.nalphas, with_alpha, &prob.groups[0].alpha,
                       sizeof prob.groups[0], ng) != 0)
    goto done;
  /* A timing proxy writes +0 everywhere in M x N: no +0 in the garbage, so that every
   * element it skips shows */
  const int proxy = (nvfp4rt_module_metadata(mod)->flags & NVFP4_META_FLAG_PROXY) != 0;
  if (proxy) nvfp4h_problem_c_without_zeros(&prob);
  if (o.fresh_sets) {
    /* a timing proxy needs no values: one problem for every set; other cubins get a
     * distinct problem per set (seed + set), so that the check sees stale inputs too */
    const int nprobs = proxy || !o.check ? 1 : o.fresh_sets;
    nvfp4h_problem *probs = calloc((size_t)nprobs, sizeof *probs);
    int ok = probs != NULL;
    if (ok) probs[0] = prob;
    for (int s = 1; ok && s < nprobs; s++)
      ok = nvfp4h_problem_generate_opts(shapes, ng, o.seed + (uint64_t)s,
                                        o.full_range ? NVFP4H_DIST_FULL_RANGE : NVFP4H_DIST_COMPETITION,
                                        &gopts, &probs[s]) == 0 &&
           run_apply_alphas(o.alphas, o.nalphas, with_alpha, &probs[s].groups[0].alpha,
                            sizeof probs[s].groups[0], ng) == 0;
    if (!ok) /* the shapes generated once already: only memory can be short */
      fprintf(stderr, "nvfp4-run: out of host memory for %d input sets\n", nprobs);
    const fresh_opts fo = {o.fresh_sets, o.calls, o.e2e_calls, popts.variant, o.check, o.json,
                           o.threads, o.tmap_update, o.case_name ? o.case_name : "custom",
                           o.table_cache};
    rc = ok ? fresh_sets_run(ctx, mod, probs, nprobs, &fo) : EXIT_ERROR;
    for (int s = 1; probs && s < nprobs; s++) nvfp4h_problem_free(&probs[s]);
    free(probs);
    goto done;
  }
  if (with_alpha) { /* one fp32 per group, in device memory */
    static float alpha[NVFP4H_MAX_GROUPS];
    for (uint32_t g = 0; g < ng; g++) alpha[g] = prob.groups[g].alpha;
    if ((st = nvfp4rt_mem_alloc(ctx, sizeof(float) * ng, &alpha_buf)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
    if ((st = nvfp4rt_memcpy_htod(ctx, alpha_buf, alpha, sizeof(float) * ng)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  }
  nvfp4rt_group groups[NVFP4H_MAX_GROUPS];
  for (uint32_t g = 0; g < ng; g++) {
    nvfp4h_group_data *d = &prob.groups[g];
    /* C gets its guard row too (and so a buffer even when M = 0): the check compares
     * padding, guard and empty groups' C against the garbage uploaded here */
    const void *src[5] = {d->a, d->b, d->sfa, d->sfb, d->c};
    size_t bytes[5] = {d->a_bytes, d->b_bytes, d->sfa_bytes, d->sfb_bytes, d->c_alloc_bytes};
    for (int t = 0; t < 5; t++) {
      if (!bytes[t]) continue;
      if ((st = nvfp4rt_mem_alloc(ctx, bytes[t], &dptr[g][t])) != NVFP4RT_STATUS_OK) FAIL_RT(st);
      if ((st = nvfp4rt_memcpy_htod(ctx, dptr[g][t], src[t], bytes[t])) != NVFP4RT_STATUS_OK) FAIL_RT(st);
    }
    groups[g] = (nvfp4rt_group){dptr[g][0], dptr[g][1], dptr[g][2], dptr[g][3], dptr[g][4],
                                d->m, d->n, d->k, d->ldc, with_alpha ? alpha_buf + 4u * g : 0, 0, 0};
  }
  if (o.all_variants) {
    rc = all_variants_run(ctx, mod, &prob, groups, tmap_update, o.threads, o.json);
    goto done;
  }
  if ((st = nvfp4rt_plan_create_ex(mod, groups, ng, &popts, &plan)) != NVFP4RT_STATUS_OK)
    FAIL_RT(st);
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  if ((st = nvfp4rt_plan_get_info(plan, &info)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  const nvfp4_kernel_metadata *meta = nvfp4rt_module_variant(mod, info.variant);
  if ((st = nvfp4rt_stream_create(ctx, &stream)) != NVFP4RT_STATUS_OK) FAIL_RT(st);

  /* correctness run (--busy-sms: beside a kernel that holds N SMs, busy_sms.h) */
  busy_sms *busy = NULL;
  if (o.busy_sms && (rc = busy_sms_start(ctx, o.busy_sms, &busy)) != 0) goto done;
  rc = EXIT_ERROR;
  double busy_t0 = now_us();
  st = nvfp4rt_plan_launch(plan, stream);
  if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_stream_synchronize(ctx, stream);
  if (busy) {
    const int brc = busy_sms_stop(busy, (now_us() - busy_t0) / 1e3);
    if (st == NVFP4RT_STATUS_OK && brc) { rc = brc; goto done; }
  }
  if (st != NVFP4RT_STATUS_OK) FAIL_RT(st);
  nvfp4h_check_result chk;
  nvfp4h_check_init(&chk);
  double ref_ms = 0;
  if (o.check) {
    double t0 = now_us();
    for (uint32_t g = 0; g < ng; g++) {
      nvfp4h_group_data *d = &prob.groups[g];
      got[g] = malloc(d->c_alloc_bytes);
      ref[g] = malloc(d->c_bytes ? d->c_bytes : 1);
      if (!got[g] || !ref[g]) { fprintf(stderr, "nvfp4-run: out of host memory\n"); goto done; }
      if ((st = nvfp4rt_memcpy_dtoh(ctx, got[g], dptr[g][4], d->c_alloc_bytes)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
      if (proxy) {
        nvfp4h_check_group_zero(d, got[g], g, &chk);
        continue;
      }
      if (nvfp4h_reference_gemm_ex(d, ref[g], d->ldc, d->c_type, d->alpha, o.threads) != 0) { fprintf(stderr, "nvfp4-run: reference GEMM out of memory\n"); goto done; }
      nvfp4h_check_group(d, got[g], ref[g], g, &chk);
    }
    ref_ms = (now_us() - t0) / 1e3;
  }

  /* device timing */
  times = calloc((size_t)o.iters, sizeof *times);
  host = calloc((size_t)(o.launch_iters ? o.launch_iters : 1), sizeof *host);
  if (!times || !host) { fprintf(stderr, "nvfp4-run: out of host memory (--iters, --launch-iters)\n"); goto done; }
  if ((st = run_event_times(ctx, stream, o.flush_l2, grouped_launch, plan, o.warmup, o.iters,
                            times)) != NVFP4RT_STATUS_OK)
    FAIL_RT(st);
  double dev_us = median(times, o.iters);
  double dev_min = times[0];
  /* host cost of nvfp4rt_plan_launch alone (cached plan) */
  if ((st = run_host_times(ctx, stream, grouped_launch, plan, o.launch_iters, host)) !=
      NVFP4RT_STATUS_OK)
    FAIL_RT(st);
  double host_us = median(host, o.launch_iters);
  /* cost of a re-plan with unchanged groups (cache hit: no tensor map re-encoded) */
  uint64_t enc0 = info.tmaps_encoded;
  double t0 = now_us();
  if ((st = nvfp4rt_plan_update_pointers(plan, groups, ng)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  double replan_us = now_us() - t0;
  if ((st = nvfp4rt_plan_get_info(plan, &info)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  uint64_t reencoded = info.tmaps_encoded - enc0;
  double pdl_us[2] = {0, 0};
  int pdl_on[2] = {0, 0};
  if (o.pdl_pair && (st = pdl_pair_times(ctx, mod, groups, ng, popts, stream, &o, times, pdl_us,
                                         pdl_on)) != NVFP4RT_STATUS_OK)
    FAIL_RT(st);

  double flops = 0, bytes = 0;
  for (uint32_t g = 0; g < ng; g++) {
    const nvfp4h_group_data *d = &prob.groups[g];
    flops += 2.0 * d->m * d->n * d->k;
    bytes += (double)d->a_bytes + d->b_bytes + d->sfa_bytes + d->sfb_bytes + (double)d->m * d->n * nvfp4h_c_bytes(d->c_type);
  }
  const int pass = !o.check || nvfp4h_check_passed(&chk);
  const char *label = o.case_name ? o.case_name : "custom";
  nvfp4rt_plan_info fin = NVFP4RT_PLAN_INFO_INIT; /* the table cache's counters at the end */
  if ((st = nvfp4rt_plan_get_info(plan, &fin)) != NVFP4RT_STATUS_OK) FAIL_RT(st);
  if (o.json) {
    char jn[4][40];
    printf("{\"cubin\": ");
    json_str(o.cubin);
    printf(", \"kernel\": ");
    json_str(meta->kernel_name);
    printf(", \"device\": ");
    json_str(dev->name);
    printf(", \"case\": ");
    json_str(label);
    printf(", \"seed\": %llu, \"distribution\": \"%s\", \"proxy\": %s, \"groups\": [",
           (unsigned long long)o.seed, o.full_range ? "full-range" : "competition",
           proxy ? "true" : "false");
    for (uint32_t g = 0; g < ng; g++)
      printf("%s[%u, %u, %u]", g ? ", " : "", shapes[g].m, shapes[g].n, shapes[g].k);
    printf("], \"grid\": %u, \"total_tiles\": %u, \"checked\": %s, \"pass\": %s, "
           "\"mismatches\": %llu, \"max_abs_err\": %s, \"max_rel_err\": %s, "
           "\"time_us_median\": %.3f, \"time_us_min\": %.3f, \"iters\": %d, \"flush_l2\": %s, "
           "\"tflops\": %s, \"gbps\": %s, \"host_launch_us_median\": %.3f, "
           "\"replan_cached_us\": %.3f, \"replan_reencoded\": %llu, \"reference_ms\": %.1f, "
           "\"ldc_pad\": %u, \"outside_checked\": %llu, \"outside_writes\": %llu, "
           "\"pdl\": %s, \"param_bytes\": %u, \"table_bytes\": %u, \"table_cache\": %u, "
           "\"tables_uploaded\": %llu, \"table_cache_hits\": %llu, "
           "\"table_bytes_uploaded\": %llu",
           info.grid, info.total_tiles, o.check ? "true" : "false", pass ? "true" : "false",
           (unsigned long long)chk.mismatches, json_num(jn[0], chk.max_abs, 6),
           json_num(jn[1], chk.max_rel, 6), dev_us, dev_min, o.iters,
           o.flush_l2 ? "true" : "false", json_num(jn[2], flops / dev_us * 1e-6, 6),
           json_num(jn[3], bytes / dev_us * 1e-3, 6),
           host_us, replan_us, (unsigned long long)reencoded, ref_ms, o.ldc_pad,
           (unsigned long long)chk.outside_checked, (unsigned long long)chk.outside_writes,
           nvfp4rt_plan_uses_pdl(plan) ? "true" : "false", fin.param_bytes, fin.table_bytes,
           fin.table_cache, (unsigned long long)fin.tables_uploaded,
           (unsigned long long)fin.table_cache_hits,
           (unsigned long long)fin.table_bytes_uploaded);
    if (o.pdl_pair)
      printf(", \"pdl_pair_us_median\": %.3f, \"no_pdl_pair_us_median\": %.3f, "
             "\"pdl_pair_in_effect\": %s", pdl_us[0], pdl_us[1], pdl_on[0] ? "true" : "false");
    printf("}\n");
  } else {
    printf("device   %s (sm_%d%d, %d SMs)\n", dev->name, dev->cc_major, dev->cc_minor, dev->sm_count);
    printf("kernel   %s [%s]  grid %u  block %ux%ux%u  smem %u  tiles %u\n", meta->kernel_name,
           meta->target, info.grid, meta->block[0], meta->block[1], meta->block[2],
           meta->dyn_smem_bytes, info.total_tiles);
    printf("case     %s  seed %llu  %s", label, (unsigned long long)o.seed,
           o.full_range ? "full-range" : "competition");
    if (o.ldc_pad) printf("  ldc pad %u", o.ldc_pad);
    printf("\n");
    printf("  group        M        N        K\n");
    for (uint32_t g = 0; g < ng; g++)
      printf("  %5u %8u %8u %8u\n", g, shapes[g].m, shapes[g].n, shapes[g].k);
    if (o.check) {
      if (proxy)
        printf("check    %s  (proxy: %llu/%llu elements of M x N not +0, %llu outside checked)\n",
               pass ? "PASS" : "FAIL", (unsigned long long)chk.mismatches,
               (unsigned long long)chk.checked, (unsigned long long)chk.outside_checked);
      else {
        double atol, rtol;
        nvfp4h_check_tolerance(gopts.c_type, &atol, &rtol);
        printf("check    %s  (%llu/%llu mismatches, max abs %.4g, max rel %.4g, atol %g rtol %g)\n",
               pass ? "PASS" : "FAIL", (unsigned long long)chk.mismatches,
               (unsigned long long)chk.checked, chk.max_abs, chk.max_rel, atol, rtol);
      }
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
      printf("check    skipped (--no-check)\n");
    }
    printf("time     median %.2f us  min %.2f us  (%d iters, %d warm-up%s)  %.1f TFLOP/s  %.0f GB/s\n",
           dev_us, dev_min, o.iters, o.warmup, o.flush_l2 ? ", L2 flushed" : "",
           flops / dev_us * 1e-6, bytes / dev_us * 1e-3);
    printf("host     nvfp4rt_plan_launch median %.3f us (%d calls); cached re-plan %.2f us "
           "(%llu maps re-encoded)\n",
           host_us, o.launch_iters, replan_us, (unsigned long long)reencoded);
    printf("launch   programmatic dependent launch %s; parameter block %u bytes, group table "
           "%u bytes in device memory (%llu copied, %llu found in a cache of %u)\n",
           nvfp4rt_plan_uses_pdl(plan) ? "on" : "off", fin.param_bytes, fin.table_bytes,
           (unsigned long long)fin.tables_uploaded, (unsigned long long)fin.table_cache_hits,
           fin.table_cache);
    if (o.pdl_pair)
      printf("pdl      2 back-to-back launches: median %.2f us with programmatic dependent "
             "launch%s, %.2f us without (%d iters)\n",
             pdl_us[0], pdl_on[0] ? "" : " (not in effect: kernel, device or driver)", pdl_us[1],
             o.iters);
  }
  rc = pass ? EXIT_PASS : EXIT_CHECK_FAILED;

done:
  for (uint32_t g = 0; g < NVFP4H_MAX_GROUPS; g++) {
    free(got[g]);
    free(ref[g]);
    for (int t = 0; t < 5; t++) nvfp4rt_mem_free(ctx, dptr[g][t]);
  }
  nvfp4rt_mem_free(ctx, alpha_buf);
  free(times);
  free(host);
  nvfp4rt_stream_destroy(ctx, stream);
  nvfp4rt_plan_destroy(plan);
  nvfp4rt_module_destroy(mod);
  nvfp4rt_context_destroy(ctx);
  nvfp4h_problem_free(&prob);
  return rc;
}
