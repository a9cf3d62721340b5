/**
 * CryptoNight v0 (Monero's cn_slow_hash with variant 0, src/crypto/slow-hash.c), which seed_offset
 * (cryptonote::decrypt_key / encrypt_key) hashes passphrases with. The implementation lives in
 * crypto/slow-hash.ts; this synchronous call blocks its thread for about a tenth of a second, which
 * a one-off restore can afford. Services that hash often should use the worker-backed
 * `cnSlowHash` from crypto/slow-hash.ts instead.
 */
import { cnSlowHashSync } from "../../crypto/slow-hash.js";

export function cnSlowHash(data: Uint8Array): Uint8Array {
  return cnSlowHashSync(data, 0);
}
