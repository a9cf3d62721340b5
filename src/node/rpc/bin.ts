/**
 * The binary (epee portable storage) paths wallets sync with: /get_blocks.bin, /get_blocks_by_height.bin,
 * /get_hashes.bin, /get_o_indexes.bin, /get_outs.bin, /get_output_distribution.bin.
 * Behaviour mirrors monerod v0.18 core_rpc_server.cpp and Blockchain::find_blockchain_supplement.
 */
import { array, bool, type EpeeCodec, type EpeeObjectCodec, encodeEpee, object, opt, podArray, podBlob, text, u64 } from "../../codec/epee-map.js";
import { epeeSize, type EpeeValue, presetSection, serializeOnce } from "../../codec/epee.js";
import { compressDistribution, getOutputDistributionBinRequest } from "../../client/messages.js";
import { parseTransaction, serializeTransaction, pruneTransaction, type Bytes } from "../../protocol/tx.js";
import {
  type BlockCompleteEntry,
  type BlockOutputIndices,
  blockCompleteEntry,
  blockOutputIndices,
  blockOutputIndicesBytes,
  type GetBlocksBinRequest,
  type GetBlocksBinResponse,
  getBlocksBinLaterFields,
  getBlocksBinRequest,
  fastGetOutsBinRequest,
  getOutsBinRequest,
  outKey,
  POOL_INFO_EXTENT,
  prunedBlockEntryBytes,
  quickGetBlocksRequest,
  REQUESTED_INFO,
} from "../../protocol/rpc-bin.js";
import type { MethodTable } from "../../rpc/methods.js";
import { parseBlockWithMinerTxHash, scanBlock, scannedMinerTxHash } from "../../protocol/block.js";
import { defaultBackend } from "../../crypto/index.js";
import { access, cacheCounter, ChainDerived, coreCache, type NodeRpcDeps, OK, perTip } from "./common.js";
import { BoundedCache } from "./cache.js";
import { outputDistribution } from "./chain.js";
import { getOuts, spendableNow } from "./txs.js";
import { TimeSlice } from "../slice.js";

const MAX_BLOCK_COUNT = 1000;
const MAX_TX_COUNT = 20000;
const MAX_SIZE = 100 * 1024 * 1024;
const MIN_BLOCK_COUNT = 3;
const BLOCKS_IDS_SYNCHRONIZING_DEFAULT_COUNT = 10000;
const MAX_RESTRICTED_GLOBAL_FAKE_OUTS_COUNT = 5000;
const RESTRICTED_BLOCK_COUNT = 1000;
/** RESTRICTED_TRANSACTIONS_COUNT: tx bodies a restricted server sends at once. */
const RESTRICTED_TRANSACTIONS_COUNT = 100;
/** GET_BLOCKS_BIN_MAX_ADDED_POOL_TX_BODIES (core_rpc_server.cpp at master). */
const GET_BLOCKS_BIN_MAX_ADDED_POOL_TX_BODIES = 20000;

interface AccessReq {
  client: string;
}
const accessFields = { status: text, untrusted: bool, credits: u64, top_hash: text };

interface HeightsReq extends AccessReq {
  heights: bigint[];
}
export const getBlocksByHeightRequest = object<HeightsReq>({ client: text, heights: array(u64) });
interface BlocksRes {
  status: string;
  untrusted: boolean;
  credits: bigint;
  top_hash: string;
  blocks: BlockCompleteEntry[];
}
export const getBlocksByHeightResponse = object<BlocksRes>({ ...accessFields, blocks: array(blockCompleteEntry) });

interface HashesReq extends AccessReq {
  block_ids: Bytes[];
  start_height: bigint;
}
export const getHashesRequest = object<HashesReq>({ client: text, block_ids: podArray(32), start_height: u64 });
interface HashesRes {
  status: string;
  untrusted: boolean;
  credits: bigint;
  top_hash: string;
  m_block_ids: Bytes[];
  start_height: bigint;
  current_height: bigint;
}
export const getHashesResponse = object<HashesRes>({ ...accessFields, m_block_ids: podArray(32), start_height: u64, current_height: u64 });

interface OIndexesReq extends AccessReq {
  txid: Bytes;
}
export const getOIndexesRequest = object<OIndexesReq>({ client: text, txid: opt(podBlob(32), new Uint8Array(32)) });
interface OIndexesRes {
  status: string;
  untrusted: boolean;
  credits: bigint;
  top_hash: string;
  o_indexes: bigint[];
}
export const getOIndexesResponse = object<OIndexesRes>({ ...accessFields, o_indexes: array(u64) });

interface DistributionOut {
  amount: bigint;
  start_height: bigint;
  base: bigint;
  distribution: bigint[];
  compress: boolean;
}
interface DistributionRes {
  status: string;
  untrusted: boolean;
  credits: bigint;
  top_hash: string;
  distributions: DistributionOut[];
}

/**
 * One distribution as monerod writes it in binary mode: the counts as a blob of little-endian u64s,
 * or varint-packed in `compressed_data` when the request asked for `compress`.
 */
const distributionOut: EpeeObjectCodec<DistributionOut> = (() => {
  const head = object({ amount: u64, start_height: u64, binary: bool, compress: bool, base: u64 });
  const codec: EpeeObjectCodec<DistributionOut> = {
    toSection(v) {
      const s = head.toSection({ amount: v.amount, start_height: v.start_height, binary: true, compress: v.compress, base: v.base });
      if (v.compress) {
        const packed = compressDistribution(v.distribution);
        if (packed.length > 0) s.set("compressed_data", { kind: "string", value: packed });
      } else if (v.distribution.length > 0) {
        const blob = Buffer.alloc(8 * v.distribution.length);
        v.distribution.forEach((x, k) => blob.writeBigUInt64LE(x, 8 * k));
        s.set("distribution", { kind: "string", value: new Uint8Array(blob) });
      }
      return s;
    },
    fromSection: () => {
      throw new Error("distributionOut is write-only");
    },
    encode: (v) => ({ kind: "object", value: codec.toSection(v) }),
    decode: () => {
      throw new Error("distributionOut is write-only");
    },
    empty: () => ({ amount: 0n, start_height: 0n, base: 0n, distribution: [], compress: false }),
  };
  return codec;
})();

/** An epee value passed through as it is (decoded as it came): entries the handler has already encoded. */
const asIs: EpeeCodec<EpeeValue> = { encode: (v) => v, decode: (v) => v, empty: () => ({ kind: "object", value: new Map() }) };

/** get_output_distribution.bin's answer with its distributions already encoded (same bytes as distributionOut's). */
const getOutputDistributionAnswer = object<Omit<DistributionRes, "distributions"> & { distributions: EpeeValue[] }>({ ...accessFields, distributions: array(asIs) });

/**
 * Encoded distributions by (amount, from, resolved to, cumulative, compress), kept until a pop, as
 * RpcHandler::get_output_distribution keeps them (its output_distribution_cache): a wallet asks for
 * the same whole-chain RingCT distribution twice per transfer, and the counts up to a given height
 * change only when a block at or below it is popped. At most 64 entries and 64 MiB.
 */
const keptDistributions = (d: NodeRpcDeps): ChainDerived<string, { value: EpeeValue; bytes: number }> =>
  coreCache(d.core, "distributions", () => new ChainDerived<string, { value: EpeeValue; bytes: number }>(d.core, "output distributions", 64, 64 * 1024 * 1024, (e) => e.bytes));

/** One distribution asked of the top (to_height 0): what a new block makes again before anyone asks. */
interface TopDistribution {
  amount: bigint;
  from: bigint;
  cumulative: boolean;
  compress: boolean;
  /** The chain height when it was last asked. */
  askedAt: number;
  /** What making it cost then, ms. */
  ms: number;
}

/** A shape asked of the top within this many blocks is made again for each new block. */
const TOP_DISTRIBUTION_BLOCKS = 30;
/** ...when making it took less than this (a whole mainnet chain's takes longer: its first asker pays, as now). */
const TOP_DISTRIBUTION_PRIME_MS = 10;
/** Shapes remembered at once (a wallet asks one; a few kinds of wallet, a few). */
const TOP_DISTRIBUTIONS = 8;

const topDistributions = (d: NodeRpcDeps): Map<string, TopDistribution> => coreCache(d.core, "top distributions", () => new Map<string, TopDistribution>());

const distributionKey = (amount: bigint, from: bigint, to: bigint, cumulative: boolean, compress: boolean): string =>
  `${amount}:${from}:${to}:${cumulative ? 1 : 0}${compress ? 1 : 0}`;

/** One encoded distribution, made and kept; undefined when the chain has none for these heights. */
function makeDistribution(d: NodeRpcDeps, amount: bigint, from: bigint, to: bigint, cumulative: boolean, compress: boolean): EpeeValue | undefined {
  const r = outputDistribution(d, amount, from, to, cumulative);
  if (!r) return undefined;
  const value = distributionOut.encode({ amount, ...r, compress })!;
  if (value.kind === "object") serializeOnce(value.value);
  keptDistributions(d).set(distributionKey(amount, from, to, cumulative, compress), { value, bytes: 8 * r.distribution.length + 64 });
  return value;
}

/** Remembers a distribution asked of the top, with what making it cost (undefined: it was kept; the last cost stays). */
function askedOfTop(d: NodeRpcDeps, amount: bigint, from: bigint, cumulative: boolean, compress: boolean, ms: number | undefined): void {
  const m = topDistributions(d);
  const k = distributionKey(amount, from, 0n, cumulative, compress);
  const before = m.get(k);
  m.delete(k);
  m.set(k, { amount, from, cumulative, compress, askedAt: d.core.store.height(), ms: ms ?? before?.ms ?? Number.POSITIVE_INFINITY });
  if (m.size > TOP_DISTRIBUTIONS) m.delete(m.keys().next().value as string);
}

/**
 * Makes again, for a new top, the distributions asked of the top within the last
 * TOP_DISTRIBUTION_BLOCKS blocks (each wallet asks the whole-chain RingCT one before each send),
 * so the first wallet after a block is answered from what is kept.
 */
function primeTopDistributions(d: NodeRpcDeps, height: number): void {
  const to = BigInt(height - 1);
  for (const [k, t] of topDistributions(d)) {
    if (height - t.askedAt > TOP_DISTRIBUTION_BLOCKS) {
      topDistributions(d).delete(k);
      continue;
    }
    if (t.ms >= TOP_DISTRIBUTION_PRIME_MS || keptDistributions(d).peek(distributionKey(t.amount, t.from, to, t.cumulative, t.compress))) continue;
    const t0 = performance.now();
    makeDistribution(d, t.amount, t.from, to, t.cumulative, t.compress);
    t.ms = performance.now() - t0;
  }
}

/** Blockchain::find_blockchain_supplement(qblock_ids): the height of the first listed id in the main chain. */
export function splitHeight(d: NodeRpcDeps, ids: readonly Bytes[]): number | undefined {
  const store = d.core.store;
  if (ids.length === 0) return undefined;
  const genesis = store.genesisHash();
  if (Buffer.compare(ids[ids.length - 1], genesis) !== 0) return undefined;
  for (const id of ids) {
    const h = store.heightOf(id);
    if (h !== undefined) return h;
  }
  return undefined;
}

interface BlockEntry {
  entry: BlockCompleteEntry;
  indices: BlockOutputIndices;
  txCount: number;
  size: number;
}

/**
 * A pruned block entry kept for get_blocks.bin: the bytes of its two epee sections (a
 * block_complete_entry and its block_output_indices, as serialized inside their arrays), written
 * straight from the store's records, no section objects made or kept.
 */
interface KeptEntry {
  entry: Uint8Array;
  indices: Uint8Array;
  txCount: number;
  size: number;
}

/**
 * Pruned block entries by (height, no_miner_tx), kept until a pop (the store's revision): a
 * wallet's refresh asks for the same blocks again and again (every synced wallet the last few,
 * every restore from 0 the whole chain), and reading a block, hashing its coinbase to find its
 * output indices, reading its txs and serializing all that cost ~20 µs a block. At most 4096
 * entries and 64 MiB of blobs. Full (unpruned) entries are not kept: one changes when the store
 * prunes its block.
 */
const keptEntries = (d: NodeRpcDeps): ChainDerived<string, KeptEntry> =>
  coreCache(d.core, "blockEntries", () => new ChainDerived<string, KeptEntry>(d.core, "block entries (.bin)", 4096, 64 * 1024 * 1024, (e) => e.size));

function keptEntry(d: NodeRpcDeps, h: number, noMinerTx: boolean): KeptEntry {
  return keptEntries(d).getOr(`${h}:${noMinerTx ? 1 : 0}`, () => {
    const b = blockEntry(d, h, true, noMinerTx);
    return {
      entry: prunedBlockEntryBytes(b.entry.block, b.entry.txs),
      indices: blockOutputIndicesBytes(b.indices.indices.map((t) => t.indices)),
      txCount: b.txCount,
      size: b.size,
    };
  });
}

/**
 * The pruned entries from `start` as BlockchainLMDB::get_blocks_from takes them. `later`: master's
 * count, with a limit of `maxBlocks` and the coinbases counted as txs.
 */
function takeKeptEntries(d: NodeRpcDeps, start: number, noMinerTx: boolean, later?: { maxBlocks: number }): KeptEntry[] {
  const height = d.core.store.height();
  const out: KeptEntry[] = [];
  let size = 0;
  let txs = 0;
  for (let h = start; h < height && !supplementFull(out.length, size, txs, later?.maxBlocks); h++) {
    const e = keptEntry(d, h, noMinerTx);
    out.push(e);
    size += e.size;
    txs += e.txCount + (later ? 1 : 0);
  }
  return out;
}

/**
 * get_blocks.bin's 0.18.0.0 answer around its two arrays: the bytes before the blocks' count,
 * between the last block and the indices' count, after the last indices, and where start_height
 * and current_height sit, taken once from the codec's own bytes (getBlocksFrame checks them).
 */
interface BlocksFrame {
  /** The answer's bytes with one placeholder entry in each array. */
  one: Buffer;
  /** Where the placeholders start (each after its one-byte count) and how long they are. */
  blocksAt: number;
  indicesAt: number;
  placeholder: number;
  startAt: number;
  currentAt: number;
}

let blocksFrame: BlocksFrame | undefined;

/** The answer with these entries, written into the frame (the bytes encodeEpee(getBlocksBinAnswer, …) makes). */
function writeBlocksAnswer(f: BlocksFrame, entries: readonly KeptEntry[], start: number, current: number): Uint8Array {
  const n = entries.length;
  const mark = epeeSize(n);
  let blocksLen = 0;
  let indicesLen = 0;
  for (const e of entries) {
    blocksLen += e.entry.length;
    indicesLen += e.indices.length;
  }
  const P = f.placeholder;
  const out = Buffer.allocUnsafe(f.one.length + 2 * (mark.length - 1) + blocksLen + indicesLen - 2 * P);
  // where a position of `one` lands in `out`
  const moved = (pos: number): number => pos + (pos > f.blocksAt ? mark.length - 1 + blocksLen - P : 0) + (pos > f.indicesAt ? mark.length - 1 + indicesLen - P : 0);
  let at = f.one.copy(out, 0, 0, f.blocksAt - 1);
  out.set(mark, at);
  at += mark.length;
  for (const e of entries) {
    out.set(e.entry, at);
    at += e.entry.length;
  }
  at += f.one.copy(out, at, f.blocksAt + P, f.indicesAt - 1);
  out.set(mark, at);
  at += mark.length;
  for (const e of entries) {
    out.set(e.indices, at);
    at += e.indices.length;
  }
  f.one.copy(out, at, f.indicesAt + P);
  out.writeBigUInt64LE(BigInt(start), moved(f.startAt));
  out.writeBigUInt64LE(BigInt(current), moved(f.currentAt));
  return out;
}

function getBlocksFrame(): BlocksFrame {
  if (blocksFrame) return blocksFrame;
  const P = 24;
  const fill = (byte: number, n = P): Uint8Array => new Uint8Array(n).fill(byte);
  const encode = (blocks: Uint8Array[], indices: Uint8Array[], start: bigint, current: bigint): Buffer =>
    Buffer.from(
      encodeEpee(getBlocksBinAnswer, {
        ...access(),
        blocks: blocks.map((b): EpeeValue => ({ kind: "object", value: presetSection(b) })),
        start_height: start,
        current_height: current,
        output_indices: indices.map((b): EpeeValue => ({ kind: "object", value: presetSection(b) })),
      }),
    );
  const u64le = (v: bigint): Buffer => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(v);
    return b;
  };
  const S = 0x1122334455667788n;
  const C = 0x0807060504030201n;
  const one = encode([fill(0xe1)], [fill(0xe2)], S, C);
  const f: BlocksFrame = {
    one,
    blocksAt: one.indexOf(Buffer.from(fill(0xe1))),
    indicesAt: one.indexOf(Buffer.from(fill(0xe2))),
    placeholder: P,
    startAt: one.indexOf(u64le(S)),
    currentAt: one.indexOf(u64le(C)),
  };
  // the frame must give back the codec's bytes: several entries of other lengths (a two-byte count), other heights
  const entry = (i: number): KeptEntry => ({ entry: fill(0x10 + (i % 7), 5 + i), indices: fill(0x30 + (i % 5), 3 + (i % 11)), txCount: 0, size: 0 });
  const entries = Array.from({ length: 70 }, (_, i) => entry(i));
  const want = encode(entries.map((e) => e.entry), entries.map((e) => e.indices), 123_456n, 654_321n);
  const positions = [f.blocksAt, f.indicesAt, f.startAt, f.currentAt];
  if (positions.some((x) => x < 1) || f.blocksAt > f.indicesAt || one[f.blocksAt - 1] !== epeeSize(1)[0] || one[f.indicesAt - 1] !== epeeSize(1)[0] || !Buffer.from(writeBlocksAnswer(f, entries, 123_456, 654_321)).equals(want))
    throw new Error("get_blocks.bin's answer does not have the shape the quick writer expects");
  return (blocksFrame = f);
}

/** 0.18.0.0's answer of the pruned blocks from `start`, written from the kept entries' bytes (core_rpc_server::on_get_blocks). */
function prunedBlocksAnswer(d: NodeRpcDeps, start: number, noMinerTx: boolean): Uint8Array {
  return writeBlocksAnswer(getBlocksFrame(), takeKeptEntries(d, start, noMinerTx), start, d.core.store.height());
}

/** get_blocks.bin's answer with its blocks and output indices already encoded (same bytes as getBlocksBinResponse). */
type BlocksAnswer = Omit<GetBlocksBinResponse, "blocks" | "output_indices"> & { blocks: EpeeValue[]; output_indices: EpeeValue[] };
const getBlocksBinAnswer = object<BlocksAnswer>({
  ...accessFields,
  blocks: array(asIs),
  start_height: u64,
  current_height: u64,
  output_indices: array(asIs),
  ...getBlocksBinLaterFields,
});

/**
 * get_outs.bin's answer written straight from the stored records (BinPath.quick): the frame around
 * the entries and one entry, with where its fields sit, taken once from the codec's own bytes, so
 * the answer is byte for byte what the handler's encodes to. Each output then costs one LMDB read
 * and a few copies: no object, hex or cache entry per output. A wallet asks ~1,000 outputs per
 * get_outs.bin for a sweep, most of them once (decoys are drawn at random).
 */
interface OutsFrame {
  /** The answer's bytes before the entries' count, and after the last entry. */
  head: Buffer;
  tail: Buffer;
  /** One entry, and where its fields' values sit in it. */
  entry: Buffer;
  keyAt: number;
  maskAt: number;
  txidAt: number;
  heightAt: number;
  unlockedAt: number;
}

let outsFrame: OutsFrame | undefined;

function getOutsFrame(): OutsFrame {
  if (outsFrame) return outsFrame;
  const fill = (byte: number): Uint8Array => new Uint8Array(32).fill(byte);
  const HEIGHT = 0x0807060504030201n;
  const entry = (unlocked: boolean): EpeeValue => outKey.encode({ key: fill(0xa1), mask: fill(0xb2), unlocked, height: HEIGHT, txid: fill(0xc3) })!;
  const one = Buffer.from(encodeEpee(getOutsBinAnswer, { ...access(), outs: [entry(true)] }));
  const two = Buffer.from(encodeEpee(getOutsBinAnswer, { ...access(), outs: [entry(true), entry(true)] }));
  let at = 0;
  while (at < one.length && one[at] === two[at]) at++;
  const size = two.length - one.length;
  const e = one.subarray(at + 1, at + 1 + size);
  const head = one.subarray(0, at);
  const tail = one.subarray(at + 1 + size);
  const locked = Buffer.from(encodeEpee(getOutsBinAnswer, { ...access(), outs: [entry(false)] })).subarray(at + 1, at + 1 + size);
  let unlockedAt = 0;
  while (unlockedAt < size && e[unlockedAt] === locked[unlockedAt]) unlockedAt++;
  const heightLe = Buffer.alloc(8);
  heightLe.writeBigUInt64LE(HEIGHT);
  const f: OutsFrame = {
    head: Buffer.from(head),
    tail: Buffer.from(tail),
    entry: Buffer.from(e),
    keyAt: e.indexOf(Buffer.from(fill(0xa1))),
    maskAt: e.indexOf(Buffer.from(fill(0xb2))),
    txidAt: e.indexOf(Buffer.from(fill(0xc3))),
    heightAt: e.indexOf(heightLe),
    unlockedAt,
  };
  // the frame must give back the codec's bytes: two entries, the count's mark between head and entries
  const again = Buffer.concat([f.head, epeeSize(2), f.entry, f.entry, f.tail]);
  if (!again.equals(two) || [f.keyAt, f.maskAt, f.txidAt, f.heightAt].some((x) => x < 0) || unlockedAt >= size)
    throw new Error("get_outs.bin's answer does not have the shape the quick writer expects");
  return (outsFrame = f);
}

/** get_outs.bin's quick answer: wallet2's request shape (fastGetOutsBinRequest) with every output in the chain; else undefined (the handler answers). */
function quickGetOuts(d: NodeRpcDeps, body: Uint8Array, restricted: boolean): Uint8Array | undefined {
  const req = fastGetOutsBinRequest(body);
  // none asked: epee leaves the empty array out, the handler answers that
  if (req === undefined || req.outputs.length === 0 || (restricted && req.outputs.length > MAX_RESTRICTED_GLOBAL_FAKE_OUTS_COUNT)) return undefined;
  const f = getOutsFrame();
  const n = req.outputs.length;
  const count = epeeSize(n);
  const size = f.entry.length;
  const out = Buffer.allocUnsafe(f.head.length + count.length + n * size + f.tail.length);
  let pos = f.head.copy(out, 0);
  out.set(count, pos);
  pos += count.length;
  const store = d.core.store;
  const spendable = spendableNow(d);
  for (const o of req.outputs) {
    const r = store.outputInPlace(o.amount, o.index);
    if (r === undefined) return undefined;
    f.entry.copy(out, pos);
    r.record.copy(out, pos + f.keyAt, 0, 32);
    r.record.copy(out, pos + f.maskAt, 32, 64);
    if (req.get_txid) r.record.copy(out, pos + f.txidAt, r.txIdAt, r.txIdAt + 32);
    else out.fill(0, pos + f.txidAt, pos + f.txidAt + 32);
    out.writeUInt32LE(r.height, pos + f.heightAt);
    out.writeUInt32LE(0, pos + f.heightAt + 4);
    out[pos + f.unlockedAt] = spendable(r.unlockTime) ? 1 : 0;
    pos += size;
  }
  f.tail.copy(out, pos);
  return out;
}

/** get_outs.bin's answer with its entries already encoded (same bytes as getOutsBinResponse). */
const getOutsBinAnswer = object<{ status: string; untrusted: boolean; credits: bigint; top_hash: string; outs: EpeeValue[] }>({ ...accessFields, outs: array(asIs) });

/** A main-chain block with its txs (pruned or full) and its output indices. */
function blockEntry(d: NodeRpcDeps, h: number, prune: boolean, noMinerTx: boolean): BlockEntry {
  const store = d.core.store;
  const blob = store.blockBlob(h);
  if (!blob) throw new Error(`block ${h} missing from the store`);
  // one read; the tx ids taken from the blob's bytes by a scan (they end the blob), without
  // building the block; a coinbase the scan does not read takes the parse
  const { txHashes, minerIndices } = blockIds(store, h, blob, noMinerTx);
  const txs: { blob: Uint8Array; prunable_hash: Uint8Array }[] = [];
  let size = blob.length;
  const indices: { indices: bigint[] }[] = [];
  // no_miner_tx: monerod puts an empty entry where the coinbase's indices would be
  indices.push({ indices: minerIndices });
  for (const id of txHashes) {
    // a pruned entry reads the tx's pruned part only (the prunable part is most of a tx's bytes)
    const kept = prune ? store.txPrunedEntry(id) : undefined;
    if (kept) {
      size += kept.blob.length;
      txs.push({ blob: kept.blob, prunable_hash: kept.prunableHash ?? new Uint8Array(32) });
      indices.push({ indices: kept.outputIndices });
      continue;
    }
    const full = store.txBlob(id);
    let txBlob: Uint8Array;
    // pruned, and no pruned part stored (txPrunedEntry answered nothing): cut it from the full blob
    if (prune) txBlob = full ? serializeTransaction(pruneTransaction(parseTransaction(full))) : new Uint8Array(0);
    else txBlob = full ?? store.txPrunedBlob(id) ?? new Uint8Array(0);
    size += txBlob.length;
    // later releases' get_blocks_from: a pruned entry carries the tx's prunable hash (none for v1
    // txs: null); a full entry the null hash. 0.18.0.0 sent null in both
    txs.push({ blob: txBlob, prunable_hash: (prune ? store.txPrunableHash(id) : undefined) ?? new Uint8Array(32) });
    indices.push({ indices: store.txLocation(id)?.outputIndices ?? [] });
  }
  return { entry: { pruned: prune, block: blob, block_weight: 0n, txs }, indices: { indices }, txCount: txHashes.length, size };
}

/**
 * A block blob's tx ids (views into the blob when scanned) and its coinbase's output indices (none
 * with no_miner_tx). A version 2 coinbase's outputs are RingCT outputs numbered on from the
 * chain's count below the block (BlockchainDB::add_transaction stores a v2 miner tx's outputs as
 * amount 0), so while the store keeps those counts in memory they are that count onwards, with no
 * hash of the miner tx and no read; otherwise the miner tx's id, then its stored location.
 */
function blockIds(store: NodeRpcDeps["core"]["store"], h: number, blob: Uint8Array, noMinerTx: boolean): { txHashes: readonly Bytes[]; minerIndices: bigint[] } {
  const be = defaultBackend();
  const scan = scanBlock(blob);
  if (!scan) {
    const { block, minerTxHash } = parseBlockWithMinerTxHash(blob, be);
    return { txHashes: block.txHashes, minerIndices: noMinerTx ? [] : (store.txLocation(minerTxHash)?.outputIndices ?? []) };
  }
  const first = blob.length - 32 * scan.txCount;
  const txHashes: Bytes[] = new Array<Bytes>(scan.txCount);
  for (let i = 0; i < scan.txCount; i++) txHashes[i] = blob.subarray(first + 32 * i, first + 32 * i + 32);
  if (noMinerTx) return { txHashes, minerIndices: [] };
  const below = scan.minerVersion === 2 ? store.keptRctOutputsBelow(h) : undefined;
  if (below !== undefined) {
    const minerIndices = new Array<bigint>(scan.minerOutputs);
    for (let i = 0; i < scan.minerOutputs; i++) minerIndices[i] = BigInt(below + i);
    return { txHashes, minerIndices };
  }
  return { txHashes, minerIndices: store.txLocation(scannedMinerTxHash(blob, scan, be))?.outputIndices ?? [] };
}

/** Blockchain::find_blockchain_supplement(req_start_block, qblock_ids, …)'s first height, or undefined when it fails. */
export function supplementStart(d: NodeRpcDeps, reqStart: bigint, ids: readonly Bytes[]): number | undefined {
  const height = d.core.store.height();
  if (reqStart > 0n) return reqStart >= BigInt(height) ? undefined : Number(reqStart);
  return splitHeight(d, ids);
}

/**
 * BlockchainLMDB::get_blocks_from's stopping rule: at most `MAX_BLOCK_COUNT` blocks, and past the
 * first `MIN_BLOCK_COUNT` none once `MAX_SIZE` bytes or `MAX_TX_COUNT` txs were taken.
 */
export function supplementFull(blocks: number, size: number, txs: number, maxBlocks = MAX_BLOCK_COUNT): boolean {
  return blocks >= maxBlocks || (blocks >= MIN_BLOCK_COUNT && (size >= MAX_SIZE || txs >= MAX_TX_COUNT));
}

/**
 * Whether a get_blocks.bin request used a field of the later releases (requested_info,
 * pool_info_since, block_ids_exclusive, max_block_count): then it is answered as monerod's master
 * does (core_rpc_server::on_get_blocks), with daemon_time and top_block_hash; else exactly as
 * 0.18.0.0 (whose tests compare bytes). A 0.18.0.0 wallet never writes these fields.
 */
export function usesLaterFields(req: GetBlocksBinRequest): boolean {
  return req.requested_info !== undefined || req.pool_info_since !== undefined || req.block_ids_exclusive !== undefined || req.max_block_count !== undefined;
}

interface BinCtx {
  remoteAddress: string;
  restricted: boolean;
}

/**
 * The blocks from `start` as BlockchainLMDB::get_blocks_from takes them: encoded entries, their
 * output indices. `later`: master's count, with a limit of `maxBlocks` and the coinbases counted as txs.
 */
function takeBlocks(d: NodeRpcDeps, start: number, req: GetBlocksBinRequest, later?: { maxBlocks: number }): { blocks: EpeeValue[]; output_indices: EpeeValue[] } {
  if (req.prune) {
    // the kept entries' bytes, each in a section that serializes to them
    const kept = takeKeptEntries(d, start, req.no_miner_tx, later);
    const section = (bytes: Uint8Array): EpeeValue => ({ kind: "object", value: presetSection(bytes) });
    return { blocks: kept.map((k) => section(k.entry)), output_indices: kept.map((k) => section(k.indices)) };
  }
  const height = d.core.store.height();
  const blocks: EpeeValue[] = [];
  const output_indices: EpeeValue[] = [];
  let size = 0;
  let txs = 0;
  for (let h = start; h < height && !supplementFull(blocks.length, size, txs, later?.maxBlocks); h++) {
    const e = blockEntry(d, h, false, req.no_miner_tx);
    blocks.push(blockCompleteEntry.encode(e.entry)!);
    output_indices.push(blockOutputIndices.encode(e.indices)!);
    size += e.size;
    txs += e.txCount + (later ? 1 : 0);
  }
  return { blocks, output_indices };
}

/** core_rpc_server::on_get_blocks as in 0.18.0.0: blocks only, no daemon_time. */
function getBlocks0180(d: NodeRpcDeps, req: GetBlocksBinRequest, ctx: BinCtx): BlocksAnswer {
  const store = d.core.store;
  const empty = { ...access(), blocks: [], start_height: 0n, current_height: 0n, output_indices: [] };
  const height = store.height();
  if (req.block_ids.length > 0 && Buffer.compare(req.block_ids[0], store.topHash()) === 0) return { ...empty, current_height: BigInt(height) };
  const start = supplementStart(d, req.start_height, req.block_ids);
  if (start === undefined) {
    d.state.hostFail(ctx.remoteAddress, d.now());
    return { ...empty, status: "Failed" };
  }
  return { ...access(), ...takeBlocks(d, start, req), start_height: BigInt(start), current_height: BigInt(height) };
}

/**
 * core_rpc_server::on_get_blocks as monerod's master: `requested_info` chooses blocks, blocks and
 * pool, or pool only; daemon_time always (taken first: a change at that second comes again next
 * time rather than never); the pool's changes since `pool_info_since` (tx_memory_pool::get_pool_info),
 * pruned with `prune`, at most 100 tx bodies on a restricted server (the rest by id).
 */
function getBlocksLater(d: NodeRpcDeps, req: GetBlocksBinRequest, ctx: BinCtx): BlocksAnswer {
  const daemon_time = BigInt(d.now());
  const base: BlocksAnswer = { ...access(), blocks: [], start_height: 0n, current_height: 0n, output_indices: [], top_block_hash: new Uint8Array(32), daemon_time };
  const info = req.requested_info ?? REQUESTED_INFO.BLOCKS_ONLY;
  if (info !== REQUESTED_INFO.BLOCKS_ONLY && info !== REQUESTED_INFO.BLOCKS_AND_POOL && info !== REQUESTED_INFO.POOL_ONLY)
    return { ...base, status: "Failed, wrong requested info" };
  let res = base;
  if (info !== REQUESTED_INFO.POOL_ONLY) {
    const blocks = handleGetBlocks(d, req);
    if (!blocks) {
      d.state.hostFail(ctx.remoteAddress, d.now());
      // find_blockchain_supplement has set the height and top hash before it fails
      return { ...base, status: "Failed", current_height: BigInt(d.core.store.height()), top_block_hash: d.core.store.topHash() };
    }
    res = { ...res, ...blocks };
  }
  if (info !== REQUESTED_INFO.BLOCKS_ONLY) {
    const maxTxCount = ctx.restricted ? Math.min(RESTRICTED_TRANSACTIONS_COUNT, GET_BLOCKS_BIN_MAX_ADDED_POOL_TX_BODIES) : GET_BLOCKS_BIN_MAX_ADDED_POOL_TX_BODIES;
    const c = d.core.pool.changesSince(req.pool_info_since ?? 0n, { includeSensitive: !ctx.restricted, maxTxCount });
    res = {
      ...res,
      pool_info_extent: c.incremental ? POOL_INFO_EXTENT.INCREMENTAL : POOL_INFO_EXTENT.FULL,
      added_pool_txs: c.added.map((e) => ({
        tx_hash: e.id,
        // serialize_base when pruned: the prefix and the RingCT base
        tx_blob: req.prune ? serializeTransaction(pruneTransaction(e.tx)) : e.blob,
        double_spend_seen: e.doubleSpendSeen,
      })),
      remaining_added_pool_txids: c.remainingAdded,
      removed_pool_txids: c.incremental ? c.removed : [],
    };
  }
  return res;
}

/**
 * core_rpc_server::handle_get_blocks (master): a no-op answer when the client has the top (its
 * first id) or asks from past it; else Blockchain::find_blockchain_supplement with
 * block_ids_exclusive (start after the common block; at the top, nothing) and max_block_count
 * (at most 1000). Undefined when the ids or the height do not fit the chain ("Failed").
 */
function handleGetBlocks(d: NodeRpcDeps, req: GetBlocksBinRequest): Pick<BlocksAnswer, "blocks" | "output_indices" | "start_height" | "current_height" | "top_block_hash"> | undefined {
  const store = d.core.store;
  const height = store.height();
  const top = store.topHash();
  const nothing = { blocks: [], output_indices: [], start_height: 0n, current_height: BigInt(height), top_block_hash: top };
  if (req.start_height > 0n || req.block_ids.length > 0) {
    if (req.start_height >= BigInt(height) || (req.block_ids.length > 0 && Buffer.compare(req.block_ids[0], top) === 0)) return nothing;
  }
  const maxCount = req.max_block_count ?? 0n;
  const maxBlocks = maxCount > 0n && maxCount < BigInt(MAX_BLOCK_COUNT) ? Number(maxCount) : MAX_BLOCK_COUNT;
  let start: number;
  if (req.start_height > 0n) start = Number(req.start_height);
  else {
    const split = splitHeight(d, req.block_ids);
    if (split === undefined) return undefined;
    start = split;
    if (req.block_ids_exclusive) {
      start++;
      if (start === height) return { ...nothing, start_height: BigInt(start) };
    }
  }
  return { ...takeBlocks(d, start, req, { maxBlocks }), start_height: BigInt(start), current_height: BigInt(height), top_block_hash: top };
}

export { BLOCKS_IDS_SYNCHRONIZING_DEFAULT_COUNT };

/**
 * get_blocks.bin answers (0.18.0.0's shape) kept for the tip by split point: every synced wallet
 * asks from its own top, in bytes of its own (its short chain history, its `client` signature),
 * so the by-bytes kept answers (BinPath.reuse) miss for each new wallet and after each block,
 * while the answer is the same for all of them. The answer from the previous top (what every
 * synced wallet's next refresh asks) is made as each block arrives (primeNewBlockEntries).
 */
const splitAnswers = (d: NodeRpcDeps): BoundedCache<string, Uint8Array> =>
  perTip(d.core, "get_blocks.bin by split", () => new BoundedCache<string, Uint8Array>(SPLIT_ANSWERS_PER_TIP, SPLIT_ANSWERS_PER_TIP * SPLIT_ANSWER_MAX_BYTES, (b) => b.length, cacheCounter(d.core, "get_blocks.bin answers by split point")));
/** Kept per tip: a few wallets behind at different heights. */
const SPLIT_ANSWERS_PER_TIP = 16;
/** An answer larger than this (a wallet far behind) is made for its request and not kept. */
const SPLIT_ANSWER_MAX_BYTES = 256 * 1024;
/** What getBlocks0180 needs of a context when the split is known (it uses it only when it is not). */
const NO_CLIENT: BinCtx = { remoteAddress: "", restricted: false };

/** The chain state an answer is valid for (get_blocks.bin's and get_output_distribution.bin's `reuse`). */
const tipStamp = (d: NodeRpcDeps): string => `${d.core.store.revision}:${d.core.store.height()}`;

/** The kept answer under `key` for the tip, made (and kept when small) on a miss; undefined when it is not OK. */
function splitAnswer(d: NodeRpcDeps, key: string, req: GetBlocksBinRequest): Uint8Array | undefined {
  const kept = splitAnswers(d);
  const found = kept.get(key);
  if (found !== undefined) return found;
  const store = d.core.store;
  const start = req.prune && Buffer.compare(req.block_ids[0], store.topHash()) !== 0 ? supplementStart(d, req.start_height, req.block_ids) : undefined;
  let bytes: Uint8Array;
  if (start !== undefined) bytes = prunedBlocksAnswer(d, start, req.no_miner_tx);
  else {
    const res = getBlocks0180(d, req, NO_CLIENT);
    if (res.status !== OK) return undefined;
    bytes = encodeEpee(getBlocksBinAnswer, res);
  }
  if (bytes.length <= SPLIT_ANSWER_MAX_BYTES) kept.set(key, bytes);
  return bytes;
}

/** A request with only what the answer depends on once the first id is known: that id and the genesis id. */
const splitRequest = (first: Bytes, genesis: Bytes, prune: boolean, noMinerTx: boolean): GetBlocksBinRequest => ({
  client: "",
  block_ids: first.length === 32 && Buffer.compare(first, genesis) === 0 ? [genesis] : [first, genesis],
  start_height: 0n,
  prune,
  no_miner_tx: noMinerTx,
});

/**
 * get_blocks.bin's quick answer (BinPath.quick): a 0.18.0.0 request whose first id is the top (the
 * empty answer); else wallet2's request from height 0 whose first id is in the chain, with the
 * genesis id last, as find_blockchain_supplement reads it (the split is the first id, whatever the
 * ids after it); else a pruned request from a start_height below the top (tsmonero's wallet asks
 * so), whose ids find_blockchain_supplement does not read. Anything else (a later field, an unknown
 * first id, a start_height past the top, unpruned blocks from a height) goes the usual way.
 */
function quickGetBlocks(d: NodeRpcDeps, body: Uint8Array): Uint8Array | undefined {
  const r = quickGetBlocksRequest(body);
  if (r === undefined) return undefined;
  const store = d.core.store;
  const genesis = store.genesisHash();
  if (Buffer.compare(r.firstId, store.topHash()) === 0) return splitAnswer(d, "top", splitRequest(r.firstId.slice(), genesis, r.prune, r.noMinerTx));
  if (r.startHeight !== 0n) {
    // find_blockchain_supplement from start_height, whatever the ids (a height past the top fails: the handler answers it)
    if (!r.prune || r.startHeight >= BigInt(store.height())) return undefined;
    return prunedBlocksAnswer(d, Number(r.startHeight), r.noMinerTx);
  }
  if (Buffer.compare(r.lastId, genesis) !== 0) return undefined;
  const h = store.heightOf(r.firstId);
  if (h === undefined) return undefined;
  return splitAnswer(d, `${h}:${r.prune ? 1 : 0}${r.noMinerTx ? 1 : 0}`, splitRequest(r.firstId.slice(), genesis, r.prune, r.noMinerTx));
}

/** The RPC payment signature a wallet sends with each call (a new one each time): no payment here, so no part of an answer. */
const CLIENT_SIGNATURE: ReadonlySet<string> = new Set(["client"]);

/** Cores whose new blocks already get their get_blocks.bin entry built as they arrive. */
const primed = new WeakSet<NodeRpcDeps["core"]>();

/**
 * Builds the pruned get_blocks.bin entry of each new top block as it is added (after the adding
 * code's turn of the event loop), not in the first wallet request for it: every wallet's next
 * refresh asks for that block. The same work, moved off the request path; likewise the output
 * distributions wallets asked of the top lately (primeTopDistributions). The daemon calls it
 * once for its core (a method table alone, as the docs build, subscribes to nothing).
 */
export function primeNewBlockEntries(d: NodeRpcDeps): void {
  if (primed.has(d.core)) return;
  primed.add(d.core);
  d.core.on("block", (b) => {
    setImmediate(() => {
      const store = d.core.store;
      if (store.isClosed || store.height() !== b.height + 1) return;
      try {
        keptEntry(d, b.height, false);
        // the answer a wallet at the previous top asks next (that block and this one), pruned as
        // wallet2 asks, and the empty answer of a wallet already at this top; not while syncing
        // from peers, when the next block comes before any wallet asks
        if (!(d.network?.()?.busySyncing() ?? false)) {
          const genesis = store.genesisHash();
          if (b.height > 0) splitAnswer(d, `${b.height - 1}:10`, splitRequest(store.meta(b.height - 1).hash, genesis, true, false));
          splitAnswer(d, "top", splitRequest(store.topHash(), genesis, true, false));
          // then what a wallet asks before a send
          primeTopDistributions(d, b.height + 1);
        }
      } catch (e) {
        // the request for this block builds it again and answers the error there
        console.error(`rpc: building the answers of new block ${b.height} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
  });
}

export function addBinMethods(t: MethodTable, d: NodeRpcDeps): void {
  const store = d.core.store;

  t.addBinPath({
    path: "/get_blocks.bin",
    aliases: ["/getblocks.bin"],
    request: getBlocksBinRequest,
    response: getBlocksBinAnswer,
    handler: (req, ctx) => (usesLaterFields(req) ? getBlocksLater(d, req, ctx) : getBlocks0180(d, req, ctx)),
    quick: (body) => quickGetBlocks(d, body),
    // 0.18.0.0's answer depends on the chain alone (the later one carries daemon_time and the pool):
    // every synced wallet's refresh sends the same bytes until the next block
    reuse: { stamp: () => tipStamp(d), keep: (req, res) => !usesLaterFields(req) && res.status === OK, ignore: CLIENT_SIGNATURE },
  });

  t.addBinPath({
    path: "/get_blocks_by_height.bin",
    aliases: ["/getblocks_by_height.bin"],
    request: getBlocksByHeightRequest,
    response: getBlocksByHeightResponse,
    handler: (req, ctx) => {
      if (ctx.restricted && req.heights.length > RESTRICTED_BLOCK_COUNT) return { ...access("Too many blocks requested in restricted mode"), blocks: [] };
      const height = BigInt(store.height());
      const blocks: BlockCompleteEntry[] = [];
      for (const h of req.heights) {
        if (h >= height) return { ...access(`Error retrieving block at height ${h}`), blocks: [] };
        blocks.push(blockEntry(d, Number(h), false, false).entry);
      }
      return { ...access(), blocks };
    },
  });

  t.addBinPath({
    path: "/get_hashes.bin",
    aliases: ["/gethashes.bin"],
    request: getHashesRequest,
    response: getHashesResponse,
    handler: (req, ctx) => {
      const start = splitHeight(d, req.block_ids);
      if (start === undefined) {
        d.state.hostFail(ctx.remoteAddress, d.now());
        return { ...access("Failed"), m_block_ids: [], start_height: req.start_height, current_height: 0n };
      }
      const height = store.height();
      const ids: Bytes[] = [];
      for (let h = start; h < height && ids.length < BLOCKS_IDS_SYNCHRONIZING_DEFAULT_COUNT; h++) ids.push(store.meta(h).hash);
      return { ...access(), m_block_ids: ids, start_height: BigInt(start), current_height: BigInt(height) };
    },
  });

  t.addBinPath({
    path: "/get_o_indexes.bin",
    mirrors: "cryptonote::core_rpc_server::on_get_indexes",
    request: getOIndexesRequest,
    response: getOIndexesResponse,
    handler: (req) => {
      const loc = store.txLocation(req.txid);
      if (!loc) return { ...access("Failed"), o_indexes: [] };
      return { ...access(), o_indexes: loc.outputIndices };
    },
  });

  t.addBinPath({
    path: "/get_outs.bin",
    mirrors: "cryptonote::core_rpc_server::on_get_outs_bin",
    request: getOutsBinRequest,
    fastDecode: fastGetOutsBinRequest,
    response: getOutsBinAnswer,
    handler: (req, ctx) => {
      if (ctx.restricted && req.outputs.length > MAX_RESTRICTED_GLOBAL_FAKE_OUTS_COUNT) return { ...access("Too many outs requested"), outs: [] };
      const outs = getOuts(d, req.outputs);
      if (!outs) return { ...access("Failed"), outs: [] };
      return { ...access(), outs: outs.map((o) => outKey.encode({ ...o, txid: req.get_txid ? o.txid : new Uint8Array(32) })!) };
    },
    quick: (body, ctx) => quickGetOuts(d, body, ctx.restricted),
  });

  t.addBinPath({
    path: "/get_output_distribution.bin",
    mirrors: "cryptonote::core_rpc_server::on_get_output_distribution_bin",
    request: getOutputDistributionBinRequest,
    response: getOutputDistributionAnswer,
    handler: (req, ctx) => {
      if (ctx.restricted && !(req.amounts.length === 1 && req.amounts[0] === 0n))
        return { ...access("Restricted RPC can only get output distribution for rct outputs. Use your own node."), distributions: [] };
      if (!req.binary) return { ...access("Binary only call"), distributions: [] };
      const to = req.to_height > 0n ? req.to_height : BigInt(store.height() - 1);
      const ready = req.amounts.map((amount) => keptDistributions(d).get(distributionKey(amount, req.from_height, to, req.cumulative, req.compress))?.value);
      if (req.to_height === 0n) for (const [i, amount] of req.amounts.entries()) if (ready[i] !== undefined) askedOfTop(d, amount, req.from_height, req.cumulative, req.compress, undefined);
      // all kept for the tip (a wallet asks the same one before each send): answered in this tick,
      // so the server can keep the encoded answer too (`reuse`)
      if (ready.every((v) => v !== undefined)) return { ...access(), distributions: ready as EpeeValue[] };
      return (async () => {
        const distributions: EpeeValue[] = [];
        const slice = new TimeSlice();
        for (const [i, amount] of req.amounts.entries()) {
          const y = slice.tick();
          if (y) await y;
          let value = ready[i];
          if (value === undefined) {
            const t0 = performance.now();
            value = makeDistribution(d, amount, req.from_height, to, req.cumulative, req.compress);
            if (!value) return { ...access("Failed to get output distribution"), distributions: [] };
            if (req.to_height === 0n) askedOfTop(d, amount, req.from_height, req.cumulative, req.compress, performance.now() - t0);
          }
          distributions.push(value);
        }
        return { ...access(), distributions };
      })();
    },
    // the answer depends on the chain alone (to_height 0 is the top): a wallet's same request
    // again, signed anew, gets the same bytes until the next block
    reuse: { stamp: () => tipStamp(d), keep: (_req, res) => res.status === OK, ignore: CLIENT_SIGNATURE },
  });
}
