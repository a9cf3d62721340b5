/**
 * Transaction weight (cryptonote_format_utils.cpp: get_transaction_weight, get_pruned_transaction_weight,
 * get_transaction_weight_clawback). A Bulletproof(+) proof grows logarithmically with the outputs it
 * covers, so transactions with more than two (padded) outputs are charged a "clawback": 4/5 of the
 * difference between linear per-output proofs and the actual proof size.
 */
import { bulletproofMaxAmounts, rctIsBulletproof, rctIsBulletproofPlus, rctIsClsag } from "./rct.js";
import { serializeTransaction, type Transaction } from "./tx.js";

/** BULLETPROOF_MAX_OUTPUTS == BULLETPROOF_PLUS_MAX_OUTPUTS. */
export const BULLETPROOF_MAX_OUTPUTS = 16;

/** get_transaction_weight_clawback. */
export function bulletproofClawback(rctType: number, nOutputs: number, nPaddedOutputs: number): number {
  const plus = rctIsBulletproofPlus(rctType);
  const bpBase = (32 * ((plus ? 6 : 9) + 7 * 2)) / 2;
  if (nPaddedOutputs <= 2) return 0;
  if (nOutputs > BULLETPROOF_MAX_OUTPUTS) throw new RangeError(`maximum number of outputs is ${BULLETPROOF_MAX_OUTPUTS}`);
  let nlr = 0;
  while (1 << nlr < nPaddedOutputs) nlr++;
  nlr += 6;
  const bpSize = 32 * ((plus ? 6 : 9) + 2 * nlr);
  if (bpBase * nPaddedOutputs < bpSize) throw new RangeError("invalid bulletproof clawback");
  return Math.floor(((bpBase * nPaddedOutputs - bpSize) * 4) / 5);
}

/** Weight of a full transaction whose serialized size is `blobSize` (default: serialize it). */
export function txWeight(tx: Transaction, blobSize?: number): number {
  if (tx.pruned) throw new RangeError("txWeight does not support pruned transactions (use prunedTxWeight)");
  const size = blobSize ?? serializeTransaction(tx).length;
  if (tx.version < 2 || !tx.rct) return size;
  const type = tx.rct.type;
  const bp = rctIsBulletproof(type);
  const bpp = rctIsBulletproofPlus(type);
  if (!bp && !bpp) return size;
  const p = tx.rct.prunable;
  if (!p) throw new RangeError("unpruned transaction without prunable data");
  const padded = bulletproofMaxAmounts(bpp ? p.bulletproofsPlus : p.bulletproofs);
  return size + bulletproofClawback(type, tx.vout.length, padded);
}

/**
 * Weight of a pruned v2 transaction (types Bulletproof2, CLSAG, BulletproofPlus), estimated the way
 * Monero does for pruned blocks: the pruned size plus the deterministic sizes of the proofs,
 * signatures and pseudo outputs that were pruned away.
 */
export function prunedTxWeight(tx: Transaction): number {
  if (!tx.pruned) throw new RangeError("prunedTxWeight needs a pruned transaction");
  if (tx.version < 2 || !tx.rct) throw new RangeError("prunedTxWeight does not support v1 transactions");
  const type = tx.rct.type;
  if (type !== 4 && type !== 5 && type !== 6) throw new RangeError(`prunedTxWeight does not support RingCT type ${type}`);
  const in0 = tx.vin[0];
  if (in0?.type !== "key") throw new RangeError("prunedTxWeight needs to_key inputs");
  let weight = serializeTransaction(tx).length;
  weight += 1; // nbp varint
  let nrl = 0;
  while (1 << nrl < tx.vout.length) nrl++;
  const padded = 1 << nrl;
  nrl += 6;
  weight += 32 * ((rctIsBulletproofPlus(type) ? 6 : 9) + 2 * nrl) + 2;
  const ring = in0.keyOffsets.length;
  weight += rctIsClsag(type) ? tx.vin.length * (ring + 2) * 32 : tx.vin.length * (ring * 2 * 32 + 32);
  weight += 32 * tx.vin.length;
  return weight + bulletproofClawback(type, tx.vout.length, padded);
}
