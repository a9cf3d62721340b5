/**
 * Bulletproofs+ range proofs for 1–16 amounts of 64 bits (src/ringct/bulletproofs_plus.cc,
 * v0.18): proving, and verification of any number of proofs folded into one multi-scalar
 * multiplication with a random weight per proof.
 *
 * V holds the commitments divided by 8 (V[i] = C[i]/8, C = γ·G + v·H), as Monero stores them;
 * in a transaction they are recomputed from outPk (see verify.ts).
 */
import type { Bytes, CryptoBackend } from "../backend.js";
import { type RandomSource, randomScalar, systemRandom } from "../random.js";
import { generators, MAX_GENERATORS, preparedGenerators } from "./generators.js";
import {
  concatBytes,
  equalBytes,
  G,
  H,
  IDENTITY,
  INV_EIGHT,
  isZero,
  MINUS_ONE,
  ONE,
  scBatchInvert,
  scNeg,
  scPowers,
  TWO,
  u64Scalar,
  ZERO,
  msm,
} from "./scalar.js";

/** A BP+ proof as serialized, plus its commitments V (C/8). Field names follow rctTypes.h. */
export interface BulletproofPlusProof {
  V: Bytes[];
  A: Bytes;
  A1: Bytes;
  B: Bytes;
  r1: Bytes;
  s1: Bytes;
  d1: Bytes;
  L: Bytes[];
  R: Bytes[];
}

const LOG_N = 6;
const N = 64;
const MAX_M = 16;

let initialTranscript: Bytes | undefined;

/** hash_to_p3(keccak("bulletproof_plus_transcript")), the same for every proof. */
function transcriptStart(b: CryptoBackend): Bytes {
  initialTranscript ??= b.hashToEc(b.keccak256(Buffer.from("bulletproof_plus_transcript", "ascii")));
  return initialTranscript;
}

/** transcript ← hash_to_scalar(transcript ‖ updates…). */
function update(b: CryptoBackend, transcript: Bytes, ...keys: Bytes[]): Bytes {
  return b.hashToScalar(concatBytes([transcript, ...keys]));
}

/** log2 of the padded number of amounts (the loop in bulletproof_plus_PROVE/VERIFY). */
function logMFor(count: number): number {
  let logM = 0;
  while (1 << logM <= MAX_M && 1 << logM < count) logM++;
  return logM;
}

/** 2^64 − 1 as a scalar. */
const TWO64_MINUS_ONE = Uint8Array.from([...new Array<number>(8).fill(0xff), ...new Array<number>(24).fill(0)]);

// The verifier's scalar vectors go through `scBatch` (one kernel call per vector, not per element).

/** first·x^i for i < n, n×32 bytes (n a power of two): the filled prefix times x^k doubles it. */
function powers(b: CryptoBackend, x: Bytes, n: number, first: Bytes = ONE): Bytes {
  const out = new Uint8Array(32 * n);
  out.set(first);
  let xk = x; // x^k
  for (let k = 1; k < n; k *= 2) {
    b.scBatch("mul", out.subarray(0, 32 * k), xk, out.subarray(32 * k, 64 * k));
    if (2 * k < n) xk = b.scMul(xk, xk);
  }
  return out;
}

/** The sum of the scalars of v (a power-of-two count), adding halves; v is overwritten. */
function sumAll(b: CryptoBackend, v: Bytes): Bytes {
  for (let k = v.length / 64; k >= 1; k /= 2) b.scBatch("add", v.subarray(0, 32 * k), v.subarray(32 * k, 64 * k), v.subarray(0, 32 * k));
  return v.slice(0, 32);
}

/** Σ_{i=1..n} y^i for n a power of two (sum_of_scalar_powers). */
function sumOfPowers(b: CryptoBackend, y: Bytes, n: number): Bytes {
  return sumAll(b, powers(b, y, n, y));
}

/** Σ_{i=1..n/2} z^(2i) for n a power of two (sum_of_even_powers). */
function sumOfEvenPowers(b: CryptoBackend, z: Bytes, n: number): Bytes {
  const z2 = b.scMul(z, z);
  return sumOfPowers(b, z2, n / 2);
}

/**
 * The products of challenges for every index (challenges_cache): entry i multiplies, for each round
 * j, ch[j] where bit (rounds − 1 − j) of i is set and chInv[j] where it is clear. Built from the
 * last round back, each round doubling the table: [t·chInv[j] ‖ t·ch[j]].
 */
function challengeProducts(b: CryptoBackend, ch: readonly Bytes[], chInv: readonly Bytes[]): Bytes {
  const rounds = ch.length;
  const out = new Uint8Array(32 << rounds);
  out.set(chInv[rounds - 1], 0);
  out.set(ch[rounds - 1], 32);
  for (let j = rounds - 2, k = 2; j >= 0; j--, k *= 2) {
    const lo = out.subarray(0, 32 * k);
    b.scBatch("mul", lo, ch[j], out.subarray(32 * k, 64 * k));
    b.scBatch("mul", lo, chInv[j], lo);
  }
  return out;
}

/** The scalar 2^k for k < 256. */
function pow2(k: number): Bytes {
  const s = new Uint8Array(32);
  s[k >> 3] = 1 << (k & 7);
  return s;
}

/** Σ a[i]·b[i]·y^(i+1) (weighted_inner_product). */
function weightedInnerProduct(bk: CryptoBackend, a: Bytes[], b: Bytes[], y: Bytes): Bytes {
  let res: Bytes = ZERO.slice();
  let yp: Bytes = ONE.slice();
  for (let i = 0; i < a.length; i++) {
    yp = bk.scMul(yp, y);
    res = bk.scMulAdd(bk.scMul(a[i], b[i]), yp, res);
  }
  return res;
}

/** Scalars one proof attempt consumes, in the order drawn: α, then dL and dR per round, then r, s, d, η. */
export function bulletproofPlusNonceCount(count: number): number {
  return 1 + 2 * (logMFor(count) + LOG_N) + 4;
}

/**
 * Proves that every amount is in [0, 2^64) (bulletproof_plus_PROVE). `gammas` are the commitment
 * masks; the proof's V are (γ·G + v·H)/8. Randomness comes from `rng`. The C kernel proves when it
 * is loaded (same bytes for the same nonces as the TypeScript prover below, which every other
 * backend uses).
 */
export function bulletproofPlusProve(
  b: CryptoBackend,
  amounts: readonly bigint[],
  gammas: readonly Bytes[],
  rng: RandomSource = systemRandom,
): BulletproofPlusProof {
  checkProveInput(amounts, gammas);
  for (;;) {
    const nonces: Bytes[] = [];
    for (let i = bulletproofPlusNonceCount(amounts.length); i > 0; i--) nonces.push(randomScalar(b, rng));
    const proof = bulletproofPlusProveWith(b, amounts, gammas, nonces);
    if (proof) return proof; // null: a challenge hashed to zero (probability ~2^-252); new nonces
  }
}

function checkProveInput(amounts: readonly bigint[], gammas: readonly Bytes[]): void {
  const count = amounts.length;
  if (count === 0 || count > MAX_M) throw new RangeError(`bulletproof+: 1 to ${MAX_M} amounts`);
  if (gammas.length !== count) throw new RangeError("bulletproof+: one mask per amount");
  for (const a of amounts) if (a < 0n || a >= 1n << 64n) throw new RangeError("bulletproof+: amount outside u64");
}

/**
 * One proof attempt with the given nonces (`bulletproofPlusNonceCount` of them): null when a
 * challenge is zero. `portable` forces the TypeScript prover even where the kernel has one.
 */
export function bulletproofPlusProveWith(
  b: CryptoBackend,
  amounts: readonly bigint[],
  gammas: readonly Bytes[],
  nonces: readonly Bytes[],
  portable = false,
): BulletproofPlusProof | null {
  checkProveInput(amounts, gammas);
  if (nonces.length !== bulletproofPlusNonceCount(amounts.length)) throw new RangeError("bulletproof+: wrong number of nonces");
  if (!portable && b.bulletproofPlusProve) return kernelProve(b, b.bulletproofPlusProve.bind(b), amounts, gammas, nonces);
  return portableProve(b, amounts, gammas, nonces);
}

function kernelProve(
  b: CryptoBackend,
  prove: NonNullable<CryptoBackend["bulletproofPlusProve"]>,
  amounts: readonly bigint[],
  gammas: readonly Bytes[],
  nonces: readonly Bytes[],
): BulletproofPlusProof | null {
  const count = amounts.length;
  const logMN = logMFor(count) + LOG_N;
  const amountBytes = new Uint8Array(8 * count);
  const view = new DataView(amountBytes.buffer);
  amounts.forEach((a, i) => view.setBigUint64(8 * i, a, true));
  const out = prove(preparedGenerators(b, "bulletproof_plus", 1 << logMN), amountBytes, concatBytes(gammas), concatBytes(nonces), H, transcriptStart(b));
  if (out === null) return null;
  const at = (k: number): Bytes => out.slice(32 * k, 32 * k + 32);
  const V = Array.from({ length: count }, (_, i) => at(i));
  const L = Array.from({ length: logMN }, (_, i) => at(count + 6 + i));
  const R = Array.from({ length: logMN }, (_, i) => at(count + 6 + logMN + i));
  return { V, A: at(count), A1: at(count + 1), B: at(count + 2), r1: at(count + 3), s1: at(count + 4), d1: at(count + 5), L, R };
}

/** The TypeScript prover (bulletproof_plus_PROVE step by step). */
function portableProve(b: CryptoBackend, amounts: readonly bigint[], gammas: readonly Bytes[], nonces: readonly Bytes[]): BulletproofPlusProof | null {
  const count = amounts.length;
  const logM = logMFor(count);
  const M = 1 << logM;
  const MN = M * N;
  const logMN = logM + LOG_N;
  const gens = generators(b, "bulletproof_plus", MN);
  let next = 0;
  const nonce = (): Bytes => nonces[next++];

  const V = amounts.map((v, i) => {
    const r = b.doubleScalarMultBase(b.scMul(u64Scalar(v), INV_EIGHT), H, b.scMul(gammas[i], INV_EIGHT));
    if (r === null) throw new Error("impossible");
    return r;
  });
  const aL: Bytes[] = new Array<Bytes>(MN);
  const aR: Bytes[] = new Array<Bytes>(MN);
  for (let j = 0; j < M; j++) {
    const v = j < count ? amounts[j] : 0n;
    for (let i = 0; i < N; i++) {
      const bit = j < count && ((v >> BigInt(i)) & 1n) === 1n;
      aL[j * N + i] = bit ? ONE : ZERO;
      aR[j * N + i] = bit ? ZERO : MINUS_ONE;
    }
  }
  const MINUS_INV_EIGHT = scNeg(b, INV_EIGHT);
  const GiList: Bytes[] = [];
  const HiList: Bytes[] = [];
  for (let i = 0; i < MN; i++) {
    GiList.push(gens.Gi.subarray(32 * i, 32 * i + 32));
    HiList.push(gens.Hi.subarray(32 * i, 32 * i + 32));
  }

  let transcript = update(b, transcriptStart(b), b.hashToScalar(concatBytes(V)));
  const alpha = nonce();
  const aScalars: Bytes[] = [];
  const aPoints: Bytes[] = [];
  for (let i = 0; i < MN; i++) {
    aScalars.push(aL[i] === ONE ? INV_EIGHT : ZERO, aR[i] === MINUS_ONE ? MINUS_INV_EIGHT : ZERO);
    aPoints.push(GiList[i], HiList[i]);
  }
  aScalars.push(b.scMul(alpha, INV_EIGHT));
  aPoints.push(G);
  const A = msm(b, aScalars, aPoints, "bulletproof+");
  const y = update(b, transcript, A); // the transcript continues from z = H(y)
  if (isZero(y)) return null;
  const z = (transcript = b.hashToScalar(y));
  if (isZero(z)) return null;
  const z2 = b.scMul(z, z);
  // d[j·N + i] = z^(2(j+1)) · 2^i
  const d: Bytes[] = new Array<Bytes>(MN);
  d[0] = z2;
  for (let i = 1; i < N; i++) d[i] = b.scMul(d[i - 1], TWO);
  for (let j = 1; j < M; j++) for (let i = 0; i < N; i++) d[j * N + i] = b.scMul(d[(j - 1) * N + i], z2);
  const yPow = scPowers(b, y, MN + 2);
  let aPrime = aL.map((x) => b.scSub(x, z));
  let bPrime = aR.map((x, i) => b.scAdd(b.scAdd(x, z), b.scMul(d[i], yPow[MN - i])));
  let alpha1 = alpha;
  let zj: Bytes = ONE.slice();
  for (let j = 0; j < count; j++) {
    zj = b.scMul(zj, z2);
    alpha1 = b.scMulAdd(b.scMul(yPow[MN + 1], zj), gammas[j], alpha1);
  }
  let Gp = GiList.slice();
  let Hp = HiList.slice();
  const yinv = b.scInvert(y);
  const yinvPow = scPowers(b, yinv, MN);
  const L: Bytes[] = [];
  const R: Bytes[] = [];
  let n = MN;
  while (n > 1) {
    n /= 2;
    const aLo = aPrime.slice(0, n);
    const aHi = aPrime.slice(n);
    const bLo = bPrime.slice(0, n);
    const bHi = bPrime.slice(n);
    const cL = weightedInnerProduct(b, aLo, bHi, y);
    const cR = weightedInnerProduct(
      b,
      aHi.map((x) => b.scMul(x, yPow[n])),
      bLo,
      y,
    );
    const dL = nonce();
    const dR = nonce();
    // compute_LR
    const lS: Bytes[] = [];
    const lP: Bytes[] = [];
    const rS: Bytes[] = [];
    const rP: Bytes[] = [];
    const yiInv8 = b.scMul(yinvPow[n], INV_EIGHT);
    const yInv8 = b.scMul(yPow[n], INV_EIGHT);
    for (let i = 0; i < n; i++) {
      lS.push(b.scMul(aLo[i], yiInv8), b.scMul(bHi[i], INV_EIGHT));
      lP.push(Gp[n + i], Hp[i]);
      rS.push(b.scMul(aHi[i], yInv8), b.scMul(bLo[i], INV_EIGHT));
      rP.push(Gp[i], Hp[n + i]);
    }
    lS.push(b.scMul(cL, INV_EIGHT), b.scMul(dL, INV_EIGHT));
    lP.push(H, G);
    rS.push(b.scMul(cR, INV_EIGHT), b.scMul(dR, INV_EIGHT));
    rP.push(H, G);
    const Lr = msm(b, lS, lP, "bulletproof+");
    const Rr = msm(b, rS, rP, "bulletproof+");
    L.push(Lr);
    R.push(Rr);
    const ch = (transcript = update(b, transcript, Lr, Rr));
    if (isZero(ch)) return null;
    const chInv = b.scInvert(ch);
    const gB = b.scMul(yinvPow[n], ch);
    const nG: Bytes[] = [];
    const nH: Bytes[] = [];
    for (let i = 0; i < n; i++) {
      const g = b.doubleScalarMult(chInv, Gp[i], gB, Gp[n + i]);
      const h = b.doubleScalarMult(ch, Hp[i], chInv, Hp[n + i]);
      if (g === null || h === null) throw new Error("impossible");
      nG.push(g);
      nH.push(h);
    }
    Gp = nG;
    Hp = nH;
    const aHiW = b.scMul(chInv, yPow[n]);
    aPrime = aLo.map((x, i) => b.scAdd(b.scMul(x, ch), b.scMul(aHi[i], aHiW)));
    bPrime = bLo.map((x, i) => b.scAdd(b.scMul(x, chInv), b.scMul(bHi[i], ch)));
    alpha1 = b.scMulAdd(dL, b.scMul(ch, ch), alpha1);
    alpha1 = b.scMulAdd(dR, b.scMul(chInv, chInv), alpha1);
  }
  const r = nonce();
  const s = nonce();
  const d_ = nonce();
  const eta = nonce();
  const hS = b.scAdd(b.scMul(b.scMul(r, y), bPrime[0]), b.scMul(b.scMul(s, y), aPrime[0]));
  const A1 = msm(
    b,
    [b.scMul(r, INV_EIGHT), b.scMul(s, INV_EIGHT), b.scMul(d_, INV_EIGHT), b.scMul(hS, INV_EIGHT)],
    [Gp[0], Hp[0], G, H],
    "bulletproof+",
  );
  const B = b.doubleScalarMultBase(b.scMul(b.scMul(b.scMul(r, y), s), INV_EIGHT), H, b.scMul(eta, INV_EIGHT));
  if (B === null) throw new Error("impossible");
  const e = update(b, transcript, A1, B);
  if (isZero(e)) return null;
  const r1 = b.scMulAdd(aPrime[0], e, r);
  const s1 = b.scMulAdd(bPrime[0], e, s);
  let d1 = b.scMulAdd(d_, e, eta);
  d1 = b.scMulAdd(alpha1, b.scMul(e, e), d1);
  if (L.length !== logMN) throw new Error("impossible");
  return { V, A, A1, B, r1, s1, d1, L, R };
}

/** (8·s) as a 256-bit integer: s·(8P) = (8s)·P exactly, with no reduction mod ℓ (s < 2^253). */
function times8(s: Bytes): Bytes {
  const out = new Uint8Array(32);
  let carry = 0;
  for (let i = 0; i < 32; i++) {
    const v = (s[i] << 3) | carry;
    out[i] = v & 0xff;
    carry = v >> 8;
  }
  return out;
}

/**
 * The whole batch as one multi-scalar multiplication (bulletproof_plus_VERIFY), or null when a
 * proof fails a structural check. The batch is valid iff the sum is the identity.
 */
function batchTerms(
  b: CryptoBackend,
  proofs: readonly BulletproofPlusProof[],
  rng: RandomSource,
): { gh: Bytes; scalars: Bytes; points: Bytes; pairs: number } | null {
  let maxLength = 0;
  const data: { y: Bytes; z: Bytes; e: Bytes; ch: Bytes[]; logM: number }[] = [];
  const toInvert: Bytes[] = [];
  for (const p of proofs) {
    if (!b.scCheck(p.r1) || !b.scCheck(p.s1) || !b.scCheck(p.d1)) return null;
    if (p.V.length < 1 || p.L.length !== p.R.length || p.L.length === 0) return null;
    maxLength = Math.max(maxLength, p.L.length);
    let transcript = update(b, transcriptStart(b), b.hashToScalar(concatBytes(p.V)));
    const y = update(b, transcript, p.A); // the transcript continues from z = H(y)
    if (isZero(y)) return null;
    const z = (transcript = b.hashToScalar(y));
    if (isZero(z)) return null;
    const logM = logMFor(p.V.length);
    if (p.L.length !== LOG_N + logM) return null;
    const rounds = logM + LOG_N;
    const ch: Bytes[] = [];
    for (let j = 0; j < rounds; j++) {
      ch.push((transcript = update(b, transcript, p.L[j], p.R[j])));
      if (isZero(ch[j])) return null;
    }
    const e = update(b, transcript, p.A1, p.B);
    if (isZero(e)) return null;
    data.push({ y, z, e, ch, logM });
    toInvert.push(...ch, y);
  }
  if (maxLength >= 32) return null;
  const maxMN = 1 << maxLength;
  if (maxMN > MAX_GENERATORS) return null;
  const inverses = scBatchInvert(b, toInvert);
  let invAt = 0;

  let gScalar: Bytes = ZERO.slice();
  let hScalar: Bytes = ZERO.slice();
  // the Gi and Hi scalars, accumulated over the proofs (interleaved at the end)
  const giSum = new Uint8Array(32 * maxMN);
  const hiSum = new Uint8Array(32 * maxMN);
  const extraS: Bytes[] = [];
  const extraP: Bytes[] = [];
  for (let k = 0; k < proofs.length; k++) {
    const p = proofs[k];
    const { y, z, e, ch, logM } = data[k];
    const M = 1 << logM;
    const MN = M * N;
    const rounds = logM + LOG_N;
    const chInv = inverses.slice(invAt, invAt + rounds);
    const yinv = inverses[invAt + rounds];
    invAt += rounds + 1;
    const w = randomScalar(b, rng);

    let yMN = y;
    for (let t = MN; t > 1; t /= 2) yMN = b.scMul(yMN, yMN);
    const yMN1 = b.scMul(yMN, y);
    const e2 = b.scMul(e, e);
    const z2 = b.scMul(z, z);
    // V terms: −e²·y^(MN+1)·w·z^(2(j+1)) · 8V[j]
    let t = b.scMul(b.scMul(scNeg(b, e2), yMN1), w);
    for (const V of p.V) {
      t = b.scMul(t, z2);
      extraS.push(times8(t));
      extraP.push(V);
    }
    const minusW = b.scMul(MINUS_ONE, w);
    extraS.push(times8(minusW));
    extraP.push(p.B);
    const minusWe = b.scMul(minusW, e);
    extraS.push(times8(minusWe));
    extraP.push(p.A1);
    const minusWe2 = b.scMul(minusWe, e);
    extraS.push(times8(minusWe2));
    extraP.push(p.A);
    gScalar = b.scMulAdd(w, p.d1, gScalar);

    // d[j·N + i] = z^(2(j+1))·2^i: z²·2^i by doubling the filled prefix, then z² more per block
    const d = new Uint8Array(32 * MN);
    d.set(z2);
    for (let k = 1; k < N; k *= 2) b.scBatch("mul", d.subarray(0, 32 * k), pow2(k), d.subarray(32 * k, 64 * k));
    for (let j = 1; j < M; j++) b.scBatch("mul", d.subarray(32 * N * (j - 1), 32 * N * j), z2, d.subarray(32 * N * j, 32 * N * (j + 1)));
    const sumD = b.scMul(TWO64_MINUS_ONE, sumOfEvenPowers(b, z, 2 * M));
    const sumY = sumOfPowers(b, y, MN);
    let hs = b.scMul(b.scSub(z2, z), sumY);
    hs = b.scAdd(hs, b.scMul(b.scMul(yMN1, z), sumD));
    hs = b.scMul(hs, e2);
    hs = b.scAdd(hs, b.scMul(b.scMul(p.r1, y), p.s1));
    hScalar = b.scMulAdd(hs, w, hScalar);

    // products of challenges for every index (challenges_cache); cacheRev[i] = cache[~i & (MN − 1)]
    const cache = challengeProducts(b, ch, chInv);
    const cacheRev = challengeProducts(b, chInv, ch);
    const eR1WY = b.scMul(b.scMul(e, p.r1), w);
    const eS1W = b.scMul(b.scMul(e, p.s1), w);
    const e2ZW = b.scMul(b.scMul(e2, z), w);
    const minusE2ZW = scNeg(b, e2ZW);
    const minusE2WY = b.scMul(b.scMul(scNeg(b, e2), w), yMN);
    const yinvPow = powers(b, yinv, MN);
    // Gi += e·r1·w·y^−i·cache[i] + e²·z·w
    const g = b.scBatch("mul", yinvPow, eR1WY);
    b.scBatch("mul", g, cache, g);
    b.scBatch("add", g, e2ZW, g);
    b.scBatch("add", giSum.subarray(0, 32 * MN), g, giSum.subarray(0, 32 * MN));
    // Hi += e·s1·w·cache[~i] − e²·z·w − e²·w·y^MN·y^−i·d[i]
    const h = b.scBatch("mul", yinvPow, minusE2WY, yinvPow);
    b.scBatch("mul", h, d, h);
    b.scBatch("add", h, b.scBatch("mul", cacheRev, eS1W, cacheRev), h);
    b.scBatch("add", h, minusE2ZW, h);
    b.scBatch("add", hiSum.subarray(0, 32 * MN), h, hiSum.subarray(0, 32 * MN));
    // L, R terms: ch[j]²·(−w·e²), chInv[j]²·(−w·e²)
    const chSq = concatBytes(ch);
    const chInvSq = concatBytes(chInv);
    b.scBatch("mul", b.scBatch("mul", chSq, chSq, chSq), minusWe2, chSq);
    b.scBatch("mul", b.scBatch("mul", chInvSq, chInvSq, chInvSq), minusWe2, chInvSq);
    for (let j = 0; j < rounds; j++) {
      extraS.push(times8(chSq.subarray(32 * j, 32 * j + 32)));
      extraP.push(p.L[j]);
      extraS.push(times8(chInvSq.subarray(32 * j, 32 * j + 32)));
      extraP.push(p.R[j]);
    }
  }
  const gh = new Uint8Array(64 * maxMN);
  for (let i = 0; i < maxMN; i++) {
    gh.set(giSum.subarray(32 * i, 32 * i + 32), 64 * i);
    gh.set(hiSum.subarray(32 * i, 32 * i + 32), 64 * i + 32);
  }
  extraS.push(gScalar, hScalar);
  extraP.push(G, H);
  return { gh, scalars: concatBytes(extraS), points: concatBytes(extraP), pairs: maxMN };
}

/**
 * Verifies any number of BP+ proofs together (one multi-exponentiation); true only when every
 * proof is valid. Random weights come from `rng`. An empty batch is valid. Never throws on bad data.
 */
export function bulletproofPlusVerify(
  b: CryptoBackend,
  proofs: readonly BulletproofPlusProof[],
  rng: RandomSource = systemRandom,
): boolean {
  if (proofs.length === 0) return true;
  const t = batchTerms(b, proofs, rng);
  if (t === null) return false;
  const r = b.multiScalarMultPrepared(preparedGenerators(b, "bulletproof_plus", t.pairs), t.gh, t.scalars, t.points);
  return r !== null && equalBytes(r, IDENTITY);
}
