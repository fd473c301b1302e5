/* host_internal.h — private helpers of the host-side generators (host.c), shared with the
 * contiguous-form generator (moehost.c); not part of the library's API. */
#ifndef NVFP4RT_HOST_INTERNAL_H
#define NVFP4RT_HOST_INTERNAL_H

#include "nvfp4rt_host.h"

/* A value in [0, n) (n >= 1) from g. */
uint32_t nvfp4h_rng_below_(nvfp4h_rng *g, uint32_t n);
/* A full-range E4M3 scale with exponent in [h-6, h] (NVFP4H_DIST_FULL_RANGE). */
uint8_t nvfp4h_full_range_scale_(nvfp4h_rng *g, int h);
/* The exponent bounds h of SFA and SFB that keep every output of a K-long sum finite. */
void nvfp4h_full_range_exponents_(uint32_t k, int *ha, int *hb);

/* One element of the tolerance check (nvfp4h_check_typed): accumulates into r, reports
 * (group, row, col) on a mismatch; returns 1 when within tolerance. */
int nvfp4h_check_elem_(nvfp4h_check_result *r, uint32_t group, uint32_t row, uint32_t col,
                       float got, float ref, double atol, double rtol);

#endif /* NVFP4RT_HOST_INTERNAL_H */
