/* Scalars modulo l = 2^252 + 27742317777372353535851937790883648493 (the order of the ed25519
 * base point), as 32-byte little-endian strings. Every function accepts any 256-bit input
 * (non-canonical included), returns canonical results, and runs in constant time. */
#ifndef TSM_SC_H
#define TSM_SC_H
#include <stdint.h>

void tsm_sc_reduce32(uint8_t r[32], const uint8_t s[32]);
void tsm_sc_reduce64(uint8_t r[32], const uint8_t s[64]);
void tsm_sc_add(uint8_t r[32], const uint8_t a[32], const uint8_t b[32]);
void tsm_sc_sub(uint8_t r[32], const uint8_t a[32], const uint8_t b[32]);
void tsm_sc_mul(uint8_t r[32], const uint8_t a[32], const uint8_t b[32]);
/* a*b + c */
void tsm_sc_muladd(uint8_t r[32], const uint8_t a[32], const uint8_t b[32], const uint8_t c[32]);
/* c - a*b */
void tsm_sc_mulsub(uint8_t r[32], const uint8_t a[32], const uint8_t b[32], const uint8_t c[32]);
/* a^(l-2): the inverse mod l, 0 for 0 */
void tsm_sc_invert(uint8_t r[32], const uint8_t a[32]);
/* 1 when s < l (Monero's sc_check(s) == 0) */
int tsm_sc_check(const uint8_t s[32]);
/* 1 when some byte is non-zero (Monero's sc_isnonzero) */
int tsm_sc_isnonzero(const uint8_t s[32]);

#endif
