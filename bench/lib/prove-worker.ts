/**
 * A worker thread of bench/lib/big-chain.ts: proves one RingCT tx (CLSAG + BP+) per message, so the
 * builder proves a block's txs on every core. Message: { id, prefix, inputs, outputs, fee } (structured
 * clones of what proveRctClsagBpp takes); answer: { id, rct } or { id, error }.
 */
import { parentPort } from "node:worker_threads";
import { defaultBackend } from "../../src/crypto/index.js";
import { proveRctClsagBpp, type RctInputSecret } from "../../src/crypto/ringct/prove.js";
import type { RctSigLike } from "../../src/crypto/ringct/verify.js";
import type { RctSignatures } from "../../src/protocol/rct.js";
import { serializeRctBase, type Transaction } from "../../src/protocol/tx.js";
import { txPrefixHash } from "../../src/protocol/tx-hash.js";

export interface ProveRequest {
  id: number;
  prefix: Transaction;
  inputs: RctInputSecret[];
  outputs: { amount: bigint; mask: Uint8Array; encryptedAmount: Uint8Array }[];
  fee: bigint;
}

export type ProveAnswer = { id: number; rct: RctSigLike } | { id: number; error: string };

const be = defaultBackend();
parentPort?.on("message", (m: ProveRequest) => {
  try {
    const { rct } = proveRctClsagBpp(be, {
      prefixHash: txPrefixHash(m.prefix, be),
      inputs: m.inputs,
      outputs: m.outputs,
      fee: m.fee,
      serializeBase: (x: RctSigLike) => serializeRctBase({ ...m.prefix, rct: x as RctSignatures }),
    });
    parentPort?.postMessage({ id: m.id, rct } satisfies ProveAnswer);
  } catch (e) {
    parentPort?.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) } satisfies ProveAnswer);
  }
});
