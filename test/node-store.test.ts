/**
 * The node's chain store over real LMDB in temp dirs: the recorded 333-block regtest chain
 * (test/fixtures/chain) replayed through consensus checkBlock + applyBlock gives monerod's
 * header values and /get_blocks.bin output indices; popping and re-applying restores identical
 * state; a failing block leaves nothing behind; SIGKILL at random moments never leaves a partial block.
 *
 * Run as a child with TSMONERO_STORE_CRASH_CHILD=<dir>, this file is the crash test's writer.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { open } from "lmdb";
import { fileURLToPath } from "node:url";
import { decodeEpee } from "../src/codec/epee-map.js";
import { type ChainView, checkBlock, checkTxInputsAgainstChain, checkTxSemantics, nextBlockContext, type TxRuleError } from "../src/consensus/index.js";
import { defaultBackend } from "../src/crypto/index.js";
import { zeroCommit } from "../src/crypto/ringct/amounts.js";
import { ChainStore, StoreError } from "../src/node/store/index.js";
import { type Block, parseBlock } from "../src/protocol/block.js";
import { genesisHash } from "../src/protocol/genesis.js";
import { getBlocksBinResponse } from "../src/protocol/rpc-bin.js";
import { type Bytes, parseTransaction, serializeTransaction, type Transaction } from "../src/protocol/tx.js";
import { txHash } from "../src/protocol/tx-hash.js";
import { txWeight } from "../src/protocol/weight.js";
import { OutputIndexer } from "../src/wallet/scan/scan.js";
import { fromHex, readChainFile, recordedBlocks, recordedTxs, toHex } from "./helpers/chain.js";

const backend = defaultBackend();

interface Header {
  difficulty: number;
  cumulative_difficulty: number;
  block_weight: number;
  long_term_weight: number;
  reward: number;
  timestamp: number;
}
interface ChainBlock {
  block: Block;
  hash: string;
  txs: Transaction[];
  txIds: Bytes[];
  txWeights: number[];
  minerTxWeight: number;
  header: Header;
}

function loadChain(): ChainBlock[] {
  const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
  return recordedBlocks().map((rb) => {
    const block = parseBlock(fromHex(rb.blob));
    const txs = rb.tx_hashes.map((h) => {
      const t = txById.get(h);
      if (!t) throw new Error(`tx ${h} missing from the fixture`);
      return parseTransaction(fromHex(t.as_hex));
    });
    return {
      block,
      hash: rb.hash,
      txs,
      txIds: txs.map((t) => txHash(t)),
      txWeights: txs.map((t) => txWeight(t)),
      minerTxWeight: serializeTransaction(block.minerTx).length,
      header: rb.header as unknown as Header,
    };
  });
}

/** Per-tx rules the node will run (semantics, chain inputs: ring members read from the store). */
function txChecker(view: ChainView, hf: number, now: bigint): (tx: Transaction) => TxRuleError | undefined {
  return (tx) => {
    const sem = checkTxSemantics(tx, hf, { keptByBlock: true });
    if (sem) return sem;
    const inputs = checkTxInputsAgainstChain(tx, view, hf, now);
    return inputs.ok ? undefined : inputs.error;
  };
}

/** checkBlock over the store, then applyBlock; the block must pass. */
function applyChecked(store: ChainStore, cb: ChainBlock, checkTxs = true): void {
  const ctx = nextBlockContext(store, { fixedDifficulty: 1n });
  const now = cb.block.timestamp + 1n;
  const r = checkBlock(store, ctx, {
    block: cb.block,
    txs: cb.txs,
    txIds: cb.txIds,
    txWeights: cb.txWeights,
    minerTxWeight: cb.minerTxWeight,
    now,
    checkTx: checkTxs ? txChecker(store, ctx.hfVersion, now) : undefined,
  });
  if (!r.ok) throw new Error(`height ${ctx.height}: ${r.error.code} ${r.error.message}`);
  store.applyBlock(cb.block, cb.txs, r.accepted);
}

/**
 * Checks that the store holds exactly blocks [0, height) of the recorded chain and everything they
 * imply: metadata equal to monerod's headers, every tx with its output indices (recomputed with the
 * wallet's OutputIndexer), every output record, the amount counters and the key-image set.
 * Returns the number of assertions' subjects checked (blocks).
 */
function audit(store: ChainStore, chain: ChainBlock[]): number {
  const height = store.height();
  assert.ok(height >= 1 && height <= chain.length, `height ${height}`);
  assert.equal(store.blockBlob(height), undefined, "nothing stored above the top");
  assert.throws(() => store.meta(height), StoreError);
  assert.equal(toHex(store.topHash()), chain[height - 1].hash);
  const indexer = new OutputIndexer();
  let keyImages = 0;
  let txCount = 0;
  for (let h = 0; h < height; h++) {
    const cb = chain[h];
    const m = store.meta(h);
    assert.equal(toHex(m.hash), cb.hash, `hash at ${h}`);
    assert.equal(store.heightOf(m.hash), h);
    assert.equal(m.difficulty, BigInt(cb.header.difficulty), `difficulty at ${h}`);
    assert.equal(m.cumulativeDifficulty, BigInt(cb.header.cumulative_difficulty), `cumulative difficulty at ${h}`);
    assert.equal(m.weight, cb.header.block_weight, `weight at ${h}`);
    assert.equal(m.longTermWeight, cb.header.long_term_weight, `long-term weight at ${h}`);
    assert.equal(m.reward, BigInt(cb.header.reward), `reward at ${h}`);
    assert.equal(m.timestamp, BigInt(cb.header.timestamp), `timestamp at ${h}`);
    assert.equal(m.txCount, cb.txs.length);
    assert.equal(toHex(store.blockBlob(h)!), recordedBlocks()[h].blob);
    const all = [cb.block.minerTx, ...cb.txs];
    all.forEach((tx, k) => {
      const id = k === 0 ? txHash(tx) : cb.txIds[k - 1];
      const found = store.transaction(id);
      assert.ok(found, `tx ${k} of block ${h} stored`);
      assert.deepEqual(serializeTransaction(found.tx), serializeTransaction(tx));
      const loc = found.location;
      assert.equal(loc.height, h);
      assert.equal(loc.index, k);
      assert.equal(loc.unlockTime, tx.unlockTime);
      const expected = indexer.next(tx);
      assert.deepEqual(loc.outputIndices, expected, `output indices of tx ${k} in block ${h}`);
      tx.vout.forEach((o, i) => {
        const amount = tx.version >= 2 ? 0n : o.amount;
        const out = store.output(amount, expected[i]);
        assert.ok(out, `output ${amount}/${expected[i]}`);
        assert.ok(o.target.type === "key" || o.target.type === "tagged_key");
        assert.deepEqual(out.key, o.target.key);
        const commitment = k === 0 || tx.version < 2 ? zeroCommit(backend, o.amount) : tx.rct!.outPk[i];
        assert.deepEqual(out.commitment, commitment);
        assert.equal(out.height, h);
        assert.equal(out.unlockTime, tx.unlockTime);
        assert.equal(out.coinbase, k === 0);
        assert.deepEqual(out.txId, id);
      });
      for (const input of tx.vin) {
        if (input.type !== "key") continue;
        keyImages++;
        assert.equal(store.keyImageHeight(input.keyImage), h, `key image spent at ${h}`);
        assert.ok(store.isKeyImageSpent(input.keyImage));
      }
      txCount++;
    });
  }
  const counts = new Map(indexer.snapshot());
  assert.deepEqual(store.outputCounts(), counts, "per-amount output counts");
  for (const [amount, n] of counts) assert.equal(store.output(amount, n), undefined, `no output ${amount}/${n} above the top`);
  assert.equal(store.keyImageCount(), keyImages, "key-image set holds exactly the chain's inputs");
  assert.equal(store.txCount(), txCount, "tx index holds exactly the chain's txs");
  return height;
}

const CHILD_DIR = process.env.TSMONERO_STORE_CRASH_CHILD;

if (CHILD_DIR !== undefined) {
  // The crash test's writer: apply blocks to the top, pop back to 200, forever, until killed.
  const chain = loadChain();
  const store = ChainStore.open(CHILD_DIR, "regtest");
  process.stdout.write("ready\n");
  for (;;) {
    while (store.height() < chain.length) applyChecked(store, chain[store.height()], false);
    while (store.height() > 200) store.popBlock();
  }
} else {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), "tsmonero-store-"));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const chain = loadChain();
  const dir = tempDir();
  let store = ChainStore.open(dir, "regtest");

  /** Everything observable through the store's API, as one string. */
  const digest = (s: ChainStore): string => {
    const parts: string[] = [String(s.height())];
    for (let h = 0; h < s.height(); h++) {
      const m = s.meta(h);
      parts.push(JSON.stringify({ ...m, hash: toHex(m.hash) }, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
      const block = s.block(h)!;
      for (const id of [txHash(block.minerTx), ...block.txHashes]) {
        const loc = s.txLocation(id)!;
        parts.push(toHex(s.txBlob(id)!), `${loc.height}/${loc.index}/${loc.unlockTime}/${loc.outputIndices.join(",")}`);
      }
    }
    for (const [amount, n] of s.outputCounts()) {
      for (let i = 0n; i < n; i++) {
        const o = s.output(amount, i)!;
        parts.push(`${amount}/${i}:${toHex(o.key)}${toHex(o.commitment)}${o.unlockTime}/${o.height}/${toHex(o.txId)}/${o.coinbase}`);
      }
    }
    parts.push(String(s.keyImageCount()), String(s.txCount()));
    return parts.join("\n");
  };

  test("an empty store gets the network's genesis block, equal to monerod's block 0", () => {
    assert.equal(store.height(), 1);
    assert.equal(toHex(store.topHash()), chain[0].hash);
    assert.equal(store.network, "regtest");
    audit(store, chain);
  });

  test("the recorded chain replays through checkBlock + applyBlock with monerod's header values and output indices", () => {
    for (let h = 1; h < chain.length; h++) applyChecked(store, chain[h]);
    assert.equal(store.height(), 333);
    assert.equal(audit(store, chain), 333);
    // monerod's own /get_blocks.bin output_indices
    const res = decodeEpee(getBlocksBinResponse, readChainFile("get_blocks.bin"));
    const start = Number(res.start_height);
    assert.ok(res.output_indices.length > 100);
    res.output_indices.forEach((bi, k) => {
      const block = store.block(start + k)!;
      const ids = [txHash(block.minerTx), ...block.txHashes];
      assert.deepEqual(
        ids.map((id) => store.txLocation(id)!.outputIndices.map(String)),
        bi.indices.map((t) => t.indices.map(String)),
        `block ${start + k}`,
      );
    });
    // both parts of every tx are stored separately, as monerod's pruned/prunable hex
    let n = 0;
    for (const t of recordedTxs()) {
      if (t.coinbase || !t.pruned_as_hex) continue;
      const id = fromHex(t.tx_hash);
      assert.equal(toHex(store.txPrunedBlob(id)!), t.pruned_as_hex);
      assert.equal(toHex(store.txBlob(id)!), t.as_hex);
      n++;
    }
    assert.equal(n, 154);
    assert.equal(store.alreadyGeneratedCoins(), store.meta(332).alreadyGeneratedCoins);
    // the RingCT output counts the block metas carry are what a walk over the outputs gives
    const both = store.cumulativeRctBothWays();
    assert.ok(both.stored, "every block carries its count");
    assert.deepEqual(both.stored, both.walked);
    assert.deepEqual(both.chunked, both.walked, "cum_rct's chunks hold the same counts");
    assert.equal(both.stored[332], Number(store.outputCount(0n)));
    assert.deepEqual(store.cumulativeRctOutputs(100, 332), both.walked.slice(100, 333));
  });

  test("the store survives close and reopen, and refuses another network", async () => {
    const before = digest(store);
    await store.close();
    assert.throws(() => ChainStore.open(dir, "mainnet"), /regtest, not mainnet/);
    store = ChainStore.open(dir, "regtest");
    assert.equal(digest(store), before);
  });

  test("cum_rct (the RingCT counts in chunks) is rebuilt at open when it is missing or does not end at the top", async () => {
    const expected = store.cumulativeRctBothWays().walked;
    for (const spoil of ["drop", "stale top"] as const) {
      await store.close();
      const raw = open<Buffer, number>({ path: dir, maxDbs: 32, encoding: "binary" });
      const chunks = raw.openDB<Buffer, number>("cum_rct", { encoding: "binary", keyEncoding: "uint32" });
      const last = Math.floor((expected.length - 1) / 128);
      raw.transactionSync(() => {
        if (spoil === "drop") chunks.clearSync();
        else chunks.putSync(last, chunks.get(last)!.subarray(0, 8));
      });
      await raw.close();
      const lines: string[] = [];
      store = ChainStore.open(dir, "regtest", { log: (l) => lines.push(l) });
      assert.match(lines.join("\n"), /RingCT output counts per block indexed in chunks \(333 blocks/, spoil);
      assert.deepEqual(store.cumulativeRctBothWays().chunked, expected, spoil);
      assert.deepEqual(store.cumulativeRctOutputs(0, 332), expected, spoil);
      assert.deepEqual(store.cumulativeRctOutputs(200, 210), expected.slice(200, 211), spoil);
    }
    // a consistent table is left as it is
    await store.close();
    const lines: string[] = [];
    store = ChainStore.open(dir, "regtest", { log: (l) => lines.push(l) });
    assert.deepEqual(lines, []);
  });

  test("keepCumulativeRctOutputs reads the counts at once: windows and the whole chain read the same after it", () => {
    const expected = store.cumulativeRctBothWays().walked;
    store.keepCumulativeRctOutputs();
    assert.deepEqual(store.cumulativeRctOutputs(200, 210), expected.slice(200, 211));
    assert.deepEqual(store.cumulativeRctOutputs(0, 332), expected);
    store.keepCumulativeRctOutputs();
    assert.deepEqual(store.cumulativeRctOutputs(332, 332), [expected[332]]);
  });

  test("a store in layout 1 (txs keyed by id, one output table) is migrated once at open and reads the same; a newer layout is refused", async () => {
    const before = digest(store);
    await store.close();
    // write layout 1 by hand from layout 2's tables, as a store of an earlier version holds it,
    // leaving half of the new tables behind as a crashed migration would
    const raw = open<Buffer, Buffer>({ path: dir, maxDbs: 32, encoding: "binary" });
    const db = (name: string, keyEncoding: "binary" | "ordered-binary" = "binary") => raw.openDB<Buffer, Buffer>(name, { encoding: "binary", keyEncoding });
    const [index, pruned, prunable, hashes, rctOuts, preRct, props] = [db("tx_ids"), db("txs_pruned"), db("txs_prunable"), db("txs_prunable_hash"), db("rct_outputs"), db("pre_rct_outputs"), db("properties", "ordered-binary")];
    const [oIndex, oPruned, oPrunable, oHashes, oOutputs] = [db("tx_index"), db("tx_pruned"), db("tx_prunable"), db("tx_prunable_hash"), db("outputs")];
    const u64 = (n: bigint): Buffer => Buffer.from(new BigUint64Array([n]).buffer).reverse();
    let txs = 0;
    raw.transactionSync(() => {
      for (const { key, value } of index.getRange({})) {
        const id = Buffer.from(key).reverse();
        const num = value.subarray(0, 8);
        oIndex.putSync(id, value.subarray(8));
        oPruned.putSync(id, pruned.get(num)!);
        const q = prunable.get(num);
        if (q) oPrunable.putSync(id, q);
        const h = hashes.get(num);
        if (h) oHashes.putSync(id, h);
        txs++;
      }
      for (const { key, value } of rctOuts.getRange({})) oOutputs.putSync(Buffer.concat([u64(0n), key]), value);
      for (const { key, value } of preRct.getRange({})) oOutputs.putSync(key, value);
      let k = 0;
      for (const { key } of index.getRange({})) if (k++ % 2 === 0) index.removeSync(key);
      rctOuts.clearSync();
      props.removeSync(Buffer.from("schema"));
    });
    assert.ok(txs > 300, `${txs} txs rewritten`);
    await raw.close();
    const lines: string[] = [];
    store = ChainStore.open(dir, "regtest", { log: (l) => lines.push(l) });
    assert.equal(lines.length, 2, lines.join("\n"));
    assert.match(lines[0], /migrating layout 1 to 4 \(333 blocks/);
    assert.match(lines[1], new RegExp(`layout 4 in place \\(${txs} txs\\)`));
    assert.deepEqual(looseAll(store), allTxIdsInLooseOrder(chain));
    assert.equal(digest(store), before);
    audit(store, chain);
    await store.close();
    // migrated once: the old tables are gone and the next open says nothing
    const check = open<Buffer, Buffer>({ path: dir, maxDbs: 32, encoding: "binary" });
    for (const name of ["tx_index", "tx_pruned", "tx_prunable", "tx_prunable_hash", "outputs"]) assert.equal(check.openDB(name, { create: false, encoding: "binary" } as { encoding: "binary" }), undefined, `${name} dropped`);
    const checkProps = check.openDB<Buffer, Buffer>("properties", { encoding: "binary", keyEncoding: "ordered-binary" });
    assert.equal(checkProps.get(Buffer.from("schema"))?.readUInt32BE(0), 4);
    checkProps.putSync(Buffer.from("schema"), Buffer.from([0, 0, 0, 5]));
    await check.close();
    assert.throws(() => ChainStore.open(dir, "regtest"), /layout 5; this version reads layout 4/);
    const fix = open<Buffer, Buffer>({ path: dir, maxDbs: 32, encoding: "binary" });
    fix.openDB<Buffer, Buffer>("properties", { encoding: "binary", keyEncoding: "ordered-binary" }).putSync(Buffer.from("schema"), Buffer.from([0, 0, 0, 4]));
    await fix.close();
    lines.length = 0;
    store = ChainStore.open(dir, "regtest", { log: (l) => lines.push(l) });
    assert.deepEqual(lines, []);
    assert.equal(digest(store), before);
  });

  test("a layout-2 store (tx_indices keyed by the ids' bytes) is rekeyed at open; get_txids_loose's lookup matches a brute-force filter for every bit count", async () => {
    const before = digest(store);
    await store.close();
    // layout 2 by hand: tx_indices keyed by the id as stored, tx_ids left half full as a crashed migration would
    const raw = open<Buffer, Buffer>({ path: dir, maxDbs: 32, encoding: "binary" });
    const ids = raw.openDB<Buffer, Buffer>("tx_ids", { encoding: "binary", keyEncoding: "binary" });
    const old = raw.openDB<Buffer, Buffer>("tx_indices", { encoding: "binary", keyEncoding: "binary" });
    let txs = 0;
    raw.transactionSync(() => {
      for (const { key, value } of ids.getRange({})) old.putSync(Buffer.from(key).reverse(), Buffer.from(value));
      let k = 0;
      for (const { key } of ids.getRange({})) if (k++ % 2 === 0) ids.removeSync(Buffer.from(key));
      txs = k;
      raw.openDB<Buffer, Buffer>("properties", { encoding: "binary", keyEncoding: "ordered-binary" }).putSync(Buffer.from("schema"), Buffer.from([0, 0, 0, 2]));
    });
    await raw.close();
    const lines: string[] = [];
    store = ChainStore.open(dir, "regtest", { log: (l) => lines.push(l) });
    assert.equal(lines.length, 2, lines.join("\n"));
    assert.match(lines[0], new RegExp(`migrating layout 2 to 4 \\(tx ids keyed in get_txids_loose's order, ${txs} txs\\)`));
    assert.match(lines[1], new RegExp(`layout 4 in place \\(${txs} txs\\)`));
    assert.equal(digest(store), before);
    audit(store, chain);
    const all = allTxIdsInLooseOrder(chain);
    assert.deepEqual(looseAll(store), all);
    for (let bits = 0; bits <= 256; bits += bits < 16 ? 1 : 24) {
      const target = all[(bits * 37) % all.length];
      const template = looseTemplate(target, bits);
      const want = all.filter((id) => toHex(looseTemplate(id, bits)) === toHex(template));
      const got = store.txIdsLoose(template, bits, 0);
      assert.ok(got !== "too many");
      assert.deepEqual(got.map(toHex), want.map(toHex), `${bits} bits`);
      assert.ok(got.some((id) => toHex(id) === toHex(target)), `${bits} bits: the id sought is among them`);
      if (want.length > 1) assert.equal(store.txIdsLoose(template, bits, want.length - 1), "too many");
    }
  });

  test("layout 4 writes compact records and reads layout 3's as they are, mixed in one store", async () => {
    const before = digest(store);
    await store.close();
    const raw = open<Buffer, Buffer>({ path: dir, maxDbs: 32, encoding: "binary" });
    const db = (name: string, keyEncoding: "binary" | "ordered-binary" | "uint32" = "binary") => raw.openDB<Buffer, Buffer>(name, { encoding: "binary", keyEncoding });
    const [metas, ids, rctOuts, props] = [db("block_meta", "uint32"), db("tx_ids"), db("rct_outputs"), db("properties", "ordered-binary")];
    const u64 = (n: bigint): Buffer => Buffer.from(new BigUint64Array([n]).buffer).reverse();
    // what layout 4 wrote: 92-byte metas, 101-byte outputs (the usual unlock time left out), runs of output indices
    assert.deepEqual(new Set([...metas.getRange({})].map(({ value }) => value.length)), new Set([92]));
    const outLengths = [...rctOuts.getRange({})].map(({ value }) => value.length);
    assert.deepEqual(new Set(outLengths), new Set([101, 109]), "the unlock time left out unless a tx set one");
    const unusual = outLengths.filter((n) => n === 109).length;
    assert.ok(unusual > 0 && unusual < outLengths.length / 20, `${unusual} of ${outLengths.length} outputs have an unlock time of their own`);
    let runs = 0;
    for (const { value } of ids.getRange({})) if (value.readUInt32BE(25) >= 0x8000_0000) runs++;
    assert.ok(runs > 100, `${runs} txs' output indices stored as a run`);
    // rewrite every record in layout 3, as a store of the previous version holds it
    raw.transactionSync(() => {
      let prevCum = 0n;
      for (const { key, value } of [...metas.getRange({})]) {
        const cum = (value.readBigUInt64BE(8) << 64n) | value.readBigUInt64BE(16);
        const diff = cum - prevCum;
        prevCum = cum;
        const old = Buffer.concat([
          value.subarray(0, 24),
          u64(diff >> 64n), u64(diff & 0xffffffffffffffffn),
          u64(BigInt(value.readUInt32BE(24))), u64(BigInt(value.readUInt32BE(28))),
          value.subarray(32, 92),
        ]);
        assert.equal(old.length, 116);
        metas.putSync(key, old);
      }
      for (const { key, value } of [...rctOuts.getRange({})]) {
        if (value.length === 109) continue;
        const height = value.readUInt32BE(64);
        const unlock = value[100] === 1 ? BigInt(height + 60) : 0n;
        rctOuts.putSync(key, Buffer.concat([value.subarray(0, 64), u64(unlock), value.subarray(64)]));
      }
      for (const { key, value } of [...ids.getRange({})]) {
        const n = value.readUInt32BE(25);
        if (n < 0x8000_0000) continue;
        const first = value.readBigUInt64BE(29);
        const count = n - 0x8000_0000;
        const list = Array.from({ length: count }, (_, i) => u64(first + BigInt(i)));
        const head = Buffer.from(value.subarray(0, 29));
        head.writeUInt32BE(count, 25);
        ids.putSync(key, Buffer.concat([head, ...list]));
      }
      props.putSync(Buffer.from("schema"), Buffer.from([0, 0, 0, 3]));
    });
    await raw.close();
    const lines: string[] = [];
    store = ChainStore.open(dir, "regtest", { log: (l) => lines.push(l) });
    assert.deepEqual(lines, [], "layout 3 needs no migration");
    assert.equal(digest(store), before);
    audit(store, chain);
    // blocks applied now are in layout 4, below them layout 3: both read back, pops included
    for (let i = 0; i < 40; i++) store.popBlock();
    assert.equal(store.height(), 293);
    for (let h = 293; h < 333; h++) applyChecked(store, chain[h]);
    assert.equal(digest(store), before);
    audit(store, chain);
    const both = store.cumulativeRctBothWays();
    assert.deepEqual(both.stored, both.walked);
    assert.deepEqual(both.chunked, both.walked);
    await store.close();
    const check = open<Buffer, Buffer>({ path: dir, maxDbs: 32, encoding: "binary" });
    const checkMetas = check.openDB<Buffer, number>("block_meta", { encoding: "binary", keyEncoding: "uint32" });
    assert.equal(checkMetas.get(292)?.length, 116);
    assert.equal(checkMetas.get(293)?.length, 92);
    assert.equal(check.openDB<Buffer, Buffer>("properties", { encoding: "binary", keyEncoding: "ordered-binary" }).get(Buffer.from("schema"))?.readUInt32BE(0), 4);
    await check.close();
    store = ChainStore.open(dir, "regtest");
  });

  test("popping the top 60 blocks returns their txs and re-applying them gives identical state", () => {
    const full = digest(store);
    const popped: { block: Block; txs: Transaction[] }[] = [];
    for (let i = 0; i < 60; i++) {
      popped.unshift(store.popBlock());
      // the top kept in memory follows every pop
      assert.equal(toHex(store.topHash()), chain[store.height() - 1].hash);
    }
    assert.equal(store.height(), 273);
    audit(store, chain);
    let txs = 0;
    popped.forEach((p, k) => {
      const cb = chain[273 + k];
      assert.deepEqual(p.block, cb.block);
      assert.deepEqual(p.txs.map((t) => serializeTransaction(t)), cb.txs.map((t) => serializeTransaction(t)));
      for (const t of p.txs) {
        for (const input of t.vin) if (input.type === "key") assert.equal(store.isKeyImageSpent(input.keyImage), false);
        assert.equal(store.txLocation(txHash(t)), undefined);
      }
      txs += p.txs.length;
    });
    assert.ok(txs > 10, `popped ${txs} txs`);
    assert.deepEqual(looseAll(store), allTxIdsInLooseOrder(chain.slice(0, 273)), "popped txs leave tx_ids_by_value too");
    for (let h = 273; h < 333; h++) {
      applyChecked(store, chain[h]);
      assert.equal(toHex(store.topHash()), chain[h].hash, "the top kept in memory follows every apply");
    }
    assert.equal(digest(store), full);
    assert.deepEqual(looseAll(store), allTxIdsInLooseOrder(chain));
    const both = store.cumulativeRctBothWays();
    assert.deepEqual(both.stored, both.walked, "popped and re-applied blocks carry their counts again");
    assert.deepEqual(both.chunked, both.walked, "and cum_rct's chunks follow the pops and applies");
  });

  test("a block that fails half way leaves no trace; the genesis block cannot be popped", () => {
    const top = store.popBlock();
    const before = digest(store);
    // the popped block, carrying an already-stored tx instead of its own: its coinbase outputs are
    // written before the duplicate is found, and the whole transaction must roll back
    const old = chain.find((cb, h) => h < 300 && cb.txs.length > 0)!;
    const bad: Block = { ...top.block, txHashes: [old.txIds[0]] };
    assert.throws(() => store.applyBlock(bad, [old.txs[0]], { difficulty: 1n, cumulativeDifficulty: 1n, weight: 1, longTermWeight: 1, alreadyGeneratedCoins: 1n, reward: 1n }), /already stored/);
    assert.equal(digest(store), before);
    assert.equal(toHex(store.topHash()), chain[store.height() - 1].hash, "a rolled-back apply leaves the kept top alone");
    // a block that does not extend the top
    assert.throws(() => store.applyBlock(chain[100].block, chain[100].txs, { difficulty: 1n, cumulativeDifficulty: 1n, weight: 1, longTermWeight: 1, alreadyGeneratedCoins: 1n, reward: 1n }), StoreError);
    assert.equal(digest(store), before);
    applyChecked(store, chain[332]);
    audit(store, chain);
    const fresh = ChainStore.open(tempDir(), "regtest");
    assert.throws(() => fresh.popBlock(), /genesis/);
    assert.equal(fresh.height(), 1);
    return fresh.close();
  });

  test("other networks open on their own genesis; the fast sync mode keeps every committed block across reopen", async () => {
    for (const net of ["mainnet", "testnet", "stagenet"] as const) {
      const s = ChainStore.open(tempDir(), net);
      assert.equal(toHex(s.topHash()), genesisHash(net));
      assert.equal(s.meta(0).alreadyGeneratedCoins, s.meta(0).reward);
      await s.close();
    }
    const d = tempDir();
    let s = ChainStore.open(d, "regtest", { sync: "fast" });
    for (let h = 1; h < 120; h++) applyChecked(s, chain[h]);
    await s.close();
    s = ChainStore.open(d, "regtest");
    assert.equal(audit(s, chain), 120);
    await s.close();
  });

  test("SIGKILL at random moments never leaves a partial block", async () => {
    await store.close();
    const crashDir = tempDir();
    const self = fileURLToPath(import.meta.url);
    const heights: number[] = [];
    let seed = 0x5eed;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < 10; round++) {
      const child = spawn(process.execPath, [self], { env: { ...process.env, TSMONERO_STORE_CRASH_CHILD: crashDir }, stdio: ["ignore", "pipe", "inherit"] });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, sig) => resolve(sig)));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          if (d.toString().includes("ready")) resolve();
        });
        child.on("exit", (code) => reject(new Error(`child exited early (${code})`)));
      });
      await new Promise((r) => setTimeout(r, 50 + rand(700)));
      child.kill("SIGKILL");
      assert.equal(await exited, "SIGKILL");
      const s = ChainStore.open(crashDir, "regtest");
      heights.push(audit(s, chain));
      await s.close();
    }
    // the writer made progress between kills, so the kills landed at different heights
    assert.ok(new Set(heights).size >= 3, `heights after kills: ${heights.join(",")}`);
    console.log(`# store heights after each SIGKILL: ${heights.join(", ")}`);
  });
}

/** make_hash32_loose_template: the id with every bit below its top `bits` (read as a little-endian number) zeroed. */
function looseTemplate(id: Bytes, bits: number): Bytes {
  const t = Uint8Array.from(id);
  for (let i = 31, left = bits; i >= 0; i--, left = Math.max(0, left - 8)) t[i] &= left >= 8 ? 0xff : (0xff << (8 - left)) & 0xff;
  return t;
}

/** Every tx id of the recorded chain, in monerod's compare_hash32 order (little-endian numbers). */
function allTxIdsInLooseOrder(chain: readonly ChainBlock[]): Bytes[] {
  const ids = chain.flatMap((b) => [txHash(b.block.minerTx), ...b.txIds]);
  const key = (id: Bytes) => toHex(Uint8Array.from(id).reverse());
  return ids.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The whole chain through get_txids_loose's lookup (a zero template, 0 bits, no limit). */
function looseAll(s: ChainStore): Bytes[] {
  const r = s.txIdsLoose(new Uint8Array(32), 0, 0);
  assert.ok(r !== "too many");
  return r;
}
