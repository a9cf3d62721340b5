/**
 * The regtest chain recorded from monerod by scripts/record-chain.mjs (test/fixtures/chain/).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { parseBlock } from "../../src/protocol/block.js";

export const CHAIN_DIR = new URL("../../../test/fixtures/chain/", import.meta.url);

export interface RecordedBlock {
  height: number;
  hash: string;
  blob: string;
  json: string;
  miner_tx_hash: string;
  tx_hashes: string[];
  header: { block_weight: number; block_size: number; major_version: number; nonce: number; reward: number };
}

export interface RecordedTx {
  tx_hash: string;
  block_height: number;
  coinbase: boolean;
  shape: string;
  as_hex: string;
  as_json: string;
  pruned_as_hex: string;
  prunable_as_hex: string;
  prunable_hash: string;
  pruned_as_json: string;
  pruned_hex: string;
  weight?: number;
  blob_size?: number;
}

function load<T>(name: string): T {
  return JSON.parse(gunzipSync(readFileSync(new URL(name, CHAIN_DIR))).toString("utf8")) as T;
}

let blocks: RecordedBlock[] | undefined;
let txs: RecordedTx[] | undefined;

export function recordedBlocks(): RecordedBlock[] {
  blocks ??= load<RecordedBlock[]>("blocks.json.gz");
  return blocks;
}

export function recordedTxs(): RecordedTx[] {
  txs ??= load<RecordedTx[]>("txs.json.gz");
  return txs;
}

export function readChainFile(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(name, CHAIN_DIR)));
}

export const fromHex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, "hex"));
export const toHex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

/** The seeds scripts/record-chain.mjs and scripts/record-wallet-state.mjs restore alice, bob and carol from. */
export const WALLET_SEEDS = {
  alice:
    "bowling feel syllabus fifteen sipped hills yearbook butter wipeout fewest lymph lawsuit enraged humid emotion agony etiquette dejected buzzer ounce getting aspire ruffled smuggled buzzer",
  bob: "catch weavers linen olympics ramped lagoon galaxy locker gusts roles love peculiar eels dejected talent legion cause toffee diet duplex upcoming dodge taboo umbrella cause",
  carol:
    "mystery demonstrate lush bevel exult often topic opus motherly aztec wolf vain voyage getting odometer voyage salads saga hybrid items upload husband kitchens love odometer",
} as const;

/** The recorded chain for replaying into a node: blocks by height, a block's timestamp, a tx's blob by id. */
export function recordedByHeight(): { blocks: RecordedBlock[]; tsOf: (height: number) => number; blobOf: (txId: string) => Uint8Array } {
  const blocks = [...recordedBlocks()].sort((a, b) => a.height - b.height);
  const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
  return {
    blocks,
    tsOf: (h) => Number(parseBlock(fromHex(blocks[h].blob)).timestamp),
    blobOf: (id) => fromHex(txById.get(id)?.as_hex ?? ""),
  };
}

/**
 * Replays recorded heights from..to−1 into a node: the clock set 1 s past each block's timestamp
 * (`setClock`), its txs submitted (each must be accepted), then the block (it must be added).
 */
export async function replayRecorded(
  node: { submitTransaction(blob: Uint8Array): Promise<{ ok: boolean }>; submitBlock(blob: Uint8Array): Promise<{ status: string }> },
  from: number,
  to: number,
  setClock: (unixSeconds: number) => void,
): Promise<void> {
  const { blocks, tsOf, blobOf } = recordedByHeight();
  for (let h = from; h < to; h++) {
    setClock(tsOf(h) + 1);
    for (const id of blocks[h].tx_hashes) assert.ok((await node.submitTransaction(blobOf(id))).ok, `tx ${id} of height ${h} accepted`);
    assert.equal((await node.submitBlock(fromHex(blocks[h].blob))).status, "added", `block ${h} added`);
  }
}
