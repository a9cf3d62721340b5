/**
 * Fees (src/cryptonote_core/blockchain.cpp get_dynamic_base_fee, check_fee,
 * get_dynamic_base_fee_estimate_2021_scaling; cryptonote_format_utils.cpp round_money_up,
 * get_fee_quantization_mask).
 */
import {
  CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5,
  CRYPTONOTE_DISPLAY_DECIMAL_POINT,
  CRYPTONOTE_SCALING_2021_FEE_ROUNDING_PLACES,
  DYNAMIC_FEE_PER_KB_BASE_BLOCK_REWARD,
  DYNAMIC_FEE_PER_KB_BASE_FEE,
  DYNAMIC_FEE_PER_KB_BASE_FEE_V5,
  DYNAMIC_FEE_REFERENCE_TRANSACTION_WEIGHT,
  FEE_PER_KB,
  HF_VERSION_2021_SCALING,
  HF_VERSION_DYNAMIC_FEE,
  HF_VERSION_LONG_TERM_BLOCK_WEIGHT,
  HF_VERSION_PER_BYTE_FEE,
  median,
  minBlockWeight,
  PER_KB_FEE_QUANTIZATION_DECIMALS,
} from "./constants.js";
import { blockReward } from "./reward.js";

/** get_fee_quantization_mask: 10^(12 − 8). */
export function feeQuantizationMask(): bigint {
  return 10n ** BigInt(CRYPTONOTE_DISPLAY_DECIMAL_POINT - PER_KB_FEE_QUANTIZATION_DECIMALS);
}

/**
 * get_dynamic_base_fee: fee per byte (HF ≥ 8) or per kB (HF 4–7) for a block reward and median.
 * From HF 15: 0.95 · reward · 3000 / median²; HF 8–14: 0.2 · reward · 3000 / (zone · median).
 */
export function dynamicBaseFee(blockRewardAmount: bigint, medianBlockWeight: number, version: number): bigint {
  const minWeight = minBlockWeight(version);
  const m = BigInt(Math.max(medianBlockWeight, minWeight));
  if (version >= HF_VERSION_PER_BYTE_FEE) {
    const perMedian = (blockRewardAmount * DYNAMIC_FEE_REFERENCE_TRANSACTION_WEIGHT) / m;
    if (version >= HF_VERSION_2021_SCALING) {
      const lo = perMedian / m;
      // never 0 (v0.18.2.2+, "ensure base fee cannot reach 0")
      const fee = lo - lo / 20n;
      return fee === 0n ? 1n : fee;
    }
    return perMedian / BigInt(minWeight) / 5n;
  }
  const feeBase = version >= 5 ? DYNAMIC_FEE_PER_KB_BASE_FEE_V5 : DYNAMIC_FEE_PER_KB_BASE_FEE;
  const unscaled = (feeBase * BigInt(minWeight)) / m;
  const lo = (unscaled * blockRewardAmount) / DYNAMIC_FEE_PER_KB_BASE_BLOCK_REWARD;
  const mask = feeQuantizationMask();
  return ((lo + mask - 1n) / mask) * mask;
}

/** The chain state check_fee reads: the next block's weight limits and coins generated so far. */
export interface FeeContext {
  version: number;
  /** m_current_block_cumul_weight_limit / 2, i.e. WeightLimits.effectiveMedian. */
  effectiveMedian: number;
  /** m_long_term_effective_median_block_weight. */
  longTermEffectiveMedian: number;
  alreadyGeneratedCoins: bigint;
}

/** The minimum fee (before the 2% tolerance) for a transaction of `txWeight` (check_fee's needed_fee). */
export function requiredFee(txWeight: number, ctx: FeeContext): bigint {
  const { version } = ctx;
  let baseReward = 0n;
  const median = ctx.effectiveMedian;
  if (version >= HF_VERSION_DYNAMIC_FEE) {
    const r = blockReward(median, 1, ctx.alreadyGeneratedCoins, version);
    if (r === undefined) throw new RangeError("no block reward at this median");
    baseReward = r;
  }
  if (version >= HF_VERSION_PER_BYTE_FEE) {
    const feeMedian = version >= HF_VERSION_LONG_TERM_BLOCK_WEIGHT ? Math.min(median, ctx.longTermEffectiveMedian) : median;
    const perByte = dynamicBaseFee(baseReward, feeMedian, version);
    const mask = feeQuantizationMask();
    return ((BigInt(txWeight) * perByte + mask - 1n) / mask) * mask;
  }
  const perKb = version < HF_VERSION_DYNAMIC_FEE ? FEE_PER_KB : dynamicBaseFee(baseReward, median, version);
  return BigInt(Math.ceil(txWeight / 1024)) * perKb;
}

/** check_fee: true when `fee` is at least the required fee less 2%. */
export function checkFee(txWeight: number, fee: bigint, ctx: FeeContext): boolean {
  const needed = requiredFee(txWeight, ctx);
  return fee >= needed - needed / 50n;
}

/** round_money_up: round `amount` up to `digits` significant decimal digits. */
export function roundMoneyUp(amount: bigint, digits: number): bigint {
  if (digits <= 0) throw new RangeError("significant digits must be > 0");
  const s = amount.toString();
  if (s.length <= digits) return amount;
  const unit = 10n ** BigInt(s.length - digits);
  return ((amount + unit - 1n) / unit) * unit;
}

/**
 * get_dynamic_base_fee_estimate_2021_scaling: the four fee levels (per byte) of get_fee_estimate
 * from the base reward, Mnw (short-term median for wallets) and Mlw (long-term median for wallets).
 */
export function feeEstimate2021(baseReward: bigint, mnw: number, mlw: number): [bigint, bigint, bigint, bigint] {
  const mfw = BigInt(Math.min(mnw, mlw));
  const nw = BigInt(mnw);
  const ref = DYNAMIC_FEE_REFERENCE_TRANSACTION_WEIGHT;
  const zone = BigInt(CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5);
  // Monero computes these in uint64_t; the products stay below 2^64 for any real reward and median
  const fl = (baseReward * ref) / (mfw * mfw);
  const fn = (4n * baseReward * ref) / (mfw * mfw);
  const fm = (16n * baseReward * ref) / (zone * mfw);
  const fh4 = (4n * fm * mfw) / ((32n * ref * nw) / zone);
  const fh = 4n * fm > fh4 ? 4n * fm : fh4;
  const r = CRYPTONOTE_SCALING_2021_FEE_ROUNDING_PLACES;
  return [roundMoneyUp(fl, r), roundMoneyUp(fn, r), roundMoneyUp(fm, r), roundMoneyUp(fh, r)];
}

/**
 * Blockchain::get_dynamic_base_fee_estimate_2021_scaling(grace_blocks): Mlw from the long-term
 * weights with `graceBlocks` zeros appended, Msw from the last 100 − grace weights and grace zeros,
 * base reward at the current effective median. `longTermWeights` are the stored long-term weights
 * of the last ≤ 100000 blocks; `weights` the last ≥ 100 block weights.
 */
export function feeEstimateLevels(
  graceBlocks: number,
  weights: readonly number[],
  longTermWeights: readonly number[],
  effectiveMedian: number,
  alreadyGeneratedCoins: bigint,
  version: number,
  window = 100000,
): [bigint, bigint, bigint, bigint] {
  if (graceBlocks > 100) throw new RangeError("grace blocks invalid");
  const lt = [...longTermWeights.slice(Math.max(0, longTermWeights.length - window)), ...new Array<number>(graceBlocks).fill(0)];
  const n = 100 - graceBlocks;
  const st = [...weights.slice(Math.max(0, weights.length - n)), ...new Array<number>(graceBlocks).fill(0)];
  return feeEstimateFromMedians(median(st), median(lt.slice(Math.max(0, lt.length - window))), effectiveMedian, alreadyGeneratedCoins, version);
}

/**
 * feeEstimateLevels from its two medians, for a caller that keeps them as the chain grows: the
 * short-term one (the last 100 − grace weights and grace zeros) and the long-term one (the last
 * long-term weights and grace zeros, at most `window` values, the oldest dropped).
 */
export function feeEstimateFromMedians(
  shortTermMedian: number,
  longTermMedian: number,
  effectiveMedian: number,
  alreadyGeneratedCoins: bigint,
  version: number,
): [bigint, bigint, bigint, bigint] {
  const mlw = Math.max(longTermMedian, CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5);
  const msw = Math.max(shortTermMedian, mlw);
  const mnw = Math.min(msw, 50 * mlw);
  const r = blockReward(effectiveMedian, 1, alreadyGeneratedCoins, version);
  // BLOCK_REWARD_OVERESTIMATE (10 XMR) when the reward cannot be computed
  const baseReward = r ?? 10000000000000n;
  return feeEstimate2021(baseReward, mnw, mlw);
}
