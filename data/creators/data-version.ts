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

  get(): Promise<string> {
    if (this.value !== null && this.now() - this.checkedAt < this.checkMs) return Promise.resolve(this.value);
    this.pending ??= this.read()
      .then((v) => {
        this.value = v;
        this.checkedAt = this.now();
        return v;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  /** Forgets the last value: the next `get` reads again. */
  reset(): void {
    this.value = null;
  }
}
