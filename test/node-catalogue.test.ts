/**
 * One test per broken consensus rule, through the node's submitBlock / submitTransaction on a real
 * store holding the recorded regtest chain (test/fixtures/chain) up to height 327, with the
 * recorded txs admissible there in the pool. Each bad block or tx is rejected with monerod's
 * status and flags, and the chain (height, top, key images, outputs), the alt blocks and the pool
 * are unchanged afterwards.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type BlockErrorCode, checkHash, nextBlockContext, type TxErrorCode } from "../src/consensus/index.js";
import { defaultBackend } from "../src/crypto/index.js";
import { type Node, openNode, type OpenNodeOptions } from "../src/node/chain/index.js";
import type { BlockSubmitResult } from "../src/node/core.js";
import { decodeAddress } from "../src/protocol/address.js";
import { type Block, blockHashingBlob, serializeBlock } from "../src/protocol/block.js";
import { type Bytes, parseTransaction, serializeTransaction, type Transaction } from "../src/protocol/tx.js";
import { txHash } from "../src/protocol/tx-hash.js";
import { blockOn, buildSpend, mineTo, newKeys, ownedCoinbase } from "./helpers/node-spend.js";
import { needPackage } from "./helpers/packages.js";
import { fromHex, recordedByHeight, replayRecorded, toHex } from "./helpers/chain.js";

const backend = defaultBackend();
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-node-cat-"));
  dirs.push(d);
  return d;
};
const { blocks, tsOf, blobOf } = recordedByHeight();
const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const keys = decodeAddress(ALICE, "regtest");
const BASE = 327;
const variants = (
  JSON.parse(readFileSync(new URL("../../test/fixtures/consensus/chain-state.json", import.meta.url), "utf8")) as { tx_verdicts: { name: string; blob: string }[] }
).tx_verdicts;
const variant = (name: string): Uint8Array => fromHex(variants.find((v) => v.name === name)?.blob ?? "");

let clock = 0;
let baseDir = "";
let node: Node;
const pending: string[] = [];
const opts = (dataDir: string, extra: Partial<OpenNodeOptions> = {}): OpenNodeOptions => ({
  dataDir,
  network: "regtest",
  fixedDifficulty: 1n,
  syncMode: "fast",
  now: () => clock,
  verifyThreads: 1,
  ...extra,
});

before(async () => {
  baseDir = tmp();
  const n = await openNode(opts(baseDir));
  try {
    await replayRecorded(n, 1, BASE, (t) => {
      clock = t;
    });
  } finally {
    await n.close();
  }
  const d = tmp();
  cpSync(baseDir, d, { recursive: true });
  clock = tsOf(BASE - 1) + 30;
  node = await openNode(opts(d));
  for (const id of blocks.slice(BASE).flatMap((b) => b.tx_hashes)) if ((await node.submitTransaction(blobOf(id))).ok) pending.push(id);
  assert.ok(pending.length >= 8);
});
after(async () => {
  await node.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function snapshot(n: Node): string {
  return JSON.stringify({
    height: n.store.height(),
    top: toHex(n.store.topHash()),
    keyImages: n.store.keyImageCount(),
    outputs: n.store.outputCount(0n).toString(),
    txs: n.store.txCount(),
    alt: n.altBlockCount(),
    pool: n.pool.entries().map((e) => toHex(e.id)),
  });
}

/** A block on the node's tip with `txBlobs` and an exact coinbase, then `mutate` on it. */
function blockWith(n: Node, txBlobs: Bytes[], mutate: (b: Block) => void = () => undefined): Bytes {
  const b = blockOn(n, n.store.topHash(), txBlobs, keys, BigInt(clock), backend);
  mutate(b);
  return serializeBlock(b);
}

async function expectRejected(
  submit: () => Promise<BlockSubmitResult>,
  want: { flags: string[]; code?: BlockErrorCode; txCode?: TxErrorCode },
): Promise<BlockSubmitResult> {
  const before = snapshot(node);
  const r = await submit();
  assert.equal(r.status, "rejected", r.message);
  assert.deepEqual(r.flags, want.flags, r.message);
  if (want.code) assert.equal(r.error?.code, want.code, r.message);
  if (want.txCode) assert.equal(r.error?.txError?.code, want.txCode, r.message);
  assert.equal(snapshot(node), before, "chain, alt blocks and pool unchanged");
  return r;
}

const flip = (b: Bytes, i = 0): Bytes => {
  const c = b.slice();
  c[i] ^= 1;
  return c;
};

/** `blob` with one byte of the extra changed: another id, the same key images, broken signatures. */
function otherExtra(blob: Bytes): Bytes {
  const tx = parseTransaction(blob);
  const extra = tx.extra.slice();
  extra[extra.length - 1] ^= 1;
  return serializeTransaction({ ...tx, extra });
}

function tamperRct(blob: Bytes, f: (tx: Transaction) => void): Bytes {
  const tx = parseTransaction(blob);
  f(tx);
  return serializeTransaction(tx);
}

test("sanity: a block of the pool's txs built the same way is accepted (then popped)", async () => {
  clock = tsOf(BASE - 1) + 40;
  const before = snapshot(node);
  const blob = blockWith(node, pending.map(blobOf));
  const r = await node.submitBlock(blob);
  assert.equal(r.status, "added", r.message);
  assert.equal(node.pool.size(), 0);
  await node.popBlocks(1);
  assert.equal(node.store.height(), BASE);
  assert.deepEqual(new Set(node.pool.entries().map((e) => toHex(e.id))), new Set(pending));
  // the pool's order now is the pop's order; compare everything else
  const a = JSON.parse(before) as Record<string, unknown>;
  const b = JSON.parse(snapshot(node)) as Record<string, unknown>;
  delete a.pool;
  delete b.pool;
  assert.deepEqual(b, a);
});

test("double spend in a block: a real tx whose key images the chain already spent", async () => {
  const mined = blocks[315].tx_hashes[0];
  await expectRejected(() => node.submitBlock(blockWith(node, [blobOf(mined)]), { txBlobs: [blobOf(mined)] }), {
    flags: ["verification_failed"],
    code: "BAD_TX",
    txCode: "KEY_IMAGE_SPENT",
  });
});

test("double spend within one block: two txs with the same key images", async () => {
  const a = blobOf(pending[0]);
  const b = otherExtra(a);
  await expectRejected(() => node.submitBlock(blockWith(node, [a, b]), { txBlobs: [b] }), { flags: ["verification_failed"], code: "BAD_TX", txCode: "KEY_IMAGE_SPENT" });
});

test("double spend against the pool: double_spend only, the pool keeps its tx", async () => {
  const before = snapshot(node);
  const r = await node.submitTransaction(otherExtra(blobOf(pending[1])));
  assert.equal(r.ok, false);
  assert.deepEqual(r.flags, ["double_spend"]);
  assert.equal(snapshot(node), before);
});

test("bad CLSAG: one scalar changed", async () => {
  const bad = tamperRct(blobOf(pending[0]), (tx) => {
    const c = tx.rct?.prunable?.CLSAGs[0];
    assert.ok(c);
    c.s[3] = flip(c.s[3]);
  });
  await expectRejected(() => node.submitBlock(blockWith(node, [bad]), { txBlobs: [bad] }), { flags: ["verification_failed"], code: "BAD_TX", txCode: "INVALID_SIGNATURES" });
  // to the pool, its key images collide with the original first (monerod checks that before the signatures)
  const r = await node.submitTransaction(bad);
  assert.equal(r.ok, false);
  assert.deepEqual(r.flags, ["double_spend"]);
});

test("bad BP+: one proof field changed", async () => {
  const bad = tamperRct(blobOf(pending[0]), (tx) => {
    const p = tx.rct?.prunable?.bulletproofsPlus[0];
    assert.ok(p);
    p.r1 = flip(p.r1);
  });
  await expectRejected(() => node.submitBlock(blockWith(node, [bad]), { txBlobs: [bad] }), { flags: ["verification_failed"], code: "BAD_TX", txCode: "INVALID_SIGNATURES" });
  const r = await node.submitTransaction(bad);
  assert.equal(r.ok, false);
  assert.deepEqual(r.flags, [], "monerod sets no flag when ver_rct_semantics_simple fails");
});

test("wrong miner reward: one piconero too much, one too little", async () => {
  await expectRejected(() => node.submitBlock(blockWith(node, [], (b) => (b.minerTx.vout[0].amount += 1n))), { flags: ["verification_failed"], code: "REWARD_TOO_HIGH" });
  await expectRejected(() => node.submitBlock(blockWith(node, [], (b) => (b.minerTx.vout[0].amount -= 1n))), { flags: ["verification_failed"], code: "REWARD_NOT_EXACT" });
});

test("timestamp below the median of the last 60 blocks", async () => {
  const ts = nextBlockContext(node.store).recentTimestamps.slice().sort((a, b) => (a < b ? -1 : 1));
  const median = ts[Math.floor(ts.length / 2)];
  await expectRejected(() => node.submitBlock(blockWith(node, [], (b) => (b.timestamp = median - 1n))), { flags: ["verification_failed"], code: "TIMESTAMP_TOO_OLD" });
});

test("timestamp more than 2 hours ahead", async () => {
  await expectRejected(() => node.submitBlock(blockWith(node, [], (b) => (b.timestamp = BigInt(clock + 7200 + 1)))), { flags: ["verification_failed"], code: "TIMESTAMP_IN_FUTURE" });
});

test("ring size 15 and 17 (monerod's recorded variants, in a block)", async () => {
  for (const name of ["ring-15", "ring-17"]) {
    const bad = variant(name);
    await expectRejected(() => node.submitBlock(blockWith(node, [bad]), { txBlobs: [bad] }), { flags: ["verification_failed"], code: "BAD_TX", txCode: "BAD_RING_SIZE" });
  }
});

test("non-canonical output key: in the coinbase and in a tx", async () => {
  const notAPoint = new Uint8Array(32).fill(0xff);
  notAPoint[31] = 0x7f;
  assert.equal(backend.pointCheck(notAPoint), false);
  await expectRejected(
    () =>
      node.submitBlock(
        blockWith(node, [], (b) => {
          const o = b.minerTx.vout[0].target;
          assert.equal(o.type, "tagged_key");
          if (o.type === "tagged_key") o.key = notAPoint;
        }),
      ),
    { flags: ["verification_failed"], code: "MINER_TX_OUTPUT_KEY" },
  );
  const bad = variant("bad-output-key");
  await expectRejected(() => node.submitBlock(blockWith(node, [bad]), { txBlobs: [bad] }), { flags: ["verification_failed"], code: "BAD_TX", txCode: "BAD_OUTPUT_KEY" });
});

test("oversized block: a coinbase padded beyond the weight limit", async () => {
  const limit = nextBlockContext(node.store).limits.limit;
  await expectRejected(
    () =>
      node.submitBlock(
        blockWith(node, [], (b) => {
          const extra = new Uint8Array(b.minerTx.extra.length + limit);
          extra.set(b.minerTx.extra);
          b.minerTx.extra = extra;
        }),
      ),
    { flags: ["verification_failed"], code: "TOO_HEAVY" },
  );
});

test("missing txs, orphan, duplicate tx, wrong version, wrong coinbase height", async () => {
  const unknown = blobOf(pending[0]);
  const withUnknown = blockWith(node, [otherExtra(unknown)]);
  await expectRejected(() => node.submitBlock(withUnknown), { flags: ["missing_txs"], code: "MISSING_TX" });
  await expectRejected(() => node.submitBlock(blockWith(node, [], (b) => (b.prevId = new Uint8Array(32).fill(9)))), { flags: ["marked_as_orphaned"], code: "PREV_ID_MISMATCH" });
  const a = blobOf(pending[0]);
  await expectRejected(() => node.submitBlock(blockWith(node, [a], (b) => b.txHashes.push(b.txHashes[0]))), { flags: ["verification_failed"], code: "DUPLICATE_TX" });
  await expectRejected(() => node.submitBlock(blockWith(node, [], (b) => (b.majorVersion = 15))), { flags: ["verification_failed"], code: "BAD_MAJOR_VERSION" });
  await expectRejected(() => node.submitBlock(blockWith(node, [], (b) => (b.minerTx.vin = [{ type: "gen", height: BigInt(BASE + 1) }]))), { flags: ["verification_failed"], code: "MINER_TX_HEIGHT" });
});

test("coinbase unlock time other than height + 60", async () => {
  await expectRejected(() => node.submitBlock(blockWith(node, [], (b) => (b.minerTx.unlockTime += 1n))), { flags: ["verification_failed"], code: "MINER_TX_UNLOCK_TIME" });
});

test("every one of monerod's broken tx variants, inside a block, makes the block invalid", async () => {
  let n = 0;
  for (const v of variants) {
    if (v.name === "original" || v.name === "rct-type-5") continue;
    const bad = variant(v.name);
    const r = await expectRejected(() => node.submitBlock(blockWith(node, [bad]), { txBlobs: [bad] }), { flags: ["verification_failed"], code: "BAD_TX" });
    assert.ok(r.error?.txError, v.name);
    n++;
  }
  assert.equal(n, 13);
});

test("fee too low: monerod's recorded variant (the RingCT balance breaks before the fee rule)", async () => {
  const before = snapshot(node);
  const r = await node.submitTransaction(variant("low-fee"));
  assert.equal(r.ok, false);
  assert.deepEqual(r.flags, []);
  assert.equal(r.error?.code, "RCT_SEMANTICS");
  assert.equal(snapshot(node), before);
});

test("a ring member younger than 10 blocks", async () => {
  // a copy of the chain popped to just above the newest ring member of a pool tx
  const newest = Math.max(...node.pool.entries().map((e) => e.maxUsedBlockHeight));
  const entry = node.pool.entries().find((e) => e.maxUsedBlockHeight === newest);
  assert.ok(entry);
  const d = tmp();
  cpSync(baseDir, d, { recursive: true });
  const n = await openNode(opts(d));
  try {
    await n.popBlocks(BASE - (newest + 5));
    assert.equal(n.store.height(), newest + 5);
    const before = snapshot(n);
    const r = await n.submitBlock(blockWith(n, [entry.blob]), { txBlobs: [entry.blob] });
    assert.equal(r.status, "rejected");
    assert.equal(r.error?.txError?.code, "RING_MEMBER_TOO_YOUNG", r.message);
    assert.equal(snapshot(n), before);
    const t = await n.submitTransaction(entry.blob);
    assert.equal(t.ok, false);
    assert.deepEqual(t.flags, ["invalid_input"]);
  } finally {
    await n.close();
  }
});

test("proof of work below the difficulty (real RandomX): difficulty 2^40, a tampered nonce at 16; mining at 3 passes", { skip: needPackage("librandomx-dev") }, async () => {
  const d = tmp();
  cpSync(baseDir, d, { recursive: true });
  clock = tsOf(BASE - 1) + 60;
  const hard = await openNode(opts(d, { fixedDifficulty: 1n << 40n }));
  try {
    const before = snapshot(hard);
    const r = await hard.submitBlock(blockWith(hard, []));
    assert.equal(r.status, "rejected");
    assert.deepEqual(r.flags, ["bad_pow"]);
    assert.equal(snapshot(hard), before);
  } finally {
    await hard.close();
  }
  // at difficulty 16: a nonce found by real RandomX passes, the same block with a nonce whose hash
  // misses the difficulty does not
  const mid = await openNode(opts(d, { fixedDifficulty: 16n }));
  try {
    const t = await mid.blockTemplate(ALICE, 0);
    const block = t.block;
    let good = -1;
    let bad = -1;
    for (let nonce = 0; good < 0 || bad < 0; nonce++) {
      block.nonce = nonce;
      const ok = checkHash(await mid.powHash(blockHashingBlob(block), t.height, t.seedHash), 16n);
      if (ok && good < 0) good = nonce;
      if (!ok && bad < 0) bad = nonce;
    }
    const before = snapshot(mid);
    block.nonce = bad;
    const r = await mid.submitBlock(serializeBlock(block));
    assert.equal(r.status, "rejected");
    assert.deepEqual(r.flags, ["bad_pow"]);
    assert.equal(snapshot(mid), before);
    block.nonce = good;
    assert.equal((await mid.submitBlock(serializeBlock(block))).status, "added");
  } finally {
    await mid.close();
  }
  const easy = await openNode(opts(d, { fixedDifficulty: 3n }));
  try {
    const g = await easy.generateBlocks(2, ALICE);
    // monerod's generateblocks answers the last generated block's height (the chain height - 1)
    assert.equal(g.height, BASE + 2);
    assert.equal(easy.store.height(), BASE + 3);
    const seed = easy.seedFor(BASE);
    assert.equal(toHex(seed.hash), blocks[0].hash, "below the first epoch the seed is the genesis block");
  } finally {
    await easy.close();
  }
});

test("real signed spends: double spend in the pool and in a block, fee too low, ring size, young and locked ring members", async () => {
  const d = tmp();
  cpSync(baseDir, d, { recursive: true });
  clock = tsOf(BASE - 1) + 100;
  const n = await openNode(opts(d));
  try {
    const me = newKeys(backend);
    const other = newKeys(backend);
    const ts = BigInt(clock);
    await mineTo(n, me, 3, backend, ts); // coinbases at 327..329, unlocked 60 blocks later
    await mineTo(n, other, 62, backend, ts);
    const now = BigInt(clock);
    const owned = [BASE, BASE + 1, BASE + 2].map((h) => ownedCoinbase(n.store, h, me, backend));
    const tx1 = buildSpend(n.store, owned[0], other, backend, { now });
    const tx2 = buildSpend(n.store, owned[0], other, backend, { now });
    assert.notEqual(toHex(txHash(parseTransaction(tx1))), toHex(txHash(parseTransaction(tx2))));
    const a = await n.submitTransaction(tx1);
    assert.equal(a.ok, true, a.reason);
    // the second spend is valid on its own but its key image is in the pool
    let before = snapshot(n);
    const b = await n.submitTransaction(tx2);
    assert.equal(b.ok, false);
    assert.deepEqual(b.flags, ["double_spend"]);
    assert.equal(snapshot(n), before);
    // both in one block: the second is a double spend
    before = snapshot(n);
    const both = blockWith(n, [tx1, tx2]);
    const r = await n.submitBlock(both, { txBlobs: [tx2] });
    assert.equal(r.status, "rejected");
    assert.equal(r.error?.txIndex, 1);
    assert.equal(r.error?.txError?.code, "KEY_IMAGE_SPENT");
    assert.equal(snapshot(n), before);
    // the second alone in a block is fine; the first leaves the pool as a double spend
    assert.equal((await n.submitBlock(blockWith(n, [tx2]), { txBlobs: [tx2] })).status, "added");
    assert.equal(n.pool.has(txHash(parseTransaction(tx1))), false);
    const late = await n.submitTransaction(tx1);
    assert.deepEqual([...late.flags].sort(), ["double_spend", "invalid_input"]);

    const expectTx = async (blob: Uint8Array, flags: string[], code: string): Promise<void> => {
      const s = snapshot(n);
      const t = await n.submitTransaction(blob);
      assert.equal(t.ok, false);
      assert.deepEqual([...t.flags].sort(), flags, t.reason);
      assert.equal(t.error?.code, code, t.reason);
      assert.equal(snapshot(n), s);
    };
    // fee below the minimum for its weight, correctly signed: fee_too_low exactly
    const probe = parseTransaction(buildSpend(n.store, owned[1], other, backend, { now }));
    await expectTx(buildSpend(n.store, owned[1], other, backend, { now, fee: (probe.rct?.fee ?? 0n) / 2n }), ["fee_too_low"], "FEE_TOO_LOW");
    // ring of 15, correctly signed
    await expectTx(buildSpend(n.store, owned[1], other, backend, { now, ringSize: 15 }), ["invalid_input", "low_mixin"], "BAD_RING_SIZE");
    // a decoy 1 block deep (an output of the block that mined tx2: unlocked, too young)
    const tx2Loc = n.store.txLocation(txHash(parseTransaction(tx2)));
    assert.ok(tx2Loc);
    assert.equal(tx2Loc.height, n.store.height() - 1);
    const young = tx2Loc.outputIndices[0];
    const auto = parseTransaction(buildSpend(n.store, owned[1], other, backend, { now }));
    const vin = auto.vin[0];
    assert.equal(vin.type, "key");
    const abs = vin.type === "key" ? vin.keyOffsets.reduce<bigint[]>((acc, o) => [...acc, (acc.at(-1) ?? 0n) + o], []) : [];
    const decoys = abs.filter((i) => i !== owned[1].globalIndex);
    assert.equal(decoys.length, 15);
    await expectTx(buildSpend(n.store, owned[1], other, backend, { now, decoys: [...decoys.slice(1), young] }), ["invalid_input"], "RING_MEMBER_TOO_YOUNG");
    // a coinbase output 20 blocks deep: old enough, still locked (60 blocks)
    const cb = n.store.block(n.store.height() - 20);
    assert.ok(cb);
    const locked = n.store.txLocation(txHash(cb.minerTx))?.outputIndices[0];
    assert.ok(locked !== undefined);
    await expectTx(buildSpend(n.store, owned[1], other, backend, { now, decoys: [...decoys.slice(1), locked] }), ["invalid_input"], "RING_MEMBER_LOCKED");
    // and the honest spend of the same output passes
    assert.equal((await n.submitTransaction(buildSpend(n.store, owned[1], other, backend, { now }))).ok, true);
  } finally {
    await n.close();
  }
});

test("alternative blocks are checked against their branch: a broken one is not stored, a good one is", async () => {
  const parent = node.store.meta(BASE - 3).hash;
  const build = (mutate: (b: Block) => void): Bytes => {
    const b = blockOn(node, parent, [], keys, BigInt(clock), backend);
    mutate(b);
    return serializeBlock(b);
  };
  await expectRejected(() => node.submitBlock(build((b) => (b.minerTx.vout[0].amount += 1n))), { flags: ["verification_failed"], code: "REWARD_TOO_HIGH" });
  await expectRejected(() => node.submitBlock(build((b) => (b.minerTx.vin = [{ type: "gen", height: BigInt(BASE) }]))), { flags: ["verification_failed"], code: "MINER_TX_HEIGHT" });
  await expectRejected(() => node.submitBlock(build((b) => (b.timestamp = BigInt(clock + 7201)))), { flags: ["verification_failed"], code: "TIMESTAMP_IN_FUTURE" });
  const before = node.altBlockCount();
  const top = toHex(node.store.topHash());
  const r = await node.submitBlock(build(() => undefined));
  assert.equal(r.status, "alternative", r.message);
  assert.equal(r.height, BASE - 2);
  assert.equal(node.altBlockCount(), before + 1);
  assert.equal(toHex(node.store.topHash()), top, "a shorter branch does not switch");
  assert.equal((await node.submitBlock(build(() => undefined))).status, "alternative", "another coinbase key, another block");
  assert.equal(node.altChains().length, 2);
});
