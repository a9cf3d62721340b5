/**
 * Wallet files and keys (wallet_rpc_server.cpp on_create_wallet … on_query_key): create_wallet,
 * open_wallet, close_wallet, store, change_wallet_password, stop_wallet, restore_deterministic_wallet,
 * generate_from_keys, query_key, get_languages. The life cycle itself is the service's (../service/).
 */
import { bool, str, u64, withDefault } from "../../rpc/index.js";
import { getLanguages, queryKey } from "../keys/rpc.js";
import { multisigSeed } from "../multisig/kex.js";
import { def, fail, obj, W, type WalletRpcDeps } from "./common.js";

/** Wallet files: create, open, close, store, passwords, restore, keys. */
export function fileMethods(d: WalletRpcDeps) {
  const { svc, o, w } = d;
  return [
    def({
      name: "create_wallet",
      wallet: false,
      params: obj({ filename: str, password: str, language: str }),
      handler: async (p) => {
        await svc.createWallet(p);
        return {};
      },
    }),
    def({
      name: "open_wallet",
      wallet: false,
      params: obj({ filename: str, password: str, autosave_current: withDefault(bool, true) }),
      handler: async (p) => {
        await svc.openWallet(p);
        return {};
      },
    }),
    def({
      name: "close_wallet",
      params: obj({ autosave_current: withDefault(bool, true) }),
      handler: async (p) => {
        await svc.closeWallet(p);
        return {};
      },
    }),
    def({
      name: "store",
      restricted: true,
      params: obj({}),
      handler: () => {
        svc.store();
        return {};
      },
    }),
    def({
      name: "change_wallet_password",
      restricted: true,
      params: obj({ old_password: str, new_password: str }),
      handler: async (p) => {
        await svc.changePassword(p.old_password, p.new_password);
        return {};
      },
    }),
    def({
      name: "stop_wallet",
      restricted: true,
      params: obj({}),
      handler: async () => {
        svc.wallet().store();
        setImmediate(() => {
          svc
            .stop()
            .catch((e: unknown) => o.log?.(`stop_wallet: ${e instanceof Error ? e.message : String(e)}`))
            .finally(() => svc.onStop?.());
        });
        return {};
      },
    }),
    def({
      name: "restore_deterministic_wallet",
      wallet: false,
      params: obj({
        restore_height: u64,
        filename: str,
        seed: str,
        seed_offset: str,
        password: str,
        language: str,
        autosave_current: withDefault(bool, true),
        // monero-wallet-rpc after 0.18 (master 45b52de): `seed` is a multisig seed (query_key "mnemonic" of a multisig wallet)
        enable_multisig_experimental: withDefault(bool, false),
      }),
      handler: (p) => svc.restoreDeterministic(p),
    }),
    def({
      name: "generate_from_keys",
      wallet: false,
      params: obj({
        restore_height: u64,
        filename: str,
        address: str,
        spendkey: str,
        viewkey: str,
        password: str,
        language: str,
        autosave_current: withDefault(bool, true),
      }),
      handler: (p) => svc.generateFromKeys(p),
    }),
    def({
      name: "query_key",
      restricted: true,
      params: obj({ key_type: str }),
      handler: (p) => {
        const wal = w();
        // a multisig wallet's "mnemonic" is wallet2's raw multisig seed (get_multisig_seed), in hex
        if (p.key_type === "mnemonic" && wal.multisig.multisig) {
          if (!wal.multisig.ready) fail(W.NOT_MULTISIG, "This wallet is multisig, but not yet finalized");
          return { key: Buffer.from(multisigSeed(wal.keysData)).toString("hex") };
        }
        return queryKey(wal.keyWallet, p.key_type);
      },
    }),
    def({ name: "get_languages", wallet: false, params: obj({}), handler: () => getLanguages() }),
  ];
}
