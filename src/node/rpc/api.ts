/**
 * NodeRpcApi and NodePathApi: tsmonerod's JSON-RPC methods and plain JSON paths by name, with the
 * params type each handler reads and the result type it answers, derived from the declarations
 * (index.ts's NODE_METHOD_GROUPS, each declared with defineJsonRpc / defineJsonPath): a method
 * declared there is in the map by itself. `nodeClient()` is the typed client over both
 * (src/client/typed-node-client.ts). Aliases are not in the maps: call canonical names. (NodeApi,
 * in src/client/node-client.ts, is another thing: the node calls the wallet depends on.)
 */
import type { NodeClientOptions } from "../../client/node-client.js";
import type { LooseResults, RpcApi } from "../../client/rpc-client.js";
import { TypedNodeClient } from "../../client/typed-node-client.js";
import type { TypedJsonPath, TypedJsonRpc } from "./common.js";
import type { NODE_METHOD_GROUPS } from "./index.js";

type Declared = ReturnType<(typeof NODE_METHOD_GROUPS)[number]>[number];

/** Names a declaration keeps (one whose name was widened to string gives none). */
type RpcNameOf<D> = D extends TypedJsonRpc<infer N, unknown, unknown> ? (string extends N ? never : N) : never;
type PathOf<D> = D extends TypedJsonPath<infer N, unknown, unknown> ? (string extends N ? never : N) : never;

type RpcEntryOf<D, K> = D extends TypedJsonRpc<infer N, infer P, infer R> ? (K extends N ? { readonly params: P; readonly result: R } : never) : never;
type PathEntryOf<D, K> = D extends TypedJsonPath<infer N, infer P, infer R> ? (K extends N ? { readonly params: P; readonly result: R } : never) : never;

/** tsmonerod's JSON-RPC methods (POST /json_rpc). */
export type NodeRpcApi = { readonly [K in RpcNameOf<Declared>]: RpcEntryOf<Declared, K> };

/** tsmonerod's plain JSON paths (POST /get_transactions …). */
export type NodePathApi = { readonly [K in PathOf<Declared>]: PathEntryOf<Declared, K> };

/** Every JSON-RPC method name of the node. */
export type NodeRpcMethod = keyof NodeRpcApi & string;

/** Every JSON path of the node. */
export type NodePath = keyof NodePathApi & string;

/** A client of any node (monerod or tsmonerod) with NodeRpcApi's and NodePathApi's checked params and typed results. */
export function nodeClient(opts: NodeClientOptions): TypedNodeClient<NodeRpcApi, NodePathApi> {
  return new TypedNodeClient<NodeRpcApi, NodePathApi>(opts);
}

// the maps must stay valid RpcApi maps whose results have their own fields (a compile error here
// means a declaration lost its types, or a handler answers a loose Record: give it its answer's type)
const _rpc: RpcApi = {} as NodeRpcApi;
const _paths: RpcApi = {} as NodePathApi;
const _looseRpc: [LooseResults<NodeRpcApi>] extends [never] ? true : LooseResults<NodeRpcApi> = true;
const _loosePaths: [LooseResults<NodePathApi>] extends [never] ? true : LooseResults<NodePathApi> = true;
void [_rpc, _paths, _looseRpc, _loosePaths];
