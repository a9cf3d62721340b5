/**
 * Monero's cn_slow_hash (CryptoNight, src/crypto/slow-hash.c), variants 0, 1, 2 and 4 (CryptoNight-R), in pure
 * TypeScript. One hash takes on the order of 100 ms of CPU and 2 MiB of memory.
 *
 * - `cnSlowHashSync` runs on the calling thread: for tools, tests and one-off calls.
 * - `cnSlowHash` runs in a worker thread and never blocks the event loop. One worker is created
 *   on first use and serves requests in order; it is referenced only while requests are pending,
 *   so an idle worker never keeps the process alive, and a pending request does (its promise
 *   settles before the process exits).
 */
import { Worker } from "node:worker_threads";
import { type CnVariant, cryptonight } from "./cryptonight/cryptonight.js";
import type { SlowHashReply, SlowHashRequest } from "./cryptonight/worker.js";

export type { CnVariant } from "./cryptonight/cryptonight.js";

function checkArgs(data: Uint8Array, variant: CnVariant): void {
  if (!(data instanceof Uint8Array)) throw new TypeError("cnSlowHash: data must be a Uint8Array");
  if (variant !== 0 && variant !== 1 && variant !== 2 && variant !== 4) throw new RangeError(`cnSlowHash: variant ${String(variant)} is not implemented`);
  if (variant === 1 && data.length < 43) throw new RangeError("cnSlowHash: variant 1 needs at least 43 bytes of data");
}

/** CryptoNight of `data` on the calling thread (blocks it for the whole hash); `height` for variant 4. */
export function cnSlowHashSync(data: Uint8Array, variant: CnVariant = 0, height: bigint | number = 0): Uint8Array {
  checkArgs(data, variant);
  return cryptonight(data, variant, height);
}

interface Pending {
  resolve(hash: Uint8Array): void;
  reject(err: Error): void;
}

/** A worker and the requests it owes answers to. */
interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

let current: Slot | null = null;
let nextId = 1;

function failAll(slot: Slot, err: Error): void {
  if (current === slot) current = null;
  const waiting = [...slot.pending.values()];
  slot.pending.clear();
  for (const p of waiting) p.reject(err);
}

function getSlot(): Slot {
  if (current) return current;
  const w = new Worker(new URL("./cryptonight/worker.js", import.meta.url));
  const slot: Slot = { worker: w, pending: new Map() };
  w.unref();
  w.on("message", (reply: SlowHashReply) => {
    const p = slot.pending.get(reply.id);
    if (!p) return;
    slot.pending.delete(reply.id);
    if (slot.pending.size === 0) w.unref();
    if ("hash" in reply) {
      p.resolve(reply.hash);
    } else {
      const err = reply.error.name === "RangeError" ? new RangeError(reply.error.message) : new Error(reply.error.message);
      p.reject(err);
    }
  });
  w.on("error", (err) => failAll(slot, err));
  w.on("exit", (code) => failAll(slot, new Error(`cnSlowHash: worker exited (code ${code})`)));
  current = slot;
  return slot;
}

/** CryptoNight of `data`, computed in a worker thread; `height` (the block's) for variant 4. */
export function cnSlowHash(data: Uint8Array, variant: CnVariant = 0, height: bigint | number = 0): Promise<Uint8Array> {
  try {
    checkArgs(data, variant);
  } catch (e) {
    return Promise.reject(e);
  }
  return new Promise<Uint8Array>((resolve, reject) => {
    const slot = getSlot();
    const id = nextId++;
    slot.pending.set(id, { resolve, reject });
    slot.worker.ref();
    const req: SlowHashRequest = { id, data: Uint8Array.from(data), variant, height: BigInt(height) };
    slot.worker.postMessage(req, [req.data.buffer as ArrayBuffer]);
  });
}

/** Stops the worker, if any (pending requests are rejected). A later call starts a new one. */
export async function closeSlowHashWorker(): Promise<void> {
  const slot = current;
  if (!slot) return;
  current = null;
  await slot.worker.terminate();
}
