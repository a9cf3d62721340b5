/**
 * Alternative chains and reorganisations on a real store holding the recorded regtest chain up to
 * height 327 (test/fixtures/chain), with its recorded txs in the pool: two branches mined with the
 * node's own templates overtake each other several times; afterwards outputs, key images, blocks
 * and pool equal those of a fresh node that only saw the winning branch. A branch whose block
 * fails when it is applied leaves the original chain byte-identical.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { defaultBackend } from "../src/crypto/index.js";
import { type Node, openNode, type OpenNodeOptions } from "../src/node/chain/index.js";
import { decodeAddress } from "../src/protocol/address.js";
import { serializeBlock } from "../src/protocol/block.js";
import { type Bytes, parseTransaction } from "../src/protocol/tx.js";
import { txHash } from "../src/protocol/tx-hash.js";
import { recordedByHeight, replayRecorded, toHex } from "./helpers/chain.js";
import { startMonerod, stopDaemon } from "./helpers/monerod.js";
import { blockOn, buildSpend, mineTo, newKeys, ownedCoinbase } from "./helpers/node-spend.js";
import { nodeCall, nodeRpc } from "./helpers/node-rpc.js";
import { needPackage } from "./helpers/packages.js";

const backend = defaultBackend();
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-node-reorg-"));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const { blocks, tsOf, blobOf } = recordedByHeight();
const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const BOB = "484uskMavqB8o7ehUFn5Sq3Ze2Jew2Hq6LgsCZ3YzkqiZkSFcsSD5rwQshTNdRF4pJiUtUEzk4EegjCYiUGVWcsRD52LtH6";
const BASE = 327;

let clock = 0;
let baseDir = "";
const pending: string[] = [];
const opts = (dataDir: string, extra: Partial<OpenNodeOptions> = {}): OpenNodeOptions => ({
  dataDir,
  network: "regtest",
  fixedDifficulty: 1n,
  syncMode: "fast",
  now: () => clock,
  verifyThreads: 1,
  ...extra,
});

before(async () => {
  baseDir = tmp();
  const n = await openNode(opts(baseDir));
  try {
    await replayRecorded(n, 1, BASE, (t) => {
      clock = t;
    });
    clock = tsOf(BASE - 1) + 30;
    for (const id of blocks.slice(BASE).flatMap((b) => b.tx_hashes)) if ((await n.submitTransaction(blobOf(id))).ok) pending.push(id);
    assert.ok(pending.length >= 8);
    await n.flushPool();
  } finally {
    await n.close();
  }
});

async function copyOfBase(extra: Partial<OpenNodeOptions> = {}): Promise<Node> {
  const d = tmp();
  cpSync(baseDir, d, { recursive: true });
  return openNode(opts(d, extra));
}

/** Everything a node's state consists of, for comparison. */
function state(n: Node): Record<string, unknown> {
  const h = n.store.height();
  const outs: string[] = [];
  const count = n.store.outputCount(0n);
  for (let i = count > 400n ? count - 400n : 0n; i < count; i++) {
    const o = n.store.output(0n, i);
    assert.ok(o);
    outs.push(`${toHex(o.key)}:${toHex(o.commitment)}:${o.height}:${toHex(o.txId)}`);
  }
  const kis = pending.flatMap((id) => parseTransaction(blobOf(id)).vin.map((v) => (v.type === "key" ? `${toHex(v.keyImage)}@${n.store.keyImageHeight(v.keyImage) ?? "-"}` : "")));
  return {
    height: h,
    blocks: Array.from({ length: 12 }, (_, k) => h - 12 + k).map((x) => toHex(n.store.blockBlob(x) ?? new Uint8Array())),
    metas: Array.from({ length: 12 }, (_, k) => h - 12 + k).map((x) => JSON.stringify(n.store.meta(x), (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? toHex(v) : v))),
    keyImageCount: n.store.keyImageCount(),
    txCount: n.store.txCount(),
    outputCount: count.toString(),
    outs,
    kis,
    pool: n.pool.entries().map((e) => toHex(e.id)).sort(),
  };
}

test("two branches overtake each other five times; the result equals a fresh node fed the winning branch", async () => {
  clock = tsOf(BASE - 1) + 30;
  const node = await copyOfBase();
  const reorgs: { splitHeight: number; newHeight: number }[] = [];
  node.on("reorg", (e) => reorgs.push(e));
  const held = pending[pending.length - 1];
  try {
    for (const id of pending.slice(0, -1)) assert.ok((await node.submitTransaction(blobOf(id))).ok);
    const fork = node.store.topHash();
    // A1 (all pool txs but one), A2
    const a = (await node.generateBlocks(2, ALICE)).blocks;
    assert.equal(node.pool.size(), 0);
    // B1, B2: alternatives (B2 ties, no switch); B3 overtakes
    const b = (await node.generateBlocks(2, BOB, { prevId: fork })).blocks;
    assert.equal(node.altBlockCount(), 2);
    assert.equal(toHex(node.store.topHash()), toHex(a[1]));
    assert.equal(node.altChains().length, 1);
    assert.equal(node.altChains()[0].length, 2);
    assert.equal(toHex(node.altChains()[0].mainChainParentBlock), toHex(fork));
    b.push(...(await node.generateBlocks(1, BOB, { prevId: b[1] })).blocks);
    assert.equal(toHex(node.store.topHash()), toHex(b[2]), "switched to B");
    assert.equal(reorgs.length, 1);
    assert.deepEqual(reorgs[0], { splitHeight: BASE, newHeight: BASE + 3, oldHeight: BASE + 2 });
    assert.equal(node.altBlockCount(), 2, "A1, A2 are now the alternative chain");
    assert.equal(node.pool.size(), pending.length - 1, "A1's txs are back in the pool");
    // B4 on the main chain takes them; then the held tx enters the pool
    b.push(...(await node.generateBlocks(1, BOB)).blocks);
    assert.equal(node.pool.size(), 0);
    assert.ok((await node.submitTransaction(blobOf(held))).ok);
    // A3..A5 overtake B (5 > 4)
    a.push(...(await node.generateBlocks(3, ALICE, { prevId: a[1] })).blocks);
    assert.equal(toHex(node.store.topHash()), toHex(a[4]), "switched to A");
    assert.equal(reorgs.length, 2);
    // monerod fills prev_block templates from the pool too: the held tx is mined in A3
    assert.deepEqual(node.pool.entries().map((e) => toHex(e.id)), [], "B4's txs are in A1 again; the held tx is in A3");
    assert.ok(node.altBlock(a[2]) === undefined && node.store.heightOf(a[2]) !== undefined);
    // B5, B6 overtake A (6 > 5)
    b.push(...(await node.generateBlocks(2, BOB, { prevId: b[3] })).blocks);
    assert.equal(toHex(node.store.topHash()), toHex(b[5]), "switched to B");
    // A6, A7 overtake B (7 > 6), B7, B8 overtake A (8 > 7)
    a.push(...(await node.generateBlocks(2, ALICE, { prevId: a[4] })).blocks);
    assert.equal(toHex(node.store.topHash()), toHex(a[6]));
    b.push(...(await node.generateBlocks(2, BOB, { prevId: b[5] })).blocks);
    assert.equal(toHex(node.store.topHash()), toHex(b[7]));
    assert.equal(reorgs.length, 5);
    assert.equal(node.store.height(), BASE + 8);
    // the held tx was on the main chain (A3) while B7, B8 were built; back on B it returns to the pool
    assert.deepEqual(node.pool.entries().map((e) => toHex(e.id)), [held]);
    const alt = node.altChains();
    assert.equal(alt.length, 1);
    assert.equal(alt[0].length, 7);
    assert.deepEqual(alt[0].blockHashes.map(toHex), [...a].reverse().map(toHex));
    const altA1 = node.altBlock(a[0]);
    assert.ok(altA1);
    assert.equal(altA1.height, BASE);
    assert.equal(altA1.block.txHashes.length, pending.length - 1);

    // a fresh node fed only the winning branch (with the same txs offered to its pool)
    const winning = b.map((id) => {
      const h = node.store.heightOf(id);
      assert.ok(h !== undefined);
      const blob = node.store.blockBlob(h);
      assert.ok(blob);
      return blob;
    });
    const fresh = await copyOfBase();
    try {
      for (const id of pending) assert.ok((await fresh.submitTransaction(blobOf(id))).ok);
      for (const blob of winning) assert.equal((await fresh.submitBlock(blob)).status, "added");
      assert.deepEqual(state(node), state(fresh));
      assert.equal(fresh.altBlockCount(), 0);
    } finally {
      await fresh.close();
    }
  } finally {
    await node.close();
  }
});

test("a heavier branch whose block double-spends is rolled back: the original chain is byte-identical", async () => {
  clock = tsOf(BASE - 1) + 30;
  const node = await copyOfBase();
  try {
    for (const id of pending) assert.ok((await node.submitTransaction(blobOf(id))).ok);
    const forkHeight = node.store.height() - 3;
    const fork = node.store.meta(forkHeight).hash;
    await node.generateBlocks(1, ALICE);
    const before = state(node);
    const beforeAlt = node.altBlockCount();
    // branch: a coinbase-only block, then one with a tx the chain already mined below the fork
    const c1 = (await node.generateBlocks(1, BOB, { prevId: fork })).blocks[0];
    const mined = blobOf(blocks[315].tx_hashes[0]);
    const keys = decodeAddress(BOB, "regtest");
    let prev: Bytes = c1;
    const branch: Bytes[] = [];
    for (let i = 0; i < 4; i++) {
      const block = blockOn(node, prev, i === 1 ? [mined] : [], keys, BigInt(clock), backend);
      const r = await node.submitBlock(serializeBlock(block), { txBlobs: [mined] });
      if (i < 2) assert.equal(r.status, "alternative", r.message);
      else {
        // the third makes the branch heavier: the switch hits the double spend and is undone
        assert.equal(r.status, "rejected");
        assert.equal(r.error?.txError?.code, "KEY_IMAGE_SPENT", r.message);
        break;
      }
      assert.ok(r.id);
      prev = r.id;
      branch.push(prev);
    }
    assert.deepEqual(state(node), before, "blocks, metadata, outputs, key images and pool as before");
    assert.equal(node.altBlockCount(), beforeAlt + 2, "the bad block and its descendant are dropped; the two good ones stay");
    assert.ok(node.altBlock(c1));
    assert.ok(node.altBlock(branch[0]));
    assert.equal(node.altBlock(branch[1]), undefined);
  } finally {
    await node.close();
  }
});

test("two branches mine two valid spends of the same output: at each switch the loser's tx returns to the pool and stays there, a double spend templates leave out (as monerod 0.18, seen in p2p-partition-wallets)", async () => {
  clock = tsOf(BASE - 1) + 100;
  const node = await copyOfBase();
  try {
    const me = newKeys(backend);
    const other = newKeys(backend);
    await mineTo(node, me, 1, backend, BigInt(clock));
    await mineTo(node, other, 60, backend, BigInt(clock));
    const owned = ownedCoinbase(node.store, BASE, me, backend);
    const tx1 = buildSpend(node.store, owned, other, backend, { now: BigInt(clock) });
    const tx2 = buildSpend(node.store, owned, other, backend, { now: BigInt(clock) });
    const id1 = txHash(parseTransaction(tx1));
    const id2 = txHash(parseTransaction(tx2));
    const ki = parseTransaction(tx1).vin[0];
    assert.ok(ki.type === "key");
    assert.ok((await node.submitTransaction(tx1)).ok);
    const fork = node.store.topHash();
    const forkHeight = node.store.height() - 1;
    const a1 = (await node.generateBlocks(1, ALICE)).blocks[0];
    assert.equal(node.store.txLocation(id1)?.height, forkHeight + 1, "A1 mined tx1");
    // B1 on the fork with tx2 (ties), B2 overtakes
    const t = blockOn(node, fork, [tx2], decodeAddress(BOB, "regtest"), BigInt(clock), backend);
    const b1 = await node.submitBlock(serializeBlock(t), { txBlobs: [tx2] });
    assert.equal(b1.status, "alternative", b1.message);
    assert.ok(b1.id);
    await node.generateBlocks(1, BOB, { prevId: b1.id });
    assert.equal(node.store.txLocation(id2)?.height, forkHeight + 1, "B1 mined tx2");
    assert.equal(node.store.txLocation(id1), undefined);
    // monerod returns a popped block's txs before it applies the new chain, and keeps them
    assert.equal(node.pool.get(id1)?.keptByBlock, true, "tx1 came back from A1 and stays, though tx2 spends its key image");
    assert.equal(node.pool.templateTxs(1_000_000).length, 0, "templates leave it out");
    // and do not flag it: monerod's is_transaction_ready_to_go fails its check_tx_inputs first (the
    // key image is spent) and never reaches the double-spend flag (seen in p2p-partition-wallets)
    assert.equal(node.pool.get(id1)?.doubleSpendSeen, false);
    assert.equal(node.store.keyImageHeight(ki.keyImage), forkHeight + 1);
    // A2, A3 overtake B: tx2 comes back from B1 and is dropped the same way
    await node.generateBlocks(2, ALICE, { prevId: a1 });
    assert.equal(node.store.txLocation(id1)?.height, forkHeight + 1);
    assert.equal(node.store.txLocation(id2), undefined);
    assert.deepEqual(node.pool.entries().map((e) => toHex(e.id)), [toHex(id2)], "tx1 left the pool for A1; tx2 came back from B1 and stays");
    // a fresh node fed the winning chain
    const fresh = await copyOfBase();
    try {
      for (let h = BASE; h < node.store.height(); h++) {
        const blob = node.store.blockBlob(h);
        assert.ok(blob);
        assert.equal((await fresh.submitBlock(blob, { txBlobs: [tx1] })).status, "added", `block ${h}`);
      }
      // the same chain; only the node that saw B holds B1's double spend in its pool
      assert.deepEqual({ ...state(node), pool: [] }, state(fresh));
      assert.equal(fresh.store.keyImageHeight(ki.keyImage), forkHeight + 1);
    } finally {
      await fresh.close();
    }
  } finally {
    await node.close();
  }
});

test("monerod agrees: fed the same competing branches block by block, it keeps the same tip and alternative chains", { skip: needPackage("monero") }, async () => {
  const real = (): number => Math.floor(Date.now() / 1000);
  const d = startMonerod(28820, 28821);
  const miner = await openNode({ dataDir: tmp(), network: "regtest", fixedDifficulty: 1n, syncMode: "fast", now: real, verifyThreads: 1 });
  const replica = await openNode({ dataDir: tmp(), network: "regtest", fixedDifficulty: 1n, syncMode: "fast", now: real, verifyThreads: 1 });
  try {
    for (let i = 0; ; i++) {
      const up = await nodeRpc(d.url, "get_block_count").catch(() => undefined);
      if (up?.result) break;
      if (i > 150 || d.proc.exitCode !== null) throw new Error(`monerod did not start: ${d.output.join("").slice(-1000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // the miner builds: A1..A5; B4..B7 from A3 (B overtakes at B6); A6..A8 (A overtakes at A8)
    const order: Uint8Array[] = [];
    const blobOfId = (id: Uint8Array): Uint8Array => {
      const h = miner.store.heightOf(id);
      const b = h !== undefined ? miner.store.blockBlob(h) : miner.altBlock(id)?.blob;
      assert.ok(b);
      return b;
    };
    const gen = async (n: number, addr: string, prevId?: Uint8Array): Promise<Uint8Array[]> => {
      const ids: Uint8Array[] = [];
      let prev = prevId;
      for (let i = 0; i < n; i++) {
        const r = await miner.generateBlocks(1, addr, prev ? { prevId: prev } : {});
        ids.push(r.blocks[0]);
        order.push(blobOfId(r.blocks[0]));
        if (prev) prev = r.blocks[0];
      }
      return ids;
    };
    const a = await gen(5, ALICE);
    const b = await gen(4, BOB, a[2]);
    a.push(...(await gen(3, ALICE, a[4])));
    assert.equal(toHex(miner.store.topHash()), toHex(a[7]));
    let step = 0;
    for (const blob of order) {
      step++;
      await replica.submitBlock(blob);
      await nodeRpc(d.url, "submit_block", [toHex(blob)]);
      const head = (await nodeCall(d.url, "get_last_block_header")).block_header;
      assert.equal(head.hash, toHex(replica.store.topHash()), `tip after block ${step}`);
      assert.equal(head.height, replica.store.height() - 1);
    }
    assert.equal(toHex(replica.store.topHash()), toHex(a[7]));
    const chains = (await nodeCall(d.url, "get_alternate_chains")).chains;
    assert.ok(chains, "monerod has alternative chains");
    const ours = replica.altChains();
    assert.equal(ours.length, chains.length);
    assert.deepEqual(
      ours.map((c) => ({ hashes: c.blockHashes.map(toHex), height: c.height, length: c.length, parent: toHex(c.mainChainParentBlock) })),
      chains.map((c) => ({ hashes: c.block_hashes, height: c.height, length: c.length, parent: c.main_chain_parent_block })),
    );
    assert.deepEqual(new Set(chains[0].block_hashes), new Set(b.map(toHex)));
  } finally {
    await miner.close();
    await replica.close();
    await stopDaemon(d);
  }
});
