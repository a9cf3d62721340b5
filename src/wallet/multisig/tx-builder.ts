/**
 * multisig::signing::tx_builder_ringct_t (src/multisig/multisig_tx_builder_ringct.cpp, v0.18.0.0):
 * the core of a multisig transaction, built by the proposer and rebuilt by every co-signer from the
 * set's construction data (`reconstruct`). Sources sorted by key image (descending); tx keys from a
 * hash chain over H(H("multisig_tx_privkeys_seed") ‖ entropy ‖ key images), so a co-signer can check
 * them; outputs, extra (payment id encrypted, dummy one on ≤ 2 outputs), BP+, pseudo outputs, random
 * fake responses and D = z·Hp(P[l]); one multisig CLSAG context per input. On a rebuild, the tx
 * keys must come out of the entropy, the set's range proof must verify against the rebuilt
 * commitments and its pseudo outputs must balance, else the set is refused (`MultisigError`).
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { type RandomSource, randomScalar, systemRandom } from "../../crypto/random.js";
import { commit, commitmentMask, encryptAmount } from "../../crypto/ringct/amounts.js";
import { bulletproofPlusProve, bulletproofPlusVerify } from "../../crypto/ringct/bulletproof-plus.js";
import { type MultisigClsagContext, multisigClsagInit, multisigProposerWeight } from "../../crypto/ringct/clsag-multisig.js";
import { EIGHT, INV_EIGHT, concatBytes } from "../../crypto/ringct/scalar.js";
import { preMlsagHash, type RctSigLike } from "../../crypto/ringct/verify.js";
import { type ExtraField, encryptedPaymentIdFromNonce, nonceWithEncryptedPaymentId, parseTxExtra, paymentIdFromNonce, serializeTxExtra, sortTxExtra } from "../../protocol/extra.js";
import { RCT_TYPE, type RctSignatures } from "../../protocol/rct.js";
import { absoluteToRelativeOffsets, serializeRctBase, type Transaction } from "../../protocol/tx.js";
import { txPrefixHash } from "../../protocol/tx-hash.js";
import type { TxDestinationEntry, TxSourceEntry } from "../cold/formats.js";
import { decryptPaymentId } from "../scan/scan.js";
import { RandomDraw } from "../send/random-draw.js";
import { eqBytes, MultisigError } from "./kex-msg.js";

/** What the builder needs of the multisig wallet. */
export interface MultisigBuilderKeys {
  readonly viewSecretKey: Bytes;
  /** The group's spend public key. */
  readonly spendPublicKey: Bytes;
  /** This signer's multisig key shares. */
  readonly multisigKeys: readonly Bytes[];
  /** Subaddress (major, minor) → its spend public key and secret part m (zero for 0/0). */
  subaddress(major: number, minor: number): { spendPublicKey: Bytes; viewPublicKey: Bytes; secret: Bytes };
}

export interface MultisigBuildArgs {
  extra: Bytes;
  unlockTime: bigint;
  subaddrAccount: number;
  subaddrIndices: readonly number[];
  /** Sorted here (a copy). */
  sources: readonly TxSourceEntry[];
  /** splitted_dsts, change included: shuffled on a proposal, kept on a rebuild. */
  destinations: readonly TxDestinationEntry[];
  change: TxDestinationEntry;
  /** A rebuild: the set's tx keys, entropy and partly signed tx. */
  reconstruct?: { txKey: Bytes; additionalTxKeys: readonly Bytes[]; entropy: Bytes; tx: Transaction };
}

export interface MultisigBuilt {
  /** The tx with s[l] and c1 still zero. */
  tx: Transaction;
  txKey: Bytes;
  additionalTxKeys: Bytes[];
  entropy: Bytes;
  /** Sources in input order. */
  sources: TxSourceEntry[];
  destinations: TxDestinationEntry[];
  contexts: MultisigClsagContext[];
  /** The proposer's weights μ_P·x + μ_C·z per input (absent on a rebuild). */
  cachedW?: Bytes[];
}

const enc = (s: string) => new TextEncoder().encode(s);
export const kiOf = (s: TxSourceEntry): Bytes => s.multisigKLRki.subarray(96, 128);

const sameAddr = (a: { spendPublicKey: Bytes; viewPublicKey: Bytes }, b: { spendPublicKey: Bytes; viewPublicKey: Bytes }) =>
  eqBytes(a.spendPublicKey, b.spendPublicKey) && eqBytes(a.viewPublicKey, b.viewPublicKey);

/** The tx secret keys: hash chain of the seed (make_tx_secret_key_seed, make_tx_secret_keys). */
export function multisigTxKeys(b: CryptoBackend, entropy: Bytes, sortedSources: readonly TxSourceEntry[], count: number): Bytes[] {
  const seed = b.keccak256(concatBytes([b.keccak256(enc("multisig_tx_privkeys_seed")), entropy, ...sortedSources.map(kiOf)]));
  const ctx = concatBytes([seed, b.keccak256(enc("multisig_tx_privkeys"))]);
  const out: Bytes[] = [];
  for (let i = 0; i < count; i++) {
    const k = b.hashToScalar(ctx);
    ctx.set(k, 32);
    out.push(k);
  }
  return out;
}

/** get_destination_view_key_pub. */
function destinationViewKey(dsts: readonly TxDestinationEntry[], change: TxDestinationEntry): Bytes | null {
  let found: TxDestinationEntry | null = null;
  for (const d of dsts) {
    if (d.amount === 0n) continue;
    if (sameAddr(d, change)) continue;
    if (found && sameAddr(found, d)) continue;
    if (found) return null;
    found = d;
  }
  return found ? found.viewPublicKey : change.viewPublicKey;
}

/** compute_keys_for_sources: x of each source (derivation + subaddress part + all own shares), checking the output is the group's. */
function sourceSecrets(b: CryptoBackend, k: MultisigBuilderKeys, account: number, minors: readonly number[], sources: readonly TxSourceEntry[]): Bytes[] {
  const share = k.multisigKeys.reduce((acc, m) => b.scAdd(acc, m), new Uint8Array(32));
  const subs = minors.map((minor) => ({ minor, ...k.subaddress(account, minor) }));
  return sources.map((s, i) => {
    const outKey = s.outputs[s.realOutput].key;
    const txKeys = [s.realOutTxKey, ...(s.realOutAdditionalTxKeys.length > s.realOutputInTxIndex ? [s.realOutAdditionalTxKeys[s.realOutputInTxIndex]] : [])];
    for (const R of txKeys) {
      const d = b.generateKeyDerivation(R, k.viewSecretKey);
      if (!d) continue;
      const spend = b.deriveSubaddressPublicKey(outKey, d, s.realOutputInTxIndex);
      const sub = spend && subs.find((x) => eqBytes(x.spendPublicKey, spend));
      if (!sub) continue;
      let x = b.deriveSecretKey(d, s.realOutputInTxIndex, share);
      if (account !== 0 || sub.minor !== 0) x = b.scAdd(x, sub.secret);
      return x;
    }
    throw new MultisigError(`input ${i} is not an output of this multisig wallet's account ${account} (subaddresses ${minors.join(", ")})`);
  });
}

/** tx_builder_ringct_t::init. */
export function buildMultisigTx(b: CryptoBackend, k: MultisigBuilderKeys, a: MultisigBuildArgs, rng: RandomSource = systemRandom): MultisigBuilt {
  const bad = (why: string): never => {
    throw new MultisigError(a.reconstruct ? `the multisig tx set does not rebuild: ${why}` : why);
  };
  if (a.sources.length === 0) bad("no inputs");
  const sumIn = a.sources.reduce((s, x) => s + x.amount, 0n);
  const sumOut = a.destinations.reduce((s, x) => s + x.amount, 0n);
  if (sumOut > sumIn || sumIn - sumOut >= 1n << 64n) bad("outputs exceed inputs");
  const fee = sumIn - sumOut;

  const sources = [...a.sources].sort((x, y) => Buffer.compare(kiOf(y), kiOf(x)));
  const entropy = a.reconstruct ? a.reconstruct.entropy : randomScalar(b, rng);
  if (entropy.every((v) => v === 0)) bad("the tx key entropy is missing (a set of a wallet before 0.18)");
  const xs = sourceSecrets(b, k, a.subaddrAccount, a.subaddrIndices, sources);

  const destinations = [...a.destinations];
  if (!a.reconstruct) new RandomDraw(rng).shuffle(destinations);

  // compute_keys_for_destinations
  const change = a.change;
  if (change.amount > 0n) {
    const own = k.subaddress(a.subaddrAccount, 0);
    if (!sameAddr(change, own)) bad("the change does not go to this wallet's account");
    if (!destinations.some((d) => sameAddr(d, change))) bad("the change is not among the destinations");
  }
  const subs: TxDestinationEntry[] = [];
  const stds: TxDestinationEntry[] = [];
  for (const d of destinations) {
    if (sameAddr(d, change)) continue;
    const set = d.isSubaddress ? subs : stds;
    if (!set.some((x) => sameAddr(x, d))) set.push(d);
  }
  const needAdditional = subs.length + (stds.length > 0 ? 1 : 0) > 1;
  const keys = multisigTxKeys(b, entropy, sources, 1 + (needAdditional ? destinations.length : 0));
  const txKey = keys[0];
  const additionalTxKeys = keys.slice(1);
  if (a.reconstruct) {
    if (!eqBytes(a.reconstruct.txKey, txKey) || a.reconstruct.additionalTxKeys.length !== additionalTxKeys.length || !a.reconstruct.additionalTxKeys.every((x, i) => eqBytes(x, additionalTxKeys[i])))
      bad("its tx keys do not come from its entropy and inputs");
  }
  const txPub = stds.length === 0 && subs.length === 1 ? b.scalarMult(txKey, subs[0].spendPublicKey) : b.scalarMultBase(txKey);
  if (!txPub) return bad("a destination's spend key is not a point");

  const additionalPubs: Bytes[] = [];
  const vout: Transaction["vout"] = [];
  const amountKeys: Bytes[] = [];
  destinations.forEach((d, i) => {
    let derivation: Bytes | null;
    if (sameAddr(d, change)) derivation = b.generateKeyDerivation(txPub, k.viewSecretKey);
    else derivation = b.generateKeyDerivation(d.viewPublicKey, d.isSubaddress && needAdditional ? additionalTxKeys[i] : txKey);
    if (needAdditional) {
      const pub = d.isSubaddress ? b.scalarMult(additionalTxKeys[i], d.spendPublicKey) : b.scalarMultBase(additionalTxKeys[i]);
      if (!pub) bad("a destination's spend key is not a point");
      additionalPubs.push(pub as Bytes);
    }
    if (!derivation) return bad("a destination's view key is not a point");
    const key = b.derivePublicKey(derivation, i, d.spendPublicKey);
    if (!key) return bad("a destination's spend key is not a point");
    vout.push({ amount: 0n, target: { type: "tagged_key", key, viewTag: b.deriveViewTag(derivation, i) } });
    amountKeys.push(b.derivationToScalar(derivation, i));
  });
  for (let i = 0; i < vout.length; i++)
    for (let j = 0; j < i; j++) {
      const ki = vout[i].target;
      const kj = vout[j].target;
      if (ki.type === "tagged_key" && kj.type === "tagged_key" && eqBytes(ki.key, kj.key)) bad("two outputs have the same one-time key");
    }

  // set_tx_extra
  const fields: ExtraField[] = [];
  let dummyPid = true;
  for (const f of parseTxExtra(a.extra).fields) {
    if (f.type === "pubkey" || f.type === "additional_pubkeys") continue;
    if (f.type === "nonce") {
      const pid8 = encryptedPaymentIdFromNonce(f.nonce);
      if (pid8) {
        const view = destinationViewKey(destinations, change);
        if (!view) return bad("an encrypted payment id needs exactly one destination besides the change");
        const e = decryptPaymentId(b, pid8, view, txKey);
        if (!e) return bad("the destination's view key is not a point");
        fields.push({ type: "nonce", nonce: nonceWithEncryptedPaymentId(e.subarray(0, 8)) });
        dummyPid = false;
        continue;
      }
      if (paymentIdFromNonce(f.nonce)) dummyPid = false;
    }
    fields.push(f);
  }
  if (destinations.length > 2) dummyPid = false;
  if (dummyPid) {
    const view = destinationViewKey(destinations, change);
    const e = view && decryptPaymentId(b, new Uint8Array(8), view, txKey);
    if (e) fields.push({ type: "nonce", nonce: nonceWithEncryptedPaymentId(e.subarray(0, 8)) });
  }
  fields.push({ type: "pubkey", key: txPub });
  if (additionalPubs.length > 0) fields.push({ type: "additional_pubkeys", keys: additionalPubs });
  const extra = sortTxExtra(serializeTxExtra(fields));

  const prefix: Transaction = {
    version: 2,
    unlockTime: a.unlockTime,
    vin: sources.map((s) => ({ type: "key" as const, amount: 0n, keyOffsets: absoluteToRelativeOffsets(s.outputs.map((m) => m.globalIndex)), keyImage: kiOf(s).slice() })),
    vout,
    extra,
    signatures: [],
    pruned: false,
  };

  // set_tx_rct_signatures
  const masks = amountKeys.map((s) => commitmentMask(b, s));
  const outPk = destinations.map((d, i) => commit(b, d.amount, masks[i]));
  const ecdhInfo = destinations.map((d, i) => ({ amount: encryptAmount(b, amountKeys[i], d.amount) }));
  const old = a.reconstruct?.tx.rct?.prunable;
  let bpp;
  if (!a.reconstruct) {
    const { V: _v, ...proof } = bulletproofPlusProve(b, destinations.map((d) => d.amount), masks, rng);
    bpp = proof;
  } else {
    if (!old || a.reconstruct.tx.rct?.type !== RCT_TYPE.BulletproofPlus || old.bulletproofsPlus.length !== 1) return bad("it carries no single Bulletproof+ range proof");
    bpp = old.bulletproofsPlus[0];
    const V = outPk.map((c) => b.scalarMult(INV_EIGHT, c) as Bytes);
    if (!bulletproofPlusVerify(b, [{ ...bpp, V }], rng)) bad("its range proof does not prove the rebuilt outputs");
  }

  const n = sources.length;
  let pseudoOuts: Bytes[];
  let pseudoMasks: Bytes[] = [];
  if (!a.reconstruct) {
    let last = masks.reduce((acc, m) => b.scAdd(acc, m), new Uint8Array(32));
    for (let i = 0; i < n - 1; i++) {
      pseudoMasks.push(randomScalar(b, rng));
      last = b.scSub(last, pseudoMasks[i]);
    }
    pseudoMasks.push(last);
    pseudoOuts = sources.map((s, i) => commit(b, s.amount, pseudoMasks[i]));
  } else {
    pseudoOuts = (old?.pseudoOuts ?? []).map((p) => p.slice());
    if (pseudoOuts.length !== n) bad("its pseudo outputs do not match its inputs");
    let acc: Bytes | null = commit(b, fee, new Uint8Array(32));
    for (const c of outPk) acc = acc && b.pointAdd(acc, c);
    for (const p of pseudoOuts) acc = acc && b.pointSub(acc, p);
    if (!acc || !eqBytes(acc, Uint8Array.from([1, ...new Uint8Array(31)]))) bad("its pseudo outputs do not balance the outputs and fee");
    pseudoMasks = [];
  }
  const rct: RctSignatures = {
    type: RCT_TYPE.BulletproofPlus,
    fee,
    pseudoOuts: [],
    ecdhInfo,
    outPk,
    prunable: { rangeSigs: [], bulletproofs: [], bulletproofsPlus: [bpp], MGs: [], CLSAGs: [], pseudoOuts },
  };
  const message = preMlsagHash(b, txPrefixHash(prefix, b), serializeRctBase({ ...prefix, rct }), rct as RctSigLike);

  const contexts: MultisigClsagContext[] = [];
  const cachedW: Bytes[] = [];
  if (a.reconstruct && old?.CLSAGs.length !== n) bad("its signatures do not match its inputs");
  for (let i = 0; i < n; i++) {
    const s = sources[i];
    const ring = s.outputs.length;
    if (s.realOutput >= ring) bad(`input ${i}'s real output is outside its ring`);
    let fakes: Bytes[];
    let D: Bytes;
    let D8: Bytes;
    let z: Bytes | null = null;
    const hp = b.hashToEc(s.outputs[s.realOutput].key);
    if (!a.reconstruct) {
      fakes = Array.from({ length: ring }, (_, j) => (j === s.realOutput ? new Uint8Array(32) : randomScalar(b, rng)));
      z = b.scSub(s.mask, pseudoMasks[i]);
      D = b.scalarMult(z, hp) as Bytes;
      D8 = b.scalarMult(INV_EIGHT, D) as Bytes;
    } else {
      const c = (old?.CLSAGs ?? [])[i];
      if (c.s.length !== ring) bad(`input ${i}'s signature does not match its ring`);
      fakes = c.s.map((v) => v.slice());
      D8 = c.D.slice();
      const full = b.scalarMult(EIGHT, D8);
      if (!full) return bad(`input ${i}'s D is not a point`);
      D = full;
    }
    const ctx = multisigClsagInit(b, { P: s.outputs.map((m) => m.key), C: s.outputs.map((m) => m.commitment), cOffset: pseudoOuts[i], message, I: kiOf(s), D, l: s.realOutput, s: fakes });
    contexts.push(ctx);
    rct.prunable?.CLSAGs.push({ s: fakes, c1: new Uint8Array(32), D: D8 });
    if (z) cachedW.push(multisigProposerWeight(b, ctx, xs[i], z));
  }
  return { tx: { ...prefix, rct }, txKey, additionalTxKeys, entropy, sources, destinations, contexts, ...(a.reconstruct ? {} : { cachedW }) };
}

/** finalize_tx: the summed responses and c1 into the tx (a copy). */
export function finalizeMultisigTx(tx: Transaction, sources: readonly TxSourceEntry[], c0: readonly Bytes[], s: readonly Bytes[]): Transaction {
  const p = tx.rct?.prunable;
  if (!p || p.CLSAGs.length !== sources.length || c0.length !== sources.length || s.length !== sources.length) throw new MultisigError("the signatures do not match the inputs");
  const CLSAGs = p.CLSAGs.map((c, i) => ({ s: c.s.map((v, j) => (j === sources[i].realOutput ? s[i].slice() : v)), c1: c0[i].slice(), D: c.D }));
  return { ...tx, rct: { ...(tx.rct as RctSignatures), prunable: { ...p, CLSAGs } } };
}
