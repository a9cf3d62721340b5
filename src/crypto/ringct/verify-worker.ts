/**
 * Worker-thread entry for verify-pool.ts: verifies RingCT batches with the process's default
 * backend (the C kernel when it loads; the addon is safe to load in several threads) and posts
 * one boolean per request back.
 */
import { parentPort } from "node:worker_threads";
import { defaultBackend } from "../index.js";
import { type RctVerifyItem, verifyRctBatch, verifyRctNonSemantics, verifyRctSemantics } from "./verify.js";

/** What to check: everything (batch), only semantics (range proofs + balance) or only signatures. */
export type RctVerifyMode = "full" | "semantics" | "signatures";

export interface RctVerifyRequest {
  readonly id: number;
  readonly mode: RctVerifyMode;
  readonly items: RctVerifyItem[];
  /** Test hook (TSMONERO_TEST_VERIFY_WORKER_CRASHES): the thread dies of an uncaught exception instead of answering. */
  crash?: boolean;
}

export type RctVerifyReply =
  | { readonly id: number; readonly ok: boolean }
  | { readonly id: number; readonly error: { readonly name: string; readonly message: string } };

const port = parentPort;
if (!port) throw new Error("ringct verify worker: must run as a worker thread");
const backend = defaultBackend();

port.on("message", (req: RctVerifyRequest) => {
  if (req.crash) {
    setImmediate(() => {
      throw new Error("test crash of the verify worker (TSMONERO_TEST_VERIFY_WORKER_CRASHES)");
    });
    return;
  }
  let reply: RctVerifyReply;
  try {
    const ok =
      req.mode === "semantics"
        ? verifyRctSemantics(backend, req.items.map((i) => i.rct))
        : req.mode === "signatures"
          ? req.items.every((i) => verifyRctNonSemantics(backend, i))
          : verifyRctBatch(backend, req.items);
    reply = { id: req.id, ok };
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    reply = { id: req.id, error: { name: err.name, message: err.message } };
  }
  port.postMessage(reply);
});
