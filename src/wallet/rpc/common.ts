/**
 * What every wallet RPC handler shares (monero-wallet-rpc v0.18.0.0, wallet_rpc_server.cpp): the
 * method definition type `Def` and `def()` to declare one, the dependencies a handler gets, the
 * WALLET_RPC_ERROR_CODE_* table `W`, the error policy, `toRpcError`, `fail`, schema and hex helpers.
 */
import { array, type Fields, type JsonWritable, type MethodDocs, object, type RpcContext, RpcError, type Schema, u32 } from "../../rpc/index.js";
import { isHex } from "../../base/bytes.js";
import { WALLET_RPC_ERROR } from "../../rpc/error-codes.js";
import type { SubaddressIndex } from "../keys/subaddress.js";
import type { WalletService } from "../service/service.js";
import type { OpenWallet } from "../service/wallet.js";

/** WALLET_RPC_ERROR_CODE_* (v0.18.0.0 defines −1..−48), under its short name. */
export const W = WALLET_RPC_ERROR;

/** WALLET_RPC_VERSION_MAJOR/MINOR of v0.18.0.0. */
export const WALLET_RPC_VERSION = (1 << 16) | 25;

export { toRpcError, WALLET_ERRORS } from "./errors.js";

export const RESTRICTED_MSG = "Command unavailable in restricted mode.";

export interface WalletMethodsOptions {
  /** Cores for start_mining's thread limit (tools::get_max_concurrency). */
  readonly maxConcurrency?: number;
  /** Log lines (set_log_level, open_wallet's reasons, etc.). */
  readonly log?: (msg: string) => void;
  /** A wallet of the hub (/wallets/NAME/json_rpc): the methods that open, create or close another wallet answer −1. */
  readonly fixedWallet?: boolean;
}

/** What a handler may use: the service, the options, and the open wallet (−13 when none). */
export interface WalletRpcDeps {
  readonly svc: WalletService;
  readonly o: WalletMethodsOptions;
  /** The open wallet, or WalletError("not-open", "No wallet file") (−13). */
  w(): OpenWallet;
}

/** One JSON-RPC method of the wallet (summary, description, mirrors, errors: see MethodDocs). */
export interface Def<P, R extends JsonWritable = JsonWritable> extends MethodDocs {
  name: string;
  aliases?: string[];
  params: Schema<P>;
  /** Refused with −7 on a --restricted-rpc server; checked after the open-wallet check, as monero-wallet-rpc does. */
  restricted?: boolean;
  /** Needs an open wallet (−13 otherwise); default true. */
  wallet?: boolean;
  handler(p: P, ctx: RpcContext): R | Promise<R>;
}

/** A Def whose params type is erased, so that lists of them can be assembled. */
export type WalletDef = Def<unknown>;

/**
 * A declared method that keeps its name, its params type and its result type (the handler's) for
 * the typed client (WalletApi in api.ts); at run time it is the WalletDef itself.
 */
export type TypedDef<N extends string, P, R> = WalletDef & { readonly name: N; readonly __types?: { readonly params: P; readonly result: R } };

/** Declares a method (checks the handler against its params' type; keeps name, params and result types). */
export function def<const N extends string, P, R extends JsonWritable>(d: Def<P, R> & { name: N }): TypedDef<N, P, R> {
  return d as unknown as TypedDef<N, P, R>;
}


/** Answers the error `code` with `message`. */
export const fail: (code: number, message: string) => never = (code, message) => {
  throw new RpcError(code, message);
};

/** epee's parse_hexstr_to_binbuff: even length, hex digits. */
export { isHex } from "../../base/bytes.js";
export const isHash = (s: string): boolean => s.length === 64 && isHex(s);
/** Unix seconds, as bigint. */
export const now = (): bigint => BigInt(Math.floor(Date.now() / 1000));

/** epee leaves empty lists out of what it writes: `o` with `key` set to `list` when it is not empty (its type says the list may be absent). */
export function withList<T extends Record<string, JsonWritable>, K extends string, V extends JsonWritable>(o: T, key: K, list: readonly V[]): T & { [P in K]?: V[] } {
  if (list.length > 0) (o as Record<string, JsonWritable>)[key] = list as V[];
  return o as T & { [P in K]?: V[] };
}

/**
 * An interface's fields as a plain object type (what the RPC writes of it): interfaces have no
 * index signature, so a handler answering one says so with `plain()` and keeps its fields' types.
 */
export type Plain<T> = T extends bigint | string | number | boolean | null | undefined ? T : T extends readonly (infer U)[] ? Plain<U>[] : { [K in keyof T]: Plain<T[K]> };

/** `v` as its Plain type (no change at run time). */
export const plain = <T>(v: T): Plain<T> => v as unknown as Plain<T>;

export const subaddrIndex = object<SubaddressIndex>({ major: u32, minor: u32 }, { nullIsAbsent: true });

/**
 * A list param as epee loads it: a value that is not an array (a number, a string, an object) is
 * ignored and the list is empty, as monero-wallet-rpc answers get_address {"address_index": 0} (Monero's
 * Python client sends that); items of the wrong type are still -32602.
 */
export function list<T>(item: Schema<T>): Schema<T[]> {
  const a = array(item);
  return { ...a, parse: (v, path) => a.parse(v === null || Array.isArray(v) ? v : undefined, path) };
}

/** A method's params: an object of fields; a JSON array loads as {}, a null member as absent (epee does so). */
export function obj<T extends object>(fields: Fields<T>): Schema<T> {
  return object(fields, { arrayIsEmpty: true, nullIsAbsent: true });
}

/** What the ledger's history calls need: the clock, address strings and tx notes. */
export function historyEnv(wal: OpenWallet) {
  return { now: now(), address: (i: SubaddressIndex) => wal.address(i), note: (txid: string) => wal.user.txNotes[txid] ?? "" };
}
