/**
 * Two-sample Kolmogorov–Smirnov test: D = sup |F_a(x) − F_b(x)| over the two empirical CDFs, the
 * asymptotic critical value c(α)·√((n+m)/(n·m)) with c(α) = √(−ln(α/2)/2), and the asymptotic
 * p-value from the Kolmogorov distribution. Ties (discrete data) make the test conservative.
 */
export interface KsResult {
  d: number;
  critical: number;
  pValue: number;
  n: number;
  m: number;
}

export function ksTwoSample(a: readonly number[], b: readonly number[], alpha = 0.01): KsResult {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) throw new RangeError("ksTwoSample: both samples must be non-empty");
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < n && j < m) {
    // step past every value equal to the smaller head in both samples, then compare the CDFs
    const v = Math.min(x[i], y[j]);
    while (i < n && x[i] === v) i++;
    while (j < m && y[j] === v) j++;
    d = Math.max(d, Math.abs(i / n - j / m));
  }
  const ne = (n * m) / (n + m);
  const critical = Math.sqrt(-Math.log(alpha / 2) / 2) * Math.sqrt(1 / ne);
  const lambda = (Math.sqrt(ne) + 0.12 + 0.11 / Math.sqrt(ne)) * d;
  let p = 0;
  for (let k = 1; k <= 100; k++) {
    const term = 2 * (k % 2 === 1 ? 1 : -1) * Math.exp(-2 * k * k * lambda * lambda);
    p += term;
    if (Math.abs(term) < 1e-12) break;
  }
  return { d, critical, pValue: Math.min(1, Math.max(0, p)), n, m };
}
