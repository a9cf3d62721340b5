import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { BASE58_ALPHABET, Base58Error, base58Decode, base58Encode, base58EncodedLength } from "../src/codec/base58.js";

const fixtures = new URL("../../test/fixtures/wallet-keys/", import.meta.url);
const addresses = JSON.parse(readFileSync(new URL("addresses.json", fixtures), "utf8")) as {
  samples: Record<string, Record<string, string>>;
};

test("block sizes: n bytes take 0, 2, 3, 5, 6, 7, 9, 10, 11 characters", () => {
  const sizes = [0, 2, 3, 5, 6, 7, 9, 10, 11];
  for (let n = 0; n <= 8; n++) {
    assert.equal(base58Encode(new Uint8Array(n)).length, sizes[n]);
    assert.equal(base58EncodedLength(n), sizes[n]);
  }
  assert.equal(base58Encode(new Uint8Array(8)), "11111111111");
  assert.equal(base58Encode(Uint8Array.of(0xff)), "5Q");
  assert.equal(base58Encode(new Uint8Array(8).fill(0xff)), "jpXCZedGfVQ");
});

test("round-trips every length up to 80 bytes on pseudo-random data", () => {
  let x = 0x12345678;
  for (let n = 0; n <= 80; n++) {
    const data = new Uint8Array(n).map(() => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x >>> 24;
    });
    const enc = base58Encode(data);
    assert.equal(enc.length, base58EncodedLength(n));
    assert.deepEqual(base58Decode(enc), data);
  }
});

test("decodes and re-encodes real addresses of all three networks byte for byte", () => {
  let n = 0;
  for (const net of Object.values(addresses.samples)) {
    for (const addr of Object.values(net)) {
      assert.equal(base58Encode(base58Decode(addr)), addr);
      n++;
    }
  }
  assert.ok(n >= 12);
});

test("refuses characters outside the alphabet, impossible lengths and overflowing blocks, saying where", () => {
  for (const c of ["0", "O", "I", "l", " ", "+", "é"]) {
    assert.ok(!BASE58_ALPHABET.includes(c));
    assert.throws(
      () => base58Decode(`11${c}11111111`),
      (e: unknown) => e instanceof Base58Error && e.reason === "character" && e.position === 2 && e.message.includes("position 2"),
    );
  }
  for (const len of [1, 4, 8, 12, 15, 19]) {
    assert.throws(() => base58Decode("2".repeat(len)), (e: unknown) => e instanceof Base58Error && e.reason === "length");
  }
  // 11 characters hold up to 58^11 − 1 > 2^64 − 1; "zzzzzzzzzzz" overflows 8 bytes, "5R" overflows one.
  assert.throws(() => base58Decode("zzzzzzzzzzz"), (e: unknown) => e instanceof Base58Error && e.reason === "overflow" && e.position === 0);
  assert.throws(() => base58Decode("111111111115R"), (e: unknown) => e instanceof Base58Error && e.reason === "overflow" && e.position === 11);
  assert.deepEqual(base58Decode("5Q"), Uint8Array.of(0xff));
  assert.deepEqual(base58Decode(""), new Uint8Array(0));
});
