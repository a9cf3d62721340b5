/**
 * Caches of what the read methods render, so a hot block, header or transaction is parsed, hashed
 * and hex-encoded once rather than on every request.
 *
 * Only content-addressed data is kept: a block id fixes the block, its height and (as the block
 * fixes its ancestors) its difficulty, cumulative difficulty and weights; a tx id fixes the tx's
 * bytes. What depends on the chain's current state (depth, confirmations, a tx's location, whether
 * it is in the pool) is read per request. Values derived from the tip are kept per tip id.
 */

/** A map that forgets its oldest entry past `capacity` (insertion order; hits do not refresh). */
export class BoundedCache<K, V> {
  private readonly m = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(k: K): V | undefined {
    return this.m.get(k);
  }

  set(k: K, v: V): V {
    if (this.m.size >= this.capacity && !this.m.has(k)) {
      const oldest = this.m.keys().next();
      if (!oldest.done) this.m.delete(oldest.value);
    }
    this.m.set(k, v);
    return v;
  }

  /** The cached value, or `make()`'s, kept. */
  getOr(k: K, make: () => V): V {
    const v = this.m.get(k);
    return v !== undefined ? v : this.set(k, make());
  }

  clear(): void {
    this.m.clear();
  }

  get size(): number {
    return this.m.size;
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
