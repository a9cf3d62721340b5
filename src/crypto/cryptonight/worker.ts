/**
 * Worker-thread entry for ../slow-hash.ts: hashes requests one at a time and posts the results
 * back, so the CPU-bound CryptoNight never runs on a service's event loop.
 */
import { parentPort } from "node:worker_threads";
import { type CnVariant, cryptonight } from "./cryptonight.js";

/** A request from the main thread. */
export interface SlowHashRequest {
  readonly id: number;
  readonly data: Uint8Array;
  readonly variant: CnVariant;
  /** The block height (variant 4's random program). */
  readonly height: bigint;
}

/** The worker's answer: the hash, or the error's name and message. */
export type SlowHashReply =
  | { readonly id: number; readonly hash: Uint8Array }
  | { readonly id: number; readonly error: { readonly name: string; readonly message: string } };

const port = parentPort;
if (!port) throw new Error("cryptonight worker: must run as a worker thread");

port.on("message", (req: SlowHashRequest) => {
  let reply: SlowHashReply;
  try {
    reply = { id: req.id, hash: cryptonight(req.data, req.variant, req.height) };
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    reply = { id: req.id, error: { name: err.name, message: err.message } };
  }
  if ("hash" in reply) port.postMessage(reply, [reply.hash.buffer as ArrayBuffer]);
  else port.postMessage(reply);
});
