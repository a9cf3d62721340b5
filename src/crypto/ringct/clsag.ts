/**
 * CLSAG ring signatures over (one-time key, amount commitment) pairs (src/ringct/rctSigs.cpp:
 * CLSAG_Gen, proveRctCLSAGSimple, verRctCLSAGSimple; device_default clsag_prepare/clsag_sign).
 *
 * The ring is P (output keys) and C (their commitments, "C_nonzero"); the signer knows p with
 * P[l] = p·G and z with C[l] − C_offset = z·G, where C_offset is the input's pseudo output. The
 * key image is I = p·Hp(P[l]); the auxiliary image D = z·Hp(P[l]) is stored divided by 8.
 */
import type { Bytes, CryptoBackend } from "../backend.js";
import { type RandomSource, randomScalar, systemRandom } from "../random.js";
import { concatBytes, domainKey, G, INV_EIGHT, isIdentity, isZero } from "./scalar.js";

export interface ClsagSignature {
  /** One response scalar per ring member. */
  s: Bytes[];
  c1: Bytes;
  /** (z·Hp(P[l])) / 8. */
  D: Bytes;
}

const AGG_0 = domainKey("CLSAG_agg_0");
const AGG_1 = domainKey("CLSAG_agg_1");
const ROUND = domainKey("CLSAG_round");

/** The aggregation coefficients μ_P, μ_C (hash of domain ‖ P ‖ C ‖ I ‖ D/8 ‖ C_offset). */
function aggregation(b: CryptoBackend, P: readonly Bytes[], C: readonly Bytes[], I: Bytes, D8inv: Bytes, cOffset: Bytes): [Bytes, Bytes] {
  const body = concatBytes([AGG_0, ...P, ...C, I, D8inv, cOffset]);
  const muP = b.hashToScalar(body);
  body.set(AGG_1, 0);
  const muC = b.hashToScalar(body);
  return [muP, muC];
}

/** The round-hash buffer: domain ‖ P ‖ C ‖ C_offset ‖ message ‖ L ‖ R, with L and R rewritten each round. */
function roundBuffer(P: readonly Bytes[], C: readonly Bytes[], cOffset: Bytes, message: Bytes): Bytes {
  return concatBytes([ROUND, ...P, ...C, cOffset, message, new Uint8Array(64)]);
}

function checkRing(P: readonly Bytes[], C: readonly Bytes[]): void {
  if (P.length === 0) throw new RangeError("clsag: empty ring");
  if (P.length !== C.length) throw new RangeError("clsag: P and C must have the same size");
}

/**
 * Signs with CLSAG (CLSAG_Gen). `p` is the one-time secret key of P[l], `z` the mask difference
 * (input mask − pseudo-output mask) so that C[l] − cOffset = z·G. Returns the signature and the
 * key image I. Randomness (α and the decoy responses) comes from `rng`.
 */
export function clsagSign(
  b: CryptoBackend,
  message: Bytes,
  P: readonly Bytes[],
  C: readonly Bytes[],
  p: Bytes,
  z: Bytes,
  cOffset: Bytes,
  l: number,
  rng: RandomSource = systemRandom,
): { signature: ClsagSignature; keyImage: Bytes } {
  const nonces: Bytes[] = [];
  for (let k = 0; k < P.length; k++) nonces.push(randomScalar(b, rng)); // α, then the decoys' s from l+1 on
  return clsagSignWith(b, message, P, C, p, z, cOffset, l, nonces);
}

/**
 * clsagSign with its nonces given (α, then the decoy responses in ring order from l+1). The C
 * kernel signs when it is loaded; `portable` forces the TypeScript signer (the same bytes).
 */
export function clsagSignWith(
  b: CryptoBackend,
  message: Bytes,
  P: readonly Bytes[],
  C: readonly Bytes[],
  p: Bytes,
  z: Bytes,
  cOffset: Bytes,
  l: number,
  nonces: readonly Bytes[],
  portable = false,
): { signature: ClsagSignature; keyImage: Bytes } {
  checkRing(P, C);
  const n = P.length;
  if (!Number.isInteger(l) || l < 0 || l >= n) throw new RangeError("clsag: signing index out of range");
  if (nonces.length !== n) throw new RangeError("clsag: one nonce per ring member");
  if (!portable && b.clsagSign) {
    const r = b.clsagSign(message, concatBytes(P), concatBytes(C), p, z, cOffset, l, concatBytes(nonces));
    if (typeof r === "number") {
      throw new RangeError(r < 0 ? "clsag: a ring commitment or the pseudo output does not decode" : `clsag: ring member ${r} does not decode`);
    }
    const at = (k: number): Bytes => r.slice(32 * k, 32 * k + 32);
    return { signature: { s: Array.from({ length: n }, (_, i) => at(i)), c1: at(n), D: at(n + 1) }, keyImage: at(n + 2) };
  }
  let next = 0;
  const Hp = b.hashToEc(P[l]);
  const I = b.scalarMult(p, Hp);
  const D = b.scalarMult(z, Hp);
  if (I === null || D === null) throw new Error("clsag: hash_to_ec gave an undecodable point (impossible)");
  const D8inv = b.scalarMult(INV_EIGHT, D);
  if (D8inv === null) throw new Error("clsag: D did not decode (impossible)");
  const [muP, muC] = aggregation(b, P, C, I, D8inv, cOffset);

  // C[i] − C_offset for every member (proveRctCLSAGSimple)
  const Cdiff: Bytes[] = C.map((c) => {
    const d = b.pointSub(c, cOffset);
    if (d === null) throw new RangeError("clsag: a ring commitment or the pseudo output does not decode");
    return d;
  });

  const alpha = nonces[next++];
  const buf = roundBuffer(P, C, cOffset, message);
  const lr = 32 * (2 * n + 3);
  buf.set(b.scalarMultBase(alpha), lr);
  const aH = b.scalarMult(alpha, Hp);
  if (aH === null) throw new Error("clsag: impossible");
  buf.set(aH, lr + 32);
  let c = b.hashToScalar(buf);

  const s: Bytes[] = new Array<Bytes>(n);
  let c1: Bytes | undefined;
  let i = (l + 1) % n;
  if (i === 0) c1 = c.slice();
  const D8 = b.pointMul8(D8inv);
  if (D8 === null) throw new Error("clsag: impossible");
  while (i !== l) {
    s[i] = nonces[next++];
    const cp = b.scMul(muP, c);
    const cc = b.scMul(muC, c);
    const L = b.multiScalarMult(concatBytes([s[i], cp, cc]), concatBytes([G, P[i], Cdiff[i]]));
    if (L === null) throw new RangeError(`clsag: ring member ${i} does not decode`);
    const Hi = b.hashToEc(P[i]);
    const R = b.multiScalarMult(concatBytes([s[i], cp, cc]), concatBytes([Hi, I, D8]));
    if (R === null) throw new RangeError("clsag: impossible");
    buf.set(L, lr);
    buf.set(R, lr + 32);
    c = b.hashToScalar(buf);
    i = (i + 1) % n;
    if (i === 0) c1 = c.slice();
  }
  // s_l = α − c·(μ_P·p + μ_C·z)   (device_default::clsag_sign)
  const weighted = b.scMulAdd(muP, p, b.scMul(muC, z));
  s[l] = b.scMulSub(c, weighted, alpha);
  if (c1 === undefined) throw new Error("clsag: impossible");
  return { signature: { s, c1, D: D8inv }, keyImage: I };
}

/**
 * Verifies a CLSAG (verRctCLSAGSimple): P and C are the ring's keys and commitments, I the key
 * image from the input, cOffset the input's pseudo output. Never throws on bad data.
 */
export function clsagVerify(
  b: CryptoBackend,
  message: Bytes,
  sig: ClsagSignature,
  P: readonly Bytes[],
  C: readonly Bytes[],
  I: Bytes,
  cOffset: Bytes,
): boolean {
  const n = P.length;
  if (n === 0 || C.length !== n || sig.s.length !== n) return false;
  if (b.scCheckBatch(concatBytes([...sig.s, sig.c1])) >= 0) return false;
  if (isIdentity(I)) return false;
  if (!b.pointCheck(cOffset) || !b.pointCheck(I)) return false;
  const D8 = b.pointMul8(sig.D);
  if (D8 === null || isIdentity(D8)) return false;
  const [muP, muC] = aggregation(b, P, C, I, sig.D, cOffset);
  const buf = roundBuffer(P, C, cOffset, message);
  const lr = 32 * (2 * n + 3);
  const scalars = new Uint8Array(96);
  const ptsL = new Uint8Array(96);
  const ptsR = new Uint8Array(96);
  ptsL.set(G, 0);
  ptsR.set(I, 32);
  ptsR.set(D8, 64);
  const L = new Uint8Array(32);
  const R = new Uint8Array(32);
  const cp = scalars.subarray(32, 64);
  const cc = scalars.subarray(64, 96);
  let c = sig.c1;
  for (let i = 0; i < n; i++) {
    b.scMul(muP, c, cp);
    b.scMul(muC, c, cc);
    scalars.set(sig.s[i], 0);
    if (!b.pointCheck(P[i])) return false;
    if (b.pointSub(C[i], cOffset, ptsL.subarray(64, 96)) === null) return false;
    ptsL.set(P[i], 32);
    if (b.multiScalarMult(scalars, ptsL, L) === null) return false;
    b.hashToEc(P[i], ptsR.subarray(0, 32));
    if (b.multiScalarMult(scalars, ptsR, R) === null) return false;
    buf.set(L, lr);
    buf.set(R, lr + 32);
    c = b.hashToScalar(buf);
    if (isZero(c)) return false;
  }
  return isZero(b.scSub(c, sig.c1));
}
