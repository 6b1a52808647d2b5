/**
 * The value at quantile `q` (0–1) of `values` by nearest rank (the lower one):
 * what every bench figure and drill reports as p50 / p99. `empty` when there are no values.
 */
export function percentile(values: readonly number[], q: number, empty = Number.NaN): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? empty;
}

/** The median of repeated runs (the upper middle for an even count, as `percentile(…, 0.5)`). */
export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

/** Peak resident set size of this process so far, MB (what every bench row reports as peak RSS). */
export function maxRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
