import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDue } from '../../connectors/webhooks/claim.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { addEvent, addSubscription } from './webhook-fixtures.js';
import { fanOut } from '../../connectors/webhooks/index.js';

let t: TestStore;
let busy: string;
let quiet: string;

beforeAll(async () => {
  t = await createTestStore();
  busy = (await addSubscription(t.state, { account_id: 'acct_busy', url: 'https://busy.example/h' })).webhook_id;
  quiet = (await addSubscription(t.state, { account_id: 'acct_quiet', url: 'https://quiet.example/h' })).webhook_id;
  for (let i = 0; i < 200; i++) await addEvent(t.state, { type: 'export.completed', account_id: 'acct_busy' });
  for (let i = 0; i < 5; i++) await addEvent(t.state, { type: 'export.completed', account_id: 'acct_quiet' });
  await fanOut(t.state, 1000);
});

afterAll(async () => {
  await t.cleanup();
});

describe('claiming due deliveries', () => {
  it('a backlog on one subscription takes at most its cap, and the next claim reaches the others', async () => {
    const held = new Map<string, number>();
    const req = (now: number) => ({ now, leaseMs: 60_000, limit: 20, perEndpointCap: 10, held, sweepExpired: false });
    const first = await claimDue(t.state, req(Date.now() + 1000));
    const count = (rows: Array<{ webhook_id: string }>, id: string) => rows.filter((r) => r.webhook_id === id).length;
    expect(count(first, busy)).toBe(10);
    for (const d of first) held.set(d.webhook_id, (held.get(d.webhook_id) ?? 0) + 1);
    const second = await claimDue(t.state, req(Date.now() + 1000));
    expect(count(second, quiet) + count(first, quiet)).toBe(5);
    expect(count(second, busy)).toBe(0);
    expect(new Set([...first, ...second].map((d) => d.attempts))).toEqual(new Set([1]));
  });

  it('a leased delivery is not claimed again until its lease runs out, and then only on a sweep', async () => {
    const all = new Map<string, number>();
    const later = Date.now() + 120_000;
    const withoutSweep = await claimDue(t.state, {
      now: later,
      leaseMs: 60_000,
      limit: 500,
      perEndpointCap: 500,
      held: all,
      sweepExpired: false,
    });
    expect(withoutSweep.every((d) => d.attempts === 1)).toBe(true);
    const swept = await claimDue(t.state, {
      now: later + 1,
      leaseMs: 60_000,
      limit: 500,
      perEndpointCap: 500,
      held: all,
      sweepExpired: true,
    });
    expect(swept.length).toBeGreaterThan(0);
    expect(swept.every((d) => d.attempts === 2)).toBe(true);
    const interrupted = await t.state.one<{ n: number }>(
      "SELECT count(*) AS n FROM delivery_attempts WHERE error LIKE 'interrupted%'",
    );
    expect(interrupted?.n).toBe(swept.length);
  });
});
