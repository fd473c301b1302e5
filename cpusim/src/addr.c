/* addr.c — shared-memory addresses with the CTA bits the hardware gives them.
 *
 * A CTA of a cluster sees its shared memory at (its cluster rank << 24) | offset: that
 * 32-bit value is its shared::cta address and, unchanged, the shared::cluster address of the
 * same byte (the PTX ISA's shared::cta window lies inside the shared::cluster window;
 * CUTLASS's 2-SM loads clear bit 24 — Sm100MmaPeerBitMask — of an odd CTA's own barrier
 * address to name the even CTA's barrier). `mapa` replaces the rank bits, a cvta from
 * shared::cta to shared::cluster keeps the value. Every entry point of nvfp4_sim.h that
 * takes a shared address decodes it here into a CTA and an offset in that CTA's window (the
 * form the rest of the simulator works with): a shared::cluster address that names no CTA
 * of the cluster, or a shared::cta address that names another CTA than the executing one,
 * stops the launch with a fault that says so. cpusim/README.md, "Shared addresses", gives
 * the sources. */
#include <inttypes.h>
#include <stdint.h>

#include "internal.h"

#define G nvfp4sim_g

uint32_t sim_smem_addr(const sim_cta *c, uint32_t offset) {
  return c->rank << SIM_SMEM_RANK_SHIFT | offset;
}

sim_cta *sim_smem_cluster(uint64_t addr, uint32_t *offset, sim_fiber *f, uint32_t site,
                          const char *what) {
  const uint64_t rank = addr >> SIM_SMEM_RANK_SHIFT;
  if (rank >= G->cluster)
    sim_fault(f, site, "%s: shared::cluster address 0x%" PRIx64 " names CTA rank %" PRIu64
              " (address bits 24 and up), no CTA of this %u-CTA cluster",
              what, addr, rank, G->cluster);
  *offset = (uint32_t)addr & SIM_SMEM_OFFSET_MASK;
  return &G->cta[rank];
}

uint32_t sim_smem_own(uint32_t addr, sim_fiber *f, uint32_t site, const char *what) {
  uint32_t offset;
  const sim_cta *c = sim_smem_cluster(addr, &offset, f, site, what);
  if (c != f->cta)
    sim_fault(f, site, "%s: shared::cta address 0x%x names the shared memory of CTA rank %u "
              "(address bits 24 and up), not the executing CTA's (rank %u): a shared::cta "
              "access reaches only its own CTA", what, addr, c->rank, f->cta->rank);
  return offset;
}

/* The host address of shared::cta address 0 of the calling CTA: adding one of its shared
 * addresses, rank bits included, gives the byte in its window (the kernel's generic shared
 * loads and stores do so after nvfp4_sim_smem_access has checked the address). */
void *nvfp4_sim_smem_base(void) {
  const sim_cta *c = sim_self()->cta;
  return (void *)((uintptr_t)c->smem - ((uintptr_t)c->rank << SIM_SMEM_RANK_SHIFT));
}

uint32_t nvfp4_sim_dyn_smem(void) { return sim_smem_addr(sim_self()->cta, SIM_DYN_SMEM_BASE); }

uint64_t nvfp4_sim_mapa(uint32_t addr, uint32_t rank) {
  sim_fiber *f = sim_self();
  uint32_t offset;
  (void)sim_smem_cluster(addr, &offset, f, f->site, "mapa source address");
  if (rank >= G->cluster)
    sim_fault(f, f->site, "mapa to CTA rank %u of a %u-CTA cluster", rank, G->cluster);
  return sim_smem_addr(&G->cta[rank], offset);
}

uint64_t nvfp4_sim_cluster_addr(uint32_t addr) { return addr; }
