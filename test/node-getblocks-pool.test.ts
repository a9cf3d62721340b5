/**
 * /get_blocks.bin as later v0.18 releases and monerod's master answer it, over HTTP against a real
 * node (the recorded regtest chain to height 327 with its recorded txs, real LMDB, RingCT in
 * workers, a clock the test moves): prunable hashes in pruned entries, the pool's changes
 * (requested_info, pool_info_since → pool_info_extent, added_pool_txs, removed_pool_txids) through
 * add / flush / mine / pop / relay sequences, FULL versus INCREMENTAL, the restricted server's
 * limits, a bad requested_info, and the 0.18.0.0 answer for a request without the new fields.
 * Ports 19700-19749.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { decodeEpee, encodeEpee } from "../src/codec/epee-map.js";
import { parseEpee } from "../src/codec/epee.js";
import { type Node, openNode, type OpenNodeOptions } from "../src/node/chain/index.js";
import { DaemonState, nodeMethods } from "../src/node/rpc/index.js";
import { getBlocksBinRequest, type GetBlocksBinRequest, getBlocksBinResponse, type GetBlocksBinResponse } from "../src/protocol/rpc-bin.js";
import { parseTransaction, pruneTransaction, serializeTransaction } from "../src/protocol/tx.js";
import { combineTxHashes, txHash, txHashesFromBlob } from "../src/protocol/tx-hash.js";
import { defaultBackend } from "../src/crypto/index.js";
import { RpcServer } from "../src/rpc/server.js";
import { fromHex, recordedByHeight, replayRecorded, toHex } from "./helpers/chain.js";

const backend = defaultBackend();
const PORT = 19700;
const RESTRICTED_PORT = 19701;
const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const BASE = 327;

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-getblocks-pool-"));
  dirs.push(d);
  return d;
};
const { blocks, tsOf, blobOf } = recordedByHeight();

let clock = 0;
const pending: string[] = [];
let node: Node;
let methods: ReturnType<typeof nodeMethods>;
const servers: RpcServer[] = [];

const opts = (dataDir: string): OpenNodeOptions => ({ dataDir, network: "regtest", fixedDifficulty: 1n, syncMode: "fast", now: () => clock, verifyThreads: 1, offline: true });

before(async () => {
  const dir = tmp();
  const n = await openNode(opts(dir));
  try {
    await replayRecorded(n, 1, BASE, (t) => {
      clock = t;
    });
    clock = tsOf(BASE - 1) + 30;
    for (const id of blocks.slice(BASE).flatMap((b) => b.tx_hashes)) if ((await n.submitTransaction(blobOf(id))).ok) pending.push(id);
    assert.ok(pending.length >= 6, `${pending.length} txs admissible at ${BASE}`);
    await n.flushPool();
  } finally {
    await n.close();
  }
  // a fresh process: the pool's change log starts empty, as monerod's after a start with an empty pool
  const copy = tmp();
  cpSync(dir, copy, { recursive: true });
  node = await openNode(opts(copy));
  const state = new DaemonState({ startTime: clock, logLevel: 0 });
  methods = nodeMethods({ core: node, state, now: () => clock, stop: () => undefined, databaseSize: () => 0, freeSpace: () => 0n });
  for (const [port, restricted] of [[PORT, false], [RESTRICTED_PORT, true]] as const) {
    const s = new RpcServer({ methods, restricted });
    await s.listen(port);
    servers.push(s);
  }
});

after(async () => {
  for (const s of servers) await s.close();
  await node?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Req = Partial<Omit<GetBlocksBinRequest, "client">>;

/** Raw: the answer's epee bytes (which fields a request gets, decoded here), from the alias /getblocks.bin. */
async function raw(req: Req, port = PORT): Promise<Uint8Array> {
  const full: GetBlocksBinRequest = { client: "", block_ids: [], start_height: 0n, prune: true, no_miner_tx: false, ...req };
  const res = await fetch(`http://127.0.0.1:${port}/getblocks.bin`, { method: "POST", body: encodeEpee(getBlocksBinRequest, full) });
  assert.equal(res.status, 200);
  return new Uint8Array(await res.arrayBuffer());
}
const getBlocks = async (req: Req, port = PORT): Promise<GetBlocksBinResponse> => decodeEpee(getBlocksBinResponse, await raw(req, port));
const ids = (xs: readonly Uint8Array[] | undefined): string[] => (xs ?? []).map(toHex);
const added = (r: GetBlocksBinResponse): string[] => (r.added_pool_txs ?? []).map((t) => toHex(t.tx_hash));
const submit = async (id: string, o: { doNotRelay?: boolean } = {}): Promise<void> => {
  const r = await node.submitTransaction(blobOf(id), o);
  assert.ok(r.ok && !r.duplicate, `${id}: ${r.reason}`);
};
const POOL_ONLY = 2;
const BLOCKS_AND_POOL = 1;
const FULL = 2;
const INCREMENTAL = 1;

test("pruned entries carry each tx's prunable hash (the third part of its id); full entries the null hash", async () => {
  const from = 300;
  const pruned = await getBlocks({ start_height: BigInt(from), prune: true });
  const full = await getBlocks({ start_height: BigInt(from), prune: false });
  assert.equal(pruned.status, "OK");
  assert.equal(pruned.blocks.length, BASE - from);
  let v2 = 0;
  pruned.blocks.forEach((b, i) => {
    const txIds = blocks[from + i].tx_hashes;
    assert.equal(b.txs.length, txIds.length);
    b.txs.forEach((t, k) => {
      const tx = parseTransaction(t.blob, { pruned: true });
      const whole = txHashesFromBlob(blobOf(txIds[k]));
      assert.ok(whole.prunableHash, "the recorded chain's txs are v2");
      assert.equal(toHex(t.prunable_hash), toHex(backend.keccak256(blobOf(txIds[k]).subarray(whole.layout.unprunableSize))), "keccak of the prunable bytes");
      // the id: keccak(prefix hash ‖ RingCT base hash ‖ prunable hash)
      const base = backend.keccak256(t.blob.subarray(whole.layout.prefixSize));
      assert.equal(toHex(combineTxHashes(whole.prefixHash, base, t.prunable_hash, backend)), txIds[k]);
      assert.equal(toHex(txHash(tx, backend, t.prunable_hash)), txIds[k]);
      v2++;
    });
  });
  assert.ok(v2 >= 10, `${v2} txs checked`);
  for (const b of full.blocks) for (const t of b.txs) assert.ok(t.prunable_hash.every((x) => x === 0), "full entries: null");
  // the later request shape gives the same entries
  const later = await getBlocks({ start_height: BigInt(from), prune: true, requested_info: 0 });
  assert.deepEqual(later.blocks, pruned.blocks);
});

test("a request with only 0.18.0.0's fields gets 0.18.0.0's answer; one with a later field gets daemon_time and top_block_hash", async () => {
  clock += 5;
  const keysOf = (b: Uint8Array): string[] => [...parseEpee(b).keys()].sort();
  const old = await raw({ start_height: 320n });
  assert.deepEqual(keysOf(old), ["blocks", "credits", "current_height", "output_indices", "start_height", "status", "top_hash", "untrusted"]);
  // the same blocks' bytes: only the later fields are added
  const later = await raw({ start_height: 320n, requested_info: 0 });
  assert.deepEqual(keysOf(later), ["blocks", "credits", "current_height", "daemon_time", "output_indices", "start_height", "status", "top_block_hash", "top_hash", "untrusted"]);
  const a = decodeEpee(getBlocksBinResponse, old);
  const b = decodeEpee(getBlocksBinResponse, later);
  assert.equal(b.daemon_time, BigInt(clock));
  assert.equal(toHex(b.top_block_hash ?? new Uint8Array()), toHex(node.store.topHash()));
  assert.deepEqual({ ...b, daemon_time: undefined, top_block_hash: undefined }, a);
  // past the top: 0.18.0.0 fails, later releases answer an empty OK (handle_get_blocks' no-op)
  assert.equal((await getBlocks({ start_height: BigInt(BASE) })).status, "Failed");
  const noop = await getBlocks({ start_height: BigInt(BASE), pool_info_since: 0n });
  assert.deepEqual([noop.status, noop.blocks.length, noop.start_height, noop.current_height], ["OK", 0, 0n, BigInt(BASE)]);
  // block_ids_exclusive: from the block after the common one; at the top nothing, start_height = height
  const genesis = node.store.meta(0).hash;
  const at = (h: number): Uint8Array => node.store.meta(h).hash;
  const incl = await getBlocks({ block_ids: [at(320), genesis], max_block_count: 2n });
  const excl = await getBlocks({ block_ids: [at(320), genesis], block_ids_exclusive: true, max_block_count: 2n });
  assert.deepEqual([incl.start_height, incl.blocks.length, excl.start_height, excl.blocks.length], [320n, 2, 321n, 2]);
  const top = await getBlocks({ block_ids: [at(BASE - 2), genesis], block_ids_exclusive: true });
  assert.deepEqual([top.status, top.start_height, top.blocks.length], ["OK", BigInt(BASE - 1), 1]);
  // an unknown chain: Failed, with the height and top hash master's find_blockchain_supplement set first
  const unknown = await getBlocks({ block_ids: [new Uint8Array(32).fill(9)], requested_info: 1 });
  assert.deepEqual([unknown.status, unknown.current_height, toHex(unknown.top_block_hash ?? new Uint8Array())], ["Failed", BigInt(BASE), toHex(node.store.topHash())]);
  assert.equal(unknown.pool_info_extent, undefined, "no pool info when the blocks failed");
  // a bad requested_info
  const bad = await getBlocks({ requested_info: 3 });
  assert.equal(bad.status, "Failed, wrong requested info");
  assert.equal(bad.daemon_time, BigInt(clock));
  assert.equal(bad.pool_info_extent, undefined);
});

test("pool info: FULL until both change lists reach back past pool_info_since, then INCREMENTAL through add, flush, mine, pop and relay", async () => {
  const [t1, t2, t3, t4, t5] = pending;
  clock += 10;
  // empty pool, nothing tracked: FULL; blocks_only gives no pool info
  let r = await getBlocks({ requested_info: POOL_ONLY });
  assert.deepEqual([r.status, r.pool_info_extent, added(r), r.blocks.length], ["OK", FULL, [], 0]);
  assert.equal((await getBlocks({ start_height: 320n, requested_info: 0, pool_info_since: 1n })).pool_info_extent, undefined);
  const s0 = clock;
  clock += 10;
  await submit(t1);
  await submit(t2);
  // nothing removed yet: monerod cannot answer incrementally
  r = await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s0) });
  assert.equal(r.pool_info_extent, FULL);
  assert.deepEqual(added(r).sort(), [t1, t2].sort());
  assert.deepEqual(r.removed_pool_txids, undefined, "removed ids only in INCREMENTAL answers");
  // flush t1: removal list starts; since must be later than its start
  clock += 10;
  await node.flushPool([fromHex(t1)]);
  const flushedAt = clock;
  assert.equal((await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(flushedAt) })).pool_info_extent, FULL, "since = the lists' start: FULL");
  clock += 10;
  const s1 = clock;
  r = await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s1) });
  assert.deepEqual([r.pool_info_extent, added(r), ids(r.removed_pool_txids), r.daemon_time], [INCREMENTAL, [], [], BigInt(s1)]);
  // add t3 (pruned and full bodies)
  clock += 10;
  await submit(t3);
  r = await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s1), prune: true });
  assert.deepEqual([r.pool_info_extent, added(r), ids(r.removed_pool_txids)], [INCREMENTAL, [t3], []]);
  const p = r.added_pool_txs?.[0];
  assert.ok(p);
  assert.equal(toHex(p.tx_blob), toHex(serializeTransaction(pruneTransaction(parseTransaction(blobOf(t3))))), "pruned: prefix and RingCT base");
  assert.equal(p.double_spend_seen, false);
  const f = (await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s1), prune: false })).added_pool_txs?.[0];
  assert.equal(toHex(f?.tx_blob ?? new Uint8Array()), toHex(blobOf(t3)));
  // blocks and pool in one call
  r = await getBlocks({ start_height: BigInt(BASE - 1), requested_info: BLOCKS_AND_POOL, pool_info_since: BigInt(s1) });
  assert.deepEqual([r.blocks.length, r.start_height, r.pool_info_extent, added(r)], [1, BigInt(BASE - 1), INCREMENTAL, [t3]]);
  // a since before the removal list's start: FULL with the whole pool
  r = await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s0) });
  assert.deepEqual([r.pool_info_extent, added(r).sort()], [FULL, [t2, t3].sort()]);

  // mine t2 and t3: both removed
  clock += 10;
  const s2 = clock;
  await node.generateBlocks(1, ALICE);
  assert.equal(node.pool.size(), 0);
  r = await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s2) });
  assert.deepEqual([r.pool_info_extent, added(r), ids(r.removed_pool_txids).sort()], [INCREMENTAL, [], [t2, t3].sort()]);

  // pop the block: they come back (kept_by_block) and are in both lists since s2 (monerod does not
  // take a re-added tx out of the removed list: clients apply removals first)
  clock += 10;
  const s3 = clock;
  await node.popBlocks(1);
  r = await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s2) });
  assert.deepEqual([r.pool_info_extent, added(r).sort(), ids(r.removed_pool_txids).sort()], [INCREMENTAL, [t2, t3].sort(), [t2, t3].sort()]);
  r = await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s3) });
  assert.deepEqual([added(r).sort(), ids(r.removed_pool_txids)], [[t2, t3].sort(), []]);

  // a double spend of t2 marks it: double_spend_seen in its next full answer
  clock += 10;
  const tx = parseTransaction(blobOf(t2));
  const extra = tx.extra.slice();
  extra[extra.length - 1] ^= 1;
  assert.equal((await node.submitTransaction(serializeTransaction({ ...tx, extra }))).ok, false);
  r = await getBlocks({ requested_info: POOL_ONLY });
  assert.equal(r.added_pool_txs?.find((x) => toHex(x.tx_hash) === t2)?.double_spend_seen, true);

  // do_not_relay: sensitive, hidden from the restricted port until relay_tx, which adds it again now
  clock += 10;
  const s4 = clock;
  await submit(t4, { doNotRelay: true });
  assert.deepEqual(added(await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s4) })), [t4]);
  assert.deepEqual(added(await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s4) }, RESTRICTED_PORT)), []);
  assert.ok(!added(await getBlocks({ requested_info: POOL_ONLY }, RESTRICTED_PORT)).includes(t4));
  clock += 10;
  const s5 = clock;
  await node.relayTransactions([fromHex(t4)]);
  assert.deepEqual(added(await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s5) }, RESTRICTED_PORT)), [t4]);

  // the restricted server's limit on tx bodies, with the pool's own count limit (2 here): the rest by id
  clock += 10;
  await submit(t5);
  const all = node.pool.entries().map((e) => toHex(e.id));
  const c = node.pool.changesSince(0n, { includeSensitive: true, maxTxCount: 2 });
  assert.deepEqual([c.incremental, c.added.length, c.remainingAdded.length], [false, 2, all.length - 2]);
  assert.deepEqual([...c.added.map((e) => toHex(e.id)), ...ids(c.remainingAdded)].sort(), [...all].sort());
  r = await getBlocks({ requested_info: POOL_ONLY }, RESTRICTED_PORT);
  assert.deepEqual([...added(r), ...ids(r.remaining_added_pool_txids)].sort(), [...all].sort(), "fewer than 100: all as bodies");

  // flush everything
  clock += 10;
  const s6 = clock;
  await node.flushPool();
  r = await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s6) });
  assert.deepEqual([r.pool_info_extent, added(r), ids(r.removed_pool_txids).sort()], [INCREMENTAL, [], [...all].sort()]);

  // 30 minutes later a removal forgets the older ones: a since before that window is FULL
  clock += 30 * 60 + 1;
  await submit(t1);
  await node.flushPool([fromHex(t1)]);
  assert.equal((await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(s6) })).pool_info_extent, FULL);
  clock += 1;
  r = await getBlocks({ requested_info: POOL_ONLY, pool_info_since: BigInt(clock) });
  assert.equal(r.pool_info_extent, INCREMENTAL);
  // a u64 since past 2^63 is a negative time_t: FULL
  assert.equal((await getBlocks({ requested_info: POOL_ONLY, pool_info_since: 1n << 63n })).pool_info_extent, FULL);
});

test("a synced wallet's repeated request (a new client signature each time) gets the kept answer, and a new one once a block is added or popped", async () => {
  // the servers' own table: the handler's runs are counted around the real handler
  const served = methods.binPath("/get_blocks.bin", false);
  assert.ok(served?.reuse, "get_blocks.bin declares its answers reusable");
  const handler = served.handler;
  // the by-bytes kept answers, under the split-point answers (BinPath.quick), which answer such a
  // request before it: off here, on in the next test
  const quick = served.quick;
  served.quick = undefined;
  let runs = 0;
  served.handler = (req, ctx) => {
    runs++;
    return handler.call(served, req, ctx);
  };
  try {
    const genesis = node.store.meta(0).hash;
    const history = (): Uint8Array[] => [node.store.topHash(), node.store.meta(node.store.height() - 2).hash, genesis];
    const signed = async (client: string, port = PORT): Promise<Uint8Array> => {
      const body = encodeEpee(getBlocksBinRequest, { client, block_ids: history(), start_height: 0n, prune: true, no_miner_tx: false });
      const res = await fetch(`http://127.0.0.1:${port}/getblocks.bin`, { method: "POST", body });
      assert.equal(res.status, 200);
      return new Uint8Array(await res.arrayBuffer());
    };
    const h0 = node.store.height();
    const first = await signed("signature 1");
    const again = await signed("a second, longer signature");
    assert.deepEqual(again, first, "the same bytes");
    assert.equal(runs, 1, "the second answer is the kept one");
    assert.equal(decodeEpee(getBlocksBinResponse, first).current_height, BigInt(h0));

    // a block: the same request is answered again from the chain, with the new block
    const old = history();
    await node.generateBlocks(1, ALICE);
    const body = encodeEpee(getBlocksBinRequest, { client: "s3", block_ids: old, start_height: 0n, prune: true, no_miner_tx: false });
    const next = decodeEpee(getBlocksBinResponse, new Uint8Array(await (await fetch(`http://127.0.0.1:${PORT}/getblocks.bin`, { method: "POST", body })).arrayBuffer()));
    assert.deepEqual([next.start_height, next.blocks.length, next.current_height], [BigInt(h0 - 1), 2, BigInt(h0 + 1)]);
    assert.equal(runs, 2);
    // popped: the request of before the block gets the chain of before the block again, not the kept answer
    await node.popBlocks(1);
    const after = await signed("s4");
    assert.equal(runs, 3);
    assert.deepEqual(after, first);
    // the restricted server keeps its own answers (its handler runs once for it)
    await signed("s5", RESTRICTED_PORT);
    await signed("s6", RESTRICTED_PORT);
    assert.equal(runs, 4);
    // an unknown chain fails every time (host_fail each time), never from a kept answer
    const bad = encodeEpee(getBlocksBinRequest, { client: "", block_ids: [new Uint8Array(32).fill(3)], start_height: 0n, prune: true, no_miner_tx: false });
    for (let i = 0; i < 2; i++) {
      const r = decodeEpee(getBlocksBinResponse, new Uint8Array(await (await fetch(`http://127.0.0.1:${PORT}/getblocks.bin`, { method: "POST", body: bad })).arrayBuffer()));
      assert.equal(r.status, "Failed");
    }
    assert.equal(runs, 6);
  } finally {
    served.handler = handler;
    served.quick = quick;
  }
});

test("get_blocks.bin's split-point answers follow the chain: a block added, then popped, gives the answers of each chain", async () => {
  const served = methods.binPath("/get_blocks.bin", false);
  assert.ok(served?.quick, "get_blocks.bin has a quick answer");
  const genesis = node.store.meta(0).hash;
  const ask = async (ids: Uint8Array[]): Promise<Uint8Array> => {
    const body = encodeEpee(getBlocksBinRequest, { client: "sig", block_ids: ids, start_height: 0n, prune: true, no_miner_tx: false });
    assert.ok(served.quick!(body, { remoteAddress: "127.0.0.1", restricted: false, signal: new AbortController().signal }), "the quick path answers it");
    const res = await fetch(`http://127.0.0.1:${PORT}/getblocks.bin`, { method: "POST", body });
    assert.equal(res.status, 200);
    return new Uint8Array(await res.arrayBuffer());
  };
  const h0 = node.store.height();
  const prev = [node.store.meta(h0 - 2).hash, genesis];
  const top = [node.store.topHash(), genesis];
  const before = [await ask(prev), await ask(top)];
  assert.deepEqual([decodeEpee(getBlocksBinResponse, before[0]).blocks.length, decodeEpee(getBlocksBinResponse, before[1]).blocks.length], [2, 0]);
  await node.generateBlocks(1, ALICE);
  const grown = decodeEpee(getBlocksBinResponse, await ask(prev));
  assert.deepEqual([grown.blocks.length, grown.current_height], [3, BigInt(h0 + 1)]);
  assert.equal(decodeEpee(getBlocksBinResponse, await ask(top)).blocks.length, 2, "the old top is now a block behind");
  await node.popBlocks(1);
  assert.deepEqual(await ask(prev), before[0]);
  assert.deepEqual(await ask(top), before[1]);
});
