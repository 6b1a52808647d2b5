import type { Logger } from '../../config/logger.js';
import { backoffDelay } from '../../data/state/backoff.js';
import type { StateDb } from '../../data/state/state-db.js';
import { claimDue } from './claim.js';
import { WebhookClient, type SendResult } from './client.js';
import type { WebhookWorkerOptions } from './config.js';
import {
  loadForSending,
  pruneBefore,
  releaseClaims,
  type AttemptRecord,
  type ClaimedDelivery,
} from './delivery.queries.js';
import { fanOut } from './fan-out.js';
import type { FanOutLease } from './fan-out.queries.js';
import { deliveryBody, signingSecrets } from './payload.js';
import { recordOutcomes } from './record-outcomes.js';
import { nextRetryDelayMs } from './retry-policy.js';
import { Signal } from './signal.js';
import { SendPool } from './send-pool.js';
import { SecretUnreadableError } from './secret-box.js';
import { signedHeaders } from './signing.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Longest a finished attempt waits to be recorded with others. */
const FLUSH_WAIT_MS = 20;

/**
 * Delivers the outbox: fans new events out into deliveries, leases due ones,
 * sends them with bounded concurrency per subscription and records every attempt.
 * It needs only the service state (a cluster's webhook process opens no DuckDB
 * store), and all of it lives there, so a crash at any point loses nothing: a
 * lease that runs out is retried, with the same delivery id (`webhook-id`).
 * Several workers may share one PostgreSQL state: leases and fan-out are safe to race.
 * Claiming and recording run as two loops so neither waits for the other.
 */
export class DeliveryWorker {
  readonly name = 'webhooks';
  private readonly client: WebhookClient;
  private readonly sends: SendPool;
  private results: AttemptRecord[] = [];
  private firstResultAt = 0;
  private readonly claimSignal = new Signal();
  private readonly flushSignal = new Signal();
  private running = false;
  private loops: Promise<void>[] = [];
  private lastPrune = 0;
  private lastFanOut = 0;
  private lastSweep = 0;
  /** Subscriptions that may have a failing streak running (see recordOutcomes). */
  private readonly maybeFailing = new Set<string>();

  constructor(
    private readonly state: StateDb,
    private readonly options: WebhookWorkerOptions,
    private readonly logger?: Logger,
  ) {
    this.client = new WebhookClient({
      timeoutMs: options.timeoutMs,
      allow: options.allow,
      rejectUnauthorized: options.rejectUnauthorized,
    });
    this.sends = new SendPool(options.maxInFlight, options.perEndpoint, (d) => this.send(d));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = [this.claimLoop(), this.flushLoop()];
  }

  /** Stops claiming, lets sends in flight finish and records them; claims not yet sent are handed back. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.claimSignal.notify();
    this.flushSignal.notify();
    await Promise.all(this.loops);
    this.client.close();
  }

  /** Looks at the outbox now instead of at the next poll (e.g. right after an event is written). */
  wake(): void {
    this.lastFanOut = 0;
    this.claimSignal.notify();
  }

  private async claimLoop(): Promise<void> {
    let failures = 0;
    while (this.running) {
      const found = await this.claimPass().then(
        (claimed) => {
          failures = 0;
          return claimed;
        },
        (error: unknown) => {
          failures += 1;
          // the state away (PostgreSQL restarting): said once, then the passes back off up to 5 s
          if (failures === 1)
            this.logger?.error({ err: error }, 'webhook claim pass failed; backing off while it keeps failing');
          else this.logger?.debug({ err: error, failures }, 'webhook claim pass failed again');
          return false;
        },
      );
      if (!found && this.running) await this.claimSignal.wait(backoffDelay(failures, this.options.pollMs));
    }
    const unsent = this.sends.takeQueued();
    await releaseClaims(
      this.state,
      unsent.map((d) => ({ id: d.delivery_id, attempt: d.attempts })),
      iso(Date.now()),
    ).catch((error: unknown) => this.logger?.warn({ err: error }, 'could not release webhook claims'));
  }

  /**
   * Records finished attempts in batches: it waits briefly (up to FLUSH_WAIT_MS) for
   * a quarter of the concurrency to finish, since each write's fixed cost dwarfs its per-row cost.
   */
  private async flushLoop(): Promise<void> {
    while (this.running || this.sends.inFlight > 0 || this.results.length > 0) {
      const waitMs = this.flushWaitMs();
      if (waitMs > 0) {
        await this.flushSignal.wait(waitMs);
        continue;
      }
      const ok = await this.flush().then(
        () => true,
        (error: unknown) => {
          this.logger?.error({ err: error }, 'could not record webhook attempts; will retry');
          return false;
        },
      );
      // Stopping with a state that will not take the records: leave them; their leases run out and they are sent again.
      if (!ok && !this.running) break;
      if (!ok) await new Promise((r) => setTimeout(r, this.options.pollMs));
    }
  }

  /** How long to wait before flushing: 0 to flush now. */
  private flushWaitMs(): number {
    if (this.results.length === 0) return this.running ? this.options.pollMs : 20;
    const age = Date.now() - this.firstResultAt;
    if (!this.running || this.results.length >= this.options.maxInFlight / 4 || age >= FLUSH_WAIT_MS) return 0;
    return FLUSH_WAIT_MS - age;
  }

  /** Prune when due, fan out new events, claim what there is room for. Answers whether it claimed anything. */
  private async claimPass(): Promise<boolean> {
    const now = Date.now();
    if (now - this.lastPrune >= this.options.pruneEveryMs) await this.prune(now);
    // New events are looked for once per poll interval (not on every claim of a busy loop), and at once
    // again while the outbox gives full batches.
    let fanned = 0;
    if (now - this.lastFanOut >= this.options.pollMs) {
      this.lastFanOut = now;
      const result = await fanOut(this.state, this.options.fanOutBatch, this.fanOutLease(now));
      fanned = result.events;
      if (fanned >= this.options.fanOutBatch) this.lastFanOut = 0;
      if (result.leased.length > 0) await this.accept(await loadForSending(this.state, result.leased));
    }
    return (await this.claim(now)) > 0 || fanned >= this.options.fanOutBatch;
  }

  /** How many new deliveries the fan-out may hand straight to this worker (first attempts need no separate claim). */
  private fanOutLease(now: number): FanOutLease | null {
    const limit = this.options.prefetch * this.options.maxInFlight - this.sends.held;
    if (limit <= 0 || !this.running) return null;
    return {
      leaseUntil: iso(now + this.options.leaseMs),
      limit,
      cap: this.options.prefetch * this.options.perEndpoint,
      held: this.sends.heldBySubscription,
    };
  }

  /** Takes claimed deliveries into the send pool; after stop, hands them back instead. */
  private async accept(claimed: ClaimedDelivery[]): Promise<void> {
    for (const d of claimed) if (d.failing_since) this.maybeFailing.add(d.webhook_id);
    if (this.running) this.sends.add(claimed);
    else
      await releaseClaims(
        this.state,
        claimed.map((d) => ({ id: d.delivery_id, attempt: d.attempts })),
        iso(Date.now()),
      );
  }

  /** Claims up to `prefetch` times the concurrency, so the next sends are ready as slots free up. */
  private async claim(now: number): Promise<number> {
    const limit = this.options.prefetch * this.options.maxInFlight - this.sends.held;
    // With sends queued, wait until there is room for a sizeable batch: claims cost per statement, not per row.
    if (limit <= 0 || (this.sends.held > this.options.maxInFlight && limit < this.options.maxInFlight / 2)) return 0;
    const sweepExpired = now - this.lastSweep >= this.options.leaseMs / 4;
    if (sweepExpired) this.lastSweep = now;
    const claimed = await claimDue(this.state, {
      now,
      leaseMs: this.options.leaseMs,
      limit,
      perEndpointCap: this.options.prefetch * this.options.perEndpoint,
      held: this.sends.heldBySubscription,
      sweepExpired,
    });
    await this.accept(claimed);
    return claimed.length;
  }

  private async send(d: ClaimedDelivery): Promise<void> {
    const startedAt = Date.now();
    try {
      const body = deliveryBody(d.type, d.created_at, d.payload);
      const secrets = this.openSecrets(d, startedAt);
      const result =
        secrets instanceof SecretUnreadableError
          ? ({
              outcome: { kind: 'transient', statusCode: null, error: secrets.message, retryAfterSeconds: null },
              latencyMs: 0,
            } as const)
          : await this.client.send({
              url: d.url,
              body,
              headers: signedHeaders(secrets, d.delivery_id, Math.floor(startedAt / 1000), body),
            });
      if (this.results.length === 0) this.firstResultAt = Date.now();
      this.results.push(this.toRecord(d, startedAt, result));
    } catch (error) {
      // Not a receiver's failure but ours (a bug): leave the lease to run out so the delivery is retried.
      this.logger?.error({ err: error, delivery_id: d.delivery_id }, 'webhook send failed unexpectedly');
    }
    this.flushSignal.notify();
    this.claimSignal.notify();
  }

  /**
   * The secrets that sign this delivery, opened from their sealed form. A key that no
   * longer opens them is an attempt that failed (in the delivery log, retried on the
   * schedule, so restoring the key resumes delivery), never an unsigned send.
   */
  private openSecrets(d: ClaimedDelivery, now: number): string[] | SecretUnreadableError {
    const box = this.options.secrets;
    try {
      return signingSecrets(
        box.open(d.secret, d.webhook_id),
        d.previous_secret && box.open(d.previous_secret, d.webhook_id),
        d.previous_secret_expires_at,
        now,
      );
    } catch (error) {
      if (error instanceof SecretUnreadableError) return error;
      throw error;
    }
  }

  private toRecord(d: ClaimedDelivery, startedAt: number, { outcome, latencyMs }: SendResult): AttemptRecord {
    const base = {
      id: d.delivery_id,
      webhook_id: d.webhook_id,
      attempt: d.attempts,
      started: iso(startedAt),
      latency: latencyMs,
    };
    if (outcome.kind === 'success')
      return { ...base, code: outcome.statusCode, err: null, status: 'succeeded', next_at: null };
    const retryAfter = outcome.kind === 'transient' ? outcome.retryAfterSeconds : null;
    const delay =
      outcome.kind === 'transient' ? nextRetryDelayMs(d.attempts, this.options.retryScheduleSeconds, retryAfter) : null;
    return {
      ...base,
      code: outcome.statusCode,
      err: outcome.error,
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
      await recordOutcomes(this.state, batch, Date.now(), this.maybeFailing);
    } catch (error) {
      this.results = batch.concat(this.results);
      throw error;
    }
    return batch.length;
  }

  private async prune(now: number): Promise<void> {
    this.lastPrune = now;
    const removed = await pruneBefore(this.state, iso(now - this.options.retentionDays * 86_400_000));
    if (removed > 0) this.logger?.info({ events: removed }, 'pruned old webhook events and delivery logs');
  }
}
