import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../server/http/error-catalogue.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { responses: Record<string, unknown>; parameters: Array<{ name: string; in: string }> }>
  >;
  webhooks: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
};
let doc: Doc;

beforeAll(async () => {
  t = await startTestApp();
  const res = await t.api('/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
});
afterAll(async () => {
  await t?.close();
});

/** Every (method, OpenAPI path) the mounted routers answer. */
function mountedRoutes(): string[] {
  const out: string[] = [];
  for (const router of t.app.routers) {
    for (const layer of router.stack) {
      const path = String(layer.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      for (const method of layer.methods) if (method !== 'HEAD') out.push(`${method.toLowerCase()} ${path}`);
    }
  }
  return out.sort();
}

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (validated by @readme/openapi-parser)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('documents every route the app mounts, and nothing else', () => {
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`))
      .sort();
    const mounted = mountedRoutes();
    expect(mounted.length).toBeGreaterThan(8);
    expect(documented).toEqual(mounted);
  });

  it('documents the search parameters (profile, content, audience and list filters) and the problem responses', () => {
    const search = doc.paths['/v1/creators/search']!['get']!;
    expect(search.parameters.map((p) => p.name).sort()).toEqual(
      [
        'also_on',
        'audience_age',
        'audience_age_min_pct',
        'audience_country',
        'audience_country_min_pct',
        'audience_gender',
        'audience_gender_min_pct',
        'audience_interest',
        'audience_interest_min_pct',
        'audience_language',
        'audience_language_min_pct',
        'audience_real_min_pct',
        'authenticity_min',
        'avg_views_min',
        'brands',
        'city',
        'country',
        'cursor',
        'engagement_max',
        'engagement_min',
        'exclude_list',
        'followers_max',
        'followers_min',
        'growth_30d_min',
        'has_contact',
        'has_sponsored_posts',
        'hashtags',
        'keywords',
        'language',
        'last_posted_days_max',
        'limit',
        'mentions',
        'niche',
        'platform',
        'price_max',
        'q',
        'reels_views_min',
        'sort',
        'verified',
      ].sort(),
    );
    const sort = search.parameters.find((p) => p.name === 'sort') as { schema?: { enum?: string[] } } | undefined;
    expect(sort?.schema?.enum).toEqual(expect.arrayContaining(['price', '-price']));
    const price = search.parameters.find((p) => p.name === 'price_max') as {
      description?: string;
      schema?: { description?: string };
    };
    expect(price.description ?? price.schema?.description).toContain(
      'the mid estimate of a `post`, USD; creators without an estimate never match',
    );
    expect(Object.keys(search.responses).sort()).toEqual(['200', '400', '401', '403', '429', '500']);
    const profile = doc.paths['/v1/creators/{handle}']!['get']!;
    expect(Object.keys(profile.responses)).toEqual(expect.arrayContaining(['200', '304', '404', '409']));
    expect(doc.components.schemas['Problem']).toBeDefined();
  });

  it('names every catalogue status somewhere in the document', () => {
    const statuses = new Set(
      Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => Object.keys(op.responses))),
    );
    for (const entry of Object.values(ERROR_CATALOGUE)) {
      if (entry.status === 405) continue; // any path, any other method: documented in docs/errors.md
      if ([413, 415, 422].includes(entry.status) && !statuses.has(String(entry.status))) continue; // only once a JSON POST exists
      expect(statuses.has(String(entry.status)), String(entry.status)).toBe(true);
    }
  });
});
