/**
 * The typed wallet client (src/client/wallet-client.ts over WalletApi) driving a real
 * tsmonero-wallet-rpc (WalletService + startWalletRpc, digest login, no node): checked params go
 * out as epee reads them, typed results come back, errors are NodeRpcError with the wallet's codes.
 * test/wallet-client-types.ts proves at compile time that misspelled methods and wrong param types
 * do not compile. A hub's endpoints: hubClient (/wallets/json_rpc) and hubWalletClient
 * (/wallets/NAME/json_rpc, with the wallet's own login).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeAuthError, NodeRpcError } from "../src/client/node-client.js";
import { WalletHub } from "../src/wallet/hub/hub.js";
import { hubClient, hubWalletClient, walletClient } from "../src/wallet/rpc/api.js";
import { startWalletRpc, type WalletRpc } from "../src/wallet/rpc/index.js";
import { WalletService } from "../src/wallet/service/service.js";

const SEED = "velvet lymph giddy number token physics poetry unquoted nibs useful sabotage limits benches lifestyle eden nitrogen anvil fewest avoid batch vials washing fences goat unquoted";
const login = { username: "typed", password: "client" };

describe("typed wallet client against tsmonero-wallet-rpc", () => {
  let dir: string;
  let svc: WalletService;
  let rpc: WalletRpc;
  let restricted: WalletRpc;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-wallet-client-"));
    svc = new WalletService({ network: "mainnet", walletDir: dir, node: null, kdf: { log2N: 10, r: 8, p: 1 }, autoRefreshPeriod: 0, log: () => undefined });
    rpc = await startWalletRpc({ service: svc, port: 19645, login, log: () => undefined });
    restricted = await startWalletRpc({ service: svc, port: 19646, login, restricted: true, log: () => undefined });
  });
  after(async () => {
    await rpc.close();
    await restricted.close();
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("calls with checked params and reads typed results", async () => {
    const w = walletClient({ url: rpc.url, login });
    try {
      const v = await w.call("get_version");
      assert.equal(Number(v.version), 65561);
      const r = await w.call("restore_deterministic_wallet", { filename: "typed", password: "", seed: SEED, restore_height: 0n, language: "English" });
      assert.match(r.address, /^4/);
      const a = await w.call("get_address", { account_index: 0, address_index: [0] });
      assert.equal(a.address, r.address);
      const created = await w.call("create_address", { account_index: 0, label: "typed", count: 2 });
      assert.deepEqual(created.address_indices, [1, 2]);
      const b = await w.call("get_balance", { account_index: 0, all_accounts: false });
      assert.equal(BigInt(b.balance), 0n);
      assert.equal(b.multisig_import_needed, false);
      const valid = await w.call("validate_address", { address: created.addresses[0] });
      assert.equal(valid.valid, true);
      assert.equal(valid.subaddress, true);
      const h = await w.call("get_height");
      assert.equal(Number(h.height), 1);
    } finally {
      w.close();
    }
  });

  it("answers errors as NodeRpcError with the wallet's codes: −13 before −7, −7 on a restricted server", async () => {
    const w = walletClient({ url: restricted.url, login });
    try {
      await w.call("close_wallet");
      await assert.rejects(w.call("query_key", { key_type: "mnemonic" }), (e: unknown) => e instanceof NodeRpcError && e.code === -13);
      await w.call("open_wallet", { filename: "typed", password: "" });
      await assert.rejects(w.call("query_key", { key_type: "mnemonic" }), (e: unknown) => e instanceof NodeRpcError && e.code === -7 && e.rpcMessage === "Command unavailable in restricted mode.");
      await assert.rejects(w.call("open_wallet", { filename: "no-such-wallet" }), (e: unknown) => e instanceof NodeRpcError && e.code === -1 && e.rpcMessage === "Failed to open wallet");
    } finally {
      w.close();
    }
  });

  it("reaches a hub's own endpoint and a hub wallet's, with the wallet's own login", async () => {
    const hubDir = mkdtempSync(join(tmpdir(), "tsmonero-wallet-client-hub-"));
    const opts = { network: "mainnet" as const, walletDir: hubDir, node: null, kdf: { log2N: 10, r: 8, p: 1 }, autoRefreshPeriod: 0, log: () => undefined };
    const hubSvc = new WalletService(opts);
    const hub = new WalletHub(opts);
    const server = await startWalletRpc({ service: hubSvc, hub, port: 19647, login, log: () => undefined });
    const h = hubClient({ url: server.url, login });
    const own = hubWalletClient({ url: server.url, wallet: "shop", login: { username: "shop", password: "secret" } });
    const other = hubWalletClient({ url: server.url, wallet: "plain", login });
    const wrong = hubWalletClient({ url: server.url, wallet: "shop", login });
    try {
      const s = await h.call("create_wallet", { filename: "shop", password: "pw", rpc_username: "shop", rpc_password: "secret" });
      assert.equal(s.name, "shop");
      assert.equal(s.own_login, true);
      assert.equal((await h.call("create_wallet", { filename: "plain", password: "pw" })).own_login, false);
      assert.equal((await own.call("get_address")).address, s.address);
      assert.match((await other.call("get_address")).address, /^4/);
      await assert.rejects(wrong.call("get_address"), NodeAuthError);
      await assert.rejects(own.call("open_wallet", { filename: "plain", password: "pw" }), (e: unknown) => e instanceof NodeRpcError && e.code === -1);
      assert.deepEqual((await h.call("list_wallets")).wallets.map((w) => w.name).sort(), ["plain", "shop"]);
      assert.equal(Number((await h.call("get_hub_stats")).wallets), 2);
    } finally {
      for (const c of [h, own, other, wrong]) c.close();
      await server.close();
      await hub.stop();
      await hubSvc.stop();
      rmSync(hubDir, { recursive: true, force: true });
    }
  });
});
