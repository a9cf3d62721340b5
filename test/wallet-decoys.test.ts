/**
 * Decoy selection (src/wallet/send): the random draws, the gamma picker's properties on synthetic
 * distributions (never picks outputs of the last 10 blocks, spreads as exp(Gamma(19.28, 1/1.61))
 * seconds back, as wallet2's), tx_sanity_check, and pickRings against an in-process tsmonerod
 * mining a regtest chain: rings of distinct unlocked outputs sorted by index with the real one at
 * `realIndex`, wallet2's 75 candidates per input in one get_outs, monero-wallet-rpc's errors
 * (chain too short, too few outputs for the ring, a real output the node does not confirm).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type NodeApi, NodeClient } from "../src/client/node-client.js";
import { defaultBackend } from "../src/crypto/index.js";
import { MoneroTestRandom } from "../src/crypto/random.js";
import { type Daemon, startDaemon } from "../src/node/daemon.js";
import type { GetOutputsOut } from "../src/protocol/rpc-bin.js";
import { DecoyMessages, DistributionCache, pickRings, type RealOutput, type Ring, saneRings } from "../src/wallet/send/decoys.js";
import { GAMMA_SCALE, GAMMA_SHAPE, GammaPicker, GammaPickerError } from "../src/wallet/send/gamma-picker.js";
import { RandomDraw } from "../src/wallet/send/random-draw.js";
import { WalletError } from "../src/wallet/errors.js";
import { WALLET_FAILURE_CODES } from "../src/wallet/rpc/errors.js";
import { nodeCall, nodePath } from "./helpers/node-rpc.js";

const be = defaultBackend();
const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const seeded = (n: number): MoneroTestRandom => new MoneroTestRandom(new Uint8Array(200).fill(n));

/** Wilson–Hilferty: the p-quantile of Gamma(k, θ) from the standard normal quantile z. */
const gammaQuantile = (z: number, k = GAMMA_SHAPE, theta = GAMMA_SCALE): number => k * theta * (1 - 1 / (9 * k) + z * Math.sqrt(1 / (9 * k))) ** 3;

describe("random draws", () => {
  it("gamma variates have Gamma(19.28, 1/1.61)'s mean and variance; the same seed gives the same stream", () => {
    const d = new RandomDraw(seeded(1));
    const n = 20000;
    const xs = Array.from({ length: n }, () => d.gamma(GAMMA_SHAPE, GAMMA_SCALE));
    const mean = xs.reduce((a, b) => a + b, 0) / n;
    const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
    assert.ok(Math.abs(mean - GAMMA_SHAPE * GAMMA_SCALE) < 0.06, `mean ${mean}, expected ${GAMMA_SHAPE * GAMMA_SCALE}`);
    assert.ok(Math.abs(variance - GAMMA_SHAPE * GAMMA_SCALE ** 2) < 0.4, `variance ${variance}, expected ${GAMMA_SHAPE * GAMMA_SCALE ** 2}`);
    const again = new RandomDraw(seeded(1));
    assert.deepEqual(Array.from({ length: 5 }, () => again.gamma(GAMMA_SHAPE, GAMMA_SCALE)), xs.slice(0, 5));
  });

  it("index(n) stays in [0, n) and is uniform; shuffle permutes", () => {
    const d = new RandomDraw(seeded(2));
    const counts = new Array<number>(7).fill(0);
    for (let i = 0; i < 70000; i++) counts[d.index(7)]++;
    for (const c of counts) assert.ok(Math.abs(c - 10000) < 400, `counts ${counts.join(",")}`);
    const big = 2 ** 40 + 3;
    for (let i = 0; i < 1000; i++) {
      const v = d.index(big);
      assert.ok(Number.isInteger(v) && v >= 0 && v < big);
    }
    assert.throws(() => d.index(0), RangeError);
    const xs = Array.from({ length: 50 }, (_, i) => i);
    const ys = d.shuffle([...xs]);
    assert.notDeepEqual(ys, xs);
    assert.deepEqual([...ys].sort((a, b) => a - b), xs);
  });
});

describe("gamma picker", () => {
  // 300,000 blocks: 1 output each, except every 5th block is empty (0.8 outputs per block)
  const blocks = 300_000;
  const offsets: number[] = [];
  for (let b = 0, sum = 0; b < blocks; b++) {
    if (b % 5 !== 4) sum++;
    offsets.push(sum);
  }

  it("spreads picks as exp(Gamma(19.28, 1/1.61)) seconds back, as wallet2's (quartiles and median)", () => {
    const picker = new GammaPicker(offsets, new RandomDraw(seeded(3)));
    assert.equal(picker.averageOutputTime, 150); // 120 s per block / 0.8 outputs per block, over the last year
    const back: number[] = [];
    let bad = 0;
    for (let i = 0; i < 20000; i++) {
      const g = picker.pick();
      // a bad pick is an age beyond the chain's start: kept as infinitely far back
      if (g === null) bad++;
      back.push(g === null ? Infinity : picker.numRctOutputs - 1 - g);
    }
    back.sort((a, b) => a - b);
    // wallet2 maps t seconds to (t − 1200) / 150 outputs back; picks shorter than 1200 s go to the
    // first 1800 s, below every quartile here, so the quartiles of the picks are those of the gamma
    for (const [p, z] of [[0.25, -0.6745], [0.5, 0], [0.75, 0.6745]] as const) {
      const expected = (Math.exp(gammaQuantile(z)) - 1200) / 150;
      const got = back[Math.floor(p * back.length)];
      assert.ok(Math.abs(got / expected - 1) < 0.08, `quantile ${p}: ${got} outputs back, expected ≈ ${expected.toFixed(0)}`);
    }
    // bad picks here are ages beyond the chain's start (lower_bound never lands on an empty block
    // after a non-empty one): P(exp(G) > 300,000 blocks · 120 s) is a few percent
    assert.ok(bad / 20000 < 0.1, `bad picks ${bad}`);
  });

  it("never picks an output of the last 10 blocks, even when they hold most outputs", () => {
    const crowded = offsets.slice(0, 2000);
    let sum = crowded[crowded.length - 1];
    for (let b = 0; b < 10; b++) crowded.push((sum += 1000));
    const picker = new GammaPicker(crowded, new RandomDraw(seeded(4)));
    assert.equal(picker.numRctOutputs, offsets[1999]);
    let picked = 0;
    for (let i = 0; i < 5000; i++) {
      const g = picker.pick();
      if (g === null) continue;
      picked++;
      assert.ok(g < picker.numRctOutputs, `pick ${g} is in the last 10 blocks (first locked index ${picker.numRctOutputs})`);
    }
    assert.ok(picked > 1000);
  });

  it("refuses a distribution of 10 blocks or fewer, or one without RingCT outputs (wallet2's errors)", () => {
    assert.throws(() => new GammaPicker([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], new RandomDraw(seeded(5))), (e: unknown) => e instanceof GammaPickerError && e.message === "Bad offset calculation");
    assert.throws(() => new GammaPicker(new Array<number>(20).fill(0), new RandomDraw(seeded(5))), (e: unknown) => e instanceof GammaPickerError && e.message === "No rct outputs");
  });
});

describe("tx_sanity_check", () => {
  const ring = (idx: number[]): Ring => ({ members: idx.map((i) => ({ globalIndex: BigInt(i), key: new Uint8Array(32), mask: new Uint8Array(32) })), realIndex: 0 });
  const recent = Array.from({ length: 16 }, (_, i) => 90_000 + i * 100);
  it("passes small chains and recent distinct rings, fails repeated members and an old median", () => {
    assert.equal(saneRings([ring([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])], 9999), true);
    assert.equal(saneRings([ring(recent), ring(recent.map((i) => i + 1))], 100_000), true);
    assert.equal(saneRings([ring(recent), ring(recent)], 100_000), false); // 16 distinct of 32
    assert.equal(saneRings([ring(Array.from({ length: 16 }, (_, i) => i * 1000))], 100_000), false); // median 8,500 < 60,000
  });
});

describe("pickRings on a tsmonerod regtest chain", () => {
  let daemon: Daemon;
  let dir: string;
  let client: NodeClient;
  const mine = (n: number) => nodeCall(client.url, "generateblocks", { amount_of_blocks: BigInt(n), wallet_address: ALICE });
  const outs = async (idx: bigint[]) => (await client.getOutsBin(idx.map((index) => ({ amount: 0n, index })), false)).outs;
  const real = async (g: bigint): Promise<RealOutput> => {
    const [o] = await outs([g]);
    return { globalIndex: g, key: o.key, mask: o.mask, blockHeight: Number(o.height) };
  };
  const rejects = async (p: Promise<unknown>, code: number, message: string): Promise<WalletError> => {
    let err: unknown;
    await p.then(
      () => assert.fail(`expected error ${code} ${message}`),
      (e: unknown) => (err = e),
    );
    assert.ok(err instanceof WalletError, String(err));
    assert.equal(WALLET_FAILURE_CODES[err.kind], code);
    assert.equal(err.message, message);
    assert.ok(err.cause instanceof Error && err.cause.message.length > 20, "the cause says what was wrong");
    return err;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-decoys-"));
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

  it("a chain of 10 blocks or fewer: −4 failed to get output distribution", async () => {
    await mine(7);
    const r = await real(0n);
    const e = await rejects(pickRings(client, [r], 16, { rng: seeded(6) }), -4, DecoyMessages.distribution);
    assert.match((e.cause as Error).message, /Not enough rct outputs/);
  });

  it("fewer unlocked outputs than the ring size: −19 as monero-wallet-rpc words it", async () => {
    await mine(70 - 8); // height 70: coinbase outputs unlock after 60 blocks, about 10 are spendable
    const r = await real(0n);
    const e = await rejects(pickRings(client, [r], 16, { rng: seeded(7) }), -19, "not enough outputs to use Please use sweep_dust.");
    assert.match((e.cause as Error).message, /ring size 16/);
    // a ring size the chain can fill works
    const [ring] = await pickRings(client, [r], 4, { rng: seeded(7) });
    assert.equal(ring.members.length, 4);
  });

  it("rings: distinct unlocked members sorted by index, the real one at realIndex, 75 candidates per input in one get_outs", async () => {
    await mine(200 - 70);
    const asked: GetOutputsOut[][] = [];
    // the real client, recording what is asked of /get_outs.bin
    const spy: NodeApi = Object.assign(Object.create(client) as NodeClient, {
      getOutsBin: (o: GetOutputsOut[], txid?: boolean) => {
        asked.push(o);
        return client.getOutsBin(o, txid);
      },
    });
    const reals = [await real(5n), await real(60n), await real(120n)];
    const cache = new DistributionCache();
    const rings = await pickRings(spy, reals, 16, { rng: seeded(8), cache });
    const offsets = cache.current.offsets;
    const spendable = BigInt(offsets[offsets.length - 10]);
    assert.equal(asked.length, 1);
    assert.equal(asked[0].length, 3 * 75);
    rings.forEach((ring, k) => {
      const idx = ring.members.map((m) => m.globalIndex);
      assert.equal(idx.length, 16);
      assert.equal(new Set(idx).size, 16, "no duplicates");
      assert.deepEqual([...idx].sort((a, b) => (a < b ? -1 : 1)), idx, "ascending");
      const me = ring.members[ring.realIndex];
      assert.equal(me.globalIndex, reals[k].globalIndex);
      assert.equal(hex(me.key), hex(reals[k].key));
      assert.equal(hex(me.mask), hex(reals[k].mask));
      for (const i of idx) assert.ok(i < spendable, `member ${i} is below the first index of the last 10 blocks (${spendable})`);
      const block = asked[0].slice(k * 75, (k + 1) * 75).map((o) => o.index);
      assert.deepEqual([...block].sort((a, b) => (a < b ? -1 : 1)), block, "each input's candidates are sorted");
      assert.ok(block.includes(reals[k].globalIndex), "the real output is among its candidates");
      for (const i of idx) assert.ok(block.includes(i));
    });
    const got = await outs(rings.flatMap((r) => r.members.map((m) => m.globalIndex)));
    assert.ok(got.every((o) => o.unlocked), "every member is unlocked");
    rings.flatMap((r) => r.members).forEach((m, i) => {
      assert.equal(hex(m.key), hex(got[i].key));
      assert.equal(hex(m.mask), hex(got[i].mask));
    });
    // deterministic with the same seed, different with another
    const same = await pickRings(client, reals, 16, { rng: seeded(8), cache });
    assert.deepEqual(same.map((r) => r.members.map((m) => m.globalIndex)), rings.map((r) => r.members.map((m) => m.globalIndex)));
    const other = await pickRings(client, reals, 16, { rng: seeded(9), cache });
    assert.notDeepEqual(other.map((r) => r.members.map((m) => m.globalIndex)), rings.map((r) => r.members.map((m) => m.globalIndex)));
    assert.equal(cache.stats.full, 1, "later transfers refresh the distribution incrementally");
    assert.equal(cache.stats.incremental, 2);
  });

  it("a real output the node does not confirm (other commitment, still locked): −4, the ring is not built", async () => {
    const r = await real(7n);
    const wrongMask = { ...r, mask: Uint8Array.from(r.key) };
    await rejects(pickRings(client, [wrongMask], 16, { rng: seeded(10) }), -4, DecoyMessages.realMissing);
    const info = await client.getInfo();
    const locked = await real(BigInt((await client.getOutputDistributionBin({ amounts: [0n], cumulative: true })).distributions[0].distribution.at(-1) ?? 1n) - 1n);
    assert.ok(locked.blockHeight >= Number(info.height) - 60, "the newest coinbase output is locked");
    await rejects(pickRings(client, [locked], 16, { rng: seeded(10) }), -4, DecoyMessages.realMissing);
  });

  it("ring size 1 needs no node; no outputs, no rings; a bad ring size is refused", async () => {
    const r = await real(9n);
    const [ring] = await pickRings(client, [r], 1);
    assert.equal(ring.realIndex, 0);
    assert.deepEqual(ring.members.map((m) => [m.globalIndex, hex(m.key), hex(m.mask)]), [[9n, hex(r.key), hex(r.mask)]]);
    assert.deepEqual(await pickRings(client, [], 16), []);
    await assert.rejects(pickRings(client, [r], 0), RangeError);
  });

  it("the distribution cache: one request for concurrent refreshes, a full download again after a pop below its overlap", async () => {
    const cache = new DistributionCache();
    const [a, b] = await Promise.all([cache.refresh(client), cache.refresh(client)]);
    assert.equal(a, b);
    assert.deepEqual(cache.stats, { full: 1, incremental: 0, blocksReceived: 200 });
    await cache.refresh(client);
    assert.deepEqual(cache.stats, { full: 1, incremental: 1, blocksReceived: 216 });
    const popped = await nodePath(client.url, "/pop_blocks", { nblocks: 30 });
    assert.equal(popped.status, "OK");
    const after = await cache.refresh(client);
    assert.equal(cache.stats.full, 2, "the chain is now below the overlap: downloaded again");
    assert.equal(after.offsets.length, 170);
    await mine(3);
    const grown = await cache.refresh(client);
    assert.equal(cache.stats.incremental, 2);
    const fresh = await new DistributionCache().refresh(client);
    assert.deepEqual(grown.offsets, fresh.offsets);
  });

  it("a node that cannot be reached: −4 failed to get output distribution, as wallet2's get_rct_distribution", async () => {
    const r = await real(9n);
    const dead = new NodeClient({ url: "http://127.0.0.1:1", retries: 0, timeoutMs: 2000 });
    try {
      await rejects(pickRings(dead, [r], 16, { backend: be }), -4, DecoyMessages.distribution);
    } finally {
      dead.close();
    }
  });
});
