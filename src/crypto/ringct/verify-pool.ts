/**
 * RingCT verification off the event loop: a small pool of worker threads (verify-worker.ts), each
 * request a batch (e.g. a block's transactions) answered with one boolean. Workers are started
 * lazily, do not keep the process alive while idle, and a crashed worker fails only its own
 * pending requests.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { RctVerifyItem } from "./verify.js";
import type { RctVerifyMode, RctVerifyReply, RctVerifyRequest } from "./verify-worker.js";

export type { RctVerifyMode } from "./verify-worker.js";

interface Pending {
  resolve(ok: boolean): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

export class RctVerifyPool {
  private readonly slots: (Slot | null)[];
  private next = 0;
  private nextId = 1;

  /** `size` worker threads (default: one fewer than the CPUs, at least one). */
  constructor(size = Math.max(1, availableParallelism() - 1)) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError("RctVerifyPool: size must be a positive integer");
    this.slots = new Array<Slot | null>(size).fill(null);
  }

  private slot(i: number): Slot {
    const have = this.slots[i];
    if (have) return have;
    const worker = new Worker(new URL("./verify-worker.js", import.meta.url));
    const slot: Slot = { worker, pending: new Map() };
    worker.unref();
    const failAll = (err: Error): void => {
      if (this.slots[i] === slot) this.slots[i] = null;
      const waiting = [...slot.pending.values()];
      slot.pending.clear();
      for (const p of waiting) p.reject(err);
    };
    worker.on("message", (reply: RctVerifyReply) => {
      const p = slot.pending.get(reply.id);
      if (!p) return;
      slot.pending.delete(reply.id);
      if (slot.pending.size === 0) worker.unref();
      if ("ok" in reply) p.resolve(reply.ok);
      else p.reject(new Error(`${reply.error.name}: ${reply.error.message}`));
    });
    worker.on("error", failAll);
    worker.on("exit", (code) => failAll(new Error(`ringct verify worker exited (code ${code})`)));
    this.slots[i] = slot;
    return slot;
  }

  /** Verifies a batch in a worker: true only when every item is valid (see verifyRctBatch). */
  verify(items: readonly RctVerifyItem[], mode: RctVerifyMode = "full"): Promise<boolean> {
    const i = this.next;
    this.next = (this.next + 1) % this.slots.length;
    return new Promise<boolean>((resolve, reject) => {
      let slot: Slot;
      try {
        slot = this.slot(i);
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
        return;
      }
      const id = this.nextId++;
      slot.pending.set(id, { resolve, reject });
      slot.worker.ref();
      const req: RctVerifyRequest = { id, mode, items: [...items] };
      slot.worker.postMessage(req);
    });
  }

  /** Verifies each item on its own, spread over the workers; one result per item. */
  verifyEach(items: readonly RctVerifyItem[]): Promise<boolean[]> {
    return Promise.all(items.map((it) => this.verify([it])));
  }

  /** Stops every worker; pending requests are rejected. */
  async close(): Promise<void> {
    const slots = this.slots.filter((s): s is Slot => s !== null);
    this.slots.fill(null);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
