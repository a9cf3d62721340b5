/**
 * The multisig key exchange of wallet2 (src/multisig/multisig_account.cpp and
 * multisig_account_kex_impl.cpp v0.18.0.0), over a CryptoBackend. An account starts from
 * k_base = H(spend secret, "Multisig") and k_common_base = H(view secret, "Multisig")
 * (get_multisig_blinded_secret_key); round 1 shares the signers' base keys and common-key shares;
 * rounds 2..(N−M+1) build, by Diffie–Hellman, the key shares each group of N−M+1 signers holds;
 * the last main round aggregates the final spend key (MuSig-style coefficients, MRL-0009); one more
 * "post-kex verification" round checks every signer reached the same address. Each step works on a
 * copy and returns the new state, so a refused set of messages changes nothing.
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { eqBytes, identityKey, isGoodPubkey, isIdentity, type KexMsg, makeKexMsg, MultisigError } from "./kex-msg.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";

/** config::MULTISIG_MAX_SIGNERS. */
export const MULTISIG_MAX_SIGNERS = 16;

const concat = (parts: readonly Bytes[]): Bytes => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
/** crypto keys compare as memcmp; lower-case hex sorts the same way. */
const byKey = (a: Bytes, b: Bytes): number => (hex(a) < hex(b) ? -1 : hex(a) > hex(b) ? 1 : 0);

/** config::HASH_KEY_MULTISIG, 32 bytes. */
const HASH_KEY_MULTISIG = (() => {
  const k = new Uint8Array(32);
  k.set(new TextEncoder().encode("Multisig"));
  return k;
})();
/** config::HASH_KEY_MULTISIG_KEY_AGGREGATION in a zeroed 32-byte key. */
const HASH_KEY_AGGREGATION = (() => {
  const k = new Uint8Array(32);
  k.set(new TextEncoder().encode("Multisig_key_agg"));
  return k;
})();

/** multisig_kex_rounds_required: N − M + 1. */
export function kexRoundsRequired(signers: number, threshold: number): number {
  if (signers < threshold) throw new MultisigError("num_signers must be >= threshold");
  if (threshold < 1) throw new MultisigError("threshold must be >= 1");
  return signers - threshold + 1;
}

/** get_multisig_blinded_secret_key: H(key ‖ "Multisig"). */
export function blindedSecretKey(b: CryptoBackend, key: Bytes): Bytes {
  if (!b.scIsNonZero(key)) throw new MultisigError("Unexpected null secret key (danger!).");
  return b.hashToScalar(concat([key, HASH_KEY_MULTISIG]));
}

/** The state of one signer's multisig account (multisig_account's members). */
export interface KexAccount {
  readonly basePrivkey: Bytes;
  readonly basePubkey: Bytes;
  /** Only needed before round 1 is processed. */
  readonly baseCommonPrivkey: Bytes | null;
  readonly threshold: number;
  /** Sorted. */
  readonly signers: readonly Bytes[];
  readonly multisigPrivkeys: readonly Bytes[];
  readonly commonPrivkey: Bytes;
  readonly multisigPubkey: Bytes;
  readonly commonPubkey: Bytes;
  readonly roundsComplete: number;
  /** Keys this account recommended in the current round (hex), with the signers sharing them (hex; may be empty when restored). */
  readonly keysToOrigins: ReadonlyMap<string, ReadonlySet<string>>;
  /** The message to send for the next round (or the post-kex verification message once done). */
  readonly nextMessage: string;
}

/** A fresh account (not yet active) from a wallet's spend and view secrets; its next message is round 1's. */
export function newKexAccount(b: CryptoBackend, spendSecret: Bytes, viewSecret: Bytes): KexAccount {
  const basePrivkey = blindedSecretKey(b, spendSecret);
  const baseCommonPrivkey = blindedSecretKey(b, viewSecret);
  return {
    basePrivkey,
    basePubkey: b.scalarMultBase(basePrivkey),
    baseCommonPrivkey,
    threshold: 0,
    signers: [],
    multisigPrivkeys: [],
    commonPrivkey: new Uint8Array(32),
    multisigPubkey: identityKey(),
    commonPubkey: identityKey(),
    roundsComplete: 0,
    keysToOrigins: new Map(),
    nextMessage: makeKexMsg(b, 1, basePrivkey, [], baseCommonPrivkey),
  };
}

/** What a multisig wallet keeps between rounds (wallet2's m_multisig_* and account keys). */
export interface KexSaved {
  readonly threshold: number;
  readonly signers: readonly Bytes[];
  /** k_base (the wallet's spend secret once multisig). */
  readonly basePrivkey: Bytes;
  readonly multisigPrivkeys: readonly Bytes[];
  /** The view secret once multisig. */
  readonly commonPrivkey: Bytes;
  readonly multisigPubkey: Bytes;
  readonly commonPubkey: Bytes;
  readonly roundsComplete: number;
  /** m_multisig_derivations. */
  readonly derivations: readonly Bytes[];
}

/** Rebuilds an active account from what a wallet saved (multisig_account's second constructor). */
export function restoreKexAccount(b: CryptoBackend, s: KexSaved): KexAccount {
  if (s.roundsComplete < 1) throw new MultisigError("multisig account: can't reconstruct account if its kex wasn't initialized");
  const basePubkey = b.scalarMultBase(s.basePrivkey);
  const signers = checkConfig(b, s.threshold, s.signers, basePubkey);
  const required = kexRoundsRequired(signers.length, s.threshold);
  if (s.roundsComplete > required + 1) throw new MultisigError("multisig account: tried to reconstruct account, but kex rounds complete counter is invalid.");
  const a: KexAccount = {
    basePrivkey: s.basePrivkey,
    basePubkey,
    baseCommonPrivkey: null,
    threshold: s.threshold,
    signers,
    multisigPrivkeys: s.multisigPrivkeys,
    commonPrivkey: s.commonPrivkey,
    multisigPubkey: s.multisigPubkey,
    commonPubkey: s.commonPubkey,
    roundsComplete: s.roundsComplete,
    keysToOrigins: new Map(s.derivations.map((d) => [hex(d), new Set<string>()])),
    nextMessage: "",
  };
  // a finished account's next message is always the post-kex verification message
  if (s.roundsComplete >= required) return { ...a, nextMessage: makeKexMsg(b, required + 1, s.basePrivkey, [s.multisigPubkey, s.commonPubkey]) };
  return a;
}

export const isActive = (a: KexAccount): boolean => a.roundsComplete > 0;
export const mainRoundsDone = (a: KexAccount): boolean => isActive(a) && a.roundsComplete >= kexRoundsRequired(a.signers.length, a.threshold);
export const isReady = (a: KexAccount): boolean => mainRoundsDone(a) && a.roundsComplete >= kexRoundsRequired(a.signers.length, a.threshold) + 1;

/** What a wallet saves of an account. */
export function savedOf(a: KexAccount): KexSaved {
  return {
    threshold: a.threshold,
    signers: a.signers,
    basePrivkey: a.basePrivkey,
    multisigPrivkeys: a.multisigPrivkeys,
    commonPrivkey: a.commonPrivkey,
    multisigPubkey: a.multisigPubkey,
    commonPubkey: a.commonPubkey,
    roundsComplete: a.roundsComplete,
    derivations: [...a.keysToOrigins.keys()].map(unhex),
  };
}

/** set_multisig_config's checks; returns the signers sorted. */
function checkConfig(b: CryptoBackend, threshold: number, signers: readonly Bytes[], basePubkey: Bytes): Bytes[] {
  if (!(threshold > 0 && threshold <= signers.length))
    throw new MultisigError(`multisig account: tried to set invalid threshold ${threshold}: it must be between 1 and the number of signers (${signers.length})`);
  if (signers.length < 2 || signers.length > MULTISIG_MAX_SIGNERS)
    throw new MultisigError(`multisig account: tried to set invalid number of signers (${signers.length}): a group has 2 to ${MULTISIG_MAX_SIGNERS}`);
  for (const s of signers) if (!isGoodPubkey(b, s)) throw new MultisigError("multisig account: tried to set signers, but a signer pubkey is invalid.");
  if (!signers.some((s) => eqBytes(s, basePubkey))) throw new MultisigError("multisig account: tried to set signers, but did not find the account's base pubkey in signer list.");
  const sorted = [...signers].sort(byKey);
  for (let i = 1; i < sorted.length; i++)
    if (eqBytes(sorted[i - 1], sorted[i])) throw new MultisigError("multisig account: tried to set signers, but there are duplicate signers unexpectedly.");
  return sorted;
}

/** n choose k (small n). */
function nChooseK(n: number, k: number): number {
  if (n < k || k < 0) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}

type OriginsMap = Map<string, Set<string>>;

/** check_messages_round. */
function checkMessagesRound(msgs: readonly KexMsg[], expected: number): void {
  if (msgs.length === 0) throw new MultisigError("At least one input message expected.");
  if (msgs[0].round !== expected)
    throw new MultisigError(`Messages don't have the expected kex round number: they are for round ${msgs[0].round}, this wallet is at round ${expected}; pass the messages the other signers made in the previous step`);
  for (const m of msgs) if (m.round !== expected) throw new MultisigError("All messages must have the same kex round number.");
}

/** multisig_kex_msgs_sanitize_pubkeys. */
function sanitize(own: Bytes, msgs: readonly KexMsg[], exclude: readonly string[]): OriginsMap {
  const round = msgs[0].round;
  const out: OriginsMap = new Map();
  const ownHex = hex(own);
  const add = (k: string, origin: string) => {
    let s = out.get(k);
    if (!s) out.set(k, (s = new Set()));
    s.add(origin);
  };
  for (const m of msgs) {
    const signer = hex(m.signingPubkey);
    if (signer === ownHex) continue;
    if (round === 1) add(signer, signer);
    else
      for (const k of m.msgPubkeys) {
        const kh = hex(k);
        if (kh === ownHex || exclude.includes(kh)) continue;
        add(kh, signer);
      }
  }
  return out;
}

/** evaluate_multisig_kex_round_msgs. */
function evaluateRound(basePubkey: Bytes, round: number, signers: readonly Bytes[], msgs: readonly KexMsg[], exclude: readonly string[]): OriginsMap {
  if (new Set(exclude).size !== exclude.length) throw new MultisigError("Found duplicate pubkeys for exclusion unexpectedly.");
  const map = sanitize(basePubkey, msgs, exclude);
  const byOrigin = new Map<string, Set<string>>();
  for (const [k, origins] of map) {
    if (origins.size !== round) throw new MultisigError("A pubkey recommended by multisig kex messages had an unexpected number of recommendations.");
    for (const o of origins) {
      let s = byOrigin.get(o);
      if (!s) byOrigin.set(o, (s = new Set()));
      s.add(k);
    }
  }
  if (byOrigin.size !== signers.length - 1)
    throw new MultisigError(
      `Number of unique other signers (${byOrigin.size}) does not equal number of other signers (${signers.length - 1}) that recommended pubkeys: pass one message from every other signer of the group, all of the same round`,
    );
  const others = nChooseK(signers.length - 2, round - 1);
  const self = nChooseK(signers.length - 1, round - 1);
  if (!(others > 0 && self > 0)) throw new MultisigError("Bad num signers or round num (possibly numerical limits exceeded).");
  if (exclude.length !== self) throw new MultisigError("Local account did not recommend expected number of multisig keys.");
  const signerHex = new Set(signers.map(hex));
  for (const [origin, keys] of byOrigin) {
    if (keys.size !== others) throw new MultisigError("A pubkey recommended by multisig kex messages had an unexpected number of recommendations.");
    if (!signerHex.has(origin)) throw new MultisigError("Multisig kex message with unexpected signer encountered: a message from outside this group");
  }
  return map;
}

/** evaluate_multisig_post_kex_round_msgs. */
function evaluatePostRound(basePubkey: Bytes, signers: readonly Bytes[], msgs: readonly KexMsg[]): OriginsMap {
  const map = sanitize(basePubkey, msgs, []);
  if (map.size !== 2) throw new MultisigError("Multisig post-kex round messages from other signers did not all contain two pubkeys.");
  const [a, c] = [...map.values()];
  if (a.size !== c.size || [...a].some((x) => !c.has(x)))
    throw new MultisigError("Multisig post-kex round messages from other signers did not all recommend the same pubkey pair.");
  const origins = new Set(a);
  origins.add(hex(basePubkey));
  if (origins.size !== signers.length) throw new MultisigError("Multisig post-kex round message origins don't line up with multisig signer set.");
  for (const s of signers)
    if (!origins.has(hex(s))) throw new MultisigError("Could not find an expected signer in multisig post-kex round messages (all signers expected).");
  return map;
}

/** multisig_kex_make_round_keys: D = 8·k_base·K for each recommended key. */
function makeRoundKeys(b: CryptoBackend, basePrivkey: Bytes, map: OriginsMap): OriginsMap {
  const out: OriginsMap = new Map();
  for (const [k, origins] of map) {
    const p = b.scalarMult(basePrivkey, unhex(k));
    const d = p && b.pointMul8(p);
    if (!d) throw new MultisigError("A pubkey recommended by multisig kex messages is not a curve point.");
    out.set(hex(d), origins);
  }
  return out;
}

/** generate_multisig_aggregate_key: Σ coeff(K)·K over all final keys; own privkeys multiplied by their coefficients. */
function aggregateKey(b: CryptoBackend, finalKeys: readonly Bytes[], privkeys: Bytes[]): Bytes {
  const own = new Map<string, number>();
  const keys = [...finalKeys];
  privkeys.forEach((k, i) => {
    const p = b.scalarMultBase(k);
    own.set(hex(p), i);
    keys.push(p);
  });
  keys.sort(byKey);
  for (let i = 1; i < keys.length; i++) if (eqBytes(keys[i - 1], keys[i])) throw new MultisigError("Unexpected duplicate found in input list.");
  let agg = identityKey();
  for (const k of keys) {
    const coeff = b.hashToScalar(concat([k, ...keys, HASH_KEY_AGGREGATION]));
    const i = own.get(hex(k));
    if (i !== undefined) {
      privkeys[i] = b.scMul(coeff, privkeys[i]);
      if (!b.scIsNonZero(privkeys[i])) throw new MultisigError("Multisig privkey with aggregation coefficient unexpectedly null.");
    }
    const part = b.scalarMult(coeff, k);
    const sum = part && b.pointAdd(agg, part);
    if (!sum) throw new MultisigError("A multisig key share is not a curve point.");
    agg = sum;
  }
  return agg;
}

/** multisig_account::initialize_kex: round 1 with the group's threshold and signers. */
export function initializeKex(b: CryptoBackend, a: KexAccount, threshold: number, signers: readonly Bytes[], msgs: readonly KexMsg[]): KexAccount {
  if (isActive(a)) throw new MultisigError("multisig account: tried to initialize kex, but already initialized");
  return kexUpdateImpl(b, { ...a, threshold, signers: checkConfig(b, threshold, signers, a.basePubkey) }, msgs);
}

/** multisig_account::kex_update: the next round. */
export function kexUpdate(b: CryptoBackend, a: KexAccount, msgs: readonly KexMsg[]): KexAccount {
  if (!isActive(a)) throw new MultisigError("multisig account: tried to update kex, but kex isn't initialized yet.");
  if (isReady(a)) throw new MultisigError("multisig account: tried to update kex, but kex is already complete.");
  return kexUpdateImpl(b, a, msgs);
}

function kexUpdateImpl(b: CryptoBackend, a0: KexAccount, msgs: readonly KexMsg[]): KexAccount {
  checkMessagesRound(msgs, a0.roundsComplete + 1);
  const required = kexRoundsRequired(a0.signers.length, a0.threshold);
  if (a0.roundsComplete >= required + 1) throw new MultisigError("Multisig kex has already completed all required rounds (including post-kex verification).");
  let a = { ...a0 };
  const current = a.roundsComplete + 1;
  if (current > required + 1) throw new MultisigError("Trying to process multisig kex for an invalid round.");

  // initialize_kex_update
  const exclude: string[] = [];
  if (a.roundsComplete === 0) {
    if (!a.baseCommonPrivkey) throw new MultisigError("multisig account: round 1 needs the base common key");
    const shares = [a.baseCommonPrivkey];
    for (const m of msgs) if (!eqBytes(m.signingPubkey, a.basePubkey) && m.msgPrivkey) shares.push(m.msgPrivkey);
    shares.sort(byKey);
    const commonPrivkey = b.hashToScalar(concat(shares));
    if (!b.scIsNonZero(commonPrivkey)) throw new MultisigError("Unexpected null secret key (danger!).");
    a = { ...a, commonPrivkey, commonPubkey: b.scalarMultBase(commonPrivkey) };
    if (required === 1) a = { ...a, multisigPrivkeys: [a.basePrivkey] };
    exclude.push(hex(a.basePubkey));
  } else {
    for (const k of a.keysToOrigins.keys()) exclude.push(k);
  }

  // multisig_kex_process_round_msgs
  let evaluated: OriginsMap = new Map();
  if (a.threshold === 1 && current === required) {
    // last main round of 1-of-N: every signer holds the same key
  } else if (current <= required) evaluated = evaluateRound(a.basePubkey, current, a.signers, msgs, exclude);
  else evaluated = evaluatePostRound(a.basePubkey, a.signers, msgs);
  const result = current < required ? makeRoundKeys(b, a.basePrivkey, evaluated) : evaluated;

  // finalize_kex_update
  let next: Bytes[];
  if (a.roundsComplete === required) {
    if (!result.has(hex(a.multisigPubkey)))
      throw new MultisigError("Multisig post-kex round: expected multisig pubkey wasn't found in other signers' messages: the signers did not reach the same address");
    if (!result.has(hex(a.commonPubkey))) throw new MultisigError("Multisig post-kex round: expected common pubkey wasn't found in other signers' messages.");
    next = [a.multisigPubkey, a.commonPubkey];
  } else if (a.roundsComplete + 1 === required) {
    const privs = [...a.multisigPrivkeys];
    const multisigPubkey = aggregateKey(b, [...result.keys()].map(unhex), privs);
    a = { ...a, multisigPubkey, multisigPrivkeys: privs, keysToOrigins: new Map() };
    next = [multisigPubkey, a.commonPubkey];
  } else if (a.roundsComplete + 2 === required) {
    const privs: Bytes[] = [];
    const map: OriginsMap = new Map();
    next = [];
    for (const [d, origins] of result) {
      const k = blindedSecretKey(b, unhex(d));
      const pub = b.scalarMultBase(k);
      privs.push(k);
      map.set(hex(pub), origins);
      next.push(pub);
    }
    a = { ...a, multisigPrivkeys: privs, keysToOrigins: map };
  } else {
    next = [...result.keys()].map(unhex);
    a = { ...a, keysToOrigins: result };
  }
  const roundsComplete = a.roundsComplete + 1;
  const nextMessage = makeKexMsg(b, (roundsComplete > required ? required : roundsComplete) + 1, a.basePrivkey, next);
  return { ...a, roundsComplete, baseCommonPrivkey: null, nextMessage };
}

export { isIdentity };
