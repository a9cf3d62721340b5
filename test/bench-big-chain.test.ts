/**
 * The large chain artifact of `npm run bench -- chain` (bench/lib/big-chain.ts), built small: it
 * resumes from its checkpoint, reads back block for block, and a fresh node accepts every block and
 * tx of it (so a daemon replaying it over RPC does too), with the counts meta.json states.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { buildChain, readChain, readMeta } from "../bench/lib/big-chain.js";
import { openNode } from "../src/node/chain/index.js";
import { parseBlock } from "../src/protocol/block.js";
import { parseTransaction } from "../src/protocol/tx.js";

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-test-big-chain-"));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("a 112-block chain built in two runs reads back whole and replays into a fresh node", async () => {
  const dir = tmp();
  // coinbases only up to 100 (rings need 40 unlocked outputs), then txs at about 10 outputs a block
  const first = await buildChain({ dir, blocks: 106, planBlocks: 112, outputs: 1130 });
  assert.equal(first.blocks, 106);
  const meta = await buildChain({ dir, blocks: 112, planBlocks: 500, outputs: 9999 });
  assert.equal(meta.blocks, 112);
  assert.equal(meta.plan.blocks, 112, "the first run fixed the plan");
  assert.equal(meta.plan.outputs, 1130);
  assert.deepEqual(readMeta(dir), meta);
  assert.ok(meta.txs >= 6, `${meta.txs} txs`);

  const records = [...readChain(dir)];
  assert.deepEqual(records.map((r) => r.height), Array.from({ length: 112 }, (_, i) => i + 1));
  let txs = 0;
  let inputs = 0;
  let outputs = 0;
  const shapes = new Set<string>();
  for (const r of records) {
    const b = parseBlock(r.block);
    assert.equal(b.txHashes.length, r.txs.length, `block ${r.height}: its txs are all there`);
    outputs += b.minerTx.vout.length;
    for (const t of r.txs) {
      const tx = parseTransaction(t);
      assert.equal(tx.rct?.type, 6, "CLSAG + BP+");
      for (const i of tx.vin) if (i.type === "key") assert.equal(i.keyOffsets.length, 16, "ring 16");
      inputs += tx.vin.length;
      outputs += tx.vout.length;
      shapes.add(`${tx.vin.length}/${tx.vout.length}`);
      txs++;
    }
  }
  assert.deepEqual({ txs, inputs, outputs }, { txs: meta.txs, inputs: meta.inputs, outputs: meta.outputs });
  assert.ok(shapes.size >= 2, `shapes ${[...shapes].join(", ")}`);
  assert.ok(meta.ownedOutputs > 112 && meta.ownedOutputs < meta.outputs, `owner paid ${meta.ownedOutputs} of ${meta.outputs}`);

  // a fresh node at the last block's time accepts it all, to the same top
  const last = parseBlock(records[records.length - 1].block).timestamp;
  const node = await openNode({ dataDir: tmp(), network: "regtest", fixedDifficulty: 1n, syncMode: "fast", now: () => Number(last), verifyThreads: 1, offline: true });
  try {
    for (const r of records) {
      const res = await node.submitBlock(r.block, { txBlobs: r.txs });
      assert.equal(res.status, "added", `block ${r.height}: ${res.message ?? res.status}`);
    }
    assert.equal(Buffer.from(node.store.topHash()).toString("hex"), meta.topHash);
  } finally {
    await node.close();
  }
});
