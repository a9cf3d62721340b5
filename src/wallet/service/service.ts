/**
 * The wallet service behind one RPC server, as monero-wallet-rpc is (src/wallet/wallet_rpc_server.cpp):
 * at most one open wallet, wallet files in `walletDir`, a node (or none, --offline), background
 * refresh every `autoRefreshPeriod` seconds (DEFAULT_AUTO_REFRESH_PERIOD = 20), tx-notify, and the
 * life-cycle calls (create/open/close/restore/generate_from_keys/store/change_wallet_password/stop).
 * Several services can live in one process: nothing here is global.
 *
 * Failures are thrown as `WalletError` with monero-wallet-rpc's message (where Monero's message
 * hides the reason, the reason is appended after a colon); wallet/rpc/errors.ts gives each its code.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type NodeApi, NodeClient, type SslOptions } from "../../client/node-client.js";
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { randomScalar } from "../../crypto/random.js";
import { Notify } from "../../os/notify.js";
import type { Network } from "../../protocol/network.js";
import { DEFAULT_KDF, type KdfParams, type MultisigKeysData, WalletFileError, WrongPasswordError } from "../files/index.js";
import { primaryAddress } from "../keys/account.js";
import { isHex } from "../../base/bytes.js";
import { keysFromMultisigSeed } from "../multisig/kex.js";
import { MultisigError } from "../multisig/kex-msg.js";
import {
  checkCreateLanguage,
  createWallet,
  generateFromKeys,
  restoreDeterministicWallet,
  WalletRpcMessages,
} from "../keys/rpc.js";
import { WalletError } from "../errors.js";
import type { SharedScanPool } from "../scan/shared.js";
import type { RefreshResult } from "../sync/index.js";
import { InMemoryWalletError, OpenWallet, WalletNetworkError, type WalletProgress } from "./wallet.js";

/** DEFAULT_AUTO_REFRESH_PERIOD (seconds). */
export const DEFAULT_AUTO_REFRESH_PERIOD = 20;

export type WalletChange = "open" | "refresh" | "close";
export type WalletListener = (w: OpenWallet, why: WalletChange) => void;

export interface WalletServiceOptions {
  readonly network: Network;
  /** --wallet-dir: where create/open/restore put and find files; absent → those calls answer -23. */
  readonly walletDir?: string;
  /** The node; null when --offline. */
  readonly node: NodeApi | null;
  /** Whether the daemon is trusted (start_mining needs it). */
  readonly trusted?: boolean;
  /** Builds a node client for set_daemon (default: a NodeClient for the address). */
  readonly connect?: (o: { address: string; login?: string; trusted: boolean; ssl?: SslOptions }) => NodeApi;
  /** Password KDF for new files (tests use a cheap one). */
  readonly kdf?: KdfParams;
  /** --tx-notify: a program and its arguments, "%s" replaced by the txid. */
  readonly txNotify?: string;
  /** Spends of the wallet's outputs by pool txs it did not send become pending txs (master daded368; off: as every released monero-wallet-rpc). */
  readonly poolSpends?: boolean;
  /** Seconds between background refreshes; 0 = off. Default 20. */
  readonly autoRefreshPeriod?: number;
  readonly backend?: CryptoBackend;
  readonly lookaheadMajor?: number;
  readonly lookaheadMinor?: number;
  readonly log?: (msg: string) => void;
  /** Told how each refresh and rescan advances (the command-line tools show progress); must not throw. */
  readonly progress?: (p: WalletProgress) => void;
  /** The hub's shared scan threads (a hub wallet's service scans there, not in a worker of its own). */
  readonly scanPool?: SharedScanPool;
  /** Scan threads of each wallet that has its own (OpenWalletOptions.scanThreads). */
  readonly scanThreads?: number;
}

const DEFAULT_DAEMON_PORT: Record<Network, number> = { mainnet: 18081, testnet: 28081, stagenet: 38081, regtest: 18081 };

/** A node URL from what set_daemon and --daemon-address accept: host:port, host, or a URL ("" = localhost). */
export function daemonUrl(address: string, network: Network, ssl = false): string {
  const a = address === "" ? `localhost:${DEFAULT_DAEMON_PORT[network]}` : address;
  if (/^https?:\/\//.test(a)) return a;
  return `${ssl ? "https" : "http"}://${/:\d+$/.test(a) ? a : `${a}:${DEFAULT_DAEMON_PORT[network]}`}`;
}

const notOpen = (): WalletError => new WalletError("not-open", "No wallet file");

/** Longest wallet name, bytes: 255 less what the wallet adds to it in its files' names. */
export const MAX_WALLET_NAME_BYTES = 228;

export class WalletService {
  private current: OpenWallet | null = null;
  private node: NodeApi | null;
  private trustedDaemon: boolean;
  private timer: NodeJS.Timeout | null = null;
  private lastAutoRefresh = 0;
  private autoRefreshPeriod: number;
  private stopping: Promise<void> | null = null;
  private readonly backend: CryptoBackend;
  private readonly log: (msg: string) => void;
  /** Called once stop_wallet has stored the wallet (the CLI exits). */
  onStop: (() => void) | null = null;

  private txNotifier: Notify | undefined;
  private readonly listeners = new Set<WalletListener>();
  /** A refresh's store and "refresh" listeners, waiting for its answer to be written (afterRefresh). */
  private afterRefreshPending: { w: OpenWallet; store: boolean; timer: NodeJS.Immediate } | null = null;

  /**
   * Tells `f` when a wallet becomes the open one ("open"), after each refresh or rescan of it (once
   * stored: "refresh") and when it is closed ("close"). Listeners must not throw (a throw is logged).
   * Returns the function that removes it.
   */
  onWallet(f: WalletListener): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  private tell(w: OpenWallet, why: WalletChange): void {
    for (const f of this.listeners) {
      try {
        f(w, why);
      } catch (e) {
        this.log(`wallet ${why} listener: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  constructor(readonly opts: WalletServiceOptions) {
    this.node = opts.node;
    this.trustedDaemon = opts.trusted ?? false;
    this.autoRefreshPeriod = opts.autoRefreshPeriod ?? DEFAULT_AUTO_REFRESH_PERIOD;
    this.backend = opts.backend ?? defaultBackend();
    this.log = opts.log ?? ((m) => console.error(m));
  }

  get network(): Network {
    return this.opts.network;
  }
  get offline(): boolean {
    return this.node === null;
  }
  get trusted(): boolean {
    return this.trustedDaemon;
  }
  get daemon(): NodeApi | null {
    return this.node;
  }
  get walletDir(): string | undefined {
    return this.opts.walletDir;
  }

  /** The open wallet, or -13 "No wallet file". */
  wallet(): OpenWallet {
    if (!this.current) throw notOpen();
    return this.current;
  }
  get hasWallet(): boolean {
    return this.current !== null;
  }

  /** Starts the background refresh timer (monero-wallet-rpc's idle handler, checked every second). */
  start(): void {
    if (this.timer) return;
    // monero-wallet-rpc starts from min_date_time: the first wallet opened refreshes at the next tick
    this.timer = setInterval(() => this.tick(), 1000);
    this.timer.unref();
  }

  private tick(): void {
    const w = this.current;
    if (!w || this.autoRefreshPeriod === 0 || w.refreshing || this.stopping) return;
    if (Date.now() < this.lastAutoRefresh + this.autoRefreshPeriod * 1000) return;
    this.refresh(w)
      .catch((e: unknown) => this.log(`auto refresh: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        this.lastAutoRefresh = Date.now();
      });
  }

  /** auto_refresh: enable with a period (0 → the default 20 s) or disable. */
  setAutoRefresh(enable: boolean, period: number): void {
    this.autoRefreshPeriod = enable ? (period === 0 ? DEFAULT_AUTO_REFRESH_PERIOD : period) : 0;
  }
  get autoRefreshSeconds(): number {
    return this.autoRefreshPeriod;
  }

  /** refresh (the RPC, the timer and the initial sync): then tx-notify, and (right after the answer: afterRefresh) a store when blocks came. */
  async refresh(w: OpenWallet = this.wallet(), startHeight = 0): Promise<RefreshResult> {
    const r = await w.refresh(startHeight);
    this.afterRefresh(w, r);
    return r;
  }

  /** rescan_blockchain. */
  async rescanBlockchain(): Promise<void> {
    const w = this.wallet();
    const r = await w.rescanBlockchain();
    this.afterRefresh(w, r);
  }

  private afterRefresh(w: OpenWallet, r: RefreshResult): void {
    if (w !== this.current) return;
    const fresh = w.takeNewIncoming();
    if (this.opts.txNotify) for (const txid of fresh) this.notify(txid);
    const store = r.blocks_fetched > 0 || fresh.length > 0;
    // The store and the "refresh" listeners (the events' derive) run right after the refresh's
    // answer is written, in the same turn of the event loop: a client's next request still finds
    // both done, but the answer does not wait for them (monero-wallet-rpc stores nothing after a
    // refresh; on a wallet with 14,000 outputs they are ~0.5 s of CPU). Closing or switching the
    // wallet runs a pending one first (flushAfterRefresh).
    if (this.afterRefreshPending) {
      this.afterRefreshPending.store ||= store;
      return;
    }
    this.afterRefreshPending = { w, store, timer: setImmediate(() => this.flushAfterRefresh()) };
  }

  /**
   * The pending store and "refresh" listeners of the last refresh (afterRefresh), now.
   * `storeFollows`: the caller stores that wallet right after (close_wallet with autosave_current,
   * stop), so its store is left to the caller instead of writing the same files twice.
   */
  private flushAfterRefresh(storeFollows = false): void {
    const p = this.afterRefreshPending;
    if (!p) return;
    this.afterRefreshPending = null;
    clearImmediate(p.timer);
    if (p.store && !storeFollows) {
      try {
        p.w.store();
      } catch (e) {
        this.log(`store after refresh: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (p.w === this.current) this.tell(p.w, "refresh");
  }

  /** tools::Notify (os/notify.ts): the spec split on blanks, "%s" replaced by the txid, run without a shell nor waiting. */
  private notify(txid: string): void {
    const spec = this.opts.txNotify ?? "";
    try {
      this.txNotifier ??= new Notify(spec, (m) => this.log(`tx-notify: ${m}`));
      this.txNotifier.run([["%s", txid]]);
    } catch (e) {
      this.log(`tx-notify: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  // ---- wallet files ----

  private dir(): string {
    if (!this.opts.walletDir) throw new WalletError("no-wallet-dir", "No wallet dir configured");
    return this.opts.walletDir;
  }

  /**
   * A file name in the wallet dir ("" = a wallet in memory only). "." and ".." name the directory,
   * which exists: the callers answer what monero-wallet-rpc answers for an existing file.
   */
  private static checkFilename(name: string): void {
    if (name.includes("/")) throw new WalletError("failed", "Invalid filename");
    // file names are at most 255 bytes and ours add up to 27 (".NAME.keys.tmp-PID-xxxxxxxx")
    const bytes = Buffer.byteLength(name, "utf8");
    if (bytes > MAX_WALLET_NAME_BYTES)
      throw new WalletError("failed", `Invalid filename: file name too long (${bytes} bytes; wallet names may have at most ${MAX_WALLET_NAME_BYTES})`);
  }

  private walletOptions(name: string) {
    return {
      dir: this.dir(),
      name,
      network: this.network,
      backend: this.backend,
      lookaheadMajor: this.opts.lookaheadMajor,
      lookaheadMinor: this.opts.lookaheadMinor,
      log: this.log,
      ...(this.opts.progress ? { progress: this.opts.progress } : {}),
      ...(this.opts.scanPool ? { scanPool: this.opts.scanPool } : {}),
      ...(this.opts.scanThreads !== undefined ? { scanThreads: this.opts.scanThreads } : {}),
      poolSpends: this.opts.poolSpends ?? false,
    };
  }

  /** Stores the open wallet (autosave_current), answering store's errors. */
  private autosave(): void {
    if (!this.current) return;
    try {
      this.current.store();
    } catch (e) {
      throw new WalletError("failed", e instanceof Error ? e.message : String(e));
    }
  }

  /** Makes `next` (the open wallet under new keys, OpenWallet.rekeyed) the open wallet and closes the old one. */
  async replaceWallet(next: OpenWallet): Promise<void> {
    await this.install(next);
  }

  /** Makes `w` the open wallet, closing the previous one (not stored here). */
  private async install(w: OpenWallet): Promise<void> {
    this.flushAfterRefresh();
    const old = this.current;
    this.current = w;
    w.attach(this.node);
    if (old) {
      this.tell(old, "close");
      await old.close();
    }
    this.tell(w, "open");
  }

  private async nodeHeight(): Promise<bigint> {
    if (!this.node) return 0n;
    try {
      return (await this.node.getHeight({ timeoutMs: 5000 })).height;
    } catch {
      return 0n;
    }
  }

  private fileExists(name: string): boolean {
    if (name === "") return false; // an in-memory wallet
    if (name === "." || name === "..") return true; // the directory itself
    const p = join(this.dir(), name);
    return existsSync(p) || existsSync(`${p}.keys`);
  }

  /** create_wallet. */
  async createWallet(p: { filename: string; password: string; language: string }): Promise<void> {
    this.dir();
    WalletService.checkFilename(p.filename);
    checkCreateLanguage(p.language);
    // wallet2::generate finds "DIR/." existing
    if (p.filename === "." || p.filename === "..") throw new WalletError("already-exists", "Cannot create wallet. Already exists.");
    const kw = createWallet({ language: p.language }, this.network, randomScalar(this.backend), this.backend);
    const restoreHeight = await this.nodeHeight();
    let w: OpenWallet;
    try {
      w = await OpenWallet.create({ ...this.walletOptions(p.filename), password: p.password, keys: kw.keys, seedLanguage: kw.seedLanguage, restoreHeight, kdf: this.opts.kdf ?? DEFAULT_KDF });
    } catch (e) {
      if (e instanceof WalletFileError && /already exists/.test(e.message))
        throw new WalletError("already-exists", "Cannot create wallet. Already exists.");
      throw new WalletError("failed", e instanceof Error ? e.message : String(e));
    }
    try {
      this.autosave();
    } catch (e) {
      await w.close();
      throw e;
    }
    await this.install(w);
  }

  /**
   * open_wallet. monero-wallet-rpc answers -1 "Failed to open wallet" whatever the reason (clients
   * match that text); the reason goes to the log.
   */
  async openWallet(p: { filename: string; password: string; autosave_current: boolean }): Promise<void> {
    this.dir();
    if (p.filename.includes("/")) throw new WalletError("failed", "Invalid filename");
    if (p.autosave_current) this.autosave();
    let w: OpenWallet;
    try {
      if (p.filename === "" || p.filename === "." || p.filename === "..") throw new WalletFileError("no wallet file name was given", this.dir());
      WalletService.checkFilename(p.filename); // a name too long for the file system says so in the log
      w = await OpenWallet.open({ ...this.walletOptions(p.filename), password: p.password });
    } catch (e) {
      const why =
        e instanceof WrongPasswordError ? "invalid password" : e instanceof WalletNetworkError || e instanceof WalletFileError || e instanceof WalletError ? e.message : String(e);
      this.log(`open_wallet ${JSON.stringify(p.filename)}: Failed to open wallet: ${why}`);
      // the answer says no more (clients match it); in-process callers find the reason in `cause`
      throw new WalletError("failed", "Failed to open wallet", new Error(why));
    }
    await this.install(w);
  }

  /** close_wallet. */
  async closeWallet(p: { autosave_current: boolean }): Promise<void> {
    const w = this.wallet();
    this.flushAfterRefresh(p.autosave_current);
    if (p.autosave_current) this.autosave();
    this.current = null;
    this.tell(w, "close");
    await w.close();
  }

  /** store. */
  store(): void {
    this.wallet();
    this.autosave();
  }

  /**
   * change_wallet_password. An in-memory wallet has no keys file: monero-wallet-rpc's verify_password
   * then throws out of the handler and epee answers error code 0 (with an empty message; ours says why).
   */
  async changePassword(oldPassword: string, newPassword: string): Promise<void> {
    const w = this.wallet();
    if (w.inMemory) throw new WalletError("uncoded", new InMemoryWalletError("change the password").message);
    if (!(await w.verifyPassword(oldPassword))) throw new WalletError("wrong-password", "Invalid original password.");
    try {
      await w.changePassword(newPassword);
    } catch (e) {
      throw new WalletError("failed", e instanceof Error ? e.message : String(e));
    }
  }

  /** restore_deterministic_wallet. */
  async restoreDeterministic(p: {
    filename: string;
    password: string;
    seed: string;
    seed_offset: string;
    restore_height: bigint;
    language: string;
    autosave_current: boolean;
    enable_multisig_experimental?: boolean;
  }): Promise<{ address: string; seed: string; info: string; was_deprecated: boolean }> {
    this.dir();
    if (p.seed === "") throw new WalletError("failed", WalletRpcMessages.seedMandatory);
    WalletService.checkFilename(p.filename);
    if (this.fileExists(p.filename)) throw new WalletError("failed", "Wallet already exists.");
    if (p.enable_multisig_experimental) return this.restoreMultisig(p);
    const r = restoreDeterministicWallet({ seed: p.seed, seed_offset: p.seed_offset, language: p.language }, this.network, this.backend);
    if (p.autosave_current) this.autosave();
    const w = await this.createFiles(p.filename, p.password, r.wallet.keys, r.wallet.seedLanguage, p.restore_height);
    await this.install(w);
    return r.result;
  }

  /** restore_deterministic_wallet with enable_multisig_experimental (wallet_rpc_server after 0.18, master 45b52de). */
  private async restoreMultisig(p: { filename: string; password: string; seed: string; seed_offset: string; restore_height: bigint; autosave_current: boolean }): Promise<{ address: string; seed: string; info: string; was_deprecated: boolean }> {
    if (p.autosave_current) this.autosave();
    if (p.seed_offset !== "") throw new WalletError("failed", "Multisig seeds are not compatible with seed offsets");
    if (!isHex(p.seed)) throw new WalletError("failed", "Multisig seed not represented as hexadecimal string");
    let restored: ReturnType<typeof keysFromMultisigSeed>;
    try {
      restored = keysFromMultisigSeed(this.backend, Uint8Array.from(Buffer.from(p.seed, "hex")));
    } catch (e) {
      if (e instanceof MultisigError) throw new WalletError("failed", e.message);
      throw e;
    }
    const w = await this.createFiles(p.filename, p.password, restored.keys, "", p.restore_height, restored.multisig);
    await this.install(w);
    return { address: primaryAddress(restored.keys, this.network, this.backend), seed: "", info: WalletRpcMessages.restored, was_deprecated: false };
  }

  /** generate_from_keys (spendkey empty → view-only). */
  async generateFromKeys(p: {
    filename: string;
    password: string;
    address: string;
    spendkey: string;
    viewkey: string;
    restore_height: bigint;
    language: string;
    autosave_current: boolean;
  }): Promise<{ address: string; info: string }> {
    this.dir();
    if (!p.viewkey) throw new WalletError("failed", WalletRpcMessages.viewkeyMandatory);
    if (!p.address) throw new WalletError("failed", WalletRpcMessages.addressMandatory);
    WalletService.checkFilename(p.filename);
    if (this.fileExists(p.filename)) throw new WalletError("failed", "Wallet already exists.");
    const r = generateFromKeys(p, this.network, this.backend);
    // monero-wallet-rpc skips the autosave when the new wallet has no file (on_generate_from_keys)
    if (p.autosave_current && p.filename !== "") this.autosave();
    const w = await this.createFiles(p.filename, p.password, r.wallet.keys, r.wallet.seedLanguage, p.restore_height);
    await this.install(w);
    return r.result;
  }

  private async createFiles(name: string, password: string, keys: OpenWallet["keys"], seedLanguage: string, restoreHeight: bigint, multisig?: MultisigKeysData): Promise<OpenWallet> {
    try {
      return await OpenWallet.create({ ...this.walletOptions(name), password, keys, seedLanguage, restoreHeight, kdf: this.opts.kdf ?? DEFAULT_KDF, ...(multisig ? { multisig } : {}) });
    } catch (e) {
      if (e instanceof WalletFileError && /already exists/.test(e.message)) throw new WalletError("already-exists", "Cannot create wallet. Already exists.");
      throw new WalletError("failed", e instanceof Error ? e.message : String(e));
    }
  }

  /** Opens a wallet given by path (--wallet-file), outside the wallet dir. */
  async openFile(dir: string, name: string, password: string): Promise<OpenWallet> {
    const w = await OpenWallet.open({
      dir,
      name,
      network: this.network,
      backend: this.backend,
      lookaheadMajor: this.opts.lookaheadMajor,
      lookaheadMinor: this.opts.lookaheadMinor,
      log: this.log,
      ...(this.opts.progress ? { progress: this.opts.progress } : {}),
      poolSpends: this.opts.poolSpends ?? false,
      password,
    });
    await this.install(w);
    return w;
  }

  // ---- daemon ----

  /** set_daemon: a new node for the service and the open wallet (after its running refresh). */
  async setDaemon(p: { address: string; username: string; password: string; trusted: boolean; ssl?: SslOptions }): Promise<void> {
    const w = this.wallet();
    const connect =
      this.opts.connect ??
      ((o: { address: string; login?: string; ssl?: SslOptions }) => new NodeClient({ url: daemonUrl(o.address, this.network), login: o.login, ...(o.ssl ? { ssl: o.ssl } : {}) }));
    let node: NodeApi;
    try {
      const login = p.username !== "" || p.password !== "" ? `${p.username}:${p.password}` : undefined;
      node = connect({ address: p.address, login, trusted: p.trusted, ...(p.ssl ? { ssl: p.ssl } : {}) });
    } catch (e) {
      throw new WalletError("no-daemon", `Unable to set daemon: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.node = node;
    this.trustedDaemon = p.trusted;
    await w.setNode(node);
  }

  // ---- stop ----

  /** stop_wallet / SIGTERM: stores the open wallet, stops the timer and the worker. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      // the pending refresh's wallet is the current one, which is stored below
      this.flushAfterRefresh(true);
      const w = this.current;
      if (w) {
        try {
          w.store();
        } finally {
          this.current = null;
          this.tell(w, "close");
          await w.close();
        }
      }
    })();
    return this.stopping;
  }

  /** A random 8-byte payment id (make_integrated_address without one). */
  randomPaymentId(): Bytes {
    return Uint8Array.from(randomScalar(this.backend).subarray(0, 8));
  }
}
