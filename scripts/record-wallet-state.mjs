#!/usr/bin/env node
// Records what real monero-wallet-rpc wallets answer about a regtest chain, so the wallet ledger
// (src/wallet/ledger) can be compared with them field for field (test/wallet-ledger.test.ts).
// Run: node scripts/record-wallet-state.mjs [outDir]   (default test/fixtures/wallet-state)
//
// It starts `monerod --regtest --offline --fixed-difficulty 1` and three `monero-wallet-rpc` (Debian's
// `monero` package) on ports 28500-28599 in a temporary directory, restores alice, bob and carol from
// the seeds of scripts/record-chain.mjs, mines and makes transfers (primary, subaddress, second
// account, integrated, unlock_time by height and by timestamp, sweeps, multi-destination), leaves a
// few transfers in the pool, and then restores each wallet again from its seed under a new name, so
// the recorded answers are those of a wallet that learnt everything from the chain, as ours does:
//   chain.json.gz  blocks (height, hash, blob), every non-coinbase tx's blob, the pool's tx blobs
//   <name>.json    get_height, get_balance (all accounts; per account; strict and not),
//                  get_accounts, get_transfers (every kind, all accounts), incoming_transfers
//                  (all/available/unavailable, accounts 0 and 1), get_bulk_payments, recorded_at
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = process.argv[2] ?? join(root, "test", "fixtures", "wallet-state");
const DAEMON_RPC = 28501;
const DAEMON_P2P = 28502;
const WALLET_PORTS = { alice: 28511, bob: 28512, carol: 28513 };
// the seeds of scripts/record-chain.mjs
const SEEDS = {
  alice:
    "bowling feel syllabus fifteen sipped hills yearbook butter wipeout fewest lymph lawsuit enraged humid emotion agony etiquette dejected buzzer ounce getting aspire ruffled smuggled buzzer",
  bob: "catch weavers linen olympics ramped lagoon galaxy locker gusts roles love peculiar eels dejected talent legion cause toffee diet duplex upcoming dodge taboo umbrella cause",
  carol:
    "mystery demonstrate lush bevel exult often topic opus motherly aztec wolf vain voyage getting odometer voyage salads saga hybrid items upload husband kitchens love odometer",
};

const tmp = mkdtempSync(join(tmpdir(), "tsmonero-wallet-state-"));
const children = [];
let stopping = false;
let failed;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function start(cmd, args, name) {
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "ignore"] });
  child.on("exit", (code, sig) => {
    if (!stopping) {
      console.error(`${name} exited early (code ${code}, signal ${sig}); KEEP_TMP=1 keeps ${tmp}`);
      failed = `${name} exited`;
    }
  });
  children.push(child);
  return child;
}

async function stopAll() {
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  const deadline = Date.now() + 15000;
  while (children.some((c) => c.exitCode === null && c.signalCode === null) && Date.now() < deadline) await sleep(200);
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
}

async function post(port, path, body) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    body,
    headers: { "Content-Type": "application/json" },
    signal: AbortSignal.timeout(600000),
  });
  if (!res.ok) throw new Error(`${path} on ${port}: HTTP ${res.status}`);
  return res;
}

// Monero's JSON carries u64 values above 2^53; keep every number's digits exactly.
function parseExact(text) {
  return JSON.parse(text.replace(/(:\s*|\[\s*|,\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
}

async function rpc(port, method, params = {}) {
  const res = await post(port, "/json_rpc", JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }));
  const j = parseExact(await res.text());
  if (j.error) throw new Error(`${method} on ${port}: ${j.error.message} (${j.error.code})`);
  return j.result;
}

async function other(port, path, params) {
  const res = await post(port, path, JSON.stringify(params));
  const j = parseExact(await res.text());
  if (j.status && j.status !== "OK") throw new Error(`${path}: ${j.status}`);
  return j;
}

async function waitFor(what, fn, ms = 120000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    if (failed) throw new Error(`${what}: ${failed}`);
    try {
      return await fn();
    } catch (e) {
      last = e;
      await sleep(500);
    }
  }
  throw new Error(`timed out waiting for ${what}: ${last?.message}`);
}

async function main() {
  mkdirSync(outDir, { recursive: true });
  mkdirSync(join(tmp, "node"));
  mkdirSync(join(tmp, "wallets"));
  start(
    "monerod",
    ["--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", join(tmp, "node"), "--rpc-bind-port", String(DAEMON_RPC),
      "--p2p-bind-port", String(DAEMON_P2P), "--no-zmq", "--non-interactive", "--log-file", join(tmp, "monerod.log")],
    "monerod",
  );
  await waitFor("monerod RPC", () => rpc(DAEMON_RPC, "get_info"));
  for (const [name, port] of Object.entries(WALLET_PORTS)) {
    start(
      "monero-wallet-rpc",
      ["--wallet-dir", join(tmp, "wallets"), "--disable-rpc-login", "--daemon-address", `127.0.0.1:${DAEMON_RPC}`,
        "--rpc-bind-port", String(port), "--log-file", join(tmp, `wallet-${name}.log`)],
      `wallet-${name}`,
    );
  }
  const W = {};
  for (const [name, port] of Object.entries(WALLET_PORTS)) {
    await waitFor(`wallet-rpc ${name}`, () => rpc(port, "get_version"));
    await rpc(port, "restore_deterministic_wallet", { filename: name, seed: SEEDS[name], password: "", restore_height: 0, language: "English" });
    W[name] = { port, address: (await rpc(port, "get_address", { account_index: 0 })).address };
  }
  for (const name of ["bob", "carol"]) {
    const w = W[name];
    w.subs = [];
    for (let i = 0; i < 3; i++) w.subs.push((await rpc(w.port, "create_address", { account_index: 0 })).address);
    w.account1 = (await rpc(w.port, "create_account", {})).address;
    w.integrated = (await rpc(w.port, "make_integrated_address", {})).integrated_address;
  }
  const mine = (n, who) => rpc(DAEMON_RPC, "generateblocks", { amount_of_blocks: n, wallet_address: W[who].address });
  const refresh = async () => {
    for (const w of Object.values(W)) await rpc(w.port, "refresh", {});
  };
  const height = async () => (await rpc(DAEMON_RPC, "get_block_count")).count;
  let failures = 0;
  const send = async (from, method, params) => {
    try {
      await rpc(W[from].port, method, params);
    } catch (e) {
      failures++;
      console.warn(`  ${method} from ${from} failed: ${e.message}`);
    }
  };
  const XMR = 1000000000000;
  const amt = (milli) => Math.round((milli * XMR) / 1000);

  await mine(80, "alice");
  await mine(12, "bob");
  await mine(70, "alice");
  for (let round = 0; round < 3; round++) {
    await refresh();
    const h = await height();
    await send("alice", "transfer", { destinations: [{ amount: amt(1500 + round), address: W.bob.address }] });
    await send("alice", "transfer", { destinations: [{ amount: amt(700), address: W.bob.subs[round] }, { amount: amt(800), address: W.carol.subs[0] }] });
    await send("alice", "transfer", { destinations: [{ amount: amt(900), address: W.carol.account1 }] });
    await send("alice", "transfer", { destinations: [{ amount: amt(333), address: W.bob.integrated }] });
    await send("alice", "transfer", { destinations: [{ amount: amt(50), address: W.bob.address }], unlock_time: h + 40 + round });
    if (round === 1) {
      await send("alice", "transfer", { destinations: [{ amount: amt(60), address: W.carol.address }], unlock_time: Math.floor(Date.now() / 1000) + 86400 });
      await send("bob", "sweep_all", { address: W.carol.subs[1], account_index: 0 });
    }
    if (round === 2) {
      await send("bob", "transfer", { destinations: [{ amount: amt(200), address: W.alice.address }, { amount: amt(100), address: W.carol.address }] });
      await send("carol", "transfer", { account_index: 1, destinations: [{ amount: amt(150), address: W.bob.subs[2] }] });
      await send("carol", "transfer", { destinations: [{ amount: amt(120), address: W.carol.subs[2] }] }); // to herself
    }
    await mine(round === 1 ? 2 : 1, "alice");
    await mine(10, "carol");
  }
  await refresh();
  // left in the pool
  await send("alice", "transfer", { destinations: [{ amount: amt(77), address: W.bob.subs[1] }, { amount: amt(88), address: W.carol.address }] });
  await send("bob", "transfer", { destinations: [{ amount: amt(44), address: W.carol.account1 }] });
  const chainHeight = await height();
  console.log(`chain height ${chainHeight}, failures ${failures}`);

  // ---- the chain and the pool ----
  const blocks = [];
  const txIds = [];
  for (let h = 0; h < chainHeight; h++) {
    const b = await rpc(DAEMON_RPC, "get_block", { height: h });
    blocks.push({ height: h, hash: b.block_header.hash, blob: b.blob, tx_hashes: b.tx_hashes ?? [] });
    txIds.push(...(b.tx_hashes ?? []));
  }
  const txs = {};
  for (let i = 0; i < txIds.length; i += 50) {
    const r = await other(DAEMON_RPC, "/get_transactions", { txs_hashes: txIds.slice(i, i + 50) });
    for (const t of r.txs) txs[t.tx_hash] = t.as_hex;
  }
  const pool = (await other(DAEMON_RPC, "/get_transaction_pool", {})).transactions ?? [];
  const poolTxs = pool.map((t) => ({ tx_hash: t.id_hash, as_hex: t.tx_blob, double_spend_seen: t.double_spend_seen }));

  // ---- the same wallets restored from their seeds, as our ledger sees the chain ----
  const state = {};
  for (const [name, w] of Object.entries(W)) {
    await rpc(w.port, "close_wallet", {});
    await rpc(w.port, "restore_deterministic_wallet", { filename: `${name}-restored`, seed: SEEDS[name], password: "", restore_height: 0, language: "English" });
    await rpc(w.port, "refresh", {});
    const s = { recorded_at: Math.floor(Date.now() / 1000) };
    s.get_height = await rpc(w.port, "get_height");
    s.get_accounts = await rpc(w.port, "get_accounts", {});
    s.get_balance_all = await rpc(w.port, "get_balance", { all_accounts: true });
    s.get_balance_all_strict = await rpc(w.port, "get_balance", { all_accounts: true, strict: true });
    s.get_balance = [];
    for (let a = 0; a < s.get_accounts.subaddress_accounts.length; a++) {
      s.get_balance.push(await rpc(w.port, "get_balance", { account_index: a }));
    }
    s.get_transfers = await rpc(w.port, "get_transfers", { in: true, out: true, pending: true, failed: true, pool: true, all_accounts: true });
    s.incoming_transfers = {};
    for (const type of ["all", "available", "unavailable"]) {
      for (const a of [0, 1]) s.incoming_transfers[`${type}/${a}`] = await rpc(w.port, "incoming_transfers", { transfer_type: type, account_index: a });
    }
    const pids = [...new Set((s.get_transfers.in ?? []).map((e) => e.payment_id).filter((p) => !/^0+$/.test(p)))];
    s.payment_ids = pids;
    s.get_bulk_payments = pids.length ? await rpc(w.port, "get_bulk_payments", { payment_ids: pids, min_block_height: 0 }) : {};
    s.recorded_until = Math.floor(Date.now() / 1000);
    state[name] = s;
    writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(s, null, 1)}\n`);
  }
  writeFileSync(join(outDir, "chain.json.gz"), gzipSync(JSON.stringify({ height: chainHeight, blocks, txs, pool: poolTxs, failures })));
  console.log(`recorded ${blocks.length} blocks, ${txIds.length} txs, ${poolTxs.length} in the pool into ${outDir}`);
}

let code = 0;
try {
  await main();
} catch (e) {
  console.error(e);
  code = 1;
} finally {
  await stopAll();
  if (process.env.KEEP_TMP !== "1") rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);
