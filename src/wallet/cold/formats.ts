/**
 * The binary forms wallet2 (v0.18) moves between a view-only and a full wallet, in Monero's
 * binary_archive serialization (src/serialization): fixed-width little-endian integers for FIELD of
 * an integer, varints for VARINT_FIELD, for integer elements of containers and pairs, for container
 * sizes and for a pair's leading element count (always 2); blobs (keys, ctkey, multisig_kLRki) as
 * raw bytes; strings as varint length and bytes.
 *
 * - `ExportedOutputs`: export_outputs' pair<offset, vector<exported_transfer_details>>.
 * - `UnsignedTxSet`: unsigned_tx_set version 1 (txes, new_transfers).
 * - `SignedTxSet`: signed_tx_set version 0 (ptx, key_images, tx_key_images).
 *
 * Decoding never trusts a count: every element needs bytes that are there (Reader.count).
 */
import { Reader } from "../../codec/reader.js";
import { Writer } from "../../codec/writer.js";
import type { Bytes } from "../../crypto/backend.js";
import { readTransaction, serializeTransaction, type Transaction } from "../../protocol/tx.js";
import { ColdError } from "./errors.js";

/** wallet2::exported_transfer_details. */
export interface ExportedOutput {
  pubkey: Bytes;
  internalIndex: number;
  globalIndex: bigint;
  txPubKey: Bytes;
  spent: boolean;
  frozen: boolean;
  rct: boolean;
  keyImageKnown: boolean;
  keyImageRequest: boolean;
  keyImagePartial: boolean;
  amount: bigint;
  additionalTxKeys: Bytes[];
}

export interface ExportedOutputs {
  offset: number;
  /**
   * The exporting wallet's transfer count, written by later 0.18 releases (a 3-tuple) so that an
   * export of `start`/`count` can be imported piecemeal; absent in 0.18.0.0's pair.
   */
  total?: number;
  outputs: ExportedOutput[];
}

/** cryptonote::tx_source_entry. */
export interface TxSourceEntry {
  /** (global index, one-time key, commitment) per ring member, by global index. */
  outputs: { globalIndex: bigint; key: Bytes; commitment: Bytes }[];
  realOutput: number;
  realOutTxKey: Bytes;
  realOutAdditionalTxKeys: Bytes[];
  realOutputInTxIndex: number;
  amount: bigint;
  rct: boolean;
  mask: Bytes;
  /** 128 bytes (k, L, R, ki); zeros outside multisig. */
  multisigKLRki: Bytes;
}

/** cryptonote::tx_destination_entry. */
export interface TxDestinationEntry {
  original: string;
  amount: bigint;
  spendPublicKey: Bytes;
  viewPublicKey: Bytes;
  isSubaddress: boolean;
  isIntegrated: boolean;
}

/** wallet2::tx_construction_data. */
export interface TxConstructionData {
  sources: TxSourceEntry[];
  changeDts: TxDestinationEntry;
  splittedDsts: TxDestinationEntry[];
  selectedTransfers: number[];
  extra: Bytes;
  unlockTime: bigint;
  useRct: boolean;
  useViewTags: boolean;
  rangeProofType: number;
  bpVersion: number;
  dests: TxDestinationEntry[];
  subaddrAccount: number;
  subaddrIndices: number[];
}

export interface UnsignedTxSet {
  txes: TxConstructionData[];
  transfers: ExportedOutputs;
}

/** wallet2::pending_tx as a signed set carries it. */
export interface PendingTxRecord {
  tx: Transaction;
  dust: bigint;
  fee: bigint;
  dustAddedToFee: boolean;
  changeDts: TxDestinationEntry;
  selectedTransfers: number[];
  /** "<ki> <ki> " as wallet2 prints them. */
  keyImages: string;
  txKey: Bytes;
  additionalTxKeys: Bytes[];
  dests: TxDestinationEntry[];
  constructionData: TxConstructionData;
  multisigTxKeyEntropy: Bytes;
  /** A multisig set's signing attempts (empty in signed sets). */
  multisigSigs?: MultisigSig[];
}

/** wallet2::multisig_sig v1: one signing attempt (its `sigs` and `msout` are unused since 0.18 and written empty). */
export interface MultisigSig {
  ignore: Bytes[];
  usedL: Bytes[];
  signingKeys: Bytes[];
  /** Per input, the group's public nonces (kAlphaComponents each). */
  totalAlphaG: Bytes[][];
  totalAlphaH: Bytes[][];
  c0: Bytes[];
  s: Bytes[];
}

/** wallet2::multisig_tx_set. */
export interface MultisigTxSet {
  ptx: PendingTxRecord[];
  signers: Bytes[];
}

/** A default rct::rctSig as binary_archive writes it: type 0, zero message, six empty vectors, fee 0, six empty prunable vectors. */
const EMPTY_RCTSIG = new Uint8Array(1 + 32 + 4 + 1 + 6);

export interface SignedTxSet {
  ptx: PendingTxRecord[];
  keyImages: Bytes[];
  /** One-time output key → key image, for outputs of these txs that pay the signing wallet. */
  txKeyImages: { pubkey: Bytes; keyImage: Bytes }[];
}

/** rct::RangeProofPaddedBulletproof, and bp_version 4 (Bulletproofs+) as wallet2 asks at fork 16. */
export const RANGE_PROOF_PADDED_BULLETPROOF = 3;
export const BP_VERSION_PLUS = 4;

// ---- writing ----

const pair = (w: Writer) => w.varint(2);

function writeVec<T>(w: Writer, xs: readonly T[], each: (x: T) => void): void {
  w.varint(xs.length);
  for (const x of xs) each(x);
}

const bool = (w: Writer, v: boolean) => w.u8(v ? 1 : 0);

function writeExportedOutput(w: Writer, o: ExportedOutput): void {
  w.varint(0); // VERSION_FIELD(0)
  w.fixed(o.pubkey, 32, "output key");
  w.varint(o.internalIndex);
  w.varint(o.globalIndex);
  w.fixed(o.txPubKey, 32, "tx public key");
  const flags =
    (o.spent ? 1 : 0) | (o.frozen ? 2 : 0) | (o.rct ? 4 : 0) | (o.keyImageKnown ? 8 : 0) | (o.keyImageRequest ? 16 : 0) | (o.keyImagePartial ? 32 : 0);
  w.u8(flags);
  w.varint(o.amount);
  writeVec(w, o.additionalTxKeys, (k) => w.fixed(k, 32, "additional tx key"));
}

function writeExportedOutputs(w: Writer, e: ExportedOutputs): void {
  if (e.total === undefined) pair(w);
  else w.varint(3);
  w.varint(e.offset);
  if (e.total !== undefined) w.varint(e.total);
  writeVec(w, e.outputs, (o) => writeExportedOutput(w, o));
}

export function encodeExportedOutputs(e: ExportedOutputs): Bytes {
  const w = new Writer();
  writeExportedOutputs(w, e);
  return w.finish();
}

function writeDest(w: Writer, d: TxDestinationEntry): void {
  const s = Buffer.from(d.original, "utf8");
  w.varint(s.length);
  w.bytes(s);
  w.varint(d.amount);
  w.fixed(d.spendPublicKey, 32, "destination spend key");
  w.fixed(d.viewPublicKey, 32, "destination view key");
  bool(w, d.isSubaddress);
  bool(w, d.isIntegrated);
}

function writeSource(w: Writer, s: TxSourceEntry): void {
  writeVec(w, s.outputs, (m) => {
    pair(w);
    w.varint(m.globalIndex);
    w.fixed(m.key, 32, "ring member key");
    w.fixed(m.commitment, 32, "ring member commitment");
  });
  w.u64le(BigInt(s.realOutput));
  w.fixed(s.realOutTxKey, 32, "real output's tx key");
  writeVec(w, s.realOutAdditionalTxKeys, (k) => w.fixed(k, 32, "additional tx key"));
  w.u64le(BigInt(s.realOutputInTxIndex));
  w.u64le(s.amount);
  bool(w, s.rct);
  w.fixed(s.mask, 32, "mask");
  w.fixed(s.multisigKLRki, 128, "multisig_kLRki");
}

function writeConstruction(w: Writer, c: TxConstructionData): void {
  writeVec(w, c.sources, (s) => writeSource(w, s));
  writeDest(w, c.changeDts);
  writeVec(w, c.splittedDsts, (d) => writeDest(w, d));
  writeVec(w, c.selectedTransfers, (i) => w.varint(i));
  w.varint(c.extra.length);
  w.bytes(c.extra);
  w.u64le(c.unlockTime);
  w.u8((c.useRct ? 1 : 0) | (c.useViewTags ? 2 : 0)); // construction_flags, serialized as "use_rct"
  w.varint(0); // RCTConfig VERSION_FIELD(0)
  w.varint(c.rangeProofType);
  w.varint(c.bpVersion);
  writeVec(w, c.dests, (d) => writeDest(w, d));
  w.u32le(c.subaddrAccount);
  writeVec(w, [...new Set(c.subaddrIndices)].sort((a, b) => a - b), (i) => w.varint(i));
}

export function encodeUnsignedTxSet(u: UnsignedTxSet): Bytes {
  const w = new Writer();
  w.varint(1); // VERSION_FIELD(1)
  writeVec(w, u.txes, (c) => writeConstruction(w, c));
  writeExportedOutputs(w, u.transfers);
  return w.finish();
}

function writePending(w: Writer, p: PendingTxRecord): void {
  w.varint(1); // VERSION_FIELD(1)
  w.bytes(serializeTransaction(p.tx));
  w.u64le(p.dust);
  w.u64le(p.fee);
  bool(w, p.dustAddedToFee);
  writeDest(w, p.changeDts);
  writeVec(w, p.selectedTransfers, (i) => w.varint(i));
  const ki = Buffer.from(p.keyImages, "utf8");
  w.varint(ki.length);
  w.bytes(ki);
  w.fixed(p.txKey, 32, "tx key");
  writeVec(w, p.additionalTxKeys, (k) => w.fixed(k, 32, "additional tx key"));
  writeVec(w, p.dests, (d) => writeDest(w, d));
  writeConstruction(w, p.constructionData);
  writeVec(w, p.multisigSigs ?? [], (m) => writeMultisigSig(w, m));
  w.fixed(p.multisigTxKeyEntropy, 32, "multisig tx key entropy");
}

function writeKeys(w: Writer, ks: readonly Bytes[], what: string): void {
  writeVec(w, ks, (k) => w.fixed(k, 32, what));
}

function writeMultisigSig(w: Writer, m: MultisigSig): void {
  w.varint(1); // VERSION_FIELD(1)
  w.bytes(EMPTY_RCTSIG);
  writeKeys(w, m.ignore, "ignored signer");
  writeKeys(w, m.usedL, "used L");
  writeKeys(w, m.signingKeys, "signing key");
  w.varint(0).varint(0); // msout: c, mu_p
  writeVec(w, m.totalAlphaG, (v) => writeKeys(w, v, "public nonce"));
  writeVec(w, m.totalAlphaH, (v) => writeKeys(w, v, "public nonce"));
  writeKeys(w, m.c0, "c_0");
  writeKeys(w, m.s, "partial response");
}

/** multisig_tx_set (no version field). */
export function encodeMultisigTxSet(s: MultisigTxSet): Bytes {
  const w = new Writer();
  writeVec(w, s.ptx, (p) => writePending(w, p));
  writeKeys(w, s.signers, "signer");
  return w.finish();
}

export function encodeSignedTxSet(s: SignedTxSet): Bytes {
  const w = new Writer();
  w.varint(0); // VERSION_FIELD(0)
  writeVec(w, s.ptx, (p) => writePending(w, p));
  writeVec(w, s.keyImages, (k) => w.fixed(k, 32, "key image"));
  writeVec(w, s.txKeyImages, (e) => {
    pair(w);
    w.fixed(e.pubkey, 32, "output key");
    w.fixed(e.keyImage, 32, "key image");
  });
  return w.finish();
}

// ---- reading ----

function readPair(r: Reader, what: string): void {
  const n = r.varint(what);
  if (n !== 2n) r.fail(what, `a pair must say 2 elements, says ${n}`);
}

function readVec<T>(r: Reader, what: string, minBytes: number, each: () => T): T[] {
  const n = r.count(what, minBytes);
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(each());
  return out;
}

function readBool(r: Reader, what: string): boolean {
  const v = r.u8(what);
  if (v > 1) r.fail(what, `a bool must be 0 or 1, is ${v}`);
  return v === 1;
}

const small = (v: bigint, r: Reader, what: string, max = 0xffffffff): number => {
  if (v > BigInt(max)) r.fail(what, `${v} is out of range (at most ${max})`);
  return Number(v);
};

function readExportedOutput(r: Reader): ExportedOutput {
  const version = r.varint("exported output version");
  if (version !== 0n) r.fail("exported output version", `version ${version} is not known (0 is)`);
  const pubkey = r.key("output key");
  const internalIndex = small(r.varint("internal output index"), r, "internal output index", 65535);
  const globalIndex = r.varint("global output index");
  const txPubKey = r.key("tx public key");
  const f = r.u8("flags");
  const amount = r.varint("amount");
  if (amount > 0xffffffffffffffffn) r.fail("amount", "exceeds 64 bits");
  const additionalTxKeys = readVec(r, "additional tx keys", 32, () => r.key("additional tx key"));
  return {
    pubkey,
    internalIndex,
    globalIndex,
    txPubKey,
    spent: (f & 1) !== 0,
    frozen: (f & 2) !== 0,
    rct: (f & 4) !== 0,
    keyImageKnown: (f & 8) !== 0,
    keyImageRequest: (f & 16) !== 0,
    keyImagePartial: (f & 32) !== 0,
    amount,
    additionalTxKeys,
  };
}

function readExportedOutputs(r: Reader): ExportedOutputs {
  // 0.18.0.0 writes pair<offset, outputs>; later releases tuple<offset, transfer count, outputs>
  const n = r.varint("outputs");
  if (n !== 2n && n !== 3n) r.fail("outputs", `expected a pair or a 3-tuple, found ${n} elements`);
  const offset = small(r.varint("outputs offset"), r, "outputs offset");
  const total = n === 3n ? small(r.varint("transfer count"), r, "transfer count") : undefined;
  const outputs = readVec(r, "outputs", 68, () => readExportedOutput(r));
  return total === undefined ? { offset, outputs } : { offset, total, outputs };
}

/** The body of export_outputs (after decryption and the 64-byte key header). */
export function decodeExportedOutputs(body: Bytes): ExportedOutputs {
  return whole(body, "outputs", (r) => readExportedOutputs(r));
}

function readString(r: Reader, what: string): string {
  const n = r.count(what, 1);
  return Buffer.from(r.bytes(n, what)).toString("utf8");
}

function readDest(r: Reader): TxDestinationEntry {
  return {
    original: readString(r, "destination address"),
    amount: r.varint("destination amount"),
    spendPublicKey: r.key("destination spend key"),
    viewPublicKey: r.key("destination view key"),
    isSubaddress: readBool(r, "is_subaddress"),
    isIntegrated: readBool(r, "is_integrated"),
  };
}

function readSource(r: Reader): TxSourceEntry {
  const outputs = readVec(r, "ring", 66, () => {
    readPair(r, "ring member");
    return { globalIndex: r.varint("ring member index"), key: r.key("ring member key"), commitment: r.key("ring member commitment") };
  });
  const realOutput = small(r.u64le("real_output"), r, "real_output");
  if (realOutput >= outputs.length) r.fail("real_output", `${realOutput} is outside the ring of ${outputs.length}`);
  return {
    outputs,
    realOutput,
    realOutTxKey: r.key("real output's tx key"),
    realOutAdditionalTxKeys: readVec(r, "additional tx keys", 32, () => r.key("additional tx key")),
    realOutputInTxIndex: small(r.u64le("real output index in tx"), r, "real output index in tx", 65535),
    amount: r.u64le("source amount"),
    rct: readBool(r, "rct"),
    mask: r.key("mask"),
    multisigKLRki: r.bytes(128, "multisig_kLRki"),
  };
}

function readConstruction(r: Reader): TxConstructionData {
  const sources = readVec(r, "sources", 200, () => readSource(r));
  const changeDts = readDest(r);
  const splittedDsts = readVec(r, "destinations", 67, () => readDest(r));
  const selectedTransfers = readVec(r, "selected transfers", 1, () => small(r.varint("selected transfer"), r, "selected transfer"));
  const extra = r.bytes(r.count("extra", 1), "extra");
  const unlockTime = r.u64le("unlock time");
  const flags = r.u8("construction flags");
  const v = r.varint("rct config version");
  if (v !== 0n) r.fail("rct config version", `version ${v} is not known (0 is)`);
  const rangeProofType = small(r.varint("range proof type"), r, "range proof type", 255);
  const bpVersion = small(r.varint("bp version"), r, "bp version", 255);
  const dests = readVec(r, "destinations", 67, () => readDest(r));
  const subaddrAccount = r.u32le("subaddress account");
  const subaddrIndices = readVec(r, "subaddress indices", 1, () => small(r.varint("subaddress index"), r, "subaddress index"));
  return {
    sources,
    changeDts,
    splittedDsts,
    selectedTransfers,
    extra,
    unlockTime,
    useRct: (flags & 1) !== 0,
    useViewTags: (flags & 2) !== 0,
    rangeProofType,
    bpVersion,
    dests,
    subaddrAccount,
    subaddrIndices,
  };
}

/** unsigned_tx_set at version 1 (the only one 0.18 writes). */
export function decodeUnsignedTxSet(body: Bytes): UnsignedTxSet {
  return whole(body, "unsigned tx set", (r) => {
    const version = r.varint("unsigned tx set version");
    if (version !== 1n)
      r.fail("unsigned tx set version", `version ${version} carries full transfer records (wallets before 0.17.1); re-create the set with a wallet of 0.17.1 or later`);
    const txes = readVec(r, "transactions", 100, () => readConstruction(r));
    return { txes, transfers: readExportedOutputs(r) };
  });
}

function readKeys(r: Reader, what: string): Bytes[] {
  return readVec(r, what, 32, () => r.key(what));
}

function readMultisigSig(r: Reader): MultisigSig {
  const v = r.varint("multisig signature version");
  if (v !== 1n) r.fail("multisig signature version", `version ${v} is not known (1 is; sets of wallets before 0.18 cannot be signed by 0.18 wallets)`);
  const sigs = r.bytes(EMPTY_RCTSIG.length, "multisig signature's rctSig");
  if (sigs.some((x) => x !== 0)) r.fail("multisig signature's rctSig", "expected the empty rctSig 0.18 wallets write");
  const ignore = readKeys(r, "ignored signers");
  const usedL = readKeys(r, "used L");
  const signingKeys = readKeys(r, "signing keys");
  readKeys(r, "msout c");
  readKeys(r, "msout mu_p");
  const totalAlphaG = readVec(r, "public nonces", 1, () => readKeys(r, "public nonce"));
  const totalAlphaH = readVec(r, "public nonces", 1, () => readKeys(r, "public nonce"));
  const c0 = readKeys(r, "c_0");
  const s = readKeys(r, "partial responses");
  return { ignore, usedL, signingKeys, totalAlphaG, totalAlphaH, c0, s };
}

function readPending(r: Reader, multisig = false): PendingTxRecord {
  const version = r.varint("pending tx version");
  if (version > 1n) r.fail("pending tx version", `version ${version} is not known (0 or 1 are)`);
  const { tx } = readTransaction(r, { allowTrailing: true }, "signed tx");
  const dust = r.u64le("dust");
  const fee = r.u64le("fee");
  const dustAddedToFee = readBool(r, "dust_added_to_fee");
  const changeDts = readDest(r);
  const selectedTransfers = readVec(r, "selected transfers", 1, () => small(r.varint("selected transfer"), r, "selected transfer"));
  const keyImages = readString(r, "key images");
  const txKey = r.key("tx key");
  const additionalTxKeys = readVec(r, "additional tx keys", 32, () => r.key("additional tx key"));
  const dests = readVec(r, "destinations", 67, () => readDest(r));
  const constructionData = readConstruction(r);
  let multisigSigs: MultisigSig[] = [];
  if (multisig) multisigSigs = readVec(r, "multisig signatures", 60, () => readMultisigSig(r));
  else {
    const nSigs = r.varint("multisig signatures");
    if (nSigs !== 0n) r.fail("multisig signatures", "a multisig tx set is submitted with submit_multisig, not submit_transfer");
  }
  const multisigTxKeyEntropy = version >= 1n ? r.key("multisig tx key entropy") : new Uint8Array(32);
  return { tx, dust, fee, dustAddedToFee, changeDts, selectedTransfers, keyImages, txKey, additionalTxKeys, dests, constructionData, multisigTxKeyEntropy, ...(multisig ? { multisigSigs } : {}) };
}

/** multisig_tx_set. */
export function decodeMultisigTxSet(body: Bytes): MultisigTxSet {
  return whole(body, "multisig tx set", (r) => {
    const ptx = readVec(r, "transactions", 100, () => readPending(r, true));
    const signers = readKeys(r, "signers");
    return { ptx, signers };
  });
}

/** signed_tx_set at version 0. */
export function decodeSignedTxSet(body: Bytes): SignedTxSet {
  return whole(body, "signed tx set", (r) => {
    const version = r.varint("signed tx set version");
    if (version !== 0n) r.fail("signed tx set version", `version ${version} is not known (0 is)`);
    const ptx = readVec(r, "transactions", 100, () => readPending(r));
    const keyImages = readVec(r, "key images", 32, () => r.key("key image"));
    const txKeyImages = readVec(r, "tx key images", 65, () => {
      readPair(r, "tx key image");
      return { pubkey: r.key("output key"), keyImage: r.key("key image") };
    });
    return { ptx, keyImages, txKeyImages };
  });
}

function whole<T>(body: Bytes, what: string, read: (r: Reader) => T): T {
  const r = new Reader(body);
  try {
    const v = read(r);
    r.expectEnd(what);
    return v;
  } catch (e) {
    if (e instanceof ColdError) throw e;
    throw new ColdError("bad_data", `the ${what} cannot be read: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}
