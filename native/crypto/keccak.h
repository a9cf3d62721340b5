/* Keccak-256 as Monero's cn_fast_hash uses it: Keccak-f[1600], rate 136 bytes, original Keccak
 * padding (0x01 ... 0x80), 32-byte output. */
#ifndef TSM_KECCAK_H
#define TSM_KECCAK_H
#include <stddef.h>
#include <stdint.h>

void tsm_keccak256(uint8_t out[32], const uint8_t *data, size_t len);

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
