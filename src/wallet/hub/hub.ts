/**
 * Many wallets in one process (issue 20): a WalletHub holds any number of named wallets, each in
 * its own WalletService (so every monero-wallet-rpc method works on it as on the drop-in
 * endpoint), all reaching the node through one `sharedNode`: wallets standing at the same block
 * fetch each batch of blocks once between them, and all scan on one `SharedScanPool` (a few threads
 * for any number of wallets: each block is parsed once per thread, each wallet only derives its
 * keys against it). A wallet's name is its file name in the wallet dir;
 * each may have its own RPC login. The drop-in /json_rpc and its one open wallet are not touched.
 */
import type { NodeApi } from "../../client/node-client.js";
import { walletEvents } from "../events/events.js";
import { WalletError } from "../errors.js";
import { WalletService, type WalletServiceOptions } from "../service/service.js";
import { SharedScanPool, type SharedScanStats } from "../scan/shared.js";
import { type SharedNode, sharedNode } from "./shared-node.js";

/** One wallet of the hub. */
/** A digest login (user name, password) of one hub wallet's own route. */
export interface HubLogin {
  readonly username: string;
  readonly password: string;
}

export interface HubWallet {
  readonly name: string;
  readonly service: WalletService;
  /** Its own digest login for /wallets/NAME/json_rpc; null: the server's. */
  readonly login: HubLogin | null;
}

export type HubOptions = Omit<WalletServiceOptions, "node" | "walletDir" | "scanPool"> & {
  readonly walletDir: string;
  readonly node: NodeApi | null;
  /** Scan threads shared by all the hub's wallets (default: the core count, at most 8). */
  readonly scanThreads?: number;
};

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export class WalletHub {
  private readonly wallets = new Map<string, HubWallet>();
  private readonly shared: SharedNode | null;
  /** Names being opened or created (a second call for the same name waits for none: it is refused). */
  private readonly busy = new Set<string>();

  /** The scan threads of all the hub's wallets. */
  readonly scanPool: SharedScanPool;

  constructor(readonly opts: HubOptions) {
    this.shared = opts.node ? sharedNode(opts.node) : null;
    this.scanPool = new SharedScanPool(opts.scanThreads);
  }

  /** What the shared scan did: wallets' block requests, messages to the threads, blocks parsed. */
  get scanStats(): SharedScanStats {
    return { ...this.scanPool.stats };
  }

  /** How many get_blocks.bin requests the wallets made and how many reached the node. */
  get stats(): SharedNode["stats"] | null {
    return this.shared?.stats ?? null;
  }

  /** Checks a wallet name for the /wallets/NAME/ path: letters, digits, '.', '_', '-'. */
  static checkName(name: string): void {
    if (!NAME_RE.test(name))
      throw new WalletError("failed", `Invalid wallet name ${JSON.stringify(name.slice(0, 64))}: use 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  }

  get(name: string): HubWallet | undefined {
    return this.wallets.get(name);
  }

  list(): HubWallet[] {
    return [...this.wallets.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private newService(): WalletService {
    const { scanThreads: _, ...opts } = this.opts;
    const svc = new WalletService({ ...opts, node: this.shared?.api ?? null, scanPool: this.scanPool });
    svc.start();
    walletEvents(svc, this.opts.log ? { log: this.opts.log } : {}); // push events (webhooks), from the wallet's open on
    return svc;
  }

  /** Opens (or with `create`, creates) wallet `name`; −1 when it is open in the hub already. */
  async open(name: string, p: { password: string; login: HubLogin | null; create?: { language: string } }): Promise<HubWallet> {
    WalletHub.checkName(name);
    if (this.wallets.has(name) || this.busy.has(name)) throw new WalletError("failed", `Wallet ${name} is open already; close it first (close_wallet on /wallets/json_rpc)`);
    this.busy.add(name);
    const service = this.newService();
    try {
      if (p.create) await service.createWallet({ filename: name, password: p.password, language: p.create.language });
      else await service.openWallet({ filename: name, password: p.password, autosave_current: false });
      const w: HubWallet = { name, service, login: p.login };
      this.wallets.set(name, w);
      return w;
    } catch (e) {
      await service.stop().catch(() => undefined);
      throw e;
    } finally {
      this.busy.delete(name);
    }
  }

  /** Stores (unless `autosave` is false) and closes wallet `name`. */
  async close(name: string, autosave = true): Promise<void> {
    const w = this.wallets.get(name);
    if (!w) throw new WalletError("not-open", `No wallet named ${JSON.stringify(name.slice(0, 64))} is open in the hub; list_wallets shows those that are`);
    this.wallets.delete(name);
    if (!autosave) await w.service.closeWallet({ autosave_current: false });
    await w.service.stop();
  }

  /** Stores and closes every wallet, then stops the scan threads. */
  async stop(): Promise<void> {
    await Promise.all([...this.wallets.keys()].map((n) => this.close(n).catch(() => undefined)));
    await this.scanPool.close();
  }
}
