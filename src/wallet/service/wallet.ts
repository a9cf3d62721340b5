/**
 * One open wallet (what monero-wallet-rpc's `m_wallet` is): its keys, files, ledger, user data
 * (labels, tags, notes, attributes, address book), a scan worker and the refresh loop over a node.
 * The service (service.ts) owns the life cycle; the RPC layer reads and edits through here.
 *
 * Subaddress counts follow wallet2: `labels[major].length` is the number of subaddresses the wallet
 * shows (get_address), grown by create_address/create_account and by receipts on lookahead
 * subaddresses (wallet2::expand_subaddresses); new accounts reached by a receipt are labelled
 * "Untitled account".
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { acquirePidLock, type HeldFile, LockHeldError } from "../../os/lockfile.js";
import type { NodeApi } from "../../client/node-client.js";
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { encodeAddress } from "../../protocol/address.js";
import type { Network } from "../../protocol/network.js";
import {
  CorruptWalletFileError,
  DEFAULT_KDF,
  emptyUserData,
  WalletFileError,
  type KdfParams,
  type MultisigKeysData,
  type WalletKeysData,
  WalletFiles,
  type WalletUserData,
} from "../files/index.js";
import { type AccountKeys, primaryAddress } from "../keys/account.js";
import type { KeyWallet } from "../keys/rpc.js";
import { checkLookahead, SubaddressDeriver, type SubaddressIndex, SubaddressLookahead } from "../keys/subaddress.js";
import { emptyLedgerState, Ledger, type LedgerState } from "../ledger/ledger.js";
import { ParallelScanWorker, ScanWorker, type WalletScanner } from "../scan/pool.js";
import type { SharedScanPool } from "../scan/shared.js";
import type { ColdContext } from "../cold/context.js";
import { type MultisigStatus, multisigStatus } from "../multisig/kex.js";
import { MultisigError } from "../multisig/kex-msg.js";
import { compositeKeyImage, exportMultisigInfo, type ImportedInfo, parseMultisigInfo } from "../multisig/info.js";
import type { MultisigSpend, SpendContext } from "../send/sender.js";
import type { MultisigOutput, MultisigSigner } from "../multisig/txset.js";
import { type RefreshResult, type SyncProgress, WalletSync } from "../sync/index.js";
import { bytesToHex } from "../../base/bytes.js";

/** What the cache file (NAME) holds. */
export interface WalletCache {
  version: 1;
  ledger: LedgerState;
  /** Tx ids already announced through --tx-notify. */
  notified: string[];
}

export interface OpenWalletOptions {
  readonly dir: string;
  /** The file name in `dir`; "" for a wallet that lives in memory only (monero-wallet-rpc's empty filename). */
  readonly name: string;
  readonly network: Network;
  readonly backend?: CryptoBackend;
  /** wallet2's subaddress lookahead (50 accounts × 200 subaddresses). */
  readonly lookaheadMajor?: number;
  readonly lookaheadMinor?: number;
  /** Where lock take-overs and cache rebuilds are reported. Default console.error. */
  readonly log?: (msg: string) => void;
  /** Told how a refresh or rescan advances (for progress displays); must not throw. */
  readonly progress?: (p: WalletProgress) => void;
  /**
   * The hub's shared scan threads: the wallet's scanner lives there instead of in a worker of its
   * own, and the main thread adopts its subaddress table from there instead of deriving it again.
   */
  readonly scanPool?: SharedScanPool;
  /** --detect-pool-spends: see WalletSyncOptions.poolSpends. */
  readonly poolSpends?: boolean;
  /**
   * Scan threads of this wallet's own (no scanPool): 2 scans each batch's halves at once
   * (ParallelScanWorker), 1 keeps one worker. Default 2 when the machine has 2 cores or more.
   */
  readonly scanThreads?: number;
}

/**
 * Where a refresh or rescan of a wallet is: `height` of `target` blocks while it runs; `end` once it
 * is over (`error` says why when it failed).
 */
export interface WalletProgress {
  readonly wallet: string;
  readonly kind: "refresh" | "rescan";
  readonly height: number;
  readonly target: number;
  readonly end: boolean;
  readonly error?: string;
}

export interface CreateWalletOptions extends OpenWalletOptions {
  readonly password: string;
  readonly keys: AccountKeys;
  readonly seedLanguage: string;
  readonly restoreHeight: bigint;
  readonly kdf?: KdfParams;
  /** A finished multisig member's state (a wallet restored from its multisig seed); multisig is then enabled. */
  readonly multisig?: MultisigKeysData;
}

/** A spend was asked of a wallet with no daemon (--offline, or set_daemon to nothing). */
export class NoDaemonError extends Error {
  constructor() {
    super("no connection to daemon: this wallet service runs offline; set a daemon with set_daemon or --daemon-address");
    this.name = "NoDaemonError";
  }
}

/** A spend asked of a multisig wallet: its transactions need the group's signatures (not built by this version). */
export class MultisigSpendError extends Error {
  constructor() {
    super("transfers from a multisig wallet are not available in this version of tsmonero-wallet-rpc: make the multisig_txset with monero-wallet-rpc for now");
    this.name = "MultisigSpendError";
  }
}

/** The wallet file is for another network than the service runs. */
export class WalletNetworkError extends Error {
  constructor(
    readonly fileNetwork: Network,
    readonly serviceNetwork: Network,
  ) {
    super(`the wallet is for ${fileNetwork}, this service runs ${serviceNetwork}`);
    this.name = "WalletNetworkError";
  }
}

/**
 * What needs the keys file of a wallet that has none (made with an empty filename): as wallet2,
 * whose verify_password then fails to read ".keys".
 */
export class InMemoryWalletError extends Error {
  constructor(readonly what: string) {
    super(`cannot ${what}: the wallet was made with an empty filename and lives in memory only, it has no keys file; restore it under a file name first`);
    this.name = "InMemoryWalletError";
  }
}

/** Lookaheads above this many keys (50 × 200 = 10,000 by default) are derived in the scan worker only. */
const BIG_LOOKAHEAD = 20_000;

/** wallet2's m_transfers.back().m_txid, "" when none. */
const lastTxid = (l: Ledger): string => l.state.transfers.at(-1)?.txid ?? "";

/**
 * The lock wallet2 takes on NAME.keys while a wallet is open (tools::file_locker): here a file
 * `.NAME.lock` holding the owner's pid, created exclusively and held open while the wallet is
 * (os/lockfile). A live process holding it refuses the open; a lock left by a dead process (kill
 * -9), or whose pid now belongs to a process not holding it, is taken over with a log line. Within
 * one process the lock is shared (counted), so a service may reopen the wallet it has open.
 */
const heldLocks = new Map<string, { file: HeldFile; count: number }>();

function lockWallet(dir: string, name: string, log: (msg: string) => void): () => void {
  const path = join(dir, `.${name}.lock`);
  let held = heldLocks.get(path);
  if (held === undefined) {
    let file: HeldFile;
    try {
      file = acquirePidLock(path, `wallet ${name}`, (m) => log(`wallet ${name}: ${m}`));
    } catch (e) {
      if (e instanceof LockHeldError) throw new WalletFileError(`wallet ${name} is open in another process (pid ${e.pid ?? "?"})`, path);
      if ((e as NodeJS.ErrnoException).code === "ENAMETOOLONG") throw new WalletFileError(`wallet file name too long: ${name.length} characters; use a shorter name`, path);
      throw new WalletFileError(`cannot lock wallet ${name}: ${(e as Error).message}`, path);
    }
    held = { file, count: 0 };
    heldLocks.set(path, held);
  }
  held.count++;
  const h = held;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--h.count > 0) return;
    heldLocks.delete(path);
    h.file.release();
  };
}

/** Networks whose wallets share address prefixes (regtest wallets are mainnet ones). */
function sameAddressNet(a: Network, b: Network): boolean {
  const n = (x: Network) => (x === "regtest" ? "mainnet" : x);
  return n(a) === n(b);
}

export class OpenWallet {
  readonly backend: CryptoBackend;
  /** The ledger; replaced by rescanBlockchain (read it through this property each time). */
  ledger: Ledger;
  private worker: WalletScanner | null = null;
  private sync: WalletSync | null = null;
  private node: NodeApi | null = null;
  private readonly deriver: SubaddressDeriver;
  private readonly addressCache = new Map<string, string>();
  private lookup: SubaddressLookahead | null = null;
  private closed = false;
  /** Tx ids announced through tx-notify (kept in the cache). */
  readonly notified: Set<string>;
  /** Serialises refreshes, rescans and daemon changes. */
  private chain: Promise<unknown> = Promise.resolve();
  private busy = 0;
  /** What the running sync is, for progress reports. */
  private syncKind: WalletProgress["kind"] = "refresh";

  private constructor(
    readonly opts: OpenWalletOptions,
    /** null for an in-memory wallet (no files: store does nothing, as wallet2::store with an empty m_wallet_file). */
    readonly files: WalletFiles<WalletCache> | null,
    readonly keysData: WalletKeysData,
    cache: WalletCache | null,
    private readonly unlock: () => void,
  ) {
    this.backend = opts.backend ?? defaultBackend();
    this.ledger = new Ledger(cache?.ledger ?? emptyLedgerState(0), opts.network === "regtest" ? "mainnet" : opts.network);
    this.notified = new Set(cache?.notified ?? []);
    this.deriver = new SubaddressDeriver(this.keys, this.backend);
    this.syncLabels();
    if (!this.adoptsTable) this.warmLookup();
  }

  /** The subaddress lookahead in use: the keys file's (set_subaddress_lookahead), else the service's, else wallet2's 50 × 200. */
  get subaddressLookahead(): { major: number; minor: number } {
    return this.keysData.subaddressLookahead ?? { major: this.opts.lookaheadMajor ?? 50, minor: this.opts.lookaheadMinor ?? 200 };
  }

  /**
   * A lookahead of more than BIG_LOOKAHEAD keys is derived once, in the scan worker; the main
   * thread adopts a copy of the worker's table (`adoptWorkerTable`) rather than deriving it again.
   */
  private get bigLookahead(): boolean {
    const l = this.subaddressLookahead;
    return l.major * l.minor > BIG_LOOKAHEAD;
  }

  /**
   * Whether the main thread takes its lookahead table from the scanner: always once a scan worker
   * is attached (it derives the same keys to scan with; deriving them twice cost a 1-core restore of
   * the 650-block bench chain about 0.5 s), and before that for a big lookahead or a hub wallet.
   */
  private get adoptsTable(): boolean {
    return this.worker !== null || this.bigLookahead || this.opts.scanPool !== undefined;
  }

  /** Takes a copy of the worker's lookahead table (already derived there) as the main thread's. */
  private async adoptWorkerTable(worker: WalletScanner): Promise<void> {
    const snap = await worker.snapshot();
    if (this.closed) return;
    this.lookupTable().adopt(snap);
  }

  /**
   * set_subaddress_lookahead (wallet2::set_subaddress_lookahead, 0.18.2+): new sizes, kept in the
   * keys file; grown ranges are derived in the scan worker (a million keys take ~11 s there on 2 cores, the
   * RPC waits for it) and the main thread adopts the worker's table. RangeError with wallet2's
   * words for a zero or too large size.
   */
  async setSubaddressLookahead(major: number, minor: number): Promise<void> {
    checkLookahead(major, minor);
    this.keysData.subaddressLookahead = { major, minor };
    const worker = this.worker;
    if (worker) {
      await worker.setLookahead(major, minor);
      if (this.adoptsTable) await this.adoptWorkerTable(worker);
      else this.lookupTable().setLookahead(major, minor);
    } else {
      this.lookupTable().setLookahead(major, minor);
    }
    if (!this.adoptsTable) this.warmLookup();
    this.files?.storeKeys(this.keysData);
  }

  /**
   * Derives the subaddress lookahead (50 × 200 keys, ~0.2 s) in slices of 256 keys between
   * event-loop turns while no scan worker is attached, so the first send or get_address_index
   * neither waits for it nor blocks other requests while it is built. Once a worker is attached it
   * stops: the worker's table is adopted instead.
   */
  private warmLookup(): void {
    const l = this.lookupTable();
    const step = (): void => {
      if (!this.closed && this.worker === null && !l.work(256)) setImmediate(step);
    };
    setImmediate(step);
  }

  private lookupTable(): SubaddressLookahead {
    const l = this.subaddressLookahead;
    // a big lookahead is adopted from the worker: start the main thread's with the default sizes, derived at once
    this.lookup ??= this.bigLookahead ? new SubaddressLookahead(this.keys, 50, 200, this.backend, true) : new SubaddressLookahead(this.keys, l.major, l.minor, this.backend, true);
    return this.lookup;
  }

  /**
   * Creates NAME.keys and NAME in `dir` (refuses to overwrite) and opens the wallet; with an empty
   * name the wallet lives in memory only and nothing is written (wallet2::generate with an empty path).
   */
  static async create(o: CreateWalletOptions): Promise<OpenWallet> {
    const keysData: WalletKeysData = {
      network: o.network,
      spendSecretKey: o.keys.spendSecretKey,
      viewSecretKey: o.keys.viewSecretKey,
      spendPublicKey: o.keys.spendPublicKey,
      viewPublicKey: o.keys.viewPublicKey,
      seedLanguage: o.seedLanguage,
      restoreHeight: o.restoreHeight,
      createdAt: BigInt(Math.floor(Date.now() / 1000)),
      user: emptyUserData(),
      ...(o.multisig ? { multisig: o.multisig, enableMultisig: true } : {}),
    };
    if (o.name === "") return new OpenWallet(o, null, keysData, null, () => undefined);
    const unlock = lockWallet(o.dir, o.name, o.log ?? ((m) => console.error(m)));
    try {
      const files = await WalletFiles.create<WalletCache>(o.dir, o.name, o.password, keysData, o.kdf ?? DEFAULT_KDF);
      const w = new OpenWallet(o, files, keysData, null, unlock);
      w.storeCacheOnly();
      return w;
    } catch (e) {
      unlock();
      throw e;
    }
  }

  /** Opens NAME.keys (WrongPasswordError on a wrong password) and its cache (a bad cache means a rescan). */
  static async open(o: OpenWalletOptions & { password: string }): Promise<OpenWallet> {
    const { files, keys } = await WalletFiles.open<WalletCache>(o.dir, o.name, o.password);
    if (!sameAddressNet(keys.network, o.network)) throw new WalletNetworkError(keys.network, o.network);
    const unlock = lockWallet(o.dir, o.name, o.log ?? ((m) => console.error(m)));
    const log = o.log ?? ((m) => console.error(m));
    let cache: WalletCache | null;
    try {
      cache = await files.loadCache();
      if (cache === null) log(`wallet cache missing: ${files.cachePath}, starting with empty blockchain (rebuilt by a rescan)`);
      else if (cache.version !== 1 || !cache.ledger || !Array.isArray(cache.ledger.transfers))
        throw new CorruptWalletFileError(files.cachePath, "not a wallet cache this version reads");
    } catch (e) {
      if (e instanceof CorruptWalletFileError && /another password/.test(e.message)) {
        // an interrupted change_wallet_password: the keys are readable, the cache is not
        log(`wallet cache ${files.cachePath} was sealed under the previous password; rebuilding it by a rescan`);
        cache = null;
      } else {
        // wallet2::load fails on a cache it cannot read (monero-wallet-rpc: -1 "Failed to open wallet")
        unlock();
        if (e instanceof CorruptWalletFileError) throw new CorruptWalletFileError(files.cachePath, `${e.message.replace(/^wallet file \S+ is corrupt: /, "")}; move it away to rebuild it by a rescan`);
        throw e;
      }
    }
    return new OpenWallet(o, files, keys, cache, unlock);
  }

  /**
   * The same wallet (files, lock, options) under new keys data: what make_multisig and
   * exchange_multisig_keys turn a wallet into. The keys file is rewritten at once; the ledger is
   * kept when the address did not change, else it starts empty (wallet2::clear and
   * setup_new_blockchain) with the labels of a new wallet. The caller installs the result and closes
   * this one.
   */
  static rekeyed(old: OpenWallet, keysData: WalletKeysData): OpenWallet {
    const sameAddress = Buffer.compare(old.keysData.spendPublicKey, keysData.spendPublicKey) === 0 && Buffer.compare(old.keysData.viewPublicKey, keysData.viewPublicKey) === 0;
    const log = old.opts.log ?? ((m) => console.error(m));
    const unlock = old.files ? lockWallet(old.opts.dir, old.opts.name, log) : () => undefined;
    const data: WalletKeysData = sameAddress
      ? keysData
      : { ...keysData, user: { ...emptyUserData(), txNotes: keysData.user.txNotes, attributes: keysData.user.attributes } };
    const w = new OpenWallet(old.opts, old.files, data, sameAddress ? old.cache() : null, unlock);
    w.store();
    return w;
  }

  /** wallet2's multisig(&ready, &threshold, &total). */
  get multisig(): MultisigStatus {
    return multisigStatus(this.keysData);
  }

  /** wallet2::enable_multisig (kept in the keys file, as wallet2 keeps enable_multisig). */
  setEnableMultisig(on: boolean): void {
    if (this.keysData.enableMultisig === on) return;
    this.keysData.enableMultisig = on;
    this.files?.storeKeys(this.keysData);
  }

  get name(): string {
    return this.opts.name;
  }
  /** The cache file's path (the wallet file, NAME); null for an in-memory wallet. */
  get filePath(): string | null {
    return this.files?.cachePath ?? null;
  }
  /** Whether the wallet has no files (made with an empty filename). */
  get inMemory(): boolean {
    return this.files === null;
  }
  get network(): Network {
    return this.opts.network;
  }
  get keys(): AccountKeys {
    const k = this.keysData;
    return { spendSecretKey: k.spendSecretKey, viewSecretKey: k.viewSecretKey, spendPublicKey: k.spendPublicKey, viewPublicKey: k.viewPublicKey };
  }
  get keyWallet(): KeyWallet {
    return { network: this.network, keys: this.keys, seedLanguage: this.keysData.seedLanguage };
  }
  get watchOnly(): boolean {
    return this.keysData.spendSecretKey === null;
  }
  get user(): WalletUserData {
    return this.keysData.user;
  }
  get restoreHeight(): number {
    return Number(this.keysData.restoreHeight);
  }
  get refreshing(): boolean {
    return this.busy > 0;
  }

  // ---- addresses and subaddress bookkeeping ----

  get accountCount(): number {
    return this.user.subaddressLabels.length;
  }

  subaddressCount(major: number): number {
    return this.user.subaddressLabels[major]?.length ?? 0;
  }

  /** The address string of (major, minor) (wallet2::get_subaddress_as_str), cached. */
  address(index: SubaddressIndex): string {
    const k = `${index.major}/${index.minor}`;
    let a = this.addressCache.get(k);
    if (a === undefined) {
      a =
        index.major === 0 && index.minor === 0
          ? primaryAddress(this.keys, this.network, this.backend)
          : this.deriver.address(this.network, index.major, index.minor);
      this.addressCache.set(k, a);
    }
    return a;
  }

  /** Integrated address of the primary address with an 8-byte payment id. */
  integratedAddress(paymentId: Bytes): string {
    return encodeAddress(this.network, "integrated", this.keys.spendPublicKey, this.keys.viewPublicKey, paymentId, this.backend);
  }

  /** The index of a spend public key among the wallet's subaddresses and their lookahead (wallet2::get_subaddress_index). */
  subaddressIndexOf(spendPublicKey: Bytes): SubaddressIndex | null {
    const lookup = this.lookupTable();
    this.user.subaddressLabels.forEach((l, major) => lookup.expand(major, Math.max(0, l.length - 1)));
    return lookup.table.get(spendPublicKey);
  }

  /** wallet2::expand_subaddresses for the labels: grow to include `index`. */
  private expandLabels(index: SubaddressIndex): boolean {
    const labels = this.user.subaddressLabels;
    let changed = false;
    while (labels.length <= index.major) {
      labels.push(["Untitled account"]);
      changed = true;
    }
    while (labels[index.major].length <= index.minor) {
      labels[index.major].push("");
      changed = true;
    }
    return changed;
  }

  /** Receipts grow the ledger's counts; the labels follow (and the ledger learns of created ones). */
  private syncLabels(): void {
    const counts = this.ledger.state.subaddressCounts;
    counts.forEach((n, major) => {
      if (n > 0) this.expandLabels({ major, minor: n - 1 });
    });
    this.user.subaddressLabels.forEach((l, major) => {
      while (counts.length <= major) counts.push(1);
      if (counts[major] < l.length) counts[major] = l.length;
    });
  }

  /** create_account: a new account labelled `label`; returns its index. */
  async addAccount(label: string): Promise<number> {
    const major = this.accountCount;
    this.expandLabels({ major, minor: 0 });
    this.user.subaddressLabels[major][0] = label;
    this.syncLabels();
    await this.worker?.expand(major, 0);
    return major;
  }

  /** create_address: a new subaddress of `major`; returns its minor index. */
  async addSubaddress(major: number, label: string): Promise<number> {
    const minor = this.subaddressCount(major);
    this.expandLabels({ major, minor });
    this.user.subaddressLabels[major][minor] = label;
    this.syncLabels();
    await this.worker?.expand(major, minor);
    return minor;
  }

  label(index: SubaddressIndex): string {
    return this.user.subaddressLabels[index.major]?.[index.minor] ?? "";
  }

  /** wallet2::get_account_tags: one tag per account ("" for none), and tag → description, made consistent. */
  accountTags(): { descriptions: Map<string, string>; tags: string[] } {
    const u = this.user;
    const tags: string[] = [];
    for (let i = 0; i < this.accountCount; i++) tags.push(u.accountTags[String(i)] ?? "");
    for (const t of tags) if (t !== "" && !(t in u.accountTagDescriptions)) u.accountTagDescriptions[t] = "";
    for (const t of Object.keys(u.accountTagDescriptions)) if (!tags.includes(t)) delete u.accountTagDescriptions[t];
    const descriptions = new Map(Object.keys(u.accountTagDescriptions).sort().map((t) => [t, u.accountTagDescriptions[t]]));
    return { descriptions, tags };
  }

  setAccountTag(accounts: readonly number[], tag: string): void {
    for (const a of accounts) {
      if (a >= this.accountCount) throw new RangeError("Account index out of bound");
    }
    for (const a of accounts) {
      if (tag === "") delete this.user.accountTags[String(a)];
      else this.user.accountTags[String(a)] = tag;
    }
    this.accountTags();
  }

  // ---- node, refresh ----

  /** Attaches a node (null = offline) and starts the scan worker. */
  attach(node: NodeApi | null): void {
    this.node = node;
    if (!this.worker && !this.closed) {
      const l = this.subaddressLookahead;
      const m = this.keysData.multisig;
      const keys = {
        ...this.keys,
        // a multisig wallet scans with its share of the spend key: partial key images (wallet2 m_key_image_partial)
        ...(m ? { multisig: true, spendSecretKey: m.keys.reduce((acc, k) => this.backend.scAdd(acc, k), new Uint8Array(32)) } : {}),
        lookaheadMajor: l.major,
        lookaheadMinor: l.minor,
        subaddressCounts: this.user.subaddressLabels.map((x) => x.length),
      };
      const threads = this.opts.scanThreads ?? Math.min(2, availableParallelism());
      this.worker = this.opts.scanPool ? this.opts.scanPool.register(keys) : threads >= 2 ? new ParallelScanWorker(keys) : new ScanWorker(keys);
      if (this.adoptsTable)
        this.adoptWorkerTable(this.worker).catch((e: unknown) => (this.opts.log ?? console.error)(`wallet ${this.name}: subaddress table: ${e instanceof Error ? e.message : String(e)}`));
    }
    this.sync = node && this.worker ? this.makeSync(node, this.worker) : null;
  }

  private makeSync(node: NodeApi, worker: WalletScanner): WalletSync {
    const report = this.opts.progress;
    const onProgress = report ? (p: SyncProgress) => report({ wallet: this.name, kind: this.syncKind, height: p.height, target: p.target, end: false }) : undefined;
    return new WalletSync({ node, ledger: this.ledger, scanner: worker, restoreHeight: this.restoreHeight, countSplitBlock: false, poolSpends: this.opts.poolSpends ?? false, ...(onProgress ? { onProgress } : {}) });
  }

  /** Runs a sync (refresh or rescan) telling `progress` when it ends. */
  private async reported(kind: WalletProgress["kind"], f: () => Promise<RefreshResult>): Promise<RefreshResult> {
    this.syncKind = kind;
    const report = this.opts.progress;
    try {
      const r = await f();
      report?.({ wallet: this.name, kind, height: this.ledger.height, target: this.ledger.height, end: true });
      return r;
    } catch (e) {
      report?.({ wallet: this.name, kind, height: this.ledger.height, target: this.ledger.height, end: true, error: e instanceof Error ? e.message : String(e) });
      throw e;
    }
  }

  /** Runs `f` after whatever refresh/rescan is under way (one at a time). */
  private serial<T>(f: () => Promise<T>): Promise<T> {
    const p = this.chain.then(f, f);
    this.chain = p.catch(() => undefined);
    return p;
  }

  /** The node this wallet talks to, if any. */
  nodeApi(): NodeApi | null {
    return this.node;
  }

  /** Changes the node (set_daemon) once the running refresh is over. */
  setNode(node: NodeApi | null): Promise<void> {
    return this.serial(async () => {
      this.attach(node);
    });
  }

  /**
   * refresh: brings the ledger to the node's top (joins a refresh under way). `startHeight` above the
   * ledger's height skips the blocks in between (wallet2 refresh(start_height) on an empty wallet).
   */
  refresh(startHeight = 0): Promise<RefreshResult> {
    if (this.closed) return Promise.reject(new Error("wallet closed"));
    if (!this.sync) return Promise.resolve({ blocks_fetched: 0, received_money: false }); // --offline
    this.busy++;
    return this.serial(async () => {
      try {
        const sync = this.sync;
        if (!sync) return { blocks_fetched: 0, received_money: false };
        const st = this.ledger.state;
        const before = lastTxid(this.ledger);
        if (startHeight > st.height && st.hashTail.length === 0 && st.transfers.length === 0) {
          st.height = startHeight;
          st.hashTailStart = startHeight;
        }
        const fromGenesis = st.height === 0 && this.restoreHeight === 0;
        return this.monerosCounts(await this.reported("refresh", () => sync.refresh()), fromGenesis, before);
      } finally {
        this.busy--;
      }
    });
  }

  /** The pool view only (get_transfers pool=true, get_transfer_by_txid); failures keep the last view. */
  async updatePool(): Promise<void> {
    if (!this.sync || this.busy > 0) return;
    try {
      await this.sync.updatePool();
    } catch {
      // the node is away: the last pool view stays
    }
  }

  /**
   * refresh's answer as wallet2 counts: its chain starts with genesis, so a refresh from height 0
   * does not count genesis; received_money says whether the last owned output changed.
   */
  private monerosCounts(r: RefreshResult, fromGenesis: boolean, lastBefore: string): RefreshResult {
    this.syncLabels();
    const genesis = fromGenesis && r.blocks_fetched > 0 ? 1 : 0;
    return { blocks_fetched: r.blocks_fetched - genesis, received_money: lastTxid(this.ledger) !== lastBefore };
  }

  /** rescan_blockchain: forgets the chain data and refreshes from the restore height. */
  rescanBlockchain(): Promise<RefreshResult> {
    this.busy++;
    return this.serial(async () => {
      try {
        this.ledger = new Ledger(emptyLedgerState(0), this.ledger.network);
        this.syncLabels();
        if (this.node && this.worker) this.sync = this.makeSync(this.node, this.worker);
        const sync = this.sync;
        return sync ? this.monerosCounts(await this.reported("rescan", () => sync.refresh()), this.restoreHeight === 0, "") : { blocks_fetched: 0, received_money: false };
      } finally {
        this.syncLabels();
        this.busy--;
      }
    });
  }

  /** Scans given transactions (scan_tx): mined ones enter the ledger at their height, pool ones as pool payments. */
  scanTxs(txs: readonly { blob: Bytes; txid: Bytes; height: number; timestamp: bigint; inPool: boolean; outputIndices: bigint[] }[]): Promise<void> {
    return this.serial(async () => {
      if (!this.worker) throw new Error("no scan worker (the wallet is closed)");
      const scanned = await this.worker.scanPool(txs.map((t) => ({ blob: t.blob, txid: t.txid })));
      const order = txs.map((t, i) => ({ t, s: scanned[i] })).sort((a, b) => a.t.height - b.t.height);
      for (const { t, s } of order) {
        if (t.inPool || t.height >= this.ledger.height) continue; // the next refresh brings it
        // wallet2::scan_tx calls process_new_transaction with miner_tx false: a coinbase counts as an ordinary tx
        const withIdx = { ...s, coinbase: false, received: s.received.map((r) => ({ ...r, globalIndex: t.outputIndices[r.index] ?? r.globalIndex })) };
        this.ledger.applyTx(withIdx, t.height, t.timestamp);
      }
      this.syncLabels();
    });
  }

  /**
   * Transactions that paid the wallet not announced yet; marks them announced. As wallet2, a tx is
   * announced when seen in the pool and again when mined (pool ones are kept as "pool:<txid>").
   */
  takeNewIncoming(): string[] {
    // a Set keeps the first-seen order; a list searched per entry made a restore's first call quadratic
    // (46,580 payments: 4.5 s)
    const out = new Set<string>();
    const take = (key: string, txid: string) => {
      if (this.notified.has(key)) return;
      this.notified.add(key);
      out.add(txid);
    };
    for (const p of this.ledger.state.pool) take(`pool:${p.txid}`, p.txid);
    for (const p of this.ledger.state.payments) take(p.txid, p.txid);
    return [...out];
  }

  /** Marks everything received so far as announced (a wallet opened or restored announces nothing old). */
  markAllNotified(): void {
    this.takeNewIncoming();
  }

  // ---- files ----

  private cache(): WalletCache {
    return { version: 1, ledger: this.ledger.state, notified: [...this.notified] };
  }

  private storeCacheOnly(): void {
    this.files?.storeCache(this.cache());
  }

  /**
   * store: both files, each atomically (keys first: a kill between the two leaves an older but whole
   * cache). An in-memory wallet stores nothing and succeeds (wallet2::store with no file name).
   */
  store(): void {
    if (!this.files) return;
    this.files.storeKeys(this.keysData);
    this.files.storeCache(this.cache());
  }

  /** change_wallet_password: rewrites both files under the new password (an in-memory wallet has none: InMemoryWalletError). */
  async changePassword(newPassword: string): Promise<void> {
    if (!this.files) throw new InMemoryWalletError("change the password");
    await this.files.changePassword(newPassword, this.keysData, this.cache());
  }

  /** Whether `password` opens this wallet's keys file (an in-memory wallet has none: InMemoryWalletError). */
  async verifyPassword(password: string): Promise<boolean> {
    if (!this.files) throw new InMemoryWalletError("check the password");
    try {
      await WalletFiles.open(this.opts.dir, this.opts.name, password);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Stops the worker (a refresh under way then fails at its next scan; nothing it did after the
   * last store is kept). Does not store.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unlock();
    this.sync = null;
    const w = this.worker;
    this.worker = null;
    await w?.close();
  }

  /**
   * Runs a spend with the ledger held still: no refresh, rescan or scan_tx runs until `f` is done, so
   * the transfer indices a plan refers to keep their meaning, and two spends never pick the same
   * outputs (the second sees the first's key images spent). What `f` sent is stored at once.
   */
  spend<T>(f: (ctx: SpendContext) => Promise<T>): Promise<T> {
    return this.serial(async () => {
      if (this.closed) throw new Error("wallet closed");
      if (!this.node) throw new NoDaemonError();
      if (this.keysData.multisig && !this.multisig.ready) throw new MultisigSpendError();
      const pendingBefore = this.ledger.state.pending.length;
      const ms = this.keysData.multisig ? this.multisigSpend() : undefined;
      const ctx: SpendContext = { ...this.heldContext(), node: this.node, ...(ms ? { multisig: ms } : {}) };
      try {
        return await f(ctx);
      } finally {
        if (this.ledger.state.pending.length !== pendingBefore) this.persistAfterSend();
      }
    });
  }

  /** What spends, exports and signing see of the wallet while they hold the ledger still. */
  private heldContext(): ColdContext {
    return {
      node: this.node,
      ledger: this.ledger,
      keys: this.keys,
      deriver: this.deriver,
      network: this.network,
      backend: this.backend,
      now: BigInt(Math.floor(Date.now() / 1000)),
      address: (i) => this.address(i),
      subaddressIndexOf: (k) => this.subaddressIndexOf(k),
    };
  }

  /**
   * Runs an export, import or signing with the ledger held still, with or without a node (an offline
   * signing wallet has none), and stores the cache afterwards when `f` changed the ledger (`changes`).
   */
  exclusive<T>(changes: boolean, f: (ctx: ColdContext) => Promise<T>): Promise<T> {
    return this.serial(async () => {
      if (this.closed) throw new Error("wallet closed");
      const ctx = this.heldContext();
      try {
        return await f(ctx);
      } finally {
        if (changes) {
          this.syncLabels();
          this.storeCacheOnly();
        }
      }
    });
  }

  /** The signer side of this multisig wallet (keys, group, subaddresses). */
  multisigSigner(): MultisigSigner {
    const m = this.keysData.multisig;
    const spend = this.keysData.spendSecretKey;
    if (!m || !spend) throw new MultisigError("Wallet is not multisig");
    const b = this.backend;
    return {
      backend: b,
      threshold: m.threshold,
      signers: m.signers,
      self: b.scalarMultBase(spend),
      viewSecretKey: this.keysData.viewSecretKey,
      spendPublicKey: this.keysData.spendPublicKey,
      multisigKeys: m.keys,
      subaddress: (major, minor) => ({ ...this.deriver.publicKeys(major, minor), secret: major === 0 && minor === 0 ? new Uint8Array(32) : this.deriver.secretKey(major, minor) }),
    };
  }

  /** What a multisig proposal reads: the signer, and per transfer its full key image and the others' L/R pairs. */
  private multisigSpend(): MultisigSpend {
    const signer = this.multisigSigner();
    const unhex = (h: string) => Uint8Array.from(Buffer.from(h, "hex"));
    return {
      signer,
      output: (i): MultisigOutput | null => {
        const t = this.ledger.state.transfers[i];
        const full = t && this.ledger.state.multisigKeyImages?.[t.publicKey];
        if (!t || !full) return null;
        const infos = (this.ledger.state.multisigInfos?.[t.publicKey] ?? []).map((x) => ({ signer: unhex(x.signer), lr: x.lr.map(([L, R]) => ({ L: unhex(L), R: unhex(R) })) }));
        return { publicKey: unhex(t.publicKey), keyImage: unhex(full), infos };
      },
      keyImageKnown: (i) => {
        const t = this.ledger.state.transfers[i];
        return !!t && !!this.ledger.state.multisigKeyImages?.[t.publicKey];
      },
    };
  }

  /** save_multisig_tx's wipe: the exported nonces of these transfers are gone; stored at once. */
  dropMultisigNonces(transfers: readonly number[]): void {
    const n = this.ledger.state.multisigNonces;
    if (!n) return;
    for (const i of transfers) {
      const t = this.ledger.state.transfers[i];
      if (t) delete n[t.publicKey];
    }
    this.storeCacheOnly();
  }

  /** This multisig wallet's share of the spend key: the sum of its multisig keys. */
  private multisigShare(): Bytes {
    const m = this.keysData.multisig;
    if (!m) throw new MultisigError("Wallet is not multisig");
    return m.keys.reduce((acc, k) => this.backend.scAdd(acc, k), new Uint8Array(32));
  }

  /**
   * export_multisig: this signer's info for every output (partial key images and fresh nonces); the
   * nonces replace the ones exported before (an earlier signing attempt can no longer be signed).
   */
  exportMultisig(): Promise<Bytes> {
    return this.exclusive(true, async () => {
      const m = this.keysData.multisig;
      const spend = this.keysData.spendSecretKey;
      if (!m || !spend) throw new MultisigError("Wallet is not multisig");
      const transfers = this.ledger.state.transfers;
      const { blob, nonces } = await exportMultisigInfo(
        {
          backend: this.backend,
          spendPublicKey: this.keysData.spendPublicKey,
          viewPublicKey: this.keysData.viewPublicKey,
          viewSecretKey: this.keysData.viewSecretKey,
          basePrivkey: spend,
          multisigKeys: m.keys,
          threshold: m.threshold,
          total: m.signers.length,
        },
        transfers.map((t) => Uint8Array.from(Buffer.from(t.publicKey, "hex"))),
      );
      const kept: Record<string, string[]> = {};
      transfers.forEach((t, i) => (kept[t.publicKey] = nonces[i]));
      this.ledger.state.multisigNonces = kept;
      return blob;
    });
  }

  /**
   * import_multisig: the other signers' infos give each output its full key image; the chain is
   * scanned again from the first output that had a partial one (detach_blockchain + refresh), so
   * spends of the group's outputs are seen. Everything is checked before anything changes. Returns
   * how many outputs were updated.
   */
  importMultisig(blobs: readonly Bytes[]): Promise<number> {
    return this.serial(async () => {
      if (this.closed) throw new Error("wallet closed");
      const m = this.keysData.multisig;
      const spend = this.keysData.spendSecretKey;
      if (!m || !spend) throw new MultisigError("Wallet is not multisig");
      const b = this.backend;
      const self = b.scalarMultBase(spend);
      const seen = new Set<string>();
      const infos: ImportedInfo[] = [];
      for (const [i, blob] of blobs.entries()) {
        const r = await parseMultisigInfo(b, this.keysData, blob, `info[${i}]`);
        const id = bytesToHex(r.signer);
        if (Buffer.compare(r.signer, self) === 0 || seen.has(id)) continue; // own or duplicate info: ignored, as wallet2
        seen.add(id);
        infos.push(r);
      }
      if (!(infos.length + 1 <= m.signers.length && infos.length + 1 >= m.threshold))
        throw new MultisigError(
          `Wrong number of multisig sources: ${infos.length} other signer(s) given, between ${m.threshold - 1} and ${m.signers.length - 1} needed (own and repeated infos do not count)`,
        );
      const transfers = this.ledger.state.transfers;
      const n = Math.min(transfers.length, ...infos.map((x) => x.infos.length));
      if (n === 0) return 0;
      for (const x of infos) {
        if (!m.signers.some((s) => Buffer.compare(s, x.infos[0].signer) === 0)) throw new MultisigError("Signer is not a member of this multisig wallet");
        for (let i = 1; i < n; i++) if (Buffer.compare(x.infos[i].signer, x.infos[0].signer) !== 0) throw new MultisigError("Mismatched signers in imported multisig info");
      }
      const share = this.multisigShare();
      const full: Record<string, string> = { ...(this.ledger.state.multisigKeyImages ?? {}) };
      const others: Record<string, { signer: string; lr: [string, string][]; partialKeyImages: string[] }[]> = { ...(this.ledger.state.multisigInfos ?? {}) };
      let detach: number | null = null;
      for (let i = 0; i < n; i++) {
        const t = transfers[i];
        if (!t.txPubKey) throw new MultisigError(`output ${t.txid}:${t.internalIndex} has no recorded tx key; rescan_blockchain first`);
        const P = Uint8Array.from(Buffer.from(t.publicKey, "hex"));
        const d = b.generateKeyDerivation(Uint8Array.from(Buffer.from(t.txPubKey, "hex")), this.keysData.viewSecretKey);
        if (!d) throw new MultisigError(`output ${t.txid}:${t.internalIndex}: bad tx key`);
        let x = b.deriveSecretKey(d, t.internalIndex, share);
        if (t.subaddress.major !== 0 || t.subaddress.minor !== 0) x = b.scAdd(x, this.deriver.secretKey(t.subaddress.major, t.subaddress.minor));
        const mine = b.generateKeyImage(P, x);
        const list = infos.map((inf) => inf.infos[i]);
        if (detach === null && full[t.publicKey] === undefined) detach = t.blockHeight;
        full[t.publicKey] = bytesToHex(compositeKeyImage(b, P, mine, m.keys, list));
        others[t.publicKey] = list.map((inf) => ({ signer: bytesToHex(inf.signer), lr: inf.lr.map((p) => [bytesToHex(p.L), bytesToHex(p.R)] as [string, string]), partialKeyImages: inf.partialKeyImages.map(bytesToHex) }));
      }
      // nothing changed before this point
      const st = this.ledger.state;
      st.multisigKeyImages = full;
      st.multisigInfos = others;
      if (detach !== null && detach >= st.hashTailStart) this.ledger.rollback(detach);
      else if (detach !== null) {
        const fresh = emptyLedgerState(0);
        this.ledger = new Ledger({ ...fresh, txKeys: st.txKeys, coldKeyImages: st.coldKeyImages, multisigKeyImages: full, multisigInfos: others, multisigNonces: st.multisigNonces }, this.ledger.network);
        if (this.node && this.worker) this.sync = this.makeSync(this.node, this.worker);
      } else for (let i = 0; i < n; i++) this.ledger.setKeyImage(i, full[transfers[i].publicKey], false);
      const sync = this.sync;
      if (sync) await sync.refresh();
      this.syncLabels();
      this.storeCacheOnly();
      return n;
    });
  }

  /** Keeps what a send recorded (tx keys, spent outputs) across a crash. */
  private persistAfterSend(): void {
    this.storeCacheOnly();
  }

  /** Key images (hex) of unspent transfers, etc. — used by rescan_spent. */
  keyImageList(): { index: number; keyImage: string }[] {
    return this.ledger.state.transfers.map((t, index) => ({ index, keyImage: t.keyImage })).filter((x) => x.keyImage !== "");
  }
}
