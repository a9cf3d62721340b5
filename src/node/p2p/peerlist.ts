/**
 * The peer lists of net_peerlist.h: white (peers we reached and handshook), gray (addresses heard
 * from others) and anchor (outgoing peers we were connected to, tried first after a restart), with
 * monerod's limits (P2P_LOCAL_WHITE_PEERLIST_LIMIT 1000, P2P_LOCAL_GRAY_PEERLIST_LIMIT 5000), newest
 * first. Kept across restarts in <data dir>/p2pstate.json (our own JSON form, not monerod's boost
 * archive p2pstate.bin), written atomically.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";

export interface Peer {
  host: string;
  port: number;
  /** peer id as decimal text (u64). */
  id: string;
  /** Unix seconds. */
  lastSeen: number;
  pruningSeed: number;
  rpcPort: number;
  rpcCreditsPerHash: number;
}

export const WHITE_LIMIT = 1000;
export const GRAY_LIMIT = 5000;

const key = (host: string, port: number): string => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`);

export class PeerList {
  readonly white = new Map<string, Peer>();
  readonly gray = new Map<string, Peer>();
  readonly anchor = new Map<string, Peer>();

  constructor(private readonly file: string | undefined) {
    if (!file) return;
    try {
      const j = JSON.parse(readFileSync(file, "utf8")) as { white?: Peer[]; gray?: Peer[]; anchor?: Peer[] };
      for (const [list, m] of [[j.white, this.white], [j.gray, this.gray], [j.anchor, this.anchor]] as const)
        for (const p of list ?? []) if (typeof p.host === "string" && Number.isInteger(p.port)) m.set(key(p.host, p.port), p);
    } catch {
      // no state yet, or unreadable: start empty as monerod does
    }
  }

  private static put(m: Map<string, Peer>, p: Peer, limit: number): void {
    const k = key(p.host, p.port);
    m.delete(k);
    m.set(k, p);
    while (m.size > limit) m.delete(m.keys().next().value as string);
  }

  /** append_with_peer_white: a peer we handshook with (leaves gray). */
  addWhite(p: Peer): void {
    this.gray.delete(key(p.host, p.port));
    PeerList.put(this.white, p, WHITE_LIMIT);
  }

  /** append_with_peer_gray: an address heard from a peer, unless it is white already. */
  addGray(p: Peer): void {
    const k = key(p.host, p.port);
    if (this.white.has(k)) return;
    PeerList.put(this.gray, p, GRAY_LIMIT);
  }

  addAnchor(p: Peer): void {
    PeerList.put(this.anchor, p, WHITE_LIMIT);
  }

  removeAnchor(host: string, port: number): void {
    this.anchor.delete(key(host, port));
  }

  /** A peer that failed: it drops from white to gray (monerod moves failed white peers to gray). */
  demote(host: string, port: number): void {
    const k = key(host, port);
    const p = this.white.get(k);
    if (!p) return;
    this.white.delete(k);
    PeerList.put(this.gray, p, GRAY_LIMIT);
  }

  /** get_peerlist_head: the newest white peers, at most `n`. */
  head(n: number): Peer[] {
    return [...this.white.values()].reverse().slice(0, n);
  }

  save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ white: [...this.white.values()], gray: [...this.gray.values()], anchor: [...this.anchor.values()] }));
    renameSync(tmp, this.file);
  }
}
