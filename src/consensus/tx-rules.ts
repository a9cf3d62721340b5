/**
 * Transaction rules as pure checks. Chain-free semantics follow core::check_tx_semantic
 * (cryptonote_core.cpp), Blockchain::check_tx_outputs and the input-shape part of
 * Blockchain::check_tx_inputs (blockchain.cpp); chain lookups go through ChainView.
 * Signature and range-proof verification are crypto/ringct's job and are not repeated here.
 */
import { type CryptoBackend, defaultBackend } from "../crypto/index.js";
import { inMainSubgroup } from "../crypto/ringct/scalar.js";
import { RCT_TYPE, rctIsBulletproof, rctIsBulletproofPlus } from "../protocol/rct.js";
import type { Bytes, Transaction, TxOut } from "../protocol/tx.js";
import { relativeToAbsoluteOffsets } from "../protocol/tx.js";
import type { ChainView } from "./chain-view.js";
import {
  BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW,
  BULLETPROOF_PLUS_MAX_OUTPUTS,
  CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE,
  CRYPTONOTE_LOCKED_TX_ALLOWED_DELTA_BLOCKS,
  CRYPTONOTE_MAX_BLOCK_NUMBER,
  CRYPTONOTE_MAX_TX_SIZE,
  HF_VERSION_BULLETPROOF_PLUS,
  HF_VERSION_CLSAG,
  HF_VERSION_DETERMINISTIC_UNLOCK_TIME,
  HF_VERSION_ENFORCE_MIN_AGE,
  HF_VERSION_ENFORCE_RCT,
  HF_VERSION_MIN_2_OUTPUTS,
  HF_VERSION_MIN_MIXIN_10,
  HF_VERSION_MIN_MIXIN_15,
  HF_VERSION_MIN_MIXIN_4,
  HF_VERSION_MIN_MIXIN_6,
  HF_VERSION_SAME_MIXIN,
  HF_VERSION_SMALLER_BP,
  HF_VERSION_VIEW_TAGS,
  MAX_TX_EXTRA_SIZE,
  minBlockWeight,
} from "./constants.js";
import { DIFFICULTY_TARGET_V1, DIFFICULTY_TARGET_V2 } from "./difficulty.js";
import { txError, type TxRuleError } from "./errors.js";
import { checkFee, type FeeContext, requiredFee } from "./fees.js";

const MAX_U64 = (1n << 64n) - 1n;
/** CRYPTONOTE_DEFAULT_TX_SPENDABLE_AGE */
export const CRYPTONOTE_DEFAULT_TX_SPENDABLE_AGE = 10;

function compareBytes(a: Bytes, b: Bytes): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/**
 * check_tx_inputs_keyimages_domain: l·KI must be the identity (rct::scalarmultKey with the curve
 * order), so key images carrying a torsion component are rejected; a non-point is rejected too.
 */
export function keyImageInDomain(keyImage: Bytes, backend: CryptoBackend = defaultBackend()): boolean {
  return inMainSubgroup(backend, keyImage);
}

/** The output's public key, or undefined for script outputs (get_output_public_key). */
function outputKey(o: TxOut): Bytes | undefined {
  return o.target.type === "key" || o.target.type === "tagged_key" ? o.target.key : undefined;
}

/** check_output_types: txout_to_key before HF 15, either (all the same) at HF 15, tagged keys after. */
export function checkOutputTypes(vout: readonly TxOut[], hfVersion: number): number | undefined {
  for (let i = 0; i < vout.length; i++) {
    const t = vout[i].target.type;
    if (hfVersion > HF_VERSION_VIEW_TAGS) {
      if (t !== "tagged_key") return i;
    } else if (hfVersion < HF_VERSION_VIEW_TAGS) {
      if (t !== "key") return i;
    } else if ((t !== "key" && t !== "tagged_key") || t !== vout[0].target.type) return i;
  }
  return undefined;
}

/** The minimum ring size minus one (mixin) at a hard fork, as check_tx_inputs computes it. */
export function minMixin(hfVersion: number): number {
  if (hfVersion >= HF_VERSION_MIN_MIXIN_15) return 15;
  if (hfVersion >= HF_VERSION_MIN_MIXIN_10) return 10;
  if (hfVersion >= HF_VERSION_MIN_MIXIN_6) return 6;
  if (hfVersion >= HF_VERSION_MIN_MIXIN_4) return 4;
  return 2;
}

export interface TxSemanticsOptions {
  /** The transaction's weight (protocol/weight.ts); with `weightLimit`, checked against limit − 600. */
  weight?: number;
  /** The current block weight limit (WeightLimits.limit); skipped when the tx comes in a block. */
  weightLimit?: number;
  /** True for transactions checked as part of a block (kept_by_block): no pool-only size check. */
  keptByBlock?: boolean;
  /**
   * How many outputs of a pre-RingCT `amount` the chain has (BlockchainDB::get_num_outputs). Inputs
   * of such amounts with at most min-mixin outputs are "unmixable" and may use smaller rings (and a
   * v1 tx). Without it every input counts as mixable, which is exact for RingCT inputs (amount 0).
   */
  numOutputs?: (amount: bigint) => bigint;
  backend?: CryptoBackend;
}

/**
 * The chain-free rules for a non-coinbase transaction at hard fork `hfVersion`, in monerod's order:
 * checkTxCoreSemantics (core::check_tx_semantic and the RingCT shape), then checkTxInputShape
 * (check_tx_outputs and the chain-free part of check_tx_inputs). Returns the first rule broken.
 */
export function checkTxSemantics(tx: Transaction, hfVersion: number, opts: TxSemanticsOptions = {}): TxRuleError | undefined {
  return checkTxCoreSemantics(tx, hfVersion, opts) ?? checkTxInputShape(tx, hfVersion, opts);
}

/**
 * core::check_tx_semantic plus the structure ver_rct_semantics_simple checks: input and output
 * types, output keys, amounts, outPk count, size against the block limit (pool only), key image
 * uniqueness and domain, zero ring offsets, output types, RingCT shape.
 */
export function checkTxCoreSemantics(tx: Transaction, hfVersion: number, opts: TxSemanticsOptions = {}): TxRuleError | undefined {
  const backend = opts.backend ?? defaultBackend();
  // core::check_tx_semantic
  if (tx.vin.length === 0) return txError("NO_INPUTS");
  for (let i = 0; i < tx.vin.length; i++) if (tx.vin[i].type !== "key") return txError("BAD_INPUT_TYPE", `input ${i} is ${tx.vin[i].type}`, i);
  for (let i = 0; i < tx.vout.length; i++) {
    const key = outputKey(tx.vout[i]);
    if (key === undefined) return txError("BAD_OUTPUT_TYPE", `output ${i} is ${tx.vout[i].target.type}`, i);
    if (tx.version === 1 && tx.vout[i].amount === 0n) return txError("NONZERO_OUTPUT_AMOUNT", `v1 output ${i} has zero amount`, i);
    if (!backend.pointCheck(key)) return txError("BAD_OUTPUT_KEY", `output ${i}`, i);
  }
  if (tx.version > 1 && (tx.rct?.outPk.length ?? 0) !== tx.vout.length) {
    return txError("OUTPK_MISMATCH", `${tx.rct?.outPk.length ?? 0} outPk for ${tx.vout.length} outputs`);
  }
  let sumIn = 0n;
  let sumOut = 0n;
  for (const i of tx.vin) if (i.type === "key") sumIn += i.amount;
  for (const o of tx.vout) sumOut += o.amount;
  if (sumIn > MAX_U64 || sumOut > MAX_U64) return txError("MONEY_OVERFLOW");
  if (tx.version === 1 && sumIn <= sumOut) return txError("MONEY_OVERFLOW", `v1 inputs ${sumIn} do not exceed outputs ${sumOut}`);
  if (!opts.keptByBlock && opts.weight !== undefined && opts.weightLimit !== undefined) {
    if (opts.weight >= opts.weightLimit - CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE) {
      return txError("TOO_BIG", `weight ${opts.weight}, limit ${opts.weightLimit - CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE}`);
    }
  }
  // check_tx_inputs_keyimages_diff
  const seen = new Set<string>();
  for (let i = 0; i < tx.vin.length; i++) {
    const input = tx.vin[i];
    if (input.type !== "key") continue;
    const k = Buffer.from(input.keyImage).toString("hex");
    if (seen.has(k)) return txError("DUPLICATE_KEY_IMAGE", `input ${i}`, i);
    seen.add(k);
  }
  // check_tx_inputs_ring_members_diff
  if (hfVersion >= 6) {
    for (let i = 0; i < tx.vin.length; i++) {
      const input = tx.vin[i];
      if (input.type !== "key") continue;
      if (input.keyOffsets.length === 0) return txError("EMPTY_RING", `input ${i}`, i);
      for (let n = 1; n < input.keyOffsets.length; n++) {
        if (input.keyOffsets[n] === 0n) return txError("DUPLICATE_RING_MEMBER", `input ${i}, member ${n}`, i);
      }
    }
  }
  // check_tx_inputs_keyimages_domain
  for (let i = 0; i < tx.vin.length; i++) {
    const input = tx.vin[i];
    if (input.type === "key" && !keyImageInDomain(input.keyImage, backend)) return txError("KEY_IMAGE_DOMAIN", `input ${i}`, i);
  }
  const badType = checkOutputTypes(tx.vout, hfVersion);
  if (badType !== undefined) return txError("BAD_OUTPUT_TYPE", `output ${badType} is ${tx.vout[badType].target.type}`, badType);
  // core::handle_incoming_tx_accumulated_batch: RingCT semantics before the pool's rules
  return checkRctShape(tx);
}

/**
 * Blockchain::check_tx_outputs (amounts, RingCT type at the fork) and the chain-free part of
 * Blockchain::check_tx_inputs: 2+ outputs, ring sizes, tx version, key images sorted.
 */
export function checkTxInputShape(tx: Transaction, hfVersion: number, opts: TxSemanticsOptions = {}): TxRuleError | undefined {
  const outputError = checkTxOutputs(tx, hfVersion);
  if (outputError) return outputError;

  // Blockchain::check_tx_inputs, the part that needs no chain data
  if (hfVersion >= HF_VERSION_MIN_2_OUTPUTS && tx.version >= 2 && tx.vout.length < 2) {
    return txError("TOO_FEW_OUTPUTS", `${tx.vout.length} output(s)`);
  }
  if (hfVersion >= 2) {
    const mixins = tx.vin.map((i) => (i.type === "key" ? i.keyOffsets.length - 1 : 0));
    const lo = Math.min(...mixins);
    const hi = Math.max(...mixins);
    const minM = minMixin(hfVersion);
    let unmixable = 0;
    let mixable = 0;
    for (const i of tx.vin) {
      if (i.type !== "key") continue;
      if (i.amount === 0n || !opts.numOutputs || opts.numOutputs(i.amount) > BigInt(minM)) mixable++;
      else unmixable++;
    }
    if (hfVersion >= HF_VERSION_SAME_MIXIN && lo !== hi) return txError("MIXED_RING_SIZES", `ring sizes ${lo + 1} to ${hi + 1}`);
    // a small ring is allowed only when spending unmixable outputs, with at most one mixable input
    const below = lo < minM && !(hfVersion === HF_VERSION_MIN_MIXIN_15 && lo === 10);
    const tooLow = below && (unmixable === 0 || mixable > 1);
    const tooHigh =
      !below &&
      ((hfVersion > HF_VERSION_MIN_MIXIN_15 && lo > 15) ||
      (hfVersion === HF_VERSION_MIN_MIXIN_15 && lo !== 15 && lo !== 10) ||
      (hfVersion < HF_VERSION_MIN_MIXIN_15 && hfVersion >= HF_VERSION_MIN_MIXIN_10 + 2 && lo > 10) ||
      ((hfVersion === HF_VERSION_MIN_MIXIN_10 || hfVersion === HF_VERSION_MIN_MIXIN_10 + 1) && lo !== 10));
    if (tooLow || tooHigh) {
      const idx = mixins.indexOf(lo);
      return txError("BAD_RING_SIZE", `ring size ${lo + 1} at hard fork ${hfVersion}`, idx);
    }
    const maxVersion = hfVersion <= 3 ? 1 : 2;
    const minVersion = unmixable > 0 ? 1 : hfVersion >= HF_VERSION_ENFORCE_RCT ? 2 : 1;
    if (tx.version > maxVersion || tx.version < minVersion) return txError("BAD_VERSION", `version ${tx.version} at hard fork ${hfVersion}`);
  }
  if (hfVersion >= 7) {
    // inputs must be sorted by key image, strictly decreasing as bytes (memcmp)
    for (let i = 1; i < tx.vin.length; i++) {
      const a = tx.vin[i - 1];
      const b = tx.vin[i];
      if (a.type === "key" && b.type === "key" && compareBytes(b.keyImage, a.keyImage) >= 0) {
        return txError("UNSORTED_KEY_IMAGES", `input ${i}`, i);
      }
    }
  }
  return checkRingSignatureShape(tx);
}

/**
 * is_valid_decomposed_amount (cryptonote_format_utils.cpp): one nonzero digit followed by zeros
 * (d·10^k), the only amounts v1 outputs may have from HF 2.
 */
export function isValidDecomposedAmount(amount: bigint): boolean {
  if (amount <= 0n || amount > MAX_U64) return false;
  let a = amount;
  while (a % 10n === 0n) a /= 10n;
  return a <= 9n;
}

/** Blockchain::check_tx_outputs: output amounts, RingCT types allowed at the hard fork. */
export function checkTxOutputs(tx: Transaction, hfVersion: number): TxRuleError | undefined {
  if (hfVersion >= 2 && tx.version === 1) {
    for (let i = 0; i < tx.vout.length; i++) {
      if (!isValidDecomposedAmount(tx.vout[i].amount)) return txError("BAD_OUTPUT_AMOUNT", `output ${i}: ${tx.vout[i].amount}`, i);
    }
  }
  if (hfVersion >= 3 && tx.version >= 2) {
    for (let i = 0; i < tx.vout.length; i++) if (tx.vout[i].amount !== 0n) return txError("NONZERO_OUTPUT_AMOUNT", `output ${i}`, i);
  }
  if (tx.version < 2) return undefined;
  const type = tx.rct?.type ?? RCT_TYPE.Null;
  const bad = (why: string): TxRuleError => txError("BAD_RCT_TYPE", `type ${type} ${why}`);
  if (hfVersion < 8 && rctIsBulletproof(type)) return bad("(Bulletproofs from v8)");
  if (hfVersion > 8 && (type === RCT_TYPE.Full || type === RCT_TYPE.Simple)) return bad("(Borromean proofs forbidden after v8)");
  if (hfVersion < HF_VERSION_SMALLER_BP && type === RCT_TYPE.Bulletproof2) return bad(`before v${HF_VERSION_SMALLER_BP}`);
  if (hfVersion > HF_VERSION_SMALLER_BP && type === RCT_TYPE.Bulletproof) return bad(`from v${HF_VERSION_SMALLER_BP + 1}`);
  if (hfVersion < HF_VERSION_CLSAG && type === RCT_TYPE.CLSAG) return bad(`before v${HF_VERSION_CLSAG}`);
  // (Monero grandfathers two MLSAG txs of mainnet here; they are below our checkpoints' reach)
  if (hfVersion > HF_VERSION_CLSAG && type <= RCT_TYPE.Bulletproof2) return bad(`from v${HF_VERSION_CLSAG + 1}`);
  if (hfVersion < HF_VERSION_BULLETPROOF_PLUS && rctIsBulletproofPlus(type)) return bad(`before v${HF_VERSION_BULLETPROOF_PLUS}`);
  // is_rct_bulletproof covers types 3, 4 and 5 (CLSAG with Bulletproofs)
  if (hfVersion > HF_VERSION_BULLETPROOF_PLUS && rctIsBulletproof(type)) return bad(`from v${HF_VERSION_BULLETPROOF_PLUS + 1}`);
  return undefined;
}

/**
 * The structural part of ver_rct_semantics_simple for Bulletproof+/CLSAG (rctSigs.cpp): one proof
 * covering at most 16 outputs with matching rounds, one pseudo output per CLSAG, one ecdhInfo per output.
 */
export function checkRctShape(tx: Transaction): TxRuleError | undefined {
  if (tx.version < 2 || !tx.rct) return undefined;
  const rct = tx.rct;
  if (rct.ecdhInfo.length !== tx.vout.length) return txError("RCT_SHAPE", `${rct.ecdhInfo.length} ecdhInfo for ${tx.vout.length} outputs`);
  if (rctIsBulletproofPlus(rct.type) && tx.vout.length > BULLETPROOF_PLUS_MAX_OUTPUTS) {
    return txError("TOO_MANY_OUTPUTS", `${tx.vout.length} outputs`);
  }
  const p = rct.prunable;
  if (!p || tx.pruned) return undefined;
  if (rctIsBulletproofPlus(rct.type)) {
    if (p.bulletproofsPlus.length !== 1) return txError("RCT_SHAPE", `${p.bulletproofsPlus.length} Bulletproof+ proofs`);
    // the proof covers the outputs padded to a power of two: L and R hold 6 + log2(padded) points
    let logM = 0;
    while (1 << logM < tx.vout.length) logM++;
    const bpp = p.bulletproofsPlus[0];
    if (bpp.L.length !== 6 + logM || bpp.R.length !== 6 + logM) {
      return txError("RCT_SHAPE", `Bulletproof+ with ${bpp.L.length} rounds for ${tx.vout.length} outputs`);
    }
    if (p.pseudoOuts.length !== p.CLSAGs.length) return txError("RCT_SHAPE", `${p.pseudoOuts.length} pseudo outputs for ${p.CLSAGs.length} CLSAGs`);
  }
  return undefined;
}

/**
 * The signature shape check_tx_inputs/verRctNonSemanticsSimple need before verifying: one CLSAG
 * per input with one scalar per ring member (a failure there is reported as invalid_input).
 */
export function checkRingSignatureShape(tx: Transaction): TxRuleError | undefined {
  const p = tx.rct?.prunable;
  if (tx.version < 2 || !p || tx.pruned || !tx.rct || !rctIsBulletproofPlus(tx.rct.type)) return undefined;
  if (p.CLSAGs.length !== tx.vin.length) return txError("SIGNATURE_SHAPE", `${p.CLSAGs.length} CLSAGs for ${tx.vin.length} inputs`);
  for (let i = 0; i < tx.vin.length; i++) {
    const input = tx.vin[i];
    if (input.type === "key" && p.CLSAGs[i].s.length !== input.keyOffsets.length) {
      return txError("SIGNATURE_SHAPE", `CLSAG ${i} has ${p.CLSAGs[i].s.length} scalars for ring size ${input.keyOffsets.length}`, i);
    }
  }
  return undefined;
}

/**
 * get_adjusted_time for a chain of `height` blocks (blockchain.cpp): from HF 13 the time used for
 * time-based unlocks is min(last timestamp + 120, median of last 60 + 61·60), or `now` on a short chain.
 */
export function adjustedTime(view: ChainView, now: bigint): bigint {
  const h = view.height();
  if (h < BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW) return now;
  const ts = view.timestamps(h - BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW, BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW);
  const med = medianBigint(ts) + BigInt(((BLOCKCHAIN_TIMESTAMP_CHECK_WINDOW + 1) * DIFFICULTY_TARGET_V2) / 2);
  const projected = ts[ts.length - 1] + BigInt(DIFFICULTY_TARGET_V2);
  return projected < med ? projected : med;
}

/** epee median over u64 values (floor of the mean of the middle two for even counts). */
export function medianBigint(values: readonly bigint[]): bigint {
  const n = values.length;
  if (n === 0) return 0n;
  const v = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return n % 2 === 1 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2n;
}

/** Blockchain::is_tx_spendtime_unlocked on a chain of view.height() blocks. */
export function isUnlocked(unlockTime: bigint, view: ChainView, hfVersion: number, now: bigint): boolean {
  if (unlockTime < CRYPTONOTE_MAX_BLOCK_NUMBER) {
    return BigInt(view.height() - 1 + CRYPTONOTE_LOCKED_TX_ALLOWED_DELTA_BLOCKS) >= unlockTime;
  }
  const current = hfVersion >= HF_VERSION_DETERMINISTIC_UNLOCK_TIME ? adjustedTime(view, now) : now;
  const delta = BigInt((hfVersion < 2 ? DIFFICULTY_TARGET_V1 : DIFFICULTY_TARGET_V2) * CRYPTONOTE_LOCKED_TX_ALLOWED_DELTA_BLOCKS);
  return current + delta >= unlockTime;
}

/**
 * The chain part of Blockchain::check_tx_inputs: key images not spent, every ring member exists,
 * is unlocked, and (HF 12+) the newest is at least 10 blocks deep. `now` is the local time in seconds.
 * Returns the ring members' outputs for signature verification, or the error.
 */
export function checkTxInputsAgainstChain(
  tx: Transaction,
  view: ChainView,
  hfVersion: number,
  now: bigint,
): { ok: true; rings: { key: Bytes; commitment: Bytes }[][] } | { ok: false; error: TxRuleError } {
  const rings: { key: Bytes; commitment: Bytes }[][] = [];
  let maxUsedHeight = 0;
  for (let i = 0; i < tx.vin.length; i++) {
    const input = tx.vin[i];
    if (input.type !== "key") return { ok: false, error: txError("BAD_INPUT_TYPE", `input ${i}`, i) };
    if (input.keyOffsets.length === 0) return { ok: false, error: txError("EMPTY_RING", `input ${i}`, i) };
    if (view.isKeyImageSpent(input.keyImage)) return { ok: false, error: txError("KEY_IMAGE_SPENT", `input ${i}`, i) };
    const ring: { key: Bytes; commitment: Bytes }[] = [];
    for (const index of relativeToAbsoluteOffsets(input.keyOffsets)) {
      const out = view.output(input.amount, index);
      if (!out) return { ok: false, error: txError("RING_MEMBER_MISSING", `input ${i}, global index ${index}`, i) };
      if (!isUnlocked(out.unlockTime, view, hfVersion, now)) {
        return { ok: false, error: txError("RING_MEMBER_LOCKED", `input ${i}, global index ${index}`, i) };
      }
      maxUsedHeight = Math.max(maxUsedHeight, out.height);
      ring.push({ key: out.key, commitment: out.commitment });
    }
    rings.push(ring);
  }
  if (hfVersion >= HF_VERSION_ENFORCE_MIN_AGE && maxUsedHeight + CRYPTONOTE_DEFAULT_TX_SPENDABLE_AGE > view.height()) {
    return { ok: false, error: txError("RING_MEMBER_TOO_YOUNG", `newest member at height ${maxUsedHeight}, chain height ${view.height()}`) };
  }
  return { ok: true, rings };
}

/**
 * tx_pool.cpp get_transaction_weight_limit: from HF 8 a pool transaction may weigh at most half the
 * full-reward zone less the coinbase reserve (149400 at HF 16).
 */
export function txWeightLimit(hfVersion: number): number {
  const zone = minBlockWeight(hfVersion);
  return (hfVersion >= 8 ? Math.floor(zone / 2) : zone) - CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE;
}

export interface PoolTxContext {
  hfVersion: number;
  /** The current block weight limit (WeightLimits.limit). */
  blockWeightLimit: number;
  fee: FeeContext;
  /**
   * RingCT semantics (balance, range proofs: crypto/ringct verifyRctSemantics), which monerod runs
   * right after check_tx_semantic; given, its failure is reported there as RCT_SEMANTICS.
   */
  verifyRctSemantics?: (tx: Transaction) => boolean;
}

/**
 * The rules a transaction meets before it enters the pool, in monerod's order (handle_incoming_tx_pre,
 * check_tx_semantic, RingCT shape, tx_memory_pool::add_tx): blob size ≤ CRYPTONOTE_MAX_TX_SIZE, core
 * semantics, the minimum fee, weight within the pool limit, extra ≤ 1060 bytes, output and input
 * shape. Then the caller runs checkTxInputsAgainstChain and the RingCT signatures. Pass
 * `verifyRctSemantics` to report the same first failure as monerod (a fee changed after signing
 * breaks the RingCT balance before the fee rule sees it).
 */
export function checkPoolTx(tx: Transaction, blobSize: number, weight: number, ctx: PoolTxContext, backend?: CryptoBackend): TxRuleError | undefined {
  if (blobSize > CRYPTONOTE_MAX_TX_SIZE) return txError("TOO_BIG", `blob of ${blobSize} bytes > ${CRYPTONOTE_MAX_TX_SIZE}`);
  const opts = { weight, weightLimit: ctx.blockWeightLimit, ...(backend ? { backend } : {}) };
  const core = checkTxCoreSemantics(tx, ctx.hfVersion, opts);
  if (core) return core;
  if (ctx.verifyRctSemantics && !ctx.verifyRctSemantics(tx)) return txError("RCT_SEMANTICS");
  // tx_memory_pool::add_tx: fee, weight, extra, then check_tx_outputs and check_tx_inputs
  const fee = tx.version >= 2 ? (tx.rct?.fee ?? 0n) : 0n;
  if (!checkFee(weight, fee, ctx.fee)) return txError("FEE_TOO_LOW", `fee ${fee}, needed ${requiredFee(weight, ctx.fee)} (less 2%)`);
  const limit = txWeightLimit(ctx.hfVersion);
  if (weight > limit) return txError("TOO_BIG", `weight ${weight} > pool limit ${limit}`);
  if (tx.extra.length > MAX_TX_EXTRA_SIZE) return txError("EXTRA_TOO_BIG", `${tx.extra.length} bytes`);
  return checkTxInputShape(tx, ctx.hfVersion, opts);
}
