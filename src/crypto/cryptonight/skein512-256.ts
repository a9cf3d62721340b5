/**
 * Skein-512-256 (Ferguson et al., "The Skein Hash Function Family" v1.3), one of CryptoNight's
 * four final hashes. Monero's copy: src/crypto/skein.c.
 *
 * Threefish-512's 64-bit words are kept as (lo, hi) pairs of 32-bit halves, so there is no
 * BigInt anywhere. The chaining value starts from the configuration UBI as the specification
 * defines it rather than from a precomputed IV.
 */

const WORDS = 8;
const ROUNDS = 72;
/** Threefish-512 rotation constants R[d mod 8][j] (v1.3). */
const ROT = [
  [46, 36, 19, 37],
  [33, 27, 14, 42],
  [17, 49, 36, 39],
  [44, 9, 54, 56],
  [39, 30, 34, 24],
  [13, 50, 10, 17],
  [25, 29, 39, 43],
  [8, 35, 56, 22],
];
/** The word permutation π applied after each round: v'[i] = v[PERM[i]]. */
const PERM = [2, 1, 4, 7, 6, 5, 0, 3];
/** C240, the key-schedule parity constant, as (lo, hi). */
const PARITY_LO = 0xa9fc1a22;
const PARITY_HI = 0x1bd11bda;

const TYPE_CFG = 4;
const TYPE_MSG = 48;
const TYPE_OUT = 63;

/**
 * Threefish-512 encryption of `block` (16 halves, word i = (lo 2i, hi 2i+1)) under key `key`
 * (same layout) and tweak (t0 lo, t0 hi, t1 lo, t1 hi); writes the ciphertext to `out`.
 */
function threefish(key: Uint32Array, tweak: Uint32Array, block: Uint32Array, out: Uint32Array): void {
  // Extended key: k[8] = C240 ⊕ k[0] ⊕ … ⊕ k[7]; extended tweak: t[2] = t[0] ⊕ t[1].
  const k = new Uint32Array(2 * (WORDS + 1));
  k.set(key);
  let pl = PARITY_LO;
  let ph = PARITY_HI;
  for (let i = 0; i < WORDS; i++) {
    pl ^= key[2 * i];
    ph ^= key[2 * i + 1];
  }
  k[2 * WORDS] = pl;
  k[2 * WORDS + 1] = ph;
  const t = Uint32Array.of(tweak[0], tweak[1], tweak[2], tweak[3], tweak[0] ^ tweak[2], tweak[1] ^ tweak[3]);

  const v = Uint32Array.from(block);
  const w = new Uint32Array(2 * WORDS);
  // v[i] += x (x as lo, hi).
  const add = (i: number, lo: number, hi: number) => {
    const s = v[2 * i] + lo;
    v[2 * i] = s;
    v[2 * i + 1] = v[2 * i + 1] + hi + (s > 0xffffffff ? 1 : 0);
  };
  const inject = (s: number) => {
    for (let i = 0; i < WORDS; i++) {
      const j = (s + i) % (WORDS + 1);
      add(i, k[2 * j], k[2 * j + 1]);
    }
    add(WORDS - 3, t[2 * (s % 3)], t[2 * (s % 3) + 1]);
    add(WORDS - 2, t[2 * ((s + 1) % 3)], t[2 * ((s + 1) % 3) + 1]);
    add(WORDS - 1, s, 0);
  };

  for (let d = 0; d < ROUNDS; d++) {
    if (d % 4 === 0) inject(d / 4);
    const rot = ROT[d % 8];
    for (let j = 0; j < 4; j++) {
      // MIX: y0 = x0 + x1; y1 = (x1 <<< R) ⊕ y0.
      const a = 2 * j;
      const b = a + 1;
      add(a, v[2 * b], v[2 * b + 1]);
      let lo = v[2 * b];
      let hi = v[2 * b + 1];
      let r = rot[j];
      if (r >= 32) {
        const x = lo;
        lo = hi;
        hi = x;
        r -= 32;
      }
      if (r !== 0) {
        const nl = (lo << r) | (hi >>> (32 - r));
        hi = (hi << r) | (lo >>> (32 - r));
        lo = nl;
      }
      v[2 * b] = lo ^ v[2 * a];
      v[2 * b + 1] = hi ^ v[2 * a + 1];
    }
    for (let i = 0; i < WORDS; i++) {
      w[2 * i] = v[2 * PERM[i]];
      w[2 * i + 1] = v[2 * PERM[i] + 1];
    }
    v.set(w);
  }
  inject(ROUNDS / 4);
  out.set(v);
}

function toWords(bytes: Uint8Array, off: number): Uint32Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset + off, 64);
  const w = new Uint32Array(16);
  for (let i = 0; i < 16; i++) w[i] = dv.getUint32(i * 4, true);
  return w;
}

/**
 * UBI(G, M, type): M in 64-byte blocks (the last zero-padded, at least one), each through
 * Threefish keyed by the chaining value with the tweak (position, type, first, final), the
 * result XORed with the block. Updates `g` in place.
 */
function ubi(g: Uint32Array, msg: Uint8Array, type: number): void {
  const blocks = Math.max(1, Math.ceil(msg.length / 64));
  const padded = new Uint8Array(blocks * 64);
  padded.set(msg);
  const tweak = new Uint32Array(4);
  const c = new Uint32Array(16);
  for (let b = 0; b < blocks; b++) {
    const position = Math.min((b + 1) * 64, msg.length);
    const m = toWords(padded, b * 64);
    tweak[0] = position >>> 0;
    tweak[1] = Math.floor(position / 0x100000000) >>> 0;
    tweak[2] = 0; // position bits 64..95
    tweak[3] = (type << 24) | (b === 0 ? 1 << 30 : 0) | (b === blocks - 1 ? 1 << 31 : 0);
    threefish(g, tweak, m, c);
    for (let i = 0; i < 16; i++) g[i] = c[i] ^ m[i];
  }
}

/** The chaining value after the configuration block for an output of `bits` bits. */
function configChain(bits: number): Uint32Array {
  const cfg = new Uint8Array(32);
  cfg.set([0x53, 0x48, 0x41, 0x33]); // schema identifier "SHA3"
  cfg[4] = 1; // version 1, little-endian 16 bits
  const dv = new DataView(cfg.buffer);
  dv.setUint32(8, bits, true); // output length in bits, 64-bit little-endian
  // bytes 16..18: tree parameters, all zero for sequential hashing
  const g = new Uint32Array(16);
  ubi(g, cfg, TYPE_CFG);
  return g;
}

const IV_256 = configChain(256);

/** Skein-512-256 of a byte string. */
export function skein512_256(data: Uint8Array): Uint8Array {
  const g = Uint32Array.from(IV_256);
  ubi(g, data, TYPE_MSG);
  ubi(g, new Uint8Array(8), TYPE_OUT); // output counter 0
  const out = new Uint8Array(32);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) dv.setUint32(i * 4, g[i], true);
  return out;
}
