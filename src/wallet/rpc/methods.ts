/**
 * monero-wallet-rpc's JSON-RPC methods over a WalletService (src/wallet/wallet_rpc_server.cpp v0.18.0.0,
 * wallet_rpc_server_commands_defs.h for field names and defaults, wallet_rpc_server_error_codes.h).
 * Each handler checks what monero-wallet-rpc checks, in its order: an open wallet (-13 "No wallet
 * file"), then restricted mode (-7), then the method's own errors with Monero's codes and messages.
 * Methods of later issues (sending, proofs, cold signing, multisig) answer -48 with a sentence saying so.
 */
import { NodeClientError, walletRpcErrorOf } from "../../client/node-client.js";
import { decodeAddress, encodeAddress } from "../../protocol/address.js";
import {
  anyJson,
  array,
  bool,
  type ErrorPolicy,
  type Fields,
  type JsonValue,
  type JsonWritable,
  MethodTable,
  object,
  type RpcContext,
  RpcError,
  type Schema,
  str,
  i32,
  u32,
  u64,
  WALLET_RESTRICTED,
  withDefault,
} from "../../rpc/index.js";
import {
  getLanguages,
  makeIntegratedAddress,
  makeUriRpc,
  parseUriRpc,
  queryKey,
  splitIntegratedAddress,
  validateAddressRpc,
  WalletRpcError,
  WalletRpcMessages,
} from "../keys/rpc.js";
import type { SubaddressIndex } from "../keys/subaddress.js";
import { Ledger, MAX_BLOCK_NUMBER } from "../ledger/ledger.js";
import { rpcIncomingTransfer, rpcPayment, rpcTransferEntry } from "../ledger/rpc-shape.js";
import type { WalletService } from "../service/service.js";
import { SslConfigError, type SslOptions, sslOptionsFromSetDaemon } from "../../rpc/tls.js";
import type { OpenWallet } from "../service/wallet.js";

/** WALLET_RPC_ERROR_CODE_* (v0.18.0.0 defines −1..−48). */
export const W = {
  UNKNOWN_ERROR: -1,
  WRONG_ADDRESS: -2,
  DAEMON_IS_BUSY: -3,
  GENERIC_TRANSFER_ERROR: -4,
  WRONG_PAYMENT_ID: -5,
  TRANSFER_TYPE: -6,
  DENIED: -7,
  WRONG_TXID: -8,
  WRONG_SIGNATURE: -9,
  WRONG_KEY_IMAGE: -10,
  WRONG_URI: -11,
  WRONG_INDEX: -12,
  NOT_OPEN: -13,
  ACCOUNT_INDEX_OUT_OF_BOUNDS: -14,
  ADDRESS_INDEX_OUT_OF_BOUNDS: -15,
  WALLET_ALREADY_EXISTS: -21,
  INVALID_PASSWORD: -22,
  NO_WALLET_DIR: -23,
  WATCH_ONLY: -29,
  NOT_MULTISIG: -31,
  NO_DAEMON_CONNECTION: -38,
  NON_DETERMINISTIC: -43,
  INVALID_LOG_LEVEL: -44,
  ATTRIBUTE_NOT_FOUND: -45,
  DISABLED: -48,
} as const;

/** WALLET_RPC_VERSION_MAJOR/MINOR of v0.18.0.0. */
export const WALLET_RPC_VERSION = (1 << 16) | 25;

/**
 * How the wallet words params that do not load: epee's -32602 "Invalid params" (as
 * monero-wallet-rpc), followed by what was wrong; a handler's unexpected failure is -1 (what
 * handle_rpc_exception answers for a std::exception), its details only in the log.
 */
export const WALLET_ERRORS: ErrorPolicy = {
  invalidParams: (err) => ({ code: -32602, message: `Invalid params: ${err.message}` }),
  internal: (method) => ({ code: W.UNKNOWN_ERROR, message: `Internal error in ${method}; the service's log has the details` }),
};

const RESTRICTED_MSG = "Command unavailable in restricted mode.";

type Handler<P> = (p: P, ctx: RpcContext) => JsonWritable | Promise<JsonWritable>;

interface Def<P> {
  name: string;
  aliases?: string[];
  params: Schema<P>;
  /** Checked after the open-wallet check, as monero-wallet-rpc does. */
  restricted?: boolean;
  /** Needs an open wallet (-13 otherwise). */
  wallet?: boolean;
  summary?: string;
  handler: Handler<P>;
}

/** Maps what the service and the node client throw to monero-wallet-rpc's error answers. */
export function toRpcError(e: unknown): unknown {
  if (e instanceof RpcError) return e;
  if (e instanceof WalletRpcError) return new RpcError(e.code, e.message);
  const node = walletRpcErrorOf(e);
  if (node) return new RpcError(node.code, `${node.message}: ${(e as Error).message}`);
  if (e instanceof NodeClientError) return new RpcError(W.UNKNOWN_ERROR, e.message);
  if (e instanceof RangeError) return new RpcError(W.UNKNOWN_ERROR, e.message);
  if (e instanceof Error && e.name.endsWith("Error") && e.name !== "Error" && e.name !== "TypeError") return new RpcError(W.UNKNOWN_ERROR, e.message);
  return e;
}

const fail: (code: number, message: string) => never = (code, message) => {
  throw new RpcError(code, message);
};

const hexRe = /^([0-9a-fA-F]{2})*$/;
/** epee's parse_hexstr_to_binbuff: even length, hex digits. */
const isHex = (s: string) => hexRe.test(s);
const isHash = (s: string) => s.length === 64 && isHex(s);
const now = () => BigInt(Math.floor(Date.now() / 1000));

/** epee leaves empty lists out of what it writes. */
function withList<T extends Record<string, JsonWritable>>(o: T, key: string, list: readonly JsonWritable[]): T {
  if (list.length > 0) (o as Record<string, JsonWritable>)[key] = list as JsonWritable[];
  return o;
}

const subaddrIndex = object<SubaddressIndex>({ major: u32, minor: u32 });

/** A method's params: an object of fields; a JSON array loads as {} (epee does so). */
function obj<T extends object>(fields: Fields<T>): Schema<T> {
  return object(fields, { arrayIsEmpty: true });
}

/** The methods of a later issue: their names, and whether monero-wallet-rpc refuses them in restricted mode. */
const LATER: readonly [string, boolean, string?][] = [
  ["transfer", true],
  ["transfer_split", true],
  ["sign_transfer", true],
  ["describe_transfer", true],
  ["submit_transfer", true],
  ["sweep_dust", true, "sweep_unmixable"],
  ["sweep_all", true],
  ["sweep_single", true],
  ["relay_tx", false],
  ["get_tx_key", false],
  ["check_tx_key", false],
  ["get_tx_proof", false],
  ["check_tx_proof", false],
  ["get_spend_proof", false],
  ["check_spend_proof", false],
  ["get_reserve_proof", false],
  ["check_reserve_proof", false],
  ["sign", true],
  ["verify", true],
  ["export_outputs", true],
  ["import_outputs", true],
  ["export_key_images", false],
  ["import_key_images", true],
  ["prepare_multisig", true],
  ["make_multisig", true],
  ["export_multisig_info", true],
  ["import_multisig_info", true],
  ["finalize_multisig", false],
  ["exchange_multisig_keys", true],
  ["sign_multisig", true],
  ["submit_multisig", true],
  ["estimate_tx_size_and_weight", false],
];

export interface WalletMethodsOptions {
  /** Cores for start_mining's thread limit (tools::get_max_concurrency). */
  readonly maxConcurrency?: number;
  /** Log lines (set_log_level etc.). */
  readonly log?: (msg: string) => void;
}

/** The method table of tsmonero-wallet-rpc over `svc`. */
export function walletMethods(svc: WalletService, o: WalletMethodsOptions = {}): MethodTable {
  const table = new MethodTable({ errors: WALLET_ERRORS, restricted: WALLET_RESTRICTED });
  let logLevel = 0;
  let logCategories = "";

  function add<P>(d: Def<P>): void {
    table.addJsonRpc<P>({
      name: d.name,
      aliases: d.aliases,
      params: d.params,
      summary: d.summary,
      handler: async (p, ctx) => {
        if (d.wallet !== false && !svc.hasWallet) fail(W.NOT_OPEN, "No wallet file");
        if (d.restricted && ctx.restricted) fail(W.DENIED, RESTRICTED_MSG);
        try {
          return await d.handler(p, ctx);
        } catch (e) {
          throw toRpcError(e);
        }
      },
    });
  }
  const w = (): OpenWallet => svc.wallet();

  // ---- wallet files ----

  add({
    name: "create_wallet",
    wallet: false,
    params: obj({ filename: str, password: str, language: str }),
    handler: async (p) => {
      await svc.createWallet(p);
      return {};
    },
  });
  add({
    name: "open_wallet",
    wallet: false,
    params: obj({ filename: str, password: str, autosave_current: withDefault(bool, true) }),
    handler: async (p) => {
      await svc.openWallet(p);
      return {};
    },
  });
  add({
    name: "close_wallet",
    params: obj({ autosave_current: withDefault(bool, true) }),
    handler: async (p) => {
      await svc.closeWallet(p);
      return {};
    },
  });
  add({
    name: "store",
    restricted: true,
    params: obj({}),
    handler: () => {
      svc.store();
      return {};
    },
  });
  add({
    name: "change_wallet_password",
    restricted: true,
    params: obj({ old_password: str, new_password: str }),
    handler: async (p) => {
      await svc.changePassword(p.old_password, p.new_password);
      return {};
    },
  });
  add({
    name: "stop_wallet",
    restricted: true,
    params: obj({}),
    handler: async () => {
      svc.wallet().store();
      setImmediate(() => {
        svc
          .stop()
          .catch((e: unknown) => o.log?.(`stop_wallet: ${e instanceof Error ? e.message : String(e)}`))
          .finally(() => svc.onStop?.());
      });
      return {};
    },
  });
  add({
    name: "restore_deterministic_wallet",
    wallet: false,
    params: obj({
      restore_height: u64,
      filename: str,
      seed: str,
      seed_offset: str,
      password: str,
      language: str,
      autosave_current: withDefault(bool, true),
    }),
    handler: (p) => svc.restoreDeterministic(p),
  });
  add({
    name: "generate_from_keys",
    wallet: false,
    params: obj({
      restore_height: u64,
      filename: str,
      address: str,
      spendkey: str,
      viewkey: str,
      password: str,
      language: str,
      autosave_current: withDefault(bool, true),
    }),
    handler: (p) => svc.generateFromKeys(p),
  });
  add({
    name: "query_key",
    restricted: true,
    params: obj({ key_type: str }),
    handler: (p) => queryKey(w().keyWallet, p.key_type),
  });
  add({ name: "get_languages", wallet: false, params: obj({}), handler: () => getLanguages() });

  // ---- balance, addresses, accounts ----

  add({
    name: "get_balance",
    aliases: ["getbalance"],
    params: obj({ account_index: u32, address_indices: array(u32), all_accounts: bool, strict: bool }),
    handler: (p) => {
      const wal = w();
      const t = now();
      const ledger = wal.ledger;
      const accounts = p.all_accounts ? [...Array(wal.accountCount).keys()] : [p.account_index];
      // one pass over the transfers for every figure of the answer
      const report = ledger.balanceReport(accounts, t, p.strict);
      const total = Ledger.totalOf([]);
      const per: JsonWritable[] = [];
      for (const major of accounts) {
        const rep = report.get(major);
        const rowList = rep?.rows ?? [];
        Ledger.totalOf(rowList, total);
        const rows = new Map(rowList.map((r) => [r.minor, r]));
        const minors = !p.all_accounts && p.address_indices.length > 0 ? [...new Set(p.address_indices)].sort((a, b) => a - b) : [...rows.keys()];
        for (const minor of minors) {
          const r = rows.get(minor);
          const index = { major, minor };
          per.push({
            account_index: major,
            address_index: minor,
            address: wal.address(index),
            balance: r?.balance ?? 0n,
            unlocked_balance: r?.unlockedBalance ?? 0n,
            label: wal.label(index),
            num_unspent_outputs: rep?.unspent.get(minor) ?? 0,
            blocks_to_unlock: r?.blocksToUnlock ?? 0n,
            time_to_unlock: r?.timeToUnlock ?? 0n,
          });
        }
      }
      return withList(
        {
          balance: total.balance,
          unlocked_balance: total.unlockedBalance,
          multisig_import_needed: false,
          blocks_to_unlock: total.blocksToUnlock,
          time_to_unlock: total.timeToUnlock,
        },
        "per_subaddress",
        per,
      );
    },
  });
  add({
    name: "get_address",
    aliases: ["getaddress"],
    params: obj({ account_index: u32, address_index: array(u32) }),
    handler: (p) => {
      const wal = w();
      if (p.account_index >= wal.accountCount) fail(W.ACCOUNT_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.accountOutOfBound);
      const n = wal.subaddressCount(p.account_index);
      const minors = p.address_index.length > 0 ? p.address_index : [...Array(n).keys()];
      const used = new Set(wal.ledger.state.transfers.filter((t) => t.subaddress.major === p.account_index).map((t) => t.subaddress.minor));
      const addresses = minors.map((minor) => {
        if (minor >= n) fail(W.ADDRESS_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.addressOutOfBound);
        const index = { major: p.account_index, minor };
        return { address: wal.address(index), label: wal.label(index), address_index: minor, used: used.has(minor) };
      });
      return withList({ address: wal.address({ major: p.account_index, minor: 0 }) }, "addresses", addresses);
    },
  });
  add({
    name: "get_address_index",
    params: obj({ address: str }),
    handler: (p) => {
      const wal = w();
      let spend: Uint8Array;
      try {
        spend = decodeAddress(p.address, wal.network).spendPublicKey;
      } catch {
        return fail(W.WRONG_ADDRESS, "Invalid address");
      }
      const index = wal.subaddressIndexOf(spend);
      if (!index) fail(W.WRONG_ADDRESS, WalletRpcMessages.addressNotInWallet);
      return { index: { major: index?.major ?? 0, minor: index?.minor ?? 0 } };
    },
  });
  add({
    name: "create_address",
    params: obj({ account_index: u32, count: withDefault(u32, 1), label: str }),
    handler: async (p) => {
      const wal = w();
      if (p.count < 1 || p.count > 64) fail(W.UNKNOWN_ERROR, WalletRpcMessages.countRange);
      if (p.account_index >= wal.accountCount) fail(W.ACCOUNT_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.accountOutOfBound);
      const indices: number[] = [];
      for (let i = 0; i < p.count; i++) indices.push(await wal.addSubaddress(p.account_index, p.label));
      const addresses = indices.map((minor) => wal.address({ major: p.account_index, minor }));
      return { address: addresses[0], address_index: indices[0], addresses, address_indices: indices };
    },
  });
  add({
    name: "label_address",
    params: obj({ index: subaddrIndex, label: str }),
    handler: (p) => {
      const wal = w();
      if (p.index.major >= wal.accountCount) fail(W.ACCOUNT_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.accountOutOfBound);
      if (p.index.minor >= wal.subaddressCount(p.index.major)) fail(W.ADDRESS_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.addressOutOfBound);
      wal.user.subaddressLabels[p.index.major][p.index.minor] = p.label;
      return {};
    },
  });
  add({
    name: "validate_address",
    wallet: false,
    params: obj({ address: str, any_net_type: bool, allow_openalias: bool }),
    handler: (p) => {
      if (!p.any_net_type && !svc.hasWallet) fail(W.NOT_OPEN, "No wallet file");
      const net = svc.hasWallet ? w().network : undefined;
      return validateAddressRpc(net, { address: p.address, any_net_type: p.any_net_type });
    },
  });
  add({
    name: "get_accounts",
    params: obj({ tag: str, strict_balances: bool, regexp: bool }),
    handler: (p) => {
      const wal = w();
      const { descriptions, tags } = wal.accountTags();
      if (p.tag !== "" && !descriptions.has(p.tag) && !p.regexp) fail(W.UNKNOWN_ERROR, `Tag ${p.tag} is unregistered.`);
      let re: RegExp | null = null;
      if (p.regexp && p.tag !== "") {
        try {
          re = new RegExp(`^(?:${p.tag})$`);
        } catch (e) {
          fail(W.UNKNOWN_ERROR, `Invalid regular expression ${p.tag}: ${(e as Error).message}`);
        }
      }
      const t = now();
      let totalBalance = 0n;
      let totalUnlocked = 0n;
      const list: JsonWritable[] = [];
      for (let major = 0; major < wal.accountCount; major++) {
        const tag = tags[major];
        if (p.tag !== "" && (re ? !re.test(tag) : tag !== p.tag)) continue;
        const b = wal.ledger.balance(major, t, p.strict_balances);
        totalBalance += b.balance;
        totalUnlocked += b.unlockedBalance;
        list.push({
          account_index: major,
          base_address: wal.address({ major, minor: 0 }),
          balance: b.balance,
          unlocked_balance: b.unlockedBalance,
          label: wal.label({ major, minor: 0 }),
          tag,
        });
      }
      if (list.length === 0 && p.regexp) fail(W.UNKNOWN_ERROR, `No matches for regex filter ${p.tag} .`);
      return withList({ total_balance: totalBalance, total_unlocked_balance: totalUnlocked }, "subaddress_accounts", list);
    },
  });
  add({
    name: "create_account",
    params: obj({ label: str }),
    handler: async (p) => {
      const wal = w();
      const major = await wal.addAccount(p.label);
      return { account_index: major, address: wal.address({ major, minor: 0 }) };
    },
  });
  add({
    name: "label_account",
    params: obj({ account_index: u32, label: str }),
    handler: (p) => {
      const wal = w();
      if (p.account_index >= wal.accountCount) fail(W.ACCOUNT_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.accountOutOfBound);
      wal.user.subaddressLabels[p.account_index][0] = p.label;
      return {};
    },
  });
  add({
    name: "get_account_tags",
    params: obj({}),
    handler: () => {
      const { descriptions, tags } = w().accountTags();
      const list = [...descriptions].map(([tag, label]) =>
        withList({ tag, label }, "accounts", tags.flatMap((t, i) => (t === tag ? [i] : []))),
      );
      return withList({}, "account_tags", list);
    },
  });
  add({
    name: "tag_accounts",
    params: obj({ tag: str, accounts: array(u32) }),
    handler: (p) => {
      w().setAccountTag([...new Set(p.accounts)], p.tag);
      return {};
    },
  });
  add({
    name: "untag_accounts",
    params: obj({ accounts: array(u32) }),
    handler: (p) => {
      w().setAccountTag([...new Set(p.accounts)], "");
      return {};
    },
  });
  add({
    name: "set_account_tag_description",
    params: obj({ tag: str, description: str }),
    handler: (p) => {
      const wal = w();
      if (p.tag === "") fail(W.UNKNOWN_ERROR, "Tag must not be empty");
      if (!wal.accountTags().descriptions.has(p.tag)) fail(W.UNKNOWN_ERROR, "Tag is unregistered");
      wal.user.accountTagDescriptions[p.tag] = p.description;
      return {};
    },
  });
  // m_blockchain holds genesis from the start: a wallet that has not refreshed yet answers 1
  add({ name: "get_height", aliases: ["getheight"], params: obj({}), handler: () => ({ height: Math.max(1, w().ledger.height) }) });

  const keyImageMethod = (name: "freeze" | "thaw" | "frozen", what: string) =>
    add({
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
  keyImageMethod("freeze", "freeze");
  keyImageMethod("thaw", "thaw");
  keyImageMethod("frozen", "check if frozen");

  add({
    name: "make_integrated_address",
    params: obj({ standard_address: str, payment_id: str }),
    handler: (p) => makeIntegratedAddress(w().keyWallet, p, () => svc.randomPaymentId()),
  });
  add({
    name: "split_integrated_address",
    params: obj({ integrated_address: str }),
    handler: (p) => splitIntegratedAddress(w().network, p),
  });

  // ---- history ----

  add({
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
      subaddr_indices: array(u32),
      all_accounts: bool,
    }),
    handler: async (p) => {
      const wal = w();
      if (p.pool) await wal.updatePool();
      const clamp = (x: bigint) => Number(x > MAX_BLOCK_NUMBER ? MAX_BLOCK_NUMBER : x);
      const r = wal.ledger.getTransfers(
        {
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
        },
        env(wal),
      );
      const out: Record<string, JsonWritable> = {};
      for (const k of ["in", "out", "pending", "failed", "pool"] as const) withList(out, k, r[k].map((e) => rpcTransferEntry(e) as unknown as JsonWritable));
      return out;
    },
  });
  add({
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
        env(wal),
      );
      const all = [...r.in, ...r.out, ...r.pending, ...r.failed, ...r.pool].filter((e) => e.txid === txid).map((e) => rpcTransferEntry(e) as unknown as JsonWritable);
      if (all.length === 0) fail(W.WRONG_TXID, "Transaction not found.");
      return { transfer: all[0], transfers: all };
    },
  });
  add({
    name: "incoming_transfers",
    params: obj({ transfer_type: str, account_index: u32, subaddr_indices: array(u32) }),
    handler: (p) => {
      const wal = w();
      const type = p.transfer_type;
      if (type !== "all" && type !== "available" && type !== "unavailable")
        fail(W.TRANSFER_TYPE, "Transfer type must be one of: all, available, or unavailable");
      const list = wal.ledger.incomingTransfers(type as "all", p.account_index, p.subaddr_indices, now()).map((t) => rpcIncomingTransfer(t) as unknown as JsonWritable);
      return withList({}, "transfers", list);
    },
  });
  add({
    name: "get_payments",
    params: obj({ payment_id: str }),
    handler: (p) => {
      const wal = w();
      if (!isHex(p.payment_id)) fail(W.WRONG_PAYMENT_ID, "Payment ID has invalid format");
      if (p.payment_id.length !== 64 && p.payment_id.length !== 16) fail(W.WRONG_PAYMENT_ID, `Payment ID has invalid size: ${p.payment_id}`);
      const t = now();
      const list = wal.ledger.payments([p.payment_id]).map((x) => ({
        ...(rpcPayment(wal.ledger, x, wal.address(x.subaddress), t, true) as unknown as Record<string, JsonWritable>),
        payment_id: p.payment_id,
      }));
      return withList({}, "payments", list);
    },
  });
  add({
    name: "get_bulk_payments",
    params: obj({ payment_ids: array(str), min_block_height: u64 }),
    handler: (p) => {
      const wal = w();
      const t = now();
      const min = Number(p.min_block_height > MAX_BLOCK_NUMBER * 1000n ? MAX_BLOCK_NUMBER * 1000n : p.min_block_height);
      const shape = (x: ReturnType<typeof wal.ledger.payments>[number], pid: string) => ({
        ...(rpcPayment(wal.ledger, x, wal.address(x.subaddress), t, true) as unknown as Record<string, JsonWritable>),
        payment_id: pid,
      });
      const list: JsonWritable[] = [];
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
  });

  // ---- refresh and node ----

  add({
    name: "refresh",
    restricted: true,
    params: obj({ start_height: u64 }),
    handler: async (p) => {
      const start = p.start_height > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(p.start_height);
      const r = await svc.refresh(w(), start);
      return { blocks_fetched: r.blocks_fetched, received_money: r.received_money };
    },
  });
  add({
    name: "auto_refresh",
    wallet: false,
    restricted: true,
    params: obj({ enable: withDefault(bool, true), period: u32 }),
    handler: (p) => {
      svc.setAutoRefresh(p.enable, p.period);
      return {};
    },
  });
  add({
    name: "rescan_blockchain",
    restricted: true,
    params: obj({ hard: bool }),
    handler: async () => {
      await svc.rescanBlockchain();
      return {};
    },
  });
  add({
    name: "scan_tx",
    restricted: true,
    params: obj({ txids: array(str) }),
    handler: async (p) => {
      const wal = w();
      for (const id of p.txids) if (!isHash(id)) fail(W.WRONG_TXID, "TX ID has invalid format");
      if (p.txids.length === 0) return {};
      const node = svc.daemon;
      if (!node) return fail(W.NO_DAEMON_CONNECTION, "no connection to daemon: the service runs --offline");
      const found: { blob: Uint8Array; txid: Uint8Array; height: number; timestamp: bigint; inPool: boolean; outputIndices: bigint[] }[] = [];
      for (let i = 0; i < p.txids.length; i += 100) {
        const ids = p.txids.slice(i, i + 100).map((x) => x.toLowerCase());
        const r = await node.getTransactions(ids, { decodeAsJson: false, prune: false });
        if (r.txs.length !== ids.length || r.txs.some((t) => t.as_hex === "")) fail(W.UNKNOWN_ERROR, "Failed to get transaction from daemon");
        for (const t of r.txs)
          found.push({
            blob: Uint8Array.from(Buffer.from(t.as_hex, "hex")),
            txid: Uint8Array.from(Buffer.from(t.tx_hash, "hex")),
            height: Number(t.block_height),
            timestamp: t.block_timestamp,
            inPool: t.in_pool,
            outputIndices: t.output_indices,
          });
      }
      await wal.scanTxs(found);
      // a pool tx enters the pool view now (wallet2 processes it at once), not at the next refresh
      if (found.some((t) => t.inPool)) await wal.updatePool();
      return {};
    },
  });
  add({
    name: "rescan_spent",
    restricted: true,
    params: obj({}),
    handler: async () => {
      const wal = w();
      const node = svc.daemon;
      if (!node) return fail(W.NO_DAEMON_CONNECTION, "no connection to daemon: the service runs --offline");
      const list = wal.keyImageList();
      for (let i = 0; i < list.length; i += 1000) {
        const part = list.slice(i, i + 1000);
        const r = (await node.json("/is_key_image_spent", { key_images: part.map((x) => x.keyImage) })) as Record<string, JsonValue>;
        const status = r.spent_status as JsonValue[];
        if (r.status !== "OK" || !Array.isArray(status) || status.length !== part.length)
          fail(W.UNKNOWN_ERROR, `daemon returned wrong response for is_key_image_spent, wrong amounts count = ${Array.isArray(status) ? status.length : 0}, expected ${part.length}`);
        part.forEach((x, k) => {
          const t = wal.ledger.state.transfers[x.index];
          const spent = Number(status[k]) !== 0;
          if (spent && !t.spent) {
            t.spent = true;
            t.spentHeight = 0;
          } else if (!spent && t.spent) {
            t.spent = false;
            t.spentHeight = 0;
            t.spentTxid = "";
          }
        });
      }
      return {};
    },
  });
  add({
    name: "set_daemon",
    restricted: true,
    params: obj({
      address: str,
      username: str,
      password: str,
      trusted: bool,
      ssl_support: withDefault(str, "autodetect"),
      ssl_private_key_path: str,
      ssl_certificate_path: str,
      ssl_ca_file: str,
      ssl_allowed_fingerprints: array(str),
      ssl_allow_any_cert: bool,
    }),
    handler: async (p) => {
      let ssl: SslOptions;
      try {
        ssl = sslOptionsFromSetDaemon(p);
      } catch (e) {
        if (!(e instanceof SslConfigError)) throw e;
        fail(W.NO_DAEMON_CONNECTION, e.message);
      }
      await svc.setDaemon({ address: p.address, username: p.username, password: p.password, trusted: p.trusted, ssl });
      return {};
    },
  });
  add({
    name: "start_mining",
    params: obj({ threads_count: u64, do_background_mining: bool, ignore_battery: bool }),
    handler: async (p) => {
      const wal = w();
      if (!svc.trusted) fail(W.UNKNOWN_ERROR, "This command requires a trusted daemon.");
      const max = BigInt(Math.max(o.maxConcurrency ?? 2, 2));
      if (p.threads_count < 1n || p.threads_count > max) fail(W.UNKNOWN_ERROR, "The specified number of threads is inappropriate.");
      const node = svc.daemon;
      let ok: boolean;
      try {
        const r = node
          ? ((await node.json("/start_mining", {
              miner_address: wal.address({ major: 0, minor: 0 }),
              threads_count: p.threads_count,
              do_background_mining: p.do_background_mining,
              ignore_battery: p.ignore_battery,
            })) as Record<string, JsonValue>)
          : null;
        ok = r?.status === "OK";
      } catch {
        ok = false;
      }
      if (!ok) fail(W.UNKNOWN_ERROR, "Couldn't start mining due to unknown error.");
      return {};
    },
  });
  add({
    name: "stop_mining",
    params: obj({}),
    handler: async () => {
      const node = svc.daemon;
      let ok: boolean;
      try {
        ok = node ? ((await node.json("/stop_mining", {})) as Record<string, JsonValue>).status === "OK" : false;
      } catch {
        ok = false;
      }
      if (!ok) fail(W.UNKNOWN_ERROR, "Couldn't stop mining due to unknown error.");
      return {};
    },
  });

  // ---- notes, attributes, address book, URIs ----

  add({
    name: "set_tx_notes",
    restricted: true,
    params: obj({ txids: array(str), notes: array(str) }),
    handler: (p) => {
      const wal = w();
      if (p.txids.length !== p.notes.length) fail(W.UNKNOWN_ERROR, "Different amount of txids and notes");
      for (const id of p.txids) if (!isHash(id)) fail(W.WRONG_TXID, "TX ID has invalid format");
      p.txids.forEach((id, i) => {
        wal.user.txNotes[id.toLowerCase()] = p.notes[i];
      });
      return {};
    },
  });
  add({
    name: "get_tx_notes",
    params: obj({ txids: array(str) }),
    handler: (p) => {
      const wal = w();
      for (const id of p.txids) if (!isHash(id)) fail(W.WRONG_TXID, "TX ID has invalid format");
      return withList({}, "notes", p.txids.map((id) => wal.user.txNotes[id.toLowerCase()] ?? ""));
    },
  });
  add({
    name: "set_attribute",
    restricted: true,
    params: obj({ key: str, value: str }),
    handler: (p) => {
      w().user.attributes[p.key] = p.value;
      return {};
    },
  });
  add({
    name: "get_attribute",
    restricted: true,
    params: obj({ key: str }),
    handler: (p) => {
      const attrs = w().user.attributes;
      if (!Object.prototype.hasOwnProperty.call(attrs, p.key)) fail(W.ATTRIBUTE_NOT_FOUND, "Attribute not found.");
      return { value: attrs[p.key] };
    },
  });

  /** An address book row's address as monero-wallet-rpc prints it (integrated when it has a payment id). */
  const bookAddress = (wal: OpenWallet, row: { address: string; paymentId: string }): string => {
    if (row.paymentId === "") return row.address;
    const a = decodeAddress(row.address, wal.network);
    return encodeAddress(wal.network, "integrated", a.spendPublicKey, a.viewPublicKey, Uint8Array.from(Buffer.from(row.paymentId, "hex")));
  };
  /** Parses an address for the book: its base (standard or subaddress) form and its payment id. */
  const parseBookAddress = (wal: OpenWallet, text: string): { base: string; pid: string } => {
    try {
      const a = decodeAddress(text, wal.network);
      const kind = a.kind === "subaddress" ? "subaddress" : "standard";
      return {
        base: encodeAddress(wal.network, kind, a.spendPublicKey, a.viewPublicKey, null),
        pid: a.paymentId ? Buffer.from(a.paymentId).toString("hex") : "",
      };
    } catch {
      return fail(W.WRONG_ADDRESS, `WALLET_RPC_ERROR_CODE_WRONG_ADDRESS: ${text}`);
    }
  };

  add({
    name: "get_address_book",
    params: obj({ entries: array(u64) }),
    handler: (p) => {
      const wal = w();
      const ab = wal.user.addressBook;
      const idx = p.entries.length > 0 ? p.entries : ab.map((_, i) => BigInt(i));
      const list = idx.map((i) => {
        if (i >= BigInt(ab.length)) fail(W.WRONG_INDEX, `Index out of range: ${i}`);
        const row = ab[Number(i)];
        return { index: i, address: bookAddress(wal, row), description: row.description };
      });
      return withList({}, "entries", list);
    },
  });
  add({
    name: "add_address_book",
    restricted: true,
    params: obj({ address: str, description: str }),
    handler: (p) => {
      const wal = w();
      const { base, pid } = parseBookAddress(wal, p.address);
      wal.user.addressBook.push({ address: base, description: p.description, paymentId: pid });
      return { index: wal.user.addressBook.length - 1 };
    },
  });
  add({
    name: "edit_address_book",
    restricted: true,
    params: obj({ index: u64, set_address: bool, address: str, set_description: bool, description: str }),
    handler: (p) => {
      const wal = w();
      const ab = wal.user.addressBook;
      if (p.index >= BigInt(ab.length)) fail(W.WRONG_INDEX, `Index out of range: ${p.index}`);
      const old = ab[Number(p.index)];
      let address = old.address;
      let pid = old.paymentId;
      if (p.set_address) {
        const parsed = parseBookAddress(wal, p.address);
        address = parsed.base;
        if (parsed.pid !== "") pid = parsed.pid;
      }
      // as wallet2 0.18 does: the payment id stays only when the address was set and the old row had one
      const keepPid = p.set_address && old.paymentId !== "";
      ab[Number(p.index)] = { address, description: p.set_description ? p.description : old.description, paymentId: keepPid ? pid : "" };
      return {};
    },
  });
  add({
    name: "delete_address_book",
    restricted: true,
    params: obj({ index: u64 }),
    handler: (p) => {
      const ab = w().user.addressBook;
      if (p.index >= BigInt(ab.length)) fail(W.WRONG_INDEX, `Index out of range: ${p.index}`);
      ab.splice(Number(p.index), 1);
      return {};
    },
  });
  add({
    name: "make_uri",
    params: obj({ address: str, payment_id: str, amount: u64, tx_description: str, recipient_name: str }),
    handler: (p) => makeUriRpc(w().network, p),
  });
  add({
    name: "parse_uri",
    params: obj({ uri: str }),
    handler: (p) => parseUriRpc(w().network, p) as unknown as JsonWritable,
  });

  // ---- version, logs, multisig status ----

  add({ name: "get_version", wallet: false, params: obj({}), handler: () => ({ version: WALLET_RPC_VERSION, release: false }) }); // as the Debian build of monero-wallet-rpc answers
  add({
    name: "set_log_level",
    wallet: false,
    restricted: true,
    params: obj({ level: i32 }),
    handler: (p) => {
      if (p.level < 0 || p.level > 4) fail(W.INVALID_LOG_LEVEL, "Error: log level not valid");
      logLevel = p.level;
      o.log?.(`log level ${logLevel}`);
      return {};
    },
  });
  add({
    name: "set_log_categories",
    wallet: false,
    restricted: true,
    params: obj({ categories: str }),
    handler: (p) => {
      logCategories = p.categories;
      return { categories: logCategories };
    },
  });
  add({
    name: "is_multisig",
    params: obj({}),
    handler: () => ({ multisig: false, ready: false, threshold: 0, total: 0 }),
  });

  for (const [name, restricted, alias] of LATER) {
    add({
      name,
      aliases: alias ? [alias] : undefined,
      restricted,
      params: anyJson,
      handler: () =>
        fail(
          W.DISABLED,
          `${name} is not available in this version of tsmonero-wallet-rpc: sending, proofs, cold signing and multisig come in a later release`,
        ),
    });
  }
  return table;
}

function env(wal: OpenWallet) {
  return { now: now(), address: (i: SubaddressIndex) => wal.address(i), note: (txid: string) => wal.user.txNotes[txid] ?? "" };
}
