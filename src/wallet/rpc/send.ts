/**
 * monero-wallet-rpc's spending methods (src/wallet/wallet_rpc_server.cpp v0.18: on_transfer,
 * on_transfer_split, on_sweep_all, on_sweep_single, on_sweep_dust, on_relay_tx, on_get_tx_key,
 * on_check_tx_key, on_estimate_tx_size_and_weight, validate_transfer, fill_response,
 * handle_rpc_exception) over wallet/send. Field names and defaults from
 * wallet_rpc_server_commands_defs.h; codes from wallet_rpc_server_error_codes.h; each message starts
 * with monero-wallet-rpc's words and adds what to do.
 */
import type { Bytes } from "../../crypto/backend.js";
import { type Address, AddressError, decodeAddress } from "../../protocol/address.js";
import { addressNetwork } from "../../protocol/network.js";
import { nonceWithEncryptedPaymentId, serializeTxExtra } from "../../protocol/extra.js";
import { parseTransaction } from "../../protocol/tx.js";
import { bool, type JsonWritable, object, str, u32, u64, withDefault } from "../../rpc/index.js";
import { SendError } from "../send/errors.js";
import { estimateTxSize, estimateTxWeight, RING_SIZE } from "../send/fee.js";
import { commitTx, type PendingTx, Sender, type UserDestination } from "../send/sender.js";
import { receivedBy } from "../proofs/index.js";
import { exportUnsignedSet } from "../cold/index.js";
import type { PendingTxRecord } from "../cold/formats.js";
import { saveMultisigSet } from "../multisig/txset.js";
import { checkMultisigEnabled } from "./multisig.js";
import { MultisigError } from "../multisig/kex-msg.js";
import type { WalletService } from "../service/service.js";
import { def, fail, list as listOf, obj, W, type WalletRpcDeps } from "./common.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";

const isHexOf = (s: string, bytes: number) => s.length === bytes * 2 && /^[0-9a-fA-F]*$/.test(s);
const XMR = 1_000_000_000_000n;
const money = (a: bigint): string => {
  const s = a.toString().padStart(13, "0");
  return `${s.slice(0, -12)}.${s.slice(-12)}`;
};

interface Validated {
  dests: UserDestination[];
  extra: Bytes;
}

/** validate_transfer: addresses of this network, at most one (integrated) payment id, no standalone id. */
function validateTransfer(svc: WalletService, destinations: readonly { address: string; amount: bigint }[], paymentId: string): Validated {
  const network = svc.wallet().network;
  let pid: Bytes | null = null;
  const dests: UserDestination[] = [];
  for (const d of destinations) {
    let a: Address;
    try {
      a = decodeAddress(d.address, network); // a regtest wallet takes mainnet addresses (addressNetwork)
    } catch (e) {
      const why = e instanceof AddressError ? `: ${e.message}` : "";
      return fail(W.WRONG_ADDRESS, `WALLET_RPC_ERROR_CODE_WRONG_ADDRESS: ${d.address}${why} (send a ${addressNetwork(network)} address)`);
    }
    dests.push({ spendPublicKey: a.spendPublicKey, viewPublicKey: a.viewPublicKey, isSubaddress: a.kind === "subaddress", amount: d.amount, address: d.address });
    if (a.paymentId) {
      if (paymentId !== "" || pid) fail(W.WRONG_PAYMENT_ID, "A single payment id is allowed per transaction");
      pid = a.paymentId;
    }
  }
  if (dests.length === 0) fail(W.ZERO_DESTINATION, "Transaction has no destination");
  if (paymentId !== "") fail(W.WRONG_PAYMENT_ID, "Standalone payment IDs are obsolete. Use subaddresses or integrated addresses instead");
  return { dests, extra: pid ? serializeTxExtra([{ type: "nonce", nonce: nonceWithEncryptedPaymentId(pid) }]) : new Uint8Array(0) };
}

/** handle_rpc_exception for transfer errors: wallet2's code and words, then what to do. */
function sendErrorToRpc(e: unknown): never {
  if (!(e instanceof SendError)) throw e;
  const d = e.details;
  const figures = d.available !== undefined && d.needed !== undefined ? ` (available ${money(d.available)}, needed ${money(d.needed)} + fee ${money(d.fee ?? 0n)})` : "";
  switch (e.kind) {
    case "zero_destination":
      return fail(W.ZERO_DESTINATION, `${e.message}: give at least one destination`);
    case "zero_amount":
      return fail(W.ZERO_AMOUNT, `${e.message}: every destination needs an amount above 0 (in atomic units, 1 XMR = ${XMR})`);
    case "tx_sum_overflow":
      return fail(W.GENERIC_TRANSFER_ERROR, e.message);
    case "not_enough_money":
      return fail(W.NOT_ENOUGH_MONEY, `${e.message}${figures}: the account does not hold that much; send less or fund the account`);
    case "not_enough_unlocked_money":
      return fail(W.NOT_ENOUGH_UNLOCKED_MONEY, `${e.message}${figures}: part of the balance is still locked (10 blocks after receipt, 60 for coinbase); wait or send less`);
    case "tx_not_possible":
      return fail(W.TX_NOT_POSSIBLE, `${e.message}${figures}: the spendable outputs cannot pay the amount plus fee; send less or sweep`);
    case "tx_too_big":
      return fail(W.TX_TOO_LARGE, `${e.message}: use transfer_split, or fewer destinations`);
    case "not_enough_outs_to_mix":
      return fail(W.NOT_ENOUGH_OUTS_TO_MIX, `${e.message} Please use sweep_dust.`);
    case "tx_rejected":
      return fail(W.GENERIC_TRANSFER_ERROR, e.message);
    case "watch_only":
      return fail(W.WATCH_ONLY, `${e.message}; open the full wallet (with its spend key) to send`);
    case "no_unlocked_balance":
      return fail(W.GENERIC_TRANSFER_ERROR, e.message);
    default:
      return fail(W.GENERIC_TRANSFER_ERROR, e.message);
  }
}

// tx_metadata: our own versioned format (wallet2's is its boost serialization of pending_tx)
const METADATA_MAGIC = "tsmonero ptx 1:";

function toMetadata(p: PendingTx): string {
  const body = {
    blob: hex(p.blob),
    txKey: hex(p.txKey),
    additional: p.additionalTxKeys.map(hex),
    fee: p.fee.toString(),
    weight: p.weight,
    keyImages: p.keyImages,
    dests: p.dests.map((d) => ({ amount: d.amount.toString(), address: d.address })),
    amountsByDest: p.amountsByDest.map(String),
    change: p.change.toString(),
    selfDests: p.selfDests.map((d) => ({ ...d, amount: d.amount.toString() })),
    account: p.account,
    subaddrIndices: p.subaddrIndices,
    paymentId: p.paymentId,
    unlockTime: p.unlockTime.toString(),
    txid: p.txid,
  };
  return Buffer.from(METADATA_MAGIC + JSON.stringify(body), "utf8").toString("hex");
}

function fromMetadata(svc: WalletService, hexText: string): PendingTx | null {
  const text = Buffer.from(hexText, "hex").toString("utf8");
  if (!text.startsWith(METADATA_MAGIC)) return null;
  try {
    const b = JSON.parse(text.slice(METADATA_MAGIC.length)) as Record<string, unknown>;
    const ledger = svc.wallet().ledger;
    const keyImages = b.keyImages as string[];
    const selected = keyImages.map((k) => ledger.transferIndexByKeyImage(k));
    if (selected.some((i) => i === undefined)) return null;
    return {
      txid: String(b.txid),
      blob: unhex(String(b.blob)),
      txKey: unhex(String(b.txKey)),
      additionalTxKeys: (b.additional as string[]).map(unhex),
      fee: BigInt(String(b.fee)),
      amount: (b.dests as { amount: string }[]).reduce((s, d) => s + BigInt(d.amount), 0n),
      amountsByDest: (b.amountsByDest as string[]).map((x) => BigInt(x)),
      weight: Number(b.weight),
      keyImages,
      selected: selected as number[],
      dests: (b.dests as { amount: string; address: string }[]).map((d) => ({ amount: BigInt(d.amount), address: d.address })),
      change: BigInt(String(b.change)),
      selfDests: ((b.selfDests as { major: number; minor: number; amount: string }[]) ?? []).map((d) => ({ ...d, amount: BigInt(d.amount) })),
      account: Number(b.account),
      subaddrIndices: b.subaddrIndices as number[],
      paymentId: String(b.paymentId),
      unlockTime: BigInt(String(b.unlockTime)),
    };
  } catch {
    return null;
  }
}

interface FillOpts {
  /** A view-only wallet's answer: the set to sign, and nothing of the unsigned drafts (fill_response). */
  unsignedTxset?: string;
  /** A multisig wallet's answer: the set for the co-signers (no tx id yet, no blob, no metadata). */
  multisigTxset?: string;
  getTxKey: boolean;
  doNotRelay: boolean;
  getTxHex: boolean;
  getTxMetadata: boolean;
}

const txKeyString = (p: PendingTx) => hex(p.txKey) + p.additionalTxKeys.map(hex).join("");

/** fill_response for the single-tx answers (transfer, sweep_single); a view-only wallet's answers no blob, key or metadata of its unsigned draft. */
function single(p: PendingTx, o: FillOpts) {
  const ms = o.multisigTxset !== undefined;
  const signed = o.unsignedTxset === undefined && !ms;
  return {
    amount: p.amount,
    amounts_by_dest: { amounts: p.amountsByDest },
    fee: p.fee,
    multisig_txset: o.multisigTxset ?? "",
    spent_key_images: { key_images: p.keyImages },
    tx_blob: signed && o.getTxHex ? hex(p.blob) : "",
    tx_hash: ms ? "" : p.txid,
    tx_key: (signed || ms) && o.getTxKey ? txKeyString(p) : "",
    tx_metadata: signed && o.getTxMetadata ? toMetadata(p) : "",
    unsigned_txset: o.unsignedTxset ?? "",
    weight: BigInt(p.weight),
  };
}

/** fill_response for the list answers (transfer_split, sweeps); epee leaves empty lists out. */
function list(ps: readonly PendingTx[], o: FillOpts): ListAnswer {
  const ms = o.multisigTxset !== undefined;
  const signed = o.unsignedTxset === undefined && !ms;
  const out: Record<string, JsonWritable> = { multisig_txset: o.multisigTxset ?? "", unsigned_txset: o.unsignedTxset ?? "" };
  const put = (k: string, v: JsonWritable[]) => {
    if (v.length > 0) out[k] = v;
  };
  put("amount_list", ps.map((p) => p.amount));
  put("amounts_by_dest_list", ps.map((p) => ({ amounts: p.amountsByDest })));
  put("fee_list", ps.map((p) => p.fee));
  put("spent_key_images_list", ps.map((p) => ({ key_images: p.keyImages })));
  if (signed && o.getTxHex) put("tx_blob_list", ps.map((p) => hex(p.blob)));
  if (!ms) put("tx_hash_list", ps.map((p) => p.txid));
  if ((signed || ms) && o.getTxKey) put("tx_key_list", ps.map(txKeyString));
  if (signed && o.getTxMetadata) put("tx_metadata_list", ps.map(toMetadata));
  put("weight_list", ps.map((p) => BigInt(p.weight)));
  return out as ListAnswer;
}

/** fill_response's list answer (transfer_split, sweeps): each list may be absent (empty, or not asked for). */
type ListAnswer = {
  multisig_txset: string;
  unsigned_txset: string;
  amount_list?: bigint[];
  amounts_by_dest_list?: { amounts: bigint[] }[];
  fee_list?: bigint[];
  spent_key_images_list?: { key_images: string[] }[];
  tx_blob_list?: string[];
  tx_hash_list?: string[];
  tx_key_list?: string[];
  tx_metadata_list?: string[];
  weight_list?: bigint[];
};

const destinationSchema = object({ amount: u64, address: str });
const common = {
  priority: u32,
  ring_size: withDefault(u64, 0n),
  unlock_time: u64,
  payment_id: str,
  do_not_relay: withDefault(bool, false),
  get_tx_hex: withDefault(bool, false),
  get_tx_metadata: withDefault(bool, false),
};

/** The spending methods of tsmonero-wallet-rpc. */
export function sendMethods({ svc }: WalletRpcDeps) {

  /**
   * Builds under the wallet's spend lock, then relays unless told not to (fill_response); a view-only
   * wallet relays nothing and answers the set for the full wallet to sign (`unsignedTxset`).
   */
  async function run(
    doNotRelay: boolean,
    build: (s: Sender) => Promise<PendingTx[]>,
    opts: { priority: number; ringSize: bigint; unlockTime: bigint; extra: Bytes },
  ): Promise<PendingTx[] & { unsignedTxset?: string; multisigTxset?: string }> {
    const wal = svc.wallet();
    checkMultisigEnabled(wal);
    try {
      return await wal.spend(async (ctx) => {
        const sender = new Sender(ctx, { priority: opts.priority, ringSize: Number(opts.ringSize), unlockTime: opts.unlockTime, extra: opts.extra });
        const ptxs: PendingTx[] & { unsignedTxset?: string; multisigTxset?: string } = await build(sender);
        if (ctx.multisig && ptxs.length > 0) {
          const signer = ctx.multisig.signer;
          ptxs.multisigTxset = hex(await saveMultisigSet(signer, { ptx: ptxs.map((p) => p.multisig as PendingTxRecord), signers: [signer.self] }));
          wal.dropMultisigNonces(ptxs.flatMap((p) => p.selected));
          return ptxs;
        }
        if (ptxs.some((p) => p.construction)) {
          ptxs.unsignedTxset = hex(await exportUnsignedSet(ctx, ptxs.flatMap((p) => (p.construction ? [p.construction] : []))));
          return ptxs;
        }
        if (!doNotRelay) for (const p of ptxs) await commitTx(ctx, p);
        return ptxs;
      });
    } catch (e) {
      if (e instanceof Error && e.name === "NoDaemonError") fail(W.NO_DAEMON_CONNECTION, e.message);
      if (e instanceof Error && e.name === "MultisigSpendError") fail(W.DISABLED, e.message);
      if (e instanceof MultisigError) fail(W.GENERIC_TRANSFER_ERROR, e.message);
      return sendErrorToRpc(e);
    }
  }

  const transferParams = obj({
    destinations: listOf(destinationSchema),
    account_index: u32,
    subaddr_indices: listOf(u32),
    get_tx_key: bool,
    get_tx_keys: bool,
    // later 0.18 releases: take the fee from these destinations (indices into destinations)
    subtract_fee_from_outputs: listOf(u32),
    ...common,
  });

  type TransferParams = typeof transferParams extends { parse(v: never, path: string): infer T } ? T : never;
  /** on_transfer's "No transaction created" (TX_NOT_POSSIBLE), with why: a multisig wallet spends only outputs whose full key image it knows. */
  const noTxMessage = (): string => {
    const wal = svc.wallet();
    if (wal.multisig.multisig && wal.ledger.hasPartialKeyImages())
      return "No transaction created: no spendable outputs in this account (unlocked, unspent, not frozen, with a full key image): export_multisig_info in every member and import_multisig_info of the others' infos first";
    return "No transaction created: no spendable outputs in this account (unlocked, unspent, not frozen)";
  };

  /** on_transfer / on_transfer_split up to fill_response: validate, plan and build (and relay). */
  async function transferTxs(p: TransferParams): Promise<PendingTx[] & { unsignedTxset?: string; multisigTxset?: string }> {
    const v = validateTransfer(svc, p.destinations, p.payment_id);
    checkAccount(svc, p.account_index);
    const ptxs = await run(p.do_not_relay, (s) => s.transfer(v.dests, p.account_index, p.subaddr_indices, new Set(p.subtract_fee_from_outputs)), {
      priority: p.priority,
      ringSize: p.ring_size,
      unlockTime: p.unlock_time,
      extra: v.extra,
    });
    if (ptxs.length === 0) fail(W.TX_NOT_POSSIBLE, noTxMessage());
    return ptxs;
  }

  return [
  def({
    name: "transfer",
    restricted: true,
    params: transferParams,
    handler: async (p) => {
      const ptxs = await transferTxs(p);
      if (ptxs.length !== 1) fail(W.TX_TOO_LARGE, "Transaction would be too large.  try /transfer_split.");
      return single(ptxs[0], { unsignedTxset: ptxs.unsignedTxset, multisigTxset: ptxs.multisigTxset, getTxKey: p.get_tx_key, doNotRelay: p.do_not_relay, getTxHex: p.get_tx_hex, getTxMetadata: p.get_tx_metadata });
    },
  }),

  def({
    name: "transfer_split",
    restricted: true,
    params: transferParams,
    handler: async (p) => {
      const ptxs = await transferTxs(p);
      return list(ptxs, { unsignedTxset: ptxs.unsignedTxset, multisigTxset: ptxs.multisigTxset, getTxKey: p.get_tx_keys, doNotRelay: p.do_not_relay, getTxHex: p.get_tx_hex, getTxMetadata: p.get_tx_metadata });
    },
  }),

  def({
    name: "sweep_all",
    restricted: true,
    params: obj({
      address: str,
      account_index: u32,
      subaddr_indices: listOf(u32),
      subaddr_indices_all: withDefault(bool, false),
      outputs: withDefault(u64, 1n),
      get_tx_keys: bool,
      below_amount: u64,
      ...common,
    }),
    handler: async (p) => {
      const v = validateTransfer(svc, [{ address: p.address, amount: 0n }], p.payment_id);
      if (p.outputs < 1n) fail(W.TX_NOT_POSSIBLE, "Amount of outputs should be greater than 0.");
      checkAccount(svc, p.account_index);
      const minors = p.subaddr_indices_all ? [...Array(svc.wallet().subaddressCount(p.account_index)).keys()] : p.subaddr_indices;
      const ptxs = await run(p.do_not_relay, (s) => s.sweepAll(v.dests[0], p.account_index, minors, p.below_amount, Number(p.outputs)), {
        priority: p.priority,
        ringSize: p.ring_size,
        unlockTime: p.unlock_time,
        extra: v.extra,
      });
      return list(ptxs, { unsignedTxset: ptxs.unsignedTxset, multisigTxset: ptxs.multisigTxset, getTxKey: p.get_tx_keys, doNotRelay: p.do_not_relay, getTxHex: p.get_tx_hex, getTxMetadata: p.get_tx_metadata });
    },
  }),

  def({
    name: "sweep_single",
    restricted: true,
    params: obj({ address: str, outputs: withDefault(u64, 1n), get_tx_key: bool, key_image: str, ...common }),
    handler: async (p) => {
      if (p.outputs < 1n) fail(W.TX_NOT_POSSIBLE, "Amount of outputs should be greater than 0.");
      const v = validateTransfer(svc, [{ address: p.address, amount: 0n }], p.payment_id);
      if (!isHexOf(p.key_image, 32)) fail(W.WRONG_KEY_IMAGE, "failed to parse key image");
      const ptxs = await run(p.do_not_relay, (s) => s.sweepSingle(p.key_image, v.dests[0], Number(p.outputs)), {
        priority: p.priority,
        ringSize: p.ring_size,
        unlockTime: p.unlock_time,
        extra: v.extra,
      });
      if (ptxs.length === 0) fail(W.UNKNOWN_ERROR, "No outputs found: no unspent, unlocked, unfrozen output of this wallet has that key image");
      if (ptxs.length > 1) fail(W.UNKNOWN_ERROR, "Multiple transactions are created, which is not supposed to happen");
      if (ptxs[0].selected.length > 1) fail(W.UNKNOWN_ERROR, "The transaction uses multiple inputs, which is not supposed to happen");
      return single(ptxs[0], { unsignedTxset: ptxs.unsignedTxset, multisigTxset: ptxs.multisigTxset, getTxKey: p.get_tx_key, doNotRelay: p.do_not_relay, getTxHex: p.get_tx_hex, getTxMetadata: p.get_tx_metadata });
    },
  }),

  def({
    name: "sweep_dust",
    aliases: ["sweep_unmixable"],
    restricted: true,
    params: obj({ get_tx_keys: bool, do_not_relay: withDefault(bool, false), get_tx_hex: withDefault(bool, false), get_tx_metadata: withDefault(bool, false) }),
    handler: () =>
      // create_unmixable_sweep_transactions: only pre-RingCT outputs below the dust threshold are
      // unmixable; a wallet whose outputs are all RingCT has none, and wallet2 answers an empty list
      list([], { getTxKey: false, doNotRelay: true, getTxHex: false, getTxMetadata: false }),
  }),

  def({
    name: "relay_tx",
    params: obj({ hex: str }),
    handler: async (p) => {
      if (!/^([0-9a-fA-F]{2})*$/.test(p.hex)) fail(W.BAD_HEX, "Failed to parse hex.");
      const ptx = fromMetadata(svc, p.hex);
      if (!ptx) fail(W.BAD_TX_METADATA, "Failed to parse tx metadata: pass the tx_metadata a transfer with get_tx_metadata answered, from this wallet");
      try {
        await svc.wallet().spend((ctx) => commitTx(ctx, ptx as PendingTx));
      } catch (e) {
        if (e instanceof SendError) fail(W.GENERIC_TRANSFER_ERROR, `Failed to commit tx: ${e.message}`);
        throw e;
      }
      return { tx_hash: (ptx as PendingTx).txid };
    },
  }),

  def({
    name: "get_tx_key",
    params: obj({ txid: str }),
    handler: (p) => {
      if (!isHexOf(p.txid, 32)) fail(W.WRONG_TXID, "TX ID has invalid format");
      const k = svc.wallet().ledger.txKeys(p.txid);
      if (!k) fail(W.NO_TXKEY, "No tx secret key is stored for this tx");
      return { tx_key: k.txKey + k.additional.join("") };
    },
  }),

  def({
    name: "check_tx_key",
    params: obj({ txid: str, tx_key: str, address: str }),
    handler: async (p) => {
      if (!isHexOf(p.txid, 32)) fail(W.WRONG_TXID, "TX ID has invalid format");
      if (p.tx_key.length < 64 || p.tx_key.length % 64 !== 0 || !/^[0-9a-fA-F]*$/.test(p.tx_key)) fail(W.WRONG_KEY, "Tx key has invalid format");
      const keys: Bytes[] = [];
      for (let i = 0; i < p.tx_key.length; i += 64) keys.push(unhex(p.tx_key.slice(i, i + 64)));
      const wal = svc.wallet();
      let a: Address;
      try {
        a = decodeAddress(p.address, wal.network);
      } catch {
        return fail(W.WRONG_ADDRESS, "Invalid address");
      }
      return checkTxKey(svc, p.txid, keys, a);
    },
  }),

  def({
    name: "estimate_tx_size_and_weight",
    params: obj({ n_inputs: u32, n_outputs: u32, ring_size: u32, rct: withDefault(bool, true) }),
    handler: (p) => {
      if (p.n_inputs <= 0) fail(W.UNKNOWN_ERROR, "Failed to determine size and weight: n_inputs must be at least 1");
      const ring = p.ring_size === 0 ? RING_SIZE : p.ring_size;
      const outs = p.n_outputs === 1 ? 2 : p.n_outputs;
      const extra = 34 + 10;
      return { size: BigInt(estimateTxSize(p.n_inputs, ring - 1, outs, extra)), weight: BigInt(estimateTxWeight(p.n_inputs, ring - 1, outs, extra)) };
    },
  }),

  ];
}

function checkAccount(svc: WalletService, account: number): void {
  if (account >= svc.wallet().accountCount) fail(W.ACCOUNT_INDEX_OUT_OF_BOUNDS, "account index is out of bound: create the account first (create_account) or use an index below get_accounts' count");
}

/** wallet2::check_tx_key (check_tx_key_helper is ../proofs' receivedBy, shared with the tx proofs). */
async function checkTxKey(svc: WalletService, txid: string, keys: readonly Bytes[], a: Address): Promise<{ confirmations: bigint; in_pool: boolean; received: bigint }> {
  const wal = svc.wallet();
  const node = wal.nodeApi();
  if (!node) return fail(W.NO_DAEMON_CONNECTION, "no connection to daemon: check_tx_key reads the tx from the daemon");
  const b = wal.backend;
  const r = await node.getTransactions([txid], { prune: false });
  const e = r.txs[0];
  if (!e || r.missed_tx.length > 0) return fail(W.UNKNOWN_ERROR, "Failed to get transaction from daemon");
  const tx = parseTransaction(unhex(e.as_hex || e.pruned_as_hex), { pruned: !e.as_hex });
  const main = b.generateKeyDerivation(a.viewPublicKey, keys[0]);
  if (!main) return fail(W.UNKNOWN_ERROR, "Failed to generate key derivation from supplied parameters");
  const additional = keys.slice(1).map((k) => b.generateKeyDerivation(a.viewPublicKey, k));
  if (additional.some((d) => d === null)) return fail(W.UNKNOWN_ERROR, "Failed to generate key derivation from supplied parameters");
  if (additional.length > 0 && additional.length !== tx.vout.length)
    return fail(W.UNKNOWN_ERROR, `The size of additional derivations is wrong: the tx has ${tx.vout.length} outputs, ${additional.length} additional tx keys were given; pass get_tx_key's whole answer`);
  const received = receivedBy(b, tx, main, additional, a.spendPublicKey);
  const height = e.in_pool ? 0n : BigInt((await node.getHeight()).height);
  return { confirmations: e.in_pool ? 0n : height - e.block_height, in_pool: e.in_pool, received };
}
