/**
 * Monero's key and signature operations (src/crypto/crypto.cpp, v0.18.0.0) on top of the group and
 * scalar code. Inputs are assumed to have the right lengths (index.ts checks them).
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  decode,
  doubleScalarMult,
  doubleScalarMultBase,
  encode,
  hashToPointMul8,
  mul8,
  type Pt,
  add as padd,
  mulBaseBig,
  precomputeOdd,
  scalarMult,
  scalarMultBase,
  subtract as psub,
} from "./point.js";
import { check, isNonZero, L, reduce32, scalarToBig, writeScalar } from "./scalar.js";

/** Keccak-256 with the original padding (`cn_fast_hash`). */
export function keccak(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

/** `hash_to_scalar`: keccak256 reduced mod ℓ. */
export function hashToScalar(data: Uint8Array, out: Uint8Array): Uint8Array {
  return reduce32(keccak(data), out);
}

/** Monero's varint (common/varint.h): 7 bits per byte, low group first, high bit = more follow. */
export function varint(n: number): number[] {
  const bytes: number[] = [];
  let v = n;
  while (v >= 0x80) {
    bytes.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  bytes.push(v);
  return bytes;
}

/** `derivation_to_scalar`: hash_to_scalar(derivation ‖ varint(index)). */
export function derivationToScalar(derivation: Uint8Array, index: number, out: Uint8Array): Uint8Array {
  const vi = varint(index);
  const buf = new Uint8Array(32 + vi.length);
  buf.set(derivation, 0);
  buf.set(vi, 32);
  return hashToScalar(buf, out);
}

/** `derive_view_tag`: first byte of keccak256("view_tag" ‖ derivation ‖ varint(index)), no NUL after the salt. */
export function deriveViewTag(derivation: Uint8Array, index: number): number {
  const vi = varint(index);
  const buf = new Uint8Array(8 + 32 + vi.length);
  buf.set(VIEW_TAG_SALT, 0);
  buf.set(derivation, 8);
  buf.set(vi, 40);
  return keccak(buf)[0];
}
const VIEW_TAG_SALT = new TextEncoder().encode("view_tag");

/** `generate_key_derivation`: 8·(sec·pub) with `ge_scalarmult` semantics for sec; null if pub does not decompress. */
export function generateKeyDerivation(pub: Uint8Array, sec: Uint8Array, out: Uint8Array): Uint8Array | null {
  const p = decode(pub);
  if (p === null) return null;
  return encode(mul8(scalarMult(sec, p)), out);
}

/** Shared part of derive_public_key / derive_subaddress_public_key: (point, derivation scalar·G). */
function derivedOffset(derivation: Uint8Array, index: number): Pt {
  const s = derivationToScalar(derivation, index, new Uint8Array(32));
  return mulBaseBig(scalarToBig(s));
}

/** `derive_public_key`: base + Hs(derivation ‖ index)·G, or null if base does not decompress. */
export function derivePublicKey(derivation: Uint8Array, index: number, base: Uint8Array, out: Uint8Array): Uint8Array | null {
  const b = decode(base);
  if (b === null) return null;
  return encode(padd(b, derivedOffset(derivation, index)), out);
}

/** `derive_subaddress_public_key`: outKey − Hs(derivation ‖ index)·G, or null if outKey does not decompress. */
export function deriveSubaddressPublicKey(
  outKey: Uint8Array,
  derivation: Uint8Array,
  index: number,
  out: Uint8Array,
): Uint8Array | null {
  const b = decode(outKey);
  if (b === null) return null;
  return encode(psub(b, derivedOffset(derivation, index)), out);
}

/** `derive_secret_key`: (base + Hs(derivation ‖ index)) mod ℓ. */
export function deriveSecretKey(derivation: Uint8Array, index: number, base: Uint8Array, out: Uint8Array): Uint8Array {
  const s = derivationToScalar(derivation, index, new Uint8Array(32));
  return writeScalar(scalarToBig(base) + scalarToBig(s), out);
}

/** Monero's `hash_to_ec` as a point: 8·map(keccak256(key)), any 32 bytes accepted. */
export function hashToEcPoint(key: Uint8Array): Pt {
  return hashToPointMul8(keccak(key));
}

/** `generate_key_image`: sec·hash_to_ec(pub) with `ge_scalarmult` semantics for sec. */
export function generateKeyImage(pub: Uint8Array, sec: Uint8Array, out: Uint8Array): Uint8Array {
  return encode(scalarMult(sec, hashToEcPoint(pub)), out);
}

/** `secret_key_to_public_key`: sec·G, or null when sc_check(sec) fails. */
export function secretKeyToPublicKey(sec: Uint8Array, out: Uint8Array): Uint8Array | null {
  if (!check(sec)) return null;
  return encode(scalarMultBase(sec), out);
}

/** (c − a·b) mod ℓ over the raw integers (`sc_mulsub`). */
function mulSub(a: Uint8Array, b: Uint8Array, c: Uint8Array, out: Uint8Array, off = 0): void {
  writeScalar(scalarToBig(c) - scalarToBig(a) * scalarToBig(b), out.subarray(off, off + 32));
}

/**
 * `generate_signature` with nonce k: c = Hs(prefix ‖ pub ‖ k·G), r = k − c·sec. Monero would draw a new
 * k if c or r came out zero (probability ~2^-252); with k given, the result is returned as computed.
 */
export function generateSignature(prefixHash: Uint8Array, pub: Uint8Array, sec: Uint8Array, k: Uint8Array): Uint8Array {
  const buf = new Uint8Array(96);
  buf.set(prefixHash, 0);
  buf.set(pub, 32);
  encode(scalarMultBase(k), buf, 64);
  const sig = new Uint8Array(64);
  hashToScalar(buf, sig.subarray(0, 32));
  mulSub(sig.subarray(0, 32), sec, k, sig, 32);
  return sig;
}

const IDENTITY_BYTES = new Uint8Array(32);
IDENTITY_BYTES[0] = 1;

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `check_signature`: rejects an undecodable pub, non-canonical c or r, c = 0, and a commitment
 * c·P + r·G that encodes as the identity; then compares Hs(prefix ‖ pub ‖ commitment) with c.
 */
export function checkSignature(prefixHash: Uint8Array, pub: Uint8Array, sig: Uint8Array): boolean {
  const p = decode(pub);
  if (p === null) return false;
  const c = sig.subarray(0, 32);
  const r = sig.subarray(32, 64);
  if (!check(c) || !check(r) || !isNonZero(c)) return false;
  const buf = new Uint8Array(96);
  buf.set(prefixHash, 0);
  buf.set(pub, 32);
  const comm = buf.subarray(64, 96);
  encode(doubleScalarMultBase(c, p, r), comm);
  if (bytesEqual(comm, IDENTITY_BYTES)) return false;
  const h = hashToScalar(buf, new Uint8Array(32));
  return bytesEqual(h, c);
}

/**
 * `generate_ring_signature` with the nonces supplied in Monero's drawing order (k at secIndex, else
 * cᵢ then rᵢ). Where Monero aborts the process (image or a non-signer pub does not decompress), this
 * throws an Error.
 */
export function generateRingSignature(
  prefixHash: Uint8Array,
  image: Uint8Array,
  pubs: Uint8Array,
  sec: Uint8Array,
  secIndex: number,
  nonces: Uint8Array,
): Uint8Array {
  const n = pubs.length / 32;
  const dimg = decode(image);
  if (dimg === null) throw new Error("generateRingSignature: invalid key image (Monero aborts here)");
  const img = precomputeOdd(dimg);
  const sigs = new Uint8Array(64 * n);
  const buf = new Uint8Array(32 + 64 * n);
  buf.set(prefixHash, 0);
  let sum = 0n;
  let k: Uint8Array = new Uint8Array(32);
  let nonceOff = 0;
  for (let i = 0; i < n; i++) {
    const pubI = pubs.subarray(32 * i, 32 * i + 32);
    const aOut = buf.subarray(32 + 64 * i, 64 + 64 * i);
    const bOut = buf.subarray(64 + 64 * i, 96 + 64 * i);
    if (i === secIndex) {
      k = nonces.subarray(nonceOff, nonceOff + 32);
      nonceOff += 32;
      encode(scalarMultBase(k), aOut);
      encode(scalarMult(k, hashToEcPoint(pubI)), bOut);
    } else {
      const c = nonces.subarray(nonceOff, nonceOff + 32);
      const r = nonces.subarray(nonceOff + 32, nonceOff + 64);
      nonceOff += 64;
      sigs.set(c, 64 * i);
      sigs.set(r, 64 * i + 32);
      const p = decode(pubI);
      if (p === null) throw new Error("generateRingSignature: invalid pubkey (Monero aborts here)");
      encode(doubleScalarMultBase(c, p, r), aOut);
      encode(doubleScalarMult(r, hashToEcPoint(pubI), c, img), bOut);
      sum = (sum + scalarToBig(c)) % L;
    }
  }
  const h = scalarToBig(hashToScalar(buf, new Uint8Array(32)));
  const cs = sigs.subarray(64 * secIndex, 64 * secIndex + 32);
  writeScalar(h - sum, cs);
  mulSub(cs, sec, k, sigs, 64 * secIndex + 32);
  return sigs;
}

/**
 * `check_ring_signature`: false if the image or any pub does not decompress or any cᵢ/rᵢ is
 * non-canonical; otherwise Hs(prefix ‖ (cᵢ·Pᵢ + rᵢ·G, rᵢ·Hp(Pᵢ) + cᵢ·I)…) must equal Σcᵢ. No
 * subgroup check on the image (that lives in the consensus code, not here).
 */
export function checkRingSignature(prefixHash: Uint8Array, image: Uint8Array, pubs: Uint8Array, sigs: Uint8Array): boolean {
  const n = pubs.length / 32;
  const dimg = decode(image);
  if (dimg === null) return false;
  const img = precomputeOdd(dimg);
  const buf = new Uint8Array(32 + 64 * n);
  buf.set(prefixHash, 0);
  let sum = 0n;
  for (let i = 0; i < n; i++) {
    const c = sigs.subarray(64 * i, 64 * i + 32);
    const r = sigs.subarray(64 * i + 32, 64 * i + 64);
    if (!check(c) || !check(r)) return false;
    const pubI = pubs.subarray(32 * i, 32 * i + 32);
    const p = decode(pubI);
    if (p === null) return false;
    encode(doubleScalarMultBase(c, p, r), buf.subarray(32 + 64 * i, 64 + 64 * i));
    encode(doubleScalarMult(r, hashToEcPoint(pubI), c, img), buf.subarray(64 + 64 * i, 96 + 64 * i));
    sum += scalarToBig(c);
  }
  const h = scalarToBig(hashToScalar(buf, new Uint8Array(32)));
  return (h - sum) % L === 0n;
}
