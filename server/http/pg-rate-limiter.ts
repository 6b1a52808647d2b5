import type { StateQueryable } from '../../data/state/state-db.js';
import { gcraPolicy, gcraState, gcraStep, type RateLimiter, type RateLimitState } from './rate-limiter.js';

/**
 * One request against a bucket, in one statement. The clock is the database
 * server's, so every replica measures the same time. The upsert's WHERE is
 * the GCRA test (TAT no further ahead than the tolerance); on a pass it moves
 * the TAT one interval on and returns it, on a refusal it writes nothing and
 * returns no row, and the TAT as of the statement's snapshot answers instead
 * (for the headers of the 429 only). A tolerance below 0 (limit 0) never
 * inserts either.
 */
const CONSUME_SQL = `WITH clock AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::BIGINT AS now_us),
  taken AS (
    INSERT INTO rate_limits AS r (bucket, tat_us)
    SELECT $bucket, now_us + $interval::BIGINT FROM clock WHERE $tolerance::BIGINT >= 0
    ON CONFLICT (bucket) DO UPDATE SET tat_us = greatest(r.tat_us, (SELECT now_us FROM clock)) + $interval::BIGINT
      WHERE greatest(r.tat_us, (SELECT now_us FROM clock)) - (SELECT now_us FROM clock) <= $tolerance::BIGINT
    RETURNING r.tat_us)
  SELECT (SELECT now_us FROM clock) AS now_us, (SELECT tat_us FROM taken) AS taken_tat_us,
    (SELECT tat_us FROM rate_limits WHERE bucket = $bucket) AS seen_tat_us`;

const PEEK_SQL = `SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::BIGINT AS now_us,
  (SELECT tat_us FROM rate_limits WHERE bucket = ?) AS tat_us`;

interface ConsumeRow extends Record<string, unknown> {
  now_us: number;
  taken_tat_us: number | null;
  seen_tat_us: number | null;
}

/**
 * GCRA in PostgreSQL's `rate_limits` table (cluster mode): one row per account
 * holding its theoretical arrival time, so an account's limit holds across all
 * API replicas together. Rows whose TAT has passed hold nothing and could be
 * deleted at any time; an account has one row, so they stay few.
 */
export class PgRateLimiter implements RateLimiter {
  readonly windowSeconds: number;

  constructor(
    private readonly state: StateQueryable,
    options: { windowSeconds?: number } = {},
  ) {
    this.windowSeconds = options.windowSeconds ?? 60;
  }

  async consume(key: string, limit: number): Promise<RateLimitState> {
    const p = gcraPolicy(limit, this.windowSeconds);
    const row = (await this.state.one<ConsumeRow>(CONSUME_SQL, {
      bucket: key,
      interval: p.intervalUs,
      tolerance: p.toleranceUs,
    }))!;
    if (row.taken_tat_us !== null) return gcraState(p, row.taken_tat_us, row.now_us, true);
    // the snapshot may predate the commit that spent the allowance: a refusal always shows none left
    const seenUs = Math.max(row.seen_tat_us ?? row.now_us, row.now_us + p.toleranceUs + 1);
    return gcraState(p, seenUs, row.now_us, false);
  }

  async peek(key: string, limit: number): Promise<RateLimitState> {
    const p = gcraPolicy(limit, this.windowSeconds);
    const row = (await this.state.one<{ now_us: number; tat_us: number | null }>(PEEK_SQL, [key]))!;
    const tatUs = row.tat_us ?? row.now_us;
    return gcraState(p, tatUs, row.now_us, gcraStep(p, tatUs, row.now_us).allowed);
  }
}
