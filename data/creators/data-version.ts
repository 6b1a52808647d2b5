/**
 * The current data version, looked up at most once per `checkMs` (concurrent
 * callers share one lookup), so hot paths can ask on every request.
 */
export class DataVersion {
  private value: string | null = null;
  private checkedAt = -Infinity;
  private pending: Promise<string> | null = null;

  constructor(
    private readonly read: () => Promise<string>,
    private readonly checkMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts the resets: a read begun before one is neither kept nor shared after it. */
  private generation = 0;

  get(): Promise<string> {
    if (this.value !== null && this.now() - this.checkedAt < this.checkMs) return Promise.resolve(this.value);
    if (this.pending) return this.pending;
    const generation = this.generation;
    const pending = this.read()
      .then((v) => {
        if (generation === this.generation) {
          this.value = v;
          this.checkedAt = this.now();
        }
        return v;
      })
      .finally(() => {
        if (this.pending === pending) this.pending = null;
      });
    this.pending = pending;
    return pending;
  }

  /**
   * Forgets the last value, and a read in progress: the next `get` reads again (a replica's store switched to a
   * new file answers its own version, not one read from the old file a moment before).
   */
  reset(): void {
    this.value = null;
    this.pending = null;
    this.generation += 1;
  }
}
