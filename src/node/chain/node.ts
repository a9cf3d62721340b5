/**
 * The node's core (NodeCore, node/core.ts): the blockchain manager over the LMDB ChainStore and the
 * tx pool. Every state change runs under one async mutex; reads go straight to the store.
 *
 * Mirrors monerod's Blockchain (src/cryptonote_core/blockchain.cpp: add_new_block,
 * handle_block_to_main_chain, handle_alternative_block, switch_to_alternative_blockchain,
 * pop_block_from_blockchain) and core::handle_incoming_tx.
 */
import { EventEmitter } from "node:events";
import { availableParallelism } from "node:os";
import {
  blockError,
  type BlockRuleError,
  checkBlock,
  checkIncomingBlockSize,
  checkTxSemantics,
  type ChainView,
  Checkpoints,
  nextBlockContext,
  type NextBlockContext,
  txError,
  type TxRuleError,
} from "../../consensus/index.js";
import type { CryptoBackend } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { RctVerifyPool, VerifyWorkerCrashError } from "../../crypto/ringct/verify-pool.js";
import type { RctVerifyItem } from "../../crypto/ringct/verify.js";
import { type Block, blockHashesFromBlob, parseBlock, serializeBlock } from "../../protocol/block.js";
import type { Network } from "../../protocol/network.js";
import { type Bytes, parseTransaction, serializeTransaction, type Transaction } from "../../protocol/tx.js";
import { txHashesFromBlob } from "../../protocol/tx-hash.js";
import { txWeight } from "../../protocol/weight.js";
import type {
  AltChainInfo,
  BlockSubmitResult,
  BlockTemplate,
  MinerStatus,
  NodeCore,
  PoolEntry,
  TxSubmitResult,
} from "../core.js";
import { bytesToHex as hex } from "../../base/bytes.js";
import { RandomX } from "../../crypto/randomx.js";
import { bytesEqual, checkInputs, rctItem, txKeyImages } from "../pool/tx-check.js";
import { TxPool } from "../pool/tx-pool.js";
import { type BlockMeta, ChainStore, type PruneResult, type SyncMode } from "../store/chain-store.js";
import { type AltBlock, AltStore, BranchView } from "./alt.js";
import {
  Miner,
  minerAddress,
  MiningService,
  type MiningStatusReport,
  PowHasher,
  processSeedEpoch,
  RX_BLOCK_VERSION,
  seedFor,
  seedHeight,
  type TemplateCandidate,
} from "../mining/index.js";

export interface OpenNodeOptions {
  dataDir: string;
  network: Network;
  /** regtest's --fixed-difficulty. With 1, PoW is not hashed (every hash meets difficulty 1). */
  fixedDifficulty?: bigint;
  /** --offline: no peers; accepted txs still count as relayed, as in monerod --offline. */
  offline?: boolean;
  /** --max-txpool-weight. */
  maxTxpoolWeight?: number;
  /** --db-sync-mode: "safe" (default) fsyncs every block. */
  syncMode?: SyncMode;
  /** Unix seconds (tests move the clock). */
  now?: () => number;
  /** RingCT verification worker threads (default: CPUs − 1). */
  verifyThreads?: number;
  backend?: CryptoBackend;
  /**
   * Drop the stored alternative blocks once the interrupted-switch recovery has run: what monerod
   * does at start without --keep-alt-blocks (Blockchain::init → drop_alt_blocks). Default: keep.
   */
  dropAltBlocks?: boolean;
  /** --db-salvage: open the store at its previous committed snapshot (ChainStoreOptions.salvage). */
  salvage?: boolean;
  /** Where the store's one-time work at open (a layout migration) is reported. */
  storeLog?: (line: string) => void;
  /**
   * Hash the PoW of every block even at difficulty 1, where any hash meets it (monerod always
   * hashes). Default false: a regtest chain at --fixed-difficulty 1 is verified and generated with
   * no RandomX work. Benches set it (TSMONERO_HASH_TRIVIAL_POW=1) to compare like for like.
   */
  hashTrivialPow?: boolean;
  /**
   * How long a RandomX seed cache the chain has moved past stays unused before it is released
   * (default 30 s: a P2P sync hashing ahead across a seed switch uses both seeds within seconds).
   */
  staleSeedIdleMs?: number;
  /** Checkpoints the chain must pass (monerod: mainnet's hard-coded table and checkpoints.json). Default none. */
  checkpoints?: Checkpoints;
}

/** One writer at a time: each call runs after the previous one settled. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.tail.then(fn, fn);
    this.tail = p.catch(() => undefined);
    return p;
  }
}

interface ParsedBlock {
  block: Block;
  blob: Bytes;
  hash: Bytes;
  hashingBlob: Bytes;
}

type Applied = { ok: true; meta: BlockMeta } | { ok: false; error: BlockRuleError } | { ok: false; internal: VerifyWorkerCrashError };

/** OpenNodeOptions.staleSeedIdleMs' default. */
const STALE_SEED_IDLE_MS = 30_000;

/** A verification that could not be carried out (no verdict): the worker crash, rethrown otherwise as false (invalid). */
const notJudged = (e: unknown): VerifyWorkerCrashError | false => (e instanceof VerifyWorkerCrashError ? e : false);

const internalError = (e: VerifyWorkerCrashError, id?: Bytes): BlockSubmitResult => ({
  status: "error",
  message: `the block was not verified, not judged invalid: ${e.message}`,
  ...(id ? { id } : {}),
});

const rejected = (error: BlockRuleError, id?: Bytes): BlockSubmitResult => ({
  status: "rejected",
  error,
  flags: [error.flag],
  message: error.message,
  ...(id ? { id } : {}),
});

export class Node extends EventEmitter implements NodeCore {
  readonly network: Network;
  readonly store: ChainStore;
  readonly pool: TxPool;
  readonly fixedDifficulty: bigint | undefined;
  readonly offline: boolean;
  private readonly alts: AltStore;
  private readonly verifier: RctVerifyPool;
  private readonly verifyThreads: number;
  private readonly backend: CryptoBackend;
  private readonly mutex = new Mutex();
  private readonly clock: () => number;
  /**
   * RandomX re-keys the cache of a seed the next blocks no longer use (seedsKept) for a new one
   * instead of holding both: a node applying blocks in order crosses each switch with one 256 MiB
   * cache (monerod's rx-slow-hash keeps a main and a secondary one). An alternative block just
   * below a switch creates the old seed's cache again (about a second on a pool thread), released
   * once idle (releaseStaleSeeds).
   */
  private readonly hasher = new PowHasher(() => new RandomX({ recyclable: (seed) => !this.seedsKept(false).some((k) => bytesEqual(k, seed)) }));
  private readonly miner: Miner;
  private miningService: MiningService | undefined;
  private readonly hashTrivialPow: boolean;
  private readonly staleSeedIdleMs: number;
  readonly checkpoints: Checkpoints;
  private closed = false;

  constructor(store: ChainStore, opts: OpenNodeOptions) {
    super();
    this.network = opts.network;
    this.store = store;
    this.fixedDifficulty = opts.fixedDifficulty;
    this.offline = opts.offline ?? false;
    this.hashTrivialPow = opts.hashTrivialPow ?? false;
    this.staleSeedIdleMs = opts.staleSeedIdleMs ?? STALE_SEED_IDLE_MS;
    this.checkpoints = opts.checkpoints ?? new Checkpoints();
    this.backend = opts.backend ?? defaultBackend();
    this.clock = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.verifyThreads = opts.verifyThreads ?? Math.max(1, availableParallelism() - 1);
    // a dead verify worker is logged with its cause; the pool restarts it and retries once
    this.verifier = new RctVerifyPool(this.verifyThreads, {
      onCrash: (cause, retrying) =>
        this.emit("warning", { source: "verify worker", error: new Error(`crashed (${cause.message}); ${retrying ? "restarted, verifying again" : "restarted"}`, { cause }) }),
    });
    this.alts = new AltStore(store.auxDb("alt_blocks"));
    this.miner = new Miner({
      template: (address) => this.blockTemplate(address, 0),
      submit: async (blob) => (await this.submitBlock(blob)).status === "added",
      powHash: (hashingBlob, t) => this.powHash(hashingBlob, t.height, t.seedHash),
      checkAddress: (address) => void minerAddress(address, this.network, this.backend),
    }, {
      // the miner's failures (template, PoW, submit, and the stop after repeated PoW failures)
      // reach the daemon's log through this event; nothing is swallowed
      onError: (e) => this.emit("warning", { source: "miner", error: e }),
    });
    this.on("block", () => void this.miner.onNewBlock());
    this.pool = TxPool.open({
      store,
      verifier: this.verifier,
      now: this.clock,
      context: () => this.mainContext(),
      // tx_memory_pool's m_mine_stem_txes: only a fake chain (regtest) mines txs still in a Dandelion++ stem
      mineStemTxs: opts.network === "regtest",
      ...(opts.maxTxpoolWeight === undefined ? {} : { maxWeight: opts.maxTxpoolWeight }),
      backend: this.backend,
    });
  }

  private ctxCache: { height: number; top: string; ctx: NextBlockContext } | undefined;

  /** The next main-chain block's context (difficulty, weight limits, medians), cached per tip. */
  mainContext(): NextBlockContext {
    const height = this.store.height();
    const top = hex(this.store.topHash());
    if (this.ctxCache?.height === height && this.ctxCache.top === top) return this.ctxCache.ctx;
    const ctx = nextBlockContext(this.store, this.fixedDifficulty === undefined ? {} : { fixedDifficulty: this.fixedDifficulty });
    this.ctxCache = { height, top, ctx };
    return ctx;
  }

  private now(): bigint {
    return BigInt(this.clock());
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error("node is closed"));
    return this.mutex.run(fn);
  }

  // ---- transactions ----

  submitTransaction(blob: Bytes, opts: { doNotRelay?: boolean; stemEmbargo?: number; local?: boolean } = {}): Promise<TxSubmitResult> {
    return this.serial(async () => {
      this.pool.evictStale();
      const r = await this.pool.submit(blob, opts);
      if (r.entry) this.emit("pool-add", r.entry);
      return r.result;
    });
  }

  flushPool(ids: readonly Bytes[] = []): Promise<void> {
    return this.serial(async () => {
      this.pool.flush(ids);
    });
  }

  relayTransactions(ids: readonly Bytes[]): Promise<Bytes[]> {
    return this.serial(async () => {
      const r = this.pool.relay(ids);
      // core::on_transactions_relayed → notify_txpool_event: the txs public only now (later 0.18s' ZMQ)
      if (r.nowPublic.length > 0) this.emit("pool-broadcast", r.nowPublic);
      return r.missing;
    });
  }

  relayLocalTransactions(ids: readonly Bytes[]): Promise<{ missing: Bytes[]; local: Bytes[]; others: Bytes[] }> {
    return this.serial(async () => {
      const r = this.pool.relayLocal(ids);
      return { missing: r.missing, local: r.local.map((e) => e.id), others: r.others.map((e) => e.id) };
    });
  }

  stemTransactions(ids: readonly Bytes[], embargo: number): Promise<void> {
    return this.serial(async () => {
      for (const id of ids) this.pool.markStem(id, embargo);
    });
  }

  // ---- PoW ----

  /** Seed height for a block at `height` (node/mining: RandomX epochs with monerod's env overrides). */
  private seedHeight(height: number): number {
    return seedHeight(height);
  }

  seedFor(height: number): { height: number; hash: Bytes } {
    return seedFor(height, (h) => this.store.meta(h).hash);
  }

  /** PoW hashes this node computed (verifying and generating blocks). */
  get powHashCount(): number {
    return this.hasher.hashCount;
  }

  /** RandomX seed caches held (256 MiB each). */
  get randomxSeedCaches(): number {
    return this.hasher.seedCacheCount;
  }

  /** get_block_longhash (node/mining's PowHasher): RandomX from v12 with the height's seed, CryptoNight before. */
  async powHash(hashingBlob: Bytes, height: number, seedHash?: Bytes): Promise<Bytes> {
    const version = this.store.hardForkVersion(height);
    const seed = version >= RX_BLOCK_VERSION ? (seedHash ?? this.seedFor(height).hash) : undefined;
    return this.hasher.hash(version, height, hashingBlob, seed);
  }

  /** The seeds of the next block and of the block `lag` heights later, and with `back` of `lag` heights back. */
  private seedsKept(back: boolean): Bytes[] {
    const t = this.store.height();
    const { lag } = processSeedEpoch();
    return (back ? [Math.max(0, t - lag), t, t + lag] : [t, t + lag]).map((h) => this.seedFor(h).hash);
  }

  /**
   * Releases the RandomX cache (256 MiB) of a seed the chain has moved past, once idle: kept are
   * the seeds of the next block, of the block `lag` heights later (the next epoch's, prepared
   * ahead) and of `lag` heights back (alternative blocks just below a switch). So for all but
   * about 2·lag of every epoch's blocks one cache is held, where monerod's rx-slow-hash keeps its
   * main and secondary caches once it has used two seeds. A deeper reorganisation creates the
   * cache again (about a second of work on a thread-pool thread).
   */
  private releaseStaleSeeds(): void {
    if (this.hasher.seedCacheCount < 2) return;
    this.hasher.releaseIdleSeeds(this.seedsKept(true), this.staleSeedIdleMs);
  }

  /** PoW check input: undefined (not hashed) at difficulty 1, where every hash meets it, unless hashTrivialPow. */
  private async powFor(p: ParsedBlock, ctx: NextBlockContext, view: ChainView & { hashAt?(h: number): Bytes }): Promise<Bytes | undefined> {
    if (ctx.difficulty <= 1n && !this.hashTrivialPow) return undefined;
    const sh = this.seedHeight(ctx.height);
    const seed = view.hashAt ? view.hashAt(sh) : this.store.meta(sh).hash;
    const key = `${hex(p.hash)}:${ctx.height}:${hex(seed)}`;
    const ready = this.prehashed.get(key);
    if (ready) {
      this.prehashed.delete(key);
      const h = await ready.catch(() => undefined);
      if (h) return h;
    }
    return this.powHash(p.hashingBlob, ctx.height, seed);
  }

  /** PoW hashes started ahead by prehashPow, by block id, height and seed (bounded: oldest dropped). */
  private readonly prehashed = new Map<string, Promise<Bytes>>();
  /** Prehash jobs waiting for a free slot, and the slots in use (at most the core count). */
  private readonly prehashQueue: (() => void)[] = [];
  private prehashRunning = 0;

  prehashPow(startHeight: number, blobs: readonly Bytes[]): void {
    if (this.closed || (this.fixedDifficulty === 1n && !this.hashTrivialPow)) return;
    const slots = availableParallelism();
    const limit = 4 * Math.max(64, blobs.length);
    for (const [i, blob] of blobs.entries()) {
      const height = startHeight + i;
      const sh = this.seedHeight(height);
      // only blocks whose seed block is already on the main chain (otherwise it is hashed when applied)
      if (sh >= this.store.height()) continue;
      let parsed: { hash: Bytes; hashingBlob: Bytes };
      try {
        parsed = blockHashesFromBlob(blob, this.backend);
      } catch {
        continue; // a bad blob is refused when it is submitted
      }
      const seed = this.store.meta(sh).hash;
      const key = `${hex(parsed.hash)}:${height}:${hex(seed)}`;
      if (this.prehashed.has(key)) continue;
      const job = new Promise<Bytes>((resolve, reject) => {
        const run = (): void => {
          this.prehashRunning++;
          this.powHash(parsed.hashingBlob, height, seed)
            .then(resolve, reject)
            .finally(() => {
              this.prehashRunning--;
              this.prehashQueue.shift()?.();
            });
        };
        if (this.prehashRunning < slots) run();
        else this.prehashQueue.push(run);
      });
      job.catch(() => undefined); // a failure is met again (and reported) when the block is applied
      this.prehashed.set(key, job);
      while (this.prehashed.size > limit) this.prehashed.delete(this.prehashed.keys().next().value as string);
    }
  }

  // ---- blocks ----

  submitBlock(blob: Bytes, opts: { txBlobs?: readonly Bytes[] } = {}): Promise<BlockSubmitResult> {
    return this.serial(() => this.addBlock(blob, opts.txBlobs ?? []));
  }

  /** The block's txs from the pool, else from the blobs given with it. */
  private blockTxs(ids: readonly Bytes[], given: readonly Bytes[]): { txs: Transaction[]; blobs: Bytes[]; missing: Bytes[] } {
    const extra = new Map<string, Bytes>();
    for (const b of given) {
      try {
        extra.set(hex(txHashesFromBlob(b, this.backend).hash), b);
      } catch {
        // a blob that does not parse matches no id: reported as missing
      }
    }
    const txs: Transaction[] = [];
    const blobs: Bytes[] = [];
    const missing: Bytes[] = [];
    for (const id of ids) {
      const e = this.pool.get(id);
      const b = e ? e.blob : extra.get(hex(id));
      if (!b) {
        missing.push(id);
        continue;
      }
      txs.push(e ? e.tx : parseTransaction(b));
      blobs.push(b);
    }
    return { txs, blobs, missing };
  }

  private async addBlock(blob: Bytes, given: readonly Bytes[]): Promise<BlockSubmitResult> {
    let p: ParsedBlock;
    try {
      const h = blockHashesFromBlob(blob, this.backend);
      p = { block: h.block, blob, hash: h.hash, hashingBlob: h.hashingBlob };
    } catch (e) {
      return { status: "rejected", flags: ["verification_failed"], message: `the blob is not a block: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (!bytesEqual(serializeBlock(p.block), blob)) {
      return { status: "rejected", id: p.hash, flags: ["verification_failed"], message: "the block blob is not in canonical form" };
    }
    if (this.store.heightOf(p.hash) !== undefined || this.alts.has(p.hash)) return { status: "duplicate", id: p.hash };
    // core::handle_incoming_block: the blob may not exceed the current weight limit (+ leeway)
    const limit = this.mainContext().limits.limit;
    const tooBig = checkIncomingBlockSize(blob.length, limit);
    if (tooBig) return rejected(tooBig, p.hash);
    // add_new_block: a block on an unknown parent is an orphan before anything else is looked at
    const onTop = bytesEqual(p.block.prevId, this.store.topHash());
    const branch = onTop ? undefined : this.alts.branchTo(this.store, p.block.prevId);
    if (!onTop && !branch) return rejected(blockError("PREV_ID_MISMATCH", `parent ${hex(p.block.prevId)} is unknown (orphan block)`), p.hash);
    // checkpoints (Blockchain::handle_block_to_main_chain, handle_alternative_block)
    const height = branch ? branch.forkHeight + branch.blocks.length + 1 : this.store.height();
    if (branch && !this.checkpoints.alternativeAllowed(this.store.height(), height)) {
      return rejected(blockError("ALT_BELOW_CHECKPOINT", `block at height ${height}, last checkpoint at or below the chain's ${this.store.height()} blocks`), p.hash);
    }
    const cp = this.checkpoints.check(height, hex(p.hash));
    if (!cp.ok) return rejected(blockError("CHECKPOINT", `height ${height} must be ${cp.expected}, not ${hex(p.hash)}`), p.hash);
    const { txs, blobs, missing } = this.blockTxs(p.block.txHashes, given);
    if (missing.length > 0) return rejected(blockError("MISSING_TX", `${missing.length} of ${p.block.txHashes.length} not in the pool, first ${hex(missing[0])}`), p.hash);
    if (!branch) {
      const r = await this.applyMain(p, txs, blobs, true);
      if (!r.ok) return "internal" in r ? internalError(r.internal, p.hash) : rejected(r.error, p.hash);
      return { status: "added", id: p.hash, height: r.meta.height };
    }
    return this.addAlternative(p, txs, blobs, branch);
  }

  /**
   * Checks a block extending the main chain and applies it in one LMDB transaction (txs checked
   * against the chain, RingCT verified per block in the worker pool).
   */
  private async applyMain(p: ParsedBlock, txs: Transaction[], blobs: Bytes[], updatePool: boolean): Promise<Applied> {
    const ctx = this.mainContext();
    const now = this.now();
    let powHash: Bytes | undefined;
    try {
      powHash = await this.powFor(p, ctx, this.store);
    } catch (e) {
      return { ok: false, error: blockError("BAD_POW", `cannot hash the proof of work: ${e instanceof Error ? e.message : String(e)}`) };
    }
    const items: (RctVerifyItem | undefined)[] = [];
    const spent = new Set<string>();
    const checkTx = (tx: Transaction, i: number): TxRuleError | undefined => {
      const sem = checkTxSemantics(tx, ctx.hfVersion, { keptByBlock: true, backend: this.backend });
      if (sem) return sem;
      const kis = txKeyImages(tx);
      for (let k = 0; k < kis.length; k++) {
        const key = hex(kis[k]);
        if (spent.has(key)) return txError("KEY_IMAGE_SPENT", `input ${k}: spent by an earlier tx of the same block`, k);
      }
      const inputs = checkInputs(tx, this.store, ctx.hfVersion, now);
      if (!inputs.ok) return inputs.error;
      for (const k of kis) spent.add(hex(k));
      items[i] = rctItem(tx, blobs[i], inputs.value.rings, this.backend);
      return undefined;
    };
    const r = checkBlock(this.store, ctx, {
      block: p.block,
      txs,
      txIds: p.block.txHashes,
      txWeights: txs.map((t, i) => txWeight(t, blobs[i].length)),
      minerTxWeight: serializeTransaction(p.block.minerTx).length,
      now,
      ...(powHash ? { powHash } : {}),
      checkTx,
      backend: this.backend,
    });
    if (!r.ok) return r;
    const present = items.map((it, i) => ({ it, i })).filter((x): x is { it: RctVerifyItem; i: number } => x.it !== undefined);
    if (present.length > 0) {
      // one batch per worker: the block's txs split evenly over the verification threads
      const k = Math.min(this.verifyThreads, present.length);
      const chunks = Array.from({ length: k }, (_, j) => present.filter((_x, i) => i % k === j).map((x) => x.it));
      const res = await Promise.all(chunks.map((c) => this.verifier.verify(c, "full").catch(notJudged)));
      const crash = res.find((x): x is VerifyWorkerCrashError => x instanceof VerifyWorkerCrashError);
      if (crash) return { ok: false, internal: crash };
      if (!res.every((x) => x === true)) {
        const each = await Promise.all(present.map((x) => this.verifier.verify([x.it]).catch(notJudged)));
        const crash2 = each.find((x): x is VerifyWorkerCrashError => x instanceof VerifyWorkerCrashError);
        if (crash2) return { ok: false, internal: crash2 };
        const bad = present[Math.max(0, each.indexOf(false))].i;
        const e = txError("INVALID_SIGNATURES", `tx ${hex(p.block.txHashes[bad])}`);
        return { ok: false, error: blockError("BAD_TX", `tx ${bad}: ${e.message}`, { txIndex: bad, txError: e }) };
      }
    }
    const meta = this.store.applyBlock(p.block, txs, r.accepted);
    this.releaseStaleSeeds();
    if (updatePool) {
      this.pool.blockApplied(p.block.txHashes, txs);
      this.pool.evictStale();
      await this.pool.revalidate();
      this.emit("block", { height: meta.height, id: meta.hash, block: p.block });
    }
    return { ok: true, meta };
  }

  /** handle_alternative_block: checks the block against its branch, stores it, switches when heavier. */
  private async addAlternative(
    p: ParsedBlock,
    txs: Transaction[],
    blobs: Bytes[],
    branch: { forkHeight: number; blocks: AltBlock[] },
  ): Promise<BlockSubmitResult> {
    const view = new BranchView(this.store, branch.forkHeight, branch.blocks);
    const ctx = nextBlockContext(view, this.fixedDifficulty === undefined ? {} : { fixedDifficulty: this.fixedDifficulty });
    const now = this.now();
    let powHash: Bytes | undefined;
    try {
      powHash = await this.powFor(p, ctx, view);
    } catch (e) {
      return rejected(blockError("BAD_POW", `cannot hash the proof of work: ${e instanceof Error ? e.message : String(e)}`), p.hash);
    }
    const r = checkBlock(view, ctx, {
      block: p.block,
      txs,
      txIds: p.block.txHashes,
      txWeights: txs.map((t, i) => txWeight(t, blobs[i].length)),
      minerTxWeight: serializeTransaction(p.block.minerTx).length,
      now,
      ...(powHash ? { powHash } : {}),
      // chain inputs and signatures are checked when the branch is applied
      checkTx: (tx) => checkTxSemantics(tx, ctx.hfVersion, { keptByBlock: true, backend: this.backend }),
      backend: this.backend,
    });
    if (!r.ok) return rejected(r.error, p.hash);
    const alt: AltBlock = {
      height: ctx.height,
      hash: p.hash,
      prevId: p.block.prevId,
      timestamp: p.block.timestamp,
      difficulty: r.accepted.difficulty,
      cumulativeDifficulty: r.accepted.cumulativeDifficulty,
      weight: r.accepted.weight,
      longTermWeight: r.accepted.longTermWeight,
      alreadyGeneratedCoins: r.accepted.alreadyGeneratedCoins,
      reward: r.accepted.reward,
      txCount: txs.length,
      blob: p.blob,
      txBlobs: blobs,
    };
    this.alts.put(alt);
    const mainCum = this.store.meta(this.store.height() - 1).cumulativeDifficulty;
    if (alt.cumulativeDifficulty <= mainCum) return { status: "alternative", id: p.hash, height: alt.height };
    const sw = await this.switchTo(branch.forkHeight, [...branch.blocks, alt]);
    if (!sw.ok) return "internal" in sw ? internalError(sw.internal, p.hash) : rejected(sw.error, p.hash);
    return { status: "added", id: p.hash, height: alt.height, reorganized: true };
  }

  /**
   * switch_to_alternative_blockchain: pops the main chain down to `forkHeight`, applies the branch
   * block by block with every check; on a failure the branch blocks applied so far are popped and
   * the original blocks re-applied (the chain ends byte-identical), and the failing block and its
   * descendants are dropped. On success the popped blocks become an alternative chain and their
   * txs return to the pool.
   */
  private async switchTo(
    forkHeight: number,
    branch: AltBlock[],
  ): Promise<{ ok: true } | { ok: false; error: BlockRuleError } | { ok: false; internal: VerifyWorkerCrashError }> {
    const oldHeight = this.store.height();
    const popped: { block: Block; txs: Transaction[]; meta: BlockMeta }[] = [];
    while (this.store.height() - 1 > forkHeight) {
      const meta = this.store.meta(this.store.height() - 1);
      // kept as an alternative block before it leaves the main chain: a crash during the switch
      // loses nothing (openNode resumes the switch to the heaviest chain)
      const blob = this.store.blockBlob(meta.height);
      const block = this.store.block(meta.height);
      if (!blob || !block) throw new Error(`block ${meta.height} missing from the store`);
      const txBlobs = block.txHashes.map((id) => {
        const b = this.store.txBlob(id);
        if (!b) throw new Error(`tx ${hex(id)} of block ${meta.height} is missing from the store or pruned (a pruned node cannot reorganise below its kept blocks)`);
        return b;
      });
      this.alts.put({ ...meta, prevId: block.prevId, blob, txBlobs });
      const { txs } = this.store.popBlock();
      popped.push({ block, txs, meta });
    }
    const applied: { p: ParsedBlock; txs: Transaction[] }[] = [];
    for (let k = 0; k < branch.length; k++) {
      const a = branch[k];
      const h = blockHashesFromBlob(a.blob, this.backend);
      const p: ParsedBlock = { block: h.block, blob: a.blob, hash: h.hash, hashingBlob: h.hashingBlob };
      const txs = a.txBlobs.map((b) => parseTransaction(b));
      const r = await this.applyMain(p, txs, a.txBlobs, false);
      if (!r.ok) {
        for (let i = 0; i < applied.length; i++) this.store.popBlock();
        for (let i = popped.length - 1; i >= 0; i--) {
          this.store.applyBlock(popped[i].block, popped[i].txs, popped[i].meta);
          this.alts.remove(popped[i].meta.hash);
        }
        // not judged (the verify worker died): the branch stays an alternative chain, nothing is dropped
        if ("internal" in r) return { ok: false, internal: r.internal };
        for (const bad of branch.slice(k)) this.alts.remove(bad.hash);
        for (const other of this.alts.all()) {
          if (!this.alts.branchTo(this.store, other.prevId)) this.alts.remove(other.hash);
        }
        return { ok: false, error: r.error };
      }
      applied.push({ p, txs });
      // monerod's handle_block_to_main_chain notifies for each block as the switch applies it
      this.emit("reorg-block", { height: this.store.height() - 1, id: p.hash, block: p.block });
    }
    // the popped main blocks stay as an alternative chain; the branch is the main chain now
    for (const a of branch) this.alts.remove(a.hash);
    for (const x of applied) this.pool.blockApplied(x.p.block.txHashes, x.txs);
    const returned: Transaction[] = [];
    for (let i = popped.length - 1; i >= 0; i--) returned.push(...popped[i].txs);
    // monerod returns them while popping, before the branch spends anything: one the branch
    // double-spends stays in its pool too
    await this.pool.returnFromBlock(returned, { bySwitch: true });
    await this.pool.revalidate();
    // monerod runs --reorg-notify, then the block notifiers for each block of the new chain
    this.emit("reorg", { splitHeight: forkHeight + 1, newHeight: this.store.height(), oldHeight });
    for (const x of applied) {
      const height = this.store.heightOf(x.p.hash) ?? -1;
      this.emit("block", { height, id: x.p.hash, block: x.p.block });
    }
    return { ok: true };
  }

  pruneBlockchain(stripe?: number): Promise<PruneResult> {
    // each batch is its own write transaction and re-reads the height: no need to hold the writer
    return this.store.prune(stripe);
  }

  popBlocks(count: number): Promise<number> {
    return this.serial(async () => {
      const txs: Transaction[][] = [];
      for (let i = 0; i < count && this.store.height() > 1; i++) txs.push(this.store.popBlock().txs);
      const back: Transaction[] = [];
      // a pruned store's old txs come back without signatures: they cannot re-enter the pool
      for (let i = txs.length - 1; i >= 0; i--) back.push(...txs[i].filter((t) => !t.pruned));
      await this.pool.returnFromBlock(back);
      await this.pool.revalidate();
      return this.store.height();
    });
  }

  /**
   * After a crash during a switch: alt records of blocks that are in the main chain are dropped,
   * and when an alternative chain is heavier than the main chain the switch is done again.
   */
  async recover(): Promise<void> {
    await this.serial(async () => {
      for (const a of this.alts.all()) if (this.store.heightOf(a.hash) !== undefined) this.alts.remove(a.hash);
      const mainCum = this.store.meta(this.store.height() - 1).cumulativeDifficulty;
      let best: AltBlock | undefined;
      for (const a of this.alts.all()) if (a.cumulativeDifficulty > (best?.cumulativeDifficulty ?? mainCum)) best = a;
      if (!best) return;
      const branch = this.alts.branchTo(this.store, best.prevId);
      if (!branch) return;
      await this.switchTo(branch.forkHeight, [...branch.blocks, best]);
    });
  }

  // ---- alternative chains ----

  /** Forgets every stored alternative block (monerod's drop_alt_blocks). */
  dropAltBlocks(): number {
    const all = this.alts.all();
    for (const a of all) this.alts.remove(a.hash);
    return all.length;
  }

  altBlockCount(): number {
    return this.alts.count();
  }

  altBlockHashes(): Bytes[] {
    return this.alts.all().map((a) => a.hash);
  }

  altBlock(id: Bytes):
    | { block: Block; blob: Bytes; height: number; cumulativeDifficulty: bigint; difficulty: bigint; weight: number; longTermWeight: number; reward: bigint }
    | undefined {
    const a = this.alts.get(id);
    if (!a) return undefined;
    return {
      block: blockHashesFromBlob(a.blob, this.backend).block,
      blob: a.blob,
      height: a.height,
      cumulativeDifficulty: a.cumulativeDifficulty,
      difficulty: a.difficulty,
      weight: a.weight,
      longTermWeight: a.longTermWeight,
      reward: a.reward,
    };
  }

  /** get_alternate_chains: one entry per alt block that no other alt block builds on. */
  altChains(): AltChainInfo[] {
    const all = this.alts.all();
    const parents = new Set(all.map((a) => hex(a.prevId)));
    const out: AltChainInfo[] = [];
    for (const tip of all) {
      if (parents.has(hex(tip.hash))) continue;
      const branch = this.alts.branchTo(this.store, tip.hash);
      if (!branch) continue;
      out.push({
        blockHashes: branch.blocks.map((b) => b.hash).reverse(),
        height: tip.height,
        length: branch.blocks.length,
        difficulty: tip.cumulativeDifficulty,
        mainChainParentBlock: this.store.meta(branch.forkHeight).hash,
      });
    }
    return out;
  }

  // ---- mining (node/mining) ----

  /**
   * The chain as a block on top of `prevId` sees it: the store when it is the tip, else a
   * BranchView of the main chain up to the fork plus the alt blocks (undefined for unknown ids).
   */
  viewAt(prevId: Bytes): (ChainView & { hashAt?(h: number): Bytes }) | undefined {
    if (bytesEqual(prevId, this.store.topHash())) return this.store;
    const branch = this.alts.branchTo(this.store, prevId);
    return branch ? new BranchView(this.store, branch.forkHeight, branch.blocks) : undefined;
  }

  /** node/mining's MiningService over this node (shares the PoW hasher; built on first use). */
  private get mining(): MiningService {
    if (!this.miningService) {
      this.miningService = new MiningService(
        {
          network: this.network,
          store: this.store,
          fixedDifficulty: this.fixedDifficulty,
          viewAt: (id) => this.viewAt(id),
          candidates: (prevId) => this.templateCandidates(prevId),
          submitBlock: (blob) => this.submitBlock(blob),
          now: () => Number(this.now()),
          mainContext: () => this.mainContext(),
        },
        { backend: this.backend, hasher: this.hasher, hashTrivial: this.hashTrivialPow },
      );
    }
    return this.miningService;
  }

  /**
   * The pool's txs for a template. On the tip: the pool's ready txs (monerod's fill_block_template).
   * On another block (prev_block): monerod fills from the pool as checked against the MAIN chain,
   * so its block may carry a tx whose ring members or spent outputs do not exist on that branch and
   * is then rejected; here such txs are left out: a tx is kept only when its inputs check against
   * the branch, its newest ring member is at or below the fork, and no block of the branch has it.
   */
  private templateCandidates(prevId?: Bytes): TemplateCandidate[] {
    const all = this.pool.templateTxs(Number.MAX_SAFE_INTEGER);
    if (!prevId || bytesEqual(prevId, this.store.topHash())) return all;
    const branch = this.alts.branchTo(this.store, prevId);
    if (!branch) return [];
    const view = new BranchView(this.store, branch.forkHeight, branch.blocks);
    const ctx = nextBlockContext(view, this.fixedDifficulty === undefined ? {} : { fixedDifficulty: this.fixedDifficulty });
    const onBranch = new Set<string>();
    for (const b of branch.blocks) for (const id of parseBlock(b.blob).txHashes) onBranch.add(hex(id));
    const now = this.now();
    return all.filter((e) => {
      if (onBranch.has(hex(e.id))) return false;
      const r = checkInputs(e.tx, view, ctx.hfVersion, now);
      return r.ok && r.value.maxUsedHeight <= branch.forkHeight;
    });
  }

  /**
   * get_block_template (node/mining's MiningService): on the tip with the pool's txs in template
   * order; with `prevId` (even the tip) monerod's from_block path: the parent's weight as the
   * median, filled from the pool (txs valid on that branch). Throws MiningError for bad input.
   */
  blockTemplate(address: string, reserveSize: number, opts: { prevId?: Bytes; extraNonce?: Bytes } = {}): Promise<BlockTemplate> {
    return this.mining.blockTemplate(address, reserveSize, opts);
  }

  /** generateblocks (monerod's on_generateblocks): reserve 1, chained on the previous block, the last block's height. */
  generateBlocks(count: number, address: string, opts: { prevId?: Bytes; startingNonce?: number } = {}): Promise<{ blocks: Bytes[]; height: number }> {
    return this.mining.generateBlocks(count, address, opts);
  }

  /** start_mining: checks throw synchronously (MiningError); the loops run until stopMining. */
  startMining(address: string, threads: number, opts: { background?: boolean; ignoreBattery?: boolean } = {}): void {
    if (this.closed) throw new Error("node is closed");
    this.miner.start(address, threads, opts).catch(() => undefined);
  }

  stopMining(): void {
    void this.miner.stop();
  }

  minerStatus(): MinerStatus {
    return this.miner.status();
  }

  /** mining_status's full answer (node/mining's report, with the next block's difficulty). */
  miningReport(): MiningStatusReport {
    const ctx = this.mainContext();
    // monerod's mining_status: the current (top) block's version
    return this.miner.report(this.store.hardForkVersion(Math.max(0, this.store.height() - 1)), ctx.difficulty);
  }

  override on(event: "block", listener: (b: { height: number; id: Bytes; block: Block }) => void): this;
  override on(event: "pool-add", listener: (e: PoolEntry) => void): this;
  override on(event: "pool-broadcast", listener: (es: PoolEntry[]) => void): this;
  override on(event: "warning", listener: (w: { source: string; error: unknown }) => void): this;
  override on(event: "reorg", listener: (e: { splitHeight: number; newHeight: number; oldHeight: number }) => void): this;
  override on(event: "reorg-block", listener: (b: { height: number; id: Bytes; block: Block }) => void): this;
  override on(event: string, listener: (...args: never[]) => void): this {
    return super.on(event, listener as (...args: unknown[]) => void);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // refuse new work first, then wait for the writer's queue to drain
    this.closed = true;
    await this.miner.stop();
    await this.mutex.run(async () => undefined);
    await this.verifier.close();
    await this.hasher.close();
    await this.store.close();
  }
}

/** Opens (creating if needed) the node's store in `dataDir` and its pool, alt blocks and workers. */
export async function openNode(opts: OpenNodeOptions): Promise<Node> {
  const store = ChainStore.open(opts.dataDir, opts.network, { ...(opts.syncMode ? { sync: opts.syncMode } : {}), ...(opts.backend ? { backend: opts.backend } : {}), ...(opts.salvage ? { salvage: true } : {}), ...(opts.storeLog ? { log: opts.storeLog } : {}) });
  const node = new Node(store, opts);
  await node.recover();
  if (opts.dropAltBlocks) node.dropAltBlocks();
  await node.pool.revalidate();
  return node;
}
