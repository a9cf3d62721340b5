/**
 * `tsmonero-wallet-rpc`: the wallet RPC service with monero-wallet-rpc's flags and their meanings
 * (src/wallet/wallet_rpc_server.cpp main/t_daemon/init, src/rpc/rpc_args.cpp, wallet2::init_options).
 * Without --rpc-login or --disable-rpc-login a login "monero:<random>" is generated and written to
 * `monero-wallet-rpc.<port>.login` in the working directory, as monero-wallet-rpc does; the file is
 * held open while we run and removed at exit; one left by a killed run is replaced (os/lockfile). SIGTERM/SIGINT and stop_wallet store the open wallet and exit.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { NodeClient } from "../client/node-client.js";
import type { Network } from "../protocol/network.js";
import { createOwnedFile, type HeldFile, LockHeldError } from "../os/lockfile.js";
import type { Login } from "../rpc/index.js";
import { checkDaemonSsl, parseLogin, ServerTls, SslConfigError, type SslOptions, SSL_AUTODETECT } from "../rpc/index.js";
import { DEFAULT_KDF } from "../wallet/files/index.js";
import { daemonUrl, WalletService } from "../wallet/service/index.js";
import { startWalletRpc } from "../wallet/rpc/index.js";
import { startWebConsole, type WebConsole } from "../console/server.js";
import { DEFAULT_LOG_CATEGORIES, LOG_LEVEL_CATEGORIES } from "../node/rpc/state.js";
import { applyLogSpec, Logger } from "../os/log.js";
import { Notify, NotifySpecError } from "../os/notify.js";
import { inactiveNotes, type ParsedArgs, runCli, UsageError } from "./args.js";
import { detach, isDetachedChild, reportStart, writePidFile } from "./detach.js";
import { ipFlag, isLoopbackIp, logFlags, rpcServerFlags } from "./node-config.js";
import { sslFlags } from "./ssl-flags.js";
import { WALLET_FLAGS } from "./wallet-flags.js";
import { progressIntervalMs, stderrTerminal, walletProgress } from "./progress.js";
import { WalletHub } from "../wallet/hub/hub.js";
import { VERSION } from "./version.js";

export { WALLET_FLAGS };

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

/** The service's log: category "global" at INFO, filtered by --log-level, to stdout and --log-file (rotated). */
class Log {
  /** The last line, handed to the launcher when a detached start fails. */
  last = "";
  constructor(readonly logger: Logger) {}
  line(msg: string): void {
    this.last = msg;
    this.logger.write("global", "INFO", msg);
  }
}

/** --prompt-for-password: one line from the terminal (not echoed) or from piped stdin. */
function promptPassword(prompt: string): Promise<string> {
  return new Promise((done) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
    const out = rl as unknown as { _writeToOutput?: (s: string) => void };
    rl.question(prompt, (answer) => {
      rl.close();
      if (process.stdin.isTTY) process.stdout.write("\n");
      done(answer);
    });
    // after the prompt is shown, typed characters are not echoed
    out._writeToOutput = () => undefined;
  });
}

async function main(a: ParsedArgs): Promise<number> {
  const out = { log: undefined as Log | undefined };
  let code: number;
  try {
    code = await serve(a, out);
  } catch (e) {
    if (isDetachedChild()) reportStart({ ok: false, message: e instanceof Error ? e.message : String(e) });
    throw e;
  }
  // a detached start that ended before serving: the launcher prints why
  if (isDetachedChild()) reportStart({ ok: false, message: out.log?.last || `exited with code ${code}` });
  return code;
}

async function serve(a: ParsedArgs, out: { log: Log | undefined }): Promise<number> {
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
  const bindIp = ipFlag(a, "rpc-bind-ip", "127.0.0.1", 4);
  const bindIpv6 = ipFlag(a, "rpc-bind-ipv6-address", "::1", 6);
  ipFlag(a, "rpc-restricted-bind-ip", "127.0.0.1", 4);
  ipFlag(a, "rpc-restricted-bind-ipv6-address", "::1", 6);
  if (!isLoopbackIp(bindIp) && !has(a, "confirm-external-bind"))
    throw new UsageError("--rpc-bind-ip permits inbound unencrypted external connections. Consider --rpc-ssl instead. Override with --confirm-external-bind");
  if (!isLoopbackIp(bindIpv6) && !has(a, "confirm-external-bind"))
    throw new UsageError("--rpc-bind-ipv6-address permits inbound unencrypted external connections. Consider --rpc-ssl instead. Override with --confirm-external-bind");
  const rpcSsl = sslFlags(a, "rpc-ssl");
  if (has(a, "disable-rpc-login") && get(a, "rpc-login") !== undefined) throw new UsageError("Cannot specify --disable-rpc-login and --rpc-login");
  const logOpts = logFlags(a);
  const detached = isDetachedChild();
  const logFile = get(a, "log-file");
  const log = new Log(
    new Logger({
      ...(logFile !== undefined ? { file: resolve(logFile) } : {}),
      maxFileSize: logOpts.maxLogFileSize,
      maxFiles: logOpts.maxLogFiles,
      console: !detached,
      categories: logOpts.logLevel !== undefined ? applyLogSpec(logOpts.logLevel, DEFAULT_LOG_CATEGORIES, LOG_LEVEL_CATEGORIES) : DEFAULT_LOG_CATEGORIES,
    }),
  );
  out.log = log;
  const pidfile = get(a, "pidfile");
  if (pidfile !== undefined && !has(a, "detach")) log.line("--pidfile without --detach: no pid file is written (monero-wallet-rpc writes it only when detaching)");
  if (has(a, "detach") && !detached) {
    if (logFile === undefined) log.line("--detach without --log-file: the detached service's log goes nowhere");
    return detach("tsmonero-wallet-rpc");
  }
  const maxConcurrency = intFlag(a, "max-concurrency", 0, 0, 1024) || availableParallelism();
  const rpcFlags = rpcServerFlags(a);
  const txNotify = get(a, "tx-notify");
  if (txNotify !== undefined) {
    try {
      new Notify(txNotify);
    } catch (e) {
      if (e instanceof NotifySpecError) throw new UsageError(`--tx-notify '${txNotify}': ${e.message}`);
      throw e;
    }
  }
  for (const n of inactiveNotes(a, WALLET_FLAGS)) log.line(n);
  // wallet2's kdf_rounds: more rounds, a costlier key derivation; here scrypt's N doubles per doubling of the rounds
  const kdfRounds = intFlag(a, "kdf-rounds", 1, 1, 128);
  const kdf = kdfRounds > 1 ? { ...DEFAULT_KDF, log2N: DEFAULT_KDF.log2N + Math.ceil(Math.log2(kdfRounds)) } : undefined;
  const entropy = get(a, "extra-entropy");
  if (entropy !== undefined) {
    let n: number;
    try {
      n = readFileSync(entropy).length;
    } catch (e) {
      throw new UsageError(`cannot read --extra-entropy ${entropy}: ${(e as Error).message}`);
    }
    log.line(`--extra-entropy: read ${n} bytes from ${entropy}; keys come from the OS CSPRNG, which needs no seeding, so they are not mixed in`);
  }

  // the node
  const offline = has(a, "offline");
  const daemonSsl = sslFlags(a, "daemon-ssl");
  let address = get(a, "daemon-address");
  if (address === undefined) {
    const host = get(a, "daemon-host") ?? "localhost";
    // 0 (monero-wallet-rpc's shown default) means the network's port
    const dport = intFlag(a, "daemon-port", 0, 0, 65535) || DEFAULT_DAEMON_PORT[network];
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
    poolSpends: has(a, "detect-pool-spends"),
    // --max-concurrency 1: one scan thread per wallet
    scanThreads: Math.min(2, maxConcurrency),
    ...(kdf ? { kdf } : {}),
    log: (m) => log.line(m),
    // refresh and rescan: an updating line on a terminal, a log line every 10 s otherwise
    progress: walletProgress({ terminal: stderrTerminal(), log: (m) => log.line(m), intervalMs: progressIntervalMs() }),
  });

  // --wallet-hub (tsmonero's extension): named wallets of --wallet-dir next to the drop-in one
  let hub: WalletHub | undefined;
  if (has(a, "wallet-hub")) {
    if (walletDir === undefined || walletDir === "") throw new UsageError("--wallet-hub needs --wallet-dir: the hub's wallets are files of that directory");
    hub = new WalletHub({ network, walletDir: resolve(walletDir), node: node ?? null, trusted, connect, txNotify: get(a, "tx-notify"), poolSpends: has(a, "detect-pool-spends"), ...(kdf ? { kdf } : {}), log: (m) => log.line(m) });
  }

  // --wallet-file: open (and sync) before the server starts, as monero-wallet-rpc does
  if (walletFile !== undefined) {
    let password = get(a, "password") ?? "";
    if (get(a, "password") === undefined && get(a, "password-file") === undefined && has(a, "prompt-for-password")) password = await promptPassword("Wallet password: ");
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
    rpc = await startWalletRpc({ service, port, host: bindIp, login, restricted: has(a, "restricted-rpc"), maxConnections: rpcFlags.maxConnections, maxConnectionsPerIp: rpcFlags.maxConnectionsPerPrivateIp, maxConnectionsPerPublicIp: rpcFlags.maxConnectionsPerPublicIp, accessControlOrigins: rpcFlags.accessControlOrigins, responseSoftLimit: rpcFlags.responseSoftLimit, ...(rpcFlags.useIpv6 ? { ipv6Host: bindIpv6, requireIpv4: rpcFlags.requireIpv4 } : {}), maxConcurrency, log: (m) => log.line(m), tls: serverTls, ...(hub ? { hub } : {}) });
  } catch (e) {
    loginFile?.release();
    log.line(`Failed to initialize wallet RPC server: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  service.start();
  log.line(`Starting wallet RPC server on ${rpc.url}`);
  let webConsole: WebConsole | null = null;
  const consolePort = get(a, "web-console-port");
  if (consolePort !== undefined) {
    const port = /^[0-9]{1,5}$/.test(consolePort) && Number(consolePort) <= 65535 ? Number(consolePort) : null;
    const refuse =
      port === null
        ? `--web-console-port needs a port 0-65535 (got '${consolePort}')`
        : login
          ? "--web-console-port needs --disable-rpc-login (the console cannot log in to the wallet RPC)"
          : rpcSsl.support === "enabled"
            ? "--web-console-port cannot be used with --rpc-ssl enabled (the console speaks plain HTTP to the RPC)"
            : null;
    try {
      if (refuse) throw new Error(refuse);
      webConsole = await startWebConsole({ host: bindIp, port: port as number, nodeUrl: null, walletUrl: rpc.url, served: "wallet" });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      log.line(err.code === "EADDRINUSE" ? `web console port ${consolePort} is in use; choose another with --web-console-port` : (err.message ?? String(e)));
      await rpc.close();
      await service.stop();
      loginFile?.release();
      return 1;
    }
    log.line(`Web console on ${webConsole.url}/`);
  }
  let removePid: (() => void) | undefined;
  if (detached && pidfile !== undefined) {
    try {
      removePid = writePidFile(resolve(pidfile));
    } catch (e) {
      log.line(e instanceof Error ? e.message : String(e));
      await rpc.close();
      await service.stop();
      loginFile?.release();
      return 1;
    }
  }
  reportStart({ ok: true, message: `wallet RPC server on ${rpc.url}` });

  return new Promise<number>((done) => {
    let stopping = false;
    const shutdown = (why: string) => {
      if (stopping) return;
      stopping = true;
      log.line(`Stopping wallet RPC server (${why})`);
      // a stop that hangs (a socket that never closes) still ends, and still removes its pid file
      const force = setTimeout(() => {
        log.line("Stopping took over 8 s: exiting without waiting further");
        removePid?.();
        process.exit(1);
      }, 8000);
      force.unref();
      (async () => {
        let code = 0;
        try {
          log.line("Saving wallet...");
          await service.stop();
          await hub?.stop();
          log.line("Successfully saved");
        } catch (e) {
          log.line(`Failed to save wallet: ${e instanceof Error ? e.message : String(e)}`);
          code = 1;
        }
        await rpc.close().catch(() => undefined);
        await webConsole?.close().catch(() => undefined);
        node?.close();
        loginFile?.release();
        log.line("Stopped wallet RPC server");
        removePid?.();
        log.logger.close();
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
