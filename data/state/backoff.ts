/**
 * The delay before the next try of a loop whose last `failures` passes failed:
 * doubling from `baseMs`, capped at `capMs`, with ±20 % jitter so that processes
 * that lost the same server do not all come back in the same millisecond. The
 * cap bounds how long after a server returns the loop notices it.
 */
export function backoffDelay(
  failures: number,
  baseMs: number,
  capMs = 5_000,
  random: () => number = Math.random,
): number {
  if (failures <= 0) return baseMs;
  const plain = Math.min(capMs, baseMs * 2 ** Math.min(failures, 16));
  return Math.round(plain * (0.8 + 0.4 * random()));
}
