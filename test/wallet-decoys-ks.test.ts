/**
 * Acceptance (issue 12): decoys drawn by ours and by wallet2 on the same chain pass a two-sample
 * Kolmogorov–Smirnov test at α = 1% over at least 2,000 ring members.
 *
 * wallet2's draws: the rings of the 154 transactions real monero-wallet-rpc made on the recorded
 * regtest chain (test/fixtures/chain, scripts/record-chain.mjs). Their real spends are found by
 * key image, scanning the chain with the three recording wallets' seeds, and left out: only
 * decoys are compared. Ours: the chain is replayed into an in-process tsmonerod over HTTP; before
 * each block with transactions is submitted (the chain then has the height wallet2 saw when it
 * made them — regtest mines the pool into the next block), `pickRings` draws rings for the same
 * real outputs at the same ring size, through one DistributionCache kept over the whole replay.
 *
 * Age of a ring member, the measure wallet2's picker draws in: the number of RingCT outputs on
 * the chain at spend time (the distribution's last cumulative count) minus its global index —
 * the gamma picker turns a time into an output count back from the tip and then picks uniformly
 * inside that output's block. The test also checks the coarser block age (spend height minus
 * the member's block height, from get_outs), which must pass too.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import { defaultBackend } from "../src/crypto/index.js";
import { MoneroTestRandom } from "../src/crypto/random.js";
import { type Daemon, startDaemon } from "../src/node/daemon.js";
import { parseBlock } from "../src/protocol/block.js";
import { wordsToBytes } from "../src/protocol/mnemonic/index.js";
import { parseTransaction } from "../src/protocol/tx.js";
import { accountFromRecoveryKey } from "../src/wallet/keys/account.js";
import { OutputIndexer, type ScanBlockInput, Scanner } from "../src/wallet/scan/scan.js";
import { DistributionCache, pickRings, type RealOutput } from "../src/wallet/send/decoys.js";
import { RandomDraw } from "../src/wallet/send/random-draw.js";
import { fromHex, recordedBlocks, recordedTxs, toHex, WALLET_SEEDS } from "./helpers/chain.js";
import { ksTwoSample } from "./helpers/ks.js";
import { nodePath, nodeRpc } from "./helpers/node-rpc.js";

const be = defaultBackend();
const blocks = recordedBlocks();
const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t]));

let daemon: Daemon;
let dir: string;
let client: NodeClient;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "tsmonero-decoys-ks-"));
  daemon = await startDaemon({
    network: "regtest", dataDir: dir, fixedDifficulty: 1n, offline: true, rpcBindPort: 0,
    logFile: "", logToConsole: false, syncMode: "fast", verifyThreads: 1,
  });
  client = new NodeClient({ url: daemon.rpcUrl });
});

after(async () => {
  client?.close();
  await daemon?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Key image (hex) → global index of the output it spends, for every output the three wallets own. */
function ownedByKeyImage(): Map<string, bigint> {
  const indexer = new OutputIndexer();
  const input: ScanBlockInput[] = blocks.map((b) => {
    const block = parseBlock(fromHex(b.blob));
    const txBlobs = b.tx_hashes.map((h) => fromHex(txById.get(h)?.as_hex ?? ""));
    const outputIndices = [indexer.next(block.minerTx), ...txBlobs.map((blob) => indexer.next(parseTransaction(blob)))];
    return { height: b.height, blockBlob: fromHex(b.blob), txBlobs, outputIndices };
  });
  const out = new Map<string, bigint>();
  for (const seed of Object.values(WALLET_SEEDS)) {
    const scanner = new Scanner(accountFromRecoveryKey(wordsToBytes(seed).bytes, be), be);
    for (const b of input)
      for (const t of scanner.scanBlock(b).txs)
        for (const r of t.received) if (r.keyImage && r.globalIndex !== null) out.set(toHex(r.keyImage), r.globalIndex);
  }
  return out;
}

test("decoy ages: ours and wallet2's pass a two-sample KS test at 1% (≥ 2,000 ring members)", async () => {
  const owned = ownedByKeyImage();
  const cache = new DistributionCache();
  const rng = MoneroTestRandom.seeded42();
  const theirs = { outputs: [] as number[], blocks: [] as number[] };
  const ours = { outputs: [] as number[], blocks: [] as number[] };
  // the test's power: decoys drawn uniformly among the unlocked outputs must fail it
  const uniform: number[] = [];
  const uniformDraw = new RandomDraw(MoneroTestRandom.seeded42());
  let rings = 0;
  let pickMs = 0;

  for (const b of blocks.slice(1)) {
    if (b.tx_hashes.length > 0) {
      const height = b.height; // blocks 0..height-1 are on the chain, as when wallet2 built these txs
      const offsets = (await cache.refresh(client)).offsets;
      const total = BigInt(offsets.at(-1) ?? 0);
      const unlockedOuts = offsets[offsets.length - 10];
      for (const h of b.tx_hashes) {
        const tx = parseTransaction(fromHex(txById.get(h)?.as_hex ?? ""));
        const reals: bigint[] = [];
        const decoys: bigint[] = [];
        let ringSize = 0;
        for (const input of tx.vin) {
          assert.equal(input.type, "key");
          if (input.type !== "key") continue;
          let acc = 0n;
          const members = input.keyOffsets.map((o) => (acc += o));
          const real = owned.get(toHex(input.keyImage));
          assert.ok(real !== undefined && members.includes(real), `tx ${h}: the real spend of an input is one of the wallets' outputs`);
          reals.push(real);
          for (const m of members) if (m !== real) decoys.push(m);
          ringSize = members.length;
        }
        const realOuts = (await client.getOutsBin(reals.map((index) => ({ amount: 0n, index })), false)).outs;
        const realOutputs: RealOutput[] = reals.map((g, k) => ({ globalIndex: g, key: realOuts[k].key, mask: realOuts[k].mask, blockHeight: Number(realOuts[k].height) }));
        const t = performance.now();
        const drawn = await pickRings(client, realOutputs, ringSize, { rng, cache, backend: be });
        pickMs += performance.now() - t;
        const mine: bigint[] = [];
        drawn.forEach((r, k) => {
          assert.equal(r.members.length, ringSize);
          assert.equal(r.members[r.realIndex].globalIndex, reals[k]);
          for (const m of r.members) if (m.globalIndex !== reals[k]) mine.push(m.globalIndex);
          const seen = new Set<number>([Number(reals[k])]);
          while (seen.size < ringSize) seen.add(uniformDraw.index(unlockedOuts));
          seen.delete(Number(reals[k]));
          for (const g of seen) uniform.push(Number(total) - g);
        });
        assert.equal(mine.length, decoys.length);
        rings += reals.length;
        for (const [set, idx] of [[theirs, decoys], [ours, mine]] as const) {
          const hs = (await client.getOutsBin(idx.map((index) => ({ amount: 0n, index })), false)).outs;
          idx.forEach((g, k) => {
            set.outputs.push(Number(total - g));
            set.blocks.push(height - Number(hs[k].height));
          });
        }
      }
    }
    for (const h of b.tx_hashes) {
      const r = await nodePath(daemon.rpcUrl, "/send_raw_transaction", { tx_as_hex: txById.get(h)?.as_hex });
      assert.equal(r.status, "OK", `send_raw_transaction ${h}: ${String(r.reason)}`);
    }
    const r = await nodeRpc(daemon.rpcUrl, "submit_block", [b.blob]);
    assert.equal(r.result?.status, "OK", `submit_block ${b.height}`);
  }

  const byOutputs = ksTwoSample(theirs.outputs, ours.outputs, 0.01);
  const byBlocks = ksTwoSample(theirs.blocks, ours.blocks, 0.01);
  const byUniform = ksTwoSample(theirs.outputs, uniform, 0.01);
  const fmt = (k: typeof byOutputs): string => `D = ${k.d.toFixed(4)}, critical value (α = 1%) = ${k.critical.toFixed(4)}, p ≈ ${k.pValue.toFixed(3)}`;
  const median = (xs: number[]): number => [...xs].sort((p, q) => p - q)[xs.length >> 1];
  console.log(`KS over ${rings} rings: wallet2 ${byOutputs.n} decoys, ours ${byOutputs.m} decoys`);
  console.log(`  age in outputs: ${fmt(byOutputs)}; median wallet2 ${median(theirs.outputs)}, ours ${median(ours.outputs)}`);
  console.log(`  age in blocks:  ${fmt(byBlocks)}; median wallet2 ${median(theirs.blocks)}, ours ${median(ours.blocks)}`);
  console.log(`  uniform decoys (power check): ${fmt(byUniform)}`);
  console.log(`  pickRings: ${rings} rings in ${pickMs.toFixed(0)} ms (${(pickMs / rings).toFixed(1)} ms per ring, distribution refresh and get_outs included)`);
  console.log(`  distribution cache: ${cache.stats.full} full download(s), ${cache.stats.incremental} incremental, ${cache.stats.blocksReceived} block counts received`);
  assert.ok(byOutputs.n >= 2000, `at least 2,000 wallet2 decoys (got ${byOutputs.n})`);
  assert.equal(byOutputs.n, byOutputs.m);
  assert.ok(byOutputs.d < byOutputs.critical, `age in outputs: ${fmt(byOutputs)}`);
  assert.ok(byBlocks.d < byBlocks.critical, `age in blocks: ${fmt(byBlocks)}`);
  assert.ok(byUniform.d > byUniform.critical, `uniform decoys must fail the same test: ${fmt(byUniform)}`);

  // the cost of the distribution on this chain: a whole download against an incremental refresh
  // (medians of 15 each)
  const med = (xs: number[]): number => [...xs].sort((p, q) => p - q)[xs.length >> 1];
  const tFull: number[] = [];
  const tInc: number[] = [];
  let fresh = new DistributionCache();
  for (let i = 0; i < 15; i++) {
    fresh = new DistributionCache();
    const t0 = performance.now();
    await fresh.refresh(client);
    tFull.push(performance.now() - t0);
    const t1 = performance.now();
    await fresh.refresh(client);
    tInc.push(performance.now() - t1);
  }
  const fullCounts = fresh.current.offsets.length;
  console.log(
    `  distribution of ${fullCounts} blocks: full download ${med(tFull).toFixed(1)} ms (${fullCounts} counts), ` +
      `incremental refresh ${med(tInc).toFixed(1)} ms (${fresh.stats.blocksReceived - fullCounts} counts)`,
  );
  assert.deepEqual(fresh.current.offsets, (await cache.refresh(client)).offsets, "the incrementally kept distribution equals a fresh download");
  assert.equal(fresh.stats.full, 1);
  assert.equal(fresh.stats.incremental, 1);
});
