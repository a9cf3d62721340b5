/**
 * Small statistics and number-formatting helpers shared by the bench suites.
 * Pure functions, no timing: they are unit-tested in test/bench-lib.test.ts.
 */

/** The q-quantile (0 ≤ q ≤ 1) of the values, linearly interpolated between order statistics. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new RangeError("quantile of an empty list");
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile q must be in [0, 1], got ${q}`);
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

/** The median (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Arithmetic mean. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("mean of an empty list");
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Interquartile range relative to the median (0.05 = the middle half spans ±2.5 %): a noise indicator. */
export function relativeSpread(values: readonly number[]): number {
  const m = median(values);
  if (m === 0) return 0;
  return (quantile(values, 0.75) - quantile(values, 0.25)) / m;
}

/**
 * A duration in µs with about three significant digits and no exponent:
 * 8213 → "8213", 97.53 → "97.5", 7.066 → "7.07", 0.3604 → "0.360", 0.04071 → "0.0407".
 */
export function formatMicros(us: number): string {
  if (!Number.isFinite(us)) return String(us);
  const a = Math.abs(us);
  if (a >= 100) return us.toFixed(0);
  if (a >= 10) return us.toFixed(1);
  if (a >= 1) return us.toFixed(2);
  if (a >= 0.1) return us.toFixed(3);
  if (a >= 0.01) return us.toFixed(4);
  return us.toPrecision(2);
}

/** A ratio such as kernel/Monero: "0.93", "1.20", "14.3", "312". */
export function formatRatio(r: number): string {
  if (!Number.isFinite(r)) return String(r);
  if (r >= 100) return r.toFixed(0);
  if (r >= 10) return r.toFixed(1);
  return r.toFixed(2);
}

/** A call count in compact form: 10000000 → "1e7", 25000 → "2.5e4", 1000 → "1000". */
export function formatCount(n: number): string {
  if (n < 10000) return String(n);
  const exp = Math.floor(Math.log10(n));
  const mant = n / 10 ** exp;
  const m = Number.isInteger(mant) ? String(mant) : mant.toFixed(1).replace(/\.0$/, "");
  return `${m}e${exp}`;
}
