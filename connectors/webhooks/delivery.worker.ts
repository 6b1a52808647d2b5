import type { Logger } from '../../config/logger.js';
import type { Store } from '../../data/store.js';
import { WebhookClient, type SendResult } from './client.js';
import type { WebhookWorkerOptions } from './config.js';
import { claimDue, pruneBefore, releaseClaims, type AttemptRecord, type ClaimedDelivery } from './delivery.queries.js';
import { fanOut } from './fan-out.js';
import { deliveryBody, signingSecrets } from './payload.js';
import { recordOutcomes } from './record-outcomes.js';
import { nextRetryDelayMs } from './retry-policy.js';
import { signedHeaders } from './signing.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Delivers the outbox: fans new events out into deliveries, leases due ones,
 * sends them with bounded concurrency per subscription and records every attempt.
 * All state lives in the store, so a crash at any point loses nothing: a lease
 * that runs out is retried, with the same delivery id (`webhook-id`).
 */
export class DeliveryWorker {
  readonly name = 'webhooks';
  private readonly client: WebhookClient;
  /** Claimed deliveries per subscription: queued here or in flight. */
  private readonly held = new Map<string, number>();
  private readonly queues = new Map<string, ClaimedDelivery[]>();
  private readonly inFlight = new Map<string, number>();
  private results: AttemptRecord[] = [];
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private lastPrune = 0;

  constructor(private readonly store: Store, private readonly options: WebhookWorkerOptions, private readonly logger?: Logger) {
    this.client = new WebhookClient({ timeoutMs: options.timeoutMs, allow: options.allow, rejectUnauthorized: options.rejectUnauthorized });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming, lets sends in flight finish and records them; queued claims are handed back. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    this.client.close();
  }

  /** Looks at the outbox now instead of at the next poll (e.g. right after an event is written). */
  wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  /** One pass: prune when due, fan out, claim, flush finished attempts. Answers whether it found work. */
  async tick(): Promise<boolean> {
    const now = Date.now();
    if (now - this.lastPrune >= this.options.pruneEveryMs) await this.prune(now);
    const fanned = await fanOut(this.store, this.options.fanOutBatch);
    const claimed = await this.claim();
    const flushed = await this.flush();
    return fanned > 0 || claimed > 0 || flushed > 0;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const busy = await this.tick().catch((error: unknown) => {
        this.logger?.error({ err: error }, 'webhook worker pass failed');
        return false;
      });
      if (!busy && this.running) await this.sleep(this.options.pollMs);
    }
    await this.drain();
  }

  private async drain(): Promise<void> {
    const queued = [...this.queues.values()].flat();
    this.queues.clear();
    await releaseClaims(this.store, queued.map((d) => ({ id: d.delivery_id, attempt: d.attempts })), iso(Date.now()))
      .catch((error: unknown) => this.logger?.warn({ err: error }, 'could not release webhook claims'));
    while ([...this.inFlight.values()].some((n) => n > 0)) await this.sleep(50);
    await this.flush().catch((error: unknown) => this.logger?.error({ err: error }, 'could not record webhook attempts'));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wakeUp = null; resolve(); }, ms);
      this.wakeUp = () => { clearTimeout(timer); resolve(); };
    });
  }

  /** Claims up to twice the concurrency, so the next sends are ready when a slot frees. */
  private async claim(): Promise<number> {
    const heldTotal = [...this.held.values()].reduce((a, b) => a + b, 0);
    const limit = 2 * this.options.maxInFlight - heldTotal;
    if (limit <= 0 || !this.running) return 0;
    const now = Date.now();
    const claimed = await claimDue(this.store, {
      now: iso(now), leaseUntil: iso(now + this.options.leaseMs), limit,
      perEndpointCap: 2 * this.options.perEndpoint, held: this.held,
    });
    for (const d of claimed) {
      this.held.set(d.webhook_id, (this.held.get(d.webhook_id) ?? 0) + 1);
      const q = this.queues.get(d.webhook_id) ?? [];
      q.push(d);
      this.queues.set(d.webhook_id, q);
    }
    for (const webhookId of new Set(claimed.map((d) => d.webhook_id))) this.pump(webhookId);
    return claimed.length;
  }

  /** Starts queued sends of one subscription while it has free slots. */
  private pump(webhookId: string): void {
    const queue = this.queues.get(webhookId);
    while (queue && queue.length > 0 && this.totalInFlight() < this.options.maxInFlight
      && (this.inFlight.get(webhookId) ?? 0) < this.options.perEndpoint) {
      const delivery = queue.shift()!;
      this.inFlight.set(webhookId, (this.inFlight.get(webhookId) ?? 0) + 1);
      void this.send(delivery);
    }
    if (queue?.length === 0) this.queues.delete(webhookId);
  }

  private totalInFlight(): number {
    let n = 0;
    for (const v of this.inFlight.values()) n += v;
    return n;
  }

  private async send(d: ClaimedDelivery): Promise<void> {
    const startedAt = Date.now();
    const body = deliveryBody(d.type, d.created_at, d.payload);
    const secrets = signingSecrets(d.secret, d.previous_secret, d.previous_secret_expires_at, startedAt);
    const headers = signedHeaders(secrets, d.delivery_id, Math.floor(startedAt / 1000), body);
    const result = await this.client.send({ url: d.url, body, headers });
    this.results.push(this.toRecord(d, startedAt, result));
    this.inFlight.set(d.webhook_id, (this.inFlight.get(d.webhook_id) ?? 1) - 1);
    this.held.set(d.webhook_id, (this.held.get(d.webhook_id) ?? 1) - 1);
    if (this.held.get(d.webhook_id) === 0) this.held.delete(d.webhook_id);
    if (this.running) {
      for (const id of [d.webhook_id, ...this.queues.keys()]) this.pump(id);
    }
    this.wake();
  }

  private toRecord(d: ClaimedDelivery, startedAt: number, { outcome, latencyMs }: SendResult): AttemptRecord {
    const base = { id: d.delivery_id, webhook_id: d.webhook_id, attempt: d.attempts, started: iso(startedAt), latency: latencyMs };
    if (outcome.kind === 'success') return { ...base, code: outcome.statusCode, err: null, status: 'succeeded', next_at: null };
    const retryAfter = outcome.kind === 'transient' ? outcome.retryAfterSeconds : null;
    const delay = outcome.kind === 'transient' ? nextRetryDelayMs(d.attempts, this.options.retryScheduleSeconds, retryAfter) : null;
    return {
      ...base, code: outcome.statusCode, err: outcome.error,
      status: delay === null ? 'failed' : 'pending',
      next_at: delay === null ? null : iso(Date.now() + delay),
    };
  }

  /** Records every finished attempt since the last flush in one transaction. */
  private async flush(): Promise<number> {
    if (this.results.length === 0) return 0;
    const batch = this.results;
    this.results = [];
    try {
      await recordOutcomes(this.store, batch, Date.now());
    } catch (error) {
      this.results = batch.concat(this.results);
      throw error;
    }
    return batch.length;
  }

  private async prune(now: number): Promise<void> {
    this.lastPrune = now;
    const removed = await pruneBefore(this.store, iso(now - this.options.retentionDays * 86_400_000));
    if (removed > 0) this.logger?.info({ events: removed }, 'pruned old webhook events and delivery logs');
  }
}
