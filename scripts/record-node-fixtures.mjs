#!/usr/bin/env node
// Records monerod's answers to the node RPC requests test/node-replay.test.ts asks tsmonerod, as
// test/fixtures/node/monerod-answers.json.gz. Run: node scripts/record-node-fixtures.mjs [outFile]
//
// It starts `monerod --regtest --offline --fixed-difficulty 1` on ports 29190/29191 in a temporary
// directory and replays the recorded chain (test/fixtures/chain) into it as the test does: each
// block's transactions with /send_raw_transaction, then the block with submit_block. Then it sends
// every request of requestList() and stores request + raw answer text (exact 64-bit integers).
// Then it starts Debian's monero-wallet-rpc (port 29192) on that monerod, restores alice and bob from
// the recorded chain's seeds, refreshes, and stores their get_balance / get_transfers / get_accounts
// answers as test/fixtures/node/wallet-answers.json (test/node-wallet-interop.test.ts compares the
// same wallets on tsmonerod with them).
// Finally it stops what it started and removes the temporary directory.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const chainDir = join(root, "test", "fixtures", "chain");
const outFile = process.argv[2] ?? join(root, "test", "fixtures", "node", "monerod-answers.json.gz");
const RPC = 29190;
const P2P = 29191;
const WALLET_RPC = 29192;
const RESTRICTED_RPC = 29193;
const walletFile = join(dirname(outFile), "wallet-answers.json");

const load = (name) => JSON.parse(gunzipSync(readFileSync(join(chainDir, name))).toString("utf8"));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmp = mkdtempSync(join(tmpdir(), "tsmonero-node-fixtures-"));
let child;
let wallet;
let stopping = false;

async function postText(path, body, port = RPC) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    body,
    headers: { "Content-Type": "application/json" },
    signal: AbortSignal.timeout(120000),
  });
  return { http: res.status, text: await res.text() };
}
async function rpc(method, params = {}) {
  const r = await postText("/json_rpc", JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }));
  const j = JSON.parse(r.text);
  if (j.error) throw new Error(`${method}: ${j.error.message} (${j.error.code})`);
  return j.result;
}

/**
 * The requests to compare, built from the recorded chain only (so the test can rebuild nothing and
 * simply replays this list). Each: { kind: "rpc", method, params } or { kind: "path", path, body }.
 */
export function requestList(blocks, txs) {
  const top = blocks.length - 1;
  const withTxs = blocks.filter((b) => b.tx_hashes.length > 0);
  const userTxs = txs.filter((t) => !t.coinbase);
  const coinbase = txs.filter((t) => t.coinbase);
  const pick = (arr, n) => Array.from({ length: n }, (_, k) => arr[Math.floor((k * (arr.length - 1)) / Math.max(1, n - 1))]);
  const rq = [];
  const R = (method, params) => rq.push({ kind: "rpc", method, params });
  const P = (path, body) => rq.push({ kind: "path", path, body });

  R("get_block_count", {});
  R("getblockcount", {});
  for (const h of [0, 1, 2, 100, top]) R("on_get_block_hash", [h]);
  R("on_getblockhash", [top]);
  R("on_get_block_hash", [top + 1]);
  R("on_get_block_hash", []);
  R("get_last_block_header", {});
  R("getlastblockheader", {});
  for (const b of [blocks[0], blocks[1], ...pick(withTxs, 4), blocks[top]]) R("get_block_header_by_hash", { hash: b.hash });
  R("getblockheaderbyhash", { hash: blocks[5].hash });
  R("get_block_header_by_hash", { hashes: [blocks[3].hash, blocks[4].hash] });
  R("get_block_header_by_hash", { hash: "00".repeat(32) });
  R("get_block_header_by_hash", { hash: "xyz" });
  for (const h of [0, 1, 61, 200, top]) R("get_block_header_by_height", { height: h });
  R("getblockheaderbyheight", { height: 7 });
  R("get_block_header_by_height", { height: top + 1 });
  R("get_block_headers_range", { start_height: 0, end_height: top });
  R("get_block_headers_range", { start_height: 100, end_height: 120 });
  R("getblockheadersrange", { start_height: 5, end_height: 5 });
  R("get_block_headers_range", { start_height: 10, end_height: 5 });
  R("get_block_headers_range", { start_height: 0, end_height: top + 1 });
  for (const b of [blocks[0], blocks[1], ...pick(withTxs, 6), blocks[top]]) {
    R("get_block", { height: b.height });
    R("get_block", { hash: b.hash });
  }
  R("getblock", { height: 3 });
  R("get_block", { height: top + 1 });
  R("get_block", { hash: "00".repeat(32) });
  R("get_block", { hash: "zz" });

  const someTxs = [...pick(userTxs, 8), ...pick(coinbase, 3)].map((t) => t.tx_hash);
  for (const decode_as_json of [false, true])
    for (const prune of [false, true])
      for (const split of [false, true]) P("/get_transactions", { txs_hashes: someTxs, decode_as_json, prune, split });
  P("/get_transactions", { txs_hashes: userTxs.map((t) => t.tx_hash) });
  P("/gettransactions", { txs_hashes: [someTxs[0], "11".repeat(32), someTxs[1]], decode_as_json: true });
  P("/get_transactions", { txs_hashes: ["1234"] });
  P("/get_transactions", { txs_hashes: ["nothex"] });

  // outputs: the chain has one RingCT output list (amount 0)
  // RingCT outputs: every v2 coinbase's and every user tx's (the genesis coinbase is v1)
  const nOuts =
    blocks.slice(1).reduce((n, b) => n + JSON.parse(b.json).miner_tx.vout.length, 0) + userTxs.reduce((n, t) => n + JSON.parse(t.as_json).vout.length, 0);
  for (const get_txid of [true, false])
    P("/get_outs", { outputs: [0, 1, 2, 50, 333, 500, nOuts - 2, nOuts - 1].map((index) => ({ amount: 0, index })), get_txid });
  P("/get_outs", { outputs: [{ amount: 0, index: nOuts }] });
  P("/get_outs", { outputs: [{ amount: 0, index: 100000 }] });
  P("/get_outs", { outputs: [{ amount: 1000, index: 0 }] });

  for (const cumulative of [false, true]) {
    R("get_output_distribution", { amounts: [0], cumulative, binary: false });
    R("get_output_distribution", { amounts: [0], cumulative, from_height: 10, to_height: 200, binary: false });
    R("get_output_distribution", { amounts: [0], cumulative, from_height: 100, binary: false });
    R("get_output_distribution", { amounts: [0], cumulative, to_height: 50, binary: false });
    R("get_output_distribution", { amounts: [0], cumulative, from_height: top, to_height: top, binary: false });
  }
  R("get_output_distribution", { amounts: [0], to_height: top + 1, binary: false });
  R("get_output_distribution", { amounts: [0], from_height: 20, to_height: 10, binary: false });

  R("get_output_histogram", { amounts: [0] });
  R("get_output_histogram", { amounts: [0], unlocked: true });
  R("get_output_histogram", { amounts: [0], unlocked: true, recent_cutoff: JSON.parse(blocks[top - 30].json).timestamp });
  R("get_output_histogram", {});
  R("get_output_histogram", { amounts: [0, 1000] });
  R("get_output_histogram", { amounts: [0], min_count: 100000 });
  const genesisAmount = JSON.parse(blocks[0].json).miner_tx.vout[0].amount;
  for (const cumulative of [false, true]) {
    R("get_output_distribution", { amounts: [genesisAmount], cumulative, binary: false });
    R("get_output_distribution", { amounts: [genesisAmount, 0], cumulative, from_height: 0, to_height: 100, binary: false });
  }

  R("get_coinbase_tx_sum", { height: 0, count: top + 1 });
  R("get_coinbase_tx_sum", { height: 100, count: 50 });
  R("get_coinbase_tx_sum", { height: 0, count: 0 });
  R("get_coinbase_tx_sum", { height: top + 1, count: 1 });

  // key images: those the chain's txs spend, plus made-up ones
  const kis = [];
  for (const t of pick(userTxs, 10)) {
    const j = JSON.parse(t.as_json);
    for (const vin of j.vin) if (vin.key) kis.push(vin.key.k_image);
  }
  P("/is_key_image_spent", { key_images: [...kis, "22".repeat(32), "33".repeat(32)] });
  P("/is_key_image_spent", { key_images: ["12"] });

  R("hard_fork_info", {});
  R("hard_fork_info", { version: 16 });
  R("hard_fork_info", { version: 1 });
  R("get_fee_estimate", {});
  R("get_fee_estimate", { grace_blocks: 10 });
  R("get_info", {});
  P("/get_info", {});
  P("/get_height", {});
  R("get_version", {});
  P("/get_transaction_pool", {});
  P("/get_transaction_pool_hashes", {});
  P("/get_transaction_pool_stats", {});
  R("get_alternate_chains", {});
  P("/get_alt_blocks_hashes", {});
  R("get_block_template", { wallet_address: "", reserve_size: 1 });
  R("get_block_template", { wallet_address: "4xyz", reserve_size: 1 });
  R("submit_block", ["00"]);
  R("submit_block", []);
  R("no_such_method", {});
  R("get_miner_data", {});
  // daemon state as a fresh offline monerod reports it
  P("/mining_status", {});
  P("/get_limit", {});
  P("/get_peer_list", {});
  P("/get_public_nodes", {});
  R("get_connections", {});
  R("get_bans", {});
  R("banned", { address: "1.2.3.4" });
  R("sync_info", {});
  R("prune_blockchain", { check: true });
  R("flush_cache", {});
  P("/set_log_hash_rate", { visible: true });
  P("/save_bc", {});
  P("/update", { command: "check" });
  R("get_txpool_backlog", {});
  R("relay_tx", { txids: ["11".repeat(32)] });
  R("flush_txpool", { txids: ["zz"] });
  // refusals (the chain's own txs again: their key images are spent; garbage)
  P("/send_raw_transaction", { tx_as_hex: userTxs[0].as_hex });
  P("/sendrawtransaction", { tx_as_hex: userTxs[userTxs.length - 1].as_hex, do_not_relay: true });
  P("/send_raw_transaction", { tx_as_hex: "0200" });
  P("/send_raw_transaction", { tx_as_hex: "zz" });
  R("rpc_access_info", {});
  R("rpc_access_submit_nonce", {});
  R("rpc_access_pay", {});
  R("rpc_access_tracking", { clear: true });
  R("rpc_access_data", {});
  R("rpc_access_account", {});
  R("get_block_header_by_height", { height: 5, fill_pow_hash: true });
  R("get_block", { height: top, fill_pow_hash: true });
  for (const b of [blocks[1], blocks[top]]) {
    const seed = blocks[0].hash; // regtest: every block below the first epoch uses the genesis as seed
    R("calc_pow", { major_version: JSON.parse(b.json).major_version, height: b.height, block_blob: b.blob, seed_hash: seed });
  }
  return rq;
}

/** Asked on monerod's restricted port (--rpc-restricted-bind-port). */
export function restrictedRequestList(blocks, txs) {
  const top = blocks.length - 1;
  const rq = [];
  const R = (method, params) => rq.push({ kind: "rpc", method, params });
  const P = (path, body) => rq.push({ kind: "path", path, body });
  R("get_info", {});
  P("/get_info", {});
  R("get_last_block_header", { fill_pow_hash: true });
  R("get_block", { height: 5, fill_pow_hash: true });
  R("get_block_headers_range", { start_height: 0, end_height: top });
  for (const m of ["generateblocks", "get_coinbase_tx_sum", "get_connections", "get_bans", "set_bans", "banned", "flush_txpool", "get_alternate_chains",
    "relay_tx", "sync_info", "prune_blockchain", "flush_cache", "calc_pow"]) R(m, {});
  for (const p of ["/mining_status", "/start_mining", "/stop_mining", "/save_bc", "/get_peer_list", "/set_log_level", "/set_log_categories", "/set_log_hash_rate",
    "/stop_daemon", "/set_limit", "/out_peers", "/in_peers", "/update", "/pop_blocks", "/get_net_stats", "/set_bootstrap_daemon"]) P(p, {});
  P("/get_limit", {});
  P("/get_public_nodes", {});
  R("get_output_histogram", {});
  R("get_output_histogram", { amounts: [0] });
  R("get_output_distribution", { amounts: [0], binary: false });
  R("get_output_distribution", { amounts: [JSON.parse(blocks[0].json).miner_tx.vout[0].amount], binary: false });
  const user = txs.filter((t) => !t.coinbase);
  P("/get_transactions", { txs_hashes: user.slice(0, 101).map((t) => t.tx_hash) });
  P("/get_transactions", { txs_hashes: user.slice(0, 3).map((t) => t.tx_hash), decode_as_json: true });
  P("/get_transaction_pool", {});
  P("/get_transaction_pool_stats", {});
  R("get_fee_estimate", {});
  R("hard_fork_info", {});
  R("get_version", {});
  R("get_miner_data", {});
  return rq;
}

/**
 * Binary (epee) requests, encoded with tsmonero's codecs (run `npm run build` first); answers are
 * stored as base64 and compared byte for byte.
 */
export async function binRequestList(blocks, txs) {
  const { encodeEpee } = await import("../dist/src/codec/epee-map.js");
  const { getBlocksBinRequest } = await import("../dist/src/protocol/rpc-bin.js");
  const { getOutputDistributionBinRequest } = await import("../dist/src/client/messages.js");
  const { getHashesRequest, getOIndexesRequest, getBlocksByHeightRequest } = await import("../dist/src/node/rpc/bin.js");
  const h = (x) => Uint8Array.from(Buffer.from(x, "hex"));
  const top = blocks.length - 1;
  const user = txs.filter((t) => !t.coinbase);
  const rq = [];
  const B = (path, codec, value) => rq.push({ kind: "bin", path, body: Buffer.from(encodeEpee(codec, value)).toString("base64") });
  const genesis = h(blocks[0].hash);
  B("/gethashes.bin", getHashesRequest, { client: "", block_ids: [h(blocks[10].hash), h(blocks[5].hash), genesis], start_height: 0n });
  B("/get_hashes.bin", getHashesRequest, { client: "", block_ids: [h("44".repeat(32)), genesis], start_height: 0n });
  B("/get_hashes.bin", getHashesRequest, { client: "", block_ids: [h(blocks[3].hash)], start_height: 0n });
  for (const t of [user[0], user[user.length - 1], txs.find((x) => x.coinbase)]) B("/get_o_indexes.bin", getOIndexesRequest, { client: "", txid: h(t.tx_hash) });
  B("/get_o_indexes.bin", getOIndexesRequest, { client: "", txid: h("55".repeat(32)) });
  B("/getblocks_by_height.bin", getBlocksByHeightRequest, { client: "", heights: [0n, 5n, BigInt(user[0].block_height), BigInt(top)] });
  B("/get_blocks_by_height.bin", getBlocksByHeightRequest, { client: "", heights: [BigInt(top + 1)] });
  for (const cumulative of [false, true])
    for (const compress of [false, true])
      B("/get_output_distribution.bin", getOutputDistributionBinRequest, { client: "", amounts: [0n], from_height: 0n, to_height: 0n, cumulative, binary: true, compress });
  B("/get_output_distribution.bin", getOutputDistributionBinRequest, { client: "", amounts: [0n], from_height: 50n, to_height: 250n, cumulative: true, binary: true, compress: false });
  B("/get_output_distribution.bin", getOutputDistributionBinRequest, { client: "", amounts: [0n], from_height: 0n, to_height: 0n, cumulative: false, binary: false, compress: false });
  B("/get_blocks.bin", getBlocksBinRequest, { client: "", block_ids: [genesis], start_height: 300n, prune: true, no_miner_tx: false });
  B("/get_blocks.bin", getBlocksBinRequest, { client: "", block_ids: [h(blocks[200].hash), genesis], start_height: 0n, prune: false, no_miner_tx: true });
  B("/get_blocks.bin", getBlocksBinRequest, { client: "", block_ids: [h(blocks[top].hash), genesis], start_height: 0n, prune: false, no_miner_tx: false });
  B("/get_blocks.bin", getBlocksBinRequest, { client: "", block_ids: [h("66".repeat(32))], start_height: 0n, prune: false, no_miner_tx: false });
  return rq;
}

/**
 * Asked after popping the chain back to the last block with txs (its txs return to the pool as
 * kept_by_block), then the popped blocks are submitted again: the pool's answers.
 */
export function poolRequestList(blocks, txs) {
  const last = [...blocks].reverse().find((b) => b.tx_hashes.length > 0);
  const rq = [];
  const P = (path, body) => rq.push({ kind: "path", path, body });
  const R = (method, params) => rq.push({ kind: "rpc", method, params });
  P("/get_transaction_pool", {});
  P("/get_transaction_pool_hashes", {});
  P("/get_transaction_pool_stats", {});
  R("get_info", {});
  for (const decode_as_json of [false, true])
    for (const prune of [false, true]) for (const split of [false, true]) P("/get_transactions", { txs_hashes: [...last.tx_hashes, txs.find((t) => !t.coinbase).tx_hash], decode_as_json, prune, split });
  const kis = [];
  for (const h of last.tx_hashes) for (const vin of JSON.parse(txs.find((t) => t.tx_hash === h).as_json).vin) if (vin.key) kis.push(vin.key.k_image);
  P("/is_key_image_spent", { key_images: kis });
  R("get_block_count", {});
  R("get_fee_estimate", {});
  return { popTo: last.height, requests: rq };
}

async function main() {
  const blocks = load("blocks.json.gz");
  const txList = load("txs.json.gz");
  const txs = new Map(txList.map((t) => [t.tx_hash, t]));
  mkdirSync(join(tmp, "node"));
  child = spawn(
    "monerod",
    [
      "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", join(tmp, "node"),
      "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(RPC), "--rpc-restricted-bind-port", String(RESTRICTED_RPC), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(P2P),
      "--no-zmq", "--non-interactive", "--log-file", join(tmp, "monerod.log"),
    ],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
  child.on("exit", (code, sig) => {
    if (!stopping) console.error(`monerod exited early (code ${code}, signal ${sig})`);
  });
  const deadline = Date.now() + 120000;
  for (;;) {
    try {
      await rpc("get_info");
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await sleep(500);
    }
  }
  const version = await rpc("get_version");
  for (const b of blocks.slice(1)) {
    for (const h of b.tx_hashes) {
      const r = JSON.parse((await postText("/send_raw_transaction", JSON.stringify({ tx_as_hex: txs.get(h).as_hex }))).text);
      if (r.status !== "OK") throw new Error(`send_raw_transaction ${h} at ${b.height}: ${JSON.stringify(r)}`);
    }
    const r = await rpc("submit_block", [b.blob]);
    if (r.status !== "OK") throw new Error(`submit_block ${b.height}: ${JSON.stringify(r)}`);
  }
  const answers = [];
  for (const q of requestList(blocks, txList)) {
    const r =
      q.kind === "rpc"
        ? await postText("/json_rpc", JSON.stringify({ jsonrpc: "2.0", id: "0", method: q.method, params: q.params }))
        : await postText(q.path, JSON.stringify(q.body));
    answers.push({ ...q, http: r.http, answer: r.text });
  }
  const restricted = [];
  for (const q of restrictedRequestList(blocks, txList)) {
    const r =
      q.kind === "rpc"
        ? await postText("/json_rpc", JSON.stringify({ jsonrpc: "2.0", id: "0", method: q.method, params: q.params }), RESTRICTED_RPC)
        : await postText(q.path, JSON.stringify(q.body), RESTRICTED_RPC);
    restricted.push({ ...q, http: r.http, answer: r.text });
  }
  for (const q of await binRequestList(blocks, txList)) {
    const res = await fetch(`http://127.0.0.1:${RPC}${q.path}`, { method: "POST", body: Buffer.from(q.body, "base64"), signal: AbortSignal.timeout(120000) });
    answers.push({ ...q, http: res.status, answer: Buffer.from(await res.arrayBuffer()).toString("base64") });
  }
  // an alternative block at the top height (same cumulative difficulty: it stays alternative)
  const alice = JSON.parse(readFileSync(join(chainDir, "meta.json"), "utf8")).wallets.alice;
  const tpl = await rpc("get_block_template", { wallet_address: alice, reserve_size: 0, prev_block: blocks[blocks.length - 2].hash });
  const sub = await rpc("submit_block", [tpl.blocktemplate_blob]);
  if (sub.status !== "OK") throw new Error(`alt block: ${JSON.stringify(sub)}`);
  const altHash = JSON.parse((await postText("/get_alt_blocks_hashes", "{}")).text).blks_hashes[0];
  const altAnswers = [];
  for (const q of [
    { kind: "rpc", method: "get_alternate_chains", params: {} },
    { kind: "path", path: "/get_alt_blocks_hashes", body: {} },
    { kind: "rpc", method: "get_block", params: { hash: altHash } },
    { kind: "rpc", method: "get_block_header_by_hash", params: { hash: altHash } },
    { kind: "rpc", method: "get_block_header_by_hash", params: { hashes: [altHash, blocks[blocks.length - 1].hash] } },
    { kind: "rpc", method: "get_last_block_header", params: {} },
    { kind: "rpc", method: "get_block_count", params: {} },
    { kind: "rpc", method: "get_info", params: {} },
  ]) {
    const r =
      q.kind === "rpc"
        ? await postText("/json_rpc", JSON.stringify({ jsonrpc: "2.0", id: "0", method: q.method, params: q.params }))
        : await postText(q.path, JSON.stringify(q.body));
    altAnswers.push({ ...q, http: r.http, answer: r.text });
  }
  const pool = poolRequestList(blocks, txList);
  const top = blocks.length - 1;
  await postText("/pop_blocks", JSON.stringify({ nblocks: top - pool.popTo + 1 }));
  const poolAnswers = [];
  for (const q of pool.requests) {
    const r =
      q.kind === "rpc"
        ? await postText("/json_rpc", JSON.stringify({ jsonrpc: "2.0", id: "0", method: q.method, params: q.params }))
        : await postText(q.path, JSON.stringify(q.body));
    poolAnswers.push({ ...q, http: r.http, answer: r.text });
  }
  for (const b of blocks.slice(pool.popTo)) {
    const r = await rpc("submit_block", [b.blob]);
    if (r.status !== "OK") throw new Error(`submit_block ${b.height} again: ${JSON.stringify(r)}`);
  }
  await recordWallets();
  mkdirSync(dirname(outFile), { recursive: true });
  const doc = { recorded_with: "scripts/record-node-fixtures.mjs", monerod_version: version.version, recorded_at: Math.floor(Date.now() / 1000), answers, restricted, alt: { blob: tpl.blocktemplate_blob, answers: altAnswers }, pool: { popTo: pool.popTo, answers: poolAnswers } };
  writeFileSync(outFile, gzipSync(JSON.stringify(doc)));
  console.log(`wrote ${answers.length} answers to ${outFile}`);
}

/** The queries test/node-wallet-interop.test.ts asks each restored wallet. */
export const WALLET_QUERIES = [
  ["get_balance", { account_index: 0, all_accounts: true }],
  ["get_accounts", {}],
  ["get_transfers", { in: true, out: true, pending: true, failed: true, pool: true, all_accounts: true }],
];

async function recordWallets() {
  const { WALLET_SEEDS } = await import("../dist/test/helpers/chain.js");
  mkdirSync(join(tmp, "wallets"));
  wallet = spawn(
    "monero-wallet-rpc",
    ["--wallet-dir", join(tmp, "wallets"), "--disable-rpc-login", "--daemon-address", `127.0.0.1:${RPC}`, "--rpc-bind-ip", "127.0.0.1",
      "--rpc-bind-port", String(WALLET_RPC), "--log-file", join(tmp, "wallet.log"), "--non-interactive"],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
  const wrpc = async (method, params = {}) => {
    const r = await fetch(`http://127.0.0.1:${WALLET_RPC}/json_rpc`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }), signal: AbortSignal.timeout(120000) });
    const text = await r.text();
    const j = JSON.parse(text);
    if (j.error) throw new Error(`${method}: ${j.error.message}`);
    return { result: j.result, text };
  };
  const deadline = Date.now() + 60000;
  for (;;) {
    try {
      await wrpc("get_version");
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await sleep(300);
    }
  }
  const out = { recorded_with: "scripts/record-node-fixtures.mjs", wallets: {} };
  for (const name of ["alice", "bob"]) {
    await wrpc("restore_deterministic_wallet", { filename: name, seed: WALLET_SEEDS[name], password: "", restore_height: 0, language: "English" });
    await wrpc("refresh", {});
    const answers = {};
    for (const [m, p] of WALLET_QUERIES) answers[m] = (await wrpc(m, p)).text;
    answers.address = (await wrpc("get_address", { account_index: 0 })).result.address;
    out.wallets[name] = answers;
    await wrpc("close_wallet", {});
  }
  mkdirSync(dirname(walletFile), { recursive: true });
  writeFileSync(walletFile, JSON.stringify(out, null, 1) + "\n");
  console.log(`wrote ${walletFile}`);
}

try {
  await main();
} finally {
  stopping = true;
  if (wallet && wallet.exitCode === null) {
    wallet.kill("SIGTERM");
    for (let i = 0; i < 50 && wallet.exitCode === null && wallet.signalCode === null; i++) await sleep(200);
    if (wallet.exitCode === null && wallet.signalCode === null) wallet.kill("SIGKILL");
  }
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    for (let i = 0; i < 75 && child.exitCode === null && child.signalCode === null; i++) await sleep(200);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  if (!process.env.KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
}
