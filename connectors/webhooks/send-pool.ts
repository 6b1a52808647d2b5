import type { ClaimedDelivery } from './delivery.queries.js';

interface Queued {
  d: ClaimedDelivery;
  /** Claim order, so the longest-waiting claim starts first. */
  seq: number;
}

/**
 * Claimed deliveries waiting to be sent, per subscription, and the sends in
 * flight: at most `maxInFlight` in all and `perEndpoint` per subscription. A
 * freed slot goes to the oldest waiting claim whose subscription has room, so no
 * queue waits behind others' refills (its lease must outlast the wait).
 */
export class SendPool {
  private readonly queues = new Map<string, Queued[]>();
  private readonly active = new Map<string, number>();
  /** Claims per subscription, queued or in flight. */
  readonly heldBySubscription = new Map<string, number>();
  inFlight = 0;
  held = 0;
  private seq = 0;

  constructor(
    private readonly maxInFlight: number,
    private readonly perEndpoint: number,
    private readonly run: (d: ClaimedDelivery) => Promise<void>,
  ) {}

  add(claimed: readonly ClaimedDelivery[]): void {
    for (const d of claimed) {
      const q = this.queues.get(d.webhook_id) ?? [];
      q.push({ d, seq: this.seq++ });
      this.queues.set(d.webhook_id, q);
      this.heldBySubscription.set(d.webhook_id, (this.heldBySubscription.get(d.webhook_id) ?? 0) + 1);
      this.held++;
    }
    this.pump();
  }

  /** Empties the queues (on stop); answers what was never started. */
  takeQueued(): ClaimedDelivery[] {
    const all = [...this.queues.values()].flat().map((q) => q.d);
    this.queues.clear();
    for (const d of all) this.release(d.webhook_id);
    return all;
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight) {
      const next = this.oldestStartable();
      if (!next) return;
      const queue = this.queues.get(next)!;
      const { d } = queue.shift()!;
      if (queue.length === 0) this.queues.delete(next);
      this.inFlight++;
      this.active.set(next, (this.active.get(next) ?? 0) + 1);
      void this.run(d).finally(() => this.done(d));
    }
  }

  /** The subscription whose first waiting claim is oldest among those with a free slot. */
  private oldestStartable(): string | null {
    let best: string | null = null;
    let bestSeq = Infinity;
    for (const [id, queue] of this.queues) {
      const head = queue[0];
      if (head && head.seq < bestSeq && (this.active.get(id) ?? 0) < this.perEndpoint) {
        best = id;
        bestSeq = head.seq;
      }
    }
    return best;
  }

  private done(d: ClaimedDelivery): void {
    this.inFlight--;
    this.active.set(d.webhook_id, (this.active.get(d.webhook_id) ?? 1) - 1);
    this.release(d.webhook_id);
    this.pump();
  }

  private release(webhookId: string): void {
    this.held--;
    const n = (this.heldBySubscription.get(webhookId) ?? 1) - 1;
    if (n <= 0) this.heldBySubscription.delete(webhookId);
    else this.heldBySubscription.set(webhookId, n);
  }
}
