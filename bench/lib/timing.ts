/**
 * Micro-benchmark timing: warm up, then K batches of N calls, reporting the median per-call time.
 *
 * The operation is a closure `op(i)` that is handed the call index, so callers can cycle through
 * a pool of pre-generated inputs (`pool[i & mask]`) without allocating in the loop. Whatever the
 * closure returns is stored in a module-level sink so the JIT cannot drop the call.
 */
import { median, relativeSpread } from "./stats.js";

/** How long and how often to measure. */
export interface TimingOptions {
  /** Warm-up budget (JIT, caches); the first calls also estimate the per-call cost. Default 60 ms. */
  warmupMs: number;
  /**
   * Target length of one batch; N is chosen to fill it. Default 2 ms: shorter than the scheduler's
   * slices, so on a shared machine most batches run unpreempted and the median reflects the op,
   * not the load (a 10 ms batch would absorb every other process's slices).
   */
  batchMs: number;
  /** Number of batches K when the budget allows. Default 41. */
  batches: number;
  /** Never fewer batches than this, even for slow operations. Default 5. */
  minBatches: number;
  /** Budget for the batches of one measurement; K is reduced (down to minBatches) to fit it. Default 1500 ms. */
  budgetMs: number;
}

export const DEFAULT_TIMING: TimingOptions = {
  warmupMs: 60,
  batchMs: 2,
  batches: 41,
  minBatches: 5,
  budgetMs: 1500,
};

/** A quick profile for smoke runs (`--quick`): numbers are noisier. */
export const QUICK_TIMING: TimingOptions = {
  warmupMs: 10,
  batchMs: 2,
  batches: 5,
  minBatches: 3,
  budgetMs: 200,
};

/** The result of timing one operation. */
export interface Timing {
  /** Median over the batches of the per-call time, µs. */
  usPerOp: number;
  /** Per-call time of each batch, µs, in run order. */
  batchUs: number[];
  /** Calls per batch (N). */
  callsPerBatch: number;
  /** Interquartile range of the batch figures relative to the median (noise indicator). */
  spread: number;
}

/** Either a timing or the reason the operation could not be timed (it threw). */
export type TimingResult = { ok: true; timing: Timing } | { ok: false; error: string };

let sink: unknown;

/** Keeps the last result alive so the calls cannot be optimised away. Exposed for tests. */
export function lastSink(): unknown {
  return sink;
}

function runBatch(op: (i: number) => unknown, n: number, start: number): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink = op(start + i);
  return Number(process.hrtime.bigint() - t0);
}

/** Chooses the batch size N and count K from an estimated per-call cost (ns). */
export function planBatches(estNs: number, o: TimingOptions): { n: number; k: number } {
  const per = Math.max(estNs, 1);
  const n = Math.max(1, Math.round((o.batchMs * 1e6) / per));
  const fit = Math.floor((o.budgetMs * 1e6) / (n * per));
  const k = Math.min(o.batches, Math.max(o.minBatches, fit));
  return { n, k };
}

/**
 * Times `op`: warm-up by doubling runs until `warmupMs` is spent (which also estimates the cost),
 * then K batches of N calls; the figure is the median batch's per-call time.
 * An exception from `op` at any point yields `{ ok: false }` with its message.
 */
export function timeOp(op: (i: number) => unknown, options: Partial<TimingOptions> = {}): TimingResult {
  const o: TimingOptions = { ...DEFAULT_TIMING, ...options };
  try {
    let calls = 0;
    let spentNs = 0;
    let n = 1;
    let estNs = 0;
    while (spentNs < o.warmupMs * 1e6) {
      const ns = runBatch(op, n, calls);
      calls += n;
      spentNs += ns;
      estNs = ns / n;
      n *= 2;
    }
    const plan = planBatches(estNs, o);
    const batchUs: number[] = [];
    for (let b = 0; b < plan.k; b++) {
      const ns = runBatch(op, plan.n, calls);
      calls += plan.n;
      batchUs.push(ns / plan.n / 1000);
    }
    return {
      ok: true,
      timing: { usPerOp: median(batchUs), batchUs, callsPerBatch: plan.n, spread: relativeSpread(batchUs) },
    };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}
