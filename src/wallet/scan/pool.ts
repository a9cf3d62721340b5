/**
 * Scanning off the main thread: `ScanWorker` owns one worker thread holding one wallet's scanner
 * (keys + subaddress table), and answers requests in order, so the event loop stays free to answer
 * RPC reads while a refresh runs. A receipt grows the subaddress lookahead for the blocks after it,
 * so a wallet's blocks are scanned as if in chain order: `ParallelScanWorker` scans the two halves
 * of a batch on two workers at once and scans the second half again when the first one grew the
 * table (see there). Several wallets use several workers, which `ScanPool` caps at a thread count.
 */
import { Worker } from "node:worker_threads";
import type { LookaheadSnapshot } from "../keys/subaddress.js";
import type { ScanBlockInput, ScanKeys, ScannedBlock, ScannedTx } from "./scan.js";
import type { ScanRequest, SizedScan } from "./worker.js";

/** What a wallet's refresh needs of its scanner off the main thread: a ScanWorker of its own, or a share of the hub's SharedScanPool. */
export interface WalletScanner {
  /** Scans consecutive blocks in order. */
  scanBlocks(blocks: readonly ScanBlockInput[]): Promise<ScannedBlock[]>;
  /** Scans pool transactions. */
  scanPool(txs: readonly { blob: Uint8Array; txid: Uint8Array }[]): Promise<ScannedTx[]>;
  /** A created subaddress/account (create_address, create_account). */
  expand(major: number, minor: number): Promise<void>;
  /** set_subaddress_lookahead. */
  setLookahead(major: number, minor: number): Promise<void>;
  /** A copy of the scanner's lookahead table. */
  snapshot(): Promise<LookaheadSnapshot>;
  close(): Promise<void>;
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export class ScanWorker implements WalletScanner {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private dead: Error | null = null;

  constructor(keys: ScanKeys) {
    this.worker = new Worker(new URL("./worker.js", import.meta.url), { workerData: keys });
    this.worker.on("message", (m: { id: number; ok: boolean; result?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(`scan worker: ${m.error}`));
    });
    const fail = (e: Error) => {
      this.dead = e;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`scan worker exited (code ${code})`)));
  }

  private call(req: DistributiveOmit<ScanRequest, "id">): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id });
    });
  }

  /** Scans consecutive blocks in order. */
  async scanBlocks(blocks: readonly ScanBlockInput[]): Promise<ScannedBlock[]> {
    return (await this.scanSized(blocks)).blocks;
  }

  /** scanBlocks, with the subaddress table's size before and after (whether these blocks grew it). */
  scanSized(blocks: readonly ScanBlockInput[]): Promise<SizedScan> {
    return this.call({ op: "blocks", blocks }) as Promise<SizedScan>;
  }

  /** Scans pool transactions. */
  scanPool(txs: readonly { blob: Uint8Array; txid: Uint8Array }[]): Promise<ScannedTx[]> {
    return this.call({ op: "pool", txs }) as Promise<ScannedTx[]>;
  }

  /** Tells the worker's table about a created subaddress/account (create_address, create_account). */
  async expand(major: number, minor: number): Promise<void> {
    await this.call({ op: "expand", major, minor });
  }

  /** set_subaddress_lookahead: the worker derives the grown ranges (a million keys take ~20 s, off the main thread). */
  async setLookahead(major: number, minor: number): Promise<void> {
    await this.call({ op: "lookahead", major, minor });
  }

  /** A copy of the worker's lookahead table, for the main thread to adopt instead of deriving it again. */
  snapshot(): Promise<LookaheadSnapshot> {
    return this.call({ op: "snapshot" }) as Promise<LookaheadSnapshot>;
  }

  async close(): Promise<void> {
    this.dead ??= new Error("scan worker closed");
    await this.worker.terminate();
  }
}

/** Batches shorter than this are scanned on one worker (a refresh of a synced wallet brings a block or two). */
const MIN_SPLIT = 8;

/** For each account a batch's receipts touched, the largest subaddress index among them. */
function receiptsByMajor(blocks: readonly (ScannedBlock | ScannedTx)[]): Map<number, number> {
  const top = new Map<number, number>();
  for (const b of blocks) {
    for (const t of "txs" in b ? b.txs : [b]) {
      for (const r of t.received) top.set(r.subaddress.major, Math.max(top.get(r.subaddress.major) ?? 0, r.subaddress.minor));
    }
  }
  return top;
}

/**
 * One wallet's scanner on two worker threads (refresh of a long chain on two cores: the key
 * derivations are most of its cost, and each block's are independent of the others').
 *
 * A batch is split in two halves, scanned at once, one per worker, each with the table both held
 * before it. Scanning in chain order would have scanned the second half with the table grown by the
 * first half's receipts (wallet2's expand_subaddresses): when the first half grew it (the first
 * worker says its table has more keys after the half than before), the second half is scanned again
 * on the first worker, whose table now has that growth; otherwise the second half's answer is
 * already the in-order one. Then each worker is told the receipts it did not see (after a second
 * pass, the second worker is told all of them: its own pass may have missed some; `expand`: the
 * table a set of receipts gives does not depend on their order), so both hold the same table for
 * the next batch. Those messages are not waited for: a worker answers in order, so the next batch
 * finds them done (a failure among them fails the next call). Growth is rare (an account's first
 * use, or a subaddress past the last one used), so nearly every batch takes half the time on two
 * cores.
 */
export class ParallelScanWorker implements WalletScanner {
  private readonly first: ScanWorker;
  private readonly second: ScanWorker;
  /** A failed expand sent by `tell`, thrown by the next call. */
  private failure: Error | null = null;
  /** Second halves scanned again because the first half grew the table (for tests and logs). */
  rescans = 0;

  constructor(keys: ScanKeys) {
    this.first = new ScanWorker(keys);
    this.second = new ScanWorker(keys);
  }

  /** The last scan asked for: scans run one after another (a refresh may leave one unawaited, e.g. a chunk scanned ahead of a stale one). */
  private queue: Promise<unknown> = Promise.resolve();

  /** Runs `f` after every scan asked for before it. */
  private inTurn<T>(f: () => Promise<T>): Promise<T> {
    const run = this.queue.then(f);
    this.queue = run.catch(() => undefined);
    return run;
  }

  scanBlocks(blocks: readonly ScanBlockInput[]): Promise<ScannedBlock[]> {
    return this.inTurn(() => this.scanInOrder(blocks));
  }

  private async scanInOrder(blocks: readonly ScanBlockInput[]): Promise<ScannedBlock[]> {
    this.rethrow();
    if (blocks.length < MIN_SPLIT) {
      const got = await this.first.scanBlocks(blocks);
      this.tell(this.second, got);
      return got;
    }
    const half = blocks.length >> 1;
    const [head, tailOnSecond] = await Promise.all([this.first.scanSized(blocks.slice(0, half)), this.second.scanSized(blocks.slice(half))]);
    let tail = tailOnSecond.blocks;
    if (head.tableAfter > head.tableBefore) {
      // the first half's receipts grew the table: the second half's answer may lack outputs to the new keys
      tail = await this.first.scanBlocks(blocks.slice(half));
      this.rescans++;
      // the second worker's own pass over the tail may have missed receipts that grow the table too
      this.tell(this.second, [...head.blocks, ...tail]);
    } else {
      this.tell(this.first, tail);
    }
    return [...head.blocks, ...tail];
  }

  private rethrow(): void {
    if (this.failure) throw this.failure;
  }

  /** Grows `w`'s table as the receipts in `scanned` grew the other worker's (sent, not waited for). */
  private tell(w: ScanWorker, scanned: readonly (ScannedBlock | ScannedTx)[]): void {
    for (const [major, minor] of receiptsByMajor(scanned)) {
      w.expand(major, minor).catch((e: unknown) => {
        this.failure ??= e instanceof Error ? e : new Error(String(e));
      });
    }
  }

  scanPool(txs: readonly { blob: Uint8Array; txid: Uint8Array }[]): Promise<ScannedTx[]> {
    return this.inTurn(async () => {
      this.rethrow();
      const got = await this.first.scanPool(txs);
      this.tell(this.second, got);
      return got;
    });
  }

  async expand(major: number, minor: number): Promise<void> {
    await Promise.all([this.first.expand(major, minor), this.second.expand(major, minor)]);
  }

  async setLookahead(major: number, minor: number): Promise<void> {
    await Promise.all([this.first.setLookahead(major, minor), this.second.setLookahead(major, minor)]);
  }

  snapshot(): Promise<LookaheadSnapshot> {
    return this.first.snapshot();
  }

  async close(): Promise<void> {
    await Promise.all([this.first.close(), this.second.close()]);
  }
}

/** At most `threads` scan workers, one per wallet; `acquire` returns the wallet's worker. */
export class ScanPool {
  private readonly workers = new Map<string, ScanWorker>();

  constructor(readonly threads = 2) {}

  acquire(walletId: string, keys: ScanKeys): ScanWorker {
    let w = this.workers.get(walletId);
    if (!w) {
      if (this.workers.size >= this.threads) throw new RangeError(`scan pool is full (${this.threads} threads)`);
      w = new ScanWorker(keys);
      this.workers.set(walletId, w);
    }
    return w;
  }

  async release(walletId: string): Promise<void> {
    const w = this.workers.get(walletId);
    this.workers.delete(walletId);
    await w?.close();
  }

  async close(): Promise<void> {
    await Promise.all([...this.workers.keys()].map((k) => this.release(k)));
  }
}
