/**
 * The transaction pool (monerod's tx_memory_pool, src/cryptonote_core/tx_pool.cpp, and the parts
 * of core::handle_incoming_tx it runs): admission with monerod's checks in monerod's order,
 * fee-per-weight ordering for block templates, removal of mined and double-spent txs, return of
 * popped blocks' txs, eviction by age and by total weight, persistence in the store's LMDB
 * environment (auxDb "txpool").
 *
 * The pool does not lock: the node's core serialises every call that changes state (one writer).
 */
import type { Database } from "lmdb";
import { checkPoolTx, checkTxCoreSemantics, checkTxInputShape, checkTxSemantics, nextBlockContext, type NextBlockContext, txError, type TxRuleError } from "../../consensus/index.js";
import type { CryptoBackend } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { type RctVerifyPool, VerifyWorkerCrashError } from "../../crypto/ringct/verify-pool.js";
import type { Bytes, Transaction } from "../../protocol/tx.js";
import { serializeTransaction } from "../../protocol/tx.js";
import { txHashesFromBlob } from "../../protocol/tx-hash.js";
import { txWeight } from "../../protocol/weight.js";
import { isBroadcast, type PoolChanges, type PoolEntry, type PoolView, type TxSubmitResult } from "../core.js";
import type { ChainStore } from "../store/chain-store.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";
import { PoolChangeLog } from "./changes.js";
import { checkInputs, feeContext, poolDoubleSpend, rctItem, rctSemanticsItem, txFeeOf, txKeyImages } from "./tx-check.js";

/** monerod's DEFAULT_TXPOOL_MAX_WEIGHT (648 MB). */
export const DEFAULT_TXPOOL_MAX_WEIGHT = 648_000_000;
/** CRYPTONOTE_MEMPOOL_TX_LIVETIME: a day. */
export const MEMPOOL_TX_LIVETIME = 86400;
/**
 * get_relay_delay (tx_pool.cpp): seconds between relays of a pool tx, 5 min at first and 5 min more
 * for each 5 min it has been in the pool at its last relay, at most 4 h.
 */
export function relayDelay(lastRelay: number, received: number): number {
  const MIN_RELAY_TIME = 5 * 60;
  const MAX_RELAY_TIME = 4 * 60 * 60;
  return Math.min(Math.floor((lastRelay - received + MIN_RELAY_TIME) / MIN_RELAY_TIME) * MIN_RELAY_TIME, MAX_RELAY_TIME);
}

/** CRYPTONOTE_MEMPOOL_TX_FROM_ALT_BLOCK_LIVETIME: three days for txs that came back from a block. */
export const MEMPOOL_TX_FROM_BLOCK_LIVETIME = 3 * 86400;

export interface TxPoolOptions {
  store: ChainStore;
  /** RingCT verification in worker threads. */
  verifier: RctVerifyPool;
  /** Unix seconds (tests move the clock). */
  now?: () => number;
  /** --max-txpool-weight (bytes of weight). */
  maxWeight?: number;
  backend?: CryptoBackend;
  /** The next block's context (the node's cached one); default: computed from the store per tip. */
  context?: () => NextBlockContext;
  /** Templates take txs still in a Dandelion++ stem (monerod: on a fake chain only). Default true. */
  mineStemTxs?: boolean;
}

export interface SubmitOptions {
  doNotRelay?: boolean;
  /** Received along a Dandelion++ stem: the Unix second its embargo ends (PoolEntry.stemEmbargo). */
  stemEmbargo?: number;
  /** From our RPC with P2P running: not public until P2P stems or fluffs it (PoolEntry.local). */
  local?: boolean;
  /** The tx comes back from a popped block: no fee rule, no pool double-spend rule, kept 3 days. */
  keptByBlock?: boolean;
  /**
   * keptByBlock, popped by a switch to a heavier chain that is applied already: monerod returns a
   * popped block's txs to its pool before it applies the new chain, so one whose key images that
   * chain spends is kept all the same (a double spend its templates leave out, until it expires).
   */
  returnedBySwitch?: boolean;
}

export interface PoolSubmit {
  result: TxSubmitResult;
  /** The new entry when the tx was added (not for duplicates). */
  entry?: PoolEntry;
}

const ZERO32 = new Uint8Array(32);

/** A verification that could not be carried out (the worker crash); any other failure counts as invalid. */
const notJudged = (e: unknown): VerifyWorkerCrashError | false => (e instanceof VerifyWorkerCrashError ? e : false);

/** The tx was not judged: no flag, no verdict (monerod's handle_incoming_tx returning false on a core error). */
const internal = (e: VerifyWorkerCrashError, id: Uint8Array): PoolSubmit => ({
  result: { ok: false, flags: [], notRelayed: false, duplicate: false, id, reason: `the tx was not verified, not judged invalid: ${e.message}`, internalError: e.message },
});

interface StoredMeta {
  receiveTime: number;
  lastRelayedTime: number;
  relayed: boolean;
  doNotRelay: boolean;
  keptByBlock: boolean;
  doubleSpendSeen: boolean;
  lastFailedHeight: number;
  lastFailedId: string;
  maxUsedBlockHeight: number;
  maxUsedBlockId: string;
  /** PoolEntry.stemEmbargo (absent: not in a stem). */
  stemEmbargo?: number;
  /** Arrival order (receive times tie at one-second resolution). */
  seq: number;
}

function encodeEntry(e: PoolEntry, seq: number): Buffer {
  const meta: StoredMeta = {
    receiveTime: e.receiveTime,
    lastRelayedTime: e.lastRelayedTime,
    relayed: e.relayed,
    doNotRelay: e.doNotRelay,
    keptByBlock: e.keptByBlock,
    doubleSpendSeen: e.doubleSpendSeen,
    lastFailedHeight: e.lastFailedHeight,
    lastFailedId: hex(e.lastFailedId),
    maxUsedBlockHeight: e.maxUsedBlockHeight,
    maxUsedBlockId: hex(e.maxUsedBlockId),
    ...(e.stemEmbargo !== undefined ? { stemEmbargo: e.stemEmbargo } : {}),
    seq,
  };
  const j = Buffer.from(JSON.stringify(meta), "utf8");
  const len = Buffer.alloc(4);
  len.writeUInt32BE(j.length);
  return Buffer.concat([len, j, Buffer.from(e.blob)]);
}

/** Fee per weight unit as monerod orders it (a double). */
const feePerWeight = (e: PoolEntry): number => Number(e.fee) / (e.weight || 1);

/** Template order: highest fee per weight first, then oldest first, then id (stable). */
export function compareForTemplate(a: PoolEntry, b: PoolEntry): number {
  const d = feePerWeight(b) - feePerWeight(a);
  if (d !== 0) return d;
  if (a.receiveTime !== b.receiveTime) return a.receiveTime - b.receiveTime;
  return hex(a.id) < hex(b.id) ? -1 : 1;
}

export class TxPool implements PoolView {
  private readonly store: ChainStore;
  private readonly verifier: RctVerifyPool;
  private readonly now: () => number;
  readonly maxWeight: number;
  private readonly backend: CryptoBackend;
  private readonly db: Database<Buffer, Buffer>;
  private readonly context: (() => NextBlockContext) | undefined;
  private readonly mineStemTxs: boolean;
  /** Receive order. */
  private readonly byId = new Map<string, PoolEntry>();
  /** key image hex → ids (hex) of pool txs spending it. */
  private readonly kiIndex = new Map<string, Set<string>>();
  private weight = 0;
  /** Ids whose inputs and signatures were verified against the current chain. */
  private readonly verified = new Set<string>();
  /** id hex → arrival sequence number (persisted). */
  private readonly seqs = new Map<string, number>();
  private nextSeq = 0;
  /** Stored entries that could not be decoded when the pool opened, dropped (the daemon logs them). */
  readonly droppedAtOpen: { id: string; reason: string }[] = [];
  private ctxCache: { top: string; height: number; ctx: NextBlockContext } | undefined;
  /** When txs were added and removed, for incremental pool info (tx_memory_pool's transient lists). */
  private readonly changes: PoolChangeLog;

  private constructor(opts: TxPoolOptions) {
    this.store = opts.store;
    this.verifier = opts.verifier;
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.maxWeight = opts.maxWeight ?? DEFAULT_TXPOOL_MAX_WEIGHT;
    this.backend = opts.backend ?? defaultBackend();
    this.db = this.store.auxDb("txpool");
    this.context = opts.context;
    this.mineStemTxs = opts.mineStemTxs ?? true;
    this.changes = new PoolChangeLog(this.now);
  }

  /**
   * Opens the pool stored in the store's environment. Stored txs that the chain has since mined,
   * or whose key images it spent, are dropped.
   */
  static open(opts: TxPoolOptions): TxPool {
    const p = new TxPool(opts);
    const loaded: { e: PoolEntry; seq: number }[] = [];
    for (const { key, value } of p.db.getRange({})) {
      try {
        const n = value.readUInt32BE(0);
        const meta = JSON.parse(value.subarray(4, 4 + n).toString("utf8")) as StoredMeta;
        const blob = new Uint8Array(value.subarray(4 + n));
        const h = txHashesFromBlob(blob, p.backend);
        if (!Buffer.from(h.hash).equals(key)) throw new Error("id mismatch");
        loaded.push({ seq: meta.seq ?? 0, e: {
          ...p.baseEntry(h.hash, blob, h.tx),
          receiveTime: meta.receiveTime,
          lastRelayedTime: meta.lastRelayedTime,
          relayed: meta.relayed,
          doNotRelay: meta.doNotRelay,
          keptByBlock: meta.keptByBlock,
          doubleSpendSeen: meta.doubleSpendSeen,
          lastFailedHeight: meta.lastFailedHeight,
          lastFailedId: unhex(meta.lastFailedId),
          maxUsedBlockHeight: meta.maxUsedBlockHeight,
          maxUsedBlockId: unhex(meta.maxUsedBlockId),
          ...(typeof meta.stemEmbargo === "number" ? { stemEmbargo: meta.stemEmbargo } : {}),
        } });
      } catch (e) {
        p.droppedAtOpen.push({ id: Buffer.from(key).toString("hex"), reason: e instanceof Error ? e.message : String(e) });
        p.db.removeSync(key);
      }
    }
    loaded.sort((a, b) => a.e.receiveTime - b.e.receiveTime || a.seq - b.seq);
    for (const { e, seq } of loaded) {
      p.seqs.set(hex(e.id), seq);
      p.nextSeq = Math.max(p.nextSeq, seq + 1);
      if (p.store.txLocation(e.id) !== undefined || e.keyImages.some((ki) => p.store.isKeyImageSpent(ki))) {
        p.db.removeSync(Buffer.from(e.id));
        continue;
      }
      p.index(e);
    }
    return p;
  }

  // ---- PoolView ----

  size(): number {
    return this.byId.size;
  }
  entries(): readonly PoolEntry[] {
    return [...this.byId.values()];
  }
  get(id: Bytes): PoolEntry | undefined {
    return this.byId.get(hex(id));
  }
  has(id: Bytes): boolean {
    return this.byId.has(hex(id));
  }
  spenderOf(keyImage: Bytes): Bytes | undefined {
    const s = this.kiIndex.get(hex(keyImage));
    if (!s || s.size === 0) return undefined;
    return unhex(s.values().next().value as string);
  }
  spentKeyImages(): ReadonlyMap<string, readonly Bytes[]> {
    const m = new Map<string, Bytes[]>();
    for (const [ki, ids] of this.kiIndex) m.set(ki, [...ids].map(unhex));
    return m;
  }
  totalWeight(): number {
    return this.weight;
  }
  /** tx_memory_pool::get_pool_info + get_transactions_info's count limit. */
  changesSince(since: bigint, opts: { includeSensitive: boolean; maxTxCount: number }): PoolChanges {
    const c = this.changes.since(since, opts.includeSensitive);
    const added: PoolEntry[] = [];
    const remainingAdded: Bytes[] = [];
    for (const k of c.added) {
      const e = this.byId.get(k);
      // the change log only holds pool txs; monerod skips an id it cannot fetch
      if (!e) continue;
      if (opts.maxTxCount > 0 && added.length >= opts.maxTxCount) remainingAdded.push(e.id);
      else added.push(e);
    }
    return { incremental: c.incremental, added, remainingAdded, removed: c.removed.map(unhex) };
  }

  // ---- admission ----

  /** The next block's context (fee rule, weight limit), cached per chain tip. */
  private nextContext(): NextBlockContext {
    if (this.context) return this.context();
    const height = this.store.height();
    const top = hex(this.store.topHash());
    if (this.ctxCache && this.ctxCache.top === top && this.ctxCache.height === height) return this.ctxCache.ctx;
    const ctx = nextBlockContext(this.store, { fixedDifficulty: 1n });
    this.ctxCache = { top, height, ctx };
    return ctx;
  }

  private baseEntry(id: Bytes, blob: Bytes, tx: Transaction): PoolEntry {
    return {
      id,
      blob,
      tx,
      blobSize: blob.length,
      weight: txWeight(tx, blob.length),
      fee: txFeeOf(tx),
      keyImages: txKeyImages(tx),
      receiveTime: 0,
      lastRelayedTime: 0,
      relayed: false,
      doNotRelay: false,
      keptByBlock: false,
      doubleSpendSeen: false,
      lastFailedHeight: 0,
      lastFailedId: ZERO32,
      maxUsedBlockHeight: 0,
      maxUsedBlockId: ZERO32,
    };
  }

  /**
   * Admits a transaction blob (core::handle_incoming_tx + tx_memory_pool::add_tx): parse,
   * duplicates (pool or chain: accepted, not relayed), semantics, RingCT semantics (worker), fee,
   * weight, extra, output/input shape, key images already spent by pool txs (double_spend), the
   * chain inputs, then the RingCT signatures (worker).
   */
  async submit(blob: Bytes, opts: SubmitOptions = {}): Promise<PoolSubmit> {
    const fail = (error: TxRuleError | undefined, reason: string, id?: Bytes): PoolSubmit => ({
      result: { ok: false, flags: error ? [...error.flags] : [], notRelayed: false, duplicate: false, ...(error ? { error } : {}), reason, ...(id ? { id } : {}) },
    });
    let parsed;
    try {
      parsed = txHashesFromBlob(blob, this.backend);
    } catch (e) {
      return fail(undefined, `the blob is not a transaction: ${e instanceof Error ? e.message : String(e)}`);
    }
    const { hash: id, tx } = parsed;
    if (tx.vin.some((i) => i.type === "gen")) return fail(txError("BAD_INPUT_TYPE", "a coinbase transaction cannot enter the pool"), "coinbase transaction", id);
    if (this.has(id) || this.store.txLocation(id) !== undefined) {
      return { result: { ok: true, flags: [], notRelayed: true, duplicate: true, id, reason: "already known" } };
    }
    const keptByBlock = (opts.keptByBlock ?? false) || (opts.returnedBySwitch ?? false);
    const ctx = this.nextContext();
    const hf = ctx.hfVersion;
    const weight = txWeight(tx, blob.length);
    const semOpts = { weight, weightLimit: ctx.limits.limit, keptByBlock, backend: this.backend };
    let error: TxRuleError | undefined;
    if (keptByBlock) {
      error = checkTxSemantics(tx, hf, semOpts);
    } else {
      error = checkTxCoreSemantics(tx, hf, semOpts);
      if (!error) {
        const sem = rctSemanticsItem(tx);
        const semOk = sem === undefined ? true : await this.verifier.verify([sem], "semantics").catch(notJudged);
        if (semOk instanceof VerifyWorkerCrashError) return internal(semOk, id);
        error = checkPoolTx(tx, blob.length, weight, { hfVersion: hf, blockWeightLimit: ctx.limits.limit, fee: feeContext(ctx), verifyRctSemantics: () => semOk }, this.backend);
      }
    }
    // add_tx checks the pool's key images before check_tx_outputs and check_tx_inputs: an error of
    // that last stage (checkTxInputShape) gives way to a pool double spend
    const shapeStage = (e: TxRuleError): boolean => {
      const shape = checkTxInputShape(tx, hf, semOpts);
      return shape !== undefined && shape.code === e.code && shape.message === e.message;
    };
    const kis = txKeyImages(tx);
    if (error && (keptByBlock || !kis.some((k) => this.spenderOf(k)) || !shapeStage(error))) return fail(error, error.message, id);
    if (!keptByBlock) {
      for (let i = 0; i < kis.length; i++) {
        const spender = this.spenderOf(kis[i]);
        if (spender) {
          // mark_double_spend: the pool tx already spending it is flagged
          for (const other of this.kiIndex.get(hex(kis[i])) ?? []) {
            const e = this.byId.get(other);
            if (e && !e.doubleSpendSeen) {
              e.doubleSpendSeen = true;
              this.persist(e);
            }
          }
          const e = poolDoubleSpend(i, spender);
          return fail(e, e.message, id);
        }
      }
    }
    const now = this.now();
    const inputs = checkInputs(tx, this.store, hf, BigInt(now));
    let verified = false;
    if (!inputs.ok) {
      // a tx from a popped block whose inputs fail now may become valid again (its ring members
      // come back with the blocks): monerod keeps it (verification_impossible) unless it is a
      // double spend against the chain; it is re-checked before it goes into a template
      if (!keptByBlock || (inputs.error.code === "KEY_IMAGE_SPENT" && !opts.returnedBySwitch)) return fail(inputs.error, inputs.error.message, id);
    } else {
      const item = rctItem(tx, blob, inputs.value.rings, this.backend);
      if (item) {
        const ok = await this.verifier.verify([item], keptByBlock ? "full" : "signatures").catch(notJudged);
        if (ok instanceof VerifyWorkerCrashError) return internal(ok, id);
        if (!ok) {
          const e = txError("INVALID_SIGNATURES");
          return fail(e, e.message, id);
        }
      }
      verified = true;
    }
    // the chain or the pool may not change while we verified: the node's core runs one writer.
    // Relayed unless do_not_relay, --offline too: monerod hands the tx to its public zone, whose
    // fluff to no peers still marks it relayed now (levin notify::send_txs → core::on_transactions_relayed)
    const relay = !(opts.doNotRelay ?? false);
    const top = this.store.height() - 1;
    const entry: PoolEntry = {
      ...this.baseEntry(id, blob, tx),
      weight,
      receiveTime: now,
      lastRelayedTime: relay ? now : 0,
      relayed: relay,
      doNotRelay: opts.doNotRelay ?? false,
      ...(opts.stemEmbargo !== undefined && !opts.doNotRelay ? { stemEmbargo: opts.stemEmbargo, lastRelayedTime: 0 } : {}),
      ...(opts.local && !opts.doNotRelay && opts.stemEmbargo === undefined ? { local: true } : {}),
      keptByBlock,
      ...(inputs.ok
        ? { maxUsedBlockHeight: inputs.value.maxUsedHeight, maxUsedBlockId: this.store.meta(inputs.value.maxUsedHeight).hash }
        : { lastFailedHeight: top, lastFailedId: this.store.meta(top).hash }),
    };
    if (verified) this.verified.add(hex(id));
    this.index(entry);
    this.persist(entry);
    this.pruneToWeight();
    const kept = this.has(id);
    return {
      // monerod answers not_relayed for do_not_relay only
      result: { ok: true, flags: [], notRelayed: opts.doNotRelay ?? false, duplicate: false, id, ...(opts.doNotRelay ? { reason: "Not relayed" } : {}) },
      ...(kept ? { entry } : {}),
    };
  }

  private index(e: PoolEntry): void {
    const k = hex(e.id);
    if (this.byId.has(k)) return;
    this.byId.set(k, e);
    // add_tx_to_transient_lists (also for the txs read back at open, as tx_memory_pool::init)
    this.changes.noteAdded(k, !isBroadcast(e));
    this.weight += e.weight;
    for (const ki of e.keyImages) {
      const kk = hex(ki);
      let s = this.kiIndex.get(kk);
      if (!s) this.kiIndex.set(kk, (s = new Set()));
      s.add(k);
    }
  }

  private persist(e: PoolEntry): void {
    const k = hex(e.id);
    let seq = this.seqs.get(k);
    if (seq === undefined) this.seqs.set(k, (seq = this.nextSeq++));
    this.db.putSync(Buffer.from(e.id), encodeEntry(e, seq));
  }

  /** Removes one tx (index and storage); true when it was there. */
  remove(id: Bytes): boolean {
    const k = hex(id);
    const e = this.byId.get(k);
    if (!e) return false;
    this.byId.delete(k);
    this.changes.noteRemoved(k, !isBroadcast(e));
    this.verified.delete(k);
    this.seqs.delete(k);
    this.weight -= e.weight;
    for (const ki of e.keyImages) {
      const kk = hex(ki);
      const s = this.kiIndex.get(kk);
      s?.delete(k);
      if (s && s.size === 0) this.kiIndex.delete(kk);
    }
    this.db.removeSync(Buffer.from(e.id));
    return true;
  }

  // ---- blocks ----

  /** The full txs of `ids` from the pool, in order; the ids not in the pool. */
  txsFor(ids: readonly Bytes[]): { txs: Transaction[]; blobs: Bytes[]; missing: Bytes[] } {
    const txs: Transaction[] = [];
    const blobs: Bytes[] = [];
    const missing: Bytes[] = [];
    for (const id of ids) {
      const e = this.get(id);
      if (e) {
        txs.push(e.tx);
        blobs.push(e.blob);
      } else missing.push(id);
    }
    return { txs, blobs, missing };
  }

  /**
   * A block was applied: its txs leave the pool, and pool txs spending a key image the block spent
   * are dropped (they can only come back through a reorg that returns the block's txs).
   */
  blockApplied(txIds: readonly Bytes[], txs: readonly Transaction[]): { removed: number; doubleSpends: Bytes[] } {
    let removed = 0;
    for (const id of txIds) if (this.remove(id)) removed++;
    const dropped: Bytes[] = [];
    for (const tx of txs) {
      for (const ki of txKeyImages(tx)) {
        for (const other of [...(this.kiIndex.get(hex(ki)) ?? [])]) {
          const e = this.byId.get(other);
          // a tx returned by a popped block stays, as in monerod's pool (templates leave it out)
          if (!e || e.keptByBlock) continue;
          e.doubleSpendSeen = true;
          dropped.push(e.id);
          this.remove(e.id);
        }
      }
    }
    return { removed, doubleSpends: dropped };
  }

  /**
   * Txs of a popped block come back (kept_by_block): checked again against the chain as it is now;
   * those no longer valid are dropped. Returns the ids added.
   */
  async returnFromBlock(txs: readonly Transaction[], opts: { bySwitch?: boolean } = {}): Promise<Bytes[]> {
    const added: Bytes[] = [];
    for (const tx of txs) {
      const blob = serializeTransaction(tx);
      const r = await this.submit(blob, { keptByBlock: true, returnedBySwitch: opts.bySwitch ?? false });
      if (r.result.ok && !r.result.duplicate && r.result.id) added.push(r.result.id);
    }
    return added;
  }

  /**
   * Pool txs for a block template (fill_block_template): highest fee per weight first (no stem tx
   * unless mineStemTxs), each whose key images do not conflict with one already chosen, whose
   * inputs are still unspent, while the total weight stays within `maxWeight`.
   */
  templateTxs(maxWeight: number): PoolEntry[] {
    const chosen: PoolEntry[] = [];
    const used = new Set<string>();
    let total = 0;
    for (const e of [...this.byId.values()].sort(compareForTemplate)) {
      if (!this.verified.has(hex(e.id))) continue;
      if (e.stemEmbargo !== undefined && !this.mineStemTxs) continue;
      if (total + e.weight > maxWeight) continue;
      const kis = e.keyImages.map(hex);
      if (kis.some((k) => used.has(k))) continue;
      if (e.keyImages.some((ki) => this.store.isKeyImageSpent(ki))) continue;
      if (this.store.txLocation(e.id) !== undefined) continue;
      chosen.push(e);
      total += e.weight;
      for (const k of kis) used.add(k);
    }
    return chosen;
  }

  /**
   * After the chain changed: entries whose inputs failed (kept_by_block) or whose newest ring
   * member left the chain are checked again (inputs, then signatures in a worker); entries whose
   * key images the chain spent are dropped. Returns the ids dropped.
   */
  async revalidate(): Promise<Bytes[]> {
    const dropped: Bytes[] = [];
    const hf = this.store.hardForkVersion(this.store.height());
    const now = this.now();
    for (const e of [...this.byId.values()]) {
      const k = hex(e.id);
      // a tx returned by a popped block stays when the chain spends its key images (monerod's pool
      // keeps it: templates leave it out, and it expires after MEMPOOL_TX_FROM_BLOCK_LIVETIME)
      if ((!e.keptByBlock && e.keyImages.some((ki) => this.store.isKeyImageSpent(ki))) || this.store.txLocation(e.id) !== undefined) {
        this.remove(e.id);
        dropped.push(e.id);
        continue;
      }
      if (this.verified.has(k)) {
        const h = e.maxUsedBlockHeight;
        const still = h < this.store.height() && Buffer.from(this.store.meta(h).hash).equals(Buffer.from(e.maxUsedBlockId));
        if (still) continue;
        this.verified.delete(k);
      }
      const inputs = checkInputs(e.tx, this.store, hf, BigInt(now));
      if (!inputs.ok) {
        const top = this.store.height() - 1;
        e.lastFailedHeight = top;
        e.lastFailedId = this.store.meta(top).hash;
        continue;
      }
      const item = rctItem(e.tx, e.blob, inputs.value.rings, this.backend);
      const ok = item === undefined ? true : await this.verifier.verify([item], "full").catch(notJudged);
      // not judged (the verify worker died twice): kept, checked again at the next revalidation
      if (ok instanceof VerifyWorkerCrashError) continue;
      if (!ok) {
        this.remove(e.id);
        dropped.push(e.id);
        continue;
      }
      e.maxUsedBlockHeight = inputs.value.maxUsedHeight;
      e.maxUsedBlockId = this.store.meta(inputs.value.maxUsedHeight).hash;
      this.verified.add(k);
      this.persist(e);
    }
    return dropped;
  }

  // ---- maintenance ----

  /** Drops txs older than a day (three days when kept_by_block); returns their ids. */
  evictStale(): Bytes[] {
    const now = this.now();
    const out: Bytes[] = [];
    for (const e of [...this.byId.values()]) {
      const life = e.keptByBlock ? MEMPOOL_TX_FROM_BLOCK_LIVETIME : MEMPOOL_TX_LIVETIME;
      if (now - e.receiveTime > life) {
        this.remove(e.id);
        out.push(e.id);
      }
    }
    return out;
  }

  /** tx_memory_pool::prune: lowest fee per weight first until the pool fits in maxWeight. */
  pruneToWeight(): Bytes[] {
    const out: Bytes[] = [];
    if (this.weight <= this.maxWeight) return out;
    const order = [...this.byId.values()].sort(compareForTemplate).reverse();
    for (const e of order) {
      if (this.weight <= this.maxWeight) break;
      this.remove(e.id);
      out.push(e.id);
    }
    return out;
  }

  /** flush_txpool: the given ids, or everything when none are given. Returns how many left. */
  flush(ids?: readonly Bytes[]): number {
    const list = ids && ids.length > 0 ? ids : [...this.byId.values()].map((e) => e.id);
    let n = 0;
    for (const id of list) if (this.remove(id)) n++;
    return n;
  }

  /**
   * relay_tx, or a fluff: marks txs relayed now (--offline too, as monerod); the ids not in the
   * pool, and the entries public only now (set_relayed's just_broadcasted).
   */
  relay(ids: readonly Bytes[]): { missing: Bytes[]; nowPublic: PoolEntry[] } {
    const missing: Bytes[] = [];
    const nowPublic: PoolEntry[] = [];
    const now = this.now();
    for (const id of ids) {
      const e = this.get(id);
      if (!e) {
        missing.push(id);
        continue;
      }
      if (this.markFluffed(e, now)) nowPublic.push(e);
    }
    return { missing, nowPublic };
  }

  /**
   * relay_tx with P2P running (core_rpc_server::on_relay_tx relays with relay_method::local): a
   * do_not_relay tx becomes local, for P2P to stem or fluff as it does a tx from RPC (set_relayed's
   * upgrade from none; a tx already further along keeps its state). The ids not in the pool, the
   * local ones (P2P decides), and the others (already public or in a stem).
   */
  relayLocal(ids: readonly Bytes[]): { missing: Bytes[]; local: PoolEntry[]; others: PoolEntry[] } {
    const missing: Bytes[] = [];
    const local: PoolEntry[] = [];
    const others: PoolEntry[] = [];
    for (const id of ids) {
      const e = this.get(id);
      if (!e) missing.push(id);
      else if (e.doNotRelay || e.local) {
        if (e.doNotRelay) {
          e.doNotRelay = false;
          e.local = true;
          this.persist(e);
        }
        local.push(e);
      } else others.push(e);
    }
    return { missing, local, others };
  }

  /**
   * tx_memory_pool::set_relayed(…, stem) for a tx we sent along a Dandelion++ stem: it stays out
   * of public view until `embargo` (Unix seconds), when the node fluffs it itself unless someone
   * else did. Called on a local tx right after it was added; no effect on a do_not_relay tx or a
   * tx already in a stem.
   */
  markStem(id: Bytes, embargo: number): void {
    const e = this.get(id);
    if (!e || e.doNotRelay || e.stemEmbargo !== undefined) return;
    delete e.local;
    // no longer public: kept for sensitive readers only (monerod never shows a local or stem tx to others)
    this.changes.noteAdded(hex(e.id), true);
    e.stemEmbargo = embargo;
    e.relayed = true;
    e.lastRelayedTime = 0;
    this.persist(e);
  }

  /**
   * set_relayed(…, fluff): the tx is public from now on (relayed now, its stem and its embargo
   * over); true when it was not public before. Such a tx (do_not_relay, local, stem) is added again
   * to the change log, as on_transactions_relayed adds a tx broadcast for the first time again with
   * a new time.
   */
  markFluffed(e: PoolEntry, now = this.now()): boolean {
    const was = isBroadcast(e);
    if (!was) this.changes.noteAdded(hex(e.id), false);
    e.doNotRelay = false;
    delete e.stemEmbargo;
    delete e.local;
    e.relayed = true;
    e.lastRelayedTime = now;
    this.persist(e);
    return !was;
  }

  /** The stem txs whose embargo has ended (get_relayable_transactions' stem case): the node fluffs them. */
  embargoEnded(now = this.now()): PoolEntry[] {
    return [...this.byId.values()].filter((e) => e.stemEmbargo !== undefined && e.stemEmbargo <= now);
  }

  /**
   * get_relayable_transactions' public and local cases: txs with a fee, relayable, not in a stem,
   * last relayed longer ago than relayDelay and younger than half their pool lifetime. The node
   * sends them again (public ones fluffed), and relaying marks them relayed now.
   */
  relayable(now = this.now()): PoolEntry[] {
    return [...this.byId.values()].filter((e) => {
      if (e.fee === 0n || e.doNotRelay || e.stemEmbargo !== undefined) return false;
      if (now - e.lastRelayedTime <= relayDelay(e.lastRelayedTime, e.receiveTime)) return false;
      const life = e.keptByBlock ? MEMPOOL_TX_FROM_BLOCK_LIVETIME : MEMPOOL_TX_LIVETIME;
      return now - e.receiveTime <= life / 2;
    });
  }
}
