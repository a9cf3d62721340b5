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

#define ROTL(v, n) (((v) << (n)) | ((v) >> (64 - (n))))

/* One permutation with the 25 lanes (index x + 5y) held in locals. Each round: theta (column
 * parities c, d[x] = c[x-1] ^ rotl(c[x+1], 1)), then rho and pi together (lane (x, y), after
 * xoring d[x], rotates by its rho offset and moves to (y, 2x + 3y)), then chi along each row and
 * iota. The straight-line round body is generated from those rules (native/crypto/README.md). */
static void keccak_f(uint64_t st[25]) {
  uint64_t a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24;
  uint64_t b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23, b24;
  uint64_t c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
  a0 = st[0]; a1 = st[1]; a2 = st[2]; a3 = st[3]; a4 = st[4];
  a5 = st[5]; a6 = st[6]; a7 = st[7]; a8 = st[8]; a9 = st[9];
  a10 = st[10]; a11 = st[11]; a12 = st[12]; a13 = st[13]; a14 = st[14];
  a15 = st[15]; a16 = st[16]; a17 = st[17]; a18 = st[18]; a19 = st[19];
  a20 = st[20]; a21 = st[21]; a22 = st[22]; a23 = st[23]; a24 = st[24];
  for (int round = 0; round < 24; round++) {
    c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20;
    c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21;
    c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22;
    c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23;
    c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24;
    d0 = c4 ^ ROTL(c1, 1);
    d1 = c0 ^ ROTL(c2, 1);
    d2 = c1 ^ ROTL(c3, 1);
    d3 = c2 ^ ROTL(c4, 1);
    d4 = c3 ^ ROTL(c0, 1);
    b0 = a0 ^ d0;
    b1 = ROTL(a6 ^ d1, 44);
    b2 = ROTL(a12 ^ d2, 43);
    b3 = ROTL(a18 ^ d3, 21);
    b4 = ROTL(a24 ^ d4, 14);
    b5 = ROTL(a3 ^ d3, 28);
    b6 = ROTL(a9 ^ d4, 20);
    b7 = ROTL(a10 ^ d0, 3);
    b8 = ROTL(a16 ^ d1, 45);
    b9 = ROTL(a22 ^ d2, 61);
    b10 = ROTL(a1 ^ d1, 1);
    b11 = ROTL(a7 ^ d2, 6);
    b12 = ROTL(a13 ^ d3, 25);
    b13 = ROTL(a19 ^ d4, 8);
    b14 = ROTL(a20 ^ d0, 18);
    b15 = ROTL(a4 ^ d4, 27);
    b16 = ROTL(a5 ^ d0, 36);
    b17 = ROTL(a11 ^ d1, 10);
    b18 = ROTL(a17 ^ d2, 15);
    b19 = ROTL(a23 ^ d3, 56);
    b20 = ROTL(a2 ^ d2, 62);
    b21 = ROTL(a8 ^ d3, 55);
    b22 = ROTL(a14 ^ d4, 39);
    b23 = ROTL(a15 ^ d0, 41);
    b24 = ROTL(a21 ^ d1, 2);
    a0 = b0 ^ (~b1 & b2);
    a1 = b1 ^ (~b2 & b3);
    a2 = b2 ^ (~b3 & b4);
    a3 = b3 ^ (~b4 & b0);
    a4 = b4 ^ (~b0 & b1);
    a5 = b5 ^ (~b6 & b7);
    a6 = b6 ^ (~b7 & b8);
    a7 = b7 ^ (~b8 & b9);
    a8 = b8 ^ (~b9 & b5);
    a9 = b9 ^ (~b5 & b6);
    a10 = b10 ^ (~b11 & b12);
    a11 = b11 ^ (~b12 & b13);
    a12 = b12 ^ (~b13 & b14);
    a13 = b13 ^ (~b14 & b10);
    a14 = b14 ^ (~b10 & b11);
    a15 = b15 ^ (~b16 & b17);
    a16 = b16 ^ (~b17 & b18);
    a17 = b17 ^ (~b18 & b19);
    a18 = b18 ^ (~b19 & b15);
    a19 = b19 ^ (~b15 & b16);
    a20 = b20 ^ (~b21 & b22);
    a21 = b21 ^ (~b22 & b23);
    a22 = b22 ^ (~b23 & b24);
    a23 = b23 ^ (~b24 & b20);
    a24 = b24 ^ (~b20 & b21);
    a0 ^= RC[round];
  }
  st[0] = a0; st[1] = a1; st[2] = a2; st[3] = a3; st[4] = a4;
  st[5] = a5; st[6] = a6; st[7] = a7; st[8] = a8; st[9] = a9;
  st[10] = a10; st[11] = a11; st[12] = a12; st[13] = a13; st[14] = a14;
  st[15] = a15; st[16] = a16; st[17] = a17; st[18] = a18; st[19] = a19;
  st[20] = a20; st[21] = a21; st[22] = a22; st[23] = a23; st[24] = a24;
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
