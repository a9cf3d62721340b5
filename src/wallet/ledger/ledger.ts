/**
 * The wallet's ledger (src/wallet/wallet2.cpp: m_transfers, m_payments, m_confirmed_txs,
 * m_unconfirmed_payments; process_new_transaction, process_outgoing, detach_blockchain,
 * balance_per_subaddress, unlocked_balance_per_subaddress, is_transfer_unlocked) fed with
 * `ScannedBlock`s, and the queries monero-wallet-rpc answers from it (wallet_rpc_server.cpp:
 * get_balance, get_transfers, incoming_transfers, get_payments, get_bulk_payments).
 *
 * Its whole state is plain data (`LedgerState`): the wallet cache file stores it as it is.
 * Keys, key images and tx ids are lower-case hex; amounts, unlock times and timestamps are bigint;
 * heights are numbers (they stay far below 2^53).
 */
import type { Network } from "../../protocol/network.js";
import type { SubaddressIndex } from "../keys/subaddress.js";
import type { ScannedBlock, ScannedTx } from "../scan/scan.js";
import { wallet2PaymentOrder } from "./hash-order.js";
import { bytesToHex as hex } from "../../base/bytes.js";

/**
 * Hex of the ids a scanned block carries (block hashes, txids, key images), kept per array: in a hub,
 * every wallet applies the very same block objects, and converting the same ids once per wallet was
 * most of applyBlock's time with a thousand wallets. Scanned blocks are never written to.
 */
const idHexes = new WeakMap<Uint8Array, string>();
function idHex(b: Uint8Array): string {
  let s = idHexes.get(b);
  if (s === undefined) {
    s = hex(b);
    idHexes.set(b, s);
  }
  return s;
}

/** CRYPTONOTE_DEFAULT_TX_SPENDABLE_AGE. */
export const DEFAULT_TX_SPENDABLE_AGE = 10;
/** CRYPTONOTE_LOCKED_TX_ALLOWED_DELTA_BLOCKS. */
export const LOCKED_TX_ALLOWED_DELTA_BLOCKS = 1;
/** CRYPTONOTE_LOCKED_TX_ALLOWED_DELTA_SECONDS_V1/_V2 (DIFFICULTY_TARGET_V1/V2 × delta blocks). */
export const LOCKED_TX_ALLOWED_DELTA_SECONDS_V1 = 60n;
export const LOCKED_TX_ALLOWED_DELTA_SECONDS_V2 = 120n;
/** Heights wallet2::is_tx_spendtime_unlocked takes as the v2 fork (regtest uses mainnet's). */
const V2_HEIGHT: Record<Network, number> = { mainnet: 1009827, testnet: 624634, stagenet: 32000, regtest: 1009827 };
/** CRYPTONOTE_MAX_BLOCK_NUMBER: unlock times below it are heights, above it timestamps. */
export const MAX_BLOCK_NUMBER = 500000000n;
/** Block hashes kept for reorg detection. */
export const HASH_TAIL = 1000;

/** One owned output (wallet2::transfer_details). */
export interface TransferDetails {
  txid: string;
  blockHeight: number;
  /** Output index in its transaction. */
  internalIndex: number;
  /** -1n when the node gave no output indices. */
  globalIndex: bigint;
  amount: bigint;
  /** "" when unknown (view-only wallet). */
  keyImage: string;
  publicKey: string;
  mask: string;
  rct: boolean;
  /** The tx public key (main or additional) whose derivation opens this output; absent in caches written before sending existed. */
  txPubKey?: string;
  subaddress: SubaddressIndex;
  unlockTime: bigint;
  coinbase: boolean;
  spent: boolean;
  /** 0 when unspent, or spent only by an unmined tx. */
  spentHeight: number;
  spentTxid: string;
  frozen: boolean;
  /**
   * wallet2's m_key_image_request: in a view-only wallet, the key image is wanted (export_outputs
   * sends the output, import_key_images clears it); in a full wallet that imported outputs, it was
   * requested (export_key_images sends it). Absent means false.
   */
  keyImageRequest?: boolean;
}

/** One incoming payment: a tx's outputs to one subaddress (wallet2::payment_details). */
export interface PaymentDetails {
  txid: string;
  /** 64 hex chars, zeros when none. */
  paymentId: string;
  amount: bigint;
  amounts: bigint[];
  fee: bigint;
  blockHeight: number;
  unlockTime: bigint;
  timestamp: bigint;
  coinbase: boolean;
  subaddress: SubaddressIndex;
}

/** A mined tx spending our outputs (wallet2::confirmed_transfer_details). */
export interface OutgoingTransfer {
  txid: string;
  amountIn: bigint;
  amountOut: bigint;
  /** -1n when unknown. */
  change: bigint;
  paymentId: string;
  account: number;
  subaddrIndices: number[];
  blockHeight: number;
  timestamp: bigint;
  unlockTime: bigint;
  /** Known only for txs this wallet built. */
  destinations: { amount: bigint; address: string }[];
}

/** An incoming payment seen in the pool (wallet2::pool_payment_details). */
export interface PoolPayment extends PaymentDetails {
  doubleSpendSeen: boolean;
}

/** A tx this wallet sent that is not mined yet (wallet2::unconfirmed_transfer_details). */
export interface PendingTransfer {
  txid: string;
  amountIn: bigint;
  amountOut: bigint;
  change: bigint;
  paymentId: string;
  account: number;
  subaddrIndices: number[];
  timestamp: bigint;
  unlockTime: bigint;
  failed: boolean;
  destinations: { amount: bigint; address: string }[];
  /** Key images it spends. */
  keyImages: string[];
  /** Destinations that are this wallet's own subaddresses (counted in the balance while pending). */
  selfDests?: { major: number; minor: number; amount: bigint }[];
  /**
   * Missing from the pool at the last look (wallet2's pending_not_in_pool): still listed as pending;
   * the next refresh that still misses it, 500 s after it was sent, marks it failed.
   */
  notInPool?: boolean;
}

/** What one look at the pool saw (wallet2::update_pool_state). */
export interface PoolLook {
  /** The pool's tx ids. */
  readonly ids: ReadonlySet<string>;
  /** The look ends a refresh (the chain was read first), not a get_transfers or scan_tx on its own. */
  readonly refreshed: boolean;
  /**
   * Spends of our outputs by pool txs this wallet did not send become pending txs (master daded368;
   * no released monero-wallet-rpc does it: tsmonero-wallet-rpc's --detect-pool-spends).
   */
  readonly spends?: boolean;
}

/** wallet2::update_pool_state's tx_propagation_timeout: how long a sent tx may be missing from the pool before it counts as failed. */
export const TX_PROPAGATION_TIMEOUT_S = 500n;

/** Everything the cache file holds. */
export interface LedgerState {
  version: 1;
  /** Blocks known: the next block to scan is at this height (wallet2's m_blockchain.size()). */
  height: number;
  /** Hashes of blocks hashTailStart..height−1. */
  hashTailStart: number;
  hashTail: string[];
  transfers: TransferDetails[];
  payments: PaymentDetails[];
  outgoing: OutgoingTransfer[];
  pool: PoolPayment[];
  pending: PendingTransfer[];
  lastBlockReward: bigint;
  /** Subaddress count per account, grown by receipts (expand_subaddresses). */
  subaddressCounts: number[];
  /** Keys of the txs this wallet sent (m_tx_keys, m_additional_tx_keys), by txid; absent in older caches. */
  txKeys?: Record<string, { txKey: string; additional: string[] }>;
  /** One-time output key → key image, from signed tx sets (wallet2's m_cold_key_images): a view-only wallet learns its change's key images. */
  coldKeyImages?: Record<string, string>;
  /**
   * A multisig wallet's full key images by one-time output key, from the group's imported infos
   * (wallet2 update_multisig_rescan_info); an output not here still has a partial key image.
   */
  multisigKeyImages?: Record<string, string>;
  /** The signing nonces this wallet exported for each output (m_multisig_k), hex, by output key. */
  multisigNonces?: Record<string, string[]>;
  /** The other signers' infos imported for each output (m_multisig_info), by output key. */
  multisigInfos?: Record<string, { signer: string; lr: [string, string][]; partialKeyImages: string[] }[]>;
}

export function emptyLedgerState(startHeight = 0): LedgerState {
  return {
    version: 1,
    height: startHeight,
    hashTailStart: startHeight,
    hashTail: [],
    transfers: [],
    payments: [],
    outgoing: [],
    pool: [],
    pending: [],
    lastBlockReward: 0n,
    subaddressCounts: [1],
  };
}

/** The block at `height` does not follow the block the ledger has below it, and that one is older than the tail. */
export class ChainMismatchError extends Error {
  constructor(readonly height: number) {
    super(`block ${height} does not follow the wallet's chain and the fork point is outside the kept hashes`);
    this.name = "ChainMismatchError";
  }
}

export interface BalanceResult {
  balance: bigint;
  unlockedBalance: bigint;
  blocksToUnlock: bigint;
  timeToUnlock: bigint;
}

export interface SubaddressBalance extends BalanceResult {
  minor: number;
  numUnspentOutputs: number;
}

export type TransferType = "in" | "out" | "pending" | "failed" | "pool" | "block";

/** A get_transfers entry (wallet_rpc::transfer_entry) without the address strings' encoding done. */
export interface TransferEntry {
  txid: string;
  paymentId: string;
  height: number;
  timestamp: bigint;
  amount: bigint;
  amounts: bigint[];
  fee: bigint;
  note: string;
  destinations: { amount: bigint; address: string }[];
  type: TransferType;
  unlockTime: bigint;
  locked: boolean;
  subaddrIndex: SubaddressIndex;
  subaddrIndices: SubaddressIndex[];
  address: string;
  doubleSpendSeen: boolean;
  confirmations: bigint;
  suggestedConfirmationsThreshold: bigint;
  /** The change of an outgoing tx (0 when unknown, and for incoming entries). */
  changeAmount: bigint;
}

export interface GetTransfersQuery {
  in?: boolean;
  out?: boolean;
  pending?: boolean;
  failed?: boolean;
  pool?: boolean;
  filterByHeight?: boolean;
  minHeight?: number;
  maxHeight?: number;
  accountIndex?: number;
  subaddrIndices?: readonly number[];
  allAccounts?: boolean;
}

/** A position in get_transfers' paged order (see Ledger.getTransfersPage). */
export interface TransferCursor {
  readonly height: number;
  readonly timestamp: bigint;
  readonly txid: string;
  /** 0: an incoming entry, 1: an outgoing one. */
  readonly dir: 0 | 1;
  /** The entry's rank among the tx's entries of that direction. */
  readonly k: number;
}

export function compareCursor(a: TransferCursor, b: TransferCursor): number {
  return (
    a.height - b.height ||
    (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0) ||
    (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : 0) ||
    a.dir - b.dir ||
    a.k - b.k
  );
}

/** The cursor as the client sees it: "height.timestamp.txid.dir.k". */
export function encodeCursor(c: TransferCursor): string {
  return `${c.height}.${c.timestamp}.${c.txid}.${c.dir}.${c.k}`;
}

/** Reads a cursor back; null when `text` is not one. */
export function decodeCursor(text: string): TransferCursor | null {
  const m = /^(\d{1,15})\.(\d{1,20})\.([0-9a-f]{64})\.([01])\.(\d{1,9})$/.exec(text);
  if (!m) return null;
  return { height: Number(m[1]), timestamp: BigInt(m[2]), txid: m[3], dir: m[4] === "0" ? 0 : 1, k: Number(m[5]) };
}

/** get_transfers' filters: the height window, the account, the minor indices. */
function transferFilters(q: GetTransfersQuery) {
  let minHeight = 0;
  let maxHeight = Number(MAX_BLOCK_NUMBER);
  if (q.filterByHeight) {
    minHeight = q.minHeight ?? 0;
    maxHeight = Math.min(q.maxHeight ?? maxHeight, maxHeight);
  }
  const account = q.allAccounts ? null : (q.accountIndex ?? 0);
  const minors = new Set(q.allAccounts ? [] : (q.subaddrIndices ?? []));
  return { minHeight, maxHeight, minors, accountOk: (major: number) => account === null || account === major, minorOk: (m: number) => minors.size === 0 || minors.has(m) };
}

export interface QueryEnv {
  /** Seconds since the epoch (wallet2 uses time(NULL) or the daemon's adjusted time). */
  now: bigint;
  address: (index: SubaddressIndex) => string;
  note?: (txid: string) => string;
}

export interface GetTransfersResult {
  in: TransferEntry[];
  out: TransferEntry[];
  pending: TransferEntry[];
  failed: TransferEntry[];
  pool: TransferEntry[];
}

/** incoming_transfers entry (wallet_rpc::transfer_details). */
export interface IncomingTransfer {
  amount: bigint;
  spent: boolean;
  globalIndex: bigint;
  txHash: string;
  subaddrIndex: SubaddressIndex;
  keyImage: string;
  pubkey: string;
  blockHeight: number;
  frozen: boolean;
  unlocked: boolean;
}

/** The short form RPC prints when only the first 8 bytes are set. */
export function paymentIdHex(full: string): string {
  return /^0*$/.test(full.slice(16)) ? full.slice(0, 16) : full;
}

const ZERO_PID = "0".repeat(64);

/** wallet2::set_spent: spent at `height` (0: by a tx not mined yet) by `txid`. */
function setSpent(t: TransferDetails, height: number, txid: string): void {
  t.spent = true;
  t.spentHeight = height;
  t.spentTxid = txid;
}

/** wallet2::set_unspent. */
function setUnspent(t: TransferDetails): void {
  t.spent = false;
  t.spentHeight = 0;
  t.spentTxid = "";
}

export class Ledger {
  readonly state: LedgerState;
  private readonly byKeyImage = new Map<string, number>();
  private readonly byPubKey = new Map<string, number>();
  /** state.outgoing by txid (the first record of a txid, as a search from the start finds it). */
  private readonly outgoingByTxid = new Map<string, OutgoingTransfer>();

  /** The network decides the timestamp-lock leeway (wallet2 reads m_nettype). */
  constructor(
    state: LedgerState = emptyLedgerState(),
    readonly network: Network = "mainnet",
  ) {
    this.state = state;
    this.reindex();
  }

  private reindex(): void {
    this.byKeyImage.clear();
    this.byPubKey.clear();
    this.state.transfers.forEach((t, i) => {
      if (t.keyImage) this.byKeyImage.set(t.keyImage, i);
      this.byPubKey.set(t.publicKey, i);
    });
    this.outgoingByTxid.clear();
    for (const o of this.state.outgoing) if (!this.outgoingByTxid.has(o.txid)) this.outgoingByTxid.set(o.txid, o);
  }

  private addOutgoing(o: OutgoingTransfer): void {
    this.state.outgoing.push(o);
    if (!this.outgoingByTxid.has(o.txid)) this.outgoingByTxid.set(o.txid, o);
  }

  /** Blocks known (wallet2::get_blockchain_current_height). */
  get height(): number {
    return this.state.height;
  }

  /** The kept hash of block `height`, if any. */
  blockHash(height: number): string | undefined {
    const i = height - this.state.hashTailStart;
    return i >= 0 && i < this.state.hashTail.length ? this.state.hashTail[i] : undefined;
  }

  /**
   * Applies a scanned block. A block below the ledger's height whose hash differs from the kept one
   * rolls the ledger back to it first (a reorg); one whose hash matches is ignored. Returns the
   * height rolled back to, or null.
   */
  applyBlock(b: ScannedBlock): number | null {
    const hash = idHex(b.hash);
    let rolledBack: number | null = null;
    if (b.height < this.state.height) {
      const known = this.blockHash(b.height);
      if (known === hash) return null;
      if (known === undefined) throw new ChainMismatchError(b.height);
      this.rollback(b.height);
      rolledBack = b.height;
    }
    if (b.height !== this.state.height) throw new RangeError(`block ${b.height} given at wallet height ${this.state.height}`);
    const prev = this.blockHash(b.height - 1);
    if (prev !== undefined && prev !== idHex(b.prevHash)) {
      // the node's chain forked below this block: drop our previous block; the caller refetches from there
      if (b.height - 1 < this.state.hashTailStart) throw new ChainMismatchError(b.height);
      this.rollback(b.height - 1);
      return b.height - 1;
    }
    for (const tx of b.txs) this.processTx(tx, b.height, b.timestamp, false, false);
    this.state.hashTail.push(hash);
    if (this.state.hashTail.length > HASH_TAIL) {
      const drop = this.state.hashTail.length - HASH_TAIL;
      this.state.hashTail.splice(0, drop);
      this.state.hashTailStart += drop;
    }
    this.state.height = b.height + 1;
    this.state.lastBlockReward = b.reward;
    // a mined tx leaves the pool lists
    const mined = new Set(b.txs.map((t) => idHex(t.txid)));
    this.state.pool = this.state.pool.filter((p) => !mined.has(p.txid));
    this.state.pending = this.state.pending.filter((p) => !mined.has(p.txid));
    return rolledBack;
  }

  /** detach_blockchain: forgets blocks ≥ height and everything they brought. */
  rollback(height: number): void {
    const s = this.state;
    if (height >= s.height) return;
    for (const t of s.transfers) {
      if (t.spent && t.spentHeight >= height) setUnspent(t);
    }
    s.transfers = s.transfers.filter((t) => t.blockHeight < height);
    s.payments = s.payments.filter((p) => p.blockHeight < height);
    s.outgoing = s.outgoing.filter((o) => o.blockHeight < height);
    s.pool = [];
    const keep = Math.max(0, height - s.hashTailStart);
    s.hashTail.splice(keep);
    s.height = height;
    this.reindex();
  }

  /** process_pool_state: the pool's txs that concern us replace the previous pool view. */
  setPool(txs: readonly ScannedTx[], now: bigint, doubleSpendSeen: ReadonlySet<string> = new Set(), look?: PoolLook): void {
    if (look) this.checkPending(look, now);
    this.state.pool = [];
    // update_pool_state: a tx this wallet sent is known already (its pending record), not a pool payment
    const sent = new Set(this.state.pending.map((p) => p.txid));
    for (const tx of txs) if (!sent.has(hex(tx.txid))) this.processTx(tx, 0, now, true, doubleSpendSeen.has(hex(tx.txid)), look?.spends ?? false);
  }

  /**
   * update_pool_state (every 0.18 release): a pending tx missing from the pool is first marked
   * not-in-pool (it may have just been mined in a block the wallet has not fetched yet); missing again
   * at a refresh 500 s or more after it was sent, it fails and its inputs are unspent again.
   */
  private checkPending(look: PoolLook, now: bigint): void {
    for (const p of this.state.pending) {
      if (p.failed || look.ids.has(p.txid)) continue;
      if (!p.notInPool) {
        p.notInPool = true;
        continue;
      }
      if (!look.refreshed || now <= p.timestamp + TX_PROPAGATION_TIMEOUT_S) continue;
      p.failed = true;
      for (const ki of p.keyImages) {
        const i = this.byKeyImage.get(ki);
        if (i === undefined) continue;
        const t = this.state.transfers[i];
        if (t.spent && t.spentTxid === p.txid) setUnspent(t);
      }
    }
  }

  /**
   * scan_tx: a mined transaction found outside the refresh, at a height the ledger already passed
   * (wallet2::scan_tx → process_new_transaction). Outputs already known are not counted again.
   */
  applyTx(tx: ScannedTx, height: number, timestamp: bigint): void {
    if (height >= this.state.height) throw new RangeError(`tx at height ${height}: the ledger is at ${this.state.height}; refresh brings it`);
    this.processTx(tx, height, timestamp, false, false);
  }

  /** process_new_transaction for a block (pool = false) or pool (pool = true) transaction. */
  private processTx(tx: ScannedTx, height: number, timestamp: bigint, pool: boolean, doubleSpend: boolean, poolSpends = false): void {
    const s = this.state;
    const txid = idHex(tx.txid);
    const got = new Map<string, { index: SubaddressIndex; total: bigint; amounts: bigint[] }>();
    // wallet2's tx_money_got_in_outs / tx_amounts_individual_outs: a subaddress stays in the map
    // (with what it got, possibly 0) once one of its outputs was seen in the tx
    const gotAdd = (index: SubaddressIndex, amount: bigint, listed: bigint | null = amount) => {
      const k = `${index.major}/${index.minor}`;
      const g = got.get(k) ?? { index, total: 0n, amounts: [] };
      g.total += amount;
      if (listed !== null) g.amounts.push(listed);
      got.set(k, g);
    };
    for (const r of tx.received) {
      const pub = hex(r.publicKey);
      const known = this.byPubKey.get(pub);
      if (known !== undefined) {
        const td = s.transfers[known];
        if (td.spent || td.amount >= r.amount) {
          // burnt duplicate (or an output seen again, e.g. a mined tx back in the pool): nothing
          // received, but wallet2 still records a payment of 0 for its subaddress
          gotAdd(r.subaddress, 0n, null);
          continue;
        }
        // a larger output with a known one-time key replaces the smaller one
        gotAdd(r.subaddress, r.amount - td.amount, r.amount);
        if (!pool) Object.assign(td, this.transferOf(tx, r, txid, height));
        continue;
      }
      gotAdd(r.subaddress, r.amount);
      if (pool) continue;
      const td = this.transferOf(tx, r, txid, height);
      s.transfers.push(td);
      this.byPubKey.set(pub, s.transfers.length - 1);
      if (td.keyImage) this.byKeyImage.set(td.keyImage, s.transfers.length - 1);
      this.expand(r.subaddress);
    }

    let spent = 0n;
    let account: number | null = null;
    const indices = new Set<number>();
    const poolKeyImages: string[] = [];
    for (const input of tx.inputs) {
      const i = this.byKeyImage.get(idHex(input.keyImage));
      if (i === undefined) continue;
      const td = s.transfers[i];
      spent += input.amount > 0n ? input.amount : td.amount;
      account = td.subaddress.major;
      indices.add(td.subaddress.minor);
      if (!pool) setSpent(td, height, txid);
      else if (poolSpends && !td.spent) {
        // spent by a pool tx this wallet did not send (the same seed elsewhere, a multisig peer, a
        // wallet restored since): monero-wallet-rpc after 0.18 (master daded368, "identify spends in
        // pool when scanning") marks it spent at height 0 as wallet2 does for its own sends
        setSpent(td, 0, txid);
        poolKeyImages.push(td.keyImage);
      }
    }
    const fee = tx.coinbase ? 0n : tx.version === 1 ? spent - tx.outsMoney : tx.rctFee;

    // what the spending account gets back, and get_outgoing_amount
    let selfReceived = 0n;
    for (const g of got.values()) if (g.index.major === account) selfReceived += g.total;
    const amountOut = tx.version === 1 ? tx.outsMoney : spent - tx.rctFee;

    if (spent > 0n && !pool && account !== null) {
      // by index: a search of the list per spending tx made a restore quadratic in the wallet's sends
      let o = this.outgoingByTxid.get(txid);
      const sent = s.pending.find((p) => p.txid === txid);
      if (!o && sent) {
        // process_unconfirmed: what this wallet knew when it sent the tx becomes the confirmed record
        o = {
          txid,
          amountIn: sent.amountIn,
          amountOut: sent.amountOut,
          change: sent.change,
          paymentId: sent.paymentId,
          account: sent.account,
          subaddrIndices: [...sent.subaddrIndices],
          blockHeight: height,
          timestamp: sent.timestamp,
          unlockTime: tx.unlockTime,
          destinations: sent.destinations.map((d) => ({ ...d })),
        };
        this.addOutgoing(o);
      }
      if (!o) {
        o = {
          txid,
          amountIn: spent,
          amountOut,
          change: selfReceived,
          paymentId: tx.longPaymentId ? hex(tx.longPaymentId) : ZERO_PID,
          account,
          subaddrIndices: [...indices].sort((a, b) => a - b),
          blockHeight: height,
          timestamp,
          unlockTime: tx.unlockTime,
          destinations: [],
        };
        this.addOutgoing(o);
      }
      o.blockHeight = height;
      o.timestamp = timestamp;
      o.unlockTime = tx.unlockTime;
      if (spent === selfReceived + fee) o.change = selfReceived;
    }

    if (poolSpends && spent > 0n && pool && account !== null && !s.pending.some((p) => p.txid === txid)) {
      // master daded368: a spend seen in the pool joins the unconfirmed txs (add_unconfirmed_tx with
      // no destinations and no payment id; the change is what the spending account gets back)
      s.pending.push({
        txid,
        amountIn: spent,
        amountOut,
        change: selfReceived,
        paymentId: ZERO_PID,
        account,
        subaddrIndices: [...indices].sort((a, b) => a - b),
        timestamp,
        unlockTime: tx.unlockTime,
        failed: false,
        destinations: [],
        keyImages: poolKeyImages,
      });
    }

    // wallet2's order of the tx's payments (m_payments), taken before the change leaves the map
    const entries = [...got.values()];
    const listed = wallet2PaymentOrder(entries.map((g) => g.index)).map((i) => entries[i]);
    // change to the spending account is not an incoming payment
    for (const [k, g] of got) if (account !== null && g.index.major === account) got.delete(k);
    if (got.size === 0) return;
    const paymentId = tx.paymentId ? hex(tx.paymentId) : ZERO_PID;
    for (const g of listed) {
      if (account !== null && g.index.major === account) continue;
      const p: PaymentDetails = {
        txid,
        paymentId,
        amount: g.total,
        amounts: g.amounts,
        fee,
        blockHeight: height,
        unlockTime: tx.unlockTime,
        timestamp,
        coinbase: tx.coinbase,
        subaddress: g.index,
      };
      if (pool) s.pool.push({ ...p, doubleSpendSeen: doubleSpend });
      else s.payments.push(p);
    }
  }

  private transferOf(tx: ScannedTx, r: ScannedTx["received"][number], txid: string, height: number): TransferDetails {
    // a view-only wallet: the key image may be known from a signed tx set (m_cold_key_images), and is wanted
    const cold = r.keyImage ? undefined : this.state.coldKeyImages?.[hex(r.publicKey)];
    // a multisig wallet: the group's full key image once infos were imported, else the partial one scanned
    const full = r.keyImage ? this.state.multisigKeyImages?.[hex(r.publicKey)] : undefined;
    return {
      txid,
      blockHeight: height,
      internalIndex: r.index,
      globalIndex: r.globalIndex ?? -1n,
      amount: r.amount,
      keyImage: r.keyImage ? (full ?? hex(r.keyImage)) : (cold ?? ""),
      ...(r.keyImage ? {} : { keyImageRequest: true }),
      publicKey: hex(r.publicKey),
      mask: hex(r.mask),
      rct: r.rct,
      ...(r.txPubKey ? { txPubKey: hex(r.txPubKey) } : {}),
      subaddress: { major: r.subaddress.major, minor: r.subaddress.minor },
      unlockTime: tx.unlockTime,
      coinbase: tx.coinbase,
      spent: false,
      spentHeight: 0,
      spentTxid: "",
      frozen: false,
    };
  }

  /** expand_subaddresses bookkeeping: the account/subaddress counts grow to cover a receipt. */
  private expand(index: SubaddressIndex): void {
    const c = this.state.subaddressCounts;
    while (c.length <= index.major) c.push(1);
    if (c[index.major] <= index.minor) c[index.major] = index.minor + 1;
  }

  // ---- locks ----

  /** wallet2::is_tx_spendtime_unlocked. */
  isSpendtimeUnlocked(unlockTime: bigint, blockHeight: number, now: bigint): boolean {
    if (unlockTime < MAX_BLOCK_NUMBER) return BigInt(this.state.height) - 1n + BigInt(LOCKED_TX_ALLOWED_DELTA_BLOCKS) >= unlockTime;
    const leeway = blockHeight < V2_HEIGHT[this.network] ? LOCKED_TX_ALLOWED_DELTA_SECONDS_V1 : LOCKED_TX_ALLOWED_DELTA_SECONDS_V2;
    return now + leeway >= unlockTime;
  }

  /** wallet2::is_transfer_unlocked. */
  isUnlocked(unlockTime: bigint, blockHeight: number, now: bigint): boolean {
    if (!this.isSpendtimeUnlocked(unlockTime, blockHeight, now)) return false;
    return blockHeight + DEFAULT_TX_SPENDABLE_AGE <= this.state.height;
  }

  private isSpent(t: TransferDetails, strict: boolean): boolean {
    return strict ? t.spent && t.spentHeight > 0 : t.spent;
  }

  // ---- balances ----

  /** balance_per_subaddress + unlocked_balance_per_subaddress for one account, by minor index. */
  subaddressBalances(account: number, now: bigint, strict = false): SubaddressBalance[] {
    return this.balanceReport([account], now, strict).get(account)?.rows ?? [];
  }

  /**
   * Balances of several accounts in one pass over the transfers: per account its subaddress rows
   * (as subaddressBalances) and, per subaddress, how many outputs are unspent counting frozen ones
   * and ignoring `strict` (monero-wallet-rpc's num_unspent_outputs in get_balance).
   */
  balanceReport(accounts: readonly number[], now: bigint, strict = false): Map<number, { rows: SubaddressBalance[]; unspent: Map<number, number> }> {
    const wanted = new Map<number, { by: Map<number, SubaddressBalance>; unspent: Map<number, number> }>();
    for (const a of accounts) if (!wanted.has(a)) wanted.set(a, { by: new Map(), unspent: new Map() });
    const row = (by: Map<number, SubaddressBalance>, minor: number): SubaddressBalance => {
      let r = by.get(minor);
      if (!r) {
        r = { minor, balance: 0n, unlockedBalance: 0n, blocksToUnlock: 0n, timeToUnlock: 0n, numUnspentOutputs: 0 };
        by.set(minor, r);
      }
      return r;
    };
    const height = this.state.height;
    const chain = BigInt(height);
    for (const t of this.state.transfers) {
      const acc = wanted.get(t.subaddress.major);
      if (acc === undefined) continue;
      if (!t.spent) acc.unspent.set(t.subaddress.minor, (acc.unspent.get(t.subaddress.minor) ?? 0) + 1);
      if (this.isSpent(t, strict) || t.frozen) continue;
      const r = row(acc.by, t.subaddress.minor);
      r.balance += t.amount;
      r.numUnspentOutputs++;
      // the common case (no unlock time, 10 blocks deep) without BigInt work
      const unlocked = t.unlockTime === 0n ? t.blockHeight + DEFAULT_TX_SPENDABLE_AGE <= height : this.isUnlocked(t.unlockTime, t.blockHeight, now);
      if (unlocked) r.unlockedBalance += t.amount;
      else {
        let unlockHeight = BigInt(t.blockHeight + Math.max(DEFAULT_TX_SPENDABLE_AGE, LOCKED_TX_ALLOWED_DELTA_BLOCKS));
        if (t.unlockTime < MAX_BLOCK_NUMBER && t.unlockTime > unlockHeight) unlockHeight = t.unlockTime;
        const unlockTime = t.unlockTime >= MAX_BLOCK_NUMBER ? t.unlockTime : 0n;
        const blocks = unlockHeight > chain ? unlockHeight - chain : 0n;
        const secs = unlockTime > now ? unlockTime - now : 0n;
        if (blocks > r.blocksToUnlock) r.blocksToUnlock = blocks;
        if (secs > r.timeToUnlock) r.timeToUnlock = secs;
      }
    }
    if (!strict) {
      for (const p of this.state.pending) {
        const acc = wanted.get(p.account);
        if (acc === undefined || p.failed) continue;
        row(acc.by, 0).balance += p.change; // change goes to the account's subaddress 0
        // transfers to the same wallet's subaddresses of that account count too
        for (const d of p.selfDests ?? []) if (d.major === p.account) row(acc.by, d.minor).balance += d.amount;
      }
      for (const p of this.state.pool) {
        const acc = wanted.get(p.subaddress.major);
        if (acc !== undefined) row(acc.by, p.subaddress.minor).balance += p.amount;
      }
    }
    const out = new Map<number, { rows: SubaddressBalance[]; unspent: Map<number, number> }>();
    for (const [a, v] of wanted) out.set(a, { rows: [...v.by.values()].sort((x, y) => x.minor - y.minor), unspent: v.unspent });
    return out;
  }

  /** The account total of subaddress rows (wallet2::balance / unlocked_balance). */
  static totalOf(rows: Iterable<BalanceResult>, into?: BalanceResult): BalanceResult {
    const out: BalanceResult = into ?? { balance: 0n, unlockedBalance: 0n, blocksToUnlock: 0n, timeToUnlock: 0n };
    for (const r of rows) {
      out.balance += r.balance;
      out.unlockedBalance += r.unlockedBalance;
      if (r.blocksToUnlock > out.blocksToUnlock) out.blocksToUnlock = r.blocksToUnlock;
      if (r.timeToUnlock > out.timeToUnlock) out.timeToUnlock = r.timeToUnlock;
    }
    return out;
  }

  /** get_balance for one account (wallet2::balance / unlocked_balance). */
  balance(account: number, now: bigint, strict = false): BalanceResult {
    return Ledger.totalOf(this.subaddressBalances(account, now, strict));
  }

  /** get_balance with all_accounts (balance_all / unlocked_balance_all), in one pass. */
  balanceAll(accounts: number, now: bigint, strict = false): BalanceResult {
    const out = Ledger.totalOf([]);
    for (const { rows } of this.balanceReport([...Array(accounts).keys()], now, strict).values()) Ledger.totalOf(rows, out);
    return out;
  }

  // ---- freezing ----

  private byImage(keyImage: string): TransferDetails {
    const i = this.byKeyImage.get(keyImage.toLowerCase());
    if (i === undefined) throw new RangeError(`key image ${keyImage} not found`);
    return this.state.transfers[i];
  }
  freeze(keyImage: string): void {
    this.byImage(keyImage).frozen = true;
  }
  thaw(keyImage: string): void {
    this.byImage(keyImage).frozen = false;
  }
  frozen(keyImage: string): boolean {
    return this.byImage(keyImage).frozen;
  }

  // ---- queries ----

  /** incoming_transfers, in receipt order (wallet2's m_transfers order). */
  incomingTransfers(type: "all" | "available" | "unavailable", account: number, subaddrIndices: readonly number[], now: bigint): IncomingTransfer[] {
    const minors = new Set(subaddrIndices);
    const out: IncomingTransfer[] = [];
    for (const t of this.state.transfers) {
      if (type === "available" && t.spent) continue;
      if (type === "unavailable" && !t.spent) continue;
      if (t.subaddress.major !== account || (minors.size > 0 && !minors.has(t.subaddress.minor))) continue;
      out.push({
        amount: t.amount,
        spent: t.spent,
        globalIndex: t.globalIndex,
        txHash: t.txid,
        subaddrIndex: { ...t.subaddress },
        keyImage: t.keyImage,
        pubkey: t.publicKey,
        blockHeight: t.blockHeight,
        frozen: t.frozen,
        unlocked: this.isUnlocked(t.unlockTime, t.blockHeight, now),
      });
    }
    return out;
  }

  /** set_confirmations (wallet_rpc_server.cpp). */
  private confirm(e: TransferEntry, now: bigint): void {
    const chain = BigInt(this.state.height);
    const h = BigInt(e.height);
    e.confirmations = h >= chain || (e.height === 0 && (e.type === "pending" || e.type === "pool")) ? 0n : chain - h;
    const reward = this.state.lastBlockReward;
    e.suggestedConfirmationsThreshold = reward === 0n ? 0n : BigInt.asUintN(64, e.amount + reward - 1n) / reward; // uint64_t arithmetic, as wallet_rpc_server
    if (e.unlockTime < MAX_BLOCK_NUMBER) {
      if (e.unlockTime > chain && e.unlockTime - chain > e.suggestedConfirmationsThreshold) e.suggestedConfirmationsThreshold = e.unlockTime - chain;
    } else if (e.unlockTime > now) {
      const blocks = (e.unlockTime - now + 119n) / 120n; // DIFFICULTY_TARGET_V2 seconds a block
      if (blocks > e.suggestedConfirmationsThreshold) e.suggestedConfirmationsThreshold = blocks;
    }
  }

  private entryOfPayment(p: PaymentDetails, env: QueryEnv, pool: PoolPayment | null): TransferEntry {
    const e: TransferEntry = {
      txid: p.txid,
      paymentId: paymentIdHex(p.paymentId),
      height: pool ? 0 : p.blockHeight,
      timestamp: p.timestamp,
      amount: p.amount,
      amounts: [...p.amounts],
      fee: p.fee,
      note: env.note?.(p.txid) ?? "",
      destinations: [],
      type: pool ? "pool" : p.coinbase ? "block" : "in",
      unlockTime: p.unlockTime,
      locked: pool ? true : !this.isUnlocked(p.unlockTime, p.blockHeight, env.now),
      subaddrIndex: { ...p.subaddress },
      subaddrIndices: [{ ...p.subaddress }],
      address: env.address(p.subaddress),
      doubleSpendSeen: pool?.doubleSpendSeen ?? false,
      confirmations: 0n,
      suggestedConfirmationsThreshold: 0n,
      changeAmount: 0n,
    };
    this.confirm(e, env.now);
    return e;
  }

  private entryOfOutgoing(o: OutgoingTransfer | PendingTransfer, env: QueryEnv): TransferEntry {
    const pending = "failed" in o;
    // wallet2 computes these in uint64_t: a change larger than the inputs wraps around (it does for
    // a wallet restored after some of its outputs were received)
    const fee = BigInt.asUintN(64, o.amountIn - o.amountOut);
    const change = o.change === -1n ? 0n : o.change;
    const e: TransferEntry = {
      txid: o.txid,
      paymentId: paymentIdHex(o.paymentId),
      height: pending ? 0 : o.blockHeight,
      timestamp: o.timestamp,
      amount: BigInt.asUintN(64, o.amountIn - change - fee),
      amounts: [],
      fee,
      note: env.note?.(o.txid) ?? "",
      destinations: o.destinations.map((d) => ({ ...d })),
      type: pending ? (o.failed ? "failed" : "pending") : "out",
      unlockTime: o.unlockTime,
      locked: pending ? true : !this.isUnlocked(o.unlockTime, o.blockHeight, env.now),
      subaddrIndex: { major: o.account, minor: 0 },
      subaddrIndices: o.subaddrIndices.map((minor) => ({ major: o.account, minor })),
      address: env.address({ major: o.account, minor: 0 }),
      doubleSpendSeen: false,
      confirmations: 0n,
      suggestedConfirmationsThreshold: 0n,
      changeAmount: change,
    };
    this.confirm(e, env.now);
    return e;
  }

  /**
   * get_transfers. monero-wallet-rpc lists its unordered containers as they iterate; we order by
   * height, then timestamp, then txid, which is stable across runs; a tx's payments to several
   * subaddresses in wallet2's own order (hash-order.ts).
   */
  getTransfers(q: GetTransfersQuery, env: QueryEnv): GetTransfersResult {
    const { minHeight, maxHeight, accountOk, minorOk, minors } = transferFilters(q);
    const res: GetTransfersResult = { in: [], out: [], pending: [], failed: [], pool: [] };
    const order = (a: TransferEntry, b: TransferEntry) =>
      a.height - b.height ||
      (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0) ||
      a.txid.localeCompare(b.txid);
    // a tx's entries keep the ledger's order, which is wallet2's (hash-order.ts; the sort is stable)
    if (q.in) {
      for (const p of this.state.payments) {
        if (minHeight < p.blockHeight && maxHeight >= p.blockHeight && accountOk(p.subaddress.major) && minorOk(p.subaddress.minor))
          res.in.push(this.entryOfPayment(p, env, null));
      }
      res.in.sort(order);
    }
    if (q.out) {
      for (const o of this.state.outgoing) {
        if (o.blockHeight <= minHeight || o.blockHeight > maxHeight || !accountOk(o.account)) continue;
        if (minors.size > 0 && !o.subaddrIndices.some((m) => minors.has(m))) continue;
        res.out.push(this.entryOfOutgoing(o, env));
      }
      res.out.sort(order);
    }
    if (q.pending || q.failed) {
      for (const p of this.state.pending) {
        if (!accountOk(p.account) || (minors.size > 0 && !p.subaddrIndices.some((m) => minors.has(m)))) continue;
        if (p.failed ? q.failed : q.pending) (p.failed ? res.failed : res.pending).push(this.entryOfOutgoing(p, env));
      }
      res.pending.sort(order);
      res.failed.sort(order);
    }
    if (q.pool) {
      for (const p of this.state.pool) {
        if (accountOk(p.subaddress.major) && minorOk(p.subaddress.minor)) res.pool.push(this.entryOfPayment(p, env, p));
      }
      res.pool.sort(order);
    }
    return res;
  }

  /**
   * get_transfers with tsmonero's pagination extension: the confirmed entries (in and out, merged
   * in chain order: height, timestamp, txid, in before out, then the tx's own order) after `after`,
   * at most `limit` of them (0: all). New blocks only add entries after every existing position, so
   * a client paging with the returned cursor while blocks arrive sees each entry once. Pending,
   * failed and pool entries are not in that order: they come whole with the first page only
   * (`after` null). `next` is the position of the last entry returned (`after` again when none).
   */
  getTransfersPage(q: GetTransfersQuery, env: QueryEnv, limit: number, after: TransferCursor | null): GetTransfersResult & { next: TransferCursor | null; more: boolean } {
    const { minHeight, maxHeight, accountOk, minorOk, minors } = transferFilters(q);
    type Cand = { key: TransferCursor; p?: PaymentDetails; o?: OutgoingTransfer };
    const cands: Cand[] = [];
    const seen = new Map<string, number>();
    const kOf = (txid: string, dir: 0 | 1) => {
      const id = `${dir}${txid}`;
      const k = seen.get(id) ?? 0;
      seen.set(id, k + 1);
      return k;
    };
    if (q.in) {
      for (const p of this.state.payments) {
        if (!(minHeight < p.blockHeight && maxHeight >= p.blockHeight && accountOk(p.subaddress.major) && minorOk(p.subaddress.minor))) continue;
        const key: TransferCursor = { height: p.blockHeight, timestamp: p.timestamp, txid: p.txid, dir: 0, k: kOf(p.txid, 0) };
        if (after === null || compareCursor(key, after) > 0) cands.push({ key, p });
      }
    }
    if (q.out) {
      for (const o of this.state.outgoing) {
        if (o.blockHeight <= minHeight || o.blockHeight > maxHeight || !accountOk(o.account)) continue;
        if (minors.size > 0 && !o.subaddrIndices.some((m) => minors.has(m))) continue;
        const key: TransferCursor = { height: o.blockHeight, timestamp: o.timestamp, txid: o.txid, dir: 1, k: kOf(o.txid, 1) };
        if (after === null || compareCursor(key, after) > 0) cands.push({ key, o });
      }
    }
    cands.sort((a, b) => compareCursor(a.key, b.key));
    const take = limit > 0 ? cands.slice(0, limit) : cands;
    const res: GetTransfersResult = { in: [], out: [], pending: [], failed: [], pool: [] };
    for (const c of take) {
      if (c.p) res.in.push(this.entryOfPayment(c.p, env, null));
      else if (c.o) res.out.push(this.entryOfOutgoing(c.o, env));
    }
    if (after === null && (q.pending || q.failed || q.pool)) {
      const rest = this.getTransfers({ ...q, in: false, out: false }, env);
      res.pending = rest.pending;
      res.failed = rest.failed;
      res.pool = rest.pool;
    }
    return { ...res, next: take.at(-1)?.key ?? after, more: take.length < cands.length };
  }

  /** get_payments / get_bulk_payments: confirmed payments with these ids above minHeight. */
  payments(paymentIds: readonly string[], minHeight = 0): PaymentDetails[] {
    const want = new Set(paymentIds.map((p) => (p.length === 16 ? p + "0".repeat(48) : p).toLowerCase()));
    return this.state.payments.filter((p) => want.has(p.paymentId) && p.blockHeight > minHeight);
  }

  /** The keys of a tx this wallet sent (get_tx_key), if it kept them. */
  txKeys(txid: string): { txKey: string; additional: string[] } | undefined {
    return this.state.txKeys?.[txid.toLowerCase()];
  }

  /** Keeps a sent tx's keys (wallet2's m_tx_keys / m_additional_tx_keys). */
  setTxKeys(txid: string, keys: { txKey: string; additional: string[] }): void {
    (this.state.txKeys ??= {})[txid.toLowerCase()] = keys;
  }

  /** Index of the transfer with this key image, if any. */
  /** Sets a transfer's key image (import_key_images, import_outputs), keeping the index by key image. */
  setKeyImage(index: number, keyImage: string, request: boolean): void {
    const t = this.state.transfers[index];
    if (t.keyImage && this.byKeyImage.get(t.keyImage) === index) this.byKeyImage.delete(t.keyImage);
    t.keyImage = keyImage;
    if (request) t.keyImageRequest = true;
    else delete t.keyImageRequest;
    if (keyImage) this.byKeyImage.set(keyImage, index);
  }

  /**
   * Replaces the transfers from `offset` on (import_outputs: m_transfers.resize(offset + n) and the
   * new records), keeping the indices by key image and by output key.
   */
  replaceTransfersFrom(offset: number, transfers: readonly TransferDetails[]): void {
    this.state.transfers.splice(offset, this.state.transfers.length - offset, ...transfers);
    this.reindex();
    for (const t of transfers) this.expand(t.subaddress);
  }

  /** Remembers the key images a signed tx set gave for its outputs to this wallet (m_cold_key_images). */
  addColdKeyImages(entries: readonly { pubkey: string; keyImage: string }[]): void {
    const m = (this.state.coldKeyImages ??= {});
    for (const e of entries) m[e.pubkey] = e.keyImage;
  }

  /** Whether any output still has only a partial key image (wallet2::has_multisig_partial_key_images, for a multisig wallet). */
  hasPartialKeyImages(): boolean {
    const full = this.state.multisigKeyImages ?? {};
    return this.state.transfers.some((t) => full[t.publicKey] === undefined);
  }

  /** The index of the transfer with this one-time output key. */
  transferIndexByPublicKey(publicKey: string): number | undefined {
    return this.byPubKey.get(publicKey);
  }

  transferIndexByKeyImage(keyImage: string): number | undefined {
    return this.byKeyImage.get(keyImage.toLowerCase());
  }

  /** Records a tx this wallet just sent (add_unconfirmed_tx); its key images count as spent at height 0. */
  addPending(p: PendingTransfer): void {
    // a tx this wallet already saw mined (a set or blob submitted again) stays what it is; one already
    // pending is replaced, not doubled (wallet2's m_unconfirmed_txs is keyed by txid)
    if (this.outgoingByTxid.has(p.txid)) return;
    const same = this.state.pending.findIndex((x) => x.txid === p.txid);
    if (same >= 0) this.state.pending.splice(same, 1);
    this.state.pending.push(p);
    for (const ki of p.keyImages) {
      const i = this.byKeyImage.get(ki);
      if (i === undefined) continue;
      const t = this.state.transfers[i];
      if (!t.spent) setSpent(t, 0, p.txid);
    }
  }
}
