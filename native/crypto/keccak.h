/* Keccak-256 as Monero's cn_fast_hash uses it: Keccak-f[1600], rate 136 bytes, original Keccak
 * padding (0x01 ... 0x80), 32-byte output. */
#ifndef TSM_KECCAK_H
#define TSM_KECCAK_H
#include <stddef.h>
#include <stdint.h>

void tsm_keccak256(uint8_t out[32], const uint8_t *data, size_t len);
/* Four independent hashes of one-block messages (each len[k] < 136): out[k] = keccak256(msg[k]).
 * Four states in one AVX2 permutation where the CPU has it, else four single hashes. */
void tsm_keccak256_x4(uint8_t *const out[4], const uint8_t *const msg[4], const size_t len[4]);
#define TSM_KECCAK_X4_MAX 135

/* Incremental form, for hashing buffers assembled from several pieces without copying. */
typedef struct {
  uint64_t st[25];
  uint8_t buf[136];
  size_t fill;
} tsm_keccak_ctx;

void tsm_keccak_init(tsm_keccak_ctx *c);
void tsm_keccak_update(tsm_keccak_ctx *c, const uint8_t *data, size_t len);
void tsm_keccak_final(tsm_keccak_ctx *c, uint8_t out[32]);

#endif
