/**
 * The request-path warm-up of a freshly started tsmonerod (not in monerod, whose C++ is compiled
 * ahead of time).
 *
 * A new Node process runs every function in V8's interpreter and baseline tiers until it has run
 * often enough to be optimized: a restarted tsmonerod answered its first few thousand reads at
 * about half the rate it reaches later (docs/bench-scale.md: a cold header read cost 540–1,000 µs
 * of CPU against 184 µs warm; monerod 184 against 169). Right after the RPC server listens, the
 * warm-up sends it the reads wallets and explorers make (headers, blocks, txs, outputs,
 * get_blocks.bin near the top, get_info, the pool ids, the fee estimate, the output distribution)
 * over loopback, one at a
 * time, at heights and output indices drawn at random among the last WARMUP_WINDOW blocks and their
 * outputs, so the HTTP parser, the dispatch, the handlers, their encoders and the store's read paths
 * are optimized before clients need them. The window keeps it to the code: drawn from the whole
 * chain, its 9,000 reads left pages all over the store mapped (a third of the daemon's RSS after
 * a restart on the 100,000-block chain) and the first clients' reads warmer than cold.
 *
 * What it leaves behind: nothing it read. When it ends, every read cache of the node and the RPC
 * server's kept answers are emptied, so a client's first reads still miss and are computed (the
 * caches' hit/miss counters keep the warm-up's lookups). Clients are served while it runs: each
 * waits for at most the one warm-up request in progress.
 *
 * What it does not do: warm a restricted RPC server's own port (the same code serves both), run
 * on a short chain (`minHeight`), where there is little to read and the process is usually a
 * test's or a new devnet's, or run with a bootstrap daemon (--bootstrap-daemon-address): while
 * the node is behind, its reads would be forwarded to that daemon.
 */
import { NodeClient } from "../../client/node-client.js";
import { hexToBytes } from "../../base/bytes.js";
import type { GetOutputsOut } from "../../protocol/rpc-bin.js";
import type { SslOptions } from "../../rpc/tls.js";

export interface WarmupOptions {
  /** The RPC server to warm, e.g. "http://127.0.0.1:18081". */
  url: string;
  /** --rpc-login, when the server asks for it. */
  login?: string;
  /**
   * What the server speaks: TLS (wallets' default), plain HTTP (curl, explorers, pools), or both on
   * one port (--rpc-ssl autodetect, the default). With both, the rounds alternate between a TLS
   * client and a plain one: the request path's functions are then optimized for both kinds of
   * socket, where a warm-up over TLS alone left them to be deoptimized and optimized again by the
   * first plain clients.
   */
  tls: boolean;
  plain: boolean;
  /** Rounds of about ten requests each. */
  rounds: number;
  /** Blocks in the chain, and RingCT outputs, when the warm-up starts. */
  height: number;
  rctOutputs: bigint;
  /**
   * The reads' window: heights from `fromHeight`, RingCT outputs from `fromOutput` (those of the
   * blocks from there). The code a read runs is the same at any height; reads spread over the whole
   * store mapped pages all over it (RSS) and warmed its B-tree for the first clients' cold reads.
   */
  fromHeight: number;
  fromOutput: number;
  /** Stops the warm-up between two requests (the daemon is stopping). */
  signal: AbortSignal;
  /** Called when the warm-up ends, however it ends: empties what it filled. */
  forget(): void;
}

export interface WarmupReport {
  requests: number;
  /** Of those, answered over TLS. */
  tlsRequests: number;
  ms: number;
  /** Why it stopped early, when it did. */
  stopped?: string;
}

/** A TLS client that accepts the daemon's own (usually self-signed) certificate. */
const SELF_TLS: SslOptions = { support: "enabled", verification: "none", fingerprints: [], caPath: "", privateKeyPath: "", certificatePath: "" };

const randomBelow = (n: number): number => Math.floor(Math.random() * n);

/** The last blocks the warm-up reads (headers, blocks, txs, outputs) on a longer chain. */
export const WARMUP_WINDOW = 2000;

/** Blocks per warm-up distribution request. */
const DISTRIBUTION_SPAN = 6000;

/** Sends `rounds` rounds of reads to the daemon's own RPC server. Never throws: a failure ends it early, reported. */
export async function warmUpRpc(o: WarmupOptions): Promise<WarmupReport> {
  const make = (tls: boolean): NodeClient => new NodeClient({ url: o.url, ...(o.login ? { login: o.login } : {}), retries: 0, ...(tls ? { ssl: SELF_TLS } : {}) });
  const clients = [...(o.tls ? [make(true)] : []), ...(o.plain || !o.tls ? [make(false)] : [])];
  const call = { signal: o.signal };
  const t0 = performance.now();
  let requests = 0;
  let tlsRequests = 0;
  let overTls = o.tls;
  /** Each request through here is counted once it is answered. */
  const ask = async <T>(answer: Promise<T>): Promise<T> => {
    const v = await answer;
    requests++;
    if (overTls) tlsRequests++;
    return v;
  };
  const outs = Number(o.rctOutputs);
  const firstOut = o.fromOutput < outs ? o.fromOutput : 0;
  const anOutput = (): bigint => BigInt(firstOut + randomBelow(outs - firstOut));
  const firstHeight = o.fromHeight < o.height ? o.fromHeight : 0;
  const someOutputs = (n: number): GetOutputsOut[] => Array.from({ length: n }, () => ({ amount: 0n, index: anOutput() }));
  try {
    const genesis = hexToBytes((await ask(clients[0].getBlockHeaderByHeight(0, false, call))).block_header.hash);
    for (let r = 0; r < o.rounds && !o.signal.aborted; r++) {
      const client = clients[r % clients.length];
      overTls = o.tls && r % clients.length === 0;
      const h = firstHeight + randomBelow(o.height - firstHeight);
      await ask(client.getBlockHeaderByHeight(h, false, call));
      const block = (await ask(client.jsonRpc("get_block", { height: BigInt(h) }, call))) as { tx_hashes?: string[]; miner_tx_hash?: string };
      const txid = block.tx_hashes?.[0] ?? block.miner_tx_hash;
      if (txid !== undefined) await ask(client.getTransactions([txid], { decodeAsJson: r % 4 === 0 }, call));
      if (outs > 0) {
        await ask(client.json("/get_outs", { outputs: [{ amount: 0n, index: anOutput() }], get_txid: true }, call));
        await ask(client.getOutsBin(someOutputs(10), true, call));
      }
      // a synced wallet's refresh: get_blocks.bin from a block just below the top
      const near = Math.max(0, o.height - 1 - randomBelow(4));
      const nearId = hexToBytes((await ask(client.getBlockHeaderByHeight(near, false, call))).block_header.hash);
      await ask(client.getBlocksBin({ block_ids: near === 0 ? [genesis] : [nearId, genesis], prune: true }, call));
      await ask(client.jsonRpc("get_info", undefined, call));
      if (r % 4 === 0) {
        await ask(client.getTransactionPoolHashesBin(call));
        await ask(client.getFeeEstimate(0n, call));
        await ask(client.getLastBlockHeader(false, call));
        await ask(client.json("/get_height", undefined, call));
      }
      if (r % 10 === 0) {
        // decoy selection's distribution, JSON and .bin (wallet2), over 6,000 blocks from anywhere in
        // the chain: the same code as the whole chain's, without mainnet's millions of entries per
        // call. A start of its own each time: get_output_distribution keeps its entries for the tip,
        // and the same arguments again would be a kept answer, leaving the code that computes one
        // unwarmed. 6,000 counts of every size make a text of more than one part (EpeeParts), as a
        // whole chain's does: with the last 2,000 blocks only, a first whole-chain call after the
        // warm-up still ran unoptimized code (14-23 ms inside tsmonerod on the 100,000-block chain
        // against 1.4-2.8 ms for the same answer kept)
        const from = o.height > DISTRIBUTION_SPAN ? randomBelow(o.height - DISTRIBUTION_SPAN + 1) : 0;
        const to = o.height > DISTRIBUTION_SPAN ? BigInt(from + DISTRIBUTION_SPAN - 1) : 0n;
        await ask(client.getOutputDistribution({ amounts: [0n], from_height: BigInt(from), to_height: to, cumulative: true }, call));
        await ask(client.getOutputDistributionBin({ amounts: [0n], from_height: BigInt(from), to_height: to, cumulative: true, compress: r % 20 === 0 }, call));
      }
    }
    return { requests, tlsRequests, ms: performance.now() - t0, ...(o.signal.aborted ? { stopped: "the daemon is stopping" } : {}) };
  } catch (e) {
    const why = o.signal.aborted ? "the daemon is stopping" : e instanceof Error ? e.message : String(e);
    return { requests, tlsRequests, ms: performance.now() - t0, stopped: why };
  } finally {
    for (const c of clients) c.close();
    o.forget();
  }
}
