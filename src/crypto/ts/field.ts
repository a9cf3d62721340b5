/**
 * Arithmetic in GF(p), p = 2^255 − 19, on non-negative bigints, *lazily reduced*.
 *
 * Contract (keeps every value non-negative and bounded without a division per operation):
 * - `mul`/`sq` accept any non-negative inputs below 2^280 and return values below 2^256 (folding
 *   2^255 ≡ 19 twice: a product < 2^560 folds below 2^310, then below 2^255 + 2^60);
 * - `add` is the plain sum;
 * - `sub(a, b)` = a − b + 128p requires b < 2^262 (a mul/sq output, a sum of two of them, or a
 *   canonical value — never another `sub` result) and returns a value below a + 2^262;
 * - `neg(a)` = 128p − a requires a < 2^262;
 * - `norm` gives the canonical value in [0, p): use it before comparing or encoding.
 */
import { invert } from "@noble/curves/abstract/modular.js";
import { BYTE_HEX } from "../../base/bytes.js";

/** The field prime 2^255 − 19. */
export const P = (1n << 255n) - 19n;
const MASK255 = (1n << 255n) - 1n;
/** 128·p ≈ 2^262: added in `sub`/`neg` so results stay non-negative. */
const P128 = P << 7n;

/** Canonical representative in [0, p) of a non-negative value. */
export function norm(a: bigint): bigint {
  return a < P ? a : a % P;
}

/** a · b, lazily reduced (< 2^256). */
export function mul(a: bigint, b: bigint): bigint {
  let t = a * b;
  t = (t & MASK255) + 19n * (t >> 255n);
  return (t & MASK255) + 19n * (t >> 255n);
}

/** a², lazily reduced (< 2^256). */
export function sq(a: bigint): bigint {
  let t = a * a;
  t = (t & MASK255) + 19n * (t >> 255n);
  return (t & MASK255) + 19n * (t >> 255n);
}

/** a + b (no reduction; callers keep chains short). */
export function add(a: bigint, b: bigint): bigint {
  return a + b;
}

/** a − b + 128p (b must be below 2^262; see the module contract). */
export function sub(a: bigint, b: bigint): bigint {
  return a - b + P128;
}

/** 128p − a ≡ −a (a must be below 2^262). */
export function neg(a: bigint): bigint {
  return P128 - a;
}

/** a^(2^k) by k squarings. */
function sqn(a: bigint, k: number): bigint {
  let r = a;
  for (let i = 0; i < k; i++) r = sq(r);
  return r;
}

/** a^(2^250 − 1) (the addition chain shared with ref10's inversion and square root). */
function pow2250m1(a: bigint): bigint {
  const a2 = sq(a);
  const a9 = mul(sqn(a2, 2), a);
  const a11 = mul(a9, a2);
  const a_5_0 = mul(sq(a11), a9); // a^(2^5 − 1)
  const a_10_0 = mul(sqn(a_5_0, 5), a_5_0);
  const a_20_0 = mul(sqn(a_10_0, 10), a_10_0);
  const a_40_0 = mul(sqn(a_20_0, 20), a_20_0);
  const a_50_0 = mul(sqn(a_40_0, 10), a_10_0);
  const a_100_0 = mul(sqn(a_50_0, 50), a_50_0);
  const a_200_0 = mul(sqn(a_100_0, 100), a_100_0);
  const a_250_0 = mul(sqn(a_200_0, 50), a_50_0);
  return a_250_0;
}

/** a^((p − 5)/8) = a^(2^252 − 3). */
export function pow22523(a: bigint): bigint {
  return mul(sqn(pow2250m1(a), 2), a);
}

/** a⁻¹, and 0 for a ≡ 0 (as ref10's `fe_invert`, which computes a^(p−2)); result canonical. */
export function inv(a: bigint): bigint {
  const n = norm(a);
  return n === 0n ? 0n : invert(n, P);
}

/** True when a ≢ 0 (mod p). */
export function isNonZero(a: bigint): boolean {
  return norm(a) !== 0n;
}

/** True when a ≡ b (mod p). */
export function eq(a: bigint, b: bigint): boolean {
  return norm(a) === norm(b);
}

/** The "sign" of a field element: the low bit of its canonical value (ref10 `fe_isnegative`). */
export function isNegative(a: bigint): boolean {
  return (norm(a) & 1n) === 1n;
}

/**
 * u·v³·(u·v⁷)^((p−5)/8): a candidate for √(u/v) (ref10 "divpowm1"); it squares to ±u/v when u/v is
 * a square or a square times √−1. For v ≡ 0 it is 0.
 */
export function divPowM1(u: bigint, v: bigint): bigint {
  const v3 = mul(sq(v), v);
  const uv7 = mul(mul(sq(v3), v), u);
  return mul(mul(pow22523(uv7), v3), u);
}

/** Little-endian 32 bytes → integer (all 256 bits). */
export function bytesToBig(b: Uint8Array, off = 0): bigint {
  let hex = "";
  for (let i = off + 31; i >= off; i--) hex += BYTE_HEX[b[i]];
  return BigInt("0x" + hex);
}

/** Little-endian bytes of any length → integer. */
export function bytesToBigN(b: Uint8Array, off: number, len: number): bigint {
  let hex = "";
  for (let i = off + len - 1; i >= off; i--) hex += BYTE_HEX[b[i]];
  return hex.length === 0 ? 0n : BigInt("0x" + hex);
}

/** Writes the low 256 bits of a non-negative integer as 32 little-endian bytes into out[off..]. */
export function bigToBytes(n: bigint, out: Uint8Array, off = 0): Uint8Array {
  const hex = n.toString(16).padStart(64, "0");
  const L = hex.length;
  for (let i = 0; i < 32; i++) {
    const j = L - 2 * i - 2;
    out[off + i] = Number.parseInt(hex.slice(j, j + 2), 16);
  }
  return out;
}

/** √−1 = 2^((p−1)/4) mod p (the root ref10 uses as `fe_sqrtm1`). */
export const SQRTM1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;

/** Edwards d = −121665/121666. */
export const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;

/** 2d mod p. */
export const D2 = (2n * D) % P;
