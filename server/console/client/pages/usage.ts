import { chartFigure, stackedBars } from '../charts.js';
import { h, replace, table } from '../dom.js';
import { bytes, int, isoDay } from '../format.js';
import { heading, type View } from '../view.js';

type Classes = { requests: number; '2xx': number; '3xx': number; '4xx': number; '5xx': number };
interface Usage {
  from: string;
  to: string;
  granularity: string;
  plan: { name: string; limits: Record<string, number | null> };
  totals: Classes & {
    rate_limited: number;
    verify_calls: number;
    export_rows: number;
    export_bytes: number;
    contact_reveals: number;
  };
  buckets: Array<Classes & { start: string; rate_limited: number }>;
  by_key: Array<{ key_id: string; name: string; requests: number; rate_limited: number }>;
  by_operation: Array<Classes & { operation: string }>;
}

const CLASSES = [
  ['2xx', '#16a34a'],
  ['3xx', '#2563eb'],
  ['4xx', '#d97706'],
  ['5xx', '#dc2626'],
] as const;
const DAYS = 30;

/** #/usage: requests per day for 30 days by status class, the plan's limits, the heaviest operations and keys. */
export async function usagePage(view: View): Promise<void> {
  const to = new Date();
  const from = new Date(to.getTime() - (DAYS - 1) * 86_400_000);
  const usage = await view.api.get<Usage>('/v1/usage', { from: isoDay(from), to: isoDay(to), granularity: 'day' });
  if (view.signal.aborted) return;
  const days = dayLabels(from, DAYS);
  const byDay = new Map(usage.buckets.map((b) => [b.start.slice(0, 10), b]));
  const t = usage.totals;
  replace(
    view.root,
    heading('Usage', h('span', { class: 'sub' }, `${isoDay(from)} to ${isoDay(to)} (UTC), plan ${usage.plan.name}`)),
    h(
      'dl',
      { class: 'stats card' },
      [
        ['Requests', int(t.requests)],
        ['Errors (4xx / 5xx)', `${int(t['4xx'])} / ${int(t['5xx'])}`],
        ['Rate limited', int(t.rate_limited)],
        ['Verify calls', int(t.verify_calls)],
        ['Export rows', int(t.export_rows)],
        ['Export bytes', bytes(t.export_bytes)],
        ['Contact reveals', int(t.contact_reveals)],
        ['This minute', `${int(view.account.usage.requests)} used, ${int(view.account.usage.remaining)} left`],
      ].map(([k, v]) => h('div', { class: 'stat' }, h('dt', null, k), h('dd', null, v))),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', null, 'Requests per day by status class'),
      chartFigure(
        `Requests per day, last ${DAYS} days`,
        (canvas) =>
          stackedBars(
            canvas,
            days,
            CLASSES.map(([c, color]) => ({ label: c, color, data: days.map((d) => byDay.get(d)?.[c] ?? 0) })),
          ),
        `${int(t.requests)} requests: ${CLASSES.map(([c]) => `${c} ${int(t[c])}`).join(', ')}`,
      ),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', null, `Limits of the ${usage.plan.name} plan`),
      table(
        ['Limit', 'Value'],
        Object.entries(usage.plan.limits).map(([k, v]) => [
          k.replace(/_/g, ' '),
          v === null ? 'unlimited' : limitValue(k, v),
        ]),
      ),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', null, 'Heaviest operations'),
      table(
        ['Operation', 'Requests', '2xx', '3xx', '4xx', '5xx'],
        [...usage.by_operation]
          .sort((a, b) => b.requests - a.requests)
          .slice(0, 15)
          .map((o) => [
            h('code', null, o.operation),
            int(o.requests),
            int(o['2xx']),
            int(o['3xx']),
            int(o['4xx']),
            int(o['5xx']),
          ]),
        'No requests in this period.',
      ),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', null, 'By key'),
      table(
        ['Key', 'Requests', 'Rate limited'],
        usage.by_key.map((k) => [`${k.name} (${k.key_id})`, int(k.requests), int(k.rate_limited)]),
        'No requests in this period.',
      ),
    ),
  );
}

function dayLabels(from: Date, n: number): string[] {
  return Array.from({ length: n }, (_, i) => isoDay(new Date(from.getTime() + i * 86_400_000)));
}

function limitValue(name: string, v: number): string {
  return name.endsWith('_bytes') ? bytes(v) : int(v);
}
