/**
 * Reserve proofs (wallet2::get_reserve_proof, wallet2::check_reserve_proof): that an address owns
 * unspent outputs worth at least some amount.
 *
 * "ReserveProofV2" + base58 of wallet2's binary archive of
 *   vector<reserve_proof_entry>: varint n, then per output: varint version (0), txid (32),
 *     varint index_in_tx, shared secret a·R (32), key image (32), tx proof of the shared secret (64),
 *     ring signature of the key image over the output key alone (64);
 *   serializable_unordered_map<public_key, signature>: varint n, then per pair varint 2 (a pair is
 *     an array of two), subaddress spend key (32), signature with its secret (64) —
 * all signatures over keccak(message ‖ spend pub ‖ view pub ‖ key images). The map holds the
 * primary address and every subaddress that received a proved output. ReserveProofV1 (older
 * wallets) is the same archive with V1 tx proofs.
 */
import type { Bytes } from "../../crypto/backend.js";
import { generateSignature, generateRingSignature } from "../../crypto/keys.js";
import { checkTxProof, generateTxProof, type TxProofVersion } from "../../crypto/proofs.js";
import { base58Decode, base58Encode } from "../../codec/base58.js";
import { FormatError, Reader } from "../../codec/reader.js";
import { Writer } from "../../codec/writer.js";
import { extraAdditionalPubKeys, extraTxPubKey, parseTxExtra } from "../../protocol/extra.js";
import { RCT_TYPE, rctCompactEcdh } from "../../protocol/rct.js";
import { decodeLegacyEcdh, decryptAmount } from "../../crypto/ringct/amounts.js";
import type { TransferDetails } from "../ledger/ledger.js";
import { derivationOf, hashOf, hex, outputKeyPair, type ProofWallet, unhex } from "./context.js";
import { checkConnection, fetchTxEntries, keyImagesSpent, readTx } from "./daemon.js";
import { internal } from "./errors.js";
import { outputKey } from "./received.js";

/** wallet2::reserve_proof_entry. */
export interface ReserveProofEntry {
  txid: Bytes;
  indexInTx: bigint;
  sharedSecret: Bytes;
  keyImage: Bytes;
  sharedSecretSig: Bytes;
  keyImageSig: Bytes;
}

export interface ReserveProof {
  version: TxProofVersion;
  entries: ReserveProofEntry[];
  /** Subaddress spend key (hex) → signature, in the archive's order; a repeated key keeps its first signature (unordered_map::insert). */
  spendKeys: Map<string, Bytes>;
}

const HEADERS = { ReserveProofV1: 1, ReserveProofV2: 2 } as const;
const HEADER_LEN = 14;

/** The binary archive wallet2 writes (both containers, no trailing bytes). */
export function encodeReserveProof(p: ReserveProof): string {
  const w = new Writer(256 + p.entries.length * 240);
  w.varint(p.entries.length);
  for (const e of p.entries) {
    w.varint(0).bytes(e.txid).varint(e.indexInTx).bytes(e.sharedSecret).bytes(e.keyImage).bytes(e.sharedSecretSig).bytes(e.keyImageSig);
  }
  w.varint(p.spendKeys.size);
  for (const [k, sig] of p.spendKeys) w.varint(2).bytes(unhex(k)).bytes(sig);
  return (p.version === 2 ? "ReserveProofV2" : "ReserveProofV1") + base58Encode(w.finish());
}

/**
 * Reads a reserve proof string. Null header → "Signature header check error"; a body that does not
 * decode (truncated, altered, or with bytes after the archive) → a ProofError saying so.
 */
export function decodeReserveProof(signature: string): ReserveProof {
  const header = signature.slice(0, HEADER_LEN);
  if (!Object.hasOwn(HEADERS, header))
    throw internal("Signature header check error", "a reserve proof starts with ReserveProofV2 (ReserveProofV1 from older wallets); pass the whole string get_reserve_proof answered");
  const version = HEADERS[header as keyof typeof HEADERS];
  let raw: Bytes;
  try {
    raw = base58Decode(signature.slice(HEADER_LEN));
  } catch (e) {
    throw internal("Signature decoding error", `${e instanceof Error ? e.message : String(e)}; the proof was altered, pass the string get_reserve_proof answered`);
  }
  try {
    const r = new Reader(raw);
    const n = r.varintNumber("entries count", raw.length);
    const entries: ReserveProofEntry[] = [];
    for (let i = 0; i < n; i++) {
      const what = `entry ${i}`;
      r.varintNumber(`${what} version`, 0xffffffff); // VERSION_FIELD(0): read, not checked
      entries.push({
        txid: r.bytes(32, `${what} txid`),
        indexInTx: r.varint(`${what} index_in_tx`),
        sharedSecret: r.bytes(32, `${what} shared secret`),
        keyImage: r.bytes(32, `${what} key image`),
        sharedSecretSig: r.bytes(64, `${what} shared secret signature`),
        keyImageSig: r.bytes(64, `${what} key image signature`),
      });
    }
    const m = r.varintNumber("spend keys count", raw.length);
    const spendKeys = new Map<string, Bytes>();
    for (let i = 0; i < m; i++) {
      if (r.varint(`spend key ${i} pair size`) !== 2n) r.fail(`spend key ${i}`, "a map entry is not a pair");
      const k = hex(r.bytes(32, `spend key ${i}`));
      const sig = r.bytes(64, `spend key ${i} signature`);
      if (!spendKeys.has(k)) spendKeys.set(k, sig);
    }
    if (!r.atEnd) r.fail("reserve proof", `${r.remaining} bytes after the proof`);
    return { version, entries, spendKeys };
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    throw internal(
      "The given address isn't found in the proof",
      `the proof does not decode (${e.message}): it was cut or altered; pass the whole string get_reserve_proof answered`,
    );
  }
}

export interface ReserveRequest {
  account: number;
  amount: bigint;
}

/**
 * wallet2::get_reserve_proof: every unspent, unfrozen output (`all`), or the fewest of one account's
 * largest ones that cover `amount`. Needs the spend key; no daemon (the outputs' records suffice).
 * `version` 1 makes ReserveProofV1 (for interoperability tests only).
 */
export function getReserveProof(w: ProofWallet, req: ReserveRequest | null, message: Bytes, version: TxProofVersion = 2): string {
  const b = w.backend;
  const spend = w.keys.spendSecretKey;
  if (!spend) throw internal("Reserve proof can only be generated by a full wallet", "this wallet is view-only; make the proof in the wallet that has the spend key");
  const transfers = w.ledger.state.transfers;
  // is_spent(td, strict = true): spent in a mined tx; outputs of a pending spend still count
  const unspent = (t: TransferDetails) => !(t.spent && t.spentHeight > 0) && !t.frozen;
  let all = 0n;
  let inAccount = 0n;
  for (const t of transfers) {
    if (!unspent(t)) continue;
    all += t.amount;
    if (req && t.subaddress.major === req.account) inAccount += t.amount;
  }
  if (all === 0n) throw internal("Zero balance", "the wallet has no unspent, unfrozen outputs to prove");
  if (req && inAccount < req.amount)
    throw internal("Not enough balance in this account for the requested minimum reserve amount", `account ${req.account} holds ${inAccount} (atomic units, frozen and spent outputs excluded); ask for less`);
  let selected = transfers.flatMap((t, i) => (unspent(t) && (!req || t.subaddress.major === req.account) ? [i] : []));
  if (req) {
    if (req.amount === 0n) throw internal("Proved amount must be greater than 0", "give amount in atomic units, or all: true");
    selected.sort((x, y) => (transfers[x].amount > transfers[y].amount ? -1 : transfers[x].amount < transfers[y].amount ? 1 : 0));
    while (selected.length >= 2 && transfers[selected[1]].amount >= req.amount) selected.shift();
    let total = 0n;
    let n = 0;
    while (total < req.amount) total += transfers[selected[n++]].amount;
    selected = selected.slice(0, n);
  }
  const keys = w.keys;
  const tds = selected.map((i) => transfers[i]);
  for (const td of tds) if (td.keyImage === "") throw internal("Failed to generate key image", `output ${td.txid}:${td.internalIndex} has no key image; run rescan_blockchain`);
  const prefixHash = hashOf(b, message, keys.spendPublicKey, keys.viewPublicKey, ...tds.map((td) => unhex(td.keyImage)));
  const subaddrs = new Map<string, { major: number; minor: number }>([["0/0", { major: 0, minor: 0 }]]);
  const entries = tds.map((td): ReserveProofEntry => {
    subaddrs.set(`${td.subaddress.major}/${td.subaddress.minor}`, td.subaddress);
    if (!td.txPubKey) throw internal("The tx public key isn't found", `the wallet's record of output ${td.txid}:${td.internalIndex} predates this version; run rescan_blockchain once`);
    const R = unhex(td.txPubKey);
    const sharedSecret = b.scalarMult(keys.viewSecretKey, R);
    if (!sharedSecret) throw internal("Failed to generate key derivation");
    const sharedSecretSig = generateTxProof(b, { prefixHash, R: keys.viewPublicKey, A: R, B: null, D: sharedSecret }, keys.viewSecretKey, w.rng, version);
    const eph = outputKeyPair(w, td);
    const keyImage = unhex(td.keyImage);
    const keyImageSig = generateRingSignature(b, prefixHash, keyImage, eph.pub, eph.sec, 0, w.rng);
    return { txid: unhex(td.txid), indexInTx: BigInt(td.internalIndex), sharedSecret, keyImage, sharedSecretSig, keyImageSig };
  });
  const spendKeys = new Map<string, Bytes>();
  for (const s of subaddrs.values()) {
    const sec = s.major === 0 && s.minor === 0 ? spend : b.scAdd(spend, w.deriver.secretKey(s.major, s.minor));
    const pub = b.scalarMultBase(sec);
    spendKeys.set(hex(pub), generateSignature(b, prefixHash, pub, sec, w.rng));
  }
  return encodeReserveProof({ version, entries, spendKeys });
}

export interface CheckReserveResult {
  good: boolean;
  /** What the proved outputs hold; when not good, the sum up to the output that failed (as wallet2 leaves it). */
  total: bigint;
  /** The part of total whose key images the daemon reports spent (in the chain or the pool). */
  spent: bigint;
}

/** wallet2::check_reserve_proof against the daemon. `address` must be a standard address. */
export async function checkReserveProof(w: ProofWallet, address: { spendPublicKey: Bytes; viewPublicKey: Bytes }, message: Bytes, signature: string): Promise<CheckReserveResult> {
  const b = w.backend;
  const node = await checkConnection(w.node);
  const proof = decodeReserveProof(signature);
  if (!proof.spendKeys.has(hex(address.spendPublicKey)))
    throw internal("The given address isn't found in the proof", "the proof was made by another wallet (or for a subaddress); check the address and the proof");
  const prefixHash = hashOf(b, message, address.spendPublicKey, address.viewPublicKey, ...proof.entries.map((e) => e.keyImage));
  const words = { fail: "Failed to get transaction from daemon", count: () => "Failed to get transaction from daemon", parse: "Failed to parse transaction from daemon" };
  const entries = await fetchTxEntries(node, proof.entries.map((e) => hex(e.txid)), words);
  const spentStatus = proof.entries.length === 0 ? [] : await keyImagesSpent(node, proof.entries.map((e) => hex(e.keyImage)));
  let total = 0n;
  let spent = 0n;
  for (const [i, p] of proof.entries.entries()) {
    if (entries[i].in_pool) throw internal("Tx is unconfirmed", `transaction ${hex(p.txid)} of the proof is still in the pool; check again once it is mined`);
    const { tx, hash } = readTx(b, entries[i], words.parse);
    if (hash !== hex(p.txid)) throw internal("Failed to get the right transaction from daemon", "its answer hashes to another txid; check the daemon");
    if (p.indexInTx >= BigInt(tx.vout.length)) throw internal("index_in_tx is out of bound", `transaction ${hash} has ${tx.vout.length} outputs; the proof was altered`);
    const n = Number(p.indexInTx);
    const outKey = outputKey(tx.vout[n]);
    if (!outKey) throw internal("Output key wasn't found", `output ${n} of ${hash} is not a key output`);
    const fields = parseTxExtra(tx.extra).fields;
    const txPub = extraTxPubKey(fields);
    if (!txPub) throw internal("The tx public key isn't found", `transaction ${hash} has no tx public key`);
    const additional = extraAdditionalPubKeys(fields);
    let ok = checkTxProof(b, { prefixHash, R: address.viewPublicKey, A: txPub, B: null, D: p.sharedSecret }, p.sharedSecretSig, proof.version);
    if (!ok && additional.length === tx.vout.length)
      ok = checkTxProof(b, { prefixHash, R: address.viewPublicKey, A: additional[n], B: null, D: p.sharedSecret }, p.sharedSecretSig, proof.version);
    if (!ok) return { good: false, total, spent };
    if (!b.checkRingSignature(prefixHash, p.keyImage, outKey, p.keyImageSig)) return { good: false, total, spent };
    const derivation = derivationOf(b, p.sharedSecret);
    if (!derivation) throw internal("Failed to generate key derivation");
    const spendKey = b.deriveSubaddressPublicKey(outKey, derivation, n);
    if (!spendKey) throw internal("Failed to derive subaddress public key");
    if (!proof.spendKeys.has(hex(spendKey)))
      throw internal("The address doesn't seem to have received the fund", `output ${n} of ${hash} is not the address's; the proof was altered or made for another wallet`);
    let amount = tx.vout[n].amount;
    if (amount === 0n && tx.rct && tx.rct.type !== RCT_TYPE.Null && tx.rct.ecdhInfo[n]) {
      // decoded as wallet2 does here: no check against the commitment
      const s = b.derivationToScalar(derivation, n);
      const e = tx.rct.ecdhInfo[n];
      amount = rctCompactEcdh(tx.rct.type) ? decryptAmount(b, s, e.amount) : decodeLegacyEcdh(b, s, e.mask ?? new Uint8Array(32), e.amount).amount;
    }
    total += amount;
    if (spentStatus[i] !== 0) spent += amount;
  }
  for (const [k, sig] of proof.spendKeys) if (!b.checkSignature(prefixHash, unhex(k), sig)) return { good: false, total, spent };
  return { good: true, total, spent };
}
