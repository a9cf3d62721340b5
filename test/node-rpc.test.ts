/**
 * tsmonerod's RPC surface on a real daemon (real LMDB in a temp dir, real HTTP): every declared
 * method and path takes bad input (mistyped params and mistyped fields) without crashing and
 * answers with the right code and a message naming the field; monerod's semantic errors; restricted
 * mode (main server and restricted port) hiding what monerod hides; digest auth with --rpc-login;
 * the peer/log/limit state kept and reported; mining RPCs on regtest.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Daemon, startDaemon } from "../src/node/daemon.js";
import { BoundedCache } from "../src/node/rpc/cache.js";
import { DigestClient, parseLogin } from "../src/rpc/digest.js";
import type { JsonSchema } from "../src/rpc/schema.js";
import { parseBlock } from "../src/protocol/block.js";
import { serializeTransaction } from "../src/protocol/tx.js";
import { stringifyJson } from "../src/rpc/json.js";
import { nodeCall, nodePath, nodeRpc } from "./helpers/node-rpc.js";
import { NodeClient } from "../src/client/node-client.js";

// alice's primary address from the recorded chain (test/fixtures/chain/meta.json)
const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";

let daemon: Daemon;
let authed: Daemon;
const dirs: string[] = [];

interface RpcAnswer {
  result?: Record<string, unknown> & { status?: string };
  error?: { code: number; message: string };
}

/**
 * The raw calls, for what the typed client (nodeCall / nodeRpc / nodePath) cannot send or does not
 * show: mistyped params, unknown methods and paths, HTTP statuses, the bytes of an answer.
 */
async function rpc(url: string, method: string, params?: unknown): Promise<RpcAnswer> {
  const res = await fetch(url + "/json_rpc", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  assert.equal(res.status, 200, `${method}: HTTP ${res.status}`);
  return (await res.json()) as RpcAnswer;
}

async function path(url: string, p: string, body?: unknown): Promise<{ status: number; json?: Record<string, unknown>; text: string }> {
  const res = await fetch(url + p, { method: "POST", body: body === undefined ? "" : JSON.stringify(body) });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-noderpc-"));
  dirs.push(d);
  return d;
}

before(async () => {
  daemon = await startDaemon({
    network: "regtest", dataDir: tmp(), fixedDifficulty: 1n, offline: true, rpcBindPort: 29020, rpcRestrictedBindPort: 29021,
    logFile: "", logToConsole: false, syncMode: "fast", verifyThreads: 1,
  });
  authed = await startDaemon({
    network: "regtest", dataDir: tmp(), fixedDifficulty: 1n, offline: true, rpcBindPort: 29022, rpcLogin: "alice:s3cret",
    logFile: "", logToConsole: false, syncMode: "fast", verifyThreads: 1,
  });
});

after(async () => {
  await daemon?.stop();
  await authed?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A value of the wrong JSON type for a field of this schema. */
function wrongFor(s: JsonSchema): unknown {
  const t = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (t) {
    case "integer":
      return "twelve";
    case "boolean":
      return "maybe";
    case "string":
      return s.pattern !== undefined ? "zz" : 12;
    case "array":
      return 7;
    case "object":
      return "not an object";
    default:
      return undefined;
  }
}

/** A well-typed value for every declared field (so the mistyped one is the only problem). */
function validBase(js: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, fs] of Object.entries(js.properties ?? {})) {
    const t = Array.isArray(fs.type) ? fs.type[0] : fs.type;
    out[k] = t === "integer" ? 0 : t === "boolean" ? false : t === "string" ? "" : t === "array" ? [] : {};
  }
  return out;
}

test("every JSON-RPC method: mistyped params and mistyped fields answer -32602 naming the field; nothing crashes", async () => {
  const { nodeMethods } = await import("../src/node/rpc/index.js");
  const table = nodeMethods({ core: daemon.core, state: daemon.state, now: () => 0, stop: () => undefined, databaseSize: () => 0, freeSpace: () => 0n });
  const { jsonRpc, json, bin } = table.list();
  assert.ok(jsonRpc.length >= 30, `${jsonRpc.length} JSON-RPC methods`);
  let checked = 0;
  // raw: mistyped params and fields, bodies that are not JSON or not epee (what the typed client cannot send)
  for (const m of jsonRpc) {
    const js = m.params.jsonSchema();
    if (js.type === "object" && js.properties) {
      const r = await rpc(daemon.rpcUrl, m.name, "a string where an object belongs");
      assert.equal(r.error?.code, -32602, `${m.name}: params as a string → ${JSON.stringify(r)}`);
      assert.match(r.error?.message ?? "", /params: expected an object/, m.name);
      for (const [field, fs] of Object.entries(js.properties)) {
        const bad = wrongFor(fs);
        if (bad === undefined) continue;
        const r2 = await rpc(daemon.rpcUrl, m.name, { ...validBase(js), [field]: bad });
        assert.equal(r2.error?.code, -32602, `${m.name}.${field} = ${JSON.stringify(bad)} → ${JSON.stringify(r2)}`);
        assert.ok(r2.error?.message.includes(`params.${field}`), `${m.name}: message names the field: ${r2.error?.message}`);
        checked++;
        if (fs.type === "integer" && String(fs.minimum) === "0") {
          const r3 = await rpc(daemon.rpcUrl, m.name, { ...validBase(js), [field]: -1 });
          assert.equal(r3.error?.code, -32602, `${m.name}.${field} = -1 → ${JSON.stringify(r3)}`);
          assert.match(r3.error?.message ?? "", new RegExp(`params\\.${field}: -1 is out of range`), m.name);
          checked++;
        }
      }
    }
  }
  for (const p of json) {
    const js = p.params.jsonSchema();
    for (const [field, fs] of Object.entries(js.properties ?? {})) {
      const bad = wrongFor(fs);
      if (bad === undefined) continue;
      const r = await path(daemon.rpcUrl, p.path, { [field]: bad });
      assert.equal(r.status, 400, `${p.path}.${field}: HTTP ${r.status} ${r.text}`);
      assert.ok(r.text.includes(field), `${p.path}: message names ${field}: ${r.text}`);
      checked++;
    }
    const r = await path(daemon.rpcUrl, p.path, "[not json");
    assert.ok(r.status === 400 || r.status === 200, `${p.path}: a string body → ${r.status}`);
  }
  for (const b of bin) {
    const res = await fetch(daemon.rpcUrl + b.path, { method: "POST", body: Buffer.from("definitely not epee") });
    assert.equal(res.status, 400, `${b.path}: garbage epee`);
  }
  assert.ok(checked > 60, `${checked} mistyped fields checked`);
  // still alive and answering
  const info = await nodeCall(daemon.rpcUrl, "get_info");
  assert.equal(info.status, "OK");
});

test("monerod's semantic errors: codes and messages", async () => {
  const u = daemon.rpcUrl;
  const cases: [string, unknown, number, RegExp][] = [
    ["get_block_header_by_height", { height: 5 }, -2, /Requested block height: 5 greater than current top block height: 0/],
    ["get_block_header_by_height", { height: "18446744073709551616" }, -32602, /out of range/],
    ["get_block_header_by_height", { height: "9007199254740993" }, -2, /Requested block height: 9007199254740993 greater/],
    ["get_block_headers_range", { start_height: 0, end_height: 9 }, -2, /Invalid start\/end heights/],
    ["get_block", { hash: "abc" }, -1, /Failed to parse hex representation of block hash/],
    ["get_block", { hash: "11".repeat(32) }, -5, /can't get block by hash/],
    ["on_get_block_hash", [], -1, /Wrong parameters, expected height/],
    ["on_get_block_hash", ["x"], -32602, /params\[0\]/],
    ["get_block_template", { wallet_address: ALICE, reserve_size: 256 }, -3, /Too big reserved size, maximum 255/],
    ["get_block_template", { wallet_address: "nope", reserve_size: 1 }, -4, /Failed to parse wallet address/],
    ["get_block_template", { wallet_address: ALICE, reserve_size: 1, extra_nonce: "00" }, -1, /Cannot specify both/],
    ["submit_block", ["zz"], -6, /Wrong block blob/],
    ["submit_block", ["00"], -6, /Wrong block blob/],
    ["submit_block", "x", -1, /Wrong param/],
    ["generateblocks", { amount_of_blocks: 1, wallet_address: "bad" }, -4, /Failed to parse wallet address/],
    ["calc_pow", { major_version: 16, height: 1, block_blob: "0", seed_hash: "" }, -6, /Wrong block blob/],
    ["calc_pow", { major_version: 16, height: 1, block_blob: "00", seed_hash: "12" }, -1, /Wrong seed hash/],
    ["get_output_distribution", { amounts: [0], from_height: 5, to_height: 2 }, -5, /Failed to get output distribution/],
    ["get_fee_estimate", { grace_blocks: "lots" }, -32602, /params\.grace_blocks/],
    ["relay_tx", { txids: ["00"] }, -5, /invalid transaction id: 00/],
    ["relay_tx", { txids: ["11".repeat(32)] }, -5, /transaction not found in pool/],
    ["set_bans", { bans: [{ host: "not a host", ban: true, seconds: 10 }] }, -1, /Unsupported host\/subnet type/],
    ["banned", { address: "999.1.1.1" }, -1, /Unsupported host type/],
    ["prune_blockchain", { check: "yes" }, -32602, /params\.check/],
    ["no_such_method", {}, -32601, /Method not found/],
    // get_txids_loose (monerod after 0.18), the bad templates of Monero's functional test k_anonymity
    ["get_txids_loose", { txid_template: "69".repeat(32), num_matching_bits: 257 }, -1, /There are only 256 bits in a hash, you gave too many/],
    ["get_txids_loose", { txid_template: "q", num_matching_bits: 256 }, -1, /Could not decode hex txid/],
    ["get_txids_loose", { txid_template: "a", num_matching_bits: 128 }, -1, /Could not decode hex txid/],
    ["get_txids_loose", { txid_template: "0abcdef1234567890abcdef1234567890abcdef1234567890abcdef123456789", num_matching_bits: 193 }, -1, /not zeroed correctly for number of bits/],
    ["get_txids_loose", { txid_template: `${"00".repeat(31)}80`, num_matching_bits: 0 }, -1, /not zeroed correctly/],
    ["get_txids_loose", { txid_template: `${"00".repeat(31)}07`, num_matching_bits: 5 }, -1, /not zeroed correctly/],
    ["get_txids_loose", { txid_template: "00".repeat(32), num_matching_bits: -1 }, -32602, /num_matching_bits/],
  ];
  // raw: a table of method names and params, bad ones among them (mistyped heights, a string for params, an unknown method)
  for (const [m, p, code, msg] of cases) {
    const r = await rpc(u, m, p);
    assert.equal(r.error?.code, code, `${m} ${JSON.stringify(p)} → ${JSON.stringify(r)}`);
    assert.match(r.error?.message ?? "", msg, m);
  }
  const sr = await nodePath(u, "/send_raw_transaction", { tx_as_hex: "zz" });
  assert.equal(sr.status, "Failed");
  assert.match(String(sr.reason), /hex/);
  const sr2 = await nodePath(u, "/send_raw_transaction", { tx_as_hex: "0200" });
  assert.equal(sr2.status, "Failed");
  const gt = await nodePath(u, "/get_transactions", { txs_hashes: ["12"] });
  assert.equal(gt.status, "Failed, size of data mismatch");
  const outs = await nodePath(u, "/get_outs", { outputs: [{ amount: 0, index: 99 }] });
  assert.equal(outs.status, "Failed");
  // the genesis coinbase is the chain's one tx: found with 0 bits, and with all 256 of its own
  const genesisTx = "c88ce9783b4f11190d7b9c17a69c1c52200f9faaee8e98dd07e6811175177139";
  assert.deepEqual((await nodeCall(u, "get_txids_loose", { txid_template: "00".repeat(32), num_matching_bits: 0 })).txids, [genesisTx]);
  assert.deepEqual((await nodeCall(u, "get_txids_loose", { txid_template: genesisTx, num_matching_bits: 256 })).txids, [genesisTx]);
  // top 4 bits (byte 31's high nibble, 0x3_) kept: the template 00…0030 matches; 00…0040 does not
  assert.deepEqual((await nodeCall(u, "get_txids_loose", { txid_template: `${"00".repeat(31)}30`, num_matching_bits: 4 })).txids, [genesisTx]);
  assert.equal((await nodeCall(u, "get_txids_loose", { txid_template: `${"00".repeat(31)}40`, num_matching_bits: 4 })).txids ?? undefined, undefined);
  const sum = await nodeCall(u, "get_coinbase_tx_sum", { height: 9, count: 1 });
  assert.equal(sum.status, "height or count is too large");
  const lvl = await nodePath(u, "/set_log_level", { level: 9 });
  assert.equal(lvl.status, "Error: log level not valid");
  const lim = await nodePath(u, "/set_limit", { limit_down: -5 });
  assert.equal(lim.status, "Invalid parameter");
  const hr = await nodePath(u, "/set_log_hash_rate", { visible: true });
  assert.equal(hr.status, "NOT MINING");
  const upd = await nodePath(u, "/update", { command: "check" });
  assert.equal(upd.status, "Daemon is running offline");
  // raw: an unknown path's HTTP status
  assert.equal((await path(u, "/no_such_path", {})).status, 404);
});

test("kept state: bans, limits, peers, log level and categories, bootstrap daemon", async () => {
  const u = daemon.rpcUrl;
  assert.equal((await nodeCall(u, "set_bans", { bans: [{ host: "10.1.2.3", ban: true, seconds: 300 }, { ip: 0x04030201, ban: true, seconds: 100 }] })).status, "OK");
  const { bans } = await nodeCall(u, "get_bans");
  assert.ok(bans, "get_bans: bans");
  assert.deepEqual(bans.map((b) => b.host).sort(), ["1.2.3.4", "10.1.2.3"]);
  assert.equal(bans.find((b) => b.host === "10.1.2.3")?.ip, 0x0302010a);
  assert.ok((bans.find((b) => b.host === "10.1.2.3")?.seconds ?? 0) > 290);
  assert.equal((await nodeCall(u, "banned", { address: "10.1.2.3" })).banned, true);
  await nodeCall(u, "set_bans", { bans: [{ host: "10.1.2.3", ban: false }] });
  assert.equal((await nodeCall(u, "banned", { address: "10.1.2.3" })).banned, false);
  // later v0.18 releases: unbanning host "all" lifts every ban
  assert.equal((await nodeCall(u, "set_bans", { bans: [{ host: "10.9.9.9", ban: true, seconds: 300 }, { host: "10.0.0.0/8", ban: true, seconds: 300 }] })).status, "OK");
  assert.equal((await nodeCall(u, "set_bans", { bans: [{ host: "all", ban: false }] })).status, "OK");
  assert.equal((await nodeCall(u, "get_bans")).bans?.length ?? 0, 0);
  assert.equal((await nodeRpc(u, "set_bans", { bans: [{ host: "all", ban: true, seconds: 10 }] })).error?.code, -1, "banning \"all\" is no host");
  assert.deepEqual(await nodePath(u, "/set_limit", { limit_down: 1000, limit_up: 0 }), { limit_down: 1000, limit_up: 2048, status: "OK", untrusted: false });
  assert.deepEqual(await nodePath(u, "/get_limit"), { limit_down: 1000, limit_up: 2048, status: "OK", untrusted: false });
  assert.equal((await nodePath(u, "/set_limit", { limit_down: -1 })).limit_down, 8192);
  assert.equal((await nodePath(u, "/out_peers", { out_peers: 5 })).out_peers, 5);
  assert.equal((await nodePath(u, "/out_peers", { set: false, out_peers: 9 })).out_peers, 5);
  assert.equal((await nodePath(u, "/in_peers", { in_peers: 7 })).in_peers, 7);
  assert.equal((await nodePath(u, "/set_log_level", { level: 2 })).status, "OK");
  assert.equal(daemon.state.logLevel, 2);
  const cats = await nodePath(u, "/set_log_categories", { categories: "net:DEBUG,blockchain:TRACE" });
  assert.equal(cats.categories, "net:DEBUG,blockchain:TRACE");
  const bad = await nodePath(u, "/set_log_categories", { categories: "net:LOUD" });
  assert.match(String(bad.status), /Invalid log category 'net:LOUD'/);
  await nodePath(u, "/set_log_level", { level: 0 });
  assert.equal((await nodePath(u, "/set_bootstrap_daemon", { address: "127.0.0.1:18081" })).status, "OK");
  assert.equal((await nodeCall(u, "get_info")).bootstrap_daemon_address, "127.0.0.1:18081");
  await nodePath(u, "/set_bootstrap_daemon", { address: "" });
  assert.equal((await nodeCall(u, "get_connections")).status, "OK");
  assert.equal((await nodeCall(u, "sync_info")).height, daemon.core.store.height());
  assert.equal((await nodePath(u, "/get_peer_list")).status, "OK");
  assert.equal((await nodePath(u, "/get_net_stats")).start_time, daemon.state.startTime);
  assert.deepEqual(await nodeCall(u, "prune_blockchain", { check: true }), { pruned: false, pruning_seed: 0, status: "OK", untrusted: false });
  assert.equal((await nodeCall(u, "flush_cache", { bad_txs: true })).status, "OK");
  assert.equal((await nodePath(u, "/save_bc")).status, "OK");
});

test("mining RPCs on regtest: generateblocks, template, submit, miner data, calc_pow, pop_blocks", async () => {
  const u = daemon.rpcUrl;
  const g = await nodeRpc(u, "generateblocks", { amount_of_blocks: 3, wallet_address: ALICE });
  assert.equal(g.result?.status, "OK", stringifyJson(g));
  assert.equal(g.result.blocks.length, 3);
  assert.equal(g.result.height, 3);
  assert.equal((await nodeCall(u, "get_block_count")).count, 4);
  const t = await nodeCall(u, "get_block_template", { wallet_address: ALICE, reserve_size: 8 });
  assert.equal(t.height, 4);
  assert.equal(t.difficulty, 1);
  assert.equal(t.blocktemplate_blob.length > 100, true);
  // later v0.18 releases (and Monero's functional tests at HEAD): the template's weight, the submitted block's id
  const tplBlock = parseBlock(Uint8Array.from(Buffer.from(t.blocktemplate_blob, "hex")));
  assert.equal(tplBlock.txHashes.length, 0);
  assert.equal(t.cumulative_weight, serializeTransaction(tplBlock.minerTx).length, "no pool txs: the coinbase's weight");
  const s = await nodeRpc(u, "submit_block", [t.blocktemplate_blob]);
  assert.equal(s.result?.status, "OK", stringifyJson(s));
  assert.equal(s.result.block_id, (await nodeCall(u, "get_last_block_header")).block_header.hash);
  const dup = await nodeRpc(u, "submit_block", [t.blocktemplate_blob]);
  assert.equal(dup.result?.status, "OK", "a known block is answered OK, as monerod does");
  const md = await nodeCall(u, "get_miner_data");
  assert.equal(md.height, 5);
  assert.equal(md.difficulty, "0x1");
  const hdr = await nodeCall(u, "get_last_block_header", { fill_pow_hash: true });
  const pow = await nodeCall(u, "calc_pow", { major_version: 16, height: 4, block_blob: t.blockhashing_blob, seed_hash: t.seed_hash });
  assert.equal(typeof pow, "string");
  assert.equal(pow, hdr.block_header.pow_hash);
  assert.equal((await nodePath(u, "/mining_status")).active, false);
  const pop = await nodePath(u, "/pop_blocks", { nblocks: 2 });
  assert.equal(pop.height, 3);

  // the built-in miner (node/mining) through /start_mining, /mining_status, /stop_mining
  assert.equal((await nodePath(u, "/start_mining", { miner_address: "nope", threads_count: 1 })).status, "Failed, wrong address");
  const st = await nodePath(u, "/start_mining", { miner_address: ALICE, threads_count: 1, do_background_mining: false, ignore_battery: true });
  assert.equal(st.status, "OK", stringifyJson(st));
  const ms = await nodePath(u, "/mining_status");
  assert.equal(ms.active, true);
  assert.equal(ms.address, ALICE);
  assert.equal(ms.threads_count, 1);
  assert.equal(ms.pow_algorithm, "RandomX");
  const h0 = daemon.core.store.height();
  const deadline = Date.now() + 20_000;
  while (daemon.core.store.height() < h0 + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.ok(daemon.core.store.height() >= h0 + 2, "the miner found blocks");
  assert.equal((await nodePath(u, "/set_log_hash_rate", { visible: true })).status, "OK");
  assert.equal((await nodePath(u, "/stop_mining")).status, "OK");
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await nodePath(u, "/mining_status")).active, false);
  assert.equal((await nodePath(u, "/stop_mining")).status, "Mining never started");
});

test("restricted mode: the restricted port hides what monerod hides and blanks get_info's private fields", async () => {
  const r = daemon.restrictedRpcUrl;
  assert.ok(r);
  // raw: the restricted server's refusals (unknown there: -32601, HTTP 404) and the bytes of get_info's answer
  for (const m of ["generateblocks", "get_connections", "set_bans", "get_bans", "banned", "flush_txpool", "get_coinbase_tx_sum", "get_alternate_chains", "relay_tx", "sync_info", "prune_blockchain", "flush_cache", "calc_pow"]) {
    const a = await rpc(r, m, {});
    assert.equal(a.error?.code, -32601, `${m} hidden on the restricted port`);
  }
  for (const p of ["/start_mining", "/stop_mining", "/mining_status", "/save_bc", "/get_peer_list", "/set_log_level", "/set_log_categories", "/set_log_hash_rate", "/stop_daemon", "/set_limit", "/out_peers", "/in_peers", "/update", "/pop_blocks", "/get_net_stats", "/set_bootstrap_daemon"]) {
    assert.equal((await path(r, p, {})).status, 404, `${p} hidden on the restricted port`);
  }
  const raw = await (await fetch(r + "/json_rpc", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "get_info" }) })).text();
  assert.match(raw, /"free_space": 18446744073709551615,/, "u64 max written exactly");
  const info = await nodeCall(r, "get_info");
  assert.equal(info.restricted, true);
  assert.equal(info.start_time, 0);
  assert.equal(info.version, "");
  assert.equal(info.height_without_bootstrap, 0);
  assert.equal(Number(info.database_size) % (5 * 1024 * 1024 * 1024), 0);
  const hdr = (await nodeCall(r, "get_last_block_header", { fill_pow_hash: true })).block_header;
  assert.equal(hdr.pow_hash, "", "no pow hash on a restricted server");
  const dist = await nodeRpc(r, "get_output_distribution", { amounts: [1000] });
  assert.equal(dist.error?.code, -19);
  const hist = await nodeCall(r, "get_output_histogram", {});
  assert.match(String(hist.status), /Restricted RPC will not serve histograms/);
  assert.equal((await nodePath(r, "/get_limit")).status, "OK", "get_limit stays public");
  assert.equal((await nodeCall(daemon.rpcUrl, "get_info")).restricted, false);
});

test("--rpc-login: digest auth required, monerod's challenge answered", async () => {
  // raw: the HTTP exchange itself (401, the challenge, the Authorization header) is what is tested
  const u = authed.rpcUrl;
  const res = await fetch(u + "/json_rpc", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "get_info" }) });
  assert.equal(res.status, 401);
  const challenges = res.headers.get("www-authenticate");
  assert.ok(challenges);
  const client = new DigestClient(parseLogin("alice:s3cret"));
  assert.ok(client.onChallenge(challenges.split(/,\s*(?=Digest )/)));
  const ok = await fetch(u + "/json_rpc", {
    method: "POST",
    headers: { Authorization: client.header("POST", "/json_rpc") ?? "" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "get_info" }),
  });
  assert.equal(ok.status, 200);
  assert.equal(((await ok.json()) as RpcAnswer).result?.status, "OK");
  const wrong = new DigestClient(parseLogin("alice:wrong"));
  wrong.onChallenge(challenges.split(/,\s*(?=Digest )/));
  const no = await fetch(u + "/get_height", { method: "POST", headers: { Authorization: wrong.header("POST", "/get_height") ?? "" } });
  assert.equal(no.status, 401);
});

test("read caches follow the chain: after pop_blocks and new blocks, headers, blocks, outputs and get_info show the new chain", async () => {
  const d = await startDaemon({
    network: "regtest", dataDir: tmp(), fixedDifficulty: 1n, offline: true, rpcBindPort: 29024,
    logFile: "", logToConsole: false, syncMode: "fast", verifyThreads: 1,
  });
  try {
    const u = d.rpcUrl;
    assert.equal((await nodeCall(u, "generateblocks", { amount_of_blocks: 6, wallet_address: ALICE })).status, "OK");
    const top = 6;
    // what a reader sees of block `top`: its header, the block, its coinbase output through /get_outs
    const look = async (): Promise<{ hash: string; blob: string; key: string; info: string; depth0: number }> => {
      const h = (await nodeCall(u, "get_block_header_by_height", { height: top })).block_header;
      const b = await nodeCall(u, "get_block", { height: top });
      const { txs } = await nodePath(u, "/get_transactions", { txs_hashes: [h.miner_tx_hash] });
      assert.ok(txs?.[0]?.output_indices, "get_transactions: the coinbase's output indices");
      const { outs } = await nodePath(u, "/get_outs", { outputs: [{ amount: 0, index: txs[0].output_indices[0] }] });
      assert.ok(outs, "get_outs: outs");
      const json = JSON.parse(b.json) as { miner_tx: { vout: { target: { tagged_key: { key: string } } }[] } };
      assert.equal(outs[0].key, json.miner_tx.vout[0].target.tagged_key.key, "get_outs gives the block's coinbase key");
      const info = await nodeCall(u, "get_info");
      return { hash: h.hash, blob: b.blob, key: outs[0].key, info: info.top_block_hash, depth0: h.depth };
    };
    const before = await look();
    assert.equal(before.info, before.hash);
    assert.equal(before.depth0, 0);
    assert.equal((await nodePath(u, "/pop_blocks", { nblocks: 2 })).height, 5);
    assert.equal((await nodeRpc(u, "get_block_header_by_height", { height: top })).error?.code, -2, "the popped height is gone");
    assert.notEqual((await nodeCall(u, "get_info")).top_block_hash, before.hash);
    assert.equal((await nodeCall(u, "generateblocks", { amount_of_blocks: 3, wallet_address: ALICE })).status, "OK");
    const after = await look();
    assert.notEqual(after.hash, before.hash, "a new block at the same height");
    assert.equal(after.hash, await nodeCall(u, "on_get_block_hash", [top]));
    assert.notEqual(after.blob, before.blob);
    assert.notEqual(after.key, before.key, "the output index now holds the new coinbase's key");
    assert.equal(after.depth0, 1, "depth follows the tip");
  } finally {
    await d.stop();
  }
});

test("BoundedCache: forgets the oldest past its entry count or its weight; an entry heavier than the limit is not kept", () => {
  const c = new BoundedCache<string, string>(3, 10, (v) => v.length);
  c.set("a", "1234");
  c.set("b", "1234");
  assert.equal(c.weight, 8);
  c.set("c", "12345"); // 13 > 10: "a" goes
  assert.equal(c.get("a"), undefined);
  assert.equal(c.get("b"), "1234");
  assert.equal(c.weight, 9);
  c.set("d", "1");
  c.set("e", "1"); // 4 entries > 3: "b" goes
  assert.equal(c.get("b"), undefined);
  assert.equal(c.size, 3);
  assert.equal(c.set("huge", "x".repeat(11)), "x".repeat(11));
  assert.equal(c.get("huge"), undefined, "too heavy to keep");
  assert.equal(c.getOr("f", () => "12"), "12");
  assert.ok(c.weight <= 10);
  c.clear();
  assert.equal(c.size, 0);
  assert.equal(c.weight, 0);
});

test("BoundedCache with admitOnRepeat keeps a key from its second set on; a scan of new keys keeps nothing", () => {
  const c = new BoundedCache<number, string>(4, Infinity, () => 1, undefined, { admitOnRepeat: true });
  for (let k = 0; k < 100; k++) assert.equal(c.getOr(k, () => `v${k}`), `v${k}`);
  assert.equal(c.size, 0, "every key seen once: nothing kept");
  // key 99 is still remembered (the last 16 keys): its second set keeps it
  assert.equal(c.getOr(99, () => "again"), "again");
  assert.equal(c.get(99), "again");
  // key 0 was forgotten (more than 4 × capacity keys since): seen once more, not kept
  c.set(0, "x");
  assert.equal(c.get(0), undefined);
  c.set(0, "y");
  assert.equal(c.get(0), "y");
  // a kept key is replaced in place; clear forgets the remembered keys too
  c.set(0, "z");
  assert.equal(c.get(0), "z");
  c.set(7, "first");
  c.clear();
  c.set(7, "after clear");
  assert.equal(c.get(7), undefined, "the key's first set after clear");
});

test("BoundedCache counts its lookups into a counter: get and getOr, found or not", () => {
  const counter = { hits: 0, misses: 0 };
  const c = new BoundedCache<string, string>(2, Infinity, () => 1, counter);
  assert.equal(c.get("a"), undefined);
  c.set("a", "1");
  assert.equal(c.get("a"), "1");
  assert.equal(c.getOr("b", () => "2"), "2");
  assert.equal(c.getOr("b", () => "x"), "2");
  assert.deepEqual(counter, { hits: 2, misses: 2 });
});

test("get_cache_stats (tsmonerod only): a header read three times is found the third time (kept from its second); not on the restricted port", async () => {
  const before = await nodeCall(daemon.rpcUrl, "get_cache_stats");
  const headers = (r: typeof before): { hits: number; misses: number } => r.caches.find((c) => c.name === "block headers") ?? { hits: 0, misses: 0 };
  const h0 = headers(before);
  // genesis read three times; with fill_pow_hash the whole answer is not kept, so each reaches the header cache
  for (let k = 0; k < 3; k++) await nodeCall(daemon.rpcUrl, "get_block_header_by_height", { height: 0, fill_pow_hash: true });
  const h1 = headers(await nodeCall(daemon.rpcUrl, "get_cache_stats"));
  // the third read at least finds what the second kept (earlier reads may hit too, if a test before read genesis)
  assert.ok(h1.hits >= h0.hits + 1, `header cache hit: ${JSON.stringify(h0)} → ${JSON.stringify(h1)}`);
  assert.ok(h1.hits + h1.misses >= h0.hits + h0.misses + 3, "every read counted");
  const restricted = await rpc("http://127.0.0.1:29021", "get_cache_stats");
  assert.ok(restricted.error, "restricted port refuses it");
});

test("get_output_distribution: an entry asked again for the same tip is the kept one, byte for byte; a new block answers anew", async () => {
  const answers = async (): Promise<{ hits: number; misses: number }> =>
    (await nodeCall(daemon.rpcUrl, "get_cache_stats")).caches.find((c) => c.name === "distribution answers") ?? { hits: 0, misses: 0 };
  const ask = async (params: unknown): Promise<string> => {
    const res = await fetch(daemon.rpcUrl + "/json_rpc", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "get_output_distribution", params }) });
    return res.text();
  };
  const plain = { amounts: [0], cumulative: true, binary: false };
  const packed = { amounts: [0], binary: true, compress: true };
  const first = await ask(plain);
  const firstPacked = await ask(packed);
  const before = await answers();
  assert.equal(await ask(plain), first);
  assert.equal(await ask(packed), firstPacked);
  const after = await answers();
  assert.equal(after.hits - before.hits, 2, `both kept: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  // another range is another entry
  const ranged = JSON.parse(await ask({ ...plain, from_height: 1, to_height: 2 })) as { result: { distributions: { distribution: number[]; start_height: number }[] } };
  assert.equal(ranged.result.distributions[0].start_height, 1);
  assert.equal(ranged.result.distributions[0].distribution.length, 2);
  // a new block: the whole-chain answer grows by one height and counts the block's coinbase output
  const whole = (t: string): number[] => (JSON.parse(t) as { result: { distributions: { distribution: number[] }[] } }).result.distributions[0].distribution;
  await nodeRpc(daemon.rpcUrl, "generateblocks", { amount_of_blocks: 1, wallet_address: ALICE });
  const next = whole(await ask(plain));
  const old = whole(first);
  assert.equal(next.length, old.length + 1);
  assert.deepEqual(next.slice(0, old.length), old);
  assert.ok(next[next.length - 1] > old[old.length - 1]);
});

test("get_output_distribution.bin asked again with a new signature: the same bytes, answered without the handler; a new block gives the new chain's", async () => {
  const u = daemon.rpcUrl;
  const { encodeEpee, decodeEpee } = await import("../src/codec/epee-map.js");
  const { getOutputDistributionBinRequest, getOutputDistributionBinResponse } = await import("../src/client/messages.js");
  const dist = async (): Promise<{ hits: number; misses: number }> =>
    (await nodeCall(u, "get_cache_stats")).caches.find((c) => c.name.startsWith("output distribution")) ?? { hits: 0, misses: 0 };
  const ask = async (client: string): Promise<Buffer> => {
    // wallet2's request for its decoys: rct outputs, cumulative, compressed
    const body = encodeEpee(getOutputDistributionBinRequest, { client, amounts: [0n], from_height: 0n, to_height: 0n, cumulative: true, binary: true, compress: true });
    const res = await fetch(`${u}/get_output_distribution.bin`, { method: "POST", body });
    assert.equal(res.status, 200);
    return Buffer.from(await res.arrayBuffer());
  };
  // the first computes the distribution (in a later tick: not kept whole), the second finds it
  // kept and answers in its tick (kept whole by the server), the third is that encoded answer
  const first = await ask("sig one");
  const again = await ask("another signature");
  const kept = await dist();
  const third = await ask("a third");
  assert.ok(again.equals(first) && third.equals(first), "the same bytes");
  assert.deepEqual(await dist(), kept, "the kept encoded answer: the distribution cache not even looked up");
  // the same distribution as the JSON call
  const bin = decodeEpee(getOutputDistributionBinResponse, first).distributions[0];
  const json = await nodeCall(u, "get_output_distribution", { amounts: [0], cumulative: true, binary: false });
  assert.deepEqual(bin.distribution.map(Number), json.distributions?.[0].distribution);
  await nodeRpc(u, "generateblocks", { amount_of_blocks: 1, wallet_address: ALICE });
  const next = decodeEpee(getOutputDistributionBinResponse, await ask("sig three")).distributions[0];
  assert.equal(next.distribution.length, bin.distribution.length + 1);
  assert.deepEqual(next.distribution.slice(0, -1), bin.distribution);
});

test("a new top block's pruned get_blocks.bin entry is built as it arrives: the first wallet request for it finds it", async () => {
  const entries = async (): Promise<{ hits: number; misses: number }> =>
    (await nodeCall(daemon.rpcUrl, "get_cache_stats")).caches.find((c) => c.name === "block entries (.bin)") ?? { hits: 0, misses: 0 };
  // two new blocks, one after the other (each entry is built on the event loop's turn after its block)
  for (let i = 0; i < 2; i++) {
    await nodeRpc(daemon.rpcUrl, "generateblocks", { amount_of_blocks: 1, wallet_address: ALICE });
    await new Promise((r) => setTimeout(r, 50));
  }
  const count = (await nodeCall(daemon.rpcUrl, "get_block_count")).count;
  const known = await nodeCall(daemon.rpcUrl, "get_block_header_by_height", { height: count - 3 });
  const genesis = await nodeCall(daemon.rpcUrl, "get_block_header_by_height", { height: 0 });
  const before = await entries();
  const client = new NodeClient({ url: daemon.rpcUrl });
  // a wallet two blocks behind (a wallet one block behind gets the answer made with the block,
  // next test): 0.18.0.0 answers from its top on (it, then the two new ones)
  const r = await client.getBlocksBin({ block_ids: [Buffer.from(known.block_header.hash, "hex"), Buffer.from(genesis.block_header.hash, "hex")], prune: true });
  assert.equal(r.blocks.length, 3);
  assert.equal(r.start_height, BigInt(count - 3));
  const after = await entries();
  assert.equal(after.misses, before.misses, `no entry built in the request: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  assert.equal(after.hits, before.hits + 3, `all found: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
});

test("get_blocks.bin by split point: a synced wallet's request after a block is answered from the answer made with the block, byte for byte what the usual path answers", async () => {
  const u = daemon.rpcUrl;
  const entries = async (): Promise<{ hits: number; misses: number }> =>
    (await nodeCall(u, "get_cache_stats")).caches.find((c) => c.name === "block entries (.bin)") ?? { hits: 0, misses: 0 };
  await nodeRpc(u, "generateblocks", { amount_of_blocks: 1, wallet_address: ALICE });
  await new Promise((r) => setTimeout(r, 50));
  const count = (await nodeCall(u, "get_block_count")).count;
  const hash = async (h: number): Promise<Buffer> => Buffer.from((await nodeCall(u, "get_block_header_by_height", { height: h })).block_header.hash, "hex");
  const genesis = await hash(0);
  const post = async (ids: Buffer[], extra: Record<string, unknown> = {}): Promise<Buffer> => {
    const { encodeEpee } = await import("../src/codec/epee-map.js");
    const { getBlocksBinRequest } = await import("../src/protocol/rpc-bin.js");
    const body = encodeEpee(getBlocksBinRequest, { client: "", block_ids: ids, start_height: 0n, prune: true, no_miner_tx: false, ...extra });
    const res = await fetch(`${u}/getblocks.bin`, { method: "POST", body });
    assert.equal(res.status, 200);
    return Buffer.from(await res.arrayBuffer());
  };
  // wallet2's short chain history from the previous top, with ids of its own in the middle
  const history = [await hash(count - 2), await hash(count - 3), crypto.getRandomValues(Buffer.alloc(32)), await hash(1), genesis];
  const before = await entries();
  const quick = await post(history);
  const between = await entries();
  assert.deepEqual(between, before, "answered with no block entry looked up: made with the block");
  // the usual path: a first id the chain does not have, so the split is the next id, the same block
  const usual = await post([crypto.getRandomValues(Buffer.alloc(32)), ...history]);
  assert.ok((await entries()).hits > between.hits, "the usual path looked the entries up");
  assert.ok(usual.equals(quick), "same bytes either way");
  const { decodeEpee } = await import("../src/codec/epee-map.js");
  const { getBlocksBinResponse } = await import("../src/protocol/rpc-bin.js");
  const r = decodeEpee(getBlocksBinResponse, quick);
  assert.equal(r.blocks.length, 2);
  assert.equal(r.start_height, BigInt(count - 2));
  // a wallet at the top: the empty answer, both ways
  const top = await hash(count - 1);
  const atTop = await post([top, genesis]);
  assert.equal(decodeEpee(getBlocksBinResponse, atTop).blocks.length, 0);
  assert.ok(atTop.equals(await post([top, crypto.getRandomValues(Buffer.alloc(32)), genesis])));
  // no_miner_tx is its own answer, again what the usual path answers
  const noMiner = await post(history, { no_miner_tx: true });
  assert.ok(!noMiner.equals(quick));
  assert.ok(noMiner.equals(await post([crypto.getRandomValues(Buffer.alloc(32)), ...history], { no_miner_tx: true })));
  // a history whose last id is not the genesis id fails as before (the usual path answers it)
  const { getBlocksBinResponse: resp } = await import("../src/protocol/rpc-bin.js");
  assert.equal(decodeEpee(resp, await post(history.slice(0, -1))).status, "Failed");
});

test("get_blocks.bin from a start_height (tsmonero's wallet asks so): the quick answer is byte for byte the usual path's", async () => {
  const u = daemon.rpcUrl;
  // the earlier tests' chain (txs included); alone, a chain of coinbases long enough for the cases below
  const had = (await nodeCall(u, "get_block_count")).count;
  if (had < 40) await nodeRpc(u, "generateblocks", { amount_of_blocks: 40 - had, wallet_address: ALICE });
  const count = (await nodeCall(u, "get_block_count")).count;
  const { encodeEpee, decodeEpee, object, text } = await import("../src/codec/epee-map.js");
  const { getBlocksBinRequest, getBlocksBinResponse } = await import("../src/protocol/rpc-bin.js");
  // an extra field the quick reader does not take (epee ignores it): the usual path answers
  const withExtra = object<{ x: string }>({ x: text });
  const post = async (start: number, prune: boolean, noMinerTx: boolean, usual: boolean): Promise<Buffer> => {
    const ids = [crypto.getRandomValues(Buffer.alloc(32))];
    const req = Buffer.from(encodeEpee(getBlocksBinRequest, { client: "", block_ids: ids, start_height: BigInt(start), prune, no_miner_tx: noMinerTx }));
    // the extra field appended as a section of its own fields: rewrite the field count and add "x"
    const body = usual ? Buffer.concat([req.subarray(0, 9), Buffer.from([((req[9] >> 2) + 1) << 2]), req.subarray(10), Buffer.from(encodeEpee(withExtra, { x: "y" })).subarray(10)]) : req;
    const res = await fetch(`${u}/get_blocks.bin`, { method: "POST", body });
    assert.equal(res.status, 200);
    return Buffer.from(await res.arrayBuffer());
  };
  for (const [start, noMinerTx] of [[1, false], [count - 4, false], [count - 1, true], [Math.max(1, count - 30), true]] as const) {
    const quick = await post(start, true, noMinerTx, false);
    const usual = await post(start, true, noMinerTx, true);
    const r = decodeEpee(getBlocksBinResponse, quick);
    assert.equal(r.status, "OK");
    assert.equal(r.start_height, BigInt(start));
    assert.equal(r.current_height, BigInt(count));
    assert.equal(r.blocks.length, Math.min(count - start, 1000));
    assert.equal(r.output_indices.length, r.blocks.length);
    assert.ok(quick.equals(usual), `start ${start}${noMinerTx ? ", no_miner_tx" : ""}: same bytes either way`);
  }
  // past the top: Failed, as before (the usual path answers it)
  assert.equal(decodeEpee(getBlocksBinResponse, await post(count, true, false, false)).status, "Failed");
});

test("a fresh regtest chain (genesis only): hard_fork_info and get_fee_estimate speak of the next block, as monerod does", async () => {
  // monerod 0.18.0.0 --regtest --offline --fixed-difficulty 1 on a new data dir answers version 16
  // and fees [1200000, 4700000, 19000000, 240000000]; the functional test `blockchain` checks the
  // 1200000 after popping back to genesis
  const fresh = await startDaemon({
    network: "regtest", dataDir: tmp(), fixedDifficulty: 1n, offline: true, rpcBindPort: 29023,
    logFile: "", logToConsole: false, syncMode: "fast", verifyThreads: 1,
  });
  try {
    const url = "http://127.0.0.1:29023";
    const hf = await nodeCall(url, "hard_fork_info");
    assert.equal(hf.version, 16);
    assert.equal(hf.earliest_height, 1);
    const fee = await nodeCall(url, "get_fee_estimate");
    assert.equal(fee.fee, 1200000);
    assert.deepEqual(fee.fees, [1200000, 4700000, 19000000, 240000000]);
    // the voting window follows the chain as it grows and as blocks are popped (the window is kept
    // between calls): every block votes its minor version, genesis (minor 0) counts as 1, and
    // monerod's regtest blocks are minor 16
    const window = async (): Promise<[number, number]> => {
      const r = await nodeCall(url, "hard_fork_info", { version: 16 });
      return [r.window, r.votes];
    };
    assert.deepEqual(await window(), [1, 0]);
    await nodeRpc(url, "generateblocks", { amount_of_blocks: 3, wallet_address: ALICE });
    assert.deepEqual(await window(), [4, 3]);
    assert.equal((await nodeCall(url, "hard_fork_info", { version: 1 })).votes, 4);
    await nodePath(url, "/pop_blocks", { nblocks: 2 });
    assert.deepEqual(await window(), [2, 1]);
    await nodeRpc(url, "generateblocks", { amount_of_blocks: 2, wallet_address: ALICE });
    assert.deepEqual(await window(), [4, 3]);
  } finally {
    await fresh.stop();
  }
});

test("get_bans lists in monerod's order: hosts by text, then subnets by address (first octet lowest) and length", async () => {
  const u = daemon.rpcUrl;
  const hosts = ["2.0.0.1", "1.0.0.2", "9.9.9.9", "10.0.0.1"];
  const subnets = ["9.0.0.0/8", "10.0.0.0/8", "1.2.0.0/16", "1.0.0.0/8", "2.1.0.0/16"];
  for (const host of [...hosts, ...subnets]) assert.equal((await nodeCall(u, "set_bans", { bans: [{ host, ban: true, seconds: 100 }] })).status, "OK");
  const mine = new Set([...hosts, ...subnets]); // an earlier test's ban may still run
  const listed = (await nodeCall(u, "get_bans")).bans;
  assert.ok(listed, "get_bans: bans");
  const bans = listed.filter((b) => mine.has(b.host));
  // monerod 0.18.0.0 given the same calls
  assert.deepEqual(
    bans.map((b) => b.host),
    ["1.0.0.2", "10.0.0.1", "2.0.0.1", "9.9.9.9", "1.0.0.0/8", "9.0.0.0/8", "10.0.0.0/8", "2.1.0.0/16", "1.2.0.0/16"],
  );
  assert.equal(bans[0].ip, 33554433);
  assert.equal(bans[4].ip, 0);
  await nodeCall(u, "set_bans", { bans: [...hosts, ...subnets].map((host) => ({ host, ban: false })) });
});

test("answers that differed from monerod 0.18.0.0 (each recorded from it side by side)", async () => {
  const u = daemon.rpcUrl;
  // get_block_header_by_height without height: the request's default 0, the genesis header
  const g = await nodeCall(u, "get_block_header_by_height", {});
  assert.equal(g.block_header.height, 0);
  // a malformed or empty blob fails tx_sanity_check first (do_sanity_checks defaults to true)
  for (const tx_as_hex of ["0011", "", "02000102000b"]) {
    const r = await nodePath(u, "/send_raw_transaction", { tx_as_hex });
    assert.equal(r.status, "Failed");
    assert.equal(r.sanity_check_failed, true, tx_as_hex);
    assert.equal(r.reason, "Sanity check failed");
  }
  // binary_archive reads missing trailing varints as 0: "0200" passes the sanity parse and fails in the pool
  for (const tx_as_hex of ["0200", "0100", "02"]) {
    const r = await nodePath(u, "/send_raw_transaction", { tx_as_hex });
    assert.equal(r.status, "Failed");
    assert.equal(r.sanity_check_failed, false, tx_as_hex);
  }
  const noCheck = await nodePath(u, "/send_raw_transaction", { tx_as_hex: "0011", do_sanity_checks: false });
  assert.equal(noCheck.sanity_check_failed, false);
  assert.match(String(noCheck.reason), /not a transaction/); // ours says why (monerod: "")
  // stop_mining when not mining; set_log_categories with no categories sets none
  assert.equal((await nodePath(u, "/stop_mining")).status, "Mining never started");
  assert.deepEqual(await nodePath(u, "/set_log_categories", {}), { categories: "", status: "OK", untrusted: false });
  // the save_graph paths are gone from monerod 0.18 (raw: paths no client knows, their HTTP status)
  assert.equal((await path(u, "/start_save_graph", {})).status, 404);
  assert.equal((await path(u, "/stop_save_graph", {})).status, 404);
  // rpc_connections_count counts the RPC server's open connections, the asking one included
  const info = await nodeCall(u, "get_info");
  assert.ok(Number(info.rpc_connections_count) >= 1);
});
