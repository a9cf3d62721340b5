/**
 * Small helpers shared by the RingCT algorithms: scalar constants, byte concatenation and
 * Monero's `hash_to_scalar` over a list of keys. Everything goes through a `CryptoBackend`.
 */
import type { Bytes, CryptoBackend } from "../backend.js";
import { H } from "./amounts.js";

export { H };

function hex(s: string): Bytes {
  return Uint8Array.from(Buffer.from(s, "hex"));
}

/** The ed25519 base point G (rctTypes.h `G`). */
export const G = hex("5866666666666666666666666666666666666666666666666666666666666666");
/** The identity point (rct::identity(), also the scalar 1). */
export const IDENTITY = hex("0100000000000000000000000000000000000000000000000000000000000000");
export const ZERO = new Uint8Array(32);
export const ONE = IDENTITY;
export const TWO = hex("0200000000000000000000000000000000000000000000000000000000000000");
export const EIGHT = hex("0800000000000000000000000000000000000000000000000000000000000000");
/** 8⁻¹ mod ℓ (rctOps.h `INV_EIGHT`). */
export const INV_EIGHT = hex("792fdce229e50661d0da1c7db39dd30700000000000000000000000000000006");
/** −1 mod ℓ. */
/** ℓ, the prime order of the base point (rct::curveOrder). */
export const CURVE_ORDER = hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");

/** rct::isInMainSubgroup: ℓ·P is the identity (a non-point is not). */
export function inMainSubgroup(b: CryptoBackend, p: Bytes): boolean {
  const r = b.scalarMult(CURVE_ORDER, p);
  return r !== null && equalBytes(r, IDENTITY);
}

export const MINUS_ONE = hex("ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");

/** Byte equality of two 32-byte (or any equal-length) arrays. */
export function equalBytes(a: Bytes, b: Bytes): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}

export function isZero(a: Bytes): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) return false;
  return true;
}

export function isIdentity(p: Bytes): boolean {
  return equalBytes(p, IDENTITY);
}

/** Concatenates byte arrays. */
export function concatBytes(parts: readonly Bytes[]): Bytes {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** A 32-byte key holding an ASCII domain tag, zero padded (how rctSigs.cpp builds its hash domains). */
/** Σ sᵢ·Pᵢ over points that are known to decode (generators, proof points already checked). */
export function msm(b: CryptoBackend, scalars: readonly Bytes[], points: readonly Bytes[], what: string): Bytes {
  const r = b.multiScalarMult(concatBytes(scalars), concatBytes(points));
  if (r === null) throw new Error(`${what}: a point did not decode (impossible)`);
  return r;
}

export function domainKey(tag: string): Bytes {
  const k = new Uint8Array(32);
  k.set(Buffer.from(tag, "ascii"));
  return k;
}

/** Monero's varint of a non-negative integer (tools::get_varint_data). */
export function varintBytes(v: number): Bytes {
  const out: number[] = [];
  let x = v;
  while (x >= 0x80) {
    out.push((x & 0x7f) | 0x80);
    x = Math.floor(x / 128);
  }
  out.push(x);
  return Uint8Array.from(out);
}

/** 0 − a mod ℓ. */
export function scNeg(b: CryptoBackend, a: Bytes): Bytes {
  return b.scSub(ZERO, a);
}

/** Inverts every scalar with one inversion (Montgomery's trick); zeros are not allowed. */
export function scBatchInvert(b: CryptoBackend, xs: readonly Bytes[]): Bytes[] {
  const n = xs.length;
  if (n === 0) return [];
  const prefix: Bytes[] = new Array(n);
  let acc: Bytes = ONE.slice();
  for (let i = 0; i < n; i++) {
    prefix[i] = acc;
    acc = b.scMul(acc, xs[i]);
  }
  let inv = b.scInvert(acc);
  const out: Bytes[] = new Array(n);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = b.scMul(inv, prefix[i]);
    inv = b.scMul(inv, xs[i]);
  }
  return out;
}

/** x^0 … x^(n−1). */
export function scPowers(b: CryptoBackend, x: Bytes, n: number): Bytes[] {
  const out: Bytes[] = new Array(n);
  if (n === 0) return out;
  out[0] = ONE.slice();
  for (let i = 1; i < n; i++) out[i] = b.scMul(out[i - 1], x);
  return out;
}

/** A little-endian u64 amount as a scalar (d2h). */
export function u64Scalar(v: bigint): Bytes {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 0; i < 8; i++) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}
