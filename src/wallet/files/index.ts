/**
 * Wallet files with monero-wallet-rpc's names (src/wallet/wallet2.cpp get_keys_file / store_to):
 * `DIR/NAME.keys` holds the account keys and the user's data, `DIR/NAME` the scan cache. Both are
 * encrypted containers (container.ts) keyed by one password-derived key; each write is atomic.
 */
import { existsSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { Network } from "../../protocol/network.js";
import { decodePayload, encodePayload } from "./codec.js";
import {
  CorruptWalletFileError,
  DEFAULT_KDF,
  deriveFileKey,
  type FileKey,
  type KdfParams,
  open,
  readHeader,
  readWholeFile,
  seal,
  WalletFileError,
  type WalletFileKind,
  writeFileAtomic,
} from "./container.js";

export {
  CorruptWalletFileError,
  DEFAULT_KDF,
  deriveFileKey,
  type FileKey,
  type KdfParams,
  WalletFileError,
  WrongPasswordError,
  writeFileAtomic,
} from "./container.js";
export { decodePayload, encodePayload, type FileValue } from "./codec.js";

/** An address book row (wallet2::address_book_row). */
export interface AddressBookEntry {
  address: string;
  description: string;
  /** Hex, "" when none. */
  paymentId: string;
}

/** User data that must survive close/open. */
export interface WalletUserData {
  /** txid hex → note. */
  txNotes: Record<string, string>;
  addressBook: AddressBookEntry[];
  /** labels[major][minor]; labels[major][0] is the account label. */
  subaddressLabels: string[][];
  /** account index (decimal) → tag. */
  accountTags: Record<string, string>;
  /** tag → description. */
  accountTagDescriptions: Record<string, string>;
  /** set_attribute key → value. */
  attributes: Record<string, string>;
}

export function emptyUserData(): WalletUserData {
  return {
    txNotes: {},
    addressBook: [],
    subaddressLabels: [["Primary account"]],
    accountTags: {},
    accountTagDescriptions: {},
    attributes: {},
  };
}

/** The keys file's contents. */
export interface WalletKeysData {
  network: Network;
  /** null for a view-only wallet. */
  spendSecretKey: Uint8Array | null;
  viewSecretKey: Uint8Array;
  spendPublicKey: Uint8Array;
  viewPublicKey: Uint8Array;
  seedLanguage: string;
  /** Height scanning starts from (wallet2's m_refresh_from_block_height). */
  restoreHeight: bigint;
  /** Creation time, seconds since the epoch. */
  createdAt: bigint;
  user: WalletUserData;
  /** set_subaddress_lookahead's sizes (wallet2 keeps them in the keys file); absent: the service's default. */
  subaddressLookahead?: { major: number; minor: number };
  /**
   * A multisig wallet's key-exchange state (wallet2's multisig, multisig_threshold,
   * multisig_signers, multisig_rounds_passed, multisig_derivations and the account's
   * m_multisig_keys); absent for other wallets. The spend secret is then k_base, the view keys the
   * group's common keys and the spend public key the group's (identity until the exchange is done).
   */
  multisig?: MultisigKeysData;
  /** wallet2's enable_multisig (set by prepare_multisig's enable_multisig_experimental). */
  enableMultisig?: boolean;
}

/** What the keys file keeps of a multisig wallet. */
export interface MultisigKeysData {
  threshold: number;
  signers: Uint8Array[];
  roundsPassed: number;
  derivations: Uint8Array[];
  /** The multisig private key shares (account_keys::m_multisig_keys). */
  keys: Uint8Array[];
}

const NETWORKS = new Set(["mainnet", "testnet", "stagenet", "regtest"]);
const isBytes = (v: unknown, n: number) => v instanceof Uint8Array && v.length === n;
const isStringRecord = (v: unknown) =>
  v !== null && typeof v === "object" && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string");

/** Checks a decoded keys payload's shape; returns a reason or null. */
function keysProblem(v: unknown): string | null {
  if (v === null || typeof v !== "object") return "payload is not an object";
  const k = v as Record<string, unknown>;
  if (typeof k.network !== "string" || !NETWORKS.has(k.network)) return "bad network";
  if (!(k.spendSecretKey === null || isBytes(k.spendSecretKey, 32))) return "bad spend secret key";
  for (const f of ["viewSecretKey", "spendPublicKey", "viewPublicKey"]) if (!isBytes(k[f], 32)) return `bad ${f}`;
  if (typeof k.seedLanguage !== "string") return "bad seed language";
  if (typeof k.restoreHeight !== "bigint" || typeof k.createdAt !== "bigint") return "bad heights";
  const u = k.user as Record<string, unknown> | undefined;
  if (!u || typeof u !== "object") return "missing user data";
  if (!isStringRecord(u.txNotes) || !isStringRecord(u.accountTags) || !isStringRecord(u.accountTagDescriptions) || !isStringRecord(u.attributes))
    return "bad user data maps";
  if (!Array.isArray(u.addressBook) || !Array.isArray(u.subaddressLabels)) return "bad user data lists";
  if (k.multisig !== undefined) {
    const m = k.multisig as Record<string, unknown> | null;
    const keyList = (v: unknown) => Array.isArray(v) && v.every((x) => isBytes(x, 32));
    if (!m || typeof m !== "object") return "bad multisig state";
    if (typeof m.threshold !== "number" || typeof m.roundsPassed !== "number") return "bad multisig counters";
    if (!keyList(m.signers) || !keyList(m.derivations) || !keyList(m.keys)) return "bad multisig keys";
    if (k.spendSecretKey === null) return "a multisig wallet without its spend share";
  }
  if (k.enableMultisig !== undefined && typeof k.enableMultisig !== "boolean") return "bad enable_multisig";
  return null;
}

/** The paths monero-wallet-rpc uses for wallet `name` in `dir`. */
export function walletPaths(dir: string, name: string): { keys: string; cache: string } {
  if (name.length === 0 || name.includes("/") || name.includes("\\") || name === "." || name === "..") {
    throw new WalletFileError(`invalid wallet name ${JSON.stringify(name)}`, join(dir, name));
  }
  const cache = join(dir, name);
  return { keys: `${cache}.keys`, cache };
}

/**
 * An open pair of wallet files. The password's key is derived once (at create/open) and reused for
 * every store; each write still takes a fresh nonce.
 */
export class WalletFiles<Cache = unknown> {
  private constructor(
    readonly keysPath: string,
    readonly cachePath: string,
    private key: FileKey,
  ) {}

  /**
   * The keys payload this object last wrote (or read) under `key`: a store whose keys data did not
   * change leaves the keys file alone (a refresh changes only the cache; the keys file's rewrite,
   * with its two fsyncs, was a third of what storing after a refresh cost). wallet2::store rewrites
   * both; the bytes it would write here are the same content under a new IV.
   */
  private lastKeys: { payload: Buffer; key: FileKey } | null = null;

  /** Creates new files (refuses to overwrite an existing keys file). */
  static async create<C>(dir: string, name: string, password: string, keys: WalletKeysData, kdf: KdfParams = DEFAULT_KDF): Promise<WalletFiles<C>> {
    const p = walletPaths(dir, name);
    if (existsSync(p.keys)) throw new WalletFileError(`wallet file ${p.keys} already exists`, p.keys);
    const f = new WalletFiles<C>(p.keys, p.cache, await deriveFileKey(password, undefined, kdf));
    f.storeKeys(keys);
    return f;
  }

  /** Opens existing files: returns them with the keys data. Wrong password → WrongPasswordError. */
  static async open<C>(dir: string, name: string, password: string): Promise<{ files: WalletFiles<C>; keys: WalletKeysData }> {
    const p = walletPaths(dir, name);
    removeStaleTemps(dir, name);
    const data = readWholeFile(p.keys);
    const header = readHeader(data, p.keys, "keys");
    const key = await deriveFileKey(password, header.salt, header.kdf);
    const plain = open(data, header, key, p.keys);
    const keys = decodeChecked(plain, p.keys, keysProblem) as WalletKeysData;
    const files = new WalletFiles<C>(p.keys, p.cache, key);
    files.lastKeys = { payload: plain, key };
    return { files, keys };
  }

  /** Writes the keys file atomically. */
  storeKeys(keys: WalletKeysData): void {
    const payload = encodePayload(keys);
    const last = this.lastKeys;
    if (last && last.key === this.key && last.payload.equals(payload) && existsSync(this.keysPath)) return;
    writeFileAtomic(this.keysPath, seal("keys", this.key, payload));
    this.lastKeys = { payload, key: this.key };
  }

  /** Writes the cache atomically. */
  storeCache(cache: Cache): void {
    writeSealed(this.cachePath, "cache", this.key, cache);
  }

  /** The cache, or null when there is none yet (a fresh wallet). */
  async loadCache(): Promise<Cache | null> {
    if (!existsSync(this.cachePath)) return null;
    const data = readWholeFile(this.cachePath);
    const header = readHeader(data, this.cachePath, "cache");
    // the cache is sealed with the keys file's key; another salt means a password change was
    // interrupted between the two writes: the cache is then unreadable and the wallet rescans
    if (!header.salt.equals(this.key.salt) || !sameKdf(header.kdf, this.key.kdf)) {
      throw new CorruptWalletFileError(this.cachePath, "written under another password (rescan needed)");
    }
    return decodeChecked(open(data, header, this.key, this.cachePath), this.cachePath, () => null) as Cache;
  }

  /** change_wallet_password: a new key, both files rewritten. */
  async changePassword(newPassword: string, keys: WalletKeysData, cache: Cache | null, kdf: KdfParams = this.key.kdf): Promise<void> {
    const key = await deriveFileKey(newPassword, undefined, kdf);
    const old = this.key;
    this.key = key;
    try {
      this.storeKeys(keys);
      if (cache !== null) this.storeCache(cache);
    } catch (e) {
      this.key = old;
      throw e;
    }
  }
}

/** Deletes temporary files a killed writer left (writeFileAtomic's `.NAME.tmp-PID-…`), if PID is gone. */
function removeStaleTemps(dir: string, name: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    const m = /^\.(.+)\.tmp-(\d+)-[0-9a-f]{8}$/.exec(e);
    if (!m || (m[1] !== name && m[1] !== `${name}.keys`)) continue;
    const pid = Number(m[2]);
    if (pid !== process.pid && pidAlive(pid)) continue;
    try {
      unlinkSync(join(dir, e));
    } catch {
      // another opener removed it first
    }
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function sameKdf(a: KdfParams, b: KdfParams): boolean {
  return a.log2N === b.log2N && a.r === b.r && a.p === b.p;
}

function writeSealed(path: string, kind: WalletFileKind, key: FileKey, value: unknown): void {
  writeFileAtomic(path, seal(kind, key, encodePayload(value)));
}

function decodeChecked(plain: Buffer, path: string, problem: (v: unknown) => string | null): unknown {
  let v: unknown;
  try {
    v = decodePayload(plain);
  } catch (e) {
    throw new CorruptWalletFileError(path, `payload does not decode: ${(e as Error).message}`);
  }
  const p = problem(v);
  if (p) throw new CorruptWalletFileError(path, p);
  return v;
}
