/* Producer.h — the TMA producer of the stage ring shared by the generated kernels
 * (Producer.c): one thread streams every stage of every tile of the schedule through the
 * operand-role table into the full / empty ring. The sm_120a kernel (lib/Conversion/Sm120)
 * and the sm_90a and sm_100a kernels use it.
 */
#ifndef NVFP4_CONVERSION_GENERATOR_PRODUCER_H
#define NVFP4_CONVERSION_GENERATOR_PRODUCER_H

#include "Generator.h"

/* A 2-D TMA load of one box (Nvvm.h's nvTmaLoad2d signature). */
typedef MlirOperation (*GenTmaLoadFn)(KbBuilder *b, KbValue dstShared, KbValue tensorMap,
                                      KbValue bar, KbValue x, KbValue y, KbValue l2Hint,
                                      const char *tag);

typedef struct GenProducerStyle {
  bool byteCoordinates; /* UINT8 FP4 maps: the data's x in bytes (else FP4 elements) */
  GenTmaLoadFn load;    /* nvTmaLoad2d, or a target's own form of the load */
} GenProducerStyle;

/* The stages [t->kBegin, t->kEnd) of tile t into the ring `stages` (at the producer's
 * position, advanced past them). */
void genProducerTile(GenKernel *g, GenTile *t, GenPipe *stages, const GenProducerStyle *style);
/* Every tile of this CTA's schedule; returns the ring at its final position. */
GenPipe genProducerLoop(GenKernel *g, const GenProducerStyle *style);

/* After the producer's last load of this CTA: the dependent grid (programmatic dependent
 * launch) may be scheduled, its prologue overlapping this CTA's last stages and epilogue;
 * its griddepcontrol.wait still waits for this grid to complete. */
void genProducerLaunchDependents(GenKernel *g);

#endif /* NVFP4_CONVERSION_GENERATOR_PRODUCER_H */
