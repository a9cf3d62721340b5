/**
 * Monero transactions (src/cryptonote_basic/cryptonote_basic.h): the prefix (version, unlock_time,
 * inputs, outputs, extra), then for version 1 the ring signatures and for version 2 the RingCT base
 * and, unless pruned, the RingCT prunable part. Parsing and serializing are exact inverses on every
 * blob Monero accepts.
 */
import { FormatError, type Label, Reader, Where } from "../codec/reader.js";
import { Writer } from "../codec/writer.js";
import {
  type Bytes,
  RCT_TYPE,
  type RctBase,
  type RctPrunable,
  type RctSignatures,
  readRctBase,
  readRctPrunable,
  writeRctBase,
  writeRctPrunable,
} from "./rct.js";

export type { Bytes } from "./rct.js";

export type TxIn =
  | { type: "gen"; height: bigint }
  | { type: "key"; amount: bigint; keyOffsets: bigint[]; keyImage: Bytes }
  | { type: "script"; prev: Bytes; prevout: bigint; sigset: Bytes }
  | { type: "scripthash"; prev: Bytes; prevout: bigint; script: { keys: Bytes[]; script: Bytes }; sigset: Bytes };

export type TxOutTarget =
  | { type: "key"; key: Bytes }
  | { type: "tagged_key"; key: Bytes; viewTag: number }
  | { type: "script"; keys: Bytes[]; script: Bytes }
  | { type: "scripthash"; hash: Bytes };

export interface TxOut {
  amount: bigint;
  target: TxOutTarget;
}

export interface TxPrefix {
  /** 1 or 2. */
  version: number;
  unlockTime: bigint;
  vin: TxIn[];
  vout: TxOut[];
  /** Raw extra bytes (parse them with protocol/extra.ts). */
  extra: Bytes;
}

export interface Transaction extends TxPrefix {
  /** Version 1: per input, its ring signature (64-byte signatures, one per ring member). Empty when pruned. */
  signatures: Bytes[][];
  /**
   * Version 2: the RingCT signatures. Absent only for a version-2 transaction without inputs (whose
   * rct_signatures Monero does not serialize at all).
   */
  rct?: RctSignatures;
  /** True when the prunable data (v1 signatures, RingCT prunable part) is absent. */
  pruned: boolean;
}

/** Byte layout of a serialized transaction, as Monero tracks it (prefix_size, unprunable_size). */
export interface TxLayout {
  /** Bytes of the prefix. */
  prefixSize: number;
  /** Bytes of prefix + RingCT base (v2), or of the prefix (v1). */
  unprunableSize: number;
  /** Total size. */
  size: number;
}

export const TX_TAG = { gen: 0xff, script: 0x00, scripthash: 0x01, key: 0x02 } as const;
export const TXOUT_TAG = { script: 0x00, scripthash: 0x01, key: 0x02, tagged_key: 0x03 } as const;
/** CURRENT_TRANSACTION_VERSION in v0.18. */
export const MAX_TX_VERSION = 2;

function readBlobVector(r: Reader, what: Label): Bytes {
  const n = r.count(what, 1);
  return r.bytes(n, what);
}

function readTxOutToScript(r: Reader, what: Label): { keys: Bytes[]; script: Bytes } {
  const nk = r.count(new Where(what, ".keys"), 32);
  const ks: Bytes[] = [];
  for (let i = 0; i < nk; i++) ks.push(r.key(new Where(what, ".keys[", i, "]")));
  return { keys: ks, script: readBlobVector(r, new Where(what, ".script")) };
}

function readTxIn(r: Reader, what: Label): TxIn {
  const at = r.pos;
  const tag = r.u8(new Where(what, " tag"));
  switch (tag) {
    case TX_TAG.gen:
      return { type: "gen", height: r.varint(new Where(what, ".gen.height")) };
    case TX_TAG.key: {
      const amount = r.varint(new Where(what, ".key.amount"));
      const n = r.count(new Where(what, ".key.key_offsets"), 1);
      const keyOffsets: bigint[] = new Array(n);
      for (let i = 0; i < n; i++) keyOffsets[i] = r.varint(new Where(what, ".key.key_offsets[", i, "]"));
      return { type: "key", amount, keyOffsets, keyImage: r.key(new Where(what, ".key.k_image")) };
    }
    case TX_TAG.script:
      return {
        type: "script",
        prev: r.key(new Where(what, ".script.prev")),
        prevout: r.varint(new Where(what, ".script.prevout")),
        sigset: readBlobVector(r, new Where(what, ".script.sigset")),
      };
    case TX_TAG.scripthash:
      return {
        type: "scripthash",
        prev: r.key(new Where(what, ".scripthash.prev")),
        prevout: r.varint(new Where(what, ".scripthash.prevout")),
        script: readTxOutToScript(r, new Where(what, ".scripthash.script")),
        sigset: readBlobVector(r, new Where(what, ".scripthash.sigset")),
      };
    default:
      return r.fail(new Where(what, " tag"), `unknown input type 0x${tag.toString(16)}`, at);
  }
}

function readTxOut(r: Reader, what: Label): TxOut {
  const amount = r.varint(new Where(what, ".amount"));
  const at = r.pos;
  const tag = r.u8(new Where(what, ".target tag"));
  let target: TxOutTarget;
  switch (tag) {
    case TXOUT_TAG.key:
      target = { type: "key", key: r.key(new Where(what, ".target.key")) };
      break;
    case TXOUT_TAG.tagged_key:
      target = { type: "tagged_key", key: r.key(new Where(what, ".target.key")), viewTag: r.u8(new Where(what, ".target.view_tag")) };
      break;
    case TXOUT_TAG.script: {
      const s = readTxOutToScript(r, new Where(what, ".target.script"));
      target = { type: "script", keys: s.keys, script: s.script };
      break;
    }
    case TXOUT_TAG.scripthash:
      target = { type: "scripthash", hash: r.key(new Where(what, ".target.hash")) };
      break;
    default:
      r.fail(new Where(what, ".target tag"), `unknown output type 0x${tag.toString(16)}`, at);
  }
  return { amount, target };
}

/** Reads a transaction prefix (transaction_prefix::serialize). */
export function readTxPrefix(r: Reader, what: Label = "tx"): TxPrefix {
  const at = r.pos;
  const version = r.varintNumber(new Where(what, ".version"));
  if (version === 0 || version > MAX_TX_VERSION) r.fail(new Where(what, ".version"), `unsupported version ${version}`, at);
  const unlockTime = r.varint(new Where(what, ".unlock_time"));
  const nin = r.count(new Where(what, ".vin"), 1);
  const vin: TxIn[] = new Array(nin);
  for (let i = 0; i < nin; i++) vin[i] = readTxIn(r, new Where(what, ".vin[", i, "]"));
  const nout = r.count(new Where(what, ".vout"), 1);
  const vout: TxOut[] = new Array(nout);
  for (let i = 0; i < nout; i++) vout[i] = readTxOut(r, new Where(what, ".vout[", i, "]"));
  const extra = readBlobVector(r, new Where(what, ".extra"));
  return { version, unlockTime, vin, vout, extra };
}

/** Ring size − 1 of the first input (Monero passes it to the prunable serializer). */
function mixinOf(r: Reader | undefined, vin: TxIn[], what: Label): number {
  if (vin.length > 0 && vin[0].type === "key") {
    const n = vin[0].keyOffsets.length;
    if (n === 0) {
      if (r) r.fail(new Where(what, ".vin[0].key_offsets"), "empty ring: RingCT needs at least one ring member");
      throw new RangeError("vin[0] has an empty ring");
    }
    return n - 1;
  }
  return 0;
}

export interface ParseTxOptions {
  /** Parse a pruned blob (prefix + RingCT base, as monerod's pruned_as_hex); default false. */
  pruned?: boolean;
  /** Allow bytes after the transaction (for transactions embedded in blocks); default false. */
  allowTrailing?: boolean;
}

/** Reads a whole transaction at the reader's position (transaction::serialize). */
export function readTransaction(r: Reader, opts: ParseTxOptions = {}, what: Label = "tx"): { tx: Transaction; layout: TxLayout } {
  const start = r.pos;
  const prefix = readTxPrefix(r, what);
  const prefixSize = r.pos - start;
  const pruned = opts.pruned ?? false;
  let unprunableSize = prefixSize;
  const tx: Transaction = { ...prefix, signatures: [], pruned };
  if (prefix.version === 1) {
    if (!pruned) {
      for (let i = 0; i < prefix.vin.length; i++) {
        const input = prefix.vin[i];
        const n = input.type === "key" ? input.keyOffsets.length : 0;
        if (n * 64 > r.remaining) r.fail(new Where(what, ".signatures[", i, "]"), `${n} signatures need ${n * 64} bytes, ${r.remaining} left`);
        const sigs: Bytes[] = new Array(n);
        for (let j = 0; j < n; j++) sigs[j] = r.bytes(64, new Where(new Where(what, ".signatures[", i, "]"), "[", j, "]"));
        tx.signatures.push(sigs);
      }
    }
  } else if (prefix.vin.length > 0) {
    const base: RctBase = readRctBase(r, prefix.vin.length, prefix.vout.length, new Where(what, ".rct_signatures"));
    unprunableSize = r.pos - start;
    const rct: RctSignatures = base;
    if (!pruned && base.type !== RCT_TYPE.Null) {
      const mixin = mixinOf(r, prefix.vin, what);
      rct.prunable = readRctPrunable(r, base.type, prefix.vin.length, prefix.vout.length, mixin, new Where(what, ".rctsig_prunable"));
    }
    tx.rct = rct;
  }
  if (!opts.allowTrailing) r.expectEnd(what);
  return { tx, layout: { prefixSize, unprunableSize, size: r.pos - start } };
}

/** Parses a transaction blob; throws FormatError on anything Monero would not parse. */
export function parseTransaction(blob: Uint8Array, opts: ParseTxOptions = {}): Transaction {
  return readTransaction(new Reader(blob), opts).tx;
}

/**
 * Parses a blob as monerod's tx_sanity_check does (parse_and_validate_tx_from_blob): like
 * parseTransaction, except that varints missing at the end of the blob read as 0, Monero's
 * binary_archive quirk. So "0200" parses (a v2 transaction with nothing in it) while "0011" and ""
 * do not. For the RPC's sanity check only; never for consensus.
 */
export function parseTransactionAsSanityCheck(blob: Uint8Array): Transaction {
  const r = new Reader(blob);
  r.eofVarintsAreZero = true;
  return readTransaction(r).tx;
}

/** Parses a transaction blob and returns its byte layout too. */
export function parseTransactionWithLayout(blob: Uint8Array, opts: ParseTxOptions = {}): { tx: Transaction; layout: TxLayout } {
  return readTransaction(new Reader(blob), opts);
}

function writeScript(w: Writer, s: { keys: Bytes[]; script: Bytes }): void {
  w.varint(s.keys.length);
  for (const k of s.keys) w.fixed(k, 32, "script key");
  w.varint(s.script.length).bytes(s.script);
}

export function writeTxPrefix(w: Writer, tx: TxPrefix): void {
  if (tx.version === 0 || tx.version > MAX_TX_VERSION) throw new RangeError(`unsupported tx version ${tx.version}`);
  w.varint(tx.version).varint(tx.unlockTime).varint(tx.vin.length);
  for (const input of tx.vin) {
    w.u8(TX_TAG[input.type]);
    switch (input.type) {
      case "gen":
        w.varint(input.height);
        break;
      case "key":
        w.varint(input.amount).varint(input.keyOffsets.length);
        for (const o of input.keyOffsets) w.varint(o);
        w.fixed(input.keyImage, 32, "k_image");
        break;
      case "script":
        w.fixed(input.prev, 32, "prev").varint(input.prevout).varint(input.sigset.length).bytes(input.sigset);
        break;
      case "scripthash":
        w.fixed(input.prev, 32, "prev").varint(input.prevout);
        writeScript(w, input.script);
        w.varint(input.sigset.length).bytes(input.sigset);
        break;
    }
  }
  w.varint(tx.vout.length);
  for (const out of tx.vout) {
    w.varint(out.amount).u8(TXOUT_TAG[out.target.type]);
    const t = out.target;
    switch (t.type) {
      case "key":
        w.fixed(t.key, 32, "output key");
        break;
      case "tagged_key":
        w.fixed(t.key, 32, "output key").u8(t.viewTag);
        break;
      case "script":
        writeScript(w, t);
        break;
      case "scripthash":
        w.fixed(t.hash, 32, "script hash");
        break;
    }
  }
  w.varint(tx.extra.length).bytes(tx.extra);
}

/** The prefix bytes (what the prefix hash covers). */
export function serializeTxPrefix(tx: TxPrefix): Uint8Array {
  const w = new Writer(256 + tx.extra.length);
  writeTxPrefix(w, tx);
  return w.finish();
}

/** The RingCT base bytes of a v2 transaction. */
export function serializeRctBase(tx: Transaction): Uint8Array {
  const w = new Writer(256);
  if (!tx.rct) throw new RangeError("transaction has no RingCT signatures");
  writeRctBase(w, tx.rct, tx.vin.length, tx.vout.length);
  return w.finish();
}

/** The RingCT prunable bytes of a v2 transaction (what the prunable hash covers). */
export function serializeRctPrunable(tx: Transaction): Uint8Array {
  const w = new Writer(4096);
  if (!tx.rct) throw new RangeError("transaction has no RingCT signatures");
  if (!tx.rct.prunable) throw new RangeError("transaction is pruned: no prunable RingCT data");
  writeRctPrunable(w, tx.rct.prunable, tx.rct.type, tx.vin.length, tx.vout.length, mixinOf(undefined, tx.vin, "tx"));
  return w.finish();
}

export function writeTransaction(w: Writer, tx: Transaction): void {
  writeTxPrefix(w, tx);
  if (tx.version === 1) {
    if (tx.pruned) return;
    if (tx.signatures.length === 0) {
      // Monero writes nothing when there are no signatures, which it allows only for inputs that take none
      for (const input of tx.vin)
        if (input.type === "key" && input.keyOffsets.length > 0) throw new RangeError("v1 tx: signatures missing");
      return;
    }
    if (tx.signatures.length !== tx.vin.length) throw new RangeError("v1 tx: one signature set per input expected");
    tx.vin.forEach((input, i) => {
      const n = input.type === "key" ? input.keyOffsets.length : 0;
      if (tx.signatures[i].length !== n) throw new RangeError(`v1 tx: input ${i} needs ${n} signatures`);
      for (const s of tx.signatures[i]) w.fixed(s, 64, "signature");
    });
    return;
  }
  if (tx.vin.length === 0) return;
  if (!tx.rct) throw new RangeError("v2 tx with inputs needs rct signatures");
  writeRctBase(w, tx.rct, tx.vin.length, tx.vout.length);
  if (tx.pruned || tx.rct.type === RCT_TYPE.Null) return;
  if (!tx.rct.prunable) throw new RangeError("unpruned tx without prunable RingCT data");
  writeRctPrunable(w, tx.rct.prunable, tx.rct.type, tx.vin.length, tx.vout.length, mixinOf(undefined, tx.vin, "tx"));
}

/** Serializes a transaction (pruned when `tx.pruned`). */
export function serializeTransaction(tx: Transaction): Uint8Array {
  const w = new Writer(1024 + tx.extra.length);
  writeTransaction(w, tx);
  return w.finish();
}

/** Drops the prunable data: the pruned form monerod stores and serves. */
export function pruneTransaction(tx: Transaction): Transaction {
  const out: Transaction = { ...tx, signatures: [], pruned: true };
  if (tx.rct) {
    const { prunable: _p, ...base } = tx.rct;
    out.rct = base;
  }
  return out;
}

/** Monero's `relative_output_offsets_to_absolute`. */
export function relativeToAbsoluteOffsets(off: readonly bigint[]): bigint[] {
  const res = off.slice();
  for (let i = 1; i < res.length; i++) res[i] = BigInt.asUintN(64, res[i - 1] + res[i]);
  return res;
}

/** Monero's `absolute_output_offsets_to_relative`. */
export function absoluteToRelativeOffsets(off: readonly bigint[]): bigint[] {
  if (off.length === 0) return [];
  const res = off.slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = res.length - 1; i > 0; i--) res[i] -= res[i - 1];
  return res;
}

export type { RctPrunable, RctSignatures };
export { FormatError };
