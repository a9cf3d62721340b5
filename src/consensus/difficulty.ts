/**
 * Difficulty (src/cryptonote_basic/difficulty.cpp): next_difficulty over a window of timestamps and
 * cumulative difficulties, and check_hash (PoW hash × difficulty < 2^256). Difficulties are bigint
 * (Monero's difficulty_type is 128-bit).
 */

/** cryptonote_config.h */
export const DIFFICULTY_TARGET_V1 = 60;
export const DIFFICULTY_TARGET_V2 = 120;
export const DIFFICULTY_WINDOW = 720;
export const DIFFICULTY_LAG = 15;
export const DIFFICULTY_CUT = 60;
export const DIFFICULTY_BLOCKS_COUNT = DIFFICULTY_WINDOW + DIFFICULTY_LAG;

const MAX_U64 = (1n << 64n) - 1n;
const MAX_U128 = (1n << 128n) - 1n;
const TWO_256 = 1n << 256n;

/** DIFFICULTY_TARGET_V2 from hard fork 2, V1 before (Blockchain::get_difficulty_target). */
export function difficultyTarget(hfVersion: number): number {
  return hfVersion < 2 ? DIFFICULTY_TARGET_V1 : DIFFICULTY_TARGET_V2;
}

/**
 * next_difficulty: the difficulty of the next block from up to DIFFICULTY_WINDOW timestamps and
 * cumulative difficulties (oldest first; extra entries beyond the window are dropped from the end).
 * Returns 0n where Monero's result overflows 128 bits (64 bits with `bits` = 64, next_difficulty_64).
 */
export function nextDifficulty(
  timestamps: readonly bigint[],
  cumulativeDifficulties: readonly bigint[],
  targetSeconds: number,
  bits: 64 | 128 = 128,
): bigint {
  if (timestamps.length !== cumulativeDifficulties.length) throw new RangeError("timestamps and cumulative difficulties differ in length");
  const n = Math.min(timestamps.length, DIFFICULTY_WINDOW);
  if (n <= 1) return 1n;
  const ts = timestamps.slice(0, n).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const kept = DIFFICULTY_WINDOW - 2 * DIFFICULTY_CUT;
  let cutBegin = 0;
  let cutEnd = n;
  if (n > kept) {
    cutBegin = Math.floor((n - kept + 1) / 2);
    cutEnd = cutBegin + kept;
  }
  let timeSpan = ts[cutEnd - 1] - ts[cutBegin];
  if (bits === 64) timeSpan &= MAX_U64;
  if (timeSpan === 0n) timeSpan = 1n;
  let totalWork = cumulativeDifficulties[cutEnd - 1] - cumulativeDifficulties[cutBegin];
  if (bits === 64) {
    totalWork &= MAX_U64;
    // next_difficulty_64: 0 when total_work * target overflows 64 bits
    const product = totalWork * BigInt(targetSeconds);
    if (product > MAX_U64) return 0n;
    const res = (product + timeSpan - 1n) / timeSpan;
    return res > MAX_U64 ? 0n : res;
  }
  const res = (totalWork * BigInt(targetSeconds) + timeSpan - 1n) / timeSpan;
  return res > MAX_U128 ? 0n : res;
}

/** A 32-byte hash read as Monero does for PoW: a little-endian 256-bit integer. */
export function hashToBigint(hash: Uint8Array): bigint {
  if (hash.length !== 32) throw new TypeError("hash must be 32 bytes");
  let v = 0n;
  for (let i = 31; i >= 0; i--) v = (v << 8n) | BigInt(hash[i]);
  return v;
}

/** check_hash: true when the PoW hash satisfies `difficulty` (hash × difficulty < 2^256). */
export function checkHash(hash: Uint8Array, difficulty: bigint): boolean {
  return hashToBigint(hash) * difficulty < TWO_256;
}

/**
 * The (timestamps, cumulative difficulties) window Blockchain::get_difficulty_for_next_block feeds
 * next_difficulty for a chain of `chainHeight` blocks: heights [max(0, h − 735), h) and, once the
 * chain is long enough, without the last DIFFICULTY_LAG blocks.
 */
export function difficultyWindow(chainHeight: number): { begin: number; end: number } {
  // Mirrors tests/difficulty/difficulty.cpp and the blockchain's window: the newest blocks count
  // only after DIFFICULTY_LAG confirmations.
  if (chainHeight < DIFFICULTY_BLOCKS_COUNT) return { begin: 0, end: Math.min(chainHeight, DIFFICULTY_WINDOW) };
  const end = chainHeight - DIFFICULTY_LAG;
  return { begin: end - DIFFICULTY_WINDOW, end };
}

/**
 * A 128-bit difficulty as monerod's RPC spells it: `difficulty` (low 64 bits), `difficulty_top64`
 * and `wide_difficulty` (0x-hex without leading zeros); the same for cumulative difficulty.
 */
export function wideDifficulty(d: bigint): { low: bigint; top64: bigint; wide: string } {
  if (d < 0n || d > MAX_U128) throw new RangeError("difficulty out of 128-bit range");
  return { low: d & MAX_U64, top64: d >> 64n, wide: `0x${d.toString(16)}` };
}
