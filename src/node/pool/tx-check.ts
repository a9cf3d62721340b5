/**
 * Transaction checks shared by the pool (admission) and the chain (block txs): the fee context of
 * the next block, the chain inputs with the ring members' heights, and the RingCT verification
 * items handed to crypto/ringct's worker pool.
 */
import { type ChainView, checkTxInputsAgainstChain, type FeeContext, type NextBlockContext, txError, type TxRuleError } from "../../consensus/index.js";
import type { CryptoBackend } from "../../crypto/backend.js";
import { type CtKey, preMlsagHash, type RctVerifyItem } from "../../crypto/ringct/verify.js";
import { type Bytes, relativeToAbsoluteOffsets, serializeTransaction, type Transaction } from "../../protocol/tx.js";
import { txHashesFromBlob } from "../../protocol/tx-hash.js";
import { bytesToHex as hex } from "../../base/bytes.js";

export function bytesEqual(a: Bytes, b: Bytes): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** check_fee's chain state from the next block's context. */
export function feeContext(ctx: NextBlockContext): FeeContext {
  return {
    version: ctx.hfVersion,
    effectiveMedian: ctx.limits.effectiveMedian,
    longTermEffectiveMedian: ctx.limits.longTermEffectiveMedian,
    alreadyGeneratedCoins: ctx.alreadyGeneratedCoins,
  };
}

export function txKeyImages(tx: Transaction): Bytes[] {
  const out: Bytes[] = [];
  for (const i of tx.vin) if (i.type === "key") out.push(i.keyImage);
  return out;
}

/** Fee of a transaction (RingCT fee for v2; inputs − outputs is not computable for v1 pool txs here). */
export function txFeeOf(tx: Transaction): bigint {
  return tx.version >= 2 ? (tx.rct?.fee ?? 0n) : 0n;
}

export interface InputsChecked {
  /** Per input, its ring members (key, commitment). */
  rings: { key: Bytes; commitment: Bytes }[][];
  /** Height of the newest ring member (monerod's max_used_block_height). */
  maxUsedHeight: number;
}

/** checkTxInputsAgainstChain plus the newest ring member's height. */
export function checkInputs(tx: Transaction, view: ChainView, hfVersion: number, now: bigint): { ok: true; value: InputsChecked } | { ok: false; error: TxRuleError } {
  const r = checkTxInputsAgainstChain(tx, view, hfVersion, now);
  if (!r.ok) return r;
  let maxUsedHeight = 0;
  for (const input of tx.vin) {
    if (input.type !== "key") continue;
    const abs = relativeToAbsoluteOffsets(input.keyOffsets);
    const last = abs[abs.length - 1];
    const o = view.output(input.amount, last);
    if (o && o.height > maxUsedHeight) maxUsedHeight = o.height;
  }
  return { ok: true, value: { rings: r.rings, maxUsedHeight } };
}

/**
 * The RingCT verification item of a v2 transaction with its rings (undefined for txs without
 * RingCT signatures to check). `blob` is the full transaction blob.
 */
export function rctItem(tx: Transaction, blob: Bytes | undefined, rings: { key: Bytes; commitment: Bytes }[][], backend: CryptoBackend): RctVerifyItem | undefined {
  if (tx.version < 2 || !tx.rct || tx.rct.type === 0) return undefined;
  const full = blob ?? serializeTransaction(tx);
  const { layout, prefixHash } = txHashesFromBlob(full, backend);
  const message = preMlsagHash(backend, prefixHash, full.subarray(layout.prefixSize, layout.unprunableSize), tx.rct);
  const keyImages = tx.vin.map((i) => (i.type === "key" ? i.keyImage : new Uint8Array(32)));
  const mixRing: CtKey[][] = rings.map((r) => r.map((m) => ({ dest: m.key, mask: m.commitment })));
  return { rct: tx.rct, message, keyImages, mixRing };
}

/** A semantics-only item (range proofs + balance need no rings or message). */
export function rctSemanticsItem(tx: Transaction): RctVerifyItem | undefined {
  if (tx.version < 2 || !tx.rct || tx.rct.type === 0) return undefined;
  return { rct: tx.rct, message: new Uint8Array(32), keyImages: [], mixRing: [] };
}

/** The error monerod reports when a key image is already spent by a pool tx (only double_spend set). */
export function poolDoubleSpend(index: number, spender: Bytes): TxRuleError {
  const e = txError("KEY_IMAGE_SPENT", `input ${index}: key image already spent by pool tx ${hex(spender)}`, index);
  return { ...e, flags: ["double_spend"] };
}
