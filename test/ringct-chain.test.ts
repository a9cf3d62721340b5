// RingCT verification on the recorded regtest chain (test/fixtures/chain): every wallet
// transaction (type 6: CLSAG + Bulletproofs+) verifies against ring members rebuilt from the
// blocks, alone and block by block as a batch; changing any byte of a signature, proof,
// commitment, key image or ring member makes it fail.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CryptoBackend } from "../src/crypto/backend.js";
import { defaultBackend, getBackend } from "../src/crypto/index.js";
import { zeroCommit } from "../src/crypto/ringct/amounts.js";
import { RctVerifyPool } from "../src/crypto/ringct/verify-pool.js";
import {
  type CtKey,
  preMlsagHash,
  type RctVerifyItem,
  verifyRctBatch,
  verifyRctNonSemantics,
  verifyRctSemantics,
  verifyRctSimple,
} from "../src/crypto/ringct/verify.js";
import { parseBlock } from "../src/protocol/block.js";
import { txHashesFromBlob } from "../src/protocol/tx-hash.js";
import { parseTransaction, relativeToAbsoluteOffsets, type Transaction } from "../src/protocol/tx.js";
import { fromHex, recordedBlocks, recordedTxs } from "./helpers/chain.js";

const be = defaultBackend();

interface ChainTx {
  hash: string;
  height: number;
  item: RctVerifyItem;
}

/** Every output gets the next global index under amount 0 (regtest is RingCT from height 1). */
function buildChain(b: CryptoBackend): { txs: ChainTx[]; outputs: CtKey[] } {
  const byHash = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
  const outputs: CtKey[] = [];
  const txs: ChainTx[] = [];
  const addOutputs = (tx: Transaction, coinbase: boolean): void => {
    if (tx.version < 2) return; // the genesis coinbase (v1) is indexed under its own amount
    tx.vout.forEach((o, i) => {
      const dest = o.target.type === "key" || o.target.type === "tagged_key" ? o.target.key : undefined;
      assert.ok(dest, "to_key or to_tagged_key output expected");
      const mask = coinbase ? zeroCommit(b, o.amount) : tx.rct?.outPk[i];
      assert.ok(mask);
      outputs.push({ dest, mask });
    });
  };
  for (const blk of [...recordedBlocks()].sort((x, y) => x.height - y.height)) {
    const block = parseBlock(fromHex(blk.blob));
    addOutputs(block.minerTx, true);
    for (const h of blk.tx_hashes) {
      const rec = byHash.get(h);
      assert.ok(rec, `tx ${h} of block ${blk.height} is recorded`);
      const blob = fromHex(rec.as_hex);
      const { tx, layout, prefixHash } = txHashesFromBlob(blob, b);
      assert.ok(tx.rct?.prunable);
      const keyImages: Uint8Array[] = [];
      const mixRing: CtKey[][] = [];
      for (const vin of tx.vin) {
        assert.equal(vin.type, "key");
        if (vin.type !== "key") continue;
        keyImages.push(vin.keyImage);
        // ring members are always older than the spending tx, so already indexed
        mixRing.push(relativeToAbsoluteOffsets(vin.keyOffsets).map((g) => outputs[Number(g)]));
      }
      const message = preMlsagHash(b, prefixHash, blob.subarray(layout.prefixSize, layout.unprunableSize), tx.rct);
      txs.push({ hash: h, height: blk.height, item: { rct: tx.rct, message, keyImages, mixRing } });
      addOutputs(tx, false);
    }
  }
  return { txs, outputs };
}

let chain: ReturnType<typeof buildChain> | undefined;
const getChain = () => (chain ??= buildChain(be));

test("all 154 recorded wallet transactions are RingCT type 6 and verify", () => {
  const { txs } = getChain();
  assert.equal(txs.length, 154);
  for (const t of txs) {
    assert.equal(t.item.rct.type, 6);
    for (const ring of t.item.mixRing) for (const m of ring) assert.ok(m, `ring member of ${t.hash} found`);
    assert.ok(verifyRctSimple(be, t.item), `tx ${t.hash} at height ${t.height} verifies`);
  }
});

test("block by block batch verification (all range proofs of a block in one multi-exponentiation)", () => {
  const { txs } = getChain();
  const byHeight = new Map<number, RctVerifyItem[]>();
  for (const t of txs) byHeight.set(t.height, [...(byHeight.get(t.height) ?? []), t.item]);
  assert.ok([...byHeight.values()].some((v) => v.length > 1), "some block holds several transactions");
  for (const [h, items] of byHeight) assert.ok(verifyRctBatch(be, items), `block ${h}`);
  // the whole chain's range proofs in one batch
  assert.ok(verifyRctSemantics(be, txs.map((t) => t.item.rct)));
});

test("the pure-TS backend agrees on a few transactions", () => {
  const ts = getBackend("ts");
  const { txs } = getChain();
  for (const t of [txs[0], txs[txs.length - 1]]) assert.ok(verifyRctSimple(ts, t.item), t.hash);
});

/** A copy with one bit of one key flipped. */
function flip(k: Uint8Array, byte = 0): Uint8Array {
  const c = k.slice();
  c[byte] ^= 1;
  return c;
}

test("changing any signature, proof, commitment, key image or ring member byte makes verification fail", () => {
  const { txs } = getChain();
  // a transaction with several inputs and outputs
  const t = txs.find((x) => x.item.keyImages.length >= 2 && x.item.rct.outPk.length >= 2) ?? txs[0];
  const base = t.item;
  const p = base.rct.prunable;
  assert.ok(p);
  let cases = 0;
  const expectFail = (what: string, item: RctVerifyItem): void => {
    cases++;
    assert.equal(verifyRctSimple(be, item), false, what);
  };
  const withPrunable = (patch: Partial<typeof p>): RctVerifyItem => ({ ...base, rct: { ...base.rct, prunable: { ...p, ...patch } } });
  p.CLSAGs.forEach((sig, i) => {
    const put = (s: typeof sig) => withPrunable({ CLSAGs: p.CLSAGs.map((x, j) => (j === i ? s : x)) });
    sig.s.forEach((_, k) => expectFail(`CLSAG ${i} s[${k}]`, put({ ...sig, s: sig.s.map((x, j) => (j === k ? flip(x) : x)) })));
    expectFail(`CLSAG ${i} c1`, put({ ...sig, c1: flip(sig.c1) }));
    expectFail(`CLSAG ${i} D`, put({ ...sig, D: flip(sig.D) }));
    expectFail(`CLSAG ${i} D (high byte)`, put({ ...sig, D: flip(sig.D, 17) }));
  });
  const bp = p.bulletproofsPlus[0];
  const putBp = (x: typeof bp) => withPrunable({ bulletproofsPlus: [x] });
  for (const f of ["A", "A1", "B", "r1", "s1", "d1"] as const) expectFail(`BP+ ${f}`, putBp({ ...bp, [f]: flip(bp[f]) }));
  for (const f of ["L", "R"] as const)
    bp[f].forEach((_, k) => expectFail(`BP+ ${f}[${k}]`, putBp({ ...bp, [f]: bp[f].map((x, j) => (j === k ? flip(x, 9) : x)) })));
  p.pseudoOuts.forEach((_, i) =>
    expectFail(`pseudoOut ${i}`, withPrunable({ pseudoOuts: p.pseudoOuts.map((x, j) => (j === i ? flip(x) : x)) })),
  );
  base.rct.outPk.forEach((_, i) =>
    expectFail(`outPk ${i}`, { ...base, rct: { ...base.rct, outPk: base.rct.outPk.map((x, j) => (j === i ? flip(x) : x)) } }),
  );
  expectFail("fee", { ...base, rct: { ...base.rct, fee: base.rct.fee + 1n } });
  expectFail("message", { ...base, message: flip(base.message) });
  base.keyImages.forEach((_, i) =>
    expectFail(`key image ${i}`, { ...base, keyImages: base.keyImages.map((x, j) => (j === i ? flip(x) : x)) }),
  );
  base.mixRing.forEach((ring, i) =>
    ring.forEach((m, k) => {
      const put = (mm: CtKey) => ({ ...base, mixRing: base.mixRing.map((r, j) => (j === i ? r.map((x, l) => (l === k ? mm : x)) : r)) });
      expectFail(`ring ${i} member ${k} key`, put({ ...m, dest: flip(m.dest) }));
      expectFail(`ring ${i} member ${k} commitment`, put({ ...m, mask: flip(m.mask) }));
    }),
  );
  // and a ring member swapped for another real output
  const other = getChain().outputs[3];
  expectFail("ring member replaced", { ...base, mixRing: [[other, ...base.mixRing[0].slice(1)], ...base.mixRing.slice(1)] });
  assert.ok(cases > 100, `${cases} tamper cases`);
  // the untouched item still verifies (the copies shared no mutated state)
  assert.ok(verifyRctSimple(be, base));
});

test("a tampered transaction makes its block's batch fail", () => {
  const { txs } = getChain();
  const items = txs.slice(0, 6).map((t) => t.item);
  assert.ok(verifyRctBatch(be, items));
  const bad = items.map((it, i) => {
    if (i !== 4) return it;
    const p = it.rct.prunable;
    assert.ok(p);
    const bp = p.bulletproofsPlus[0];
    return { ...it, rct: { ...it.rct, prunable: { ...p, bulletproofsPlus: [{ ...bp, d1: flip(bp.d1) }] } } };
  });
  assert.equal(verifyRctBatch(be, bad), false);
  assert.equal(verifyRctSemantics(be, bad.map((i) => i.rct)), false);
  // signatures alone still hold: only the range proof was touched
  assert.ok(bad.every((i) => verifyRctNonSemantics(be, i)));
});

test("a transaction parsed again from its blob gives the same pre-MLSAG message", () => {
  const { txs } = getChain();
  const rec = recordedTxs().find((r) => r.tx_hash === txs[0].hash);
  assert.ok(rec);
  const blob = fromHex(rec.as_hex);
  const tx = parseTransaction(blob);
  const { layout, prefixHash } = txHashesFromBlob(blob, be);
  assert.ok(tx.rct);
  assert.deepEqual(preMlsagHash(be, prefixHash, blob.subarray(layout.prefixSize, layout.unprunableSize), tx.rct), txs[0].item.message);
});

test("verification in worker threads: the chain's blocks verify while the event loop keeps running", async () => {
  const { txs } = getChain();
  const byHeight = new Map<number, RctVerifyItem[]>();
  for (const t of txs) byHeight.set(t.height, [...(byHeight.get(t.height) ?? []), t.item]);
  const pool = new RctVerifyPool(2);
  try {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const results = await Promise.all([...byHeight.values()].map((items) => pool.verify(items)));
    clearInterval(timer);
    assert.ok(results.every((r) => r === true));
    assert.ok(ticks > 0, "timers ran while the workers verified");
    // a tampered item fails in the worker too, in each mode that covers it
    const it = txs[0].item;
    const p = it.rct.prunable;
    assert.ok(p);
    const badSig = { ...it, message: flip(it.message) };
    const badRange = { ...it, rct: { ...it.rct, prunable: { ...p, bulletproofsPlus: [{ ...p.bulletproofsPlus[0], r1: flip(p.bulletproofsPlus[0].r1) }] } } };
    assert.deepEqual(await pool.verifyEach([it, badSig, badRange]), [true, false, false]);
    assert.equal(await pool.verify([badSig], "semantics"), true);
    assert.equal(await pool.verify([badSig], "signatures"), false);
    assert.equal(await pool.verify([badRange], "signatures"), true);
    assert.equal(await pool.verify([badRange], "semantics"), false);
  } finally {
    await pool.close();
  }
});

test("flipping any bit-0 of the RingCT bytes of a recorded transaction is rejected (parse or verify)", () => {
  // every STRIDE-th byte by default (TSMONERO_RINGCT_EVERY_BYTE=1: every byte) of rct base + prunable
  const stride = process.env.TSMONERO_RINGCT_EVERY_BYTE === "1" ? 1 : 8;
  const { txs } = getChain();
  const t = txs.find((x) => x.item.keyImages.length >= 2 && x.item.rct.outPk.length >= 2) ?? txs[0];
  const rec = recordedTxs().find((r) => r.tx_hash === t.hash);
  assert.ok(rec);
  const blob = fromHex(rec.as_hex);
  const { layout } = txHashesFromBlob(blob, be);
  let rejected = 0;
  let tried = 0;
  for (let at = layout.prefixSize; at < blob.length; at += stride) {
    const bad = blob.slice();
    bad[at] ^= 1;
    tried++;
    let parsed: ReturnType<typeof txHashesFromBlob>;
    try {
      parsed = txHashesFromBlob(bad, be);
    } catch {
      rejected++;
      continue;
    }
    const { tx, prefixHash } = parsed;
    if (!tx.rct?.prunable) {
      rejected++;
      continue;
    }
    const message = preMlsagHash(be, prefixHash, bad.subarray(parsed.layout.prefixSize, parsed.layout.unprunableSize), tx.rct);
    const ok = verifyRctSimple(be, { ...t.item, rct: tx.rct, message });
    assert.equal(ok, false, `byte ${at - layout.prefixSize} of the RingCT part flipped and still verified`);
    rejected++;
  }
  assert.equal(rejected, tried);
  assert.ok(tried > 500 / stride);
});
