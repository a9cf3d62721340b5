/**
 * The contract between the node's core (node/chain, node/pool, node/mining) and its services
 * (node/rpc, later node/p2p and node/zmq). The RPC handlers read chain data straight from the
 * ChainStore (synchronous LMDB reads) and go through `NodeCore` for everything that changes state
 * or needs the pool, the alternative chains or the miner.
 *
 * Every state change is serialised by the core (one writer at a time); reads may run any time and
 * see whole blocks only.
 */
import type { NextBlockContext } from "../consensus/block-rules.js";
import type { BlockFlag, BlockRuleError, TxFlag, TxRuleError } from "../consensus/errors.js";
import type { Block } from "../protocol/block.js";
import type { Network } from "../protocol/network.js";
import type { Bytes, Transaction } from "../protocol/tx.js";
import type { ChainStore, PruneResult } from "./store/chain-store.js";

/** One transaction in the pool (monerod's tx_memory_pool::tx_details / txpool_tx_meta_t). */
export interface PoolEntry {
  id: Bytes;
  /** Full blob as received. */
  blob: Bytes;
  tx: Transaction;
  blobSize: number;
  weight: number;
  fee: bigint;
  keyImages: Bytes[];
  /** Unix seconds when it entered the pool. */
  receiveTime: number;
  /** Unix seconds of the last relay (0 = never). */
  lastRelayedTime: number;
  relayed: boolean;
  doNotRelay: boolean;
  /**
   * Dandelion++ stem state (monerod's dandelionpp_stem): the Unix second its embargo ends, when the
   * tx was sent or received along a stem and nobody has fluffed it since; absent once fluffed. A
   * stem tx is not public (restricted RPC, pool complement and ZMQ leave it out) until then.
   */
  stemEmbargo?: number;
  /**
   * Submitted over our RPC while P2P runs, and P2P has not yet chosen stem or fluff for it
   * (monerod's relay_method::local): not public yet. Not kept across a restart.
   */
  local?: boolean;
  /** Came back from a popped/reorganised block (kept 3 days instead of 1). */
  keptByBlock: boolean;
  /** Set when another pool or chain tx spends one of its key images. */
  doubleSpendSeen: boolean;
  lastFailedHeight: number;
  lastFailedId: Bytes;
  maxUsedBlockHeight: number;
  maxUsedBlockId: Bytes;
}

/** Whether a pool tx is public: relayed in the open (not do_not_relay, not in a Dandelion++ stem). */
export function isBroadcast(e: PoolEntry): boolean {
  return !e.doNotRelay && e.stemEmbargo === undefined && !e.local;
}

/** The pool as the RPC layer sees it (read side). */
export interface PoolView {
  size(): number;
  /** Every entry, newest last (receive order). */
  entries(): readonly PoolEntry[];
  get(id: Bytes): PoolEntry | undefined;
  has(id: Bytes): boolean;
  /** Stem txs whose Dandelion++ embargo has ended by `now` (Unix seconds; default the pool's clock). */
  embargoEnded(now?: number): PoolEntry[];
  /** Txs due to be relayed again (get_relayable_transactions: public and local ones, see TxPool.relayable). */
  relayable(now?: number): PoolEntry[];
  /** The pool tx that spends `keyImage`, if any. */
  spenderOf(keyImage: Bytes): Bytes | undefined;
  /** Key image → the pool txs spending it (get_transaction_pool's spent_key_images). */
  spentKeyImages(): ReadonlyMap<string, readonly Bytes[]>;
  totalWeight(): number;
  /**
   * tx_memory_pool::get_pool_info (later releases' get_blocks.bin pool info): the pool's changes
   * since `since` (a daemon_time the client got before), or the whole pool when `since` is 0 or
   * older than what the pool tracks. do_not_relay txs only with `includeSensitive`; at most
   * `maxTxCount` entries, the other added ids in `remainingAdded`.
   */
  changesSince(since: bigint, opts: { includeSensitive: boolean; maxTxCount: number }): PoolChanges;
}

/** What changesSince answers (get_pool_info's out parameters). */
export interface PoolChanges {
  /** INCREMENTAL (true) or FULL (false). */
  incremental: boolean;
  /** Added since (the whole pool when not incremental), up to maxTxCount. */
  added: PoolEntry[];
  /** Added ids past maxTxCount (the client asks /get_transactions for them). */
  remainingAdded: Bytes[];
  /** Removed since (incremental only); a tx removed and added again is in both lists. */
  removed: Bytes[];
}

/** What `/send_raw_transaction` reports (monerod's flags, `reason` for humans). */
export interface TxSubmitResult {
  /** Accepted into the pool (or already there). */
  ok: boolean;
  /** The first rule broken, when !ok. */
  error?: TxRuleError;
  /** monerod's tvc flags set (send_raw_transaction's booleans). */
  flags: TxFlag[];
  /**
   * send_raw_transaction's not_relayed: the tx was accepted with do_not_relay, or was already known.
   * The pool entry is `relayed` unless do_not_relay, --offline included (monerod marks it relayed
   * when its fluff to no peers is queued).
   */
  notRelayed: boolean;
  /** The tx was already in the pool or the chain. */
  duplicate: boolean;
  id?: Bytes;
  /** For humans: what was wrong (or "Not relayed" / "already known"). */
  reason?: string;
  /**
   * The node could not judge the tx (its verify worker died twice): !ok without any verdict on the
   * tx; send_raw_transaction answers a core error, no invalid flag.
   */
  internalError?: string;
}

export type BlockSubmitStatus =
  /** Extended the main chain (possibly after switching to it from an alternative one). */
  | "added"
  /** Stored as an alternative block (a side chain that is not heavier). */
  | "alternative"
  /** Already known. */
  | "duplicate"
  /**
   * Refused. monerod's submit_block still answers OK when the only flag is `marked_as_orphaned`
   * (unknown parent: handle_block_found returns true without verification_failed); `missing_txs`
   * and every verification failure answer "Block not accepted".
   */
  | "rejected"
  /**
   * Not judged: the node failed while verifying it (its verify worker died twice). The block is
   * neither added nor remembered as invalid; submit_block answers an internal error.
   */
  | "error";

export interface BlockSubmitResult {
  status: BlockSubmitStatus;
  id?: Bytes;
  height?: number;
  /** True when the block made the node switch chains. */
  reorganized?: boolean;
  error?: BlockRuleError;
  flags?: BlockFlag[];
  /** For humans: what was wrong (also when the blob does not parse and there is no rule error). */
  message?: string;
}

/** get_block_template's answer, in core types (node/rpc formats it). */
export interface BlockTemplate {
  block: Block;
  blob: Bytes;
  hashingBlob: Bytes;
  height: number;
  difficulty: bigint;
  expectedReward: bigint;
  prevHash: Bytes;
  /** Offset of the reserved bytes (the extra nonce) in `blob`; 0 when reserveSize is 0. */
  reservedOffset: number;
  seedHeight: number;
  seedHash: Bytes;
  /** The seed of the next epoch when the switch is within the lag, else empty. */
  nextSeedHash: Bytes;
  /** Pool txs included, with their fees and weights (get_miner_data's tx_backlog uses all of the pool). */
  txIds: Bytes[];
}

/** One alternative chain (get_alternate_chains). */
export interface AltChainInfo {
  /** Ids from the tip down to the block right above the main-chain fork point. */
  blockHashes: Bytes[];
  /** Height of the tip. */
  height: number;
  length: number;
  difficulty: bigint;
  /** Main-chain block the branch forks from. */
  mainChainParentBlock: Bytes;
}

export interface MinerStatus {
  active: boolean;
  address: string;
  threads: number;
  /** Hashes per second over the last few seconds. */
  speed: number;
  background: boolean;
}

export interface NodeCore {
  readonly network: Network;
  readonly store: ChainStore;
  readonly pool: PoolView;
  /** regtest's --fixed-difficulty (undefined = Monero's algorithm). */
  readonly fixedDifficulty: bigint | undefined;
  /** --offline: no peers (accepted txs still count as relayed, as in monerod --offline). */
  readonly offline: boolean;

  /** Pool admission with every rule (semantics, fee, chain inputs, RingCT in a worker). */
  /** `stemEmbargo`: received along a Dandelion++ stem, embargoed until then (Unix seconds). */
  submitTransaction(blob: Bytes, opts?: { doNotRelay?: boolean; stemEmbargo?: number; local?: boolean }): Promise<TxSubmitResult>;
  /**
   * A mined block blob (submit_block, P2P): checked, then applied, stored as alternative or rejected.
   * Its txs come from the pool, else from `txBlobs` (P2P's block_complete_entry carries them).
   */
  submitBlock(blob: Bytes, opts?: { txBlobs?: readonly Bytes[] }): Promise<BlockSubmitResult>;
  /** Template for `address` (a standard address of this network), `reserveSize` ≤ 255 extra-nonce bytes. */
  blockTemplate(address: string, reserveSize: number, opts?: { prevId?: Bytes; extraNonce?: Bytes }): Promise<BlockTemplate>;
  /** generateblocks: mine `count` blocks to `address` with real nonce search at the current difficulty. */
  generateBlocks(count: number, address: string, opts?: { prevId?: Bytes; startingNonce?: number }): Promise<{ blocks: Bytes[]; height: number }>;
  /**
   * Starts hashing the PoW of blocks that will follow one another from `startHeight` (a P2P sync
   * span), several at once, so submitBlock finds each hash ready (monerod's
   * prepare_handle_incoming_blocks hashes a span on all its threads). Optional: a hint only.
   */
  prehashPow?(startHeight: number, blobs: readonly Bytes[]): void;
  /** RandomX (or the chain's PoW) hash of a block hashing blob at `height` with `seedHash`. */
  powHash(hashingBlob: Bytes, height: number, seedHash?: Bytes): Promise<Bytes>;
  /** The next main-chain block's context (difficulty, weight limits, medians, coins), cached per tip. */
  mainContext(): NextBlockContext;
  /** Seed height and hash for a block at `height` (RandomX epochs; regtest env overrides honoured). */
  seedFor(height: number): { height: number; hash: Bytes };
  /** pop_blocks: removes up to `count` top blocks (never the genesis); their txs go back to the pool. Returns the new height. */
  popBlocks(count: number): Promise<number>;
  /**
   * prune_blockchain / --prune-blockchain: prunes the chain with `stripe` (1–8; random when absent
   * and the chain is not pruned yet), then keeps pruning each block as it leaves the tip window.
   * Blocks may be applied between its batches.
   */
  pruneBlockchain(stripe?: number): Promise<PruneResult>;
  /** Removes the given txs from the pool (all when `ids` is empty). */
  flushPool(ids?: readonly Bytes[]): Promise<void>;
  /** Marks pool txs for relay (relay_tx); returns the ids not found. */
  relayTransactions(ids: readonly Bytes[]): Promise<Bytes[]>;
  /** relay_tx with P2P running: do_not_relay txs become local for P2P to stem or fluff (TxPool.relayLocal). */
  relayLocalTransactions(ids: readonly Bytes[]): Promise<{ missing: Bytes[]; local: Bytes[]; others: Bytes[] }>;
  /** Dandelion++: these pool txs went along a stem; hidden until `embargo` (Unix seconds), see TxPool.markStem. */
  stemTransactions(ids: readonly Bytes[], embargo: number): Promise<void>;
  altChains(): AltChainInfo[];
  altBlockHashes(): Bytes[];
  altBlockCount(): number;
  /** An alternative block by id. */
  altBlock(id: Bytes):
    | { block: Block; blob: Bytes; height: number; cumulativeDifficulty: bigint; difficulty: bigint; weight: number; longTermWeight: number; reward: bigint }
    | undefined;

  startMining(address: string, threads: number, opts?: { background?: boolean; ignoreBattery?: boolean }): void;
  stopMining(): void;
  minerStatus(): MinerStatus;

  /** Subscribe to state changes (for ZMQ pub and wallets' push notifications later). */
  on(event: "block", listener: (b: { height: number; id: Bytes; block: Block }) => void): this;
  on(event: "pool-add", listener: (e: PoolEntry) => void): this;
  /** Pool txs that became public now (fluffed after a stem or a local wait, relay_tx of a do_not_relay tx). */
  on(event: "pool-broadcast", listener: (es: PoolEntry[]) => void): this;
  /** A failure of background work (the built-in miner's template, PoW or submit) that no request saw. */
  on(event: "warning", listener: (w: { source: string; error: unknown }) => void): this;
  /** A switch to another chain: blocks from `splitHeight` up were replaced; heights are chain lengths before/after. */
  on(event: "reorg", listener: (e: { splitHeight: number; newHeight: number; oldHeight: number }) => void): this;
  /**
   * A block of the new chain as a switch applies it, before "reorg" (the pool does not hold the
   * dropped blocks' txs yet); then "reorg", then "block" for each block of the new chain.
   */
  on(event: "reorg-block", listener: (b: { height: number; id: Bytes; block: Block }) => void): this;
  /** Removes a listener added with on(). */
  off(event: "pool-add", listener: (e: PoolEntry) => void): this;
  off(event: "pool-broadcast", listener: (es: PoolEntry[]) => void): this;
  off(event: "block", listener: (b: { height: number; id: Bytes; block: Block }) => void): this;
  off(event: "reorg-block", listener: (b: { height: number; id: Bytes; block: Block }) => void): this;
  off(event: "reorg", listener: (e: { splitHeight: number; newHeight: number; oldHeight: number }) => void): this;

  /** Stops the miner and the workers, waits for the writer, closes the store. */
  close(): Promise<void>;
}

/** One P2P connection as get_connections reports it (connection_info). */
export interface PeerConnectionInfo {
  host: string;
  port: number;
  /** 16 hex digits. */
  peerId: string;
  incoming: boolean;
  /** monerod's state names: before_handshake, synchronizing, standby, idle, normal. */
  state: string;
  height: number;
  /** Seconds connected. */
  liveTime: number;
  recvCount: number;
  sendCount: number;
  /** Seconds since the last byte each way. */
  recvIdleTime: number;
  sendIdleTime: number;
  supportFlags: number;
  connectionId: string;
  rpcPort: number;
  pruningSeed: number;
  /** kB/s averaged over the connection's life. */
  avgDownload: number;
  avgUpload: number;
}

/** A peer list entry as get_peer_list reports it. */
export interface PeerListInfo {
  host: string;
  port: number;
  id: bigint;
  lastSeen: number;
  pruningSeed: number;
  rpcPort: number;
}

/** The P2P service as the RPC sees it (node/p2p implements it; absent offline). */
export interface NetworkView {
  connections(): PeerConnectionInfo[];
  whitePeers(): PeerListInfo[];
  grayPeers(): PeerListInfo[];
  /** Height we are syncing towards (0 when not syncing). */
  targetHeight(): number;
  busySyncing(): boolean;
  /** Spans being downloaded (sync_info). */
  spans(): { connectionId: string; startHeight: number; nblocks: number; size: number; rate: number; remoteAddress: string; speed: number }[];
  /**
   * relay_tx (relay_method::local): `local` txs go along a Dandelion++ stem, or are fluffed when the
   * epoch fluffs or no stem takes them; `others` (public already, or in a stem) are fluffed.
   */
  relayPoolTxs(local: readonly Bytes[], others: readonly Bytes[]): void;
  /** Bytes and packets since start, closed connections included. */
  netStats(): { bytesIn: number; bytesOut: number; startTime: number };
}
