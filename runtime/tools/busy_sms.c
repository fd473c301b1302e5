/* busy_sms.c — nvfp4-run --busy-sms N (busy_sms.h): a kernel on another stream holds N SMs
 * while the kernel under test runs, and a grid-barrier control shows that they are held.
 *
 * The two busy kernels are PTX, JIT-compiled by the driver (cuModuleLoadData), launched with
 * all the opt-in shared memory a CTA may have (one CTA per SM). They talk to the host through
 * a small device buffer (32-bit words):
 *   0 hold CTAs running      1 release (written by the host)   2 hold CTAs that hit the deadline
 *   3 barrier arrivals       4-5 barrier start (globaltimer)   6 barrier CTAs that hit the deadline
 * The host reads and writes it with synchronous copies on the legacy stream, which do not wait
 * for the runtime's streams (they are non-blocking). */
/* clock_gettime and CLOCK_MONOTONIC (run_common.h) under -std=c11: the feature-test macro
 * must come before the first system header, which busy_sms.h's nvfp4rt.h includes. */
#define _POSIX_C_SOURCE 200809L
#include "busy_sms.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h> /* types and enums only; the entry points come from dlsym */

#include "run_common.h"

/* The driver entry points this mode uses, X(name, parameter list). */
#define BUSY_CU_SYMBOLS(X)                                                                 \
  X(cuModuleLoadData, (CUmodule *, const void *))                                          \
  X(cuModuleGetFunction, (CUfunction *, CUmodule, const char *))                           \
  X(cuModuleUnload, (CUmodule))                                                            \
  X(cuFuncSetAttribute, (CUfunction, CUfunction_attribute, int))                           \
  X(cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, \
                     unsigned, CUstream, void **, void **))

#define BUSY_PFN(name, params) typedef CUresult(CUDAAPI *busy_pfn_##name) params;
BUSY_CU_SYMBOLS(BUSY_PFN)
#undef BUSY_PFN

typedef struct busy_driver {
#define BUSY_FIELD(name, params) busy_pfn_##name name;
  BUSY_CU_SYMBOLS(BUSY_FIELD)
#undef BUSY_FIELD
} busy_driver;

enum { W_RUNNING, W_RELEASE, W_HOLD_LATE, W_ARRIVED, W_START_LO, W_START_HI, W_BARRIER_LATE,
       W_COUNT = 8 };

static const uint64_t HOLD_DEADLINE_NS = 20000000000ull; /* the busy kernel gives up after 20 s */
static const uint64_t BARRIER_WINDOW_NS = 200000000ull;   /* a control barrier waits 200 ms */
static const double START_TIMEOUT_MS = 5000;              /* for the N hold CTAs to be running */

static const char busy_ptx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".extern .shared .align 16 .b8 nvfp4_busy_smem[];\n"
    /* thread 0: count itself running, spin until released or past the deadline */
    ".visible .entry nvfp4_busy_hold(.param .u64 p_words, .param .u64 p_deadline)\n"
    "{\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .b64 %rd<5>;\n"
    "  mov.u32 %r0, %tid.x;\n"
    "  setp.ne.u32 %p0, %r0, 0;\n"
    "  @%p0 bra $done;\n"
    "  ld.param.u64 %rd0, [p_words];\n"
    "  ld.param.u64 %rd1, [p_deadline];\n"
    "  mov.u64 %rd2, %globaltimer;\n"
    "  add.u64 %rd3, %rd2, %rd1;\n"
    "  st.shared.u32 [nvfp4_busy_smem], %r0;\n"
    "  atom.global.add.u32 %r1, [%rd0], 1;\n"
    "$spin:\n"
    "  ld.relaxed.sys.global.u32 %r2, [%rd0+4];\n"
    "  setp.ne.u32 %p1, %r2, 0;\n"
    "  @%p1 bra $done;\n"
    "  mov.u64 %rd4, %globaltimer;\n"
    "  setp.lt.u64 %p2, %rd4, %rd3;\n"
    "  nanosleep.u32 2000;\n"
    "  @%p2 bra $spin;\n"
    "  atom.global.add.u32 %r3, [%rd0+8], 1;\n"
    "$done:\n"
    "  ret;\n"
    "}\n"
    /* thread 0: arrive, wait until every CTA of the grid has arrived or the window since the
     * first arrival has passed */
    ".visible .entry nvfp4_busy_grid_barrier(.param .u64 p_words, .param .u64 p_window)\n"
    "{\n"
    "  .reg .pred %p<4>;\n"
    "  .reg .b32 %r<5>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  mov.u32 %r0, %tid.x;\n"
    "  setp.ne.u32 %p0, %r0, 0;\n"
    "  @%p0 bra $done;\n"
    "  ld.param.u64 %rd0, [p_words];\n"
    "  ld.param.u64 %rd1, [p_window];\n"
    "  mov.u32 %r1, %nctaid.x;\n"
    "  mov.u64 %rd2, %globaltimer;\n"
    "  mov.u64 %rd7, 0;\n"
    "  atom.global.cas.b64 %rd3, [%rd0+16], %rd7, %rd2;\n"
    "  setp.eq.u64 %p1, %rd3, 0;\n"
    "  selp.b64 %rd4, %rd2, %rd3, %p1;\n"
    "  add.u64 %rd5, %rd4, %rd1;\n"
    "  atom.global.add.u32 %r2, [%rd0+12], 1;\n"
    "$spin:\n"
    "  ld.relaxed.gpu.global.u32 %r3, [%rd0+12];\n"
    "  setp.ge.u32 %p2, %r3, %r1;\n"
    "  @%p2 bra $done;\n"
    "  mov.u64 %rd6, %globaltimer;\n"
    "  setp.lt.u64 %p3, %rd6, %rd5;\n"
    "  nanosleep.u32 1000;\n"
    "  @%p3 bra $spin;\n"
    "  atom.global.add.u32 %r4, [%rd0+24], 1;\n"
    "$done:\n"
    "  ret;\n"
    "}\n";

struct busy_sms {
  nvfp4rt_context *ctx;
  busy_driver cu;
  void *lib;
  CUmodule mod;
  CUfunction hold, barrier;
  void *hold_stream, *barrier_stream;
  uint64_t words;
  int n, sms, smem, holding;
  double idle_barrier_ms, held_barrier_ms;
};

static int cu_fail(const char *what, CUresult r) {
  fprintf(stderr, "nvfp4-run: --busy-sms: %s failed (CUresult %d)\n", what, (int)r);
  return EXIT_ERROR;
}

static int rt_fail(const char *what, nvfp4rt_status st) {
  fprintf(stderr, "nvfp4-run: --busy-sms: %s: %s\n", what, status_detail(st));
  return EXIT_ERROR;
}

static int read_words(busy_sms *b, uint32_t w[W_COUNT]) {
  nvfp4rt_status st = nvfp4rt_memcpy_dtoh(b->ctx, w, b->words, W_COUNT * sizeof *w);
  return st == NVFP4RT_STATUS_OK ? 0 : rt_fail("reading the busy kernel's words", st);
}

static int write_word(busy_sms *b, int i, uint32_t v) {
  nvfp4rt_status st = nvfp4rt_memcpy_htod(b->ctx, b->words + 4u * (uint32_t)i, &v, sizeof v);
  return st == NVFP4RT_STATUS_OK ? 0 : rt_fail("writing the busy kernel's words", st);
}

static int launch(busy_sms *b, CUfunction f, unsigned grid, uint64_t ns, void *stream,
                  const char *what) {
  void *args[] = {&b->words, &ns};
  CUresult r = b->cu.cuLaunchKernel(f, grid, 1, 1, 32, 1, 1, (unsigned)b->smem,
                                    (CUstream)stream, args, NULL);
  return r == CUDA_SUCCESS ? 0 : cu_fail(what, r);
}

/* One grid barrier of one CTA per SM; *late = the CTAs that gave up waiting. Every CTA must
 * have arrived by the end (else the kernel did not run). */
static int run_barrier(busy_sms *b, uint32_t *late, double *ms) {
  uint32_t zero[W_COUNT] = {0}, w[W_COUNT];
  nvfp4rt_status st;
  if ((st = nvfp4rt_memcpy_htod(b->ctx, b->words + 4u * W_ARRIVED, &zero[W_ARRIVED],
                                (W_COUNT - W_ARRIVED) * sizeof *zero)) != NVFP4RT_STATUS_OK)
    return rt_fail("resetting the barrier words", st);
  double t0 = now_us();
  int rc = launch(b, b->barrier, (unsigned)b->sms, BARRIER_WINDOW_NS, b->barrier_stream,
                  "cuLaunchKernel(nvfp4_busy_grid_barrier)");
  if (rc) return rc;
  if ((st = nvfp4rt_stream_synchronize(b->ctx, b->barrier_stream)) != NVFP4RT_STATUS_OK)
    return rt_fail("the grid-barrier control", st);
  *ms = (now_us() - t0) / 1e3;
  if ((rc = read_words(b, w))) return rc;
  if (w[W_ARRIVED] != (uint32_t)b->sms) {
    fprintf(stderr, "nvfp4-run: --busy-sms: the grid-barrier control did not run: %u of its "
                    "%d CTAs arrived\n", w[W_ARRIVED], b->sms);
    return EXIT_ERROR;
  }
  *late = w[W_BARRIER_LATE];
  return 0;
}

static void release_all(busy_sms *b) {
  if (b->holding) {
    write_word(b, W_RELEASE, 1);
    nvfp4rt_stream_synchronize(b->ctx, b->hold_stream);
  }
  if (b->hold_stream) nvfp4rt_stream_destroy(b->ctx, b->hold_stream);
  if (b->barrier_stream) nvfp4rt_stream_destroy(b->ctx, b->barrier_stream);
  if (b->mod) b->cu.cuModuleUnload(b->mod);
  if (b->words) nvfp4rt_mem_free(b->ctx, b->words);
  if (b->lib) dlclose(b->lib);
  free(b);
}

static int start(busy_sms *b) {
  const char *path = getenv("NVFP4RT_LIBCUDA_PATH");
  b->lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!b->lib) {
    fprintf(stderr, "nvfp4-run: --busy-sms: cannot open the CUDA driver\n");
    return EXIT_ERROR;
  }
#define BUSY_RESOLVE(name, params)                                                         \
  if (!(b->cu.name = (busy_pfn_##name)dlsym(b->lib, #name))) {                             \
    fprintf(stderr, "nvfp4-run: --busy-sms: the CUDA driver lacks %s\n", #name);          \
    return EXIT_ERROR;                                                                     \
  }
  BUSY_CU_SYMBOLS(BUSY_RESOLVE)
#undef BUSY_RESOLVE
  CUresult r;
  if ((r = b->cu.cuModuleLoadData(&b->mod, busy_ptx)) != CUDA_SUCCESS)
    return cu_fail("cuModuleLoadData(busy kernels, PTX)", r);
  if ((r = b->cu.cuModuleGetFunction(&b->hold, b->mod, "nvfp4_busy_hold")) != CUDA_SUCCESS ||
      (r = b->cu.cuModuleGetFunction(&b->barrier, b->mod, "nvfp4_busy_grid_barrier")) != CUDA_SUCCESS)
    return cu_fail("cuModuleGetFunction(busy kernels)", r);
  const CUfunction_attribute dyn = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
  if ((r = b->cu.cuFuncSetAttribute(b->hold, dyn, b->smem)) != CUDA_SUCCESS ||
      (r = b->cu.cuFuncSetAttribute(b->barrier, dyn, b->smem)) != CUDA_SUCCESS)
    return cu_fail("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r);
  nvfp4rt_status st;
  if ((st = nvfp4rt_mem_alloc(b->ctx, W_COUNT * 4, &b->words)) != NVFP4RT_STATUS_OK ||
      (st = nvfp4rt_stream_create(b->ctx, &b->hold_stream)) != NVFP4RT_STATUS_OK ||
      (st = nvfp4rt_stream_create(b->ctx, &b->barrier_stream)) != NVFP4RT_STATUS_OK)
    return rt_fail("buffers and streams", st);
  uint32_t w[W_COUNT] = {0}, late = 0;
  if ((st = nvfp4rt_memcpy_htod(b->ctx, b->words, w, sizeof w)) != NVFP4RT_STATUS_OK)
    return rt_fail("clearing the busy kernel's words", st);

  /* control 1: on the idle GPU the barrier completes (one CTA per SM fits at once) */
  int rc = run_barrier(b, &late, &b->idle_barrier_ms);
  if (rc) return rc;
  if (late) {
    fprintf(stderr, "nvfp4-run: --busy-sms: the grid-barrier control did not complete on the "
                    "idle GPU (%u of %d CTAs gave up): is other work running on it?\n", late, b->sms);
    return EXIT_ERROR;
  }
  /* the hold: N CTAs, all running before the kernel under test is launched */
  if ((rc = launch(b, b->hold, (unsigned)b->n, HOLD_DEADLINE_NS, b->hold_stream,
                   "cuLaunchKernel(nvfp4_busy_hold)")))
    return rc;
  b->holding = 1;
  for (double t0 = now_us();;) {
    if ((rc = read_words(b, w))) return rc;
    if (w[W_RUNNING] == (uint32_t)b->n) break;
    if ((now_us() - t0) / 1e3 > START_TIMEOUT_MS) {
      fprintf(stderr, "nvfp4-run: --busy-sms: only %u of the %d busy CTAs started within %.0f ms\n",
              w[W_RUNNING], b->n, START_TIMEOUT_MS);
      return EXIT_ERROR;
    }
  }
  /* control 2: with N SMs held, the barrier over all SMs cannot complete */
  if ((rc = run_barrier(b, &late, &b->held_barrier_ms))) return rc;
  if (!late) {
    fprintf(stderr, "nvfp4-run: --busy-sms: the grid-barrier control completed while %d SMs "
                    "were to be held: they were not held\n", b->n);
    return EXIT_ERROR;
  }
  return 0;
}

int busy_sms_start(nvfp4rt_context *ctx, int n, busy_sms **out) {
  const nvfp4rt_device_info *d = nvfp4rt_context_device_info(ctx);
  *out = NULL;
  if (n < 1 || n >= d->sm_count) {
    fprintf(stderr, "nvfp4-run: --busy-sms %d: the device has %d SMs; hold 1 .. %d\n", n,
            d->sm_count, d->sm_count - 1);
    return EXIT_ERROR;
  }
  busy_sms *b = calloc(1, sizeof *b);
  if (!b) {
    fprintf(stderr, "nvfp4-run: out of host memory\n");
    return EXIT_ERROR;
  }
  b->ctx = ctx;
  b->n = n;
  b->sms = d->sm_count;
  b->smem = d->max_smem_optin;
  int rc = start(b);
  if (rc) {
    release_all(b);
    return rc;
  }
  *out = b;
  return 0;
}

int busy_sms_stop(busy_sms *b, double elapsed_ms) {
  uint32_t w[W_COUNT];
  int rc = write_word(b, W_RELEASE, 1);
  nvfp4rt_status st = nvfp4rt_stream_synchronize(b->ctx, b->hold_stream);
  if (!rc && st != NVFP4RT_STATUS_OK) rc = rt_fail("the busy kernel", st);
  b->holding = 0;
  if (!rc) rc = read_words(b, w);
  if (!rc) {
    printf("busy     %d of %d SMs held by another kernel (%d B of shared memory per CTA); "
           "control: a grid barrier over %d CTAs completed idle in %.1f ms, and not while held "
           "(%u CTAs gave up after its %.0f ms window; %.1f ms)\n",
           b->n, b->sms, b->smem, b->sms, b->idle_barrier_ms, w[W_BARRIER_LATE],
           BARRIER_WINDOW_NS / 1e6, b->held_barrier_ms);
    if (w[W_HOLD_LATE]) {
      printf("busy     FAIL: the kernel completed only after %u busy CTAs gave up at their "
             "%.0f s deadline (%.1f ms): it needs the SMs they held\n",
             w[W_HOLD_LATE], HOLD_DEADLINE_NS / 1e9, elapsed_ms);
      rc = EXIT_CHECK_FAILED;
    } else {
      printf("busy     the kernel completed on the other %d SMs in %.3f ms, the busy CTAs "
             "still holding theirs\n", b->sms - b->n, elapsed_ms);
    }
  }
  release_all(b);
  return rc;
}
