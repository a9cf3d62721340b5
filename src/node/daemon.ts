/**
 * tsmonerod's daemon: opens the node core (node/chain) and serves its RPC on the main port and, when
 * asked, a restricted port, with logging per --log-level/--log-file. `stop()` (SIGTERM, SIGINT or
 * /stop_daemon) closes the RPC servers, then the core (miner, workers, database). Package subpath
 * `tsmonero/node`, which also gives `nodeClient` (the typed client of any node: NodeRpcApi's and
 * NodePathApi's params and results per method and path).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statfsSync, statSync } from "node:fs";
import { Checkpoints, defaultCheckpoints } from "../consensus/checkpoints.js";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { Network } from "../protocol/network.js";
import { acquirePidLock, LockHeldError } from "../os/lockfile.js";
import { applyLogSpec, Logger } from "../os/log.js";
import { Notify } from "../os/notify.js";
import { parseLogin } from "../rpc/digest.js";
import { RpcServer } from "../rpc/server.js";
import { ServerTls, SSL_AUTODETECT, type SslOptions } from "../rpc/tls.js";
import { BLOCK_RATE_BLOCKS, BLOCK_RATE_INTERVAL_MS, checkBlockRate } from "./block-rate.js";
import { openNode } from "./chain/index.js";
import type { NodeCore } from "./core.js";
import { throttled } from "./rpc/cache.js";
import { DaemonState, nodeMethods, primeNewBlockEntries } from "./rpc/index.js";
import { addBootstrapForwarding, BootstrapDaemon, type BootstrapOptions } from "./rpc/bootstrap.js";
import { bootstrapAddress } from "./rpc/control.js";
import { LOG_LEVEL_CATEGORIES } from "./rpc/state.js";
import { dropCoreCaches } from "./rpc/common.js";
import { WARMUP_WINDOW, type WarmupReport, warmUpRpc } from "./rpc/warmup.js";
import { publishCoreEvents } from "./zmq/events.js";
import { P2pNode, type P2pOptions } from "./p2p/node.js";
import { ipv4ToInt } from "./rpc/state.js";
import { ZmqPublisher } from "./zmq/pub.js";
import { ZmqRpcServer } from "./zmq/rpc-server.js";

export { nodeClient, type NodePath, type NodePathApi, type NodeRpcApi, type NodeRpcMethod } from "./rpc/api.js";

/** The P2P flags (node/p2p's options without what the daemon supplies), plus the ban list and rate limits. */
export type P2pDaemonOptions = Omit<P2pOptions, "isAllowed" | "ban" | "log" | "stateDir" | "rpcPort"> & {
  /** --ban-list: hosts and subnets banned from the start (for a year, as monerod's block_host default). */
  bans?: readonly string[];
  limitUp?: number;
  limitDown?: number;
};

export interface DaemonOptions {
  /** P2P networking (not started with --offline); absent: no P2P. */
  p2p?: P2pDaemonOptions;
  network: Network;
  /** Base data directory (monerod's --data-dir); the chain goes in <dataDir>[/testnet|/stagenet][/fake]/lmdb. */
  dataDir: string;
  fixedDifficulty?: bigint;
  offline?: boolean;
  /** --bootstrap-daemon-address / -login: where wallets' calls go while this node is behind. */
  bootstrapDaemon?: BootstrapOptions;
  /** --db-salvage: open the chain at its previous committed snapshot (a damaged newest meta page). */
  dbSalvage?: boolean;
  /** --keep-alt-blocks: keep the stored alternative blocks across a restart (monerod drops them by default). */
  keepAltBlocks?: boolean;
  /** --prune-blockchain: prune the chain at start (a random stripe the first time), then as it grows. */
  pruneBlockchain?: boolean;
  /** regtest: keep the chain between runs (monerod wipes a fake chain at start without it). */
  keepFakechain?: boolean;
  rpcBindIp?: string;
  rpcBindPort: number;
  restrictedRpc?: boolean;
  rpcRestrictedBindPort?: number;
  /** "user:pass" for HTTP digest auth. */
  rpcLogin?: string;
  rpcMaxConnections?: number;
  /** Per loopback/private IP (monerod's --rpc-max-connections-per-private-ip; default 100 here, 25 in the launcher as monerod). */
  rpcMaxConnectionsPerIp?: number;
  /** --rpc-max-connections-per-public-ip; default rpcMaxConnectionsPerIp. */
  rpcMaxConnectionsPerPublicIp?: number;
  /** --rpc-access-control-origins: CORS for these origins ("*": any). */
  rpcAccessControlOrigins?: readonly string[];
  /** --rpc-response-soft-limit, bytes queued per connection before its next request waits. */
  rpcResponseSoftLimit?: number;
  /** --disable-rpc-ban: failed get_blocks.bin / get_hashes.bin never ban the client. */
  disableRpcBan?: boolean;
  /** --rpc-use-ipv6: also listen on rpcBindIpv6 (default ::1) and, for the restricted port, rpcRestrictedBindIpv6. */
  rpcUseIpv6?: boolean;
  rpcBindIpv6?: string;
  /** --rpc-restricted-bind-ip (the launcher's default 127.0.0.1, as monerod); default here: rpcBindIp. */
  rpcRestrictedBindIp?: string;
  rpcRestrictedBindIpv6?: string;
  /** false (--rpc-ignore-ipv4): an IPv4 address that cannot be bound is logged, not fatal, when IPv6 is served. */
  rpcRequireIpv4?: boolean;
  /** --start-mining / --mining-threads / --bg-mining-*: mine to this address from the start. */
  startMining?: { address: string; threads: number; background?: boolean; ignoreBattery?: boolean };
  /** --rpc-ssl*: TLS of both RPC servers. Default autodetect (TLS and plain HTTP on one port), as monerod. */
  rpcSsl?: SslOptions;
  logLevel?: number;
  /** --log-level given as categories (mlog_set_log's syntax: "2", "*:WARNING,net:DEBUG", "+rpc:INFO"); wins over logLevel. */
  logCategories?: string;
  /** Log file; default <dataDir>/tsmonerod.log; "" disables the file. */
  logFile?: string;
  /** --max-log-file-size: the log file is rotated past this many bytes (0: never). Default 104850000. */
  maxLogFileSize?: number;
  /** --max-log-files: rotated files kept (0: all). Default 50. */
  maxLogFiles?: number;
  /** Also print log lines on stdout (default true). */
  logToConsole?: boolean;
  maxTxpoolWeight?: number;
  syncMode?: "safe" | "fast";
  verifyThreads?: number;
  /** --block-notify: run for each block added to the main chain, %s = its hash. */
  blockNotify?: string;
  /** --reorg-notify: run for each reorg, %s split height, %h new height, %n new blocks, %d discarded blocks. */
  reorgNotify?: string;
  /** --block-rate-notify: run when the block rate is improbable, %t minutes, %b blocks, %e expected (block-rate.ts). */
  blockRateNotify?: string;
  /** --disable-dns-checkpoints: as monerod 0.18, <dataDir>/checkpoints.json is then not read either. */
  disableDnsCheckpoints?: boolean;
  /** --zmq-pub: bind monerod's ZMQ pub (tcp://ip:port or ipc://path) on each address. */
  zmqPub?: readonly string[];
  /** --zmq-rpc-bind-ip / --zmq-rpc-bind-port: monerod's ZMQ JSON RPC (absent with --no-zmq). */
  zmqRpc?: { ip: string; port: number };
  /**
   * The RPC warm-up after start (node/rpc/warmup.ts): `rounds` rounds of reads sent to the main RPC
   * server over loopback when the chain has at least `minHeight` blocks and no bootstrap daemon is
   * set (its reads would be forwarded there). Absent: none (the launcher turns it on: TSMONERO_RPC_WARMUP).
   */
  rpcWarmup?: { rounds: number; minHeight?: number };
}

export interface Daemon {
  core: NodeCore;
  state: DaemonState;
  rpcUrl: string;
  restrictedRpcUrl?: string;
  /** The bound --zmq-pub addresses (none without --zmq-pub). */
  zmqPubAddresses: readonly string[];
  /** The ZMQ RPC's bound address (tcp://ip:port), absent with --no-zmq. */
  zmqRpcAddress?: string;
  /** The P2P service (undefined offline or without P2P options). */
  p2p?: P2pNode;
  /** Resolves when the RPC warm-up has ended (undefined: none ran). */
  readonly warmup: Promise<WarmupReport | undefined>;
  /** Resolves when the daemon has stopped (database closed). */
  readonly stopped: Promise<void>;
  stop(reason?: string): Promise<void>;
  log(level: number, msg: string): void;
}

/** monerod's default data directory (~/.bitmonero). */
export function defaultDataDir(): string {
  return join(homedir(), ".bitmonero");
}

/** Where the LMDB chain lives under a data dir (monerod: testnet/ and stagenet/ subdirs, fake/ for regtest). */
/**
 * The checkpoints monerod 0.18 enforces: mainnet's hard-coded table, plus <dataDir>/checkpoints.json
 * unless --disable-dns-checkpoints (core::init, core::update_checkpoints). None on other networks.
 */
function loadCheckpoints(opts: DaemonOptions, log: (level: number, line: string) => void): Checkpoints {
  if (opts.network !== "mainnet") return new Checkpoints();
  const c = defaultCheckpoints("mainnet");
  const file = join(opts.dataDir, "checkpoints.json");
  if (!opts.disableDnsCheckpoints && existsSync(file)) {
    try {
      const n = c.addJson(readFileSync(file, "utf8"));
      log(0, `tsmonerod: ${n} checkpoints added from ${file} (up to height ${c.maxHeight})`);
    } catch (e) {
      throw new Error(`cannot load the checkpoints file ${file}: ${e instanceof Error ? e.message : String(e)}. Fix it (monerod's {"hashlines":[{"height":N,"hash":"<64 hex>"}]}) or remove it`, { cause: e });
    }
  }
  return c;
}

export function chainDir(dataDir: string, network: Network): string {
  const sub = network === "testnet" ? ["testnet"] : network === "stagenet" ? ["stagenet"] : [];
  return join(dataDir, ...sub, ...(network === "regtest" ? ["fake"] : []), "lmdb");
}

function dirSize(dir: string): number {
  let n = 0;
  try {
    for (const f of readdirSync(dir)) {
      try {
        n += statSync(join(dir, f)).size;
      } catch {
        // file went away
      }
    }
  } catch {
    // no dir
  }
  return n;
}

/** Thrown when another live tsmonerod holds the chain directory. */
export class DataDirInUseError extends Error {
  override name = "DataDirInUseError";
}

/**
 * One daemon per chain directory: `<chain dir>/../tsmonerod.pid`, created exclusively and held open
 * while the daemon runs; a lock left by a process that no longer runs (SIGKILL), or whose pid now
 * belongs to a process not holding it, is taken over (os/lockfile). What it says goes to `notes`
 * until the log is open.
 */
function lockChainDir(lmdbDir: string, notes: string[]): () => void {
  const file = join(dirname(lmdbDir), "tsmonerod.pid");
  mkdirSync(dirname(file), { recursive: true });
  try {
    const held = acquirePidLock(file, `the chain in ${dirname(lmdbDir)}`, (m) => notes.push(`tsmonerod: ${m}`));
    return () => held.release();
  } catch (e) {
    if (e instanceof LockHeldError)
      throw new DataDirInUseError(`the chain in ${dirname(lmdbDir)} is in use by another tsmonerod (pid ${e.pid ?? "?"}); stop it or choose another --data-dir`);
    throw e;
  }
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const lmdbDir = chainDir(opts.dataDir, opts.network);
  mkdirSync(opts.dataDir, { recursive: true });
  const notes: string[] = [];
  const unlock = lockChainDir(lmdbDir, notes);
  try {
    return await startLocked(opts, lmdbDir, unlock, notes);
  } catch (e) {
    unlock();
    throw e;
  }
}

async function startLocked(opts: DaemonOptions, lmdbDir: string, unlock: () => void, notes: readonly string[]): Promise<Daemon> {
  const logFile = opts.logFile === undefined ? join(opts.dataDir, "tsmonerod.log") : opts.logFile;
  if (logFile !== "") mkdirSync(dirname(logFile), { recursive: true });
  const state = new DaemonState({ startTime: Math.floor(Date.now() / 1000), logLevel: opts.logLevel ?? 0 });
  if (opts.logCategories !== undefined) state.logCategories = applyLogSpec(opts.logCategories, state.logCategories, LOG_LEVEL_CATEGORIES);
  const logger = new Logger({
    file: logFile,
    ...(opts.maxLogFileSize !== undefined ? { maxFileSize: opts.maxLogFileSize } : {}),
    ...(opts.maxLogFiles !== undefined ? { maxFiles: opts.maxLogFiles } : {}),
    console: opts.logToConsole !== false,
    categories: state.logCategories,
  });
  // set_log_level / set_log_categories change what is written from the next line on
  state.onLogChange = (_level, categories) => {
    try {
      logger.setCategories(categories);
    } catch {
      // a category string the RPC accepted but we cannot match keeps the previous filter
    }
  };
  // our level 0 lines are monerod's global:INFO, 1 DEBUG, 2 and up TRACE
  const log = (level: number, msg: string): void => logger.write("global", level <= 0 ? "INFO" : level === 1 ? "DEBUG" : "TRACE", msg);

  // certificate files are read (and a missing one reported) before the chain is touched
  const tls = ServerTls.create(opts.rpcSsl ?? SSL_AUTODETECT, { log: (m) => log(0, m) });
  if (opts.network === "regtest" && !opts.keepFakechain) {
    rmSync(lmdbDir, { recursive: true, force: true });
  }
  mkdirSync(lmdbDir, { recursive: true });
  for (const n of notes) log(0, n);
  log(0, `tsmonerod: opening the ${opts.network} chain in ${lmdbDir}`);
  const checkpoints = loadCheckpoints(opts, log);
  let core: Awaited<ReturnType<typeof openNode>>;
  try {
    core = await openNode({
      checkpoints,
      dataDir: lmdbDir,
      network: opts.network,
      ...(opts.fixedDifficulty !== undefined && opts.fixedDifficulty > 0n ? { fixedDifficulty: opts.fixedDifficulty } : {}),
      offline: opts.offline ?? false,
      ...(opts.maxTxpoolWeight !== undefined ? { maxTxpoolWeight: opts.maxTxpoolWeight } : {}),
      ...(opts.syncMode ? { syncMode: opts.syncMode } : {}),
      ...(opts.verifyThreads !== undefined ? { verifyThreads: opts.verifyThreads } : {}),
      dropAltBlocks: !(opts.keepAltBlocks ?? false),
      ...(opts.dbSalvage ? { salvage: true } : {}),
      storeLog: (m) => log(0, m),
      // a bench knob, not a monerod flag: hash PoW at difficulty 1 too, as monerod does
      ...(process.env.TSMONERO_HASH_TRIVIAL_POW === "1" ? { hashTrivialPow: true } : {}),
    });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    // an LMDB failure at open: say where, and what monerod's operators do about it
    if (/^MDB_/.test(why) && !opts.dbSalvage) throw new Error(`cannot open the chain database in ${lmdbDir}: ${why}. If a crash damaged it, start once with --db-salvage to open its previous committed state`, { cause: e });
    throw e;
  }
  log(0, `tsmonerod: chain height ${core.store.height()}, top ${Buffer.from(core.store.topHash()).toString("hex")}`);
  // Blockchain::check_against_checkpoints (enforced): a stored chain that fails a checkpoint is
  // rolled back to two blocks before it
  for (const [h, want] of checkpoints.entries()) {
    if (h >= core.store.height()) break;
    const have = Buffer.from(core.store.meta(h).hash).toString("hex");
    if (have === want) continue;
    log(0, `tsmonerod: the stored chain fails the checkpoint at height ${h} (has ${have}, must be ${want}): rolling back to height ${Math.max(0, h - 2)}`);
    await core.popBlocks(core.store.height() - Math.max(1, h - 2));
    break;
  }
  if (opts.pruneBlockchain) {
    // core::init with --prune-blockchain: prune (or resume/extend pruning) before serving
    log(0, "tsmonerod: pruning the blockchain...");
    const r = await core.pruneBlockchain();
    log(0, `tsmonerod: blockchain pruned with seed ${r.seed} (stripe ${(r.seed & 0x7f) + 1} of 8): ${r.txs} txs in ${r.blocks} blocks lost their prunable data (${r.bytes} bytes)`);
  } else if (core.store.pruningSeed() !== 0) log(0, `tsmonerod: the chain is pruned (seed ${core.store.pruningSeed()}); new blocks are pruned as they leave the tip`);
  for (const d of core.pool.droppedAtOpen) log(0, `tsmonerod: pool: stored tx ${d.id} could not be decoded and was dropped (${d.reason})`);
  // background failures (the miner's) are logged; the same one again within 10 s is counted, not repeated
  let lastWarning = "";
  let lastWarningAt = 0;
  let repeats = 0;
  core.on("warning", (w) => {
    const msg = `tsmonerod: ${w.source}: ${w.error instanceof Error ? w.error.message : String(w.error)}`;
    const now = Date.now();
    if (msg === lastWarning && now - lastWarningAt < 10_000) {
      repeats++;
      return;
    }
    log(0, repeats > 0 ? `${msg} (the one before repeated ${repeats} more times)` : msg);
    lastWarning = msg;
    lastWarningAt = now;
    repeats = 0;
  });

  // the notify hooks (core::init's block/reorg/block-rate notify): a spec that cannot run is logged, as monerod does
  const hook = (name: string, spec: string | undefined): Notify | undefined => {
    if (spec === undefined) return undefined;
    try {
      return new Notify(spec, (m) => log(0, `tsmonerod: --${name}: ${m}`));
    } catch (e) {
      log(0, `tsmonerod: Failed to parse ${name.replace("-", " ")} spec: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  };
  const blockNotify = hook("block-notify", opts.blockNotify);
  const reorgNotify = hook("reorg-notify", opts.reorgNotify);
  const blockRateNotify = hook("block-rate-notify", opts.blockRateNotify);
  if (blockNotify) core.on("block", (b) => blockNotify.run([["%s", Buffer.from(b.id).toString("hex")]]));
  if (reorgNotify)
    core.on("reorg", (r) =>
      reorgNotify.run([
        ["%s", String(r.splitHeight)],
        ["%h", String(r.newHeight)],
        ["%n", String(r.newHeight - r.splitHeight)],
        ["%d", String(r.oldHeight - r.splitHeight)],
      ]),
    );
  // monerod checks the block rate only online, off regtest, with a sync target from its peers: without
  // P2P there is no target yet, so the check (block-rate.ts) is not scheduled
  const syncTarget: number | undefined = undefined;
  let rateTimer: NodeJS.Timeout | undefined;
  if (!opts.offline && opts.network !== "regtest" && syncTarget !== undefined) {
    rateTimer = setInterval(() => {
      const h = core.store.height();
      const ts: number[] = [];
      for (let i = Math.max(0, h - BLOCK_RATE_BLOCKS); i < h; i++) ts.push(Number(core.store.meta(i).timestamp));
      const alert = checkBlockRate(ts, Math.floor(Date.now() / 1000));
      if (!alert) return;
      log(0, `tsmonerod: There were ${alert.blocks}${alert.blocks === BLOCK_RATE_BLOCKS ? " or more" : ""} blocks in the last ${alert.minutes} minutes, there might be large hash rate changes, or we might be partitioned, cut off from the Monero network or under attack, or your computer's time is off. Or it could be just sheer bad luck.`);
      blockRateNotify?.run([["%t", String(alert.minutes)], ["%b", String(alert.blocks)], ["%e", String(alert.expected)]]);
    }, BLOCK_RATE_INTERVAL_MS);
    rateTimer.unref();
  }

  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  const servers: RpcServer[] = [];

  let p2p: P2pNode | undefined;
  const deps = {
    network: () => p2p,
    core,
    state,
    now: () => Math.floor(Date.now() / 1000),
    // answer first, then stop
    stop: () => void setTimeout(() => void daemon.stop("/stop_daemon"), 50),
    // get_info reads these on every call; the disk figures may lag by a second
    databaseSize: throttled(1000, () => dirSize(lmdbDir)),
    freeSpace: throttled(1000, () => {
      try {
        const s = statfsSync(lmdbDir);
        return BigInt(s.bavail) * BigInt(s.bsize);
      } catch {
        return 0n;
      }
    }),
  };
  const methods = nodeMethods({ ...deps, rpcConnections: () => servers[0]?.connections ?? 0 });
  primeNewBlockEntries(deps);
  if (opts.bootstrapDaemon) {
    state.bootstrap = new BootstrapDaemon(opts.bootstrapDaemon);
    state.bootstrapDaemon = bootstrapAddress(opts.bootstrapDaemon.address);
  }
  // monerod's forwarded calls ask the bootstrap daemon first while we are behind it
  addBootstrapForwarding(methods, { current: () => state.bootstrap, height: () => core.store.height(), noSync: opts.p2p?.noSync ?? false, log: (m) => log(0, m) });
  const login = opts.rpcLogin ? parseLogin(opts.rpcLogin) : undefined;
  state.rpcBanDisabled = opts.disableRpcBan ?? false;
  const common = {
    methods,
    ...(login ? { login } : {}),
    ...(opts.rpcMaxConnections !== undefined ? { maxConnections: opts.rpcMaxConnections } : {}),
    ...(opts.rpcMaxConnectionsPerIp !== undefined ? { maxConnectionsPerIp: opts.rpcMaxConnectionsPerIp } : {}),
    ...(opts.rpcMaxConnectionsPerPublicIp !== undefined ? { maxConnectionsPerPublicIp: opts.rpcMaxConnectionsPerPublicIp } : {}),
    ...(opts.rpcAccessControlOrigins ? { accessControlOrigins: opts.rpcAccessControlOrigins } : {}),
    ...(opts.rpcResponseSoftLimit !== undefined ? { responseSoftLimit: opts.rpcResponseSoftLimit } : {}),
    // monerod's RPC servers take the P2P layer's filter: banned hosts and subnets are refused
    allowConnection: (ip: string) => state.isAllowed(ip, Math.floor(Date.now() / 1000)),
    log: (m: string) => log(0, m),
    tls,
  };
  const host = opts.rpcBindIp ?? "127.0.0.1";
  const urlOf = (h: string, port: number): string => `http://${h.includes(":") ? `[${h}]` : h}:${port}`;
  /** boosted_tcp_server::init_server: IPv4, then IPv6 with --rpc-use-ipv6; --rpc-ignore-ipv4 lets a failed IPv4 bind pass when IPv6 binds. */
  const listenAll = async (server: RpcServer, port: number, ipv4: string, ipv6: string): Promise<string> => {
    let url: string | undefined;
    let bound = port;
    try {
      const a = await server.listen(port, ipv4);
      bound = a.port;
      url = urlOf(ipv4, a.port);
    } catch (e) {
      if (opts.rpcRequireIpv4 !== false || !opts.rpcUseIpv6) throw e;
      log(0, `tsmonerod: cannot bind RPC on ${ipv4}:${port} (${(e as Error).message}); continuing on IPv6 (--rpc-ignore-ipv4)`);
    }
    if (opts.rpcUseIpv6) {
      try {
        const a = await server.listen(bound, ipv6);
        url ??= urlOf(ipv6, a.port);
        if (url !== urlOf(ipv6, a.port)) log(0, `tsmonerod: RPC also listening on ${urlOf(ipv6, a.port)}`);
      } catch (e) {
        if (url === undefined) throw e;
        log(0, `tsmonerod: cannot bind RPC on [${ipv6}]:${bound} (${(e as Error).message}); serving IPv4 only`);
      }
    }
    if (url === undefined) throw new Error(`no RPC address could be bound on port ${port}`);
    return url;
  };
  let rpcUrl: string;
  let restrictedUrl: string | undefined;
  try {
    const main = new RpcServer({ ...common, restricted: opts.restrictedRpc ?? false });
    servers.push(main);
    rpcUrl = await listenAll(main, opts.rpcBindPort, host, opts.rpcBindIpv6 ?? "::1");
    if (opts.rpcRestrictedBindPort !== undefined) {
      const r = new RpcServer({ ...common, restricted: true });
      servers.push(r);
      restrictedUrl = await listenAll(r, opts.rpcRestrictedBindPort, opts.rpcRestrictedBindIp ?? host, opts.rpcRestrictedBindIpv6 ?? opts.rpcBindIpv6 ?? "::1");
    }
  } catch (e) {
    for (const s of servers) await s.close();
    await core.close();
    throw e;
  }
  // daemon.cpp's zmq_internals: the RPC socket, the pub socket, then the chain and pool hooks
  let zmqRpc: ZmqRpcServer | undefined;
  let zmqPub: ZmqPublisher | undefined;
  let unhookZmq: (() => void) | undefined;
  if (opts.zmqRpc) {
    try {
      zmqRpc = await ZmqRpcServer.open(opts.zmqRpc.ip, opts.zmqRpc.port, deps, (m) => log(0, `tsmonerod: ${m}`));
    } catch (e) {
      for (const s of servers) await s.close();
      await core.close();
      throw e;
    }
  }
  if (opts.zmqPub && opts.zmqPub.length > 0) {
    try {
      zmqPub = await ZmqPublisher.open(opts.zmqPub, (m) => log(0, `tsmonerod: ${m}`));
    } catch (e) {
      await zmqRpc?.close();
      for (const s of servers) await s.close();
      await core.close();
      throw e;
    }
    unhookZmq = publishCoreEvents(core, zmqPub);
  }
  // node_server::init / run: the P2P listener and connections, after the RPC as in monerod's daemon
  if (opts.p2p && !opts.offline) {
    const now = (): number => Math.floor(Date.now() / 1000);
    for (const b of opts.p2p.bans ?? []) state.ban(b, ipv4ToInt(b.split("/")[0]) ?? 0, 365 * 86400, now());
    if (opts.p2p.limitUp !== undefined) state.limitUp = opts.p2p.limitUp;
    if (opts.p2p.limitDown !== undefined) state.limitDown = opts.p2p.limitDown;
    if (opts.p2p.outPeers !== undefined) state.outPeers = opts.p2p.outPeers;
    if (opts.p2p.inPeers !== undefined) state.inPeers = opts.p2p.inPeers;
    p2p = new P2pNode(core, {
      // TSMONERO_TEST_DANDELION_FLUFF_PERCENT: tests pin the epoch's draw (0: always stem, 100: always fluff)
      ...(process.env.TSMONERO_TEST_DANDELION_FLUFF_PERCENT ? { dandelionFluffPercent: Number(process.env.TSMONERO_TEST_DANDELION_FLUFF_PERCENT) } : {}),
      ...opts.p2p,
      stateDir: dirname(lmdbDir),
      isAllowed: (host) => state.isAllowed(host, now()),
      ban: (host, seconds) => state.ban(host, ipv4ToInt(host) ?? 0, seconds, now()),
      log: (m) => log(0, `tsmonerod: ${m}`),
    });
    // out_peers / in_peers over RPC change the live limits
    const live = p2p;
    state.onPeerLimits = (out, inp) => live.setPeerLimits(out, inp);
    try {
      await p2p.start();
    } catch (e) {
      await p2p.stop();
      for (const s of servers) await s.close();
      unhookZmq?.();
      await zmqPub?.close();
      await zmqRpc?.close();
      await core.close();
      throw e;
    }
  }
  log(0, `tsmonerod: RPC listening on ${rpcUrl}${opts.restrictedRpc ? " (restricted)" : ""}${restrictedUrl ? `, restricted RPC on ${restrictedUrl}` : ""}`);
  // --start-mining (core::init's miner start): a failure is logged, the node keeps serving, as monerod
  if (opts.startMining) {
    const m = opts.startMining;
    try {
      core.startMining(m.address, m.threads, { background: m.background ?? false, ignoreBattery: m.ignoreBattery ?? false });
      log(0, `tsmonerod: mining to ${m.address} with ${m.threads} thread${m.threads === 1 ? "" : "s"}${m.background ? " (background)" : ""}`);
    } catch (e) {
      log(0, `tsmonerod: --start-mining failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  // the request paths optimized before clients need them, the caches emptied after (warmup.ts)
  const warmupStop = new AbortController();
  const asked = opts.rpcWarmup;
  // not with a bootstrap daemon: while this node is behind, the reads would be forwarded to it
  const w = asked !== undefined && asked.rounds > 0 && core.store.height() >= (asked.minHeight ?? 0) && state.bootstrap === undefined ? asked : undefined;
  if (w) {
    state.rpcWarmup = "running";
    // kept from now on, as after a first whole-chain distribution: a wallet's first send reads no chunk of them
    core.store.keepCumulativeRctOutputs();
  }
  // the warm-up reads the last blocks only (warmup.ts, WARMUP_WINDOW)
  const warmFrom = Math.max(0, core.store.height() - WARMUP_WINDOW);
  const warmup: Promise<WarmupReport | undefined> =
    w !== undefined
      ? warmUpRpc({
          url: rpcUrl.replace("//0.0.0.0:", "//127.0.0.1:").replace("//[::]:", "//[::1]:"),
          ...(opts.rpcLogin ? { login: opts.rpcLogin } : {}),
          tls: (opts.rpcSsl ?? SSL_AUTODETECT).support !== "disabled",
          plain: (opts.rpcSsl ?? SSL_AUTODETECT).support !== "enabled",
          rounds: w.rounds,
          height: core.store.height(),
          rctOutputs: core.store.outputCount(0n),
          fromHeight: warmFrom,
          fromOutput: core.store.keptRctOutputsBelow(warmFrom) ?? 0,
          signal: warmupStop.signal,
          forget: () => {
            dropCoreCaches(core);
            for (const s of servers) s.forgetKeptAnswers();
          },
        }).then((r) => {
          state.rpcWarmup = r.stopped === undefined ? "done" : "stopped";
          const what = `${r.requests} requests in ${(r.ms / 1000).toFixed(1)} s`;
          if (r.stopped === undefined) log(0, `tsmonerod: RPC warmed up (${what}); its answers forgotten`);
          else if (!warmupStop.signal.aborted) log(0, `tsmonerod: RPC warm-up ended early after ${what}: ${r.stopped}`);
          return r;
        })
      : Promise.resolve(undefined);

  const daemon: Daemon = {
    core,
    warmup,
    state,
    rpcUrl,
    ...(restrictedUrl ? { restrictedRpcUrl: restrictedUrl } : {}),
    zmqPubAddresses: zmqPub?.addresses ?? [],
    ...(zmqRpc ? { zmqRpcAddress: zmqRpc.address } : {}),
    ...(p2p ? { p2p } : {}),
    stopped,
    log,
    stop(reason = "stop requested") {
      stopping ??= (async () => {
        log(0, `tsmonerod: stopping (${reason})`);
        if (rateTimer) clearInterval(rateTimer);
        warmupStop.abort();
        await warmup;
        await Promise.all(servers.map((s) => s.close()));
        await p2p?.stop();
        unhookZmq?.();
        await zmqPub?.close();
        await zmqRpc?.close();
        await core.close();
        unlock();
        log(0, "tsmonerod: stopped, database closed");
        logger.close();
        resolveStopped();
      })();
      return stopping;
    },
  };
  return daemon;
}
