#ifndef TSM_MSM_H
#define TSM_MSM_H
#include <stddef.h>
#include <stdint.h>

#include "ge.h"

#define TSM_MSM_AUTO 0
#define TSM_MSM_STRAUS 1
#define TSM_MSM_PIPPENGER 2

/* r = sum scalars_i * pts_i (pts decoded, Z = 1 required for Pippenger). 0 ok, -1 out of memory. */
int tsm_msm_vartime(ge_p2 *r, const uint8_t *scalars, const ge_p3 *pts, size_t n, int algo);
/* Same from encodings: 0 ok, 1 when a point does not decode, -1 out of memory. */
int tsm_msm_bytes(uint8_t out[32], const uint8_t *scalars, const uint8_t *points, size_t n, int algo);

#endif
