import assert from "node:assert/strict";
import { test } from "node:test";
import { FormatError } from "../src/codec/reader.js";
import { txToJson } from "../src/protocol/json.js";
import { RCT_TYPE } from "../src/protocol/rct.js";
import {
  parseTransaction,
  pruneTransaction,
  serializeRctPrunable,
  serializeTransaction,
  type Transaction,
} from "../src/protocol/tx.js";
import { txHash, txHashesFromBlob, txPrefixHash, txPrunableHash } from "../src/protocol/tx-hash.js";
import { prunedTxWeight, txWeight } from "../src/protocol/weight.js";
import { fromHex, recordedTxs, toHex } from "./helpers/chain.js";

const txs = recordedTxs();
// monerod hands out coinbase txs (no prunable data) only in their pruned form, which is the whole tx
const fullHex = (t: (typeof txs)[number]) => t.as_hex || (t.coinbase ? t.pruned_as_hex || t.pruned_hex : "");
const full = txs.filter((t) => fullHex(t) !== "");

test("the fixture covers every shape the issue asks for", () => {
  const shapes = new Set(txs.map((t) => t.shape));
  for (const s of ["coinbase", "subaddress", "subaddress-multi", "integrated", "sweep_all", "unlock-time"]) assert.ok(shapes.has(s), s);
  const outs = new Set(full.map((t) => parseTransaction(fromHex(fullHex(t))).vout.length));
  for (let n = 1; n <= 16; n++) assert.ok(outs.has(n), `a tx with ${n} outputs`);
  const maxIn = Math.max(...full.map((t) => parseTransaction(fromHex(fullHex(t))).vin.length));
  assert.ok(maxIn >= 30, `sweep_all with many inputs (max ${maxIn})`);
  assert.ok(txs.filter((t) => !t.coinbase).length >= 100);
});

test("serialize(parse(hex)) == hex for every recorded transaction, full and pruned", () => {
  for (const t of txs) {
    if (t.as_hex) {
      const tx = parseTransaction(fromHex(t.as_hex));
      assert.equal(toHex(serializeTransaction(tx)), t.as_hex, t.tx_hash);
      assert.equal(toHex(serializeTransaction(pruneTransaction(tx))), t.pruned_as_hex || t.pruned_hex, `${t.tx_hash} pruned`);
      if (tx.rct && tx.rct.type !== RCT_TYPE.Null) assert.equal(toHex(serializeRctPrunable(tx)), t.prunable_as_hex);
    }
    const prunedHex = t.pruned_as_hex || t.pruned_hex;
    const p = parseTransaction(fromHex(prunedHex), { pruned: true });
    assert.equal(toHex(serializeTransaction(p)), prunedHex, `${t.tx_hash} pruned blob`);
    assert.deepEqual(parseTransaction(serializeTransaction(p), { pruned: true }), p);
  }
});

test("parse(serialize(x)) == x", () => {
  for (const t of full) {
    const tx = parseTransaction(fromHex(fullHex(t)));
    assert.deepEqual(parseTransaction(serializeTransaction(tx)), tx);
  }
});

test("tx ids, prunable hashes and weights equal monerod's", () => {
  let weighed = 0;
  const keccakEmpty = "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";
  for (const t of full) {
    const blob = fromHex(fullHex(t));
    const tx = parseTransaction(blob);
    assert.equal(toHex(txHash(tx)), t.tx_hash);
    const fromBlob = txHashesFromBlob(blob);
    assert.equal(toHex(fromBlob.hash), t.tx_hash);
    assert.equal(toHex(fromBlob.prefixHash), toHex(txPrefixHash(tx)));
    if (tx.version === 2 && t.coinbase) {
      // the tx id uses zeros as the prunable hash of RCTTypeNull, but monerod reports keccak("")
      assert.equal(toHex(txPrunableHash(tx)), "00".repeat(32));
      assert.equal(t.prunable_hash, keccakEmpty);
    } else if (tx.version === 2) {
      assert.equal(toHex(txPrunableHash(tx)), t.prunable_hash);
      // a pruned tx hashes with the prunable hash monerod reports
      const p = parseTransaction(fromHex(t.pruned_as_hex), { pruned: true });
      assert.equal(toHex(txHash(p, undefined, fromHex(t.prunable_hash))), t.tx_hash);
    }
    if (t.weight !== undefined) {
      assert.equal(t.blob_size, blob.length);
      assert.equal(txWeight(tx), t.weight, `${t.tx_hash} (${t.shape})`);
      if (tx.rct && tx.rct.type >= 4) assert.equal(prunedTxWeight(pruneTransaction(tx)), t.weight, `${t.tx_hash} pruned weight`);
      weighed++;
    }
  }
  assert.ok(weighed >= 100, `weights checked: ${weighed}`);
});

test("as_json equals monerod's text, full and pruned", () => {
  for (const t of txs) {
    // for coinbase txs monerod's as_json is the pruned form
    if (t.as_hex) assert.equal(txToJson(parseTransaction(fromHex(t.as_hex))), t.as_json, t.tx_hash);
    const p = parseTransaction(fromHex(t.pruned_as_hex || t.pruned_hex), { pruned: true });
    if (!t.as_hex) assert.equal(txToJson(p), t.as_json, `${t.tx_hash} coinbase`);
    assert.equal(txToJson(p), t.pruned_as_json, `${t.tx_hash} pruned`);
  }
});

test("truncations of a real transaction are rejected with a FormatError naming the field", () => {
  const t = full.find((x) => x.shape === "transfer-3dest")!;
  const blob = fromHex(t.as_hex);
  for (let len = 0; len < blob.length; len += 7) {
    assert.throws(
      () => parseTransaction(blob.subarray(0, len)),
      (e: unknown) => e instanceof FormatError && /^tx/.test(e.what),
    );
  }
  const trailing = new Uint8Array(blob.length + 1);
  trailing.set(blob);
  assert.throws(() => parseTransaction(trailing), /trailing/);
});

test("synthetic RingCT types 1-5 round-trip (serializer ↔ parser)", () => {
  const k = (n: number) => new Uint8Array(32).fill(n);
  const base = (type: number, mixin: number, nin: number, nout: number): Transaction => ({
    version: 2,
    unlockTime: 0n,
    vin: Array.from({ length: nin }, (_, i) => ({
      type: "key" as const,
      amount: 0n,
      keyOffsets: Array.from({ length: mixin + 1 }, (_, j) => BigInt(j + 1)),
      keyImage: k(i + 1),
    })),
    vout: Array.from({ length: nout }, (_, i) => ({ amount: 0n, target: { type: "key" as const, key: k(50 + i) } })),
    extra: Uint8Array.of(1, ...k(9)),
    signatures: [],
    pruned: false,
    rct: {
      type,
      fee: 123456789n,
      pseudoOuts: type === 2 ? Array.from({ length: nin }, (_, i) => k(70 + i)) : [],
      ecdhInfo: Array.from({ length: nout }, (_, i) =>
        type >= 4 ? { amount: new Uint8Array(8).fill(i) } : { mask: k(80 + i), amount: k(90 + i) },
      ),
      outPk: Array.from({ length: nout }, (_, i) => k(100 + i)),
      prunable: {
        rangeSigs:
          type <= 2 ? Array.from({ length: nout }, () => ({ asig: new Uint8Array(4128).fill(3), Ci: new Uint8Array(2048).fill(4) })) : [],
        bulletproofs:
          type >= 3 && type <= 5
            ? [{ A: k(1), S: k(2), T1: k(3), T2: k(4), taux: k(5), mu: k(6), L: Array(7).fill(k(7)), R: Array(7).fill(k(8)), a: k(9), b: k(10), t: k(11) }]
            : [],
        bulletproofsPlus: [],
        MGs:
          type <= 4
            ? Array.from({ length: type === 1 ? 1 : nin }, () => ({
                ss: Array.from({ length: mixin + 1 }, () => Array.from({ length: type === 1 ? nin + 1 : 2 }, () => k(12))),
                cc: k(13),
              }))
            : [],
        CLSAGs: type === 5 ? Array.from({ length: nin }, () => ({ s: Array.from({ length: mixin + 1 }, () => k(14)), c1: k(15), D: k(16) })) : [],
        pseudoOuts: type >= 3 ? Array.from({ length: nin }, (_, i) => k(110 + i)) : [],
      },
    },
  });
  for (const type of [1, 2, 3, 4, 5]) {
    const tx = base(type, 10, 2, 2);
    const blob = serializeTransaction(tx);
    assert.deepEqual(parseTransaction(blob), tx, `type ${type}`);
    const j = txToJson(tx);
    assert.ok(j.includes(`"type": ${type}`));
    // the JSON text parses as JSON (Monero's text is valid JSON for these shapes)
    assert.equal(JSON.parse(j).rct_signatures.txnFee, 123456789);
    if (type >= 3) assert.equal(txWeight(tx), blob.length, "2 outputs: no clawback");
  }
  // type 3 writes the proof count as a raw u32
  const t3 = serializeTransaction(base(3, 1, 1, 2));
  const p3 = parseTransaction(t3);
  assert.equal(p3.rct?.prunable?.bulletproofs.length, 1);
});

test("synthetic v1 transaction with ring signatures: round trip, id = keccak(blob), JSON signatures as Monero prints them", () => {
  const k = (n: number) => new Uint8Array(32).fill(n);
  const sig = (n: number) => new Uint8Array(64).fill(n);
  const tx: Transaction = {
    version: 1,
    unlockTime: 0n,
    vin: [
      { type: "key", amount: 10000000000n, keyOffsets: [5n, 7n], keyImage: k(1) },
      { type: "key", amount: 2n ** 63n, keyOffsets: [9n], keyImage: k(2) },
    ],
    vout: [{ amount: 18446744073709551615n, target: { type: "key", key: k(3) } }],
    extra: Uint8Array.of(1, ...k(4)),
    signatures: [[sig(0xaa), sig(0xbb)], [sig(0xcc)]],
    pruned: false,
  };
  const blob = serializeTransaction(tx);
  assert.deepEqual(parseTransaction(blob), tx);
  const fromBlob = txHashesFromBlob(blob);
  assert.equal(toHex(fromBlob.hash), toHex(txHash(tx)));
  const j = txToJson(tx);
  // one string per input, its signatures concatenated; u64 printed exactly
  assert.ok(j.endsWith(`"signatures": [ "${"aa".repeat(64)}${"bb".repeat(64)}", "${"cc".repeat(64)}"]\n}`), j.slice(-400));
  assert.ok(j.includes(`"amount": 18446744073709551615`));
  assert.ok(j.includes(`"amount": 9223372036854775808`));
  // pruned v1: no signatures in the blob, and none in monerod's pruned JSON
  const p = pruneTransaction(tx);
  assert.equal(serializeTransaction(p).length, blob.length - 3 * 64);
  assert.ok(!txToJson(p).includes("signatures"));
  assert.throws(() => txHash(p), /pruned v1/);
});
