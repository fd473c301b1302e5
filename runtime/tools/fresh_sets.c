/* fresh_sets.c — nvfp4-run --fresh-sets N (fresh_sets.h): N input sets, each with its own
 * A, B, SFA, SFB and C buffers, used in turn so that every call has new pointers.
 *
 * For each tensor-map update technique (nvfp4rt_tmap_update: encode, replace-address,
 * kernel-patch), with its own plan:
 *   host      nvfp4rt_plan_update_pointers + nvfp4rt_plan_launch, wall clock, over `calls`
 *             calls (the stream is drained every 32 calls, outside the timed region, so
 *             that a full launch queue never blocks the timed call); the update alone too;
 *   e2e       the whole call with the L2 flushed before it: an event recorded on the idle
 *             stream, update + launch, an event after the kernel — host work, launch
 *             latency and kernel time together, as the competition measured;
 *   kernel    the same launch without the update (same pointers), L2 flushed: the kernel's
 *             own time, which for kernel-patch includes patching its maps;
 *   chain     every set once, back to back (update + launch each, no flush), between two
 *             events, per call: what a stream of dependent GEMMs with fresh pointers costs,
 *             where a table copy between two kernels costs programmatic dependent launch's
 *             overlap and a table found in the cache costs nothing;
 *   check     every set's C afterwards: C was reset to garbage before the technique ran,
 *             so a set whose pointers the kernel did not pick up shows (timing proxy: C =
 *             +0 inside M x N; other cubins: the reference GEMM of the set's inputs).
 * Then the CUDA-graph path: one launch captured (set 0's pointers) and replayed. Every plan
 * keeps --table-cache device copies of its group table: with at least as many copies as
 * sets, the calls after the warm-up copy no table (the counters say how many were copied
 * and how many found in the cache). */
#define _POSIX_C_SOURCE 200809L
#include "fresh_sets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_out.h"

enum { EXIT_PASS = 0, EXIT_CHECK_FAILED = 1, EXIT_ERROR = 2 };

#define MAX_SETS 64

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct stats { double median, p10, p90; int n; } stats;

static stats stats_of(double *v, int n) {
  stats s = {0, 0, 0, n};
  if (n <= 0) return s;
  qsort(v, (size_t)n, sizeof *v, cmpd);
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.p10 = v[n / 10];
  s.p90 = v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1];
  return s;
}

typedef struct result {
  const char *name;
  const char *skipped;     /* why the technique did not run, or NULL */
  char kernel[NVFP4_META_KERNEL_NAME_BYTES];
  stats host, update, e2e, kernel_only, chain;
  uint64_t encoded, replaced, uploaded;
  uint64_t tables_uploaded, table_hits, table_bytes; /* over the whole technique, warm-up
                                                          included */
  uint32_t table_cache;
  int checked, pass;
  uint64_t mismatches, outside_writes;
} result;

typedef struct state {
  nvfp4rt_context *ctx;
  nvfp4rt_module *mod;
  const nvfp4h_problem *probs;
  int nprobs, sets, proxy;
  uint32_t ng;
  nvfp4rt_group groups[MAX_SETS][NVFP4H_MAX_GROUPS];
  uint64_t dptr[MAX_SETS][NVFP4H_MAX_GROUPS][5];
  void *stream, *ev0, *ev1;
  uint64_t flush;
  size_t flush_bytes;
  uint16_t *ref[MAX_SETS][NVFP4H_MAX_GROUPS]; /* per distinct problem (index < nprobs) */
  double *t_host, *t_update, *t_e2e;
} state;

#define TRY(call)                                                                          \
  do {                                                                                     \
    nvfp4rt_status st_ = (call);                                                           \
    if (st_ != NVFP4RT_STATUS_OK) {                                                        \
      fprintf(stderr, "nvfp4-run: fresh sets: %s: %s\n", nvfp4rt_status_string(st_),       \
              nvfp4rt_last_error_message());                                               \
      return -1;                                                                           \
    }                                                                                      \
  } while (0)

static const nvfp4h_problem *problem_of(const state *S, int set) {
  return &S->probs[set % S->nprobs];
}

/* Every set's C back to the garbage of its problem (matrix and guard). */
static int reset_c(state *S) {
  for (int s = 0; s < S->sets; s++)
    for (uint32_t g = 0; g < S->ng; g++) {
      const nvfp4h_group_data *d = &problem_of(S, s)->groups[g];
      TRY(nvfp4rt_memcpy_htod(S->ctx, S->dptr[s][g][4], d->c, d->c_alloc_bytes));
    }
  return 0;
}

/* Checks the C of sets [0, sets) into r; returns -1 on a runtime error. */
static int check_sets(state *S, int sets, nvfp4h_check_result *r, int threads) {
  for (int s = 0; s < sets; s++) {
    const nvfp4h_problem *p = problem_of(S, s);
    for (uint32_t g = 0; g < S->ng; g++) {
      const nvfp4h_group_data *d = &p->groups[g];
      uint16_t *got = malloc(d->c_alloc_bytes);
      if (!got) return -1;
      nvfp4rt_status st = nvfp4rt_memcpy_dtoh(S->ctx, got, S->dptr[s][g][4], d->c_alloc_bytes);
      if (st != NVFP4RT_STATUS_OK) {
        free(got);
        TRY(st);
      }
      if (S->proxy) {
        nvfp4h_check_group_zero(d, got, g, r);
      } else {
        uint16_t **ref = &S->ref[s % S->nprobs][g];
        if (!*ref) {
          *ref = malloc(d->c_bytes ? d->c_bytes : 1);
          if (!*ref || nvfp4h_reference_gemm_ex(d, *ref, d->ldc, d->c_type, d->alpha, threads) != 0) {
            free(got);
            return -1;
          }
        }
        nvfp4h_check_group(d, got, *ref, g, r);
      }
      free(got);
    }
  }
  return 0;
}

/* The check of sets [0, sets) into the result (when checks are on). */
static int check_result(state *S, int sets, int threads, int check, result *R) {
  if (!check) return 0;
  nvfp4h_check_result r;
  nvfp4h_check_init(&r);
  if (check_sets(S, sets, &r, threads)) return -1;
  R->checked = 1;
  R->pass = nvfp4h_check_passed(&r);
  R->mismatches = r.mismatches;
  R->outside_writes = r.outside_writes;
  return 0;
}

/* One call of the technique: new pointers, launch. */
static int call(state *S, nvfp4rt_plan *plan, int set) {
  TRY(nvfp4rt_plan_update_pointers(plan, S->groups[set], S->ng));
  TRY(nvfp4rt_plan_launch(plan, S->stream));
  return 0;
}

static int flush_l2(state *S, int i) {
  TRY(nvfp4rt_memset_async(S->ctx, S->flush, (unsigned char)i, S->flush_bytes, S->stream));
  TRY(nvfp4rt_stream_synchronize(S->ctx, S->stream));
  return 0;
}

static int elapsed_us(state *S, double *us) {
  float ms = 0;
  TRY(nvfp4rt_event_elapsed_ms(S->ctx, S->ev0, S->ev1, &ms));
  *us = ms * 1e3;
  return 0;
}

static void table_counters(result *R, const nvfp4rt_plan_info *info) {
  R->tables_uploaded = info->tables_uploaded;
  R->table_hits = info->table_cache_hits;
  R->table_bytes = info->table_bytes_uploaded;
  R->table_cache = info->table_cache;
}

/* `chain`: e2e_calls times, every set once back to back (or, for a graph, as many replays)
 * between two events after the stream drained; the time per call. */
static int time_chain(state *S, const fresh_opts *o, nvfp4rt_plan *plan, void *exec, result *R) {
  for (int i = 0; i < o->e2e_calls; i++) {
    TRY(nvfp4rt_stream_synchronize(S->ctx, S->stream));
    TRY(nvfp4rt_event_record(S->ctx, S->ev0, S->stream));
    for (int s = 0; s < S->sets; s++) {
      if (exec) TRY(nvfp4rt_graph_launch(S->ctx, exec, S->stream));
      else if (call(S, plan, s)) return -1;
    }
    TRY(nvfp4rt_event_record(S->ctx, S->ev1, S->stream));
    TRY(nvfp4rt_stream_synchronize(S->ctx, S->stream));
    if (elapsed_us(S, &S->t_e2e[i])) return -1;
    S->t_e2e[i] /= S->sets;
  }
  R->chain = stats_of(S->t_e2e, o->e2e_calls);
  return 0;
}

static int run_technique(state *S, const fresh_opts *o, nvfp4rt_tmap_update mode, result *R) {
  memset(R, 0, sizeof *R);
  R->name = nvfp4rt_tmap_update_name(mode);
  nvfp4rt_plan_options popts = NVFP4RT_PLAN_OPTIONS_INIT;
  popts.variant = o->variant;
  popts.tmap_update = mode;
  popts.table_cache = (uint32_t)o->table_cache;
  nvfp4rt_plan *plan = NULL;
  nvfp4rt_status st = nvfp4rt_plan_create_ex(S->mod, S->groups[0], S->ng, &popts, &plan);
  if (st == NVFP4RT_STATUS_UNSUPPORTED) {
    R->skipped = "unsupported by this kernel";
    return 0;
  }
  TRY(st);
  int rc = -1;
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  if (reset_c(S)) goto out;
  /* warm-up: every set once, twice */
  for (int i = 0; i < 2 * S->sets; i++)
    if (call(S, plan, i % S->sets)) goto out;
  if (nvfp4rt_stream_synchronize(S->ctx, S->stream) != NVFP4RT_STATUS_OK) goto out;
  for (int i = 0; i < o->calls; i++) {
    if (i % 32 == 0 && nvfp4rt_stream_synchronize(S->ctx, S->stream) != NVFP4RT_STATUS_OK) goto out;
    const int set = i % S->sets;
    double t0 = now_us();
    if (nvfp4rt_plan_update_pointers(plan, S->groups[set], S->ng) != NVFP4RT_STATUS_OK) goto out;
    double t1 = now_us();
    if (nvfp4rt_plan_launch(plan, S->stream) != NVFP4RT_STATUS_OK) goto out;
    double t2 = now_us();
    S->t_update[i] = t1 - t0;
    S->t_host[i] = t2 - t0;
  }
  if (nvfp4rt_stream_synchronize(S->ctx, S->stream) != NVFP4RT_STATUS_OK) goto out;
  R->host = stats_of(S->t_host, o->calls);
  R->update = stats_of(S->t_update, o->calls);
  for (int i = 0; i < o->e2e_calls; i++) {
    if (flush_l2(S, i)) goto out;
    if (nvfp4rt_event_record(S->ctx, S->ev0, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (call(S, plan, i % S->sets)) goto out;
    if (nvfp4rt_event_record(S->ctx, S->ev1, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (nvfp4rt_stream_synchronize(S->ctx, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (elapsed_us(S, &S->t_e2e[i])) goto out;
  }
  R->e2e = stats_of(S->t_e2e, o->e2e_calls);
  for (int i = 0; i < o->e2e_calls; i++) {
    if (flush_l2(S, i)) goto out;
    if (nvfp4rt_event_record(S->ctx, S->ev0, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (nvfp4rt_plan_launch(plan, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (nvfp4rt_event_record(S->ctx, S->ev1, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (nvfp4rt_stream_synchronize(S->ctx, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (elapsed_us(S, &S->t_e2e[i])) goto out;
  }
  R->kernel_only = stats_of(S->t_e2e, o->e2e_calls);
  if (time_chain(S, o, plan, NULL, R)) goto out;
  nvfp4rt_plan_get_info(plan, &info);
  snprintf(R->kernel, sizeof R->kernel, "%s", info.kernel_name);
  R->encoded = info.tmaps_encoded;
  R->replaced = info.tmaps_replaced;
  R->uploaded = info.templates_uploaded;
  table_counters(R, &info);
  if (check_result(S, S->sets, o->threads, o->check, R)) goto out;
  rc = 0;
out:
  if (rc) fprintf(stderr, "nvfp4-run: fresh sets (%s): %s\n", R->name, nvfp4rt_last_error_message());
  nvfp4rt_plan_destroy(plan);
  return rc;
}

/* The CUDA-graph path: set 0's pointers captured once, replayed. */
static int run_graph(state *S, const fresh_opts *o, result *R) {
  memset(R, 0, sizeof *R);
  R->name = "cuda-graph";
  nvfp4rt_plan_options popts = NVFP4RT_PLAN_OPTIONS_INIT;
  popts.variant = o->variant;
  popts.table_cache = (uint32_t)o->table_cache;
  nvfp4rt_plan *plan = NULL;
  TRY(nvfp4rt_plan_create_ex(S->mod, S->groups[0], S->ng, &popts, &plan));
  void *exec = NULL;
  int rc = -1;
  if (reset_c(S)) goto out;
  if (nvfp4rt_graph_capture_begin(S->ctx, S->stream) != NVFP4RT_STATUS_OK) goto out;
  nvfp4rt_status launched = nvfp4rt_plan_launch(plan, S->stream);
  if (nvfp4rt_graph_capture_end(S->ctx, S->stream, &exec) != NVFP4RT_STATUS_OK ||
      launched != NVFP4RT_STATUS_OK)
    goto out;
  for (int i = 0; i < 4; i++)
    if (nvfp4rt_graph_launch(S->ctx, exec, S->stream) != NVFP4RT_STATUS_OK) goto out;
  for (int i = 0; i < o->calls; i++) {
    if (i % 32 == 0 && nvfp4rt_stream_synchronize(S->ctx, S->stream) != NVFP4RT_STATUS_OK) goto out;
    double t0 = now_us();
    if (nvfp4rt_graph_launch(S->ctx, exec, S->stream) != NVFP4RT_STATUS_OK) goto out;
    S->t_host[i] = now_us() - t0;
  }
  if (nvfp4rt_stream_synchronize(S->ctx, S->stream) != NVFP4RT_STATUS_OK) goto out;
  R->host = stats_of(S->t_host, o->calls);
  for (int i = 0; i < o->e2e_calls; i++) {
    if (flush_l2(S, i)) goto out;
    if (nvfp4rt_event_record(S->ctx, S->ev0, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (nvfp4rt_graph_launch(S->ctx, exec, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (nvfp4rt_event_record(S->ctx, S->ev1, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (nvfp4rt_stream_synchronize(S->ctx, S->stream) != NVFP4RT_STATUS_OK) goto out;
    if (elapsed_us(S, &S->t_e2e[i])) goto out;
  }
  R->e2e = stats_of(S->t_e2e, o->e2e_calls);
  if (time_chain(S, o, NULL, exec, R)) goto out;
  nvfp4rt_plan_info info = NVFP4RT_PLAN_INFO_INIT;
  nvfp4rt_plan_get_info(plan, &info);
  snprintf(R->kernel, sizeof R->kernel, "%s", info.kernel_name);
  table_counters(R, &info);
  if (check_result(S, 1, o->threads, o->check, R)) goto out;
  rc = 0;
out:
  if (rc) fprintf(stderr, "nvfp4-run: fresh sets (graph): %s\n", nvfp4rt_last_error_message());
  nvfp4rt_graph_destroy(S->ctx, exec);
  nvfp4rt_plan_destroy(plan);
  return rc;
}

static int setup(state *S) {
  const nvfp4rt_device_info *dev = nvfp4rt_context_device_info(S->ctx);
  for (int s = 0; s < S->sets; s++) {
    const nvfp4h_problem *p = problem_of(S, s);
    for (uint32_t g = 0; g < S->ng; g++) {
      const nvfp4h_group_data *d = &p->groups[g];
      const void *src[5] = {d->a, d->b, d->sfa, d->sfb, d->c};
      const size_t bytes[5] = {d->a_bytes, d->b_bytes, d->sfa_bytes, d->sfb_bytes, d->c_alloc_bytes};
      for (int t = 0; t < 5; t++) {
        if (!bytes[t]) continue;
        TRY(nvfp4rt_mem_alloc(S->ctx, bytes[t], &S->dptr[s][g][t]));
        TRY(nvfp4rt_memcpy_htod(S->ctx, S->dptr[s][g][t], src[t], bytes[t]));
      }
      const uint64_t *q = S->dptr[s][g];
      S->groups[s][g] = (nvfp4rt_group){q[0], q[1], q[2], q[3], q[4], d->m, d->n, d->k, d->ldc, 0, 0, 0};
    }
  }
  TRY(nvfp4rt_stream_create(S->ctx, &S->stream));
  TRY(nvfp4rt_event_create(S->ctx, &S->ev0));
  TRY(nvfp4rt_event_create(S->ctx, &S->ev1));
  S->flush_bytes = (size_t)(dev->l2_bytes > 0 ? dev->l2_bytes : 64 << 20) * 2;
  TRY(nvfp4rt_mem_alloc(S->ctx, S->flush_bytes, &S->flush));
  return 0;
}

static void teardown(state *S) {
  for (int s = 0; s < S->sets; s++)
    for (uint32_t g = 0; g < S->ng; g++)
      for (int t = 0; t < 5; t++) nvfp4rt_mem_free(S->ctx, S->dptr[s][g][t]);
  for (int s = 0; s < S->nprobs; s++)
    for (uint32_t g = 0; g < S->ng; g++) free(S->ref[s][g]);
  nvfp4rt_mem_free(S->ctx, S->flush);
  nvfp4rt_event_destroy(S->ctx, S->ev0);
  nvfp4rt_event_destroy(S->ctx, S->ev1);
  nvfp4rt_stream_destroy(S->ctx, S->stream);
  free(S->t_host);
  free(S->t_update);
  free(S->t_e2e);
}

static const char *verdict(const result *R) {
  return !R->checked ? "-" : R->pass ? "PASS" : "FAIL";
}

static void print_header(const state *S, const fresh_opts *o) {
  const nvfp4rt_device_info *dev = nvfp4rt_context_device_info(S->ctx);
  printf("fresh sets: %d input sets of %s (%u groups), every call with new pointers; %s; "
         "device %s\n", S->sets, o->label, S->ng, S->proxy ? "timing proxy" : "checked kernel",
         dev->name);
  printf("  (us; host = plan_update_pointers + plan_launch over %d calls, for the graph the "
         "replay call; e2e and kernel: median of %d calls, L2 flushed; chain: per call of %d "
         "back to back, no flush)\n", o->calls, o->e2e_calls, S->sets);
  printf("  %-16s %-34s %9s %9s %9s %9s %9s %9s %9s  %-7s %s\n", "technique", "kernel",
         "host med", "host p90", "update", "e2e med", "e2e p90", "kernel", "chain", "check",
         "maps encoded/replaced/templates, tables copied/hits (cache)");
}

static void print_text(const result *R) {
  if (R->skipped) {
    printf("  %-16s (%s)\n", R->name, R->skipped);
    return;
  }
  printf("  %-16s %-34s %9.3f %9.3f %9.3f %9.2f %9.2f %9.2f %9.2f  %-7s %llu/%llu/%llu, "
         "%llu/%llu (%u)\n",
         R->name, R->kernel, R->host.median, R->host.p90, R->update.median, R->e2e.median,
         R->e2e.p90, R->kernel_only.median, R->chain.median, verdict(R), (unsigned long long)R->encoded,
         (unsigned long long)R->replaced, (unsigned long long)R->uploaded,
         (unsigned long long)R->tables_uploaded, (unsigned long long)R->table_hits,
         R->table_cache);
}

static void print_stats(const char *key, stats s) {
  printf("\"%s_us_median\": %.3f, \"%s_us_p10\": %.3f, \"%s_us_p90\": %.3f, ", key, s.median,
         key, s.p10, key, s.p90);
}

/* One JSON object per line and technique (JSON Lines), written as soon as it is measured. */
static void print_json(const state *S, const fresh_opts *o, const result *R) {
  const nvfp4rt_device_info *dev = nvfp4rt_context_device_info(S->ctx);
  printf("{\"fresh_sets\": %d, \"case\": ", S->sets);
  json_str(o->label);
  printf(", \"groups\": %u, \"proxy\": %s, \"device\": ", S->ng, S->proxy ? "true" : "false");
  json_str(dev->name);
  printf(", \"calls\": %d, \"e2e_calls\": %d, \"name\": \"%s\", ", o->calls, o->e2e_calls,
         R->name);
  if (R->skipped) {
    printf("\"skipped\": \"%s\"}\n", R->skipped);
    return;
  }
  printf("\"kernel\": ");
  json_str(R->kernel);
  printf(", ");
  print_stats("host", R->host);
  print_stats("update", R->update);
  print_stats("e2e", R->e2e);
  print_stats("kernel", R->kernel_only);
  print_stats("chain", R->chain);
  printf("\"table_cache\": %u, \"tables_uploaded\": %llu, \"table_cache_hits\": %llu, "
         "\"table_bytes_uploaded\": %llu, ",
         R->table_cache, (unsigned long long)R->tables_uploaded,
         (unsigned long long)R->table_hits, (unsigned long long)R->table_bytes);
  printf("\"maps_encoded\": %llu, \"maps_replaced\": %llu, \"templates_uploaded\": %llu, "
         "\"checked\": %s, \"pass\": %s, \"mismatches\": %llu, \"outside_writes\": %llu}\n",
         (unsigned long long)R->encoded, (unsigned long long)R->replaced,
         (unsigned long long)R->uploaded, R->checked ? "true" : "false",
         R->pass ? "true" : "false", (unsigned long long)R->mismatches,
         (unsigned long long)R->outside_writes);
}

static void report(const state *S, const fresh_opts *o, const result *R) {
  if (o->json) print_json(S, o, R);
  else print_text(R);
  fflush(stdout); /* measured results survive a later technique that faults */
}

int fresh_sets_run(nvfp4rt_context *ctx, nvfp4rt_module *mod, const nvfp4h_problem *probs,
                   int nprobs, const fresh_opts *o) {
  if (o->sets < 2 || o->sets > MAX_SETS || nprobs < 1 || o->calls < 1 || o->e2e_calls < 1) {
    fprintf(stderr, "nvfp4-run: --fresh-sets needs 2..%d sets and at least one call\n", MAX_SETS);
    return EXIT_ERROR;
  }
  state *S = calloc(1, sizeof *S);
  if (!S) return EXIT_ERROR;
  S->ctx = ctx;
  S->mod = mod;
  S->probs = probs;
  S->nprobs = nprobs;
  S->sets = o->sets;
  S->ng = probs[0].num_groups;
  S->proxy = (nvfp4rt_module_metadata(mod)->flags & NVFP4_META_FLAG_PROXY) != 0;
  const int most = o->calls > o->e2e_calls ? o->calls : o->e2e_calls;
  S->t_host = calloc((size_t)most, sizeof(double));
  S->t_update = calloc((size_t)most, sizeof(double));
  S->t_e2e = calloc((size_t)most, sizeof(double));
  int rc = EXIT_ERROR, failed = 0;
  if (!S->t_host || !S->t_update || !S->t_e2e || setup(S)) goto done;
  if (!o->json) print_header(S, o);
  /* the kernel-patch technique last: a kernel fault would end the process */
  static const char *const order[4] = {"encode", "replace-address", "cuda-graph", "kernel-patch"};
  for (int i = 0; i < 4; i++) {
    if (o->only && strcmp(o->only, order[i])) continue;
    result R;
    int r;
    if (i == 2) {
      r = run_graph(S, o, &R);
    } else {
      const nvfp4rt_tmap_update mode = i == 0 ? NVFP4RT_TMAP_UPDATE_ENCODE
                                       : i == 1 ? NVFP4RT_TMAP_UPDATE_REPLACE_ADDRESS
                                                : NVFP4RT_TMAP_UPDATE_KERNEL_PATCH;
      r = run_technique(S, o, mode, &R);
    }
    if (r) goto done;
    report(S, o, &R);
    failed += !R.skipped && R.checked && !R.pass;
  }
  rc = failed ? EXIT_CHECK_FAILED : EXIT_PASS;
done:
  teardown(S);
  free(S);
  return rc;
}
