/*
 * s_k * P_k for up to eight (scalar, point) pairs at once, in the eight 64-bit lanes of AVX-512
 * registers, with the 52-bit multiply-add instructions of AVX-512 IFMA. Each lane computes exactly
 * what tsm_ge_scalarmult computes for its pair (the same radix-16 digits, the same table of
 * multiples 1..8, the same walk), so the results are the same points; only the field arithmetic is
 * vectorised. Constant time in the scalars, as tsm_ge_scalarmult: the table lookups are masked
 * moves over every entry, the walk's shape never depends on the digits.
 *
 * Field elements: radix 2^51 as fe.h, lane k of limb register i holding limb i of element k.
 * IFMA multiplies the low 52 bits of its operands, so every multiplication input must have limbs
 * below 2^52. Every operation here returns "narrow" limbs (< 2^51 + 2^8) and accepts limbs below
 * 2^51 + 2^20 (fe.h's reduced bound, so the scalar kernel's points load as they are):
 *  - add: sums below 2^52 + 2^21, then one parallel carry step (each limb's bits above 51 move one
 *    limb up, the top limb's times 19 to limb 0);
 *  - sub: a + 2p - b (2p's limbs are >= b's), then the same carry step;
 *  - mul: 25 low and 25 high 52-bit halves of the limb products, the high halves doubled (their
 *    weight is 2^52 = 2 * 2^51 above their column), columns 5..9 folded into 0..4 times 19
 *    (2^255 = 19 mod p), then a carry chain.
 * Bounds of mul: products < 2^103, column sums < 5 * 2^52 + 2 * 5 * 2^51 < 2^55, folded < 2^60.
 *
 * Compiled for the AVX-512 targets function by function; tsm_ge_x8_available says at run time
 * whether this machine (and its OS) can run it. Elsewhere callers use tsm_ge_scalarmult.
 */
#include "ge-x8.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TSM_HAVE_X8 1
#include <immintrin.h>

#define X8 __attribute__((target("avx512f,avx512ifma,avx512dq"))) static inline
#define X8_NOINLINE __attribute__((target("avx512f,avx512ifma,avx512dq"))) static

typedef struct {
  __m512i v[5];
} fe8;
typedef struct {
  fe8 X, Y, Z, T;
} ge8_p3;
typedef struct {
  fe8 X, Y, Z;
} ge8_p2;
typedef struct {
  fe8 X, Y, Z, T;
} ge8_p1p1;
typedef struct {
  fe8 YpX, YmX, Z, T2d;
} ge8_cached;

X8 __m512i m51(void) { return _mm512_set1_epi64((long long)FE_MASK51); }

/* One parallel carry step: limbs < 2^63 - 2^58 in, limb 0 < 2^51 + 19 * (top >> 51), others
 * < 2^51 + (below >> 51) out. */
X8 void fe8_carry1(fe8 *r) {
  const __m512i m = m51();
  __m512i c0 = _mm512_srli_epi64(r->v[0], 51), c1 = _mm512_srli_epi64(r->v[1], 51);
  __m512i c2 = _mm512_srli_epi64(r->v[2], 51), c3 = _mm512_srli_epi64(r->v[3], 51);
  __m512i c4 = _mm512_srli_epi64(r->v[4], 51);
  r->v[0] = _mm512_madd52lo_epu64(_mm512_and_si512(r->v[0], m), c4, _mm512_set1_epi64(19));
  r->v[1] = _mm512_add_epi64(_mm512_and_si512(r->v[1], m), c0);
  r->v[2] = _mm512_add_epi64(_mm512_and_si512(r->v[2], m), c1);
  r->v[3] = _mm512_add_epi64(_mm512_and_si512(r->v[3], m), c2);
  r->v[4] = _mm512_add_epi64(_mm512_and_si512(r->v[4], m), c3);
}

X8 void fe8_add(fe8 *r, const fe8 *a, const fe8 *b) {
  for (int i = 0; i < 5; i++) r->v[i] = _mm512_add_epi64(a->v[i], b->v[i]);
  fe8_carry1(r);
}

/* a - b + 2p; b's limbs must be <= 2p's (2^52 - 38, then 2^52 - 2): true below 2^51 + 2^20. */
X8 void fe8_sub(fe8 *r, const fe8 *a, const fe8 *b) {
  const __m512i p0 = _mm512_set1_epi64(0xfffffffffffdaLL), pi = _mm512_set1_epi64(0xffffffffffffeLL);
  r->v[0] = _mm512_sub_epi64(_mm512_add_epi64(a->v[0], p0), b->v[0]);
  for (int i = 1; i < 5; i++) r->v[i] = _mm512_sub_epi64(_mm512_add_epi64(a->v[i], pi), b->v[i]);
  fe8_carry1(r);
}

/* The ten columns of a product (each < 2^56) to narrow limbs: columns 5..9 folded into 0..4 times 19
 * (2^255 = 19 mod p), then one carry chain, the top limb's carry times 19 into limb 0. */
X8 void fe8_reduce(fe8 *r, __m512i c[10]) {
  const __m512i n19 = _mm512_set1_epi64(19), m = m51();
  for (int k = 0; k < 5; k++) c[k] = _mm512_add_epi64(c[k], _mm512_mullo_epi64(c[k + 5], n19));
  for (int k = 0; k < 4; k++) {
    c[k + 1] = _mm512_add_epi64(c[k + 1], _mm512_srli_epi64(c[k], 51));
    c[k] = _mm512_and_si512(c[k], m);
  }
  c[0] = _mm512_madd52lo_epu64(c[0], _mm512_srli_epi64(c[4], 51), n19);
  c[4] = _mm512_and_si512(c[4], m);
  c[1] = _mm512_add_epi64(c[1], _mm512_srli_epi64(c[0], 51));
  c[0] = _mm512_and_si512(c[0], m);
  for (int k = 0; k < 5; k++) r->v[k] = c[k];
}

X8 void fe8_mul(fe8 *r, const fe8 *a, const fe8 *b) {
  const __m512i z = _mm512_setzero_si512();
  __m512i lo[10], hi[10];
  for (int k = 0; k < 10; k++) lo[k] = hi[k] = z;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++) {
      lo[i + j] = _mm512_madd52lo_epu64(lo[i + j], a->v[i], b->v[j]);
      hi[i + j + 1] = _mm512_madd52hi_epu64(hi[i + j + 1], a->v[i], b->v[j]);
    }
  __m512i c[10];
  for (int k = 0; k < 10; k++) c[k] = _mm512_add_epi64(lo[k], _mm512_add_epi64(hi[k], hi[k]));
  fe8_reduce(r, c);
}

/* a^2: the cross products once, their columns doubled */
X8 void fe8_sq(fe8 *r, const fe8 *a) {
  const __m512i z = _mm512_setzero_si512();
  __m512i lo[10], hi[10], xlo[10], xhi[10];
  for (int k = 0; k < 10; k++) lo[k] = hi[k] = xlo[k] = xhi[k] = z;
  for (int i = 0; i < 5; i++) {
    lo[2 * i] = _mm512_madd52lo_epu64(lo[2 * i], a->v[i], a->v[i]);
    hi[2 * i + 1] = _mm512_madd52hi_epu64(hi[2 * i + 1], a->v[i], a->v[i]);
    for (int j = i + 1; j < 5; j++) {
      xlo[i + j] = _mm512_madd52lo_epu64(xlo[i + j], a->v[i], a->v[j]);
      xhi[i + j + 1] = _mm512_madd52hi_epu64(xhi[i + j + 1], a->v[i], a->v[j]);
    }
  }
  __m512i c[10];
  for (int k = 0; k < 10; k++) {
    /* lo + 2 hi + 2 (xlo + 2 xhi) */
    __m512i x = _mm512_add_epi64(xlo[k], _mm512_add_epi64(xhi[k], xhi[k]));
    c[k] = _mm512_add_epi64(_mm512_add_epi64(lo[k], _mm512_add_epi64(hi[k], hi[k])), _mm512_add_epi64(x, x));
  }
  fe8_reduce(r, c);
}

X8 void fe8_set1(fe8 *r, const fe *a) {
  for (int i = 0; i < 5; i++) r->v[i] = _mm512_set1_epi64((long long)a->v[i]);
}

X8 void fe8_const(fe8 *r, uint64_t v0) {
  r->v[0] = _mm512_set1_epi64((long long)v0);
  for (int i = 1; i < 5; i++) r->v[i] = _mm512_setzero_si512();
}

/* lanes of f[k], k < 8 */
X8 void fe8_load(fe8 *r, const fe *f0, size_t stride) {
  const uint64_t *b = f0->v;
  for (int i = 0; i < 5; i++) {
    r->v[i] = _mm512_set_epi64((long long)b[7 * stride + i], (long long)b[6 * stride + i], (long long)b[5 * stride + i],
                               (long long)b[4 * stride + i], (long long)b[3 * stride + i], (long long)b[2 * stride + i],
                               (long long)b[stride + i], (long long)b[i]);
  }
}

X8 void fe8_store(fe *f0, size_t stride, const fe8 *a) {
  uint64_t lanes[8];
  uint64_t *b = f0->v;
  for (int i = 0; i < 5; i++) {
    _mm512_storeu_si512((void *)lanes, a->v[i]);
    for (int k = 0; k < 8; k++) b[k * stride + i] = lanes[k];
  }
}

X8 void fe8_select(fe8 *r, __mmask8 m, const fe8 *a) {
  for (int i = 0; i < 5; i++) r->v[i] = _mm512_mask_mov_epi64(r->v[i], m, a->v[i]);
}

/* lane k of u to r[k] */
X8 void ge8_store_p3(ge_p3 r[8], const ge8_p3 *u) {
  const size_t stride = sizeof(ge_p3) / sizeof(uint64_t); /* in limbs */
  fe8_store(&r[0].X, stride, &u->X);
  fe8_store(&r[0].Y, stride, &u->Y);
  fe8_store(&r[0].Z, stride, &u->Z);
  fe8_store(&r[0].T, stride, &u->T);
}

/* window i's digit of every lane's scalar */
X8 void digits8(__m512i dig[64], const int8_t e[8][64]) {
  for (int i = 0; i < 64; i++)
    dig[i] = _mm512_set_epi64(e[7][i], e[6][i], e[5][i], e[4][i], e[3][i], e[2][i], e[1][i], e[0][i]);
}

X8 void ge8_p3_to_cached(ge8_cached *r, const ge8_p3 *p, const fe8 *d2) {
  fe8_add(&r->YpX, &p->Y, &p->X);
  fe8_sub(&r->YmX, &p->Y, &p->X);
  r->Z = p->Z;
  fe8_mul(&r->T2d, &p->T, d2);
}

/* as ge_p2_dbl (ge.h) */
X8 void ge8_p2_dbl(ge8_p1p1 *r, const ge8_p2 *p) {
  fe8 a, b, c, t;
  fe8_sq(&a, &p->X);
  fe8_sq(&b, &p->Y);
  fe8_sq(&c, &p->Z);
  fe8_add(&c, &c, &c);
  fe8_add(&t, &p->X, &p->Y);
  fe8_sq(&t, &t);
  fe8_add(&r->Y, &a, &b);
  fe8_sub(&r->X, &r->Y, &t);
  fe8_sub(&r->Z, &a, &b);
  fe8_add(&r->T, &c, &r->Z);
}

/* as ge_add (ge.h) */
X8 void ge8_add(ge8_p1p1 *r, const ge8_p3 *p, const ge8_cached *q) {
  fe8 a, b, c, d, ypx, ymx;
  fe8_add(&ypx, &p->Y, &p->X);
  fe8_sub(&ymx, &p->Y, &p->X);
  fe8_mul(&a, &ymx, &q->YmX);
  fe8_mul(&b, &ypx, &q->YpX);
  fe8_mul(&c, &p->T, &q->T2d);
  fe8_mul(&d, &p->Z, &q->Z);
  fe8_add(&d, &d, &d);
  fe8_sub(&r->X, &b, &a);
  fe8_add(&r->Y, &b, &a);
  fe8_add(&r->Z, &d, &c);
  fe8_sub(&r->T, &d, &c);
}

X8 void ge8_p1p1_to_p2(ge8_p2 *r, const ge8_p1p1 *p) {
  fe8_mul(&r->X, &p->X, &p->T);
  fe8_mul(&r->Y, &p->Y, &p->Z);
  fe8_mul(&r->Z, &p->Z, &p->T);
}

X8 void ge8_p1p1_to_p3(ge8_p3 *r, const ge8_p1p1 *p) {
  fe8_mul(&r->X, &p->X, &p->T);
  fe8_mul(&r->Y, &p->Y, &p->Z);
  fe8_mul(&r->Z, &p->Z, &p->T);
  fe8_mul(&r->T, &p->X, &p->Y);
}

/* Per lane: the table entry |d| (identity for 0), negated where d < 0; masked moves over all eight
 * entries, as select_cached (ge.c) does with its masks. */
X8 void ge8_select(ge8_cached *r, const ge8_cached tab[8], __m512i d) {
  const __m512i z = _mm512_setzero_si512();
  const __mmask8 neg = _mm512_cmplt_epi64_mask(d, z);
  const __m512i abs = _mm512_abs_epi64(d);
  fe8_const(&r->YpX, 1);
  fe8_const(&r->YmX, 1);
  fe8_const(&r->Z, 1);
  fe8_const(&r->T2d, 0);
  for (int j = 0; j < 8; j++) {
    const __mmask8 m = _mm512_cmpeq_epi64_mask(abs, _mm512_set1_epi64(j + 1));
    fe8_select(&r->YpX, m, &tab[j].YpX);
    fe8_select(&r->YmX, m, &tab[j].YmX);
    fe8_select(&r->Z, m, &tab[j].Z);
    fe8_select(&r->T2d, m, &tab[j].T2d);
  }
  fe8 zero, nt, ypx = r->YpX;
  fe8_const(&zero, 0);
  fe8_sub(&nt, &zero, &r->T2d);
  fe8_select(&r->YpX, neg, &r->YmX);
  fe8_select(&r->YmX, neg, &ypx);
  fe8_select(&r->T2d, neg, &nt);
}

X8_NOINLINE void scalarmult_x8(ge_p3 r[8], const int8_t e[8][64], const ge_p3 p[8]) {
  ge8_p3 P, u;
  ge8_p2 q;
  ge8_p1p1 t;
  ge8_cached tab[8], c;
  fe8 d2;
  __m512i dig[64];

  digits8(dig, e);
  const size_t stride = sizeof(ge_p3) / sizeof(uint64_t); /* in limbs */
  fe8_load(&P.X, &p[0].X, stride);
  fe8_load(&P.Y, &p[0].Y, stride);
  fe8_load(&P.Z, &p[0].Z, stride);
  fe8_load(&P.T, &p[0].T, stride);
  fe8_carry1(&P.X);
  fe8_carry1(&P.Y);
  fe8_carry1(&P.Z);
  fe8_carry1(&P.T);
  fe8_set1(&d2, &FE_D2);

  /* tab[j] = (j+1) P */
  ge8_p3_to_cached(&tab[0], &P, &d2);
  q.X = P.X;
  q.Y = P.Y;
  q.Z = P.Z;
  ge8_p2_dbl(&t, &q);
  ge8_p1p1_to_p3(&u, &t);
  ge8_p3_to_cached(&tab[1], &u, &d2);
  for (int j = 2; j < 8; j++) {
    ge8_add(&t, &P, &tab[j - 1]);
    ge8_p1p1_to_p3(&u, &t);
    ge8_p3_to_cached(&tab[j], &u, &d2);
  }

  fe8_const(&u.X, 0);
  fe8_const(&u.Y, 1);
  fe8_const(&u.Z, 1);
  fe8_const(&u.T, 0);
  ge8_select(&c, tab, dig[63]);
  ge8_add(&t, &u, &c);
  ge8_p1p1_to_p2(&q, &t);
  for (int i = 62; i >= 0; i--) {
    ge8_p2_dbl(&t, &q);
    ge8_p1p1_to_p2(&q, &t);
    ge8_p2_dbl(&t, &q);
    ge8_p1p1_to_p2(&q, &t);
    ge8_p2_dbl(&t, &q);
    ge8_p1p1_to_p2(&q, &t);
    ge8_p2_dbl(&t, &q);
    ge8_p1p1_to_p3(&u, &t);
    ge8_select(&c, tab, dig[i]);
    ge8_add(&t, &u, &c);
    if (i > 0) ge8_p1p1_to_p2(&q, &t);
  }
  ge8_p1p1_to_p3(&u, &t);
  ge8_store_p3(r, &u);
  tsm_wipe(dig, sizeof dig);
  tsm_wipe(&c, sizeof c);
}

/* as ge_madd (ge.h), the affine operand given by its three coordinates */
X8 void ge8_madd(ge8_p1p1 *r, const ge8_p3 *p, const fe8 *ypx2, const fe8 *ymx2, const fe8 *xy2d2) {
  fe8 a, b, c, d, ypx, ymx;
  fe8_add(&ypx, &p->Y, &p->X);
  fe8_sub(&ymx, &p->Y, &p->X);
  fe8_mul(&a, &ymx, ymx2);
  fe8_mul(&b, &ypx, ypx2);
  fe8_mul(&c, &p->T, xy2d2);
  fe8_add(&d, &p->Z, &p->Z);
  fe8_sub(&r->X, &b, &a);
  fe8_add(&r->Y, &b, &a);
  fe8_add(&r->Z, &d, &c);
  fe8_sub(&r->T, &d, &c);
}

/* Per lane: entry |d| of a shared eight-entry niels table (identity for 0), negated where d < 0;
 * every entry is broadcast and moved in under the lane mask, as select_niels (ge.c) scans them. */
X8 void ge8_select_niels(fe8 *ypx, fe8 *ymx, fe8 *xy2d, const ge_niels tab[8], __m512i d) {
  const __mmask8 neg = _mm512_cmplt_epi64_mask(d, _mm512_setzero_si512());
  const __m512i abs = _mm512_abs_epi64(d);
  fe8_const(ypx, 1);
  fe8_const(ymx, 1);
  fe8_const(xy2d, 0);
  for (int j = 0; j < 8; j++) {
    const __mmask8 m = _mm512_cmpeq_epi64_mask(abs, _mm512_set1_epi64(j + 1));
    for (int i = 0; i < 5; i++) {
      ypx->v[i] = _mm512_mask_mov_epi64(ypx->v[i], m, _mm512_set1_epi64((long long)tab[j].ypx.v[i]));
      ymx->v[i] = _mm512_mask_mov_epi64(ymx->v[i], m, _mm512_set1_epi64((long long)tab[j].ymx.v[i]));
      xy2d->v[i] = _mm512_mask_mov_epi64(xy2d->v[i], m, _mm512_set1_epi64((long long)tab[j].xy2d.v[i]));
    }
  }
  fe8 zero, nxy, t = *ypx;
  fe8_const(&zero, 0);
  fe8_sub(&nxy, &zero, xy2d);
  fe8_select(ypx, neg, ymx);
  fe8_select(ymx, neg, &t);
  fe8_select(xy2d, neg, &nxy);
}

/* s_k * G in eight lanes: window_walk's passes (ge.c) over G's table, the odd windows, r *= 16, the
 * even windows. */
X8_NOINLINE void scalarmult_base_x8(ge_p3 r[8], const int8_t e[8][64]) {
  const ge_niels *tab = tsm_ge_base_table();
  ge8_p3 u;
  ge8_p2 q;
  ge8_p1p1 t;
  fe8 ypx, ymx, xy2d;
  __m512i dig[64];

  digits8(dig, e);
  fe8_const(&u.X, 0);
  fe8_const(&u.Y, 1);
  fe8_const(&u.Z, 1);
  fe8_const(&u.T, 0);
  for (int pass = 1; pass >= 0; pass--) {
    for (int i = pass; i < 64; i += 2) {
      ge8_select_niels(&ypx, &ymx, &xy2d, &tab[8 * (i / 2)], dig[i]);
      ge8_madd(&t, &u, &ypx, &ymx, &xy2d);
      ge8_p1p1_to_p3(&u, &t);
    }
    if (pass == 1) {
      q.X = u.X;
      q.Y = u.Y;
      q.Z = u.Z;
      for (int k = 0; k < 3; k++) {
        ge8_p2_dbl(&t, &q);
        ge8_p1p1_to_p2(&q, &t);
      }
      ge8_p2_dbl(&t, &q);
      ge8_p1p1_to_p3(&u, &t);
    }
  }
  ge8_store_p3(r, &u);
  tsm_wipe(dig, sizeof dig);
  tsm_wipe(&ypx, sizeof ypx);
  tsm_wipe(&ymx, sizeof ymx);
  tsm_wipe(&xy2d, sizeof xy2d);
}

static int x8_state = -1; /* -1 unknown, 0 no, 1 yes */

int tsm_ge_x8_available(void) {
  if (x8_state < 0) {
    const char *off = getenv("TSMONERO_NO_AVX512");
    __builtin_cpu_init();
    x8_state = !(off && off[0] && strcmp(off, "0") != 0) && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512ifma");
  }
  return x8_state;
}
#else
int tsm_ge_x8_available(void) { return 0; }
#endif

void tsm_ge_scalarmult_batch(ge_p3 *r, const uint8_t *s, const ge_p3 *p, size_t n) {
#ifdef TSM_HAVE_X8
  if (n >= 2 && tsm_ge_x8_available()) {
    int8_t e[8][64];
    ge_p3 in[8], out[8];
    size_t at = 0;
    /* a lone pair costs half of an eight-lane pass alone: it goes to tsm_ge_scalarmult below */
    while (n - at >= 2) {
      const size_t m = n - at < 8 ? n - at : 8;
      for (size_t k = 0; k < 8; k++) {
        /* idle lanes repeat the first pair; their results are dropped */
        const size_t src = at + (k < m ? k : 0);
        tsm_recode_radix16(e[k], s + 32 * src);
        in[k] = p[src];
      }
      scalarmult_x8(out, (const int8_t(*)[64])e, in);
      for (size_t k = 0; k < m; k++) r[at + k] = out[k];
      at += m;
    }
    tsm_wipe(e, sizeof e);
    tsm_wipe(out, sizeof out);
    if (at < n) tsm_ge_scalarmult(&r[at], s + 32 * at, &p[at]);
    return;
  }
#endif
  for (size_t k = 0; k < n; k++) tsm_ge_scalarmult(&r[k], s + 32 * k, &p[k]);
}

void tsm_ge_scalarmult_base_batch(ge_p3 *r, const uint8_t *s, size_t n) {
#ifdef TSM_HAVE_X8
  if (n >= 2 && tsm_ge_x8_available()) {
    int8_t e[8][64];
    ge_p3 out[8];
    size_t at = 0;
    /* a lone scalar costs a quarter of an eight-lane pass alone: it goes to tsm_ge_scalarmult_base */
    while (n - at >= 2) {
      const size_t m = n - at < 8 ? n - at : 8;
      for (size_t k = 0; k < 8; k++) tsm_recode_radix16(e[k], s + 32 * (at + (k < m ? k : 0)));
      scalarmult_base_x8(out, (const int8_t(*)[64])e);
      for (size_t k = 0; k < m; k++) r[at + k] = out[k];
      at += m;
    }
    tsm_wipe(e, sizeof e);
    tsm_wipe(out, sizeof out);
    if (at < n) tsm_ge_scalarmult_base(&r[at], s + 32 * at);
    return;
  }
#endif
  for (size_t k = 0; k < n; k++) tsm_ge_scalarmult_base(&r[k], s + 32 * k);
}
