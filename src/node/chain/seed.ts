/**
 * RandomX seed heights with monerod's environment overrides (src/crypto/rx-slow-hash.c):
 * SEEDHASH_EPOCH_BLOCKS (a power of two, 2..2048) and SEEDHASH_EPOCH_LAG (a power of two ≤ 64),
 * read once; other values fall back to 2048 / 64. node/mining owns the miner's side of this; the
 * chain uses it to pick the seed block of a height.
 */
import { SEEDHASH_EPOCH_BLOCKS, SEEDHASH_EPOCH_LAG } from "../../crypto/randomx.js";

export interface SeedEpoch {
  blocks: number;
  lag: number;
}

const isPow2 = (n: number): boolean => Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;

/** The epoch length and lag in force for `env` (default: this process's environment). */
export function seedEpoch(env: NodeJS.ProcessEnv = process.env): SeedEpoch {
  const blocksEnv = env.SEEDHASH_EPOCH_BLOCKS;
  const lagEnv = env.SEEDHASH_EPOCH_LAG;
  let blocks = SEEDHASH_EPOCH_BLOCKS;
  let lag = SEEDHASH_EPOCH_LAG;
  if (blocksEnv !== undefined) {
    const b = Number.parseInt(blocksEnv, 10);
    blocks = isPow2(b) && b >= 2 && b <= SEEDHASH_EPOCH_BLOCKS ? b : SEEDHASH_EPOCH_BLOCKS;
  }
  if (lagEnv !== undefined) {
    const l = Number.parseInt(lagEnv, 10);
    lag = isPow2(l) && l <= SEEDHASH_EPOCH_LAG ? l : SEEDHASH_EPOCH_LAG;
  }
  return { blocks, lag };
}

let cached: SeedEpoch | undefined;

/** rx_seedheight: height of the block whose id keys RandomX for a block at `height`. */
export function seedHeight(height: number, epoch: SeedEpoch = (cached ??= seedEpoch())): number {
  if (height <= epoch.blocks + epoch.lag) return 0;
  const h = height - epoch.lag - 1;
  return h - (h % epoch.blocks);
}

/** The lag in force (next-seed lookahead of block templates). */
export function seedLag(): number {
  return (cached ??= seedEpoch()).lag;
}
