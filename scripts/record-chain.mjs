#!/usr/bin/env node
// Records a regtest chain from a real monerod (Debian's `monero` package) with real wallets, as the
// fixtures of the binary-format tests (test/fixtures/chain/). Run: node scripts/record-chain.mjs [outDir]
//
// It starts `monerod --regtest --offline --fixed-difficulty 1` and three `monero-wallet-rpc` on ports
// 28300-28399 in a temporary directory, restores three fixed seeds (so the chain has the same shape on
// every run; keys, amounts and ring members differ with the wallets' randomness), mines to them, makes
// transfers of every shape a wallet makes, mines them and records:
//   blocks.json.gz  every block: height, hash, blob (get_block), monerod's `json` text, the header
//   txs.json.gz     every transaction (coinbase too): as_hex, pruned_as_hex, prunable_as_hex,
//                   prunable_hash, as_json (decode_as_json), weight/blob_size (from the pool or the wallet),
//                   the shape label of the transfer that made it
//   get_blocks.bin (+ .req.bin), get_blocks_pruned.bin (+ .req.bin), get_outs.bin (+ .req.bin):
//                   raw epee responses of monerod's binary endpoints and the requests that produced them
//   meta.json       versions, counts, the shapes recorded
// Then it stops every process it started and removes the temporary directory.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = process.argv[2] ?? join(root, "test", "fixtures", "chain");
const DAEMON_RPC = 28301;
const DAEMON_P2P = 28302;
const WALLET_PORTS = { alice: 28311, bob: 28312, carol: 28313 };
const SEEDS = {
  alice:
    "bowling feel syllabus fifteen sipped hills yearbook butter wipeout fewest lymph lawsuit enraged humid emotion agony etiquette dejected buzzer ounce getting aspire ruffled smuggled buzzer",
  bob: "catch weavers linen olympics ramped lagoon galaxy locker gusts roles love peculiar eels dejected talent legion cause toffee diet duplex upcoming dodge taboo umbrella cause",
  carol:
    "mystery demonstrate lush bevel exult often topic opus motherly aztec wolf vain voyage getting odometer voyage salads saga hybrid items upload husband kitchens love odometer",
};
const MIN_BLOCKS = 330;

const tmp = mkdtempSync(join(tmpdir(), "tsmonero-record-"));
const children = [];

function start(cmd, args, name) {
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "ignore"] });
  child.on("exit", (code, sig) => {
    if (!stopping) {
      console.error(`${name} exited early (code ${code}, signal ${sig}); see its --log-file in ${tmp} (KEEP_TMP=1 keeps it)`);
      failed = `${name} exited`;
    }
  });
  children.push(child);
  return child;
}

let stopping = false;
let failed; // set when a process we started exits by itself
async function stopAll() {
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  const deadline = Date.now() + 15000;
  while (children.some((c) => c.exitCode === null && c.signalCode === null) && Date.now() < deadline) await sleep(200);
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function post(port, path, body, timeoutMs = 600000) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    body,
    headers: { "Content-Type": typeof body === "string" ? "application/json" : "application/octet-stream" },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`${path} on ${port}: HTTP ${res.status}`);
  return res;
}

async function rpc(port, method, params = {}) {
  const res = await post(port, "/json_rpc", JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }));
  const j = await res.json();
  if (j.error) throw new Error(`${method} on ${port}: ${j.error.message} (${j.error.code})`);
  return j.result;
}

async function other(port, path, params) {
  const res = await post(port, path, JSON.stringify(params));
  const j = await res.json();
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

// ---- a minimal epee portable-storage writer for the two binary requests ----
function epeeSize(n) {
  if (n <= 63) return Uint8Array.of(n << 2);
  if (n <= 16383) {
    const b = Buffer.alloc(2);
    b.writeUInt16LE((n << 2) | 1);
    return b;
  }
  const b = Buffer.alloc(4);
  b.writeUInt32LE(((n << 2) | 2) >>> 0);
  return b;
}
function epeeSection(entries) {
  const parts = [epeeSize(entries.length)];
  for (const [name, bytes] of entries) parts.push(Uint8Array.of(name.length), Buffer.from(name, "latin1"), bytes);
  return Buffer.concat(parts);
}
const epeeU64 = (v) => {
  const b = Buffer.alloc(9);
  b[0] = 5;
  b.writeBigUInt64LE(BigInt(v), 1);
  return b;
};
const epeeBool = (v) => Uint8Array.of(11, v ? 1 : 0);
const epeeString = (bytes) => Buffer.concat([Uint8Array.of(10), epeeSize(bytes.length), bytes]);
const epeeObjArray = (sections) => Buffer.concat([Uint8Array.of(12 | 0x80), epeeSize(sections.length), ...sections]);
const epeeDoc = (entries) => Buffer.concat([Buffer.from("011101010101020101", "hex"), epeeSection(entries)]);

async function main() {
  mkdirSync(outDir, { recursive: true });
  console.log(`temporary directory ${tmp}`);
  mkdirSync(join(tmp, "node"));
  mkdirSync(join(tmp, "wallets"));
  start(
    "monerod",
    [
      "--regtest",
      "--offline",
      "--fixed-difficulty",
      "1",
      "--data-dir",
      join(tmp, "node"),
      "--rpc-bind-port",
      String(DAEMON_RPC),
      "--p2p-bind-port",
      String(DAEMON_P2P),
      "--no-zmq",
      "--non-interactive",
      "--log-file",
      join(tmp, "monerod.log"),
    ],
    "monerod",
  );
  const info0 = await waitFor("monerod RPC", () => rpc(DAEMON_RPC, "get_info"));
  const version = await rpc(DAEMON_RPC, "get_version");
  console.log(`monerod up, height ${info0.height}, version ${version.version}`);

  for (const [name, port] of Object.entries(WALLET_PORTS)) {
    start(
      "monero-wallet-rpc",
      [
        "--wallet-dir",
        join(tmp, "wallets"),
        "--disable-rpc-login",
        "--daemon-address",
        `127.0.0.1:${DAEMON_RPC}`,
        "--rpc-bind-port",
        String(port),
        "--log-file",
        join(tmp, `wallet-${name}.log`),
      ],
      `wallet-${name}`,
    );
  }
  const W = {};
  for (const [name, port] of Object.entries(WALLET_PORTS)) {
    await waitFor(`wallet-rpc ${name}`, () => rpc(port, "get_version"));
    await rpc(port, "restore_deterministic_wallet", {
      filename: name,
      seed: SEEDS[name],
      password: "",
      restore_height: 0,
      language: "English",
    });
    const addr = await rpc(port, "get_address", { account_index: 0 });
    W[name] = { port, address: addr.address };
    console.log(`${name}: ${addr.address}`);
  }
  // Subaddresses (account 0 and a second account) and an integrated address for each receiver.
  for (const name of ["bob", "carol"]) {
    const w = W[name];
    w.subs = [];
    for (let i = 0; i < 4; i++) w.subs.push((await rpc(w.port, "create_address", { account_index: 0 })).address);
    const acct = await rpc(w.port, "create_account", {});
    w.account1 = acct.address;
    w.integrated = (await rpc(w.port, "make_integrated_address", {})).integrated_address;
  }

  const txShape = new Map(); // tx hash -> shape label
  const txWeight = new Map(); // tx hash -> { weight, blob_size } from the pool
  const mine = async (n, who = "alice") => {
    await snapshotPool();
    await rpc(DAEMON_RPC, "generateblocks", { amount_of_blocks: n, wallet_address: W[who].address });
  };
  const snapshotPool = async () => {
    const pool = await other(DAEMON_RPC, "/get_transaction_pool", {});
    for (const t of pool.transactions ?? []) txWeight.set(t.id_hash, { weight: t.weight, blob_size: t.blob_size });
  };
  const refresh = async () => {
    for (const w of Object.values(W)) await rpc(w.port, "refresh", {});
  };
  let failures = 0;
  const send = async (from, shape, method, params) => {
    try {
      const r = await rpc(W[from].port, method, { get_tx_hex: true, ...params });
      const hashes = r.tx_hash_list ?? [r.tx_hash];
      for (const h of hashes) txShape.set(h, shape);
      return hashes;
    } catch (e) {
      failures++;
      console.warn(`  ${shape} from ${from} failed: ${e.message}`);
      return [];
    }
  };
  const XMR = 1000000000000n;
  const amt = (milli) => Number((BigInt(milli) * XMR) / 1000n);

  // Coinbase to every wallet; bob gets many small coinbase outputs for a many-input sweep_all.
  await mine(100, "alice");
  await mine(40, "bob");
  await mine(20, "carol");
  await mine(61, "alice");
  await refresh();

  for (let round = 0; round < 9; round++) {
    await refresh();
    // 1..15 destinations (2..16 outputs with the change output)
    const nDest = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
    for (const n of round < 2 ? nDest : nDest.filter((k) => k % (round + 1) === 0 || k === 15)) {
      const dests = [];
      for (let i = 0; i < n; i++) dests.push({ amount: amt(100 + i + round), address: i % 2 ? W.carol.address : W.bob.address });
      await send("alice", `transfer-${n}dest`, "transfer", { destinations: dests, priority: round % 4 });
    }
    await send("alice", "subaddress", "transfer", { destinations: [{ amount: amt(250 + round), address: W.bob.subs[round % 4] }] });
    await send("alice", "subaddress-multi", "transfer", {
      destinations: [
        { amount: amt(123), address: W.bob.subs[0] },
        { amount: amt(124), address: W.bob.subs[1] },
        { amount: amt(125), address: W.carol.subs[2] },
      ],
    });
    await send("alice", "subaddress-account1", "transfer", { destinations: [{ amount: amt(777), address: W.carol.account1 }] });
    await send("alice", "integrated", "transfer", { destinations: [{ amount: amt(333 + round), address: W.carol.integrated }] });
    await send("alice", "integrated", "transfer", { destinations: [{ amount: amt(334 + round), address: W.bob.integrated }] });
    await send("alice", "unlock-time", "transfer", {
      destinations: [{ amount: amt(50), address: W.bob.address }],
      unlock_time: 400 + round * 10,
    });
    if (round >= 1) {
      await send("bob", "from-bob", "transfer", { destinations: [{ amount: amt(10 + round), address: W.alice.address }] });
      await send("carol", "from-carol", "transfer", { destinations: [{ amount: amt(20 + round), address: W.bob.subs[3] }] });
      await send("carol", "from-carol-account1", "transfer", {
        account_index: 1,
        destinations: [{ amount: amt(5), address: W.alice.address }],
      });
    }
    if (round === 0) {
      // sweep_all of bob's 40 coinbase outputs (they unlocked 60 blocks after they were mined)
      await send("bob", "sweep_all", "sweep_all", { address: W.carol.address, account_index: 0 });
    }
    if (round === 4) await send("carol", "sweep_all-subaddr", "sweep_all", { address: W.alice.address, account_index: 0 });
    if (round === 6) await send("bob", "sweep_all-to-subaddress", "sweep_all", { address: W.carol.subs[1], account_index: 0 });
    // mine the pool in one block sometimes, several blocks other times
    await mine(round % 3 === 0 ? 1 : 2, "alice");
    await mine(10, "alice"); // change unlocks after 10 blocks
    const h = (await rpc(DAEMON_RPC, "get_block_count")).count;
    console.log(`round ${round}: height ${h}, txs so far ${txShape.size}, failures ${failures}`);
  }
  // Single-transaction blocks (tree hash of 2 ids) and a few odd tx counts per block.
  for (let k = 1; k <= 6; k++) {
    await refresh();
    for (let i = 0; i < k; i++)
      await send("alice", "transfer-1dest", "transfer", { destinations: [{ amount: amt(11 + i), address: W.bob.address }] });
    await mine(1, "alice");
  }
  let height = (await rpc(DAEMON_RPC, "get_block_count")).count;
  if (height < MIN_BLOCKS) await mine(MIN_BLOCKS - height, "carol");
  height = (await rpc(DAEMON_RPC, "get_block_count")).count;
  console.log(`chain height ${height}; recording`);

  // ---- record blocks ----
  const blocks = [];
  const allTx = [];
  for (let h = 0; h < height; h++) {
    const b = await rpc(DAEMON_RPC, "get_block", { height: h });
    blocks.push({
      height: h,
      hash: b.block_header.hash,
      blob: b.blob,
      json: b.json,
      miner_tx_hash: b.miner_tx_hash,
      tx_hashes: b.tx_hashes ?? [],
      header: b.block_header,
    });
    allTx.push(b.miner_tx_hash, ...(b.tx_hashes ?? []));
  }
  // ---- record transactions ----
  const txs = [];
  for (let i = 0; i < allTx.length; i += 50) {
    const ids = allTx.slice(i, i + 50);
    const full = await other(DAEMON_RPC, "/get_transactions", { txs_hashes: ids, decode_as_json: true });
    const split = await other(DAEMON_RPC, "/get_transactions", { txs_hashes: ids, split: true });
    const pruned = await other(DAEMON_RPC, "/get_transactions", { txs_hashes: ids, prune: true, decode_as_json: true });
    for (let j = 0; j < ids.length; j++) {
      const f = full.txs[j];
      const s = split.txs[j];
      const p = pruned.txs[j];
      if (f.tx_hash !== ids[j] || s.tx_hash !== ids[j] || p.tx_hash !== ids[j]) throw new Error("get_transactions order");
      const blk = blocks[f.block_height];
      const coinbase = blk.miner_tx_hash === ids[j];
      txs.push({
        tx_hash: f.tx_hash,
        block_height: f.block_height,
        coinbase,
        shape: coinbase ? "coinbase" : (txShape.get(f.tx_hash) ?? "unknown"),
        as_hex: f.as_hex,
        as_json: f.as_json,
        pruned_as_hex: s.pruned_as_hex,
        prunable_as_hex: s.prunable_as_hex,
        prunable_hash: s.prunable_hash,
        pruned_as_json: p.as_json,
        pruned_hex: p.pruned_as_hex || p.as_hex,
        ...(txWeight.get(f.tx_hash) ?? {}),
      });
    }
  }
  // Keep the fixture a few MB: every non-coinbase tx, and the coinbase txs of blocks that hold
  // transactions plus every 10th (they all have the same shape).
  const kept = txs.filter((t) => !t.coinbase || blocks[t.block_height].tx_hashes.length > 0 || t.block_height % 10 === 0);

  // ---- record the binary endpoints ----
  const genesis = Buffer.from(blocks[0].hash, "hex");
  const gbReq = epeeDoc([
    ["block_ids", epeeString(genesis)],
    ["prune", epeeBool(false)],
    ["start_height", epeeU64(0)],
  ]);
  const gb = Buffer.from(await (await post(DAEMON_RPC, "/get_blocks.bin", gbReq)).arrayBuffer());
  const gbpReq = epeeDoc([
    ["block_ids", epeeString(genesis)],
    ["prune", epeeBool(true)],
    ["start_height", epeeU64(200)],
  ]);
  const gbp = Buffer.from(await (await post(DAEMON_RPC, "/get_blocks.bin", gbpReq)).arrayBuffer());
  const outs = [];
  for (let i = 0; i < 40; i++) outs.push(epeeSection([["amount", epeeU64(0)], ["index", epeeU64(i * 7)]]));
  const goReq = epeeDoc([
    ["get_txid", epeeBool(true)],
    ["outputs", epeeObjArray(outs)],
  ]);
  const go = Buffer.from(await (await post(DAEMON_RPC, "/get_outs.bin", goReq)).arrayBuffer());

  const shapes = {};
  for (const t of txs) shapes[t.shape] = (shapes[t.shape] ?? 0) + 1;
  writeFileSync(join(outDir, "blocks.json.gz"), gzipSync(JSON.stringify(blocks)));
  writeFileSync(join(outDir, "txs.json.gz"), gzipSync(JSON.stringify(kept)));
  writeFileSync(join(outDir, "get_blocks.req.bin"), gbReq);
  writeFileSync(join(outDir, "get_blocks.bin"), gb);
  writeFileSync(join(outDir, "get_blocks_pruned.req.bin"), gbpReq);
  writeFileSync(join(outDir, "get_blocks_pruned.bin"), gbp);
  writeFileSync(join(outDir, "get_outs.req.bin"), goReq);
  writeFileSync(join(outDir, "get_outs.bin"), go);
  writeFileSync(
    join(outDir, "meta.json"),
    `${JSON.stringify(
      {
        recorded_with: "scripts/record-chain.mjs",
        monerod_version: version.version,
        monerod_release: version.release,
        height,
        blocks: blocks.length,
        txs_total: txs.length,
        txs_kept: kept.length,
        failures,
        shapes,
        wallets: Object.fromEntries(Object.entries(W).map(([k, v]) => [k, v.address])),
      },
      null,
      2,
    )}\n`,
  );
  console.log(`recorded ${blocks.length} blocks, ${kept.length} txs (of ${txs.length}) into ${outDir}`);
  console.log(shapes);
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
