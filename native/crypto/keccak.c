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

/* One permutation (Monero: keccakf), the 25 lanes (index x + 5y) in locals, two rounds per pass:
 * state a -> e -> a, so no lane is copied between rounds. Each round: theta (d[x] = c[x-1] ^
 * rotl(c[x+1], 1) from the column parities c), then per output row y the five lanes that rho and
 * pi bring there (lane (x, y) moves to (y, 2x + 3y) rotated by its rho offset), chi along the row,
 * iota on lane 0, and the row's share of the next round's parities c.
 *
 * Lane complementing: the lanes 1, 2, 8, 12, 17 and 20 are kept complemented while the state is
 * in locals (complemented on load and store). Column parities and theta carry the complement
 * through (a lane's complement flips with d[x]), and chi's b ^ (~b1 & b2) is rewritten per lane with
 * ~b1 & b2 = ~(b1 | ~b2) so that each output lands with the complement its position needs: 16 NOTs
 * a round instead of chi's 25. The round body is generated from those rules (native/crypto/README.md). */
static inline __attribute__((always_inline)) void permute(uint64_t st[25]) {
  uint64_t a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24;
  uint64_t e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24;
  uint64_t b0, b1, b2, b3, b4, c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
  a0 = st[0]; a1 = ~st[1]; a2 = ~st[2]; a3 = st[3]; a4 = st[4];
  a5 = st[5]; a6 = st[6]; a7 = st[7]; a8 = ~st[8]; a9 = st[9];
  a10 = st[10]; a11 = st[11]; a12 = ~st[12]; a13 = st[13]; a14 = st[14];
  a15 = st[15]; a16 = st[16]; a17 = ~st[17]; a18 = st[18]; a19 = st[19];
  a20 = ~st[20]; a21 = st[21]; a22 = st[22]; a23 = st[23]; a24 = st[24];
  c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20;
  c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21;
  c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22;
  c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23;
  c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24;
  for (int r = 0; r < 24; r += 2) {
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
    e0 = b0 ^ (b1 | b2);
    e1 = b1 ^ (~b2 | b3);
    e2 = b2 ^ (b3 & b4);
    e3 = b3 ^ (b4 | b0);
    e4 = b4 ^ (b0 & b1);
    e0 ^= RC[r];
    c0 = e0;
    c1 = e1;
    c2 = e2;
    c3 = e3;
    c4 = e4;
    b0 = ROTL(a3 ^ d3, 28);
    b1 = ROTL(a9 ^ d4, 20);
    b2 = ROTL(a10 ^ d0, 3);
    b3 = ROTL(a16 ^ d1, 45);
    b4 = ROTL(a22 ^ d2, 61);
    e5 = b0 ^ (b1 | b2);
    e6 = b1 ^ (b2 & b3);
    e7 = b2 ^ (b3 | ~b4);
    e8 = b3 ^ (b4 | b0);
    e9 = b4 ^ (b0 & b1);
    c0 ^= e5;
    c1 ^= e6;
    c2 ^= e7;
    c3 ^= e8;
    c4 ^= e9;
    b0 = ROTL(a1 ^ d1, 1);
    b1 = ROTL(a7 ^ d2, 6);
    b2 = ROTL(a13 ^ d3, 25);
    b3 = ROTL(a19 ^ d4, 8);
    b4 = ROTL(a20 ^ d0, 18);
    e10 = b0 ^ (b1 | b2);
    e11 = b1 ^ (b2 & b3);
    e12 = b2 ^ (~b3 & b4);
    e13 = ~(b3 ^ (b4 | b0));
    e14 = b4 ^ (b0 & b1);
    c0 ^= e10;
    c1 ^= e11;
    c2 ^= e12;
    c3 ^= e13;
    c4 ^= e14;
    b0 = ROTL(a4 ^ d4, 27);
    b1 = ROTL(a5 ^ d0, 36);
    b2 = ROTL(a11 ^ d1, 10);
    b3 = ROTL(a17 ^ d2, 15);
    b4 = ROTL(a23 ^ d3, 56);
    e15 = b0 ^ (b1 & b2);
    e16 = b1 ^ (b2 | b3);
    e17 = b2 ^ (~b3 | b4);
    e18 = ~(b3 ^ (b4 & b0));
    e19 = b4 ^ (b0 | b1);
    c0 ^= e15;
    c1 ^= e16;
    c2 ^= e17;
    c3 ^= e18;
    c4 ^= e19;
    b0 = ROTL(a2 ^ d2, 62);
    b1 = ROTL(a8 ^ d3, 55);
    b2 = ROTL(a14 ^ d4, 39);
    b3 = ROTL(a15 ^ d0, 41);
    b4 = ROTL(a21 ^ d1, 2);
    e20 = b0 ^ (~b1 & b2);
    e21 = ~(b1 ^ (b2 | b3));
    e22 = b2 ^ (b3 & b4);
    e23 = b3 ^ (b4 | b0);
    e24 = b4 ^ (b0 & b1);
    c0 ^= e20;
    c1 ^= e21;
    c2 ^= e22;
    c3 ^= e23;
    c4 ^= e24;
    d0 = c4 ^ ROTL(c1, 1);
    d1 = c0 ^ ROTL(c2, 1);
    d2 = c1 ^ ROTL(c3, 1);
    d3 = c2 ^ ROTL(c4, 1);
    d4 = c3 ^ ROTL(c0, 1);
    b0 = e0 ^ d0;
    b1 = ROTL(e6 ^ d1, 44);
    b2 = ROTL(e12 ^ d2, 43);
    b3 = ROTL(e18 ^ d3, 21);
    b4 = ROTL(e24 ^ d4, 14);
    a0 = b0 ^ (b1 | b2);
    a1 = b1 ^ (~b2 | b3);
    a2 = b2 ^ (b3 & b4);
    a3 = b3 ^ (b4 | b0);
    a4 = b4 ^ (b0 & b1);
    a0 ^= RC[r + 1];
    c0 = a0;
    c1 = a1;
    c2 = a2;
    c3 = a3;
    c4 = a4;
    b0 = ROTL(e3 ^ d3, 28);
    b1 = ROTL(e9 ^ d4, 20);
    b2 = ROTL(e10 ^ d0, 3);
    b3 = ROTL(e16 ^ d1, 45);
    b4 = ROTL(e22 ^ d2, 61);
    a5 = b0 ^ (b1 | b2);
    a6 = b1 ^ (b2 & b3);
    a7 = b2 ^ (b3 | ~b4);
    a8 = b3 ^ (b4 | b0);
    a9 = b4 ^ (b0 & b1);
    c0 ^= a5;
    c1 ^= a6;
    c2 ^= a7;
    c3 ^= a8;
    c4 ^= a9;
    b0 = ROTL(e1 ^ d1, 1);
    b1 = ROTL(e7 ^ d2, 6);
    b2 = ROTL(e13 ^ d3, 25);
    b3 = ROTL(e19 ^ d4, 8);
    b4 = ROTL(e20 ^ d0, 18);
    a10 = b0 ^ (b1 | b2);
    a11 = b1 ^ (b2 & b3);
    a12 = b2 ^ (~b3 & b4);
    a13 = ~(b3 ^ (b4 | b0));
    a14 = b4 ^ (b0 & b1);
    c0 ^= a10;
    c1 ^= a11;
    c2 ^= a12;
    c3 ^= a13;
    c4 ^= a14;
    b0 = ROTL(e4 ^ d4, 27);
    b1 = ROTL(e5 ^ d0, 36);
    b2 = ROTL(e11 ^ d1, 10);
    b3 = ROTL(e17 ^ d2, 15);
    b4 = ROTL(e23 ^ d3, 56);
    a15 = b0 ^ (b1 & b2);
    a16 = b1 ^ (b2 | b3);
    a17 = b2 ^ (~b3 | b4);
    a18 = ~(b3 ^ (b4 & b0));
    a19 = b4 ^ (b0 | b1);
    c0 ^= a15;
    c1 ^= a16;
    c2 ^= a17;
    c3 ^= a18;
    c4 ^= a19;
    b0 = ROTL(e2 ^ d2, 62);
    b1 = ROTL(e8 ^ d3, 55);
    b2 = ROTL(e14 ^ d4, 39);
    b3 = ROTL(e15 ^ d0, 41);
    b4 = ROTL(e21 ^ d1, 2);
    a20 = b0 ^ (~b1 & b2);
    a21 = ~(b1 ^ (b2 | b3));
    a22 = b2 ^ (b3 & b4);
    a23 = b3 ^ (b4 | b0);
    a24 = b4 ^ (b0 & b1);
    c0 ^= a20;
    c1 ^= a21;
    c2 ^= a22;
    c3 ^= a23;
    c4 ^= a24;
  }
  st[0] = a0; st[1] = ~a1; st[2] = ~a2; st[3] = a3; st[4] = a4;
  st[5] = a5; st[6] = a6; st[7] = a7; st[8] = ~a8; st[9] = a9;
  st[10] = a10; st[11] = a11; st[12] = ~a12; st[13] = a13; st[14] = a14;
  st[15] = a15; st[16] = a16; st[17] = ~a17; st[18] = a18; st[19] = a19;
  st[20] = ~a20; st[21] = a21; st[22] = a22; st[23] = a23; st[24] = a24;
}

static void keccak_f_portable(uint64_t st[25]) { permute(st); }

#if defined(__x86_64__) && defined(__GNUC__)
/* The same code compiled for BMI1/BMI2 (andn, three-operand rorx): ~8 % faster where the CPU has
 * them, picked once at load. */
__attribute__((target("bmi,bmi2"))) static void keccak_f_bmi2(uint64_t st[25]) { permute(st); }
static void (*keccak_f)(uint64_t st[25]) = keccak_f_portable;
__attribute__((constructor)) static void keccak_pick(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2")) keccak_f = keccak_f_bmi2;
}
#else
#define keccak_f keccak_f_portable
#endif

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
