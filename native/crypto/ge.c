/* Group operations on ed25519: encoding, Monero's hash-to-point map, precomputed base tables,
 * constant-time and variable-time scalar multiplication. */
#include "ge.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "keccak.h"
#include "sc.h"

/* ------------------------------------------------------------------------------------------ */
/* encoding                                                                                   */

/* Mirrors ge_frombytes_vartime (Monero src/crypto/crypto-ops.c): rejects y >= p (whatever the
 * sign bit), points off the curve, and x = 0 with the sign bit set. */
int tsm_ge_frombytes(ge_p3 *r, const uint8_t s[32]) {
  fe u, v, v3, vxx, chk, y2;
  const uint64_t w0 = fe_load64(s), w1 = fe_load64(s + 8), w2 = fe_load64(s + 16);
  const uint64_t w3 = fe_load64(s + 24) & 0x7fffffffffffffffULL;
  /* y >= p = 2^255 - 19 */
  if (w3 == 0x7fffffffffffffffULL && w2 == ~0ULL && w1 == ~0ULL && w0 >= 0xffffffffffffffedULL) return -1;

  fe_frombytes(&r->Y, s);
  fe_1(&r->Z);
  fe_sq(&y2, &r->Y);
  fe_sub(&u, &y2, &r->Z);      /* u = y^2 - 1 */
  fe_mul(&v, &y2, &FE_D);
  fe_add(&v, &v, &r->Z);       /* v = d y^2 + 1 (never 0: -1/d is not a square) */

  /* x = u v^3 (u v^7)^((p-5)/8), a square root of u/v up to a factor sqrt(-1) */
  fe_sq(&v3, &v);
  fe_mul(&v3, &v3, &v);        /* v^3 */
  fe_sq(&chk, &v3);
  fe_mul(&chk, &chk, &v);
  fe_mul(&chk, &chk, &u);      /* u v^7 */
  fe_pow22523(&chk, &chk);
  fe_mul(&chk, &chk, &v3);
  fe_mul(&r->X, &chk, &u);

  fe_sq(&vxx, &r->X);
  fe_mul(&vxx, &vxx, &v);
  if (!fe_eq(&vxx, &u)) {
    fe nu;
    fe_neg(&nu, &u);
    if (!fe_eq(&vxx, &nu)) return -1; /* u/v is not a square: not on the curve */
    fe_mul(&r->X, &r->X, &FE_SQRTM1);
  }
  if (fe_isneg(&r->X) != (s[31] >> 7)) {
    if (fe_iszero(&r->X)) return -1; /* x = 0 cannot carry the sign bit */
    fe_neg(&r->X, &r->X);
  }
  fe_mul(&r->T, &r->X, &r->Y);
  return 0;
}

static void encode_xyz(uint8_t s[32], const fe *X, const fe *Y, const fe *Z) {
  fe zi, x, y;
  fe_invert(&zi, Z);
  fe_mul(&x, X, &zi);
  fe_mul(&y, Y, &zi);
  fe_tobytes(s, &y);
  s[31] ^= (uint8_t)(fe_isneg(&x) << 7);
}

void tsm_ge_p3_tobytes(uint8_t s[32], const ge_p3 *p) { encode_xyz(s, &p->X, &p->Y, &p->Z); }
void tsm_ge_p2_tobytes(uint8_t s[32], const ge_p2 *p) { encode_xyz(s, &p->X, &p->Y, &p->Z); }

/* ------------------------------------------------------------------------------------------ */
/* Monero's hash-to-point                                                                     */

/* Constants of the map (Montgomery A = 486662); see native/crypto/README.md for their values. */
static const fe FE_MA = {{0x7fffffff892e7ULL, 0x7ffffffffffffULL, 0x7ffffffffffffULL, 0x7ffffffffffffULL, 0x7ffffffffffffULL}};
static const fe FE_MA2 = {{0x7ffc8db3de3c9ULL, 0x7ffffffffffffULL, 0x7ffffffffffffULL, 0x7ffffffffffffULL, 0x7ffffffffffffULL}};
static const fe FE_FFFB1 = {{0x0968acde3bdffULL, 0x2e8dab18e5babULL, 0x0139870b9afedULL, 0x2746fab1d645fULL, 0x018e04102529eULL}};
static const fe FE_FFFB2 = {{0x19b7c9f83650dULL, 0x73f75210405a4ULL, 0x7a68106b887f2ULL, 0x184b715d7241fULL, 0x32f9e1f5fba5dULL}};
static const fe FE_FFFB3 = {{0x37d8717302c66ULL, 0x1d4b2c8452b03ULL, 0x4368bb50093fdULL, 0x477dc4aa3201fULL, 0x674a110d14c20ULL}};
static const fe FE_FFFB4 = {{0x2e6fc494c6e67ULL, 0x6ebd816b6cf58ULL, 0x422f34446e40fULL, 0x2036c9f85bbc0ULL, 0x65bc0cfcef982ULL}};

/* Mirrors ge_fromfe_frombytes_vartime (Monero src/crypto/crypto-ops.c).
 *
 * The input is read as a 256-bit integer u (the top bit counts, unlike point decoding). With
 * w = 2u^2 + 1 and x = w^2 - 2A^2u^2 it is an Elligator-2-style map onto the Montgomery curve
 * v^2 = t^3 + A t^2 + t, converted to Edwards on the fly:
 *  - if w/x is a square (so the Montgomery t = -2Au^2 is valid), the Edwards x is
 *    sqrt(2A(A+2) w/x) * u (up to sign) with "sign" 0 and z = -2Au^2;
 *  - otherwise t = -A and Edwards x = sqrt(A(A+2) w/x * (+-sqrt(-1))) with "sign" 1.
 * Then Y/Z = (z - w)/(z + w) and X is scaled by Z. r = sqrt-candidate of w/x computed once, and
 * which of the four constants applies depends on r^2 x being w, -w, or +-sqrt(-1) w.
 * (z + w never vanishes: that would need u^2 = 1/(2(A-1)) or (A-1)/2, neither a square.) */
void tsm_ge_fromfe(ge_p2 *r, const uint8_t s[32]) {
  fe u, v, w, x, y, z, rx, t;
  int sign;
  fe_frombytes256(&u, s);
  fe_sq(&v, &u);
  fe_add(&v, &v, &v);          /* v = 2u^2 */
  fe_1(&w);
  fe_add(&w, &v, &w);          /* w = 2u^2 + 1 */
  fe_carry(&w);
  fe_sq(&x, &w);
  fe_mul(&y, &FE_MA2, &v);
  fe_add(&x, &x, &y);          /* x = w^2 - 2A^2u^2 */
  fe_carry(&x);

  /* rx = (w/x)^((p+3)/8) = w x^3 (w x^7)^((p-5)/8) */
  fe_sq(&t, &x);
  fe_mul(&t, &t, &x);          /* x^3 */
  fe_sq(&y, &t);
  fe_mul(&y, &y, &x);
  fe_mul(&y, &y, &w);          /* w x^7 */
  fe_pow22523(&y, &y);
  fe_mul(&y, &y, &t);
  fe_mul(&rx, &y, &w);

  fe_sq(&y, &rx);
  fe_mul(&x, &y, &x);          /* x := rx^2 x, one of w, -w, i w, -i w */
  if (fe_eq(&w, &x)) {
    fe_mul(&rx, &rx, &FE_FFFB2);
    fe_mul(&rx, &rx, &u);
    fe_mul(&z, &FE_MA, &v);    /* z = -2Au^2 */
    sign = 0;
  } else {
    fe_add(&y, &w, &x);
    if (fe_iszero(&y)) {
      fe_mul(&rx, &rx, &FE_FFFB1);
      fe_mul(&rx, &rx, &u);
      fe_mul(&z, &FE_MA, &v);
      sign = 0;
    } else {
      fe_mul(&x, &x, &FE_SQRTM1);
      if (fe_eq(&w, &x)) {
        fe_mul(&rx, &rx, &FE_FFFB4);
      } else {
        /* then w = -x (Monero asserts it; it always holds) */
        fe_mul(&rx, &rx, &FE_FFFB3);
      }
      z = FE_MA;               /* z = -A */
      sign = 1;
    }
  }
  if (fe_isneg(&rx) != sign) fe_neg(&rx, &rx);
  fe_add(&r->Z, &z, &w);
  fe_carry(&r->Z);
  fe_sub(&r->Y, &z, &w);
  fe_mul(&r->X, &rx, &r->Z);
}

void tsm_ge_mul8(ge_p3 *r, const ge_p2 *p) {
  ge_p1p1 t;
  ge_p2 q;
  ge_p2_dbl(&t, p);
  ge_p1p1_to_p2(&q, &t);
  ge_p2_dbl(&t, &q);
  ge_p1p1_to_p2(&q, &t);
  ge_p2_dbl(&t, &q);
  ge_p1p1_to_p3(r, &t);
}

/* hash_to_ec (Monero src/crypto/crypto.cpp): 8 * map(keccak(p)) */
void tsm_hash_to_ec(ge_p3 *r, const uint8_t p[32]) {
  uint8_t h[32];
  ge_p2 m;
  tsm_keccak256(h, p, 32);
  tsm_ge_fromfe(&m, h);
  tsm_ge_mul8(r, &m);
}

/* ------------------------------------------------------------------------------------------ */
/* precomputed tables, built once                                                             */

/* BASE[k][j] = (j+1) * 256^k * G for k = 0..31, j = 0..7 (signed radix-16 fixed windows,
 * windows 2k and 2k+1 share table k). */
static ge_niels BASE[32][8];
/* BASE_ODD[j] = (2j+1) * G, j = 0..63, for width-8 wNAF of the G scalar in vartime code. */
#define BASE_WNAF_W 8
static ge_niels BASE_ODD[1 << (BASE_WNAF_W - 2)];
static ge_p3 GP3; /* G itself */
/* HTAB[k][j] = (j+1) * 256^k * H for k = 0..8 (Monero's amount generator H, rct::H): the
 * radix-16 digits of a 64-bit amount, carry included, fit windows 0..17. */
#define HTAB_TABLES 9
static ge_niels HTAB[HTAB_TABLES][8];

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Batch conversion of points to affine niels form (one inversion for all). */
static void to_niels_batch(ge_niels *out, const ge_p3 *in, int n, fe *scratch) {
  /* scratch[i] = Z0 * ... * Zi */
  fe acc, inv, zi, x, y;
  scratch[0] = in[0].Z;
  for (int i = 1; i < n; i++) fe_mul(&scratch[i], &scratch[i - 1], &in[i].Z);
  fe_invert(&inv, &scratch[n - 1]);
  for (int i = n - 1; i >= 0; i--) {
    if (i > 0) {
      fe_mul(&zi, &inv, &scratch[i - 1]);
      fe_mul(&inv, &inv, &in[i].Z);
    } else {
      zi = inv;
    }
    fe_mul(&x, &in[i].X, &zi);
    fe_mul(&y, &in[i].Y, &zi);
    fe_add(&out[i].ypx, &y, &x);
    fe_carry(&out[i].ypx);
    fe_sub(&out[i].ymx, &y, &x);
    fe_mul(&acc, &x, &y);
    fe_mul(&out[i].xy2d, &acc, &FE_D2);
  }
}

/* pts[8k + j] = (j+1) * 256^k * P for k < tables: the points of a fixed-window table (before
 * to_niels_batch), as BASE holds them for G */
static void window_points(ge_p3 *pts, const ge_p3 *p, int tables) {
  ge_p3 P = *p;
  ge_cached Pc;
  ge_p1p1 t;
  for (int k = 0; k < tables; k++) {
    ge_p3_to_cached(&Pc, &P);
    pts[8 * k] = P;
    for (int j = 1; j < 8; j++) {
      ge_add(&t, &pts[8 * k + j - 1], &Pc);
      ge_p1p1_to_p3(&pts[8 * k + j], &t);
    }
    /* P *= 256 */
    for (int i = 0; i < 8; i++) {
      ge_p3_dbl(&t, &P);
      ge_p1p1_to_p3(&P, &t);
    }
  }
}

static void init_tables(void) {
  /* G: y = 4/5, x even */
  static const uint8_t GB[32] = {0x58, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                                 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                                 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66};
  static ge_p3 pts[32 * 8];
  static fe scratch[32 * 8];
  ge_p1p1 t;
  tsm_ge_frombytes(&GP3, GB);

  window_points(pts, &GP3, 32);
  to_niels_batch(&BASE[0][0], pts, 32 * 8, scratch);

  /* H: the same windows as G's, for the amount of a commitment */
  {
    static const uint8_t HB[32] = {0x8b, 0x65, 0x59, 0x70, 0x15, 0x37, 0x99, 0xaf, 0x2a, 0xea, 0xdc,
                                   0x9f, 0xf1, 0xad, 0xd0, 0xea, 0x6c, 0x72, 0x51, 0xd5, 0x41, 0x54,
                                   0xcf, 0xa9, 0x2c, 0x17, 0x3a, 0x0d, 0xd3, 0x9c, 0x1f, 0x94};
    ge_p3 H;
    tsm_ge_frombytes(&H, HB);
    window_points(pts, &H, HTAB_TABLES);
    to_niels_batch(&HTAB[0][0], pts, HTAB_TABLES * 8, scratch);
  }

  /* odd multiples of G */
  {
    const int n = 1 << (BASE_WNAF_W - 2);
    ge_p3 G2;
    ge_cached G2c;
    ge_p3_dbl(&t, &GP3);
    ge_p1p1_to_p3(&G2, &t);
    ge_p3_to_cached(&G2c, &G2);
    pts[0] = GP3;
    for (int j = 1; j < n; j++) {
      ge_add(&t, &pts[j - 1], &G2c);
      ge_p1p1_to_p3(&pts[j], &t);
    }
    to_niels_batch(BASE_ODD, pts, n, scratch);
  }
}

void tsm_ge_init(void) { pthread_once(&init_once, init_tables); }

/* ------------------------------------------------------------------------------------------ */
/* constant-time helpers                                                                      */

/* all ones when a == b (a, b small non-negative) */
static inline uint64_t ct_eq_mask(uint32_t a, uint32_t b) { return -(uint64_t)((((uint64_t)(a ^ b)) - 1) >> 63); }

/* t = sign(b) * |b| * (table entry), b in [-8, 8], scanning all eight entries */
static inline void select_niels(ge_niels *t, const ge_niels tab[8], int b) {
  const uint32_t neg = (uint32_t)b >> 31;
  const uint32_t babs = (uint32_t)((b ^ -(int)neg) + (int)neg);
  uint64_t *o = (uint64_t *)t;
  ge_niels_0(t);
  for (uint32_t j = 0; j < 8; j++) {
    const uint64_t m = ct_eq_mask(babs, j + 1);
    const uint64_t *e = (const uint64_t *)&tab[j];
    for (int k = 0; k < 15; k++) o[k] ^= (o[k] ^ e[k]) & m;
  }
  /* negate: swap y+x / y-x, negate 2dxy */
  {
    const uint64_t m = -(uint64_t)neg;
    fe nxy;
    for (int k = 0; k < 5; k++) {
      uint64_t d = (t->ypx.v[k] ^ t->ymx.v[k]) & m;
      t->ypx.v[k] ^= d;
      t->ymx.v[k] ^= d;
    }
    fe_neg(&nxy, &t->xy2d);
    fe_cmov(&t->xy2d, &nxy, m);
  }
}

static inline void select_cached(ge_cached *t, const ge_cached tab[8], int b) {
  const uint32_t neg = (uint32_t)b >> 31;
  const uint32_t babs = (uint32_t)((b ^ -(int)neg) + (int)neg);
  uint64_t *o = (uint64_t *)t;
  ge_cached_0(t);
  for (uint32_t j = 0; j < 8; j++) {
    const uint64_t m = ct_eq_mask(babs, j + 1);
    const uint64_t *e = (const uint64_t *)&tab[j];
    for (int k = 0; k < 20; k++) o[k] ^= (o[k] ^ e[k]) & m;
  }
  {
    const uint64_t m = -(uint64_t)neg;
    fe nt;
    for (int k = 0; k < 5; k++) {
      uint64_t d = (t->YpX.v[k] ^ t->YmX.v[k]) & m;
      t->YpX.v[k] ^= d;
      t->YmX.v[k] ^= d;
    }
    fe_neg(&nt, &t->T2d);
    fe_cmov(&t->T2d, &nt, m);
  }
}

/* Signed radix-16 digits as Monero's ge_scalarmult and ge_scalarmult_base form them
 * (crypto-ops.c): e[0..62] in [-8, 7] and e[63] = top nibble + carry in [0, 16]. Their table
 * lookups only know multiples 1..8, so a top digit above 8 (scalars >= 2^255 + 2^251 or so)
 * contributes nothing: it is zeroed here, which reproduces Monero's results for every input.
 * Below 2^255 the digits stand for the scalar exactly. Constant time. */
static void recode_radix16(int8_t e[64], const uint8_t s[32]) {
  int carry = 0;
  for (int i = 0; i < 63; i++) {
    int x = ((s[i >> 1] >> (4 * (i & 1))) & 15) + carry;
    carry = (x + 8) >> 4;
    e[i] = (int8_t)(x - (carry << 4));
  }
  {
    int top = (s[31] >> 4) + carry;
    int keep = -(int)((unsigned)(top - 9) >> 31); /* all ones when top <= 8 */
    e[63] = (int8_t)(top & keep);
  }
}

void tsm_recode_radix16(int8_t e[64], const uint8_t s[32]) { recode_radix16(e, s); }

/* ------------------------------------------------------------------------------------------ */
/* s*G                                                                                         */

/* The fixed-window walk of radix-16 digits e over a table laid out as BASE (tab[8k + j] =
 * (j+1)·256^k·P): the odd windows, r *= 16, the even windows. With amount digits a, HTAB's
 * windows ride along in the same passes (tsm_commit). Constant time in the digits. Serves
 * tsm_ge_scalarmult_base, tsm_commit and tsm_ge_scalarmult_many. */
static void window_walk(ge_p3 *r, const ge_niels *tab, const int8_t e[64], const int8_t *a) {
  ge_p1p1 t;
  ge_p2 q;
  ge_niels n;
  ge_p3_0(r);
  for (int pass = 1; pass >= 0; pass--) {
    for (int i = pass; i < 64; i += 2) {
      select_niels(&n, &tab[8 * (i / 2)], e[i]);
      ge_madd(&t, r, &n);
      ge_p1p1_to_p3(r, &t);
      if (a && i / 2 < HTAB_TABLES) {
        select_niels(&n, HTAB[i / 2], a[i]);
        ge_madd(&t, r, &n);
        ge_p1p1_to_p3(r, &t);
      }
    }
    if (pass == 1) {
      /* r *= 16 between the odd and the even windows: one doubling, then tsm_ge_mul8 */
      ge_p3_dbl(&t, r);
      ge_p1p1_to_p2(&q, &t);
      tsm_ge_mul8(r, &q);
    }
  }
}

void tsm_ge_scalarmult_base(ge_p3 *r, const uint8_t s[32]) {
  int8_t e[64];
  recode_radix16(e, s);
  window_walk(r, &BASE[0][0], e, NULL);
  tsm_wipe(e, sizeof e);
}

/* mask*G + amount*H (rct::commit), constant time in both: tsm_ge_scalarmult_base's walk over
 * BASE with the amount's 17 radix-16 digits added from HTAB in the same passes (the four doublings
 * are shared), 81 mixed additions in all instead of a double scalar multiplication. */
void tsm_commit(ge_p3 *r, uint64_t amount, const uint8_t mask[32]) {
  int8_t e[64], a[64];
  uint8_t amt[32] = {0};
  for (int i = 0; i < 8; i++) amt[i] = (uint8_t)(amount >> (8 * i));
  recode_radix16(e, mask);
  recode_radix16(a, amt);
  window_walk(r, &BASE[0][0], e, a);
  tsm_wipe(e, sizeof e);
  tsm_wipe(a, sizeof a);
  tsm_wipe(amt, sizeof amt);
}

/* ------------------------------------------------------------------------------------------ */
/* s*P, constant time (role of ge_scalarmult in Monero src/crypto/crypto-ops.c)                */

void tsm_ge_scalarmult(ge_p3 *r, const uint8_t s[32], const ge_p3 *p) {
  int8_t e[64];
  ge_cached tab[8], c;
  ge_p1p1 t;
  ge_p2 q;
  ge_p3 u;

  recode_radix16(e, s);
  /* tab[j] = (j+1) P */
  ge_p3_to_cached(&tab[0], p);
  ge_p3_dbl(&t, p);
  ge_p1p1_to_p3(&u, &t);
  ge_p3_to_cached(&tab[1], &u);
  for (int j = 2; j < 8; j++) {
    ge_add(&t, p, &tab[j - 1]);
    ge_p1p1_to_p3(&u, &t);
    ge_p3_to_cached(&tab[j], &u);
  }

  ge_p3_0(&u);
  select_cached(&c, tab, e[63]);
  ge_add(&t, &u, &c);
  ge_p1p1_to_p2(&q, &t);
  for (int i = 62; i >= 0; i--) {
    ge_p2_dbl(&t, &q);
    ge_p1p1_to_p2(&q, &t);
    ge_p2_dbl(&t, &q);
    ge_p1p1_to_p2(&q, &t);
    ge_p2_dbl(&t, &q);
    ge_p1p1_to_p2(&q, &t);
    ge_p2_dbl(&t, &q);
    ge_p1p1_to_p3(&u, &t);
    select_cached(&c, tab, e[i]);
    ge_add(&t, &u, &c);
    if (i > 0)
      ge_p1p1_to_p2(&q, &t);
    else
      ge_p1p1_to_p3(r, &t);
  }
  tsm_wipe(e, sizeof e);
}

/* ------------------------------------------------------------------------------------------ */
/* s_i*P for many s_i and one P, constant time in the scalars                                  */

/* P's fixed-window table, as G's BASE: tab[8k + j] = (j+1) * 256^k * P (256 affine niels points,
 * one inversion for all); then each product walks it as tsm_ge_scalarmult_base walks BASE: 64 mixed
 * additions and 4 doublings instead of tsm_ge_scalarmult's 252 doublings and 64 additions. The
 * radix-16 digits are tsm_ge_scalarmult's, so every result is exactly its result. 0 ok, -1 out of memory. */
int tsm_ge_scalarmult_many(ge_p3 *out, const uint8_t *secs, size_t n, const ge_p3 *p) {
  ge_niels *tab = malloc(sizeof(ge_niels) * 256);
  ge_p3 *pts = malloc(sizeof(ge_p3) * 256);
  fe *scratch = malloc(sizeof(fe) * 256);
  int8_t e[64];
  if (!tab || !pts || !scratch) {
    free(tab);
    free(pts);
    free(scratch);
    return -1;
  }
  window_points(pts, p, 32);
  to_niels_batch(tab, pts, 256, scratch);
  for (size_t m = 0; m < n; m++) {
    recode_radix16(e, secs + 32 * m);
    window_walk(&out[m], tab, e, NULL);
  }
  tsm_wipe(e, sizeof e);
  free(tab);
  free(pts);
  free(scratch);
  return 0;
}

/* Encodes n points with one field inversion for all (Montgomery's trick); scratch holds n fe. */
void tsm_ge_p3_tobytes_many(uint8_t *s, const ge_p3 *p, size_t n, fe *scratch) {
  fe inv, zi, x, y;
  if (n == 0) return;
  scratch[0] = p[0].Z;
  for (size_t i = 1; i < n; i++) fe_mul(&scratch[i], &scratch[i - 1], &p[i].Z);
  fe_invert(&inv, &scratch[n - 1]);
  for (size_t i = n; i-- > 0;) {
    if (i > 0) {
      fe_mul(&zi, &inv, &scratch[i - 1]);
      fe_mul(&inv, &inv, &p[i].Z);
    } else {
      zi = inv;
    }
    fe_mul(&x, &p[i].X, &zi);
    fe_mul(&y, &p[i].Y, &zi);
    fe_tobytes(s + 32 * i, &y);
    s[32 * i + 31] ^= (uint8_t)(fe_isneg(&x) << 7);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* variable time                                                                              */

/* Width-w NAF: s = sum naf[i] 2^i, each non-zero digit odd with |digit| < 2^(w-1) and followed
 * by at least w-1 zeros; the top digit sits at index <= 255 + w. */
int tsm_wnaf(int8_t naf[TSM_WNAF_LEN], const uint8_t s[32], int w) {
  const int len = TSM_WNAF_LEN;
  int top = -1, carry = 0, pos = 0;
  memset(naf, 0, (size_t)len);
  while (pos < 256 || (carry && pos < len)) {
    int bit = pos < 256 ? (s[pos >> 3] >> (pos & 7)) & 1 : 0;
    if (bit == carry) {
      pos++;
      continue;
    }
    /* window of w bits starting at pos, plus the carry */
    int win = 0;
    for (int k = w - 1; k >= 0; k--) {
      int b = pos + k < 256 ? (s[(pos + k) >> 3] >> ((pos + k) & 7)) & 1 : 0;
      win = (win << 1) | b;
    }
    win += carry;
    if (win & (1 << (w - 1))) {
      naf[pos] = (int8_t)(win - (1 << w));
      carry = 1;
    } else {
      naf[pos] = (int8_t)win;
      carry = 0;
    }
    top = pos;
    pos += w;
  }
  return top;
}

/* Monero's vartime double multiplications recode both scalars with ref10's greedy sliding
 * window (`slide` in crypto-ops.c): scanning upwards, each set bit absorbs the set bits of the
 * next six positions while the odd digit stays within [-15, 15]; when absorbing would overflow
 * it subtracts instead and adds 1 at that position, rippling through the run of ones above. A
 * ripple that runs off bit 255 is dropped, so the digits then stand for s - 2^256. This tells
 * whether that happens (only possible when bit 255 is set). Variable time. */
static int slide_loses_carry(const uint8_t s[32]) {
  int8_t d[256];
  if (!(s[31] & 0x80)) return 0;
  for (int i = 0; i < 256; i++) d[i] = (s[i >> 3] >> (i & 7)) & 1;
  for (int i = 0; i < 256; i++) {
    if (!d[i]) continue;
    for (int b = 1; b <= 6 && i + b < 256; b++) {
      int up = d[i + b] << b;
      if (!up) continue;
      if (d[i] + up <= 15) {
        d[i] = (int8_t)(d[i] + up);
        d[i + b] = 0;
      } else if (d[i] - up >= -15) {
        int k = i + b;
        d[i] = (int8_t)(d[i] - up);
        while (k < 256 && d[k]) d[k++] = 0;
        if (k == 256) return 1;
        d[k] = 1;
      } else {
        break;
      }
    }
  }
  return 0;
}

/* Digits for Monero's vartime double multiplication of s: the wNAF of s, or of s - 2^256 when
 * Monero's recoding drops its top carry (see slide_loses_carry). */
static int monero_vartime_digits(int8_t naf[TSM_WNAF_LEN], const uint8_t s[32], int w) {
  if (!slide_loses_carry(s)) return tsm_wnaf(naf, s, w);
  /* s - 2^256 = -(2^256 - s) */
  uint8_t neg[32];
  int c = 1, top;
  for (int i = 0; i < 32; i++) {
    c += (uint8_t)~s[i];
    neg[i] = (uint8_t)c;
    c >>= 8;
  }
  top = tsm_wnaf(naf, neg, w);
  for (int i = 0; i <= top; i++) naf[i] = (int8_t)-naf[i];
  return top;
}

/* tab[j] = (2j+1) P for j < n */
void tsm_odd_multiples(ge_cached *tab, const ge_p3 *p, int n) {
  ge_p1p1 t;
  ge_p3 p2, u;
  ge_cached p2c;
  ge_p3_to_cached(&tab[0], p);
  if (n == 1) return;
  ge_p3_dbl(&t, p);
  ge_p1p1_to_p3(&p2, &t);
  ge_p3_to_cached(&p2c, &p2);
  u = *p;
  for (int j = 1; j < n; j++) {
    ge_add(&t, &u, &p2c);
    ge_p1p1_to_p3(&u, &t);
    ge_p3_to_cached(&tab[j], &u);
  }
}

#define VT_W 5 /* wNAF width for variable points: 8 odd multiples */

void tsm_ge_double_scalarmult_base_vartime(ge_p2 *r, const uint8_t a[32], const ge_p3 *p, const uint8_t b[32]) {
  int8_t an[TSM_WNAF_LEN], bn[TSM_WNAF_LEN];
  ge_cached ptab[1 << (VT_W - 2)];
  ge_p1p1 t;
  ge_p3 u;
  int i, ta, tb;

  ta = monero_vartime_digits(an, a, VT_W);
  tb = monero_vartime_digits(bn, b, BASE_WNAF_W);
  i = ta > tb ? ta : tb;
  ge_p2_0(r);
  if (i < 0) return;
  tsm_odd_multiples(ptab, p, 1 << (VT_W - 2));

  for (; i >= 0; i--) {
    ge_p2_dbl(&t, r);
    if (an[i] || bn[i]) {
      ge_p1p1_to_p3(&u, &t);
      if (an[i] > 0) {
        ge_add(&t, &u, &ptab[an[i] / 2]);
      } else if (an[i] < 0) {
        ge_sub(&t, &u, &ptab[-an[i] / 2]);
      }
      if (bn[i]) {
        if (an[i]) ge_p1p1_to_p3(&u, &t);
        if (bn[i] > 0)
          ge_madd(&t, &u, &BASE_ODD[bn[i] / 2]);
        else
          ge_msub(&t, &u, &BASE_ODD[-bn[i] / 2]);
      }
    }
    ge_p1p1_to_p2(r, &t);
  }
}

void tsm_ge_double_scalarmult_vartime(ge_p2 *r, const uint8_t a[32], const ge_p3 *p, const uint8_t b[32],
                                      const ge_p3 *q) {
  int8_t an[TSM_WNAF_LEN], bn[TSM_WNAF_LEN];
  ge_cached ptab[1 << (VT_W - 2)], qtab[1 << (VT_W - 2)];
  ge_p1p1 t;
  ge_p3 u;
  int i, ta, tb;

  ta = monero_vartime_digits(an, a, VT_W);
  tb = monero_vartime_digits(bn, b, VT_W);
  i = ta > tb ? ta : tb;
  ge_p2_0(r);
  if (i < 0) return;
  tsm_odd_multiples(ptab, p, 1 << (VT_W - 2));
  tsm_odd_multiples(qtab, q, 1 << (VT_W - 2));

  for (; i >= 0; i--) {
    ge_p2_dbl(&t, r);
    if (an[i] || bn[i]) {
      ge_p1p1_to_p3(&u, &t);
      if (an[i] > 0) {
        ge_add(&t, &u, &ptab[an[i] / 2]);
      } else if (an[i] < 0) {
        ge_sub(&t, &u, &ptab[-an[i] / 2]);
      }
      if (bn[i]) {
        if (an[i]) ge_p1p1_to_p3(&u, &t);
        if (bn[i] > 0)
          ge_add(&t, &u, &qtab[bn[i] / 2]);
        else
          ge_sub(&t, &u, &qtab[-bn[i] / 2]);
      }
    }
    ge_p1p1_to_p2(r, &t);
  }
}

const ge_p3 *tsm_ge_base(void) { return &GP3; }

const ge_niels *tsm_ge_base_table(void) { return &BASE[0][0]; }
