/**
 * monero-wallet-rpc's JSON-RPC methods over a WalletService (src/wallet/wallet_rpc_server.cpp v0.18.0.0,
 * wallet_rpc_server_commands_defs.h for field names and defaults, wallet_rpc_server_error_codes.h).
 * This file only assembles the table; each concern's methods live in their own file (files.ts,
 * accounts.ts, addresses.ts, history.ts, sync.ts, misc.ts, send.ts, proofs.ts, cold.ts, multisig.ts, unavailable.ts; shared parts in common.ts).
 * Each handler checks what monero-wallet-rpc checks, in its order: an open wallet (-13 "No wallet
 * file"), then restricted mode (-7), then the method's own errors with Monero's codes and messages.
 */
import { MethodTable } from "../../rpc/index.js";
import type { WalletService } from "../service/service.js";
import { accountMethods } from "./accounts.js";
import { addressMethods } from "./addresses.js";
import { coldMethods } from "./cold.js";
import { fail, RESTRICTED_MSG, toRpcError, W, WALLET_ERRORS, type WalletDef, type WalletMethodsOptions, type WalletRpcDeps } from "./common.js";
import { eventMethods } from "./events.js";
import { WALLET_DOCS, wrapperErrors } from "./docs.js";
import { fileMethods } from "./files.js";
import { historyMethods } from "./history.js";
import { miscMethods } from "./misc.js";
import { multisigMethods } from "./multisig.js";
import { proofMethods } from "./proofs.js";
import { sendMethods } from "./send.js";
import { syncMethods } from "./sync.js";
import { UNAVAILABLE, type Unavailable, unavailableMethod } from "./unavailable.js";

export { def, type Def, list, obj, toRpcError, W, WALLET_ERRORS, WALLET_RPC_VERSION, type WalletDef, type WalletMethodsOptions, type WalletRpcDeps } from "./common.js";
export { UNAVAILABLE } from "./unavailable.js";
export { WALLET_DOCS } from "./docs.js";

/**
 * Every group of real methods, in table order. A new group goes here; its methods (declared with
 * def()) join WalletApi, the typed client's method map, by themselves.
 */
export const WALLET_METHOD_GROUPS = [fileMethods, accountMethods, addressMethods, historyMethods, syncMethods, miscMethods, sendMethods, proofMethods, coldMethods, multisigMethods, eventMethods] as const;

/** What a hub wallet's endpoint refuses: the calls that would put another wallet in its place. */
const HUB_LIFECYCLE = new Set(["create_wallet", "open_wallet", "close_wallet", "restore_deterministic_wallet", "generate_from_keys", "stop_wallet"]);

/**
 * The method table of tsmonero-wallet-rpc over `svc`. `extra` are more real methods (e.g. the
 * sending ones): a real method replaces the −48 stub of the same name; two real ones of one name
 * are a programming error (MethodTable throws).
 */
export function walletMethods(svc: WalletService, o: WalletMethodsOptions = {}, extra: (d: WalletRpcDeps) => WalletDef[] = () => []): MethodTable {
  const table = new MethodTable({ errors: WALLET_ERRORS, restricted: "handler", docs: WALLET_DOCS });
  const deps: WalletRpcDeps = { svc, o, w: () => svc.wallet() };
  const real: WalletDef[] = [...WALLET_METHOD_GROUPS, extra].flatMap((f): WalletDef[] => f(deps));
  const named = new Set(real.flatMap((d) => [d.name, ...(d.aliases ?? [])]));
  const stubs = (UNAVAILABLE as readonly Unavailable[]).filter((u) => !named.has(u.name)).map((u) => unavailableMethod(u));
  for (const d of [...real, ...stubs]) {
    table.addJsonRpc<unknown>({
      name: d.name,
      aliases: d.aliases,
      params: d.params,
      restricted: d.restricted,
      summary: d.summary,
      description: d.description,
      mirrors: d.mirrors,
      errors: [...wrapperErrors(d), ...(d.errors ?? [])],
      handler: async (p, ctx) => {
        if (o.fixedWallet && HUB_LIFECYCLE.has(d.name))
          fail(W.UNKNOWN_ERROR, `${d.name} is not available on a hub wallet's endpoint: open, create and close wallets through /wallets/json_rpc`);
        if (d.wallet !== false && !svc.hasWallet) fail(W.NOT_OPEN, "No wallet file");
        if (d.restricted && ctx.restricted) fail(W.DENIED, RESTRICTED_MSG);
        try {
          return await d.handler(p, ctx);
        } catch (e) {
          throw toRpcError(e);
        }
      },
    });
  }
  return table;
}
