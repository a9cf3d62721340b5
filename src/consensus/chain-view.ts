/**
 * The read-only view of the chain the consensus rules need. The node's store implements it;
 * tests implement it over recorded blocks. All reads are synchronous (LMDB reads are).
 * Heights count from 0; `height()` is the number of blocks (the next block's height).
 */
import type { Bytes } from "../protocol/tx.js";

/** An output as a ring member sees it (the store's output table). */
export interface ChainOutput {
  /** One-time public key. */
  key: Bytes;
  /** Amount commitment (for pre-RingCT outputs, zeroCommit(amount)). */
  commitment: Bytes;
  /** unlock_time of the transaction that created it. */
  unlockTime: bigint;
  /** Height of the block that created it. */
  height: number;
}

export interface ChainView {
  /** Number of blocks in the chain. */
  height(): number;
  /** Id of the newest block. */
  topHash(): Bytes;
  /** Hard-fork version in force at `height` (the node's HardFork state). */
  hardForkVersion(height: number): number;
  /** Timestamps of blocks [start, start+count), oldest first. */
  timestamps(start: number, count: number): bigint[];
  /** Cumulative difficulties of blocks [start, start+count). */
  cumulativeDifficulties(start: number, count: number): bigint[];
  /** Block weights of blocks [start, start+count). */
  blockWeights(start: number, count: number): number[];
  /** Long-term block weights of blocks [start, start+count). */
  longTermBlockWeights(start: number, count: number): number[];
  /**
   * Optional: the median of those long-term weights, kept incrementally (the store's rolling
   * window); without it the weights are read and sorted for each block.
   */
  longTermWeightMedian?(start: number, count: number): number;
  /** Coins generated up to and including the newest block. */
  alreadyGeneratedCoins(): bigint;
  /** True when the key image is spent in the chain. */
  isKeyImageSpent(keyImage: Bytes): boolean;
  /** The output with global index `index` among outputs of `amount` (0 for RingCT), if any. */
  output(amount: bigint, index: bigint): ChainOutput | undefined;
}

/** The last `n` (or fewer) values of a per-block series ending at the tip. */
export function lastBlocks<T>(view: ChainView, n: number, read: (start: number, count: number) => T[]): T[] {
  const h = view.height();
  const start = Math.max(0, h - n);
  return read(start, h - start);
}
