/**
 * Grøstl-256 (the final, tweaked SHA-3 submission; Gauravaram et al., "Grøstl – a SHA-3
 * candidate", 2011), one of CryptoNight's four final hashes. Monero's copy: src/crypto/groestl.c.
 *
 * The 512-bit state is an 8×8 byte matrix filled column by column: byte k sits in row k mod 8,
 * column k div 8. P and Q are ten rounds of AddRoundConstant, SubBytes (the AES S-box),
 * ShiftBytes and MixBytes.
 */
import { SBOX } from "./aes.js";

const ROUNDS = 10;
const SHIFT_P = [0, 1, 2, 3, 4, 5, 6, 7];
const SHIFT_Q = [1, 3, 5, 7, 0, 2, 4, 6];
/** MixBytes multiplies each column by circ(02, 02, 03, 04, 05, 03, 05, 07). */
const MIX = [2, 2, 3, 4, 5, 3, 5, 7];

/** Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (the AES field). */
function gmul(a: number, b: number): number {
  let r = 0;
  while (b) {
    if (b & 1) r ^= a;
    a = ((a << 1) ^ (a & 0x80 ? 0x1b : 0)) & 0xff;
    b >>= 1;
  }
  return r;
}

/** MUL[k][x] = MIX[k]·x, so MixBytes is table lookups. */
const MUL = MIX.map((c) => Uint8Array.from({ length: 256 }, (_, x) => gmul(c, x)));

function permute(state: Uint8Array, q: boolean): void {
  const shift = q ? SHIFT_Q : SHIFT_P;
  const t = new Uint8Array(64);
  for (let r = 0; r < ROUNDS; r++) {
    // AddRoundConstant. P: row 0 of column j gets (j << 4) ⊕ r. Q: every byte is complemented,
    // and row 7 of column j also gets (j << 4) ⊕ r.
    for (let j = 0; j < 8; j++) {
      if (q) {
        for (let i = 0; i < 8; i++) state[8 * j + i] ^= 0xff;
        state[8 * j + 7] ^= (j << 4) ^ r;
      } else {
        state[8 * j] ^= (j << 4) ^ r;
      }
    }
    // SubBytes and ShiftBytes: row i moves left by shift[i] columns.
    for (let j = 0; j < 8; j++) {
      for (let i = 0; i < 8; i++) t[8 * j + i] = SBOX[state[8 * ((j + shift[i]) & 7) + i]];
    }
    // MixBytes: out[i] = Σ_k MIX[(k − i) mod 8] · in[k], per column.
    for (let j = 0; j < 8; j++) {
      const col = 8 * j;
      for (let i = 0; i < 8; i++) {
        let acc = 0;
        for (let k = 0; k < 8; k++) acc ^= MUL[(k - i) & 7][t[col + k]];
        state[col + i] = acc;
      }
    }
  }
}

/** Grøstl-256 of a byte string. */
export function groestl256(data: Uint8Array): Uint8Array {
  // h0: the output length in bits (256) as the final bytes, big-endian.
  const h = new Uint8Array(64);
  h[62] = 0x01;
  // Padding: a 1 bit, zeros, then the number of 512-bit blocks as a 64-bit big-endian integer.
  const blocks = Math.floor((data.length + 8) / 64) + 1;
  const padded = new Uint8Array(blocks * 64);
  padded.set(data);
  padded[data.length] = 0x80;
  const dv = new DataView(padded.buffer);
  dv.setUint32(padded.length - 8, Math.floor(blocks / 0x100000000), false);
  dv.setUint32(padded.length - 4, blocks >>> 0, false);

  const p = new Uint8Array(64);
  const q = new Uint8Array(64);
  for (let b = 0; b < blocks; b++) {
    const m = padded.subarray(b * 64, b * 64 + 64);
    // f(h, m) = P(h ⊕ m) ⊕ Q(m) ⊕ h
    for (let i = 0; i < 64; i++) p[i] = h[i] ^ m[i];
    q.set(m);
    permute(p, false);
    permute(q, true);
    for (let i = 0; i < 64; i++) h[i] ^= p[i] ^ q[i];
  }
  // Output transformation: the last 256 bits of P(h) ⊕ h.
  p.set(h);
  permute(p, false);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = p[32 + i] ^ h[32 + i];
  return out;
}
