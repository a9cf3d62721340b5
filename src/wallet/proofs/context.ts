/**
 * What the proofs need of an open wallet, and the secrets of its outputs
 * (cryptonote::generate_key_image_helper as wallet2 uses it for spend and reserve proofs).
 */
import type { NodeApi } from "../../client/node-client.js";
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import type { RandomSource } from "../../crypto/random.js";
import type { AccountKeys } from "../keys/account.js";
import type { SubaddressDeriver, SubaddressIndex } from "../keys/subaddress.js";
import type { Ledger, TransferDetails } from "../ledger/ledger.js";
import { internal } from "./errors.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";
export { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";

export interface ProofWallet {
  readonly backend: CryptoBackend;
  readonly keys: AccountKeys;
  readonly ledger: Ledger;
  readonly deriver: SubaddressDeriver;
  /** The daemon, or null when the service runs offline. */
  readonly node: NodeApi | null;
  /** Which of this wallet's subaddresses (lookahead included: wallet2's m_subaddresses) has this spend key. */
  subaddressIndexOf(spendPublicKey: Bytes): SubaddressIndex | null;
  /** Nonces; the OS CSPRNG when absent. */
  readonly rng?: RandomSource;
}

/**
 * The key derivation of a shared secret D, as wallet2 takes it: generate_key_derivation(D, rct::I),
 * i.e. 8·(1·D) — computed as 8·D (a cofactor multiplication, not a scalar multiplication by 1).
 * Null when D does not decompress.
 */
export function derivationOf(b: CryptoBackend, D: Bytes): Bytes | null {
  return b.pointMul8(D);
}

/** keccak(a ‖ b ‖ …). */
export function hashOf(b: CryptoBackend, ...parts: Bytes[]): Bytes {
  const buf = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    buf.set(p, o);
    o += p.length;
  }
  return b.keccak256(buf);
}

/**
 * The one-time key pair of an owned output: x = Hs(8·a·R ‖ i) + b (+ m for a subaddress), with R the
 * tx public key that opened it. Checks x·G against the stored output key (wallet2:
 * "Derived public key doesn't agree with the stored one").
 */
export function outputKeyPair(w: ProofWallet, td: TransferDetails): { sec: Bytes; pub: Bytes } {
  const b = w.backend;
  const spend = w.keys.spendSecretKey;
  if (!spend) throw internal("Failed to generate key image", "the wallet is view-only");
  if (!td.txPubKey) throw internal("Failed to generate key image", `the wallet's record of output ${td.txid}:${td.internalIndex} predates this version; run rescan_blockchain once`);
  const derivation = b.generateKeyDerivation(unhex(td.txPubKey), w.keys.viewSecretKey);
  if (!derivation) throw internal("Failed to generate key image", `bad tx public key on output ${td.txid}:${td.internalIndex}`);
  let sec = b.deriveSecretKey(derivation, td.internalIndex, spend);
  if (td.subaddress.major !== 0 || td.subaddress.minor !== 0) sec = b.scAdd(sec, w.deriver.secretKey(td.subaddress.major, td.subaddress.minor));
  const pub = b.scalarMultBase(sec);
  if (hex(pub) !== td.publicKey) throw internal("Derived public key doesn't agree with the stored one", `output ${td.txid}:${td.internalIndex}; run rescan_blockchain`);
  return { sec, pub };
}
