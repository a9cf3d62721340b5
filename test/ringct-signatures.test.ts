// CLSAG and MLSAG: our signatures verify under our verifier for random amounts, ring sizes and
// signer positions, and every altered part makes verification fail. Rounds: 300 CLSAG / 60 MLSAG
// by default; TSMONERO_RINGCT_ROUNDS=N runs N of each (e.g. 3000).
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { test } from "node:test";
import type { CryptoBackend } from "../src/crypto/backend.js";
import { availableBackends, defaultBackend, getBackend } from "../src/crypto/index.js";
import { MoneroTestRandom, randomScalar } from "../src/crypto/random.js";
import { commit } from "../src/crypto/ringct/amounts.js";
import { clsagSign, clsagSignWith, clsagVerify } from "../src/crypto/ringct/clsag.js";
import { mlsagSign, mlsagSignSimple, mlsagVerify, mlsagVerifySimple } from "../src/crypto/ringct/mlsag.js";
import { proveBorromeanRange } from "../src/crypto/ringct/borromean.js";
import { type CtKey, fullRctMatrix, verifyRctNonSemantics, verifyRctSemantics, verifyRctSimple } from "../src/crypto/ringct/verify.js";

const be = defaultBackend();
const ENV_ROUNDS = Number(process.env.TSMONERO_RINGCT_ROUNDS ?? 0);
const rounds = (dflt: number): number => (ENV_ROUNDS > 0 ? ENV_ROUNDS : dflt);

function flip(k: Uint8Array, byte = 0): Uint8Array {
  const c = k.slice();
  c[byte] ^= 1;
  return c;
}

const randomAmount = (): bigint => BigInt(randomInt(0, 2 ** 48 - 1)) * BigInt(randomInt(1, 65536));

/** A ring of n members with a real spendable one at l, and a pseudo output for the same amount. */
function makeRing(b: CryptoBackend, n: number, l: number, amount: bigint) {
  const P: Uint8Array[] = [];
  const C: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    P.push(b.scalarMultBase(randomScalar(b)));
    C.push(commit(b, randomAmount(), randomScalar(b)));
  }
  const p = randomScalar(b);
  P[l] = b.scalarMultBase(p);
  const mask = randomScalar(b);
  C[l] = commit(b, amount, mask);
  const a = randomScalar(b);
  const cOffset = commit(b, amount, a);
  return { P, C, p, z: b.scSub(mask, a), cOffset };
}

test(`CLSAG: sign/verify with random amounts, ring sizes 1..16 and positions (${rounds(300)} rounds)`, () => {
  for (let r = 0; r < rounds(300); r++) {
    const n = r % 4 === 0 ? 16 : randomInt(1, 17);
    const l = randomInt(0, n);
    const ring = makeRing(be, n, l, randomAmount());
    const msg = randomScalar(be);
    const { signature, keyImage } = clsagSign(be, msg, ring.P, ring.C, ring.p, ring.z, ring.cOffset, l);
    assert.equal(signature.s.length, n);
    assert.deepEqual(keyImage, be.generateKeyImage(ring.P[l], ring.p));
    assert.ok(clsagVerify(be, msg, signature, ring.P, ring.C, keyImage, ring.cOffset), `round ${r} n=${n} l=${l}`);
    // one random alteration per round
    switch (r % 6) {
      case 0: {
        const k = randomInt(0, n);
        assert.ok(!clsagVerify(be, msg, { ...signature, s: signature.s.map((x, j) => (j === k ? flip(x) : x)) }, ring.P, ring.C, keyImage, ring.cOffset));
        break;
      }
      case 1:
        assert.ok(!clsagVerify(be, msg, { ...signature, c1: flip(signature.c1) }, ring.P, ring.C, keyImage, ring.cOffset));
        break;
      case 2:
        assert.ok(!clsagVerify(be, msg, { ...signature, D: flip(signature.D, 5) }, ring.P, ring.C, keyImage, ring.cOffset));
        break;
      case 3:
        assert.ok(!clsagVerify(be, flip(msg), signature, ring.P, ring.C, keyImage, ring.cOffset));
        break;
      case 4: {
        const k = randomInt(0, n);
        assert.ok(!clsagVerify(be, msg, signature, ring.P, ring.C.map((x, j) => (j === k ? flip(x) : x)), keyImage, ring.cOffset));
        break;
      }
      default:
        assert.ok(!clsagVerify(be, msg, signature, ring.P, ring.C, keyImage, flip(ring.cOffset)));
    }
  }
});

test("CLSAG: a pseudo output for a different amount cannot be signed into a valid signature", () => {
  const ring = makeRing(be, 11, 4, 1000n);
  const wrong = commit(be, 999n, randomScalar(be));
  // the signer does not know z for this offset; using the one it has must not verify
  const msg = randomScalar(be);
  const { signature, keyImage } = clsagSign(be, msg, ring.P, ring.C, ring.p, ring.z, wrong, 4);
  assert.equal(clsagVerify(be, msg, signature, ring.P, ring.C, keyImage, wrong), false);
  // nor with the wrong secret key
  const s2 = clsagSign(be, msg, ring.P, ring.C, randomScalar(be), ring.z, ring.cOffset, 4);
  assert.equal(clsagVerify(be, msg, s2.signature, ring.P, ring.C, s2.keyImage, ring.cOffset), false);
  // nor with the real key image replaced by another key's
  const real = clsagSign(be, msg, ring.P, ring.C, ring.p, ring.z, ring.cOffset, 4);
  assert.ok(clsagVerify(be, msg, real.signature, ring.P, ring.C, real.keyImage, ring.cOffset));
  const otherImage = be.generateKeyImage(ring.P[0], randomScalar(be));
  assert.equal(clsagVerify(be, msg, real.signature, ring.P, ring.C, otherImage, ring.cOffset), false);
  // identity key image and wrong sizes are refused, not thrown
  const id = new Uint8Array(32);
  id[0] = 1;
  assert.equal(clsagVerify(be, msg, real.signature, ring.P, ring.C, id, ring.cOffset), false);
  assert.equal(clsagVerify(be, msg, real.signature, ring.P.slice(1), ring.C.slice(1), real.keyImage, ring.cOffset), false);
  const bad = new Uint8Array(32).fill(0xff); // y ≥ p: does not decode
  assert.equal(clsagVerify(be, msg, real.signature, ring.P.map((x, j) => (j === 2 ? bad : x)), ring.C, real.keyImage, ring.cOffset), false);
});

test("CLSAG: both backends produce identical signatures from the same randomness, and accept each other's", () => {
  const backs = availableBackends();
  const ts = getBackend("ts");
  for (let r = 0; r < 4; r++) {
    const n = 16;
    const l = randomInt(0, n);
    const ring = makeRing(be, n, l, randomAmount());
    const msg = randomScalar(be);
    const sigs = backs.map((b) => clsagSign(b, msg, ring.P, ring.C, ring.p, ring.z, ring.cOffset, l, new MoneroTestRandom(new Uint8Array(200).fill(r + 1))));
    for (const s of sigs) assert.deepEqual(s, sigs[0]);
    assert.ok(clsagVerify(ts, msg, sigs[0].signature, ring.P, ring.C, sigs[0].keyImage, ring.cOffset));
    assert.ok(clsagVerify(be, msg, sigs[0].signature, ring.P, ring.C, sigs[0].keyImage, ring.cOffset));
  }
});

test("CLSAG in the C kernel: the same bytes as the TypeScript signer for the same nonces; bad ring members named", { skip: be.clsagSign ? false : "C kernel not loaded" }, () => {
  for (const [n, l] of [[1, 0], [2, 1], [11, 0], [16, 7], [16, 15]]) {
    const ring = makeRing(be, n, l, randomAmount());
    const msg = randomScalar(be);
    const nonces = Array.from({ length: n }, () => randomScalar(be));
    const kernel = clsagSignWith(be, msg, ring.P, ring.C, ring.p, ring.z, ring.cOffset, l, nonces);
    assert.deepEqual(kernel, clsagSignWith(be, msg, ring.P, ring.C, ring.p, ring.z, ring.cOffset, l, nonces, true), `n=${n} l=${l}`);
    assert.ok(clsagVerify(be, msg, kernel.signature, ring.P, ring.C, kernel.keyImage, ring.cOffset));
  }
  const ring = makeRing(be, 4, 0, 5n);
  const bad = new Uint8Array(32).fill(0xff); // y ≥ p: does not decode
  const nonces = Array.from({ length: 4 }, () => randomScalar(be));
  assert.throws(() => clsagSignWith(be, randomScalar(be), ring.P.map((x, j) => (j === 2 ? bad : x)), ring.C, ring.p, ring.z, ring.cOffset, 0, nonces), /ring member 2 does not decode/);
  assert.throws(() => clsagSignWith(be, randomScalar(be), ring.P, ring.C, ring.p, ring.z, bad, 0, nonces), /pseudo output does not decode/);
  assert.throws(() => clsagSignWith(be, randomScalar(be), ring.P, ring.C, ring.p, ring.z, ring.cOffset, 0, nonces.slice(1)), RangeError);
});

/** s + ℓ as 32 bytes (s canonical, so it stays below 2^253): the same residue, written non-canonically. */
function plusL(s: Uint8Array): Uint8Array {
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  let v = L;
  for (let i = 31; i >= 0; i--) v += BigInt(s[i]) << BigInt(8 * i);
  return Uint8Array.from({ length: 32 }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
}

test("CLSAG and MLSAG refuse a response or challenge written non-canonically (x + ℓ), which the algebra alone would accept", () => {
  const ring = makeRing(be, 11, 4, 1000n);
  const msg = randomScalar(be);
  const c = clsagSign(be, msg, ring.P, ring.C, ring.p, ring.z, ring.cOffset, 4);
  assert.ok(clsagVerify(be, msg, c.signature, ring.P, ring.C, c.keyImage, ring.cOffset));
  for (const k of [0, 4, 10]) {
    const s = c.signature.s.map((x, j) => (j === k ? plusL(x) : x));
    assert.equal(clsagVerify(be, msg, { ...c.signature, s }, ring.P, ring.C, c.keyImage, ring.cOffset), false, `s[${k}] + ℓ`);
  }
  assert.equal(clsagVerify(be, msg, { ...c.signature, c1: plusL(c.signature.c1) }, ring.P, ring.C, c.keyImage, ring.cOffset), false, "c1 + ℓ");
  const m = mlsagSignSimple(be, msg, ring.P, ring.C, ring.p, ring.z, ring.cOffset, 4);
  assert.ok(mlsagVerifySimple(be, msg, m.signature, ring.P, ring.C, m.keyImage, ring.cOffset));
  const ss = m.signature.ss.map((col, i) => (i === 7 ? col.map((x, j) => (j === 1 ? plusL(x) : x)) : col));
  assert.equal(mlsagVerifySimple(be, msg, { ...m.signature, ss }, ring.P, ring.C, m.keyImage, ring.cOffset), false, "ss[7][1] + ℓ");
  assert.equal(mlsagVerifySimple(be, msg, { ...m.signature, cc: plusL(m.signature.cc) }, ring.P, ring.C, m.keyImage, ring.cOffset), false, "cc + ℓ");
});

test(`MLSAG (simple, 2 rows): sign/verify and alterations (${rounds(60)} rounds)`, () => {
  for (let r = 0; r < rounds(60); r++) {
    const n = randomInt(2, 12);
    const l = randomInt(0, n);
    const ring = makeRing(be, n, l, randomAmount());
    const msg = randomScalar(be);
    const { signature, keyImage } = mlsagSignSimple(be, msg, ring.P, ring.C, ring.p, ring.z, ring.cOffset, l);
    assert.deepEqual(keyImage, be.generateKeyImage(ring.P[l], ring.p));
    assert.ok(mlsagVerifySimple(be, msg, signature, ring.P, ring.C, keyImage, ring.cOffset), `round ${r}`);
    const col = randomInt(0, n);
    const row = randomInt(0, 2);
    const ss = signature.ss.map((c, i) => (i === col ? c.map((x, j) => (j === row ? flip(x) : x)) : c));
    assert.ok(!mlsagVerifySimple(be, msg, { ...signature, ss }, ring.P, ring.C, keyImage, ring.cOffset));
    assert.ok(!mlsagVerifySimple(be, msg, { ...signature, cc: flip(signature.cc) }, ring.P, ring.C, keyImage, ring.cOffset));
    assert.ok(!mlsagVerifySimple(be, flip(msg), signature, ring.P, ring.C, keyImage, ring.cOffset));
    assert.ok(!mlsagVerifySimple(be, msg, signature, ring.P, ring.C, flip(keyImage), ring.cOffset));
    assert.ok(!mlsagVerifySimple(be, msg, signature, ring.P.map((x, j) => (j === col ? flip(x) : x)), ring.C, keyImage, ring.cOffset));
  }
});

test("MLSAG with several linkable rows (the RCTTypeFull shape: inputs + 1 rows)", () => {
  const cols = 5;
  const rows = 3;
  const dsRows = 2;
  const index = 3;
  const x = Array.from({ length: rows }, () => randomScalar(be));
  const pk = Array.from({ length: cols }, (_, c) =>
    Array.from({ length: rows }, (_, j) => (c === index ? be.scalarMultBase(x[j]) : be.scalarMultBase(randomScalar(be)))),
  );
  const msg = randomScalar(be);
  const { signature, keyImages } = mlsagSign(be, msg, pk, x, index, dsRows);
  assert.equal(keyImages.length, dsRows);
  assert.ok(mlsagVerify(be, msg, pk, signature, keyImages, dsRows));
  assert.ok(!mlsagVerify(be, msg, pk, signature, [keyImages[1], keyImages[0]], dsRows));
  assert.ok(!mlsagVerify(be, msg, pk, signature, keyImages, dsRows - 1));
  assert.throws(() => mlsagSign(be, msg, [pk[0]], x, 0, dsRows), RangeError);
});

test("RCTTypeFull: Borromean outputs and one MLSAG over all inputs plus the balance row (verRct)", () => {
  const inputs = 2;
  const n = 5;
  const index = 2;
  const fee = 1000n;
  const inAmounts = [7000n, 5000n];
  const outAmounts = [9000n, 2000n];
  const p = inAmounts.map(() => randomScalar(be));
  const inMasks = inAmounts.map(() => randomScalar(be));
  const mixRing: CtKey[][] = inAmounts.map((amt, j) =>
    Array.from({ length: n }, (_, i) =>
      i === index
        ? { dest: be.scalarMultBase(p[j]), mask: commit(be, amt, inMasks[j]) }
        : { dest: be.scalarMultBase(randomScalar(be)), mask: commit(be, 1n + BigInt(i), randomScalar(be)) },
    ),
  );
  const ranges = outAmounts.map((a) => proveBorromeanRange(be, a));
  const outMasks = ranges.map((r) => r.mask);
  const outPk = ranges.map((r) => r.C);
  const M = fullRctMatrix(be, mixRing, outPk, fee);
  assert.ok(M);
  // the last row's secret: Σ input masks − Σ output masks
  let z: Uint8Array = new Uint8Array(32);
  for (const m of inMasks) z = be.scAdd(z, m);
  for (const m of outMasks) z = be.scSub(z, m);
  const msg = randomScalar(be);
  const { signature, keyImages } = mlsagSign(be, msg, M, [...p, z], index, inputs);
  const rct = {
    type: 1,
    fee,
    pseudoOuts: [],
    ecdhInfo: outPk.map(() => ({ amount: new Uint8Array(32), mask: new Uint8Array(32) })),
    outPk,
    prunable: { rangeSigs: ranges.map((r) => ({ asig: r.asig, Ci: r.Ci })), bulletproofs: [], bulletproofsPlus: [], MGs: [signature], CLSAGs: [], pseudoOuts: [] },
  };
  const item = { rct, message: msg, keyImages, mixRing };
  assert.ok(verifyRctNonSemantics(be, item));
  assert.equal(verifyRctNonSemantics(be, { ...item, rct: { ...rct, fee: fee + 1n } }), false, "fee changes the balance row");
  assert.equal(verifyRctNonSemantics(be, { ...item, rct: { ...rct, outPk: [commit(be, 9001n, outMasks[0]), outPk[1]] } }), false);
  assert.equal(verifyRctNonSemantics(be, { ...item, keyImages: [keyImages[1], keyImages[0]] }), false);
  const ring1 = mixRing[1].map((m, i) => (i === 0 ? { ...m, mask: flip(m.mask) } : m));
  assert.equal(verifyRctNonSemantics(be, { ...item, mixRing: [mixRing[0], ring1] }), false);
  // semantics for Full: one MG and one valid Borromean proof per output
  assert.ok(verifyRctSemantics(be, [rct]));
  assert.ok(verifyRctSimple(be, item));
  assert.equal(verifyRctSemantics(be, [{ ...rct, prunable: { ...rct.prunable, rangeSigs: rct.prunable.rangeSigs.slice(1) } }]), false);
});
