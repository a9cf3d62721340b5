/**
 * monerod's ZMQ pub topics and their payloads (src/rpc/zmq_pub.cpp): each message is one frame,
 * `<topic>:<JSON>`, the topic unquoted. Topics are kept in monerod's sorted order, which is also the
 * order the messages of one event go out in (full before minimal).
 */
import type { Block } from "../../protocol/block.js";
import type { Bytes } from "../../protocol/rct.js";
import { type JsonWritable, stringifyJson } from "../../rpc/json.js";
import type { PoolEntry } from "../core.js";
import { blockJson, txJson } from "./json.js";
import { bytesToHex as hex } from "../../base/bytes.js";

export const CHAIN_TOPICS = ["json-full-chain_main", "json-minimal-chain_main"] as const;
export const MINER_TOPICS = ["json-full-miner_data"] as const;
export const TXPOOL_TOPICS = ["json-full-txpool_add", "json-minimal-txpool_add"] as const;
export const ALL_TOPICS = [...CHAIN_TOPICS, ...MINER_TOPICS, ...TXPOOL_TOPICS] as const;
export type Topic = (typeof ALL_TOPICS)[number];

/** What send_miner_data gets (Blockchain::send_miner_notifications). */
export interface MinerData {
  majorVersion: number;
  height: number;
  prevId: Bytes;
  seedHash: Bytes;
  difficulty: bigint;
  medianWeight: number;
  alreadyGeneratedCoins: bigint;
  backlog: readonly { id: Bytes; weight: number; fee: bigint }[];
}

/** A chain event: the blocks from `height` up (monerod sends one block per event, also in a reorg). */
export interface ChainEvent {
  height: number;
  blocks: readonly { id: Bytes; block: Block }[];
}

/** The topics that match a subscription prefix (zmq_pub.cpp get_range): "" matches all. */
export function topicsMatching(prefix: string): Topic[] {
  return ALL_TOPICS.filter((t) => t.startsWith(prefix));
}

/** `<topic>:<json>`, as write_header + json_pub. */
function frame(topic: Topic, body: JsonWritable): string {
  return `${topic}:${stringifyJson(body)}`;
}

/** json_full_chain / json_minimal_chain. */
export function chainMessage(topic: (typeof CHAIN_TOPICS)[number], e: ChainEvent): string {
  if (topic === "json-full-chain_main") return frame(topic, e.blocks.map((b) => blockJson(b.block)));
  return frame(topic, { first_height: e.height, first_prev_id: hex(e.blocks[0].block.prevId), ids: e.blocks.map((b) => hex(b.id)) });
}

/** json_miner_data: the difficulty as cryptonote::hex ("0x" and lowercase digits, no padding). */
export function minerMessage(topic: (typeof MINER_TOPICS)[number], m: MinerData): string {
  return frame(topic, {
    major_version: m.majorVersion,
    height: m.height,
    prev_id: hex(m.prevId),
    seed_hash: hex(m.seedHash),
    difficulty: `0x${m.difficulty.toString(16)}`,
    median_weight: m.medianWeight,
    already_generated_coins: m.alreadyGeneratedCoins,
    tx_backlog: m.backlog.map((b) => ({ id: hex(b.id), weight: b.weight, fee: b.fee })),
  });
}

/** json_full_txpool / json_minimal_txpool: the txs that entered the pool in one call. */
export function txpoolMessage(topic: (typeof TXPOOL_TOPICS)[number], entries: readonly PoolEntry[]): string {
  if (topic === "json-full-txpool_add") return frame(topic, entries.map((e) => txJson(e.tx)));
  return frame(topic, entries.map((e) => ({ id: hex(e.id), blob_size: e.blobSize, weight: e.weight, fee: e.fee })));
}
