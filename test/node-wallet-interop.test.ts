/**
 * Acceptance: a real wallet on our node. Debian's monero-wallet-rpc, pointed at tsmonerod holding the
 * recorded regtest chain (fed over HTTP as monerod takes it), restores alice and bob from their seeds,
 * refreshes, and reports the same balance, accounts and transfers as the same wallets did against a
 * real monerod holding the same chain (test/fixtures/node/wallet-answers.json, recorded by
 * scripts/record-node-fixtures.mjs). Then alice transfers to bob: tsmonerod accepts the tx into its
 * pool, generateblocks mines it, and bob's wallet sees it confirmed.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Daemon, startDaemon } from "../src/node/daemon.js";
import { parseJson } from "../src/rpc/json.js";
import { recordedBlocks, recordedTxs, WALLET_SEEDS } from "./helpers/chain.js";
import { nodePath, nodeRpc } from "./helpers/node-rpc.js";
import { needPackage } from "./helpers/packages.js";
import { walletCall } from "./helpers/wallet-rpc.js";

const skip = needPackage("monero");
const NODE_PORT = 29040;
const WALLET_PORT = 29041;
const WALLET_URL = `http://127.0.0.1:${WALLET_PORT}`;
const recorded = JSON.parse(readFileSync(new URL("../../test/fixtures/node/wallet-answers.json", import.meta.url), "utf8")) as {
  wallets: Record<"alice" | "bob", Record<string, string> & { address: string }>;
};
const QUERIES: [string, Record<string, unknown>][] = [
  ["get_balance", { account_index: 0, all_accounts: true }],
  ["get_accounts", {}],
  ["get_transfers", { in: true, out: true, pending: true, failed: true, pool: true, all_accounts: true }],
];

let daemon: Daemon | undefined;
let wallet: ChildProcess | undefined;
const walletOut: string[] = [];
let dir = "";

async function post(url: string, body: unknown): Promise<string> {
  const res = await fetch(url, { method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(120_000) });
  return res.text();
}

/** A raw wallet call, for the answers compared as text with the recorded ones (the others go through walletCall, the typed client). */
async function wrpc(method: string, params: unknown = {}): Promise<{ text: string; result: Record<string, unknown> }> {
  const text = await post(`http://127.0.0.1:${WALLET_PORT}/json_rpc`, { jsonrpc: "2.0", id: "0", method, params });
  const j = JSON.parse(text) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  if (j.error) throw new Error(`wallet ${method}: ${j.error.message} (${j.error.code}); wallet log: ${walletOut.join("").slice(-1500)}`);
  return { text, result: j.result ?? {} };
}

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "tsmonero-wallet-interop-"));
  daemon = await startDaemon({
    network: "regtest", dataDir: join(dir, "node"), fixedDifficulty: 1n, offline: true, rpcBindPort: NODE_PORT,
    logFile: "", logToConsole: false, syncMode: "fast", verifyThreads: 1,
  });
  const txs = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
  const nodeUrl = daemon.rpcUrl;
  for (const b of recordedBlocks().slice(1)) {
    for (const h of b.tx_hashes) {
      const r = await nodePath(nodeUrl, "/send_raw_transaction", { tx_as_hex: txs.get(h)?.as_hex });
      assert.equal(r.status, "OK");
    }
    const r = await nodeRpc(nodeUrl, "submit_block", [b.blob]);
    assert.equal(r.result?.status, "OK");
  }
  mkdirSync(join(dir, "wallets"), { recursive: true });
  wallet = spawn(
    "/usr/bin/monero-wallet-rpc",
    ["--wallet-dir", join(dir, "wallets"), "--disable-rpc-login", "--daemon-address", `127.0.0.1:${NODE_PORT}`, "--rpc-bind-ip", "127.0.0.1",
      "--rpc-bind-port", String(WALLET_PORT), "--log-file", join(dir, "wallet.log"), "--non-interactive", "--daemon-ssl", "disabled", "--rpc-ssl", "disabled"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const keep = (b: Buffer): void => {
    walletOut.push(b.toString());
    if (walletOut.length > 200) walletOut.shift();
  };
  wallet.stdout?.on("data", keep);
  wallet.stderr?.on("data", keep);
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await walletCall(WALLET_URL, "get_version");
      break;
    } catch (e) {
      if (wallet.exitCode !== null || Date.now() > deadline) throw new Error(`monero-wallet-rpc did not start: ${walletOut.join("").slice(-1500)}`, { cause: e });
      await new Promise((r) => setTimeout(r, 300));
    }
  }
});

after(async () => {
  if (wallet && wallet.exitCode === null) {
    const gone = new Promise((r) => wallet?.once("exit", r));
    wallet.kill("SIGTERM");
    const t = setTimeout(() => wallet?.kill("SIGKILL"), 8000);
    await gone;
    clearTimeout(t);
  }
  await daemon?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The result of a recorded or live wallet answer, parsed with exact 64-bit integers. */
function resultOf(text: string): unknown {
  const v = parseJson(text, { epeeTolerant: true }) as { result?: unknown };
  return v.result;
}

test("monero-wallet-rpc on tsmonerod: same balances, accounts and transfers as on monerod; a transfer is accepted, mined and received", { skip }, async (t) => {
  const t0 = Date.now();
  const phase = (what: string): void => t.diagnostic(`${what}: ${Date.now() - t0} ms`);
  for (const name of ["alice", "bob"] as const) {
    await walletCall(WALLET_URL, "restore_deterministic_wallet", { filename: name, seed: WALLET_SEEDS[name], password: "", restore_height: 0, language: "English" });
    await walletCall(WALLET_URL, "refresh");
    for (const [m, p] of QUERIES) {
      const live = await wrpc(m, p);
      assert.deepEqual(resultOf(live.text), resultOf(recorded.wallets[name][m]), `${name} ${m} on tsmonerod vs monerod`);
    }
    await walletCall(WALLET_URL, "close_wallet");
    phase(`${name} restored, refreshed, compared`);
  }

  await walletCall(WALLET_URL, "open_wallet", { filename: "alice", password: "" });
  const amount = 1_234_567_890_000;
  const sent = await walletCall(WALLET_URL, "transfer", { destinations: [{ amount, address: recorded.wallets.bob.address }], priority: 0, get_tx_hex: true });
  const txid = String(sent.tx_hash);
  phase("alice's transfer made");
  assert.match(txid, /^[0-9a-f]{64}$/);
  assert.ok(daemon);
  const pool = await nodePath(daemon.rpcUrl, "/get_transaction_pool_hashes", {});
  assert.deepEqual(pool.tx_hashes, [txid], "tsmonerod accepted the wallet's transaction into its pool");
  await walletCall(WALLET_URL, "close_wallet");

  // bob sees it in the pool first (/get_transaction_pool_hashes.bin's raw-byte ids, /gettransactions)
  await walletCall(WALLET_URL, "open_wallet", { filename: "bob", password: "" });
  await walletCall(WALLET_URL, "refresh");
  const inPool = await walletCall(WALLET_URL, "get_transfers", { pool: true });
  const pooled = inPool.pool ?? [];
  assert.deepEqual(pooled.map((p) => [p.txid, p.amount]), [[txid, amount]], "bob's wallet sees the tx in tsmonerod's pool");
  phase("bob saw it in the pool");
  await walletCall(WALLET_URL, "close_wallet");

  const g = await nodeRpc(daemon.rpcUrl, "generateblocks", { amount_of_blocks: 1, wallet_address: recorded.wallets.alice.address });
  assert.equal(g.result?.height, recordedBlocks().length);
  const tx = await nodePath(daemon.rpcUrl, "/get_transactions", { txs_hashes: [txid] });
  assert.equal(tx.txs?.[0].in_pool, false);
  assert.equal(tx.txs?.[0].block_height, recordedBlocks().length);

  await walletCall(WALLET_URL, "open_wallet", { filename: "bob", password: "" });
  await walletCall(WALLET_URL, "refresh");
  phase("bob refreshed");
  const got = await walletCall(WALLET_URL, "get_transfer_by_txid", { txid });
  const transfer = got.transfer;
  assert.equal(transfer.type, "in");
  assert.equal(transfer.amount, amount);
  assert.equal(transfer.height, recordedBlocks().length);
  assert.equal(transfer.confirmations, 1);
  phase("bob's transfer checked");
});
