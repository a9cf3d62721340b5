/*
 * The twisted Edwards curve -x^2 + y^2 = 1 + d x^2 y^2 over GF(2^255 - 19) (ed25519).
 *
 * Point forms:
 *  ge_p3     extended (X:Y:Z:T), x = X/Z, y = Y/Z, x y = T/Z
 *  ge_p2     projective (X:Y:Z)
 *  ge_p1p1   "completed" ((X:Z),(Y:T)), x = X/Z, y = Y/T: what add/double produce before the
 *            last multiplications, so the caller pays only for the coordinates it needs
 *  ge_cached (Y+X, Y-X, Z, 2dT): second operand of a full addition
 *  ge_niels  (y+x, y-x, 2dxy) with Z = 1: second operand of a mixed addition (precomputed tables)
 *
 * The addition law used (Hisil-Wong-Carter-Dawson 2008, a = -1) is complete on this curve
 * because d is not a square: it is correct for every pair of curve points, torsion included.
 */
#ifndef TSM_GE_H
#define TSM_GE_H

#include "fe.h"

typedef struct {
  fe X, Y, Z, T;
} ge_p3;
typedef struct {
  fe X, Y, Z;
} ge_p2;
typedef struct {
  fe X, Y, Z, T;
} ge_p1p1;
typedef struct {
  fe YpX, YmX, Z, T2d;
} ge_cached;
typedef struct {
  fe ypx, ymx, xy2d;
} ge_niels;

/* curve constants (values derived in native/crypto/README.md) */
/* d = -121665/121666 */
static const fe FE_D = {{0x34dca135978a3ULL, 0x1a8283b156ebdULL, 0x5e7a26001c029ULL, 0x739c663a03cbbULL, 0x52036cee2b6ffULL}};
/* 2d */
static const fe FE_D2 = {{0x69b9426b2f159ULL, 0x35050762add7aULL, 0x3cf44c0038052ULL, 0x6738cc7407977ULL, 0x2406d9dc56dffULL}};
/* sqrt(-1) = 2^((p-1)/4) */
static const fe FE_SQRTM1 = {{0x61b274a0ea0b0ULL, 0x0d5a5fc8f189dULL, 0x7ef5e9cbd0c60ULL, 0x78595a6804c9eULL, 0x2b8324804fc1dULL}};

static inline void ge_p3_0(ge_p3 *r) {
  fe_0(&r->X);
  fe_1(&r->Y);
  fe_1(&r->Z);
  fe_0(&r->T);
}
static inline void ge_p2_0(ge_p2 *r) {
  fe_0(&r->X);
  fe_1(&r->Y);
  fe_1(&r->Z);
}
static inline void ge_cached_0(ge_cached *r) {
  fe_1(&r->YpX);
  fe_1(&r->YmX);
  fe_1(&r->Z);
  fe_0(&r->T2d);
}
static inline void ge_niels_0(ge_niels *r) {
  fe_1(&r->ypx);
  fe_1(&r->ymx);
  fe_0(&r->xy2d);
}

static inline void ge_p1p1_to_p2(ge_p2 *r, const ge_p1p1 *p) {
  fe_mul(&r->X, &p->X, &p->T);
  fe_mul(&r->Y, &p->Y, &p->Z);
  fe_mul(&r->Z, &p->Z, &p->T);
}

static inline void ge_p1p1_to_p3(ge_p3 *r, const ge_p1p1 *p) {
  fe_mul(&r->X, &p->X, &p->T);
  fe_mul(&r->Y, &p->Y, &p->Z);
  fe_mul(&r->Z, &p->Z, &p->T);
  fe_mul(&r->T, &p->X, &p->Y);
}

static inline void ge_p3_to_p2(ge_p2 *r, const ge_p3 *p) {
  r->X = p->X;
  r->Y = p->Y;
  r->Z = p->Z;
}

static inline void ge_p3_to_cached(ge_cached *r, const ge_p3 *p) {
  fe_add(&r->YpX, &p->Y, &p->X);
  fe_sub(&r->YmX, &p->Y, &p->X);
  r->Z = p->Z;
  fe_mul(&r->T2d, &p->T, &FE_D2);
}

/* Doubling (dbl-2008-hwcd with a = -1). With A = X^2, B = Y^2, C = 2Z^2 the formula's
 * E = (X+Y)^2 - A - B, G = B - A, F = G - C, H = -A - B give x = E/G, y = H/F. All four are
 * negated here (same ratios, fewer operations): E' = A + B - (X+Y)^2, G' = A - B, F' = C + G',
 * H' = A + B. */
static inline void ge_p2_dbl(ge_p1p1 *r, const ge_p2 *p) {
  fe a, b, c, t;
  fe_sq(&a, &p->X);
  fe_sq(&b, &p->Y);
  fe_sq(&c, &p->Z);
  fe_add(&c, &c, &c);
  fe_add(&t, &p->X, &p->Y);
  fe_sq(&t, &t);
  fe_add(&r->Y, &a, &b);     /* H' */
  fe_sub(&r->X, &r->Y, &t);  /* E' */
  fe_sub(&r->Z, &a, &b);     /* G' */
  fe_add(&r->T, &c, &r->Z);  /* F' */
}

static inline void ge_p3_dbl(ge_p1p1 *r, const ge_p3 *p) {
  ge_p2 q;
  ge_p3_to_p2(&q, p);
  ge_p2_dbl(r, &q);
}

/* r = p + q */
static inline void ge_add(ge_p1p1 *r, const ge_p3 *p, const ge_cached *q) {
  fe a, b, c, d, ypx, ymx;
  fe_add(&ypx, &p->Y, &p->X);
  fe_sub(&ymx, &p->Y, &p->X);
  fe_mul(&a, &ymx, &q->YmX);   /* (Y1-X1)(Y2-X2) */
  fe_mul(&b, &ypx, &q->YpX);   /* (Y1+X1)(Y2+X2) */
  fe_mul(&c, &p->T, &q->T2d);  /* 2d T1 T2 */
  fe_mul(&d, &p->Z, &q->Z);
  fe_add(&d, &d, &d);          /* 2 Z1 Z2 */
  fe_sub(&r->X, &b, &a);       /* E */
  fe_add(&r->Y, &b, &a);       /* H */
  fe_add(&r->Z, &d, &c);       /* G */
  fe_sub(&r->T, &d, &c);       /* F */
}

/* r = p - q */
static inline void ge_sub(ge_p1p1 *r, const ge_p3 *p, const ge_cached *q) {
  fe a, b, c, d, ypx, ymx;
  fe_add(&ypx, &p->Y, &p->X);
  fe_sub(&ymx, &p->Y, &p->X);
  fe_mul(&a, &ymx, &q->YpX);
  fe_mul(&b, &ypx, &q->YmX);
  fe_mul(&c, &p->T, &q->T2d);
  fe_mul(&d, &p->Z, &q->Z);
  fe_add(&d, &d, &d);
  fe_sub(&r->X, &b, &a);
  fe_add(&r->Y, &b, &a);
  fe_sub(&r->Z, &d, &c);
  fe_add(&r->T, &d, &c);
}

/* r = p + q, q affine */
static inline void ge_madd(ge_p1p1 *r, const ge_p3 *p, const ge_niels *q) {
  fe a, b, c, d, ypx, ymx;
  fe_add(&ypx, &p->Y, &p->X);
  fe_sub(&ymx, &p->Y, &p->X);
  fe_mul(&a, &ymx, &q->ymx);
  fe_mul(&b, &ypx, &q->ypx);
  fe_mul(&c, &p->T, &q->xy2d);
  fe_add(&d, &p->Z, &p->Z);
  fe_sub(&r->X, &b, &a);
  fe_add(&r->Y, &b, &a);
  fe_add(&r->Z, &d, &c);
  fe_sub(&r->T, &d, &c);
}

/* r = p - q, q affine */
static inline void ge_msub(ge_p1p1 *r, const ge_p3 *p, const ge_niels *q) {
  fe a, b, c, d, ypx, ymx;
  fe_add(&ypx, &p->Y, &p->X);
  fe_sub(&ymx, &p->Y, &p->X);
  fe_mul(&a, &ymx, &q->ypx);
  fe_mul(&b, &ypx, &q->ymx);
  fe_mul(&c, &p->T, &q->xy2d);
  fe_add(&d, &p->Z, &p->Z);
  fe_sub(&r->X, &b, &a);
  fe_add(&r->Y, &b, &a);
  fe_sub(&r->Z, &d, &c);
  fe_add(&r->T, &d, &c);
}

/* -q for cached and niels forms */
static inline void ge_cached_neg(ge_cached *r, const ge_cached *q) {
  fe t = q->YpX;
  r->YpX = q->YmX;
  r->YmX = t;
  r->Z = q->Z;
  fe_neg(&r->T2d, &q->T2d);
}

/* ---- ge.c ---- */
/* Decompression with exactly Monero's ge_frombytes_vartime acceptance rules; 0 on success. */
int tsm_ge_frombytes(ge_p3 *r, const uint8_t s[32]);
void tsm_ge_p3_tobytes(uint8_t s[32], const ge_p3 *p);
void tsm_ge_p2_tobytes(uint8_t s[32], const ge_p2 *p);
/* Monero's ge_fromfe_frombytes_vartime: the raw map of 32 bytes to a point (no cofactor). */
void tsm_ge_fromfe(ge_p2 *r, const uint8_t s[32]);
/* 8 * map(keccak(p)) as ge_p3 (Monero's hash_to_ec in crypto.cpp) */
void tsm_hash_to_ec(ge_p3 *r, const uint8_t p[32]);
void tsm_ge_mul8(ge_p3 *r, const ge_p2 *p);

/* s*G and s*P in constant time, with exactly the results of Monero's ge_scalarmult_base and
 * ge_scalarmult for every 32-byte s: the scalar is an integer, not reduced mod l (this matters
 * for torsion), and below 2^255 the result is plainly s*P; above, Monero drops a top radix-16
 * digit greater than 8 and so do these. */
void tsm_ge_scalarmult_base(ge_p3 *r, const uint8_t s[32]);
/* mask*G + amount*H (rct::commit), constant time; mask < 2^255 */
void tsm_commit(ge_p3 *r, uint64_t amount, const uint8_t mask[32]);
void tsm_ge_scalarmult(ge_p3 *r, const uint8_t s[32], const ge_p3 *p);
/* The signed radix-16 digits tsm_ge_scalarmult walks (e[63] as Monero keeps it), constant time. */
void tsm_recode_radix16(int8_t e[64], const uint8_t s[32]);
/* out[i] = secs[32i..32i+32) * P for i < n, each exactly tsm_ge_scalarmult's result, P's table built
 * once for all (cheaper from n = 3 on). 0 ok, -1 out of memory. */
int tsm_ge_scalarmult_many(ge_p3 *out, const uint8_t *secs, size_t n, const ge_p3 *p);
/* s[32i..32i+32) = encoding of p[i], one inversion for all; scratch: n field elements. */
void tsm_ge_p3_tobytes_many(uint8_t *s, const ge_p3 *p, size_t n, fe *scratch);
/* a*P + b*G and a*P + b*Q, variable time, with exactly the results of Monero's
 * ge_double_scalarmult_base_vartime / ge_double_scalarmult_precomp_vartime: a scalar whose
 * sliding-window recoding overflows bit 255 counts as s - 2^256 there, and here. */
void tsm_ge_double_scalarmult_base_vartime(ge_p2 *r, const uint8_t a[32], const ge_p3 *p, const uint8_t b[32]);
void tsm_ge_double_scalarmult_vartime(ge_p2 *r, const uint8_t a[32], const ge_p3 *p, const uint8_t b[32],
                                      const ge_p3 *q);

/* Width-w NAF of a 256-bit integer into naf[TSM_WNAF_LEN] (2 <= w <= 8): returns the index of
 * the highest non-zero digit, -1 for zero. Variable time. */
#define TSM_WNAF_LEN 272
int tsm_wnaf(int8_t naf[TSM_WNAF_LEN], const uint8_t s[32], int w);
/* tab[j] = (2j+1) P, j < n */
void tsm_odd_multiples(ge_cached *tab, const ge_p3 *p, int n);
/* The base point G. */
const ge_p3 *tsm_ge_base(void);
/* G's fixed-window table: entry 8k + j = (j+1)·256^k·G, k < 32, j < 8 (after tsm_ge_init). */
const ge_niels *tsm_ge_base_table(void);

/* One-time initialisation of the precomputed tables (thread safe; idempotent). */
void tsm_ge_init(void);

#endif
