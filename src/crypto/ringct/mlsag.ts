/**
 * MLSAG ring signatures (src/ringct/rctSigs.cpp: MLSAG_Gen, MLSAG_Ver, proveRctMGSimple,
 * verRctMGSimple), used by RingCT types Simple, Bulletproof and Bulletproof2 before CLSAG.
 *
 * The key matrix has one column per ring member and `rows` keys per column; the first `dsRows`
 * rows carry key images (linkable), the others are plain Schnorr rows.
 */
import type { Bytes, CryptoBackend } from "../backend.js";
import { type RandomSource, randomScalar, systemRandom } from "../random.js";
import { concatBytes, isIdentity, isZero } from "./scalar.js";

export interface MlsagSignature {
  /** ss[column][row]. */
  ss: Bytes[][];
  cc: Bytes;
}

function hashSlots(rows: number, dsRows: number): number {
  return 1 + 3 * dsRows + 2 * (rows - dsRows);
}

/**
 * MLSAG_Gen: `pk[col][row]`, secret keys `x[row]` of column `index`. Returns the signature and
 * the key images (one per ds row).
 */
export function mlsagSign(
  b: CryptoBackend,
  message: Bytes,
  pk: readonly (readonly Bytes[])[],
  x: readonly Bytes[],
  index: number,
  dsRows: number,
  rng: RandomSource = systemRandom,
): { signature: MlsagSignature; keyImages: Bytes[] } {
  const cols = pk.length;
  if (cols < 2) throw new RangeError("mlsag: at least two columns");
  if (index < 0 || index >= cols) throw new RangeError("mlsag: index out of range");
  const rows = pk[0].length;
  if (rows < 1 || pk.some((c) => c.length !== rows) || x.length !== rows || dsRows > rows)
    throw new RangeError("mlsag: bad matrix dimensions");
  const toHash: Bytes[] = new Array<Bytes>(hashSlots(rows, dsRows));
  toHash[0] = message;
  const alpha: Bytes[] = [];
  const II: Bytes[] = [];
  for (let i = 0; i < dsRows; i++) {
    const Hi = b.hashToEc(pk[index][i]);
    alpha.push(randomScalar(b, rng));
    const aHP = b.scalarMult(alpha[i], Hi);
    const img = b.scalarMult(x[i], Hi);
    if (aHP === null || img === null) throw new Error("impossible");
    II.push(img);
    toHash[3 * i + 1] = pk[index][i];
    toHash[3 * i + 2] = b.scalarMultBase(alpha[i]);
    toHash[3 * i + 3] = aHP;
  }
  const nds = 3 * dsRows;
  for (let i = dsRows, ii = 0; i < rows; i++, ii++) {
    alpha.push(randomScalar(b, rng));
    toHash[nds + 2 * ii + 1] = pk[index][i];
    toHash[nds + 2 * ii + 2] = b.scalarMultBase(alpha[i]);
  }
  let c = b.hashToScalar(concatBytes(toHash));
  const ss: Bytes[][] = new Array<Bytes[]>(cols);
  let cc: Bytes | undefined;
  let i = (index + 1) % cols;
  if (i === 0) cc = c;
  while (i !== index) {
    ss[i] = [];
    for (let j = 0; j < rows; j++) ss[i].push(randomScalar(b, rng));
    const row = rowHash(b, toHash, pk[i], ss[i], c, II, dsRows);
    if (row === null) throw new RangeError(`mlsag: column ${i} does not decode`);
    c = row;
    i = (i + 1) % cols;
    if (i === 0) cc = c;
  }
  ss[index] = alpha.map((a, j) => b.scMulSub(c, x[j], a));
  if (cc === undefined) throw new Error("impossible");
  return { signature: { ss, cc }, keyImages: II };
}

/** One column's hash: L = s·G + c·P for every row, R = s·Hp(P) + c·I for ds rows. */
function rowHash(
  b: CryptoBackend,
  toHash: Bytes[],
  col: readonly Bytes[],
  ss: readonly Bytes[],
  c: Bytes,
  II: readonly Bytes[],
  dsRows: number,
): Bytes | null {
  for (let j = 0; j < dsRows; j++) {
    const L = b.doubleScalarMultBase(c, col[j], ss[j]);
    if (L === null) return null;
    const R = b.doubleScalarMult(ss[j], b.hashToEc(col[j]), c, II[j]);
    if (R === null) return null;
    toHash[3 * j + 1] = col[j];
    toHash[3 * j + 2] = L;
    toHash[3 * j + 3] = R;
  }
  const nds = 3 * dsRows;
  for (let j = dsRows, ii = 0; j < col.length; j++, ii++) {
    const L = b.doubleScalarMultBase(c, col[j], ss[j]);
    if (L === null) return null;
    toHash[nds + 2 * ii + 1] = col[j];
    toHash[nds + 2 * ii + 2] = L;
  }
  return b.hashToScalar(concatBytes(toHash));
}

/** MLSAG_Ver. Never throws on bad data. */
export function mlsagVerify(
  b: CryptoBackend,
  message: Bytes,
  pk: readonly (readonly Bytes[])[],
  sig: MlsagSignature,
  keyImages: readonly Bytes[],
  dsRows: number,
): boolean {
  const cols = pk.length;
  if (cols < 2) return false;
  const rows = pk[0].length;
  if (rows < 1 || pk.some((c) => c.length !== rows)) return false;
  if (keyImages.length !== dsRows || sig.ss.length !== cols || dsRows > rows) return false;
  if (sig.ss.some((col) => col.length !== rows)) return false;
  if (b.scCheckBatch(concatBytes([...sig.ss.flat(), sig.cc])) >= 0) return false;
  for (const I of keyImages) if (isIdentity(I) || !b.pointCheck(I)) return false;
  const toHash: Bytes[] = new Array<Bytes>(hashSlots(rows, dsRows));
  toHash[0] = message;
  let c = sig.cc;
  for (let i = 0; i < cols; i++) {
    const next = rowHash(b, toHash, pk[i], sig.ss[i], c, keyImages, dsRows);
    if (next === null || isZero(next)) return false;
    c = next;
  }
  return isZero(b.scSub(c, sig.cc));
}

/** The 2-row matrix of a simple input: (P[i], C[i] − C_offset); null when a commitment does not decode. */
function simpleMatrix(b: CryptoBackend, P: readonly Bytes[], C: readonly Bytes[], cOffset: Bytes): Bytes[][] | null {
  const M: Bytes[][] = [];
  for (let i = 0; i < P.length; i++) {
    const d = b.pointSub(C[i], cOffset);
    if (d === null) return null;
    M.push([P[i], d]);
  }
  return M;
}

/** proveRctMGSimple: signs input with secret key p and mask difference z (input mask − pseudo mask). */
export function mlsagSignSimple(
  b: CryptoBackend,
  message: Bytes,
  P: readonly Bytes[],
  C: readonly Bytes[],
  p: Bytes,
  z: Bytes,
  cOffset: Bytes,
  index: number,
  rng: RandomSource = systemRandom,
): { signature: MlsagSignature; keyImage: Bytes } {
  const M = simpleMatrix(b, P, C, cOffset);
  if (M === null) throw new RangeError("mlsag: a commitment does not decode");
  const { signature, keyImages } = mlsagSign(b, message, M, [p, z], index, 1, rng);
  return { signature, keyImage: keyImages[0] };
}

/** verRctMGSimple. */
export function mlsagVerifySimple(
  b: CryptoBackend,
  message: Bytes,
  sig: MlsagSignature,
  P: readonly Bytes[],
  C: readonly Bytes[],
  keyImage: Bytes,
  cOffset: Bytes,
): boolean {
  if (P.length < 1 || C.length !== P.length) return false;
  if (!b.pointCheck(cOffset)) return false;
  const M = simpleMatrix(b, P, C, cOffset);
  if (M === null) return false;
  return mlsagVerify(b, message, M, sig, [keyImage], 1);
}
