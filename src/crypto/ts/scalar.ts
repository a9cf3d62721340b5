/**
 * Scalars mod ℓ = 2^252 + 27742317777372353535851937790883648493 as little-endian 32-byte strings.
 *
 * Monero's sc_* functions (src/crypto/crypto-ops.c) compute exact residues mod ℓ for every 32-byte
 * input (reduced or not) and always emit the canonical residue; plain bigint arithmetic mod ℓ
 * gives the same bytes. `sc_check` is exactly "s < ℓ" over all 256 bits.
 */
import { bigToBytes, bytesToBig, bytesToBigN } from "./field.js";

/** The prime order ℓ of the ed25519 base point. */
export const L = (1n << 252n) + 27742317777372353535851937790883648493n;

/** Scalar bytes → integer (all 256 bits, unreduced). */
export function scalarToBig(s: Uint8Array): bigint {
  return bytesToBig(s);
}

/** Writes x mod ℓ (x may be negative or any size) as 32 bytes. */
export function writeScalar(x: bigint, out: Uint8Array): Uint8Array {
  let r = x % L;
  if (r < 0n) r += L;
  return bigToBytes(r, out);
}

/** `sc_reduce32`: a 256-bit integer mod ℓ. */
export function reduce32(s: Uint8Array, out: Uint8Array): Uint8Array {
  return writeScalar(bytesToBig(s), out);
}

/** `sc_reduce`: a 512-bit integer mod ℓ. */
export function reduce64(s: Uint8Array, out: Uint8Array): Uint8Array {
  return writeScalar(bytesToBigN(s, 0, 64), out);
}

/** `sc_check(s) == 0`: true iff the 256-bit value is below ℓ. */
export function check(s: Uint8Array): boolean {
  // Quick exits on the top byte (ℓ's top byte is 0x10) before building a bigint.
  if (s[31] < 0x10) return true;
  if (s[31] > 0x10) return false;
  return bytesToBig(s) < L;
}

/** `sc_isnonzero`: any byte non-zero. */
export function isNonZero(s: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (s[i] !== 0) return true;
  return false;
}

/** a⁻¹ mod ℓ by Fermat (a^(ℓ−2)); 0 maps to 0. */
export function invert(a: bigint): bigint {
  let base = a % L;
  if (base === 0n) return 0n;
  let e = L - 2n;
  let r = 1n;
  while (e > 0n) {
    if (e & 1n) r = (r * base) % L;
    base = (base * base) % L;
    e >>= 1n;
  }
  return r;
}
