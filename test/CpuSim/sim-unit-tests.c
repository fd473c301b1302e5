/* sim-unit-tests.c — tests of the CTA simulator's semantics with small kernels written in C
 * against the nvfp4_sim.h interface (launched with nvfp4sim_launch_kernel):
 *   tma      a 16U4 TMA load: SWIZZLE_128B image (chunk c of row r at c ^ (r % 8)) and the
 *            zero fill of elements and rows outside the tensor, for all three schedules;
 *   tmap     nvfp4sim_tmap_encode rejects what the simulator does not implement;
 *   tx       an expect_tx 16 bytes short: the phase completes once the expected bytes have
 *            landed, so the read after the wait is reported (16 bytes may still be in
 *            flight), and so is the tx-count of -16 the CTA leaves behind;
 *   deadlock a wait on a barrier that never completes ends in the deadlock report;
 *   redor    bar.red.or.pred returns the OR of the threads' predicates to every thread, for
 *            many generations back to back on one barrier under every schedule; the
 *            global counter's atomic add returns each thread a distinct old value;
 *   store    a TMA store clips to the tensor; without a bar.sync between the threads'
 *            writes of the staging box and the store, the store's read is a hazard;
 *   mma      one tcgen05.mma (M 128, N 64, K 64) on the emulation core through cp /
 *            commit / ld / wait::ld gives D = 64 under every schedule; and five broken
 *            orders are each reported: ld before the commit is observed, cp over the scale
 *            factors an uncommitted MMA reads, a store into its operands, a register used
 *            before wait::ld, and an ld after the wait without tcgen05.fence::after_thread_sync;
 *   mmasync  the block-scaled mma.sync of sm_120a with fragments built from the PTX ISA's
 *            tables in this file: D = A x B + C with both scales for every thread-id
 *            selection; ldmatrix.x4 delivers each matrix row's words; byte-id 1 is refused;
 *   plan     plan texts with site ids past 2^20 (2^31 looped forever), numbers past 32 bits
 *            and NUL bytes are refused with the line named;
 *   fault    a misaligned 16-byte global store, a store outside the output buffers, a load
 *            outside every buffer, a misaligned 16-byte shared store, a shared load past the
 *            CTA's dynamic shared memory and a wild pointer in kernel code (a host SIGSEGV)
 *            each stop the launch with a fault report, never a crash;
 *   race     two CTAs publish partial sums through an atomic counter and the last sums the
 *            other's (the stream-K pattern): clean and right under every schedule and
 *            residency; without the barrier between the partial-sum stores and the add, or
 *            without the one after it, the load is reported with both sites;
 *   late     a TMA load nobody waits for is in flight when its CTA exits under the lazy
 *            schedules (completions deferred until no thread can run), never the eager one;
 *   resident with one cluster resident the CTAs run one after another, with four they
 *            interleave;
 *   cluster  a CTA pair: shared addresses carry the CTA's cluster rank in bits 24 and up
 *            (mapa replaces them, cvta keeps them); remote arrives and a .cta_group::2 load
 *            whose barrier address has the peer bit cleared complete on the leader under
 *            every schedule, each CTA's half landing in its own window; the same load with
 *            the bit kept completes on the odd CTA's barrier and the leader's wait ends in a
 *            deadlock report; a shared::cta access of the other CTA's window, a remote
 *            arrive naming CTA rank 2 of the pair and a load without .cta_group::2 whose
 *            barrier is the peer's are faults.
 * Prints one line per check and "ALL PASSED"; exits 1 on any failure.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4_sim.h"
#include "nvfp4sim.h"

static int failures;
#define CHECK(cond, ...)                                                                     \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      failures++;                                                                            \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
      printf(__VA_ARGS__);                                                                   \
      printf("\n");                                                                          \
    }                                                                                        \
  } while (0)

/* ---- a small launch harness ---------------------------------------------------------- */

typedef struct params {
  _Alignas(64) unsigned char tmap[128];
  _Alignas(64) unsigned char tmap2[128];
  uint8_t *out;
  int mode; /* which variant of a test kernel */
} params;

#define PLAN_TABLES                                                                           \
  "role 0 0 epilogue\nrole 9 9 producer\nrole 9 9 mma\n"                                     \
  "barrier 0 4 1 bar\n"                                                                      \
  "site 0 mbarrier.init\nsite 1 arrive.expect_tx\nsite 2 tma-load\nsite 3 try_wait\n"          \
  "site 4 smem-read\nsite 5 smem-write\nsite 6 bar.sync\nsite 7 tma-store\n"                  \
  "site 8 commit_group\nsite 9 wait_group\nsite 10 tcgen05.alloc\nsite 11 tcgen05.cp\n"       \
  "site 12 tcgen05.mma\nsite 13 tcgen05.commit\nsite 14 tcgen05.ld\nsite 15 tcgen05.wait\n"   \
  "site 16 tcgen05.dealloc\nsite 17 relinquish\nsite 18 use\nsite 19 atom\n"                  \
  "site 20 ldmatrix\nsite 21 mma.sync\nsite 22 remote-arrive\nsite 23 cluster-arrive\n"       \
  "site 24 cluster-wait\n"
static const char kPlan[] = "kernel unit\nthreads 32\ncluster 1\n" PLAN_TABLES;
static const char kPlan2[] = "kernel unit2\nthreads 32\ncluster 2\n" PLAN_TABLES; /* a CTA pair */

/* One warp, one CTA per cluster, 64 KiB of shared memory, a parameter block of `bytes`. */
static nvfp4_kernel_metadata unit_meta(uint32_t bytes) {
  nvfp4_kernel_metadata meta;
  memset(&meta, 0, sizeof meta);
  meta.block[0] = 32;
  meta.block[1] = meta.block[2] = 1;
  meta.cluster[0] = meta.cluster[1] = meta.cluster[2] = 1;
  meta.dyn_smem_bytes = 64 * 1024;
  meta.param_bytes = bytes;
  return meta;
}

static nvfp4sim_outcome run(void (*kernel)(void *), params *p, uint64_t seed, nvfp4sim_result *r,
                            const nvfp4sim_range *w, uint32_t nw) {
  nvfp4_kernel_metadata meta = unit_meta(sizeof *p);
  FILE *log = tmpfile();
  nvfp4sim_options o = {.schedule_seed = seed, .max_reports = 10, .log = log};
  nvfp4sim_outcome out = nvfp4sim_launch_kernel(kernel, &meta, kPlan, p, 1, w, nw, &o, r);
  if (log) fclose(log);
  return out;
}

/* shared addresses of the kernels: the 1024-aligned base of the dynamic array */
static uint32_t base(void) { return (nvfp4_sim_dyn_smem() + 1023u) & ~1023u; }
static uint8_t *smem(uint32_t a) { return (uint8_t *)nvfp4_sim_smem_base() + a; }
static void wait_bar(uint32_t bar, uint32_t parity) {
  while (!nvfp4_sim_mbar_try_wait(bar, parity, 0, 3)) {
  }
}

/* ---- TMA loads --------------------------------------------------------------------------- */

enum { ROWS = 5, KELEMS = 200, STRIDE = 112, BOX_ROWS = 8 };
static uint8_t g_a[ROWS * STRIDE];

static void k_tma(void *pp) {
  params *p = pp;
  const uint32_t bar = base(), dst = base() + 1024;
  if (nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X) == 0) {
    nvfp4_sim_mbar_init(bar, 1, 0);
    nvfp4_sim_mbar_arrive_expect_tx(bar, 128 * BOX_ROWS - (p->mode == 1 ? 16 : 0), 1);
    if (p->mode < 2)
      nvfp4_sim_tma_load(nvfp4_sim_cluster_addr(dst), p->tmap, 0, 0, bar, 0, 0, 2);
    else /* 2: multicast to itself; 3: to a CTA outside the cluster; 4: .cta_group::2 */
      nvfp4_sim_tma_load_cluster(nvfp4_sim_cluster_addr(dst), p->tmap, 0, 0, bar,
                                 p->mode == 4 ? 2 : 1, p->mode == 3 ? 0x3 : 0x1, 2);
    wait_bar(bar, 0);
    nvfp4_sim_smem_access(dst, 128 * BOX_ROWS, 0, 4);
    memcpy(p->out, smem(dst), 128 * BOX_ROWS);
  }
}

static void fill_a(void) {
  for (int i = 0; i < ROWS * STRIDE; ++i) g_a[i] = (uint8_t)(i * 37 + 11);
}

static nvfp4rt_tmap_args a_args(void) {
  nvfp4rt_tmap_args a;
  memset(&a, 0, sizeof a);
  a.data_type = 13; /* CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B */
  a.rank = 2;
  a.global_address = (uint64_t)(uintptr_t)g_a;
  a.dims[0] = KELEMS;
  a.dims[1] = ROWS;
  a.stride_bytes[0] = STRIDE;
  a.box[0] = 256;
  a.box[1] = BOX_ROWS;
  a.element_strides[0] = a.element_strides[1] = 1;
  a.swizzle = 3; /* CU_TENSOR_MAP_SWIZZLE_128B */
  return a;
}

/* The parameters of k_tma: the A map in slot 0, the output buffer, the mode. */
static void tma_params(params *p, uint8_t *out, int mode) {
  nvfp4rt_tmap_args a = a_args();
  char why[200];
  CHECK(nvfp4sim_tmap_encode(&a, p->tmap, why, sizeof why) == 0, "encode: %s", why);
  p->out = out;
  p->mode = mode;
}

/* The bytes of a box of g_a (k_tma's load) that differ from its SWIZZLE_128B image. */
static int image_errors(const uint8_t *out) {
  int bad = 0;
  for (int row = 0; row < BOX_ROWS; ++row)
    for (int c = 0; c < 8; ++c)
      for (int b = 0; b < 16; ++b) {
        int byte = c * 16 + b; /* logical byte of the row: elements 2 byte, 2 byte + 1 */
        uint8_t want = 0;
        if (row < ROWS && 2 * byte < KELEMS) want = g_a[row * STRIDE + byte];
        uint8_t got = out[row * 128 + ((c ^ (row % 8)) * 16) + b];
        bad += got != want;
      }
  return bad;
}

static void test_tma(void) {
  fill_a();
  static _Alignas(64) params p;
  uint8_t out[128 * BOX_ROWS];
  tma_params(&p, out, 0);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    nvfp4sim_result r;
    memset(out, 0xCC, sizeof out);
    nvfp4sim_outcome o = run(k_tma, &p, seed, &r, NULL, 0);
    CHECK(o == NVFP4SIM_OK, "tma seed %llu: %s %s", (unsigned long long)seed,
          nvfp4sim_outcome_name(o), r.message);
    int bad = image_errors(out);
    CHECK(bad == 0, "tma seed %llu: %d bytes of the swizzled image differ", (unsigned long long)seed, bad);
  }
  /* the cluster form: a multicast to its own CTA alone lands like the plain load; a mask
   * naming a CTA outside the cluster, and .cta_group::2 without a pair, are faults */
  nvfp4sim_result r;
  uint8_t again[128 * BOX_ROWS];
  tma_params(&p, again, 2);
  nvfp4sim_outcome o = run(k_tma, &p, 1, &r, NULL, 0);
  CHECK(o == NVFP4SIM_OK && !memcmp(again, out, sizeof out), "tma multicast to itself: %s %s",
        nvfp4sim_outcome_name(o), r.message);
  for (int mode = 3; mode <= 4; ++mode) {
    tma_params(&p, again, mode);
    o = run(k_tma, &p, 1, &r, NULL, 0);
    CHECK(o == NVFP4SIM_FAULT, "tma cluster form mode %d: %s (a fault expected)", mode,
          nvfp4sim_outcome_name(o));
  }
  printf("tma: 16U4 SWIZZLE_128B image and zero fill, 3 schedules; multicast mask and "
         ".cta_group::2 checked\n");
}

static void test_tmap(void) {
  unsigned char slot[128];
  char why[200];
  nvfp4rt_tmap_args a = a_args();
  a.global_address += 8;
  CHECK(nvfp4sim_tmap_encode(&a, slot, why, sizeof why) != 0 && strstr(why, "aligned"), "misaligned address accepted");
  a = a_args();
  a.box[0] = 512;
  CHECK(nvfp4sim_tmap_encode(&a, slot, why, sizeof why) != 0 && strstr(why, "box"), "box 512 accepted");
  a = a_args();
  a.data_type = 8; /* FLOAT64: not implemented (FLOAT32 and BFLOAT16 are: f32 / bf16 C) */
  CHECK(nvfp4sim_tmap_encode(&a, slot, why, sizeof why) != 0 && strstr(why, "not implemented"), "FLOAT64 accepted");
  a = a_args();
  a.stride_bytes[0] = 104;
  CHECK(nvfp4sim_tmap_encode(&a, slot, why, sizeof why) != 0 && strstr(why, "stride"), "stride 104 accepted");
  printf("tmap: invalid tensor maps rejected\n");
}

static void test_tx(void) {
  static _Alignas(64) params p;
  uint8_t out[128 * BOX_ROWS];
  tma_params(&p, out, 1);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    nvfp4sim_result r;
    nvfp4sim_outcome o = run(k_tma, &p, seed, &r, NULL, 0);
    CHECK(o == NVFP4SIM_HAZARD && r.hazards == 2 && strstr(r.message, "smem-read-before-write-visible"),
          "short expect_tx, seed %llu: %s (%llu reports) %s", (unsigned long long)seed,
          nvfp4sim_outcome_name(o), (unsigned long long)r.hazards, r.message);
  }
  printf("tx: expect_tx 16 bytes short: the read after the early phase and the tx-count -16 left "
         "at exit reported\n");
}

static void k_deadlock(void *pp) {
  (void)pp;
  const uint32_t bar = base();
  if (nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X) == 0) nvfp4_sim_mbar_init(bar, 2, 0);
  nvfp4_sim_barrier(0, 0, 6);
  if (nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X) == 0) nvfp4_sim_mbar_arrive(bar, 1);
  wait_bar(bar, 0);
}

static void test_deadlock(void) {
  static _Alignas(64) params p;
  nvfp4sim_result r;
  nvfp4sim_outcome o = run(k_deadlock, &p, 2, &r, NULL, 0);
  CHECK(o == NVFP4SIM_DEADLOCK && strstr(r.message, "deadlock"), "deadlock: %s %s",
        nvfp4sim_outcome_name(o), r.message);
  printf("deadlock: reported, no hang\n");
}

static void k_redor(void *pp) {
  params *p = pp;
  const uint32_t tid = nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X);
  for (uint32_t gen = 0; gen < 64; ++gen) {
    /* generation g: only thread g % 40 votes (none when g % 40 >= 32); the OR must reach
     * every thread before the same barrier's next generation starts */
    const uint32_t any = nvfp4_sim_barrier_or(1, 32, tid == gen % 40, 6);
    if (any != (gen % 40 < 32)) p->out[tid] = 1;
  }
  /* the counter: 32 adds of 1, each old value seen by one thread */
  uint32_t *counter = (uint32_t *)(p->out + 64);
  const uint32_t old = nvfp4_sim_global_atomic_add_u32((uint64_t)(uintptr_t)counter, 1, 19);
  if (old < 32) p->out[128 + old] += 1;
  nvfp4_sim_barrier(0, 0, 6);
  if (tid == 0 && nvfp4_sim_global_acquire_u32((uint64_t)(uintptr_t)counter, 19) != 32)
    p->out[0] = 2;
}

static void test_redor(void) {
  static _Alignas(64) params p;
  static _Alignas(64) uint8_t out[256];
  for (uint64_t seed = 0; seed < 3; ++seed) {
    memset(out, 0, sizeof out);
    p.out = out;
    nvfp4sim_range w = {out, sizeof out, "out"};
    nvfp4sim_result r;
    nvfp4sim_outcome o = run(k_redor, &p, seed, &r, &w, 1);
    int wrong = 0, seen = 0;
    for (int i = 0; i < 32; ++i) wrong += out[i] != 0, seen += out[128 + i] == 1;
    CHECK(o == NVFP4SIM_OK && !wrong && seen == 32,
          "redor seed %llu: %s %s, %d threads got a wrong OR, %d of 32 old values seen once",
          (unsigned long long)seed, nvfp4sim_outcome_name(o), r.message, wrong, seen);
  }
  printf("redor: bar.red.or over 64 back-to-back generations and 32 atomic adds, 3 schedules\n");
}

/* ---- TMA stores ---------------------------------------------------------------------------- */

enum { CROWS = 3, CCOLS = 40 };
static uint16_t g_c[4 * 64];

static void k_store(void *pp) {
  params *p = pp;
  const uint32_t tid = nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X), buf = base() + 1024;
  /* each thread writes one 16-byte chunk: 4 rows x 8 chunks of the 64-column box */
  const uint32_t row = tid / 8, chunk = tid % 8;
  const uint32_t a = buf + row * 128 + ((chunk ^ (row % 8)) * 16);
  nvfp4_sim_smem_access(a, 16, 1, 5);
  for (int e = 0; e < 8; ++e) ((uint16_t *)smem(a))[e] = (uint16_t)(row * 64 + chunk * 8 + e + 1);
  /* mode 1: no bar.sync; mode 2: no fence.proxy.async before it */
  if (p->mode != 2) nvfp4_sim_fence(NVFP4_SIM_FENCE_PROXY_ASYNC_SHARED, 6);
  if (p->mode != 1) nvfp4_sim_barrier(0, 0, 6);
  if (tid == 0) {
    nvfp4_sim_tma_store(p->tmap, buf, 0, 0, 7);
    nvfp4_sim_bulk_commit_group(8);
    nvfp4_sim_bulk_wait_group(0, 0, 9);
  }
}

static void test_store(void) {
  static _Alignas(64) params p;
  nvfp4rt_tmap_args a;
  memset(&a, 0, sizeof a);
  a.data_type = 6; /* FLOAT16 */
  a.rank = 2;
  a.global_address = (uint64_t)(uintptr_t)g_c;
  a.dims[0] = CCOLS;
  a.dims[1] = CROWS;
  a.stride_bytes[0] = 128;
  a.box[0] = 64;
  a.box[1] = 4;
  a.element_strides[0] = a.element_strides[1] = 1;
  a.swizzle = 3;
  char why[200];
  CHECK(nvfp4sim_tmap_encode(&a, p.tmap, why, sizeof why) == 0, "encode: %s", why);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    memset(g_c, 0xEE, sizeof g_c);
    p.mode = 0;
    nvfp4sim_result r;
    nvfp4sim_outcome o = run(k_store, &p, seed, &r, NULL, 0);
    CHECK(o == NVFP4SIM_OK, "store seed %llu: %s %s", (unsigned long long)seed,
          nvfp4sim_outcome_name(o), r.message);
    int bad = 0;
    for (int row = 0; row < 4; ++row)
      for (int col = 0; col < 64; ++col) {
        uint16_t want = row < CROWS && col < CCOLS ? (uint16_t)(row * 64 + col + 1) : 0xEEEE;
        bad += g_c[row * 64 + col] != want;
      }
    CHECK(bad == 0, "store seed %llu: %d elements wrong (clipping or data)", (unsigned long long)seed, bad);
  }
  p.mode = 1;
  nvfp4sim_result r;
  nvfp4sim_outcome o = run(k_store, &p, 1, &r, NULL, 0);
  CHECK(o == NVFP4SIM_HAZARD && strstr(r.message, "smem-read-before-write-visible"),
        "store without bar.sync: %s %s", nvfp4sim_outcome_name(o), r.message);
  p.mode = 2;
  o = run(k_store, &p, 1, &r, NULL, 0);
  CHECK(o == NVFP4SIM_HAZARD && strstr(r.message, "smem-async-read-without-proxy-fence"),
        "store without fence.proxy.async: %s %s", nvfp4sim_outcome_name(o), r.message);
  printf("store: TMA store clipped to the tensor; unsynchronised and unfenced staging reported\n");
}

/* ---- tcgen05 through the emulation core -------------------------------------------------- */

static uint64_t sdesc(uint32_t start, uint32_t sbo, uint32_t swizzle) {
  return (uint64_t)((start & 0x3FFFFu) >> 4) | ((uint64_t)((sbo & 0x3FFFFu) >> 4) << 32) |
         (1ull << 46) | ((uint64_t)(swizzle & 7u) << 61);
}
static uint32_t idesc(uint32_t n) {
  return (1u << 7) | (1u << 10) | ((n >> 3) << 17) | ((128u >> 7) << 27);
}

enum { MMA_OK = 0, MMA_LD_EARLY, MMA_CP_OVER, MMA_STORE_OPERAND, MMA_USE_EARLY, MMA_NO_FENCE };

static void k_mma(void *pp) {
  params *p = pp;
  const uint32_t tid = nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X);
  const uint32_t bar = base(), slot = base() + 8, A = base() + 1024, B = A + 16384,
                 SF = B + 8192;
  if (tid == 0) {
    nvfp4_sim_mbar_init(bar, 1, 0);
    /* A and B: every FP4 code 2 (1.0); scale factors 0x38 (1.0) */
    nvfp4_sim_smem_access(A, 16384, 1, 5);
    memset(smem(A), 0x22, 16384);
    nvfp4_sim_smem_access(B, 8192, 1, 5);
    memset(smem(B), 0x22, 8192);
    nvfp4_sim_smem_access(SF, 512, 1, 5);
    memset(smem(SF), 0x38, 512);
    nvfp4_sim_fence(NVFP4_SIM_FENCE_PROXY_ASYNC_SHARED, 6); /* for tcgen05.cp / mma */
  }
  nvfp4_sim_tc_alloc(slot, 128, 1, 10);
  nvfp4_sim_tc_relinquish(1, 17);
  nvfp4_sim_barrier(0, 0, 6);
  nvfp4_sim_smem_access(slot, 4, 0, 4);
  uint32_t tmem = *(uint32_t *)smem(slot);
  if (tid == 0) {
    nvfp4_sim_tc_cp(tmem + 64, sdesc(SF, 128, 0), 1, 11);
    nvfp4_sim_tc_cp(tmem + 68, sdesc(SF, 128, 0), 1, 11);
    nvfp4_sim_tc_mma(tmem, sdesc(A, 1024, 2), sdesc(B, 1024, 2), idesc(64), 0, tmem + 64,
                     tmem + 68, 1, 12);
    if (p->mode == MMA_CP_OVER) nvfp4_sim_tc_cp(tmem + 64, sdesc(SF, 128, 0), 1, 11);
    if (p->mode == MMA_STORE_OPERAND) {
      nvfp4_sim_smem_access(A, 16, 1, 5);
      memset(smem(A), 0x22, 16);
    }
    nvfp4_sim_tc_commit(bar, 0, 1, 13);
  }
  if (p->mode != MMA_LD_EARLY) wait_bar(bar, 0);
  if (p->mode != MMA_NO_FENCE) nvfp4_sim_fence(NVFP4_SIM_FENCE_TC_AFTER, 6);
  _Alignas(16) uint32_t regs[32];
  nvfp4_sim_tc_ld(tmem, 32, regs, 14);
  if (p->mode != MMA_USE_EARLY) nvfp4_sim_tc_wait(1, 15);
  nvfp4_sim_tc_ld_use(regs, 18);
  if (p->mode == MMA_USE_EARLY) nvfp4_sim_tc_wait(1, 15);
  uint32_t bad = 0;
  for (int i = 0; i < 32; ++i) {
    float f;
    memcpy(&f, &regs[i], 4);
    bad += f != 64.0f;
  }
  p->out[tid] = (uint8_t)(bad != 0);
  if (p->mode == MMA_LD_EARLY) wait_bar(bar, 0);
  nvfp4_sim_fence(NVFP4_SIM_FENCE_TC_BEFORE, 6);
  nvfp4_sim_barrier(0, 0, 6);
  nvfp4_sim_fence(NVFP4_SIM_FENCE_TC_AFTER, 6);
  nvfp4_sim_tc_dealloc(tmem, 128, 1, 16);
}

static void test_mma(void) {
  static _Alignas(64) params p;
  uint8_t out[32];
  p.out = out;
  p.mode = MMA_OK;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    nvfp4sim_result r;
    memset(out, 2, sizeof out);
    nvfp4sim_outcome o = run(k_mma, &p, seed, &r, NULL, 0);
    int bad = 0;
    for (int i = 0; i < 32; ++i) bad += out[i] != 0;
    CHECK(o == NVFP4SIM_OK && bad == 0, "mma seed %llu: %s %s, %d lanes with D != 64",
          (unsigned long long)seed, nvfp4sim_outcome_name(o), r.message, bad);
  }
  static const struct { int mode; const char *report; } broken[] = {
      {MMA_LD_EARLY, "tmem-read-before-commit"},
      {MMA_CP_OVER, "tmem-overwrite-during-mma-read"},
      {MMA_STORE_OPERAND, "smem-write-during-async-read"},
      {MMA_USE_EARLY, "ld-register-before-wait"},
      {MMA_NO_FENCE, "tmem-read-before-commit"}};
  for (size_t i = 0; i < sizeof broken / sizeof broken[0]; ++i)
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      p.mode = broken[i].mode;
      nvfp4sim_result r;
      nvfp4sim_outcome o = run(k_mma, &p, seed, &r, NULL, 0);
      CHECK(o == NVFP4SIM_HAZARD && strstr(r.message, broken[i].report),
            "mma mode %d seed %llu: expected %s, got %s %s", broken[i].mode,
            (unsigned long long)seed, broken[i].report, nvfp4sim_outcome_name(o), r.message);
    }
  printf("mma: D = 64 under 3 schedules; ld before commit, cp over in-flight scale factors, "
         "store into operands, use before wait::ld, ld without fence::after_thread_sync all "
         "reported under every schedule\n");
}

/* ---- sm_120a: ldmatrix.x4 and the block-scaled mma.sync ------------------------------------ */

/* The operands of one m16n8k64 MMA as matrices (A 16 x 64 and B 64 x 8 FP4 codes, one ue4m3
 * scale per row of A / column of B and 16-element K block), C, and what the kernel returns. */
static struct {
  uint8_t a[16][64], b[64][8], sa[16][4], sb[8][4];
  float c[16][8], d[16][8];
  uint32_t ldm[32][4];
} g_mm;

static uint32_t pack8(const uint8_t *codes, uint32_t step) { /* 8 codes, the first low */
  uint32_t r = 0;
  for (uint32_t j = 0; j < 8; ++j) r |= (uint32_t)(codes[j * step] & 15u) << (4 * j);
  return r;
}

/* Lane l's fragments, from the PTX ISA's m16n8k64 .e2m1 tables (9.7.14.5.11) written out
 * here on their own: a_i at row g (+ 8 for 8 <= i < 16 and i >= 24), column 8 t + (i & 7)
 * (+ 32 for i >= 16); b_i at row 8 t + (i & 7) (+ 32 for i >= 8), column g; c_i at row g
 * (+ 8 for i >= 2), column 2 t + (i & 1). Scales (9.7.14.3): thread-id-a h selects lanes
 * t = 2 h (row g) and 2 h + 1 (row g + 8); thread-id-b h selects t = h (column g); byte j
 * is K block j. The unselected lanes hold garbage. */
static void k_mmasync(void *pp) {
  params *p = pp;
  const uint32_t l = nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X), g = l / 4, t = l % 4;
  const uint32_t tida = (uint32_t)p->mode & 1, tidb = ((uint32_t)p->mode >> 1) & 3;
  const uint32_t bida = p->mode == 99;
  uint32_t a[4], b[2], sfa = 0xDEADBEEFu & 0x7F7F7F7Fu, sfb = 0x5A5A5A5Au;
  for (uint32_t r = 0; r < 4; ++r) a[r] = pack8(&g_mm.a[g + 8 * (r % 2)][8 * t + 32 * (r / 2)], 1);
  for (uint32_t r = 0; r < 2; ++r) b[r] = pack8(&g_mm.b[8 * t + 32 * r][g], 8);
  if (t / 2 == tida) memcpy(&sfa, g_mm.sa[g + 8 * (t % 2)], 4);
  if (t == tidb) memcpy(&sfb, g_mm.sb[g], 4);
  float c[4], d[4];
  for (uint32_t i = 0; i < 4; ++i) c[i] = g_mm.c[g + 8 * (i / 2)][2 * t + i % 2];
  nvfp4_sim_mma_block_scale(d, a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], c[2], c[3], sfa,
                            bida, tida, sfb, 0, tidb, 21);
  for (uint32_t i = 0; i < 4; ++i) g_mm.d[g + 8 * (i / 2)][2 * t + i % 2] = d[i];
  /* ldmatrix.x4: lane l names row l % 8 of matrix l / 8 (16 B apart in a 512-B image of
   * bytes k + 16 m + 3 r); register i of lane l must be bytes 4 (l % 4).. of row l / 4 of
   * matrix i */
  const uint32_t img = base();
  if (l == 0)
    for (uint32_t i = 0; i < 512; i += 16) {
      nvfp4_sim_smem_access(img + i, 16, 1, 5);
      for (uint32_t k = 0; k < 16; ++k) smem(img)[i + k] = (uint8_t)(k + 16 * (i / 128) + 3 * ((i / 16) % 8));
    }
  nvfp4_sim_barrier(0, 0, 6);
  nvfp4_sim_ldmatrix_x4(img + 128 * (l / 8) + 16 * (l % 8), g_mm.ldm[l], 20);
}

static double e2m1d(uint32_t c) {
  static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (c & 8) ? -mag[c & 7] : mag[c & 7];
}
static double ue4m3d(uint32_t c) {
  const uint32_t e = (c >> 3) & 15, m = c & 7;
  return e ? (1 + m / 8.0) * (double)(1u << e) / 128.0 : m / 8.0 / 64.0;
}

static void test_mmasync(void) {
  static _Alignas(64) params p;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int mode = 0; mode < 8; ++mode) { /* thread-id-a 0..1 x thread-id-b 0..3 */
    for (int i = 0; i < 16 * 64; ++i) x = x * 6364136223846793005ull + 1, g_mm.a[i / 64][i % 64] = x >> 60;
    for (int i = 0; i < 64 * 8; ++i) x = x * 6364136223846793005ull + 1, g_mm.b[i / 8][i % 8] = x >> 60;
    for (int i = 0; i < 16 * 4; ++i) x = x * 6364136223846793005ull + 1, g_mm.sa[i / 4][i % 4] = 0x30 + (x >> 60);
    for (int i = 0; i < 8 * 4; ++i) x = x * 6364136223846793005ull + 1, g_mm.sb[i / 4][i % 4] = 0x30 + (x >> 60);
    for (int i = 0; i < 16 * 8; ++i) g_mm.c[i / 8][i % 8] = (float)(i % 7) - 3.0f;
    p.mode = mode;
    nvfp4sim_result r;
    nvfp4sim_outcome o = run(k_mmasync, &p, (uint64_t)mode, &r, NULL, 0);
    int wrong = 0, ldwrong = 0;
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        double want = g_mm.c[m][n];
        for (int k = 0; k < 64; ++k)
          want += e2m1d(g_mm.a[m][k]) * ue4m3d(g_mm.sa[m][k / 16]) * e2m1d(g_mm.b[k][n]) *
                  ue4m3d(g_mm.sb[n][k / 16]);
        wrong += g_mm.d[m][n] != (float)want;
      }
    for (uint32_t l = 0; l < 32; ++l)
      for (uint32_t i = 0; i < 4; ++i) {
        uint32_t want = 0;
        for (uint32_t k = 0; k < 4; ++k)
          want |= (uint32_t)(4 * (l % 4) + k + 16 * i + 3 * (l / 4)) << (8 * k);
        ldwrong += g_mm.ldm[l][i] != want;
      }
    CHECK(o == NVFP4SIM_OK && !wrong && !ldwrong,
          "mmasync thread-ids %d/%d: %s %s, %d of 128 D wrong, %d ldmatrix registers wrong",
          mode & 1, mode >> 1, nvfp4sim_outcome_name(o), r.message, wrong, ldwrong);
  }
  p.mode = 99; /* byte-id-a 1: undefined for scale_vec::4X */
  nvfp4sim_result r;
  nvfp4sim_outcome o = run(k_mmasync, &p, 0, &r, NULL, 0);
  CHECK(o == NVFP4SIM_FAULT && strstr(r.message, "byte-id 1 / 0: must be 0"), "byte-id 1: %s %s",
        nvfp4sim_outcome_name(o), r.message);
  printf("mmasync: D = A x B with both scales under all 8 thread-id selections; ldmatrix.x4 "
         "rows; byte-id 1 refused\n");
}

/* ---- plan texts ---------------------------------------------------------------------------- */

static void k_nothing(void *pp) { (void)pp; }

static void test_plan(void) {
  static const struct { const char *plan, *why; } bad[] = {
      {"kernel unit\nthreads 32\ncluster 1\nsite 2147483648 x\n", "line 4: a site id of 0..1048575"},
      {"kernel unit\nthreads 32\ncluster 1\nsite 4294967295 x\n", "line 4: a site id"},
      {"kernel unit\nthreads 4294967296\ncluster 1\n", "line 2: malformed 'threads 4294967296'"},
      {"kernel unit\nthreads 32\ncluster 1\nsmem 1 2 x\n", "line 4: malformed 'smem 1 2 x'"},
      {"kernel unit\nthreads 32\n", "without kernel, threads or cluster"}};
  static _Alignas(64) params p;
  nvfp4_kernel_metadata meta = unit_meta(sizeof p);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    nvfp4sim_result r;
    nvfp4sim_outcome o = nvfp4sim_launch_kernel(k_nothing, &meta, bad[i].plan, &p, 1, NULL, 0, NULL, &r);
    CHECK(o == NVFP4SIM_ERROR && strstr(r.message, bad[i].why), "plan %zu: %s %s", i,
          nvfp4sim_outcome_name(o), r.message);
  }
  nvfp4sim_result r;
  nvfp4sim_outcome o = nvfp4sim_launch_kernel(
      k_nothing, &meta, "kernel unit\nthreads 32\ncluster 1\nsite 7 a\nsite 7 b\nfuture 1 2\n", &p, 1,
      NULL, 0, NULL, &r);
  CHECK(o == NVFP4SIM_OK, "repeated site, unknown line: %s %s", nvfp4sim_outcome_name(o), r.message);
  printf("plan: site ids past 2^20, numbers past 32 bits, malformed and incomplete plans refused\n");
}

/* ---- faults ------------------------------------------------------------------------------------ */

enum {
  FAULT_MISALIGNED = 1,
  FAULT_OUTSIDE_STORE,
  FAULT_OUTSIDE_LOAD,
  FAULT_SMEM_MISALIGNED,
  FAULT_SMEM_OUTSIDE,
  FAULT_WILD
};
static _Alignas(64) uint8_t g_buf[256];
static _Alignas(64) uint8_t g_in[64];
static _Alignas(64) uint8_t g_unlisted[64]; /* in no range of the launch */

static void k_fault(void *pp) {
  params *p = pp;
  if (nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X) != 5) return;
  switch (p->mode) {
  case FAULT_MISALIGNED: nvfp4_sim_global_access(g_buf + 8, 16, 16, 1, 5); break;
  case FAULT_OUTSIDE_STORE: nvfp4_sim_global_access(g_in, 4, 4, 1, 5); break;
  case FAULT_OUTSIDE_LOAD: nvfp4_sim_global_access(g_unlisted, 4, 4, 0, 4); break;
  case FAULT_SMEM_MISALIGNED: nvfp4_sim_smem_access(base() + 8, 16, 1, 5); break;
  case FAULT_SMEM_OUTSIDE: nvfp4_sim_smem_access(nvfp4_sim_dyn_smem() + 64 * 1024, 4, 0, 4); break;
  default: {
    nvfp4_sim_barrier(0, 32, 6); /* never reached by the others: the fault ends it first */
    break;
  }
  }
}

static void k_wild(void *pp) {
  params *p = pp;
  nvfp4_sim_smem_access(base(), 4, 0, 4);
  if (nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X) == 7) p->out[0] = *(volatile uint8_t *)(uintptr_t)p->mode;
}

static void test_fault(void) {
  static _Alignas(64) params p;
  static const struct { int mode; const char *why; } cases[] = {
      {FAULT_MISALIGNED, "misaligned 16-byte global store at"},
      {FAULT_OUTSIDE_STORE, "outside every output buffer: into the read-only in + 0x0"},
      {FAULT_OUTSIDE_LOAD, "global load at"},
      {FAULT_SMEM_MISALIGNED, "misaligned 16-byte shared-memory access at"},
      {FAULT_SMEM_OUTSIDE, "lies outside its 65536 bytes of dynamic shared memory"}};
  const nvfp4sim_range w = {g_buf, sizeof g_buf, "buf"}, in = {g_in, sizeof g_in, "in"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    p.mode = cases[i].mode;
    nvfp4_kernel_metadata meta = unit_meta(sizeof p);
    FILE *log = tmpfile();
    nvfp4sim_options o = {1, 10, log, 0, NVFP4SIM_CLUSTERS_FORWARD, 0, &in, 1, 0};
    nvfp4sim_result r;
    nvfp4sim_outcome out = nvfp4sim_launch_kernel(k_fault, &meta, kPlan, &p, 1, &w, 1, &o, &r);
    if (log) fclose(log);
    CHECK(out == NVFP4SIM_FAULT && strstr(r.message, cases[i].why) &&
              strstr(r.message, "warp 0 lane 5"),
          "fault %d: %s %s", cases[i].mode, nvfp4sim_outcome_name(out), r.message);
  }
  uint8_t out[4];
  p.out = out;
  p.mode = 16; /* the address the kernel dereferences: unmapped */
  nvfp4sim_result r;
  nvfp4sim_outcome o = run(k_wild, &p, 1, &r, NULL, 0);
  CHECK(o == NVFP4SIM_FAULT && strstr(r.message, "host-signal") && strstr(r.message, "SIGSEGV") &&
            strstr(r.message, "after site 4"),
        "wild pointer: %s %s", nvfp4sim_outcome_name(o), r.message);
  printf("fault: misaligned and outside stores, a load outside every buffer, a misaligned and "
         "an outside shared access, a wild pointer (SIGSEGV) all reported as faults\n");
}

/* ---- a CTA pair: shared addresses with CTA bits -------------------------------------------- */

enum { CL_OK = 0, CL_PEER_BIT, CL_OTHER_CTA_ACCESS, CL_NO_CTA, CL_PLAIN_LOAD_PEER_BAR };
static uint32_t g_cl[2][4];           /* per rank: dyn_smem, bar, mapa(bar, other), cvta(bar) */
static uint8_t g_img[2][128 * BOX_ROWS]; /* per rank: its half of the pair's 2-SM load */

/* Thread 0 of each CTA: what the mode does. The pair's 2-SM load completes on the leader's
 * `full`, named by clearing the peer bit (bit 24) of the CTA's own barrier address — or, in
 * CL_PEER_BIT, not cleared. */
static void cluster_thread0(const params *p, uint32_t rank, uint32_t bar, uint32_t full,
                            uint32_t dst) {
  switch (p->mode) {
  case CL_OTHER_CTA_ACCESS: /* a shared::cta load of the leader's window */
    if (rank == 1) nvfp4_sim_smem_access((uint32_t)nvfp4_sim_mapa(dst, 0), 4, 0, 4);
    return;
  case CL_NO_CTA: /* a remote arrive on CTA rank 2 of a 2-CTA cluster */
    if (rank == 0) nvfp4_sim_mbar_arrive_cluster(bar | 2u << 24, 22);
    return;
  case CL_PLAIN_LOAD_PEER_BAR: /* a load without .cta_group::2 completing on the peer */
    if (rank == 0)
      nvfp4_sim_tma_load(nvfp4_sim_cluster_addr(dst), p->tmap, 0, 0,
                         (uint32_t)nvfp4_sim_mapa(full, 1), 0, 0, 2);
    return;
  default: break;
  }
  nvfp4_sim_mbar_arrive_cluster(nvfp4_sim_mapa(bar, rank ^ 1u), 22); /* on the other CTA */
  while (!nvfp4_sim_mbar_try_wait(bar, 0, 1, 3)) {
  }
  if (rank == 0) nvfp4_sim_mbar_arrive_expect_tx(full, 2 * 128 * BOX_ROWS, 1);
  const uint32_t leader_full = p->mode == CL_PEER_BIT ? full : full & 0xFEFFFFFFu;
  nvfp4_sim_tma_load_cluster(nvfp4_sim_cluster_addr(dst), p->tmap, 0, 0, leader_full, 2, 0, 2);
  if (rank == 0)
    while (!nvfp4_sim_mbar_try_wait(full, 0, 1, 3)) {
    }
}

static void k_cluster(void *pp) {
  const params *p = pp;
  const uint32_t tid = nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X);
  const uint32_t rank = nvfp4_sim_sreg(NVFP4_SIM_SREG_CLUSTER_CTARANK);
  const uint32_t bar = base(), full = base() + 8, dst = base() + 1024;
  if (tid == 0) {
    nvfp4_sim_mbar_init(bar, 1, 0);
    nvfp4_sim_mbar_init(full, 1, 0);
    nvfp4_sim_fence(NVFP4_SIM_FENCE_MBARRIER_INIT, 0);
    g_cl[rank][0] = nvfp4_sim_dyn_smem();
    g_cl[rank][1] = bar;
    g_cl[rank][2] = (uint32_t)nvfp4_sim_mapa(bar, rank ^ 1u);
    g_cl[rank][3] = (uint32_t)nvfp4_sim_cluster_addr(bar);
  }
  nvfp4_sim_cluster_arrive(23); /* both CTAs' barriers initialised before any remote use */
  nvfp4_sim_cluster_wait(24);
  if (tid == 0) cluster_thread0(p, rank, bar, full, dst);
  nvfp4_sim_cluster_arrive(23); /* the pair's load complete before either CTA reads or exits */
  nvfp4_sim_cluster_wait(24);
  if (tid == 0 && p->mode == CL_OK) {
    nvfp4_sim_smem_access(dst, sizeof g_img[0], 0, 4);
    memcpy(g_img[rank], (const uint8_t *)nvfp4_sim_smem_base() + dst, sizeof g_img[0]);
  }
}

static nvfp4sim_outcome run_pair(params *p, int mode, uint64_t seed, nvfp4sim_result *r) {
  nvfp4_kernel_metadata meta = unit_meta(sizeof *p);
  meta.cluster[0] = 2;
  tma_params(p, NULL, mode);
  FILE *log = tmpfile();
  nvfp4sim_options o = {.schedule_seed = seed, .max_reports = 10, .log = log};
  nvfp4sim_outcome out = nvfp4sim_launch_kernel(k_cluster, &meta, kPlan2, p, 2, NULL, 0, &o, r);
  if (log) fclose(log);
  return out;
}

/* Shared addresses carry the CTA's rank in bits 24 and up: the odd CTA's own addresses have
 * bit 24 set, mapa replaces the rank bits and cvta keeps them; remote arrives and the pair's
 * 2-SM load select the CTA from them; a 2-SM load that keeps the peer bit completes on the
 * odd CTA's barrier (the leader's never completes: a deadlock); a shared::cta access of the
 * other CTA's window, an address naming no CTA of the cluster and a load without
 * .cta_group::2 completing on the peer's barrier are faults. */
static void test_cluster(void) {
  fill_a();
  static _Alignas(64) params p;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    nvfp4sim_result r;
    memset(g_cl, 0, sizeof g_cl);
    memset(g_img, 0xCC, sizeof g_img);
    nvfp4sim_outcome o = run_pair(&p, CL_OK, seed, &r);
    CHECK(o == NVFP4SIM_OK, "cluster seed %llu: %s %s", (unsigned long long)seed,
          nvfp4sim_outcome_name(o), r.message);
    for (uint32_t rank = 0; rank < 2; ++rank) {
      const uint32_t *a = g_cl[rank];
      CHECK(a[0] >> 24 == rank && (a[0] & 0xFFFFFFu) == (g_cl[0][0] & 0xFFFFFFu) &&
                a[1] >> 24 == rank && a[2] == ((rank ^ 1u) << 24 | (a[1] & 0xFFFFFFu)) &&
                a[3] == a[1],
            "cluster rank %u: dyn_smem 0x%x, bar 0x%x, mapa 0x%x, cvta 0x%x", rank, a[0], a[1],
            a[2], a[3]);
      CHECK(image_errors(g_img[rank]) == 0, "cluster seed %llu: rank %u's half of the 2-SM load "
            "differs", (unsigned long long)seed, rank);
    }
    o = run_pair(&p, CL_PEER_BIT, seed, &r);
    CHECK(o == NVFP4SIM_DEADLOCK && strstr(r.message, "deadlock"),
          "cluster seed %llu, peer bit kept: %s (a deadlock expected) %s",
          (unsigned long long)seed, nvfp4sim_outcome_name(o), r.message);
  }
  static const struct { int mode; const char *why; } faults[] = {
      {CL_OTHER_CTA_ACCESS, "shared-memory load: shared::cta address 0x800 names the shared "
                            "memory of CTA rank 0 (address bits 24 and up), not the executing "
                            "CTA's (rank 1)"},
      {CL_NO_CTA, "mbarrier.arrive.shared::cluster: shared::cluster address 0x2000400 names CTA "
                  "rank 2 (address bits 24 and up), no CTA of this 2-CTA cluster"},
      {CL_PLAIN_LOAD_PEER_BAR, "without .cta_group::2 the barrier is in the destination CTA"}};
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; ++i) {
    nvfp4sim_result r;
    nvfp4sim_outcome o = run_pair(&p, faults[i].mode, 1, &r);
    CHECK(o == NVFP4SIM_FAULT && strstr(r.message, faults[i].why), "cluster mode %d: %s %s",
          faults[i].mode, nvfp4sim_outcome_name(o), r.message);
  }
  printf("cluster: shared addresses carry the CTA rank (bit 24 of the odd CTA's); remote "
         "arrives and the 2-SM load select the CTA from them, 3 schedules; the peer bit kept "
         "deadlocks; another CTA's window, no CTA, a plain load's peer barrier are faults\n");
}

/* ---- cross-CTA ordering: the stream-K pattern --------------------------------------------- */

enum { RACE_OK = 0, RACE_NO_BARRIER_BEFORE_ADD, RACE_NO_SYNC };
static _Alignas(64) uint32_t g_part[2][32];
static _Alignas(64) uint32_t g_sum[32];
static _Alignas(64) uint32_t g_count[16];

static void k_race(void *pp) {
  params *p = pp;
  const uint32_t tid = nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X);
  const uint32_t cta = nvfp4_sim_sreg(NVFP4_SIM_SREG_CTAID_X);
  const uint32_t mine = 100u * (cta + 1u) + tid;
  nvfp4_sim_global_access(&g_part[cta][tid], 4, 4, 1, 20); /* the partial sum */
  g_part[cta][tid] = mine;
  uint32_t last = 0;
  if (p->mode == RACE_NO_SYNC) { /* CTA 1 sums, trusting that CTA 0 ran first */
    last = cta == 1;
  } else {
    if (p->mode != RACE_NO_BARRIER_BEFORE_ADD) nvfp4_sim_barrier(1, 32, 6);
    if (tid == 0) last = nvfp4_sim_global_atomic_add_u32((uint64_t)(uintptr_t)&g_count[0], 1, 19) == 1;
    last = nvfp4_sim_barrier_or(2, 32, last, 21);
  }
  if (!last) return;
  nvfp4_sim_global_access(&g_part[1 - cta][tid], 4, 4, 0, 22); /* the other CTA's */
  const uint32_t sum = mine + g_part[1 - cta][tid];
  nvfp4_sim_global_access(&g_sum[tid], 4, 4, 1, 23);
  g_sum[tid] = sum;
}

static nvfp4sim_outcome run_race(int mode, uint64_t seed, uint32_t resident, nvfp4sim_result *r) {
  static _Alignas(64) params p;
  p.mode = mode;
  memset(g_part, 0, sizeof g_part);
  memset(g_sum, 0, sizeof g_sum);
  memset(g_count, 0, sizeof g_count);
  nvfp4_kernel_metadata meta = unit_meta(sizeof p);
  const nvfp4sim_range w[3] = {{g_part, sizeof g_part, "partials"}, {g_sum, sizeof g_sum, "sums"},
                               {g_count, sizeof g_count, "counter"}};
  FILE *log = tmpfile();
  nvfp4sim_options o = {seed, 10, log, 0, NVFP4SIM_CLUSTERS_FORWARD, resident, NULL, 0, 0};
  nvfp4sim_outcome out = nvfp4sim_launch_kernel(k_race, &meta, kPlan, &p, 2, w, 3, &o, r);
  if (log) fclose(log);
  return out;
}

static void test_race(void) {
  for (uint32_t resident = 1; resident <= 2; ++resident)
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      nvfp4sim_result r;
      nvfp4sim_outcome o = run_race(RACE_OK, seed, resident, &r);
      int bad = 0;
      for (uint32_t t = 0; t < 32; ++t) bad += g_sum[t] != 300u + 2u * t;
      CHECK(o == NVFP4SIM_OK && !bad, "race ok, seed %llu resident %u: %s %s, %d sums wrong",
            (unsigned long long)seed, resident, nvfp4sim_outcome_name(o), r.message, bad);
      for (int mode = RACE_NO_BARRIER_BEFORE_ADD; mode <= RACE_NO_SYNC; ++mode) {
        if (mode == RACE_NO_SYNC && resident > 1) continue; /* CTA 1 may then read first */
        o = run_race(mode, seed, resident, &r);
        CHECK(o == NVFP4SIM_HAZARD && strstr(r.message, "global-read-before-write-visible") &&
                  strstr(r.message, "(site 22)") && strstr(r.message, "(site 20) issued by CTA"),
              "race mode %d, seed %llu resident %u: %s %s", mode, (unsigned long long)seed,
              resident, nvfp4sim_outcome_name(o), r.message);
      }
    }
  printf("race: published partial sums right and clean under 3 schedules x 2 residencies; "
         "without the barrier before the add, or with no synchronisation at all, the load is "
         "reported with both sites\n");
}

/* ---- late completion ---------------------------------------------------------------------------- */

static void k_late(void *pp) {
  params *p = pp;
  const uint32_t bar = base(), dst = base() + 1024;
  if (nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X) == 0) {
    nvfp4_sim_mbar_init(bar, 1, 0);
    nvfp4_sim_mbar_arrive_expect_tx(bar, 128 * BOX_ROWS, 1);
    nvfp4_sim_tma_load(nvfp4_sim_cluster_addr(dst), p->tmap, 0, 0, bar, 0, 0, 2);
  }
  for (int i = 0; i < 64; ++i) nvfp4_sim_barrier(0, 0, 6); /* busy, never waiting for it */
}

static void test_late(void) {
  static _Alignas(64) params p;
  uint8_t out[128 * BOX_ROWS];
  tma_params(&p, out, 0);
  int lazy = 0, eager = 0;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    nvfp4sim_result r;
    nvfp4sim_outcome o = run(k_late, &p, seed, &r, NULL, 0);
    const bool reported = o == NVFP4SIM_HAZARD && strstr(r.message, "exit-with-async-work");
    CHECK(reported || o == NVFP4SIM_OK, "late seed %llu: %s %s", (unsigned long long)seed,
          nvfp4sim_outcome_name(o), r.message);
    if (seed % 3 == 2) lazy += reported;
    if (seed % 3 == 0) eager += reported;
  }
  CHECK(lazy > 0 && eager == 0, "late: %d lazy and %d eager schedules reported", lazy, eager);
  printf("late: the unwaited TMA load reported at exit under %d of 10 lazy schedules, no eager one\n",
         lazy);
}

/* ---- residency ----------------------------------------------------------------------------------- */

static _Alignas(64) uint32_t g_events[4 * 64];

static void k_resident(void *pp) {
  (void)pp;
  const uint32_t tid = nvfp4_sim_sreg(NVFP4_SIM_SREG_TID_X);
  const uint32_t cta = nvfp4_sim_sreg(NVFP4_SIM_SREG_CTAID_X);
  uint64_t clock = (uint64_t)(uintptr_t)&g_events[0];
  if (tid == 0) g_events[16 + 2 * cta] = nvfp4_sim_global_atomic_add_u32(clock, 1, 19);
  for (int i = 0; i < 8; ++i) nvfp4_sim_barrier(0, 0, 6);
  if (tid == 0) g_events[17 + 2 * cta] = nvfp4_sim_global_atomic_add_u32(clock, 1, 19);
}

/* Whether some CTA started before another one ended (g_events: start, end per CTA). */
static bool interleaved(uint32_t ctas) {
  for (uint32_t a = 0; a < ctas; ++a)
    for (uint32_t b = 0; b < ctas; ++b)
      if (a != b && g_events[16 + 2 * b] > g_events[16 + 2 * a] &&
          g_events[16 + 2 * b] < g_events[17 + 2 * a])
        return true;
  return false;
}

static void test_resident(void) {
  static _Alignas(64) params p;
  nvfp4_kernel_metadata meta = unit_meta(sizeof p);
  const nvfp4sim_range w = {g_events, sizeof g_events, "events"};
  int serial = 0, mixed = 0;
  for (uint32_t resident = 1; resident <= 4; resident += 3)
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      memset(g_events, 0, sizeof g_events);
      nvfp4sim_options o = {seed, 10, NULL, 0, NVFP4SIM_CLUSTERS_SHUFFLED, resident, NULL, 0, 0};
      nvfp4sim_result r;
      nvfp4sim_outcome out = nvfp4sim_launch_kernel(k_resident, &meta, kPlan, &p, 8, &w, 1, &o, &r);
      CHECK(out == NVFP4SIM_OK && r.clusters == 8, "resident %u seed %llu: %s %s", resident,
            (unsigned long long)seed, nvfp4sim_outcome_name(out), r.message);
      if (resident == 1) serial += !interleaved(8);
      else mixed += interleaved(8);
    }
  CHECK(serial == 3 && mixed == 3, "resident: %d of 3 serial runs ran one CTA at a time, %d of "
        "3 runs with 4 resident interleaved", serial, mixed);
  printf("resident: 1 resident runs the CTAs one after another, 4 interleave them\n");
}

int main(void) {
  test_tma();
  test_tmap();
  test_tx();
  test_deadlock();
  test_redor();
  test_store();
  test_mma();
  test_mmasync();
  test_plan();
  test_fault();
  test_race();
  test_late();
  test_resident();
  test_cluster();
  if (failures) {
    printf("%d FAILED\n", failures);
    return 1;
  }
  printf("ALL PASSED\n");
  return 0;
}
