import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  checkHash,
  DIFFICULTY_BLOCKS_COUNT,
  DIFFICULTY_WINDOW,
  difficultyWindow,
  hashToBigint,
  nextDifficulty,
  wideDifficulty,
} from "../src/consensus/difficulty.js";
import { recordedBlocks } from "./helpers/chain.js";
import { MONERO_TESTDATA, needPackage } from "./helpers/packages.js";

const DATA = `${MONERO_TESTDATA}/difficulty/data.txt`;

// tests/difficulty/difficulty.cpp: each line is "timestamp difficulty"; the difficulty of block n is
// next_difficulty over the window before it (lag 15 once there are 735 blocks), target 120 s.
function replay(bits: 64 | 128): number {
  const lines = readFileSync(DATA, "utf8").split("\n").filter((l) => l.trim() !== "");
  const timestamps: bigint[] = [];
  const cumulative: bigint[] = [];
  let cum = 0n;
  let n = 0;
  for (const line of lines) {
    const [t, d] = line.trim().split(/\s+/).map((x) => BigInt(x));
    let begin: number;
    let end: number;
    if (n < DIFFICULTY_BLOCKS_COUNT) {
      begin = 0;
      end = Math.min(n, DIFFICULTY_WINDOW);
    } else {
      end = n - 15;
      begin = end - DIFFICULTY_WINDOW;
    }
    assert.deepEqual(difficultyWindow(n), { begin, end });
    const res = nextDifficulty(timestamps.slice(begin, end), cumulative.slice(begin, end), 120, bits);
    assert.equal(res, d, `line ${n + 1}`);
    timestamps.push(t);
    cum += d;
    cumulative.push(cum);
    n++;
  }
  return n;
}

test("Monero's difficulty vectors: every line of data.txt, 64-bit and 128-bit", { skip: needPackage("monero-tests", [DATA]) }, () => {
  assert.equal(replay(128), 1000);
  assert.equal(replay(64), 1000);
});

test("next_difficulty edge cases: short windows give 1, equal timestamps count as a 1 s span, overflow gives 0", () => {
  assert.equal(nextDifficulty([], [], 120), 1n);
  assert.equal(nextDifficulty([5n], [7n], 120), 1n);
  assert.equal(nextDifficulty([10n, 10n], [100n, 300n], 120), 200n * 120n);
  assert.equal(nextDifficulty([0n, 120n], [1n, 2n], 120), 1n);
  assert.equal(nextDifficulty([0n, 1n], [0n, 1n << 62n], 120, 64), 0n);
  assert.equal(nextDifficulty([0n, 1n], [0n, 1n << 62n], 120, 128), (1n << 62n) * 120n);
  assert.equal(nextDifficulty([0n, 1n], [0n, 1n << 122n], 120, 128), 0n);
  assert.throws(() => nextDifficulty([1n], [], 120), RangeError);
});

test("check_hash: hash × difficulty < 2^256, hash read little-endian", () => {
  const h = new Uint8Array(32);
  h[31] = 0x80; // 2^255
  assert.equal(hashToBigint(h), 1n << 255n);
  assert.ok(checkHash(h, 1n));
  assert.ok(!checkHash(h, 2n));
  const zero = new Uint8Array(32);
  assert.ok(checkHash(zero, (1n << 128n) - 1n));
  const ones = new Uint8Array(32).fill(0xff);
  assert.ok(checkHash(ones, 1n));
  assert.ok(!checkHash(ones, 2n));
  const small = new Uint8Array(32);
  small[0] = 3; // 3 × d < 2^256 ⇔ d ≤ (2^256 − 1) / 3
  const max = ((1n << 256n) - 1n) / 3n;
  assert.ok(checkHash(small, max));
  assert.ok(!checkHash(small, max + 1n));
});

test("wide difficulty fields as monerod's headers spell them", () => {
  for (const b of recordedBlocks()) {
    const h = b.header as unknown as Record<string, number | string>;
    const cum = wideDifficulty(BigInt(h.cumulative_difficulty));
    assert.equal(cum.wide, h.wide_cumulative_difficulty);
    assert.equal(Number(cum.top64), h.cumulative_difficulty_top64);
    const d = wideDifficulty(BigInt(h.difficulty));
    assert.equal(d.wide, h.wide_difficulty);
    assert.equal(Number(d.top64), h.difficulty_top64);
  }
  const big = wideDifficulty((5n << 64n) + 7n);
  assert.deepEqual(big, { low: 7n, top64: 5n, wide: "0x50000000000000007" });
  assert.throws(() => wideDifficulty(1n << 128n), RangeError);
});
