// Multisig CLSAG (crypto/ringct/clsag-multisig.ts): M signers each answer a partial response with
// their own two nonces; the sum is an ordinary CLSAG that our verifier accepts (2-of-2, 2-of-3 with a
// signer holding two key shares, several ring positions, both backends). A partial from a wrong key,
// a missing partial, or a nonce left out of the group's sum gives a signature that fails.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Bytes, CryptoBackend } from "../src/crypto/backend.js";
import { availableBackends } from "../src/crypto/index.js";
import { randomScalar } from "../src/crypto/random.js";
import { commit } from "../src/crypto/ringct/amounts.js";
import { clsagVerify } from "../src/crypto/ringct/clsag.js";
import { INV_EIGHT } from "../src/crypto/ringct/scalar.js";
import {
  MULTISIG_ALPHA_COMPONENTS,
  multisigClsagChallenge,
  multisigClsagInit,
  multisigPartialResponse,
  multisigProposerWeight,
  multisigSignerWeight,
} from "../src/crypto/ringct/clsag-multisig.js";

/**
 * One signing round: the one-time key's secret is `derivation` + Σ shares; the proposer knows the
 * derivation part and z, each signer its shares. Returns whether the combined CLSAG verifies.
 */
function round(b: CryptoBackend, n: number, l: number, signers: Bytes[][], opts: { dropSigner?: number; wrongKey?: number; dropNonce?: number } = {}): boolean {
  const derivation = randomScalar(b);
  const x = signers.flat().reduce((acc, k) => b.scAdd(acc, k), derivation);
  const P: Bytes[] = [];
  const C: Bytes[] = [];
  for (let i = 0; i < n; i++) {
    P.push(b.scalarMultBase(randomScalar(b)));
    C.push(commit(b, 5n + BigInt(i), randomScalar(b)));
  }
  P[l] = b.scalarMultBase(x);
  const mask = randomScalar(b);
  C[l] = commit(b, 1000n, mask);
  const a = randomScalar(b);
  const cOffset = commit(b, 1000n, a);
  const z = b.scSub(mask, a);
  const Hp = b.hashToEc(P[l]);
  const I = b.scalarMult(x, Hp) as Bytes;
  const D = b.scalarMult(z, Hp) as Bytes;
  const s = Array.from({ length: n }, () => randomScalar(b));
  const message = randomScalar(b);
  const ctx = multisigClsagInit(b, { P, C, cOffset, message, I, D, l, s });

  // every signer's two nonces, and the group's public sums
  const alphas = signers.map(() => Array.from({ length: MULTISIG_ALPHA_COMPONENTS }, () => randomScalar(b)));
  const totalG: Bytes[] = [];
  const totalH: Bytes[] = [];
  for (let j = 0; j < MULTISIG_ALPHA_COMPONENTS; j++) {
    let g: Bytes | null = null;
    let h: Bytes | null = null;
    alphas.forEach((al, k) => {
      if (opts.dropNonce === k) return;
      const ag = b.scalarMultBase(al[j]);
      const ah = b.scalarMult(al[j], Hp) as Bytes;
      g = g ? b.pointAdd(g, ag) : ag;
      h = h ? b.pointAdd(h, ah) : ah;
    });
    totalG.push(g as unknown as Bytes);
    totalH.push(h as unknown as Bytes);
  }
  const ch = multisigClsagChallenge(b, ctx, totalG, totalH);
  // the proposer (signer 0) signs with the derivation, z and its shares; the others with theirs
  const share0 = signers[0].reduce((acc, k) => b.scAdd(acc, k), derivation);
  let sl = multisigPartialResponse(b, ctx, ch, alphas[0], multisigProposerWeight(b, ctx, share0, z));
  for (let k = 1; k < signers.length; k++) {
    if (opts.dropSigner === k) continue;
    let share = signers[k].reduce((acc, v) => b.scAdd(acc, v), new Uint8Array(32));
    if (opts.wrongKey === k) share = randomScalar(b);
    sl = multisigPartialResponse(b, ctx, ch, alphas[k], multisigSignerWeight(b, ctx, share), sl);
  }
  // a second run of the challenge from the same nonces gives the same values (every signer agrees)
  const again = multisigClsagChallenge(b, ctx, totalG, totalH);
  assert.deepEqual(again, ch);
  const sig = { s: s.map((v, i) => (i === l ? sl : v)), c1: ch.c0, D: b.scalarMult(INV_EIGHT, D) as Bytes };
  return clsagVerify(b, message, sig, P, C, I, cOffset);
}

for (const b of availableBackends()) {
  const name = b.name;
  test(`multisig CLSAG 2-of-2 combines into a valid CLSAG (${name})`, () => {
    for (const [n, l] of [[16, 0], [16, 7], [16, 15], [2, 1], [1, 0]] as const) {
      assert.equal(round(b, n, l, [[randomScalar(b)], [randomScalar(b)]]), true, `ring ${n}, real ${l}`);
    }
  });

  test(`multisig CLSAG 2-of-3: signers holding two shares each combine into a valid CLSAG (${name})`, () => {
    // a 2-of-3 signer holds two of the three key shares; any two signers cover all three
    const k = [randomScalar(b), randomScalar(b), randomScalar(b)];
    // proposer holds k0,k1; the co-signer holds k1,k2 and signs only k2 (k1 already used: round-robin)
    assert.equal(round(b, 16, 3, [[k[0], k[1]], [k[2]]]), true);
    assert.equal(round(b, 11, 10, [[k[1], k[2]], [k[0]]]), true);
  });

  test(`multisig CLSAG: a missing partial, a wrong share or a nonce left out fails verification (${name})`, () => {
    const two = () => [[randomScalar(b)], [randomScalar(b)]];
    assert.equal(round(b, 16, 4, two(), { dropSigner: 1 }), false);
    assert.equal(round(b, 16, 4, two(), { wrongKey: 1 }), false);
    assert.equal(round(b, 16, 4, two(), { dropNonce: 1 }), false);
  });

  test(`multisig CLSAG: malformed rings are refused (${name})`, () => {
    const p = b.scalarMultBase(randomScalar(b));
    const base = { P: [p], C: [p], cOffset: p, message: p, I: p, D: p, l: 0, s: [p] };
    assert.throws(() => multisigClsagInit(b, { ...base, P: [] }), /empty ring/);
    assert.throws(() => multisigClsagInit(b, { ...base, l: 1 }), /real index/);
    assert.throws(() => multisigClsagInit(b, { ...base, C: [p, p] }), /ring's size/);
  });
}
