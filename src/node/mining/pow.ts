/**
 * Proof of work for mining: the hash monerod's get_block_longhash computes for a hashing blob
 * (src/cryptonote_core/cryptonote_tx_utils.cpp), the nonce search of miner::find_nonce_for_given_block
 * (src/cryptonote_basic/miner.cpp) and the calc_pow RPC.
 *
 * RandomX runs through src/crypto/randomx.ts (light mode, on libuv's thread pool); CryptoNight v0,
 * v1, v2 and CryptoNight-R (hard forks 10 and 11, keyed by the height) through
 * src/crypto/slow-hash.ts (a worker thread).
 */
import { checkHash } from "../../consensus/difficulty.js";
import { RandomX } from "../../crypto/randomx.js";
import { cnSlowHash, type CnVariant } from "../../crypto/slow-hash.js";
import type { Bytes } from "../../protocol/tx.js";
import { MiningError } from "./errors.js";
import { nonceOffset, RX_BLOCK_VERSION } from "./template.js";

/** The PoW hash monerod hard-codes for mainnet block 202612 (get_block_longhash). */
export const LONGHASH_202612 = Uint8Array.from(Buffer.from("84f64766475d51837ac9efbef1926486e58563c95a19fef4aec3254f03000000", "hex"));

/** pow_algorithm of /mining_status for a hard-fork version (core_rpc_server on_mining_status). */
export function powAlgorithm(majorVersion: number): string {
  const variant = majorVersion >= 7 ? majorVersion - 6 : 0;
  if (variant === 0) return "Cryptonight";
  if (variant === 1) return "CNv1 (Cryptonight variant 1)";
  if (variant <= 3) return "CNv2 (Cryptonight variant 2)";
  if (variant <= 5) return "CNv4 (Cryptonight variant 4)";
  return "RandomX";
}

/** Hashes hashing blobs as get_block_longhash does, with one lazily created RandomX instance. */
export class PowHasher {
  private rx: RandomX | undefined;
  private closed = false;
  private computed = 0;

  /** PoW hashes computed so far (the 202612 constant and hashes served from `recent` not counted): what a bench reports as work done. */
  get hashCount(): number {
    return this.computed;
  }
  /**
   * The last few RandomX hashes, by seed and hashing blob: a block this node mined is verified on
   * submission with the hash its nonce search just computed instead of a second light-mode hash
   * (generateblocks at a fixed difficulty above 1 hashed every found block twice).
   */
  private readonly recent = new Map<string, Bytes>();
  private static readonly RECENT = 16;

  constructor(private readonly makeRandomX: () => RandomX = () => new RandomX()) {}

  /** RandomX keyed by `seedHash` for major version ≥ 12, else CryptoNight of the version's variant. */
  async hash(majorVersion: number, height: number, hashingBlob: Bytes, seedHash: Bytes | undefined): Promise<Bytes> {
    if (this.closed) throw new Error("PoW hasher is closed");
    if (height === 202612) return LONGHASH_202612.slice();
    if (majorVersion >= RX_BLOCK_VERSION) {
      if (!seedHash || seedHash.length !== 32) throw new MiningError("bad-request", "RandomX needs the 32-byte seed hash of the block's epoch");
      this.rx ??= this.makeRandomX();
      const key = `${Buffer.from(seedHash).toString("hex")}:${Buffer.from(hashingBlob).toString("hex")}`;
      const known = this.recent.get(key);
      if (known) return known.slice();
      this.computed++;
      const h = await this.rx.hash(seedHash, hashingBlob);
      this.recent.set(key, h.slice());
      if (this.recent.size > PowHasher.RECENT) this.recent.delete(this.recent.keys().next().value as string);
      return h;
    }
    const variant = majorVersion >= 7 ? majorVersion - 6 : 0;
    // variant 3 (hard fork 9) hashes as variant 2, variant 5 (hard fork 11) as 4 (CryptoNight-R)
    const v: CnVariant = variant >= 4 ? 4 : variant >= 2 ? 2 : (variant as 0 | 1);
    this.computed++;
    return cnSlowHash(hashingBlob, v, height);
  }

  /** Starts initialising the RandomX cache of a seed (the next epoch's, ahead of the switch). */
  async prepare(seedHash: Bytes): Promise<void> {
    if (this.closed) return;
    this.rx ??= this.makeRandomX();
    await this.rx.prepare(seedHash);
  }

  /** RandomX seed caches held (0 before the first RandomX hash). */
  get seedCacheCount(): number {
    return this.rx?.cacheCount ?? 0;
  }

  /** Releases the RandomX caches of seeds outside `keep` idle for `idleMs` (RandomX.releaseIdle); how many. */
  releaseIdleSeeds(keep: readonly Bytes[], idleMs: number): number {
    return this.rx?.releaseIdle(keep, idleMs) ?? 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.rx) await this.rx.close();
    this.rx = undefined;
  }
}

/**
 * calc_pow: the PoW hash of `hashingBlob` (a block hashing blob, as monerod hashes the bytes it is
 * given) for `majorVersion` at `height`; RandomX needs `seedHash` (the RPC layer fills in the
 * chain's seed for `height` when the request has none).
 */
export function calcPow(hasher: PowHasher, majorVersion: number, height: number, hashingBlob: Bytes, seedHash?: Bytes): Promise<Bytes> {
  return hasher.hash(majorVersion, height, hashingBlob, seedHash);
}

/** Writes `nonce` (little endian) at `offset`. */
export function setNonce(blob: Uint8Array, offset: number, nonce: number): void {
  blob[offset] = nonce & 0xff;
  blob[offset + 1] = (nonce >>> 8) & 0xff;
  blob[offset + 2] = (nonce >>> 16) & 0xff;
  blob[offset + 3] = (nonce >>> 24) & 0xff;
}

export interface MinedBlock {
  nonce: number;
  /** The block blob with the nonce set. */
  blob: Bytes;
  hashingBlob: Bytes;
  /** The PoW hash found; undefined when nothing was hashed (difficulty 1, every hash meets it). */
  powHash: Bytes | undefined;
  /** Hashes computed. */
  hashes: number;
}

export interface MineOptions {
  /** Stop (returning undefined) after this many hashes. */
  maxHashes?: number;
  signal?: AbortSignal;
  /** Hash even at difficulty 1, as monerod's find_nonce_for_given_block does (default false). */
  hashTrivial?: boolean;
  /**
   * Hashes in flight at once (default 1). The result is still the lowest nonce from `startNonce`
   * that meets the difficulty — the one monerod's sequential search finds.
   */
  concurrency?: number;
}

/**
 * find_nonce_for_given_block: tries nonces from `startNonce` upwards (the nonce sits at the same
 * offset in the blob and the hashing blob) until the PoW hash meets `difficulty`; undefined when
 * the nonce space (up to 2^32 − 2, as monerod) or `maxHashes` is exhausted, or `signal` aborts.
 */
export async function mineBlock(
  template: { blob: Bytes; hashingBlob: Bytes },
  difficulty: bigint,
  powHash: (hashingBlob: Bytes) => Promise<Bytes>,
  startNonce = 0,
  opts: MineOptions = {},
): Promise<MinedBlock | undefined> {
  if (difficulty < 1n) throw new RangeError("difficulty must be at least 1");
  const blob = Uint8Array.from(template.blob);
  const hashing = Uint8Array.from(template.hashingBlob);
  const bOff = nonceOffset(blob);
  const hOff = nonceOffset(hashing);
  const first = startNonce >>> 0;
  const finish = (nonce: number, powHash: Bytes | undefined, hashes: number): MinedBlock => {
    setNonce(blob, bOff, nonce);
    setNonce(hashing, hOff, nonce);
    return { nonce, blob, hashingBlob: hashing, powHash, hashes };
  };
  if (difficulty === 1n && !opts.hashTrivial) return finish(first, undefined, 0);
  const workers = Math.max(1, Math.floor(opts.concurrency ?? 1));
  let next = first;
  let hashes = 0;
  // the lowest nonce found so far; nonces above it are not started any more
  let best: { nonce: number; hash: Bytes } | undefined;
  const worker = async (): Promise<void> => {
    for (;;) {
      if (opts.signal?.aborted) return;
      if (next === 0xffffffff || (best && next > best.nonce)) return;
      if (opts.maxHashes !== undefined && hashes >= opts.maxHashes) return;
      const nonce = next++;
      const input = hashing.slice();
      setNonce(input, hOff, nonce);
      hashes++;
      const h = await powHash(input);
      if (checkHash(h, difficulty) && (!best || nonce < best.nonce)) best = { nonce, hash: h };
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  if (!best || opts.signal?.aborted) return undefined;
  return finish(best.nonce, best.hash, hashes);
}
