/**
 * A node hashing every block's RandomX PoW (hashTrivialPow) across several seed switches holds one
 * seed cache (256 MiB): at a switch the old seed's idle cache is re-keyed for the new one, where
 * the LRU alone would keep two, as monerod's rx-slow-hash keeps its main and secondary caches. Short epochs through monerod's own
 * SEEDHASH_EPOCH_BLOCKS / SEEDHASH_EPOCH_LAG variables, read once per process (this file's).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { randomxStatus } from "../src/crypto/randomx.js";
import { openNode } from "../src/node/chain/node.js";
import { processSeedEpoch, seedHeight } from "../src/node/mining/index.js";

process.env.SEEDHASH_EPOCH_BLOCKS = "8";
process.env.SEEDHASH_EPOCH_LAG = "2";
const ADDRESS = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const rxOk = randomxStatus().available;

test("RandomX seed caches: a switch re-keys the old seed's cache in place; an alternative block below a switch makes it again, released once idle", { skip: rxOk ? false : "librandomx not available" }, async (t) => {
  assert.deepEqual(processSeedEpoch(), { blocks: 8, lag: 2 });
  const open = async (staleSeedIdleMs: number) => {
    const dir = mkdtempSync(join(tmpdir(), "tsmonero-seed-caches-"));
    const node = await openNode({ dataDir: dir, network: "regtest", fixedDifficulty: 1n, offline: true, syncMode: "fast", verifyThreads: 1, hashTrivialPow: true, staleSeedIdleMs });
    t.after(async () => {
      await node.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return node;
  };
  const releasing = await open(0);
  const keeping = await open(Number.POSITIVE_INFINITY);
  // 30 blocks: the seeds of heights 0, 8, 16 and 24 (a switch every 8 blocks, 2 blocks late)
  const mined = await releasing.generateBlocks(30, ADDRESS);
  assert.equal(releasing.store.height(), 31);
  assert.deepEqual([...new Set(Array.from({ length: 30 }, (_, i) => seedHeight(i + 1)))], [0, 8, 16, 24]);
  assert.equal(releasing.randomxSeedCaches, 1);
  // the same blocks, received and verified (hashed) in order by a node that never releases an idle
  // cache: at each switch the old seed's cache was re-keyed for the new one, never two at once
  for (const id of mined.blocks) {
    const blob = releasing.store.blockBlob(releasing.store.heightOf(id) ?? -1);
    assert.ok(blob);
    assert.equal((await keeping.submitBlock(blob)).status, "added");
  }
  assert.equal(keeping.powHashCount, 30);
  assert.equal(keeping.randomxSeedCaches, 1);
  // past the next switch (block 35 is hashed with seed 32): still one cache
  await releasing.generateBlocks(5, ADDRESS);
  assert.equal(releasing.store.height(), 36);
  assert.deepEqual([seedHeight(34), seedHeight(35)], [24, 32]);
  assert.equal(releasing.randomxSeedCaches, 1);
  // an alternative block at height 34 (on block 33) is hashed with seed 24: its cache is made again,
  // and kept while a block at 34 could still come (the chain's next height is within `lag` of it)
  const alt = await releasing.generateBlocks(1, ADDRESS, { prevId: releasing.store.meta(33).hash });
  assert.equal(alt.blocks.length, 1);
  assert.equal(releasing.store.height(), 36, "the alternative block did not become the main chain");
  assert.equal(releasing.randomxSeedCaches, 2);
  // from height 37 on, seed 24 is released
  await releasing.generateBlocks(1, ADDRESS);
  assert.equal(releasing.randomxSeedCaches, 1, "from height 37 on, seed 24 is released");
});
