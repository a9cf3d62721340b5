/* Keccak-f[1600] permutation and the Keccak-256 sponge (reference: Monero src/crypto/keccak.c
 * for the parameters; the permutation follows the Keccak specification's step mappings). */
#include "keccak.h"

#include <string.h>

#define RATE 136

/* iota constants, produced by the specification's LFSR rc(t) (see the generator note in
 * native/crypto/README.md). */
static const uint64_t RC[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/* rho rotation for lane (x, y), indexed x + 5y. */
static const unsigned RHO[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                                 25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};

static inline uint64_t rotl(uint64_t v, unsigned n) { return n ? (v << n) | (v >> (64 - n)) : v; }

static void keccak_f(uint64_t a[25]) {
  uint64_t b[25], c[5], d[5];
  for (int round = 0; round < 24; round++) {
    /* theta */
    for (int x = 0; x < 5; x++) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    for (int x = 0; x < 5; x++) d[x] = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1);
    for (int i = 0; i < 25; i++) a[i] ^= d[i % 5];
    /* rho and pi: lane (x, y) moves to (y, 2x + 3y) */
    for (int x = 0; x < 5; x++)
      for (int y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y], RHO[x + 5 * y]);
    /* chi */
    for (int y = 0; y < 25; y += 5)
      for (int x = 0; x < 5; x++) a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
    /* iota */
    a[0] ^= RC[round];
  }
}

static inline uint64_t load64le(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static void absorb_block(uint64_t st[25], const uint8_t *blk) {
  for (int i = 0; i < RATE / 8; i++) st[i] ^= load64le(blk + 8 * i);
  keccak_f(st);
}

void tsm_keccak_init(tsm_keccak_ctx *c) {
  memset(c->st, 0, sizeof c->st);
  c->fill = 0;
}

void tsm_keccak_update(tsm_keccak_ctx *c, const uint8_t *data, size_t len) {
  if (c->fill) {
    size_t take = RATE - c->fill;
    if (take > len) take = len;
    memcpy(c->buf + c->fill, data, take);
    c->fill += take;
    data += take;
    len -= take;
    if (c->fill < RATE) return;
    absorb_block(c->st, c->buf);
    c->fill = 0;
  }
  while (len >= RATE) {
    absorb_block(c->st, data);
    data += RATE;
    len -= RATE;
  }
  if (len) {
    memcpy(c->buf, data, len);
    c->fill = len;
  }
}

void tsm_keccak_final(tsm_keccak_ctx *c, uint8_t out[32]) {
  /* original Keccak multi-rate padding: 0x01, zeros, 0x80 (one byte 0x81 if they coincide) */
  memset(c->buf + c->fill, 0, RATE - c->fill);
  c->buf[c->fill] ^= 0x01;
  c->buf[RATE - 1] ^= 0x80;
  absorb_block(c->st, c->buf);
  for (int i = 0; i < 4; i++) {
    uint64_t v = c->st[i];
    for (int j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(v >> (8 * j));
  }
}

void tsm_keccak256(uint8_t out[32], const uint8_t *data, size_t len) {
  tsm_keccak_ctx c;
  tsm_keccak_init(&c);
  tsm_keccak_update(&c, data, len);
  tsm_keccak_final(&c, out);
}
