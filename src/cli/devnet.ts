/**
 * The devnet's ready-to-use part (issue 21), what `tsmonero` does after its node starts: a few dev
 * wallets with deterministic seeds (the same on every machine), funded by mining until each holds
 * unlocked coins, the first one left open on the wallet service; and auto-mining (a block every N
 * seconds, or a block when a transaction enters the pool).
 *
 * The dev wallets are ordinary wallet files (`devN` and `devN.keys`, password "") in the wallet
 * service's directory, created through WalletService.restoreDeterministic and reopened with
 * openWallet, so what the wallet RPC serves is what any wallet would be. Funding mines coinbase
 * blocks through the node core (generateblocks in-process): FUND_BLOCKS_PER_WALLET blocks to each
 * wallet that holds nothing, then blocks to dev0 until those coinbases unlock (60 blocks) and the
 * chain is at least MIN_READY_HEIGHT high. A restart finds the wallets funded and mines nothing.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { TextEncoder } from "node:util";
import type { CryptoBackend } from "../crypto/backend.js";
import { defaultBackend } from "../crypto/index.js";
import type { NodeCore } from "../node/core.js";
import { printMoney } from "../protocol/uri.js";
import { accountFromRecoveryKey, accountSeed, primaryAddress } from "../wallet/keys/account.js";
import type { WalletService } from "../wallet/service/index.js";
import type { ProgressTerminal } from "./progress.js";
import { Progress } from "./progress.js";

/** The fixed text the dev wallets' keys are derived from: keccak256("<this> <index>") is the recovery key. */
export const DEV_SEED_CONSTANT = "tsmonero devnet wallet";
/** The dev wallets' password. */
export const DEV_PASSWORD = "";
/** Coinbase blocks mined to each dev wallet that holds nothing (its spendable outputs). */
export const FUND_BLOCKS_PER_WALLET = 5;
/** CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW, plus one: a coinbase at height h is spendable from chain height h + 61 on. */
const COINBASE_UNLOCK_BLOCKS = 61;
/**
 * The least chain height the devnet is ready at. A transfer's rings (16 members) are drawn from
 * outputs at least 10 blocks deep; wallet2's decoy selection needs clearly more than its 75
 * candidates there (at 86 blocks of one output each a transfer fails with "failed to get random
 * outs"), so the devnet starts 100 blocks high.
 */
export const MIN_READY_HEIGHT = 100;

/** One dev wallet: its file name, index, seed words and primary address. */
export interface DevWallet {
  readonly index: number;
  readonly name: string;
  readonly seed: string;
  readonly address: string;
}

/** The dev wallet `index` (deterministic: the same keys on every machine). */
export function devWallet(index: number, backend: CryptoBackend = defaultBackend()): DevWallet {
  const recovery = backend.keccak256(new TextEncoder().encode(`${DEV_SEED_CONSTANT} ${index}`));
  const keys = accountFromRecoveryKey(recovery, backend);
  // regtest uses mainnet addresses, as monerod --regtest
  return { index, name: `dev${index}`, seed: accountSeed(keys, "English", "", backend), address: primaryAddress(keys, "mainnet", backend) };
}

/** A dev wallet's balance after the devnet made it ready. */
export interface DevWalletState extends DevWallet {
  readonly balance: bigint;
  readonly unlockedBalance: bigint;
}

export interface DevnetSetup {
  readonly wallets: readonly DevWalletState[];
  /** Blocks mined to fund and unlock the wallets (0 when they were funded already). */
  readonly mined: number;
  readonly height: number;
}

/** A dev wallet file that is not the devnet's wallet of that name. */
export class DevWalletMismatchError extends Error {
  override name = "DevWalletMismatchError";
}

/** Atomic units as XMR for people: "87.96", "0.0". */
export function xmr(amount: bigint): string {
  return printMoney(amount).replace(/0+$/, "").replace(/\.$/, ".0");
}

interface Balance {
  balance: bigint;
  unlocked: bigint;
  blocksToUnlock: number;
}

/**
 * Opens dev wallet `w` on the service (restoring it when its files are not there), refreshes it and
 * reads its balance. The service's open wallet is `w` afterwards.
 */
async function openAndRefresh(service: WalletService, w: DevWallet, dir: string): Promise<Balance> {
  if (!existsSync(join(dir, `${w.name}.keys`)))
    await service.restoreDeterministic({ filename: w.name, password: DEV_PASSWORD, seed: w.seed, seed_offset: "", restore_height: 0n, language: "English", autosave_current: true });
  else {
    try {
      await service.openWallet({ filename: w.name, password: DEV_PASSWORD, autosave_current: true });
    } catch (e) {
      const why = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
      throw new DevWalletMismatchError(`the dev wallet file ${join(dir, w.name)} does not open (${why}); move it away, or start over with --reset`);
    }
  }
  const open = service.wallet();
  const address = open.address({ major: 0, minor: 0 });
  if (address !== w.address)
    throw new DevWalletMismatchError(`the wallet file ${join(dir, w.name)} is not the devnet's wallet ${w.index} (its address is ${address}, the dev wallet's ${w.address}); move it away, or start over with --reset`);
  await service.refresh(open);
  const b = open.ledger.balance(0, BigInt(Math.floor(Date.now() / 1000)));
  return { balance: b.balance, unlocked: b.unlockedBalance, blocksToUnlock: Number(b.blocksToUnlock) };
}

export interface DevnetSetupOptions {
  readonly core: NodeCore;
  /** The wallet RPC's service: dev0 is its open wallet at the end. */
  readonly service: WalletService;
  /**
   * A new service over the same wallet dir and node, for looking at the other dev wallets at the
   * same time as dev0 (each has its own scan worker); each is stopped when its wallet is read.
   */
  readonly makeService: () => WalletService;
  /** Number of dev wallets (≥ 1). */
  readonly count: number;
  /** The services' wallet directory, where devN and devN.keys are. */
  readonly walletDir: string;
  readonly terminal: ProgressTerminal | null;
  readonly log: (line: string) => void;
  readonly backend?: CryptoBackend;
}

/** Every dev wallet opened (restored if missing), synced and read: dev0 on the main service, where it stays open; the others at the same time on services of their own. */
async function readAll(o: DevnetSetupOptions, wallets: readonly DevWallet[]): Promise<Map<number, Balance>> {
  const results = await Promise.allSettled(
    wallets.map(async (w) => {
      if (w.index === 0) return openAndRefresh(o.service, w, o.walletDir);
      const svc = o.makeService();
      try {
        return await openAndRefresh(svc, w, o.walletDir);
      } finally {
        await svc.stop();
      }
    }),
  );
  const out = new Map<number, Balance>();
  results.forEach((r, i) => {
    if (r.status === "rejected") throw r.reason;
    out.set(wallets[i].index, r.value);
  });
  return out;
}

/**
 * Makes the dev wallets ready: each exists, is synced and holds unlocked coins; dev0 is the
 * service's open wallet at the end. Mines only what is missing.
 */
export async function setUpDevWallets(o: DevnetSetupOptions): Promise<DevnetSetup> {
  const wallets = Array.from({ length: o.count }, (_, i) => devWallet(i, o.backend));
  const core = o.core;
  const startHeight = core.store.height();
  // a new chain (genesis only) holds no coins for anyone: no need to look before mining
  let balances = startHeight <= 1 ? new Map<number, Balance>() : await readAll(o, wallets);
  const toFund = wallets.filter((w) => (balances.get(w.index)?.balance ?? 0n) === 0n);
  let target = MIN_READY_HEIGHT;
  for (const w of wallets) {
    const b = balances.get(w.index);
    // coins there but all still locked (a run stopped while they unlocked, or all in fresh change)
    if (b && b.balance > 0n && b.unlocked === 0n) target = Math.max(target, startHeight + b.blocksToUnlock + 1);
  }
  const fundingEnd = startHeight + toFund.length * FUND_BLOCKS_PER_WALLET;
  if (toFund.length > 0) target = Math.max(target, fundingEnd - 1 + COINBASE_UNLOCK_BLOCKS);

  let mined = 0;
  if (core.store.height() < target) {
    const progress = new Progress({ label: "mining", terminal: o.terminal, log: o.log });
    progress.update(core.store.height(), target);
    const mine = async (n: number, address: string): Promise<void> => {
      for (let left = n; left > 0; ) {
        const k = Math.min(left, 10);
        await core.generateBlocks(k, address);
        left -= k;
        mined += k;
        progress.update(core.store.height(), target);
      }
    };
    try {
      for (const w of toFund) await mine(FUND_BLOCKS_PER_WALLET, w.address);
      await mine(Math.max(0, target - core.store.height()), wallets[0].address);
    } catch (e) {
      progress.end({ failed: e instanceof Error ? e.message : String(e) });
      throw e;
    }
    progress.end({ position: core.store.height() });
  }
  // the new blocks into every wallet (and dev0 open, when nothing was looked at before)
  if (mined > 0 || balances.size === 0) balances = await readAll(o, wallets);
  for (const w of wallets) {
    const b = balances.get(w.index);
    if (b && b.unlocked === 0n) o.log(`tsmonero: dev wallet ${w.name} has no unlocked coins yet (${b.blocksToUnlock} blocks to go); mine a few blocks`);
  }
  return {
    wallets: wallets.map((w) => ({ ...w, balance: balances.get(w.index)?.balance ?? 0n, unlockedBalance: balances.get(w.index)?.unlocked ?? 0n })),
    mined,
    height: core.store.height(),
  };
}

export interface AutoMinerOptions {
  readonly core: NodeCore;
  /** Where the blocks' coinbase goes. */
  readonly address: string;
  /** A block every this many seconds (0 = never). */
  readonly intervalSeconds: number;
  /** A block when a transaction enters the pool. */
  readonly onTx: boolean;
  readonly log: (line: string) => void;
}

/** Mines blocks on a timer and/or when the pool gets a transaction; stop() ends it. */
export class AutoMiner {
  private timer: NodeJS.Timeout | null = null;
  private pending: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly onPoolAdd = (): void => this.soon();

  constructor(private readonly o: AutoMinerOptions) {
    if (o.intervalSeconds > 0) this.timer = setInterval(() => this.mineOne("timer"), o.intervalSeconds * 1000);
    if (o.onTx) o.core.on("pool-add", this.onPoolAdd);
  }

  /** A block shortly after a tx arrived: txs sent together go into one block. */
  private soon(): void {
    if (this.stopped || this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = null;
      this.mineOne("tx");
    }, 100);
  }

  private mineOne(why: "timer" | "tx"): void {
    if (this.stopped) return;
    if (this.running) {
      // a tx that came while a block was being mined gets its own block
      if (why === "tx") this.again = true;
      return;
    }
    const txs = this.o.core.pool.size();
    this.running = this.o.core
      .generateBlocks(1, this.o.address)
      .then((r) => this.o.log(`tsmonero: mined block ${r.height} (${why === "tx" ? "a transaction entered the pool" : `every ${this.o.intervalSeconds} s`}; ${txs} tx${txs === 1 ? "" : "s"} in the pool)`))
      .catch((e: unknown) => this.o.log(`tsmonero: auto-mining failed: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        this.running = null;
        if (this.again && !this.stopped) {
          this.again = false;
          if (this.o.core.pool.size() > 0) this.mineOne("tx");
        }
      });
  }

  /** Stops mining; waits for a block under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.pending) clearTimeout(this.pending);
    this.timer = this.pending = null;
    if (this.o.onTx) this.o.core.off("pool-add", this.onPoolAdd);
    await this.running;
  }
}

/** xmr() for tables: the balance and unlocked balance of a wallet. */
export function balanceText(w: DevWalletState): string {
  return w.balance === w.unlockedBalance ? `${xmr(w.balance)} XMR` : `${xmr(w.balance)} XMR (${xmr(w.unlockedBalance)} unlocked)`;
}
