import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../connectors/webhooks/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually, startWorker, WEBHOOK_TEST_ENV } from './webhook-fixtures.js';

interface Hook {
  id: string;
  url: string;
  events: string[];
  status: string;
  secret?: string;
  filter: unknown;
  disabled_reason: string | null;
}
interface Delivery {
  id: string;
  status: string;
  attempts_made: number;
  next_retry_at: string | null;
  attempts: Array<{ status_code: number | null; latency_ms: number }>;
}

let t: TestApp;
let receiver: Receiver;
let worker: DeliveryWorker;
let key: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestApp({ env: WEBHOOK_TEST_ENV });
  receiver = await startReceiver();
  worker = startWorker(t.state, t.config);
  ({ key, accountId } = await t.keyWithAccount());
});

afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await t.close();
});

async function create(body: unknown, k = key, headers: Record<string, string> = {}): Promise<Response> {
  return t.api('/v1/webhooks', { key: k, method: 'POST', json: body, headers });
}

async function createOk(body: Record<string, unknown> = {}): Promise<Hook> {
  const res = await create({ url: receiver.url, events: ['*'], ...body });
  expect(res.status).toBe(201);
  return (await res.json()) as Hook;
}

async function deliveries(id: string): Promise<Delivery[]> {
  return ((await (await t.api(`/v1/webhooks/${id}/deliveries`, { key })).json()) as { data: Delivery[] }).data;
}

describe('webhook subscriptions API', () => {
  it('creates a subscription answering its whsec_ secret once, with Location; reads never show the secret', async () => {
    const res = await create({
      url: receiver.url,
      events: ['creator.updated', 'export.completed'],
      description: 'mine',
    });
    expect(res.status).toBe(201);
    const hook = (await res.json()) as Hook;
    expect(hook.id).toMatch(/^whk_/);
    expect(hook.secret).toMatch(/^whsec_/);
    expect(res.headers.get('location')).toBe(`/v1/webhooks/${hook.id}`);
    const read = (await (await t.api(`/v1/webhooks/${hook.id}`, { key })).json()) as Hook;
    expect(read).toMatchObject({
      id: hook.id,
      url: receiver.url,
      status: 'enabled',
      events: ['creator.updated', 'export.completed'],
    });
    expect(read).not.toHaveProperty('secret');
    const list = (await (await t.api('/v1/webhooks', { key })).json()) as { data: Hook[] };
    expect(list.data.map((h) => h.id)).toContain(hook.id);
    await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('refuses private, loopback and plain-http URLs at subscription time with a 400 naming url', async () => {
    for (const url of [
      'https://10.0.0.1/h',
      'https://169.254.169.254/latest',
      'http://example.com/h',
      `https://localhost:${receiver.port}/h`,
      'not a url',
    ]) {
      const res = await create({ url, events: ['*'] });
      expect(res.status, url).toBe(400);
      const problem = (await res.json()) as { code: string; errors: Array<{ field: string }> };
      expect(problem.code).toBe('invalid_body');
      expect(problem.errors[0]?.field).toBe('url');
    }
  });

  it.each([
    'https://[::127.0.0.1]/',
    'https://[::ffff:0:127.0.0.1]/',
    'https://[64:ff9b:1::7f00:1]/',
    'https://[2002:7f00:1::]/',
  ])('refuses the IPv6 form %s of a loopback address at create and at PATCH', async (url) => {
    expect((await create({ url, events: ['*'] })).status).toBe(400);
    const hook = await createOk();
    const res = await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'PATCH', json: { url } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('url');
    expect(((await (await t.api(`/v1/webhooks/${hook.id}`, { key })).json()) as Hook).url).toBe(receiver.url);
    await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('refusing a name that resolves to a private address does not say the address, and says how to allow a host', async () => {
    const res = await create({ url: `https://localhost:${receiver.port}/h`, events: ['*'] });
    expect(res.status).toBe(400);
    const text = JSON.stringify(await res.json());
    expect(text).not.toMatch(/127\.0\.0\.1|::1\b/);
    expect(text).toMatch(/destination is not allowed/);
    expect(text).toMatch(/CDS_WEBHOOK_ALLOW_HOSTS/);
  });

  it("rejects unknown fields, unknown event types and a filter naming another account's list", async () => {
    expect((await create({ url: receiver.url, events: ['*'], colour: 'red' })).status).toBe(400);
    expect((await create({ url: receiver.url, events: ['creator.deleted'] })).status).toBe(400);
    expect((await create({ url: receiver.url, events: ['*'], filter: { list_ids: ['lst_notmine'] } })).status).toBe(
      400,
    );
  });

  it('the plan limit on subscriptions answers 403 limit_exceeded', async () => {
    const other = await t.key();
    for (let i = 0; i < 5; i++) expect((await create({ url: receiver.url, events: ['*'] }, other)).status).toBe(201);
    const res = await create({ url: receiver.url, events: ['*'] }, other);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('limit_exceeded');
  });

  it('an Idempotency-Key replays the first creation', async () => {
    const body = { url: receiver.url, events: ['*'], description: 'idem' };
    const a = (await (await create(body, key, { 'Idempotency-Key': 'whk-idem-1' })).json()) as Hook;
    const b = (await (await create(body, key, { 'Idempotency-Key': 'whk-idem-1' })).json()) as Hook;
    expect(b.id).toBe(a.id);
    await t.api(`/v1/webhooks/${a.id}`, { key, method: 'DELETE' });
  });

  it('an Idempotency-Key replay never answers the secret: not the first one after a rotation, nothing after a delete', async () => {
    const body = { url: receiver.url, events: ['*'], description: 'idem-secret' };
    const first = (await (await create(body, key, { 'Idempotency-Key': 'whk-idem-secret' })).json()) as Hook;
    expect(first.secret).toMatch(/^whsec_/);
    const rotated = (await (
      await t.api(`/v1/webhooks/${first.id}/rotate-secret`, { key, method: 'POST' })
    ).json()) as Hook;
    const replay = await create(body, key, { 'Idempotency-Key': 'whk-idem-secret' });
    expect(replay.status).toBe(201);
    const replayed = await replay.text();
    expect(JSON.parse(replayed)).toMatchObject({ id: first.id, secret: null, secret_redacted: true });
    expect(replayed).not.toContain(first.secret);
    expect(replayed).not.toContain(rotated.secret);
    await t.api(`/v1/webhooks/${first.id}`, { key, method: 'DELETE' });
    const afterDelete = await (await create(body, key, { 'Idempotency-Key': 'whk-idem-secret' })).text();
    expect(afterDelete).not.toContain('whsec_');
    const stored = await t.state.all<{ body: string }>(
      'SELECT response_body AS body FROM idempotency_keys WHERE idempotency_key = ?',
      ['whk-idem-secret'],
    );
    expect(stored.map((r) => r.body).join('')).not.toContain('whsec_');
  });

  it('signing secrets are stored encrypted (v1:iv:tag:ciphertext); deliveries sign with both the rotated and the previous one', async () => {
    const hook = await createOk();
    const row = await t.state.one<{ secret: string }>('SELECT secret FROM webhook_subscriptions WHERE webhook_id = ?', [
      hook.id,
    ]);
    expect(row?.secret).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(row?.secret).not.toContain(hook.secret?.slice(6) ?? '');
    const rotated = (await (
      await t.api(`/v1/webhooks/${hook.id}/rotate-secret`, { key, method: 'POST' })
    ).json()) as Hook;
    const res = await t.api(`/v1/webhooks/${hook.id}/test`, { key, method: 'POST' });
    expect(res.status).toBe(202);
    const { delivery_id: deliveryId } = (await res.json()) as { delivery_id: string };
    const [req] = await receiver.waitFor(1, 10_000, (r) => r.headers['webhook-id'] === deliveryId);
    // during the rotation both sealed secrets are opened and both sign
    expect(() => new Webhook(rotated.secret ?? '').verify(req!.body, req!.headers)).not.toThrow();
    expect(() => new Webhook(hook.secret ?? '').verify(req!.body, req!.headers)).not.toThrow();
    await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('answers that carry a secret (create, its idempotent replay, rotate-secret) are Cache-Control: no-store; reads are not', async () => {
    const body = { url: receiver.url, events: ['*'], description: 'no-store' };
    const first = await create(body, key, { 'Idempotency-Key': 'whk-no-store-1' });
    expect(first.status).toBe(201);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const hook = (await first.json()) as Hook;
    const replay = await create(body, key, { 'Idempotency-Key': 'whk-no-store-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('cache-control')).toBe('no-store');
    const rotated = await t.api(`/v1/webhooks/${hook.id}/rotate-secret`, { key, method: 'POST' });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect((await t.api(`/v1/webhooks/${hook.id}`, { key })).headers.get('cache-control')).not.toBe('no-store');
    await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it("another account's subscription is a 404 everywhere", async () => {
    const hook = await createOk();
    const stranger = await t.key();
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/test'],
      ['GET', '/deliveries'],
      ['POST', '/rotate-secret'],
    ] as const) {
      const res = await t.api(`/v1/webhooks/${hook.id}${path}`, {
        key: stranger,
        method,
        json: method === 'PATCH' ? { description: 'x' } : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('a key without webhooks:write cannot create', async () => {
    const readOnly = await t.key({ account: accountId, scopes: ['read'] });
    const res = await create({ url: receiver.url, events: ['*'] }, readOnly);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('insufficient_scope');
  });

  it('test sends a signed webhook.test, logged with its attempt; retry replays it under the same webhook-id', async () => {
    const hook = await createOk();
    const res = await t.api(`/v1/webhooks/${hook.id}/test`, { key, method: 'POST' });
    expect(res.status).toBe(202);
    const { delivery_id } = (await res.json()) as { delivery_id: string };
    const [req] = await receiver.waitFor(1, 5_000, (r) => r.headers['webhook-id'] === delivery_id);
    const body = new Webhook(hook.secret!).verify(req!.body, req!.headers) as {
      type: string;
      data: { webhook_id: string };
    };
    expect(body).toMatchObject({ type: 'webhook.test', data: { webhook_id: hook.id } });
    await eventually(async () => (await deliveries(hook.id))[0]?.status === 'succeeded');
    const [logged] = await deliveries(hook.id);
    expect(logged).toMatchObject({ id: delivery_id, attempts_made: 1, next_retry_at: null });
    expect(logged!.attempts[0]).toMatchObject({ status_code: 200 });
    const replay = await t.api(`/v1/webhooks/${hook.id}/deliveries/${delivery_id}/retry`, { key, method: 'POST' });
    expect(replay.status).toBe(202);
    await receiver.waitFor(2, 5_000, (r) => r.headers['webhook-id'] === delivery_id);
    await eventually(async () => (await deliveries(hook.id))[0]?.attempts.length === 2);
    await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('after rotate-secret both secrets sign during the grace period', async () => {
    const hook = await createOk();
    const rotated = (await (
      await t.api(`/v1/webhooks/${hook.id}/rotate-secret`, { key, method: 'POST' })
    ).json()) as Hook & { previous_secret_expires_at: string };
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(Date.parse(rotated.previous_secret_expires_at)).toBeGreaterThan(Date.now());
    const { delivery_id } = (await (await t.api(`/v1/webhooks/${hook.id}/test`, { key, method: 'POST' })).json()) as {
      delivery_id: string;
    };
    const [req] = await receiver.waitFor(1, 5_000, (r) => r.headers['webhook-id'] === delivery_id);
    expect(req!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(rotated.secret!).verify(req!.body, req!.headers)).not.toThrow();
    expect(() => new Webhook(hook.secret!).verify(req!.body, req!.headers)).not.toThrow();
    await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('PATCH disables and re-enables; a disabled subscription cannot be tested; DELETE removes it', async () => {
    const hook = await createOk();
    const disabled = (await (
      await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'PATCH', json: { status: 'disabled' } })
    ).json()) as Hook;
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'disabled through the API' });
    expect((await t.api(`/v1/webhooks/${hook.id}/test`, { key, method: 'POST' })).status).toBe(409);
    const enabled = (await (
      await t.api(`/v1/webhooks/${hook.id}`, {
        key,
        method: 'PATCH',
        json: { status: 'enabled', events: ['creator.updated'], filter: { handles: ['SomeOne'] } },
      })
    ).json()) as Hook;
    expect(enabled).toMatchObject({
      status: 'enabled',
      disabled_reason: null,
      events: ['creator.updated'],
      filter: { handles: ['@someone'] },
    });
    expect(
      (await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'PATCH', json: { url: 'https://192.168.0.1/x' } })).status,
    ).toBe(400);
    expect((await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'DELETE' })).status).toBe(204);
    expect((await t.api(`/v1/webhooks/${hook.id}`, { key })).status).toBe(404);
  });

  it('the delivery log pages newest first with a cursor, and filters by status', async () => {
    const hook = await createOk();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          (await (await t.api(`/v1/webhooks/${hook.id}/test`, { key, method: 'POST' })).json()) as {
            delivery_id: string;
          }
        ).delivery_id,
      );
    const first = (await (await t.api(`/v1/webhooks/${hook.id}/deliveries?limit=2`, { key })).json()) as {
      data: Delivery[];
      next_cursor: string;
    };
    expect(first.data).toHaveLength(2);
    const second = (await (
      await t.api(`/v1/webhooks/${hook.id}/deliveries?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`, { key })
    ).json()) as { data: Delivery[]; next_cursor: string | null };
    const walked = [...first.data, ...second.data].map((d) => d.id);
    expect(walked).toHaveLength(3);
    expect(new Set(walked)).toEqual(new Set(ids));
    expect(walked[0]).toBe(ids[2]);
    expect(second.next_cursor).toBeNull();
    const foreign = await t.api(
      `/v1/webhooks/${hook.id}/deliveries?limit=2&status=failed&cursor=${encodeURIComponent(first.next_cursor)}`,
      { key },
    );
    expect(foreign.status).toBe(400);
    await eventually(async () => (await deliveries(hook.id)).every((d) => d.status === 'succeeded'));
    const failed = (await (await t.api(`/v1/webhooks/${hook.id}/deliveries?status=failed`, { key })).json()) as {
      data: Delivery[];
    };
    expect(failed.data).toHaveLength(0);
    await t.api(`/v1/webhooks/${hook.id}`, { key, method: 'DELETE' });
  });

  it('the OpenAPI document describes every event payload', async () => {
    const doc = (await (await t.api('/v1/openapi.json')).json()) as { webhooks: Record<string, unknown> };
    expect(Object.keys(doc.webhooks)).toEqual(
      expect.arrayContaining(['creator.updated', 'campaign.metrics_updated', 'export.completed', 'webhook.test']),
    );
  });
});
