/**
 * The ledger's answers in monero-wallet-rpc's field names (src/wallet/wallet_rpc_server_commands_defs.h:
 * transfer_entry, transfer_details, payment_details), bigints left as bigints for the RPC layer's
 * exact u64 JSON writer.
 */
import type { SubaddressIndex } from "../keys/subaddress.js";
import { type IncomingTransfer, type Ledger, type PaymentDetails, paymentIdHex, type TransferEntry } from "./ledger.js";

export type U64 = bigint;

export interface RpcTransferEntry {
  address: string;
  amount: U64;
  amounts?: U64[];
  confirmations?: U64;
  destinations?: { amount: U64; address: string }[];
  double_spend_seen: boolean;
  fee: U64;
  height: U64;
  locked: boolean;
  note: string;
  payment_id: string;
  subaddr_index: SubaddressIndex;
  subaddr_indices: SubaddressIndex[];
  suggested_confirmations_threshold?: U64;
  timestamp: U64;
  txid: string;
  type: string;
  unlock_time: U64;
  /** monero-wallet-rpc after 0.18 (wallet_rpc_server: expose change amount in transfer entries, d7f32ed), left out when 0 */
  change_amount?: U64;
}

export function rpcTransferEntry(e: TransferEntry): RpcTransferEntry {
  const out: RpcTransferEntry = {
    address: e.address,
    amount: e.amount,
    double_spend_seen: e.doubleSpendSeen,
    fee: e.fee,
    height: BigInt(e.height),
    locked: e.locked,
    note: e.note,
    payment_id: e.paymentId,
    subaddr_index: e.subaddrIndex,
    subaddr_indices: e.subaddrIndices,
    timestamp: e.timestamp,
    txid: e.txid,
    type: e.type,
    unlock_time: e.unlockTime,
  };
  // epee leaves empty lists out of the JSON
  if (e.amounts.length > 0) out.amounts = e.amounts;
  if (e.destinations.length > 0) out.destinations = e.destinations;
  // KV_SERIALIZE_OPT(…, 0): left out when 0
  if (e.confirmations !== 0n) out.confirmations = e.confirmations;
  if (e.suggestedConfirmationsThreshold !== 0n) out.suggested_confirmations_threshold = e.suggestedConfirmationsThreshold;
  if (e.changeAmount !== 0n) out.change_amount = e.changeAmount;
  return out;
}

export interface RpcIncomingTransfer {
  amount: U64;
  block_height: U64;
  frozen: boolean;
  global_index: U64;
  key_image: string;
  pubkey: string;
  spent: boolean;
  subaddr_index: SubaddressIndex;
  tx_hash: string;
  unlocked: boolean;
}

export function rpcIncomingTransfer(t: IncomingTransfer): RpcIncomingTransfer {
  return {
    amount: t.amount,
    block_height: BigInt(t.blockHeight),
    frozen: t.frozen,
    global_index: t.globalIndex,
    key_image: t.keyImage,
    pubkey: t.pubkey,
    spent: t.spent,
    subaddr_index: t.subaddrIndex,
    tx_hash: t.txHash,
    unlocked: t.unlocked,
  };
}

export interface RpcPayment {
  address: string;
  amount: U64;
  block_height: U64;
  locked?: boolean;
  payment_id: string;
  subaddr_index: SubaddressIndex;
  tx_hash: string;
  unlock_time: U64;
}

/** get_payments (withLocked) / get_bulk_payments entries. */
export function rpcPayment(ledger: Ledger, p: PaymentDetails, address: string, now: bigint, withLocked: boolean): RpcPayment {
  const out: RpcPayment = {
    address,
    amount: p.amount,
    block_height: BigInt(p.blockHeight),
    payment_id: paymentIdHex(p.paymentId),
    subaddr_index: p.subaddress,
    tx_hash: p.txid,
    unlock_time: p.unlockTime,
  };
  if (withLocked) out.locked = !ledger.isUnlocked(p.unlockTime, p.blockHeight, now);
  return out;
}
