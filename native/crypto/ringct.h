/* RingCT hot paths (ringct.c): multi-scalar multiplication over prepared generator sets. */
#ifndef TSM_RINGCT_H
#define TSM_RINGCT_H
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

#include "ge.h"
#include "msm.h"

#define TSM_PREPARED_HEADER 16

/* Bytes of a prepared buffer holding n points. */
size_t tsm_prepared_size(size_t n);
/* 1 and *n = count when prep/len is a well-formed prepared buffer, else 0. */
int tsm_prepared_count(const uint8_t *prep, size_t len, size_t *n);
/* Decodes n compressed points into out (tsm_prepared_size(n) bytes): 0 ok, 1 when one does not decode. */
int tsm_prepare_points(uint8_t *out, const uint8_t *points, size_t n);
/* sum of pscalars_i * prep_i (i < k) + scalars_j * points_j (j < m): 0 ok, 1 point does not decode, -1 no memory. */
int tsm_msm_prepared(uint8_t out[32], const uint8_t *prep, size_t k, const uint8_t *pscalars, const uint8_t *scalars,
                     const uint8_t *points, size_t m);

/* Node-API entry points registered by addon.c:
 *   preparedSize(n) -> bytes; preparePoints(points, out) -> bool (false: a point does not decode);
 *   multiScalarMultPrepared(prepared, preparedScalars, scalars, points, out) -> bool. */
napi_value tsm_napi_prepared_size(napi_env env, napi_callback_info info);
napi_value tsm_napi_prepare_points(napi_env env, napi_callback_info info);
napi_value tsm_napi_msm_prepared(napi_env env, napi_callback_info info);

#endif
