/**
 * wallet2's encryption of exported data with the view secret key (wallet2::encrypt /
 * decrypt_with_view_secret_key, v0.18): the key is CryptoNight v0 of the 32 key bytes
 * (crypto::generate_chacha_key, one KDF round), the cipher Bernstein's ChaCha20 with an 8-byte nonce
 * (crypto::chacha20), the layout `nonce ‖ ciphertext ‖ signature`, where the signature is a
 * crypto::generate_signature by the view key over Keccak(nonce ‖ ciphertext) (the authenticated
 * form every export and txset uses).
 */
import { createCipheriv } from "node:crypto";
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { generateSignature } from "../../crypto/keys.js";
import { type RandomSource, systemRandom } from "../../crypto/random.js";
import { cnSlowHash } from "../../crypto/slow-hash.js";
import { ColdError } from "./errors.js";

const IV_SIZE = 8;
const SIG_SIZE = 64;

/** The ChaCha key of a view secret key, kept per key: CryptoNight costs tens of milliseconds. */
const keyCache = new Map<string, Promise<Bytes>>();
function chachaKey(viewSecret: Bytes): Promise<Bytes> {
  const id = Buffer.from(viewSecret).toString("hex");
  let k = keyCache.get(id);
  if (!k) {
    if (keyCache.size > 64) keyCache.clear();
    k = cnSlowHash(viewSecret);
    keyCache.set(id, k);
    k.catch(() => keyCache.delete(id));
  }
  return k;
}

/** Bernstein's ChaCha20 (64-bit counter from 0, 64-bit nonce) through OpenSSL's IETF form: counter words then nonce. */
function chacha20(key: Bytes, nonce: Bytes, data: Bytes): Bytes {
  const iv = Buffer.alloc(16);
  iv.set(nonce, 8);
  const c = createCipheriv("chacha20", key, iv);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

/** wallet2::encrypt_with_view_secret_key (authenticated). */
export async function encryptWithViewKey(b: CryptoBackend, viewSecret: Bytes, plaintext: Bytes, rng: RandomSource = systemRandom): Promise<Bytes> {
  const key = await chachaKey(viewSecret);
  const nonce = new Uint8Array(IV_SIZE);
  rng.fill(nonce);
  const body = chacha20(key, nonce, plaintext);
  const out = new Uint8Array(IV_SIZE + body.length + SIG_SIZE);
  out.set(nonce, 0);
  out.set(body, IV_SIZE);
  const hash = b.keccak256(out.subarray(0, IV_SIZE + body.length));
  out.set(generateSignature(b, hash, b.scalarMultBase(viewSecret), viewSecret, rng), IV_SIZE + body.length);
  return out;
}

/** wallet2::decrypt_with_view_secret_key (authenticated): refuses data not encrypted with this view key. */
export async function decryptWithViewKey(b: CryptoBackend, viewSecret: Bytes, data: Bytes, what: string): Promise<Bytes> {
  if (data.length < IV_SIZE + SIG_SIZE) throw new ColdError("bad_data", `${what} is too short to be encrypted data (${data.length} bytes)`);
  const end = data.length - SIG_SIZE;
  const hash = b.keccak256(data.subarray(0, end));
  if (!b.checkSignature(hash, b.scalarMultBase(viewSecret), data.subarray(end)))
    throw new ColdError("wrong_wallet", `${what} was not made by a wallet with this view key, or was altered: Failed to authenticate ciphertext`);
  const key = await chachaKey(viewSecret);
  return chacha20(key, data.subarray(0, IV_SIZE), data.subarray(IV_SIZE, end));
}
