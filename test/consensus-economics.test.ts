/**
 * Emission, penalty, fees and weight scaling on the cases Monero's own unit tests use
 * (tests/unit_tests/block_reward.cpp, fee.cpp, long_term_block_weight.cpp): the regtest chain
 * never leaves the full-reward zone, so these cover the penalty and the median dynamics.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  baseBlockReward,
  blockReward,
  CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V1,
  CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V2,
  CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5,
  dynamicBaseFee,
  FINAL_SUBSIDY_PER_MINUTE,
  feeEstimate2021,
  median,
  MONEY_SUPPLY,
  nextAlreadyGeneratedCoins,
  nextLongTermBlockWeight,
  requiredFee,
  roundMoneyUp,
  weightLimits,
} from "../src/consensus/index.js";

const Z1 = CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V1;

test("block_reward.cpp: emission from already generated coins (version 1)", () => {
  const r = (coins: bigint): bigint | undefined => blockReward(0, Z1 / 2, coins, 1);
  assert.equal(r(0n), 17592186044415n);
  assert.equal(r(17592186044415n), 17592169267200n);
  assert.equal(r(2756434948434199641n), 14963444829249n);
  for (const d of [(2n << 20n) + 1n, 2n << 20n, (2n << 20n) - 1n, (1n << 20n) + 1n, 1n << 20n, (1n << 20n) - 1n]) {
    assert.equal(r(MONEY_SUPPLY - d), FINAL_SUBSIDY_PER_MINUTE);
  }
});

test("block_reward.cpp: penalty between the median (or zone) and twice it, too big beyond", () => {
  const std = blockReward(0, 0, 0n, 1);
  assert.ok(std !== undefined && std > BigInt(Z1));
  const at = (m: number, w: number): bigint | undefined => blockReward(m, w, 0n, 1);
  assert.equal(at(0, Z1 - 1), std);
  assert.equal(at(0, Z1), std);
  const gt = at(0, Z1 + 1);
  assert.ok(gt !== undefined && gt < std);
  const near2 = at(0, 2 * Z1 - 1);
  assert.ok(near2 !== undefined && near2 > 0n && near2 < std);
  assert.equal(at(0, 2 * Z1), 0n);
  assert.equal(at(0, 2 * Z1 + 1), undefined);
  const m = median([3 * Z1, 5 * Z1, 7 * Z1, 11 * Z1, 13 * Z1]);
  assert.equal(m, 7 * Z1);
  assert.equal(at(m, m - 1), std);
  assert.equal(at(m, m), std);
  assert.ok((at(m, m + 1) ?? std) < std);
  assert.equal(at(m, 2 * m), 0n);
  assert.equal(at(m, 2 * m + 1), undefined);
  // the quadratic penalty exactly: reward · (1 − (w/m − 1)²), floor as Monero's 128-bit division
  const base = baseBlockReward(0n, 16);
  const M = 300000n;
  const W = 450000n;
  assert.equal(blockReward(300000, 450000, 0n, 16), (base * ((2n * M - W) * W)) / M / M);
  assert.equal(blockReward(300000, 450000, 0n, 16), (base * 3n) / 4n);
});

test("emission speed: 2^-20 per block before v2 (60 s), 2^-19 from v2 (120 s); tail 0.6 XMR", () => {
  assert.equal(baseBlockReward(0n, 1), MONEY_SUPPLY >> 20n);
  assert.equal(baseBlockReward(0n, 2), MONEY_SUPPLY >> 19n);
  assert.equal(baseBlockReward(MONEY_SUPPLY - 1000n, 16), 600000000000n);
  assert.equal(baseBlockReward(MONEY_SUPPLY - 1000n, 1), 300000000000n);
  assert.equal(nextAlreadyGeneratedCoins(MONEY_SUPPLY - 5n, 600000000000n), MONEY_SUPPLY);
  assert.equal(nextAlreadyGeneratedCoins(5n, 7n), 12n);
});

test("fee.cpp: per-kB dynamic fee at version 3, clamped below the zone, inverse to the median", () => {
  const mask = 10000n;
  const clamp = (f: bigint): bigint => ((f + mask - 1n) / mask) * mask;
  const Z2 = CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V2;
  for (const [reward, fee] of [
    [10000000000000n, 2000000000n],
    [1000000000000n, 200000000n],
    [300000000000n, 60000000n],
  ] as const) {
    assert.equal(dynamicBaseFee(reward, Z2, 3), clamp(fee));
    assert.equal(dynamicBaseFee(reward, Z2 / 2, 3), clamp(fee));
    assert.equal(dynamicBaseFee(reward, Z2 / 100, 3), clamp(fee));
    assert.equal(dynamicBaseFee(reward, 1, 3), fee);
    for (const k of [2n, 10n, 1000n, 20000n]) assert.equal(dynamicBaseFee(reward, Z2 * Number(k), 3), clamp(fee / k));
  }
});

test("per-byte fee: HF 8–14 is 0.2·R·3000/(300000·M); HF 15+ is 0.95·R·3000/M²", () => {
  const R = 600000000000n;
  assert.equal(dynamicBaseFee(R, 300000, 14), (R * 3000n) / 300000n / 300000n / 5n);
  assert.equal(dynamicBaseFee(R, 600000, 14), (R * 3000n) / 600000n / 300000n / 5n);
  const lo = (R * 3000n) / 300000n / 300000n;
  assert.equal(dynamicBaseFee(R, 300000, 16), lo - lo / 20n);
  assert.equal(dynamicBaseFee(R, 1000, 16), lo - lo / 20n, "median clamped to the zone");
  assert.equal(dynamicBaseFee(1n, 300000, 16), 1n, "never 0 (v0.18.2.2+)");
  // check_fee rounds weight × per-byte up to 10^4 atomic units
  const ctx = { version: 16, effectiveMedian: 300000, longTermEffectiveMedian: 300000, alreadyGeneratedCoins: MONEY_SUPPLY };
  const perByte = dynamicBaseFee(600000000000n, 300000, 16);
  assert.equal(requiredFee(1501, ctx), ((1501n * perByte + 9999n) / 10000n) * 10000n);
  // below v4 the fee is the fixed 0.002 XMR per started kB
  assert.equal(requiredFee(1025, { ...ctx, version: 3 }), 2n * 2000000000n);
});

test("round_money_up and the 2021 fee levels", () => {
  assert.equal(roundMoneyUp(0n, 2), 0n);
  assert.equal(roundMoneyUp(99n, 2), 99n);
  assert.equal(roundMoneyUp(1200000n, 2), 1200000n);
  assert.equal(roundMoneyUp(1200001n, 2), 1300000n);
  assert.equal(roundMoneyUp(9900001n, 2), 10000000n);
  assert.equal(roundMoneyUp(123n, 1), 200n);
  // the recorded regtest chain's answer (test/fixtures/consensus/chain-state.json): reward ≈ 35.18 XMR
  assert.deepEqual(feeEstimate2021(35184338534400n, 300000, 300000), [1200000n, 4700000n, 19000000n, 240000000n]);
  // a large short-term median (Mnw) changes only the highest level, which falls to its floor 4·Fm
  const [l0, l1, l2, l3] = feeEstimate2021(600000000000n, 30000000, 300000);
  const [m0, m1, m2, m3] = feeEstimate2021(600000000000n, 300000, 300000);
  assert.deepEqual([l0, l1, l2], [m0, m1, m2]);
  const fm = (16n * 600000000000n * 3000n) / (300000n * 300000n);
  assert.equal(l3, roundMoneyUp(4n * fm, 2));
  assert.ok(l3 < m3);
});

/** Adds blocks to a simulated chain as long_term_block_weight.cpp does (fakechain v1 then `hf`). */
class Sim {
  readonly weights: number[] = [];
  readonly longTerm: number[] = [];
  constructor(
    readonly hf: number,
    readonly window: number,
  ) {}
  limits(): ReturnType<typeof weightLimits> {
    return weightLimits(this.weights.slice(-100), this.longTerm.slice(-this.window), this.hf, this.window);
  }
  add(w: number): void {
    const ltw = nextLongTermBlockWeight(w, this.longTerm.slice(-this.window), this.hf, this.window);
    this.weights.push(w);
    this.longTerm.push(ltw);
  }
}

test("long_term_block_weight.cpp: identical before the fork, ceiling at 30000000, slow growth and spikes", () => {
  const W = 5000;
  const before = new Sim(9, W);
  for (let h = 0; h < 2 * W; h++) before.add(h % 1000 === 0 ? 1_000_000 : 300000 + (h % 7) * 1000);
  assert.deepEqual(before.longTerm, before.weights);
  // empty_short: a chain of just the genesis block
  const genesisOnly = new Sim(10, W);
  genesisOnly.add(80);
  assert.equal(genesisOnly.limits().effectiveMedian, CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5);
  assert.equal(genesisOnly.limits().limit, 2 * CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5);

  const ceiling = new Sim(10, W);
  for (let h = 0; h < W + W / 2 - 1; h++) ceiling.add(h < W ? CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5 : ceiling.limits().limit);
  assert.equal(ceiling.limits().effectiveMedian, 15000000);
  assert.equal(ceiling.limits().limit, 30000000);

  const growth = new Sim(10, W);
  for (let h = 0; h < W; h++) growth.add(300000);
  assert.equal(growth.limits().longTermEffectiveMedian, 300000);
  const year = (365 * 720 * W) / 100000;
  for (let h = 0; h < year; h++) growth.add(Math.trunc(300000 + (h / year) * 30000));
  const afterYear = growth.limits().longTermEffectiveMedian;
  assert.ok(afterYear > 300000 * 1.07 && afterYear < 300000 * 1.09, `${afterYear}`);
  const weeks = (21 * 720 * W) / 100000;
  for (let h = 0; h < weeks; h++) growth.add(growth.limits().limit);
  const afterSpike = growth.limits().longTermEffectiveMedian;
  assert.ok(afterSpike > 300000 * 1.07 && afterSpike < 300000 * 1.09, `${afterSpike}`);
  for (let h = 0; h < weeks; h++) growth.add(Math.trunc(growth.limits().effectiveMedian * 0.25));
  const afterDrop = growth.limits().longTermEffectiveMedian;
  assert.ok(afterDrop > 300000 * 1.07 && afterDrop < 300000 * 1.09, `${afterDrop}`);
});

test("HF 15+ long-term weight is bounded to [median/1.7, 1.7·median]; HF 10–14 to [0, 1.4·median]", () => {
  const lt = new Array<number>(1000).fill(300000);
  assert.equal(nextLongTermBlockWeight(85, lt, 16), 176470);
  assert.equal(nextLongTermBlockWeight(85, lt, 14), 85);
  assert.equal(nextLongTermBlockWeight(10_000_000, lt, 16), 510000);
  assert.equal(nextLongTermBlockWeight(10_000_000, lt, 14), 420000);
  assert.equal(nextLongTermBlockWeight(10_000_000, lt, 9), 10_000_000);
});
