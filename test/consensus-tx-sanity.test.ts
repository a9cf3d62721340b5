/**
 * monerod's tx_sanity_check heuristics (cryptonote_core/tx_sanity_check.cpp), as send_raw_transaction
 * applies them: no check for ≤ 10 ring members or under 10,000 mature RingCT outputs; then 80%
 * distinct members and a median member index in the newest 40%.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { txSanityCheck } from "../src/consensus/tx-sanity.js";
import type { Transaction } from "../src/protocol/tx.js";

/** A v2 tx whose inputs reference these absolute RingCT indices (one ring per array). */
function txWithRings(rings: bigint[][]): Transaction {
  const vin = rings.map((abs) => {
    const sorted = [...abs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const keyOffsets = sorted.map((v, i) => (i === 0 ? v : v - sorted[i - 1]));
    return { type: "key" as const, amount: 0n, keyOffsets, keyImage: new Uint8Array(32) };
  });
  return { version: 2, unlockTime: 0n, vin, vout: [], extra: new Uint8Array(0), signatures: [], pruned: false } as unknown as Transaction;
}
const ring = (from: bigint, step: bigint, n = 16): bigint[] => Array.from({ length: n }, (_, i) => from + BigInt(i) * step);

test("tx_sanity_check: thresholds, distinct members, the median of the members", () => {
  const recent = txWithRings([ring(90_000n, 500n)]);
  assert.equal(txSanityCheck(recent, 100_000n), undefined, "16 recent members pass");
  assert.equal(txSanityCheck(txWithRings([ring(10n, 1n)]), 100_000n), "old_ring_members", "old members: median below 60%");
  assert.equal(txSanityCheck(txWithRings([ring(10n, 1n)]), 9_999n), undefined, "under 10,000 mature outputs nothing is checked");
  assert.equal(txSanityCheck(txWithRings([ring(10n, 1n, 10)]), 100_000n), undefined, "10 members or fewer: not checked");
  // two inputs with the same 16 members: 16 distinct of 32 (< 80%)
  assert.equal(txSanityCheck(txWithRings([ring(90_000n, 500n), ring(90_000n, 500n)]), 100_000n), "few_unique_ring_members");
  // median at exactly 60% passes (median < 60% fails); get_mid of the two middle values for an even count
  assert.equal(txSanityCheck(txWithRings([[...ring(50_000n, 1n, 8), ...ring(70_000n, 1n, 8)]]), 100_000n), undefined, "median 60,003 ≥ 60,000");
  assert.equal(txSanityCheck(txWithRings([[...ring(50_000n, 1n, 8), ...ring(59_990n, 1n, 8)]]), 100_000n), "old_ring_members", "median 54,998 < 60,000");
  const coinbase = { ...recent, vin: [{ type: "gen", height: 5n }] } as unknown as Transaction;
  assert.equal(txSanityCheck(coinbase, 100_000n), "coinbase");
});
