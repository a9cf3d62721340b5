/**
 * Blocks (cryptonote_basic.h: block_header, block) and their hashes (cryptonote_format_utils.cpp:
 * get_block_hashing_blob, calculate_block_hash, get_tx_tree_hash).
 *
 * The hashing blob (also the proof-of-work input) is the serialized header, the Merkle tree hash of
 * the miner tx id and the tx ids, and varint(number of txs + 1). The block id is keccak of that blob
 * serialized as a string, i.e. prefixed with its varint length — except for block 202612, whose id
 * Monero hard-codes.
 */
import { FormatError, type Label, Reader, Where } from "../codec/reader.js";
import { encodeVarintNumber } from "../codec/varint.js";
import { Writer } from "../codec/writer.js";
import type { CryptoBackend } from "../crypto/backend.js";
import { treeHash } from "../crypto/hash.js";
import { defaultBackend } from "../crypto/index.js";
import { RCT_TYPE } from "./rct.js";
import { type Bytes, readTransaction, type Transaction, type TxLayout, TX_TAG, TXOUT_TAG, writeTransaction } from "./tx.js";
import { combineTxHashes, NULL_HASH, txHash, txHashesOfParsed } from "./tx-hash.js";
import { bytesToHex } from "../base/bytes.js";

export interface BlockHeader {
  majorVersion: number;
  minorVersion: number;
  timestamp: bigint;
  prevId: Bytes;
  nonce: number;
}

export interface Block extends BlockHeader {
  minerTx: Transaction;
  txHashes: Bytes[];
}

/** CRYPTONOTE_MAX_TX_PER_BLOCK. */
export const MAX_TX_PER_BLOCK = 0x10000000;

export function readBlockHeader(r: Reader, what: Label = "block"): BlockHeader {
  return {
    majorVersion: r.varintNumber(new Where(what, ".major_version"), 0xff),
    minorVersion: r.varintNumber(new Where(what, ".minor_version"), 0xff),
    timestamp: r.varint(new Where(what, ".timestamp")),
    prevId: r.key(new Where(what, ".prev_id")),
    nonce: r.u32le(new Where(what, ".nonce")),
  };
}

export interface BlockLayout {
  headerSize: number;
  minerTxOffset: number;
  minerTx: TxLayout;
}

/** Reads a block at the reader's position. */
export function readBlock(r: Reader, what: Label = "block"): { block: Block; layout: BlockLayout } {
  const start = r.pos;
  const header = readBlockHeader(r, what);
  const headerSize = r.pos - start;
  const minerTxOffset = r.pos;
  const { tx: minerTx, layout: minerLayout } = readTransaction(r, { allowTrailing: true }, new Where(what, ".miner_tx"));
  const at = r.pos;
  const n = r.count(new Where(what, ".tx_hashes"), 32);
  if (n > MAX_TX_PER_BLOCK) r.fail(new Where(what, ".tx_hashes"), `${n} transactions exceed the limit`, at);
  const txHashes: Bytes[] = new Array(n);
  for (let i = 0; i < n; i++) txHashes[i] = r.key(new Where(what, ".tx_hashes[", i, "]"));
  return { block: { ...header, minerTx, txHashes }, layout: { headerSize, minerTxOffset, minerTx: minerLayout } };
}

/** Parses a block blob (the whole blob must be one block). */
export function parseBlock(blob: Uint8Array): Block {
  const r = new Reader(blob);
  const { block } = readBlock(r);
  r.expectEnd("block");
  return block;
}

export function writeBlockHeader(w: Writer, h: BlockHeader): void {
  w.varint(h.majorVersion).varint(h.minorVersion).varint(h.timestamp).fixed(h.prevId, 32, "prev_id").u32le(h.nonce);
}

export function serializeBlockHeader(h: BlockHeader): Uint8Array {
  const w = new Writer(64);
  writeBlockHeader(w, h);
  return w.finish();
}

export function serializeBlock(b: Block): Uint8Array {
  const w = new Writer(512 + 32 * b.txHashes.length);
  writeBlockHeader(w, b);
  writeTransaction(w, b.minerTx);
  w.varint(b.txHashes.length);
  for (const h of b.txHashes) w.fixed(h, 32, "tx hash");
  return w.finish();
}

/** Merkle tree hash of the miner tx id followed by the tx ids (get_tx_tree_hash). */
export function txTreeHash(ids: Bytes[], backend?: CryptoBackend): Bytes {
  const all = new Uint8Array(32 * ids.length);
  ids.forEach((h, i) => {
    all.set(h, 32 * i);
  });
  return treeHash(backend ?? defaultBackend(), all);
}

/** get_block_hashing_blob: header ‖ tree root ‖ varint(txs + 1). Also the proof-of-work input. */
export function blockHashingBlobFrom(headerBytes: Bytes, minerTxHash: Bytes, txHashes: Bytes[], backend?: CryptoBackend): Bytes {
  const root = txTreeHash([minerTxHash, ...txHashes], backend);
  const count = encodeVarintNumber(txHashes.length + 1);
  const out = new Uint8Array(headerBytes.length + 32 + count.length);
  out.set(headerBytes, 0);
  out.set(root, headerBytes.length);
  out.set(count, headerBytes.length + 32);
  return out;
}

export function blockHashingBlob(b: Block, backend?: CryptoBackend): Bytes {
  return blockHashingBlobFrom(serializeBlockHeader(b), txHash(b.minerTx, backend), b.txHashes, backend);
}

/** The proof-of-work input (RandomX hashes this): the block hashing blob. */
export const powBlob = blockHashingBlob;

/** Block 202612: Monero hard-codes its id (a historical bug in the tree hash of that block). */
const CORRECT_BLOB_HASH_202612 = "3a8a2b3a29b50fc86ff73dd087ea43c6f0d6b8f936c849194d5c84c737903966";
const EXISTING_BLOCK_ID_202612 = "bbd604d2ba11ba27935e006ed39c9bfdd99b76bf4a50654bc1e1e61217962698";

/** keccak(varint(len) ‖ blob): Monero's get_object_hash of a blob held as a string. */
function objectHashOfBlob(blob: Bytes, be: CryptoBackend): Bytes {
  const len = encodeVarintNumber(blob.length);
  const buf = new Uint8Array(len.length + blob.length);
  buf.set(len, 0);
  buf.set(blob, len.length);
  return be.keccak256(buf);
}

/**
 * The block id from the hashing blob, applying Monero's one exception (calculate_block_hash): when the
 * miner tx claims height 202612 and keccak(whole block blob) is the historical block's, the id is the
 * one the network accepted; a block at that height with the historical id but other bytes is refused.
 */
function blockIdWithException(hashingBlob: Bytes, b: Block, blockBlob: () => Bytes, be: CryptoBackend): Bytes {
  const id = objectHashOfBlob(hashingBlob, be);
  const vin = b.minerTx.vin;
  if (vin.length === 1 && vin[0].type === "gen" && vin[0].height !== 202612n) return id;
  if (bytesToHex(be.keccak256(blockBlob())) === CORRECT_BLOB_HASH_202612) return Uint8Array.from(Buffer.from(EXISTING_BLOCK_ID_202612, "hex"));
  if (bytesToHex(id) === EXISTING_BLOCK_ID_202612)
    throw new RangeError("block has the id of block 202612 but not its bytes (Monero refuses it)");
  return id;
}

/** The block id (get_block_hash). */
export function blockHash(b: Block, backend?: CryptoBackend): Bytes {
  const be = backend ?? defaultBackend();
  return blockIdWithException(blockHashingBlob(b, be), b, () => serializeBlock(b), be);
}

export interface BlockBlobHashes {
  block: Block;
  /** The block id. */
  hash: Bytes;
  hashingBlob: Bytes;
  minerTxHash: Bytes;
}

/**
 * Parses a block blob and hashes its miner tx from the blob's own bytes (no re-serialization, no
 * second parse): what a block header answer needs besides the stored meta. `headerSize`: the bytes
 * of the header, the start of the hashing blob.
 */
export function parseBlockWithMinerTxHash(blob: Uint8Array, backend?: CryptoBackend): { block: Block; minerTxHash: Bytes; headerSize: number } {
  const r = new Reader(blob);
  const { block, layout } = readBlock(r);
  r.expectEnd("block");
  const mtx = blob.subarray(layout.minerTxOffset, layout.minerTxOffset + layout.minerTx.size);
  return { block, minerTxHash: txHashesOfParsed(mtx, block.minerTx, layout.minerTx, backend).hash, headerSize: layout.headerSize };
}

/** What a block header answer reads of a block besides its stored meta (scanBlockHeader). */
export interface BlockHeaderScan extends BlockHeader {
  /** A view into the scanned blob. */
  prevId: Bytes;
  minerTxHash: Bytes;
  /** The sum of the miner tx's outputs (get_block_reward's reading of a block: fill_block_header_response's `reward`). */
  minerReward: bigint;
  txCount: number;
}

/** Errors name no field here: a scan that fails is answered by the full parse, which names it. */
const SCANNED = "block";
/** keccak of a RCTTypeNull base (its one type byte, 0), the middle third of every v2 coinbase's id. */
let nullRctBaseHash: Bytes | undefined;

/** scanBlock's reading of a blob: the header fields, the coinbase's shape and where its parts end. */
export interface BlockScan extends BlockHeader {
  /** A view into the scanned blob. */
  prevId: Bytes;
  /** The miner tx's version (1 or 2) and its output count. */
  minerVersion: 1 | 2;
  minerOutputs: number;
  /** The sum of the miner tx's outputs. */
  minerReward: bigint;
  /** Where the miner tx starts, where its prefix ends, where it ends (offsets in the blob). */
  minerStart: number;
  prefixEnd: number;
  minerEnd: number;
  txCount: number;
}

/**
 * Reads a block blob's header fields, its coinbase's shape and its tx count in one pass over its
 * bytes, without building the block and without hashing. Only the usual coinbase: a version 1 or 2
 * miner tx with one gen input and key or tagged-key outputs (version 2: RCTTypeNull); anything
 * else, or bytes that do not parse, give undefined and the caller parses the block (which then
 * reports what is wrong).
 */
export function scanBlock(blob: Uint8Array): BlockScan | undefined {
  const r = new Reader(blob);
  try {
    // readBlockHeader's fields, read here without its per-field labels and the prev id's copy
    // (calling it doubled the scan's cost: 4.8 → 8.5–11.6 µs per block)
    const majorVersion = r.varintNumber(SCANNED, 0xff);
    const minorVersion = r.varintNumber(SCANNED, 0xff);
    const timestamp = r.varint(SCANNED);
    const prevId = r.view(32, SCANNED);
    const nonce = r.u32le(SCANNED);
    const minerStart = r.pos;
    const minerVersion = r.varintNumber(SCANNED);
    if (minerVersion !== 1 && minerVersion !== 2) return undefined;
    r.varint(SCANNED); // unlock time
    if (r.varintNumber(SCANNED) !== 1 || r.u8(SCANNED) !== TX_TAG.gen) return undefined;
    r.varint(SCANNED); // the gen input's height
    const minerOutputs = r.count(SCANNED, 1);
    let minerReward = 0n;
    for (let i = 0; i < minerOutputs; i++) {
      minerReward += r.varint(SCANNED);
      const tag = r.u8(SCANNED);
      if (tag === TXOUT_TAG.key) r.skip(32, SCANNED);
      else if (tag === TXOUT_TAG.tagged_key) r.skip(33, SCANNED);
      else return undefined;
    }
    r.skip(r.count(SCANNED, 1), SCANNED); // extra
    const prefixEnd = r.pos;
    if (minerVersion === 2 && r.u8(SCANNED) !== RCT_TYPE.Null) return undefined;
    const minerEnd = r.pos;
    const txCount = r.count(SCANNED, 32);
    if (txCount > MAX_TX_PER_BLOCK) return undefined;
    r.skip(32 * txCount, SCANNED);
    if (!r.atEnd) return undefined;
    return { majorVersion, minorVersion, timestamp, prevId, nonce, minerVersion, minerOutputs, minerReward, minerStart, prefixEnd, minerEnd, txCount };
  } catch (e) {
    if (e instanceof FormatError) return undefined;
    throw e;
  }
}

/**
 * The miner tx's id of a scanned blob: parseBlockWithMinerTxHash's, keccak of the miner tx for
 * version 1; for version 2 keccak(prefix hash ‖ keccak(0x00) ‖ 32 zero bytes).
 */
export function scannedMinerTxHash(blob: Uint8Array, s: BlockScan, backend?: CryptoBackend): Bytes {
  const be = backend ?? defaultBackend();
  if (s.minerVersion === 1) return be.keccak256(blob.subarray(s.minerStart, s.minerEnd));
  nullRctBaseHash ??= be.keccak256(Uint8Array.of(RCT_TYPE.Null));
  return combineTxHashes(be.keccak256(blob.subarray(s.minerStart, s.prefixEnd)), nullRctBaseHash, NULL_HASH, be);
}

/**
 * The header fields, the miner tx's id and output sum and the tx count of a block blob, read in one
 * pass over its bytes without building the block (a cold get_block_header_by_height spent ~15 µs
 * making the block's objects, and more in the collector, to read these): scanBlock, then the miner
 * tx's id (scannedMinerTxHash). Undefined where scanBlock is.
 */
export function scanBlockHeader(blob: Uint8Array, backend?: CryptoBackend): BlockHeaderScan | undefined {
  const s = scanBlock(blob);
  if (s === undefined) return undefined;
  const { majorVersion, minorVersion, timestamp, prevId, nonce, minerReward, txCount } = s;
  return { majorVersion, minorVersion, timestamp, prevId, nonce, minerTxHash: scannedMinerTxHash(blob, s, backend), minerReward, txCount };
}

/** Parses a block blob and computes its ids from the blob's own bytes (no re-serialization). */
export function blockHashesFromBlob(blob: Uint8Array, backend?: CryptoBackend): BlockBlobHashes {
  const be = backend ?? defaultBackend();
  const { block, minerTxHash, headerSize } = parseBlockWithMinerTxHash(blob, be);
  const hashingBlob = blockHashingBlobFrom(blob.subarray(0, headerSize), minerTxHash, block.txHashes, be);
  const hash = blockIdWithException(hashingBlob, block, () => blob, be);
  return { block, hash, hashingBlob, minerTxHash };
}
