/**
 * Key-exchange steps off the main thread: a large group's round (up to C(15, 7) keys per message,
 * each checked and combined) takes seconds, so make_multisig and exchange_multisig_keys run in a
 * one-shot worker thread and the RPC server stays responsive. `runKexStep` is the main-thread side;
 * a refused message comes back as the same MultisigError.
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { type BackendName, getBackend } from "../../crypto/index.js";
import type { WalletKeysData } from "../files/index.js";
import { exchangeMultisigKeys, type KexStep, makeMultisig } from "./kex.js";
import { MultisigError } from "./kex-msg.js";

/** One step: make_multisig (round 1) or exchange_multisig_keys. */
export type KexRequest =
  | { readonly op: "make"; readonly backend: BackendName; readonly keys: WalletKeysData; readonly msgs: readonly string[]; readonly threshold: number }
  | { readonly op: "exchange"; readonly backend: BackendName; readonly keys: WalletKeysData; readonly msgs: readonly string[] };

type KexReply = { readonly ok: true; readonly step: KexStep } | { readonly ok: false; readonly multisig: boolean; readonly error: string };

function run(req: KexRequest): KexStep {
  const b = getBackend(req.backend);
  return req.op === "make" ? makeMultisig(b, req.keys, req.msgs, req.threshold) : exchangeMultisigKeys(b, req.keys, req.msgs);
}

/** Runs one key-exchange step in a worker thread. */
export function runKexStep(req: KexRequest): Promise<KexStep> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL("./kex-worker.js", import.meta.url), { workerData: req });
    let done = false;
    w.once("message", (m: KexReply) => {
      done = true;
      if (m.ok) resolve(m.step);
      else reject(m.multisig ? new MultisigError(m.error) : new Error(`multisig worker: ${m.error}`));
      void w.terminate();
    });
    w.once("error", (e) => {
      if (!done) reject(e);
      done = true;
    });
    w.once("exit", (code) => {
      if (!done) reject(new Error(`multisig worker exited (code ${code})`));
      done = true;
    });
  });
}

if (!isMainThread && parentPort && (workerData as { op?: string } | null)?.op !== undefined) {
  const port = parentPort;
  let reply: KexReply;
  try {
    reply = { ok: true, step: run(workerData as KexRequest) };
  } catch (e) {
    reply = { ok: false, multisig: e instanceof MultisigError, error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply);
}
