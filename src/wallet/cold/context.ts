/**
 * What the export, import and signing operations need from an open wallet: its keys, subaddresses
 * and ledger, and a node when one is set (an offline signing wallet has none). The open wallet
 * runs each operation with the ledger held still (OpenWallet.exclusive).
 */
import type { NodeApi } from "../../client/node-client.js";
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import type { Network } from "../../protocol/network.js";
import type { AccountKeys } from "../keys/account.js";
import type { SubaddressDeriver, SubaddressIndex } from "../keys/subaddress.js";
import type { Ledger } from "../ledger/ledger.js";
import { bytesToHex as hex } from "../../base/bytes.js";

export interface ColdContext {
  readonly node: NodeApi | null;
  readonly ledger: Ledger;
  readonly keys: AccountKeys;
  readonly deriver: SubaddressDeriver;
  readonly network: Network;
  readonly backend: CryptoBackend;
  /** Seconds since the epoch. */
  readonly now: bigint;
  address(index: SubaddressIndex): string;
  subaddressIndexOf(spendPublicKey: Bytes): SubaddressIndex | null;
}

/** An output opened with the wallet's keys. */
export interface OpenedOutput {
  subaddress: SubaddressIndex;
  derivation: Bytes;
  /** The tx public key whose derivation opened it (main, or the additional one at its index). */
  txPubKey: Bytes;
  /** x with x·G = the output key; null in a view-only wallet. */
  secretKey: Bytes | null;
  /** null in a view-only wallet. */
  keyImage: Bytes | null;
}

/**
 * generate_key_image_helper: finds which of the wallet's subaddresses an output pays, through the
 * main tx key's derivation first and then the additional key at the output's index, and (with the
 * spend key) its one-time secret key and key image. null when the output is not the wallet's.
 */
export function openOutput(ctx: ColdContext, outKey: Bytes, txPubKey: Bytes, additional: readonly Bytes[], index: number): OpenedOutput | null {
  const b = ctx.backend;
  const candidates = [txPubKey];
  if (additional.length > index) candidates.push(additional[index]);
  for (const pub of candidates) {
    const derivation = b.generateKeyDerivation(pub, ctx.keys.viewSecretKey);
    if (!derivation) continue;
    const spendPub = b.deriveSubaddressPublicKey(outKey, derivation, index);
    if (!spendPub) continue;
    const sub = ctx.subaddressIndexOf(spendPub);
    if (!sub) continue;
    const spend = ctx.keys.spendSecretKey;
    if (!spend) return { subaddress: sub, derivation, txPubKey: pub, secretKey: null, keyImage: null };
    let x = b.deriveSecretKey(derivation, index, spend);
    if (sub.major !== 0 || sub.minor !== 0) x = b.scAdd(x, ctx.deriver.secretKey(sub.major, sub.minor));
    if (hex(b.scalarMultBase(x)) !== hex(outKey)) return null;
    return { subaddress: sub, derivation, txPubKey: pub, secretKey: x, keyImage: b.generateKeyImage(outKey, x) };
  }
  return null;
}
