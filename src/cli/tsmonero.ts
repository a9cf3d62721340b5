/**
 * `tsmonero`: the embedded devnet, what `npm start` runs. One process holds a private regtest node
 * (monerod's `--regtest --offline --fixed-difficulty 1`, chain kept between runs in
 * <data-dir>/fake/lmdb) and a wallet RPC service whose wallets live in <data-dir>/wallets and which
 * talks to that node. It starts ready to use (devnet.ts): dev wallets with deterministic seeds,
 * funded by mining, dev0 open on the wallet RPC; optionally it mines a block every N seconds or
 * when a transaction enters the pool. SIGTERM/SIGINT (or /stop_daemon) store the open wallet, then
 * close the chain.
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { NodeClient } from "../client/node-client.js";
import { defaultBackend } from "../crypto/index.js";
import { randomxStatus } from "../crypto/randomx.js";
import { startWebConsole, type WebConsole } from "../console/server.js";
import { chainDir, startDaemon } from "../node/daemon.js";
import { acquirePidLock, LockHeldError } from "../os/lockfile.js";
import { startWalletRpc } from "../wallet/rpc/index.js";
import { WalletService } from "../wallet/service/index.js";
import { type FlagSpec, type ParsedArgs, runCli, UsageError } from "./args.js";
import { AutoMiner, balanceText, DEV_PASSWORD, type DevnetSetup, DevWalletMismatchError, setUpDevWallets } from "./devnet.js";
import { progressIntervalMs, stderrTerminal, walletProgress } from "./progress.js";
import { VERSION } from "./version.js";

/** The devnet's flags. */
export const DEVNET_FLAGS: readonly FlagSpec[] = [
  { name: "version", takesValue: false, help: "Print the version and exit" },
  { name: "data-dir", takesValue: true, help: "Where the chain and wallets live", defaultValue: "./data" },
  { name: "rpc-bind-ip", takesValue: true, help: "IP both RPC servers bind to", defaultValue: "127.0.0.1" },
  { name: "rpc-bind-port", takesValue: true, help: "Node RPC port", defaultValue: "18081" },
  { name: "wallet-rpc-bind-port", takesValue: true, help: "Wallet RPC port", defaultValue: "18083" },
  { name: "log-level", takesValue: true, help: "Log level (0-4)", defaultValue: "0" },
  { name: "wallets", takesValue: true, help: "Number of dev wallets (dev0, dev1, …) to create, fund and keep (0: none, a bare chain)", defaultValue: "3" },
  { name: "mine-interval", takesValue: true, help: "Mine a block every this many seconds (0: off)", defaultValue: "0" },
  { name: "mine-on-tx", takesValue: false, help: "Mine a block when a transaction enters the pool" },
  { name: "web-console-port", takesValue: true, help: "Port of the web console (explorer and dev wallets, in a browser)", defaultValue: "18084" },
  { name: "no-web-console", takesValue: false, help: "Do not serve the web console" },
  { name: "reset", takesValue: false, help: "Start clean: delete the devnet's chain and wallets in the data dir first" },
];

/** A value flag's text, or its default. */
function str(args: ParsedArgs, name: string): string {
  const v = args.get(name);
  if (typeof v === "string") return v;
  return DEVNET_FLAGS.find((f) => f.name === name)?.defaultValue ?? "";
}

function port(args: ParsedArgs, name: string): number {
  const text = str(args, name);
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) throw new UsageError(`--${name} must be a port number 0-65535 (got '${text}')`);
  return n;
}

/**
 * The devnet's wallet service: open_wallet answers once the wallet has caught up with the chain, so
 * a dev wallet opened after blocks were mined shows them at once (monero-wallet-rpc leaves that to
 * the next auto refresh, up to 20 s later, or to a `refresh` call).
 */
class DevnetWalletService extends WalletService {
  override async openWallet(p: { filename: string; password: string; autosave_current: boolean }): Promise<void> {
    await super.openWallet(p);
    try {
      await this.refresh();
    } catch (e) {
      this.opts.log?.(`refresh after open_wallet ${JSON.stringify(p.filename)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** Deletes the devnet's chain (<data-dir>/fake) and wallets (<data-dir>/wallets); refuses while a devnet runs on them. */
function reset(dataDir: string): void {
  const fake = dirname(chainDir(dataDir, "regtest"));
  if (existsSync(fake)) {
    try {
      acquirePidLock(join(fake, "tsmonerod.pid"), `the devnet in ${dataDir}`, () => undefined).release();
    } catch (e) {
      if (e instanceof LockHeldError) throw new UsageError(`--reset: the devnet in ${dataDir} is running (pid ${e.pid ?? "?"}); stop it first`);
      throw e;
    }
  }
  rmSync(fake, { recursive: true, force: true });
  rmSync(join(dataDir, "wallets"), { recursive: true, force: true });
  console.log(`reset: deleted the chain and the wallets in ${dataDir}`);
}

/** A curl line for a JSON-RPC call (one line, so it can be copied, and read back by tests). */
function curl(url: string, method: string, params: Record<string, unknown>): string {
  return `curl -s ${url}/json_rpc -d '${JSON.stringify({ jsonrpc: "2.0", id: "0", method, params })}'`;
}

/** What the devnet prints once it is ready. */
function readyText(o: { nodeUrl: string; walletUrl: string; consoleUrl: string | null; dataDir: string; setup: DevnetSetup | null; mineInterval: number; mineOnTx: boolean; seconds: number }): string {
  const lines: string[] = [];
  const { setup } = o;
  lines.push(
    setup
      ? `tsmonero: devnet ready in ${o.seconds.toFixed(1)} s: chain height ${setup.height}, ${setup.wallets.length} dev wallet${setup.wallets.length === 1 ? "" : "s"} funded${setup.mined > 0 ? ` (mined ${setup.mined} blocks now)` : " (nothing to mine)"}`
      : `tsmonero: devnet ready in ${o.seconds.toFixed(1)} s (no dev wallets: --wallets 0)`,
  );
  lines.push("");
  lines.push(`node RPC (monerod-compatible):                 ${o.nodeUrl}/json_rpc`);
  lines.push(`wallet RPC (monero-wallet-rpc-compatible):    ${o.walletUrl}/json_rpc${setup ? `   (${setup.wallets[0].name} is open)` : ""}`);
  if (o.consoleUrl) lines.push(`web console (explorer, dev wallets, send, mine): ${o.consoleUrl}/`);
  lines.push(`data: ${o.dataDir} (chain in fake/lmdb, wallets in wallets/)`);
  if (!setup) {
    lines.push(`mine blocks: ${curl(o.nodeUrl, "generateblocks", { amount_of_blocks: 10, wallet_address: "<address>" })}`);
    return lines.join("\n");
  }
  const [first] = setup.wallets;
  const second = setup.wallets[1] ?? first;
  lines.push("");
  lines.push(`dev wallets (password "${DEV_PASSWORD}"; the seeds are fixed and public: for this devnet only, never for real coins):`);
  for (const w of setup.wallets) {
    lines.push(`  ${w.name}  ${balanceText(w)}`);
    lines.push(`    address ${w.address}`);
    lines.push(`    seed    ${w.seed}`);
  }
  lines.push("");
  const auto = [o.mineInterval > 0 ? `a block every ${o.mineInterval} s` : "", o.mineOnTx ? "a block when a transaction enters the pool" : ""].filter((x) => x !== "");
  lines.push(
    auto.length > 0
      ? `auto-mining: ${auto.join(", and ")} (to ${first.name})`
      : "auto-mining: off (mine with the generateblocks line below, or start with --mine-on-tx or --mine-interval <seconds>)",
  );
  lines.push("");
  lines.push(`balance of ${first.name}:`);
  lines.push(`  ${curl(o.walletUrl, "get_balance", { account_index: 0 })}`);
  lines.push(`send 1 XMR from ${first.name} to ${second.name}:`);
  lines.push(`  ${curl(o.walletUrl, "transfer", { destinations: [{ amount: 1_000_000_000_000, address: second.address }] })}`);
  lines.push(`mine a block (to ${first.name}):`);
  lines.push(`  ${curl(o.nodeUrl, "generateblocks", { amount_of_blocks: 1, wallet_address: first.address })}`);
  lines.push(`switch the wallet RPC to ${second.name}:`);
  lines.push(`  ${curl(o.walletUrl, "open_wallet", { filename: second.name, password: DEV_PASSWORD })}`);
  return lines.join("\n");
}

async function main(args: ParsedArgs): Promise<number> {
  if (args.has("version")) {
    console.log(`tsmonero ${VERSION}`);
    return 0;
  }
  const dataDir = resolve(str(args, "data-dir"));
  const bindIp = str(args, "rpc-bind-ip");
  const nodePort = port(args, "rpc-bind-port");
  const walletPort = port(args, "wallet-rpc-bind-port");
  const consolePort = args.has("no-web-console") ? null : port(args, "web-console-port");
  const logLevelText = str(args, "log-level");
  if (!/^[0-4]$/.test(logLevelText)) throw new UsageError(`--log-level must be 0-4 (got '${logLevelText}')`);
  const walletsText = str(args, "wallets");
  if (!/^\d+$/.test(walletsText) || Number(walletsText) > 100) throw new UsageError(`--wallets must be a number of wallets 0-100 (got '${walletsText}')`);
  const walletCount = Number(walletsText);
  const intervalText = str(args, "mine-interval");
  if (!/^\d+(\.\d+)?$/.test(intervalText) || Number(intervalText) > 86_400)
    throw new UsageError(`--mine-interval must be a number of seconds, 0 (off) to 86400 (got '${intervalText}')`);
  const mineInterval = Number(intervalText);
  if (mineInterval > 0 && mineInterval < 0.1) throw new UsageError(`--mine-interval must be at least 0.1 seconds (got '${intervalText}')`);
  const mineOnTx = args.has("mine-on-tx");
  if ((mineInterval > 0 || mineOnTx) && walletCount === 0)
    throw new UsageError(`--mine-interval and --mine-on-tx mine to dev wallet dev0: use them with --wallets 1 or more`);
  if (args.has("reset")) reset(dataDir);

  console.log(`tsmonero ${VERSION} devnet (crypto: ${defaultBackend().name}; ${randomxStatus().available ? "RandomX available" : "RandomX unavailable"})`);
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  try {
    daemon = await startDaemon({
      network: "regtest",
      dataDir,
      fixedDifficulty: 1n,
      offline: true,
      keepFakechain: true,
      rpcBindIp: bindIp,
      rpcBindPort: nodePort,
      logLevel: Number(logLevelText),
      logToConsole: false,
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "EADDRINUSE") console.error(`tsmonero: node RPC port ${bindIp}:${nodePort} is in use; choose another with --rpc-bind-port`);
    else console.error(`tsmonero: cannot start the node: ${err.message ?? String(e)}`);
    return 1;
  }

  const walletDir = join(dataDir, "wallets");
  mkdirSync(walletDir, { recursive: true, mode: 0o700 });
  const terminal = stderrTerminal();
  // regtest uses mainnet addresses (as monerod --regtest); the wallet talks to the node over its RPC
  const node = new NodeClient({ url: daemon.rpcUrl });
  const makeService = (): WalletService =>
    new DevnetWalletService({
      network: "mainnet",
      walletDir,
      node,
      trusted: true,
      log: (m) => daemon.log(1, `wallet: ${m}`),
      progress: walletProgress({ terminal, log: (m) => console.log(m), intervalMs: progressIntervalMs() }),
    });
  const service = makeService();

  // the dev wallets, before the wallet RPC listens: a client never sees them half made
  let setup: DevnetSetup | null = null;
  if (walletCount > 0) {
    try {
      setup = await setUpDevWallets({ core: daemon.core, service, makeService, count: walletCount, walletDir, terminal, log: (m) => console.log(m) });
    } catch (e) {
      console.error(
        e instanceof DevWalletMismatchError ? `tsmonero: ${e.message}` : `tsmonero: cannot make the dev wallets ready: ${e instanceof Error ? e.message : String(e)}`,
      );
      await service.stop().catch(() => undefined);
      await daemon.stop("dev wallets failed");
      return 1;
    }
  }

  let wallet: Awaited<ReturnType<typeof startWalletRpc>>;
  try {
    wallet = await startWalletRpc({ service, port: walletPort, host: bindIp, log: (m) => daemon.log(1, `wallet rpc: ${m}`) });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    console.error(
      err.code === "EADDRINUSE"
        ? `tsmonero: wallet RPC port ${bindIp}:${walletPort} is in use; choose another with --wallet-rpc-bind-port`
        : `tsmonero: cannot start the wallet RPC: ${err.message ?? String(e)}`,
    );
    await service.stop().catch(() => undefined);
    await daemon.stop("wallet RPC failed to start");
    return 1;
  }
  let webConsole: WebConsole | null = null;
  if (consolePort !== null) {
    try {
      webConsole = await startWebConsole({
        host: bindIp,
        port: consolePort,
        nodeUrl: daemon.rpcUrl,
        walletUrl: wallet.url,
        devWallets: setup?.wallets.map((w) => ({ name: w.name, address: w.address })) ?? [],
        devPassword: DEV_PASSWORD,
        served: "devnet",
      });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      console.error(
        err.code === "EADDRINUSE"
          ? `tsmonero: web console port ${bindIp}:${consolePort} is in use; choose another with --web-console-port, or --no-web-console`
          : `tsmonero: cannot start the web console: ${err.message ?? String(e)}`,
      );
      await wallet.close().catch(() => undefined);
      await service.stop().catch(() => undefined);
      await daemon.stop("web console failed to start");
      return 1;
    }
  }
  service.start();
  const miner = setup && (mineInterval > 0 || mineOnTx) ? new AutoMiner({ core: daemon.core, address: setup.wallets[0].address, intervalSeconds: mineInterval, onTx: mineOnTx, log: (m) => console.log(m) }) : null;
  let stopping: Promise<void> | null = null;
  // the open wallet follows new blocks at once (a devnet's blocks come when asked for), not at the
  // next 20 s auto refresh: 100 ms after the last block of a burst (generateblocks of 500 blocks took
  // 40% longer with a refresh after every few blocks), and at least every 5 s during a long burst
  let follow: NodeJS.Timeout | null = null;
  let burstStart = 0;
  daemon.core.on("block", () => {
    if (stopping) return;
    const now = Date.now();
    if (follow) {
      if (now - burstStart >= 5000) return; // due in < 100 ms
      clearTimeout(follow);
    } else burstStart = now;
    follow = setTimeout(() => {
      follow = null;
      if (!service.hasWallet || stopping) return;
      service.refresh().catch((e: unknown) => daemon.log(0, `tsmonero: refreshing the open wallet after a block: ${e instanceof Error ? e.message : String(e)}`));
    }, 100);
  });
  console.log(
    readyText({ nodeUrl: daemon.rpcUrl, walletUrl: wallet.url, consoleUrl: webConsole?.url ?? null, dataDir, setup, mineInterval, mineOnTx, seconds: process.uptime() }),
  );

  const stop = (why: string): Promise<void> => {
    stopping ??= (async () => {
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      if (follow) clearTimeout(follow);
      await miner?.stop().catch(() => undefined);
      try {
        await service.stop();
      } catch (e) {
        console.error(`tsmonero: storing the open wallet failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      await webConsole?.close().catch(() => undefined);
      await wallet.close().catch(() => undefined);
      await daemon.stop(why);
    })();
    return stopping;
  };
  service.onStop = () => void stop("stop_wallet");
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
  await daemon.stopped;
  // /stop_daemon stops the node first; the wallet is stored all the same
  await stop("node stopped");
  console.log("tsmonero: stopped (wallet stored, database closed)");
  return 0;
}

await runCli("tsmonero", `tsmonero ${VERSION}: a private Monero regtest devnet (node + wallet RPC in one process), ready to use: funded dev wallets\n(deterministic seeds), dev0 open on the wallet RPC; the chain and wallets are kept between runs in --data-dir.`, DEVNET_FLAGS, main);
