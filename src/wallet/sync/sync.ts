/**
 * The wallet's refresh loop (wallet2::refresh → pull_blocks → process_parsed_blocks, and
 * update_pool_state): fetch pruned /get_blocks.bin batches after the wallet's short chain history,
 * scan them (in a ScanWorker when given, inline otherwise), apply them to the ledger — which rolls
 * back on a block that differs from the kept one (a reorg) — then read the pool and hand the
 * transactions that concern us to `Ledger.setPool`.
 *
 * One refresh runs at a time: a second `refresh()` while one runs gets the running one's promise.
 * The loop awaits between batches (and, inline, between chunks of a batch), so reads on the ledger
 * are answered while it runs. Errors of the node client (NoDaemonConnectionError, NodeStatusError…)
 * propagate unchanged.
 */
import type { NodeApi } from "../../client/node-client.js";
import type { Ledger } from "../ledger/ledger.js";
import { blockHashesFromBlob } from "../../protocol/block.js";
import type { GetBlocksBinResponse } from "../../protocol/rpc-bin.js";
import { blockInputsFromResponse } from "../scan/input.js";
import type { WalletScanner } from "../scan/pool.js";
import { type ScanBlockInput, type ScannedBlock, type ScannedTx, Scanner } from "../scan/scan.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";

/** What monero-wallet-rpc's `refresh` answers. */
export interface RefreshResult {
  /** Blocks added to the wallet's chain (after a reorg, the new blocks). */
  blocks_fetched: number;
  /** Whether a fetched block brought the wallet an output. */
  received_money: boolean;
}

export interface WalletSyncOptions {
  readonly node: NodeApi;
  readonly ledger: Ledger;
  /** The wallet's scanner: a WalletScanner (a ScanWorker, or a share of a SharedScanPool) scans off the main thread; a Scanner scans inline. */
  readonly scanner: Scanner | WalletScanner;
  /**
   * Blocks below this are never fetched (wallet2's refresh-from-block-height). Used when the
   * ledger holds no block yet; a ledger already past it continues from its own height.
   */
  readonly restoreHeight?: number;
  /** Wall-clock seconds for the pool's timestamps; default Date.now(). */
  readonly now?: () => bigint;
  /** Blocks scanned and applied at a time; the loop yields to the event loop between chunks (default 20). */
  readonly chunk?: number;
  /**
   * Deepest reorg the refresh follows (wallet2's max-reorg-depth, ORPHANED_BLOCKS_MAX_COUNT = 100);
   * a deeper one throws ReorgDepthError and leaves the ledger as it was.
   */
  readonly maxReorgDepth?: number;
  /** Whether refresh also reads the pool (default true). */
  readonly pool?: boolean;
  /** Ledger.setPool's `spends`: pool txs spending our outputs become pending txs (--detect-pool-spends). */
  readonly poolSpends?: boolean;
  /**
   * Whether `blocks_fetched` counts the first block after a fork (default true). wallet2's
   * process_parsed_blocks does not count it (it detaches and adds it on the split branch), so
   * monero-wallet-rpc answers 6 for "pop 5, mine 7"; the wallet service passes false.
   */
  readonly countSplitBlock?: boolean;
  /**
   * Called when a refresh starts (target = height: not known yet) and after each chunk of blocks
   * is applied: the ledger's height and the node's height (the target) at the last fetch. For
   * progress displays; it must not throw.
   */
  readonly onProgress?: (p: SyncProgress) => void;
}

/** Where a refresh is: the ledger's height and the node's height at the last fetch. */
export interface SyncProgress {
  readonly height: number;
  readonly target: number;
}

/** wallet2's reorg_depth_error: the node's chain forks further back than the wallet follows. */
export class ReorgDepthError extends Error {
  constructor(
    readonly depth: number,
    readonly max: number,
  ) {
    super(`reorg exceeds maximum allowed depth (${max}), reorg depth: ${depth}`);
    this.name = "ReorgDepthError";
  }
}

/** The node's answer forks at its first block, which must be one the wallet has: a wrong daemon response. */
export class WrongDaemonResponseError extends Error {
  constructor(readonly height: number) {
    super(`wrong daemon response: split starts from the first block in response (height ${height})`);
    this.name = "WrongDaemonResponseError";
  }
}

/** Monero's short chain history: the last 10 kept hashes, then exponentially sparser, the first kept, then genesis. */
export function shortChainHistory(tailStart: number, tail: readonly string[], genesis: string): string[] {
  const sz = tail.length;
  if (sz === 0) return [genesis];
  const ids: string[] = [];
  let i = 0;
  let multiplier = 1;
  let backOffset = 1;
  let baseIncluded = false;
  while (backOffset < sz) {
    ids.push(tail[sz - backOffset]);
    if (sz - backOffset === 0) baseIncluded = true;
    if (i < 10) backOffset++;
    else backOffset += multiplier *= 2;
    i++;
  }
  if (!baseIncluded) ids.push(tail[0]);
  if (tailStart !== 0) ids.push(genesis);
  return ids;
}

const yieldToLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

export class WalletSync {
  private running: Promise<RefreshResult> | null = null;
  private genesis: string | null = null;
  /** Pool transactions already scanned, by id, with the node's double_spend_seen. */
  private readonly poolSeen = new Map<string, { tx: ScannedTx | null; doubleSpend: boolean }>();

  constructor(readonly opts: WalletSyncOptions) {}

  get ledger(): Ledger {
    return this.opts.ledger;
  }

  /** Whether a refresh is under way. */
  get refreshing(): boolean {
    return this.running !== null;
  }

  /** Brings the ledger to the node's top, then reads the pool. Joins a refresh already running. */
  refresh(): Promise<RefreshResult> {
    if (this.running) return this.running;
    const p = this.run().finally(() => {
      this.running = null;
    });
    this.running = p;
    return p;
  }

  private async run(): Promise<RefreshResult> {
    const result = await this.pullBlocks();
    if (this.opts.pool ?? true) await this.refreshPool(true);
    return result;
  }

  private async genesisHash(): Promise<string> {
    if (this.genesis === null) {
      const known = this.ledger.blockHash(0);
      this.genesis = known ?? (await this.opts.node.getBlockHeaderByHeight(0)).block_header.hash;
    }
    return this.genesis;
  }

  private async scan(blocks: readonly ScanBlockInput[]): Promise<ScannedBlock[]> {
    const s = this.opts.scanner;
    if (!(s instanceof Scanner)) return s.scanBlocks(blocks);
    return s.scanBlocks(blocks);
  }

  private async scanPool(txs: readonly { blob: Uint8Array; txid: Uint8Array }[]): Promise<ScannedTx[]> {
    const s = this.opts.scanner;
    if (!(s instanceof Scanner)) return s.scanPool(txs);
    return txs.map((t) => s.scanPoolTx(t.blob, t.txid));
  }

  private async pullBlocks(): Promise<RefreshResult> {
    const ledger = this.ledger;
    const st = ledger.state;
    const restore = this.opts.restoreHeight ?? 0;
    // a ledger that holds nothing yet starts at the restore height
    if (st.hashTail.length === 0 && st.transfers.length === 0 && st.height < restore) {
      st.height = restore;
      st.hashTailStart = restore;
    }
    // where this refresh starts (the target is not known before the first fetch)
    this.opts.onProgress?.({ height: ledger.height, target: ledger.height });
    let fetched = 0;
    let received = false;
    // the next batch, asked for while this one is scanned (wallet2's refresh pulls the next blocks in
    // a thread of its own while it processes the last ones)
    let prefetched: Promise<GetBlocksBinResponse> | null = null;
    const drop = (): void => {
      prefetched?.catch(() => undefined); // a failure of a request no longer wanted is not news
      prefetched = null;
    };
    try {
      for (;;) {
        const res = prefetched ?? this.fetchAfterLedger();
        prefetched = null;
        const got = await res;
        if (got === null) break;
        const done = await this.applyBatch(got, (p) => (prefetched = p));
        fetched += done.fetched;
        received ||= done.received;
        if (done.stale || !done.progressed) drop(); // asked again from the ledger as it is now
        if (!done.progressed) break;
        if (ledger.height >= Number(got.current_height)) break;
        await yieldToLoop();
      }
    } finally {
      drop();
    }
    return { blocks_fetched: fetched, received_money: received };
  }

  /** The ledger's short chain history, as a get_blocks.bin request names it. */
  private async history(): Promise<string[]> {
    const st = this.ledger.state;
    return shortChainHistory(st.hashTailStart, st.hashTail, await this.genesisHash());
  }

  /** The blocks after the ledger's short chain history; null when the node has none past the ledger's height. */
  private async fetchAfterLedger(): Promise<GetBlocksBinResponse | null> {
    const ledger = this.ledger;
    const st = ledger.state;
    const ids = await this.history();
    // with no kept hash, ask from the ledger's height (monerod then ignores block_ids)
    const startHeight = st.hashTail.length === 0 ? ledger.height : 0;
    if (startHeight > 0) {
      const top = Number((await this.opts.node.getHeight()).height);
      if (startHeight >= top) return null; // monerod answers "Failed" for a start at or past its top
    }
    return this.opts.node.getBlocksBin({ block_ids: ids.map(unhex), start_height: BigInt(startHeight), prune: true });
  }

  /**
   * Scans and applies one get_blocks.bin answer. First, when the node has blocks past the answer's,
   * asks for them (handing the request to `prefetch`): after the answer's last block, then the
   * ledger's history, so a node whose chain moved off that block meanwhile answers from the fork
   * point, which is then handled as any other answer.
   */
  private async applyBatch(
    res: GetBlocksBinResponse,
    prefetch: (p: Promise<GetBlocksBinResponse>) => void,
  ): Promise<{ fetched: number; received: boolean; progressed: boolean; stale: boolean }> {
    const ledger = this.ledger;
    let fetched = 0;
    let received = false;
    const inputs = blockInputsFromResponse(res);
    if (inputs.length === 0) return { fetched, received, progressed: false, stale: false };
    const last = inputs[inputs.length - 1];
    if (last.height + 1 < Number(res.current_height)) {
      const history = await this.history();
      const p = this.opts.node.getBlocksBin({ block_ids: [blockHashesFromBlob(last.blockBlob).hash, ...history.map(unhex)], start_height: 0n, prune: true });
      p.catch(() => undefined); // awaited (and its error thrown) when its turn comes
      prefetch(p);
    }
    let progressed = false;
    let stale = false;
    const chunk = Math.max(1, this.opts.chunk ?? 20);
    // one chunk scanned ahead: the scanner (worker threads) works on the next chunk while this
    // thread applies the last one (wallet2 likewise parses the next blocks while it processes)
    const scanFrom = (k: number): Promise<ScannedBlock[]> => {
      if (k >= inputs.length) return Promise.resolve([]);
      const p = this.scan(inputs.slice(k, k + chunk));
      p.catch(() => undefined); // awaited below; left unawaited only when the batch went stale
      return p;
    };
    let ahead = scanFrom(0);
    for (let k = 0; k < inputs.length && !stale; k += chunk) {
      if (k > 0) await yieldToLoop();
      const scanned = await ahead;
      ahead = scanFrom(k + chunk);
      for (const [j, b] of scanned.entries()) {
        const before = ledger.height;
        const known = b.height < before ? ledger.blockHash(b.height) : undefined;
        if (known !== undefined && known !== hex(b.hash)) {
          if (k + j === 0) throw new WrongDaemonResponseError(b.height);
          const max = this.opts.maxReorgDepth ?? 100;
          if (before - b.height > max) throw new ReorgDepthError(before - b.height, max);
        }
        const rolledBack = ledger.applyBlock(b);
        if (rolledBack !== null) progressed = true;
        if (ledger.height === b.height + 1 && (before <= b.height || rolledBack !== null)) {
          if (rolledBack === null || (this.opts.countSplitBlock ?? true)) fetched++;
          progressed = true;
          if (b.txs.some((t) => t.received.length > 0)) received = true;
        } else if (ledger.height <= b.height) {
          stale = true; // the block did not follow ours (the ledger dropped its top): ask again
          break;
        }
      }
      this.opts.onProgress?.({ height: ledger.height, target: Math.max(ledger.height, Number(res.current_height)) });
    }
    return { fetched, received, progressed, stale };
  }

  /**
   * The pool only (what get_transfers with pool=true does first: wallet2::update_pool_state). While a
   * refresh runs, that refresh reads the pool at its end, so this returns at once.
   */
  async updatePool(): Promise<void> {
    if (this.running) return;
    await this.refreshPool(false);
  }

  /** update_pool_state: the pool's ids, the txs not seen before, then Ledger.setPool (`refreshed`: at the end of a refresh). */
  private async refreshPool(refreshed: boolean): Promise<void> {
    const node = this.opts.node;
    const ids = (await node.getTransactionPoolHashes()).tx_hashes;
    const current = new Set(ids);
    for (const k of [...this.poolSeen.keys()]) if (!current.has(k)) this.poolSeen.delete(k);
    const unknown = ids.filter((id) => !this.poolSeen.has(id));
    if (unknown.length > 0) {
      const r = await node.getTransactions(unknown, { decodeAsJson: false, prune: false });
      const got = r.txs.filter((t) => t.as_hex.length > 0 && t.in_pool);
      const scanned = await this.scanPool(got.map((t) => ({ blob: unhex(t.as_hex), txid: unhex(t.tx_hash) })));
      got.forEach((t, k) => this.poolSeen.set(t.tx_hash, { tx: scanned[k], doubleSpend: t.double_spend_seen }));
    }
    // setPool keeps only what concerns the wallet (receipts, spends of our key images)
    const txs: ScannedTx[] = [];
    const doubleSpend = new Set<string>();
    for (const id of ids) {
      const e = this.poolSeen.get(id);
      if (!e?.tx) continue;
      txs.push(e.tx);
      if (e.doubleSpend) doubleSpend.add(id);
    }
    const now = this.opts.now?.() ?? BigInt(Math.floor(Date.now() / 1000));
    this.ledger.setPool(txs, now, doubleSpend, { ids: current, refreshed, spends: this.opts.poolSpends ?? false });
  }
}
