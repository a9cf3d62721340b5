/**
 * tsmonerod's flags turned into the daemon's options, checked as monerod checks them (rpc_args,
 * core_rpc_server::init, daemon main); each error names the flag and what to write instead.
 */
import { isIP } from "node:net";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { defaultDataDir, type DaemonOptions } from "../node/daemon.js";
import { checkPubAddress, ZmqAddressError } from "../node/zmq/address.js";
import { ZMQ_RPC_PORTS } from "../node/zmq/rpc-server.js";
import { DEFAULT_LOG_CATEGORIES, LOG_LEVEL_CATEGORIES } from "../node/rpc/state.js";
import { applyLogSpec, LogSpecError } from "../os/log.js";
import { Notify, NotifySpecError } from "../os/notify.js";
import { decodeAddress } from "../protocol/address.js";
import type { Network } from "../protocol/network.js";
import { argInt, argString as str, type ParsedArgs, UsageError } from "./args.js";
import { sslFlags } from "./ssl-flags.js";
import { DEFAULT_P2P_PORT } from "../node/p2p/messages.js";
import { parseHostPort } from "../node/p2p/node.js";
import type { P2pDaemonOptions } from "../node/daemon.js";
import { readFileSync } from "node:fs";

/** A multi-valued flag as a list. */
function list(args: ParsedArgs, name: string): string[] {
  const v = args.get(name);
  return typeof v === "string" ? [v] : Array.isArray(v) ? v : [];
}

/** node_server::init's P2P flags, checked as monerod checks them. */
function p2pFlags(args: ParsedArgs, network: Network, notes: string[]): P2pDaemonOptions {
  const def = DEFAULT_P2P_PORT[network];
  const port = argInt(args, "p2p-bind-port", 0, 65535) ?? def;
  const ip = str(args, "p2p-bind-ip") ?? "0.0.0.0";
  if (isIP(ip) !== 4) throw new UsageError(`--p2p-bind-ip '${ip}' is not an IPv4 address; give one such as 0.0.0.0 or 127.0.0.1`);
  const ip6 = str(args, "p2p-bind-ipv6-address") ?? "::";
  if (isIP(ip6) !== 6) throw new UsageError(`--p2p-bind-ipv6-address '${ip6}' is not an IPv6 address; give one such as :: or ::1`);
  const port6 = argInt(args, "p2p-bind-port-ipv6", 0, 65535) ?? port;
  const nodes = (flag: string): string[] =>
    list(args, flag).map((a) => {
      if (!parseHostPort(a, def)) throw new UsageError(`--${flag} '${a}' is not host:port (e.g. 127.0.0.1:${def})`);
      return a;
    });
  const outPeers = argInt(args, "out-peers", -1, 1_000_000);
  const inPeers = argInt(args, "in-peers", -1, 1_000_000);
  const limit = argInt(args, "limit-rate", -1, 1_000_000_000);
  const up = argInt(args, "limit-rate-up", -1, 1_000_000_000) ?? (limit !== undefined && limit >= 0 ? limit : undefined);
  const down = argInt(args, "limit-rate-down", -1, 1_000_000_000) ?? (limit !== undefined && limit >= 0 ? limit : undefined);
  if (up !== undefined || down !== undefined) notes.push("--limit-rate*: the limits are kept and reported by get_limit; P2P traffic is not throttled yet");
  const banList = str(args, "ban-list");
  let bans: string[] = [];
  if (banList !== undefined) {
    try {
      bans = readFileSync(banList, "utf8").split(/\r?\n/).map((l) => l.replace(/#.*/, "").trim()).filter((l) => l !== "");
    } catch (e) {
      throw new UsageError(`--ban-list ${banList}: cannot read it (${(e as Error).message})`);
    }
    for (const b of bans) if (!/^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(b) && isIP(b) === 0) throw new UsageError(`--ban-list ${banList}: '${b}' is not an IP address or subnet`);
  }
  if (args.has("fluffy-blocks") && args.has("no-fluffy-blocks")) throw new UsageError("--fluffy-blocks and --no-fluffy-blocks cannot both be given");
  const exclusive = nodes("add-exclusive-node");
  if (exclusive.length > 0 && (list(args, "add-priority-node").length > 0 || list(args, "seed-node").length > 0))
    notes.push("--add-exclusive-node given: --add-priority-node and --seed-node are ignored (as monerod)");
  const syncSize = argInt(args, "block-sync-size", 0, 2048);
  const maxPerIp = argInt(args, "max-connections-per-ip", 1, 65535);
  const ext = argInt(args, "p2p-external-port", 0, 65535);
  return {
    bindIp: ip,
    bindPort: port,
    ...(args.has("p2p-use-ipv6") ? { ipv6: { ip: ip6, port: port6 } } : {}),
    ignoreIpv4: args.has("p2p-ignore-ipv4"),
    ...(ext ? { externalPort: ext } : {}),
    hideMyPort: args.has("hide-my-port"),
    padTransactions: args.has("pad-transactions"),
    addPeers: nodes("add-peer"),
    priorityNodes: nodes("add-priority-node"),
    exclusiveNodes: exclusive,
    seedNodes: nodes("seed-node"),
    ...(outPeers !== undefined && outPeers >= 0 ? { outPeers } : {}),
    ...(inPeers !== undefined && inPeers >= 0 ? { inPeers } : {}),
    noSync: args.has("no-sync"),
    allowLocalIp: args.has("allow-local-ip"),
    ...(maxPerIp !== undefined ? { maxConnectionsPerIp: maxPerIp } : {}),
    noFluffyBlocks: args.has("no-fluffy-blocks"),
    ...(syncSize ? { blockSyncSize: syncSize } : {}),
    ...(up !== undefined && up >= 0 ? { limitUp: up } : {}),
    ...(down !== undefined && down >= 0 ? { limitDown: down } : {}),
    bans,
  };
}

const PORTS = { mainnet: 18081, testnet: 28081, stagenet: 38081 } as const;

function expandHome(p: string): string {
  return p === "~" || p.startsWith("~/") ? join(homedir(), p.slice(2)) : resolve(p);
}

/** The network the command line asks for (monerod: more than one of them is an error). */
export function networkOf(args: ParsedArgs): { network: Network; portNet: "mainnet" | "testnet" | "stagenet" } {
  const n = ["testnet", "stagenet", "regtest"].filter((k) => args.has(k));
  if (n.length > 1) throw new UsageError("Can't specify more than one of --testnet and --stagenet and --regtest");
  const portNet = args.has("testnet") ? "testnet" : args.has("stagenet") ? "stagenet" : "mainnet";
  return { network: args.has("regtest") ? "regtest" : portNet, portNet };
}

/** monerod's default config file: ~/.bitmonero[/testnet|/stagenet]/bitmonero.conf, whatever --data-dir says (daemon_args::arg_config_file). */
export function defaultNodeConfigFile(commandLine: ParsedArgs): string {
  const sub = commandLine.has("testnet") ? ["testnet"] : commandLine.has("stagenet") ? ["stagenet"] : [];
  return join(defaultDataDir(), ...sub, "bitmonero.conf");
}

/** An IP flag: an IPv4 or IPv6 address (brackets allowed around IPv6, as rpc_args allows). */
export function ipFlag(args: ParsedArgs, name: string, dflt: string, family: 4 | 6 | 0 = 0): string {
  let ip = str(args, name) ?? dflt;
  if (ip.startsWith("[") && ip.endsWith("]")) ip = ip.slice(1, -1);
  const f = isIP(ip);
  if (f === 0 || (family !== 0 && f !== family)) throw new UsageError(`Invalid IP address given for --${name}: '${ip}' (write an IPv${family === 0 ? "4 or IPv6" : family} address)`);
  return ip;
}

/** epee's is_loopback. */
export function isLoopbackIp(ip: string): boolean {
  return ip === "::1" || /^127\./.test(ip) || /^::ffff:127\./.test(ip);
}

/** What the CORS, connection and ban flags ask of the RPC servers (both commands). */
export interface RpcServerFlags {
  accessControlOrigins: string[];
  maxConnections: number;
  maxConnectionsPerPublicIp: number;
  maxConnectionsPerPrivateIp: number;
  responseSoftLimit: number;
  disableRpcBan: boolean;
  useIpv6: boolean;
  requireIpv4: boolean;
}

/** rpc_args::process and the limits of core_rpc_server::init / wallet_rpc_server::init. */
export function rpcServerFlags(args: ParsedArgs): RpcServerFlags {
  const maxConnections = argInt(args, "rpc-max-connections", 1, 1_000_000) ?? 100;
  const maxConnectionsPerPublicIp = argInt(args, "rpc-max-connections-per-public-ip", 1, 1_000_000) ?? 3;
  const maxConnectionsPerPrivateIp = argInt(args, "rpc-max-connections-per-private-ip", 1, 1_000_000) ?? 25;
  if (maxConnections < maxConnectionsPerPublicIp) throw new UsageError(`--rpc-max-connections-per-public-ip (${maxConnectionsPerPublicIp}) is bigger than --rpc-max-connections (${maxConnections}); lower it or raise --rpc-max-connections`);
  if (maxConnections < maxConnectionsPerPrivateIp) throw new UsageError(`--rpc-max-connections-per-private-ip (${maxConnectionsPerPrivateIp}) is bigger than --rpc-max-connections (${maxConnections}); lower it or raise --rpc-max-connections`);
  const origins = str(args, "rpc-access-control-origins");
  return {
    // rpc_args: split on ",", each trimmed
    accessControlOrigins: origins === undefined || origins === "" ? [] : origins.split(",").map((o) => o.trim()),
    maxConnections,
    maxConnectionsPerPublicIp,
    maxConnectionsPerPrivateIp,
    responseSoftLimit: argInt(args, "rpc-response-soft-limit", 0, Number.MAX_SAFE_INTEGER) ?? 26214400,
    disableRpcBan: args.has("disable-rpc-ban"),
    useIpv6: args.has("rpc-use-ipv6"),
    requireIpv4: !args.has("rpc-ignore-ipv4"),
  };
}

/** The log file as monerod places it: a bare file name goes in the data dir, a path is taken as given. */
export function logFilePath(given: string | undefined, dataDir: string, dflt: string): string {
  if (given === undefined) return dflt;
  if (given === "") return "";
  const p = expandHome(given);
  return isAbsolute(given) || given.includes("/") ? p : join(dataDir, given);
}

/** The log options both commands share: --log-file, --log-level, --max-log-file-size, --max-log-files. */
export interface LogFlags {
  logLevel?: string;
  maxLogFileSize: number;
  maxLogFiles: number;
}

export function logFlags(args: ParsedArgs): LogFlags {
  const level = str(args, "log-level");
  if (level !== undefined) {
    try {
      applyLogSpec(level, DEFAULT_LOG_CATEGORIES, LOG_LEVEL_CATEGORIES);
    } catch (e) {
      if (e instanceof LogSpecError) throw new UsageError(`--log-level ${level}: ${e.message} (write 0-4, or categories such as *:WARNING,net:DEBUG)`);
      throw e;
    }
  }
  return {
    ...(level !== undefined ? { logLevel: level } : {}),
    maxLogFileSize: argInt(args, "max-log-file-size", 0, Number.MAX_SAFE_INTEGER) ?? 104850000,
    maxLogFiles: argInt(args, "max-log-files", 0, 1_000_000) ?? 50,
  };
}

/** What tsmonerod runs with: the daemon's options and what the launcher itself does. */
export interface NodeConfig {
  daemon: DaemonOptions;
  /** Lines to log at start (inactive flags, ignored settings). */
  notes: string[];
  detach: boolean;
  pidfile?: string;
  startMining?: { address: string; threads: number; background: boolean; ignoreBattery: boolean };
}

/**
 * The launcher's RPC warm-up (node/rpc/warmup.ts): 1,000 rounds (about 9,200 reads, 4-6 s of one
 * core beside the first clients) once the chain has 1,000 blocks. 300 rounds left the header path's
 * functions to be optimized during the first cold reads (docs/bench-scale.md, stop 48). TSMONERO_RPC_WARMUP sets the rounds;
 * 0 turns it off. Not a monerod flag, so an environment variable: monerod's command lines stay valid.
 */
export const RPC_WARMUP_DEFAULT = { rounds: 1000, minHeight: 1000 } as const;

function rpcWarmupOf(env: NodeJS.ProcessEnv): { rounds: number; minHeight: number } {
  const v = env.TSMONERO_RPC_WARMUP;
  if (v === undefined || v === "") return { ...RPC_WARMUP_DEFAULT };
  if (!/^[0-9]{1,6}$/.test(v)) throw new UsageError(`TSMONERO_RPC_WARMUP must be the warm-up's rounds, 0 to 999999 (0 turns it off), got '${v}'`);
  return { rounds: Number(v), minHeight: RPC_WARMUP_DEFAULT.minHeight };
}

/** What the flags ask for, checked; errors name the flag. */
export function nodeConfig(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): NodeConfig {
  const { network, portNet } = networkOf(args);
  const notes: string[] = [];
  const fixed = str(args, "fixed-difficulty");
  if (fixed !== undefined && !/^[0-9]{1,20}$/.test(fixed)) throw new UsageError(`--fixed-difficulty needs a non-negative integer (got '${fixed}')`);
  const bindIp = ipFlag(args, "rpc-bind-ip", "127.0.0.1", 4);
  const bindIpv6 = ipFlag(args, "rpc-bind-ipv6-address", "::1", 6);
  const restrictedIp = ipFlag(args, "rpc-restricted-bind-ip", "127.0.0.1", 4);
  const restrictedIpv6 = ipFlag(args, "rpc-restricted-bind-ipv6-address", "::1", 6);
  const confirmed = args.has("confirm-external-bind") || args.has("restricted-rpc");
  if (!isLoopbackIp(bindIp) && !confirmed)
    throw new UsageError(`--rpc-bind-ip ${bindIp} permits inbound unencrypted external connections. Consider SSH tunnel or SSL proxy instead. Override with --confirm-external-bind (or serve --restricted-rpc)`);
  if (!isLoopbackIp(bindIpv6) && !confirmed)
    throw new UsageError(`--rpc-bind-ipv6-address ${bindIpv6} permits inbound unencrypted external connections. Consider SSH tunnel or SSL proxy instead. Override with --confirm-external-bind`);
  const login = str(args, "rpc-login");
  if (login !== undefined && !/^[^:]+(:.*)?$/.test(login)) throw new UsageError("--rpc-login needs username[:password] with a non-empty username");
  if (login !== undefined && !login.includes(":")) throw new UsageError("--rpc-login without a password would prompt for one; tsmonerod does not prompt: write --rpc-login username:password");
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
  if (checkUpdates !== undefined && checkUpdates !== "disabled") notes.push(`--check-updates ${checkUpdates}: tsmonerod does not look up Monero's releases (they are not tsmonero's); nothing is checked or downloaded`);
  argInt(args, "test-dbg-lock-sleep", 0, 1_000_000);
  const rpcSsl = sslFlags(args, "rpc-ssl");
  const rpcPort = argInt(args, "rpc-bind-port", 0, 65535) ?? PORTS[portNet];
  const restrictedPort = argInt(args, "rpc-restricted-bind-port", 0, 65535);
  if (restrictedPort !== undefined && restrictedPort === rpcPort && rpcPort !== 0)
    throw new UsageError("--rpc-restricted-bind-port must differ from --rpc-bind-port");
  // parse_public_rpc_port: a public node serves restricted RPC
  if (args.has("public-node")) {
    if (restrictedPort === undefined && !args.has("restricted-rpc"))
      throw new UsageError("--public-node needs restricted RPC mode: add --restricted-rpc or --rpc-restricted-bind-port");
    notes.push("--public-node: its restricted RPC is served; the RPC port is not yet announced to peers over P2P");
  }
  const rpc = rpcServerFlags(args);
  const maxPool = argInt(args, "max-txpool-weight", 1, Number.MAX_SAFE_INTEGER);
  const maxConcurrency = argInt(args, "max-concurrency", 0, 1024);
  const dataDir = expandHome(str(args, "data-dir") ?? defaultDataDir());
  const log = logFlags(args);
  const logFile = logFilePath(str(args, "log-file"), dataDir, join(dataDir, "tsmonerod.log"));
  if (args.has("pidfile") && !args.has("detach")) notes.push("--pidfile without --detach: no pid file is written (monerod writes it only when detaching)");
  if (fixed !== undefined && network !== "regtest") notes.push("--fixed-difficulty only applies with --regtest; ignored");
  if (args.has("disable-dns-checkpoints")) notes.push("--disable-dns-checkpoints: tsmonerod never retrieves DNS checkpoints");
  const hooks: Partial<Record<"blockNotify" | "reorgNotify" | "blockRateNotify", string>> = {};
  for (const [flag, key] of [["block-notify", "blockNotify"], ["reorg-notify", "reorgNotify"], ["block-rate-notify", "blockRateNotify"]] as const) {
    const spec = str(args, flag);
    if (spec === undefined) continue;
    try {
      new Notify(spec);
    } catch (e) {
      if (e instanceof NotifySpecError) throw new UsageError(`--${flag} '${spec}': ${e.message}`);
      throw e;
    }
    hooks[key] = spec;
  }
  // --start-mining (miner::init): a bad address stops the start, as monerod's "starting daemon canceled"
  let startMining: DaemonOptions["startMining"];
  const mineTo = str(args, "start-mining");
  if (mineTo !== undefined) {
    let kind: string;
    try {
      kind = decodeAddress(mineTo, network).kind;
    } catch (e) {
      throw new UsageError(`--start-mining: target account address ${mineTo} has wrong format for ${network} (${e instanceof Error ? e.message : String(e)}); starting daemon canceled`);
    }
    if (kind === "subaddress") throw new UsageError("--start-mining: mining to a subaddress is not supported; give the wallet's main address");
    const threads = argInt(args, "mining-threads", 1, 1024) ?? 1;
    startMining = { address: mineTo, threads, background: args.has("bg-mining-enable"), ignoreBattery: args.has("bg-mining-ignore-battery") };
  } else if (args.has("mining-threads")) notes.push("--mining-threads without --start-mining: nothing is mined");
  for (const f of ["bg-mining-min-idle-interval", "bg-mining-idle-threshold", "bg-mining-miner-target"]) argInt(args, f, 0, 1_000_000);
  // daemon.cpp: the pub lives in the ZMQ server, so --no-zmq leaves it out too
  const pubFlag = args.get("zmq-pub");
  const zmqPub = (typeof pubFlag === "string" ? [pubFlag] : Array.isArray(pubFlag) ? pubFlag : []).map((a) => {
    try {
      return checkPubAddress(a);
    } catch (e) {
      if (e instanceof ZmqAddressError) throw new UsageError(e.message);
      throw e;
    }
  });
  if (zmqPub.length > 0 && args.has("no-zmq")) notes.push("--zmq-pub with --no-zmq: the ZMQ server is disabled, nothing is published (as monerod)");
  // daemon.cpp: the ZMQ RPC server binds tcp://<--zmq-rpc-bind-ip>:<--zmq-rpc-bind-port> unless --no-zmq
  const zmqIp = ipFlag(args, "zmq-rpc-bind-ip", "127.0.0.1");
  const zmqPort = argInt(args, "zmq-rpc-bind-port", 1, 65535) ?? ZMQ_RPC_PORTS[network];
  if (zmqPort === rpcPort) throw new UsageError(`--zmq-rpc-bind-port ${zmqPort} is the RPC port too; give the ZMQ RPC its own port`);
  if (args.has("no-zmq") && (args.has("zmq-rpc-bind-ip") || args.has("zmq-rpc-bind-port"))) notes.push("--zmq-rpc-bind-* with --no-zmq: the ZMQ RPC server is disabled (as monerod)");
  const p2p = p2pFlags(args, network, notes);
  const daemon: DaemonOptions = {
    ...hooks,
    p2p,
    ...(zmqPub.length > 0 && !args.has("no-zmq") ? { zmqPub } : {}),
    ...(args.has("no-zmq") ? {} : { zmqRpc: { ip: zmqIp, port: zmqPort } }),
    ...(startMining ? { startMining } : {}),
    network,
    dataDir,
    ...(fixed !== undefined ? { fixedDifficulty: BigInt(fixed) } : {}),
    offline: args.has("offline"),
    pruneBlockchain: args.has("prune-blockchain"),
    keepAltBlocks: args.has("keep-alt-blocks"),
    dbSalvage: args.has("db-salvage"),
    disableDnsCheckpoints: args.has("disable-dns-checkpoints"),
    ...bootstrapOf(args),
    keepFakechain: args.has("keep-fakechain"),
    rpcBindIp: bindIp,
    rpcBindPort: rpcPort,
    restrictedRpc: args.has("restricted-rpc"),
    ...(restrictedPort !== undefined ? { rpcRestrictedBindPort: restrictedPort } : {}),
    ...(login !== undefined ? { rpcLogin: login } : {}),
    rpcMaxConnections: rpc.maxConnections,
    rpcMaxConnectionsPerIp: rpc.maxConnectionsPerPrivateIp,
    rpcMaxConnectionsPerPublicIp: rpc.maxConnectionsPerPublicIp,
    rpcAccessControlOrigins: rpc.accessControlOrigins,
    rpcResponseSoftLimit: rpc.responseSoftLimit,
    disableRpcBan: rpc.disableRpcBan,
    rpcUseIpv6: rpc.useIpv6,
    rpcRequireIpv4: rpc.requireIpv4,
    rpcBindIpv6: bindIpv6,
    rpcRestrictedBindIp: restrictedIp,
    rpcRestrictedBindIpv6: restrictedIpv6,
    ...(log.logLevel !== undefined && /^[0-4]$/.test(log.logLevel) ? { logLevel: Number(log.logLevel) } : log.logLevel !== undefined ? { logCategories: log.logLevel } : {}),
    logFile,
    maxLogFileSize: log.maxLogFileSize,
    maxLogFiles: log.maxLogFiles,
    ...(maxPool !== undefined ? { maxTxpoolWeight: maxPool } : {}),
    ...(syncMode ? { syncMode } : {}),
    ...(maxConcurrency !== undefined && maxConcurrency > 0 ? { verifyThreads: maxConcurrency } : {}),
    rpcSsl,
    rpcWarmup: rpcWarmupOf(env),
  };
  return { daemon, notes, detach: args.has("detach"), ...(str(args, "pidfile") !== undefined ? { pidfile: resolve(str(args, "pidfile") ?? "") } : {}) };
}

/** --bootstrap-daemon-address / -login (core_rpc_server::init's bootstrap daemon). */
function bootstrapOf(args: ParsedArgs): { bootstrapDaemon?: { address: string; login?: string } } {
  const address = str(args, "bootstrap-daemon-address");
  const login = str(args, "bootstrap-daemon-login");
  if (address === undefined || address === "") {
    if (login !== undefined) throw new UsageError("--bootstrap-daemon-login needs --bootstrap-daemon-address");
    return {};
  }
  if (login !== undefined && !login.includes(":")) throw new UsageError(`--bootstrap-daemon-login needs username:password (got '${login}')`);
  if (address !== "auto" && !/^(https?:\/\/)?(\[[0-9a-fA-F:.]+\]|[^/:\s]+)(:\d+)?\/?$/.test(address)) throw new UsageError(`--bootstrap-daemon-address '${address}' is not host:port or a URL (e.g. 127.0.0.1:18081)`);
  return { bootstrapDaemon: { address, ...(login !== undefined ? { login } : {}) } };
}
