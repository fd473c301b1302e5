/* test_meta.h — the metadata record of a plausible one-variant kernel family (a
 * pointer-array ab_n128 of max_groups groups), for the runtime's host-only tests to
 * start from and adjust. */
#ifndef NVFP4RT_TEST_META_H
#define NVFP4RT_TEST_META_H

#include <string.h>

#include "nvfp4rt.h"

static inline nvfp4_kernel_metadata make_meta(int emulation, uint32_t max_groups) {
  nvfp4_kernel_metadata m;
  memset(&m, 0, sizeof m);
  m.magic = NVFP4_METADATA_MAGIC;
  m.abi_version = NVFP4_ABI_VERSION;
  m.record_bytes = NVFP4_METADATA_BYTES;
  m.target_sm = emulation ? 90 : 100;
  m.flags = emulation ? NVFP4_META_FLAG_EMULATION : 0;
  m.block[0] = 192; m.block[1] = m.block[2] = 1;
  m.cluster[0] = m.cluster[1] = m.cluster[2] = 1;
  m.dyn_smem_bytes = 200 * 1024;
  m.tile_m = 128; m.tile_n = 128; m.tile_k = 256; m.stages = 5;
  m.max_groups = max_groups;
  m.param_bytes = NVFP4_ABI_PARAM_BYTES;
  m.tmem_cols = 512; m.acc_buffers = 2;
  m.workspace_per_cta = emulation ? 262144 : 0;
  m.k_granule = 64; m.sfn_atoms = 1; m.sfm_atoms = 1;
  m.variant_index = 0; m.variant_count = 1;
  m.orientation = NVFP4_META_ORIENTATION_AB; m.cta_group = 1;
  m.epilogue = NVFP4_META_EPILOGUE_TMA_STORE; m.variant_flags = 0;
  m.m_box_rows = 128; m.n_box_rows = 128; m.store_box_rows = 128; m.n_align = 8;
  strcpy(m.kernel_name, "nvfp4_grouped_gemm");
  strcpy(m.target, emulation ? "sm_90a" : "sm_100a");
  return m;
}

#endif
