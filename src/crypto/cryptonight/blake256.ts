/**
 * BLAKE-256 (the SHA-3 finalist, 14 rounds; Aumasson et al., "SHA-3 proposal BLAKE" v1.3), one
 * of CryptoNight's four final hashes. Monero's copy: src/crypto/blake256.c.
 */

/** IV: the SHA-256 initial value. */
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** The constants c0..c15: the first 512 bits of the fractional part of π. */
const C = Int32Array.from([
  0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89, 0x452821e6,
  0x38d01377, 0xbe5466cf, 0x34e90c6c, 0xc0ac29b7, 0xc97c50dd, 0x3f84d5b5, 0xb5470917,
]);

/** The ten message permutations σ0..σ9; round r uses σ(r mod 10). */
const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

const ROUNDS = 14;

/** G's index quadruples: four columns, then four diagonals. */
const LANES = [
  [0, 4, 8, 12],
  [1, 5, 9, 13],
  [2, 6, 10, 14],
  [3, 7, 11, 15],
  [0, 5, 10, 15],
  [1, 6, 11, 12],
  [2, 7, 8, 13],
  [3, 4, 9, 14],
];

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** The compression function with a zero salt; `t0`, `t1` are the bit counter's low and high words. */
function compress(h: Int32Array, block: Uint8Array, off: number, t0: number, t1: number, v: Int32Array, m: Int32Array): void {
  const dv = new DataView(block.buffer, block.byteOffset + off, 64);
  for (let i = 0; i < 16; i++) m[i] = dv.getInt32(i * 4, false);
  for (let i = 0; i < 8; i++) v[i] = h[i];
  for (let i = 0; i < 8; i++) v[8 + i] = C[i];
  v[12] ^= t0;
  v[13] ^= t0;
  v[14] ^= t1;
  v[15] ^= t1;
  for (let r = 0; r < ROUNDS; r++) {
    const s = SIGMA[r % 10];
    for (let g = 0; g < 8; g++) {
      const [a, b, c, d] = LANES[g];
      const e0 = s[2 * g];
      const e1 = s[2 * g + 1];
      v[a] = v[a] + v[b] + (m[e0] ^ C[e1]);
      v[d] = rotr(v[d] ^ v[a], 16);
      v[c] = v[c] + v[d];
      v[b] = rotr(v[b] ^ v[c], 12);
      v[a] = v[a] + v[b] + (m[e1] ^ C[e0]);
      v[d] = rotr(v[d] ^ v[a], 8);
      v[c] = v[c] + v[d];
      v[b] = rotr(v[b] ^ v[c], 7);
    }
  }
  for (let i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

/** BLAKE-256 of a byte string. */
export function blake256(data: Uint8Array): Uint8Array {
  const h = Int32Array.from(IV);
  const v = new Int32Array(16);
  const m = new Int32Array(16);
  const len = data.length;
  const bits = len * 8;
  const bitsLo = bits >>> 0;
  const bitsHi = Math.floor(bits / 0x100000000) >>> 0;

  // Every full block but the last carries message bits only; the counter is the number of
  // message bits hashed up to the end of the block.
  const full = Math.floor(len / 64);
  const tailLen = len - full * 64;
  // The padding (a 1 bit, zeros, a 1 bit, the 64-bit length) needs 9 bytes after the data.
  const tail = new Uint8Array(tailLen + 9 <= 64 ? 64 : 128);
  tail.set(data.subarray(full * 64));
  tail[tailLen] = 0x80;
  tail[tail.length - 9] |= 0x01;
  const dv = new DataView(tail.buffer);
  dv.setUint32(tail.length - 8, bitsHi, false);
  dv.setUint32(tail.length - 4, bitsLo, false);

  for (let i = 0; i < full; i++) {
    const counted = (i + 1) * 512;
    compress(h, data, i * 64, counted >>> 0, Math.floor(counted / 0x100000000), v, m);
  }
  // A padding block holding message bits counts them all; one holding none counts zero.
  const tailBlocks = tail.length / 64;
  for (let i = 0; i < tailBlocks; i++) {
    const hasMessage = i * 64 < tailLen;
    compress(h, tail, i * 64, hasMessage ? bitsLo : 0, hasMessage ? bitsHi : 0, v, m);
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) ov.setInt32(i * 4, h[i], false);
  return out;
}
