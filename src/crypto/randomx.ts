/**
 * RandomX proof of work (light mode) through the system librandomx, never on the main thread.
 *
 * The addon (native/randomx/addon.c) dlopen()s librandomx at run time, so everything here loads
 * without it; randomxStatus() then says why RandomX is unavailable and how to fix it. Every cache
 * initialisation and every hash is Node-API async work on libuv's threadpool returning a Promise
 * (see the addon's header comment for why not worker_threads). Because that pool also serves
 * fs/dns/zlib, a RandomX instance runs at most `threads` jobs at once and queues the rest.
 *
 * Monero keys RandomX with the 32-byte id of the seed block and hashes the block's hashing blob
 * (src/crypto/rx-slow-hash.c); around a seed switch it needs two seeds, hence an LRU of two
 * 256 MiB caches keyed by seed hash. Full-dataset (mining) mode is not bound yet.
 */
import { availableParallelism } from "node:os";
import {
  loadRandomXAddon,
  type NativeCacheHandle,
  type NativeCacheInfo,
  type RandomXAddon,
} from "./randomx-native.js";

/** RandomX flag bits, with the values of randomx.h. */
export const RandomXFlag = {
  DEFAULT: 0,
  LARGE_PAGES: 1,
  HARD_AES: 2,
  FULL_MEM: 4,
  JIT: 8,
  SECURE: 16,
  ARGON2_SSSE3: 32,
  ARGON2_AVX2: 64,
  ARGON2: 96,
} as const;

/** Size in bytes of a RandomX hash. */
export const RANDOMX_HASH_SIZE = 32;

/** Monero: blocks per RandomX seed epoch (SEEDHASH_EPOCH_BLOCKS, src/crypto/rx-slow-hash.c). */
export const SEEDHASH_EPOCH_BLOCKS = 2048;

/** Monero: blocks a new seed lags behind its epoch boundary (SEEDHASH_EPOCH_LAG). */
export const SEEDHASH_EPOCH_LAG = 64;

/** Height of the block whose id keys RandomX for the block at `height` (rx_seedheight). */
export function rxSeedHeight(height: number): number {
  if (!Number.isSafeInteger(height) || height < 0)
    throw new RangeError(`height must be a non-negative safe integer, got ${height}`);
  if (height <= SEEDHASH_EPOCH_BLOCKS + SEEDHASH_EPOCH_LAG) return 0;
  const h = height - SEEDHASH_EPOCH_LAG - 1;
  return h - (h % SEEDHASH_EPOCH_BLOCKS);
}

/** Seed heights for `height` and `height + lag`, i.e. the seed to prepare next (rx_seedheights). */
export function rxSeedHeights(height: number): { seedHeight: number; nextSeedHeight: number } {
  return { seedHeight: rxSeedHeight(height), nextSeedHeight: rxSeedHeight(height + SEEDHASH_EPOCH_LAG) };
}

/** Whether RandomX can run here: the recommended flags, or exactly why not and how to fix it. */
export type RandomXStatus =
  | { available: true; flags: number; library: string }
  | { available: false; reason: string };

/** Loads the addon and librandomx (once) and reports whether RandomX is usable. */
export function randomxStatus(): RandomXStatus {
  const loaded = loadRandomXAddon();
  if ("error" in loaded) return { available: false, reason: loaded.error };
  return loaded.addon.status();
}

/** Thrown when RandomX cannot run here; the message says why and which package to install. */
export class RandomXUnavailableError extends Error {
  override readonly name = "RandomXUnavailableError";
}

/** Thrown for work refused or dropped because the RandomX instance was closed. */
export class RandomXClosedError extends Error {
  override readonly name = "RandomXClosedError";
}

/** Options of a RandomX instance; every field is optional. */
export interface RandomXOptions {
  /** Jobs (hashes, cache inits) run at once; default min(cores, UV_THREADPOOL_SIZE - 1), ≥ 1. */
  threads?: number;
  /** Seed caches kept (LRU, 256 MiB each); default 2: the current and the next seed. */
  maxCaches?: number;
  /** RandomX flags instead of randomx_get_flags() (e.g. RandomXFlag.DEFAULT: interpreter). */
  flags?: number;
  /** W^X JIT pages (RANDOMX_FLAG_SECURE), as monerod uses when verifying; default true. */
  secure?: boolean;
  /** Try huge pages first for caches and VMs, falling back silently; default false. */
  largePages?: boolean;
  /**
   * Whether the cache of a cached seed is no longer needed by its owner (a node: the chain has
   * moved past that seed). A new seed then re-keys such a cache in place when no job uses it,
   * instead of allocating a second 256 MiB one beside it while the LRU has room. A throw counts as
   * false. Default: never (the LRU alone decides).
   */
  recyclable?: (seedHash: Uint8Array) => boolean;
}

/** Per-cache counters reported by the addon (flags in effect, VMs, jobs in flight). */
export type RandomXCacheInfo = NativeCacheInfo;

/** A snapshot of a RandomX instance: limits, queue, and cached seeds from least to most recent. */
export interface RandomXStats {
  threads: number;
  running: number;
  queued: number;
  caches: { seedHash: string; ready: boolean; users: number; info: RandomXCacheInfo | null }[];
}

class CacheSlot {
  handle: NativeCacheHandle | undefined;
  users = 0;
  evicted = false;
  /** performance.now() of the last acquire or release: how long the cache has been idle. */
  lastUsed = performance.now();
  ready!: Promise<NativeCacheHandle>;
  constructor(readonly key: string) {}
}

interface QueuedJob {
  start(): void;
  reject(err: Error): void;
}

function checkBytes(v: unknown, what: string): asserts v is Uint8Array {
  if (!(v instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

function defaultThreads(): number {
  const env = Number.parseInt(process.env.UV_THREADPOOL_SIZE ?? "", 10);
  const pool = Number.isInteger(env) && env >= 1 ? Math.min(env, 1024) : 4;
  return Math.max(1, Math.min(availableParallelism(), pool - 1));
}

/** Light-mode RandomX hasher with an LRU of seed caches; all work runs off the main thread. */
export class RandomX {
  /** Maximum jobs this instance runs at once on libuv's threadpool. */
  readonly threads: number;
  /** Maximum seed caches kept. */
  readonly maxCaches: number;
  private readonly recyclable: ((seedHash: Uint8Array) => boolean) | undefined;
  /** Flags passed to randomx_alloc_cache (before fallbacks). */
  readonly cacheFlags: number;
  /** Flags passed to randomx_create_vm (before fallbacks). */
  readonly vmFlags: number;
  private readonly addon: RandomXAddon;
  private readonly largePages: boolean;
  private readonly slots = new Map<string, CacheSlot>();
  private readonly queue: QueuedJob[] = [];
  private readonly active = new Set<Promise<void>>();
  private running = 0;
  private closing: Promise<void> | undefined;

  /** Throws RandomXUnavailableError when the addon or librandomx is missing. */
  constructor(options: RandomXOptions = {}) {
    const loaded = loadRandomXAddon();
    if ("error" in loaded) throw new RandomXUnavailableError(`RandomX unavailable: ${loaded.error}`);
    const st = loaded.addon.status();
    if (!st.available) throw new RandomXUnavailableError(`RandomX unavailable: ${st.reason}`);
    this.addon = loaded.addon;
    const threads = options.threads ?? defaultThreads();
    const maxCaches = options.maxCaches ?? 2;
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError("threads must be an integer ≥ 1");
    if (!Number.isInteger(maxCaches) || maxCaches < 1) throw new RangeError("maxCaches must be an integer ≥ 1");
    const flags = options.flags ?? st.flags;
    if (!Number.isInteger(flags) || flags < 0 || flags > 127) throw new RangeError(`bad RandomX flags ${flags}`);
    if (flags & RandomXFlag.FULL_MEM)
      throw new RangeError("full-dataset (mining) mode is not supported by this binding yet");
    this.threads = threads;
    this.maxCaches = maxCaches;
    this.recyclable = options.recyclable;
    this.largePages = options.largePages ?? (flags & RandomXFlag.LARGE_PAGES) !== 0;
    // Light mode: the cache only needs the Argon2 variant; a JIT cache only speeds dataset init.
    this.cacheFlags = flags & RandomXFlag.ARGON2;
    let vm = flags & (RandomXFlag.HARD_AES | RandomXFlag.JIT | RandomXFlag.SECURE);
    // rx-slow-hash.c: verifying (non-mining) VMs with the JIT also get W^X.
    if (options.secure === false) vm &= ~RandomXFlag.SECURE;
    else if (vm & RandomXFlag.JIT) vm |= RandomXFlag.SECURE;
    this.vmFlags = vm;
  }

  /** RandomX hash of `input` keyed by `seedHash` (Monero: seed block id, hashing blob). */
  async hash(seedHash: Uint8Array, input: Uint8Array): Promise<Uint8Array> {
    checkBytes(seedHash, "seedHash");
    checkBytes(input, "input");
    this.assertOpen();
    const data = input.slice(); // captured now: the caller may reuse its buffer while we queue
    const slot = this.acquire(seedHash);
    try {
      const handle = await slot.ready;
      return await this.schedule(() => this.addon.hash(handle, data));
    } finally {
      this.release(slot);
    }
  }

  /** Initialises (in the background) the cache for `seedHash`, e.g. the next seed before a switch. */
  async prepare(seedHash: Uint8Array): Promise<void> {
    checkBytes(seedHash, "seedHash");
    this.assertOpen();
    const slot = this.acquire(seedHash);
    try {
      await slot.ready;
    } finally {
      this.release(slot);
    }
  }

  /** Seeds with a cache (ready or initialising). */
  get cacheCount(): number {
    return this.slots.size;
  }

  /**
   * Releases the cache of every seed outside `keep` that no job uses and none has used for
   * `idleMs`: a node that has moved past a seed switch holds one 256 MiB cache instead of two
   * (the LRU alone keeps both until a third seed comes). Returns how many were released.
   */
  releaseIdle(keep: readonly Uint8Array[], idleMs: number): number {
    const kept = new Set(keep.map(hex));
    const now = performance.now();
    let n = 0;
    for (const slot of [...this.slots.values()]) {
      if (kept.has(slot.key) || slot.users > 0 || slot.handle === undefined || now - slot.lastUsed < idleMs) continue;
      this.evict(slot);
      n++;
    }
    return n;
  }

  /** Current limits, queue lengths and cached seeds (least recently used first). */
  stats(): RandomXStats {
    return {
      threads: this.threads,
      running: this.running,
      queued: this.queue.length,
      caches: [...this.slots.values()].map((s) => ({
        seedHash: s.key,
        ready: s.handle !== undefined,
        users: s.users,
        info: s.handle ? this.addon.cacheInfo(s.handle) : null,
      })),
    };
  }

  /** Rejects queued work, waits for running work, then releases every cache; idempotent. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    const dropped = this.queue.splice(0);
    for (const job of dropped) job.reject(new RandomXClosedError("RandomX instance closed"));
    this.closing = (async () => {
      await Promise.allSettled([...this.active]);
      for (const slot of [...this.slots.values()]) this.evict(slot);
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing) throw new RandomXClosedError("RandomX instance closed");
  }

  // Runs `job` when fewer than `threads` jobs of this instance are running.
  private schedule<T>(job: () => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new RandomXClosedError("RandomX instance closed"));
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        this.running++;
        let p: Promise<T>;
        try {
          p = job();
        } catch (err) {
          p = Promise.reject(err);
        }
        const done: Promise<void> = p.then(resolve, reject).finally(() => {
          this.running--;
          this.active.delete(done);
          this.pump();
        });
        this.active.add(done);
      };
      this.queue.push({ start, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.threads && this.queue.length > 0) this.queue.shift()!.start();
  }

  // The slot for `seedHash` (created and initialising if new), marked most recent, with one more user.
  private acquire(seedHash: Uint8Array): CacheSlot {
    const key = hex(seedHash);
    let slot = this.slots.get(key);
    if (slot) {
      this.slots.delete(key); // re-inserted below as the most recent
    } else {
      slot = this.startSlot(key, seedHash.slice());
    }
    this.slots.set(key, slot);
    slot.users++;
    slot.lastUsed = performance.now();
    return slot;
  }

  // A new slot whose cache initialises in the background. When the LRU is full, the least recent
  // seed goes (or, below that, a seed the owner calls recyclable and nothing uses); if nothing uses
  // its cache, that cache is re-keyed in place: no 256 MiB munmap/mmap
  // (which stalls every thread needing the mmap lock, the main one included) and its VMs are kept.
  private startSlot(key: string, seed: Uint8Array): CacheSlot {
    const slot = new CacheSlot(key);
    let recycled: NativeCacheHandle | undefined;
    // the slot whose cache goes: the least recent when the LRU is full, else an idle one of a seed
    // its owner has moved past (`recyclable`: one 256 MiB cache, not two)
    const victim =
      this.slots.size >= this.maxCaches
        ? (this.slots.values().next().value as CacheSlot)
        : [...this.slots.values()].find((s) => s.users === 0 && s.handle !== undefined && this.isRecyclable(s.key));
    if (victim) {
      if (victim.users === 0 && victim.handle !== undefined) {
        recycled = victim.handle;
        victim.handle = undefined;
      }
      this.evict(victim);
    }
    const init = (): Promise<NativeCacheHandle> =>
      recycled !== undefined
        ? this.addon.cacheRecycle(recycled, seed)
        : this.addon.cacheCreate(seed, this.cacheFlags, this.vmFlags, this.largePages);
    slot.ready = this.schedule(init).then(
      (handle) => {
        slot.handle = handle;
        if (slot.evicted && slot.users === 0) this.free(slot);
        return handle;
      },
      (err: unknown) => {
        // A no-op if the recycled cache was handed over; otherwise (never started) release it.
        if (recycled !== undefined) this.addon.cacheRelease(recycled);
        if (this.slots.get(key) === slot) this.slots.delete(key); // let a later call retry
        throw err;
      },
    );
    slot.ready.catch(() => {}); // each waiting caller sees the error; this only silences the slot's own copy
    return slot;
  }

  private isRecyclable(key: string): boolean {
    try {
      return this.recyclable?.(Uint8Array.from(Buffer.from(key, "hex"))) === true;
    } catch {
      return false;
    }
  }

  private release(slot: CacheSlot): void {
    slot.users--;
    slot.lastUsed = performance.now();
    if (slot.evicted && slot.users === 0) this.free(slot);
  }

  // Forgets a seed; its cache is released once no job uses it (the addon refcounts it as well).
  private evict(slot: CacheSlot): void {
    if (this.slots.get(slot.key) === slot) this.slots.delete(slot.key);
    slot.evicted = true;
    if (slot.users === 0) this.free(slot);
  }

  private free(slot: CacheSlot): void {
    const handle = slot.handle;
    if (handle === undefined) return; // still initialising: freed when it resolves
    slot.handle = undefined;
    this.addon.cacheRelease(handle);
  }
}
