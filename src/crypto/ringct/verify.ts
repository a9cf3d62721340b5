/**
 * Full RingCT verification of transactions (src/ringct/rctSigs.cpp: get_pre_mlsag_hash,
 * verRctSemanticsSimple, verRctNonSemanticsSimple, and verRct/verRctMG for RCTTypeFull), for one transaction or
 * a batch (a block's transactions: every range proof of the batch in one multi-exponentiation).
 *
 * The structures here are structural twins of protocol/rct.ts's parsed RingCT (crypto/ imports
 * nothing above it); a parsed `RctSignatures` can be passed as is.
 */
import type { Bytes, CryptoBackend } from "../backend.js";
import { type RandomSource, systemRandom } from "../random.js";
import { verifyBorromeanRange } from "./borromean.js";
import { type BulletproofProof, bulletproofVerify } from "./bulletproof.js";
import { type BulletproofPlusProof, bulletproofPlusVerify } from "./bulletproof-plus.js";
import { type ClsagSignature, clsagVerify } from "./clsag.js";
import { type MlsagSignature, mlsagVerify, mlsagVerifySimple } from "./mlsag.js";
import { concatBytes, equalBytes, H, IDENTITY, INV_EIGHT, u64Scalar } from "./scalar.js";

export const RCT_TYPE_FULL = 1;
export const RCT_TYPE_SIMPLE = 2;
export const RCT_TYPE_BULLETPROOF = 3;
export const RCT_TYPE_BULLETPROOF2 = 4;
export const RCT_TYPE_CLSAG = 5;
export const RCT_TYPE_BULLETPROOF_PLUS = 6;

export interface RctRangeSig {
  asig: Bytes;
  Ci: Bytes;
}
export type RctBulletproof = Omit<BulletproofProof, "V">;
export type RctBulletproofPlus = Omit<BulletproofPlusProof, "V">;

export interface RctPrunableLike {
  rangeSigs: RctRangeSig[];
  bulletproofs: RctBulletproof[];
  bulletproofsPlus: RctBulletproofPlus[];
  MGs: MlsagSignature[];
  CLSAGs: ClsagSignature[];
  pseudoOuts: Bytes[];
}

/** The RingCT part of a transaction (rctSig), as parsed by protocol/rct.ts. */
export interface RctSigLike {
  type: number;
  fee: bigint;
  /** Type Simple only. */
  pseudoOuts: Bytes[];
  ecdhInfo: { amount: Bytes; mask?: Bytes }[];
  outPk: Bytes[];
  prunable?: RctPrunableLike;
}

/** A ring member: its one-time key and its amount commitment (rct::ctkey). */
export interface CtKey {
  dest: Bytes;
  mask: Bytes;
}

/** Everything verification needs beyond the transaction bytes. */
export interface RctVerifyItem {
  rct: RctSigLike;
  /** get_pre_mlsag_hash (see `preMlsagHash`). */
  message: Bytes;
  /** Per input, its key image. */
  keyImages: Bytes[];
  /** Per input, its ring members in key-offset order. */
  mixRing: CtKey[][];
}

function isBulletproof(t: number): boolean {
  return t === RCT_TYPE_BULLETPROOF || t === RCT_TYPE_BULLETPROOF2 || t === RCT_TYPE_CLSAG;
}
function isBulletproofPlus(t: number): boolean {
  return t === RCT_TYPE_BULLETPROOF_PLUS;
}
function isClsag(t: number): boolean {
  return t === RCT_TYPE_CLSAG || t === RCT_TYPE_BULLETPROOF_PLUS;
}
function isSimple(t: number): boolean {
  return t >= RCT_TYPE_SIMPLE && t <= RCT_TYPE_BULLETPROOF_PLUS;
}

/**
 * get_pre_mlsag_hash: keccak(prefixHash ‖ keccak(rctSigBase bytes) ‖ keccak(range-proof keys)),
 * the message every CLSAG/MLSAG of the transaction signs. `rctBaseBlob` is the serialized
 * rctSigBase (the transaction bytes from the end of the prefix to the start of the prunable part).
 */
export function preMlsagHash(b: CryptoBackend, prefixHash: Bytes, rctBaseBlob: Bytes, rct: RctSigLike): Bytes {
  const p = rct.prunable;
  if (!p) throw new RangeError("pre-MLSAG hash: the prunable part is needed");
  const kv: Bytes[] = [];
  if (isBulletproof(rct.type)) {
    // V is not hashed: it is expanded from outPk, already in the base
    for (const bp of p.bulletproofs) kv.push(bp.A, bp.S, bp.T1, bp.T2, bp.taux, bp.mu, ...bp.L, ...bp.R, bp.a, bp.b, bp.t);
  } else if (isBulletproofPlus(rct.type)) {
    for (const bp of p.bulletproofsPlus) kv.push(bp.A, bp.A1, bp.B, bp.r1, bp.s1, bp.d1, ...bp.L, ...bp.R);
  } else {
    // s0[64] ‖ s1[64] ‖ ee ‖ Ci[64]: exactly the serialized asig then Ci
    for (const r of p.rangeSigs) kv.push(r.asig, r.Ci);
  }
  return b.keccak256(concatBytes([prefixHash, b.keccak256(rctBaseBlob), b.keccak256(concatBytes(kv))]));
}

/** Σ points, or null when one does not decode (rct::addKeys over a vector). */
function sumPoints(b: CryptoBackend, pts: readonly Bytes[]): Bytes | null {
  let acc: Bytes = IDENTITY;
  for (const p of pts) {
    const s = b.pointAdd(acc, p);
    if (s === null) return null;
    acc = s;
  }
  return acc;
}

/** V[i] = outPk[i]/8, as expand_transaction_1 rebuilds it; null when a commitment does not decode. */
function expandV(b: CryptoBackend, outPk: readonly Bytes[]): Bytes[] | null {
  const V: Bytes[] = [];
  for (const c of outPk) {
    const v = b.scalarMult(INV_EIGHT, c);
    if (v === null) return null;
    V.push(v);
  }
  return V;
}

/**
 * verRctSemanticsSimple over a batch: shapes, the balance Σ pseudoOuts = Σ outPk + fee·H, and
 * every range proof (Bulletproofs+ of the whole batch in one multi-exponentiation, likewise
 * Bulletproofs; Borromean one by one). Never throws on bad data.
 */
export function verifyRctSemantics(b: CryptoBackend, rcts: readonly RctSigLike[], rng: RandomSource = systemRandom): boolean {
  const bpp: BulletproofPlusProof[] = [];
  const bp: BulletproofProof[] = [];
  const borromean: { C: Bytes; sig: RctRangeSig }[] = [];
  for (const rv of rcts) {
    const p = rv.prunable;
    if (!p) return false;
    const nOut = rv.outPk.length;
    if (rv.ecdhInfo.length !== nOut) return false;
    if (rv.type === RCT_TYPE_FULL) {
      // verRct(semantics): Borromean proofs only; the balance is inside the one MLSAG
      if (p.rangeSigs.length !== nOut || p.MGs.length !== 1) return false;
      for (let i = 0; i < nOut; i++) borromean.push({ C: rv.outPk[i], sig: p.rangeSigs[i] });
      continue;
    }
    if (!isSimple(rv.type)) return false;
    let pseudoOuts: Bytes[];
    if (isBulletproof(rv.type) || isBulletproofPlus(rv.type)) {
      // one aggregate proof covering exactly the outputs (expand_transaction_1 + n_bulletproof_*_amounts)
      const proofs = isBulletproofPlus(rv.type) ? p.bulletproofsPlus : p.bulletproofs;
      const other = isBulletproofPlus(rv.type) ? p.bulletproofs : p.bulletproofsPlus;
      if (proofs.length !== 1 || other.length !== 0 || p.rangeSigs.length !== 0) return false;
      const L = proofs[0].L.length;
      if (L < 6 || L > 10 || 1 << (L - 6) < nOut) return false;
      const V = expandV(b, rv.outPk);
      if (V === null) return false;
      if (isBulletproofPlus(rv.type)) bpp.push({ ...p.bulletproofsPlus[0], V });
      else bp.push({ ...p.bulletproofs[0], V });
      if (isClsag(rv.type)) {
        if (p.MGs.length !== 0 || p.pseudoOuts.length !== p.CLSAGs.length) return false;
      } else if (p.CLSAGs.length !== 0 || p.pseudoOuts.length !== p.MGs.length) return false;
      if (rv.pseudoOuts.length !== 0) return false;
      pseudoOuts = p.pseudoOuts;
    } else {
      if (p.rangeSigs.length !== nOut || rv.pseudoOuts.length !== p.MGs.length || p.pseudoOuts.length !== 0) return false;
      if (p.bulletproofs.length !== 0 || p.bulletproofsPlus.length !== 0 || p.CLSAGs.length !== 0) return false;
      for (let i = 0; i < nOut; i++) borromean.push({ C: rv.outPk[i], sig: p.rangeSigs[i] });
      pseudoOuts = rv.pseudoOuts;
    }
    // balance: Σ pseudoOuts = Σ outPk + fee·H
    if (rv.fee < 0n || rv.fee >= 1n << 64n) return false;
    const feeH = b.scalarMult(u64Scalar(rv.fee), H);
    const outs = sumPoints(b, rv.outPk);
    if (feeH === null || outs === null) return false;
    const rhs = b.pointAdd(feeH, outs);
    const lhs = sumPoints(b, pseudoOuts);
    if (rhs === null || lhs === null || !equalBytes(lhs, rhs)) return false;
  }
  if (bpp.length && !bulletproofPlusVerify(b, bpp, rng)) return false;
  if (bp.length && !bulletproofVerify(b, bp, rng)) return false;
  for (const r of borromean) if (!verifyBorromeanRange(b, r.C, r.sig.asig, r.sig.Ci)) return false;
  return true;
}

/**
 * The key matrix of an RCTTypeFull transaction (verRctMG): column i holds ring member i's key for
 * every input, then Σ_inputs C − Σ outPk − fee·H. `mixRing` is per input, as in RctVerifyItem;
 * every input must have the same ring size. Null when a commitment does not decode.
 */
export function fullRctMatrix(b: CryptoBackend, mixRing: readonly (readonly CtKey[])[], outPk: readonly Bytes[], fee: bigint): Bytes[][] | null {
  const rows = mixRing.length;
  if (rows === 0) return null;
  const cols = mixRing[0].length;
  if (cols === 0 || mixRing.some((r) => r.length !== cols)) return null;
  const feeH = b.scalarMult(u64Scalar(fee), H);
  const outs = sumPoints(b, outPk);
  if (feeH === null || outs === null) return null;
  const minus = b.pointAdd(outs, feeH);
  if (minus === null) return null;
  const M: Bytes[][] = [];
  for (let i = 0; i < cols; i++) {
    const col: Bytes[] = [];
    for (let j = 0; j < rows; j++) col.push(mixRing[j][i].dest);
    const sum = sumPoints(b, mixRing.map((r) => r[i].mask));
    if (sum === null) return null;
    const last = b.pointSub(sum, minus);
    if (last === null) return null;
    col.push(last);
    M.push(col);
  }
  return M;
}

/**
 * verRctNonSemanticsSimple: each input's CLSAG (or MLSAG) against its ring; for RCTTypeFull the
 * single MLSAG over all inputs (verRct, non-semantics half). Never throws on bad data.
 */
export function verifyRctNonSemantics(b: CryptoBackend, item: RctVerifyItem): boolean {
  const rv = item.rct;
  if (rv.type === RCT_TYPE_FULL) {
    const p = rv.prunable;
    if (!p || p.MGs.length !== 1 || rv.fee < 0n || rv.fee >= 1n << 64n) return false;
    if (item.keyImages.length !== item.mixRing.length) return false;
    const M = fullRctMatrix(b, item.mixRing, rv.outPk, rv.fee);
    return M !== null && mlsagVerify(b, item.message, M, p.MGs[0], item.keyImages, item.mixRing.length);
  }
  if (!isSimple(rv.type) || !rv.prunable) return false;
  const p = rv.prunable;
  const pseudoOuts = isBulletproof(rv.type) || isBulletproofPlus(rv.type) ? p.pseudoOuts : rv.pseudoOuts;
  const n = item.mixRing.length;
  if (pseudoOuts.length !== n || item.keyImages.length !== n) return false;
  const sigs = isClsag(rv.type) ? p.CLSAGs.length : p.MGs.length;
  if (sigs !== n) return false;
  for (let i = 0; i < n; i++) {
    const ring = item.mixRing[i];
    const P = ring.map((m) => m.dest);
    const C = ring.map((m) => m.mask);
    const ok = isClsag(rv.type)
      ? clsagVerify(b, item.message, p.CLSAGs[i], P, C, item.keyImages[i], pseudoOuts[i])
      : mlsagVerifySimple(b, item.message, p.MGs[i], P, C, item.keyImages[i], pseudoOuts[i]);
    if (!ok) return false;
  }
  return true;
}

/** Semantics and signatures of one transaction. */
export function verifyRctSimple(b: CryptoBackend, item: RctVerifyItem, rng: RandomSource = systemRandom): boolean {
  return verifyRctSemantics(b, [item.rct], rng) && verifyRctNonSemantics(b, item);
}

/**
 * A batch (e.g. a block's transactions): all range proofs in one multi-exponentiation, then
 * every signature. True only when every transaction is valid; to find the bad one, verify them
 * one by one.
 */
export function verifyRctBatch(b: CryptoBackend, items: readonly RctVerifyItem[], rng: RandomSource = systemRandom): boolean {
  if (!verifyRctSemantics(b, items.map((i) => i.rct), rng)) return false;
  for (const it of items) if (!verifyRctNonSemantics(b, it)) return false;
  return true;
}
