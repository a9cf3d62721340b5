/**
 * Daemon control and the peer-facing settings kept by DaemonState until node/p2p exists:
 * get_connections, /get_peer_list, /get_public_nodes, set_bans/get_bans/banned, /get_limit,
 * /set_limit, /out_peers, /in_peers, sync_info, /get_net_stats, /set_log_*, /save_bc,
 * /stop_daemon, /update, prune_blockchain, flush_cache, /set_bootstrap_daemon.
 * Behaviour mirrors monerod v0.18 src/rpc/core_rpc_server.cpp.
 */
import type { PeerConnectionInfo, PeerListInfo } from "../core.js";
import { CORE_RPC_ERROR } from "../../rpc/error-codes.js";
import { RpcError } from "../../rpc/methods.js";
import { array, bool, i64, object, optional, str, u32, withDefault } from "../../rpc/schema.js";
import { access, cacheCounters, defineJsonPath, defineJsonRpc, epeeShape, type NodeRpcDeps, OK } from "./common.js";
import { BootstrapDaemon } from "./bootstrap.js";
import { DEFAULT_LIMIT_DOWN, DEFAULT_LIMIT_UP, intToIpv4, ipv4ToInt } from "./state.js";

const ok = { status: OK, untrusted: false };

/** cryptonote::connection_info as get_connections and sync_info write it. */
function connectionInfo(c: PeerConnectionInfo) {
  const v6 = c.host.includes(":");
  const address = v6 ? `[${c.host}]:${c.port}` : `${c.host}:${c.port}`;
  return {
    address,
    address_type: v6 ? 2 : 1,
    avg_download: c.avgDownload,
    avg_upload: c.avgUpload,
    connection_id: c.connectionId,
    current_download: c.avgDownload,
    current_upload: c.avgUpload,
    height: c.height,
    host: c.host,
    incoming: c.incoming,
    ip: c.host,
    live_time: c.liveTime,
    local_ip: /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(c.host),
    localhost: c.host.startsWith("127.") || c.host === "::1",
    peer_id: c.peerId,
    port: String(c.port),
    pruning_seed: c.pruningSeed,
    recv_count: c.recvCount,
    recv_idle_time: c.recvIdleTime,
    rpc_credits_per_hash: 0,
    rpc_port: c.rpcPort,
    send_count: c.sendCount,
    send_idle_time: c.sendIdleTime,
    state: c.state,
    support_flags: c.supportFlags,
  };
}

/** cryptonote::peer as get_peer_list writes it. */
function peerInfo(p: PeerListInfo) {
  return {
    host: p.host,
    id: p.id,
    ip: ipv4ToInt(p.host) ?? 0,
    last_seen: p.lastSeen,
    port: p.port,
    pruning_seed: p.pruningSeed,
    rpc_credits_per_hash: 0,
    rpc_port: p.rpcPort,
  };
}
/** Log categories are comma-separated `<category>:<LEVEL>` (or a bare number 0-4 in monerod's mlog_set_log). */
const CATEGORY = /^([A-Za-z0-9_.*-]+:(FATAL|ERROR|WARNING|INFO|DEBUG|TRACE))$/i;

export function controlMethods(d: NodeRpcDeps) {
  const { state } = d;

  return [
    defineJsonRpc({
      name: "get_connections",
      restricted: true,
      params: object({}, { arrayIsEmpty: true }),
      handler: () => {
        const c = d.network?.()?.connections() ?? [];
        return c.length > 0 ? { ...ok, connections: c.map(connectionInfo) } : { ...ok };
      },
    }),

    defineJsonPath({
      path: "/get_peer_list",
      restricted: true,
      params: object({ public_only: bool, include_blocked: bool }),
      handler: (p) => {
        const n = d.network?.();
        if (!n) return { ...ok };
        const now = d.now();
        const keep = (e: PeerListInfo): boolean => p.include_blocked || state.isAllowed(e.host, now);
        const white = n.whitePeers().filter(keep).map(peerInfo);
        const gray = p.public_only ? [] : n.grayPeers().filter(keep).map(peerInfo);
        return { ...ok, ...(gray.length > 0 ? { gray_list: gray } : {}), ...(white.length > 0 ? { white_list: white } : {}) };
      },
    }),

    defineJsonPath({
      path: "/get_public_nodes",
      summary: "Public nodes from the peer lists (gray, white; include_blocked): the nodes that advertise an RPC port",
      params: object({ gray: bool, white: bool, include_blocked: bool }),
      handler: () => ({ ...ok }),
    }),

    defineJsonRpc({
      name: "set_bans",
      restricted: true,
      params: object({ bans: array(object({ host: str, ip: u32, ban: bool, seconds: u32 })) }),
      handler: (p) => {
        for (const b of p.bans) {
          let host = b.host;
          let ip = b.ip;
          // later v0.18 releases (on_set_bans): unbanning host "all" lifts every ban
          if (!b.ban && host === "all") {
            state.clearBans();
            continue;
          }
          if (host !== "") {
            const subnet = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(host);
            const parsed = ipv4ToInt(subnet ? subnet[1] : host);
            if (parsed === undefined || (subnet && Number(subnet[2]) > 32)) throw new RpcError(CORE_RPC_ERROR.WRONG_PARAM, "Unsupported host/subnet type");
            ip = subnet ? 0 : parsed;
          } else host = intToIpv4(ip);
          if (b.ban) state.ban(host, ip, b.seconds, d.now());
          else state.unban(host);
        }
        return { ...ok };
      },
    }),

    defineJsonRpc({
      name: "get_bans",
      restricted: true,
      params: object({}, { arrayIsEmpty: true }),
      handler: () => {
        const now = d.now();
        return epeeShape({ ...ok, bans: state.activeBans(now).map((b) => ({ host: b.host, ip: b.ip, seconds: b.until - now })) });
      },
    }),

    defineJsonRpc({
      name: "banned",
      restricted: true,
      params: object({ address: str }),
      handler: (p) => {
        if (ipv4ToInt(p.address) === undefined) throw new RpcError(CORE_RPC_ERROR.WRONG_PARAM, "Unsupported host type");
        const now = d.now();
        const b = state.activeBans(now).find((x) => x.host === p.address);
        return { banned: b !== undefined, seconds: b ? b.until - now : 0, status: OK };
      },
    }),

    defineJsonPath({
      path: "/get_limit",
      params: object({}),
      handler: () => ({ ...ok, limit_down: state.limitDown, limit_up: state.limitUp }),
    }),

    defineJsonPath({
      path: "/set_limit",
      restricted: true,
      params: object({ limit_down: i64, limit_up: i64 }),
      handler: (p) => {
        const apply = (v: bigint, dflt: number, cur: number): number | undefined => (v > 0n ? Number(v > 0xffffffffn ? 0xffffffffn : v) : v === 0n ? cur : v === -1n ? dflt : undefined);
        const down = apply(p.limit_down, DEFAULT_LIMIT_DOWN, state.limitDown);
        if (down === undefined) return { ...ok, status: "Invalid parameter", limit_down: 0, limit_up: 0 };
        state.limitDown = down;
        const up = apply(p.limit_up, DEFAULT_LIMIT_UP, state.limitUp);
        if (up === undefined) return { ...ok, status: "Invalid parameter", limit_down: 0, limit_up: 0 };
        state.limitUp = up;
        return { ...ok, limit_down: state.limitDown, limit_up: state.limitUp };
      },
    }),

    defineJsonPath({
      path: "/out_peers",
      restricted: true,
      params: object({ set: withDefault(bool, true), out_peers: u32 }),
      handler: (p) => {
        if (p.set) {
          state.outPeers = p.out_peers;
          state.onPeerLimits?.(state.outPeers, state.inPeers);
        }
        return { ...ok, out_peers: state.outPeers };
      },
    }),

    defineJsonPath({
      path: "/in_peers",
      restricted: true,
      params: object({ set: withDefault(bool, true), in_peers: u32 }),
      handler: (p) => {
        if (p.set) {
          state.inPeers = p.in_peers;
          state.onPeerLimits?.(state.outPeers, state.inPeers);
        }
        return { ...ok, in_peers: state.inPeers };
      },
    }),

    defineJsonRpc({
      name: "sync_info",
      restricted: true,
      params: object({}, { arrayIsEmpty: true }),
      handler: () => {
        const n = d.network?.();
        const peers = (n?.connections() ?? []).map((c) => ({ info: connectionInfo(c) }));
        const spans = (n?.spans() ?? []).map((s) => ({
          connection_id: s.connectionId,
          nblocks: s.nblocks,
          rate: s.rate,
          remote_address: s.remoteAddress,
          size: s.size,
          speed: s.speed,
          start_block_height: s.startHeight,
        }));
        return {
          ...access(),
          height: d.core.store.height(),
          next_needed_pruning_seed: 1,
          overview: spans.length > 0 ? `[${"o".repeat(spans.length)}]` : "[]",
          ...(peers.length > 0 ? { peers } : {}),
          ...(spans.length > 0 ? { spans } : {}),
          target_height: n?.targetHeight() ?? 0,
        };
      },
    }),

    defineJsonPath({
      path: "/get_net_stats",
      restricted: true,
      params: object({}),
      handler: () => {
        const s = d.network?.()?.netStats();
        return { ...ok, start_time: state.startTime, total_bytes_in: s?.bytesIn ?? 0, total_bytes_out: s?.bytesOut ?? 0, total_packets_in: 0, total_packets_out: 0 };
      },
    }),

    // not in monerod: what the read caches saved, for operators and `npm run bench -- scale`
    defineJsonRpc({
      name: "get_cache_stats",
      mirrors: "none (tsmonerod only)",
      summary:
        "tsmonerod only: lookups of each read cache since start (block headers and bodies, txs, outputs, whole answers, distribution answers) that found their entry (hits) and that did not (misses), the start-up warm-up's included; rpc_warmup: off, running, done or stopped (its caches are emptied when it ends)",
      restricted: true,
      params: object({}, { arrayIsEmpty: true }),
      handler: () => ({ ...ok, rpc_warmup: state.rpcWarmup, caches: [...cacheCounters(d.core)].map(([name, c]) => ({ name, hits: c.hits, misses: c.misses })) }),
    }),

    defineJsonPath({
      path: "/set_log_hash_rate",
      restricted: true,
      params: object({ visible: bool }),
      handler: (p) => {
        if (!d.core.minerStatus().active) return { status: "NOT MINING", untrusted: false };
        state.logHashRate = p.visible;
        return { ...ok };
      },
    }),

    defineJsonPath({
      path: "/set_log_level",
      restricted: true,
      params: object({ level: i64 }),
      handler: (p) => {
        if (p.level < 0n || p.level > 4n) return { status: "Error: log level not valid", untrusted: false };
        state.setLogLevel(Number(p.level));
        return { ...ok };
      },
    }),

    defineJsonPath({
      path: "/set_log_categories",
      restricted: true,
      params: object({ categories: optional(str) }),
      handler: (p) => {
        // no categories: monerod sets the empty set (mlog_set_log("")) and answers ""
        if (p.categories === undefined) state.setLogCategories("");
        else {
          const parts = p.categories.split(",").filter((s) => s !== "");
          // monerod: a leading "+" adds to the current set; anything else replaces it
          const add = p.categories.startsWith("+");
          const clean = parts.map((s) => s.replace(/^\+/, ""));
          const bad = clean.find((s) => !CATEGORY.test(s));
          if (bad !== undefined) return { ...ok, status: `Invalid log category '${bad}': use <category>:<FATAL|ERROR|WARNING|INFO|DEBUG|TRACE>`, categories: state.logCategories };
          state.setLogCategories(add ? [state.logCategories, ...clean].filter((s) => s !== "").join(",") : clean.join(","));
        }
        return { ...ok, categories: state.logCategories };
      },
    }),

    defineJsonPath({
      path: "/save_bc",
      restricted: true,
      params: object({}),
      // core_rpc_server::on_save_bc → Blockchain::store_blockchain: committed blocks forced to disk
      // (they are already durable in the default safe sync mode; --db-sync-mode fast/fastest skips fsyncs)
      handler: async () => {
        try {
          await d.core.store.flush();
          return { ...ok };
        } catch (e) {
          return { ...ok, status: `Error while storing blockchain: ${e instanceof Error ? e.message : String(e)}` };
        }
      },
    }),

    defineJsonPath({
      path: "/stop_daemon",
      restricted: true,
      params: object({}),
      handler: () => {
        d.stop();
        return { ...ok };
      },
    }),

    defineJsonPath({
      path: "/update",
      restricted: true,
      params: object({ command: str, path: str }),
      handler: (p) => {
        const base = { ...ok, auto_uri: "", hash: "", path: "", update: false, user_uri: "", version: "" };
        if (d.core.offline) return { ...base, status: "Daemon is running offline" };
        if (p.command !== "check" && p.command !== "download" && p.command !== "update") return { ...base, status: `unknown command: '${p.command}'` };
        // no update server for tsmonero: checking is answered as monerod does when it cannot reach it
        return { ...base, status: "Error checking for updates" };
      },
    }),

    defineJsonRpc({
      name: "prune_blockchain",
      restricted: true,
      params: object({ check: bool }, { arrayIsEmpty: true }),
      // core_rpc_server::on_prune_blockchain: check verifies a pruned chain, else the chain is pruned
      // (with a random stripe the first time) before the answer
      handler: async (p) => {
        if (p.check) {
          if (!d.core.store.checkPruning()) throw new RpcError(CORE_RPC_ERROR.INTERNAL_ERROR, "Failed to check blockchain pruning: a block outside this node's stripe still holds prunable data, or a pruned tx lost its prunable hash");
        } else {
          try {
            await d.core.pruneBlockchain();
          } catch (e) {
            throw new RpcError(CORE_RPC_ERROR.INTERNAL_ERROR, `Failed to prune blockchain: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
        const seed = d.core.store.pruningSeed();
        return { ...ok, pruned: seed !== 0, pruning_seed: seed };
      },
    }),

    defineJsonRpc({
      name: "flush_cache",
      restricted: true,
      params: object({ bad_txs: bool, bad_blocks: bool }, { arrayIsEmpty: true }),
      handler: () => ({ ...ok }),
    }),

    defineJsonPath({
      path: "/set_bootstrap_daemon",
      restricted: true,
      params: object({ address: str, username: str, password: str, proxy: str }),
      // core_rpc_server::on_set_bootstrap_daemon: the address is only parsed (epee parse_url), never
      // resolved or contacted here, so monerod answers OK for any string, an unresolvable host included
      handler: (p) => {
        if (p.proxy !== "") return { status: `Failed to set bootstrap daemon to address = ${p.address}: SOCKS proxies are not supported by tsmonerod (a bypassed proxy would leak the traffic)` };
        let b: BootstrapDaemon | undefined;
        try {
          b = p.address === "" ? undefined : new BootstrapDaemon({ address: p.address, ...(p.username !== "" ? { login: `${p.username}:${p.password}` } : {}) });
        } catch {
          // monerod stores any string and only fails when it connects: same answer, nothing to forward to
          b = undefined;
        }
        state.bootstrap = b;
        state.bootstrapDaemon = bootstrapAddress(p.address);
        return { status: OK };
      },
    }),

    // RPC payment is not enabled (no --rpc-payment-address yet): monerod's answers for that case
    defineJsonRpc({
      name: "rpc_access_info",
      summary: "RPC payment: the hashing job and credits of a client (not enabled: an empty job)",
      params: object({ client: str }, { arrayIsEmpty: true }),
      handler: () => ({
        ...access(), cookie: 0, credits_per_hash_found: 0, diff: 0, hashing_blob: "", height: 0, next_seed_hash: "", seed_hash: "", seed_height: 0,
      }),
    }),
    defineJsonRpc({
      name: "rpc_access_submit_nonce",
      summary: "RPC payment: a nonce found for the hashing job (not enabled: \"Payment not necessary\")",
      params: object({ client: str, nonce: u32, cookie: u32 }, { arrayIsEmpty: true }),
      handler: () => ({ ...access("Payment not necessary") }),
    }),
    defineJsonRpc({
      name: "rpc_access_pay",
      summary: "RPC payment: pays credits for a service (not enabled: \"Payment not necessary\")",
      params: object({ client: str, paying_for: str, payment: u32 }, { arrayIsEmpty: true }),
      handler: () => ({ ...access("Payment not necessary") }),
    }),
    defineJsonRpc({
      name: "rpc_access_tracking",
      summary: "RPC payment: usage tracking per RPC call, optionally cleared",
      restricted: true,
      params: object({ clear: bool }, { arrayIsEmpty: true }),
      handler: () => ({ ...ok }),
    }),
    ...(["rpc_access_data", "rpc_access_account"] as const).map((name) =>
      defineJsonRpc({
        name,
        restricted: true,
        summary: name === "rpc_access_data" ? "RPC payment: every client's credits and hashes" : "RPC payment: one client's credits, adjusted by delta_balance",
        errors: [{ code: CORE_RPC_ERROR.PAYMENTS_NOT_ENABLED, message: "Payments not enabled" }],
        params: object({ client: str, delta_balance: i64 }, { arrayIsEmpty: true }),
        // what monerod answers once payments are enabled starts with rpc_access_response_base
        handler: (): ReturnType<typeof access> => {
          throw new RpcError(CORE_RPC_ERROR.PAYMENTS_NOT_ENABLED, "Payments not enabled");
        },
      }),
    ),

    // /start_save_graph and /stop_save_graph: gone from monerod 0.18 (404 there, 404 here)
  ] as const;
}


/**
 * What get_info shows as `bootstrap_daemon_address` after /set_bootstrap_daemon: epee parse_url's host
 * and port (`host:0` without a port, a scheme dropped, `[v6]` brackets dropped), "" for "" and for
 * "auto" (no public node picked yet). Mirrors bootstrap_daemon::address().
 */
export function bootstrapAddress(address: string): string {
  if (address === "" || address === "auto") return "";
  const v6 = /^(?:[^:]*?:\/\/)?\[(.*)\](?::(\d+))?/.exec(address);
  const m = v6 ?? /^(?:[^:]*?:\/\/)?([^/:]*)(?::(\d+))?/.exec(address);
  const host = m?.[1] ?? "";
  if (host === "") return "";
  const port = m?.[2] === undefined ? "0" : BigInt(m[2]).toString();
  return `${host}:${port}`;
}
