/**
 * The pool's change log for incremental pool info (later releases' get_blocks.bin with
 * requested_info / pool_info_since): when each pool tx was added, which txs left and when.
 * Mirrors tx_memory_pool's transient lists (src/cryptonote_core/tx_pool.cpp at master:
 * add_tx_to_transient_lists, remove_tx_from_transient_lists, track_removed_tx, get_pool_info).
 * Times are the pool's clock (unix seconds), taken when the change happens, not the tx's receive time.
 */

/** tx_memory_pool::track_removed_tx's bound on the removed list: past it the oldest quarter goes. */
export const MAX_REMOVED = 20000;
/** track_removed_tx's window: removals older than 30 minutes are forgotten. */
export const REMOVED_WINDOW = 30 * 60;

interface Added {
  time: number;
  /** Not broadcast (do_not_relay): hidden from restricted clients, as monerod's "sensitive" txs. */
  sensitive: boolean;
}
interface Removed {
  time: number;
  id: string;
  sensitive: boolean;
}

/** What get_pool_info decides before fetching the txs: the ids (hex) to send and whether incrementally. */
export interface PoolChangeSet {
  incremental: boolean;
  /** Ids added since (all pool ids when not incremental), oldest change first. */
  added: string[];
  /** Ids removed since (incremental only), oldest first; a tx removed and added again is in both. */
  removed: string[];
}

export class PoolChangeLog {
  /** id hex → when it was (last) added; Map order is change order. */
  private readonly added = new Map<string, Added>();
  private addedStart = 0;
  /** Removals in time order (a multimap by time: equal times keep their order). */
  private removed: Removed[] = [];
  private removedStart = 0;

  constructor(private readonly now: () => number) {}

  /** add_tx_to_transient_lists: a tx entered the pool, or became broadcast (a new time, no longer sensitive). */
  noteAdded(id: string, sensitive: boolean): void {
    const now = this.now();
    // a later change goes last in the order
    this.added.delete(id);
    this.added.set(id, { time: now, sensitive });
    // monerod does not take a "resurrected" tx out of the removed list: clients apply removals first
    if (this.addedStart === 0) this.addedStart = now;
  }

  /** remove_tx_from_transient_lists + track_removed_tx: a tx left the pool (mined, flushed, evicted, dropped). */
  noteRemoved(id: string, sensitive: boolean): void {
    this.added.delete(id);
    const now = this.now();
    // keep time order even if the clock stepped back (multimap insertion: after equal times)
    let k = this.removed.length;
    while (k > 0 && this.removed[k - 1].time > now) k--;
    this.removed.splice(k, 0, { time: now, id, sensitive });
    if (this.removedStart === 0) this.removedStart = now;
    if (this.removed.length > MAX_REMOVED) {
      this.removed = this.removed.slice(MAX_REMOVED / 4 + 1);
      this.removedStart = this.removed[0].time;
    } else {
      const earliest = now - REMOVED_WINDOW;
      let n = 0;
      while (n < this.removed.length && this.removed[n].time < earliest) n++;
      if (n > 0) {
        this.removed = this.removed.slice(n);
        this.removedStart = earliest;
      }
    }
  }

  /**
   * tx_memory_pool::get_pool_info's choice and lists: the whole pool when `since` is 0 or either
   * list does not reach back past it (`since` must be later than both lists' start: a change at
   * exactly `since` may be missing), else the ids added at or after `since` and those removed at or
   * after it. `since` is time_t: a u64 past 2^63 is negative (the whole pool).
   */
  since(since: bigint, includeSensitive: boolean): PoolChangeSet {
    const t = BigInt.asIntN(64, since);
    const incremental = t !== 0n && this.addedStart !== 0 && this.removedStart !== 0 && t > BigInt(this.addedStart) && t > BigInt(this.removedStart);
    const removed: string[] = [];
    if (incremental) {
      for (const r of this.removed) if (BigInt(r.time) >= t && (includeSensitive || !r.sensitive)) removed.push(r.id);
    }
    const added: string[] = [];
    for (const [id, a] of this.added) {
      if (!includeSensitive && a.sensitive) continue;
      if (!incremental || BigInt(a.time) >= t) added.push(id);
    }
    return { incremental, added, removed };
  }
}
