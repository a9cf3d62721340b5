// End to end: a type-6 transaction built by our prover (BP+ over the outputs, pseudo outputs,
// one CLSAG per input) serializes, parses back and verifies with the same code that verifies the
// recorded chain; random amounts, input/output counts and ring positions.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { test } from "node:test";
import { defaultBackend } from "../src/crypto/index.js";
import { randomScalar } from "../src/crypto/random.js";
import { commit, encryptAmount } from "../src/crypto/ringct/amounts.js";
import { keyImageOf, proveRctClsagBpp, type RctInputSecret } from "../src/crypto/ringct/prove.js";
import { type CtKey, preMlsagHash, type RctSigLike, verifyRctSimple } from "../src/crypto/ringct/verify.js";
import type { RctSignatures } from "../src/protocol/rct.js";
import { txHashesFromBlob, txPrefixHash } from "../src/protocol/tx-hash.js";
import { absoluteToRelativeOffsets, serializeRctBase, serializeTransaction, type Transaction } from "../src/protocol/tx.js";

const be = defaultBackend();
const ROUNDS = Number(process.env.TSMONERO_RINGCT_ROUNDS ?? 0) || 12;

function randomMember(): CtKey {
  return { dest: be.scalarMultBase(randomScalar(be)), mask: commit(be, BigInt(randomInt(1, 2 ** 40)), randomScalar(be)) };
}

function buildTx(nIn: number, nOut: number) {
  const ringSize = 16;
  const fee = BigInt(randomInt(1, 1e9));
  const outAmounts = Array.from({ length: nOut }, () => BigInt(randomInt(0, 2 ** 47)));
  const total = outAmounts.reduce((s, x) => s + x, 0n) + fee;
  // split the total over the inputs
  const inAmounts: bigint[] = [];
  let left = total;
  for (let i = 0; i < nIn - 1; i++) {
    const part = left / BigInt(nIn - i) + BigInt(randomInt(0, 1000));
    inAmounts.push(part);
    left -= part;
  }
  inAmounts.push(left);
  const inputs: RctInputSecret[] = inAmounts.map((amount) => {
    const ring = Array.from({ length: ringSize }, randomMember);
    const realIndex = randomInt(0, ringSize);
    const secretKey = randomScalar(be);
    const mask = randomScalar(be);
    ring[realIndex] = { dest: be.scalarMultBase(secretKey), mask: commit(be, amount, mask) };
    return { ring, realIndex, secretKey, mask, amount };
  });
  const outputs = outAmounts.map((amount) => {
    const shared = randomScalar(be);
    return { amount, mask: randomScalar(be), encryptedAmount: encryptAmount(be, shared, amount) };
  });
  const offsets = Array.from({ length: ringSize }, (_, i) => BigInt(10 * i + randomInt(0, 10)));
  const prefix: Transaction = {
    version: 2,
    unlockTime: 0n,
    vin: inputs.map((inp) => ({ type: "key" as const, amount: 0n, keyOffsets: absoluteToRelativeOffsets(offsets), keyImage: keyImageOf(be, inp) })),
    vout: outputs.map(() => ({ amount: 0n, target: { type: "tagged_key" as const, key: be.scalarMultBase(randomScalar(be)), viewTag: randomInt(0, 256) } })),
    extra: Uint8Array.from([1, ...be.scalarMultBase(randomScalar(be))]),
    signatures: [],
    pruned: false,
  };
  const prefixHash = txPrefixHash(prefix, be);
  const { rct, keyImages } = proveRctClsagBpp(be, {
    prefixHash,
    inputs,
    outputs,
    fee,
    serializeBase: (r: RctSigLike) => serializeRctBase({ ...prefix, rct: r as RctSignatures }),
  });
  keyImages.forEach((k, i) => {
    const vin = prefix.vin[i];
    assert.ok(vin.type === "key");
    assert.deepEqual(k, vin.keyImage);
  });
  return { tx: { ...prefix, rct: rct as RctSignatures }, inputs };
}

test(`our type-6 transactions verify after a serialize/parse round trip (${ROUNDS} rounds, 1–3 inputs, 1–5 outputs)`, () => {
  for (let r = 0; r < ROUNDS; r++) {
    const { tx, inputs } = buildTx(randomInt(1, 4), randomInt(1, 6));
    const blob = serializeTransaction(tx);
    const { tx: parsed, layout, prefixHash } = txHashesFromBlob(blob, be);
    assert.ok(parsed.rct?.prunable);
    const message = preMlsagHash(be, prefixHash, blob.subarray(layout.prefixSize, layout.unprunableSize), parsed.rct);
    const keyImages = parsed.vin.map((v) => (v.type === "key" ? v.keyImage : new Uint8Array(32)));
    const item = { rct: parsed.rct, message, keyImages, mixRing: inputs.map((i) => i.ring) };
    assert.ok(verifyRctSimple(be, item), `round ${r}`);
    // a different fee breaks the balance (and the signed message)
    assert.equal(verifyRctSimple(be, { ...item, rct: { ...parsed.rct, fee: parsed.rct.fee + 1n } }), false);
  }
});

test("the prover refuses unbalanced amounts", () => {
  const input: RctInputSecret = { ring: [randomMember()], realIndex: 0, secretKey: randomScalar(be), mask: randomScalar(be), amount: 10n };
  assert.throws(
    () =>
      proveRctClsagBpp(be, {
        prefixHash: new Uint8Array(32),
        inputs: [input],
        outputs: [{ amount: 10n, mask: randomScalar(be), encryptedAmount: new Uint8Array(8) }],
        fee: 1n,
        serializeBase: () => new Uint8Array(0),
      }),
    RangeError,
  );
});
