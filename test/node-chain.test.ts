/**
 * node/chain over real LMDB in a temp dir: the recorded 333-block regtest chain (test/fixtures/chain,
 * from monerod --regtest --fixed-difficulty 1) replayed through submitTransaction + submitBlock —
 * every tx admitted to the pool, every block added, and the final state equal to monerod's; then
 * pop + re-apply, duplicates, orphans, missing txs, events, reopen. With a real monerod at fixed
 * difficulty 2 and short RandomX epochs (SEEDHASH_EPOCH_BLOCKS=8, SEEDHASH_EPOCH_LAG=4, set for
 * this process and monerod): blocks we mine are accepted by monerod and blocks it mines by us.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { type Node, openNode } from "../src/node/chain/index.js";
import { seedHeight } from "../src/node/mining/index.js";
import { parseBlock, serializeBlock } from "../src/protocol/block.js";
import { fromHex, recordedBlocks, recordedTxs, toHex } from "./helpers/chain.js";
import { type Daemon, startProcess, stopDaemon } from "./helpers/monerod.js";
import { nodeCall } from "./helpers/node-rpc.js";
import { needPackage } from "./helpers/packages.js";

// short RandomX epochs for the interop test (read once, at the first seed height asked for)
process.env.SEEDHASH_EPOCH_BLOCKS = "8";
process.env.SEEDHASH_EPOCH_LAG = "4";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-node-chain-"));
  dirs.push(d);
  return d;
};

const blocks = [...recordedBlocks()].sort((a, b) => a.height - b.height);
const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
let clock = 0;

async function replay(node: Node, from: number, to: number): Promise<number> {
  let txs = 0;
  for (let h = from; h < to; h++) {
    const rb = blocks[h];
    clock = Number(parseBlock(fromHex(rb.blob)).timestamp) + 1;
    for (const id of rb.tx_hashes) {
      const t = txById.get(id);
      assert.ok(t);
      if (node.pool.has(fromHex(id))) continue;
      const r = await node.submitTransaction(fromHex(t.as_hex));
      assert.ok(r.ok, `tx ${id} of block ${h}: ${r.reason}`);
      assert.equal(r.duplicate, false);
      txs++;
    }
    const r = await node.submitBlock(fromHex(rb.blob));
    assert.equal(r.status, "added", `block ${h}: ${r.message}`);
    assert.equal(r.height, h);
    assert.equal(toHex(r.id ?? new Uint8Array()), rb.hash);
  }
  return txs;
}

test("the recorded chain replays through the pool and submitBlock; pop + re-apply; reopen", async () => {
  const dir = tmp();
  let node = await openNode({ dataDir: dir, network: "regtest", fixedDifficulty: 1n, offline: true, syncMode: "fast", now: () => clock, verifyThreads: 1 });
  try {
    assert.equal(node.store.height(), 1);
    assert.equal(toHex(node.store.topHash()), blocks[0].hash, "genesis");
    const events: number[] = [];
    const added: string[] = [];
    node.on("block", (b) => events.push(b.height));
    node.on("pool-add", (e) => added.push(toHex(e.id)));
    const n = await replay(node, 1, blocks.length);
    assert.equal(n, 154, "every recorded wallet tx went through the pool");
    assert.equal(added.length, 154);
    assert.equal(events.length, blocks.length - 1);
    assert.equal(node.store.height(), 333);
    for (const rb of blocks) assert.equal(toHex(node.store.meta(rb.height).hash), rb.hash);
    assert.equal(node.pool.size(), 0, "every pool tx was mined");
    const keyImages = node.store.keyImageCount();
    const outputs = node.store.outputCount(0n);

    // duplicates: a known block, a mined tx
    assert.equal((await node.submitBlock(fromHex(blocks[200].blob))).status, "duplicate");
    const mined = blocks.find((b) => b.tx_hashes.length > 0);
    assert.ok(mined);
    const dup = await node.submitTransaction(fromHex(txById.get(mined.tx_hashes[0])?.as_hex ?? ""));
    assert.equal(dup.ok, true);
    assert.equal(dup.duplicate, true);
    assert.equal(dup.notRelayed, true);

    // pop 40 blocks: their txs come back to the pool (kept_by_block)
    const popTxs = blocks.slice(293).reduce((a, b) => a + b.tx_hashes.length, 0);
    assert.ok(popTxs > 0);
    assert.equal(await node.popBlocks(40), 293);
    assert.equal(node.pool.size(), popTxs, "the popped blocks' txs are back in the pool");
    for (const e of node.pool.entries()) assert.equal(e.keptByBlock, true);
    // they are re-applied from the pool
    for (let h = 293; h < 333; h++) {
      clock = Number(parseBlock(fromHex(blocks[h].blob)).timestamp) + 1;
      const r = await node.submitBlock(fromHex(blocks[h].blob));
      assert.equal(r.status, "added", `re-apply ${h}: ${r.message}`);
    }
    assert.equal(node.pool.size(), 0);
    assert.equal(toHex(node.store.topHash()), blocks[332].hash);
    assert.equal(node.store.keyImageCount(), keyImages);
    assert.equal(node.store.outputCount(0n), outputs);
    assert.equal(await node.popBlocks(1000), 1, "pop never removes the genesis");
    assert.equal(node.pool.size(), 154);
    await node.close();
    node = await openNode({ dataDir: dir, network: "regtest", fixedDifficulty: 1n, syncMode: "fast", now: () => clock, verifyThreads: 1 });
    assert.equal(node.store.height(), 1);
    assert.equal(node.pool.size(), 154, "the pool survives a reopen");
  } finally {
    await node.close();
  }
});

test("orphan, missing txs and garbage blobs are rejected without changing state", async () => {
  // a data directory whose name has a dot (lmdb-js would take it for a file)
  const node = await openNode({ dataDir: join(tmp(), "data.regtest"), network: "regtest", fixedDifficulty: 1n, syncMode: "fast", now: () => clock, verifyThreads: 1 });
  try {
    await replay(node, 1, 10);
    const withTx = blocks.find((b) => b.tx_hashes.length > 0 && b.height > 10);
    assert.ok(withTx);
    const orphan = await node.submitBlock(fromHex(blocks[12].blob));
    assert.equal(orphan.status, "rejected");
    assert.deepEqual(orphan.flags, ["marked_as_orphaned"]);
    assert.equal(node.altBlockCount(), 0);
    const garbage = await node.submitBlock(new Uint8Array([1, 2, 3]));
    assert.equal(garbage.status, "rejected");
    assert.match(garbage.message ?? "", /not a block/);
    await replay(node, 10, withTx.height);
    clock = Number(parseBlock(fromHex(withTx.blob)).timestamp) + 1;
    const missing = await node.submitBlock(fromHex(withTx.blob));
    assert.equal(missing.status, "rejected");
    assert.deepEqual(missing.flags, ["missing_txs"]);
    assert.equal(node.store.height(), withTx.height);
    const bad = await node.submitTransaction(new Uint8Array([2, 0]));
    assert.equal(bad.ok, false);
    assert.match(bad.reason ?? "", /not a transaction/);
  } finally {
    await node.close();
  }
});

test("close waits for the queued writer work and refuses new work", async () => {
  const node = await openNode({ dataDir: tmp(), network: "regtest", fixedDifficulty: 1n, syncMode: "fast", now: () => clock, verifyThreads: 1 });
  clock = Number(parseBlock(fromHex(blocks[1].blob)).timestamp) + 1;
  const pending = [1, 2, 3].map((h) => node.submitBlock(fromHex(blocks[h].blob)));
  const closing = node.close();
  const results = await Promise.all(pending);
  await closing;
  assert.deepEqual(
    results.map((r) => r.status),
    ["added", "added", "added"],
  );
  await assert.rejects(node.submitTransaction(new Uint8Array([2])), /closed/);
});

test("seed heights follow monerod's rx_seedheight with the env overrides", () => {
  assert.equal(seedHeight(12), 0);
  assert.equal(seedHeight(13), 8);
  assert.equal(seedHeight(20), 8);
  assert.equal(seedHeight(21), 16);
  assert.equal(seedHeight(3000, { blocks: 2048, lag: 64 }), 2048);
  assert.equal(seedHeight(2112, { blocks: 2048, lag: 64 }), 0);
  assert.equal(seedHeight(2113, { blocks: 2048, lag: 64 }), 2048);
});

test("interop with monerod at difficulty 2 over four RandomX seeds: our blocks pass monerod, its blocks pass us", { skip: needPackage("monero") }, async () => {
  const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-monerod-"));
  const port = 28810;
  const d: Daemon = startProcess(
    "/usr/bin/monerod",
    ["--regtest", "--offline", "--fixed-difficulty", "2", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(port), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(port + 1), "--no-zmq", "--non-interactive", "--log-level", "0"],
    dir,
    `http://127.0.0.1:${port}`,
  );
  const node = await openNode({ dataDir: tmp(), network: "regtest", fixedDifficulty: 2n, syncMode: "fast", verifyThreads: 1 });
  try {
    const url = d.url;
    for (let i = 0; ; i++) {
      try {
        await nodeCall(url, "get_block_count");
        break;
      } catch (e) {
        if (i > 150 || d.proc.exitCode !== null) throw new Error(`monerod did not start: ${d.output.join("").slice(-1000)}`, { cause: e });
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    // we mine 30 blocks (seeds: genesis, then blocks 8, 16, 24) and monerod accepts each
    const mined = await node.generateBlocks(30, ALICE);
    // monerod's generateblocks answers the last generated block's height (blocks 1..30)
    assert.equal(mined.height, 30);
    for (let h = 1; h < 31; h++) {
      const blob = node.store.blockBlob(h);
      assert.ok(blob);
      const r = await nodeCall(url, "submit_block", [toHex(blob)]);
      assert.equal(r.status, "OK", `monerod refused our block ${h}`);
    }
    const head = (await nodeCall(url, "get_last_block_header")).block_header;
    assert.equal(head.height, 30);
    assert.equal(head.hash, toHex(node.store.topHash()));
    // monerod mines 6 blocks (its nonces, its seed for block 29+); we verify and add them
    await nodeCall(url, "generateblocks", { amount_of_blocks: 6, wallet_address: ALICE });
    for (let h = 31; h < 37; h++) {
      const b = await nodeCall(url, "get_block", { height: h });
      const r = await node.submitBlock(fromHex(b.blob));
      assert.equal(r.status, "added", `monerod's block ${h}: ${r.message}`);
    }
    // and one with its nonce changed until the hash misses difficulty 2 is refused
    const last = await nodeCall(url, "get_block", { height: 36 });
    await node.popBlocks(1);
    const blk = parseBlock(fromHex(last.blob));
    let rejected = false;
    for (let n = 1; n < 40 && !rejected; n++) {
      const r = await node.submitBlock(serializeBlock({ ...blk, nonce: (blk.nonce + n) >>> 0 }));
      if (r.status === "rejected") {
        assert.deepEqual(r.flags, ["bad_pow"]);
        rejected = true;
      } else await node.popBlocks(1);
    }
    assert.ok(rejected, "some nonce misses difficulty 2");
  } finally {
    await node.close();
    await stopDaemon(d);
  }
});

test("the built-in miner: start_mining adds blocks, minerStatus reports it, stop_mining stops", async () => {
  const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
  const node = await openNode({ dataDir: tmp(), network: "regtest", fixedDifficulty: 1n, syncMode: "fast", verifyThreads: 1 });
  try {
    assert.throws(() => node.startMining("not an address", 1), /address/i);
    assert.equal(node.minerStatus().active, false);
    node.startMining(ALICE, 1);
    assert.equal(node.minerStatus().active, true);
    assert.equal(node.minerStatus().address, ALICE);
    const deadline = Date.now() + 20_000;
    while (node.store.height() < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(node.store.height() >= 4, `mined to ${node.store.height()}`);
    node.stopMining();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(node.minerStatus().active, false);
    const h = node.store.height();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(node.store.height(), h, "no block after stop");
  } finally {
    await node.close();
  }
});
