/**
 * The key-related methods of monero-wallet-rpc (src/wallet/wallet_rpc_server.cpp) as plain functions
 * over account keys, returning exactly the RPC's result objects and throwing `WalletError` with
 * Monero's messages, word for word (wallet/rpc/errors.ts gives each kind its code), so the wallet
 * RPC layer can serve them as they are.
 * Where Monero's message is vague (seeds), the precise reason is kept in `cause`.
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { AddressError, decodeAddress, encodeAddress, validateAddress } from "../../protocol/address.js";
import {
  bytesToWords,
  creatableLanguages,
  findLanguage,
  MONERO_SEED_ERROR,
  MnemonicError,
  OLD_LANGUAGE_NAME,
  wordsToBytes,
} from "../../protocol/mnemonic/index.js";
import { addressNetwork, type Network } from "../../protocol/network.js";
import { PaymentIdError, parseShortPaymentId, paymentIdToHex } from "../../protocol/payment-id.js";
import {
  MAKE_URI_ERROR_PREFIX,
  makeUri,
  PARSE_URI_ERROR_PREFIX,
  parseUri,
  type UriFields,
  UriError,
} from "../../protocol/uri.js";
import {
  type AccountKeys,
  accountFromKeys,
  accountFromRecoveryKey,
  applySeedOffset,
  isDeterministic,
  keyToHex,
  primaryAddress,
} from "./account.js";
import { WalletError } from "../errors.js";

/** Monero's messages for these methods, verbatim. */
export const WalletRpcMessages = {
  seedMandatory: "field 'seed' is mandatory. Please provide a seed you want to restore from.",
  seedFailed: MONERO_SEED_ERROR,
  oldLanguageNeedsNew: "Wallet was using the old seed language. You need to specify a new seed language.",
  oldLanguageBadNew: "Wallet was using the old seed language, and the specified new seed language is invalid.",
  restored: "Wallet has been restored successfully.",
  viewkeyMandatory: "field 'viewkey' is mandatory. Please provide a view key you want to restore from.",
  addressMandatory: "field 'address' is mandatory. Please provide a public address.",
  badPublicAddress: "Failed to parse public address",
  badViewKey: "Failed to parse view key secret key",
  badSpendKey: "Failed to parse spend key secret key",
  badSeedLanguage: "The specified seed language is invalid.",
  generated: "Wallet has been generated successfully.",
  generatedWatchOnly: "Watch-only wallet has been generated successfully.",
  unknownLanguage: (l: string) => `Unknown language: ${l}`,
  watchOnlySeed: "The wallet is watch-only. Cannot retrieve seed.",
  watchOnlySpendKey: "The wallet is watch-only. Cannot retrieve spend key.",
  nonDeterministic: "The wallet is non-deterministic. Cannot display seed.",
  getSeedFailed: "Failed to get seed.",
  keyTypeNotFound: (t: string) => `key_type ${t} not found`,
  invalidPaymentId: "Invalid payment ID",
  invalidAddress: "Invalid address",
  subaddressNotAllowed: "Subaddress shouldn't be used",
  alreadyIntegrated: "Already integrated address",
  notIntegrated: "Address is not an integrated address",
  addressNotInWallet: "Address doesn't belong to the wallet",
  countRange: "Count must be between 1 and 64.",
  accountOutOfBound: "account index is out of bound",
  addressOutOfBound: "address index is out of bound",
} as const;

/** The key state of an open wallet. */
export interface KeyWallet {
  readonly network: Network;
  readonly keys: AccountKeys;
  /** wallet2's seed_language; "" when unset (wallets from keys without a language). */
  readonly seedLanguage: string;
}

/** get_languages. */
export function getLanguages(): { languages: string[]; languages_local: string[] } {
  const l = creatableLanguages();
  return { languages: l.map((x) => x.englishName), languages_local: l.map((x) => x.name) };
}

/** create_wallet's language check: throws "Unknown language: …" as Monero does. */
export function checkCreateLanguage(language: string): void {
  if (!findLanguage(language)) throw new WalletError("failed", WalletRpcMessages.unknownLanguage(language));
}

/** create_wallet's key part: a deterministic wallet from 32 random bytes. */
export function createWallet(p: { language: string }, network: Network, random32: Bytes, backend: CryptoBackend = defaultBackend()): KeyWallet {
  checkCreateLanguage(p.language);
  // generate_keys draws a uniformly random scalar; the caller supplies it (already < ℓ).
  return { network, keys: accountFromRecoveryKey(random32, backend), seedLanguage: p.language };
}

/** restore_deterministic_wallet's key part. */
export function restoreDeterministicWallet(
  p: { seed: string; seed_offset?: string; language?: string },
  network: Network,
  backend: CryptoBackend = defaultBackend(),
): { wallet: KeyWallet; result: { address: string; seed: string; info: string; was_deprecated: boolean } } {
  if (p.seed === "") throw new WalletError("failed", WalletRpcMessages.seedMandatory);
  let decoded: ReturnType<typeof wordsToBytes>;
  try {
    decoded = wordsToBytes(p.seed, 32);
  } catch (e) {
    if (e instanceof MnemonicError) throw new WalletError("failed", WalletRpcMessages.seedFailed, e);
    throw e;
  }
  const recoveryKey = p.seed_offset ? applySeedOffset(decoded.bytes, p.seed_offset, backend) : decoded.bytes;
  let language = decoded.language.name;
  if (language === OLD_LANGUAGE_NAME) {
    const wanted = p.language ?? "";
    if (wanted === "") throw new WalletError("failed", WalletRpcMessages.oldLanguageNeedsNew);
    if (!findLanguage(wanted)) throw new WalletError("failed", WalletRpcMessages.oldLanguageBadNew);
    language = wanted;
  }
  const keys = accountFromRecoveryKey(recoveryKey, backend);
  return {
    wallet: { network, keys, seedLanguage: language },
    result: {
      address: primaryAddress(keys, network, backend),
      info: WalletRpcMessages.restored,
      // the words of the (offset, unreduced) recovery key, not of the spend key
      seed: bytesToWords(recoveryKey, language),
      was_deprecated: decoded.wasDeprecated,
    },
  };
}

/** epee's hex_to_pod for a 32-byte key: exactly 64 hex digits. */
function parseKeyHex(text: string): Bytes | null {
  return /^[0-9a-fA-F]{64}$/.test(text) ? Uint8Array.from(Buffer.from(text, "hex")) : null;
}

/** generate_from_keys's key part (no check that the secrets match the address — Monero 0.18 makes none). */
export function generateFromKeys(
  p: { address?: string; spendkey?: string; viewkey?: string; language?: string },
  network: Network,
  backend: CryptoBackend = defaultBackend(),
): { wallet: KeyWallet; result: { address: string; info: string } } {
  const E = "failed";
  if (!p.viewkey) throw new WalletError(E, WalletRpcMessages.viewkeyMandatory);
  if (!p.address) throw new WalletError(E, WalletRpcMessages.addressMandatory);
  let addr: ReturnType<typeof decodeAddress>;
  try {
    addr = decodeAddress(p.address, network, backend);
  } catch (e) {
    if (e instanceof AddressError) throw new WalletError(E, WalletRpcMessages.badPublicAddress, e);
    throw e;
  }
  const view = parseKeyHex(p.viewkey);
  if (!view) throw new WalletError(E, WalletRpcMessages.badViewKey);
  let spend: Bytes | null = null;
  if (p.spendkey) {
    spend = parseKeyHex(p.spendkey);
    if (!spend) throw new WalletError(E, WalletRpcMessages.badSpendKey);
  }
  let seedLanguage = "";
  if (p.language) {
    if (!findLanguage(p.language)) throw new WalletError(E, WalletRpcMessages.badSeedLanguage);
    seedLanguage = p.language;
  }
  const keys = accountFromKeys(addr.spendPublicKey, addr.viewPublicKey, view, spend);
  return {
    wallet: { network, keys, seedLanguage },
    result: {
      // the standard address of the given keys (a subaddress or integrated address is taken as its keys)
      address: encodeAddress(network, "standard", keys.spendPublicKey, keys.viewPublicKey, null, backend),
      info: spend ? WalletRpcMessages.generated : WalletRpcMessages.generatedWatchOnly,
    },
  };
}

/** query_key for "mnemonic", "view_key" and "spend_key". */
export function queryKey(w: KeyWallet, keyType: string, backend: CryptoBackend = defaultBackend()): { key: string } {
  const watchOnly = w.keys.spendSecretKey === null;
  if (keyType === "mnemonic") {
    if (watchOnly) throw new WalletError("watch-only", WalletRpcMessages.watchOnlySeed);
    if (!isDeterministic(w.keys, backend)) throw new WalletError("non-deterministic", WalletRpcMessages.nonDeterministic);
    const lang = findLanguage(w.seedLanguage);
    if (!lang || !w.keys.spendSecretKey) throw new WalletError("failed", WalletRpcMessages.getSeedFailed);
    return { key: bytesToWords(w.keys.spendSecretKey, lang) };
  }
  if (keyType === "view_key") return { key: keyToHex(w.keys.viewSecretKey) };
  if (keyType === "spend_key") {
    if (!w.keys.spendSecretKey) throw new WalletError("watch-only", WalletRpcMessages.watchOnlySpendKey);
    return { key: keyToHex(w.keys.spendSecretKey) };
  }
  // Monero leaves the code at its default (0) here.
  throw new WalletError("uncoded", WalletRpcMessages.keyTypeNotFound(keyType));
}

/** make_integrated_address. `randomPaymentId` supplies 8 random bytes when payment_id is empty. */
export function makeIntegratedAddress(
  w: KeyWallet,
  p: { standard_address?: string; payment_id?: string },
  randomPaymentId: () => Bytes,
  backend: CryptoBackend = defaultBackend(),
): { integrated_address: string; payment_id: string } {
  let pid: Bytes;
  if (!p.payment_id) {
    pid = randomPaymentId();
  } else {
    try {
      pid = parseShortPaymentId(p.payment_id);
    } catch (e) {
      if (e instanceof PaymentIdError) throw new WalletError("wrong-payment-id", WalletRpcMessages.invalidPaymentId, e);
      throw e;
    }
  }
  let spend = w.keys.spendPublicKey;
  let view = w.keys.viewPublicKey;
  if (p.standard_address) {
    let a: ReturnType<typeof decodeAddress>;
    try {
      a = decodeAddress(p.standard_address, w.network, backend);
    } catch (e) {
      if (e instanceof AddressError) throw new WalletError("wrong-address", WalletRpcMessages.invalidAddress, e);
      throw e;
    }
    if (a.kind === "subaddress") throw new WalletError("wrong-address", WalletRpcMessages.subaddressNotAllowed);
    if (a.kind === "integrated") throw new WalletError("wrong-address", WalletRpcMessages.alreadyIntegrated);
    spend = a.spendPublicKey;
    view = a.viewPublicKey;
  }
  return {
    integrated_address: encodeAddress(w.network, "integrated", spend, view, pid, backend),
    payment_id: paymentIdToHex(pid),
  };
}

/** split_integrated_address. */
export function splitIntegratedAddress(
  network: Network,
  p: { integrated_address: string },
  backend: CryptoBackend = defaultBackend(),
): { is_subaddress: boolean; payment_id: string; standard_address: string } {
  let a: ReturnType<typeof decodeAddress>;
  try {
    a = decodeAddress(p.integrated_address, network, backend);
  } catch (e) {
    if (e instanceof AddressError) throw new WalletError("wrong-address", WalletRpcMessages.invalidAddress, e);
    throw e;
  }
  if (!a.paymentId) throw new WalletError("wrong-address", WalletRpcMessages.notIntegrated);
  return {
    is_subaddress: false,
    payment_id: paymentIdToHex(a.paymentId),
    standard_address: encodeAddress(network, "standard", a.spendPublicKey, a.viewPublicKey, null, backend),
  };
}

/** validate_address (without OpenAlias): the RPC's fields only. */
export function validateAddressRpc(
  walletNetwork: Network | undefined,
  p: { address: string; any_net_type?: boolean },
  backend?: CryptoBackend,
): { valid: boolean; integrated: boolean; subaddress: boolean; nettype: string; openalias_address: string } {
  const { error: _ignored, ...r } = validateAddress(p.address, { walletNetwork, anyNetType: p.any_net_type }, backend);
  return r;
}

/** make_uri. Amount in atomic units. */
export function makeUriRpc(
  network: Network,
  p: { address: string; payment_id?: string; amount?: bigint; tx_description?: string; recipient_name?: string },
  backend?: CryptoBackend,
): { uri: string } {
  try {
    return { uri: makeUri(p, network, backend) };
  } catch (e) {
    if (e instanceof UriError) throw new WalletError("wrong-uri", MAKE_URI_ERROR_PREFIX + e.message);
    throw e;
  }
}

/** parse_uri; `unknown_parameters` is omitted when empty, as Monero's serializer does. */
export function parseUriRpc(
  network: Network,
  p: { uri: string },
  backend?: CryptoBackend,
): { uri: UriFields; unknown_parameters?: string[] } {
  try {
    const r = parseUri(p.uri, network, backend);
    return r.unknown_parameters.length ? r : { uri: r.uri };
  } catch (e) {
    if (e instanceof UriError) throw new WalletError("wrong-uri", PARSE_URI_ERROR_PREFIX + e.message);
    throw e;
  }
}

/** The network name validate_address reports for a wallet network. */
export function nettypeName(network: Network): string {
  return addressNetwork(network);
}
