/**
 * What the wallet received and spent (wallet_rpc_server.cpp): get_transfers, get_transfer_by_txid,
 * incoming_transfers, get_payments, get_bulk_payments, tx notes, attributes, freeze/thaw/frozen.
 */
import { bool, type JsonWritable, type Prerendered, str, u32, u64, withDefault } from "../../rpc/index.js";
import { decodeCursor, encodeCursor, MAX_BLOCK_NUMBER } from "../ledger/ledger.js";
import { rpcIncomingTransfer, rpcPayment, type RpcTransferEntry, rpcTransferEntry } from "../ledger/rpc-shape.js";
import { renderedIncomingTransfer, renderedPayment, renderedTransferEntry } from "./entry-text.js";
import { def, list, fail, historyEnv, isHash, isHex, now, obj, type Plain, plain, W, type WalletRpcDeps, withList } from "./common.js";

/** A ledger transfer as the list answers carry it: its RPC shape, written by entry-text.ts's own writer. */
const transferOut = (e: Parameters<typeof rpcTransferEntry>[0]): ReturnType<typeof renderedTransferEntry> => renderedTransferEntry(plain(rpcTransferEntry(e)));

/** Transfers, payments, notes, attributes, frozen outputs. */

/** get_transfers' answer: each list may be absent (empty, or not asked for); next_cursor and more answer a paged call only. */
type Entry = Prerendered<Plain<RpcTransferEntry>>;
type TransfersAnswer = {
  in?: Entry[];
  out?: Entry[];
  pending?: Entry[];
  failed?: Entry[];
  pool?: Entry[];
  next_cursor?: string;
  more?: boolean;
};
export function historyMethods(d: WalletRpcDeps) {
  const { w } = d;
  const keyImageMethod = (name: "freeze" | "thaw" | "frozen", what: string) =>
    def({
      name,
      params: obj({ key_image: str }),
      handler: (p) => {
        const wal = w();
        if (p.key_image === "") fail(W.UNKNOWN_ERROR, `Must specify key image to ${what}`);
        if (!isHash(p.key_image)) fail(W.WRONG_KEY_IMAGE, "failed to parse key image");
        const ki = p.key_image.toLowerCase();
        if (!wal.ledger.state.transfers.some((t) => t.keyImage === ki)) fail(W.UNKNOWN_ERROR, "Key image not found");
        if (name === "frozen") return { frozen: wal.ledger.frozen(ki) };
        if (name === "freeze") wal.ledger.freeze(ki);
        else wal.ledger.thaw(ki);
        return {};
      },
    });
  return [
    def({
      name: "get_transfers",
      restricted: true,
      params: obj({
        in: bool,
        out: bool,
        pending: bool,
        failed: bool,
        pool: bool,
        filter_by_height: bool,
        min_height: u64,
        max_height: withDefault(u64, MAX_BLOCK_NUMBER),
        account_index: u32,
        subaddr_indices: list(u32),
        all_accounts: bool,
        // tsmonero's pagination extension (README): absent or 0 and "" answer as monero-wallet-rpc
        limit: u32,
        cursor: str,
      }),
      handler: async (p) => {
        const wal = w();
        const paged = p.limit > 0 || p.cursor !== "";
        const after = p.cursor === "" ? null : decodeCursor(p.cursor);
        if (paged && p.cursor !== "" && after === null)
          fail(W.UNKNOWN_ERROR, `Invalid cursor ${JSON.stringify(p.cursor.slice(0, 100))}: pass the next_cursor of a previous get_transfers answer, or "" for the first page`);
        if (p.pool) await wal.updatePool();
        const clamp = (x: bigint) => Number(x > MAX_BLOCK_NUMBER ? MAX_BLOCK_NUMBER : x);
        const q = {
            in: p.in,
            out: p.out,
            pending: p.pending,
            failed: p.failed,
            pool: p.pool,
            filterByHeight: p.filter_by_height,
            minHeight: clamp(p.min_height),
            maxHeight: clamp(p.max_height),
            accountIndex: p.account_index,
            subaddrIndices: p.subaddr_indices,
            allAccounts: p.all_accounts,
        };
        // each list may be absent (empty, or not asked for); next_cursor and more only on a paged call
        const out: Record<string, JsonWritable> = {};
        if (!paged) {
          const r = wal.ledger.getTransfers(q, historyEnv(wal));
          for (const k of ["in", "out", "pending", "failed", "pool"] as const) withList(out, k, r[k].map(transferOut));
          return out as TransfersAnswer;
        }
        const r = wal.ledger.getTransfersPage(q, historyEnv(wal), p.limit, after);
        for (const k of ["in", "out", "pending", "failed", "pool"] as const) withList(out, k, r[k].map(transferOut));
        out.next_cursor = r.next ? encodeCursor(r.next) : "";
        out.more = r.more;
        return out as TransfersAnswer;
      },
    }),
    def({
      name: "get_transfer_by_txid",
      restricted: true,
      params: obj({ txid: str, account_index: u32 }),
      handler: async (p) => {
        const wal = w();
        if (!isHex(p.txid)) fail(W.WRONG_TXID, "Transaction ID has invalid format");
        if (p.txid.length !== 64) fail(W.WRONG_TXID, `Transaction ID has invalid size: ${p.txid}`);
        if (p.account_index >= wal.accountCount) fail(W.ACCOUNT_INDEX_OUT_OF_BOUNDS, "Account index is out of bound");
        await wal.updatePool();
        const txid = p.txid.toLowerCase();
        const r = wal.ledger.getTransfers(
          { in: true, out: true, pending: true, failed: true, pool: true, accountIndex: p.account_index, filterByHeight: true, minHeight: 0, maxHeight: Number(MAX_BLOCK_NUMBER) },
          historyEnv(wal),
        );
        const all = [...r.in, ...r.out, ...r.pending, ...r.failed, ...r.pool].filter((e) => e.txid === txid).map(transferOut);
        if (all.length === 0) fail(W.WRONG_TXID, "Transaction not found.");
        return { transfer: all[0], transfers: all };
      },
    }),
    def({
      name: "incoming_transfers",
      params: obj({ transfer_type: str, account_index: u32, subaddr_indices: list(u32) }),
      handler: (p) => {
        const wal = w();
        const type = p.transfer_type;
        if (type !== "all" && type !== "available" && type !== "unavailable")
          fail(W.TRANSFER_TYPE, "Transfer type must be one of: all, available, or unavailable");
        // a multisig wallet's partial key images are not known ones: "" until the infos are imported (m_key_image_known)
        const full = wal.multisig.multisig ? (wal.ledger.state.multisigKeyImages ?? {}) : null;
        const list = wal.ledger
          .incomingTransfers(type as "all", p.account_index, p.subaddr_indices, now())
          .map((t) => renderedIncomingTransfer(plain(rpcIncomingTransfer(full && full[t.pubkey] === undefined ? { ...t, keyImage: "" } : t))));
        return withList({}, "transfers", list);
      },
    }),
    def({
      name: "get_payments",
      params: obj({ payment_id: str }),
      handler: (p) => {
        const wal = w();
        if (!isHex(p.payment_id)) fail(W.WRONG_PAYMENT_ID, "Payment ID has invalid format");
        if (p.payment_id.length !== 64 && p.payment_id.length !== 16) fail(W.WRONG_PAYMENT_ID, `Payment ID has invalid size: ${p.payment_id}`);
        const t = now();
        const list = wal.ledger.payments([p.payment_id]).map((x) =>
          renderedPayment({
            ...plain(rpcPayment(wal.ledger, x, wal.address(x.subaddress), t, true)),
            payment_id: p.payment_id,
          }),
        );
        return withList({}, "payments", list);
      },
    }),
    def({
      name: "get_bulk_payments",
      params: obj({ payment_ids: list(str), min_block_height: u64 }),
      handler: (p) => {
        const wal = w();
        const t = now();
        const min = Number(p.min_block_height > MAX_BLOCK_NUMBER * 1000n ? MAX_BLOCK_NUMBER * 1000n : p.min_block_height);
        const shape = (x: ReturnType<typeof wal.ledger.payments>[number], pid: string) =>
          renderedPayment({
            ...plain(rpcPayment(wal.ledger, x, wal.address(x.subaddress), t, true)),
            payment_id: pid,
          });
        const list: ReturnType<typeof shape>[] = [];
        if (p.payment_ids.length === 0) {
          for (const x of wal.ledger.state.payments) if (x.blockHeight > min) list.push(shape(x, x.paymentId));
          return withList({}, "payments", list);
        }
        for (const id of p.payment_ids) {
          if (id.length !== 64 && id.length !== 16) fail(W.WRONG_PAYMENT_ID, `Payment ID has invalid size: ${id}`);
          if (!isHex(id)) fail(W.WRONG_PAYMENT_ID, `Payment ID has invalid format: ${id}`);
          for (const x of wal.ledger.payments([id], min)) list.push(shape(x, id));
        }
        return withList({}, "payments", list);
      },
    }),
    def({
      name: "set_tx_notes",
      restricted: true,
      params: obj({ txids: list(str), notes: list(str) }),
      handler: (p) => {
        const wal = w();
        if (p.txids.length !== p.notes.length) fail(W.UNKNOWN_ERROR, "Different amount of txids and notes");
        for (const id of p.txids) if (!isHash(id)) fail(W.WRONG_TXID, "TX ID has invalid format");
        p.txids.forEach((id, i) => {
          wal.user.txNotes[id.toLowerCase()] = p.notes[i];
        });
        return {};
      },
    }),
    def({
      name: "get_tx_notes",
      params: obj({ txids: list(str) }),
      handler: (p) => {
        const wal = w();
        for (const id of p.txids) if (!isHash(id)) fail(W.WRONG_TXID, "TX ID has invalid format");
        return withList({}, "notes", p.txids.map((id) => wal.user.txNotes[id.toLowerCase()] ?? ""));
      },
    }),
    def({
      name: "set_attribute",
      restricted: true,
      params: obj({ key: str, value: str }),
      handler: (p) => {
        w().user.attributes[p.key] = p.value;
        return {};
      },
    }),
    def({
      name: "get_attribute",
      restricted: true,
      params: obj({ key: str }),
      handler: (p) => {
        const attrs = w().user.attributes;
        if (!Object.prototype.hasOwnProperty.call(attrs, p.key)) fail(W.ATTRIBUTE_NOT_FOUND, "Attribute not found.");
        return { value: attrs[p.key] };
      },
    }),
    keyImageMethod("freeze", "freeze"),
    keyImageMethod("thaw", "thaw"),
    keyImageMethod("frozen", "check if frozen"),
  ];
}
