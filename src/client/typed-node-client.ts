/**
 * TypedNodeClient: calls a node (monerod, or tsmonerod) with checked params and typed results: its
 * JSON-RPC methods with `call`, its plain JSON paths with `path`, given the maps of the node's
 * definitions (NodeRpcApi, NodePathApi in src/node/rpc/api.ts, derived from the node's method
 * table; `nodeClient()` there). The .bin paths stay on NodeClient's typed methods (`transport`).
 *
 * ```ts
 * import { nodeClient } from "tsmonero/node";            // = new TypedNodeClient<NodeRpcApi, NodePathApi>(…)
 * const n = nodeClient({ url: "http://127.0.0.1:18081" });
 * const h = await n.call("get_block_header_by_height", { height: 1 });   // h.block_header.hash: string
 * const t = await n.path("/get_transactions", { txs_hashes: [id], decode_as_json: true });
 * await n.call("get_block_header_by_heigth", { height: 1 });            // does not compile
 * await n.call("get_block_header_by_height", { height: "1" });          // does not compile
 * ```
 *
 * An RpcClient (rpc-client.ts): digest auth, TLS, timeouts as NodeClient; a call is retried after a
 * connection failure only when marked `idempotent`.
 */
import { type RpcApi, RpcClient } from "./rpc-client.js";

export class TypedNodeClient<Api extends RpcApi = RpcApi, Paths extends RpcApi = RpcApi> extends RpcClient<Api, Paths> {}
