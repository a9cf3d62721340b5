/**
 * Alternative blocks (monerod's alt_blocks table and its ChainView over a branch): each block is
 * stored with what consensus computed for it on its branch, and with its txs, so a switch to the
 * branch needs nothing from the pool.
 */
import type { Database } from "lmdb";
import type { ChainOutput, ChainView } from "../../consensus/index.js";
import type { Bytes } from "../../protocol/tx.js";
import type { BlockMeta, ChainStore } from "../store/chain-store.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";

export interface AltBlock extends BlockMeta {
  prevId: Bytes;
  blob: Bytes;
  /** Full blobs of the block's non-coinbase txs, in tx_hashes order. */
  txBlobs: Bytes[];
}

interface AltJson {
  height: number;
  hash: string;
  prevId: string;
  timestamp: string;
  difficulty: string;
  cumulativeDifficulty: string;
  weight: number;
  longTermWeight: number;
  alreadyGeneratedCoins: string;
  reward: string;
  txCount: number;
  blob: string;
  txBlobs: string[];
}

export function encodeAlt(a: AltBlock): Buffer {
  const j: AltJson = {
    height: a.height,
    hash: hex(a.hash),
    prevId: hex(a.prevId),
    timestamp: a.timestamp.toString(),
    difficulty: a.difficulty.toString(),
    cumulativeDifficulty: a.cumulativeDifficulty.toString(),
    weight: a.weight,
    longTermWeight: a.longTermWeight,
    alreadyGeneratedCoins: a.alreadyGeneratedCoins.toString(),
    reward: a.reward.toString(),
    txCount: a.txCount,
    blob: hex(a.blob),
    txBlobs: a.txBlobs.map(hex),
  };
  return Buffer.from(JSON.stringify(j), "utf8");
}

export function decodeAlt(b: Buffer): AltBlock {
  const j = JSON.parse(b.toString("utf8")) as AltJson;
  return {
    height: j.height,
    hash: unhex(j.hash),
    prevId: unhex(j.prevId),
    timestamp: BigInt(j.timestamp),
    difficulty: BigInt(j.difficulty),
    cumulativeDifficulty: BigInt(j.cumulativeDifficulty),
    weight: j.weight,
    longTermWeight: j.longTermWeight,
    alreadyGeneratedCoins: BigInt(j.alreadyGeneratedCoins),
    reward: BigInt(j.reward),
    txCount: j.txCount,
    blob: unhex(j.blob),
    txBlobs: j.txBlobs.map(unhex),
  };
}

/** The alt_blocks database: block id → AltBlock. */
export class AltStore {
  constructor(private readonly db: Database<Buffer, Buffer>) {}
  get(id: Bytes): AltBlock | undefined {
    const b = this.db.get(Buffer.from(id));
    return b === undefined ? undefined : decodeAlt(b);
  }
  has(id: Bytes): boolean {
    return this.db.get(Buffer.from(id)) !== undefined;
  }
  put(a: AltBlock): void {
    this.db.putSync(Buffer.from(a.hash), encodeAlt(a));
  }
  remove(id: Bytes): void {
    this.db.removeSync(Buffer.from(id));
  }
  all(): AltBlock[] {
    const out: AltBlock[] = [];
    for (const { value } of this.db.getRange({})) out.push(decodeAlt(value));
    return out;
  }
  count(): number {
    return this.db.getKeysCount();
  }
  /**
   * The branch ending at `tip` (an alt block id or the id of a block that is about to be added on
   * top of one): alt blocks from just above the main chain up to it, and the main-chain height
   * it forks from. Undefined when the chain of parents leaves both the alt blocks and the main chain.
   */
  branchTo(store: ChainStore, parentId: Bytes): { forkHeight: number; blocks: AltBlock[] } | undefined {
    const blocks: AltBlock[] = [];
    let cur = parentId;
    for (;;) {
      const h = store.heightOf(cur);
      if (h !== undefined) return { forkHeight: h, blocks: blocks.reverse() };
      const a = this.get(cur);
      if (!a) return undefined;
      blocks.push(a);
      cur = a.prevId;
    }
  }
}

/**
 * The chain as it is on a branch: the main chain up to `forkHeight`, then the branch's blocks.
 * Outputs and key images are the main chain's (alt blocks' txs are checked against the chain only
 * when the node switches to the branch and applies them one by one).
 */
export class BranchView implements ChainView {
  constructor(
    private readonly store: ChainStore,
    private readonly forkHeight: number,
    private readonly branch: readonly BlockMeta[],
  ) {}
  height(): number {
    return this.forkHeight + 1 + this.branch.length;
  }
  topHash(): Bytes {
    return this.branch.length > 0 ? this.branch[this.branch.length - 1].hash : this.store.meta(this.forkHeight).hash;
  }
  hardForkVersion(height: number): number {
    return this.store.hardForkVersion(height);
  }
  private metas(start: number, count: number): BlockMeta[] {
    if (start < 0 || count < 0 || start + count > this.height()) throw new RangeError(`blocks [${start}, ${start + count}) beyond height ${this.height()}`);
    const out: BlockMeta[] = [];
    for (let h = start; h < start + count; h++) out.push(h <= this.forkHeight ? this.store.meta(h) : this.branch[h - this.forkHeight - 1]);
    return out;
  }
  timestamps(start: number, count: number): bigint[] {
    return this.metas(start, count).map((m) => m.timestamp);
  }
  cumulativeDifficulties(start: number, count: number): bigint[] {
    return this.metas(start, count).map((m) => m.cumulativeDifficulty);
  }
  blockWeights(start: number, count: number): number[] {
    return this.metas(start, count).map((m) => m.weight);
  }
  longTermBlockWeights(start: number, count: number): number[] {
    return this.metas(start, count).map((m) => m.longTermWeight);
  }
  alreadyGeneratedCoins(): bigint {
    return this.metas(this.height() - 1, 1)[0].alreadyGeneratedCoins;
  }
  isKeyImageSpent(keyImage: Bytes): boolean {
    return this.store.isKeyImageSpent(keyImage);
  }
  output(amount: bigint, index: bigint): ChainOutput | undefined {
    return this.store.output(amount, index);
  }
  /** Id of the block at `height` on this branch. */
  hashAt(height: number): Bytes {
    return this.metas(height, 1)[0].hash;
  }
}
