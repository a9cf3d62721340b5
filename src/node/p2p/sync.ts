/**
 * The sync state machine (t_cryptonote_protocol_handler's request_missing_objects /
 * handle_response_chain_entry / handle_response_get_objects, simplified): when a peer's top is a
 * block we do not have and its chain is heavier, ask it for the chain from our short history
 * (NOTIFY_REQUEST_CHAIN), then download the blocks we lack in spans (NOTIFY_REQUEST_GET_OBJECTS,
 * the next span requested while the current one is verified) and hand each block with its txs to
 * NodeCore.submitBlock, which verifies it fully and stores it on the main chain or as an
 * alternative (a heavier chain found on a peer becomes the main chain through a reorg). An invalid
 * block drops the peer with a score of 5; the chain is never left with a block the core refused.
 * Restarting resumes naturally: the short history starts from what the store holds.
 *
 * Not yet: spans from several peers at once (one peer at a time here, the heaviest), pruned sync.
 */
import { decodeEpee, encodeEpee } from "../../codec/epee-map.js";
import { EPEE_LEVIN_LIMITS } from "../../codec/epee.js";
import { blockHashesFromBlob } from "../../protocol/block.js";
import type { Bytes } from "../../protocol/tx.js";
import * as M from "./messages.js";
import { invalidBlockScore, type P2pNode, type PeerConn } from "./node.js";
import { bytesToHex as hex } from "../../base/bytes.js";

const RESPONSE_TIMEOUT_MS = 60_000;
/** Our default span: monerod adapts between 20 and 2048; 100 keeps the request count low on short chains. */
const DEFAULT_SPAN = 100;

/** One span being downloaded (sync_info's spans). */
export interface SpanInfo {
  connectionId: string;
  startHeight: number;
  nblocks: number;
  size: number;
  rate: number;
  remoteAddress: string;
  speed: number;
}

export class Syncer {
  /** A sync is running (get_info's busy_syncing). */
  busy = false;
  /** The highest height a peer announced that we are syncing towards (0: none). */
  targetHeight = 0;
  readonly spans: SpanInfo[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;
  blocksApplied = 0;

  constructor(private readonly node: P2pNode) {}

  stop(): void {
    this.stopped = true;
  }

  private ourCumDiff(): bigint {
    const s = this.node.core.store;
    return s.meta(s.height() - 1).cumulativeDifficulty;
  }

  /** A peer is worth syncing from: its top is unknown to us and its chain is heavier (or `force`). */
  private wants(p: PeerConn, force = false): boolean {
    if (p.state === "before_handshake" || p.conn.isClosed) return false;
    if (this.node.haveBlock(p.remoteTop)) return false;
    return force || p.remoteCumDiff > this.ourCumDiff();
  }

  /** New sync data from a peer (handshake, timed sync, an orphan block): start syncing if it is ahead. */
  onPeerSyncData(p: PeerConn, force = false): void {
    if (this.node.opts.noSync || this.stopped) return;
    if (!this.wants(p, force)) return;
    if (force) p.forceSync = true;
    if (Number(p.remoteHeight) > this.targetHeight) this.targetHeight = Number(p.remoteHeight);
    this.kick();
  }

  onPeerClosed(_p: PeerConn): void {
    // the running sync sees the close through its failed waits
  }

  private kick(): void {
    if (this.running) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      this.busy = false;
      this.spans.length = 0;
      if (!this.stopped && [...this.node.peers].some((p) => this.wants(p, p.forceSync))) this.kick();
      else this.targetHeight = 0;
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const candidates = [...this.node.peers].filter((p) => this.wants(p, p.forceSync)).sort((a, b) => (b.remoteCumDiff > a.remoteCumDiff ? 1 : -1));
      const peer = candidates[0];
      if (!peer) return;
      peer.forceSync = false;
      this.busy = true;
      peer.state = "synchronizing";
      try {
        await this.syncFrom(peer);
      } catch (e) {
        this.node.log(`sync from ${peer.host}: ${(e as Error).message}`);
        if (!peer.conn.isClosed) this.node.drop(peer, 0, `sync failed: ${(e as Error).message}`);
      } finally {
        if (peer.state === "synchronizing") peer.state = "normal";
      }
    }
  }

  /** get_short_chain_history: the top 10 ids, then ids further down at doubling steps, then the genesis. */
  shortHistory(): Bytes[] {
    const store = this.node.core.store;
    const sz = store.height();
    const ids: Bytes[] = [];
    let i = 0;
    let mul = 1;
    let back = 1;
    let genesis = false;
    while (back <= sz) {
      ids.push(store.meta(sz - back).hash);
      if (sz - back === 0) genesis = true;
      if (i < 10) back++;
      else {
        mul *= 2;
        back += mul;
      }
      i++;
    }
    if (!genesis) ids.push(store.genesisHash());
    return ids;
  }

  private async syncFrom(peer: PeerConn): Promise<void> {
    const node = this.node;
    let lastTop = "";
    while (!this.stopped && !peer.conn.isClosed) {
      const wait = peer.expect(M.NOTIFY_RESPONSE_CHAIN_ENTRY, RESPONSE_TIMEOUT_MS);
      peer.conn.notify(M.NOTIFY_REQUEST_CHAIN, encodeEpee(M.requestChain, { block_ids: this.shortHistory(), prune: false }));
      const r = decodeEpee(M.responseChainEntry, await wait, EPEE_LEVIN_LIMITS);
      const n = r.m_block_ids.length;
      if (n === 0) return node.drop(peer, 1, "empty NOTIFY_RESPONSE_CHAIN_ENTRY");
      if (r.total_height < BigInt(n) || r.start_height > r.total_height - BigInt(n))
        return node.drop(peer, 1, "NOTIFY_RESPONSE_CHAIN_ENTRY with invalid start/nblocks/height");
      if (r.m_block_weights.length > 0 && r.m_block_weights.length !== n) return node.drop(peer, 1, "NOTIFY_RESPONSE_CHAIN_ENTRY with an invalid block weight array");
      if (n > M.BLOCK_IDS_MAX_COUNT) return node.drop(peer, 0, `NOTIFY_RESPONSE_CHAIN_ENTRY with ${n} ids`);
      const seen = new Set<string>();
      for (const id of r.m_block_ids) {
        if (seen.has(hex(id))) return node.drop(peer, 5, "duplicate blocks in NOTIFY_RESPONSE_CHAIN_ENTRY");
        seen.add(hex(id));
      }
      if (!node.haveBlock(r.m_block_ids[0])) return node.drop(peer, 5, "NOTIFY_RESPONSE_CHAIN_ENTRY whose first block is unknown");
      peer.remoteHeight = r.total_height;
      if (Number(r.total_height) > this.targetHeight) this.targetHeight = Number(r.total_height);
      let first = 0;
      while (first < n && node.haveBlock(r.m_block_ids[first])) first++;
      const needed = r.m_block_ids.slice(first);
      const top = hex(r.m_block_ids[n - 1]);
      if (needed.length === 0) {
        // the peer's chain as far as it sent it is ours; nothing more to fetch from this answer
        if (top === lastTop || node.haveBlock(peer.remoteTop)) return;
        lastTop = top;
        continue;
      }
      lastTop = top;
      await this.download(peer, needed, Number(r.start_height) + first);
      if (node.haveBlock(peer.remoteTop) && !(peer.remoteHeight > BigInt(node.core.store.height()))) return;
    }
  }

  /** Downloads `ids` in spans, one span ahead of the one being applied. */
  private async download(peer: PeerConn, ids: Bytes[], startHeight: number): Promise<void> {
    const span = this.node.opts.blockSyncSize || DEFAULT_SPAN;
    const request = (from: number): { ids: Bytes[]; wait: Promise<Uint8Array>; at: number; startHeight: number } => {
      const part = ids.slice(from, from + Math.min(span, M.MAX_OBJECT_REQUEST_COUNT));
      const wait = peer.expect(M.NOTIFY_RESPONSE_GET_OBJECTS, RESPONSE_TIMEOUT_MS);
      peer.conn.notify(M.NOTIFY_REQUEST_GET_OBJECTS, encodeEpee(M.requestGetObjects, { blocks: part, prune: false }));
      const info: SpanInfo = { connectionId: peer.connectionId, startHeight: startHeight + from, nblocks: part.length, size: 0, rate: 0, remoteAddress: `${peer.host}:${peer.conn.remotePort}`, speed: 100 };
      this.spans.push(info);
      return { ids: part, wait, at: Date.now(), startHeight: startHeight + from };
    };
    let next: ReturnType<typeof request> | undefined = request(0);
    for (let from = 0; next; ) {
      const cur: ReturnType<typeof request> = next;
      const body = await cur.wait;
      from += cur.ids.length;
      next = from < ids.length ? request(from) : undefined;
      const info = this.spans.find((s) => s.startHeight === cur.startHeight);
      if (info) {
        info.size = body.length;
        info.rate = Math.round(body.length / Math.max(0.001, (Date.now() - cur.at) / 1000));
      }
      const rsp = decodeEpee(M.responseGetObjects, body, EPEE_LEVIN_LIMITS);
      if (rsp.missed_ids.length > 0 || rsp.blocks.length !== cur.ids.length) throw new Error(`peer sent ${rsp.blocks.length} of ${cur.ids.length} requested blocks`);
      // the span's PoW hashes on every core while its blocks are verified one by one
      this.node.core.prehashPow?.(cur.startHeight, rsp.blocks.map((b) => b.block));
      for (let i = 0; i < rsp.blocks.length; i++) {
        const e = rsp.blocks[i];
        let id: Bytes;
        try {
          id = blockHashesFromBlob(e.block).hash;
        } catch (err) {
          this.node.drop(peer, 0, `unparsable block: ${(err as Error).message}`);
          return;
        }
        if (hex(id) !== hex(cur.ids[i])) {
          this.node.drop(peer, 1, `sent block ${hex(id)} where ${hex(cur.ids[i])} was requested`);
          return;
        }
        this.node.blockSources.set(hex(id), { kind: "sync" });
        const res = await this.node.core.submitBlock(e.block, { txBlobs: e.txs.map((t) => t.blob) });
        if (res.status === "rejected") {
          this.node.blockSources.delete(hex(id));
          this.node.drop(peer, invalidBlockScore(res), `invalid block ${hex(id)} at height ${cur.startHeight + i}: ${res.message ?? res.error ?? "rejected"}`);
          return;
        }
        if (res.status === "error") throw new Error(`could not verify block ${hex(id)}: ${res.message ?? "internal error"}`);
        if (res.status !== "added") this.node.blockSources.delete(hex(id));
        this.blocksApplied++;
      }
      if (info) this.spans.splice(this.spans.indexOf(info), 1);
      if (this.stopped || peer.conn.isClosed) return;
    }
  }
}
