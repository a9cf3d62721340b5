import assert from "node:assert/strict";
import { test } from "node:test";
import {
  encryptedPaymentIdFromNonce,
  type ExtraField,
  extraAdditionalPubKeys,
  extraNonce,
  extraTxPubKey,
  nonceWithEncryptedPaymentId,
  nonceWithPaymentId,
  parseTxExtra,
  parseTxExtraStrict,
  paymentIdFromNonce,
  serializeTxExtra,
  sortTxExtra,
} from "../src/protocol/extra.js";
import { parseTransaction } from "../src/protocol/tx.js";
import { fromHex, recordedTxs, toHex } from "./helpers/chain.js";

const hex = (s: string) => fromHex(s.replace(/\s+/g, ""));
const K = "11".repeat(32);

test("every recorded tx's extra parses completely and re-serializes byte for byte", () => {
  let additional = 0;
  let encrypted = 0;
  for (const t of recordedTxs()) {
    const tx = parseTransaction(fromHex(t.as_hex || t.pruned_as_hex || t.pruned_hex), { pruned: !t.as_hex });
    const p = parseTxExtra(tx.extra);
    assert.equal(p.error, undefined, t.tx_hash);
    assert.equal(p.processed, tx.extra.length);
    assert.equal(toHex(serializeTxExtra(p.fields)), toHex(tx.extra));
    assert.ok(extraTxPubKey(p.fields), `${t.tx_hash} has a tx public key`);
    // wallets and monerod write extra already sorted
    if (!t.coinbase) assert.equal(toHex(sortTxExtra(tx.extra)), toHex(tx.extra));
    const add = extraAdditionalPubKeys(p.fields);
    if (add.length > 0) {
      assert.equal(add.length, tx.vout.length, "one additional key per output");
      additional++;
    }
    const nonce = extraNonce(p.fields);
    if (t.shape === "integrated") {
      assert.ok(nonce && encryptedPaymentIdFromNonce(nonce), `${t.tx_hash}: integrated → encrypted payment id`);
      encrypted++;
    }
  }
  assert.ok(additional > 0, "subaddress transfers carry additional tx keys");
  assert.ok(encrypted > 0);
});

test("every field type round-trips", () => {
  const fields: ExtraField[] = [
    { type: "pubkey", key: fromHex(K) },
    { type: "additional_pubkeys", keys: [fromHex(K), fromHex("22".repeat(32))] },
    { type: "nonce", nonce: nonceWithPaymentId(fromHex("33".repeat(32))) },
    { type: "merge_mining", depth: 300n, merkleRoot: fromHex("44".repeat(32)) },
    { type: "minergate", data: hex("0102") },
    { type: "padding", size: 4 },
  ];
  const b = serializeTxExtra(fields);
  assert.equal(
    toHex(b),
    `01${K}` + `0402${K}${"22".repeat(32)}` + `0221 00${"33".repeat(32)}`.replace(" ", "") + `0322ac02${"44".repeat(32)}` + "de020102" + "00000000",
  );
  assert.deepEqual(parseTxExtraStrict(b), fields);
  assert.deepEqual(paymentIdFromNonce(nonceWithPaymentId(fromHex("33".repeat(32)))), fromHex("33".repeat(32)));
  assert.deepEqual(encryptedPaymentIdFromNonce(nonceWithEncryptedPaymentId(hex("0102030405060708"))), hex("0102030405060708"));
  assert.equal(paymentIdFromNonce(hex("01") ), undefined);
});

test("Monero's tolerance: fields before a bad one are kept, the error names it", () => {
  // pubkey, then an unknown tag
  const p = parseTxExtra(hex(`01${K}ff0102`));
  assert.equal(p.fields.length, 1);
  assert.equal(toHex(extraTxPubKey(p.fields)!), K);
  assert.equal(p.processed, 33);
  assert.match(p.error!.message, /unknown extra field tag 0xff/);
  // trailing garbage after a nonce whose length runs past the end
  const q = parseTxExtra(hex(`01${K}0210aabb`));
  assert.equal(q.fields.length, 1);
  assert.match(q.error!.message, /extra\[1\]\.nonce/);
  // sort_tx_extra with allow_partial keeps the unreadable tail
  assert.equal(toHex(sortTxExtra(hex(`020100 01${K} ff`.replace(/ /g, "")), true)), `01${K}020100ff`);
  assert.throws(() => sortTxExtra(hex(`01${K}ff`)), /unknown extra field tag/);
});

test("padding and nonce limits", () => {
  assert.deepEqual(parseTxExtraStrict(new Uint8Array(255)), [{ type: "padding", size: 255 }]);
  assert.match(parseTxExtra(new Uint8Array(256)).error!.message, /padding longer than 255/);
  assert.match(parseTxExtra(hex("000001")).error!.message, /not zero/);
  // a nonce may hold 255 bytes, not 256
  assert.equal(parseTxExtra(Uint8Array.from([2, 0xff, 0x01, ...new Uint8Array(255)])).error, undefined);
  assert.match(parseTxExtra(Uint8Array.from([2, 0x80, 0x02, ...new Uint8Array(256)])).error!.message, /exceeds 255/);
  // merge-mining field must be consumed exactly
  assert.match(parseTxExtra(hex(`0322 01${"44".repeat(32)}`.replace(" ", ""))).error!.message, /merge_mining/);
  assert.match(parseTxExtra(hex(`0323 01${"44".repeat(32)}0000`.replace(" ", ""))).error!.message, /trailing/);
  // empty extra has no fields
  assert.deepEqual(parseTxExtra(new Uint8Array(0)), { fields: [], processed: 0 });
});
