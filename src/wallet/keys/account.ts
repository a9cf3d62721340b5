/**
 * Account keys (src/cryptonote_basic/account.cpp, src/wallet/wallet2.cpp): a spend key pair and a
 * view key pair. A deterministic account derives everything from its 32-byte recovery key:
 *   spend secret b = sc_reduce32(recovery key), view secret a = sc_reduce32(keccak(b)),
 *   B = b·G, A = a·G.
 * The seed shown later (query_key "mnemonic") is the words of b — so a recovery key ≥ ℓ comes back
 * as different words than the ones restored from. View-only accounts have no spend secret.
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { type AddressKind, encodeAddress } from "../../protocol/address.js";
import { bytesToWords, findLanguage, type WordList } from "../../protocol/mnemonic/index.js";
import type { Network } from "../../protocol/network.js";
import { cnSlowHash } from "./cn-slow-hash.js";

export interface AccountKeys {
  /** b, or null for a view-only (watch-only) account. */
  readonly spendSecretKey: Bytes | null;
  /** a. */
  readonly viewSecretKey: Bytes;
  /** B (the address's spend key). */
  readonly spendPublicKey: Bytes;
  /** A (the address's view key). */
  readonly viewPublicKey: Bytes;
}

/** a = sc_reduce32(keccak(b)): Monero's rule for the view secret of a deterministic account. */
export function viewSecretFromSpend(spendSecretKey: Bytes, backend: CryptoBackend = defaultBackend()): Bytes {
  return backend.scReduce32(backend.keccak256(spendSecretKey));
}

/**
 * The account a recovery key (the 32 bytes a seed encodes) restores: account_base::generate with
 * recover = true. The recovery key need not be reduced; the spend secret is.
 */
export function accountFromRecoveryKey(recoveryKey: Bytes, backend: CryptoBackend = defaultBackend()): AccountKeys {
  if (recoveryKey.length !== 32) throw new TypeError("accountFromRecoveryKey: 32 bytes expected");
  const spendSecretKey = backend.scReduce32(recoveryKey);
  const viewSecretKey = viewSecretFromSpend(spendSecretKey, backend);
  return {
    spendSecretKey,
    viewSecretKey,
    spendPublicKey: backend.scalarMultBase(spendSecretKey),
    viewPublicKey: backend.scalarMultBase(viewSecretKey),
  };
}

/**
 * Monero's seed_offset (cryptonote::decrypt_key): recovery key − cn_slow_hash(passphrase) mod ℓ,
 * the passphrase taken as its UTF-8 bytes. An empty passphrase leaves the key as it is.
 */
export function applySeedOffset(recoveryKey: Bytes, passphrase: string, backend: CryptoBackend = defaultBackend()): Bytes {
  if (passphrase.length === 0) return recoveryKey;
  return backend.scSub(recoveryKey, cnSlowHash(Buffer.from(passphrase, "utf8")));
}

/** The inverse of applySeedOffset (cryptonote::encrypt_key): what wallet2::get_seed shows with a passphrase. */
export function encryptWithSeedOffset(key: Bytes, passphrase: string, backend: CryptoBackend = defaultBackend()): Bytes {
  if (passphrase.length === 0) return key;
  return backend.scAdd(key, cnSlowHash(Buffer.from(passphrase, "utf8")));
}

/**
 * An account from explicit keys and the public keys of its address (generate_from_keys). Like
 * monero-wallet-rpc 0.18, nothing checks that the secrets match the address: the address is taken
 * as given. `checkAccountKeys` says whether they match.
 */
export function accountFromKeys(
  spendPublicKey: Bytes,
  viewPublicKey: Bytes,
  viewSecretKey: Bytes,
  spendSecretKey: Bytes | null,
): AccountKeys {
  for (const k of [spendPublicKey, viewPublicKey, viewSecretKey, spendSecretKey]) {
    if (k !== null && k.length !== 32) throw new TypeError("accountFromKeys: keys are 32 bytes");
  }
  return { spendSecretKey, viewSecretKey, spendPublicKey, viewPublicKey };
}

/** Which secrets of an account do not give its public keys (empty when all match). */
export function checkAccountKeys(keys: AccountKeys, backend: CryptoBackend = defaultBackend()): string[] {
  const problems: string[] = [];
  const eq = (a: Bytes | null, b: Bytes) => a !== null && Buffer.compare(a, b) === 0;
  if (!eq(backend.secretKeyToPublicKey(keys.viewSecretKey), keys.viewPublicKey)) {
    problems.push("the view secret key does not match the address's view public key");
  }
  if (keys.spendSecretKey && !eq(backend.secretKeyToPublicKey(keys.spendSecretKey), keys.spendPublicKey)) {
    problems.push("the spend secret key does not match the address's spend public key");
  }
  return problems;
}

/** wallet2::is_deterministic: the view secret is the one the spend secret derives. */
export function isDeterministic(keys: AccountKeys, backend: CryptoBackend = defaultBackend()): boolean {
  const spend = keys.spendSecretKey ?? new Uint8Array(32); // a view-only account holds a zero spend key
  return Buffer.compare(viewSecretFromSpend(spend, backend), keys.viewSecretKey) === 0;
}

/** The seed words of an account's spend secret (wallet2::get_seed), optionally with a passphrase. */
export function accountSeed(
  keys: AccountKeys,
  language: string | WordList,
  passphrase = "",
  backend: CryptoBackend = defaultBackend(),
): string {
  if (!keys.spendSecretKey) throw new Error("a view-only account has no seed");
  const lang = typeof language === "string" ? findLanguage(language) : language;
  if (!lang) throw new Error(`unknown seed language ${JSON.stringify(language)}`);
  return bytesToWords(encryptWithSeedOffset(keys.spendSecretKey, passphrase, backend), lang);
}

/** The primary (standard) address of an account. */
export function primaryAddress(keys: AccountKeys, network: Network, backend: CryptoBackend = defaultBackend()): string {
  return encodeAddress(network, "standard" satisfies AddressKind, keys.spendPublicKey, keys.viewPublicKey, null, backend);
}

/** Lower-case hex of a key, as the RPC prints keys. */
export function keyToHex(k: Bytes): string {
  return Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString("hex");
}
