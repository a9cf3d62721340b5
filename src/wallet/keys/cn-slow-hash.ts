/**
 * CryptoNight v0 (Monero's cn_slow_hash with variant 0, src/crypto/slow-hash.c), which seed_offset
 * (cryptonote::decrypt_key) and wallet-file key derivation (generate_chacha_key) hash passphrases
 * with. NOT IMPLEMENTED YET: it needs Keccak-f[1600] state, a 2 MiB AES-round scratchpad loop with
 * 64×64→128 multiplications, and the four final hashes BLAKE-256, Grøstl-256, JH-256 and
 * Skein-512-256 (Monero ships vectors: testdata/hash/tests-slow.txt and tests-extra-*.txt).
 * It likely belongs in crypto/ (or the C kernel) rather than here; until it exists, seed_offset
 * restores throw this error and their tests are marked todo.
 */
export function cnSlowHash(_data: Uint8Array): Uint8Array {
  throw new Error("cnSlowHash: not implemented yet (CryptoNight v0 is needed for seed_offset)");
}
