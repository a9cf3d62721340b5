/**
 * From monerod's /get_blocks.bin answer to scanner input (wallet2::pull_blocks → process_parsed_blocks):
 * each block_complete_entry with its tx blobs (pruned or not) and the matching output_indices.
 */
import type { GetBlocksBinResponse } from "../../protocol/rpc-bin.js";
import type { ScanBlockInput } from "./scan.js";

/** The blocks of a get_blocks.bin response as `ScanBlockInput`s, heights from `start_height`. */
export function blockInputsFromResponse(res: GetBlocksBinResponse): ScanBlockInput[] {
  const start = Number(res.start_height);
  if (res.output_indices.length !== 0 && res.output_indices.length !== res.blocks.length) {
    throw new RangeError(`get_blocks.bin: ${res.blocks.length} blocks but ${res.output_indices.length} output index lists`);
  }
  return res.blocks.map((entry, k) => ({
    height: start + k,
    blockBlob: entry.block,
    txBlobs: entry.txs.map((t) => t.blob),
    pruned: entry.pruned,
    outputIndices: res.output_indices[k]?.indices.map((t) => t.indices),
  }));
}
