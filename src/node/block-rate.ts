/**
 * monerod's block-rate check (core::check_block_rate): every 90 s, the timestamps of the last 150
 * blocks are counted in windows of 90, 60, 30, 20 and 10 minutes; the first window whose count is
 * improbable under a Poisson law with the expected count (window / 120 s) — less likely than once in
 * ten days of checks — is reported (and runs --block-rate-notify with %t, %b, %e). monerod skips the
 * check offline, on regtest and while it has no sync target from its peers.
 */

/** DIFFICULTY_TARGET_V2 (s). */
const TARGET = 120;
const WINDOWS = [5400, 3600, 1800, 1200, 600] as const;
export const BLOCK_RATE_BLOCKS = 150;
export const BLOCK_RATE_INTERVAL_MS = 90_000;
/** one false positive every 10 days */
const THRESHOLD = 1 / (864000 / TARGET);

function factorial(n: number): number {
  let f = 1;
  for (let i = 2; i <= n; i++) f *= i;
  return f;
}

function probability1(blocks: number, expected: number): number {
  return expected ** blocks / (factorial(blocks) * Math.exp(expected));
}

/** P(count <= blocks) when blocks <= expected, else P(blocks <= count <= 3 expected) (monerod's "close enough"). */
export function blockRateProbability(blocks: number, expected: number): number {
  let p = 0;
  if (blocks <= expected) for (let b = 0; b <= blocks; b++) p += probability1(b, expected);
  else for (let b = blocks; b <= expected * 3; b++) p += probability1(b, expected);
  return p;
}

/** What an improbable window looks like: %t minutes, %b blocks seen, %e expected. */
export interface BlockRateAlert {
  minutes: number;
  blocks: number;
  expected: number;
}

/** The first improbable window of the last blocks' timestamps at `now` (unix s), or undefined. */
export function checkBlockRate(timestamps: readonly number[], now: number): BlockRateAlert | undefined {
  for (const seconds of WINDOWS) {
    const boundary = now - seconds;
    let b = 0;
    for (const ts of timestamps) if (ts >= boundary) b++;
    const expected = seconds / TARGET;
    if (blockRateProbability(b, expected) < THRESHOLD) return { minutes: seconds / 60, blocks: b, expected };
  }
  return undefined;
}
