/* CLSAG signing in the kernel (CLSAG_Gen of Monero's src/ringct/rctSigs.cpp, v0.18, with
 * device_default's clsag_prepare / clsag_sign; the portable version is
 * src/crypto/ringct/clsag.ts, which must give the same bytes for the same nonces).
 *
 * Secret values (p, z, α) only meet constant-time code: the key image, the auxiliary image and
 * the first commitments use tsm_ge_scalarmult(_base), s_l is constant-time scalar arithmetic.
 * The ring walk multiplies public values only (decoy responses and challenges end up in the
 * signature), with the variable-time multiexp, as Monero does. The round hash keeps the Keccak
 * state of its fixed prefix (domain ‖ P ‖ C ‖ C_offset ‖ message) and absorbs only L ‖ R anew. */
#include "clsag.h"

#include <stdlib.h>
#include <string.h>

#include "keccak.h"
#include "monero.h"
#include "msm.h"
#include "napi-glue.h"
#include "sc.h"

static void domain(uint8_t k[32], const char *tag) {
  memset(k, 0, 32);
  memcpy(k, tag, strlen(tag));
}

static void hash_final_scalar(uint8_t out[32], const tsm_keccak_ctx *prefix, const uint8_t lr[64]) {
  tsm_keccak_ctx c = *prefix;
  uint8_t h[32];
  tsm_keccak_update(&c, lr, 64);
  tsm_keccak_final(&c, h);
  tsm_sc_reduce32(out, h);
}

static int msm3(uint8_t out[32], const uint8_t s0[32], const ge_p3 *p0, const uint8_t s1[32], const ge_p3 *p1,
                const uint8_t s2[32], const ge_p3 *p2) {
  uint8_t sc[96];
  ge_p3 pts[3];
  ge_p2 r;
  int rc;
  memcpy(sc, s0, 32);
  memcpy(sc + 32, s1, 32);
  memcpy(sc + 64, s2, 32);
  pts[0] = *p0;
  pts[1] = *p1;
  pts[2] = *p2;
  rc = tsm_msm_vartime(&r, sc, pts, 3, TSM_MSM_STRAUS);
  if (rc) return rc;
  tsm_ge_p2_tobytes(out, &r);
  return 0;
}

int tsm_clsag_sign(uint8_t *out, const uint8_t msg[32], const uint8_t *P, const uint8_t *C, size_t n,
                   const uint8_t p[32], const uint8_t z[32], const uint8_t c_offset[32], size_t l,
                   const uint8_t *nonces) {
  uint8_t *s = out, *c1 = out + 32 * n, *D8inv = c1 + 32, *I = D8inv + 32;
  uint8_t inv8[32], eight[32] = {8}, mu_p[32], mu_c[32], c[32], cp[32], cc[32], lr[64], w[32], t[32];
  const uint8_t *alpha = nonces;
  ge_p3 Hp, Ip, Dp, D8, off, *Pp = NULL, *Cd = NULL, *Hi = NULL;
  tsm_keccak_ctx agg, round;
  int rc = -1, have_c1 = 0;

  if (n == 0 || l >= n) return -2;
  Pp = malloc(n * sizeof(ge_p3));
  Cd = malloc(n * sizeof(ge_p3));
  Hi = malloc(n * sizeof(ge_p3));
  if (!Pp || !Cd || !Hi) goto done;

  /* I = p·Hp(P[l]), D = z·Hp(P[l]), stored as D/8 */
  tsm_hash_to_ec(&Hp, P + 32 * l);
  tsm_ge_scalarmult(&Ip, p, &Hp);
  tsm_ge_p3_tobytes(I, &Ip);
  tsm_ge_scalarmult(&Dp, z, &Hp);
  tsm_sc_invert(inv8, eight);
  {
    ge_p3 d8;
    tsm_ge_scalarmult(&d8, inv8, &Dp);
    tsm_ge_p3_tobytes(D8inv, &d8);
  }
  /* the ring, decoded once: P[i], C[i] − C_offset, Hp(P[i]) */
  rc = 1;
  if (tsm_ge_frombytes(&off, c_offset) != 0) goto done;
  rc = 2;
  for (size_t i = 0; i < n; i++) {
    ge_p3 ci;
    ge_cached oc;
    ge_p1p1 d;
    if (tsm_ge_frombytes(&Pp[i], P + 32 * i) != 0 || tsm_ge_frombytes(&ci, C + 32 * i) != 0) {
      rc = 10 + (int)i; /* which member: the caller names it */
      goto done;
    }
    ge_p3_to_cached(&oc, &off);
    ge_sub(&d, &ci, &oc);
    ge_p1p1_to_p3(&Cd[i], &d);
    tsm_hash_to_ec(&Hi[i], P + 32 * i);
  }
  {
    ge_p2 d2;
    if (tsm_ge_frombytes(&D8, D8inv) != 0) goto done; /* cannot happen: we just encoded it */
    ge_p3_to_p2(&d2, &D8);
    tsm_ge_mul8(&D8, &d2);
  }

  /* μ_P, μ_C = H(CLSAG_agg_0/1 ‖ P ‖ C ‖ I ‖ D/8 ‖ C_offset) */
  {
    uint8_t dom[32];
    for (int k = 0; k < 2; k++) {
      domain(dom, k == 0 ? "CLSAG_agg_0" : "CLSAG_agg_1");
      tsm_keccak_init(&agg);
      tsm_keccak_update(&agg, dom, 32);
      tsm_keccak_update(&agg, P, 32 * n);
      tsm_keccak_update(&agg, C, 32 * n);
      tsm_keccak_update(&agg, I, 32);
      tsm_keccak_update(&agg, D8inv, 32);
      tsm_keccak_update(&agg, c_offset, 32);
      tsm_keccak_final(&agg, t);
      tsm_sc_reduce32(k == 0 ? mu_p : mu_c, t);
    }
    domain(dom, "CLSAG_round");
    tsm_keccak_init(&round);
    tsm_keccak_update(&round, dom, 32);
    tsm_keccak_update(&round, P, 32 * n);
    tsm_keccak_update(&round, C, 32 * n);
    tsm_keccak_update(&round, c_offset, 32);
    tsm_keccak_update(&round, msg, 32);
  }

  /* c_{l+1} = H(prefix ‖ α·G ‖ α·Hp) */
  {
    ge_p3 a;
    tsm_ge_scalarmult_base(&a, alpha);
    tsm_ge_p3_tobytes(lr, &a);
    tsm_ge_scalarmult(&a, alpha, &Hp);
    tsm_ge_p3_tobytes(lr + 32, &a);
  }
  hash_final_scalar(c, &round, lr);

  {
    size_t i = (l + 1) % n, k = 1;
    if (i == 0) {
      memcpy(c1, c, 32);
      have_c1 = 1;
    }
    while (i != l) {
      memcpy(s + 32 * i, nonces + 32 * k++, 32);
      tsm_sc_mul(cp, mu_p, c);
      tsm_sc_mul(cc, mu_c, c);
      if ((rc = msm3(lr, s + 32 * i, tsm_ge_base(), cp, &Pp[i], cc, &Cd[i])) != 0) goto done;
      if ((rc = msm3(lr + 32, s + 32 * i, &Hi[i], cp, &Ip, cc, &D8)) != 0) goto done;
      hash_final_scalar(c, &round, lr);
      i = (i + 1) % n;
      if (i == 0) {
        memcpy(c1, c, 32);
        have_c1 = 1;
      }
    }
  }
  /* s_l = α − c·(μ_P·p + μ_C·z) */
  tsm_sc_mul(t, mu_c, z);
  tsm_sc_muladd(w, mu_p, p, t);
  tsm_sc_mulsub(s + 32 * l, c, w, alpha);
  rc = have_c1 ? 0 : -2;
done:
  free(Pp);
  free(Cd);
  free(Hi);
  tsm_wipe(w, sizeof w);
  tsm_wipe(t, sizeof t);
  return rc;
}

/* ---- Node-API glue (registered in addon.c) ---- */

napi_value tsm_napi_clsag_sign(napi_env env, napi_callback_info info) {
  napi_value argv[9];
  size_t argc = 9, len[9], n;
  uint8_t *a[9];
  uint32_t l;
  int rc;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 9) goto bad;
  for (int i = 0; i < 9; i++)
    if (i != 6 && !tsm_napi_u8(env, argv[i], &a[i], &len[i])) goto bad;
  if (napi_get_value_uint32(env, argv[6], &l) != napi_ok) goto bad;
  n = len[1] / 32;
  if (len[0] != 32 || len[1] % 32 != 0 || n == 0 || len[2] != len[1] || len[3] != 32 || len[4] != 32 ||
      len[5] != 32 || l >= n || len[7] != 32 * n || len[8] != 32 * (n + 3))
    goto bad;
  rc = tsm_clsag_sign(a[8], a[0], a[1], a[2], n, a[3], a[4], a[5], l, a[7]);
  return tsm_napi_code(env, rc, "tsmonero_crypto: inconsistent clsagSign arguments");
bad:
  napi_throw_type_error(env, NULL, "tsmonero_crypto: inconsistent clsagSign arguments");
  return NULL;
}
