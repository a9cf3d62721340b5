// Range proofs: our Bulletproofs+ for 1..16 amounts verify alone and in batches; every altered
// field fails. Bulletproofs (v1/v2) and Borromean have no recorded ring data here, so their
// verifiers are checked against our own proofs made by Monero's algorithms as written, plus the
// real type-2 transaction of Monero's fuzz corpus (its Borromean proofs and balance need no ring).
// Rounds: 40 BP+ by default; TSMONERO_RINGCT_ROUNDS=N runs N.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { defaultBackend, getBackend } from "../src/crypto/index.js";
import { MoneroTestRandom, randomScalar } from "../src/crypto/random.js";
import { commit } from "../src/crypto/ringct/amounts.js";
import { proveBorromeanRange, verifyBorromeanRange } from "../src/crypto/ringct/borromean.js";
import { bulletproofProve, bulletproofVerify } from "../src/crypto/ringct/bulletproof.js";
import { type BulletproofPlusProof, bulletproofPlusNonceCount, bulletproofPlusProve, bulletproofPlusProveWith, bulletproofPlusVerify } from "../src/crypto/ringct/bulletproof-plus.js";
import { setProverThreads } from "../src/crypto/native/index.js";
import { generators } from "../src/crypto/ringct/generators.js";
import { INV_EIGHT } from "../src/crypto/ringct/scalar.js";
import { verifyRctSemantics } from "../src/crypto/ringct/verify.js";
import { parseTransaction } from "../src/protocol/tx.js";

const be = defaultBackend();
const ENV_ROUNDS = Number(process.env.TSMONERO_RINGCT_ROUNDS ?? 0);
const rounds = (dflt: number): number => (ENV_ROUNDS > 0 ? ENV_ROUNDS : dflt);
const U64_MAX = (1n << 64n) - 1n;

function flip(k: Uint8Array, byte = 0): Uint8Array {
  const c = k.slice();
  c[byte] ^= 1;
  return c;
}

function randomAmount(): bigint {
  switch (randomInt(0, 4)) {
    case 0:
      return 0n;
    case 1:
      return U64_MAX;
    default:
      return (BigInt(randomInt(0, 2 ** 32)) << 32n) | BigInt(randomInt(0, 2 ** 32));
  }
}

test("generators: Gi/Hi differ per family and index and are the same on both backends", () => {
  const a = generators(be, "bulletproof_plus", 4);
  const b = generators(be, "bulletproof", 4);
  assert.notDeepEqual(a.Gi, b.Gi);
  assert.notDeepEqual(a.Gi, a.Hi);
  const ts = getBackend("ts");
  // recompute the first ones on TS: keccak(H ‖ tag ‖ varint(k)) then hash_to_ec
  const H = Buffer.from("8b655970153799af2aeadc9ff1add0ea6c7251d54154cfa92c173a0dd39c1f94", "hex");
  const gen = (tag: string, k: number) => ts.hashToEc(ts.keccak256(Buffer.concat([H, Buffer.from(tag), Buffer.from([k])])));
  assert.deepEqual(a.Hi.subarray(0, 32), gen("bulletproof_plus", 0));
  assert.deepEqual(a.Gi.subarray(32, 64), gen("bulletproof_plus", 3));
  assert.deepEqual(b.Gi.subarray(0, 32), gen("bulletproof", 1));
});

test(`Bulletproofs+: prove/verify random amounts for random output counts (${rounds(40)} rounds), then all in one batch`, () => {
  const all: BulletproofPlusProof[] = [];
  for (let r = 0; r < rounds(40); r++) {
    const m = r < 3 ? [1, 2, 16][r] : randomInt(1, 5);
    const amounts = Array.from({ length: m }, randomAmount);
    const gammas = amounts.map(() => randomScalar(be));
    const proof = bulletproofPlusProve(be, amounts, gammas);
    assert.equal(proof.V.length, m);
    // V is the commitment divided by 8
    amounts.forEach((v, i) => assert.deepEqual(be.pointMul8(proof.V[i]), commit(be, v, gammas[i])));
    assert.ok(bulletproofPlusVerify(be, [proof]), `round ${r}, ${m} amounts`);
    all.push(proof);
  }
  assert.ok(bulletproofPlusVerify(be, all));
  // one bad proof spoils the batch
  const bad = all.map((p, i) => (i === all.length - 1 ? { ...p, d1: flip(p.d1) } : p));
  assert.equal(bulletproofPlusVerify(be, bad), false);
});

test("Bulletproofs+: every field of a 2-output proof matters", () => {
  const proof = bulletproofPlusProve(be, [5n, 1n << 40n], [randomScalar(be), randomScalar(be)]);
  assert.ok(bulletproofPlusVerify(be, [proof]));
  let cases = 0;
  const fails = (what: string, p: BulletproofPlusProof) => {
    cases++;
    assert.equal(bulletproofPlusVerify(be, [p]), false, what);
  };
  for (const f of ["A", "A1", "B", "r1", "s1", "d1"] as const) fails(f, { ...proof, [f]: flip(proof[f]) });
  for (const f of ["V", "L", "R"] as const)
    proof[f].forEach((_, k) => fails(`${f}[${k}]`, { ...proof, [f]: proof[f].map((x, j) => (j === k ? flip(x, 3) : x)) }));
  fails("a V dropped", { ...proof, V: proof.V.slice(1) });
  fails("L/R shortened", { ...proof, L: proof.L.slice(1), R: proof.R.slice(1) });
  fails("non-canonical r1", { ...proof, r1: new Uint8Array(32).fill(0xff) });
  assert.ok(cases >= 6 + 2 + 14 + 3);
});

test("Bulletproofs+: 2^64 cannot be proved, and a proof does not carry over to another amount", () => {
  assert.throws(() => bulletproofPlusProve(be, [1n << 64n], [randomScalar(be)]), RangeError);
  const g = randomScalar(be);
  const proof = bulletproofPlusProve(be, [7n], [g]);
  const other = be.scalarMult(INV_EIGHT, commit(be, 8n, g));
  assert.ok(other);
  assert.equal(bulletproofPlusVerify(be, [{ ...proof, V: [other] }]), false);
});

test("Bulletproofs+ on the TS backend: same proof from the same randomness, cross-verified", () => {
  const ts = getBackend("ts");
  const gam = [randomScalar(be)];
  const p1 = bulletproofPlusProve(be, [42n], gam, new MoneroTestRandom(new Uint8Array(200).fill(9)));
  const p2 = bulletproofPlusProve(ts, [42n], gam, new MoneroTestRandom(new Uint8Array(200).fill(9)));
  assert.deepEqual(p1, p2);
  assert.ok(bulletproofPlusVerify(ts, [p1]));
});

test("Bulletproofs+ in the C kernel: the same bytes as the TypeScript prover for the same nonces, on 1 and 2 threads", { skip: be.bulletproofPlusProve ? false : "C kernel not loaded" }, () => {
  for (const m of [1, 2, 3, 5, 9, 16]) {
    const amounts = Array.from({ length: m }, (_, i) => (i === 0 ? 0n : i === 1 ? U64_MAX : randomAmount()));
    const gammas = amounts.map(() => randomScalar(be));
    const nonces = Array.from({ length: bulletproofPlusNonceCount(m) }, () => randomScalar(be));
    const portable = bulletproofPlusProveWith(be, amounts, gammas, nonces, true);
    assert.ok(portable, "a zero challenge (probability 2^-250)");
    for (const t of [1, 2] as const) {
      setProverThreads(t);
      assert.deepEqual(bulletproofPlusProveWith(be, amounts, gammas, nonces), portable, `${m} amounts, ${t} thread(s)`);
    }
    assert.ok(bulletproofPlusVerify(be, [portable]), `${m} amounts verify`);
  }
  assert.throws(() => bulletproofPlusProveWith(be, [1n], [randomScalar(be)], []), RangeError);
});

test("Bulletproofs (v1/v2): our proofs for 1, 2 and 3 amounts verify, alone and batched; alterations fail", () => {
  const proofs = [1, 2, 3].map((m) => {
    const amounts = Array.from({ length: m }, randomAmount);
    const gammas = amounts.map(() => randomScalar(be));
    const p = bulletproofProve(be, amounts, gammas);
    amounts.forEach((v, i) => assert.deepEqual(be.pointMul8(p.V[i]), commit(be, v, gammas[i])));
    assert.ok(bulletproofVerify(be, [p]), `${m} amounts`);
    return p;
  });
  assert.ok(bulletproofVerify(be, proofs));
  const p = proofs[1];
  for (const f of ["A", "S", "T1", "T2", "taux", "mu", "a", "b", "t"] as const)
    assert.equal(bulletproofVerify(be, [{ ...p, [f]: flip(p[f]) }]), false, f);
  for (const f of ["V", "L", "R"] as const)
    p[f].forEach((_, k) => assert.equal(bulletproofVerify(be, [{ ...p, [f]: p[f].map((x, j) => (j === k ? flip(x, 2) : x)) }]), false, `${f}[${k}]`));
  assert.equal(bulletproofVerify(be, [proofs[0], { ...p, t: flip(p.t) }]), false);
});

test("Borromean range proofs: ours verify and alterations fail", () => {
  for (const amount of [0n, 1n, 123456789n, U64_MAX]) {
    const r = proveBorromeanRange(be, amount);
    assert.deepEqual(r.C, commit(be, amount, r.mask));
    assert.ok(verifyBorromeanRange(be, r.C, r.asig, r.Ci));
  }
  const r = proveBorromeanRange(be, 1000n);
  for (const at of [0, 64 * 32 + 5, 128 * 32 + 1]) assert.equal(verifyBorromeanRange(be, r.C, flip(r.asig, at), r.Ci), false, `asig byte ${at}`);
  assert.equal(verifyBorromeanRange(be, r.C, r.asig, flip(r.Ci, 32 * 7)), false);
  assert.equal(verifyBorromeanRange(be, commit(be, 1001n, r.mask), r.asig, r.Ci), false);
});

const TX2 = "/usr/share/monero/testdata/fuzz/transaction/TX2";

test("a real RCTTypeSimple transaction (Monero's fuzz corpus TX2): balance and Borromean range proofs verify", { skip: !existsSync(TX2) && "Monero's fuzz corpus not installed" }, () => {
  const tx = parseTransaction(new Uint8Array(readFileSync(TX2)));
  assert.ok(tx.rct?.prunable);
  assert.equal(tx.rct.type, 2);
  assert.equal(tx.rct.prunable.rangeSigs.length, 2);
  assert.ok(verifyRctSemantics(be, [tx.rct]));
  const p = tx.rct.prunable;
  const rs = p.rangeSigs[1];
  assert.equal(verifyRctSemantics(be, [{ ...tx.rct, prunable: { ...p, rangeSigs: [p.rangeSigs[0], { ...rs, asig: flip(rs.asig, 100) }] } }]), false);
  assert.equal(verifyRctSemantics(be, [{ ...tx.rct, fee: tx.rct.fee + 1n }]), false);
  assert.equal(verifyRctSemantics(be, [{ ...tx.rct, pseudoOuts: [flip(tx.rct.pseudoOuts[0]), tx.rct.pseudoOuts[1]] }]), false);
});
