/**
 * Multisig key-exchange messages in wallet2's text format (src/multisig/multisig_kex_msg.cpp
 * v0.18.0.0): "MultisigxV2R1" + base58(binary_archive{msg_privkey, signing_pubkey, signature}) for
 * round 1, "MultisigxV2Rn" + base58(binary_archive{varint round, vector msg_pubkeys, signing_pubkey,
 * signature}) for later rounds. The signature (crypto::generate_signature by the signer's base key)
 * covers keccak(magic ‖ u32le round ‖ signing_pubkey ‖ msg_privkey | msg_pubkeys), so a message
 * cannot be moved to another round, and no field can be changed without the signer's key.
 */
import { BaseError } from "../../base/errors.js";
import { Base58Error, base58Decode, base58Encode } from "../../codec/base58.js";
import { FormatError, Reader } from "../../codec/reader.js";
import { Writer } from "../../codec/writer.js";
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { generateSignature } from "../../crypto/keys.js";

export const KEX_V1_MAGIC = "MultisigV1";
export const KEX_MSG_V1_MAGIC = "MultisigxV1";
export const KEX_MSG_V2_MAGIC_1 = "MultisigxV2R1";
export const KEX_MSG_V2_MAGIC_N = "MultisigxV2Rn";

/**
 * A multisig message, info or txset that wallet2 would refuse too; the message says what was wrong.
 * One kind: every refusal is wallet2's multisig error (wallet/rpc maps it by method, as
 * monero-wallet-rpc's handlers do); no RPC code here.
 */
export class MultisigError extends BaseError<"multisig"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("multisig", message, options);
    this.name = "MultisigError";
  }
}

/** A parsed and verified kex message (multisig_kex_msg). */
export interface KexMsg {
  readonly round: number;
  readonly signingPubkey: Bytes;
  /** Round 1 only: the sender's share of the common (view) key. */
  readonly msgPrivkey: Bytes | null;
  /** Rounds > 1: the keys the sender recommends. */
  readonly msgPubkeys: readonly Bytes[];
  /** The text as received (or made). */
  readonly text: string;
}

const ascii = (s: string): Bytes => new TextEncoder().encode(s);
const IDENTITY = new Uint8Array(32);
IDENTITY[0] = 1;
/** ℓ, little-endian: the prime order of the main subgroup. */
const L_BYTES = Uint8Array.from(Buffer.from("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010", "hex"));

export const eqBytes = (a: Bytes, b: Bytes): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
export const isIdentity = (p: Bytes): boolean => eqBytes(p, IDENTITY);
export const identityKey = (): Bytes => IDENTITY.slice();

/** rct::isInMainSubgroup and not the identity nor the null key: a usable public key. */
export function isGoodPubkey(b: CryptoBackend, p: Bytes): boolean {
  if (p.length !== 32 || p.every((x) => x === 0) || isIdentity(p)) return false;
  if (!b.pointCheck(p)) return false;
  const lp = b.scalarMult(L_BYTES, p);
  return lp !== null && isIdentity(lp);
}

/** get_msg_to_sign: keccak(magic ‖ round ‖ signing pubkey ‖ privkey (round 1) or pubkeys). */
function msgToSign(b: CryptoBackend, round: number, signingPubkey: Bytes, msgPrivkey: Bytes | null, msgPubkeys: readonly Bytes[]): Bytes {
  const w = new Writer(64 + 32 * msgPubkeys.length);
  w.bytes(ascii(round === 1 ? KEX_MSG_V2_MAGIC_1 : KEX_MSG_V2_MAGIC_N));
  w.u32le(round);
  w.bytes(signingPubkey);
  if (round === 1) w.bytes(msgPrivkey ?? new Uint8Array(32));
  else for (const k of msgPubkeys) w.bytes(k);
  return b.keccak256(w.finish());
}

/**
 * Makes a signed kex message (multisig_kex_msg's first constructor): round 1 carries `msgPrivkey`,
 * later rounds `msgPubkeys`.
 */
export function makeKexMsg(b: CryptoBackend, round: number, signingPrivkey: Bytes, msgPubkeys: readonly Bytes[], msgPrivkey: Bytes | null = null): string {
  if (round < 1) throw new MultisigError("Kex round must be > 0.");
  if (!b.scCheck(signingPrivkey) || !b.scIsNonZero(signingPrivkey)) throw new MultisigError("Invalid msg signing key.");
  if (round === 1 && (msgPrivkey === null || !b.scCheck(msgPrivkey) || !b.scIsNonZero(msgPrivkey))) throw new MultisigError("Invalid msg privkey.");
  if (round > 1) for (const k of msgPubkeys) if (!isGoodPubkey(b, k)) throw new MultisigError("Pubkey for message was invalid.");
  const signingPubkey = b.scalarMultBase(signingPrivkey);
  const sig = generateSignature(b, msgToSign(b, round, signingPubkey, msgPrivkey, msgPubkeys), signingPubkey, signingPrivkey);
  const w = new Writer(256);
  if (round === 1) {
    w.bytes(msgPrivkey as Bytes).bytes(signingPubkey).bytes(sig);
    return KEX_MSG_V2_MAGIC_1 + base58Encode(w.finish());
  }
  w.varint(round).varint(msgPubkeys.length);
  for (const k of msgPubkeys) w.bytes(k);
  w.bytes(signingPubkey).bytes(sig);
  return KEX_MSG_V2_MAGIC_N + base58Encode(w.finish());
}

/** Parses and verifies a kex message (parse_and_validate_msg); MultisigError says what is wrong. */
export function parseKexMsg(b: CryptoBackend, text: string): KexMsg {
  if (typeof text !== "string" || text.length === 0) throw new MultisigError("Kex message unexpectedly empty.");
  if (text.startsWith(KEX_V1_MAGIC) || text.startsWith(KEX_MSG_V1_MAGIC))
    throw new MultisigError("V1 multisig kex messages are deprecated (unsafe): every participant must use a 0.18 wallet and start again from prepare_multisig");
  const first = text.startsWith(KEX_MSG_V2_MAGIC_1);
  if (!first && !text.startsWith(KEX_MSG_V2_MAGIC_N)) throw new MultisigError("Only v2 multisig kex messages are supported (they begin with MultisigxV2R1 or MultisigxV2Rn).");
  let raw: Bytes;
  try {
    raw = base58Decode(text.slice(KEX_MSG_V2_MAGIC_1.length));
  } catch (e) {
    if (e instanceof Base58Error) throw new MultisigError("Multisig kex msg decoding error: the message was cut or altered; copy it again whole");
    throw e;
  }
  let round: number;
  let msgPrivkey: Bytes | null = null;
  let msgPubkeys: Bytes[] = [];
  let signingPubkey: Bytes;
  let sig: Bytes;
  try {
    const r = new Reader(raw);
    if (first) {
      round = 1;
      msgPrivkey = r.key("msg privkey");
    } else {
      round = r.varintNumber("kex round", 0xffffffff);
      const n = r.count("msg pubkeys", 32);
      for (let i = 0; i < n; i++) msgPubkeys.push(r.key("msg pubkey"));
    }
    signingPubkey = r.key("signing pubkey");
    sig = r.bytes(64, "signature");
    r.expectEnd("kex message");
  } catch (e) {
    if (e instanceof FormatError) throw new MultisigError(`Deserializing kex msg failed (${e.message}): the message was cut or altered; copy it again whole`);
    throw e;
  }
  if (!first && round <= 1) throw new MultisigError("Invalid kex message round (must be > 1 for the general msg type).");
  for (const k of msgPubkeys) if (!isGoodPubkey(b, k)) throw new MultisigError("Pubkey from message was invalid or not in the prime subgroup.");
  if (!isGoodPubkey(b, signingPubkey)) throw new MultisigError("Message signing key was invalid or not in the prime subgroup.");
  if (!b.checkSignature(msgToSign(b, round, signingPubkey, msgPrivkey, msgPubkeys), signingPubkey, sig))
    throw new MultisigError("Multisig kex msg signature invalid: the message was altered, or was not made by its signer");
  msgPubkeys = msgPubkeys.map((k) => k.slice());
  return { round, signingPubkey, msgPrivkey, msgPubkeys, text };
}
