/*
 * Arithmetic in GF(p), p = 2^255 - 19, radix 2^51: an element is sum(v[i] * 2^(51 i)), i = 0..4.
 *
 * Limb bounds (the whole kernel relies on them):
 *  - "reduced": every limb < 2^51 + 2^18. Output of fe_mul, fe_sq, fe_sub, fe_neg, fe_carry,
 *    fe_frombytes. Stored point coordinates are always reduced, except YplusX of cached points
 *    and ypx of niels points, which are the sum of two reduced elements.
 *  - fe_add does not carry: from reduced inputs it yields limbs < 2^53.
 *  - fe_mul / fe_sq accept limbs < 2^54 (the column sums stay below 2^115, see fe_reduce128).
 *  - fe_sub / fe_neg accept a subtrahend with limbs < 2^53 (they add 4p before subtracting).
 * Only fe_tobytes, fe_iszero, fe_isneg and fe_eq look at the canonical value.
 */
#ifndef TSM_FE_H
#define TSM_FE_H

#include <stdint.h>
#include <string.h>

typedef unsigned __int128 u128;
typedef struct {
  uint64_t v[5];
} fe;

#define FE_MASK51 ((uint64_t)0x7ffffffffffffULL)

static inline uint64_t fe_load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline void fe_store64(uint8_t *p, uint64_t v) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  memcpy(p, &v, 8);
}

/* Zeroes memory holding secrets in a way the compiler may not drop as a dead store. */
static inline void tsm_wipe(void *p, size_t n) {
  volatile uint8_t *v = (volatile uint8_t *)p;
  while (n--) *v++ = 0;
}

static inline void fe_0(fe *r) { r->v[0] = r->v[1] = r->v[2] = r->v[3] = r->v[4] = 0; }
static inline void fe_1(fe *r) {
  r->v[0] = 1;
  r->v[1] = r->v[2] = r->v[3] = r->v[4] = 0;
}

static inline void fe_add(fe *r, const fe *a, const fe *b) {
  for (int i = 0; i < 5; i++) r->v[i] = a->v[i] + b->v[i];
}

/* Weak reduction: brings any limbs < 2^63 down to the "reduced" bound. */
static inline void fe_carry(fe *r) {
  uint64_t c;
  c = r->v[0] >> 51; r->v[0] &= FE_MASK51; r->v[1] += c;
  c = r->v[1] >> 51; r->v[1] &= FE_MASK51; r->v[2] += c;
  c = r->v[2] >> 51; r->v[2] &= FE_MASK51; r->v[3] += c;
  c = r->v[3] >> 51; r->v[3] &= FE_MASK51; r->v[4] += c;
  c = r->v[4] >> 51; r->v[4] &= FE_MASK51; r->v[0] += 19 * c;
}

/* 4p, limb by limb, so that a + 4p - b never goes negative for b < 2^53. */
#define FE_4P0 ((uint64_t)0x1fffffffffffb4ULL) /* 4 * (2^51 - 19) */
#define FE_4PI ((uint64_t)0x1ffffffffffffcULL) /* 4 * (2^51 - 1) */

static inline void fe_sub(fe *r, const fe *a, const fe *b) {
  r->v[0] = (a->v[0] + FE_4P0) - b->v[0];
  r->v[1] = (a->v[1] + FE_4PI) - b->v[1];
  r->v[2] = (a->v[2] + FE_4PI) - b->v[2];
  r->v[3] = (a->v[3] + FE_4PI) - b->v[3];
  r->v[4] = (a->v[4] + FE_4PI) - b->v[4];
  fe_carry(r);
}

static inline void fe_neg(fe *r, const fe *a) {
  r->v[0] = FE_4P0 - a->v[0];
  r->v[1] = FE_4PI - a->v[1];
  r->v[2] = FE_4PI - a->v[2];
  r->v[3] = FE_4PI - a->v[3];
  r->v[4] = FE_4PI - a->v[4];
  fe_carry(r);
}

/* Carry propagation shared by mul and sq: 128-bit column sums (each < 2^115, which limbs < 2^54
 * guarantee) to reduced 64-bit limbs. Two rounds in which every limb hands its excess to the next
 * one at the same time, rather than one ripple through all five: the ripple is the critical path
 * of a squaring chain (inversion, square roots). Round one: c_i < 2^64 - 2^52, and 2^255 = 19
 * folds c_4 back in two parts so nothing overflows; round two leaves limbs < 2^51 + 2^15. */
static inline void fe_reduce128(fe *r, u128 t0, u128 t1, u128 t2, u128 t3, u128 t4) {
  const uint64_t c0 = (uint64_t)(t0 >> 51), c1 = (uint64_t)(t1 >> 51), c2 = (uint64_t)(t2 >> 51);
  const uint64_t c3 = (uint64_t)(t3 >> 51), c4 = (uint64_t)(t4 >> 51);
  const uint64_t r0 = ((uint64_t)t0 & FE_MASK51) + 19 * (c4 & FE_MASK51);
  const uint64_t r1 = ((uint64_t)t1 & FE_MASK51) + c0 + 19 * (c4 >> 51);
  const uint64_t r2 = ((uint64_t)t2 & FE_MASK51) + c1;
  const uint64_t r3 = ((uint64_t)t3 & FE_MASK51) + c2;
  const uint64_t r4 = ((uint64_t)t4 & FE_MASK51) + c3;
  r->v[0] = (r0 & FE_MASK51) + 19 * (r4 >> 51);
  r->v[1] = (r1 & FE_MASK51) + (r0 >> 51);
  r->v[2] = (r2 & FE_MASK51) + (r1 >> 51);
  r->v[3] = (r3 & FE_MASK51) + (r2 >> 51);
  r->v[4] = (r4 & FE_MASK51) + (r3 >> 51);
}

static inline void fe_mul(fe *r, const fe *a, const fe *b) {
  const uint64_t a0 = a->v[0], a1 = a->v[1], a2 = a->v[2], a3 = a->v[3], a4 = a->v[4];
  const uint64_t b0 = b->v[0], b1 = b->v[1], b2 = b->v[2], b3 = b->v[3], b4 = b->v[4];
  /* 2^255 = 19 (mod p): products landing at limb 5..8 fold back with a factor 19 */
  const uint64_t b1_19 = 19 * b1, b2_19 = 19 * b2, b3_19 = 19 * b3, b4_19 = 19 * b4;
  u128 t0 = (u128)a0 * b0 + (u128)a1 * b4_19 + (u128)a2 * b3_19 + (u128)a3 * b2_19 + (u128)a4 * b1_19;
  u128 t1 = (u128)a0 * b1 + (u128)a1 * b0 + (u128)a2 * b4_19 + (u128)a3 * b3_19 + (u128)a4 * b2_19;
  u128 t2 = (u128)a0 * b2 + (u128)a1 * b1 + (u128)a2 * b0 + (u128)a3 * b4_19 + (u128)a4 * b3_19;
  u128 t3 = (u128)a0 * b3 + (u128)a1 * b2 + (u128)a2 * b1 + (u128)a3 * b0 + (u128)a4 * b4_19;
  u128 t4 = (u128)a0 * b4 + (u128)a1 * b3 + (u128)a2 * b2 + (u128)a3 * b1 + (u128)a4 * b0;
  fe_reduce128(r, t0, t1, t2, t3, t4);
}

static inline void fe_sq(fe *r, const fe *a) {
  const uint64_t a0 = a->v[0], a1 = a->v[1], a2 = a->v[2], a3 = a->v[3], a4 = a->v[4];
  const uint64_t d0 = 2 * a0, d1 = 2 * a1, d2 = 2 * a2;
  const uint64_t a3_19 = 19 * a3, a4_19 = 19 * a4;
  u128 t0 = (u128)a0 * a0 + (u128)d1 * a4_19 + (u128)d2 * a3_19;
  u128 t1 = (u128)d0 * a1 + (u128)d2 * a4_19 + (u128)a3 * a3_19;
  u128 t2 = (u128)d0 * a2 + (u128)a1 * a1 + (u128)(2 * a3) * a4_19;
  u128 t3 = (u128)d0 * a3 + (u128)d1 * a2 + (u128)a4 * a4_19;
  u128 t4 = (u128)d0 * a4 + (u128)d1 * a3 + (u128)a2 * a2;
  fe_reduce128(r, t0, t1, t2, t3, t4);
}

/* r = a^(2^n), n >= 1 */
static inline void fe_sqn(fe *r, const fe *a, int n) {
  fe_sq(r, a);
  while (--n > 0) fe_sq(r, r);
}

/* r = a * c for a small constant c < 2^13 */
static inline void fe_mul_small(fe *r, const fe *a, uint64_t c) {
  u128 t0 = (u128)a->v[0] * c, t1 = (u128)a->v[1] * c, t2 = (u128)a->v[2] * c;
  u128 t3 = (u128)a->v[3] * c, t4 = (u128)a->v[4] * c;
  fe_reduce128(r, t0, t1, t2, t3, t4);
}

/* Loads 255 bits (bit 255, the sign bit of an encoded point, is ignored). Not reduced mod p:
 * the value may lie in [p, 2^255). */
static inline void fe_frombytes(fe *r, const uint8_t s[32]) {
  const uint64_t w0 = fe_load64(s), w1 = fe_load64(s + 8), w2 = fe_load64(s + 16), w3 = fe_load64(s + 24);
  r->v[0] = w0 & FE_MASK51;
  r->v[1] = ((w0 >> 51) | (w1 << 13)) & FE_MASK51;
  r->v[2] = ((w1 >> 38) | (w2 << 26)) & FE_MASK51;
  r->v[3] = ((w2 >> 25) | (w3 << 39)) & FE_MASK51;
  r->v[4] = (w3 >> 12) & FE_MASK51;
}

/* Loads all 256 bits as an integer (the top limb holds 52 bits; 2^255 = 19 is implied). */
static inline void fe_frombytes256(fe *r, const uint8_t s[32]) {
  fe_frombytes(r, s);
  r->v[4] = fe_load64(s + 24) >> 12;
}

/* Canonical little-endian encoding (value fully reduced mod p). */
static inline void fe_tobytes(uint8_t s[32], const fe *a) {
  fe t = *a;
  uint64_t q;
  fe_carry(&t); /* limbs 1..4 < 2^51, limb 0 < 2^51 + 2^18: value < 2p */
  /* q = 1 iff value >= p, i.e. value + 19 >= 2^255 */
  q = (t.v[0] + 19) >> 51;
  q = (t.v[1] + q) >> 51;
  q = (t.v[2] + q) >> 51;
  q = (t.v[3] + q) >> 51;
  q = (t.v[4] + q) >> 51;
  t.v[0] += 19 * q;
  t.v[1] += t.v[0] >> 51; t.v[0] &= FE_MASK51;
  t.v[2] += t.v[1] >> 51; t.v[1] &= FE_MASK51;
  t.v[3] += t.v[2] >> 51; t.v[2] &= FE_MASK51;
  t.v[4] += t.v[3] >> 51; t.v[3] &= FE_MASK51;
  t.v[4] &= FE_MASK51; /* drops the 2^255 that pairs with the +19 */
  fe_store64(s, t.v[0] | (t.v[1] << 51));
  fe_store64(s + 8, (t.v[1] >> 13) | (t.v[2] << 38));
  fe_store64(s + 16, (t.v[2] >> 26) | (t.v[3] << 25));
  fe_store64(s + 24, (t.v[3] >> 39) | (t.v[4] << 12));
}

/* 1 if a = 0 (mod p); constant time. */
static inline int fe_iszero(const fe *a) {
  uint8_t s[32];
  uint8_t acc = 0;
  fe_tobytes(s, a);
  for (int i = 0; i < 32; i++) acc |= s[i];
  return (int)(((uint32_t)acc - 1) >> 31);
}

/* The "sign" of a: lowest bit of its canonical form. */
static inline int fe_isneg(const fe *a) {
  uint8_t s[32];
  fe_tobytes(s, a);
  return s[0] & 1;
}

static inline int fe_eq(const fe *a, const fe *b) {
  fe d;
  fe_sub(&d, a, b);
  return fe_iszero(&d);
}

/* r = b ? a : r, with mask = 0 or all ones; constant time. */
static inline void fe_cmov(fe *r, const fe *a, uint64_t mask) {
  for (int i = 0; i < 5; i++) r->v[i] ^= (r->v[i] ^ a->v[i]) & mask;
}

/* a^(2^250 - 1), and a^11 in *a11 (the shared prefix of the inversion and square-root chains). */
static inline void fe_pow2_250_1(fe *r, fe *a11, const fe *a) {
  fe a2, a9, e5, e10, e20, e40, e50, e100, t;
  fe_sq(&a2, a);              /* 2 */
  fe_sqn(&t, &a2, 2);         /* 8 */
  fe_mul(&a9, &t, a);         /* 9 */
  fe_mul(a11, &a9, &a2);      /* 11 */
  fe_sq(&t, a11);             /* 22 */
  fe_mul(&e5, &t, &a9);       /* 31 = 2^5 - 1 */
  fe_sqn(&t, &e5, 5);
  fe_mul(&e10, &t, &e5);      /* 2^10 - 1 */
  fe_sqn(&t, &e10, 10);
  fe_mul(&e20, &t, &e10);     /* 2^20 - 1 */
  fe_sqn(&t, &e20, 20);
  fe_mul(&e40, &t, &e20);     /* 2^40 - 1 */
  fe_sqn(&t, &e40, 10);
  fe_mul(&e50, &t, &e10);     /* 2^50 - 1 */
  fe_sqn(&t, &e50, 50);
  fe_mul(&e100, &t, &e50);    /* 2^100 - 1 */
  fe_sqn(&t, &e100, 100);
  fe_mul(&t, &t, &e100);      /* 2^200 - 1 */
  fe_sqn(&t, &t, 50);
  fe_mul(r, &t, &e50);        /* 2^250 - 1 */
}

/* r = a^(p-2) = 1/a (0 for a = 0). p - 2 = (2^250 - 1) * 2^5 + 11. */
static inline void fe_invert(fe *r, const fe *a) {
  fe t, a11;
  fe_pow2_250_1(&t, &a11, a);
  fe_sqn(&t, &t, 5);
  fe_mul(r, &t, &a11);
}

/* r = a^((p-5)/8) = a^(2^252 - 3) = (a^(2^250 - 1))^4 * a. */
static inline void fe_pow22523(fe *r, const fe *a) {
  fe t, a11;
  fe_pow2_250_1(&t, &a11, a);
  fe_sqn(&t, &t, 2);
  fe_mul(r, &t, a);
}

#endif
