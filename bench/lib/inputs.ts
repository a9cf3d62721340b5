/**
 * Benchmark inputs made without either crypto backend (on @noble/curves and @noble/hashes), so a
 * suite can still time one backend while the other is missing or a placeholder.
 *
 * Everything here is for benchmarks only: the randomness is node:crypto's, the signature is a
 * straightforward transcription of Monero's `generate_signature`, none of it is constant time.
 */
import { randomBytes } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { keccak_256 } from "@noble/hashes/sha3.js";

/** ℓ, the order of the prime subgroup. */
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;

export function bytesToBigLE(b: Uint8Array): bigint {
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]);
  return n;
}

export function bigToBytesLE(n: bigint, len = 32): Uint8Array {
  const out = new Uint8Array(len);
  let v = n;
  for (let i = 0; i < len; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

const mod = (a: bigint): bigint => ((a % L) + L) % L;

/** A uniformly random canonical non-zero scalar (like Monero's `random_scalar`). */
export function randomScalar(): Uint8Array {
  for (;;) {
    const s = bytesToBigLE(randomBytes(64)) % L;
    if (s !== 0n) return bigToBytesLE(s);
  }
}

/** s·G, compressed, for a canonical scalar s. */
export function publicKeyOf(sec: Uint8Array): Uint8Array {
  return ed25519.Point.BASE.multiply(bytesToBigLE(sec)).toBytes();
}

/** A random point of the prime subgroup (r·G), compressed. */
export function randomPoint(): Uint8Array {
  return publicKeyOf(randomScalar());
}

/** A random key pair { sec, pub = sec·G }. */
export function randomKeyPair(): { sec: Uint8Array; pub: Uint8Array } {
  const sec = randomScalar();
  return { sec, pub: publicKeyOf(sec) };
}

/** Monero's `hash_to_scalar`: keccak256(data) mod ℓ. */
export function hashToScalarRef(data: Uint8Array): Uint8Array {
  return bigToBytesLE(bytesToBigLE(keccak_256(data)) % L);
}

/**
 * Monero's `generate_signature` with nonce k: c = H(prefix ‖ pub ‖ k·G) mod ℓ, r = k − c·sec mod ℓ;
 * returns c ‖ r (64 bytes). Used to give `checkSignature` a valid signature to verify.
 */
export function moneroSignatureRef(prefixHash: Uint8Array, pub: Uint8Array, sec: Uint8Array, k: Uint8Array): Uint8Array {
  const buf = new Uint8Array(96);
  buf.set(prefixHash, 0);
  buf.set(pub, 32);
  buf.set(publicKeyOf(k), 64);
  const c = bytesToBigLE(hashToScalarRef(buf));
  const r = mod(bytesToBigLE(k) - c * bytesToBigLE(sec));
  const sig = new Uint8Array(64);
  sig.set(bigToBytesLE(c), 0);
  sig.set(bigToBytesLE(r), 32);
  return sig;
}

/** n items made by `make`, concatenated (n × size bytes). */
export function concat(items: readonly Uint8Array[]): Uint8Array {
  const size = items.reduce((a, b) => a + b.length, 0);
  const out = new Uint8Array(size);
  let off = 0;
  for (const it of items) {
    out.set(it, off);
    off += it.length;
  }
  return out;
}

/** `count` values from `make` (count must be a power of two, so callers can index with `i & (count - 1)`). */
export function pool<T>(count: number, make: (i: number) => T): T[] {
  if (count <= 0 || (count & (count - 1)) !== 0) throw new RangeError("pool size must be a power of two");
  return Array.from({ length: count }, (_, i) => make(i));
}
