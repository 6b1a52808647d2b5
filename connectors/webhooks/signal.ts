/** A wake-up a loop can sleep on: `wait(ms)` ends early when `notify()` is called. */
export class Signal {
  private pending = false;
  private waiter: (() => void) | null = null;

  notify(): void {
    this.pending = true;
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  /** Resolves after `ms`, or at once if notified since the last wait. */
  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve();
      }, ms);
      this.waiter = () => {
        clearTimeout(timer);
        this.pending = false;
        resolve();
      };
    });
  }
}
