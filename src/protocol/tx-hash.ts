/**
 * Transaction hashes (src/cryptonote_basic/cryptonote_format_utils.cpp): the prefix hash, the
 * prunable hash, and the transaction id: keccak of the whole blob for version 1, and for version 2
 * keccak(prefix hash ‖ RingCT-base hash ‖ prunable hash), where the prunable hash is all zeros for
 * RCTTypeNull (coinbase).
 */
import type { CryptoBackend } from "../crypto/backend.js";
import { defaultBackend } from "../crypto/index.js";
import { RCT_TYPE } from "./rct.js";
import {
  parseTransactionWithLayout,
  serializeRctBase,
  serializeRctPrunable,
  serializeTransaction,
  serializeTxPrefix,
  type Transaction,
  type TxLayout,
  type TxPrefix,
} from "./tx.js";

export const NULL_HASH = new Uint8Array(32);

function backendOr(b?: CryptoBackend): CryptoBackend {
  return b ?? defaultBackend();
}

/** get_transaction_prefix_hash. */
export function txPrefixHash(tx: TxPrefix, backend?: CryptoBackend): Uint8Array {
  return backendOr(backend).keccak256(serializeTxPrefix(tx));
}

/** The prunable hash of a v2 transaction (keccak of its RingCT prunable bytes; zeros for RCTTypeNull). */
export function txPrunableHash(tx: Transaction, backend?: CryptoBackend): Uint8Array {
  if (tx.version < 2) throw new RangeError("v1 transactions have no prunable hash");
  if (!tx.rct || tx.rct.type === RCT_TYPE.Null) return NULL_HASH.slice();
  return backendOr(backend).keccak256(serializeRctPrunable(tx));
}

/** v2: keccak(prefixHash ‖ baseHash ‖ prunableHash) (calculate_transaction_hash / get_pruned_transaction_hash). */
export function combineTxHashes(
  prefixHash: Uint8Array,
  baseHash: Uint8Array,
  prunableHash: Uint8Array,
  backend?: CryptoBackend,
): Uint8Array {
  const buf = new Uint8Array(96);
  buf.set(prefixHash, 0);
  buf.set(baseHash, 32);
  buf.set(prunableHash, 64);
  return backendOr(backend).keccak256(buf);
}

/**
 * The transaction id. For a pruned v2 transaction pass the prunable hash monerod reports
 * (`prunable_hash`); a pruned v1 transaction has no computable id.
 */
export function txHash(tx: Transaction, backend?: CryptoBackend, prunableHash?: Uint8Array): Uint8Array {
  const be = backendOr(backend);
  if (tx.version === 1) {
    if (tx.pruned) throw new RangeError("the hash of a pruned v1 transaction cannot be calculated");
    return be.keccak256(serializeTransaction(tx));
  }
  const prefixHash = be.keccak256(serializeTxPrefix(tx));
  // a v2 tx without inputs serializes no RingCT at all: its base hash is keccak of nothing
  const baseHash = tx.vin.length === 0 || !tx.rct ? be.keccak256(new Uint8Array(0)) : be.keccak256(serializeRctBase(tx));
  let ph: Uint8Array;
  if (!tx.rct || tx.rct.type === RCT_TYPE.Null) ph = NULL_HASH;
  else if (tx.pruned) {
    if (!prunableHash) throw new RangeError("a pruned v2 transaction needs its prunable hash to be hashed");
    ph = prunableHash;
  } else ph = be.keccak256(serializeRctPrunable(tx));
  return combineTxHashes(prefixHash, baseHash, ph, be);
}

/** Hashes computed straight from a blob's bytes, without re-serializing. */
export interface TxBlobHashes {
  hash: Uint8Array;
  prefixHash: Uint8Array;
  /** v2 only. */
  prunableHash?: Uint8Array;
  tx: Transaction;
  layout: TxLayout;
}

/** Parses a full (unpruned) transaction blob and hashes its byte ranges. */
export function txHashesFromBlob(blob: Uint8Array, backend?: CryptoBackend): TxBlobHashes {
  const { tx, layout } = parseTransactionWithLayout(blob);
  return txHashesOfParsed(blob, tx, layout, backend);
}

/** txHashesFromBlob for a tx already read from `blob` (its exact bytes) with its layout. */
export function txHashesOfParsed(blob: Uint8Array, tx: Transaction, layout: TxLayout, backend?: CryptoBackend): TxBlobHashes {
  const be = backendOr(backend);
  const prefixHash = be.keccak256(blob.subarray(0, layout.prefixSize));
  if (tx.version === 1) return { hash: be.keccak256(blob), prefixHash, tx, layout };
  const baseHash = be.keccak256(blob.subarray(layout.prefixSize, layout.unprunableSize));
  const prunableHash =
    !tx.rct || tx.rct.type === RCT_TYPE.Null ? NULL_HASH.slice() : be.keccak256(blob.subarray(layout.unprunableSize));
  return { hash: combineTxHashes(prefixHash, baseHash, prunableHash, be), prefixHash, prunableHash, tx, layout };
}

/**
 * make_hash32_loose_template (cryptonote_basic_impl.cpp): a copy of a 32-byte hash with every bit
 * below its top `bits` zeroed, the hash read as a little-endian 256-bit number (byte 31's high bits
 * first). Two hashes agree on their top `bits` bits when their templates are equal; a template is
 * well formed when it is its own template.
 */
export function hash32LooseTemplate(h: Uint8Array, bits: number): Uint8Array {
  const t = Uint8Array.from(h);
  for (let i = 31, left = bits; i >= 0; i--, left = Math.max(0, left - 8)) t[i] &= left >= 8 ? 0xff : (0xff << (8 - left)) & 0xff;
  return t;
}
