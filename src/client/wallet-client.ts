/**
 * WalletClient: calls a wallet RPC server (monero-wallet-rpc, or tsmonero-wallet-rpc) at
 * /json_rpc, with checked params and typed results when given the method map of the service's
 * definitions. The map lives with the definitions (WalletApi, src/wallet/rpc/api.ts, derived from
 * the wallet's method table): this layer stays below the wallet and only knows the map's shape.
 *
 * ```ts
 * import { walletClient } from "tsmonero/wallet";        // = new WalletClient<WalletApi>(…)
 * const w = walletClient({ url: "http://127.0.0.1:18083", login: "user:pass" });
 * const b = await w.call("get_balance", { account_index: 0 });   // b.unlocked_balance: bigint | number
 * await w.call("get_balanse");                           // does not compile
 * await w.call("get_balance", { account_index: "0" });   // does not compile
 * ```
 *
 * Transport, digest auth, TLS and timeouts are NodeClient's (the same epee HTTP client; no retries:
 * wallet calls change state). A JSON-RPC error answer throws NodeRpcError (`code`, `rpcMessage`);
 * no connection throws NoDaemonConnectionError.
 */
import type { JsonValue, JsonWritable, Prerendered } from "../rpc/json.js";
import { type CallOptions, NodeClient, type NodeClientOptions } from "./node-client.js";

/** One method of a service's map: the params its handler reads and the result it answers. */
export interface RpcApiEntry {
  readonly params: unknown;
  readonly result: unknown;
}

/** A service's methods by name. */
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

/** What a caller gets for a handler's result type: u64 values come back as a number below 2^53, a bigint above. */
export type WireOut<T> = T extends bigint
  ? bigint | number
  : T extends Prerendered
    ? JsonValue
    : T extends string | number | boolean | null | undefined
      ? T
      : T extends readonly (infer U)[]
        ? WireOut<U>[]
        : T extends object
          ? { [K in keyof T]: WireOut<T[K]> }
          : T;

/** The params argument of `call`: left out when the method needs none. */
export type ParamsArg<P> = [params?: WireIn<P>, opts?: CallOptions];

export class WalletClient<Api extends RpcApi = RpcApi> {
  private readonly http: NodeClient;

  constructor(opts: NodeClientOptions) {
    this.http = new NodeClient({ retries: 0, ...opts });
  }

  /** Calls `method` (its canonical name) with `params`; resolves to its `result`. */
  async call<M extends keyof Api & string>(method: M, ...[params, opts]: ParamsArg<Api[M]["params"]>): Promise<WireOut<Api[M]["result"]>> {
    const result = await this.http.jsonRpc(method, params as JsonWritable | undefined, { ...opts, idempotent: false });
    return result as WireOut<Api[M]["result"]>;
  }

  /** Closes idle connections. */
  close(): void {
    this.http.close();
  }
}
