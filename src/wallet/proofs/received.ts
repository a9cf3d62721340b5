/**
 * What an address received in a transaction, given the derivations a tx key, a tx proof or a view
 * key yields (wallet2::check_tx_key_helper and is_out_to_acc): outputs whose key derives from the
 * address's spend key under the main derivation or under the output's additional one (view tags
 * checked first), amounts decoded from ecdhInfo and counted only when they open the output's
 * commitment (a RingCT amount that does not is counted as 0, as wallet2 does).
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { commitmentMask, decodeLegacyEcdh, decryptAmount, H, amountToScalar } from "../../crypto/ringct/amounts.js";
import { RCT_TYPE, rctCompactEcdh } from "../../protocol/rct.js";
import type { Transaction, TxOut } from "../../protocol/tx.js";
import { internal } from "./errors.js";

/** The one-time key of an output (get_output_public_key), or null for script outputs. */
export function outputKey(out: TxOut): Bytes | null {
  const t = out.target;
  return t.type === "key" || t.type === "tagged_key" ? t.key : null;
}

function opens(b: CryptoBackend, d: Bytes | null, out: TxOut, n: number, spendPublicKey: Bytes): boolean {
  if (!d) return false;
  const t = out.target;
  if (t.type === "tagged_key" && b.deriveViewTag(d, n) !== t.viewTag) return false;
  const k = b.derivePublicKey(d, n, spendPublicKey);
  if (!k) throw internal("Failed to derive public key");
  return Buffer.compare(k, (t as { key: Bytes }).key) === 0;
}

/** The amount of output `n` opened with `derivation`, 0 when it does not open the commitment. */
export function outputAmount(b: CryptoBackend, tx: Transaction, n: number, derivation: Bytes): bigint {
  if (tx.version === 1 || !tx.rct || tx.rct.type === RCT_TYPE.Null) return tx.vout[n].amount;
  const ecdh = tx.rct.ecdhInfo[n];
  const C = tx.rct.outPk[n];
  if (!ecdh || !C) throw internal("Failed to get the output's RingCT data", `the transaction has no ecdhInfo/outPk for output ${n}`);
  const s = b.derivationToScalar(derivation, n);
  let mask: Bytes;
  let amountScalar: Bytes;
  let amount: bigint;
  if (rctCompactEcdh(tx.rct.type)) {
    amount = decryptAmount(b, s, ecdh.amount);
    mask = commitmentMask(b, s);
    amountScalar = amountToScalar(amount);
  } else {
    const d = decodeLegacyEcdh(b, s, ecdh.mask ?? new Uint8Array(32), ecdh.amount);
    mask = d.mask;
    amountScalar = d.amountScalar;
    amount = d.amount;
  }
  if (!b.scCheck(mask)) throw internal("Bad ECDH input mask");
  if (!b.scCheck(amountScalar)) throw internal("Bad ECDH input amount");
  const c = b.doubleScalarMultBase(amountScalar, H, mask);
  return c && Buffer.compare(c, C) === 0 ? amount : 0n;
}

/**
 * check_tx_key_helper: the sum received by the address whose spend key is `spendPublicKey`.
 * `derivation` is null when the main derivation is unknown (a tx proof whose first signature failed);
 * `additional[n]` likewise per output.
 */
export function receivedBy(b: CryptoBackend, tx: Transaction, derivation: Bytes | null, additional: readonly (Bytes | null)[], spendPublicKey: Bytes): bigint {
  let received = 0n;
  tx.vout.forEach((out, n) => {
    if (!outputKey(out)) return;
    let found: Bytes | null = null;
    if (opens(b, derivation, out, n, spendPublicKey)) found = derivation;
    else if (additional.length > 0 && opens(b, additional[n] ?? null, out, n, spendPublicKey)) found = additional[n];
    if (found) received += outputAmount(b, tx, n, found);
  });
  return received;
}
