/**
 * Issue 20, many wallets in one process: a WalletHub behind the wallet RPC server, over a real
 * tsmonerod regtest node. Wallets are created by name on /wallets/json_rpc, each answers every
 * monero-wallet-rpc method on /wallets/NAME/json_rpc (one with its own digest login), their
 * refreshes share the node's get_blocks.bin answers, and each balance equals what a real
 * monero-wallet-rpc reports for the same wallet (restored view-only from its keys).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import { WalletHub } from "../src/wallet/hub/hub.js";
import { hubWalletClient } from "../src/wallet/rpc/api.js";
import { startWalletRpc, type WalletRpc } from "../src/wallet/rpc/index.js";
import { WalletService } from "../src/wallet/service/service.js";
import { type Daemon, stopDaemon, waitReady } from "./helpers/monerod.js";
import { nodeCall } from "./helpers/node-rpc.js";
import { big, hubCall, hubRpc, startRegtestNode, startWallet, stopProcesses, waitWallet, walletCall, walletRpc } from "./helpers/wallet-rpc.js";

const PORTS = { node: 19410, rpc: 19411, real: 19412 } as const;
const FAST_KDF = { log2N: 10, r: 8, p: 1 };
const N = 5;

describe("many wallets in one process: the hub's routes over tsmonerod", () => {
  let daemon: Daemon;
  let node: NodeClient;
  let hub: WalletHub;
  let service: WalletService;
  let server: WalletRpc;
  let real: Daemon;
  const dirs: string[] = [];
  const names = Array.from({ length: N }, (_, i) => `w${i}`);
  const root = `http://127.0.0.1:${PORTS.rpc}`;
  const url = (name: string) => `${root}/wallets/${name}`;
  /** Each wallet's typed client at /wallets/NAME/json_rpc; w0's with its own login. */
  const clients = new Map(names.map((n) => [n, hubWalletClient({ url: root, wallet: n, ...(n === "w0" ? { login: "shop:secret" } : {}) })]));
  const client = (n: string) => {
    const c = clients.get(n);
    assert.ok(c, n);
    return c;
  };

  before(async () => {
    const nodeDir = mkdtempSync(join(tmpdir(), "tsmonero-hub-node-"));
    const walletDir = mkdtempSync(join(tmpdir(), "tsmonero-hub-wallets-"));
    const realDir = mkdtempSync(join(tmpdir(), "tsmonero-hub-real-"));
    dirs.push(nodeDir, walletDir, realDir);
    daemon = startRegtestNode("tsmonerod", [PORTS.node, PORTS.node + 100], nodeDir);
    node = new NodeClient({ url: daemon.url, timeoutMs: 60_000 });
    await waitReady(daemon, node);
    const log = () => undefined;
    service = new WalletService({ network: "regtest", walletDir, node, kdf: FAST_KDF, autoRefreshPeriod: 0, log });
    hub = new WalletHub({ network: "regtest", walletDir, node, kdf: FAST_KDF, autoRefreshPeriod: 0, log });
    server = await startWalletRpc({ service, port: PORTS.rpc, hub, log });
    real = startWallet("/usr/bin/monero-wallet-rpc", daemon.url, PORTS.real, realDir);
    await waitWallet(real);
  });

  after(async () => {
    for (const c of clients.values()) c.close();
    await server.close();
    await hub.stop();
    await service.stop();
    await stopProcesses([real]);
    await stopDaemon(daemon);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("creates wallets by name; one has its own login; the drop-in /json_rpc is untouched", async () => {
    for (const [i, name] of names.entries()) {
      const own = i === 0 ? { rpc_username: "shop", rpc_password: "secret" } : {};
      const r = await hubCall(root, "create_wallet", { filename: name, password: "pw", ...own });
      assert.equal(r.name, name);
      assert.equal(r.own_login, i === 0);
    }
    const again = await hubRpc(root, "create_wallet", { filename: "w1", password: "pw" });
    assert.match(again.error?.message ?? "", /^Wallet w1 is open already; close it first/);
    const bad = await hubRpc(root, "open_wallet", { filename: "../x", password: "pw" });
    assert.match(bad.error?.message ?? "", /^Invalid wallet name/);
    // the drop-in endpoint still has its one (here: no) wallet
    assert.deepEqual((await walletRpc(root, "get_balance")).error, { code: -13, message: "No wallet file" });
    // w0 wants its own login; the others answer without one (the server has none).
    // raw: the HTTP status of a call without the login is the point (a client would throw NodeAuthError)
    const noLogin = await fetch(`${url("w0")}/json_rpc`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "get_address" }) });
    assert.equal(noLogin.status, 401);
    const a0 = await client("w0").call("get_address");
    assert.match(String(a0.address), /^4/);
    assert.match(String((await walletCall(url("w1"), "get_address")).address), /^4/);
    // the endpoint of a wallet that is not open is not there (raw: the HTTP status is the point)
    assert.equal((await fetch(`${url("nope")}/json_rpc`, { method: "POST", body: "{}" })).status, 404);
    // a hub wallet's endpoint does not swap its wallet
    const swap = await walletRpc(url("w1"), "open_wallet", { filename: "w2", password: "pw" });
    assert.match(swap.error?.message ?? "", /^open_wallet is not available on a hub wallet's endpoint/);
    const listed = (await hubCall(root, "list_wallets")).wallets;
    assert.deepEqual(listed.map((w) => w.name), names);
  });

  it("refreshes share the node's block answers, and every balance equals a real monero-wallet-rpc's", async () => {
    const addresses: string[] = [];
    for (const n of names) addresses.push(String((await client(n).call("get_address")).address));
    for (const [i, a] of addresses.entries()) await nodeCall(daemon.url, "generateblocks", { amount_of_blocks: 1 + i, wallet_address: a });
    const before = await hubCall(root, "get_hub_stats");
    await Promise.all(names.map((n) => client(n).call("refresh")));
    const afterStats = await hubCall(root, "get_hub_stats");
    const requests = big(afterStats.blocks_requests) - big(before.blocks_requests);
    const fetches = big(afterStats.blocks_fetches) - big(before.blocks_fetches);
    console.log(`# ${N} wallets refreshed together: ${requests} get_blocks.bin requests, ${fetches} sent to the node`);
    assert.ok(fetches < requests, `wallets at the same block share answers (${fetches} of ${requests})`);
    for (const [i, n] of names.entries()) {
      const ours = await client(n).call("get_balance");
      const viewkey = String((await client(n).call("query_key", { key_type: "view_key" })).key);
      await walletCall(real.url, "generate_from_keys", { filename: `real-${n}`, address: addresses[i], viewkey, password: "" });
      await walletCall(real.url, "refresh");
      const theirs = await walletCall(real.url, "get_balance");
      assert.equal(big(ours.balance), big(theirs.balance), `${n}: balance`);
      assert.equal(big(ours.unlocked_balance), big(theirs.unlocked_balance), `${n}: unlocked balance`);
      assert.ok(big(ours.balance) > 0n);
      await walletCall(real.url, "close_wallet");
    }
  });

  it("close_wallet stores and removes the wallet's endpoint; it opens again by name", async () => {
    await hubCall(root, "close_wallet", { filename: "w3" });
    // raw: the HTTP status is the point
    assert.equal((await fetch(`${url("w3")}/json_rpc`, { method: "POST", body: "{}" })).status, 404);
    const r = await hubCall(root, "open_wallet", { filename: "w3", password: "pw" });
    assert.ok(Number(r.height) > 1, "the stored cache came back");
    assert.ok(big((await client("w3").call("get_balance")).balance) > 0n);
    const wrong = await hubRpc(root, "close_wallet", { filename: "zz" });
    assert.equal(wrong.error?.code, -13);
  });

  it("each wallet has its event stream at /wallets/NAME/events, behind its own login; an unknown wallet's is 404", async () => {
    // raw: an SSE stream and HTTP statuses (no JSON-RPC here)
    const ac = new AbortController();
    const w1 = await fetch(`${url("w1")}/events`, { headers: { "last-event-id": "unknown" }, signal: ac.signal });
    assert.equal(w1.status, 200);
    assert.equal(w1.headers.get("content-type"), "text/event-stream");
    const reader = w1.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    assert.match(first, /^: tsmonero wallet events/);
    ac.abort();
    assert.equal((await fetch(`${url("w0")}/events`)).status, 401);
    assert.equal((await fetch(`${url("nope")}/events`)).status, 404);
  });
});
