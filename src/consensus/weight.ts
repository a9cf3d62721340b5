/**
 * Block weight limits (src/cryptonote_core/blockchain.cpp get_next_long_term_block_weight and
 * update_next_cumulative_weight_limit): the long-term weight stored with each block from HF 10, the
 * effective median that drives the penalty and fees, and the block weight limit (2 × median).
 * Inputs are the recorded weights of the chain's newest blocks, oldest first.
 */
import {
  CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5,
  CRYPTONOTE_LONG_TERM_BLOCK_WEIGHT_WINDOW_SIZE,
  CRYPTONOTE_REWARD_BLOCKS_WINDOW,
  CRYPTONOTE_SHORT_TERM_BLOCK_WEIGHT_SURGE_FACTOR,
  HF_VERSION_2021_SCALING,
  HF_VERSION_LONG_TERM_BLOCK_WEIGHT,
  median,
  minBlockWeight,
} from "./constants.js";

const ZONE_V5 = CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5;

function lastN<T>(a: readonly T[], n: number): readonly T[] {
  return a.length > n ? a.slice(a.length - n) : a;
}

/** The newest long-term weights (at least the last `window`, or all), or just their median over the last `window`. */
export type LongTermWeights = readonly number[] | { readonly median: number };

function longTermMedian(lt: LongTermWeights, window: number): number {
  return "median" in lt ? lt.median : median(lastN(lt, window));
}

/** The long-term median's upper bound for a block's long-term weight (×1.7 from HF 15, ×1.4 before). */
function shortTermConstraint(ltEffective: number, version: number): number {
  return ltEffective + Math.floor((ltEffective * (version >= HF_VERSION_2021_SCALING ? 7 : 2)) / (version >= HF_VERSION_2021_SCALING ? 10 : 5));
}

/**
 * get_next_long_term_block_weight: the long-term weight stored for a new block of `blockWeight` on a
 * chain whose newest long-term weights are `longTermWeights` (at least the last 100000, or all).
 */
export function nextLongTermBlockWeight(
  blockWeight: number,
  longTermWeights: LongTermWeights,
  version: number,
  window = CRYPTONOTE_LONG_TERM_BLOCK_WEIGHT_WINDOW_SIZE,
): number {
  if (version < HF_VERSION_LONG_TERM_BLOCK_WEIGHT) return blockWeight;
  const ltEffective = Math.max(ZONE_V5, longTermMedian(longTermWeights, window));
  let w = blockWeight;
  // from HF 15 the long-term weight is also bounded below by median / 1.7
  if (version >= HF_VERSION_2021_SCALING) w = Math.max(w, Math.floor((ltEffective * 10) / 17));
  return Math.min(w, shortTermConstraint(ltEffective, version));
}

/** What update_next_cumulative_weight_limit leaves for the next block. */
export interface WeightLimits {
  /** Median of the last 100 block weights (not clamped). */
  shortTermMedian: number;
  /** m_long_term_effective_median_block_weight (0 before HF 10). */
  longTermEffectiveMedian: number;
  /** m_current_block_cumul_weight_median: the median used for the penalty (at least the full-reward zone). */
  effectiveMedian: number;
  /** m_current_block_cumul_weight_limit: the largest allowed block weight (2 × effective median). */
  limit: number;
}

/**
 * update_next_cumulative_weight_limit for a chain whose newest blocks have `weights` (at least the
 * last 100) and stored `longTermWeights` (at least the last `window`), oldest first, both ending at
 * the tip, under hard-fork `version` (the next block's version).
 */
export function weightLimits(
  weights: readonly number[],
  longTermWeights: LongTermWeights,
  version: number,
  window = CRYPTONOTE_LONG_TERM_BLOCK_WEIGHT_WINDOW_SIZE,
): WeightLimits {
  const fullRewardZone = minBlockWeight(version);
  const shortTermMedian = median(lastN(weights, CRYPTONOTE_REWARD_BLOCKS_WINDOW));
  let effectiveMedian: number;
  let ltEffective = 0;
  if (version < HF_VERSION_LONG_TERM_BLOCK_WEIGHT || weights.length === 0) {
    // (an empty chain has no median yet: the full-reward zone applies)
    effectiveMedian = shortTermMedian;
  } else {
    // v0.18.3.1+ (monero#9013, "Fix ltw cache"): the median of the stored long-term weights of the
    // last min(window, height) blocks. v0.18.0.0 recomputed the tip's long-term weight without the
    // HF 15 lower bound and depended on cache state; the two agree whenever the long-term
    // effective median is the 300000 floor (every block of the recorded regtest chain).
    ltEffective = Math.max(ZONE_V5, longTermMedian(longTermWeights, window));
    const surge = CRYPTONOTE_SHORT_TERM_BLOCK_WEIGHT_SURGE_FACTOR * ltEffective;
    effectiveMedian =
      version >= HF_VERSION_2021_SCALING
        ? Math.min(Math.max(ltEffective, shortTermMedian), surge)
        : Math.min(Math.max(ZONE_V5, shortTermMedian), surge);
  }
  if (effectiveMedian <= fullRewardZone) effectiveMedian = fullRewardZone;
  return { shortTermMedian, longTermEffectiveMedian: ltEffective, effectiveMedian, limit: effectiveMedian * 2 };
}
