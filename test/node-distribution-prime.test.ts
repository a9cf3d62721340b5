/**
 * Output distributions made for each new block before anyone asks (primeTopDistributions in
 * src/node/rpc/bin.ts) on a real tsmonerod in this process: a shape asked of the top (to_height 0)
 * is made again when a block arrives, so the next ask is a cache hit with the new block counted;
 * a shape nobody asked is not made; one not asked for 30 blocks is no longer made.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import { type Daemon, startDaemon } from "../src/node/daemon.js";
import { freePort } from "./helpers/ports.js";

const MINER = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";

interface CacheStats {
  caches: { name: string; hits: number; misses: number }[];
}

describe("output distributions made for a new block", () => {
  let dir: string;
  let d: Daemon;
  let c: NodeClient;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-dist-prime-"));
    d = await startDaemon({ network: "regtest", dataDir: dir, fixedDifficulty: 1n, offline: true, rpcBindPort: await freePort(), logToConsole: false });
    c = new NodeClient({ url: d.rpcUrl });
    await c.jsonRpc("generateblocks", { amount_of_blocks: 20n, wallet_address: MINER });
  });
  after(async () => {
    c.close();
    await d.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const lookups = async (): Promise<{ hits: number; misses: number }> => {
    const s = (await c.jsonRpc("get_cache_stats")) as unknown as CacheStats;
    return s.caches.find((x) => x.name === "output distributions") ?? { hits: 0, misses: 0 };
  };
  const block = async (): Promise<void> => {
    await c.jsonRpc("generateblocks", { amount_of_blocks: 1n, wallet_address: MINER });
    // the new block's answers are made a turn of the event loop after it is added
    await new Promise((r) => setTimeout(r, 50));
  };
  const top = { amounts: [0n], from_height: 0n, to_height: 0n, cumulative: false, compress: true };

  it("a distribution asked of the top is made for the next block before it is asked, with that block in it", async () => {
    const first = await c.getOutputDistributionBin(top);
    const h0 = d.core.store.height();
    assert.equal(first.distributions[0].distribution.length, h0);
    await block();
    const before = await lookups();
    const next = await c.getOutputDistributionBin(top);
    const after = await lookups();
    assert.deepEqual([after.hits - before.hits, after.misses - before.misses], [1, 0], "answered from what the new block made");
    const counts = next.distributions[0].distribution;
    assert.equal(counts.length, h0 + 1);
    assert.deepEqual(counts.slice(0, h0), first.distributions[0].distribution, "the blocks before are the same");
    assert.equal(counts[h0], 1n, "the new block's coinbase output");
    // the same as one made on request for those heights
    const asked = await c.getOutputDistributionBin({ ...top, to_height: BigInt(h0), compress: false });
    assert.deepEqual(asked.distributions[0].distribution, counts);
  });

  it("a shape nobody asked is not made; one not asked for 30 blocks is no longer made", async () => {
    const cumulative = { ...top, cumulative: true };
    await block();
    let before = await lookups();
    await c.getOutputDistributionBin(cumulative);
    let after = await lookups();
    assert.deepEqual([after.hits - before.hits, after.misses - before.misses], [0, 1], "never asked before: made on request");
    // 30 blocks without asking: still made for each; the 31st is not
    for (let k = 0; k < 30; k++) await block();
    before = await lookups();
    await c.getOutputDistributionBin(cumulative);
    after = await lookups();
    assert.deepEqual([after.hits - before.hits, after.misses - before.misses], [1, 0], "asked 30 blocks ago: still made");
    for (let k = 0; k < 31; k++) await block();
    before = await lookups();
    await c.getOutputDistributionBin(cumulative);
    after = await lookups();
    assert.deepEqual([after.hits - before.hits, after.misses - before.misses], [0, 1], "asked 31 blocks ago: made on request again");
  });
});
