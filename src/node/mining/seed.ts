/**
 * RandomX seed rules (src/crypto/rx-slow-hash.c rx_seedheight / rx_seedheights, v0.18.0.0).
 *
 * monerod reads SEEDHASH_EPOCH_BLOCKS and SEEDHASH_EPOCH_LAG from the environment once per
 * process, on every network (the C code does not look at the nettype; only regtest chains are short
 * enough for it to matter). A value is used when `atoi` of it is a power of two within the limits
 * (blocks 2..2048, lag 1..64); anything else, including a missing variable, means the default.
 */
import type { Bytes } from "../../protocol/tx.js";

/** Blocks per RandomX seed epoch (SEEDHASH_EPOCH_BLOCKS). */
export const SEEDHASH_EPOCH_BLOCKS = 2048;
/** Blocks a new seed lags behind its epoch boundary (SEEDHASH_EPOCH_LAG). */
export const SEEDHASH_EPOCH_LAG = 64;

export interface SeedEpoch {
  /** Epoch length in blocks (a power of two, 2..2048). */
  blocks: number;
  /** Lag in blocks (a power of two, 1..64). */
  lag: number;
}

export const DEFAULT_SEED_EPOCH: SeedEpoch = Object.freeze({ blocks: SEEDHASH_EPOCH_BLOCKS, lag: SEEDHASH_EPOCH_LAG });

/** C's atoi: optional blanks and sign, then decimal digits; 0 when there are none. */
function atoi(s: string): number {
  const m = /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(s);
  return m ? Number.parseInt(m[1], 10) : 0;
}

const isPow2 = (n: number): boolean => Number.isSafeInteger(n) && n > 0 && (n & (n - 1)) === 0;

/** The epoch in force for `env` (get_seedhash_epoch_blocks / get_seedhash_epoch_lag). */
export function seedEpochFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): SeedEpoch {
  let blocks = SEEDHASH_EPOCH_BLOCKS;
  let lag = SEEDHASH_EPOCH_LAG;
  const b = env.SEEDHASH_EPOCH_BLOCKS;
  if (b !== undefined) {
    const v = atoi(b);
    blocks = v >= 2 && v <= SEEDHASH_EPOCH_BLOCKS && isPow2(v) ? v : SEEDHASH_EPOCH_BLOCKS;
  }
  const l = env.SEEDHASH_EPOCH_LAG;
  if (l !== undefined) {
    // lag is unsigned in monerod: a negative value wraps to a huge one and falls back
    const v = atoi(l);
    lag = v <= SEEDHASH_EPOCH_LAG && isPow2(v) ? v : SEEDHASH_EPOCH_LAG;
  }
  return { blocks, lag };
}

let processEpoch: SeedEpoch | undefined;

/** This process's epoch, read from the environment on first use and then fixed (as monerod's statics). */
export function processSeedEpoch(): SeedEpoch {
  processEpoch ??= Object.freeze(seedEpochFromEnv());
  return processEpoch;
}

function checkHeight(height: number): void {
  if (!Number.isSafeInteger(height) || height < 0) throw new RangeError(`height must be a non-negative integer, got ${height}`);
}

/** rx_seedheight: the height of the block whose id keys RandomX for a block at `height`. */
export function seedHeight(height: number, epoch: SeedEpoch = processSeedEpoch()): number {
  checkHeight(height);
  if (height <= epoch.blocks + epoch.lag) return 0;
  const h = height - epoch.lag - 1;
  return h - (h % epoch.blocks);
}

/** rx_seedheights: the seed height of `height` and the one `lag` blocks later (the next seed, prepared ahead). */
export function seedHeights(height: number, epoch: SeedEpoch = processSeedEpoch()): { seedHeight: number; nextSeedHeight: number } {
  return { seedHeight: seedHeight(height, epoch), nextSeedHeight: seedHeight(height + epoch.lag, epoch) };
}

/** Reads a block id by height (ChainStore: `h => store.meta(h).hash`; BranchView: `hashAt`). */
export type BlockIdAt = (height: number) => Bytes;

/** A chain that can name its blocks: the ChainStore (`meta(h).hash`) or a branch view (`hashAt(h)`). */
export type IdSource = { hashAt(height: number): Bytes } | { meta(height: number): { hash: Bytes } };

/** The block-id reader of a ChainStore or a branch view (hashAt wins when both exist). */
export function idReader(chain: IdSource): BlockIdAt {
  if ("hashAt" in chain && typeof chain.hashAt === "function") return (h) => chain.hashAt(h);
  if ("meta" in chain) return (h) => chain.meta(h).hash;
  throw new TypeError("chain has neither hashAt nor meta");
}

/** The seed block (height and id) for a block at `height`. */
export function seedFor(height: number, idAt: BlockIdAt, epoch: SeedEpoch = processSeedEpoch()): { height: number; hash: Bytes } {
  const h = seedHeight(height, epoch);
  return { height: h, hash: idAt(h) };
}

export interface TemplateSeeds {
  seedHeight: number;
  seedHash: Bytes;
  /** The next epoch's seed when it differs from seedHash (a switch within `lag` blocks), else empty. */
  nextSeedHash: Bytes;
}

/**
 * get_block_template's seed fields for a block at `height`: the seed from `idAt` (the chain the
 * template builds on) and the next seed from `mainIdAt` (monerod reads it from the main chain).
 * The next seed height is always below `height`, so it exists.
 */
export function templateSeeds(height: number, idAt: BlockIdAt, mainIdAt: BlockIdAt = idAt, epoch: SeedEpoch = processSeedEpoch()): TemplateSeeds {
  const { seedHeight: sh, nextSeedHeight: nh } = seedHeights(height, epoch);
  const seedHash = idAt(sh);
  const next = nh !== sh ? mainIdAt(nh) : seedHash;
  return { seedHeight: sh, seedHash, nextSeedHash: sameBytes(next, seedHash) ? new Uint8Array(0) : next };
}

function sameBytes(a: Bytes, b: Bytes): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
