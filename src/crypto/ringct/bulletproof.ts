/**
 * Bulletproofs (the original aggregate range proof of RingCT types Bulletproof, Bulletproof2 and
 * CLSAG; src/ringct/bulletproofs.cc, v0.18): verification of any number of proofs in one
 * multi-exponentiation, and a prover used to test it (Monero no longer makes these).
 *
 * V holds the commitments divided by 8, as in bulletproof-plus.ts.
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
  scPowers,
  TWO,
  u64Scalar,
  ZERO,
  msm,
} from "./scalar.js";

export interface BulletproofProof {
  V: Bytes[];
  A: Bytes;
  S: Bytes;
  T1: Bytes;
  T2: Bytes;
  taux: Bytes;
  mu: Bytes;
  L: Bytes[];
  R: Bytes[];
  a: Bytes;
  b: Bytes;
  t: Bytes;
}

const LOG_N = 6;
const N = 64;
const MAX_M = 16;

function logMFor(count: number): number {
  let logM = 0;
  while (1 << logM <= MAX_M && 1 << logM < count) logM++;
  return logM;
}

/** hash_cache ← hash_to_scalar(hash_cache ‖ keys…) (hash_cache_mash). */
function mash(b: CryptoBackend, cache: Bytes, ...keys: Bytes[]): Bytes {
  return b.hashToScalar(concatBytes([cache, ...keys]));
}

function innerProduct(bk: CryptoBackend, a: readonly Bytes[], b: readonly Bytes[]): Bytes {
  let r: Bytes = ZERO;
  for (let i = 0; i < a.length; i++) r = bk.scMulAdd(a[i], b[i], r);
  return r;
}

/** Σ_{i<n} x^i (vector_power_sum). */
function powerSum(b: CryptoBackend, x: Bytes, n: number): Bytes {
  let r: Bytes = ZERO;
  let p: Bytes = ONE;
  for (let i = 0; i < n; i++) {
    r = b.scAdd(r, p);
    p = b.scMul(p, x);
  }
  return r;
}

/** bulletproof_PROVE for 1–16 amounts (kept for tests of the verifier). */
export function bulletproofProve(
  b: CryptoBackend,
  amounts: readonly bigint[],
  gammas: readonly Bytes[],
  rng: RandomSource = systemRandom,
): BulletproofProof {
  const count = amounts.length;
  if (count === 0 || count > MAX_M || gammas.length !== count) throw new RangeError("bulletproof: 1 to 16 amounts, one mask each");
  const logM = logMFor(count);
  const M = 1 << logM;
  const MN = M * N;
  const gens = generators(b, "bulletproof", MN);
  const Gi: Bytes[] = [];
  const Hi: Bytes[] = [];
  for (let i = 0; i < MN; i++) {
    Gi.push(gens.Gi.subarray(32 * i, 32 * i + 32));
    Hi.push(gens.Hi.subarray(32 * i, 32 * i + 32));
  }
  const V = amounts.map((v, i) => {
    const r = b.doubleScalarMultBase(b.scMul(u64Scalar(v), INV_EIGHT), H, b.scMul(gammas[i], INV_EIGHT));
    if (r === null) throw new Error("impossible");
    return r;
  });
  const aL: Bytes[] = [];
  const aR: Bytes[] = [];
  for (let j = 0; j < M; j++)
    for (let i = 0; i < N; i++) {
      const bit = j < count && ((amounts[j] >> BigInt(i)) & 1n) === 1n;
      aL.push(bit ? ONE : ZERO);
      aR.push(bit ? ZERO : MINUS_ONE);
    }
  const twoN = scPowers(b, TWO, N);
  for (;;) {
    let cache = b.hashToScalar(concatBytes(V));
    const alpha = randomScalar(b, rng);
    const A = msm(b, [...aL.map((x) => b.scMul(x, INV_EIGHT)), ...aR.map((x) => b.scMul(x, INV_EIGHT)), b.scMul(alpha, INV_EIGHT)], [...Gi, ...Hi, G], "bulletproof");
    const sL: Bytes[] = [];
    const sR: Bytes[] = [];
    for (let i = 0; i < MN; i++) sL.push(randomScalar(b, rng));
    for (let i = 0; i < MN; i++) sR.push(randomScalar(b, rng));
    const rho = randomScalar(b, rng);
    const S0 = msm(b, [...sL, ...sR, rho], [...Gi, ...Hi, G], "bulletproof");
    const S = b.scalarMult(INV_EIGHT, S0);
    if (S === null) throw new Error("impossible");
    const y = mash(b, cache, A, S); // the cache continues from z = H(y)
    if (isZero(y)) continue;
    const z = (cache = b.hashToScalar(y));
    if (isZero(z)) continue;
    const zpow = scPowers(b, z, M + 2);
    const yMN = scPowers(b, y, MN);
    const l0 = aL.map((x) => b.scSub(x, z));
    const r0 = aR.map((x, i) => b.scAdd(b.scMul(b.scAdd(x, z), yMN[i]), b.scMul(zpow[2 + Math.floor(i / N)], twoN[i % N])));
    const r1 = sR.map((x, i) => b.scMul(yMN[i], x));
    const t1 = b.scAdd(innerProduct(b, l0, r1), innerProduct(b, sL, r0));
    const t2 = innerProduct(b, sL, r1);
    const tau1 = randomScalar(b, rng);
    const tau2 = randomScalar(b, rng);
    const T1 = b.doubleScalarMultBase(b.scMul(t1, INV_EIGHT), H, b.scMul(tau1, INV_EIGHT));
    const T2 = b.doubleScalarMultBase(b.scMul(t2, INV_EIGHT), H, b.scMul(tau2, INV_EIGHT));
    if (T1 === null || T2 === null) throw new Error("impossible");
    const x = (cache = mash(b, cache, z, T1, T2));
    if (isZero(x)) continue;
    let taux = b.scMul(tau1, x);
    taux = b.scMulAdd(tau2, b.scMul(x, x), taux);
    for (let j = 1; j <= count; j++) taux = b.scMulAdd(zpow[j + 1], gammas[j - 1], taux);
    const mu = b.scMulAdd(x, rho, alpha);
    let ap = l0.map((v, i) => b.scMulAdd(sL[i], x, v));
    let bp = r0.map((v, i) => b.scMulAdd(r1[i], x, v));
    const t = innerProduct(b, ap, bp);
    const xip = (cache = mash(b, cache, x, taux, mu, t));
    if (isZero(xip)) continue;
    const yinvpow = scPowers(b, b.scInvert(y), MN);
    let Gp = Gi.slice();
    let Hp = Hi.slice();
    let scale: Bytes[] | null = yinvpow;
    const L: Bytes[] = [];
    const R: Bytes[] = [];
    let n = MN;
    let restart = false;
    while (n > 1) {
      n /= 2;
      const cL = innerProduct(b, ap.slice(0, n), bp.slice(n));
      const cR = innerProduct(b, ap.slice(n), bp.slice(0, n));
      // cross_vector_exponent8
      const lS: Bytes[] = [];
      const lP: Bytes[] = [];
      const rS: Bytes[] = [];
      const rP: Bytes[] = [];
      for (let i = 0; i < n; i++) {
        lS.push(b.scMul(ap[i], INV_EIGHT));
        lP.push(Gp[n + i]);
        let hb = b.scMul(bp[n + i], INV_EIGHT);
        if (scale) hb = b.scMul(hb, scale[i]);
        lS.push(hb);
        lP.push(Hp[i]);
        rS.push(b.scMul(ap[n + i], INV_EIGHT));
        rP.push(Gp[i]);
        let hr = b.scMul(bp[i], INV_EIGHT);
        if (scale) hr = b.scMul(hr, scale[n + i]);
        rS.push(hr);
        rP.push(Hp[n + i]);
      }
      lS.push(b.scMul(b.scMul(cL, xip), INV_EIGHT));
      lP.push(H);
      rS.push(b.scMul(b.scMul(cR, xip), INV_EIGHT));
      rP.push(H);
      const Lr = msm(b, lS, lP, "bulletproof");
      const Rr = msm(b, rS, rP, "bulletproof");
      L.push(Lr);
      R.push(Rr);
      const w = (cache = mash(b, cache, Lr, Rr));
      if (isZero(w)) {
        restart = true;
        break;
      }
      const winv = b.scInvert(w);
      if (n > 1) {
        const nG: Bytes[] = [];
        const nH: Bytes[] = [];
        for (let i = 0; i < n; i++) {
          const g = b.doubleScalarMult(winv, Gp[i], w, Gp[n + i]);
          const ha = scale ? b.scMul(w, scale[i]) : w;
          const hb = scale ? b.scMul(winv, scale[n + i]) : winv;
          const h = b.doubleScalarMult(ha, Hp[i], hb, Hp[n + i]);
          if (g === null || h === null) throw new Error("impossible");
          nG.push(g);
          nH.push(h);
        }
        Gp = nG;
        Hp = nH;
      }
      const aLo = ap.slice(0, n);
      const aHi = ap.slice(n);
      const bLo = bp.slice(0, n);
      const bHi = bp.slice(n);
      ap = aLo.map((v, i) => b.scAdd(b.scMul(v, w), b.scMul(aHi[i], winv)));
      bp = bLo.map((v, i) => b.scAdd(b.scMul(v, winv), b.scMul(bHi[i], w)));
      scale = null;
    }
    if (restart) continue;
    return { V, A, S, T1, T2, taux, mu, L, R, a: ap[0], b: bp[0], t };
  }
}

/** (8·s) as a 256-bit integer: s·(8P) = (8s)·P exactly (s < 2^253). */
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

/** bulletproof_VERIFY over a batch. Never throws on bad data; an empty batch is valid. */
export function bulletproofVerify(b: CryptoBackend, proofs: readonly BulletproofProof[], rng: RandomSource = systemRandom): boolean {
  if (proofs.length === 0) return true;
  let maxLength = 0;
  const data: { y: Bytes; z: Bytes; x: Bytes; xip: Bytes; w: Bytes[]; logM: number }[] = [];
  const toInvert: Bytes[] = [];
  for (const p of proofs) {
    for (const s of [p.taux, p.mu, p.a, p.b, p.t]) if (!b.scCheck(s)) return false;
    if (p.V.length < 1 || p.L.length !== p.R.length || p.L.length === 0) return false;
    maxLength = Math.max(maxLength, p.L.length);
    let cache = b.hashToScalar(concatBytes(p.V));
    const y = mash(b, cache, p.A, p.S); // the cache continues from z = H(y)
    if (isZero(y)) return false;
    const z = (cache = b.hashToScalar(y));
    if (isZero(z)) return false;
    const x = (cache = mash(b, cache, z, p.T1, p.T2));
    if (isZero(x)) return false;
    const xip = (cache = mash(b, cache, x, p.taux, p.mu, p.t));
    if (isZero(xip)) return false;
    const logM = logMFor(p.V.length);
    if (p.L.length !== LOG_N + logM) return false;
    const w: Bytes[] = [];
    for (let i = 0; i < LOG_N + logM; i++) {
      w.push((cache = mash(b, cache, p.L[i], p.R[i])));
      if (isZero(w[i])) return false;
    }
    data.push({ y, z, x, xip, w, logM });
    toInvert.push(...w, y);
  }
  if (maxLength >= 32) return false;
  const maxMN = 1 << maxLength;
  if (maxMN > MAX_GENERATORS) return false;
  const inverses = scBatchInvert(b, toInvert);
  let invAt = 0;
  const twoN = scPowers(b, TWO, N);
  const ip12 = powerSum(b, TWO, N);
  let z1: Bytes = ZERO;
  let z3: Bytes = ZERO;
  let y0: Bytes = ZERO;
  let y1: Bytes = ZERO;
  const z4: Bytes[] = new Array<Bytes>(maxMN).fill(ZERO);
  const z5: Bytes[] = new Array<Bytes>(maxMN).fill(ZERO);
  const extraS: Bytes[] = [];
  const extraP: Bytes[] = [];
  for (let k = 0; k < proofs.length; k++) {
    const p = proofs[k];
    const { y, z, x, xip, w, logM } = data[k];
    const M = 1 << logM;
    const MN = M * N;
    const rounds = logM + LOG_N;
    const winv = inverses.slice(invAt, invAt + rounds);
    const yinv = inverses[invAt + rounds];
    invAt += rounds + 1;
    const wy = randomScalar(b, rng);
    const wz = randomScalar(b, rng);
    y0 = b.scMulSub(p.taux, wy, y0); // y0 − taux·wy (kept negated as in m_y0)
    const zpow = scPowers(b, z, M + 3);
    const ip1y = powerSum(b, y, MN);
    let kk = b.scMulSub(zpow[2], ip1y, ZERO);
    for (let j = 1; j <= M; j++) kk = b.scMulSub(zpow[j + 2], ip12, kk);
    const tmp = b.scSub(p.t, b.scMulAdd(z, ip1y, kk));
    y1 = b.scMulAdd(tmp, wy, y1);
    for (let j = 0; j < p.V.length; j++) {
      extraS.push(times8(b.scMul(zpow[j + 2], wy)));
      extraP.push(p.V[j]);
    }
    extraS.push(times8(b.scMul(x, wy)), times8(b.scMul(b.scMul(x, x), wy)), times8(wz), times8(b.scMul(x, wz)));
    extraP.push(p.T1, p.T2, p.A, p.S);
    const cache: Bytes[] = new Array<Bytes>(1 << rounds);
    cache[0] = winv[0];
    cache[1] = w[0];
    for (let j = 1; j < rounds; j++) {
      for (let s = (1 << (j + 1)) - 1; s > 0; s -= 2) {
        cache[s] = b.scMul(cache[s >> 1], w[j]);
        cache[s - 1] = b.scMul(cache[s >> 1], winv[j]);
      }
    }
    let yinvpow: Bytes = ONE;
    let ypow: Bytes = ONE;
    for (let i = 0; i < MN; i++) {
      let g = b.scMul(p.a, cache[i]);
      let h = i === 0 ? p.b : b.scMul(p.b, yinvpow);
      h = b.scMul(h, cache[~i & (MN - 1)]);
      g = b.scAdd(g, z);
      let t = b.scMul(zpow[2 + Math.floor(i / N)], twoN[i % N]);
      if (i === 0) h = b.scSub(h, b.scAdd(t, z));
      else {
        t = b.scMulAdd(z, ypow, t);
        h = b.scMulSub(t, yinvpow, h);
      }
      z4[i] = b.scMulSub(g, wz, z4[i]);
      z5[i] = b.scMulSub(h, wz, z5[i]);
      if (i === 0) {
        yinvpow = yinv;
        ypow = y;
      } else {
        yinvpow = b.scMul(yinvpow, yinv);
        ypow = b.scMul(ypow, y);
      }
    }
    z1 = b.scMulAdd(p.mu, wz, z1);
    for (let i = 0; i < rounds; i++) {
      extraS.push(times8(b.scMul(b.scMul(w[i], w[i]), wz)), times8(b.scMul(b.scMul(winv[i], winv[i]), wz)));
      extraP.push(p.L[i], p.R[i]);
    }
    const ab = b.scMul(b.scMulSub(p.a, p.b, p.t), xip);
    z3 = b.scMulAdd(ab, wz, z3);
  }
  extraS.push(b.scSub(y0, z1), b.scSub(z3, y1));
  extraP.push(G, H);
  const gh = new Uint8Array(64 * maxMN);
  for (let i = 0; i < maxMN; i++) {
    gh.set(z4[i], 64 * i);
    gh.set(z5[i], 64 * i + 32);
  }
  const prepared = preparedGenerators(b, "bulletproof", maxMN);
  const r = b.multiScalarMultPrepared(prepared, gh, concatBytes(extraS), concatBytes(extraP));
  return r !== null && equalBytes(r, IDENTITY);
}

