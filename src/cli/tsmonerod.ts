/**
 * `tsmonerod`: the node daemon, accepting monerod's flags with monerod's meanings. It opens the
 * chain in --data-dir, serves monerod's RPC (src/node/rpc) and stops cleanly on SIGTERM, SIGINT or
 * /stop_daemon. Flags of features that arrive later (P2P, ZMQ, RPC payment, DNS checkpoints,
 * update checks) are accepted and logged as not yet active; an unknown flag is an error naming it.
 */
import { isIP } from "node:net";
import { resolve } from "node:path";
import { defaultDataDir, startDaemon } from "../node/daemon.js";
import type { Network } from "../protocol/network.js";
import { type FlagSpec, flag as s, option as v, type ParsedArgs, runCli, UsageError } from "./args.js";
import { sslFlags, sslFlagSpecs } from "./ssl-flags.js";
import { VERSION } from "./version.js";

/** monerod's flags that tsmonerod accepts. */
export const NODE_FLAGS: readonly FlagSpec[] = [
  s("version", "Print the version and exit"),
  s("regtest", "Run a private regression-test chain (mainnet addresses, fast hard forks)"),
  s("testnet", "Run on testnet"),
  s("stagenet", "Run on stagenet"),
  s("offline", "Do not listen for peers nor connect to any"),
  v("fixed-difficulty", "Fixed difficulty for regtest mining", "0"),
  v("data-dir", "Directory for the blockchain database", "~/.bitmonero"),
  v("rpc-bind-ip", "IP to bind the RPC server to", "127.0.0.1"),
  v("rpc-bind-port", "Port for the RPC server", "18081, 28081 with --testnet, 38081 with --stagenet"),
  s("restricted-rpc", "Restrict RPC to view-only commands"),
  v("rpc-restricted-bind-port", "Port for a second, restricted RPC server"),
  v("rpc-login", "Require HTTP digest auth, as username:password"),
  v("p2p-bind-ip", "Interface for p2p network protocol", "0.0.0.0"),
  v("p2p-bind-port", "Port for p2p network protocol", "18080, 28080 with --testnet, 38080 with --stagenet"),
  v("zmq-rpc-bind-port", "Port for the ZMQ RPC server", "18082, 28082 with --testnet, 38082 with --stagenet"),
  v("zmq-pub", "Address for ZMQ pub, tcp://ip:port", undefined, true),
  s("no-zmq", "Disable the ZMQ RPC server"),
  s("non-interactive", "Run non-interactive"),
  v("log-level", "Log level (0-4)", "0"),
  v("log-file", "Log file path", "<data-dir>/tsmonerod.log"),
  s("disable-dns-checkpoints", "Do not retrieve checkpoints from DNS"),
  v("check-updates", "Check for updates: disabled|notify|download|update", "notify"),
  ...sslFlagSpecs("rpc-ssl", true),
  v("add-exclusive-node", "Connect only to this peer (ip:port)", undefined, true),
  v("add-peer", "Manually add a peer to the local peer list (ip:port)", undefined, true),
  v("add-priority-node", "Keep a connection to this peer open (ip:port)", undefined, true),
  s("no-igd", "Disable UPnP port mapping"),
  v("rpc-max-connections", "Maximum simultaneous RPC connections", "100"),
  v("rpc-max-connections-per-private-ip", "Maximum RPC connections per private IP", "100"),
  v("rpc-max-connections-per-public-ip", "Maximum RPC connections per public IP", "3"),
  s("confirm-external-bind", "Confirm binding the RPC server to a non-loopback address"),
  v("db-sync-mode", "Database sync mode: safe|fast|fastest[:sync|async[:blocks]]", "fast:async:250000000bytes"),
  v("max-txpool-weight", "Maximum transaction pool weight in bytes", "648000000"),
  s("keep-fakechain", "Keep the regtest chain between runs"),
  v("rpc-payment-address", "Restrict RPC to clients sending micropayments to this address"),
  v("rpc-payment-difficulty", "Difficulty for RPC payment", "1000"),
  v("rpc-payment-credits", "Credits per hash for RPC payment", "100"),
];

/** Flags whose feature comes with a later issue: accepted, logged as not yet active. */
const NOT_YET: Readonly<Record<string, string>> = {
  "p2p-bind-ip": "P2P networking",
  "p2p-bind-port": "P2P networking",
  "add-exclusive-node": "P2P networking",
  "add-peer": "P2P networking",
  "add-priority-node": "P2P networking",
  "no-igd": "P2P networking (UPnP)",
  "zmq-rpc-bind-port": "ZMQ RPC",
  "zmq-pub": "ZMQ pub",
  "no-zmq": "ZMQ RPC",
  "disable-dns-checkpoints": "DNS checkpoints",
  "check-updates": "update checks",
  "rpc-payment-address": "RPC payment",
  "rpc-payment-difficulty": "RPC payment",
  "rpc-payment-credits": "RPC payment",
};

const PORTS = { mainnet: 18081, testnet: 28081, stagenet: 38081 } as const;

function str(args: ParsedArgs, name: string): string | undefined {
  const x = args.get(name);
  return typeof x === "string" ? x : Array.isArray(x) ? x[x.length - 1] : undefined;
}

function intFlag(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const x = str(args, name);
  if (x === undefined) return undefined;
  if (!/^[0-9]+$/.test(x) || Number(x) < min || Number(x) > max) throw new UsageError(`--${name} needs an integer from ${min} to ${max} (got '${x}')`);
  return Number(x);
}

function expandHome(p: string): string {
  return p === "~" || p.startsWith("~/") ? resolve(defaultDataDir(), "..", p.slice(2)) : resolve(p);
}

/** What the flags ask for, checked; errors name the flag. */
export function daemonConfig(args: ParsedArgs): Parameters<typeof startDaemon>[0] & { notYet: string[] } {
  if (args.has("testnet") && args.has("stagenet")) throw new UsageError("--testnet and --stagenet cannot be given together");
  const portNet = args.has("testnet") ? "testnet" : args.has("stagenet") ? "stagenet" : "mainnet";
  const network: Network = args.has("regtest") ? "regtest" : portNet;
  const fixed = str(args, "fixed-difficulty");
  if (fixed !== undefined && !/^[0-9]{1,20}$/.test(fixed)) throw new UsageError(`--fixed-difficulty needs a non-negative integer (got '${fixed}')`);
  const bindIp = str(args, "rpc-bind-ip") ?? "127.0.0.1";
  if (isIP(bindIp) === 0) throw new UsageError(`--rpc-bind-ip needs an IPv4 or IPv6 address (got '${bindIp}')`);
  const loopback = bindIp === "127.0.0.1" || bindIp === "::1" || bindIp.startsWith("127.");
  if (!loopback && !args.has("confirm-external-bind") && !args.has("restricted-rpc"))
    throw new UsageError(`--rpc-bind-ip ${bindIp} is not a loopback address: add --confirm-external-bind (or --restricted-rpc) to serve RPC to other machines`);
  const login = str(args, "rpc-login");
  if (login !== undefined && !/^[^:]+:.*$/.test(login)) throw new UsageError("--rpc-login needs username:password");
  const logLevel = intFlag(args, "log-level", 0, 4);
  const sync = str(args, "db-sync-mode");
  let syncMode: "safe" | "fast" | undefined;
  if (sync !== undefined) {
    const m = /^(safe|fast|fastest)(:(sync|async)(:[0-9]+(blocks|bytes)?)?)?$/.exec(sync);
    if (!m) throw new UsageError(`--db-sync-mode needs safe|fast|fastest[:sync|async[:<n>[blocks|bytes]]] (got '${sync}')`);
    syncMode = m[1] === "safe" ? "safe" : "fast";
  }
  const checkUpdates = str(args, "check-updates");
  if (checkUpdates !== undefined && !["disabled", "notify", "download", "update"].includes(checkUpdates))
    throw new UsageError(`--check-updates needs one of disabled|notify|download|update (got '${checkUpdates}')`);
  const rpcSsl = sslFlags(args, "rpc-ssl");
  intFlag(args, "p2p-bind-port", 0, 65535);
  intFlag(args, "zmq-rpc-bind-port", 0, 65535);
  const rpcPort = intFlag(args, "rpc-bind-port", 0, 65535) ?? PORTS[portNet];
  const restrictedPort = intFlag(args, "rpc-restricted-bind-port", 0, 65535);
  if (restrictedPort !== undefined && restrictedPort === rpcPort && rpcPort !== 0)
    throw new UsageError("--rpc-restricted-bind-port must differ from --rpc-bind-port");
  const maxConn = intFlag(args, "rpc-max-connections", 1, 1_000_000);
  const perPrivate = intFlag(args, "rpc-max-connections-per-private-ip", 1, 1_000_000);
  const perPublic = intFlag(args, "rpc-max-connections-per-public-ip", 1, 1_000_000);
  const maxPool = intFlag(args, "max-txpool-weight", 1, Number.MAX_SAFE_INTEGER);
  const dataDir = expandHome(str(args, "data-dir") ?? defaultDataDir());
  const logFile = str(args, "log-file");
  const notYet = Object.keys(NOT_YET).filter((k) => args.has(k));
  return {
    network,
    dataDir,
    ...(fixed !== undefined ? { fixedDifficulty: BigInt(fixed) } : {}),
    offline: args.has("offline"),
    keepFakechain: args.has("keep-fakechain"),
    rpcBindIp: bindIp,
    rpcBindPort: rpcPort,
    restrictedRpc: args.has("restricted-rpc"),
    ...(restrictedPort !== undefined ? { rpcRestrictedBindPort: restrictedPort } : {}),
    ...(login !== undefined ? { rpcLogin: login } : {}),
    ...(maxConn !== undefined ? { rpcMaxConnections: maxConn } : {}),
    // loopback clients count as private: monerod's per-private-IP limit applies to them
    ...(perPrivate !== undefined || perPublic !== undefined ? { rpcMaxConnectionsPerIp: Math.max(perPrivate ?? 100, perPublic ?? 3) } : {}),
    ...(logLevel !== undefined ? { logLevel } : {}),
    ...(logFile !== undefined ? { logFile: logFile === "" ? "" : expandHome(logFile) } : {}),
    ...(maxPool !== undefined ? { maxTxpoolWeight: maxPool } : {}),
    ...(syncMode ? { syncMode } : {}),
    rpcSsl,
    notYet,
  };
}

await runCli(
  "tsmonerod",
  `tsmonerod ${VERSION}: a Monero node (monerod-compatible RPC), written in TypeScript.`,
  NODE_FLAGS,
  async (args) => {
    if (args.has("version")) {
      console.log(`tsmonerod ${VERSION}`);
      return 0;
    }
    const { notYet, ...cfg } = daemonConfig(args);
    let daemon: Awaited<ReturnType<typeof startDaemon>>;
    try {
      daemon = await startDaemon(cfg);
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { port?: number };
      if (err.code === "EADDRINUSE" || err.code === "EACCES" || err.code === "EADDRNOTAVAIL")
        console.error(`tsmonerod: cannot serve RPC on ${cfg.rpcBindIp}:${err.port ?? cfg.rpcBindPort} (${err.code}): another process uses the port, or choose another with --rpc-bind-port / --rpc-restricted-bind-port`);
      else console.error(`tsmonerod: cannot start: ${err.message ?? String(e)}`);
      return 1;
    }
    for (const k of notYet) daemon.log(0, `tsmonerod: --${k} accepted; ${NOT_YET[k]} is not active yet in this version`);
    if (cfg.fixedDifficulty !== undefined && cfg.network !== "regtest") daemon.log(0, "tsmonerod: --fixed-difficulty only applies with --regtest; ignored");
    console.log(`tsmonerod: RPC listening on ${daemon.rpcUrl}${daemon.restrictedRpcUrl ? ` (restricted RPC on ${daemon.restrictedRpcUrl})` : ""}`);
    let signals = 0;
    const onSignal = (sig: string): void => {
      signals++;
      if (signals > 1) {
        console.error(`tsmonerod: second ${sig}, exiting now`);
        process.exit(1);
      }
      void daemon.stop(sig);
    };
    process.on("SIGTERM", () => onSignal("SIGTERM"));
    process.on("SIGINT", () => onSignal("SIGINT"));
    await daemon.stopped;
    return 0;
  },
);
