/**
 * The AES pieces CryptoNight uses (FIPS-197): the S-box, AES-256 key expansion, and single
 * encryption rounds as the x86 `aesenc` / `aesenclast` instructions compute them. Monero's
 * CryptoNight (src/crypto/slow-hash.c, aesb.c) never runs a full AES: it runs ten `aesenc`
 * rounds with the first ten AES-256 round keys ("pseudo rounds"), and single rounds keyed by
 * its own state.
 *
 * A block is held as four little-endian 32-bit words, word c being column c (bytes 4c..4c+3,
 * row 0 in the low byte). The S-box and the round tables are computed here at module load from
 * the field arithmetic of GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
 */

/** Multiplication by x (that is, by 2) in AES's GF(2^8). */
function xtime(v: number): number {
  return ((v << 1) ^ (v & 0x80 ? 0x1b : 0)) & 0xff;
}

function buildSbox(): Uint8Array {
  // Powers of the generator 3 give discrete logarithms, hence inverses: x^-1 = 3^(255 - log x).
  const exp = new Uint8Array(256);
  const log = new Uint8Array(256);
  let v = 1;
  for (let i = 0; i < 255; i++) {
    exp[i] = v;
    log[v] = i;
    v ^= xtime(v); // v·3 = v·2 ⊕ v
  }
  const rotl8 = (x: number, n: number) => ((x << n) | (x >>> (8 - n))) & 0xff;
  const sbox = new Uint8Array(256);
  for (let x = 0; x < 256; x++) {
    const inv = x === 0 ? 0 : exp[(255 - log[x]) % 255];
    // The affine map: b ⊕ rotl(b,1) ⊕ rotl(b,2) ⊕ rotl(b,3) ⊕ rotl(b,4) ⊕ 0x63.
    sbox[x] = inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63;
  }
  return sbox;
}

/** The AES S-box (SubBytes), computed from the inverse in GF(2^8) and the affine map. */
export const SBOX: Uint8Array = buildSbox();

/**
 * Round tables: TE0[x] is the column MixColumns makes of S[x] entering in row 0, i.e. the bytes
 * (2·S[x], S[x], S[x], 3·S[x]) from row 0 up; TE1..TE3 are the same rotated by one row each, for
 * a byte entering in row 1..3. Int32Array keeps the loads in V8's small-integer fast path.
 */
export const TE0 = new Int32Array(256);
export const TE1 = new Int32Array(256);
export const TE2 = new Int32Array(256);
export const TE3 = new Int32Array(256);
for (let x = 0; x < 256; x++) {
  const s = SBOX[x];
  const s2 = xtime(s);
  const s3 = s2 ^ s;
  const t = s2 | (s << 8) | (s << 16) | (s3 << 24);
  TE0[x] = t;
  TE1[x] = (t << 8) | (t >>> 24);
  TE2[x] = (t << 16) | (t >>> 16);
  TE3[x] = (t << 24) | (t >>> 8);
}

function subWord(w: number): number {
  return SBOX[w & 0xff] | (SBOX[(w >>> 8) & 0xff] << 8) | (SBOX[(w >>> 16) & 0xff] << 16) | (SBOX[w >>> 24] << 24);
}

function readWordsLE(bytes: Uint8Array, offset: number, n: number): Int32Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset + offset, n * 4);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.getInt32(i * 4, true);
  return out;
}

function writeWordsLE(words: ArrayLike<number>, out: Uint8Array): Uint8Array {
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (let i = 0; i < words.length; i++) dv.setInt32(i * 4, words[i] | 0, true);
  return out;
}

/**
 * AES-256 key expansion (FIPS-197 §5.2, Nk = 8) to `roundKeys` round keys of four words each:
 * 15 make the full AES-256 schedule; CryptoNight uses the first 10. Returned as little-endian
 * column words, round key r in words 4r..4r+3.
 */
export function expandKey256Words(key: Uint8Array, roundKeys = 10): Int32Array {
  if (key.length !== 32) throw new TypeError("expandKey256: the key is 32 bytes");
  if (!Number.isInteger(roundKeys) || roundKeys < 2 || roundKeys > 15) throw new RangeError("expandKey256: 2..15 round keys");
  const n = roundKeys * 4;
  const w = new Int32Array(n);
  w.set(readWordsLE(key, 0, 8));
  let rcon = 1;
  for (let i = 8; i < n; i++) {
    let t = w[i - 1];
    if (i % 8 === 0) {
      // RotWord moves byte 1 to byte 0: a right rotation of the little-endian word.
      t = subWord((t >>> 8) | (t << 24)) ^ rcon;
      rcon = xtime(rcon);
    } else if (i % 8 === 4) {
      t = subWord(t);
    }
    w[i] = w[i - 8] ^ t;
  }
  return w;
}

/** The same schedule as bytes: round key r is bytes 16r..16r+15. */
export function expandKey256(key: Uint8Array, roundKeys = 10): Uint8Array {
  const w = expandKey256Words(key, roundKeys);
  return writeWordsLE(w, new Uint8Array(w.length * 4));
}

/**
 * One `aesenc` on words: SubBytes, ShiftRows, MixColumns, then XOR with the round key. Reads
 * `src[s..s+3]` and key `key[k..k+3]`, writes `dst[d..d+3]` (which may be `src`).
 */
export function aesEncRoundWords(src: Int32Array, s: number, key: ArrayLike<number>, k: number, dst: Int32Array, d: number): void {
  const x0 = src[s];
  const x1 = src[s + 1];
  const x2 = src[s + 2];
  const x3 = src[s + 3];
  // ShiftRows: row r of column c comes from column c + r.
  dst[d] = TE0[x0 & 0xff] ^ TE1[(x1 >>> 8) & 0xff] ^ TE2[(x2 >>> 16) & 0xff] ^ TE3[x3 >>> 24] ^ key[k];
  dst[d + 1] = TE0[x1 & 0xff] ^ TE1[(x2 >>> 8) & 0xff] ^ TE2[(x3 >>> 16) & 0xff] ^ TE3[x0 >>> 24] ^ key[k + 1];
  dst[d + 2] = TE0[x2 & 0xff] ^ TE1[(x3 >>> 8) & 0xff] ^ TE2[(x0 >>> 16) & 0xff] ^ TE3[x1 >>> 24] ^ key[k + 2];
  dst[d + 3] = TE0[x3 & 0xff] ^ TE1[(x0 >>> 8) & 0xff] ^ TE2[(x1 >>> 16) & 0xff] ^ TE3[x2 >>> 24] ^ key[k + 3];
}

/** One `aesenclast` on words: SubBytes, ShiftRows, XOR with the round key (no MixColumns). */
export function aesEncLastRoundWords(
  src: Int32Array,
  s: number,
  key: ArrayLike<number>,
  k: number,
  dst: Int32Array,
  d: number,
): void {
  const x = [src[s], src[s + 1], src[s + 2], src[s + 3]];
  for (let c = 0; c < 4; c++) {
    const v =
      SBOX[x[c] & 0xff] |
      (SBOX[(x[(c + 1) & 3] >>> 8) & 0xff] << 8) |
      (SBOX[(x[(c + 2) & 3] >>> 16) & 0xff] << 16) |
      (SBOX[x[(c + 3) & 3] >>> 24] << 24);
    dst[d + c] = v ^ key[k + c];
  }
}

function roundOnBytes(
  f: typeof aesEncRoundWords,
  block: Uint8Array,
  roundKey: Uint8Array,
): Uint8Array {
  if (block.length !== 16 || roundKey.length !== 16) throw new TypeError("AES round: 16-byte block and round key");
  const w = readWordsLE(block, 0, 4);
  f(w, 0, readWordsLE(roundKey, 0, 4), 0, w, 0);
  return writeWordsLE(w, new Uint8Array(16));
}

/** `aesenc` on a 16-byte block with a 16-byte round key. */
export function aesEncRound(block: Uint8Array, roundKey: Uint8Array): Uint8Array {
  return roundOnBytes(aesEncRoundWords, block, roundKey);
}

/** `aesenclast` on a 16-byte block with a 16-byte round key. */
export function aesEncLastRound(block: Uint8Array, roundKey: Uint8Array): Uint8Array {
  return roundOnBytes(aesEncLastRoundWords, block, roundKey);
}

/**
 * CryptoNight's pseudo round (aesb_pseudo_round in Monero's aesb.c): ten `aesenc` rounds with
 * round keys 0..9 of `keys`, in place on words `buf[o..o+3]`.
 */
export function aesPseudoRoundWords(buf: Int32Array, o: number, keys: Int32Array): void {
  let x0 = buf[o];
  let x1 = buf[o + 1];
  let x2 = buf[o + 2];
  let x3 = buf[o + 3];
  for (let k = 0; k < 40; k += 4) {
    const y0 = TE0[x0 & 0xff] ^ TE1[(x1 >>> 8) & 0xff] ^ TE2[(x2 >>> 16) & 0xff] ^ TE3[x3 >>> 24] ^ keys[k];
    const y1 = TE0[x1 & 0xff] ^ TE1[(x2 >>> 8) & 0xff] ^ TE2[(x3 >>> 16) & 0xff] ^ TE3[x0 >>> 24] ^ keys[k + 1];
    const y2 = TE0[x2 & 0xff] ^ TE1[(x3 >>> 8) & 0xff] ^ TE2[(x0 >>> 16) & 0xff] ^ TE3[x1 >>> 24] ^ keys[k + 2];
    const y3 = TE0[x3 & 0xff] ^ TE1[(x0 >>> 8) & 0xff] ^ TE2[(x1 >>> 16) & 0xff] ^ TE3[x2 >>> 24] ^ keys[k + 3];
    x0 = y0;
    x1 = y1;
    x2 = y2;
    x3 = y3;
  }
  buf[o] = x0;
  buf[o + 1] = x1;
  buf[o + 2] = x2;
  buf[o + 3] = x3;
}
