/* wgmma.c — the sm_90a operations of the CPU execution target: wgmma.mma_async
 * (m64nNk16, f32 += bf16 x bf16, A in registers, B through a K-major 128-byte-swizzle
 * descriptor), wgmma.fence / commit_group / wait_group, and stmatrix.x4.trans (PTX ISA
 * 9.7.15 and 9.7.4.x; docs/kernel-sm90a.md).
 *
 * wgmma.mma_async is a warpgroup collective: the 128 threads of the warpgroup meet, the last
 * one computes D = A x B (+ D) for all of them from their A fragments and the shared memory
 * the descriptor names, as it is at that point, and every thread's accumulator buffer gets
 * its fragment of D. The shared-memory reads of B are checked like any asynchronous read:
 * the writes they read must be ordered before the warpgroup's issue (read-before-write-
 * visible), and they stay "in flight" for the warpgroup's wgmma agent until a
 * wgmma.wait_group that retires their group: a thread's wait advances its clock to the
 * agent's last retired operation, and a write of those bytes by a thread whose clock does
 * not cover it (no wait, or no barrier after the waiting thread's) is reported as
 * smem-write-during-async-read. The A fragments are read at issue, but PTX lets the
 * instruction read its A registers until the wait_group that retires it: an IR value is one
 * PTX register, so the same wgmma instruction issued again while its previous issue is in
 * flight means its A registers were redefined under that issue (a loop that decodes the next
 * chunk's fragments before the last chunk's wgmmas retired; ptxas does not guard it), and is
 * reported as wgmma-a-register-redefined. A use of an accumulator before the wait is not
 * modelled: the accumulator values are final at issue.
 *
 * stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 is a warp collective: matrix i's row j
 * (stored at the address of lane 8 i + j) is column j of the fragment, whose element r
 * lane 4 r + j / 2 holds in half j % 2 of its register i. Each row is a generic 16-byte
 * store of the lane that gave its address. */
#include <string.h>

#include "internal.h"

#define G nvfp4sim_g

enum { SIM_RV_WGMMA = 32, SIM_RV_STMATRIX };

static float bf16f(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float v;
  memcpy(&v, &u, sizeof v);
  return v;
}

static uint16_t wg_comp(sim_fiber *f) {
  sim_cta *c = f->cta;
  const uint32_t w = f->warp / 4u;
  if (!c->comp_wg[w]) c->comp_wg[w] = (uint16_t)(sim_comp_new(SIM_ACC_MMA, f, 0) + 1u);
  return (uint16_t)(c->comp_wg[w] - 1u);
}

typedef struct wgmma_ctx {
  uint32_t n, scale_d, site;
  uint64_t desc;
} wgmma_ctx;

static void wgmma_last(sim_rendezvous *rv, void *p) {
  const wgmma_ctx *x = p;
  sim_fiber *f = sim_self();
  sim_cta *c = f->cta;
  const uint32_t n = x->n;
  const uint32_t start = (uint32_t)((x->desc & 0x3FFFu) << 4);
  const uint32_t sbo = (uint32_t)(((x->desc >> 32) & 0x3FFFu) << 4);
  if ((x->desc >> 62) != 1u || (x->desc >> 49 & 7u) != 0)
    sim_fault(f, x->site, "wgmma B descriptor 0x%llx: only 128-byte swizzle, base offset 0 is "
                          "implemented", (unsigned long long)x->desc);
  /* B (n x 16, K-major): row j, element k at start + (j / 8) SBO + (j % 8) 128 + 2 k, with
   * the 128-byte swizzle applied to the address (16-byte chunk ^= bits 7..9). Kept as
   * Bt[k][j] (transposed) so that the product below runs along contiguous columns. */
  static float Bt[16][256], A[64][16], D[64][256];
  const uint16_t comp = wg_comp(f);
  const uint32_t seq = ++G->comps[comp].seq;
  sim_epoch e = {comp, (uint16_t)f->index, seq, x->site, 0, SIM_ACC_MMA, (uint8_t)c->rank, 0};
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t h = 0; h < 2; ++h) { /* the row's two 16-byte chunks (k 0..7, 8..15) */
      uint32_t a = start + (j / 8u) * sbo + (j % 8u) * 128u + 16u * h;
      a ^= ((a >> 7) & 7u) << 4;
      sim_smem_read(c, a, 16, &e, f->vc, f, true);
      for (uint32_t k = 0; k < 8; ++k) {
        uint16_t v;
        memcpy(&v, c->smem + a + 2u * k, 2);
        Bt[8u * h + k][j] = bf16f(v);
      }
    }
  sim_comp_complete(comp, seq);
  /* A (64 x 16) from the fragments: warp w of the group, lane l holds rows 16 w + l / 4
   * (+ 8 for registers 1, 3) and k 2 (l % 4) + {0, 1} (+ 8 for registers 2, 3).
   * D (64 x n): lane l's accumulator 4 j + v is (row g + 8 (v / 2), column 8 j + 2 (l % 4) +
   * v % 2); the 128 threads of the warpgroup hold every element once. */
  for (uint32_t i = 0; i < rv->arrived; ++i) {
    const sim_fiber *t = &G->fibers[rv->who[i]];
    const uint32_t w = t->warp % 4u, g = t->lane / 4u, q = t->lane % 4u;
    for (uint32_t reg = 0; reg < 4; ++reg)
      for (uint32_t half = 0; half < 2; ++half) {
        const uint32_t row = 16u * w + g + 8u * (reg % 2u), k = 2u * q + half + 8u * (reg / 2u);
        A[row][k] = bf16f((uint16_t)(t->wg_a[reg] >> (16u * half)));
      }
    for (uint32_t j = 0; j < n / 8u; ++j)
      for (uint32_t v = 0; v < 4; ++v) {
        const uint32_t row = 16u * w + g + 8u * (v / 2u), col = 8u * j + 2u * q + v % 2u;
        D[row][col] = x->scale_d ? t->wg_acc[4u * j + v] : 0.0f;
      }
  }
  /* D += A x B, two rows by eight columns at a time: their 16 sums stay in locals through
   * the k loop and each B value loaded serves both rows, so there are few memory accesses per
   * product (which the sanitizer build pays for). Every element still adds its 16 products
   * one at a time in ascending k, as a scalar acc += A[row][k] * B[col][k] loop would: the
   * same operations, the same rounding. */
  for (uint32_t row = 0; row < 64; row += 2)
    for (uint32_t c0 = 0; c0 < n; c0 += 8) {
      float *d0 = &D[row][c0], *d1 = &D[row + 1u][c0];
      const float *a0 = A[row], *a1 = A[row + 1u];
      float s0[8], s1[8];
      for (uint32_t j = 0; j < 8; ++j) {
        s0[j] = d0[j];
        s1[j] = d1[j];
      }
      for (uint32_t k = 0; k < 16; ++k) {
        const float *b = &Bt[k][c0];
        for (uint32_t j = 0; j < 8; ++j) {
          s0[j] += a0[k] * b[j];
          s1[j] += a1[k] * b[j];
        }
      }
      for (uint32_t j = 0; j < 8; ++j) {
        d0[j] = s0[j];
        d1[j] = s1[j];
      }
    }
  for (uint32_t i = 0; i < rv->arrived; ++i) {
    sim_fiber *t = &G->fibers[rv->who[i]];
    const uint32_t w = t->warp % 4u, g = t->lane / 4u, q = t->lane % 4u;
    for (uint32_t j = 0; j < n / 8u; ++j)
      for (uint32_t v = 0; v < 4; ++v) {
        const uint32_t row = 16u * w + g + 8u * (v / 2u), col = 8u * j + 2u * q + v % 2u;
        t->wg_acc[4u * j + v] = D[row][col];
      }
    t->wg_last_seq = seq;
  }
  G->stats.mma++;
}

void nvfp4_sim_wgmma_bf16(float *acc, uint32_t n, uint32_t a0, uint32_t a1, uint32_t a2,
                          uint32_t a3, uint64_t desc, uint32_t scale_d, uint32_t site) {
  sim_fiber *f = sim_at(site);
  if (n < 8 || n > 256 || n % 8)
    sim_fault(f, site, "wgmma.m64n%uk16: N must be a multiple of 8 in 8..256", n);
  if (f->cta->threads < 4u * 32u * (f->warp / 4u + 1u))
    sim_fault(f, site, "wgmma issued by an incomplete warpgroup");
  /* The A registers of this instruction's previous issue must be retired by now. */
  const uint16_t comp = wg_comp(f);
  uint32_t slot = site % SIM_WGMMA_SITES;
  for (uint32_t i = 0; i < SIM_WGMMA_SITES; ++i)
    if (f->wg_site[i] == site + 1u || f->wg_site[i] == 0) { slot = i; break; }
  if (f->wg_site[slot] == site + 1u && f->vc[comp] < f->wg_site_seq[slot])
    sim_report("wgmma-a-register-redefined", f, site,
               "this wgmma.mma_async is issued again while its previous issue (MMA %u of the "
               "warpgroup) is not retired by a wgmma.wait_group: the A-fragment registers it "
               "may still read were redefined in between", f->wg_site_seq[slot]);
  f->wg_acc = acc;
  f->wg_a[0] = a0;
  f->wg_a[1] = a1;
  f->wg_a[2] = a2;
  f->wg_a[3] = a3;
  wgmma_ctx x = {n, scale_d != 0, site, desc};
  uint32_t args[4] = {n, (uint32_t)desc, (uint32_t)(desc >> 32), scale_d != 0};
  sim_rendezvous_arrive(&f->cta->wg[f->warp / 4u], 128, SIM_RV_WGMMA, args, 4, f, site,
                        wgmma_last, &x);
  f->wg_site[slot] = site + 1u;
  f->wg_site_seq[slot] = f->wg_last_seq;
  sim_maybe_yield();
}

void nvfp4_sim_wgmma_fence(uint32_t site) { (void)site; }

void nvfp4_sim_wgmma_commit(uint32_t site) {
  sim_fiber *f = sim_at(site);
  if (f->wg_ncommit >= sizeof f->wg_groups / sizeof f->wg_groups[0]) {
    /* keep the newest groups: the oldest have long been retired */
    memmove(f->wg_groups, f->wg_groups + 1, sizeof f->wg_groups - sizeof f->wg_groups[0]);
    f->wg_ncommit--;
  }
  (void)site;
  f->wg_groups[f->wg_ncommit++] = f->wg_last_seq;
}

void nvfp4_sim_wgmma_wait(uint32_t pending, uint32_t site) {
  sim_fiber *f = sim_at(site);
  (void)site;
  if (f->wg_ncommit <= pending) return;
  const uint32_t seq = f->wg_groups[f->wg_ncommit - 1u - pending];
  const uint16_t comp = wg_comp(f);
  sim_vc_raise(f, comp, seq);
}

typedef struct stm_ctx { uint32_t site; } stm_ctx;

static void stmatrix_last(sim_rendezvous *rv, void *p) {
  const stm_ctx *x = p;
  sim_fiber *by_lane[32] = {0};
  for (uint32_t i = 0; i < rv->arrived; ++i) {
    sim_fiber *t = &G->fibers[rv->who[i]];
    by_lane[t->lane] = t;
  }
  for (uint32_t l = 0; l < 32; ++l)
    if (!by_lane[l]) sim_fault(sim_self(), x->site, "stmatrix without lane %u", l);
  for (uint32_t l = 0; l < 32; ++l) {
    sim_fiber *t = by_lane[l];
    const uint32_t m = l / 8u, j = l % 8u, addr = t->st_addr;
    if (addr % 16u) sim_fault(t, x->site, "stmatrix row address 0x%x is not 16-byte aligned", addr);
    uint16_t row[8];
    for (uint32_t r = 0; r < 8; ++r) row[r] = (uint16_t)(by_lane[4u * r + j / 2u]->st_r[m] >> (16u * (j % 2u)));
    sim_epoch e = sim_epoch_thread(t, SIM_ACC_GENERIC, x->site);
    sim_smem_write(t->cta, addr, 16, &e, t->vc, t);
    memcpy(t->cta->smem + addr, row, 16);
  }
}

void nvfp4_sim_stmatrix_x4_trans(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                 uint32_t r3, uint32_t site) {
  sim_fiber *f = sim_at(site);
  f->st_addr = sim_smem_own(addr, f, site, "stmatrix row address");
  f->st_r[0] = r0;
  f->st_r[1] = r1;
  f->st_r[2] = r2;
  f->st_r[3] = r3;
  stm_ctx x = {site};
  sim_rendezvous_arrive(&f->cta->warp[f->warp], 32, SIM_RV_STMATRIX, NULL, 0, f, site,
                        stmatrix_last, &x);
}
