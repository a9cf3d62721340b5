/* Scalar arithmetic mod l with 64-bit limbs and Barrett reduction (HAC algorithm 14.42, base 2^64,
 * k = 4). Same results as Monero's sc_* in src/crypto/crypto-ops.c for every 256-bit input. */
#include "sc.h"

#include <string.h>

#include "fe.h" /* u128, fe_load64, fe_store64 */

/* l, little-endian 64-bit limbs */
static const uint64_t L[4] = {0x5812631a5cf5d3edULL, 0x14def9dea2f79cd6ULL, 0, 0x1000000000000000ULL};
/* mu = floor(2^512 / l), 260 bits */
static const uint64_t MU[5] = {0xed9ce5a30a2c131bULL, 0x2106215d086329a7ULL, 0xffffffffffffffebULL,
                               0xffffffffffffffffULL, 0xfULL};

static void load4(uint64_t r[4], const uint8_t s[32]) {
  for (int i = 0; i < 4; i++) r[i] = fe_load64(s + 8 * i);
}
static void store4(uint8_t s[32], const uint64_t r[4]) {
  for (int i = 0; i < 4; i++) fe_store64(s + 8 * i, r[i]);
}

/* r = x mod l for an 8-limb x (any value < 2^512); r fully reduced. */
static void barrett(uint64_t r[4], const uint64_t x[8]) {
  uint64_t q3[5], t[5], c[5];
  /* q1 = x >> 192 (5 limbs); q3 = (q1 * mu) >> 320: only product limbs 4..9 matter (limb 4 for
   * its carry); computed exactly. */
  const uint64_t *q1 = x + 3;
  uint64_t prod[10] = {0};
  for (int i = 0; i < 5; i++) {
    u128 carry = 0;
    for (int j = 0; j < 5; j++) {
      u128 v = (u128)q1[i] * MU[j] + prod[i + j] + carry;
      prod[i + j] = (uint64_t)v;
      carry = v >> 64;
    }
    prod[i + 5] = (uint64_t)carry;
  }
  for (int i = 0; i < 5; i++) q3[i] = prod[5 + i];
  /* t = (q3 * l) mod 2^320 */
  memset(t, 0, sizeof t);
  for (int i = 0; i < 5; i++) {
    u128 carry = 0;
    for (int j = 0; i + j < 5 && j < 4; j++) {
      u128 v = (u128)q3[i] * L[j] + t[i + j] + carry;
      t[i + j] = (uint64_t)v;
      carry = v >> 64;
    }
    if (i + 4 < 5) t[i + 4] += (uint64_t)carry;
  }
  /* r = (x mod 2^320) - t mod 2^320, which is < 3l */
  uint64_t borrow = 0;
  for (int i = 0; i < 5; i++) {
    u128 v = (u128)x[i] - t[i] - borrow;
    c[i] = (uint64_t)v;
    borrow = (uint64_t)(v >> 64) & 1;
  }
  /* two constant-time conditional subtractions of l */
  for (int round = 0; round < 2; round++) {
    uint64_t d[5];
    borrow = 0;
    for (int i = 0; i < 5; i++) {
      u128 v = (u128)c[i] - (i < 4 ? L[i] : 0) - borrow;
      d[i] = (uint64_t)v;
      borrow = (uint64_t)(v >> 64) & 1;
    }
    uint64_t keep = -borrow; /* all ones if c < l: keep c */
    for (int i = 0; i < 5; i++) c[i] = (c[i] & keep) | (d[i] & ~keep);
  }
  for (int i = 0; i < 4; i++) r[i] = c[i];
}

/* 4x4 limb product */
static void mul4(uint64_t r[8], const uint64_t a[4], const uint64_t b[4]) {
  memset(r, 0, 8 * sizeof(uint64_t));
  for (int i = 0; i < 4; i++) {
    u128 carry = 0;
    for (int j = 0; j < 4; j++) {
      u128 v = (u128)a[i] * b[j] + r[i + j] + carry;
      r[i + j] = (uint64_t)v;
      carry = v >> 64;
    }
    r[i + 4] = (uint64_t)carry;
  }
}

/* r += a (8 limbs += 4 limbs), no overflow for the callers' ranges */
static void add_into(uint64_t r[8], const uint64_t a[4]) {
  u128 carry = 0;
  for (int i = 0; i < 8; i++) {
    u128 v = (u128)r[i] + (i < 4 ? a[i] : 0) + carry;
    r[i] = (uint64_t)v;
    carry = v >> 64;
  }
}

/* r = x mod l for x < 2^258 (x[4] <= 3): with q = floor(x / 2^252) <= 63, x - q l lies in
 * (-2^131, 2^252) because l = 2^252 + d with d < 2^125, so one masked addition of l finishes. */
static void reduce_short(uint64_t r[4], const uint64_t x[5]) {
  const uint64_t q = (x[3] >> 60) | (x[4] << 4);
  uint64_t ql[5], d[5], borrow = 0;
  u128 t = (u128)q * L[0];
  ql[0] = (uint64_t)t;
  t = (t >> 64) + (u128)q * L[1];
  ql[1] = (uint64_t)t;
  ql[2] = (uint64_t)(t >> 64);
  ql[3] = q << 60; /* q * 2^252 */
  ql[4] = q >> 4;
  for (int i = 0; i < 5; i++) {
    u128 v = (u128)x[i] - ql[i] - borrow;
    d[i] = (uint64_t)v;
    borrow = (uint64_t)(v >> 64) & 1;
  }
  {
    const uint64_t mask = -borrow; /* negative: add l */
    u128 carry = 0;
    for (int i = 0; i < 4; i++) {
      u128 v = (u128)d[i] + (L[i] & mask) + carry;
      r[i] = (uint64_t)v;
      carry = v >> 64;
    }
  }
}

static void reduce4(uint64_t r[4], const uint64_t a[4]) {
  const uint64_t x[5] = {a[0], a[1], a[2], a[3], 0};
  reduce_short(r, x);
}

/* r = a - b mod l for canonical a, b */
static void sub_mod(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
  uint64_t d[4], borrow = 0;
  for (int i = 0; i < 4; i++) {
    u128 v = (u128)a[i] - b[i] - borrow;
    d[i] = (uint64_t)v;
    borrow = (uint64_t)(v >> 64) & 1;
  }
  uint64_t mask = -borrow; /* add l back when negative */
  u128 carry = 0;
  for (int i = 0; i < 4; i++) {
    u128 v = (u128)d[i] + (L[i] & mask) + carry;
    r[i] = (uint64_t)v;
    carry = v >> 64;
  }
}

static void mulmod(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
  uint64_t p[8];
  mul4(p, a, b);
  barrett(r, p);
}

void tsm_sc_reduce32(uint8_t r[32], const uint8_t s[32]) {
  uint64_t a[4], o[4];
  load4(a, s);
  reduce4(o, a);
  store4(r, o);
}

void tsm_sc_reduce64(uint8_t r[32], const uint8_t s[64]) {
  uint64_t x[8], o[4];
  for (int i = 0; i < 8; i++) x[i] = fe_load64(s + 8 * i);
  barrett(o, x);
  store4(r, o);
}

void tsm_sc_add(uint8_t r[32], const uint8_t a[32], const uint8_t b[32]) {
  uint64_t x[5], aa[4], bb[4], o[4];
  u128 carry = 0;
  load4(aa, a);
  load4(bb, b);
  for (int i = 0; i < 4; i++) {
    u128 v = (u128)aa[i] + bb[i] + carry;
    x[i] = (uint64_t)v;
    carry = v >> 64;
  }
  x[4] = (uint64_t)carry;
  reduce_short(o, x);
  store4(r, o);
}

/* 16 l (> 2^256 > any b), 5 limbs */
static const uint64_t L16[5] = {0x812631a5cf5d3ed0ULL, 0x4def9dea2f79cd65ULL, 1, 0, 1};

void tsm_sc_sub(uint8_t r[32], const uint8_t a[32], const uint8_t b[32]) {
  /* a + (16 l - b): congruent to a - b, positive and below 2^258, then one short reduction */
  uint64_t aa[4], bb[4], x[5], o[4], borrow = 0;
  u128 carry = 0;
  load4(aa, a);
  load4(bb, b);
  for (int i = 0; i < 5; i++) {
    u128 t = (u128)L16[i] - (i < 4 ? bb[i] : 0) - borrow;
    borrow = (uint64_t)(t >> 64) & 1;
    u128 v = (u128)(uint64_t)t + (i < 4 ? aa[i] : 0) + carry;
    x[i] = (uint64_t)v;
    carry = v >> 64;
  }
  reduce_short(o, x);
  store4(r, o);
}

void tsm_sc_mul(uint8_t r[32], const uint8_t a[32], const uint8_t b[32]) {
  uint64_t aa[4], bb[4], o[4];
  load4(aa, a);
  load4(bb, b);
  mulmod(o, aa, bb);
  store4(r, o);
}

void tsm_sc_muladd(uint8_t r[32], const uint8_t a[32], const uint8_t b[32], const uint8_t c[32]) {
  uint64_t aa[4], bb[4], cc[4], p[8], o[4];
  load4(aa, a);
  load4(bb, b);
  load4(cc, c);
  mul4(p, aa, bb);
  add_into(p, cc); /* a*b + c < 2^512 */
  barrett(o, p);
  store4(r, o);
}

void tsm_sc_mulsub(uint8_t r[32], const uint8_t a[32], const uint8_t b[32], const uint8_t c[32]) {
  uint64_t aa[4], bb[4], cc[4], m[4], o[4];
  load4(aa, a);
  load4(bb, b);
  load4(cc, c);
  mulmod(m, aa, bb);
  reduce4(cc, cc);
  sub_mod(o, cc, m);
  store4(r, o);
}

void tsm_sc_invert(uint8_t r[32], const uint8_t a[32]) {
  /* a^(l-2) by left-to-right 4-bit fixed windows over the public exponent l - 2 */
  static const uint64_t E[4] = {0x5812631a5cf5d3ebULL, 0x14def9dea2f79cd6ULL, 0, 0x1000000000000000ULL};
  uint64_t x[4], tbl[16][4], acc[4];
  load4(x, a);
  reduce4(x, x);
  tbl[0][0] = 1;
  tbl[0][1] = tbl[0][2] = tbl[0][3] = 0;
  memcpy(tbl[1], x, sizeof x);
  for (int i = 2; i < 16; i++) mulmod(tbl[i], tbl[i - 1], x);
  memcpy(acc, tbl[1], sizeof acc); /* top nibble of l - 2 is 1 */
  for (int i = 62; i >= 0; i--) {
    for (int k = 0; k < 4; k++) mulmod(acc, acc, acc);
    unsigned nib = (unsigned)(E[i / 16] >> (4 * (i % 16))) & 15;
    if (nib) mulmod(acc, acc, tbl[nib]); /* branch on the public exponent only */
  }
  store4(r, acc);
}

int tsm_sc_check(const uint8_t s[32]) {
  /* s < l as 256-bit integers (Monero's signum-weighted comparison computes exactly this) */
  uint64_t a[4], borrow = 0;
  load4(a, s);
  for (int i = 0; i < 4; i++) {
    u128 v = (u128)a[i] - L[i] - borrow;
    borrow = (uint64_t)(v >> 64) & 1;
  }
  return (int)borrow;
}

int tsm_sc_isnonzero(const uint8_t s[32]) {
  uint8_t acc = 0;
  for (int i = 0; i < 32; i++) acc |= s[i];
  return (int)(1 ^ (((uint32_t)acc - 1) >> 31));
}

void tsm_sc_batch(int op, uint8_t *r, const uint8_t *a, const uint8_t *b, size_t b_stride, size_t n) {
  for (size_t i = 0; i < n; i++, r += 32, a += 32, b += b_stride) {
    switch (op) {
      case TSM_SC_OP_REDUCE32: tsm_sc_reduce32(r, a); break;
      case TSM_SC_OP_ADD: tsm_sc_add(r, a, b); break;
      case TSM_SC_OP_SUB: tsm_sc_sub(r, a, b); break;
      default: tsm_sc_mul(r, a, b); break;
    }
  }
}

int64_t tsm_sc_check_batch(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!tsm_sc_check(s + 32 * i)) return (int64_t)i;
  return -1;
}
