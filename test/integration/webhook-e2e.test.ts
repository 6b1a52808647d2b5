import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../connectors/webhooks/index.js';
import { ingestFiles } from '../../pipelines/ingest.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually, startWorker, WEBHOOK_TEST_ENV } from './webhook-fixtures.js';
import { CREATOR_FILE_COLUMNS } from '../../pipelines/entities/source-entities.js';

const COLUMNS = CREATOR_FILE_COLUMNS;

let t: TestApp;
let receiver: Receiver;
let worker: DeliveryWorker;
let dir: string;

beforeAll(async () => {
  t = await startTestApp({ creators: 300, env: WEBHOOK_TEST_ENV });
  receiver = await startReceiver();
  worker = startWorker(t.state, t.config);
  dir = mkdtempSync(join(tmpdir(), 'cds-webhook-e2e-'));
});

afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function csv(rows: Array<Record<string, unknown>>): string {
  const cell = (v: unknown) => (v === null || v === undefined ? '' : `"${String(v).replaceAll('"', '""')}"`);
  return `${COLUMNS.join(',')}\n${rows.map((r) => COLUMNS.map((c) => cell(r[c])).join(',')).join('\n')}\n`;
}

describe('from an ingested change to a signed delivery', () => {
  it('a creators file changes two creators; the subscribers filtering on a list or a handle get only their creator, signed', async () => {
    const key = await t.key();
    const creators = await t.store.all<Record<string, unknown>>(
      `SELECT ${COLUMNS.join(', ')} FROM creators ORDER BY creator_id LIMIT 2`,
    );
    const [member, other] = creators as [Record<string, unknown>, Record<string, unknown>];
    const list = (await (await t.api('/v1/lists', { key, method: 'POST', json: { name: 'watch' } })).json()) as {
      id: string;
    };
    const added = await t.api(`/v1/lists/${list.id}/creators`, {
      key,
      method: 'POST',
      json: { creators: [{ handle: member['handle'], platform: member['platform'] }] },
    });
    expect(added.status).toBe(200);
    const created = await t.api('/v1/webhooks', {
      key,
      method: 'POST',
      json: { url: receiver.url, events: ['creator.updated'], filter: { list_ids: [list.id] } },
    });
    expect(created.status).toBe(201);
    const hook = (await created.json()) as { secret: string };
    // the handle filter matches on the handle the event carries (the fan-out reads no creators table)
    const byHandle = await t.api('/v1/webhooks', {
      key,
      method: 'POST',
      json: { url: `${receiver.url}/by-handle`, events: ['creator.updated'], filter: { handles: [other['handle']] } },
    });
    expect(byHandle.status).toBe(201);

    const file = join(dir, 'creators-change.csv');
    const later = new Date(Date.now() - 1000).toISOString();
    writeFileSync(
      file,
      csv([member, other].map((c) => ({ ...c, followers: Number(c['followers']) + 12_345, updated_at: later }))),
    );
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [file], 'creators');
    expect(outcome?.runs[0]?.events_emitted).toBe(2);
    // cluster mode: the writer's relay copies the load's events into PostgreSQL (a no-op embedded)
    await t.relay();

    const [req] = await receiver.waitFor(1, 10_000, (r) => r.path === '/hook');
    const body = new Webhook(hook.secret).verify(req!.body, req!.headers) as {
      type: string;
      data: { handle: string; platform: string; changes: Record<string, { from: number; to: number }> };
    };
    expect(body.type).toBe('creator.updated');
    expect(body.data).toMatchObject({ handle: member['handle'], platform: member['platform'] });
    expect(body.data.changes['followers']).toEqual({
      from: Number(member['followers']),
      to: Number(member['followers']) + 12_345,
    });
    const [handleReq] = await receiver.waitFor(1, 10_000, (r) => r.path === '/hook/by-handle');
    expect(JSON.parse(handleReq!.body)).toMatchObject({
      type: 'creator.updated',
      data: { handle: other['handle'], platform: other['platform'] },
    });
    // every event fanned out and every delivery settled: nothing more is on its way to the receiver
    await eventually(
      async () =>
        Number(
          (
            await t.state.one<{ n: number | string }>(`SELECT
        (SELECT count(*) FROM events WHERE fanned_out_at IS NULL) + (SELECT count(*) FROM deliveries WHERE status <> 'succeeded') AS n`)
          )?.n,
        ) === 0,
      10_000,
      'the outbox drained',
    );
    expect(await t.state.all('SELECT delivery_id FROM deliveries')).toHaveLength(2);
    expect(receiver.requests).toHaveLength(2);
  });
});
