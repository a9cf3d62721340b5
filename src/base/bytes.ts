/**
 * Bytes ⇄ hex, the one place for them (noble's utils style). Conversions copy; hex is lower-case.
 * `hexToBytes` reads as Node's Buffer.from(s, "hex") does (callers check the text first where the
 * wire demands it: isHex).
 */

/** Two lower-case hex digits for each byte value (a single byte's hex, or a hex walk in another byte order). */
export const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** Lower-case hex of the bytes (a view's own range, not its whole buffer). */
export function bytesToHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

/** The bytes of a hex text, as a plain Uint8Array (lenient as Buffer.from: stops at the first non-hex pair). */
export function hexToBytes(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s, "hex"));
}

const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;
/** epee's parse_hexstr_to_binbuff test: an even number of hex digits. */
export function isHex(s: string): boolean {
  return HEX_RE.test(s);
}

/** Do two byte strings hold the same bytes? */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
