/**
 * RingCT amounts (src/ringct/rctOps.cpp): Pedersen commitments C = mask·G + amount·H, the
 * coinbase "zero commitment", commitment masks from the output's shared secret, and the two
 * ecdhInfo encodings (v2: 8 amount bytes XOR keccak("amount" ‖ s); legacy: scalar offsets).
 *
 * The shared secret `s` of output i is derivation_to_scalar(derivation, i).
 */
import type { Bytes, CryptoBackend } from "../backend.js";

/** Monero's second generator H (rctTypes.h `H`), independent of G. */
export const H = Uint8Array.from(Buffer.from("8b655970153799af2aeadc9ff1add0ea6c7251d54154cfa92c173a0dd39c1f94", "hex"));

const U64_MAX = (1n << 64n) - 1n;
const AMOUNT_TAG = Buffer.from("amount", "ascii");
const MASK_TAG = Buffer.from("commitment_mask", "ascii");

/** An amount as a 32-byte little-endian scalar (`d2h`). */
export function amountToScalar(amount: bigint): Bytes {
  if (amount < 0n || amount > U64_MAX) throw new RangeError(`amount ${amount} is outside u64`);
  const out = new Uint8Array(32);
  let v = amount;
  for (let i = 0; i < 8; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** The low 8 bytes of a little-endian buffer as u64 (`h2d` of the first 8 bytes). */
export function readU64(b: Bytes, offset = 0): bigint {
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(b[offset + i]);
  return v;
}

function concat(tag: Uint8Array, key: Bytes): Uint8Array {
  const buf = new Uint8Array(tag.length + 32);
  buf.set(tag);
  buf.set(key.subarray(0, 32), tag.length);
  return buf;
}

/** mask·G + amount·H (`rct::commit`). */
export function commit(backend: CryptoBackend, amount: bigint, mask: Bytes): Bytes {
  // the native kernel's fixed tables of G and H: ~3× quicker than the generic double multiplication
  if (backend.commit && amount >= 0n && amount <= 0xffffffffffffffffn && mask[31] < 0x80) return backend.commit(amount, mask);
  const c = backend.doubleScalarMultBase(amountToScalar(amount), H, mask);
  if (c === null) throw new Error("commit: H did not decompress (impossible)");
  return c;
}

/** G + amount·H, the commitment of a coinbase or pre-RingCT output (`rct::zeroCommit`). */
export function zeroCommit(backend: CryptoBackend, amount: bigint): Bytes {
  const one = new Uint8Array(32);
  one[0] = 1;
  return commit(backend, amount, one);
}

/** hash_to_scalar("commitment_mask" ‖ s): the mask of a v2 output (`genCommitmentMask`). */
export function commitmentMask(backend: CryptoBackend, sharedSecret: Bytes): Bytes {
  return backend.hashToScalar(concat(MASK_TAG, sharedSecret));
}

function amountPad(backend: CryptoBackend, sharedSecret: Bytes): Bytes {
  return backend.keccak256(concat(AMOUNT_TAG, sharedSecret));
}

/** The 8-byte encrypted amount of the v2 ecdhInfo (types bulletproof2, CLSAG, bulletproof+). */
export function encryptAmount(backend: CryptoBackend, sharedSecret: Bytes, amount: bigint): Bytes {
  const pad = amountPad(backend, sharedSecret);
  const plain = amountToScalar(amount);
  const out = new Uint8Array(8);
  for (let i = 0; i < 8; i++) out[i] = plain[i] ^ pad[i];
  return out;
}

/** Decrypts a v2 ecdhInfo amount (the first 8 bytes of `encrypted` are used). */
export function decryptAmount(backend: CryptoBackend, sharedSecret: Bytes, encrypted: Bytes): bigint {
  const pad = amountPad(backend, sharedSecret);
  const plain = new Uint8Array(8);
  for (let i = 0; i < 8; i++) plain[i] = encrypted[i] ^ pad[i];
  return readU64(plain);
}

/**
 * Decodes a legacy ecdhInfo (types full, simple, bulletproof): mask − H(s) and amount − H(H(s))
 * as scalars. The amount is the scalar's low 8 bytes; callers verify it against the commitment.
 */
export function decodeLegacyEcdh(
  backend: CryptoBackend,
  sharedSecret: Bytes,
  maskField: Bytes,
  amountField: Bytes,
): { mask: Bytes; amount: bigint; amountScalar: Bytes } {
  const s1 = backend.hashToScalar(sharedSecret.subarray(0, 32));
  const s2 = backend.hashToScalar(s1);
  const mask = backend.scSub(maskField, s1);
  const amountScalar = backend.scSub(amountField, s2);
  return { mask, amount: readU64(amountScalar), amountScalar };
}

/** Encodes a legacy ecdhInfo (the inverse of `decodeLegacyEcdh`). */
export function encodeLegacyEcdh(
  backend: CryptoBackend,
  sharedSecret: Bytes,
  mask: Bytes,
  amount: bigint,
): { mask: Bytes; amount: Bytes } {
  const s1 = backend.hashToScalar(sharedSecret.subarray(0, 32));
  const s2 = backend.hashToScalar(s1);
  return { mask: backend.scAdd(mask, s1), amount: backend.scAdd(amountToScalar(amount), s2) };
}
