import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { discoverIds } from '../../tools/fuzz-discover.js';
import { fuzzApi, operationsOf, type FuzzReport } from '../../tools/fuzz-openapi.js';

// A short fuzzing pass over every operation of the live OpenAPI document: random
// and schema-shaped parameters, path values and bodies (README.md "The API", docs/errors.md). The
// longer pass is `node bin/run-ts.mjs tools/drill-fuzz.ts`.
const RUNS_PER_OPERATION = 16;

let t: TestApp;
let doc: Record<string, unknown>;
let report: FuzzReport;

beforeAll(async () => {
  t = await startTestApp({
    creators: 1500,
    env: { CDS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' },
    planLimits: { enterprise: { requestsPerMinute: 1_000_000 } },
  });
  doc = (await (await t.api('/v1/openapi.json')).json()) as Record<string, unknown>;
  const key = await t.key({ plan: 'enterprise' });
  const sample = await t.store.all<{ handle: string; platform: string }>(
    'SELECT handle, platform FROM creators ORDER BY creator_id LIMIT 4',
  );
  const knownValues = await discoverIds(doc, {
    baseUrl: t.url,
    key,
    seed: 7,
    knownValues: { handle: sample.map((r) => r.handle), platform: sample.map((r) => r.platform) },
  });
  report = await fuzzApi(doc, {
    baseUrl: t.url,
    key,
    runsPerOperation: RUNS_PER_OPERATION,
    knownValues,
    seed: 20261122,
  });
}, 150_000);

afterAll(async () => {
  await t?.close();
});

describe('fuzzing every operation of /v1/openapi.json', () => {
  it('covers every documented operation, and the document has the core endpoints', () => {
    const ops = operationsOf(doc);
    expect(ops.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(['GET /v1/creators/search', 'GET /v1/creators/{handle}']),
    );
    expect(report.operations).toBe(ops.length);
    expect(report.requests).toBeGreaterThanOrEqual(ops.length * RUNS_PER_OPERATION);
  });

  it('when given random parameters and bodies, answers no 5xx and a problem+json for every 4xx', () => {
    const lines = report.findings.map((f) => `${f.request} → ${f.status}: ${f.problem.slice(0, 160)}`);
    expect(lines, lines.join('\n')).toEqual([]);
  });

  it('reaches both rejections and successes (the fuzz is not only bouncing off validation)', () => {
    expect(report.statuses['4xx'] ?? 0).toBeGreaterThan(0);
    expect(report.statuses['2xx'] ?? 0).toBeGreaterThan(0);
  });
});
