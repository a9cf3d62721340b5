/**
 * When monerod publishes, mirrored on the node core's events (daemon.cpp's zmq_internals hooks):
 * - each block added to the main chain: miner_data for the next block, then chain_main for the
 *   block (Blockchain::handle_block_to_main_chain);
 * - a reorg: as each block of the new chain is applied, miner_data and chain_main for it
 *   (handle_block_to_main_chain); then miner_data once for the new tip and chain_main again for
 *   each block of the new chain (Blockchain::switch_to_alternative_blockchain). The backlog of the
 *   first miner_data messages lacks the dropped blocks' txs, which monerod has already put back.
 * - each submission that added a tx to the pool: txpool_add (core::handle_incoming_txs). A tx the
 *   pool already had, or one returned to the pool by a popped block, is not published.
 */
import { isBroadcast, type NodeCore, type PoolEntry } from "../core.js";
import type { Block } from "../../protocol/block.js";
import type { Bytes } from "../../protocol/rct.js";
import type { ZmqPublisher } from "./pub.js";
import type { MinerData } from "./topics.js";

/** RX_BLOCK_VERSION: before it the seed hash is null. */
const RX_BLOCK_VERSION = 12;

/** The txpool table's key order in monerod's LMDB (compare_hash32): 32-bit little-endian words, last first. */
function compareHash32(a: Bytes, b: Bytes): number {
  const x = new DataView(a.buffer, a.byteOffset, 32);
  const y = new DataView(b.buffer, b.byteOffset, 32);
  for (let i = 28; i >= 0; i -= 4) {
    const d = x.getUint32(i, true) - y.getUint32(i, true);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** Blockchain::send_miner_notifications. */
export function minerData(core: NodeCore): MinerData {
  const store = core.store;
  const height = store.height();
  const ctx = core.mainContext();
  const tipVersion = height > 0 ? store.hardForkVersion(height - 1) : ctx.hfVersion;
  // tx_pool::get_block_template_backlog: txs that may be mined, in the pool's (txid) order; monerod
  // leaves out txs not broadcast (do_not_relay, Dandelion++ stem)
  const backlog = core.pool
    .entries()
    .filter(isBroadcast)
    .map((e) => ({ id: e.id, weight: e.weight, fee: e.fee }))
    .sort((a, b) => compareHash32(a.id, b.id));
  return {
    majorVersion: ctx.hfVersion,
    height,
    prevId: store.topHash(),
    seedHash: tipVersion >= RX_BLOCK_VERSION ? core.seedFor(height).hash : new Uint8Array(32),
    difficulty: ctx.difficulty,
    medianWeight: ctx.limits.effectiveMedian,
    alreadyGeneratedCoins: store.alreadyGeneratedCoins(),
    backlog,
  };
}

/** Publishes the core's events on `pub`; returns the function that stops it. */
export function publishCoreEvents(core: NodeCore, pub: ZmqPublisher): () => void {
  // block events that follow a reorg event: their miner_data went out with the reorg
  let reorgBlocks = 0;
  const onReorg = (r: { splitHeight: number; newHeight: number }): void => {
    reorgBlocks = Math.max(0, r.newHeight - r.splitHeight);
    pub.minerData(() => minerData(core));
  };
  const onBlock = (b: { height: number; id: Bytes; block: Block }): void => {
    if (reorgBlocks > 0) reorgBlocks--;
    else pub.minerData(() => minerData(core));
    pub.chainMain({ height: b.height, blocks: [{ id: b.id, block: b.block }] });
  };
  const onReorgBlock = (b: { height: number; id: Bytes; block: Block }): void => {
    pub.minerData(() => minerData(core));
    pub.chainMain({ height: b.height, blocks: [{ id: b.id, block: b.block }] });
  };
  // published when public (handle_incoming_txs for none/fluff/block); a local or stem tx once it is
  // fluffed (later 0.18s' on_transactions_relayed → notify_txpool_event)
  const onPoolAdd = (e: PoolEntry): void => {
    if (isBroadcast(e) || e.doNotRelay) pub.txpoolAdd([e]);
  };
  const onPoolBroadcast = (es: PoolEntry[]): void => pub.txpoolAdd(es);
  core.on("pool-broadcast", onPoolBroadcast);
  core.on("reorg-block", onReorgBlock);
  core.on("reorg", onReorg);
  core.on("block", onBlock);
  core.on("pool-add", onPoolAdd);
  return () => {
    core.off("block", onBlock);
    core.off("pool-add", onPoolAdd);
    core.off("pool-broadcast", onPoolBroadcast);
    core.off("reorg", onReorg);
    core.off("reorg-block", onReorgBlock);
  };
}
