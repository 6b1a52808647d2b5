import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMATS, FORMAT_FILES, createExportWorker } from '../../connectors/exports/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { OpenApiResponseValidator } from '../helpers/openapi-responses.js';

let t: TestApp;
let key: string;
let validator: OpenApiResponseValidator;

beforeAll(async () => {
  t = await startTestApp({ creators: 200 });
  key = await t.key();
  validator = await OpenApiResponseValidator.load(t.url);
});
afterAll(async () => t?.close());

function problem(status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  return new Response(
    JSON.stringify({
      type: 'https://x/errors/not_found',
      title: 'Not found',
      status,
      code: 'not_found',
      detail: 'no list',
      request_id: 'r1',
      ...body,
    }),
    { status, headers: { 'Content-Type': 'application/problem+json', ...headers } },
  );
}

describe('the OpenAPI response check behind api()', () => {
  const list = (id = 'lst_1'): string => `${t.url}/v1/lists/${id}`;
  const counted = { 'X-Request-Id': 'r1', 'RateLimit-Policy': '"minute";q=1;w=60', RateLimit: '"minute";r=0;t=1' };

  it('accepts a documented problem response', async () => {
    expect(await validator.check('GET', list(), problem(404, {}, counted))).toBeNull();
  });

  it('refuses a status the operation does not document', async () => {
    expect(await validator.check('GET', list(), problem(418, {}, counted))).toMatch(
      /getList .*418: status 418 is not documented/,
    );
  });

  it('refuses a body member the schema does not declare, naming operation, status and the schema error', async () => {
    expect(await validator.check('GET', list(), problem(404, { secret: 1 }, counted))).toMatch(
      /getList \(GET \/v1\/lists\/\{id\}\) 404: the body does not match the schema: .*additional properties \(secret\)/,
    );
  });

  it('refuses an undocumented content type and a missing documented header', async () => {
    const html = new Response('<p>', { status: 404, headers: { ...counted, 'Content-Type': 'text/html' } });
    expect(await validator.check('GET', list(), html)).toMatch(/content type text\/html is not documented/);
    expect(await validator.check('GET', list(), problem(404, {}, { 'X-Request-Id': 'r1' }))).toMatch(
      /headers missing: RateLimit-Policy, RateLimit/,
    );
  });

  it('matches literal paths before templated ones and allows only 404/405 off the document', async () => {
    const search = new Response('[]', { status: 200, headers: { ...counted, 'Content-Type': 'application/json' } });
    expect(await validator.check('GET', `${t.url}/v1/creators/search`, search)).toMatch(/searchCreators/);
    expect(await validator.check('GET', `${t.url}/v1/nowhere`, problem(404, {}, counted))).toBeNull();
    expect(await validator.check('GET', `${t.url}/v1/nowhere`, new Response('ok', { status: 200 }))).toMatch(
      /no documented operation/,
    );
  });
});

describe('what the document now says the server sends', () => {
  it('every export format downloads with a documented media type (not application/octet-stream)', async () => {
    const worker = createExportWorker({
      store: t.store,
      state: t.state,
      config: t.config,
      logger: pino({ level: 'silent' }),
    });
    for (const format of EXPORT_FORMATS) {
      const created = await t.api('/v1/exports', {
        key,
        method: 'POST',
        json: { source: 'search', filters: { niche: 'pets' }, format },
      });
      expect(created.status, format).toBe(202);
      expect(await worker.runNext()).toBe(true);
      // api() throws here when the media type is not documented for downloadExport
      const res = await t.api(`/v1/exports/${((await created.json()) as { id: string }).id}/download`, { key });
      expect(res.status, format).toBe(200);
      expect(res.headers.get('content-type'), format).toBe(FORMAT_FILES[format].contentType);
      await res.arrayBuffer();
    }
  });

  it('problem bodies carry only declared members: required_scope, limit and limit_value, accepted', async () => {
    const scoped = await t.api('/v1/creators/search', { key: await t.key({ scopes: ['verify'] }) });
    expect(await scoped.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'read' });
    const form = await t.api('/v1/lists', {
      key,
      method: 'POST',
      body: 'name=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(await form.json()).toMatchObject({ code: 'unsupported_media_type', accepted: ['application/json'] });
  });
});
