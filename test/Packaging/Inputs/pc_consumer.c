/* pc_consumer.c — a plain C11 program built against an installed libnvfp4rt with nothing
 * but `pkg-config --cflags --libs nvfp4rt` (install.test): the version query, a metadata
 * record round trip and a plan validation, all host-only. */
#include <stdio.h>
#include <string.h>

#include "nvfp4rt.h"

int main(void) {
  printf("libnvfp4rt %s (header %d), kernel ABI %u\n", nvfp4rt_version_string(), NVFP4RT_VERSION,
         nvfp4rt_kernel_abi_version());
  nvfp4_kernel_metadata m, back;
  memset(&m, 0, sizeof m);
  m.magic = NVFP4_METADATA_MAGIC;
  m.abi_version = NVFP4_ABI_VERSION;
  m.record_bytes = NVFP4_METADATA_BYTES;
  m.target_sm = 100;
  m.block[0] = 192, m.block[1] = m.block[2] = 1;
  m.cluster[0] = m.cluster[1] = m.cluster[2] = 1;
  m.tile_m = m.tile_n = 128, m.tile_k = 256, m.stages = 4;
  m.max_groups = 2, m.param_bytes = NVFP4_ABI_PARAM_BYTES;
  m.k_granule = 64, m.sfn_atoms = m.sfm_atoms = 1;
  m.variant_count = 1, m.cta_group = 1, m.m_box_rows = m.n_box_rows = 128;
  strcpy(m.kernel_name, "consumer_kernel");
  strcpy(m.target, "sm_100a");
  unsigned char rec[NVFP4_METADATA_BYTES];
  nvfp4rt_status st = nvfp4rt_metadata_encode(&m, rec);
  if (st == NVFP4RT_STATUS_OK) st = nvfp4rt_metadata_decode(rec, sizeof rec, &back);
  printf("metadata round trip: %s, kernel %s\n", nvfp4rt_status_string(st), back.kernel_name);
  nvfp4rt_group g = {0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 96, 128, 256, 128, 0, 0, 0};
  nvfp4rt_plan_layout layout;
  st = nvfp4rt_plan_validate(&back, &g, 1, &layout);
  printf("plan: %s, %u tiles\n", nvfp4rt_status_string(st), layout.total_tiles);
  return st != NVFP4RT_STATUS_OK;
}
