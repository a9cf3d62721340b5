/* Monero key operations; each function names the crypto.cpp (v0.18.0.0) function it mirrors. */
#include "monero.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ge-x8.h"
#include "ge.h"
#include "keccak.h"
#include "sc.h"

/* hash_to_scalar: keccak then sc_reduce32 */
void tsm_hash_to_scalar(uint8_t r[32], const uint8_t *data, size_t len) {
  uint8_t h[32];
  tsm_keccak256(h, data, len);
  tsm_sc_reduce32(r, h);
}

static size_t write_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v & 0x7f) | 0x80;
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}

/* secret_key_to_public_key */
int tsm_secret_key_to_public_key(uint8_t pub[32], const uint8_t sec[32]) {
  ge_p3 p;
  if (!tsm_sc_check(sec)) return 0;
  tsm_ge_scalarmult_base(&p, sec);
  tsm_ge_p3_tobytes(pub, &p);
  return 1;
}

/* generate_key_derivation: 8 * (sec * pub) */
int tsm_generate_key_derivation(uint8_t d[32], const uint8_t pub[32], const uint8_t sec[32]) {
  ge_p3 p, q;
  ge_p2 q2;
  if (tsm_ge_frombytes(&p, pub) != 0) return 0;
  tsm_ge_scalarmult(&q, sec, &p);
  ge_p3_to_p2(&q2, &q);
  tsm_ge_mul8(&q, &q2);
  tsm_ge_p3_tobytes(d, &q);
  return 1;
}

/* generate_key_derivation for n secret keys against one public key (many wallets, one tx public
 * key): pub decoded once, its table built once (tsm_ge_scalarmult_many), one inversion for all the
 * encodings. d: n*32 bytes. 1 ok, 0 when pub does not decode, -1 out of memory. */
int tsm_generate_key_derivations(uint8_t *d, const uint8_t pub[32], const uint8_t *secs, size_t n) {
  ge_p3 p;
  ge_p2 q2;
  ge_p3 *q;
  fe *scratch;
  if (tsm_ge_frombytes(&p, pub) != 0) return 0;
  if (n == 0) return 1;
  q = malloc(sizeof(ge_p3) * n);
  scratch = malloc(sizeof(fe) * n);
  if (!q || !scratch || tsm_ge_scalarmult_many(q, secs, n, &p) != 0) {
    free(q);
    free(scratch);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    ge_p3_to_p2(&q2, &q[i]);
    tsm_ge_mul8(&q[i], &q2);
  }
  tsm_ge_p3_tobytes_many(d, q, n, scratch);
  tsm_wipe(q, sizeof(ge_p3) * n);
  tsm_wipe(scratch, sizeof(fe) * n);
  free(q);
  free(scratch);
  return 1;
}

/* generate_key_derivation for many (pub, sec) pairs (one wallet, a chunk of transactions): the
 * products in the batch kernel (eight lanes at a time where the machine has AVX-512 IFMA), one
 * inversion for all the encodings. */
int tsm_generate_key_derivation_pairs(uint8_t *d, uint8_t *ok, const uint8_t *pubs, const uint8_t *secs, size_t n) {
  ge_p3 *p = malloc(sizeof(ge_p3) * (n ? n : 1)), *q = malloc(sizeof(ge_p3) * (n ? n : 1));
  uint8_t *s = malloc(32 * (n ? n : 1)), *enc = malloc(32 * (n ? n : 1));
  fe *scratch = malloc(sizeof(fe) * (n ? n : 1));
  size_t m = 0;
  int rc = -1;
  if (!p || !q || !s || !enc || !scratch) goto done;
  for (size_t k = 0; k < n; k++) {
    ok[k] = tsm_ge_frombytes(&p[m], pubs + 32 * k) == 0;
    if (ok[k]) memcpy(s + 32 * m++, secs + 32 * k, 32);
  }
  tsm_ge_scalarmult_batch(q, s, p, m);
  for (size_t k = 0; k < m; k++) {
    ge_p2 q2;
    ge_p3_to_p2(&q2, &q[k]);
    tsm_ge_mul8(&q[k], &q2);
  }
  tsm_ge_p3_tobytes_many(enc, q, m, scratch);
  for (size_t k = 0, j = 0; k < n; k++) {
    if (ok[k])
      memcpy(d + 32 * k, enc + 32 * j++, 32);
    else
      memset(d + 32 * k, 0, 32);
  }
  rc = 0;
done:
  if (q) tsm_wipe(q, sizeof(ge_p3) * (n ? n : 1));
  if (s) tsm_wipe(s, 32 * (n ? n : 1));
  if (enc) tsm_wipe(enc, 32 * (n ? n : 1));
  free(p);
  free(q);
  free(s);
  free(enc);
  free(scratch);
  return rc;
}

/* derivation_to_scalar: hash_to_scalar(derivation || varint(index)) */
void tsm_derivation_to_scalar(uint8_t r[32], const uint8_t d[32], uint64_t index) {
  uint8_t buf[32 + 10];
  memcpy(buf, d, 32);
  size_t n = write_varint(buf + 32, index);
  tsm_hash_to_scalar(r, buf, 32 + n);
}

/* point +- derivation_to_scalar(d, index)*G into t; 0 when point does not decode */
static int derived_sum(ge_p1p1 *t, const uint8_t point[32], const uint8_t d[32], uint64_t index, int sign) {
  uint8_t s[32];
  ge_p3 p, sg;
  ge_cached c;
  if (tsm_ge_frombytes(&p, point) != 0) return 0;
  tsm_derivation_to_scalar(s, d, index);
  tsm_ge_scalarmult_base(&sg, s);
  tsm_wipe(s, sizeof s);
  ge_p3_to_cached(&c, &sg);
  if (sign > 0)
    ge_add(t, &p, &c);
  else
    ge_sub(t, &p, &c);
  return 1;
}

/* derive_public_key (sign = 1) and derive_subaddress_public_key (sign = -1): point +- s*G */
static int point_plus_derived(uint8_t r[32], const uint8_t point[32], const uint8_t d[32], uint64_t index, int sign) {
  ge_p1p1 t;
  ge_p2 o;
  if (!derived_sum(&t, point, d, index, sign)) return 0;
  ge_p1p1_to_p2(&o, &t);
  tsm_ge_p2_tobytes(r, &o);
  return 1;
}

int tsm_derive_public_key(uint8_t r[32], const uint8_t d[32], uint64_t index, const uint8_t base[32]) {
  return point_plus_derived(r, base, d, index, 1);
}

/* derive_secret_key: base + derivation_to_scalar (mod l) */
void tsm_derive_secret_key(uint8_t r[32], const uint8_t d[32], uint64_t index, const uint8_t base[32]) {
  uint8_t s[32];
  tsm_derivation_to_scalar(s, d, index);
  tsm_sc_add(r, base, s);
}

int tsm_derive_subaddress_public_key(uint8_t r[32], const uint8_t out_key[32], const uint8_t d[32], uint64_t index) {
  return point_plus_derived(r, out_key, d, index, -1);
}

/* derive_view_tag's message: "view_tag" || derivation || varint(index); returns its length */
static size_t view_tag_message(uint8_t buf[8 + 32 + 10], const uint8_t d[32], uint64_t index) {
  memcpy(buf, "view_tag", 8);
  memcpy(buf + 8, d, 32);
  return 40 + write_varint(buf + 40, index);
}

/* derive_view_tag: first byte of keccak("view_tag" || derivation || varint(index)) */
uint8_t tsm_derive_view_tag(const uint8_t d[32], uint64_t index) {
  uint8_t buf[8 + 32 + 10], h[32];
  tsm_keccak256(h, buf, view_tag_message(buf, d, index));
  return h[0];
}

/* derive_view_tag of four (derivation, index) pairs in one four-way keccak */
static void view_tags4(uint8_t tags[4], const uint8_t *const d[4], const uint32_t index[4]) {
  uint8_t buf[4][8 + 32 + 10], h[4][32];
  const uint8_t *msg[4];
  uint8_t *out[4];
  size_t len[4];
  for (int k = 0; k < 4; k++) {
    len[k] = view_tag_message(buf[k], d[k], index[k]);
    msg[k] = buf[k];
    out[k] = h[k];
  }
  tsm_keccak256_x4(out, msg, len);
  for (int k = 0; k < 4; k++) tags[k] = h[k][0];
}

void tsm_derive_view_tags(uint8_t *tags, const uint8_t *ds, const uint32_t *indices, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint8_t *d[4] = {ds + 32 * i, ds + 32 * (i + 1), ds + 32 * (i + 2), ds + 32 * (i + 3)};
    view_tags4(tags + i, d, indices + i);
  }
  for (; i < n; i++) tags[i] = tsm_derive_view_tag(ds + 32 * i, indices[i]);
}

void tsm_hash_to_scalars(uint8_t *r, const uint8_t *data, size_t len, size_t n) {
  size_t i = 0;
  if (len <= TSM_KECCAK_X4_MAX)
    for (; i + 4 <= n; i += 4) {
      const uint8_t *msg[4] = {data + len * i, data + len * (i + 1), data + len * (i + 2), data + len * (i + 3)};
      uint8_t *out[4] = {r + 32 * i, r + 32 * (i + 1), r + 32 * (i + 2), r + 32 * (i + 3)};
      const size_t lens[4] = {len, len, len, len};
      tsm_keccak256_x4(out, msg, lens);
      for (int k = 0; k < 4; k++) tsm_sc_reduce32(out[k], out[k]);
    }
  for (; i < n; i++) tsm_hash_to_scalar(r + 32 * i, data + len * i, len);
}

/* wallet2's per-output check (is_out_to_acc_precomp: view tag, then derive_subaddress_public_key)
 * over probes of one or many transactions, SCAN_CHUNK at a time: the chunk's view tags four per
 * keccak, then the spend keys D = P - Hs(d||i)*G of the probes whose tag matched (or that have none):
 * their Hs*G in the batch kernel, their encodings sharing one inversion. The index hashed for key
 * slot o is indices[o] (its output index within its transaction), or o itself when indices is NULL. */
#define SCAN_CHUNK 64
void tsm_scan_outputs(uint8_t *status, uint8_t *out, const uint8_t *ds, const uint8_t *keys, const uint16_t *tags,
                      const uint32_t *indices, const uint32_t *probes, size_t q) {
  ge_p3 pts[SCAN_CHUNK], sg[SCAN_CHUNK];
  fe scratch[SCAN_CHUNK];
  size_t slot[SCAN_CHUNK], tagged[SCAN_CHUNK];
  uint8_t got[SCAN_CHUNK + 3], enc[32 * SCAN_CHUNK], s[32 * SCAN_CHUNK];
  ge_p1p1 t;
  ge_cached c;
  for (size_t k0 = 0; k0 < q; k0 += SCAN_CHUNK) {
    size_t end = q - k0 < SCAN_CHUNK ? q : k0 + SCAN_CHUNK, nt = 0, m = 0;
    for (size_t k = k0; k < end; k++)
      if (tags[probes[2 * k + 1]] != TSM_NO_VIEW_TAG) tagged[nt++] = k;
    for (size_t j = 0; j < nt; j += 4) {
      const uint8_t *d[4];
      uint32_t idx[4];
      for (size_t u = 0; u < 4; u++) {
        size_t k = tagged[j + u < nt ? j + u : nt - 1]; /* a short last group repeats its last probe */
        uint32_t o = probes[2 * k + 1];
        d[u] = ds + 32 * (size_t)probes[2 * k];
        idx[u] = indices ? indices[o] : o;
      }
      view_tags4(got + j, d, idx);
    }
    for (size_t j = 0; j < nt; j++)
      status[tagged[j]] = got[j] == tags[probes[2 * tagged[j] + 1]] ? TSM_SCAN_SPEND_KEY : TSM_SCAN_TAG_MISMATCH;
    for (size_t k = k0; k < end; k++) {
      const uint8_t *d = ds + 32 * (size_t)probes[2 * k];
      uint32_t o = probes[2 * k + 1];
      if (tags[o] != TSM_NO_VIEW_TAG && status[k] == TSM_SCAN_TAG_MISMATCH) continue;
      /* derive_subaddress_public_key: P, and Hs(d||i) for the batch below */
      if (tsm_ge_frombytes(&pts[m], keys + 32 * (size_t)o) != 0) {
        status[k] = TSM_SCAN_BAD_KEY;
        continue;
      }
      tsm_derivation_to_scalar(s + 32 * m, d, indices ? indices[o] : o);
      status[k] = TSM_SCAN_SPEND_KEY;
      slot[m++] = k;
    }
    if (m == 0) continue;
    tsm_ge_scalarmult_base_batch(sg, s, m);
    for (size_t j = 0; j < m; j++) {
      ge_p3_to_cached(&c, &sg[j]);
      ge_sub(&t, &pts[j], &c);
      ge_p1p1_to_p3(&pts[j], &t);
    }
    tsm_ge_p3_tobytes_many(enc, pts, m, scratch);
    for (size_t j = 0; j < m; j++) memcpy(out + 32 * slot[j], enc + 32 * j, 32);
  }
  tsm_wipe(s, sizeof s);
  tsm_wipe(sg, sizeof sg);
}

/* The hub's prefilter (see monero.h): four wallets per keccak for each probe; a wallet stays a
 * candidate for wallet2's full check (tsm_scan_outputs) only if some probe passes its view tag. */
void tsm_view_tag_candidates(uint8_t *flags, const uint8_t *ds, size_t wallets, const uint16_t *tags,
                             const uint32_t *probes, size_t q) {
  uint8_t got[4];
  memset(flags, 0, wallets);
  if (wallets == 0) return;
  for (size_t k = 0; k < q; k++) {
    const uint8_t *row = ds + 32 * wallets * (size_t)probes[2 * k];
    uint32_t o = probes[2 * k + 1];
    if (tags[o] == TSM_NO_VIEW_TAG) {
      memset(flags, 1, wallets); /* an untagged output: every wallet checks it in full */
      return;
    }
    for (size_t w = 0; w < wallets; w += 4) {
      const uint8_t *d[4];
      uint32_t idx[4] = {o, o, o, o};
      for (size_t u = 0; u < 4; u++) d[u] = row + 32 * (w + u < wallets ? w + u : wallets - 1);
      view_tags4(got, d, idx);
      for (size_t u = 0; u < 4 && w + u < wallets; u++)
        if (got[u] == tags[o]) flags[w + u] = 1;
    }
  }
}

/* generate_key_image: sec * hash_to_ec(pub) */
void tsm_generate_key_image(uint8_t r[32], const uint8_t pub[32], const uint8_t sec[32]) {
  ge_p3 h, q;
  tsm_hash_to_ec(&h, pub);
  tsm_ge_scalarmult(&q, sec, &h);
  tsm_ge_p3_tobytes(r, &q);
}

/* generate_key_image for many (pub, sec) pairs (a chunk's owned outputs): the products in the batch
 * kernel, one inversion for all the encodings. */
int tsm_generate_key_images(uint8_t *ki, const uint8_t *pubs, const uint8_t *secs, size_t n) {
  ge_p3 *h = malloc(sizeof(ge_p3) * (n ? n : 1)), *q = malloc(sizeof(ge_p3) * (n ? n : 1));
  fe *scratch = malloc(sizeof(fe) * (n ? n : 1));
  int rc = -1;
  if (!h || !q || !scratch) goto done;
  for (size_t k = 0; k < n; k++) tsm_hash_to_ec(&h[k], pubs + 32 * k);
  tsm_ge_scalarmult_batch(q, secs, h, n);
  tsm_ge_p3_tobytes_many(ki, q, n, scratch);
  rc = 0;
done:
  if (q) tsm_wipe(q, sizeof(ge_p3) * (n ? n : 1));
  free(h);
  free(q);
  free(scratch);
  return rc;
}

/* generate_signature with the nonce k supplied: c = H(prefix || pub || kG), r = k - c sec.
 * Monero redraws k when c or r is zero; the caller does that here (see keys.ts). */
void tsm_generate_signature(uint8_t sig[64], const uint8_t prefix[32], const uint8_t pub[32], const uint8_t sec[32],
                            const uint8_t k[32]) {
  uint8_t buf[96], c[32], r[32];
  ge_p3 kg;
  memcpy(buf, prefix, 32);
  memcpy(buf + 32, pub, 32);
  tsm_ge_scalarmult_base(&kg, k);
  tsm_ge_p3_tobytes(buf + 64, &kg);
  tsm_hash_to_scalar(c, buf, 96);
  tsm_sc_mulsub(r, c, sec, k);
  memcpy(sig, c, 32);
  memcpy(sig + 32, r, 32);
}

static const uint8_t IDENTITY[32] = {1};

/* check_signature */
int tsm_check_signature(const uint8_t prefix[32], const uint8_t pub[32], const uint8_t sig[64]) {
  uint8_t buf[96], c[32];
  ge_p3 p;
  ge_p2 comm;
  if (tsm_ge_frombytes(&p, pub) != 0) return 0;
  if (!tsm_sc_check(sig) || !tsm_sc_check(sig + 32) || !tsm_sc_isnonzero(sig)) return 0;
  tsm_ge_double_scalarmult_base_vartime(&comm, sig, &p, sig + 32);
  memcpy(buf, prefix, 32);
  memcpy(buf + 32, pub, 32);
  tsm_ge_p2_tobytes(buf + 64, &comm);
  if (memcmp(buf + 64, IDENTITY, 32) == 0) return 0;
  tsm_hash_to_scalar(c, buf, 96);
  tsm_sc_sub(c, c, sig);
  return !tsm_sc_isnonzero(c);
}

/* generate_ring_signature. nonces: k for the signer, c_i then r_i for every other member, in
 * ring order (the order Monero draws them). */
int tsm_generate_ring_signature(uint8_t *sigs, const uint8_t prefix[32], const uint8_t image[32],
                                const uint8_t *pubs, size_t n, const uint8_t sec[32], size_t sec_index,
                                const uint8_t *nonces) {
  tsm_keccak_ctx kc;
  ge_p3 img, tmp3;
  ge_p2 tmp2;
  uint8_t sum[32] = {0}, k[32], ab[64], h[32];
  if (tsm_ge_frombytes(&img, image) != 0) return -1;
  tsm_keccak_init(&kc);
  tsm_keccak_update(&kc, prefix, 32);
  for (size_t i = 0; i < n; i++) {
    const uint8_t *pub = pubs + 32 * i;
    if (i == sec_index) {
      memcpy(k, nonces, 32);
      nonces += 32;
      tsm_ge_scalarmult_base(&tmp3, k);
      tsm_ge_p3_tobytes(ab, &tmp3);
      {
        ge_p3 hp, kh;
        tsm_hash_to_ec(&hp, pub);
        tsm_ge_scalarmult(&kh, k, &hp);
        tsm_ge_p3_tobytes(ab + 32, &kh);
      }
    } else {
      uint8_t *c = sigs + 64 * i, *r = sigs + 64 * i + 32;
      ge_p3 hp;
      memcpy(c, nonces, 32);
      memcpy(r, nonces + 32, 32);
      nonces += 64;
      if (tsm_ge_frombytes(&tmp3, pub) != 0) {
        tsm_wipe(k, sizeof k);
        return -2;
      }
      tsm_ge_double_scalarmult_base_vartime(&tmp2, c, &tmp3, r);
      tsm_ge_p2_tobytes(ab, &tmp2);
      tsm_hash_to_ec(&hp, pub);
      tsm_ge_double_scalarmult_vartime(&tmp2, r, &hp, c, &img);
      tsm_ge_p2_tobytes(ab + 32, &tmp2);
      tsm_sc_add(sum, sum, c);
    }
    tsm_keccak_update(&kc, ab, 64);
  }
  tsm_keccak_final(&kc, h);
  tsm_sc_reduce32(h, h);
  tsm_sc_sub(sigs + 64 * sec_index, h, sum);
  tsm_sc_mulsub(sigs + 64 * sec_index + 32, sigs + 64 * sec_index, sec, k);
  tsm_wipe(k, sizeof k);
  return 0;
}

/* check_ring_signature */
int tsm_check_ring_signature(const uint8_t prefix[32], const uint8_t image[32], const uint8_t *pubs, size_t n,
                             const uint8_t *sigs) {
  tsm_keccak_ctx kc;
  ge_p3 img, p, hp;
  ge_p2 tmp2;
  uint8_t sum[32] = {0}, ab[64], h[32];
  if (tsm_ge_frombytes(&img, image) != 0) return 0;
  tsm_keccak_init(&kc);
  tsm_keccak_update(&kc, prefix, 32);
  for (size_t i = 0; i < n; i++) {
    const uint8_t *pub = pubs + 32 * i, *c = sigs + 64 * i, *r = sigs + 64 * i + 32;
    if (!tsm_sc_check(c) || !tsm_sc_check(r)) return 0;
    if (tsm_ge_frombytes(&p, pub) != 0) return 0;
    tsm_ge_double_scalarmult_base_vartime(&tmp2, c, &p, r);
    tsm_ge_p2_tobytes(ab, &tmp2);
    tsm_hash_to_ec(&hp, pub);
    tsm_ge_double_scalarmult_vartime(&tmp2, r, &hp, c, &img);
    tsm_ge_p2_tobytes(ab + 32, &tmp2);
    tsm_sc_add(sum, sum, c);
    tsm_keccak_update(&kc, ab, 64);
  }
  tsm_keccak_final(&kc, h);
  tsm_sc_reduce32(h, h);
  tsm_sc_sub(h, h, sum);
  return !tsm_sc_isnonzero(h);
}

/* ---- import_key_images: many one-member ring signatures over their own key image ---- */

/* l, the order of the prime subgroup, as a little-endian integer (not reduced: l·P is the identity
 * exactly when P has no torsion component) */
static const uint8_t CURVE_ORDER[32] = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
                                        0xa2, 0xde, 0xf9, 0xde, 0x14, 0,    0,    0,    0,    0,    0,
                                        0,    0,    0,    0,    0,    0,    0,    0,    0,    0x10};
static const uint8_t ZERO32[32] = {0};

typedef struct {
  const uint8_t *kis, *pubs, *sigs;
  size_t from, to;
  /* first failing index in [from, to) and why (1 domain, 2 signature), or to and 0 */
  size_t fail_at;
  int kind;
} ki_batch;

/* check_ring_signature(hash = ki, ki, {pub}, sig) with the key image already decoded */
static int check_one(const uint8_t k[32], const ge_p3 *ki, const uint8_t pub[32], const uint8_t sig[64]) {
  tsm_keccak_ctx kc;
  ge_p3 p, hp;
  ge_p2 tmp2;
  uint8_t ab[64], h[32];
  const uint8_t *c = sig, *r = sig + 32;
  if (!tsm_sc_check(c) || !tsm_sc_check(r)) return 0;
  if (tsm_ge_frombytes(&p, pub) != 0) return 0;
  tsm_ge_double_scalarmult_base_vartime(&tmp2, c, &p, r);
  tsm_ge_p2_tobytes(ab, &tmp2);
  tsm_hash_to_ec(&hp, pub);
  tsm_ge_double_scalarmult_vartime(&tmp2, r, &hp, c, ki);
  tsm_ge_p2_tobytes(ab + 32, &tmp2);
  tsm_keccak_init(&kc);
  tsm_keccak_update(&kc, k, 32);
  tsm_keccak_update(&kc, ab, 64);
  tsm_keccak_final(&kc, h);
  tsm_sc_reduce32(h, h);
  tsm_sc_sub(h, h, c);
  return !tsm_sc_isnonzero(h);
}

static void ki_batch_run(void *p) {
  ki_batch *b = p;
  ge_p3 ki;
  ge_p2 r;
  fe d;
  b->fail_at = b->to;
  b->kind = 0;
  for (size_t i = b->from; i < b->to; i++) {
    const uint8_t *k = b->kis + 32 * i;
    /* rct::scalarmultKey(ki, curveOrder()) == identity; a public point, so variable time is fine.
     * The identity in projective form: X = 0 and Y = Z (no inversion needed) */
    if (tsm_ge_frombytes(&ki, k) != 0) goto domain;
    tsm_ge_double_scalarmult_vartime(&r, CURVE_ORDER, &ki, ZERO32, &ki);
    fe_sub(&d, &r.Y, &r.Z);
    if (!fe_iszero(&r.X) || !fe_iszero(&d)) goto domain;
    if (!check_one(k, &ki, b->pubs + 32 * i, b->sigs + 64 * i)) {
      b->fail_at = i;
      b->kind = 2;
      return;
    }
    continue;
  domain:
    b->fail_at = i;
    b->kind = 1;
    return;
  }
}

static void *ki_batch_thread(void *p) {
  ki_batch_run(p);
  return NULL;
}

int64_t tsm_check_key_image_signatures(const uint8_t *kis, const uint8_t *pubs, const uint8_t *sigs, size_t n,
                                       int threads) {
  ki_batch a = {kis, pubs, sigs, 0, n, 0, 0}, b = {kis, pubs, sigs, n, n, 0, 0};
  pthread_t th;
  int spawned = 0;
  if (threads > 1 && n >= 16) {
    a.to = n / 2;
    b.from = n / 2;
    spawned = pthread_create(&th, NULL, ki_batch_thread, &b) == 0;
    if (!spawned) a.to = n;
  }
  ki_batch_run(&a);
  if (spawned) pthread_join(th, NULL);
  else if (a.to < n) {
    b.from = a.to;
    ki_batch_run(&b);
  }
  if (a.kind) return (int64_t)a.fail_at * 4 + a.kind;
  if (b.kind && b.from < b.to) return (int64_t)b.fail_at * 4 + b.kind;
  return -1;
}

/* get_subaddress_spend_public_keys (device_default.cpp): D = B + Hs("SubAddr\0" || a || major ||
 * minor)·G for minors begin..end-1 of account `major`, (0, 0) being B itself. B's cached form is
 * built once and the encodings share one inversion per chunk. */
#define SUBADDR_CHUNK 256
typedef struct {
  uint8_t *out;
  const ge_cached *b;
  const uint8_t *spend_pub, *view_sec;
  uint32_t major;
  uint64_t from, to; /* minors */
} subaddr_batch;

static void subaddr_batch_run(subaddr_batch *w) {
  ge_p3 p[SUBADDR_CHUNK], mg[SUBADDR_CHUNK];
  fe scratch[SUBADDR_CHUNK];
  uint8_t data[48], m[32 * SUBADDR_CHUNK];
  ge_p1p1 t;
  memcpy(data, "SubAddr", 8); /* with its terminating zero, as the reference hashes it */
  memcpy(data + 8, w->view_sec, 32);
  data[40] = (uint8_t)w->major;
  data[41] = (uint8_t)(w->major >> 8);
  data[42] = (uint8_t)(w->major >> 16);
  data[43] = (uint8_t)(w->major >> 24);
  for (uint64_t c = w->from; c < w->to; c += SUBADDR_CHUNK) {
    size_t k = (size_t)(w->to - c < SUBADDR_CHUNK ? w->to - c : SUBADDR_CHUNK);
    for (size_t i = 0; i < k; i++) {
      uint32_t minor = (uint32_t)(c + i);
      data[44] = (uint8_t)minor;
      data[45] = (uint8_t)(minor >> 8);
      data[46] = (uint8_t)(minor >> 16);
      data[47] = (uint8_t)(minor >> 24);
      tsm_hash_to_scalar(m + 32 * i, data, 48);
    }
    /* the chunk's m·G together (eight lanes where the machine has AVX-512 IFMA) */
    tsm_ge_scalarmult_base_batch(mg, m, k);
    for (size_t i = 0; i < k; i++) {
      ge_add(&t, &mg[i], w->b);
      ge_p1p1_to_p3(&p[i], &t);
    }
    tsm_ge_p3_tobytes_many(w->out + 32 * (c - w->from), p, k, scratch);
    if (w->major == 0 && c == 0) memcpy(w->out, w->spend_pub, 32);
  }
  tsm_wipe(data, sizeof data);
  tsm_wipe(m, sizeof m);
  tsm_wipe(mg, sizeof mg);
  tsm_wipe(&t, sizeof t);
}

static void *subaddr_batch_thread(void *p) {
  subaddr_batch_run(p);
  return NULL;
}

int tsm_subaddress_spend_keys(uint8_t *out, const uint8_t spend_pub[32], const uint8_t view_sec[32], uint32_t major,
                              uint32_t begin, size_t n, int threads) {
  ge_p3 bp;
  ge_cached b;
  pthread_t th;
  int spawned = 0;
  if (tsm_ge_frombytes(&bp, spend_pub) != 0) return 0;
  ge_p3_to_cached(&b, &bp);
  uint64_t end = (uint64_t)begin + n, half = begin + (uint64_t)n / 2;
  subaddr_batch lo = {out, &b, spend_pub, view_sec, major, begin, end};
  subaddr_batch hi = {out + 32 * (half - begin), &b, spend_pub, view_sec, major, half, end};
  if (threads > 1 && n >= 2 * SUBADDR_CHUNK) {
    lo.to = half;
    spawned = pthread_create(&th, NULL, subaddr_batch_thread, &hi) == 0;
    if (!spawned) lo.to = end;
  }
  subaddr_batch_run(&lo);
  if (spawned) pthread_join(th, NULL);
  return 1;
}
