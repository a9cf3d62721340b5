/**
 * The node's chain store: blocks, block metadata, transactions, outputs and key images in one
 * LMDB environment (named databases), read synchronously (it implements consensus's ChainView).
 *
 * Every block is applied and popped in ONE write transaction, so a crash leaves the chain at the
 * previous or the next block, never in between. The default sync mode ("safe") fsyncs every
 * commit; "fast" leaves flushing to the OS (a process crash is still atomic, an OS crash may lose
 * the newest blocks, like monerod's --db-sync-mode fast).
 *
 * Schema 4 (all integers big-endian; heights u32, amounts, indices and tx numbers u64). It reads
 * schema 3's records as they are; the records it writes leave out what can be derived (each marked
 * by its length or a flag, see encodeMeta, encodeLocation, encodeOutput):
 *   blocks        height → block blob
 *   block_heights block id (32) → height
 *   block_meta    height → BlockMeta (see encodeMeta; schema 4 derives the difficulty from the cumulative ones)
 *   tx_ids        tx id, bytes reversed → tx number, height, index in block (0 = coinbase), unlock time, pruned flag,
 *                 global output indices (schema 4: a run of consecutive ones as its first). Reversed, the keys sort as
 *                 monerod's tx_indices (compare_hash32: the id as a little-endian number), which get_txids_loose
 *                 walks; lmdb-js cannot install that comparator.
 *   txs_pruned    tx number → pruned blob (prefix, plus RingCT base for v2)
 *   txs_prunable  tx number → prunable blob (v1 signatures / RingCT prunable part); absent once pruned
 *   txs_prunable_hash tx number → keccak of the prunable blob (v2 txs only; kept when the blob is pruned)
 *   rct_outputs   global index (amount 0) → key, commitment, unlock time (schema 4: absent when the usual one), height, tx id, coinbase flag
 *   pre_rct_outputs amount ‖ global index → the same, for pre-RingCT outputs (amount > 0)
 *   output_counts amount → number of outputs of that amount (the next global index)
 *   key_images    key image → height of the block that spent it
 *   cum_rct       chunk number c → the RingCT output counts of blocks 0..h (monerod's bi_cum_rct, as block_meta
 *                 carries them) for h in [128·c, 128·c + 127], u64 each: the first get_output_distribution after a
 *                 start reads height/128 values, not one per block. Derived from block_meta; open() checks its top
 *                 and rebuilds it when it does not match (a store written before it existed).
 *   properties    "network", "height" (number of blocks), "pruning_seed" (u32, absent when unpruned), "schema" (u32)
 * RingCT outputs (every output of a version-2 tx, coinbase included) are indexed under amount 0.
 *
 * Tables whose key grows with the chain (blocks, block_meta, txs_*, rct_outputs) are written with
 * MDB_APPEND, as monerod writes its tables keyed by tx and output number: LMDB then fills each page
 * instead of splitting it in half, so they take about half the pages that random-order inserts
 * keyed by tx id took (schema 1). open() migrates schema 1 and schema 2 (tx_indices keyed by the id's bytes) once.
 */
import { mkdirSync } from "node:fs";
import { type Database, open, type RootDatabase } from "lmdb";
import { type BlockAccepted, type ChainOutput, type ChainView, checkBlock, CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW, nextBlockContext } from "../../consensus/index.js";
import { WindowMedian } from "../../consensus/window-median.js";
import { defaultBackend } from "../../crypto/index.js";
import type { CryptoBackend } from "../../crypto/backend.js";
import { zeroCommit } from "../../crypto/ringct/amounts.js";
import { type Block, blockHash, parseBlock, serializeBlock } from "../../protocol/block.js";
import { genesisBlock, HARD_FORKS, hardForkVersionAt } from "../../protocol/genesis.js";
import type { Network } from "../../protocol/network.js";
import { type Bytes, parseTransaction, serializeTransaction, type Transaction } from "../../protocol/tx.js";
import { hash32LooseTemplate, txHashesFromBlob } from "../../protocol/tx-hash.js";
import { keepsPrunable, makePruningSeed, PRUNING_LOG_STRIPES, PRUNING_TIP_BLOCKS, pruningLogStripes, randomStripe, seedStripe } from "../../protocol/pruning.js";

export type SyncMode = "safe" | "fast";

export interface ChainStoreOptions {
  /** "safe" (default): fsync every block. "fast": no explicit flush (process crashes stay atomic). */
  sync?: SyncMode;
  /** LMDB map size in bytes (default 16 GiB; sparse). */
  mapSize?: number;
  /**
   * --db-salvage: open the environment at its previous committed snapshot (MDB_PREVSNAPSHOT), for
   * a database whose newest meta page is damaged; the next commit makes that state the current one.
   */
  salvage?: boolean;
  backend?: CryptoBackend;
  /** Where a one-time layout migration at open says what it does (it can take a while on a large store). */
  log?: (line: string) => void;
}

/** What the consensus check computed for a block, recorded with it. */
export type BlockComputed = Pick<
  BlockAccepted,
  "difficulty" | "cumulativeDifficulty" | "weight" | "longTermWeight" | "alreadyGeneratedCoins" | "reward"
>;

export interface BlockMeta {
  height: number;
  hash: Bytes;
  timestamp: bigint;
  difficulty: bigint;
  cumulativeDifficulty: bigint;
  weight: number;
  longTermWeight: number;
  /** Coins generated up to and including this block. */
  alreadyGeneratedCoins: bigint;
  /** Sum of the coinbase outputs. */
  reward: bigint;
  /** Non-coinbase transactions. */
  txCount: number;
}

export interface TxLocation {
  height: number;
  /** 0 for the coinbase, i + 1 for the block's i-th tx hash. */
  index: number;
  unlockTime: bigint;
  /** Global index of each output (under amount 0 for RingCT, else under its amount). */
  outputIndices: bigint[];
  /** True when only the pruned part was stored. */
  pruned: boolean;
}

export interface StoredOutput extends ChainOutput {
  txId: Bytes;
  coinbase: boolean;
}

/** One output's record as the store holds it (ChainStore.outputInPlace), read in place. */
export interface OutputInPlace {
  /** The one-time key at [0, 32), the commitment at [32, 64), the tx id at [txIdAt, txIdAt + 32). */
  readonly record: Buffer;
  readonly txIdAt: number;
  readonly height: number;
  readonly coinbase: boolean;
  readonly unlockTime: bigint;
}

export class StoreError extends Error {
  override name = "StoreError";
}

const U32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const U64 = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
};
const U128 = (n: bigint): Buffer => Buffer.concat([U64(n >> 64n), U64(n & 0xffffffffffffffffn)]);
const rdU128 = (b: Buffer, o: number): bigint => (b.readBigUInt64BE(o) << 64n) | b.readBigUInt64BE(o + 8);
const buf = (b: Bytes): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
const bytes = (b: Buffer): Bytes => new Uint8Array(b);
/** A plain Uint8Array over a Buffer lmdb-js' get() already copied for us (no second copy). */
const own = (b: Buffer): Bytes => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const outKey = (amount: bigint, index: bigint): Buffer => Buffer.concat([U64(amount), U64(index)]);

const META_SIZE = 8 + 16 + 16 + 8 + 8 + 8 + 8 + 4 + 32;
/** Heights per cum_rct value (1 KiB: LMDB keeps it in its leaf page, no overflow page). */
const CUM_RCT_CHUNK = 128;
/** A u64 count (below 2^53) at `at`, big-endian: high word times 2^32 plus low word, no BigInt. */
const readCount = (b: Buffer, at: number): number => b.readUInt32BE(at) * 0x1_0000_0000 + b.readUInt32BE(at + 4);
const writeCount = (b: Buffer, at: number, n: number): void => {
  b.writeUInt32BE(Math.floor(n / 0x1_0000_0000), at);
  b.writeUInt32BE(n % 0x1_0000_0000, at + 4);
};
/**
 * Blocks stored since the cumulative RingCT output count was added carry it after the fields above
 * (u64, monerod's bi_cum_rct), so get_output_distribution reads one value per block, not every output.
 */
const META_SIZE_WITH_CUM_RCT = META_SIZE + 8;
/**
 * Layout 4's record (92 bytes, against 116): no difficulty, which is the block's cumulative
 * difficulty minus its parent's (as monerod's get_block_difficulty derives it from block_info),
 * and the two weights as u32. Written whenever both weights fit 32 bits (a block weight is at most
 * a few MB), else the 116-byte record. timestamp u64, cumulative difficulty u128, weight u32,
 * long-term weight u32, coins generated u64, reward u64, tx count u32, id, RingCT outputs u64.
 */
const META_COMPACT_SIZE = 8 + 16 + 4 + 4 + 8 + 8 + 4 + 32 + 8;
/** The cumulative difficulty of a record of any layout (at the same offset in all three). */
const metaCumulativeDifficulty = (b: Buffer): bigint => rdU128(b, 8);
/** The RingCT output count a record carries, or undefined for a record stored before it was added. */
function metaCumRct(b: Buffer): number | undefined {
  if (b.length === META_COMPACT_SIZE) return readCount(b, META_COMPACT_SIZE - 8);
  return b.length === META_SIZE_WITH_CUM_RCT ? readCount(b, META_SIZE) : undefined;
}
function encodeMeta(m: BlockMeta, cumRct: bigint): Buffer {
  if (m.weight < 0x1_0000_0000 && m.longTermWeight < 0x1_0000_0000) {
    const b = Buffer.alloc(META_COMPACT_SIZE);
    b.writeBigUInt64BE(m.timestamp, 0);
    b.writeBigUInt64BE(m.cumulativeDifficulty >> 64n, 8);
    b.writeBigUInt64BE(m.cumulativeDifficulty & 0xffffffffffffffffn, 16);
    b.writeUInt32BE(m.weight, 24);
    b.writeUInt32BE(m.longTermWeight, 28);
    b.writeBigUInt64BE(m.alreadyGeneratedCoins, 32);
    b.writeBigUInt64BE(m.reward, 40);
    b.writeUInt32BE(m.txCount, 48);
    buf(m.hash).copy(b, 52);
    b.writeBigUInt64BE(cumRct, 84);
    return b;
  }
  return Buffer.concat([
    U64(m.timestamp),
    U128(m.cumulativeDifficulty),
    U128(m.difficulty),
    U64(BigInt(m.weight)),
    U64(BigInt(m.longTermWeight)),
    U64(m.alreadyGeneratedCoins),
    U64(m.reward),
    U32(m.txCount),
    buf(m.hash),
    U64(cumRct),
  ]);
}
/**
 * A block_meta record of any layout. `parentCumulative` gives the parent's cumulative difficulty,
 * asked only for a compact record above the genesis block; it is called after every field of `b`
 * is read, so `b` may be lmdb-js' shared buffer, which the parent's lookup overwrites.
 */
function decodeMeta(height: number, b: Buffer, parentCumulative: () => bigint): BlockMeta {
  if (b.length === META_COMPACT_SIZE) {
    const m: BlockMeta = {
      height,
      timestamp: b.readBigUInt64BE(0),
      cumulativeDifficulty: rdU128(b, 8),
      difficulty: 0n,
      weight: b.readUInt32BE(24),
      longTermWeight: b.readUInt32BE(28),
      alreadyGeneratedCoins: b.readBigUInt64BE(32),
      reward: b.readBigUInt64BE(40),
      txCount: b.readUInt32BE(48),
      hash: bytes(b.subarray(52, 84)),
    };
    m.difficulty = height === 0 ? m.cumulativeDifficulty : m.cumulativeDifficulty - parentCumulative();
    return m;
  }
  if (b.length !== META_SIZE && b.length !== META_SIZE_WITH_CUM_RCT) throw new StoreError(`block_meta ${height}: ${b.length} bytes`);
  return {
    height,
    timestamp: b.readBigUInt64BE(0),
    cumulativeDifficulty: rdU128(b, 8),
    difficulty: rdU128(b, 24),
    weight: Number(b.readBigUInt64BE(40)),
    longTermWeight: Number(b.readBigUInt64BE(48)),
    alreadyGeneratedCoins: b.readBigUInt64BE(56),
    reward: b.readBigUInt64BE(64),
    txCount: b.readUInt32BE(72),
    hash: bytes(b.subarray(76, 108)),
  };
}

/**
 * tx_indices value: the tx number (u64, the key of its txs_* entries), then schema 1's tx_index
 * value (height, index, unlock time, pruned flag, output indices), which the migration prefixes.
 */
function encodeLocation(num: Buffer, l: TxLocation): Buffer {
  const head = [num, U32(l.height), U32(l.index), U64(l.unlockTime), Buffer.of(l.pruned ? 1 : 0)];
  const o = l.outputIndices;
  // layout 4: a run of consecutive indices (every RingCT tx's outputs) as its length with the top bit set and its first index
  if (o.length >= 2 && o.length < LOCATION_RUN && o.every((x, i) => x === o[0] + BigInt(i))) return Buffer.concat([...head, U32(LOCATION_RUN + o.length), U64(o[0])]);
  return Buffer.concat([...head, U32(o.length), ...o.map(U64)]);
}
/** The top bit of a tx_indices value's output count: the indices are a run, stored as its first. */
const LOCATION_RUN = 0x8000_0000;
const LOCATION_PRUNED_FLAG = 8 + 16;
function decodeLocation(b: Buffer): TxLocation {
  return {
    height: b.readUInt32BE(8),
    index: b.readUInt32BE(8 + 4),
    unlockTime: b.readBigUInt64BE(8 + 8),
    pruned: b[LOCATION_PRUNED_FLAG] === 1,
    outputIndices: locationOutputIndices(b),
  };
}
function locationOutputIndices(b: Buffer): bigint[] {
  const n = b.readUInt32BE(8 + 17);
  if (n >= LOCATION_RUN) {
    const first = b.readBigUInt64BE(8 + 21);
    return Array.from({ length: n - LOCATION_RUN }, (_, i) => first + BigInt(i));
  }
  const out = new Array<bigint>(n);
  for (let i = 0; i < n; i++) out[i] = b.readBigUInt64BE(8 + 21 + 8 * i);
  return out;
}
/** The tx number of a tx_indices value (an 8-byte key of the txs_* tables). */
const locationNum = (b: Buffer): Buffer => b.subarray(0, 8);

/**
 * An output record: key, commitment, unlock time u64, height u32, tx id, coinbase flag (109 bytes).
 * Layout 4 leaves out the unlock time when it is the usual one (101 bytes; the height then sits at
 * 64): 0 for a tx's output, height + 60 for a coinbase output, which consensus requires of every
 * miner tx (block-rules' miner tx check, monerod's prevalidate_miner_transaction).
 */
const OUTPUT_SIZE = 32 + 32 + 8 + 4 + 32 + 1;
const OUTPUT_COMPACT_SIZE = OUTPUT_SIZE - 8;
const outputHeightAt = (b: Buffer): number => (b.length === OUTPUT_COMPACT_SIZE ? 64 : 72);
const usualUnlockTime = (height: number, coinbase: boolean): bigint => (coinbase ? BigInt(height + CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW) : 0n);
function encodeOutput(o: StoredOutput): Buffer {
  const flag = Buffer.of(o.coinbase ? 1 : 0);
  if (o.unlockTime === usualUnlockTime(o.height, o.coinbase)) return Buffer.concat([buf(o.key), buf(o.commitment), U32(o.height), buf(o.txId), flag]);
  return Buffer.concat([buf(o.key), buf(o.commitment), U64(o.unlockTime), U32(o.height), buf(o.txId), flag]);
}
/** An output record's fields after the key and the commitment, read in place (encodeOutput's layout). */
function readOutputRecord(b: Buffer): OutputInPlace {
  const at = outputHeightAt(b);
  const height = b.readUInt32BE(at);
  const coinbase = b[at + 36] === 1;
  return { record: b, txIdAt: at + 4, height, coinbase, unlockTime: at === 64 ? usualUnlockTime(height, coinbase) : b.readBigUInt64BE(64) };
}
function decodeOutput(b: Buffer): StoredOutput {
  const r = readOutputRecord(b);
  return {
    key: bytes(b.subarray(0, 32)),
    commitment: bytes(b.subarray(32, 64)),
    unlockTime: r.unlockTime,
    height: r.height,
    txId: bytes(b.subarray(r.txIdAt, r.txIdAt + 32)),
    coinbase: r.coinbase,
  };
}

/** Splits a transaction into its stored parts. */
function splitTx(tx: Transaction, backend: CryptoBackend): { id: Bytes; pruned: Buffer; prunable: Buffer; prunableHash: Buffer | undefined; isPruned: boolean } {
  const blob = serializeTransaction(tx);
  if (tx.pruned) throw new StoreError("a pruned transaction cannot be hashed from its blob; the store keeps full transactions");
  const h = txHashesFromBlob(blob, backend);
  const b = buf(blob);
  const prunable = b.subarray(h.layout.unprunableSize);
  // get_transaction_prunable_hash: keccak of the prunable bytes (also when empty); none for v1
  const prunableHash = tx.version >= 2 ? buf(backend.keccak256(prunable)) : undefined;
  return { id: h.hash, pruned: b.subarray(0, h.layout.unprunableSize), prunable, prunableHash, isPruned: false };
}

/** The store's layout version (properties "schema"); a store without one is schema 1. */
const SCHEMA = 4;
/** Schema 1's tables keyed by tx id and amount ‖ index, replaced by schema 2's (migrateSchema1). */
const SCHEMA1_DBS = ["tx_pruned", "tx_prunable", "tx_prunable_hash", "tx_index", "outputs"] as const;
const CHAIN_DBS = new Set<string>([
  "blocks",
  "block_heights",
  "block_meta",
  "tx_indices",
  "tx_ids",
  "txs_pruned",
  "txs_prunable",
  "txs_prunable_hash",
  "rct_outputs",
  "pre_rct_outputs",
  "output_counts",
  "key_images",
  "properties",
  ...SCHEMA1_DBS,
]);

/** tx_ids' key: a tx id's bytes reversed, so the byte order is the order of the id as a little-endian number (compare_hash32). */
const txKey = (id: Bytes): Buffer => Buffer.from(id).reverse();
/** Entries of a database from its B-tree's header (mdb_stat, as monerod's get_tx_count), not a cursor walk; lmdb-js types getStats as {}. */
const entryCount = (db: Database<Buffer, Buffer>): number => (db.getStats() as { entryCount: number }).entryCount;

/** db.putSync with MDB_APPEND: the key must sort after every key of `db` (lmdb-js answers false, not an error, otherwise). */
function appendSync<K extends number | Buffer>(db: Database<Buffer, K>, name: string, key: K, value: Buffer): void {
  // lmdb-js types putSync as void; it returns whether the put took place
  const put = db.putSync.bind(db) as unknown as (k: K, v: Buffer, o: { append: boolean }) => boolean;
  if (!put(key, value, { append: true })) throw new StoreError(`${name}: key ${Buffer.isBuffer(key) ? key.toString("hex") : key} does not sort after the last one`);
}

/** What a pruning pass did (prune_worker's counts). */
export interface PruneResult {
  /** The store's seed after the pass (make_pruning_seed form). */
  seed: number;
  /** Blocks whose RingCT prunable data was removed in this pass. */
  blocks: number;
  /** Transactions whose prunable blob was removed in this pass. */
  txs: number;
  /** Bytes of prunable blobs removed. */
  bytes: number;
}

export class ChainStore implements ChainView {
  readonly network: Network;
  private readonly env: RootDatabase<Buffer, string>;
  private readonly blocks: Database<Buffer, number>;
  private readonly blockHeights: Database<Buffer, Buffer>;
  private readonly blockMeta: Database<Buffer, number>;
  /** The rolling median of the long-term weight window (WindowMedian), fed from blockMeta. */
  private readonly ltwMedian = new WindowMedian();
  /** longTermWeightMedian's windows with zeros added, by their count of zeros. */
  private readonly ltwMedianWithZeros = new Map<number, WindowMedian>();
  /** genesisHash's value, once read outside a write transaction. */
  private genesisId: Bytes | undefined;
  /** cumulativeRctOutputs' per-height counts, or null until first asked (and after anything unexpected). */
  private cumRct: number[] | null = null;
  /** cum_rct: the counts of block_meta in chunks of CUM_RCT_CHUNK heights. */
  private readonly cumRctChunks: Database<Buffer, number>;
  /** outputInPlace's keys, written for each read (lmdb-js copies a key as it reads). */
  private readonly rctKey = Buffer.alloc(8);
  private readonly preRctKey = Buffer.alloc(16);
  /** tx_ids: txKey(id) → tx number and location. */
  private readonly txIndex: Database<Buffer, Buffer>;
  /** tx number → pruned blob / prunable blob / prunable hash. */
  private readonly txPruned: Database<Buffer, Buffer>;
  private readonly txPrunable: Database<Buffer, Buffer>;
  private readonly txPrunableHashes: Database<Buffer, Buffer>;
  /** global index → RingCT output (amount 0). */
  private readonly rctOutputs: Database<Buffer, Buffer>;
  /** amount ‖ global index → pre-RingCT output. */
  private readonly preRctOutputs: Database<Buffer, Buffer>;
  private readonly amountCounts: Database<Buffer, Buffer>;
  private readonly keyImages: Database<Buffer, Buffer>;
  private readonly props: Database<Buffer, string>;
  private readonly backend: CryptoBackend;
  private readonly forks;
  private closed = false;

  /** The committed height, kept in memory between writes (height() is read on every RPC). */
  private cachedHeight: number | undefined;
  private cachedTop: { height: number; hash: Bytes } | undefined;
  private writeDepth = 0;
  private removals = 0;

  private constructor(dir: string, network: Network, opts: ChainStoreOptions) {
    this.network = network;
    this.backend = opts.backend ?? defaultBackend();
    this.forks = HARD_FORKS[network];
    const fast = opts.sync === "fast";
    this.env = open<Buffer, string>({
      path: dir,
      // lmdb-js would take a directory name with a dot ("data.regtest") for a file name
      noSubdir: false,
      maxDbs: 32,
      mapSize: opts.mapSize ?? 16 * 1024 ** 3,
      encoding: "binary",
      overlappingSync: false,
      // MDB_NORDAHEAD, as BlockchainLMDB::open: reads are random; the kernel's readahead would map
      // 128 KiB around each (the whole file of a 100,000-block chain after a few thousand reads,
      // counted in RSS) and, on a store larger than memory (mainnet), read ahead what is never asked
      // (lmdb-js reads the option; its type declarations lack it)
      ...({ noReadAhead: true } as object),
      noSync: fast,
      noMetaSync: fast,
      ...(opts.salvage ? { usePreviousSnapshot: true } : {}),
    });
    const db = <K extends number | Buffer | string>(name: string, keyEncoding: "uint32" | "binary" | "ordered-binary") =>
      this.env.openDB<Buffer, K>(name, { encoding: "binary", keyEncoding });
    this.blocks = db<number>("blocks", "uint32");
    this.blockHeights = db<Buffer>("block_heights", "binary");
    this.blockMeta = db<number>("block_meta", "uint32");
    this.cumRctChunks = db<number>("cum_rct", "uint32");
    this.txIndex = db<Buffer>("tx_ids", "binary");
    this.txPruned = db<Buffer>("txs_pruned", "binary");
    this.txPrunable = db<Buffer>("txs_prunable", "binary");
    this.txPrunableHashes = db<Buffer>("txs_prunable_hash", "binary");
    this.rctOutputs = db<Buffer>("rct_outputs", "binary");
    this.preRctOutputs = db<Buffer>("pre_rct_outputs", "binary");
    this.amountCounts = db<Buffer>("output_counts", "binary");
    this.keyImages = db<Buffer>("key_images", "binary");
    this.props = db<string>("properties", "ordered-binary");
  }

  /**
   * Opens (creating if needed) the store in `dir` for `network`. An empty store gets the network's
   * genesis block. A store of another network is refused.
   */
  static open(dir: string, network: Network, opts: ChainStoreOptions = {}): ChainStore {
    mkdirSync(dir, { recursive: true });
    const s = new ChainStore(dir, network, opts);
    const stored = s.props.get("network");
    if (stored !== undefined && stored.toString("utf8") !== network) {
      void s.close();
      throw new StoreError(`store in ${dir} is for ${stored.toString("utf8")}, not ${network}`);
    }
    const schema = s.props.get("schema");
    if (schema === undefined && s.height() > 0) s.migrateSchema1(opts.log);
    if (s.props.get("schema")?.readUInt32BE(0) === 2) s.migrateSchema2(opts.log);
    // layout 4 reads layout 3's records as they are and writes its compact ones from now on: only the number changes,
    // so that an earlier version, which cannot read those, refuses the store at open
    else if (schema?.readUInt32BE(0) === 3) s.props.putSync("schema", U32(SCHEMA));
    else if (schema !== undefined && schema.readUInt32BE(0) !== SCHEMA) {
      void s.close();
      throw new StoreError(`store in ${dir} has layout ${schema.readUInt32BE(0)}; this version reads layout ${SCHEMA} (and migrates layouts 1 to 3)`);
    }
    if (s.height() === 0) {
      s.props.putSync("schema", U32(SCHEMA));
      const g = genesisBlock(network);
      const ctx = nextBlockContext(s);
      const r = checkBlock(s, ctx, { block: g, txs: [], txIds: [], txWeights: [], minerTxWeight: serializeTransaction(g.minerTx).length, now: g.timestamp, backend: s.backend });
      if (!r.ok) throw new StoreError(`genesis block rejected: ${r.error.code} ${r.error.message}`);
      s.props.putSync("network", Buffer.from(network, "utf8"));
      s.applyBlock(g, [], r.accepted);
    }
    s.checkCumRctChunks(opts.log);
    return s;
  }

  /**
   * A named database of other node parts in the same environment (e.g. the tx pool, alternative
   * blocks), binary keys and values; names must not collide with the chain's own (see the schema).
   */
  auxDb(name: string): Database<Buffer, Buffer> {
    if (CHAIN_DBS.has(name)) throw new StoreError(`auxDb: "${name}" is one of the chain's own databases`);
    return this.env.openDB<Buffer, Buffer>(name, { encoding: "binary", keyEncoding: "binary" });
  }

  /** Runs `fn` in one synchronous write transaction of the environment (all or nothing). */
  writeTransaction<T>(fn: () => T): T {
    // every write goes through here: the in-memory height is dropped before and after
    this.writeDepth++;
    this.cachedHeight = undefined;
    this.cachedTop = undefined;
    try {
      return this.env.transactionSync(fn);
    } finally {
      this.writeDepth--;
      this.cachedHeight = undefined;
      this.cachedTop = undefined;
    }
  }

  /**
   * Forces committed data to disk (mdb_env_sync with force): /save_bc, and what "fast" sync mode
   * leaves to the OS. Resolves once the sync is done.
   */
  flush(): Promise<void> {
    return new Promise((resolve, reject) => {
      (this.env as unknown as { sync(cb: (e?: Error) => void): void }).sync((e) => (e ? reject(e) : resolve()));
    });
  }

  /** Whether close() was called (nothing can be read any more). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Closes the environment (every applied block is already committed). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.env.close();
  }

  // ---- ChainView ----

  height(): number {
    if (this.cachedHeight !== undefined) return this.cachedHeight;
    const b = this.props.get("height");
    const h = b === undefined ? 0 : b.readUInt32BE(0);
    // inside a write transaction the height may still roll back: only committed values are kept
    if (this.writeDepth === 0) this.cachedHeight = h;
    return h;
  }

  /**
   * Changes whenever a block is removed from the top (pop, reorg). While it stays the same, every
   * block below the current height is the one that was there before: readers may keep what they
   * derived from blocks, outputs and txs by height or global index.
   */
  get revision(): number {
    return this.removals;
  }

  /**
   * The genesis block's id, read once: every synced wallet's get_blocks.bin names it last (its short
   * chain history), and a meta read per request cost ~20 µs. Never popped, so never stale. Shared:
   * callers only read it.
   */
  genesisHash(): Bytes {
    if (this.genesisId !== undefined) return this.genesisId;
    const hash = this.meta(0).hash;
    if (this.writeDepth === 0) this.genesisId = hash;
    return hash;
  }

  /** The top block's id (kept in memory like the height: every light refresh asks for it; do not modify it). */
  topHash(): Bytes {
    const h = this.height();
    if (h === 0) throw new StoreError("empty chain");
    if (this.cachedTop !== undefined && this.cachedTop.height === h) return this.cachedTop.hash;
    const hash = this.meta(h - 1).hash;
    // inside a write transaction the top may still roll back: only committed values are kept
    if (this.writeDepth === 0) this.cachedTop = { height: h, hash };
    return hash;
  }

  hardForkVersion(height: number): number {
    return hardForkVersionAt(this.forks, height);
  }

  private metas(start: number, count: number): BlockMeta[] {
    const top = this.height();
    if (start < 0 || count < 0 || start + count > top) throw new RangeError(`blocks [${start}, ${start + count}) beyond height ${top}`);
    const out: BlockMeta[] = [];
    // one lookup per height: lmdb-js' getBinaryFast (a shared buffer, decoded at once) is ~3× a cursor's entry
    // a compact record's difficulty needs its parent's cumulative difficulty: the previous entry's, read once for the first
    let h = start;
    const parent = (): bigint => (h > start ? out[h - start - 1].cumulativeDifficulty : this.cumulativeDifficultyAt(h - 1));
    for (; h < start + count; h++) {
      const value = this.blockMeta.getBinaryFast(h);
      if (value === undefined) throw new StoreError(`block_meta [${start}, ${start + count}) has no entry ${h}`);
      out.push(decodeMeta(h, value, parent));
    }
    return out;
  }

  timestamps(start: number, count: number): bigint[] {
    return this.metas(start, count).map((m) => m.timestamp);
  }
  cumulativeDifficulties(start: number, count: number): bigint[] {
    return this.metas(start, count).map((m) => m.cumulativeDifficulty);
  }
  blockWeights(start: number, count: number): number[] {
    return this.metas(start, count).map((m) => m.weight);
  }
  longTermBlockWeights(start: number, count: number): number[] {
    return this.metas(start, count).map((m) => m.longTermWeight);
  }
  /**
   * The median of the long-term weights of [start, start+count), kept as the window slides (one
   * read per new block, not 100,000); with `zeros` zeros added (get_fee_estimate's grace blocks),
   * from a window of its own, so that the next block's limits and the fee estimates do not move
   * one window back and forth.
   */
  longTermWeightMedian(start: number, count: number, zeros = 0): number {
    let w = this.ltwMedian;
    if (zeros > 0) {
      w = this.ltwMedianWithZeros.get(zeros) ?? new WindowMedian();
      // most recently used last; a few grace values at most (wallet2 asks 10, the RPC default is 0)
      this.ltwMedianWithZeros.delete(zeros);
      this.ltwMedianWithZeros.set(zeros, w);
      if (this.ltwMedianWithZeros.size > 2) this.ltwMedianWithZeros.delete(this.ltwMedianWithZeros.keys().next().value as number);
    }
    return w.median(start, count, (a, n) => this.longTermBlockWeights(a, n), zeros);
  }
  alreadyGeneratedCoins(): bigint {
    const h = this.height();
    return h === 0 ? 0n : this.meta(h - 1).alreadyGeneratedCoins;
  }
  isKeyImageSpent(keyImage: Bytes): boolean {
    return this.keyImages.get(buf(keyImage)) !== undefined;
  }
  /**
   * As `output`, without copying or decoding the record: for writing many outputs straight into an
   * answer (get_outs.bin). The record is LMDB's own buffer, valid until the store's next read: copy
   * what you need from it first.
   */
  outputInPlace(amount: bigint, index: bigint): OutputInPlace | undefined {
    let b: Buffer | undefined;
    if (amount === 0n) {
      this.rctKey.writeBigUInt64BE(index);
      b = this.rctOutputs.getBinaryFast(this.rctKey);
    } else {
      this.preRctKey.writeBigUInt64BE(amount, 0);
      this.preRctKey.writeBigUInt64BE(index, 8);
      b = this.preRctOutputs.getBinaryFast(this.preRctKey);
    }
    return b === undefined ? undefined : readOutputRecord(b);
  }

  output(amount: bigint, index: bigint): StoredOutput | undefined {
    const b = amount === 0n ? this.rctOutputs.get(U64(index)) : this.preRctOutputs.get(outKey(amount, index));
    return b === undefined ? undefined : decodeOutput(b);
  }

  // ---- reads ----

  meta(height: number): BlockMeta {
    const b = this.blockMeta.get(height);
    if (b === undefined) throw new StoreError(`no block at height ${height}`);
    return decodeMeta(height, b, () => this.cumulativeDifficultyAt(height - 1));
  }
  /** The cumulative difficulty of block `height`, without decoding the rest of its record. */
  private cumulativeDifficultyAt(height: number): bigint {
    const b = this.blockMeta.getBinaryFast(height);
    if (b === undefined) throw new StoreError(`no block at height ${height}`);
    return metaCumulativeDifficulty(b);
  }
  blockBlob(height: number): Bytes | undefined {
    const b = this.blocks.get(height);
    return b === undefined ? undefined : bytes(b);
  }
  block(height: number): Block | undefined {
    const b = this.blockBlob(height);
    return b === undefined ? undefined : parseBlock(b);
  }
  heightOf(hash: Bytes): number | undefined {
    const b = this.blockHeights.get(buf(hash));
    return b === undefined ? undefined : b.readUInt32BE(0);
  }
  blockByHash(hash: Bytes): Block | undefined {
    const h = this.heightOf(hash);
    return h === undefined ? undefined : this.block(h);
  }
  txLocation(txId: Bytes): TxLocation | undefined {
    const b = this.txIndex.get(txKey(txId));
    return b === undefined ? undefined : decodeLocation(b);
  }
  /** The full blob of a tx by its tx_indices value; undefined when its prunable part was pruned. */
  private fullBlob(loc: Buffer): Bytes | undefined {
    const num = locationNum(loc);
    const p = this.txPruned.get(num);
    if (p === undefined) return undefined;
    const q = this.txPrunable.get(num);
    if (q === undefined) return loc[LOCATION_PRUNED_FLAG] === 0 ? bytes(p) : undefined;
    return bytes(Buffer.concat([p, q]));
  }
  /** The full transaction blob (pruned part + prunable part); undefined for a tx whose prunable part was pruned. */
  txBlob(txId: Bytes): Bytes | undefined {
    const loc = this.txIndex.get(txKey(txId));
    return loc === undefined ? undefined : this.fullBlob(loc);
  }
  /**
   * The prunable hash of a v2 tx (kept when its prunable part is pruned); undefined for v1 txs and
   * unknown ids. Stores written before the hash was kept compute it from the prunable blob.
   */
  txPrunableHash(txId: Bytes): Bytes | undefined {
    const loc = this.txIndex.get(txKey(txId));
    return loc === undefined ? undefined : this.prunableHashAt(locationNum(loc), this.txPruned.get(locationNum(loc)));
  }
  /** txPrunableHash of tx number `num`, whose pruned part is `pruned`. */
  private prunableHashAt(num: Buffer, pruned: Buffer | undefined): Bytes | undefined {
    const h = this.txPrunableHashes.get(num);
    if (h !== undefined) return own(h);
    const q = this.txPrunable.get(num);
    if (pruned === undefined || q === undefined || parseTransaction(bytes(pruned), { pruned: true }).version < 2) return undefined;
    return this.backend.keccak256(q);
  }
  /**
   * What a pruned get_blocks.bin entry takes of a tx, from one tx_indices lookup: its pruned blob,
   * its prunable hash (as txPrunableHash) and its output indices; undefined for an unknown id or a
   * tx whose pruned part is missing.
   */
  txPrunedEntry(txId: Bytes): { blob: Bytes; prunableHash: Bytes | undefined; outputIndices: bigint[] } | undefined {
    // lmdb-js' shared buffer, read at once: the tx number copied, the output indices decoded
    const loc = this.txIndex.getBinaryFast(txKey(txId));
    if (loc === undefined) return undefined;
    const num = Buffer.from(locationNum(loc));
    const outputIndices = locationOutputIndices(loc);
    const p = this.txPruned.get(num);
    if (p === undefined) return undefined;
    return { blob: own(p), prunableHash: this.prunableHashAt(num, p), outputIndices };
  }
  /** The store's pruning seed (make_pruning_seed form), 0 when it keeps every prunable part. */
  pruningSeed(): number {
    const b = this.props.get("pruning_seed");
    return b === undefined ? 0 : b.readUInt32BE(0);
  }
  /** The pruned part of a tx by its tx_indices value. */
  private prunedBlob(loc: Buffer): Bytes | undefined {
    const p = this.txPruned.get(locationNum(loc));
    return p === undefined ? undefined : bytes(p);
  }
  /** The pruned part (prefix, plus RingCT base for v2). */
  txPrunedBlob(txId: Bytes): Bytes | undefined {
    const loc = this.txIndex.get(txKey(txId));
    return loc === undefined ? undefined : this.prunedBlob(loc);
  }
  /** A stored tx, parsed (pruned — no signatures — when its prunable part was pruned). */
  transaction(txId: Bytes): { tx: Transaction; location: TxLocation } | undefined {
    const loc = this.txIndex.get(txKey(txId));
    return loc === undefined ? undefined : this.txAt(loc);
  }
  /** The tx a tx_indices value points to, parsed, with its location. */
  private txAt(loc: Buffer): { tx: Transaction; location: TxLocation } | undefined {
    const location = decodeLocation(loc);
    const blob = location.pruned ? this.prunedBlob(loc) : this.fullBlob(loc);
    if (blob === undefined) return undefined;
    return { tx: parseTransaction(blob, { pruned: location.pruned }), location };
  }
  /** Number of outputs of `amount` (0 for RingCT): the next global index. */
  outputCount(amount: bigint): bigint {
    const b = this.amountCounts.get(U64(amount));
    return b === undefined ? 0n : b.readBigUInt64BE(0);
  }
  /** Every amount with at least one output, and its count. */
  outputCounts(): Map<bigint, bigint> {
    const m = new Map<bigint, bigint>();
    for (const { key, value } of this.amountCounts.getRange({})) m.set(key.readBigUInt64BE(0), value.readBigUInt64BE(0));
    return m;
  }
  /** Height of the block that spent `keyImage`, if spent. */
  keyImageHeight(keyImage: Bytes): number | undefined {
    const b = this.keyImages.get(buf(keyImage));
    return b === undefined ? undefined : b.readUInt32BE(0);
  }
  keyImageCount(): number {
    return entryCount(this.keyImages);
  }
  txCount(): number {
    return entryCount(this.txIndex);
  }
  /**
   * The stored tx ids whose top `bits` bits, the id read as a little-endian 256-bit number, equal
   * `template`'s (BlockchainLMDB::get_txids_loose's chain half), in that number's order; "too many"
   * when more than `max` match (0: no limit).
   */
  txIdsLoose(template: Bytes, bits: number, max: number): Bytes[] | "too many" {
    const out: Bytes[] = [];
    // the template sorts first among the ids it matches, and they follow it without a gap
    for (const key of this.txIndex.getKeys({ start: txKey(template) })) {
      const id = txKey(key);
      if (Buffer.compare(hash32LooseTemplate(id, bits), template) !== 0) break;
      if (max !== 0 && out.length >= max) return "too many";
      out.push(bytes(id));
    }
    return out;
  }

  // ---- writes ----

  /**
   * Rewrites a schema-1 store (txs keyed by id, every output in one amount ‖ index table) in the
   * current layout, `batch` blocks per write transaction, in chain order so every txs_* and rct_outputs write
   * appends. The old tables are dropped and "schema" set in the last transaction: a crash before it
   * leaves schema 1 whole, and the next open starts over. The file keeps its length (LMDB reuses
   * the freed pages; `mdb_copy -c` compacts it).
   */
  private migrateSchema1(log?: (line: string) => void, batch = 500): void {
    const [oPruned, oPrunable, oHash, oIndex, oOutputs] = SCHEMA1_DBS.map((name) => this.env.openDB<Buffer, Buffer>(name, { encoding: "binary", keyEncoding: "binary" }));
    const top = this.height();
    log?.(`chain store: migrating layout 1 to ${SCHEMA} (${top} blocks; txs and outputs in append order, about half the pages)`);
    const started = Date.now();
    const fresh = [this.txIndex, this.txPruned, this.txPrunable, this.txPrunableHashes, this.rctOutputs, this.preRctOutputs];
    this.writeTransaction(() => {
      for (const db of fresh) db.clearSync();
    });
    let num = 0;
    for (let from = 0; from < top; from += batch) {
      this.writeTransaction(() => {
        for (let h = from; h < Math.min(from + batch, top); h++) {
          const block = this.block(h);
          if (!block) throw new StoreError(`layout migration: no block at height ${h}`);
          for (const txId of [blockMinerTxId(block, this.backend), ...block.txHashes]) {
            const id = buf(txId);
            const loc = oIndex.get(id);
            const p = oPruned.get(id);
            if (loc === undefined || p === undefined) throw new StoreError(`layout migration: tx ${id.toString("hex")} of block ${h} missing`);
            const n = U64(BigInt(num++));
            appendSync(this.txPruned, "txs_pruned", n, p);
            const q = oPrunable.get(id);
            if (q !== undefined) appendSync(this.txPrunable, "txs_prunable", n, q);
            const ph = oHash.get(id);
            if (ph !== undefined) appendSync(this.txPrunableHashes, "txs_prunable_hash", n, ph);
            this.txIndex.putSync(txKey(id), Buffer.concat([n, loc]));
          }
        }
      });
    }
    const per = 20_000;
    for (const [amount, count] of this.outputCounts()) {
      for (let from = 0n; from < count; from += BigInt(per)) {
        this.writeTransaction(() => {
          for (let gi = from; gi < count && gi < from + BigInt(per); gi++) {
            const o = oOutputs.get(outKey(amount, gi));
            if (o === undefined) throw new StoreError(`layout migration: output ${amount}/${gi} missing`);
            if (amount === 0n) appendSync(this.rctOutputs, "rct_outputs", U64(gi), o);
            else this.preRctOutputs.putSync(outKey(amount, gi), o);
          }
        });
      }
    }
    this.writeTransaction(() => {
      for (const db of [oPruned, oPrunable, oHash, oIndex, oOutputs]) db.dropSync();
      this.props.putSync("schema", U32(SCHEMA));
    });
    log?.(`chain store: layout ${SCHEMA} in place (${num} txs) after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  /**
   * Schema 2 → 3 (and so 4): tx_indices (keyed by the id's bytes) rewritten as tx_ids (keyed by them reversed),
   * `batch` entries per write transaction; tx_indices is dropped and "schema" set in the last one,
   * so a crash before it leaves schema 2 whole and the next open starts over.
   */
  private migrateSchema2(log?: (line: string) => void, batch = 50_000): void {
    const old = this.env.openDB<Buffer, Buffer>("tx_indices", { encoding: "binary", keyEncoding: "binary" });
    log?.(`chain store: migrating layout 2 to ${SCHEMA} (tx ids keyed in get_txids_loose's order, ${entryCount(old)} txs)`);
    this.writeTransaction(() => this.txIndex.clearSync());
    let after: Buffer | undefined;
    for (;;) {
      // copies: lmdb-js may hand out a reused buffer per iteration
      const entries: { key: Buffer; value: Buffer }[] = [];
      for (const { key, value } of old.getRange({ start: after, limit: batch + 1 })) {
        if (after !== undefined && key.equals(after)) continue;
        if (entries.length === batch) break;
        entries.push({ key: Buffer.from(key), value: Buffer.from(value) });
      }
      if (entries.length === 0) break;
      this.writeTransaction(() => {
        for (const { key, value } of entries) this.txIndex.putSync(txKey(key), value);
      });
      after = entries[entries.length - 1].key;
    }
    this.writeTransaction(() => {
      old.dropSync();
      this.props.putSync("schema", U32(SCHEMA));
    });
    log?.(`chain store: layout ${SCHEMA} in place (${this.txCount()} txs)`);
  }

  /** The number the next stored tx gets: one more than the last in txs_pruned (txs are numbered in chain order from 0, as monerod's tx_id). */
  private nextTxNumber(): number {
    for (const k of this.txPruned.getKeys({ reverse: true, limit: 1 })) return Number(k.readBigUInt64BE(0)) + 1;
    return 0;
  }

  /**
   * Appends `block` (with its non-coinbase `txs` in tx_hashes order, full) and what consensus
   * computed for it, in one write transaction. Returns the stored metadata.
   */
  applyBlock(block: Block, txs: readonly Transaction[], computed: BlockComputed): BlockMeta {
    const blob = buf(serializeBlock(block));
    const hash = blockHash(block, this.backend);
    const miner = splitTx(block.minerTx, this.backend);
    const parts = txs.map((t) => splitTx(t, this.backend));
    if (parts.length !== block.txHashes.length) throw new StoreError(`block has ${block.txHashes.length} tx hashes, ${parts.length} txs given`);
    parts.forEach((p, i) => {
      if (!buf(p.id).equals(buf(block.txHashes[i]))) throw new StoreError(`tx ${i} does not match the block's tx hash`);
    });
    const reward = block.minerTx.vout.reduce((a, o) => a + o.amount, 0n);
    let meta: BlockMeta | undefined;
    this.writeTransaction(() => {
      const height = this.height();
      if (height > 0 && !buf(this.meta(height - 1).hash).equals(buf(block.prevId))) throw new StoreError(`block ${buf(hash).toString("hex")} does not extend the top`);
      if (this.blockHeights.get(buf(hash)) !== undefined) throw new StoreError("block already stored");
      const counts = new Map<bigint, bigint>();
      let num = this.nextTxNumber();
      const nextIndex = (amount: bigint): bigint => {
        const n = counts.get(amount) ?? this.outputCount(amount);
        counts.set(amount, n + 1n);
        return n;
      };
      const addTx = (tx: Transaction, p: (typeof parts)[number], index: number): void => {
        const id = buf(p.id);
        if (this.txIndex.get(txKey(id)) !== undefined) throw new StoreError(`tx ${id.toString("hex")} already stored`);
        const coinbase = index === 0;
        for (const input of tx.vin) {
          if (input.type !== "key") continue;
          const ki = buf(input.keyImage);
          if (this.keyImages.get(ki) !== undefined) throw new StoreError(`key image ${ki.toString("hex")} already spent`);
          this.keyImages.putSync(ki, U32(height));
        }
        const outputIndices: bigint[] = [];
        tx.vout.forEach((o, i) => {
          if (o.target.type !== "key" && o.target.type !== "tagged_key") throw new StoreError(`tx ${id.toString("hex")} output ${i}: ${o.target.type} outputs are not stored`);
          const rct = tx.version >= 2;
          const amount = rct ? 0n : o.amount;
          const commitment = coinbase || !rct ? zeroCommit(this.backend, o.amount) : tx.rct?.outPk[i];
          if (commitment === undefined) throw new StoreError(`tx ${id.toString("hex")} output ${i} has no commitment`);
          const gi = nextIndex(amount);
          outputIndices.push(gi);
          const record = encodeOutput({ key: o.target.key, commitment, unlockTime: tx.unlockTime, height, txId: p.id, coinbase });
          if (rct) appendSync(this.rctOutputs, "rct_outputs", U64(gi), record);
          else this.preRctOutputs.putSync(outKey(amount, gi), record);
        });
        const n = U64(BigInt(num++));
        appendSync(this.txPruned, "txs_pruned", n, p.pruned);
        appendSync(this.txPrunable, "txs_prunable", n, p.prunable);
        if (p.prunableHash) appendSync(this.txPrunableHashes, "txs_prunable_hash", n, p.prunableHash);
        this.txIndex.putSync(txKey(id), encodeLocation(n, { height, index, unlockTime: tx.unlockTime, outputIndices, pruned: p.isPruned }));
      };
      addTx(block.minerTx, miner, 0);
      txs.forEach((t, i) => addTx(t, parts[i], i + 1));
      for (const [amount, n] of counts) this.amountCounts.putSync(U64(amount), U64(n));
      meta = {
        height,
        hash,
        timestamp: block.timestamp,
        difficulty: computed.difficulty,
        cumulativeDifficulty: computed.cumulativeDifficulty,
        weight: computed.weight,
        longTermWeight: computed.longTermWeight,
        alreadyGeneratedCoins: computed.alreadyGeneratedCoins,
        reward,
        txCount: txs.length,
      };
      appendSync(this.blocks, "blocks", height, blob);
      this.blockHeights.putSync(buf(hash), U32(height));
      const cumRct = counts.get(0n) ?? this.outputCount(0n);
      appendSync(this.blockMeta, "block_meta", height, encodeMeta(meta, cumRct));
      this.pushCumRct(height, Number(cumRct));
      this.props.putSync("height", U32(height + 1));
      // a pruned store prunes the block that this one pushes out of the tip (update_pruning, per block)
      const seed = this.pruningSeed();
      const out = height + 1 - PRUNING_TIP_BLOCKS - 1;
      if (seed !== 0 && out >= 0 && !keepsPrunable(out, height + 1, seed)) this.pruneBlockTxs(out);
    });
    if (meta === undefined) throw new StoreError("applyBlock: transaction did not run");
    const m: BlockMeta = meta;
    // committed: the new top is known without reading it back
    if (this.writeDepth === 0) {
      this.cachedHeight = m.height + 1;
      this.cachedTop = { height: m.height + 1, hash: m.hash };
    }
    // inside an outer transaction (a reorg) that may still roll back, the kept counts are dropped
    if (this.cumRct) {
      if (this.writeDepth === 0 && this.cumRct.length === m.height) this.cumRct.push(Number(this.outputCount(0n)));
      else this.cumRct = null;
    }
    return m;
  }

  /**
   * RingCT outputs in blocks 0..h, for each h in [from, to] (monerod's bi_cum_rct,
   * get_block_cumulative_rct_outputs). Kept in memory: read from the block metas the first time it
   * is asked (one walk over the RingCT outputs instead when older blocks lack the count), then
   * extended and cut as blocks are applied and popped, so a
   * wallet's get_output_distribution costs the blocks it asks for, not every output on the chain.
   */
  cumulativeRctOutputs(from: number, to: number): number[] {
    const height = this.height();
    if (from < 0 || to < from || to >= height) throw new RangeError(`blocks [${from}, ${to}] beyond height ${height}`);
    if (this.cumRct && this.cumRct.length === height) return this.cumRct.slice(from, to + 1);
    // a window (a tx's spendable age, a recent range) reads its chunks only; the whole chain is kept
    if (to - from + 1 < height / 2) {
      const window = this.chunkedCumRct(from, to);
      if (window) return window;
    }
    return this.keptCumulativeRct(height).slice(from, to + 1);
  }

  /**
   * Reads the per-height RingCT counts into memory now, as the first whole-chain
   * cumulativeRctOutputs does, so the first whole-chain distribution a wallet asks for reads no
   * chunk (the daemon calls it before its RPC warm-up). 8 bytes per block: ~26 MiB for mainnet's
   * 3.3 million.
   */
  keepCumulativeRctOutputs(): void {
    const height = this.height();
    if (height > 0) this.keptCumulativeRct(height);
  }

  /**
   * RingCT outputs in the blocks below `h` (the global index of block h's first RingCT output), from
   * the counts kept in memory (keepCumulativeRctOutputs, or a first whole-chain
   * cumulativeRctOutputs); undefined while they are not kept, or beyond the chain. Reads nothing.
   */
  keptRctOutputsBelow(h: number): number | undefined {
    const kept = this.cumRct;
    if (kept === null || kept.length !== this.height() || h < 0 || h > kept.length) return undefined;
    return h === 0 ? 0 : kept[h - 1];
  }

  private keptCumulativeRct(height: number): number[] {
    if (this.cumRct && this.cumRct.length === height) return this.cumRct;
    return (this.cumRct = this.chunkedCumRct(0, height - 1) ?? this.storedCumulativeRct(height) ?? this.walkCumulativeRct(height));
  }

  /** The counts of [from, to] from cum_rct, or undefined when a chunk is missing or short. */
  private chunkedCumRct(from: number, to: number): number[] | undefined {
    const out = new Array<number>(to - from + 1);
    for (let c = Math.floor(from / CUM_RCT_CHUNK); c <= Math.floor(to / CUM_RCT_CHUNK); c++) {
      const v = this.cumRctChunks.getBinaryFast(c);
      const first = c * CUM_RCT_CHUNK;
      const a = Math.max(from, first);
      const b = Math.min(to, first + CUM_RCT_CHUNK - 1);
      if (v === undefined || v.length < 8 * (b - first + 1)) return undefined;
      for (let h = a; h <= b; h++) out[h - from] = readCount(v, 8 * (h - first));
    }
    return out;
  }

  /** Appends block `height`'s count to its chunk (inside applyBlock's transaction). */
  private pushCumRct(height: number, count: number): void {
    const c = Math.floor(height / CUM_RCT_CHUNK);
    const at = 8 * (height - c * CUM_RCT_CHUNK);
    const v = at === 0 ? undefined : this.cumRctChunks.get(c);
    // a chunk that does not end at the block before (a store written without the table) is left to open()'s rebuild
    if (at > 0 && (v === undefined || v.length !== at)) return;
    const next = Buffer.alloc(at + 8);
    if (v !== undefined) v.copy(next, 0, 0, at);
    writeCount(next, at, count);
    this.cumRctChunks.putSync(c, next);
  }

  /** Removes block `height`'s count, the last of its chunk (inside popBlock's transaction). */
  private popCumRct(height: number): void {
    const c = Math.floor(height / CUM_RCT_CHUNK);
    const at = 8 * (height - c * CUM_RCT_CHUNK);
    const v = this.cumRctChunks.get(c);
    if (v === undefined || v.length !== at + 8) return; // not kept for this block: open()'s check finds it
    if (at === 0) this.cumRctChunks.removeSync(c);
    else this.cumRctChunks.putSync(c, Buffer.from(v.subarray(0, at)));
  }

  /**
   * cum_rct holds exactly one count per block and its last equals the top block's meta (or a walk's
   * when metas lack it); else it is rebuilt from block_meta in one write transaction.
   */
  private checkCumRctChunks(log?: (line: string) => void): void {
    const height = this.height();
    if (height === 0) return;
    const last = height - 1;
    const c = Math.floor(last / CUM_RCT_CHUNK);
    const v = this.cumRctChunks.get(c);
    const at = 8 * (last - c * CUM_RCT_CHUNK);
    const top = this.blockMeta.get(last);
    const topCount = (top === undefined ? undefined : metaCumRct(top)) ?? Number(this.outputCount(0n));
    if (v !== undefined && v.length === at + 8 && readCount(v, at) === topCount && this.cumRctChunks.get(c + 1) === undefined) return;
    const started = Date.now();
    const cum = this.storedCumulativeRct(height) ?? this.walkCumulativeRct(height);
    this.writeTransaction(() => {
      this.cumRctChunks.clearSync();
      for (let first = 0; first < height; first += CUM_RCT_CHUNK) {
        const n = Math.min(CUM_RCT_CHUNK, height - first);
        const b = Buffer.alloc(8 * n);
        for (let k = 0; k < n; k++) writeCount(b, 8 * k, cum[first + k]);
        this.cumRctChunks.putSync(first / CUM_RCT_CHUNK, b);
      }
    });
    log?.(`chain store: RingCT output counts per block indexed in chunks (${height} blocks, ${Date.now() - started} ms)`);
  }

  /** The counts the block metas carry (one cursor over block_meta), or undefined when a block has none (stored before they were). */
  private storedCumulativeRct(height: number): number[] | undefined {
    const cum = new Array<number>(height);
    // per height with getBinaryFast, not a cursor: the first get_output_distribution reads every block's
    for (let h = 0; h < height; h++) {
      const value = this.blockMeta.getBinaryFast(h);
      const n = value === undefined ? undefined : metaCumRct(value);
      if (n === undefined) return undefined;
      cum[h] = n;
    }
    return cum;
  }

  /** The counts from one walk over every RingCT output (their heights). */
  private walkCumulativeRct(height: number): number[] {
    const cum = new Array<number>(height).fill(0);
    const n = this.outputCount(0n);
    let h = 0;
    let count = 0;
    for (const { value } of this.rctOutputs.getRange({ start: U64(0n), end: U64(n) })) {
      const oh = value.readUInt32BE(outputHeightAt(value)); // the height field of encodeOutput's layouts, without decoding the rest
      while (h < oh) cum[h++] = count;
      count++;
    }
    while (h < height) cum[h++] = count;
    return cum;
  }

  /** Test hook: both ways of counting, to compare. */
  cumulativeRctBothWays(): { stored: number[] | undefined; walked: number[]; chunked: number[] | undefined } {
    const height = this.height();
    return { stored: this.storedCumulativeRct(height), walked: this.walkCumulativeRct(height), chunked: this.chunkedCumRct(0, height - 1) };
  }

  /**
   * Removes the prunable blobs of block `height`'s RingCT txs (v1 txs keep their signatures, as
   * prune_worker keeps them), keeping each prunable hash and marking the tx pruned. Inside a write
   * transaction. Returns what it removed.
   */
  private pruneBlockTxs(height: number): { txs: number; bytes: number } {
    const block = this.block(height);
    if (!block) throw new StoreError(`no block at height ${height}`);
    let txs = 0;
    let size = 0;
    for (const txId of [blockMinerTxId(block, this.backend), ...block.txHashes]) {
      const id = buf(txId);
      const loc = this.txIndex.get(txKey(id));
      if (loc === undefined) continue;
      const num = locationNum(loc);
      const q = this.txPrunable.get(num);
      if (q === undefined) continue;
      const p = this.txPruned.get(num);
      if (p === undefined || parseTransaction(bytes(p), { pruned: true }).version < 2) continue;
      if (this.txPrunableHashes.get(num) === undefined) this.txPrunableHashes.putSync(num, buf(this.backend.keccak256(q)));
      this.txPrunable.removeSync(num);
      const marked = Buffer.from(loc);
      marked[LOCATION_PRUNED_FLAG] = 1;
      this.txIndex.putSync(txKey(id), marked);
      txs++;
      size += id.length + q.length;
    }
    return { txs, bytes: size };
  }

  /**
   * Prunes the chain (BlockchainLMDB::prune_worker, prune mode): a store not pruned yet takes the
   * seed of `stripe` (1–8; a random one when absent) and keeps it; a pruned store refuses another
   * stripe. Every block below the tip window outside the store's stripe loses its RingCT prunable
   * data, `batch` blocks per write transaction, giving way to other work between batches. Later
   * blocks are pruned as they leave the tip (applyBlock).
   */
  async prune(stripe?: number, batch = 500): Promise<PruneResult> {
    if (stripe !== undefined && (!Number.isInteger(stripe) || stripe < 1 || stripe > 2 ** PRUNING_LOG_STRIPES)) throw new StoreError(`pruning stripe ${stripe} out of range (1 to ${2 ** PRUNING_LOG_STRIPES})`);
    const old = this.pruningSeed();
    let seed = old;
    if (old === 0) {
      seed = makePruningSeed(stripe ?? randomStripe());
      this.writeTransaction(() => this.props.putSync("pruning_seed", U32(seed)));
    } else {
      if (pruningLogStripes(old) !== PRUNING_LOG_STRIPES) throw new StoreError("Blockchain already pruned with different base");
      if (stripe !== undefined && seedStripe(old) !== stripe) throw new StoreError("Blockchain already pruned with different seed");
    }
    const result: PruneResult = { seed, blocks: 0, txs: 0, bytes: 0 };
    for (let from = 0; ; from += batch) {
      const top = this.height();
      const end = Math.min(from + batch, top - PRUNING_TIP_BLOCKS - 1 + 1);
      if (from >= end) break;
      this.writeTransaction(() => {
        const h = this.height();
        for (let b = from; b < end; b++) {
          if (keepsPrunable(b, h, seed)) continue;
          const r = this.pruneBlockTxs(b);
          if (r.txs > 0) result.blocks++;
          result.txs += r.txs;
          result.bytes += r.bytes;
        }
      });
      await new Promise<void>((r) => setImmediate(r));
    }
    return result;
  }

  /**
   * Checks a pruned store (prune_worker, check mode): no block that should have been pruned still
   * holds prunable data, and every pruned v2 tx kept its prunable hash. True for an unpruned store.
   */
  checkPruning(): boolean {
    const seed = this.pruningSeed();
    if (seed === 0) return true;
    const top = this.height();
    for (let b = 0; b + PRUNING_TIP_BLOCKS < top; b++) {
      const block = this.block(b);
      if (!block) return false;
      const keep = keepsPrunable(b, top, seed);
      for (const txId of [blockMinerTxId(block, this.backend), ...block.txHashes]) {
        const raw = this.txIndex.get(txKey(txId));
        if (!raw) return false;
        const loc = decodeLocation(raw);
        const hasHash = this.txPrunableHashes.get(locationNum(raw)) !== undefined;
        if (loc.pruned && (keep || !hasHash)) return false;
        // a v2 tx of a block outside the stripe must not hold its prunable part any more
        if (!keep && !loc.pruned && hasHash) return false;
      }
    }
    return true;
  }

  /**
   * Removes the top block (never the genesis) in one write transaction: its txs, outputs, key
   * images and indices. Returns the block and its non-coinbase txs, for the pool to take back.
   */
  popBlock(): { block: Block; txs: Transaction[] } {
    let result: { block: Block; txs: Transaction[] } | undefined;
    this.writeTransaction(() => {
      const height = this.height();
      if (height <= 1) throw new StoreError("cannot pop the genesis block");
      this.removals++;
      const top = height - 1;
      const blob = this.blocks.get(top);
      if (blob === undefined) throw new StoreError(`no block at ${top}`);
      const block = parseBlock(bytes(blob));
      const meta = this.meta(top);
      const ids = [blockMinerTxId(block, this.backend), ...block.txHashes];
      const txs: Transaction[] = [];
      const counts = new Map<bigint, bigint>();
      // remove in reverse order so output counts fall back exactly
      for (let k = ids.length - 1; k >= 0; k--) {
        const id = buf(ids[k]);
        const raw = this.txIndex.get(txKey(id));
        const found = raw === undefined ? undefined : this.txAt(raw);
        if (found === undefined || raw === undefined) throw new StoreError(`tx ${id.toString("hex")} of block ${top} missing`);
        const num = locationNum(raw);
        const { tx, location } = found;
        if (k > 0) txs.unshift(tx);
        const rct = tx.version >= 2;
        for (let i = tx.vout.length - 1; i >= 0; i--) {
          const amount = rct ? 0n : tx.vout[i].amount;
          const gi = location.outputIndices[i];
          const n = counts.get(amount) ?? this.outputCount(amount);
          if (gi !== n - 1n) throw new StoreError(`output ${amount}/${gi} is not the last of its amount (${n})`);
          if (rct) this.rctOutputs.removeSync(U64(gi));
          else this.preRctOutputs.removeSync(outKey(amount, gi));
          counts.set(amount, gi);
        }
        for (const input of tx.vin) if (input.type === "key") this.keyImages.removeSync(buf(input.keyImage));
        this.txPruned.removeSync(num);
        this.txPrunable.removeSync(num);
        this.txPrunableHashes.removeSync(num);
        this.txIndex.removeSync(txKey(id));
      }
      for (const [amount, n] of counts) {
        if (n === 0n) this.amountCounts.removeSync(U64(amount));
        else this.amountCounts.putSync(U64(amount), U64(n));
      }
      this.blocks.removeSync(top);
      this.blockHeights.removeSync(buf(meta.hash));
      this.blockMeta.removeSync(top);
      this.popCumRct(top);
      this.props.putSync("height", U32(top));
      this.ltwMedian.truncate(top);
      for (const w of this.ltwMedianWithZeros.values()) w.truncate(top);
      // popped in a write transaction: the kept counts are dropped unless this is the outermost one
      if (this.cumRct) {
        if (this.writeDepth === 1 && this.cumRct.length === height) this.cumRct.pop();
        else this.cumRct = null;
      }
      result = { block, txs };
    });
    if (result === undefined) throw new StoreError("popBlock: transaction did not run");
    return result;
  }
}

function blockMinerTxId(block: Block, backend: CryptoBackend): Bytes {
  return txHashesFromBlob(serializeTransaction(block.minerTx), backend).hash;
}
