/* CLSAG signing (clsag.c). */
#ifndef TSM_CLSAG_H
#define TSM_CLSAG_H
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

/* Signs msg over the ring (P, C: n compressed points each) for member l with one-time secret p,
 * mask difference z (C[l] − c_offset = z·G) and nonces α, then the decoy responses in ring order
 * from l+1 (n scalars in all). Writes s[n] ‖ c1 ‖ D/8 ‖ I (32 bytes each).
 * 0 ok; 1 c_offset does not decode; 10 + i ring member i (P[i] or C[i]) does not decode;
 * -1 out of memory; -2 bad arguments. */
int tsm_clsag_sign(uint8_t *out, const uint8_t msg[32], const uint8_t *P, const uint8_t *C, size_t n,
                   const uint8_t p[32], const uint8_t z[32], const uint8_t c_offset[32], size_t l,
                   const uint8_t *nonces);

/* Node-API: clsagSign(message, P, C, p, z, cOffset, l, nonces, out) -> code as above */
napi_value tsm_napi_clsag_sign(napi_env env, napi_callback_info info);

#endif
