/**
 * tsmonerod's ZMQ pub against a real monerod (Debian 0.18.0.0): both are started as processes with
 * --zmq-pub, the recorded regtest chain (test/fixtures/chain) is replayed into both with
 * submit_block, block 222's txs are submitted with do_not_relay (monerod 0.18.0.0 publishes only
 * those; tsmonerod publishes every tx that enters its pool, as later monerods do once a tx is
 * broadcast), then both switch to the same two-block alternative chain. Subscribers: the `zeromq`
 * package, and python3's zmq module with a prefix subscription. The messages must be monerod's byte
 * for byte, except the `clsags` that tsmonerod writes into a tx's `prunable` as monerod 0.18.3+
 * does (0.18.0.0 leaves the CLSAG signatures out).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Subscriber } from "zeromq";
import { stringifyJson } from "../src/rpc/json.js";
import { recordedBlocks, recordedTxs } from "./helpers/chain.js";
import { type Daemon, startProcess, stopDaemon } from "./helpers/monerod.js";
import { nodeCall, nodePath } from "./helpers/node-rpc.js";
import { needPackage } from "./helpers/packages.js";

const skip = needPackage("monero") ?? needPackage("python3-zmq", ["/usr/lib/python3/dist-packages/zmq/__init__.py"]);
const TSMONEROD = fileURLToPath(new URL("../../bin/tsmonerod", import.meta.url));
const REAL = { rpc: 29600, p2p: 29601, zmqRpc: 29602, pub: 29603 };
const OURS = { rpc: 29610, p2p: 29611, zmqRpc: 29612, pub: 29613 };
const REPLAY_TO = 222;

const blocks = [...recordedBlocks()].sort((a, b) => a.height - b.height);
const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t.as_hex]));

const url = (port: number): string => `http://127.0.0.1:${port}`;
async function waitRpc(d: Daemon, port: number): Promise<void> {
  const end = Date.now() + 60_000;
  for (;;) {
    if (d.proc.exitCode !== null) throw new Error(`${d.proc.spawnfile} exited: ${d.output.join("").slice(-2000)}`);
    try {
      await nodeCall(url(port), "get_block_count");
      return;
    } catch {
      if (Date.now() > end) throw new Error(`no RPC on ${port}: ${d.output.join("").slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Every message a `zeromq` Subscriber gets, as text. */
class NodeSub {
  readonly messages: string[] = [];
  private readonly sock = new Subscriber();
  constructor(address: string, prefix = "") {
    this.sock.connect(address);
    this.sock.subscribe(prefix);
    void (async () => {
      for await (const frames of this.sock) {
        assert.equal(frames.length, 1, "monerod sends topic and JSON in one frame");
        this.messages.push(frames[0].toString("utf8"));
      }
    })().catch(() => undefined);
  }
  close(): void {
    this.sock.close();
  }
}

/** python3 -c: a zmq SUB socket printing each frame on its own line. */
class PySub {
  readonly messages: string[] = [];
  readonly proc: ChildProcess;
  private rest = "";
  constructor(address: string, prefix: string) {
    const code = [
      "import sys, zmq",
      "s = zmq.Context().socket(zmq.SUB)",
      `s.connect(${JSON.stringify(address)})`,
      `s.setsockopt_string(zmq.SUBSCRIBE, ${JSON.stringify(prefix)})`,
      "while True:",
      "    parts = s.recv_multipart()",
      "    sys.stdout.write(str(len(parts)) + ' ' + parts[0].decode() + '\\n'); sys.stdout.flush()",
    ].join("\n");
    this.proc = spawn("/usr/bin/python3", ["-c", code], { stdio: ["ignore", "pipe", "inherit"] });
    this.proc.stdout?.on("data", (b: Buffer) => {
      const lines = (this.rest + b.toString("utf8")).split("\n");
      this.rest = lines.pop() ?? "";
      for (const l of lines) {
        assert.ok(l.startsWith("1 "), `python got a multi-frame message: ${l.slice(0, 80)}`);
        this.messages.push(l.slice(2));
      }
    });
  }
  close(): void {
    this.proc.kill();
  }
}

async function waitFor(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const topicOf = (m: string): string => m.slice(0, m.indexOf(":"));
const bodyOf = (m: string): string => m.slice(m.indexOf(":") + 1);
/** tsmonerod's tx JSON without the `clsags` monerod 0.18.0.0 does not write. */
const withoutClsags = (m: string): string => m.replace(/,"clsags":\[[^\]]*(\[[^\]]*\][^\]]*)*\](?=,"pseudo_outs")/g, "");

let real: Daemon | undefined;
let ours: Daemon | undefined;
const dirs: string[] = [];
let realSub: NodeSub;
let oursSub: NodeSub;
let py: PySub;

before(async () => {
  if (skip) return;
  const realDir = mkdtempSync(join(tmpdir(), "tsmonero-zmq-real-"));
  const ourDir = mkdtempSync(join(tmpdir(), "tsmonero-zmq-ours-"));
  dirs.push(ourDir);
  real = startProcess("/usr/bin/monerod", [
    "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", realDir, "--non-interactive", "--log-level", "0",
    "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(REAL.rpc), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(REAL.p2p),
    "--zmq-rpc-bind-port", String(REAL.zmqRpc), "--zmq-pub", `tcp://127.0.0.1:${REAL.pub}`,
  ], realDir, `http://127.0.0.1:${REAL.rpc}`);
  ours = startProcess(TSMONEROD, [
    "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", ourDir, "--non-interactive", "--log-level", "0",
    "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(OURS.rpc), "--p2p-bind-port", String(OURS.p2p),
    "--zmq-rpc-bind-port", String(OURS.zmqRpc), "--zmq-pub", `tcp://127.0.0.1:${OURS.pub}`,
  ], ourDir, `http://127.0.0.1:${OURS.rpc}`);
  await Promise.all([waitRpc(real, REAL.rpc), waitRpc(ours, OURS.rpc)]);
  realSub = new NodeSub(`tcp://127.0.0.1:${REAL.pub}`);
  oursSub = new NodeSub(`tcp://127.0.0.1:${OURS.pub}`);
  py = new PySub(`tcp://127.0.0.1:${OURS.pub}`, "json-minimal");
  // a subscription reaches the publisher a moment after connect (ZMQ's slow joiner)
  await new Promise((r) => setTimeout(r, 1500));
  for (const b of blocks.slice(1, REPLAY_TO)) {
    for (const port of [REAL.rpc, OURS.rpc]) await nodeCall(url(port), "submit_block", [b.blob]);
  }
});

after(async () => {
  realSub?.close();
  oursSub?.close();
  py?.close();
  await stopDaemon(real);
  await stopDaemon(ours);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("chain_main and miner_data: each replayed block is published by tsmonerod exactly as by monerod", { skip }, async () => {
  const n = (REPLAY_TO - 1) * 3;
  await waitFor(`${n} messages from both`, () => realSub.messages.length >= n && oursSub.messages.length >= n);
  assert.equal(oursSub.messages.length, realSub.messages.length);
  for (let i = 0; i < n; i++) assert.equal(oursSub.messages[i], realSub.messages[i], `message ${i} (${topicOf(realSub.messages[i])})`);
  assert.deepEqual(realSub.messages.slice(0, 3).map(topicOf), ["json-full-miner_data", "json-full-chain_main", "json-minimal-chain_main"]);
  const minimal = JSON.parse(bodyOf(oursSub.messages[n - 1])) as { first_height: number; first_prev_id: string; ids: string[] };
  assert.deepEqual(minimal, { first_height: REPLAY_TO - 1, first_prev_id: blocks[REPLAY_TO - 2].hash, ids: [blocks[REPLAY_TO - 1].hash] });
  const miner = JSON.parse(bodyOf(oursSub.messages[n - 3])) as Record<string, unknown>;
  assert.deepEqual(Object.keys(miner), ["major_version", "height", "prev_id", "seed_hash", "difficulty", "median_weight", "already_generated_coins", "tx_backlog"]);
  assert.equal(miner.difficulty, "0x1");
  // the prefix subscriber (python3-zmq) got the minimal chain topic only
  await waitFor("python's messages", () => py.messages.length >= REPLAY_TO - 1);
  assert.deepEqual(new Set(py.messages.map(topicOf)), new Set(["json-minimal-chain_main"]));
  assert.deepEqual(py.messages, oursSub.messages.filter((m) => topicOf(m) === "json-minimal-chain_main"));
});

test("txpool_add: a tx entering the pool is published with monerod's fields; a known tx again is not", { skip }, async () => {
  const ids = blocks[REPLAY_TO].tx_hashes;
  assert.ok(ids.length > 5, "block 222 of the recorded chain has txs");
  const before = { real: realSub.messages.length, ours: oursSub.messages.length, py: py.messages.length };
  for (const id of ids) {
    for (const port of [REAL.rpc, OURS.rpc]) {
      const r = await nodePath(url(port), "/send_raw_transaction", { tx_as_hex: txById.get(id), do_not_relay: true });
      assert.equal(r.status, "OK", `${port}: ${stringifyJson(r)}`);
    }
  }
  const n = ids.length * 2;
  await waitFor("txpool messages", () => realSub.messages.length - before.real >= n && oursSub.messages.length - before.ours >= n);
  const realNew = realSub.messages.slice(before.real);
  const oursNew = oursSub.messages.slice(before.ours);
  assert.equal(oursNew.length, realNew.length);
  for (let i = 0; i < n; i++) assert.equal(withoutClsags(oursNew[i]), realNew[i], `txpool message ${i}`);
  // CLSAG signatures are there (monerod 0.18.3+'s form)
  const full = JSON.parse(bodyOf(oursNew[0])) as { ringct: { prunable: { clsags: { s: string[]; c1: string; D: string }[] } } }[];
  assert.equal(full[0].ringct.prunable.clsags[0].c1.length, 64);
  const minimal = JSON.parse(bodyOf(oursNew[1])) as { id: string; blob_size: number; weight: number; fee: number }[];
  assert.equal(minimal[0].id, ids[0]);
  const pool = await nodePath(url(OURS.rpc), "/get_transaction_pool");
  assert.ok(pool.transactions);
  const entry = pool.transactions.find((t) => t.id_hash === ids[0]);
  assert.deepEqual({ blob_size: minimal[0].blob_size, weight: minimal[0].weight, fee: minimal[0].fee }, { blob_size: entry?.blob_size, weight: entry?.weight, fee: entry?.fee });
  await waitFor("python's txpool messages", () => py.messages.length - before.py >= ids.length);
  assert.deepEqual(py.messages.slice(before.py), oursNew.filter((m) => topicOf(m) === "json-minimal-txpool_add"));
  // the same tx again: already in the pool, nothing published
  const again = await nodePath(url(OURS.rpc), "/send_raw_transaction", { tx_as_hex: txById.get(ids[0]), do_not_relay: false });
  assert.equal(again.status, "OK");
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(oursSub.messages.length, before.ours + n);
});

test("a block with the pool's txs and a reorg to a heavier branch: the same messages as monerod", { skip }, async () => {
  const before = { real: realSub.messages.length, ours: oursSub.messages.length };
  for (const port of [REAL.rpc, OURS.rpc]) await nodeCall(url(port), "submit_block", [blocks[REPLAY_TO].blob]);
  // a two-block branch from block 221, mined by tsmonerod, then given to monerod
  const gen = await nodeCall(url(OURS.rpc), "generateblocks", { amount_of_blocks: 2, wallet_address: BOB, prev_block: blocks[REPLAY_TO - 1].hash, starting_nonce: 0 });
  const hashes = gen.blocks;
  for (const h of hashes) {
    const b = await nodeCall(url(OURS.rpc), "get_block", { hash: h });
    await nodeCall(url(REAL.rpc), "submit_block", [b.blob]);
  }
  const height = async (port: number): Promise<number> => Number((await nodeCall(url(port), "get_block_count")).count);
  assert.equal(await height(OURS.rpc), REPLAY_TO + 2);
  assert.equal(await height(REAL.rpc), REPLAY_TO + 2);
  // block 222: miner_data, full, minimal; the reorg: miner_data, full, minimal as each block is
  // applied, then miner_data once and full, minimal for each block again (as monerod 0.18 does)
  const n = 3 + 2 * 3 + 1 + 2 * 2;
  await waitFor("block and reorg messages", () => realSub.messages.length - before.real >= n && oursSub.messages.length - before.ours >= n);
  const realNew = realSub.messages.slice(before.real);
  const oursNew = oursSub.messages.slice(before.ours);
  const [M, F, m] = ["json-full-miner_data", "json-full-chain_main", "json-minimal-chain_main"];
  assert.deepEqual(realNew.map(topicOf), [M, F, m, M, F, m, M, F, m, M, F, m, F, m]);
  assert.deepEqual(oursNew.map(topicOf), realNew.map(topicOf));
  for (let i = 0; i < n; i++) {
    if (i !== 3 && i !== 6) {
      assert.equal(oursNew[i], realNew[i], `message ${i} (${topicOf(realNew[i])})`);
      continue;
    }
    // during the switch monerod's pool already holds the dropped block's txs, tsmonerod's not yet
    const a = JSON.parse(bodyOf(oursNew[i])) as Record<string, unknown>;
    const b = JSON.parse(bodyOf(realNew[i])) as Record<string, unknown>;
    assert.deepEqual({ ...a, tx_backlog: [] }, { ...b, tx_backlog: [] }, `miner_data ${i}`);
  }
  assert.ok((JSON.parse(bodyOf(oursNew[9])) as { tx_backlog: unknown[] }).tx_backlog.length > 0, "the dropped block's txs are back in the backlog");
  const first = JSON.parse(bodyOf(oursNew[11])) as { first_height: number; ids: string[] };
  assert.deepEqual(first, { first_height: REPLAY_TO, first_prev_id: blocks[REPLAY_TO - 1].hash, ids: [hashes[0]] });
});

const BOB = "484uskMavqB8o7ehUFn5Sq3Ze2Jew2Hq6LgsCZ3YzkqiZkSFcsSD5rwQshTNdRF4pJiUtUEzk4EegjCYiUGVWcsRD52LtH6";
