/**
 * Scanning shared by the wallets of a hub (issue 20): a fixed number of worker threads (about the
 * core count) hold the scanners of all the hub's wallets, instead of one thread per wallet.
 *
 * A wallet is registered on the least loaded thread and gets a `WalletScanner` handle. Requests
 * queue per thread while it works; when it is free the queue goes in one message, where wallets
 * asking for the same blocks (the hub's shared node hands them the same answer, hence the same
 * block blobs: they are recognised by identity) form one group: the blocks are copied to the
 * thread once and parsed and hashed once there (the thread keeps the last HELD_BLOCKS parsed, so
 * wallets that refresh out of step do not parse them again), the key derivations of the whole
 * group are one kernel call per tx public key, and each wallet then only checks view tags and its
 * subaddress table (shared-worker.ts). The answer carries each block once and, per wallet, only the
 * transactions where it found something; here each wallet's ScannedBlocks are rebuilt from those
 * (blocks where it found nothing are the shared objects themselves: nothing downstream mutates them).
 *
 * A wallet's requests keep their order: a wallet is in a message at most once, later requests wait
 * for the next message.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { turnstile } from "../../base/turns.js";
import type { LookaheadSnapshot } from "../keys/subaddress.js";
import type { WalletScanner } from "./pool.js";
import type { ScanBlockInput, ScanKeys, ScannedBlock, ScannedTx } from "./scan.js";
import type { BatchReply, BlockGroup, Hit, SharedScanMessage, SingleOp } from "./shared-worker.js";

export interface SharedScanStats {
  /** Wallets registered now. */
  wallets: number;
  /** scanBlocks calls of the wallets, and the blocks they asked for in total. */
  blockRequests: number;
  walletBlocks: number;
  /** Messages sent to the threads, block groups in them, and blocks parsed (once per group and thread). */
  batches: number;
  groups: number;
  blocksParsed: number;
  /** Key derivations made (wallets × tx public keys): each wallet needs its own; no sharing removes them. */
  derivations: number;
}

type Queued =
  | { readonly wid: number; readonly kind: "blocks"; readonly blocks: readonly ScanBlockInput[]; readonly resolve: (v: ScannedBlock[]) => void; readonly reject: (e: Error) => void }
  | { readonly wid: number; readonly kind: "single"; readonly req: SingleOp; readonly resolve: (v: unknown) => void; readonly reject: (e: Error) => void };

/** Identity numbers of block blobs, for grouping requests for the very same blocks. */
const blobIds = new WeakMap<Uint8Array, number>();
let nextBlobId = 1;
const blobId = (b: Uint8Array): number => {
  let id = blobIds.get(b);
  if (id === undefined) {
    id = nextBlobId++;
    blobIds.set(b, id);
  }
  return id;
};
const groupKey = (blocks: readonly ScanBlockInput[]): string => blocks.map((b) => `${b.height}:${blobId(b.blockBlob)}`).join(",");

/** Parsed blocks a thread keeps (wallets refreshing out of step scan the same blocks in different messages). */
const HELD_BLOCKS = 1024;

class ScanThread {
  private readonly worker: Worker;
  private queue: Queued[] = [];
  private inflight: { id: number; groups: Queued[][]; blockIds: number[][]; singles: Queued[] } | null = null;
  private scheduled = false;
  private nextId = 1;
  private dead: Error | null = null;
  private waiters: (() => void)[] = [];
  /** Replies not yet handed to their wallets (see deliver). */
  private undelivered = 0;
  private readonly turn = turnstile();
  /** Block ids the thread holds parsed, oldest first (it forgets those this side evicts). */
  private readonly held = new Set<number>();
  wallets = 0;

  constructor(private readonly stats: SharedScanStats) {
    this.worker = new Worker(new URL("./shared-worker.js", import.meta.url));
    this.worker.unref(); // an idle pool does not keep the process alive; a message in flight does (flush refs it)
    this.worker.on("message", (m: BatchReply) => this.onReply(m));
    const fail = (e: Error) => {
      this.dead ??= e;
      const f = this.inflight;
      this.inflight = null;
      for (const q of [...(f?.groups.flat() ?? []), ...(f?.singles ?? []), ...this.queue]) q.reject(this.dead);
      this.queue = [];
      this.wake();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`scan worker exited (code ${code})`)));
  }

  post(m: SharedScanMessage): void {
    if (!this.dead) this.worker.postMessage(m);
  }

  enqueue(q: Queued): void {
    if (this.dead) {
      q.reject(this.dead);
      return;
    }
    this.queue.push(q);
    this.schedule();
  }

  /** Sends on the next turn of the event loop, so wallets answered together (one shared fetch) go in one message. */
  private schedule(): void {
    if (this.inflight || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.inflight || this.dead || this.queue.length === 0) return;
    const inMessage = new Set<number>();
    const groups = new Map<string, Queued[]>();
    const singles: Queued[] = [];
    const later: Queued[] = [];
    for (const q of this.queue) {
      if (inMessage.has(q.wid)) {
        later.push(q);
        continue;
      }
      inMessage.add(q.wid);
      if (q.kind === "single") singles.push(q);
      else {
        const k = groupKey(q.blocks);
        const g = groups.get(k);
        if (g) g.push(q);
        else groups.set(k, [q]);
      }
    }
    this.queue = later;
    const id = this.nextId++;
    const gs = [...groups.values()];
    const used = new Set<number>();
    const groupsOut = gs.map((g): BlockGroup => {
      const blocks = (g[0] as Extract<Queued, { kind: "blocks" }>).blocks.map((input) => {
        const bid = blobId(input.blockBlob);
        used.add(bid);
        if (this.held.has(bid)) return { id: bid };
        this.held.add(bid);
        return { id: bid, input };
      });
      return { blocks, wallets: g.map((q) => q.wid) };
    });
    const evict: number[] = [];
    for (const bid of this.held) {
      if (this.held.size - evict.length <= HELD_BLOCKS) break;
      if (!used.has(bid)) evict.push(bid);
    }
    for (const bid of evict) this.held.delete(bid);
    const msg: SharedScanMessage = {
      kind: "batch",
      id,
      groups: groupsOut,
      singles: singles.map((q) => ({ wid: q.wid, req: (q as Extract<Queued, { kind: "single" }>).req })),
      evict,
    };
    this.inflight = { id, groups: gs, blockIds: groupsOut.map((g) => g.blocks.map((b) => b.id)), singles };
    this.stats.batches++;
    this.stats.groups += gs.length;
    this.worker.ref();
    this.worker.postMessage(msg);
  }

  private onReply(m: BatchReply): void {
    const f = this.inflight;
    if (!f || f.id !== m.id) return;
    this.inflight = null;
    this.worker.unref();
    this.stats.blocksParsed += m.parsed;
    this.stats.derivations += m.derived;
    const settle: (() => void)[] = [];
    f.groups.forEach((g, k) => {
      const r = m.groups[k];
      if (!r.ok) {
        for (const bid of f.blockIds[k]) this.held.delete(bid); // the thread may not hold them: send them again next time
        for (const q of g) settle.push(() => q.reject(new Error(`scan worker: ${r.error}`)));
        return;
      }
      const failed = new Map(r.failed.map((x) => [x.wid, x.error]));
      const hitsOf = new Map<number, Hit[]>();
      for (const h of r.hits) {
        const l = hitsOf.get(h.wid);
        if (l) l.push(h);
        else hitsOf.set(h.wid, [h]);
      }
      for (const q of g) {
        const err = failed.get(q.wid);
        if (err !== undefined) {
          settle.push(() => q.reject(new Error(`scan worker: ${err}`)));
          continue;
        }
        settle.push(() => {
          const blocks = r.blocks.slice();
          for (const h of hitsOf.get(q.wid) ?? []) {
            let b = blocks[h.b];
            if (b === r.blocks[h.b]) b = blocks[h.b] = { ...b, txs: b.txs.slice() };
            const shared = b.txs[h.t];
            (b.txs as ScannedTx[])[h.t] = { ...shared, received: h.d.received, rejected: h.d.rejected, paymentId: h.d.paymentId };
          }
          (q.resolve as (v: ScannedBlock[]) => void)(blocks);
        });
      }
    });
    f.singles.forEach((q, k) => {
      const r = m.singles[k];
      settle.push(r.ok ? () => (q.resolve as (v: unknown) => void)(r.result) : () => q.reject(new Error(`scan worker: ${r.error}`)));
    });
    this.deliver(settle);
    this.schedule();
  }

  /**
   * Hands replies to their wallets one per turn of the event loop. Each wallet's continuation (its
   * ledger applying the blocks, its store, its events) runs as microtasks right after its promise
   * settles; settled all at once, a thousand wallets' continuations held the loop for 1.6 s, and
   * every RPC call waited. One per setImmediate lets I/O in between.
   */
  private deliver(settle: (() => void)[]): void {
    this.undelivered += settle.length;
    for (const f of settle) {
      void this.turn().then(() => {
        this.undelivered--;
        f();
        if (this.isIdle) this.wake();
      });
    }
    if (settle.length === 0 && this.isIdle) this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  get isIdle(): boolean {
    return this.dead !== null || (!this.inflight && this.queue.length === 0 && !this.scheduled && this.undelivered === 0);
  }

  /** Resolves once this thread has nothing queued or under way (at once if so now, or if it is dead). */
  idle(): Promise<void> {
    if (this.isIdle) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  /** Rejects the queued requests of wallet `wid` (it is closing). */
  drop(wid: number, e: Error): void {
    const keep: Queued[] = [];
    for (const q of this.queue) {
      if (q.wid === wid) q.reject(e);
      else keep.push(q);
    }
    this.queue = keep;
  }

  async close(): Promise<void> {
    this.dead ??= new Error("scan pool closed");
    await this.worker.terminate();
  }
}

/** `threads` scan worker threads for any number of wallets. */
export class SharedScanPool {
  private readonly threads: ScanThread[];
  private nextWid = 1;
  readonly stats: SharedScanStats = { wallets: 0, blockRequests: 0, walletBlocks: 0, batches: 0, groups: 0, blocksParsed: 0, derivations: 0 };

  constructor(readonly threadCount = Math.max(1, Math.min(availableParallelism(), 8))) {
    this.threads = Array.from({ length: threadCount }, () => new ScanThread(this.stats));
  }

  /** A wallet's scanner on the least loaded thread. */
  register(keys: ScanKeys): WalletScanner {
    const thread = this.threads.reduce((a, b) => (b.wallets < a.wallets ? b : a));
    const wid = this.nextWid++;
    thread.wallets++;
    this.stats.wallets++;
    thread.post({ kind: "add", wid, keys });
    let closed: Error | null = null;
    const stats = this.stats;
    const single = <T>(req: SingleOp): Promise<T> =>
      closed ? Promise.reject(closed) : new Promise<T>((resolve, reject) => thread.enqueue({ wid, kind: "single", req, resolve: resolve as (v: unknown) => void, reject }));
    return {
      scanBlocks(blocks) {
        if (closed) return Promise.reject(closed);
        stats.blockRequests++;
        stats.walletBlocks += blocks.length;
        return new Promise((resolve, reject) => thread.enqueue({ wid, kind: "blocks", blocks, resolve, reject }));
      },
      scanPool: (txs) => single<ScannedTx[]>({ op: "pool", txs }),
      expand: async (major, minor) => {
        await single<null>({ op: "expand", major, minor });
      },
      setLookahead: async (major, minor) => {
        await single<null>({ op: "lookahead", major, minor });
      },
      snapshot: () => single<LookaheadSnapshot>({ op: "snapshot" }),
      close: async () => {
        if (closed) return;
        closed = new Error("scan worker closed");
        thread.drop(wid, closed);
        thread.post({ kind: "remove", wid });
        thread.wallets--;
        stats.wallets--;
      },
    };
  }

  /** Resolves once no thread has work queued or under way (every registered wallet's scanner is built then, and its table adopted). */
  async idle(): Promise<void> {
    for (;;) {
      await Promise.all(this.threads.map((t) => t.idle()));
      await new Promise((r) => setImmediate(r)); // a reply's continuations may queue more
      if (this.threads.every((t) => t.isIdle)) return;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}
