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

/** Encodes bytes as Monero base58. */
export function base58Encode(data: Uint8Array): string {
  const out: string[] = [];
  for (let off = 0; off < data.length; off += FULL_BLOCK) {
    const size = Math.min(FULL_BLOCK, data.length - off);
    // Up to 8 bytes as two 32-bit halves would complicate the division; a bigint per block is cheap.
    let num = 0n;
    for (let i = 0; i < size; i++) num = (num << 8n) | BigInt(data[off + i]);
    const chars = new Array<string>(ENCODED_BLOCK_SIZES[size]).fill(BASE58_ALPHABET[0]);
    for (let i = chars.length - 1; num > 0n; i--) {
      chars[i] = BASE58_ALPHABET[Number(num % 58n)];
      num /= 58n;
    }
    out.push(chars.join(""));
  }
  return out.join("");
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
    let num = 0n;
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
      num = num * 58n + BigInt(digit);
    }
    if (num >= 1n << BigInt(8 * size)) {
      throw new Base58Error(
        "overflow",
        start,
        `base58 block at position ${start} ("${text.slice(start, start + len)}") is too large for ${size} bytes`,
      );
    }
    for (let i = size - 1; i >= 0; i--) {
      out[b * FULL_BLOCK + i] = Number(num & 0xffn);
      num >>= 8n;
    }
  }
  return out;
}

/** Encoded length of `byteLength` bytes. */
export function base58EncodedLength(byteLength: number): number {
  return Math.floor(byteLength / FULL_BLOCK) * FULL_ENCODED_BLOCK + ENCODED_BLOCK_SIZES[byteLength % FULL_BLOCK];
}
