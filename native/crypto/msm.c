/* Multi-scalar multiplication sum(s_i P_i), variable time: Straus (interleaved width-5 NAF) for
 * small n, Pippenger's bucket method with signed digits for large n. Scalars are 256-bit
 * integers used as they are (no reduction mod l), so torsion components come out exactly. */
#include "msm.h"

#include <stdlib.h>
#include <string.h>

#define STRAUS_W 5
#define STRAUS_TAB (1 << (STRAUS_W - 2))

/* Below this many points Straus wins (measured crossover ~120 points on the dev machine). */
#ifndef TSM_PIPPENGER_MIN
#define TSM_PIPPENGER_MIN 128
#endif

static int straus(ge_p2 *r, const uint8_t *scalars, const ge_p3 *pts, size_t n) {
  ge_cached *tabs = malloc(n * STRAUS_TAB * sizeof(ge_cached));
  int8_t *nafs = malloc(n * TSM_WNAF_LEN);
  ge_p1p1 t;
  ge_p3 u;
  int top = -1;
  if (!tabs || !nafs) {
    free(tabs);
    free(nafs);
    return -1;
  }
  for (size_t j = 0; j < n; j++) {
    int tj = tsm_wnaf(nafs + j * TSM_WNAF_LEN, scalars + 32 * j, STRAUS_W);
    if (tj > top) top = tj;
    if (tj >= 0) tsm_odd_multiples(tabs + j * STRAUS_TAB, &pts[j], STRAUS_TAB);
  }
  ge_p2_0(r);
  for (int i = top; i >= 0; i--) {
    ge_p2_dbl(&t, r);
    for (size_t j = 0; j < n; j++) {
      int d = nafs[j * TSM_WNAF_LEN + i];
      if (!d) continue;
      ge_p1p1_to_p3(&u, &t);
      if (d > 0)
        ge_add(&t, &u, &tabs[j * STRAUS_TAB + d / 2]);
      else
        ge_sub(&t, &u, &tabs[j * STRAUS_TAB + (-d) / 2]);
    }
    ge_p1p1_to_p2(r, &t);
  }
  free(tabs);
  free(nafs);
  return 0;
}

/* Estimated cost, in field multiplications, of Pippenger with window c over n points. */
static double pippenger_cost(size_t n, int c) {
  double windows = 256 / c + 1;
  return windows * ((double)n * 7.0 + (double)(1u << (c - 1)) * 2.0 * 9.0 + c * 8.0);
}

static int pippenger_window(size_t n) {
  int best = 2;
  for (int c = 3; c <= 16; c++)
    if (pippenger_cost(n, c) < pippenger_cost(n, best)) best = c;
  return best;
}

/* p3 = identity + q for an affine niels point: (ypx - ymx, ypx + ymx, 2, ...) scaled by 2 so
 * that T = X Y / Z stays a plain product: X = 2(ypx - ymx) = 4x, Y = 2(ypx + ymx) = 4y, Z = 4,
 * T = (ypx - ymx)(ypx + ymx) = 4xy. */
static inline void niels_to_p3(ge_p3 *r, const ge_niels *q, int neg) {
  fe e, h;
  if (neg) {
    fe_sub(&e, &q->ymx, &q->ypx);
  } else {
    fe_sub(&e, &q->ypx, &q->ymx);
  }
  fe_add(&h, &q->ypx, &q->ymx);
  fe_carry(&h);
  fe_mul(&r->T, &e, &h);
  fe_add(&r->X, &e, &e);
  fe_carry(&r->X);
  fe_add(&r->Y, &h, &h);
  fe_carry(&r->Y);
  r->Z.v[0] = 4;
  r->Z.v[1] = r->Z.v[2] = r->Z.v[3] = r->Z.v[4] = 0;
}

/* acc (p3, valid when *have) += q (p3) */
static inline void acc_add_p3(ge_p3 *acc, int *have, const ge_p3 *q) {
  if (!*have) {
    *acc = *q;
    *have = 1;
  } else {
    ge_cached c;
    ge_p1p1 t;
    ge_p3_to_cached(&c, q);
    ge_add(&t, acc, &c);
    ge_p1p1_to_p3(acc, &t);
  }
}

static int pippenger(ge_p2 *r, const uint8_t *scalars, const ge_p3 *pts, size_t n, int c) {
  const int nwin = 256 / c + 1;
  const int nb = 1 << (c - 1); /* bucket k holds digit +-(k+1), |digit| <= 2^(c-1) */
  int16_t *digits = malloc(n * (size_t)nwin * sizeof(int16_t)); /* window-major */
  ge_niels *np = malloc(n * sizeof(ge_niels));
  ge_p3 *buckets = malloc((size_t)nb * sizeof(ge_p3));
  uint8_t *have = malloc((size_t)nb);
  ge_p3 acc;
  ge_p1p1 t;
  int acc_have = 0;
  if (!digits || !np || !buckets || !have) {
    free(digits);
    free(np);
    free(buckets);
    free(have);
    return -1;
  }
  /* points are decoded with Z = 1, so their niels form needs no inversion */
  for (size_t j = 0; j < n; j++) {
    fe_add(&np[j].ypx, &pts[j].Y, &pts[j].X);
    fe_carry(&np[j].ypx);
    fe_sub(&np[j].ymx, &pts[j].Y, &pts[j].X);
    fe_mul(&np[j].xy2d, &pts[j].T, &FE_D2);
  }
  /* signed base-2^c digits; the top window keeps its value (<= 2^(c-1)) unsigned */
  for (size_t j = 0; j < n; j++) {
    const uint8_t *s = scalars + 32 * j;
    int carry = 0;
    for (int w = 0; w < nwin; w++) {
      int v = 0;
      for (int k = c - 1; k >= 0; k--) {
        int bit = w * c + k;
        v = (v << 1) | (bit < 256 ? (s[bit >> 3] >> (bit & 7)) & 1 : 0);
      }
      v += carry;
      /* v <= 2^c; +2^(c-1) fits the last bucket, so only larger values borrow from above */
      if (w < nwin - 1 && v > nb) {
        v -= 1 << c;
        carry = 1;
      } else {
        carry = 0;
      }
      digits[(size_t)w * n + j] = (int16_t)v;
    }
  }
  for (int w = nwin - 1; w >= 0; w--) {
    if (acc_have) {
      ge_p2 q;
      ge_p3_to_p2(&q, &acc);
      for (int k = 0; k < c; k++) {
        ge_p2_dbl(&t, &q);
        if (k < c - 1)
          ge_p1p1_to_p2(&q, &t);
        else
          ge_p1p1_to_p3(&acc, &t);
      }
    }
    memset(have, 0, (size_t)nb);
    for (size_t j = 0; j < n; j++) {
      int d = digits[(size_t)w * n + j];
      if (!d) continue;
      int neg = d < 0;
      int b = (neg ? -d : d) - 1;
      if (!have[b]) {
        niels_to_p3(&buckets[b], &np[j], neg);
        have[b] = 1;
      } else if (neg) {
        ge_msub(&t, &buckets[b], &np[j]);
        ge_p1p1_to_p3(&buckets[b], &t);
      } else {
        ge_madd(&t, &buckets[b], &np[j]);
        ge_p1p1_to_p3(&buckets[b], &t);
      }
    }
    /* sum_k (k+1) bucket[k] = sum over k of the running suffix sums */
    {
      ge_p3 running, total;
      int rh = 0, th = 0;
      for (int b = nb - 1; b >= 0; b--) {
        if (have[b]) acc_add_p3(&running, &rh, &buckets[b]);
        if (rh) acc_add_p3(&total, &th, &running);
      }
      if (th) acc_add_p3(&acc, &acc_have, &total);
    }
  }
  if (acc_have)
    ge_p3_to_p2(r, &acc);
  else
    ge_p2_0(r);
  free(digits);
  free(np);
  free(buckets);
  free(have);
  return 0;
}

int tsm_msm_vartime(ge_p2 *r, const uint8_t *scalars, const ge_p3 *pts, size_t n, int algo) {
  if (n == 0) {
    ge_p2_0(r);
    return 0;
  }
  if (algo == TSM_MSM_STRAUS || (algo == TSM_MSM_AUTO && n < TSM_PIPPENGER_MIN)) return straus(r, scalars, pts, n);
  return pippenger(r, scalars, pts, n, pippenger_window(n));
}

int tsm_msm_bytes(uint8_t out[32], const uint8_t *scalars, const uint8_t *points, size_t n, int algo) {
  ge_p3 *pts;
  ge_p2 r;
  int rc;
  if (n == 0) {
    ge_p2_0(&r);
    tsm_ge_p2_tobytes(out, &r);
    return 0;
  }
  pts = malloc(n * sizeof(ge_p3));
  if (!pts) return -1;
  for (size_t j = 0; j < n; j++) {
    if (tsm_ge_frombytes(&pts[j], points + 32 * j) != 0) {
      free(pts);
      return 1;
    }
  }
  rc = tsm_msm_vartime(&r, scalars, pts, n, algo);
  free(pts);
  if (rc) return rc;
  tsm_ge_p2_tobytes(out, &r);
  return 0;
}
