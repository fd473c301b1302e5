/* mma_sync.c — the sm_120a operations of the CPU execution target, read from the PTX ISA
 * (9.0) text and nothing of the generator:
 *
 * ldmatrix.sync.aligned.m8n8.x4.shared.b16 (9.7.14.5.15): a warp collective. Each lane gives
 * one row address: lanes 8 i .. 8 i + 7 the rows 0..7 of matrix i (16 bytes each, 16-byte
 * aligned). Lane L receives, of every matrix i, the 32-bit word at bytes 4 (L % 4) of row
 * L / 4, into its destination register i. Each row is a generic 16-byte shared-memory read
 * of the lane that named it (the hazard checks of a load).
 *
 * mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1
 * .f32.ue4m3 d, a, b, c, scale-a, {byte-id-a, thread-id-a}, scale-b, {byte-id-b, thread-id-b}
 * (9.7.14.5.14): a warp collective, D = A x B + C on 16 x 8 fp32, with
 *   A (16 x 64 e2m1, 9.7.14.5.11 "A fragment for m16n8k64"): lane L (groupID g = L / 4,
 *     threadID_in_group t = L % 4) holds elements a_0 .. a_31 in its four registers, eight
 *     per register from the least significant nibble up; element i is at row g for
 *     i < 8 or 16 <= i < 24, else g + 8, column t * 8 + (i & 7) (+ 32 for i >= 16);
 *   B (64 x 8 e2m1): lane L holds b_0 .. b_15 in its two registers; element i is at row
 *     t * 8 + (i & 7) (+ 32 for i >= 8), column g;
 *   C, D (16 x 8 f32): register i of lane L is row g (+ 8 for i >= 2), column t * 2 + (i & 1);
 *   scale factors (9.7.14.3, .scale_vec::4X, .ue4m3): one per row of A (column of B) and
 *     16-element K block: byte j of a scale register covers K 16 j .. 16 j + 15; byte-id
 *     must be 0; thread-id-a (0 or 1) selects the thread pair t = 2 tid, 2 tid + 1 of every
 *     quad, the first of which supplies row g and the second row g + 8; thread-id-b (0..3)
 *     selects the thread t = tid of every quad, which supplies column g.
 * Values outside these ranges are undefined behaviour and reported as faults; the selectors
 * must be the same in every lane. The e2m1 and (u)e4m3 values are decoded by the emulation
 * core (nvfp4_emu_core.h); the 16 products of a K block sum exactly as integers (twice the
 * e2m1 values), each block sum times its two scales is exact in double, the four and C are
 * added in double and rounded once (the ISA leaves the order and rounding unspecified).
 *
 * shfl.sync.bfly.b32 d, a, lane-mask, 0x1f, 0xffffffff (9.7.9.6; the fused epilogue's
 * reductions over the lanes of a quad): a warp collective of all 32 lanes with the same
 * lane mask; lane L receives a of lane L ^ lane-mask.
 */
#include <string.h>

#include "internal.h"

#define G nvfp4sim_g

enum { SIM_RV_LDMATRIX = 40, SIM_RV_MMA_SYNC, SIM_RV_SHFL };

/* The 32 lanes of the rendezvous by lane number; faults unless all are there. */
static void lanes_of(const sim_rendezvous *rv, sim_fiber *by_lane[32], uint32_t site) {
  memset(by_lane, 0, 32 * sizeof by_lane[0]);
  for (uint32_t i = 0; i < rv->arrived; ++i) {
    sim_fiber *t = &G->fibers[rv->who[i]];
    by_lane[t->lane] = t;
  }
  for (uint32_t l = 0; l < 32; ++l)
    if (!by_lane[l]) sim_fault(sim_self(), site, "warp collective without lane %u", l);
}

/* ---- ldmatrix ------------------------------------------------------------------------- */

typedef struct ldm_lane {
  uint32_t addr;
  uint32_t *dst;
} ldm_lane;

static void ldmatrix_last(sim_rendezvous *rv, void *p) {
  const uint32_t site = *(const uint32_t *)p;
  sim_fiber *by_lane[32];
  lanes_of(rv, by_lane, site);
  uint8_t rows[4][8][16];
  for (uint32_t l = 0; l < 32; ++l) {
    sim_fiber *t = by_lane[l];
    const uint32_t addr = ((const ldm_lane *)t->warp_op)->addr;
    if (addr % 16u)
      sim_fault(t, site, "ldmatrix row address 0x%x is not 16-byte aligned", addr);
    sim_epoch e = sim_epoch_thread(t, SIM_ACC_GENERIC, site);
    sim_smem_read(t->cta, addr, 16, &e, t->vc, t, false);
    memcpy(rows[l / 8u][l % 8u], t->cta->smem + addr, 16);
  }
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t *dst = ((const ldm_lane *)by_lane[l]->warp_op)->dst;
    for (uint32_t i = 0; i < 4; ++i) memcpy(&dst[i], &rows[i][l / 4u][4u * (l % 4u)], 4);
  }
}

void nvfp4_sim_ldmatrix_x4(uint32_t addr, uint32_t *dst, uint32_t site) {
  sim_fiber *f = sim_at(site);
  ldm_lane mine = {sim_smem_own(addr, f, site, "ldmatrix row address"), dst};
  f->warp_op = &mine;
  uint32_t args[1] = {site};
  sim_rendezvous_arrive(&f->cta->warp[f->warp], 32, SIM_RV_LDMATRIX, args, 1, f, site,
                        ldmatrix_last, &site);
  f->warp_op = NULL;
  sim_maybe_yield();
}

/* ---- the block-scaled mma.sync ----------------------------------------------------------- */

typedef struct mma_lane {
  uint32_t a[4], b[2], sfa, sfb;
  float c[4];
  float *d;
} mma_lane;

typedef struct mma_ctx {
  uint32_t bida, tida, bidb, tidb, site;
} mma_ctx;

static uint32_t nibble(uint32_t reg, uint32_t i) { return (reg >> (4u * i)) & 0xFu; }
static uint32_t byte_of(uint32_t reg, uint32_t j) { return (reg >> (8u * j)) & 0xFFu; }

static void mma_last(sim_rendezvous *rv, void *p) {
  const mma_ctx *x = p;
  sim_fiber *by_lane[32];
  lanes_of(rv, by_lane, x->site);
  /* A (row, k) and B (column n, k) as twice their e2m1 values (integers), the scales as
   * floats: the 16 products of a K block sum exactly in an integer */
  int32_t A[16][64], B[8][64], code[16];
  float SA[16][4], SB[8][4];
  for (uint32_t c = 0; c < 16; ++c) code[c] = nvfp4_emu_e2m1_x2(c);
  for (uint32_t l = 0; l < 32; ++l) {
    const mma_lane *o = by_lane[l]->warp_op;
    const uint32_t g = l / 4u, t = l % 4u;
    /* a_i, i = 8 r + e: register r, nibble e; row g (+ 8 for odd r), column t * 8 + e
     * (+ 32 for r >= 2) */
    for (uint32_t r = 0; r < 4; ++r) {
      int32_t *row = &A[g + 8u * (r & 1u)][t * 8u + 32u * (r >> 1)];
      for (uint32_t e = 0; e < 8; ++e) row[e] = code[nibble(o->a[r], e)];
    }
    /* b_i, i = 8 r + e: register r, nibble e; row (k) t * 8 + e (+ 32 for r = 1), column g */
    for (uint32_t r = 0; r < 2; ++r) {
      int32_t *col = &B[g][t * 8u + 32u * r];
      for (uint32_t e = 0; e < 8; ++e) col[e] = code[nibble(o->b[r], e)];
    }
    /* the selected thread pair supplies rows g (first) and g + 8 (second); the selected
     * thread supplies column g */
    if (t / 2u == x->tida)
      for (uint32_t j = 0; j < 4; ++j) SA[g + 8u * (t % 2u)][j] = nvfp4_emu_e4m3_to_float(byte_of(o->sfa, j));
    if (t == x->tidb)
      for (uint32_t j = 0; j < 4; ++j) SB[g][j] = nvfp4_emu_e4m3_to_float(byte_of(o->sfb, j));
  }
  for (uint32_t l = 0; l < 32; ++l) {
    const mma_lane *o = by_lane[l]->warp_op;
    const uint32_t g = l / 4u, t = l % 4u;
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t m = g + (i >= 2u ? 8u : 0u), n = t * 2u + (i & 1u);
      double sum = 0;
      for (uint32_t j = 0; j < 4; ++j) {
        int32_t dot = 0;
        for (uint32_t k = 16u * j; k < 16u * j + 16u; ++k) dot += A[m][k] * B[n][k];
        /* (2a)(2b) = 4ab: the exact product of the scales carries the 1/4 */
        sum += (double)dot * ((double)SA[m][j] * (double)SB[n][j] * 0.25);
      }
      o->d[i] = (float)(sum + (double)o->c[i]);
    }
  }
  G->stats.mma++;
}

void nvfp4_sim_mma_block_scale(float *d, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                               uint32_t b0, uint32_t b1, float c0, float c1, float c2, float c3,
                               uint32_t sfa, uint32_t bida, uint32_t tida, uint32_t sfb,
                               uint32_t bidb, uint32_t tidb, uint32_t site) {
  sim_fiber *f = sim_self();
  if (bida != 0 || bidb != 0)
    sim_fault(f, site, "mma.sync .scale_vec::4X with byte-id %u / %u: must be 0 (PTX ISA "
                       "9.7.14.3)", bida, bidb);
  if (tida > 1 || tidb > 3)
    sim_fault(f, site, "mma.sync .scale_vec::4X with thread-id-a %u (0..1) / thread-id-b %u "
                       "(0..3)", tida, tidb);
  mma_lane mine = {{a0, a1, a2, a3}, {b0, b1}, sfa, sfb, {c0, c1, c2, c3}, d};
  f->warp_op = &mine;
  mma_ctx x = {bida, tida, bidb, tidb, site};
  uint32_t args[3] = {site, tida, tidb};
  sim_rendezvous_arrive(&f->cta->warp[f->warp], 32, SIM_RV_MMA_SYNC, args, 3, f, site, mma_last,
                        &x);
  f->warp_op = NULL;
  sim_maybe_yield();
}

/* ---- shfl.sync.bfly ----------------------------------------------------------------------- */

typedef struct shfl_lane {
  uint32_t value, *dst;
} shfl_lane;

static void shfl_last(sim_rendezvous *rv, void *p) {
  const uint32_t site = ((const uint32_t *)p)[0], mask = ((const uint32_t *)p)[1];
  sim_fiber *by_lane[32];
  lanes_of(rv, by_lane, site);
  uint32_t values[32];
  for (uint32_t l = 0; l < 32; ++l) values[l] = ((const shfl_lane *)by_lane[l]->warp_op)->value;
  for (uint32_t l = 0; l < 32; ++l) *((const shfl_lane *)by_lane[l]->warp_op)->dst = values[l ^ mask];
}

uint32_t nvfp4_sim_shfl_bfly(uint32_t value, uint32_t lane_mask, uint32_t site) {
  sim_fiber *f = sim_self();
  if (lane_mask > 31u) sim_fault(f, site, "shfl.sync.bfly lane mask 0x%x is not in 0..31", lane_mask);
  uint32_t out = 0;
  shfl_lane mine = {value, &out};
  f->warp_op = &mine;
  uint32_t args[2] = {site, lane_mask & 31u};
  sim_rendezvous_arrive(&f->cta->warp[f->warp], 32, SIM_RV_SHFL, args, 2, f, site, shfl_last, args);
  f->warp_op = NULL;
  sim_maybe_yield();
  return out;
}
