import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fanOut } from '../../connectors/webhooks/index.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { addEvent, addSubscription } from './webhook-fixtures.js';

let t: TestStore;
const subs: Record<string, string> = {};
const events: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestStore({ creators: 300 });
  const [c1, c2] = await t.store.all<{ creator_id: number; handle: string }>(
    'SELECT creator_id, handle FROM creators ORDER BY creator_id LIMIT 2',
  );
  const now = new Date().toISOString();
  await t.state.run(
    `INSERT INTO lists (list_id, account_id, name, created_at, updated_at) VALUES
    ('lst_a1', 'acct_a', 'a', ?::TIMESTAMP, ?::TIMESTAMP), ('lst_b1', 'acct_b', 'b', ?::TIMESTAMP, ?::TIMESTAMP)`,
    [now, now, now, now],
  );
  await t.state.run(`INSERT INTO list_members VALUES ('lst_a1', ?, ?::TIMESTAMP), ('lst_b1', ?, ?::TIMESTAMP)`, [
    c1!.creator_id,
    now,
    c2!.creator_id,
    now,
  ]);
  const url = 'https://hooks.example.com/x';
  subs['aList'] = (
    await addSubscription(t.state, {
      account_id: 'acct_a',
      url,
      events: ['creator.updated'],
      filter: { list_ids: ['lst_a1'] },
    })
  ).webhook_id;
  subs['bForeignList'] = (
    await addSubscription(t.state, {
      account_id: 'acct_b',
      url,
      events: ['creator.updated'],
      filter: { list_ids: ['lst_a1'] },
    })
  ).webhook_id;
  subs['bAll'] = (await addSubscription(t.state, { account_id: 'acct_b', url, events: ['*'] })).webhook_id;
  subs['aHandle'] = (
    await addSubscription(t.state, {
      account_id: 'acct_a',
      url,
      events: ['creator.updated'],
      filter: { handles: [c2!.handle] },
    })
  ).webhook_id;
  subs['aCampaign'] = (
    await addSubscription(t.state, {
      account_id: 'acct_a',
      url,
      events: ['campaign.metrics_updated'],
      filter: { campaign_ids: ['cmp_1'] },
    })
  ).webhook_id;
  subs['aDisabled'] = (await addSubscription(t.state, { account_id: 'acct_a', url, events: ['*'] })).webhook_id;
  await t.state.run("UPDATE webhook_subscriptions SET status = 'disabled' WHERE webhook_id = ?", [subs['aDisabled']!]);
  // as pipelines/engine/creator-events.ts writes them: the handle is in every creator.updated payload
  events['c1'] = await addEvent(t.state, {
    type: 'creator.updated',
    creator_id: c1!.creator_id,
    data: { handle: c1!.handle },
  });
  events['c2'] = await addEvent(t.state, {
    type: 'creator.updated',
    creator_id: c2!.creator_id,
    data: { handle: c2!.handle },
  });
  events['aCmp1'] = await addEvent(t.state, {
    type: 'campaign.metrics_updated',
    account_id: 'acct_a',
    campaign_id: 'cmp_1',
  });
  events['aCmp2'] = await addEvent(t.state, {
    type: 'campaign.metrics_updated',
    account_id: 'acct_a',
    campaign_id: 'cmp_2',
  });
  events['aExport'] = await addEvent(t.state, { type: 'export.completed', account_id: 'acct_a' });
  events['bCmp'] = await addEvent(t.state, {
    type: 'campaign.metrics_updated',
    account_id: 'acct_b',
    campaign_id: 'cmp_9',
  });
  await fanOut(t.state, 1000);
});

afterAll(async () => {
  await t.cleanup();
});

async function recipients(event: string): Promise<string[]> {
  const rows = await t.state.all<{ webhook_id: string }>('SELECT webhook_id FROM deliveries WHERE event_id = ?', [
    events[event]!,
  ]);
  const names = Object.fromEntries(Object.entries(subs).map(([k, v]) => [v, k]));
  return rows.map((r) => names[r.webhook_id]!).sort();
}

describe('webhook fan-out', () => {
  it('creator.updated reaches subscriptions whose list (of their own account) or handle filter matches, and unfiltered ones', async () => {
    expect(await recipients('c1')).toEqual(['aList', 'bAll']);
    expect(await recipients('c2')).toEqual(['aHandle', 'bAll']);
  });

  it('campaign and export events reach only their own account, and campaign_ids filters', async () => {
    expect(await recipients('aCmp1')).toEqual(['aCampaign']);
    expect(await recipients('aCmp2')).toEqual([]);
    expect(await recipients('aExport')).toEqual([]);
    expect(await recipients('bCmp')).toEqual(['bAll']);
  });

  it('marks every event fanned out, and fanning out again creates no duplicates', async () => {
    const pending = await t.state.one<{ n: number }>('SELECT count(*) AS n FROM events WHERE fanned_out_at IS NULL');
    expect(pending?.n).toBe(0);
    const before = await t.state.one<{ n: number }>('SELECT count(*) AS n FROM deliveries');
    await t.state.run('UPDATE events SET fanned_out_at = NULL');
    await fanOut(t.state, 1000);
    const after = await t.state.one<{ n: number }>('SELECT count(*) AS n FROM deliveries');
    expect(after?.n).toBe(before?.n);
    expect(before?.n).toBe(6);
  });
});
