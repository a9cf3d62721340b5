/**
 * Borromean range proofs of RingCT types Full and Simple (src/ringct/rctSigs.cpp: genBorromean,
 * verifyBorromean, proveRange, verRange). A proof commits to each bit i of the amount with
 * Ci ∈ {a·G, a·G + 2^i·H} and ring-signs each pair (Ci, Ci − 2^i·H).
 *
 * Layout as serialized: asig = s0[64] ‖ s1[64] ‖ ee (4128 bytes), Ci = 64 keys (2048 bytes).
 */
import type { Bytes, CryptoBackend } from "../backend.js";
import { type RandomSource, randomScalar, systemRandom } from "../random.js";
import { concatBytes, equalBytes, H, IDENTITY } from "./scalar.js";

let h2: Bytes[] | undefined;

/** H2[i] = 2^i·H (rctTypes.h H2). */
function powersOfH(b: CryptoBackend): Bytes[] {
  if (!h2) {
    const out: Bytes[] = [];
    for (let i = 0; i < 64; i++) {
      const s = new Uint8Array(32);
      s[i >> 3] = 1 << (i & 7);
      const p = b.scalarMult(s, H);
      if (p === null) throw new Error("impossible");
      out.push(p);
    }
    h2 = out;
  }
  return h2;
}

const key = (buf: Bytes, i: number): Bytes => buf.subarray(32 * i, 32 * i + 32);

/** verifyBorromean over decoded-checked P1/P2. */
function verifyBorromean(b: CryptoBackend, asig: Bytes, P1: readonly Bytes[], P2: readonly Bytes[]): boolean {
  const ee = key(asig, 128);
  const LL = new Uint8Array(64 * 32);
  for (let i = 0; i < 64; i++) if (b.doubleScalarMultBase(ee, P1[i], key(asig, i), LL.subarray(32 * i, 32 * i + 32)) === null) return false;
  const c = b.hashToScalars(LL, 64); // the 64 hashes in one call
  const Lv1 = new Uint8Array(64 * 32);
  for (let i = 0; i < 64; i++) if (b.doubleScalarMultBase(key(c, i), P2[i], key(asig, 64 + i), Lv1.subarray(32 * i, 32 * i + 32)) === null) return false;
  return equalBytes(b.hashToScalar(Lv1), ee);
}

/** verRange: Σ Ci = C and each Ci commits to 0 or 2^i. Never throws on bad data. */
export function verifyBorromeanRange(b: CryptoBackend, C: Bytes, asig: Bytes, Ci: Bytes): boolean {
  if (asig.length !== 4128 || Ci.length !== 2048) return false;
  const H2 = powersOfH(b);
  const P1: Bytes[] = [];
  const P2: Bytes[] = [];
  let sum: Bytes = IDENTITY;
  for (let i = 0; i < 64; i++) {
    const ci = key(Ci, i);
    const d = b.pointSub(ci, H2[i]);
    const s = b.pointAdd(sum, ci);
    if (d === null || s === null) return false;
    P1.push(ci);
    P2.push(d);
    sum = s;
  }
  if (!equalBytes(sum, C)) return false;
  return verifyBorromean(b, asig, P1, P2);
}

/** proveRange: a fresh commitment C to `amount`, its mask, and the proof (asig, Ci). */
export function proveBorromeanRange(
  b: CryptoBackend,
  amount: bigint,
  rng: RandomSource = systemRandom,
): { C: Bytes; mask: Bytes; asig: Bytes; Ci: Bytes } {
  if (amount < 0n || amount >= 1n << 64n) throw new RangeError("amount outside u64");
  const H2 = powersOfH(b);
  const bits: number[] = [];
  for (let i = 0; i < 64; i++) bits.push(Number((amount >> BigInt(i)) & 1n));
  const ai: Bytes[] = [];
  const Ci: Bytes[] = [];
  const CiH: Bytes[] = [];
  let mask: Bytes = new Uint8Array(32);
  let C: Bytes = IDENTITY;
  for (let i = 0; i < 64; i++) {
    ai.push(randomScalar(b, rng));
    const aG = b.scalarMultBase(ai[i]);
    const ci = bits[i] === 0 ? aG : b.pointAdd(aG, H2[i]);
    if (ci === null) throw new Error("impossible");
    Ci.push(ci);
    const d = b.pointSub(ci, H2[i]);
    const c2 = b.pointAdd(C, ci);
    if (d === null || c2 === null) throw new Error("impossible");
    CiH.push(d);
    C = c2;
    mask = b.scAdd(mask, ai[i]);
  }
  // genBorromean(x = ai, P1 = Ci, P2 = CiH, indices = bits)
  const s0: Bytes[] = new Array<Bytes>(64);
  const s1: Bytes[] = new Array<Bytes>(64);
  const alpha: Bytes[] = [];
  const L1: Bytes[] = new Array<Bytes>(64);
  for (let i = 0; i < 64; i++) {
    alpha.push(randomScalar(b, rng));
    const L = b.scalarMultBase(alpha[i]);
    if (bits[i] === 0) {
      s1[i] = randomScalar(b, rng);
      const c = b.hashToScalar(L);
      const l1 = b.doubleScalarMultBase(c, CiH[i], s1[i]);
      if (l1 === null) throw new Error("impossible");
      L1[i] = l1;
    } else L1[i] = L;
  }
  const ee = b.hashToScalar(concatBytes(L1));
  for (let j = 0; j < 64; j++) {
    if (bits[j] === 0) s0[j] = b.scMulSub(ai[j], ee, alpha[j]);
    else {
      s0[j] = randomScalar(b, rng);
      const LL = b.doubleScalarMultBase(ee, Ci[j], s0[j]);
      if (LL === null) throw new Error("impossible");
      const cc = b.hashToScalar(LL);
      s1[j] = b.scMulSub(ai[j], cc, alpha[j]);
    }
  }
  return { C, mask, asig: concatBytes([...s0, ...s1, ee]), Ci: concatBytes(Ci) };
}
