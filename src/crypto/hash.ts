/**
 * Hash constructions built on Keccak-256: Monero's tree hash (Merkle root of transaction ids).
 */
import type { Bytes, CryptoBackend } from "./backend.js";

/**
 * Monero's `tree_hash` (src/crypto/tree-hash.c) over `count` 32-byte hashes given concatenated.
 * One hash is its own root; otherwise the leaves beyond the largest power of two below `count`
 * are paired first, then the tree is folded pairwise.
 */
export function treeHash(backend: CryptoBackend, hashes: Bytes): Bytes {
  if (hashes.length === 0 || hashes.length % 32 !== 0)
    throw new TypeError(`treeHash: need a non-empty multiple of 32 bytes, got ${hashes.length}`);
  const count = hashes.length / 32;
  if (count === 1) return hashes.slice(0, 32);
  if (count === 2) return backend.keccak256(hashes);
  if (count > 0x10000000) throw new RangeError("treeHash: more than 2^28 hashes");
  let cnt = 2;
  while (cnt < count) cnt <<= 1;
  cnt >>= 1;
  const ints = new Uint8Array(cnt * 32);
  const direct = 2 * cnt - count;
  ints.set(hashes.subarray(0, direct * 32));
  for (let i = direct, j = direct; j < cnt; i += 2, j++) {
    backend.keccak256(hashes.subarray(i * 32, i * 32 + 64), ints.subarray(j * 32, j * 32 + 32));
  }
  while (cnt > 2) {
    cnt >>= 1;
    for (let i = 0, j = 0; j < cnt; i += 2, j++) {
      backend.keccak256(ints.subarray(i * 32, i * 32 + 64), ints.subarray(j * 32, j * 32 + 32));
    }
  }
  return backend.keccak256(ints.subarray(0, 64));
}
