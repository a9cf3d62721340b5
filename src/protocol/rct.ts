/**
 * RingCT signatures as Monero serializes them (src/ringct/rctTypes.h: serialize_rctsig_base and
 * serialize_rctsig_prunable). Neither part carries its own sizes for most arrays: the number of inputs,
 * outputs and ring members comes from the transaction prefix, so both readers and writers take them.
 */
import { type Label, type Reader, Where } from "../codec/reader.js";
import type { Writer } from "../codec/writer.js";

export type Bytes = Uint8Array;

export const RCT_TYPE = {
  Null: 0,
  Full: 1,
  Simple: 2,
  Bulletproof: 3,
  Bulletproof2: 4,
  CLSAG: 5,
  BulletproofPlus: 6,
} as const;
export type RctType = (typeof RCT_TYPE)[keyof typeof RCT_TYPE];

/** Types whose ecdhInfo holds only an 8-byte amount (no mask). */
export function rctCompactEcdh(type: number): boolean {
  return type === RCT_TYPE.Bulletproof2 || type === RCT_TYPE.CLSAG || type === RCT_TYPE.BulletproofPlus;
}
export function rctIsBulletproof(type: number): boolean {
  return type === RCT_TYPE.Bulletproof || type === RCT_TYPE.Bulletproof2 || type === RCT_TYPE.CLSAG;
}
export function rctIsBulletproofPlus(type: number): boolean {
  return type === RCT_TYPE.BulletproofPlus;
}
export function rctIsClsag(type: number): boolean {
  return type === RCT_TYPE.CLSAG || type === RCT_TYPE.BulletproofPlus;
}
export function rctIsBorromean(type: number): boolean {
  return type === RCT_TYPE.Full || type === RCT_TYPE.Simple;
}
/** Types whose pseudoOuts sit in the prunable part (all simple types after Simple). */
export function rctPseudoOutsInPrunable(type: number): boolean {
  return type >= RCT_TYPE.Bulletproof && type <= RCT_TYPE.BulletproofPlus;
}

/**
 * One output's encrypted amount. Types 1–3 carry a 32-byte mask and a 32-byte amount; types 4–6 carry
 * only the first 8 bytes of the amount (then `mask` is absent and `amount` has 8 bytes).
 */
export interface EcdhInfo {
  mask?: Bytes;
  amount: Bytes;
}

/** The prunable-free part of RingCT (`rctSigBase` as serialized). */
export interface RctBase {
  type: number;
  /** txnFee (absent, i.e. 0n, for RCTTypeNull). */
  fee: bigint;
  /** Type Simple only: one pseudo output commitment per input. */
  pseudoOuts: Bytes[];
  ecdhInfo: EcdhInfo[];
  /** Output commitments (the masks of outPk). */
  outPk: Bytes[];
}

/** Borromean range proof: asig (s0, s1: 64 keys each; ee) and Ci (64 keys), blobs as serialized. */
export interface RangeSig {
  /** boroSig: s0 ‖ s1 ‖ ee (64·32 + 64·32 + 32 = 4128 bytes). */
  asig: Bytes;
  /** Ci: 64 keys (2048 bytes). */
  Ci: Bytes;
}
export interface Bulletproof {
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
export interface BulletproofPlus {
  A: Bytes;
  A1: Bytes;
  B: Bytes;
  r1: Bytes;
  s1: Bytes;
  d1: Bytes;
  L: Bytes[];
  R: Bytes[];
}
export interface MgSig {
  /** (mixin + 1) rows of (Full: inputs + 1; simple types: 2) scalars. */
  ss: Bytes[][];
  cc: Bytes;
}
export interface Clsag {
  /** mixin + 1 scalars. */
  s: Bytes[];
  c1: Bytes;
  D: Bytes;
}

/** The prunable part (`rctSigPrunable`); which arrays are used depends on the type. */
export interface RctPrunable {
  rangeSigs: RangeSig[];
  bulletproofs: Bulletproof[];
  bulletproofsPlus: BulletproofPlus[];
  MGs: MgSig[];
  CLSAGs: Clsag[];
  /** Types Bulletproof..BulletproofPlus: one pseudo output commitment per input. */
  pseudoOuts: Bytes[];
}

export interface RctSignatures extends RctBase {
  /** Absent when the transaction is pruned or the type is Null. */
  prunable?: RctPrunable;
}

/** BULLETPROOF_MAX_OUTPUTS / BULLETPROOF_PLUS_MAX_OUTPUTS (16): L has 6..10 entries. */
const BP_MAX_LR = 10;

export function emptyPrunable(): RctPrunable {
  return { rangeSigs: [], bulletproofs: [], bulletproofsPlus: [], MGs: [], CLSAGs: [], pseudoOuts: [] };
}

function validType(type: number): boolean {
  return type >= RCT_TYPE.Full && type <= RCT_TYPE.BulletproofPlus;
}

function keys(r: Reader, n: number, what: Label): Bytes[] {
  if (n * 32 > r.remaining) r.fail(what, `${n} keys need ${n * 32} bytes, ${r.remaining} left`);
  const out: Bytes[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = r.key(what);
  return out;
}

/** A std::vector<key> with its varint size. */
function keyVector(r: Reader, what: Label): Bytes[] {
  const n = r.count(new Where(what, " size"), 32);
  return keys(r, n, what);
}

/** Reads rctSigBase; mirrors serialize_rctsig_base (rctTypes.h). */
export function readRctBase(r: Reader, inputs: number, outputs: number, what: Label = "rct_signatures"): RctBase {
  const at = r.pos;
  const type = r.u8(new Where(what, ".type"));
  if (type === RCT_TYPE.Null) return { type, fee: 0n, pseudoOuts: [], ecdhInfo: [], outPk: [] };
  if (!validType(type)) r.fail(new Where(what, ".type"), `unknown RingCT type ${type}`, at);
  const fee = r.varint(new Where(what, ".txnFee"));
  const pseudoOuts = type === RCT_TYPE.Simple ? keys(r, inputs, new Where(what, ".pseudoOuts")) : [];
  const compact = rctCompactEcdh(type);
  if (outputs * (compact ? 8 : 64) > r.remaining) r.fail(new Where(what, ".ecdhInfo"), `${outputs} entries do not fit`);
  const ecdhInfo: EcdhInfo[] = new Array(outputs);
  for (let i = 0; i < outputs; i++) {
    ecdhInfo[i] = compact
      ? { amount: r.bytes(8, new Where(what, ".ecdhInfo[", i, "].amount")) }
      : { mask: r.key(new Where(what, ".ecdhInfo[", i, "].mask")), amount: r.key(new Where(what, ".ecdhInfo[", i, "].amount")) };
  }
  const outPk = keys(r, outputs, new Where(what, ".outPk"));
  return { type, fee, pseudoOuts, ecdhInfo, outPk };
}

export function writeRctBase(w: Writer, rct: RctBase, inputs: number, outputs: number): void {
  w.u8(rct.type);
  if (rct.type === RCT_TYPE.Null) return;
  if (!validType(rct.type)) throw new RangeError(`unknown RingCT type ${rct.type}`);
  w.varint(rct.fee);
  if (rct.type === RCT_TYPE.Simple) {
    if (rct.pseudoOuts.length !== inputs) throw new RangeError("rct pseudoOuts: one per input expected");
    for (const k of rct.pseudoOuts) w.fixed(k, 32, "pseudoOut");
  }
  if (rct.ecdhInfo.length !== outputs || rct.outPk.length !== outputs)
    throw new RangeError("rct ecdhInfo/outPk: one per output expected");
  const compact = rctCompactEcdh(rct.type);
  for (const e of rct.ecdhInfo) {
    if (compact) w.fixed(e.amount, 8, "ecdhInfo.amount (8 bytes for this type)");
    else {
      if (!e.mask) throw new RangeError("ecdhInfo.mask missing for this RingCT type");
      w.fixed(e.mask, 32, "ecdhInfo.mask").fixed(e.amount, 32, "ecdhInfo.amount");
    }
  }
  for (const k of rct.outPk) w.fixed(k, 32, "outPk");
}

/** n_bulletproof(_plus)_max_amounts: 2^(|L| − 6) per proof, or 0 when a proof is malformed. */
export function bulletproofMaxAmounts(proofs: { L: Bytes[]; R: Bytes[] }[]): number {
  let n = 0;
  for (const p of proofs) {
    if (p.L.length < 6 || p.L.length !== p.R.length || p.L.length > BP_MAX_LR) return 0;
    n += 1 << (p.L.length - 6);
  }
  return n;
}

function readBulletproof(r: Reader, what: Label): Bulletproof {
  const A = r.key(new Where(what, ".A"));
  const S = r.key(new Where(what, ".S"));
  const T1 = r.key(new Where(what, ".T1"));
  const T2 = r.key(new Where(what, ".T2"));
  const taux = r.key(new Where(what, ".taux"));
  const mu = r.key(new Where(what, ".mu"));
  const L = keyVector(r, new Where(what, ".L"));
  const R = keyVector(r, new Where(what, ".R"));
  const a = r.key(new Where(what, ".a"));
  const b = r.key(new Where(what, ".b"));
  const t = r.key(new Where(what, ".t"));
  if (L.length === 0 || L.length !== R.length) r.fail(what, `L and R must be non-empty and of equal size (${L.length}, ${R.length})`);
  return { A, S, T1, T2, taux, mu, L, R, a, b, t };
}

function readBulletproofPlus(r: Reader, what: Label): BulletproofPlus {
  const A = r.key(new Where(what, ".A"));
  const A1 = r.key(new Where(what, ".A1"));
  const B = r.key(new Where(what, ".B"));
  const r1 = r.key(new Where(what, ".r1"));
  const s1 = r.key(new Where(what, ".s1"));
  const d1 = r.key(new Where(what, ".d1"));
  const L = keyVector(r, new Where(what, ".L"));
  const R = keyVector(r, new Where(what, ".R"));
  if (L.length === 0 || L.length !== R.length) r.fail(what, `L and R must be non-empty and of equal size (${L.length}, ${R.length})`);
  return { A, A1, B, r1, s1, d1, L, R };
}

/**
 * Reads rctSigPrunable; mirrors serialize_rctsig_prunable (rctTypes.h). `mixin` is the ring size of the
 * first input minus one (0 when the first input is not to_key).
 */
export function readRctPrunable(
  r: Reader,
  type: number,
  inputs: number,
  outputs: number,
  mixin: number,
  what: Label = "rctsig_prunable",
): RctPrunable {
  const p = emptyPrunable();
  if (type === RCT_TYPE.Null) return p;
  if (!validType(type)) r.fail(what, `unknown RingCT type ${type}`);
  if (type === RCT_TYPE.BulletproofPlus) {
    const at = r.pos;
    const nbp = r.varintNumber(new Where(what, ".nbp"), 0xffffffff);
    if (nbp > outputs) r.fail(new Where(what, ".nbp"), `${nbp} proofs for ${outputs} outputs`, at);
    for (let i = 0; i < nbp; i++) p.bulletproofsPlus.push(readBulletproofPlus(r, new Where(what, ".bpp[", i, "]")));
    if (bulletproofMaxAmounts(p.bulletproofsPlus) < outputs)
      r.fail(new Where(what, ".bpp"), `proofs cover fewer than the ${outputs} outputs`);
  } else if (rctIsBulletproof(type)) {
    const at = r.pos;
    const nbp = type === RCT_TYPE.Bulletproof ? r.u32le(new Where(what, ".nbp")) : r.varintNumber(new Where(what, ".nbp"), 0xffffffff);
    if (nbp > outputs) r.fail(new Where(what, ".nbp"), `${nbp} proofs for ${outputs} outputs`, at);
    for (let i = 0; i < nbp; i++) p.bulletproofs.push(readBulletproof(r, new Where(what, ".bp[", i, "]")));
    if (bulletproofMaxAmounts(p.bulletproofs) < outputs) r.fail(new Where(what, ".bp"), `proofs cover fewer than the ${outputs} outputs`);
  } else {
    if (outputs * 6176 > r.remaining) r.fail(new Where(what, ".rangeSigs"), `${outputs} range proofs do not fit`);
    for (let i = 0; i < outputs; i++)
      p.rangeSigs.push({ asig: r.bytes(4128, new Where(what, ".rangeSigs[", i, "].asig")), Ci: r.bytes(2048, new Where(what, ".rangeSigs[", i, "].Ci")) });
  }
  if (rctIsClsag(type)) {
    if (inputs * (mixin + 3) * 32 > r.remaining) r.fail(new Where(what, ".CLSAGs"), `${inputs} CLSAGs of ring size ${mixin + 1} do not fit`);
    for (let i = 0; i < inputs; i++) {
      const s = keys(r, mixin + 1, new Where(what, ".CLSAGs[", i, "].s"));
      const c1 = r.key(new Where(what, ".CLSAGs[", i, "].c1"));
      const D = r.key(new Where(what, ".CLSAGs[", i, "].D"));
      p.CLSAGs.push({ s, c1, D });
    }
  } else {
    const simple = type !== RCT_TYPE.Full;
    const mgElements = simple ? inputs : 1;
    const cols = simple ? 2 : inputs + 1;
    if (mgElements * ((mixin + 1) * cols + 1) * 32 > r.remaining)
      r.fail(new Where(what, ".MGs"), `${mgElements} MLSAGs of ring size ${mixin + 1} do not fit`);
    for (let i = 0; i < mgElements; i++) {
      const ss: Bytes[][] = [];
      for (let j = 0; j <= mixin; j++) ss.push(keys(r, cols, new Where(new Where(what, ".MGs[", i, "].ss["), "", j, "]")));
      const cc = r.key(new Where(what, ".MGs[", i, "].cc"));
      p.MGs.push({ ss, cc });
    }
  }
  if (rctPseudoOutsInPrunable(type)) p.pseudoOuts = keys(r, inputs, new Where(what, ".pseudoOuts"));
  return p;
}

function writeKeys(w: Writer, ks: Bytes[], what: string): void {
  for (const k of ks) w.fixed(k, 32, what);
}

export function writeRctPrunable(
  w: Writer,
  p: RctPrunable,
  type: number,
  inputs: number,
  outputs: number,
  mixin: number,
): void {
  if (type === RCT_TYPE.Null) return;
  if (!validType(type)) throw new RangeError(`unknown RingCT type ${type}`);
  if (type === RCT_TYPE.BulletproofPlus) {
    w.varint(p.bulletproofsPlus.length);
    for (const bp of p.bulletproofsPlus) {
      for (const k of [bp.A, bp.A1, bp.B, bp.r1, bp.s1, bp.d1]) w.fixed(k, 32, "bpp key");
      w.varint(bp.L.length);
      writeKeys(w, bp.L, "bpp.L");
      w.varint(bp.R.length);
      writeKeys(w, bp.R, "bpp.R");
    }
  } else if (rctIsBulletproof(type)) {
    if (type === RCT_TYPE.Bulletproof) w.u32le(p.bulletproofs.length);
    else w.varint(p.bulletproofs.length);
    for (const bp of p.bulletproofs) {
      for (const k of [bp.A, bp.S, bp.T1, bp.T2, bp.taux, bp.mu]) w.fixed(k, 32, "bp key");
      w.varint(bp.L.length);
      writeKeys(w, bp.L, "bp.L");
      w.varint(bp.R.length);
      writeKeys(w, bp.R, "bp.R");
      for (const k of [bp.a, bp.b, bp.t]) w.fixed(k, 32, "bp key");
    }
  } else {
    if (p.rangeSigs.length !== outputs) throw new RangeError("rangeSigs: one per output expected");
    for (const rs of p.rangeSigs) w.fixed(rs.asig, 4128, "rangeSig.asig").fixed(rs.Ci, 2048, "rangeSig.Ci");
  }
  if (rctIsClsag(type)) {
    if (p.CLSAGs.length !== inputs) throw new RangeError("CLSAGs: one per input expected");
    for (const c of p.CLSAGs) {
      if (c.s.length !== mixin + 1) throw new RangeError("CLSAG.s: ring size scalars expected");
      writeKeys(w, c.s, "CLSAG.s");
      w.fixed(c.c1, 32, "CLSAG.c1").fixed(c.D, 32, "CLSAG.D");
    }
  } else {
    const simple = type !== RCT_TYPE.Full;
    if (p.MGs.length !== (simple ? inputs : 1)) throw new RangeError("MGs: wrong count for this type");
    const cols = simple ? 2 : inputs + 1;
    for (const mg of p.MGs) {
      if (mg.ss.length !== mixin + 1) throw new RangeError("MG.ss: ring size rows expected");
      for (const row of mg.ss) {
        if (row.length !== cols) throw new RangeError("MG.ss row: wrong width");
        writeKeys(w, row, "MG.ss");
      }
      w.fixed(mg.cc, 32, "MG.cc");
    }
  }
  if (rctPseudoOutsInPrunable(type)) {
    if (p.pseudoOuts.length !== inputs) throw new RangeError("pseudoOuts: one per input expected");
    writeKeys(w, p.pseudoOuts, "pseudoOut");
  }
}
