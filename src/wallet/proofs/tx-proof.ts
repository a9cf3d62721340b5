/**
 * Tx proofs (wallet2::get_tx_proof, wallet2::check_tx_proof): that a transaction paid an address.
 *
 * OutProofV2 (made by the sender, with the tx keys it kept: for each tx key r, D = r·A and a proof
 * that R = r·G, or r·B for a subaddress) and InProofV2 (made by the recipient with its view key a:
 * for each tx public key R, D = a·R and a proof that A = a·G, or a·B). The string is the header then,
 * per tx public key (main first, then the additional ones), base58(D) (44 characters) and
 * base58(c ‖ s) (88 characters). The checker rebuilds what the address received from the shared
 * secrets whose proof holds. OutProofV1 / InProofV1 (older wallets: no domain separation in the
 * challenge) verify too.
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { checkTxProof, generateTxProof, TxProofInputError, type TxProofStatement, type TxProofVersion } from "../../crypto/proofs.js";
import { base58Decode, base58Encode } from "../../codec/base58.js";
import { extraAdditionalPubKeys, extraTxPubKey, parseTxExtra } from "../../protocol/extra.js";
import type { Transaction } from "../../protocol/tx.js";
import { derivationOf, hashOf, type ProofWallet, unhex } from "./context.js";
import { chainHeight, type FetchWords, fetchTx, needNode } from "./daemon.js";
import { internal } from "./errors.js";
import { receivedBy } from "./received.js";

/** An address as the proofs need it (cryptonote::address_parse_info). */
export interface ProofAddress {
  readonly spendPublicKey: Bytes;
  readonly viewPublicKey: Bytes;
  readonly isSubaddress: boolean;
}

const PK_LEN = 44; // base58 of 32 bytes
const SIG_LEN = 88; // base58 of 64 bytes
const HEADERS: Record<string, { out: boolean; version: TxProofVersion }> = {
  OutProofV2: { out: true, version: 2 },
  InProofV2: { out: false, version: 2 },
  OutProofV1: { out: true, version: 1 },
  InProofV1: { out: false, version: 1 },
};

const TX_WORDS: FetchWords = {
  fail: "Failed to get transaction from daemon",
  count: () => "Failed to get transaction from daemon",
  parse: "Failed to parse transaction from daemon",
};

/** The tx public keys of a tx: the main one (null when absent) and the additional ones. */
function txPubKeys(tx: Transaction): { main: Bytes | null; additional: Bytes[] } {
  const fields = parseTxExtra(tx.extra).fields;
  return { main: extraTxPubKey(fields) ?? null, additional: extraAdditionalPubKeys(fields) };
}

function proofOf(b: CryptoBackend, st: TxProofStatement, r: Bytes, w: ProofWallet, version: TxProofVersion): Bytes {
  try {
    return generateTxProof(b, st, r, w.rng, version);
  } catch (e) {
    if (e instanceof TxProofInputError) throw internal(e.message, "the address's keys or the transaction's public keys are not valid points");
    throw e;
  }
}

/**
 * wallet2::get_tx_proof over a transaction already fetched: an OutProofV2 when the address is not
 * this wallet's (the tx keys must be stored: this wallet sent it), an InProofV2 when it is.
 * `version` 1 makes the V1 forms of older wallets (for interoperability tests only).
 */
export function makeTxProof(w: ProofWallet, tx: Transaction, txid: string, address: ProofAddress, message: Bytes, version: TxProofVersion = 2): string {
  const b = w.backend;
  const isOut = w.subaddressIndexOf(address.spendPublicKey) === null;
  const prefixHash = hashOf(b, unhex(txid), message);
  const B = address.isSubaddress ? address.spendPublicKey : null;
  const shared: Bytes[] = [];
  const sigs: Bytes[] = [];
  let header: string;
  if (isOut) {
    const k = w.ledger.txKeys(txid.toLowerCase());
    if (!k) throw internal("Tx secret key wasn't found in the wallet file.", "Only the wallet that sent the transaction has its tx keys; to prove a receipt, ask with one of this wallet's own addresses");
    for (const rHex of [k.txKey, ...k.additional]) {
      const r = unhex(rHex);
      const D = b.scalarMult(r, address.viewPublicKey);
      const R = B ? b.scalarMult(r, B) : b.scalarMultBase(r);
      if (!D || !R) throw internal("recipient view pubkey is invalid");
      shared.push(D);
      sigs.push(proofOf(b, { prefixHash, R, A: address.viewPublicKey, B, D }, r, w, version));
    }
    header = version === 2 ? "OutProofV2" : "OutProofV1";
  } else {
    const { main, additional } = txPubKeys(tx);
    if (!main) throw internal("Tx pubkey was not found", "the transaction has no tx public key in its extra");
    const a = w.keys.viewSecretKey;
    for (const R of [main, ...additional]) {
      const D = b.scalarMult(a, R);
      if (!D) throw internal("tx pubkey is invalid");
      shared.push(D);
      sigs.push(proofOf(b, { prefixHash, R: address.viewPublicKey, A: R, B, D }, a, w, version));
    }
    header = version === 2 ? "InProofV2" : "InProofV1";
  }
  // check that this address actually received something
  const derivations = shared.map((D) => derivationOf(b, D));
  if (derivations.some((d) => d === null)) throw internal("Failed to generate key derivation");
  const received = receivedBy(b, tx, derivations[0], derivations.slice(1), address.spendPublicKey);
  if (received === 0n) throw internal("No funds received in this tx.", "The address received nothing in this transaction (check the txid and the address)");
  return header + shared.map((D, i) => base58Encode(D) + base58Encode(sigs[i])).join("");
}

/**
 * wallet2::check_tx_proof over a transaction already fetched: good, and what the address received,
 * when at least one of the proof's signatures holds. Errors (a malformed string) throw ProofErrors
 * with wallet2's words; a well-formed proof that does not hold is simply not good.
 */
export function verifyTxProof(b: CryptoBackend, tx: Transaction, txid: string, address: ProofAddress, message: Bytes, signature: string): { good: boolean; received: bigint } {
  const headerText = signature.startsWith("Out") ? signature.slice(0, 10) : signature.slice(0, 9);
  const h = Object.hasOwn(HEADERS, headerText) ? HEADERS[headerText] : undefined;
  if (!h)
    throw internal("Signature header check error", "a tx proof starts with OutProofV2 or InProofV2 (OutProofV1/InProofV1 from older wallets); pass the whole string get_tx_proof answered");
  const body = signature.length - headerText.length;
  const n = Math.floor(body / (PK_LEN + SIG_LEN));
  if (body !== n * (PK_LEN + SIG_LEN))
    throw internal("Wrong signature size", `after ${headerText} a tx proof has ${PK_LEN + SIG_LEN} characters per tx public key, this one has ${body}; it was cut or altered, pass the whole string`);
  const shared: Bytes[] = [];
  const sigs: Bytes[] = [];
  for (let i = 0; i < n; i++) {
    const off = headerText.length + i * (PK_LEN + SIG_LEN);
    let D: Bytes;
    let s: Bytes;
    try {
      D = base58Decode(signature.slice(off, off + PK_LEN));
      s = base58Decode(signature.slice(off + PK_LEN, off + PK_LEN + SIG_LEN));
    } catch (e) {
      throw internal("Signature decoding error", `${e instanceof Error ? e.message : String(e)} in the proof; it was altered, pass the string get_tx_proof answered`);
    }
    if (D.length !== 32 || s.length !== 64) throw internal("Signature decoding error", "a part of the proof does not decode to a key and a signature; pass the string get_tx_proof answered");
    shared.push(D);
    sigs.push(s);
  }
  const { main, additional } = txPubKeys(tx);
  if (!main) throw internal("Tx pubkey was not found", "the transaction has no tx public key in its extra");
  if (additional.length + 1 !== n)
    throw internal("Signature size mismatch with additional tx pubkeys", `the proof has ${n} signature(s), the transaction ${additional.length + 1} tx public key(s): the proof is for another transaction, or was cut`);
  const prefixHash = hashOf(b, unhex(txid), message);
  const B = address.isSubaddress ? address.spendPublicKey : null;
  const A = address.viewPublicKey;
  const good = [main, ...additional].map((R, i) => {
    const st: TxProofStatement = h.out ? { prefixHash, R, A, B, D: shared[i] } : { prefixHash, R: A, A: R, B, D: shared[i] };
    return checkTxProof(b, st, sigs[i], h.version);
  });
  if (!good.some(Boolean)) return { good: false, received: 0n };
  const derivation = (i: number): Bytes | null => {
    if (!good[i]) return null;
    const d = derivationOf(b, shared[i]);
    if (!d) throw internal("Failed to generate key derivation");
    return d;
  };
  const additionalDerivations = additional.map((_, i) => derivation(i + 1));
  return { good: true, received: receivedBy(b, tx, derivation(0), additionalDerivations, address.spendPublicKey) };
}

/** get_tx_proof: fetches the transaction from the daemon and proves it paid `address`. */
export async function getTxProof(w: ProofWallet, txid: string, address: ProofAddress, message: Bytes): Promise<string> {
  const node = needNode(w.node, TX_WORDS.fail);
  const t = await fetchTx(node, w.backend, txid, TX_WORDS, true);
  return makeTxProof(w, t.tx, txid.toLowerCase(), address, message);
}

export interface CheckTxProofResult {
  good: boolean;
  received: bigint;
  inPool: boolean;
  confirmations: bigint;
}

/** check_tx_proof: fetches the transaction and checks the proof; in_pool and confirmations as the daemon says. */
export async function checkTxProofOf(w: ProofWallet, txid: string, address: ProofAddress, message: Bytes, signature: string): Promise<CheckTxProofResult> {
  const node = needNode(w.node, TX_WORDS.fail);
  const t = await fetchTx(node, w.backend, txid, TX_WORDS, true);
  const r = verifyTxProof(w.backend, t.tx, txid.toLowerCase(), address, message, signature);
  if (!r.good) return { good: false, received: 0n, inPool: false, confirmations: 0n };
  let confirmations = 0n;
  if (!t.inPool) {
    const height = await chainHeight(node);
    if (height !== null && height > t.blockHeight) confirmations = height - t.blockHeight;
  }
  return { good: true, received: r.received, inPool: t.inPool, confirmations };
}
