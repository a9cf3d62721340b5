/**
 * Signed messages (wallet2::sign, wallet2::verify, get_message_hash).
 *
 * SigV2 = "SigV2" + base58(c ‖ r), a Schnorr signature (crypto::generate_signature) over
 *   keccak("MoneroMessageSignature\0" ‖ spend pub ‖ view pub ‖ mode ‖ varint(len) ‖ data),
 * mode 0 signing with the spend secret, 1 with the view secret, of the primary address or of a
 * subaddress (whose keys are b + m and a·(b + m)). SigV1 = "SigV1" + base58(c ‖ r) over keccak(data)
 * with the spend or the view key of the address, which wallets before v0.17 made; it still verifies.
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { generateSignature } from "../../crypto/keys.js";
import { type RandomSource, systemRandom } from "../../crypto/random.js";
import { base58Decode, base58Encode } from "../../codec/base58.js";
import { encodeVarint } from "../../codec/varint.js";
import type { AccountKeys } from "../keys/account.js";
import type { SubaddressDeriver, SubaddressIndex } from "../keys/subaddress.js";
import { ProofError } from "./errors.js";

export type SignatureType = "spend" | "view";

/** config::HASH_KEY_MESSAGE_SIGNING with its NUL. */
const DOMAIN = new TextEncoder().encode("MoneroMessageSignature\0");

/** get_message_hash. */
export function messageHash(b: CryptoBackend, data: Bytes, spendPublicKey: Bytes, viewPublicKey: Bytes, mode: 0 | 1): Bytes {
  const len = encodeVarint(data.length);
  const buf = new Uint8Array(DOMAIN.length + 65 + len.length + data.length);
  let o = 0;
  buf.set(DOMAIN, o);
  o += DOMAIN.length;
  buf.set(spendPublicKey, o);
  buf.set(viewPublicKey, o + 32);
  buf[o + 64] = mode;
  o += 65;
  buf.set(len, o);
  buf.set(data, o + len.length);
  return b.keccak256(buf);
}

/**
 * wallet2::sign: a SigV2 signature of `data` with the spend or view key of `index` (any index: no
 * bounds, as wallet2). A view-only wallet has no spend key, and no subaddress view secret either
 * (it is a·(b + m)): those requests throw a "watch_only" ProofError, where monero-wallet-rpc
 * aborts (the spend key case: generate_signature's assertion) or answers a signature no one accepts
 * (a subaddress's view key).
 */
export function signMessage(
  b: CryptoBackend,
  keys: AccountKeys,
  deriver: SubaddressDeriver,
  data: Bytes,
  type: SignatureType,
  index: SubaddressIndex,
  rng: RandomSource = systemRandom,
): string {
  const primary = index.major === 0 && index.minor === 0;
  const spend = keys.spendSecretKey;
  if (!spend && (type === "spend" || !primary)) {
    throw new ProofError(
      "watch_only",
      type === "spend"
        ? "command not supported by watch-only wallet: signing with the spend key needs the spend secret key, which a view-only wallet does not have; sign with signature_type \"view\" (primary address), or in the full wallet"
        : "command not supported by watch-only wallet: a subaddress's view secret key is a·(b + m) and needs the spend secret key; sign with the primary address (account_index 0, address_index 0), or in the full wallet",
    );
  }
  const mode = type === "spend" ? 0 : 1;
  let spendPub: Bytes;
  let viewPub: Bytes;
  let skey: Bytes;
  if (primary) {
    spendPub = keys.spendPublicKey;
    viewPub = keys.viewPublicKey;
    skey = type === "spend" ? (spend as Bytes) : keys.viewSecretKey;
  } else {
    const skeySpend = b.scAdd(spend as Bytes, deriver.secretKey(index.major, index.minor));
    const skeyView = b.scMul(keys.viewSecretKey, skeySpend);
    spendPub = b.scalarMultBase(skeySpend);
    viewPub = b.scalarMultBase(skeyView);
    skey = type === "spend" ? skeySpend : skeyView;
  }
  const hash = messageHash(b, data, spendPub, viewPub, mode);
  const sig = generateSignature(b, hash, type === "spend" ? spendPub : viewPub, skey, rng);
  return `SigV2${base58Encode(sig)}`;
}

/** wallet2::message_signature_result_t as monero-wallet-rpc answers it. */
export interface VerifyResult {
  good: boolean;
  /** 1 or 2; 0 when not good. */
  version: number;
  /** True for a good SigV1. */
  old: boolean;
  /** "spend" also when not good: wallet2's value-initialised result has sign_with_spend_key (0). */
  signatureType: SignatureType;
}

const BAD: VerifyResult = { good: false, version: 0, old: false, signatureType: "spend" };

/**
 * wallet2::verify: checks `signature` (SigV1 or SigV2) of `data` against the address's spend key,
 * then its view key. Never throws for a bad signature: the answer says not good (`why` says why,
 * for the log, as wallet2 logs "Signature header check error" / "Signature decoding error").
 */
export function verifyMessage(b: CryptoBackend, data: Bytes, address: { spendPublicKey: Bytes; viewPublicKey: Bytes }, signature: string): VerifyResult & { why?: string } {
  const v1 = signature.startsWith("SigV1");
  const v2 = signature.startsWith("SigV2");
  if (!v1 && !v2) return { ...BAD, why: "Signature header check error" };
  let sig: Bytes;
  try {
    sig = base58Decode(signature.slice(5));
  } catch {
    return { ...BAD, why: "Signature decoding error" };
  }
  if (sig.length !== 64) return { ...BAD, why: "Signature decoding error" };
  const version = v1 ? 1 : 2;
  const v1Hash = v1 ? b.keccak256(data) : null;
  for (const [mode, pub] of [[0, address.spendPublicKey], [1, address.viewPublicKey]] as const) {
    const hash = v1Hash ?? messageHash(b, data, address.spendPublicKey, address.viewPublicKey, mode);
    if (b.checkSignature(hash, pub, sig)) return { good: true, version, old: v1, signatureType: mode === 0 ? "spend" : "view" };
  }
  return { ...BAD, why: "signature does not match" };
}
