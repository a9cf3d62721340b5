/**
 * Monero's base58 (src/common/base58.cpp): not Bitcoin's big-number base58, but a block code. Input
 * is cut into 8-byte blocks, each written as exactly 11 characters (big-endian number in base 58,
 * left-padded with '1'); a final partial block of n bytes takes 0, 2, 3, 5, 6, 7, 9, 10 or 11
 * characters for n = 0..8. Decoding rejects characters outside the alphabet, impossible final block
 * lengths and blocks whose value does not fit their byte count — each with its own reason.
 *
 * Address framing (varint tag ‖ data ‖ 4-byte Keccak checksum) lives in protocol/address.ts.
 */

export const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Characters needed for a block of 0..8 bytes. */
const ENCODED_BLOCK_SIZES = [0, 2, 3, 5, 6, 7, 9, 10, 11] as const;
const FULL_BLOCK = 8;
const FULL_ENCODED_BLOCK = 11;

/** Encoded block length → decoded byte count, or −1 when no block has that length. */
const DECODED_BLOCK_SIZES: readonly number[] = (() => {
  const t = new Array<number>(FULL_ENCODED_BLOCK + 1).fill(-1);
  ENCODED_BLOCK_SIZES.forEach((enc, dec) => {
    t[enc] = dec;
  });
  return t;
})();

/** Character code → digit, −1 for characters outside the alphabet. */
const DIGITS: Int8Array = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < BASE58_ALPHABET.length; i++) t[BASE58_ALPHABET.charCodeAt(i)] = i;
  return t;
})();

export type Base58ErrorReason = "character" | "length" | "overflow";

/** Why a string is not Monero base58. */
export class Base58Error extends Error {
  override readonly name = "Base58Error";
  constructor(
    readonly reason: Base58ErrorReason,
    /** Character offset in the input where the problem is. */
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

const TWO32 = 0x1_0000_0000;

/*
 * A block is at most 8 bytes, a number below 2^64: it is kept as two halves hi·2^32 + lo in doubles,
 * every intermediate exact below 2^53 (hi·58 + carry < 2^39, r·2^32 + lo < 58·2^32). No bigint: a
 * reserve proof over 1000 outputs is some 28,000 blocks.
 */

/** Encodes bytes as Monero base58. */
export function base58Encode(data: Uint8Array): string {
  let out = "";
  const chars = new Array<string>(FULL_ENCODED_BLOCK);
  for (let off = 0; off < data.length; off += FULL_BLOCK) {
    const size = Math.min(FULL_BLOCK, data.length - off);
    let hi = 0;
    let lo = 0;
    for (let i = 0; i < size; i++) {
      // (hi, lo) = (hi, lo) · 256 + byte
      const x = lo * 256 + data[off + i];
      const carry = Math.floor(x / TWO32);
      lo = x - carry * TWO32;
      hi = hi * 256 + carry;
    }
    const len = ENCODED_BLOCK_SIZES[size];
    for (let i = len - 1; i >= 0; i--) {
      // (hi, lo) = divmod((hi, lo), 58)
      const qh = Math.floor(hi / 58);
      const x = (hi - qh * 58) * TWO32 + lo;
      const ql = Math.floor(x / 58);
      chars[i] = BASE58_ALPHABET[x - ql * 58];
      hi = qh;
      lo = ql;
    }
    for (let i = 0; i < len; i++) out += chars[i];
  }
  return out;
}

/** Decodes Monero base58; throws `Base58Error` saying what is wrong and where. */
export function base58Decode(text: string): Uint8Array {
  const fullBlocks = Math.floor(text.length / FULL_ENCODED_BLOCK);
  const lastLen = text.length % FULL_ENCODED_BLOCK;
  const lastSize = DECODED_BLOCK_SIZES[lastLen];
  if (lastSize < 0) {
    throw new Base58Error(
      "length",
      fullBlocks * FULL_ENCODED_BLOCK,
      `base58 length ${text.length} is impossible: a final block of ${lastLen} characters decodes to no whole number of bytes`,
    );
  }
  const out = new Uint8Array(fullBlocks * FULL_BLOCK + lastSize);
  for (let b = 0; b * FULL_ENCODED_BLOCK < text.length; b++) {
    const start = b * FULL_ENCODED_BLOCK;
    const len = Math.min(FULL_ENCODED_BLOCK, text.length - start);
    const size = DECODED_BLOCK_SIZES[len];
    let hi = 0;
    let lo = 0;
    for (let i = 0; i < len; i++) {
      const code = text.charCodeAt(start + i);
      const digit = code < 128 ? DIGITS[code] : -1;
      if (digit < 0) {
        throw new Base58Error(
          "character",
          start + i,
          `invalid base58 character ${JSON.stringify(text[start + i])} at position ${start + i}`,
        );
      }
      // (hi, lo) = (hi, lo) · 58 + digit
      const x = lo * 58 + digit;
      const carry = Math.floor(x / TWO32);
      lo = x - carry * TWO32;
      hi = hi * 58 + carry;
    }
    // the value must fit the block's byte count (decode_block: overflow of u64, or ≥ 2^(8·size))
    const fits = size * 8 > 32 ? hi < 2 ** (size * 8 - 32) : hi === 0 && lo < 2 ** (size * 8);
    if (!fits) {
      throw new Base58Error(
        "overflow",
        start,
        `base58 block at position ${start} ("${text.slice(start, start + len)}") is too large for ${size} bytes`,
      );
    }
    const base = b * FULL_BLOCK;
    for (let j = 0; j < size; j++) out[base + size - 1 - j] = j < 4 ? (lo >>> (8 * j)) & 0xff : (hi >>> (8 * (j - 4))) & 0xff;
  }
  return out;
}

/** Encoded length of `byteLength` bytes. */
export function base58EncodedLength(byteLength: number): number {
  return Math.floor(byteLength / FULL_BLOCK) * FULL_ENCODED_BLOCK + ENCODED_BLOCK_SIZES[byteLength % FULL_BLOCK];
}
