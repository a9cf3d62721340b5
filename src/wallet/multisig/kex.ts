/**
 * The wallet side of the key exchange (wallet2::get_multisig_first_kex_msg, make_multisig,
 * exchange_multisig_keys, multisig() v0.18.0.0) over the keys file's data: each call returns new
 * keys data and never edits what it was given, so a refused message leaves the wallet as it was.
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import type { MultisigKeysData, WalletKeysData } from "../files/index.js";
import type { AccountKeys } from "../keys/account.js";
import {
  initializeKex,
  isReady,
  kexRoundsRequired,
  kexUpdate,
  type KexAccount,
  newKexAccount,
  restoreKexAccount,
  savedOf,
} from "./account.js";
import { eqBytes, isIdentity, type KexMsg, MultisigError, parseKexMsg } from "./kex-msg.js";

/** wallet2::multisig(&ready, &threshold, &total). */
export interface MultisigStatus {
  readonly multisig: boolean;
  readonly ready: boolean;
  readonly threshold: number;
  readonly total: number;
}

export function multisigStatus(k: WalletKeysData): MultisigStatus {
  const m = k.multisig;
  if (!m) return { multisig: false, ready: false, threshold: 0, total: 0 };
  const ready = !isIdentity(k.spendPublicKey) && m.roundsPassed === kexRoundsRequired(m.signers.length, m.threshold) + 1;
  return { multisig: true, ready, threshold: m.threshold, total: m.signers.length };
}

function spendAndView(k: WalletKeysData): { spend: Bytes; view: Bytes } {
  if (k.spendSecretKey === null) throw new MultisigError("wallet is watch-only and cannot be made multisig");
  return { spend: k.spendSecretKey, view: k.viewSecretKey };
}

/** get_multisig_first_kex_msg: the round-1 message (prepare_multisig's multisig_info). */
export function firstKexMessage(b: CryptoBackend, k: WalletKeysData): string {
  const { spend, view } = spendAndView(k);
  return newKexAccount(b, spend, view).nextMessage;
}

/** The result of a kex step: the wallet's new keys data and the message for the other signers. */
export interface KexStep {
  readonly keys: WalletKeysData;
  readonly message: string;
  readonly ready: boolean;
}

function withAccount(k: WalletKeysData, a: KexAccount, threshold: number, signersAsGiven: readonly Bytes[]): WalletKeysData {
  const s = savedOf(a);
  const multisig: MultisigKeysData = {
    threshold,
    signers: signersAsGiven.map((x) => x.slice()),
    roundsPassed: s.roundsComplete,
    derivations: s.derivations.map((x) => x.slice()),
    keys: s.multisigPrivkeys.map((x) => x.slice()),
  };
  return {
    ...k,
    spendSecretKey: s.basePrivkey.slice(),
    viewSecretKey: s.commonPrivkey.slice(),
    spendPublicKey: s.multisigPubkey.slice(),
    viewPublicKey: s.commonPubkey.slice(),
    multisig,
  };
}

/** Parses every message, naming the one that is refused (its position in the list). */
function parseAll(b: CryptoBackend, msgs: readonly string[]): KexMsg[] {
  return msgs.map((m, i) => {
    try {
      return parseKexMsg(b, m);
    } catch (e) {
      if (e instanceof MultisigError) throw new MultisigError(`multisig_info[${i}]: ${e.message}`);
      throw e;
    }
  });
}

/** make_multisig: round 1 with every signer's prepare_multisig message (this wallet's own may be among them). */
export function makeMultisig(b: CryptoBackend, k: WalletKeysData, msgs: readonly string[], threshold: number): KexStep {
  if (k.multisig) throw new MultisigError("This wallet is already multisig");
  const { spend, view } = spendAndView(k);
  const account = newKexAccount(b, spend, view);
  const expanded = parseAll(b, msgs);
  const signers: Bytes[] = [];
  for (const m of expanded) {
    if (m.round !== 1) throw new MultisigError("Trying to make multisig with message that has invalid multisig kex round (should be '1'): pass the messages prepare_multisig gave");
    if (signers.some((s) => eqBytes(s, m.signingPubkey))) throw new MultisigError("Duplicate signers not allowed when converting a wallet to multisig.");
    if (!eqBytes(m.signingPubkey, account.basePubkey)) signers.push(m.signingPubkey);
  }
  signers.push(account.basePubkey);
  const a = initializeKex(b, account, threshold, signers, expanded);
  return { keys: withAccount(k, a, threshold, signers), message: a.nextMessage, ready: isReady(a) };
}

/** exchange_multisig_keys: the next round with the other signers' messages of the previous step. */
export function exchangeMultisigKeys(b: CryptoBackend, k: WalletKeysData, msgs: readonly string[]): KexStep {
  const m = k.multisig;
  if (!m) throw new MultisigError("The wallet is not multisig");
  if (multisigStatus(k).ready) throw new MultisigError("Multisig wallet creation process has already been finished");
  if (msgs.length === 0) throw new MultisigError("No key exchange messages passed in.");
  const expanded = parseAll(b, msgs);
  const account = restoreKexAccount(b, {
    threshold: m.threshold,
    signers: m.signers,
    basePrivkey: spendAndView(k).spend,
    multisigPrivkeys: m.keys,
    commonPrivkey: k.viewSecretKey,
    multisigPubkey: k.spendPublicKey,
    commonPubkey: k.viewPublicKey,
    roundsComplete: m.roundsPassed,
    derivations: m.derivations,
  });
  const a = kexUpdate(b, account, expanded);
  return { keys: withAccount(k, a, m.threshold, m.signers), message: a.nextMessage, ready: isReady(a) };
}

/**
 * wallet2::get_multisig_seed (raw): u32le threshold ‖ u32le total ‖ spend secret (k_base) ‖ spend
 * public ‖ view secret ‖ view public ‖ multisig keys ‖ signers — what restores the member.
 */
export function multisigSeed(k: WalletKeysData): Bytes {
  const m = k.multisig;
  if (!m || k.spendSecretKey === null) throw new MultisigError("This is not a multisig wallet");
  const parts: Bytes[] = [k.spendSecretKey, k.spendPublicKey, k.viewSecretKey, k.viewPublicKey, ...m.keys, ...m.signers];
  const out = new Uint8Array(8 + 32 * parts.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, m.threshold, true);
  dv.setUint32(4, m.signers.length, true);
  parts.forEach((p, i) => out.set(p, 8 + 32 * i));
  return out;
}

/** num_priv_multisig_keys_post_setup: the private key shares a member of an M-of-N group holds, C(N − 1, N − M). */
function sharesPerMember(threshold: number, total: number): number {
  let n = 1;
  for (let i = 1; i <= total - threshold; i++) n = (n * (threshold - 1 + i)) / i;
  return Math.round(n);
}

/**
 * wallet2::generate(multisig_data) — restore_deterministic_wallet with enable_multisig_experimental
 * (monero-wallet-rpc after 0.18, master 45b52de): the keys of a finished multisig member from the
 * seed multisigSeed makes (what query_key "mnemonic" gives), checked as wallet2 checks it.
 */
export function keysFromMultisigSeed(b: CryptoBackend, data: Bytes): { keys: AccountKeys; multisig: MultisigKeysData } {
  const bad = (): never => {
    throw new MultisigError("invalid multisig seed");
  };
  if (data.length < 32) bad();
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const threshold = dv.getUint32(0, true);
  const total = dv.getUint32(4, true);
  if (threshold < 1 || total < threshold || threshold > 16) bad();
  const shares = sharesPerMember(threshold, total);
  if (data.length !== 8 + 32 * (4 + shares + total)) bad();
  const at = (i: number): Bytes => data.slice(8 + 32 * i, 8 + 32 * (i + 1));
  const [spendSecretKey, spendPublicKey, viewSecretKey, viewPublicKey] = [at(0), at(1), at(2), at(3)];
  const keys = Array.from({ length: shares }, (_, i) => at(4 + i));
  const signers = Array.from({ length: total }, (_, i) => at(4 + shares + i));
  if (!b.scCheck(viewSecretKey) || !eqBytes(b.scalarMultBase(viewSecretKey), viewPublicKey)) bad();
  if (!b.scCheck(spendSecretKey)) bad();
  const self = b.scalarMultBase(spendSecretKey);
  if (!signers.some((s) => eqBytes(s, self))) bad();
  return {
    keys: { spendSecretKey, spendPublicKey, viewSecretKey, viewPublicKey },
    // the wallet is taken as finished: every round, the post-kex check included (multisig_setup_rounds_required)
    multisig: { threshold, signers, roundsPassed: kexRoundsRequired(total, threshold) + 1, derivations: [], keys },
  };
}
