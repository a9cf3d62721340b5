/**
 * Compile-time test of the typed node client (src/client/typed-node-client.ts over NodeRpcApi and
 * NodePathApi): tsc compiles this file with the rest of test/ (npm run build / test), so every
 * `@ts-expect-error` below must be an error — a misspelled method or path, a wrongly typed param or
 * a result field that does not exist, had it compiled, would fail the build ("Unused
 * '@ts-expect-error' directive"). Nothing here runs (no test file loads it).
 */
import type { TypedNodeClient } from "../src/client/typed-node-client.js";
import type { NodePath, NodePathApi, NodeRpcApi, NodeRpcMethod } from "../src/node/rpc/api.js";

export async function typedNodeCalls(n: TypedNodeClient<NodeRpcApi, NodePathApi>): Promise<void> {
  // checked params, typed results
  const info = await n.call("get_info");
  const height: bigint | number = info.height;
  const synced: boolean = info.synchronized;
  const hdr = await n.call("get_block_header_by_height", { height: 1, fill_pow_hash: false });
  const hash: string = hdr.block_header.hash;
  const block = await n.call("get_block", { hash });
  const txHashes: string[] | undefined = block.tx_hashes; // epee leaves an empty list out
  const gen = await n.call("generateblocks", { amount_of_blocks: 2, wallet_address: "4…", starting_nonce: 0 });
  const blocks: string[] = gen.blocks;
  const blockHash: string = await n.call("on_get_block_hash", [1]);
  const txs = await n.path("/get_transactions", { txs_hashes: [hash], decode_as_json: true });
  const missed: string[] | undefined = txs.missed_tx;
  const sent = await n.path("/send_raw_transaction", { tx_as_hex: "00", do_not_relay: true });
  const reason: string = sent.reason;
  const top = await n.path("/get_height");
  void [height, synced, txHashes, blocks, blockHash, missed, reason, top.hash];

  // @ts-expect-error a misspelled method does not compile
  await n.call("get_block_header_by_heigth", { height: 1 });
  // @ts-expect-error an alias is not a method of the map (call canonical names)
  await n.call("getblockheaderbyheight", { height: 1 });
  // @ts-expect-error a path is not a JSON-RPC method
  await n.call("/get_height");
  // @ts-expect-error a misspelled path does not compile
  await n.path("/get_transaction", { txs_hashes: [] });
  // @ts-expect-error height is a u64 (bigint or number), not a string
  await n.call("get_block_header_by_height", { height: "1" });
  // @ts-expect-error fill_pow_hash is a boolean
  await n.call("get_block", { hash, fill_pow_hash: 1 });
  // @ts-expect-error txs_hashes is a list of strings
  await n.path("/get_transactions", { txs_hashes: hash });
  // @ts-expect-error amount_of_blocks is a u64, not a string
  await n.call("generateblocks", { amount_of_blocks: "2", wallet_address: "4…" });
  // @ts-expect-error a result field that does not exist
  void info.heigth;
  // @ts-expect-error block_header's fields are typed: hash is a string
  const wrong: number = hdr.block_header.hash;
  // @ts-expect-error a list the node may leave out is not always there
  const always: string[] = txs.missed_tx;
  void [wrong, always];
  // @ts-expect-error the name unions have no such method or path
  const bad: NodeRpcMethod = "get_infos";
  // @ts-expect-error a path starts with "/"
  const badPath: NodePath = "get_height";
  void [bad, badPath];
}
