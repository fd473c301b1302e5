/* tma.c — the Tensor Memory Accelerator of the simulator: 2-D tiled loads from global to
 * shared memory (out-of-bounds elements zero-filled, SWIZZLE_32B/64B/128B applied to the
 * shared address bits as the hardware does: bits [4, 4+b) ^= bits [7, 7+b)), delivered
 * asynchronously in one or two pieces whose bytes complete_tx on the mbarrier; 2-D tiled
 * stores from shared to global memory, which read their source and write their
 * destination at two later points; bulk groups (commit_group / wait_group[.read]); and
 * tensor-map prefetch. The element types are those of the kernel ABI's maps: 16U4_ALIGN8B
 * (packed FP4, x in elements), UINT8, FLOAT16, BFLOAT16, FLOAT32 (C of the other output
 * types), INT64. A load's destination reads as 0xFF
 * bytes (FP4 -6, E4M3 NaN) from its issue until its bytes land. The global bytes a store
 * writes enter the shadow of global.c (its bulk agent as the writer), and a load from a
 * writable range is checked against it like a generic load of the issuing thread. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define G nvfp4sim_g

static uint32_t swizzled(uint32_t sw, uint32_t addr) {
  return sw ? addr ^ (((addr >> 7) & (sw / 16u - 1u)) << 4) : addr;
}

static uint32_t row_bytes(const sim_tmap *m) { return m->box[0] * m->elem_bits / 8u; }

static void decode_or_fault(const void *tmap, sim_tmap *m, sim_fiber *f, uint32_t site) {
  char why[160];
  if (!tmap || !sim_tmap_decode(tmap, m, why, sizeof why)) sim_fault(f, site, "%s", why);
}

/* Byte `b` of box row `r` as read from global memory (0 outside the tensor). */
static void load_row(const sim_tmap *m, int32_t x, int32_t y, uint32_t r, uint8_t *dst) {
  const uint32_t rb = row_bytes(m);
  const int64_t gy = (int64_t)y + r;
  if (gy < 0 || (uint64_t)gy >= m->dims[1]) {
    memset(dst, 0, rb);
    return;
  }
  const uint8_t *row = (const uint8_t *)(uintptr_t)(m->base + (uint64_t)gy * m->stride);
  if (m->elem_bits == 4) {
    for (uint32_t j = 0; j < rb; ++j) {
      const int64_t gx = (int64_t)x + 2 * j;
      uint8_t v = 0;
      if (gx >= 0 && (uint64_t)gx < m->dims[0]) v |= row[gx / 2] & 0x0F;
      if (gx + 1 >= 0 && (uint64_t)(gx + 1) < m->dims[0]) v |= row[(gx + 1) / 2] & 0xF0;
      dst[j] = v;
    }
    return;
  }
  const uint32_t eb = m->elem_bits / 8u;
  for (uint32_t e = 0; e < m->box[0]; ++e) {
    const int64_t gx = (int64_t)x + e;
    if (gx >= 0 && (uint64_t)gx < m->dims[0]) memcpy(dst + e * eb, row + gx * eb, eb);
    else memset(dst + e * eb, 0, eb);
  }
}

/* The global bytes [*lo, *hi) of box row r inside the tensor; false when there are none. */
static bool row_span(const sim_tmap *m, int32_t x, int32_t y, uint32_t r, uintptr_t *lo,
                     uintptr_t *hi) {
  const int64_t gy = (int64_t)y + r;
  const int64_t x0 = x < 0 ? 0 : x, x1 = (int64_t)x + m->box[0];
  const int64_t end = x1 < (int64_t)m->dims[0] ? x1 : (int64_t)m->dims[0];
  if (gy < 0 || (uint64_t)gy >= m->dims[1] || x0 >= end) return false;
  const uintptr_t row = (uintptr_t)(m->base + (uint64_t)gy * m->stride);
  *lo = row + (uintptr_t)(x0 * m->elem_bits / 8);
  *hi = row + (uintptr_t)((end * m->elem_bits + 7) / 8);
  return true;
}

/* A load of a tensor the kernel may write (none of today's kernels reads one): its rows
 * are checked at the issue, as the issuing thread's reads. */
static void check_load_rows(const sim_tmap *m, int32_t x, int32_t y, sim_fiber *f, uint32_t site) {
  const sim_grange *r = sim_global_range((uintptr_t)m->base, 1);
  if (!r || !r->writable) return;
  for (uint32_t row = 0; row < m->box[1]; ++row) {
    uintptr_t lo, hi;
    if (row_span(m, x, y, row, &lo, &hi))
      sim_global_record(lo, (uint32_t)(hi - lo), false, f, (uint16_t)f->index, f->vc[f->index],
                        site, f->vc);
  }
}

static void store_row(const sim_tmap *m, int32_t x, int32_t y, uint32_t r, const uint8_t *src) {
  const int64_t gy = (int64_t)y + r;
  if (gy < 0 || (uint64_t)gy >= m->dims[1]) return;
  uint8_t *row = (uint8_t *)(uintptr_t)(m->base + (uint64_t)gy * m->stride);
  const uint32_t eb = m->elem_bits / 8u;
  for (uint32_t e = 0; e < m->box[0]; ++e) {
    const int64_t gx = (int64_t)x + e;
    if (gx >= 0 && (uint64_t)gx < m->dims[0]) memcpy(row + gx * eb, src + e * eb, eb);
  }
}

static void check_box(const sim_tmap *m, uint32_t smem, int32_t x, sim_fiber *f, uint32_t site) {
  if (smem % 128)
    sim_fault(f, site, "TMA shared-memory address 0x%x is not 128-byte aligned", smem);
  if (m->elem_bits == 4 && x % 2)
    sim_fault(f, site, "TMA of 16U4 elements at the odd x coordinate %d", x);
}

/* One destination of a load: box into CTA `dcta`'s shared memory at `addr`, complete_tx on
 * the mbarrier at `bar` of CTA `bcta`. */
static void tma_load_into(sim_fiber *f, const sim_tmap *m, int32_t x, int32_t y, uint32_t addr,
                          uint32_t dcta, uint32_t bar, uint32_t bcta, uint32_t site) {
  sim_cta *c = f->cta, *d = &G->cta[dcta];
  const uint32_t bytes = row_bytes(m) * m->box[1];
  (void)sim_mbar_at(&G->cta[bcta], bar, f, site);
  sim_op *op = sim_op_new(SIM_OP_TMA_LOAD, f, site);
  op->map = *m;
  op->x = x;
  op->y = y;
  op->smem = addr;
  op->bar = bar;
  op->bytes = bytes;
  op->dst_cta = (uint8_t)dcta;
  op->bar_cta = (uint8_t)bcta;
  /* an operation on another CTA's memory or barrier keeps that CTA from exiting too */
  op->cta_group = dcta != c->rank || bcta != c->rank ? 2 : 1;
  /* the thread's loads into one barrier are one agent (another CTA's: its own key) */
  op->comp = sim_comp_tma(f, bcta == c->rank ? bar : bar | (bcta + 1u) << 24);
  op->seq = ++G->comps[op->comp].seq;
  /* one piece, or two split at a random row: a phase may complete between them */
  op->piece_rows = m->box[1] > 1 && sim_rand_below(2) ? 1 + sim_rand_below(m->box[1] - 1) : m->box[1];
  sim_epoch e = {op->comp, (uint16_t)f->index, op->seq, site, op->id, SIM_ACC_TMA_LOAD,
                 (uint8_t)c->rank, 0};
  sim_smem_write(d, addr, bytes, &e, f->vc, f);
  memset(d->smem + addr, 0xFF, bytes);
  G->stats.tma++;
  sim_op_schedule(op);
}

/* The checks every load makes at its issue; the box's map in *m. */
static uint32_t tma_load_issue(uint64_t dst, const void *tmap, int32_t x, int32_t y, sim_tmap *m,
                               sim_fiber *f, uint32_t site) {
  decode_or_fault(tmap, m, f, site);
  sim_griddep_check(f, (uintptr_t)m->base, "this TMA load reads the tensor at", site);
  uint32_t addr;
  const sim_cta *d = sim_smem_cluster(dst, &addr, f, site, "TMA load destination");
  if (d != f->cta)
    sim_fault(f, site, "TMA load into the shared memory of CTA rank %u from rank %u (remote "
                       "destinations are not implemented)", d->rank, f->cta->rank);
  check_box(m, addr, x, f, site);
  check_load_rows(m, x, y, f, site);
  return addr;
}

/* The CTA rank and (*offset) the offset of a load's mbarrier operand, a shared::cluster
 * address: without .cta_group::2 it must name the issuing CTA (the destination, or with
 * .multicast::cluster the offset every destination completes at); with it, a CTA of the
 * issuing CTA's pair. */
static uint32_t load_barrier(uint32_t bar, uint32_t cta_group, uint32_t *offset, sim_fiber *f,
                             uint32_t site) {
  const uint32_t rank = sim_smem_cluster(bar, offset, f, site, "TMA load mbarrier")->rank;
  const uint32_t own = f->cta->rank;
  if (cta_group == 2 ? rank >> 1 != own >> 1 : rank != own)
    sim_fault(f, site, "TMA load of CTA rank %u completes on the mbarrier at 0x%x of CTA rank %u: "
              "%s", own, bar, rank, cta_group == 2 ? "a .cta_group::2 load's barrier must be in "
              "its CTA pair" : "without .cta_group::2 the barrier is in the destination CTA");
  return rank;
}

void nvfp4_sim_tma_load(uint64_t dst, const void *tmap, int32_t x, int32_t y, uint32_t bar,
                        uint64_t l2_hint, uint32_t has_hint, uint32_t site) {
  (void)l2_hint;
  (void)has_hint; /* cache policies do not change the result */
  sim_fiber *f = sim_at(site);
  sim_tmap m;
  const uint32_t addr = tma_load_issue(dst, tmap, x, y, &m, f, site);
  uint32_t boff;
  (void)load_barrier(bar, 1, &boff, f, site);
  tma_load_into(f, &m, x, y, addr, f->cta->rank, boff, f->cta->rank, site);
  sim_maybe_yield();
}

/* .cta_group::2 and/or .multicast::cluster (PTX ISA, cp.async.bulk.tensor): the box lands
 * at the destination's offset in every CTA of `mask` (0: the issuing CTA alone), and each
 * copy's complete_tx lands on the mbarrier at `bar`'s offset — in the CTA it lands in, or,
 * with .cta_group::2, in the CTA of that CTA's pair that the address's peer bit (bit 24,
 * the lowest rank bit, MLIR_NVFP4_PEER_BIT_MASK) names: cleared, the even one. Shared
 * addresses carry their CTA's rank (addr.c), so an odd CTA's load whose barrier address
 * still has the bit completes on the odd CTA's own barrier, as on the hardware. */
void nvfp4_sim_tma_load_cluster(uint64_t dst, const void *tmap, int32_t x, int32_t y,
                                uint32_t bar, uint32_t cta_group, uint32_t mask, uint32_t site) {
  sim_fiber *f = sim_at(site);
  sim_tmap m;
  const uint32_t addr = tma_load_issue(dst, tmap, x, y, &m, f, site);
  const uint32_t rank = f->cta->rank, all = (1u << G->cluster) - 1u;
  if (cta_group == 2 && G->cluster % 2)
    sim_fault(f, site, "TMA load with .cta_group::2 in a %u-CTA cluster (no CTA pair)", G->cluster);
  if (mask & ~all || (mask && cta_group == 2 && !(mask >> rank & 1u)))
    sim_fault(f, site, "TMA multicast mask 0x%x: CTAs outside the %u-CTA cluster, or a "
                       ".cta_group::2 load whose mask leaves out its own CTA", mask, G->cluster);
  uint32_t offset;
  const uint32_t peer = load_barrier(bar, cta_group, &offset, f, site) & 1u;
  for (uint32_t d = 0; d < G->cluster; ++d) {
    if (mask ? !(mask >> d & 1u) : d != rank) continue;
    const uint32_t bcta = cta_group == 2 ? (d & ~1u) | peer : d;
    tma_load_into(f, &m, x, y, addr, d, offset, bcta, site);
  }
  sim_maybe_yield();
}

void nvfp4_sim_tma_store(const void *tmap, uint32_t saddr, int32_t x, int32_t y, uint32_t site) {
  sim_fiber *f = sim_at(site);
  sim_cta *c = f->cta;
  sim_tmap m;
  decode_or_fault(tmap, &m, f, site);
  const uint32_t src = sim_smem_own(saddr, f, site, "TMA store source");
  sim_griddep_check(f, (uintptr_t)m.base, "this TMA store writes the tensor at", site);
  if (m.elem_bits < 8) sim_fault(f, site, "TMA store of packed 4-bit elements is not implemented");
  const uint32_t bytes = row_bytes(&m) * m.box[1];
  check_box(&m, src, x, f, site);
  if (f->comp_bulk == 0xFFFF) f->comp_bulk = sim_comp_new(SIM_ACC_TMA_STORE, f, 0);
  sim_op *op = sim_op_new(SIM_OP_TMA_STORE_READ, f, site);
  op->map = m;
  op->x = x;
  op->y = y;
  op->smem = src;
  op->bytes = bytes;
  op->dst_cta = (uint8_t)c->rank; /* the CTA whose shared memory it reads */
  op->comp = f->comp_bulk;
  op->seq = ++G->comps[op->comp].seq;
  op->group = f->bulk_committed + 1;
  sim_epoch e = {op->comp, (uint16_t)f->index, op->seq, site, op->id, SIM_ACC_TMA_STORE,
                 (uint8_t)c->rank, 0};
  sim_smem_read(c, src, bytes, &e, f->vc, f, true);
  f->bulk_open_ops++;
  G->stats.tma++;
  sim_op_schedule(op);
  sim_maybe_yield();
}

void nvfp4_sim_bulk_commit_group(uint32_t site) {
  (void)site;
  sim_fiber *f = sim_at(site);
  f->bulk_committed++;
  f->bulk_group_last[f->bulk_committed % 64] =
      f->comp_bulk == 0xFFFF ? 0 : G->comps[f->comp_bulk].seq;
  f->bulk_open_ops = 0;
}

static bool bulk_busy(const sim_fiber *f, uint32_t limit, bool read) {
  for (uint32_t i = 0; i < G->npending; ++i) {
    const sim_op *op = &G->ops[G->pending[i] - 1];
    if (op->fiber != f->index || op->group > limit) continue;
    if (op->kind == SIM_OP_TMA_STORE_READ || (!read && op->kind == SIM_OP_TMA_STORE_WRITE))
      return true;
  }
  return false;
}

void nvfp4_sim_bulk_wait_group(uint32_t n, uint32_t read, uint32_t site) {
  sim_fiber *f = sim_at(site);
  if (f->bulk_committed <= n) return;
  const uint32_t limit = f->bulk_committed - n;
  while (bulk_busy(f, limit, read != 0)) sim_block(f, SIM_WAIT_BULK, f, 0, site);
  /* the stores of groups 1..limit have read (and, without .read, written) their data */
  if (f->comp_bulk != 0xFFFF) {
    uint32_t upto = f->bulk_group_last[limit % 64];
    sim_vc_raise(f, f->comp_bulk, upto);
  }
}

/* A cache hint: the slot is not interpreted (the kernel prefetches the C map of groups
 * that have none, N < 8, whose slot is zero; only a TMA through it would be wrong). */
void nvfp4_sim_prefetch_tensormap(const void *tmap, uint32_t site) {
  if (!tmap) sim_fault(sim_at(site), site, "prefetch.tensormap of a null pointer");
}

void sim_tma_complete(sim_op *op) {
  sim_cta *c = &G->cta[op->dst_cta];
  const uint32_t rb = row_bytes(&op->map);
  const uint32_t sw = op->map.swizzle;
  if (op->kind == SIM_OP_TMA_LOAD) {
    uint8_t row[256 * 8];
    uint32_t rows = op->piece_rows;
    if (rows > op->map.box[1] - op->rows_done) rows = op->map.box[1] - op->rows_done;
    for (uint32_t r = op->rows_done; r < op->rows_done + rows; ++r) {
      load_row(&op->map, op->x, op->y, r, row);
      for (uint32_t b = 0; b < rb; b += 16) {
        uint32_t a = swizzled(sw, op->smem + r * rb + b);
        memcpy(c->smem + a, row + b, 16);
      }
    }
    op->rows_done += rows;
    const bool done = op->rows_done == op->map.box[1];
    sim_mbar_complete_tx(&G->cta[op->bar_cta], op->bar, rows * rb, op->comp, op->seq, done);
    if (done) {
      op->done = true;
    } else {
      op->piece_rows = op->map.box[1] - op->rows_done;
      sim_op_schedule(op);
    }
    return;
  }
  if (op->kind == SIM_OP_TMA_STORE_READ) {
    op->staging = malloc(op->bytes);
    if (!op->staging) sim_fault(&G->fibers[op->fiber], op->site, "out of host memory");
    for (uint32_t r = 0; r < op->map.box[1]; ++r)
      for (uint32_t b = 0; b < rb; b += 16)
        memcpy(op->staging + r * rb + b, c->smem + swizzled(sw, op->smem + r * rb + b), 16);
    op->kind = SIM_OP_TMA_STORE_WRITE;
    sim_op_schedule(op);
    sim_wake_all(&G->fibers[op->fiber]);
    return;
  }
  sim_fiber *f = &G->fibers[op->fiber];
  for (uint32_t r = 0; r < op->map.box[1]; ++r) {
    uintptr_t lo, hi;
    if (row_span(&op->map, op->x, op->y, r, &lo, &hi))
      sim_global_record(lo, (uint32_t)(hi - lo), true, f, op->comp, op->seq, op->site, NULL);
    store_row(&op->map, op->x, op->y, r, op->staging + r * rb);
  }
  free(op->staging);
  op->staging = NULL;
  op->done = true;
  sim_wake_all(&G->fibers[op->fiber]);
}
