/**
 * Block templates as monerod v0.18.0.0 builds them: Blockchain::create_block_template (version,
 * timestamp, the two-phase coinbase whose weight must settle), tx_memory_pool::fill_block_template
 * (which pool txs go in) and construct_miner_tx (the coinbase), plus core_rpc_server's
 * get_block_template (reserved_offset, seed hashes).
 *
 * Pure: the caller gives the next block's consensus context, the pool's candidates in its template
 * order (already filtered for readiness: relayable, not pruned, inputs still valid) and the seeds.
 */
import {
  BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW,
  blockReward,
  CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE,
  CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW,
  medianBigint,
  type NextBlockContext,
} from "../../consensus/index.js";
import { encodeVarint, varintSize } from "../../codec/varint.js";
import type { CryptoBackend } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { randomScalar, type RandomSource, systemRandom } from "../../crypto/random.js";
import { AddressError, decodeAddress } from "../../protocol/address.js";
import { type Block, blockHashingBlob, serializeBlock } from "../../protocol/block.js";
import { LATEST_HARD_FORK } from "../../protocol/genesis.js";
import type { Network } from "../../protocol/network.js";
import { type Bytes, serializeTransaction, type Transaction } from "../../protocol/tx.js";
import type { BlockTemplate } from "../core.js";
import { miningErrors } from "./errors.js";
import type { TemplateSeeds } from "./seed.js";

/** The first version with one (dusty) coinbase output and v2 transactions. */
const HF_VERSION_SINGLE_COINBASE_OUTPUT = 4;
/** fill_block_template's optimal filling (2 × median budget, reward-aware) from v5. */
const HF_VERSION_OPTIMAL_FILL = 5;
/** HF_VERSION_VIEW_TAGS. */
const HF_VERSION_VIEW_TAGS = 15;
/** RX_BLOCK_VERSION. */
export const RX_BLOCK_VERSION = 12;
/** TX_EXTRA_NONCE_MAX_COUNT. */
export const TX_EXTRA_NONCE_MAX_COUNT = 255;

/** A pool transaction offered to the template (the pool's order is kept). */
export interface TemplateCandidate {
  id: Bytes;
  weight: number;
  fee: bigint;
  keyImages: readonly Bytes[];
}

export interface MinerKeys {
  spendPublicKey: Bytes;
  viewPublicKey: Bytes;
}

/**
 * get_account_address_from_str as get_block_template / start_mining use it: a standard or
 * integrated address of `network`; subaddresses are refused (monerod cannot mine to them).
 */
export function minerAddress(address: string, network: Network, backend: CryptoBackend = defaultBackend()): MinerKeys {
  let a;
  try {
    a = decodeAddress(address, network, backend);
  } catch (e) {
    if (e instanceof AddressError) throw miningErrors.wrongAddress(`${e.message} (expected a ${network} address)`, e);
    throw e;
  }
  if (a.kind === "subaddress") throw miningErrors.subaddress();
  return { spendPublicKey: a.spendPublicKey, viewPublicKey: a.viewPublicKey };
}

/** median_weight for a template on the main chain's tip: m_current_block_cumul_weight_limit / 2. */
export function mainChainTemplateMedian(ctx: NextBlockContext): number {
  return Math.floor(ctx.limits.limit / 2);
}

/**
 * median_weight for a template on another block (get_block_template's prev_block): monerod
 * "cheats" with the parent's own weight, and 95 % of it when the parent is an alternative block.
 */
export function altTemplateMedian(parentWeight: number, parentInMainChain: boolean): number {
  return parentInMainChain ? parentWeight : parentWeight - Math.floor(parentWeight / 20);
}

/** template_accept_threshold: amount × 1.0f — the amount rounded to a float32, then truncated. */
function acceptThreshold(amount: bigint): bigint {
  return BigInt(Math.trunc(Math.fround(Number(amount))));
}

export interface FilledTemplate {
  chosen: TemplateCandidate[];
  txsWeight: number;
  fees: bigint;
  /** best_coinbase: base reward at the txs' weight + fees (get_block_template's expected_reward). */
  expectedReward: bigint;
}

/** tx_memory_pool::fill_block_template over the candidates, in their order. */
export function fillBlockTemplate(
  candidates: readonly TemplateCandidate[],
  medianWeight: number,
  alreadyGeneratedCoins: bigint,
  version: number,
): FilledTemplate {
  const empty = blockReward(medianWeight, 0, alreadyGeneratedCoins, version);
  if (empty === undefined) throw miningErrors.internal("no reward for an empty block");
  let bestCoinbase = empty;
  let txsWeight = 0;
  let fees = 0n;
  let budget =
    version >= HF_VERSION_OPTIMAL_FILL
      ? 2 * medianWeight - CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE
      : Math.floor((130 * medianWeight) / 100) - CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE;
  // size_t in monerod: a median below 300 bytes (a prev_block template on a coinbase-only parent)
  // wraps to almost 2^64, i.e. no limit
  if (budget < 0) budget = Number.MAX_SAFE_INTEGER;
  const seen = new Set<string>();
  const chosen: TemplateCandidate[] = [];
  for (const c of candidates) {
    if (budget < txsWeight + c.weight) continue;
    let coinbase = 0n;
    if (version >= HF_VERSION_OPTIMAL_FILL) {
      const r = blockReward(medianWeight, txsWeight + c.weight, alreadyGeneratedCoins, version);
      if (r === undefined) continue;
      coinbase = r + fees + c.fee;
      if (coinbase < acceptThreshold(bestCoinbase)) continue;
    } else if (txsWeight > medianWeight) break;
    const kis = c.keyImages.map((k) => Buffer.from(k).toString("hex"));
    if (kis.some((k) => seen.has(k))) continue;
    chosen.push(c);
    txsWeight += c.weight;
    fees += c.fee;
    // monerod keeps `coinbase` of the last added tx even before v5 (where it stays 0)
    bestCoinbase = coinbase;
    for (const k of kis) seen.add(k);
  }
  return { chosen, txsWeight, fees, expectedReward: bestCoinbase };
}

/**
 * The coinbase's tx extra before sorting: tx pubkey, then the extra nonce with its length as a
 * varint (add_extra_nonce_to_tx_extra as fixed after 0.18.0.0, whose one length byte made 128..255
 * fail in sort_tx_extra; Monero's functional test `blockchain` at HEAD asks for 128 and 255).
 */
function minerExtra(txPub: Bytes, extraNonce: Bytes): Uint8Array {
  if (extraNonce.length === 0) return Uint8Array.of(0x01, ...txPub);
  if (extraNonce.length > TX_EXTRA_NONCE_MAX_COUNT) throw miningErrors.reserveTooBig(extraNonce.length);
  const len = encodeVarint(extraNonce.length);
  const out = new Uint8Array(33 + 1 + len.length + extraNonce.length);
  out[0] = 0x01;
  out.set(txPub, 1);
  out[33] = 0x02;
  out.set(len, 34);
  out.set(extraNonce, 34 + len.length);
  return out;
}

export interface MinerTxInput {
  height: number;
  medianWeight: number;
  alreadyGeneratedCoins: bigint;
  /** The block weight the reward is computed for. */
  blockWeight: number;
  fees: bigint;
  miner: MinerKeys;
  extraNonce: Bytes;
  hfVersion: number;
  backend: CryptoBackend;
  /** The tx secret key (default: a fresh random scalar, as keypair::generate). */
  txSecret?: Bytes;
  rng?: RandomSource;
}

/** construct_miner_tx for HF ≥ 4: one output paying the reward + fees, locked for 60 blocks. */
export function constructMinerTx(i: MinerTxInput): { tx: Transaction; txSecret: Bytes; txPub: Bytes; amount: bigint } {
  if (i.hfVersion < HF_VERSION_SINGLE_COINBASE_OUTPUT) {
    throw miningErrors.internal(`coinbases of hard fork ${i.hfVersion} (several decomposed outputs) are not built by this node`);
  }
  const be = i.backend;
  const txSecret = i.txSecret ?? randomScalar(be, i.rng ?? systemRandom);
  const txPub = be.scalarMultBase(txSecret);
  const base = blockReward(i.medianWeight, i.blockWeight, i.alreadyGeneratedCoins, i.hfVersion);
  if (base === undefined) throw miningErrors.internal(`block weight ${i.blockWeight} is too big for median ${i.medianWeight}`);
  const amount = base + i.fees;
  const derivation = be.generateKeyDerivation(i.miner.viewPublicKey, txSecret);
  if (!derivation) throw miningErrors.wrongAddress("its view public key is not a valid point");
  const key = be.derivePublicKey(derivation, 0, i.miner.spendPublicKey);
  if (!key) throw miningErrors.wrongAddress("its spend public key is not a valid point");
  const target =
    i.hfVersion >= HF_VERSION_VIEW_TAGS
      ? { type: "tagged_key" as const, key, viewTag: be.deriveViewTag(derivation, 0) }
      : { type: "key" as const, key };
  const tx: Transaction = {
    version: 2,
    unlockTime: BigInt(i.height + CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW),
    vin: [{ type: "gen", height: BigInt(i.height) }],
    vout: [{ amount, target }],
    extra: minerExtra(txPub, i.extraNonce),
    signatures: [],
    pruned: false,
    rct: { type: 0, fee: 0n, pseudoOuts: [], ecdhInfo: [], outPk: [] },
  };
  return { tx, txSecret, txPub, amount };
}

/** A coinbase's weight: its blob size (no prunable part). */
function coinbaseWeight(tx: Transaction): number {
  return serializeTransaction(tx).length;
}

export interface TemplateInput {
  /** The next block's consensus context on the chain the template extends. */
  ctx: NextBlockContext;
  /** The block the template builds on. */
  prevId: Bytes;
  /** Pool candidates in the pool's template order (highest fee per byte first). */
  candidates: readonly TemplateCandidate[];
  miner: MinerKeys;
  /** reserve_size zero bytes, or the client's extra_nonce (≤ 127 bytes in practice; see minerExtra). */
  extraNonce: Bytes;
  /** Local time, Unix seconds. */
  now: bigint;
  seeds: TemplateSeeds;
  /** Default: mainChainTemplateMedian(ctx). */
  medianWeight?: number;
  /** Default: ctx.alreadyGeneratedCoins. */
  alreadyGeneratedCoins?: bigint;
  /** Default: ctx.hfVersion (HardFork::get_current_version / get_ideal_version(height)). */
  majorVersion?: number;
  /** Default: the newest version this node knows (HardFork::get_ideal_version()). */
  minorVersion?: number;
  /** The main chain's newest timestamps (monerod raises the time to their median once there are 60); default ctx.recentTimestamps. */
  recentTimestamps?: readonly bigint[];
  backend?: CryptoBackend;
  rng?: RandomSource;
}

export interface BuiltTemplate extends BlockTemplate {
  /** Sum of the included txs' fees. */
  fees: bigint;
  txsWeight: number;
  minerTxWeight: number;
  /** The coinbase's tx secret key (the miner's wallet never needs it; tests do). */
  txSecret: Bytes;
  /** Offset of the 4 nonce bytes in both `blob` and `hashingBlob`. */
  nonceOffset: number;
}

/** Offset of the nonce in a block blob or hashing blob (after versions, timestamp and prev_id). */
export function nonceOffset(blob: Bytes): number {
  let at = 0;
  for (let field = 0; field < 3; field++) {
    while (at < blob.length && (blob[at] & 0x80) !== 0) at++;
    at++;
  }
  at += 32;
  if (at + 4 > blob.length) throw new RangeError("block blob too short for a header");
  return at;
}

function indexOf(hay: Bytes, needle: Bytes): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Blockchain::create_block_template + get_block_template's reserved_offset. */
export function buildBlockTemplate(input: TemplateInput): BuiltTemplate {
  const { ctx } = input;
  const backend = input.backend ?? defaultBackend();
  const height = ctx.height;
  const majorVersion = input.majorVersion ?? ctx.hfVersion;
  const medianWeight = input.medianWeight ?? mainChainTemplateMedian(ctx);
  const generated = input.alreadyGeneratedCoins ?? ctx.alreadyGeneratedCoins;

  // time(NULL), raised to the median of the last 60 timestamps once the chain has that many
  let timestamp = input.now;
  const recent = input.recentTimestamps ?? ctx.recentTimestamps;
  if (recent.length >= BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW) {
    const median = medianBigint(recent.slice(recent.length - BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW));
    if (timestamp < median) timestamp = median;
  }

  const fill = fillBlockTemplate(input.candidates, medianWeight, generated, majorVersion);
  const make = (blockWeight: number): ReturnType<typeof constructMinerTx> =>
    constructMinerTx({
      height,
      medianWeight,
      alreadyGeneratedCoins: generated,
      blockWeight,
      fees: fill.fees,
      miner: input.miner,
      extraNonce: input.extraNonce,
      hfVersion: majorVersion,
      backend,
      ...(input.rng ? { rng: input.rng } : {}),
    });

  // two phases: a first coinbase for the txs alone, then rebuild until its weight is what the
  // reward was computed for, padding the extra with zeros when the new one came out lighter
  let mt = make(fill.txsWeight);
  let cumulative = fill.txsWeight + coinbaseWeight(mt.tx);
  let settled = false;
  for (let tries = 0; tries < 10 && !settled; tries++) {
    mt = make(cumulative);
    const w = coinbaseWeight(mt.tx);
    if (w > cumulative - fill.txsWeight) {
      cumulative = fill.txsWeight + w;
      continue;
    }
    if (w < cumulative - fill.txsWeight) {
      const delta = cumulative - fill.txsWeight - w;
      const padded = new Uint8Array(mt.tx.extra.length + delta);
      padded.set(mt.tx.extra);
      mt.tx = { ...mt.tx, extra: padded };
      if (cumulative !== fill.txsWeight + coinbaseWeight(mt.tx)) {
        // the extra's length varint grew by a byte: drop one padding byte
        mt.tx = { ...mt.tx, extra: padded.subarray(0, padded.length - 1) };
        if (cumulative !== fill.txsWeight + coinbaseWeight(mt.tx)) {
          cumulative += delta - 1;
          continue;
        }
      }
    }
    settled = true;
  }
  if (!settled) throw miningErrors.internal("the coinbase weight did not settle in 10 tries");

  const block: Block = {
    majorVersion,
    minorVersion: input.minorVersion ?? LATEST_HARD_FORK,
    timestamp,
    prevId: input.prevId,
    nonce: 0,
    minerTx: mt.tx,
    txHashes: fill.chosen.map((c) => c.id),
  };
  const blob = serializeBlock(block);
  let reservedOffset = 0;
  if (input.extraNonce.length > 0) {
    const at = indexOf(blob, mt.txPub);
    if (at < 0) throw miningErrors.internal("tx pub key not found in the block blob");
    // the pubkey, then the nonce's tag and its varint length
    reservedOffset = at + 32 + 1 + varintSize(input.extraNonce.length);
  }
  const rx = majorVersion >= RX_BLOCK_VERSION;
  return {
    block,
    blob,
    hashingBlob: blockHashingBlob(block, backend),
    height,
    difficulty: ctx.difficulty,
    expectedReward: fill.expectedReward,
    prevHash: input.prevId,
    reservedOffset,
    seedHeight: input.seeds.seedHeight,
    seedHash: rx ? input.seeds.seedHash : new Uint8Array(0),
    nextSeedHash: rx ? input.seeds.nextSeedHash : new Uint8Array(0),
    txIds: block.txHashes,
    fees: fill.fees,
    txsWeight: fill.txsWeight,
    minerTxWeight: coinbaseWeight(mt.tx),
    txSecret: mt.txSecret,
    nonceOffset: nonceOffset(blob),
  };
}

/** get_block_template's request checks: reserve_size ≤ 255, or an extra_nonce of ≤ 255 bytes, not both. */
export function templateExtraNonce(reserveSize: number, extraNonce?: Bytes): Bytes {
  if (!Number.isInteger(reserveSize) || reserveSize < 0) throw miningErrors.reserveTooBig(reserveSize);
  if (reserveSize > TX_EXTRA_NONCE_MAX_COUNT) throw miningErrors.reserveTooBig(reserveSize);
  if (extraNonce && extraNonce.length > 0) {
    if (reserveSize > 0) throw miningErrors.bothNonces();
    if (extraNonce.length > TX_EXTRA_NONCE_MAX_COUNT) throw miningErrors.extraNonceTooBig(extraNonce.length);
    return extraNonce;
  }
  return new Uint8Array(reserveSize);
}
