/* RingCT hot path: multi-scalar multiplication over a prepared (already decoded) point set, such
 * as the Bulletproof(+) generators Gi/Hi, plus fresh compressed points. Monero keeps its
 * generators decoded (bulletproofs_plus.cc Gi_p3/Hi_p3) for the same reason: decoding 2048
 * generators costs as much as a large part of a 16-output verification.
 *
 * Prepared buffer layout (opaque to callers): 8-byte magic "TSMPREP1", u64 count (native endian),
 * then count ge_p3 structs as raw bytes. It is only ever read with memcpy, so any alignment of
 * the caller's buffer is fine; its contents are trusted to come from tsm_prepare_points. */
#include "ringct.h"

#include <stdlib.h>
#include <string.h>

#include "napi-glue.h"

static const uint8_t MAGIC[8] = {'T', 'S', 'M', 'P', 'R', 'E', 'P', '1'};

size_t tsm_prepared_size(size_t n) { return TSM_PREPARED_HEADER + n * sizeof(ge_p3); }

int tsm_prepared_count(const uint8_t *prep, size_t len, size_t *n) {
  uint64_t c;
  if (len < TSM_PREPARED_HEADER || memcmp(prep, MAGIC, 8) != 0) return 0;
  memcpy(&c, prep + 8, 8);
  if ((len - TSM_PREPARED_HEADER) / sizeof(ge_p3) != c || (len - TSM_PREPARED_HEADER) % sizeof(ge_p3) != 0) return 0;
  *n = (size_t)c;
  return 1;
}

int tsm_prepare_points(uint8_t *out, const uint8_t *points, size_t n) {
  uint64_t c = n;
  memcpy(out, MAGIC, 8);
  memcpy(out + 8, &c, 8);
  for (size_t i = 0; i < n; i++) {
    ge_p3 p;
    if (tsm_ge_frombytes(&p, points + 32 * i) != 0) return 1;
    memcpy(out + TSM_PREPARED_HEADER + i * sizeof(ge_p3), &p, sizeof p);
  }
  return 0;
}

int tsm_msm_prepared(uint8_t out[32], const uint8_t *prep, size_t k, const uint8_t *pscalars, const uint8_t *scalars,
                     const uint8_t *points, size_t m) {
  size_t n = k + m;
  ge_p3 *pts;
  uint8_t *sc;
  ge_p2 r;
  int rc;
  if (n == 0) {
    ge_p2_0(&r);
    tsm_ge_p2_tobytes(out, &r);
    return 0;
  }
  pts = malloc(n * sizeof(ge_p3));
  sc = malloc(n * 32);
  if (!pts || !sc) {
    free(pts);
    free(sc);
    return -1;
  }
  memcpy(pts, prep + TSM_PREPARED_HEADER, k * sizeof(ge_p3));
  for (size_t j = 0; j < m; j++) {
    if (tsm_ge_frombytes(&pts[k + j], points + 32 * j) != 0) {
      free(pts);
      free(sc);
      return 1;
    }
  }
  memcpy(sc, pscalars, k * 32);
  memcpy(sc + k * 32, scalars, m * 32);
  rc = tsm_msm_vartime(&r, sc, pts, n, TSM_MSM_AUTO);
  free(pts);
  free(sc);
  if (rc) return rc;
  tsm_ge_p2_tobytes(out, &r);
  return 0;
}

/* ---- Node-API glue (registered in addon.c) ---- */

static napi_value fail_type(napi_env env, const char *msg) {
  napi_throw_type_error(env, NULL, msg);
  return NULL;
}


static napi_value boolean(napi_env env, int b) {
  napi_value v;
  napi_get_boolean(env, b != 0, &v);
  return v;
}

napi_value tsm_napi_prepared_size(napi_env env, napi_callback_info info) {
  napi_value argv[1], v;
  size_t argc = 1;
  int64_t n;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 1 || napi_get_value_int64(env, argv[0], &n) != napi_ok || n < 0 || n > (1 << 24))
    return fail_type(env, "tsmonero_crypto: bad point count");
  napi_create_int64(env, (int64_t)tsm_prepared_size((size_t)n), &v);
  return v;
}

napi_value tsm_napi_prepare_points(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc = 2, pn, on;
  uint8_t *p, *o;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 2 || !tsm_napi_u8(env, argv[0], &p, &pn) || !tsm_napi_u8(env, argv[1], &o, &on))
    return fail_type(env, "tsmonero_crypto: expected Uint8Array arguments");
  if (pn % 32 != 0 || on != tsm_prepared_size(pn / 32)) return fail_type(env, "tsmonero_crypto: bad prepared buffer size");
  return boolean(env, tsm_prepare_points(o, p, pn / 32) == 0);
}

napi_value tsm_napi_msm_prepared(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  size_t argc = 5, prn, psn, sn, pn, on, count;
  uint8_t *pr, *ps, *s, *p, *o;
  int rc;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (argc < 5 || !tsm_napi_u8(env, argv[0], &pr, &prn) || !tsm_napi_u8(env, argv[1], &ps, &psn) ||
      !tsm_napi_u8(env, argv[2], &s, &sn) || !tsm_napi_u8(env, argv[3], &p, &pn) || !tsm_napi_u8(env, argv[4], &o, &on))
    return fail_type(env, "tsmonero_crypto: expected Uint8Array arguments");
  if (!tsm_prepared_count(pr, prn, &count)) return fail_type(env, "tsmonero_crypto: not a prepared point buffer");
  if (on != 32 || psn % 32 != 0 || psn / 32 > count || sn % 32 != 0 || sn != pn)
    return fail_type(env, "tsmonero_crypto: inconsistent prepared multiexp arguments");
  rc = tsm_msm_prepared(o, pr, psn / 32, ps, s, p, sn / 32);
  if (rc < 0) {
    napi_throw_error(env, NULL, "tsmonero_crypto: out of memory");
    return NULL;
  }
  return boolean(env, rc == 0);
}
