/**
 * Monero's randomised key operations (src/crypto/crypto.cpp), composed from a backend and a
 * `RandomSource`: key pairs, Schnorr signatures and ring signatures with freshly drawn nonces.
 */
import type { Bytes, CryptoBackend } from "./backend.js";
import { type RandomSource, randomScalar, systemRandom } from "./random.js";

/** A secret key and its public key. */
export interface KeyPair {
  readonly secretKey: Bytes;
  readonly publicKey: Bytes;
}

/** A fresh key pair: unbiased random secret, public = secret·G (`generate_keys`). */
export function generateKeys(backend: CryptoBackend, rng: RandomSource = systemRandom): KeyPair {
  const secretKey = randomScalar(backend, rng);
  const publicKey = backend.scalarMultBase(secretKey);
  return { secretKey, publicKey };
}

function signatureScalarsNonZero(sig: Bytes): boolean {
  let c = 0;
  let r = 0;
  for (let i = 0; i < 32; i++) {
    c |= sig[i];
    r |= sig[32 + i];
  }
  return c !== 0 && r !== 0;
}

/** `generate_signature` with a fresh nonce, redrawn while c or r comes out zero, as Monero does. */
export function generateSignature(
  backend: CryptoBackend,
  prefixHash: Bytes,
  pub: Bytes,
  sec: Bytes,
  rng: RandomSource = systemRandom,
): Bytes {
  for (;;) {
    const k = randomScalar(backend, rng);
    const sig = backend.generateSignature(prefixHash, pub, sec, k);
    if (signatureScalarsNonZero(sig)) return sig;
  }
}

/**
 * `generate_ring_signature` over `pubs` (n×32 bytes) with the secret at `secIndex`; nonces are
 * drawn in Monero's order (k at secIndex, else cᵢ then rᵢ).
 */
export function generateRingSignature(
  backend: CryptoBackend,
  prefixHash: Bytes,
  image: Bytes,
  pubs: Bytes,
  sec: Bytes,
  secIndex: number,
  rng: RandomSource = systemRandom,
): Bytes {
  const n = pubs.length / 32;
  if (!Number.isInteger(n) || n < 1) throw new TypeError("generateRingSignature: pubs must be n×32 bytes, n ≥ 1");
  if (!Number.isInteger(secIndex) || secIndex < 0 || secIndex >= n)
    throw new RangeError(`generateRingSignature: secIndex ${secIndex} outside the ring of ${n}`);
  const nonces = new Uint8Array((2 * n - 1) * 32);
  for (let j = 0; j < 2 * n - 1; j++) nonces.set(randomScalar(backend, rng), j * 32);
  return backend.generateRingSignature(prefixHash, image, pubs, sec, secIndex, nonces);
}
