/**
 * The P2P service (monerod's node_server + t_cryptonote_protocol_handler) on a NodeCore: listens
 * for peers, connects out (exclusive, priority, then the peer lists), handshakes with the network
 * id check, answers timed syncs, pings and support flags, serves chains and blocks to syncing
 * peers, syncs from peers ahead of us (sync.ts), relays new blocks as fluffy blocks and new txs as
 * fluff, and scores or bans peers that misbehave (P2P_IP_FAILS_BEFORE_BLOCK).
 */
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { decodeEpee, encodeEpee, type EpeeObjectCodec } from "../../codec/epee-map.js";
import { EPEE_LEVIN_LIMITS } from "../../codec/epee.js";
import { blockHashesFromBlob, parseBlock } from "../../protocol/block.js";
import { txHashesFromBlob } from "../../protocol/tx-hash.js";
import type { Bytes } from "../../protocol/tx.js";
import { type BlockSubmitResult, isBroadcast, type NetworkView, type NodeCore, type PeerConnectionInfo, type PeerListInfo } from "../core.js";
import { LevinConnection, type LevinReply } from "./connection.js";
import * as M from "./messages.js";
import { type Peer, PeerList } from "./peerlist.js";
import { Syncer } from "./sync.js";
import { Dandelion, type DandelionPeer, embargoSeconds } from "./dandelion.js";
import { bytesToHex as hex } from "../../base/bytes.js";

export interface P2pOptions {
  /** Percent chance an epoch fluffs (monerod: CRYPTONOTE_DANDELIONPP_FLUFF_PROBABILITY, 20); tests pin it. */
  dandelionFluffPercent?: number;
  /** Mutable: out_peers / in_peers over RPC change them. */
  bindIp: string;
  bindPort: number;
  /** --p2p-use-ipv6 with --p2p-bind-ipv6-address / --p2p-bind-port-ipv6. */
  ipv6?: { ip: string; port: number };
  /** --p2p-ignore-ipv4: a failed IPv4 bind is logged when IPv6 binds. */
  ignoreIpv4?: boolean;
  /** --p2p-external-port: the port announced in handshakes (0: the bound one). */
  externalPort?: number;
  hideMyPort?: boolean;
  /** --pad-transactions: tx notifications padded to a multiple of 1024 bytes (traffic volume analysis). */
  padTransactions?: boolean;
  addPeers?: readonly string[];
  priorityNodes?: readonly string[];
  exclusiveNodes?: readonly string[];
  seedNodes?: readonly string[];
  outPeers?: number;
  inPeers?: number;
  noSync?: boolean;
  allowLocalIp?: boolean;
  maxConnectionsPerIp?: number;
  /** --no-fluffy-blocks: relay full blocks (NOTIFY_NEW_BLOCK). */
  noFluffyBlocks?: boolean;
  /** --block-sync-size: blocks per span (0: adaptive, 20 here). */
  blockSyncSize?: number;
  /** The RPC port announced to peers (restricted/public nodes only; 0 otherwise). */
  rpcPort?: number;
  /** Where p2pstate.json goes (the chain's base dir); none: not kept. */
  stateDir?: string;
  /** Banned-host filter and ban action (the daemon's ban state, shared with RPC). */
  isAllowed(host: string): boolean;
  ban(host: string, seconds: number): void;
  log(msg: string): void;
}

/** P2P_DEFAULT_HANDSHAKE_INTERVAL (s), P2P_DEFAULT_HANDSHAKE_INVOKE_TIMEOUT, P2P_DEFAULT_CONNECTION_TIMEOUT (ms). */
const HANDSHAKE_INTERVAL_MS = 60_000;
const HANDSHAKE_TIMEOUT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 5_000;
const INVOKE_TIMEOUT_MS = 120_000;
/** P2P_IP_FAILS_BEFORE_BLOCK, P2P_IP_BLOCKTIME. */
const FAILS_BEFORE_BLOCK = 10;
const IP_BLOCKTIME = 86400;
/** How often the connection maker runs. */
const CONNECT_LOOP_MS = 1_000;

export type PeerState = "before_handshake" | "synchronizing" | "standby" | "idle" | "normal";

/** One connected peer: the Levin connection and what the handshake and sync data told us. */
export class PeerConn {
  readonly connectionId = randomBytes(16).toString("hex");
  peerId = 0n;
  supportFlags = 0;
  myPort = 0;
  rpcPort = 0;
  state: PeerState = "before_handshake";
  remoteHeight = 0n;
  remoteCumDiff = 0n;
  remoteTop: Bytes = new Uint8Array(32);
  pruningSeed = 0;
  /** Resolves when the handshake completes (an outgoing peer's first notifications can arrive with its answer). */
  readonly ready: Promise<void>;
  markReady!: () => void;
  /** An orphan block from this peer asks for a sync even when its announced chain is not heavier. */
  forceSync = false;
  /** Notifications a sync step waits for, by command, in request order (answers come in order). */
  readonly waiters = new Map<number, { resolve: (body: Uint8Array) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }[]>();
  /** The address it was dialled at (outgoing), for the peer lists. */
  dialled?: { host: string; port: number };

  constructor(readonly conn: LevinConnection) {
    this.ready = new Promise((r) => (this.markReady = r));
  }

  get inbound(): boolean {
    return this.conn.inbound;
  }
  get host(): string {
    return this.conn.remoteHost;
  }

  /** Waits for the notification `command` (a response to a request we sent), failing after `ms`. */
  expect(command: number, ms: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const list = this.waiters.get(command) ?? [];
      this.waiters.set(command, list);
      const w = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = list.indexOf(w);
          if (i >= 0) list.splice(i, 1);
          reject(new Error(`${M.COMMAND_NAMES[command]} not received within ${ms} ms`));
        }, ms),
      };
      list.push(w);
      if (this.conn.isClosed) {
        clearTimeout(w.timer);
        reject(new Error("connection closed"));
      }
    });
  }

  /** Fails every wait (the connection closed). */
  failWaiters(reason: string): void {
    for (const list of this.waiters.values())
      for (const w of list.splice(0)) {
        clearTimeout(w.timer);
        w.reject(new Error(reason));
      }
  }
}

function isLocalIp(host: string): boolean {
  return /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.)/.test(host) || host === "::1" || /^f[cd]/i.test(host) || /^fe80:/i.test(host);
}

/** "host:port" or "[v6]:port" → parts; undefined when it does not parse. */
export function parseHostPort(s: string, defaultPort: number): { host: string; port: number } | undefined {
  const m = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(s) ?? /^([^:]+)(?::(\d+))?$/.exec(s);
  if (!m) return undefined;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (!(port > 0 && port < 65536)) return undefined;
  return { host: m[1], port };
}

export class P2pNode extends EventEmitter implements NetworkView {
  readonly peerId: bigint = randomBytes(8).readBigUInt64LE(0);
  readonly peers = new Set<PeerConn>();
  readonly peerlist: PeerList;
  private readonly servers: Server[] = [];
  private readonly hostFails = new Map<string, number>();
  private readonly dialing = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  private boundPort = 0;
  private stopped = false;
  readonly syncer: Syncer;
  /** Block ids being applied, and where they came from (to relay only what should be). */
  readonly blockSources = new Map<string, { kind: "sync" | "relay"; from?: PeerConn }>();
  /** Tx ids received from a peer, so its relay skips that peer, and whether they came along a stem. */
  private readonly txSources = new Map<string, { peer: PeerConn; stem: boolean }>();
  /** Dandelion++ relay of txs (stems, fluff delays); the pool keeps the embargoes. */
  readonly dandelion: Dandelion;
  private readonly unhook: (() => void)[] = [];
  /** Totals for get_net_stats, counting closed connections too. */
  private closedIn = 0;
  private closedOut = 0;
  readonly startTime = Date.now();

  constructor(
    readonly core: NodeCore,
    readonly opts: P2pOptions,
  ) {
    super();
    this.peerlist = new PeerList(opts.stateDir ? join(opts.stateDir, "p2pstate.json") : undefined);
    this.syncer = new Syncer(this);
    this.dandelion = new Dandelion({
      peers: () => this.normalPeers().map((p) => this.dandelionPeer(p)),
      chainHeight: () => this.stemHeight(),
      log: (m) => this.log(m),
      ...(opts.dandelionFluffPercent !== undefined ? { fluffPercent: opts.dandelionFluffPercent } : {}),
    });
    const onBlock = (b: { height: number; id: Bytes; block: unknown }): void => this.onCoreBlock(b.id);
    const onPoolAdd = (e: { id: Bytes; blob: Bytes; doNotRelay: boolean }): void => this.onPoolAdd(e.id, e.blob, e.doNotRelay);
    core.on("block", onBlock);
    core.on("pool-add", onPoolAdd as never);
    this.unhook.push(() => core.off("block", onBlock as never), () => core.off("pool-add", onPoolAdd as never));
  }

  get networkId(): Uint8Array {
    return M.NETWORK_IDS[this.core.network];
  }
  get port(): number {
    return this.boundPort;
  }
  log(m: string): void {
    this.opts.log(`p2p: ${m}`);
  }

  // ---- start / stop ----

  async start(): Promise<void> {
    const listen = (ip: string, port: number): Promise<number> =>
      new Promise((resolve, reject) => {
        const s = createServer((sock) => this.onIncoming(sock));
        s.once("error", reject);
        s.listen(port, ip, () => {
          s.off("error", reject);
          s.on("error", (e) => this.log(`listener error: ${e.message}`));
          this.servers.push(s);
          const a = s.address();
          resolve(typeof a === "object" && a ? a.port : port);
        });
      });
    try {
      this.boundPort = await listen(this.opts.bindIp, this.opts.bindPort);
      this.log(`listening on ${this.opts.bindIp}:${this.boundPort}`);
    } catch (e) {
      if (!(this.opts.ignoreIpv4 && this.opts.ipv6)) throw new Error(`cannot bind P2P on ${this.opts.bindIp}:${this.opts.bindPort}: ${(e as Error).message}; choose another --p2p-bind-port`, { cause: e });
      this.log(`cannot bind P2P on ${this.opts.bindIp}:${this.opts.bindPort} (${(e as Error).message}); continuing on IPv6 (--p2p-ignore-ipv4)`);
    }
    if (this.opts.ipv6) {
      const p = await listen(this.opts.ipv6.ip, this.opts.ipv6.port);
      this.boundPort ||= p;
      this.log(`listening on [${this.opts.ipv6.ip}]:${p}`);
    }
    for (const a of this.opts.addPeers ?? []) {
      const hp = parseHostPort(a, M.DEFAULT_P2P_PORT[this.core.network]);
      if (hp) this.peerlist.addWhite({ ...hp, id: "0", lastSeen: 0, pruningSeed: 0, rpcPort: 0, rpcCreditsPerHash: 0 });
    }
    const t1 = setInterval(() => this.connectLoop(), CONNECT_LOOP_MS);
    const t2 = setInterval(() => this.timedSyncAll(), HANDSHAKE_INTERVAL_MS);
    const t3 = setInterval(() => this.housekeeping(), 1_000);
    for (const t of [t1, t2, t3]) t.unref();
    this.timers = [t1, t2, t3];
    this.connectLoop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    for (const u of this.unhook) u();
    this.dandelion.stop();
    this.syncer.stop();
    for (const p of this.peers) {
      if (!p.inbound && p.dialled && p.state !== "before_handshake")
        this.peerlist.addAnchor({ ...p.dialled, id: p.peerId.toString(), lastSeen: Math.floor(Date.now() / 1000), pruningSeed: p.pruningSeed, rpcPort: p.rpcPort, rpcCreditsPerHash: 0 });
      p.conn.close("stopping");
    }
    await Promise.all(this.servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    try {
      this.peerlist.save();
    } catch (e) {
      this.log(`cannot save the peer lists: ${(e as Error).message}`);
    }
  }

  // ---- NetworkView (what the RPC reports) ----

  connections(): PeerConnectionInfo[] {
    const now = Date.now();
    return [...this.peers]
      .filter((p) => p.state !== "before_handshake")
      .map((p) => {
        const life = Math.max(1, (now - p.conn.startedAt) / 1000);
        return {
          host: p.host,
          port: p.conn.remotePort,
          peerId: p.peerId.toString(16).padStart(16, "0"),
          incoming: p.inbound,
          state: p.state,
          height: Number(p.remoteHeight),
          liveTime: Math.floor(life),
          recvCount: p.conn.bytesIn,
          sendCount: p.conn.bytesOut,
          recvIdleTime: Math.floor((now - p.conn.lastRecv) / 1000),
          sendIdleTime: Math.floor((now - p.conn.lastSend) / 1000),
          supportFlags: p.supportFlags,
          connectionId: p.connectionId,
          rpcPort: p.rpcPort,
          pruningSeed: p.pruningSeed,
          avgDownload: Math.floor(p.conn.bytesIn / 1024 / life),
          avgUpload: Math.floor(p.conn.bytesOut / 1024 / life),
        };
      });
  }

  private static listInfo(l: Iterable<Peer>): PeerListInfo[] {
    return [...l].reverse().map((p) => ({ host: p.host, port: p.port, id: BigInt(p.id), lastSeen: p.lastSeen, pruningSeed: p.pruningSeed, rpcPort: p.rpcPort }));
  }
  whitePeers(): PeerListInfo[] {
    return P2pNode.listInfo(this.peerlist.white.values());
  }
  grayPeers(): PeerListInfo[] {
    return P2pNode.listInfo(this.peerlist.gray.values());
  }
  targetHeight(): number {
    return this.syncer.targetHeight;
  }
  busySyncing(): boolean {
    return this.syncer.busy;
  }
  spans(): ReturnType<NetworkView["spans"]> {
    return this.syncer.spans.map((s) => ({ ...s }));
  }
  netStats(): { bytesIn: number; bytesOut: number; startTime: number } {
    let bytesIn = this.closedIn;
    let bytesOut = this.closedOut;
    for (const p of this.peers) {
      bytesIn += p.conn.bytesIn;
      bytesOut += p.conn.bytesOut;
    }
    return { bytesIn, bytesOut, startTime: Math.floor(this.startTime / 1000) };
  }

  // ---- connections ----

  private countFrom(host: string): number {
    let n = 0;
    for (const p of this.peers) if (p.inbound && p.host === host) n++;
    return n;
  }

  private onIncoming(sock: Socket): void {
    const host = (sock.remoteAddress ?? "").replace(/^::ffff:/, "");
    if (this.stopped || !this.opts.isAllowed(host)) {
      sock.destroy();
      return;
    }
    const inCount = [...this.peers].filter((p) => p.inbound).length;
    if (inCount >= (this.opts.inPeers ?? Infinity)) {
      sock.destroy();
      return;
    }
    this.attach(sock, true);
  }

  private attach(sock: Socket, inbound: boolean, dialled?: { host: string; port: number }): PeerConn {
    const holder: { peer?: PeerConn } = {};
    const conn = new LevinConnection(sock, inbound, (cmd, body, expects) => this.handle(holder.peer!, cmd, body, expects));
    const peer = new PeerConn(conn);
    holder.peer = peer;
    if (dialled) peer.dialled = dialled;
    this.peers.add(peer);
    // epee's levin handler closes on a bad or oversized frame without a host fail score
    conn.on("misbehaved", (reason: string) => this.log(`${peer.host}:${conn.remotePort} misbehaved: ${reason}`));
    conn.on("close", () => {
      this.peers.delete(peer);
      peer.failWaiters("connection closed");
      this.closedIn += conn.bytesIn;
      this.closedOut += conn.bytesOut;
      this.syncer.onPeerClosed(peer);
      this.dandelion.dropPeer(peer.connectionId);
      this.emit("peer-closed", peer);
    });
    // monerod drops a connection that never handshakes
    const t = setTimeout(() => {
      if (peer.state === "before_handshake") conn.close("no handshake");
    }, inbound ? 2 * HANDSHAKE_TIMEOUT_MS : HANDSHAKE_TIMEOUT_MS * 2);
    t.unref();
    return peer;
  }

  /**
   * An outgoing connection to host:port is open (is_addr_connected: incoming connections from that
   * node do not count, so an exclusive or priority node that dialled us is still dialled back, and
   * Dandelion++ keeps an outgoing peer to stem through).
   */
  private isDialledTo(host: string, port: number): boolean {
    for (const p of this.peers) if (p.dialled && p.dialled.host === host && p.dialled.port === port) return true;
    return false;
  }

  /** Any connection, either way, to host:port (is_peer_used, with the handshake's port standing in for the peer id). */
  private isConnectedTo(host: string, port: number): boolean {
    if (this.isDialledTo(host, port)) return true;
    for (const p of this.peers) if (p.inbound && p.host === host && p.myPort === port) return true;
    return false;
  }

  /** Connects to host:port and handshakes; resolves to the peer, or undefined on failure. */
  async dial(host: string, port: number): Promise<PeerConn | undefined> {
    const k = `${host}:${port}`;
    if (this.dialing.has(k) || !this.opts.isAllowed(host)) return undefined;
    this.dialing.add(k);
    try {
      const sock = await new Promise<Socket>((resolve, reject) => {
        const s = connect({ host, port });
        const t = setTimeout(() => {
          s.destroy();
          reject(new Error("connect timeout"));
        }, CONNECT_TIMEOUT_MS);
        s.once("connect", () => {
          clearTimeout(t);
          resolve(s);
        });
        s.once("error", (e) => {
          clearTimeout(t);
          reject(e);
        });
      });
      if (this.stopped) {
        sock.destroy();
        return undefined;
      }
      const peer = this.attach(sock, false, { host, port });
      const req = encodeEpee(M.handshakeRequest, { node_data: this.nodeData(), payload_data: this.syncData() });
      const r = await peer.conn.invoke(M.COMMAND_HANDSHAKE, req, HANDSHAKE_TIMEOUT_MS);
      const rsp = decodeEpee(M.handshakeResponse, r.body, EPEE_LEVIN_LIMITS);
      if (hex(rsp.node_data.network_id) !== hex(this.networkId)) {
        this.log(`${host}:${port} is on another network (network id ${hex(rsp.node_data.network_id)}), dropping`);
        this.hostFail(host, 1);
        peer.conn.close("wrong network id");
        return undefined;
      }
      if (rsp.node_data.peer_id === this.peerId) {
        peer.conn.close("connection to self");
        return undefined;
      }
      peer.peerId = rsp.node_data.peer_id;
      peer.supportFlags = rsp.node_data.support_flags;
      peer.myPort = rsp.node_data.my_port;
      peer.rpcPort = rpcPortOf(rsp.node_data);
      peer.conn.handshakeDone();
      if (!this.processSyncData(peer, rsp.payload_data, true)) {
        peer.conn.close("bad sync data");
        return undefined;
      }
      this.mergePeerlist(rsp.local_peerlist_new);
      this.peerlist.addWhite({ host, port, id: peer.peerId.toString(), lastSeen: Math.floor(Date.now() / 1000), pruningSeed: peer.pruningSeed, rpcPort: peer.rpcPort, rpcCreditsPerHash: 0 });
      this.log(`connected to ${host}:${port} (height ${peer.remoteHeight})`);
      this.emit("peer", peer);
      this.syncer.onPeerSyncData(peer);
      return peer;
    } catch (e) {
      this.log(`cannot connect to ${host}:${port}: ${(e as Error).message}`);
      this.peerlist.demote(host, port);
      return undefined;
    } finally {
      this.dialing.delete(k);
    }
  }

  /**
   * out_peers / in_peers (change_max_out_public_peers / change_max_in_public_peers): the new limits,
   * and connections over them dropped, the newest first.
   */
  setPeerLimits(outPeers: number, inPeers: number): void {
    this.opts.outPeers = outPeers;
    this.opts.inPeers = inPeers;
    const trim = (inbound: boolean, max: number): void => {
      const list = [...this.peers].filter((p) => p.inbound === inbound && !p.conn.isClosed);
      for (const p of list.slice(Math.max(0, max)).reverse()) p.conn.close(`over the ${inbound ? "in" : "out"}_peers limit of ${max}`);
    };
    trim(false, outPeers);
    trim(true, inPeers);
  }

  private outCount(): number {
    return [...this.peers].filter((p) => !p.inbound).length + this.dialing.size;
  }

  private connectLoop(): void {
    if (this.stopped) return;
    const def = M.DEFAULT_P2P_PORT[this.core.network];
    const parse = (l: readonly string[] | undefined): { host: string; port: number }[] =>
      (l ?? []).map((s) => parseHostPort(s, def)).filter((x): x is { host: string; port: number } => x !== undefined);
    // try_to_connect_and_handshake_with_new_peer: no dial at all, exclusive and priority nodes
    // included, once the outgoing count reaches --out-peers (out_peers 0 cuts a node off)
    const room = (): boolean => this.outCount() < (this.opts.outPeers ?? 12);
    const exclusive = parse(this.opts.exclusiveNodes);
    if (exclusive.length > 0) {
      for (const n of exclusive) if (room() && !this.isDialledTo(n.host, n.port)) void this.dial(n.host, n.port);
      return;
    }
    for (const n of parse(this.opts.priorityNodes)) if (room() && !this.isDialledTo(n.host, n.port)) void this.dial(n.host, n.port);
    const out = this.outCount();
    let want = (this.opts.outPeers ?? 12) - out;
    if (want <= 0) return;
    const candidates: Peer[] = [...this.peerlist.anchor.values(), ...this.peerlist.white.values(), ...this.peerlist.gray.values()];
    for (const c of candidates) {
      if (want <= 0) break;
      if (this.isConnectedTo(c.host, c.port) || this.dialing.has(`${c.host}:${c.port}`)) continue;
      if (!this.opts.allowLocalIp && isLocalIp(c.host) && !(this.opts.addPeers ?? []).some((a) => a.startsWith(c.host))) continue;
      want--;
      void this.dial(c.host, c.port);
    }
    if (this.peers.size === 0) for (const n of parse(this.opts.seedNodes)) if (room()) void this.dial(n.host, n.port);
  }

  private timedSyncAll(): void {
    for (const p of this.peers) {
      if (p.state === "before_handshake") continue;
      const body = encodeEpee(M.timedSyncRequest, { payload_data: this.syncData() });
      p.conn
        .invoke(M.COMMAND_TIMED_SYNC, body, INVOKE_TIMEOUT_MS)
        .then((r) => {
          const rsp = decodeEpee(M.timedSyncResponse, r.body, EPEE_LEVIN_LIMITS);
          if (!this.processSyncData(p, rsp.payload_data, false)) p.conn.close("bad sync data");
          else this.mergePeerlist(rsp.local_peerlist_new);
          this.syncer.onPeerSyncData(p);
        })
        .catch((e: Error) => this.log(`timed sync with ${p.host}: ${e.message}`));
    }
  }

  /** Drops connections to hosts banned since (set_bans), keeps the peer lists saved. */
  private lastSave = Date.now();
  private housekeeping(): void {
    for (const p of this.peers) if (!this.opts.isAllowed(p.host)) p.conn.close("banned");
    this.endEmbargoes();
    this.relayAgain();
    // a dial that was under way when out_peers went down
    this.setPeerLimits(this.opts.outPeers ?? 12, this.opts.inPeers ?? Infinity);
    if (Date.now() - this.lastSave > 60_000) {
      this.lastSave = Date.now();
      try {
        this.peerlist.save();
      } catch {
        // retried next minute
      }
    }
  }

  /** add_host_fail: past P2P_IP_FAILS_BEFORE_BLOCK the host is banned for a day and its connections dropped. */
  hostFail(host: string, score: number): void {
    const n = (this.hostFails.get(host) ?? 0) + score;
    if (n > FAILS_BEFORE_BLOCK) {
      this.hostFails.set(host, Math.floor(FAILS_BEFORE_BLOCK / 2));
      this.log(`banning ${host} for ${IP_BLOCKTIME} s`);
      this.opts.ban(host, IP_BLOCKTIME);
      for (const p of this.peers) if (p.host === host) p.conn.close("banned");
    } else this.hostFails.set(host, n);
  }

  /** drop_connection_with_score. */
  drop(peer: PeerConn, score: number, reason: string): void {
    this.log(`dropping ${peer.host}:${peer.conn.remotePort}: ${reason}`);
    if (score > 0) this.hostFail(peer.host, score);
    peer.conn.close(reason);
  }

  // ---- what we tell peers ----

  nodeData(): M.BasicNodeData {
    const port = this.opts.hideMyPort ? 0 : this.opts.externalPort || this.boundPort;
    return {
      network_id: this.networkId,
      my_port: port,
      rpc_port: this.opts.rpcPort ?? 0,
      rpc_credits_per_hash: 0,
      peer_id: this.peerId,
      support_flags: M.P2P_SUPPORT_FLAG_FLUFFY_BLOCKS,
    };
  }

  /** get_payload_sync_data. */
  syncData(): M.CoreSyncData {
    const store = this.core.store;
    const h = store.height();
    const top = store.meta(h - 1);
    return {
      current_height: BigInt(h),
      cumulative_difficulty: top.cumulativeDifficulty & 0xffffffffffffffffn,
      cumulative_difficulty_top64: top.cumulativeDifficulty >> 64n,
      top_id: top.hash,
      top_version: store.hardForkVersion(h - 1),
      pruning_seed: 0,
    };
  }

  private peerlistHead(): M.PeerlistEntry[] {
    return this.peerlist.head(M.MAX_PEERS_IN_HANDSHAKE).map((p) => ({
      adr: { type: p.host.includes(":") ? "ipv6" : "ipv4", host: p.host, port: p.port },
      id: BigInt(p.id),
      last_seen: BigInt(p.lastSeen),
      pruning_seed: p.pruningSeed,
      rpc_port: p.rpcPort,
      rpc_credits_per_hash: p.rpcCreditsPerHash,
    }));
  }

  private mergePeerlist(list: readonly M.PeerlistEntry[]): void {
    for (const e of list.slice(0, M.MAX_PEERS_IN_HANDSHAKE)) {
      if (e.adr.type === "other") continue;
      if (e.id === this.peerId) continue;
      if (!this.opts.allowLocalIp && isLocalIp(e.adr.host)) continue;
      this.peerlist.addGray({ host: e.adr.host, port: e.adr.port, id: e.id.toString(), lastSeen: Number(e.last_seen), pruningSeed: e.pruning_seed, rpcPort: e.rpc_port, rpcCreditsPerHash: e.rpc_credits_per_hash });
    }
  }

  /** process_payload_sync_data: false when the peer must be dropped. */
  private processSyncData(peer: PeerConn, d: M.CoreSyncData, initial: boolean): boolean {
    if (d.current_height > 0n) {
      // from v6 the top block's version must be what our table says for that height
      const v = this.core.store.hardForkVersion(Number(d.current_height - 1n));
      if (v >= 6 && v !== d.top_version) {
        this.log(`${peer.host} claims version ${d.top_version} at height ${d.current_height - 1n}, expected ${v}`);
        return false;
      }
    }
    if (d.current_height < peer.remoteHeight && !initial) this.hostFail(peer.host, 1);
    peer.remoteHeight = d.current_height;
    peer.remoteCumDiff = (d.cumulative_difficulty_top64 << 64n) | d.cumulative_difficulty;
    peer.remoteTop = d.top_id;
    peer.pruningSeed = d.pruning_seed;
    if (peer.state === "before_handshake") {
      peer.state = "normal";
      peer.markReady();
    }
    return true;
  }

  haveBlock(id: Bytes): boolean {
    return this.core.store.heightOf(id) !== undefined || this.core.altBlock(id) !== undefined;
  }

  // ---- requests from peers ----

  private async handle(peer: PeerConn, cmd: number, body: Uint8Array, expects: boolean): Promise<LevinReply | undefined> {
    const ok = (codec: EpeeObjectCodec<never>, v: unknown): LevinReply => ({ returnCode: 1, body: encodeEpee(codec, v as never) });
    const dec = <T>(codec: EpeeObjectCodec<T>): T => decodeEpee(codec, body, EPEE_LEVIN_LIMITS);
    if (!peer.inbound && peer.state === "before_handshake")
      await Promise.race([peer.ready, new Promise((r) => setTimeout(r, HANDSHAKE_TIMEOUT_MS))]);
    if (peer.state === "before_handshake" && cmd !== M.COMMAND_HANDSHAKE && cmd !== M.COMMAND_PING && cmd !== M.COMMAND_REQUEST_SUPPORT_FLAGS) {
      this.drop(peer, 1, `${M.COMMAND_NAMES[cmd] ?? `command ${cmd}`} before the handshake`);
      return undefined;
    }
    switch (cmd) {
      case M.COMMAND_HANDSHAKE: {
        if (!expects) return undefined;
        const req = dec(M.handshakeRequest);
        if (hex(req.node_data.network_id) !== hex(this.networkId)) {
          this.drop(peer, 1, `wrong network id ${hex(req.node_data.network_id)}`);
          return undefined;
        }
        if (!peer.inbound || peer.peerId !== 0n) {
          this.drop(peer, 1, "handshake on an outgoing or already handshaken connection");
          return undefined;
        }
        if (req.node_data.peer_id === this.peerId) {
          this.drop(peer, 0, "connection to self");
          return undefined;
        }
        if (this.countFrom(peer.host) > (this.opts.maxConnectionsPerIp ?? 1)) {
          this.drop(peer, 0, "too many connections from the same address");
          return undefined;
        }
        if (!this.processSyncData(peer, req.payload_data, true)) {
          this.drop(peer, 0, "bad sync data");
          return undefined;
        }
        peer.peerId = req.node_data.peer_id;
        peer.supportFlags = req.node_data.support_flags;
        peer.myPort = req.node_data.my_port;
        peer.rpcPort = rpcPortOf(req.node_data);
        peer.conn.handshakeDone();
        if (peer.myPort > 0) void this.pingBack(peer);
        this.log(`incoming peer ${peer.host}:${peer.conn.remotePort} (height ${peer.remoteHeight})`);
        this.emit("peer", peer);
        setImmediate(() => this.syncer.onPeerSyncData(peer));
        return ok(M.handshakeResponse as EpeeObjectCodec<never>, { node_data: this.nodeData(), payload_data: this.syncData(), local_peerlist_new: this.peerlistHead() });
      }
      case M.COMMAND_TIMED_SYNC: {
        if (!expects) return undefined;
        const req = dec(M.timedSyncRequest);
        if (!this.processSyncData(peer, req.payload_data, false)) {
          this.drop(peer, 0, "bad sync data");
          return undefined;
        }
        setImmediate(() => this.syncer.onPeerSyncData(peer));
        return ok(M.timedSyncResponse as EpeeObjectCodec<never>, { payload_data: this.syncData(), local_peerlist_new: this.peerlistHead() });
      }
      case M.COMMAND_PING:
        return ok(M.pingResponse as EpeeObjectCodec<never>, { status: "OK", peer_id: this.peerId });
      case M.COMMAND_REQUEST_SUPPORT_FLAGS:
        return ok(M.supportFlagsResponse as EpeeObjectCodec<never>, { support_flags: M.P2P_SUPPORT_FLAG_FLUFFY_BLOCKS });
      case M.NOTIFY_REQUEST_CHAIN:
        this.onRequestChain(peer, dec(M.requestChain));
        return undefined;
      case M.NOTIFY_REQUEST_GET_OBJECTS:
        this.onRequestGetObjects(peer, dec(M.requestGetObjects));
        return undefined;
      case M.NOTIFY_RESPONSE_CHAIN_ENTRY:
      case M.NOTIFY_RESPONSE_GET_OBJECTS: {
        const w = peer.waiters.get(cmd)?.shift();
        if (!w) {
          this.drop(peer, 1, `${M.COMMAND_NAMES[cmd]} out of the blue`);
          return undefined;
        }
        clearTimeout(w.timer);
        w.resolve(body);
        return undefined;
      }
      case M.NOTIFY_NEW_FLUFFY_BLOCK:
      case M.NOTIFY_NEW_BLOCK:
        await this.onNewBlock(peer, dec(M.newBlock), cmd === M.NOTIFY_NEW_FLUFFY_BLOCK);
        return undefined;
      case M.NOTIFY_REQUEST_FLUFFY_MISSING_TX:
        this.onRequestFluffyMissingTx(peer, dec(M.requestFluffyMissingTx));
        return undefined;
      case M.NOTIFY_NEW_TRANSACTIONS:
        await this.onNewTransactions(peer, dec(M.newTransactions));
        return undefined;
      case M.NOTIFY_GET_TXPOOL_COMPLEMENT:
        this.onTxpoolComplement(peer, dec(M.getTxpoolComplement));
        return undefined;
      default:
        // levin answers an unknown command with LEVIN_ERROR_CONNECTION_HANDLER_NOT_DEFINED
        return expects ? { returnCode: -6, body: new Uint8Array(0) } : undefined;
    }
  }

  /** try_ping: a peer announcing a port is put on the white list once we reach it there. */
  private async pingBack(peer: PeerConn): Promise<void> {
    const host = peer.host;
    const port = peer.myPort;
    if (!this.opts.allowLocalIp && isLocalIp(host) && !isLoopbackHost(host)) return;
    try {
      const sock = await new Promise<Socket>((resolve, reject) => {
        const s = connect({ host, port });
        const t = setTimeout(() => (s.destroy(), reject(new Error("timeout"))), 2000);
        s.once("connect", () => (clearTimeout(t), resolve(s)));
        s.once("error", (e) => (clearTimeout(t), reject(e)));
      });
      const c = new LevinConnection(sock, false, async () => undefined);
      try {
        const r = await c.invoke(M.COMMAND_PING, encodeEpee(M.emptyMessage, {}), 2000);
        const rsp = decodeEpee(M.pingResponse, r.body, EPEE_LEVIN_LIMITS);
        if (rsp.status === "OK" && rsp.peer_id === peer.peerId)
          this.peerlist.addWhite({ host, port, id: peer.peerId.toString(), lastSeen: Math.floor(Date.now() / 1000), pruningSeed: peer.pruningSeed, rpcPort: peer.rpcPort, rpcCreditsPerHash: 0 });
      } finally {
        c.close("ping done");
      }
    } catch {
      // not reachable: stays off the white list
    }
  }

  /** Blockchain::find_blockchain_supplement: the first listed id on our main chain; the genesis must be last. */
  splitHeight(ids: readonly Bytes[]): number | undefined {
    const store = this.core.store;
    if (ids.length === 0 || hex(ids[ids.length - 1]) !== hex(store.genesisHash())) return undefined;
    for (const id of ids) {
      const h = store.heightOf(id);
      if (h !== undefined) return h;
    }
    return undefined;
  }

  private onRequestChain(peer: PeerConn, req: M.RequestChain): void {
    const store = this.core.store;
    const start = this.splitHeight(req.block_ids);
    if (start === undefined) {
      this.log(`${peer.host}: NOTIFY_REQUEST_CHAIN with no block in common`);
      return;
    }
    const height = store.height();
    const ids: Bytes[] = [];
    const weights: Uint8Array[] = [];
    for (let h = start; h < height && ids.length < M.BLOCK_IDS_DEFAULT_COUNT; h++) {
      const m = store.meta(h);
      ids.push(m.hash);
      weights.push(M.u64Pod(m.weight));
    }
    const cd = store.meta(height - 1).cumulativeDifficulty;
    const rsp: M.ResponseChainEntry = {
      start_height: BigInt(start),
      total_height: BigInt(height),
      cumulative_difficulty: cd & 0xffffffffffffffffn,
      cumulative_difficulty_top64: cd >> 64n,
      m_block_ids: ids,
      m_block_weights: weights,
      first_block: ids.length >= 2 ? (store.blockBlob(start + 1) ?? new Uint8Array(0)) : new Uint8Array(0),
    };
    peer.conn.notify(M.NOTIFY_RESPONSE_CHAIN_ENTRY, encodeEpee(M.responseChainEntry, rsp));
  }

  /** A main-chain or alternative block with its txs (full blobs). */
  blockEntry(id: Bytes): M.BlockCompleteEntry | undefined {
    const store = this.core.store;
    const h = store.heightOf(id);
    if (h === undefined) {
      const alt = this.core.altBlock(id);
      if (!alt) return undefined;
      const txs = alt.block.txHashes.map((t) => ({ blob: this.txBlob(t) ?? new Uint8Array(0), prunable_hash: new Uint8Array(32) }));
      return { pruned: false, block: alt.blob, block_weight: 0n, txs };
    }
    const block = store.block(h);
    const blob = store.blockBlob(h);
    if (!block || !blob) return undefined;
    const txs: { blob: Uint8Array; prunable_hash: Uint8Array }[] = [];
    for (const t of block.txHashes) {
      const b = store.txBlob(t);
      if (!b) return undefined;
      txs.push({ blob: b, prunable_hash: new Uint8Array(32) });
    }
    return { pruned: false, block: blob, block_weight: 0n, txs };
  }

  private txBlob(id: Bytes): Bytes | undefined {
    return this.core.pool.get(id)?.blob ?? this.core.store.txBlob(id);
  }

  private onRequestGetObjects(peer: PeerConn, req: M.RequestGetObjects): void {
    if (req.blocks.length > M.MAX_OBJECT_REQUEST_COUNT) {
      this.drop(peer, 0, `requested ${req.blocks.length} objects, more than ${M.MAX_OBJECT_REQUEST_COUNT}`);
      return;
    }
    const blocks: M.BlockCompleteEntry[] = [];
    const missed: Bytes[] = [];
    for (const id of req.blocks) {
      const h = this.core.store.heightOf(id);
      const e = h === undefined ? undefined : this.blockEntry(id);
      if (e) blocks.push(e);
      else missed.push(id);
    }
    const rsp: M.ResponseGetObjects = { blocks, missed_ids: missed, current_blockchain_height: BigInt(this.core.store.height()) };
    peer.conn.notify(M.NOTIFY_RESPONSE_GET_OBJECTS, encodeEpee(M.responseGetObjects, rsp));
  }

  /** Fluffy blocks waiting for the txs we asked their sender for. */
  private readonly fluffyPending = new Map<string, PeerConn>();

  /** handle_notify_new_fluffy_block / handle_notify_new_block. */
  private async onNewBlock(peer: PeerConn, req: M.NewBlock, fluffy: boolean): Promise<void> {
    if (this.syncer.busy || peer.state !== "normal") return;
    let hashes;
    try {
      hashes = blockHashesFromBlob(req.b.block);
    } catch (e) {
      this.drop(peer, 0, `unparsable block: ${(e as Error).message}`);
      return;
    }
    const id = hashes.hash;
    if (this.haveBlock(id)) return;
    const block = hashes.block;
    // txs it sent with the block, by id
    const given = new Map<string, Bytes>();
    for (const t of req.b.txs) {
      try {
        given.set(hex(txHashesFromBlob(t.blob).hash), t.blob);
      } catch (e) {
        this.drop(peer, 0, `unparsable tx in a block: ${(e as Error).message}`);
        return;
      }
    }
    const missing: number[] = [];
    block.txHashes.forEach((t, i) => {
      if (!given.has(hex(t)) && !this.core.pool.has(t)) missing.push(i);
    });
    if (missing.length > 0) {
      if (!fluffy || this.fluffyPending.has(hex(id))) {
        this.drop(peer, 0, "block without its txs");
        return;
      }
      this.fluffyPending.set(hex(id), peer);
      const r: M.RequestFluffyMissingTx = { block_hash: id, current_blockchain_height: BigInt(this.core.store.height()), missing_tx_indices: missing.map((i) => M.u64Pod(i)) };
      peer.conn.notify(M.NOTIFY_REQUEST_FLUFFY_MISSING_TX, encodeEpee(M.requestFluffyMissingTx, r));
      return;
    }
    this.fluffyPending.delete(hex(id));
    if (this.core.store.heightOf(block.prevId) === undefined && !this.core.altBlock(block.prevId)) {
      // an orphan: our chain is behind this peer's, sync from it
      peer.remoteHeight = req.current_blockchain_height;
      this.syncer.onPeerSyncData(peer, true);
      return;
    }
    this.blockSources.set(hex(id), { kind: "relay", from: peer });
    const r = await this.core.submitBlock(req.b.block, { txBlobs: [...given.values()] });
    if (r.status === "rejected") {
      this.blockSources.delete(hex(id));
      this.drop(peer, invalidBlockScore(r), `invalid block ${hex(id)}: ${r.message ?? r.error ?? "rejected"}`);
    } else if (r.status !== "added") this.blockSources.delete(hex(id));
  }

  private onRequestFluffyMissingTx(peer: PeerConn, req: M.RequestFluffyMissingTx): void {
    const e = this.blockEntry(req.block_hash);
    if (!e) {
      this.drop(peer, 0, "asked for the txs of a block we do not have");
      return;
    }
    const block = parseBlock(e.block);
    const txs: { blob: Uint8Array; prunable_hash: Uint8Array }[] = [];
    for (const p of req.missing_tx_indices) {
      const i = Number(M.podU64(p));
      if (i >= block.txHashes.length) {
        this.drop(peer, 1, `asked for tx ${i} of a block of ${block.txHashes.length}`);
        return;
      }
      const b = this.txBlob(block.txHashes[i]);
      if (!b) return;
      txs.push({ blob: b, prunable_hash: new Uint8Array(32) });
    }
    const rsp: M.NewBlock = { b: { pruned: false, block: e.block, block_weight: 0n, txs }, current_blockchain_height: BigInt(this.core.store.height()) };
    peer.conn.notify(M.NOTIFY_NEW_FLUFFY_BLOCK, encodeEpee(M.newBlock, rsp));
  }

  /**
   * handle_notify_new_transactions: each new tx goes to our pool, then on by Dandelion++ (a stem tx
   * along our stem, embargoed; a fluffed one fluffed on). A tx we hold in a stem that comes again
   * ends its stem: along a stem it is a loop (tx_memory_pool::add_tx turns it to fluff), fluffed it
   * is public already; either way we fluff it on.
   */
  private async onNewTransactions(peer: PeerConn, req: M.NewTransactions): Promise<void> {
    if (this.syncer.busy) return;
    const stem = !req.dandelionpp_fluff;
    for (const blob of req.txs) {
      let id: Bytes;
      try {
        id = txHashesFromBlob(blob).hash;
      } catch (e) {
        this.drop(peer, 0, `unparsable tx: ${(e as Error).message}`);
        return;
      }
      const held = this.core.pool.get(id);
      if (held) {
        if (held.stemEmbargo !== undefined) {
          await this.core.relayTransactions([id]);
          this.dandelion.fluff([held.blob], peer.connectionId);
        }
        continue;
      }
      if (this.core.store.txLocation(id)) continue;
      this.txSources.set(hex(id), { peer, stem });
      const r = await this.core.submitTransaction(blob, stem ? { stemEmbargo: Math.floor(Date.now() / 1000) + embargoSeconds() } : {});
      this.txSources.delete(hex(id));
      if (!r.ok && !r.internalError) {
        this.drop(peer, 0, `invalid tx ${hex(id)}: ${r.reason ?? r.error ?? "rejected"}`);
        return;
      }
    }
  }

  private onTxpoolComplement(peer: PeerConn, req: { hashes: Uint8Array[] }): void {
    const theirs = new Set(req.hashes.map(hex));
    const txs = this.core.pool
      .entries()
      .filter((e) => !theirs.has(hex(e.id)) && isBroadcast(e))
      .map((e) => e.blob);
    if (txs.length > 0) peer.conn.notify(M.NOTIFY_NEW_TRANSACTIONS, encodeEpee(M.newTransactions, { txs, _: new Uint8Array(0), dandelionpp_fluff: true }));
  }

  // ---- relay ----

  private normalPeers(except?: PeerConn): PeerConn[] {
    return [...this.peers].filter((p) => p !== except && p.state !== "before_handshake" && !p.conn.isClosed);
  }

  /** A block reached our main chain: relayed unless it came from a sync. */
  private onCoreBlock(id: Bytes): void {
    const k = hex(id);
    const src = this.blockSources.get(k);
    this.blockSources.delete(k);
    if (src?.kind === "sync" || this.syncer.busy) return;
    const e = this.blockEntry(id);
    if (!e) return;
    const height = BigInt(this.core.store.height());
    for (const p of this.normalPeers(src?.from)) {
      if (!this.opts.noFluffyBlocks && p.supportFlags & M.P2P_SUPPORT_FLAG_FLUFFY_BLOCKS)
        p.conn.notify(M.NOTIFY_NEW_FLUFFY_BLOCK, encodeEpee(M.newBlock, { b: { ...e, txs: [] }, current_blockchain_height: height }));
      else p.conn.notify(M.NOTIFY_NEW_BLOCK, encodeEpee(M.newBlock, { b: e, current_blockchain_height: height }));
    }
  }

  /**
   * A tx entered our pool: relayed by Dandelion++ (notify::send_txs). Ours (from RPC) and those
   * that came along a stem go along our stem (stemmed: hidden and embargoed in the pool), unless
   * this epoch fluffs or no stem takes them; fluffed ones are fluffed on to every peer but their
   * source, after each connection's Poisson delay.
   */
  private onPoolAdd(id: Bytes, blob: Bytes, doNotRelay: boolean): void {
    if (doNotRelay || this.core.offline) return;
    const src = this.txSources.get(hex(id));
    if (!src) return this.sendLocal(id, blob);
    if (src.stem && this.dandelion.stem([blob], src.peer.connectionId)) return;
    // a stem tx no stem takes is fluffed: public from now (dandelionpp_notify's on_transactions_relayed(fluff))
    if (src.stem) void this.core.relayTransactions([id]).catch((e: unknown) => this.log(`cannot mark ${hex(id)} fluffed: ${(e as Error).message}`));
    this.dandelion.fluff([blob], src.peer.connectionId);
  }

  /**
   * A tx of ours (from RPC, or relay_tx of a do_not_relay one): along our stem with an embargo from
   * now (set_relayed(stem)), or, when the epoch fluffs or no stem takes it, fluffed and public from now.
   */
  private sendLocal(id: Bytes, blob: Bytes): void {
    if (this.dandelion.stem([blob], "")) {
      void this.core.stemTransactions([id], Math.floor(Date.now() / 1000) + embargoSeconds()).catch((e: unknown) => this.log(`cannot mark ${hex(id)} stemmed: ${(e as Error).message}`));
      return;
    }
    void this.core.relayTransactions([id]).catch((e: unknown) => this.log(`cannot mark ${hex(id)} fluffed: ${(e as Error).message}`));
    this.dandelion.fluff([blob], "");
  }

  /** Stem txs past their embargo whose fluff is under way (the core marks them while others wait on it). */
  private readonly embargoFluffs = new Set<string>();

  /**
   * core::relay_txpool_transactions for stem txs: an embargo that ended without a fluff reaching us,
   * we fluff them, once (the next second's check may come before the core has marked them).
   */
  private endEmbargoes(): void {
    const due = this.core.pool.embargoEnded().filter((e) => !this.embargoFluffs.has(hex(e.id)));
    if (due.length === 0) return;
    const keys = due.map((e) => hex(e.id));
    for (const k of keys) this.embargoFluffs.add(k);
    void this.fluffPublic(due, "txs past their embargo").finally(() => {
      for (const k of keys) this.embargoFluffs.delete(k);
    });
  }

  /**
   * Pool txs fluffed by us, not for a source: marked relayed now (public from now, set_relayed(fluff)),
   * then queued to every peer. A failure is logged.
   */
  private fluffPublic(txs: readonly { id: Bytes; blob: Bytes }[], what: string): Promise<void> {
    return this.core
      .relayTransactions(txs.map((e) => e.id))
      .then(() => this.dandelion.fluff(txs.map((e) => e.blob)))
      .catch((e: unknown) => this.log(`cannot fluff ${what}: ${(e as Error).message}`));
  }

  /** When the pool is next asked for txs to relay again (m_next_check: at most every 2 min). */
  private nextRelayCheck = 0;

  /**
   * core::relay_txpool_transactions: pool txs not relayed for a while (get_relay_delay: 5 min, growing
   * to 4 h) go out again, public ones fluffed (relayed now), local ones along the stem.
   */
  private relayAgain(): void {
    const now = Date.now();
    if (now < this.nextRelayCheck) return;
    this.nextRelayCheck = now + 120_000;
    const due = this.core.pool.relayable();
    for (const e of due) if (e.local) this.sendLocal(e.id, e.blob);
    const pub = due.filter((e) => !e.local);
    if (pub.length > 0) void this.fluffPublic(pub, "pool txs again");
  }

  /**
   * relay_tx (core_rpc_server::on_relay_tx relays with relay_method::local): ours along the stem;
   * the others fluffed and marked relayed now, as relay_tx marked every tx before P2P stemmed.
   */
  relayPoolTxs(local: readonly Bytes[], others: readonly Bytes[]): void {
    const entries = (ids: readonly Bytes[]) => ids.map((id) => this.core.pool.get(id)).filter((e): e is NonNullable<typeof e> => e !== undefined);
    for (const e of entries(local)) this.sendLocal(e.id, e.blob);
    const rest = entries(others);
    if (rest.length > 0) void this.fluffPublic(rest, "relay_tx's txs");
  }

  private dandelionPeer(p: PeerConn): DandelionPeer {
    return {
      id: p.connectionId,
      inbound: p.inbound,
      height: p.remoteHeight,
      send: (txs, fluff) => {
        if (p.conn.isClosed) return false;
        p.conn.notify(M.NOTIFY_NEW_TRANSACTIONS, M.newTransactionsBody(txs, fluff, this.opts.padTransactions));
        return true;
      },
    };
  }

  /** levin_notify's get_blockchain_height: ours when synchronized, else also the median height of our outgoing peers. */
  private stemHeight(): bigint {
    const ours = BigInt(this.core.store.height());
    if (!this.syncer.busy) return ours;
    const outs = this.normalPeers()
      .filter((p) => !p.inbound)
      .map((p) => p.remoteHeight)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (outs.length === 0) return ours;
    const median = outs[outs.length % 2 !== 0 ? (outs.length - 1) / 2 : outs.length / 2 - 1];
    return median > ours ? median : ours;
  }
}

/** handle_notify_new_block / handle_response_get_objects: a block failing verification scores 1, one with a bad PoW P2P_IP_FAILS_BEFORE_BLOCK. */
export function invalidBlockScore(r: BlockSubmitResult): number {
  return r.flags?.includes("bad_pow") ? FAILS_BEFORE_BLOCK : 1;
}

function rpcPortOf(d: M.BasicNodeData): number {
  return d.rpc_port;
}

function isLoopbackHost(h: string): boolean {
  return h.startsWith("127.") || h === "::1";
}
