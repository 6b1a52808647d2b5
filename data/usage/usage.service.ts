import { ValidationError } from '../errors.js';
import type { PlanRecord, PlanView } from '../plans/plan.service.js';
import { toPlanView } from '../plans/plan.service.js';
import type { StateDb } from '../state/state-db.js';
import { parseDateText, parseTimeText, timestampText } from '../timestamps.js';
import * as q from './usage.queries.js';
import type { Granularity } from './usage.queries.js';

export type { Granularity };

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The longest range per granularity: 90 daily or 168 hourly buckets keep a response small. */
export const MAX_BUCKETS: Readonly<Record<Granularity, number>> = { day: 90, hour: 7 * 24 };
/** The range when none is given: the last 30 days by day, the last 24 hours by hour. */
const DEFAULT_BUCKETS: Readonly<Record<Granularity, number>> = { day: 30, hour: 24 };
/** The operation whose successful calls count as verify calls. */
export const VERIFY_OPERATION = 'verifyCreator';
/** The operation whose successful calls count as audience overlaps (a metered operation, docs/audience-overlap.md). */
export const OVERLAP_OPERATION = 'audienceOverlap';

const CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
type ClassCounts = Record<(typeof CLASSES)[number], number>;

export interface UsageBucket extends ClassCounts {
  start: string;
  requests: number;
  rate_limited: number;
  verify_calls: number;
  audience_overlaps: number;
  export_rows: number;
  export_bytes: number;
  contact_reveals: number;
}

export interface UsageReport {
  from: string;
  to: string;
  granularity: Granularity;
  plan: Omit<PlanView, 'scopes'>;
  totals: Omit<UsageBucket, 'start'>;
  buckets: UsageBucket[];
  by_key: Array<{ key_id: string; name: string | null; requests: number; rate_limited: number }>;
  by_operation: Array<{ operation: string; requests: number } & ClassCounts>;
}

/** A resolved half-open range [from, to) on bucket boundaries. */
export interface UsageRange {
  from: Date;
  to: Date;
  granularity: Granularity;
}

/**
 * The range a usage request means. `from`/`to` are dates (`2026-05-01`: that
 * whole day, `to` included) or RFC 3339 times; both snap outward to bucket
 * boundaries (UTC). Missing `to` is the end of the current bucket; missing
 * `from` is the default span before `to`. A range over the granularity's
 * maximum is a 400 naming `from`; `to` not after `from` a 400 naming `to`.
 */
export function resolveUsageRange(
  input: { from?: string | undefined; to?: string | undefined; granularity: Granularity },
  now = new Date(),
): UsageRange {
  const step = input.granularity === 'day' ? DAY_MS : HOUR_MS;
  const floor = (ms: number): number => ms - (((ms % step) + step) % step);
  const ceil = (ms: number): number => (floor(ms) === ms ? ms : floor(ms) + step);
  const to = input.to !== undefined ? ceil(parseInstant('to', input.to, true)) : floor(now.getTime()) + step;
  const from =
    input.from !== undefined
      ? floor(parseInstant('from', input.from, false))
      : to - DEFAULT_BUCKETS[input.granularity] * step;
  if (to <= from) throw ValidationError.param('to', 'must be after from');
  const max = MAX_BUCKETS[input.granularity];
  if ((to - from) / step > max) {
    throw ValidationError.param(
      'from',
      `the range may span at most ${max} ${input.granularity === 'day' ? 'days' : 'hours'} at ${input.granularity} granularity`,
    );
  }
  return { from: new Date(from), to: new Date(to), granularity: input.granularity };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A date (its start; its end for `to`) or an RFC 3339 time, in ms. */
function parseInstant(param: string, value: string, endOfDay: boolean): number {
  const ms = DATE.test(value) ? parseDateText(value) : parseTimeText(value);
  if (ms === null)
    throw ValidationError.param(param, 'must be a date (2026-05-01) or an RFC 3339 time (2026-05-01T12:00:00Z)');
  return DATE.test(value) && endOfDay ? ms + DAY_MS : ms;
}

/** The account's usage in a range: every bucket (zeros included), totals, per key and per operation, with its plan's limits. */
export async function usageReport(
  state: StateDb,
  accountId: string,
  plan: PlanRecord,
  range: UsageRange,
): Promise<UsageReport> {
  const r = { accountId, ...range };
  const [byBucket, byKey, byOperation, exportsRows, revealRows] = await Promise.all([
    q.usageByBucket(state, r, { verify: VERIFY_OPERATION, overlap: OVERLAP_OPERATION }),
    q.usageByKey(state, r),
    q.usageByOperation(state, r),
    q.exportsByBucket(state, r),
    q.revealsByBucket(state, r),
  ]);
  const buckets = emptyBuckets(range);
  const at = new Map(buckets.map((b) => [Date.parse(b.start), b]));
  for (const row of byBucket) addRequests(at.get(row.bucket.getTime()), row);
  for (const row of exportsRows) {
    const b = at.get(row.bucket.getTime());
    if (b) {
      b.export_rows += Number(row.export_rows);
      b.export_bytes += Number(row.export_bytes);
    }
  }
  for (const row of revealRows) {
    const b = at.get(row.bucket.getTime());
    if (b) b.contact_reveals += Number(row.contact_reveals);
  }
  const { name, limits } = toPlanView(plan);
  return {
    from: timestampText(range.from),
    to: timestampText(range.to),
    granularity: range.granularity,
    plan: { name, limits },
    totals: sumBuckets(buckets),
    buckets,
    by_key: byKey.map((k) => ({
      key_id: k.key_id,
      name: k.name,
      requests: Number(k.requests),
      rate_limited: Number(k.rate_limited),
    })),
    by_operation: operations(byOperation),
  };
}

/** Every count of a bucket (and of the totals) at zero. */
function zeroCounts(): UsageReport['totals'] {
  return {
    requests: 0,
    '2xx': 0,
    '3xx': 0,
    '4xx': 0,
    '5xx': 0,
    rate_limited: 0,
    verify_calls: 0,
    audience_overlaps: 0,
    export_rows: 0,
    export_bytes: 0,
    contact_reveals: 0,
  };
}

function emptyBuckets(range: UsageRange): UsageBucket[] {
  const step = range.granularity === 'day' ? DAY_MS : HOUR_MS;
  const out: UsageBucket[] = [];
  for (let t = range.from.getTime(); t < range.to.getTime(); t += step) {
    out.push({ start: timestampText(t), ...zeroCounts() });
  }
  return out;
}

function addRequests(bucket: UsageBucket | undefined, row: q.BucketClassRow): void {
  if (!bucket) return;
  const n = Number(row.requests);
  bucket.requests += n;
  if ((CLASSES as readonly string[]).includes(row.status_class)) bucket[row.status_class as keyof ClassCounts] += n;
  bucket.rate_limited += Number(row.rate_limited);
  bucket.verify_calls += Number(row.verify_calls);
  bucket.audience_overlaps += Number(row.audience_overlaps);
}

function sumBuckets(buckets: readonly UsageBucket[]): UsageReport['totals'] {
  const totals = zeroCounts();
  for (const b of buckets) for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += b[k];
  return totals;
}

function operations(rows: readonly q.OperationUsageRow[]): UsageReport['by_operation'] {
  const byName = new Map<string, UsageReport['by_operation'][number]>();
  for (const row of rows) {
    let op = byName.get(row.operation);
    if (!op)
      byName.set(
        row.operation,
        (op = { operation: row.operation, requests: 0, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 }),
      );
    const n = Number(row.requests);
    op.requests += n;
    if ((CLASSES as readonly string[]).includes(row.status_class)) op[row.status_class as keyof ClassCounts] += n;
  }
  return [...byName.values()].sort((a, b) => b.requests - a.requests || a.operation.localeCompare(b.operation));
}
