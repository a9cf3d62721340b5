/**
 * The RPC of the wallet hub (issue 20; tsmonero's extension, no monero-wallet-rpc has it):
 *   /wallets/json_rpc        open_wallet, create_wallet, close_wallet, list_wallets, get_hub_stats
 *                            (the server's login, as /json_rpc)
 *   /wallets/NAME/json_rpc   every monero-wallet-rpc method on wallet NAME (its own login when it was
 *                            opened with rpc_username/rpc_password, else the server's); the methods
 *                            that would open, create or close another wallet there answer −1.
 * The drop-in /json_rpc is the server's own table, unchanged.
 */
import { DigestAuthenticator, MethodTable, type RpcRoute, str, withDefault, bool, WALLET_RESTRICTED } from "../../rpc/index.js";
import type { HubWallet, WalletHub } from "../hub/hub.js";
import { fail, obj, toRpcError, W, WALLET_ERRORS, type WalletDef, type WalletMethodsOptions, type WalletRpcDeps } from "./common.js";
import { walletMethods } from "./methods.js";
import { eventStream } from "./stream.js";

const loginOf = (p: { rpc_username: string; rpc_password: string }) => {
  if (p.rpc_username === "" && p.rpc_password === "") return null;
  if (p.rpc_username === "") fail(W.UNKNOWN_ERROR, "rpc_password needs an rpc_username: give both for the wallet's own login, or neither for the server's");
  return { username: p.rpc_username, password: p.rpc_password };
};

/** /wallets/json_rpc: the hub's own methods. */
function hubTable(hub: WalletHub): MethodTable {
  const t = new MethodTable({ errors: WALLET_ERRORS, restricted: WALLET_RESTRICTED });
  const wrap =
    <P>(f: (p: P) => Promise<Record<string, unknown>> | Record<string, unknown>) =>
    async (p: P) => {
      try {
        return (await f(p)) as never;
      } catch (e) {
        throw toRpcError(e);
      }
    };
  const open = obj({ filename: str, password: str, language: withDefault(str, "English"), rpc_username: str, rpc_password: str });
  t.addJsonRpc({ name: "open_wallet", params: open, handler: wrap(async (p) => summary(await hub.open(p.filename, { password: p.password, login: loginOf(p) }))) });
  t.addJsonRpc({
    name: "create_wallet",
    params: open,
    handler: wrap(async (p) => summary(await hub.open(p.filename, { password: p.password, login: loginOf(p), create: { language: p.language } }))),
  });
  t.addJsonRpc({
    name: "close_wallet",
    params: obj({ filename: str, autosave_current: withDefault(bool, true) }),
    handler: wrap(async (p) => {
      await hub.close(p.filename, p.autosave_current);
      return {};
    }),
  });
  t.addJsonRpc({ name: "list_wallets", params: obj({}), handler: wrap(() => ({ wallets: hub.list().map(summary) })) });
  t.addJsonRpc({
    name: "get_hub_stats",
    params: obj({}),
    handler: wrap(() => {
      const s = hub.stats;
      return { wallets: hub.list().length, blocks_requests: s?.requests ?? 0, blocks_fetches: s?.fetches ?? 0, height_requests: s?.heightRequests ?? 0, height_fetches: s?.heightFetches ?? 0 };
    }),
  });
  return t;
}

function summary(w: HubWallet): Record<string, unknown> {
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
