/* Monero's key operations (src/crypto/crypto.cpp, v0.18.0.0) on top of the curve kernel.
 * Functions returning int return 1 on success and 0 exactly where Monero returns false. */
#ifndef TSM_MONERO_H
#define TSM_MONERO_H
#include <stddef.h>
#include <stdint.h>

void tsm_hash_to_scalar(uint8_t r[32], const uint8_t *data, size_t len);
int tsm_secret_key_to_public_key(uint8_t pub[32], const uint8_t sec[32]);
int tsm_generate_key_derivation(uint8_t d[32], const uint8_t pub[32], const uint8_t sec[32]);
/* n derivations, secs and d n*32 bytes: 1 ok, 0 pub does not decode, -1 out of memory */
int tsm_generate_key_derivations(uint8_t *d, const uint8_t pub[32], const uint8_t *secs, size_t n);
/* generate_key_derivation for n (pub, sec) pairs, pubs/secs/d n*32 bytes: ok[k] = 1 and d + 32k
 * written when pubs + 32k decodes, else ok[k] = 0 and 32 zero bytes. 0 done, -1 out of memory. */
int tsm_generate_key_derivation_pairs(uint8_t *d, uint8_t *ok, const uint8_t *pubs, const uint8_t *secs, size_t n);
void tsm_derivation_to_scalar(uint8_t r[32], const uint8_t d[32], uint64_t index);
int tsm_derive_public_key(uint8_t r[32], const uint8_t d[32], uint64_t index, const uint8_t base[32]);
void tsm_derive_secret_key(uint8_t r[32], const uint8_t d[32], uint64_t index, const uint8_t base[32]);
int tsm_derive_subaddress_public_key(uint8_t r[32], const uint8_t out_key[32], const uint8_t d[32], uint64_t index);
uint8_t tsm_derive_view_tag(const uint8_t d[32], uint64_t index);
/* tags[i] = derive_view_tag(ds + 32i, indices[i]) for i < n */
void tsm_derive_view_tags(uint8_t *tags, const uint8_t *ds, const uint32_t *indices, size_t n);
/* hash_to_scalar of n inputs of `len` bytes each, concatenated in data; r: n*32 bytes */
void tsm_hash_to_scalars(uint8_t *r, const uint8_t *data, size_t len, size_t n);
/* Output scanning for one transaction (wallet2 check_acc_out_precomp per output and derivation).
 * Probe k is (derivation probes[2k], output probes[2k+1]): with d = ds + 32*probes[2k] and
 * o = probes[2k+1], the output's view tag tags[o] (0..255, or TSM_NO_VIEW_TAG) is checked against
 * derive_view_tag(d, o), then derive_subaddress_public_key(keys + 32o, d, o) goes to out + 32k.
 * status[k]: TSM_SCAN_TAG_MISMATCH, TSM_SCAN_BAD_KEY (the output key does not decode) or
 * TSM_SCAN_SPEND_KEY (out written). Indices are not checked here (the glue does). */
#define TSM_NO_VIEW_TAG 256
#define TSM_SCAN_TAG_MISMATCH 0
#define TSM_SCAN_BAD_KEY 1
#define TSM_SCAN_SPEND_KEY 2
void tsm_scan_outputs(uint8_t *status, uint8_t *out, const uint8_t *ds, const uint8_t *keys, const uint16_t *tags,
                      const uint32_t *indices, const uint32_t *probes, size_t q);
/* Many wallets' view tag check of one transaction (the hub's shared scan): ds is rows x wallets x 32
 * bytes (row r: tx public key r's derivation for every wallet, wallet-major within the row); probe
 * k is (row probes[2k], output probes[2k+1]). flags[w] = 1 when some probe's output has no view tag
 * or derive_view_tag(ds[row][w], output) equals its tag, else 0. */
void tsm_view_tag_candidates(uint8_t *flags, const uint8_t *ds, size_t wallets, const uint16_t *tags,
                             const uint32_t *probes, size_t q);
void tsm_generate_key_image(uint8_t r[32], const uint8_t pub[32], const uint8_t sec[32]);
/* generate_key_image for n (pub, sec) pairs, n*32 bytes each. 0 done, -1 out of memory. */
int tsm_generate_key_images(uint8_t *ki, const uint8_t *pubs, const uint8_t *secs, size_t n);
void tsm_generate_signature(uint8_t sig[64], const uint8_t prefix[32], const uint8_t pub[32], const uint8_t sec[32],
                            const uint8_t k[32]);
int tsm_check_signature(const uint8_t prefix[32], const uint8_t pub[32], const uint8_t sig[64]);
/* 0 on success; -1 when the key image does not decode, -2 when a ring member (other than the
 * signer's) does not decode: the cases where Monero aborts. */
int tsm_generate_ring_signature(uint8_t *sigs, const uint8_t prefix[32], const uint8_t image[32],
                                const uint8_t *pubs, size_t n, const uint8_t sec[32], size_t sec_index,
                                const uint8_t *nonces);
int tsm_check_ring_signature(const uint8_t prefix[32], const uint8_t image[32], const uint8_t *pubs, size_t n,
                             const uint8_t *sigs);
/* wallet2::import_key_images' checks of n signed key images (32-byte kis, 32-byte output keys,
 * 64-byte one-member ring signatures over the key image): each image in the prime-order subgroup,
 * each signature good; on `threads` > 1 the second half runs on a second thread. −1 when all hold,
 * else 4·index + 1 (image outside the subgroup) or + 2 (bad signature) for the first that fails. */
int64_t tsm_check_key_image_signatures(const uint8_t *kis, const uint8_t *pubs, const uint8_t *sigs, size_t n,
                                       int threads);
/* get_subaddress_spend_public_keys: n subaddress spend public keys of account `major` from minor
 * `begin` (begin + n <= 2^32) into out (n*32 bytes); on `threads` > 1 the second half runs on a
 * second thread. 1 ok, 0 when spend_pub does not decode. */
int tsm_subaddress_spend_keys(uint8_t *out, const uint8_t spend_pub[32], const uint8_t view_sec[32], uint32_t major,
                              uint32_t begin, size_t n, int threads);

#endif
