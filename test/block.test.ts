import assert from "node:assert/strict";
import { test } from "node:test";
import { FormatError } from "../src/codec/reader.js";
import {
  blockHash,
  blockHashesFromBlob,
  blockHashingBlob,
  parseBlock,
  parseBlockWithMinerTxHash,
  powBlob,
  scanBlock,
  scanBlockHeader,
  scannedMinerTxHash,
  serializeBlock,
  txTreeHash,
} from "../src/protocol/block.js";
import { blockToJson } from "../src/protocol/json.js";
import { parseTransaction } from "../src/protocol/tx.js";
import { txHash } from "../src/protocol/tx-hash.js";
import { txWeight } from "../src/protocol/weight.js";
import { fromHex, recordedBlocks, recordedTxs, toHex } from "./helpers/chain.js";

const blocks = recordedBlocks();

test("the fixture has at least 300 blocks, some with many transactions", () => {
  assert.ok(blocks.length >= 300);
  const counts = new Set(blocks.map((b) => b.tx_hashes.length));
  for (const n of [0, 1, 2, 3, 4, 5, 6]) assert.ok(counts.has(n), `a block with ${n} txs`);
  assert.ok(Math.max(...counts) >= 10);
});

test("serialize(parse(blob)) == blob and parse(serialize(b)) == b for every block", () => {
  for (const rb of blocks) {
    const blob = fromHex(rb.blob);
    const b = parseBlock(blob);
    assert.equal(toHex(serializeBlock(b)), rb.blob, `height ${rb.height}`);
    assert.deepEqual(parseBlock(serializeBlock(b)), b);
  }
});

test("block ids, miner tx ids and tx hashes equal monerod's", () => {
  for (const rb of blocks) {
    const blob = fromHex(rb.blob);
    const b = parseBlock(blob);
    assert.equal(toHex(blockHash(b)), rb.hash, `height ${rb.height}`);
    const fromBlob = blockHashesFromBlob(blob);
    assert.equal(toHex(fromBlob.hash), rb.hash);
    assert.equal(toHex(fromBlob.minerTxHash), rb.miner_tx_hash);
    assert.equal(toHex(txHash(b.minerTx)), rb.miner_tx_hash);
    const withHash = parseBlockWithMinerTxHash(blob);
    assert.equal(toHex(withHash.minerTxHash), rb.miner_tx_hash, `miner tx id from the blob's bytes, height ${rb.height}`);
    assert.deepEqual(withHash.block, b);
    assert.deepEqual(b.txHashes.map(toHex), rb.tx_hashes);
    assert.equal(toHex(fromBlob.hashingBlob), toHex(blockHashingBlob(b)));
    assert.equal(toHex(powBlob(b)), toHex(fromBlob.hashingBlob));
    assert.equal(b.majorVersion, rb.header.major_version);
    assert.equal(b.nonce, rb.header.nonce);
  }
});

test("scanBlockHeader reads what the parse reads, and monerod's reward and miner tx id, for every block", () => {
  for (const rb of blocks) {
    const blob = fromHex(rb.blob);
    const s = scanBlockHeader(blob);
    assert.ok(s, `height ${rb.height}: a usual coinbase is scanned`);
    const { block: b, minerTxHash } = parseBlockWithMinerTxHash(blob);
    assert.deepEqual(
      { major: s.majorVersion, minor: s.minorVersion, timestamp: s.timestamp, prev: toHex(s.prevId), nonce: s.nonce, txs: s.txCount },
      { major: b.majorVersion, minor: b.minorVersion, timestamp: b.timestamp, prev: toHex(b.prevId), nonce: b.nonce, txs: b.txHashes.length },
      `height ${rb.height}`,
    );
    assert.equal(toHex(s.minerTxHash), toHex(minerTxHash));
    assert.equal(toHex(s.minerTxHash), rb.miner_tx_hash);
    assert.equal(s.minerReward, BigInt(rb.header.reward), `height ${rb.height}: get_block_header's reward`);
    const raw = scanBlock(blob);
    assert.ok(raw);
    assert.deepEqual([raw.minerVersion, raw.minerOutputs], [b.minerTx.version, b.minerTx.vout.length], `height ${rb.height}: the coinbase's shape`);
    assert.equal(toHex(scannedMinerTxHash(blob, raw)), rb.miner_tx_hash);
  }
});

test("scanBlockHeader leaves unusual or broken blocks to the parse (undefined, never a throw)", () => {
  const rb = blocks.find((b) => b.tx_hashes.length > 0) ?? blocks[1];
  const blob = fromHex(rb.blob);
  const b = parseBlock(blob);
  // a miner tx whose RingCT type is not Null: the parse reads it as such a tx, the scan does not try
  // its last byte: before the tx id count (one byte below 128 ids) and the ids
  const rctType = blob.length - 1 - 32 * b.txHashes.length - 1;
  const noNull = blob.slice();
  assert.equal(noNull[rctType], 0, "the miner tx's RCTTypeNull byte");
  noNull[rctType] = 5;
  assert.equal(scanBlockHeader(noNull), undefined);
  // truncated, padded, empty
  for (const bad of [blob.subarray(0, blob.length - 1), Uint8Array.from([...blob, 0]), new Uint8Array(0), blob.subarray(0, 50)]) assert.equal(scanBlockHeader(bad), undefined);
});

test("the hashing blob is header ‖ tree root ‖ varint(count) (the PoW input)", () => {
  const rb = blocks.find((x) => x.tx_hashes.length === 5)!;
  const b = parseBlock(fromHex(rb.blob));
  const hb = blockHashingBlob(b);
  const header = fromHex(rb.blob).subarray(0, hb.length - 33);
  assert.equal(toHex(hb.subarray(0, header.length)), toHex(header));
  const ids = [fromHex(rb.miner_tx_hash), ...rb.tx_hashes.map(fromHex)];
  assert.equal(toHex(hb.subarray(header.length, header.length + 32)), toHex(txTreeHash(ids)));
  assert.equal(hb[hb.length - 1], 6);
});

test("json equals monerod's text for every block", () => {
  for (const rb of blocks) assert.equal(blockToJson(parseBlock(fromHex(rb.blob))), rb.json, `height ${rb.height}`);
});

test("block weight = miner tx weight + the weights of its transactions", () => {
  const txs = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
  let checked = 0;
  for (const rb of blocks) {
    const b = parseBlock(fromHex(rb.blob));
    let w = txWeight(b.minerTx);
    let known = true;
    for (const h of rb.tx_hashes) {
      const t = txs.get(h);
      if (!t?.as_hex) {
        known = false;
        break;
      }
      w += txWeight(parseTransaction(fromHex(t.as_hex)));
    }
    if (!known) continue;
    assert.equal(w, rb.header.block_weight, `height ${rb.height}`);
    checked++;
  }
  assert.equal(checked, blocks.length);
});

test("truncated and padded blocks are rejected with a FormatError", () => {
  const rb = blocks.find((x) => x.tx_hashes.length >= 3)!;
  const blob = fromHex(rb.blob);
  for (let len = 0; len < blob.length; len += 5)
    assert.throws(() => parseBlock(blob.subarray(0, len)), FormatError, `length ${len}`);
  const longer = new Uint8Array(blob.length + 1);
  longer.set(blob);
  assert.throws(() => parseBlock(longer), /trailing/);
  // major_version is a u8 varint in Monero: 256 does not fit
  const bad = Uint8Array.from([0x80, 0x02, ...blob.subarray(1)]);
  assert.throws(() => parseBlock(bad), /major_version/);
});
