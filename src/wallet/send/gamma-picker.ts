/**
 * wallet2's gamma picker (gamma_picker in src/wallet/wallet2.cpp, v0.18): the age of a decoy,
 * in seconds, is exp(Gamma(19.28, 1/1.61)) (Miller et al.); it is turned into a number of
 * outputs back from the newest unlocked one through the average time between outputs over the
 * last year of blocks (at the 120 s target, not from timestamps), and the decoy is then drawn
 * uniformly among the outputs of the block that position falls in. Ages shorter than the
 * 10-block unlock time are redrawn uniformly in the first 15 blocks' worth of seconds.
 */
import type { RandomDraw } from "./random-draw.js";

export const GAMMA_SHAPE = 19.28;
export const GAMMA_SCALE = 1 / 1.61;
/** DIFFICULTY_TARGET_V2, seconds. */
export const DIFFICULTY_TARGET_V2 = 120;
/** CRYPTONOTE_DEFAULT_TX_SPENDABLE_AGE, blocks. */
export const DEFAULT_TX_SPENDABLE_AGE = 10;
/** CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW, blocks. */
export const MINED_MONEY_UNLOCK_WINDOW = 60;
/** wallet2's DEFAULT_UNLOCK_TIME, seconds. */
export const DEFAULT_UNLOCK_TIME = DEFAULT_TX_SPENDABLE_AGE * DIFFICULTY_TARGET_V2;
/** wallet2's RECENT_SPEND_WINDOW, seconds. */
export const RECENT_SPEND_WINDOW = 15 * DIFFICULTY_TARGET_V2;
const BLOCKS_IN_A_YEAR = Math.floor((86400 * 365) / DIFFICULTY_TARGET_V2);

/** The picker cannot work on this distribution (wallet2 throws wallet_internal_error). */
export class GammaPickerError extends Error {
  override readonly name = "GammaPickerError";
}

export class GammaPicker {
  /** Outputs the picker can return: those of blocks at least 10 below the tip (indices below this). */
  readonly numRctOutputs: number;
  /** Seconds between two outputs, averaged over the last year of blocks. */
  readonly averageOutputTime: number;
  /** Number of blocks searched (the last 10 are left out). */
  private readonly searchEnd: number;

  constructor(
    private readonly offsets: readonly number[],
    private readonly draw: RandomDraw,
    private readonly shape = GAMMA_SHAPE,
    private readonly scale = GAMMA_SCALE,
  ) {
    if (offsets.length <= DEFAULT_TX_SPENDABLE_AGE) throw new GammaPickerError("Bad offset calculation");
    const blocksToConsider = Math.min(offsets.length, BLOCKS_IN_A_YEAR);
    const outputsToConsider = offsets[offsets.length - 1] - (blocksToConsider < offsets.length ? offsets[offsets.length - blocksToConsider - 1] : 0);
    this.searchEnd = offsets.length - DEFAULT_TX_SPENDABLE_AGE;
    this.numRctOutputs = offsets[this.searchEnd - 1];
    if (this.numRctOutputs === 0) throw new GammaPickerError("No rct outputs");
    this.averageOutputTime = (DIFFICULTY_TARGET_V2 * blocksToConsider) / outputsToConsider;
  }

  /** A global output index, or null for a bad pick (too old for the chain, or an empty block). */
  pick(): number | null {
    let x = Math.exp(this.draw.gamma(this.shape, this.scale));
    if (x > DEFAULT_UNLOCK_TIME) x -= DEFAULT_UNLOCK_TIME;
    else x = this.draw.index(RECENT_SPEND_WINDOW);
    const back = Math.floor(x / this.averageOutputTime);
    if (!(back < this.numRctOutputs)) return null;
    const target = this.numRctOutputs - 1 - back;
    // first block whose cumulative count is ≥ target (std::lower_bound over the searched blocks)
    let lo = 0;
    let hi = this.searchEnd;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.searchEnd) throw new GammaPickerError("output_index not found");
    const first = lo === 0 ? 0 : this.offsets[lo - 1];
    const n = this.offsets[lo] - first;
    if (n === 0) return null;
    return first + this.draw.index(n);
  }
}
