/**
 * RpcClient: a JSON-RPC (and JSON path) client of an epee RPC server whose method map — params and
 * results per method — is given as a type. The maps live with each service's definitions
 * (WalletApi in src/wallet/rpc/api.ts, NodeRpcApi and NodePathApi in src/node/rpc/api.ts, each
 * derived from the service's method table): this layer stays below the services and only knows a
 * map's shape. WalletClient (wallet-client.ts) and TypedNodeClient (typed-node-client.ts) are it.
 *
 * Transport, digest auth, TLS and timeouts are NodeClient's (the same epee HTTP client). A JSON-RPC
 * error answer throws NodeRpcError (`code`, `rpcMessage`); no connection throws
 * NoDaemonConnectionError.
 */
import type { JsonValue, JsonWritable, Prerendered } from "../rpc/json.js";
import { type CallOptions, NodeClient, type NodeClientOptions } from "./node-client.js";

/** One method of a service's map: the params its handler reads and the result it answers. */
export interface RpcApiEntry {
  readonly params: unknown;
  readonly result: unknown;
}

/** A service's methods (or paths) by name. */
export type RpcApi = { readonly [method: string]: RpcApiEntry };

/**
 * What a caller may send for a handler's params type: every field may be left out (epee's
 * defaults), u64 fields take a bigint or a number.
 */
export type WireIn<T> = T extends bigint
  ? bigint | number
  : T extends string | number | boolean | null | undefined
    ? T
    : T extends readonly (infer U)[]
      ? readonly WireIn<U>[]
      : T extends object
        ? { readonly [K in keyof T]?: WireIn<T[K]> }
        : T;

/**
 * What a caller gets for a handler's result type: u64 values come back as a number below 2^53, a
 * bigint above; a prerendered value as what it holds (any JSON when its type was not kept). Where
 * a handler answers objects of different shapes (an error status without the lists, say), each
 * shape gets the others' fields as absent, so that `r.txs` reads `… | undefined` on the union.
 */
export type WireOut<T, All = T> = T extends bigint
  ? bigint | number
  : T extends Prerendered<infer V>
    ? JsonWritable extends V
      ? JsonValue
      : WireOut<V>
    : T extends string | number | boolean | null | undefined
      ? T
      : T extends readonly (infer U)[]
        ? WireOut<U>[]
        : T extends object
          ? [Exclude<ObjectKeys<All>, keyof T>] extends [never]
            ? { [K in keyof T]: WireOut<T[K]> }
            : { [K in keyof T]: WireOut<T[K]> } & { [K in Exclude<ObjectKeys<All>, keyof T>]?: undefined }
          : T;

/** The keys of the plain objects of a union (not of its arrays, strings or prerendered values). */
type ObjectKeys<T> = T extends readonly unknown[] | Prerendered | string | number | bigint | boolean | null | undefined ? never : T extends object ? keyof T : never;

/** Whether a result type has a loose record (any key, any JSON) anywhere rather than the answer's own fields. */
type HasLoose<T> = JsonWritable extends T
  ? true
  : T extends Prerendered<infer V>
    ? HasLoose<V>
    : T extends readonly (infer U)[]
      ? HasLoose<U>
      : T extends object
        ? string extends keyof T
          ? true
          : true extends { [K in keyof T]-?: HasLoose<T[K]> }[keyof T]
            ? true
            : false
        : false;

/**
 * The methods of a map whose result has a loose record somewhere (a handler answering a
 * Record<string, JsonWritable>, or JSON of any shape): a service's map checks it is `never`.
 */
export type LooseResults<Api extends RpcApi> = { [K in keyof Api]: true extends HasLoose<Api[K]["result"]> ? K : never }[keyof Api];

/** The params argument of `call`: left out when the method needs none. */
export type ParamsArg<P> = [params?: WireIn<P>, opts?: CallOptions & { idempotent?: boolean }];

/** A map with no entries (a client with no JSON paths). */
export type NoPaths = { readonly [path: string]: never };

export class RpcClient<Api extends RpcApi = RpcApi, Paths extends RpcApi = NoPaths> {
  /** The untyped client underneath (its .bin calls, its generic jsonRpc / json). */
  readonly transport: NodeClient;

  constructor(opts: NodeClientOptions) {
    this.transport = new NodeClient(opts);
  }

  /**
   * Calls `method` (its canonical name) at /json_rpc with `params`; resolves to its `result`. Not
   * retried unless `idempotent` is set (a call may change state).
   */
  async call<M extends keyof Api & string>(method: M, ...[params, opts]: ParamsArg<Api[M]["params"]>): Promise<WireOut<Api[M]["result"]>> {
    const result = await this.transport.jsonRpc(method, params as JsonWritable | undefined, { ...opts, idempotent: opts?.idempotent ?? false });
    return result as WireOut<Api[M]["result"]>;
  }

  /** POSTs `body` to the JSON path `path` (e.g. "/get_height"); resolves to the parsed answer. Retried as `call`. */
  async path<P extends keyof Paths & string>(path: P, ...[body, opts]: ParamsArg<Paths[P]["params"]>): Promise<WireOut<Paths[P]["result"]>> {
    const result = await this.transport.json(path, (body ?? {}) as JsonWritable, { ...opts, idempotent: opts?.idempotent ?? false });
    return result as WireOut<Paths[P]["result"]>;
  }

  /** Closes idle connections. */
  close(): void {
    this.transport.close();
  }
}
