/**
 * Payment ids (src/wallet/wallet2.cpp parse_short_payment_id / parse_long_payment_id /
 * parse_payment_id): a short id is 8 bytes (16 hex characters, carried inside an integrated address
 * or encrypted in tx extra), a long id 32 bytes (64 hex characters, deprecated and unencrypted).
 * Hex digits may be upper or lower case, as epee's parser accepts; anything else — other lengths,
 * non-hex characters, spaces, "0x" — is refused with the reason.
 */
import type { Bytes } from "../crypto/backend.js";

export const SHORT_PAYMENT_ID_SIZE = 8;
export const LONG_PAYMENT_ID_SIZE = 32;

/** Why a string is not a payment id. */
export class PaymentIdError extends Error {
  override readonly name = "PaymentIdError";
}

const HEX_RE = /^[0-9a-fA-F]*$/;

function parseHex(text: string, size: number, what: string): Bytes {
  if (!HEX_RE.test(text)) {
    const bad = [...text].findIndex((c) => !/[0-9a-fA-F]/.test(c));
    throw new PaymentIdError(`${what} must be hex; character ${JSON.stringify([...text][bad])} at position ${bad} is not`);
  }
  if (text.length % 2 !== 0) throw new PaymentIdError(`${what} has an odd number of hex digits (${text.length})`);
  if (text.length !== size * 2) {
    throw new PaymentIdError(`${what} must be ${size * 2} hex digits (${size} bytes), not ${text.length}`);
  }
  return Uint8Array.from(Buffer.from(text, "hex"));
}

/** An 8-byte payment id from 16 hex digits. */
export function parseShortPaymentId(text: string): Bytes {
  return parseHex(text, SHORT_PAYMENT_ID_SIZE, "a short payment id");
}

/** A 32-byte payment id from 64 hex digits. */
export function parseLongPaymentId(text: string): Bytes {
  return parseHex(text, LONG_PAYMENT_ID_SIZE, "a long payment id");
}

/**
 * Either kind, as wallet2::parse_payment_id: 64 hex digits as a long id, else 16 as a short one
 * (returned as 8 bytes; Monero widens it to 32 with zeros when it stores it as a hash).
 */
export function parsePaymentId(text: string): { kind: "long" | "short"; id: Bytes } {
  if (text.length === LONG_PAYMENT_ID_SIZE * 2) return { kind: "long", id: parseLongPaymentId(text) };
  if (text.length === SHORT_PAYMENT_ID_SIZE * 2) return { kind: "short", id: parseShortPaymentId(text) };
  if (!HEX_RE.test(text)) parseHex(text, SHORT_PAYMENT_ID_SIZE, "a payment id");
  throw new PaymentIdError(`a payment id must be 16 or 64 hex digits, not ${text.length}`);
}

/** Lower-case hex, as Monero prints ids (pod_to_hex). */
export function paymentIdToHex(id: Bytes): string {
  return Buffer.from(id.buffer, id.byteOffset, id.byteLength).toString("hex");
}
