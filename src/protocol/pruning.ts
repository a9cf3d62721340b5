/**
 * Monero's blockchain pruning stripes and seeds (src/common/pruning.cpp): a pruned node keeps the
 * prunable part (signatures, range proofs) of RingCT transactions only in blocks of its own stripe
 * (one 4,096-block stripe in 8) and in the newest 5,500 blocks; everything else keeps its pruned
 * part and prunable hash. The seed a node announces is (log2 stripes << 7) | (stripe − 1).
 */
import { randomInt } from "node:crypto";

/** CRYPTONOTE_PRUNING_LOG_STRIPES: 2^3 = 8 stripes. */
export const PRUNING_LOG_STRIPES = 3;
/** CRYPTONOTE_PRUNING_STRIPE_SIZE: blocks per stripe. */
export const PRUNING_STRIPE_SIZE = 4096;
/** CRYPTONOTE_PRUNING_TIP_BLOCKS: the newest blocks are never pruned. */
export const PRUNING_TIP_BLOCKS = 5500;

const LOG_STRIPES_SHIFT = 7;
const LOG_STRIPES_MASK = 0x7;
const STRIPE_MASK = 0x7f;

/** make_pruning_seed: the seed of `stripe` (1-based) of 2^logStripes. */
export function makePruningSeed(stripe: number, logStripes = PRUNING_LOG_STRIPES): number {
  if (!Number.isInteger(logStripes) || logStripes < 0 || logStripes > LOG_STRIPES_MASK) throw new RangeError("log_stripes out of range");
  if (!Number.isInteger(stripe) || stripe < 1 || stripe > 2 ** logStripes) throw new RangeError("stripe out of range");
  return (logStripes << LOG_STRIPES_SHIFT) | (stripe - 1);
}

/** get_pruning_log_stripes of a seed (0 for an unpruned node's seed 0). */
export function pruningLogStripes(seed: number): number {
  return (seed >>> LOG_STRIPES_SHIFT) & LOG_STRIPES_MASK;
}

/** get_pruning_stripe of a seed: 1-based, 0 for seed 0 (unpruned). */
export function seedStripe(seed: number): number {
  return seed === 0 ? 0 : (seed & STRIPE_MASK) + 1;
}

/** get_pruning_stripe(block_height, blockchain_height, log_stripes): the block's stripe, 0 inside the tip. */
export function blockStripe(blockHeight: number, chainHeight: number, logStripes = PRUNING_LOG_STRIPES): number {
  if (blockHeight + PRUNING_TIP_BLOCKS >= chainHeight) return 0;
  return (Math.floor(blockHeight / PRUNING_STRIPE_SIZE) & (2 ** logStripes - 1)) + 1;
}

/** has_unpruned_block: whether a node with `seed` keeps the prunable data of the block. */
export function keepsPrunable(blockHeight: number, chainHeight: number, seed: number): boolean {
  const stripe = seedStripe(seed);
  if (stripe === 0) return true;
  const b = blockStripe(blockHeight, chainHeight, pruningLogStripes(seed));
  return b === 0 || b === stripe;
}

/** get_random_stripe: a stripe drawn uniformly from the 8 (monerod draws one when none is given). */
export function randomStripe(): number {
  return randomInt(1, 2 ** PRUNING_LOG_STRIPES + 1);
}
