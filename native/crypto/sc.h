/* Scalars modulo l = 2^252 + 27742317777372353535851937790883648493 (the order of the ed25519
 * base point), as 32-byte little-endian strings. Every function accepts any 256-bit input
 * (non-canonical included), returns canonical results, and runs in constant time. */
#ifndef TSM_SC_H
#define TSM_SC_H
#include <stddef.h>
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

/* n independent operations in one call: r[i] = op(a[i], b[i]), 32 bytes each, b advancing by
 * b_stride bytes (32, or 0 for one b for all); TSM_SC_OP_REDUCE32 reads no b. r may alias a or b. */
enum { TSM_SC_OP_REDUCE32 = 0, TSM_SC_OP_ADD = 1, TSM_SC_OP_SUB = 2, TSM_SC_OP_MUL = 3 };
void tsm_sc_batch(int op, uint8_t *r, const uint8_t *a, const uint8_t *b, size_t b_stride, size_t n);
/* The index of the first of n scalars that is not canonical (sc_check fails), or -1. */
int64_t tsm_sc_check_batch(const uint8_t *s, size_t n);

#endif
