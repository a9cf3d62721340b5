/*
 * Node-API binding of the curve kernel. Every function takes Uint8Array arguments and, where it
 * produces bytes, a caller-allocated `out` Uint8Array as its last argument; results that can fail
 * come back as booleans. Lengths are checked here as well as in the TypeScript wrapper
 * (src/crypto/native/index.ts), so a wrong call throws TypeError instead of touching bad memory.
 *
 * No mutable global state: the precomputed tables are built once (pthread_once) and only read
 * afterwards, so the addon can be loaded by several worker threads at once.
 */
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "bpplus.h"
#include "clsag.h"
#include "ge-x8.h"
#include "ge.h"
#include "keccak.h"
#include "monero.h"
#include "msm.h"
#include "ringct.h"
#include "sc.h"

#define MAX_ARGS 8

typedef struct {
  uint8_t *p;
  size_t n;
} bytes_t;

static napi_value throw_type(napi_env env, const char *msg) {
  napi_throw_type_error(env, NULL, msg);
  return NULL;
}

/* A TypeError for an argument of the wrong type, replacing whatever napi_get_typedarray_info left
 * pending; returns 0. */
static int throw_arg_type(napi_env env, const char *msg) {
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) {
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
  }
  napi_throw_type_error(env, NULL, msg);
  return 0;
}

/* Reads argument i as a Uint8Array (Buffer included); want = exact length, or (size_t)-1 for any. */
static int arg_bytes(napi_env env, napi_value *argv, size_t argc, size_t i, size_t want, bytes_t *out) {
  napi_typedarray_type type;
  size_t len;
  void *data;
  if (i >= argc || napi_get_typedarray_info(env, argv[i], &type, &len, &data, NULL, NULL) != napi_ok ||
      (type != napi_uint8_array && type != napi_uint8_clamped_array))
    return throw_arg_type(env, "tsmonero_crypto: expected a Uint8Array argument");
  if (want != (size_t)-1 && len != want) {
    napi_throw_type_error(env, NULL, "tsmonero_crypto: wrong buffer length");
    return 0;
  }
  out->p = data;
  out->n = len;
  return 1;
}

/* Reads argument i as a typed array of the given type: its element count and data. */
static int arg_typed(napi_env env, napi_value *argv, size_t argc, size_t i, napi_typedarray_type want, size_t *len,
                     void **data) {
  napi_typedarray_type type;
  if (i >= argc || napi_get_typedarray_info(env, argv[i], &type, len, data, NULL, NULL) != napi_ok || type != want)
    return throw_arg_type(env, "tsmonero_crypto: expected a typed array of another type");
  return 1;
}

static int arg_index(napi_env env, napi_value *argv, size_t argc, size_t i, uint64_t *out) {
  int64_t v;
  if (i >= argc || napi_get_value_int64(env, argv[i], &v) != napi_ok || v < 0) {
    napi_throw_type_error(env, NULL, "tsmonero_crypto: expected a non-negative integer index");
    return 0;
  }
  *out = (uint64_t)v;
  return 1;
}

static napi_value ret_bool(napi_env env, int b) {
  napi_value v;
  napi_get_boolean(env, b != 0, &v);
  return v;
}

static napi_value ret_undef(napi_env env) {
  napi_value v;
  napi_get_undefined(env, &v);
  return v;
}

#define ARGS(count)                                                  \
  napi_value argv[MAX_ARGS];                                         \
  size_t argc = MAX_ARGS;                                            \
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) \
    return NULL;                                                     \
  if (argc < (count)) return throw_type(env, "tsmonero_crypto: missing arguments")

#define BYTES(name, i, len) \
  bytes_t name;             \
  if (!arg_bytes(env, argv, argc, (i), (len), &name)) return NULL
#define INDEX(name, i) \
  uint64_t name;       \
  if (!arg_index(env, argv, argc, (i), &name)) return NULL

#define ANY ((size_t)-1)
/* name/name_n: the data and element count of typed array argument i of the given type */
#define TYPED(name, i, type, ctype) \
  ctype *name;                      \
  size_t name##_n;                  \
  if (!arg_typed(env, argv, argc, (i), (type), &name##_n, (void **)&name)) return NULL

/* ---- hashing and scalars ---- */

static napi_value f_keccak256(napi_env env, napi_callback_info info) {
  ARGS(2);
  BYTES(d, 0, ANY);
  BYTES(o, 1, 32);
  tsm_keccak256(o.p, d.p, d.n);
  return ret_undef(env);
}

static napi_value f_hash_to_scalar(napi_env env, napi_callback_info info) {
  ARGS(2);
  BYTES(d, 0, ANY);
  BYTES(o, 1, 32);
  tsm_hash_to_scalar(o.p, d.p, d.n);
  return ret_undef(env);
}

static napi_value f_sc_reduce32(napi_env env, napi_callback_info info) {
  ARGS(2);
  BYTES(s, 0, 32);
  BYTES(o, 1, 32);
  tsm_sc_reduce32(o.p, s.p);
  return ret_undef(env);
}

static napi_value f_sc_reduce64(napi_env env, napi_callback_info info) {
  ARGS(2);
  BYTES(s, 0, 64);
  BYTES(o, 1, 32);
  tsm_sc_reduce64(o.p, s.p);
  return ret_undef(env);
}

#define SC_BINARY(fname, impl)                          \
  static napi_value fname(napi_env env, napi_callback_info info) { \
    ARGS(3);                                            \
    BYTES(a, 0, 32);                                    \
    BYTES(b, 1, 32);                                    \
    BYTES(o, 2, 32);                                    \
    impl(o.p, a.p, b.p);                                \
    return ret_undef(env);                              \
  }
SC_BINARY(f_sc_add, tsm_sc_add)
SC_BINARY(f_sc_sub, tsm_sc_sub)
SC_BINARY(f_sc_mul, tsm_sc_mul)

#define SC_TERNARY(fname, impl)                         \
  static napi_value fname(napi_env env, napi_callback_info info) { \
    ARGS(4);                                            \
    BYTES(a, 0, 32);                                    \
    BYTES(b, 1, 32);                                    \
    BYTES(c, 2, 32);                                    \
    BYTES(o, 3, 32);                                    \
    impl(o.p, a.p, b.p, c.p);                           \
    return ret_undef(env);                              \
  }
SC_TERNARY(f_sc_muladd, tsm_sc_muladd)
SC_TERNARY(f_sc_mulsub, tsm_sc_mulsub)

static napi_value f_sc_invert(napi_env env, napi_callback_info info) {
  ARGS(2);
  BYTES(a, 0, 32);
  BYTES(o, 1, 32);
  tsm_sc_invert(o.p, a.p);
  return ret_undef(env);
}

static napi_value f_sc_check(napi_env env, napi_callback_info info) {
  ARGS(1);
  BYTES(s, 0, 32);
  return ret_bool(env, tsm_sc_check(s.p));
}

static napi_value f_sc_isnonzero(napi_env env, napi_callback_info info) {
  ARGS(1);
  BYTES(s, 0, 32);
  return ret_bool(env, tsm_sc_isnonzero(s.p));
}

/* scBatch(op, a, b, out): n = a/32 operations; b is n*32 bytes or one 32-byte scalar for all */
static napi_value f_sc_batch(napi_env env, napi_callback_info info) {
  ARGS(4);
  INDEX(op, 0);
  BYTES(a, 1, ANY);
  BYTES(b, 2, ANY);
  BYTES(o, 3, ANY);
  size_t n = a.n / 32;
  if (op > TSM_SC_OP_MUL || a.n % 32 != 0 || o.n != a.n || (op != TSM_SC_OP_REDUCE32 && b.n != a.n && b.n != 32))
    return throw_type(env, "tsmonero_crypto: scBatch wants a and out n*32 bytes, b n*32 or 32");
  tsm_sc_batch((int)op, o.p, a.p, b.p, b.n == 32 ? 0 : 32, n);
  return ret_undef(env);
}

static napi_value f_sc_check_batch(napi_env env, napi_callback_info info) {
  napi_value v;
  ARGS(1);
  BYTES(s, 0, ANY);
  if (s.n % 32 != 0) return throw_type(env, "tsmonero_crypto: scalars must be n*32 bytes");
  napi_create_int64(env, tsm_sc_check_batch(s.p, s.n / 32), &v);
  return v;
}

static napi_value f_hash_to_scalars(napi_env env, napi_callback_info info) {
  ARGS(3);
  BYTES(d, 0, ANY);
  INDEX(n, 1);
  BYTES(o, 2, ANY);
  if (n == 0 || d.n % n != 0 || o.n != 32 * n)
    return throw_type(env, "tsmonero_crypto: hashToScalars wants n equal inputs and n*32 bytes of out");
  tsm_hash_to_scalars(o.p, d.p, d.n / n, n);
  return ret_undef(env);
}

/* ---- points ---- */

static napi_value f_point_check(napi_env env, napi_callback_info info) {
  ge_p3 p;
  ARGS(1);
  BYTES(s, 0, 32);
  return ret_bool(env, tsm_ge_frombytes(&p, s.p) == 0);
}

static napi_value point_addsub(napi_env env, napi_callback_info info, int sub) {
  ge_p3 p, q;
  ge_cached c;
  ge_p1p1 t;
  ARGS(3);
  BYTES(a, 0, 32);
  BYTES(b, 1, 32);
  BYTES(o, 2, 32);
  if (tsm_ge_frombytes(&p, a.p) != 0 || tsm_ge_frombytes(&q, b.p) != 0) return ret_bool(env, 0);
  ge_p3_to_cached(&c, &q);
  if (sub)
    ge_sub(&t, &p, &c);
  else
    ge_add(&t, &p, &c);
  ge_p1p1_to_p3(&p, &t);
  tsm_ge_p3_tobytes(o.p, &p);
  return ret_bool(env, 1);
}
static napi_value f_point_add(napi_env env, napi_callback_info info) { return point_addsub(env, info, 0); }
static napi_value f_point_sub(napi_env env, napi_callback_info info) { return point_addsub(env, info, 1); }

static napi_value f_point_mul8(napi_env env, napi_callback_info info) {
  ge_p3 p;
  ge_p2 q;
  ARGS(2);
  BYTES(a, 0, 32);
  BYTES(o, 1, 32);
  if (tsm_ge_frombytes(&p, a.p) != 0) return ret_bool(env, 0);
  ge_p3_to_p2(&q, &p);
  tsm_ge_mul8(&p, &q);
  tsm_ge_p3_tobytes(o.p, &p);
  return ret_bool(env, 1);
}

static napi_value f_scalar_mult(napi_env env, napi_callback_info info) {
  ge_p3 p, r;
  uint8_t s[32];
  ARGS(3);
  BYTES(sb, 0, 32);
  BYTES(a, 1, 32);
  BYTES(o, 2, 32);
  if (tsm_ge_frombytes(&p, a.p) != 0) return ret_bool(env, 0);
  memcpy(s, sb.p, 32); /* out may alias the scalar */
  tsm_ge_scalarmult(&r, s, &p);
  tsm_ge_p3_tobytes(o.p, &r);
  tsm_wipe(s, sizeof s);
  return ret_bool(env, 1);
}

static napi_value f_scalar_mult_base(napi_env env, napi_callback_info info) {
  ge_p3 r;
  uint8_t s[32];
  ARGS(2);
  BYTES(sb, 0, 32);
  BYTES(o, 1, 32);
  memcpy(s, sb.p, 32);
  tsm_ge_scalarmult_base(&r, s);
  tsm_ge_p3_tobytes(o.p, &r);
  tsm_wipe(s, sizeof s);
  return ret_undef(env);
}

/* commit(amount: 8 bytes little-endian, mask, out): mask*G + amount*H, constant time */
static napi_value f_commit(napi_env env, napi_callback_info info) {
  ge_p3 r;
  uint8_t m[32];
  uint64_t amount = 0;
  ARGS(3);
  BYTES(am, 0, 8);
  BYTES(mb, 1, 32);
  BYTES(o, 2, 32);
  for (int i = 7; i >= 0; i--) amount = (amount << 8) | am.p[i];
  memcpy(m, mb.p, 32); /* out may alias the mask */
  tsm_commit(&r, amount, m);
  tsm_ge_p3_tobytes(o.p, &r);
  tsm_wipe(m, sizeof m);
  tsm_wipe(&amount, sizeof amount);
  return ret_undef(env);
}

static napi_value f_double_scalar_mult_base(napi_env env, napi_callback_info info) {
  ge_p3 p;
  ge_p2 r;
  ARGS(4);
  BYTES(a, 0, 32);
  BYTES(pb, 1, 32);
  BYTES(b, 2, 32);
  BYTES(o, 3, 32);
  if (tsm_ge_frombytes(&p, pb.p) != 0) return ret_bool(env, 0);
  tsm_ge_double_scalarmult_base_vartime(&r, a.p, &p, b.p);
  tsm_ge_p2_tobytes(o.p, &r);
  return ret_bool(env, 1);
}

static napi_value f_double_scalar_mult(napi_env env, napi_callback_info info) {
  ge_p3 p, q;
  ge_p2 r;
  ARGS(5);
  BYTES(a, 0, 32);
  BYTES(pb, 1, 32);
  BYTES(b, 2, 32);
  BYTES(qb, 3, 32);
  BYTES(o, 4, 32);
  if (tsm_ge_frombytes(&p, pb.p) != 0 || tsm_ge_frombytes(&q, qb.p) != 0) return ret_bool(env, 0);
  tsm_ge_double_scalarmult_vartime(&r, a.p, &p, b.p, &q);
  tsm_ge_p2_tobytes(o.p, &r);
  return ret_bool(env, 1);
}

/* multiScalarMult(scalars, points, out, algo?) — algo 0 auto, 1 Straus, 2 Pippenger (tests). */
static napi_value f_multi_scalar_mult(napi_env env, napi_callback_info info) {
  int32_t algo = TSM_MSM_AUTO;
  int rc;
  ARGS(3);
  BYTES(s, 0, ANY);
  BYTES(p, 1, ANY);
  BYTES(o, 2, 32);
  if (s.n % 32 != 0 || s.n != p.n) return throw_type(env, "tsmonero_crypto: scalars and points must both be n*32 bytes");
  if (argc > 3) {
    napi_valuetype vt;
    napi_typeof(env, argv[3], &vt);
    if (vt == napi_number) napi_get_value_int32(env, argv[3], &algo);
  }
  rc = tsm_msm_bytes(o.p, s.p, p.p, s.n / 32, algo);
  if (rc < 0) {
    napi_throw_error(env, NULL, "tsmonero_crypto: out of memory");
    return NULL;
  }
  return ret_bool(env, rc == 0);
}

static napi_value f_hash_to_point(napi_env env, napi_callback_info info) {
  ge_p2 r;
  ARGS(2);
  BYTES(h, 0, 32);
  BYTES(o, 1, 32);
  tsm_ge_fromfe(&r, h.p);
  tsm_ge_p2_tobytes(o.p, &r);
  return ret_undef(env);
}

static napi_value f_hash_to_ec(napi_env env, napi_callback_info info) {
  ge_p3 r;
  ARGS(2);
  BYTES(h, 0, 32);
  BYTES(o, 1, 32);
  tsm_hash_to_ec(&r, h.p);
  tsm_ge_p3_tobytes(o.p, &r);
  return ret_undef(env);
}

/* ---- Monero key operations ---- */

static napi_value f_secret_key_to_public_key(napi_env env, napi_callback_info info) {
  uint8_t r[32];
  ARGS(2);
  BYTES(s, 0, 32);
  BYTES(o, 1, 32);
  if (!tsm_secret_key_to_public_key(r, s.p)) return ret_bool(env, 0);
  memcpy(o.p, r, 32);
  return ret_bool(env, 1);
}

static napi_value f_generate_key_derivation(napi_env env, napi_callback_info info) {
  uint8_t r[32];
  ARGS(3);
  BYTES(pub, 0, 32);
  BYTES(sec, 1, 32);
  BYTES(o, 2, 32);
  if (!tsm_generate_key_derivation(r, pub.p, sec.p)) return ret_bool(env, 0);
  memcpy(o.p, r, 32);
  return ret_bool(env, 1);
}

static napi_value f_generate_key_derivations(napi_env env, napi_callback_info info) {
  napi_value v;
  int rc;
  ARGS(3);
  BYTES(pub, 0, 32);
  BYTES(secs, 1, ANY);
  BYTES(o, 2, ANY);
  if (secs.n % 32 != 0 || o.n != secs.n) return throw_type(env, "tsmonero_crypto: secs must be n*32 bytes and out as long");
  rc = tsm_generate_key_derivations(o.p, pub.p, secs.p, secs.n / 32);
  if (rc < 0) {
    napi_throw_error(env, NULL, "tsmonero_crypto: out of memory");
    return NULL;
  }
  napi_create_int32(env, rc, &v);
  return v;
}

/* generateKeyDerivationPairs(pubs, secs, out, ok): n*32, n*32, n*32, n bytes; see
 * tsm_generate_key_derivation_pairs */
static napi_value f_generate_key_derivation_pairs(napi_env env, napi_callback_info info) {
  ARGS(4);
  BYTES(pubs, 0, ANY);
  BYTES(secs, 1, ANY);
  BYTES(o, 2, ANY);
  BYTES(ok, 3, ANY);
  if (pubs.n % 32 != 0 || secs.n != pubs.n || o.n != pubs.n || ok.n != pubs.n / 32)
    return throw_type(env, "tsmonero_crypto: generateKeyDerivationPairs wants n*32 bytes of keys, n*32 of secrets, n*32 out, n ok");
  if (tsm_generate_key_derivation_pairs(o.p, ok.p, pubs.p, secs.p, pubs.n / 32) < 0) {
    napi_throw_error(env, NULL, "tsmonero_crypto: out of memory");
    return NULL;
  }
  return ret_undef(env);
}

/* generateKeyImages(pubs, secs, out): n*32 bytes each; see tsm_generate_key_images */
static napi_value f_generate_key_images(napi_env env, napi_callback_info info) {
  ARGS(3);
  BYTES(pubs, 0, ANY);
  BYTES(secs, 1, ANY);
  BYTES(o, 2, ANY);
  if (pubs.n % 32 != 0 || secs.n != pubs.n || o.n != pubs.n)
    return throw_type(env, "tsmonero_crypto: generateKeyImages wants n*32 bytes of keys, secrets and out");
  if (tsm_generate_key_images(o.p, pubs.p, secs.p, pubs.n / 32) < 0) {
    napi_throw_error(env, NULL, "tsmonero_crypto: out of memory");
    return NULL;
  }
  return ret_undef(env);
}

/* batchLanes(): 8 when the batch kernel runs eight lanes (AVX-512 IFMA) here, else 1 */
static napi_value f_batch_lanes(napi_env env, napi_callback_info info) {
  napi_value v;
  napi_create_int32(env, tsm_ge_x8_available() ? 8 : 1, &v);
  return v;
}

static napi_value f_derivation_to_scalar(napi_env env, napi_callback_info info) {
  ARGS(3);
  BYTES(d, 0, 32);
  INDEX(idx, 1);
  BYTES(o, 2, 32);
  tsm_derivation_to_scalar(o.p, d.p, idx);
  return ret_undef(env);
}

static napi_value f_derive_public_key(napi_env env, napi_callback_info info) {
  uint8_t r[32];
  ARGS(4);
  BYTES(d, 0, 32);
  INDEX(idx, 1);
  BYTES(base, 2, 32);
  BYTES(o, 3, 32);
  if (!tsm_derive_public_key(r, d.p, idx, base.p)) return ret_bool(env, 0);
  memcpy(o.p, r, 32);
  return ret_bool(env, 1);
}

static napi_value f_derive_secret_key(napi_env env, napi_callback_info info) {
  uint8_t r[32];
  ARGS(4);
  BYTES(d, 0, 32);
  INDEX(idx, 1);
  BYTES(base, 2, 32);
  BYTES(o, 3, 32);
  tsm_derive_secret_key(r, d.p, idx, base.p);
  memcpy(o.p, r, 32);
  return ret_undef(env);
}

static napi_value f_derive_subaddress_public_key(napi_env env, napi_callback_info info) {
  uint8_t r[32];
  ARGS(4);
  BYTES(k, 0, 32);
  BYTES(d, 1, 32);
  INDEX(idx, 2);
  BYTES(o, 3, 32);
  if (!tsm_derive_subaddress_public_key(r, k.p, d.p, idx)) return ret_bool(env, 0);
  memcpy(o.p, r, 32);
  return ret_bool(env, 1);
}

static napi_value f_derive_view_tag(napi_env env, napi_callback_info info) {
  napi_value v;
  ARGS(2);
  BYTES(d, 0, 32);
  INDEX(idx, 1);
  napi_create_uint32(env, tsm_derive_view_tag(d.p, idx), &v);
  return v;
}

static napi_value f_derive_view_tags(napi_env env, napi_callback_info info) {
  ARGS(3);
  BYTES(d, 0, ANY);
  TYPED(idx, 1, napi_uint32_array, uint32_t);
  BYTES(o, 2, ANY);
  if (d.n != 32 * idx_n || o.n != idx_n)
    return throw_type(env, "tsmonero_crypto: deriveViewTags wants n*32 bytes of derivations, n indices, n bytes out");
  tsm_derive_view_tags(o.p, d.p, idx, idx_n);
  return ret_undef(env);
}

/* Every probe k (probes[2k], probes[2k+1]) below (rows, outputs): 1, else 0 (scanOutputs, viewTagCandidates). */
static int probes_within(const uint32_t *probes, size_t q, size_t rows, size_t outputs) {
  for (size_t k = 0; k < q; k++)
    if (probes[2 * k] >= rows || probes[2 * k + 1] >= outputs) return 0;
  return 1;
}

/* Every view tag a byte or TSM_NO_VIEW_TAG: 1, else 0. */
static int view_tags_ok(const uint16_t *tags, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (tags[i] > TSM_NO_VIEW_TAG) return 0;
  return 1;
}

/* scanOutputs(derivations, keys, tags, probes, status, out[, indices]): see tsm_scan_outputs */
static napi_value f_scan_outputs(napi_env env, napi_callback_info info) {
  ARGS(6);
  BYTES(d, 0, ANY);
  BYTES(keys, 1, ANY);
  TYPED(tags, 2, napi_uint16_array, uint16_t);
  TYPED(probes, 3, napi_uint32_array, uint32_t);
  BYTES(status, 4, ANY);
  BYTES(o, 5, ANY);
  size_t q = probes_n / 2;
  if (d.n % 32 != 0 || keys.n != 32 * tags_n || probes_n % 2 != 0 || status.n != q || o.n != 32 * q)
    return throw_type(env, "tsmonero_crypto: scanOutputs: inconsistent buffer lengths");
  if (!probes_within(probes, q, d.n / 32, tags_n))
    return throw_type(env, "tsmonero_crypto: scanOutputs: probe outside the derivations or outputs");
  if (!view_tags_ok(tags, tags_n)) return throw_type(env, "tsmonero_crypto: scanOutputs: view tag above 256");
  {
    /* optional: per key slot, the output index hashed (a chunk of transactions' outputs in one call) */
    uint32_t *idx = NULL;
    size_t idx_n = 0;
    napi_valuetype vt = napi_undefined;
    if (argc > 6) napi_typeof(env, argv[6], &vt);
    if (vt != napi_undefined) {
      if (!arg_typed(env, argv, argc, 6, napi_uint32_array, &idx_n, (void **)&idx)) return NULL;
      if (idx_n != tags_n) return throw_type(env, "tsmonero_crypto: scanOutputs: one index per output key");
    }
    tsm_scan_outputs(status.p, o.p, d.p, keys.p, tags, idx, probes, q);
  }
  return ret_undef(env);
}

/* viewTagCandidates(derivations, wallets, tags, probes, flags): see tsm_view_tag_candidates */
static napi_value f_view_tag_candidates(napi_env env, napi_callback_info info) {
  uint32_t wallets;
  ARGS(5);
  if (napi_get_value_uint32(env, argv[1], &wallets) != napi_ok || wallets == 0)
    return throw_type(env, "tsmonero_crypto: viewTagCandidates: wallets must be a positive integer");
  BYTES(d, 0, ANY);
  TYPED(tags, 2, napi_uint16_array, uint16_t);
  TYPED(probes, 3, napi_uint32_array, uint32_t);
  BYTES(flags, 4, ANY);
  size_t q = probes_n / 2;
  if (d.n % (32 * (size_t)wallets) != 0 || probes_n % 2 != 0 || flags.n != wallets)
    return throw_type(env, "tsmonero_crypto: viewTagCandidates: inconsistent buffer lengths");
  if (!probes_within(probes, q, d.n / (32 * (size_t)wallets), tags_n))
    return throw_type(env, "tsmonero_crypto: viewTagCandidates: probe outside the rows or outputs");
  if (!view_tags_ok(tags, tags_n)) return throw_type(env, "tsmonero_crypto: viewTagCandidates: view tag above 256");
  tsm_view_tag_candidates(flags.p, d.p, wallets, tags, probes, q);
  return ret_undef(env);
}

static napi_value f_generate_key_image(napi_env env, napi_callback_info info) {
  uint8_t r[32];
  ARGS(3);
  BYTES(pub, 0, 32);
  BYTES(sec, 1, 32);
  BYTES(o, 2, 32);
  tsm_generate_key_image(r, pub.p, sec.p);
  memcpy(o.p, r, 32);
  return ret_undef(env);
}

static napi_value f_generate_signature(napi_env env, napi_callback_info info) {
  uint8_t r[64];
  ARGS(5);
  BYTES(prefix, 0, 32);
  BYTES(pub, 1, 32);
  BYTES(sec, 2, 32);
  BYTES(k, 3, 32);
  BYTES(o, 4, 64);
  tsm_generate_signature(r, prefix.p, pub.p, sec.p, k.p);
  memcpy(o.p, r, 64);
  return ret_undef(env);
}

static napi_value f_check_signature(napi_env env, napi_callback_info info) {
  ARGS(3);
  BYTES(prefix, 0, 32);
  BYTES(pub, 1, 32);
  BYTES(sig, 2, 64);
  return ret_bool(env, tsm_check_signature(prefix.p, pub.p, sig.p));
}

/* generateRingSignature(prefix, image, pubs, sec, secIndex, nonces, out) -> 0 ok, -1 bad key
 * image, -2 bad ring member (Monero aborts in both cases). */
static napi_value f_generate_ring_signature(napi_env env, napi_callback_info info) {
  napi_value v;
  size_t n;
  int rc;
  uint8_t *tmp;
  ARGS(7);
  BYTES(prefix, 0, 32);
  BYTES(image, 1, 32);
  BYTES(pubs, 2, ANY);
  BYTES(sec, 3, 32);
  INDEX(sec_index, 4);
  BYTES(nonces, 5, ANY);
  BYTES(o, 6, ANY);
  n = pubs.n / 32;
  if (pubs.n % 32 != 0 || n == 0 || sec_index >= n || nonces.n != (2 * n - 1) * 32 || o.n != 64 * n)
    return throw_type(env, "tsmonero_crypto: inconsistent ring signature arguments");
  tmp = malloc(64 * n);
  if (!tmp) {
    napi_throw_error(env, NULL, "tsmonero_crypto: out of memory");
    return NULL;
  }
  rc = tsm_generate_ring_signature(tmp, prefix.p, image.p, pubs.p, n, sec.p, (size_t)sec_index, nonces.p);
  if (rc == 0) memcpy(o.p, tmp, 64 * n);
  free(tmp);
  napi_create_int32(env, rc, &v);
  return v;
}

static napi_value f_check_ring_signature(napi_env env, napi_callback_info info) {
  ARGS(4);
  BYTES(prefix, 0, 32);
  BYTES(image, 1, 32);
  BYTES(pubs, 2, ANY);
  BYTES(sigs, 3, ANY);
  if (pubs.n % 32 != 0 || sigs.n != 2 * pubs.n)
    return throw_type(env, "tsmonero_crypto: pubs must be n*32 bytes and sigs n*64 bytes");
  return ret_bool(env, tsm_check_ring_signature(prefix.p, image.p, pubs.p, pubs.n / 32, sigs.p));
}

static napi_value f_check_key_image_signatures(napi_env env, napi_callback_info info) {
  napi_value v;
  ARGS(4);
  BYTES(kis, 0, ANY);
  BYTES(pubs, 1, ANY);
  BYTES(sigs, 2, ANY);
  INDEX(threads, 3);
  if (kis.n % 32 != 0 || pubs.n != kis.n || sigs.n != 2 * kis.n)
    return throw_type(env, "tsmonero_crypto: key images and keys must be n*32 bytes, signatures n*64");
  napi_create_int64(env, tsm_check_key_image_signatures(kis.p, pubs.p, sigs.p, kis.n / 32, (int)threads), &v);
  return v;
}

static napi_value f_subaddress_spend_keys(napi_env env, napi_callback_info info) {
  napi_value v;
  ARGS(6);
  BYTES(spend_pub, 0, 32);
  BYTES(view_sec, 1, 32);
  INDEX(major, 2);
  INDEX(begin, 3);
  BYTES(o, 4, ANY);
  INDEX(threads, 5);
  if (o.n % 32 != 0 || major > 0xffffffffULL || begin + o.n / 32 > 0x100000000ULL)
    return throw_type(env, "tsmonero_crypto: out must be n*32 bytes and the indices u32");
  napi_create_int32(env, tsm_subaddress_spend_keys(o.p, spend_pub.p, view_sec.p, (uint32_t)major, (uint32_t)begin, o.n / 32, (int)threads), &v);
  return v;
}

/* ---- registration ---- */

static napi_value Init(napi_env env, napi_value exports) {
  static const struct {
    const char *name;
    napi_callback cb;
  } fns[] = {
      {"keccak256", f_keccak256},
      {"hashToScalar", f_hash_to_scalar},
      {"scReduce32", f_sc_reduce32},
      {"scReduce64", f_sc_reduce64},
      {"scAdd", f_sc_add},
      {"scSub", f_sc_sub},
      {"scMul", f_sc_mul},
      {"scMulAdd", f_sc_muladd},
      {"scMulSub", f_sc_mulsub},
      {"scInvert", f_sc_invert},
      {"scCheck", f_sc_check},
      {"scIsNonZero", f_sc_isnonzero},
      {"scBatch", f_sc_batch},
      {"scCheckBatch", f_sc_check_batch},
      {"hashToScalars", f_hash_to_scalars},
      {"pointCheck", f_point_check},
      {"pointAdd", f_point_add},
      {"pointSub", f_point_sub},
      {"pointMul8", f_point_mul8},
      {"scalarMult", f_scalar_mult},
      {"scalarMultBase", f_scalar_mult_base},
      {"doubleScalarMultBase", f_double_scalar_mult_base},
      {"commit", f_commit},
      {"doubleScalarMult", f_double_scalar_mult},
      {"multiScalarMult", f_multi_scalar_mult},
      {"hashToPoint", f_hash_to_point},
      {"hashToEc", f_hash_to_ec},
      {"secretKeyToPublicKey", f_secret_key_to_public_key},
      {"generateKeyDerivation", f_generate_key_derivation},
      {"generateKeyDerivations", f_generate_key_derivations},
      {"generateKeyDerivationPairs", f_generate_key_derivation_pairs},
      {"generateKeyImages", f_generate_key_images},
      {"batchLanes", f_batch_lanes},
      {"derivationToScalar", f_derivation_to_scalar},
      {"derivePublicKey", f_derive_public_key},
      {"deriveSecretKey", f_derive_secret_key},
      {"deriveSubaddressPublicKey", f_derive_subaddress_public_key},
      {"deriveViewTag", f_derive_view_tag},
      {"deriveViewTags", f_derive_view_tags},
      {"scanOutputs", f_scan_outputs},
      {"viewTagCandidates", f_view_tag_candidates},
      {"generateKeyImage", f_generate_key_image},
      {"generateSignature", f_generate_signature},
      {"checkSignature", f_check_signature},
      {"generateRingSignature", f_generate_ring_signature},
      {"checkRingSignature", f_check_ring_signature},
      {"checkKeyImageSignatures", f_check_key_image_signatures},
      {"subaddressSpendKeys", f_subaddress_spend_keys},
      {"preparedSize", tsm_napi_prepared_size},
      {"preparePoints", tsm_napi_prepare_points},
      {"multiScalarMultPrepared", tsm_napi_msm_prepared},
      {"bulletproofPlusProve", tsm_napi_bpp_prove},
      {"clsagSign", tsm_napi_clsag_sign},
  };
  tsm_ge_init();
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    napi_value fn;
    if (napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].cb, NULL, &fn) != napi_ok ||
        napi_set_named_property(env, exports, fns[i].name, fn) != napi_ok)
      return NULL;
  }
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
