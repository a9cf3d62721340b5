/* Bulletproofs+ proving in the kernel (the math of bulletproof_plus_PROVE in Monero's
 * src/ringct/bulletproofs_plus.cc, v0.18; the portable version is
 * src/crypto/ringct/bulletproof-plus.ts, which must give the same bytes for the same nonces).
 *
 * What makes it fast, besides staying in C:
 *  - the generator vectors are kept decoded (ge_p3) through all rounds: no point is compressed
 *    or decompressed until L, R, A, A1 and B are written out;
 *  - each round's fold G'[i] = a*G[i] + b*G[n+i] is done as c*(G[i] + (b/a)*G[n+i]) with the
 *    common factor c carried as a scalar (fG, fH) and folded into the next multi-exponentiation's
 *    scalars: one variable-base multiplication per point instead of two, the recoding of b/a
 *    shared by the whole round. The group elements differ from the textbook prover's by those
 *    factors only; L, R and A1 are the same points.
 *
 * Like Monero's prover (which uses its variable-time multiexp for A and the folds), this is not
 * constant time in the amounts or masks: it runs in the sender's own process, on its own data. */
#include "bpplus.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "monero.h"
#include "msm.h"
#include "napi-glue.h"
#include "sc.h"

#define BPP_N 64
#define BPP_LOG_N 6
#define BPP_MAX_M 16
#define FOLD_W 5
#define FOLD_TAB (1 << (FOLD_W - 2))

typedef uint8_t sc32[32];

static const uint8_t SC_ZERO[32] = {0};
static const uint8_t SC_ONE[32] = {1};
static const uint8_t SC_TWO[32] = {2};
static const uint8_t SC_EIGHT[32] = {8};

size_t tsm_bpp_log_mn(size_t m) {
  size_t log_m = 0;
  while (((size_t)1 << log_m) <= BPP_MAX_M && ((size_t)1 << log_m) < m) log_m++;
  return log_m + BPP_LOG_N;
}

size_t tsm_bpp_proof_size(size_t m) { return 32 * (m + 6 + 2 * tsm_bpp_log_mn(m)); }

size_t tsm_bpp_nonce_count(size_t m) { return 1 + 2 * tsm_bpp_log_mn(m) + 4; }

/* hash_to_scalar(a ‖ b ‖ c) for 2 or 3 keys (the transcript updates) */
static void hash_keys(uint8_t out[32], const uint8_t *a, const uint8_t *b, const uint8_t *c) {
  uint8_t buf[96];
  size_t n = 64;
  memcpy(buf, a, 32);
  memcpy(buf + 32, b, 32);
  if (c) {
    memcpy(buf + 64, c, 32);
    n = 96;
  }
  tsm_hash_to_scalar(out, buf, n);
}

/* out = P + k*Q, k recoded once per round (naf/top). */
static void fold_one(ge_p3 *out, const ge_p3 *P, const ge_p3 *Q, const int8_t *naf, int top) {
  ge_cached tab[FOLD_TAB], pc;
  ge_p1p1 t;
  ge_p2 r;
  ge_p3 u;
  if (top < 0) {
    *out = *P;
    return;
  }
  tsm_odd_multiples(tab, Q, FOLD_TAB);
  ge_p2_0(&r);
  for (int i = top;; i--) {
    ge_p2_dbl(&t, &r);
    if (naf[i] > 0) {
      ge_p1p1_to_p3(&u, &t);
      ge_add(&t, &u, &tab[naf[i] / 2]);
    } else if (naf[i] < 0) {
      ge_p1p1_to_p3(&u, &t);
      ge_sub(&t, &u, &tab[-naf[i] / 2]);
    }
    if (i == 0) break;
    ge_p1p1_to_p2(&r, &t);
  }
  ge_p1p1_to_p3(&u, &t);
  ge_p3_to_cached(&pc, P);
  ge_add(&t, &u, &pc);
  ge_p1p1_to_p3(out, &t);
}

/* Z = 1 for n points with one inversion (Montgomery's trick): the multiexp's Pippenger path reads
 * points as decoded ones, with Z = 1 (msm.c). scratch holds n field elements. */
static void normalize(ge_p3 *P, size_t n, fe *scratch) {
  fe inv, zi;
  if (n == 0) return;
  scratch[0] = P[0].Z;
  for (size_t i = 1; i < n; i++) fe_mul(&scratch[i], &scratch[i - 1], &P[i].Z);
  fe_invert(&inv, &scratch[n - 1]);
  for (size_t i = n; i-- > 0;) {
    if (i > 0) {
      fe_mul(&zi, &inv, &scratch[i - 1]);
      fe_mul(&inv, &inv, &P[i].Z);
    } else {
      zi = inv;
    }
    fe_mul(&P[i].X, &P[i].X, &zi);
    fe_mul(&P[i].Y, &P[i].Y, &zi);
    fe_mul(&P[i].T, &P[i].T, &zi);
    fe_1(&P[i].Z);
  }
}

/* S[i] ← S[i] + k*S[n+i] for i < n, left with Z = 1 */
static void fold_vector(ge_p3 *S, size_t n, const uint8_t k[32], fe *scratch) {
  int8_t naf[TSM_WNAF_LEN];
  int top = tsm_wnaf(naf, k, FOLD_W);
  for (size_t i = 0; i < n; i++) fold_one(&S[i], &S[i], &S[n + i], naf, top);
  normalize(S, n, scratch);
}

/* Two independent pieces of work, on two threads when allowed and worth it (the second on a
 * short-lived pthread, the first on the caller's), else one after the other. */
typedef struct {
  void (*fn)(void *);
  void *arg;
} job;

static void *run_job(void *p) {
  job *j = p;
  j->fn(j->arg);
  return NULL;
}

static void par2(int threads, void (*f1)(void *), void *a1, void (*f2)(void *), void *a2) {
  pthread_t th;
  job j = {f2, a2};
  if (threads > 1 && pthread_create(&th, NULL, run_job, &j) == 0) {
    f1(a1);
    pthread_join(th, NULL);
  } else {
    f1(a1);
    f2(a2);
  }
}

typedef struct {
  uint8_t *out;
  const sc32 *sc;
  const ge_p3 *pts;
  size_t n;
  int rc;
} msm_job;

static void msm_run(void *p) {
  msm_job *j = p;
  ge_p2 r;
  j->rc = tsm_msm_vartime(&r, (const uint8_t *)j->sc, j->pts, j->n, TSM_MSM_AUTO);
  if (!j->rc) tsm_ge_p2_tobytes(j->out, &r);
}

typedef struct {
  ge_p3 *S;
  size_t n;
  const uint8_t *k;
  fe *scratch;
} fold_job;

static void fold_run(void *p) {
  fold_job *j = p;
  fold_vector(j->S, j->n, j->k, j->scratch);
}

/* below this many points per half, a thread costs more than it saves */
#define PAR_MIN 16

/* Σ a[i]·b[i]·y^(i+1), with ypow[j] = y^j (weighted_inner_product) */
static void wip(uint8_t out[32], const sc32 *a, const sc32 *b, const sc32 *ypow, size_t n, const uint8_t *amul) {
  uint8_t acc[32] = {0}, t[32];
  for (size_t i = 0; i < n; i++) {
    tsm_sc_mul(t, a[i], b[i]);
    if (amul) tsm_sc_mul(t, t, amul);
    tsm_sc_muladd(acc, t, ypow[i + 1], acc);
  }
  memcpy(out, acc, 32);
}

int tsm_bpp_prove(uint8_t *out, const uint8_t *prep, size_t prep_count, const uint8_t *amounts, const uint8_t *gammas,
                  size_t m, const uint8_t *nonces, const uint8_t h_bytes[32], const uint8_t transcript0[32], int threads) {
  size_t log_mn = tsm_bpp_log_mn(m), MN = (size_t)1 << log_mn, M = MN / BPP_N;
  uint8_t *V = out, *A = out + 32 * m, *A1 = A + 32, *B = A1 + 32, *r1 = B + 32, *s1 = r1 + 32, *d1 = s1 + 32;
  uint8_t *Lout = d1 + 32, *Rout = Lout + 32 * log_mn;
  uint8_t inv8[32], minus_inv8[32], t[32], t2[32], transcript[32], y[32], z[32], z2[32], yinv[32], alpha1[32];
  uint8_t fG[32], fH[32];
  const uint8_t *alpha = nonces;
  ge_p3 H, *Gs = NULL, *Hs = NULL, *pts = NULL, *pts2 = NULL;
  fe *zs = NULL, *zs2 = NULL;
  sc32 *aP = NULL, *bP = NULL, *ypow = NULL, *yinvpow = NULL, *d = NULL, *sc = NULL, *sc2 = NULL;
  int rc = -1;

  if (m == 0 || m > BPP_MAX_M || prep_count < 2 * MN) return -2;
  if (tsm_ge_frombytes(&H, h_bytes) != 0) return -2;

  Gs = malloc(MN * sizeof(ge_p3));
  Hs = malloc(MN * sizeof(ge_p3));
  pts = malloc((2 * MN + 2) * sizeof(ge_p3));
  aP = malloc(MN * sizeof(sc32));
  bP = malloc(MN * sizeof(sc32));
  ypow = malloc((MN + 2) * sizeof(sc32));
  yinvpow = malloc(MN * sizeof(sc32));
  d = malloc(MN * sizeof(sc32));
  sc = malloc((2 * MN + 2) * sizeof(sc32));
  zs = malloc(MN * sizeof(fe));
  zs2 = malloc(MN * sizeof(fe));
  pts2 = malloc((MN + 2) * sizeof(ge_p3));
  sc2 = malloc((MN + 2) * sizeof(sc32));
  if (!zs || !zs2 || !pts2 || !sc2 || !Gs || !Hs || !pts || !aP || !bP || !ypow || !yinvpow || !d || !sc) goto done;
  for (size_t i = 0; i < MN; i++) {
    memcpy(&Gs[i], prep + TSM_PREPARED_HEADER + (2 * i) * sizeof(ge_p3), sizeof(ge_p3));
    memcpy(&Hs[i], prep + TSM_PREPARED_HEADER + (2 * i + 1) * sizeof(ge_p3), sizeof(ge_p3));
  }
  tsm_sc_invert(inv8, SC_EIGHT);
  tsm_sc_sub(minus_inv8, SC_ZERO, inv8);

  /* V[j] = (v_j/8)·H + (γ_j/8)·G */
  for (size_t j = 0; j < m; j++) {
    uint8_t v[32] = {0};
    ge_p2 r;
    memcpy(v, amounts + 8 * j, 8);
    tsm_sc_mul(t, v, inv8);
    tsm_sc_mul(t2, gammas + 32 * j, inv8);
    tsm_ge_double_scalarmult_base_vartime(&r, t, &H, t2);
    tsm_ge_p2_tobytes(V + 32 * j, &r);
  }
  tsm_hash_to_scalar(t, V, 32 * m);
  hash_keys(transcript, transcript0, t, NULL);

  /* A = Σ (bit ? Gi/8 : −Hi/8) + (α/8)·G = (1/8)·(Σ_bit Gi − Σ_¬bit Hi) + (α/8)·G: every scalar
   * of the multiexp is ±1/8 or 0, so one sum of points and a double multiplication do. */
  {
    ge_p3 acc;
    ge_p1p1 sum;
    ge_cached c;
    ge_p2 r;
    ge_p3_0(&acc);
    for (size_t j = 0, k = 0; j < M; j++) {
      uint64_t v = 0;
      if (j < m) memcpy(&v, amounts + 8 * j, 8); /* little-endian hosts (x86-64, arm64) */
      for (size_t i = 0; i < BPP_N; i++, k++) {
        if (j < m && ((v >> i) & 1)) {
          ge_p3_to_cached(&c, &Gs[k]);
          ge_add(&sum, &acc, &c);
        } else {
          ge_p3_to_cached(&c, &Hs[k]);
          ge_sub(&sum, &acc, &c);
        }
        ge_p1p1_to_p3(&acc, &sum);
      }
    }
    tsm_sc_mul(t, alpha, inv8);
    tsm_ge_double_scalarmult_base_vartime(&r, inv8, &acc, t);
    tsm_ge_p2_tobytes(A, &r);
  }

  hash_keys(y, transcript, A, NULL);
  if (!tsm_sc_isnonzero(y)) goto zero;
  tsm_hash_to_scalar(z, y, 32);
  if (!tsm_sc_isnonzero(z)) goto zero;
  memcpy(transcript, z, 32);
  tsm_sc_mul(z2, z, z);

  /* d[j·N + i] = z^(2(j+1))·2^i */
  memcpy(d[0], z2, 32);
  for (size_t i = 1; i < BPP_N; i++) tsm_sc_mul(d[i], d[i - 1], SC_TWO);
  for (size_t j = 1; j < M; j++)
    for (size_t i = 0; i < BPP_N; i++) tsm_sc_mul(d[j * BPP_N + i], d[(j - 1) * BPP_N + i], z2);
  memcpy(ypow[0], SC_ONE, 32);
  for (size_t i = 1; i < MN + 2; i++) tsm_sc_mul(ypow[i], ypow[i - 1], y);

  /* a' = aL − z, b' = aR + z + d∘y^(MN−i) */
  for (size_t j = 0, k = 0; j < M; j++) {
    uint64_t v = 0;
    if (j < m) memcpy(&v, amounts + 8 * j, 8);
    for (size_t i = 0; i < BPP_N; i++, k++) {
      int bit = j < m && ((v >> i) & 1);
      tsm_sc_sub(aP[k], bit ? SC_ONE : SC_ZERO, z);
      tsm_sc_mul(t, d[k], ypow[MN - k]);
      tsm_sc_add(t, t, z);
      if (bit)
        memcpy(bP[k], t, 32);
      else
        tsm_sc_sub(bP[k], t, SC_ONE);
    }
  }
  memcpy(alpha1, alpha, 32);
  memcpy(t2, SC_ONE, 32); /* z^(2(j+1)) */
  for (size_t j = 0; j < m; j++) {
    tsm_sc_mul(t2, t2, z2);
    tsm_sc_mul(t, ypow[MN + 1], t2);
    tsm_sc_muladd(alpha1, t, gammas + 32 * j, alpha1);
  }
  tsm_sc_invert(yinv, y);
  memcpy(yinvpow[0], SC_ONE, 32);
  for (size_t i = 1; i < MN; i++) tsm_sc_mul(yinvpow[i], yinvpow[i - 1], yinv);
  memcpy(fG, SC_ONE, 32);
  memcpy(fH, SC_ONE, 32);

  for (size_t n = MN, round = 0; n > 1; round++) {
    uint8_t cL[32], cR[32], ch[32], chinv[32], mG[32], mH[32], k[32];
    const uint8_t *dL = nonces + 32 * (1 + 2 * round), *dR = dL + 32;
    n /= 2;
    wip(cL, aP, bP + n, ypow, n, NULL);
    wip(cR, aP + n, bP, ypow, n, ypow[n]);

    /* L = Σ a'lo·y^−n/8·G'hi + b'hi/8·H'lo + cL/8·H + dL/8·G (the true G', H' are fG·Gs, fH·Hs) */
    tsm_sc_mul(mG, yinvpow[n], inv8);
    tsm_sc_mul(mG, mG, fG);
    tsm_sc_mul(mH, inv8, fH);
    for (size_t i = 0; i < n; i++) {
      tsm_sc_mul(sc[2 * i], aP[i], mG);
      pts[2 * i] = Gs[n + i];
      tsm_sc_mul(sc[2 * i + 1], bP[n + i], mH);
      pts[2 * i + 1] = Hs[i];
    }
    tsm_sc_mul(sc[2 * n], cL, inv8);
    pts[2 * n] = H;
    tsm_sc_mul(sc[2 * n + 1], dL, inv8);
    pts[2 * n + 1] = *tsm_ge_base();
    /* R = Σ a'hi·y^n/8·G'lo + b'lo/8·H'hi + cR/8·H + dR/8·G */
    tsm_sc_mul(mG, ypow[n], inv8);
    tsm_sc_mul(mG, mG, fG);
    for (size_t i = 0; i < n; i++) {
      tsm_sc_mul(sc2[2 * i], aP[n + i], mG);
      pts2[2 * i] = Gs[i];
      tsm_sc_mul(sc2[2 * i + 1], bP[i], mH);
      pts2[2 * i + 1] = Hs[n + i];
    }
    tsm_sc_mul(sc2[2 * n], cR, inv8);
    pts2[2 * n] = H;
    tsm_sc_mul(sc2[2 * n + 1], dR, inv8);
    pts2[2 * n + 1] = *tsm_ge_base();
    {
      msm_job jl = {Lout + 32 * round, sc, pts, 2 * n + 2, 0}, jr = {Rout + 32 * round, sc2, pts2, 2 * n + 2, 0};
      par2(n >= PAR_MIN ? threads : 1, msm_run, &jl, msm_run, &jr);
      if (jl.rc || jr.rc) {
        rc = jl.rc ? jl.rc : jr.rc;
        goto done;
      }
    }

    hash_keys(ch, transcript, Lout + 32 * round, Rout + 32 * round);
    memcpy(transcript, ch, 32);
    if (!tsm_sc_isnonzero(ch)) goto zero;
    tsm_sc_invert(chinv, ch);

    /* G' = ch⁻¹·G[i] + (y^−n·ch)·G[n+i] = (fG·ch⁻¹)·(Gs[i] + (y^−n·ch²)·Gs[n+i]);
     * H' = ch·H[i] + ch⁻¹·H[n+i] = (fH·ch)·(Hs[i] + ch⁻²·Hs[n+i]) */
    tsm_sc_mul(t, ch, ch);
    tsm_sc_mul(k, yinvpow[n], t);
    tsm_sc_mul(t2, chinv, chinv);
    {
      fold_job fg = {Gs, n, k, zs}, fh = {Hs, n, t2, zs2};
      par2(n >= PAR_MIN ? threads : 1, fold_run, &fg, fold_run, &fh);
    }
    tsm_sc_mul(fG, fG, chinv);
    tsm_sc_mul(fH, fH, ch);

    /* a' = a'lo·ch + a'hi·(ch⁻¹·y^n); b' = b'lo·ch⁻¹ + b'hi·ch */
    tsm_sc_mul(k, chinv, ypow[n]);
    for (size_t i = 0; i < n; i++) {
      uint8_t u[32];
      tsm_sc_mul(u, aP[n + i], k);
      tsm_sc_muladd(aP[i], aP[i], ch, u);
      tsm_sc_mul(u, bP[n + i], ch);
      tsm_sc_muladd(bP[i], bP[i], chinv, u);
    }
    /* α1 += dL·ch² + dR·ch⁻² */
    tsm_sc_muladd(alpha1, dL, t, alpha1);
    tsm_sc_muladd(alpha1, dR, t2, alpha1);
  }

  {
    const uint8_t *r = nonces + 32 * (1 + 2 * log_mn), *s = r + 32, *dd = s + 32, *eta = dd + 32;
    uint8_t ry[32], sy[32], hS[32], e[32], e2[32];
    ge_p2 bp;
    tsm_sc_mul(ry, r, y);
    tsm_sc_mul(sy, s, y);
    tsm_sc_mul(t, sy, aP[0]);
    tsm_sc_muladd(hS, ry, bP[0], t);
    /* A1 = (r/8)·G'[0] + (s/8)·H'[0] + (d/8)·G + (hS/8)·H */
    tsm_sc_mul(t, r, inv8);
    tsm_sc_mul(sc[0], t, fG);
    pts[0] = Gs[0];
    tsm_sc_mul(t, s, inv8);
    tsm_sc_mul(sc[1], t, fH);
    pts[1] = Hs[0];
    tsm_sc_mul(sc[2], dd, inv8);
    pts[2] = *tsm_ge_base();
    tsm_sc_mul(sc[3], hS, inv8);
    pts[3] = H;
    {
      msm_job j1 = {A1, sc, pts, 4, 0};
      msm_run(&j1);
      if ((rc = j1.rc) != 0) goto done;
    }
    /* B = (r·y·s/8)·H + (η/8)·G */
    tsm_sc_mul(t, ry, s);
    tsm_sc_mul(t, t, inv8);
    tsm_sc_mul(t2, eta, inv8);
    tsm_ge_double_scalarmult_base_vartime(&bp, t, &H, t2);
    tsm_ge_p2_tobytes(B, &bp);
    hash_keys(e, transcript, A1, B);
    if (!tsm_sc_isnonzero(e)) goto zero;
    tsm_sc_muladd(r1, aP[0], e, r);
    tsm_sc_muladd(s1, bP[0], e, s);
    tsm_sc_muladd(t, dd, e, eta);
    tsm_sc_mul(e2, e, e);
    tsm_sc_muladd(d1, alpha1, e2, t);
  }
  rc = 0;
  goto done;
zero:
  rc = 1;
done:
  free(Gs);
  free(Hs);
  free(pts);
  if (aP) tsm_wipe(aP, MN * sizeof(sc32));
  if (bP) tsm_wipe(bP, MN * sizeof(sc32));
  free(aP);
  free(bP);
  free(ypow);
  free(yinvpow);
  free(d);
  free(sc);
  free(sc2);
  free(pts2);
  free(zs);
  free(zs2);
  tsm_wipe(alpha1, sizeof alpha1);
  return rc;
}

/* ---- Node-API glue (registered in addon.c) ---- */

napi_value tsm_napi_bpp_prove(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  size_t argc = 8, n[7], count, m;
  uint8_t *a[7];
  int32_t threads = 1;
  int rc;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 7) goto bad;
  if (argc >= 8 && napi_get_value_int32(env, argv[7], &threads) != napi_ok) goto bad;
  for (int i = 0; i < 7; i++)
    if (!tsm_napi_u8(env, argv[i], &a[i], &n[i])) goto bad;
  if (!tsm_prepared_count(a[0], n[0], &count)) {
    napi_throw_type_error(env, NULL, "tsmonero_crypto: not a prepared point buffer");
    return NULL;
  }
  m = n[1] / 8;
  if (n[1] % 8 != 0 || m == 0 || m > 16 || n[2] != 32 * m || n[3] != 32 * tsm_bpp_nonce_count(m) || n[4] != 32 ||
      n[5] != 32 || n[6] != tsm_bpp_proof_size(m) || count < ((size_t)2 << tsm_bpp_log_mn(m)))
    goto bad;
  rc = tsm_bpp_prove(a[6], a[0], count, a[1], a[2], m, a[3], a[4], a[5], threads > 1 ? 2 : 1);
  return tsm_napi_code(env, rc, "tsmonero_crypto: inconsistent bulletproofPlusProve arguments");
bad:
  napi_throw_type_error(env, NULL, "tsmonero_crypto: inconsistent bulletproofPlusProve arguments");
  return NULL;
}
