/* Producer.c — the sm_90a TMA producer (warpgroup 0, thread 0), the generator's
 * (../Generator/Producer.h): for every tile of the
 * persistent schedule and every 256-K stage of it (the CTA's share of a tile with the
 * stream-K schedule), waits until the consumers released the stage
 * (empty[s]), arms full[s] with the stage's bytes and issues its four boxes: the weight
 * tile (the M role, B: 128 rows), the token tile (the N role, A: the group's tile_n rows),
 * and both scale-factor boxes (one atom row for the weights, two for the tokens, whose tile
 * may straddle a 128-row atom). FP4 bytes go through UINT8 tensor maps (Hopper has no 16U4
 * maps): x is a byte offset along K, 128 per stage; the scale maps count int64 elements,
 * 256 per stage (KernelABI.h). The contiguous form (nvfp4.moe_matmul) reads the shared
 * maps of the device table from the expert's first rows, its token tile through the box
 * ladder (a BALANCED_N plan: one box per set bit of the tile's 16-row count).
 */
#include "Sm90Kernel.h"

#include "../Generator/Producer.h"
#include "../Nvvm.h"

void sm90ProducerLoop(Sm90Kernel *k) {
  const GenProducerStyle style = {true, nvTmaLoad2d}; /* UINT8 FP4 maps: x in bytes */
  genProducerLoop(&k->g, &style);
  genProducerLaunchDependents(&k->g);
}
