/**
 * Output detection over plain block data (src/wallet/wallet2.cpp process_new_transaction,
 * check_acc_out_precomp, scan_output; src/cryptonote_basic/cryptonote_format_utils.cpp
 * is_out_to_acc_precomp). Everything here is synchronous and works on structured-cloneable data,
 * so a `Scanner` can live in a worker thread (worker.ts, pool.ts).
 *
 * For each transaction: the derivation 8·a·R for the tx public key R (and for each additional key);
 * per output, the view tag (when present) is checked first, then D = P − Hs(derivation‖i)·G is looked
 * up in the subaddress table (tags and D of all the tx's outputs come from one `scanOutputs` call); on a hit the amount is decoded and checked against its commitment, and
 * for a full wallet the key image of the one-time key is computed. Inputs' key images are returned
 * for every transaction: the ledger recognises its spends among them.
 */
import { type Bytes, type CryptoBackend, NO_VIEW_TAG, SCAN_SPEND_KEY } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { commit, commitmentMask, decodeLegacyEcdh, decryptAmount } from "../../crypto/ringct/amounts.js";
import { blockHashesFromBlob } from "../../protocol/block.js";
import {
  encryptedPaymentIdFromNonce,
  extraAdditionalPubKeys,
  extraNonce,
  extraTxPubKey,
  paymentIdFromNonce,
  parseTxExtra,
} from "../../protocol/extra.js";
import { RCT_TYPE, rctCompactEcdh } from "../../protocol/rct.js";
import { parseTransaction, type Transaction } from "../../protocol/tx.js";
import { SubaddressDeriver, type SubaddressIndex, SubaddressLookahead } from "../keys/subaddress.js";

/** Block version from which unencrypted (long) payment ids are ignored (IGNORE_LONG_PAYMENT_ID_FROM_BLOCK_VERSION). */
export const IGNORE_LONG_PAYMENT_ID_FROM_BLOCK_VERSION = 12;
const ENCRYPTED_PAYMENT_ID_TAIL = 0x8d;

/** The keys and subaddress state a scanner needs (plain data, cloneable into a worker). */
export interface ScanKeys {
  readonly spendSecretKey: Bytes | null;
  readonly viewSecretKey: Bytes;
  readonly spendPublicKey: Bytes;
  readonly viewPublicKey: Bytes;
  /** wallet2's m_subaddress_lookahead_major/minor (50, 200 by default). */
  readonly lookaheadMajor?: number;
  readonly lookaheadMinor?: number;
  /** Subaddress count per account already created (wallet2's m_subaddress_labels sizes); default [1]. */
  readonly subaddressCounts?: readonly number[];
  /**
   * A multisig wallet: spendSecretKey is then this signer's share (the sum of its multisig keys), the
   * key images are partial (generate_key_image_helper_precomp's multisig branch), and the share does
   * not open the output by itself.
   */
  readonly multisig?: boolean;
}

/** One block as /get_blocks.bin gives it. */
export interface ScanBlockInput {
  readonly height: number;
  readonly blockBlob: Bytes;
  /** The block's transactions in block order (full blobs, or pruned ones with `pruned`). */
  readonly txBlobs: readonly Bytes[];
  readonly pruned?: boolean;
  /** Global output indices per transaction, miner tx first (get_blocks.bin output_indices), if known. */
  readonly outputIndices?: readonly (readonly bigint[])[];
}

export interface ReceivedOutput {
  /** Index of the output in its transaction (m_internal_output_index). */
  readonly index: number;
  readonly globalIndex: bigint | null;
  readonly amount: bigint;
  /** The one-time output key. */
  readonly publicKey: Bytes;
  /** null for a view-only wallet. */
  readonly keyImage: Bytes | null;
  readonly subaddress: SubaddressIndex;
  /** Commitment mask (identity for non-RingCT and coinbase outputs). */
  readonly mask: Bytes;
  readonly rct: boolean;
  /** The tx public key whose derivation opened the output (the main one or the output's additional one). */
  readonly txPubKey?: Bytes;
}

export interface ScannedInput {
  readonly keyImage: Bytes;
  /** Non-zero only for pre-RingCT inputs. */
  readonly amount: bigint;
}

export interface ScannedTx {
  readonly txid: Bytes;
  readonly coinbase: boolean;
  readonly version: number;
  readonly unlockTime: bigint;
  /** RingCT fee, or 0 for coinbase; for v1 the ledger computes inputs − outputs. */
  readonly rctFee: bigint;
  /** Sum of the plain output amounts (get_outs_money_amount). */
  readonly outsMoney: bigint;
  readonly received: ReceivedOutput[];
  readonly inputs: ScannedInput[];
  /** wallet2's payment id as a 32-byte hash (a short id fills the first 8 bytes), or null. */
  readonly paymentId: Bytes | null;
  /** An unencrypted 32-byte payment id in the extra nonce (wallet2 keeps it on outgoing txs), or null. */
  readonly longPaymentId: Bytes | null;
  /** Outputs that matched an address but whose amount failed its commitment. */
  readonly rejected: number;
}

/** What a block is, whoever scans it. */
export interface ScanBlockHeader {
  readonly height: number;
  readonly hash: Bytes;
  readonly prevHash: Bytes;
  readonly timestamp: bigint;
  readonly majorVersion: number;
  /** Sum of the miner tx outputs (wallet2's m_last_block_reward). */
  readonly reward: bigint;
}

export interface ScannedBlock extends ScanBlockHeader {
  readonly txs: ScannedTx[];
}

type ExtraFields = ReturnType<typeof parseTxExtra>["fields"];

/** A transaction read once for every scanner: what does not depend on the wallet's keys. */
export interface ParsedScanTx {
  readonly tx: Transaction;
  readonly txid: Bytes;
  readonly coinbase: boolean;
  /** The parsed extra (a partly parsed extra still scans: wallet2's "ok if partially parsed"). */
  readonly extra: ExtraFields;
  readonly additional: Bytes[];
  readonly globalIndices: readonly bigint[] | undefined;
}

/** A block read once for every scanner: parsed, hashed, its transactions parsed. */
export interface ParsedScanBlock extends ScanBlockHeader {
  readonly txs: ParsedScanTx[];
}

/** One wallet's key derivations for one transaction: per tx public key field (pk index), per additional key; null: the key does not decode. */
export interface WalletDerivations {
  readonly main: readonly (Bytes | null)[];
  readonly additional: readonly (Bytes | null)[];
}

/** Many wallets' derivations for one transaction, and which of the wallets can own one of its outputs. */
export interface GroupDerivations {
  /** Wallet k's derivations (k: its place in the view keys), as `Scanner.detect` takes them. */
  of(k: number): WalletDerivations;
  /**
   * 1 where wallet k must run `detect` on the transaction: an output it probes has no view tag, or
   * its view tag matches. 0 where every output's view tag rules the wallet out: detect would find
   * nothing (no output, no rejected amount, no payment id), so it is skipped.
   */
  readonly candidates: Uint8Array;
  /** Key derivations made: the wallets × the tx's public keys that decode (main and additional). */
  readonly derived: number;
}

/**
 * The derivations of many wallets for one transaction, one backend call per tx public key for all
 * of them (`generateKeyDerivations`: the C kernel decodes the key and builds its table once), then
 * the view tags of all of them against the outputs `detect` would probe (`viewTagCandidates`, one
 * call per key). `viewKeys`: the wallets' view secret keys, 32 bytes each, concatenated.
 */
export function groupDerivations(p: ParsedScanTx, viewKeys: Bytes, be: CryptoBackend = defaultBackend()): GroupDerivations {
  const n = viewKeys.length / 32;
  const { vout } = p.tx;
  const tags = new Uint16Array(vout.length).fill(NO_VIEW_TAG);
  const probed = new Uint8Array(vout.length);
  const mainProbes: number[] = []; // (row 0, output) for every key output
  vout.forEach((o, i) => {
    if (o.target.type === "tagged_key") tags[i] = o.target.viewTag;
    if (o.target.type === "key" || o.target.type === "tagged_key") {
      probed[i] = 1;
      mainProbes.push(0, i);
    }
  });
  const candidates = new Uint8Array(n);
  const check = (rows: Bytes | null, probes: Uint32Array): void => {
    if (!rows || probes.length === 0 || n === 0) return;
    const f = be.viewTagCandidates(rows, n, tags, probes);
    for (let w = 0; w < n; w++) candidates[w] |= f[w];
  };
  const forMain = Uint32Array.from(mainProbes);
  const main: (Bytes | null)[] = [];
  for (let pk = 0; ; pk++) {
    const k = extraTxPubKey(p.extra, pk);
    if (!k) break;
    const rows = be.generateKeyDerivations(k, viewKeys);
    main.push(rows);
    check(rows, forMain);
  }
  const additional: (Bytes | null)[] = [];
  if (p.additional.length === vout.length)
    p.additional.forEach((k, i) => {
      const rows = be.generateKeyDerivations(k, viewKeys);
      additional.push(rows);
      if (probed[i]) check(rows, Uint32Array.of(0, i));
    });
  const one = (rows: Bytes | null, w: number): Bytes | null => (rows ? rows.subarray(32 * w, 32 * w + 32) : null);
  return {
    of: (w) => ({ main: main.map((r) => one(r, w)), additional: additional.map((r) => one(r, w)) }),
    candidates,
    derived: n * [...main, ...additional].filter((r) => r !== null).length,
  };
}

/**
 * One wallet's derivations for many transactions (a chunk of blocks), in one backend call
 * (`generateKeyDerivationPairs`): for each transaction, every tx public key field and, when there
 * is one per output, every additional key, as `Scanner.detect` would derive them one by one.
 */
export function walletDerivations(txs: readonly ParsedScanTx[], viewSecret: Bytes, be: CryptoBackend = defaultBackend()): WalletDerivations[] {
  const keys: Bytes[] = [];
  const shape = txs.map((p) => {
    let mains = 0;
    while (true) {
      const k = extraTxPubKey(p.extra, mains);
      if (!k) break;
      keys.push(k);
      mains++;
    }
    const additional = p.additional.length === p.tx.vout.length ? p.additional.length : 0;
    for (let i = 0; i < additional; i++) keys.push(p.additional[i]);
    return { mains, additional };
  });
  const pubs = new Uint8Array(32 * keys.length);
  keys.forEach((k, i) => pubs.set(k, 32 * i));
  const secs = new Uint8Array(32 * keys.length);
  for (let i = 0; i < keys.length; i++) secs.set(viewSecret, 32 * i);
  const { derivations, ok } = be.generateKeyDerivationPairs(pubs, secs);
  secs.fill(0);
  let at = 0;
  const take = (): Bytes | null => {
    const k = at++;
    return ok[k] ? derivations.subarray(32 * k, 32 * k + 32) : null;
  };
  return shape.map(({ mains, additional }) => ({
    main: Array.from({ length: mains }, take),
    additional: Array.from({ length: additional }, take),
  }));
}

/**
 * Key images owed to received outputs: `add` hands out the 32 bytes an output's key image will be
 * written to, `flush` computes every pending one in one backend call (`generateKeyImages`). Nothing
 * may read those bytes before the flush: the scanner flushes before it returns its results.
 */
export class KeyImageBatch {
  private pubs: Bytes[] = [];
  private secs: Bytes[] = [];
  private outs: Bytes[] = [];

  /** The bytes that will hold x·Hp(pub) after the flush. */
  add(pub: Bytes, x: Bytes): Bytes {
    const out = new Uint8Array(32);
    this.pubs.push(pub);
    this.secs.push(x);
    this.outs.push(out);
    return out;
  }

  flush(be: CryptoBackend): void {
    const n = this.outs.length;
    if (n === 0) return;
    const pubs = new Uint8Array(32 * n);
    const secs = new Uint8Array(32 * n);
    for (let k = 0; k < n; k++) {
      pubs.set(this.pubs[k], 32 * k);
      secs.set(this.secs[k], 32 * k);
      this.secs[k].fill(0);
    }
    const ki = be.generateKeyImages(pubs, secs);
    secs.fill(0);
    for (let k = 0; k < n; k++) this.outs[k].set(ki.subarray(32 * k, 32 * k + 32));
    this.pubs = [];
    this.secs = [];
    this.outs = [];
  }

  /** Drops what is pending, its secrets zeroed (a scan that failed before its flush). */
  discard(): void {
    for (const x of this.secs) x.fill(0);
    this.pubs = [];
    this.secs = [];
    this.outs = [];
  }
}

/** The part of a ScannedTx that is one wallet's. */
export interface Detection {
  readonly received: ReceivedOutput[];
  readonly rejected: number;
  readonly paymentId: Bytes | null;
}

export function parseScanTx(tx: Transaction, txid: Bytes, coinbase: boolean, globalIndices: readonly bigint[] | undefined): ParsedScanTx {
  const extra = parseTxExtra(tx.extra).fields;
  return { tx, txid, coinbase, extra, additional: extraAdditionalPubKeys(extra), globalIndices };
}

/** Parses and hashes a block and its transactions, for any number of scanners (`Scanner.scanParsed`). */
export function parseScanBlock(input: ScanBlockInput, be: CryptoBackend = defaultBackend()): ParsedScanBlock {
  const { block, hash, minerTxHash } = blockHashesFromBlob(input.blockBlob, be);
  if (input.txBlobs.length !== block.txHashes.length) {
    throw new RangeError(`block ${input.height}: ${input.txBlobs.length} tx blobs for ${block.txHashes.length} tx hashes`);
  }
  let reward = 0n;
  for (const o of block.minerTx.vout) reward += o.amount;
  const txs = [parseScanTx(block.minerTx, minerTxHash, true, input.outputIndices?.[0])];
  input.txBlobs.forEach((blob, i) => {
    txs.push(parseScanTx(parseTransaction(blob, { pruned: input.pruned ?? false }), block.txHashes[i], false, input.outputIndices?.[i + 1]));
  });
  return { height: input.height, hash, prevHash: block.prevId, timestamp: block.timestamp, majorVersion: block.majorVersion, reward, txs };
}

/** A ScannedTx as it is for a wallet that receives nothing in it (inputs, fee, amounts: the same for every wallet). */
export function sharedScannedTx(p: ParsedScanTx): ScannedTx {
  const { tx, coinbase } = p;
  const inputs: ScannedInput[] = [];
  for (const vin of tx.vin) if (vin.type === "key") inputs.push({ keyImage: vin.keyImage, amount: vin.amount });
  let outsMoney = 0n;
  for (const o of tx.vout) outsMoney += o.amount;
  return {
    txid: p.txid,
    coinbase,
    version: tx.version,
    unlockTime: tx.unlockTime,
    rctFee: coinbase || !tx.rct ? 0n : tx.rct.fee,
    outsMoney,
    received: [],
    inputs,
    paymentId: null,
    longPaymentId: longPaymentIdOf(p.extra),
    rejected: 0,
  };
}

/** `shared` with a wallet's detection; `shared` itself when the wallet found nothing in it. */
export function withDetection(shared: ScannedTx, d: Detection): ScannedTx {
  if (d.received.length === 0 && d.rejected === 0 && d.paymentId === null) return shared;
  return { ...shared, received: d.received, rejected: d.rejected, paymentId: d.paymentId };
}

const IDENTITY: Bytes = (() => {
  const b = new Uint8Array(32);
  b[0] = 1;
  return b;
})();

const eq = (a: Bytes, b: Bytes) => a.length === b.length && Buffer.compare(a, b) === 0;

/** OutputProbes.spendKey's derivation row for an output's additional derivation. */
const ADDITIONAL = -1;

/** The subaddress spend keys D = P − Hs(d‖i)·G of a transaction's outputs, per derivation, from one `scanOutputs` call. */
interface OutputProbes {
  /** D of output i under tx public key `pk`'s derivation (or ADDITIONAL: the output's own); null: no derivation, a key that is not (tagged_)key, a view tag mismatch, or P does not decode. */
  spendKey(pk: number, i: number): Bytes | null;
}

/** A transaction's outputs with the derivations detect tries on them (TxDerivations' mains and additional). */
interface ProbeInput {
  readonly tx: Transaction;
  readonly mains: readonly (Bytes | null)[];
  readonly additional: readonly (Bytes | null)[];
}

/** What detect derives of a transaction before looking at its outputs: per tx public key field its key and derivation, per output its additional derivation. */
interface TxDerivations extends ProbeInput {
  readonly txPubs: readonly (Bytes | undefined)[];
}

/** A transaction's derivations and output probes, made for a chunk of transactions at once (scanBlocks). */
interface Ready {
  readonly d: TxDerivations;
  readonly probes: OutputProbes;
}

/**
 * One backend call for every (derivation, output) pair detect can try, over one transaction or a
 * chunk of them: each tx public key's derivation against every key output, and each output's
 * additional derivation against it (is_out_to_acc_precomp's view tag check, then
 * derive_subaddress_public_key). The transactions' outputs go one after the other, each hashed with
 * its index in its own transaction (`scanOutputs`' indices).
 */
function probeOutputs(be: CryptoBackend, items: readonly ProbeInput[]): OutputProbes[] {
  let q = 0;
  let m = 0;
  let n = 0;
  const probeOfs = items.map(({ tx, mains, additional }) => {
    const outs = tx.vout.length;
    const rows = mains.length + 1; // the mains, then the additional row
    const probeOf = new Int32Array(rows * outs).fill(-1);
    for (let i = 0; i < outs; i++) {
      const t = tx.vout[i].target.type;
      if (t !== "key" && t !== "tagged_key") continue;
      for (let r = 0; r < rows; r++) if (r < mains.length ? mains[r] : additional[i]) probeOf[r * outs + i] = q++;
    }
    m += mains.length + additional.length;
    n += outs;
    return probeOf;
  });
  // the inputs in one allocation (each fresh typed array handed to the kernel costs ~0.3-0.6 µs)
  const mem = new ArrayBuffer(8 * q + 4 * n + 32 * (m + n) + 2 * n);
  const probes = new Uint32Array(mem, 0, 2 * q);
  const indices = new Uint32Array(mem, 8 * q, n);
  const derivations = new Uint8Array(mem, 8 * q + 4 * n, 32 * m);
  const keys = new Uint8Array(mem, 8 * q + 4 * n + 32 * m, 32 * n);
  const tags = new Uint16Array(mem, 8 * q + 4 * n + 32 * (m + n), n).fill(NO_VIEW_TAG);
  let dBase = 0;
  let kBase = 0;
  items.forEach(({ tx, mains, additional }, j) => {
    const outs = tx.vout.length;
    const rows = mains.length + 1;
    const probeOf = probeOfs[j];
    mains.forEach((d, pk) => d && derivations.set(d, 32 * (dBase + pk)));
    additional.forEach((d, i) => d && derivations.set(d, 32 * (dBase + mains.length + i)));
    for (let i = 0; i < outs; i++) {
      indices[kBase + i] = i;
      const target = tx.vout[i].target;
      if (target.type !== "key" && target.type !== "tagged_key") continue;
      keys.set(target.key, 32 * (kBase + i));
      if (target.type === "tagged_key") tags[kBase + i] = target.viewTag;
      for (let r = 0; r < rows; r++) {
        const k = probeOf[r * outs + i];
        if (k < 0) continue;
        probes[2 * k] = dBase + (r < mains.length ? r : mains.length + i);
        probes[2 * k + 1] = kBase + i;
      }
    }
    dBase += mains.length + additional.length;
    kBase += outs;
  });
  const { status, keys: D } = be.scanOutputs(derivations, keys, tags, probes, indices);
  return items.map(({ tx, mains }, j) => {
    const outs = tx.vout.length;
    const probeOf = probeOfs[j];
    return {
      spendKey(pk: number, i: number): Bytes | null {
        const k = probeOf[(pk === ADDITIONAL ? mains.length : pk) * outs + i];
        return k >= 0 && status[k] === SCAN_SPEND_KEY ? D.subarray(32 * k, 32 * k + 32) : null;
      },
    };
  });
}

/** Detects a wallet's outputs; keeps the subaddress lookahead table and grows it on receipts. */
export class Scanner {
  readonly lookahead: SubaddressLookahead;
  private readonly deriver: SubaddressDeriver;
  /**
   * Subaddresses whose spend secret (b, or b + m) was checked to open their table key D once:
   * x·G = P for an output's x = Hs(derivation‖i) + b + m is then implied by P − Hs·G = D, so the
   * per-output check generate_key_image_helper_precomp makes (x·G against P, ~25 µs an output)
   * runs once per subaddress here. Keys are major·2^32 + minor.
   */
  private readonly opened = new Set<number>();

  constructor(
    readonly keys: ScanKeys,
    readonly backend: CryptoBackend = defaultBackend(),
  ) {
    this.lookahead = new SubaddressLookahead(keys, keys.lookaheadMajor ?? 50, keys.lookaheadMinor ?? 200, backend);
    this.deriver = new SubaddressDeriver(keys, backend);
    const counts = keys.subaddressCounts ?? [1];
    counts.forEach((n, major) => {
      if (n > 0) this.lookahead.expand(major, n - 1);
    });
  }

  /** set_subaddress_lookahead: new lookahead sizes (grown ranges are derived now). */
  setLookahead(major: number, minor: number): void {
    this.lookahead.setLookahead(major, minor);
  }

  /** expand_subaddresses: the wallet created (major, minor) or received on it. */
  expand(major: number, minor: number): void {
    this.lookahead.expand(major, minor);
  }

  /** Scans one block and its transactions. */
  scanBlock(input: ScanBlockInput): ScannedBlock {
    return this.scanParsed(parseScanBlock(input, this.backend));
  }

  /**
   * Scans consecutive blocks: the same results as `scanBlock` on each, with every transaction's key
   * derivations made in one backend call, every output probe in another and the received outputs'
   * key images in a third (the C kernel computes eight scalar multiplications at a time where the
   * machine has AVX-512 IFMA).
   */
  scanBlocks(inputs: readonly ScanBlockInput[]): ScannedBlock[] {
    const parsed = inputs.map((b) => parseScanBlock(b, this.backend));
    const all = parsed.flatMap((p) => p.txs);
    const pre = walletDerivations(all, this.keys.viewSecretKey, this.backend);
    // every transaction's output probes in one scanOutputs call too
    const ders = all.map((t, i) => this.txDerivations(t, pre[i]));
    const probes = probeOutputs(this.backend, ders);
    const images = new KeyImageBatch();
    try {
      let t = 0;
      const blocks = parsed.map((p) => {
        const from = t;
        t += p.txs.length;
        return this.scanParsed(p, images, (i) => ({ d: ders[from + i], probes: probes[from + i] }));
      });
      images.flush(this.backend);
      return blocks;
    } finally {
      images.discard();
    }
  }

  /**
   * Scans a block parsed once by `parseScanBlock` (the hub's shared scan parses it once for many
   * scanners). `images`: where the key images of received outputs wait for one batched
   * computation, which the caller then flushes; `ready`: tx i's derivations and output probes, made
   * for a chunk of blocks at once (scanBlocks).
   */
  scanParsed(p: ParsedScanBlock, images?: KeyImageBatch, ready?: (i: number) => Ready): ScannedBlock {
    if (!images) {
      const own = new KeyImageBatch();
      try {
        const block = this.scanParsed(p, own, ready);
        own.flush(this.backend);
        return block;
      } finally {
        own.discard();
      }
    }
    const txs = p.txs.map((t, i) => withDetection(sharedScannedTx(t), this.detectInto(t, p.majorVersion, undefined, images, ready?.(i))));
    return { height: p.height, hash: p.hash, prevHash: p.prevHash, timestamp: p.timestamp, majorVersion: p.majorVersion, reward: p.reward, txs };
  }

  /** Scans a pool transaction (full blob); `txid` is its id. */
  scanPoolTx(blob: Bytes, txid: Bytes, blockVersion = 16): ScannedTx {
    return this.scanTx(parseTransaction(blob), txid, false, blockVersion, undefined);
  }

  /** Scans a parsed transaction. */
  scanTx(tx: Transaction, txid: Bytes, coinbase: boolean, blockVersion: number, globalIndices: readonly bigint[] | undefined): ScannedTx {
    const p = parseScanTx(tx, txid, coinbase, globalIndices);
    return withDetection(sharedScannedTx(p), this.detect(p, blockVersion));
  }

  /**
   * What in a transaction is this wallet's: the outputs it receives (and those failing their
   * commitment), its payment id. `pre`: this wallet's derivations, computed for many wallets at once
   * (`groupDerivations`); without it they are derived here. `images`: where the received outputs'
   * key images wait for the caller's flush (`KeyImageBatch`); without it they are computed here.
   */
  detect(p: ParsedScanTx, blockVersion: number, pre?: WalletDerivations, images?: KeyImageBatch): Detection {
    if (images) return this.detectInto(p, blockVersion, pre, images);
    const own = new KeyImageBatch();
    try {
      const d = this.detectInto(p, blockVersion, pre, own);
      own.flush(this.backend);
      return d;
    } finally {
      own.discard();
    }
  }

  /** The derivations detect tries on a transaction's outputs: `pre`'s, or made here. */
  private txDerivations(p: ParsedScanTx, pre: WalletDerivations | undefined): TxDerivations {
    const be = this.backend;
    const a = this.keys.viewSecretKey;
    const { tx, extra, additional } = p;
    const additionalDerivations: (Bytes | null)[] =
      additional.length === tx.vout.length ? additional.map((k, j) => (pre ? (pre.additional[j] ?? null) : be.generateKeyDerivation(k, a))) : [];
    // wallet2 tries every tx public key field in turn (pk_index); a tx without one still scans its additional keys
    const txPubs: (Bytes | undefined)[] = [];
    const mains: (Bytes | null)[] = [];
    for (let pk = 0; ; pk++) {
      const txPub = extraTxPubKey(extra, pk);
      if (!txPub && pk > 0) break;
      txPubs.push(txPub);
      mains.push(txPub ? (pre ? (pre.main[pk] ?? null) : be.generateKeyDerivation(txPub, a)) : null);
      if (!txPub) break;
    }
    return { tx, txPubs, mains, additional: additionalDerivations };
  }

  /** `ready`: the tx's derivations and output probes, made for a chunk of transactions at once (scanBlocks). */
  private detectInto(
    p: ParsedScanTx,
    blockVersion: number,
    pre: WalletDerivations | undefined,
    images: KeyImageBatch,
    ready?: Ready,
  ): Detection {
    const { tx, extra, additional } = p;
    const d = ready?.d ?? this.txDerivations(p, pre);
    const { txPubs, mains } = d;
    const additionalDerivations = d.additional;
    const probes = ready?.probes ?? probeOutputs(this.backend, [d])[0];
    const received: ReceivedOutput[] = [];
    const found = new Set<number>();
    let rejected = 0;
    for (let pk = 0; pk < mains.length; pk++) {
      const derivation = mains[pk];
      if (!derivation && additionalDerivations.length === 0) continue;
      for (let i = 0; i < tx.vout.length; i++) {
        if (found.has(i)) continue;
        const hit = this.matchOutput(probes, pk, i, derivation, additionalDerivations[i] ?? null);
        if (!hit) continue;
        const out = this.takeOutput(tx, i, hit.derivation, hit.index, hit.spendKey, p.coinbase, p.globalIndices, images);
        if (out === null) rejected++;
        else {
          found.add(i);
          const pub = hit.derivation === derivation ? txPubs[pk] : additional[i];
          received.push(pub ? { ...out, txPubKey: pub.slice() } : out);
        }
      }
    }
    received.sort((x, y) => x.index - y.index);
    for (const r of received) this.lookahead.expand(r.subaddress.major, r.subaddress.minor);
    return { received, rejected, paymentId: received.length > 0 ? this.paymentId(extra, txPubs[0], blockVersion) : null };
  }

  /** View tag, then the subaddress table, for the main derivation (of tx public key `pk`) and the additional one; the first match wins. */
  private matchOutput(
    probes: OutputProbes,
    pk: number,
    i: number,
    main: Bytes | null,
    extraDer: Bytes | null,
  ): { derivation: Bytes; index: SubaddressIndex; spendKey: Bytes } | null {
    for (const [row, d] of [[pk, main], [ADDITIONAL, extraDer]] as const) {
      if (!d) continue;
      const D = probes.spendKey(row, i);
      const index = D && this.lookahead.table.get(D);
      if (index) return { derivation: d, index, spendKey: D };
    }
    return null;
  }

  /** Amount, mask, key image of an output found to be ours; null if its amount fails the commitment. */
  private takeOutput(
    tx: Transaction,
    i: number,
    derivation: Bytes,
    index: SubaddressIndex,
    spendKey: Bytes,
    coinbase: boolean,
    globalIndices: readonly bigint[] | undefined,
    images: KeyImageBatch,
  ): ReceivedOutput | null {
    const be = this.backend;
    const out = tx.vout[i];
    const target = out.target as { key: Bytes };
    let amount = out.amount;
    let mask: Bytes = IDENTITY;
    let rct = false;
    const rctSig = tx.rct;
    // Hs(derivation‖i), for the amount and the key image alike
    const s = be.derivationToScalar(derivation, i);
    if (tx.version >= 2 && rctSig && rctSig.type !== RCT_TYPE.Null && out.amount === 0n) {
      if (rctCompactEcdh(rctSig.type)) {
        amount = decryptAmount(be, s, rctSig.ecdhInfo[i].amount);
        mask = commitmentMask(be, s);
      } else {
        const ecdh = rctSig.ecdhInfo[i];
        if (!ecdh.mask) return null;
        const dec = decodeLegacyEcdh(be, s, ecdh.mask, ecdh.amount);
        amount = dec.amount;
        mask = dec.mask;
      }
      if (!eq(commit(be, amount, mask), rctSig.outPk[i])) return null; // tools::decodeRct rejects it
      rct = true;
    } else if (coinbase && tx.version === 2) {
      rct = true; // v2 coinbase outputs are stored as RingCT with an identity mask
    }
    let keyImage: Bytes | null = null;
    const b = this.keys.spendSecretKey;
    if (b) {
      // generate_key_image_helper_precomp: x = Hs(derivation‖i) + b (+ m for a subaddress)
      const sub = index.major !== 0 || index.minor !== 0 ? this.deriver.secretKey(index.major, index.minor) : null;
      const spendSecret = sub ? be.scAdd(b, sub) : b;
      const x = be.scAdd(s, spendSecret);
      // its check that x opens P, once per subaddress (see `opened`): (b + m)·G = D
      const id = index.major * 2 ** 32 + index.minor;
      if (!this.keys.multisig && !this.opened.has(id)) {
        if (!eq(be.scalarMultBase(spendSecret), spendKey)) throw new Error(`key image: derived secret does not open output ${i}`);
        this.opened.add(id);
      }
      keyImage = images.add(target.key, x);
    }
    return {
      index: i,
      globalIndex: globalIndices?.[i] ?? null,
      amount,
      publicKey: target.key.slice(),
      keyImage,
      subaddress: { major: index.major, minor: index.minor },
      mask,
      rct,
    };
  }

  /** The payment id wallet2 records with an incoming payment. */
  private paymentId(extra: ReturnType<typeof parseTxExtra>["fields"], txPub: Bytes | undefined, blockVersion: number): Bytes | null {
    const nonce = extraNonce(extra);
    if (!nonce) return null;
    const enc = encryptedPaymentIdFromNonce(nonce);
    if (enc) {
      if (!txPub) return null;
      return decryptPaymentId(this.backend, enc, txPub, this.keys.viewSecretKey);
    }
    const long = paymentIdFromNonce(nonce);
    if (long && blockVersion < IGNORE_LONG_PAYMENT_ID_FROM_BLOCK_VERSION) return long;
    return null;
  }
}

function longPaymentIdOf(extra: ReturnType<typeof parseTxExtra>["fields"]): Bytes | null {
  const nonce = extraNonce(extra);
  return (nonce && paymentIdFromNonce(nonce)) ?? null;
}

/** device_default::decrypt_payment_id, widened to wallet2's 32-byte form (8 id bytes, 24 zeros). */
export function decryptPaymentId(be: CryptoBackend, encrypted: Bytes, txPub: Bytes, viewSecret: Bytes): Bytes | null {
  const derivation = be.generateKeyDerivation(txPub, viewSecret);
  if (!derivation) return null;
  const buf = new Uint8Array(33);
  buf.set(derivation);
  buf[32] = ENCRYPTED_PAYMENT_ID_TAIL;
  const pad = be.keccak256(buf);
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) out[i] = encrypted[i] ^ pad[i];
  return out;
}

/**
 * Global output indices computed from the chain itself, for when the node gave none: pre-RingCT
 * outputs count per amount, RingCT and v2 coinbase outputs under amount 0
 * (src/blockchain_db/blockchain_db.cpp add_transaction). Feed every block from genesis in order.
 */
export class OutputIndexer {
  private readonly counts = new Map<bigint, bigint>();

  /** Indices for one transaction's outputs, advancing the counters. */
  next(tx: Transaction): bigint[] {
    return tx.vout.map((o) => {
      const key = tx.version >= 2 ? 0n : o.amount;
      const n = this.counts.get(key) ?? 0n;
      this.counts.set(key, n + 1n);
      return n;
    });
  }

  /** Counters as plain data (for the cache). */
  snapshot(): [bigint, bigint][] {
    return [...this.counts.entries()];
  }
}
