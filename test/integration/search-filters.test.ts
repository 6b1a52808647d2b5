import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_FILTER_NAMES } from '../../data/creators/search-filters.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;

interface Operation { parameters?: Array<{ name: string; in: string }>; requestBody?: { content: Record<string, { schema: unknown }> } }
interface Doc { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } }
interface Problem { errors?: Array<{ param?: string; field?: string }> }

beforeAll(async () => {
  t = await startTestApp({ creators: 100 });
  key = await t.key();
});
afterAll(async () => {
  await t?.close();
});

const search = (query: string): Promise<Response> => t.api(`/v1/creators/search?${query}`, { key });
const exportOf = (filters: Record<string, unknown>): Promise<Response> =>
  t.api('/v1/exports', { key, method: 'POST', json: { source: 'search', filters, format: 'csv' } });

/** The offending names of a 400: `country` for the search, `filters.country` for an export. */
async function offending(res: Response): Promise<string[]> {
  expect(res.status).toBe(400);
  return ((await res.json()) as Problem).errors?.map((e) => (e.param ?? e.field ?? '').replace(/^filters\./, '')) ?? [];
}

describe('one search-filter schema for the search, exports and the OpenAPI document', () => {
  it('a filter the search accepts an export accepts: niche and platform in any case', async () => {
    expect((await search('niche=Beauty,FOOD&platform=Instagram')).status).toBe(200);
    expect((await exportOf({ niche: 'Beauty,FOOD', platform: 'Instagram' })).status).toBe(202);
  });

  it('a filter the search refuses an export refuses, naming the same filters: unassigned country and language codes', async () => {
    const filters = { country: 'XX', audience_country: 'EU', language: 'zz' };
    const bySearch = await offending(await search(new URLSearchParams(filters).toString()));
    expect(bySearch.sort()).toEqual(['audience_country', 'country', 'language']);
    expect((await offending(await exportOf(filters))).sort()).toEqual(bySearch.sort());
  });

  it('the document lists the schema\'s filters as the search\'s parameters and as the export\'s filter names', async () => {
    const doc = await (await t.api('/v1/openapi.json')).json() as Doc;
    const params = doc.paths['/v1/creators/search']?.['get']?.parameters?.filter((p) => p.in === 'query').map((p) => p.name);
    expect(params).toEqual([...SEARCH_FILTER_NAMES, 'sort', 'limit', 'cursor']);
    const body = JSON.stringify(doc.paths['/v1/exports']?.['post']?.requestBody ?? {}) + JSON.stringify(doc.components.schemas);
    expect(body).toContain(JSON.stringify({ enum: [...SEARCH_FILTER_NAMES, 'sort'] }));
  });
});
