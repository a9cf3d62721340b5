/**
 * CryptoNight, Monero's cn_slow_hash (src/crypto/slow-hash.c), variants 0, 1, 2 and 4
 * (CryptoNight-R, whose random math depends on the block height: ./random-math.ts). Synchronous and CPU-bound (a 2 MiB scratchpad and 2^20 dependent
 * memory-hard steps): services should call it through `cnSlowHash` in ../slow-hash.ts, which runs
 * it in a worker thread.
 *
 * 1. Keccak-1600 of the input gives a 200-byte state (Monero's hash_process: Keccak with the
 *    original 0x01 padding, rate 136, the whole state kept).
 * 2. Explode: bytes 64..191 of the state, as eight AES blocks, go through ten AES rounds keyed by
 *    the AES-256 schedule of bytes 0..31, again and again, filling the scratchpad 128 bytes at a
 *    time.
 * 3. 2^19 double steps, each an AES round and a 64×64→128 multiply at data-dependent scratchpad
 *    addresses.
 * 4. Implode: the scratchpad is XORed back, 128 bytes at a time, into bytes 64..191, each step
 *    followed by ten AES rounds keyed by bytes 32..63. Keccak-f permutes the state once more and
 *    its low two bits pick BLAKE-256, Grøstl-256, JH-256 or Skein-512-256 of the 200 bytes.
 *
 * Words are little-endian 32-bit halves throughout (no BigInt); the host must be little-endian,
 * as typed-array views over the byte state assume it.
 */
import { keccakP } from "@noble/hashes/sha3.js";
import { aesPseudoRoundWords, expandKey256Words, TE0, TE1, TE2, TE3 } from "./aes.js";
import { blake256 } from "./blake256.js";
import { groestl256 } from "./groestl256.js";
import { jh256 } from "./jh256.js";
import { v4Compile, v4RandomMathInit } from "./random-math.js";
import { skein512_256 } from "./skein512-256.js";

/**
 * The CryptoNight variants implemented: 0 (original), 1 (v7 tweak), 2 (v8: shuffle, division,
 * square root), 4 (CryptoNight-R: v8's shuffle, random math instead of division and square root).
 */
export type CnVariant = 0 | 1 | 2 | 4;

const MEMORY = 1 << 21; // bytes of scratchpad
const HALF_ITERATIONS = 1 << 19; // the loop body does two of Monero's 2^20 iterations
const INIT_WORDS = 32; // 128 bytes: eight AES blocks
const KECCAK_RATE = 136;
/** Byte address mask of a 16-byte block in the scratchpad, then as a word index. */
const ADDRESS_MASK = (MEMORY - 1) & ~15;

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

const FINAL_HASHES = [blake256, groestl256, jh256, skein512_256] as const;

let scratchpad: Int32Array | null = null;

/** Monero's keccak1600: Keccak[r = 1088] with 0x01…0x80 padding, the whole 200-byte state out. */
function keccakState(data: Uint8Array): Uint32Array {
  const st = new Uint32Array(50);
  const sb = new Uint8Array(st.buffer);
  let off = 0;
  for (; data.length - off >= KECCAK_RATE; off += KECCAK_RATE) {
    for (let i = 0; i < KECCAK_RATE; i++) sb[i] ^= data[off + i];
    keccakP(st, 24);
  }
  const rest = data.length - off;
  for (let i = 0; i < rest; i++) sb[i] ^= data[off + i];
  sb[rest] ^= 0x01;
  sb[KECCAK_RATE - 1] ^= 0x80;
  keccakP(st, 24);
  return st;
}

// Scratch for the variant-2 helpers' second results.
let carryHi = 0;

/** 32×32→64 unsigned product: returns the low word, leaves the high word in carryHi. */
function mul32(x: number, y: number): number {
  const t = x * (y & 0xffff); // < 2^48
  const u = x * (y >>> 16); // < 2^48
  const s = t + (u & 0xffff) * 65536; // exact: < 2^49
  carryHi = Math.floor(u / 65536) + Math.floor(s / 4294967296);
  return s >>> 0;
}

/** 64-bit a < b on (lo, hi) pairs of unsigned words. */
function lt64(aLo: number, aHi: number, bLo: number, bHi: number): boolean {
  return aHi < bHi || (aHi === bHi && aLo < bLo);
}

/**
 * Variant 2's square root: floor(sqrt(2^64 + n) · 2 − 2^33) for n = (lo, hi) unsigned, estimated in
 * double precision and corrected to the exact integer (VARIANT2_INTEGER_MATH_SQRT_FIXUP in
 * Monero's variant2_int_sqrt.h: r is right iff (r/2 + 2^32)^2 ≤ 2^64 + n < ((r+1)/2 + 2^32)^2).
 */
export function variant2Sqrt(lo: number, hi: number): number {
  const approx = Math.sqrt(hi * 2 ** 32 + lo + 2 ** 64) * 2 - 2 ** 33;
  let r = approx > 0 ? Math.floor(approx) : 0;
  const s = Math.floor(r / 2);
  const b = r & 1;
  // r2 = s·(s + b) + r·2^32
  const pLo = mul32(s, s + b);
  const pHi = carryHi + r; // < 2^32 (Monero's bound: r2 + 2^32 < 2^64)
  // r2 + b > n → r is one too big
  const qLo = pLo + b;
  if (lt64(lo, hi, qLo >>> 0, pHi + (qLo > 0xffffffff ? 1 : 0))) r -= 1;
  // r2 + 2^32 < n − s → r is one too small
  else {
    const dLo = lo - s;
    const dHi = hi - (dLo < 0 ? 1 : 0);
    if (lt64(pLo, pHi + 1, dLo >>> 0, dHi)) r += 1;
  }
  return r >>> 0;
}

/** The last height's CryptoNight-R program: consecutive hashes of one block height share it. */
let v4Program: { height: bigint; run: (r: Uint32Array) => void } | undefined;

function v4Code(height: bigint): (r: Uint32Array) => void {
  if (v4Program?.height !== height) v4Program = { height, run: v4Compile(v4RandomMathInit(height)) };
  return v4Program.run;
}

/**
 * CryptoNight of `data` (cn_slow_hash with prehashed = 0). Variant 1 needs at least 43 bytes;
 * variant 4 needs the block height (the random program depends on it; 0 otherwise unused).
 */
export function cryptonight(data: Uint8Array, variant: CnVariant = 0, height: bigint | number = 0): Uint8Array {
  if (!LITTLE_ENDIAN) throw new Error("cryptonight: big-endian hosts are not supported");
  if (variant !== 0 && variant !== 1 && variant !== 2 && variant !== 4) throw new RangeError(`cryptonight: variant ${variant} is not implemented`);
  if (variant === 1 && data.length < 43) throw new RangeError("cryptonight: variant 1 needs at least 43 bytes of data");

  const st = keccakState(data);
  const stBytes = new Uint8Array(st.buffer);
  const stWords = new Int32Array(st.buffer);

  // Variant 1's tweak: state bytes 192..199 XOR input bytes 35..42.
  let tweakLo = 0;
  let tweakHi = 0;
  if (variant === 1) {
    const dv = new DataView(data.buffer, data.byteOffset + 35, 8);
    tweakLo = stWords[48] ^ dv.getInt32(0, true);
    tweakHi = stWords[49] ^ dv.getInt32(4, true);
  }

  const sp = scratchpad ?? new Int32Array(MEMORY / 4);
  scratchpad = sp;

  // Explode.
  const text = Int32Array.from(stWords.subarray(16, 48));
  let keys = expandKey256Words(stBytes.subarray(0, 32), 10);
  for (let base = 0; base < sp.length; base += INIT_WORDS) {
    for (let blk = 0; blk < INIT_WORDS; blk += 4) aesPseudoRoundWords(text, blk, keys);
    sp.set(text, base);
  }

  // a = k[0..15] ⊕ k[32..47], b = k[16..31] ⊕ k[48..63]
  let a0 = stWords[0] ^ stWords[8];
  let a1 = stWords[1] ^ stWords[9];
  let a2 = stWords[2] ^ stWords[10];
  let a3 = stWords[3] ^ stWords[11];
  let b0 = stWords[4] ^ stWords[12];
  let b1 = stWords[5] ^ stWords[13];
  let b2 = stWords[6] ^ stWords[14];
  let b3 = stWords[7] ^ stWords[15];
  // Variant 2: the previous b (bytes 64..79 ⊕ 80..95 at first), the division and square-root results.
  let e0 = 0;
  let e1 = 0;
  let e2 = 0;
  let e3 = 0;
  let divLo = 0;
  let divHi = 0;
  let sqrtLo = 0; // only the low 32 bits of sqrt_result ever matter
  // variant 2's integer math and VARIANT2_2; the shuffle (and the previous b) from variant 2 on
  const v2 = variant === 2;
  const v4 = variant === 4;
  const shuffle = v2 || v4;
  const v1 = variant === 1;
  // CryptoNight-R: nine 32-bit registers, r0..r3 carried from step to step (state bytes 96..111)
  const randomMath = v4 ? v4Code(BigInt(height)) : undefined;
  const r = new Uint32Array(9);
  if (v4) r.set(new Uint32Array(st.buffer, 96, 4));
  if (shuffle) {
    e0 = stWords[16] ^ stWords[20];
    e1 = stWords[17] ^ stWords[21];
    e2 = stWords[18] ^ stWords[22];
    e3 = stWords[19] ^ stWords[23];
    divLo = stWords[24] >>> 0;
    divHi = stWords[25] >>> 0;
    sqrtLo = stWords[26] >>> 0;
  }

  for (let i = 0; i < HALF_ITERATIONS; i++) {
    // Step 1: c = AES round of scratchpad[a] keyed by a; scratchpad[a] = c ⊕ b.
    let j = (a0 & ADDRESS_MASK) >>> 2;
    let x0 = sp[j];
    let x1 = sp[j + 1];
    let x2 = sp[j + 2];
    let x3 = sp[j + 3];
    let c0 = TE0[x0 & 0xff] ^ TE1[(x1 >>> 8) & 0xff] ^ TE2[(x2 >>> 16) & 0xff] ^ TE3[x3 >>> 24] ^ a0;
    let c1 = TE0[x1 & 0xff] ^ TE1[(x2 >>> 8) & 0xff] ^ TE2[(x3 >>> 16) & 0xff] ^ TE3[x0 >>> 24] ^ a1;
    let c2 = TE0[x2 & 0xff] ^ TE1[(x3 >>> 8) & 0xff] ^ TE2[(x0 >>> 16) & 0xff] ^ TE3[x1 >>> 24] ^ a2;
    let c3 = TE0[x3 & 0xff] ^ TE1[(x0 >>> 8) & 0xff] ^ TE2[(x1 >>> 16) & 0xff] ^ TE3[x2 >>> 24] ^ a3;
    if (v4) {
      // variant 4's shuffle also folds the three neighbours (before the shuffle) into c
      c0 ^= sp[j ^ 4] ^ sp[j ^ 8] ^ sp[j ^ 12];
      c1 ^= sp[(j ^ 4) + 1] ^ sp[(j ^ 8) + 1] ^ sp[(j ^ 12) + 1];
      c2 ^= sp[(j ^ 4) + 2] ^ sp[(j ^ 8) + 2] ^ sp[(j ^ 12) + 2];
      c3 ^= sp[(j ^ 4) + 3] ^ sp[(j ^ 8) + 3] ^ sp[(j ^ 12) + 3];
    }
    if (shuffle) shuffleAdd(sp, j, a0, a1, a2, a3, b0, b1, b2, b3, e0, e1, e2, e3);
    sp[j] = c0 ^ b0;
    sp[j + 1] = c1 ^ b1;
    sp[j + 3] = c3 ^ b3;
    if (v1) {
      // VARIANT1_1: byte 11 of the block gets bits 4..5 flipped by a table on its bits 0, 4, 5.
      let w = c2 ^ b2;
      const t = w >>> 24;
      const index = (((t >>> 3) & 6) | (t & 1)) << 1;
      w ^= ((0x75310 >>> index) & 0x30) << 24;
      sp[j + 2] = w;
    } else {
      sp[j + 2] = c2 ^ b2;
    }

    // Step 2: y = scratchpad[c]; a += c[0..7] × y[0..7] (high half into a[0..7]);
    // scratchpad[c] = a; a ^= y.
    j = (c0 & ADDRESS_MASK) >>> 2;
    x0 = sp[j];
    x1 = sp[j + 1];
    x2 = sp[j + 2];
    x3 = sp[j + 3];
    if (v2) {
      // VARIANT2_INTEGER_MATH: y[0..7] ^= division_result ^ (sqrt_result << 32), then a new
      // division of c[8..15] by a 32-bit divisor from c[0..3] and a square root.
      x0 ^= divLo;
      x1 ^= divHi ^ sqrtLo;
      const divisor = ((((c0 >>> 0) + ((sqrtLo << 1) >>> 0)) >>> 0) | 0x80000001) >>> 0;
      // 64 ÷ 32 in three exact steps: the high word, then 16 bits at a time.
      const nHi = c3 >>> 0;
      const nLo = c2 >>> 0;
      let r = nHi % divisor;
      let n = r * 65536 + (nLo >>> 16);
      const q1 = Math.floor(n / divisor);
      r = n - q1 * divisor;
      n = r * 65536 + (nLo & 0xffff);
      const q2 = Math.floor(n / divisor);
      r = n - q2 * divisor;
      divLo = (q1 * 65536 + q2) >>> 0; // the quotient truncated to 32 bits
      divHi = r;
      const sLo = (c0 >>> 0) + divLo;
      const sHi = ((c1 >>> 0) + divHi + (sLo > 0xffffffff ? 1 : 0)) >>> 0;
      sqrtLo = variant2Sqrt(sLo >>> 0, sHi);
    }
    if (v4) {
      // VARIANT4_RANDOM_MATH: y[0..7] ^= (r0 + r1, r2 + r3); the program runs on r0..r3 and the
      // constants a[0..3], a[8..11], b[0..3], previous b[0..3] and b[8..11]
      x0 ^= (r[0] + r[1]) | 0;
      x1 ^= (r[2] + r[3]) | 0;
      r[4] = a0;
      r[5] = a2;
      r[6] = b0;
      r[7] = e0;
      r[8] = e2;
      randomMath?.(r);
    }

    // 64×64→128: (c1:c0) × (x1:x0) = (h1:h0:l1:l0), from four 32×32 products.
    const p0 = c0 >>> 0;
    const p1 = c1 >>> 0;
    const q0 = x0 >>> 0;
    const q1 = x1 >>> 0;
    const ql = q0 & 0xffff;
    const qh = q0 >>> 16;
    const rl = q1 & 0xffff;
    const rh = q1 >>> 16;
    // p0 × q0
    let t = p0 * ql;
    let u = p0 * qh;
    let s = t + (u & 0xffff) * 65536;
    let l0 = s >>> 0;
    let mid = Math.floor(u / 65536) + Math.floor(s / 4294967296); // high word of p0·q0
    // p0 × q1
    t = p0 * rl;
    u = p0 * rh;
    s = t + (u & 0xffff) * 65536;
    mid += s >>> 0;
    let top = Math.floor(u / 65536) + Math.floor(s / 4294967296);
    // p1 × q0
    t = p1 * ql;
    u = p1 * qh;
    s = t + (u & 0xffff) * 65536;
    mid += s >>> 0;
    top += Math.floor(u / 65536) + Math.floor(s / 4294967296);
    let l1 = mid >>> 0;
    top += Math.floor(mid / 4294967296);
    // p1 × q1
    t = p1 * rl;
    u = p1 * rh;
    s = t + (u & 0xffff) * 65536;
    top += s >>> 0;
    let h0 = top >>> 0;
    let h1 = (Math.floor(u / 65536) + Math.floor(s / 4294967296) + Math.floor(top / 4294967296)) >>> 0;

    if (v2) {
      // VARIANT2_2: scratchpad[j ^ 0x10] ^= (hi, lo); (hi, lo) ^= scratchpad[j ^ 0x20].
      const k = j ^ 4;
      const m = j ^ 8;
      sp[k] ^= h0;
      sp[k + 1] ^= h1;
      sp[k + 2] ^= l0;
      sp[k + 3] ^= l1;
      h0 = (h0 ^ sp[m]) >>> 0;
      h1 = (h1 ^ sp[m + 1]) >>> 0;
      l0 = (l0 ^ sp[m + 2]) >>> 0;
      l1 = (l1 ^ sp[m + 3]) >>> 0;
      shuffleAdd(sp, j, a0, a1, a2, a3, b0, b1, b2, b3, e0, e1, e2, e3);
    }
    if (v4) {
      // the shuffle (with the a before the random math), folding the neighbours into c
      c0 ^= sp[j ^ 4] ^ sp[j ^ 8] ^ sp[j ^ 12];
      c1 ^= sp[(j ^ 4) + 1] ^ sp[(j ^ 8) + 1] ^ sp[(j ^ 12) + 1];
      c2 ^= sp[(j ^ 4) + 2] ^ sp[(j ^ 8) + 2] ^ sp[(j ^ 12) + 2];
      c3 ^= sp[(j ^ 4) + 3] ^ sp[(j ^ 8) + 3] ^ sp[(j ^ 12) + 3];
      shuffleAdd(sp, j, a0, a1, a2, a3, b0, b1, b2, b3, e0, e1, e2, e3);
      // then a ^= (r2, r3, r0, r1) before the sum
      a0 ^= r[2];
      a1 ^= r[3];
      a2 ^= r[0];
      a3 ^= r[1];
    }

    // a += (hi, lo), as two 64-bit lanes.
    s = (a0 >>> 0) + h0;
    a0 = s | 0;
    a1 = ((a1 >>> 0) + h1 + (s > 0xffffffff ? 1 : 0)) | 0;
    s = (a2 >>> 0) + l0;
    a2 = s | 0;
    a3 = ((a3 >>> 0) + l1 + (s > 0xffffffff ? 1 : 0)) | 0;
    sp[j] = a0;
    sp[j + 1] = a1;
    // VARIANT1_2: the stored copy's second half is XORed with the tweak.
    sp[j + 2] = a2 ^ tweakLo;
    sp[j + 3] = a3 ^ tweakHi;
    a0 ^= x0;
    a1 ^= x1;
    a2 ^= x2;
    a3 ^= x3;
    if (shuffle) {
      e0 = b0;
      e1 = b1;
      e2 = b2;
      e3 = b3;
    }
    b0 = c0;
    b1 = c1;
    b2 = c2;
    b3 = c3;
  }

  // Implode.
  text.set(stWords.subarray(16, 48));
  keys = expandKey256Words(stBytes.subarray(32, 64), 10);
  for (let base = 0; base < sp.length; base += INIT_WORDS) {
    for (let w = 0; w < INIT_WORDS; w++) text[w] ^= sp[base + w];
    for (let blk = 0; blk < INIT_WORDS; blk += 4) aesPseudoRoundWords(text, blk, keys);
  }
  stWords.set(text, 16);
  keccakP(st, 24);
  return FINAL_HASHES[stBytes[0] & 3](stBytes);
}

/**
 * VARIANT2_SHUFFLE_ADD: the three 16-byte neighbours of block j (word index) rotate, each plus
 * one of b, the previous b, or a (64-bit lane additions):
 * [j^0x10] = old[j^0x30] + b_prev, [j^0x20] = old[j^0x10] + b, [j^0x30] = old[j^0x20] + a.
 */
function shuffleAdd(
  sp: Int32Array,
  j: number,
  a0: number,
  a1: number,
  a2: number,
  a3: number,
  b0: number,
  b1: number,
  b2: number,
  b3: number,
  e0: number,
  e1: number,
  e2: number,
  e3: number,
): void {
  const k1 = j ^ 4;
  const k2 = j ^ 8;
  const k3 = j ^ 12;
  const o10 = sp[k1];
  const o11 = sp[k1 + 1];
  const o12 = sp[k1 + 2];
  const o13 = sp[k1 + 3];
  const o20 = sp[k2];
  const o21 = sp[k2 + 1];
  const o22 = sp[k2 + 2];
  const o23 = sp[k2 + 3];
  add64(sp, k1, sp[k3], sp[k3 + 1], e0, e1);
  add64(sp, k1 + 2, sp[k3 + 2], sp[k3 + 3], e2, e3);
  add64(sp, k3, o20, o21, a0, a1);
  add64(sp, k3 + 2, o22, o23, a2, a3);
  add64(sp, k2, o10, o11, b0, b1);
  add64(sp, k2 + 2, o12, o13, b2, b3);
}

/** sp[k..k+1] = (xLo, xHi) + (yLo, yHi) mod 2^64. */
function add64(sp: Int32Array, k: number, xLo: number, xHi: number, yLo: number, yHi: number): void {
  const s = (xLo >>> 0) + (yLo >>> 0);
  sp[k] = s | 0;
  sp[k + 1] = ((xHi >>> 0) + (yHi >>> 0) + (s > 0xffffffff ? 1 : 0)) | 0;
}
