/**
 * Emission (cryptonote_basic_impl.cpp get_block_reward): base reward from the coins already
 * generated, tail emission, and the quadratic penalty for blocks heavier than the median.
 */
import {
  EMISSION_SPEED_FACTOR_PER_MINUTE,
  FINAL_SUBSIDY_PER_MINUTE,
  minBlockWeight,
  MONEY_SUPPLY,
} from "./constants.js";
import { difficultyTarget } from "./difficulty.js";


/** The reward before any penalty (emission curve with the tail emission floor). */
export function baseBlockReward(alreadyGeneratedCoins: bigint, version: number): bigint {
  const targetMinutes = difficultyTarget(version) / 60;
  const speed = BigInt(EMISSION_SPEED_FACTOR_PER_MINUTE - (targetMinutes - 1));
  const base = (MONEY_SUPPLY - alreadyGeneratedCoins) >> speed;
  const floor = FINAL_SUBSIDY_PER_MINUTE * BigInt(targetMinutes);
  return base < floor ? floor : base;
}

/**
 * get_block_reward: the reward of a block of `blockWeight` given the median weight, or undefined
 * when the block is more than twice the (full-reward-zone-clamped) median.
 */
export function blockReward(medianWeight: number, blockWeight: number, alreadyGeneratedCoins: bigint, version: number): bigint | undefined {
  const base = baseBlockReward(alreadyGeneratedCoins, version);
  const m = BigInt(Math.max(medianWeight, minBlockWeight(version)));
  const w = BigInt(blockWeight);
  if (w <= m) return base;
  if (w > 2n * m) return undefined;
  // base * (2m − w) * w / m²: 128-bit in Monero, exact here
  return (((base * ((2n * m - w) * w)) / m) / m);
}

/**
 * already_generated_coins after a block (Blockchain::handle_block_to_main_chain): the previous total
 * plus what the block generated (its outputs minus fees), saturating at MONEY_SUPPLY.
 */
export function nextAlreadyGeneratedCoins(previous: bigint, generated: bigint): bigint {
  return generated < MONEY_SUPPLY - previous ? previous + generated : MONEY_SUPPLY;
}
