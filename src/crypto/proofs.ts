/**
 * Tx proofs (src/crypto/crypto.cpp: generate_tx_proof, generate_tx_proof_v1, check_tx_proof): a
 * Schnorr proof of knowledge of a scalar r over two bases at once,
 *
 *   R = r·G (or R = r·B when B is given)   and   D = r·A,
 *
 * which is how a wallet shows that a shared secret D is the one a tx key (out proofs) or a view key
 * (in proofs, reserve proofs) makes with a public key. The signature is c ‖ s (64 bytes) with
 *
 *   X = k·G (or k·B), Y = k·A, c = Hs(msg ‖ D ‖ X ‖ Y [‖ Hk("TXPROOF_V2") ‖ R ‖ A ‖ B-or-zero]), s = k − c·r,
 *
 * the bracketed part being version 2's domain separation (version 1 hashes the first four fields
 * only). Works on any backend; nonces come from a RandomSource, as everywhere in crypto/.
 */
import type { Bytes, CryptoBackend } from "./backend.js";
import { type RandomSource, randomScalar, systemRandom } from "./random.js";

/** The public statement of a tx proof. */
export interface TxProofStatement {
  /** The message hash (wallet2: keccak(txid ‖ message), or a reserve proof's prefix hash). */
  readonly prefixHash: Bytes;
  /** R = r·G, or r·B when `B` is given. */
  readonly R: Bytes;
  /** A, the second base: D = r·A. */
  readonly A: Bytes;
  /** B, the base of R for a subaddress; null for G. */
  readonly B: Bytes | null;
  /** D = r·A. */
  readonly D: Bytes;
}

/** The tx proof versions check_tx_proof knows (1: OutProofV1/InProofV1/ReserveProofV1; 2: the V2 forms). */
export type TxProofVersion = 1 | 2;

/** A statement point that does not decompress, found while proving (crypto.cpp throws std::runtime_error). */
export class TxProofInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TxProofInputError";
  }
}

const TXPROOF_V2 = new TextEncoder().encode("TXPROOF_V2");
const ZERO = new Uint8Array(32);
const sepCache = new WeakMap<CryptoBackend, Bytes>();

/** keccak("TXPROOF_V2") (config::HASH_KEY_TXPROOF_V2 without its NUL), once per backend. */
function separator(b: CryptoBackend): Bytes {
  let s = sepCache.get(b);
  if (!s) sepCache.set(b, (s = b.keccak256(TXPROOF_V2)));
  return s;
}

/** Hs of s_comm_2 (256 bytes) for version 2, or of its first 128 bytes (s_comm_2_v1) for version 1. */
function challenge(b: CryptoBackend, st: TxProofStatement, X: Bytes, Y: Bytes, version: TxProofVersion): Bytes {
  const buf = new Uint8Array(version === 2 ? 256 : 128);
  buf.set(st.prefixHash, 0);
  buf.set(st.D, 32);
  buf.set(X, 64);
  buf.set(Y, 96);
  if (version === 2) {
    buf.set(separator(b), 128);
    buf.set(st.R, 160);
    buf.set(st.A, 192);
    buf.set(st.B ?? ZERO, 224);
  }
  return b.hashToScalar(buf);
}

function checkLengths(st: TxProofStatement): void {
  for (const [k, v] of [["prefixHash", st.prefixHash], ["R", st.R], ["A", st.A], ["D", st.D], ["B", st.B ?? ZERO]] as const)
    if (v.length !== 32) throw new TypeError(`tx proof: ${k} must be 32 bytes`);
}

/**
 * A tx proof of `r` for `st` (generate_tx_proof for version 2; generate_tx_proof_v1 for version 1,
 * which Monero keeps for tests only: wallets since v0.17.2 make V2). Throws TxProofInputError with
 * crypto.cpp's words when R, A, B or D does not decompress. The caller vouches that R and D are
 * r's (crypto.cpp asserts it in debug builds only).
 */
export function generateTxProof(b: CryptoBackend, st: TxProofStatement, r: Bytes, rng: RandomSource = systemRandom, version: TxProofVersion = 2): Bytes {
  checkLengths(st);
  if (r.length !== 32) throw new TypeError("tx proof: r must be 32 bytes");
  if (!b.pointCheck(st.R)) throw new TxProofInputError("tx pubkey is invalid");
  if (!b.pointCheck(st.A)) throw new TxProofInputError("recipient view pubkey is invalid");
  if (st.B && !b.pointCheck(st.B)) throw new TxProofInputError("recipient spend pubkey is invalid");
  if (!b.pointCheck(st.D)) throw new TxProofInputError("key derivation is invalid");
  const k = randomScalar(b, rng);
  const X = st.B ? b.scalarMult(k, st.B) : b.scalarMultBase(k);
  const Y = b.scalarMult(k, st.A);
  if (!X || !Y) throw new TxProofInputError("recipient view pubkey is invalid"); // unreachable: both checked above
  const c = challenge(b, st, X, Y, version);
  const sig = new Uint8Array(64);
  sig.set(c, 0);
  sig.set(b.scMulSub(c, r, k), 32);
  k.fill(0);
  return sig;
}

/**
 * check_tx_proof: whether `sig` (c ‖ s) proves `st` under `version`. False for points that do not
 * decompress, non-canonical c or s, a wrong length, or an unknown version — never throws for bad
 * input.
 */
export function checkTxProof(b: CryptoBackend, st: TxProofStatement, sig: Bytes, version: number): boolean {
  if (version !== 1 && version !== 2) return false;
  if (sig.length !== 64) return false;
  checkLengths(st);
  if (!b.pointCheck(st.R) || !b.pointCheck(st.A) || !b.pointCheck(st.D)) return false;
  if (st.B && !b.pointCheck(st.B)) return false;
  const c = sig.subarray(0, 32);
  const s = sig.subarray(32, 64);
  if (!b.scCheck(c) || !b.scCheck(s)) return false;
  // X = c·R + s·B (or + s·G), Y = c·D + s·A
  const X = st.B ? b.doubleScalarMult(c, st.R, s, st.B) : b.doubleScalarMultBase(c, st.R, s);
  const Y = b.doubleScalarMult(c, st.D, s, st.A);
  if (!X || !Y) return false;
  const c2 = challenge(b, st, X, Y, version);
  let diff = 0;
  for (let i = 0; i < 32; i++) diff |= c2[i] ^ c[i];
  return diff === 0;
}
