import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestFiles } from '../../pipelines/ingest.service.js';
import { CREATOR_COLUMNS, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';
import { creatorWithUniqueHandle } from '../helpers/creators.js';
import { lookalikesReady, startTestApp, type TestApp } from '../helpers/app.js';
import {
  NUMERIC_EXTREME_TEXTS,
  NUMERIC_EXTREME_VALUES,
  operationsOf,
  type FuzzOperation,
} from '../../tools/fuzz-openapi.js';

// Every numeric input of every operation, read from the live OpenAPI document,
// driven with extreme and malformed values. The documented contract: a number is
// plain decimal text (digits, optional leading -, a fraction only for `number`;
// no exponent, hex, spaces or separators) within the parameter's minimum and
// maximum. Anything else is a 400 naming the input; nothing is ever a 5xx.

type Json = Record<string, unknown>;
interface NumericParam {
  op: FuzzOperation;
  name: string;
  schema: Json;
}
interface Problem {
  status: number;
  code: string;
  errors?: Array<{ param?: string; field?: string; message: string }>;
}

/** Values the hardening issue reported, on top of the fuzzer's numeric extremes. */
const REPORTED = [
  '1e308',
  '-1e308',
  '1e20',
  '-0',
  String(2 ** 53 + 1),
  '1e5',
  '0x10',
  ' 5',
  '5 ',
  '%20',
  '',
  'NaN',
  'Infinity',
  '1_000',
];
/** Parameters that only mean something with another one. */
const COMPANIONS: Record<string, Record<string, string>> = {
  audience_country_min_pct: { audience_country: 'US' },
  audience_gender_min_pct: { audience_gender: 'female' },
  audience_age_min_pct: { audience_age: '18-24' },
  audience_language_min_pct: { audience_language: 'en' },
  audience_interest_min_pct: { audience_interest: 'fitness' },
};

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

let t: TestApp;
let doc: Json;
let params: NumericParam[];
const knownIds: string[] = [];
/** A creator whose handle no other platform uses, for operations under /v1/creators/{handle}. */
let knownHandle = '';
/** Owns the list and the webhook the path parameters name. */
let ownerKey: string;

/** An account of its own per request, so accepted exports never meet a per-account queue limit. */
const freshKey = () =>
  t.key({ scopes: ['read', 'verify', 'lists:write', 'webhooks:write', 'exports:write', 'keys:write', 'admin'] });

beforeAll(async () => {
  t = await startTestApp({
    creators: 300,
    env: { CDS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' },
    planLimits: { entry: { requestsPerMinute: 1_000_000 } },
  });
  doc = (await (await t.api('/v1/openapi.json')).json()) as Json;
  params = operationsOf(doc).flatMap((op) =>
    op.queryParams
      .filter((p) => p.schema['type'] === 'integer' || p.schema['type'] === 'number')
      .map((p) => ({ op, name: p.name, schema: p.schema })),
  );
  // One list and one webhook, so operations under /v1/lists/{id} and /v1/webhooks/{id} get past their path parameter.
  const key = await freshKey();
  const list = await t.api('/v1/lists', { key, method: 'POST', json: { name: 'numbers' } });
  const hook = await t.api('/v1/webhooks', {
    key,
    method: 'POST',
    json: { url: 'https://127.0.0.1:9/hook', events: ['*'] },
  });
  for (const res of [list, hook]) knownIds.push(((await res.json()) as { id: string }).id);
  ownerKey = key;
  knownHandle = (await creatorWithUniqueHandle(t.store)).handle;
  // And one pipeline run, for /v1/runs/{run_id} and its rejects.
  const dir = mkdtempSync(join(tmpdir(), 'cds-numeric-'));
  try {
    const file = writeCsv(dir, 'creators.csv', CREATOR_COLUMNS, [creatorRow({ handle: '@numeric_run' })]);
    const [outcome] = await ingestFiles({ store: t.store, config: t.config }, [file], 'creators');
    knownIds.push(outcome!.runs[0]!.run_id);
    await t.relay();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // the run above is new data: lookalikes answer a documented 503 while the index is brought to it, which is
  // not what this file tests (test/integration/lookalikes-api.test.ts covers it)
  await lookalikesReady(t, await creatorWithUniqueHandle(t.store), key);
});
afterAll(async () => t?.close());

/** The operation's path with every path parameter set to a resource that exists. */
function pathOf(op: FuzzOperation): string {
  return op.pathParams.reduce((path, p) => {
    const pattern = typeof p.schema['pattern'] === 'string' ? new RegExp(p.schema['pattern']) : null;
    const id = p.name === 'handle' ? knownHandle : knownIds.find((k) => pattern?.test(k));
    if (!id) throw new Error(`no known id for ${op.path} {${p.name}}: create one in beforeAll`);
    return path.replace(`{${p.name}}`, id);
  }, op.path);
}

/** What the document promises: plain decimal text of the right kind, within minimum..maximum. */
function documentedAccepts(text: string, schema: Json): boolean {
  if (!(schema['type'] === 'integer' ? INTEGER : DECIMAL).test(text)) return false;
  const n = Number(text);
  return n >= (schema['minimum'] as number) && n <= (schema['maximum'] as number);
}

const textValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...REPORTED, ...NUMERIC_EXTREME_TEXTS) },
  { weight: 2, arbitrary: fc.stringMatching(/^-?\d{1,14}(\.\d{1,4})?$/) },
  { weight: 1, arbitrary: fc.integer({ min: -200, max: 2_000 }).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);

async function problemOf(res: Response): Promise<Problem> {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return (await res.json()) as Problem;
}

describe('numeric query parameters', () => {
  it('every numeric query parameter in the document declares a minimum and a maximum', () => {
    expect(params.map((p) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'followers_min', 'growth_30d_min', 'engagement_min']),
    );
    for (const p of params) {
      expect(typeof p.schema['minimum'], `${p.op.path} ${p.name}`).toBe('number');
      expect(typeof p.schema['maximum'], `${p.op.path} ${p.name}`).toBe('number');
    }
  });

  it('whatever the value, answers 200 exactly when the document accepts it and otherwise a 400 naming the parameter, never a 5xx', async () => {
    const key = ownerKey;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...params), textValue, async (p, value) => {
        const query = new URLSearchParams({ ...COMPANIONS[p.name], [p.name]: value });
        const res = await t.api(`${pathOf(p.op)}?${query.toString()}`, { key });
        expect(res.status, `${p.op.path}?${p.name}=${JSON.stringify(value)}`).toBeLessThan(500);
        if (documentedAccepts(value, p.schema)) {
          expect(res.status, `${p.op.path}?${p.name}=${JSON.stringify(value)}: ${await res.clone().text()}`).toBe(200);
        } else {
          expect(res.status, `${p.op.path}?${p.name}=${JSON.stringify(value)}`).toBe(400);
          const problem = await problemOf(res);
          expect(problem.code).toBe('invalid_parameter');
          expect(problem.errors?.map((e) => e.param)).toContain(p.name);
        }
      }),
      { numRuns: 400, seed: 20261123 },
    );
  });

  it('each value the issue reported, on each parameter, is a 400 or a 200, never a 5xx', async () => {
    for (const p of params) {
      for (const value of REPORTED) {
        const query = new URLSearchParams({ ...COMPANIONS[p.name], [p.name]: value });
        const res = await t.api(`${pathOf(p.op)}?${query.toString()}`, { key: ownerKey });
        expect([200, 400], `${p.op.path}?${p.name}=${JSON.stringify(value)}`).toContain(res.status);
      }
    }
  });

  it('growth_30d_min=1e20 is a 400 naming it (it was a 500: bigint out of int64 range)', async () => {
    const res = await t.api('/v1/creators/search?growth_30d_min=1e20', { key: ownerKey });
    expect(res.status).toBe(400);
    expect((await problemOf(res)).errors).toEqual([
      { param: 'growth_30d_min', message: expect.stringMatching(/no exponent/) },
    ]);
    const huge = await t.api('/v1/creators/search?growth_30d_min=100000000000000000000', { key: ownerKey });
    expect((await problemOf(huge)).errors).toEqual([{ param: 'growth_30d_min', message: 'must be ≤ 1000000' }]);
  });

  it('a space, an empty value and hex are refused, not read as 0 and 16; -0 is 0', async () => {
    for (const raw of ['followers_min=%20', 'followers_min=', 'followers_min=0x10', 'limit=0x10', 'limit=%2010']) {
      const res = await t.api(`/v1/creators/search?${raw}`, { key: ownerKey });
      expect(res.status, raw).toBe(400);
    }
    const zero = await (await t.api('/v1/creators/search?followers_min=0&limit=5', { key: ownerKey })).json();
    const minusZero = await (await t.api('/v1/creators/search?followers_min=-0&limit=5', { key: ownerKey })).json();
    expect(minusZero).toEqual(zero);
  });
});

describe('numeric fields of JSON bodies', () => {
  it('the only numeric body fields are export search filters, a lookalikes export limit and a rotation grace (a new one needs a case)', () => {
    const found: string[] = [];
    for (const op of operationsOf(doc)) if (op.body) numericPaths(op.body, `${op.method} ${op.path}`, found);
    expect([...new Set(found)].sort()).toEqual([
      'POST /v1/exports filters.*',
      // a lookalikes export's limit: its case is in export-lookalikes.test.ts (it needs the lookalike index)
      'POST /v1/exports limit',
      'POST /v1/keys/{id}/rotate grace_seconds',
    ]);
  });

  it('grace_seconds of a key rotation: accepted exactly within its bounds, otherwise a 400 naming it, never a 5xx', async () => {
    const created = await t.api('/v1/keys', {
      key: ownerKey,
      method: 'POST',
      json: { name: 'rotated by the numeric test', scopes: ['read'] },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    for (const value of [...NUMERIC_EXTREME_VALUES, 0, 1, 86_400, 604_800, 604_801, -1, 1.5, '60']) {
      const res = await t.api(`/v1/keys/${id}/rotate`, {
        key: ownerKey,
        method: 'POST',
        json: { grace_seconds: value },
      });
      const label = `grace_seconds ${JSON.stringify(value)}`;
      expect(res.status, label).toBeLessThan(500);
      const accepted = typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 604_800;
      expect(res.status, `${label}: ${await res.clone().text()}`).toBe(accepted ? 200 : 400);
      if (!accepted) expect((await problemOf(res)).errors?.map((e) => e.field)).toContain('grace_seconds');
    }
  });

  it('export filters take the search parameters with the same bounds: accepted exactly when the search accepts them, never a 5xx', async () => {
    const search = params.filter((p) => p.op.path === '/v1/creators/search' && p.name !== 'limit');
    const jsonValue = fc.oneof(
      fc.constantFrom(...NUMERIC_EXTREME_VALUES),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...search), fc.oneof(textValue, jsonValue), async (p, value) => {
        const filters = { ...COMPANIONS[p.name], [p.name]: value };
        const res = await t.api('/v1/exports', {
          key: await freshKey(),
          method: 'POST',
          json: { source: 'search', format: 'csv', filters },
        });
        const label = `filters ${JSON.stringify(filters)}`;
        expect(res.status, label).toBeLessThan(500);
        const accepted =
          typeof value === 'number'
            ? (p.schema['type'] !== 'integer' || Number.isInteger(value)) &&
              value >= (p.schema['minimum'] as number) &&
              value <= (p.schema['maximum'] as number)
            : documentedAccepts(value, p.schema);
        if (accepted) {
          expect(res.status, `${label}: ${await res.clone().text()}`).toBe(202);
        } else {
          expect(res.status, label).toBe(400);
          const problem = await problemOf(res);
          expect(problem.code).toBe('invalid_body');
          expect(problem.errors?.map((e) => e.field)).toContain(`filters.${p.name}`);
        }
      }),
      { numRuns: 200, seed: 20261124 },
    );
  });

  it('growth_30d_min 1e20 in export filters is a 400 naming filters.growth_30d_min (it was a 500)', async () => {
    for (const value of [1e20, '1e20']) {
      const res = await t.api('/v1/exports', {
        key: ownerKey,
        method: 'POST',
        json: { source: 'search', format: 'csv', filters: { growth_30d_min: value } },
      });
      expect(res.status).toBe(400);
      expect((await problemOf(res)).errors?.map((e) => e.field)).toEqual(['filters.growth_30d_min']);
    }
  });

  it('a small JSON number is taken by value, not refused for the exponent form JSON serialisers write', async () => {
    const res = await t.api('/v1/exports', {
      key: await freshKey(),
      method: 'POST',
      json: { source: 'search', format: 'csv', filters: { engagement_min: 1e-7 } },
    });
    expect(res.status).toBe(202);
    // echoed as the number the search read, not as its text
    expect(((await res.json()) as { filters: Json }).filters).toEqual({ engagement_min: 1e-7 });
  });
});

/** Dotted paths of every number-typed node of a JSON schema (`*` for a record's values). */
function numericPaths(schema: unknown, at: string, out: string[], field = ''): void {
  if (schema === null || typeof schema !== 'object') return;
  const s = schema as Json;
  const types = Array.isArray(s['type']) ? s['type'] : [s['type']];
  if (types.includes('number') || types.includes('integer')) out.push(`${at} ${field}`.trim());
  for (const [name, child] of Object.entries((s['properties'] ?? {}) as Json))
    numericPaths(child, at, out, field ? `${field}.${name}` : name);
  if (typeof s['additionalProperties'] === 'object') numericPaths(s['additionalProperties'], at, out, `${field}.*`);
  for (const key of ['items', 'anyOf', 'oneOf', 'allOf']) {
    const child = s[key];
    for (const c of Array.isArray(child) ? child : [child]) numericPaths(c, at, out, field);
  }
}
