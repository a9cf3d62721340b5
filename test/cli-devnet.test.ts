/**
 * `tsmonero --wallets 0` (what `npm start` runs, without its dev wallets) as a real child process: a regtest node and a wallet RPC in one
 * process. A wallet created over the wallet RPC receives the coinbase of blocks mined with the
 * node's generateblocks; SIGTERM stores the wallet and closes the chain; a restart keeps both.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { nodeCall } from "./helpers/node-rpc.js";
import { walletCall } from "./helpers/wallet-rpc.js";

const BIN = fileURLToPath(new URL("../../bin/tsmonero", import.meta.url));
const NODE_PORT = 29660;
const WALLET_PORT = 29661;
const procs: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), "tsmonero-devnet-"));

after(() => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<{ proc: ChildProcess; out: string[]; exited: Promise<number | null> }> {
  const proc = spawn(process.execPath, [BIN, "--data-dir", dir, "--rpc-bind-port", String(NODE_PORT), "--wallet-rpc-bind-port", String(WALLET_PORT), "--no-web-console", "--wallets", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  procs.push(proc);
  const out: string[] = [];
  proc.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
  proc.stderr?.on("data", (b: Buffer) => out.push(b.toString()));
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  const deadline = Date.now() + 30_000;
  while (!out.join("").includes("wallet RPC")) {
    if (proc.exitCode !== null) throw new Error(`tsmonero exited: ${out.join("")}`);
    if (Date.now() > deadline) throw new Error(`tsmonero did not start: ${out.join("")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { proc, out, exited };
}

const NODE_URL = `http://127.0.0.1:${NODE_PORT}`;
const WALLET_URL = `http://127.0.0.1:${WALLET_PORT}`;

test("tsmonero devnet: node + wallet RPC in one process, mined coinbase reaches the wallet, SIGTERM stores, restart keeps both", async () => {
  const first = await start();
  const printed = first.out.join("");
  assert.match(printed, new RegExp(`node RPC .*http://127\\.0\\.0\\.1:${NODE_PORT}/json_rpc`));
  assert.match(printed, new RegExp(`wallet RPC .*http://127\\.0\\.0\\.1:${WALLET_PORT}/json_rpc`));

  const info = await nodeCall(NODE_URL, "get_info");
  assert.equal(info.nettype, "fakechain");
  assert.equal(info.height, 1);
  await walletCall(WALLET_URL, "create_wallet", { filename: "dev", password: "pw", language: "English" });
  const { address } = await walletCall(WALLET_URL, "get_address");
  const mined = await nodeCall(NODE_URL, "generateblocks", { amount_of_blocks: 65, wallet_address: address });
  assert.equal(mined.blocks.length, 65);
  const refreshed = await walletCall(WALLET_URL, "refresh");
  // the service's first auto refresh (the tick after the wallet opens) races generateblocks: when it
  // wins, it fetched the blocks and this refresh answers 0 / false; either way the wallet is synced
  assert.equal(refreshed.received_money, refreshed.blocks_fetched > 0);
  assert.equal((await walletCall(WALLET_URL, "get_height")).height, 66);
  const bal = await walletCall(WALLET_URL, "get_balance");
  assert.ok(bal.balance > 0, "the coinbase of 65 blocks is in the balance");
  // 65 blocks mined, coinbase unlocks after 60: the first few are spendable
  assert.ok(bal.unlocked_balance > 0 && bal.unlocked_balance < bal.balance);

  first.proc.kill("SIGTERM");
  const t0 = Date.now();
  assert.equal(await first.exited, 0);
  assert.ok(Date.now() - t0 < 8000, "stops within a few seconds");
  assert.ok(existsSync(join(dir, "wallets", "dev")) && existsSync(join(dir, "wallets", "dev.keys")));

  // restart: the chain is kept (--keep-fakechain) and the stored wallet opens with its balance
  const second = await start();
  const info2 = await nodeCall(NODE_URL, "get_info");
  assert.equal(info2.height, 66);
  await walletCall(WALLET_URL, "open_wallet", { filename: "dev", password: "pw" });
  const bal2 = await walletCall(WALLET_URL, "get_balance");
  assert.equal(bal2.balance, bal.balance);
  await assert.rejects(walletCall(WALLET_URL, "open_wallet", { filename: "dev", password: "wrong" }), /-1 |password/i);
  second.proc.kill("SIGTERM");
  assert.equal(await second.exited, 0);
});

test("tsmonero: a bad flag is an error naming it", () => {
  const r = spawnSync(process.execPath, [BIN, "--no-such-flag"], { encoding: "utf8" });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /--no-such-flag/);
  const p = spawnSync(process.execPath, [BIN, "--rpc-bind-port", "70000"], { encoding: "utf8" });
  assert.notEqual(p.status, 0);
  assert.match(p.stderr, /--rpc-bind-port must be a port number/);
});
