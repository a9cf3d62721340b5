/**
 * The NodeCore mining methods in one place, for node/chain to delegate to: seedFor, powHash,
 * blockTemplate (get_block_template, on the tip or on any known block), generateBlocks (monerod's
 * on_generateblocks) and the built-in miner (start/stop/status).
 *
 * The host gives read access to the chain and the pool and a way to submit blocks; nothing here
 * writes the chain itself.
 */
import { availableParallelism } from "node:os";
import { type ChainView, nextBlockContext, type NextBlockContext } from "../../consensus/index.js";
import type { CryptoBackend } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { blockHash, parseBlock } from "../../protocol/block.js";
import type { Network } from "../../protocol/network.js";
import type { Bytes } from "../../protocol/tx.js";
import type { BlockSubmitResult, MinerStatus } from "../core.js";
import { MiningError } from "./errors.js";
import { Miner, type MinerOptions, type MiningStatusReport } from "./miner.js";
import { mineBlock, PowHasher } from "./pow.js";
import { type BlockIdAt, seedFor, templateSeeds } from "./seed.js";
import { yieldToLoop } from "../slice.js";
import {
  altTemplateMedian,
  buildBlockTemplate,
  type BuiltTemplate,
  minerAddress,
  type TemplateCandidate,
  templateExtraNonce,
} from "./template.js";

/** A chain view for a template on another block: node/chain's BranchView names its blocks with hashAt (else the main chain's ids are used). */
export type BranchChainView = ChainView & { hashAt?(height: number): Bytes };

/** What the mining service needs from the node core. */
export interface MiningHost {
  readonly network: Network;
  /** The main chain (the ChainStore). */
  readonly store: ChainView & { meta(height: number): { hash: Bytes }; heightOf(id: Bytes): number | undefined };
  /** --fixed-difficulty (regtest). */
  readonly fixedDifficulty: bigint | undefined;
  /** The chain as a block on top of `prevId` sees it (the store for the tip), undefined for unknown ids. */
  viewAt(prevId: Bytes): BranchChainView | undefined;
  /**
   * Pool txs ready for a block, in the pool's template order (fee per weight first); with `prevId`
   * (a template on another block) only those the host can place on that branch.
   */
  candidates(prevId?: Bytes): readonly TemplateCandidate[];
  submitBlock(blob: Bytes): Promise<BlockSubmitResult>;
  /** Unix seconds. */
  now(): number;
  /** The next main-chain block's context (NodeCore.mainContext, cached per tip); default: computed. */
  mainContext?(): NextBlockContext;
}

export interface MiningServiceOptions {
  backend?: CryptoBackend;
  hasher?: PowHasher;
  miner?: MinerOptions;
  /** generateblocks hashes nonces even at difficulty 1, as monerod (NodeOptions.hashTrivialPow). */
  hashTrivial?: boolean;
}

export class MiningService {
  readonly hasher: PowHasher;
  readonly miner: Miner;
  private readonly backend: CryptoBackend;
  private readonly ownsHasher: boolean;
  private readonly hashTrivial: boolean;

  constructor(
    private readonly host: MiningHost,
    opts: MiningServiceOptions = {},
  ) {
    this.backend = opts.backend ?? defaultBackend();
    this.ownsHasher = opts.hasher === undefined;
    this.hashTrivial = opts.hashTrivial ?? false;
    this.hasher = opts.hasher ?? new PowHasher();
    this.miner = new Miner(
      {
        checkAddress: (a) => void minerAddress(a, host.network, this.backend),
        template: (a) => this.blockTemplate(a, 0),
        powHash: (hb, t) => this.hasher.hash(t.block.majorVersion, t.height, hb, t.seedHash),
        submit: async (blob) => (await host.submitBlock(blob)).status === "added",
      },
      opts.miner,
    );
  }

  private mainIdAt: BlockIdAt = (h) => this.host.store.meta(h).hash;

  /** NodeCore.seedFor: the seed block of a main-chain block at `height`. */
  seedFor(height: number): { height: number; hash: Bytes } {
    return seedFor(height, this.mainIdAt);
  }

  /** NodeCore.powHash: the PoW hash of a hashing blob at `height` (main chain's version and seed by default). */
  powHash(hashingBlob: Bytes, height: number, seedHash?: Bytes): Promise<Bytes> {
    const major = this.host.store.hardForkVersion(height);
    return this.hasher.hash(major, height, hashingBlob, seedHash ?? this.seedFor(height).hash);
  }

  /**
   * get_block_template: on the tip, or on `prevId` (monerod's from_block: the parent's weight as the
   * median, its coins, the branch's seed). Throws MiningError (its kind says what failed).
   */
  async blockTemplate(address: string, reserveSize: number, opts: { prevId?: Bytes; extraNonce?: Bytes } = {}): Promise<BuiltTemplate> {
    const extraNonce = templateExtraNonce(reserveSize, opts.extraNonce);
    const miner = minerAddress(address, this.host.network, this.backend);
    const store = this.host.store;
    // any prev_block, even the tip, takes monerod's from_block path (the parent's weight as median)
    const onTip = opts.prevId === undefined;
    const prevId = opts.prevId ?? store.topHash();
    const view = onTip ? undefined : this.host.viewAt(prevId);
    if (!onTip && !view) throw new MiningError("internal", "Internal error: failed to create block template: prev_block is not a known block");
    const fixed = this.host.fixedDifficulty === undefined ? {} : { fixedDifficulty: this.host.fixedDifficulty };
    const ctx = onTip ? (this.host.mainContext?.() ?? nextBlockContext(store, fixed)) : nextBlockContext(view as ChainView, fixed);
    const idAt: BlockIdAt = typeof view?.hashAt === "function" ? (h) => (view.hashAt as (h: number) => Bytes).call(view, h) : this.mainIdAt;
    const seeds = templateSeeds(ctx.height, idAt, this.mainIdAt);
    const mainTimestamps = onTip ? ctx.recentTimestamps : store.timestamps(Math.max(0, store.height() - 60), Math.min(60, store.height()));
    let alt: { medianWeight: number; alreadyGeneratedCoins: bigint } | undefined;
    if (view) {
      const parentInMain = store.heightOf(prevId) !== undefined;
      const parentWeight = view.blockWeights(ctx.height - 1, 1)[0];
      alt = { medianWeight: altTemplateMedian(parentWeight, parentInMain), alreadyGeneratedCoins: view.alreadyGeneratedCoins() };
    }
    return buildBlockTemplate({
      ctx,
      prevId,
      candidates: this.host.candidates(onTip ? undefined : prevId),
      miner,
      extraNonce,
      now: BigInt(this.host.now()),
      seeds,
      recentTimestamps: mainTimestamps,
      ...(alt ?? {}),
      backend: this.backend,
    });
  }

  /**
   * generateblocks (regtest): templates with reserve_size 1, each on the previous generated block
   * from the second on, `startingNonce` then a nonce search (nothing hashed at difficulty 1), then
   * submit. Like monerod's handle_block_found, a block kept as an alternative (or already known)
   * counts; only a rejected one fails, with -7 "Block not accepted". `height` is the last generated
   * block's height, as monerod answers.
   */
  async generateBlocks(count: number, address: string, opts: { prevId?: Bytes; startingNonce?: number } = {}): Promise<{ blocks: Bytes[]; height: number }> {
    if (this.host.network !== "regtest") throw new MiningError("regtest-required", "Regtest required when generating blocks");
    const blocks: Bytes[] = [];
    let height = this.host.store.height();
    let prevId = opts.prevId;
    for (let i = 0; i < count; i++) {
      // let other clients in between blocks (a 200-block run held every request for seconds)
      if (i > 0) await yieldToLoop();
      const t = await this.blockTemplate(address, 1, prevId ? { prevId } : {});
      // monerod hashes with all its threads above difficulty 100; we do from difficulty 2 on (the
      // p2p functional test's 500 blocks at difficulty 10 took minutes one hash at a time): the
      // nonce found is the same, the lowest from the start
      const concurrency = t.difficulty > 1n ? availableParallelism() : 1;
      const pow = (hb: Bytes): Promise<Bytes> => this.hasher.hash(t.block.majorVersion, t.height, hb, t.seedHash);
      const found = await mineBlock(t, t.difficulty, pow, opts.startingNonce ?? 0, { concurrency, hashTrivial: this.hashTrivial });
      if (!found) throw new MiningError("block-not-accepted", "Block not accepted: no nonce meets the difficulty");
      const r = await this.host.submitBlock(found.blob);
      if (r.status === "error") throw new MiningError("internal", `Internal error: ${r.message ?? "the block could not be verified"}`);
      if (r.status === "rejected") throw new MiningError("block-not-accepted", `Block not accepted${r.message ? `: ${r.message}` : ""}`);
      const id = r.id ?? blockHash(parseBlock(found.blob), this.backend);
      blocks.push(id);
      prevId = id;
      height = t.height;
    }
    return { blocks, height };
  }

  /** start_mining (throws synchronously with monerod's reasons; the first template arrives async). */
  startMining(address: string, threads: number, opts: { background?: boolean; ignoreBattery?: boolean } = {}): Promise<void> {
    return this.miner.start(address, threads, opts);
  }

  stopMining(): Promise<void> {
    return this.miner.stop();
  }

  minerStatus(): MinerStatus {
    return this.miner.status();
  }

  /** /mining_status with the main chain's current version and next difficulty. */
  miningStatus(): MiningStatusReport {
    const store = this.host.store;
    const ctx = this.host.mainContext?.() ?? nextBlockContext(store, this.host.fixedDifficulty === undefined ? {} : { fixedDifficulty: this.host.fixedDifficulty });
    return this.miner.report(store.hardForkVersion(Math.max(0, store.height() - 1)), ctx.difficulty);
  }

  /** Call on every new main-chain block (NodeCore's "block" event). */
  onNewBlock(): void {
    void this.miner.onNewBlock();
  }

  async close(): Promise<void> {
    await this.miner.stop();
    if (this.ownsHasher) await this.hasher.close();
  }
}
