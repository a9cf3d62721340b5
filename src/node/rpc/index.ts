/**
 * tsmonerod's RPC surface: every monerod v0.18 JSON-RPC method, JSON path and .bin path, declared
 * on one MethodTable (src/rpc) over a NodeCore (node/core.ts) and the daemon's own state. The
 * JSON-RPC methods and JSON paths are declared with defineJsonRpc / defineJsonPath in the groups
 * of NODE_METHOD_GROUPS, which also give the typed client its map (api.ts); .bin paths in bin.ts.
 */
import { MethodTable } from "../../rpc/methods.js";
import { addBinMethods } from "./bin.js";
import { chainMethods } from "./chain.js";
import { type NodeRpcDeps, register } from "./common.js";
import { controlMethods } from "./control.js";
import { NODE_DOCS } from "./docs.js";
import { miningMethods } from "./mining.js";
import { txMethods } from "./txs.js";

export type { NodeRpcDeps } from "./common.js";
export { NODE_DOCS } from "./docs.js";
export { DaemonState, DEFAULT_LOG_CATEGORIES, LOG_LEVEL_CATEGORIES } from "./state.js";
export { CORE_RPC_VERSION, MONERO_VERSION_FULL, getInfo, outputDistribution } from "./chain.js";
export { primeNewBlockEntries } from "./bin.js";

/**
 * Every group of JSON-RPC methods and JSON paths, in table order. A new group goes here; its
 * declarations (defineJsonRpc, defineJsonPath) join NodeRpcApi / NodePathApi by themselves.
 */
export const NODE_METHOD_GROUPS = [chainMethods, txMethods, miningMethods, controlMethods] as const;

/** The node's method table (monerod's error policy: restricted methods are hidden on restricted servers). */
export function nodeMethods(deps: NodeRpcDeps): MethodTable {
  const t = new MethodTable({ docs: NODE_DOCS });
  for (const group of NODE_METHOD_GROUPS) register(t, group(deps));
  addBinMethods(t, deps);
  return t;
}
