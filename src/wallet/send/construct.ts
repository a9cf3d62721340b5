/**
 * Building one transaction the way wallet2 does (src/cryptonote_core/cryptonote_tx_utils.cpp
 * construct_tx_and_get_tx_key / construct_tx_with_tx_key, src/device/device_default.cpp
 * generate_output_ephemeral_keys / encrypt_payment_id, wallet2::transfer_selected_rct for the change
 * and dummy outputs): a random tx key, an encrypted payment id (the integrated address's, or a dummy
 * one on a 2-output transaction), the destinations shuffled, inputs sorted by key image (descending),
 * R = r·D for a single subaddress destination, additional keys when subaddresses and other addresses
 * mix, view tags, encrypted amounts, then one Bulletproof+ and one CLSAG per input
 * (crypto/ringct prove.ts).
 *
 * `shapeOnly` builds the same transaction with zero-filled signatures of the right sizes: its weight is
 * exact (the signatures' sizes depend only on ring size and output count), which is what the fee loop
 * of wallet2 needs, without paying for proofs it would throw away.
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { type RandomSource, randomScalar, systemRandom } from "../../crypto/random.js";
import { commitmentMask, encryptAmount } from "../../crypto/ringct/amounts.js";
import { proveRctClsagBpp, type RctInputSecret } from "../../crypto/ringct/prove.js";
import type { RctSigLike } from "../../crypto/ringct/verify.js";
import { type ExtraField, nonceWithEncryptedPaymentId, parseTxExtra, serializeTxExtra, sortTxExtra, encryptedPaymentIdFromNonce, paymentIdFromNonce } from "../../protocol/extra.js";
import { RCT_TYPE, type RctSignatures } from "../../protocol/rct.js";
import { absoluteToRelativeOffsets, serializeRctBase, serializeTransaction, type Transaction } from "../../protocol/tx.js";
import { txHash, txPrefixHash } from "../../protocol/tx-hash.js";
import { txWeight } from "../../protocol/weight.js";
import { decryptPaymentId } from "../scan/scan.js";
import { RandomDraw } from "./random-draw.js";

/** A public address as outputs need it. */
export interface DestinationKeys {
  spendPublicKey: Bytes;
  viewPublicKey: Bytes;
  isSubaddress: boolean;
}

/** tx_destination_entry. */
export interface Destination extends DestinationKeys {
  amount: bigint;
  /** The address as the user gave it (for the history), "" for change and dummies. */
  original: string;
}

export interface RingMember {
  globalIndex: bigint;
  key: Bytes;
  /** The member's commitment. */
  mask: Bytes;
}

/** tx_source_entry: one input with its ring. */
export interface Source {
  amount: bigint;
  /** Ring members in ascending global index. */
  ring: RingMember[];
  realIndex: number;
  /** One-time secret key x of the real output (P = x·G). */
  secretKey: Bytes;
  /** Commitment mask of the real output. */
  mask: Bytes;
  /** Caller's tag (the ledger's transfer index), kept through the key-image sort. */
  tag: number;
  /** The real output's key image when already known (saves computing it). */
  keyImage?: Bytes;
}

export interface ConstructArgs {
  sources: readonly Source[];
  /** Destinations, change and dummy included (wallet2's splitted_dsts); shuffled here. */
  destinations: readonly Destination[];
  /** The change address (its outputs are derived with the sender's view key), if any. */
  changeAddress: DestinationKeys | null;
  /** The sender's view secret key (derivation a·R for change outputs). */
  viewSecretKey: Bytes;
  /** Extra given by the caller: at most a nonce with an unencrypted 8-byte payment id to encrypt. */
  extra: Bytes;
  unlockTime: bigint;
  fee: bigint;
  shapeOnly?: boolean;
}

export interface ConstructedTx {
  tx: Transaction;
  blob: Bytes;
  txid: Bytes;
  weight: number;
  txKey: Bytes;
  additionalTxKeys: Bytes[];
  /** Sources in the transaction's input order. */
  sources: Source[];
  /** Key images in the transaction's input order. */
  keyImages: Bytes[];
  /** The destinations in output order (after the shuffle). */
  outputs: Destination[];
}

const ZERO32 = new Uint8Array(32);

const sameKeys = (a: DestinationKeys, b: DestinationKeys): boolean =>
  Buffer.compare(a.spendPublicKey, b.spendPublicKey) === 0 && Buffer.compare(a.viewPublicKey, b.viewPublicKey) === 0;

/** get_destination_view_key_pub: the one non-change destination's view key, else null (or the change's). */
function destinationViewKey(dsts: readonly Destination[], change: DestinationKeys | null): Bytes | null {
  let found: Destination | null = null;
  for (const d of dsts) {
    if (d.amount === 0n) continue;
    if (change && sameKeys(d, change)) continue;
    if (found && sameKeys(found, d)) continue;
    if (found) return null;
    found = d;
  }
  if (!found) return change ? change.viewPublicKey : null;
  return found.viewPublicKey;
}

/** classify_addresses. */
function classify(dsts: readonly Destination[], change: DestinationKeys | null): { std: number; sub: number; single: Destination | null } {
  const seen: Destination[] = [];
  let std = 0;
  let sub = 0;
  let single: Destination | null = null;
  for (const d of dsts) {
    if (change && sameKeys(d, change)) continue;
    if (seen.some((s) => sameKeys(s, d))) continue;
    seen.push(d);
    if (d.isSubaddress) {
      sub++;
      single = d;
    } else std++;
  }
  return { std, sub, single };
}

/** The key image of a source's real output. */
export function sourceKeyImage(b: CryptoBackend, s: Source): Bytes {
  return s.keyImage ?? b.generateKeyImage(s.ring[s.realIndex].key, s.secretKey);
}

/** construct_tx_and_get_tx_key for a type-6 (CLSAG + BP+) transaction with view tags. */
export function constructTx(b: CryptoBackend, args: ConstructArgs, rng: RandomSource = systemRandom): ConstructedTx {
  if (args.sources.length === 0) throw new RangeError("constructTx: no sources");
  const txKey = randomScalar(b, rng);
  const change = args.changeAddress;
  const destinations = [...args.destinations];

  // payment id: the caller's 8-byte id encrypted, or a dummy one (2 outputs or fewer), as construct_tx_with_tx_key
  const fields: ExtraField[] = [];
  let addDummyPid = true;
  for (const f of parseTxExtra(args.extra).fields) {
    if (f.type !== "nonce") {
      fields.push(f);
      continue;
    }
    const pid8 = encryptedPaymentIdFromNonce(f.nonce);
    if (pid8) {
      const view = destinationViewKey(destinations, change);
      if (!view) throw new RangeError("an integrated address's payment id needs exactly one destination (besides change)");
      const enc = decryptPaymentId(b, pid8, view, txKey);
      if (!enc) throw new RangeError("the destination's view key is not a valid point");
      fields.push({ type: "nonce", nonce: nonceWithEncryptedPaymentId(enc.subarray(0, 8)) });
      addDummyPid = false;
    } else {
      if (paymentIdFromNonce(f.nonce)) addDummyPid = false;
      fields.push(f);
    }
  }
  if (destinations.length > 2) addDummyPid = false;
  if (addDummyPid) {
    const view = destinationViewKey(destinations, change);
    if (view) {
      const enc = decryptPaymentId(b, new Uint8Array(8), view, txKey);
      if (enc) fields.push({ type: "nonce", nonce: nonceWithEncryptedPaymentId(enc.subarray(0, 8)) });
    }
  }

  // inputs, then sorted by key image, descending (memcmp > 0)
  const inputs = args.sources.map((s) => ({ s, ki: sourceKeyImage(b, s) }));
  inputs.sort((x, y) => Buffer.compare(y.ki, x.ki));
  const sources = inputs.map((i) => i.s);
  const keyImages = inputs.map((i) => i.ki);

  new RandomDraw(rng).shuffle(destinations); // std::shuffle

  const { std, sub, single } = classify(destinations, change);
  const txPub = std === 0 && sub === 1 && single ? b.scalarMult(txKey, single.spendPublicKey) : b.scalarMultBase(txKey);
  if (!txPub) throw new RangeError("the destination's spend key is not a valid point");
  const needAdditional = sub > 0 && (std > 0 || sub > 1);
  const additionalTxKeys = needAdditional ? destinations.map(() => randomScalar(b, rng)) : [];
  const additionalPubs: Bytes[] = [];

  const vout: Transaction["vout"] = [];
  const outSecrets: { amount: bigint; mask: Bytes; encryptedAmount: Bytes }[] = [];
  destinations.forEach((d, i) => {
    let derivation: Bytes | null;
    if (needAdditional) {
      const k = additionalTxKeys[i];
      const pub = d.isSubaddress ? b.scalarMult(k, d.spendPublicKey) : b.scalarMultBase(k);
      if (!pub) throw new RangeError("a destination's spend key is not a valid point");
      additionalPubs.push(pub);
    }
    if (change && sameKeys(d, change)) derivation = b.generateKeyDerivation(txPub, args.viewSecretKey);
    else derivation = b.generateKeyDerivation(d.viewPublicKey, d.isSubaddress && needAdditional ? additionalTxKeys[i] : txKey);
    if (!derivation) throw new RangeError("a destination's view key is not a valid point");
    const key = b.derivePublicKey(derivation, i, d.spendPublicKey);
    if (!key) throw new RangeError("a destination's spend key is not a valid point");
    vout.push({ amount: 0n, target: { type: "tagged_key", key, viewTag: b.deriveViewTag(derivation, i) } });
    const shared = b.derivationToScalar(derivation, i);
    outSecrets.push({ amount: d.amount, mask: commitmentMask(b, shared), encryptedAmount: encryptAmount(b, shared, d.amount) });
  });
  fields.push({ type: "pubkey", key: txPub });
  if (needAdditional) fields.push({ type: "additional_pubkeys", keys: additionalPubs });
  const extra = sortTxExtra(serializeTxExtra(fields));

  const sumIn = sources.reduce((s, x) => s + x.amount, 0n);
  const sumOut = destinations.reduce((s, x) => s + x.amount, 0n);
  if (sumOut + args.fee !== sumIn) throw new RangeError(`constructTx: inputs ${sumIn} ≠ outputs ${sumOut} + fee ${args.fee}`);

  const prefix: Transaction = {
    version: 2,
    unlockTime: args.unlockTime,
    vin: sources.map((s, i) => ({
      type: "key" as const,
      amount: 0n,
      keyOffsets: absoluteToRelativeOffsets(s.ring.map((m) => m.globalIndex)),
      keyImage: keyImages[i],
    })),
    vout,
    extra,
    signatures: [],
    pruned: false,
  };

  let rct: RctSignatures;
  if (args.shapeOnly) rct = shapeRct(sources, outSecrets, args.fee);
  else {
    const inputSecrets: RctInputSecret[] = sources.map((s) => ({
      ring: s.ring.map((m) => ({ dest: m.key, mask: m.mask })),
      realIndex: s.realIndex,
      secretKey: s.secretKey,
      mask: s.mask,
      amount: s.amount,
    }));
    const proved = proveRctClsagBpp(
      b,
      {
        prefixHash: txPrefixHash(prefix, b),
        inputs: inputSecrets,
        outputs: outSecrets,
        fee: args.fee,
        serializeBase: (x: RctSigLike) => serializeRctBase({ ...prefix, rct: x as RctSignatures }),
      },
      rng,
    );
    proved.keyImages.forEach((ki, i) => {
      if (Buffer.compare(ki, keyImages[i]) !== 0) throw new Error("constructTx: CLSAG key image differs from the prefix's");
    });
    rct = proved.rct as RctSignatures;
  }
  const tx: Transaction = { ...prefix, rct };
  const blob = serializeTransaction(tx);
  return {
    tx,
    blob,
    txid: args.shapeOnly ? ZERO32 : txHash(tx, b),
    weight: txWeight(tx, blob.length),
    txKey,
    additionalTxKeys,
    sources,
    keyImages,
    outputs: destinations,
  };
}

/** RingCT signatures of the right sizes and zero contents (weight only). */
function shapeRct(sources: readonly Source[], outs: readonly { encryptedAmount: Bytes }[], fee: bigint): RctSignatures {
  let logPadded = 0;
  while (1 << logPadded < outs.length) logPadded++;
  const rounds = 6 + logPadded;
  const z = () => new Uint8Array(32);
  return {
    type: RCT_TYPE.BulletproofPlus,
    fee,
    pseudoOuts: [],
    ecdhInfo: outs.map((o) => ({ amount: o.encryptedAmount })),
    outPk: outs.map(z),
    prunable: {
      rangeSigs: [],
      bulletproofs: [],
      bulletproofsPlus: [{ A: z(), A1: z(), B: z(), r1: z(), s1: z(), d1: z(), L: Array.from({ length: rounds }, z), R: Array.from({ length: rounds }, z) }],
      MGs: [],
      CLSAGs: sources.map((s) => ({ s: s.ring.map(z), c1: z(), D: z() })),
      pseudoOuts: sources.map(z),
    },
  };
}
