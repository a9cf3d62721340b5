/**
 * The methods monerod's ZMQ RPC answers (src/rpc/daemon_handler.cpp, request and response fields
 * of daemon_messages.cpp, values as json_object.cpp writes them). Each handler reads its params in
 * the C++ fromJson order (a missing or mistyped field is "Malformed json"), then answers the
 * message's fields, or throws ZmqFailure with daemon_handler's status and details. Data comes from
 * the node core and the store through node/rpc's shared pieces, so both RPCs give the same figures.
 */
import { feeQuantizationMask } from "../../consensus/fees.js";
import { decodeAddress } from "../../protocol/address.js";
import type { Block } from "../../protocol/block.js";
import { hash32Key, UnorderedOrder } from "../../protocol/std-order.js";
import { txHash } from "../../protocol/tx-hash.js";
import { type Bytes, parseTransaction, type Transaction } from "../../protocol/tx.js";
import type { JsonObject, JsonValue, JsonWritable } from "../../rpc/json.js";
import { isBroadcast } from "../core.js";
import { BLOCKS_IDS_SYNCHRONIZING_DEFAULT_COUNT, splitHeight, supplementFull, supplementStart } from "../rpc/bin.js";
import { feeEstimate, getInfo, hardForkInfoOf, outputDistribution, outputHistogram } from "../rpc/chain.js";
import { blockById, blockRender, type HeaderSource, mainBlock, type NodeRpcDeps, parseHexBuf, toHex } from "../rpc/common.js";
import { compareHash32, getOuts } from "../rpc/txs.js";
import { blockJson, txJson } from "./json.js";
import { member, paramsObject, readArray, readBool, readHash, readInt, readObject, readUint, ZmqFailure } from "./rpc-message.js";

type Fields = Record<string, JsonWritable>;
export type ZmqHandler = (params: JsonValue) => Fields | Promise<Fields>;

const U64_MAX = (1n << 64n) - 1n;
const U8_MAX = 0xffn;
const ZERO_HASH = "0".repeat(64);
const HF_VERSION_PER_BYTE_FEE = 8;

const hex = toHex;

/** A tx parsed from the store: full when stored whole, else (or when asked) its pruned form. */
function storedTx(d: NodeRpcDeps, id: Bytes, prune: boolean): { tx: Transaction; size: number } | undefined {
  const store = d.core.store;
  if (!prune) {
    const full = store.txBlob(id);
    if (full) return { tx: parseTransaction(full), size: full.length };
  }
  const pruned = store.txPrunedBlob(id);
  if (!pruned) return undefined;
  return { tx: parseTransaction(pruned, { pruned: true }), size: pruned.length };
}

/** DaemonHandler::getBlockHeaderByHash: BlockHeaderResponse of a block the node has (main or alternative). */
function headerOf(d: NodeRpcDeps, src: HeaderSource | undefined): Fields | undefined {
  if (!src) return undefined;
  const h = blockRender(d.core, src).header;
  const b: Block = src.block;
  const gen = b.minerTx.vin[0];
  if (b.minerTx.vin.length !== 1 || gen.type !== "gen") return undefined;
  const height = BigInt(gen.height);
  return {
    major_version: h.major,
    minor_version: h.minor,
    timestamp: h.timestamp,
    prev_id: h.prevHash,
    nonce: h.nonce,
    height,
    // uint64 arithmetic: an alternative block at or above the tip wraps
    depth: (BigInt(d.core.store.height()) - height - 1n) & U64_MAX,
    hash: h.hash,
    difficulty: h.diff.lo,
    reward: h.reward,
  };
}

function headerByHeight(d: NodeRpcDeps, height: bigint): Fields | undefined {
  // get_block_id_by_height: the null hash past the tip, which no block has
  if (height >= BigInt(d.core.store.height())) return undefined;
  return headerOf(d, mainBlock(d.core, Number(height)));
}

/** send_raw_tx's failure details (daemon_handler.cpp handleTxBlob), from the pool's flags. */
const TX_FLAG_WORDS: readonly [string, string][] = [
  ["low_mixin", "mixin too low"],
  ["double_spend", "double spend"],
  ["invalid_input", "invalid input"],
  ["invalid_output", "invalid output"],
  ["too_big", "too big"],
  ["overspend", "overspend"],
  ["fee_too_low", "fee too low"],
  ["too_few_outputs", "too few outputs"],
];

async function handleTxBlob(d: NodeRpcDeps, blob: Bytes, relay: boolean, log: (m: string) => void): Promise<Fields> {
  if (d.network?.()?.busySyncing()) throw new ZmqFailure("Not ready to accept transactions; try again later");
  const r = await d.core.submitTransaction(blob, { doNotRelay: !relay, local: relay && d.network?.() !== undefined });
  if (!r.ok) {
    if (r.internalError !== undefined) {
      log(`[SendRawTx]: Failed to process tx: ${r.internalError}`);
      throw new ZmqFailure(`Internal error: ${r.internalError}`);
    }
    log(r.flags.includes("verification_failed") ? "[SendRawTx]: tx verification failed" : "[SendRawTx]: Failed to process tx");
    const words = TX_FLAG_WORDS.filter(([f]) => r.flags.includes(f as never)).map(([, w]) => w);
    throw new ZmqFailure(words.length > 0 ? words.join(" and ") : "an unknown issue was found with the transaction");
  }
  if (r.notRelayed || r.duplicate || !relay) {
    log("[SendRawTx]: tx accepted, but not relayed");
    return { relayed: false };
  }
  return { relayed: true };
}

/** The handlers, by method name (daemon_handler.cpp's table; its unimplemented ones answer its words). */
export function zmqMethods(d: NodeRpcDeps, log: (m: string) => void): ReadonlyMap<string, ZmqHandler> {
  const { core } = d;
  const store = core.store;
  const notImplemented: ZmqHandler = () => {
    throw new ZmqFailure("RPC method not yet implemented.");
  };
  const m = new Map<string, ZmqHandler>();

  m.set("get_block_hash", (p) => {
    const height = readUint(member(paramsObject(p), "height"));
    if (BigInt(store.height()) <= height) throw new ZmqFailure("height given is higher than current chain height");
    return { hash: hex(store.meta(Number(height)).hash) };
  });

  m.set("get_block_header_by_hash", (p) => {
    const header = headerOf(d, blockById(core, readHash(member(paramsObject(p), "hash"))));
    if (!header) throw new ZmqFailure("Requested block does not exist");
    return { header };
  });

  m.set("get_block_header_by_height", (p) => {
    const header = headerByHeight(d, readUint(member(paramsObject(p), "height")));
    if (!header) throw new ZmqFailure("Requested block does not exist");
    return { header };
  });

  m.set("get_block_headers_by_height", (p) => {
    const heights = readArray(member(paramsObject(p), "heights"), (x) => readUint(x));
    const headers: Fields[] = [];
    for (const h of heights) {
      const header = headerByHeight(d, h);
      if (!header) throw new ZmqFailure("A requested block does not exist");
      headers.push(header);
    }
    return { headers };
  });

  m.set("get_blocks_fast", (p) => {
    const o = paramsObject(p);
    const ids = readArray(member(o, "block_ids"), readHash);
    const startHeight = readUint(member(o, "start_height"));
    const prune = readBool(member(o, "prune"));
    const start = supplementStart(d, startHeight, ids);
    if (start === undefined) throw new ZmqFailure("core::find_blockchain_supplement() returned false");
    const height = store.height();
    const blocks: Fields[] = [];
    const outputIndices: bigint[][][] = [];
    let size = 0;
    let txCount = 0;
    for (let h = start; h < height && !supplementFull(blocks.length, size, txCount); h++) {
      const block = store.block(h);
      if (!block) throw new ZmqFailure("failed retrieving a requested block");
      size += store.blockBlob(h)?.length ?? 0;
      const minerIndices = store.txLocation(txHash(block.minerTx))?.outputIndices;
      if (!minerIndices) throw new ZmqFailure("core::get_tx_outputs_gindexs() returned false");
      const indices = [minerIndices];
      const transactions: Fields[] = [];
      for (const id of block.txHashes) {
        const t = storedTx(d, id, prune);
        if (!t) throw new ZmqFailure("failed retrieving a requested transaction");
        size += t.size;
        transactions.push(txJson(t.tx));
        const loc = store.txLocation(id);
        if (!loc) throw new ZmqFailure("core::get_tx_outputs_gindexs() returned false");
        indices.push(loc.outputIndices);
      }
      txCount += block.txHashes.length;
      blocks.push({ block: blockJson(block), transactions });
      outputIndices.push(indices);
    }
    return { blocks, start_height: BigInt(start), current_height: BigInt(height), output_indices: outputIndices };
  });

  m.set("get_dynamic_fee_estimate", (p) => {
    const grace = readUint(member(paramsObject(p), "num_grace_blocks"));
    const version = hardForkInfoOf(d, 0).version;
    const perByte = version >= HF_VERSION_PER_BYTE_FEE;
    return {
      // get_dynamic_base_fee_estimate: grace blocks capped below CRYPTONOTE_REWARD_BLOCKS_WINDOW
      estimated_base_fee: feeEstimate(d, Number(grace >= 100n ? 99n : grace))[0],
      fee_mask: perByte ? feeQuantizationMask() : 1n,
      size_scale: perByte ? 1 : 1024,
      hard_fork_version: version,
    };
  });

  m.set("get_hashes_fast", (p) => {
    const o = paramsObject(p);
    const known = readArray(member(o, "known_hashes"), readHash);
    readUint(member(o, "start_height"));
    const start = splitHeight(d, known);
    if (start === undefined) throw new ZmqFailure("Blockchain::find_blockchain_supplement() returned false");
    const height = store.height();
    const hashes: string[] = [];
    for (let h = start; h < height && hashes.length < BLOCKS_IDS_SYNCHRONIZING_DEFAULT_COUNT; h++) hashes.push(hex(store.meta(h).hash));
    return { hashes, start_height: BigInt(start), current_height: BigInt(height) };
  });

  m.set("get_height", () => ({ height: store.height() }));

  m.set("get_info", () => {
    const i = getInfo(d, false);
    const height = store.height();
    const target = Number(i.target_height);
    return {
      info: {
        height,
        target_height: height > target ? height : target,
        difficulty: i.difficulty,
        target: i.target,
        tx_count: i.tx_count,
        // get_pool_transactions_count(): without the do_not_relay ones (the HTTP get_info counts them)
        tx_pool_size: core.pool.entries().filter(isBroadcast).length,
        alt_blocks_count: i.alt_blocks_count,
        outgoing_connections_count: i.outgoing_connections_count,
        incoming_connections_count: i.incoming_connections_count,
        white_peerlist_size: i.white_peerlist_size,
        grey_peerlist_size: i.grey_peerlist_size,
        mainnet: i.mainnet,
        testnet: i.testnet,
        stagenet: i.stagenet,
        // DaemonHandler leaves these two unset in 0.18 (an empty string and the null hash)
        nettype: "",
        top_block_hash: ZERO_HASH,
        cumulative_difficulty: i.cumulative_difficulty,
        block_size_limit: i.block_size_limit,
        block_weight_limit: i.block_weight_limit,
        block_size_median: i.block_size_median,
        block_weight_median: i.block_weight_median,
        adjusted_time: i.adjusted_time,
        start_time: d.state.startTime,
      },
    };
  });

  m.set("get_last_block_header", () => {
    const header = headerOf(d, mainBlock(core, store.height() - 1));
    if (!header) throw new ZmqFailure("Requested block does not exist");
    return { header };
  });

  m.set("get_output_distribution", (p) => {
    const o = paramsObject(p);
    const amounts = readArray(member(o, "amounts"), (x) => readUint(x));
    const from = readUint(member(o, "from_height"));
    const to = readUint(member(o, "to_height"));
    const cumulative = readBool(member(o, "cumulative"));
    const toHeight = to > 0n ? to : BigInt(store.height() - 1);
    const distributions: Fields[] = [];
    for (const amount of amounts) {
      const r = outputDistribution(d, amount, from, toHeight, cumulative);
      if (!r) throw new ZmqFailure("Failed to get output distribution");
      distributions.push({ distribution: r.distribution, amount, start_height: r.start_height, base: r.base });
    }
    return { status: "OK", distributions };
  });

  m.set("get_output_histogram", (p) => {
    const o = paramsObject(p);
    const req = {
      amounts: readArray(member(o, "amounts"), (x) => readUint(x)),
      min_count: readUint(member(o, "min_count")),
      max_count: readUint(member(o, "max_count")),
      unlocked: readBool(member(o, "unlocked")),
      recent_cutoff: readUint(member(o, "recent_cutoff")),
    };
    return { histogram: outputHistogram(d, req).map((e) => ({ amount: e.amount, total_count: e.total, unlocked_count: e.unlocked, recent_count: e.recent })) };
  });

  m.set("get_output_keys", (p) => {
    const outputs = readArray(member(paramsObject(p), "outputs"), (x) => {
      const e = readObject(x);
      return { amount: readUint(member(e, "amount")), index: readUint(member(e, "index")) };
    });
    const keys: Fields[] = [];
    for (const out of outputs) {
      const r = getOuts(d, [out]);
      if (!r) throw new ZmqFailure(`Attempting to get output pubkey by index, but key does not exist: amount ${out.amount}, index ${out.index}`);
      keys.push({ key: r[0].keyHex, mask: r[0].maskHex, unlocked: r[0].unlocked });
    }
    return { keys };
  });

  m.set("get_peer_list", notImplemented);

  m.set("get_rpc_version", () => ({ version: 2 << 16 }));

  m.set("get_transaction_pool", () => {
    // tx_memory_pool::get_pool_for_rpc: broadcastable txs in the txpool table's order
    const entries = core.pool
      .entries()
      .filter(isBroadcast)
      .sort((a, b) => compareHash32(a.id, b.id));
    const transactions = entries.map((e) => ({
      tx: txJson(e.tx),
      tx_hash: hex(e.id),
      blob_size: e.blobSize,
      weight: e.weight,
      fee: e.fee,
      max_used_block_hash: hex(e.maxUsedBlockId),
      max_used_block_height: e.maxUsedBlockHeight,
      kept_by_block: e.keptByBlock,
      last_failed_block_hash: hex(e.lastFailedId),
      last_failed_block_height: e.lastFailedHeight,
      receive_time: e.receiveTime,
      last_relayed_time: e.lastRelayedTime,
      relayed: e.relayed || e.keptByBlock,
      do_not_relay: e.doNotRelay,
      double_spend_seen: e.doubleSpendSeen,
    }));
    // key_images: key image → spending txs, an unordered_map reserved for the pool's size and filled
    // in the order the pool's own map walks. That map's buckets grow with every tx the pool ever held
    // and never shrink, a history tsmonerod does not keep: it is modelled as holding just the current
    // txs' key images in arrival order, so the entries are monerod's but their order may not be.
    const spenders = new Map<string, { ki: Bytes; txs: string[] }>();
    const arrival = [...core.pool.entries()].sort((a, b) => a.receiveTime - b.receiveTime);
    for (const e of arrival) {
      for (const ki of e.keyImages) {
        const k = hex(ki);
        const s = spenders.get(k) ?? { ki, txs: [] };
        if (isBroadcast(e)) s.txs.push(hex(e.id));
        spenders.set(k, s);
      }
    }
    const poolOrder = new UnorderedOrder();
    const all = [...spenders.values()];
    for (const s of all) poolOrder.insert(hash32Key(s.ki));
    const filled = poolOrder
      .order()
      .map((k) => all[k])
      .filter((s) => s.txs.length > 0);
    const out = new UnorderedOrder().reserve(entries.length);
    for (const s of filled) out.insert(hash32Key(s.ki));
    const keyImages: Fields = {};
    for (const k of out.order()) keyImages[hex(filled[k].ki)] = filled[k].txs;
    return { transactions, key_images: keyImages };
  });

  m.set("get_transactions", (p) => {
    const ids = readArray(member(paramsObject(p), "tx_hashes"), readHash);
    const found: { id: Bytes; height: bigint; inPool: boolean; tx: Transaction }[] = [];
    const missed: Bytes[] = [];
    for (const id of ids) {
      // Blockchain::get_transactions reads full blobs: a tx stored pruned is missed there
      const loc = store.txLocation(id);
      const blob = loc ? store.txBlob(id) : undefined;
      if (loc && blob) found.push({ id, height: BigInt(loc.height), inPool: false, tx: parseTransaction(blob) });
      else missed.push(id);
    }
    if (missed.length > 0) {
      for (const e of core.pool.entries().filter(isBroadcast).sort((a, b) => compareHash32(a.id, b.id))) {
        const at = missed.findIndex((x) => Buffer.compare(x, e.id) === 0);
        if (at < 0) continue;
        found.push({ id: e.id, height: U64_MAX, inPool: true, tx: e.tx });
        missed.splice(at, 1);
      }
    }
    // res.txs: an unordered_map emplaced in that order (a repeated id is not inserted again)
    const order = new UnorderedOrder();
    const inserted: typeof found = [];
    const seen = new Set<string>();
    for (const f of found) {
      const k = hex(f.id);
      if (seen.has(k)) continue;
      seen.add(k);
      order.insert(hash32Key(f.id));
      inserted.push(f);
    }
    const txs: Fields = {};
    for (const k of order.order()) {
      const f = inserted[k];
      txs[hex(f.id)] = { height: f.height, in_pool: f.inPool, transaction: txJson(f.tx) };
    }
    return { txs, missed_hashes: missed.map(hex) };
  });

  m.set("get_tx_global_output_indices", (p) => {
    const loc = store.txLocation(readHash(member(paramsObject(p), "tx_hash")));
    if (!loc) throw new ZmqFailure("core::get_tx_outputs_gindexs() returned false");
    return { output_indices: loc.outputIndices };
  });

  m.set("hard_fork_info", (p) => {
    const version = Number(readUint(member(paramsObject(p), "version"), U8_MAX));
    const i = hardForkInfoOf(d, version);
    return {
      info: {
        version: i.version,
        enabled: i.enabled,
        window: i.window,
        votes: i.votes,
        threshold: i.threshold,
        voting: i.voting,
        state: i.state,
        earliest_height: i.earliest_height,
      },
    };
  });

  m.set("key_images_spent", (p) => {
    const kis = readArray(member(paramsObject(p), "key_images"), readHash);
    const pool = new Set(
      core.pool
        .entries()
        .filter(isBroadcast)
        .flatMap((e) => e.keyImages.map(hex)),
    );
    return { spent_status: kis.map((ki) => (store.keyImageHeight(ki) !== undefined ? 1 : pool.has(hex(ki)) ? 2 : 0)) };
  });

  m.set("mining_status", () => {
    const s = core.minerStatus();
    return {
      active: s.active,
      speed: s.active ? Math.round(s.speed) : 0,
      threads_count: s.active ? s.threads : 0,
      address: s.active ? s.address : "",
      is_background_mining_enabled: s.background,
    };
  });

  m.set("save_bc", async () => {
    try {
      await store.flush();
    } catch (e) {
      log(`save_bc: ${e instanceof Error ? e.message : String(e)}`);
      throw new ZmqFailure("Error storing the blockchain");
    }
    return {};
  });

  m.set("send_raw_tx", notImplementedSendRawTx);

  m.set("send_raw_tx_hex", async (p) => {
    const o = paramsObject(p);
    const txHex = member(o, "tx_as_hex");
    if (typeof txHex !== "string") throw new ZmqFailure("Invalid hex");
    const relay = readBool(member(o, "relay"));
    const blob = parseHexBuf(txHex);
    if (!blob) {
      log(`[SendRawTxHex]: Failed to parse tx from hexbuff: ${txHex.slice(0, 256)}`);
      throw new ZmqFailure("Invalid hex");
    }
    return handleTxBlob(d, blob, relay, log);
  });

  m.set("set_log_level", (p) => {
    const level = readInt(member(paramsObject(p), "level"), -128, 127);
    if (level < 0 || level > 4) throw new ZmqFailure("Error: log level not valid");
    d.state.setLogLevel(level);
    return {};
  });

  m.set("start_mining", (p) => {
    const o = paramsObject(p);
    const address = member(o, "miner_address");
    if (typeof address !== "string") throw new ZmqFailure("Failed, wrong address");
    const threads = readUint(member(o, "threads_count"));
    const background = readBool(member(o, "do_background_mining"));
    const ignoreBattery = readBool(member(o, "ignore_battery"));
    let kind: string;
    try {
      kind = decodeAddress(address, core.network).kind;
    } catch {
      throw new ZmqFailure("Failed, wrong address");
    }
    if (kind === "subaddress") throw new ZmqFailure("Failed, mining to subaddress isn't supported yet");
    if (threads > 1024n) throw new ZmqFailure("Failed, too many threads relative to CPU cores.");
    try {
      core.startMining(address, Number(threads), { background, ignoreBattery });
    } catch (e) {
      log(`start_mining: ${e instanceof Error ? e.message : String(e)}`);
      throw new ZmqFailure("Failed, mining not started");
    }
    return {};
  });

  m.set("stop_mining", () => {
    core.stopMining();
    return {};
  });

  return m;
}

/**
 * send_raw_tx takes the tx as json_object.cpp's JSON, which 0.18.0.0 cannot read back for a CLSAG
 * tx (its reader knows no `clsags`): not built; send_raw_tx_hex carries the same tx as hex.
 */
const notImplementedSendRawTx: ZmqHandler = (p) => {
  const o: JsonObject = paramsObject(p);
  member(o, "tx");
  readBool(member(o, "relay"));
  throw new ZmqFailure("send_raw_tx is not available in tsmonerod; send the blob with send_raw_tx_hex");
};
