import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeVarint, encodeVarint, encodeVarintNumber, VarintError, varintSize } from "../src/codec/varint.js";
import { compressDistribution } from "../src/client/messages.js";

const cases: [bigint, string][] = [
  [0n, "00"],
  [1n, "01"],
  [127n, "7f"],
  [128n, "8001"],
  [300n, "ac02"],
  [16383n, "ff7f"],
  [16384n, "808001"],
  [(1n << 64n) - 1n, "ffffffffffffffffff01"],
];

test("known encodings round-trip", () => {
  for (const [v, hex] of cases) {
    assert.equal(Buffer.from(encodeVarint(v)).toString("hex"), hex);
    if (v < 2n ** 53n) assert.equal(Buffer.from(encodeVarintNumber(Number(v))).toString("hex"), hex);
    assert.equal(varintSize(v), hex.length / 2);
    const d = decodeVarint(Buffer.from(`aa${hex}bb`, "hex"), 1);
    assert.equal(d.value, v);
    assert.equal(d.next, 1 + hex.length / 2);
  }
});

test("rejects truncated, overlong and overflowing encodings", () => {
  assert.throws(() => decodeVarint(Buffer.from("80", "hex")), VarintError);
  assert.throws(() => decodeVarint(Buffer.from("8000", "hex")), /redundant/);
  assert.throws(() => decodeVarint(Buffer.from("ffffffffffffffffff02", "hex")), /overflows/);
  assert.throws(() => decodeVarint(Buffer.from("ffffffffffffffffffff01", "hex")), VarintError);
  assert.throws(() => encodeVarint(1n << 64n), RangeError);
  assert.throws(() => encodeVarint(-1), RangeError);
});

test("compressDistribution packs counts as monerod's compress_integer_array: varints one after another, past 2^53 too", () => {
  const xs = [0n, 1n, 127n, 128n, 300n, 16_384n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 1n];
  const packed = compressDistribution(xs);
  assert.deepEqual(Buffer.from(packed), Buffer.concat(xs.map((x) => encodeVarint(x))));
  const back: bigint[] = [];
  for (let k = 0; k < packed.length; ) {
    const { value, next } = decodeVarint(packed, k);
    back.push(value);
    k = next;
  }
  assert.deepEqual(back, xs);
  assert.equal(compressDistribution([]).length, 0);
});
