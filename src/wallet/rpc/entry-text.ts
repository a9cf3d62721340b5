/**
 * Own epee writers for the entries of the wallet's long lists (get_transfers, get_transfer_by_txid,
 * incoming_transfers, get_payments, get_bulk_payments):
 * a wallet with thousands of transfers answers thousands of these objects per call, and the
 * generic writer's walk (list each object's keys, sort them, load each member by name) was most
 * of get_transfers' time. Each writer writes exactly what the generic writer writes for the same
 * object (test/rpc-entry-text.test.ts compares them), members in std::map order.
 */
import { epeeInteger as int, epeePad as pad, epeeString as str, Prerendered } from "../../rpc/index.js";
import type { SubaddressIndex } from "../keys/subaddress.js";
import type { RpcIncomingTransfer, RpcPayment, RpcTransferEntry } from "../ledger/rpc-shape.js";
import type { Plain } from "./common.js";

const NL = ",\r\n";
/**
 * A string the wallet made itself or checked as hex, with nothing epee escapes: the wallet's own
 * base58 addresses, hex txids, keys and payment ids, the entry's type word. Not for notes or
 * addresses a caller gave.
 */
const own = (s: string): string => `"${s}"`;

/** `{major, minor}` at `level`. */
function subaddrText(s: SubaddressIndex, level: number): string {
  const p = pad(level + 1);
  return `{\r\n${p}"major": ${s.major}${NL}${p}"minor": ${s.minor}\r\n${pad(level)}}`;
}

/** transfer_entry (wallet_rpc_server_commands_defs.h) at `level`: the members present, in key order. */
export function transferEntryText(e: Plain<RpcTransferEntry>, level: number): string {
  const p = pad(level + 1);
  let o = `{\r\n${p}"address": ${own(e.address)}${NL}${p}"amount": ${int(e.amount)}${NL}`;
  if (e.amounts !== undefined) {
    let a = "";
    for (let k = 0; k < e.amounts.length; k++) a += (k > 0 ? "," : "") + int(e.amounts[k]);
    o += `${p}"amounts": [${a}]${NL}`;
  }
  if (e.change_amount !== undefined) o += `${p}"change_amount": ${int(e.change_amount)}${NL}`;
  if (e.confirmations !== undefined) o += `${p}"confirmations": ${int(e.confirmations)}${NL}`;
  if (e.destinations !== undefined) {
    const q = pad(level + 2);
    let d = "";
    for (let k = 0; k < e.destinations.length; k++) {
      const x = e.destinations[k];
      d += `${k > 0 ? "," : ""}{\r\n${q}"address": ${str(x.address)}${NL}${q}"amount": ${int(x.amount)}\r\n${p}}`;
    }
    o += `${p}"destinations": [${d}]${NL}`;
  }
  o += `${p}"double_spend_seen": ${e.double_spend_seen}${NL}${p}"fee": ${int(e.fee)}${NL}${p}"height": ${int(e.height)}${NL}`;
  o += `${p}"locked": ${e.locked}${NL}${p}"note": ${str(e.note)}${NL}${p}"payment_id": ${own(e.payment_id)}${NL}`;
  o += `${p}"subaddr_index": ${subaddrText(e.subaddr_index, level + 1)}${NL}`;
  let s = "";
  for (let k = 0; k < e.subaddr_indices.length; k++) s += (k > 0 ? "," : "") + subaddrText(e.subaddr_indices[k], level + 1);
  o += `${p}"subaddr_indices": [${s}]${NL}`;
  if (e.suggested_confirmations_threshold !== undefined) o += `${p}"suggested_confirmations_threshold": ${int(e.suggested_confirmations_threshold)}${NL}`;
  return `${o}${p}"timestamp": ${int(e.timestamp)}${NL}${p}"txid": ${own(e.txid)}${NL}${p}"type": ${own(e.type)}${NL}${p}"unlock_time": ${int(e.unlock_time)}\r\n${pad(level)}}`;
}

/** A transfer entry that writes itself with transferEntryText (its value is the entry, for the standard style and the typed client). */
export const renderedTransferEntry = (e: Plain<RpcTransferEntry>): Prerendered<Plain<RpcTransferEntry>> => new Prerendered(e, transferEntryText);

/** transfer_details (incoming_transfers) at `level`. */
export function incomingTransferText(t: Plain<RpcIncomingTransfer>, level: number): string {
  const p = pad(level + 1);
  let o = `{\r\n${p}"amount": ${int(t.amount)}${NL}${p}"block_height": ${int(t.block_height)}${NL}${p}"frozen": ${t.frozen}${NL}`;
  o += `${p}"global_index": ${int(t.global_index)}${NL}${p}"key_image": ${own(t.key_image)}${NL}${p}"pubkey": ${own(t.pubkey)}${NL}${p}"spent": ${t.spent}${NL}`;
  return `${o}${p}"subaddr_index": ${subaddrText(t.subaddr_index, level + 1)}${NL}${p}"tx_hash": ${own(t.tx_hash)}${NL}${p}"unlocked": ${t.unlocked}\r\n${pad(level)}}`;
}

/** payment_details (get_payments, get_bulk_payments) at `level`; `payment_id` is hex (checked, or the ledger's). */
export function paymentText(x: Plain<RpcPayment>, level: number): string {
  const p = pad(level + 1);
  let o = `{\r\n${p}"address": ${own(x.address)}${NL}${p}"amount": ${int(x.amount)}${NL}${p}"block_height": ${int(x.block_height)}${NL}`;
  if (x.locked !== undefined) o += `${p}"locked": ${x.locked}${NL}`;
  return `${o}${p}"payment_id": ${own(x.payment_id)}${NL}${p}"subaddr_index": ${subaddrText(x.subaddr_index, level + 1)}${NL}${p}"tx_hash": ${own(x.tx_hash)}${NL}${p}"unlock_time": ${int(x.unlock_time)}\r\n${pad(level)}}`;
}

export const renderedIncomingTransfer = (t: Plain<RpcIncomingTransfer>): Prerendered<Plain<RpcIncomingTransfer>> => new Prerendered(t, incomingTransferText);
export const renderedPayment = (x: Plain<RpcPayment>): Prerendered<Plain<RpcPayment>> => new Prerendered(x, paymentText);
