/** Past this share of `checkMs`, a value still served starts the next read in the background. */
const READ_AHEAD = 0.75;

/**
 * The current data version, looked up at most once per `checkMs` (concurrent
 * callers share one lookup), so hot paths can ask on every request. A value is
 * served for `checkMs` from when its read began; past three quarters of that,
 * a caller still gets it at once and the next read starts in the background,
 * so steady traffic never waits for one (at 10M creators a read takes about
 * 7 ms, and one request a second used to wait for it).
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
    const age = this.now() - this.checkedAt;
    if (this.value !== null && age < this.checkMs) {
      // a failed read ahead is nobody's error yet: the caller that needs a new value reads again
      if (age >= this.checkMs * READ_AHEAD && !this.pending) this.begin().catch(() => undefined);
      return Promise.resolve(this.value);
    }
    return this.pending ?? this.begin();
  }

  /** Starts a read, shared by the callers until it ends; its value counts from its start. */
  private begin(): Promise<string> {
    const generation = this.generation;
    const started = this.now();
    const pending = this.read()
      .then((v) => {
        if (generation === this.generation) {
          this.value = v;
          this.checkedAt = started;
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
