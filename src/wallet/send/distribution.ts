/**
 * The RingCT output distribution (cumulative output count per block) that decoy selection draws
 * on, fetched from /get_output_distribution.bin as wallet2::get_rct_distribution asks for it
 * (amount 0, per-block counts, binary, compressed) and kept between transfers: after the first
 * download only the last blocks are asked for again.
 *
 * Refresh: ask from `OVERLAP` blocks below the cached top; the node answers `base` (outputs
 * before from_height) and per-block counts. The cache is extended when `base` and every count of
 * the overlapping blocks agree with what it holds; otherwise (a reorg deeper than the overlap
 * that changed counts, a node switch, a shorter chain) it downloads the whole distribution again.
 * A reorg that leaves every count as it was cannot change a pick: the picker sees only counts.
 */
import { type NodeApi, NodeStatusError } from "../../client/node-client.js";

/** Blocks asked for again below the cached top on each refresh. */
export const DISTRIBUTION_OVERLAP = 16;

export interface RctDistribution {
  /** Height of the block `offsets[0]` counts (0 on regtest; the v4 fork height on mainnet). */
  readonly startHeight: number;
  /** offsets[k]: RingCT outputs in blocks up to and including startHeight + k (wallet2's rct_offsets). */
  readonly offsets: readonly number[];
}

export interface DistributionCacheStats {
  /** Whole-distribution downloads. */
  full: number;
  /** Incremental refreshes that extended the cache. */
  incremental: number;
  /** Block counts received in all answers together. */
  blocksReceived: number;
}

export class DistributionFetchError extends Error {
  override readonly name = "DistributionFetchError";
}

function toSafe(v: bigint, what: string): number {
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) throw new DistributionFetchError(`${what} out of range: ${v}`);
  return Number(v);
}

export class DistributionCache {
  private startHeight = 0;
  private offsets: number[] = [];
  /** The refresh under way: concurrent transfers share it instead of racing on the arrays. */
  private inflight: Promise<RctDistribution> | null = null;
  readonly stats: DistributionCacheStats = { full: 0, incremental: 0, blocksReceived: 0 };

  /** What the cache holds now (empty before the first refresh). */
  get current(): RctDistribution {
    return { startHeight: this.startHeight, offsets: this.offsets };
  }

  /** Forget everything (e.g. after switching nodes). */
  clear(): void {
    this.offsets = [];
    this.startHeight = 0;
  }

  /**
   * Brings the cache to the node's tip and returns it (arrays are replaced, never changed in place,
   * so a returned distribution stays valid). Node failures propagate as thrown by the client.
   */
  refresh(node: NodeApi): Promise<RctDistribution> {
    this.inflight ??= this.update(node).finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async update(node: NodeApi): Promise<RctDistribution> {
    if (this.offsets.length > 0) {
      const from = Math.max(this.startHeight, this.startHeight + this.offsets.length - DISTRIBUTION_OVERLAP);
      if (await this.extend(node, from)) return this.current;
    }
    await this.download(node);
    return this.current;
  }

  private async ask(node: NodeApi, fromHeight: number): Promise<{ startHeight: number; base: number; counts: bigint[] }> {
    const res = await node.getOutputDistributionBin({
      amounts: [0n],
      from_height: BigInt(fromHeight),
      to_height: 0n,
      cumulative: false,
      binary: true,
      compress: true,
    });
    // wallet2::get_rct_distribution: exactly one distribution, for amount 0
    if (res.distributions.length !== 1) throw new DistributionFetchError(`the node answered ${res.distributions.length} distributions for one amount`);
    const d = res.distributions[0];
    if (d.amount !== 0n) throw new DistributionFetchError(`the node answered the distribution of amount ${d.amount}, not 0`);
    this.stats.blocksReceived += d.distribution.length;
    return { startHeight: toSafe(d.start_height, "start_height"), base: toSafe(d.base, "base"), counts: d.distribution };
  }

  // wallet2::get_rct_distribution: from height 0, per-block counts summed up locally; `base` ignored
  private async download(node: NodeApi): Promise<void> {
    const { startHeight, counts } = await this.ask(node, 0);
    const offsets = new Array<number>(counts.length);
    let sum = 0n;
    for (let k = 0; k < counts.length; k++) {
      sum += counts[k];
      offsets[k] = toSafe(sum, "cumulative output count");
    }
    this.startHeight = startHeight;
    this.offsets = offsets;
    this.stats.full++;
  }

  /** True when the answer from `from` continues what the cache holds. */
  private async extend(node: NodeApi, from: number): Promise<boolean> {
    let ans: { startHeight: number; base: number; counts: bigint[] };
    try {
      ans = await this.ask(node, from);
    } catch (e) {
      // a node whose chain is now below `from` refuses the range: download everything instead
      if (e instanceof DistributionFetchError || (e instanceof NodeStatusError && e.status !== "BUSY")) return false;
      throw e;
    }
    if (ans.startHeight !== from || ans.counts.length === 0) return false;
    const k0 = from - this.startHeight;
    const expectedBase = k0 === 0 ? 0 : this.offsets[k0 - 1];
    if (k0 > 0 && ans.base !== expectedBase) return false;
    const fresh: number[] = [];
    let sum = k0 === 0 ? 0 : expectedBase;
    for (let k = 0; k < ans.counts.length; k++) {
      sum += toSafe(ans.counts[k], "output count");
      if (!Number.isSafeInteger(sum)) return false;
      fresh.push(sum);
      const held = this.offsets[k0 + k];
      if (held !== undefined && held !== sum) return false;
    }
    this.offsets = this.offsets.slice(0, k0).concat(fresh);
    this.stats.incremental++;
    return true;
  }
}
