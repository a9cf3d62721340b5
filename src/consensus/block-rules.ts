/**
 * Block rules as pure checks, in the order Blockchain::handle_block_to_main_chain applies them
 * (blockchain.cpp): previous id, hard-fork version and vote, timestamp, proof of work, coinbase
 * shape (prevalidate_miner_transaction), transactions, weight limit and reward
 * (validate_miner_transaction). Also computes what the store records for an accepted block.
 */
import { type CryptoBackend, defaultBackend } from "../crypto/index.js";
import type { Block } from "../protocol/block.js";
import { RCT_TYPE } from "../protocol/rct.js";
import type { Bytes, Transaction } from "../protocol/tx.js";
import type { ChainView } from "./chain-view.js";
import {
  BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW,
  CRYPTONOTE_BLOCK_FUTURE_TIME_LIMIT,
  CRYPTONOTE_LONG_TERM_BLOCK_WEIGHT_WINDOW_SIZE,
  CRYPTONOTE_MAX_TX_PER_BLOCK,
  CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW,
  CRYPTONOTE_REWARD_BLOCKS_WINDOW,
  HF_VERSION_EFFECTIVE_SHORT_TERM_MEDIAN_IN_PENALTY,
  HF_VERSION_EXACT_COINBASE,
  HF_VERSION_MIN_V2_COINBASE_TX,
  HF_VERSION_PER_BYTE_FEE,
  HF_VERSION_REJECT_SIGS_IN_COINBASE,
  median,
} from "./constants.js";
import { checkHash, difficultyTarget, difficultyWindow, nextDifficulty } from "./difficulty.js";
import { blockError, type BlockRuleError, txError, type TxRuleError } from "./errors.js";
import { blockReward, nextAlreadyGeneratedCoins } from "./reward.js";
import { checkOutputTypes, medianBigint, txWeightLimit } from "./tx-rules.js";
import { type LongTermWeights, nextLongTermBlockWeight, type WeightLimits, weightLimits } from "./weight.js";

const MAX_U64 = (1n << 64n) - 1n;

/** get_block_vote (hardfork.cpp): minor version 0 votes for version 1. */
export function blockVote(b: Pick<Block, "minorVersion">): number {
  return b.minorVersion === 0 ? 1 : b.minorVersion;
}

/** HardFork::check: major version equals the fork's version and the vote is at least that. */
export function checkBlockVersion(b: Pick<Block, "majorVersion" | "minorVersion">, hfVersion: number): BlockRuleError | undefined {
  if (b.majorVersion !== hfVersion) return blockError("BAD_MAJOR_VERSION", `major ${b.majorVersion}, expected ${hfVersion}`);
  if (blockVote(b) < hfVersion) return blockError("BAD_VOTE", `vote ${blockVote(b)} < ${hfVersion}`);
  return undefined;
}

/**
 * check_block_timestamp: not more than 2 h past `now`, and (once the chain has 60 blocks) not below
 * the median of the last 60 timestamps. `recent` are those timestamps, oldest first.
 */
export function checkBlockTimestamp(timestamp: bigint, recent: readonly bigint[], now: bigint): BlockRuleError | undefined {
  if (timestamp > now + BigInt(CRYPTONOTE_BLOCK_FUTURE_TIME_LIMIT)) {
    return blockError("TIMESTAMP_IN_FUTURE", `${timestamp} > ${now} + ${CRYPTONOTE_BLOCK_FUTURE_TIME_LIMIT}`);
  }
  if (recent.length < BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW) return undefined;
  const med = medianBigint(recent.slice(recent.length - BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW));
  if (timestamp < med) return blockError("TIMESTAMP_TOO_OLD", `${timestamp} < median ${med}`);
  return undefined;
}

/** BLOCK_SIZE_SANITY_LEEWAY (cryptonote_core.cpp). */
export const BLOCK_SIZE_SANITY_LEEWAY = 100;

/**
 * core::check_incoming_block_size: a block blob longer than the weight limit + 100 is rejected
 * before parsing (its weight is at least its blob size).
 */
export function checkIncomingBlockSize(blobSize: number, weightLimit: number): BlockRuleError | undefined {
  if (blobSize > weightLimit + BLOCK_SIZE_SANITY_LEEWAY) return blockError("TOO_HEAVY", `blob of ${blobSize} bytes, limit ${weightLimit} + ${BLOCK_SIZE_SANITY_LEEWAY}`);
  return undefined;
}

/** prevalidate_miner_transaction plus the output-key check, for a coinbase at `height` under `hfVersion`. */
export function checkMinerTxShape(minerTx: Transaction, height: number, hfVersion: number, backend: CryptoBackend = defaultBackend()): BlockRuleError | undefined {
  if (minerTx.vin.length !== 1) return blockError("MINER_TX_INPUTS", `${minerTx.vin.length} inputs`);
  const gen = minerTx.vin[0];
  if (gen.type !== "gen") return blockError("MINER_TX_INPUTS", `input is ${gen.type}`);
  if (minerTx.version <= 1 && hfVersion >= HF_VERSION_MIN_V2_COINBASE_TX) return blockError("MINER_TX_VERSION", `version ${minerTx.version}`);
  if (hfVersion >= HF_VERSION_REJECT_SIGS_IN_COINBASE && minerTx.version >= 2 && (minerTx.rct?.type ?? RCT_TYPE.Null) !== RCT_TYPE.Null) {
    return blockError("MINER_TX_RCT", `RingCT type ${minerTx.rct?.type}`);
  }
  if (gen.height !== BigInt(height)) return blockError("MINER_TX_HEIGHT", `gen height ${gen.height}, block height ${height}`);
  const unlock = BigInt(height + CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW);
  if (minerTx.unlockTime !== unlock) return blockError("MINER_TX_UNLOCK_TIME", `${minerTx.unlockTime}, expected ${unlock}`);
  let sum = 0n;
  for (const o of minerTx.vout) sum += o.amount;
  if (sum > MAX_U64) return blockError("MINER_TX_OVERFLOW");
  const bad = checkOutputTypes(minerTx.vout, hfVersion);
  if (bad !== undefined) return blockError("MINER_TX_OUTPUT_TYPE", `output ${bad} is ${minerTx.vout[bad].target.type}`);
  // core::handle_incoming_block → check_tx_semantic is not run on the coinbase, but its outputs
  // must be valid points for the outputs to be usable (check_outs_valid via the block's txs)
  for (let i = 0; i < minerTx.vout.length; i++) {
    const t = minerTx.vout[i].target;
    if ((t.type === "key" || t.type === "tagged_key") && !backend.pointCheck(t.key)) return blockError("MINER_TX_OUTPUT_KEY", `output ${i}`);
  }
  return undefined;
}

/** The sum of a transaction's fee (RingCT txnFee, or inputs − outputs for v1). */
export function txFee(tx: Transaction): bigint {
  if (tx.version >= 2) return tx.rct?.fee ?? 0n;
  let i = 0n;
  let o = 0n;
  for (const x of tx.vin) if (x.type === "key") i += x.amount;
  for (const x of tx.vout) o += x.amount;
  return i - o;
}

/**
 * validate_miner_transaction: the coinbase claims at most (from HF 13: exactly) reward + fees, and
 * the block is not heavier than twice the median. Returns the coins the block generated.
 */
export function checkMinerReward(
  minerTx: Transaction,
  cumulativeWeight: number,
  fees: bigint,
  medianWeight: number,
  alreadyGeneratedCoins: bigint,
  hfVersion: number,
): { ok: true; baseReward: bigint; generated: bigint } | { ok: false; error: BlockRuleError } {
  let moneyInUse = 0n;
  for (const o of minerTx.vout) moneyInUse += o.amount;
  const baseReward = blockReward(medianWeight, cumulativeWeight, alreadyGeneratedCoins, hfVersion);
  if (baseReward === undefined) return { ok: false, error: blockError("TOO_HEAVY", `weight ${cumulativeWeight}, median ${medianWeight}`) };
  if (baseReward + fees < moneyInUse) {
    return { ok: false, error: blockError("REWARD_TOO_HIGH", `claims ${moneyInUse}, reward ${baseReward} + fees ${fees}`) };
  }
  if (hfVersion < 2 || hfVersion >= HF_VERSION_EXACT_COINBASE) {
    if (baseReward + fees !== moneyInUse) {
      return { ok: false, error: blockError("REWARD_NOT_EXACT", `claims ${moneyInUse}, reward ${baseReward} + fees ${fees}`) };
    }
    return { ok: true, baseReward, generated: baseReward };
  }
  // HF 2–12: a miner may claim less; what it leaves is emitted later
  return { ok: true, baseReward, generated: moneyInUse - fees };
}

/** What the chain state gives the next block: difficulty, weight limits, median timestamps. */
export interface NextBlockContext {
  height: number;
  hfVersion: number;
  difficulty: bigint;
  cumulativeDifficulty: bigint;
  limits: WeightLimits;
  /** The median the penalty uses (effective median from HF 12, else the plain 100-block median). */
  penaltyMedian: number;
  recentTimestamps: bigint[];
  alreadyGeneratedCoins: bigint;
  /** The long-term weight window (100000; tests of Monero's scaling use smaller ones). */
  longTermWindow: number;
}

/** The long-term weights of [start, start + count), or their median when the view keeps it. */
function longTermWeightsOf(view: ChainView, start: number, count: number): LongTermWeights {
  return view.longTermWeightMedian ? { median: view.longTermWeightMedian(start, count) } : view.longTermBlockWeights(start, count);
}

/** Reads everything the next block's checks need from the chain view. */
export function nextBlockContext(view: ChainView, opts: { fixedDifficulty?: bigint; longTermWindow?: number } = {}): NextBlockContext {
  const height = view.height();
  const hfVersion = view.hardForkVersion(height);
  let difficulty: bigint;
  if (opts.fixedDifficulty !== undefined) difficulty = opts.fixedDifficulty;
  else {
    const w = difficultyWindow(height);
    difficulty = nextDifficulty(view.timestamps(w.begin, w.end - w.begin), view.cumulativeDifficulties(w.begin, w.end - w.begin), difficultyTarget(hfVersion));
  }
  const prevCum = height > 0 ? view.cumulativeDifficulties(height - 1, 1)[0] : 0n;
  const ltWindow = opts.longTermWindow ?? CRYPTONOTE_LONG_TERM_BLOCK_WEIGHT_WINDOW_SIZE;
  const weights = view.blockWeights(Math.max(0, height - CRYPTONOTE_REWARD_BLOCKS_WINDOW), Math.min(height, CRYPTONOTE_REWARD_BLOCKS_WINDOW));
  const ltStart = Math.max(0, height - ltWindow);
  const longTerm = longTermWeightsOf(view, ltStart, height - ltStart);
  const limits = height === 0 ? weightLimits([], [], 1, ltWindow) : weightLimits(weights, longTerm, hfVersion, ltWindow);
  const penaltyMedian = hfVersion >= HF_VERSION_EFFECTIVE_SHORT_TERM_MEDIAN_IN_PENALTY ? limits.effectiveMedian : median(weights);
  const tsStart = Math.max(0, height - BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW);
  return {
    height,
    hfVersion,
    difficulty,
    cumulativeDifficulty: prevCum + difficulty,
    limits,
    penaltyMedian,
    recentTimestamps: view.timestamps(tsStart, height - tsStart),
    alreadyGeneratedCoins: height > 0 ? view.alreadyGeneratedCoins() : 0n,
    longTermWindow: ltWindow,
  };
}

export interface BlockCheckInput {
  block: Block;
  /** The block's transactions in tx_hashes order (full or pruned). */
  txs: readonly Transaction[];
  /** Their ids, in order (from protocol/tx-hash). */
  txIds: readonly Bytes[];
  /** Their weights (protocol/weight.ts). */
  txWeights: readonly number[];
  /** Weight of the coinbase transaction (its blob size: a coinbase has no Bulletproofs). */
  minerTxWeight: number;
  /** Local time, seconds. */
  now: bigint;
  /** The PoW hash (RandomX); without it PoW is not checked (the caller says so). */
  powHash?: Bytes;
  /** Per-transaction rule check (tx-rules + signatures), run in block order; undefined means valid. */
  checkTx?: (tx: Transaction, index: number) => TxRuleError | undefined;
  backend?: CryptoBackend;
}

/** What an accepted block adds to the chain state. */
export interface BlockAccepted {
  height: number;
  difficulty: bigint;
  cumulativeDifficulty: bigint;
  weight: number;
  longTermWeight: number;
  fees: bigint;
  /** Sum of the coinbase outputs (monerod's header `reward`). */
  reward: bigint;
  baseReward: bigint;
  alreadyGeneratedCoins: bigint;
}

/** All rules for a block extending the chain `view` (whose next-block context is `ctx`). */
export function checkBlock(
  view: ChainView,
  ctx: NextBlockContext,
  input: BlockCheckInput,
): { ok: true; accepted: BlockAccepted } | { ok: false; error: BlockRuleError } {
  const { block } = input;
  const fail = (error: BlockRuleError): { ok: false; error: BlockRuleError } => ({ ok: false, error });
  const backend = input.backend ?? defaultBackend();
  const height = ctx.height;
  if (height > 0) {
    const top = view.topHash();
    if (!bytesEqual(top, block.prevId)) return fail(blockError("PREV_ID_MISMATCH"));
  }
  const versionError = checkBlockVersion(block, ctx.hfVersion);
  if (versionError) return fail(versionError);
  const tsError = checkBlockTimestamp(block.timestamp, ctx.recentTimestamps, input.now);
  if (tsError) return fail(tsError);
  if (input.powHash && !checkHash(input.powHash, ctx.difficulty)) return fail(blockError("BAD_POW", `difficulty ${ctx.difficulty}`));
  const shape = checkMinerTxShape(block.minerTx, height, ctx.hfVersion, backend);
  if (shape) return fail(shape);
  if (block.txHashes.length > CRYPTONOTE_MAX_TX_PER_BLOCK) return fail(blockError("TOO_MANY_TXS"));
  const seen = new Set<string>();
  for (const h of block.txHashes) {
    const k = Buffer.from(h).toString("hex");
    if (seen.has(k)) return fail(blockError("DUPLICATE_TX", k));
    seen.add(k);
  }
  if (input.txs.length !== block.txHashes.length || input.txWeights.length !== block.txHashes.length) {
    return fail(blockError("MISSING_TX", `${input.txs.length} of ${block.txHashes.length}`));
  }
  for (let i = 0; i < block.txHashes.length; i++) {
    if (!bytesEqual(input.txIds[i], block.txHashes[i])) return fail(blockError("MISSING_TX", `tx ${i} does not match its hash`));
  }
  let fees = 0n;
  let weight = input.minerTxWeight;
  const txLimit = txWeightLimit(ctx.hfVersion);
  for (let i = 0; i < input.txs.length; i++) {
    // tx_memory_pool::add_tx applies the tx weight limit to a block's txs too from HF 8
    if (ctx.hfVersion >= HF_VERSION_PER_BYTE_FEE && input.txWeights[i] > txLimit) {
      const e = txError("TOO_BIG", `weight ${input.txWeights[i]} > ${txLimit}`);
      return fail(blockError("BAD_TX", `tx ${i}: ${e.message}`, { txIndex: i, txError: e }));
    }
    const e = input.checkTx?.(input.txs[i], i);
    if (e) return fail(blockError("BAD_TX", `tx ${i}: ${e.message}`, { txIndex: i, txError: e }));
    fees += txFee(input.txs[i]);
    weight += input.txWeights[i];
  }
  const reward = checkMinerReward(block.minerTx, weight, fees, ctx.penaltyMedian, ctx.alreadyGeneratedCoins, ctx.hfVersion);
  if (!reward.ok) return reward;
  const ltStart = Math.max(0, height - ctx.longTermWindow);
  const longTermWeight = nextLongTermBlockWeight(weight, longTermWeightsOf(view, ltStart, height - ltStart), ctx.hfVersion, ctx.longTermWindow);
  let claimed = 0n;
  for (const o of block.minerTx.vout) claimed += o.amount;
  return {
    ok: true,
    accepted: {
      height,
      difficulty: ctx.difficulty,
      cumulativeDifficulty: ctx.cumulativeDifficulty,
      weight,
      longTermWeight,
      fees,
      reward: claimed,
      baseReward: reward.baseReward,
      alreadyGeneratedCoins: nextAlreadyGeneratedCoins(ctx.alreadyGeneratedCoins, reward.generated),
    },
  };
}

function bytesEqual(a: Bytes, b: Bytes): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
