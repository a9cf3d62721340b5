/**
 * Consensus constants of Monero v0.18 (src/cryptonote_config.h). Amounts are atomic units (bigint).
 */

export const MONEY_SUPPLY = (1n << 64n) - 1n;
export const EMISSION_SPEED_FACTOR_PER_MINUTE = 20;
export const FINAL_SUBSIDY_PER_MINUTE = 300000000000n;
export const CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW = 60;
export const CRYPTONOTE_MAX_BLOCK_NUMBER = 500000000n;
export const CRYPTONOTE_MAX_TX_SIZE = 1000000;
export const CRYPTONOTE_MAX_TX_PER_BLOCK = 0x10000000;
export const CRYPTONOTE_BLOCK_FUTURE_TIME_LIMIT = 60 * 60 * 2;
export const BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW = 60;
export const CRYPTONOTE_REWARD_BLOCKS_WINDOW = 100;
export const CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V1 = 20000;
export const CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V2 = 60000;
export const CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5 = 300000;
export const CRYPTONOTE_LONG_TERM_BLOCK_WEIGHT_WINDOW_SIZE = 100000;
export const CRYPTONOTE_SHORT_TERM_BLOCK_WEIGHT_SURGE_FACTOR = 50;
export const CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE = 600;
export const CRYPTONOTE_LOCKED_TX_ALLOWED_DELTA_BLOCKS = 1;
export const FEE_PER_KB = 2000000000n;
export const DYNAMIC_FEE_PER_KB_BASE_FEE = 2000000000n;
export const DYNAMIC_FEE_PER_KB_BASE_BLOCK_REWARD = 10000000000000n;
export const DYNAMIC_FEE_PER_KB_BASE_FEE_V5 = (2000000000n * 60000n) / 300000n;
export const DYNAMIC_FEE_REFERENCE_TRANSACTION_WEIGHT = 3000n;
export const PER_KB_FEE_QUANTIZATION_DECIMALS = 8;
export const CRYPTONOTE_DISPLAY_DECIMAL_POINT = 12;
export const CRYPTONOTE_SCALING_2021_FEE_ROUNDING_PLACES = 2;
export const BULLETPROOF_PLUS_MAX_OUTPUTS = 16;
/** Pool-only limit on tx extra (v0.18.2.0+; not in v0.18.0.0, not applied to block txs). */
export const MAX_TX_EXTRA_SIZE = 1060;

export const HF_VERSION_DYNAMIC_FEE = 4;
export const HF_VERSION_MIN_MIXIN_4 = 6;
export const HF_VERSION_MIN_MIXIN_6 = 7;
export const HF_VERSION_MIN_MIXIN_10 = 8;
export const HF_VERSION_MIN_MIXIN_15 = 15;
export const HF_VERSION_ENFORCE_RCT = 6;
export const HF_VERSION_PER_BYTE_FEE = 8;
export const HF_VERSION_SMALLER_BP = 10;
export const HF_VERSION_LONG_TERM_BLOCK_WEIGHT = 10;
export const HF_VERSION_MIN_2_OUTPUTS = 12;
export const HF_VERSION_MIN_V2_COINBASE_TX = 12;
export const HF_VERSION_SAME_MIXIN = 12;
export const HF_VERSION_REJECT_SIGS_IN_COINBASE = 12;
export const HF_VERSION_ENFORCE_MIN_AGE = 12;
export const HF_VERSION_EFFECTIVE_SHORT_TERM_MEDIAN_IN_PENALTY = 12;
export const HF_VERSION_EXACT_COINBASE = 13;
export const HF_VERSION_CLSAG = 13;
export const HF_VERSION_DETERMINISTIC_UNLOCK_TIME = 13;
export const HF_VERSION_BULLETPROOF_PLUS = 15;
export const HF_VERSION_VIEW_TAGS = 15;
export const HF_VERSION_2021_SCALING = 15;

/** get_min_block_weight (cryptonote_basic_impl.cpp): the full-reward zone of `version`. */
export function minBlockWeight(version: number): number {
  if (version < 2) return CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V1;
  if (version < 5) return CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V2;
  return CRYPTONOTE_BLOCK_GRANTED_FULL_REWARD_ZONE_V5;
}

/** epee::misc_utils::median: middle value, or the floor of the mean of the two middle values; 0 if empty. */
export function median(values: readonly number[]): number {
  const n = values.length;
  if (n === 0) return 0;
  const v = [...values].sort((a, b) => a - b);
  if (n % 2 === 1) return v[(n - 1) / 2];
  return Math.floor((v[n / 2 - 1] + v[n / 2]) / 2);
}
