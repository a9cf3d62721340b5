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
 * An RpcClient (rpc-client.ts) with no JSON paths and no retries (wallet calls change state).
 */
import type { NodeClientOptions } from "./node-client.js";
import { type RpcApi, RpcClient } from "./rpc-client.js";

export { type ParamsArg, type RpcApi, type RpcApiEntry, type WireIn, type WireOut } from "./rpc-client.js";

export class WalletClient<Api extends RpcApi = RpcApi> extends RpcClient<Api> {
  constructor(opts: NodeClientOptions) {
    super({ retries: 0, ...opts });
  }
}
