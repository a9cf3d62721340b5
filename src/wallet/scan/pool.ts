/**
 * Scanning off the main thread: `ScanWorker` owns one worker thread holding one wallet's scanner
 * (keys + subaddress table), and answers requests in order, so the event loop stays free to answer
 * RPC reads while a refresh runs. Blocks of one wallet must be scanned in chain order (a receipt
 * grows the subaddress lookahead for the blocks after it), so one wallet uses one worker; several
 * wallets use several `ScanWorker`s, which `ScanPool` caps at a thread count.
 */
import { Worker } from "node:worker_threads";
import type { LookaheadSnapshot } from "../keys/subaddress.js";
import type { ScanBlockInput, ScanKeys, ScannedBlock, ScannedTx } from "./scan.js";
import type { ScanRequest } from "./worker.js";

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
  scanBlocks(blocks: readonly ScanBlockInput[]): Promise<ScannedBlock[]> {
    return this.call({ op: "blocks", blocks }) as Promise<ScannedBlock[]>;
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
