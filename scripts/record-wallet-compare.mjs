#!/usr/bin/env node
// Records the fixtures of test/wallet-compare.test.ts: a regtest chain made by a real monerod and real
// monero-wallet-rpc wallets (Debian's `monero` package) with every case the wallet acceptance of
// issue 7 names, and what freshly restored real monero-wallet-rpc wallets answer about it.
// Run: node scripts/record-wallet-compare.mjs [outDir]   (default test/fixtures/wallet-compare)
//
// The chain (ports 29301-29319, a temporary directory):
//   coinbase to alice, bob and carol; transfers to primary addresses, to subaddresses of account 0
//   (indices 1, 2, 40 and 150), to accounts
//   1, 2 and 3 (carol) and 1 (bob), to integrated addresses (random and fixed payment ids),
//   multi-destination txs, unlock_time by height and by timestamp (year 2096), spends from account 1
//   and 2, a transfer to oneself, sweep_all (to a subaddress, from account 0) and sweep_single;
//   transfers left in the pool (incoming and outgoing for several wallets).
// Then each wallet is restored from its seed under a new name (restore_height 0) and every query of
// queries() is asked; that is state "A" (and "R": restored with restore_height 120 instead of 0). Then the daemon pops 4 blocks (round 2's and the late txs
// go back to the pool) and mines 2 others to carol: the wallets that knew "A" refresh ("B-reorged") and wallets restored anew
// answer the same queries ("B-fresh").
// Written: chain.json.gz (blocks of A, their txs, the pool, the popped heights, the continuation
// blocks), <name>.json.gz ({ queries: [{method, params}], A: [answer], R, restore_height, "B-reorged", "B-fresh":
// [...], recorded_at }), meta.json. An answer is { result } or { error: { code, message } }; numbers of
// 16 digits or more are kept as strings (the test parses both wallets' answers the same way).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = process.argv[2] ?? join(root, "test", "fixtures", "wallet-compare");
const DAEMON_RPC = 29301;
const DAEMON_P2P = 29302;
const WALLET_PORTS = { alice: 29311, bob: 29312, carol: 29313 };
// the seeds of scripts/record-chain.mjs (test/helpers/chain.ts WALLET_SEEDS)
const SEEDS = {
  alice:
    "bowling feel syllabus fifteen sipped hills yearbook butter wipeout fewest lymph lawsuit enraged humid emotion agony etiquette dejected buzzer ounce getting aspire ruffled smuggled buzzer",
  bob: "catch weavers linen olympics ramped lagoon galaxy locker gusts roles love peculiar eels dejected talent legion cause toffee diet duplex upcoming dodge taboo umbrella cause",
  carol:
    "mystery demonstrate lush bevel exult often topic opus motherly aztec wolf vain voyage getting odometer voyage salads saga hybrid items upload husband kitchens love odometer",
};
const FIXED_PID = "deadbeefcafe0001";
const POP = 4;
const RESTORE_HEIGHT = 120;
const CONTINUE = 2;

const tmp = mkdtempSync(join(tmpdir(), "tsmonero-wallet-compare-"));
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

// Monero's JSON carries u64 values above 2^53; keep every long number's digits exactly.
function parseExact(text) {
  return JSON.parse(text.replace(/(:\s*|\[\s*|,\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
}

async function call(port, method, params = {}) {
  const res = await post(port, "/json_rpc", JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }));
  const j = parseExact(await res.text());
  return j.error ? { error: { code: j.error.code, message: j.error.message } } : { result: j.result };
}

async function rpc(port, method, params = {}) {
  const a = await call(port, method, params);
  if (a.error) throw new Error(`${method} on ${port}: ${a.error.message} (${a.error.code})`);
  return a.result;
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

const uniq = (xs) => [...new Set(xs)];
const ALL_KINDS = { in: true, out: true, pending: true, failed: true, pool: true };

/**
 * The queries asked of each wallet, derived from what a wallet restored from the seed knows (its
 * accounts, the subaddresses that received, its txids and payment ids), so both wallets in the test
 * are asked exactly the same list.
 */
async function queries(port, height) {
  const q = [];
  const add = (method, params) => q.push({ method, params });
  const accounts = (await rpc(port, "get_accounts", {})).subaddress_accounts;
  const all = await rpc(port, "get_transfers", { ...ALL_KINDS, all_accounts: true });
  const entries = Object.values(all).flat();
  const subsOf = (a) => uniq(entries.flatMap((e) => (e.subaddr_index.major === a ? [e.subaddr_index.minor, ...(e.subaddr_indices ?? []).filter((s) => s.major === a).map((s) => s.minor)] : []))).sort((x, y) => x - y);
  // every non-coinbase tx and a few coinbase ones (alice has ~140, all alike)
  const coinbase = uniq(entries.filter((e) => e.type === "block").map((e) => e.txid));
  const txids = [...uniq(entries.filter((e) => e.type !== "block").map((e) => e.txid)), ...coinbase.slice(0, 2), ...coinbase.slice(-2)];
  const pids = uniq(entries.map((e) => e.payment_id).filter((p) => p && !/^0+$/.test(p)));
  const mid = Math.floor(height / 2);

  add("get_height", {});
  for (const a of accounts) add("get_address", { account_index: a.account_index });
  add("get_balance", {});
  add("get_balance", { all_accounts: true });
  add("get_balance", { all_accounts: true, strict: true });
  for (const { account_index: a } of accounts) {
    const subs = subsOf(a);
    add("get_balance", { account_index: a });
    add("get_balance", { account_index: a, strict: true });
    if (subs.length) add("get_balance", { account_index: a, address_indices: subs });
    if (subs.length > 1) add("get_balance", { account_index: a, address_indices: [subs[subs.length - 1]], strict: true });
    add("get_balance", { account_index: a, address_indices: [0] });
  }
  add("get_balance", { account_index: accounts.length + 5 }); // out of range: an error
  add("get_accounts", {});
  add("get_accounts", { strict_balances: true });

  for (const kind of Object.keys(ALL_KINDS)) add("get_transfers", { [kind]: true });
  for (const kind of Object.keys(ALL_KINDS)) add("get_transfers", { [kind]: true, all_accounts: true });
  add("get_transfers", { ...ALL_KINDS });
  add("get_transfers", { ...ALL_KINDS, all_accounts: true });
  add("get_transfers", { in: true, out: true, filter_by_height: true, min_height: mid, max_height: height - 5 });
  add("get_transfers", { in: true, out: true, pool: true, filter_by_height: true, min_height: mid });
  add("get_transfers", { in: true, out: true, filter_by_height: true, max_height: mid, all_accounts: true });
  add("get_transfers", { in: true, filter_by_height: true, min_height: 0, max_height: 61 });
  add("get_transfers", { in: true, out: true, min_height: height - 20, max_height: height - 10 }); // ignored without filter_by_height
  add("get_transfers", { in: true, filter_by_height: true, min_height: 10, max_height: 5 }); // empty range
  for (const { account_index: a } of accounts) {
    add("get_transfers", { ...ALL_KINDS, account_index: a });
    const subs = subsOf(a);
    if (subs.length) add("get_transfers", { ...ALL_KINDS, account_index: a, subaddr_indices: subs });
    if (subs.length > 1) add("get_transfers", { in: true, pool: true, account_index: a, subaddr_indices: [subs[subs.length - 1]] });
    add("get_transfers", { in: true, out: true, account_index: a, filter_by_height: true, min_height: mid });
  }

  for (const txid of txids) add("get_transfer_by_txid", { txid });
  for (const txid of txids.slice(0, 6)) for (const { account_index: a } of accounts) add("get_transfer_by_txid", { txid, account_index: a });
  add("get_transfer_by_txid", { txid: "00".repeat(32) });
  add("get_transfer_by_txid", { txid: "zz" });

  for (const transfer_type of ["all", "available", "unavailable"]) {
    for (const { account_index: a } of accounts) {
      add("incoming_transfers", { transfer_type, account_index: a });
      const subs = subsOf(a);
      if (subs.length) add("incoming_transfers", { transfer_type, account_index: a, subaddr_indices: subs });
      if (subs.length > 1) add("incoming_transfers", { transfer_type, account_index: a, subaddr_indices: [subs[subs.length - 1]] });
    }
    add("incoming_transfers", { transfer_type });
  }
  add("incoming_transfers", { transfer_type: "all", verbose: true });
  add("incoming_transfers", { transfer_type: "spent" }); // not a type: an error

  for (const payment_id of pids) add("get_payments", { payment_id });
  add("get_payments", { payment_id: "0123456789abcdef" });
  add("get_payments", { payment_id: "xyz" });
  add("get_bulk_payments", { payment_ids: pids });
  add("get_bulk_payments", { payment_ids: pids, min_block_height: mid });
  add("get_bulk_payments", { payment_ids: [] });
  add("get_bulk_payments", { min_block_height: mid });
  add("get_bulk_payments", {});
  add("get_bulk_payments", { payment_ids: [...pids, "0123456789abcdef"], min_block_height: 1 });
  return q;
}

async function answers(port, qs) {
  const out = [];
  for (const { method, params } of qs) out.push(await call(port, method, params));
  return out;
}

async function main() {
  mkdirSync(outDir, { recursive: true });
  mkdirSync(join(tmp, "node"));
  mkdirSync(join(tmp, "wallets"));
  start(
    "monerod",
    ["--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", join(tmp, "node"), "--rpc-bind-ip", "127.0.0.1",
      "--rpc-bind-port", String(DAEMON_RPC), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(DAEMON_P2P), "--no-zmq",
      "--non-interactive", "--log-file", join(tmp, "monerod.log")],
    "monerod",
  );
  await waitFor("monerod RPC", () => rpc(DAEMON_RPC, "get_info"));
  const version = await rpc(DAEMON_RPC, "get_version");
  for (const [name, port] of Object.entries(WALLET_PORTS)) {
    start(
      "monero-wallet-rpc",
      ["--wallet-dir", join(tmp, "wallets"), "--disable-rpc-login", "--daemon-address", `127.0.0.1:${DAEMON_RPC}`,
        "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(port), "--log-file", join(tmp, `wallet-${name}.log`)],
      `wallet-${name}`,
    );
  }
  const W = {};
  for (const [name, port] of Object.entries(WALLET_PORTS)) {
    await waitFor(`wallet-rpc ${name}`, () => rpc(port, "get_version"));
    await rpc(port, "restore_deterministic_wallet", { filename: name, seed: SEEDS[name], password: "", restore_height: 0, language: "English" });
    W[name] = { port, address: (await rpc(port, "get_address", { account_index: 0 })).address };
  }
  // bob: account 0 subaddresses 1, 2, 40, 150; account 1. (No subaddress beyond the initial lookahead
// of 200: a freshly restored wallet2 checks a whole batch of blocks against the table it had when the
// batch began, so it misses such a payment when the one that grew the table is in the same batch,
// while a wallet that saw them in separate refreshes finds it; no single answer to compare.) carol: accounts 1..3 (subaddresses 0..2).
  const subaddress = async (w, account_index, minor) => {
    for (;;) {
      const r = await rpc(w.port, "get_address", { account_index });
      const have = r.addresses.length;
      if (have > minor) return r.addresses[minor].address;
      await rpc(w.port, "create_address", { account_index, count: Math.min(64, minor + 1 - have) });
    }
  };
  for (const name of ["bob", "carol"]) {
    const w = W[name];
    for (let a = 1; a <= (name === "carol" ? 3 : 1); a++) await rpc(w.port, "create_account", { label: `${name}-${a}` });
    w.integrated = (await rpc(w.port, "make_integrated_address", {})).integrated_address;
  }
  W.carol.fixedIntegrated = (await rpc(W.carol.port, "make_integrated_address", { payment_id: FIXED_PID })).integrated_address;
  W.bob.s1 = await subaddress(W.bob, 0, 1);
  W.bob.s2 = await subaddress(W.bob, 0, 2);
  W.bob.s150 = await subaddress(W.bob, 0, 150);
  W.bob.s40 = await subaddress(W.bob, 0, 40);
  W.bob.a1 = await subaddress(W.bob, 1, 0);
  W.bob.a1s4 = await subaddress(W.bob, 1, 4);
  W.carol.s1 = await subaddress(W.carol, 0, 1);
  W.carol.a1 = await subaddress(W.carol, 1, 0);
  W.carol.a2s1 = await subaddress(W.carol, 2, 1);
  W.carol.a3s2 = await subaddress(W.carol, 3, 2);

  const mine = (n, who) => rpc(DAEMON_RPC, "generateblocks", { amount_of_blocks: n, wallet_address: W[who].address });
  const refresh = async () => {
    for (const w of Object.values(W)) await rpc(w.port, "refresh", {});
  };
  const height = async () => (await rpc(DAEMON_RPC, "get_block_count")).count;
  let failures = 0;
  const sent = [];
  const send = async (from, what, method, params) => {
    try {
      const r = await rpc(W[from].port, method, params);
      sent.push({ from, what, txids: r.tx_hash_list ?? [r.tx_hash] });
    } catch (e) {
      failures++;
      console.warn(`  ${what} (${method} from ${from}) failed: ${e.message}`);
    }
  };
  const XMR = 1000000000000;
  const amt = (milli) => Math.round((milli * XMR) / 1000);

  await mine(70, "alice");
  await mine(15, "bob");
  await mine(8, "carol");
  await mine(62, "alice");
  for (let round = 0; round < 3; round++) {
    await refresh();
    const h = await height();
    await send("alice", "primary", "transfer", { destinations: [{ amount: amt(1500 + round), address: W.bob.address }] });
    await send("alice", "subaddress", "transfer", { destinations: [{ amount: amt(700 + round), address: round === 2 ? W.bob.s40 : round === 1 ? W.bob.s150 : W.bob.s1 }] });
    await send("alice", "multi-destination", "transfer", {
      destinations: [
        { amount: amt(210), address: W.bob.s2 },
        { amount: amt(220), address: W.carol.address },
        { amount: amt(230), address: W.carol.a2s1 },
        { amount: amt(240), address: W.bob.a1s4 },
      ],
    });
    await send("alice", "account1", "transfer", { destinations: [{ amount: amt(900 + round), address: W.carol.a1 }] });
    await send("alice", "integrated", "transfer", { destinations: [{ amount: amt(333 + round), address: W.bob.integrated }] });
    await send("alice", "integrated-fixed-pid", "transfer", { destinations: [{ amount: amt(444 + round), address: W.carol.fixedIntegrated }] });
    await send("alice", "unlock-height", "transfer", { destinations: [{ amount: amt(50 + round), address: W.bob.address }], unlock_time: h + 25 + round * 7 });
    if (round === 0) {
      await send("alice", "unlock-timestamp", "transfer", { destinations: [{ amount: amt(60), address: W.carol.address }], unlock_time: 4000000000 });
      await send("alice", "account3", "transfer", { destinations: [{ amount: amt(1234), address: W.carol.a3s2 }] });
      await send("alice", "bob-account1", "transfer", { destinations: [{ amount: amt(2000), address: W.bob.a1 }] });
    }
    if (round === 1) {
      await send("bob", "sweep_all-to-subaddress", "sweep_all", { address: W.carol.s1, account_index: 0 });
      const outs = await rpc(W.alice.port, "incoming_transfers", { transfer_type: "available", account_index: 0 });
      const coinbaseLike = (outs.transfers ?? []).filter((t) => t.block_height < 60)[0];
      if (coinbaseLike) await send("alice", "sweep_single", "sweep_single", { address: W.bob.s2, key_image: coinbaseLike.key_image });
      await send("carol", "from-account1", "transfer", { account_index: 1, destinations: [{ amount: amt(150), address: W.bob.s2 }] });
    }
    if (round === 2) {
      await send("bob", "bob-multi", "transfer", { destinations: [{ amount: amt(200), address: W.alice.address }, { amount: amt(100), address: W.carol.address }] });
      await send("bob", "bob-from-account1", "transfer", { account_index: 1, destinations: [{ amount: amt(300), address: W.carol.a2s1 }] });
      await send("carol", "to-self", "transfer", { destinations: [{ amount: amt(120), address: W.carol.s1 }] });
      await send("carol", "from-account2", "transfer", { account_index: 2, destinations: [{ amount: amt(90), address: W.alice.address }] });
      await send("carol", "sweep_all-account3", "sweep_all", { address: W.bob.s1, account_index: 3 });
    }
    await mine(round === 1 ? 2 : 1, "alice");
    await mine(round === 2 ? 1 : 11, "carol");
  }
  // The last blocks before the pool: one with txs and one empty (popped by the reorg with the one
  // before, which holds round 2's txs).
  await refresh();
  await send("alice", "late-primary", "transfer", { destinations: [{ amount: amt(111), address: W.carol.address }] });
  await send("bob", "late-from-bob", "transfer", { destinations: [{ amount: amt(55), address: W.carol.a1 }] });
  await mine(1, "bob");
  await mine(1, "alice");
  await refresh();
  // left in the pool: incoming and outgoing, to subaddresses, integrated, several accounts
  await send("alice", "pool-multi", "transfer", { destinations: [{ amount: amt(77), address: W.bob.s1 }, { amount: amt(88), address: W.carol.address }] });
  await send("alice", "pool-integrated", "transfer", { destinations: [{ amount: amt(99), address: W.carol.fixedIntegrated }] });
  await send("bob", "pool-from-bob", "transfer", { destinations: [{ amount: amt(44), address: W.carol.a3s2 }] });
  await send("carol", "pool-from-carol-account1", "transfer", { account_index: 1, destinations: [{ amount: amt(33), address: W.bob.a1s4 }] });
  const chainHeight = await height();
  console.log(`chain height ${chainHeight}, ${sent.length} sends, failures ${failures}`);

  // ---- the chain and the pool ----
  const readBlocks = async (from, to) => {
    const bs = [];
    for (let h = from; h < to; h++) {
      const b = await rpc(DAEMON_RPC, "get_block", { height: h });
      bs.push({ height: h, hash: b.block_header.hash, blob: b.blob, tx_hashes: b.tx_hashes ?? [] });
    }
    return bs;
  };
  const blocks = await readBlocks(0, chainHeight);
  const txIds = blocks.flatMap((b) => b.tx_hashes);
  const txs = {};
  for (let i = 0; i < txIds.length; i += 50) {
    const r = await other(DAEMON_RPC, "/get_transactions", { txs_hashes: txIds.slice(i, i + 50) });
    for (const t of r.txs) txs[t.tx_hash] = t.as_hex;
  }
  const poolRaw = (await other(DAEMON_RPC, "/get_transaction_pool", {})).transactions ?? [];
  // in arrival order, so a replay admits them as the original node did
  const pool = poolRaw.sort((a, b) => a.receive_time - b.receive_time).map((t) => ({ tx_hash: t.id_hash, as_hex: t.tx_blob }));

  // ---- state A: wallets restored from the seeds ----
  const out = {};
  for (const [name, w] of Object.entries(W)) {
    await rpc(w.port, "close_wallet", {});
    await rpc(w.port, "restore_deterministic_wallet", { filename: `${name}-A`, seed: SEEDS[name], password: "", restore_height: 0, language: "English" });
    await rpc(w.port, "refresh", {});
    const qs = await queries(w.port, chainHeight);
    out[name] = { recorded_at: Math.floor(Date.now() / 1000), queries: qs, A: await answers(w.port, qs) };
    // the same wallet restored from a height inside the chain (after bob's and carol's coinbase,
    // before the first transfer): what it cannot know, and how it fast-forwards
    await rpc(w.port, "close_wallet", {});
    await rpc(w.port, "restore_deterministic_wallet", { filename: `${name}-R`, seed: SEEDS[name], password: "", restore_height: RESTORE_HEIGHT, language: "English" });
    await rpc(w.port, "refresh", {});
    out[name].restore_height = RESTORE_HEIGHT;
    out[name].R = await answers(w.port, qs);
    await rpc(w.port, "close_wallet", {});
    await rpc(w.port, "open_wallet", { filename: `${name}-A`, password: "" });
    await rpc(w.port, "refresh", {});
  }

  // ---- the reorg ----
  await other(DAEMON_RPC, "/pop_blocks", { nblocks: POP });
  await mine(CONTINUE, "carol");
  const heightB = await height();
  const continuation = await readBlocks(chainHeight - POP, heightB);
  for (const [name, w] of Object.entries(W)) {
    await rpc(w.port, "refresh", {});
    out[name]["B-reorged"] = await answers(w.port, out[name].queries);
    await rpc(w.port, "close_wallet", {});
    await rpc(w.port, "restore_deterministic_wallet", { filename: `${name}-B`, seed: SEEDS[name], password: "", restore_height: 0, language: "English" });
    await rpc(w.port, "refresh", {});
    out[name]["B-fresh"] = await answers(w.port, out[name].queries);
    out[name].recorded_until = Math.floor(Date.now() / 1000);
    writeFileSync(join(outDir, `${name}.json.gz`), gzipSync(JSON.stringify(out[name])));
  }
  writeFileSync(join(outDir, "chain.json.gz"), gzipSync(JSON.stringify({ height: chainHeight, blocks, txs, pool, pop: POP, continuation })));
  writeFileSync(
    join(outDir, "meta.json"),
    `${JSON.stringify(
      {
        recorded_with: "scripts/record-wallet-compare.mjs",
        monerod_version: version.version,
        height: chainHeight,
        height_after_reorg: heightB,
        txs: txIds.length,
        pool: pool.length,
        failures,
        sends: sent,
        wallets: Object.fromEntries(Object.entries(W).map(([k, v]) => [k, v.address])),
        queries: Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.queries.length])),
      },
      null,
      1,
    )}\n`,
  );
  console.log(`recorded ${blocks.length} blocks, ${txIds.length} txs, ${pool.length} in the pool, continuation ${continuation.length} blocks into ${outDir}`);
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
