/** bench:e2e's summary statistics: nearest-rank percentiles, minimum, maximum and mean. */

export interface Summary {
  n: number;
  min: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest rank: with fewer than 100 samples, p99 is the maximum. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export function summary(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, min: sorted[0] ?? Number.NaN, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN, mean };
}
