/**
 * Typed forms of the binary (epee) messages monerod serves on /get_blocks.bin and /get_outs.bin
 * (src/rpc/core_rpc_server_commands_defs.h) and the block entry they share with Levin
 * (src/cryptonote_protocol/cryptonote_protocol_defs.h: block_complete_entry, tx_blob_entry).
 * Field names are epee's. Encoding writes exactly what monerod writes.
 */
import {
  array,
  bool,
  bytes,
  type EpeeCodec,
  type EpeeObjectCodec,
  EpeeTypeError,
  object,
  opt,
  optional,
  podArray,
  podBlob,
  text,
  u8,
  u64,
} from "../codec/epee-map.js";
import { EpeeCursor, epeeEntryHead, epeeSize, epeeSizeLength, hasEpeeHeader, putEpeeSize } from "../codec/epee.js";

export interface TxBlobEntry {
  blob: Uint8Array;
  /** All zeros when the entry is not pruned. */
  prunable_hash: Uint8Array;
}

export interface BlockCompleteEntry {
  pruned: boolean;
  block: Uint8Array;
  block_weight: bigint;
  txs: TxBlobEntry[];
}

const txBlobEntry = object<TxBlobEntry>({ blob: bytes, prunable_hash: podBlob(32) });
const txBlobs = array(bytes);
const txEntries = array(txBlobEntry);

/**
 * block_complete_entry: pruned entries store txs as objects {blob, prunable_hash}; unpruned ones as
 * plain blobs (the serializer branches on `pruned`).
 */
export const blockCompleteEntry: EpeeObjectCodec<BlockCompleteEntry> = (() => {
  const head = object<Omit<BlockCompleteEntry, "txs">>({
    pruned: opt(bool, false),
    block: bytes,
    block_weight: opt(u64, 0n),
  });
  const codec: EpeeObjectCodec<BlockCompleteEntry> = {
    toSection(v) {
      const s = head.toSection(v);
      const txs = v.pruned ? txEntries.encode(v.txs) : txBlobs.encode(v.txs.map((t) => t.blob));
      if (txs) s.set("txs", txs);
      return s;
    },
    fromSection(s, what = "block_complete_entry") {
      const h = head.fromSection(s, what);
      const raw = s.get("txs");
      let txs: TxBlobEntry[] = [];
      if (raw) {
        txs = h.pruned
          ? txEntries.decode(raw, `${what}.txs`)
          : txBlobs.decode(raw, `${what}.txs`).map((blob) => ({ blob, prunable_hash: new Uint8Array(32) }));
      }
      return { ...h, txs };
    },
    encode: (v) => ({ kind: "object", value: codec.toSection(v) }),
    decode: (v, what) => {
      if (v.kind !== "object") throw new EpeeTypeError(what, `expected an object, found ${v.kind}`);
      return codec.fromSection(v.value, what);
    },
    empty: () => ({ pruned: false, block: new Uint8Array(0), block_weight: 0n, txs: [] }),
  };
  return codec;
})();

/** rpc_access_request_base. */
interface AccessRequest {
  client: string;
}
/** rpc_access_response_base. */
export interface AccessResponse {
  status: string;
  untrusted: boolean;
  credits: bigint;
  top_hash: string;
}
const accessResponse = { status: text, untrusted: bool, credits: u64, top_hash: text };

export interface GetBlocksBinRequest extends AccessRequest {
  /** Short chain history: 10 sequential ids, then exponentially spaced, ending with genesis. */
  block_ids: Uint8Array[];
  start_height: bigint;
  prune: boolean;
  no_miner_tx: boolean;
  /**
   * Later releases (v0.18.3.0 on; absent from 0.18.0.0's request, which a 0.18.0.0 client never
   * writes): 0 blocks only, 1 blocks and pool, 2 pool only (REQUESTED_INFO).
   */
  requested_info?: number;
  /** Later releases: the first block is the one after the first known id (master). */
  block_ids_exclusive?: boolean;
  /** Later releases: the pool's changes since this daemon_time (0: the whole pool). */
  pool_info_since?: bigint;
  /** Later releases (master): at most this many blocks (0: the node's limit). */
  max_block_count?: bigint;
}
export const getBlocksBinRequest = object<GetBlocksBinRequest>({
  client: text,
  block_ids: podArray(32),
  start_height: u64,
  prune: bool,
  no_miner_tx: opt(bool, false),
  requested_info: optional(u8),
  block_ids_exclusive: optional(bool),
  pool_info_since: optional(u64),
  max_block_count: optional(u64),
});

/** COMMAND_RPC_GET_BLOCKS_FAST::REQUESTED_INFO. */
export const REQUESTED_INFO = { BLOCKS_ONLY: 0, BLOCKS_AND_POOL: 1, POOL_ONLY: 2 } as const;
/** COMMAND_RPC_GET_BLOCKS_FAST::POOL_INFO_EXTENT. */
export const POOL_INFO_EXTENT = { NONE: 0, INCREMENTAL: 1, FULL: 2 } as const;

/** COMMAND_RPC_GET_BLOCKS_FAST::pool_tx_info: a pool tx (pruned when the request asked for `prune`). */
export interface PoolTxInfo {
  tx_hash: Uint8Array;
  tx_blob: Uint8Array;
  double_spend_seen: boolean;
}
export const poolTxInfo = object<PoolTxInfo>({ tx_hash: podBlob(32), tx_blob: bytes, double_spend_seen: bool });

export interface TxOutputIndices {
  indices: bigint[];
}
export interface BlockOutputIndices {
  indices: TxOutputIndices[];
}
export interface GetBlocksBinResponse extends AccessResponse {
  blocks: BlockCompleteEntry[];
  start_height: bigint;
  current_height: bigint;
  output_indices: BlockOutputIndices[];
  /** Later releases' fields, written only for a request that used one of theirs (see node/rpc/bin.ts). */
  top_block_hash?: Uint8Array;
  daemon_time?: bigint;
  pool_info_extent?: number;
  added_pool_txs?: PoolTxInfo[];
  remaining_added_pool_txids?: Uint8Array[];
  removed_pool_txids?: Uint8Array[];
}
/** The later releases' response fields (core_rpc_server_commands_defs.h at master). */
export const getBlocksBinLaterFields = {
  top_block_hash: optional(podBlob(32)),
  daemon_time: optional(u64),
  pool_info_extent: optional(u8),
  added_pool_txs: optional(array(poolTxInfo)),
  remaining_added_pool_txids: optional(podArray(32)),
  removed_pool_txids: optional(podArray(32)),
};
const txOutputIndices = object<TxOutputIndices>({ indices: array(u64) });
export const blockOutputIndices = object<BlockOutputIndices>({ indices: array(txOutputIndices) });

// ---- the two shapes get_blocks.bin sends per block, written straight to bytes ----------------
// (a server writes tens of thousands of them for a wallet's restore; the section objects the codecs
// build cost more than the bytes; each writer's output equals the codec's, which test/epee checks)

const BLOCK_KEY = epeeEntryHead("block", "string");
const PRUNED_TRUE = Uint8Array.from([...epeeEntryHead("pruned", "bool"), 1]);
const TXS_KEY = epeeEntryHead("txs", "object", true);
const BLOB_KEY = epeeEntryHead("blob", "string");
/** prunable_hash's head and its value's size mark (always 32 bytes). */
const PRUNABLE_HASH_KEY = Uint8Array.from([...epeeEntryHead("prunable_hash", "string"), ...epeeSize(32)]);
const INDICES_OBJECTS_KEY = epeeEntryHead("indices", "object", true);
const INDICES_U64_KEY = epeeEntryHead("indices", "uint64", true);

/**
 * A pruned block_complete_entry's epee bytes (a section), as `blockCompleteEntry` serializes
 * `{ pruned: true, block, block_weight: 0, txs }`: keys in byte order (block, pruned, txs), no
 * block_weight (its default), no txs when there are none.
 */
export function prunedBlockEntryBytes(block: Uint8Array, txs: readonly TxBlobEntry[]): Uint8Array {
  let size = 1 + BLOCK_KEY.length + epeeSizeLength(block.length) + block.length + PRUNED_TRUE.length;
  if (txs.length > 0) {
    size += TXS_KEY.length + epeeSizeLength(txs.length);
    for (const t of txs) size += 1 + BLOB_KEY.length + epeeSizeLength(t.blob.length) + t.blob.length + PRUNABLE_HASH_KEY.length + 32;
  }
  const out = new Uint8Array(size);
  let at = putEpeeSize(out, 0, txs.length > 0 ? 3 : 2);
  out.set(BLOCK_KEY, at);
  at = putEpeeSize(out, at + BLOCK_KEY.length, block.length);
  out.set(block, at);
  at += block.length;
  out.set(PRUNED_TRUE, at);
  at += PRUNED_TRUE.length;
  if (txs.length > 0) {
    out.set(TXS_KEY, at);
    at = putEpeeSize(out, at + TXS_KEY.length, txs.length);
    for (const t of txs) {
      if (t.prunable_hash.length !== 32) throw new RangeError(`prunable_hash must be 32 bytes (got ${t.prunable_hash.length})`);
      at = putEpeeSize(out, at, 2);
      out.set(BLOB_KEY, at);
      at = putEpeeSize(out, at + BLOB_KEY.length, t.blob.length);
      out.set(t.blob, at);
      at += t.blob.length;
      out.set(PRUNABLE_HASH_KEY, at);
      at += PRUNABLE_HASH_KEY.length;
      out.set(t.prunable_hash, at);
      at += 32;
    }
  }
  if (at !== size) throw new Error(`block entry: wrote ${at} of ${size} bytes`);
  return out;
}

/** A block's output indices' epee bytes (a section), as `blockOutputIndices` serializes them: a tx with none is an empty section. */
export function blockOutputIndicesBytes(indices: readonly (readonly bigint[])[]): Uint8Array {
  let size = 1 + INDICES_OBJECTS_KEY.length + epeeSizeLength(indices.length);
  for (const l of indices) size += l.length === 0 ? 1 : 1 + INDICES_U64_KEY.length + epeeSizeLength(l.length) + 8 * l.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = putEpeeSize(out, 0, 1);
  out.set(INDICES_OBJECTS_KEY, at);
  at = putEpeeSize(out, at + INDICES_OBJECTS_KEY.length, indices.length);
  for (const l of indices) {
    if (l.length === 0) {
      at = putEpeeSize(out, at, 0);
      continue;
    }
    at = putEpeeSize(out, at, 1);
    out.set(INDICES_U64_KEY, at);
    at = putEpeeSize(out, at + INDICES_U64_KEY.length, l.length);
    for (const x of l) {
      view.setBigUint64(at, x, true);
      at += 8;
    }
  }
  if (at !== size) throw new Error(`output indices: wrote ${at} of ${size} bytes`);
  return out;
}
export const getBlocksBinResponse = object<GetBlocksBinResponse>({
  ...accessResponse,
  blocks: array(blockCompleteEntry),
  start_height: u64,
  current_height: u64,
  output_indices: array(blockOutputIndices),
  ...getBlocksBinLaterFields,
});

export interface GetOutputsOut {
  amount: bigint;
  index: bigint;
}
export interface GetOutsBinRequest extends AccessRequest {
  outputs: GetOutputsOut[];
  get_txid: boolean;
}
export const getOutsBinRequest = object<GetOutsBinRequest>({
  client: text,
  outputs: array(object<GetOutputsOut>({ amount: u64, index: u64 })),
  get_txid: opt(bool, true),
});

export interface OutKey {
  key: Uint8Array;
  mask: Uint8Array;
  unlocked: boolean;
  height: bigint;
  txid: Uint8Array;
}
export interface GetOutsBinResponse extends AccessResponse {
  outs: OutKey[];
}
export const outKey = object<OutKey>({ key: podBlob(32), mask: podBlob(32), unlocked: bool, height: u64, txid: podBlob(32) });
export const getOutsBinResponse = object<GetOutsBinResponse>({
  ...accessResponse,
  outs: array(outKey),
});

export type { EpeeCodec };

/** What a get_blocks.bin request of 0.18.0.0's wallet2 shape asks: enough to find its split point. */
export interface GetBlocksSplitRequest {
  /** The first and last of `block_ids` (views into the request's bytes; the same id when there is one). */
  firstId: Uint8Array;
  lastId: Uint8Array;
  startHeight: bigint;
  prune: boolean;
  noMinerTx: boolean;
}

/**
 * get_blocks.bin's request as wallet2 0.18.0.0 writes it (block_ids as one blob, start_height,
 * prune, and client and no_miner_tx when set; an absent one is its default), read in place: the
 * fields the answer depends on when the first id is in the chain
 * (Blockchain::find_blockchain_supplement stops at the first known id; the last must be the
 * genesis id). Undefined for any other shape (no ids, a field of the later releases, another
 * type, a repeated field, trailing bytes): getBlocksBinRequest reads those, and words their errors.
 */
export function quickGetBlocksRequest(buf: Uint8Array): GetBlocksSplitRequest | undefined {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = b.length;
  if (n < 10 || !hasEpeeHeader(b)) return undefined;
  const c = new EpeeCursor(b, 9);
  const count = c.size();
  if (count === undefined || count < 1 || count > 5) return undefined;
  let client = false;
  let ids: Uint8Array | undefined;
  let startHeight: bigint | undefined;
  let prune: boolean | undefined;
  let noMinerTx: boolean | undefined;
  const flag = (): boolean | undefined => (c.pos < n && b[c.pos] <= 1 ? b[c.pos++] === 1 : undefined);
  for (let i = 0; i < count; i++) {
    const field = c.name();
    if (field === undefined || c.pos >= n) return undefined;
    const type = b[c.pos++];
    if (type === 10 && (field === "client" || field === "block_ids")) {
      const l = c.size();
      if (l === undefined || c.pos + l > n) return undefined;
      if (field === "client") {
        // ASCII (wallet2 writes hex or nothing): what `text` would decode, with no UTF-8 check to word
        if (client) return undefined;
        for (let k = c.pos; k < c.pos + l; k++) if (b[k] >= 0x80) return undefined;
        client = true;
      } else {
        if (ids !== undefined || l === 0 || l % 32 !== 0) return undefined;
        ids = buf.subarray(c.pos, c.pos + l);
      }
      c.pos += l;
    } else if (type === 5 && field === "start_height" && startHeight === undefined) {
      if (c.pos + 8 > n) return undefined;
      startHeight = b.readBigUInt64LE(c.pos);
      c.pos += 8;
    } else if (type === 11 && field === "prune" && prune === undefined) {
      if ((prune = flag()) === undefined) return undefined;
    } else if (type === 11 && field === "no_miner_tx" && noMinerTx === undefined) {
      if ((noMinerTx = flag()) === undefined) return undefined;
    } else return undefined;
  }
  if (c.pos !== n || ids === undefined) return undefined;
  // an absent field loads as its default, as in the typed decoder (epee ignores absent fields)
  return { firstId: ids.subarray(0, 32), lastId: ids.subarray(ids.length - 32), startHeight: startHeight ?? 0n, prune: prune ?? false, noMinerTx: noMinerTx ?? false };
}

/** The two field names of get_outs.bin's output entries, compared in place by the fast reader. */
const AMOUNT = Buffer.from("amount", "latin1");
const INDEX = Buffer.from("index", "latin1");

/**
 * get_outs.bin's request as wallet2 writes it (client, outputs: objects of u64 amount and index,
 * get_txid), read straight from the bytes: the same value getOutsBinRequest decodes, without a
 * section per output. Undefined for any other shape (another type, another or a repeated field,
 * a non-ASCII client, more objects than epee's HTTP budget): the generic decoder reads those.
 */
export function fastGetOutsBinRequest(buf: Uint8Array): GetOutsBinRequest | undefined {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = b.length;
  if (n < 10 || !hasEpeeHeader(b)) return undefined;
  const c = new EpeeCursor(b, 9);
  const count = c.size();
  if (count === undefined || count > 3) return undefined;
  let client: string | undefined;
  let outputs: GetOutputsOut[] | undefined;
  let getTxid: boolean | undefined;
  for (let i = 0; i < count; i++) {
    const field = c.name();
    if (field === undefined || c.pos >= n) return undefined;
    const type = b[c.pos++];
    if (field === "client" && type === 10 && client === undefined) {
      const len = c.size();
      if (len === undefined || c.pos + len > n) return undefined;
      for (let k = c.pos; k < c.pos + len; k++) if (b[k] >= 0x80) return undefined;
      client = b.toString("latin1", c.pos, c.pos + len);
      c.pos += len;
    } else if (field === "get_txid" && type === 11 && getTxid === undefined) {
      if (c.pos >= n || b[c.pos] > 1) return undefined;
      getTxid = b[c.pos++] === 1;
    } else if (field === "outputs" && type === (0x80 | 12) && outputs === undefined) {
      const items = c.size();
      // EPEE_HTTP_LIMITS.objects, and at least 2 + 2 × (7 + 8) bytes per object
      if (items === undefined || items > 65536 * 3 || items * 32 > n - c.pos) return undefined;
      outputs = new Array<GetOutputsOut>(items);
      for (let k = 0; k < items; k++) {
        if (c.size() !== 2) return undefined;
        let amount: bigint | undefined;
        let index: bigint | undefined;
        for (let f = 0; f < 2; f++) {
          // the name's bytes compared in place: no string per field
          const p = c.pos;
          const len = p < n ? b[p] : 0;
          const isAmount = len === 6 && p + 7 <= n && b.compare(AMOUNT, 0, 6, p + 1, p + 7) === 0;
          const isIndex = !isAmount && len === 5 && p + 6 <= n && b.compare(INDEX, 0, 5, p + 1, p + 6) === 0;
          const at = p + 1 + len;
          if (at + 9 > n || b[at] !== 5) return undefined;
          const v = b.readBigUInt64LE(at + 1);
          c.pos = at + 9;
          if (isAmount && amount === undefined) amount = v;
          else if (isIndex && index === undefined) index = v;
          else return undefined;
        }
        outputs[k] = { amount: amount as bigint, index: index as bigint };
      }
    } else return undefined;
  }
  if (outputs === undefined) return undefined;
  return { client: client ?? "", outputs, get_txid: getTxid ?? true };
}
