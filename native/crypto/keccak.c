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

static inline uint64_t load64le(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

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
#define LANE uint64_t
#define RCX(i) RC[i]
#include "keccak-permute.inc"
#undef LANE
#undef RCX
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

#if defined(__x86_64__) && defined(__GNUC__)
/* Four states side by side, one per 64-bit element of an AVX2 vector: the same permutation on
 * vectors, ~2.3x the throughput of four single ones where the CPU has AVX2. */
typedef uint64_t lanes4 __attribute__((vector_size(32)));
__attribute__((target("avx2"))) static void keccak_f_x4(lanes4 st[25]) {
#define LANE lanes4
#define RCX(i) ((lanes4){RC[i], RC[i], RC[i], RC[i]})
#include "keccak-permute.inc"
#undef LANE
#undef RCX
}

__attribute__((target("avx2"))) static void keccak256_x4_avx2(uint8_t *const out[4], const uint8_t *const msg[4],
                                                             const size_t len[4]) {
  uint8_t blk[4][RATE];
  lanes4 st[25];
  for (int k = 0; k < 4; k++) {
    memcpy(blk[k], msg[k], len[k]);
    memset(blk[k] + len[k], 0, RATE - len[k]);
    blk[k][len[k]] ^= 0x01;
    blk[k][RATE - 1] ^= 0x80;
  }
  for (int i = 0; i < 25; i++) st[i] = (lanes4){0, 0, 0, 0};
  for (int i = 0; i < RATE / 8; i++)
    st[i] = (lanes4){load64le(blk[0] + 8 * i), load64le(blk[1] + 8 * i), load64le(blk[2] + 8 * i), load64le(blk[3] + 8 * i)};
  keccak_f_x4(st);
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 8; j++) out[k][8 * i + j] = (uint8_t)(st[i][k] >> (8 * j));
}

static int have_avx2;
__attribute__((constructor)) static void keccak_pick_x4(void) {
  __builtin_cpu_init();
  have_avx2 = __builtin_cpu_supports("avx2");
}
#endif


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

void tsm_keccak256_x4(uint8_t *const out[4], const uint8_t *const msg[4], const size_t len[4]) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (have_avx2) {
    keccak256_x4_avx2(out, msg, len);
    return;
  }
#endif
  for (int k = 0; k < 4; k++) tsm_keccak256(out[k], msg[k], len[k]);
}
