/* Several constant-time s*P at once (ge-x8.c): AVX-512 IFMA lanes where the machine has them. */
#ifndef TSM_GE_X8_H
#define TSM_GE_X8_H

#include <stddef.h>

#include "ge.h"

/* 1 when this machine runs the eight-lane kernel (and TSMONERO_NO_AVX512 is not set), else 0. */
int tsm_ge_x8_available(void);
/* r[k] = s[32k..32k+32) * p[k] for k < n, each exactly tsm_ge_scalarmult's result. */
void tsm_ge_scalarmult_batch(ge_p3 *r, const uint8_t *s, const ge_p3 *p, size_t n);

/* r[k] = s[32k..32k+32) * G for k < n, each exactly tsm_ge_scalarmult_base's result. */
void tsm_ge_scalarmult_base_batch(ge_p3 *r, const uint8_t *s, size_t n);

#endif
