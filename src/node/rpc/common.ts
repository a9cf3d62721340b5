/**
 * What every node RPC handler shares: the dependencies (core, daemon state, clock), hex helpers,
 * monerod's 128-bit triplets, epee's habit of leaving empty arrays out, and block headers; and
 * `defineJsonRpc` / `defineJsonPath`, which declare a method so that its name, params type and
 * result type reach the typed client's map (NodeRpcApi / NodePathApi in api.ts).
 */
import { nextBlockContext, type NextBlockContext } from "../../consensus/block-rules.js";
import { defaultBackend } from "../../crypto/index.js";
import { type Block, blockHash, blockHashingBlob, type BlockHeaderScan, parseBlockWithMinerTxHash, scanBlockHeader } from "../../protocol/block.js";
import { txHash } from "../../protocol/tx-hash.js";
import type { Bytes } from "../../protocol/tx.js";
import { type JsonWritable, Prerendered, type Unrendered } from "../../rpc/json.js";
import { CORE_RPC_ERROR } from "../../rpc/error-codes.js";
import { type JsonPath, type JsonRpcMethod, type MethodTable, type RpcContext, RpcError } from "../../rpc/methods.js";
import type { NetworkView, NodeCore } from "../core.js";
import { type AdmitOptions, BoundedCache, type CacheCounter, PerTip } from "./cache.js";
import type { BlockMeta } from "../store/index.js";
import type { DaemonState } from "./state.js";
import { bytesToHex as toHex, hexToBytes as fromHex } from "../../base/bytes.js";
export { bytesToHex as toHex, hexToBytes as fromHex } from "../../base/bytes.js";

/** Everything a handler may use. */
export interface NodeRpcDeps {
  core: NodeCore;
  state: DaemonState;
  /** Unix seconds. */
  now(): number;
  /** Asks the daemon to shut down (after the answer is sent). */
  stop(): void;
  /** Bytes used by the database, for get_info. */
  databaseSize(): number;
  /** Free bytes on the data dir's disk, for get_info. */
  freeSpace(): bigint;
  /** The P2P service (undefined offline): get_connections, get_peer_list, sync_info, get_info's counts. */
  network?(): NetworkView | undefined;
  /** Open connections of the unrestricted RPC server, for get_info (absent: 0). */
  rpcConnections?(): number;
}

/**
 * A declared JSON-RPC method that keeps its name, its params type and its result type (the
 * handler's, a Prerendered answer unwrapped) for the typed client (NodeRpcApi in api.ts); at run
 * time it is the JsonRpcMethod itself.
 */
export type TypedJsonRpc<N extends string, P, R> = JsonRpcMethod<unknown> & { readonly name: N; readonly __types?: { readonly params: P; readonly result: R } };

/** A declared JSON path (e.g. "/get_height"), as TypedJsonRpc (NodePathApi in api.ts). */
export type TypedJsonPath<N extends string, P, R> = JsonPath<unknown> & { readonly path: N; readonly __types?: { readonly params: P; readonly result: R } };

/** What the node's method modules declare: JSON-RPC methods and JSON paths. */
export type NodeDef = TypedJsonRpc<string, unknown, unknown> | TypedJsonPath<string, unknown, unknown>;

type Handler<P, R> = (params: P, ctx: RpcContext) => R | Promise<R>;

/** Declares a JSON-RPC method (checks the handler against its params' type; keeps name, params and result types). */
export function defineJsonRpc<const N extends string, P, R extends JsonWritable>(d: Omit<JsonRpcMethod<P>, "name" | "handler"> & { name: N; handler: Handler<P, R> }): TypedJsonRpc<N, P, Unrendered<R>> {
  return d as unknown as TypedJsonRpc<N, P, Unrendered<R>>;
}

/** Declares a JSON path, as defineJsonRpc. */
export function defineJsonPath<const N extends string, P, R extends JsonWritable>(d: Omit<JsonPath<P>, "path" | "handler"> & { path: N; handler: Handler<P, R> }): TypedJsonPath<N, P, Unrendered<R>> {
  return d as unknown as TypedJsonPath<N, P, Unrendered<R>>;
}

/** Adds declared methods and paths to the table, in their order. */
export function register(t: MethodTable, defs: readonly NodeDef[]): void {
  for (const def of defs) {
    if ("name" in def) t.addJsonRpc(def);
    else t.addJsonPath(def);
  }
}

export const OK = "OK";

export const ZERO_HASH_HEX = "0".repeat(64);

/** epee's parse_hexstr_to_binbuff: even length, hex digits only. */
export function parseHexBuf(s: string): Bytes | undefined {
  return /^([0-9a-fA-F]{2})*$/.test(s) ? fromHex(s) : undefined;
}

/** parse_hash256: exactly 64 hex digits. */
export function parseHash(s: string): Bytes | undefined {
  return /^[0-9a-fA-F]{64}$/.test(s) ? fromHex(s) : undefined;
}

const U64_MASK = (1n << 64n) - 1n;

/** store_difficulty / store_128: low 64 bits, high 64 bits, and "0x…" hex of the whole. */
export function wide(v: bigint): { lo: bigint; top64: bigint; wide: string } {
  return { lo: v & U64_MASK, top64: v >> 64n, wide: "0x" + v.toString(16) };
}

/** The rpc_access_response_base fields monerod adds (no RPC payment: credits 0, top_hash ""). */
export function access(status = OK): { status: string; untrusted: boolean; credits: bigint; top_hash: string } {
  return { status, untrusted: false, credits: 0n, top_hash: "" };
}

/** What epeeShape makes of a `T`: every array member may be absent (it was empty), at every level. */
export type EpeeShaped<T> = T extends Prerendered
  ? T
  : T extends readonly (infer U)[]
    ? EpeeShaped<U>[]
    : T extends object
      ? { [K in keyof T as T[K] extends readonly unknown[] ? never : K]: EpeeShaped<T[K]> } & { [K in keyof T as T[K] extends readonly unknown[] ? K : never]?: EpeeShaped<T[K]> }
      : T;

/** epee never writes an empty STL container: drops empty arrays at every level. */
export function epeeShape<T extends JsonWritable>(v: T): EpeeShaped<T> {
  const walk = (x: JsonWritable): JsonWritable => {
    if (Array.isArray(x)) {
      // a list of scalars (get_output_distribution's thousands of counts) has nothing to drop: as it is
      const arr = x as JsonWritable[];
      for (let k = 0; k < arr.length; k++) {
        const e = arr[k];
        if (e !== null && typeof e === "object") return arr.map(walk);
      }
      return arr;
    }
    if (x instanceof Prerendered) return x; // shaped before it was rendered
    if (x !== null && typeof x === "object") {
      const o: Record<string, JsonWritable> = {};
      for (const [k, val] of Object.entries(x as Record<string, JsonWritable>)) {
        if (Array.isArray(val) && val.length === 0) continue;
        o[k] = walk(val);
      }
      return o;
    }
    return x;
  };
  return walk(v) as EpeeShaped<T>;
}

/** The next block's context (weights, medians, difficulty), from the core's cache when it has one. */
export function nextContext(core: NodeCore): NextBlockContext {
  const cached = (core as NodeCore & { mainContext?: () => NextBlockContext }).mainContext;
  if (typeof cached === "function") return cached.call(core);
  return nextBlockContext(core.store, core.fixedDifficulty === undefined ? {} : { fixedDifficulty: core.fixedDifficulty });
}

/** get_current_blockchain_height − 1 style message of monerod's "too big height" errors. */
export function tooBigHeight(h: bigint, chainHeight: number): RpcError {
  return new RpcError(CORE_RPC_ERROR.TOO_BIG_HEIGHT, `Requested block height: ${h} greater than current top block height: ${chainHeight - 1}`);
}

export interface HeaderSource {
  /** Parsed on first use (a cached header never needs it). */
  readonly block: Block;
  height: number;
  hash: Bytes;
  orphan: boolean;
  /** The miner tx's id when the source has it from the blob's bytes (else it is hashed from `block`). */
  readonly minerTxHash?: Bytes | undefined;
  /** The main chain's meta at `height` when the source read it already. */
  readonly meta?: BlockMeta | undefined;
  /** The block's blob when the source reads it (a main-chain block). */
  readonly blob?: Bytes | undefined;
  /** What a header needs of the block, read from its blob without parsing it, when the source can (scanBlockHeader). */
  headerScan?(): BlockHeaderScan | undefined;
}

/** The sum of the coinbase outputs (get_block_reward). */
export function minerReward(b: Block): bigint {
  let s = 0n;
  for (const o of b.minerTx.vout) s += o.amount;
  return s;
}

/** fill_block_header_response's fields but depth and pow_hash (they depend on the request and the tip). */
interface HeaderFields {
  weight: number;
  cum: ReturnType<typeof wide>;
  diff: ReturnType<typeof wide>;
  hash: string;
  height: number;
  longTermWeight: number;
  major: number;
  minor: number;
  minerTxHash: string;
  nonce: number;
  numTxes: number;
  orphan: boolean;
  prevHash: string;
  reward: bigint;
  timestamp: bigint | number;
}

/** What the header methods render of one main-chain block. */
export interface BlockRender {
  hash: Bytes;
  header: HeaderFields;
}

/** What get_block adds: the blob in hex, the block's JSON, its tx hashes. */
export interface BlockBody {
  blobHex: string;
  json: string;
  txHashes: string[];
}

/**
 * A cache of what was derived from main-chain blocks, outputs or txs by height or global index:
 * emptied when the store's revision moves (a block left the top), so it never outlives a pop or
 * a reorg.
 */
export class ChainDerived<K, V> {
  private readonly c: BoundedCache<K, V>;
  private revision = -1;

  constructor(
    private readonly core: NodeCore,
    name: string,
    capacity: number,
    maxWeight?: number,
    weigh?: (v: V) => number,
    admit?: AdmitOptions,
  ) {
    this.c = new BoundedCache(capacity, maxWeight, weigh, cacheCounter(core, name), admit);
  }

  private check(): void {
    const r = this.core.store.revision;
    if (r !== this.revision) {
      this.c.clear();
      this.revision = r;
    }
  }

  get(k: K): V | undefined {
    this.check();
    return this.c.get(k);
  }

  /** As `get`, not counted as a lookup. */
  peek(k: K): V | undefined {
    this.check();
    return this.c.peek(k);
  }

  getOr(k: K, make: () => V): V {
    this.check();
    return this.c.getOr(k, make);
  }

  set(k: K, v: V): V {
    this.check();
    return this.c.set(k, v);
  }
}

const perCore = new WeakMap<NodeCore, Map<string, unknown>>();
const counters = new WeakMap<NodeCore, Map<string, CacheCounter>>();

/** The hit and miss counter of the core's cache named `name` (created at zero). */
export function cacheCounter(core: NodeCore, name: string): CacheCounter {
  let m = counters.get(core);
  if (!m) {
    m = new Map();
    counters.set(core, m);
  }
  let c = m.get(name);
  if (!c) {
    c = { hits: 0, misses: 0 };
    m.set(name, c);
  }
  return c;
}

/** Every counted cache of the core, by name, in the order they were first used. */
export function cacheCounters(core: NodeCore): ReadonlyMap<string, Readonly<CacheCounter>> {
  return counters.get(core) ?? new Map();
}

/**
 * Empties every read cache of the core: each is made anew on its next use. The hit and miss
 * counters stay (the RPC warm-up's lookups remain counted).
 */
export function dropCoreCaches(core: NodeCore): void {
  perCore.delete(core);
}

/** One `make()`d object per core and name (the node's caches live as long as its core). */
export function coreCache<T>(core: NodeCore, name: string, make: () => T): T {
  let m = perCore.get(core);
  if (!m) {
    m = new Map();
    perCore.set(core, m);
  }
  let v = m.get(name) as T | undefined;
  if (v === undefined) {
    v = make();
    m.set(name, v);
  }
  return v;
}

/** Characters the caches of one node may hold in strings, each (about twice as many bytes). */
export const CACHE_CHARS = 16 * 1024 * 1024;

/**
 * How the read caches admit what clients read (BoundedCache's admitOnRepeat): from a key's second
 * read on. Kept from its first, every read of a one-time scan left dozens of objects that the
 * collector copied and marked until they were evicted (docs/bench-scale.md, stop 44).
 */
export const READ_ADMISSION: AdmitOptions = { admitOnRepeat: true };

/** Rendered main-chain block headers by height. */
const blockRenders = (core: NodeCore): ChainDerived<number, BlockRender> => coreCache(core, "blocks", () => new ChainDerived<number, BlockRender>(core, "block headers", 4096, undefined, undefined, READ_ADMISSION));

/** get_block's renders of main-chain blocks by height, bounded by their size. */
export const blockBodies = (core: NodeCore): ChainDerived<number, BlockBody> =>
  coreCache(core, "block-bodies", () => new ChainDerived<number, BlockBody>(core, "block bodies", 2048, CACHE_CHARS, (b) => b.blobHex.length + 2 * b.json.length, READ_ADMISSION));

function headerFields(core: NodeCore, src: HeaderSource): HeaderFields {
  const store = core.store;
  // monerod reads difficulty, cumulative difficulty and weights of the main-chain block at that height,
  // also for alternative blocks
  const meta = src.meta ?? (src.height < store.height() ? store.meta(src.height) : undefined);
  // a main-chain block's header reads its blob's bytes, no Block built (the usual coinbase; else the parse)
  const h = src.headerScan?.() ?? headerOfBlock(src);
  return {
    weight: meta?.weight ?? 0,
    cum: wide(meta?.cumulativeDifficulty ?? 0n),
    diff: wide(meta?.difficulty ?? 0n),
    hash: toHex(src.hash),
    height: src.height,
    longTermWeight: meta?.longTermWeight ?? 0,
    major: h.majorVersion,
    minor: h.minorVersion,
    minerTxHash: toHex(h.minerTxHash),
    nonce: h.nonce,
    numTxes: h.txCount,
    orphan: src.orphan,
    prevHash: toHex(h.prevId),
    reward: h.minerReward,
    timestamp: h.timestamp,
  };
}

/** What scanBlockHeader reads, from the parsed block (an alternative block, one parsed already, or an unusual coinbase). */
function headerOfBlock(src: HeaderSource): BlockHeaderScan {
  const b = src.block;
  return {
    majorVersion: b.majorVersion,
    minorVersion: b.minorVersion,
    timestamp: b.timestamp,
    prevId: b.prevId,
    nonce: b.nonce,
    minerTxHash: src.minerTxHash ?? txHash(b.minerTx, defaultBackend()),
    minerReward: minerReward(b),
    txCount: b.txHashes.length,
  };
}

/** A main-chain block's render (cached by height); alternative blocks get a fresh, uncached one. */
export function blockRender(core: NodeCore, src: HeaderSource): BlockRender {
  if (src.orphan) return { hash: src.hash, header: headerFields(core, src) };
  return blockRenders(core).getOr(src.height, () => ({ hash: src.hash, header: headerFields(core, src) }));
}

/** fill_block_header_response (core_rpc_server.cpp); pow_hash is filled by the caller when asked. */
export function blockHeaderJson(core: NodeCore, src: HeaderSource, powHash = "") {
  const h = blockRender(core, src).header;
  return {
    block_size: h.weight,
    block_weight: h.weight,
    cumulative_difficulty: h.cum.lo,
    cumulative_difficulty_top64: h.cum.top64,
    depth: core.store.height() - src.height - 1,
    difficulty: h.diff.lo,
    difficulty_top64: h.diff.top64,
    hash: h.hash,
    height: h.height,
    long_term_weight: h.longTermWeight,
    major_version: h.major,
    minor_version: h.minor,
    miner_tx_hash: h.minerTxHash,
    nonce: h.nonce,
    num_txes: h.numTxes,
    orphan_status: h.orphan,
    pow_hash: powHash,
    prev_hash: h.prevHash,
    reward: h.reward,
    timestamp: h.timestamp,
    wide_cumulative_difficulty: h.cum.wide,
    wide_difficulty: h.diff.wide,
  };
}

/** block_header_response as fill_block_header_response writes it. */
export type BlockHeaderJson = ReturnType<typeof blockHeaderJson>;

/** A main-chain block by height as a header source. */
export function mainBlock(core: NodeCore, height: number): HeaderSource {
  const store = core.store;
  if (height < 0 || height >= store.height()) throw new RpcError(CORE_RPC_ERROR.INTERNAL_ERROR, `Internal error: can't get block by height. Height = ${height}.`);
  return new MainBlockSource(core, height);
}

/**
 * A main-chain block as a header source: its meta read once (unless its render is kept), the blob
 * parsed on first use together with its miner tx's id from the blob's bytes. A class: getters in an
 * object literal are defined anew for every request.
 */
class MainBlockSource implements HeaderSource {
  readonly hash: Bytes;
  readonly orphan = false;
  readonly meta: BlockMeta | undefined;
  private parsed: { block: Block; minerTxHash: Bytes } | undefined;
  private blobRead: Bytes | undefined;

  constructor(
    private readonly core: NodeCore,
    readonly height: number,
  ) {
    // a shortcut, not a read of its own: not counted
    const kept = blockRenders(core).peek(height)?.hash;
    this.meta = kept === undefined ? core.store.meta(height) : undefined;
    this.hash = kept ?? (this.meta as BlockMeta).hash;
  }

  private parse(): { block: Block; minerTxHash: Bytes } {
    return (this.parsed ??= parseBlockWithMinerTxHash(this.blob, defaultBackend()));
  }

  headerScan(): BlockHeaderScan | undefined {
    // parsed already (get_block's body came first): the parse has every field
    return this.parsed ? undefined : scanBlockHeader(this.blob, defaultBackend());
  }

  get blob(): Bytes {
    if (this.blobRead) return this.blobRead;
    const blob = this.core.store.blockBlob(this.height);
    if (!blob) throw new RpcError(CORE_RPC_ERROR.INTERNAL_ERROR, `Internal error: can't get block by height. Height = ${this.height}.`);
    return (this.blobRead = blob);
  }

  get block(): Block {
    return this.parse().block;
  }

  get minerTxHash(): Bytes {
    return this.parse().minerTxHash;
  }
}

/** A block by id, main chain or alternative. */
export function blockById(core: NodeCore, id: Bytes): HeaderSource | undefined {
  const h = core.store.heightOf(id);
  if (h !== undefined) return mainBlock(core, h);
  const alt = core.altBlock(id);
  if (!alt) return undefined;
  return { block: alt.block, height: alt.height, hash: blockHash(alt.block), orphan: true };
}

/** pow_hash for fill_pow_hash = true (restricted servers never fill it). */
export async function powHashOf(core: NodeCore, src: HeaderSource): Promise<string> {
  const seed = core.seedFor(src.height);
  return toHex(await core.powHash(blockHashingBlob(src.block), src.height, seed.hash));
}

/**
 * `make()`'s value, kept until the chain's tip changes (for figures derived from the chain only,
 * never from the pool or the clock). `key` names the figure.
 */
export function perTip<V>(core: NodeCore, key: string, make: () => V): V {
  return coreCache(core, `tip:${key}`, () => new PerTip(make)).get(core.store.revision, core.store.height());
}

/**
 * Whole answers kept for the current tip (by a key naming method and arguments): emptied when the
 * tip moves, since depth and the like follow it. Only answers that are the same for every caller;
 * each from its second request on (READ_ADMISSION).
 */
export function tipAnswers(core: NodeCore): BoundedCache<string, Prerendered> {
  return perTip(core, "answers", () => new BoundedCache<string, Prerendered>(4096, CACHE_CHARS, undefined, cacheCounter(core, "whole answers"), READ_ADMISSION));
}

/**
 * get_output_distribution's rendered entries, kept for the current tip apart from tipAnswers: a
 * whole-chain distribution takes milliseconds to make, and a burst of thousands of header or block
 * reads (each a tipAnswers entry) would push it out of an LRU they shared. Few keys, each at most
 * KEPT_DISTRIBUTION_CHARS (node/rpc/chain.ts).
 */
export function tipDistributions(core: NodeCore): BoundedCache<string, Prerendered> {
  return perTip(core, "distributions", () => new BoundedCache<string, Prerendered>(32, 16 * 1024 * 1024, undefined, cacheCounter(core, "distribution answers")));
}
