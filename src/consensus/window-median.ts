/**
 * The median of a sliding window of per-block values (the long-term block weights of the last
 * 100,000 blocks), kept up to date as the window moves instead of re-read and re-sorted for every
 * block: monerod keeps a rolling median for the same reason (epee::misc_utils::rolling_median_t in
 * Blockchain::m_long_term_block_weights_cache_rolling_median). Values are fetched by height through
 * `read`; a window that jumps (a reorg, a cold start) is rebuilt from scratch.
 */
export class WindowMedian {
  /** Height of values[head]. */
  private start = 0;
  /** Values by height from `start`; entries before `head` are dropped ones not yet compacted. */
  private values: number[] = [];
  private head = 0;
  /** The window's values in ascending order. */
  private sorted: number[] = [];

  private get end(): number {
    return this.start + this.values.length - this.head;
  }

  /**
   * Median (epee's: the floor of the mean of the two middle values for an even count; 0 if empty)
   * of the values of heights [start, start + count), with `zeros` zeros added to them
   * (get_fee_estimate's grace blocks; every value is ≥ 0, so the zeros sort first).
   */
  median(start: number, count: number, read: (start: number, count: number) => number[], zeros = 0): number {
    const end = start + count;
    if (count <= 0) return 0;
    // moving forward (or staying) with an overlap of at least half the window: update, else rebuild
    const overlap = Math.min(end, this.end) - Math.max(start, this.start);
    if (start < this.start || overlap < count / 2) this.rebuild(start, read(start, count));
    else {
      while (this.end > end) this.remove(this.values.pop() as number);
      while (this.start < start) {
        this.remove(this.values[this.head++]);
        this.start++;
      }
      if (this.end < end) for (const v of read(this.end, end - this.end)) this.add(v);
      if (this.head > 4096 && this.head * 2 > this.values.length) {
        this.values = this.values.slice(this.head);
        this.head = 0;
      }
    }
    const s = this.sorted;
    const n = s.length + zeros;
    const at = (i: number): number => (i < zeros ? 0 : s[i - zeros]);
    return n % 2 === 1 ? at((n - 1) / 2) : Math.floor((at(n / 2 - 1) + at(n / 2)) / 2);
  }

  /** Forgets values of heights ≥ `height` (blocks popped: the heights will hold other blocks). */
  truncate(height: number): void {
    if (height <= this.start) this.rebuild(0, []);
    else while (this.end > height) this.remove(this.values.pop() as number);
  }

  private rebuild(start: number, values: number[]): void {
    this.start = start;
    this.values = values.slice();
    this.head = 0;
    this.sorted = values.slice().sort((a, b) => a - b);
  }

  private add(v: number): void {
    this.values.push(v);
    this.sorted.splice(lowerBound(this.sorted, v), 0, v);
  }

  private remove(v: number): void {
    const i = lowerBound(this.sorted, v);
    if (this.sorted[i] !== v) throw new Error(`WindowMedian: value ${v} not in the window`);
    this.sorted.splice(i, 1);
  }
}

function lowerBound(a: readonly number[], v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
