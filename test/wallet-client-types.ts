/**
 * Compile-time test of the typed wallet client (src/client/wallet-client.ts over WalletApi): tsc
 * compiles this file with the rest of test/ (npm run build / test), so every `@ts-expect-error`
 * below must be an error — a misspelled method or a wrongly typed param that compiled would fail
 * the build ("Unused '@ts-expect-error' directive"). Nothing here runs (no test file loads it).
 */
import type { WalletClient } from "../src/client/wallet-client.js";
import type { HubApi, WalletApi, WalletMethod } from "../src/wallet/rpc/api.js";

export async function typedWalletCalls(w: WalletClient<WalletApi>): Promise<void> {
  // checked params, typed results
  const b = await w.call("get_balance", { account_index: 0, address_indices: [0, 1], all_accounts: false });
  const unlocked: bigint | number = b.unlocked_balance;
  const multisig: boolean = b.multisig_import_needed;
  const addr = await w.call("get_address", { account_index: 0 });
  const primary: string = addr.address;
  const h = await w.call("get_height");
  const transfer = await w.call("transfer", { destinations: [{ address: primary, amount: 1_000_000n }], priority: 1, get_tx_key: true });
  const validate = await w.call("validate_address", { address: primary, any_net_type: true });
  await w.call("sign_multisig", { tx_data_hex: "00" }); // a −48 stub: any params
  void [unlocked, multisig, h, transfer, validate];

  // @ts-expect-error a misspelled method does not compile
  await w.call("get_balanse");
  // @ts-expect-error an alias is not a method of the map (call canonical names)
  await w.call("getbalance");
  // @ts-expect-error account_index is an unsigned integer, not a string
  await w.call("get_balance", { account_index: "0" });
  // @ts-expect-error all_accounts is a boolean
  await w.call("get_balance", { all_accounts: 1 });
  // @ts-expect-error destinations' amount is a u64 (bigint or number), not a string
  await w.call("transfer", { destinations: [{ address: primary, amount: "1" }] });
  // @ts-expect-error a result field that does not exist
  void b.unlocked_balanse;
  // @ts-expect-error transfer's answer is typed too (it was any JSON): no such field
  void transfer.tx_hsh;
  // @ts-expect-error a list epee leaves out when empty may be absent
  const hashes: string[] = (await w.call("transfer_split", { destinations: [{ address: primary, amount: 1n }] })).tx_hash_list;
  void hashes;
  // @ts-expect-error the name union has no such method
  const bad: WalletMethod = "open_walet";
  void bad;
}

export async function typedHubCalls(h: WalletClient<HubApi>): Promise<void> {
  // the hub's own endpoint: its methods, their params (a wallet's own login) and results
  const w = await h.call("create_wallet", { filename: "w0", password: "pw", rpc_username: "shop", rpc_password: "secret" });
  const own: boolean = w.own_login;
  const names: string[] = (await h.call("list_wallets")).wallets.map((x) => x.name);
  const fetches: bigint | number = (await h.call("get_hub_stats")).blocks_fetches;
  await h.call("close_wallet", { filename: "w0", autosave_current: false });
  void [own, names, fetches];

  // @ts-expect-error a wallet method is not on the hub's own endpoint
  await h.call("get_balance");
  // @ts-expect-error close_wallet names the wallet by filename
  await h.call("close_wallet", { name: "w0" });
  // @ts-expect-error a summary has no balance
  void w.balance;
}
