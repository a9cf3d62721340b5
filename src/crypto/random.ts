/**
 * Sources of randomness for key generation and signature nonces.
 *
 * Backends never draw randomness themselves; callers pass a `RandomSource`. The default is the
 * operating system's CSPRNG. `MoneroTestRandom` reproduces the deterministic generator Monero's
 * crypto test suite uses, so its vectors (random_scalar, generate_keys, signatures) can be replayed.
 */
import { randomFillSync } from "node:crypto";
import { keccakP } from "@noble/hashes/sha3.js";
import type { Bytes, CryptoBackend } from "./backend.js";

/** Anything that can fill a buffer with random bytes. */
export interface RandomSource {
  /** Fill `out` entirely with random bytes. */
  fill(out: Bytes): void;
}

const POOL_SIZE = 4096;
const pool = new Uint8Array(POOL_SIZE);
let poolUsed = POOL_SIZE;

/**
 * The operating system's CSPRNG (node:crypto). Small requests (a transaction draws hundreds of
 * 32-byte nonces) are served from a 4 KiB buffer filled by one OS call, each byte handed out once
 * and zeroed as it leaves; large ones go to the OS directly.
 */
export const systemRandom: RandomSource = {
  fill(out: Bytes): void {
    const n = out.length;
    if (n > 256) {
      randomFillSync(out);
      return;
    }
    if (POOL_SIZE - poolUsed < n) {
      randomFillSync(pool);
      poolUsed = 0;
    }
    const part = pool.subarray(poolUsed, poolUsed + n);
    out.set(part);
    part.fill(0);
    poolUsed += n;
  },
};

const HASH_DATA_AREA = 136;

/**
 * Monero's `generate_random_bytes_not_thread_safe` (src/crypto/random.c): a 200-byte Keccak state
 * permuted once per request, the first bytes copied out. The test suite seeds the state with 42s
 * (tests/crypto/random.c), which `MoneroTestRandom.seeded42()` reproduces.
 */
export class MoneroTestRandom implements RandomSource {
  private readonly state: Uint8Array;
  private readonly words: Uint32Array;

  constructor(state: Bytes) {
    if (state.length !== 200) throw new TypeError("MoneroTestRandom: state must be 200 bytes");
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1)
      throw new Error("MoneroTestRandom: big-endian hosts are not supported");
    this.state = Uint8Array.from(state);
    this.words = new Uint32Array(this.state.buffer, this.state.byteOffset, 50);
  }

  /** The generator exactly as Monero's crypto tests set it up (`setup_random`: state bytes all 42). */
  static seeded42(): MoneroTestRandom {
    return new MoneroTestRandom(new Uint8Array(200).fill(42));
  }

  /** One request of n bytes: permute, copy up to 136 bytes, repeat until n bytes are out. */
  fill(out: Bytes): void {
    let off = 0;
    const n = out.length;
    if (n === 0) return;
    for (;;) {
      keccakP(this.words, 24);
      const take = Math.min(HASH_DATA_AREA, n - off);
      out.set(this.state.subarray(0, take), off);
      off += take;
      if (off >= n) return;
    }
  }
}

// 15·ℓ, the largest multiple of ℓ below 2^256, little-endian (src/crypto/crypto.cpp random32_unbiased).
const UNBIASED_LIMIT = Uint8Array.from([
  0xe3, 0x6a, 0x67, 0x72, 0x8b, 0xce, 0x13, 0x29, 0x8f, 0x30, 0x82, 0x8c, 0x0b, 0xa4, 0x10, 0x39, 0x01, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0,
]);

function lessLE(a: Bytes, b: Bytes): boolean {
  for (let i = 31; i >= 0; i--) {
    if (a[i] !== b[i]) return a[i] < b[i];
  }
  return false;
}

/**
 * A uniformly random non-zero scalar mod ℓ, by Monero's rejection rule (`random32_unbiased`):
 * draw 32 bytes, reject ≥ 15ℓ, reduce, reject zero.
 */
export function randomScalar(backend: CryptoBackend, rng: RandomSource = systemRandom): Bytes {
  const buf = new Uint8Array(32);
  for (;;) {
    rng.fill(buf);
    if (!lessLE(buf, UNBIASED_LIMIT)) continue;
    backend.scReduce32(buf, buf);
    if (backend.scIsNonZero(buf)) return buf;
  }
}
