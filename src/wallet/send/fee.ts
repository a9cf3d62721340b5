/**
 * wallet2's size, weight and fee arithmetic for the transactions it builds (src/wallet/wallet2.cpp
 * v0.18: estimate_rct_tx_size, estimate_tx_weight, calculate_fee_from_weight, get_base_fee,
 * get_fee_multiplier, adjust_mixin, get_upper_transaction_weight_limit). Only the rules of the
 * forks tsmonero builds for (RingCT with CLSAG, Bulletproofs+ and view tags: HF 15 and later) are
 * here; older shapes are never built.
 */

/** CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5. */
export const FULL_REWARD_ZONE_V5 = 300000;
/** CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE. */
export const COINBASE_BLOB_RESERVED_SIZE = 600;
/** FEE_PER_BYTE: what wallet2 falls back to when the daemon gives no estimate. */
export const FEE_PER_BYTE = 300000n;
/** BULLETPROOF_PLUS_MAX_OUTPUTS: outputs of one transaction. */
export const MAX_OUTPUTS = 16;
/** Ring size from HF 15 on (get_min_ring_size = get_max_ring_size). */
export const RING_SIZE = 16;
/** FEE_ESTIMATE_GRACE_BLOCKS: how long a fee estimate stays valid. */
export const FEE_ESTIMATE_GRACE_BLOCKS = 10n;

/** get_upper_transaction_weight_limit from HF 8 on: half the full-reward zone less the coinbase reserve. */
export const UPPER_TX_WEIGHT_LIMIT = FULL_REWARD_ZONE_V5 / 2 - COINBASE_BLOB_RESERVED_SIZE;
/** TX_WEIGHT_TARGET: wallet2 stops adding inputs to a transaction at 2/3 of the limit. */
export const TX_WEIGHT_TARGET = Math.floor((UPPER_TX_WEIGHT_LIMIT * 2) / 3);

/** estimate_rct_tx_size for a CLSAG + BP+ + view-tag transaction (`mixin` = ring size − 1). */
export function estimateTxSize(inputs: number, mixin: number, outputs: number, extraSize: number): number {
  let size = 1 + 6; // version, unlock time
  size += inputs * (1 + 6 + (mixin + 1) * 2 + 32);
  size += outputs * (6 + 32);
  size += extraSize;
  size += 1; // rct type
  let logPadded = 0;
  while (1 << logPadded < outputs) logPadded++;
  size += (2 * (6 + logPadded) + 6) * 32 + 3; // one BP+
  size += inputs * (32 * (mixin + 1) + 64); // CLSAGs
  size += outputs; // view tags
  size += 32 * inputs; // pseudo outs
  size += 8 * outputs; // ecdhInfo
  size += 32 * outputs; // outPk
  size += 4; // fee
  return size;
}

/** estimate_tx_weight: the size plus the Bulletproof clawback above 2 outputs. */
export function estimateTxWeight(inputs: number, mixin: number, outputs: number, extraSize: number): number {
  let size = estimateTxSize(inputs, mixin, outputs, extraSize);
  if (outputs > 2) {
    const bpBase = (32 * (6 + 7 * 2)) / 2;
    let logPadded = 2;
    while (1 << logPadded < outputs) logPadded++;
    const bpSize = 32 * (6 + 2 * (6 + logPadded));
    size += Math.floor(((bpBase * (1 << logPadded) - bpSize) * 4) / 5);
  }
  return size;
}

/** calculate_fee_from_weight: weight × per-byte fee, rounded up to the quantization mask. */
export function feeFromWeight(baseFee: bigint, weight: number | bigint, quantizationMask: bigint): bigint {
  const mask = quantizationMask > 0n ? quantizationMask : 1n;
  const fee = BigInt(weight) * baseFee;
  return ((fee + mask - 1n) / mask) * mask;
}

/** estimate_fee with per-byte fees. */
export function estimateFee(inputs: number, mixin: number, outputs: number, extraSize: number, baseFee: bigint, quantizationMask: bigint): bigint {
  return feeFromWeight(baseFee, estimateTxWeight(inputs, mixin, outputs, extraSize), quantizationMask);
}

/** What get_fee_estimate answered (per-byte fees for priorities 1–4 and the quantization mask). */
export interface FeeEstimate {
  fee: bigint;
  fees: readonly bigint[];
  quantizationMask: bigint;
}

/**
 * get_base_fee(priority) under the 2021 scaling rules (HF 15 on): priority 0 is treated as 1, above
 * 4 as 4, and the per-byte fee is the daemon's estimate for that priority.
 */
export function baseFeeFor(priority: number, est: FeeEstimate): bigint {
  const p = priority <= 0 ? 0 : Math.min(priority, 4) - 1;
  return est.fees[p] ?? FEE_PER_BYTE;
}

/** adjust_mixin from HF 15 on: every ring has 16 members whatever was asked (wallet2 warns and clamps). */
export function adjustMixin(ringSize: number): number {
  void ringSize;
  return RING_SIZE - 1;
}
