/**
 * Payment URIs as monero-wallet-rpc makes and reads them (src/wallet/wallet2.cpp make_uri /
 * parse_uri, epee's URL escaping in contrib/epee/src/abstract_http_client.cpp, amounts as
 * cryptonote::print_money / parse_amount). Monero's quirks are kept on purpose, since clients
 * depend on them:
 * - make_uri escapes bytes ≤ 0x20, ≥ 0x7b and "<>%\^[]`+$,@:;!#& but not '=', '/' or '?',
 *   so a description containing '=' produces a URI that parse_uri then refuses;
 * - parse_uri splits parameters on '&' and '=' before unescaping, matches names exactly, keeps
 *   unknown parameters verbatim, and leaves a '%' not followed by two more characters, or by two
 *   non-hex digits, as it is;
 * - a standalone tx_payment_id must be a 64-hex-digit long id; make_uri refuses any payment id.
 * Error messages are Monero's, word for word (`UriError.message`).
 */
import type { CryptoBackend } from "../crypto/backend.js";
import { tryDecodeAddress } from "./address.js";
import type { Network } from "./network.js";
import { LONG_PAYMENT_ID_SIZE } from "./payment-id.js";

/** Prefix monero-wallet-rpc puts before make_uri's error. */
export const MAKE_URI_ERROR_PREFIX = "Cannot make URI from supplied parameters: ";
/** Prefix monero-wallet-rpc puts before parse_uri's error. */
export const PARSE_URI_ERROR_PREFIX = "Error parsing URI: ";

/** A URI that cannot be made or parsed; `message` is Monero's text (without the RPC prefix). */
export class UriError extends Error {
  override readonly name = "UriError";
}

/** Atomic units per XMR is 10^12 (CRYPTONOTE_DISPLAY_DECIMAL_POINT). */
export const DISPLAY_DECIMAL_POINT = 12;
const U64_MAX = (1n << 64n) - 1n;

/** cryptonote::print_money: atomic units with exactly 12 decimals ("0.000000000001"). */
export function printMoney(amount: bigint): string {
  let s = amount.toString();
  if (s.length < DISPLAY_DECIMAL_POINT + 1) s = "0".repeat(DISPLAY_DECIMAL_POINT + 1 - s.length) + s;
  return `${s.slice(0, s.length - DISPLAY_DECIMAL_POINT)}.${s.slice(s.length - DISPLAY_DECIMAL_POINT)}`;
}

/**
 * cryptonote::parse_amount: decimal XMR to atomic units, or null. Surrounding whitespace is trimmed,
 * extra trailing zeros beyond 12 decimals are dropped, digits only (no sign, no exponent), ≤ 2^64 − 1.
 */
export function parseAmount(text: string): bigint | null {
  let s = text.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, "");
  const point = s.indexOf(".");
  let fraction = 0;
  if (point >= 0) {
    fraction = s.length - point - 1;
    while (fraction > DISPLAY_DECIMAL_POINT && s.endsWith("0")) {
      s = s.slice(0, -1);
      fraction--;
    }
    if (fraction > DISPLAY_DECIMAL_POINT) return null;
    s = s.slice(0, point) + s.slice(point + 1);
  }
  if (s.length === 0) return null;
  s += "0".repeat(DISPLAY_DECIMAL_POINT - fraction);
  if (!/^[0-9]+$/.test(s)) return null;
  const v = BigInt(s);
  return v > U64_MAX ? null : v;
}

const UNSAFE = new Set([..."\"<>%\\^[]`+$,@:;!#&"].map((c) => c.charCodeAt(0)));
const HEX_UPPER = "0123456789ABCDEF";

/** epee's conver_to_url_format: %XX (upper-case hex) for each unsafe UTF-8 byte. */
export function urlEscape(text: string): string {
  let out = "";
  for (const b of Buffer.from(text, "utf8")) {
    out += b <= 32 || b >= 123 || UNSAFE.has(b) ? `%${HEX_UPPER[b >> 4]}${HEX_UPPER[b & 15]}` : String.fromCharCode(b);
  }
  return out;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const u = c & ~0x20;
  return u >= 0x41 && u <= 0x46 ? u - 0x41 + 10 : -1;
}

/** epee's convert_from_url_format, on UTF-8 bytes (so escaped multi-byte characters decode). */
export function urlUnescape(text: string): string {
  const src = Buffer.from(text, "utf8");
  const out: number[] = [];
  for (let i = 0; i < src.length; i++) {
    if (src[i] === 0x25 && i + 2 < src.length) {
      const h = hexValue(src[i + 1]);
      const l = hexValue(src[i + 2]);
      if (h < 0 || l < 0) out.push(0x25, src[i + 1], src[i + 2]);
      else out.push(h * 16 + l);
      i += 2;
    } else {
      out.push(src[i]);
    }
  }
  return Buffer.from(out).toString("utf8");
}

export interface UriFields {
  address: string;
  /** Standalone (long) payment id, or "". */
  payment_id: string;
  /** Atomic units. */
  amount: bigint;
  tx_description: string;
  recipient_name: string;
}

/** make_uri: `monero:ADDRESS[?tx_amount=…&recipient_name=…&tx_description=…]`, or a UriError. */
export function makeUri(
  p: { address: string; payment_id?: string; amount?: bigint; tx_description?: string; recipient_name?: string },
  network: Network,
  backend?: CryptoBackend,
): string {
  const info = tryDecodeAddress(p.address, network, backend);
  if (!info) throw new UriError(`wrong address: ${p.address}`);
  const paymentId = p.payment_id ?? "";
  if (info.kind === "integrated" && paymentId !== "") throw new UriError("A single payment id is allowed");
  if (paymentId !== "") throw new UriError("Standalone payment id deprecated, use integrated address instead");
  const params: string[] = [];
  const amount = p.amount ?? 0n;
  if (amount > 0n) params.push(`tx_amount=${printMoney(amount)}`);
  if (p.recipient_name) params.push(`recipient_name=${urlEscape(p.recipient_name)}`);
  if (p.tx_description) params.push(`tx_description=${urlEscape(p.tx_description)}`);
  return `monero:${p.address}${params.length ? `?${params.join("&")}` : ""}`;
}

/** parse_uri: the URI's fields and its unknown parameters (verbatim), or a UriError. */
export function parseUri(uri: string, network: Network, backend?: CryptoBackend): { uri: UriFields; unknown_parameters: string[] } {
  if (!uri.startsWith("monero:")) throw new UriError(`URI has wrong scheme (expected "monero:"): ${uri}`);
  const remainder = uri.slice(7);
  const q = remainder.indexOf("?");
  const address = q >= 0 ? remainder.slice(0, q) : remainder;
  const fields: UriFields = { address, payment_id: "", amount: 0n, tx_description: "", recipient_name: "" };
  const unknown: string[] = [];
  const info = tryDecodeAddress(address, network, backend);
  if (!info) throw new UriError(`URI has wrong address: ${address}`);
  if (q < 0) return { uri: fields, unknown_parameters: unknown };
  const body = remainder.slice(address.length + 1);
  if (body === "") return { uri: fields, unknown_parameters: unknown };
  const seen = new Set<string>();
  for (const arg of body.split("&")) {
    const kv = arg.split("=");
    if (kv.length !== 2) throw new UriError(`URI has wrong parameter: ${arg}`);
    const [key, value] = kv;
    if (seen.has(key)) throw new UriError(`URI has more than one instance of ${key}`);
    seen.add(key);
    if (key === "tx_amount") {
      const amount = parseAmount(value);
      if (amount === null) throw new UriError(`URI has invalid amount: ${value}`);
      fields.amount = amount;
    } else if (key === "tx_payment_id") {
      if (info.kind === "integrated") throw new UriError("Separate payment id given with an integrated address");
      if (!new RegExp(`^[0-9a-fA-F]{${LONG_PAYMENT_ID_SIZE * 2}}$`).test(value)) throw new UriError(`Invalid payment id: ${value}`);
      fields.payment_id = value;
    } else if (key === "recipient_name") {
      fields.recipient_name = urlUnescape(value);
    } else if (key === "tx_description") {
      fields.tx_description = urlUnescape(value);
    } else {
      unknown.push(arg);
    }
  }
  return { uri: fields, unknown_parameters: unknown };
}
