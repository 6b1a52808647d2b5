import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_FILTER_NAMES } from '../../data/creators/search-filters.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;

interface Operation {
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}
interface Problem {
  errors?: Array<{ param?: string; field?: string }>;
}

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

  it.each([
    ['audience_gender=robot', 'audience_gender'],
    ['audience_age=10-12,18-24', 'audience_age'],
    ['audience_language=zz', 'audience_language'],
    ['audience_interest=%3Cscript%3E', 'audience_interest'],
    ['also_on=myspace', 'also_on'],
    ['hashtags=%23meal%20prep', 'hashtags'],
    ['mentions=@@someone', 'mentions'],
    ['brands=nike!', 'brands'],
    ['keywords=!!!', 'keywords'],
    ['last_posted_days_max=-1', 'last_posted_days_max'],
    ['avg_views_min=1e6', 'avg_views_min'],
    ['reels_views_min=lots', 'reels_views_min'],
    ['price_max=-1', 'price_max'],
    ['price_max=2e3', 'price_max'],
    ['price_max=1000000001', 'price_max'],
    ['sort=cheapest', 'sort'],
    ['audience_real_min_pct=101', 'audience_real_min_pct'],
    ['has_contact=yes', 'has_contact'],
    ['has_sponsored_posts=1', 'has_sponsored_posts'],
    ['exclude_list=favourites', 'exclude_list'],
    ['exclude_list=lst_a,lst_b,lst_c,lst_d,lst_e,lst_f', 'exclude_list'],
    ['audience_gender_min_pct=50', 'audience_gender_min_pct'],
    ['audience_age_min_pct=50', 'audience_age_min_pct'],
    ['audience_language_min_pct=50', 'audience_language_min_pct'],
    ['audience_interest_min_pct=50', 'audience_interest_min_pct'],
  ])('?%s is a 400 naming %s, for the search and for an export', async (query, param) => {
    expect(await offending(await search(query))).toEqual([param]);
    expect(await offending(await exportOf(Object.fromEntries(new URLSearchParams(query))))).toEqual([param]);
  });

  it("an export excluding a list that is not the caller's is a 400 naming filters.exclude_list", async () => {
    expect(await offending(await exportOf({ exclude_list: 'lst_notmine', niche: 'food' }))).toEqual(['exclude_list']);
  });

  it('the discovery filters read in any case, with or without their signs', async () => {
    for (const query of [
      'hashtags=%23Fitness,mealprep',
      'mentions=@Nike,adidas',
      'brands=Nike,@ADIDAS',
      'audience_gender=Female',
      'audience_age=25-34,18-24&audience_age_min_pct=40',
      'audience_language=EN',
      'also_on=YouTube',
      'keywords=Meal%20PREP',
      'has_contact=false',
    ]) {
      expect((await search(query)).status, query).toBe(200);
    }
  });

  it("the document lists the schema's filters as the search's parameters and as the export's filter names", async () => {
    const doc = (await (await t.api('/v1/openapi.json')).json()) as Doc;
    const params = doc.paths['/v1/creators/search']?.['get']?.parameters
      ?.filter((p) => p.in === 'query')
      .map((p) => p.name);
    expect(params).toEqual([...SEARCH_FILTER_NAMES, 'sort', 'limit', 'cursor']);
    const body =
      JSON.stringify(doc.paths['/v1/exports']?.['post']?.requestBody ?? {}) + JSON.stringify(doc.components.schemas);
    expect(body).toContain(JSON.stringify({ enum: [...SEARCH_FILTER_NAMES, 'sort'] }));
  });
});
