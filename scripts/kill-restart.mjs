#!/usr/bin/env node
/**
 * SIGKILL at random moments, then restart (issue 14): every restart must come up, the node's chain
 * must still link from its top block to genesis, and the wallet's balance after a refresh must
 * equal a fresh restore's from the same seed.
 *
 *   node scripts/kill-restart.mjs                 # 100 rounds of each service
 *   node scripts/kill-restart.mjs --rounds 10     # a quick run
 *
 * Node rounds: tsmonerod (regtest, --keep-fakechain) is killed while generateblocks runs. Wallet
 * rounds: tsmonero-wallet-rpc (on a node of its own) is killed while it refreshes, stores, sends
 * (a relayed transfer to itself) or answers. Only 127.0.0.1; data in a temporary directory, removed at the end.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const ri = args.indexOf("--rounds");
const ROUNDS = ri < 0 ? 100 : Number(args[ri + 1]);
if (!Number.isInteger(ROUNDS) || ROUNDS <= 0) {
  console.error(`kill-restart: --rounds needs a positive integer (got ${args[ri + 1]})`);
  process.exit(2);
}
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HOST = "127.0.0.1";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(join(tmpdir(), "tsmonero-kill-"));
const live = new Set();

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function start(bin, argv, ready) {
  const p = spawn(process.execPath, [join(ROOT, "bin", bin), ...argv], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  live.add(p);
  p.once("exit", () => live.delete(p));
  const out = [];
  p.stdout.on("data", (b) => out.push(b.toString()));
  p.stderr.on("data", (b) => out.push(b.toString()));
  const deadline = Date.now() + 60_000;
  while (!out.join("").includes(ready)) {
    if (p.exitCode !== null || Date.now() > deadline) throw new Error(`${bin} did not come up:\n${out.join("").slice(-2000)}`);
    await sleep(20);
  }
  return { p, out };
}

async function kill9(x) {
  if (x.p.exitCode !== null || x.p.signalCode !== null) return;
  const gone = new Promise((r) => x.p.once("exit", r));
  x.p.kill("SIGKILL");
  await gone;
}

async function rpc(port, method, params = {}, timeoutMs = 60_000) {
  const res = await fetch(`http://${HOST}:${port}/json_rpc`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 0, method, params }), signal: AbortSignal.timeout(timeoutMs) });
  const j = await res.json();
  if (j.error) throw new Error(`${method}: ${j.error.code} ${j.error.message}`);
  return j.result;
}

/** The top block links to genesis: every header's prev_hash is the hash of the one below. */
async function chainLinks(port) {
  const { count } = await rpc(port, "get_block_count");
  const { headers } = await rpc(port, "get_block_headers_range", { start_height: 0, end_height: count - 1 });
  for (let h = 1; h < headers.length; h++) {
    if (headers[h].prev_hash !== headers[h - 1].hash) throw new Error(`block ${h} does not link to block ${h - 1}`);
  }
  return count;
}

const ADDRESS = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
let failures = 0;
try {
  // ---- the node ----
  const nodePort = await freePort();
  const nodeArgs = ["--regtest", "--offline", "--keep-fakechain", "--fixed-difficulty", "1", "--data-dir", join(dir, "node"), "--rpc-bind-ip", HOST, "--rpc-bind-port", String(nodePort), "--p2p-bind-port", String(await freePort()), "--no-igd", "--non-interactive", "--log-file", ""];
  let height = 0;
  const t0 = Date.now();
  for (let r = 0; r < ROUNDS; r++) {
    const n = await start("tsmonerod", nodeArgs, "RPC listening on");
    try {
      const h = await chainLinks(nodePort);
      if (h < height) throw new Error(`height went back from ${height} to ${h} (blocks generated before a kill are kept only once their write committed)`);
      height = h;
    } catch (e) {
      failures++;
      console.log(`node round ${r}: ${e instanceof Error ? e.message : String(e)}`);
    }
    void rpc(nodePort, "generateblocks", { amount_of_blocks: 50, wallet_address: ADDRESS }).catch(() => undefined);
    await sleep(50 + Math.random() * 700);
    await kill9(n);
  }
  const n = await start("tsmonerod", nodeArgs, "RPC listening on");
  const finalHeight = await chainLinks(nodePort);
  await kill9(n);
  console.log(`kill-restart: tsmonerod: ${ROUNDS} SIGKILLs during generateblocks, ${ROUNDS + 1} restarts came up, chain links to genesis at height ${finalHeight}, ${failures} failures (${((Date.now() - t0) / 1000).toFixed(0)} s)`);

  // ---- the wallet, on a node of its own that keeps running ----
  const wNodePort = await freePort();
  const wNode = await start("tsmonerod", ["--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", join(dir, "wnode"), "--rpc-bind-ip", HOST, "--rpc-bind-port", String(wNodePort), "--p2p-bind-port", String(await freePort()), "--no-igd", "--non-interactive", "--log-file", ""], "RPC listening on");
  const walletPort = await freePort();
  const walletArgs = ["--daemon-address", `${HOST}:${wNodePort}`, "--wallet-dir", join(dir, "wallets"), "--rpc-bind-ip", HOST, "--rpc-bind-port", String(walletPort)];
  let w = await start("tsmonero-wallet-rpc", [...walletArgs, "--disable-rpc-login"], "Starting wallet RPC server");
  await rpc(walletPort, "create_wallet", { filename: "k", password: "", language: "English" });
  const { address } = await rpc(walletPort, "get_address", { account_index: 0 });
  const { key: seed } = await rpc(walletPort, "query_key", { key_type: "mnemonic" });
  // coinbase outputs that unlock as the rounds go, so some rounds are killed while sending
  await rpc(wNodePort, "generateblocks", { amount_of_blocks: 70, wallet_address: address });
  await kill9(w);
  const wFailures0 = failures;
  let sends = 0;
  let sendTries = 0;
  const sendFails = new Map();
  const t1 = Date.now();
  for (let r = 0; r < ROUNDS; r++) {
    // every other round with a generated login file, so stale login files are met too
    const login = r % 2 === 0 ? ["--disable-rpc-login"] : [];
    if (login.length === 0) {
      try {
        w = await start("tsmonero-wallet-rpc", walletArgs, "Starting wallet RPC server");
        await kill9(w);
      } catch (e) {
        failures++;
        console.log(`wallet round ${r} (login file): ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    try {
      w = await start("tsmonero-wallet-rpc", [...walletArgs, "--disable-rpc-login"], "Starting wallet RPC server");
      await rpc(walletPort, "open_wallet", { filename: "k", password: "" });
    } catch (e) {
      failures++;
      console.log(`wallet round ${r}: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    // new blocks to the wallet, then kill while it refreshes / stores / sends / answers
    await rpc(wNodePort, "generateblocks", { amount_of_blocks: 2, wallet_address: address });
    const act = Math.random();
    if (act < 0.35) void rpc(walletPort, "refresh").catch(() => undefined);
    else if (act < 0.7) void rpc(walletPort, "store").catch(() => undefined);
    else {
      await rpc(walletPort, "refresh").catch(() => undefined); // sends from what the chain holds, not a stale cache
      sendTries++;
      void rpc(walletPort, "transfer", { destinations: [{ address, amount: 1_000_000_000 }] }).then(
        () => sends++,
        (e) => {
          // a kill drops the connection (fetch failed); anything else is the wallet refusing
          const why = e instanceof Error && /^transfer:/.test(e.message) ? e.message : "killed";
          sendFails.set(why, (sendFails.get(why) ?? 0) + 1);
        },
      );
    }
    void rpc(walletPort, "get_balance").catch(() => undefined);
    await sleep(Math.random() * (act < 0.7 ? 300 : 800)); // a send takes longer: some finish, some are cut off
    await kill9(w);
  }
  // the balance after a refresh equals a fresh restore's (a block first: relayed sends confirm)
  await rpc(wNodePort, "generateblocks", { amount_of_blocks: 1, wallet_address: address });
  w = await start("tsmonero-wallet-rpc", [...walletArgs, "--disable-rpc-login"], "Starting wallet RPC server");
  await rpc(walletPort, "open_wallet", { filename: "k", password: "" });
  await rpc(walletPort, "refresh", {}, 600_000);
  const kept = await rpc(walletPort, "get_balance");
  await rpc(walletPort, "restore_deterministic_wallet", { filename: "fresh", seed, password: "", restore_height: 0 });
  await rpc(walletPort, "refresh", {}, 600_000);
  const fresh = await rpc(walletPort, "get_balance");
  await kill9(w);
  const same = kept.balance === fresh.balance && kept.unlocked_balance === fresh.unlocked_balance;
  if (!same) failures++;
  console.log(`kill-restart: tsmonero-wallet-rpc: ${ROUNDS} SIGKILLs while refreshing/storing/sending/answering (${sendTries} transfers started, ${sends} answered before the kill, cut off or refused: ${[...sendFails].map(([k, v]) => `${v} ${k}`).join(", ") || "none"}), restarts came up (${failures - wFailures0} failures); balance ${kept.balance} vs fresh restore ${fresh.balance}: ${same ? "equal" : "DIFFERENT"} (${((Date.now() - t1) / 1000).toFixed(0)} s)`);
  await kill9(wNode);
} catch (e) {
  failures++;
  console.error(`kill-restart: ${e instanceof Error ? e.message : String(e)}`);
}
for (const p of live) p.kill("SIGKILL");
rmSync(dir, { recursive: true, force: true });
process.exit(failures > 0 ? 1 : 0);
