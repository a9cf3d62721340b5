/**
 * The rolling median of the long-term weight window (consensus/window-median.ts) against sorting
 * the same window, through slides, growth, pops, jumps back and reorg-like rewrites; and the chain
 * store's median against the plain reading on a real chain.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { median } from "../src/consensus/constants.js";
import { feeEstimateLevels } from "../src/consensus/fees.js";
import { WindowMedian } from "../src/consensus/window-median.js";
import { startDaemon } from "../src/node/daemon.js";

it("equals the median by sorting through slides, pops, jumps and rewritten heights", () => {
  let seed = 12345;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const chain: number[] = [];
  for (let i = 0; i < 3000; i++) chain.push(rand(50) * 1000 + (rand(3) === 0 ? 300000 : 0));
  const read = (s: number, n: number) => chain.slice(s, s + n);
  const w = new WindowMedian();
  // get_fee_estimate's shape: the window with grace zeros added, in an instance of its own
  const withZeros = new WindowMedian();
  const zeros = 10;
  const window = 500;
  let height = 1;
  for (let step = 0; step < 4000; step++) {
    const r = rand(100);
    if (r < 80 && height < chain.length) height++;
    else if (r < 90 && height > 2) {
      // pop then a different block at the same height
      height--;
      w.truncate(height);
      withZeros.truncate(height);
      chain[height] = rand(1000) * 7;
    } else if (r < 95) height = 1 + rand(chain.length - 1); // jump
    const start = Math.max(0, height - window);
    assert.equal(w.median(start, height - start, read), median(read(start, height - start)), `step ${step}, height ${height}`);
    const zs = Math.max(0, height - window + zeros);
    const expected = median([...read(zs, height - zs), ...new Array<number>(zeros).fill(0)]);
    assert.equal(withZeros.median(zs, height - zs, read, zeros), expected, `with zeros: step ${step}, height ${height}`);
  }
  assert.equal(w.median(0, 0, read), 0);
});

it("the chain store's long-term median follows generated blocks and pops as reading every weight does", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-ltw-"));
  const d = await startDaemon({ network: "regtest", dataDir: dir, fixedDifficulty: 1n, offline: true, rpcBindPort: 0, logToConsole: false });
  try {
    const store = d.core.store;
    const addr = "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm";
    for (let round = 0; round < 6; round++) {
      await d.core.generateBlocks(30, addr);
      if (round % 2 === 1) await d.core.popBlocks(17); // heights rewritten by the next round
      const h = store.height();
      for (const win of [10, 25, h]) {
        const s = Math.max(0, h - win);
        assert.equal(store.longTermWeightMedian(s, h - s), median(store.longTermBlockWeights(s, h - s)));
        for (const zeros of [10, 37]) {
          const z = Math.min(h, Math.max(0, h - win + zeros));
          assert.equal(store.longTermWeightMedian(z, h - z, zeros), median([...store.longTermBlockWeights(z, h - z), ...new Array<number>(zeros).fill(0)]), `${zeros} zeros`);
        }
      }
      // get_fee_estimate, whose long-term median is now kept as the chain grows, against the
      // levels computed from every weight (as before)
      const info = (await (await fetch(`${d.rpcUrl}/json_rpc`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "get_info" }) })).json()) as { result: { block_weight_median: number } };
      for (const grace of [0, 10, 37]) {
        const res = (await (await fetch(`${d.rpcUrl}/json_rpc`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "get_fee_estimate", params: { grace_blocks: grace } }) })).json()) as { result: { fees: number[] } };
        const levels = feeEstimateLevels(grace, store.blockWeights(Math.max(0, h - 100), Math.min(h, 100)), store.longTermBlockWeights(Math.max(0, h - 100000), Math.min(h, 100000)), info.result.block_weight_median, store.alreadyGeneratedCoins(), 16);
        assert.deepEqual(res.result.fees.map(BigInt), levels, `grace ${grace} at ${h}`);
      }
    }
    assert.ok(store.height() > 100);
  } finally {
    await d.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
