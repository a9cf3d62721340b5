/**
 * Multisig tx sets as wallet2 0.18.0.0 makes and signs them (transfer_selected_rct with m_multisig,
 * save_multisig_tx, parse_multisig_tx_from_str, sign_multisig_tx): "Monero multisig unsigned tx
 * set\x01" + the view-key cipher of multisig_tx_set {pending_tx with multisig_sigs, signers}.
 *
 * - `proposeMultisigTx`: one pending tx with a signing attempt per group of co-signers that could
 *   complete it, the proposer's partial responses in each.
 * - `signMultisigSet`: rebuild every tx from its construction data (a set that does not rebuild is
 *   refused), sign every attempt meant for this signer with nonces it exported (each used once,
 *   then gone), finalize when this is the M-th signer.
 * Nonce state (the exported k's per output key) is changed in place; the caller stores it even when
 * signing fails half way, so a nonce never serves twice.
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { type RandomSource, randomScalar, systemRandom } from "../../crypto/random.js";
import { MULTISIG_ALPHA_COMPONENTS, multisigClsagChallenge, multisigPartialResponse, multisigSignerWeight } from "../../crypto/ringct/clsag-multisig.js";
import { encryptedPaymentIdFromNonce, type ExtraField, nonceWithEncryptedPaymentId, parseTxExtra, serializeTxExtra } from "../../protocol/extra.js";
import { serializeTransaction } from "../../protocol/tx.js";
import { txHash } from "../../protocol/tx-hash.js";
import { decryptWithViewKey, encryptWithViewKey } from "../cold/cipher.js";
import { ColdError } from "../cold/errors.js";
import { decodeMultisigTxSet, encodeMultisigTxSet, type MultisigSig, type MultisigTxSet, type PendingTxRecord, type TxConstructionData } from "../cold/formats.js";
import { decryptPaymentId } from "../scan/scan.js";
import { buildMultisigTx, finalizeMultisigTx, kiOf, type MultisigBuilderKeys, type MultisigBuilt } from "./tx-builder.js";
import { eqBytes, MultisigError } from "./kex-msg.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";

export const MULTISIG_TX_PREFIX = Buffer.from("Monero multisig unsigned tx set\x01", "latin1");

/** The signer's side of a multisig wallet. */
export interface MultisigSigner extends MultisigBuilderKeys {
  readonly backend: CryptoBackend;
  readonly threshold: number;
  /** The group's signers (wallet2's m_multisig_signers order). */
  readonly signers: readonly Bytes[];
  /** This signer (k_base·G). */
  readonly self: Bytes;
}

/** An output as the proposer knows it: its key, full key image, the others' infos (L/R pairs by signer). */
export interface MultisigOutput {
  publicKey: Bytes;
  keyImage: Bytes;
  infos: readonly { signer: Bytes; lr: readonly { L: Bytes; R: Bytes }[] }[];
}

/** tools::Combinator: every k-subset of xs, in lexicographic order of positions. */
function combinations<T>(xs: readonly T[], k: number): T[][] {
  const out: T[][] = [];
  const pick = (start: number, acc: T[]) => {
    if (acc.length === k) return void out.push([...acc]);
    for (let i = start; i < xs.length; i++) pick(i + 1, [...acc, xs[i]]);
  };
  pick(0, []);
  return out;
}

/** The co-signers usable (wallet2: those with an info on the first output) and the ignore sets of the attempts. */
export function signingAttempts(m: MultisigSigner, firstInfos: readonly { signer: Bytes }[]): Bytes[][] {
  const others = m.signers.filter((s) => !eqBytes(s, m.self) && firstInfos.some((i) => eqBytes(i.signer, s)));
  if (others.length + 1 < m.threshold) throw new MultisigError("Not enough multisig data was found to sign: import multisig data from more other participants");
  if (others.length + 1 > m.threshold) return combinations(others, others.length + 1 - m.threshold);
  return [[]];
}

/** get_short_payment_id + get_construction_data_with_decrypted_short_payment_id: the set carries the 8-byte id in clear. */
function withDecryptedPaymentId(b: CryptoBackend, p: PendingTxRecord): TxConstructionData {
  const cd = p.constructionData;
  let pid: Bytes | undefined;
  for (const f of parseTxExtra(p.tx.extra).fields) if (f.type === "nonce" && !pid) pid = encryptedPaymentIdFromNonce(f.nonce);
  if (!pid || p.dests.length === 0) return cd;
  const dec = decryptPaymentId(b, pid, p.dests[0].viewPublicKey, p.txKey);
  if (!dec) return cd;
  const fields: ExtraField[] = parseTxExtra(cd.extra).fields.filter((f) => f.type !== "nonce");
  fields.push({ type: "nonce", nonce: nonceWithEncryptedPaymentId(dec.subarray(0, 8)) });
  return { ...cd, extra: serializeTxExtra(fields) };
}

/** save_multisig_tx: the k of every kLRki zeroed, payment ids in clear, encrypted with the view key. */
export async function saveMultisigSet(m: MultisigSigner, set: MultisigTxSet, rng: RandomSource = systemRandom): Promise<Bytes> {
  const ptx = set.ptx.map((p) => {
    const cd = withDecryptedPaymentId(m.backend, p);
    const sources = cd.sources.map((s) => {
      const k = s.multisigKLRki.slice();
      k.fill(0, 0, 32);
      return { ...s, multisigKLRki: k };
    });
    return { ...p, constructionData: { ...cd, sources } };
  });
  const enc = await encryptWithViewKey(m.backend, m.viewSecretKey, encodeMultisigTxSet({ ptx, signers: set.signers }), rng);
  return new Uint8Array(Buffer.concat([MULTISIG_TX_PREFIX, enc]));
}

/** parse_multisig_tx_from_str with its sanity checks (`transfers`: how many outputs this wallet has). */
export async function readMultisigSet(m: MultisigSigner, data: Bytes, transfers: number): Promise<MultisigTxSet> {
  if (data.length <= MULTISIG_TX_PREFIX.length || Buffer.compare(Buffer.from(data.subarray(0, MULTISIG_TX_PREFIX.length)), MULTISIG_TX_PREFIX) !== 0)
    throw new ColdError("bad_data", "Bad magic from multisig tx data: this is not a multisig_txset (or it was cut at the start)");
  const body = await decryptWithViewKey(m.backend, m.viewSecretKey, data.subarray(MULTISIG_TX_PREFIX.length), "the multisig tx set");
  const set = decodeMultisigTxSet(body);
  for (const [n, p] of set.ptx.entries()) {
    const vin = p.tx.vin.length;
    if (p.selectedTransfers.length !== vin) throw new ColdError("bad_data", `Mismatched selected_transfers/vin sizes in tx ${n}`);
    if (p.constructionData.selectedTransfers.length !== vin) throw new ColdError("bad_data", `Mismatched cd selected_transfers/vin sizes in tx ${n}`);
    for (const i of [...p.selectedTransfers, ...p.constructionData.selectedTransfers])
      if (i >= transfers) throw new ColdError("out_of_range", `Transfer index out of range in tx ${n} (${i}, this wallet has ${transfers} outputs): refresh, then try again`);
    if (p.constructionData.sources.length !== vin) throw new ColdError("bad_data", `Mismatched sources/vin sizes in tx ${n}`);
  }
  return set;
}

/** get_multisig_composite_kLRki: a fresh local nonce plus one unused L/R pair of every co-signer not ignored. */
function compositeNonce(m: MultisigSigner, out: MultisigOutput, ignore: readonly Bytes[], allUsedL: Set<string>, usedL: Bytes[], rng: RandomSource): { k: Bytes; L: Bytes; R: Bytes } {
  const b = m.backend;
  const k = randomScalar(b, rng);
  let L = b.scalarMultBase(k);
  let R = b.scalarMult(k, b.hashToEc(out.publicKey)) as Bytes;
  let used = 1;
  for (const p of out.infos) {
    if (ignore.some((s) => eqBytes(s, p.signer))) continue;
    for (const lr of p.lr) {
      if (allUsedL.has(hex(lr.L))) continue;
      allUsedL.add(hex(lr.L));
      usedL.push(lr.L);
      L = b.pointAdd(L, lr.L) as Bytes;
      R = b.pointAdd(R, lr.R) as Bytes;
      used++;
      break;
    }
  }
  if (used < m.threshold) throw new MultisigError("LR not found for enough participants: import fresh multisig infos from the other signers");
  return { k, L, R };
}

/** What the proposer adds to a built tx: the signing attempts with its partial responses (transfer_selected_rct's multisig part). */
export function proposeAttempts(m: MultisigSigner, built: MultisigBuilt, outputs: readonly MultisigOutput[], ignoreSets: readonly Bytes[][], rng: RandomSource = systemRandom): MultisigSig[] {
  const b = m.backend;
  const signingKeys = m.multisigKeys.map((k) => b.scalarMultBase(k));
  const allUsedL = new Set<string>();
  const cachedW = built.cachedW;
  if (!cachedW) throw new MultisigError("internal: a rebuilt tx cannot be proposed");
  return ignoreSets.map((ignore) => {
    const sig: MultisigSig = { ignore: [...ignore], usedL: [], signingKeys, totalAlphaG: [], totalAlphaH: [], c0: [], s: [] };
    built.sources.forEach((src, j) => {
      const out = outputs.find((o) => eqBytes(o.publicKey, src.outputs[src.realOutput].key));
      if (!out) throw new MultisigError("internal: an input's output is unknown");
      const nonces = Array.from({ length: MULTISIG_ALPHA_COMPONENTS }, () => compositeNonce(m, out, ignore, allUsedL, sig.usedL, rng));
      const G = nonces.map((x) => x.L);
      const H = nonces.map((x) => x.R);
      const ch = multisigClsagChallenge(b, built.contexts[j], G, H);
      sig.totalAlphaG.push(G);
      sig.totalAlphaH.push(H);
      sig.c0.push(ch.c0);
      sig.s.push(multisigPartialResponse(b, built.contexts[j], ch, nonces.map((x) => x.k), cachedW[j]));
    });
    return sig;
  });
}

/** The set's pending tx of a proposal (wallet2's ptx fields), the attempts already in it. */
export function proposalRecord(
  built: MultisigBuilt,
  sig: MultisigSig[],
  unsortedSources: TxConstructionData["sources"],
  selectedSorted: number[],
  cd: Omit<TxConstructionData, "sources" | "splittedDsts" | "selectedTransfers" | "extra">,
  fee: bigint,
): PendingTxRecord {
  return {
    tx: built.tx,
    dust: 0n,
    fee,
    dustAddedToFee: false,
    changeDts: cd.changeDts,
    selectedTransfers: selectedSorted,
    keyImages: built.tx.vin.map((v) => (v.type === "key" ? hex(v.keyImage) + " " : "")).join(""),
    txKey: built.txKey,
    additionalTxKeys: built.additionalTxKeys,
    dests: cd.dests,
    constructionData: { ...cd, sources: unsortedSources, splittedDsts: built.destinations, selectedTransfers: selectedSorted, extra: built.tx.extra },
    multisigTxKeyEntropy: built.entropy,
    multisigSigs: sig,
  };
}

export interface SignResult {
  set: MultisigTxSet;
  /** Ids of the txs this signature completed (as the last signer). */
  txids: string[];
  /** tx keys of completed txs, by id. */
  txKeys: { txid: string; txKey: Bytes; additionalTxKeys: Bytes[] }[];
}

/**
 * sign_multisig_tx. `nonces` maps an output key (hex) to the nonces this signer exported for it (hex,
 * "" once used); it is changed in place: every nonce used is blanked as it is taken, and at the end
 * every nonce of the outputs these txs spend (as wallet2). `outputKeyOf(i)` is transfer i's key.
 */
export function signMultisigSet(
  m: MultisigSigner,
  set: MultisigTxSet,
  nonces: Record<string, string[]>,
  outputKeyOf: (i: number) => string,
  /** Whether the wallet froze the output with this key image (hex); none when not given. */
  isFrozen: (keyImage: string) => boolean = () => false,
): SignResult {
  const b = m.backend;
  if (set.ptx.length === 0) throw new MultisigError("No tx found");
  const has = (xs: readonly Bytes[], k: Bytes) => xs.some((x) => eqBytes(x, k));
  if (has(set.signers, m.self)) throw new MultisigError("Transaction already signed by this private key");
  if (set.signers.length > m.threshold) throw new MultisigError("Transaction was signed by too many signers");
  if (set.signers.length === m.threshold) throw new MultisigError("Transaction is already fully signed");
  // wallet2::frozen(multisig_tx_set) (0.18.3.1 and later; 0.18.0.0 signed them): a peer cannot get
  // this wallet to spend an output its owner froze
  if (set.ptx.some((p) => p.constructionData.sources.some((src) => isFrozen(hex(kiOf(src)))))) throw new MultisigError("Will not sign multisig tx containing frozen outputs");
  for (const s of set.signers) if (!has(m.signers, s)) throw new MultisigError("The set was signed by a key outside this multisig group");
  const txids: string[] = [];
  const txKeys: SignResult["txKeys"] = [];
  const ptx: PendingTxRecord[] = [];
  {
    for (const [n, p0] of set.ptx.entries()) {
      const sigs = p0.multisigSigs ?? [];
      if (sigs.length === 0) throw new MultisigError("No signatures found in multisig tx");
      const cd = p0.constructionData;
      if (!cd.useRct || cd.bpVersion !== 4) throw new MultisigError(`tx ${n} is not a Bulletproof+ RingCT tx (bp version ${cd.bpVersion})`);
      const built = buildMultisigTx(b, m, {
        extra: cd.extra,
        unlockTime: cd.unlockTime,
        subaddrAccount: cd.subaddrAccount,
        subaddrIndices: cd.subaddrIndices,
        sources: cd.sources,
        destinations: cd.splittedDsts,
        change: cd.changeDts,
        reconstruct: { txKey: p0.txKey, additionalTxKeys: p0.additionalTxKeys, entropy: p0.multisigTxKeyEntropy, tx: p0.tx },
      });
      const ni = built.sources.length;
      const newSigs: MultisigSig[] = [];
      for (const sig of sigs) {
        if (has(sig.ignore, m.self)) {
          newSigs.push(sig);
          continue;
        }
        if (sig.totalAlphaG.length !== ni || sig.totalAlphaH.length !== ni || sig.c0.length !== ni || sig.s.length !== ni)
          throw new MultisigError(`tx ${n}: a signing attempt does not match the tx's ${ni} inputs`);
        const usedL = new Set(sig.usedL.map(hex));
        const signingKeys = [...sig.signingKeys];
        let skey: Bytes = new Uint8Array(32);
        for (const k of m.multisigKeys) {
          const pk = b.scalarMultBase(k);
          if (!has(signingKeys, pk)) {
            skey = b.scAdd(skey, k);
            signingKeys.push(pk);
          }
        }
        const c0: Bytes[] = [];
        const s: Bytes[] = [];
        for (let i = 0; i < ni; i++) {
          const key = outputKeyOf(cd.selectedTransfers[i]);
          const mine = nonces[key] ?? [];
          const alpha: Bytes[] = [];
          for (let j = 0; j < MULTISIG_ALPHA_COMPONENTS; j++) {
            const at = mine.findIndex((k) => k !== "" && usedL.has(hex(b.scalarMultBase(unhex(k)))));
            if (at < 0) throw new MultisigError("This signature was made with stale data: export fresh multisig data, which other participants must then use");
            alpha.push(unhex(mine[at]));
            mine[at] = ""; // a nonce is used once, whatever happens next
          }
          const ch = multisigClsagChallenge(b, built.contexts[i], sig.totalAlphaG[i], sig.totalAlphaH[i]);
          c0.push(ch.c0);
          s.push(multisigPartialResponse(b, built.contexts[i], ch, alpha, multisigSignerWeight(b, built.contexts[i], skey), sig.s[i]));
        }
        newSigs.push({ ...sig, signingKeys, c0, s });
      }
      let tx = built.tx;
      if (set.signers.length + 1 >= m.threshold) {
        const final = newSigs.filter((sg) => !has(sg.ignore, m.self) && !sg.ignore.some((x) => has(set.signers, x)));
        if (final.length > 1) throw new MultisigError("More than one transaction is final");
        if (final.length === 0) throw new MultisigError("Unable to finalize the transaction: the ignore sets for these tx attempts seem to be malformed.");
        tx = finalizeMultisigTx(built.tx, built.sources, final[0].c0, final[0].s);
        const id = hex(txHash(tx, b));
        txids.push(id);
        txKeys.push({ txid: id, txKey: built.txKey, additionalTxKeys: built.additionalTxKeys });
      }
      ptx.push({ ...p0, tx, multisigSigs: newSigs, constructionData: { ...cd, sources: built.sources } });
    }
  }
  // signatures made: the nonces of every output these txs spend are gone (wallet2 wipes m_multisig_k);
  // on a failure only the nonces already taken are (blanked where they were found)
  for (const p of set.ptx) for (const i of p.constructionData.selectedTransfers) delete nonces[outputKeyOf(i)];
  return { set: { ptx, signers: [...set.signers, m.self] }, txids, txKeys };
}

/** The tx of a fully signed set as the node takes it. */
export function signedBlob(p: PendingTxRecord): Bytes {
  return serializeTransaction(p.tx);
}

export { kiOf };
