/**
 * RingCT verification off the event loop: a small pool of worker threads (verify-worker.ts), each
 * request a batch (e.g. a block's transactions) answered with one boolean. Workers are started
 * lazily and do not keep the process alive while idle. A worker that dies (uncaught exception, out
 * of memory, terminated) is not a verdict on what it was verifying: the crash is reported through
 * `onCrash`, a fresh worker takes the slot and each request it held is sent once more; a request
 * whose second worker dies too is rejected with VerifyWorkerCrashError.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { RctVerifyItem } from "./verify.js";
import type { RctVerifyMode, RctVerifyReply, RctVerifyRequest } from "./verify-worker.js";

export type { RctVerifyMode } from "./verify-worker.js";

interface Pending {
  resolve(ok: boolean): void;
  reject(err: Error): void;
  req: RctVerifyRequest;
  /** Crashes seen by this request so far. */
  crashes: number;
}

/** Young-generation limit of each verify worker (MiB). */
const VERIFY_WORKER_YOUNG_MB = 6;

/** The verification could not be carried out: its worker thread died twice. Not a verdict on the data. */
export class VerifyWorkerCrashError extends Error {
  override name = "VerifyWorkerCrashError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface RctVerifyPoolOptions {
  /** Called for every worker crash, with its cause and whether the requests it held are retried. */
  onCrash?: (cause: Error, retrying: boolean) => void;
}

/**
 * Test hook: TSMONERO_TEST_VERIFY_WORKER_CRASHES=<n> or <mode>:<n> (mode full, semantics or
 * signatures) makes the next n requests (of that mode) crash their worker with an uncaught
 * exception in the thread. Read once per pool; nothing else sets it.
 */
function testCrashBudget(): { mode: RctVerifyMode | undefined; left: number } {
  const m = /^(?:(full|semantics|signatures):)?(\d+)$/.exec(process.env.TSMONERO_TEST_VERIFY_WORKER_CRASHES ?? "");
  return m ? { mode: m[1] as RctVerifyMode | undefined, left: Number(m[2]) } : { mode: undefined, left: 0 };
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

export class RctVerifyPool {
  private readonly slots: (Slot | null)[];
  private next = 0;
  private nextId = 1;
  private closed = false;
  private readonly onCrash: ((cause: Error, retrying: boolean) => void) | undefined;
  private crashBudget = testCrashBudget();

  /** `size` worker threads (default: one fewer than the CPUs, at least one). */
  constructor(size = Math.max(1, availableParallelism() - 1), opts: RctVerifyPoolOptions = {}) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError("RctVerifyPool: size must be a positive integer");
    this.slots = new Array<Slot | null>(size).fill(null);
    this.onCrash = opts.onCrash;
  }

  private slot(i: number): Slot {
    const have = this.slots[i];
    if (have) return have;
    // a small young generation: the worker's garbage is per-tx scratch, and V8's default (up to 16 MiB
    // semi-spaces) stays resident after a sync (14 MiB of daemon RSS on the 650-block bench chain)
    const worker = new Worker(new URL("./verify-worker.js", import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: VERIFY_WORKER_YOUNG_MB } });
    const slot: Slot = { worker, pending: new Map() };
    worker.unref();
    // the first report of a death wins ('error' carries the cause; the 'exit' after it adds nothing)
    let dead = false;
    const crashed = (err: Error): void => {
      if (dead) return;
      dead = true;
      if (this.slots[i] === slot) this.slots[i] = null;
      const waiting = [...slot.pending.values()];
      slot.pending.clear();
      if (this.closed) {
        for (const p of waiting) p.reject(err);
        return;
      }
      const retry = waiting.filter((p) => p.crashes === 0);
      this.onCrash?.(err, retry.length > 0);
      for (const p of waiting) {
        p.crashes++;
        if (p.crashes > 1) {
          p.reject(new VerifyWorkerCrashError(`the RingCT verify worker died twice while verifying (${err.message})`, { cause: err }));
          continue;
        }
        // once more on a fresh worker in the same slot
        try {
          this.send(i, p);
        } catch (e) {
          p.reject(new VerifyWorkerCrashError(`the RingCT verify worker could not be restarted (${e instanceof Error ? e.message : String(e)})`, { cause: err }));
        }
      }
    };
    worker.on("message", (reply: RctVerifyReply) => {
      const p = slot.pending.get(reply.id);
      if (!p) return;
      slot.pending.delete(reply.id);
      if (slot.pending.size === 0) worker.unref();
      if ("ok" in reply) p.resolve(reply.ok);
      else p.reject(new Error(`${reply.error.name}: ${reply.error.message}`));
    });
    worker.on("error", (e) => crashed(e instanceof Error ? e : new Error(String(e))));
    worker.on("exit", (code) => crashed(new Error(`ringct verify worker exited (code ${code})`)));
    this.slots[i] = slot;
    return slot;
  }

  /**
   * Verifies a batch in a worker: true only when every item is valid (see verifyRctBatch). Rejects
   * with VerifyWorkerCrashError when the worker died on it twice (no verdict), with another Error
   * when the verification threw.
   */
  verify(items: readonly RctVerifyItem[], mode: RctVerifyMode = "full"): Promise<boolean> {
    const i = this.next;
    this.next = (this.next + 1) % this.slots.length;
    return new Promise<boolean>((resolve, reject) => {
      const req: RctVerifyRequest = { id: this.nextId++, mode, items: [...items] };
      try {
        this.send(i, { resolve, reject, req, crashes: 0 });
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  private send(i: number, p: Pending): void {
    const slot = this.slot(i);
    slot.pending.set(p.req.id, p);
    slot.worker.ref();
    // the test hook's budget is spent per send: a retry may crash again
    const crash = this.crashBudget.left > 0 && (this.crashBudget.mode === undefined || this.crashBudget.mode === p.req.mode);
    if (crash) this.crashBudget.left--;
    slot.worker.postMessage(crash ? { ...p.req, crash } : p.req);
  }

  /** Verifies each item on its own, spread over the workers; one result per item. */
  verifyEach(items: readonly RctVerifyItem[]): Promise<boolean[]> {
    return Promise.all(items.map((it) => this.verify([it])));
  }

  /** Stops every worker; pending requests are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.filter((s): s is Slot => s !== null);
    this.slots.fill(null);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
