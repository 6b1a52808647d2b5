import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const TOKEN = 'scrape-token-0123456789abcdef';
let open: TestApp;
let guarded: TestApp;

beforeAll(async () => {
  open = await startTestApp();
  guarded = await startTestApp({ env: { CDS_METRICS_TOKEN: TOKEN } });
});

afterAll(async () => {
  await open.close();
  await guarded.close();
});

describe('/metrics access', () => {
  it('without CDS_METRICS_TOKEN, /metrics answers anyone', async () => {
    const res = await open.api('/metrics');
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/cds_http_requests_total/);
  });

  it('with CDS_METRICS_TOKEN, /metrics answers the bearer of that token', async () => {
    const res = await guarded.api('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/cds_http_requests_total/);
  });

  it.each([
    ['no Authorization header', undefined],
    ['another token', 'Bearer scrape-token-0123456789abcdeX'],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
    ['the token without Bearer', TOKEN],
  ])('with CDS_METRICS_TOKEN, %s is a 401 problem', async (_what, authorization) => {
    const res = await guarded.api('/metrics', { headers: authorization ? { Authorization: authorization } : {} });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const problem = (await res.json()) as { code: string; detail: string };
    expect(problem.code).toBe('unauthorized');
    expect(problem.detail).not.toContain(TOKEN);
  });

  it('an API key is not the metrics token', async () => {
    const key = await guarded.key();
    expect((await guarded.api('/metrics', { key })).status).toBe(401);
  });

  it('the OpenAPI document says how /metrics is protected and documents its 401', async () => {
    const doc = (await (await open.api('/v1/openapi.json')).json()) as {
      paths: Record<string, { get: { description?: string; responses: Record<string, unknown> } }>;
    };
    const op = doc.paths['/metrics']!.get;
    expect(op.description).toMatch(/CDS_METRICS_TOKEN/);
    expect(op.responses).toHaveProperty('401');
  });
});
