/* Bulletproofs+ proving (bpplus.c). */
#ifndef TSM_BPPLUS_H
#define TSM_BPPLUS_H
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

#include "ringct.h"

/* log2(M·N) for m amounts (M the next power of two ≥ m, N = 64) */
size_t tsm_bpp_log_mn(size_t m);
/* bytes written by tsm_bpp_prove: V[m] ‖ A ‖ A1 ‖ B ‖ r1 ‖ s1 ‖ d1 ‖ L[log_mn] ‖ R[log_mn], 32 each */
size_t tsm_bpp_proof_size(size_t m);
/* scalars consumed: α, then dL, dR per round, then r, s, d, η */
size_t tsm_bpp_nonce_count(size_t m);
/* Proves m (1..16) amounts (u64 little-endian, 8 bytes each) with masks gammas (32 bytes each) and
 * the given nonces; prep holds the interleaved generators G0,H0,G1,H1,… (at least 2·M·N of them),
 * h is rct's H, transcript0 the initial transcript point; threads 2 computes each round's L and R,
 * and its G and H folds, on two threads (1: all on the caller's). 0 ok, 1 a challenge was zero (draw new
 * nonces and call again), -1 out of memory, -2 bad arguments. */
int tsm_bpp_prove(uint8_t *out, const uint8_t *prep, size_t prep_count, const uint8_t *amounts, const uint8_t *gammas,
                  size_t m, const uint8_t *nonces, const uint8_t h[32], const uint8_t transcript0[32], int threads);

/* Node-API: bulletproofPlusProve(prepared, amounts, gammas, nonces, h, transcript0, out, threads) -> 0 | 1 */
napi_value tsm_napi_bpp_prove(napi_env env, napi_callback_info info);

#endif
