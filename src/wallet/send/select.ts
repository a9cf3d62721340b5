/**
 * Which outputs pay for which transactions, as wallet2 decides it (src/wallet/wallet2.cpp v0.18:
 * create_transactions_2 for transfers, create_transactions_all / create_transactions_single /
 * create_transactions_from for sweeps, pick_preferred_rct_inputs, pop_best_value_from,
 * get_output_relatedness, should_pick_a_second_output, get_num_outputs). The rules are wallet2's, so
 * input counts, output counts and fees of our transactions follow the same distribution as its.
 *
 * The planner only decides; building and measuring a candidate is the `trial` callback's job (its
 * weight is exact, see construct.ts `shapeOnly`). Errors are `SendError`s carrying wallet2's kind.
 */
import type { RandomSource } from "../../crypto/random.js";
import type { TransferDetails } from "../ledger/ledger.js";
import type { Destination } from "./construct.js";
import { estimateFee, estimateTxSize, estimateTxWeight, feeFromWeight, MAX_OUTPUTS, TX_WEIGHT_TARGET } from "./fee.js";
import { SendError } from "./errors.js";
import { RandomDraw } from "./random-draw.js";

/** DEFAULT_MIN_OUTPUT_COUNT / DEFAULT_MIN_OUTPUT_VALUE (2 XMR). */
const MIN_OUTPUT_COUNT = 5;
const MIN_OUTPUT_VALUE = 2_000_000_000_000n;

export interface TrialResult {
  weight: number;
  /** Change the trial transaction returns to the sender. */
  change: bigint;
}

export interface PlanContext {
  readonly transfers: readonly TransferDetails[];
  /** Spendable now: unspent, not frozen, key image known, unlocked, not reserved by a transfer in flight. */
  readonly spendable: (index: number) => boolean;
  readonly mixin: number;
  readonly baseFee: bigint;
  readonly quantizationMask: bigint;
  readonly extraSize: number;
  readonly rng: RandomSource;
  /** Builds the transaction's shape for these destinations, inputs and fee and measures it. */
  trial(dsts: readonly Destination[], selected: readonly number[], fee: bigint): Promise<TrialResult>;
  /** Unlocked balance of the account, for the error of an impossible transfer. */
  readonly unlockedBalance: bigint;
}

/** One planned transaction. */
export interface PlannedTx {
  selected: number[];
  dsts: Destination[];
  fee: bigint;
  weight: number;
  change: bigint;
}

/** get_output_relatedness. */
function relatedness(a: TransferDetails, b: TransferDetails): number {
  if (a.txid === b.txid) return 1;
  const dh = Math.abs(a.blockHeight - b.blockHeight);
  if (dh === 0) return 0.9;
  if (dh === 1) return 0.8;
  if (dh < 10) return 0.2;
  return 0;
}

/** pop_best_value_from: the least related to what is selected, the smallest or a random one of those. */
function popBestValue(ctx: PlanContext, unused: number[], selected: readonly number[], smallest = false): number {
  const t = ctx.transfers;
  let best = 1;
  let candidates: number[] = [];
  unused.forEach((idx, n) => {
    let r = 0;
    for (const s of selected) {
      const x = relatedness(t[idx], t[s]);
      if (x > r) r = x;
      if (r === 1) break;
    }
    if (r < best) {
      best = r;
      candidates = [];
    }
    if (r === best) candidates.push(n);
  });
  let pick: number;
  if (smallest) {
    pick = 0;
    for (let n = 0; n < candidates.length; n++) if (t[unused[candidates[n]]].amount < t[unused[candidates[pick]]].amount) pick = n;
  } else pick = new RandomDraw(ctx.rng).index(candidates.length); // crypto::rand_idx
  return unused.splice(candidates[pick], 1)[0];
}

const removeIfPresent = (a: number[], v: number): void => {
  const i = a.indexOf(v);
  if (i >= 0) a.splice(i, 1);
};

/** pick_preferred_rct_inputs: one output that covers the amount, else the least related pair. */
function pickPreferred(ctx: PlanContext, needed: bigint, account: number, minors: ReadonlySet<number>): number[] {
  const t = ctx.transfers;
  const ok = (i: number) => ctx.spendable(i) && t[i].rct && t[i].subaddress.major === account && minors.has(t[i].subaddress.minor);
  for (let i = 0; i < t.length; i++) if (ok(i) && t[i].amount >= needed) return [i];
  let picks: number[] = [];
  let current = 1;
  for (let i = 0; i < t.length; i++) {
    if (!ok(i)) continue;
    for (let j = i + 1; j < t.length; j++) {
      if (!ctx.spendable(j) || !t[j].rct || t[i].amount + t[j].amount < needed) continue;
      if (t[j].subaddress.major !== t[i].subaddress.major || t[j].subaddress.minor !== t[i].subaddress.minor) continue;
      const r = relatedness(t[i], t[j]);
      if (r < current) {
        picks = [i, j];
        if (r === 0) return picks;
        current = r;
      }
    }
  }
  return picks;
}

/** get_num_outputs: destinations, plus change when inputs ≠ destinations, at least 2. */
function numOutputs(ctx: PlanContext, dsts: readonly Destination[], selected: readonly number[]): number {
  let n = dsts.length;
  const needed = dsts.reduce((s, d) => s + d.amount, 0n);
  const found = selected.reduce((s, i) => s + ctx.transfers[i].amount, 0n);
  if (found !== needed) n++;
  if (n < 2) n++;
  return n;
}

/** The fractional threshold below which wallet2 ignores outputs (m_ignore_fractional_outputs). */
export function fractionalThreshold(ctx: Pick<PlanContext, "baseFee" | "mixin">): bigint {
  const one = estimateTxWeight(1, ctx.mixin, 2, 0);
  const two = estimateTxWeight(2, ctx.mixin, 2, 0);
  return ctx.baseFee * BigInt(two - one);
}

interface WorkTx {
  selected: number[];
  dsts: Destination[];
  /** Per entry of dsts: the fee is taken from it (subtract_fee_from_outputs). */
  subtractable: boolean[];
  planned: PlannedTx | null;
}

/**
 * TX::get_adjusted_dsts (wallet2 after v0.18.0.0): the fee taken from the subtractable destinations
 * in equal parts, rounded down, the remainder one unit at a time from the first ones.
 */
function adjustedDsts(tx: WorkTx, fee: bigint): Destination[] {
  const idx = tx.subtractable.flatMap((s, i) => (s ? [i] : []));
  if (idx.length === 0) return tx.dsts;
  const total = tx.dsts.reduce((a, d) => a + d.amount, 0n);
  const subtractable = idx.reduce((a, i) => a + tx.dsts[i].amount, 0n);
  if (subtractable < fee) throw new SendError("tx_not_possible", "tx not possible", { available: subtractable, needed: total, fee });
  const res = tx.dsts.map((d) => ({ ...d }));
  let remaining = fee;
  let k = 0;
  let each = 0n;
  while (remaining > 0n) {
    if (k === 0) each = remaining / BigInt(idx.length) > 1n ? remaining / BigInt(idx.length) : 1n;
    const d = res[idx[k]];
    if (d.amount <= each) throw new SendError("zero_amount", "destination amount is zero");
    remaining -= each;
    d.amount -= each;
    k = (k + 1) % idx.length;
  }
  return res;
}

const sameDest = (a: Destination, b: Destination) =>
  Buffer.compare(a.spendPublicKey, b.spendPublicKey) === 0 && Buffer.compare(a.viewPublicKey, b.viewPublicKey) === 0;

/**
 * create_transactions_2: pays `destinations` from `account` (its subaddresses `minors`, or all with a
 * balance when empty), splitting into several transactions when one would be too large.
 */
export async function planTransfer(
  ctx: PlanContext,
  destinations: readonly Destination[],
  account: number,
  minorsIn: readonly number[],
  balances: { balance: Map<number, bigint>; unlocked: Map<number, bigint> },
  subtractFeeFrom: ReadonlySet<number> = new Set(),
): Promise<PlannedTx[]> {
  const t = ctx.transfers;
  if (destinations.length === 0) throw new SendError("zero_destination", "transaction has no destination");
  const subtracting = subtractFeeFrom.size > 0;
  const maxIndex = Math.max(-1, ...subtractFeeFrom);
  if (maxIndex >= destinations.length) throw new SendError("subtract_fee_bad_index", `subtractfeefrom: bad index: ${maxIndex} (indexes are 0-based)`);
  if (subtracting && destinations.length > MAX_OUTPUTS - 1) throw new SendError("internal", "subtractfeefrom transfers cannot be split over multiple transactions yet");
  let neededMoney = 0n;
  for (const d of destinations) {
    if (d.amount === 0n) throw new SendError("zero_amount", "destination amount is zero");
    neededMoney += d.amount;
  }
  if (neededMoney >= 1n << 64n) throw new SendError("tx_sum_overflow", "transaction sum + fee exceeds 18446744.073709551615");
  const minors = new Set(minorsIn.length > 0 ? minorsIn : [...balances.balance.keys()]);

  const minFee = ctx.baseFee * BigInt(estimateTxSize(1, ctx.mixin, 2, ctx.extraSize));
  let balanceSub = 0n;
  let unlockedSub = 0n;
  for (const m of minors) {
    balanceSub += balances.balance.get(m) ?? 0n;
    unlockedSub += balances.unlocked.get(m) ?? 0n;
  }
  const feePart = subtracting ? 0n : minFee;
  if (neededMoney + feePart > balanceSub) throw new SendError("not_enough_money", "not enough money", { available: balanceSub, needed: neededMoney, fee: minFee });
  if (neededMoney + feePart > unlockedSub) throw new SendError("not_enough_unlocked_money", "not enough unlocked money", { available: unlockedSub, needed: neededMoney, fee: minFee });

  const threshold = fractionalThreshold(ctx);
  const perSub: { minor: number; idx: number[] }[] = [];
  for (let i = 0; i < t.length; i++) {
    const td = t[i];
    if (td.amount < threshold) continue;
    if (!ctx.spendable(i) || !td.rct || td.subaddress.major !== account || !minors.has(td.subaddress.minor)) continue;
    let g = perSub.find((x) => x.minor === td.subaddress.minor);
    if (!g) perSub.push((g = { minor: td.subaddress.minor, idx: [] }));
    g.idx.push(i);
  }
  // by unlocked balance of the subaddress, descending (std::sort, not stable: ties keep an arbitrary order)
  perSub.sort((x, y) => {
    const a = balances.unlocked.get(x.minor) ?? 0n;
    const b = balances.unlocked.get(y.minor) ?? 0n;
    return a > b ? -1 : a < b ? 1 : 0;
  });
  if (perSub.length === 0) return [];

  const dsts = destinations.map((d) => ({ ...d }));
  const txes: WorkTx[] = [{ selected: [], dsts: [], subtractable: [], planned: null }];
  let addingFee = false;
  let neededFee = 0n;
  let availableForFee = 0n;

  const estimatedFee = estimateFee(2, ctx.mixin, 2, ctx.extraSize, ctx.baseFee, ctx.quantizationMask);
  const preferred = pickPreferred(ctx, neededMoney + (subtracting ? 0n : estimatedFee), account, minors);
  if (preferred.length > 0) {
    const minor = t[preferred[0]].subaddress.minor;
    const at = perSub.findIndex((g) => g.minor === minor);
    if (at > 0) [perSub[0], perSub[at]] = [perSub[at], perSub[0]];
  }

  let originalOutputIndex = 0;
  let destinationIndex = 0; // index in the caller's destinations (subtract_fee_from_outputs refers to them)
  let unused = perSub[0].idx;
  const shouldPickSecond = (n: number) => n <= 1 && unused.some((i) => t[i].rct);

  while ((dsts.length > 0 && dsts[0].amount > 0n) || addingFee || preferred.length > 0 || shouldPickSecond(txes[txes.length - 1].selected.length)) {
    const tx = txes[txes.length - 1];
    if (unused.length === 0) {
      throw new SendError("tx_not_possible", "tx not possible", { available: ctx.unlockedBalance, needed: neededMoney, fee: neededFee });
    }
    let idx: number;
    if (preferred.length > 0) {
      idx = preferred.pop() as number;
      removeIfPresent(unused, idx);
    } else if ((dsts.length === 0 || dsts[0].amount === 0n) && !addingFee) {
      // the "make rct txes 2/2" case: a small output, only if unrelated and we are not running out of big ones
      const pool = unused.filter((i) => t[i].rct);
      idx = popBestValue(ctx, pool, tx.selected, true);
      if (t[idx].amount >= MIN_OUTPUT_VALUE && unused.filter((i) => t[i].amount >= MIN_OUTPUT_VALUE).length < MIN_OUTPUT_COUNT) break;
      if (relatedness(t[idx], t[tx.selected[0]]) > 0) break;
      removeIfPresent(unused, idx);
    } else idx = popBestValue(ctx, unused, tx.selected);

    tx.selected.push(idx);
    let available = t[idx].amount;
    let slotsExhausted = false;
    const weightWithOneMore = () => estimateTxWeight(tx.selected.length, ctx.mixin, tx.dsts.length + 1, ctx.extraSize);
    if (addingFee) availableForFee += available;
    else {
      while (dsts.length > 0 && dsts[0].amount <= available && weightWithOneMore() < TX_WEIGHT_TARGET) {
        if (!addTo(tx, dsts[0], dsts[0].amount, originalOutputIndex, subtractFeeFrom.has(destinationIndex))) {
          slotsExhausted = true;
          break;
        }
        available -= dsts[0].amount;
        dsts.shift();
        originalOutputIndex++;
        destinationIndex++;
      }
      if (!slotsExhausted && available > 0n && dsts.length > 0 && weightWithOneMore() < TX_WEIGHT_TARGET) {
        if (addTo(tx, dsts[0], available, originalOutputIndex, subtractFeeFrom.has(destinationIndex))) dsts[0].amount -= available;
        else slotsExhausted = true;
      }
    }

    let tryTx = false;
    if (slotsExhausted) tryTx = true;
    else if (preferred.length === 0) {
      if (addingFee) tryTx = availableForFee >= neededFee;
      else {
        const w = weightWithOneMore();
        tryTx = dsts.length === 0 || w >= TX_WEIGHT_TARGET;
        if (tryTx && tx.dsts.length === 0) throw new SendError("tx_too_big", "transaction would be too big", { weight: w, limit: TX_WEIGHT_TARGET });
      }
    }

    if (tryTx) {
      neededFee = estimateFee(tx.selected.length, ctx.mixin, numOutputs(ctx, tx.dsts, tx.selected), ctx.extraSize, ctx.baseFee, ctx.quantizationMask);
      const carve = (needed: bigint, avail: bigint): bigint => {
        // take the fee from a partial payment, since another tx pays the rest anyway
        if (needed > avail && dsts.length > 0 && dsts[0].amount > 0n && tx.dsts.length > originalOutputIndex) {
          const paid = tx.dsts.find((d) => sameDest(d, dsts[0]));
          if (!paid) throw new Error("paid address not found in outputs");
          if (paid.amount > needed) {
            const newPaid = paid.amount - needed;
            dsts[0].amount += paid.amount - newPaid;
            paid.amount = newPaid;
            return needed;
          }
        }
        return avail;
      };
      availableForFee = carve(neededFee, availableForFee);
      const inputs = tx.selected.reduce((s, i) => s + t[i].amount, 0n);
      const outputs = tx.dsts.reduce((s, d) => s + d.amount, subtracting ? 0n : neededFee);
      if (inputs < outputs) addingFee = true;
      else {
        let r = await ctx.trial(adjustedDsts(tx, neededFee), tx.selected, neededFee);
        let fee = neededFee;
        neededFee = feeFromWeight(ctx.baseFee, r.weight, ctx.quantizationMask);
        // the fee comes from the subtractable destinations when the tx has some, else from change
        const fromOutputs = tx.subtractable.some((x) => x) ? tx.dsts.reduce((a, d, i) => (tx.subtractable[i] ? a + d.amount : a), 0n) : r.change;
        availableForFee = carve(neededFee, fee + fromOutputs);
        if (neededFee > availableForFee) addingFee = true;
        else {
          let tries = 0;
          let paid = adjustedDsts(tx, fee);
          while (neededFee > fee) {
            if (++tries >= 10) throw new SendError("internal", "Too many attempts to raise pending tx fee to level of needed fee");
            fee = neededFee;
            paid = adjustedDsts(tx, fee);
            r = await ctx.trial(paid, tx.selected, fee);
            neededFee = feeFromWeight(ctx.baseFee, r.weight, ctx.quantizationMask);
          }
          tx.planned = { selected: [...tx.selected], dsts: paid.map((d) => ({ ...d })), fee, weight: r.weight, change: r.change };
          addingFee = false;
          if (dsts.length > 0) {
            txes.push({ selected: [], dsts: [], subtractable: [], planned: null });
            originalOutputIndex = 0;
          }
        }
      }
    }

    if ((dsts.length > 0 && dsts[0].amount > 0n) || addingFee) {
      if (unused.length === 0 && perSub.length > 1) {
        perSub.shift();
        unused = perSub[0].idx;
      }
    }
  }
  if (addingFee) throw new SendError("tx_not_possible", "tx not possible", { available: ctx.unlockedBalance, needed: neededMoney, fee: neededFee });
  const out: PlannedTx[] = [];
  for (const tx of txes) if (tx.planned) out.push(tx.planned);
  if (subtracting && out.length !== 1) throw new SendError("internal", "Subtracting fee from outputs with more than one transaction is not supported");
  return out;
}

/** TX::add without merging destinations (m_merge_destinations is false). */
function addTo(tx: WorkTx, de: Destination, amount: bigint, originalIndex: number, subtractable: boolean): boolean {
  if (originalIndex === tx.dsts.length) {
    if (tx.dsts.length >= MAX_OUTPUTS - 1) return false;
    tx.dsts.push({ ...de, amount: 0n });
    tx.subtractable.push(subtractable);
  }
  const d = tx.dsts[originalIndex];
  if (!d || !sameDest(d, de)) throw new Error("mismatched destination address");
  d.amount += amount;
  return true;
}

/**
 * create_transactions_from: sweeps `transfers` (indices) to one address in `outputs` equal parts,
 * as many transactions as the weight target needs.
 */
export async function planSweep(ctx: PlanContext, indices: readonly number[], dest: Omit<Destination, "amount">, outputs: number): Promise<PlannedTx[]> {
  const t = ctx.transfers;
  const unused = [...indices];
  const planned: PlannedTx[] = [];
  let tx: WorkTx = { selected: [], dsts: [], subtractable: [], planned: null };
  while (unused.length > 0) {
    const idx = popBestValue(ctx, unused, tx.selected);
    tx.selected.push(idx);
    const w = estimateTxWeight(tx.selected.length, ctx.mixin, tx.dsts.length + 2, ctx.extraSize);
    if (unused.length > 0 && w < TX_WEIGHT_TARGET) continue;
    // add N − 1 outputs for the first estimate, then the last one
    for (let i = 0; i < (outputs > 1 ? outputs - 1 : outputs); i++) tx.dsts.push({ ...dest, amount: 1n });
    let fee = estimateFee(tx.selected.length, ctx.mixin, numOutputs(ctx, tx.dsts, tx.selected), ctx.extraSize, ctx.baseFee, ctx.quantizationMask);
    let r = await ctx.trial(tx.dsts, tx.selected, fee);
    let needed = feeFromWeight(ctx.baseFee, r.weight, ctx.quantizationMask);
    const available = fee + r.change + tx.dsts.reduce((s, d) => s + d.amount, 0n);
    if (outputs > 1) tx.dsts.push({ ...dest, amount: 1n });
    if (needed > available) throw new SendError("tx_not_possible", "Transaction cannot pay for itself", { available, needed: 0n, fee: needed });
    do {
      fee = needed;
      const transferred = available - fee;
      const each = transferred / BigInt(outputs);
      let residue = transferred % BigInt(outputs);
      for (const d of tx.dsts) {
        d.amount = each + (residue > 0n ? 1n : 0n);
        if (residue > 0n) residue--;
      }
      r = await ctx.trial(tx.dsts, tx.selected, fee);
      needed = feeFromWeight(ctx.baseFee, r.weight, ctx.quantizationMask);
    } while (needed > fee);
    planned.push({ selected: [...tx.selected], dsts: tx.dsts.map((d) => ({ ...d })), fee, weight: r.weight, change: r.change });
    tx = { selected: [], dsts: [], subtractable: [], planned: null };
  }
  void t;
  return planned;
}
