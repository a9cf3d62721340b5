/**
 * The methods of a later issue (multisig signing): monero-wallet-rpc has them,
 * tsmonero-wallet-rpc answers −48 (WALLET_RPC_ERROR_CODE_DISABLED) after the open-wallet and
 * restricted checks. A real definition of the same name (e.g. from send.ts) replaces its stub in
 * `walletMethods`: nothing here needs editing when a method lands.
 */
import { anyJson } from "../../rpc/index.js";
import { def, fail, W, type WalletDef } from "./common.js";

/** A method still to come: its name, whether monero-wallet-rpc refuses it in restricted mode, its alias. */
export interface Unavailable {
  readonly name: string;
  readonly restricted: boolean;
  readonly alias?: string;
}

/** Every method of a later issue, in monero-wallet-rpc's order. */
export const UNAVAILABLE = [] as const satisfies readonly Unavailable[];

/** The −48 stub of a method still to come (any params; the answer names the method). */
export function unavailableMethod(u: Unavailable): WalletDef {
  return def({
    name: u.name,
    aliases: u.alias ? [u.alias] : undefined,
    restricted: u.restricted,
    params: anyJson,
    handler: () =>
      fail(W.DISABLED, `${u.name} is not available in this version of tsmonero-wallet-rpc: multisig txsets and their signing come in a later release`),
  });
}
