/* refgemm.c — the C reference for the grouped NVFP4 GEMM: exact decode of A*SFA and B*SFB
 * to fp32, products exact in fp32, fp32 accumulation in ascending K order per output (as
 * the MMA), then alpha in fp32 and round-to-nearest-even to f16, bf16 (or f32 as is). Fast enough for the benchmark shapes: A
 * rows are pre-decoded once, B is decoded into K x NB column panels that stay in cache, the
 * inner loop runs over the NB columns (auto-vectorised, no reassociation), threads split
 * the panels. Also a double-accumulation variant for cross-checking. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvfp4rt_host.h"

/* Panel width NB (columns of C per task) and rows per register block MR: 32 x 2 measured
 * fastest here (B1 in < 1 s on 2 cores); the summation order does not depend on them. */
enum { NB = 32, MR = 2, KU = 4 /* K steps per pass over the accumulators */ };

static float fp4_lut[16];
static float e4m3_lut[256];
static pthread_once_t g_lut_once = PTHREAD_ONCE_INIT;
static void init_luts(void) {
  for (int i = 0; i < 16; i++) fp4_lut[i] = nvfp4h_fp4_decode((uint8_t)i);
  for (int i = 0; i < 256; i++) e4m3_lut[i] = nvfp4h_e4m3_decode((uint8_t)i);
}

/* out[k] = fp4(row, k) * sf(row, k/16), k in [0, K) */
static void decode_row(const uint8_t *packed, const uint8_t *sf, uint32_t row, uint32_t K,
                       float *out) {
  const uint32_t S = K / 16;
  for (uint32_t j = 0; j < S; j++) {
    float s = e4m3_lut[sf[nvfp4h_sf_blocked_offset(row, j, S)]];
    const uint8_t *p = packed + (size_t)row * (K / 2) + (size_t)j * 8;
    for (uint32_t i = 0; i < 8; i++) {
      out[16 * j + 2 * i] = fp4_lut[p[i] & 15] * s;
      out[16 * j + 2 * i + 1] = fp4_lut[p[i] >> 4] * s;
    }
  }
}

typedef struct job {
  const nvfp4h_group_data *g;
  const float *a;    /* M x K decoded */
  void *c;
  uint32_t ldc;
  nvfp4h_c_type type;
  float alpha;       /* applied after the accumulation, in fp32 */
  uint32_t next_panel; /* shared counter, protected by mu */
  pthread_mutex_t mu;
  int failed;
} job;

static void run_panel(const job *jb, uint32_t n0, float *panel, float *rowbuf) {
  const nvfp4h_group_data *g = jb->g;
  const uint32_t K = g->k, M = g->m;
  const uint32_t nb = g->n - n0 < NB ? g->n - n0 : NB;
  /* panel[k][j] = B[n0 + j][k] * SFB (zeros beyond N) */
  for (uint32_t j = 0; j < NB; j++) {
    if (j < nb) decode_row(g->b, g->sfb, n0 + j, K, rowbuf);
    else memset(rowbuf, 0, sizeof(float) * K);
    for (uint32_t k = 0; k < K; k++) panel[(size_t)k * NB + j] = rowbuf[k];
  }
  uint32_t m = 0;
  for (; m + MR <= M; m += MR) {
    float acc[MR][NB];
    memset(acc, 0, sizeof acc);
    const float *a0 = jb->a + (size_t)m * K;
    uint32_t k = 0;
    /* KU steps of K per pass: each accumulator is loaded and stored once per KU products
     * (half the memory accesses, which an instrumented build pays for), and still adds
     * them one at a time in ascending k */
    for (; k + KU <= K; k += KU) {
      const float *pk = panel + (size_t)k * NB;
      float av[MR][KU];
      for (uint32_t r = 0; r < MR; r++)
        for (uint32_t u = 0; u < KU; u++) av[r][u] = a0[(size_t)r * K + k + u];
      for (uint32_t j = 0; j < NB; j++)
        for (uint32_t r = 0; r < MR; r++) {
          float s = acc[r][j];
          for (uint32_t u = 0; u < KU; u++) s += av[r][u] * pk[(size_t)u * NB + j];
          acc[r][j] = s;
        }
    }
    for (; k < K; k++) {
      const float *pk = panel + (size_t)k * NB;
      for (uint32_t r = 0; r < MR; r++) {
        const float av = a0[(size_t)r * K + k];
        for (uint32_t j = 0; j < NB; j++) acc[r][j] += av * pk[j];
      }
    }
    for (uint32_t r = 0; r < MR; r++)
      for (uint32_t j = 0; j < nb; j++)
        nvfp4h_c_store(jb->c, (size_t)(m + r) * jb->ldc + n0 + j, jb->type, acc[r][j] * jb->alpha);
  }
  for (; m < M; m++) {
    float acc[NB];
    memset(acc, 0, sizeof acc);
    const float *a0 = jb->a + (size_t)m * K;
    for (uint32_t k = 0; k < K; k++) {
      const float *pk = panel + (size_t)k * NB;
      const float av = a0[k];
      for (uint32_t j = 0; j < NB; j++) acc[j] += av * pk[j];
    }
    for (uint32_t j = 0; j < nb; j++)
      nvfp4h_c_store(jb->c, (size_t)m * jb->ldc + n0 + j, jb->type, acc[j] * jb->alpha);
  }
}

static void *worker(void *arg) {
  job *jb = arg;
  const uint32_t K = jb->g->k;
  float *panel = malloc(sizeof(float) * (size_t)K * NB);
  float *rowbuf = malloc(sizeof(float) * (size_t)K);
  if (!panel || !rowbuf) {
    pthread_mutex_lock(&jb->mu);
    jb->failed = 1;
    pthread_mutex_unlock(&jb->mu);
    free(panel);
    free(rowbuf);
    return NULL;
  }
  const uint32_t panels = (jb->g->n + NB - 1) / NB;
  for (;;) {
    pthread_mutex_lock(&jb->mu);
    uint32_t p = jb->next_panel++;
    pthread_mutex_unlock(&jb->mu);
    if (p >= panels) break;
    run_panel(jb, p * NB, panel, rowbuf);
  }
  free(panel);
  free(rowbuf);
  return NULL;
}

int nvfp4h_reference_gemm(const nvfp4h_group_data *g, uint16_t *c, uint32_t ldc, int threads) {
  return nvfp4h_reference_gemm_ex(g, c, ldc, NVFP4H_C_F16, 1.0f, threads);
}

int nvfp4h_reference_gemm_ex(const nvfp4h_group_data *g, void *c, uint32_t ldc,
                             nvfp4h_c_type type, float alpha, int threads) {
  pthread_once(&g_lut_once, init_luts);
  if (g->m == 0 || g->n == 0) return 0;
  if (g->k == 0) { /* empty sum */
    for (uint32_t m = 0; m < g->m; m++)
      for (uint32_t n = 0; n < g->n; n++) nvfp4h_c_store(c, (size_t)m * ldc + n, type, 0.0f * alpha);
    return 0;
  }
  if (threads <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n < 2 ? 2 : (int)n;
  }
  if (threads > 64) threads = 64;
  float *a = malloc(sizeof(float) * (size_t)g->m * g->k);
  if (!a) return -1;
  for (uint32_t m = 0; m < g->m; m++) decode_row(g->a, g->sfa, m, g->k, a + (size_t)m * g->k);
  job jb = {.g = g, .a = a, .c = c, .ldc = ldc, .type = type, .alpha = alpha,
            .next_panel = 0, .failed = 0};
  pthread_mutex_init(&jb.mu, NULL);
  pthread_t tid[64];
  int started = 0;
  for (int t = 1; t < threads; t++) {
    if (pthread_create(&tid[started], NULL, worker, &jb) != 0) break;
    started++;
  }
  worker(&jb);
  for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
  pthread_mutex_destroy(&jb.mu);
  free(a);
  return jb.failed ? -1 : 0;
}

int nvfp4h_reference_gemm_f64(const nvfp4h_group_data *g, double *out) {
  pthread_once(&g_lut_once, init_luts);
  if (g->m == 0 || g->n == 0) return 0;
  float *a = malloc(sizeof(float) * (size_t)g->k), *b = malloc(sizeof(float) * (size_t)g->k);
  if (!a || !b) { free(a); free(b); return -1; }
  for (uint32_t m = 0; m < g->m; m++) {
    decode_row(g->a, g->sfa, m, g->k, a);
    for (uint32_t n = 0; n < g->n; n++) {
      decode_row(g->b, g->sfb, n, g->k, b);
      double s = 0;
      for (uint32_t k = 0; k < g->k; k++) s += (double)a[k] * (double)b[k];
      out[(size_t)m * g->n + n] = s;
    }
  }
  free(a);
  free(b);
  return 0;
}
