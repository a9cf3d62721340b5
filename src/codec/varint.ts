/**
 * Monero's varint (src/common/varint.h): unsigned LEB128, 7 bits per byte, low bits first, the high
 * bit set on every byte but the last. Values are u64 (`bigint`); decoding rejects overlong
 * encodings (a final 0x00 byte after the first), values above 2^64 − 1, and truncated input.
 */

/** Why a varint could not be decoded. */
export class VarintError extends Error {}

const U64_MAX = (1n << 64n) - 1n;

/** Number of bytes `value` takes as a varint. */
export function varintSize(value: bigint | number): number {
  let v = BigInt(value);
  let n = 1;
  while (v >= 0x80n) {
    v >>= 7n;
    n++;
  }
  return n;
}

/** Encodes a u64 (or a safe non-negative integer) as a varint. */
export function encodeVarint(value: bigint | number): Uint8Array {
  let v = typeof value === "number" ? BigInt(value) : value;
  if (typeof value === "number" && (!Number.isSafeInteger(value) || value < 0))
    throw new RangeError(`varint: ${value} is not a non-negative safe integer`);
  if (v < 0n || v > U64_MAX) throw new RangeError(`varint: ${v} is outside u64`);
  if (v < 0x80n) return Uint8Array.of(Number(v));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

/** Encodes a small non-negative integer (< 2^53) as a varint without going through bigint. */
export function encodeVarintNumber(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`varint: ${value} is not a non-negative safe integer`);
  if (value < 0x80) return Uint8Array.of(value);
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** Decodes a varint at `offset`; returns the value and the offset after it. */
export function decodeVarint(buf: Uint8Array, offset = 0): { value: bigint; next: number } {
  let value = 0n;
  let shift = 0n;
  for (let i = offset; ; i++) {
    if (i >= buf.length) throw new VarintError(`varint truncated at byte ${i - offset} (offset ${offset})`);
    const b = buf[i];
    if (shift === 63n && b > 1) throw new VarintError(`varint overflows u64 at offset ${offset}`);
    value |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) {
      if (b === 0 && i > offset) throw new VarintError(`varint has a redundant trailing zero byte at offset ${offset}`);
      return { value, next: i + 1 };
    }
    shift += 7n;
    if (shift > 63n) throw new VarintError(`varint longer than 10 bytes at offset ${offset}`);
  }
}
