/**
 * Caches of what the read methods render, so a hot block, header or transaction is parsed, hashed
 * and hex-encoded once rather than on every request.
 *
 * Only content-addressed data is kept: a block id fixes the block, its height and (as the block
 * fixes its ancestors) its difficulty, cumulative difficulty and weights; a tx id fixes the tx's
 * bytes. What depends on the chain's current state (depth, confirmations, a tx's location, whether
 * it is in the pool) is read per request. Values derived from the tip are kept per tip id.
 */

/** Lookups of a cache that found their entry and that did not (summed over the cache's lifetimes). */
export interface CacheCounter {
  hits: number;
  misses: number;
}

/** How a BoundedCache admits entries. */
export interface AdmitOptions {
  /**
   * Keep a key's value only when it is set again while the key is still remembered (the last
   * 4 × capacity keys set and not kept): a doorkeeper, as TinyLFU's. A scan that reads every key
   * once (an explorer indexing the chain, a wallet's restore) then passes through instead of
   * filling the cache with entries nobody asks again, each of which the garbage collector copies
   * and marks while it is kept (docs/bench-scale.md, stop 44).
   */
  admitOnRepeat?: boolean;
}

/**
 * A map that forgets its oldest entries past `capacity` entries or past `maxWeight` in all
 * (insertion order; hits do not refresh). Weights are what the caller says an entry costs
 * (characters of its strings, say); a single entry heavier than `maxWeight` is not kept.
 * `get` and `getOr` count into `counter` when one is given.
 */
export class BoundedCache<K, V> {
  private readonly m = new Map<K, { v: V; w: number }>();
  private total = 0;
  /** Keys set once and not kept (admitOnRepeat). */
  private readonly seen: Set<K> | undefined;

  constructor(
    private readonly capacity: number,
    private readonly maxWeight = Infinity,
    private readonly weigh: (v: V) => number = () => 1,
    private readonly counter?: CacheCounter,
    admit: AdmitOptions = {},
  ) {
    this.seen = admit.admitOnRepeat ? new Set() : undefined;
  }

  private count(found: boolean): void {
    if (this.counter) {
      if (found) this.counter.hits++;
      else this.counter.misses++;
    }
  }

  get(k: K): V | undefined {
    const e = this.m.get(k);
    this.count(e !== undefined);
    return e?.v;
  }

  /** The kept value, not counted as a lookup (for a shortcut that does not stand for a read). */
  peek(k: K): V | undefined {
    return this.m.get(k)?.v;
  }

  /** Keeps `v` (unless it alone outweighs the limit, or it is the key's first time under admitOnRepeat) and returns it. */
  set(k: K, v: V, weight = this.weigh(v)): V {
    const old = this.m.get(k);
    if (old) {
      this.total -= old.w;
      this.m.delete(k);
    } else if (this.seen) {
      if (!this.seen.has(k)) {
        if (this.seen.size >= 4 * this.capacity) this.seen.clear();
        this.seen.add(k);
        return v;
      }
      this.seen.delete(k);
    }
    if (weight > this.maxWeight) return v;
    while (this.m.size > 0 && (this.m.size >= this.capacity || this.total + weight > this.maxWeight)) {
      const oldest = this.m.entries().next();
      if (oldest.done) break;
      this.total -= oldest.value[1].w;
      this.m.delete(oldest.value[0]);
    }
    this.m.set(k, { v, w: weight });
    this.total += weight;
    return v;
  }

  /** The cached value, or `make()`'s, kept. */
  getOr(k: K, make: () => V): V {
    const e = this.m.get(k);
    this.count(e !== undefined);
    return e !== undefined ? e.v : this.set(k, make());
  }

  clear(): void {
    this.m.clear();
    this.seen?.clear();
    this.total = 0;
  }

  get size(): number {
    return this.m.size;
  }

  /** The weight of what is kept. */
  get weight(): number {
    return this.total;
  }
}

/**
 * One value per chain tip: recomputed when the tip moves. The tip is named by the store's
 * revision (which moves on every pop) and its height (which moves on every append), both in memory.
 */
export class PerTip<V> {
  private revision = -1;
  private height = -1;
  private value: V | undefined;

  constructor(private readonly make: () => V) {}

  get(revision: number, height: number): V {
    if (this.value === undefined || revision !== this.revision || height !== this.height) {
      this.value = this.make();
      this.revision = revision;
      this.height = height;
    }
    return this.value;
  }
}

/** One value per `ttlMs` (for figures that are costly to read and may lag a little, like disk usage). */
export function throttled<V>(ttlMs: number, read: () => V): () => V {
  let at = -Infinity;
  let value: V;
  return () => {
    const now = performance.now();
    if (now - at >= ttlMs) {
      value = read();
      at = now;
    }
    return value;
  };
}
