/**
 * tsmonerod's RPC surface: every monerod v0.18 JSON-RPC method, JSON path and .bin path, declared
 * on one MethodTable (src/rpc) over a NodeCore (node/core.ts) and the daemon's own state.
 */
import { MethodTable } from "../../rpc/methods.js";
import { addBinMethods } from "./bin.js";
import { addChainMethods } from "./chain.js";
import type { NodeRpcDeps } from "./common.js";
import { addControlMethods } from "./control.js";
import { NODE_DOCS } from "./docs.js";
import { addMiningMethods } from "./mining.js";
import { addTxMethods } from "./txs.js";

export type { NodeRpcDeps } from "./common.js";
export { NODE_DOCS } from "./docs.js";
export { DaemonState, DEFAULT_LOG_CATEGORIES, LOG_LEVEL_CATEGORIES } from "./state.js";
export { CORE_RPC_VERSION, MONERO_VERSION_FULL, getInfo, outputDistribution } from "./chain.js";

/** The node's method table (monerod's error policy: restricted methods are hidden on restricted servers). */
export function nodeMethods(deps: NodeRpcDeps): MethodTable {
  const t = new MethodTable({ docs: NODE_DOCS });
  addChainMethods(t, deps);
  addTxMethods(t, deps);
  addMiningMethods(t, deps);
  addControlMethods(t, deps);
  addBinMethods(t, deps);
  return t;
}
