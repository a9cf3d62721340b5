/**
 * Calling a node (tsmonerod or the real monerod) from tests through the typed node client
 * (nodeClient: NodeRpcApi's and NodePathApi's checked params and typed results), as any caller of
 * the package would. Deliberately wrong calls (unknown methods, bad params) stay raw: `call` / `rpc`
 * of wallet-rpc.ts, or fetch.
 */
import assert from "node:assert/strict";
import { NodeRpcError } from "../../src/client/node-client.js";
import type { WireIn, WireOut } from "../../src/client/rpc-client.js";
import { nodeClient, type NodePath, type NodePathApi, type NodeRpcApi, type NodeRpcMethod } from "../../src/node/rpc/api.js";
import { CALL_TIMEOUT_MS, CallError } from "./wallet-rpc.js";

export type NodeParams<M extends NodeRpcMethod> = WireIn<NodeRpcApi[M]["params"]>;
export type NodeResult<M extends NodeRpcMethod> = WireOut<NodeRpcApi[M]["result"]>;
export type PathBody<P extends NodePath> = WireIn<NodePathApi[P]["params"]>;
export type PathResult<P extends NodePath> = WireOut<NodePathApi[P]["result"]>;

const clients = new Map<string, ReturnType<typeof nodeClient>>();

/**
 * One call through the client of `url`, kept per url as fetch kept its connections (see
 * wallet-rpc.ts's typedCall: a monerod that blocked this host still answers on a connection it
 * accepted before); `params` default to {}.
 */
function withClient<R>(url: string, f: (c: ReturnType<typeof nodeClient>) => Promise<R>): Promise<R> {
  let c = clients.get(url);
  if (!c) clients.set(url, (c = nodeClient({ url, timeoutMs: CALL_TIMEOUT_MS })));
  return f(c);
}

/** One typed JSON-RPC call to a node; the whole answer (result or error). */
export async function nodeRpc<M extends NodeRpcMethod>(url: string, method: M, params?: NodeParams<M>): Promise<{ result?: NodeResult<M>; error?: { code: number; message: string } }> {
  try {
    return { result: await withClient(url, (c) => c.call(method, params ?? ({} as NodeParams<M>))) };
  } catch (e) {
    if (e instanceof NodeRpcError) return { error: { code: e.code, message: e.rpcMessage } };
    throw e;
  }
}

/** One typed JSON-RPC call to a node that must succeed; its result (CallError on an error answer). */
export async function nodeCall<M extends NodeRpcMethod>(url: string, method: M, params?: NodeParams<M>): Promise<NodeResult<M>> {
  const a = await nodeRpc(url, method, params);
  if (a.error) throw new CallError(a.error.code, `${url} ${method}: ${a.error.code} ${a.error.message}`);
  assert.ok(a.result !== undefined);
  return a.result;
}

/** One typed POST to a node's JSON path (e.g. "/get_transactions"); the parsed answer. */
export function nodePath<P extends NodePath>(url: string, path: P, body?: PathBody<P>): Promise<PathResult<P>> {
  return withClient(url, (c) => c.path(path, body));
}

/**
 * Mines blocks to `address` until the tx `txid` is in the chain, one at a time (at most `tries`):
 * monerod leaves a tx it relays out of block templates while Dandelion++ keeps it in the stem
 * phase, and makes it public on its own timer even offline, so on a busy machine the first block
 * after a send may not hold it. Returns the blocks mined.
 */
export async function mineUntilMined(url: string, txid: string, address: string, tries = 25): Promise<number> {
  for (let mined = 1; mined <= tries; mined++) {
    await nodeCall(url, "generateblocks", { amount_of_blocks: 1, wallet_address: address });
    const r = await nodePath(url, "/get_transactions", { txs_hashes: [txid] });
    const t = (r.txs ?? [])[0];
    if (t !== undefined && t.in_pool === false) return mined;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`tx ${txid} still not in a block after ${tries} blocks`);
}
