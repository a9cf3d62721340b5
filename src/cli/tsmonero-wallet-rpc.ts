/**
 * `tsmonero-wallet-rpc`: the wallet RPC service with monero-wallet-rpc's flags and their meanings
 * (src/wallet/wallet_rpc_server.cpp main/t_daemon/init, src/rpc/rpc_args.cpp, wallet2::init_options).
 * Without --rpc-login or --disable-rpc-login a login "monero:<random>" is generated and written to
 * `monero-wallet-rpc.<port>.login` in the working directory, as monero-wallet-rpc does; the file is
 * held open while we run and removed at exit; one left by a killed run is replaced (os/lockfile). SIGTERM/SIGINT and stop_wallet store the open wallet and exit.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, dirname, resolve } from "node:path";
import { NodeClient } from "../client/node-client.js";
import type { Network } from "../protocol/network.js";
import { createOwnedFile, type HeldFile, LockHeldError } from "../os/lockfile.js";
import type { Login } from "../rpc/index.js";
import { checkDaemonSsl, parseLogin, ServerTls, SslConfigError, type SslOptions, SSL_AUTODETECT } from "../rpc/index.js";
import { daemonUrl, WalletService } from "../wallet/service/index.js";
import { startWalletRpc } from "../wallet/rpc/index.js";
import { stderrTerminal, walletProgress } from "./progress.js";
import { type FlagSpec, flag as s, type ParsedArgs, option as v, runCli, UsageError } from "./args.js";
import { sslFlags, sslFlagSpecs } from "./ssl-flags.js";
import { VERSION } from "./version.js";

/** monero-wallet-rpc's flags that tsmonero-wallet-rpc accepts. */
export const WALLET_FLAGS: readonly FlagSpec[] = [
  s("version", "Print the version and exit"),
  v("rpc-bind-ip", "IP to bind the RPC server to", "127.0.0.1"),
  v("rpc-bind-port", "Port for the RPC server (required)"),
  v("rpc-login", "Require HTTP digest auth, as username:password"),
  s("disable-rpc-login", "Disable HTTP authentication for RPC connections"),
  s("restricted-rpc", "Restricts to view-only commands"),
  v("wallet-dir", "Directory for newly created wallets"),
  v("wallet-file", "Use this wallet file"),
  v("password", "Wallet password"),
  v("password-file", "Wallet password file"),
  v("daemon-address", "Use daemon instance at host:port"),
  v("daemon-host", "Use daemon instance at host", "localhost"),
  v("daemon-port", "Use daemon instance at port", "18081"),
  v("daemon-login", "Daemon RPC login, as username:password"),
  s("trusted-daemon", "Treat the daemon as trusted"),
  s("untrusted-daemon", "Treat the daemon as untrusted"),
  ...sslFlagSpecs("daemon-ssl", true),
  ...sslFlagSpecs("rpc-ssl", false),
  s("offline", "Do not connect to a daemon"),
  s("testnet", "For testnet"),
  s("stagenet", "For stagenet"),
  s("non-interactive", "Run non-interactive"),
  v("log-level", "Log level (0-4)", "0"),
  v("log-file", "Log file path"),
  s("allow-mismatched-daemon-version", "Allow communicating with a daemon of another version"),
  s("confirm-external-bind", "Confirm binding the RPC server to a non-loopback address"),
  v("max-concurrency", "Maximum worker threads (0 = all cores)", "0"),
  v("tx-notify", "Run a program for each new incoming transaction, %s replaced by the txid"),
  s("no-initial-sync", "Skip the initial sync before the RPC server starts"),
  v("shared-ringdb-dir", "Directory for the shared ring database"),
  v("rpc-max-connections", "Maximum simultaneous RPC connections", "100"),
  v("rpc-max-connections-per-private-ip", "Maximum RPC connections per private IP", "100"),
];

const get = (a: ParsedArgs, name: string): string | undefined => {
  const x = a.get(name);
  return typeof x === "string" ? x : undefined;
};
const has = (a: ParsedArgs, name: string): boolean => a.get(name) === true;

function intFlag(a: ParsedArgs, name: string, dflt: number, min: number, max: number): number {
  const t = get(a, name);
  if (t === undefined) return dflt;
  if (!/^[0-9]+$/.test(t) || Number(t) < min || Number(t) > max) throw new UsageError(`--${name} must be an integer ${min}..${max} (got '${t}')`);
  return Number(t);
}

const DEFAULT_DAEMON_PORT: Record<Network, number> = { mainnet: 18081, testnet: 28081, stagenet: 38081, regtest: 18081 };

/** epee's is_local_address: loopback names and addresses. */
function isLocalHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\./.test(h);
}

class Log {
  constructor(
    readonly file: string | undefined,
    readonly level: number,
  ) {}
  line(msg: string): void {
    const text = `${new Date().toISOString()} ${msg}`;
    console.log(text);
    if (this.file) {
      try {
        appendFileSync(this.file, text + "\n");
      } catch {
        // the log file is best effort
      }
    }
  }
}

async function main(a: ParsedArgs): Promise<number> {
  if (has(a, "version")) {
    console.log(`tsmonero-wallet-rpc ${VERSION}`);
    return 0;
  }
  if (has(a, "testnet") && has(a, "stagenet")) throw new UsageError("Can't specify more than one of --testnet and --stagenet");
  const network: Network = has(a, "testnet") ? "testnet" : has(a, "stagenet") ? "stagenet" : "mainnet";
  const walletDir = get(a, "wallet-dir");
  const walletFile = get(a, "wallet-file");
  if (walletDir !== undefined && walletFile !== undefined) throw new UsageError("--wallet-dir and --wallet-file are incompatible, use only one of them");
  if (walletDir !== undefined && get(a, "password-file") !== undefined) throw new UsageError("--password-file is not allowed in combination with --wallet-dir");
  if (walletDir === undefined && walletFile === undefined) throw new UsageError("Must specify --wallet-file or --generate-from-json or --wallet-dir");
  const portText = get(a, "rpc-bind-port");
  if (portText === undefined) throw new UsageError("the option '--rpc-bind-port' is required but missing");
  const port = intFlag(a, "rpc-bind-port", 0, 0, 65535);
  const bindIp = get(a, "rpc-bind-ip") ?? "127.0.0.1";
  if (!isLocalHost(bindIp) && !has(a, "confirm-external-bind"))
    throw new UsageError("--rpc-bind-ip permits inbound unencrypted external connections. Consider --rpc-ssl instead. Override with --confirm-external-bind");
  const rpcSsl = sslFlags(a, "rpc-ssl");
  if (has(a, "disable-rpc-login") && get(a, "rpc-login") !== undefined) throw new UsageError("Cannot specify --disable-rpc-login and --rpc-login");
  const logLevel = intFlag(a, "log-level", 0, 0, 4);
  const log = new Log(get(a, "log-file"), logLevel);
  const maxConcurrency = intFlag(a, "max-concurrency", 0, 0, 1024) || availableParallelism();
  const maxConnections = intFlag(a, "rpc-max-connections", 100, 1, 100000);
  const maxPerIp = intFlag(a, "rpc-max-connections-per-private-ip", 100, 1, 100000);

  // the node
  const offline = has(a, "offline");
  const daemonSsl = sslFlags(a, "daemon-ssl");
  let address = get(a, "daemon-address");
  if (address === undefined) {
    const host = get(a, "daemon-host") ?? "localhost";
    const dport = intFlag(a, "daemon-port", DEFAULT_DAEMON_PORT[network], 1, 65535);
    address = `${host}:${dport}`;
  }
  const url = daemonUrl(address, network);
  try {
    checkDaemonSsl(daemonSsl, new URL(url).hostname);
  } catch (e) {
    if (e instanceof SslConfigError) throw new UsageError(e.message);
    throw e;
  }
  // wallet2::make_basic: both flags → a warning and untrusted; neither → trusted when the node is local
  if (has(a, "trusted-daemon") && has(a, "untrusted-daemon")) log.line("--trusted-daemon and --untrusted-daemon are both seen, assuming untrusted");
  const trusted = has(a, "untrusted-daemon") ? false : has(a, "trusted-daemon") || isLocalHost(new URL(url).hostname);
  const daemonLogin = get(a, "daemon-login");
  const connect = (o: { address: string; login?: string; ssl?: SslOptions }) => new NodeClient({ url: daemonUrl(o.address, network), login: o.login, ssl: o.ssl ?? SSL_AUTODETECT });
  let node: NodeClient | null = null;
  let serverTls: ServerTls;
  try {
    if (!offline) node = new NodeClient({ url, login: daemonLogin, ssl: daemonSsl });
    serverTls = ServerTls.create(rpcSsl, { log: (m) => log.line(m) });
  } catch (e) {
    if (e instanceof SslConfigError) throw new UsageError(e.message);
    throw e;
  }

  if (walletDir !== undefined && walletDir !== "") {
    try {
      mkdirSync(walletDir, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw new UsageError(`Failed to create directory ${walletDir}: ${(e as Error).message}`);
    }
  }
  const service = new WalletService({
    network,
    walletDir: walletDir === undefined ? undefined : resolve(walletDir),
    node,
    trusted,
    connect,
    txNotify: get(a, "tx-notify"),
    log: (m) => log.line(m),
    // refresh and rescan: an updating line on a terminal, a log line every 10 s otherwise
    progress: walletProgress({ terminal: stderrTerminal(), log: (m) => log.line(m) }),
  });

  // --wallet-file: open (and sync) before the server starts, as monero-wallet-rpc does
  if (walletFile !== undefined) {
    let password = get(a, "password") ?? "";
    const pf = get(a, "password-file");
    if (pf !== undefined) {
      if (get(a, "password") !== undefined) throw new UsageError("can't specify more than one of --password and --password-file");
      try {
        password = readFileSync(pf, "utf8").replace(/\r?\n$/, "");
      } catch (e) {
        throw new UsageError(`cannot read --password-file ${pf}: ${(e as Error).message}`);
      }
    }
    // a signal during the load or the initial sync: store what there is and exit (monero-wallet-rpc does)
    let quit = false;
    const early = () => {
      quit = true;
    };
    process.once("SIGTERM", early);
    process.once("SIGINT", early);
    log.line("Loading wallet...");
    try {
      await service.openFile(dirname(resolve(walletFile)), basename(walletFile), password);
    } catch (e) {
      log.line(`Wallet initialization failed: ${e instanceof Error ? e.message : String(e)}`);
      return 1;
    }
    if (!has(a, "no-initial-sync") && !offline) {
      try {
        const sync = service.refresh();
        await Promise.race([sync, new Promise<void>((res) => {
          const t = setInterval(() => {
            if (quit) {
              clearInterval(t);
              res();
            }
          }, 100);
          void sync.finally(() => clearInterval(t)).catch(() => undefined);
        })]);
      } catch (e) {
        log.line(`Initial refresh failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    process.off("SIGTERM", early);
    process.off("SIGINT", early);
    if (quit) {
      log.line("Saving wallet...");
      await service.stop();
      log.line("Successfully saved");
      return 0;
    }
    log.line("Successfully loaded");
  }

  // the RPC login
  let login: Login | undefined;
  let loginFile: HeldFile | undefined;
  if (!has(a, "disable-rpc-login")) {
    const given = get(a, "rpc-login");
    if (given !== undefined) login = parseLogin(given);
    else {
      login = { username: "monero", password: randomBytes(16).toString("base64") };
      const name = `monero-wallet-rpc.${portText}.login`;
      // held open while we run; one left by a killed run (no live holder) is replaced, as
      // monero-wallet-rpc's flock lets it do
      try {
        loginFile = createOwnedFile(name, `${login.username}:${login.password}`, (m) => log.line(m));
      } catch (e) {
        const by = e instanceof LockHeldError && e.pid !== undefined ? ` (in use by process ${e.pid})` : "";
        log.line(`Failed to create file ${name}${by}. Check permissions or remove file`);
        return 1;
      }
      log.line(`RPC username/password is stored in file ${name}`);
    }
  }

  let rpc: Awaited<ReturnType<typeof startWalletRpc>>;
  try {
    rpc = await startWalletRpc({ service, port, host: bindIp, login, restricted: has(a, "restricted-rpc"), maxConnections, maxConnectionsPerIp: maxPerIp, maxConcurrency, log: (m) => log.line(m), tls: serverTls });
  } catch (e) {
    loginFile?.release();
    log.line(`Failed to initialize wallet RPC server: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  service.start();
  log.line(`Starting wallet RPC server on ${rpc.url}`);

  return new Promise<number>((done) => {
    let stopping = false;
    const shutdown = (why: string) => {
      if (stopping) return;
      stopping = true;
      log.line(`Stopping wallet RPC server (${why})`);
      const force = setTimeout(() => process.exit(1), 8000);
      force.unref();
      (async () => {
        let code = 0;
        try {
          log.line("Saving wallet...");
          await service.stop();
          log.line("Successfully saved");
        } catch (e) {
          log.line(`Failed to save wallet: ${e instanceof Error ? e.message : String(e)}`);
          code = 1;
        }
        await rpc.close().catch(() => undefined);
        node?.close();
        loginFile?.release();
        log.line("Stopped wallet RPC server");
        done(code);
        // worker threads and keep-alive sockets must not keep the process up
        setImmediate(() => process.exit(code));
      })();
    };
    service.onStop = () => shutdown("stop_wallet");
    process.once("SIGTERM", () => shutdown("SIGTERM"));
    process.once("SIGINT", () => shutdown("SIGINT"));
  });
}

await runCli(
  "tsmonero-wallet-rpc",
  `tsmonero-wallet-rpc ${VERSION}: a Monero wallet RPC service (monero-wallet-rpc-compatible), written in TypeScript.`,
  WALLET_FLAGS,
  main,
);
