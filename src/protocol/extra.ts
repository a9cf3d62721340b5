/**
 * Transaction extra (src/cryptonote_basic/tx_extra.h, cryptonote_format_utils.cpp: parse_tx_extra,
 * sort_tx_extra, the payment-id nonce helpers).
 *
 * extra is a sequence of fields, each a tag byte and a body:
 *   0x00 padding          zeros to the end of extra (at most 255 bytes with the tag)
 *   0x01 tx public key    32 bytes
 *   0x02 nonce            varint length (≤ 255) + bytes; a payment id is 0x00 + 32 bytes,
 *                         an encrypted payment id 0x01 + 8 bytes
 *   0x03 merge mining     varint length + (varint depth, 32-byte merkle root), exactly
 *   0x04 additional keys  varint count + 32 bytes each (one per output, for subaddress destinations)
 *   0xde minergate        varint length + bytes
 *
 * Monero tolerates bad extra: parse_tx_extra stops at the first field it cannot read and callers use
 * the fields read before it (e.g. the tx public key is still found). `parseTxExtra` does the same: it
 * returns the fields it could read and, separately, the error that stopped it.
 */
import { FormatError, type Label, Reader, Where } from "../codec/reader.js";
import { Writer } from "../codec/writer.js";
import type { Bytes } from "./rct.js";

export const EXTRA_TAG = {
  padding: 0x00,
  pubkey: 0x01,
  nonce: 0x02,
  merge_mining: 0x03,
  additional_pubkeys: 0x04,
  minergate: 0xde,
} as const;
export const EXTRA_NONCE_PAYMENT_ID = 0x00;
export const EXTRA_NONCE_ENCRYPTED_PAYMENT_ID = 0x01;
/** TX_EXTRA_PADDING_MAX_COUNT and TX_EXTRA_NONCE_MAX_COUNT. */
export const EXTRA_PADDING_MAX = 255;
export const EXTRA_NONCE_MAX = 255;

export type ExtraField =
  /** `size` counts the tag byte, as Monero's tx_extra_padding::size does (1..255). */
  | { type: "padding"; size: number }
  | { type: "pubkey"; key: Bytes }
  | { type: "nonce"; nonce: Bytes }
  | { type: "merge_mining"; depth: bigint; merkleRoot: Bytes }
  | { type: "additional_pubkeys"; keys: Bytes[] }
  | { type: "minergate"; data: Bytes };

export interface ParsedExtra {
  /** The fields read, in order, up to the first one that could not be read. */
  fields: ExtraField[];
  /** Bytes covered by `fields` (Monero's `processed`); equals extra.length when `error` is absent. */
  processed: number;
  /** Why parsing stopped early, when it did (Monero's parse_tx_extra then returns false). */
  error?: FormatError;
}

function readField(r: Reader, what: Label): ExtraField {
  const at = r.pos;
  const tag = r.u8(new Where(what, " tag"));
  switch (tag) {
    case EXTRA_TAG.padding: {
      // zeros up to the end; at most 254 after the tag
      let size = 1;
      for (; size <= EXTRA_PADDING_MAX; size++) {
        if (r.atEnd) break;
        const zat = r.pos;
        if (r.u8(new Where(what, ".padding")) !== 0) r.fail(new Where(what, ".padding"), "padding byte is not zero", zat);
      }
      if (size > EXTRA_PADDING_MAX) r.fail(new Where(what, ".padding"), `padding longer than ${EXTRA_PADDING_MAX} bytes`, at);
      return { type: "padding", size };
    }
    case EXTRA_TAG.pubkey:
      return { type: "pubkey", key: r.key(new Where(what, ".pub_key")) };
    case EXTRA_TAG.nonce: {
      const lat = r.pos;
      const n = r.count(new Where(what, ".nonce length"), 1);
      if (n > EXTRA_NONCE_MAX) r.fail(new Where(what, ".nonce"), `nonce of ${n} bytes exceeds ${EXTRA_NONCE_MAX}`, lat);
      return { type: "nonce", nonce: r.bytes(n, new Where(what, ".nonce")) };
    }
    case EXTRA_TAG.merge_mining: {
      const n = r.count(new Where(what, ".merge_mining length"), 1);
      const inner = new Reader(r.buf, r.pos, r.pos + n);
      const depth = inner.varint(new Where(what, ".merge_mining.depth"));
      const merkleRoot = inner.key(new Where(what, ".merge_mining.merkle_root"));
      inner.expectEnd(new Where(what, ".merge_mining"));
      r.skip(n, new Where(what, ".merge_mining"));
      return { type: "merge_mining", depth, merkleRoot };
    }
    case EXTRA_TAG.additional_pubkeys: {
      const n = r.count(new Where(what, ".additional_pubkeys count"), 32);
      const keys: Bytes[] = new Array(n);
      for (let i = 0; i < n; i++) keys[i] = r.key(new Where(what, ".additional_pubkeys[", i, "]"));
      return { type: "additional_pubkeys", keys };
    }
    case EXTRA_TAG.minergate: {
      const n = r.count(new Where(what, ".minergate length"), 1);
      return { type: "minergate", data: r.bytes(n, new Where(what, ".minergate")) };
    }
    default:
      return r.fail(new Where(what, " tag"), `unknown extra field tag 0x${tag.toString(16).padStart(2, "0")}`, at);
  }
}

/** parse_tx_extra, tolerant the way Monero's callers are: fields before a bad one are kept. */
export function parseTxExtra(extra: Bytes): ParsedExtra {
  const fields: ExtraField[] = [];
  const r = new Reader(extra);
  let processed = 0;
  while (!r.atEnd) {
    try {
      fields.push(readField(r, new Where("extra", "[", fields.length, "]")));
    } catch (e) {
      if (e instanceof FormatError) return { fields, processed, error: e };
      throw e;
    }
    processed = r.pos;
  }
  return { fields, processed };
}

/** Parses extra and throws the FormatError when any of it cannot be read. */
export function parseTxExtraStrict(extra: Bytes): ExtraField[] {
  const p = parseTxExtra(extra);
  if (p.error) throw p.error;
  return p.fields;
}

export function writeExtraField(w: Writer, f: ExtraField): void {
  w.u8(EXTRA_TAG[f.type]);
  switch (f.type) {
    case "padding":
      if (f.size < 1 || f.size > EXTRA_PADDING_MAX) throw new RangeError(`padding size must be 1..${EXTRA_PADDING_MAX}`);
      for (let i = 1; i < f.size; i++) w.u8(0);
      break;
    case "pubkey":
      w.fixed(f.key, 32, "tx public key");
      break;
    case "nonce":
      if (f.nonce.length > EXTRA_NONCE_MAX) throw new RangeError(`nonce longer than ${EXTRA_NONCE_MAX} bytes`);
      w.varint(f.nonce.length).bytes(f.nonce);
      break;
    case "merge_mining": {
      const inner = new Writer(48);
      inner.varint(f.depth).fixed(f.merkleRoot, 32, "merkle root");
      const b = inner.finish();
      w.varint(b.length).bytes(b);
      break;
    }
    case "additional_pubkeys":
      w.varint(f.keys.length);
      for (const k of f.keys) w.fixed(k, 32, "additional public key");
      break;
    case "minergate":
      w.varint(f.data.length).bytes(f.data);
      break;
  }
}

export function serializeTxExtra(fields: readonly ExtraField[]): Bytes {
  const w = new Writer(64);
  for (const f of fields) writeExtraField(w, f);
  return w.finish();
}

const SORT_ORDER: ExtraField["type"][] = ["pubkey", "additional_pubkeys", "nonce", "merge_mining", "minergate", "padding"];

/**
 * sort_tx_extra: fields reordered (pubkey, additional keys, nonce, merge mining, minergate, padding),
 * keeping the relative order of fields of one type. With `allowPartial`, unreadable trailing bytes are
 * appended as they were; without it, unreadable extra is an error.
 */
export function sortTxExtra(extra: Bytes, allowPartial = false): Bytes {
  if (extra.length === 0) return new Uint8Array(0);
  const p = parseTxExtra(extra);
  if (p.error && !allowPartial) throw p.error;
  const w = new Writer(extra.length + 8);
  for (const t of SORT_ORDER) for (const f of p.fields) if (f.type === t) writeExtraField(w, f);
  if (allowPartial && p.processed < extra.length) w.bytes(extra.subarray(p.processed));
  return w.finish();
}

/** The index-th tx public key (get_tx_pub_key_from_extra), or undefined. */
export function extraTxPubKey(fields: readonly ExtraField[], index = 0): Bytes | undefined {
  let i = 0;
  for (const f of fields) if (f.type === "pubkey" && i++ === index) return f.key;
  return undefined;
}

/** The additional tx public keys (get_additional_tx_pub_keys_from_extra); empty when absent. */
export function extraAdditionalPubKeys(fields: readonly ExtraField[]): Bytes[] {
  for (const f of fields) if (f.type === "additional_pubkeys") return f.keys;
  return [];
}

/** The first nonce field, or undefined. */
export function extraNonce(fields: readonly ExtraField[]): Bytes | undefined {
  for (const f of fields) if (f.type === "nonce") return f.nonce;
  return undefined;
}

/** get_payment_id_from_tx_extra_nonce: a 32-byte (unencrypted, long) payment id. */
export function paymentIdFromNonce(nonce: Bytes): Bytes | undefined {
  if (nonce.length !== 33 || nonce[0] !== EXTRA_NONCE_PAYMENT_ID) return undefined;
  return nonce.slice(1);
}

/** get_encrypted_payment_id_from_tx_extra_nonce: an 8-byte encrypted payment id. */
export function encryptedPaymentIdFromNonce(nonce: Bytes): Bytes | undefined {
  if (nonce.length !== 9 || nonce[0] !== EXTRA_NONCE_ENCRYPTED_PAYMENT_ID) return undefined;
  return nonce.slice(1);
}

/** set_payment_id_to_tx_extra_nonce. */
export function nonceWithPaymentId(paymentId: Bytes): Bytes {
  if (paymentId.length !== 32) throw new RangeError("payment id must be 32 bytes");
  return Uint8Array.of(EXTRA_NONCE_PAYMENT_ID, ...paymentId);
}

/** set_encrypted_payment_id_to_tx_extra_nonce. */
export function nonceWithEncryptedPaymentId(paymentId: Bytes): Bytes {
  if (paymentId.length !== 8) throw new RangeError("encrypted payment id must be 8 bytes");
  return Uint8Array.of(EXTRA_NONCE_ENCRYPTED_PAYMENT_ID, ...paymentId);
}
