/**
 * WalletApi: the wallet RPC's methods by name, with the params type each handler reads and the
 * result type it answers, derived from the definitions (methods.ts's WALLET_METHOD_GROUPS and the
 * −48 stubs): a method declared with def() is in it by itself. `walletClient()` is the typed
 * client over it (src/client/wallet-client.ts). Aliases are not in the map: call canonical names.
 *
 * A hub (tsmonero-wallet-rpc --wallet-hub, issue 20) serves two more endpoints: its own methods at
 * /wallets/json_rpc (HubApi, derived from hub.ts's hubMethods; `hubClient()`), and every wallet
 * method on wallet NAME at /wallets/NAME/json_rpc (`hubWalletClient()`: WalletApi at that path,
 * with the wallet's own login when it was opened with one).
 */
import type { LooseResults } from "../../client/rpc-client.js";
import { WalletClient, type RpcApi } from "../../client/wallet-client.js";
import type { NodeClientOptions } from "../../client/node-client.js";
import type { JsonValue } from "../../rpc/json.js";
import type { TypedDef } from "./common.js";
import type { hubMethods, TypedHubMethod } from "./hub.js";
import type { WALLET_METHOD_GROUPS } from "./methods.js";
import type { UNAVAILABLE } from "./unavailable.js";

type Declared = ReturnType<(typeof WALLET_METHOD_GROUPS)[number]>[number];

/** Names a definition keeps (a def whose name was widened to string gives none). */
type NameOf<D> = D extends TypedDef<infer N, unknown, unknown> ? (string extends N ? never : N) : never;

type EntryOf<D, K> = D extends TypedDef<infer N, infer P, infer R> ? (K extends N ? { readonly params: P; readonly result: R } : never) : never;

type RealApi = { readonly [K in NameOf<Declared>]: EntryOf<Declared, K> };

/** Methods still answered by a −48 stub (any params, no result). */
type StubApi = { readonly [K in Exclude<(typeof UNAVAILABLE)[number]["name"], NameOf<Declared>>]: { readonly params: JsonValue | undefined; readonly result: JsonValue } };

export type WalletApi = RealApi & StubApi;

/** Every method name of the wallet RPC. */
export type WalletMethod = keyof WalletApi & string;

/** A client of any wallet RPC server with WalletApi's checked params and typed results. */
export function walletClient(opts: NodeClientOptions): WalletClient<WalletApi> {
  return new WalletClient<WalletApi>(opts);
}

type HubDeclared = ReturnType<typeof hubMethods>[number];
type HubNameOf<D> = D extends TypedHubMethod<infer N, unknown, unknown> ? (string extends N ? never : N) : never;
type HubEntryOf<D, K> = D extends TypedHubMethod<infer N, infer P, infer R> ? (K extends N ? { readonly params: P; readonly result: R } : never) : never;

/** The hub's own methods (POST /wallets/json_rpc): open, create and close wallets by name, list them, its stats. */
export type HubApi = { readonly [K in HubNameOf<HubDeclared>]: HubEntryOf<HubDeclared, K> };

/** Every method name of the hub's own endpoint. */
export type HubMethod = keyof HubApi & string;

/** A client of a hub's own endpoint; `url` is the server's (e.g. "http://127.0.0.1:18083"), its login the server's. */
export function hubClient(opts: NodeClientOptions): WalletClient<HubApi> {
  return new WalletClient<HubApi>({ ...opts, url: `${opts.url.replace(/\/+$/, "")}/wallets` });
}

/**
 * A client of hub wallet `wallet`'s endpoint (/wallets/NAME/json_rpc): WalletApi's methods on that
 * wallet. `url` is the server's; `login` the wallet's own when it was opened with rpc_username and
 * rpc_password, else the server's.
 */
export function hubWalletClient(opts: NodeClientOptions & { wallet: string }): WalletClient<WalletApi> {
  const { wallet, ...rest } = opts;
  return new WalletClient<WalletApi>({ ...rest, url: `${opts.url.replace(/\/+$/, "")}/wallets/${encodeURIComponent(wallet)}` });
}

// the map must stay a valid RpcApi whose real methods' results have their own fields (a compile
// error here means a definition lost its types, or a handler answers a loose Record: give it its
// answer's type); the −48 stubs answer no result of their own
const _check: RpcApi = {} as WalletApi;
const _loose: [LooseResults<RealApi>] extends [never] ? true : LooseResults<RealApi> = true;
const _hub: RpcApi = {} as HubApi;
const _hubLoose: [LooseResults<HubApi>] extends [never] ? true : LooseResults<HubApi> = true;
void [_check, _loose, _hub, _hubLoose];
