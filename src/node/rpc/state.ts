/**
 * The daemon's own settings the RPC reports and changes: bans (node/p2p refuses and drops banned
 * hosts through isAllowed and bans misbehaving ones here), bandwidth limits (reported, not yet
 * enforced), peer limits (passed on to node/p2p by onPeerLimits), log level and categories, the
 * bootstrap daemon, hash-rate logging.
 */
import type { BootstrapDaemon } from "./bootstrap.js";

/** monerod's default log categories (set_log_categories with no categories). */
export const DEFAULT_LOG_CATEGORIES = "*:WARNING,net:FATAL,net.p2p:FATAL,net.cn:FATAL,global:INFO,verify:FATAL,stacktrace:INFO,logging:INFO,msgwriter:INFO";

/** monerod's --log-level presets (mlog_set_log_level: 0..4). */
export const LOG_LEVEL_CATEGORIES: readonly string[] = [
  DEFAULT_LOG_CATEGORIES,
  "*:WARNING,net:FATAL,net.http:FATAL,net.ssl:FATAL,net.p2p:FATAL,net.cn:FATAL,daemon.rpc:FATAL,global:INFO,verify:FATAL,serialization:FATAL,daemon.rpc.payment:ERROR,stacktrace:INFO,logging:INFO,msgwriter:INFO,perf.*:DEBUG",
  "*:DEBUG",
  "*:TRACE",
  "*:TRACE",
];

export interface Ban {
  host: string;
  ip: number;
  /** Unix seconds when the ban ends. */
  until: number;
}

/** Default bandwidth limits in kB/s (monerod's DEFAULT_LIMIT_RATE_UP / _DOWN: 2048 / 8192). */
export const DEFAULT_LIMIT_UP = 2048;
export const DEFAULT_LIMIT_DOWN = 8192;

export class DaemonState {
  readonly startTime: number;
  logLevel: number;
  logCategories: string;
  limitUp = DEFAULT_LIMIT_UP;
  limitDown = DEFAULT_LIMIT_DOWN;
  /** --out-peers default 12 (P2P_DEFAULT_CONNECTIONS_COUNT_OUT), --in-peers default unlimited (-1). */
  outPeers = 12;
  inPeers = 0xffffffff;
  bootstrapDaemon = "";
  /** The bootstrap daemon calls are forwarded to while this node is behind (node/rpc/bootstrap.ts). */
  bootstrap: BootstrapDaemon | undefined;
  logHashRate = false;
  /** The RPC warm-up after start (node/rpc/warmup.ts), as get_cache_stats reports it. */
  rpcWarmup: "off" | "running" | "done" | "stopped" = "off";
  private readonly bans = new Map<string, Ban>();
  /** --disable-rpc-ban: RPC failures never ban their host. */
  rpcBanDisabled = false;
  /** core_rpc_server::m_host_fails_score: RPC failure score per host. */
  private readonly hostFails = new Map<string, number>();
  /** Called when out_peers / in_peers change (the P2P service's limits). */
  onPeerLimits: ((outPeers: number, inPeers: number) => void) | undefined;
  /** Called when the log level or categories change (the daemon's logger). */
  onLogChange: ((level: number, categories: string) => void) | undefined;

  constructor(opts: { startTime: number; logLevel?: number }) {
    this.startTime = opts.startTime;
    this.logLevel = opts.logLevel ?? 0;
    this.logCategories = LOG_LEVEL_CATEGORIES[Math.min(4, Math.max(0, this.logLevel))] ?? DEFAULT_LOG_CATEGORIES;
  }

  setLogLevel(level: number): void {
    this.logLevel = level;
    this.logCategories = LOG_LEVEL_CATEGORIES[level] ?? DEFAULT_LOG_CATEGORIES;
    this.onLogChange?.(this.logLevel, this.logCategories);
  }

  setLogCategories(cats: string): void {
    this.logCategories = cats;
    this.onLogChange?.(this.logLevel, this.logCategories);
  }

  ban(host: string, ip: number, seconds: number, now: number): void {
    this.bans.set(host, { host, ip, until: now + seconds });
  }

  unban(host: string): void {
    this.bans.delete(host);
  }

  /** Every ban lifted (set_bans with host "all" and ban false, monerod 0.18.3+'s clear_bans). */
  clearBans(): void {
    this.bans.clear();
  }

  /**
   * core_rpc_server::add_host_fail: a failed request (get_blocks.bin, get_hashes.bin with a chain
   * we do not share) scores one; past RPC_IP_FAILS_BEFORE_BLOCK (3) the host is banned for
   * P2P_IP_BLOCKTIME (a day) and its score drops to 1. Returns whether the host is banned now.
   */
  hostFail(address: string, now: number): boolean {
    if (this.rpcBanDisabled) return false;
    const host = plainHost(address);
    const fails = (this.hostFails.get(host) ?? 0) + 1;
    if (fails > RPC_IP_FAILS_BEFORE_BLOCK) {
      this.hostFails.set(host, Math.floor(RPC_IP_FAILS_BEFORE_BLOCK / 2));
      this.ban(host, ipv4ToInt(host) ?? 0, P2P_IP_BLOCKTIME, now);
      return true;
    }
    this.hostFails.set(host, fails);
    return false;
  }

  /** node_server::is_remote_host_allowed: not banned, alone or by a subnet (monerod's RPC servers refuse such connections). */
  isAllowed(address: string, now: number): boolean {
    if (this.bans.size === 0) return true;
    const host = plainHost(address);
    const b = this.bans.get(host);
    if (b && b.until > now) return false;
    const ip = ipv4ToInt(host);
    if (ip === undefined) return true;
    for (const x of this.bans.values()) {
      if (x.until <= now || !x.host.includes("/")) continue;
      const [net, bits] = x.host.split("/");
      const n = ipv4ToInt(net);
      const m = Number(bits);
      if (n === undefined || !(m >= 0 && m <= 32)) continue;
      // monerod's integer has the first octet in the low byte: compare in network order
      const mask = m === 0 ? 0 : (~0 << (32 - m)) >>> 0;
      if ((swap(ip) & mask) >>> 0 === (swap(n) & mask) >>> 0) return false;
    }
    return true;
  }

  /**
   * Active bans (expired ones are dropped) in monerod's order: hosts by their text (its
   * m_blocked_hosts is a std::map keyed by host_str), then subnets by address as monerod's
   * integer (first octet lowest) and prefix length (m_blocked_subnets, ordered by
   * ipv4_network_subnet). Measured on monerod 0.18.0.0: 1.0.0.2, 10.0.0.1, 2.0.0.1, 9.9.9.9, then
   * 1.0.0.0/8, 9.0.0.0/8, 10.0.0.0/8, 2.1.0.0/16, 1.2.0.0/16. The functional test `bans` relies on it.
   */
  activeBans(now: number): Ban[] {
    for (const [k, b] of this.bans) if (b.until <= now) this.bans.delete(k);
    const all = [...this.bans.values()];
    const hosts = all.filter((b) => !b.host.includes("/")).sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
    const subnetKey = (h: string): [number, number] => {
      const [addr, bits] = h.split("/");
      return [ipv4ToInt(addr) ?? 0, Number(bits)];
    };
    const subnets = all
      .filter((b) => b.host.includes("/"))
      .sort((a, b) => {
        const [ia, ma] = subnetKey(a.host);
        const [ib, mb] = subnetKey(b.host);
        return ia - ib || ma - mb;
      });
    return [...hosts, ...subnets];
  }
}

/** RPC_IP_FAILS_BEFORE_BLOCK and P2P_IP_BLOCKTIME (cryptonote_config.h). */
export const RPC_IP_FAILS_BEFORE_BLOCK = 3;
export const P2P_IP_BLOCKTIME = 86400;

/** An address as node:net reports it, IPv4-mapped IPv6 unwrapped. */
function plainHost(address: string): string {
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}

function swap(x: number): number {
  return (((x & 255) << 24) | (((x >>> 8) & 255) << 16) | (((x >>> 16) & 255) << 8) | ((x >>> 24) & 255)) >>> 0;
}

/** A.B.C.D → the integer monerod uses (first octet in the lowest byte). */
export function ipv4ToInt(host: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return undefined;
  const o = m.slice(1, 5).map(Number);
  if (o.some((x) => x > 255)) return undefined;
  return ((o[3] << 24) >>> 0) + (o[2] << 16) + (o[1] << 8) + o[0];
}

export function intToIpv4(ip: number): string {
  return [ip & 255, (ip >>> 8) & 255, (ip >>> 16) & 255, (ip >>> 24) & 255].join(".");
}
