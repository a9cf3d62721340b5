/**
 * One block stream for many wallets: a NodeApi over another that answers the get_blocks.bin
 * requests of wallets standing at the same block from one fetch. A wallet's request (its short
 * chain history, wallet2::get_short_chain_history) starts with its top block id; when the node's
 * answer begins with that very block, the answer depends on nothing else the request holds, so
 * every wallet whose history starts with that id (and asks the same start height and pruning) gets
 * it: concurrent requests wait for the one fetch under way, later ones take it from a small cache
 * of recent answers, used only while the node's height is still the answer's current_height (one
 * get_height, itself shared by concurrent callers, instead of a get_blocks.bin): an answer from
 * before a new block is never served. Answers that begin elsewhere (a wallet on a fork) are not
 * shared. The pool's ids (get_transaction_pool_hashes), which every wallet reads after its blocks,
 * are one call in flight for all callers too. Each wallet scans the blocks with its own keys, on the
 * hub's shared scan threads (scan/shared.ts).
 */
import type { NodeApi } from "../../client/node-client.js";
import { blockHash, parseBlock } from "../../protocol/block.js";
import type { GetBlocksBinResponse } from "../../protocol/rpc-bin.js";
import { bytesToHex } from "../../base/bytes.js";
import { turnstile } from "../../base/turns.js";

export interface SharedNodeStats {
  /** get_blocks.bin requests the wallets made. */
  requests: number;
  /** Of those, sent to the node. */
  fetches: number;
  /** getHeight calls the wallets made, and those sent to the node. */
  heightRequests: number;
  heightFetches: number;
  /** get_transaction_pool_hashes calls the wallets made, and those sent to the node. */
  poolRequests: number;
  poolFetches: number;
}

export interface SharedNode {
  readonly api: NodeApi;
  readonly stats: SharedNodeStats;
}

/** Wraps `node`: `cacheSize` recent answers kept for `ttlMs`. */
export function sharedNode(node: NodeApi, o: { cacheSize?: number; ttlMs?: number } = {}): SharedNode {
  const cacheSize = o.cacheSize ?? 8;
  const ttlMs = o.ttlMs ?? 60_000;
  const stats: SharedNodeStats = { requests: 0, fetches: 0, heightRequests: 0, heightFetches: 0, poolRequests: 0, poolFetches: 0 };
  const inflight = new Map<string, Promise<GetBlocksBinResponse>>();
  const recent = new Map<string, { at: number; res: GetBlocksBinResponse }>();
  let height: ReturnType<NodeApi["getHeight"]> | null = null;
  let poolIds: ReturnType<NodeApi["getTransactionPoolHashes"]> | null = null;

  /** Whether the answer begins with the block `firstId` names (then it is valid for every history starting so). */
  const beginsWith = (res: GetBlocksBinResponse, firstId: string): boolean => {
    const first = res.blocks[0];
    if (!first) return false;
    try {
      return bytesToHex(blockHash(parseBlock(first.block))) === firstId;
    } catch {
      return false;
    }
  };

  // the wallets one shared answer wakes go on one per event-loop turn: after get_blocks.bin each
  // builds its blocks' inputs and queues its scan; after the pool's ids each reads the pool, stores
  // and derives its events. Woken together, 1,000 wallets held the loop up to 1.6 s
  const turn = turnstile();
  /** A shared answer, handed over in the caller's own turn. */
  const inTurn = async <T>(v: T): Promise<T> => {
    await turn();
    return v;
  };
  /** A call shared by every caller: each gets the answer in its own turn. */
  const paced = <T>(p: Promise<T>): Promise<T> => p.then(inTurn);

  const getBlocksBin: NodeApi["getBlocksBin"] = async (req, opts) => {
    stats.requests++;
    const first = req.block_ids[0];
    const start = req.start_height ?? 0n;
    if (!first && start === 0n) {
      stats.fetches++;
      return node.getBlocksBin(req, opts);
    }
    // a start height above 0 makes the node answer from that height whatever the ids (a wallet with no kept hash asks so)
    const fromHeight = start > 0n;
    const key = `${fromHeight ? "h" : bytesToHex(first)}/${start}/${req.prune === true ? 1 : 0}/${req.no_miner_tx === true ? 1 : 0}`;
    const shareable = (res: GetBlocksBinResponse) => fromHeight || beginsWith(res, bytesToHex(first));
    const hit = recent.get(key);
    if (hit && Date.now() - hit.at < ttlMs) {
      const top = await getHeight(opts).catch(() => null);
      if (top && top.height === hit.res.current_height) return inTurn(hit.res);
      recent.delete(key);
    }
    const running = inflight.get(key);
    if (running) {
      const res = await running.catch(() => null);
      if (res && shareable(res)) return inTurn(res);
      stats.fetches++;
      return node.getBlocksBin(req, opts); // the shared answer was not for this history: ask for it alone
    }
    stats.fetches++;
    const p = node.getBlocksBin(req, opts);
    inflight.set(key, p);
    try {
      const res = await p;
      if (shareable(res)) {
        recent.set(key, { at: Date.now(), res });
        while (recent.size > cacheSize) recent.delete(recent.keys().next().value as string);
      }
      return res;
    } finally {
      inflight.delete(key);
    }
  };

  /** get_height, one call in flight for all callers (no answer is reused after it came). */
  function getHeight(opts?: Parameters<NodeApi["getHeight"]>[0]): ReturnType<NodeApi["getHeight"]> {
    stats.heightRequests++;
    if (height) return paced(height);
    stats.heightFetches++;
    const p = node.getHeight(opts);
    height = p;
    const done = () => {
      if (height === p) height = null;
    };
    p.then(done, done);
    return paced(p);
  }

  /** get_transaction_pool_hashes, one call in flight for all callers (no answer is reused after it came). */
  function getTransactionPoolHashes(...a: Parameters<NodeApi["getTransactionPoolHashes"]>): ReturnType<NodeApi["getTransactionPoolHashes"]> {
    stats.poolRequests++;
    if (poolIds) return paced(poolIds);
    stats.poolFetches++;
    const p = node.getTransactionPoolHashes(...a);
    poolIds = p;
    const done = () => {
      if (poolIds === p) poolIds = null;
    };
    p.then(done, done);
    return paced(p);
  }

  // every other call goes to the node as it is
  const api: NodeApi = {
    getInfo: (...a) => node.getInfo(...a),
    getHeight,
    getBlockCount: (...a) => node.getBlockCount(...a),
    getLastBlockHeader: (...a) => node.getLastBlockHeader(...a),
    getBlockHeaderByHeight: (...a) => node.getBlockHeaderByHeight(...a),
    getBlocksBin,
    getOutsBin: (...a) => node.getOutsBin(...a),
    getTransactions: (...a) => node.getTransactions(...a),
    getTransactionPoolHashes,
    getTransactionPoolHashesBin: (...a) => node.getTransactionPoolHashesBin(...a),
    sendRawTransaction: (...a) => node.sendRawTransaction(...a),
    getFeeEstimate: (...a) => node.getFeeEstimate(...a),
    getVersion: (...a) => node.getVersion(...a),
    getOutputDistribution: (...a) => node.getOutputDistribution(...a),
    getOutputDistributionBin: (...a) => node.getOutputDistributionBin(...a),
    jsonRpc: ((...a: Parameters<NodeApi["jsonRpc"]>) => node.jsonRpc(...a)) as NodeApi["jsonRpc"],
    json: ((...a: Parameters<NodeApi["json"]>) => node.json(...a)) as NodeApi["json"],
    bin: ((...a: Parameters<NodeApi["bin"]>) => node.bin(...a)) as NodeApi["bin"],
  };
  return { api, stats };
}
