/**
 * ed25519 group arithmetic with Monero's exact semantics (src/crypto/crypto-ops.c, v0.18.0.0).
 *
 * Points are extended coordinates (X:Y:Z:T), x = X/Z, y = Y/Z, T = XY/Z, on −x² + y² = 1 + d·x²·y².
 * The unified addition and doubling formulas are complete on this curve, so they are exact for every
 * curve point, torsion included; nothing here checks subgroup membership. Where Monero's scalar
 * recodings deviate from plain integer multiplication (top digits that are silently dropped, carries
 * that fall off bit 256), the recodings below reproduce that, and the group operations are driven
 * by the recoded digits, so results match Monero bit for bit on any input.
 */
import {
  bigToBytes,
  bytesToBig,
  D,
  D2,
  divPowM1,
  inv,
  isNegative,
  isNonZero,
  mul,
  neg as fneg,
  norm,
  P,
  SQRTM1,
  sq,
  sub,
} from "./field.js";
import { L } from "./scalar.js";

/** A point in extended coordinates. */
export interface Pt {
  readonly X: bigint;
  readonly Y: bigint;
  readonly Z: bigint;
  readonly T: bigint;
}

/** A point prepared for addition: (Y+X, Y−X, 2d·T, 2Z). */
interface Cached {
  readonly ypx: bigint;
  readonly ymx: bigint;
  readonly t2d: bigint;
  readonly z2: bigint;
}

/** The neutral element (0, 1). */
export const IDENTITY: Pt = { X: 0n, Y: 1n, Z: 1n, T: 0n };

const MASK255 = (1n << 255n) - 1n;

/**
 * Decompression as Monero's `ge_frombytes_vartime` (crypto-ops.c): y is the low 255 bits and must be
 * < p; x = ±√((y²−1)/(dy²+1)) must exist; x = 0 with the sign bit set is rejected. Small-order and
 * mixed-order points are accepted. Returns null when Monero returns −1.
 */
export function decode(b: Uint8Array, off = 0): Pt | null {
  const raw = bytesToBig(off === 0 && b.length === 32 ? b : b.subarray(off, off + 32));
  const y = raw & MASK255;
  const signBit = raw >> 255n === 1n;
  if (y >= P) return null;
  const y2 = sq(y);
  const u = y2 + (P - 1n); // y² − 1 (kept < 2^257 so it can be a subtrahend below)
  const v = mul(D, y2) + 1n; // d·y² + 1 (never 0: −1/d is not a square)
  let x = divPowM1(u, v);
  const vxx = mul(sq(x), v);
  if (isNonZero(sub(vxx, u))) {
    if (isNonZero(vxx + u)) return null;
    x = mul(x, SQRTM1);
  }
  x = norm(x);
  if (((x & 1n) === 1n) !== signBit) {
    if (x === 0n) return null;
    x = P - x;
  }
  return { X: x, Y: y, Z: 1n, T: mul(x, y) };
}

/** Compression (`ge_tobytes` / `ge_p3_tobytes`): canonical y, sign of x in bit 255. */
export function encode(p: Pt, out: Uint8Array, off = 0): Uint8Array {
  const zi = inv(p.Z);
  const x = norm(mul(p.X, zi));
  const y = norm(mul(p.Y, zi));
  bigToBytes(y, out, off);
  if ((x & 1n) === 1n) out[off + 31] |= 0x80;
  return out;
}

/** −P. */
export function negate(p: Pt): Pt {
  return { X: fneg(p.X), Y: p.Y, Z: p.Z, T: fneg(p.T) };
}

function toCached(p: Pt): Cached {
  return { ypx: p.Y + p.X, ymx: sub(p.Y, p.X), t2d: mul(p.T, D2), z2: p.Z + p.Z };
}

function negCached(c: Cached): Cached {
  return { ypx: c.ymx, ymx: c.ypx, t2d: fneg(c.t2d), z2: c.z2 };
}

/** p + q for q in cached form (unified, complete). */
function addCached(p: Pt, q: Cached): Pt {
  const a = mul(sub(p.Y, p.X), q.ymx);
  const b = mul(p.Y + p.X, q.ypx);
  const c = mul(p.T, q.t2d);
  const d = mul(p.Z, q.z2);
  const e = sub(b, a);
  const f = sub(d, c);
  const g = d + c;
  const h = b + a;
  return { X: mul(e, f), Y: mul(g, h), Z: mul(f, g), T: mul(e, h) };
}

/** P + Q. */
export function add(p: Pt, q: Pt): Pt {
  return addCached(p, toCached(q));
}

/** P − Q. */
export function subtract(p: Pt, q: Pt): Pt {
  return addCached(p, negCached(toCached(q)));
}

/** 2P (complete doubling, dbl-2008-hwcd with a = −1). */
export function double(p: Pt): Pt {
  const a = sq(p.X);
  const b = sq(p.Y);
  const c = sq(p.Z) * 2n;
  const h = a + b;
  const e = sub(h, sq(p.X + p.Y));
  const g = sub(a, b);
  const f = c + g;
  return { X: mul(e, f), Y: mul(g, h), Z: mul(f, g), T: mul(e, h) };
}

/** 2P without the T coordinate (only valid as input to another doubling). */
function doubleNoT(p: Pt): Pt {
  const a = sq(p.X);
  const b = sq(p.Y);
  const c = sq(p.Z) * 2n;
  const h = a + b;
  const e = sub(h, sq(p.X + p.Y));
  const g = sub(a, b);
  const f = c + g;
  return { X: mul(e, f), Y: mul(g, h), Z: mul(f, g), T: 0n };
}

/** 8P (`ge_mul8`). */
export function mul8(p: Pt): Pt {
  return double(doubleNoT(doubleNoT(p)));
}

// ---------------------------------------------------------------------------------------------
// Scalar recodings

/**
 * Signed radix-16 digits of a 32-byte scalar as Monero's `ge_scalarmult` and `ge_scalarmult_base`
 * form them: digits 0..62 in [−8, 7], digit 63 = top nibble + carry in [0, 16]. Both routines can only
 * add multiples 1..8 of a table entry, so a top digit above 8 (inputs ≳ 2^255 + 2^251) contributes
 * nothing; it is returned as 0 here.
 */
export function radix16(s: Uint8Array): Int8Array {
  const e = new Int8Array(64);
  let carry = 0;
  for (let j = 0; j < 63; j++) {
    const x = ((s[j >> 1] >> ((j & 1) * 4)) & 15) + carry;
    carry = (x + 8) >> 4;
    e[j] = x - (carry << 4);
  }
  const top = (s[31] >> 4) + carry;
  e[63] = top > 8 ? 0 : top;
  return e;
}

/** The integer Σ eᵢ·16^i that a radix-16 recoding stands for. */
function radix16Value(e: Int8Array): bigint {
  let v = 0n;
  for (let j = 63; j >= 0; j--) v = (v << 4n) + BigInt(e[j]);
  return v;
}

/**
 * Width-5 sliding-window digits as ref10's `slide` (used by Monero's vartime double scalar
 * multiplications): odd digits in [−15, 15]. A carry that runs past bit 255 is lost, so for inputs
 * near 2^256 the digits stand for s − 2^256, exactly as in Monero.
 */
export function slide(s: Uint8Array): Int8Array {
  const r = new Int8Array(256);
  for (let i = 0; i < 256; i++) r[i] = (s[i >> 3] >> (i & 7)) & 1;
  for (let i = 0; i < 256; i++) {
    if (r[i] === 0) continue;
    for (let b = 1; b <= 6 && i + b < 256; b++) {
      if (r[i + b] === 0) continue;
      const step = r[i + b] << b;
      if (r[i] + step <= 15) {
        r[i] += step;
        r[i + b] = 0;
      } else if (r[i] - step >= -15) {
        r[i] -= step;
        // Add 2^(i+b): clear the run of ones from i+b upward and set the first zero above it.
        for (let k = i + b; k < 256; k++) {
          if (r[k] === 0) {
            r[k] = 1;
            break;
          }
          r[k] = 0;
        }
      } else {
        break;
      }
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Scalar multiplication

/** [P, 2P, …, 8P] in cached form. */
function multiplesTable(p: Pt): Cached[] {
  const t: Cached[] = [toCached(p)];
  let acc = p;
  for (let i = 1; i < 8; i++) {
    acc = addCached(acc, t[0]);
    t.push(toCached(acc));
  }
  return t;
}

/** Σ eᵢ·16^i·P for digits |eᵢ| ≤ 8 (fixed window, one addition per digit). */
function mulRadix16(e: Int8Array, p: Pt): Pt {
  const table = multiplesTable(p);
  let acc = IDENTITY;
  let started = false;
  for (let j = 63; j >= 0; j--) {
    if (started) acc = double(doubleNoT(doubleNoT(doubleNoT(acc))));
    const d = e[j];
    if (d > 0) {
      acc = addCached(acc, table[d - 1]);
      started = true;
    } else if (d < 0) {
      acc = addCached(acc, negCached(table[-d - 1]));
      started = true;
    }
  }
  return acc;
}

/**
 * s·P as Monero's `ge_scalarmult`: s is the 32-byte integer as is (not reduced), except that a top
 * radix-16 digit above 8 is dropped (see `radix16`). Exact for torsioned P.
 */
export function scalarMult(s: Uint8Array, p: Pt): Pt {
  return mulRadix16(radix16(s), p);
}

/** The integer `ge_scalarmult`/`ge_scalarmult_base` actually multiply by for these bytes. */
export function effectiveRadix16Scalar(s: Uint8Array): bigint {
  return radix16Value(radix16(s));
}

/** Signed radix-16 digits of a non-negative integer below 2^255 (standard recoding). */
function radix16OfBig(n: bigint): Int8Array {
  const b = new Uint8Array(32);
  bigToBytes(n, b);
  return radix16(b);
}

/** Affine form for mixed addition: (y+x, y−x, 2d·x·y). */
interface Affine {
  readonly ypx: bigint;
  readonly ymx: bigint;
  readonly xy2d: bigint;
}

function addAffine(p: Pt, q: Affine): Pt {
  const a = mul(sub(p.Y, p.X), q.ymx);
  const b = mul(p.Y + p.X, q.ypx);
  const c = mul(p.T, q.xy2d);
  const d = p.Z + p.Z;
  const e = sub(b, a);
  const f = sub(d, c);
  const g = d + c;
  const h = b + a;
  return { X: mul(e, f), Y: mul(g, h), Z: mul(f, g), T: mul(e, h) };
}

function subAffine(p: Pt, q: Affine): Pt {
  return addAffine(p, { ypx: q.ymx, ymx: q.ypx, xy2d: fneg(q.xy2d) });
}

/** Converts points to affine precomputed form with one shared inversion. */
function toAffineBatch(pts: Pt[]): Affine[] {
  const n = pts.length;
  const prefix: bigint[] = new Array(n);
  let acc = 1n;
  for (let i = 0; i < n; i++) {
    prefix[i] = acc;
    acc = mul(acc, pts[i].Z);
  }
  let invAcc = inv(acc);
  const out: Affine[] = new Array(n);
  for (let i = n - 1; i >= 0; i--) {
    const zi = mul(invAcc, prefix[i]);
    invAcc = mul(invAcc, pts[i].Z);
    const x = norm(mul(pts[i].X, zi));
    const y = norm(mul(pts[i].Y, zi));
    out[i] = { ypx: norm(y + x), ymx: norm(sub(y, x)), xy2d: norm(mul(mul(x, y), D2)) };
  }
  return out;
}

const GX = 15112221349535400772501151409588531511454012693041857206046113283949847762202n;
const GY = 46316835694926478169428394003475163141307993866256225615783033603165251855960n;
/** The ed25519 base point G. */
export const BASE: Pt = { X: GX, Y: GY, Z: 1n, T: mul(GX, GY) };

let baseComb: Affine[][] | undefined;
/** baseComb[i][j] = (j+1)·16^i·G, built on first use (~a few ms). */
function getBaseComb(): Affine[][] {
  if (baseComb) return baseComb;
  const flat: Pt[] = [];
  let row = BASE;
  for (let i = 0; i < 64; i++) {
    let m = row;
    for (let j = 0; j < 8; j++) {
      flat.push(m);
      m = add(m, row);
    }
    row = double(flat[flat.length - 1]); // 16·16^i·G
  }
  const aff = toAffineBatch(flat);
  baseComb = [];
  for (let i = 0; i < 64; i++) baseComb.push(aff.slice(8 * i, 8 * i + 8));
  return baseComb;
}

/** n·G for an integer n (reduced mod ℓ first; G has order ℓ). */
export function mulBaseBig(n: bigint): Pt {
  let r = n % L;
  if (r < 0n) r += L;
  const e = radix16OfBig(r);
  const comb = getBaseComb();
  let acc = IDENTITY;
  for (let j = 0; j < 64; j++) {
    const d = e[j];
    if (d > 0) acc = addAffine(acc, comb[j][d - 1]);
    else if (d < 0) acc = subAffine(acc, comb[j][-d - 1]);
  }
  return acc;
}

/** s·G as Monero's `ge_scalarmult_base` (same top-digit rule as `scalarMult`). */
export function scalarMultBase(s: Uint8Array): Pt {
  return mulBaseBig(effectiveRadix16Scalar(s));
}

let baseOdd: Affine[] | undefined;
/** [G, 3G, 5G, …, 15G] (Monero's `ge_Bi`). */
function getBaseOdd(): Affine[] {
  if (baseOdd) return baseOdd;
  const pts: Pt[] = [BASE];
  const g2 = double(BASE);
  for (let i = 1; i < 8; i++) pts.push(add(pts[i - 1], g2));
  baseOdd = toAffineBatch(pts);
  return baseOdd;
}

/** [P, 3P, 5P, …, 15P] in cached form (Monero's `ge_dsm_precomp`). */
function oddMultiples(p: Pt): Cached[] {
  const t: Cached[] = [toCached(p)];
  const c2 = toCached(double(p));
  let acc = p;
  for (let i = 1; i < 8; i++) {
    acc = addCached(acc, c2);
    t.push(toCached(acc));
  }
  return t;
}

/** Shared doubling chain over two sliding-window digit strings. */
function doubleSlideWalk(
  as: Int8Array,
  addA: (acc: Pt, d: number) => Pt,
  bs: Int8Array,
  addB: (acc: Pt, d: number) => Pt,
): Pt {
  let i = 255;
  while (i >= 0 && as[i] === 0 && bs[i] === 0) i--;
  let acc = IDENTITY;
  for (; i >= 0; i--) {
    const da = as[i];
    const db = bs[i];
    if (da === 0 && db === 0) {
      // T is only needed by an addition; a bare doubling may skip it unless it is the last step.
      acc = i === 0 ? double(acc) : doubleNoT(acc);
      continue;
    }
    acc = double(acc);
    if (da !== 0) acc = addA(acc, da);
    if (db !== 0) acc = addB(acc, db);
  }
  return acc;
}

function cachedAdder(table: readonly Cached[]): (acc: Pt, d: number) => Pt {
  return (acc, d) => (d > 0 ? addCached(acc, table[d >> 1]) : addCached(acc, negCached(table[-d >> 1])));
}

/** a·A + b·G as Monero's `ge_double_scalarmult_base_vartime` (slide recoding of both scalars). */
export function doubleScalarMultBase(a: Uint8Array, pa: Pt, b: Uint8Array): Pt {
  const g = getBaseOdd();
  return doubleSlideWalk(slide(a), cachedAdder(oddMultiples(pa)), slide(b), (acc, d) =>
    d > 0 ? addAffine(acc, g[d >> 1]) : subAffine(acc, g[-d >> 1]),
  );
}

/** Odd multiples of a point, prepared once for repeated `doubleScalarMult` calls (`ge_dsm_precomp`). */
export interface OddTable {
  readonly table: readonly Cached[];
}

/** Precomputes [B, 3B, …, 15B] for `doubleScalarMult`. */
export function precomputeOdd(p: Pt): OddTable {
  return { table: oddMultiples(p) };
}

/**
 * a·A + b·B as Monero's `ge_double_scalarmult_precomp_vartime` (slide recoding of both scalars);
 * B may be given as a precomputed table.
 */
export function doubleScalarMult(a: Uint8Array, pa: Pt, b: Uint8Array, pb: Pt | OddTable): Pt {
  const tb = "table" in pb ? pb.table : oddMultiples(pb);
  return doubleSlideWalk(slide(a), cachedAdder(oddMultiples(pa)), slide(b), cachedAdder(tb));
}

// ---------------------------------------------------------------------------------------------
// Multi-scalar multiplication: scalars are used as plain 256-bit integers (as Monero's rct
// multiexp, whose Straus and Pippenger both walk all 256 bits of the unreduced scalar).

/** Width-w NAF of a non-negative integer (exact). */
function wnaf(n: bigint, w: number): Int8Array {
  const out = new Int8Array(258);
  const size = 1 << w;
  const half = size >> 1;
  const mask = BigInt(size - 1);
  let i = 0;
  while (n > 0n) {
    if (n & 1n) {
      let d = Number(n & mask);
      if (d >= half) d -= size;
      out[i] = d;
      n -= BigInt(d);
    }
    n >>= 1n;
    i++;
  }
  return out;
}

/** Σ sᵢ·Pᵢ by interleaved width-5 NAF (Straus). */
function straus(scalars: bigint[], points: Pt[]): Pt {
  const n = points.length;
  const digits = scalars.map((s) => wnaf(s, 5));
  const tables = points.map((p) => oddMultiples(p));
  let top = 257;
  const nonZeroAt = (i: number) => digits.some((d) => d[i] !== 0);
  while (top >= 0 && !nonZeroAt(top)) top--;
  let acc = IDENTITY;
  for (let i = top; i >= 0; i--) {
    acc = double(acc);
    for (let j = 0; j < n; j++) {
      const d = digits[j][i];
      if (d > 0) acc = addCached(acc, tables[j][d >> 1]);
      else if (d < 0) acc = addCached(acc, negCached(tables[j][-d >> 1]));
    }
  }
  return acc;
}

/** Σ sᵢ·Pᵢ by Pippenger's bucket method with unsigned c-bit windows. */
function pippenger(scalars: bigint[], points: Pt[]): Pt {
  const n = points.length;
  const c = n < 64 ? 4 : n < 512 ? 6 : n < 4096 ? 8 : 10;
  const windows = Math.ceil(256 / c);
  const mask = BigInt((1 << c) - 1);
  const cached = points.map(toCached);
  let acc = IDENTITY;
  for (let w = windows - 1; w >= 0; w--) {
    for (let k = 0; k < c; k++) acc = double(acc);
    const buckets: (Pt | undefined)[] = new Array(1 << c);
    const shift = BigInt(w * c);
    for (let j = 0; j < n; j++) {
      const idx = Number((scalars[j] >> shift) & mask);
      if (idx === 0) continue;
      const b = buckets[idx];
      buckets[idx] = b === undefined ? points[j] : addCached(b, cached[j]);
    }
    let running = IDENTITY;
    let sum = IDENTITY;
    for (let k = (1 << c) - 1; k >= 1; k--) {
      const b = buckets[k];
      if (b !== undefined) running = add(running, b);
      sum = add(sum, running);
    }
    acc = add(acc, sum);
  }
  return acc;
}

/** Σ sᵢ·Pᵢ with each sᵢ a plain non-negative integer; the empty sum is the identity. */
export function multiScalarMult(scalars: bigint[], points: Pt[]): Pt {
  if (points.length === 0) return IDENTITY;
  return points.length <= 32 ? straus(scalars, points) : pippenger(scalars, points);
}

// ---------------------------------------------------------------------------------------------
// Monero's map from 32 bytes to a curve point (`ge_fromfe_frombytes_vartime`).

/** Montgomery A = 486662. */
const A = 486662n;
/** √(−2A(A+2)), √(2A(A+2)), √(−√−1·A(A+2)), √(√−1·A(A+2)): any root works (the sign of x is fixed afterwards). */
const FFFB1 = sqrtExact(norm(fneg(2n * A * (A + 2n))));
const FFFB2 = sqrtExact(2n * A * (A + 2n));
const FFFB3 = sqrtExact(norm(fneg(mul(SQRTM1, A * (A + 2n)))));
const FFFB4 = sqrtExact(norm(mul(SQRTM1, A * (A + 2n))));

/** A square root of a known square (throws otherwise; used for constants only). */
function sqrtExact(a: bigint): bigint {
  // p ≡ 5 (mod 8): candidate a^((p+3)/8), corrected by √−1.
  let r = divPowM1(a, 1n);
  if (!eqF(sq(r), a)) r = mul(r, SQRTM1);
  if (!eqF(sq(r), a)) throw new Error("not a square");
  return norm(r);
}

function eqF(a: bigint, b: bigint): boolean {
  return norm(a) === norm(b);
}

/**
 * The projective point (X:Y:Z) Monero's `ge_fromfe_frombytes_vartime` produces for 32 bytes: an
 * Elligator-style map of u = (the full 256-bit little-endian integer) mod p onto the curve, via the
 * Montgomery form v² = w³ + A·w² + w. Not in the prime-order subgroup in general.
 */
export function hashToPointProjective(h: Uint8Array): { X: bigint; Y: bigint; Z: bigint } {
  const u = bytesToBig(h) % P; // all 256 bits count: bit 255 is worth 2^255 ≡ 19
  const v = 2n * sq(u); // 2u²
  const w = v + 1n; // 2u² + 1
  let x = sub(sq(w), mul(A * A, v)); // w² − 2A²u²
  let rx = divPowM1(w, x); // candidate √(w/x)
  x = mul(sq(rx), x); // rx²·x, equals ±w when w/x is a square
  let z: bigint;
  let negative: boolean;
  if (!isNonZero(sub(w, x))) {
    rx = mul(mul(rx, FFFB2), u);
    z = fneg(mul(A, v));
    negative = false;
  } else if (!isNonZero(w + x)) {
    rx = mul(mul(rx, FFFB1), u);
    z = fneg(mul(A, v));
    negative = false;
  } else {
    x = mul(x, SQRTM1);
    rx = isNonZero(sub(w, x)) ? mul(rx, FFFB3) : mul(rx, FFFB4);
    z = fneg(A);
    negative = true;
  }
  if (isNegative(rx) !== negative) rx = fneg(rx);
  const Z = z + w;
  const Y = sub(z, w);
  return { X: mul(rx, Z), Y, Z };
}

/** Bytes of `ge_fromfe_frombytes_vartime` followed by `ge_tobytes`. */
export function hashToPointBytes(h: Uint8Array, out: Uint8Array): Uint8Array {
  const r = hashToPointProjective(h);
  const zi = inv(r.Z); // 0 when Z ≡ 0, as fe_invert
  const x = norm(mul(r.X, zi));
  bigToBytes(norm(mul(r.Y, zi)), out);
  if ((x & 1n) === 1n) out[31] |= 0x80;
  return out;
}

/** 8 · map(h) as an extended point (the cofactor-cleared half of Monero's `hash_to_ec`). */
export function hashToPointMul8(h: Uint8Array): Pt {
  const r = hashToPointProjective(h);
  // (X:Y:Z) → extended (XZ : YZ : Z² : XY).
  const p: Pt = { X: mul(r.X, r.Z), Y: mul(r.Y, r.Z), Z: sq(r.Z), T: mul(r.X, r.Y) };
  return mul8(p);
}
