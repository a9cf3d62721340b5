/**
 * The RPC of the wallet hub (issue 20; tsmonero's extension, no monero-wallet-rpc has it):
 *   /wallets/json_rpc        open_wallet, create_wallet, close_wallet, list_wallets, get_hub_stats
 *                            (the server's login, as /json_rpc)
 *   /wallets/NAME/json_rpc   every monero-wallet-rpc method on wallet NAME (its own login when it was
 *                            opened with rpc_username/rpc_password, else the server's); the methods
 *                            that would open, create or close another wallet there answer −1.
 * The drop-in /json_rpc is the server's own table, unchanged.
 */
import { bool, DigestAuthenticator, type JsonRpcMethod, type JsonWritable, MethodTable, type RpcRoute, type Schema, str, withDefault, WALLET_RESTRICTED } from "../../rpc/index.js";
import type { HubWallet, WalletHub } from "../hub/hub.js";
import { fail, obj, toRpcError, W, WALLET_ERRORS, type WalletDef, type WalletMethodsOptions, type WalletRpcDeps } from "./common.js";
import { walletMethods } from "./methods.js";
import { eventStream } from "./stream.js";

const loginOf = (p: { rpc_username: string; rpc_password: string }) => {
  if (p.rpc_username === "" && p.rpc_password === "") return null;
  if (p.rpc_username === "") fail(W.UNKNOWN_ERROR, "rpc_password needs an rpc_username: give both for the wallet's own login, or neither for the server's");
  return { username: p.rpc_username, password: p.rpc_password };
};

/** What open_wallet, create_wallet and list_wallets say of a hub wallet. */
export type HubWalletSummary = {
  name: string;
  address: string;
  /** The wallet's height (blocks scanned); 0 before it is loaded. */
  height: number;
  /** Whether it answers with its own login (rpc_username/rpc_password at open) rather than the server's. */
  own_login: boolean;
};

/**
 * A hub method that keeps its name, params type and result type for the typed client (HubApi in
 * api.ts); at run time it is the JsonRpcMethod itself.
 */
export type TypedHubMethod<N extends string, P, R> = JsonRpcMethod<unknown> & { readonly name: N; readonly __types?: { readonly params: P; readonly result: R } };

/** Declares a hub method: its failures answered as the wallet's errors (toRpcError). */
function hubDef<const N extends string, P, R extends JsonWritable>(d: { name: N; params: Schema<P>; handler(p: P): R | Promise<R> }): TypedHubMethod<N, P, R> {
  const m: JsonRpcMethod<P> = {
    name: d.name,
    params: d.params,
    handler: async (p) => {
      try {
        return await d.handler(p);
      } catch (e) {
        throw toRpcError(e);
      }
    },
  };
  return m as unknown as TypedHubMethod<N, P, R>;
}

/** /wallets/json_rpc's methods, declared with their types (HubApi in api.ts is derived from them). */
export function hubMethods(hub: WalletHub) {
  const open = obj({ filename: str, password: str, language: withDefault(str, "English"), rpc_username: str, rpc_password: str });
  return [
    hubDef({ name: "open_wallet", params: open, handler: async (p) => summary(await hub.open(p.filename, { password: p.password, login: loginOf(p) })) }),
    hubDef({
      name: "create_wallet",
      params: open,
      handler: async (p) => summary(await hub.open(p.filename, { password: p.password, login: loginOf(p), create: { language: p.language } })),
    }),
    hubDef({
      name: "close_wallet",
      params: obj({ filename: str, autosave_current: withDefault(bool, true) }),
      handler: async (p) => {
        await hub.close(p.filename, p.autosave_current);
        return {};
      },
    }),
    hubDef({ name: "list_wallets", params: obj({}), handler: () => ({ wallets: hub.list().map(summary) }) }),
    hubDef({
      name: "get_hub_stats",
      params: obj({}),
      handler: () => {
        const s = hub.stats;
        return { wallets: hub.list().length, blocks_requests: s?.requests ?? 0, blocks_fetches: s?.fetches ?? 0, height_requests: s?.heightRequests ?? 0, height_fetches: s?.heightFetches ?? 0 };
      },
    }),
  ] as const;
}

/** /wallets/json_rpc: the hub's own methods. */
function hubTable(hub: WalletHub): MethodTable {
  const t = new MethodTable({ errors: WALLET_ERRORS, restricted: WALLET_RESTRICTED });
  for (const m of hubMethods(hub)) t.addJsonRpc(m);
  return t;
}

function summary(w: HubWallet): HubWalletSummary {
  const wal = w.service.hasWallet ? w.service.wallet() : null;
  return { name: w.name, address: wal ? wal.address({ major: 0, minor: 0 }) : "", height: wal ? wal.ledger.height : 0, own_login: w.login !== null };
}

/**
 * The server's `routes` for a hub: /wallets/json_rpc and /wallets/NAME/json_rpc (each wallet's
 * table built once, with the same extra methods as the drop-in endpoint).
 */
export function hubRoutes(hub: WalletHub, o: WalletMethodsOptions = {}, extra?: (d: WalletRpcDeps) => WalletDef[]): (path: string) => RpcRoute | undefined {
  const own: RpcRoute = { methods: hubTable(hub) };
  const perWallet = new WeakMap<HubWallet, RpcRoute>();
  const streams = new WeakMap<HubWallet, RpcRoute>();
  return (path) => {
    if (!path.startsWith("/wallets/")) return undefined;
    if (path === "/wallets/json_rpc") return own;
    const m = /^\/wallets\/([^/]+)\/(json_rpc|events)$/.exec(path);
    if (!m) return undefined;
    let name: string;
    try {
      name = decodeURIComponent(m[1]);
    } catch {
      return undefined;
    }
    const w = hub.get(name);
    if (!w) return undefined; // 404, as for any path the server does not serve
    if (m[2] === "events") {
      let st = streams.get(w);
      if (!st) {
        st = { stream: eventStream(w.service, o.log), ...(w.login ? { auth: new DigestAuthenticator(w.login) } : {}) };
        streams.set(w, st);
      }
      return st;
    }
    let r = perWallet.get(w);
    if (!r) {
      r = { methods: walletMethods(w.service, { ...o, fixedWallet: true }, extra), ...(w.login ? { auth: new DigestAuthenticator(w.login) } : {}) };
      perWallet.set(w, r);
    }
    return r;
  };
}
