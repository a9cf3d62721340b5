/**
 * A minimal block template builder (Blockchain::create_block_template + construct_miner_tx at
 * HF 16): pool txs by fee per weight within 130 % of the penalty median, a coinbase paying
 * reward + fees to one view-tagged output for a standard address, with an optional reserved
 * extra nonce. node/mining builds the full template; this is what node/chain uses until then and
 * in its own tests.
 */
import { blockReward, type NextBlockContext } from "../../consensus/index.js";
import type { CryptoBackend } from "../../crypto/backend.js";
import { randomScalar } from "../../crypto/random.js";
import type { Block } from "../../protocol/block.js";
import { serializeBlock } from "../../protocol/block.js";
import { serializeTxExtra, type ExtraField } from "../../protocol/extra.js";
import type { Bytes, Transaction } from "../../protocol/tx.js";
import { serializeTransaction } from "../../protocol/tx.js";
import type { PoolEntry } from "../core.js";

/** CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE */
export const COINBASE_BLOB_RESERVED_SIZE = 600;
/** CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW */
export const MINED_MONEY_UNLOCK_WINDOW = 60;

export interface MinerKeys {
  spendPublicKey: Bytes;
  viewPublicKey: Bytes;
}

export interface BuiltTemplate {
  block: Block;
  blob: Bytes;
  txIds: Bytes[];
  txs: Transaction[];
  fees: bigint;
  reward: bigint;
  /** Offset of the reserved nonce bytes in `blob` (0 when none). */
  reservedOffset: number;
}

/** Weight budget for pool txs in a template (get_block_template's 130 % of the median, less the coinbase reserve). */
export function templateWeightBudget(ctx: NextBlockContext): number {
  return Math.floor((ctx.penaltyMedian * 130) / 100) - COINBASE_BLOB_RESERVED_SIZE;
}

function minerTx(height: number, amount: bigint, keys: MinerKeys, txSecret: Bytes, reserve: Bytes, backend: CryptoBackend): Transaction {
  const txPub = backend.scalarMultBase(txSecret);
  const derivation = backend.generateKeyDerivation(keys.viewPublicKey, txSecret);
  if (!derivation) throw new RangeError("miner address: view public key is not a valid point");
  const key = backend.derivePublicKey(derivation, 0, keys.spendPublicKey);
  if (!key) throw new RangeError("miner address: spend public key is not a valid point");
  const fields: ExtraField[] = [{ type: "pubkey", key: txPub }];
  if (reserve.length > 0) fields.push({ type: "nonce", nonce: reserve });
  return {
    version: 2,
    unlockTime: BigInt(height + MINED_MONEY_UNLOCK_WINDOW),
    vin: [{ type: "gen", height: BigInt(height) }],
    vout: [{ amount, target: { type: "tagged_key", key, viewTag: backend.deriveViewTag(derivation, 0) } }],
    extra: serializeTxExtra(fields),
    signatures: [],
    pruned: false,
    rct: { type: 0, fee: 0n, pseudoOuts: [], ecdhInfo: [], outPk: [] },
  };
}

/**
 * Builds a block on the chain whose next-block context is `ctx` (its top is `prevId`), taking
 * `candidates` (already in template order) while they fit the weight budget.
 */
export function buildTemplate(
  ctx: NextBlockContext,
  prevId: Bytes,
  candidates: readonly PoolEntry[],
  keys: MinerKeys,
  opts: { timestamp: bigint; reserveSize?: number; extraNonce?: Bytes; backend: CryptoBackend; txSecret?: Bytes },
): BuiltTemplate {
  const be = opts.backend;
  const budget = templateWeightBudget(ctx);
  const chosen: PoolEntry[] = [];
  let txWeight = 0;
  let fees = 0n;
  for (const e of candidates) {
    if (txWeight + e.weight > budget) continue;
    chosen.push(e);
    txWeight += e.weight;
    fees += e.fee;
  }
  const reserve = opts.extraNonce ?? new Uint8Array(opts.reserveSize ?? 0);
  const secret = opts.txSecret ?? randomScalar(be);
  // the coinbase's size depends on its amount (varint): iterate until the weight is stable
  let cbWeight = 0;
  let tx: Transaction | undefined;
  let reward = 0n;
  for (let i = 0; i < 10; i++) {
    const base = blockReward(ctx.penaltyMedian, txWeight + cbWeight, ctx.alreadyGeneratedCoins, ctx.hfVersion);
    if (base === undefined) throw new RangeError("template too heavy for any reward");
    reward = base + fees;
    tx = minerTx(ctx.height, reward, keys, secret, reserve, be);
    const w = serializeTransaction(tx).length;
    if (w === cbWeight) break;
    cbWeight = w;
  }
  if (!tx) throw new Error("unreachable");
  const block: Block = {
    majorVersion: ctx.hfVersion,
    minorVersion: ctx.hfVersion,
    timestamp: opts.timestamp,
    prevId,
    nonce: 0,
    minerTx: tx,
    txHashes: chosen.map((e) => e.id),
  };
  const blob = serializeBlock(block);
  let reservedOffset = 0;
  if (reserve.length > 0) {
    // the nonce is the last extra field: find the extra in the blob (after the header + prefix start)
    const extraAt = findSub(blob, tx.extra);
    if (extraAt >= 0) reservedOffset = extraAt + tx.extra.length - reserve.length;
  }
  return { block, blob, txIds: chosen.map((e) => e.id), txs: chosen.map((e) => e.tx), fees, reward, reservedOffset };
}

function findSub(hay: Bytes, needle: Bytes): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
